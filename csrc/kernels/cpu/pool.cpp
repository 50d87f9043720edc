// CPU pooling kernels over planes (N*C) in parallel: max (with flat per-plane indices), avg and its gradient,
// adaptive windows included; window math shared with CUDA in ops/pool.h. half/bfloat16 accumulate in float.
#include "ops/pool.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/Parallel.h"
#include "core/WrapMath.h"
#include "kernels/cpu/Loops.h"
#include "kernels/cpu/ParallelRows.h"

namespace mt {
namespace {

struct Planes {
  int64_t P, H, W, oH, oW;
};
Planes planes_of(const Tensor& in, const Tensor& out) {
  return {in.sizes()[0] * in.sizes()[1], in.sizes()[2], in.sizes()[3], out.sizes()[2], out.sizes()[3]};
}

// Elements one plane's windows read, for the thread split. Adaptive windows ignore a.kernel (1x1) and cover
// the plane (overlapping by at most a row or column each): counted as 1x1 windows, a global pool of
// 32x512x7x7 looked like one task's work and ran on one thread.
int64_t window_work(const Planes& p, const PoolArgs& a) {
  if (a.adaptive) return p.H * p.W + p.oH * p.oW;
  return p.oH * p.oW * a.kernel[0] * a.kernel[1];
}

// The 2x2 stride-2 float window (the usual CNN pool), four outputs per step: SSE2 selects instead of the
// generic loop's data-dependent branch, which random data mispredicts half the time (3-4x faster). The rule
// is the generic loop's: in scan order (top left, top right, bottom left, bottom right) a value replaces the
// best when it is larger or NaN (a later NaN replaces an earlier one). Rows r0 and r1 = r0 + W start the
// windows of input row h; does the first n outputs (n a multiple of 4, every window inside the input) and
// returns n.
#if defined(__SSE2__)
template <bool kIdx>
int64_t max_pool_2x2_f32(const float* r0, int64_t W, int64_t h, int64_t oW, float* o, int64_t* ix) {
  const float* r1 = r0 + W;
  const int64_t n = std::min(oW, W / 2) / 4 * 4;
  const __m128i zero = _mm_setzero_si128(), lanes = _mm_set_epi32(6, 4, 2, 0);
  const __m128i off_b = _mm_set1_epi32(1), off_c = _mm_set1_epi32(static_cast<int>(W)),
                off_d = _mm_set1_epi32(static_cast<int>(W + 1));
  for (int64_t ow = 0; ow < n; ow += 4) {
    __m128 t0 = _mm_loadu_ps(r0 + 2 * ow), t1 = _mm_loadu_ps(r0 + 2 * ow + 4);
    __m128 u0 = _mm_loadu_ps(r1 + 2 * ow), u1 = _mm_loadu_ps(r1 + 2 * ow + 4);
    __m128 best = _mm_shuffle_ps(t0, t1, _MM_SHUFFLE(2, 0, 2, 0));
    __m128i id = zero;
    auto take = [&](__m128 v, __m128i off) {
      __m128 m = _mm_or_ps(_mm_cmpgt_ps(v, best), _mm_cmpunord_ps(v, v));
      best = _mm_or_ps(_mm_and_ps(m, v), _mm_andnot_ps(m, best));
      if constexpr (kIdx) {
        __m128i mi = _mm_castps_si128(m);
        id = _mm_or_si128(_mm_and_si128(mi, off), _mm_andnot_si128(mi, id));
      }
    };
    take(_mm_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 1, 3, 1)), off_b);
    take(_mm_shuffle_ps(u0, u1, _MM_SHUFFLE(2, 0, 2, 0)), off_c);
    take(_mm_shuffle_ps(u0, u1, _MM_SHUFFLE(3, 1, 3, 1)), off_d);
    _mm_storeu_ps(o + ow, best);
    if constexpr (kIdx) {
      id = _mm_add_epi32(id, _mm_add_epi32(lanes, _mm_set1_epi32(static_cast<int>(h * W + 2 * ow))));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(ix + ow), _mm_unpacklo_epi32(id, zero));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(ix + ow + 2), _mm_unpackhi_epi32(id, zero));
    }
  }
  return n;
}
#endif

