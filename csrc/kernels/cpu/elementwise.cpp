// CPU kernels for the elementwise table: each op's functor instantiated per dtype over the shared loops.
#include "ops/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "core/ScalarType.h"
#include "kernels/RuleDispatch.h"
#include "kernels/cpu/Complex.h"
#include "kernels/cpu/Loops.h"
#include "kernels/cpu/VecExp.h"
#include "kernels/cpu/VecUnary.h"
#include "kernels/cpu/vec/bessel_i_lanes.h"   // i0, i0e, i1, i1e in double lanes, for the baseline
#include "kernels/cpu/vec/bessel_rows.h"      // special.bessel_j0/j1/y0/y1 and the K rows, AVX2 lanes
#include "kernels/cpu/vec/erf_f32_lanes.h"    // float32 erf in SSE2 lanes, for the baseline
#include "kernels/cpu/vec/erfinv_lanes.h"     // float32 erfinv in SSE2 lanes, for the baseline
#include "kernels/cpu/vec/fmod_lanes.h"       // fmod and remainder in double lanes, for the baseline
#include "kernels/cpu/vec/poly_rows.h"        // special's orthogonal polynomials, AVX2 lanes
#include "kernels/cpu/vec/polygamma_lanes.h"  // polygamma's rows in SSE2 lanes, for the baseline
#include "kernels/cpu/vec/trigamma_lanes.h"   // float32 trigamma in SSE2 lanes, for the baseline
#ifdef MT_LOOPS_AVX2
#include "kernels/cpu/vec/shift16_avx2.h"  // int16 shifts by a per-element amount, AVX2 lanes
#endif
#include "kernels/functors.h"
#include "ops/Dispatch.h"
#include "ops/kernels.h"

namespace mt {
namespace {

// out[i] = pred(i) for a predicate of doubles, at the baseline: GCC 12 vectorizes no double compare stored
// to a bool at SSE2 (the 8-byte mask has no vector type to narrow to a byte: "no vectype for stmt"), so eq,
// logical_or, isnan of float64 ran a setcc or a branch per element (logical_or 0.42 of PyTorch's speed). Both
// halves of a block vectorize: the predicate into floats 1 or 0 (a double mask narrowed to a float select),
// then float to byte. The AVX2 copy of Loops.h's dense loops vectorizes the one-pass form and keeps it.
template <typename Pred>
__attribute__((always_inline)) inline void bools_by_blocks(uint8_t* out, int64_t n, Pred pred) {
  constexpr int64_t kB = 256;
  float t[kB];
  for (int64_t s = 0; s < n; s += kB) {
    const int64_t m = std::min(kB, n - s);
    for (int64_t i = 0; i < m; ++i) t[i] = pred(s + i) ? 1.0f : 0.0f;
    for (int64_t i = 0; i < m; ++i) out[s + i] = static_cast<uint8_t>(static_cast<int32_t>(t[i]));
  }
}
template <typename out_t, typename in_t>
constexpr bool kBoolOfDouble = std::is_same_v<out_t, bool> && std::is_same_v<in_t, double>;

// A float64 predicate's dense runs through bools_by_blocks where the baseline loops run (no vector table);
// the rest (strided runs, the AVX2 copy) through cpu_unary_loop
template <typename F>
void bools_of_double_unary(const TensorIter& it, F f) {
  if (vec::unary_table()) return cpu_unary_loop<bool, double>(it, f);
  it.for_each([&](char** d, const int64_t* st, int64_t n) {
    const F fn = f;
    const double* a = reinterpret_cast<const double*>(d[1]);
    if (st[0] == 1 && st[1] == sizeof(double))
      return bools_by_blocks(reinterpret_cast<uint8_t*>(d[0]), n, [=](int64_t i) { return fn(a[i]); });
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<bool*>(d[0] + i * st[0]) = fn(*reinterpret_cast<const double*>(d[1] + i * st[1]));
  });
}
// the same for two operands: both dense, or one of them a broadcast value (a number), over whole rows
template <typename F>
void bools_of_double_binary(const TensorIter& it, F f) {
  if (vec::unary_table()) return cpu_binary_loop<bool, double>(it, f);
  it.for_each_rows([&](char** d, const int64_t* st, int64_t n, int64_t rows, const int64_t* rs) {
    const F fn = f;
    const int64_t sa = st[1] == sizeof(double) ? 1 : 0, sb = st[2] == sizeof(double) ? 1 : 0;
    const bool dense = st[0] == 1 && (sa || st[1] == 0) && (sb || st[2] == 0) && (sa || sb);
    for (int64_t r = 0; r < rows; ++r) {
      char* const o = d[0] + r * rs[0];
      const char* const pa = d[1] + r * rs[1];
      const char* const pb = d[2] + r * rs[2];
      const double* a = reinterpret_cast<const double*>(pa);
      const double* b = reinterpret_cast<const double*>(pb);
      uint8_t* out = reinterpret_cast<uint8_t*>(o);
      if (dense && sa && sb) {
        bools_by_blocks(out, n, [=](int64_t i) { return fn(a[i], b[i]); });
      } else if (dense && sa) {
        bools_by_blocks(out, n, [=, bv = *b](int64_t i) { return fn(a[i], bv); });
      } else if (dense) {
        bools_by_blocks(out, n, [=, av = *a](int64_t i) { return fn(av, b[i]); });
      } else {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<bool*>(o + i * st[0]) = fn(*reinterpret_cast<const double*>(pa + i * st[1]),
                                                       *reinterpret_cast<const double*>(pb + i * st[2]));
      }
    }
  });
}

template <OpRule R, typename F>
void run_unary(const TensorIter& it, F f) {
  dispatch_unary_rule<R>(it, "unary", [&](auto out, auto in) {
    using out_t = typename decltype(out)::type;
    using in_t = typename decltype(in)::type;
    if constexpr (kBoolOfDouble<out_t, in_t>)
      bools_of_double_unary(it, f);
    else
      cpu_unary_loop<out_t, in_t>(it, f);
  });
}

// The dense float32 exp: AVX2+FMA intrinsics where the CPU has them (checked once; the wheel targets baseline
// x86-64; measured 5x faster than the auto-vectorized VecExpF loop even when cloned for haswell).
#ifdef MT_HAVE_AVX2_EXP
const bool kExpAvx2 = cpu_has_avx2_fma();

MT_AVX2 void exp_f32_avx2(float* out, const float* in, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, exp256(_mm256_loadu_ps(in + i)));
  VecExpF f;
  for (; i < n; ++i) out[i] = f(in[i]);
}
#endif

void exp_f32_dense(float* out, const float* in, int64_t n) {
#ifdef MT_HAVE_AVX2_EXP
  if (kExpAvx2) return exp_f32_avx2(out, in, n);
#endif
  VecExpF f;
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
}

// The vectorized loop for `op` in the CPU's table, or nullptr (old CPU, op without one).
vec::Fn vec_fn(UnaryOp op) {
  switch (op) {
#define MT_VEC_MAP(name) \
  case UnaryOp::name:    \
    return vec::Fn::name;
    MT_VEC_UNARY_FNS(MT_VEC_MAP)
#undef MT_VEC_MAP
    // torch.special's names of i0 and i1: the same functors (I0, SpecialI1), so the same rows
    case UnaryOp::_special_modified_bessel_i0:
      return vec::Fn::i0;
    case UnaryOp::_special_modified_bessel_i1:
      return vec::Fn::_special_i1;
    default:
      return vec::Fn::kCount;
  }
}

// Runs a dense float/double loop over any layout and dtype: dense runs of the loop's own type go straight
// in; strided runs and half/bfloat16 go through a float buffer of kBlock elements (opmath, as PyTorch), so
// every layout gives the same values.
template <typename scalar_t, typename loop_t>
void run_vec(const TensorIter& it, loop_t loop, int64_t grain = kGrainSize) {
  using op_t = opmath_t<scalar_t>;
  constexpr int64_t kBlock = 256;
  auto body = [&](char** d, const int64_t* st, int64_t n) {
    if constexpr (std::is_same<scalar_t, op_t>::value) {
      if (st[0] == sizeof(scalar_t) && st[1] == sizeof(scalar_t))
        return loop(reinterpret_cast<op_t*>(d[0]), reinterpret_cast<const op_t*>(d[1]), n);
    }
    op_t buf[kBlock];
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      for (int64_t i = 0; i < m; ++i)
        buf[i] = static_cast<op_t>(*reinterpret_cast<const scalar_t*>(d[1] + (b + i) * st[1]));
      loop(buf, buf, m);
      for (int64_t i = 0; i < m; ++i)
        *reinterpret_cast<scalar_t*>(d[0] + (b + i) * st[0]) = static_cast<scalar_t>(buf[i]);
    }
  };
  it.for_each(body, grain);
}

