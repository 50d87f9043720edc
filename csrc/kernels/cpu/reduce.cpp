// CPU kernels for reductions and arg-reductions (layout: see ops/reduce.h).
#include "ops/reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "core/WrapMath.h"
#include "kernels/ReduceRules.h"
#include "kernels/cpu/ParallelRows.h"
#include "kernels/cpu/ReduceUtils.h"
#include "kernels/cpu/VecUnary.h"
#ifdef MT_LOOPS_AVX2
#include <immintrin.h>
#endif

namespace mt {
namespace {

using namespace cpu_reduce;

// Rows up to this length take the vector path below: it sums exp(x - max) in a few float lanes (float32)
// where the scalar path sums in double, and PyTorch's cascade sum keeps long rows accurate; short rows lose
// nothing.
constexpr int64_t kVecLogsumexpRow = 1 << 14;

// logsumexp of one contiguous row through the vector table's exp (nullptr on the scalar path, whose results
// stay the scalar loop's): false when the table has no kernel for T. The special values are the scalar
// path's: a NaN anywhere gives NaN, else an infinite max is the answer.
template <typename T>
bool logsumexp_row_vec(const T* p, int64_t n, double* r) {
  const vec::Table* vt = vec::unary_table();
  if (!vt) return false;
  if constexpr (std::is_same_v<T, float>) {
    if (!vt->max_sum_exp_f32) return false;
    float m;
    const float s = vt->max_sum_exp_f32(p, n, &m);
    // the table's max ignores NaN (its lanes compare with >): a NaN shows in the sum of exps, except beside
    // +inf
    auto has_nan = [&] {
      for (int64_t k = 0; k < n; ++k)
        if (p[k] != p[k]) return true;
      return false;
    };
    if (std::isinf(m) || m != m)
      *r = has_nan() ? std::numeric_limits<double>::quiet_NaN() : m;
    else
      *r = static_cast<double>(m + std::log(s));
    return true;
  } else if constexpr (std::is_same_v<T, double>) {
    const vec::LoopD exp_loop = vt->f64[static_cast<int>(vec::Fn::exp)];
    if (!exp_loop) return false;
    // ReduceUtils' max propagates NaN itself
    const double m = extremum(p, n, /*is_max=*/true, Identity{});
    if (std::isinf(m) || m != m) {
      *r = m;
      return true;
    }
    constexpr int64_t kExpBlock = 256;
    double buf[kExpBlock];
    double s = 0;
    for (int64_t k0 = 0; k0 < n; k0 += kExpBlock) {
      const int64_t len = std::min(kExpBlock, n - k0);
      for (int64_t i = 0; i < len; ++i) buf[i] = p[k0 + i] - m;
      exp_loop(buf, buf, len);
      s += blocked_sum(buf, len, Identity{});
    }
    *r = m + std::log(s);
    return true;
  } else {
    (void)p, (void)n, (void)r;
    return false;
  }
}

enum class ShortRowKind { sum, mean, nansum, norm1, norm2 };

// Rows [b, e) of `row` <= kBlock values each: the generic path's bits (its total starts at +0; the 1- and
// 2-norms sum their mapped buffer as blocked_sum_in does, nansum masks NaN in the vectors as it does), in the
// baseline's 16-byte vectors or AVX2's 32.
template <typename T, int kBytes>
__attribute__((always_inline)) inline void short_rows_impl(const T* base, T* o, int64_t b, int64_t e,
                                                           int64_t row, ShortRowKind kind) {
  T buf[kBlock];
  for (int64_t i = b; i < e; ++i) {
    const T* p = base + i * row;
    if (kind == ShortRowKind::norm1 || kind == ShortRowKind::norm2) {
      if (kind == ShortRowKind::norm2)
        for (int64_t k = 0; k < row; ++k) buf[k] = p[k] * p[k];
      else
        for (int64_t k = 0; k < row; ++k) buf[k] = std::abs(p[k]);
      const double t = 0.0 + block_sum_vec<T, kBytes>(buf, row);
      o[i] = static_cast<T>(kind == ShortRowKind::norm2 ? std::sqrt(t) : t);
      continue;
    }
    if (kind == ShortRowKind::nansum) {
      o[i] = static_cast<T>(0.0 + block_sum_vec<T, kBytes, NanToZero>(p, row));
      continue;
    }
    const double t = 0.0 + block_sum_vec<T, kBytes>(p, row);
    o[i] = static_cast<T>(kind == ShortRowKind::mean ? t / static_cast<double>(row) : t);
  }
}
#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) void short_rows_avx2(const T* base, T* o, int64_t b, int64_t e, int64_t row,
                                                     ShortRowKind kind) {
  short_rows_impl<T, 32>(base, o, b, e, row, kind);
}
#endif
template <typename T>
void short_rows(const T* base, T* o, int64_t b, int64_t e, int64_t row, ShortRowKind kind) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return short_rows_avx2<T>(base, o, b, e, row, kind);
#endif
  short_rows_impl<T, 16>(base, o, b, e, row, kind);
}