// max_pool1d's windows (one input row per plane, H = 1 and a kernel of one row): the 2-D loop's rule (a
// larger value or a NaN takes the place, so the first maximum and the last NaN win) as selects rather than a
// data-dependent branch, which random data mispredicts half the time, and without its per-row bookkeeping.
// The float 2-wide stride-2 window (PyTorch's usual max_pool1d(x, 2)) is 4 outputs per SSE step.
#if defined(__SSE2__)
template <bool kIdx>
int64_t max_pool_1x2_f32(const float* x, int64_t W, int64_t oW, float* o, int64_t* ix, int64_t first) {
  const int64_t n = std::min(oW, W / 2) / 4 * 4;
  const __m128i zero = _mm_setzero_si128(), lanes = _mm_set_epi32(6, 4, 2, 0), one = _mm_set1_epi32(1);
  for (int64_t ow = 0; ow < n; ow += 4) {
    const __m128 t0 = _mm_loadu_ps(x + 2 * ow), t1 = _mm_loadu_ps(x + 2 * ow + 4);
    const __m128 a = _mm_shuffle_ps(t0, t1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m128 b = _mm_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 1, 3, 1));
    const __m128 m = _mm_or_ps(_mm_cmpgt_ps(b, a), _mm_cmpunord_ps(b, b));
    _mm_storeu_ps(o + ow, _mm_or_ps(_mm_and_ps(m, b), _mm_andnot_ps(m, a)));
    if constexpr (kIdx) {
      __m128i id = _mm_and_si128(_mm_castps_si128(m), one);
      id = _mm_add_epi32(id, _mm_add_epi32(lanes, _mm_set1_epi32(static_cast<int>(first + 2 * ow))));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(ix + ow), _mm_unpacklo_epi32(id, zero));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(ix + ow + 2), _mm_unpackhi_epi32(id, zero));
    }
  }
  return n;
}
// four float windows from ow on: tap(j) gives tap j of the four as lanes; each tap a compare and a select
// per lane (the 2-D loop's rule: larger or NaN replaces), the tap index in int32 lanes
template <bool kIdx, typename Tap>
inline void max_windows4_f32(int64_t ow, int64_t k, int64_t s, int64_t pad, int64_t d, float* o, int64_t* ix,
                             const Tap& tap) {
  __m128 best = tap(0);
  __m128i bj = _mm_setzero_si128();
  for (int64_t j = 1; j < k; ++j) {
    const __m128 v = tap(j);
    const __m128 m = _mm_or_ps(_mm_cmpgt_ps(v, best), _mm_cmpunord_ps(v, v));
    best = _mm_or_ps(_mm_and_ps(m, v), _mm_andnot_ps(m, best));
    if constexpr (kIdx) {
      const __m128i mi = _mm_castps_si128(m);
      bj = _mm_or_si128(_mm_and_si128(mi, _mm_set1_epi32(static_cast<int>(j))), _mm_andnot_si128(mi, bj));
    }
  }
  _mm_storeu_ps(o + ow, best);
  if constexpr (!kIdx) return;
  alignas(16) int32_t jj[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(jj), bj);
  for (int64_t i = 0; i < 4; ++i) ix[ow + i] = (ow + i) * s - pad + static_cast<int64_t>(jj[i]) * d;
}
// float windows wholly inside the row [ow, hi) of W elements, four per step; returns where it stopped. A
// strided tap's lanes: stride 2 deinterleaves two loads (reading one element past the last window's tap), a
// 4-wide stride-4 window (max_pool1d(x, 4)) transposes four loads into its four taps; other strides load lane
// by lane.
template <bool kIdx>
int64_t max_pool_taps_f32(const float* x, int64_t ow, int64_t hi, int64_t k, int64_t s, int64_t pad,
                          int64_t d, int64_t W, float* o, int64_t* ix) {
  const int64_t span = (k - 1) * d;
  if (s == 2) {
    for (; ow + 4 <= hi && (ow + 3) * 2 - pad + span + 1 < W; ow += 4) {
      const float* b = x + ow * 2 - pad;
      max_windows4_f32<kIdx>(ow, k, s, pad, d, o, ix, [b, d](int64_t j) {
        const float* q = b + j * d;
        return _mm_shuffle_ps(_mm_loadu_ps(q), _mm_loadu_ps(q + 4), _MM_SHUFFLE(2, 0, 2, 0));
      });
    }
  } else if (s == 4 && k == 4 && d == 1) {
    for (; ow + 4 <= hi; ow += 4) {
      const float* b = x + ow * 4 - pad;
      __m128 t0 = _mm_loadu_ps(b), t1 = _mm_loadu_ps(b + 4), t2 = _mm_loadu_ps(b + 8),
             t3 = _mm_loadu_ps(b + 12);
      _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
      const __m128 taps[4] = {t0, t1, t2, t3};
      max_windows4_f32<kIdx>(ow, k, s, pad, d, o, ix, [&taps](int64_t j) { return taps[j]; });
    }
  }
  for (; ow + 4 <= hi; ow += 4) {
    const float* b = x + ow * s - pad;
    max_windows4_f32<kIdx>(ow, k, s, pad, d, o, ix, [b, s, d](int64_t j) {
      const float* q = b + j * d;
      return s == 1 ? _mm_loadu_ps(q) : _mm_set_ps(q[3 * s], q[2 * s], q[s], q[0]);
    });
  }
  return ow;
}
#endif

