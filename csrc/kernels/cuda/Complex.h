// The CUDA complex64/complex128 elementwise kernels (kernels/cuda/complex.cu), entered from the real kernels'
// front doors (fill, copy, where, the unary and binary tables) when an operand is complex.
#pragma once
#include "core/Scalar.h"
#include "core/TensorIterator.h"
#include "ops/elementwise.h"

namespace mt {

void complex_fill_cuda(const TensorIter& it, const Scalar& value);
// dtypes[0] != dtypes[1], at least one of them complex
void complex_copy_cuda(const TensorIter& it);
void complex_where_cuda(const TensorIter& it);
void complex_unary_cuda(const TensorIter& it, UnaryOp op);
void complex_binary_cuda(const TensorIter& it, BinaryOp op);

}  // namespace mt
