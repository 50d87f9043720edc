// What the CPU reduction families (reduce.cpp, scan.cpp, softmax.cpp) share: accumulator types, the
// row/strip walkers over an outer x row x inner layout, and the NaN-propagating vector max. The CUDA
// counterpart is kernels/cuda/ReduceUtils.cuh; the rules both devices follow are in kernels/ReduceRules.h.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "kernels/ReduceRules.h"
#include "kernels/cpu/Loops.h"
#ifdef MT_LOOPS_AVX2
#include <immintrin.h>
#endif

namespace mt {
namespace cpu_reduce {

// Floats accumulate in float lanes inside small blocks and in double across blocks: the lanes let the
// compiler vectorize without reassociating, and 128 float additions per lane keep the error at NumPy's
// pairwise level. double stays double; integers (already widened to int64 by the front end for sums) use
// int64.
// Complex values (prod, cumsum, cumprod) accumulate in complex<double>.
template <typename T>
struct Acc {
  using type = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, double, int64_t>;
};
template <typename T>
struct Acc<std::complex<T>> {
  using type = std::complex<double>;
};
template <typename T>
using acc_t = typename Acc<T>::type;

using reduce_rules::is_nan;

constexpr int kLanes = 16;
constexpr int64_t kBlock = 2048;

// The identity map: sums take their vectorized loops with it, extremum() its explicit-SIMD path.
struct Identity {
  template <typename T>
  opmath_t<T> operator()(T x) const {
    return static_cast<opmath_t<T>>(x);
  }
};

// nansum's map, NaN read as 0.
struct NanToZero {
  template <typename T>
  opmath_t<T> operator()(T x) const {
    const opmath_t<T> v = static_cast<opmath_t<T>>(x);
    return v == v ? v : opmath_t<T>(0);
  }
};

// The 2-norm's square and the 1-norm's absolute value, named so that blocked_sum_in can sum them in vectors.
struct Square {
  template <typename T>
  opmath_t<T> operator()(T x) const {
    const opmath_t<T> v = static_cast<opmath_t<T>>(x);
    return v * v;
  }
};
struct AbsValue {
  template <typename T>
  opmath_t<T> operator()(T x) const {
    return std::abs(static_cast<opmath_t<T>>(x));
  }
};

// Identity, Square, AbsValue or NanToZero of a vector of float or double: nothing, the product (one rounding,
// no contraction into a fused multiply-add: the baseline and AVX2 have none), the sign bit cleared as
// std::abs (NaN's too), or NaN lanes masked to 0 (in place: a vector argument or result of 32 bytes would
// change the ABI of a function outside AVX code)
template <typename F, typename T, typename V>
__attribute__((always_inline)) inline void map_vec(V& a) {
  if constexpr (std::is_same_v<F, Identity>) {
    return;
  } else if constexpr (std::is_same_v<F, Square>) {
    a = a * a;
  } else if constexpr (std::is_same_v<F, NanToZero>) {
    a = a == a ? a : V{};
  } else {
    using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
    typedef I ivec __attribute__((vector_size(sizeof(V))));
    ivec bits;
    std::memcpy(&bits, &a, sizeof(V));
    bits &= ~(I(1) << (8 * sizeof(T) - 1));
    std::memcpy(&a, &bits, sizeof(V));
  }
}

// block_sum of float or double under the identity (or F, one of the maps above, applied by map_vec to each
// vector and by F to the tail) in 16-byte vectors written out, the same lanes, fold and tail, so the same
// bits. GCC's code for the generic loop zeroed the 16 lanes in memory (rep stos) and folded them there, which
// over short rows (sum(1) of [3872, 16] float32) cost 13 ns a row, a third of PyTorch's speed. The first
// chunk starts the lanes as 0 + x, as the generic loop's adds do (-0 becomes +0). kBytes: 16 (the baseline)
// or 32 (an AVX2 caller's): lane j holds the same values either way, so the bits are.
template <typename T, int kBytes = 16, typename F = Identity>
__attribute__((always_inline)) inline double block_sum_vec(const T* q, int64_t m) {
  constexpr int W = kBytes / static_cast<int>(sizeof(T)), V = kLanes / W;
  typedef T vec __attribute__((vector_size(kBytes)));
  const F f{};
  T tail = 0;
  if (m < kLanes) {
    for (int64_t i = 0; i < m; ++i) tail += f(q[i]);
    return 0.0 + static_cast<double>(tail);  // the lanes fold to +0
  }
  vec acc[V];
  for (int k = 0; k < V; ++k) {
    vec a;
    std::memcpy(&a, q + k * W, kBytes);
    map_vec<F, T>(a);
    acc[k] = vec{} + a;
  }
  int64_t i = kLanes;
  for (; i + kLanes <= m; i += kLanes)
    for (int k = 0; k < V; ++k) {
      vec a;
      std::memcpy(&a, q + i + k * W, kBytes);
      map_vec<F, T>(a);
      acc[k] += a;
    }
  for (; i < m; ++i) tail += f(q[i]);
  // lane j takes lane j + w for w = kLanes / 2 ... 1: whole vectors while w spans them, then inside acc[0]
  for (int w = V / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
  T s[W];
  std::memcpy(s, &acc[0], sizeof(s));
  for (int w = W / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) s[j] += s[j + w];
  return static_cast<double>(s[0]) + static_cast<double>(tail);
}

// One block's sum: kLanes accumulators of op_t, folded pairwise, plus the tail, in double.
template <typename T, typename op_t, typename F>
double block_sum(const T* q, int64_t m, const F& f) {
  if constexpr ((std::is_same_v<F, Identity> || std::is_same_v<F, NanToZero> || std::is_same_v<F, Square> ||
                 std::is_same_v<F, AbsValue>) &&
                std::is_same_v<T, op_t> && (std::is_same_v<T, float> || std::is_same_v<T, double>))
    return block_sum_vec<T, 16, F>(q, m);
  op_t acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= m; i += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += f(q[i + j]);
  op_t tail = 0;
  for (; i < m; ++i) tail += f(q[i]);
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return static_cast<double>(acc[0]) + static_cast<double>(tail);
}

// sum of f(x) over p[0, n) for floating T, in blocks of kLanes accumulators of op_t added into a double.
// Two whole blocks at a time, each with its own accumulators: one block's adds form kLanes / width chains
// that each wait on the previous add (a 1M float32 sum ran at half PyTorch's speed, latency-bound); two
// interleaved blocks double the independent chains. Each block's arithmetic and the order blocks enter the
// total are unchanged, so the bits are.
template <typename T, typename op_t, typename F>
void sum_blocks_into(double& total, const T* p, int64_t n, const F& f) {
  int64_t b0 = 0;
  for (; b0 + 2 * kBlock <= n; b0 += 2 * kBlock) {
    const T* q = p + b0;
    const T* r = q + kBlock;
    op_t acc[kLanes] = {}, acc2[kLanes] = {};
    for (int64_t i = 0; i < kBlock; i += kLanes)
      for (int j = 0; j < kLanes; ++j) {
        acc[j] += f(q[i + j]);
        acc2[j] += f(r[i + j]);
      }
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int j = 0; j < w; ++j) {
        acc[j] += acc[j + w];
        acc2[j] += acc2[j + w];
      }
    // kBlock is a multiple of kLanes: no tail, which block_sum adds as + 0.0 (exact, sign of zero aside:
    // acc + 0.0 turns a -0 block into +0 there, and total starts at +0 anyway)
    total += static_cast<double>(acc[0]) + 0.0;
    total += static_cast<double>(acc2[0]) + 0.0;
  }
  for (; b0 < n; b0 += kBlock) total += block_sum<T, op_t>(p + b0, std::min(kBlock, n - b0), f);
}

// sum of Identity, Square, AbsValue or NanToZero of float or double: sum_blocks_into's blocks, lanes and
// order of adds over the mapped values (so their bits: those of the sum of the mapped values), the map
// applied in kBytes vectors written out (16: the baseline, 32: AVX2, the same lanes): GCC leaves nansum's
// mapped loop scalar (a 65k float row 8x a sum's time), and a buffer of mapped values (the path below) spent
// half of a 65k float32 2-norm storing and reloading it (3.5x a sum's time); the plain sum's 16-byte adds ran
// a float64 sum of 65,536 at 0.87-0.91 of PyTorch's speed (AVX2's: 1.17). The last blocks take block_sum's
// generic loop.
template <typename T, typename F, int kBytes, int kGroup>
__attribute__((always_inline)) inline int64_t mapped_groups(double& total, const T* p, int64_t n) {
  constexpr int W = kBytes / static_cast<int>(sizeof(T)), V = kLanes / W;
  typedef T vec __attribute__((vector_size(kBytes)));
  int64_t b0 = 0;
  for (; b0 + kGroup * kBlock <= n; b0 += kGroup * kBlock) {
    const T* q = p + b0;
    vec acc[kGroup][V] = {};
    for (int64_t i = 0; i < kBlock; i += kLanes)
#pragma GCC unroll 8
      for (int b = 0; b < kGroup; ++b)
#pragma GCC unroll 8
        for (int k = 0; k < V; ++k) {
          vec a;
          std::memcpy(&a, q + b * kBlock + i + k * W, kBytes);
          map_vec<F, T>(a);
          acc[b][k] += a;
        }
#pragma GCC unroll 8
    for (int b = 0; b < kGroup; ++b) {
      // the fold's steps that pair whole vectors, as vectors; then the last vector's lanes
#pragma GCC unroll 8
      for (int w = V / 2; w > 0; w /= 2)
#pragma GCC unroll 8
        for (int k = 0; k < w; ++k) acc[b][k] += acc[b][k + w];
      T s[W];
      std::memcpy(s, &acc[b][0], sizeof(s));
#pragma GCC unroll 8
      for (int w = W / 2; w > 0; w /= 2)
#pragma GCC unroll 8
        for (int j = 0; j < w; ++j) s[j] += s[j + w];
      total += static_cast<double>(s[0]) + 0.0;
    }
  }
  return b0;
}
// Blocks a few at a time, each with its own accumulators: one block's adds form kLanes / width chains that
// each wait on the previous add, so a group of blocks multiplies the independent chains (eight at least:
// four 2048-float blocks in AVX2's eight lanes; a 1M float32 sum ran at 0.81 of PyTorch's speed with two);
// then pairs, then block_sum's generic loop for what is left. Each block's arithmetic (its lanes and their
// fold, lane j + w into lane j, whole vectors first) and the order blocks enter the total are unchanged, so
// the bits are.
template <typename T, typename F, int kBytes>
__attribute__((always_inline)) inline void mapped_blocks_impl(double& total, const T* p, int64_t n) {
  constexpr int V = kLanes / (kBytes / static_cast<int>(sizeof(T)));
  int64_t b0 = 0;
  if constexpr (V < 4) b0 = mapped_groups<T, F, kBytes, 8 / V>(total, p, n);
  b0 += mapped_groups<T, F, kBytes, 2>(total, p + b0, n - b0);
  for (; b0 < n; b0 += kBlock) total += block_sum<T, T>(p + b0, std::min(kBlock, n - b0), F{});
}
#ifdef MT_LOOPS_AVX2
template <typename T, typename F>
__attribute__((target("avx2"))) inline void mapped_blocks_avx2(double& total, const T* p, int64_t n) {
  mapped_blocks_impl<T, F, 32>(total, p, n);
}
#endif
template <typename T, typename F>
void mapped_blocks_into(double& total, const T* p, int64_t n) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return mapped_blocks_avx2<T, F>(total, p, n);
#endif
  mapped_blocks_impl<T, F, 16>(total, p, n);
}

// A map other than the identity (a square for the 2-norm, abs for the 1-norm, the deviations of var) goes
// into an op_t buffer two blocks at a time and the identity's loops sum that: GCC vectorizes the identity's
// accumulators lane for lane but scattered a mapped value into shuffles and scalar adds (a 65k float32
// 2-norm took 8x a sum's time). The blocks, lanes and order of adds are the same, so are the bits.
template <typename T, typename op_t, typename F>
double blocked_sum_in(const T* p, int64_t n, const F& f) {
  double total = 0;
  if constexpr ((std::is_same_v<F, Identity> || std::is_same_v<F, NanToZero> || std::is_same_v<F, Square> ||
                 std::is_same_v<F, AbsValue>) &&
                std::is_same_v<T, op_t> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    mapped_blocks_into<T, F>(total, p, n);
  } else if constexpr (!std::is_same_v<F, Identity> && std::is_floating_point_v<op_t>) {
    op_t buf[2 * kBlock];
    for (int64_t b0 = 0; b0 < n; b0 += 2 * kBlock) {
      const int64_t m = std::min<int64_t>(2 * kBlock, n - b0);
      for (int64_t k = 0; k < m; ++k) buf[k] = f(p[b0 + k]);
      sum_blocks_into<op_t, op_t>(total, buf, m, Identity{});
    }
  } else {
    sum_blocks_into<T, op_t>(total, p, n, f);
  }
  return total;
}

// The usual lanes: opmath (float for half/bfloat16/float); f maps T to it.
template <typename T, typename F>
double blocked_sum(const T* p, int64_t n, const F& f) {
  return blocked_sum_in<T, opmath_t<T>>(p, n, f);
}

// Reduces one row, split over the thread pool when `split` (few long rows); part(ptr, n) reduces a chunk,
// comb(a, b) merges two chunk results. Chunks are fixed by the thread count, so results are reproducible.
template <typename T, typename Acc, typename Part, typename Comb>
Acc reduce_row(const T* p, int64_t n, bool split, const Part& part, const Comb& comb) {
  if (!split || n < 2 * kGrainSize) return part(p, n);
  int64_t nchunks = std::min<int64_t>(get_num_threads(), n / kGrainSize);
  if (nchunks <= 1) return part(p, n);
  int64_t chunk = (n + nchunks - 1) / nchunks;
  // char for bool: threads write neighbouring slots, which std::vector<bool> packs into one word
  std::vector<std::conditional_t<std::is_same_v<Acc, bool>, char, Acc>> partial(static_cast<size_t>(nchunks));
  parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t s = c * chunk;
      partial[c] = part(p + s, std::max<int64_t>(0, std::min(chunk, n - s)));
    }
  });
  Acc r = partial[0];
  for (int64_t c = 1; c < nchunks; ++c) r = comb(r, partial[c]);
  return r;
}

