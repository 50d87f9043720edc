// Maps a linear element index to byte offsets of each TensorIter operand, by value in kernel arguments.
#pragma once
#include <cstdint>

#include "core/TensorIterator.h"

namespace mt {

template <int NARGS>
struct OffsetCalculator {
  static constexpr int kMaxDims = 8;
  int ndim;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims][NARGS];

  explicit OffsetCalculator(const TensorIter& it) : ndim(static_cast<int>(it.ndim())) {
    for (int d = 0; d < ndim; ++d) {
      sizes[d] = it.shape[d];
      for (int k = 0; k < NARGS; ++k) strides[d][k] = it.strides[k][d];
    }
  }

  struct Offsets {
    int64_t v[NARGS];
    __host__ __device__ int64_t operator[](int k) const { return v[k]; }
  };

  __host__ __device__ Offsets get(int64_t linear) const {
    Offsets o;
    for (int k = 0; k < NARGS; ++k) o.v[k] = 0;
    for (int d = 0; d < ndim; ++d) {
      int64_t i = linear % sizes[d];
      linear /= sizes[d];
      for (int k = 0; k < NARGS; ++k) o.v[k] += i * strides[d][k];
    }
    return o;
  }
};

}  // namespace mt
