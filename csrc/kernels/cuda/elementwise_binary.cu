// CUDA kernels for the binary table; the dtype rules are kernels/RuleDispatch.h, shared with the CPU.
#include "kernels/RuleDispatch.h"
#include "kernels/cuda/Complex.h"
#include "kernels/cuda/Loops.cuh"
#include "kernels/functors.h"
#include "ops/kernels.h"

namespace mt {
namespace {

template <OpRule R, typename F>
void run_binary(const TensorIter& it, F f) {
  dispatch_binary_rule<R>(it, "binary_cuda", [&](auto out, auto in) {
    using in_t = typename decltype(in)::type;
    gpu_kernel<typename decltype(out)::type, in_t, in_t>(it, f);
  });
}

void binary_cuda(const TensorIter& it, BinaryOp op) {
  if (is_complex(it.dtypes[1])) return complex_binary_cuda(it, op);
  switch (op) {
#define MT_CASE(name, F, kind)             \
  case BinaryOp::name:                     \
    run_binary<OpRule::kind>(it, fn::F{}); \
    break;
    MT_BINARY_OPS(MT_CASE)
#undef MT_CASE
  }
}

}  // namespace

MT_REGISTER_KERNEL(binary_stub, CUDA, &binary_cuda);

}  // namespace mt
