// Linear algebra: matmul family through BLAS (OpenBLAS on CPU, cuBLAS on CUDA) and einsum over it.
#pragma once
#include <string>
#include <vector>

#include "core/Scalar.h"
#include "core/Tensor.h"
#include "ops/Dispatch.h"

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

// The one GEMM kernel every op above ends in: c[i] = alpha * a[i] @ b[i] + beta * c[i] for each batch i.
// a [batch, m, k], b [batch, k, n], c [batch, m, n], one dtype, one device, any strides (the kernel picks
// transposes from them and copies only when BLAS cannot read a layout); m, n, k > 0. beta == 0 never reads c.
using GemmKernelFn = void (*)(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& alpha,
                              const Scalar& beta);
MT_DECLARE_STUB(gemm_stub, GemmKernelFn);

// torch.set_float32_matmul_precision: "high" and "medium" let float32 GEMMs on CUDA use TF32 tensor cores
// (backends.cuda.matmul.allow_tf32 reads and writes the same setting, as in PyTorch). One process-wide value.
enum class Float32MatmulPrecision : int { highest, high, medium };
Float32MatmulPrecision float32_matmul_precision();
void set_float32_matmul_precision(Float32MatmulPrecision p);
inline bool matmul_allow_tf32() {
  return float32_matmul_precision() != Float32MatmulPrecision::highest;
}

}  // namespace mt
