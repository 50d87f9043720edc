// torch.special's long tail, written once for host and device like kernels/functors.h (which includes this
// file at its end, after bessel_chebyshev, bessel_i and hurwitz_zeta, which it reuses): Bessel functions of
// the first and second kind, modified Bessel functions of the second kind, spherical j0, Airy's Ai, and the
// classical orthogonal polynomials of integer order n, and the regularized incomplete gamma functions.
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

// ---- the regularized incomplete gamma functions P(a, x) = gamma(a, x) / Gamma(a) (torch.igamma,
// special.gammainc) and Q(a, x) = 1 - P (igammac, gammaincc): Cephes' igam/igamc as SciPy and PyTorch's ATen
// Math.h (calc_igamma/calc_igammac) arrange them. Near the transition a ~ x for large a, Temme's uniform
// asymptotic expansion (DLMF 8.12.3/8.12.4); elsewhere P's power series (DLMF 8.11.4), Q's continued fraction
// (DLMF 8.9.2) or, for x <= 1.1, Q's own series (DLMF 8.7.3) where 1 - P would cancel. Two departures from
// PyTorch, both toward SciPy: log Gamma(1 + a) keeps a small a's digits (PyTorch's lgamma(1 + a) rounds them
// away: its Q(1e-40, 0.956) is off by 3x), and the asymptotic term divides by sqrt(2 pi a) with pi in double
// (PyTorch's float pi costs it 1e-9). Evaluated in double for every dtype and rounded once; `eps` is where a
// series stops: double's half ulp for float64, 2^-28 for float32 and below (6% of their half ulp, 6e-8: the
// rounding to float32 moves by at most that much).

// the C library's functions, which the tensor ops of the same names in namespace mt would otherwise hide
using std::erfc;
using std::expm1;
using std::lgamma;
using std::log1p;
using std::pow;

// The incomplete gamma's tables are read with a runtime index: static on the host (one copy, not 5 KB built
// on the stack per call), plain constexpr in device code (the pattern of the Bessel fits above).
#if defined(__CUDA_ARCH__)
#define MT_IGAM_TABLE constexpr
#else
#define MT_IGAM_TABLE static constexpr
#endif

// log Gamma(1 + a) for a >= 0, whose zero at a = 0 lgamma(1 + a) cannot keep (1 + a rounds a's digits away:
// 1e-16 absolute, 300 ulps of Q(1e-3, 1)). Up to a = 0.2 its Taylor series -gamma a + sum_k (-1)^k zeta(k) /
// k a^k with zeta(k) = 1 + (zeta(k) - 1) split off: the ones sum to a - log1p(a), the rest fall as (a/2)^k /
// k (to k = 18: 1e-19 relative at a = 0.2)
MT_HD_INLINE double igam_lgamma1p(double a) {
  if (a > 0.2) return lgamma(1.0 + a);
  // (-1)^k (zeta(k) - 1) / k, k = 18 down to 2
  constexpr double c[17] = {2.1207184805554665e-07,  -4.492469198764566e-07, 9.55141213040742e-07,
                            -2.039215753801366e-06,  4.374866789907488e-06,  -9.439488275268397e-06,
                            2.050721277567069e-05,   -4.492623673813314e-05, 9.945751278180853e-05,
                            -0.00022315475845357939, 0.0005096695247430425,  -0.001192753911703261,
                            0.0028905103307415234,   -0.007385551028673986,  0.020580808427784546,
                            -0.0673523010531981,     0.3224670334241132};
  double p = c[0];
  for (int k = 1; k < 17; ++k) p = p * a + c[k];
  return (a - log1p(a)) + a * (a * p - 0.5772156649015329);
}

// Boost's Lanczos sum L(a) (kernels/SpecialCoeffs.h), a > 0: in a up to 1, in 1/a beyond
MT_HD_INLINE double igam_lanczos(double a) {
  MT_IGAM_TABLE double num[13] = {MT_LANCZOS_EXPG_NUM}, den[13] = {MT_LANCZOS_EXPG_DEN};
  double n, d;
  if (a <= 1.0) {
    n = num[0];
    d = den[0];
    for (int i = 1; i < 13; ++i) {
      n = n * a + num[i];
      d = d * a + den[i];
    }
  } else {
    const double y = 1.0 / a;
    n = num[12];
    d = den[12];
    for (int i = 11; i >= 0; --i) {
      n = n * y + num[i];
      d = d * y + den[i];
    }
  }
  return n / d;
}

// x^a e^-x / Gamma(a): directly where x is far from a, else through the Lanczos form, which keeps the large
// cancelling terms a log x - x and log Gamma(a) apart
MT_HD_INLINE double igam_fac(double a, double x) {
  if (fabs(a - x) > 0.4 * fabs(a)) {
    const double ax = a * log(x) - x - lgamma(a);
    return ax < -709.78271289338397 ? 0.0 : exp(ax);
  }
  constexpr double g = 6.024680040776729583740234375, e = 2.718281828459045;
  const double fac = a + g - 0.5;
  const double res = sqrt(fac / e) / igam_lanczos(a);
  // e^(a - x) (x / fac)^a as one exp of a log (a pow and an exp cost 40% more; the log's rounding times a,
  // |a log(x / fac)| <= ~6 where |a - x| <= 0.4 a, moves the result by a few 1e-16 of itself)
  if (a < 200.0 && x < 200.0) return res * exp((a - x) + a * log(x / fac));
  const double nf = (x - a - g + 0.5) / fac;
  return res * exp(a * (log1p(nf) - nf) + x * (0.5 - g) / fac);
}

