// CUDA runtime glue: device discovery without side effects, lazy initialization (which installs the caching
// allocator), copies between devices, and the stream/event/memory queries behind minitorch.cuda.
#include "cuda/CUDAHooks.h"

#include <pthread.h>

#include <atomic>
#include <cctype>
#include <mutex>
#include <sstream>

#include "core/Allocator.h"
#include "core/Exception.h"
#include "core/Tensor.h"

#ifdef MINITORCH_WITH_CUDA
#include <cuda_runtime_api.h>

#include "cuda/CUDACachingAllocator.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#endif

namespace mt {

const CUDAHooks& cuda_hooks() {
  static CUDAHooks hooks;
  return hooks;
}

bool CUDAHooks::compiled_with_cuda() const {
#ifdef MINITORCH_WITH_CUDA
  return true;
#else
  return false;
#endif
}

const char* CUDAHooks::cuda_version() const {
#ifdef MINITORCH_WITH_CUDA
  return MINITORCH_CUDA_VERSION;
#else
  return nullptr;
#endif
}

#ifndef MINITORCH_CUDA_ARCH_LIST
#define MINITORCH_CUDA_ARCH_LIST ""
#endif

const char* cuda_arch_list() {
  return MINITORCH_CUDA_ARCH_LIST;
}

// CUDA's compatibility rules: SASS built for sm_XY runs on X.Z for Z >= Y (same major; "a"/"f" variants are
// bound to their own GPU/family), PTX for compute_XY is JIT-compiled for any newer device. CMake's "-real"
// means SASS only, "-virtual" PTX only, a bare number both.
std::string cuda_arch_mismatch(int major, int minor, const std::string& arch_list) {
  std::string list = arch_list;
  for (char& c : list)
    if (c == ';') c = ' ';
  std::istringstream in(list);
  std::string e;
  int device = major * 10 + minor;
  while (in >> e) {
    if (e == "all" || e == "all-major" || e == "native") return "";
    size_t i = 0;
    while (i < e.size() && std::isdigit(static_cast<unsigned char>(e[i]))) ++i;
    if (i == 0) continue;
    int arch = std::stoi(e.substr(0, i));
    char variant = i < e.size() && (e[i] == 'a' || e[i] == 'f') ? e[i] : 0;  // sm_90a, sm_100f
    std::string kind = e.substr(i + (variant ? 1 : 0));
    bool sass = kind != "-virtual", ptx = kind != "-real";
    int amaj = arch / 10, amin = arch % 10;
    if (sass && amaj == major && (variant == 'a' ? amin == minor : amin <= minor)) return "";
    if (ptx && !variant && arch <= device) return "";
  }
  return str(
      "has CUDA capability sm_", major, minor,
      ", but this minitorch build has kernels only for the CUDA architectures \"", arch_list,
      "\". Rebuild for this GPU: CUDAARCHS=", major, minor,
      " pip install --force-reinstall --no-deps . (a build on a machine with this GPU picks it itself)");
}

#ifndef MINITORCH_WITH_CUDA

int CUDAHooks::device_count() const {
  return 0;
}
[[noreturn]] static void not_compiled() {
  throw_error(ErrorKind::Assertion, "Torch not compiled with CUDA enabled");
}
void CUDAHooks::lazy_init() const {
  not_compiled();
}
bool CUDAHooks::is_initialized() const {
  return false;
}
int CUDAHooks::current_device() const {
  not_compiled();
}
void CUDAHooks::set_device(int) const {
  not_compiled();
}
DeviceProperties CUDAHooks::properties(int) const {
  not_compiled();
}
void CUDAHooks::synchronize(int) const {
  not_compiled();
}
std::map<std::string, int64_t> CUDAHooks::memory_stats(int) const {
  return {};
}
void CUDAHooks::reset_peak_memory_stats(int) const {}
void CUDAHooks::empty_cache() const {}
std::pair<size_t, size_t> CUDAHooks::mem_get_info(int) const {
  not_compiled();
}
Allocator* CUDAHooks::pinned_allocator() const {
  not_compiled();
}
bool CUDAHooks::is_pinned(const void*) const {
  return false;
}
void CUDAHooks::record_stream(const Tensor&, uintptr_t) const {
  not_compiled();
}
uintptr_t CUDAHooks::current_stream(int) const {
  not_compiled();
}
void CUDAHooks::set_current_stream(int, uintptr_t) const {
  not_compiled();
}
uintptr_t CUDAHooks::stream_from_pool(int, bool) const {
  not_compiled();
}
std::pair<int, int> CUDAHooks::stream_priority_range() const {
  not_compiled();
}
bool CUDAHooks::stream_query(uintptr_t) const {
  not_compiled();
}
void CUDAHooks::stream_synchronize(uintptr_t) const {
  not_compiled();
}
void CUDAHooks::stream_wait_event(uintptr_t, uintptr_t) const {
  not_compiled();
}
uintptr_t CUDAHooks::event_create(bool, bool) const {
  not_compiled();
}
void CUDAHooks::event_destroy(uintptr_t) const {}
void CUDAHooks::event_record(uintptr_t, uintptr_t) const {
  not_compiled();
}
bool CUDAHooks::event_query(uintptr_t) const {
  not_compiled();
}
void CUDAHooks::event_synchronize(uintptr_t) const {
  not_compiled();
}
float CUDAHooks::event_elapsed_time(uintptr_t, uintptr_t) const {
  not_compiled();
}

#else

namespace {

std::atomic<bool> g_initialized{false};
std::atomic<bool> g_in_bad_fork{false};
std::once_flag g_init_once;

void mark_bad_fork() {
  if (g_initialized.load()) g_in_bad_fork.store(true);
}

// Device count with PyTorch's reading of cudaGetDeviceCount's errors; the sticky error is cleared.
int query_device_count(std::string* why) {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  cudaGetLastError();
  if (err == cudaSuccess) return n;
  if (why) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    cudaGetLastError();
    if (err == cudaErrorNoDevice)
      *why = "No CUDA GPUs are available";
    else if (err == cudaErrorInsufficientDriver && driver <= 0)
      *why =
          "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
          "driver from http://www.nvidia.com/Download/index.aspx";
    else if (err == cudaErrorInsufficientDriver)
      *why = str("The NVIDIA driver on your system is too old (found version ", driver,
                 "). Please update your GPU driver by downloading and installing a new version from the URL: "
                 "http://www.nvidia.com/Download/index.aspx");
    else
      *why = str("CUDA driver initialization failed: ", cudaGetErrorString(err));
  }
  return 0;
}

cudaStream_t as_stream(uintptr_t h) {
  return reinterpret_cast<cudaStream_t>(h);
}
cudaEvent_t as_event(uintptr_t h) {
  return reinterpret_cast<cudaEvent_t>(h);
}

// A stream or event query's answer: NotReady is "not yet" (cleared, so the next check does not see it); any
// other error raises.
bool query_done(cudaError_t e) {
  if (e == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  MT_CUDA_CHECK(e);
  return true;
}

}  // namespace

std::string format_bytes(size_t n) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buf;
}

