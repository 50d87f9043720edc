// CPU separable upsampling (antialias=True, and uint8 bilinear/bicubic): PyTorch's UpSampleKernel.cpp "aa"
// path. A weight row per output index (its first input index, its length, its normalized weights), a
// horizontal pass over W, then a vertical pass over H; a dim that keeps its size is skipped, as PyTorch's
// skips it. uint8 runs in fixed point as PyTorch's AVX2 kernel (UpSampleKernelAVXAntialias.h): int16 weights
// scaled by 2^precision, a rounding bias, an int32 sum, a shift, clamping to [0, 255] after each pass.
// uint8's passes have AVX2 kernels (vpmaddwd over pairs of taps) that MINITORCH_CPU_CAPABILITY avx2 and
// avx512 run, and scalar loops that default runs; integer sums, so both give the same bytes. No AVX-512 copy
// was tried: the passes are bound by loads and shuffles, which the AVX-512 EPYC (Zen 4) runs at 512 bits as
// two 256-bit halves. A channels-last uint8 input with 3 or 4 channels is resized as it lies (NHWC), as
// PyTorch's kernel does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/Loops.h"
#include "kernels/cpu/ParallelRows.h"
#include "ops/upsample.h"

#ifdef MT_LOOPS_AVX2
#include <immintrin.h>
#endif

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

// Channels-last (NHWC): a row holds W pixels of C bytes; each output pixel's C sums read the same taps.
void horizontal_u8_nhwc(uint8_t* y, const uint8_t* x, int64_t rows, int64_t iW, int64_t oW, int64_t C,
                        const FixedRows& r) {
  const uint32_t bias = r.precision ? (1u << (r.precision - 1)) : 0u;
  parallel_rows(rows, oW * C * r.width, [&](int64_t r0, int64_t r1) {
    for (int64_t k = r0; k < r1; ++k) {
      const uint8_t* xr = x + k * iW * C;
      uint8_t* yr = y + k * oW * C;
      for (int64_t o = 0; o < oW; ++o) {
        const int16_t* w = r.w.data() + o * r.width;
        const uint8_t* xs = xr + r.xmin[o] * C;
        for (int64_t c = 0; c < C; ++c) {
          uint32_t acc = bias;
          for (int64_t j = 0; j < r.xsize[o]; ++j)
            acc += static_cast<uint32_t>(static_cast<int32_t>(xs[j * C + c]) * static_cast<int32_t>(w[j]));
          yr[o * C + c] = fixed_result(acc, r.precision);
        }
      }
    }
  });
}

#ifdef MT_LOOPS_AVX2
// ---- uint8 with AVX2 (MINITORCH_CPU_CAPABILITY avx2 or avx512; default runs the loops above): the same
// int32 sums bit for bit, whatever the order (products below 2^23, every add wraps mod 2^32 as the scalar
// one's), and the same shift and clamp (packs to int16 then uint8 saturate, so clamp to [0, 255]). Pairs of
// taps multiply and add in one vpmaddwd, as PyTorch's kernel does.

// The horizontal pass's weights for eight outputs at a time, taps padded to chunks of eight and laid out in
// the order the kernel reads them: group g, chunk c, pair p holds output 8g+p's eight weights then 8g+4+p's,
// so one hadd tree leaves outputs 8g..8g+7 in order. `groups` counts the leading groups whose every read
// (chunks of eight bytes from xmin) stays inside the input row; the outputs after them run the scalar loop.
struct FixedGroups {
  int64_t chunks = 0, groups = 0;
  std::vector<int16_t> w;
};

FixedGroups to_groups(const FixedRows& r, int64_t in) {
  FixedGroups g;
  const int64_t out = static_cast<int64_t>(r.xmin.size());
  g.chunks = (r.width + 7) / 8;
  const int64_t span = 8 * g.chunks;
  while (8 * (g.groups + 1) <= out) {
    bool fits = true;
    for (int64_t o = 8 * g.groups; o < 8 * (g.groups + 1); ++o) fits = fits && r.xmin[o] + span <= in;
    if (!fits) break;
    ++g.groups;
  }
  g.w.assign(static_cast<size_t>(g.groups * g.chunks * 64), 0);
  for (int64_t gi = 0; gi < g.groups; ++gi)
    for (int64_t c = 0; c < g.chunks; ++c)
      for (int64_t p = 0; p < 4; ++p)
        for (int64_t half = 0; half < 2; ++half) {
          const int64_t o = 8 * gi + p + 4 * half;
          int16_t* dst = g.w.data() + ((gi * g.chunks + c) * 4 + p) * 16 + half * 8;
          for (int64_t t = 0; t < 8; ++t) {
            const int64_t j = 8 * c + t;
            if (j < r.xsize[o]) dst[t] = r.w[o * r.width + j];
          }
        }
  return g;
}

