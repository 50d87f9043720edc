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
MT_DECLARE_STUB(copy_stub, CopyKernelFn);
MT_DECLARE_STUB(cross_device_copy_stub, CrossDeviceCopyFn);
MT_DECLARE_STUB(fill_stub, FillKernelFn);

// Random fills of a contiguous tensor (the CPU kernel still sits in ops/factory.cpp, CUDA's in random.cu).
// Element i draws from Philox(seed, i, offset) alone: values depend on the seed and call sequence only.
// uniform: [a, b) keeping the dtype's mantissa bits; normal: mean a, std b; integers: [a, b); bernoulli: p=a.
enum class RandomKind : int { uniform, normal, integers, bernoulli };
using RandomFillFn = void (*)(const Tensor& self, RandomKind kind, double a, double b, uint64_t seed,
                              uint64_t offset);
MT_DECLARE_STUB(random_fill_stub, RandomFillFn);

// elementwise.cpp
MT_DECLARE_STUB(unary_stub, UnaryKernelFn);
MT_DECLARE_STUB(binary_stub, BinaryKernelFn);
MT_DECLARE_STUB(where_stub, WhereKernelFn);
MT_DECLARE_STUB(clamp_stub, ClampKernelFn);
MT_DECLARE_STUB(param_unary_stub, ParamUnaryKernelFn);

// reduce.cpp (reductions, softmax, cumsum): declared in ops/reduce.h next to their argument structs.
// index.cpp: index, index_put_, gather, scatter, index_select, nonzero (signatures in ops/index.h)
MT_DECLARE_STUB(index_gather_stub, IndexGatherFn);
MT_DECLARE_STUB(index_put_stub, IndexPutFn);
MT_DECLARE_STUB(nonzero_stub, NonzeroFn);
// linalg.cpp (gemm): declared in ops/linalg.h.

}  // namespace mt
