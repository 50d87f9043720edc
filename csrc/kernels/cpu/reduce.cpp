// CPU kernels for reductions, arg-reductions, scans and softmax (layout: see ops/reduce.h).
#include "ops/reduce.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "kernels/ReduceRules.h"
#include "kernels/cpu/VecExp.h"

namespace mt {
namespace {

// Floats accumulate in float lanes inside small blocks and in double across blocks: the lanes let the
// compiler vectorize without reassociating, and 128 float additions per lane keep the error at NumPy's
// pairwise level. double stays double; integers (already widened to int64 by the front end for sums) use
// int64.
template <typename T>
using acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, double, int64_t>;

using reduce_rules::is_nan;

constexpr int kLanes = 16;
constexpr int64_t kBlock = 2048;

// sum of f(x) over p[0, n) for floating T; f maps T to opmath (float for half/bfloat16/float).
template <typename T, typename F>
double blocked_sum(const T* p, int64_t n, const F& f) {
  using op_t = opmath_t<T>;
  double total = 0;
  for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
    const T* q = p + b0;
    int64_t m = std::min(kBlock, n - b0);
    op_t acc[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= m; i += kLanes)
      for (int j = 0; j < kLanes; ++j) acc[j] += f(q[i + j]);
    op_t tail = 0;
    for (; i < m; ++i) tail += f(q[i]);
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
    total += static_cast<double>(acc[0]) + static_cast<double>(tail);
  }
  return total;
}

// Reduces one row, split over the thread pool when `split` (few long rows); part(ptr, n) reduces a chunk,
// comb(a, b) merges two chunk results. Chunks are fixed by the thread count, so results are reproducible.
template <typename T, typename Acc, typename Part, typename Comb>
Acc reduce_row(const T* p, int64_t n, bool split, const Part& part, const Comb& comb) {
  if (!split || n < 2 * kGrainSize) return part(p, n);
  int64_t nchunks = std::min<int64_t>(get_num_threads(), n / kGrainSize);
  if (nchunks <= 1) return part(p, n);
  int64_t chunk = (n + nchunks - 1) / nchunks;
  // char for bool: threads write neighbouring slots, which std::vector<bool> packs into one word
  std::vector<std::conditional_t<std::is_same_v<Acc, bool>, char, Acc>> partial(static_cast<size_t>(nchunks));
  parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t s = c * chunk;
      partial[c] = part(p + s, std::max<int64_t>(0, std::min(chunk, n - s)));
    }
  });
  Acc r = partial[0];
  for (int64_t c = 1; c < nchunks; ++c) r = comb(r, partial[c]);
  return r;
}

// Calls f(i, split) for every row: rows in parallel when there are many, a single long row split inside.
template <typename F>
void for_rows(int64_t nrows, int64_t row, const F& f) {
  // small work first: get_num_threads() is not free (it can query the OS), and small ops are overhead-bound
  if (nrows * row < kGrainSize) {
    for (int64_t i = 0; i < nrows; ++i) f(i, false);
    return;
  }
  bool split = row >= 2 * kGrainSize && nrows < get_num_threads();
  if (split || nrows == 1) {
    for (int64_t i = 0; i < nrows; ++i) f(i, split);
    return;
  }
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(row, 1));
  parallel_for(0, nrows, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i, false);
  });
}

// Identity map for extremum(): lets float/double take the explicit-SIMD path.
struct Identity {
  template <typename T>
  opmath_t<T> operator()(T x) const {
    return static_cast<opmath_t<T>>(x);
  }
};

// max/min of float or double with GCC/Clang vector extensions (16-byte vectors: the x86-64 baseline). Written
// by hand because the compiler will not vectorize a NaN-propagating max on its own; NaN is tracked as a mask.
template <typename T>
T simd_extremum(const T* p, int64_t n, bool is_max) {
  constexpr int W = 16 / sizeof(T);
  typedef T vec __attribute__((vector_size(16)));
  vec m0, m1;
  for (int j = 0; j < W; ++j) m0[j] = m1[j] = p[0];
  vec a, b;
  decltype(a != a) nan = {};
  int64_t i = 0;
  if (is_max) {
    for (; i + 2 * W <= n; i += 2 * W) {
      std::memcpy(&a, p + i, 16);
      std::memcpy(&b, p + i + W, 16);
      m0 = a > m0 ? a : m0;
      m1 = b > m1 ? b : m1;
      nan |= (a != a) | (b != b);
    }
  } else {
    for (; i + 2 * W <= n; i += 2 * W) {
      std::memcpy(&a, p + i, 16);
      std::memcpy(&b, p + i + W, 16);
      m0 = a < m0 ? a : m0;
      m1 = b < m1 ? b : m1;
      nan |= (a != a) | (b != b);
    }
  }
  bool any_nan = false;
  T r = p[0];
  for (int j = 0; j < W; ++j) {
    any_nan |= nan[j] != 0;
    r = (is_max ? m0[j] > r : m0[j] < r) ? m0[j] : r;
    r = (is_max ? m1[j] > r : m1[j] < r) ? m1[j] : r;
  }
  for (; i < n; ++i) {
    any_nan |= p[i] != p[i];
    r = (is_max ? p[i] > r : p[i] < r) ? p[i] : r;
  }
  return any_nan ? std::numeric_limits<T>::quiet_NaN() : r;
}