// Elements below which a vectorized op stays on one thread. PyTorch splits its VML/SLEEF ops (exp, log, sin,
// tanh, erf, expm1, log1p...) from 2048 elements: a 100x100 float64 tanh runs in half the time on two cores.
// Where our loop costs under ~0.5 ns per element (float32 exp/log/tanh/erf/sin/cos and the sigmoid family on
// AVX-512; float64 exp and the sigmoid family) a 2048-element chunk does not pay for the hand-off to a second
// thread.
int64_t vec_grain(vec::Fn f, bool f64) {
  switch (f) {
    case vec::Fn::exp:
    case vec::Fn::sigmoid:
    case vec::Fn::silu:
      return f64 ? 16384 : kGrainSize;
    case vec::Fn::hardsigmoid:  // a few operations per element: memory bound
    case vec::Fn::hardswish:
      return kGrainSize;
    case vec::Fn::exp2:
    case vec::Fn::log:
    case vec::Fn::tanh:
    case vec::Fn::erf:
    case vec::Fn::gelu:
    case vec::Fn::gelu_tanh:
    case vec::Fn::sin:
    case vec::Fn::cos:
      return f64 ? 2048 : kGrainSize;
    default:
      return 2048;
  }
}

// run_vec for a binary op: out, a, b of one dtype; a dense or stride-0 operand of the loop's own type goes
// straight in, anything else through float buffers (a stride-0 one as one value, so the loop sees the same
// broadcast on every path).
template <typename scalar_t, typename loop_t>
void run_vec2(const TensorIter& it, loop_t loop) {
  using op_t = opmath_t<scalar_t>;
  constexpr int64_t kBlock = 256;
  constexpr int64_t kSize = sizeof(scalar_t);
  it.for_each([&](char** d, const int64_t* st, int64_t n) {
    if constexpr (std::is_same<scalar_t, op_t>::value) {
      if (st[0] == kSize && (st[1] == kSize || st[1] == 0) && (st[2] == kSize || st[2] == 0))
        return loop(reinterpret_cast<op_t*>(d[0]), reinterpret_cast<const op_t*>(d[1]), st[1] ? 1 : 0,
                    reinterpret_cast<const op_t*>(d[2]), st[2] ? 1 : 0, n);
    }
    op_t bo[kBlock], ba[kBlock], bb[kBlock];
    auto fill = [&](op_t* buf, int k, int64_t b, int64_t m) {
      const int64_t len = st[k] == 0 ? 1 : m;
      for (int64_t i = 0; i < len; ++i)
        buf[i] = static_cast<op_t>(*reinterpret_cast<const scalar_t*>(d[k] + (b + i) * st[k]));
    };
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      fill(ba, 1, b, m);
      fill(bb, 2, b, m);
      loop(bo, ba, st[1] ? 1 : 0, bb, st[2] ? 1 : 0, m);
      for (int64_t i = 0; i < m; ++i)
        *reinterpret_cast<scalar_t*>(d[0] + (b + i) * st[0]) = static_cast<scalar_t>(bo[i]);
    }
  });
}

// The dtypes the vector rows serve: body(TypeTag<T>{}) for T = double, float, Half or BFloat16 (float32's row
// serves half and bfloat16 through float buffers: run_vec, run_vec2); false for any other dtype.
template <typename Body>
bool dispatch_row_dtype(ScalarType dt, const Body& body) {
  switch (dt) {
    case ScalarType::Double:
      body(TypeTag<double>{});
      return true;
    case ScalarType::Float:
      body(TypeTag<float>{});
      return true;
    case ScalarType::Half:
      body(TypeTag<Half>{});
      return true;
    case ScalarType::BFloat16:
      body(TypeTag<BFloat16>{});
      return true;
    default:
      return false;
  }
}
// The row for storage type T: the float64 one for double, the float32 one for the others
template <typename T, typename D, typename F>
decltype(auto) row_for(const D& f64, const F& f32) {
  if constexpr (std::is_same_v<T, double>) {
    return f64;
  } else {
    return f32;
  }
}

// A binary op with a row loop in the CPU's table (pow, atan2, fmod, remainder, logaddexp): all three operands
// of the loop's dtype (half and bfloat16 through float buffers, as run_vec2); false where the table has none
// (integers, old CPU, a row the path lacks).
bool row2_vectorized(const TensorIter& it, vec::PowF f32, vec::PowD f64) {
  const ScalarType dt = it.dtypes[0];
  if (it.dtypes[1] != dt || it.dtypes[2] != dt) return false;
  if (dt == ScalarType::Double ? !f64 : !f32) return false;
  return dispatch_row_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_vec2<T>(it, row_for<T>(f64, f32));
  });
}

// softplus through the table's loop, as unary_vectorized; beta and threshold in the compute type, as the
// functor takes them.
bool softplus_vectorized(const TensorIter& it, double beta, double threshold) {
  const vec::Table* t = vec::unary_table();
  if (!t) return false;
  if (it.dtypes[0] == ScalarType::Double ? !t->softplus_f64 : !t->softplus_f32) return false;
  auto f32 = [&](float* o, const float* x, int64_t n) {
    t->softplus_f32(o, x, n, static_cast<float>(beta), static_cast<float>(threshold));
  };
  auto f64 = [&](double* o, const double* x, int64_t n) { t->softplus_f64(o, x, n, beta, threshold); };
  return dispatch_row_dtype(it.dtypes[0], [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_vec<T>(it, row_for<T>(f64, f32));
  });
}