// max_pool1d's windows wholly inside the row, N at a time in vector lanes (GCC's vector extensions): float64
// at the baseline (two doubles, SSE2) and, where the CPU has AVX2 and MINITORCH_CPU_CAPABILITY allows it,
// float64 in fours and float32 in eights (target("avx2") copies, as kernels/cpu/Loops.h's loops). The rule is
// the scalar window's: in tap order a value replaces the best when larger or NaN (the first maximum and the
// last NaN win); each window's tap offset j d is kept in integer lanes and its position formed at the store.
// A tap of stride 1 is one load, of stride 2 two loads deinterleaved (reading one element past the last
// window's tap, inside the row), of other strides lane by lane.
#if defined(__GNUC__) && defined(__x86_64__)
// (the lambdas below pass 32-byte vectors, inlined into the target("avx2") copies: no ABI is involved; GCC
// warns at the end of the file, so the warning is off for the rest of it)
#pragma GCC diagnostic ignored "-Wpsabi"
template <typename T, int N>
struct PoolLanes;
template <>
struct PoolLanes<double, 2> {
  typedef double V __attribute__((vector_size(16)));
  typedef int64_t E;
  typedef int64_t I __attribute__((vector_size(16)));
  static constexpr I lane{0, 1}, evens{0, 2}, odds{1, 3};
};
template <>
struct PoolLanes<double, 4> {
  typedef double V __attribute__((vector_size(32)));
  typedef int64_t E;
  typedef int64_t I __attribute__((vector_size(32)));
  static constexpr I lane{0, 1, 2, 3}, evens{0, 2, 4, 6}, odds{1, 3, 5, 7};
};
template <>
struct PoolLanes<float, 8> {
  typedef float V __attribute__((vector_size(32)));
  typedef int32_t E;
  typedef int32_t I __attribute__((vector_size(32)));
  typedef int32_t H __attribute__((vector_size(16)));  // half of I, whose 64-bit widening fits a register
  typedef int64_t H64 __attribute__((vector_size(32)));
  static constexpr I lane{0, 1, 2, 3, 4, 5, 6, 7}, evens{0, 2, 4, 6, 8, 10, 12, 14},
      odds{1, 3, 5, 7, 9, 11, 13, 15};
};