#ifdef MT_LOOPS_AVX2
// Products of rows up to kBlock long in one AVX2 loop over the rows: product()'s arithmetic inline (so its
// bits), without the generic path's per-row lambda, switch, splitting check and capability test (prod along
// the rows of [512, 512] float32 at 0.75-0.8 of PyTorch's speed).
template <typename T>
__attribute__((target("avx2"))) void product_rows_avx2(const T* base, T* o, int64_t b, int64_t e,
                                                       int64_t row) {
  for (int64_t i = b; i < e; ++i) {
    if constexpr (std::is_same_v<T, float>)
      o[i] = static_cast<T>(product_f32_avx2(base + i * row, row));
    else
      o[i] = static_cast<T>(product_impl(base + i * row, row));
  }
}
// Extrema of rows up to kBlock long the same way: simd_extremum's AVX2 loop inline (its bits), without the
// per-row lambda, switch and capability test (amax along the rows of [256, 256] float32 at 0.91-0.95 of
// PyTorch's speed).
template <typename T>
__attribute__((target("avx2"))) void extremum_rows_avx2(const T* base, T* o, int64_t b, int64_t e,
                                                        int64_t row, bool is_max) {
  for (int64_t i = b; i < e; ++i) o[i] = simd_extremum_impl<T, 32>(base + i * row, row, is_max);
}
#endif

// The wrapping sum (mod 2^64) of n int64 values in four vectors of kBytes (16: the baseline, 32: AVX2): the
// plain loop's add chain was not vectorized (sum of 1M int64 at 0.3 of PyTorch's speed). Integer addition
// wraps the same in any order, so the result is the loop's.
template <typename U, int kBytes>  // U: uint64_t (a template parameter, as GCC sizes the vector type then)
__attribute__((always_inline)) inline int64_t sum_i64_impl(const int64_t* q, int64_t n) {
  typedef U vec __attribute__((vector_size(kBytes)));
  constexpr int W = kBytes / 8;
  vec a0{}, a1{}, a2{}, a3{};
  int64_t k = 0;
  for (; k + 4 * W <= n; k += 4 * W) {
    vec v0, v1, v2, v3;
    std::memcpy(&v0, q + k, kBytes);
    std::memcpy(&v1, q + k + W, kBytes);
    std::memcpy(&v2, q + k + 2 * W, kBytes);
    std::memcpy(&v3, q + k + 3 * W, kBytes);
    a0 += v0;
    a1 += v1;
    a2 += v2;
    a3 += v3;
  }
  a0 += a1 + a2 + a3;
  U r = 0;
  for (int l = 0; l < W; ++l) r += a0[l];
  for (; k < n; ++k) r += static_cast<U>(q[k]);
  return static_cast<int64_t>(r);
}
#ifdef MT_LOOPS_AVX2
__attribute__((target("avx2"))) int64_t sum_i64_avx2(const int64_t* q, int64_t n) {
  return sum_i64_impl<uint64_t, 32>(q, n);
}
#endif
int64_t sum_i64(const int64_t* q, int64_t n) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return sum_i64_avx2(q, n);
#endif
  return sum_i64_impl<uint64_t, 16>(q, n);
}

template <typename T>
void reduce_floating(const Tensor& out, const Tensor& in, int64_t row, ReduceOp op, double arg) {
  using op_t = opmath_t<T>;
  const T* base = in.data<T>();
  T* o = out.data<T>();
  int64_t nrows = out.numel();
  Identity id;
  auto sum_of = [&](const T* p, bool split, auto f) {
    return reduce_row<T, double>(
        p, row, split, [&](const T* q, int64_t n) { return blocked_sum(q, n, f); },
        [](double a, double b) { return a + b; });
  };
  auto ext_of = [&](const T* p, bool split, bool is_max, auto f) {
    return reduce_row<T, op_t>(
        p, row, split, [&](const T* q, int64_t n) { return extremum(q, n, is_max, f); },
        [&](op_t a, op_t b) { return reduce_rules::combine_extremum(a, b, is_max); });
  };
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    // sums of rows within one block: block_sum_vec inline in a plain loop over the rows, the generic path's
    // bits (its total starts at +0; the 1- and 2-norms sum their mapped buffer as blocked_sum_in does)
    // without its calls and per-row dispatch
    const bool norm12 = op == ReduceOp::norm && (arg == 1 || arg == 2);
    // a loop over rows [b, e), on this thread when the work is small, else split by the grain
    auto over_rows = [&](auto&& rows) {
      if (nrows * row < kGrainSize)
        rows(0, nrows);
      else
        parallel_for(0, nrows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(row, 1)), rows);
    };
#ifdef MT_LOOPS_AVX2
    if (op == ReduceOp::prod && row <= kBlock && loops_use_avx2()) {
      over_rows([&](int64_t b, int64_t e) { product_rows_avx2<T>(base, o, b, e, row); });
      return;
    }
    if ((op == ReduceOp::amax || op == ReduceOp::amin) && row <= kBlock && loops_use_avx2()) {
      const bool is_max = op == ReduceOp::amax;
      over_rows([&](int64_t b, int64_t e) { extremum_rows_avx2<T>(base, o, b, e, row, is_max); });
      return;
    }
