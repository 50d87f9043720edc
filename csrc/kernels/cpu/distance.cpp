// CPU kernel of pdist and its gradient (torch._pdist_forward / _pdist_backward; layout: ops/nn.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Exception.h"
#include "core/ScalarType.h"
#include "kernels/cpu/Loops.h"
#include "kernels/cpu/ParallelRows.h"
#include "kernels/cpu/VecUnary.h"
#include "ops/nn.h"

#ifdef MT_LOOPS_AVX2
// AVX2's float64 log and exp pieces for pdist's |d|^p (vec/avx2_math.h: static functions, compiled here for
// AVX2 and called only from the AVX2 function below, when the CPU runs it)
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include <immintrin.h>

#include "kernels/cpu/vec/avx2_math.h"
#pragma GCC pop_options
#endif

namespace mt {
namespace {

// PyTorch's kinds of p: the counting "norm", 1, under 2, 2, infinity, anything else.
enum class PKind { zero, one, lt_two, two, inf, general };

PKind p_kind(double p) {
  if (p == 0) return PKind::zero;
  if (p == 1) return PKind::one;
  if (std::isinf(p)) return PKind::inf;
  if (p == 2) return PKind::two;
  return p < 2 ? PKind::lt_two : PKind::general;
}

// The distance of two rows of m values, accumulated in T as PyTorch's kernel. The 2-norm and 1-norm sums go
// in kBytes vector lanes (the compiler leaves a plain float sum scalar).
template <typename T, int kBytes>
__attribute__((always_inline)) inline T row_distance(const T* a, const T* b, int64_t m, PKind k, T p) {
  constexpr int W = kBytes / static_cast<int>(sizeof(T));
  typedef T vec __attribute__((vector_size(kBytes)));
  if (k == PKind::two || k == PKind::one) {
    vec acc = {};
    int64_t c = 0;
    for (; c + W <= m; c += W) {
      vec x, y;
      std::memcpy(&x, a + c, kBytes);
      std::memcpy(&y, b + c, kBytes);
      const vec d = x - y;
      if (k == PKind::two)
        acc += d * d;
      else
        acc += d < 0 ? -d : d;
    }
    // the lanes folded as a tree (a chain of W adds waited on each other, a third of the pair's time)
    T l[W];
    std::memcpy(l, &acc, sizeof(l));
    for (int w = W / 2; w > 0; w /= 2)
      for (int j = 0; j < w; ++j) l[j] += l[j + w];
    T s = l[0];
    for (; c < m; ++c) {
      const T d = a[c] - b[c];
      s += k == PKind::two ? d * d : std::abs(d);
    }
    return k == PKind::two ? std::sqrt(s) : s;
  }
  if (k == PKind::inf) {
    T r = 0;
    for (int64_t c = 0; c < m; ++c) {
      const T d = std::abs(a[c] - b[c]);
      r = (d > r || d != d) ? d : r;
      if (r != r) break;  // NaN stays
    }
    return r;
  }
  T s = 0;
  if (k == PKind::zero) {
    // min(ceil(|d|), 1): a NaN difference counts as NaN
    for (int64_t c = 0; c < m; ++c) s += std::min(std::ceil(std::abs(a[c] - b[c])), T(1));
    return s;
  }
  // libm's pow per value was the whole cost (float64 at 0.5-0.9 of PyTorch's time, whose pow is SLEEF's
  // vector one); two common exponents need none: |d|^0.5 is the correctly rounded sqrt (pow is within an ulp
  // of it) and s^(1/0.5) = s^2 is s * s exactly, |d|^3 two products
  if (p == T(0.5)) {
    for (int64_t c = 0; c < m; ++c) s += std::sqrt(std::abs(a[c] - b[c]));
    return s * s;
  }
  if (p == T(3)) {
    for (int64_t c = 0; c < m; ++c) {
      const T d = std::abs(a[c] - b[c]);
      s += d * d * d;
    }
    return std::pow(s, T(1) / p);
  }
  for (int64_t c = 0; c < m; ++c) s += std::pow(std::abs(a[c] - b[c]), p);
  return std::pow(s, T(1) / p);
}

// Where pair (i, j), i < j, sits in the condensed output.
inline int64_t pair_index(int64_t i, int64_t j, int64_t n) {
  return i * (2 * n - i - 1) / 2 + (j - i - 1);
}

template <typename T>
T sign_of(T d) {
  return static_cast<T>((d > 0) - (d < 0));
}

// d dist / d x_i of one pair times its gradient g, with d = x_i - x_j (PyTorch's pdist_backward formulas).
template <typename T>
T pair_grad(T d, T g, T dist, PKind k, T p) {
  switch (k) {
    case PKind::zero:
      return 0;
    case PKind::one:
      return g * sign_of(d);
    case PKind::lt_two:
      return (dist == 0 || (d == 0 && p < 1))
                 ? T(0)
                 : sign_of(d) * std::pow(std::abs(d), p - 1) * g / std::pow(dist, p - 1);
    case PKind::two:
      return dist == 0 ? T(0) : g * d / dist;
    case PKind::inf:
      return g * sign_of(d) * static_cast<T>(std::abs(d) == dist);
    default:
      return dist == 0 ? T(0) : d * std::pow(std::abs(d), p - 2) * g / std::pow(dist, p - 1);
  }
}

// Row i's distances to rows j > i, in the baseline's 16-byte vectors or AVX2's 32 (no FMA). With xt (x
// transposed, m x n; the 1- and 2-norms of up to kColumnsAcross columns) a vector holds W pairs (i, j..j+W):
// contiguous loads down xt's columns, no horizontal sums, where a pair at a time folded its lanes (float32
// [256, 16] ran at half PyTorch's speed); each pair's sum then runs in column order.
constexpr int64_t kColumnsAcross = 64;

// W pairs' |d| or d^2 summed column by column. Plain code, no lambdas: a lambda inside an AVX2 function is
// compiled without AVX2, and its 32-byte vectors went through memory (the 1-norm ran at half the 2-norm's
// speed).
template <typename T, int kBytes, bool kTwo>
__attribute__((always_inline)) inline void pairs_finish(T __attribute__((vector_size(kBytes))) acc, T* out) {
  constexpr int W = kBytes / static_cast<int>(sizeof(T));
  if constexpr (kTwo) {
    T r[W];
    std::memcpy(r, &acc, sizeof(r));
    for (int l = 0; l < W; ++l) r[l] = std::sqrt(r[l]);
    std::memcpy(out, r, sizeof(r));
  } else {
    // the vector stored whole: copied out through an array, GCC kept the accumulators in memory
    std::memcpy(out, &acc, sizeof(acc));
  }
}

// Row i's pairs (i, j..j+W) for j from i + 1 while W fit; returns the first j left.
template <typename T, int kBytes, bool kTwo>
__attribute__((always_inline)) inline int64_t pairs_across(const T* xi, const T* xt, int64_t n, int64_t m,
                                                           int64_t i, T* oi) {
  constexpr int W = kBytes / static_cast<int>(sizeof(T));
  typedef T vec __attribute__((vector_size(kBytes)));
  // |d| as the sign bit cleared (a compare and a blend cost more)
  using bits_t = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  typedef bits_t ivec __attribute__((vector_size(kBytes)));
  const bits_t no_sign = std::numeric_limits<bits_t>::max();
#define MT_PDIST_TERM(a, d) \
  if constexpr (kTwo)       \
    a += (d) * (d);         \
  else                      \
    a += (vec)((ivec)(d) & no_sign);
  int64_t j = i + 1;
  // four blocks of W pairs at a time: one block's adds wait on each other (a column's add each 4 cycles)
  for (; j + 4 * W <= n; j += 4 * W) {
    vec a0 = {}, a1 = {}, a2 = {}, a3 = {};
    for (int64_t c = 0; c < m; ++c) {
      const T* col = xt + c * n + j;
      vec v0, v1, v2, v3;
      std::memcpy(&v0, col, kBytes);
      std::memcpy(&v1, col + W, kBytes);
      std::memcpy(&v2, col + 2 * W, kBytes);
      std::memcpy(&v3, col + 3 * W, kBytes);
      const vec d0 = v0 - xi[c], d1 = v1 - xi[c], d2 = v2 - xi[c], d3 = v3 - xi[c];
      MT_PDIST_TERM(a0, d0)
      MT_PDIST_TERM(a1, d1)
      MT_PDIST_TERM(a2, d2)
      MT_PDIST_TERM(a3, d3)
    }
    pairs_finish<T, kBytes, kTwo>(a0, oi + (j - i - 1));
    pairs_finish<T, kBytes, kTwo>(a1, oi + (j + W - i - 1));
    pairs_finish<T, kBytes, kTwo>(a2, oi + (j + 2 * W - i - 1));
    pairs_finish<T, kBytes, kTwo>(a3, oi + (j + 3 * W - i - 1));
  }
  for (; j + W <= n; j += W) {
    vec acc = {};
    for (int64_t c = 0; c < m; ++c) {
      vec v;
      std::memcpy(&v, xt + c * n + j, kBytes);
      const vec d = v - xi[c];
      MT_PDIST_TERM(acc, d)
    }
    pairs_finish<T, kBytes, kTwo>(acc, oi + (j - i - 1));
  }
#undef MT_PDIST_TERM
  return j;
}

template <typename T, int kBytes>
__attribute__((always_inline)) inline void pdist_row_impl(const T* x, const T* xt, int64_t n, int64_t m,
                                                          int64_t i, PKind k, T p, T* oi) {
  int64_t j = i + 1;
  if (xt) {
    if (k == PKind::two)
      j = pairs_across<T, kBytes, true>(x + i * m, xt, n, m, i, oi);
    else
      j = pairs_across<T, kBytes, false>(x + i * m, xt, n, m, i, oi);
  }
  for (; j < n; ++j) oi[j - i - 1] = row_distance<T, kBytes>(x + i * m, x + j * m, m, k, p);
}
#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) void pdist_row_avx2(const T* x, const T* xt, int64_t n, int64_t m, int64_t i,
                                                    PKind k, T p, T* oi) {
  pdist_row_impl<T, 32>(x, xt, n, m, i, k, p, oi);
}
#endif
template <typename T>
void pdist_row(const T* x, const T* xt, int64_t n, int64_t m, int64_t i, PKind k, T p, T* oi) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return pdist_row_avx2<T>(x, xt, n, m, i, k, p, oi);
#endif
  pdist_row_impl<T, 16>(x, xt, n, m, i, k, p, oi);
}

