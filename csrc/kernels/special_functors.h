// torch.special's long tail, written once for host and device like kernels/functors.h (which includes this
// file at its end, after bessel_chebyshev, bessel_i and hurwitz_zeta, which it reuses): Bessel functions of
// the first and second kind, modified Bessel functions of the second kind, spherical j0, Airy's Ai, and the
// classical orthogonal polynomials of integer order n.
//
// The Bessel and Airy functions are Cephes' algorithms (j0.c, j1.c, k0.c, k1.c, airy.c), evaluated in double
// and rounded once to the result dtype. PyTorch's ATen Math.h runs the same fits but evaluates the
// denominators Cephes reads with p1evl (an implied leading coefficient 1) as plain polynomials, which costs
// it up to ~4e-7 relative error (J0(6)); we keep Cephes' form, so the values agree with SciPy to ~1e-15 and
// with PyTorch to its own error. The polynomials follow Math.h exactly, in the opmath type T (float for
// float32), since their overflow points and the Hermite order limits (128 in float, 512 in double) are part
// of PyTorch's results.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/Macros.h"
#include "kernels/SpecialCoeffs.h"

namespace mt {
namespace fn {

// Cephes' polevl (the coefficients as given) and p1evl (a leading coefficient 1 before them)
template <int N>
MT_HD_INLINE double sp_polevl(double x, const double (&c)[N]) {
  double r = c[0];
  for (int i = 1; i < N; ++i) r = r * x + c[i];
  return r;
}
template <int N>
MT_HD_INLINE double sp_p1evl(double x, const double (&c)[N]) {
  double r = x + c[0];
  for (int i = 1; i < N; ++i) r = r * x + c[i];
  return r;
}

constexpr double kSpPio4 = 0.78539816339744830962;       // pi / 4
constexpr double kSp3Pio4 = 2.35619449019234492885;      // 3 pi / 4
constexpr double kSpSq2Opi = 0.79788456080286535588;     // sqrt(2 / pi)
constexpr double kSpTwoOpi = 0.63661977236758134308;     // 2 / pi
constexpr double kSpSqrtPiInv = 0.56418958354775628695;  // 1 / sqrt(pi)

// Hankel's asymptotic form of J_n (sine = false) or Y_n (sine = true), n = 0 or 1, for x > 5
template <int A, int B, int C, int D>
MT_HD_INLINE double bessel_hankel(double x, double shift, bool second, const double (&pp)[A],
                                  const double (&pq)[B], const double (&qp)[C], const double (&qq)[D]) {
  const double w = 5.0 / x, z = 25.0 / (x * x);
  const double p = sp_polevl(z, pp) / sp_polevl(z, pq);
  const double q = sp_polevl(z, qp) / sp_p1evl(z, qq);
  const double xn = x - shift;
  const double r = second ? p * sin(xn) + w * q * cos(xn) : p * cos(xn) - w * q * sin(xn);
  return r * kSpSq2Opi / sqrt(x);
}

MT_HD_INLINE double bessel_j0_double(double x) {
  constexpr double pp[] = {MT_J0_PP}, pq[] = {MT_J0_PQ}, qp[] = {MT_J0_QP}, qq[] = {MT_J0_QQ};
  constexpr double rp[] = {MT_J0_RP}, rq[] = {MT_J0_RQ};
  x = fabs(x);
  if (x <= 5.0) {
    const double z = x * x;
    if (x < 1e-5) return 1.0 - z / 4.0;
    // the first two zeros squared, factored out so the fit keeps its relative accuracy near them
    return (z - 5.78318596294678452118) * (z - 30.4712623436620863991) * sp_polevl(z, rp) / sp_p1evl(z, rq);
  }
  return bessel_hankel(x, kSpPio4, false, pp, pq, qp, qq);
}

MT_HD_INLINE double bessel_j1_double(double x) {
  constexpr double pp[] = {MT_J1_PP}, pq[] = {MT_J1_PQ}, qp[] = {MT_J1_QP}, qq[] = {MT_J1_QQ};
  constexpr double rp[] = {MT_J1_RP}, rq[] = {MT_J1_RQ};
  const double ax = fabs(x);
  double r;
  if (ax <= 5.0) {
    const double z = ax * ax;
    r = sp_polevl(z, rp) / sp_p1evl(z, rq) * ax * (z - 14.6819706421238932572) * (z - 49.2184563216946036703);
  } else {
    r = bessel_hankel(ax, kSp3Pio4, false, pp, pq, qp, qq);
  }
  return x < 0.0 ? -r : r;
}

// Y0, Y1: -inf at 0, NaN below (and at -inf); NaN at +inf as PyTorch (sin(inf) is NaN)
MT_HD_INLINE double bessel_y0_double(double x) {
  constexpr double pp[] = {MT_J0_PP}, pq[] = {MT_J0_PQ}, qp[] = {MT_J0_QP}, qq[] = {MT_J0_QQ};
  constexpr double yp[] = {MT_Y0_YP}, yq[] = {MT_Y0_YQ};
  if (x <= 5.0) {
    if (x == 0.0) return -HUGE_VAL;
    if (x < 0.0) return std::numeric_limits<double>::quiet_NaN();
    const double z = x * x;
    return sp_polevl(z, yp) / sp_p1evl(z, yq) + kSpTwoOpi * log(x) * bessel_j0_double(x);
  }
  return bessel_hankel(x, kSpPio4, true, pp, pq, qp, qq);
}

MT_HD_INLINE double bessel_y1_double(double x) {
  constexpr double pp[] = {MT_J1_PP}, pq[] = {MT_J1_PQ}, qp[] = {MT_J1_QP}, qq[] = {MT_J1_QQ};
  constexpr double yp[] = {MT_Y1_YP}, yq[] = {MT_Y1_YQ};
  if (x <= 5.0) {
    if (x == 0.0) return -HUGE_VAL;
    if (x < 0.0) return std::numeric_limits<double>::quiet_NaN();
    const double z = x * x;
    return x * (sp_polevl(z, yp) / sp_p1evl(z, yq)) + kSpTwoOpi * (bessel_j1_double(x) * log(x) - 1.0 / x);
  }
  return bessel_hankel(x, kSp3Pio4, true, pp, pq, qp, qq);
}

// K_n(x), n = 0 or 1 (scaled: exp(x) K_n(x)): inf at 0, NaN below; Cephes' Chebyshev series in x^2 - 2 with
// the log(x/2) I_n(x) term on [0, 2], and in 8/x - 2 for exp(x) sqrt(x) K_n(x) beyond.
MT_HD_INLINE double bessel_k(double x, int n, bool scaled) {
  constexpr double k0a[] = {MT_K0_A}, k0b[] = {MT_K0_B}, k1a[] = {MT_K1_A}, k1b[] = {MT_K1_B};
  if (x == 0.0) return HUGE_VAL;
  if (x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 2.0) {
    const double y = x * x - 2.0;
    const double r = n == 0 ? bessel_chebyshev(y, k0a) - log(0.5 * x) * bessel_i(x, 0, false)
                            : log(0.5 * x) * bessel_i(x, 1, false) + bessel_chebyshev(y, k1a) / x;
    return scaled ? r * exp(x) : r;
  }
  const double r =
      (n == 0 ? bessel_chebyshev(8.0 / x - 2.0, k0b) : bessel_chebyshev(8.0 / x - 2.0, k1b)) / sqrt(x);
  return scaled ? r : exp(-x) * r;
}

// sin(x) / x, by its Taylor polynomial below 1/2 (where the division loses digits); 0 at +-inf
MT_HD_INLINE double spherical_bessel_j0_double(double x) {
  if (std::isinf(x)) return 0.0;
  if (fabs(x) < 0.5) {
    const double z = x * x;
    return 1.0 + z * (-1.0 / 6.0 +
                      z * (1.0 / 120.0 +
                           z * (-1.0 / 5040.0 +
                                z * (1.0 / 362880.0 + z * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0))))));
  }
  return sin(x) / x;
}