// Calls f(i, split) for every row: rows in parallel when there are many, a single long row split inside.
template <typename F>
void for_rows(int64_t nrows, int64_t row, const F& f) {
  // small work first: get_num_threads() is not free (it can query the OS), and small ops are overhead-bound
  if (nrows * row < kGrainSize) {
    for (int64_t i = 0; i < nrows; ++i) f(i, false);
    return;
  }
  bool split = row >= 2 * kGrainSize && nrows < get_num_threads();
  if (split || nrows == 1) {
    for (int64_t i = 0; i < nrows; ++i) f(i, split);
    return;
  }
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(row, 1));
  parallel_for(0, nrows, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i, false);
  });
}

// max/min of float or double with GCC/Clang vector extensions of kBytes (16: the x86-64 baseline; 32 in the
// AVX2 copy below), four accumulators. Written by hand because the compiler will not vectorize a
// NaN-propagating max on its own; NaN is tracked as a mask.
template <typename T, int kBytes>
__attribute__((always_inline)) inline T simd_extremum_impl(const T* p, int64_t n, bool is_max) {
  constexpr int W = kBytes / sizeof(T);
  typedef T vec __attribute__((vector_size(kBytes)));
  // named registers, not arrays: GCC kept arrays of vectors on the stack
  vec m0, m1, m2, m3;
  for (int j = 0; j < W; ++j) m0[j] = m1[j] = m2[j] = m3[j] = p[0];
  vec a, b, c, d;
  decltype(a != a) nan = {};
  int64_t i = 0;
  auto load = [&](int64_t at) {
    std::memcpy(&a, p + at, kBytes);
    std::memcpy(&b, p + at + W, kBytes);
    std::memcpy(&c, p + at + 2 * W, kBytes);
    std::memcpy(&d, p + at + 3 * W, kBytes);
    nan |= (a != a) | (b != b) | (c != c) | (d != d);
  };
  if (is_max) {
    for (; i + 4 * W <= n; i += 4 * W) {
      load(i);
      m0 = a > m0 ? a : m0;
      m1 = b > m1 ? b : m1;
      m2 = c > m2 ? c : m2;
      m3 = d > m3 ? d : m3;
    }
  } else {
    for (; i + 4 * W <= n; i += 4 * W) {
      load(i);
      m0 = a < m0 ? a : m0;
      m1 = b < m1 ? b : m1;
      m2 = c < m2 ? c : m2;
      m3 = d < m3 ? d : m3;
    }
  }
  // the accumulators joined by a tree of vector selects, then its lanes in order: the scalar fold over all
  // 4 W lanes was one chain of 4 W dependent selects, more than the main loop's time on a 512-float row (amax
  // along the rows of [512, 512] float32 at 0.7 of PyTorch's speed). Equal numbers have equal bits except +0
  // and -0, so a zero takes that fold again, whose order picks the sign as it did.
  const vec t0 = is_max ? (m1 > m0 ? m1 : m0) : (m1 < m0 ? m1 : m0);
  const vec t1 = is_max ? (m3 > m2 ? m3 : m2) : (m3 < m2 ? m3 : m2);
  const vec t = is_max ? (t1 > t0 ? t1 : t0) : (t1 < t0 ? t1 : t0);
  bool any_nan = false;
  T r = p[0];
  for (int j = 0; j < W; ++j) {
    any_nan |= nan[j] != 0;
    r = (is_max ? t[j] > r : t[j] < r) ? t[j] : r;
  }
  if (r == T(0)) {
    r = p[0];
    for (int j = 0; j < W; ++j)
      for (T v : {m0[j], m1[j], m2[j], m3[j]}) r = (is_max ? v > r : v < r) ? v : r;
  }
  for (; i < n; ++i) {
    any_nan |= p[i] != p[i];
    r = (is_max ? p[i] > r : p[i] < r) ? p[i] : r;
  }
  return any_nan ? std::numeric_limits<T>::quiet_NaN() : r;
}

