// Factories, generators and the front ends of the random fills (argument checks, which generator, offsets);
// the draws themselves are random_fill_stub's kernels (kernels/cpu/random.cpp, kernels/cuda/random.cu).
#include "ops/factory.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "core/FreshPages.h"
#include "core/FreshWrites.h"
#include "core/Generator.h"
#include "core/GradMode.h"
#include "core/NumberText.h"
#include "core/SafeMath.h"
#include "core/TensorIterator.h"
#include "core/TypeMeta.h"
#include "cuda/CUDAGraph.h"
#include "generated/native.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/kernels.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt {

namespace {
ScalarType g_default_dtype = ScalarType::Float;

ScalarType or_default(ScalarType t) {
  return t == ScalarType::Undefined ? g_default_dtype : t;
}
}  // namespace

ScalarType default_dtype() {
  return g_default_dtype;
}
void set_default_dtype(ScalarType t) {
  MT_CHECK_TYPE(
      t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half || t == ScalarType::BFloat16,
      "only floating-point types are supported as the default type");
  g_default_dtype = t;
}

Generator& default_generator() {
  static Generator g;
  return g;
}

Generator& cuda_generator(int device) {
  static Generator gens[16];
  MT_CHECK(device >= 0 && device < 16, "CUDA error: invalid device ordinal");
  return gens[device];
}

Tensor empty(IntArrayRef sizes, ScalarType dtype, Device device) {
  return make_empty(sizes, or_default(dtype), resolve_device(device));
}

// A value whose every dtype's bits are zero: integer 0, false, +0.0 (not -0.0)
static bool zero_bits(const Scalar& v) {
  if (v.is_bool()) return !v.to<bool>();
  if (v.is_integral()) return v.to<int64_t>() == 0;
  if (v.is_floating()) return v.to<double>() == 0.0 && !std::signbit(v.to<double>());
  return false;
}

Tensor full(IntArrayRef sizes, const Scalar& value, ScalarType dtype, Device device) {
  if (dtype == ScalarType::Undefined) dtype = value.natural_dtype(g_default_dtype);
  Tensor t = empty(sizes, dtype, device);
  // a large block fresh from the kernel reads as zeros already (numpy's zeros gets the same from calloc): the
  // fill would only fault every page in, a 1 GB max_unpool3d output's whole cost
  if (t.device().is_cpu() && t.numel() > 0 && zero_bits(value) && cpu_take_fresh_zeroed(t.data_ptr()))
    return t;
  FreshWrites fresh;
  fill_(t, value);
  return t;
}

Tensor zeros(IntArrayRef sizes, ScalarType dtype, Device device) {
  return full(sizes, Scalar(int64_t(0)), or_default(dtype), device);
}
Tensor ones(IntArrayRef sizes, ScalarType dtype, Device device) {
  return full(sizes, Scalar(int64_t(1)), or_default(dtype), device);
}

Tensor scalar_tensor(const Scalar& v, ScalarType dtype, Device device) {
  if (dtype == ScalarType::Undefined) dtype = v.natural_dtype(g_default_dtype);
  return full({}, v, dtype, device);
}

