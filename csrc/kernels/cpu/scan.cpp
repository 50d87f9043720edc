// CPU kernels for cumsum/cumprod, complex included, logcumsumexp, and cummax/cummin (layout: see
// ops/reduce.h).
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
#include "kernels/cpu/Loops.h"
#include "kernels/cpu/ReduceUtils.h"
#include "kernels/cpu/VecUnary.h"
#include "ops/reduce.h"

namespace mt {
namespace {

using namespace cpu_reduce;

// PyTorch's CPU scans run in at::acc_type<T, /*is_cuda=*/false>: double for float, but float for
// float16/bfloat16 (a product past float's range is inf there, and inf * 0 a NaN, where double would hold it)
template <typename T>
using scan_acc_t =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, acc_t<T>>;

template <typename T>
void scan_typed(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ScanOp op) {
  using a_t = scan_acc_t<T>;
  const T* base = in.data<T>();
  T* o = out.data<T>();
  const bool sum = op == ScanOp::cumsum;
  if (inner == 1) {
    for_rows(in.numel() / row, row, [&](int64_t i, bool) {
      const T* p = base + i * row;
      T* q = o + i * row;
      a_t a = sum ? a_t(0) : a_t(1);
      if (sum) {
        for (int64_t k = 0; k < row; ++k) {
          a = wrap_add(a, static_cast<a_t>(p[k]));
          q[k] = static_cast<T>(a);
        }
      } else {
        for (int64_t k = 0; k < row; ++k) {
          a = wrap_mul(a, static_cast<a_t>(p[k]));
          q[k] = static_cast<T>(a);
        }
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
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = wrap_add(acc[j], static_cast<a_t>(pr[j]));
          qr[j] = static_cast<T>(acc[j]);
        }
      } else {
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = wrap_mul(acc[j], static_cast<a_t>(pr[j]));
          qr[j] = static_cast<T>(acc[j]);
        }
      }
    }
  });
}

// logcumsumexp in double (PyTorch's CPU accumulator for float and double), as a running max m and the sum s
// of exp(x - m) so far: a larger x rescales s by exp(m - x) and adds 1, any other adds exp(x - m), so each
// step needs one exp of a number <= 0 and each result m + log(s), s >= 1. The steps' compares and the s chain
// are short serial passes; the exps and the logs run over blocks through the vector table's rows (the scalar
// functions at MINITORCH_CPU_CAPABILITY=default). PyTorch's kernel takes log1p(exp(min - max)) + max per
// element in scalar code: the same values to rounding, the same infinities (-inf until a finite value, +inf
// from a +inf on) and NaN from the first NaN on.
struct LcseRows {
  vec::LoopD exp, log;
  LcseRows() {
    const vec::Table* t = vec::unary_table();
    exp = t ? t->f64[static_cast<int>(vec::Fn::exp)] : nullptr;
    log = t ? t->f64[static_cast<int>(vec::Fn::log)] : nullptr;
    if (!exp)
      exp = [](double* o, const double* x, int64_t n) {
        for (int64_t i = 0; i < n; ++i) o[i] = std::exp(x[i]);
      };
    if (!log)
      log = [](double* o, const double* x, int64_t n) {
        for (int64_t i = 0; i < n; ++i) o[i] = std::log(x[i]);
      };
  }
};
const LcseRows& lcse_rows() {
  static const LcseRows r;
  return r;
}

// One step's exponent for x against the running max m (updated): m - x where x is a new max (rescaling s),
// x - m otherwise; -inf where both are the same infinity (nothing to add, or s stays as a +inf made it)
inline double lcse_arg(double x, double& m, bool& up) {
  up = x > m;
  if (up) {
    const double a = m - x;
    m = x;
    return a;
  }
  const double a = x - m;
  return (x == m && std::isinf(x)) ? -std::numeric_limits<double>::infinity() : a;
}

constexpr int64_t kLcseBlock = 256;