// P(a, x) by its power series x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n)), two terms a step
// with one division between them (x / ((a + n + 1)(a + n + 2))): the loop's time was its divisions, and only
// the products and the sum carry from step to step; the stop is tested on the step's last term. Up to 20000
// terms (Cephes' and PyTorch's 2000 stop P(1e6, 994000) at 6e-7 of its value: it needs ~9000).
MT_HD_INLINE double igam_series(double a, double x, double eps) {
  const double ax = igam_fac(a, x);
  if (ax == 0.0) return 0.0;
  double r = a, c = 1.0, ans = 1.0;
  for (int i = 0; i < 10000; ++i) {
    const double r1 = r + 1.0, r2 = r + 2.0;
    r = r2;
    const double d = x / (r1 * r2);
    const double c1 = c * (d * r2), c2 = c * (d * x);
    ans += c1;
    ans += c2;
    c = c2;
    if (c2 <= eps * ans) break;
  }
  return ans * ax / a;
}

// Q(a, x) for x <= 1.1 (a small beside it: below 1.2): 1 - x^a / Gamma(a + 1) taken as -expm1, less
// x^a / Gamma(a) sum_n (-x)^n / (n! (a + n)), two terms a step with one division (as igam_series)
MT_HD_INLINE double igamc_series(double a, double x, double eps) {
  double fac = 1.0, sum = 0.0, n = 1.0;
  for (int i = 0; i < 1000; ++i) {
    const double n2 = n + 1.0, an = a + n, an2 = a + n2;
    const double d = 1.0 / ((n * n2) * (an * an2));
    const double xx = x * x;
    const double t1 = -fac * x * ((n2 * an2) * d);
    const double t2 = fac * xx * (an * d);
    fac *= xx * ((an * an2) * d);
    sum += t1;
    sum += t2;
    n += 2.0;
    if (fabs(t2) <= eps * fabs(sum)) break;
  }
  // x^a / Gamma(a) = a e^u with u = a log x - log Gamma(1 + a): one expm1 serves both terms
  const double em1 = expm1(a * log(x) - igam_lgamma1p(a));
  return -em1 - a * (em1 + 1.0) * sum;
}

// Q(a, x) by its continued fraction (Cephes' three-term recurrence, rescaled when the terms grow large)
MT_HD_INLINE double igamc_fraction(double a, double x, double eps) {
  const double ax = igam_fac(a, x);
  if (ax == 0.0) return 0.0;
  constexpr double big = 4.503599627370496e15, biginv = 2.22044604925031308085e-16;
  double y = 1.0 - a, z = x + y + 1.0, c = 0.0;
  double pkm2 = 1.0, qkm2 = x, pkm1 = x + 1.0, qkm1 = z * x;
  double ans = pkm1 / qkm1;
  for (int i = 0; i < 2000; ++i) {
    c += 1.0;
    y += 1.0;
    z += 2.0;
    const double yc = y * c;
    const double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    double t = 1.0;
    if (qk != 0.0) {
      const double r = pk / qk;
      t = fabs((ans - r) / r);
      ans = r;
    }
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    if (fabs(pk) > big) {
      pkm2 *= biginv;
      pkm1 *= biginv;
      qkm2 *= biginv;
      qkm1 *= biginv;
    }
    if (t <= eps) break;
  }
  return ans * ax;
}

// log(1 + s) - s without the cancellation of its two terms near s = 0 (SciPy's log1pmx; PyTorch subtracts,
// 1e-13 relative at s = 0.003, where Temme's eta comes from it): with u = s / (2 + s), log(1 + s) = 2 atanh u
// = 2 (u + u^3/3 + u^5/5 + ...) and 2u - s = -s u, so the terms share one sign (u^2 <= 0.04 for |s| <= 1/2:
// twelve terms reach 1e-17 of the sum)
MT_HD_INLINE double igam_log1pmx(double s) {
  if (fabs(s) > 0.5) return log1p(s) - s;
  const double u = s / (2.0 + s), u2 = u * u;
  double p = 1.0 / 25;
  for (int k = 11; k >= 1; --k) p = p * u2 + 1.0 / (2 * k + 1);
  return 2.0 * u * u2 * p - s * u;
}