Tensor wrapped_scalar(const Scalar& v) {
  ScalarType dt = v.is_bool()       ? ScalarType::Bool
                  : v.is_integral() ? ScalarType::Long
                  : v.is_complex()  ? ScalarType::ComplexDouble
                                    : ScalarType::Double;
  Tensor t = make_empty({}, dt, Device(DeviceType::CPU));
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(dt, "wrapped_scalar", [&] { *t.data<scalar_t>() = v.to<scalar_t>(); });
  t.impl()->set_wrapped_number(true);
  return t;
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype, Device device) {
  if (dtype == ScalarType::Undefined) {
    bool all_int = !start.is_floating() && !end.is_floating() && !step.is_floating();
    dtype = all_int ? ScalarType::Long : g_default_dtype;
  }
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  MT_CHECK(std::isfinite(st), "step must be finite but got ", st);  // (PyTorch 2.15's first check)
  MT_CHECK(st != 0, "step must be nonzero");
  MT_CHECK(std::isfinite(s) && std::isfinite(e), "unsupported range: ", s, " -> ", e);
  MT_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
           "upper bound and larger bound inconsistent with step sign");
  double n = is_integral(dtype, true) && !start.is_floating() && !end.is_floating() && !step.is_floating()
                 ? std::ceil(static_cast<double>(wide_int(end.to_long()) - start.to_long()) /
                             static_cast<double>(step.to_long()))
                 : std::ceil((e - s) / st);
  MT_CHECK(n >= 0 && n < 9.2e18, "invalid size, possible overflow?");
  Tensor out = empty({static_cast<int64_t>(n)}, dtype, Device(DeviceType::CPU));
  // (PyTorch's kernels are named by their device: "arange_cpu" not implemented for 'Bool')
  MT_DISPATCH_NUMERIC_TYPES(dtype, device.is_cuda() ? "arange_cuda" : "arange_cpu", [&] {
    scalar_t* p = out.data<scalar_t>();
    if constexpr (std::is_integral<scalar_t>::value) {
      int64_t s0 = start.to_long(), st0 = step.to_long();
      if (!start.is_floating() && !step.is_floating()) {
        for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<scalar_t>(s0 + i * st0);
        return;
      }
    }
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<scalar_t>(s + static_cast<double>(i) * st);
  });
  return to(out, dtype, device);
}

Tensor linspace(double start, double end, int64_t steps, ScalarType dtype, Device device) {
  MT_CHECK(steps >= 0, "number of steps must be non-negative");
  dtype = or_default(dtype);
  // the binding hands the ends over as doubles: an integral one is checked as the int it most likely was (an
  // int end wraps into uint8 as PyTorch's Scalar does; a fractional one may not)
  for (double v : {start, end})
    check_scalar_fits(
        v == std::trunc(v) && std::fabs(v) < 9.2e18 ? Scalar(static_cast<int64_t>(v)) : Scalar(v), dtype);
  Tensor out = empty({steps}, dtype, Device(DeviceType::CPU));
  int64_t half = steps / 2;
  MT_DISPATCH_NUMERIC_TYPES(dtype, "linspace", [&] {
    // PyTorch's arithmetic, so the values (and a histogram's bin edges) are its own to the last bit: the ends
    // converted to the element type first (an integer linspace starts from int(start)); the step and each
    // value in float (half precision and float), double (double and integers); each value from the nearer
    // end, so that the last one is exactly `end`, as one fused multiply-add (its x86 build contracts `start +
    // step * i`) rounded once into the element type.
    using acc_t =
        std::conditional_t<std::is_integral<scalar_t>::value || std::is_same<scalar_t, double>::value, double,
                           float>;
    const acc_t lo = static_cast<acc_t>(static_cast<scalar_t>(start));
    const acc_t hi = static_cast<acc_t>(static_cast<scalar_t>(end));
    const acc_t step = steps > 1 ? (hi - lo) / static_cast<acc_t>(steps - 1) : acc_t(0);
    const auto at = [&](int64_t i) {
      return static_cast<scalar_t>(i < half || steps == 1
                                       ? std::fma(step, static_cast<acc_t>(i), lo)
                                       : std::fma(-step, static_cast<acc_t>(steps - 1 - i), hi));
    };
    scalar_t* p = out.data<scalar_t>();
    for (int64_t i = 0; i < steps; ++i) p[i] = at(i);
  });
  return to(out, dtype, device);
}

