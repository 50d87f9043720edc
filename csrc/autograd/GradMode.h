// Thread-local grad mode (no_grad / enable_grad / inference_mode), read by every op front end.
#pragma once

#include "core/InferenceMode.h"

namespace mt::autograd {

// Thread-local as in PyTorch: a no_grad block in one thread does not affect another.
inline thread_local bool tls_grad_enabled = true;
using ::mt::tls_inference_mode;  // the flag itself is in core (Storage reads it)

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

}  // namespace mt::autograd
