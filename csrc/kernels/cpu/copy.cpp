// CPU copy-with-cast kernel: every dtype pair (complex included), any strides (fill is in fill.cpp, as on
// CUDA).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/CopyBytes.h"
#include "kernels/cpu/Loops.h"
#ifdef MT_LOOPS_AVX2
#include <immintrin.h>
#endif
#include "ops/kernels.h"

namespace mt {
namespace {

template <typename T>
constexpr bool is_reduced_float_v = std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;

// Half and bfloat16 convert through float; everything else is a plain C++ conversion.
template <typename dst_t, typename src_t>
inline dst_t convert_real(src_t v) {
  using mid_t = std::conditional_t<is_reduced_float_v<src_t>, float, src_t>;
  if constexpr (std::is_same<dst_t, bool>::value)
    return static_cast<mid_t>(v) != mid_t(0);
  else if constexpr (is_reduced_float_v<dst_t>)
    return dst_t(static_cast<float>(static_cast<mid_t>(v)));
  else
    return static_cast<dst_t>(static_cast<mid_t>(v));
}

template <typename dst_t, typename src_t>
inline dst_t convert(src_t v) {
  if constexpr (is_complex_v<src_t>) {  // complex -> real keeps the real part (copy_ warned)
    if constexpr (is_complex_v<dst_t>)
      return dst_t(v);
    else if constexpr (std::is_same<dst_t, bool>::value)
      return v != src_t(0);
    else
      return convert<dst_t, typename src_t::value_type>(v.real());
  } else if constexpr (is_complex_v<dst_t>) {
    return dst_t(convert<typename dst_t::value_type, src_t>(v), 0);
  } else {
    return convert_real<dst_t, src_t>(v);
  }
}

// n elements into a dense run from a run read backwards (flip's source walks a flipped dim with a negative
// stride): src points at the first element read, the next ones lie below it. Typed, so the compiler reverses
// whole vectors instead of moving one element per memcpy.
template <typename U>
__attribute__((always_inline)) inline void reverse_run(U* d, const U* s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = s[n - 1 - i];
}
#ifdef MT_LOOPS_AVX2
// The baseline copy reverses 16 bytes a step; at 8-byte elements that ran float64 flips at 0.6-0.7 of
// PyTorch's time (a plain copy of the same bytes was at par), 32-byte steps catch up.
template <typename U>
__attribute__((target("avx2"))) void reverse_run_avx2(U* d, const U* s, int64_t n) {
  reverse_run(d, s, n);
}
#endif

template <size_t kItem>
void copy_reversed(char* dst, const char* src, int64_t n) {
  if constexpr (kItem == 1 || kItem == 2 || kItem == 4 || kItem == 8) {
    using U = std::conditional_t<
        kItem == 1, uint8_t,
        std::conditional_t<kItem == 2, uint16_t, std::conditional_t<kItem == 4, uint32_t, uint64_t>>>;
    U* d = reinterpret_cast<U*>(dst);
    const U* s = reinterpret_cast<const U*>(src) - (n - 1);  // the lowest address of the run
#ifdef MT_LOOPS_AVX2
    if (n >= 64 && loops_use_avx2()) return reverse_run_avx2(d, s, n);
#endif
    reverse_run(d, s, n);
  } else {
    // 16-byte elements (complex128) as pairs of words: one move each, where a memcpy call per element was
    using P = Bytes16;
    P* d = reinterpret_cast<P*>(dst);
    const P* s = reinterpret_cast<const P*>(src) - (n - 1);
    reverse_run(d, s, n);
  }
}

// A same-dtype copy between different layouts (x.transpose(1, 2).contiguous() and the like), walked row by
// row: the pointers advance by strides (an odometer) instead of being recomputed from a flat index for every
// row, and each row is one memcpy when both sides are dense along it. For short rows (a head dim of 16) the
// per-row cost is what matters.
template <size_t kItem>
void copy_rows(const TensorIter& it, int64_t r0, int64_t r1) {
  const int64_t nd = it.ndim(), n = it.shape[0];
  const int64_t s0 = it.strides[0][0], s1 = it.strides[1][0];
  const bool dense = s0 == int64_t(kItem) && s1 == int64_t(kItem);
  const bool reversed = s0 == int64_t(kItem) && s1 == -int64_t(kItem);
  DimVector idx(static_cast<size_t>(nd), 0);
  char* dst = it.data[0];
  const char* src = it.data[1];
  int64_t rem = r0;
  for (int64_t d = 1; d < nd; ++d) {
    idx[d] = rem % it.shape[d];
    rem /= it.shape[d];
    dst += idx[d] * it.strides[0][d];
    src += idx[d] * it.strides[1][d];
  }
  for (int64_t r = r0; r < r1; ++r) {
    if (dense) {
      copy_bytes(dst, src, static_cast<size_t>(n) * kItem);
    } else if (reversed) {
      copy_reversed<kItem>(dst, src, n);
    } else {
      // unrolled: a one-item loop runs at twice its time when a build happens to place it across a 32-byte
      // fetch boundary (the strided loop in copy_cpu below did: code layout alone)
#pragma GCC unroll 4
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * s0, src + i * s1, kItem);
    }
    for (int64_t d = 1; d < nd; ++d) {
      dst += it.strides[0][d];
      src += it.strides[1][d];
      if (++idx[d] < it.shape[d]) break;
      dst -= it.shape[d] * it.strides[0][d];
      src -= it.shape[d] * it.strides[1][d];
      idx[d] = 0;
    }
  }
}

// A transpose-like copy: the destination dense along the iterator's dim 0 and the source dense along dim 1
// (x.t().contiguous(), a transposed gradient). Walking either side row by row reads or writes the other with
// a stride of a whole row, usually a multiple of 4 KiB, which maps every access of a row to the same cache
// set. Square tiles touch kTile lines of each side at a time, which stay in L1/L2 while both are walked; the
// inner loop writes the destination contiguously (reading down the source's column is 4x faster than the
// other way round; 16 beats tiles of 8 and 32).
#ifdef MT_LOOPS_AVX2
// One kTile x kTile tile of 4-byte items (rows i0.. of the destination's runs, columns j0..): 8x8 blocks
// moved through registers (eight row loads, the usual unpack/shuffle/lane-swap network, eight row stores:
// bits moved, never computed on), the ragged edges item by item. The item-by-item loop alone ran a 256x256
// float32 transpose at PyTorch's speed (37 us); the blocks take it to about a third.
__attribute__((target("avx2"))) void transpose_tile_4byte_avx2(char* dst, const char* src, int64_t ds1,
                                                               int64_t ss0, int64_t i0, int64_t i1,
                                                               int64_t j0, int64_t j1) {
  int64_t jb = j0;
  for (; jb + 8 <= j1; jb += 8) {
    int64_t ib = i0;
    for (; ib + 8 <= i1; ib += 8) {
      const char* s = src + ib * ss0 + jb * 4;
      const __m256 r0 = _mm256_loadu_ps(reinterpret_cast<const float*>(s));
      const __m256 r1 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + ss0));
      const __m256 r2 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 2 * ss0));
      const __m256 r3 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 3 * ss0));
      const __m256 r4 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 4 * ss0));
      const __m256 r5 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 5 * ss0));
      const __m256 r6 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 6 * ss0));
      const __m256 r7 = _mm256_loadu_ps(reinterpret_cast<const float*>(s + 7 * ss0));
      const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
      const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
      const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
      const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
      const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
      const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
      const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
      const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
      char* d = dst + jb * ds1 + ib * 4;
      _mm256_storeu_ps(reinterpret_cast<float*>(d), _mm256_permute2f128_ps(u0, u4, 0x20));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + ds1), _mm256_permute2f128_ps(u1, u5, 0x20));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + 2 * ds1), _mm256_permute2f128_ps(u2, u6, 0x20));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + 3 * ds1), _mm256_permute2f128_ps(u3, u7, 0x20));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + 4 * ds1), _mm256_permute2f128_ps(u0, u4, 0x31));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + 5 * ds1), _mm256_permute2f128_ps(u1, u5, 0x31));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + 6 * ds1), _mm256_permute2f128_ps(u2, u6, 0x31));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + 7 * ds1), _mm256_permute2f128_ps(u3, u7, 0x31));
    }
    for (int64_t j = jb; j < jb + 8; ++j)  // the rows past the last whole block
      for (int64_t i = ib; i < i1; ++i) std::memcpy(dst + j * ds1 + i * 4, src + i * ss0 + j * 4, 4);
  }
  for (int64_t j = jb; j < j1; ++j)  // the columns past the last whole block
    for (int64_t i = i0; i < i1; ++i) std::memcpy(dst + j * ds1 + i * 4, src + i * ss0 + j * 4, 4);
}
#endif