#endif
    if ((op == ReduceOp::sum || op == ReduceOp::mean || op == ReduceOp::nansum || norm12) && row <= kBlock) {
      const ShortRowKind kind = norm12 ? (arg == 2 ? ShortRowKind::norm2 : ShortRowKind::norm1)
                                : op == ReduceOp::mean   ? ShortRowKind::mean
                                : op == ReduceOp::nansum ? ShortRowKind::nansum
                                                         : ShortRowKind::sum;
      over_rows([&](int64_t b, int64_t e) { short_rows<T>(base, o, b, e, row, kind); });
      return;
    }
  }
  for_rows(nrows, row, [&](int64_t i, bool split) {
    const T* p = base + i * row;
    double r = 0;
    switch (op) {
      case ReduceOp::sum:
        r = sum_of(p, split, id);
        break;
      case ReduceOp::mean:
        r = sum_of(p, split, id) / static_cast<double>(row);
        break;
      case ReduceOp::nansum:
        r = sum_of(p, split, NanToZero{});
        break;
      case ReduceOp::prod:
        r = reduce_row<T, double>(
            p, row, split, [](const T* q, int64_t n) { return product(q, n); },
            [](double a, double b) { return a * b; });
        break;
      case ReduceOp::amax:
      case ReduceOp::amin:
        o[i] = static_cast<T>(ext_of(p, split, op == ReduceOp::amax, id));
        return;
      case ReduceOp::norm: {
        double pn = arg;
        auto absf = [](T x) { return std::abs(static_cast<op_t>(x)); };
        if (pn == 2) {
          r = std::sqrt(sum_of(p, split, Square{}));
        } else if (pn == 1) {
          r = sum_of(p, split, AbsValue{});
        } else if (std::isinf(pn)) {
          r = static_cast<double>(ext_of(p, split, pn > 0, absf));
        } else if (pn == 0) {
          r = sum_of(p, split, [](T x) { return static_cast<op_t>(static_cast<op_t>(x) != 0 ? 1 : 0); });
        } else {
          op_t pp = static_cast<op_t>(pn);
          r = std::pow(sum_of(p, split, [pp](T x) { return std::pow(std::abs(static_cast<op_t>(x)), pp); }),
                       1.0 / pn);
        }
        break;
      }
      case ReduceOp::var:
      case ReduceOp::std: {
        // two passes: the mean, then squared deviations from it (no cancellation as in E[x^2] - E[x]^2),
        // in double as PyTorch's CPU kernel accumulates float32: squares of 1e30 overflow float, and std of
        // [1e30, -1e30, 3e29] is finite there
        const double mu = sum_of(p, split, id) / static_cast<double>(row);
        double m2 = reduce_row<T, double>(
            p, row, split,
            [&](const T* q, int64_t n) {
              return blocked_sum_in<T, double>(q, n, [mu](T x) {
                const double d = static_cast<double>(static_cast<op_t>(x)) - mu;
                return d * d;
              });
            },
            [](double a, double b) { return a + b; });
        r = reduce_rules::var_from_m2(m2, row, arg);
        if (op == ReduceOp::std) r = std::sqrt(r);
        break;
      }
      case ReduceOp::logsumexp: {
        if (!split && row >= 8 && row <= kVecLogsumexpRow && logsumexp_row_vec(p, row, &r)) break;
        op_t m = ext_of(p, split, true, id);
        if (std::isinf(m) || is_nan(m)) {  // all -inf, any +inf, or NaN: the max is the answer
          r = static_cast<double>(m);
          break;
        }
        r = static_cast<double>(m) +
            std::log(sum_of(p, split, [m](T x) { return std::exp(static_cast<op_t>(x) - m); }));
        break;
      }
      default:
        MT_INTERNAL_ASSERT(false, "unexpected floating reduction");
    }
    o[i] = static_cast<T>(static_cast<op_t>(r));
  });
}

template <typename T>
void reduce_integral(const Tensor& out, const Tensor& in, int64_t row, ReduceOp op) {
  const T* base = in.data<T>();
  T* o = out.data<T>();
  for_rows(out.numel(), row, [&](int64_t i, bool split) {
    const T* p = base + i * row;
    switch (op) {
      case ReduceOp::sum:
        o[i] = static_cast<T>(reduce_row<T, int64_t>(
            p, row, split,
            [](const T* q, int64_t n) {
              if constexpr (std::is_same_v<T, int64_t>) return sum_i64(q, n);
              int64_t a = 0;
              for (int64_t k = 0; k < n; ++k) a = wrap_add(a, static_cast<int64_t>(q[k]));
              return a;
            },
            [](int64_t a, int64_t b) { return wrap_add(a, b); }));
        break;
      case ReduceOp::prod:
        o[i] = static_cast<T>(reduce_row<T, int64_t>(
            p, row, split,
            [](const T* q, int64_t n) {
              // eight independent chains: one chain waited on each multiply's latency (int64 prod of 1M
              // values at 0.73-0.81 of PyTorch's speed); a wrapping product (mod 2^64) is the same in any
              // order
              constexpr int C = 8;
              uint64_t a[C];
              for (int j = 0; j < C; ++j) a[j] = 1;
              int64_t k = 0;
              for (; k + C <= n; k += C)
                for (int j = 0; j < C; ++j) a[j] *= static_cast<uint64_t>(static_cast<int64_t>(q[k + j]));
              for (; k < n; ++k) a[0] *= static_cast<uint64_t>(static_cast<int64_t>(q[k]));
              for (int j = 1; j < C; ++j) a[0] *= a[j];
              return static_cast<int64_t>(a[0]);
            },
            [](int64_t a, int64_t b) { return wrap_mul(a, b); }));
        break;
      case ReduceOp::amax:
      case ReduceOp::amin: {
        bool is_max = op == ReduceOp::amax;
        o[i] = reduce_row<T, T>(
            p, row, split, [is_max](const T* q, int64_t n) { return extremum(q, n, is_max, Identity{}); },
            [is_max](T a, T b) { return is_max ? (b > a ? b : a) : (b < a ? b : a); });
        break;
      }
      default:
        MT_CHECK(false, "\"", op == ReduceOp::mean ? "mean" : "reduce", "_cpu\" not implemented for '",
                 dtype_short_name(in.dtype()), "'");
    }
  });
}

