// dtype and device Python objects, and the argument conversions declared in bind.h.
#include <cstring>
#include <sstream>

#include "cuda/CUDAHooks.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "python/bind.h"

namespace mt {

DType* dtype_object(ScalarType st) {
  static DType objs[kNumScalarTypes] = {
#define MT_OBJ(ct, name, s, l) DType{ScalarType::name},
      MT_FORALL_SCALAR_AND_COMPLEX_TYPES(MT_OBJ)
#undef MT_OBJ
  };
  return &objs[static_cast<int>(st)];
}

ScalarType parse_dtype(py::handle h) {
  if (h.is_none()) return ScalarType::Undefined;
  if (py::isinstance<DType>(h)) return h.cast<DType*>()->st;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return ScalarType::Double;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return ScalarType::Long;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return ScalarType::Bool;
  throw py::type_error("dtype must be a minitorch.dtype (e.g. minitorch.float32), got " +
                       std::string(py::str(py::type::of(h).attr("__name__"))));
}

Device parse_device(py::handle h) {
  if (h.is_none()) return Device(DeviceType::CPU);
  if (py::isinstance<Device>(h)) return h.cast<Device>();
  if (py::isinstance<py::str>(h)) return Device(h.cast<std::string>());
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) {
    int i = h.cast<int>();
    MT_CHECK(i >= 0, "Device index must not be negative");
    return Device(DeviceType::CUDA, i);
  }
  throw py::type_error("device must be a str, int or minitorch.device, got " +
                       std::string(py::str(py::type::of(h).attr("__name__"))));
}

bool is_python_scalar(py::handle h) {
  return PyFloat_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyBool_Check(h.ptr()) || PyComplex_Check(h.ptr());
}

// numpy.complex64 is not a Python complex (numpy.complex128 is): recognised by its dtype's kind.
static bool is_numpy_complex_scalar(py::handle h) {
  if (!py::hasattr(h, "dtype") || !py::hasattr(h, "__complex__")) return false;
  py::object dt = h.attr("dtype");
  return py::hasattr(dt, "kind") && dt.attr("kind").cast<std::string>() == "c";
}

// PyTorch's numbers beyond Python's own: NumPy scalars (numpy.float32, numpy.int64, numpy.bool), not a 0-d
// ndarray nor anything else with __float__ or __index__ (fractions.Fraction, decimal.Decimal)
bool is_numpy_scalar(py::handle h) {
  const char* tp = Py_TYPE(h.ptr())->tp_name;
  return std::strncmp(tp, "numpy.", 6) == 0 && std::strcmp(tp, "numpy.ndarray") != 0 &&
         PyNumber_Check(h.ptr());
}

