// TensorIter: the shape/stride walk shared by every elementwise kernel (CPU loop and CUDA launcher alike).
// Operand 0 is the output; inputs are broadcast to its shape (stride 0), then dimensions that are
// contiguous for every operand are merged, so most loops become one flat 1-D loop.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

#include "core/Parallel.h"
#include "core/Tensor.h"

namespace mt {

// Shape that a and b broadcast to; RuntimeError in PyTorch's words when they do not.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);
// Strides (in elements) of `t` viewed with the broadcast shape `shape` (0 where broadcast).
DimVector broadcast_strides(const Tensor& t, IntArrayRef shape);

struct TensorIter {
  static constexpr int kMaxOperands = 4;
  int ntensors = 0;
  DimVector shape;                              // merged shape, innermost dim first
  std::array<DimVector, kMaxOperands> strides;  // bytes, same order as shape
  std::array<char*, kMaxOperands> data{};
  std::array<ScalarType, kMaxOperands> dtypes{};
  // Operand k is a one-element CPU tensor in a CUDA op (a Python number or 0-dim CPU tensor, as PyTorch
  // allows): its data pointer is host memory, so the CUDA launcher passes the value by kernel argument.
  std::array<bool, kMaxOperands> host_scalar{};
  int64_t numel = 0;
  Device device;

  // operands[0] is the output and has the full shape; every input must broadcast to it.
  static TensorIter make(std::initializer_list<Tensor> operands);

  int64_t ndim() const { return static_cast<int64_t>(shape.size()); }
  // Every operand is dense along the single merged dimension.
  bool is_contiguous() const;

  // Runs loop(data, strides, n) over 1-D runs of the innermost dimension, in parallel above `grain` elements
  // (for_each_rows' blocks, one call per row).
  template <typename Loop>
  void for_each(const Loop& loop, int64_t grain = kGrainSize) const {
    const int nt = ntensors;
    for_each_rows(
        [&](char** data, const int64_t* st, int64_t n, int64_t rows, const int64_t* rs) {
          if (rows == 1) return loop(data, st, n);
          std::array<char*, kMaxOperands> ptrs{};
          for (int64_t r = 0; r < rows; ++r) {
            for (int k = 0; k < nt; ++k) ptrs[k] = data[k] + r * rs[k];
            loop(ptrs.data(), st, n);
          }
        },
        grain);
  }

  // Runs loop(data, strides, n, rows, row_strides) over blocks of `rows` runs of the innermost dimension
  // (each `n` long, run r starting at data[k] + r * row_strides[k]): whole rows of the second dimension go in
  // one call, so a kernel can keep its row loop inside its vector code. A [3872, 16] * [3872, 1] product was
  // 3872 calls of 16 elements, each paying the call, the dispatch and the offsets (5x PyTorch's time).
  template <typename Loop>
  void for_each_rows(const Loop& loop, int64_t grain = kGrainSize) const {
    if (numel == 0) return;
    if (numel < grain) {
      serial_for_rows(loop, 0, numel);
      return;
    }
    parallel_for(0, numel, grain, [&](int64_t b, int64_t e) { serial_for_rows(loop, b, e); });
  }

  template <typename Loop>
  void serial_for_rows(const Loop& loop, int64_t begin, int64_t end) const {
    const int nt = ntensors;
    std::array<int64_t, kMaxOperands> inner{}, outer{};
    for (int k = 0; k < nt; ++k) inner[k] = shape.empty() ? 0 : strides[k][0];
    std::array<char*, kMaxOperands> ptrs{};
    if (shape.size() <= 1) {
      for (int k = 0; k < nt; ++k) ptrs[k] = data[k] + begin * inner[k];
      loop(ptrs.data(), inner.data(), end - begin, int64_t(1), outer.data());
      return;
    }
    for (int k = 0; k < nt; ++k) outer[k] = strides[k][1];
    DimVector idx(shape.size(), 0);
    int64_t rem = begin;
    for (size_t d = 0; d < shape.size(); ++d) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
    }
    int64_t pos = begin;
    while (pos < end) {
      for (int k = 0; k < nt; ++k) {
        int64_t off = 0;
        for (size_t d = 0; d < shape.size(); ++d) off += idx[d] * strides[k][d];
        ptrs[k] = data[k] + off;
      }
      if (idx[0] != 0 || end - pos < shape[0]) {  // a partial run: the chunk starts or ends inside a row
        int64_t n = std::min(shape[0] - idx[0], end - pos);
        loop(ptrs.data(), inner.data(), n, int64_t(1), outer.data());
        pos += n;
        idx[0] += n;
        if (idx[0] < shape[0]) continue;
        idx[0] = 0;
        ++idx[1];
      } else {
        int64_t rows = std::min(shape[1] - idx[1], (end - pos) / shape[0]);
        loop(ptrs.data(), inner.data(), shape[0], rows, outer.data());
        pos += rows * shape[0];
        idx[1] += rows;
      }
      for (size_t d = 1; d + 1 < shape.size() && idx[d] >= shape[d]; ++d) {
        idx[d] = 0;
        ++idx[d + 1];
      }
    }
  }
};

}  // namespace mt
