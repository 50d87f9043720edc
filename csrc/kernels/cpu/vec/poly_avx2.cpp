// torch.special's orthogonal polynomials (Chebyshev T/U/V/W and their shifted forms, Hermite H/He, Laguerre
// L, Legendre P) in AVX2 lanes, eight floats or four doubles a step.
//
// The scalar functors (kernels/special_functors.h) branch per element on the order n (n < 0, the ends, n = 0
// and 1, the recurrence); at the orders people use (n = 0..8) that branching cost 1.8 ns an element where
// PyTorch's took 1.0-1.3. Here each lane runs the functor's three-term recurrence with the same operations in
// the same order (this file is compiled with -ffp-contract=off: no fused multiply-add), the block stepping
// to its largest order and each lane keeping the step at its own n, so the results are the functor's bits.
// The lanes the recurrence does not give go to the functor's row (`scalar`): the closed forms at the ends,
// Chebyshev's trigonometric form (n past its threshold with |y| < 1: the C library's acos/cos/sin, whose bits
// we keep) and orders past 64.
#include <immintrin.h>

#include "kernels/cpu/vec/poly_rows.h"

namespace {

namespace vec = mt::vec;

template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  using V = __m256;
  static constexpr int kW = 8;
  static V load(const float* p, int64_t s) { return s ? _mm256_loadu_ps(p) : _mm256_set1_ps(*p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V set(float v) { return _mm256_set1_ps(v); }
  static V trunc(V v) { return _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static V abs(V v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
  static V sel(V m, V a, V b) { return _mm256_blendv_ps(b, a, m); }
  static int bits(V m) { return _mm256_movemask_ps(m); }
  static V gt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static V eq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static V ngt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_NGT_UQ); }  // !(a > b): NaN too
  static V or_(V a, V b) { return _mm256_or_ps(a, b); }
  static V and_not(V a, V b) { return _mm256_andnot_ps(b, a); }  // a & ~b
  static float hmax(V v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
  }
};
template <>
struct Lanes<double> {
  using V = __m256d;
  static constexpr int kW = 4;
  static V load(const double* p, int64_t s) { return s ? _mm256_loadu_pd(p) : _mm256_set1_pd(*p); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  static V set(double v) { return _mm256_set1_pd(v); }
  static V trunc(V v) { return _mm256_round_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static V abs(V v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }
  static V sel(V m, V a, V b) { return _mm256_blendv_pd(b, a, m); }
  static int bits(V m) { return _mm256_movemask_pd(m); }
  static V gt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
  static V eq(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
  static V ngt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_NGT_UQ); }
  static V or_(V a, V b) { return _mm256_or_pd(a, b); }
  static V and_not(V a, V b) { return _mm256_andnot_pd(b, a); }
  static double hmax(V v) {
    __m128d m = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
  }
};

// Orders up to this run in the lanes (the recurrence costs the block its largest order, so a stray large n
// goes to the scalar row instead of slowing its neighbours)
constexpr int kMaxOrder = 64;

// One block: r gets every lane's value, the returned bits mark the lanes left to the scalar row.
// n < 0 (every n <= -1, NaN, -inf: poly_order's INT64_MIN) gives 0 in every polynomial, before anything else.
template <typename T, vec::Poly P>
static inline int poly_lanes(typename Lanes<T>::V x, typename Lanes<T>::V nf, typename Lanes<T>::V& out) {
  using L = Lanes<T>;
  using V = typename L::V;
  const V one = L::set(T(1)), zero = L::set(T(0));
  const V neg = L::ngt(nf, L::set(T(-1)));
  const V nt = L::trunc(nf);  // the order, exact (|nf| < 2^23 where it matters); -0 for nf in (-1, 0)
  V bad = L::gt(nt, L::set(T(kMaxOrder)));
  V res, p = one, q;
  constexpr bool kCheb = P <= vec::Poly::ShiftedW;
  if constexpr (kCheb) {
    constexpr bool shifted = P >= vec::Poly::ShiftedT;
    constexpr int kind = static_cast<int>(P) % 4;
    // special_functors.h's chebyshev_poly thresholds: 6 for T, 8 for U, V, W; the shifted ones 6, 6, 6, 4
    constexpr int trig = shifted ? (kind == 3 ? 4 : 6) : (kind == 0 ? 6 : 8);
    const V y = shifted ? (x + x) - one : x;
    const V ends =
        shifted ? L::or_(L::eq(x, one), L::eq(x, zero)) : L::or_(L::eq(y, one), L::eq(y, L::set(T(-1))));
    // the trigonometric form: n past the threshold and |y| < 1 (not NaN)
    const V trig_form = L::and_not(L::gt(nt, L::set(T(trig))), L::ngt(one, L::abs(y)));
    bad = L::or_(L::or_(bad, ends), trig_form);
    // P_1: T1 = y, U1 = 2y, V1 = 2y - 1, W1 = 2y + 1
    q = kind == 0 ? y : (kind == 1 ? y + y : (kind == 2 ? (y + y) - one : (y + y) + one));
    res = L::sel(L::eq(nt, zero), one, q);
    const V good = L::and_not(L::gt(nt, one), bad);
    const int top = L::bits(good) ? static_cast<int>(L::hmax(L::sel(good, nt, zero))) : 0;
    const V y2 = y + y;
    for (int k = 2; k <= top; ++k) {
      const V r = y2 * q - p;
      p = q;
      q = r;
      res = L::sel(L::eq(nt, L::set(T(k))), r, res);
    }
  } else {
    if constexpr (P == vec::Poly::P) bad = L::or_(bad, L::eq(L::abs(x), one));  // |x| == 1: the closed form
    q = P == vec::Poly::H ? x + x : (P == vec::Poly::L ? one - x : x);
    res = L::sel(L::eq(nt, zero), one, q);
    const V good = L::and_not(L::gt(nt, one), bad);
    const int top = L::bits(good) ? static_cast<int>(L::hmax(L::sel(good, nt, zero))) : 0;
    // the step from P_k to P_(k+1), as the functors write it
    for (int k = 1; k < top; ++k) {
      V r;
      if constexpr (P == vec::Poly::He) {
        r = x * q - L::set(T(k)) * p;
      } else if constexpr (P == vec::Poly::H) {
        r = (x + x) * q - L::set(T(k + k)) * p;
      } else if constexpr (P == vec::Poly::L) {
        r = ((L::set(T(k + k)) + (one - x)) * q - L::set(T(k)) * p) / L::set(T(k + 1));
      } else {
        r = (L::set(T(k + k + 1)) * x * q - L::set(T(k)) * p) / L::set(T(k + 1));
      }
      p = q;
      q = r;
      res = L::sel(L::eq(nt, L::set(T(k + 1))), r, res);
    }
    if constexpr (P == vec::Poly::L) res = L::sel(L::eq(x, zero), one, res);  // |x| == 0: 1 at every order
  }
  out = L::sel(neg, zero, res);
  return L::bits(L::and_not(bad, neg));
}

template <typename T, vec::Poly P>
void poly_row(void (*scalar)(T*, const T*, int64_t, const T*, int64_t, int64_t), T* o, const T* x, int64_t sx,
              const T* n, int64_t sn, int64_t len) {
  using L = Lanes<T>;
  constexpr int W = L::kW;
  constexpr int kAll = (1 << W) - 1;
  int64_t i = 0;
  for (; i + W <= len; i += W) {
    typename L::V r;
    const int bad = poly_lanes<T, P>(L::load(x + i * sx, sx), L::load(n + i * sn, sn), r);
    if (bad == kAll) {  // the run of such blocks in one call (the trigonometric form's rows)
      int64_t j = i + W;
      for (; j + W <= len; j += W)
        if (poly_lanes<T, P>(L::load(x + j * sx, sx), L::load(n + j * sn, sn), r) != kAll) break;
      scalar(o + i, x + i * sx, sx, n + i * sn, sn, j - i);
      i = j - W;
      continue;
    }
    L::store(o + i, r);
    for (int b = bad; b; b &= b - 1) {
      const int j = __builtin_ctz(b);
      scalar(o + i + j, x + (i + j) * sx, sx, n + (i + j) * sn, sn, 1);
    }
  }
  if (i < len) scalar(o + i, x + i * sx, sx, n + i * sn, sn, len - i);
}

template <typename T>
void poly_dispatch(vec::Poly p, void (*scalar)(T*, const T*, int64_t, const T*, int64_t, int64_t), T* o,
                   const T* x, int64_t sx, const T* n, int64_t sn, int64_t len) {
  using vec::Poly;
  switch (p) {
#define MT_POLY_CASE(name) \
  case Poly::name:         \
    return poly_row<T, Poly::name>(scalar, o, x, sx, n, sn, len);
    MT_POLY_CASE(T)
    MT_POLY_CASE(U)
    MT_POLY_CASE(V)
    MT_POLY_CASE(W)
    MT_POLY_CASE(ShiftedT)
    MT_POLY_CASE(ShiftedU)
    MT_POLY_CASE(ShiftedV)
    MT_POLY_CASE(ShiftedW)
    MT_POLY_CASE(H)
    MT_POLY_CASE(He)
    MT_POLY_CASE(L)
    MT_POLY_CASE(P)
#undef MT_POLY_CASE
  }
}

}  // namespace

namespace mt {
namespace vec {

void poly_row_f32(Poly p, PolyScalarF scalar, float* out, const float* x, int64_t sx, const float* n,
                  int64_t sn, int64_t len) {
  poly_dispatch<float>(p, scalar, out, x, sx, n, sn, len);
}
void poly_row_f64(Poly p, PolyScalarD scalar, double* out, const double* x, int64_t sx, const double* n,
                  int64_t sn, int64_t len) {
  poly_dispatch<double>(p, scalar, out, x, sx, n, sn, len);
}

}  // namespace vec
}  // namespace mt
