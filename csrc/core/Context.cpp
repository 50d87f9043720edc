// The process-wide backend settings declared in core/Context.h.
#include "core/Context.h"

#include <atomic>
#include <iostream>

#include "core/Exception.h"

namespace mt {

namespace {
std::atomic<uint32_t> g_cudnn_flags{0b1001};  // enabled | allow_tf32, PyTorch's defaults
std::atomic<int> g_float32_matmul_precision{static_cast<int>(Float32MatmulPrecision::highest)};
}  // namespace

CudnnFlags cudnn_flags() {
  uint32_t v = g_cudnn_flags.load(std::memory_order_relaxed);
  return {bool(v & 1), bool(v & 2), bool(v & 4), bool(v & 8)};
}
void set_cudnn_flags(const CudnnFlags& f) {
  g_cudnn_flags.store(uint32_t(f.enabled) | uint32_t(f.benchmark) << 1 | uint32_t(f.deterministic) << 2 |
                          uint32_t(f.allow_tf32) << 3,
                      std::memory_order_relaxed);
}

Float32MatmulPrecision float32_matmul_precision() {
  return static_cast<Float32MatmulPrecision>(g_float32_matmul_precision.load(std::memory_order_relaxed));
}
void set_float32_matmul_precision(Float32MatmulPrecision p) {
  g_float32_matmul_precision.store(static_cast<int>(p), std::memory_order_relaxed);
}

void warn(const std::string& msg) {
  if (WarningHandler h = warning_handler())
    h(msg);
  else
    std::cerr << "UserWarning: " << msg << "\n";
}

}  // namespace mt