// [ow, hi) of the windows wholly inside the row of W elements; returns where it stopped (a multiple of N
// windows done). float lanes need W < 2^31 and s < 2^27 (positions within a row in int32 lanes).
template <typename T, int N, bool kIdx>
__attribute__((always_inline)) inline int64_t max_pool_lanes(const T* x, int64_t ow, int64_t hi, int64_t k,
                                                             int64_t s, int64_t pad, int64_t d, int64_t W,
                                                             T* o, int64_t* ix) {
  using L = PoolLanes<T, N>;
  using V = typename L::V;
  using I = typename L::I;
  using E = typename L::E;
  const I lane_s = L::lane * static_cast<E>(s);  // window i's first tap, from the block's first
  auto windows = [&](int64_t w, auto tap) {
    V best = tap(0);
    I bj{};
    for (int64_t j = 1; j < k; ++j) {
      const V v = tap(j);
      const I m = (v > best) | (v != v);
      best = m ? v : best;
      if constexpr (kIdx) bj = m ? I{} + static_cast<E>(j * d) : bj;
    }
    std::memcpy(o + w, &best, sizeof(V));
    if constexpr (!kIdx) return;
    const I rel = lane_s + bj;
    if constexpr (sizeof(T) == 8) {
      const I pos = rel + (w * s - pad);
      std::memcpy(ix + w, &pos, sizeof(I));
    } else {  // each half widened on its own (one 64-byte vector went through the stack, 8x slower)
      using H = typename L::H;
      using H64 = typename L::H64;
      H lo, up;
      std::memcpy(&lo, &rel, sizeof(H));
      std::memcpy(&up, reinterpret_cast<const char*>(&rel) + sizeof(H), sizeof(H));
      const H64 p0 = __builtin_convertvector(lo, H64) + (w * s - pad);
      const H64 p1 = __builtin_convertvector(up, H64) + (w * s - pad);
      std::memcpy(ix + w, &p0, sizeof(H64));
      std::memcpy(ix + w + N / 2, &p1, sizeof(H64));
    }
  };
  auto load = [](const T* p) {
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
  };
  const int64_t span = (k - 1) * d;
  if (s == 1) {
    for (; ow + N <= hi; ow += N) {
      const T* b = x + ow - pad;
      windows(ow, [&](int64_t j) { return load(b + j * d); });
    }
  } else if (s == 2) {
    for (; ow + N <= hi && (ow + N - 1) * 2 - pad + span + 1 < W; ow += N) {
      const T* b = x + ow * 2 - pad;
      if (k == 2 && d == 1) {  // max_pool1d(x, 2): both taps from the same two loads
        const V lo = load(b), up = load(b + N);
        const V t1 = __builtin_shuffle(lo, up, L::odds);
        windows(ow, [&](int64_t j) { return j == 0 ? __builtin_shuffle(lo, up, L::evens) : t1; });
      } else {
        windows(ow, [&](int64_t j) {
          const T* q = b + j * d;
          return __builtin_shuffle(load(q), load(q + N), L::evens);
        });
      }
    }
  }
  for (; ow + N <= hi; ow += N) {
    const T* b = x + ow * s - pad;
    windows(ow, [&](int64_t j) {
      const T* q = b + j * d;
      V v;
      for (int i = 0; i < N; ++i) v[i] = q[i * s];
      return v;
    });
  }
  return ow;
}

template <bool kIdx>
int64_t max_pool_lanes_f64(const double* x, int64_t ow, int64_t hi, int64_t k, int64_t s, int64_t pad,
                           int64_t d, int64_t W, double* o, int64_t* ix) {
  return max_pool_lanes<double, 2, kIdx>(x, ow, hi, k, s, pad, d, W, o, ix);
}
#ifdef MT_LOOPS_AVX2
template <bool kIdx>
__attribute__((target("avx2"))) int64_t max_pool_lanes_f64_avx2(const double* x, int64_t ow, int64_t hi,
                                                                int64_t k, int64_t s, int64_t pad, int64_t d,
                                                                int64_t W, double* o, int64_t* ix) {
  return max_pool_lanes<double, 4, kIdx>(x, ow, hi, k, s, pad, d, W, o, ix);
}
template <bool kIdx>
__attribute__((target("avx2"))) int64_t max_pool_lanes_f32_avx2(const float* x, int64_t ow, int64_t hi,
                                                                int64_t k, int64_t s, int64_t pad, int64_t d,
                                                                int64_t W, float* o, int64_t* ix) {
  return max_pool_lanes<float, 8, kIdx>(x, ow, hi, k, s, pad, d, W, o, ix);
}
#endif
#endif

// The start of a max: -inf for floating types, the smallest value for integers (PyTorch's CPU max_pool2d
// takes every dtype but bool; a window is never empty, so its first element always replaces this)
template <typename A>
constexpr A lowest_value() {
  if constexpr (std::numeric_limits<A>::has_infinity)
    return -std::numeric_limits<A>::infinity();
  else
    return std::numeric_limits<A>::lowest();
}

