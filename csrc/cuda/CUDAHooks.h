// The CUDA runtime as the rest of the core sees it: lazy, fork-aware, and present (erroring clearly) even in
// builds without CUDA, so no file outside csrc/cuda/ and csrc/kernels/cuda/ needs an #ifdef.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace mt {

class Allocator;
class Tensor;

struct DeviceProperties {
  std::string name;
  size_t total_memory = 0;
  int multi_processor_count = 0;
  int major = 0, minor = 0;
};

class CUDAHooks {
 public:
  bool compiled_with_cuda() const;
  const char* cuda_version() const;  // toolkit compiled against, nullptr without CUDA
  // Never raises and never creates a context: 0 without a driver or GPU.
  int device_count() const;
  bool is_available() const { return device_count() > 0; }
  // Raises RuntimeError (AssertionError when not compiled with CUDA) if CUDA cannot be used.
  void lazy_init() const;
  bool is_initialized() const;
  int current_device() const;
  void set_device(int index) const;
  DeviceProperties properties(int index) const;
  void synchronize(int index) const;

  // Memory (the caching allocator's statistics; see csrc/cuda/CUDACachingAllocator.cpp).
  std::map<std::string, int64_t> memory_stats(int device) const;
  void reset_peak_memory_stats(int device) const;
  void empty_cache() const;
  std::pair<size_t, size_t> mem_get_info(int device) const;  // (free, total) bytes
  Allocator* pinned_allocator() const;
  bool is_pinned(const void* ptr) const;  // false without CUDA or before it is initialized
  void record_stream(const Tensor& t, uintptr_t stream) const;

  // Streams and events as opaque handles (cudaStream_t / cudaEvent_t) for the Python classes.
  uintptr_t current_stream(int device) const;
  void set_current_stream(int device, uintptr_t stream) const;
  uintptr_t stream_from_pool(int device, bool high_priority) const;
  std::pair<int, int> stream_priority_range() const;  // (least, greatest)
  bool stream_query(uintptr_t stream) const;
  void stream_synchronize(uintptr_t stream) const;
  void stream_wait_event(uintptr_t stream, uintptr_t event) const;
  uintptr_t event_create(bool enable_timing, bool blocking) const;
  void event_destroy(uintptr_t event) const;
  void event_record(uintptr_t event, uintptr_t stream) const;
  bool event_query(uintptr_t event) const;
  void event_synchronize(uintptr_t event) const;
  float event_elapsed_time(uintptr_t start, uintptr_t end) const;
};

const CUDAHooks& cuda_hooks();

// The CUDA architectures compiled into this build, as CMake spelled them ("75-real 80-real 90"; "" without
// CUDA), and the check lazy init runs for each GPU: "" when the build has SASS or PTX that a device of
// compute capability major.minor can run, else the reason and how to rebuild.
const char* cuda_arch_list();
std::string cuda_arch_mismatch(int major, int minor, const std::string& arch_list);

}  // namespace mt
