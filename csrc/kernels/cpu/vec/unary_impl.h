// The vectorized unary loops, written once over GCC vector types; included by one file per instruction set,
// which defines VF/VD (float/double vectors), NF/ND (lanes) and SLEEF_F/SLEEF_D (the SLEEF function names).
// Everything here has internal linkage: these bodies are compiled for AVX and must never serve baseline code.
#include "kernels/cpu/VecUnary.h"

namespace {

// SLEEF's log1p returns inf above about 1e38 (float) / 1e307 (double), where log1p(x) == log(x): scale x by
// 2^-64 and add 64 ln 2 back (one more rounding, still within 1 ulp). It and tan also return 0 for the
// smallest subnormals, where the function is x itself.
template <typename V, typename S>
static V tiny_is_x(V x, V r, S tiny) {
  return (x > -tiny) & (x < tiny) ? x : r;
}
static VF log1p_wide(VF x) {
  const VF r = SLEEF_F(log1p)(x > 1e38f ? x * 5.42101086e-20f : x);
  return tiny_is_x(x, x > 1e38f ? r + 44.3614195558365f : r, 1e-30f);
}
static VD log1p_wide(VD x) {
  const VD r = SLEEF_D(log1p)(x > 1e300 ? x * 5.42101086242752217e-20 : x);
  return tiny_is_x(x, x > 1e300 ? r + 44.361419555836499802 : r, 1e-300);
}
static VF tan_tiny(VF x) {
  return tiny_is_x(x, SLEEF_F(tan)(x), 1e-30f);
}
static VD tan_tiny(VD x) {
  return tiny_is_x(x, SLEEF_D(tan)(x), 1e-300);
}

// float tanh: SLEEF's tanhf costs ~4x its expf. Cephes' tanhf instead: an odd polynomial below 0.625, above
// it 1 - 2 / (exp(2|x|) + 1) with SLEEF's expf (inf for large |x| gives exactly 1; NaN flows through exp).
static VF tanh_fast(VF x) {
  const VF ax = x < 0.0f ? -x : x;
  const VF z = x * x;
  VF p = -5.70498872745e-3f * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  p = z == 0.0f ? x : p * z * x + x;  // keeps -0
  VF r = 1.0f - 2.0f / (SLEEF_F(exp)(ax + ax) + 1.0f);
  r = x < 0.0f ? -r : r;
  return ax < 0.625f ? p : r;
}
static VD tanh_fast(VD x) {
  return SLEEF_D(tanh)(x);
}

// float gelu: SLEEF's erff costs ~18x its expf. PyTorch's vectorized float erf (Abramowitz-Stegun 7.1.26,
// absolute error 1.5e-7, over expf) serves gelu only, where an absolute error is what matters; erf itself
// stays SLEEF's (1 ulp).
static VF gelu_fast(VF x) {
  const VF h = x * 0.70710678118654752440f;
  const VF ah = h < 0.0f ? -h : h;
  const VF t = 1.0f / (0.3275911f * ah + 1.0f);
  VF r = 1.061405429f * t - 1.453152027f;
  r = r * t + 1.421413741f;
  r = r * t - 0.284496736f;
  r = r * t + 0.254829592f;
  VF e = 1.0f - r * t * SLEEF_F(exp)(-h * h);
  e = h < 0.0f ? -e : e;
  return x * 0.5f * (1.0f + e);
}
static VD gelu_fast(VD x) {
  return x * 0.5 * (1.0 + SLEEF_D(erf)(x * 0.70710678118654752440));
}

// Formulas as in kernels/functors.h, so results agree with the scalar path up to the math functions' ulps.
#define MT_VEC_DEFINE(V, S, SL)                                                                         \
  struct Ops_##S {                                                                                      \
    static V exp(V x) { return SL(exp)(x); }                                                            \
    static V exp2(V x) { return SL(exp2)(x); }                                                          \
    static V expm1(V x) { return SL(expm1)(x); }                                                        \
    static V log(V x) { return SL(log)(x); }                                                            \
    static V log2(V x) { return SL(log2)(x); }                                                          \
    static V log10(V x) { return SL(log10)(x); }                                                        \
    static V log1p(V x) { return log1p_wide(x); }                                                       \
    static V sin(V x) { return SL(sin)(x); }                                                            \
    static V cos(V x) { return SL(cos)(x); }                                                            \
    static V tan(V x) { return tan_tiny(x); }                                                           \
    static V asin(V x) { return SL(asin)(x); }                                                          \
    static V acos(V x) { return SL(acos)(x); }                                                          \
    static V atan(V x) { return SL(atan)(x); }                                                          \
    static V sinh(V x) { return SL(sinh)(x); }                                                          \
    static V cosh(V x) { return SL(cosh)(x); }                                                          \
    static V tanh(V x) { return tanh_fast(x); }                                                         \
    static V erf(V x) { return SL(erf)(x); }                                                            \
    static V sigmoid(V x) { return S(1) / (S(1) + SL(exp)(-x)); }                                       \
    static V gelu(V x) { return gelu_fast(x); }                                                         \
    static V gelu_tanh(V x) {                                                                           \
      return S(0.5) * x * (S(1) + SL(tanh)(S(0.79788456080286535588) * (x + S(0.044715) * x * x * x))); \
    }                                                                                                   \
    static V silu(V x) { return x / (S(1) + SL(exp)(-x)); }                                             \
    static V mish(V x) {                                                                                \
      V sp = SL(log1p)(SL(exp)(x));                                                                     \
      return x * SL(tanh)(x > S(20) ? x : sp);                                                          \
    }                                                                                                   \
  };

MT_VEC_DEFINE(VF, float, SLEEF_F)
MT_VEC_DEFINE(VD, double, SLEEF_D)
#undef MT_VEC_DEFINE

// Whole vectors, then the tail through a padded vector, so every element takes the same path (results do not
// depend on an element's position or on the thread split).
template <typename V, typename S, int N, V (*F)(V)>
void loop(S* out, const S* in, int64_t n) {
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    V x;
    __builtin_memcpy(&x, in + i, sizeof(V));
    V y = F(x);
    __builtin_memcpy(out + i, &y, sizeof(V));
  }
  if (i < n) {
    S buf[N] = {};
    for (int64_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    V x;
    __builtin_memcpy(&x, buf, sizeof(V));
    V y = F(x);
    __builtin_memcpy(buf, &y, sizeof(V));
    for (int64_t j = 0; j < n - i; ++j) out[i + j] = buf[j];
  }
}

}  // namespace

namespace mt {
namespace vec {

void MT_VEC_FILL(Table& t) {
#define MT_VEC_SET(name)                                                     \
  t.f32[static_cast<int>(Fn::name)] = &loop<VF, float, NF, Ops_float::name>; \
  t.f64[static_cast<int>(Fn::name)] = &loop<VD, double, ND, Ops_double::name>;
  MT_VEC_UNARY_FNS(MT_VEC_SET)
#undef MT_VEC_SET
  // SLEEF's float sinh/cosh overflow from |x| > 88.5 although the result is finite up to 89.4: the scalar
  // functors serve float32 (and half) there
  t.f32[static_cast<int>(Fn::sinh)] = nullptr;
  t.f32[static_cast<int>(Fn::cosh)] = nullptr;
}

}  // namespace vec
}  // namespace mt
