// float32 erf in float lanes of any width, over GCC vector types: AVX2's row (unary_impl.h, with FMA) and the
// baseline's SSE2 row (kernels/cpu/elementwise.cpp, without), where the C library's erff per element and a
// polynomial in double lanes were 11x and 1.4x PyTorch's time.
//
// Two pieces of a = |x|, split at T = 0.90625:
// - a < T: a + a P(a^2), P of degree 6 (erf(a)/a - 1 fitted on Chebyshev nodes by Lawson's minimax iteration,
//   each coefficient rounded to float from the top with the lower ones refitted; 1.4e-9 absolute), its last
//   step an FMA. Without FMA the rounding error of u = a^2 (from Dekker's split of a) is put back through P's
//   slope at 0, and the sum is formed on 8a and scaled back, so a subnormal result rounds once.
// - T <= a: 1 - exp(Q(a - T)), Q of degree 8 fitted to log(erfc(a)) on [T, 3.93] weighted by erfc(a) (its
//   error in erf, 5e-9 absolute); a clamped to 3.93, from where erf rounds to 1 (erfc(3.9165) = 2^-25). The
//   exp is reduced by k = rint(Q / ln 2), its argument f taken as (Q's last step on Q0 - k ln2_hi) - k
//   ln2_lo: roundings at |f| <= ln2/2 instead of Q's own at |Q| ~ 1.6 (Sterbenz: Q0 - k ln2_hi is exact for
//   the k of the lanes near T, where erfc's error shows), then 1 + f + f^2 E(f), E of degree 4 (4e-9
//   relative), and 2^k added to the exponent bits (k in [-23, -2]: normal results only).
// Every float32 of [0, 4] (and so of (-inf, inf): odd, 1 beyond) against the double erf: at most 0.84 ulp
// with FMA, 0.96 without (scripts/check_erf_f32.cpp). The sign is put back last (erf(-0) = -0); NaN stays
// NaN; +-inf give +-1 through the clamp. A piece is evaluated only where some lane needs it (`any` of a lane
// mask), so a lane's value never depends on its neighbours.
#pragma once

namespace mt {
namespace vec {

template <typename V, typename VI, typename Any>
static inline V erf_f32_lanes(V x, Any any) {
  constexpr float kT = 0.90625f;
  const VI bits = reinterpret_cast<VI>(x);
  const VI sign = bits & static_cast<int>(0x80000000u);
  const V ax = reinterpret_cast<V>(bits & 0x7fffffff);
  const VI small = ax < kT;
  V res = ax;
  if (any(small)) {
    const V u = ax * ax;
    V p = 8.498725219396874e-05f * u - 0.0008172952220775187f;
    p = p * u + 0.005203689448535442f;
    p = p * u - 0.026860469952225685f;
    p = p * u + 0.11283715069293976f;
    p = p * u - 0.37612634897232056f;
    p = p * u + 0.12837916612625122f;
#ifdef __FMA__
    res = ax * p + ax;
#else
    // the square's rounding error from Dekker's split of a into 12-bit halves (their products are exact)
    const V hi = reinterpret_cast<V>(reinterpret_cast<VI>(ax) & static_cast<int>(0xfffff000u));
    const V lo = ax - hi;
    const V ulo = ((hi * hi - u) + (hi + hi) * lo) + lo * lo;
    p = ulo * -0.37612634897232056f + p;
    const V a8 = ax * 8.0f;
    res = (a8 * p + a8) * 0.125f;
#endif
  }
  if (any(~small)) {
    V a = ax > kT ? ax : kT;  // NaN takes T here and is put back below
    a = a < 3.93f ? a : 3.93f;
    const V t = a - kT;
    V q = -5.970140364297549e-07f * t - 1.757479003572371e-05f;
    q = q * t + 0.00029248380451463163f;
    q = q * t - 0.002162957563996315f;
    q = q * t + 0.011016023345291615f;
    q = q * t - 0.04550725966691971f;
    q = q * t - 0.8308718204498291f;
    q = q * t - 2.4820146560668945f;
    constexpr float kQ0 = -1.6095774173736572f;
    const V z = (q * t + kQ0) * 1.44269504f + 12582912.0f;  // 1.5 2^23: k in z's low mantissa bits
    const V k = z - 12582912.0f;
    V f = q * t + (k * -0.693145751953125f + kQ0);  // ln2_hi has 12 bits: k ln2_hi is exact
    f = k * -1.42860677e-06f + f;                   // ln2_lo
    V e = 0.0013814466074109077f * f + 0.008368780836462975f;
    e = e * f + 0.04166839271783829f;
    e = e * f + 0.1666651964187622f;
    e = e * f + 0.4999999403953552f;
    e = e * f + 1.0f;
    e = e * f + 1.0f;
    e = reinterpret_cast<V>(reinterpret_cast<VI>(e) + (reinterpret_cast<VI>(z) << 23));
    const V tail = 1.0f - e;
    res = small ? res : tail;
  }
  res = reinterpret_cast<V>(reinterpret_cast<VI>(res) | sign);
  return x != x ? x : res;
}

}  // namespace vec
}  // namespace mt