Scalar parse_scalar(py::handle h, const char* what) {
  if (PyBool_Check(h.ptr())) return Scalar(h.ptr() == Py_True);
  if (PyLong_Check(h.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow) {  // PyTorch: a number no dtype holds is Python's own OverflowError
      PyErr_SetString(PyExc_OverflowError, "int too big to convert");
      throw py::error_already_set();
    }
    return Scalar(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(h.ptr())) return Scalar(PyFloat_AS_DOUBLE(h.ptr()));
  if (PyComplex_Check(h.ptr()))
    return Scalar(std::complex<double>(PyComplex_RealAsDouble(h.ptr()), PyComplex_ImagAsDouble(h.ptr())));
  if (py::isinstance<TensorImpl>(h)) {
    // PyTorch's argument parser takes a 0-dim tensor that does not require grad as a number and refuses any
    // other (TypeError); a one-element tensor of more dims is no number to it
    Tensor t = h.cast<Tensor>();
    if (t.dim() != 0 || t.requires_grad())
      throw py::type_error(std::string(what) + " must be Number, not Tensor");
    return item(t);
  }
  // NumPy scalars, by __index__/__float__/__complex__
  if (!is_numpy_scalar(h))
    throw py::type_error(std::string(what) + " must be a number, got " +
                         std::string(py::str(py::type::of(h).attr("__name__"))));
  if (is_numpy_complex_scalar(h)) {
    py::object z = py::module_::import("builtins").attr("complex")(h);
    return Scalar(std::complex<double>(PyComplex_RealAsDouble(z.ptr()), PyComplex_ImagAsDouble(z.ptr())));
  }
  if (PyIndex_Check(h.ptr())) return Scalar(static_cast<int64_t>(h.cast<long long>()));
  if (py::hasattr(h, "__float__")) return Scalar(h.cast<double>());
  throw py::type_error(std::string(what) + " must be a number, got " +
                       std::string(py::str(py::type::of(h).attr("__name__"))));
}

Tensor to_operand(py::handle h, const char* what) {
  if (py::isinstance<TensorImpl>(h)) return h.cast<Tensor>();
  // an ndarray operand is a tensor (ndarray + tensor gives a tensor, as in PyTorch), not a number
  if (py::isinstance<py::array>(h))
    return py::module_::import("minitorch").attr("as_tensor")(h).cast<Tensor>();
  if (is_python_scalar(h) || is_numpy_scalar(h)) return wrapped_scalar(parse_scalar(h, what));
  throw py::type_error(std::string(what) + " must be a Tensor or a number, got " +
                       std::string(py::str(py::type::of(h).attr("__name__"))));
}

static int64_t size_item(py::handle e, size_t pos = 0, bool dims = false) {
  if (PyLong_Check(e.ptr()) && !PyBool_Check(e.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(e.ptr(), &overflow);
    // PyTorch's words: a size list reports the position, a dim is a plain ValueError
    MT_CHECK_VALUE(!overflow || !dims, "Overflow when unpacking long long");
    MT_CHECK_TYPE(!overflow, "argument 'size' failed to unpack the object at pos ", pos + 1,
                  " with error \"Overflow when unpacking long long\"");
    return v;
  }
  if (py::isinstance<TensorImpl>(e)) {
    Tensor t = e.cast<Tensor>();  // a one-element integer tensor is an int (PyTorch); others: TypeError below
    if (t.numel() == 1) {
      Scalar s = item(t);
      if (s.is_integral()) return s.to_long();
    }
  } else if (PyIndex_Check(e.ptr()) && !PyBool_Check(e.ptr())) {
    return e.cast<int64_t>();
  }
  throw py::type_error("expected a sequence of integers or a single integer, got an element of type " +
                       std::string(py::str(py::type::of(e).attr("__name__"))));
}

static DimVector parse_ints(py::handle h, bool dims) {
  DimVector out;
  if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    for (py::handle e : h) out.push_back(size_item(e, out.size(), dims));
  } else {
    out.push_back(size_item(h, 0, dims));
  }
  return out;
}

DimVector parse_size(py::handle h) {
  return parse_ints(h, false);
}

DimVector parse_size_args(const py::args& args) {
  if (args.size() == 1 && (py::isinstance<py::tuple>(args[0]) || py::isinstance<py::list>(args[0])))
    return parse_size(args[0]);
  DimVector out;
  for (py::handle e : args) out.push_back(size_item(e, out.size()));
  return out;
}

DimVector parse_dims(py::handle h) {
  if (h.is_none()) return {};
  return parse_ints(h, true);
}

bool int_list_item(PyObject* e, bool first, bool symint, int64_t* v) {
  if (PyBool_Check(e)) {
    if (first) return false;
    *v = e == Py_True;
    return true;
  }
  if (g_tensor_type && PyObject_TypeCheck(e, g_tensor_type)) {
    Tensor t = py::handle(e).cast<Tensor>();
    if (t.numel() != 1 || !is_integral(t.dtype(), /*include_bool=*/true)) return false;
    MT_CHECK(!symint || t.dtype() != ScalarType::Bool,
             "Expected scalar.isIntegral( false) to be true, but got false.  (Could this error message be "
             "improved?  If so, please report an enhancement request to PyTorch.)");
    *v = item(t).to_long();
    return true;
  }
  return load_strict_int(e, v, /*symint=*/true);
}

namespace {

[[noreturn]] void unpack_error(const char* fn, const char* name, size_t i, const std::string& why) {
  throw py::type_error(std::string(fn) + "(): argument '" + name + "' failed to unpack the object at pos " +
                       std::to_string(i + 1) + " with error \"" + why + "\"");
}

// one element, an int past int64 being the unpacking's error at its place
bool list_item(PyObject* e, bool first, bool symint, int64_t* v, const char* fn, const char* name, size_t i) {
  if (PyLong_Check(e) && !PyBool_Check(e)) {
    int overflow = 0;
    *v = PyLong_AsLongLongAndOverflow(e, &overflow);
    if (overflow) unpack_error(fn, name, i, "Overflow when unpacking long long");
    return true;
  }
  return int_list_item(e, first, symint, v);
}

}  // namespace

bool int_list_head(PyObject* e) {
  int64_t v = 0;
  return (PyLong_Check(e) && !PyBool_Check(e)) || int_list_item(e, true, false, &v);
}

DimVector int_list_value(py::handle h, const char* fn, const char* name, int pos, bool symint, bool sized) {
  DimVector out;
  int64_t v = 0;
  // the message's words are built only on the way to an error: two strings per call cost ~700 instructions
  auto arg = [&] { return std::string(fn) + "(): argument '" + name + "'"; };
  auto at = [&] { return pos > 0 ? " (position " + std::to_string(pos) + ")" : std::string(); };
  PyObject* o = h.ptr();
  if (PyList_Check(o) || PyTuple_Check(o)) {
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i) {  // (an __index__ may shrink a list)
      PyObject* e = PySequence_Fast_GET_ITEM(o, i);
      if (list_item(e, i == 0, symint, &v, fn, name, static_cast<size_t>(i))) {
        out.push_back(v);
        continue;
      }
      if (i != 0)
        unpack_error(fn, name, static_cast<size_t>(i),
                     "type must be tuple of ints,but got " + arg_type_name(e));
      // a keyword's value is judged whole: the wrong kind of list
      if (pos <= 0) throw py::type_error(arg() + " must be tuple of ints, not " + arg_type_name(h));
      throw py::type_error(arg() + at() + " must be tuple of ints, but found element of type " +
                           arg_type_name(e) + " at pos 0");
    }
    return out;
  }
  // one int standing for a sized list is unpacked whole: past int64, the plain ValueError; a lone bool tensor
  // is 1 even for a SymInt[N] (only a list's elements meet c10's SymInt refusal)
  if (sized && PyLong_Check(o) && !PyBool_Check(o)) {
    int overflow = 0;
    v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw py::value_error("Overflow when unpacking long long");
  } else if (!sized || !int_list_item(o, true, /*symint=*/false, &v)) {
    throw py::type_error(arg() + at() + " must be tuple of ints, not " + arg_type_name(h));
  }
  out.push_back(v);
  return out;
}