// ix null (kIdx false): values only, for a max_pool without return_indices and no gradient
template <typename T, bool kIdx>
void max_pool_row(const T* x, int64_t W, int64_t oW, const PoolArgs& a, T* o, int64_t* ix) {
  using acc_t = opmath_t<T>;
  const int64_t k = a.kernel[1], s = a.stride[1], pad = a.padding[1], d = a.dilation[1];
  // one window, clipped to the row (the edges, and every window when padding reaches them)
  auto window = [&](int64_t ow) {
    int64_t w0 = ow * s - pad;
    const int64_t w1 = std::min(w0 + (k - 1) * d + 1, W);
    while (w0 < 0) w0 += d;
    acc_t best = lowest_value<acc_t>();
    int64_t bi = w0;
    for (int64_t w = w0; w < w1; w += d) {
      const acc_t v = static_cast<acc_t>(x[w]);
      const bool take = (v > best) | (v != v);
      best = take ? v : best;
      bi = take ? w : bi;
    }
    o[ow] = static_cast<T>(best);
    if constexpr (kIdx) ix[ow] = bi;
  };
  // the windows wholly inside the row: [lo, hi)
  const int64_t lo = std::min(oW, (pad + s - 1) / s);
  const int64_t span = (k - 1) * d;
  const int64_t hi = std::max(lo, std::min(oW, W - 1 - span + pad >= 0 ? (W - 1 - span + pad) / s + 1 : 0));
  int64_t ow = 0;
  for (; ow < lo; ++ow) window(ow);
#if defined(__GNUC__) && defined(__x86_64__)
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) {
    if constexpr (std::is_same_v<T, double>)
      ow = max_pool_lanes_f64_avx2<kIdx>(x, ow, hi, k, s, pad, d, W, o, ix);
    if constexpr (std::is_same_v<T, float>) {
      if (W < (int64_t(1) << 31) && s < (int64_t(1) << 27))
        ow = max_pool_lanes_f32_avx2<kIdx>(x, ow, hi, k, s, pad, d, W, o, ix);
    }
  }
#endif
  if constexpr (std::is_same_v<T, double>) ow = max_pool_lanes_f64<kIdx>(x, ow, hi, k, s, pad, d, W, o, ix);
#endif
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>) {
    if (k == 2 && s == 2 && pad == 0 && d == 1 && W < (int64_t(1) << 31))
      ow += max_pool_1x2_f32<kIdx>(x + 2 * ow, W - 2 * ow, hi - ow, o + ow, kIdx ? ix + ow : ix, 2 * ow);
    if (k < (int64_t(1) << 31)) ow = max_pool_taps_f32<kIdx>(x, ow, hi, k, s, pad, d, W, o, ix);
  }
#endif
  // kB windows at a time, tap by tap: each tap is one select per window over independent lanes (bitwise
  // tests, no short-circuit branch), which the compiler vectorizes; the tap index is kept in int32 lanes and
  // the position formed at the store. Unit stride (loads of consecutive windows contiguous) has its own copy.
  constexpr int64_t kB = 16;
  auto blocks = [&](auto unit) {
    constexpr bool kUnit = decltype(unit)::value;
    const int64_t st = kUnit ? 1 : s;
    for (; ow + kB <= hi; ow += kB) {
      const T* base = x + ow * st - pad;
      acc_t best[kB];
      int32_t bj[kB];
      for (int64_t i = 0; i < kB; ++i) {
        best[i] = static_cast<acc_t>(base[i * st]);
        bj[i] = 0;
      }
      for (int64_t j = 1; j < k; ++j) {
        const T* q = base + j * d;
        for (int64_t i = 0; i < kB; ++i) {
          const acc_t v = static_cast<acc_t>(q[i * st]);
          const bool take = (v > best[i]) | (v != v);
          best[i] = take ? v : best[i];
          if constexpr (kIdx) bj[i] = take ? static_cast<int32_t>(j) : bj[i];
        }
      }
      for (int64_t i = 0; i < kB; ++i) {
        o[ow + i] = static_cast<T>(best[i]);
        if constexpr (kIdx) ix[ow + i] = (ow + i) * st - pad + static_cast<int64_t>(bj[i]) * d;
      }
    }
  };
  if (s == 1)
    blocks(std::true_type{});
  else
    blocks(std::false_type{});
  for (; ow < oW; ++ow) window(ow);
}