#ifdef MT_LOOPS_AVX2
// float and double -> float16/bfloat16 and float16 -> float and double in vectors. The scalar Half/BFloat16
// constructors (core/Half.h) keep the loop scalar: x.half() of 65,536 floats took 32 us against PyTorch's 5.
// The same bits: F16C's vcvtps2ph rounds to nearest even, overflows to inf and rounds into subnormals as
// Half::from_float does; a NaN keeps its payload's top bits there, so NaN lanes are cleared to Half's quiet
// NaN (sign | 0x7e00). double goes through float first (vcvtpd2ps, round to nearest even), as convert_real's
// static_cast<float>.
bool cpu_has_f16c() {
  static const bool f = __builtin_cpu_supports("f16c");
  return f;
}
// NaN lanes are rare: one test per eight lanes, the fix only where one is
__attribute__((target("avx2,f16c"))) inline __m128i half8(__m256 x) {
  const __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  if (__builtin_expect(_mm256_movemask_ps(nan) == 0, 1)) return h;
  const __m256i n32 = _mm256_castps_si256(nan);
  const __m128i n16 = _mm_packs_epi32(_mm256_castsi256_si128(n32), _mm256_extracti128_si256(n32, 1));
  return _mm_andnot_si128(_mm_and_si128(n16, _mm_set1_epi16(0x01ff)), h);
}
// Half::to_float in eight lanes: vcvtph2ps quiets a signaling NaN, to_float keeps its bits
__attribute__((target("avx2,f16c"))) inline __m256 float8_from_half(const Half* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m256 f = _mm256_cvtph_ps(h);
  const __m256 nan = _mm256_cmp_ps(f, f, _CMP_UNORD_Q);
  if (__builtin_expect(_mm256_movemask_ps(nan) == 0, 1)) return f;
  const __m256i w = _mm256_cvtepu16_epi32(h);
  const __m256i bits =
      _mm256_or_si256(_mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x8000)), 16),
                                      _mm256_set1_epi32(0x7f800000)),
                      _mm256_slli_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x3ff)), 13));
  return _mm256_blendv_ps(f, _mm256_castsi256_ps(bits), nan);
}
template <typename D, typename S>
__attribute__((target("avx2,f16c"))) void from_half_dense(D* o, const S* a, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = float8_from_half(a + i);
    if constexpr (std::is_same<D, float>::value) {
      _mm256_storeu_ps(o + i, f);
    } else {
      _mm256_storeu_pd(o + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
      _mm256_storeu_pd(o + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
  }
  for (; i < n; ++i) o[i] = static_cast<D>(static_cast<float>(a[i]));
}
// BFloat16::from_float in eight lanes (as 32-bit words: the rounded top half, or the quiet NaN)
__attribute__((target("avx2"))) inline __m256i bf16_words8(__m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i r =
      _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff))), 16);
  const __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(r, q, _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)));
}
template <typename S>
__attribute__((target("avx2"))) inline __m256 load8_as_float(const S* p) {
  if constexpr (std::is_same<S, float>::value)
    return _mm256_loadu_ps(p);
  else
    return _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(p + 4)), _mm256_cvtpd_ps(_mm256_loadu_pd(p)));
}
template <typename D, typename S>
__attribute__((target("avx2,f16c"))) void reduced_from_dense(D* o, const S* a, int64_t n) {
  int64_t i = 0;
  if constexpr (std::is_same<D, Half>::value) {
    for (; i + 8 <= n; i += 8)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), half8(load8_as_float(a + i)));
  } else {
    for (; i + 16 <= n; i += 16) {
      const __m256i w =
          _mm256_packus_epi32(bf16_words8(load8_as_float(a + i)), bf16_words8(load8_as_float(a + i + 8)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), _mm256_permute4x64_epi64(w, 0xD8));
    }
  }
  for (; i < n; ++i) o[i] = D(static_cast<float>(a[i]));
}
#endif

