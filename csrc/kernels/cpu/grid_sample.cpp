// CPU grid_sample kernels: each output point's taps and weights (ops/grid_sample.h's math, in the composite's
// operation order), then a run over the channels. 2-D and 3-D sampling take blocked passes compiled per
// instruction set (below); a per-point loop is left for images of 2^30 elements and more (int32 offsets). The
// forward splits over (batch, output row), the backward over the batch
// (the input gradient is a scatter: one batch's points never touch another's). A tap outside the image reads
// zero but still meets its weight, so a NaN grid point gives NaN as PyTorch's.
#include "ops/grid_sample.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/Parallel.h"
#include "kernels/cpu/ParallelRows.h"
#include "kernels/cpu/VecUnary.h"

namespace mt {
namespace {

// Spatial geometry of one call: input sizes and element strides slowest first, points per batch entry.
struct Geometry {
  int nd;  // 2 or 3
  int64_t N, C, P, row;
  int64_t size[3], stride[3], plane;
};

Geometry geometry(const Tensor& input, const Tensor& grid) {
  Geometry g;
  g.nd = static_cast<int>(input.dim()) - 2;
  g.N = input.sizes()[0];
  g.C = input.sizes()[1];
  g.plane = 1;
  for (int d = g.nd - 1; d >= 0; --d) {
    g.size[d] = input.sizes()[2 + d];
    g.stride[d] = g.plane;
    g.plane *= g.size[d];
  }
  g.P = 1;
  for (int64_t d = 1; d < grid.dim() - 1; ++d) g.P *= grid.sizes()[d];
  g.row = grid.sizes()[grid.dim() - 2];
  return g;
}

// The 2^ND taps of linear sampling at one point (nearest: tap 0 only). off is valid only where in is set.
template <typename T, int ND>
struct Taps {
  static constexpr int K = 1 << ND;
  int64_t off[K];
  bool in[K];
  T w[K];
  T lo_w[ND], hi_w[ND], mult[ND];  // per axis, slowest first: the low and high weights, d(coord)/d(grid)
};

template <typename T, int ND>
inline void linear_taps(const T* gp, const Geometry& geo, const GridSampleArgs& a, Taps<T, ND>& t) {
  int64_t lo_i[ND];
  bool lo_ok[ND], hi_ok[ND];
  for (int d = 0; d < ND; ++d) {
    const int64_t size = geo.size[d];
    const T c = grid_source_index(gp[ND - 1 - d], size, a, &t.mult[d]);  // the grid's last axis is x first
    const T lo = grid_floor(c), hi = lo + 1;
    t.lo_w[d] = hi - c;
    t.hi_w[d] = c - lo;
    lo_ok[d] = lo >= 0 && lo <= T(size - 1);
    hi_ok[d] = hi >= 0 && hi <= T(size - 1);
    // NaN and huge coordinates never reach the integer conversion
    lo_i[d] = (lo_ok[d] || hi_ok[d]) ? static_cast<int64_t>(lo) : 0;
  }
  for (int k = 0; k < Taps<T, ND>::K; ++k) {
    bool in = true;
    int64_t off = 0;
    T w = T(0);
    for (int d = 0; d < ND; ++d) {
      const bool high = (k >> (ND - 1 - d)) & 1;
      in = in && (high ? hi_ok[d] : lo_ok[d]);
      off += (lo_i[d] + high) * geo.stride[d];
      const T wd = high ? t.hi_w[d] : t.lo_w[d];
      w = d == 0 ? wd : w * wd;
    }
    t.in[k] = in;
    t.off[k] = in ? off : 0;
    t.w[k] = w;
  }
}

template <typename T, int ND>
inline void nearest_tap(const T* gp, const Geometry& geo, const GridSampleArgs& a, Taps<T, ND>& t) {
  bool in = true;
  int64_t off = 0;
  for (int d = 0; d < ND; ++d) {
    const int64_t size = geo.size[d];
    const T c = grid_round_even(grid_source_index(gp[ND - 1 - d], size, a, &t.mult[d]));  // half to even
    const bool ok = c >= 0 && c <= T(size - 1);
    in = in && ok;
    if (ok) off += static_cast<int64_t>(c) * geo.stride[d];
  }
  t.in[0] = in;
  t.off[0] = in ? off : 0;
}

// Bicubic (2-D): 4 x 4 taps, y slowest; the cubic weights of the fractions and their derivatives.
template <typename T>
struct CubicTaps {
  int64_t yoff[4], xoff[4];
  bool yin[4], xin[4];
  T wy[4], wx[4], dwy[4], dwx[4], my, mx;
};

template <typename T>
inline void cubic_weights(T t, T* w, T* dw) {
  w[0] = grid_cubic_far(t + 1);
  w[1] = grid_cubic_near(t);
  w[2] = grid_cubic_near(1 - t);
  w[3] = grid_cubic_far(2 - t);
  dw[0] = grid_cubic_far_d(t + 1);
  dw[1] = grid_cubic_near_d(t);
  dw[2] = -grid_cubic_near_d(1 - t);
  dw[3] = -grid_cubic_far_d(2 - t);
}

template <typename T>
inline void cubic_axis(T raw, int64_t size, int64_t stride, const GridSampleArgs& a, T* w, T* dw, T* mult,
                       int64_t* off, bool* in) {
  const T c = grid_unnormalize(raw, size, a.align_corners, mult);
  const T c0 = grid_floor(c);
  cubic_weights(c - c0, w, dw);
  for (int i = 0; i < 4; ++i) {
    T unused = T(1);
    const T p = grid_trunc(grid_pad(c0 + T(i - 1), size, a.padding, a.align_corners, &unused));
    in[i] = p >= 0 && p <= T(size - 1);
    off[i] = in[i] ? static_cast<int64_t>(p) * stride : 0;
  }
}

template <typename T>
inline void cubic_taps(const T* gp, const Geometry& geo, const GridSampleArgs& a, CubicTaps<T>& t) {
  cubic_axis(gp[1], geo.size[0], geo.stride[0], a, t.wy, t.dwy, &t.my, t.yoff, t.yin);
  cubic_axis(gp[0], geo.size[1], geo.stride[1], a, t.wx, t.dwx, &t.mx, t.xoff, t.xin);
}

// off is 0 where the tap is outside, so the load is always valid and the select needs no branch
template <typename T>
inline T at(const T* xc, bool in, int64_t off) {
  const T v = xc[off];
  return in ? v : T(0);
}

// ---- 2-D sampling (every mode and padding) in blocks of 64 points, in two passes: the coordinates, weights
// and int32 offsets of a block with selects only (so the compiler vectorizes it), then per channel a
// branch-free gather (forward), or the grid gradient's sums (gathers) and the input gradient's scatter
// (backward). One point at a time, branches and int64 conversions cost 3-5x more. Reflection folds in
// vectors where a block's coordinates are bounded (fast_reflect), per point elsewhere. GCC leaves a loop
// scalar for a select on a loop-invariant flag or a bool made from integer bits, so the passes avoid both.
constexpr int kBlock = 64;

// The passes are compiled twice, for the baseline and for AVX2, and run the AVX2 copy where the CPU and
// MINITORCH_CPU_CAPABILITY allow (vec::cpu_capability: avx2 or avx512, as the unary kernels). The copies give
// the same bits: plain IEEE operations in one order, no FMA (the AVX2 copy has none to contract to), int32
// conversions that truncate alike. GCC's generic tuning never vectorizes a gather, so the AVX2 copy names a
// tuning that does (PyTorch's AVX2 kernels gather too); since GCC inlines nothing across a tuning change but
// always_inline functions, everything the passes call is always_inline. An AVX-512 copy (16 lanes, its
// contraction turned off) measured 15-40% slower than this one on the AVX-512 EPYC (zmm gathers), so
// MINITORCH_CPU_CAPABILITY=avx512 runs the AVX2 copy.
#define MT_GS_INLINE __attribute__((always_inline)) inline
#define MT_GS_LAMBDA __attribute__((always_inline))
#if defined(__x86_64__) && defined(__GNUC__) && defined(MINITORCH_WITH_CPU_VEC)
#define MT_GS_VEC 1
#if defined(__clang__)
#define MT_GS_AVX2 __attribute__((target("avx2")))
#else
#define MT_GS_AVX2 __attribute__((target("avx2,tune=haswell")))
#endif
template <typename F>
MT_GS_AVX2 void run_avx2(const F& f) {
  f(std::integral_constant<int, 1>{});
}
// GCC's generic tuning: a gather becomes scalar loads and inserts, which run the one-channel bilinear loop
// (coordinates, four taps and the sum in one pass) ~10% faster than vgatherdps on the AVX-512 EPYC
template <typename F>
__attribute__((target("avx2"))) void run_avx2_generic(const F& f) {
  f(std::integral_constant<int, 1>{});
}
bool use_avx2() {
  static const bool use = std::strcmp(vec::cpu_capability(), "DEFAULT") != 0;
  return use;
}
#endif
// f(ISA) with ISA 1 in the AVX2 copy (GENERIC: its generically tuned twin), 0 in the baseline one
template <bool GENERIC = false, typename F>
inline void run_on_isa(const F& f) {
#ifdef MT_GS_VEC
  if (use_avx2()) return GENERIC ? run_avx2_generic(f) : run_avx2(f);
#endif
  f(std::integral_constant<int, 0>{});
}

// branch-free on purpose: the fractions of a warped grid are random, and every mispredicted branch of the
// floor, the rounding or the bounds costs more than the arithmetic (comparisons become 0/1 numbers or masks)
template <typename T>
MT_GS_INLINE T block_clip(T c, T size) {
  const T inner = c < size - 1 ? c : size - 1;
  return c > 0 ? inner : T(0);  // NaN lands on 0, as the composite's
}
// Floor and round-half-to-even of any value (NaN stays NaN), exact. The vector copies (ISA > 0) have the
// instructions (the builtins: std::floor would be a call, and GCC inlines nothing else across the copies'
// tuning). The baseline (no SSE4.1 round, no packed double-to-int64) rounds by adding and subtracting 2^23
// (float) or 2^52 (double), from where on every value is an integer: plain IEEE operations it vectorizes.
// (It went through int32 and left doubles between 1e9 and 2^52 unfloored.)
template <typename T>
MT_GS_INLINE T block_rint_baseline(T c) {
  if constexpr (sizeof(T) == 4) {
    const float a = __builtin_fabsf(c), r = (a + 8388608.0f) - 8388608.0f;
    return a < 8388608.0f ? __builtin_copysignf(r, c) : c;
  } else {
    const double a = __builtin_fabs(c), r = (a + 4503599627370496.0) - 4503599627370496.0;
    return a < 4503599627370496.0 ? __builtin_copysign(r, c) : c;
  }
}
template <int ISA, typename T>
MT_GS_INLINE T block_floor(T c) {
  if constexpr (ISA > 0) {
    return sizeof(T) == 4 ? __builtin_floorf(static_cast<float>(c)) : __builtin_floor(c);
  } else {
    const T r = block_rint_baseline(c);
    return r > c ? r - 1 : r;
  }
}
template <int ISA, typename T>
MT_GS_INLINE T block_round_even(T c) {
  if constexpr (ISA > 0)  // the default rounding mode is to nearest even
    return sizeof(T) == 4 ? __builtin_rintf(static_cast<float>(c)) : __builtin_rint(c);
  return block_rint_baseline(c);
}
// Border and reflection clip every coordinate into [0, size - 1] (NaN to 0), so there a rounded or low tap
// is always inside and a high one (low + 1 >= 1) needs only its upper bound. Saying so also keeps GCC from
// threading the clip's branches into the masks, which then mix boolean widths it cannot vectorize.
template <int PAD, typename T>
MT_GS_INLINE bool block_inside(T c, T size) {
  if constexpr (PAD != 0) return true;
  return (c >= 0) & (c <= size - 1);
}
template <int PAD, typename T>
MT_GS_INLINE bool block_inside_high(T c, T size) {
  if constexpr (PAD != 0) return c <= size - 1;
  return (c >= 0) & (c <= size - 1);
}

// Reflection's fold (grid_reflect's values) in vector operations: where |c| < 2^21 and the spans are integers
// under 2^20 (fast_reflect checks a block's grid values), flips * span and d - flips * span are exact, so the
// remainder is fmod's exactly, and flips is grid_reflect's floor(d / span) (which may be one above the true
// quotient: the remainder then comes out negative, and one span added back restores fmod's). Then the clip.
template <typename T, bool ALIGN, int ISA>
MT_GS_INLINE T block_reflect(T c, T size, T* mult) {
  // align_corners on a size-1 axis has no span: fold by 1 instead, which the clip to [0, 0] then discards
  // (the value 0 and no gradient, grid_reflect's). A select on the loop-invariant flag would stop the
  // vectorizer.
  const T low = ALIGN ? T(0) : T(-0.5), span = ALIGN ? (size > 1 ? size - 1 : T(1)) : size;
  T d = c - low;
  const bool neg = d < 0;
  d = neg ? -d : d;
  const T flips = block_floor<ISA>(d / span);
  T r = d - flips * span;
  r = r < 0 ? r + span : r;
  // the parity as a number: a bool from integer bits stops GCC's vectorizer ("bit-precision arithmetic")
  const T odd = static_cast<T>(static_cast<int32_t>(flips) & 1);
  const T out = odd != 0 ? span - r + low : r + low;
  const T s1 = odd != 0 ? T(-1) : T(1);
  const T sign = neg ? -s1 : s1;
  *mult = (out > 0) & (out < size - 1) ? *mult * sign : T(0);
  return block_clip(out, size);
}
// whether every grid value of a block (count values, big the largest axis size) keeps its coordinates in
// block_reflect's range
template <typename T>
MT_GS_INLINE bool fast_reflect_values(const T* __restrict gp, int count, T big) {
  if (!(big < T(1 << 20))) return false;
  const T lim = T(1 << 20) / big;  // |coordinate| < (lim + 1) * size / 2 < 2^20
  int32_t ok = 1;
  for (int j = 0; j < count; ++j) ok &= static_cast<int32_t>((gp[j] > -lim) & (gp[j] < lim));
  return ok != 0;
}
template <typename T>
MT_GS_INLINE bool fast_reflect(const T* __restrict gp, int nb, T Wf, T Hf) {
  return fast_reflect_values(gp, 2 * nb, Wf > Hf ? Wf : Hf);
}

// a grid value's pixel coordinate and d(coordinate)/d(grid value): grid_source_index's values, branch-free
// for zeros and border padding, and for reflection where FAST (fast_reflect)
template <typename T, int PAD, bool ALIGN, int ISA = 0, bool FAST = false>
MT_GS_INLINE T block_coord(T raw, T size, T* mult) {
  if constexpr (PAD == 2 && !FAST) {
    GridSampleArgs a;
    a.padding = 2;
    a.align_corners = ALIGN;
    return grid_source_index(raw, static_cast<int64_t>(size), a, mult);
  } else {
    const T c = ALIGN ? (raw + 1) / 2 * (size - 1) : ((raw + 1) * size - 1) / 2;
    const T m = ALIGN ? (size - 1) / 2 : size / 2;
    if constexpr (PAD == 2) {
      T pm = T(1);
      const T out = block_reflect<T, ALIGN, ISA>(c, size, &pm);
      *mult = m * pm;
      return out;
    } else if constexpr (PAD == 1) {
      *mult = (c > 0) & (c < size - 1) ? m : T(0);  // a point on the border passes no gradient
      return block_clip(c, size);
    } else {
      *mult = m;
      return c;
    }
  }
}

// A block's bilinear taps (y slowest: 00, 01, 10, 11): weights, offsets (0 outside) and masks (all ones
// inside); nearest uses tap 0. The backward also keeps the per-axis weights and d(coordinate)/d(grid value).
template <typename T>
struct LinearBlock {
  alignas(64) T w[4][kBlock];
  alignas(64) int32_t off[4][kBlock];
  alignas(64) int32_t in[4][kBlock];
  alignas(64) T wx[2][kBlock];
  alignas(64) T wy[2][kBlock];
  alignas(64) T mx[kBlock];
  alignas(64) T my[kBlock];
};

// ONE: a single channel, sampled in the same loop (xc, yc) instead of through the block's arrays, the same
// operations in the same order as linear_gather; for one channel the arrays' round trip cost a third
template <typename T, int PAD, bool ALIGN, bool GRAD, int ISA, bool ONE = false, bool FAST = false>
MT_GS_INLINE void linear_block(const T* __restrict gp, int nb, T Wf, T Hf, int32_t W,
                               LinearBlock<T>* __restrict b, const T* __restrict xc = nullptr,
                               T* __restrict yc = nullptr) {
  if constexpr (PAD == 2 && !FAST) {
    if (fast_reflect(gp, nb, Wf, Hf))
      return linear_block<T, PAD, ALIGN, GRAD, ISA, ONE, true>(gp, nb, Wf, Hf, W, b, xc, yc);
  }
  for (int i = 0; i < nb; ++i) {
    T mx, my;
    const T ix = block_coord<T, PAD, ALIGN, ISA, FAST>(gp[2 * i], Wf, &mx);
    const T iy = block_coord<T, PAD, ALIGN, ISA, FAST>(gp[2 * i + 1], Hf, &my);
    const T x0 = block_floor<ISA>(ix), y0 = block_floor<ISA>(iy), x1 = x0 + 1, y1 = y0 + 1;
    const T wx0 = x1 - ix, wx1 = ix - x0, wy0 = y1 - iy, wy1 = iy - y0;
    const bool x0ok = block_inside<PAD>(x0, Wf), x1ok = block_inside_high<PAD>(x1, Wf);
    const bool y0ok = block_inside<PAD>(y0, Hf), y1ok = block_inside_high<PAD>(y1, Hf);
    // x0 and y0 are in [-1, size - 1] wherever a tap is read
    const int32_t xi = static_cast<int32_t>((x0ok | x1ok) ? x0 : T(0));
    const int32_t yi = static_cast<int32_t>((y0ok | y1ok) ? y0 : T(0));
    const int32_t base = yi * W + xi;
    const int32_t m0 = -static_cast<int32_t>(y0ok & x0ok), m1 = -static_cast<int32_t>(y0ok & x1ok);
    const int32_t m2 = -static_cast<int32_t>(y1ok & x0ok), m3 = -static_cast<int32_t>(y1ok & x1ok);
    if constexpr (ONE) {
      const T v0 = xc[base & m0], v1 = xc[(base + 1) & m1], v2 = xc[(base + W) & m2];
      const T v3 = xc[(base + W + 1) & m3];
      T s = (m0 ? v0 : T(0)) * (wy0 * wx0);
      s = s + (m1 ? v1 : T(0)) * (wy0 * wx1);
      s = s + (m2 ? v2 : T(0)) * (wy1 * wx0);
      s = s + (m3 ? v3 : T(0)) * (wy1 * wx1);
      yc[i] = s;
      continue;
    }
    b->w[0][i] = wy0 * wx0;
    b->w[1][i] = wy0 * wx1;
    b->w[2][i] = wy1 * wx0;
    b->w[3][i] = wy1 * wx1;
    b->in[0][i] = m0;
    b->in[1][i] = m1;
    b->in[2][i] = m2;
    b->in[3][i] = m3;
    b->off[0][i] = base & m0;
    b->off[1][i] = (base + 1) & m1;
    b->off[2][i] = (base + W) & m2;
    b->off[3][i] = (base + W + 1) & m3;
    if constexpr (GRAD) {
      b->wx[0][i] = wx0;
      b->wx[1][i] = wx1;
      b->wy[0][i] = wy0;
      b->wy[1][i] = wy1;
      b->mx[i] = mx;
      b->my[i] = my;
    }
  }
}

// One channel, bilinear, on a framed copy of the image (framed_image): one column and row of zeros before it,
// two after, so a point's four taps are base, base + 1, base + Wp, base + Wp + 1 of the copy with no masks, a
// tap outside the image reading a zero of the frame (a low tap outside [-1, size - 1], or NaN, moves to size,
// whose two taps are both frame). The same coordinates, weights, values and sums as linear_block's ONE path,
// bit for bit; but the gather loads four neighbours off one extracted index instead of four masked ones. In
// three loops: the taps' bases and weights (vectorized), the values as two pairs per point (scalar loads),
// the sums (vectorized): 64x1x28x28 ran 1.7x faster (float; double 1.5x) than the one-loop pass.
template <typename T>
struct FramedBlock {
  alignas(64) int32_t base[kBlock];
  alignas(64) T w[4][kBlock];
  alignas(64) T v[kBlock][4];
};

template <typename T, int PAD, bool ALIGN, int ISA, bool FAST = false>
MT_GS_INLINE void linear_block_framed(const T* __restrict gp, int nb, T Wf, T Hf, int32_t Wp,
                                      FramedBlock<T>* __restrict b, const T* __restrict framed,
                                      T* __restrict yc) {
  if constexpr (PAD == 2 && !FAST) {
    if (fast_reflect(gp, nb, Wf, Hf))
      return linear_block_framed<T, PAD, ALIGN, ISA, true>(gp, nb, Wf, Hf, Wp, b, framed, yc);
  }
  for (int i = 0; i < nb; ++i) {
    T mx, my;
    const T ix = block_coord<T, PAD, ALIGN, ISA, FAST>(gp[2 * i], Wf, &mx);
    const T iy = block_coord<T, PAD, ALIGN, ISA, FAST>(gp[2 * i + 1], Hf, &my);
    const T x0 = block_floor<ISA>(ix), y0 = block_floor<ISA>(iy), x1 = x0 + 1, y1 = y0 + 1;
    const T wx0 = x1 - ix, wx1 = ix - x0, wy0 = y1 - iy, wy1 = iy - y0;
    T xp = x1, yp = y1;        // the low tap's column and row in the copy
    if constexpr (PAD == 0) {  // border and reflection clip into [0, size - 1] (NaN to 0): always in place
      // (a test there also kept GCC from vectorizing the clip: block_inside's note)
      const bool xok = (x0 >= -1) & (x0 <= Wf - 1), yok = (y0 >= -1) & (y0 <= Hf - 1);
      xp = xok ? x1 : Wf + 1;
      yp = yok ? y1 : Hf + 1;
    }
    b->base[i] = static_cast<int32_t>(yp) * Wp + static_cast<int32_t>(xp);
    b->w[0][i] = wy0 * wx0;
    b->w[1][i] = wy0 * wx1;
    b->w[2][i] = wy1 * wx0;
    b->w[3][i] = wy1 * wx1;
  }
  const T* below = framed + Wp;
  for (int i = 0; i < nb; ++i) {
    const int32_t o = b->base[i];
    __builtin_memcpy(&b->v[i][0], framed + o, 2 * sizeof(T));
    __builtin_memcpy(&b->v[i][2], below + o, 2 * sizeof(T));
  }
  for (int i = 0; i < nb; ++i) {
    T s = b->v[i][0] * b->w[0][i];
    s = s + b->v[i][1] * b->w[1][i];
    s = s + b->v[i][2] * b->w[2][i];
    s = s + b->v[i][3] * b->w[3][i];
    yc[i] = s;
  }
}

// Nearest on the framed copy: the rounded tap, or the frame where it is outside (or NaN), one unmasked load
// per point in a scalar loop; the values of nearest_block's ONE path
template <typename T, int PAD, bool ALIGN, int ISA, bool FAST = false>
MT_GS_INLINE void nearest_block_framed(const T* __restrict gp, int nb, T Wf, T Hf, int32_t Wp,
                                       FramedBlock<T>* __restrict b, const T* __restrict framed,
                                       T* __restrict yc) {
  if constexpr (PAD == 2 && !FAST) {
    if (fast_reflect(gp, nb, Wf, Hf))
      return nearest_block_framed<T, PAD, ALIGN, ISA, true>(gp, nb, Wf, Hf, Wp, b, framed, yc);
  }
  for (int i = 0; i < nb; ++i) {
    T unused;
    const T ix = block_round_even<ISA>(block_coord<T, PAD, ALIGN, ISA, FAST>(gp[2 * i], Wf, &unused));
    const T iy = block_round_even<ISA>(block_coord<T, PAD, ALIGN, ISA, FAST>(gp[2 * i + 1], Hf, &unused));
    T xp = ix + 1, yp = iy + 1;  // border and reflection keep the tap inside (linear_block_framed's note)
    if constexpr (PAD == 0) {
      const bool xok = (ix >= 0) & (ix <= Wf - 1), yok = (iy >= 0) & (iy <= Hf - 1);
      xp = xok ? ix + 1 : Wf + 1;
      yp = yok ? iy + 1 : Hf + 1;
    }
    b->base[i] = static_cast<int32_t>(yp) * Wp + static_cast<int32_t>(xp);
  }
  // scalar: GCC's vectorized version emulates the gather with lane extracts and inserts, 20% slower; the
  // empty asm keeps the vectorizer off the loop
  for (int i = 0; i < nb; ++i) {
    yc[i] = framed[b->base[i]];
    __asm__("" : : "r"(i));
  }
}

// The image xc (H x W, row-major) inside a frame of zeros, one before and two after on each axis
template <typename T>
void framed_image(const T* xc, int64_t H, int64_t W, T* framed) {
  const int64_t Wp = W + 3;
  std::fill(framed, framed + (H + 3) * Wp, T(0));
  for (int64_t r = 0; r < H; ++r) std::copy(xc + r * W, xc + (r + 1) * W, framed + (r + 1) * Wp + 1);
}

template <typename T, int PAD, bool ALIGN, int ISA, bool ONE = false, bool FAST = false>
MT_GS_INLINE void nearest_block(const T* __restrict gp, int nb, T Wf, T Hf, int32_t W,
                                LinearBlock<T>* __restrict b, const T* __restrict xc = nullptr,
                                T* __restrict yc = nullptr) {
  if constexpr (PAD == 2 && !FAST) {
    if (fast_reflect(gp, nb, Wf, Hf))
      return nearest_block<T, PAD, ALIGN, ISA, ONE, true>(gp, nb, Wf, Hf, W, b, xc, yc);
  }
  for (int i = 0; i < nb; ++i) {
    T unused;
    const T ix = block_round_even<ISA>(block_coord<T, PAD, ALIGN, ISA, FAST>(gp[2 * i], Wf, &unused));
    const T iy = block_round_even<ISA>(block_coord<T, PAD, ALIGN, ISA, FAST>(gp[2 * i + 1], Hf, &unused));
    const int32_t m = -static_cast<int32_t>(block_inside<PAD>(ix, Wf) & block_inside<PAD>(iy, Hf));
    const T okf = static_cast<T>(m & 1);
    const int32_t off = (static_cast<int32_t>(iy * okf) * W + static_cast<int32_t>(ix * okf)) & m;
    if constexpr (ONE) {
      const T v = xc[off];
      yc[i] = m ? v : T(0);
    } else {
      b->in[0][i] = m;
      b->off[0][i] = off;
    }
  }
}

// A tap outside the image reads offset 0 and then zero, which still meets its weight (a NaN weight gives NaN,
// as PyTorch's)
template <typename T>
MT_GS_INLINE void nearest_gather(const T* __restrict xc, T* __restrict yc, const LinearBlock<T>* __restrict b,
                                 int nb) {
  for (int i = 0; i < nb; ++i) {
    const T v = xc[b->off[0][i]];
    yc[i] = b->in[0][i] ? v : T(0);
  }
}

template <typename T>
MT_GS_INLINE void linear_gather(const T* __restrict xc, T* __restrict yc, const LinearBlock<T>* __restrict b,
                                int nb) {
  for (int i = 0; i < nb; ++i) {
    const T v0 = xc[b->off[0][i]], v1 = xc[b->off[1][i]], v2 = xc[b->off[2][i]], v3 = xc[b->off[3][i]];
    T s = (b->in[0][i] ? v0 : T(0)) * b->w[0][i];
    s = s + (b->in[1][i] ? v1 : T(0)) * b->w[1][i];
    s = s + (b->in[2][i] ? v2 : T(0)) * b->w[2][i];
    s = s + (b->in[3][i] ? v3 : T(0)) * b->w[3][i];
    yc[i] = s;
  }
}

// The input gradient's scatter, one channel: points in order, taps in order, so every element sums its terms
// in one fixed order (the per-point loop's). A tap outside is skipped by a branch: adding -0 to element 0
// instead chained every outside tap on one address (zeros padding with a third of the points outside ran at
// half speed), and a real grid's inside/outside pattern is coherent enough to predict.
template <typename T, typename Block>
MT_GS_INLINE void linear_scatter(T* __restrict gc, const T* __restrict goc, const Block* __restrict b, int nb,
                                 int taps) {
  for (int i = 0; i < nb; ++i) {
    const T gv = goc[i];
    for (int k = 0; k < taps; ++k) {
      const T add = taps == 1 ? gv : gv * b->w[k][i];
      if (b->in[k][i]) gc[b->off[k][i]] += add;
    }
  }
}

// Per tap, the sum over channels of grad * value (the grid gradient's), one channel's terms
template <typename T>
MT_GS_INLINE void linear_grid_sums(const T* __restrict xc, const T* __restrict goc,
                                   const LinearBlock<T>* __restrict b, T (*__restrict s)[kBlock], int nb) {
  for (int i = 0; i < nb; ++i) {
    const T gv = goc[i];
    const T v0 = xc[b->off[0][i]], v1 = xc[b->off[1][i]], v2 = xc[b->off[2][i]], v3 = xc[b->off[3][i]];
    s[0][i] = s[0][i] + gv * (b->in[0][i] ? v0 : T(0));
    s[1][i] = s[1][i] + gv * (b->in[1][i] ? v1 : T(0));
    s[2][i] = s[2][i] + gv * (b->in[2][i] ? v2 : T(0));
    s[3][i] = s[3][i] + gv * (b->in[3][i] ? v3 : T(0));
  }
}

// d(weight of each tap)/d(coordinate) is the other axis' weight, signed by the tap's side; a zero multiplier
// (a clipped or folded-flat coordinate) gives zero even where the sum is not finite
template <typename T>
MT_GS_INLINE void linear_grid_grad(T* __restrict ggp, const LinearBlock<T>* __restrict b,
                                   const T (*__restrict s)[kBlock], int nb) {
  for (int i = 0; i < nb; ++i) {
    const T wx0 = b->wx[0][i], wx1 = b->wx[1][i], wy0 = b->wy[0][i], wy1 = b->wy[1][i];
    T sy = T(0);
    sy = sy + s[0][i] * -wx0;
    sy = sy + s[1][i] * -wx1;
    sy = sy + s[2][i] * wx0;
    sy = sy + s[3][i] * wx1;
    T sx = T(0);
    sx = sx + s[0][i] * -wy0;
    sx = sx + s[1][i] * wy0;
    sx = sx + s[2][i] * -wy1;
    sx = sx + s[3][i] * wy1;
    ggp[2 * i] = b->mx[i] == T(0) ? T(0) : sx * b->mx[i];
    ggp[2 * i + 1] = b->my[i] == T(0) ? T(0) : sy * b->my[i];
  }
}

// Spatial sizes of a 2-D call as the passes use them
template <typename T>
struct Plane2d {
  int32_t W;
  T Wf, Hf;
};
template <typename T>
Plane2d<T> plane_2d(const Geometry& geo) {
  return {static_cast<int32_t>(geo.size[1]), T(geo.size[1]), T(geo.size[0])};
}

// f(n, p0, p1) for the points [p0, p1) of batch entry n that output rows [r0, r1) cover: the forward splits
// over rows but takes its blocks across them (rows of a small image, 28 points, made blocks of 28)
template <typename F>
MT_GS_INLINE void for_row_points(int64_t r0, int64_t r1, int64_t rows_per_n, int64_t row, const F& f) {
  for (int64_t r = r0; r < r1;) {
    const int64_t n = r / rows_per_n, end = (n + 1) * rows_per_n < r1 ? (n + 1) * rows_per_n : r1;
    f(n, (r - n * rows_per_n) * row, (end - n * rows_per_n) * row);
    r = end;
  }
}

template <typename T, int PAD, bool ALIGN>
void forward_2d_blocked(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  T* y = out.data<T>();
  const int64_t C = geo.C, P = geo.P, plane = geo.plane, row = geo.row, rows_per_n = P / row;
  const Plane2d<T> pl = plane_2d<T>(geo);
  const bool nearest = a.mode == 1;
  // one channel, bilinear, where the framed copy costs less than the points it serves (and its offsets fit)
  const int64_t framed_size = (geo.size[0] + 3) * (geo.size[1] + 3);
  const bool framed = C == 1 && framed_size <= 2 * P && framed_size < (int64_t(1) << 30);
  parallel_rows(geo.N * rows_per_n, row * (C * (nearest ? 1 : 4) + 16), [&](int64_t r0, int64_t r1) {
    std::vector<T> frame(framed ? static_cast<size_t>(framed_size) : 0);
    int64_t framed_n = -1;  // the batch entry whose image the frame holds
    const auto run = [&](auto isa) MT_GS_LAMBDA {
      constexpr int kIsa = decltype(isa)::value;
      LinearBlock<T> b;
      FramedBlock<T> fb;
      for_row_points(r0, r1, rows_per_n, row, [&](int64_t n, int64_t p0, int64_t p1) MT_GS_LAMBDA {
        const T* xn = x + n * C * plane;
        T* yn = y + n * C * P;
        if (framed) {
          if (framed_n != n) framed_image(xn, geo.size[0], geo.size[1], frame.data()), framed_n = n;
          const int32_t Wp = pl.W + 3;
          for (int64_t b0 = p0; b0 < p1; b0 += kBlock) {
            const int nb = static_cast<int>(p1 - b0 < kBlock ? p1 - b0 : kBlock);
            if (nearest)
              nearest_block_framed<T, PAD, ALIGN, kIsa>(g + (n * P + b0) * 2, nb, pl.Wf, pl.Hf, Wp, &fb,
                                                        frame.data(), yn + b0);
            else
              linear_block_framed<T, PAD, ALIGN, kIsa>(g + (n * P + b0) * 2, nb, pl.Wf, pl.Hf, Wp, &fb,
                                                       frame.data(), yn + b0);
          }
          return;
        }
        // one channel samples in the coordinate loop and keeps no block arrays: longer runs, fewer tails
        const int64_t step = C == 1 ? 16 * kBlock : kBlock;
        for (int64_t b0 = p0; b0 < p1; b0 += step) {
          const int nb = static_cast<int>(p1 - b0 < step ? p1 - b0 : step);
          const T* gp = g + (n * P + b0) * 2;
          if (nearest && C == 1) {
            nearest_block<T, PAD, ALIGN, kIsa, true>(gp, nb, pl.Wf, pl.Hf, pl.W, &b, xn, yn + b0);
          } else if (nearest) {
            nearest_block<T, PAD, ALIGN, kIsa>(gp, nb, pl.Wf, pl.Hf, pl.W, &b);
            for (int64_t c = 0; c < C; ++c) nearest_gather(xn + c * plane, yn + c * P + b0, &b, nb);
          } else if (C == 1) {
            linear_block<T, PAD, ALIGN, false, kIsa, true>(gp, nb, pl.Wf, pl.Hf, pl.W, &b, xn, yn + b0);
          } else {
            linear_block<T, PAD, ALIGN, false, kIsa>(gp, nb, pl.Wf, pl.Hf, pl.W, &b);
            for (int64_t c = 0; c < C; ++c) linear_gather(xn + c * plane, yn + c * P + b0, &b, nb);
          }
        }
      });
    };
    if (C == 1 && (!nearest || framed))  // no gather instructions: GCC's scalar loads (note above)
      run_on_isa<true>(run);
    else
      run_on_isa(run);
  });
}

// Bilinear and nearest backward: the taps of a block as the forward finds them, then per channel the scatter
// of the output gradient and the grid gradient's sums; nearest's grid gradient is zero
template <typename T, int PAD, bool ALIGN>
void linear_backward_2d_blocked(const Tensor& grad_input, const Tensor& grad_grid, const Tensor& grad_out,
                                const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  const T* go = grad_out.data<T>();
  T* gi = grad_input.defined() ? grad_input.data<T>() : nullptr;
  T* gg = grad_grid.defined() ? grad_grid.data<T>() : nullptr;
  const bool nearest = a.mode == 1;
  if (nearest && gg) {
    std::fill(gg, gg + grad_grid.numel(), T(0));
    gg = nullptr;
  }
  if (!gi && !gg) return;
  const int64_t C = geo.C, P = geo.P, plane = geo.plane;
  const Plane2d<T> pl = plane_2d<T>(geo);
  parallel_rows(geo.N, P * (C * (nearest ? 1 : 8) + 16), [&](int64_t n0, int64_t n1) {
    run_on_isa([&](auto isa) MT_GS_LAMBDA {
      constexpr int kIsa = decltype(isa)::value;
      LinearBlock<T> b;
      alignas(64) T s[4][kBlock];
      for (int64_t n = n0; n < n1; ++n) {
        const T* xn = x + n * C * plane;
        const T* gon = go + n * C * P;
        T* gin = gi ? gi + n * C * plane : nullptr;
        for (int64_t b0 = 0; b0 < P; b0 += kBlock) {
          const int nb = static_cast<int>(P - b0 < kBlock ? P - b0 : kBlock);
          const T* gp = g + (n * P + b0) * 2;
          if (nearest) {
            nearest_block<T, PAD, ALIGN, kIsa>(gp, nb, pl.Wf, pl.Hf, pl.W, &b);
            for (int64_t c = 0; c < C; ++c) linear_scatter(gin + c * plane, gon + c * P + b0, &b, nb, 1);
            continue;
          }
          linear_block<T, PAD, ALIGN, true, kIsa>(gp, nb, pl.Wf, pl.Hf, pl.W, &b);
          if (gg)
            for (int k = 0; k < 4; ++k)
              for (int i = 0; i < nb; ++i) s[k][i] = T(0);
          for (int64_t c = 0; c < C; ++c) {
            if (gin) linear_scatter(gin + c * plane, gon + c * P + b0, &b, nb, 4);
            if (gg) linear_grid_sums(xn + c * plane, gon + c * P + b0, &b, s, nb);
          }
          if (gg) linear_grid_grad(gg + (n * P + b0) * 2, &b, s, nb);
        }
      }
    });
  });
}

// Bicubic: per point the 4 + 4 cubic weights (and for the backward their derivatives) and the tap rows' and
// columns' offsets and masks; per channel the 16 taps, each row along x first, as the composite sums
template <typename T>
struct CubicBlock {
  alignas(64) T wx[4][kBlock];
  alignas(64) T wy[4][kBlock];
  alignas(64) T dwx[4][kBlock];
  alignas(64) T dwy[4][kBlock];
  alignas(64) int32_t xo[4][kBlock];
  alignas(64) int32_t yo[4][kBlock];
  alignas(64) int32_t xm[4][kBlock];
  alignas(64) int32_t ym[4][kBlock];
};

// tap coordinate c0 + j - 1 through the padding (cubic_axis's values): the tap's offset and mask
template <typename T, int PAD, bool ALIGN, int ISA, bool FAST>
MT_GS_INLINE T cubic_tap(T c, T size) {
  if constexpr (PAD == 1) return block_clip(c, size);
  if constexpr (PAD == 2 && FAST) {  // an integral tap folds to an integral value: the trunc is the identity
    T unused = T(1);
    return block_reflect<T, ALIGN, ISA>(c, size, &unused);
  }
  if constexpr (PAD == 2) {
    T unused = T(1);
    return grid_trunc(grid_pad(c, static_cast<int64_t>(size), 2, ALIGN, &unused));
  }
  return c;
}

template <typename T, int PAD, bool ALIGN, bool GRAD, int ISA, bool FAST = false>
MT_GS_INLINE void cubic_block(const T* __restrict gp, int nb, T Wf, T Hf, int32_t W,
                              CubicBlock<T>* __restrict b) {
  if constexpr (PAD == 2 && !FAST) {
    if (fast_reflect(gp, nb, Wf, Hf))
      return cubic_block<T, PAD, ALIGN, GRAD, ISA, true>(gp, nb, Wf, Hf, W, b);
  }
  for (int i = 0; i < nb; ++i) {
    T unused;
    const T ix = block_coord<T, 0, ALIGN>(gp[2 * i], Wf, &unused);
    const T iy = block_coord<T, 0, ALIGN>(gp[2 * i + 1], Hf, &unused);
    const T x0 = block_floor<ISA>(ix), y0 = block_floor<ISA>(iy), tx = ix - x0, ty = iy - y0;
    b->wx[0][i] = grid_cubic_far(tx + 1);
    b->wx[1][i] = grid_cubic_near(tx);
    b->wx[2][i] = grid_cubic_near(1 - tx);
    b->wx[3][i] = grid_cubic_far(2 - tx);
    b->wy[0][i] = grid_cubic_far(ty + 1);
    b->wy[1][i] = grid_cubic_near(ty);
    b->wy[2][i] = grid_cubic_near(1 - ty);
    b->wy[3][i] = grid_cubic_far(2 - ty);
    if constexpr (GRAD) {
      b->dwx[0][i] = grid_cubic_far_d(tx + 1);
      b->dwx[1][i] = grid_cubic_near_d(tx);
      b->dwx[2][i] = -grid_cubic_near_d(1 - tx);
      b->dwx[3][i] = -grid_cubic_far_d(2 - tx);
      b->dwy[0][i] = grid_cubic_far_d(ty + 1);
      b->dwy[1][i] = grid_cubic_near_d(ty);
      b->dwy[2][i] = -grid_cubic_near_d(1 - ty);
      b->dwy[3][i] = -grid_cubic_far_d(2 - ty);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {  // unrolled: as a loop nest (the fold makes it long), GCC leaves it scalar
      const T cx = cubic_tap<T, PAD, ALIGN, ISA, FAST>(x0 + T(j - 1), Wf);
      const T cy = cubic_tap<T, PAD, ALIGN, ISA, FAST>(y0 + T(j - 1), Hf);
      const int32_t mx = -static_cast<int32_t>(block_inside<PAD>(cx, Wf));
      const int32_t my = -static_cast<int32_t>(block_inside<PAD>(cy, Hf));
      b->xm[j][i] = mx;
      b->ym[j][i] = my;
      b->xo[j][i] = static_cast<int32_t>(cx * static_cast<T>(mx & 1)) & mx;
      b->yo[j][i] = (static_cast<int32_t>(cy * static_cast<T>(my & 1)) * W) & my;
    }
  }
}

template <typename T>
MT_GS_INLINE void cubic_gather(const T* __restrict xc, T* __restrict yc, const CubicBlock<T>* __restrict b,
                               int nb) {
  for (int i = 0; i < nb; ++i) {
    T s = T(0);
    for (int k = 0; k < 4; ++k) {
      const int32_t yo = b->yo[k][i], mk = b->ym[k][i];
      T v = xc[yo + b->xo[0][i]];
      T rs = ((mk & b->xm[0][i]) ? v : T(0)) * b->wx[0][i];
      v = xc[yo + b->xo[1][i]];
      rs = rs + ((mk & b->xm[1][i]) ? v : T(0)) * b->wx[1][i];
      v = xc[yo + b->xo[2][i]];
      rs = rs + ((mk & b->xm[2][i]) ? v : T(0)) * b->wx[2][i];
      v = xc[yo + b->xo[3][i]];
      rs = rs + ((mk & b->xm[3][i]) ? v : T(0)) * b->wx[3][i];
      s = k == 0 ? rs * b->wy[0][i] : s + rs * b->wy[k][i];
    }
    yc[i] = s;
  }
}

// the 16 taps' scatter, rows then columns in order (border padding can send several taps of a point to one
// element: the per-point loop's order)
template <typename T>
MT_GS_INLINE void cubic_scatter(T* __restrict gc, const T* __restrict goc, const CubicBlock<T>* __restrict b,
                                int nb) {
  for (int i = 0; i < nb; ++i) {
    const T gv = goc[i];
    for (int r = 0; r < 4; ++r) {
      const T gw = gv * b->wy[r][i];
      const int32_t yo = b->yo[r][i], mr = b->ym[r][i];
      for (int j = 0; j < 4; ++j)
        if (mr & b->xm[j][i]) gc[yo + b->xo[j][i]] += gw * b->wx[j][i];
    }
  }
}

template <typename T>
MT_GS_INLINE void cubic_grid_sums(const T* __restrict xc, const T* __restrict goc,
                                  const CubicBlock<T>* __restrict b, T* __restrict sx, T* __restrict sy,
                                  int nb) {
  for (int i = 0; i < nb; ++i) {
    const T gv = goc[i];
    T ax = sx[i], ay = sy[i];
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {
      const int32_t yo = b->yo[r][i], mr = b->ym[r][i];
      const T wy = b->wy[r][i], dwy = b->dwy[r][i];
      // rows and columns unrolled: as a loop nest, GCC leaves it unvectorized
      const T v0 = xc[yo + b->xo[0][i]], v1 = xc[yo + b->xo[1][i]];
      const T v2 = xc[yo + b->xo[2][i]], v3 = xc[yo + b->xo[3][i]];
      T v = ((mr & b->xm[0][i]) ? v0 : T(0)) * gv;
      ax = ax + v * wy * b->dwx[0][i];
      ay = ay + v * dwy * b->wx[0][i];
      v = ((mr & b->xm[1][i]) ? v1 : T(0)) * gv;
      ax = ax + v * wy * b->dwx[1][i];
      ay = ay + v * dwy * b->wx[1][i];
      v = ((mr & b->xm[2][i]) ? v2 : T(0)) * gv;
      ax = ax + v * wy * b->dwx[2][i];
      ay = ay + v * dwy * b->wx[2][i];
      v = ((mr & b->xm[3][i]) ? v3 : T(0)) * gv;
      ax = ax + v * wy * b->dwx[3][i];
      ay = ay + v * dwy * b->wx[3][i];
    }
    sx[i] = ax;
    sy[i] = ay;
  }
}

template <typename T, int PAD, bool ALIGN>
void bicubic_2d_blocked(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  T* y = out.data<T>();
  const int64_t C = geo.C, P = geo.P, plane = geo.plane, row = geo.row, rows_per_n = P / row;
  const Plane2d<T> pl = plane_2d<T>(geo);
  parallel_rows(geo.N * rows_per_n, row * (C * 16 + 32), [&](int64_t r0, int64_t r1) {
    run_on_isa([&](auto isa) MT_GS_LAMBDA {
      constexpr int kIsa = decltype(isa)::value;
      CubicBlock<T> b;
      for_row_points(r0, r1, rows_per_n, row, [&](int64_t n, int64_t p0, int64_t p1) MT_GS_LAMBDA {
        const T* xn = x + n * C * plane;
        T* yn = y + n * C * P;
        for (int64_t b0 = p0; b0 < p1; b0 += kBlock) {
          const int nb = static_cast<int>(p1 - b0 < kBlock ? p1 - b0 : kBlock);
          cubic_block<T, PAD, ALIGN, false, kIsa>(g + (n * P + b0) * 2, nb, pl.Wf, pl.Hf, pl.W, &b);
          for (int64_t c = 0; c < C; ++c) cubic_gather(xn + c * plane, yn + c * P + b0, &b, nb);
        }
      });
    });
  });
}

template <typename T, int PAD, bool ALIGN>
void bicubic_backward_2d_blocked(const Tensor& grad_input, const Tensor& grad_grid, const Tensor& grad_out,
                                 const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  const T* go = grad_out.data<T>();
  T* gi = grad_input.defined() ? grad_input.data<T>() : nullptr;
  T* gg = grad_grid.defined() ? grad_grid.data<T>() : nullptr;
  const int64_t C = geo.C, P = geo.P, plane = geo.plane;
  const Plane2d<T> pl = plane_2d<T>(geo);
  T mult_x, mult_y;  // d(coordinate)/d(grid value): the cubic taps pass no padding's derivative
  grid_unnormalize(T(0), geo.size[1], a.align_corners, &mult_x);
  grid_unnormalize(T(0), geo.size[0], a.align_corners, &mult_y);
  parallel_rows(geo.N, P * (C * 48 + 32), [&](int64_t n0, int64_t n1) {
    run_on_isa([&](auto isa) MT_GS_LAMBDA {
      constexpr int kIsa = decltype(isa)::value;
      CubicBlock<T> b;
      alignas(64) T sx[kBlock], sy[kBlock];
      for (int64_t n = n0; n < n1; ++n) {
        const T* xn = x + n * C * plane;
        const T* gon = go + n * C * P;
        T* gin = gi ? gi + n * C * plane : nullptr;
        for (int64_t b0 = 0; b0 < P; b0 += kBlock) {
          const int nb = static_cast<int>(P - b0 < kBlock ? P - b0 : kBlock);
          cubic_block<T, PAD, ALIGN, true, kIsa>(g + (n * P + b0) * 2, nb, pl.Wf, pl.Hf, pl.W, &b);
          for (int i = 0; i < nb; ++i) sx[i] = sy[i] = T(0);
          for (int64_t c = 0; c < C; ++c) {
            if (gin) cubic_scatter(gin + c * plane, gon + c * P + b0, &b, nb);
            if (gg) cubic_grid_sums(xn + c * plane, gon + c * P + b0, &b, sx, sy, nb);
          }
          if (gg) {
            T* ggp = gg + (n * P + b0) * 2;
            for (int i = 0; i < nb; ++i) {
              ggp[2 * i] = sx[i] * mult_x;
              ggp[2 * i + 1] = sy[i] * mult_y;
            }
          }
        }
      }
    });
  });
}

// ---- 3-D sampling (trilinear and nearest, every padding) in the same blocked passes: 8 taps, z slowest
// (000, 001, ..., 111 as z, y, x), each weight (wz * wy) * wx as linear_taps multiplies them
template <typename T>
struct Volume3d {
  int32_t W, HW;
  T Wf, Hf, Df;
};
template <typename T>
Volume3d<T> volume_3d(const Geometry& geo) {
  return {static_cast<int32_t>(geo.size[2]), static_cast<int32_t>(geo.size[1] * geo.size[2]), T(geo.size[2]),
          T(geo.size[1]), T(geo.size[0])};
}

template <typename T>
struct LinearBlock3 {
  alignas(64) T w[8][kBlock];
  alignas(64) int32_t off[8][kBlock];
  alignas(64) int32_t in[8][kBlock];
  alignas(64) T wx[2][kBlock];
  alignas(64) T wy[2][kBlock];
  alignas(64) T wz[2][kBlock];
  alignas(64) T mx[kBlock];
  alignas(64) T my[kBlock];
  alignas(64) T mz[kBlock];
};

template <typename T, int PAD, bool ALIGN, bool GRAD, int ISA, bool FAST = false>
MT_GS_INLINE void linear_block_3d(const T* __restrict gp, int nb, const Volume3d<T>& v,
                                  LinearBlock3<T>* __restrict b) {
  const T Wf = v.Wf, Hf = v.Hf, Df = v.Df;
  if constexpr (PAD == 2 && !FAST) {
    const T big = Wf > Hf ? (Wf > Df ? Wf : Df) : (Hf > Df ? Hf : Df);
    if (fast_reflect_values(gp, 3 * nb, big))
      return linear_block_3d<T, PAD, ALIGN, GRAD, ISA, true>(gp, nb, v, b);
  }
  const int32_t W = v.W, HW = v.HW;
  for (int i = 0; i < nb; ++i) {
    T mx, my, mz;
    const T ix = block_coord<T, PAD, ALIGN, ISA, FAST>(gp[3 * i], Wf, &mx);
    const T iy = block_coord<T, PAD, ALIGN, ISA, FAST>(gp[3 * i + 1], Hf, &my);
    const T iz = block_coord<T, PAD, ALIGN, ISA, FAST>(gp[3 * i + 2], Df, &mz);
    const T x0 = block_floor<ISA>(ix), y0 = block_floor<ISA>(iy), z0 = block_floor<ISA>(iz);
    const T x1 = x0 + 1, y1 = y0 + 1, z1 = z0 + 1;
    const T wx0 = x1 - ix, wx1 = ix - x0, wy0 = y1 - iy, wy1 = iy - y0, wz0 = z1 - iz, wz1 = iz - z0;
    const bool x0ok = block_inside<PAD>(x0, Wf), x1ok = block_inside_high<PAD>(x1, Wf);
    const bool y0ok = block_inside<PAD>(y0, Hf), y1ok = block_inside_high<PAD>(y1, Hf);
    const bool z0ok = block_inside<PAD>(z0, Df), z1ok = block_inside_high<PAD>(z1, Df);
    const int32_t xi = static_cast<int32_t>((x0ok | x1ok) ? x0 : T(0));
    const int32_t yi = static_cast<int32_t>((y0ok | y1ok) ? y0 : T(0));
    const int32_t zi = static_cast<int32_t>((z0ok | z1ok) ? z0 : T(0));
    const int32_t base = zi * HW + yi * W + xi;
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const bool hz = k & 4, hy = k & 2, hx = k & 1;
      const int32_t m = -static_cast<int32_t>((hz ? z1ok : z0ok) & (hy ? y1ok : y0ok) & (hx ? x1ok : x0ok));
      b->w[k][i] = ((hz ? wz1 : wz0) * (hy ? wy1 : wy0)) * (hx ? wx1 : wx0);
      b->in[k][i] = m;
      b->off[k][i] = (base + (hz ? HW : 0) + (hy ? W : 0) + (hx ? 1 : 0)) & m;
    }
    if constexpr (GRAD) {
      b->wx[0][i] = wx0;
      b->wx[1][i] = wx1;
      b->wy[0][i] = wy0;
      b->wy[1][i] = wy1;
      b->wz[0][i] = wz0;
      b->wz[1][i] = wz1;
      b->mx[i] = mx;
      b->my[i] = my;
      b->mz[i] = mz;
    }
  }
}

template <typename T, int PAD, bool ALIGN, int ISA, bool FAST = false>
MT_GS_INLINE void nearest_block_3d(const T* __restrict gp, int nb, const Volume3d<T>& v,
                                   LinearBlock3<T>* __restrict b) {
  const T Wf = v.Wf, Hf = v.Hf, Df = v.Df;
  if constexpr (PAD == 2 && !FAST) {
    const T big = Wf > Hf ? (Wf > Df ? Wf : Df) : (Hf > Df ? Hf : Df);
    if (fast_reflect_values(gp, 3 * nb, big)) return nearest_block_3d<T, PAD, ALIGN, ISA, true>(gp, nb, v, b);
  }
  for (int i = 0; i < nb; ++i) {
    T unused;
    const T ix = block_round_even<ISA>(block_coord<T, PAD, ALIGN, ISA, FAST>(gp[3 * i], Wf, &unused));
    const T iy = block_round_even<ISA>(block_coord<T, PAD, ALIGN, ISA, FAST>(gp[3 * i + 1], Hf, &unused));
    const T iz = block_round_even<ISA>(block_coord<T, PAD, ALIGN, ISA, FAST>(gp[3 * i + 2], Df, &unused));
    const int32_t m = -static_cast<int32_t>(block_inside<PAD>(ix, Wf) & block_inside<PAD>(iy, Hf) &
                                            block_inside<PAD>(iz, Df));
    const T okf = static_cast<T>(m & 1);
    const int32_t off = (static_cast<int32_t>(iz * okf) * v.HW + static_cast<int32_t>(iy * okf) * v.W +
                         static_cast<int32_t>(ix * okf)) &
                        m;
    b->in[0][i] = m;
    b->off[0][i] = off;
  }
}

template <typename T>
MT_GS_INLINE void linear_gather_3d(const T* __restrict xc, T* __restrict yc,
                                   const LinearBlock3<T>* __restrict b, int nb) {
  for (int i = 0; i < nb; ++i) {
    T v[8];  // loaded before the selects: offset 0 is always valid, and a conditional load stays scalar
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) v[k] = xc[b->off[k][i]];
    T s = (b->in[0][i] ? v[0] : T(0)) * b->w[0][i];
#pragma GCC unroll 8
    for (int k = 1; k < 8; ++k) s = s + (b->in[k][i] ? v[k] : T(0)) * b->w[k][i];
    yc[i] = s;
  }
}

template <typename T>
MT_GS_INLINE void nearest_gather_3d(const T* __restrict xc, T* __restrict yc,
                                    const LinearBlock3<T>* __restrict b, int nb) {
  for (int i = 0; i < nb; ++i) {
    const T v = xc[b->off[0][i]];
    yc[i] = b->in[0][i] ? v : T(0);
  }
}

template <typename T>
MT_GS_INLINE void linear_grid_sums_3d(const T* __restrict xc, const T* __restrict goc,
                                      const LinearBlock3<T>* __restrict b, T (*__restrict s)[kBlock],
                                      int nb) {
  for (int i = 0; i < nb; ++i) {
    const T gv = goc[i];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const T v = xc[b->off[k][i]];
      s[k][i] = s[k][i] + gv * (b->in[k][i] ? v : T(0));
    }
  }
}