// Ai(x): the Maclaurin series on [-2.09, 2.09), the asymptotic forms (rational in 1/zeta, zeta = 2/3
// |x|^(3/2)) outside; 0 past 103.892 (where it underflows), NaN at +-inf as PyTorch.
MT_HD_INLINE double airy_ai_double(double x) {
  constexpr double an[] = {MT_AIRY_AN}, ad[] = {MT_AIRY_AD}, afn[] = {MT_AIRY_AFN}, afd[] = {MT_AIRY_AFD};
  constexpr double agn[] = {MT_AIRY_AGN}, agd[] = {MT_AIRY_AGD};
  if (std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x > 103.892) return 0.0;
  if (x < -2.09) {
    const double t = sqrt(-x), zeta = -2.0 * x * t / 3.0, z = 1.0 / zeta, zz = z * z;
    const double uf = 1.0 + zz * sp_polevl(zz, afn) / sp_p1evl(zz, afd);
    const double ug = z * sp_polevl(zz, agn) / sp_p1evl(zz, agd);
    const double theta = zeta + kSpPio4;
    return kSpSqrtPiInv / sqrt(t) * (sin(theta) * uf - cos(theta) * ug);
  }
  if (x >= 2.09) {
    const double t = sqrt(x), zeta = 2.0 * x * t / 3.0, z = 1.0 / zeta;
    return kSpSqrtPiInv * (sp_polevl(z, an) / sp_polevl(z, ad)) / (2.0 * sqrt(t) * exp(zeta));
  }
  // f = sum x^3k / (2.3)(5.6)..., g = x + sum x^(3k+1) / (3.4)(6.7)...; Ai = c1 f - c2 g
  double f = 1.0, g = x, k = 1.0, m = 1.0, n = x, t = 1.0;
  const double z = x * x * x;
  while (t > 1.1102230246251565e-16) {
    m *= z;
    k += 1.0;
    m /= k;
    n *= z;
    k += 1.0;
    n /= k;
    m /= k;
    f += m;
    k += 1.0;
    n /= k;
    g += n;
    t = fabs(m / f);
  }
  return 0.355028053887817239260 * f - 0.258819403792806798405 * g;
}