DimVector int_list_arg(py::handle h, const char* fn, const char* name, int pos) {
  if (h.is_none()) return {};
  return int_list_value(h, fn, name, pos, /*symint=*/false, /*sized=*/true);
}

DimVector int_list_varargs(const char* fn, const char* name, const py::args& args, py::handle kw, bool symint,
                           const std::vector<std::string>& overloads) {
  const size_t n = args.size();
  auto invalid = [&](py::handle kwval) {
    py::dict kws;
    if (kwval) kws[name] = kwval;
    return py::type_error(format_invalid_args(fn, args, kws, overloads));
  };
  if (!kw.is_none()) {
    if (n != 0) {
      if (!overloads.empty()) throw invalid(kw);
      throw py::type_error(std::string(fn) + "() got multiple values for argument '" + name + "'");
    }
    // given by keyword, an int list is a list or tuple: no bare int stands for it
    PyObject* o = kw.ptr();
    bool list = PyList_Check(o) || PyTuple_Check(o);
    if (!overloads.empty() &&
        (!list || (PySequence_Fast_GET_SIZE(o) != 0 && !int_list_head(PySequence_Fast_GET_ITEM(o, 0)))))
      throw invalid(kw);
    return int_list_value(kw, fn, name, 0, symint, /*sized=*/false);
  }
  if (n == 0) {
    if (!overloads.empty()) throw invalid(py::handle());
    throw py::type_error(std::string(fn) + "() missing 1 required positional arguments: \"" + name + "\"");
  }
  // PyTorch's parser reads separate ints as the list (x.view(2, 3)) when the first argument is an int (or
  // stands for one); otherwise the one argument must be the list
  PyObject* first = args[0].ptr();
  if (int_list_head(first)) return int_list_value(args, fn, name, 1, symint, /*sized=*/false);
  if (!overloads.empty()) {
    bool list = PyList_Check(first) || PyTuple_Check(first);
    if (n > 1 || !list ||
        (PySequence_Fast_GET_SIZE(first) != 0 && !int_list_head(PySequence_Fast_GET_ITEM(first, 0))))
      throw invalid(py::handle());
  }
  if (n > 1)
    throw py::type_error(std::string(fn) + "() takes 1 positional argument but " + std::to_string(n) +
                         " were given");
  return int_list_value(args[0], fn, name, 1, symint, /*sized=*/false);
}

