// Memory layouts of op outputs: PyTorch's rules for which strides a new tensor gets from its inputs.
#pragma once
#include <initializer_list>

#include "core/Tensor.h"

namespace mt {

// PyTorch's is_non_overlapping_and_dense: some permutation of the dims is contiguous.
bool non_overlapping_and_dense(const Tensor& t);
// Strides of a dense tensor of `sizes` in channels-last (4-d) or channels-last-3d (5-d) order.
DimVector channels_last_strides(IntArrayRef sizes);
// preserve_format (empty_like, clone, to): t's own strides when it is non-overlapping and dense, else dense
// strides in t's stride order (PyTorch's infer_dense_strides); empty means contiguous.
DimVector preserved_strides(const Tensor& t);
// The strides TensorIterator gives the output of an elementwise op over `inputs` with the broadcast `shape`
// (all contiguous: contiguous; all channels-last: channels-last; all the same dense strides: those; else the
// dims sorted by the inputs' strides, the first input deciding where it is not broadcast); empty means
// contiguous. Undefined inputs are skipped.
DimVector iter_output_strides(IntArrayRef shape, std::initializer_list<const Tensor*> inputs);
// An uninitialized tensor with these strides (contiguous when `strides` is empty); they must be dense.
Tensor empty_strided_dense(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device);
// The output of an elementwise op: make_empty with iter_output_strides.
Tensor empty_for_iter(IntArrayRef shape, ScalarType dtype, Device device,
                      std::initializer_list<const Tensor*> inputs);
// t laid out with `strides` (a copy unless it already has them); used by layers that compute contiguously
// and hand back their input's layout.
Tensor with_strides(const Tensor& t, IntArrayRef strides);
// A layer's contiguous result `out` laid out channels-last when any of `inputs` of its rank looks so (conv,
// batch_norm, pooling and upsampling hand back their input's layout, as PyTorch's do; our kernels compute in
// NCHW, so this is one more copy).
Tensor in_layout_of(const Tensor& out, std::initializer_list<const Tensor*> inputs);

}  // namespace mt
