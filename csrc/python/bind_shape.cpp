// View and shape-op bindings written by hand (methods and minitorch.* functions): those whose arguments the
// schema's signatures cannot say (*sizes or size=, a tuple of any length); the other shape ops are rows of
// csrc/ops/ops.schema, bound by the generated bind_funcs.cpp through the helpers defined here.
#include "python/bind_shape.h"

#include <cstring>

#include "autograd/record.h"
#include "core/TypeMeta.h"
#include "ops/copy.h"
#include "ops/shape.h"
#include "python/bind_factory.h"
#include "python/python_functions.h"

namespace mt {

namespace {
// as_strided's size and stride (PyTorch's `SymInt[]`, no length given): a list or tuple of ints, not an int.
// pos as the call words it.
DimVector int_tuple_arg(py::handle h, const char* fn, const char* name, int pos) {
  if (!PyList_Check(h.ptr()) && !PyTuple_Check(h.ptr()))
    throw py::type_error(std::string(fn) + "(): argument '" + name + "' (position " + std::to_string(pos) +
                         ") must be tuple of ints, not " + arg_type_name(h));
  return int_list_arg(h, fn, name, pos);
}
std::vector<Tensor> tensor_seq(py::handle seq, const char* fn) {
  MT_CHECK_TYPE(!py::isinstance<TensorImpl>(seq), fn,
                "(): argument 'tensors' (position 1) must be tuple of Tensors, "
                "not Tensor");
  std::vector<Tensor> out;
  for (py::handle h : seq) {
    MT_CHECK_TYPE(py::isinstance<TensorImpl>(h), "expected Tensor as element ", out.size(),
                  " in argument 0, but got ", arg_type_name(h));
    out.push_back(h.cast<Tensor>());
  }
  return out;
}
// split's split_size as an int (PyTorch's Tensor.split: an int or a 0-d integer tensor; anything else is
// a list of sizes)
// split's sizes as the split_with_sizes PyTorch's Tensor.split hands them to (its position 2)
static DimVector split_sizes_arg(py::handle s) {
  return int_list_value(s, "split_with_sizes", "split_sizes", 2, /*symint=*/true, /*sized=*/false);
}
py::tuple to_tuple(const std::vector<Tensor>& ts);

// PyTorch's Tensor.split (Python there): a tensor size becomes int(size) where it converts (one element of
// any dtype, truncated); an int (a bool too) goes to split(Tensor, SymInt split_size, int dim), whose two
// signatures' message refuses a bool or a dim that is no int; anything else to split_with_sizes
py::tuple split_as_pytorch(const Tensor& t, py::handle s, py::handle dim) {
  py::object size = py::reinterpret_borrow<py::object>(s);
  if (py::isinstance<TensorImpl>(s)) {
    PyObject* n = PyNumber_Long(s.ptr());
    if (n)
      size = py::reinterpret_steal<py::object>(n);
    else if (PyErr_ExceptionMatches(PyExc_ValueError))
      PyErr_Clear();  // several elements, or NaN: the tensor goes on as the sizes
    else
      throw py::error_already_set();
  }
  int64_t d = 0;
  if (PyLong_Check(size.ptr())) {
    int64_t n = 0;
    if (PyBool_Check(size.ptr()) || !load_strict_int(dim.ptr(), &d))
      throw py::type_error(format_invalid_args("split", py::make_tuple(py::cast(t), size, dim), py::dict(),
                                               {"(Tensor input, int split_size, int dim = 0)",
                                                "(Tensor input, tuple of ints split_size, int dim = 0)"}));
    if (!load_strict_int(size.ptr(), &n, true))
      throw py::type_error("split(): argument 'split_size' (position 2) must be int, not " +
                           arg_type_name(size));
    return to_tuple(split(t, n, d));
  }
  DimVector sizes = split_sizes_arg(size);
  if (!load_strict_int(dim.ptr(), &d))
    throw py::type_error("split_with_sizes(): argument 'dim' (position 3) must be int, not " +
                         arg_type_name(dim));
  return to_tuple(split_with_sizes(t, sizes, d));
}
// Sizes or dims given as *args or as the keyword PyTorch names them (t.view(size=(2, 3)),
// t.permute(dims=...)): int_list_varargs, view with its two signatures' message
DimVector sizes_or_kw(const char* fn, const char* name, const py::args& args, py::handle kw) {
  static const std::vector<std::string> view_overloads = {"(torch.dtype dtype)", "(tuple of ints size)"};
  const bool view = std::strcmp(fn, "view") == 0;
  // PyTorch's permute takes an int[], the others a SymInt[] (whose item() refuses a bool tensor)
  return int_list_varargs(fn, name, args, kw, std::strcmp(fn, "permute") != 0,
                          view ? view_overloads : std::vector<std::string>{});
}
// tensor_split's split points given as a tensor: a 0-dim one is the number of sections, a 1-dim one the
// indices; they decide the output shapes, so they come to the host, as in PyTorch (which wants them there).
std::vector<Tensor> tensor_split_by_tensor(const Tensor& self, const Tensor& t, int64_t dim) {
  MT_CHECK(t.device().is_cpu(), "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
           t.device().str());
  MT_CHECK(t.dtype() == ScalarType::Long,
           "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
           dtype_short_name(t.dtype()));
  MT_CHECK(t.dim() <= 1,
           "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
           "tensor, but got a tensor with ",
           t.dim(), " dims");
  if (t.dim() == 0) return tensor_split(self, item(t).to_long(), dim);
  Tensor c = contiguous(t);
  const int64_t* p = static_cast<const int64_t*>(c.data_ptr());
  return tensor_split(self, IntArrayRef(p, static_cast<size_t>(c.numel())), dim);
}
// tensor_split's indices as a tuple or list of ints (PyTorch's "tuple of ints indices"); the caster took the
// first element (a bad one there matches no signature, as in PyTorch), the shared int-list check the rest
std::vector<Tensor> tensor_split_by_list(const Tensor& self, const IntListArg& list, int64_t dim) {
  return tensor_split(self, int_list_arg(list.h, "tensor_split", "indices", 2), dim);
}
// Tensor.repeat's and tile's Python functions (python/minitorch/functional.py repeat, _composite_shape.py
// _tile_checked), which take every call the plain lane below does not: they word PyTorch's errors. Held for
// the process's life (no decref at exit, as the torch-function hooks).
PyObject* g_repeat_fallback = nullptr;
PyObject* g_tile_fallback = nullptr;
// The repeats of a call that needs no checks: separate Python ints, or one tuple or list of them, each in
// [0, 2^31). False for any other (a bool, a tensor, a negative count: the fallback's).
bool plain_repeats(PyObject* seq, DimVector& out) {
  if (PyTuple_GET_SIZE(seq) == 1) {
    PyObject* a = PyTuple_GET_ITEM(seq, 0);
    if (PyTuple_CheckExact(a) || PyList_CheckExact(a)) seq = a;
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject** items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyLong_CheckExact(items[i])) return false;
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(items[i], &overflow);
    if (overflow || v < 0 || v >= (1LL << 31)) return false;
    out.push_back(v);
  }
  return true;
}
// self tiled by plain repeats (tile's pad with leading ones first), or None when the call is not plain: too
// few repeats for repeat (its error), a result of 2^62 elements or more
py::object repeat_lane(py::handle self, PyObject* seq, bool tile) {
  if (!seq || !py::isinstance<TensorImpl>(self)) return py::none();
  DimVector reps;
  if (!plain_repeats(seq, reps)) return py::none();
  const Tensor t = self.cast<Tensor>();
  const int64_t nd = t.dim();
  if (static_cast<int64_t>(reps.size()) < nd) {
    if (!tile) return py::none();
    DimVector padded(static_cast<size_t>(nd) - reps.size(), 1);
    for (int64_t r : reps) padded.push_back(r);
    reps = padded;
  }
  int64_t numel = 1;
  const int64_t pad = static_cast<int64_t>(reps.size()) - nd;
  for (int64_t i = 0; i < static_cast<int64_t>(reps.size()); ++i) {
    const int64_t s = i < pad ? 1 : t.sizes()[i - pad];
    int64_t o = 0;
    if (__builtin_mul_overflow(reps[i], s, &o) || __builtin_mul_overflow(numel, o, &numel) ||
        numel >= (int64_t(1) << 62) || o >= (int64_t(1) << 62))
      return py::none();
  }
  return py::cast(nogil([&] { return repeat(t, reps); }, t));
}
py::object call_fallback(PyObject* fn, py::handle self, const py::args& args, const py::kwargs& kw) {
  MT_CHECK(fn != nullptr, "minitorch._C: repeat's Python functions were not installed");
  py::tuple all(args.size() + 1);
  all[0] = self;
  for (size_t i = 0; i < args.size(); ++i) all[i + 1] = args[i];
  return py::reinterpret_borrow<py::object>(fn)(*all, **kw);
}
// a method's lone int-list parameter from *args or its keyword (int_list_varargs), any other keyword refused
DimVector method_ints(const char* fn, const char* name, const py::args& args, const py::kwargs& kw) {
  if (args.size() == 0 && !kw.contains(name))  // PyTorch's parser: the missing list before a stray keyword
    throw py::type_error(std::string(fn) + "() missing 1 required positional arguments: \"" + name + "\"");
  py::handle value;
  for (auto item : kw) {
    std::string k = py::str(item.first);
    if (k != name)
      throw py::type_error(std::string(fn) + "() got an unexpected keyword argument '" + k + "'");
    value = item.second;
  }
  return int_list_varargs(fn, name, args, value ? value : py::none(), /*symint=*/true);
}
py::list ints_list(const DimVector& v) {
  py::list out;
  for (int64_t i : v) out.append(i);
  return out;
}
py::tuple ints_tuple(const DimVector& v) {
  return py::tuple(ints_list(v));
}
py::tuple to_tuple(const std::vector<Tensor>& ts) {
  py::tuple t(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) t[i] = py::cast(ts[i]);
  return t;
}
}  // namespace