template <size_t kItem>
bool copy_transposed(const TensorIter& it) {
  constexpr int64_t kTile = 16;
  const int64_t n0 = it.shape[0], n1 = it.shape[1];
  const int64_t ds1 = it.strides[0][1], ss0 = it.strides[1][0];
  if (it.strides[0][0] != int64_t(kItem) || it.strides[1][1] != int64_t(kItem) || n0 < kTile || n1 < kTile)
    return false;
  const int64_t outer = it.numel / (n0 * n1), tiles0 = (n0 + kTile - 1) / kTile;
  const int64_t nd = it.ndim();
#ifdef MT_LOOPS_AVX2
  const bool avx2 = loops_use_avx2();
#endif
  auto run = [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / tiles0, i0 = (t % tiles0) * kTile;
      char* dst = it.data[0];
      const char* src = it.data[1];
      for (int64_t d = 2; d < nd; ++d) {  // the tile's batch position (dims above the two tiled ones)
        const int64_t k = o % it.shape[d];
        o /= it.shape[d];
        dst += k * it.strides[0][d];
        src += k * it.strides[1][d];
      }
      const int64_t i1 = std::min(i0 + kTile, n0);
#ifdef MT_LOOPS_AVX2
      if constexpr (kItem == 4) {
        if (avx2) {
          for (int64_t j0 = 0; j0 < n1; j0 += kTile)
            transpose_tile_4byte_avx2(dst, src, ds1, ss0, i0, i1, j0, std::min(j0 + kTile, n1));
          continue;
        }
      }
#endif
      for (int64_t j0 = 0; j0 < n1; j0 += kTile) {
        const int64_t j1 = std::min(j0 + kTile, n1);
        for (int64_t j = j0; j < j1; ++j) {
          char* d_row = dst + j * ds1;
          const char* s_col = src + j * int64_t(kItem);
          for (int64_t i = i0; i < i1; ++i) std::memcpy(d_row + i * int64_t(kItem), s_col + i * ss0, kItem);
        }
      }
    }
  };
  const int64_t tasks = outer * tiles0;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (kTile * n1));
  if (tasks <= grain)
    run(0, tasks);
  else
    parallel_for(0, tasks, grain, run);
  return true;
}