// Row i's gradient for the 1- and 2-norms over x transposed: gi[c] = sum_j sv[j] * (x_i[c] - x_j[c]) (2-norm,
// sv = g / dist) or sum_j sv[j] * sign(x_i[c] - x_j[c]) (1-norm, sv = g), a vector of W rows j at a time down
// xt's column c (row i's own sv is 0), where a pair at a time read and wrote gi for every j.
template <typename T, int kBytes, bool kTwo>
__attribute__((always_inline)) inline void grad_row_across(const T* xi, const T* xt, const T* sv, int64_t n,
                                                           int64_t m, T* gi) {
  constexpr int W = kBytes / static_cast<int>(sizeof(T));
  typedef T vec __attribute__((vector_size(kBytes)));
  for (int64_t c = 0; c < m; ++c) {
    const T* col = xt + c * n;
    const T xc = xi[c];
    vec a0 = {}, a1 = {};
    int64_t j = 0;
    for (; j + 2 * W <= n; j += 2 * W) {
      vec v0, v1, s0, s1;
      std::memcpy(&v0, col + j, kBytes);
      std::memcpy(&v1, col + j + W, kBytes);
      std::memcpy(&s0, sv + j, kBytes);
      std::memcpy(&s1, sv + j + W, kBytes);
      const vec d0 = xc - v0, d1 = xc - v1;
      if constexpr (kTwo) {
        a0 += s0 * d0;
        a1 += s1 * d1;
      } else {
        const vec z = {};
        a0 += d0 > 0 ? s0 : (d0 < 0 ? -s0 : z);
        a1 += d1 > 0 ? s1 : (d1 < 0 ? -s1 : z);
      }
    }
    a0 += a1;
    T r = 0;
    for (int l = 0; l < W; ++l) r += a0[l];
    for (; j < n; ++j) {
      const T d = xc - col[j];
      r += kTwo ? sv[j] * d : sv[j] * sign_of(d);
    }
    gi[c] = r;
  }
}
template <typename T, int kBytes>
__attribute__((always_inline)) inline void grad_row_impl(const T* xi, const T* xt, const T* sv, int64_t n,
                                                         int64_t m, T* gi, bool two) {
  if (two)
    grad_row_across<T, kBytes, true>(xi, xt, sv, n, m, gi);
  else
    grad_row_across<T, kBytes, false>(xi, xt, sv, n, m, gi);
}
#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) void grad_row_avx2(const T* xi, const T* xt, const T* sv, int64_t n,
                                                   int64_t m, T* gi, bool two) {
  grad_row_impl<T, 32>(xi, xt, sv, n, m, gi, two);
}
#endif
template <typename T>
void grad_row(const T* xi, const T* xt, const T* sv, int64_t n, int64_t m, T* gi, bool two) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return grad_row_avx2<T>(xi, xt, sv, n, m, gi, two);
#endif
  grad_row_impl<T, 16>(xi, xt, sv, n, m, gi, two);
}

