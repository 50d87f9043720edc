// CPU grid_sample kernels: one pass per output point computes its taps and weights (ops/grid_sample.h's math,
// in the composite's operation order) and then runs over the channels. The forward splits over (batch, output
// row), the backward over the batch (the input gradient is a scatter: one batch's points never touch
// another's). A tap outside the image reads zero but still meets its weight, so a NaN grid point gives NaN as
// PyTorch's.
#include "ops/grid_sample.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/Parallel.h"
#include "kernels/cpu/ParallelRows.h"

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

// ---- The 2-D bilinear/nearest forward with zeros or border padding, in two passes over blocks of points:
// the coordinates, weights and int32 offsets of a block with selects only (so the compiler vectorizes it),
// then per channel a branch-free gather. One point at a time, branches and int64 conversions cost 3-5x more.
constexpr int kBlock = 64;

// branch-free on purpose: the fractions of a warped grid are random, and every mispredicted branch of the
// floor, the rounding or the bounds costs more than the arithmetic (comparisons become 0/1 numbers or masks)
template <typename T>
inline T block_clip(T c, T size) {
  const T inner = c < size - 1 ? c : size - 1;
  return c > 0 ? inner : T(0);  // NaN lands on 0, as the composite's
}
template <typename T, int PAD, bool ALIGN>
inline T block_coord(T raw, T size) {
  T c = ALIGN ? (raw + 1) / 2 * (size - 1) : ((raw + 1) * size - 1) / 2;
  return PAD == 1 ? block_clip(c, size) : c;
}
// floor through int32 where it fits (beyond 1e9 a coordinate is integral for float and far outside any image
// for both types: it reads nothing); NaN stays NaN
template <typename T>
inline T block_floor(T c) {
  const bool fits = (c > T(-1e9)) & (c < T(1e9));
  const T t = static_cast<T>(static_cast<int32_t>(fits ? c : T(0)));
  const T f = t - static_cast<T>(t > c);
  return fits ? f : c;
}
template <typename T>
inline T block_round_even(T c) {
  const T f = block_floor(c), d = c - f;
  const bool fits = (c > T(-1e9)) & (c < T(1e9));
  const T odd = static_cast<T>(static_cast<int32_t>(fits ? f : T(0)) & 1);
  return f + (static_cast<T>(d > T(0.5)) + static_cast<T>(d == T(0.5)) * odd);
}
template <typename T>
inline bool block_inside(T c, T size) {
  return (c >= 0) & (c <= size - 1);
}

