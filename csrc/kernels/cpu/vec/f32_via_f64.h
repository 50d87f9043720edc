// float32 math computed in double over GCC vector types for the AVX2 table (included only by
// vec/unary_impl.h, which defines VF/VD): f32_via_f64, which erf's small-argument branch also uses, sin,
// cos, atan, atan2, fmod, remainder and erfinv, expm1 (AVX-512's bits, with or without SLEEF), and tan,
// which the table takes when the build has no SLEEF (exp and exp2 are in float: avx2_math.h; log, log1p,
// log2, log10, asin and acos too: avx2_f32_math.h). A float result needs ~1e-9 relative accuracy to be within
// 0.5 + 0.01 ulp, which short double polynomials give without tables or gathers; double's range also holds
// every float subnormal and overflow as a normal number, so the final conversion rounds once, subnormal
// results included (no flush to zero).
#pragma once

#include "kernels/cpu/vec/f64_series.h"

namespace {

typedef long long VLD __attribute__((vector_size(sizeof(VD))));
typedef int VLF __attribute__((vector_size(sizeof(VF))));

template <typename To, typename From>
static inline To bits_as(From v) {
  static_assert(sizeof(To) == sizeof(From), "same width");
  To r;
  __builtin_memcpy(&r, &v, sizeof(To));
  return r;
}

// f applied to each half of a float vector in double, results rounded back to float once. The halves are
// split and joined with the 128-bit lane intrinsics: joined through memory (two 16-byte stores, one 32-byte
// load) every call would pay a store-forwarding stall, which would be the hottest instruction of erf, gelu
// and sin.
template <typename F>
static inline VF f32_via_f64(VF x, F f) {
  const __m128 lo = _mm256_castps256_ps128(x), hi = _mm256_extractf128_ps(x, 1);
  const __m128 rl = _mm256_cvtpd_ps(f(_mm256_cvtps_pd(lo)));
  const __m128 rh = _mm256_cvtpd_ps(f(_mm256_cvtps_pd(hi)));
  return _mm256_insertf128_ps(_mm256_castps128_ps256(rl), rh, 1);
}
// the same for a function of two float vectors (atan2, fmod)
template <typename F>
static inline VF f32_via_f64(VF x, VF y, F f) {
  const __m128 rl = _mm256_cvtpd_ps(
      f(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), _mm256_cvtps_pd(_mm256_castps256_ps128(y))));
  const __m128 rh = _mm256_cvtpd_ps(
      f(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1))));
  return _mm256_insertf128_ps(_mm256_castps128_ps256(rl), rh, 1);
}

// log(x) for finite x > 0 (every float is a normal double): x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m =
// 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716, the odd series to s^11 (truncation 5e-11 relative); m - 1
// is exact, so the result is accurate relative to itself near x = 1 too. e comes out of the exponent field by
// the 2^52 trick (AVX2 has no int64 -> double conversion).
static inline VD log_d_for_f32(VD x) {
  VD e;
  const VD m = log_split_d(x, e);
  return e * 0.6931471805599453 + log_m_series_d<6>(m);
}

// float32 sin and cos through double, the AVX-512 kernel's method (avx512_math.h, sincos_f32_half) over
// AVX2: x = m pi/2 + r with m even for sin (2 round(x/pi)) and odd for cos (2 round(x/pi - 1/2) + 1), |r| <=
// pi/2, the result +-sin(r) with the sign from the low bit of the rounded quotient (t's low mantissa bit, by
// the 1.5 * 2^52 shift), r = x - m (pi/2)_hi - m (pi/2)_lo in two FMAs (off by ~2^-52 relative for |x| <=
// 2^20, the lanes this serves), sin(r) = r (1 + z P(z)) with the same fitted P (0.13 float ulp): one rounding
// to float at the end, within 0.64 ulp. The product keeps -0.
template <bool kCos>
static inline VD sincos_d_for_f32(VD x) {
  const VD shift = VD{} + 6755399441055744.0;
  VD t, m;
  if (kCos) {
    t = _mm256_fmadd_pd(x, VD{} + 0.3183098861837907, VD{} - 0.5) + shift;
    m = (t - shift) * 2.0 + 1.0;
  } else {
    t = _mm256_fmadd_pd(x, VD{} + 0.3183098861837907, shift);
    const VD n = t - shift;
    m = n + n;
  }
  VD r = _mm256_fnmadd_pd(m, VD{} + 1.5707963267948966, x);
  r = _mm256_fnmadd_pd(m, VD{} + 6.123233995736766e-17, r);
  const VD z = r * r;
  VD p = _mm256_fmadd_pd(z, VD{} + 2.6069487211740445e-06, VD{} - 0.00019810193795151217);
  p = _mm256_fmadd_pd(z, p, VD{} + 0.008333075501155232);
  p = _mm256_fmadd_pd(z, p, VD{} - 0.16666659982656434);
  const VD s = r * _mm256_fmadd_pd(z, p, VD{} + 1.0);
  VLD q = bits_as<VLD>(t);
  if (kCos) q = q + 1;
  return bits_as<VD>(bits_as<VLD>(s) ^ (q << 63));
}
// The lanes of |x| <= 2^20 (not inf or NaN) take the kernel; the rest the given function (SLEEF's or the C
// library's, lane by lane), so a lane's result never depends on its neighbours.
template <bool kCos, typename F>
static inline VF sincos_f32_own(VF x, F wide) {
  const VF ax = x < 0.0f ? -x : x;
  const auto ok = ax <= 1048576.0f;
  const VF safe = ok ? x : 0.0f;
  const VF r = f32_via_f64(safe, sincos_d_for_f32<kCos>);
  if (_mm256_movemask_ps(reinterpret_cast<__m256>(ok)) == 0xff) return r;
  return ok ? r : wide(x);
}

