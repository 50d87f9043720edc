// Dense vectorized loops for the float unary ops, one table per instruction set, picked at run time; an entry
// is nullptr where that path has no vector kernel (the scalar functor serves it).
#pragma once
// Plain declarations only: this header is also compiled with AVX flags (vec/unary_*.cpp), so it must not
// define inline functions the linker could share with baseline code.
#include <cstdint>

namespace mt {
namespace vec {

// The ops with a vectorized loop; the order is the tables' index.
#define MT_VEC_UNARY_FNS(_) \
  _(exp)                    \
  _(exp2)                   \
  _(expm1)                  \
  _(log)                    \
  _(log2)                   \
  _(log10)                  \
  _(log1p)                  \
  _(sin)                    \
  _(cos)                    \
  _(sinc)                   \
  _(tan)                    \
  _(asin)                   \
  _(acos)                   \
  _(atan)                   \
  _(atanh)                  \
  _(sinh)                   \
  _(cosh)                   \
  _(tanh)                   \
  _(erf)                    \
  _(erfc)                   \
  _(erfinv)                 \
  _(sigmoid)                \
  _(gelu)                   \
  _(gelu_tanh)              \
  _(silu)                   \
  _(mish)                   \
  _(hardsigmoid)            \
  _(hardswish)              \
  _(lgamma)                 \
  _(digamma)                \
  _(i0)                     \
  _(_special_i0e)           \
  _(_special_i1)            \
  _(_special_i1e)

enum class Fn : int {
#define MT_VEC_ENUM(name) name,
  MT_VEC_UNARY_FNS(MT_VEC_ENUM)
#undef MT_VEC_ENUM
      kCount
};

using LoopF = void (*)(float* out, const float* in, int64_t n);
using LoopD = void (*)(double* out, const double* in, int64_t n);
// One contiguous float32 row of softmax (take_log: log_softmax), q may be p: max, exp(x - max) and its sum,
// then the scaling, all in the table's instruction set (kernels/cpu/softmax.cpp).
using SoftmaxRowF = void (*)(const float* p, float* q, int64_t n, bool take_log);
using SoftmaxRowD = void (*)(const double* p, double* q, int64_t n, bool take_log);
// Softmax along a middle dim over a strip of w adjacent columns (1 <= w <= kSoftmaxColsMax) of `rows` rows,
// `stride` elements apart, in p and q alike: the lanes run across the columns (kernels/cpu/softmax.cpp).
// scratch holds rows x (w rounded up to kSoftmaxColsLanes) elements, for the strip packed (the caller's, so
// nothing compiled for AVX allocates).
constexpr int64_t kSoftmaxColsMax = 512;
constexpr int64_t kSoftmaxColsLanes = 16;  // at least any table's lanes
using SoftmaxColsF = void (*)(const float* p, float* q, int64_t rows, int64_t stride, int64_t w,
                              bool take_log, float* scratch);
using SoftmaxColsD = void (*)(const double* p, double* q, int64_t rows, int64_t stride, int64_t w,
                              bool take_log, double* scratch);
// The max of a float32 row (through *max) and the sum of exp(x - max) (cross_entropy's logsumexp).
using MaxSumExpF = float (*)(const float* p, int64_t n, float* max);
// out = k * exp(x - shift) over a float32 row (cross_entropy's gradient).
using ScaledExpF = void (*)(float* out, const float* x, int64_t n, float shift, float k);
// softplus over a dense row: x where x * beta > threshold, else log1p(exp(x * beta)) / beta.
using SoftplusF = void (*)(float* out, const float* in, int64_t n, float beta, float threshold);
using SoftplusD = void (*)(double* out, const double* in, int64_t n, double beta, double threshold);
// polygamma(order, x) over a dense float32 row, 1 <= order <= kPolygammaMaxOrder; the lanes it does not serve
// (non-finite x, and x <= 0 for order >= 2) take scalar(order, x), the caller's baseline-compiled functor.
constexpr int kPolygammaMaxOrder = 6;
using PolygammaF = void (*)(float* out, const float* in, int64_t n, int order, double (*scalar)(int, double));
// the same over float64, order 1 (trigamma) only; non-finite x through scalar
using PolygammaD = void (*)(double* out, const double* in, int64_t n, int order,
                            double (*scalar)(int, double));
// pow over a row: out[i] = a[i * sa] ** b[i * sb], each of sa, sb 1 (dense) or 0 (one value).
using PowF = void (*)(float* out, const float* a, int64_t sa, const float* b, int64_t sb, int64_t n);
using PowD = void (*)(double* out, const double* a, int64_t sa, const double* b, int64_t sb, int64_t n);
// n standard normals (uniforms in [0, 1)) from Philox(seed, subsequence, offset), as kernels/cpu/random.cpp's
// scalar draws.
using PhiloxDrawsD = void (*)(double* out, int64_t n, uint64_t seed, uint64_t subsequence, uint64_t offset);
// random.cpp's whole per-element mapping of one chunk, written straight from the Philox words into a float32,
// float64 or int64 output (no double buffer, no scalar pass after the draws), bit for bit the scalar path's.
// kind in RandomKind's order (ops/kernels.h): 0 uniform [a, b) keeping log2(scale) mantissa bits (scale
// 2^53 keeps all), 1 normal (mean a, std b), 2 integers [low, high) (high - low <= 2^52 and |low|, |high| <=
// 2^51, so the floor and the conversions are exact in double), 3 Bernoulli (p = a). The int64 output takes
// kinds 2 and 3 only.
struct PhiloxFill {
  int kind;
  double a, b, scale;
  int64_t low, high;
};
using PhiloxFillF = void (*)(float* out, int64_t n, uint64_t seed, uint64_t subsequence, uint64_t offset,
                             const PhiloxFill& f);
using PhiloxFillD = void (*)(double* out, int64_t n, uint64_t seed, uint64_t subsequence, uint64_t offset,
                             const PhiloxFill& f);
using PhiloxFillL = void (*)(int64_t* out, int64_t n, uint64_t seed, uint64_t subsequence, uint64_t offset,
                             const PhiloxFill& f);
struct Table {
  LoopF f32[static_cast<int>(Fn::kCount)];
  LoopD f64[static_cast<int>(Fn::kCount)];
  SoftmaxRowF softmax_f32;
  SoftmaxRowD softmax_f64;
  SoftmaxColsF softmax_cols_f32;
  SoftmaxColsD softmax_cols_f64;
  MaxSumExpF max_sum_exp_f32;
  ScaledExpF scaled_exp_f32;
  SoftplusF softplus_f32;
  SoftplusD softplus_f64;
  LoopF log_sigmoid_f32;  // F.logsigmoid: min(x, 0) - log1p(exp(-|x|)), softplus_f32's log1p and exp
  LoopD log_sigmoid_f64;
  PolygammaF polygamma_f32;
  PolygammaD polygamma_f64;
  PowF pow_f32;
  PowD pow_f64;
  PowF atan2_f32;  // atan2(a, b), the same row signature as pow
  PowD atan2_f64;
  PowF fmod_f32;  // C's fmod(a, b)
  PowD fmod_f64;
  PowF remainder_f32;  // Python's a % b
  PowD remainder_f64;
  PowF floor_divide_f32;  // Python's a // b (functors.h's FloorDiv, through fmod)
  PowD floor_divide_f64;
  PowF logaddexp_f32;  // log(exp(a) + exp(b)), functors.h's formula
  PowD logaddexp_f64;
  PowF logaddexp2_f32;  // log2(2^a + 2^b)
  PowD logaddexp2_f64;
  PhiloxDrawsD normal_philox_f64;  // vec/random_impl.h, the scalar draws bit for bit
  PhiloxDrawsD uniform_philox_f64;
  PhiloxFillF philox_fill_f32;
  PhiloxFillD philox_fill_f64;
  PhiloxFillL philox_fill_i64;
};

// Defined in vec/unary_avx2.cpp and vec/unary_avx512.cpp (built on x86-64, SLEEF or not).
void fill_table_avx2(Table& t);
void fill_table_avx512(Table& t);

// The table for this CPU (AVX-512 > AVX2+FMA), or nullptr on an older CPU or a non-x86 build.
// MINITORCH_CPU_CAPABILITY=default|avx2|avx512 (read once) caps the choice, for tests and benchmarks.
const Table* unary_table();
// "AVX512", "AVX2" or "DEFAULT" (an older CPU, or capped): PyTorch's names for the path in use.
const char* cpu_capability();
// Whether the build links SLEEF (an optional speed-up for the functions without a kernel of our own).
bool has_sleef();
// Whether the path in use has a vector loop for the unary op `name` (an MT_VEC_UNARY_FNS name, or one of the
// row ops: pow, atan2, fmod, remainder, floor_divide, logaddexp, logaddexp2, softplus, log_sigmoid, softmax,
// polygamma) in float64 (else float32): where not, the scalar functor runs it
// (tests/ops/elementwise/test_ulp.py holds each to its own limit).
bool has_vec_loop(const char* name, bool f64);

}  // namespace vec
}  // namespace mt