// elu through the table's expm1 loop, a block at a time: the scaled inputs' expm1 into a buffer, then one
// select per element (fn::Elu's formula, its parameters in the compute type). A block without a negative
// element skips the expm1, as PyTorch's vectorized kernel does per vector.
template <typename T>
void elu_row(void (*expm1)(T*, const T*, int64_t), T* o, const T* x, int64_t n, T neg, T pos, T is) {
  constexpr int64_t kBlock = 256;
  T buf[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    const T* xb = x + b;
    T* ob = o + b;
    // the OR of the sign bits (an integer reduction, which vectorizes; -0.0 and a negative NaN take the
    // expm1 too, harmlessly)
    if (ob != xb) {  // (written first, then kept where no sign bit is set)
      if (!(scale_or_bits(ob, xb, m, pos) >> (8 * sizeof(T) - 1))) continue;
    } else if (!(or_bits(xb, m) >> (8 * sizeof(T) - 1))) {
      dense_for(m, [=](int64_t i) { ob[i] = xb[i] * pos; });
      continue;
    }
    dense_for(m, [=, &buf](int64_t i) { buf[i] = xb[i] * is; });
    expm1(buf, buf, m);
    dense_for(m, [=, &buf](int64_t i) { ob[i] = xb[i] < T(0) ? buf[i] * neg : xb[i] * pos; });
  }
}

bool elu_vectorized(const TensorIter& it, double negcoef, double poscoef, double input_scale) {
  const vec::Table* t = vec::unary_table();
  if (!t) return false;
  const int k = static_cast<int>(vec::Fn::expm1);
  const ScalarType dt = it.dtypes[0];
  if (dt == ScalarType::Double ? !t->f64[k] : !t->f32[k]) return false;
  auto f64 = [&](double* o, const double* x, int64_t n) {
    elu_row<double>(t->f64[k], o, x, n, negcoef, poscoef, input_scale);
  };
  auto f32 = [&](float* o, const float* x, int64_t n) {
    elu_row<float>(t->f32[k], o, x, n, static_cast<float>(negcoef), static_cast<float>(poscoef),
                   static_cast<float>(input_scale));
  };
  return dispatch_row_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_vec<T>(it, row_for<T>(f64, f32));
  });
}

// torch.logit of dense float rows: the clamped ratio, then the table's log row over it in place (PyTorch's
// vectorized log; a scalar std::log per element ran at a fifth of its speed on large inputs)
template <typename T>
void logit_row(void (*log)(T*, const T*, int64_t), T* o, const T* x, int64_t n, double eps) {
  const fn::LogitRatio r{eps};
  dense_for(n, [=](int64_t i) { o[i] = r(x[i]); });
  log(o, o, n);
}

bool logit_vectorized(const TensorIter& it, double eps) {
  const vec::Table* t = vec::unary_table();
  if (!t) return false;
  const int k = static_cast<int>(vec::Fn::log);
  const ScalarType dt = it.dtypes[0];
  if (dt == ScalarType::Double ? !t->f64[k] : !t->f32[k]) return false;
  auto f64 = [&](double* o, const double* x, int64_t n) { logit_row<double>(t->f64[k], o, x, n, eps); };
  auto f32 = [&](float* o, const float* x, int64_t n) { logit_row<float>(t->f32[k], o, x, n, eps); };
  return dispatch_row_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_vec<T>(it, row_for<T>(f64, f32));
  });
}

#ifdef MINITORCH_WITH_CPU_VEC
// special.bessel_j0/j1/y0/y1, modified_bessel_k0/k1, scaled_modified_bessel_k0/k1, spherical_bessel_j0 and
// airy_ai: vec/bessel_avx2.cpp's rows on both vector paths (AVX-512 too, as the i0/i1 rows' AVX2 lanes),
// where a vector path is in use
bool bessel_vectorized(const TensorIter& it, UnaryOp op) {
  // (n, flag, K or J/Y): flag is `scaled` for K, `second kind` for J/Y
  int n = 0;
  bool flag = false, k = true;
  switch (op) {
    case UnaryOp::_special_modified_bessel_k0:
      break;
    case UnaryOp::_special_modified_bessel_k1:
      n = 1;
      break;
    case UnaryOp::_special_scaled_modified_bessel_k0:
      flag = true;
      break;
    case UnaryOp::_special_scaled_modified_bessel_k1:
      n = 1;
      flag = true;
      break;
    case UnaryOp::_special_bessel_j0:
      k = false;
      break;
    case UnaryOp::_special_bessel_j1:
      n = 1;
      k = false;
      break;
    case UnaryOp::_special_bessel_y0:
      flag = true;
      k = false;
      break;
    case UnaryOp::_special_bessel_y1:
      n = 1;
      flag = true;
      k = false;
      break;
    case UnaryOp::_special_spherical_bessel_j0:
    case UnaryOp::_special_airy_ai: {
      const bool sj0 = op == UnaryOp::_special_spherical_bessel_j0;
      if (it.dtypes[0] == ScalarType::Double)
        run_vec<double>(it, sj0 ? vec::spherical_j0_row_f64() : vec::airy_ai_row_f64());
      else if (it.dtypes[0] == ScalarType::Float)
        run_vec<float>(it, sj0 ? vec::spherical_j0_row_f32() : vec::airy_ai_row_f32());
      else
        return false;
      return true;
    }
    default:
      return false;
  }
  const ScalarType dt = it.dtypes[0];
  if (dt == ScalarType::Double)
    run_vec<double>(it, k ? vec::bessel_k_row_f64(n, flag) : vec::bessel_jy_row_f64(n, flag));
  else if (dt == ScalarType::Float)
    run_vec<float>(it, k ? vec::bessel_k_row_f32(n, flag) : vec::bessel_jy_row_f32(n, flag));
  else
    return false;
  return true;
}
#endif

bool unary_vectorized(const TensorIter& it, UnaryOp op) {
  const vec::Table* t = vec::unary_table();
#ifdef MINITORCH_WITH_CPU_VEC
  if (t && bessel_vectorized(it, op)) return true;
#endif
  const vec::Fn f = vec_fn(op);
  if (!t || f == vec::Fn::kCount) return false;
  const int k = static_cast<int>(f);
  const ScalarType dt = it.dtypes[0];
  const int64_t grain = vec_grain(f, dt == ScalarType::Double);
  if (dt == ScalarType::Double ? !t->f64[k] : !t->f32[k]) return false;
  return dispatch_row_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_vec<T>(it, row_for<T>(t->f64[k], t->f32[k]), grain);
  });
}

// float32 erfinv without a table (MINITORCH_CPU_CAPABILITY=default, a CPU without AVX2): the vector rows'
// method in two SSE2 lanes (vec/erfinv_lanes.h, compiled here at the baseline), eight floats a step. Was the
// rational in two lanes with the sign, the select and every |x| > 0.95 (the functor's log path) element by
// element: 0.41-0.52 of PyTorch's float loop. Elsewhere (no SSE2) the functor.
void erfinv_row_f32_sse2(float* out, const float* in, int64_t n) {
#ifdef __SSE2__
  erfinv_sse2_row_f32(out, in, n);
#else
  for (int64_t i = 0; i < n; ++i) out[i] = fn::erfinv_of(in[i]);
#endif
}