py::object scalar_to_py(const Scalar& s) {
  if (s.is_complex()) {
    std::complex<double> z = s.to_complex();
    return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(z.real(), z.imag()));
  }
  if (s.is_bool()) return py::bool_(s.to_bool());
  if (s.is_integral()) return py::int_(s.to_long());
  return py::float_(s.to_double());
}

py::object make_size(IntArrayRef sizes) {
  static PyTypeObject* size_type = nullptr;  // leaked on purpose: outlives interpreter teardown order
  if (!size_type)
    size_type = reinterpret_cast<PyTypeObject*>(
        py::object(py::module_::import("minitorch").attr("Size")).release().ptr());
  // filled in place, as a tuple: Size is a tuple subclass without fields of its own, so its instances have a
  // tuple's layout (calling the class copied a temporary tuple through Python: t.shape cost 0.28 us)
  PyObject* t = size_type->tp_alloc(size_type, static_cast<Py_ssize_t>(sizes.size()));
  if (!t) throw py::error_already_set();
  for (size_t i = 0; i < sizes.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(sizes[i]);
    if (!v) {
      Py_DECREF(t);
      throw py::error_already_set();
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), v);
  }
  return py::reinterpret_steal<py::object>(t);
}

namespace {
// Size's indexing in C: an int index is the tuple's item, a slice a Size of the items (PyTorch's Size does
// the same). Written in Python, every shape[i] of every composite paid a Python call (~0.2 us).
PyObject* size_subscript(PyObject* self, PyObject* item) {
  PyObject* r = PyTuple_Type.tp_as_mapping->mp_subscript(self, item);
  if (!r || !PySlice_Check(item)) return r;
  PyObject* out = PyObject_CallOneArg(reinterpret_cast<PyObject*>(Py_TYPE(self)), r);
  Py_DECREF(r);
  return out;
}
// Size(iterable) as PyTorch's THPSize_pynew: ints (NumPy integers kept as they are), anything else with
// __index__ giving an int (a one-element integer tensor, a bool) replaced by that int, and a TypeError naming
// the first item of another kind
PyObject* size_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* self = PyTuple_Type.tp_new(type, args, kwargs);
  if (!self) return nullptr;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); ++i) {
    PyObject* item = PyTuple_GET_ITEM(self, i);
    const char* tp = Py_TYPE(item)->tp_name;
    if (PyLong_Check(item) && !PyBool_Check(item)) {
      int overflow = 0;
      PyLong_AsLongLongAndOverflow(item, &overflow);
      if (!overflow) continue;
      Py_DECREF(self);
      PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
      return nullptr;
    }
    if (std::strncmp(tp, "numpy.int", 9) == 0 || std::strncmp(tp, "numpy.uint", 10) == 0) continue;
    // a nested tensor's ragged size (nested/_nested_tensor.py's RaggedSize, PyTorch's SymInt j1) as it is
    if (PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(item)), "_mt_symint")) continue;
    PyObject* number = PyNumber_Index(item);
    if (number && !PyBool_Check(number)) {
      Py_DECREF(item);  // the tuple is new and ours alone: its item is replaced in place
      PyTuple_SET_ITEM(self, i, number);
      continue;
    }
    Py_XDECREF(number);
    PyErr_Clear();
    const std::string name = arg_type_name(py::handle(item));
    Py_DECREF(self);
    PyErr_Format(PyExc_TypeError, "torch.Size() takes an iterable of 'int' (item %zd is '%s')", i,
                 name.c_str());
    return nullptr;
  }
  return self;
}
PyType_Slot size_slots[] = {{Py_mp_subscript, reinterpret_cast<void*>(&size_subscript)},
                            {Py_tp_new, reinterpret_cast<void*>(&size_new)},
                            {0, nullptr}};
PyType_Spec size_spec = {"minitorch._C._SizeBase", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                         size_slots};
}  // namespace