int CUDAHooks::device_count() const {
  static int count = query_device_count(nullptr);
  return count;
}

void CUDAHooks::lazy_init() const {
  MT_CHECK(
      !g_in_bad_fork.load(),
      "Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
      "'spawn' start method");
  if (g_initialized.load(std::memory_order_acquire)) return;
  std::string why;
  int n = query_device_count(&why);
  if (n == 0) MT_ERROR(why.empty() ? "No CUDA GPUs are available" : why);
  // A GPU the binary has no kernel for would fail at the first launch with cudaErrorNoKernelImageForDevice;
  // say so here, with the GPU's sm and the build's list.
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p;
    MT_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    std::string why_not = cuda_arch_mismatch(p.major, p.minor, cuda_arch_list());
    if (!why_not.empty()) MT_ERROR("CUDA device ", d, " (", p.name, ") ", why_not);
  }
  std::call_once(g_init_once, [] {
    set_allocator(DeviceType::CUDA, cuda::caching_allocator());
    pthread_atfork(nullptr, nullptr, mark_bad_fork);
    MT_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context now, not inside the first op
    g_initialized.store(true, std::memory_order_release);
  });
}

bool CUDAHooks::is_initialized() const {
  return g_initialized.load();
}

int CUDAHooks::current_device() const {
  lazy_init();
  int d = 0;
  MT_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void CUDAHooks::set_device(int index) const {
  lazy_init();
  MT_CHECK(index >= 0 && index < device_count(), "CUDA error: invalid device ordinal");
  MT_CUDA_CHECK(cudaSetDevice(index));
}

DeviceProperties CUDAHooks::properties(int index) const {
  lazy_init();
  MT_CHECK(index >= 0 && index < device_count(), "CUDA error: invalid device ordinal");
  cudaDeviceProp p;
  MT_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  DeviceProperties out;
  out.name = p.name;
  out.total_memory = p.totalGlobalMem;
  out.multi_processor_count = p.multiProcessorCount;
  out.major = p.major;
  out.minor = p.minor;
  return out;
}

void CUDAHooks::synchronize(int index) const {
  lazy_init();
  int prev = current_device();
  if (index >= 0 && index != prev) MT_CUDA_CHECK(cudaSetDevice(index));
  cudaError_t err = cudaDeviceSynchronize();
  if (index >= 0 && index != prev) cudaSetDevice(prev);
  MT_CUDA_CHECK(err);
}

std::map<std::string, int64_t> CUDAHooks::memory_stats(int device) const {
  if (!is_initialized()) return {};
  return cuda::memory_stats(device);
}
void CUDAHooks::reset_peak_memory_stats(int device) const {
  if (is_initialized()) cuda::reset_peak_memory_stats(device);
}
void CUDAHooks::empty_cache() const {
  if (is_initialized()) cuda::empty_cache();
}
std::pair<size_t, size_t> CUDAHooks::mem_get_info(int device) const {
  lazy_init();
  cuda::DeviceGuard g(device);
  size_t free_b = 0, total_b = 0;
  MT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return {free_b, total_b};
}
Allocator* CUDAHooks::pinned_allocator() const {
  lazy_init();
  return cuda::pinned_allocator();
}
bool CUDAHooks::is_pinned(const void* ptr) const {
  return is_initialized() && cuda::is_pinned_ptr(ptr);
}
void CUDAHooks::record_stream(const Tensor& t, uintptr_t stream) const {
  MT_CHECK(t.is_cuda(), "record_stream expects a CUDA tensor, got a tensor on ", t.device().str());
  if (t.storage()->data) cuda::record_stream(t.storage()->data, t.device().index, as_stream(stream));
}

uintptr_t CUDAHooks::current_stream(int device) const {
  lazy_init();
  return reinterpret_cast<uintptr_t>(cuda::current_stream(device));
}
void CUDAHooks::set_current_stream(int device, uintptr_t stream) const {
  lazy_init();
  cuda::set_current_stream(device, as_stream(stream));
}
uintptr_t CUDAHooks::stream_from_pool(int device, bool high_priority) const {
  // Like PyTorch: a fixed pool of non-blocking streams per device and priority, handed out round-robin and
  // never destroyed, so a Stream object going away can never leave a dangling current stream.
  lazy_init();
  constexpr int kPool = 32;
  static std::mutex mu;
  static cudaStream_t pool[cuda::kMaxDevices][2][kPool] = {};
  static unsigned next[cuda::kMaxDevices][2] = {};
  if (device < 0) device = cuda::current_device();
  MT_CHECK(device < device_count(), "CUDA error: invalid device ordinal");
  std::lock_guard<std::mutex> g(mu);
  int pr = high_priority ? 1 : 0;
  cudaStream_t& s = pool[device][pr][next[device][pr]++ % kPool];
  if (!s) {
    cuda::DeviceGuard dg(device);
    int least = 0, greatest = 0;
    MT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    MT_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high_priority ? greatest : least));
  }
  return reinterpret_cast<uintptr_t>(s);
}
std::pair<int, int> CUDAHooks::stream_priority_range() const {
  lazy_init();
  int least = 0, greatest = 0;
  MT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  return {least, greatest};
}
bool CUDAHooks::stream_query(uintptr_t stream) const {
  return query_done(cudaStreamQuery(as_stream(stream)));
}
void CUDAHooks::stream_synchronize(uintptr_t stream) const {
  MT_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
}
void CUDAHooks::stream_wait_event(uintptr_t stream, uintptr_t event) const {
  MT_CUDA_CHECK(cudaStreamWaitEvent(as_stream(stream), as_event(event), 0));
}
uintptr_t CUDAHooks::event_create(bool enable_timing, bool blocking) const {
  lazy_init();
  unsigned flags = (enable_timing ? 0u : cudaEventDisableTiming) | (blocking ? cudaEventBlockingSync : 0u);
  cudaEvent_t e;
  MT_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
  return reinterpret_cast<uintptr_t>(e);
}
void CUDAHooks::event_destroy(uintptr_t event) const {
  if (event && !g_in_bad_fork.load()) cudaEventDestroy(as_event(event));
}
void CUDAHooks::event_record(uintptr_t event, uintptr_t stream) const {
  MT_CUDA_CHECK(cudaEventRecord(as_event(event), as_stream(stream)));
}
bool CUDAHooks::event_query(uintptr_t event) const {
  return query_done(cudaEventQuery(as_event(event)));
}
void CUDAHooks::event_synchronize(uintptr_t event) const {
  MT_CUDA_CHECK(cudaEventSynchronize(as_event(event)));
}
float CUDAHooks::event_elapsed_time(uintptr_t start, uintptr_t end) const {
  float ms = 0;
  cudaError_t e = cudaEventElapsedTime(&ms, as_event(start), as_event(end));
  if (e == cudaErrorInvalidResourceHandle) {
    cudaGetLastError();
    MT_ERROR("Both events must be created with argument 'enable_timing=True'.");
  }
  if (e == cudaErrorNotReady) {
    cudaGetLastError();
    MT_ERROR("Both events must be completed before calculating elapsed time.");
  }
  MT_CUDA_CHECK(e);
  return ms;
}

#endif

}  // namespace mt