// one dense row of T, in place or not
template <typename T>
void lcse_row(const T* p, T* q, int64_t row, const LcseRows& f) {
  double a[kLcseBlock], mx[kLcseBlock];
  bool up[kLcseBlock];
  double m = -std::numeric_limits<double>::infinity(), s = 0;
  for (int64_t b = 0; b < row; b += kLcseBlock) {
    const int64_t n = std::min(kLcseBlock, row - b);
    for (int64_t k = 0; k < n; ++k) {
      a[k] = lcse_arg(static_cast<double>(p[b + k]), m, up[k]);
      mx[k] = m;
    }
    f.exp(a, a, n);
    for (int64_t k = 0; k < n; ++k) {
      s = up[k] ? s * a[k] + 1 : s + a[k];
      a[k] = s;
    }
    f.log(a, a, n);
    for (int64_t k = 0; k < n; ++k) q[b + k] = static_cast<T>(mx[k] + a[k]);
  }
}

// a strip of w <= kColumns adjacent columns along a middle dim: one step of every column at a time
template <typename T>
void lcse_strip(const T* p, T* q, int64_t row, int64_t inner, int64_t w, const LcseRows& f) {
  double m[kColumns], s[kColumns], a[kColumns];
  bool up[kColumns];
  std::fill(m, m + w, -std::numeric_limits<double>::infinity());
  std::fill(s, s + w, 0.0);
  for (int64_t r = 0; r < row; ++r) {
    const T* pr = p + r * inner;
    T* qr = q + r * inner;
    for (int64_t j = 0; j < w; ++j) a[j] = lcse_arg(static_cast<double>(pr[j]), m[j], up[j]);
    f.exp(a, a, w);
    for (int64_t j = 0; j < w; ++j) {
      s[j] = up[j] ? s[j] * a[j] + 1 : s[j] + a[j];
      a[j] = s[j];
    }
    f.log(a, a, w);
    for (int64_t j = 0; j < w; ++j) qr[j] = static_cast<T>(m[j] + a[j]);
  }
}

void logcumsumexp_cpu(const Tensor& out, const Tensor& in, int64_t row, int64_t inner) {
  const LcseRows& f = lcse_rows();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* base = in.data<T>();
    T* o = out.data<T>();
    if (inner == 1) {
      for_rows(in.numel() / row, row,
               [&](int64_t i, bool) { lcse_row(base + i * row, o + i * row, row, f); });
      return;
    }
    for_strips(in.numel() / (row * inner), row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
      lcse_strip(base + oi * row * inner + j0, o + oi * row * inner + j0, row, inner, w, f);
    });
  };
  if (in.dtype() == ScalarType::Double)
    run(double{});
  else if (in.dtype() == ScalarType::Float)
    run(float{});
  else
    MT_INTERNAL_ASSERT(false, "logcumsumexp's kernel takes float32 and float64");
}

void scan_cpu(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ScanOp op) {
  if (op == ScanOp::logcumsumexp) return logcumsumexp_cpu(out, in, row, inner);
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(in.dtype(), op == ScanOp::cumsum ? "cumsum" : "cumprod",
                                    [&] { scan_typed<scalar_t>(out, in, row, inner, op); });
}

// The element types the vector blocks below take: plain numbers (a float16/bfloat16 compares in float, a bool
// has no GCC vector type), held in the lanes as they are.
template <typename T>
constexpr bool kCumVec =
    std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && std::is_same_v<T, opmath_t<T>>;

// Whether every lane of a comparison's mask is set (its kBytes read as 64-bit words: one AND per word).
template <int kBytes, typename M>
__attribute__((always_inline)) inline bool all_set(const M& m) {
  uint64_t w[kBytes / 8];
  std::memcpy(w, &m, kBytes);
  uint64_t a = ~uint64_t(0);
  for (int i = 0; i < kBytes / 8; ++i) a &= w[i];
  return a == ~uint64_t(0);
}