// float32 erf and gelu without a table (MINITORCH_CPU_CAPABILITY=default, a CPU without AVX2):
// erf_f32_lanes.h in SSE2 lanes, two vectors a step (two independent chains; no FMA: 0.96 ulp), where the
// functor's erff per element ran at 0.09 (erf) and 0.03 (gelu) of PyTorch's speed. gelu is the functor's
// formula over it, x 0.5 (1 + erf(x sqrt(1/2))). Whole steps, then the tail through a padded one, so every
// element takes the same path.
typedef float V4f __attribute__((vector_size(16)));
typedef int V4i __attribute__((vector_size(16)));
inline V4f erf_v4f(V4f x) {
  return vec::erf_f32_lanes<V4f, V4i>(x, [](V4i m) { return ((m[0] | m[1]) | (m[2] | m[3])) != 0; });
}
inline V4f gelu_v4f(V4f x) {
  return x * 0.5f * (1.0f + erf_v4f(x * 0.70710678118654752440f));
}
template <V4f (*F)(V4f)>
void row_f32_lanes(float* out, const float* in, int64_t n) {
  auto step = [](float* o, const float* x) {
    V4f a, b;
    std::memcpy(&a, x, sizeof(a));
    std::memcpy(&b, x + 4, sizeof(b));
    a = F(a);
    b = F(b);
    std::memcpy(o, &a, sizeof(a));
    std::memcpy(o + 4, &b, sizeof(b));
  };
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) step(out + i, in + i);
  if (i < n) {
    float buf[8] = {};
    std::copy(in + i, in + n, buf);
    step(buf, buf);
    std::copy(buf, buf + (n - i), out + i);
  }
}
void erf_row_f32_lanes(float* out, const float* in, int64_t n) {
  row_f32_lanes<erf_v4f>(out, in, n);
}
// erf or gelu of float, half or bfloat16 (half and bfloat16 through float buffers, as unary_vectorized)
bool erf_gelu_baseline(const TensorIter& it, UnaryOp op) {
  if ((op != UnaryOp::erf && op != UnaryOp::gelu) || it.dtypes[1] != it.dtypes[0]) return false;
  const vec::LoopF row = op == UnaryOp::erf ? &erf_row_f32_lanes : &row_f32_lanes<gelu_v4f>;
  if (it.dtypes[0] == ScalarType::Double) return false;  // the functor's erf in double
  return dispatch_row_dtype(it.dtypes[0], [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, double>) run_vec<T>(it, row, 2048);
  });
}

// i0, i0e, i1, i1e without a table (MINITORCH_CPU_CAPABILITY=default, a CPU without AVX2): the functors'
// recurrences in double lanes (vec/bessel_i_lanes.h), the functors' bits for every dtype (float32 and half
// the double result rounded once, as the functor; half and bfloat16 through float buffers, as the functor's
// opmath)
bool bessel_i_baseline(const TensorIter& it, UnaryOp op) {
  int order = 0;
  bool scaled = false;
  switch (op) {
    case UnaryOp::i0:
    case UnaryOp::_special_modified_bessel_i0:
      break;
    case UnaryOp::_special_i0e:
      scaled = true;
      break;
    case UnaryOp::_special_i1:
    case UnaryOp::_special_modified_bessel_i1:
      order = 1;
      break;
    case UnaryOp::_special_i1e:
      order = 1;
      scaled = true;
      break;
    default:
      return false;
  }
  if (it.dtypes[1] != it.dtypes[0]) return false;  // integer input: the functor's loop
  auto f64 = [=](double* o, const double* x, int64_t n) {
    bessel_lanes::bessel_i_row(o, x, n, order, scaled);
  };
  auto f32 = [=](float* o, const float* x, int64_t n) { bessel_lanes::bessel_i_row(o, x, n, order, scaled); };
  return dispatch_row_dtype(it.dtypes[0], [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_vec<T>(it, row_for<T>(f64, f32), 2048);
  });
}

void unary_cpu(const TensorIter& it, UnaryOp op) {
  if (is_complex(it.dtypes[1])) return complex_unary_cpu(it, op);
  if (unary_vectorized(it, op)) return;
  if (!vec::unary_table() && bessel_i_baseline(it, op)) return;
  if (erf_gelu_baseline(it, op)) return;
  if (op == UnaryOp::erfinv && it.dtypes[0] == ScalarType::Float && it.dtypes[1] == ScalarType::Float) {
    run_vec<float>(it, &erfinv_row_f32_sse2, 2048);
    return;
  }
  if (op == UnaryOp::exp && it.dtypes[0] == ScalarType::Float) {
    if (it.is_contiguous()) {
      it.for_each([](char** d, const int64_t*, int64_t n) {
        exp_f32_dense(reinterpret_cast<float*>(d[0]), reinterpret_cast<const float*>(d[1]), n);
      });
    } else {
      cpu_unary_loop<float, float>(it, VecExpF{});
    }
    return;
  }
  switch (op) {
#define MT_CASE(name, F, kind)            \
  case UnaryOp::name:                     \
    run_unary<OpRule::kind>(it, fn::F{}); \
    break;
    MT_UNARY_OPS(MT_CASE)
#undef MT_CASE
  }
}

template <OpRule R, typename F>
void run_binary(const TensorIter& it, F f) {
  dispatch_binary_rule<R>(it, "binary", [&](auto out, auto in) {
    using out_t = typename decltype(out)::type;
    using in_t = typename decltype(in)::type;
    if constexpr (kBoolOfDouble<out_t, in_t>)
      bools_of_double_binary(it, f);
    else
      cpu_binary_loop<out_t, in_t>(it, f);
  });
}

#ifdef MINITORCH_WITH_CPU_VEC
// The functor's row: the lanes vec/poly_avx2.cpp leaves to it (the ends, Chebyshev's trigonometric form,
// orders past 64), compiled here at the baseline as the scalar loop's
template <typename F, typename T>
void poly_scalar_row(T* o, const T* x, int64_t sx, const T* n, int64_t sn, int64_t len) {
  const F f;
  for (int64_t i = 0; i < len; ++i) o[i] = f(x[i * sx], n[i * sn]);
}