// Each source item repeated along a dense row of n (x.unsqueeze(-1).expand(..., n).contiguous(): an int
// repeat_interleave, an upsampled last dim): the iterator's two dims, the inner one broadcast (source stride
// 0) into a dense destination. copy_rows moved the 2-4 items of such a row through its general row loop, 1.3
// ns an item (1.45x PyTorch's time for x.repeat_interleave(2)); a loop over rows with the row length fixed
// for the short ones moves a row per load.
template <typename U, int64_t kN>
__attribute__((always_inline)) inline void broadcast_rows(char* dst, const char* src, int64_t dst_row,
                                                          int64_t src_row, int64_t n, int64_t r0,
                                                          int64_t r1) {
  const int64_t len = kN > 0 ? kN : n;
  for (int64_t r = r0; r < r1; ++r) {
    const U v = *reinterpret_cast<const U*>(src + r * src_row);
    U* o = reinterpret_cast<U*>(dst + r * dst_row);
    for (int64_t k = 0; k < len; ++k) o[k] = v;
  }
}

template <size_t kItem>
bool copy_broadcast_inner(const TensorIter& it) {
  if constexpr (kItem == 1 || kItem == 2 || kItem == 4 || kItem == 8) {
    if (it.ndim() != 2 || it.strides[1][0] != 0 || it.strides[0][0] != int64_t(kItem)) return false;
    using U = std::conditional_t<
        kItem == 1, uint8_t,
        std::conditional_t<kItem == 2, uint16_t, std::conditional_t<kItem == 4, uint32_t, uint64_t>>>;
    const int64_t n = it.shape[0], rows = it.shape[1];
    const int64_t dst_row = it.strides[0][1], src_row = it.strides[1][1];
    char* dst = it.data[0];
    const char* src = it.data[1];
    auto run = [&](int64_t b, int64_t e) {
      switch (n) {
        case 2:
          return broadcast_rows<U, 2>(dst, src, dst_row, src_row, n, b, e);
        case 3:
          return broadcast_rows<U, 3>(dst, src, dst_row, src_row, n, b, e);
        case 4:
          return broadcast_rows<U, 4>(dst, src, dst_row, src_row, n, b, e);
        case 8:
          return broadcast_rows<U, 8>(dst, src, dst_row, src_row, n, b, e);
        case 16:
          return broadcast_rows<U, 16>(dst, src, dst_row, src_row, n, b, e);
        default:
          return broadcast_rows<U, 0>(dst, src, dst_row, src_row, n, b, e);
      }
    };
    const int64_t grain = std::max<int64_t>(1, kGrainSize / n);
    if (rows <= grain)
      run(0, rows);
    else
      parallel_for(0, rows, grain, run);
    return true;
  } else {
    (void)it;
    return false;
  }
}