// cummax/cummin of one row along the last dim. Past a row's first elements a new extremum is rare (about ln n
// of n on random data), so a block of kBytes is first compared with the running extremum as one vector; a
// block none of whose elements takes its place (cum_replaces: no NaN, none >= the max or <= the min) is
// written as the running value and index repeated, in vector stores. A block with such an element, and every
// block once the extremum is NaN, takes the scalar steps: the same results. (Two scalar stores per element
// were the loop's cost: 1.1 ns an element, PyTorch's loop 1.0.)
template <typename T, bool IsMax, int kBytes>
__attribute__((always_inline)) inline void cum_extreme_row_impl(const T* p, T* v, int64_t* ix, int64_t row) {
  constexpr int W = kBytes / static_cast<int>(sizeof(T));
  typedef T vec __attribute__((vector_size(kBytes)));
  typedef int64_t ivec __attribute__((vector_size(kBytes)));
  T best = p[0];
  int64_t at = 0;
  for (int64_t k = 0; k < row;) {
    if (k + W <= row && !is_nan(best)) {
      vec a;
      std::memcpy(&a, p + k, kBytes);
      const vec b = vec{} + best;
      if (all_set<kBytes>(IsMax ? a < b : a > b)) {
        std::memcpy(v + k, &b, kBytes);
        const ivec ia = ivec{} + at;
        for (int j = 0; j < W; j += kBytes / 8) std::memcpy(ix + k + j, &ia, kBytes);
        k += W;
        continue;
      }
    }
    for (const int64_t end = std::min(row, k + W); k < end; ++k) {
      const T x = p[k];
      if (reduce_rules::cum_replaces<IsMax>(best, x)) {
        best = x;
        at = k;
      }
      v[k] = best;
      ix[k] = at;
    }
  }
}

// cummax/cummin down a strip of w columns (a middle dim): each column's running extremum and index in lanes,
// taken over by a row's element where cum_replaces says so (a select per lane). The index lanes are int64 in
// vectors of kBytes, the mask widened to them a part at a time (a select of a 64-byte vector of int64, as
// GCC 12 compiles it, went lane by lane through scalar registers).
template <typename T, bool IsMax, int kBytes>
__attribute__((always_inline)) inline void cum_extreme_strip_impl(const T* p, T* vo, int64_t* io, int64_t row,
                                                                  int64_t inner, int64_t w) {
  constexpr int W = kBytes / static_cast<int>(sizeof(T)), L = kBytes / 8;
  using mask_t = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  typedef T vec __attribute__((vector_size(kBytes)));
  typedef mask_t mpart __attribute__((vector_size(L * sizeof(mask_t))));
  typedef int64_t ivec __attribute__((vector_size(kBytes)));
  alignas(64) T best[kColumns];
  alignas(64) int64_t at[kColumns];
  for (int64_t j = 0; j < w; ++j) {
    best[j] = p[j];
    at[j] = 0;
  }
  for (int64_t r = 0; r < row; ++r) {
    const T* pr = p + r * inner;
    T* vr = vo + r * inner;
    int64_t* ir = io + r * inner;
    const ivec rv = ivec{} + r;
    int64_t j = 0;
    for (; j + W <= w; j += W) {
      vec a, b;
      std::memcpy(&a, pr + j, kBytes);
      std::memcpy(&b, best + j, kBytes);
      auto m = IsMax ? a >= b : a <= b;
      if constexpr (std::is_floating_point_v<T>) m = (a != a) | ((b == b) & m);
      b = m ? a : b;
      std::memcpy(best + j, &b, kBytes);
      std::memcpy(vr + j, &b, kBytes);
      for (int h = 0; h < W / L; ++h) {
        mpart part;
        std::memcpy(&part, reinterpret_cast<const char*>(&m) + h * sizeof(mpart), sizeof(mpart));
        const ivec mw = __builtin_convertvector(part, ivec);
        ivec i;
        std::memcpy(&i, at + j + h * L, kBytes);
        i = (i & ~mw) | (rv & mw);
        std::memcpy(at + j + h * L, &i, kBytes);
        std::memcpy(ir + j + h * L, &i, kBytes);
      }
    }
    for (; j < w; ++j) {
      if (reduce_rules::cum_replaces<IsMax>(best[j], pr[j])) {
        best[j] = pr[j];
        at[j] = r;
      }
      vr[j] = best[j];
      ir[j] = at[j];
    }
  }
}

