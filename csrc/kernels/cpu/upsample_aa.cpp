// CPU separable upsampling (antialias=True, and uint8 bilinear/bicubic): PyTorch's UpSampleKernel.cpp "aa"
// path. A weight row per output index (its first input index, its length, its normalized weights), a
// horizontal pass over W, then a vertical pass over H; a dim that keeps its size is skipped, as PyTorch's
// skips it. uint8 runs in fixed point as PyTorch's AVX2 kernel (UpSampleKernelAVXAntialias.h): int16 weights
// scaled by 2^precision, a rounding bias, an int32 sum, a shift, clamping to [0, 255] after each pass.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/ParallelRows.h"
#include "ops/upsample.h"

namespace mt {
namespace {

// Weight rows for one dim: row o reads input [xmin[o], xmin[o] + xsize[o]) with weights w[o * width ...].
template <typename S>
struct AaRows {
  int64_t width = 0;
  std::vector<int64_t> xmin, xsize;
  std::vector<S> w;
  S wmax = 0;
};

// Every output's row of one dim (ops/upsample.h's upsample_aa_row), and the largest weight (uint8's
// precision).
template <typename S>
AaRows<S> rows_for(const UpsampleAaArgs& a, int d) {
  const UpsampleAaDim<S> p = upsample_aa_dim<S>(a, d);
  AaRows<S> r;
  const int64_t out = a.out[d];
  r.width = p.width;
  r.xmin.resize(out);
  r.xsize.resize(out);
  r.w.assign(static_cast<size_t>(out * r.width), S(0));
  for (int64_t i = 0; i < out; ++i) {
    S* w = r.w.data() + i * r.width;
    upsample_aa_row<S>(p, a.filter, a.in[d], i, &r.xmin[i], &r.xsize[i], w);
    for (int64_t j = 0; j < r.xsize[i]; ++j) r.wmax = std::max(r.wmax, w[j]);
  }
  return r;
}

// uint8 bicubic without antialias: the float kernel's four taps (a = -0.75, indices clamped to the border)
// with the clamped taps' weights summed onto the border index (PyTorch's
// _compute_indices_min_size_weights_bicubic).
AaRows<double> bicubic_rows(bool align_corners, int64_t in, int64_t out, double s) {
  AaRows<double> r;
  r.width = 4;
  r.xmin.resize(out);
  r.xsize.resize(out);
  r.w.assign(static_cast<size_t>(out * 4), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    double t;
    int64_t i0 = upsample_lower_source<double>(in, out, align_corners, s, i, true, &t);
    const double A = -0.75;
    const double c[4] = {upsample_cubic2<double>(t + 1, A), upsample_cubic1<double>(t, A),
                         upsample_cubic1<double>(1 - t, A), upsample_cubic2<double>(2 - t, A)};
    int64_t lo = upsample_clamp(i0 - 1, in), hi = upsample_clamp(i0 + 2, in);
    double* w = r.w.data() + i * 4;
    for (int k = 0; k < 4; ++k) w[upsample_clamp(i0 - 1 + k, in) - lo] += c[k];
    for (int64_t j = 0; j <= hi - lo; ++j) r.wmax = std::max(r.wmax, w[j]);
    r.xmin[i] = lo;
    r.xsize[i] = hi - lo + 1;
  }
  return r;
}

// ---- float/double: sums in the input's type, first term t0 * w0, in PyTorch's order.
template <typename T>
void horizontal(T* y, const T* x, int64_t rows, int64_t iW, int64_t oW, const AaRows<T>& r) {
  parallel_rows(rows, oW * r.width, [&](int64_t r0, int64_t r1) {
    for (int64_t k = r0; k < r1; ++k) {
      const T* xr = x + k * iW;
      T* yr = y + k * oW;
      for (int64_t o = 0; o < oW; ++o) {
        const T* w = r.w.data() + o * r.width;
        const T* xs = xr + r.xmin[o];
        T s = xs[0] * w[0];
        for (int64_t j = 1; j < r.xsize[o]; ++j) s += xs[j] * w[j];
        yr[o] = s;
      }
    }
  });
}

template <typename T>
void vertical(T* y, const T* x, int64_t planes, int64_t iH, int64_t oH, int64_t W, const AaRows<T>& r) {
  parallel_rows(planes * oH, W * r.width, [&](int64_t r0, int64_t r1) {
    for (int64_t k = r0; k < r1; ++k) {
      const int64_t o = k % oH, pl = k / oH;
      const T* w = r.w.data() + o * r.width;
      const T* xs = x + (pl * iH + r.xmin[o]) * W;
      T* yr = y + k * W;
      for (int64_t c = 0; c < W; ++c) yr[c] = xs[c] * w[0];
      for (int64_t j = 1; j < r.xsize[o]; ++j) {
        const T* xj = xs + j * W;
        const T wj = w[j];
        for (int64_t c = 0; c < W; ++c) yr[c] += xj[c] * wj;
      }
    }
  });
}

// ---- uint8: int16 weights with PyTorch's precision (the largest that keeps 2 * wmax under 2^15)
struct FixedRows {
  int64_t width = 0;
  unsigned precision = 0;
  std::vector<int64_t> xmin, xsize;
  std::vector<int16_t> w;
};

FixedRows to_fixed(const AaRows<double>& r) {
  FixedRows f;
  f.width = r.width;
  f.xmin = r.xmin;
  f.xsize = r.xsize;
  for (f.precision = 0; f.precision < 22; ++f.precision)
    if (static_cast<int>(0.5 + r.wmax * (1 << (f.precision + 1))) >= (1 << 15)) break;
  f.w.resize(r.w.size());
  for (size_t k = 0; k < r.w.size(); ++k) {
    double v = r.w[k] * (1 << f.precision);
    f.w[k] = static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
  return f;
}

// The int32 sum wraps as the AVX2 kernel's does (only reachable with extreme downscales).
inline uint8_t fixed_result(uint32_t acc, unsigned precision) {
  int32_t v = static_cast<int32_t>(acc) >> precision;
  return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

void horizontal_u8(uint8_t* y, const uint8_t* x, int64_t rows, int64_t iW, int64_t oW, const FixedRows& r) {
  const uint32_t bias = r.precision ? (1u << (r.precision - 1)) : 0u;
  parallel_rows(rows, oW * r.width, [&](int64_t r0, int64_t r1) {
    for (int64_t k = r0; k < r1; ++k) {
      const uint8_t* xr = x + k * iW;
      uint8_t* yr = y + k * oW;
      for (int64_t o = 0; o < oW; ++o) {
        const int16_t* w = r.w.data() + o * r.width;
        const uint8_t* xs = xr + r.xmin[o];
        uint32_t acc = bias;
        for (int64_t j = 0; j < r.xsize[o]; ++j)
          acc += static_cast<uint32_t>(static_cast<int32_t>(xs[j]) * static_cast<int32_t>(w[j]));
        yr[o] = fixed_result(acc, r.precision);
      }
    }
  });
}

void vertical_u8(uint8_t* y, const uint8_t* x, int64_t planes, int64_t iH, int64_t oH, int64_t W,
                 const FixedRows& r) {
  const uint32_t bias = r.precision ? (1u << (r.precision - 1)) : 0u;
  parallel_rows(planes * oH, W * r.width, [&](int64_t r0, int64_t r1) {
    std::vector<uint32_t> acc(static_cast<size_t>(W));
    for (int64_t k = r0; k < r1; ++k) {
      const int64_t o = k % oH, pl = k / oH;
      const int16_t* w = r.w.data() + o * r.width;
      const uint8_t* xs = x + (pl * iH + r.xmin[o]) * W;
      std::fill(acc.begin(), acc.end(), bias);
      for (int64_t j = 0; j < r.xsize[o]; ++j) {
        const uint8_t* xj = xs + j * W;
        const int32_t wj = w[j];
        for (int64_t c = 0; c < W; ++c) acc[c] += static_cast<uint32_t>(static_cast<int32_t>(xj[c]) * wj);
      }
      uint8_t* yr = y + k * W;
      for (int64_t c = 0; c < W; ++c) yr[c] = fixed_result(acc[c], r.precision);
    }
  });
}

// Runs the passes PyTorch runs: W then H, each only where the size changes; a buffer between them.
template <typename T, typename Rows, typename H, typename V>
void separable(const Tensor& out, const Tensor& input, const UpsampleAaArgs& a, const Rows& rh,
               const Rows& rw, H hpass, V vpass) {
  const int64_t P = input.sizes()[0] * input.sizes()[1];
  const int64_t iH = a.in[0], iW = a.in[1], oH = a.out[0], oW = a.out[1];
  const T* x = input.data<T>();
  T* y = out.data<T>();
  const bool do_w = iW != oW, do_h = iH != oH;
  if (!do_w && !do_h) {
    std::memcpy(y, x, static_cast<size_t>(P * iH * iW) * sizeof(T));
    return;
  }
  std::vector<T> tmp;
  if (do_w) {
    T* dst = y;
    if (do_h) {
      tmp.resize(static_cast<size_t>(P * iH * oW));
      dst = tmp.data();
    }
    hpass(dst, x, P * iH, iW, oW, rw);
    x = dst;
  }
  if (do_h) vpass(y, x, P, iH, oH, oW, rh);
}

template <typename T>
void upsample_aa_float(const Tensor& out, const Tensor& input, const UpsampleAaArgs& a) {
  AaRows<T> rh, rw;
  if (a.in[0] != a.out[0]) rh = rows_for<T>(a, 0);
  if (a.in[1] != a.out[1]) rw = rows_for<T>(a, 1);
  separable<T>(out, input, a, rh, rw, horizontal<T>, vertical<T>);
}

void upsample_aa_byte(const Tensor& out, const Tensor& input, const UpsampleAaArgs& a) {
  auto rows = [&](int d) {
    if (a.in[d] == a.out[d]) return FixedRows();
    if (!a.antialias && a.filter == UpsampleAaFilter::cubic)
      return to_fixed(bicubic_rows(a.align_corners, a.in[d], a.out[d], a.scale[d]));
    return to_fixed(rows_for<double>(a, d));
  };
  FixedRows rh = rows(0), rw = rows(1);
  separable<uint8_t>(out, input, a, rh, rw, horizontal_u8, vertical_u8);
}

void upsample_aa_cpu(const Tensor& out, const Tensor& input, const UpsampleAaArgs& a) {
  switch (input.dtype()) {
    case ScalarType::Float:
      return upsample_aa_float<float>(out, input, a);
    case ScalarType::Double:
      return upsample_aa_float<double>(out, input, a);
    case ScalarType::Byte:
      return upsample_aa_byte(out, input, a);
    default:
      MT_ERROR("\"compute_index_ranges_weights\" not implemented for '", dtype_short_name(input.dtype()),
               "'");
  }
}

// ---- the gradient: the adjoint of the passes run (vertical's first), scattering each output's share
template <typename T>
void upsample_aa_backward_loop(const Tensor& grad_in, const Tensor& grad_out, const UpsampleAaArgs& a) {
  const int64_t P = grad_in.sizes()[0] * grad_in.sizes()[1];
  const int64_t iH = a.in[0], iW = a.in[1], oH = a.out[0], oW = a.out[1];
  const bool do_w = iW != oW, do_h = iH != oH;
  const T* g = grad_out.data<T>();
  T* gi = grad_in.data<T>();
  if (!do_w && !do_h) {
    std::memcpy(gi, g, static_cast<size_t>(P * iH * iW) * sizeof(T));
    return;
  }
  std::vector<T> tmp;
  if (do_h) {
    AaRows<T> r = rows_for<T>(a, 0);
    T* dst = gi;
    if (do_w) {
      tmp.resize(static_cast<size_t>(P * iH * oW));
      dst = tmp.data();
    }
    parallel_rows(P, oH * oW * r.width, [&](int64_t p0, int64_t p1) {
      for (int64_t pl = p0; pl < p1; ++pl) {
        T* dp = dst + pl * iH * oW;
        std::fill(dp, dp + iH * oW, T(0));
        for (int64_t o = 0; o < oH; ++o) {
          const T* gr = g + (pl * oH + o) * oW;
          const T* w = r.w.data() + o * r.width;
          for (int64_t j = 0; j < r.xsize[o]; ++j) {
            T* d = dp + (r.xmin[o] + j) * oW;
            const T wj = w[j];
            for (int64_t c = 0; c < oW; ++c) d[c] += wj * gr[c];
          }
        }
      }
    });
    g = dst;
  }
  if (do_w) {
    AaRows<T> r = rows_for<T>(a, 1);
    parallel_rows(P * iH, oW * r.width, [&](int64_t r0, int64_t r1) {
      for (int64_t k = r0; k < r1; ++k) {
        T* d = gi + k * iW;
        const T* gr = g + k * oW;
        std::fill(d, d + iW, T(0));
        for (int64_t o = 0; o < oW; ++o) {
          const T* w = r.w.data() + o * r.width;
          T* ds = d + r.xmin[o];
          for (int64_t j = 0; j < r.xsize[o]; ++j) ds[j] += w[j] * gr[o];
        }
      }
    });
  }
}

void upsample_aa_backward_cpu(const Tensor& grad_in, const Tensor& grad_out, const UpsampleAaArgs& a) {
  switch (grad_in.dtype()) {
    case ScalarType::Float:
      return upsample_aa_backward_loop<float>(grad_in, grad_out, a);
    case ScalarType::Double:
      return upsample_aa_backward_loop<double>(grad_in, grad_out, a);
    default:
      MT_ERROR("\"upsample_aa_backward_cpu\" not implemented for '", dtype_short_name(grad_in.dtype()), "'");
  }
}

}  // namespace

MT_REGISTER_KERNEL(upsample_aa_stub, CPU, &upsample_aa_cpu);
MT_REGISTER_KERNEL(upsample_aa_backward_stub, CPU, &upsample_aa_backward_cpu);

}  // namespace mt