__attribute__((target("avx2"))) inline __m256i chunk_pair(const uint8_t* a, const uint8_t* b, __m256i w) {
  int64_t lo, hi;
  std::memcpy(&lo, a, 8);
  std::memcpy(&hi, b, 8);
  const __m256i x = _mm256_cvtepu8_epi16(_mm_set_epi64x(hi, lo));
  return _mm256_madd_epi16(x, w);
}

// int32 sums to bytes: add the rounding bias, shift arithmetically, saturate to int16 then to uint8
__attribute__((target("avx2"))) inline __m256i fixed_round(__m256i v, __m256i bias, __m128i shift) {
  return _mm256_sra_epi32(_mm256_add_epi32(v, bias), shift);
}

// R rows from row k of the horizontal pass (R of them share each weight load)
template <int R>
__attribute__((target("avx2"))) void horizontal_rows_avx2(uint8_t* y, const uint8_t* x, int64_t k, int64_t iW,
                                                          int64_t oW, const FixedRows& r,
                                                          const FixedGroups& g) {
  const uint32_t b = r.precision ? (1u << (r.precision - 1)) : 0u;
  const __m256i bias = _mm256_set1_epi32(static_cast<int32_t>(b));
  const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(r.precision));
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    const int64_t* xm = r.xmin.data() + 8 * gi;
    const int16_t* w = g.w.data() + gi * g.chunks * 64;
    __m256i s[R][4];
    for (int p = 0; p < 4; ++p) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + p * 16));
      for (int i = 0; i < R; ++i)
        s[i][p] = chunk_pair(x + (k + i) * iW + xm[p], x + (k + i) * iW + xm[p + 4], w0);
    }
    for (int64_t c = 1; c < g.chunks; ++c)
      for (int p = 0; p < 4; ++p) {
        const __m256i wc = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + (c * 4 + p) * 16));
        for (int i = 0; i < R; ++i) {
          const uint8_t* xr = x + (k + i) * iW + 8 * c;
          s[i][p] = _mm256_add_epi32(s[i][p], chunk_pair(xr + xm[p], xr + xm[p + 4], wc));
        }
      }
    for (int i = 0; i < R; ++i) {
      // lane 0 of each s[i][p] holds output 8g+p's partial sums, lane 1 output 8g+4+p's
      const __m256i h =
          _mm256_hadd_epi32(_mm256_hadd_epi32(s[i][0], s[i][1]), _mm256_hadd_epi32(s[i][2], s[i][3]));
      const __m256i v = fixed_round(h, bias, shift);
      const __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(y + (k + i) * oW + 8 * gi), _mm_packus_epi16(p16, p16));
    }
  }
  for (int i = 0; i < R; ++i) {
    const uint8_t* xr = x + (k + i) * iW;
    uint8_t* yr = y + (k + i) * oW;
    for (int64_t o = 8 * g.groups; o < oW; ++o) {
      const int16_t* w = r.w.data() + o * r.width;
      const uint8_t* xs = xr + r.xmin[o];
      uint32_t acc = b;
      for (int64_t j = 0; j < r.xsize[o]; ++j)
        acc += static_cast<uint32_t>(static_cast<int32_t>(xs[j]) * static_cast<int32_t>(w[j]));
      yr[o] = fixed_result(acc, r.precision);
    }
  }
}

void horizontal_u8_avx2(uint8_t* y, const uint8_t* x, int64_t rows, int64_t iW, int64_t oW,
                        const FixedRows& r, const FixedGroups& g) {
  parallel_rows(rows, oW * r.width, [&](int64_t r0, int64_t r1) {
    int64_t k = r0;
    for (; k + 2 <= r1; k += 2) horizontal_rows_avx2<2>(y, x, k, iW, oW, r, g);
    for (; k < r1; ++k) horizontal_rows_avx2<1>(y, x, k, iW, oW, r, g);
  });
}

// Channels-last with 3 or 4 channels: two output pixels a step (one per 128-bit lane), a pair of taps per
// vpmaddwd: the bytes of the pixels of taps j and j+1 shuffled to int16 (tap j, tap j+1) per channel. Weight
// pairs per output pair are laid out as the kernel reads them: pair q of outputs (2p, 2p+1) is four copies of
// output 2p's (w[2q], w[2q+1]) then 2p+1's. `pairs` counts the leading output pairs whose reads stay inside
// the input row.
struct FixedPixelPairs {
  int64_t taps = 0, pairs = 0;  // taps: pairs of taps per output
  std::vector<int32_t> w;
};

