// The inference-mode flag lives in core because Storage stamps it on every allocation; autograd owns its API.
#pragma once

namespace mt {

// Thread-local as in PyTorch. Set through autograd's inference_mode guard (re-exported in
// core/GradMode.h).
inline thread_local bool tls_inference_mode = false;

}  // namespace mt
