// out= support: PyTorch's rules for an output tensor (resize, overlap) and the elementwise ops that write
// straight into `out` through the TensorIter instead of computing a temporary and copying it in.
#pragma once
#include <initializer_list>

#include "core/Tensor.h"
#include "ops/elementwise.h"

namespace mt {

// Resizes `out` to `shape` if it differs, as PyTorch's resize_output: in place when its storage holds the new
// size from its offset (contiguous strides), else onto fresh storage. Returns true when `out` had elements,
// for which PyTorch warns (the binding does; the core has no warnings).
bool resize_out(const Tensor& out, IntArrayRef shape);

// PyTorch's assert_no_partial_overlap(out, input), with its message (check_writable is its internal-overlap
// check).
void check_out_overlap(const Tensor& out, const Tensor& input);

// torch.<op>(a, b, out=out) / torch.<op>(x, out=out): the result dtype must be castable to out's, out is
// resized to the broadcast shape (returns resize_out's answer), then written through one TensorIter when it
// has the result's dtype (an input may be out itself), else through a temporary and a casting copy. Autograd
// is the caller's check (PyTorch refuses out= when anything requires grad).
bool binary_out(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out);
bool unary_out(UnaryOp op, const Tensor& self, const Tensor& out);
// PyTorch's unary ops that keep the input's dtype (the Same rule: abs of a real, neg, floor, round...) write
// no out of another dtype (TensorIterator's check_all_same_dtype): "Found dtype Double but expected Float".
void check_unary_out_dtype(UnaryOp op, ScalarType in, ScalarType out);

// Whether a non-elementwise op may write its result straight into `out` (its *_into front end): out has the
// result's shape, dtype and device and elements, no memory shared with `inputs`, and is contiguous
// (`strided`: any layout without internal overlap, for kernels that take out's strides). Otherwise the
// binding computes a temporary and copies it in (resize, its warning, casts, aliasing), as before.
bool out_takes(const Tensor& out, IntArrayRef shape, ScalarType dtype, Device device, bool strided,
               std::initializer_list<const Tensor*> inputs);

}  // namespace mt