// all/any read any dtype and write bool or uint8.
template <typename T>
void reduce_logical(const Tensor& out, const Tensor& in, int64_t row, bool is_all) {
  const T* base = in.data<T>();
  char* o = static_cast<char*>(out.data_ptr());  // bool and uint8 are both one byte holding 0 or 1
  for_rows(out.numel(), row, [&](int64_t i, bool split) {
    int r = reduce_row<T, int>(
        base + i * row, row, split,
        [is_all](const T* q, int64_t n) {
          for (int64_t k = 0; k < n; ++k)
            if ((static_cast<opmath_t<T>>(q[k]) != 0) != is_all) return is_all ? 0 : 1;
          return is_all ? 1 : 0;
        },
        [is_all](int a, int b) { return is_all ? (a & b) : (a | b); });
    o[i] = static_cast<char>(r);
  });
}

// Float and double sums, means, nansums, products and extrema along a column block (outer x row x inner
// reduced over row): a chunk of NV vectors' worth of adjacent columns held in registers while the loop walks
// down all the rows, one load and one add (multiply, select) per vector and row. The strip loop below kept
// its 512 running values in memory (a load and a store beside each add: amax and prod along dim 0 of a
// [512, 512] float32 ran at 0.54-0.73 of PyTorch's speed). Each column's arithmetic is the strip loop's, in
// the same order, so the bits are: sums in float lanes restarted every kBlockRows rows and added into a
// double total, means the total over row in double, products in double, extrema keeping the first of equal
// values and the last NaN. kBytes: 16 (the baseline) or 32 (AVX2).
enum class ColKind { sum, nansum, prod, max, min };

template <typename T, int kBytes, ColKind K, int NV>
__attribute__((always_inline)) inline int64_t column_chunks(const T* p, T* q, int64_t row, int64_t inner,
                                                            int64_t w, bool mean) {
  if constexpr (K == ColKind::prod) {
    // double lanes; a float chunk loads half a vector of floats and widens it
    constexpr int W = kBytes / 8, C = NV * W;
    typedef double dvec __attribute__((vector_size(kBytes)));
    typedef T tvec __attribute__((vector_size(W * sizeof(T))));
    int64_t j = 0;
    for (; j + C <= w; j += C) {
      dvec acc[NV];
      for (int k = 0; k < NV; ++k) acc[k] = dvec{} + 1.0;
      for (int64_t r = 0; r < row; ++r) {
        const T* pr = p + r * inner + j;
#pragma GCC unroll 8
        for (int k = 0; k < NV; ++k) {
          tvec a;
          std::memcpy(&a, pr + k * W, sizeof(a));
          acc[k] *= __builtin_convertvector(a, dvec);
        }
      }
      for (int k = 0; k < NV; ++k)
        for (int l = 0; l < W; ++l) q[j + k * W + l] = static_cast<T>(acc[k][l]);
    }
    return j;
  } else {
    constexpr int W = kBytes / static_cast<int>(sizeof(T)), C = NV * W;
    typedef T vec __attribute__((vector_size(kBytes)));
    int64_t j = 0;
    for (; j + C <= w; j += C) {
      vec acc[NV];
      if constexpr (K == ColKind::max || K == ColKind::min) {
        // the select is maxps / minps, which keeps the running value beside a NaN; one mask notes whether any
        // NaN was read, and then the chunk runs again with the select that takes it (NaN wins: the strip
        // loop's bits, the last NaN of the column)
        decltype(acc[0] != acc[0]) nan = {};
        for (int k = 0; k < NV; ++k) {
          std::memcpy(&acc[k], p + j + k * W, kBytes);
          nan |= acc[k] != acc[k];
        }
        for (int64_t r = 1; r < row; ++r) {
          const T* pr = p + r * inner + j;
#pragma GCC unroll 8
          for (int k = 0; k < NV; ++k) {
            vec a;
            std::memcpy(&a, pr + k * W, kBytes);
            nan |= a != a;
            if constexpr (K == ColKind::max)
              acc[k] = a > acc[k] ? a : acc[k];
            else
              acc[k] = a < acc[k] ? a : acc[k];
          }
        }
        bool any_nan = false;
        for (int l = 0; l < W; ++l) any_nan |= nan[l] != 0;
        if (any_nan) {
          for (int k = 0; k < NV; ++k) std::memcpy(&acc[k], p + j + k * W, kBytes);
          for (int64_t r = 1; r < row; ++r) {
            const T* pr = p + r * inner + j;
            for (int k = 0; k < NV; ++k) {
              vec a;
              std::memcpy(&a, pr + k * W, kBytes);
              if constexpr (K == ColKind::max)
                acc[k] = (a > acc[k]) | (a != a) ? a : acc[k];
              else
                acc[k] = (a < acc[k]) | (a != a) ? a : acc[k];
            }
          }
        }
        std::memcpy(q + j, acc, sizeof(acc));
      } else {
        double total[C] = {};
        for (int64_t r0 = 0; r0 < row; r0 += kBlockRows) {
          const int64_t r1 = std::min(row, r0 + kBlockRows);
          for (int k = 0; k < NV; ++k) acc[k] = vec{};
          for (int64_t r = r0; r < r1; ++r) {
            const T* pr = p + r * inner + j;
#pragma GCC unroll 8
            for (int k = 0; k < NV; ++k) {
              vec a;
              std::memcpy(&a, pr + k * W, kBytes);
              if constexpr (K == ColKind::nansum) a = a == a ? a : vec{};
              acc[k] += a;
            }
          }
          T s[C];
          std::memcpy(s, acc, sizeof(s));
          for (int l = 0; l < C; ++l) total[l] += static_cast<double>(s[l]);
        }
        if (mean)
          for (int l = 0; l < C; ++l) q[j + l] = static_cast<T>(total[l] / static_cast<double>(row));
        else
          for (int l = 0; l < C; ++l) q[j + l] = static_cast<T>(total[l]);
      }
    }
    return j;
  }
}