// float32 erfinv through double: for |a| <= 0.95 erfinv(a) = a P(t) / Q(t), t = a^2 (f64_series.h's
// erfinv_rational_d, relative error 3.3e-11); above, a P(w), w = -log((1 - a)(1 + a)) (the product of two
// floats is exact in double), P a degree-12 polynomial in w - 2.5 below w = 5 and in sqrt(w) - 3 above
// (Giles' variables; float a < 1 keeps w below 16), fitted by least squares against mpmath's erfinv (relative
// error 4e-11 and 2e-10, log_d_for_f32's 5e-11 on top): one rounding to float, within 0.5 + 0.004 ulp, so
// about 1 float in 500 rounds the other way than the double kernel's result. The scalar functor's
// Halley/Newton refinement in double, the alternative, costs tens of times PyTorch's float loop.
static inline VD erfinv_log_d_for_f32(VD a) {
  const VD w = -log_d_for_f32((1.0 - a) * (1.0 + a));
  const VD p1 = erfinv_central_d(w - 2.5);
  const auto tail = !(w < 5.0);  // |a| > 0.9966: 1 lane in 300 of uniform data, so mostly skipped
  if (_mm256_movemask_pd(reinterpret_cast<__m256d>(tail)) == 0) return p1;
  return tail ? erfinv_tail_d(VD(_mm256_sqrt_pd(w)) - 3.0) : p1;
}
static inline VD erfinv_d_for_f32(VD a) {
  const VD p = erfinv_rational_d(a * a);
  const auto outer = a > 0.95;
  if (_mm256_movemask_pd(reinterpret_cast<__m256d>(outer)) == 0) return a * p;
  return a * (outer ? erfinv_log_d_for_f32(a) : p);
}
// An odd function on (-1, 1) with poles at +-1 (erfinv, atanh): |x| < 1 through its double kernel f of |x|,
// the sign ORed back (keeps -0); +-1 gives +-inf, |x| > 1 and NaN give NaN
template <typename F>
static inline VF odd_on_unit_interval_f32(VF x, F f) {
  const VF a = x < 0.0f ? -x : x;
  const VF r = f32_via_f64(a < 1.0f ? a : 0.0f, f);
  const VF sign = bits_as<VF>(bits_as<VLF>(x) & (VLF{} + static_cast<int>(0x80000000u)));
  const VF signed_r = bits_as<VF>(bits_as<VLF>(r) | bits_as<VLF>(sign));
  const float inf = __builtin_inff();
  return a < 1.0f    ? signed_r
         : a == 1.0f ? bits_as<VF>(bits_as<VLF>(VF{} + inf) | bits_as<VLF>(sign))
                     : VF{} + __builtin_nanf("");
}
static inline VF erfinv_f32_own(VF x) {
  return odd_on_unit_interval_f32(x, erfinv_d_for_f32);
}
// float32 erfinv's row: sixteen floats a step as four double vectors, stage by stage (the rational, then the
// log path for a vector with a lane above 0.95), erfinv_row_f64's method: one vector's chain is
// latency-bound. Each lane's arithmetic is erfinv_d_for_f32's and odd_on_unit_interval_f32's, so the bits are
// erfinv_f32_own's (and AVX-512's) at any position; the tail through a zero-padded block. 256x256 at one
// thread: 152 us with the log path for every lane, PyTorch 127.
static inline void erfinv_f32_x16(float* out, const float* in) {
  VF x[2], a[2];
  VD d[4];
#pragma GCC unroll 2
  for (int k = 0; k < 2; ++k) {
    __builtin_memcpy(&x[k], in + 8 * k, sizeof(VF));
    const VF ax = x[k] < 0.0f ? -x[k] : x[k];
    a[k] = ax < 1.0f ? ax : 0.0f;
    d[2 * k] = _mm256_cvtps_pd(_mm256_castps256_ps128(a[k]));
    d[2 * k + 1] = _mm256_cvtps_pd(_mm256_extractf128_ps(a[k], 1));
  }
  VD p[4];
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) p[k] = erfinv_rational_d(d[k] * d[k]);
  for (int k = 0; k < 4; ++k) {
    const auto outer = d[k] > 0.95;  // 1 vector in 5 of uniform (-1, 1) data
    if (_mm256_movemask_pd(reinterpret_cast<__m256d>(outer)))
      p[k] = outer ? erfinv_log_d_for_f32(d[k]) : p[k];
  }
  const float inf = __builtin_inff();
