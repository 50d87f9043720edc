// Reductions over dims (int or tuple, keepdim), softmax family and scans.
#pragma once
#include <optional>
#include <tuple>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace mt {

// dims empty = all dims. dtype Undefined = PyTorch's default (sum/prod of integers and bool -> int64).
Tensor sum(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype = ScalarType::Undefined);
Tensor mean(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype = ScalarType::Undefined);
Tensor prod(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype = ScalarType::Undefined);
Tensor amax(const Tensor& self, IntArrayRef dims, bool keepdim);
Tensor amin(const Tensor& self, IntArrayRef dims, bool keepdim);
Tensor all(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
Tensor any(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
// correction: 1 = unbiased (Bessel), 0 = population
Tensor var(const Tensor& self, IntArrayRef dims, double correction, bool keepdim);
Tensor std(const Tensor& self, IntArrayRef dims, double correction, bool keepdim);
Tensor norm(const Tensor& self, double p, IntArrayRef dims, bool keepdim);
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim);
// Whole-tensor max/min (no dim): a 0-dim tensor; errors on empty input as PyTorch.
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
// max/min along one dim: (values, indices)
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim);
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor cumsum(const Tensor& self, int64_t dim, ScalarType dtype = ScalarType::Undefined);
Tensor cumprod(const Tensor& self, int64_t dim, ScalarType dtype = ScalarType::Undefined);
Tensor softmax(const Tensor& self, int64_t dim, ScalarType dtype = ScalarType::Undefined);
Tensor log_softmax(const Tensor& self, int64_t dim, ScalarType dtype = ScalarType::Undefined);

}  // namespace mt