template <typename T, int PAD, bool ALIGN>
void forward_2d_blocked(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  T* y = out.data<T>();
  const int64_t C = geo.C, P = geo.P, plane = geo.plane, row = geo.row, rows_per_n = P / row;
  const int32_t W = static_cast<int32_t>(geo.size[1]);
  const T Hf = T(geo.size[0]), Wf = T(geo.size[1]);
  const bool nearest = a.mode == 1;
  parallel_rows(geo.N * rows_per_n, row * (C * (nearest ? 1 : 4) + 16), [&](int64_t r0, int64_t r1) {
    alignas(64) T w[4][kBlock];
    alignas(64) int32_t off[4][kBlock];
    alignas(64) int32_t in[4][kBlock];
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / rows_per_n;
      const T* xn = x + n * C * plane;
      T* yn = y + n * C * P;
      for (int64_t b0 = (r % rows_per_n) * row, end = b0 + row; b0 < end; b0 += kBlock) {
        const int nb = static_cast<int>(std::min<int64_t>(kBlock, end - b0));
        const T* gp = g + (n * P + b0) * 2;
        if (nearest) {
          for (int i = 0; i < nb; ++i) {
            const T ix = block_round_even(block_coord<T, PAD, ALIGN>(gp[2 * i], Wf));
            const T iy = block_round_even(block_coord<T, PAD, ALIGN>(gp[2 * i + 1], Hf));
            const int32_t m = -static_cast<int32_t>(block_inside(ix, Wf) & block_inside(iy, Hf));
            in[0][i] = m;
            const T okf = static_cast<T>(m & 1);
            off[0][i] = (static_cast<int32_t>(iy * okf) * W + static_cast<int32_t>(ix * okf)) & m;
          }
          for (int64_t c = 0; c < C; ++c) {
            const T* xc = xn + c * plane;
            T* yc = yn + c * P + b0;
            for (int i = 0; i < nb; ++i) {
              const T v = xc[off[0][i]];
              yc[i] = in[0][i] ? v : T(0);
            }
          }
          continue;
        }
        for (int i = 0; i < nb; ++i) {
          const T ix = block_coord<T, PAD, ALIGN>(gp[2 * i], Wf);
          const T iy = block_coord<T, PAD, ALIGN>(gp[2 * i + 1], Hf);
          const T x0 = block_floor(ix), y0 = block_floor(iy), x1 = x0 + 1, y1 = y0 + 1;
          const T wx0 = x1 - ix, wx1 = ix - x0, wy0 = y1 - iy, wy1 = iy - y0;
          const bool x0ok = block_inside(x0, Wf), x1ok = block_inside(x1, Wf);
          const bool y0ok = block_inside(y0, Hf), y1ok = block_inside(y1, Hf);
          // x0 and y0 are in [-1, size - 1] wherever a tap is read
          const int32_t xi = static_cast<int32_t>((x0ok | x1ok) ? x0 : T(0));
          const int32_t yi = static_cast<int32_t>((y0ok | y1ok) ? y0 : T(0));
          const int32_t base = yi * W + xi;
          w[0][i] = wy0 * wx0;
          w[1][i] = wy0 * wx1;
          w[2][i] = wy1 * wx0;
          w[3][i] = wy1 * wx1;
          const int32_t m0 = -static_cast<int32_t>(y0ok & x0ok), m1 = -static_cast<int32_t>(y0ok & x1ok);
          const int32_t m2 = -static_cast<int32_t>(y1ok & x0ok), m3 = -static_cast<int32_t>(y1ok & x1ok);
          in[0][i] = m0;
          in[1][i] = m1;
          in[2][i] = m2;
          in[3][i] = m3;
          off[0][i] = base & m0;
          off[1][i] = (base + 1) & m1;
          off[2][i] = (base + W) & m2;
          off[3][i] = (base + W + 1) & m3;
        }
        for (int64_t c = 0; c < C; ++c) {
          const T* xc = xn + c * plane;
          T* yc = yn + c * P + b0;
          for (int i = 0; i < nb; ++i) {
            const T v0 = xc[off[0][i]], v1 = xc[off[1][i]], v2 = xc[off[2][i]], v3 = xc[off[3][i]];
            T s = (in[0][i] ? v0 : T(0)) * w[0][i];
            s = s + (in[1][i] ? v1 : T(0)) * w[1][i];
            s = s + (in[2][i] ? v2 : T(0)) * w[2][i];
            s = s + (in[3][i] ? v3 : T(0)) * w[3][i];
            yc[i] = s;
          }
        }
      }
    }
  });
}