// Temme's expansion: P or Q = erfc(-+eta sqrt(a / 2)) / 2 -+ e^(-a eta^2 / 2) / sqrt(2 pi a) sum_k C_k(eta)
// a^-k, eta^2 / 2 = x/a - 1 - log(x/a), C_k a series in eta (kernels/SpecialCoeffs.h's d); the sum stops
// where its terms stop falling
MT_HD_INLINE double igam_asymptotic(double a, double x, bool lower, double eps) {
  MT_IGAM_TABLE double d[25][25] = {MT_IGAM_D};
  const double sigma = (x - a) / a;
  double eta = sqrt(-2.0 * igam_log1pmx(sigma));
  if (x < a) eta = -eta;
  if (x == a) eta = 0.0;
  const double sgn = lower ? -1.0 : 1.0;
  double res = 0.5 * erfc(sgn * eta * sqrt(a / 2.0));
  double etapow[25];
  etapow[0] = 1.0;
  int maxpow = 0;
  double sum = 0.0, afac = 1.0, absold = HUGE_VAL;
  for (int k = 0; k < 25; ++k) {
    double ck = d[k][0];
    for (int n = 1; n < 25; ++n) {
      if (n > maxpow) {
        etapow[n] = eta * etapow[n - 1];
        maxpow = n;
      }
      const double ckterm = d[k][n] * etapow[n];
      ck += ckterm;
      if (fabs(ckterm) < eps * fabs(ck)) break;
    }
    const double term = ck * afac, absterm = fabs(term);
    if (absterm > absold) break;
    sum += term;
    if (absterm < eps * fabs(sum)) break;
    absold = absterm;
    afac /= a;
  }
  constexpr double two_pi = 6.283185307179586477;
  return res + sgn * exp(-0.5 * a * eta * eta) * sum / sqrt(two_pi * a);
}

// Temme's expansion where a is large and x near it: 20 < a < 200 within 30% of a, or a > 200 within
// 4.5 / sqrt(a) of it (relative)
MT_HD_INLINE bool igam_use_asymptotic(double a, double x) {
  if (!(a > 20.0)) return false;
  const double r = fabs(x - a) / a;
  if (a < 200.0) return r < 0.3;
  return a > 200.0 && r * sqrt(a) < 4.5;
}

// PyTorch's special values, in its order (calc_igamma/calc_igammac): a negative operand is NaN; a = 0 is P =
// 1 for x > 0, else NaN; x = 0 is P = 0 whatever a (a NaN included); an infinite a is NaN with an infinite x,
// else P = 0; an infinite x is P = 1. Returns true with P in *p when one applies; a NaN left over is NaN.
MT_HD_INLINE bool igam_special(double a, double x, double* p) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (x < 0.0 || a < 0.0) {
    *p = nan;
  } else if (a == 0.0) {
    *p = x > 0.0 ? 1.0 : nan;
  } else if (x == 0.0) {
    *p = 0.0;
  } else if (std::isinf(a)) {
    *p = std::isinf(x) ? nan : 0.0;
  } else if (std::isinf(x)) {
    *p = 1.0;
  } else if (a != a || x != x) {
    *p = nan;
  } else {
    return false;
  }
  return true;
}

MT_HD_INLINE double igammac_double(double a, double x, double eps) {
  double p;
  if (igam_special(a, x, &p)) return p == p ? 1.0 - p : p;
  if (igam_use_asymptotic(a, x)) return igam_asymptotic(a, x, false, eps);
  if (x > 1.1) return x < a ? 1.0 - igam_series(a, x, eps) : igamc_fraction(a, x, eps);
  // x <= 1.1: P's series where P is small (a large beside x), else Q's own
  const bool p_small = x <= 0.5 ? -0.4 / log(x) < a : x * 1.1 < a;
  return p_small ? 1.0 - igam_series(a, x, eps) : igamc_series(a, x, eps);
}

MT_HD_INLINE double igamma_double(double a, double x, double eps) {
  double p;
  if (igam_special(a, x, &p)) return p;
  if (igam_use_asymptotic(a, x)) return igam_asymptotic(a, x, true, eps);
  if (x > 1.0 && x > a) return 1.0 - igammac_double(a, x, eps);
  return igam_series(a, x, eps);
}
#undef MT_IGAM_TABLE

// The functors: integer inputs are refused before the kernel (ops/elementwise.cpp's check_binary), so their
// instantiations are never called; float16 and bfloat16 arrive as their float opmath values.
#define MT_IGAMMA_FUNCTOR(Name, fn)                                                         \
  struct Name {                                                                             \
    template <typename T>                                                                   \
    MT_HD_INLINE T operator()(T a, T x) const {                                             \
      if constexpr (is_int_v<T>) {                                                          \
        return a;                                                                           \
      } else {                                                                              \
        const double eps = sizeof(T) >= 8 ? 1.1102230246251565e-16 : 3.725290298461914e-09; \
        return static_cast<T>(fn(static_cast<double>(a), static_cast<double>(x), eps));     \
      }                                                                                     \
    }                                                                                       \
  };
MT_IGAMMA_FUNCTOR(Igamma, igamma_double)
MT_IGAMMA_FUNCTOR(Igammac, igammac_double)
#undef MT_IGAMMA_FUNCTOR

}  // namespace fn
}  // namespace mt