// special's orthogonal polynomials through vec/poly_avx2.cpp's rows (the functor's bits), where a vector path
// is in use; x and n of the result's dtype (half and bfloat16 through float buffers, as the scalar loop's
// float)
bool poly_vectorized(const TensorIter& it, BinaryOp op) {
  vec::Poly p;
  vec::PolyScalarF sf;
  vec::PolyScalarD sd;
  switch (op) {
#define MT_POLY(name, P, F)               \
  case BinaryOp::name:                    \
    p = vec::Poly::P;                     \
    sf = &poly_scalar_row<fn::F, float>;  \
    sd = &poly_scalar_row<fn::F, double>; \
    break;
    MT_POLY(_special_chebyshev_polynomial_t, T, ChebyshevPolynomialT)
    MT_POLY(_special_chebyshev_polynomial_u, U, ChebyshevPolynomialU)
    MT_POLY(_special_chebyshev_polynomial_v, V, ChebyshevPolynomialV)
    MT_POLY(_special_chebyshev_polynomial_w, W, ChebyshevPolynomialW)
    MT_POLY(_special_shifted_chebyshev_polynomial_t, ShiftedT, ShiftedChebyshevPolynomialT)
    MT_POLY(_special_shifted_chebyshev_polynomial_u, ShiftedU, ShiftedChebyshevPolynomialU)
    MT_POLY(_special_shifted_chebyshev_polynomial_v, ShiftedV, ShiftedChebyshevPolynomialV)
    MT_POLY(_special_shifted_chebyshev_polynomial_w, ShiftedW, ShiftedChebyshevPolynomialW)
    MT_POLY(_special_hermite_polynomial_h, H, HermitePolynomialH)
    MT_POLY(_special_hermite_polynomial_he, He, HermitePolynomialHe)
    MT_POLY(_special_laguerre_polynomial_l, L, LaguerrePolynomialL)
    MT_POLY(_special_legendre_polynomial_p, P, LegendrePolynomialP)
#undef MT_POLY
    default:
      return false;
  }
  const ScalarType dt = it.dtypes[0];
  if (it.dtypes[1] != dt || it.dtypes[2] != dt) return false;
  auto f32 = [&](float* o, const float* x, int64_t sx, const float* n, int64_t sn, int64_t len) {
    vec::poly_row_f32(p, sf, o, x, sx, n, sn, len);
  };
  auto f64 = [&](double* o, const double* x, int64_t sx, const double* n, int64_t sn, int64_t len) {
    vec::poly_row_f64(p, sd, o, x, sx, n, sn, len);
  };
  return dispatch_row_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_vec2<T>(it, row_for<T>(f64, f32));
  });
}
#endif

// fmod and remainder without a table (MINITORCH_CPU_CAPABILITY=default, a CPU without AVX2):
// vec/fmod_lanes.h's exact lanes, where the functor's C fmod per element ran at 0.44 of PyTorch's DEFAULT
// loop. The same bits (C's fmod is exact; remainder adds the divisor as the functor does); half and bfloat16
// through float buffers.
bool fmod_baseline(const TensorIter& it, BinaryOp op) {
  if (op != BinaryOp::fmod && op != BinaryOp::remainder) return false;
  const ScalarType dt = it.dtypes[0];
  if (it.dtypes[1] != dt || it.dtypes[2] != dt) return false;
  const bool rem = op == BinaryOp::remainder;
  return dispatch_row_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_vec2<T>(it,
                row_for<T>(rem ? &fmod_lanes::fmod_row<double, true> : &fmod_lanes::fmod_row<double, false>,
                           rem ? &fmod_lanes::fmod_row<float, true> : &fmod_lanes::fmod_row<float, false>));
  });
}

#ifdef MT_LOOPS_AVX2
// int16 << and >> through vec/shift16_avx2.h's lanes where the AVX2 loops run: the functor's barrel shifter
// vectorized at 0.7-0.9 of PyTorch's widened vpsllvd. Rows with a strided operand take the functor per
// element, as cpu_binary_loop's strided rows.
bool shift16_avx2(const TensorIter& it, BinaryOp op) {
  const bool left = op == BinaryOp::bitwise_left_shift;
  if ((!left && op != BinaryOp::bitwise_right_shift) || !loops_use_avx2()) return false;
  for (int k = 0; k < 3; ++k)
    if (it.dtypes[k] != ScalarType::Short) return false;
  it.for_each_rows([&](char** d, const int64_t* st, int64_t n, int64_t rows, const int64_t* rs) {
    constexpr int64_t kSize = sizeof(int16_t);
    const bool lanes = st[0] == kSize && (st[1] == kSize || st[1] == 0) && (st[2] == kSize || st[2] == 0) &&
                       (st[1] != 0 || st[2] != 0);
    for (int64_t r = 0; r < rows; ++r) {
      char* const o = d[0] + r * rs[0];
      const char* const a = d[1] + r * rs[1];
      const char* const b = d[2] + r * rs[2];
      if (lanes) {
        auto* row = left ? &shift16::row<true> : &shift16::row<false>;
        row(reinterpret_cast<int16_t*>(o), reinterpret_cast<const int16_t*>(a), st[1] ? 1 : 0,
            reinterpret_cast<const int16_t*>(b), st[2] ? 1 : 0, n);
        continue;
      }
      for (int64_t i = 0; i < n; ++i) {
        const int16_t x = *reinterpret_cast<const int16_t*>(a + i * st[1]);
        const int16_t y = *reinterpret_cast<const int16_t*>(b + i * st[2]);
        *reinterpret_cast<int16_t*>(o + i * st[0]) = left ? fn::LeftShift{}(x, y) : fn::RightShift{}(x, y);
      }
    }
  });
  return true;
}
#endif

void binary_cpu(const TensorIter& it, BinaryOp op) {
  if (is_complex(it.dtypes[1])) return complex_binary_cpu(it, op);
  if (!vec::unary_table() && fmod_baseline(it, op)) return;
#ifdef MT_LOOPS_AVX2
  if (shift16_avx2(it, op)) return;
#endif
  if (const vec::Table* t = vec::unary_table()) {
#ifdef MINITORCH_WITH_CPU_VEC
    if (poly_vectorized(it, op)) return;
#endif
    if (op == BinaryOp::pow && row2_vectorized(it, t->pow_f32, t->pow_f64)) return;
    if (op == BinaryOp::atan2 && row2_vectorized(it, t->atan2_f32, t->atan2_f64)) return;
    if (op == BinaryOp::fmod && row2_vectorized(it, t->fmod_f32, t->fmod_f64)) return;
    if (op == BinaryOp::remainder && row2_vectorized(it, t->remainder_f32, t->remainder_f64)) return;
    if (op == BinaryOp::floor_divide && row2_vectorized(it, t->floor_divide_f32, t->floor_divide_f64)) return;
    if (op == BinaryOp::logaddexp && row2_vectorized(it, t->logaddexp_f32, t->logaddexp_f64)) return;
    if (op == BinaryOp::logaddexp2 && row2_vectorized(it, t->logaddexp2_f32, t->logaddexp2_f64)) return;
  }
  switch (op) {
#define MT_CASE(name, F, kind)             \
  case BinaryOp::name:                     \
    run_binary<OpRule::kind>(it, fn::F{}); \
    break;
    MT_BINARY_OPS(MT_CASE)
#undef MT_CASE
  }
}

// fn::Where as a bit select: the dense loops vectorize it, where `c ? a : b` on a loaded bool stays a branch
// per element, mispredicted half the time on a random mask.
struct WhereBits {
  template <typename T>
  T operator()(bool c, T a, T b) const {
    if constexpr (sizeof(T) > 8 || is_complex_v<T>) {  // (std::complex is not a bag of bits to memcpy)
      return c ? a : b;
    } else {
      using U =
          std::conditional_t<sizeof(T) == 1, uint8_t,
                             std::conditional_t<sizeof(T) == 2, uint16_t,
                                                std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
      U ua, ub;
      std::memcpy(&ua, &a, sizeof(T));
      std::memcpy(&ub, &b, sizeof(T));
      const U m = static_cast<U>(U(0) - static_cast<U>(c));
      const U r = static_cast<U>((ua & m) | (ub & static_cast<U>(~m)));
      T out;
      std::memcpy(&out, &r, sizeof(T));
      return out;
    }
  }
};