// backward_loop's sums: along each axis, tap k's weight derivative is the other two axes' weights (slower
// axis first) signed by the tap's side on this one; a zero multiplier gives zero
template <typename T>
MT_GS_INLINE void linear_grid_grad_3d(T* __restrict ggp, const LinearBlock3<T>* __restrict b,
                                      const T (*__restrict s)[kBlock], int nb) {
  for (int i = 0; i < nb; ++i) {
    T sx = T(0), sy = T(0), sz = T(0);
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const int hz = (k >> 2) & 1, hy = (k >> 1) & 1, hx = k & 1;
      const T wz = b->wz[hz][i], wy = b->wy[hy][i], wx = b->wx[hx][i];
      sz = sz + s[k][i] * (hz ? wy * wx : -(wy * wx));
      sy = sy + s[k][i] * (hy ? wz * wx : -(wz * wx));
      sx = sx + s[k][i] * (hx ? wz * wy : -(wz * wy));
    }
    ggp[3 * i] = b->mx[i] == T(0) ? T(0) : sx * b->mx[i];
    ggp[3 * i + 1] = b->my[i] == T(0) ? T(0) : sy * b->my[i];
    ggp[3 * i + 2] = b->mz[i] == T(0) ? T(0) : sz * b->mz[i];
  }
}

