// polygamma(n, x) in double lanes, written once over GCC vector types so the AVX2 table (four lanes,
// gamma_f32.h) and the baseline loop (two SSE2 lanes, kernels/cpu/elementwise.cpp, at
// MINITORCH_CPU_CAPABILITY=default or on a CPU without AVX2) run the same arithmetic: float32 orders 1 to
// kPolygammaMaxOrder (rounded to float once) and float64 trigamma (and gamma_f32.h's lgamma and digamma at
// four and eight lanes). LaneOps<V> supplies what plain vector
// arithmetic lacks (ceil, round to nearest, "any lane set"): intrinsics where the instruction set has them.
#pragma once

#include <cstdint>

namespace {

// keyed by the number of double lanes (a template argument of __m256d's type would drop its attributes)
template <int N>
struct LaneOpsN;
template <typename V>
using LaneOps = LaneOpsN<static_cast<int>(sizeof(V) / sizeof(double))>;

#ifdef __AVX__
template <>
struct LaneOpsN<4> {
  static __m256d ceil(__m256d x) { return _mm256_ceil_pd(x); }
  static __m256d nearest(__m256d x) {
    return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  template <typename M>
  static bool any(M m) {
    return _mm256_movemask_pd(reinterpret_cast<__m256d>(m)) != 0;
  }
};
#endif
#ifdef __AVX512F__
template <>
struct LaneOpsN<8> {
  static __m512d ceil(__m512d x) {
    return _mm512_roundscale_pd(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  }
  static __m512d nearest(__m512d x) {
    return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  template <typename M>
  static bool any(M m) {
    const __m512i b = reinterpret_cast<__m512i>(m);
    return _mm512_test_epi64_mask(b, b) != 0;
  }
};
#endif

// Two doubles (SSE2, every x86-64; elsewhere GCC lowers them). Rounding by adding and subtracting 2^52 with
// the sign of x is exact below 2^52 in magnitude, and from 2^52 up every double is an integer already.
typedef double V2d __attribute__((vector_size(16)));
template <>
struct LaneOpsN<2> {
  static V2d nearest(V2d x) {
    const V2d ax = x < 0.0 ? -x : x;
    const V2d r = (ax + 4503599627370496.0) - 4503599627370496.0;
    return ax < 4503599627370496.0 ? (x < 0.0 ? -r : r) : x;
  }
  static V2d ceil(V2d x) {
    const V2d r = nearest(x);
    return r < x ? r + 1.0 : r;
  }
  template <typename M>
  static bool any(M m) {
    return (m[0] | m[1]) != 0;
  }
};

// sin(pi r) for |r| <= 1/2 (r exact: x minus its nearest integer): the Taylor series to r^23, so sin(pi x)
// never takes a rounded pi x
template <typename V>
static inline V sinpi_v(V r) {
  const V z = r * r;
  V p = V{} - 1.0518471716932065e-11;
  p = p * z + 5.392664662608129e-10;
  p = p * z - 2.2948428997269873e-08;
  p = p * z + 7.952054001475513e-07;
  p = p * z - 2.1915353447830217e-05;
  p = p * z + 0.00046630280576761255;
  p = p * z - 0.0073704309457143504;
  p = p * z + 0.08214588661112823;
  p = p * z - 0.5992645293207921;
  p = p * z + 2.5501640398773455;
  p = p * z - 5.16771278004997;
  p = p * z + 3.141592653589793;
  return r * p;
}

// polygamma(n, x), 1 <= n <= kPolygammaMaxOrder, for float x in double (the polygamma row's lanes, which the
// caller has limited to finite x, and for n >= 2 to x > 0): n! times the Hurwitz zeta(n + 1, x) as the sum of
// 1 / (x + k)^(n+1) over the steps up to z = x + c >= 8 (gamma_f32.h's gamma_shift tree over eight factors,
// one division) plus the asymptotic series of zeta(n + 1, z) n! = (n-1)! / z^n + n! / (2 z^(n+1)) + sum_j
// n! B_2j / (2j)! (n+1)...(n+2j-1) / z^(n+2j) to j = 9 (what it leaves at z = 8: 4e-16 relative for n = 1,
// 5e-13 for n = 4, 1.3e-11 for n = 6, all far below a float's 6e-8), sign (-1)^(n+1). Every term has the
// result's sign: no cancellation, so the double result is within ~1e-15 of itself and rounds to float once.
// n = 1 and x < 0 by trigamma's reflection psi1(x) = pi^2 / sin^2(pi r) - psi1(1 - x), r = x minus its
// nearest integer (exact), as functors.h's trigamma_double; the poles x <= 0 integer give +inf there.
struct PolygammaCoefs {
  int n;
  double fact, lead, half;  // n!, (n-1)!, n! / 2
  double a[9];              // the series' coefficients, j = 9 first (Horner's order)
};
static inline PolygammaCoefs polygamma_coefs(int n) {
  static const double b2j[9] = {1.0 / 6,       -1.0 / 30, 1.0 / 42,      -1.0 / 30,    5.0 / 66,
                                -691.0 / 2730, 7.0 / 6,   -3617.0 / 510, 43867.0 / 798};
  PolygammaCoefs c;
  c.n = n;
  c.lead = 1.0;
  for (int k = 2; k < n; ++k) c.lead *= k;
  c.fact = c.lead * n;
  c.half = 0.5 * c.fact;
  // n! B_2j / (2j)! prod_{i=1}^{2j-1} (n + i), the ratio of rising factorial to (2j)! built up term by term
  double ratio = 1.0;  // (n+1)...(n+2j-1) / (2j)!
  for (int j = 1; j <= 9; ++j) {
    ratio *= (j == 1 ? 1.0 : (n + 2 * j - 2.0) * (n + 2 * j - 1.0)) / ((2.0 * j - 1.0) * (2.0 * j));
    if (j == 1) ratio *= n + 1.0;
    c.a[9 - j] = c.fact * b2j[j - 1] * ratio;
  }
  return c;
}
template <typename V>
static inline V polygamma_lanes_f32(V x, const PolygammaCoefs& pc) {
  typedef LaneOps<V> L;
  const auto neg = x < 0.0;  // only n = 1 lanes come here negative
  const V z0 = neg ? 1.0 - x : x;
  const V c8 = L::ceil(8.0 - z0);
  const V c = c8 < 0.0 ? V{} : c8;
  V g[8], nm[8];
  for (int k = 0; k < 8; ++k) {
    const auto step = double(k) < c;
    const V f = step ? z0 + double(k) : V{} + 1.0;
    V p = f * f;
    for (int i = 1; i < pc.n; ++i) p = p * f;
    g[k] = p;
    nm[k] = step ? V{} + 1.0 : V{};
  }
  for (int w = 1; w < 8; w *= 2) {
    for (int k = 0; k < 8; k += 2 * w) {
      nm[k] = nm[k] * g[k + w] + nm[k + w] * g[k];
      g[k] = g[k] * g[k + w];
    }
  }
  const V q = 1.0 / (z0 + c), q2 = q * q;
  V ser = V{} + pc.a[0];
  for (int j = 1; j < 9; ++j) ser = ser * q2 + pc.a[j];
  V qn = q;
  for (int i = 1; i < pc.n; ++i) qn = qn * q;
  V r = pc.fact * (nm[0] / g[0]) + qn * (pc.lead + q * (pc.half + q * ser));
  if (L::any(neg)) {
    const V sp = sinpi_v(x - L::nearest(x));
    r = neg ? 3.141592653589793 * 3.141592653589793 / (sp * sp) - r : r;
    r = (x <= 0.0) & (x == L::nearest(x)) ? V{} + __builtin_inf() : r;
  }
  r = x == 0.0 ? V{} + __builtin_inf() : r;
  return (pc.n & 1) ? r : -r;
}

// float32 trigamma (order 1) for finite x in double: polygamma_lanes_f32's method with the steps up to z >= 6
// and the series to B_12, which is all a float needs (the next term, B_14 / z^14 of the result, is 1.5e-11 of
// it at z = 6: 0.00025 ulp), six factors and six terms fewer: 0.8 of PyTorch's float speed at the baseline
// with SSE2 (0.56 with the general orders' eight steps and series to B_18), 25% faster on AVX2 too.
template <typename V>
static inline V trigamma_lanes_f32(V x) {
  typedef LaneOps<V> L;
  const auto neg = x < 0.0;
  const V z0 = neg ? 1.0 - x : x;
  const V c6 = L::ceil(6.0 - z0);
  const V c = c6 < 0.0 ? V{} : c6;
  V g[6], nm[6];
  for (int k = 0; k < 6; ++k) {
    const auto step = double(k) < c;
    const V f = step ? z0 + double(k) : V{} + 1.0;
    g[k] = f * f;
    nm[k] = step ? V{} + 1.0 : V{};
  }
  // the six reciprocal squares as one fraction: pairs, then (01)(23), then (45)
  for (int k = 0; k < 6; k += 2) {
    nm[k] = nm[k] * g[k + 1] + nm[k + 1] * g[k];
    g[k] = g[k] * g[k + 1];
  }
  for (int k = 2; k < 6; k += 2) {
    nm[0] = nm[0] * g[k] + nm[k] * g[0];
    g[0] = g[0] * g[k];
  }
  const V q = 1.0 / (z0 + c), q2 = q * q;
  V b = V{} - 691.0 / 2730;
  b = b * q2 + 5.0 / 66;
  b = b * q2 - 1.0 / 30;
  b = b * q2 + 1.0 / 42;
  b = b * q2 - 1.0 / 30;
  b = b * q2 + 1.0 / 6;
  V r = nm[0] / g[0] + q * (b * q2 + 1.0) + 0.5 * q2;
  if (L::any(neg)) {
    const V sp = sinpi_v(x - L::nearest(x));
    r = neg ? 3.141592653589793 * 3.141592653589793 / (sp * sp) - r : r;
    r = (x <= 0.0) & (x == L::nearest(x)) ? V{} + __builtin_inf() : r;
  }
  return x == 0.0 ? V{} + __builtin_inf() : r;
}
// The float32 orders: trigamma's own lanes for n = 1, the general ones above
template <typename V>
static inline V polygamma_lanes_f32_any(V x, const PolygammaCoefs& pc) {
  return pc.n == 1 ? trigamma_lanes_f32(x) : polygamma_lanes_f32(x, pc);
}

// float64 trigamma for finite x, functors.h's trigamma_double in lanes with its accuracy (tests/ops/
// elementwise/test_special_f64_kernels.py holds both to 5 ulp of mpmath): x < 0 by the reflection
// pi^2 / sin^2(pi r) - psi1(1 - x), r = x - its nearest integer (exact), +inf at the poles; then the sum of
// 1 / (z0 + k)^2 over the c = ceil(8 - z0) steps up to z = z0 + c >= 8, one division per term (the float32
// row's one fraction for all eight would leave several ulp of double), added from the smallest up onto the
// asymptotic series 1/z + 1/(2z^2) + sum_k B_2k / z^(2k+1) to B_22 (the next term is 2e-17 of the result at z
// = 8). The scalar loop's steps up to 10, a division each, ran at 0.7 of PyTorch's float64 speed (its series
// stops at B_6, 1e-8 relative).
template <typename V>
static inline V trigamma_lanes_f64(V x) {
  typedef LaneOps<V> L;
  const auto neg = x < 0.0;
  const V z0 = neg ? 1.0 - x : x;
  const V c8 = L::ceil(8.0 - z0);
  const V c = c8 < 0.0 ? V{} : c8;
  const V z = z0 + c, q = 1.0 / z, q2 = q * q;
  V b = V{} + 854513.0 / 138;
  b = b * q2 - 174611.0 / 330;
  b = b * q2 + 43867.0 / 798;
  b = b * q2 - 3617.0 / 510;
  b = b * q2 + 7.0 / 6;
  b = b * q2 - 691.0 / 2730;
  b = b * q2 + 5.0 / 66;
  b = b * q2 - 1.0 / 30;
  b = b * q2 + 1.0 / 42;
  b = b * q2 - 1.0 / 30;
  b = b * q2 + 1.0 / 6;
  V r = q * (b * q2 + 1.0) + 0.5 * q2;
  for (int k = 7; k >= 0; --k) {
    const auto step = double(k) < c;
    const V f = z0 + double(k);
    r = step ? r + 1.0 / (f * f) : r;
  }
  if (L::any(neg)) {
    const V sp = sinpi_v(x - L::nearest(x));
    r = neg ? 3.141592653589793 * 3.141592653589793 / (sp * sp) - r : r;
    r = (x <= 0.0) & (x == L::nearest(x)) ? V{} + __builtin_inf() : r;
  }
  return x == 0.0 ? V{} + __builtin_inf() : r;
}

// A dense row of polygamma through V lanes: `lanes(v)` serves the finite lanes (and, for float32 orders n >=
// 2, the positive ones), `scalar(order, x)` (the baseline-compiled functor: nothing compiled for AVX serves
// baseline code) every other lane; the tail through a padded block, so every position gets the same bits.
template <typename V, typename T, typename Lanes>
static inline void polygamma_lanes_row(T* out, const T* in, int64_t len, int order, bool positive_only,
                                       double (*scalar)(int, double), Lanes lanes) {
  constexpr int kL = sizeof(V) / sizeof(double);
  auto block = [&](T* o, const T* p) {
    V x = {};
    for (int j = 0; j < kL; ++j) x[j] = static_cast<double>(p[j]);
    const V ax = x < 0.0 ? -x : x;
    auto ok = ax < __builtin_inf();
    if (positive_only) ok = ok & (x > 0.0);
    const V r = lanes(ok ? x : V{} + 1.0);
    if (!LaneOps<V>::any(~ok)) {
      for (int j = 0; j < kL; ++j) o[j] = static_cast<T>(r[j]);
      return;
    }
    for (int j = 0; j < kL; ++j) o[j] = ok[j] ? static_cast<T>(r[j]) : static_cast<T>(scalar(order, p[j]));
  };
  int64_t i = 0;
  for (; i + kL <= len; i += kL) block(out + i, in + i);
  if (i < len) {
    T buf[kL];
    for (int j = 0; j < kL; ++j) buf[j] = i + j < len ? in[i + j] : T(1);
    block(buf, buf);
    for (int64_t j = 0; j < len - i; ++j) out[i + j] = buf[j];
  }
}

}  // namespace