namespace {
// PyTorch's complex logspace: exponents spaced in the element type (its complex division by steps - 1 is a
// multiplication by the reciprocal, the value from the nearer end as linspace's), then its complex power
template <typename T>
Tensor complex_logspace(std::complex<double> start, std::complex<double> end, int64_t steps, double base,
                        ScalarType dtype) {
  using C = std::complex<T>;
  const C lo(static_cast<T>(start.real()), static_cast<T>(start.imag()));
  const C hi(static_cast<T>(end.real()), static_cast<T>(end.imag()));
  const T scale = steps > 1 ? T(1) / static_cast<T>(steps - 1) : T(0);
  const C step((hi.real() - lo.real()) * scale, (hi.imag() - lo.imag()) * scale);
  const C b(static_cast<T>(base), T(0));
  Tensor out = empty({steps}, dtype, Device(DeviceType::CPU));
  C* p = out.data<C>();
  const int64_t half = steps / 2;
  for (int64_t i = 0; i < steps; ++i) {
    const T k = static_cast<T>(i < half ? i : steps - 1 - i);
    const C e = i < half ? C(std::fma(step.real(), k, lo.real()), std::fma(step.imag(), k, lo.imag()))
                         : C(std::fma(-step.real(), k, hi.real()), std::fma(-step.imag(), k, hi.imag()));
    p[i] = std::pow(b, e);
  }
  return out;
}
}  // namespace

Tensor logspace(std::complex<double> start, std::complex<double> end, int64_t steps, double base,
                ScalarType dtype, Device device) {
  MT_CHECK(steps >= 0, "number of steps must be non-negative");
  dtype = or_default(dtype);
  if (dtype == ScalarType::ComplexFloat)
    return to(complex_logspace<float>(start, end, steps, base, dtype), dtype, device);
  if (dtype == ScalarType::ComplexDouble)
    return to(complex_logspace<double>(start, end, steps, base, dtype), dtype, device);
  // PyTorch's kernel: the exponents spaced in the result's float dtype (linspace's arithmetic: float32
  // 2147483647 is 2^31, even, so (-1.5) ** it is +inf), the power taken in double and rounded once into the
  // dtype; integer dtypes space in double and take the power's value (truncated)
  const ScalarType spaced = is_floating(dtype) ? dtype : ScalarType::Double;
  Tensor e = linspace(start.real(), end.real(), steps, spaced, Device(DeviceType::CPU));
  if (spaced != ScalarType::Double) e = to(e, ScalarType::Double, Device(DeviceType::CPU));
  const double* x = e.data<double>();
  const bool direct = dtype == ScalarType::Float || dtype == ScalarType::Double;
  Tensor out = empty({steps}, direct ? dtype : ScalarType::Double, Device(DeviceType::CPU));
  if (dtype == ScalarType::Float) {
    float* p = out.data<float>();
    for (int64_t i = 0; i < steps; ++i) p[i] = static_cast<float>(std::pow(base, x[i]));
  } else {
    double* p = out.data<double>();
    for (int64_t i = 0; i < steps; ++i) p[i] = std::pow(base, x[i]);
  }
  return to(out, dtype, device);
}

Tensor eye(int64_t n, int64_t m, ScalarType dtype, Device device) {
  MT_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  MT_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  Tensor out = zeros({n, m}, dtype, device);
  FreshWrites fresh;
  if (n > 0 && m > 0) fill_(diagonal(out, 0, 0, 1), Scalar(int64_t(1)));
  return out;
}

// ---- random
void manual_seed(uint64_t seed) {
  default_generator().manual_seed(seed);
  for (int d = 0; d < 16; ++d) cuda_generator(d).manual_seed(seed);
}
uint64_t initial_seed() {
  return default_generator().seed();
}
uint64_t seed() {
  uint64_t s = std::random_device{}() ^
               static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  manual_seed(s);
  return s;
}

