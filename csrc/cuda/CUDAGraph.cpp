// torch.cuda.CUDAGraph over the CUDA runtime's stream capture (PyTorch's at::cuda::CUDAGraph, simplified):
// the capture draws its memory from a private pool of the caching allocator, so a replay's addresses stay
// valid.
#include "cuda/CUDAGraph.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "core/Exception.h"
#include "cuda/CUDAHooks.h"

#ifdef MINITORCH_WITH_CUDA
#include <cuda_runtime_api.h>

#include "core/Generator.h"
#include "cuda/CUDACachingAllocator.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#endif

namespace mt {

GraphPoolId graph_pool_handle() {
  // PyTorch's user pool ids: {0, n}; a graph's own pool is {n, 0}, so the two never collide
  static std::atomic<uint64_t> next{1};
  return {0, next.fetch_add(1)};
}

#ifndef MINITORCH_WITH_CUDA

[[noreturn]] static void graphs_not_compiled() {
  throw_error(ErrorKind::Assertion, "Torch not compiled with CUDA enabled");
}
bool is_current_stream_capturing() {
  graphs_not_compiled();
}
bool graph_rng_offset(int, bool, uint64_t*) {
  return false;
}
const uint64_t* graph_rng_state(int) {
  return nullptr;
}
CUDAGraph::CUDAGraph(bool keep_graph) : keep_graph_(keep_graph) {
  graphs_not_compiled();
}
CUDAGraph::~CUDAGraph() = default;
void CUDAGraph::capture_begin(GraphPoolId, const std::string&) {
  graphs_not_compiled();
}
void CUDAGraph::capture_end() {
  graphs_not_compiled();
}
void CUDAGraph::abort_capture() {}
void CUDAGraph::instantiate() {
  graphs_not_compiled();
}
void CUDAGraph::replay() {
  graphs_not_compiled();
}
void CUDAGraph::reset() {}
GraphPoolId CUDAGraph::pool() const {
  graphs_not_compiled();
}
void CUDAGraph::debug_dump(const std::string&, bool) const {
  graphs_not_compiled();
}
uintptr_t CUDAGraph::raw_cuda_graph() const {
  graphs_not_compiled();
}
uintptr_t CUDAGraph::raw_cuda_graph_exec() const {
  graphs_not_compiled();
}

#else

namespace {

cudaGraph_t as_graph(void* g) {
  return static_cast<cudaGraph_t>(g);
}
cudaGraphExec_t as_exec(void* e) {
  return static_cast<cudaGraphExec_t>(e);
}

cudaStreamCaptureMode parse_mode(const std::string& mode) {
  if (mode == "global") return cudaStreamCaptureModeGlobal;
  if (mode == "thread_local") return cudaStreamCaptureModeThreadLocal;
  if (mode == "relaxed") return cudaStreamCaptureModeRelaxed;
  MT_ERROR("Unknown capture error mode. Expected `global`, `thread_local`, or `relaxed`, got ", mode);
}

}  // namespace

bool is_current_stream_capturing() {
  // PyTorch's: False without touching the driver when no context exists (raises only without a GPU)
  if (!cuda_hooks().is_initialized()) {
    if (cuda_hooks().device_count() == 0) cuda_hooks().lazy_init();  // raises why CUDA cannot be used
    return false;
  }
  if (cuda::captures_underway() == 0) return false;
  return cuda::stream_is_capturing(cuda::current_stream(-1));
}

namespace {
std::mutex g_graphs_mu;
std::vector<CUDAGraph*> g_capturing;  // graphs whose capture is underway

// The graph capturing the current stream of `device` (nullptr when none).
CUDAGraph* capturing_graph(int device) {
  if (cuda::captures_underway() == 0) return nullptr;
  cudaStream_t s = cuda::current_stream(device);
  if (!cuda::stream_is_capturing(s)) return nullptr;
  std::lock_guard<std::mutex> lock(g_graphs_mu);
  for (CUDAGraph* g : g_capturing)
    if (g->capturing_on(device, reinterpret_cast<uintptr_t>(s))) return g;
  return nullptr;
}
}  // namespace

bool graph_rng_offset(int device, bool default_generator, uint64_t* offset) {
  if (cuda::captures_underway() == 0) return false;
  if (!cuda::stream_is_capturing(cuda::current_stream(device))) return false;
  MT_CHECK(
      default_generator,
      "a generator= argument to a random op inside a CUDA graph capture is not supported by minitorch: the "
      "graph draws from the device's default generator");
  CUDAGraph* g = capturing_graph(device);
  MT_CHECK(
      g != nullptr,
      "random number generation on CUDA inside a stream capture that is not a torch.cuda.CUDAGraph's (on "
      "the capture's own stream) is not supported");
  *offset = g->take_rng_call();
  return true;
}

const uint64_t* graph_rng_state(int device) {
  CUDAGraph* g = capturing_graph(device);
  return g ? g->rng_state() : nullptr;
}

CUDAGraph::CUDAGraph(bool keep_graph) : keep_graph_(keep_graph) {
  cuda_hooks().lazy_init();
}

CUDAGraph::~CUDAGraph() {
  try {
    if (capturing_) abort_capture();
    reset();
    if (rng_state_) cuda::caching_allocator()->deallocate(rng_state_, Device(DeviceType::CUDA, device_));
  } catch (...) {  // never throw from a destructor (PyTorch warns instead)
  }
}

void CUDAGraph::capture_begin(GraphPoolId pool, const std::string& capture_error_mode) {
  MT_CHECK(!capturing_ && !capture_ended_ && graph_ == nullptr && exec_ == nullptr,
           "This CUDAGraph instance already owns a captured graph. To capture a new graph, create a new "
           "instance.");
  cudaStreamCaptureMode mode = parse_mode(capture_error_mode);
  MT_CHECK(cuda::caching_enabled(),
           "CUDA graph capture needs the caching allocator's private pools: unset "
           "MINITORCH_NO_CUDA_MEMORY_CACHING");
  int device = cuda::current_device();
  cudaStream_t stream = cuda::current_stream(device);
  MT_CHECK(stream != nullptr,
           "CUDA graphs must be captured on a non-default stream. (However, after capture, it's ok to replay "
           "them on the default stream.)");
  if (pool.first != 0 || pool.second != 0) {
    MT_CHECK(!(pool.first && pool.second), "CUDAGraph: invalid pool id (", pool.first, ", ", pool.second,
             ")");
    pool_ = pool;
  } else {
    static std::atomic<uint64_t> next{1};
    pool_ = {next.fetch_add(1), 0};
  }
  if (rng_state_ && device != device_) {
    cuda::caching_allocator()->deallocate(rng_state_, Device(DeviceType::CUDA, device_));
    rng_state_ = nullptr;
  }
  if (!rng_state_)  // before the capture: an ordinary block, kept for the graph's life
    rng_state_ = static_cast<uint64_t*>(
        cuda::caching_allocator()->allocate(2 * sizeof(uint64_t), Device(DeviceType::CUDA, device)));
  device_ = device;
  rng_calls_ = 0;
  MT_CUDA_CHECK(cudaStreamBeginCapture(stream, mode));
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  cudaError_t err = cudaStreamGetCaptureInfo(stream, &status, &id);
  if (err != cudaSuccess) {
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(stream, &g);
    if (g) cudaGraphDestroy(g);
    MT_CUDA_CHECK(err);
  }
  cuda::begin_allocate_to_pool(device, pool_, stream, id);
  capture_stream_ = reinterpret_cast<uintptr_t>(stream);
  capture_id_ = id;
  capturing_ = true;
  std::lock_guard<std::mutex> lock(g_graphs_mu);
  g_capturing.push_back(this);
}

void CUDAGraph::stop_capturing() {
  capturing_ = false;
  std::lock_guard<std::mutex> lock(g_graphs_mu);
  g_capturing.erase(std::remove(g_capturing.begin(), g_capturing.end(), this), g_capturing.end());
}

void CUDAGraph::capture_end() {
  MT_CHECK(capturing_, "CUDAGraph::capture_end called without a preceding capture_begin");
  cuda::DeviceGuard guard(device_);
  cudaStream_t stream = reinterpret_cast<cudaStream_t>(capture_stream_);
  MT_CHECK(cuda::current_stream(device_) == stream, "Capture must end on the same stream it began on.");
  cudaGraph_t g = nullptr;
  cudaError_t err = cudaStreamEndCapture(stream, &g);
  cuda::end_allocate_to_pool(device_, pool_);
  stop_capturing();
  if (err != cudaSuccess || g == nullptr) {
    cudaGetLastError();
    if (g) cudaGraphDestroy(g);
    cuda::release_pool(device_, pool_);
    MT_CUDA_CHECK(err);
    MT_ERROR("Invalid capture.");
  }
  graph_ = g;
  capture_ended_ = true;
  size_t nodes = 0;
  MT_CUDA_CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  if (nodes == 0)
    warn(
        "The CUDA Graph is empty. This usually means that the graph was attempted to be captured on wrong "
        "device or stream.");
  if (!keep_graph_) {
    instantiate();
    cudaGraphDestroy(g);
    graph_ = nullptr;
  }
}

void CUDAGraph::abort_capture() {
  if (!capturing_) return;
  cuda::DeviceGuard guard(device_);
  cudaGraph_t g = nullptr;
  cudaStreamEndCapture(reinterpret_cast<cudaStream_t>(capture_stream_), &g);
  cudaGetLastError();
  if (g) cudaGraphDestroy(g);
  cuda::end_allocate_to_pool(device_, pool_);
  cuda::release_pool(device_, pool_);
  stop_capturing();
}

void CUDAGraph::instantiate() {
  MT_CHECK(capture_ended_, "capture_end() must have been called before calling instantiate");
  MT_CHECK(graph_ != nullptr,
           "No cudaGraph_t is available: either capture_end() has not been called, or the underlying "
           "cudaGraph_t was destroyed (keep_graph=false, and capture has been finalized).");
  cuda::DeviceGuard guard(device_);
  if (exec_) {
    cudaGraphExecDestroy(as_exec(exec_));
    exec_ = nullptr;
  }
  cudaGraphExec_t e = nullptr;
  MT_CUDA_CHECK(cudaGraphInstantiate(&e, as_graph(graph_), 0));
  exec_ = e;
}

void CUDAGraph::replay() {
  MT_CHECK(capture_ended_, "Called CUDAGraph::replay without a preceding successful capture.");
  if (!exec_) instantiate();  // keep_graph=True: instantiated on the first replay
  cuda::DeviceGuard guard(device_);
  // a graph may be replayed on any stream of its device
  cudaStream_t stream = cuda::current_stream(device_);
  if (rng_calls_ > 0) {
    // this replay's random calls take the generator's next rng_calls_ offsets, as the same eager calls would;
    // staged through the pinned cache, which keeps the buffer until the copy has run
    Generator& gen = cuda_generator(device_);
    uint64_t word[2] = {gen.seed(), gen.reserve(rng_calls_)};
    Allocator* pinned = cuda::pinned_allocator();
    void* host = pinned->allocate(sizeof word, Device(DeviceType::CPU));
    std::memcpy(host, word, sizeof word);
    cudaError_t err = cudaMemcpyAsync(rng_state_, host, sizeof word, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess) cuda::record_pinned_use(host, stream);
    pinned->deallocate(host, Device(DeviceType::CPU));
    MT_CUDA_CHECK(err);
  }
  MT_CUDA_CHECK(cudaGraphLaunch(as_exec(exec_), stream));
}

void CUDAGraph::reset() {
  if (capturing_) abort_capture();
  rng_calls_ = 0;
  if (device_ < 0) return;
  cuda::DeviceGuard guard(device_);
  if (capture_ended_) {
    cuda::release_pool(device_, pool_);
    capture_ended_ = false;
  }
  if (graph_) {
    cudaGraphDestroy(as_graph(graph_));
    graph_ = nullptr;
  }
  if (exec_) {
    cudaGraphExecDestroy(as_exec(exec_));
    exec_ = nullptr;
  }
  cudaGetLastError();
}

GraphPoolId CUDAGraph::pool() const {
  MT_CHECK(capture_ended_, "Called CUDAGraph::pool() without a preceding successful capture.");
  return pool_;
}

void CUDAGraph::debug_dump(const std::string& path, bool verbose) const {
  MT_CHECK(graph_ != nullptr,
           "No cudaGraph_t is available: either capture_end() has not been called, or the underlying "
           "cudaGraph_t was destroyed (keep_graph=false, and capture has been finalized).");
  MT_CUDA_CHECK(cudaGraphDebugDotPrint(as_graph(graph_), path.c_str(),
                                       verbose ? static_cast<unsigned>(cudaGraphDebugDotFlagsVerbose) : 0u));
}

uintptr_t CUDAGraph::raw_cuda_graph() const {
  MT_CHECK(graph_ != nullptr,
           "No cudaGraph_t is available: either capture_end() has not been called, or the underlying "
           "cudaGraph_t was destroyed (keep_graph=false, and capture has been finalized).");
  return reinterpret_cast<uintptr_t>(graph_);
}

uintptr_t CUDAGraph::raw_cuda_graph_exec() const {
  MT_CHECK(exec_ != nullptr,
           "You cannot access the raw cudaGraphExec_t instance until instantiate() has been called");
  return reinterpret_cast<uintptr_t>(exec_);
}

#endif

}  // namespace mt
