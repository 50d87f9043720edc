// Per-tensor autograd state. The graph (grad_fn, hooks) arrives with the autograd engine; today: the flags
// and .grad.
#pragma once
#include "core/Tensor.h"

namespace mt {

struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;  // accumulated gradient of a leaf; undefined until the first backward
};

}  // namespace mt