FixedPixelPairs to_pixel_pairs(const FixedRows& r, int64_t in, int64_t C) {
  FixedPixelPairs g;
  const int64_t out = static_cast<int64_t>(r.xmin.size());
  g.taps = (r.width + 1) / 2;
  // the last 16-byte load (four taps) or 8-byte one (two) of output o ends inside the row
  auto fits = [&](int64_t o) { return (r.xmin[o] + 2 * g.taps - 2) * C + 16 <= in * C; };
  while (2 * (g.pairs + 1) <= out && fits(2 * g.pairs) && fits(2 * g.pairs + 1)) ++g.pairs;
  g.w.assign(static_cast<size_t>(g.pairs * g.taps * 8), 0);
  for (int64_t o = 0; o < 2 * g.pairs; ++o)
    for (int64_t q = 0; q < g.taps; ++q) {
      auto tap = [&](int64_t j) {
        return j < r.xsize[o] ? static_cast<uint32_t>(static_cast<uint16_t>(r.w[o * r.width + j])) : 0u;
      };
      const int32_t pair = static_cast<int32_t>(tap(2 * q) | (tap(2 * q + 1) << 16));
      int32_t* dst = g.w.data() + ((o / 2) * g.taps + q) * 8 + (o % 2) * 4;
      for (int t = 0; t < 4; ++t) dst[t] = pair;
    }
  return g;
}

__attribute__((target("avx2"))) inline __m256i load_two16(const uint8_t* a, const uint8_t* b) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a))),
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)), 1);
}
__attribute__((target("avx2"))) inline __m256i load_two8(const uint8_t* a, const uint8_t* b) {
  int64_t lo, hi;
  std::memcpy(&lo, a, 8);
  std::memcpy(&hi, b, 8);
  return _mm256_set_epi64x(0, hi, 0, lo);
}

// R (1 or 2) rows starting at row k: the rows share each weight load. Four taps a step from one 16-byte load
// per pixel run (two shuffles), a last pair of taps from an 8-byte one.
template <int C, int R>
__attribute__((target("avx2"))) void nhwc_rows_avx2(uint8_t* y, const uint8_t* x, int64_t k, int64_t iW,
                                                    int64_t oW, const FixedRows& r,
                                                    const FixedPixelPairs& g) {
  const uint32_t b = r.precision ? (1u << (r.precision - 1)) : 0u;
  const __m256i bias = _mm256_set1_epi32(static_cast<int32_t>(b));
  const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(r.precision));
  const char z = -128;  // pshufb: a zero byte
  // int16 (tap j, tap j+1) per channel from the pixels of taps j, j+1 (lo) and j+2, j+3 (hi)
  const __m256i lo =
      _mm256_broadcastsi128_si256(C == 4 ? _mm_setr_epi8(0, z, 4, z, 1, z, 5, z, 2, z, 6, z, 3, z, 7, z)
                                         : _mm_setr_epi8(0, z, 3, z, 1, z, 4, z, 2, z, 5, z, z, z, z, z));
  const __m256i hi =
      _mm256_broadcastsi128_si256(C == 4 ? _mm_setr_epi8(8, z, 12, z, 9, z, 13, z, 10, z, 14, z, 11, z, 15, z)
                                         : _mm_setr_epi8(6, z, 9, z, 7, z, 10, z, 8, z, 11, z, z, z, z, z));
  const uint8_t* xr[R];
  uint8_t* yr[R];
  for (int i = 0; i < R; ++i) {
    xr[i] = x + (k + i) * iW * C;
    yr[i] = y + (k + i) * oW * C;
  }
  for (int64_t p = 0; p < g.pairs; ++p) {
    const int64_t oa = r.xmin[2 * p] * C, ob = r.xmin[2 * p + 1] * C;
    const int32_t* w = g.w.data() + p * g.taps * 8;
    __m256i acc[R];
    for (int i = 0; i < R; ++i) acc[i] = bias;
    int64_t q = 0;
    for (; q + 2 <= g.taps; q += 2) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + q * 8));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + q * 8 + 8));
      for (int i = 0; i < R; ++i) {
        const __m256i v = load_two16(xr[i] + oa + 2 * q * C, xr[i] + ob + 2 * q * C);
        acc[i] =
            _mm256_add_epi32(acc[i], _mm256_add_epi32(_mm256_madd_epi16(_mm256_shuffle_epi8(v, lo), w0),
                                                      _mm256_madd_epi16(_mm256_shuffle_epi8(v, hi), w1)));
      }
    }
    if (q < g.taps) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + q * 8));
      for (int i = 0; i < R; ++i) {
        const __m256i v = load_two8(xr[i] + oa + 2 * q * C, xr[i] + ob + 2 * q * C);
        acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(_mm256_shuffle_epi8(v, lo), w0));
      }
    }
    // 4-byte stores; with C = 3 the fourth byte lands on the next output pixel, written after this one (the
    // row's last pixel stores its 3 bytes only)
    const bool last = 2 * p + 2 == oW;
    for (int i = 0; i < R; ++i) {
      const __m256i s = _mm256_sra_epi32(acc[i], shift);
      const __m256i px = _mm256_packus_epi16(_mm256_packs_epi32(s, s), s);
      const int32_t p0 = _mm256_extract_epi32(px, 0), p1 = _mm256_extract_epi32(px, 4);
      std::memcpy(yr[i] + 2 * p * C, &p0, 4);
      if (C == 4 || !last)
        std::memcpy(yr[i] + (2 * p + 1) * C, &p1, 4);
      else
        std::memcpy(yr[i] + (2 * p + 1) * C, &p1, 3);
    }
  }
  for (int i = 0; i < R; ++i)
    for (int64_t o = 2 * g.pairs; o < oW; ++o) {
      const int16_t* w = r.w.data() + o * r.width;
      const uint8_t* xs = xr[i] + r.xmin[o] * C;
      for (int64_t c = 0; c < C; ++c) {
        uint32_t acc = b;
        for (int64_t j = 0; j < r.xsize[o]; ++j)
          acc += static_cast<uint32_t>(static_cast<int32_t>(xs[j * C + c]) * static_cast<int32_t>(w[j]));
        yr[i][o * C + c] = fixed_result(acc, r.precision);
      }
    }
}