// The columns [0, w) of one block that whole chunks cover (eight vectors, then one): how many were done; the
// caller's strip loop takes the rest.
template <typename T, int kBytes, ColKind K>
__attribute__((always_inline)) inline int64_t column_block_impl(const T* p, T* q, int64_t row, int64_t inner,
                                                                int64_t w, bool mean) {
  int64_t j = column_chunks<T, kBytes, K, 8>(p, q, row, inner, w, mean);
  return j + column_chunks<T, kBytes, K, 1>(p + j, q + j, row, inner, w - j, mean);
}
template <typename T, int kBytes>
__attribute__((always_inline)) inline int64_t column_block_op(const T* p, T* q, int64_t row, int64_t inner,
                                                              int64_t w, ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::mean:
      return column_block_impl<T, kBytes, ColKind::sum>(p, q, row, inner, w, op == ReduceOp::mean);
    case ReduceOp::nansum:
      return column_block_impl<T, kBytes, ColKind::nansum>(p, q, row, inner, w, false);
    case ReduceOp::prod:
      return column_block_impl<T, kBytes, ColKind::prod>(p, q, row, inner, w, false);
    case ReduceOp::amax:
      return column_block_impl<T, kBytes, ColKind::max>(p, q, row, inner, w, false);
    case ReduceOp::amin:
      return column_block_impl<T, kBytes, ColKind::min>(p, q, row, inner, w, false);
    default:
      return 0;
  }
}
#ifdef MT_LOOPS_AVX2
// float32 products in AVX2's double lanes, written with intrinsics: GCC widened column_chunks' half vectors
// of floats 128 bits at a time through the stack (prod along dim 0 of [512, 512] at 0.49 of PyTorch's speed).
// The same multiplies in the same order per column, so the same bits.
__attribute__((target("avx2"))) int64_t prod_columns_f32_avx2(const float* p, float* q, int64_t row,
                                                              int64_t inner, int64_t w) {
  int64_t j = 0;
  for (; j + 32 <= w; j += 32) {
    __m256d a0 = _mm256_set1_pd(1.0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (int64_t r = 0; r < row; ++r) {
      const float* pr = p + r * inner + j;
      a0 = _mm256_mul_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(pr)));
      a1 = _mm256_mul_pd(a1, _mm256_cvtps_pd(_mm_loadu_ps(pr + 4)));
      a2 = _mm256_mul_pd(a2, _mm256_cvtps_pd(_mm_loadu_ps(pr + 8)));
      a3 = _mm256_mul_pd(a3, _mm256_cvtps_pd(_mm_loadu_ps(pr + 12)));
      a4 = _mm256_mul_pd(a4, _mm256_cvtps_pd(_mm_loadu_ps(pr + 16)));
      a5 = _mm256_mul_pd(a5, _mm256_cvtps_pd(_mm_loadu_ps(pr + 20)));
      a6 = _mm256_mul_pd(a6, _mm256_cvtps_pd(_mm_loadu_ps(pr + 24)));
      a7 = _mm256_mul_pd(a7, _mm256_cvtps_pd(_mm_loadu_ps(pr + 28)));
    }
    float* o = q + j;
    _mm_storeu_ps(o, _mm256_cvtpd_ps(a0));
    _mm_storeu_ps(o + 4, _mm256_cvtpd_ps(a1));
    _mm_storeu_ps(o + 8, _mm256_cvtpd_ps(a2));
    _mm_storeu_ps(o + 12, _mm256_cvtpd_ps(a3));
    _mm_storeu_ps(o + 16, _mm256_cvtpd_ps(a4));
    _mm_storeu_ps(o + 20, _mm256_cvtpd_ps(a5));
    _mm_storeu_ps(o + 24, _mm256_cvtpd_ps(a6));
    _mm_storeu_ps(o + 28, _mm256_cvtpd_ps(a7));
  }
  for (; j + 4 <= w; j += 4) {
    __m256d a = _mm256_set1_pd(1.0);
    for (int64_t r = 0; r < row; ++r) a = _mm256_mul_pd(a, _mm256_cvtps_pd(_mm_loadu_ps(p + r * inner + j)));
    _mm_storeu_ps(q + j, _mm256_cvtpd_ps(a));
  }
  return j;
}