Tensor select_checked(const Tensor& self, int64_t dim, int64_t index) {
  if (self.dim() > 0) {
    const int64_t d = wrap_dim(dim, self.dim()), size = self.sizes()[d];
    MT_CHECK_INDEX(index >= -size && index < size, "select(): index ", index,
                   " out of range for tensor of size ", shape_str(self.sizes()), " at dimension ", d);
  }
  return select(self, dim, index);
}

Tensor narrow_tensor_start(const Tensor& self, int64_t dim, const Tensor& start, int64_t length) {
  MT_CHECK(start.dim() == 0 && is_integral(start.dtype(), /*include_bool=*/false),
           "start must be an 0-dim integral Tensor.");
  return narrow(self, dim, item(start).to_long(), length);
}

// the in-place views rewrite self's own sizes and strides once the view was made (so a bad argument leaves
// self as it was); autograd/views.cpp gives self the view's history and bumps its version
void t_(const Tensor& self) {
  MT_CHECK(self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  autograd::inplace_view(self, [](const Tensor& x) { return t(x); });
}
void transpose_(const Tensor& self, int64_t d0, int64_t d1) {
  autograd::inplace_view(self, [d0, d1](const Tensor& x) { return transpose(x, d0, d1); });
}
void squeeze_(const Tensor& self) {
  autograd::inplace_view(self, [](const Tensor& x) { return squeeze(x); });
}
void squeeze_(const Tensor& self, IntArrayRef dims) {
  autograd::inplace_view(self, [d = dims.vec()](const Tensor& x) { return squeeze(x, d); });
}
void unsqueeze_(const Tensor& self, int64_t dim) {
  autograd::inplace_view(self, [dim](const Tensor& x) { return unsqueeze(x, dim); });
}

namespace {
// Tensor.set_'s signatures, as PyTorch's parser prints them
const std::vector<std::string> kSetSignatures = {
    "()",
    "(torch.Storage source)",
    "(torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)",
    "(Tensor source)",
    "(Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)",
};

// minitorch/_storage.py's storage objects (their _tensor holds the memory): 1 an UntypedStorage, 2 a
// TypedStorage, 0 anything else
int storage_kind(py::handle h) {
  static PyObject* untyped = nullptr;
  static PyObject* typed = nullptr;
  if (!untyped) {
    py::module_ mod = py::module_::import("minitorch._storage");
    typed = py::object(mod.attr("TypedStorage")).release().ptr();  // held for the process, as the module is
    untyped = py::object(mod.attr("UntypedStorage")).release().ptr();
  }
  if (PyObject_TypeCheck(h.ptr(), reinterpret_cast<PyTypeObject*>(untyped))) return 1;
  return PyObject_TypeCheck(h.ptr(), reinterpret_cast<PyTypeObject*>(typed)) ? 2 : 0;
}

// a `tuple of ints` argument of an overloaded signature: a tuple or list of ints (one int is no such tuple)
bool int_tuple(py::handle h, DimVector* out) {
  if (!PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr())) return false;
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  for (size_t i = 0; i < seq.size(); ++i) {
    int64_t v = 0;
    if (!int_list_item(py::object(seq[i]).ptr(), i == 0, /*symint=*/true, &v)) return false;
    out->push_back(v);
  }
  return true;
}

// Tensor.set_(), set_(source), set_(source, storage_offset, size, stride=None), source a Tensor or a storage
// object, positional or by keyword, as PyTorch's parser takes them
Tensor set_call(const Tensor& self, const py::args& args, const py::kwargs& kw) {
  static const char* const names[] = {"source", "storage_offset", "size", "stride"};
  auto refused = [&] { return py::type_error(format_invalid_args("set_", args, kw, kSetSignatures)); };
  PyObject* v[4] = {};
  if (args.size() > 4) throw refused();
  for (size_t i = 0; i < args.size(); ++i) v[i] = args[i].ptr();
  for (auto item : kw) {
    const std::string k = py::str(item.first);
    size_t i = 0;
    while (i < 4 && k != names[i]) ++i;
    if (i == 4 || v[i]) throw refused();
    v[i] = item.second.ptr();
  }
  if (!v[0]) {
    if (v[1] || v[2] || v[3]) throw refused();
    return autograd::set_(self);
  }
  const bool is_tensor = py::isinstance<TensorImpl>(v[0]);
  const int kind = is_tensor ? 0 : storage_kind(v[0]);
  if (!is_tensor && !kind) throw refused();
  Tensor source =
      is_tensor ? py::handle(v[0]).cast<Tensor>() : py::handle(v[0]).attr("_tensor").cast<Tensor>();
  const bool geometry = v[1] || v[2] || v[3];
  int64_t offset = 0;
  DimVector size, stride;
  if (geometry && (!v[1] || !v[2] || !load_strict_int(v[1], &offset, /*symint=*/true) ||
                   !int_tuple(v[2], &size) || (v[3] && v[3] != Py_None && !int_tuple(v[3], &stride))))
    throw refused();
  const IntArrayRef st(stride);
  const IntArrayRef* strides =
      stride.empty() ? nullptr : &st;  // () stands for none: contiguous, as PyTorch's
  if (is_tensor)
    return geometry ? autograd::set_(self, source, offset, size, strides) : autograd::set_(self, source);
  MT_CHECK(kind == 1 || source.dtype() == self.dtype(), "Expected a Storage of type ",
           cpp_type_name(self.dtype()), " or an UntypedStorage, but got type ",
           dtype_short_name(source.dtype()), " for argument 1 'storage'");
  if (!geometry) size = {static_cast<int64_t>(source.storage()->nbytes / self.itemsize())};
  return autograd::set_(self, source.storage(), offset, size, strides);
}
}  // namespace

