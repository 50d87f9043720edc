// CUDA kernels for the unary table and the parameterized activations; the dtype rules are
// kernels/RuleDispatch.h, shared with the CPU.
#include "kernels/RuleDispatch.h"
#include "kernels/cuda/Complex.h"
#include "kernels/cuda/Loops.cuh"
#include "kernels/functors.h"
#include "ops/kernels.h"

namespace mt {
namespace {

template <OpRule R, typename F>
void run_unary(const TensorIter& it, F f) {
  dispatch_unary_rule<R>(it, "unary_cuda", [&](auto out, auto in) {
    gpu_kernel<typename decltype(out)::type, typename decltype(in)::type>(it, f);
  });
}

void unary_cuda(const TensorIter& it, UnaryOp op) {
  if (is_complex(it.dtypes[1])) return complex_unary_cuda(it, op);
  switch (op) {
#define MT_CASE(name, F, kind)            \
  case UnaryOp::name:                     \
    run_unary<OpRule::kind>(it, fn::F{}); \
    break;
    MT_UNARY_OPS(MT_CASE)
#undef MT_CASE
  }
}

void param_unary_cuda(const TensorIter& it, ParamUnaryOp op, double p0, double p1, double p2) {
  MT_DISPATCH_FLOATING_TYPES(it.dtypes[0], "activation_cuda", [&] {
    if (op == ParamUnaryOp::softplus)
      gpu_kernel<scalar_t, scalar_t>(it, fn::Softplus{p0, p1});
    else if (op == ParamUnaryOp::polygamma)
      gpu_kernel<scalar_t, scalar_t>(it, fn::Polygamma{static_cast<int64_t>(p0)});
    else if (op == ParamUnaryOp::hardshrink)
      gpu_kernel<scalar_t, scalar_t>(it, fn::Hardshrink{p0});
    else if (op == ParamUnaryOp::softshrink)
      gpu_kernel<scalar_t, scalar_t>(it, fn::Softshrink{p0});
    else if (op == ParamUnaryOp::clamp)
      gpu_kernel<scalar_t, scalar_t>(it, fn::ClampScalar{p0, p1});
    else if (op == ParamUnaryOp::threshold)
      gpu_kernel<scalar_t, scalar_t>(it, fn::Threshold{p0, p1});
    else if (op == ParamUnaryOp::elu)
      gpu_kernel<scalar_t, scalar_t>(it, fn::Elu{p0, p1, p2});
    else if (op == ParamUnaryOp::nan_to_num)
      gpu_kernel<scalar_t, scalar_t>(it, fn::NanToNum{p0, p1, p2});
    else if (op == ParamUnaryOp::log_sigmoid)
      gpu_kernel<scalar_t, scalar_t>(it, fn::LogSigmoid{});
    else if (op == ParamUnaryOp::leaky_relu)
      gpu_kernel<scalar_t, scalar_t>(it, fn::LeakyRelu{p0});
    else if (op == ParamUnaryOp::round_decimals)
      gpu_kernel<scalar_t, scalar_t>(it, fn::RoundDecimals{p0, p1 != 0.0});
    else if (op == ParamUnaryOp::logit)
      gpu_kernel<scalar_t, scalar_t>(it, fn::Logit{p0});
    else  // the activation gradients (gelu_backward, ...) have CPU kernels only: CUDA composes their formulas
      MT_ERROR("param_unary_cuda: no CUDA kernel for ParamUnaryOp ", static_cast<int>(op));
  });
}

}  // namespace

MT_REGISTER_KERNEL(unary_stub, CUDA, &unary_cuda);
MT_REGISTER_KERNEL(param_unary_stub, CUDA, &param_unary_cuda);

}  // namespace mt
