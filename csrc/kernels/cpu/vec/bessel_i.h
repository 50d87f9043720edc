// Modified Bessel functions of the first kind, I0 and I1 and their scaled forms exp(-|x|) I_n(x), sixteen
// doubles at a time, for both tables (included only by vec/unary_impl.h, after avx2_math.h: its exp). The
// scalar functors (functors.h) sum a power series with a division per term, up to forty terms near |x| = 20;
// here Cephes' Chebyshev expansions (the ones PyTorch's calc_i0 / calc_i1e evaluate) of exp(-x) I_n(x) on
// [0, 8] and of exp(-x) sqrt(x) I_n(x) on (8, inf) in 32/x, by Clenshaw's recurrence. Measured against a
// 60-digit power series over [-60, 60]: 5.2e-16 (i0, i0e) and 1.6e-15 (i1, i1e) relative at most.
#pragma once

namespace {

// Cephes' coefficients (i0.c, i1.c; 3-clause BSD), highest order first
static const double kI0eSmall[30] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17,  -2.43127984654795469359E-16,
    1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12,  -1.72682629144155570723E-11,
    9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,   -2.67079385394061173391E-7,
    1.11738753912010371815E-6,   -4.41673835845875056359E-6,  1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,   -5.76375574538582365885E-4,
    1.63947561694133579842E-3,   -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,   -9.49010970480476444210E-2,
    1.71620901522208775349E-1,   -3.04682672343198398683E-1,  6.76795274409476084995E-1,
};
static const double kI0eLarge[25] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
    2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1,
};
static const double kI1eSmall[29] = {
    2.77791411276104639959E-18,  -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15,  -5.04218550472791168711E-14,
    3.22379336594557470981E-13,  -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10,  -1.88724975172282928790E-9,
    9.38153738649577178388E-9,   -4.44505912879632808065E-8,  2.00329475355213526229E-7,
    -8.56872026469545474066E-7,  3.47025130813767847674E-6,   -1.32731636560394358279E-5,
    4.78156510755005422638E-5,   -1.61760815825896745588E-4,  5.12285956168575772895E-4,
    -1.51357245063125314899E-3,  4.15642294431288815669E-3,   -1.05640848946261981558E-2,
    2.47264490306265168283E-2,   -5.29459812080949914269E-2,  1.02643658689847095384E-1,
    -1.76416518357834055153E-1,  2.52587186443633654823E-1,
};
static const double kI1eLarge[25] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
    3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1,
};

// Lanes per call: four vectors, four independent chains of Clenshaw's recurrence in flight
constexpr int kBesselVecs = 4;
constexpr int kBesselLanes = 4 * kBesselVecs;

// Clenshaw's recurrence over the vectors at once. Each step is one FMA on the critical path, y b1 + (c - b2),
// the subtraction off it (b2 is known a step ahead): the recurrence is latency-bound, 30 steps of it.
template <int N>
static inline void bessel_chbevl(__m256d out[kBesselVecs], const __m256d y[kBesselVecs],
                                 const double (&c)[N]) {
  __m256d b0[kBesselVecs], b1[kBesselVecs], b2[kBesselVecs];
  for (int k = 0; k < kBesselVecs; ++k) {
    b0[k] = _mm256_set1_pd(c[0]);
    b1[k] = b2[k] = _mm256_setzero_pd();
  }
  for (int i = 1; i < N; ++i)
    for (int k = 0; k < kBesselVecs; ++k) {
      b2[k] = b1[k];
      b1[k] = b0[k];
      b0[k] = _mm256_fmadd_pd(y[k], b1[k], c[i] - b2[k]);
    }
  for (int k = 0; k < kBesselVecs; ++k) out[k] = 0.5 * (b0[k] - b2[k]);
}