// One max window: the first maximum wins, a NaN beats everything and the last NaN wins (PyTorch's rule).
// Without indices (kIdx false, ix null) the same windows write values only: PyTorch's max_pool1d writes
// none, and the int64 index of each output cost more than the windows (8 bytes beside 4 or 8).
template <typename T, bool kIdx>
void max_pool_planes(const Tensor& out, int64_t* ix, const Tensor& input, const PoolArgs& a) {
  using acc_t = opmath_t<T>;
  Planes p = planes_of(input, out);
  const T* in = input.data<T>();
  T* o = out.data<T>();
  // indices are built in int32 lanes there
  const bool fast_2x2 = std::is_same_v<T, float> && !a.adaptive && a.kernel[0] == 2 && a.kernel[1] == 2 &&
                        a.stride[0] == 2 && a.stride[1] == 2 && a.padding[0] == 0 && a.padding[1] == 0 &&
                        a.dilation[0] == 1 && a.dilation[1] == 1 && p.H * p.W < (int64_t(1) << 31);
  // A 1-d adaptive pool whose windows tile the row (oW divides W: window ow is [ow k, (ow + 1) k), k = W /
  // oW) is max_pool1d(k, k): the row loop's vector lanes instead of the generic loop's branch per value (a
  // [32, 16, 128] -> 16 pool at 0.5 ns a value).
  const bool tiles_1d = a.adaptive && p.H == 1 && p.oH == 1 && p.oW > 0 && p.W % p.oW == 0;
  if (tiles_1d || (!a.adaptive && p.H == 1 && p.oH == 1 && a.kernel[0] == 1 && a.padding[0] == 0)) {
    PoolArgs r = a;
    if (tiles_1d) {
      r.kernel[1] = r.stride[1] = p.W / p.oW;
      r.padding[1] = 0;
      r.dilation[1] = 1;
    }
    parallel_rows(p.P, window_work(p, a), [&](int64_t p0, int64_t p1) {
      for (int64_t pl = p0; pl < p1; ++pl)
        max_pool_row<T, kIdx>(in + pl * p.W, p.W, p.oW, r, o + pl * p.oW, kIdx ? ix + pl * p.oW : ix);
    });
    return;
  }
  parallel_rows(p.P, window_work(p, a), [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      const T* x = in + pl * p.H * p.W;
      for (int64_t oh = 0; oh < p.oH; ++oh) {
        int64_t h0, h1, dh;
        if (a.adaptive) {
          h0 = adaptive_start(oh, p.oH, p.H), h1 = adaptive_end(oh, p.oH, p.H), dh = 1;
        } else {
          dh = a.dilation[0];
          h0 = oh * a.stride[0] - a.padding[0];
          h1 = std::min(h0 + (a.kernel[0] - 1) * dh + 1, p.H);
          while (h0 < 0) h0 += dh;
        }
        int64_t ow = 0;
#if defined(__SSE2__)
        if constexpr (std::is_same_v<T, float>) {
          if (fast_2x2 && h0 + 1 < p.H) {
            int64_t oi = (pl * p.oH + oh) * p.oW;
            ow = max_pool_2x2_f32<kIdx>(x + h0 * p.W, p.W, h0, p.oW, o + oi, kIdx ? ix + oi : ix);
          }
        }
#endif
        for (; ow < p.oW; ++ow) {
          int64_t w0, w1, dw;
          if (a.adaptive) {
            w0 = adaptive_start(ow, p.oW, p.W), w1 = adaptive_end(ow, p.oW, p.W), dw = 1;
          } else {
            dw = a.dilation[1];
            w0 = ow * a.stride[1] - a.padding[1];
            w1 = std::min(w0 + (a.kernel[1] - 1) * dw + 1, p.W);
            while (w0 < 0) w0 += dw;
          }
          acc_t best = lowest_value<acc_t>();
          int64_t bi = h0 * p.W + w0;
          for (int64_t h = h0; h < h1; h += dh) {
            const T* row = x + h * p.W;
            for (int64_t w = w0; w < w1; w += dw) {
              acc_t v = static_cast<acc_t>(row[w]);
              // PyTorch's test: a larger value or any NaN takes the place (so the last NaN's index wins)
              if (v > best || v != v) {
                best = v;
                bi = h * p.W + w;
              }
            }
          }
          int64_t oi = (pl * p.oH + oh) * p.oW + ow;
          o[oi] = static_cast<T>(best);
          if constexpr (kIdx) ix[oi] = bi;
        }
      }
    }
  });
}