#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) T simd_extremum_avx2(const T* p, int64_t n, bool is_max) {
  return simd_extremum_impl<T, 32>(p, n, is_max);
}
#endif

// (amax of 65536 floats: 16-byte vectors and two accumulators ran at half PyTorch's speed)
template <typename T>
T simd_extremum(const T* p, int64_t n, bool is_max) {
#ifdef MT_LOOPS_AVX2
  if (loops_use_avx2()) return simd_extremum_avx2(p, n, is_max);
#endif
  return simd_extremum_impl<T, 16>(p, n, is_max);
}

// The product of n values in double: 32 independent chains (a vector register's worth per multiply's
// latency; one chain waits on each multiply, 5x slower), joined pairwise (five levels: one after another, the
// 31 multiplies were a 31-deep chain, most of a 256-element row's time), the same order in the baseline and
// AVX2 copies.
template <typename T>
__attribute__((always_inline)) inline double product_impl(const T* q, int64_t n) {
  constexpr int C = 32;
  double a[C];
  for (int j = 0; j < C; ++j) a[j] = 1;
  int64_t k = 0;
  for (; k + C <= n; k += C)
    for (int j = 0; j < C; ++j) a[j] *= static_cast<double>(q[k + j]);
  for (int w = C / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) a[j] *= a[j + w];
  double r = a[0];
  for (; k < n; ++k) r *= static_cast<double>(q[k]);
  return r;
}
#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) double product_avx2(const T* q, int64_t n) {
  return product_impl(q, n);
}
// product_impl of float32 in intrinsics (GCC widened the floats of its generic loop 128 bits at a time
// through the stack: prod along the rows of [512, 512] ran at 0.5 of PyTorch's speed): chain j of the 32 is
// lane j % 4 of vector j / 4, joined in product_impl's pairs, so the bits are the same.
__attribute__((target("avx2"))) inline double product_f32_avx2(const float* q, int64_t n) {
  __m256d a[8];
  for (int v = 0; v < 8; ++v) a[v] = _mm256_set1_pd(1.0);
  int64_t k = 0;
  for (; k + 32 <= n; k += 32)
    for (int v = 0; v < 8; ++v) a[v] = _mm256_mul_pd(a[v], _mm256_cvtps_pd(_mm_loadu_ps(q + k + 4 * v)));
  for (int v = 0; v < 4; ++v) a[v] = _mm256_mul_pd(a[v], a[v + 4]);
  for (int v = 0; v < 2; ++v) a[v] = _mm256_mul_pd(a[v], a[v + 2]);
  a[0] = _mm256_mul_pd(a[0], a[1]);
  const __m128d h = _mm_mul_pd(_mm256_castpd256_pd128(a[0]), _mm256_extractf128_pd(a[0], 1));
  double r = _mm_cvtsd_f64(h) * _mm_cvtsd_f64(_mm_unpackhi_pd(h, h));
  for (; k < n; ++k) r *= static_cast<double>(q[k]);
  return r;
}
#endif
template <typename T>
double product(const T* q, int64_t n) {
#ifdef MT_LOOPS_AVX2
  if constexpr (std::is_same_v<T, float>)
    if (loops_use_avx2()) return product_f32_avx2(q, n);
  if (loops_use_avx2()) return product_avx2(q, n);
#endif
  return product_impl(q, n);
}