// Bicubic (zeros or border padding) in the same two passes: per point the 4 + 4 cubic weights and the tap
// rows' and columns (offsets and masks), then per channel the 16 taps, each row along x first, as the
// composite sums
template <typename T, int PAD, bool ALIGN>
void bicubic_2d_blocked(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const Geometry geo = geometry(input, grid);
  const T* x = input.data<T>();
  const T* g = grid.data<T>();
  T* y = out.data<T>();
  const int64_t C = geo.C, P = geo.P, plane = geo.plane, row = geo.row, rows_per_n = P / row;
  const int32_t W = static_cast<int32_t>(geo.size[1]);
  const T Hf = T(geo.size[0]), Wf = T(geo.size[1]);
  parallel_rows(geo.N * rows_per_n, row * (C * 16 + 32), [&](int64_t r0, int64_t r1) {
    alignas(64) T wx[4][kBlock], wy[4][kBlock];
    alignas(64) int32_t xo[4][kBlock], yo[4][kBlock], xm[4][kBlock], ym[4][kBlock];
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / rows_per_n;
      const T* xn = x + n * C * plane;
      T* yn = y + n * C * P;
      for (int64_t b0 = (r % rows_per_n) * row, end = b0 + row; b0 < end; b0 += kBlock) {
        const int nb = static_cast<int>(std::min<int64_t>(kBlock, end - b0));
        const T* gp = g + (n * P + b0) * 2;
        for (int i = 0; i < nb; ++i) {
          const T ix = block_coord<T, 0, ALIGN>(gp[2 * i], Wf),
                  iy = block_coord<T, 0, ALIGN>(gp[2 * i + 1], Hf);
          const T x0 = block_floor(ix), y0 = block_floor(iy), tx = ix - x0, ty = iy - y0;
          wx[0][i] = grid_cubic_far(tx + 1);
          wx[1][i] = grid_cubic_near(tx);
          wx[2][i] = grid_cubic_near(1 - tx);
          wx[3][i] = grid_cubic_far(2 - tx);
          wy[0][i] = grid_cubic_far(ty + 1);
          wy[1][i] = grid_cubic_near(ty);
          wy[2][i] = grid_cubic_near(1 - ty);
          wy[3][i] = grid_cubic_far(2 - ty);
          for (int j = 0; j < 4; ++j) {
            T cx = x0 + T(j - 1), cy = y0 + T(j - 1);
            if (PAD == 1) {
              cx = block_clip(cx, Wf);
              cy = block_clip(cy, Hf);
            }
            const int32_t mx = -static_cast<int32_t>(block_inside(cx, Wf));
            const int32_t my = -static_cast<int32_t>(block_inside(cy, Hf));
            xm[j][i] = mx;
            ym[j][i] = my;
            xo[j][i] = static_cast<int32_t>(cx * static_cast<T>(mx & 1)) & mx;
            yo[j][i] = (static_cast<int32_t>(cy * static_cast<T>(my & 1)) * W) & my;
          }
        }
        for (int64_t c = 0; c < C; ++c) {
          const T* xc = xn + c * plane;
          T* yc = yn + c * P + b0;
          for (int i = 0; i < nb; ++i) {
            T s = T(0);
            for (int k = 0; k < 4; ++k) {
              const T* xr = xc + yo[k][i];
              const int32_t mk = ym[k][i];
              T v = xr[xo[0][i]];
              T rs = ((mk & xm[0][i]) ? v : T(0)) * wx[0][i];
              v = xr[xo[1][i]];
              rs = rs + ((mk & xm[1][i]) ? v : T(0)) * wx[1][i];
              v = xr[xo[2][i]];
              rs = rs + ((mk & xm[2][i]) ? v : T(0)) * wx[2][i];
              v = xr[xo[3][i]];
              rs = rs + ((mk & xm[3][i]) ? v : T(0)) * wx[3][i];
              s = k == 0 ? rs * wy[0][i] : s + rs * wy[k][i];
            }
            yc[i] = s;
          }
        }
      }
    }
  });
}

