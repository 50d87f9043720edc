// The CPU's complex elementwise loops (kernels/cpu/complex.cpp), entered from the real kernels' front door in
// kernels/cpu/elementwise.cpp when the iterator's input is complex64/complex128, and torch.complex's.
#pragma once
#include "core/TensorIterator.h"
#include "ops/elementwise.h"

namespace mt {

void complex_unary_cpu(const TensorIter& it, UnaryOp op);
void complex_binary_cpu(const TensorIter& it, BinaryOp op);
// torch.complex's one pass: operand 0 complex64/complex128, 1 and 2 the real and imaginary parts in its real
// dtype (ops/complex.cpp calls it for CPU tensors; other devices compose a stack of the parts).
void complex_from_parts_cpu(const TensorIter& it);

}  // namespace mt
