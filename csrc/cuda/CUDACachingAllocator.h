// The CUDA caching allocator and the pinned host-memory cache (policies at the top of their .cpp files).
// Included only by CUDA-enabled translation units in csrc/cuda/.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <string>

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

// Page-locked host memory for fast, truly asynchronous copies; cached by size (powers of two), and a block
// freed while an async copy still reads it waits for that copy's event before reuse.
Allocator* pinned_allocator();
bool is_pinned_ptr(const void* ptr);
// Marks the pinned block holding `ptr` as in use by work just enqueued on `stream`.
void record_pinned_use(void* ptr, cudaStream_t stream);

}  // namespace cuda
}  // namespace mt
