// The double-precision pieces that AVX2's and AVX-512's float32-through-double kernels share (f32_via_f64.h
// over four lanes, avx512_math.h over eight): the log's mantissa/exponent split and atanh series, and
// erfinv's polynomials. Written once over GCC vector types so both widths evaluate the same expressions
// (the same roundings and FMA contractions) and give the same bits; each kernel file instantiates them with
// its own instruction-set flags.
#pragma once

namespace {

// x = 2^e m for finite x > 0 (a normal double), m in [sqrt(1/2), sqrt(2)]: returns m, sets e. All in the
// integer bits: adding 2^52 - (sqrt(2)'s mantissa bits + 1) carries into the exponent field exactly where m
// would pass sqrt(2) (1.4142135623730951 stays), so that field is e's (+1023) and x's bits less it, plus
// 1.0's exponent, are m's (modulo 2^64). e comes out of the field by the 2^52 trick (AVX2 has no int64 ->
// double conversion). Unsigned, so the shift is the logical one AVX2 has (x > 0: the same as the signed one,
// which AVX2 emulates in four instructions); this replaced a compare and two selects, the same m and e.
template <typename V>
static inline V log_split_d(V x, V& e) {
  typedef unsigned long long VL __attribute__((vector_size(sizeof(V))));
  VL b;
  __builtin_memcpy(&b, &x, sizeof(V));
  const VL t = b + 0x00095f619980c432ULL;
  const VL mb = b - (t & 0xfff0000000000000ULL) + 0x3ff0000000000000ULL;
  const VL eb = (t >> 52) | 0x4330000000000000ULL;
  V m;
  __builtin_memcpy(&m, &mb, sizeof(V));
  __builtin_memcpy(&e, &eb, sizeof(V));
  e = e - (4503599627370496.0 + 1023.0);
  return m;
}

// log m by the atanh series to s^(2K-1), s = (m - 1) / (m + 1), |s| <= 0.1716: truncation s^2K / (2K + 1)
// relative (5e-11 for K = 6, 3e-14 for K = 8); m - 1 is exact, so the result is accurate relative to itself
// near m = 1 too
template <int K, typename V>
static inline V log_m_series_d(V m) {
  const V s = (m - 1.0) / (m + 1.0), s2 = s * s;
  V p = s2 * (1.0 / (2 * K - 1)) + 1.0 / (2 * K - 3);
  for (int j = K - 3; j >= 0; --j) p = p * s2 + 1.0 / (2 * j + 1);
  return 2.0 * s * p;
}

// erfinv(a) / a for |a| <= 0.95 without a log: P(t) / Q(t) in t = a^2 (exact in double for a float a),
// degrees 7 and 5, fitted to mpmath's erfinv on [0, 0.9025] by weighted least squares iterated toward minimax
// (scripts/fit_erfinv32.py --rational: relative error 3.3e-11 evaluated in double; Q falls to 1.1e-3 at the
// edge from terms up to 5, which costs ~3e-12 more). PyTorch's float32 path takes a rational in a^2 there too
// (to float accuracy); the log and the degree-12 polynomial in w cost twice the operations.
template <typename V>
static inline V erfinv_rational_d(V t) {
  V p = V{} + -0.00024893940181973753;
  p = p * t + -0.00214868124899199;
  p = p * t + -0.05822384507940783;
  p = p * t + 0.7179095466665641;
  p = p * t + -2.5794972372722245;
  p = p * t + 4.131565209935291;
  p = p * t + -3.0955288858525067;
  p = p * t + 0.8862269254791312;
  V q = V{} + -0.17304144428859058;
  q = q * t + 1.3348219700610104;
  q = q * t + -3.9080537828846538;
  q = q * t + 5.501026191750695;
  q = q * t + -3.754729689216932;
  q = q * t + 1.0;
  return p / q;
}

// erfinv(a) = a P(w), w = -log((1 - a)(1 + a)): P in t1 = w - 2.5 below w = 5 and in t2 = sqrt(w) - 3 above
// (Giles' variables), degree 12, fitted by least squares against mpmath (relative error 4e-11 and 2e-10)
template <typename V>
static inline V erfinv_central_d(V t1) {
  V p1 = V{} + -2.053025355787872e-11;
  p1 = p1 * t1 + 1.2294079399467425e-10;
  p1 = p1 * t1 + 8.200569754123287e-10;
  p1 = p1 * t1 + -1.085287587557611e-08;
  p1 = p1 * t1 + 1.3780551779990667e-08;
  p1 = p1 * t1 + 4.78635261161992e-07;
  p1 = p1 * t1 + -3.4174044819073253e-06;
  p1 = p1 * t1 + -4.9958551026008435e-06;
  p1 = p1 * t1 + 0.0002182510743121808;
  p1 = p1 * t1 + -0.001252708113322558;
  p1 = p1 * t1 + -0.004177318038629947;
  p1 = p1 * t1 + 0.24664027679468054;
  p1 = p1 * t1 + 1.5014093511307323;
  return p1;
}
template <typename V>
static inline V erfinv_tail_d(V t2) {
  V p2 = V{} + 9.091499113020634e-06;
  p2 = p2 * t2 + -2.4376067715498453e-05;
  p2 = p2 * t2 + -2.8147922349310755e-05;
  p2 = p2 * t2 + 0.0002003369412678814;
  p2 = p2 * t2 + -0.00029424151291118514;
  p2 = p2 * t2 + -0.0001444531095792095;
  p2 = p2 * t2 + 0.001487042504428516;
  p2 = p2 * t2 + -0.0035601343460309825;
  p2 = p2 * t2 + 0.005684711745645205;
  p2 = p2 * t2 + -0.007643650592388768;
  p2 = p2 * t2 + 0.009445548314586773;
  p2 = p2 * t2 + 1.0016752718575226;
  p2 = p2 * t2 + 2.8329767984699674;
  return p2;
}

// erfinv(a) / a for w = -log((1 - a)(1 + a)) in [16, 38] (1 - a from 5.6e-8 down to 2^-53: only float64
// reaches it) in t3 = sqrt(w) - 5, degree 8, fitted as the two above (scripts/fit_erfinv32.py --far:
// relative error 2.6e-10); the float64 kernel's start (avx2_math.h's erfinv_avx2_f64)
template <typename V>
static inline V erfinv_far_d(V t3) {
  V p3 = V{} + 2.7605589539687854e-07;
  p3 = p3 * t3 + -1.2286395930768576e-06;
  p3 = p3 * t3 + 4.544321190181095e-06;
  p3 = p3 * t3 + -1.947104706838134e-05;
  p3 = p3 * t3 + 7.595846249323012e-05;
  p3 = p3 * t3 + -0.00021509706211405934;
  p3 = p3 * t3 + -0.00013870968427523182;
  p3 = p3 * t3 + 1.0103004705883405;
  p3 = p3 * t3 + 4.849906401084339;
  return p3;
}

// float64 erfinv's Newton step without an exp (avx2_math.h's erfinv_avx2_f64_k): 1 / erf'(x) at the root
// x = erfinv(a) is Q(w) / m, m = (1 - a)(1 + a) = exp(-w), Q(w) = sqrt(pi)/2 exp(x^2 - w); Q by degree 9 in
// the start's variables, fitted by scripts/fit_erfinv64_step.py. Q's relative error e moves the step's result
// by e times the start's (3e-10): under 1e-17 here. w < 5 in t1 = w - 2.5 (relative error 1.5e-9)
template <typename V>
static inline V erfinv_step_central_d(V t1) {
  V q = V{} + -5.583704981499256e-10;
  q = q * t1 + 5.23810138204452e-09;
  q = q * t1 + -6.061335177485362e-08;
  q = q * t1 + 1.1575485295490562e-06;
  q = q * t1 + -1.7705138910903838e-05;
  q = q * t1 + 0.00020041824424102444;
  q = q * t1 + -0.0017577420709429547;
  q = q * t1 + 0.012516901790173196;
  q = q * t1 + -0.07784447434596233;
  q = q * t1 + 0.5760328050752763;
  return q;
}
// 5 <= w < 16 in t2 = sqrt(w) - 3 (7.5e-9)
template <typename V>
static inline V erfinv_step_tail_d(V t2) {
  V q = V{} + 4.505486504715299e-06;
  q = q * t2 + -4.793156235868103e-05;
  q = q * t2 + 0.00016225828305927432;
  q = q * t2 + -0.0002604072879096147;
  q = q * t2 + -2.0135742108338263e-06;
  q = q * t2 + 0.0017108117661763815;
  q = q * t2 + -0.008457091535973998;
  q = q * t2 + 0.03177752046311904;
  q = q * t2 + -0.10671410851515568;
  q = q * t2 + 0.33420017172729216;
  return q;
}
// w >= 16 in t3 = sqrt(w) - 5 (4.7e-11)
template <typename V>
static inline V erfinv_step_far_d(V t3) {
  V q = V{} + -2.6957938140269482e-08;
  q = q * t3 + 2.344439157367766e-07;
  q = q * t3 + -1.50310371360633e-06;
  q = q * t3 + 9.044280980064535e-06;
  q = q * t3 + -5.19506819461038e-05;
  q = q * t3 + 0.00028676085849946276;
  q = q * t3 + -0.0015321106994191304;
  q = q * t3 + 0.007964486056461342;
  q = q * t3 + -0.040467506894164076;
  q = q * t3 + 0.20206009304101133;
  return q;
}

// atan t for t in [0, 1] in double (float32 atan and atan2 through double, f32_via_f64.h; AVX-512's atan2):
// above tan(pi/12) u = (t sqrt3 - 1) / (t + sqrt3) (atan t = pi/6 + atan u), |u| <= tan(pi/12), and atan u =
// u + u z P(z), z = u^2 <= 0.072, by its Taylor series to u^17 (truncation 3e-12 relative). NaN stays NaN.
template <typename V>
static inline V atan_01_d(V t) {
  const auto shifted = t > 0.2679491924311227;
  const V u = shifted ? (t * 1.7320508075688772 - 1.0) / (t + 1.7320508075688772) : t;
  const V z = u * u;
  V p = V{} + 1.0 / 17;
  p = p * z - 1.0 / 15;
  p = p * z + 1.0 / 13;
  p = p * z - 1.0 / 11;
  p = p * z + 1.0 / 9;
  p = p * z - 1.0 / 7;
  p = p * z + 1.0 / 5;
  p = p * z - 1.0 / 3;
  const V r = u + u * z * p;
  return shifted ? 0.5235987755982988 + r : r;
}

// float32 atan2(y, x) in double (y, x float values): a = atan(min / max) of |y| and |x| in [0, pi/4]
// (atan_01_d), pi/2 - a where |y| > |x|, pi - that where x is negative (-0 included), y's sign ORed in. C99's
// special values fall out of it once 0/0 is taken as 0 and inf/inf as 1 (atan2(+-0, -0) = +-pi, atan2(+-inf,
// -inf) = +-3pi/4, ...); a NaN operand gives NaN. Rounded to float once by the caller.
// VL: the vector of long longs of V's width (the caller's typedef: GCC 12 crashes on one declared here)
template <typename V, typename VL>
static inline V atan2_d(V y, V x) {
  auto bits = [](V v) {
    VL b;
    __builtin_memcpy(&b, &v, sizeof(V));
    return b;
  };
  auto value = [](VL b) {
    V v;
    __builtin_memcpy(&v, &b, sizeof(V));
    return v;
  };
  const VL sign = VL{} + static_cast<long long>(0x8000000000000000ULL);
  const V ay = value(bits(y) & ~sign), ax = value(bits(x) & ~sign);
  const auto swap = ay > ax;
  const V mx = swap ? ay : ax, mn = swap ? ax : ay;
  const double inf = __builtin_inf();
  V q = mn / mx;
  q = mx == 0.0 ? 0.0 : q;
  q = mn == inf ? 1.0 : q;  // both infinite
  V a = atan_01_d(q);
  a = swap ? 1.5707963267948966 - a : a;
  a = (bits(x) & sign) != 0 ? 3.141592653589793 - a : a;
  a = value(bits(a) | (bits(y) & sign));
  return (y != y) | (x != x) ? y + x : a;
}

}  // namespace
