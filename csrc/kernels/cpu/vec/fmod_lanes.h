// Exact fmod and remainder in double lanes for the baseline (MINITORCH_CPU_CAPABILITY=default, no AVX2).
// GCC vector extensions (SSE2 there); included by kernels/cpu/elementwise.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace mt {
namespace fmod_lanes {

typedef double V2d __attribute__((vector_size(16)));
typedef long long V2l __attribute__((vector_size(16)));

template <typename To, typename From>
inline To bits_as(From v) {
  To t;
  std::memcpy(&t, &v, sizeof(t));
  return t;
}

// fmod(a, b) on the lanes it serves (`ok` all ones there), the quotient's bound by the operands' width:
// q = trunc(|a| / |b|) is the true quotient's truncation or one more (the rounded quotient is within half an
// ulp of the true one, and rounding never crosses an integer downward), so |a| - q |b| lies in (-|b|, |b|), a
// multiple of |b|'s spacing, and is exact where it is computed exactly; |b| is added back where it is
// negative (exact too), and a's sign put on (a zero result keeps it). |a| < |b| (b infinite included) gives
// a.
// - float operands (Wide false), |a / b| < 2^26: q |b| has at most 50 bits, exact in double, and so is the
//   difference. The same steps as AVX2's float row (vec/f32_via_f64.h), without its rounding instruction.
// - double operands (Wide true), |a / b| < 2^52, |b| < 2^995: q |b| as Dekker's exact sum p + e (no FMA at
// the
//   baseline; Veltkamp's split would overflow above 2^995), |a| - p exact by Sterbenz's lemma (p is within a
//   factor of two of |a| for q >= 1), then the exact difference rounds to itself. The products of the split
//   parts are multiples of |b|'s lowest bit, so a subnormal |b| stays exact.
// trunc for 0 <= x < 2^52 is the 2^52 shift's nearest integer, less one where that rounded up. The caller
// sends the other lanes (b = 0, a infinite, NaN, larger quotients) to the C library.
template <bool Wide>
inline V2d fmod_v2d(V2d a, V2d b, V2l& ok) {
  const V2l sign = V2l{} + static_cast<long long>(0x8000000000000000ULL);
  const V2d aa = bits_as<V2d>(bits_as<V2l>(a) & ~sign), ab = bits_as<V2d>(bits_as<V2l>(b) & ~sign);
  const V2d x = aa / ab;
  V2d q = (x + 0x1p52) - 0x1p52;
  q = q > x ? q - 1.0 : q;
  V2d r;
  if constexpr (Wide) {
    const V2d c = 134217729.0 * q, d = 134217729.0 * ab;  // Veltkamp's split by 2^27 + 1
    const V2d qh = c - (c - q), ql = q - qh, bh = d - (d - ab), bl = ab - bh;
    const V2d p = q * ab;
    const V2d e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl;
    r = (aa - p) - e;
    ok = (aa < ab) | ((ab > 0.0) & (aa < __builtin_inf()) & (aa < ab * 0x1p52) & (ab < 0x1p995));
  } else {
    r = aa - q * ab;
    ok = (aa < ab) | ((ab > 0.0) & (aa < __builtin_inf()) & (aa < ab * 0x1p26));
  }
  r = r < 0.0 ? r + ab : r;
  r = aa < ab ? aa : r;
  return bits_as<V2d>(bits_as<V2l>(r) | (bits_as<V2l>(a) & sign));
}

// Python's remainder from fmod's r: the divisor added where r is non-zero and of the other sign (the scalar
// functor's formula, the add rounded in the dtype)
template <typename T>
inline T remainder_of_fmod(T r, T b) {
  return (r != T(0) && ((b < T(0)) != (r < T(0)))) ? static_cast<T>(r + b) : r;
}

// o[i] = fmod (or remainder) of a[i SA] and b[i SB] (SA, SB 0 or 1), four lanes a step in two independent
// vectors; lanes the kernel does not serve through std::fmod
template <typename T, bool Remainder, int SA, int SB>
void fmod_row_strided(T* o, const T* a, const T* b, int64_t n) {
  constexpr bool kWide = sizeof(T) == 8;
  auto finish = [](T r, T bv) { return Remainder ? remainder_of_fmod(r, bv) : r; };
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    T av[4], bv[4];
    for (int k = 0; k < 4; ++k) {
      av[k] = a[(i + k) * SA];
      bv[k] = b[(i + k) * SB];
    }
    V2l ok0, ok1;
    const V2d r0 = fmod_v2d<kWide>(V2d{double(av[0]), double(av[1])}, V2d{double(bv[0]), double(bv[1])}, ok0);
    const V2d r1 = fmod_v2d<kWide>(V2d{double(av[2]), double(av[3])}, V2d{double(bv[2]), double(bv[3])}, ok1);
    T r[4] = {static_cast<T>(r0[0]), static_cast<T>(r0[1]), static_cast<T>(r1[0]), static_cast<T>(r1[1])};
    if (!((ok0[0] & ok0[1]) & (ok1[0] & ok1[1])))
      for (int k = 0; k < 4; ++k)
        if (!(k < 2 ? ok0[k] : ok1[k - 2])) r[k] = std::fmod(av[k], bv[k]);
    for (int k = 0; k < 4; ++k) o[i + k] = finish(r[k], bv[k]);
  }
  for (; i < n; ++i) {
    const T av = a[i * SA], bv = b[i * SB];
    V2l ok;
    const V2d r = fmod_v2d<kWide>(V2d{double(av), 1.0}, V2d{double(bv), 1.0}, ok);
    o[i] = finish(ok[0] ? static_cast<T>(r[0]) : std::fmod(av, bv), bv);
  }
}
template <typename T, bool Remainder>
void fmod_row(T* o, const T* a, int64_t sa, const T* b, int64_t sb, int64_t n) {
  if (sa && sb)
    fmod_row_strided<T, Remainder, 1, 1>(o, a, b, n);
  else if (sa)
    fmod_row_strided<T, Remainder, 1, 0>(o, a, b, n);
  else if (sb)
    fmod_row_strided<T, Remainder, 0, 1>(o, a, b, n);
  else
    fmod_row_strided<T, Remainder, 0, 0>(o, a, b, n);
}

}  // namespace fmod_lanes
}  // namespace mt
