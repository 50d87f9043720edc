// CPU kernels for softmax/log_softmax along a dim (layout: see ops/reduce.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "kernels/ReduceRules.h"
#include "kernels/cpu/ReduceUtils.h"
#include "kernels/cpu/VecExp.h"
#include "kernels/cpu/VecUnary.h"
#include "ops/reduce.h"

namespace mt {
namespace {

using namespace cpu_reduce;

// One row of softmax / log_softmax. Subtracting the max keeps exp() from overflowing; an all -inf row gives
// NaN, as in PyTorch.
template <typename T>
void softmax_row(const T* p, T* q, int64_t row, bool log) {
  using op_t = opmath_t<T>;
  if constexpr (std::is_same_v<T, float>) {
    // the vector table (AVX2/AVX-512) when the CPU has one: the whole row in its instruction set
    if (const vec::Table* t = vec::unary_table(); t && t->softmax_f32) return t->softmax_f32(p, q, row, log);
  } else if constexpr (std::is_same_v<T, double>) {
    if (const vec::Table* t = vec::unary_table(); t && t->softmax_f64) return t->softmax_f64(p, q, row, log);
  }
  op_t m = extremum(p, row, true, Identity{});
  op_t s = 0;
  if constexpr (std::is_same_v<T, op_t>) {
    // float/double: keep exp(x - max) in the output, so each element costs one exp
    if constexpr (std::is_same_v<T, float>)
      s = exp_shift_sum(p, q, row, m);
    else
      for (int64_t k = 0; k < row; ++k) s += (q[k] = std::exp(p[k] - m));
    if (log) {
      op_t ls = std::log(s);
      for (int64_t k = 0; k < row; ++k) q[k] = p[k] - m - ls;
    } else {
      op_t inv = op_t(1) / s;
      for (int64_t k = 0; k < row; ++k) q[k] *= inv;
    }
  } else {
    for (int64_t k = 0; k < row; ++k) s += std::exp(static_cast<op_t>(p[k]) - m);
    if (log) {
      op_t ls = std::log(s);
      for (int64_t k = 0; k < row; ++k) q[k] = static_cast<T>(static_cast<op_t>(p[k]) - m - ls);
    } else {
      op_t inv = op_t(1) / s;
      for (int64_t k = 0; k < row; ++k) q[k] = static_cast<T>(std::exp(static_cast<op_t>(p[k]) - m) * inv);
    }
  }
}

// softmax along a middle dim: per strip of columns, the max, the sum of exps, then the outputs, row by row.
template <typename T>
void softmax_columns(const T* p, T* q, int64_t row, int64_t inner, int64_t w, bool log) {
  using op_t = opmath_t<T>;
  op_t m[kColumns], s[kColumns];
  for (int64_t j = 0; j < w; ++j) {
    m[j] = static_cast<op_t>(p[j]);
    s[j] = 0;
  }
  for (int64_t r = 1; r < row; ++r)
    for (int64_t j = 0; j < w; ++j) {
      m[j] = reduce_rules::accumulate_extremum(m[j], static_cast<op_t>(p[r * inner + j]), true);
    }
  if constexpr (std::is_same_v<T, op_t>) {
    // float/double: keep exp(x - max) in the output, so each element costs one exp
    for (int64_t r = 0; r < row; ++r)
      for (int64_t j = 0; j < w; ++j) s[j] += (q[r * inner + j] = std::exp(p[r * inner + j] - m[j]));
    for (int64_t j = 0; j < w; ++j) s[j] = log ? std::log(s[j]) : op_t(1) / s[j];
    for (int64_t r = 0; r < row; ++r)
      for (int64_t j = 0; j < w; ++j)
        q[r * inner + j] = log ? p[r * inner + j] - m[j] - s[j] : q[r * inner + j] * s[j];
  } else {
    for (int64_t r = 0; r < row; ++r)
      for (int64_t j = 0; j < w; ++j) s[j] += std::exp(static_cast<op_t>(p[r * inner + j]) - m[j]);
    for (int64_t j = 0; j < w; ++j) s[j] = log ? std::log(s[j]) : op_t(1) / s[j];
    for (int64_t r = 0; r < row; ++r)
      for (int64_t j = 0; j < w; ++j) {
        op_t x = static_cast<op_t>(p[r * inner + j]) - m[j];
        q[r * inner + j] = static_cast<T>(log ? x - s[j] : std::exp(x) * s[j]);
      }
  }
}

// softmax along a middle dim through the vector table's column kernel: strips as wide as 128 KiB of input
// (PyTorch's _vec_softmax chunk, so the passes over a strip's packed copy hit the L2), whole cache lines, at
// most the kernel's kSoftmaxColsMax columns.
template <typename T, typename K>
void softmax_strips(const T* base, T* o, int64_t outer, int64_t row, int64_t inner, bool log, K kernel) {
  constexpr int64_t line = 64 / sizeof(T);
  int64_t w = (int64_t(128) << 10) / (row * static_cast<int64_t>(sizeof(T)));
  w = std::min(std::max(w, line) / line * line, vec::kSoftmaxColsMax);
  w = std::min(w, inner);
  const int64_t strips = (inner + w - 1) / w;
  auto body = [&](int64_t b, int64_t e) {
    constexpr int64_t lanes = vec::kSoftmaxColsLanes;
    std::vector<T> scratch(static_cast<size_t>(row * ((w + lanes - 1) / lanes * lanes)));
    for (int64_t t = b; t < e; ++t) {
      const int64_t j0 = (t % strips) * w, off = (t / strips) * row * inner + j0;
      kernel(base + off, o + off, row, inner, std::min(w, inner - j0), log, scratch.data());
    }
  };
  if (outer * row * inner < kGrainSize)
    body(0, outer * strips);
  else
    parallel_for(0, outer * strips, std::max<int64_t>(1, kGrainSize / (row * w)), body);
}

void softmax_cpu(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, bool log) {
  MT_DISPATCH_FLOATING_TYPES(in.dtype(), log ? "log_softmax" : "softmax", [&] {
    const scalar_t* base = in.data<scalar_t>();
    scalar_t* o = out.data<scalar_t>();
    if (inner == 1) {
      for_rows(in.numel() / row, row,
               [&](int64_t i, bool) { softmax_row(base + i * row, o + i * row, row, log); });
      return;
    }
    const int64_t outer = in.numel() / (row * inner);
    if constexpr (std::is_same_v<scalar_t, float>) {
      if (const vec::Table* t = vec::unary_table(); t && t->softmax_cols_f32)
        return softmax_strips(base, o, outer, row, inner, log, t->softmax_cols_f32);
    } else if constexpr (std::is_same_v<scalar_t, double>) {
      if (const vec::Table* t = vec::unary_table(); t && t->softmax_cols_f64)
        return softmax_strips(base, o, outer, row, inner, log, t->softmax_cols_f64);
    }
    for_strips(outer, row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
      int64_t off = oi * row * inner + j0;
      softmax_columns(base + off, o + off, row, inner, w, log);
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(softmax_stub, CPU, &softmax_cpu);

}  // namespace mt