#pragma GCC unroll 2
  for (int k = 0; k < 2; ++k) {
    const __m128 rl = _mm256_cvtpd_ps(d[2 * k] * p[2 * k]), rh = _mm256_cvtpd_ps(d[2 * k + 1] * p[2 * k + 1]);
    const VF r = _mm256_insertf128_ps(_mm256_castps128_ps256(rl), rh, 1);
    const VF ax = x[k] < 0.0f ? -x[k] : x[k];
    const VF sign = bits_as<VF>(bits_as<VLF>(x[k]) & (VLF{} + static_cast<int>(0x80000000u)));
    const VF signed_r = bits_as<VF>(bits_as<VLF>(r) | bits_as<VLF>(sign));
    const VF y = ax < 1.0f    ? signed_r
                 : ax == 1.0f ? bits_as<VF>(bits_as<VLF>(VF{} + inf) | bits_as<VLF>(sign))
                              : VF{} + __builtin_nanf("");
    __builtin_memcpy(out + 8 * k, &y, sizeof(VF));
  }
}
static void erfinv_row_f32(float* out, const float* in, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) erfinv_f32_x16(out + i, in + i);
  if (i < n) {
    float buf[16] = {};
    for (int64_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    erfinv_f32_x16(buf, buf);
    for (int64_t j = 0; j < n - i; ++j) out[i + j] = buf[j];
  }
}

// float32 atanh through double: for |x| >= 2^-12 0.5 log((1 + a) / (1 - a)), a = |x| (1 + a and 1 - a exact
// for a float a; the quotient's rounding moves the log by 2^-53, 2^-41 relative at a = 2^-12) by
// log_d_for_f32 (5e-11 relative); below, a + a^3/3 + a^5/5 + a^7/7 (truncation a^8/9, 2^-99 relative). One
// rounding to float; x's sign ORed back (keeps -0); +-1 gives +-inf, |x| > 1 and NaN give NaN. The former
// form, through log1p's full-precision double kernel, ran at 0.4 of PyTorch's speed.
static inline VD atanh_d_for_f32(VD a) {
  const VD big = 0.5 * log_d_for_f32((1.0 + a) / (1.0 - a));
  const VD z = a * a;
  const VD small = a + a * z * (1.0 / 3 + z * (0.2 + z * (1.0 / 7)));
  return a < 0x1p-12 ? small : big;
}
static inline VF atanh_f32_own(VF x) {
  return odd_on_unit_interval_f32(x, atanh_d_for_f32);
}

// float32 atan through double: t = |x| or 1/|x| (atan x = pi/2 - atan(1/x) above 1), then f64_series.h's
// atan_01_d: one rounding to float, within 0.5 + 0.001 ulp. inf gives pi/2 (1/inf = 0), NaN stays NaN, the
// sign is ORed back (keeps -0).
static inline VD atan_01(VD t) {
  return atan_01_d(t);
}
static inline VD atan_d_for_f32(VD x) {
  const VLD sign = VLD{} + static_cast<long long>(0x8000000000000000ULL);
  const VD a = bits_as<VD>(bits_as<VLD>(x) & ~sign);
  const auto inv = a > 1.0;
  VD r = atan_01(inv ? 1.0 / a : a);
  r = inv ? 1.5707963267948966 - r : r;
  return bits_as<VD>(bits_as<VLD>(r) | (bits_as<VLD>(x) & sign));
}
static inline VF atan_f32_own(VF x) {
  return f32_via_f64(x, atan_d_for_f32);
}

