// The binding layer's helpers the `module: nn` rows of csrc/ops/ops.schema name (minitorch._C._nn, the
// kernels behind nn.functional): the losses' size warning, linear's release rule.
#pragma once
#include "python/bind.h"

namespace mt {

// PyTorch's UserWarning when a loss's input and target broadcast to another shape (stacklevel 2, as
// F.mse_loss's own warnings.warn, so it names the caller's line): run under the GIL before the call
// (`before:`)
void warn_size_mismatch(const Tensor& input, const Tensor& target);

// linear is a GEMM: released by its multiply-add count (input's elements times out_features), as the matmul
// rows' big_product
inline bool big_linear(const Tensor& input, const Tensor& weight) {
  return !input.device().is_cpu() || input.numel() * (weight.dim() ? weight.size(0) : 1) >= kNoGilMinNumel;
}

}  // namespace mt