namespace {

// The generator a random op on `type` draws from: the call's generator= when given (its device type must
// match, PyTorch's check), else the device's default.
Generator& generator_for(DeviceType type, int index) {
  const GeneratorOverride& o = tls_generator_override;
  if (o.gen) {
    MT_CHECK(o.device_type == static_cast<int8_t>(type), "Expected a '", Device(type).str(),
             "' device type for generator but found '", Device(static_cast<DeviceType>(o.device_type)).str(),
             "'");
    return *o.gen;
  }
  return type == DeviceType::CUDA ? cuda_generator(index) : default_generator();
}

// Every random fill, on every device: take an offset from the device's generator (even for an empty tensor,
// so a seeded sequence does not depend on whether a draw was empty) and let the device's kernel draw; a
// non-contiguous tensor draws into a contiguous temporary first.
Tensor& fill_random(Tensor& self, const RandomFillArgs& args) {
  Generator& g = generator_for(self.device().type, self.device().index);
  uint64_t seed = 0, offset = 0;  // inside a CUDA graph capture: the call's number in the graph
  if (!(self.is_cuda() && graph_rng_offset(self.device().index, !tls_generator_override.gen, &offset))) {
    seed = g.seed();
    offset = g.reserve(1);
  }
  if (self.numel() == 0) {
    wrote(self);
    return self;
  }
  if (self.is_contiguous()) {
    random_fill_stub.get(self.device())(self, args, seed, offset);
    wrote(self);
  } else {
    Tensor tmp = make_empty(self.sizes(), self.dtype(), self.device());
    random_fill_stub.get(self.device())(tmp, args, seed, offset);
    copy_(self, tmp);
  }
  return self;
}

}  // namespace

Tensor& native::uniform_(Tensor& self, double from, double to_) {
  check_writable(self);
  if (is_complex(self.dtype())) {  // both parts uniform on [from, to)
    Tensor parts = mt::view_as_real(self);
    mt::uniform_(parts, from, to_);
    return self;
  }
  // PyTorch's check_uniform_bounds dispatches on the dtype before it reads the bounds
  MT_CHECK_NOT_IMPLEMENTED(is_floating(self.dtype()), "\"check_uniform_bounds\" not implemented for '",
                           dtype_short_name(self.dtype()), "'");
  // PyTorch's check_uniform_bounds: each bound within the dtype's finite range (NaN and inf are not), then
  // the order, then a width the dtype can hold (uniform_ draws from + u * (to - from))
  double lo = 0, hi = 0;
  const char* cpp_name = "";
  switch (self.dtype()) {
    case ScalarType::Half:
      lo = -65504.0, hi = 65504.0, cpp_name = "c10::Half";
      break;
    case ScalarType::BFloat16:
      lo = -3.3895313892515355e38, hi = 3.3895313892515355e38, cpp_name = "c10::BFloat16";
      break;
    case ScalarType::Float:
      lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max(), cpp_name = "float";
      break;
    default:
      lo = std::numeric_limits<double>::lowest(), hi = std::numeric_limits<double>::max(),
      cpp_name = "double";
  }
  MT_CHECK(from >= lo && from <= hi, "from is out of bounds for ", cpp_name);
  MT_CHECK(to_ >= lo && to_ <= hi, "to is out of bounds for ", cpp_name);
  MT_CHECK(from <= to_, "uniform_ expects to return a [from, to) range, but found from=", from,
           " > to=", to_);
  MT_CHECK(to_ - from <= hi, "uniform_ expects to-from <= std::numeric_limits<",
           dtype_short_name(self.dtype()), ">::max(), but found to=", to_, " and from=", from,
           " which result in to-from to exceed the limit");
  return fill_random(self, {RandomKind::uniform, from, to_});
}

