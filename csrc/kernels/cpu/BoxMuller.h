// Box-Muller's log and sincos for the CPU normal draws, written once over a scalar double or a GCC vector of
// doubles, so the scalar draws (kernels/cpu/random.cpp) and the vector ones (vec/random_impl.h, AVX2 and
// AVX-512) compute the same operations in the same order and give the same bits on every path and machine.
//
// Only +, -, *, / and exact bit operations: each IEEE operation rounds the same way everywhere, which a call
// into the C library or SLEEF (<= 1 ulp, different per library and per vector width) does not. That holds
// only without FP contraction (a * b + c fused into an FMA on one path and not on another): every includer
// compiles these templates inside `#pragma GCC optimize("fp-contract=off")` (a function compiled under other
// options would not be inlined into them). Accuracy: log within about 1 ulp, sin/cos within about 1 ulp of
// 2 pi u; a normal draw needs neither more nor the C library's exact bits, only the same bits everywhere.
#pragma once
#include <cstdint>

namespace mt {
namespace bm {
namespace {  // internal linkage: the vector TUs compile this for AVX, which baseline code must never link to

template <typename To, typename From>
inline To bits_as(From v) {
  static_assert(sizeof(To) == sizeof(From), "same width");
  To r;
  __builtin_memcpy(&r, &v, sizeof(To));
  return r;
}

// log(u) for u in [2^-53, 1] (Box-Muller's 1 - u01, a normal double): u = 2^e m with m in [sqrt(1/2),
// sqrt(2)), log m = 2 atanh(s), s = f / (m + 1), f = m - 1 exact, |s| <= 0.1716, the odd series to s^21
// (truncation 6e-19 relative); e ln2 as hi (32 bits: e ln2_hi is exact) + lo. e comes out of the exponent
// field as a double by the 2^52 trick (no int64 -> double conversion on AVX2). D is double or a vector of
// doubles, I the signed 64-bit integer of the same width.
// In two halves, so that a vector loop can run the division of many vectors before their polynomials
// (vec/random_impl.h): log_unit_split gives e and s, log_unit_join the logarithm from them.
template <typename D, typename I>
inline void log_unit_split(D u, D& e_out, D& s_out) {
  const I b = bits_as<I>(u);
  D m = bits_as<D>((b & 0x000fffffffffffffLL) | 0x3ff0000000000000LL);  // [1, 2)
  D e = bits_as<D>((b >> 52) | 0x4330000000000000LL) - (4503599627370496.0 + 1023.0);
  const auto big = m > 1.4142135623730951;
  m = big ? m * 0.5 : m;
  e_out = big ? e + 1.0 : e;
  const D f = m - 1.0;
  s_out = f / (m + 1.0);
}

template <typename D>
inline D log_unit_join(D e, D s) {
  const D z = s * s;
  const D z2 = z * z, z4 = z2 * z2;
  // Estrin's order: the loop is bound by these chains' latency, not by their operations
  const D p03 = (1.0 / 3 + z * (1.0 / 5)) + z2 * (1.0 / 7 + z * (1.0 / 9));
  const D p47 = (1.0 / 11 + z * (1.0 / 13)) + z2 * (1.0 / 15 + z * (1.0 / 17));
  const D p = (p03 + z4 * p47) + (z4 * z4) * (1.0 / 19 + z * (1.0 / 21));
  const D log_m = s * 2.0 + s * 2.0 * (z * p);
  return e * 6.93147180369123816490e-01 + (e * 1.90821492927058770002e-10 + log_m);
}

template <typename D, typename I>
inline D log_unit(D u) {
  D e, s;
  log_unit_split<D, I>(u, e, s);
  return log_unit_join<D>(e, s);
}

// sin(2 pi u) and cos(2 pi u) for u in [0, 1) (Box-Muller's angle, u a multiple of 2^-53): q = rint(4u) by
// the 1.5 * 2^52 shift (its low bits are q), v = u - q/4 exact with |v| <= 1/8, so 2 pi u = q pi/2 + 2 pi v
// with |2 pi v| <= pi/4; sin(2 pi v) = v S(v^2) and cos(2 pi v) = C(v^2) are the Taylor series in v ((2 pi)^k
// / k! folded into the coefficients) to v^17 and v^16 (truncation below 1e-18); the quadrant q mod 4 swaps
// and negates them. The angle itself is never rounded.
// In two halves as the log: sincos_2pi_reduce gives t (q in its low bits) and v, sincos_2pi_tv the pair.
template <typename D>
inline void sincos_2pi_reduce(D u, D& t_out, D& v_out) {
  const double shift = 6755399441055744.0;
  const D t = u * 4.0 + shift;  // 4u is exact; the add rounds to the nearest integer
  t_out = t;
  v_out = u - (t - shift) * 0.25;
}

template <typename D, typename I>
inline void sincos_2pi_tv(D t, D v, D& sin_out, D& cos_out) {
  const D z = v * v;
  const D z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
  // (2 pi)^(2k+1) / (2k+1)! and (2 pi)^2k / (2k)! with alternating signs, k = 0..8, in Estrin's order
  const D sp03 =
      (6.283185307179586 + z * -41.34170224039976) + z2 * (81.60524927607506 + z * -76.70585975306139);
  const D sp47 =
      (42.058693944897655 + z * -15.09464257682299) + z2 * (3.819952584848282 + z * -0.7181223017785006);
  const D sp = (sp03 + z4 * sp47) + z8 * 0.10422916220813984;
  const D s = v * sp;
  const D c03 = (1.0 + z * -19.739208802178716) + z2 * (64.9393940226683 + z * -85.45681720669373);
  const D c47 =
      (60.24464137187666 + z * -26.4262567833744) + z2 * (7.903536371318469 + z * -1.714390711088672);
  const D c = (c03 + z4 * c47) + z8 * 0.28200596845579123;
  // The quadrant's swap and signs as masks on the bits (a negation is a flip of the sign bit), not as
  // selects: without SSE4.1's blend, a vector select of 64-bit lanes compiled to a branch per lane.
  const I j = bits_as<I>(t);                         // its low two bits are q mod 4
  const I odd = -(j & 1);                            // all ones in quadrants 1, 3: sin and cos swap
  const long long sign = -0x7fffffffffffffffLL - 1;  // the sign bit; -(j & 2) has it where j & 2 is set
  const I sb = bits_as<I>(s), cb = bits_as<I>(c), swap = (sb ^ cb) & odd;
  const I sn = (sb ^ swap) ^ (-(j & 2) & sign);        // quadrants 2, 3: sin negative
  const I cs = (cb ^ swap) ^ (-((j + 1) & 2) & sign);  // quadrants 1, 2: cos negative
  sin_out = bits_as<D>(sn);
  cos_out = bits_as<D>(cs);
}

template <typename D, typename I>
inline void sincos_2pi(D u, D& sin_out, D& cos_out) {
  D t, v;
  sincos_2pi_reduce<D>(u, t, v);
  sincos_2pi_tv<D, I>(t, v, sin_out, cos_out);
}

}  // namespace
}  // namespace bm
}  // namespace mt
