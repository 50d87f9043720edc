// CPU kernels for reductions, arg-reductions, scans and softmax over dense rows (see ops/reduce.h for the
// layout).
#include "ops/reduce.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/ScalarType.h"
#include "kernels/cpu/Parallel.h"

namespace mt {
namespace {

// Floats accumulate in float lanes inside small blocks and in double across blocks: the lanes let the
// compiler vectorize without reassociating, and 128 float additions per lane keep the error at NumPy's
// pairwise level. double stays double; integers (already widened to int64 by the front end for sums) use
// int64.
template <typename T>
using acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, double, int64_t>;

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
  bool split = nrows < get_num_threads() && row >= 2 * kGrainSize;
  if (split || nrows * row < kGrainSize || nrows == 1) {
    for (int64_t i = 0; i < nrows; ++i) f(i, split);
    return;
  }
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(row, 1));
  parallel_for(0, nrows, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i, false);
  });
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

// max (is_max) or min of a chunk in opmath; NaN wins, as in PyTorch.
template <typename T, typename F>
opmath_t<T> extremum(const T* p, int64_t n, bool is_max, const F& f) {
  using op_t = opmath_t<T>;
  op_t m = f(p[0]);
  for (int64_t i = 1; i < n; ++i) {
    op_t v = f(p[i]);
    if (is_nan(v)) return v;
    if (is_max ? v > m : v < m) m = v;
  }
  return m;
}

template <typename T>
opmath_t<T> comb_extremum(opmath_t<T> a, opmath_t<T> b, bool is_max) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return is_max ? (b > a ? b : a) : (b < a ? b : a);
}

template <typename T>
void reduce_floating(const Tensor& out, const Tensor& in, int64_t row, ReduceOp op, double arg) {
  using op_t = opmath_t<T>;
  const T* base = in.data<T>();
  T* o = out.data<T>();
  int64_t nrows = out.numel();
  auto id = [](T x) { return static_cast<op_t>(x); };
  auto sum_of = [&](const T* p, bool split, auto f) {
    return reduce_row<T, double>(
        p, row, split, [&](const T* q, int64_t n) { return blocked_sum(q, n, f); },
        [](double a, double b) { return a + b; });
  };
  auto ext_of = [&](const T* p, bool split, bool is_max, auto f) {
    return reduce_row<T, op_t>(
        p, row, split, [&](const T* q, int64_t n) { return extremum(q, n, is_max, f); },
        [&](op_t a, op_t b) { return comb_extremum<T>(a, b, is_max); });
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
        r = m2 / std::max(0.0, static_cast<double>(row) - arg);
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
            p, row, split,
            [is_max](const T* q, int64_t n) { return extremum(q, n, is_max, [](T x) { return x; }); },
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

void reduce_kernel(const Tensor& out, const Tensor& in, int64_t row, ReduceOp op, double arg) {
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

void arg_reduce_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                       bool is_max) {
  MT_DISPATCH_ALL_TYPES(in.dtype(), is_max ? "argmax" : "argmin", [&] {
    using op_t = opmath_t<scalar_t>;
    const scalar_t* base = in.data<scalar_t>();
    scalar_t* vals = values.defined() ? values.data<scalar_t>() : nullptr;
    int64_t* idx = indices.data<int64_t>();
    for_rows(indices.numel(), row, [&](int64_t i, bool) {
      const scalar_t* p = base + i * row;
      op_t best = static_cast<op_t>(p[0]);
      int64_t bi = 0;
      if (!is_nan(best)) {
        for (int64_t k = 1; k < row; ++k) {
          op_t v = static_cast<op_t>(p[k]);
          if (is_nan(v)) {
            best = v;
            bi = k;
            break;
          }
          if (is_max ? v > best : v < best) {
            best = v;
            bi = k;
          }
        }
      }
      idx[i] = bi;
      if (vals) vals[i] = p[bi];
    });
  });
}

void scan_kernel(const Tensor& out, const Tensor& in, int64_t row, ScanOp op) {
  MT_DISPATCH_ALL_TYPES(in.dtype(), op == ScanOp::cumsum ? "cumsum" : "cumprod", [&] {
    using a_t = acc_t<scalar_t>;
    const scalar_t* base = in.data<scalar_t>();
    scalar_t* o = out.data<scalar_t>();
    int64_t nrows = row == 0 ? 0 : in.numel() / row;
    for_rows(nrows, row, [&](int64_t i, bool) {
      const scalar_t* p = base + i * row;
      scalar_t* q = o + i * row;
      a_t a = op == ScanOp::cumsum ? a_t(0) : a_t(1);
      if (op == ScanOp::cumsum) {
        for (int64_t k = 0; k < row; ++k) q[k] = static_cast<scalar_t>(a += static_cast<a_t>(p[k]));
      } else {
        for (int64_t k = 0; k < row; ++k) q[k] = static_cast<scalar_t>(a *= static_cast<a_t>(p[k]));
      }
    });
  });
}

void softmax_kernel(const Tensor& out, const Tensor& in, int64_t row, bool log) {
  MT_DISPATCH_FLOATING_TYPES(in.dtype(), log ? "log_softmax" : "softmax", [&] {
    using op_t = opmath_t<scalar_t>;
    const scalar_t* base = in.data<scalar_t>();
    scalar_t* o = out.data<scalar_t>();
    int64_t nrows = row == 0 ? 0 : in.numel() / row;
    for_rows(nrows, row, [&](int64_t i, bool) {
      const scalar_t* p = base + i * row;
      scalar_t* q = o + i * row;
      // subtracting the max keeps exp() from overflowing; an all -inf row gives NaN, as in PyTorch
      op_t m = extremum(p, row, true, [](scalar_t x) { return static_cast<op_t>(x); });
      op_t s = 0;
      for (int64_t k = 0; k < row; ++k) s += std::exp(static_cast<op_t>(p[k]) - m);
      if (log) {
        op_t ls = std::log(s);
        for (int64_t k = 0; k < row; ++k) q[k] = static_cast<scalar_t>(static_cast<op_t>(p[k]) - m - ls);
      } else {
        op_t inv = op_t(1) / s;
        for (int64_t k = 0; k < row; ++k)
          q[k] = static_cast<scalar_t>(std::exp(static_cast<op_t>(p[k]) - m) * inv);
      }
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(reduce_stub, CPU, &reduce_kernel);
MT_REGISTER_KERNEL(arg_reduce_stub, CPU, &arg_reduce_kernel);
MT_REGISTER_KERNEL(scan_stub, CPU, &scan_kernel);
MT_REGISTER_KERNEL(softmax_stub, CPU, &softmax_kernel);

}  // namespace mt