#ifdef MT_LOOPS_AVX2
template <typename T, bool IsMax>
__attribute__((target("avx2"))) void cum_extreme_row_avx2(const T* p, T* v, int64_t* ix, int64_t row) {
  cum_extreme_row_impl<T, IsMax, 32>(p, v, ix, row);
}
template <typename T, bool IsMax>
__attribute__((target("avx2"))) void cum_extreme_strip_avx2(const T* p, T* vo, int64_t* io, int64_t row,
                                                            int64_t inner, int64_t w) {
  cum_extreme_strip_impl<T, IsMax, 32>(p, vo, io, row, inner, w);
}
#endif

template <typename T, bool IsMax>
void cum_extreme_typed(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                       int64_t inner) {
  using op_t = opmath_t<T>;
  const T* base = in.data<T>();
  T* vo = values.data<T>();
  int64_t* io = indices.data<int64_t>();
  if (inner == 1) {
    for_rows(in.numel() / row, row, [&](int64_t i, bool) {
      const T* p = base + i * row;
      T* v = vo + i * row;
      int64_t* ix = io + i * row;
      if constexpr (kCumVec<T>) {
#ifdef MT_LOOPS_AVX2
        if (loops_use_avx2()) return cum_extreme_row_avx2<T, IsMax>(p, v, ix, row);
#endif
        return cum_extreme_row_impl<T, IsMax, 16>(p, v, ix, row);
      }
      op_t best = static_cast<op_t>(p[0]);
      int64_t at = 0;
      for (int64_t k = 0; k < row; ++k) {
        const op_t x = static_cast<op_t>(p[k]);
        if (reduce_rules::cum_replaces<IsMax>(best, x)) {
          best = x;
          at = k;
        }
        v[k] = static_cast<T>(best);
        ix[k] = at;
      }
    });
    return;
  }
  // along a middle dim: running extrema for a strip of columns, rows streamed in order
  for_strips(in.numel() / (row * inner), row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
    const int64_t off = oi * row * inner + j0;
    if constexpr (kCumVec<T> && (sizeof(T) == 4 || sizeof(T) == 8)) {
#ifdef MT_LOOPS_AVX2
      if (loops_use_avx2())
        return cum_extreme_strip_avx2<T, IsMax>(base + off, vo + off, io + off, row, inner, w);
#endif
      return cum_extreme_strip_impl<T, IsMax, 16>(base + off, vo + off, io + off, row, inner, w);
    }
    op_t best[kColumns];
    int64_t at[kColumns];
    for (int64_t j = 0; j < w; ++j) {
      best[j] = static_cast<op_t>(base[off + j]);
      at[j] = 0;
    }
    for (int64_t r = 0; r < row; ++r) {
      const T* pr = base + off + r * inner;
      T* vr = vo + off + r * inner;
      int64_t* ir = io + off + r * inner;
      for (int64_t j = 0; j < w; ++j) {
        const op_t x = static_cast<op_t>(pr[j]);
        if (reduce_rules::cum_replaces<IsMax>(best[j], x)) {
          best[j] = x;
          at[j] = r;
        }
        vr[j] = static_cast<T>(best[j]);
        ir[j] = at[j];
      }
    }
  });
}

void cum_extreme_cpu(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                     int64_t inner, bool is_max) {
  MT_DISPATCH_ALL_TYPES(in.dtype(), is_max ? "cummax_cpu" : "cummin_cpu", [&] {
    if (is_max)
      cum_extreme_typed<scalar_t, true>(values, indices, in, row, inner);
    else
      cum_extreme_typed<scalar_t, false>(values, indices, in, row, inner);
  });
}

}  // namespace

MT_REGISTER_KERNEL(scan_stub, CPU, &scan_cpu);
MT_REGISTER_KERNEL(cum_extreme_stub, CPU, &cum_extreme_cpu);

}  // namespace mt