// ---- the samplers PyTorch has as in-place Tensor methods (exponential_, log_normal_, cauchy_, geometric_):
// one uniform_ (normal_) draw mapped in place by the same ops, in the same order and dtype, as the Python
// composites they replace, so a seed gives the same values bit for bit (tests/ops/factory/
// test_random_values.py); one call where the composites made six to eight from Python (0.33-0.7 of PyTorch's
// speed on 64 elements).
namespace {

Tensor num(double v) {
  return wrapped_scalar(Scalar(v));
}

// `draw_and_map(w)` fills w (of the work dtype: float64 for a float64 tensor or when `f64`, else float32) and
// maps it in place; the values land in self. Where self is of the work dtype the ops write self itself,
// inside one FreshWrites scope, and self's version is bumped once, as one in-place op's.
template <typename F>
Tensor& sample_(Tensor& self, bool f64, F draw_and_map) {
  check_writable(self);
  NoGradGuard no_grad;
  const ScalarType work = f64 || self.dtype() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  if (self.dtype() == work) {
    {
      FreshWrites fresh;
      draw_and_map(self);
    }
    wrote(self);
    return self;
  }
  Tensor w = make_empty(self.sizes(), work, self.device());
  {
    FreshWrites fresh;
    draw_and_map(w);
  }
  copy_(self, w);
  return self;
}

void check_continuous(const Tensor& self, const char* dist, bool cpp_names) {
  MT_CHECK(is_floating(self.dtype()), dist,
           " distribution is a continuous probability distribution. dtype must be a floating point but you "
           "specified ",
           cpp_names ? cpp_type_name(self.dtype()) : dtype_short_name(self.dtype()));
}

}  // namespace

// -log(1 - U) / lambd, U ~ Uniform[0, 1)
Tensor& native::exponential_(Tensor& self, double lambd) {
  MT_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", g_str(lambd));
  if (self.numel() == 0) {  // PyTorch's kernel (and its dtype check) is not dispatched for no elements
    wrote(self);
    return self;
  }
  check_continuous(self, "Exponential", false);
  return sample_(self, false, [&](Tensor& w) {
    native::uniform_(w, 0.0, 1.0);
    native::unary_(UnaryOp::neg, w);
    native::unary_(UnaryOp::log1p, w);
    native::binary_(BinaryOp::mul, w, num(-1.0 / lambd));
  });
}

// exp(X), X ~ Normal(mean, std)
Tensor& native::log_normal_(Tensor& self, double mean, double std) {
  MT_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", g_str(std));
  if (self.numel() == 0) {  // as exponential_: no kernel, no dtype check
    wrote(self);
    return self;
  }
  MT_CHECK_NOT_IMPLEMENTED(is_floating(self.dtype()), "\"log_normal_", self.is_cuda() ? "cuda" : "cpu",
                           "\" not implemented for '", dtype_short_name(self.dtype()), "'");
  return sample_(self, false, [&](Tensor& w) {
    native::normal_(w, mean, std);
    native::unary_(UnaryOp::exp, w);
  });
}

// median + sigma * tan(pi * (U - 1/2)); the draw is made (and the generator advanced) for no elements too
Tensor& native::cauchy_(Tensor& self, double median, double sigma) {
  MT_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", g_str(sigma));
  check_continuous(self, "Cauchy", true);
  return sample_(self, false, [&](Tensor& w) {
    if (w.device().is_cpu()) {  // the same draws and steps in one call of the kernel (RandomKind::cauchy)
      fill_random(w, {RandomKind::cauchy, median, sigma});
      return;
    }
    native::uniform_(w, 0.0, 1.0);
    add_scaled_(w, num(0.5), Scalar(1.0), true);
    native::binary_(BinaryOp::mul, w, num(M_PI));
    native::unary_(UnaryOp::tan, w);
    native::binary_(BinaryOp::mul, w, num(sigma));
    add_scaled_(w, num(median), Scalar(1.0), false);
  });
}

// the number of Bernoulli(p) trials up to the first success, ceil(log(1 - U) / log(1 - p)) in float64, then
// cast to self's dtype (integers too)
Tensor& native::geometric_(Tensor& self, double p) {
  MT_CHECK(p > 0.0 && p < 1.0, "geometric_ expects p to be in (0, 1), but got p=", g_str(p));
  MT_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool && !is_complex(self.dtype()), "\"geometric_",
                           self.is_cuda() ? "cuda" : "cpu", "\" not implemented for '",
                           dtype_short_name(self.dtype()), "'");
  return sample_(self, true, [&](Tensor& w) {
    native::uniform_(w, 0.0, 1.0);
    native::unary_(UnaryOp::neg, w);
    native::unary_(UnaryOp::log1p, w);
    native::binary_(BinaryOp::div, w, num(std::log1p(-p)));
    native::unary_(UnaryOp::ceil, w);
    // U = 0 (probability 2**-53) would give 0 trials; the support starts at 1
    mt::clamp_(w, num(1.0), std::nullopt);
  });
}