template <typename T, int PAD, bool ALIGN>
void forward_3d_blocked(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  T* y = out.data<T>();
  const int64_t C = geo.C, P = geo.P, plane = geo.plane, row = geo.row, rows_per_n = P / row;
  const Volume3d<T> vol = volume_3d<T>(geo);
  const bool nearest = a.mode == 1;
  parallel_rows(geo.N * rows_per_n, row * (C * (nearest ? 1 : 8) + 24), [&](int64_t r0, int64_t r1) {
    run_on_isa([&](auto isa) MT_GS_LAMBDA {
      constexpr int kIsa = decltype(isa)::value;
      LinearBlock3<T> b;
      for_row_points(r0, r1, rows_per_n, row, [&](int64_t n, int64_t p0, int64_t p1) MT_GS_LAMBDA {
        const T* xn = x + n * C * plane;
        T* yn = y + n * C * P;
        for (int64_t b0 = p0; b0 < p1; b0 += kBlock) {
          const int nb = static_cast<int>(p1 - b0 < kBlock ? p1 - b0 : kBlock);
          const T* gp = g + (n * P + b0) * 3;
          if (nearest) {
            nearest_block_3d<T, PAD, ALIGN, kIsa>(gp, nb, vol, &b);
            for (int64_t c = 0; c < C; ++c) nearest_gather_3d(xn + c * plane, yn + c * P + b0, &b, nb);
          } else {
            linear_block_3d<T, PAD, ALIGN, false, kIsa>(gp, nb, vol, &b);
            for (int64_t c = 0; c < C; ++c) linear_gather_3d(xn + c * plane, yn + c * P + b0, &b, nb);
          }
        }
      });
    });
  });
}

