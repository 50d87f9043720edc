// The DispatchStubs of the copy, fill, elementwise, index and random families (what a device backend
// registers for them); conv, pool, reduce, sort, linalg, loss, nn, foreach and attention declare theirs in
// their own header.
#pragma once
#include "core/Scalar.h"
#include "core/TensorIterator.h"
#include "ops/Dispatch.h"
#include "ops/elementwise.h"
#include "ops/index.h"

namespace mt {

// copy.cpp: dst (operand 0) <- src (operand 1), any dtype pair, same device.
using CopyKernelFn = void (*)(const TensorIter& iter);
// copy between devices (CPU <-> CUDA, CUDA <-> CUDA); registered by the CUDA backend.
using CrossDeviceCopyFn = void (*)(const Tensor& dst, const Tensor& src, bool non_blocking);
using FillKernelFn = void (*)(const TensorIter& iter, const Scalar& value);

// Random fills of a contiguous tensor (kernels/cpu/random.cpp, kernels/cuda/random.cu; front end in
// ops/factory.cpp), drawn from Philox(seed, ., offset): values depend on the seed and the call sequence only,
// never on the thread count or grid. Each device lays out its counters its own way (CPU: one subsequence per
// 4096-element chunk; CUDA: one per element), so one seed gives different values on the two, as in PyTorch.
// uniform: [a, b) keeping the dtype's mantissa bits; normal: mean a, std b; integers: [low, high);
// bernoulli: p = a; binomial: Binomial(count, prob) per element, count and prob contiguous tensors of self's
// shape and dtype (float32 or float64; the CPU kernel only, ops/factory.cpp binomial sends no other device);
// cauchy: uniform [0, 1) draws mapped to median a plus sigma b times tan(pi (u - 1/2)), float32 or float64,
// by the steps and roundings of cauchy_'s in-place ops (the CPU kernel only, as binomial).
enum class RandomKind : int { uniform, normal, integers, bernoulli, binomial, cauchy };
struct RandomFillArgs {
  RandomKind kind;
  double a = 0, b = 0;
  int64_t low = 0, high = 0;  // int64, not double: randint(-2**63, 2**62 + 1) has bounds a double cannot hold
  const Tensor* count = nullptr;
  const Tensor* prob = nullptr;
};
using RandomFillFn = void (*)(const Tensor& self, const RandomFillArgs& args, uint64_t seed, uint64_t offset);

// The stubs of copy, fill, random, elementwise (signatures in ops/elementwise.h) and index (ops/index.h); the
// other families expand their own group of ops/op_table.h in their header.
MT_STUBS_KERNELS_H(MT_DECLARE_STUB_ROW)

}  // namespace mt
