// The factories' argument handling (bind_factory.cpp), shared by the hand-written factory bindings and the
// generated ones (csrc/ops/ops.schema's factory rows call these from bind_funcs.cpp).
#pragma once
#include "python/bind.h"
#include "python/strict_args.h"

namespace mt {

// a factory's fill: the tensor of these sizes, dtype and device
using Filler = Tensor (*)(IntArrayRef, ScalarType, Device);

// The size of a sized factory: positional ints or one sequence, or the keyword size= (a sequence of ints), in
// PyTorch's words when both or neither are given or size= is not a sequence.
DimVector factory_size(const char* name, const py::args& sizes, py::handle size);

// size, checked as PyTorch 2.15's torch.zeros checks it before anything else ("zeros: Dimension size must be
// non-negative."; the other factories keep empty's "Trying to create tensor with negative dimension").
IntArrayRef nonnegative_size(const char* name, IntArrayRef size);

// A sized factory's tensor (zeros, rand, ...): dtype (Undefined: out='s, else the default) and device (None:
// out='s, else the default device) as PyTorch's, made with the GIL released when big; written into out= when
// given (and out returned), else requires_grad applied.
Tensor factory_tensor(Filler fill, IntArrayRef size, ScalarType dtype, py::handle device, bool requires_grad,
                      py::handle out);

// A like-factory's tensor (zeros_like, ...): dtype and device default to the input's, the layout is the
// input's (memory_format None or preserve_format) or the one asked for.
Tensor like_tensor(const char* name, Filler fill, const Tensor& self, ScalarType dtype, py::handle device,
                   bool requires_grad, py::handle memory_format);

// Tensor.new_zeros/new_ones/new_empty (fill) and new_full: dtype and device the tensor's unless given (a
// device given is taken as is: no default device), requires_grad applied.
Tensor new_tensor_of(Filler fill, const Tensor& self, IntArrayRef size, ScalarType dtype, py::handle device,
                     bool requires_grad);
Tensor new_full_tensor(const Tensor& self, IntArrayRef size, const Scalar& value, ScalarType dtype,
                       py::handle device, bool requires_grad);

// torch.empty: memory_format None or contiguous_format makes a contiguous tensor, channels_last(_3d) that
// layout; preserve_format is refused, as PyTorch's
Tensor empty_tensor(IntArrayRef size, ScalarType dtype, py::handle device, bool requires_grad, py::handle out,
                    py::handle memory_format);

// Tensor.fill_(value) with a 0-dim value (a value requiring grad is copied, so it receives the gradient)
const Tensor& fill_with_tensor_(const Tensor& self, const Tensor& value);

// The overloaded and one-off factories of the schema (arange, eye, full, randperm, scalar_tensor): dtype
// Undefined and device None take out='s when out= is given, as factory_tensor.
Tensor arange_tensor(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype,
                     py::handle device, bool requires_grad, py::handle out);
Tensor eye_tensor(int64_t n, int64_t m, ScalarType dtype, py::handle device, bool requires_grad,
                  py::handle out);
Tensor full_tensor(IntArrayRef size, const Scalar& value, ScalarType dtype, py::handle device,
                   bool requires_grad, py::handle out);
Tensor randperm_tensor(int64_t n, ScalarType dtype, py::handle device, bool requires_grad, py::handle out);
// full_like: dtype, device and layout (memory_format) the input's unless given
Tensor full_like_tensor(const Tensor& self, const Scalar& value, ScalarType dtype, py::handle device,
                        bool requires_grad, py::handle memory_format);
// randint(high, size) and (low, high, size): dtype Undefined (int64, or out='s) and device None as
// factory_tensor's
Tensor randint_tensor(int64_t low, int64_t high, IntArrayRef size, ScalarType dtype, py::handle device,
                      bool requires_grad, py::handle out);
// randint_like(input, high) and (input, low, high): the input's sizes, dtype and device unless given
Tensor randint_like_tensor(const Tensor& self, int64_t low, int64_t high, ScalarType dtype,
                           py::handle device);
// randint_like's Tensor high (PyTorch's randint_like.Tensor): a 0-dim CPU tensor, read as an int (5.7 is 5)
int64_t randint_like_high(const Tensor& high);
// the default float dtype whatever the number is (scalar_tensor(0) is float32), as PyTorch's
Tensor scalar_tensor_of(const Scalar& s, ScalarType dtype, py::handle device, bool requires_grad);
// tril_indices/triu_indices: dtype None is int64 (PyTorch's long), device None the default device
using TriangleIndices = Tensor (*)(int64_t, int64_t, int64_t, ScalarType, Device);
Tensor triangle_indices_tensor(TriangleIndices fill, int64_t row, int64_t col, int64_t offset,
                               ScalarType dtype, py::handle device, bool requires_grad);

// A Scalar|Tensor argument (linspace's and logspace's endpoints): a number, or a tensor whose rank the call
// checks before its value is read. dim is -1 for a number, which is read as a Scalar and never wrapped in a
// tensor; a 0-dim tensor's value is read, a tensor of more dims keeps only its rank.
struct RankedScalar {
  Scalar value;
  int64_t dim = -1;
};
RankedScalar ranked_scalar(py::handle h, const char* name);

// linspace and logspace: an endpoint tensor of more than 0 dims is PyTorch's RuntimeError naming both ends'
// ranks; complex endpoints (or a complex dtype) make a complex result. dtype and device as factory_tensor's.
Tensor linspace_tensor(const RankedScalar& start, const RankedScalar& end, int64_t steps, ScalarType dtype,
                       py::handle device, bool requires_grad, py::handle out);
Tensor logspace_tensor(const RankedScalar& start, const RankedScalar& end, int64_t steps, double base,
                       ScalarType dtype, py::handle device, bool requires_grad, py::handle out);

// An overloaded factory's size (randint's SymInt[]): a tuple or list (minitorch.Size is a tuple), handed on
// to parse_size; anything else is refused, so pybind11 tries the next row and arg_errors.cpp words
// PyTorch's "must be tuple of ints, not int" (randint(0, 3) is a forgotten size, not a size of 3).
struct SizeArg {
  py::handle h;
  operator py::handle() const { return h; }  // NOLINT: the row's conversion reads it as the object
};

// An overloaded row's Scalar (arange's end, fill_'s value): PyTorch's Number, a number or a NumPy scalar
// (not a Fraction or a Decimal, which PyTorch's parser refuses), or a 0-dim tensor that does not require
// grad, handed on to the row's Scalar conversion; None, a string, a list or another tensor is refused, so the
// next row is tried and a call no row takes gets PyTorch's "invalid combination of arguments". OptScalarArg
// (Scalar?) also takes None.
struct ScalarArg {
  py::handle h;
  operator py::handle() const { return h; }  // NOLINT: the row's conversion reads it as the object
};
struct OptScalarArg {
  py::handle h;
  operator py::handle() const { return h; }  // NOLINT: the row's conversion reads it as the object
};
bool is_torch_number(PyObject* o);  // bind_factory.cpp: ScalarArg's rule
// An overloaded row's Generator? (random_'s, bernoulli_'s generator=): None or a minitorch.Generator, handed
// on to the row's GeneratorScope; anything else is refused, so a call no row takes is PyTorch's "invalid
// combination of arguments" rather than the first row's own TypeError
struct GeneratorArg {
  py::handle h;
  operator py::handle() const { return h; }  // NOLINT: the row's conversion reads it as the object
};
bool is_generator(py::handle h);  // bind_factory.cpp

// clamp's Number bounds as the wrapped 0-dim tensors the op takes (a number's lowest promotion priority)
std::optional<Tensor> wrapped_bound(const std::optional<Scalar>& s);

// An overloaded row's Tensor (fill_'s value, bernoulli_'s p): a type check, handed on to the row's
// conversion. A number refused here costs the check alone on its way to the next row, where pybind11's own
// Tensor caster would look for a foreign module's type first (raising and clearing an AttributeError: ~4,800
// instructions).
struct TensorArg {
  py::handle h;
};
// an overloaded row's Tensor? (clamp's bounds): None or a tensor, as TensorArg
struct OptTensorArg {
  py::handle h;
};
// A public row's Tensor|Scalar (clamp_min's min, lerp's weight): a tensor, or a number or NumPy scalar (not
// an ndarray, a Fraction or a Decimal) for the row's conversion to wrap; anything else is refused, and
// arg_errors.cpp words the "invalid combination of arguments" of PyTorch's Tensor and Number overloads
struct OperandArg {
  py::handle h;
  operator py::handle() const { return h; }  // NOLINT: the row's conversion reads it as the object
};

// A Scalar|Tensor argument's caster: PyTorch's (Tensor start) and (Number start) overloads of one parameter
// in a single row, so a call costs one row's conversions. It takes a tensor of any rank or a number as
// PyTorch's Number does (a bool, int, float or complex, a NumPy scalar, not a 0-d ndarray); anything else is
// refused and arg_errors.cpp words the "invalid combination of arguments" PyTorch's 2^k overloads give,
// listing them.
struct ScalarOrTensorArg {
  py::handle h;
};
bool is_number_arg(PyObject* o);  // bind_factory.cpp

}  // namespace mt

