// Thread-local grad mode (no_grad / enable_grad / inference_mode) and the test every entry point makes (does
// this call record?). In core, as PyTorch keeps GradMode in c10: a flag the ops and the entry points read,
// not part of the autograd graph machinery.
#pragma once

#include <optional>

#include "core/InferenceMode.h"
#include "core/Tensor.h"

namespace mt {

// Thread-local as in PyTorch: a no_grad block in one thread does not affect another.
inline thread_local bool tls_grad_enabled = true;

struct GradMode {
  static bool is_enabled() { return tls_grad_enabled; }
  static void set_enabled(bool v) { tls_grad_enabled = v; }
};

// RAII: sets grad mode for a scope and restores the previous value.
struct AutoGradMode {
  explicit AutoGradMode(bool enabled) : prev_(tls_grad_enabled) { tls_grad_enabled = enabled; }
  ~AutoGradMode() { tls_grad_enabled = prev_; }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

// True only when grad mode is on and some input requires grad: the common path pays one flag test and a
// pointer load per input, and allocates nothing.
inline bool needs_grad(const Tensor& a) {
  return GradMode::is_enabled() && a.defined() && a.requires_grad();
}
inline bool needs_grad(const std::optional<Tensor>& a) {
  return a && needs_grad(*a);
}
template <typename A, typename B, typename... T>
inline bool needs_grad(const A& a, const B& b, const T&... rest) {
  return needs_grad(a) || needs_grad(b, rest...);
}

}  // namespace mt

// autograd's spelling, kept for the graph code and the bindings
namespace mt::autograd {
using ::mt::AutoGradMode;
using ::mt::GradMode;
using ::mt::NoGradGuard;
using ::mt::tls_grad_enabled;
using ::mt::tls_inference_mode;
}  // namespace mt::autograd
