// The CPU's complex elementwise loops (kernels/cpu/complex.cpp), entered from the real kernels' front door in
// kernels/cpu/elementwise.cpp when the iterator's input is complex64/complex128.
#pragma once
#include "core/TensorIterator.h"
#include "ops/elementwise.h"

namespace mt {

void complex_unary_cpu(const TensorIter& it, UnaryOp op);
void complex_binary_cpu(const TensorIter& it, BinaryOp op);

}  // namespace mt
