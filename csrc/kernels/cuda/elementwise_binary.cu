// CUDA kernels for the binary table, with the CPU file's dtype rules (kernels/cpu/elementwise.cpp).
#include "kernels/cuda/Loops.cuh"
#include "kernels/functors.h"
#include "ops/kernels.h"

namespace mt {
namespace {

template <OpRule R, typename F>
void run_binary(const TensorIter& it, F f) {
  if constexpr (R == OpRule::Div) {
    MT_DISPATCH_FLOATING_TYPES(it.dtypes[0], "binary_cuda",
                               [&] { gpu_kernel<scalar_t, scalar_t, scalar_t>(it, f); });
  } else if constexpr (R == OpRule::Compare || R == OpRule::Logical) {
    MT_DISPATCH_ALL_TYPES(it.dtypes[1], "binary_cuda", [&] { gpu_kernel<bool, scalar_t, scalar_t>(it, f); });
  } else if constexpr (R == OpRule::Bitwise) {
    // the front end rejects floating dtypes; not instantiating them keeps the build smaller
    switch (it.dtypes[0]) {
      MT_DISPATCH_INTEGRAL_CASES([&] { gpu_kernel<scalar_t, scalar_t, scalar_t>(it, f); })
      MT_DISPATCH_CASE(Bool, bool, [&] { gpu_kernel<scalar_t, scalar_t, scalar_t>(it, f); })
      MT_DISPATCH_FAIL(it.dtypes[0], "binary_cuda")
    }
  } else {
    MT_DISPATCH_ALL_TYPES(it.dtypes[0], "binary_cuda",
                          [&] { gpu_kernel<scalar_t, scalar_t, scalar_t>(it, f); });
  }
}

void binary_kernel(const TensorIter& it, BinaryOp op) {
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

MT_REGISTER_KERNEL(binary_stub, CUDA, &binary_kernel);

}  // namespace mt