// ---- the orthogonal polynomials, PyTorch's Math.h in T

// n as PyTorch's static_cast<int64_t>(n): truncated; NaN, +-inf and values past int64 give x86's
// "integer indefinite" INT64_MIN, which every polynomial below treats as a negative order (0)
template <typename T>
MT_HD_INLINE int64_t poly_order(T n) {
  if (!(n > T(-9.2233720368547758e18) && n < T(9.2233720368547758e18))) return INT64_MIN;
  return static_cast<int64_t>(n);
}

// Chebyshev T, U, V, W (kind 0..3) of y: the closed forms at |y| = 1, the trigonometric forms for |y| < 1
// past order `trig` (Math.h's thresholds: 6 for T, 8 for U, V, W; the shifted ones use 6, 6, 6, 4), else the
// three-term recurrence (stopped once NaN). `shifted` evaluates at y = 2x - 1 with the ends tested on x.
template <typename T>
MT_HD_INLINE T chebyshev_poly(T x, int64_t n, int kind, bool shifted, int64_t trig) {
  if (n < 0) return T(0);
  const T y = shifted ? x + x - T(1) : x;
  const bool hi = shifted ? x == T(1) : y == T(1), lo = shifted ? x == T(0) : y == T(-1);
  const T odd = (n % 2 == 0) ? T(1) : T(-1);
  if (hi || lo) {
    switch (kind) {
      case 0:
        return hi ? T(1) : odd;
      case 1:
        return T(n + 1) * (hi ? T(1) : odd);
      case 2:
        return hi ? T(1) : T(n + n + 1) * odd;
      default:
        return hi ? T(n + n + 1) : odd;
    }
  }
  if (n > trig && std::abs(y) < T(1)) {
    const T th = std::acos(y);
    switch (kind) {
      case 0:
        return std::cos(T(n) * th);
      case 1:
        if (std::sin(th) != T(0)) return std::sin(T(n + 1) * th) / std::sin(th);
        return T(n + 1) * std::cos(T(n + 1) * th) / y;
      case 2:
        if (std::sin(th / T(2)) != T(1)) return std::cos((T(n) + T(0.5)) * th) / std::cos(th / T(2));
        return T(n + n + 1) * odd;
      default:
        if (std::cos(th / T(2)) != T(1)) return std::sin((T(n) + T(0.5)) * th) / std::sin(th / T(2));
        return (shifted ? false : y > T(0)) ? T(n + n + 1) : odd;
    }
  }
  if (n == 0) return T(1);
  // P_1: T1 = y, U1 = 2y, V1 = 2y - 1, W1 = 2y + 1
  const T p1 = kind == 0 ? y : (kind == 1 ? y + y : (kind == 2 ? y + y - T(1) : y + y + T(1)));
  if (n == 1) return p1;
  T p = T(1), q = p1, r = p1;
  for (int64_t k = 2; k <= n && !std::isnan(q); ++k) {
    r = (y + y) * q - p;
    p = q;
    q = r;
  }
  return r;
}

template <typename T>
constexpr int64_t hermite_limit() {
  return std::is_same<T, float>::value ? 128 : 512;
}

