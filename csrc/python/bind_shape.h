// The shape family's binding helpers (bind_shape.cpp), shared by its hand-written bindings and the generated
// ones (csrc/ops/ops.schema's shape rows name them in their calls; scripts/gen_ops.py includes this header).
#pragma once
#include "python/bind.h"
#include "python/strict_args.h"

namespace mt {

// PyTorch's `int[]` where a row has overloads (squeeze's dims, movedim's source, tensor_split's indices): a
// tuple or list whose first element, if any, is an int, as PyTorch's parser checks it before picking the
// overload; the rest are checked by the row's conversion (int_list_arg's "failed to unpack" message).
struct IntListArg {
  py::handle h;
  operator py::handle() const { return h; }  // NOLINT: the row's conversion reads it as the object
};

// PyTorch's sized `int[N]` where a row has overloads (conv2d's stride, whose other row takes a string
// padding): as IntListArg, or one int (a one-element integer or bool tensor too) standing for the whole list,
// as PyTorch's parser takes a sized list.
struct SizedIntListArg {
  py::handle h;
  operator py::handle() const { return h; }  // NOLINT: the row's conversion reads it as the object
};

// The in-place views (Tensor.t_, transpose_, squeeze_, unsqueeze_): self takes the view's sizes, strides and
// history (autograd::inplace_view), a bad argument leaving it as it was.
void t_(const Tensor& self);
void transpose_(const Tensor& self, int64_t d0, int64_t d1);
void squeeze_(const Tensor& self);
void squeeze_(const Tensor& self, IntArrayRef dims);
void unsqueeze_(const Tensor& self, int64_t dim);

// Tensor.select / minitorch.select: an out-of-range index in PyTorch's select() words (x[i] reaches the op
// directly and keeps the indexing message).
Tensor select_checked(const Tensor& self, int64_t dim, int64_t index);

// PyTorch's narrow.Tensor: a tensor start is a 0-dim integral one, checked before anything else
Tensor narrow_tensor_start(const Tensor& self, int64_t dim, const Tensor& start, int64_t length);

}  // namespace mt

namespace pybind11::detail {
template <>
struct type_caster<mt::IntListArg> {
  // arg_errors.cpp recognises the parameter by this text
  PYBIND11_TYPE_CASTER(mt::IntListArg, const_name("tuple of ints"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    // a list PyTorch's parser takes by its first element (is_int_or_symint: a one-element integral tensor
    // too); the elements are read with the op's own words later
    if ((PyList_Check(o) || PyTuple_Check(o)) &&
        (PySequence_Fast_GET_SIZE(o) == 0 || mt::int_list_head(PySequence_Fast_GET_ITEM(o, 0)))) {
      value.h = src;
      return true;
    }
    return mt::refuse(o, "tuple of ints");
  }
  static handle cast(const mt::IntListArg& l, return_value_policy, handle) { return l.h.inc_ref(); }
};
template <>
struct type_caster<mt::SizedIntListArg> {
  PYBIND11_TYPE_CASTER(mt::SizedIntListArg, const_name("tuple of ints"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    int64_t v = 0;
    // PyTorch's is_int_or_symint for the lone value and the first element: an int, or a one-element tensor of
    // an integer type or bool (sum(x, torch.tensor(True)) reduces dim 1)
    const bool list = PyList_Check(o) || PyTuple_Check(o);
    if ((list && (PySequence_Fast_GET_SIZE(o) == 0 || mt::int_list_head(PySequence_Fast_GET_ITEM(o, 0)))) ||
        (!list && mt::int_list_item(o, true, false, &v))) {
      value.h = src;
      return true;
    }
    return mt::refuse(o, "tuple of ints");
  }
  static handle cast(const mt::SizedIntListArg& l, return_value_policy, handle) { return l.h.inc_ref(); }
};
}  // namespace pybind11::detail