Tensor& native::normal_(Tensor& self, double mean, double std) {
  check_writable(self);
  MT_CHECK(std >= 0, "normal expects std >= 0.0, but found std ", std);
  if (self.numel() == 0) {  // PyTorch's kernel is not dispatched for no elements, whatever the dtype
    wrote(self);
    return self;
  }
  if (is_complex(self.dtype())) {
    // each part N(mean, std^2 / 2), so that E|z - mean|^2 = std^2 (PyTorch's convention)
    Tensor parts = mt::view_as_real(self);
    mt::normal_(parts, mean, std / std::sqrt(2.0));
    return self;
  }
  MT_CHECK_NOT_IMPLEMENTED(is_floating(self.dtype()), "\"normal_kernel", self.is_cuda() ? "_cuda" : "_cpu",
                           "\" not implemented for '", dtype_short_name(self.dtype()), "'");
  return fill_random(self, {RandomKind::normal, mean, std});
}

Tensor& native::random_(Tensor& self, int64_t low, int64_t high) {
  check_writable(self);
  MT_CHECK(low < high, "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  // PyTorch's check_from_to_in_range, an empty tensor's too
  MT_CHECK(!is_complex(self.dtype()),
           "check_random_bounds handles only integral, floating-point and boolean types");
  // PyTorch's check_from_to_in_range: the bounds must be values of the dtype, not wrap into it
  if (is_integral(self.dtype(), true)) {
    MT_DISPATCH_ALL_TYPES(self.dtype(), "random_", [&] {
      if constexpr (std::is_integral<scalar_t>::value) {
        int64_t lo = static_cast<int64_t>(std::numeric_limits<scalar_t>::lowest());
        int64_t hi = static_cast<int64_t>(std::numeric_limits<scalar_t>::max());
        const char* name = cpp_type_name(self.dtype());
        MT_CHECK(low >= lo && low <= hi, "from is out of bounds for ", name);
        MT_CHECK(high - 1 >= lo && high - 1 <= hi, "to - 1 is out of bounds for ", name);
      }
    });
  }
  if (self.dtype() == ScalarType::Half) {  // the one floating dtype whose range an int64 bound can leave
    MT_CHECK(low >= -65504 && low <= 65504, "from is out of bounds for c10::Half");
    MT_CHECK(high - 1 >= -65504 && high - 1 <= 65504, "to - 1 is out of bounds for c10::Half");
  }
  return fill_random(self, {RandomKind::integers, 0.0, 0.0, low, high});
}

int64_t random_default_end(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Bool:
      return 2;
    case ScalarType::Half:
      return (int64_t(1) << 11) + 1;
    case ScalarType::BFloat16:
      return (int64_t(1) << 8) + 1;
    case ScalarType::Float:
      return (int64_t(1) << 24) + 1;
    case ScalarType::Double:
      return (int64_t(1) << 53) + 1;
    default:
      break;
  }
  // PyTorch's random_(from, None) of a complex tensor (random_() is random_default_'s)
  MT_CHECK(!is_complex(dtype), "random_from_to_impl handles only integral, floating-point and boolean types");
  int64_t end = std::numeric_limits<int64_t>::max();
  MT_DISPATCH_ALL_TYPES(dtype, "random_", [&] {
    if constexpr (std::is_integral<scalar_t>::value && sizeof(scalar_t) < 8)
      end = int64_t(std::numeric_limits<scalar_t>::max()) + 1;
  });
  return end;
}