template <int C>
void nhwc_rows_avx2(uint8_t* y, const uint8_t* x, int64_t r0, int64_t r1, int64_t iW, int64_t oW,
                    const FixedRows& r, const FixedPixelPairs& g) {
  int64_t k = r0;
  for (; k + 4 <= r1; k += 4) nhwc_rows_avx2<C, 4>(y, x, k, iW, oW, r, g);
  for (; k < r1; ++k) nhwc_rows_avx2<C, 1>(y, x, k, iW, oW, r, g);
}

void horizontal_nhwc_avx2(uint8_t* y, const uint8_t* x, int64_t rows, int64_t iW, int64_t oW, int64_t C,
                          const FixedRows& r, const FixedPixelPairs& g) {
  parallel_rows(rows, oW * C * r.width, [&](int64_t r0, int64_t r1) {
    if (C == 4) return nhwc_rows_avx2<4>(y, x, r0, r1, iW, oW, r, g);
    nhwc_rows_avx2<3>(y, x, r0, r1, iW, oW, r, g);
  });
}

// 32 columns of one output row: taps in pairs, bytes of the two rows interleaved then widened, one vpmaddwd
// per eight columns and pair; the unpacks' lane order is undone by the packs' own.
__attribute__((target("avx2"))) inline void vertical_block_avx2(uint8_t* y, const uint8_t* xs, int64_t W,
                                                                const int16_t* w, int64_t n, __m256i bias,
                                                                __m128i shift) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i s0 = bias, s1 = bias, s2 = bias, s3 = bias;
  for (int64_t j = 0; j < n; j += 2) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xs + j * W));
    const bool two = j + 1 < n;
    const __m256i b = two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xs + (j + 1) * W)) : zero;
    const uint32_t w1 = two ? static_cast<uint16_t>(w[j + 1]) : 0u;
    const __m256i wp = _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(w[j]) | (w1 << 16)));
    const __m256i lo = _mm256_unpacklo_epi8(a, b), hi = _mm256_unpackhi_epi8(a, b);
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, zero), wp));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, zero), wp));
    s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, zero), wp));
    s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, zero), wp));
  }
  const __m256i p01 = _mm256_packs_epi32(_mm256_sra_epi32(s0, shift), _mm256_sra_epi32(s1, shift));
  const __m256i p23 = _mm256_packs_epi32(_mm256_sra_epi32(s2, shift), _mm256_sra_epi32(s3, shift));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), _mm256_packus_epi16(p01, p23));
}

