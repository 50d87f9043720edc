// The factories' argument handling (bind_factory.cpp), shared by the hand-written factory bindings and the
// generated ones (csrc/ops/ops.schema's factory rows call these from bind_funcs.cpp).
#pragma once
#include "python/bind.h"

namespace mt {

// a factory's fill: the tensor of these sizes, dtype and device
using Filler = Tensor (*)(IntArrayRef, ScalarType, Device);

// The size of a sized factory: positional ints or one sequence, or the keyword size= (a sequence of ints), in
// PyTorch's words when both or neither are given or size= is not a sequence.
DimVector factory_size(const char* name, const py::args& sizes, py::handle size);

// A sized factory's tensor (zeros, rand, ...): dtype (Undefined: out='s, else the default) and device (None:
// out='s, else the default device) as PyTorch's, made with the GIL released when big; written into out= when
// given (and out returned), else requires_grad applied.
Tensor factory_tensor(Filler fill, IntArrayRef size, ScalarType dtype, py::handle device, bool requires_grad,
                      py::handle out);

// A like-factory's tensor (zeros_like, ...): dtype and device default to the input's, the layout is the
// input's (memory_format None or preserve_format) or the one asked for.
Tensor like_tensor(const char* name, Filler fill, const Tensor& self, ScalarType dtype, py::handle device,
                   bool requires_grad, py::handle memory_format);

}  // namespace mt