Tensor& native::random_default_(Tensor& self) {
  if (is_complex(self.dtype())) {  // PyTorch's random_kernel dispatch, never reached for no elements
    MT_CHECK_NOT_IMPLEMENTED(self.numel() == 0, "\"random_kernel_", self.is_cuda() ? "cuda" : "cpu",
                             "\" not implemented for '", dtype_short_name(self.dtype()), "'");
    return self;
  }
  return native::random_(self, 0, random_default_end(self.dtype()));
}

Tensor& native::bernoulli_(Tensor& self, double prob) {
  check_writable(self);
  MT_CHECK(prob >= 0 && prob <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", prob);
  return fill_random(self, {RandomKind::bernoulli, prob});
}

Tensor& native::bernoulli_tensor_(Tensor& self, const Tensor& p) {
  // float32 draws at least (a float16 uniform rounds up to 1.0 too often to compare against p), as
  // minitorch.bernoulli(p)
  ScalarType ct = p.dtype() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  Tensor pc = to(p, ct, self.device());
  // one all() over both bounds (a NaN fails both): each tensor call here costs about as much as an 8x8 draw
  bool in_range =
      item(all(logical_and(ge(pc, wrapped_scalar(Scalar(0.0))), le(pc, wrapped_scalar(Scalar(1.0))))))
          .to_double() != 0;
  MT_CHECK(
      in_range,
      "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
      "If so, please report an enhancement request to PyTorch.)");
  copy_(self, lt(rand(self.sizes(), ct, self.device()), pc));
  return self;
}

Tensor binomial(const Tensor& count, const Tensor& prob) {
  MT_CHECK_NOT_IMPLEMENTED(count.device().type == DeviceType::CPU && prob.device().type == DeviceType::CPU,
                           "binomial: the C++ sampler runs on the CPU only");
  MT_CHECK(count.dtype() == prob.dtype(), "Found dtype ", dtype_short_name(prob.dtype()), " but expected ",
           dtype_short_name(count.dtype()));
  MT_CHECK(count.sizes() == prob.sizes(), "binomial: count and prob must have one shape (broadcast first)");
  Tensor c = contiguous(count), p = contiguous(prob);
  Tensor out = make_empty(c.sizes(), c.dtype(), c.device());
  RandomFillArgs args{RandomKind::binomial};
  args.count = &c;
  args.prob = &p;
  FreshWrites fresh;
  return fill_random(out, args);
}

Tensor rand(IntArrayRef sizes, ScalarType dtype, Device device) {
  Tensor t = empty(sizes, dtype, device);
  FreshWrites fresh;
  return uniform_(t, 0.0, 1.0);
}
Tensor randn(IntArrayRef sizes, ScalarType dtype, Device device) {
  Tensor t = empty(sizes, dtype, device);
  FreshWrites fresh;
  return normal_(t, 0.0, 1.0);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, ScalarType dtype, Device device) {
  Tensor t = empty(sizes, dtype == ScalarType::Undefined ? ScalarType::Long : dtype, device);
  FreshWrites fresh;
  return random_(t, low, high);
}
Tensor randperm(int64_t n, ScalarType dtype, Device device) {
  MT_CHECK(n >= 0, "n must be non-negative, got", n);
  // uniform [0, 1) float64 keys are the raw 53-bit draws; randperm shuffles on the CPU for every device
  Tensor keys = make_empty({n}, ScalarType::Double, Device(DeviceType::CPU));
  fill_random(keys, {RandomKind::uniform, 0.0, 1.0});
  Tensor idx = make_empty({n}, ScalarType::Long, Device(DeviceType::CPU));
  int64_t* q = idx.data<int64_t>();
  double* k = keys.data<double>();
  for (int64_t i = 0; i < n; ++i) q[i] = i;
  // Fisher-Yates driven by the generated uniforms
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = static_cast<int64_t>(k[i] * static_cast<double>(i + 1));
    std::swap(q[i], q[std::min(j, i)]);
  }
  return to(idx, dtype == ScalarType::Undefined ? ScalarType::Long : dtype, device);
}

}  // namespace mt