template <typename T, int PAD, bool ALIGN>
void linear_backward_3d_blocked(const Tensor& grad_input, const Tensor& grad_grid, const Tensor& grad_out,
                                const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  const T* go = grad_out.data<T>();
  T* gi = grad_input.defined() ? grad_input.data<T>() : nullptr;
  T* gg = grad_grid.defined() ? grad_grid.data<T>() : nullptr;
  const bool nearest = a.mode == 1;
  if (nearest && gg) {
    std::fill(gg, gg + grad_grid.numel(), T(0));
    gg = nullptr;
  }
  if (!gi && !gg) return;
  const int64_t C = geo.C, P = geo.P, plane = geo.plane;
  const Volume3d<T> vol = volume_3d<T>(geo);
  parallel_rows(geo.N, P * (C * (nearest ? 1 : 16) + 24), [&](int64_t n0, int64_t n1) {
    run_on_isa([&](auto isa) MT_GS_LAMBDA {
      constexpr int kIsa = decltype(isa)::value;
      LinearBlock3<T> b;
      alignas(64) T s[8][kBlock];
      for (int64_t n = n0; n < n1; ++n) {
        const T* xn = x + n * C * plane;
        const T* gon = go + n * C * P;
        T* gin = gi ? gi + n * C * plane : nullptr;
        for (int64_t b0 = 0; b0 < P; b0 += kBlock) {
          const int nb = static_cast<int>(P - b0 < kBlock ? P - b0 : kBlock);
          const T* gp = g + (n * P + b0) * 3;
          if (nearest) {
            nearest_block_3d<T, PAD, ALIGN, kIsa>(gp, nb, vol, &b);
            for (int64_t c = 0; c < C; ++c) linear_scatter(gin + c * plane, gon + c * P + b0, &b, nb, 1);
            continue;
          }
          linear_block_3d<T, PAD, ALIGN, true, kIsa>(gp, nb, vol, &b);
          if (gg)
            for (int k = 0; k < 8; ++k)
              for (int i = 0; i < nb; ++i) s[k][i] = T(0);
          for (int64_t c = 0; c < C; ++c) {
            if (gin) linear_scatter(gin + c * plane, gon + c * P + b0, &b, nb, 8);
            if (gg) linear_grid_sums_3d(xn + c * plane, gon + c * P + b0, &b, s, nb);
          }
          if (gg) linear_grid_grad_3d(gg + (n * P + b0) * 3, &b, s, nb);
        }
      }
    });
  });
}

