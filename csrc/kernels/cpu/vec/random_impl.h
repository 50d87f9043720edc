// Uniform and normal draws for the CPU random fill (kernels/cpu/random.cpp), vectorized over GCC vector
// types: Philox4x32-10 on ND counters at once and Box-Muller through kernels/cpu/BoxMuller.h. Included by
// vec/unary_impl.h (AVX2 and AVX-512) and by kernels/cpu/random.cpp (SSE2, the baseline), which define VD/ND,
// MT_MUL_EPU32 (the 32 x 32 -> 64-bit product of the low words of each 64-bit lane, which GCC does not find
// on its own) and MT_SQRT_PD, inside a region without FP contraction. The draws are random.cpp's scalar ones
// bit for bit: pair p of a chunk comes from counter offset + p, its four words give u1 = 1 - u01(w0, w1) and
// u2 = u01(w2, w3), and the pair is r cos(2 pi u2), r sin(2 pi u2) with r = sqrt(-2 log u1), the same
// operations as the scalar loop.
#pragma once
#include <type_traits>

#include "kernels/cpu/BoxMuller.h"

namespace mt {
namespace vec {
namespace {

typedef unsigned long long VU __attribute__((vector_size(sizeof(VD))));
typedef long long VI __attribute__((vector_size(sizeof(VD))));

// 53 random bits as a double in [0, 1): (hi >> 5) 2^-27 + (lo >> 6) 2^-53, the scalar u01's value. Each part
// goes into the mantissa of a power of two (AVX2 has no int64 -> double conversion): h = 2^25 + (hi >> 5)
// 2^-27 and l = 0.5 + (lo >> 6) 2^-53; h - (2^25 + 0.5) is exact (a multiple of 2^-27 in (-0.5, 0.5)), and so
// is its sum with l (a 53-bit multiple of 2^-53). Two operations fewer than scaling two integers.
inline VD u01_lanes(VU hi, VU lo) {
  const VD h = bm::bits_as<VD>((hi >> 5) | 0x4180000000000000ull);
  const VD l = bm::bits_as<VD>((lo >> 6) | 0x3fe0000000000000ull);
  return (h - 33554432.5) + l;
}

struct PhiloxLanes {
  VU w0, w1, w2, w3;  // the four words of ND consecutive counters, one per 64-bit lane
};

// The ten round keys of a seed, each broadcast to a vector once per call instead of once per round and step.
struct PhiloxKeys {
  VU k0[10], k1[10];
  VU iota;  // 0, 1, .., ND - 1: built once (lane writes in the loop went through memory)
  explicit PhiloxKeys(uint64_t seed) {
    for (int k = 0; k < ND; ++k) iota[k] = static_cast<uint64_t>(k);
    uint32_t a = static_cast<uint32_t>(seed), b = static_cast<uint32_t>(seed >> 32);
    for (int r = 0; r < 10; ++r) {
      k0[r] = VU{} + a;
      k1[r] = VU{} + b;
      a += 0x9E3779B9u;
      b += 0xBB67AE85u;
    }
  }
};

typedef unsigned int VU32 __attribute__((vector_size(sizeof(VD))));

// Each lane's high word in its low half, the high half garbage (which philox_groups allows). At SSE2 one
// pshufd: a shift there is a register copy and the shift (two-operand instructions); AVX2's shifts take
// three.
__attribute__((always_inline)) inline VU hi32(VU p) {
  if constexpr (ND == 2) {
    VU32 w;
    __builtin_memcpy(&w, &p, sizeof(w));
    w = __builtin_shuffle(w, VU32{1, 1, 3, 3});
    __builtin_memcpy(&p, &w, sizeof(w));
    return p;
  } else {
    return p >> 32;
  }
}

// Philox4x32-10 (core/Generator.h) for the kGroups ND counters counter .. counter + kGroups ND - 1
// (random.cpp's next4 carries word 0 into word 1, so the counter is a 64-bit number) of subsequence `sub`,
// as kGroups groups whose rounds are interleaved: a round is a chain of multiply, shift and xor that one
// group alone waits on; four groups ran randint 13% (SSE2), 6% (AVX2) and 10% (AVX-512) faster than two on
// the AVX-512 EPYC. Between rounds the words keep garbage in their lanes' high halves: the multiply reads
// only the low 32 bits and a word's high half reaches no low half, so the masks are taken once after the last
// round (not twice a round); the key is xored into the previous round's word while the multiply runs.
constexpr int kGroups = 4;
__attribute__((always_inline)) inline void philox_groups(const PhiloxKeys& key, uint64_t sub,
                                                         uint64_t counter, PhiloxLanes* out) {
  const VU lo32 = VU{} + 0xffffffffull;
  const VU m0 = VU{} + 0xD2511F53ull, m1 = VU{} + 0xCD9E8D57ull;
  const VU c2 = VU{} + static_cast<uint32_t>(sub), c3 = VU{} + static_cast<uint32_t>(sub >> 32);
  VU w0[kGroups], w1[kGroups], w2[kGroups], w3[kGroups];
#pragma GCC unroll 4
  for (int g = 0; g < kGroups; ++g) {
    const VU c = key.iota + (counter + static_cast<unsigned long long>(g * ND));
    w0[g] = c;
    w1[g] = c >> 32;
    w2[g] = c2;
    w3[g] = c3;
  }
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
#pragma GCC unroll 4
    for (int g = 0; g < kGroups; ++g) {
      const VU p0 = MT_MUL_EPU32(m0, w0[g]), p1 = MT_MUL_EPU32(m1, w2[g]);
      const VU k1 = w1[g] ^ key.k0[r], k3 = w3[g] ^ key.k1[r];
      w0[g] = hi32(p1) ^ k1;
      w1[g] = p1;
      w2[g] = hi32(p0) ^ k3;
      w3[g] = p0;
    }
  }
#pragma GCC unroll 4
  for (int g = 0; g < kGroups; ++g) out[g] = {w0[g] & lo32, w1[g] & lo32, w2[g] & lo32, w3[g] & lo32};
}

// Stores the ND pairs (a[k], b[k]) to out[2k], out[2k + 1], as many of the 2 ND values as fit in `left`
// (two interleaving shuffles instead of 2 ND lane extractions).
inline void store_pairs(double* out, int64_t left, VD a, VD b) {
  if (left <= 0) return;
  VI lo_idx, hi_idx;
  for (int k = 0; k < ND; ++k) {
    lo_idx[k] = k / 2 + (k % 2) * ND;
    hi_idx[k] = ND / 2 + k / 2 + (k % 2) * ND;
  }
  const VD lo = __builtin_shuffle(a, b, lo_idx), hi = __builtin_shuffle(a, b, hi_idx);
  if (left >= 2 * ND) {
    __builtin_memcpy(out, &lo, sizeof(VD));
    __builtin_memcpy(out + ND, &hi, sizeof(VD));
    return;
  }
  double tmp[2 * ND];
  __builtin_memcpy(tmp, &lo, sizeof(VD));
  __builtin_memcpy(tmp + ND, &hi, sizeof(VD));
  __builtin_memcpy(out, tmp, static_cast<size_t>(left) * sizeof(double));
}

// out[0, n): uniforms in [0, 1) from Philox(seed, sub, offset), two per counter, in random.cpp's order.
void uniform_philox_lanes(double* out, int64_t n, uint64_t seed, uint64_t sub, uint64_t offset) {
  const PhiloxKeys key(seed);
  for (int64_t p = 0; 2 * p < n; p += kGroups * ND) {
    PhiloxLanes w[kGroups];
    philox_groups(key, sub, offset + static_cast<uint64_t>(p), w);
#pragma GCC unroll 4
    for (int g = 0; g < kGroups; ++g) {
      const int64_t at = 2 * (p + g * ND);
      store_pairs(out + at, n - at, u01_lanes(w[g].w0, w[g].w1), u01_lanes(w[g].w2, w[g].w3));
    }
  }
}

// ---- the fused fills (VecUnary.h's PhiloxFill): random.cpp's per-element mapping on the lanes, then stored
// as the output type, so a chunk is one pass from the Philox words to the result.

typedef float VH __attribute__((vector_size(sizeof(VD) / 2)));  // ND floats

// (a[0], b[0], a[1], b[1], ...) as two vectors: store_pairs' order, for doubles and int64 alike
template <typename V>
inline void interleave(V a, V b, V& lo, V& hi) {
  VI lo_idx, hi_idx;
  for (int k = 0; k < ND; ++k) {
    lo_idx[k] = k / 2 + (k % 2) * ND;
    hi_idx[k] = ND / 2 + k / 2 + (k % 2) * ND;
  }
  lo = __builtin_shuffle(a, b, lo_idx);
  hi = __builtin_shuffle(a, b, hi_idx);
}

// The 2 ND interleaved values (lo, then hi) into out as S, as many as fit in `left`; doubles become floats
// with the scalar static_cast's rounding (to nearest).
template <typename S, typename V>
inline void put(S* out, int64_t left, V lo, V hi) {
  S tmp[2 * ND];
  S* dst = left >= 2 * ND ? out : tmp;
  if constexpr (std::is_same<S, float>::value) {
    const VH l = __builtin_convertvector(lo, VH), h = __builtin_convertvector(hi, VH);
    __builtin_memcpy(dst, &l, sizeof(VH));
    __builtin_memcpy(dst + ND, &h, sizeof(VH));
  } else {
    __builtin_memcpy(dst, &lo, sizeof(V));
    __builtin_memcpy(dst + ND, &hi, sizeof(V));
  }
  if (dst == tmp) __builtin_memcpy(out, tmp, static_cast<size_t>(left) * sizeof(S));
}

// The top 32 - shift bits of each lane's 32-bit word as a double, times inv (a power of two): exact
inline VD kept_lanes(VU w, int shift, double inv) {
  const VD two52 = VD{} + 4503599627370496.0;
  return (bm::bits_as<VD>((w >> shift) | 0x4330000000000000ull) - two52) * inv;
}

// floor(x) for 0 <= x <= 2^52, exactly: the 2^52 shift rounds to the nearest integer, one less where it
// rounded up (AVX2 has no int64 conversion to truncate with, and the scalar path's floor is exact)
inline VD floor_small(VD x) {
  const VD two52 = VD{} + 4503599627370496.0;
  const VD r = (x + two52) - two52;
  return r > x ? r - 1.0 : r;
}

// An int64 in (-2^51, 2^51) as double, exactly
inline VD small_to_double(VI v) {
  return bm::bits_as<VD>(v + 0x4338000000000000LL) - 6755399441055744.0;
}

// One group's ND counters (2 ND values: e from words 0, 1 and o from words 2, 3 of each counter, as uniforms)
// of kind K (uniform, integers, Bernoulli), random.cpp's fill_chunk arithmetic lane by lane.
template <typename T, int K>
inline void fill_group(T* out, int64_t left, VD e, VD o, const PhiloxFill& f) {
  if (left <= 0) return;
  if constexpr (K == 4) {  // uniform whose kept bits came from the words (philox_fill_kind): a + (b - a) kept
    const double width = f.b - f.a;
    e = f.a + width * e;
    o = f.a + width * o;
  }
  if constexpr (K == 0) {  // uniform: the dtype's mantissa bits, then a + (b - a) kept
    if (f.scale != 9007199254740992.0) {
      const double inv = 1.0 / f.scale;  // a power of two: the scalar path's division, exactly
      e = floor_small(e * f.scale) * inv;
      o = floor_small(o * f.scale) * inv;
    }
    const double width = f.b - f.a;
    e = f.a + width * e;
    o = f.a + width * o;
  }
  if constexpr (K == 3) {  // Bernoulli: u < p
    if constexpr (std::is_same<T, int64_t>::value) {
      VI lo, hi;
      interleave<VI>(e < f.a ? VI{} + 1 : VI{}, o < f.a ? VI{} + 1 : VI{}, lo, hi);
      put(out, left, lo, hi);
      return;
    } else {
      e = e < f.a ? VD{} + 1.0 : VD{};
      o = o < f.a ? VD{} + 1.0 : VD{};
    }
  }
  if constexpr (K == 2) {  // integers: min(high - 1, low + floor(u (high - low)))
    // floor_small's steps on t = u (high - low) and the conversion without leaving the 2^52-offset form:
    // s = 2^52 + round(t), plus -1.0 where that rounded up (the comparison's all-ones lanes masking -1.0's
    // bits), then the clamp there (low + r > high - 1 exactly where r > range - 1: SSE2 has no 64-bit
    // integer comparison, which GCC did lane by lane in general registers), then the bits less 2^52's, plus
    // low
    const double range = static_cast<double>(f.high - f.low);
    const VD two52 = VD{} + 4503599627370496.0, cap = two52 + (range - 1.0);
    const VI minus1 = VI{} + static_cast<long long>(0xbff0000000000000ull);
    const VI bias = VI{} + (0x4330000000000000LL - f.low);
    const VD te = e * range, to = o * range, se = te + two52, so = to + two52;
    VD fe = se + bm::bits_as<VD>(((se - two52) > te) & minus1);
    VD fo = so + bm::bits_as<VD>(((so - two52) > to) & minus1);
    fe = fe < cap ? fe : cap;
    fo = fo < cap ? fo : cap;
    VI ie = bm::bits_as<VI>(fe) - bias;
    VI io = bm::bits_as<VI>(fo) - bias;
    if constexpr (std::is_same<T, int64_t>::value) {
      VI lo, hi;
      interleave<VI>(ie, io, lo, hi);
      put(out, left, lo, hi);
      return;
    } else {
      e = small_to_double(ie);
      o = small_to_double(io);
    }
  }
  if constexpr (!std::is_same<T, int64_t>::value) {
    VD lo, hi;
    interleave<VD>(e, o, lo, hi);
    put(out, left, lo, hi);
  }
}

// out[0, n): normals from Philox(seed, sub, offset), two per counter, in random.cpp's order, as T (float or
// double; with Affine, a + b z first, random.cpp's mapping). In blocks of kVecs vectors of ND counters, as
// five loops over L1-resident buffers: the Philox words to u1 and u2; the log's division and the angle's
// reduction; the log's polynomial and the square root; sin and cos; the products, stored. One loop doing it
// all was a chain of about 90 cycles a vector (Philox, u01, the division, the polynomial, the square root)
// whose iterations the out-of-order window could not overlap: at AVX2 it ran 1.6 times slower than these
// short loops of independent iterations. The same operations on the same values: the same bits.
template <typename T, bool Affine>
void normal_lanes(T* out, int64_t n, uint64_t seed, uint64_t sub, uint64_t offset, double a, double b) {
  constexpr int64_t kVecs = 32;  // a multiple of kGroups
  const PhiloxKeys key(seed);
  alignas(64) VD u1[kVecs], u2[kVecs], ex[kVecs], tq[kVecs];
  for (int64_t p0 = 0; 2 * p0 < n; p0 += kVecs * ND) {
    const int64_t pairs = (n - 2 * p0 + 1) / 2;
    const int64_t vecs = pairs < kVecs * ND ? (pairs + ND - 1) / ND : kVecs;
    for (int64_t v = 0; v < vecs; v += kGroups) {
      PhiloxLanes w[kGroups];
      philox_groups(key, sub, offset + static_cast<uint64_t>(p0 + v * ND), w);
#pragma GCC unroll 4
      for (int g = 0; g < kGroups; ++g) {
        u1[v + g] = 1.0 - u01_lanes(w[g].w0, w[g].w1);
        u2[v + g] = u01_lanes(w[g].w2, w[g].w3);
      }
    }
    for (int64_t v = 0; v < vecs; ++v) {
      bm::log_unit_split<VD, VI>(u1[v], ex[v], u1[v]);
      bm::sincos_2pi_reduce<VD>(u2[v], tq[v], u2[v]);
    }
    for (int64_t v = 0; v < vecs; ++v) u1[v] = MT_SQRT_PD(-2.0 * bm::log_unit_join<VD>(ex[v], u1[v]));
    for (int64_t v = 0; v < vecs; ++v) bm::sincos_2pi_tv<VD, VI>(tq[v], u2[v], u2[v], ex[v]);
    for (int64_t v = 0; v < vecs; ++v) {  // u1 the radius, ex the cosine, u2 the sine
      const int64_t at = 2 * (p0 + v * ND);
      VD x = u1[v] * ex[v], y = u1[v] * u2[v];
      if constexpr (Affine) {
        x = a + b * x;
        y = a + b * y;
      }
      VD lo, hi;
      interleave<VD>(x, y, lo, hi);
      put(out + at, n - at, lo, hi);
    }
  }
}

// out[0, n): standard normals (the table's normal_philox_f64, random.cpp's draws-then-map path)
void normal_philox_lanes(double* out, int64_t n, uint64_t seed, uint64_t sub, uint64_t offset) {
  normal_lanes<double, false>(out, n, seed, sub, offset, 0.0, 1.0);
}

// As normal_lanes, in blocks: a loop of Philox and the uniforms into L1 buffers, then the mapping.
template <typename T, int K>
void philox_fill_kind(T* out, int64_t n, uint64_t seed, uint64_t sub, uint64_t offset, const PhiloxFill& f) {
  constexpr int64_t kVecs = 32;  // a multiple of kGroups
  const PhiloxKeys key(seed);
  // a local copy: the stores (memcpy) could alias the caller's f, which kept every group reloading its fields
  // and dividing 1 / scale again
  const PhiloxFill fl = f;
  // K 4: a uniform keeping s <= 32 bits (scale 2^s): floor(u01 2^s) / 2^s is word 0's (word 2's) top s bits
  // times 2^-s exactly (u01 = k 2^-53 with k's top 27 bits word 0's), so the low word and the floor go
  int shift = 0;
  double inv = 1.0;
  if constexpr (K == 4) {
    int bits = 0;
    for (double x = fl.scale; x > 1.0; x *= 0.5) ++bits;
    shift = 32 - bits;
    inv = 1.0 / fl.scale;
  }
  alignas(64) VD ev[kVecs], od[kVecs];
  for (int64_t p0 = 0; 2 * p0 < n; p0 += kVecs * ND) {
    const int64_t pairs = (n - 2 * p0 + 1) / 2;
    const int64_t vecs = pairs < kVecs * ND ? (pairs + ND - 1) / ND : kVecs;
    for (int64_t v = 0; v < vecs; v += kGroups) {
      PhiloxLanes w[kGroups];
      philox_groups(key, sub, offset + static_cast<uint64_t>(p0 + v * ND), w);
#pragma GCC unroll 4
      for (int g = 0; g < kGroups; ++g) {
        if constexpr (K == 4) {
          ev[v + g] = kept_lanes(w[g].w0, shift, inv);
          od[v + g] = kept_lanes(w[g].w2, shift, inv);
        } else {
          ev[v + g] = u01_lanes(w[g].w0, w[g].w1);
          od[v + g] = u01_lanes(w[g].w2, w[g].w3);
        }
      }
    }
    for (int64_t v = 0; v < vecs; ++v) {
      const int64_t at = 2 * (p0 + v * ND);
      fill_group<T, K>(out + at, n - at, ev[v], od[v], fl);
    }
  }
}

// out[0, n): the chunk's values of f's kind from Philox(seed, sub, offset), as random.cpp's fill_chunk writes
// them (an int64 output takes integers and Bernoulli only: random.cpp sends nothing else).
template <typename T>
void philox_fill(T* out, int64_t n, uint64_t seed, uint64_t sub, uint64_t offset, const PhiloxFill& f) {
  switch (f.kind) {
    case 0:
      if constexpr (!std::is_same<T, int64_t>::value) {
        if (f.scale <= 4294967296.0)  // 2^24 (float32), 2^11, 2^8: the top bits of the words
          philox_fill_kind<T, 4>(out, n, seed, sub, offset, f);
        else
          philox_fill_kind<T, 0>(out, n, seed, sub, offset, f);
      }
      break;
    case 1:
      if constexpr (!std::is_same<T, int64_t>::value)
        normal_lanes<T, true>(out, n, seed, sub, offset, f.a, f.b);
      break;
    case 2:
      philox_fill_kind<T, 2>(out, n, seed, sub, offset, f);
      break;
    case 3:
      philox_fill_kind<T, 3>(out, n, seed, sub, offset, f);
      break;
    default:
      break;
  }
}

}  // namespace
}  // namespace vec
}  // namespace mt