void init_shape(py::module_& m, TensorClass& cls) {
  cls.def(
         "view",
         [](const Tensor& t, py::args shape, py::handle size, py::handle dtype) {
           if (!dtype.is_none() && shape.size() == 0 && size.is_none())
             return view_dtype(t, parse_dtype(dtype));
           if (!dtype.is_none()) {  // sizes and a dtype: neither of PyTorch's two signatures takes both
             py::dict kw;
             if (!size.is_none()) kw["size"] = size;
             kw["dtype"] = dtype;
             throw py::type_error(
                 format_invalid_args("view", shape, kw, {"(torch.dtype dtype)", "(tuple of ints size)"}));
           }
           if (shape.size() == 1 && py::isinstance<DType>(shape[0]))
             return view_dtype(t, shape[0].cast<DType*>()->st);
           return view(t, sizes_or_kw("view", "size", shape, size));
         },
         py::arg("size") = py::none(), py::arg("dtype") = py::none())
      // memory_format is taken and the result is contiguous (PyTorch's default, contiguous_format)
      .def(
          "resize_",
          [](const Tensor& t, py::args shape, py::handle size, py::handle) {
            resize_(t, int_list_varargs("resize_", "size", shape, size, true));
            return t;
          },
          py::arg("size") = py::none(), py::arg("memory_format") = py::none())
      .def(
          "set_", [](const Tensor& t, py::args args, py::kwargs kw) { return set_call(t, args, kw); },
          "Sets the underlying storage, size and strides: set_() an empty storage of its own, set_(source) "
          "the\n"
          "storage, sizes, strides and offset of a tensor, set_(source, storage_offset, size, stride=None) "
          "a\n"
          "Storage's (or a contiguous tensor's) from an offset; returns self")
      .def(
          "is_set_to", [](const Tensor& t, const Tensor& o) { return is_set_to(t, o); }, py::arg("tensor"),
          "True when both tensors are set to the same memory: storage, offset, sizes and strides")
      // memory_format is taken and the result is contiguous (PyTorch's default, contiguous_format)
      .def(
          "resize_as_",
          [](const Tensor& t, const Tensor& o, py::handle) {
            resize_(t, o.sizes());
            return t;
          },
          py::arg("the_template"), py::kw_only(), py::arg("memory_format") = py::none())
      // views only rewrite metadata and keep the GIL; reshape may copy, cat and stack always do
      .def(
          "reshape",
          [](const Tensor& t, py::args shape, py::handle kw) {
            DimVector s = sizes_or_kw("reshape", "shape", shape, kw);
            return nogil([&] { return reshape(t, s); }, t);
          },
          py::arg("shape") = py::none())
      .def(
          "permute",
          [](const Tensor& t, py::args dims, py::handle kw) {
            return permute(t, sizes_or_kw("permute", "dims", dims, kw));
          },
          py::arg("dims") = py::none())
      .def_property_readonly("T",
                             [](const Tensor& x) {
                               // PyTorch's deprecations: the identity on 0-D, a reversal on any other rank
                               // but 2 (PyTorch warns once per process; we at each call, as Python's
                               // warning filters then decide, so a test can ask for it)
                               if (x.dim() == 0) {
                                 warn(
                                     "Tensor.T is deprecated on 0-D tensors. This function is the identity "
                                     "in these cases.");
                               } else if (x.dim() != 2) {
                                 warn(
                                     "The use of `x.T` on tensors of dimension other than 2 to reverse their "
                                     "shape is deprecated and it will throw an error in a future release. "
                                     "Consider `x.mT` to transpose batches of matrices or "
                                     "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                                     "dimensions of a tensor");
                               }
                               DimVector d;
                               for (int64_t i = x.dim() - 1; i >= 0; --i) d.push_back(i);
                               return permute(x, d);
                             })
      .def_property_readonly(
          "mT",
          [](const Tensor& x) {
            if (x.dim() == 0) {
              warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.");
              return permute(x, DimVector{});
            }
            MT_CHECK(x.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ",
                     x.dim(), "-D tensor.");
            return transpose(x, -2, -1);
          })
      .def(
          "expand",
          [](const Tensor& t, py::args sizes, py::handle kw, StrictBool) {
            return expand(t, sizes_or_kw("expand", "size", sizes, kw));
          },
          py::arg("size") = py::none(), py::arg("implicit") = false)
      .def(
          "split", [](const Tensor& t, py::handle s, py::handle dim) { return split_as_pytorch(t, s, dim); },
          py::arg("split_size"), py::arg("dim") = 0)
      .def(
          "chunk", [](const Tensor& t, StrictInt c, StrictInt dim) { return to_tuple(chunk(t, c, dim)); },
          py::arg("chunks"), py::arg("dim") = 0)
      // PyTorch's three tensor_split signatures, in the order a value can only match one: an int, a tensor,
      // a tuple or list of ints (the tensor a TensorArg: pybind11's own caster refusing the tuple of indices
      // cost 3 us, the foreign-module lookup and its AttributeError)
      .def(
          "tensor_split",
          [](const Tensor& t, StrictInt s, StrictInt dim) {
            return to_tuple(tensor_split(t, int64_t(s), dim));
          },
          py::arg("sections"), py::arg("dim") = 0)
      .def(
          "tensor_split",
          [](const Tensor& t, TensorArg s, StrictInt dim) {
            return to_tuple(tensor_split_by_tensor(t, s.h.cast<Tensor>(), dim));
          },
          py::arg("tensor_indices_or_sections"), py::arg("dim") = 0)
      .def(
          "tensor_split",
          [](const Tensor& t, const IntListArg& s, StrictInt dim) {
            return to_tuple(tensor_split_by_list(t, s, dim));
          },
          py::arg("indices"), py::arg("dim") = 0)
      .def(
          "unbind", [](const Tensor& t, StrictInt dim) { return to_tuple(unbind(t, dim)); },
          py::arg("dim") = 0)
      .def(
          "as_strided",
          [](const Tensor& t, py::handle size, py::handle stride, OptInt off) {
            DimVector sz = int_tuple_arg(size, "as_strided", "size", 1);  // size's error before stride's
            DimVector st = int_tuple_arg(stride, "as_strided", "stride", 2);
            return as_strided(t, sz, st, off.v.value_or(t.storage_offset()));
          },
          py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none())
      .def(
          "as_strided_",
          [](const Tensor& self, py::handle size, py::handle stride, OptInt off) {
            DimVector sz = int_tuple_arg(size, "as_strided_", "size", 1);
            DimVector st = int_tuple_arg(stride, "as_strided_", "stride", 2);
            int64_t o = off.v.value_or(self.storage_offset());
            return autograd::inplace_view(
                self, [sz, st, o](const Tensor& x) { return as_strided(x, sz, st, o); },
                /*replayable=*/false);
          },
          py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());

  m.def(
      "reshape",
      [](const Tensor& t, py::handle shape) {
        // the function's shape is a sequence (the method's may be separate ints)
        DimVector s = int_list_value(shape, "reshape", "shape", 2, /*symint=*/true, /*sized=*/false);
        return nogil([&] { return reshape(t, s); }, t);
      },
      py::arg("input"), py::arg("shape"));
  m.def(
      "permute",
      [](const Tensor& t, py::handle dims) {
        return permute(t, int_list_value(dims, "permute", "dims", 2, /*symint=*/false, /*sized=*/false));
      },
      py::arg("input"), py::arg("dims"));
  // torch.split is Python in PyTorch: a tensor-like gets the call, anything else is
  // tensor.split(split_size_or_sections, dim)
  m.def(
      "split",
      [](py::handle t, py::handle s, py::handle dim) -> py::object {
        if (!py::isinstance<TensorImpl>(t)) {
          if (python_function_overridden(t))
            return handle_python_function("split", t, py::make_tuple(t, s), py::arg("dim") = dim);
          throw py::attribute_error("'" + arg_type_name(t) + "' object has no attribute 'split'");
        }
        return split_as_pytorch(t.cast<Tensor>(), s, dim);
      },
      py::arg("tensor"), py::arg("split_size_or_sections"), py::arg("dim") = 0);
  m.def(
      "chunk", [](const Tensor& t, StrictInt c, StrictInt dim) { return to_tuple(chunk(t, c, dim)); },
      py::arg("input"), py::arg("chunks"), py::arg("dim") = 0);
  // torch.broadcast_tensors' core (python/minitorch/_composite_shape.py takes *tensors or one list)
  m.def(
      "_broadcast_tensors", [](const std::vector<Tensor>& ts) { return to_tuple(broadcast_tensors(ts)); },
      py::arg("tensors"));
  m.def(
      "tensor_split",
      [](const Tensor& t, StrictInt s, StrictInt dim) { return to_tuple(tensor_split(t, int64_t(s), dim)); },
      py::arg("input"), py::arg("sections"), py::arg("dim") = 0);
  m.def(
      "tensor_split",
      [](const Tensor& t, TensorArg s, StrictInt dim) {
        return to_tuple(tensor_split_by_tensor(t, s.h.cast<Tensor>(), dim));
      },
      py::arg("input"), py::arg("tensor_indices_or_sections"), py::arg("dim") = 0);
  m.def(
      "tensor_split",
      [](const Tensor& t, const IntListArg& s, StrictInt dim) {
        return to_tuple(tensor_split_by_list(t, s, dim));
      },
      py::arg("input"), py::arg("indices"), py::arg("dim") = 0);
  m.def(
      "unbind", [](const Tensor& t, StrictInt dim) { return to_tuple(unbind(t, dim)); }, py::arg("input"),
      py::arg("dim") = 0);
  m.def(
      "cat",
      [](py::handle ts, StrictInt dim) {
        auto v = tensor_seq(ts, "cat");
        return nogil([&] { return cat(v, dim); }, v);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "concat",
      [](py::handle ts, StrictInt dim) {
        auto v = tensor_seq(ts, "concat");
        return nogil([&] { return cat(v, dim); }, v);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "stack",
      [](py::handle ts, StrictInt dim) {
        auto v = tensor_seq(ts, "stack");
        return nogil([&] { return stack(v, dim); }, v);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  // Tensor.repeat, Tensor.tile and minitorch.tile: a call of plain ints straight to mt::repeat (PyTorch's are
  // C++ calls of about 1 us; the Python functions' checks cost twice that on an empty result), any other to
  // the Python functions _set_repeat_fallbacks installs
  // the parser's int-list readings (bind.h) for the Python functions
  m.def(
      "_int_list_value",
      [](py::handle h, const char* fn, const char* name, int pos, bool symint, bool sized) {
        return ints_list(int_list_value(h, fn, name, pos, symint, sized));
      },
      py::arg("value"), py::arg("fn"), py::arg("name"), py::arg("pos"), py::arg("symint") = true,
      py::arg("sized") = false);
  m.def(
      "_int_list_varargs",
      [](const char* fn, const char* name, const py::tuple& args, py::handle kw, bool symint) {
        return ints_list(int_list_varargs(fn, name, py::reinterpret_borrow<py::args>(args), kw, symint));
      },
      py::arg("fn"), py::arg("name"), py::arg("args"), py::arg("kw") = py::none(), py::arg("symint") = true);
  m.def("_set_repeat_fallbacks", [](py::object repeat_fn, py::object tile_fn) {
    g_repeat_fallback = repeat_fn.release().ptr();
    g_tile_fallback = tile_fn.release().ptr();
  });
  cls.def("repeat", [](py::handle self, py::args args, py::kwargs kw) {
    if (kw.empty() && args.size() != 0)
      if (py::object r = repeat_lane(self, args.ptr(), false); !r.is_none()) return r;
    // the parser's reading of the counts first (its errors in the method's words), then the plain ints
    return call_fallback(g_repeat_fallback, self, ints_tuple(method_ints("repeat", "repeats", args, kw)),
                         py::kwargs());
  });
  cls.def("tile", [](py::handle self, py::args args, py::kwargs kw) {
    if (kw.empty() && args.size() != 0)
      if (py::object r = repeat_lane(self, args.ptr(), true); !r.is_none()) return r;
    py::list dims = ints_list(method_ints("tile", "dims", args, kw));
    return call_fallback(g_tile_fallback, self, py::make_tuple(dims), py::kwargs());
  });
  {
    // the signature PyTorch's is (pybind11's own line, (*args, **kwargs), reads as bind_out.cpp's out= form)
    py::options sig;
    sig.disable_function_signatures();
    m.def(
        "tile",
        [](py::args args, py::kwargs kw) {
          // (input, dims) with dims a tuple or list: the function's dims is one sequence
          if (kw.empty() && args.size() == 2) {
            PyObject* dims = PyTuple_GET_ITEM(args.ptr(), 1);
            if (PyTuple_CheckExact(dims) || PyList_CheckExact(dims)) {
              py::tuple one = py::make_tuple(py::handle(dims));
              if (py::object r = repeat_lane(args[0], one.ptr(), true); !r.is_none()) return r;
            }
          }
          MT_CHECK(g_tile_fallback != nullptr, "minitorch._C: tile's Python function was not installed");
          return py::reinterpret_borrow<py::object>(g_tile_fallback)(*args, **kw);
        },
        "tile(input, dims) -> Tensor\n\n`input` repeated `dims[i]` times along each dim (dims shorter than "
        "input.dim() padded with ones in front): one strided copy.");
  }
  // the op itself, for the Python functions once they checked a call
  m.def(
      "_repeat",
      [](const Tensor& t, py::handle repeats) {
        DimVector r = parse_size(repeats);
        return nogil([&] { return repeat(t, r); }, t);
      },
      py::arg("input"), py::arg("repeats"));
  m.def(
      "as_strided",
      [](const Tensor& t, py::handle size, py::handle stride, OptInt off) {
        DimVector sz = int_tuple_arg(size, "as_strided", "size", 2);  // size's error before stride's
        DimVector st = int_tuple_arg(stride, "as_strided", "stride", 3);
        return as_strided(t, sz, st, off.v.value_or(t.storage_offset()));
      },
      py::arg("input"), py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
}

}  // namespace mt
