// Factories: fresh tensors filled with constants, ranges or random numbers.
#pragma once
#include <optional>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace mt {

// Resolves dtype Undefined to the default float dtype and checks the device can hold memory.
Tensor empty(IntArrayRef sizes, ScalarType dtype, Device device);
Tensor full(IntArrayRef sizes, const Scalar& value, ScalarType dtype, Device device);
Tensor zeros(IntArrayRef sizes, ScalarType dtype, Device device);
Tensor ones(IntArrayRef sizes, ScalarType dtype, Device device);
// dtype Undefined: int64 when start, end and step are integers, else the default float dtype.
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype, Device device);
Tensor linspace(double start, double end, int64_t steps, ScalarType dtype, Device device);
Tensor eye(int64_t n, int64_t m, ScalarType dtype, Device device);
// A 0-dim tensor holding v (dtype Undefined: the number's natural dtype).
Tensor scalar_tensor(const Scalar& v, ScalarType dtype, Device device);
// A 0-dim CPU tensor for a Python number in an op: promotes by category only.
Tensor wrapped_scalar(const Scalar& v);

// Random numbers from the default generator of the tensor's device (Philox counter-based, seeded).
void manual_seed(uint64_t seed);
uint64_t initial_seed();
uint64_t seed();  // reseeds from a non-deterministic source, returns the seed
Tensor& uniform_(Tensor& self, double from, double to);
Tensor& normal_(Tensor& self, double mean, double std);
Tensor& random_(Tensor& self, int64_t low, int64_t high);  // integers in [low, high)
// random_()'s end without bounds, PyTorch's: every integer the dtype holds exactly, [0, 2^digits] for
// floating dtypes and [0, max] for integers (int64's max itself is left out: the end is an int64 too).
int64_t random_default_end(ScalarType dtype);
// random_() with no bounds: [0, random_default_end); a complex tensor is refused by PyTorch's kernel dispatch
// unless it is empty
Tensor& random_default_(Tensor& self);
Tensor& bernoulli_(Tensor& self, double p);
// bernoulli_(p) with a tensor of probabilities broadcast to self
Tensor& bernoulli_tensor_(Tensor& self, const Tensor& p);
// the in-place samplers of other distributions (ops/factory.cpp): a uniform (normal) draw mapped in place
Tensor& exponential_(Tensor& self, double lambd);
Tensor& log_normal_(Tensor& self, double mean, double std);
Tensor& cauchy_(Tensor& self, double median, double sigma);
Tensor& geometric_(Tensor& self, double p);
Tensor rand(IntArrayRef sizes, ScalarType dtype, Device device);
Tensor randn(IntArrayRef sizes, ScalarType dtype, Device device);
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, ScalarType dtype, Device device);
Tensor randperm(int64_t n, ScalarType dtype, Device device);

}  // namespace mt