void where_cpu(const TensorIter& it) {
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(
      it.dtypes[0], "where", [&] { cpu_ternary_loop<scalar_t, bool, scalar_t, scalar_t>(it, WhereBits{}); });
}

void clamp_cpu(const TensorIter& it, bool has_min, bool has_max) {
  MT_DISPATCH_NUMERIC_TYPES(it.dtypes[0], "clamp", [&] {
    cpu_ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(it, fn::Clamp{has_min, has_max});
  });
}

// The number weight in the dtype's opmath (complex dtypes take a complex one).
template <typename W>
W lerp_weight(const Scalar& w) {
  if constexpr (std::is_same_v<W, std::complex<float>> || std::is_same_v<W, std::complex<double>>)
    return W(w.to_complex());
  else
    return static_cast<W>(w.to_double());
}

void lerp_cpu(const TensorIter& it, const Scalar* weight) {
  auto body = [&](auto tag) {
    using scalar_t = decltype(tag);
    if (weight)
      cpu_binary_loop<scalar_t, scalar_t>(
          it, fn::LerpScalar<opmath_t<scalar_t>>{lerp_weight<opmath_t<scalar_t>>(*weight)});
    else
      cpu_ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(it, fn::Lerp{});
  };
  switch (it.dtypes[0]) {
    MT_DISPATCH_FLOATING_CASES([&] { body(scalar_t{}); })
    MT_DISPATCH_COMPLEX_CASES([&] { body(scalar_t{}); })
    MT_DISPATCH_FAIL(it.dtypes[0], "lerp_kernel")
  }
}

// value in the dtype's opmath, as PyTorch's kernels take it (value.to<opmath_t>())
void addc_cpu(const TensorIter& it, double value, bool div) {
  MT_DISPATCH_FLOATING_TYPES(it.dtypes[0], "addcmul_cpu_out", [&] {
    using op_t = opmath_t<scalar_t>;
    if (div)
      cpu_ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(it,
                                                               fn::Addcdiv<op_t>{static_cast<op_t>(value)});
    else
      cpu_ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(it,
                                                               fn::Addcmul<op_t>{static_cast<op_t>(value)});
  });
}

// F.logsigmoid through the table's row, as unary_vectorized (half and bfloat16 through float buffers:
// computed in float and rounded once, as PyTorch's kernel)
bool log_sigmoid_vectorized(const TensorIter& it) {
  const vec::Table* t = vec::unary_table();
  if (!t) return false;
  const ScalarType dt = it.dtypes[0];
  if (dt == ScalarType::Double) {
    if (!t->log_sigmoid_f64) return false;
    run_vec<double>(it, t->log_sigmoid_f64, 2048);
    return true;
  }
  if (!t->log_sigmoid_f32) return false;
  if (dt == ScalarType::Float)
    run_vec<float>(it, t->log_sigmoid_f32, 2048);
  else if (dt == ScalarType::Half)
    run_vec<Half>(it, t->log_sigmoid_f32, 2048);
  else if (dt == ScalarType::BFloat16)
    run_vec<BFloat16>(it, t->log_sigmoid_f32, 2048);
  else
    return false;
  return true;
}

// polygamma through the table: float32 order 0 is digamma's row (PyTorch's polygamma(0) is its digamma
// kernel), float32 orders 1 to kPolygammaMaxOrder the polygamma row and float64 order 1 the trigamma row,
// whose lanes outside their domain take polygamma_scalar: the functor's double result, so both paths round
// the same double once. Without a table (MINITORCH_CPU_CAPABILITY=default, a CPU without AVX2) the same rows
// run in two SSE2 lanes (vec/polygamma_lanes.h, compiled here at the baseline; float32 order 1 by
// vec/trigamma_lanes.h's one-division form): the scalar functor's loop of
// a division per step ran at 0.46 of PyTorch's float32 speed there. Half and bfloat16 keep the functor (a
// float row would round twice).
double polygamma_scalar(int n, double x) {
  return fn::polygamma_double(n, x);
}
void polygamma_row_f32_sse2(float* out, const float* in, int64_t len, int order,
                            double (*scalar)(int, double)) {
  const PolygammaCoefs pc = polygamma_coefs(order);
  if (order == 1)
    polygamma_lanes_row<V2d>(out, in, len, order, false, scalar,
                             [](V2d v) { return trigamma_onediv_lanes_f32(v); });
  else
    polygamma_lanes_row<V2d>(out, in, len, order, true, scalar,
                             [&](V2d v) { return polygamma_lanes_f32(v, pc); });
}
void trigamma_row_f64_sse2(double* out, const double* in, int64_t len, int order,
                           double (*scalar)(int, double)) {
  polygamma_lanes_row<V2d>(out, in, len, order, false, scalar, [](V2d v) { return trigamma_lanes_f64(v); });
}
bool polygamma_vectorized(const TensorIter& it, int64_t n) {
  const vec::Table* t = vec::unary_table();
  const ScalarType dt = it.dtypes[0];
  if ((dt != ScalarType::Float && dt != ScalarType::Double) || it.dtypes[1] != dt) return false;
  if (dt == ScalarType::Double) {
    if (n != 1) return false;
    const vec::PolygammaD row = t && t->polygamma_f64 ? t->polygamma_f64 : &trigamma_row_f64_sse2;
    run_vec<double>(
        it, [&](double* o, const double* x, int64_t m) { row(o, x, m, 1, &polygamma_scalar); }, 2048);
    return true;
  }
  if (n == 0) {
    const vec::LoopF digamma = t ? t->f32[static_cast<int>(vec::Fn::digamma)] : nullptr;
    if (!digamma) return false;
    run_vec<float>(it, digamma, vec_grain(vec::Fn::digamma, false));
    return true;
  }
  if (n < 1 || n > vec::kPolygammaMaxOrder) return false;
  const vec::PolygammaF row = t && t->polygamma_f32 ? t->polygamma_f32 : &polygamma_row_f32_sse2;
  const int order = static_cast<int>(n);
  run_vec<float>(
      it, [&](float* o, const float* x, int64_t m) { row(o, x, m, order, &polygamma_scalar); }, 2048);
  return true;
}