// float32 atan2(y, x) through double: f64_series.h's atan2_d (AVX-512 runs the same expressions over eight
// lanes: the same bits)
static inline VD atan2_d_for_f32(VD y, VD x) {
  return atan2_d<VD, VLD>(y, x);
}
static inline VF atan2_f32_own(VF y, VF x) {
  return f32_via_f64(y, x, atan2_d_for_f32);
}

// float32 fmod(a, b), exact as C's, through double where |a / b| < 2^26: q = trunc(a / b) (the rounded
// quotient can only reach an integer the true one is just below, so q is at most one too large), r = a - q b
// exact in double (q b has at most 50 bits; the difference is a multiple of b's spacing below 2|b|), one |b|
// added back where r took the wrong sign, |r| with a's sign (a zero result keeps it). Lanes with |a| < |b| (b
// infinite included) give a; b = 0, a infinite, NaN give NaN; larger quotients take the float64 kernel's
// steps (avx2_math.h's fmod_wide_avx2_f64).
static inline VD fmod_d_for_f32(VD a, VD b) {
  const VLD sign = VLD{} + static_cast<long long>(0x8000000000000000ULL);
  const VD ab = bits_as<VD>(bits_as<VLD>(b) & ~sign), aa = bits_as<VD>(bits_as<VLD>(a) & ~sign);
  const VD q = _mm256_round_pd(aa / ab, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  VD r = aa - q * ab;  // |a| - q |b|: the magnitude, r in (-|b|, |b|)
  r = r < 0.0 ? r + ab : r;
  r = aa < ab ? aa : r;  // also b = inf with a finite
  return bits_as<VD>(bits_as<VLD>(r) | (bits_as<VLD>(a) & sign));
}
static inline VF fmod_f32_own(VF a, VF b) {
  VF r = f32_via_f64(a, b, fmod_d_for_f32);
  // the lanes the kernel does not serve: NaN operands, b = 0, a infinite, |a / b| >= 2^26
  const VF aa = a < 0.0f ? -a : a, ab = b < 0.0f ? -b : b;
  const auto ok = (aa < ab) | ((ab > 0.0f) & (aa < ab * 67108864.0f) & (aa < __builtin_inff()));
  if (_mm256_movemask_ps(reinterpret_cast<__m256>(ok)) != 0xff) {
    // wide quotients of a finite a and b != 0 in double (exact there, and the result is a float), by
    // avx2_math.h's steps; NaN operands, b = 0 and a infinite from the C library
    const auto wide = ~ok & (ab > 0.0f) & (aa < __builtin_inff());
    if (_mm256_movemask_ps(reinterpret_cast<__m256>(wide)) != 0) {
      const VF w = f32_via_f64(a, b, [](VD x, VD y) {
        int served;
        VD d = fmod_avx2_f64(x, y, served);
        fmod_wide_avx2_f64(x, y, d, served);
        return d;
      });
      r = wide ? w : r;
    }
    for (int i = 0; i < 8; ++i)
      if (!ok[i] && !wide[i]) r[i] = __builtin_fmodf(a[i], b[i]);
  }
  return r;
}
// Python's remainder: fmod, then the divisor added where the result is non-zero and of the other sign (the
// scalar functor's and PyTorch's formula, the add rounded in the dtype); float64's (avx2_math.h) shares it
template <typename V, typename S>
static inline V remainder_from_fmod(V r, V b) {
  return (r != S(0)) & ((b < S(0)) != (r < S(0))) ? r + b : r;
}
static inline VF remainder_f32_own(VF a, VF b) {
  return remainder_from_fmod<VF, float>(fmod_f32_own(a, b), b);
}

// ---- float32 expm1 and tan through double (AVX2 without SLEEF ran the C library element by element for
// these; with SLEEF, expm1f costs 6x its expf).

// expm1: AVX-512's expm1_f32_half (avx512_math.h) in four lanes, the same operations, so the same bits as
// MINITORCH_CPU_CAPABILITY=avx512: the reduction and 16-entry table of the float64 exp (a gather here), a
// degree-5 polynomial, u = 2^k T (1 + q) - 1 in double (relative error < 2^-37, within 0.5 ulp + 2^-13 after
// the one rounding to float). 2^floor(n/16) goes into the exponent field as an integer add where AVX-512
// uses vscalefpd: the result lies within 2^[-152, 130], a normal double, so both are exact. The previous
// kernel here (a degree-11 Taylor series and a degree-9 2^t, both for every lane) took 1.5 ns a float, 1.2x
// PyTorch's AVX-512 expm1 and 2.5x this. x is clamped to [-104, 89] by the caller, NaN kept.
static inline __m256d expm1_f32_half_avx2(__m256d x) {
  const __m256d shift = _mm256_set1_pd(6755399441055744.0);  // 1.5 * 2^52
  const __m256d t = _mm256_fmadd_pd(x, _mm256_set1_pd(23.083120654223414), shift);
  const __m256d n = _mm256_sub_pd(t, shift);
  const __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(0.04332169878499658), x);
  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d p01 = _mm256_fmadd_pd(_mm256_set1_pd(1.0 / 6), r, _mm256_set1_pd(0.5));
  const __m256d p23 = _mm256_fmadd_pd(_mm256_set1_pd(1.0 / 120), r, _mm256_set1_pd(1.0 / 24));
  const __m256d q = _mm256_fmadd_pd(r2, _mm256_fmadd_pd(p23, r2, p01), r);
  // t's low mantissa bits are n (two's complement): n mod 16 indexes the table, n >> 4 is floor(n/16) (a
  // logical shift: the bits it gets wrong are those the shift by 52 drops)
  const __m256i m = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(shift));
  const __m256d th = _mm256_i64gather_pd(kExp2jHi, _mm256_and_si256(m, _mm256_set1_epi64x(15)), 8);
  const __m256d e = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(_mm256_fmadd_pd(th, q, th)),
                                                         _mm256_slli_epi64(_mm256_srli_epi64(m, 4), 52)));
  // n = 0: u = q (E - 1 would cancel); elsewhere |u| > 0.02 and E - 1 loses at most 2^-47
  return _mm256_blendv_pd(_mm256_sub_pd(e, _mm256_set1_pd(1.0)), q,
                          _mm256_cmp_pd(n, _mm256_setzero_pd(), _CMP_EQ_OQ));
}
// -0 and tiny x are the caller's (expm1(x) = x there)
static inline VF expm1_avx2_f32(VF x) {
  x = _mm256_min_ps(_mm256_set1_ps(89.0f), _mm256_max_ps(_mm256_set1_ps(-104.0f), x));
  return f32_via_f64(x, expm1_f32_half_avx2);
}

