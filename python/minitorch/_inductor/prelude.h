// Included at the top of every generated kernel file: vectorizable float32 math and the thread splitter.
// The float32 functions are branch-free (selects, bit casts, polynomials) so gcc/clang vectorize the loops that
// call them; float64 uses the std:: functions. Accuracy: exp/log within 2 ulp, tanh/erf within a few ulp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

namespace mt {

static inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
static inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// exp: x = k ln2 + r with the two-part ln2 (Cody-Waite), e^r by a degree-6 polynomial (Cephes' expf
// coefficients), 2^k applied as two normal factors so results near overflow and subnormal results are exact.
static inline float exp(float x) {
  const float hi = 88.72283905f, lo = -103.972084f;
  float xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;  // NaN passes both selects unchanged
  float fk = std::floor(xc * 1.44269504088896341f + 0.5f);
  float r = xc - fk * 0.693359375f + fk * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * (r * r) + r + 1.0f;
  int32_t k = static_cast<int32_t>(fk);
  int32_t k1 = k < -125 ? -125 : (k > 127 ? 127 : k);
  float s1 = bits_to_float(static_cast<uint32_t>(k1 + 127) << 23);
  float s2 = bits_to_float(static_cast<uint32_t>(k - k1 + 127) << 23);
  float v = y * s1 * s2;
  v = x > hi ? std::numeric_limits<float>::infinity() : v;
  return x < lo ? 0.0f : v;
}
static inline double exp(double x) { return std::exp(x); }

// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) by Cephes' logf polynomial in m - 1.
static inline float log(float x) {
  const bool sub = x < 1.17549435e-38f;  // subnormal (or zero/negative): scale into the normal range first
  float xs = sub ? x * 8388608.0f : x;
  uint32_t u = float_to_bits(xs);
  int32_t e = static_cast<int32_t>((u >> 23) & 0xff) - 126 - (sub ? 23 : 0);
  float m = bits_to_float((u & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  const bool lowm = m < 0.707106781186547524f;
  e = lowm ? e - 1 : e;
  m = lowm ? m + m - 1.0f : m - 1.0f;
  float z = m * m;
  float p = 7.0376836292e-2f;
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  float fe = static_cast<float>(e);
  float y = p * m * z + fe * -2.12194440e-4f - 0.5f * z;
  float v = m + y + fe * 0.693359375f;
  v = x == std::numeric_limits<float>::infinity() ? x : v;
  v = x == 0.0f ? -std::numeric_limits<float>::infinity() : v;
  return (x < 0.0f || x != x) ? std::numeric_limits<float>::quiet_NaN() : v;
}
static inline double log(double x) { return std::log(x); }

// tanh: an odd polynomial below |x| = 0.625 (Cephes' tanhf), 1 - 2 / (e^{2|x|} + 1) above, sign restored.
static inline float tanh(float x) {
  float ax = std::fabs(x);
  float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  float small = p * z * x + x;
  float big = 1.0f - 2.0f / (mt::exp(2.0f * ax) + 1.0f);
  big = std::copysign(big, x);
  return ax < 0.625f ? small : big;
}
static inline double tanh(double x) { return std::tanh(x); }

// erf on |x| < 0.5: x P(x^2) / Q(x^2) (the rational approximation Eigen uses for float); beyond, 1 - erfc(|x|)
// with erfc from Numerical Recipes' Chebyshev fit (relative error 1.2e-7), its e^{-x^2} taken as e^{-hi} e^{-lo}
// where hi + lo = x^2 exactly (fma), so the tail keeps a few ulp of relative accuracy.
static inline float erf_small(float x) {
  float x2 = x * x;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 - 2.10102402082508e-06f;
  p = p * x2 - 5.69250639462346e-05f;
  p = p * x2 - 7.34990630326855e-04f;
  p = p * x2 - 2.95459980854025e-03f;
  p = p * x2 - 1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * x2 - 2.13374055278905e-04f;
  q = q * x2 - 1.68282697438203e-03f;
  q = q * x2 - 7.37332916720468e-03f;
  q = q * x2 - 1.42647390514189e-02f;
  return x * p / q;
}
static inline float erfc_pos(float z) {  // z >= 0 (NaN passes)
  z = z > 12.0f ? 12.0f : z;  // erfc(12) is far below the smallest float; z * z must not overflow
  float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  float hi = z * z, lo = std::fma(z, z, -hi);
  return t * mt::exp(-hi) * mt::exp(t * p - 1.26551223f) * (1.0f - lo);
}
static inline float erf(float x) {
  float ax = std::fabs(x);
  float big = std::copysign(1.0f - erfc_pos(ax), x);
  return ax < 0.5f ? erf_small(x) : big;
}
static inline double erf(double x) { return std::erf(x); }

template <class T>
static inline T sigmoid(T x) {
  return T(1) / (T(1) + mt::exp(-x));
}

// gelu(x) = x (1 + erf(x / sqrt 2)) / 2, with 1 + erf(z) taken as erfc(-z) for z below -0.5 so the negative tail
// keeps its relative accuracy instead of cancelling
static inline float gelu(float x) {
  float z = x * 0.70710678118654752f, az = std::fabs(z);
  float c = erfc_pos(az);
  float one_plus = az < 0.5f ? 1.0f + erf_small(z) : (z < 0.0f ? c : 2.0f - c);
  return 0.5f * x * one_plus;
}
static inline double gelu(double x) { return 0.5 * x * std::erfc(-x * 0.70710678118654752440); }

template <class T>
static inline T gelu_tanh(T x) {
  const T beta = T(0.79788456080286535588), kappa = T(0.044715);
  return T(0.5) * x * (T(1) + mt::tanh(beta * (x + kappa * x * x * x)));
}

template <class T>
static inline T relu(T x) {
  return x <= T(0) ? T(0) : x;  // NaN stays NaN, -0 becomes 0
}

template <class T>
static inline T maximum(T a, T b) {
  return (a != a) ? a : (a > b ? a : b);  // NaN in either operand wins, as PyTorch's
}
template <class T>
static inline T minimum(T a, T b) {
  return (a != a) ? a : (a < b ? a : b);
}
template <class T>
static inline T clamp_lo(T x, T lo) {
  return x < lo ? lo : x;  // NaN passes
}
template <class T>
static inline T clamp_hi(T x, T hi) {
  return x > hi ? hi : x;
}

// [0, n) cut into at most nthreads chunks of at least grain items; f(begin, end) runs on each, the first
// chunk on the calling thread. Threads are started per call (a few tens of microseconds), so only work of
// grain items or more is split.
template <class F>
static void parallel(int64_t n, int64_t grain, int nthreads, const F& f) {
  if (n <= 0) return;
  int64_t chunks = grain > 0 ? (n + grain - 1) / grain : 1;
  if (chunks > nthreads) chunks = nthreads;
  if (chunks <= 1) {
    f(int64_t(0), n);
    return;
  }
  int64_t step = (n + chunks - 1) / chunks;
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(chunks - 1));
  for (int64_t c = 1; c < chunks; ++c) {
    int64_t b = c * step, e = std::min(n, b + step);
    if (b < e) pool.emplace_back([&f, b, e] { f(b, e); });
  }
  f(int64_t(0), std::min(n, step));
  for (auto& t : pool) t.join();
}

}  // namespace mt