template <typename T>
__attribute__((target("avx2"))) int64_t column_block_avx2(const T* p, T* q, int64_t row, int64_t inner,
                                                          int64_t w, ReduceOp op) {
  if constexpr (std::is_same_v<T, float>)
    if (op == ReduceOp::prod) return prod_columns_f32_avx2(p, q, row, inner, w);
  return column_block_op<T, 32>(p, q, row, inner, w, op);
}
#endif

template <typename T>
int64_t column_block(const T* p, T* q, int64_t row, int64_t inner, int64_t w, ReduceOp op) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
#ifdef MT_LOOPS_AVX2
    if (loops_use_avx2()) return column_block_avx2(p, q, row, inner, w, op);
#endif
    return column_block_op<T, 16>(p, q, row, inner, w, op);
  } else {
    (void)p, (void)q, (void)row, (void)inner, (void)w, (void)op;
    return 0;
  }
}

// Columns per task: kColumns, or narrower (a multiple of 64) when the blocks are fewer than the threads, so
// that a [512, 512] reduced along dim 0 still splits (each column's result is the same whoever computes it).
inline int64_t column_piece(int64_t outer, int64_t row, int64_t inner) {
  if (outer * row * inner < 2 * kGrainSize || outer * ((inner + kColumns - 1) / kColumns) >= 16)
    return kColumns;
  const int64_t nt = get_num_threads();
  if (nt <= 1 || outer * ((inner + kColumns - 1) / kColumns) >= nt) return kColumns;
  const int64_t per_block = (nt + outer - 1) / outer;
  const int64_t piece = ((inner + per_block - 1) / per_block + 63) / 64 * 64;
  return std::max<int64_t>(64, std::min(kColumns, piece));
}

template <typename T>
void reduce_columns(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ReduceOp op) {
  using op_t = opmath_t<T>;
  using a_t = acc_t<T>;
  const T* base = in.data<T>();
  T* o = out.data<T>();
  int64_t outer = out.numel() / inner;
  const int64_t piece = column_piece(outer, row, inner);
  int64_t strips = (inner + piece - 1) / piece;
  int64_t grain = grain_for(row * piece);
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t task = b; task < e; ++task) {
      int64_t oi = task / strips, j0 = (task % strips) * piece;
      int64_t w = std::min(piece, inner - j0);
      const T* p = base + oi * row * inner + j0;
      T* q = o + oi * inner + j0;
      const int64_t done = column_block(p, q, row, inner, w, op);
      p += done;
      q += done;
      w -= done;
      if (w == 0) continue;
      if (op == ReduceOp::amax || op == ReduceOp::amin) {
        bool is_max = op == ReduceOp::amax;
        op_t m[kColumns];
        for (int64_t j = 0; j < w; ++j) m[j] = static_cast<op_t>(p[j]);
        for (int64_t r = 1; r < row; ++r) {
          const T* pr = p + r * inner;
          for (int64_t j = 0; j < w; ++j) {
            m[j] = reduce_rules::accumulate_extremum(m[j], static_cast<op_t>(pr[j]), is_max);
          }
        }
        for (int64_t j = 0; j < w; ++j) q[j] = static_cast<T>(m[j]);
      } else if (op == ReduceOp::prod) {
        a_t acc[kColumns];
        for (int64_t j = 0; j < w; ++j) acc[j] = 1;
        for (int64_t r = 0; r < row; ++r)
          for (int64_t j = 0; j < w; ++j) acc[j] = wrap_mul(acc[j], static_cast<a_t>(p[r * inner + j]));
        for (int64_t j = 0; j < w; ++j) q[j] = static_cast<T>(static_cast<op_t>(acc[j]));
      } else {  // sum, nansum, mean
        a_t total[kColumns] = {};
        op_t acc[kColumns];
        for (int64_t r0 = 0; r0 < row; r0 += kBlockRows) {
          for (int64_t j = 0; j < w; ++j) acc[j] = 0;
          int64_t r1 = std::min(row, r0 + kBlockRows);
          if constexpr (std::is_floating_point_v<op_t>) {
            if (op == ReduceOp::nansum) {
              for (int64_t r = r0; r < r1; ++r) {
                const T* pr = p + r * inner;
                for (int64_t j = 0; j < w; ++j) {
                  const op_t v = static_cast<op_t>(pr[j]);
                  acc[j] += v != v ? op_t(0) : v;
                }
              }
              for (int64_t j = 0; j < w; ++j) total[j] += static_cast<a_t>(acc[j]);
              continue;
            }
          }
          for (int64_t r = r0; r < r1; ++r) {
            const T* pr = p + r * inner;
            for (int64_t j = 0; j < w; ++j) acc[j] = wrap_add(acc[j], static_cast<op_t>(pr[j]));
          }
          for (int64_t j = 0; j < w; ++j) total[j] = wrap_add(total[j], static_cast<a_t>(acc[j]));
        }
        if (op == ReduceOp::mean) {
          for (int64_t j = 0; j < w; ++j)
            q[j] =
                static_cast<T>(static_cast<op_t>(static_cast<double>(total[j]) / static_cast<double>(row)));
        } else {
          for (int64_t j = 0; j < w; ++j) q[j] = static_cast<T>(static_cast<op_t>(total[j]));
        }
      }
    }
  };
  if (out.numel() * row < kGrainSize)  // small: skip the pool (and its get_num_threads() call) altogether
    body(0, outer * strips);
  else
    parallel_for(0, outer * strips, grain, body);
}

