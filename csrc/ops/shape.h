// Views (metadata only, sharing storage) and shape ops that copy (cat, stack, reshape of non-viewable input).
#pragma once
#include <vector>

#include "core/Tensor.h"

namespace mt {

Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
Tensor alias(const Tensor& self);
// Tensor.resize_: contiguous sizes over the same storage when it is large enough, else over a larger one that
// keeps the old elements (the new ones are uninitialized), as PyTorch's.
const Tensor& resize_(const Tensor& self, IntArrayRef sizes);
// Tensor.set_'s plain forms, PyTorch's set_storage_cpu_ (autograd/views.cpp's set_ front ends add the
// in-place rules and the history): self, keeping its dtype, over `storage` from element `offset` with `sizes`
// and `strides` (null: contiguous), its version bumped once and then counted apart from the storage's other
// tensors (an alias storage, core/StorageAlias.h), as PyTorch keeps the counter in the TensorImpl. A storage
// too small grows (PyTorch's resize of the storage), but only for self: ours never reallocates a storage in
// place, so the source keeps its memory; unchanged sizes and strides raise instead, as PyTorch's.
void set_storage_(const Tensor& self, const Storage& storage, int64_t offset, IntArrayRef sizes,
                  const IntArrayRef* strides);
// set_(): self over a new empty storage, sizes [0].
void set_empty_(const Tensor& self);
// set_(source)'s check (the same dtype) and set_(source, offset, size, stride)'s (a contiguous source), in
// PyTorch's words: made before the in-place rules, as its composites check them.
void check_set_source(const Tensor& self, const Tensor& source, bool with_geometry);
// Tensor.is_set_to: the same storage (an alias counts as its root), offset, sizes and strides.
bool is_set_to(const Tensor& self, const Tensor& src);
// Tensor.view(dtype): the same bytes read as another dtype; a different element size rescales the last dim
// (which must be dense), as PyTorch's. Not differentiable (the result carries no history).
Tensor view_dtype(const Tensor& self,
                  ScalarType dtype);                 // a new tensor object over the same memory and metadata
Tensor view(const Tensor& self, IntArrayRef sizes);  // sizes may hold one -1
Tensor reshape(const Tensor& self, IntArrayRef sizes);
Tensor permute(const Tensor& self, IntArrayRef dims);
Tensor transpose(const Tensor& self, int64_t d0, int64_t d1);
Tensor t(const Tensor& self);  // 2-D transpose; 0-D and 1-D returned as is
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, IntArrayRef dims);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor expand(const Tensor& self, IntArrayRef sizes);  // -1 keeps a size
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
Tensor slice(const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step);  // Python semantics
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim);
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef sizes, int64_t dim);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim);
// torch.tensor_split: `sections` views of near-equal length (the first size % sections one longer), or the
// views between the split `indices` (each wrapped and clamped as a slice bound).
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim);
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim);
// The tensors expanded (views) to their common broadcast shape (torch.broadcast_tensors); PyTorch's error
// naming the first pair that does not broadcast.
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
std::vector<Tensor> unbind(const Tensor& self, int64_t dim);
Tensor movedim(const Tensor& self, int64_t src, int64_t dst);
// The dims `src` moved to the positions `dst`, the others keeping their order in the places left.
Tensor movedim(const Tensor& self, IntArrayRef src, IntArrayRef dst);
Tensor diagonal(const Tensor& self, int64_t offset, int64_t d1, int64_t d2);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
// A copy of self with the order of elements reversed along each of `dims` (torch.flip).
Tensor flip(const Tensor& self, IntArrayRef dims);
// self rolled by shifts[i] places along dims[i] (torch.roll); no dims: the flattened tensor, shape kept.
// A composite of narrow and cat (both recorded), so its gradient is the opposite roll.
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
// cat's and stack's out= fast paths: the op's checks, then (true) the copies straight into `out` when
// out_takes it (ops/out.h); false leaves out untouched for the binding's general path.
bool cat_into(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim);
bool stack_into(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim);
// self tiled repeats[i] times along dim i (Tensor.repeat; leading new dims when repeats is longer): a fresh
// contiguous tensor written by one strided copy; differentiable through expand (the gradient sums over the
// repeats).
Tensor repeat(const Tensor& self, IntArrayRef repeats);
// Infers one -1 in `shape` from numel; RuntimeError in PyTorch's words when impossible.
DimVector infer_size(IntArrayRef shape, int64_t numel);

}  // namespace mt