// I_kN(x), or exp(-|x|) I_kN(x) when kScaled, for in[0..kBesselLanes). I0 is even and I1 odd (I1(-0) = +0, as
// the scalar functor); NaN stays NaN (it takes the (8, inf) branch); the scaled forms give 0 at +-inf.
template <int kN, bool kScaled>
static inline void bessel_i_lanes(double* out, const double* in) {
  constexpr int K = kBesselVecs;
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d x[K], ax[K], small[K], r[K], y[K];
  int any_small = 0, any_large = 0;
  for (int k = 0; k < K; ++k) {
    x[k] = _mm256_loadu_pd(in + 4 * k);
    ax[k] = _mm256_andnot_pd(sign, x[k]);
    small[k] = _mm256_cmp_pd(ax[k], _mm256_set1_pd(8.0), _CMP_LE_OQ);
    const int m = _mm256_movemask_pd(small[k]);
    any_small |= m;
    any_large |= ~m & 0xf;
    r[k] = _mm256_setzero_pd();
  }
  if (any_small) {
    for (int k = 0; k < K; ++k) y[k] = ax[k] * 0.5 - 2.0;
    if constexpr (kN == 0) {
      bessel_chbevl(r, y, kI0eSmall);
    } else {
      bessel_chbevl(r, y, kI1eSmall);
      for (int k = 0; k < K; ++k) r[k] *= ax[k];
    }
  }
  if (any_large) {
    __m256d c[K];
    // the small lanes divide 32 by 16, not by a possible 0
    for (int k = 0; k < K; ++k) y[k] = 32.0 / _mm256_blendv_pd(ax[k], _mm256_set1_pd(16.0), small[k]) - 2.0;
    if constexpr (kN == 0)
      bessel_chbevl(c, y, kI0eLarge);
    else
      bessel_chbevl(c, y, kI1eLarge);
    for (int k = 0; k < K; ++k) r[k] = _mm256_blendv_pd(c[k] / _mm256_sqrt_pd(ax[k]), r[k], small[k]);
  }
  for (int k = 0; k < K; ++k) {
    if constexpr (!kScaled) {
      const __m256d e = r[k] * exp_avx2_f64(ax[k]);
      // exp(|x|) overflows from 709.78, I_n(x) only from 713.99: there e^(|x|/2) twice
      const __m256d wide = _mm256_cmp_pd(ax[k], _mm256_set1_pd(709.0), _CMP_GT_OQ);
      if (_mm256_movemask_pd(wide)) {
        const __m256d h = exp_avx2_f64(ax[k] * 0.5);
        r[k] = _mm256_blendv_pd(e, h * (h * r[k]), wide);
      } else {
        r[k] = e;
      }
      const __m256d inf = _mm256_set1_pd(__builtin_inf());
      r[k] = _mm256_blendv_pd(r[k], inf, _mm256_cmp_pd(ax[k], inf, _CMP_EQ_OQ));  // inf * 0 would be NaN
    }
    if constexpr (kN == 1)
      r[k] = _mm256_blendv_pd(r[k], _mm256_xor_pd(r[k], sign),
                              _mm256_cmp_pd(x[k], _mm256_setzero_pd(), _CMP_LT_OQ));
    _mm256_storeu_pd(out + 4 * k, r[k]);
  }
}

// A dense row, kBesselLanes elements at a time, the tail through a padded block (every element the same
// path); float32 computed in double and rounded once, so its results are the float64 ones rounded.
template <typename S, void (*F)(double*, const double*)>
void bessel_row(S* out, const S* in, int64_t n) {
  double buf[kBesselLanes];
  for (int64_t i = 0; i < n; i += kBesselLanes) {
    const int64_t m = n - i < kBesselLanes ? n - i : kBesselLanes;
    if (sizeof(S) == sizeof(double) && m == kBesselLanes) {
      F(reinterpret_cast<double*>(out + i), reinterpret_cast<const double*>(in + i));
      continue;
    }
    for (int64_t j = 0; j < kBesselLanes; ++j) buf[j] = j < m ? static_cast<double>(in[i + j]) : 0.0;
    F(buf, buf);
    for (int64_t j = 0; j < m; ++j) out[i + j] = static_cast<S>(buf[j]);
  }
}

}  // namespace