// prod of complex values (sum and mean of complex run on the real [..., 2] view: ops/reduce.cpp), in
// complex<double>; rows in order, strips of columns for a middle dim.
template <typename T>
void prod_complex(const Tensor& out, const Tensor& in, int64_t row, int64_t inner) {
  const T* base = in.data<T>();
  T* o = out.data<T>();
  if (inner == 1) {
    for_rows(out.numel(), row, [&](int64_t i, bool) {
      const T* p = base + i * row;
      acc_t<T> a(1);
      for (int64_t k = 0; k < row; ++k) a *= static_cast<acc_t<T>>(p[k]);
      o[i] = static_cast<T>(a);
    });
    return;
  }
  for_strips(out.numel() / inner, row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
    const T* p = base + oi * row * inner + j0;
    acc_t<T> acc[kColumns];
    for (int64_t j = 0; j < w; ++j) acc[j] = acc_t<T>(1);
    for (int64_t r = 0; r < row; ++r)
      for (int64_t j = 0; j < w; ++j) acc[j] *= static_cast<acc_t<T>>(p[r * inner + j]);
    for (int64_t j = 0; j < w; ++j) o[oi * inner + j0 + j] = static_cast<T>(acc[j]);
  });
}

// count_nonzero reads every dtype as unsigned words under a mask: an element is nonzero when a bit outside
// the sign bits of its real and imaginary parts is set (-0.0 is zero, NaN is not, as x != 0 says), so one
// integer loop per word width covers every dtype, vectorizes at any instruction set and needs no bool mask
// first (the compare-then-count of two ops cost 1.2 us at 8x8 against PyTorch's 1.0). `pairs`: complex128,
// whose two words make one element. The count of a chunk below 2^32 elements fits 32 bits, which vectorize
// better beside narrow words.
template <typename U>
using count_t = std::conditional_t<sizeof(U) == 8, uint64_t, uint32_t>;
template <typename U>
__attribute__((always_inline)) inline int64_t count_words_impl(const U* p, int64_t n, U mask, bool pairs) {
  count_t<U> z = 0;  // the zeros: one compare a lane, where counting != 0 took two
  if (pairs) {
    for (int64_t i = 0; i < n; ++i) z += ((p[2 * i] | p[2 * i + 1]) & mask) == 0;
  } else {
    for (int64_t i = 0; i < n; ++i) z += (p[i] & mask) == 0;
  }
  return n - static_cast<int64_t>(z);
}
#ifdef MT_LOOPS_AVX2
template <typename U>
__attribute__((target("avx2"))) int64_t count_words_avx2(const U* p, int64_t n, U mask, bool pairs) {
  return count_words_impl(p, n, mask, pairs);
}
#endif
template <typename U>
int64_t count_words(const U* p, int64_t n, U mask, bool pairs) {
  constexpr int64_t kChunk = int64_t(1) << 31;  // a 32-bit count's reach
  int64_t c = 0;
  for (int64_t s = 0; s < n; s += kChunk) {
    const U* q = p + (pairs ? 2 * s : s);
    const int64_t m = std::min(kChunk, n - s);
#ifdef MT_LOOPS_AVX2
    if (loops_use_avx2()) {
      c += count_words_avx2(q, m, mask, pairs);
      continue;
    }
#endif
    c += count_words_impl(q, m, mask, pairs);
  }
  return c;
}

template <typename U>
struct WordPair {
  U w[2];
};
template <typename U, bool kPairs = false>
void count_rows(const Tensor& out, const Tensor& in, int64_t row, U mask) {
  using E = std::conditional_t<kPairs, WordPair<U>, U>;  // one element
  const E* base = static_cast<const E*>(in.data_ptr());
  int64_t* o = out.data<int64_t>();
  for_rows(out.numel(), row, [&](int64_t i, bool split) {
    o[i] = reduce_row<E, int64_t>(
        base + i * row, row, split,
        [&](const E* q, int64_t n) { return count_words(reinterpret_cast<const U*>(q), n, mask, kPairs); },
        [](int64_t a, int64_t b) { return a + b; });
  });
}