#ifdef MT_LOOPS_AVX2
// x^y for x >= 0 (0, subnormal, inf and NaN included) and 0 < y <= 8, four lanes: log x as hi + lo
// (log2or10's split of fdlibm's log: f - f^2/2 and the rest, plus k ln2 by TwoSum), y log x as hi + lo (an
// FMA), and exp of that through exp_avx2_f64's reduction with the low part added to r. 1.09 ulp at worst over
// 4M values with y in [0.05, 8] and |y log x| up to 700 against long double (libm's pow: 0.52; PyTorch's
// SLEEF pow: 1.0); the low part's error grows with y (7 ulp at y = 100), so a larger p keeps libm's pow.
__attribute__((target("avx2,fma"))) inline __m256d pow_nonneg_avx2(__m256d x, __m256d y) {
  __m256d k, hi, lo;
  log_hi_lo_avx2_f64(x, k, hi, lo);  // avx2_math.h: log x = k ln2 + hi + lo
  // + k ln2 (ln2_hi's low 32 bits are zero: k ln2_hi is exact), TwoSum(k ln2_hi, hi), renormalized
  const __m256d kh = k * 6.93147180369123816490e-01;
  const __m256d kl = k * 1.90821492927058770002e-10;
  const __m256d w = kh + hi;
  const __m256d bv = w - kh, av = w - bv;
  const __m256d l = ((kh - av) + (hi - bv)) + (kl + lo);
  const __m256d lh = w + l;
  const __m256d ll = l - (lh - w);
  const __m256d eh = y * lh;
  const __m256d el = _mm256_fmadd_pd(y, ll, _mm256_fmsub_pd(y, lh, eh));
  // exp(eh + el), eh clamped to [-746, 746] as exp_avx2_f64's argument (0 and inf beyond)
  __m256d e =
      _mm256_blendv_pd(eh, _mm256_set1_pd(746.0), _mm256_cmp_pd(eh, _mm256_set1_pd(746.0), _CMP_GT_OQ));
  e = _mm256_blendv_pd(e, _mm256_set1_pd(-746.0), _mm256_cmp_pd(e, _mm256_set1_pd(-746.0), _CMP_LT_OQ));
  const __m256d shift = _mm256_set1_pd(422212465065984.0);  // 1.5 * 2^48: k a multiple of 1/16
  const __m256d t = _mm256_fmadd_pd(e, _mm256_set1_pd(1.4426950408889634), shift);
  const __m256d kk = _mm256_sub_pd(t, shift);
  const __m256d rh = _mm256_fnmadd_pd(kk, _mm256_set1_pd(0.6931471805599453), e);
  const __m256d r = _mm256_fnmadd_pd(kk, _mm256_set1_pd(2.3190468138462996e-17), rh) + el;
  const __m256i m16 = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(shift));
  const __m256i j = _mm256_and_si256(m16, _mm256_set1_epi64x(15));
  const __m256d q = expm1_core_avx2(r);
  const __m256d th = _mm256_i64gather_pd(kExp2jHi, j, 8);
  __m256d res = scale_by_m_avx2(th + _mm256_fmadd_pd(th, q, _mm256_i64gather_pd(kExp2jLo, j, 8)), m16);
  const __m256d inf = _mm256_set1_pd(__builtin_inf());
  res = _mm256_blendv_pd(res, _mm256_setzero_pd(), _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_EQ_OQ));
  res = _mm256_blendv_pd(res, inf, _mm256_cmp_pd(x, inf, _CMP_EQ_OQ));
  return _mm256_blendv_pd(res, x, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}
