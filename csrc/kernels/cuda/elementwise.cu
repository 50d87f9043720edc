// CUDA kernels for where/masked_fill, clamp, lerp and addcmul/addcdiv: the functors are shared with the CPU
// (kernels/functors.h). The unary and binary tables live in elementwise_unary.cu / elementwise_binary.cu so
// nvcc builds them in parallel.
#include "kernels/cuda/Complex.h"
#include "kernels/cuda/Loops.cuh"
#include "kernels/functors.h"
#include "ops/kernels.h"

namespace mt {
namespace {

void where_cuda(const TensorIter& it) {
  if (is_complex(it.dtypes[0])) return complex_where_cuda(it);
  MT_DISPATCH_ALL_TYPES(it.dtypes[0], "where_cuda",
                        [&] { gpu_kernel<scalar_t, bool, scalar_t, scalar_t>(it, fn::Where{}); });
}

void clamp_cuda(const TensorIter& it, bool has_min, bool has_max) {
  MT_DISPATCH_NUMERIC_TYPES(it.dtypes[0], "clamp_cuda", [&] {
    gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t>(it, fn::Clamp{has_min, has_max});
  });
}

// Real dtypes only: complex lerp has no CUDA kernel yet (where, fill, copy and the tables:
// kernels/cuda/complex.cu).
void lerp_cuda(const TensorIter& it, const Scalar* weight) {
  MT_DISPATCH_FLOATING_TYPES(it.dtypes[0], "lerp_cuda", [&] {
    using op_t = opmath_t<scalar_t>;
    if (weight)
      gpu_kernel<scalar_t, scalar_t, scalar_t>(it,
                                               fn::LerpScalar<op_t>{static_cast<op_t>(weight->to_double())});
    else
      gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t>(it, fn::Lerp{});
  });
}

void addc_cuda(const TensorIter& it, double value, bool div) {
  MT_DISPATCH_FLOATING_TYPES(it.dtypes[0], "addcmul_cuda", [&] {
    using op_t = opmath_t<scalar_t>;
    if (div)
      gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t>(it, fn::Addcdiv<op_t>{static_cast<op_t>(value)});
    else
      gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t>(it, fn::Addcmul<op_t>{static_cast<op_t>(value)});
  });
}

}  // namespace

MT_REGISTER_KERNEL(where_stub, CUDA, &where_cuda);
MT_REGISTER_KERNEL(addc_stub, CUDA, &addc_cuda);
MT_REGISTER_KERNEL(lerp_stub, CUDA, &lerp_cuda);
MT_REGISTER_KERNEL(clamp_stub, CUDA, &clamp_cuda);

}  // namespace mt
