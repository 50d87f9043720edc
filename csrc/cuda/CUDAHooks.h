// The CUDA runtime as the rest of the core sees it: lazy, fork-aware, and present (erroring clearly) even in
// builds without CUDA, so no file outside csrc/cuda/ and csrc/kernels/cuda/ needs an #ifdef.
#pragma once
#include <string>

namespace mt {

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
};

const CUDAHooks& cuda_hooks();

}  // namespace mt
