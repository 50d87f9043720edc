// The CUDA caching allocator and the pinned host-memory cache (policies at the top of their .cpp files).
// Included only by CUDA-enabled translation units in csrc/cuda/.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "core/Allocator.h"

namespace mt {
namespace cuda {

// Device memory: stream-ordered reuse of cudaMalloc'd segments. Registered as the CUDA allocator at lazy
// init.
Allocator* caching_allocator();
// PyTorch's memory_stats() keys ("allocated_bytes.all.current", "num_ooms", ...) for one device.
std::map<std::string, int64_t> memory_stats(int device);
void reset_peak_memory_stats(int device);
// Returns every cached, unused segment to the driver (after waiting for pending cross-stream uses).
void empty_cache();
// Tells the allocator that `stream` also uses the block holding `ptr`: it is not reused before that
// stream's work enqueued so far has finished (Tensor.record_stream).
void record_stream(void* ptr, int device, cudaStream_t stream);

// ---- CUDA graphs: private memory pools (PyTorch's beginAllocateToPool / endAllocateToPool / releasePool).
// A pool id is PyTorch's MempoolId_t: {0, n} from graph_pool_handle(), {n, 0} for a graph's own pool.
using MempoolId = std::pair<uint64_t, uint64_t>;
// From here until end_allocate_to_pool, allocations on `stream` (or on any stream joined to the capture with
// id `capture_id`) come from the private pool `pool` (created on first use; each begin adds a user).
void begin_allocate_to_pool(int device, MempoolId pool, cudaStream_t stream, unsigned long long capture_id);
void end_allocate_to_pool(int device, MempoolId pool);
// A graph using `pool` is gone: once no graph uses it, its segments go back to the driver as their blocks are
// freed.
void release_pool(int device, MempoolId pool);
// False under MINITORCH_NO_CUDA_MEMORY_CACHING=1 (no pools: CUDA graphs cannot keep their memory).
bool caching_enabled();
// Number of captures underway in the process (any device): 0 keeps every capture check off the fast path.
int captures_underway();
// True when `stream` is capturing a CUDA graph (active or invalidated capture).
bool stream_is_capturing(cudaStream_t stream);

// Lets this thread make "potentially unsafe" calls (cudaMalloc, creating a library handle) while a CUDA graph
// capture is underway, by switching it to cudaStreamCaptureModeRelaxed for the scope (PyTorch's
// CUDAStreamCaptureModeGuard); a no-op when `active` is false.
class RelaxedCaptureGuard {
 public:
  explicit RelaxedCaptureGuard(bool active) : active_(active) {
    if (active_) cudaThreadExchangeStreamCaptureMode(&mode_);
  }
  ~RelaxedCaptureGuard() {
    if (active_) cudaThreadExchangeStreamCaptureMode(&mode_);
  }
  RelaxedCaptureGuard(const RelaxedCaptureGuard&) = delete;
  RelaxedCaptureGuard& operator=(const RelaxedCaptureGuard&) = delete;

 private:
  bool active_;
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// Page-locked host memory for fast, truly asynchronous copies; cached by size (powers of two), and a block
// freed while an async copy still reads it waits for that copy's event before reuse.
Allocator* pinned_allocator();
bool is_pinned_ptr(const void* ptr);
// Marks the pinned block holding `ptr` as in use by work just enqueued on `stream`.
void record_pinned_use(void* ptr, cudaStream_t stream);

}  // namespace cuda
}  // namespace mt