// max (is_max) or min of f(x) over a chunk, in opmath; NaN wins, as in PyTorch. The generic path's select
// keeps a NaN once it is in a lane (v > NaN and v != v are false for a number v).
template <typename T, typename F>
opmath_t<T> extremum(const T* p, int64_t n, bool is_max, const F& f) {
  using op_t = opmath_t<T>;
  if constexpr (std::is_same_v<F, Identity> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    return simd_extremum(p, n, is_max);
  } else {
    op_t m = f(p[0]);
    for (int64_t i = 1; i < n; ++i) {
      m = reduce_rules::accumulate_extremum(m, static_cast<op_t>(f(p[i])), is_max);
    }
    return m;
  }
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
      case ReduceOp::prod:
        r = reduce_row<T, double>(
            p, row, split,
            [](const T* q, int64_t n) {
              double a = 1;
              for (int64_t k = 0; k < n; ++k) a *= static_cast<double>(q[k]);
              return a;
            },
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
          r = std::sqrt(sum_of(p, split, [](T x) {
            op_t v = static_cast<op_t>(x);
            return v * v;
          }));
        } else if (pn == 1) {
          r = sum_of(p, split, absf);
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
        // two passes: the mean, then squared deviations from it (no cancellation as in E[x^2] - E[x]^2)
        op_t mu = static_cast<op_t>(sum_of(p, split, id) / static_cast<double>(row));
        double m2 = sum_of(p, split, [mu](T x) {
          op_t d = static_cast<op_t>(x) - mu;
          return d * d;
        });
        r = reduce_rules::var_from_m2(m2, row, arg);
        if (op == ReduceOp::std) r = std::sqrt(r);
        break;
      }
      case ReduceOp::logsumexp: {
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
              int64_t a = 0;
              for (int64_t k = 0; k < n; ++k) a += static_cast<int64_t>(q[k]);
              return a;
            },
            [](int64_t a, int64_t b) { return a + b; }));
        break;
      case ReduceOp::prod:
        o[i] = static_cast<T>(reduce_row<T, int64_t>(
            p, row, split,
            [](const T* q, int64_t n) {
              int64_t a = 1;
              for (int64_t k = 0; k < n; ++k) a *= static_cast<int64_t>(q[k]);
              return a;
            },
            [](int64_t a, int64_t b) { return a * b; }));
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

// outer x row x inner reduced over row: each task owns a strip of kColumns adjacent outputs and streams down
// the rows, so reads stay contiguous and the lane loop vectorizes. Float sums flush the float lanes into
// double every kBlockRows rows for the same accuracy as blocked_sum.
constexpr int64_t kColumns = 512;
constexpr int64_t kBlockRows = 128;

