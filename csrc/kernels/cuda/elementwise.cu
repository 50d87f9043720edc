// CUDA kernels for where/masked_fill and clamp, with the CPU file's dtype rules
// (kernels/cpu/elementwise.cpp). The unary and binary tables live in elementwise_unary.cu /
// elementwise_binary.cu so nvcc builds them in parallel.
#include "kernels/cuda/Loops.cuh"
#include "ops/kernels.h"

namespace mt {
namespace {

struct WhereOp {
  template <typename T>
  __device__ __forceinline__ T operator()(bool c, T a, T b) const {
    return c ? a : b;
  }
};

struct ClampOp {
  bool has_min, has_max;
  template <typename T>
  __device__ __forceinline__ T operator()(T v, T lo, T hi) const {
    if (v != v) return v;  // NaN stays NaN, and so do NaN bounds (PyTorch propagates both)
    if (has_min && (lo != lo || v < lo)) v = lo;
    if (has_max && (hi != hi || v > hi)) v = hi;  // min > max gives max, as in PyTorch
    return v;
  }
};

void where_kernel(const TensorIter& it) {
  MT_DISPATCH_ALL_TYPES(it.dtypes[0], "where_cuda",
                        [&] { gpu_kernel<scalar_t, bool, scalar_t, scalar_t>(it, WhereOp{}); });
}

void clamp_kernel(const TensorIter& it, bool has_min, bool has_max) {
  MT_DISPATCH_NUMERIC_TYPES(it.dtypes[0], "clamp_cuda", [&] {
    gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t>(it, ClampOp{has_min, has_max});
  });
}

}  // namespace

MT_REGISTER_KERNEL(where_stub, CUDA, &where_kernel);
MT_REGISTER_KERNEL(clamp_stub, CUDA, &clamp_kernel);

}  // namespace mt