template <typename T, int ND>
void forward_loop(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  if constexpr (ND == 2) {
    // int32 offsets; reflection's fmod and bicubic's 16 taps keep the per-point loop
    if (a.mode == 2 && a.padding != 2 && input.sizes()[2] * input.sizes()[3] < (int64_t(1) << 30)) {
      if (a.padding == 0)
        return a.align_corners ? bicubic_2d_blocked<T, 0, true>(out, input, grid, a)
                               : bicubic_2d_blocked<T, 0, false>(out, input, grid, a);
      return a.align_corners ? bicubic_2d_blocked<T, 1, true>(out, input, grid, a)
                             : bicubic_2d_blocked<T, 1, false>(out, input, grid, a);
    }
    if (a.mode != 2 && a.padding != 2 && input.sizes()[2] * input.sizes()[3] < (int64_t(1) << 30)) {
      if (a.padding == 0)
        return a.align_corners ? forward_2d_blocked<T, 0, true>(out, input, grid, a)
                               : forward_2d_blocked<T, 0, false>(out, input, grid, a);
      return a.align_corners ? forward_2d_blocked<T, 1, true>(out, input, grid, a)
                             : forward_2d_blocked<T, 1, false>(out, input, grid, a);
    }
  }
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

// Nearest's backward (2-D, zeros or border): the taps of a block as the forward finds them, then per channel
// a scatter of the output gradient; the grid's gradient is zero
template <typename T, int PAD, bool ALIGN>
void nearest_backward_2d_blocked(const Tensor& grad_input, const Tensor& grad_grid, const Tensor& grad_out,
                                 const Tensor& input, const Tensor& grid) {
  const Geometry geo = geometry(input, grid);
  const T* g = grid.data<T>();
  const T* go = grad_out.data<T>();
  T* gi = grad_input.defined() ? grad_input.data<T>() : nullptr;
  if (grad_grid.defined()) std::fill(grad_grid.data<T>(), grad_grid.data<T>() + grad_grid.numel(), T(0));
  if (!gi) return;
  const int64_t C = geo.C, P = geo.P, plane = geo.plane;
  const int32_t W = static_cast<int32_t>(geo.size[1]);
  const T Hf = T(geo.size[0]), Wf = T(geo.size[1]);
  parallel_rows(geo.N, P * (C + 16), [&](int64_t n0, int64_t n1) {
    alignas(64) int32_t off[kBlock], in[kBlock];
    for (int64_t n = n0; n < n1; ++n) {
      const T* gon = go + n * C * P;
      T* gin = gi + n * C * plane;
      for (int64_t b0 = 0; b0 < P; b0 += kBlock) {
        const int nb = static_cast<int>(std::min<int64_t>(kBlock, P - b0));
        const T* gp = g + (n * P + b0) * 2;
        for (int i = 0; i < nb; ++i) {
          const T ix = block_round_even(block_coord<T, PAD, ALIGN>(gp[2 * i], Wf));
          const T iy = block_round_even(block_coord<T, PAD, ALIGN>(gp[2 * i + 1], Hf));
          const int32_t m = -static_cast<int32_t>(block_inside(ix, Wf) & block_inside(iy, Hf));
          in[i] = m;
          const T okf = static_cast<T>(m & 1);
          off[i] = (static_cast<int32_t>(iy * okf) * W + static_cast<int32_t>(ix * okf)) & m;
        }
        for (int64_t c = 0; c < C; ++c) {
          T* gc = gin + c * plane;
          const T* goc = gon + c * P + b0;
          for (int i = 0; i < nb; ++i)
            if (in[i]) gc[off[i]] += goc[i];
        }
      }
    }
  });
}

template <typename T, int ND>
void backward_loop(const Tensor& grad_input, const Tensor& grad_grid, const Tensor& grad_out,
                   const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  if constexpr (ND == 2) {
    if (a.mode == 1 && a.padding != 2 && input.sizes()[2] * input.sizes()[3] < (int64_t(1) << 30)) {
      if (a.padding == 0)
        return a.align_corners
                   ? nearest_backward_2d_blocked<T, 0, true>(grad_input, grad_grid, grad_out, input, grid)
                   : nearest_backward_2d_blocked<T, 0, false>(grad_input, grad_grid, grad_out, input, grid);
      return a.align_corners
                 ? nearest_backward_2d_blocked<T, 1, true>(grad_input, grad_grid, grad_out, input, grid)
                 : nearest_backward_2d_blocked<T, 1, false>(grad_input, grad_grid, grad_out, input, grid);
    }
  }
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
