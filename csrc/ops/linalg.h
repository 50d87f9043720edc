// Linear algebra: matmul family through BLAS (OpenBLAS on CPU, cuBLAS on CUDA) and einsum over it.
#pragma once
#include <string>
#include <vector>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace mt {

Tensor matmul(const Tensor& a, const Tensor& b);  // NumPy semantics with batch broadcasting
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
// beta * self + alpha * (m1 @ m2)
Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha);
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

}  // namespace mt
