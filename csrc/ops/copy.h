// Copies and conversions: copy_ (any dtype, any strides, broadcasting src), to(), contiguous(), clone().
#pragma once
#include "core/Scalar.h"
#include "core/Tensor.h"

namespace mt {

// non_blocking: a host<->device copy may return before it finishes when the host side is pinned (PyTorch's
// rule); the current stream orders it with later work.
const Tensor& copy_(const Tensor& self, const Tensor& src, bool non_blocking = false);
// copy_ into a part of a tensor the caller has just allocated and holds alone (cat's output): same device,
// shapes equal, no autograd; skips copy_'s overlap, writability and graph checks, a third of a small copy.
void copy_into_fresh(const Tensor& dst, const Tensor& src);
// The checks every in-place write makes on its target: no inference tensor outside inference mode, and no
// elements that alias each other (an expanded dim: the write would race and apply an op several times to
// one element; PyTorch refuses both, and so do we; for overlap only the certain case: stride 0, size > 1).
void check_writable(const Tensor& self);
// `src` as an in-place op on `self` may read it: a copy when it shares memory with self other than as the
// very same view (x.add_(x.t()), a shifted narrow), since the kernel would read elements it has already
// overwritten.
Tensor unaliased_input(const Tensor& self, const Tensor& src);
// PyTorch's checked Scalar conversion (fill_, linspace's ends): a number the dtype cannot hold raises ("value
// cannot be converted to type uint8_t without overflow") instead of wrapping (ints) or becoming inf (floats);
// inf and nan stay allowed for floating dtypes, and an unsigned dtype takes negatives down to -max (they
// wrap, as `a - b` on uint8 does).
void check_scalar_fits(const Scalar& v, ScalarType t);
Tensor contiguous(const Tensor& self);
Tensor clone(const Tensor& self);
// Returns self when nothing changes and copy is false (PyTorch's .to semantics).
Tensor to(const Tensor& self, ScalarType dtype, Device device, bool copy = false, bool non_blocking = false);
// A copy of a CPU tensor in page-locked memory (fast, asynchronous host<->device copies); needs CUDA.
Tensor pin_memory(const Tensor& self);
bool is_pinned(const Tensor& self);
const Tensor& fill_(const Tensor& self, const Scalar& value);
const Tensor& zero_(const Tensor& self);
// The value of a one-element tensor (any dtype) as a Scalar of its kind; syncs on CUDA.
Scalar item(const Tensor& self);
// Resolves "cuda" to "cuda:<current>" and checks the device exists (clear error without a GPU).
Device resolve_device(Device d);

}  // namespace mt