// f(padding, align_corners) with both as compile-time constants
template <typename F>
void with_pad_align(const GridSampleArgs& a, const F& f) {
  const auto by_align = [&](auto pad) {
    if (a.align_corners)
      f(pad, std::true_type{});
    else
      f(pad, std::false_type{});
  };
  if (a.padding == 0)
    by_align(std::integral_constant<int, 0>{});
  else if (a.padding == 1)
    by_align(std::integral_constant<int, 1>{});
  else
    by_align(std::integral_constant<int, 2>{});
}

// int32 offsets: 2-D planes and 3-D volumes under 2^30 elements take the blocked passes
bool blocked(const Tensor& input) {
  int64_t n = 1;
  for (int64_t d = 2; d < input.dim(); ++d) n *= input.sizes()[d];
  return n < (int64_t(1) << 30);
}

template <typename T, int ND>
void forward_loop(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  if (blocked(input))
    return with_pad_align(a, [&](auto pad, auto align) {
      constexpr int kPad = decltype(pad)::value;
      constexpr bool kAlign = decltype(align)::value;
      if constexpr (ND == 3)
        forward_3d_blocked<T, kPad, kAlign>(out, input, grid, a);
      else if (a.mode == 2)
        bicubic_2d_blocked<T, kPad, kAlign>(out, input, grid, a);
      else
        forward_2d_blocked<T, kPad, kAlign>(out, input, grid, a);
    });
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  T* y = out.data<T>();
  const int64_t C = geo.C, P = geo.P, plane = geo.plane, row = geo.row, rows_per_n = P / row;
  const int cost = a.mode == 1 ? 1 : (a.mode == 0 ? (1 << ND) : 16);
  parallel_rows(geo.N * rows_per_n, row * (C * cost + 16), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / rows_per_n, p0 = (r % rows_per_n) * row;
      const T* xn = x + n * C * plane;
      T* yn = y + n * C * P;
      for (int64_t p = p0; p < p0 + row; ++p) {
        const T* gp = g + (n * P + p) * ND;
        if (a.mode == 2) {
          CubicTaps<T> t;
          cubic_taps(gp, geo, a, t);
          for (int64_t c = 0; c < C; ++c) {
            const T* xc = xn + c * plane;
            T s = T(0);
            for (int i = 0; i < 4; ++i) {
              const T* xr = xc + t.yoff[i];
              const bool yi = t.yin[i];
              T rs = at(xr, yi && t.xin[0], t.xoff[0]) * t.wx[0];
              rs = rs + at(xr, yi && t.xin[1], t.xoff[1]) * t.wx[1];
              rs = rs + at(xr, yi && t.xin[2], t.xoff[2]) * t.wx[2];
              rs = rs + at(xr, yi && t.xin[3], t.xoff[3]) * t.wx[3];
              s = i == 0 ? rs * t.wy[0] : s + rs * t.wy[i];
            }
            yn[c * P + p] = s;
          }
        } else if (a.mode == 1) {
          Taps<T, ND> t;
          nearest_tap(gp, geo, a, t);
          for (int64_t c = 0; c < C; ++c) yn[c * P + p] = at(xn + c * plane, t.in[0], t.off[0]);
        } else {
          Taps<T, ND> t;
          linear_taps(gp, geo, a, t);
          for (int64_t c = 0; c < C; ++c) {
            const T* xc = xn + c * plane;
            T s = at(xc, t.in[0], t.off[0]) * t.w[0];
            for (int k = 1; k < Taps<T, ND>::K; ++k) s = s + at(xc, t.in[k], t.off[k]) * t.w[k];
            yn[c * P + p] = s;
          }
        }
      }
    }
  });
}