// max (is_max) or min of f(x) over a chunk, in opmath; NaN wins, as in PyTorch. The generic path's select
// keeps a NaN once it is in a lane (v > NaN and v != v are false for a number v).
template <typename T, typename F>
opmath_t<T> extremum(const T* p, int64_t n, bool is_max, const F& f) {
  using op_t = opmath_t<T>;
  if constexpr (std::is_same_v<F, Identity> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    return simd_extremum(p, n, is_max);
  } else {
    op_t m = f(p[0]);
    for (int64_t i = 1; i < n; ++i) {
      m = reduce_rules::accumulate_extremum(m, static_cast<op_t>(f(p[i])), is_max);
    }
    return m;
  }
}

// outer x row x inner reduced over row: each task owns a strip of kColumns adjacent outputs and streams down
// the rows, so reads stay contiguous and the lane loop vectorizes. Float sums flush the float lanes into
// double every kBlockRows rows for the same accuracy as blocked_sum.
constexpr int64_t kColumns = 512;
constexpr int64_t kBlockRows = 128;

// Calls f(outer index, first column, width) over strips of kColumns columns of an outer x row x inner
// layout, in parallel when the work is large.
template <typename F>
void for_strips(int64_t outer, int64_t row, int64_t inner, const F& f) {
  int64_t strips = (inner + kColumns - 1) / kColumns;
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t j0 = (t % strips) * kColumns;
      f(t / strips, j0, std::min(kColumns, inner - j0));
    }
  };
  if (outer * row * inner < kGrainSize)
    body(0, outer * strips);
  else
    parallel_for(0, outer * strips, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, row * kColumns)),
                 body);
}

}  // namespace cpu_reduce
}  // namespace mt