// Sum of n consecutive values in opmath: eight partial sums, so long spans (a global average pool's plane)
// vectorize instead of waiting on one accumulator's add latency.
template <typename T, typename acc_t>
acc_t sum_span(const T* x, int64_t n) {
  if (n < 16) {
    acc_t s = 0;
    for (int64_t i = 0; i < n; ++i) s = wrap_add(s, static_cast<acc_t>(x[i]));
    return s;
  }
  acc_t part[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) part[j] = wrap_add(part[j], static_cast<acc_t>(x[i + j]));
  acc_t s = wrap_add(wrap_add(wrap_add(part[0], part[1]), wrap_add(part[2], part[3])),
                     wrap_add(wrap_add(part[4], part[5]), wrap_add(part[6], part[7])));
  for (; i < n; ++i) s = wrap_add(s, static_cast<acc_t>(x[i]));
  return s;
}

// The windows and divisors are the same for every plane: computed once (the adaptive ones take integer
// divisions, which cost more than a global pool's whole 7x7 sum), then the planes run.
struct AvgPlan {
  std::vector<PoolWindow> hw, ww;
  std::vector<int64_t> div;  // oH x oW
};
AvgPlan avg_plan(const Planes& p, const PoolArgs& a) {
  AvgPlan w;
  for (int64_t oh = 0; oh < p.oH; ++oh)
    w.hw.push_back(avg_window(oh, p.oH, p.H, a.kernel[0], a.stride[0], a.padding[0], a.adaptive));
  for (int64_t ow = 0; ow < p.oW; ++ow)
    w.ww.push_back(avg_window(ow, p.oW, p.W, a.kernel[1], a.stride[1], a.padding[1], a.adaptive));
  for (int64_t oh = 0; oh < p.oH; ++oh)
    for (int64_t ow = 0; ow < p.oW; ++ow)
      w.div.push_back(avg_divisor(w.hw[oh], w.ww[ow], a.count_include_pad, a.divisor));
  return w;
}

template <typename T>
void avg_pool_loop(const Tensor& out, const Tensor& input, const PoolArgs& a) {
  using acc_t = opmath_t<T>;
  Planes p = planes_of(input, out);
  AvgPlan plan = avg_plan(p, a);
  const T* in = input.data<T>();
  T* o = out.data<T>();
  parallel_rows(p.P, window_work(p, a), [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      const T* x = in + pl * p.H * p.W;
      T* y = o + pl * p.oH * p.oW;
      for (int64_t oh = 0; oh < p.oH; ++oh) {
        const PoolWindow& hw = plan.hw[oh];
        for (int64_t ow = 0; ow < p.oW; ++ow) {
          const PoolWindow& ww = plan.ww[ow];
          acc_t s = 0;
          if (ww.start == 0 && ww.end == p.W)  // whole rows: one contiguous span
            s = sum_span<T, acc_t>(x + hw.start * p.W, (hw.end - hw.start) * p.W);
          else
            for (int64_t h = hw.start; h < hw.end; ++h)
              for (int64_t w = ww.start; w < ww.end; ++w) s = wrap_add(s, static_cast<acc_t>(x[h * p.W + w]));
          int64_t div = plan.div[oh * p.oW + ow];
          if constexpr (std::is_integral<T>::value)
            y[oh * p.oW + ow] =
                div > 0 ? static_cast<T>(s / acc_t(div)) : T(0);  // C++'s truncation, as PyTorch
          else
            y[oh * p.oW + ow] = static_cast<T>(div > 0 ? s / acc_t(div) : acc_t(NAN));
        }
      }
    }
  });
}