template <typename T, int ND>
void backward_loop(const Tensor& grad_input, const Tensor& grad_grid, const Tensor& grad_out,
                   const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  if (blocked(input))
    return with_pad_align(a, [&](auto pad, auto align) {
      constexpr int kPad = decltype(pad)::value;
      constexpr bool kAlign = decltype(align)::value;
      if constexpr (ND == 3)
        linear_backward_3d_blocked<T, kPad, kAlign>(grad_input, grad_grid, grad_out, input, grid, a);
      else if (a.mode == 2)
        bicubic_backward_2d_blocked<T, kPad, kAlign>(grad_input, grad_grid, grad_out, input, grid, a);
      else
        linear_backward_2d_blocked<T, kPad, kAlign>(grad_input, grad_grid, grad_out, input, grid, a);
    });
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  const T* go = grad_out.data<T>();
  T* gi = grad_input.defined() ? grad_input.data<T>() : nullptr;
  T* gg = grad_grid.defined() ? grad_grid.data<T>() : nullptr;
  const int64_t C = geo.C, P = geo.P, plane = geo.plane;
  const int cost = a.mode == 1 ? 1 : (a.mode == 0 ? 2 << ND : 48);
  parallel_rows(geo.N, P * (C * cost + 16), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      const T* xn = x + n * C * plane;
      const T* gon = go + n * C * P;
      T* gin = gi ? gi + n * C * plane : nullptr;
      for (int64_t p = 0; p < P; ++p) {
        const T* gp = g + (n * P + p) * ND;
        T* ggp = gg ? gg + (n * P + p) * ND : nullptr;
        if (a.mode == 2) {
          CubicTaps<T> t;
          cubic_taps(gp, geo, a, t);
          T sx = T(0), sy = T(0);
          for (int64_t c = 0; c < C; ++c) {
            const T gv = gon[c * P + p];
            const int64_t co = c * plane;
            for (int i = 0; i < 4; ++i) {
              const T gw = gv * t.wy[i];
              for (int j = 0; j < 4; ++j) {
                const bool in = t.yin[i] && t.xin[j];
                if (gin && in) gin[co + t.yoff[i] + t.xoff[j]] += gw * t.wx[j];
                if (ggp) {
                  const T v = at(xn + co + t.yoff[i], in, t.xoff[j]) * gv;
                  sx += v * t.wy[i] * t.dwx[j];
                  sy += v * t.dwy[i] * t.wx[j];
                }
              }
            }
          }
          if (ggp) {
            ggp[0] = sx * t.mx;
            ggp[1] = sy * t.my;
          }
        } else if (a.mode == 1) {
          Taps<T, ND> t;
          nearest_tap(gp, geo, a, t);
          if (gin && t.in[0])
            for (int64_t c = 0; c < C; ++c) gin[c * plane + t.off[0]] += gon[c * P + p];
          if (ggp)
            for (int d = 0; d < ND; ++d) ggp[d] = T(0);
        } else {
          constexpr int K = Taps<T, ND>::K;
          Taps<T, ND> t;
          linear_taps(gp, geo, a, t);
          T s[K] = {};  // per tap: sum over channels of grad * value
          for (int64_t c = 0; c < C; ++c) {
            const T gv = gon[c * P + p];
            const int64_t co = c * plane;
            if (gin)
              for (int k = 0; k < K; ++k)
                if (t.in[k]) gin[co + t.off[k]] += gv * t.w[k];
            if (ggp)
              for (int k = 0; k < K; ++k) s[k] += gv * at(xn + co, t.in[k], t.off[k]);
          }
          if (ggp) {
            // d(weight of tap k)/d(coord along axis d): the other axes' weights, signed by the tap's side
            for (int d = 0; d < ND; ++d) {
              T sum = T(0);
              for (int k = 0; k < K; ++k) {
                T w = (k >> (ND - 1 - d)) & 1 ? T(1) : T(-1);
                for (int e = 0; e < ND; ++e)
                  if (e != d) w *= (k >> (ND - 1 - e)) & 1 ? t.hi_w[e] : t.lo_w[e];
                sum += s[k] * w;
              }
              ggp[ND - 1 - d] = t.mult[d] == T(0) ? T(0) : sum * t.mult[d];
            }
          }
        }
      }
    }
  });
}