// pow_row's signature (b one value: the exponent) over pow_nonneg_avx2; the tail through a padded vector
__attribute__((target("avx2,fma"))) void pow_nonneg_row_avx2(double* out, const double* a, int64_t,
                                                             const double* b, int64_t, int64_t n) {
  const __m256d y = _mm256_set1_pd(*b);
  int64_t c = 0;
  for (; c + 4 <= n; c += 4) _mm256_storeu_pd(out + c, pow_nonneg_avx2(_mm256_loadu_pd(a + c), y));
  if (c < n) {
    double buf[4] = {1.0, 1.0, 1.0, 1.0};
    for (int64_t l = 0; l < n - c; ++l) buf[l] = a[c + l];
    _mm256_storeu_pd(buf, pow_nonneg_avx2(_mm256_loadu_pd(buf), y));
    for (int64_t l = 0; l < n - c; ++l) out[c + l] = buf[l];
  }
}
// float32 x^y for x >= 0 (0, subnormal, inf and NaN included) and 0 < y <= 16, eight lanes as two halves in
// double, which a float result needs to ~1e-9 only: log x = e ln2 + log m by f64_series.h's split and atanh
// series (5e-11 relative of log m, |log m| <= 0.35), y log x rounded once (clamped to [-200, 200]: beyond,
// the float result is 0 or inf whatever the double's), exp of it as 2^k e^r, k = rint(t / ln2), |r| <= ln2/2,
// by its Taylor series to r^10 (1.1e-13), 2^k put into the exponent field (|k| <= 289: a normal double); one
// rounding to float. Within 0.5 + 0.003 ulp of the exact power for y <= 16 (y 1.7e-11 of the result at
// worst); libm's powf per value was the whole cost (0.97-0.99 of PyTorch's SLEEF powf), and AVX2's float32
// pow row (through double with a full-precision log) measured slower than it.
__attribute__((target("avx2,fma"))) inline __m256d powf_nonneg_half_avx2(__m256d x, __m256d y) {
  __m256d e;
  const __m256d m = log_split_d(_mm256_max_pd(x, _mm256_set1_pd(0x1p-1000)), e);
  const __m256d lx = _mm256_fmadd_pd(e, _mm256_set1_pd(0.6931471805599453), log_m_series_d<6>(m));
  const __m256d t = _mm256_min_pd(_mm256_max_pd(y * lx, _mm256_set1_pd(-200.0)), _mm256_set1_pd(200.0));
  const __m256d shift = _mm256_set1_pd(6755399441055744.0);  // 1.5 * 2^52: rint, k in the low bits
  const __m256d kt = _mm256_fmadd_pd(t, _mm256_set1_pd(1.4426950408889634), shift);
  const __m256d k = kt - shift;
  __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(0.6931471805599453), t);
  r = _mm256_fnmadd_pd(k, _mm256_set1_pd(2.3190468138462996e-17), r);
  __m256d q = _mm256_set1_pd(1.0 / 3628800);
  const double cs[] = {1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120,
                       1.0 / 24,     1.0 / 6,     0.5,        1.0,       1.0};
  for (double c : cs) q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(c));
  const __m256i kb =
      _mm256_slli_epi64(_mm256_sub_epi64(_mm256_castpd_si256(kt), _mm256_castpd_si256(shift)), 52);
  __m256d res = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(q), kb));
  const __m256d inf = _mm256_set1_pd(__builtin_inf());
  res = _mm256_blendv_pd(res, _mm256_setzero_pd(), _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_EQ_OQ));
  res = _mm256_blendv_pd(res, inf, _mm256_cmp_pd(x, inf, _CMP_EQ_OQ));
  return _mm256_blendv_pd(res, x, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}