// ---- the activations' gradients (ops/elementwise.h activation_backward): out, grad, x of one dtype, float
// or double. Each is its autograd formula's operations in their order (csrc/autograd/derivatives.cpp) over
// blocks of 256: the unary functions through the rows the composite's unary ops run (the table's, else the
// scalar functor; float exp exp_f32_dense, as unary_cpu), the arithmetic as plain IEEE operations without
// FMA (dense_for), so the composite's values bit for bit in one pass instead of its six (silu) to eleven
// (gelu), each of which wrote a tensor of its own.
template <typename T>
using RowFn = void (*)(T*, const T*, int64_t);
template <typename T, typename F>
void functor_row(T* o, const T* x, int64_t n) {
  const F f{};
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
}
template <typename T, typename F>
RowFn<T> unary_row(UnaryOp op) {
  const vec::Table* t = vec::unary_table();
  const vec::Fn f = vec_fn(op);
  if (t && f != vec::Fn::kCount) {
    const int k = static_cast<int>(f);
    if constexpr (std::is_same_v<T, double>) {
      if (t->f64[k]) return t->f64[k];
    } else {
      if (t->f32[k]) return t->f32[k];
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    if (op == UnaryOp::exp) return &exp_f32_dense;
    if (op == UnaryOp::erf) return &erf_row_f32_lanes;  // unary_cpu's row without a table
  }
  return &functor_row<T, F>;
}

constexpr int64_t kActBlock = 256;
// block(o, g, x, m) over blocks of kActBlock; a stride-0 grad or x (an expanded one: the gradient of a sum)
// as a block of its one value
template <typename T, typename Block>
void act_backward_blocks(T* o, const T* g, int64_t sg, const T* x, int64_t sx, int64_t n, Block block) {
  T gc[kActBlock], xc[kActBlock];
  if (!sg) std::fill(gc, gc + std::min(n, kActBlock), g[0]);
  if (!sx) std::fill(xc, xc + std::min(n, kActBlock), x[0]);
  for (int64_t b = 0; b < n; b += kActBlock) {
    const int64_t m = std::min(kActBlock, n - b);
    block(o + b, sg ? g + b : gc, sx ? x + b : xc, m);
  }
}

template <typename T>
void activation_backward_rows(const TensorIter& it, ParamUnaryOp op, T c0, T c1, T c2) {
  auto rows = [&](auto block) {
    run_vec2<T>(it, [&](T* o, const T* g, int64_t sg, const T* x, int64_t sx, int64_t n) {
      act_backward_blocks(o, g, sg, x, sx, n, block);
    });
  };
  if (op == ParamUnaryOp::gelu_backward) {
    // g ((erf(x sqrt(1/2)) + 1) / 2 + x (exp(x^2 * -1/2) / sqrt(2 pi)))
    const RowFn<T> erf = unary_row<T, fn::Erf>(UnaryOp::erf), exp = unary_row<T, fn::Exp>(UnaryOp::exp);
    const T k = static_cast<T>(1.0 / std::sqrt(2 * 3.14159265358979323846));
    rows([=](T* o, const T* g, const T* x, int64_t m) {
      T e1[kActBlock], e2[kActBlock];
      T *p1 = e1, *p2 = e2;
      dense_for(m, [=](int64_t i) {
        p1[i] = x[i] * static_cast<T>(M_SQRT1_2);
        p2[i] = x[i] * x[i] * T(-0.5);
      });
      erf(p1, p1, m);
      exp(p2, p2, m);
      dense_for(m, [=](int64_t i) { o[i] = g[i] * ((p1[i] + T(1)) * T(0.5) + x[i] * (p2[i] * k)); });
    });
  } else if (op == ParamUnaryOp::silu_backward) {
    // g (s (x (1 - s) + 1)), s = sigmoid(x)
    const RowFn<T> sigmoid = unary_row<T, fn::Sigmoid>(UnaryOp::sigmoid);
    rows([=](T* o, const T* g, const T* x, int64_t m) {
      T s[kActBlock];
      T* p = s;
      sigmoid(p, x, m);
      dense_for(m, [=](int64_t i) { o[i] = g[i] * (p[i] * (x[i] * (T(1) - p[i]) + T(1))); });
    });
  } else {
    // x > 0 ? g scale : (g neg) exp(x gis), c0 = neg, c1 = scale, c2 = gis; the exp only in a block with
    // some x not above 0 (NaN included)
    const RowFn<T> exp = unary_row<T, fn::Exp>(UnaryOp::exp);
    rows([=](T* o, const T* g, const T* x, int64_t m) {
      int64_t rest = 0;
      for (int64_t i = 0; i < m; ++i) rest += !(x[i] > T(0));
      if (!rest) {
        dense_for(m, [=](int64_t i) { o[i] = g[i] * c1; });
        return;
      }
      T e[kActBlock];
      T* p = e;
      dense_for(m, [=](int64_t i) { p[i] = x[i] * c2; });
      exp(p, p, m);
      // both sides computed before the select, so the baseline (SSE2) copy if-converts it too: with a load
      // on one side only it kept a branch per element, mispredicted on mixed signs (1.4x the composite's
      // time)
      dense_for(m, [=](int64_t i) {
        const T pos = g[i] * c1, neg = g[i] * c0 * p[i];
        o[i] = x[i] > T(0) ? pos : neg;
      });
    });
  }
}

void activation_backward_cpu(const TensorIter& it, ParamUnaryOp op, double p0, double p1, double p2) {
  if (it.dtypes[0] == ScalarType::Double)
    activation_backward_rows<double>(it, op, p0, p1, p2);
  else if (it.dtypes[0] == ScalarType::Float)
    activation_backward_rows<float>(it, op, static_cast<float>(p0), static_cast<float>(p1),
                                    static_cast<float>(p2));
  else
    MT_INTERNAL_ASSERT(false, "activation_backward: float32 or float64, got ",
                       dtype_short_name(it.dtypes[0]));
}

void param_unary_cpu(const TensorIter& it, ParamUnaryOp op, double p0, double p1, double p2) {
  if (op == ParamUnaryOp::gelu_backward || op == ParamUnaryOp::silu_backward ||
      op == ParamUnaryOp::elu_backward)
    return activation_backward_cpu(it, op, p0, p1, p2);
  if (op == ParamUnaryOp::softplus && softplus_vectorized(it, p0, p1)) return;
  if (op == ParamUnaryOp::log_sigmoid && log_sigmoid_vectorized(it)) return;
  if (op == ParamUnaryOp::polygamma && polygamma_vectorized(it, static_cast<int64_t>(p0))) return;
  if (op == ParamUnaryOp::elu && elu_vectorized(it, p0, p1, p2)) return;
  if (op == ParamUnaryOp::logit && logit_vectorized(it, p0)) return;
  MT_DISPATCH_FLOATING_TYPES(it.dtypes[0], "activation", [&] {
    if (op == ParamUnaryOp::softplus)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::Softplus{p0, p1});
    else if (op == ParamUnaryOp::polygamma)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::Polygamma{static_cast<int64_t>(p0)});
    else if (op == ParamUnaryOp::hardshrink)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::Hardshrink{p0});
    else if (op == ParamUnaryOp::softshrink)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::Softshrink{p0});
    else if (op == ParamUnaryOp::clamp)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::ClampScalar{p0, p1});
    else if (op == ParamUnaryOp::threshold)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::Threshold{p0, p1});
    else if (op == ParamUnaryOp::elu)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::Elu{p0, p1, p2});
    else if (op == ParamUnaryOp::nan_to_num)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::NanToNum{p0, p1, p2});
    else if (op == ParamUnaryOp::log_sigmoid)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::LogSigmoid{});
    else if (op == ParamUnaryOp::round_decimals)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::RoundDecimals{p0, p1 != 0.0});
    else if (op == ParamUnaryOp::logit)
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::Logit{p0});
    else
      cpu_unary_loop<scalar_t, scalar_t>(it, fn::LeakyRelu{p0});
  });
}

}  // namespace