void grid_sampler_cpu(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const bool d2 = input.dim() == 4;
  switch (input.dtype()) {
    case ScalarType::Float:
      return d2 ? forward_loop<float, 2>(out, input, grid, a) : forward_loop<float, 3>(out, input, grid, a);
    case ScalarType::Double:
      return d2 ? forward_loop<double, 2>(out, input, grid, a) : forward_loop<double, 3>(out, input, grid, a);
    default:
      MT_ERROR("\"grid_sampler_cpu\" not implemented for '", dtype_short_name(input.dtype()), "'");
  }
}

void grid_sampler_backward_cpu(const Tensor& gi, const Tensor& gg, const Tensor& go, const Tensor& input,
                               const Tensor& grid, const GridSampleArgs& a) {
  const bool d2 = input.dim() == 4;
  switch (input.dtype()) {
    case ScalarType::Float:
      return d2 ? backward_loop<float, 2>(gi, gg, go, input, grid, a)
                : backward_loop<float, 3>(gi, gg, go, input, grid, a);
    case ScalarType::Double:
      return d2 ? backward_loop<double, 2>(gi, gg, go, input, grid, a)
                : backward_loop<double, 3>(gi, gg, go, input, grid, a);
    default:
      MT_ERROR("\"grid_sampler_backward_cpu\" not implemented for '", dtype_short_name(input.dtype()), "'");
  }
}

}  // namespace

MT_REGISTER_KERNEL(grid_sampler_stub, CPU, &grid_sampler_cpu);
MT_REGISTER_KERNEL(grid_sampler_backward_stub, CPU, &grid_sampler_backward_cpu);

}  // namespace mt