void init_dtype_device(py::module_& m) {
  // the base of python/minitorch/_size.py's Size (its printing, numel, + and pickling stay in Python)
  PyObject* size_base = PyType_FromSpecWithBases(&size_spec, reinterpret_cast<PyObject*>(&PyTuple_Type));
  if (!size_base) throw py::error_already_set();
  m.attr("_SizeBase") = py::reinterpret_steal<py::object>(size_base);
  py::class_<DType>(m, "dtype")
      .def_property_readonly("is_floating_point", [](const DType& d) { return is_floating(d.st); })
      .def_property_readonly("is_signed", [](const DType& d) { return is_signed(d.st); })
      .def_property_readonly("itemsize", [](const DType& d) { return element_size(d.st); })
      .def_property_readonly("is_complex", [](const DType& d) { return is_complex(d.st); })
      .def(
          "to_real", [](const DType& d) { return dtype_object(to_real_type(d.st)); },
          py::return_value_policy::reference)
      .def(
          "to_complex",
          [](const DType& d) {
            MT_CHECK_NOT_IMPLEMENTED(
                d.st == ScalarType::Float || d.st == ScalarType::Double || is_complex(d.st),
                "to_complex is only supported for float32 and float64 here (no complex32), got ",
                dtype_name(d.st));
            return dtype_object(to_complex_type(d.st));
          },
          py::return_value_policy::reference)
      .def("__repr__", [](const DType& d) { return std::string("torch.") + dtype_name(d.st); })
      .def("__reduce__", [](const DType& d) { return std::string(dtype_name(d.st)); });
#define MT_EXPORT(ct, name, s, l) \
  m.attr(s) = py::cast(dtype_object(ScalarType::name), py::return_value_policy::reference);
  MT_FORALL_SCALAR_AND_COMPLEX_TYPES(MT_EXPORT)
#undef MT_EXPORT

  py::class_<Device>(m, "device")
      .def(py::init([](py::object spec, py::object index) {
             Device d;
             if (py::isinstance<Device>(spec)) {
               d = spec.cast<Device>();
             } else if (py::isinstance<py::int_>(spec)) {
               d = parse_device(spec);
             } else if (py::isinstance<py::str>(spec)) {
               d = Device(spec.cast<std::string>());
             } else {
               throw py::type_error("device() received an invalid combination of arguments - got (" +
                                    std::string(py::str(py::type::of(spec).attr("__name__"))) + ")");
             }
             if (!index.is_none()) {
               MT_CHECK(d.index < 0,
                        "type (string) must not include an index because index was passed "
                        "explicitly: ",
                        spec.cast<std::string>());
               int i = index.cast<int>();
               MT_CHECK(i >= 0, "Device index must not be negative");
               MT_CHECK(!d.is_cpu() || i == 0, "CPU device index must be -1 or zero, got ", i);
               d.index = i;
             }
             return d;
           }),
           py::arg("type"), py::arg("index") = py::none())
      .def_property_readonly("type", [](const Device& d) { return d.type_name(); })
      .def_property_readonly("index",
                             [](const Device& d) -> py::object {
                               return d.index < 0 ? py::object(py::none()) : py::object(py::int_(d.index));
                             })
      .def("__str__", &Device::str)
      .def("__repr__",
           [](const Device& d) {
             std::string s = std::string("device(type='") + d.type_name() + "'";
             if (d.index >= 0) s += ", index=" + std::to_string(d.index);
             return s + ")";
           })
      .def("__eq__",
           [](const Device& a, py::object b) {
             if (py::isinstance<Device>(b)) return a == b.cast<Device>();
             if (py::isinstance<py::str>(b)) return a.str() == b.cast<std::string>();
             return false;
           })
      .def("__hash__", [](const Device& d) { return std::hash<std::string>()(d.str()); })
      .def("__reduce__", [](const Device& d) {
        return py::make_tuple(py::module_::import("minitorch").attr("device"), py::make_tuple(d.str()));
      });
  py::implicitly_convertible<py::str, Device>();

  m.def(
      "get_default_dtype", [] { return dtype_object(default_dtype()); }, py::return_value_policy::reference);
  m.def("set_default_dtype", [](py::handle d) { set_default_dtype(parse_dtype(d)); });
  m.def(
      "promote_types",
      [](py::handle a, py::handle b) { return dtype_object(promote_types(parse_dtype(a), parse_dtype(b))); },
      py::return_value_policy::reference);
  m.def("can_cast", [](py::handle a, py::handle b) { return can_cast(parse_dtype(a), parse_dtype(b)); });

  // Build facts for minitorch.utils.collect_env and the GPU compatibility check lazy init runs.
  m.attr("_cuda_arch_list") = cuda_arch_list();
  m.def(
      "_cuda_arch_check",
      [](int major, int minor, py::object arch_list) -> py::object {
        std::string msg = cuda_arch_mismatch(
            major, minor, arch_list.is_none() ? cuda_arch_list() : arch_list.cast<std::string>());
        if (msg.empty()) return py::none();
        return py::str(msg);
      },
      py::arg("major"), py::arg("minor"), py::arg("arch_list") = py::none());
}

}  // namespace mt