// Per plane, each output window spreads its gradient over its inputs (planes run in parallel, so no two
// threads write one element); accumulated in opmath, rounded once.
template <typename T>
void avg_pool_backward_loop(const Tensor& grad_in, const Tensor& grad_out, const PoolArgs& a) {
  using acc_t = opmath_t<T>;
  Planes p = planes_of(grad_in, grad_out);
  AvgPlan plan = avg_plan(p, a);
  const T* go = grad_out.data<T>();
  T* gi = grad_in.data<T>();
  parallel_rows(p.P, p.H * p.W + p.oH * p.oW * a.kernel[0] * a.kernel[1], [&](int64_t p0, int64_t p1) {
    std::vector<acc_t> acc(static_cast<size_t>(p.H * p.W));
    for (int64_t pl = p0; pl < p1; ++pl) {
      std::fill(acc.begin(), acc.end(), acc_t(0));
      const T* g = go + pl * p.oH * p.oW;
      for (int64_t oh = 0; oh < p.oH; ++oh) {
        const PoolWindow& hw = plan.hw[oh];
        for (int64_t ow = 0; ow < p.oW; ++ow) {
          const PoolWindow& ww = plan.ww[ow];
          acc_t v = static_cast<acc_t>(g[oh * p.oW + ow]) / acc_t(plan.div[oh * p.oW + ow]);
          for (int64_t h = hw.start; h < hw.end; ++h) {
            acc_t* row = acc.data() + h * p.W;
            for (int64_t w = ww.start; w < ww.end; ++w) row[w] += v;
          }
        }
      }
      T* dst = gi + pl * p.H * p.W;
      for (int64_t i = 0; i < p.H * p.W; ++i) dst[i] = static_cast<T>(acc[i]);
    }
  });
}

// Each output's gradient goes to the input its saved index names, plane by plane (a plane is one thread's, so
// no races): one pass over the outputs, in output order as the gather on CUDA sums them. Reduced types sum in
// float.
template <typename T>
void max_pool_backward_loop(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                            const PoolArgs& a) {
  using acc_t = opmath_t<T>;
  Planes p = planes_of(grad_in, grad_out);
  const T* go = grad_out.data<T>();
  const int64_t* ix = indices.data<int64_t>();
  T* gi = grad_in.data<T>();
  const int64_t n = p.H * p.W, m = p.oH * p.oW;
  parallel_rows(p.P, n + m, [&](int64_t p0, int64_t p1) {
    std::vector<acc_t> buf;
    for (int64_t pl = p0; pl < p1; ++pl) {
      const T* g = go + pl * m;
      const int64_t* x = ix + pl * m;
      T* dst = gi + pl * n;
      if constexpr (std::is_same_v<acc_t, T>) {
        std::fill(dst, dst + n, T(0));
        for (int64_t i = 0; i < m; ++i) dst[x[i]] += g[i];
      } else {
        buf.assign(n, acc_t(0));
        for (int64_t i = 0; i < m; ++i) buf[x[i]] += static_cast<acc_t>(g[i]);
        for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<T>(buf[j]);
      }
    }
  });
}

void max_pool2d_backward_cpu(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                             const PoolArgs& a) {
  MT_DISPATCH_FLOATING_TYPES(grad_in.dtype(), "max_pool2d_backward",
                             [&] { max_pool_backward_loop<scalar_t>(grad_in, grad_out, indices, a); });
}

void max_pool2d_cpu(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolArgs& a) {
  MT_DISPATCH_NUMERIC_TYPES(input.dtype(), "max_pool2d", [&] {
    if (indices.defined())
      max_pool_planes<scalar_t, true>(out, indices.data<int64_t>(), input, a);
    else
      max_pool_planes<scalar_t, false>(out, nullptr, input, a);
  });
}
void avg_pool2d_cpu(const Tensor& out, const Tensor& input, const PoolArgs& a) {
  if (input.dtype() == ScalarType::Long) return avg_pool_loop<int64_t>(out, input, a);
  MT_DISPATCH_FLOATING_TYPES(input.dtype(), "avg_pool2d", [&] { avg_pool_loop<scalar_t>(out, input, a); });
}
void avg_pool2d_backward_cpu(const Tensor& grad_in, const Tensor& grad_out, const PoolArgs& a) {
  MT_DISPATCH_FLOATING_TYPES(grad_in.dtype(), "avg_pool2d_backward",
                             [&] { avg_pool_backward_loop<scalar_t>(grad_in, grad_out, a); });
}

}  // namespace

MT_REGISTER_KERNEL(max_pool2d_stub, CPU, &max_pool2d_cpu);
MT_REGISTER_KERNEL(avg_pool2d_stub, CPU, &avg_pool2d_cpu);
MT_REGISTER_KERNEL(avg_pool2d_backward_stub, CPU, &avg_pool2d_backward_cpu);
MT_REGISTER_KERNEL(max_pool2d_backward_stub, CPU, &max_pool2d_backward_cpu);

}  // namespace mt