__attribute__((target("avx2,fma"))) inline void powf_nonneg_x8_avx2(float* out, const float* a, __m256d y) {
  const __m256 x = _mm256_loadu_ps(a);
  const __m128 lo = _mm256_cvtpd_ps(powf_nonneg_half_avx2(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), y));
  const __m128 hi = _mm256_cvtpd_ps(powf_nonneg_half_avx2(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), y));
  _mm256_storeu_ps(out, _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1));
}
// pow_row's signature over powf_nonneg_x8_avx2; the tail through a padded vector
__attribute__((target("avx2,fma"))) void powf_nonneg_row_avx2(float* out, const float* a, int64_t,
                                                              const float* b, int64_t, int64_t n) {
  const __m256d y = _mm256_set1_pd(static_cast<double>(*b));
  int64_t c = 0;
  for (; c + 8 <= n; c += 8) powf_nonneg_x8_avx2(out + c, a + c, y);
  if (c < n) {
    float buf[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (int64_t l = 0; l < n - c; ++l) buf[l] = a[c + l];
    powf_nonneg_x8_avx2(buf, buf, y);
    for (int64_t l = 0; l < n - c; ++l) out[c + l] = buf[l];
  }
}
#endif

// A vector pow row for pdist's |d|^p, or nullptr (libm's pow one value at a time, which ran float64 at 0.86
// of PyTorch's time, whose pow is SLEEF's vector one): the CPU table's (vec/unary_impl.h: ours on AVX-512;
// float64 on AVX2 only with SLEEF), else on AVX2 pow_nonneg_row_avx2 and powf_nonneg_row_avx2 above.
template <typename T>
using PowRow = void (*)(T*, const T*, int64_t, const T*, int64_t, int64_t);
template <typename T>
PowRow<T> table_pow(T p) {
  const vec::Table* t = vec::unary_table();
  if (!t) return nullptr;
  if constexpr (std::is_same_v<T, double>) {
#ifdef MT_LOOPS_AVX2
    // AVX2 without SLEEF has no float64 pow row: pdist's own (d >= 0, p > 0)
    if (!t->pow_f64 && p <= 8) return &pow_nonneg_row_avx2;
#endif
    return t->pow_f64;
  } else {
    // AVX2's float32 row (through double, f32_via_f64.h) measured 0.9x libm's powf here: AVX-512's only; on
    // AVX2 pdist's own (d >= 0, p > 0)
    if (std::strcmp(vec::cpu_capability(), "AVX512") == 0) return t->pow_f32;
#ifdef MT_LOOPS_AVX2
    if (p <= 16 && loops_use_avx2()) return &powf_nonneg_row_avx2;
#endif
    return nullptr;
  }
}

// The distances with a general p (row_distance's last loop): each pair's m values |d| through pow_row at
// once, summed in column order as row_distance sums them.
template <typename T>
void pdist_pow_rows(const T* x, int64_t n, int64_t m, T p, PowRow<T> pw, T* o) {
  parallel_rows(n, n * m / 2 + 1, [&](int64_t b, int64_t e) {
    std::vector<T> d(static_cast<size_t>(m)), q(static_cast<size_t>(m));
    for (int64_t i = b; i < e; ++i) {
      const T* xi = x + i * m;
      T* oi = o + (i + 1 < n ? pair_index(i, i + 1, n) : 0);
      for (int64_t j = i + 1; j < n; ++j) {
        const T* xj = x + j * m;
        for (int64_t c = 0; c < m; ++c) d[c] = std::abs(xi[c] - xj[c]);
        pw(q.data(), d.data(), 1, &p, 0, m);
        T s = 0;
        for (int64_t c = 0; c < m; ++c) s += q[c];
        oi[j - i - 1] = std::pow(s, T(1) / p);
      }
    }
  });
}

template <typename T>
void pdist_typed(const Tensor& out, const Tensor& grad, const Tensor& xt, const Tensor& dist, double pd) {
  const T* x = xt.data<T>();
  const int64_t n = xt.sizes()[0], m = xt.sizes()[1];
  const PKind k = p_kind(pd);
  const T p = static_cast<T>(pd);
  T* o = out.data<T>();
  if (!grad.defined()) {
    if ((k == PKind::general || k == PKind::lt_two) && p != T(0.5) && p != T(3)) {
      if (PowRow<T> pw = table_pow<T>(p)) return pdist_pow_rows<T>(x, n, m, p, pw, o);
    }
    std::vector<T> xt;
    if ((k == PKind::two || k == PKind::one) && m <= kColumnsAcross) {
      xt.resize(static_cast<size_t>(n * m));
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < m; ++c) xt[c * n + r] = x[r * m + c];
    }
    const T* xtp = xt.empty() ? nullptr : xt.data();
    // row i's pairs (i, j > i) are contiguous in the output
    parallel_rows(n, n * m / 2 + 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        T* oi = o + (i + 1 < n ? pair_index(i, i + 1, n) : 0);
        pdist_row<T>(x, xtp, n, m, i, k, p, oi);
      }
    });
    return;
  }
  // each row's gradient sums its n - 1 pairs (the formulas are odd in d: pair (j, i) adds the same term with
  // d = x_i - x_j), so rows are independent: no atomics, the same bits on any thread count
  const T* g = grad.data<T>();
  const T* dd = dist.data<T>();
  if ((k == PKind::two || k == PKind::one) && m <= kColumnsAcross) {
    std::vector<T> xt(static_cast<size_t>(n * m));
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < m; ++c) xt[c * n + r] = x[r * m + c];
    parallel_rows(n, n * m, [&](int64_t b, int64_t e) {
      std::vector<T> sv(static_cast<size_t>(n));
      for (int64_t i = b; i < e; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          if (j == i) {
            sv[j] = 0;
            continue;
          }
          const int64_t q = i < j ? pair_index(i, j, n) : pair_index(j, i, n);
          sv[j] = k == PKind::one ? g[q] : (dd[q] == 0 ? T(0) : g[q] / dd[q]);
        }
        grad_row<T>(x + i * m, xt.data(), sv.data(), n, m, o + i * m, k == PKind::two);
      }
    });
    return;
  }
  parallel_rows(n, n * m, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      T* gi = o + i * m;
      for (int64_t c = 0; c < m; ++c) gi[c] = 0;
      if (k == PKind::zero) continue;
      for (int64_t j = 0; j < n; ++j) {
        if (j == i) continue;
        const int64_t q = i < j ? pair_index(i, j, n) : pair_index(j, i, n);
        const T gq = g[q], dq = dd[q];
        const T* xi = x + i * m;
        const T* xj = x + j * m;
        if (k == PKind::two) {
          if (dq == 0) continue;
          const T s = gq / dq;
          for (int64_t c = 0; c < m; ++c) gi[c] += (xi[c] - xj[c]) * s;
        } else {
          for (int64_t c = 0; c < m; ++c) gi[c] += pair_grad(xi[c] - xj[c], gq, dq, k, p);
        }
      }
    }
  });
}

void pdist_cpu(const Tensor& out, const Tensor& grad, const Tensor& x, const Tensor& dist, double p) {
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), grad.defined() ? "_pdist_backward" : "_pdist_forward", [&] {
    if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>)
      pdist_typed<scalar_t>(out, grad, x, dist, p);
    else
      MT_INTERNAL_ASSERT(false, "pdist_cpu takes float and double");
  });
}

}  // namespace

MT_REGISTER_KERNEL(pdist_stub, CPU, &pdist_cpu);

}  // namespace mt
