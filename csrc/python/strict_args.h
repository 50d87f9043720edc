// PyTorch's argument kinds for int and bool parameters of the hand-written and generated bindings: the
// parser refuses a bool for an int, an int for a bool, and a float or float tensor for an int.
#pragma once
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace mt {

// The bound Tensor class (set by init_tensor): a tensor given for an int is judged by its dtype and rank.
extern PyTypeObject* g_tensor_type;
// A tensor given for an int: PyTorch's parser takes a 0-d integer (not bool) tensor for an `int`, and a
// one-element integer tensor of any rank for a `SymInt` (topk's k, narrow's start and length); false for
// any other tensor (bind_tensor.cpp).
bool load_tensor_int(PyObject* o, bool symint, int64_t* out);

// The arguments the strict casters refused in the current call, each with the signature text of the kind it
// was refused for: when no overload takes a call, arg_errors.cpp words PyTorch's TypeError from them.
struct Refusal {
  PyObject* obj;
  const char* kind;
};
// A value's type as PyTorch's messages name it: "int", "Tensor", "numpy.bool" (arg_errors.cpp).
std::string arg_type_name(pybind11::handle v);
// Records a refusal (the first few of a call are kept) and returns false, the caster's answer.
bool refuse(PyObject* o, const char* kind);
// True the first time any of PyTorch's deprecated signatures is used in the process (its one warning).
bool deprecated_overload_first_use();

// An int as PyTorch's parser takes it: a Python int that is not a bool, a NumPy integer, an integer tensor as
// load_tensor_int says; for a SymInt (symint) also anything else with __index__ (a 0-d NumPy array). False
// for the wrong kind; ValueError (PyTorch's) for an int past int64. pybind11's own int64_t caster takes bools
// and, converting, anything with __int__ (a 0-d float tensor).
inline bool load_strict_int(PyObject* o, int64_t* out, bool symint = false) {
  if (!PyLong_CheckExact(o)) {
    if (PyBool_Check(o) || !PyIndex_Check(o)) return false;
    if (g_tensor_type && PyObject_TypeCheck(o, g_tensor_type)) return load_tensor_int(o, symint, out);
    // an int subclass or a NumPy integer scalar (numpy.int64: not numpy.ndarray, whose __index__ takes 0-d
    // arrays, nor numpy.bool, whose __index__ refuses)
    const char* tp = Py_TYPE(o)->tp_name;
    if (!symint && !PyLong_Check(o) &&
        (std::strncmp(tp, "numpy.", 6) != 0 || std::strcmp(tp, "numpy.ndarray") == 0))
      return false;
    PyObject* idx = PyNumber_Index(o);
    if (!idx) {
      PyErr_Clear();  // an __index__ that refuses: the wrong kind, not an error of its own
      return false;
    }
    pybind11::object owned = pybind11::reinterpret_steal<pybind11::object>(idx);
    return load_strict_int(idx, out);
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow) throw pybind11::value_error("Overflow when unpacking long long");
  *out = v;
  return true;
}

// A bool is True or False only: PyTorch refuses ints, NumPy bools and bool tensors here.
inline bool is_strict_bool(PyObject* o) {
  return o == Py_True || o == Py_False;
}

// Parameter types for bindings whose PyTorch signature says int / SymInt / bool / int? / bool?; each converts
// to the plain C++ value, so a lambda's body reads them as before. pybind11 tries the next overload when one
// refuses, and arg_errors.cpp words the TypeError when none takes the call.
struct StrictInt {
  StrictInt(int64_t i = 0) : v(i) {}  // NOLINT: C++ callers pass plain values
  int64_t v;
  operator int64_t() const { return v; }
};
struct StrictSymInt {
  StrictSymInt(int64_t i = 0) : v(i) {}  // NOLINT
  int64_t v;
  operator int64_t() const { return v; }
};
struct StrictBool {
  StrictBool(bool b = false) : v(b) {}  // NOLINT
  bool v;
  operator bool() const { return v; }
};
struct OptInt {
  OptInt(std::optional<int64_t> i = std::nullopt) : v(i) {}  // NOLINT
  std::optional<int64_t> v;
  operator std::optional<int64_t>() const { return v; }
};
struct OptBool {
  OptBool(std::optional<bool> b = std::nullopt) : v(b) {}  // NOLINT
  std::optional<bool> v;
  operator std::optional<bool>() const { return v; }
};

}  // namespace mt

// The casters' names are the kinds' signature texts, which arg_errors.cpp matches the refusals against.
namespace pybind11 {
namespace detail {
template <>
struct type_caster<mt::StrictInt> {
  PYBIND11_TYPE_CASTER(mt::StrictInt, const_name("int"));
  bool load(handle src, bool) {
    return mt::load_strict_int(src.ptr(), &value.v) || mt::refuse(src.ptr(), "int");
  }
  static handle cast(const mt::StrictInt& i, return_value_policy, handle) { return PyLong_FromLongLong(i.v); }
};
template <>
struct type_caster<mt::StrictSymInt> {
  PYBIND11_TYPE_CASTER(mt::StrictSymInt, const_name("int"));
  bool load(handle src, bool) {
    return mt::load_strict_int(src.ptr(), &value.v, true) || mt::refuse(src.ptr(), "int");
  }
  static handle cast(const mt::StrictSymInt& i, return_value_policy, handle) {
    return PyLong_FromLongLong(i.v);
  }
};
template <>
struct type_caster<mt::StrictBool> {
  PYBIND11_TYPE_CASTER(mt::StrictBool, const_name("bool"));
  bool load(handle src, bool) {
    if (!mt::is_strict_bool(src.ptr())) return mt::refuse(src.ptr(), "bool");
    value.v = src.ptr() == Py_True;
    return true;
  }
  static handle cast(const mt::StrictBool& b, return_value_policy, handle) {
    return handle(b.v ? Py_True : Py_False).inc_ref();
  }
};
template <>
struct type_caster<mt::OptInt> {
  PYBIND11_TYPE_CASTER(mt::OptInt, const_name("int | None"));
  bool load(handle src, bool) {
    if (src.is_none()) {
      value.v.reset();
      return true;
    }
    int64_t v = 0;
    if (!mt::load_strict_int(src.ptr(), &v)) return mt::refuse(src.ptr(), "int | None");
    value.v = v;
    return true;
  }
  static handle cast(const mt::OptInt& i, return_value_policy, handle) {
    return i.v ? handle(PyLong_FromLongLong(*i.v)) : none().release();
  }
};
template <>
struct type_caster<mt::OptBool> {
  PYBIND11_TYPE_CASTER(mt::OptBool, const_name("bool | None"));
  bool load(handle src, bool) {
    if (src.is_none()) {
      value.v.reset();
      return true;
    }
    if (!mt::is_strict_bool(src.ptr())) return mt::refuse(src.ptr(), "bool | None");
    value.v = src.ptr() == Py_True;
    return true;
  }
  static handle cast(const mt::OptBool& b, return_value_policy, handle) {
    return b.v ? handle(*b.v ? Py_True : Py_False).inc_ref() : none().release();
  }
};
}  // namespace detail
}  // namespace pybind11