void count_nonzero_cpu(const Tensor& out, const Tensor& in, int64_t row) {
  switch (in.dtype()) {
    case ScalarType::Bool:
    case ScalarType::Byte:
    case ScalarType::Char:
      return count_rows<uint8_t>(out, in, row, 0xff);
    case ScalarType::Short:
      return count_rows<uint16_t>(out, in, row, 0xffff);
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return count_rows<uint16_t>(out, in, row, 0x7fff);
    case ScalarType::Int:
      return count_rows<uint32_t>(out, in, row, 0xffffffffu);
    case ScalarType::Float:
      return count_rows<uint32_t>(out, in, row, 0x7fffffffu);
    case ScalarType::Long:
      return count_rows<uint64_t>(out, in, row, ~uint64_t(0));
    case ScalarType::ComplexFloat:
      return count_rows<uint64_t>(out, in, row, 0x7fffffff7fffffffull);
    case ScalarType::Double:
      return count_rows<uint64_t>(out, in, row, 0x7fffffffffffffffull);
    case ScalarType::ComplexDouble:
      return count_rows<uint64_t, true>(out, in, row, 0x7fffffffffffffffull);
    default:
      MT_INTERNAL_ASSERT(false, "count_nonzero: unexpected dtype");
  }
}

void reduce_cpu(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ReduceOp op, double arg) {
  if (op == ReduceOp::count_nonzero) {
    MT_INTERNAL_ASSERT(inner == 1, "count_nonzero: rows only");
    count_nonzero_cpu(out, in, row);
    return;
  }
  if (op == ReduceOp::prod && is_complex(in.dtype())) {
    MT_DISPATCH_COMPLEX_TYPES(in.dtype(), "prod", [&] { prod_complex<scalar_t>(out, in, row, inner); });
    return;
  }
  if (inner > 1) {
    MT_DISPATCH_ALL_TYPES(in.dtype(), "reduce", [&] { reduce_columns<scalar_t>(out, in, row, inner, op); });
    return;
  }
  if (op == ReduceOp::all || op == ReduceOp::any) {
    MT_DISPATCH_ALL_TYPES(in.dtype(), op == ReduceOp::all ? "all" : "any",
                          [&] { reduce_logical<scalar_t>(out, in, row, op == ReduceOp::all); });
    return;
  }
  MT_DISPATCH_ALL_TYPES(in.dtype(), "reduce", [&] {
    if constexpr (std::is_floating_point_v<opmath_t<scalar_t>>)
      reduce_floating<scalar_t>(out, in, row, op, arg);
    else
      reduce_integral<scalar_t>(out, in, row, op);
  });
}

void arg_reduce_cpu(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row, int64_t inner,
                    bool is_max) {
  MT_DISPATCH_ALL_TYPES(in.dtype(), is_max ? "argmax" : "argmin", [&] {
    using op_t = opmath_t<scalar_t>;
    const scalar_t* base = in.data<scalar_t>();
    scalar_t* vals = values.defined() ? values.data<scalar_t>() : nullptr;
    int64_t* idx = indices.data<int64_t>();
    if (inner == 1) {
      for_rows(indices.numel(), row, [&](int64_t i, bool) {
        // two passes (the extremum, vectorized; then its first position) beat one branchy pass
        const scalar_t* p = base + i * row;
        op_t best = extremum(p, row, is_max, Identity{});
        int64_t bi = 0;
        if (is_nan(best)) {
          while (!is_nan(static_cast<op_t>(p[bi]))) ++bi;
        } else {
          while (static_cast<op_t>(p[bi]) != best) ++bi;
        }
        idx[i] = bi;
        if (vals) vals[i] = p[bi];
      });
      return;
    }
    // along a middle dim: a running best per column of a strip; strict comparison keeps the first position
    for_strips(indices.numel() / inner, row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
      const scalar_t* p = base + oi * row * inner + j0;
      op_t best[kColumns];
      int64_t bi[kColumns];
      for (int64_t j = 0; j < w; ++j) {
        best[j] = static_cast<op_t>(p[j]);
        bi[j] = 0;
      }
      for (int64_t r = 1; r < row; ++r)
        for (int64_t j = 0; j < w; ++j) {
          op_t v = static_cast<op_t>(p[r * inner + j]);
          bool better = reduce_rules::arg_replaces(best[j], v, is_max);
          best[j] = better ? v : best[j];
          bi[j] = better ? r : bi[j];
        }
      int64_t o = oi * inner + j0;
      for (int64_t j = 0; j < w; ++j) {
        idx[o + j] = bi[j];
        if (vals) vals[o + j] = p[bi[j] * inner + j];
      }
    });
  });
}

// Blocks of values compared with one branch each (the compare loop vectorizes); the first block is short,
// since unequal tensors mostly differ early and PyTorch's element loop stops at once.
template <typename T>
bool equal_values(const T* a, const T* b, int64_t n) {
  using op_t = opmath_t<T>;
  for (int64_t s = 0, len = 16; s < n; s += len, len = 1024) {
    const int64_t e = std::min(n, s + len);
    bool same = true;
    for (int64_t i = s; i < e; ++i) same &= static_cast<op_t>(a[i]) == static_cast<op_t>(b[i]);
    if (!same) return false;
  }
  return true;
}

bool equal_cpu(const Tensor& a, const Tensor& b) {
  const int64_t n = a.numel();
  bool r = true;
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(a.dtype(), "equal_cpu",
                                    [&] { r = equal_values(a.data<scalar_t>(), b.data<scalar_t>(), n); });
  return r;
}

}  // namespace

MT_REGISTER_KERNEL(reduce_stub, CPU, &reduce_cpu);
MT_REGISTER_KERNEL(arg_reduce_stub, CPU, &arg_reduce_cpu);
MT_REGISTER_KERNEL(equal_stub, CPU, &equal_cpu);

}  // namespace mt
