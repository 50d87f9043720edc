// Modified Bessel functions of the first kind, I0 and I1 and their scaled forms exp(-|x|) I_n(x), four
// vectors of doubles at a time, for both tables (included by vec/unary_impl.h, after avx2_math.h and
// avx512_math.h: their exp, and by vec/bessel_avx2.cpp: its K rows share the recurrence and the row loop).
// The scalar functors (functors.h) evaluate the same Cephes Chebyshev expansions (the ones PyTorch's calc_i0
// / calc_i1e evaluate) one element at a time: exp(-x) I_n(x) on [0, 8] and exp(-x) sqrt(x) I_n(x) on (8, inf)
// in 32/x, by Clenshaw's recurrence. Measured against a 60-digit power series over [-60, 60]: 5.2e-16 (i0,
// i0e) and 1.6e-15 (i1, i1e) relative at most.
#pragma once

#include "kernels/BesselCoeffs.h"
#include "kernels/cpu/vec/polygamma_lanes.h"  // LaneOps

namespace {

// Cephes' coefficients (kernels/BesselCoeffs.h), highest order first
static const double kI0eSmall[30] = {MT_BESSEL_I0E_SMALL};
static const double kI0eLarge[25] = {MT_BESSEL_I0E_LARGE};
static const double kI1eSmall[29] = {MT_BESSEL_I1E_SMALL};
static const double kI1eLarge[25] = {MT_BESSEL_I1E_LARGE};

// Vectors per call: independent chains of Clenshaw's recurrence in flight. The K rows of vec/bessel_avx2.cpp:
// four (sixteen lanes). The I rows (bessel_i_lanes): four on AVX-512 (thirty-two lanes), six on AVX2
// (twenty-four lanes, through bessel_chbevl_ymm_mem: four left the recurrence latency-bound, 0.93 of
// PyTorch's float32 i1e)
constexpr int kBesselVecs = 4;
constexpr int kBesselLanes = 4 * kBesselVecs;
constexpr int bessel_i_vecs(int lanes) {
  return lanes == 4 ? 6 : 4;
}

// What plain vector arithmetic lacks, for each width: unaligned loads and stores (GCC splits a memcpy of a
// vector into 16-byte moves under its generic tuning: a store-forwarding stall per vector, 1.6x the time),
// FMA (spelled out, so both widths fuse the same operations), sqrt and exp (avx2_math.h's and
// avx512_math.h's float64 exp give the same bits)
static inline void bessel_load(__m256d& v, const double* p) {
  v = _mm256_loadu_pd(p);
}
static inline void bessel_store(double* p, __m256d v) {
  _mm256_storeu_pd(p, v);
}
// a load the compiler must repeat where it is written (volatile: never merged with another of the same
// address), so AVX2 re-reads x instead of keeping it live across the recurrences, where GCC spilled it with
// 16-byte moves (a store-forwarding stall per vector)
static inline void bessel_reload(__m256d& v, const double* p) {
  __asm__ volatile("vmovupd %1, %0" : "=x"(v) : "m"(*reinterpret_cast<const __m256d_u*>(p)));
}
static inline __m256d bessel_fma(__m256d a, __m256d b, __m256d c) {
  return _mm256_fmadd_pd(a, b, c);
}
static inline __m256d bessel_sqrt(__m256d x) {
  return _mm256_sqrt_pd(x);
}
static inline __m256d bessel_exp(__m256d x) {
  return exp_avx2_f64(x);
}
#ifdef MT_VEC_AVX512
static inline void bessel_load(__m512d& v, const double* p) {
  v = _mm512_loadu_pd(p);
}
static inline void bessel_store(double* p, __m512d v) {
  _mm512_storeu_pd(p, v);
}
static inline void bessel_reload(__m512d& v, const double* p) {
  v = _mm512_loadu_pd(p);  // thirty-two registers: the compiler's choice
}
static inline __m512d bessel_fma(__m512d a, __m512d b, __m512d c) {
  return _mm512_fmadd_pd(a, b, c);
}
static inline __m512d bessel_sqrt(__m512d x) {
  return _mm512_sqrt_pd(x);
}
static inline __m512d bessel_exp(__m512d x) {
  return exp_avx512_f64(x);
}
#endif

// Clenshaw's recurrence over the vectors at once. Each step is one FMA on the critical path, y b1 + (c - b2),
// the subtraction off it (b2 is known a step ahead): the recurrence is latency-bound, 30 steps of it.
template <typename V, int N>
static inline void bessel_chbevl(V out[kBesselVecs], const V y[kBesselVecs], const double (&c)[N]) {
  V b0[kBesselVecs], b1[kBesselVecs], b2[kBesselVecs];
  for (int k = 0; k < kBesselVecs; ++k) {
    b0[k] = V{} + c[0];
    b1[k] = b2[k] = V{};
  }
  for (int i = 1; i < N; ++i)
    for (int k = 0; k < kBesselVecs; ++k) {
      b2[k] = b1[k];
      b1[k] = b0[k];
      b0[k] = bessel_fma(y[k], b1[k], c[i] - b2[k]);
    }
  for (int k = 0; k < kBesselVecs; ++k) out[k] = 0.5 * (b0[k] - b2[k]);
}

// The same recurrence, the same operations, for K vectors of four doubles with y kept in memory: each step
// is o <- y n + (c - o) in place (n the newer b, o the older, which becomes the new b0; the two arrays swap
// roles step by step, so nothing is copied), one vsubpd and one vfmadd231pd with y as its memory operand. So
// six chains take twelve of AVX2's sixteen registers; left to itself, GCC kept y in registers and spilled
// b's onto the recurrence's critical path (a store and a reload per step: 2x the time in one build).
template <int K>
static inline void bessel_step_ymm_mem(const __m256d (&n)[K], __m256d (&o)[K], const __m256d (&y)[K],
                                       const double* c) {
  const __m256d ci = _mm256_broadcast_sd(c);
  for (int k = 0; k < K; ++k)
    __asm__("vsubpd %[o], %[c], %[o]\n\tvfmadd231pd %[y], %[n], %[o]"
            : [o] "+x"(o[k])
            : [n] "x"(n[k]), [y] "m"(y[k]), [c] "x"(ci));
}
template <int K, int N>
static inline void bessel_chbevl_ymm_mem(__m256d out[K], const __m256d (&y)[K], const double (&c)[N]) {
  static_assert(N >= 3, "the last step is taken apart");
  __m256d p[K], q[K];
  for (int k = 0; k < K; ++k) {
    p[k] = _mm256_set1_pd(c[0]);  // b0
    q[k] = _mm256_setzero_pd();   // b1
  }
#pragma GCC unroll 32
  for (int i = 1; i < N - 1; ++i) {
    if (i & 1)
      bessel_step_ymm_mem<K>(p, q, y, c + i);
    else
      bessel_step_ymm_mem<K>(q, p, y, c + i);
  }
  // the last step in plain code: the result needs its b2 (the older b before it)
  constexpr bool kPNewer = ((N - 2) & 1) == 0;
  for (int k = 0; k < K; ++k) {
    const __m256d b1 = kPNewer ? p[k] : q[k], b2 = kPNewer ? q[k] : p[k];
    const __m256d b0 = _mm256_fmadd_pd(y[k], b1, c[N - 1] - b2);
    out[k] = 0.5 * (b0 - b2);
  }
}
// bessel_chbevl for bessel_i_lanes' K vectors: AVX2's six through the memory-operand form above
template <int K, typename V, int N>
static inline void bessel_chbevl_k(V out[K], const V (&y)[K], const double (&c)[N]) {
  if constexpr (sizeof(V) == 32 && K != kBesselVecs) {
    bessel_chbevl_ymm_mem<K>(out, y, c);
  } else {
    static_assert(K == kBesselVecs, "four vectors");
    bessel_chbevl(out, y, c);
  }
}

// I_kN(x), or exp(-|x|) I_kN(x) when kScaled, for in[0..bessel_i_vecs(W) * W) (W lanes of V): written once
// over GCC vector types, four double lanes (AVX2) or eight (AVX-512: the same operations, so the same bits).
// I0 is even and I1 odd (I1(-0) = +0, as the scalar functor); NaN stays NaN (it takes the (8, inf) branch);
// the scaled forms give 0 at +-inf.
template <int kN, bool kScaled, typename V = __m256d>
static inline void bessel_i_lanes(double* out, const double* in) {
  constexpr int W = sizeof(V) / sizeof(double), K = bessel_i_vecs(W);
  typedef long long VL __attribute__((vector_size(sizeof(V))));
  typedef LaneOps<V> L;
  // |x| of vector k (-0 to +0), read again wherever it is needed rather than kept live across the recurrences
  const auto absx = [in](int k) {
    V v;
    bessel_reload(v, in + W * k);
    return (V)((VL)v & 0x7fffffffffffffffLL);
  };
  alignas(sizeof(V)) V y[K];
  V r[K];
  VL any_small = VL{}, all_small = VL{} - 1;
  for (int k = 0; k < K; ++k) {
    const VL small = absx(k) <= 8.0;  // NaN: false
    any_small |= small;
    all_small &= small;
  }
  if (L::any(any_small)) {
    for (int k = 0; k < K; ++k) y[k] = absx(k) * 0.5 - 2.0;
    if constexpr (kN == 0) {
      bessel_chbevl_k<K>(r, y, kI0eSmall);
    } else {
      bessel_chbevl_k<K>(r, y, kI1eSmall);
      for (int k = 0; k < K; ++k) r[k] *= absx(k);
    }
  } else {
    for (int k = 0; k < K; ++k) r[k] = V{};
  }
  if (L::any(~all_small)) {
    V c[K];
    // the small lanes divide 32 by 16, not by a possible 0
    for (int k = 0; k < K; ++k) {
      const V ax = absx(k);
      y[k] = 32.0 / (ax <= 8.0 ? V{} + 16.0 : ax) - 2.0;
    }
    if constexpr (kN == 0)
      bessel_chbevl_k<K>(c, y, kI0eLarge);
    else
      bessel_chbevl_k<K>(c, y, kI1eLarge);
    for (int k = 0; k < K; ++k) {
      const V ax = absx(k);
      r[k] = ax <= 8.0 ? r[k] : c[k] / bessel_sqrt(ax);
    }
  }
  for (int k = 0; k < K; ++k) {
    if constexpr (!kScaled) {
      const V ax = absx(k);
      const V e = r[k] * bessel_exp(ax);
      // exp(|x|) overflows from 709.78, I_n(x) only from 713.99: there e^(|x|/2) twice
      const VL wide = ax > 709.0;
      if (L::any(wide)) {
        const V h = bessel_exp(ax * 0.5);
        r[k] = wide ? h * (h * r[k]) : e;
      } else {
        r[k] = e;
      }
      r[k] = ax == __builtin_inf() ? V{} + __builtin_inf() : r[k];  // inf * 0 would be NaN
    }
    if constexpr (kN == 1) {
      V x;
      bessel_reload(x, in + W * k);
      r[k] = x < 0.0 ? -r[k] : r[k];
    }
    bessel_store(out + W * k, r[k]);
  }
}

// A dense row, kLanes elements at a time, the tail through a padded block (every element the same path);
// float32 computed in double and rounded once, so its results are the float64 ones rounded.
template <typename S, void (*F)(double*, const double*), int kLanes = kBesselLanes>
void bessel_row(S* out, const S* in, int64_t n) {
  double buf[kLanes];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    if constexpr (sizeof(S) == sizeof(double)) {
      F(reinterpret_cast<double*>(out + i), reinterpret_cast<const double*>(in + i));
    } else {
      // widened and narrowed four at a time (exact, then rounded to nearest once; a scalar loop here cost
      // float32 a third more time than float64)
      for (int j = 0; j < kLanes; j += 4)
        _mm256_storeu_pd(buf + j, _mm256_cvtps_pd(_mm_loadu_ps(in + i + j)));
      F(buf, buf);
      for (int j = 0; j < kLanes; j += 4)
        _mm_storeu_ps(out + i + j, _mm256_cvtpd_ps(_mm256_loadu_pd(buf + j)));
    }
  }
  if (i < n) {
    const int64_t m = n - i;
    for (int64_t j = 0; j < kLanes; ++j) buf[j] = j < m ? static_cast<double>(in[i + j]) : 0.0;
    F(buf, buf);
    for (int64_t j = 0; j < m; ++j) out[i + j] = static_cast<S>(buf[j]);
  }
}

}  // namespace