namespace vec {
#ifdef MINITORCH_WITH_CPU_VEC
namespace {
Table make_table(const char* isa) {
  Table t{};
  if (std::strcmp(isa, "avx512") == 0) {
    fill_table_avx512(t);
    // Every row AVX-512 has none of its own for, AVX2 has (every AVX-512 CPU runs AVX2 and FMA): AVX2's,
    // the same bits as MINITORCH_CPU_CAPABILITY=avx2 gives, instead of the scalar loop, which measured
    // 1.3-41x slower than AVX2's row (fmod/floor_divide 10-12x, float32 tan/atan 8x, erfinv 41x; without
    // SLEEF, AVX-512's misses are the functions AVX2 computes with kernels of its own: f32_via_f64.h,
    // avx2_math.h). tests/ops/elementwise/test_ulp.py::test_avx512_has_every_avx2_row keeps it so.
    Table a{};
    fill_table_avx2(a);
    auto take = [](auto& mine, auto avx2) {
      if (!mine) mine = avx2;
    };
    for (int i = 0; i < static_cast<int>(Fn::kCount); ++i) {
      take(t.f32[i], a.f32[i]);
      take(t.f64[i], a.f64[i]);
    }
    take(t.softmax_f32, a.softmax_f32);
    take(t.softmax_f64, a.softmax_f64);
    take(t.softmax_cols_f32, a.softmax_cols_f32);
    take(t.softmax_cols_f64, a.softmax_cols_f64);
    take(t.max_sum_exp_f32, a.max_sum_exp_f32);
    take(t.scaled_exp_f32, a.scaled_exp_f32);
    take(t.softplus_f32, a.softplus_f32);
    take(t.softplus_f64, a.softplus_f64);
    take(t.log_sigmoid_f32, a.log_sigmoid_f32);
    take(t.log_sigmoid_f64, a.log_sigmoid_f64);
    take(t.polygamma_f32, a.polygamma_f32);
    take(t.polygamma_f64, a.polygamma_f64);
    take(t.pow_f32, a.pow_f32);
    take(t.pow_f64, a.pow_f64);
    take(t.atan2_f32, a.atan2_f32);
    take(t.atan2_f64, a.atan2_f64);
    take(t.fmod_f32, a.fmod_f32);
    take(t.fmod_f64, a.fmod_f64);
    take(t.remainder_f32, a.remainder_f32);
    take(t.remainder_f64, a.remainder_f64);
    take(t.floor_divide_f32, a.floor_divide_f32);
    take(t.floor_divide_f64, a.floor_divide_f64);
    take(t.logaddexp_f32, a.logaddexp_f32);
    take(t.logaddexp_f64, a.logaddexp_f64);
    take(t.logaddexp2_f32, a.logaddexp2_f32);
    take(t.logaddexp2_f64, a.logaddexp2_f64);
    take(t.normal_philox_f64, a.normal_philox_f64);
    take(t.uniform_philox_f64, a.uniform_philox_f64);
    take(t.philox_fill_f32, a.philox_fill_f32);
    take(t.philox_fill_f64, a.philox_fill_f64);
    take(t.philox_fill_i64, a.philox_fill_i64);
    static_assert(sizeof(Table) == sizeof(void*) * (2 * static_cast<int>(Fn::kCount) + 31),
                  "a Table member was added: take AVX2's where AVX-512 has none, above");
  } else if (std::strcmp(isa, "avx2") == 0) {
    fill_table_avx2(t);
  }
  return t;
}

// The best instruction set this CPU runs, capped by MINITORCH_CPU_CAPABILITY (PyTorch's ATEN_CPU_CAPABILITY).
const char* pick_isa() {
  __builtin_cpu_init();
  const char* isa = "default";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) isa = "avx2";
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) isa = "avx512";
  const char* cap = std::getenv("MINITORCH_CPU_CAPABILITY");
  if (cap && std::strcmp(cap, "default") == 0) isa = "default";
  if (cap && std::strcmp(cap, "avx2") == 0 && std::strcmp(isa, "avx512") == 0) isa = "avx2";
  return isa;
}

const char* isa() {
  static const char* i = pick_isa();
  return i;
}
}  // namespace

const Table* unary_table() {
  static const Table table = make_table(isa());
  return std::strcmp(isa(), "default") == 0 ? nullptr : &table;
}
const char* cpu_capability() {
  return std::strcmp(isa(), "avx512") == 0 ? "AVX512" : std::strcmp(isa(), "avx2") == 0 ? "AVX2" : "DEFAULT";
}
#else
const Table* unary_table() {
  return nullptr;
}
const char* cpu_capability() {
  return "DEFAULT";
}
#endif
}  // namespace vec

#ifdef MT_LOOPS_AVX2
bool loops_use_avx2() {
  static const bool use = std::strcmp(vec::cpu_capability(), "DEFAULT") != 0;
  return use;
}
#endif

namespace vec {
bool has_vec_loop(const char* name, bool f64) {
  const Table* t = unary_table();
  if (!t) return false;
#define MT_VEC_FIND(fn)            \
  if (std::strcmp(name, #fn) == 0) \
    return f64 ? t->f64[static_cast<int>(Fn::fn)] != nullptr : t->f32[static_cast<int>(Fn::fn)] != nullptr;
  MT_VEC_UNARY_FNS(MT_VEC_FIND)
#undef MT_VEC_FIND
  // the two-operand rows (and softplus's), by their ops' names
  const std::pair<const char*, std::pair<bool, bool>> rows[] = {
      {"pow", {t->pow_f32 != nullptr, t->pow_f64 != nullptr}},
      {"atan2", {t->atan2_f32 != nullptr, t->atan2_f64 != nullptr}},
      {"fmod", {t->fmod_f32 != nullptr, t->fmod_f64 != nullptr}},
      {"remainder", {t->remainder_f32 != nullptr, t->remainder_f64 != nullptr}},
      {"floor_divide", {t->floor_divide_f32 != nullptr, t->floor_divide_f64 != nullptr}},
      {"logaddexp", {t->logaddexp_f32 != nullptr, t->logaddexp_f64 != nullptr}},
      {"logaddexp2", {t->logaddexp2_f32 != nullptr, t->logaddexp2_f64 != nullptr}},
      {"softplus", {t->softplus_f32 != nullptr, t->softplus_f64 != nullptr}},
      {"log_sigmoid", {t->log_sigmoid_f32 != nullptr, t->log_sigmoid_f64 != nullptr}},
      {"softmax", {t->softmax_f32 != nullptr, t->softmax_f64 != nullptr}},
      {"polygamma", {t->polygamma_f32 != nullptr, t->polygamma_f64 != nullptr}},
  };
  for (const auto& [row, has] : rows)
    if (std::strcmp(name, row) == 0) return f64 ? has.second : has.first;
  return false;
}
bool has_sleef() {
#ifdef MINITORCH_WITH_SLEEF
  return true;
#else
  return false;
#endif
}
}  // namespace vec

MT_REGISTER_KERNEL(unary_stub, CPU, &unary_cpu);
MT_REGISTER_KERNEL(binary_stub, CPU, &binary_cpu);
MT_REGISTER_KERNEL(where_stub, CPU, &where_cpu);
MT_REGISTER_KERNEL(clamp_stub, CPU, &clamp_cpu);
MT_REGISTER_KERNEL(param_unary_stub, CPU, &param_unary_cpu);
MT_REGISTER_KERNEL(lerp_stub, CPU, &lerp_cpu);
MT_REGISTER_KERNEL(addc_stub, CPU, &addc_cpu);

}  // namespace mt
