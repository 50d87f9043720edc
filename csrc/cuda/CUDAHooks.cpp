// CUDA runtime glue: device discovery without side effects, lazy initialization, a direct cudaMalloc
// allocator and host<->device copies. (The caching allocator and streams come with the CUDA backend issue.)
#include "cuda/CUDAHooks.h"

#include <pthread.h>

#include <atomic>
#include <mutex>

#include "core/Allocator.h"
#include "core/Exception.h"
#include "core/Tensor.h"

#ifdef MINITORCH_WITH_CUDA
#include <cuda_runtime_api.h>

#include "cuda/Exceptions.h"
#include "ops/copy.h"
#include "ops/kernels.h"
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

class CUDADirectAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device device) override {
    if (nbytes == 0) return nullptr;
    int prev = 0;
    MT_CUDA_CHECK(cudaGetDevice(&prev));
    if (prev != device.index) MT_CUDA_CHECK(cudaSetDevice(device.index));
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, nbytes);
    if (prev != device.index) cudaSetDevice(prev);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw_error(ErrorKind::OutOfMemory, str("CUDA out of memory. Tried to allocate ", format_bytes(nbytes),
                                              ". GPU ", device.index, " could not provide it."));
    }
    MT_CUDA_CHECK(err);
    return p;
  }
  void deallocate(void* ptr, Device) override {
    if (ptr) cudaFree(ptr);  // never throw from a destructor path
  }
};

// Same-dtype copy between devices. Non-contiguous sides are staged through a contiguous copy on their device.
void cross_device_copy(const Tensor& dst, const Tensor& src, bool non_blocking) {
  Tensor s = contiguous(src);
  Tensor d = dst.is_contiguous() ? dst : make_empty(dst.sizes(), dst.dtype(), dst.device());
  MT_CHECK(s.numel() == d.numel(), "copy_: cross-device copies need equal shapes, got ",
           shape_str(src.sizes()), " and ", shape_str(dst.sizes()));
  size_t nbytes = static_cast<size_t>(s.numel()) * s.itemsize();
  cudaMemcpyKind kind = s.is_cuda() && d.is_cuda() ? cudaMemcpyDeviceToDevice
                        : s.is_cuda() ? cudaMemcpyDeviceToHost
                                      : cudaMemcpyHostToDevice;
  MT_CUDA_CHECK(cudaMemcpy(d.data_ptr(), s.data_ptr(), nbytes, kind));
  if (!d.is_same(dst)) copy_(dst, d);
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
  if (query_device_count(&why) == 0) MT_ERROR(why.empty() ? "No CUDA GPUs are available" : why);
  std::call_once(g_init_once, [] {
    static CUDADirectAllocator alloc;
    set_allocator(DeviceType::CUDA, &alloc);
    cross_device_copy_stub.fns[static_cast<int>(DeviceType::CUDA)] = &cross_device_copy;
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

#endif

}  // namespace mt