template <size_t kItem>
void copy_strided(const TensorIter& it) {
  if (it.numel == 0) return;
  if (copy_transposed<kItem>(it)) return;
  if (copy_broadcast_inner<kItem>(it)) return;
  const int64_t rows = it.numel / it.shape[0];
  const int64_t grain = std::max<int64_t>(1, kGrainSize / it.shape[0]);
  if (rows <= grain)
    copy_rows<kItem>(it, 0, rows);
  else
    parallel_for(0, rows, grain, [&](int64_t b, int64_t e) { copy_rows<kItem>(it, b, e); });
}

void copy_cpu(const TensorIter& it) {
  if (it.dtypes[0] == it.dtypes[1]) {
    size_t item = element_size(it.dtypes[0]);
    if (it.is_contiguous()) {
      // one memcpy per chunk; parallel for large copies
      it.for_each([&](char** d, const int64_t*, int64_t n) { copy_bytes(d[0], d[1], n * item); }, 1 << 20);
      return;
    }
    if (it.ndim() >= 2) {
      return dispatch_width(item, [&](auto w) { copy_strided<sizeof(w)>(it); });
    }
    if (it.strides[0][0] == static_cast<int64_t>(item) && it.strides[1][0] == -static_cast<int64_t>(item)) {
      // a flipped vector (or every dim of a dense tensor flipped, merged into one run)
      return dispatch_width(item, [&](auto w) {
        constexpr size_t kw = sizeof(w);
        it.for_each([](char** d, const int64_t*, int64_t n) { copy_reversed<kw>(d[0], d[1], n); },
                    kGrainSize);
      });
    }
    it.for_each(
        [&](char** d, const int64_t* st, int64_t n) {
          // a broadcast value (the expanded gradient of a sum) into a dense run: a vectorized fill
          if (st[1] == 0 && st[0] == static_cast<int64_t>(item) && (item == 4 || item == 8)) {
            if (item == 4) {
              uint32_t v;
              std::memcpy(&v, d[1], 4);
              std::fill_n(reinterpret_cast<uint32_t*>(d[0]), n, v);
            } else {
              uint64_t v;
              std::memcpy(&v, d[1], 8);
              std::fill_n(reinterpret_cast<uint64_t*>(d[0]), n, v);
            }
            return;
          }
          dispatch_width(item, [&](auto w) {
            using T = decltype(w);
        // unrolled as copy_rows' item loop (a stack along the last dim runs here: 58 -> 112 us on the
        // loop's placement alone)
#pragma GCC unroll 4
            for (int64_t i = 0; i < n; ++i)
              *reinterpret_cast<T*>(d[0] + i * st[0]) = *reinterpret_cast<const T*>(d[1] + i * st[1]);
          });
        },
        kGrainSize);
    return;
  }
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(it.dtypes[0], "copy_", [&] {
    using dst_t = scalar_t;
    MT_DISPATCH_ALL_TYPES_AND_COMPLEX(it.dtypes[1], "copy_", [&] {
      using src_t = scalar_t;
      it.for_each([&](char** d, const int64_t* st, int64_t n) {
        if (st[0] == sizeof(dst_t) && st[1] == sizeof(src_t)) {
          // dense on both sides (x.float(), mask.to(x.dtype)): typed pointers the compiler vectorizes
          dst_t* o = reinterpret_cast<dst_t*>(d[0]);
          const vload_t<src_t>* a = reinterpret_cast<const vload_t<src_t>*>(d[1]);
#ifdef MT_LOOPS_AVX2
          if constexpr (is_reduced_float_v<dst_t> &&
                        (std::is_same<src_t, float>::value || std::is_same<src_t, double>::value)) {
            if (loops_use_avx2() && cpu_has_f16c()) return reduced_from_dense(o, a, n);
          }
          if constexpr (std::is_same<src_t, Half>::value &&
                        (std::is_same<dst_t, float>::value || std::is_same<dst_t, double>::value)) {
            if (loops_use_avx2() && cpu_has_f16c()) return from_half_dense(o, a, n);
          }
#endif
          return dense_for(n, [=](int64_t i) { o[i] = convert<dst_t, src_t>(static_cast<src_t>(a[i])); });
        }
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<dst_t*>(d[0] + i * st[0]) =
              convert<dst_t, src_t>(*reinterpret_cast<const src_t*>(d[1] + i * st[1]));
      });
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(copy_stub, CPU, &copy_cpu);

}  // namespace mt