template <typename T>
void reduce_columns(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ReduceOp op) {
  using op_t = opmath_t<T>;
  using a_t = acc_t<T>;
  const T* base = in.data<T>();
  T* o = out.data<T>();
  int64_t outer = out.numel() / inner;
  int64_t strips = (inner + kColumns - 1) / kColumns;
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, row * kColumns));
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t task = b; task < e; ++task) {
      int64_t oi = task / strips, j0 = (task % strips) * kColumns;
      int64_t w = std::min(kColumns, inner - j0);
      const T* p = base + oi * row * inner + j0;
      T* q = o + oi * inner + j0;
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
          for (int64_t j = 0; j < w; ++j) acc[j] *= static_cast<a_t>(p[r * inner + j]);
        for (int64_t j = 0; j < w; ++j) q[j] = static_cast<T>(static_cast<op_t>(acc[j]));
      } else {  // sum, mean
        a_t total[kColumns] = {};
        op_t acc[kColumns];
        for (int64_t r0 = 0; r0 < row; r0 += kBlockRows) {
          for (int64_t j = 0; j < w; ++j) acc[j] = 0;
          int64_t r1 = std::min(row, r0 + kBlockRows);
          for (int64_t r = r0; r < r1; ++r) {
            const T* pr = p + r * inner;
            for (int64_t j = 0; j < w; ++j) acc[j] += static_cast<op_t>(pr[j]);
          }
          for (int64_t j = 0; j < w; ++j) total[j] += static_cast<a_t>(acc[j]);
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

void reduce_kernel(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ReduceOp op, double arg) {
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

// Calls f(outer index, first column, width) over strips of kColumns columns of an outer x row x inner
// layout, in parallel when the work is large.
template <typename F>
void for_strips(int64_t outer, int64_t row, int64_t inner, const F& f) {
  int64_t strips = (inner + kColumns - 1) / kColumns;
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t j0 = (t % strips) * kColumns;
      f(t / strips, j0, std::min(kColumns, inner - j0));
    }
  };
  if (outer * row * inner < kGrainSize)
    body(0, outer * strips);
  else
    parallel_for(0, outer * strips, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, row * kColumns)),
                 body);
}

void arg_reduce_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                       int64_t inner, bool is_max) {
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

template <typename T>
void scan_typed(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ScanOp op) {
  using a_t = acc_t<T>;
  const T* base = in.data<T>();
  T* o = out.data<T>();
  const bool sum = op == ScanOp::cumsum;
  if (inner == 1) {
    for_rows(in.numel() / row, row, [&](int64_t i, bool) {
      const T* p = base + i * row;
      T* q = o + i * row;
      a_t a = sum ? a_t(0) : a_t(1);
      if (sum) {
        for (int64_t k = 0; k < row; ++k) q[k] = static_cast<T>(a += static_cast<a_t>(p[k]));
      } else {
        for (int64_t k = 0; k < row; ++k) q[k] = static_cast<T>(a *= static_cast<a_t>(p[k]));
      }
    });
    return;
  }
  // along a middle dim: running values for a strip of columns, rows streamed in order
  for_strips(in.numel() / (row * inner), row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
    const T* p = base + oi * row * inner + j0;
    T* q = o + oi * row * inner + j0;
    a_t acc[kColumns];
    for (int64_t j = 0; j < w; ++j) acc[j] = sum ? a_t(0) : a_t(1);
    for (int64_t r = 0; r < row; ++r) {
      const T* pr = p + r * inner;
      T* qr = q + r * inner;
      if (sum) {
        for (int64_t j = 0; j < w; ++j) qr[j] = static_cast<T>(acc[j] += static_cast<a_t>(pr[j]));
      } else {
        for (int64_t j = 0; j < w; ++j) qr[j] = static_cast<T>(acc[j] *= static_cast<a_t>(pr[j]));
      }
    }
  });
}

void scan_kernel(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ScanOp op) {
  MT_DISPATCH_ALL_TYPES(in.dtype(), op == ScanOp::cumsum ? "cumsum" : "cumprod",
                        [&] { scan_typed<scalar_t>(out, in, row, inner, op); });
}

// One row of softmax / log_softmax. Subtracting the max keeps exp() from overflowing; an all -inf row gives
// NaN, as in PyTorch.
template <typename T>
void softmax_row(const T* p, T* q, int64_t row, bool log) {
  using op_t = opmath_t<T>;
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

void softmax_kernel(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, bool log) {
  MT_DISPATCH_FLOATING_TYPES(in.dtype(), log ? "log_softmax" : "softmax", [&] {
    const scalar_t* base = in.data<scalar_t>();
    scalar_t* o = out.data<scalar_t>();
    if (inner == 1) {
      for_rows(in.numel() / row, row,
               [&](int64_t i, bool) { softmax_row(base + i * row, o + i * row, row, log); });
      return;
    }
    for_strips(in.numel() / (row * inner), row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
      int64_t off = oi * row * inner + j0;
      softmax_columns(base + off, o + off, row, inner, w, log);
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(reduce_stub, CPU, &reduce_kernel);
MT_REGISTER_KERNEL(arg_reduce_stub, CPU, &arg_reduce_kernel);
MT_REGISTER_KERNEL(scan_stub, CPU, &scan_kernel);
MT_REGISTER_KERNEL(softmax_stub, CPU, &softmax_kernel);

}  // namespace mt