// physicists' H_n (probabilists' He_n when `prob`): NaN past the dtype's order limit, as PyTorch
template <typename T>
MT_HD_INLINE T hermite_poly(T x, int64_t n, bool prob) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return prob ? x : x + x;
  if (n > hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  T p = T(1), q = prob ? x : x + x, r = T(0);
  for (int64_t k = 1; k < n; ++k) {
    r = prob ? x * q - T(k) * p : (x + x) * q - T(k + k) * p;
    p = q;
    q = r;
  }
  return r;
}

template <typename T>
MT_HD_INLINE T laguerre_poly(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(0) || n == 0) return T(1);
  if (n == 1) return T(1) - x;
  T p = T(1), q = T(1) - x, r = q;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    r = ((T(k + k) + (T(1) - x)) * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return r;
}

template <typename T>
MT_HD_INLINE T legendre_poly(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n == 0) return T(1);
  if (n == 1) return x;
  T p = T(1), q = x, r = q;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    r = (T(k + k + 1) * x * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return r;
}

#define MT_SPECIAL_UNARY(Name, expr)           \
  struct Name {                                \
    template <typename T>                      \
    MT_HD_INLINE T operator()(T x) const {     \
      const double v = static_cast<double>(x); \
      return static_cast<T>(expr);             \
    }                                          \
  };
MT_SPECIAL_UNARY(BesselJ0, bessel_j0_double(v))
MT_SPECIAL_UNARY(BesselJ1, bessel_j1_double(v))
MT_SPECIAL_UNARY(BesselY0, bessel_y0_double(v))
MT_SPECIAL_UNARY(BesselY1, bessel_y1_double(v))
MT_SPECIAL_UNARY(ModifiedBesselK0, bessel_k(v, 0, false))
MT_SPECIAL_UNARY(ModifiedBesselK1, bessel_k(v, 1, false))
MT_SPECIAL_UNARY(ScaledModifiedBesselK0, bessel_k(v, 0, true))
MT_SPECIAL_UNARY(ScaledModifiedBesselK1, bessel_k(v, 1, true))
MT_SPECIAL_UNARY(SphericalBesselJ0, spherical_bessel_j0_double(v))
MT_SPECIAL_UNARY(AiryAi, airy_ai_double(v))
#undef MT_SPECIAL_UNARY

// Binary (x, n) ops: integer inputs compute in the default float dtype (the schema's `dtype: div`), so the
// integer instantiations are never called.
#define MT_SPECIAL_POLY(Name, expr)              \
  struct Name {                                  \
    template <typename T>                        \
    MT_HD_INLINE T operator()(T x, T nf) const { \
      if constexpr (is_int_v<T>) {               \
        return x;                                \
      } else {                                   \
        const int64_t n = poly_order(nf);        \
        return expr;                             \
      }                                          \
    }                                            \
  };
MT_SPECIAL_POLY(ChebyshevPolynomialT, chebyshev_poly(x, n, 0, false, 6))
MT_SPECIAL_POLY(ChebyshevPolynomialU, chebyshev_poly(x, n, 1, false, 8))
MT_SPECIAL_POLY(ChebyshevPolynomialV, chebyshev_poly(x, n, 2, false, 8))
MT_SPECIAL_POLY(ChebyshevPolynomialW, chebyshev_poly(x, n, 3, false, 8))
MT_SPECIAL_POLY(ShiftedChebyshevPolynomialT, chebyshev_poly(x, n, 0, true, 6))
MT_SPECIAL_POLY(ShiftedChebyshevPolynomialU, chebyshev_poly(x, n, 1, true, 6))
MT_SPECIAL_POLY(ShiftedChebyshevPolynomialV, chebyshev_poly(x, n, 2, true, 6))
MT_SPECIAL_POLY(ShiftedChebyshevPolynomialW, chebyshev_poly(x, n, 3, true, 4))
MT_SPECIAL_POLY(HermitePolynomialH, hermite_poly(x, n, false))
MT_SPECIAL_POLY(HermitePolynomialHe, hermite_poly(x, n, true))
MT_SPECIAL_POLY(LaguerrePolynomialL, laguerre_poly(x, n))
MT_SPECIAL_POLY(LegendrePolynomialP, legendre_poly(x, n))
#undef MT_SPECIAL_POLY

// Hurwitz zeta(x, q) (kernels/functors.h's hurwitz_zeta, the one polygamma uses)
struct SpecialZeta {
  template <typename T>
  MT_HD_INLINE T operator()(T x, T q) const {
    if constexpr (is_int_v<T>) {
      return x;
    } else {
      return static_cast<T>(hurwitz_zeta(static_cast<double>(x), static_cast<double>(q)));
    }
  }
};

}  // namespace fn
}  // namespace mt