// tan: x = n pi/2 + r as sincos_d_for_f32 (|r| <= pi/4, the same two FMAs, valid for |x| <= 2^20), sin r and
// cos r by their Taylor series (to r^13 and r^14: truncation 3e-14 and 1e-15 relative), tan x = sin r / cos r
// for even n, -cos r / sin r for odd n (one division); +-0 give themselves.
static inline VD tan_d_for_f32(VD x) {
  const VD shift = VD{} + 6755399441055744.0;
  const VD t = _mm256_fmadd_pd(x, VD{} + 0.6366197723675814, shift);
  const VD n = t - shift;
  VD r = _mm256_fnmadd_pd(n, VD{} + 1.5707963267948966, x);
  r = _mm256_fnmadd_pd(n, VD{} + 6.123233995736766e-17, r);
  const VD z = r * r;
  VD ps = VD{} + 1.0 / 6227020800;
  ps = ps * z - 1.0 / 39916800;
  ps = ps * z + 1.0 / 362880;
  ps = ps * z - 1.0 / 5040;
  ps = ps * z + 1.0 / 120;
  ps = ps * z - 1.0 / 6;
  const VD s = _mm256_fmadd_pd(r * z, ps, r);
  VD pc = VD{} - 1.0 / 87178291200;
  pc = pc * z + 1.0 / 479001600;
  pc = pc * z - 1.0 / 3628800;
  pc = pc * z + 1.0 / 40320;
  pc = pc * z - 1.0 / 720;
  pc = pc * z + 1.0 / 24;
  pc = pc * z - 0.5;
  const VD c = _mm256_fmadd_pd(z, pc, VD{} + 1.0);
  const auto odd = (bits_as<VLD>(t) & 1) != 0;
  const VD q = (odd ? -c : s) / (odd ? s : c);
  return x == 0.0 ? x : q;  // r z (-1/6 + ...) is +0 for r = -0, and -0 + +0 = +0
}
// lanes beyond 2^20 (and inf, NaN) take `wide` (SLEEF's or the C library's), lane by lane, as sin and cos
template <typename F>
static inline VF tan_f32_own(VF x, F wide) {
  const VF ax = x < 0.0f ? -x : x;
  const auto ok = ax <= 1048576.0f;
  const VF r = f32_via_f64(ok ? x : 0.0f, tan_d_for_f32);
  if (_mm256_movemask_ps(reinterpret_cast<__m256>(ok)) == 0xff) return r;
  return ok ? r : wide(x);
}

}  // namespace
