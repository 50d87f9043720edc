// The out-of-place scatter forms (PyTorch's at::scatter, at::scatter_add): a clone of self written by the
// in-place op, and the `value=` overload's number as a src. Apart from ops/index.h, which every kernel
// includes, so that these binding-facing spellings recompile only index.cpp and the bindings.
#pragma once
#include <string>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace mt {

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce = "");
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// scatter(..., value): the number in self's dtype and device, expanded to index's shape (a view), so that
// each indexed position receives it (a 0-dim src tensor is one element instead)
Tensor scatter_value_src(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                         const std::string& reduce);

}  // namespace mt