__attribute__((target("avx2"))) void vertical_rows_avx2(uint8_t* y, const uint8_t* x, int64_t r0, int64_t r1,
                                                        int64_t iH, int64_t oH, int64_t W,
                                                        const FixedRows& r) {
  const uint32_t b = r.precision ? (1u << (r.precision - 1)) : 0u;
  const __m256i bias = _mm256_set1_epi32(static_cast<int32_t>(b));
  const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(r.precision));
  for (int64_t k = r0; k < r1; ++k) {
    const int64_t o = k % oH, pl = k / oH;
    const int16_t* w = r.w.data() + o * r.width;
    const uint8_t* xs = x + (pl * iH + r.xmin[o]) * W;
    uint8_t* yr = y + k * W;
    int64_t c = 0;
    for (; c + 32 <= W; c += 32) vertical_block_avx2(yr + c, xs + c, W, w, r.xsize[o], bias, shift);
    if (c < W && W >= 32) {
      // the last 32 columns again: the overlap is rewritten with the same bytes
      vertical_block_avx2(yr + W - 32, xs + W - 32, W, w, r.xsize[o], bias, shift);
      continue;
    }
    for (; c < W; ++c) {
      uint32_t acc = b;
      for (int64_t j = 0; j < r.xsize[o]; ++j)
        acc += static_cast<uint32_t>(static_cast<int32_t>(xs[j * W + c]) * static_cast<int32_t>(w[j]));
      yr[c] = fixed_result(acc, r.precision);
    }
  }
}

void vertical_u8_avx2(uint8_t* y, const uint8_t* x, int64_t planes, int64_t iH, int64_t oH, int64_t W,
                      const FixedRows& r) {
  parallel_rows(planes * oH, W * r.width,
                [&](int64_t r0, int64_t r1) { vertical_rows_avx2(y, x, r0, r1, iH, oH, W, r); });
}
#endif

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

// Channels-last: the same passes over N images of H rows of W pixels of C bytes; the vertical pass is the
// NCHW one with W * C columns.
void upsample_aa_byte_nhwc(const Tensor& out, const Tensor& input, const UpsampleAaArgs& a,
                           const FixedRows& rh, const FixedRows& rw) {
  const int64_t N = input.sizes()[0], C = input.sizes()[1];
  const int64_t iH = a.in[0], iW = a.in[1], oH = a.out[0], oW = a.out[1];
  const uint8_t* x = input.data<uint8_t>();
  uint8_t* y = out.data<uint8_t>();
  const bool do_w = iW != oW, do_h = iH != oH;
  if (!do_w && !do_h) {
    std::memcpy(y, x, static_cast<size_t>(N * iH * iW * C));
    return;
  }
  std::vector<uint8_t> tmp;
  if (do_w) {
    uint8_t* dst = y;
    if (do_h) {
      tmp.resize(static_cast<size_t>(N * iH * oW * C));
      dst = tmp.data();
    }
#ifdef MT_LOOPS_AVX2
    if (loops_use_avx2() && (C == 3 || C == 4))
      horizontal_nhwc_avx2(dst, x, N * iH, iW, oW, C, rw, to_pixel_pairs(rw, iW, C));
    else
#endif
      horizontal_u8_nhwc(dst, x, N * iH, iW, oW, C, rw);
    x = dst;
  }
  if (!do_h) return;
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return vertical_u8_avx2(y, x, N, iH, oH, oW * C, rh);
#endif
  vertical_u8(y, x, N, iH, oH, oW * C, rh);
}

void upsample_aa_byte(const Tensor& out, const Tensor& input, const UpsampleAaArgs& a) {
  auto rows = [&](int d) {
    if (a.in[d] == a.out[d]) return FixedRows();
    if (!a.antialias && a.filter == UpsampleAaFilter::cubic)
      return to_fixed(bicubic_rows(a.align_corners, a.in[d], a.out[d], a.scale[d]));
    return to_fixed(rows_for<double>(a, d));
  };
  FixedRows rh = rows(0), rw = rows(1);
  if (a.channels_last) return upsample_aa_byte_nhwc(out, input, a, rh, rw);
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) {
    const FixedGroups g = to_groups(rw, a.in[1]);
    auto hpass = [&](uint8_t* y, const uint8_t* x, int64_t n, int64_t iW, int64_t oW, const FixedRows& r) {
      horizontal_u8_avx2(y, x, n, iW, oW, r, g);
    };
    return separable<uint8_t>(out, input, a, rh, rw, hpass, vertical_u8_avx2);
  }
#endif
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