namespace pybind11::detail {
template <>
struct type_caster<mt::TensorArg> {
  PYBIND11_TYPE_CASTER(mt::TensorArg, const_name("Tensor"));
  bool load(handle src, bool) {
    if (!mt::g_tensor_type || !PyObject_TypeCheck(src.ptr(), mt::g_tensor_type)) return false;
    value.h = src;
    return true;
  }
  static handle cast(const mt::TensorArg& s, return_value_policy, handle) { return s.h.inc_ref(); }
};
template <>
struct type_caster<mt::ScalarOrTensorArg> {
  // arg_errors.cpp recognises the parameter by this text
  PYBIND11_TYPE_CASTER(mt::ScalarOrTensorArg, const_name("Scalar|Tensor"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    if (!PyFloat_CheckExact(o) && !PyLong_CheckExact(o) &&
        !(mt::g_tensor_type && PyObject_TypeCheck(o, mt::g_tensor_type)) && !mt::is_number_arg(o))
      return mt::refuse(o, "Scalar|Tensor");
    value.h = src;
    return true;
  }
  static handle cast(const mt::ScalarOrTensorArg& s, return_value_policy, handle) { return s.h.inc_ref(); }
};
template <>
struct type_caster<mt::ScalarArg> {
  PYBIND11_TYPE_CASTER(mt::ScalarArg, const_name("Number"));
  bool load(handle src, bool) {
    if (!mt::is_torch_number(src.ptr())) return mt::refuse(src.ptr(), "Number");
    value.h = src;
    return true;
  }
  static handle cast(const mt::ScalarArg& s, return_value_policy, handle) { return s.h.inc_ref(); }
};
template <>
struct type_caster<mt::OptScalarArg> {
  PYBIND11_TYPE_CASTER(mt::OptScalarArg, const_name("Number | None"));
  bool load(handle src, bool) {
    if (!src.is_none() && !mt::is_torch_number(src.ptr())) return mt::refuse(src.ptr(), "Number | None");
    value.h = src;
    return true;
  }
  static handle cast(const mt::OptScalarArg& s, return_value_policy, handle) { return s.h.inc_ref(); }
};
template <>
struct type_caster<mt::GeneratorArg> {
  PYBIND11_TYPE_CASTER(mt::GeneratorArg, const_name("torch.Generator"));
  bool load(handle src, bool) {
    if (!src.is_none() && !mt::is_generator(src)) return mt::refuse(src.ptr(), "torch.Generator");
    value.h = src;
    return true;
  }
  static handle cast(const mt::GeneratorArg& g, return_value_policy, handle) { return g.h.inc_ref(); }
};
template <>
struct type_caster<mt::OperandArg> {
  // arg_errors.cpp recognises the parameter by this text
  PYBIND11_TYPE_CASTER(mt::OperandArg, const_name("Tensor|Scalar"));
  bool load(handle src, bool) {
    // a float or an int first: the common number costs two compares
    PyObject* o = src.ptr();
    if (!PyFloat_CheckExact(o) && !PyLong_CheckExact(o) &&
        !(mt::g_tensor_type && PyObject_TypeCheck(o, mt::g_tensor_type)) && !mt::is_number_arg(o))
      return mt::refuse(o, "Tensor|Scalar");
    value.h = src;
    return true;
  }
  static handle cast(const mt::OperandArg& s, return_value_policy, handle) { return s.h.inc_ref(); }
};
template <>
struct type_caster<mt::OptTensorArg> {
  PYBIND11_TYPE_CASTER(mt::OptTensorArg, const_name("Tensor | None"));
  bool load(handle src, bool) {
    if (!src.is_none() && !(mt::g_tensor_type && PyObject_TypeCheck(src.ptr(), mt::g_tensor_type)))
      return false;
    value.h = src;
    return true;
  }
  static handle cast(const mt::OptTensorArg& s, return_value_policy, handle) { return s.h.inc_ref(); }
};
template <>
struct type_caster<mt::SizeArg> {
  PYBIND11_TYPE_CASTER(mt::SizeArg, const_name("tuple of ints"));
  bool load(handle src, bool) {
    if (!PyTuple_Check(src.ptr()) && !PyList_Check(src.ptr())) return mt::refuse(src.ptr(), "tuple of ints");
    value.h = src;
    return true;
  }
  static handle cast(const mt::SizeArg& s, return_value_policy, handle) { return s.h.inc_ref(); }
};
}  // namespace pybind11::detail
