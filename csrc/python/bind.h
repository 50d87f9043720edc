// Shared binding helpers: the Tensor type caster and conversions of Python arguments (dtype, device,
// sizes, scalars) used by every csrc/python/bind_*.cpp. Nothing here computes.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace py = pybind11;

// Tensor crosses as the registered TensorImpl with a shared_ptr holder, so one C++ tensor has at most one
// live Python object (pybind11's instance registry) and identity checks behave as in PyTorch.
namespace pybind11 {
namespace detail {
template <>
struct type_caster<mt::Tensor> {
  PYBIND11_TYPE_CASTER(mt::Tensor, const_name("Tensor"));
  bool load(handle src, bool convert) {
    make_caster<std::shared_ptr<mt::TensorImpl>> inner;
    if (src.is_none() || !inner.load(src, convert)) return false;
    value = mt::Tensor(cast_op<std::shared_ptr<mt::TensorImpl>>(inner));
    return true;
  }
  static handle cast(const mt::Tensor& t, return_value_policy, handle parent) {
    if (!t.defined()) return none().release();
    return make_caster<std::shared_ptr<mt::TensorImpl>>::cast(t.ptr(), return_value_policy::take_ownership,
                                                              parent);
  }
};
}  // namespace detail
}  // namespace pybind11

namespace mt {

using TensorClass = py::class_<TensorImpl, std::shared_ptr<TensorImpl>>;

// The Python dtype object: a singleton per ScalarType, so `t.dtype is minitorch.float32` holds.
struct DType {
  ScalarType st;
};
DType* dtype_object(ScalarType st);

// None -> Undefined; minitorch.dtype; Python bool/int/float types (as PyTorch accepts).
ScalarType parse_dtype(py::handle h);
// None -> CPU; "cuda:1", minitorch.device, int (a CUDA index).
Device parse_device(py::handle h);
// A Python number or 1-element tensor as a Scalar; TypeError naming `what` otherwise.
Scalar parse_scalar(py::handle h, const char* what = "value");
bool is_python_scalar(py::handle h);
// A tensor operand: tensors pass through; Python numbers become wrapped 0-dim tensors.
Tensor to_operand(py::handle h, const char* what = "other");
// Sizes from f(2, 3), f((2, 3)), f([2, 3]) or f(Size): *args where a single sequence is unpacked.
DimVector parse_size(py::handle h);
DimVector parse_size_args(const py::args& args);
// int or tuple/list of ints as dims; None -> empty.
DimVector parse_dims(py::handle h);
// Python object for a Scalar (bool/int/float).
py::object scalar_to_py(const Scalar& s);
// minitorch.Size(tuple)
py::object make_size(IntArrayRef sizes);
// Applies requires_grad=True from a factory argument (leaf tensor).
Tensor set_requires_grad(const Tensor& t, bool requires_grad);

void init_dtype_device(py::module_& m);
void init_tensor(py::module_& m, TensorClass& cls);
void init_factory(py::module_& m, TensorClass& cls);
void init_shape(py::module_& m, TensorClass& cls);
void init_elementwise(py::module_& m, TensorClass& cls);
void init_reduce(py::module_& m, TensorClass& cls);
void init_index(py::module_& m, TensorClass& cls);
void init_linalg(py::module_& m, TensorClass& cls);
void init_cuda(py::module_& m);
void init_dlpack(py::module_& m);
void init_amp(py::module_& m);
void init_foreach(py::module_& m);
void init_conv(py::module_& m);
void init_nn(py::module_& m);  // nn ops into _C._nn (helper normops)
void init_loss(py::module_& m);
void init_distributed(py::module_& m);  // _C._distributed (helper dist)

}  // namespace mt
