// Tensor's Python surface for metadata, autograd flags, conversions and NumPy interop (zero-copy both ways).
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "autograd/AutogradMeta.h"
#include "autograd/Node.h"
#include "autograd/record.h"
#include "core/CopyBytes.h"
#include "core/FreshWrites.h"
#include "core/GradMode.h"
#include "core/Parallel.h"
#include "core/ParallelGuard.h"
#include "core/StorageAlias.h"
#include "core/TypeMeta.h"
#include "cuda/CUDAHooks.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/layout.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "python/bind.h"
#include "python/bind_factory.h"
#include "python/torch_function.h"

namespace mt {

extern bool g_tf_on;  // torch_function.cpp: a transform's __torch_function__ dispatch is on

namespace {

const char* numpy_format(ScalarType st) {
  switch (st) {
    case ScalarType::Bool:
      return "?";
    case ScalarType::Byte:
      return "u1";
    case ScalarType::Char:
      return "i1";
    case ScalarType::Short:
      return "i2";
    case ScalarType::Int:
      return "i4";
    case ScalarType::Long:
      return "i8";
    case ScalarType::Half:
      return "f2";
    case ScalarType::Float:
      return "f4";
    case ScalarType::Double:
      return "f8";
    case ScalarType::ComplexFloat:
      return "c8";
    case ScalarType::ComplexDouble:
      return "c16";
    default:
      return nullptr;
  }
}

ScalarType from_numpy_dtype(const py::dtype& dt) {
  char kind = dt.kind();
  size_t size = dt.itemsize();
  if (kind == 'b') return ScalarType::Bool;
  if (kind == 'u' && size == 1) return ScalarType::Byte;
  if (kind == 'i') {
    if (size == 1) return ScalarType::Char;
    if (size == 2) return ScalarType::Short;
    if (size == 4) return ScalarType::Int;
    if (size == 8) return ScalarType::Long;
  }
  if (kind == 'f') {
    if (size == 2) return ScalarType::Half;
    if (size == 4) return ScalarType::Float;
    if (size == 8) return ScalarType::Double;
  }
  if (kind == 'c') {
    if (size == 8) return ScalarType::ComplexFloat;
    if (size == 16) return ScalarType::ComplexDouble;
  }
  throw py::type_error(
      "can't convert np.ndarray of type numpy." + std::string(py::str(dt.attr("name"))) +
      ". The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, "
      "int16, int8, uint8, and bool.");
}

// Memory an allocator owns, handed over to a deleter: resize_ refuses to grow a storage with a deleter.
static void release_to_cpu_allocator(void* ctx, void* data) {
  if (data) static_cast<Allocator*>(ctx)->deallocate(data, Device(DeviceType::CPU));
}

// The NumPy array keeps a reference to the storage, so either side may outlive the other. As PyTorch's, the
// storage (its root, for a `.data` alias) is no longer resizable once NumPy sees it: growing it would move
// the tensor to new memory and leave the array behind.
py::array to_numpy(const Tensor& t, bool force) {
  if (!force) {
    MT_CHECK_TYPE(t.device().is_cpu(), "can't convert ", t.device().str(),
                  " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
    // as PyTorch's, only where autograd could record a use: under no_grad (an autograd.Function's forward
    // calling into NumPy) the array is handed out
    MT_CHECK(!(autograd::GradMode::is_enabled() && t.requires_grad()),
             "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
             "instead.");
  }
  Tensor src = t.device().is_cpu() ? t : nogil([&] { return to(t, t.dtype(), Device(DeviceType::CPU)); });
  const char* fmt = numpy_format(src.dtype());
  MT_CHECK_TYPE(fmt != nullptr, "Got unsupported ScalarType ", dtype_short_name(src.dtype()));
  std::vector<py::ssize_t> shape(src.sizes().begin(), src.sizes().end()), strides;
  // a dim of size <= 1 never steps, and its element stride may be anything (x[::2**63-1]): give NumPy 0
  // rather than a byte stride that overflows
  for (int64_t d = 0; d < src.dim(); ++d)
    strides.push_back(src.sizes()[d] <= 1 ? 0 : src.strides()[d] * static_cast<int64_t>(src.itemsize()));
  auto* root = const_cast<StorageImpl*>(storage_root(src.storage().get()));
  if (!root->deleter && root->allocator) {
    root->deleter_ctx = root->allocator;
    root->allocator = nullptr;
    root->deleter = &release_to_cpu_allocator;
  }
  auto* keep = new Storage(src.storage());
  py::capsule owner(keep, [](void* p) { delete static_cast<Storage*>(p); });
  return py::array(py::dtype(fmt), shape, strides, src.data_ptr(), owner);
}

struct NumpyOwner {
  PyObject* array;
};

// The tensor layout of a NumPy array: sizes, strides in elements, and the byte extent the elements span (the
// checks are PyTorch's from_numpy's).
struct NumpyLayout {
  ScalarType dtype;
  DimVector sizes, strides;
  size_t nbytes;
};

NumpyLayout numpy_layout(const py::array& arr) {
  NumpyLayout l;
  l.dtype = from_numpy_dtype(arr.dtype());
  MT_CHECK_VALUE(
      arr.dtype().attr("isnative").cast<bool>(),
      "given numpy array has byte order different from the native byte order. Conversion between byte "
      "orders is currently not supported.");
  int64_t item = static_cast<int64_t>(arr.itemsize());
  int64_t hi = 0;  // byte extent relative to data pointer
  for (py::ssize_t d = 0; d < arr.ndim(); ++d) {
    int64_t s = arr.strides(d);
    MT_CHECK_VALUE(
        s >= 0,
        "At least one stride in the given numpy array is negative, and tensors with negative "
        "strides are not currently supported. (You can probably work around this by making a copy of "
        "your array  with array.copy().) ");
    MT_CHECK_VALUE(s % item == 0,
                   "given numpy array strides not a multiple of the element byte size. Copy the "
                   "numpy array to reallocate the memory.");
    l.sizes.push_back(arr.shape(d));
    l.strides.push_back(s / item);
    if (arr.shape(d) > 0) hi += (arr.shape(d) - 1) * s;
  }
  l.nbytes = arr.size() == 0 ? 0 : static_cast<size_t>(hi + item);
  return l;
}

// an empty array keeps NumPy's strides (zeros in NumPy 2), as PyTorch's from_numpy and tensor() do
Tensor from_numpy(py::array arr) {
  NumpyLayout l = numpy_layout(arr);
  auto storage = std::make_shared<StorageImpl>();
  storage->data = const_cast<void*>(arr.data());
  storage->nbytes = l.nbytes;
  storage->device = Device(DeviceType::CPU);
  storage->deleter_ctx = arr.inc_ref().ptr();
  storage->deleter = [](void* ctx, void*) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire g;
    Py_DECREF(static_cast<PyObject*>(ctx));
  };
  return Tensor(std::make_shared<TensorImpl>(storage, l.sizes, l.strides, 0, l.dtype));
}

// A copy of an array in a storage of our own (allocator memory), so it may grow under resize_ where
// from_numpy's borrowed one may not (torch.tensor, unpickling); the array's strides and byte extent are kept.
Tensor from_numpy_copy(py::array arr) {
  NumpyLayout l = numpy_layout(arr);
  Tensor out = empty_strided_dense(l.sizes, l.strides, l.dtype, Device(DeviceType::CPU));
  const size_t n = std::min(l.nbytes, out.storage()->nbytes);
  if (n) copy_bytes(out.data_ptr(), arr.data(), n);
  return out;
}

// (a template, so that each dtype's branch is only compiled for that dtype)
template <typename T>
py::object py_of(T v) {
  if constexpr (is_complex_v<T>)
    return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(double(v.real()), double(v.imag())));
  else if constexpr (std::is_same<T, bool>::value)
    return py::bool_(v);
  else if constexpr (std::is_integral<T>::value)
    return py::int_(static_cast<int64_t>(v));
  else
    return py::float_(static_cast<double>(static_cast<opmath_t<T>>(v)));
}

py::object tolist_rec(const char* p, IntArrayRef sizes, IntArrayRef strides, size_t d, ScalarType st) {
  if (d == sizes.size()) {
    py::object out;
    MT_DISPATCH_ALL_TYPES_AND_COMPLEX(st, "tolist",
                                      [&] { out = py_of(*reinterpret_cast<const scalar_t*>(p)); });
    return out;
  }
  py::list l(sizes[d]);
  int64_t step = strides[d] * static_cast<int64_t>(element_size(st));
  for (int64_t i = 0; i < sizes[d]; ++i) l[i] = tolist_rec(p + i * step, sizes, strides, d + 1, st);
  return l;
}

MemoryFormatObj memory_formats[] = {{MemoryFormat::Contiguous},
                                    {MemoryFormat::Preserve},
                                    {MemoryFormat::ChannelsLast},
                                    {MemoryFormat::ChannelsLast3d}};
const char* memory_format_name(MemoryFormat mf) {
  static const char* names[] = {"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
  return names[static_cast<int>(mf)];
}
py::object memory_format_object(MemoryFormat mf) {
  return py::cast(&memory_formats[static_cast<int>(mf)], py::return_value_policy::reference);
}

void check_rank(const Tensor& t, MemoryFormat mf) {
  if (mf == MemoryFormat::ChannelsLast)
    MT_CHECK(t.dim() == 4, "required rank 4 tensor to use channels_last format");
  if (mf == MemoryFormat::ChannelsLast3d)
    MT_CHECK(t.dim() == 5, "required rank 5 tensor to use channels_last_3d format");
}

// t as dtype on device with these strides (dense; empty: contiguous), a new tensor. copy_ records the history
// when t needs grad: the result is then a tensor of its own, not a permuted view of a hidden contiguous copy
// (its grad_fn is CopyBackwards where PyTorch names CloneBackward0 or ToCopyBackward0).
Tensor copy_with_strides(const Tensor& t, IntArrayRef strides, ScalarType dtype, Device device,
                         bool non_blocking = false) {
  Tensor r = empty_strided_dense(t.sizes(), strides, dtype, resolve_device(device));
  FreshWrites fresh;  // a new tensor starts at version 0, as PyTorch's, though copy_ wrote it
  copy_(r, t, non_blocking);
  return r;
}

// A copy of t laid out as mf, always a new tensor, as clone(memory_format=).
Tensor clone_as(const Tensor& t, MemoryFormat mf) {
  // an empty tensor's clone keeps its strides (PyTorch's too): clone's own rule
  if (t.numel() == 0 && mf == MemoryFormat::Preserve) return clone(t);
  DimVector st = layout_for(t, mf);
  if (st.empty()) return clone(t);
  return copy_with_strides(t, st, t.dtype(), t.device());
}

// Tensor.to/cpu/cuda after parsing: PyTorch's _to_copy. preserve_format keeps a dense layout (a channels-last
// or transposed input converts into the same strides) and gives a non-dense one dense strides in its order;
// an explicit format lays the result out so, keeping a tensor whose strides are already the format's (not
// merely compatible with it: a 3x2x1x1 weight is contiguous either way, and to(channels_last) still gives it
// strides (2, 1, 2, 2)).
Tensor to_as(const Tensor& self, ScalarType dtype, Device device, bool copy, bool non_blocking,
             MemoryFormat mf) {
  if (dtype == ScalarType::Undefined) dtype = self.dtype();
  // a device copy may wait for the GPU; a conversion of a big tensor is a pass over its memory
  const bool nogil = worth_releasing(self) || !device.is_cpu();
  const bool same = !copy && dtype == self.dtype() && device == self.device();
  if (mf == MemoryFormat::Preserve) {
    DimVector st = same || self.is_contiguous() ? DimVector() : layout_for(self, mf);
    if (st.empty()) return nogil_if(nogil, [&] { return to(self, dtype, device, copy, non_blocking); });
    return nogil_if(nogil, [&] { return copy_with_strides(self, st, dtype, device, non_blocking); });
  }
  if (mf == MemoryFormat::Contiguous) {
    Tensor r = nogil_if(nogil, [&] { return to(self, dtype, device, copy, non_blocking); });
    return contiguous(r);
  }
  DimVector st = layout_for(self, mf);
  if (same && self.strides() == st) return self;
  return nogil_if(nogil, [&] { return copy_with_strides(self, st, dtype, device, non_blocking); });
}

// Parses Tensor.to's overloads: to(dtype), to(device, dtype=None), to(other), with non_blocking/copy
// keywords.
Tensor tensor_to(const Tensor& self, py::args args, py::kwargs kwargs) {
  ScalarType dtype = ScalarType::Undefined;
  Device device = self.device();
  bool copy = false, non_blocking = false;
  MemoryFormat mf = MemoryFormat::Preserve;
  int bools_seen = 0;  // to(device, dtype, non_blocking, copy): trailing positional bools, in that order
  for (py::handle a : args) {
    if (PyBool_Check(a.ptr())) {
      (bools_seen++ == 0 ? non_blocking : copy) = a.cast<bool>();
    } else if (py::isinstance<DType>(a)) {
      dtype = parse_dtype(a);
    } else if (py::isinstance<TensorImpl>(a)) {
      Tensor o = a.cast<Tensor>();
      dtype = o.dtype();
      device = o.device();
    } else if (py::isinstance<py::str>(a) || py::isinstance<Device>(a) || py::isinstance<py::int_>(a)) {
      device = parse_device(a);
    } else if (!a.is_none()) {
      throw py::type_error("to() received an invalid combination of arguments: " + std::string(py::repr(a)));
    }
  }
  for (auto kv : kwargs) {
    std::string k = kv.first.cast<std::string>();
    if (k == "dtype")
      dtype = parse_dtype(kv.second);
    else if (k == "device")
      device = kv.second.is_none() ? self.device() : parse_device(kv.second);
    else if (k == "copy")
      copy = kv.second.cast<bool>();
    else if (k == "non_blocking")
      non_blocking = kv.second.cast<bool>();
    else if (k == "memory_format")
      mf = parse_memory_format(kv.second, "to", MemoryFormat::Preserve);
    else
      throw py::type_error("to() got an unexpected keyword argument '" + k + "'");
  }
  return to_as(self, dtype, device, copy, non_blocking, mf);
}

}  // namespace

MemoryFormat parse_memory_format(py::handle h, const char* fn, std::optional<MemoryFormat> if_none) {
  if (h.is_none() && if_none) return *if_none;
  if (!py::isinstance<MemoryFormatObj>(h))
    throw py::type_error(std::string(fn) + "(): argument 'memory_format' must be torch.memory_format, not " +
                         py::str(py::type::of(h).attr("__name__")).cast<std::string>());
  return h.cast<MemoryFormatObj*>()->mf;
}

bool is_contiguous_as(const Tensor& t, MemoryFormat mf) {
  if (mf == MemoryFormat::Contiguous || mf == MemoryFormat::Preserve) return t.is_contiguous();
  const bool cl = mf == MemoryFormat::ChannelsLast;
  if (t.dim() != (cl ? 4 : 5)) return false;
  // PyTorch's test, size-1 dims skipped: the strides grow from C outwards in the order N, H, W, C
  static const int64_t k4[] = {0, 2, 3, 1}, k5[] = {0, 2, 3, 4, 1};  // N, (D,) H, W, C
  const int64_t* order = cl ? k4 : k5;
  int64_t expected = 1;
  for (int64_t i = t.dim() - 1; i >= 0; --i) {
    int64_t d = order[i];
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

DimVector layout_for(const Tensor& t, MemoryFormat mf) {
  if (mf == MemoryFormat::Preserve) return preserved_strides(t);
  if (mf == MemoryFormat::Contiguous) return {};
  check_rank(t, mf);
  return channels_last_strides(t.sizes());
}

Tensor contiguous_as(const Tensor& t, MemoryFormat mf) {
  if (mf == MemoryFormat::Preserve) mf = MemoryFormat::Contiguous;  // contiguous() checked it is so
  check_rank(t, mf);
  if (is_contiguous_as(t, mf)) return t;
  return clone_as(t, mf);
}

Tensor set_requires_grad(const Tensor& t, bool requires_grad) {
  if (requires_grad) {
    MT_CHECK(is_inexact(t.dtype()), "only Tensors of floating point dtype can require gradients");
    MT_CHECK(!t.is_inference() || autograd::tls_inference_mode,
             "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    t.impl()->ensure_autograd_meta().requires_grad = true;
  } else if (auto* m = t.impl()->autograd_meta()) {
    if (m->grad_fn) {
      MT_CHECK(false,
               "you can only change requires_grad flags of leaf variables. If you want to use a computed "
               "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    }
    m->requires_grad = false;
  }
  return t;
}

PyTypeObject* g_tensor_type = nullptr;

bool load_tensor_int(PyObject* o, bool symint, int64_t* out) {
  Tensor t = py::handle(o).cast<Tensor>();
  // a bool tensor is no int for either kind (a SymInt's one-element bool tensor trips an internal assert in
  // PyTorch 2.15 after its parser took it: refused here as a wrong kind)
  if (!is_integral(t.dtype(), false) || (symint ? t.numel() != 1 : t.dim() != 0)) return false;
  *out = item(t).to_long();
  return true;
}

// Tensor(...) as PyTorch's legacy constructor, and the hook Python subclasses (nn.Parameter) initialize
// through: Tensor.__init__(self, _alias_of=t, requires_grad=b) makes self a new leaf sharing t's storage. The
// impl is always fresh, so pybind11's registry maps it to the subclass instance alone and C++ results that
// return it (in-place ops, .grad's owner) hand back that same Parameter object.
std::shared_ptr<TensorImpl> tensor_init(const py::args& args, const py::kwargs& kwargs) {
  if (kwargs.contains("_alias_of")) {
    Tensor src = kwargs["_alias_of"].cast<Tensor>();
    bool rg = kwargs.contains("requires_grad") && kwargs["requires_grad"].cast<bool>();
    Tensor alias = autograd::detach(src);
    set_requires_grad(alias, rg);
    return alias.ptr();
  }
  // forward AD's dual of a plain tensor that requires grad (_forward_ad._make): the view Tensor(t) makes,
  // keeping t's history, without the legacy constructor's Python
  if (kwargs.contains("_view_of") && args.empty() && kwargs.size() == 1) {
    Tensor src = kwargs["_view_of"].cast<Tensor>();
    return view(src, src.sizes()).ptr();
  }
  // The legacy constructor (sizes, data, another tensor; device=): _creation._legacy_new gives PyTorch's
  // results and errors, and an alias of a tensor argument that keeps its autograd history, as PyTorch's does.
  py::object legacy = py::module_::import("minitorch._creation").attr("_legacy_new");
  return legacy(*args, **kwargs).cast<Tensor>().ptr();
}

namespace {
// The attributes every Python composite reads (t.dtype, t.shape, t.ndim, t.device, t.is_cuda) as plain
// getset descriptors on the Tensor type: through a pybind11 property each paid the property object, the
// dispatcher and the argument caster (t.dtype 0.18 us, PyTorch's 0.06). CPython checks the instance's type
// before calling a getter; the TensorImpl is the instance's value (a shared_ptr holder, one C++ base).
const TensorImpl* impl_of(PyObject* o) {
  if (Py_TYPE(o) == g_dual_tensor_type) check_dual_argument(o);  // what the Tensor caster does for these
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  void* v = inst->simple_layout ? inst->simple_value_holder[0] : nullptr;
  if (!v) v = py::handle(o).cast<TensorImpl*>();  // a layout the fast read does not know: pybind11's own
  return static_cast<const TensorImpl*>(v);
}

template <typename F>
PyObject* guarded(F f) {
  try {
    return f();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// A subclass instance's read of a fast attribute or method goes to its __torch_function__ (PyTorch hands
// every Tensor getter, dim() and numel() to it): *handled then. One compare for a plain Tensor.
PyObject* subclass_read(PyObject* o, SubclassCall kind, const char* name, bool* handled) {
  if (Py_TYPE(o) == g_tensor_type || !g_subclass_tf) return nullptr;
  return subclass_call(kind, name, &o, 1, nullptr, handled);
}

#define MT_SUBCLASS_READ(kind, name)                                      \
  do {                                                                    \
    bool handled_ = false;                                                \
    PyObject* r_ = subclass_read(o, SubclassCall::kind, name, &handled_); \
    if (handled_) return r_;                                              \
  } while (0)

PyObject* get_dtype(PyObject* o, void*) {
  MT_SUBCLASS_READ(getter, "dtype");
  return guarded([o] {
    static PyObject* cache[kNumScalarTypes] = {};  // the dtype singletons (module attributes, never freed)
    ScalarType st = impl_of(o)->dtype();
    PyObject*& d = cache[static_cast<int>(st)];
    if (!d) d = py::cast(dtype_object(st), py::return_value_policy::reference).release().ptr();
    Py_INCREF(d);
    return d;
  });
}
PyObject* get_shape(PyObject* o, void*) {
  MT_SUBCLASS_READ(getter, "shape");
  return guarded([o] { return make_size(impl_of(o)->sizes()).release().ptr(); });
}
PyObject* get_ndim(PyObject* o, void*) {
  MT_SUBCLASS_READ(getter, "ndim");
  return guarded([o] { return PyLong_FromLongLong(impl_of(o)->dim()); });
}
PyObject* get_device(PyObject* o, void*) {
  MT_SUBCLASS_READ(getter, "device");
  return guarded([o] {
    // one object per device (device objects are immutable values): casting a new one each read cost 0.16 us
    static PyObject* cpu = nullptr;
    static PyObject* cuda[64] = {};
    Device d = impl_of(o)->device();
    PyObject** slot = d.is_cpu()                                      ? &cpu
                      : (d.is_cuda() && d.index >= 0 && d.index < 64) ? &cuda[d.index]
                                                                      : nullptr;
    if (!slot) return py::cast(d).release().ptr();
    if (!*slot) *slot = py::cast(d).release().ptr();
    Py_INCREF(*slot);
    return *slot;
  });
}
PyObject* get_is_cuda(PyObject* o, void*) {
  MT_SUBCLASS_READ(getter, "is_cuda");
  return guarded([o] { return PyBool_FromLong(impl_of(o)->device().is_cuda()); });
}

PyGetSetDef fast_attributes[] = {
    {"dtype", &get_dtype, nullptr, "The tensor's element type (a minitorch.dtype singleton).", nullptr},
    {"shape", &get_shape, nullptr, "The tensor's sizes, a minitorch.Size.", nullptr},
    {"ndim", &get_ndim, nullptr, "The number of dimensions.", nullptr},
    {"device", &get_device, nullptr, "The device the tensor's data lives on.", nullptr},
    {"is_cuda", &get_is_cuda, nullptr, "True when the tensor lives on a CUDA device.", nullptr},
};

// and the argument-less questions composites ask as often (t.dim() 0.14 us through pybind11, PyTorch's 0.07)
PyObject* m_dim(PyObject* o, PyObject*) {
  MT_SUBCLASS_READ(method, "dim");
  return guarded([o] { return PyLong_FromLongLong(impl_of(o)->dim()); });
}
PyObject* m_numel(PyObject* o, PyObject*) {
  MT_SUBCLASS_READ(method, "numel");
  return guarded([o] { return PyLong_FromLongLong(impl_of(o)->numel()); });
}
PyObject* m_is_floating_point(PyObject* o, PyObject*) {
  return guarded([o] { return PyBool_FromLong(is_floating(impl_of(o)->dtype())); });
}
PyObject* m_is_complex(PyObject* o, PyObject*) {
  return guarded([o] { return PyBool_FromLong(is_complex(impl_of(o)->dtype())); });
}

#undef MT_SUBCLASS_READ

PyMethodDef fast_methods[] = {
    {"dim", &m_dim, METH_NOARGS, "The number of dimensions."},
    {"numel", &m_numel, METH_NOARGS, "The number of elements."},
    {"is_floating_point", &m_is_floating_point, METH_NOARGS, "True for a floating point dtype."},
    {"is_complex", &m_is_complex, METH_NOARGS, "True for a complex dtype."},
};

void set_descriptor(py::handle cls, const char* name, PyObject* descr) {
  if (!descr || PyObject_SetAttrString(cls.ptr(), name, descr) < 0) {
    Py_XDECREF(descr);
    throw py::error_already_set();
  }
  Py_DECREF(descr);
}

void install_fast_attributes(TensorClass& cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  for (PyMethodDef& def : fast_methods) set_descriptor(cls, def.ml_name, PyDescr_NewMethod(type, &def));
  for (PyGetSetDef& def : fast_attributes) set_descriptor(cls, def.name, PyDescr_NewGetSet(type, &def));
  PyType_Modified(type);
}

// The small methods programs call per tensor (metadata, flags, the calls that hand self back) as CPython
// methods: through pybind11's dispatcher or a Python function each cost 0.1-4 us against PyTorch's 0.05-0.7
// (x.ndimension() 0.105 us, PyTorch's 0.048; x.new(2, 3) 4.2 against 0.7). Each answers its common call here
// and hands every other one (other values, keywords, errors, any call while a transform's __torch_function__
// dispatch is on, a forward-AD dual) to the method it replaces, kept as its fallback, so that method's
// parsing and messages stand. _C._install_fast_methods puts them on the class once the Python methods are
// installed.
enum FastSlot : int {
  kNdimension,
  kNelement,
  kStorageOffset,
  kIsConj,
  kIsNeg,
  kIsSigned,
  kIsDistributed,
  kStride,
  kIsContiguous,
  kContiguous,
  kRequiresGrad,
  kIsSameSize,
  kTypeAs,
  kNew,
  kSumToSize,
  kFloat,
  kDouble,
  kHalf,
  kBFloat16,
  kLong,
  kInt,
  kShort,
  kChar,
  kByte,
  kBool,
  kNumFastSlots
};
PyObject* g_fallback[kNumFastSlots] = {};

// f(), its C++ exceptions raised as the bindings raise them (the module's translators: IndexError,
// OutOfMemoryError, ...), as pybind11's dispatcher does
template <typename F>
PyObject* translated(F f) {
  try {
    return f();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return nullptr;
}

// the method it replaces, called with self first (as the class attribute is called unbound)
PyObject* fallback(FastSlot slot, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                   PyObject* kwnames) {
  Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  PyObject* small[8];
  std::vector<PyObject*> big;
  PyObject** v = small;
  if (n + 1 > 8) {
    big.resize(n + 1);
    v = big.data();
  }
  v[0] = self;
  for (Py_ssize_t k = 0; k < n; ++k) v[k + 1] = args[k];
  return PyObject_Vectorcall(g_fallback[slot], v, nargs + 1, kwnames);
}

// whether the call must go to the fallback whatever its arguments
bool slow_self(PyObject* self) {
  return g_tf_on ||
         (Py_TYPE(self) != g_tensor_type && (Py_TYPE(self) == g_dual_tensor_type || g_subclass_tf));
}

// the Tensor object's own shared holder (an owning Tensor without the caster's lookups)
Tensor tensor_of(PyObject* o) {
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  if (inst->simple_layout && inst->simple_holder_constructed)
    return Tensor(*reinterpret_cast<std::shared_ptr<TensorImpl>*>(&inst->simple_value_holder[1]));
  return py::handle(o).cast<Tensor>();
}

bool is_plain_tensor(PyObject* o) {
  // a subclass instance goes through its __torch_function__ once one that takes part exists
  return Py_TYPE(o) == g_tensor_type ||
         (!g_subclass_tf && PyObject_TypeCheck(o, g_tensor_type) && Py_TYPE(o) != g_dual_tensor_type);
}

// PyTorch's words for an argument-less method given arguments (its methods are TensorBase's), in CPython's
// order: keywords first
bool refuse_arguments(const char* name, Py_ssize_t nargs, PyObject* kwnames) {
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    PyErr_Format(PyExc_TypeError, "TensorBase.%s() takes no keyword arguments", name);
    return true;
  }
  if (nargs) {
    PyErr_Format(PyExc_TypeError, "TensorBase.%s() takes no arguments (%zd given)", name, nargs);
    return true;
  }
  return false;
}

template <FastSlot S, typename F>
PyObject* no_args_method(const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames, F answer) {
  if (refuse_arguments(name, nargs, kwnames)) return nullptr;
  if (slow_self(self)) return fallback(S, self, args, nargs, kwnames);
  return translated([&] { return answer(impl_of(self)); });
}

#define MT_FAST_NOARGS(fn, slot, name, expr)                                                                 \
  PyObject* fn(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {                 \
    return no_args_method<slot>(name, self, args, nargs, kwnames, [](const TensorImpl* t) { return expr; }); \
  }
MT_FAST_NOARGS(f_ndimension, kNdimension, "ndimension", PyLong_FromLongLong(t->dim()))
MT_FAST_NOARGS(f_nelement, kNelement, "nelement", PyLong_FromLongLong(t->numel()))
MT_FAST_NOARGS(f_storage_offset, kStorageOffset, "storage_offset", PyLong_FromLongLong(t->storage_offset()))
// conj() and neg() are eager here: no tensor carries either bit; nor is any spread over processes
MT_FAST_NOARGS(f_is_conj, kIsConj, "is_conj", ((void)t, Py_NewRef(Py_False)))
MT_FAST_NOARGS(f_is_neg, kIsNeg, "is_neg", ((void)t, Py_NewRef(Py_False)))
MT_FAST_NOARGS(f_is_distributed, kIsDistributed, "is_distributed", ((void)t, Py_NewRef(Py_False)))
MT_FAST_NOARGS(f_is_signed, kIsSigned, "is_signed", PyBool_FromLong(is_signed(t->dtype())))
#undef MT_FAST_NOARGS

// x.stride() and x.stride(d) for an int d in range
PyObject* f_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return translated([&]() -> PyObject* {
    if (slow_self(self) || kwnames || nargs > 1 || (nargs == 1 && !PyLong_CheckExact(args[0])))
      return fallback(kStride, self, args, nargs, kwnames);
    const TensorImpl* t = impl_of(self);
    const DimVector& st = t->strides();
    int64_t n = static_cast<int64_t>(st.size());
    if (nargs == 0) {
      PyObject* r = PyTuple_New(n);
      for (int64_t k = 0; r && k < n; ++k) {
        PyObject* e = PyLong_FromLongLong(st[k]);
        if (!e)
          Py_CLEAR(r);
        else
          PyTuple_SET_ITEM(r, k, e);
      }
      return r;
    }
    int overflow = 0;
    long long d = PyLong_AsLongLongAndOverflow(args[0], &overflow);
    if (overflow || d < -n || d >= n) return fallback(kStride, self, args, nargs, kwnames);  // its errors
    return PyLong_FromLongLong(st[d < 0 ? d + n : d]);
  });
}

// PyTorch's words for a keyword-only memory_format given by position (x.contiguous(fmt))
bool refuse_positional(const char* name, Py_ssize_t nargs) {
  if (!nargs) return false;
  PyErr_Format(PyExc_TypeError, "%s() takes 0 positional arguments but %zd %s given", name, nargs,
               nargs == 1 ? "was" : "were");
  return true;
}

PyObject* f_is_contiguous(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (refuse_positional("is_contiguous", nargs)) return nullptr;
  return translated([&]() -> PyObject* {
    if (slow_self(self) || kwnames) return fallback(kIsContiguous, self, args, nargs, kwnames);
    return PyBool_FromLong(impl_of(self)->is_contiguous());
  });
}

// self when it is laid out already (PyTorch's contiguous() returns self then)
PyObject* f_contiguous(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (refuse_positional("contiguous", nargs)) return nullptr;
  return translated([&]() -> PyObject* {
    if (slow_self(self) || kwnames || !impl_of(self)->is_contiguous())
      return fallback(kContiguous, self, args, nargs, kwnames);
    return Py_NewRef(self);
  });
}

// requires_grad_() and requires_grad_(True/False) where it cannot fail: a floating or complex dtype, no
// inference tensor, a leaf when clearing
PyObject* f_requires_grad(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (slow_self(self) || kwnames || nargs > 1 || (nargs == 1 && !PyBool_Check(args[0])))
    return fallback(kRequiresGrad, self, args, nargs, kwnames);
  bool on = nargs == 0 || args[0] == Py_True;
  return translated([&]() -> PyObject* {
    const TensorImpl* ti = impl_of(self);
    AutogradMeta* m = ti->autograd_meta();
    if (on ? !is_inexact(ti->dtype()) || ti->storage()->inference : m && m->grad_fn)
      return fallback(kRequiresGrad, self, args, nargs, kwnames);
    set_requires_grad(tensor_of(self), on);
    return Py_NewRef(self);
  });
}

PyObject* f_is_same_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return translated([&]() -> PyObject* {
    if (slow_self(self) || kwnames || nargs != 1 || !is_plain_tensor(args[0]))
      return fallback(kIsSameSize, self, args, nargs, kwnames);
    return PyBool_FromLong(impl_of(self)->sizes() == impl_of(args[0])->sizes());
  });
}

// self converted to dtype, self itself when it has it: the Python methods' self.to(dtype) (tensor_to's
// defaults), for type_as and x.float() & co.
PyObject* to_dtype(PyObject* self, ScalarType dtype) {
  if (impl_of(self)->dtype() == dtype) return Py_NewRef(self);
  Tensor t = tensor_of(self);
  return py::cast(to_as(t, dtype, t.device(), false, false, MemoryFormat::Preserve)).release().ptr();
}

// self converted to other's dtype
PyObject* f_type_as(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return translated([&]() -> PyObject* {
    if (slow_self(self) || kwnames || nargs != 1 || !is_plain_tensor(args[0]))
      return fallback(kTypeAs, self, args, nargs, kwnames);
    return to_dtype(self, impl_of(args[0])->dtype());
  });
}

// x.new() and x.new(*sizes) of plain non-negative ints: new_empty's tensor
PyObject* f_new(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return translated([&]() -> PyObject* {
    if (slow_self(self) || kwnames) return fallback(kNew, self, args, nargs, kwnames);
    DimVector sizes;
    if (nargs == 0) sizes.push_back(0);
    for (Py_ssize_t k = 0; k < nargs; ++k) {
      int overflow = 0;
      long long v = PyLong_CheckExact(args[k]) ? PyLong_AsLongLongAndOverflow(args[k], &overflow) : -1;
      if (overflow || v < 0) return fallback(kNew, self, args, nargs, kwnames);
      sizes.push_back(v);
    }
    Tensor t = tensor_of(self);
    return py::cast(new_tensor_of(empty, t, sizes, t.dtype(), py::none(), false)).release().ptr();
  });
}

// PyTorch's sum_to: self summed over the dims that broadcast to its shape from sizes (separate ints, or one
// tuple or list of them), self itself when none does; sizes that do not expand to self's shape, and any other
// value, are the Python composite's to refuse
PyObject* f_sum_to_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  // PyTorch's parser takes separate sizes only after an int (x.sum_to_size(8.0, 8) is one argument too many)
  if (nargs > 1 && (PyBool_Check(args[0]) || PyFloat_Check(args[0]))) {
    PyErr_Format(PyExc_TypeError, "sum_to_size() takes 1 positional argument but %zd were given", nargs);
    return nullptr;
  }
  PyObject* const* items = args;
  Py_ssize_t n = nargs;
  if (nargs == 1 && (PyTuple_Check(args[0]) || PyList_CheckExact(args[0]))) {
    items = PySequence_Fast_ITEMS(args[0]);
    n = PySequence_Fast_GET_SIZE(args[0]);
  }
  for (Py_ssize_t k = 0; k < n && !kwnames; ++k) {
    if (!PyFloat_Check(items[k]) || (k == 0 && items == args)) continue;  // (a lone float: the composite's)
    if (k == 0)
      PyErr_SetString(
          PyExc_TypeError,
          "sum_to_size(): argument 'size' (position 1) must be tuple of ints, but found element of "
          "type float at pos 0");
    else
      PyErr_Format(
          PyExc_TypeError,
          "sum_to_size(): argument 'size' failed to unpack the object at pos %zd with error \"type must "
          "be tuple of ints,but got float\"",
          k + 1);
    return nullptr;
  }
  return translated([&]() -> PyObject* {
    if (slow_self(self) || kwnames || nargs == 0) return fallback(kSumToSize, self, args, nargs, kwnames);
    const DimVector& shape = impl_of(self)->sizes();
    int64_t lead = static_cast<int64_t>(shape.size()) - n;
    if (n == 0 || lead < 0) return fallback(kSumToSize, self, args, nargs, kwnames);
    DimVector sizes, dims;
    for (int64_t k = 0; k < lead; ++k) dims.push_back(k);
    for (Py_ssize_t k = 0; k < n; ++k) {
      int overflow = 0;
      long long v = PyLong_CheckExact(items[k]) ? PyLong_AsLongLongAndOverflow(items[k], &overflow) : -1;
      int64_t have = shape[lead + k];
      if (overflow || (v != 1 && v != have)) return fallback(kSumToSize, self, args, nargs, kwnames);
      if (v == 1 && have != 1) dims.push_back(lead + k);
      sizes.push_back(v);
    }
    if (dims.empty()) return Py_NewRef(self);
    Tensor t = tensor_of(self);
    Tensor r = nogil([&] { return sum(t, dims, true); }, t);
    return py::cast(lead ? reshape(r, sizes) : r).release().ptr();
  });
}

extern PyMethodDef fast_slow_methods[];

// x.float() & co.: self when it has that dtype already, as PyTorch's
template <FastSlot S, ScalarType T>
PyObject* f_convert(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (refuse_positional(fast_slow_methods[S].ml_name, nargs)) return nullptr;
  return translated([&]() -> PyObject* {
    if (slow_self(self) || kwnames) return fallback(S, self, args, nargs, kwnames);
    return to_dtype(self, T);
  });
}

#define MT_FAST(name, fn)                                                                                 \
  {name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fn)), METH_FASTCALL | METH_KEYWORDS, \
   nullptr}
// in FastSlot's order
PyMethodDef fast_slow_methods[] = {
    MT_FAST("ndimension", f_ndimension),
    MT_FAST("nelement", f_nelement),
    MT_FAST("storage_offset", f_storage_offset),
    MT_FAST("is_conj", f_is_conj),
    MT_FAST("is_neg", f_is_neg),
    MT_FAST("is_signed", f_is_signed),
    MT_FAST("is_distributed", f_is_distributed),
    MT_FAST("stride", f_stride),
    MT_FAST("is_contiguous", f_is_contiguous),
    MT_FAST("contiguous", f_contiguous),
    MT_FAST("requires_grad_", f_requires_grad),
    MT_FAST("is_same_size", f_is_same_size),
    MT_FAST("type_as", f_type_as),
    MT_FAST("new", f_new),
    MT_FAST("sum_to_size", f_sum_to_size),
    MT_FAST("float", (f_convert<kFloat, ScalarType::Float>)),
    MT_FAST("double", (f_convert<kDouble, ScalarType::Double>)),
    MT_FAST("half", (f_convert<kHalf, ScalarType::Half>)),
    MT_FAST("bfloat16", (f_convert<kBFloat16, ScalarType::BFloat16>)),
    MT_FAST("long", (f_convert<kLong, ScalarType::Long>)),
    MT_FAST("int", (f_convert<kInt, ScalarType::Int>)),
    MT_FAST("short", (f_convert<kShort, ScalarType::Short>)),
    MT_FAST("char", (f_convert<kChar, ScalarType::Char>)),
    MT_FAST("byte", (f_convert<kByte, ScalarType::Byte>)),
    MT_FAST("bool", (f_convert<kBool, ScalarType::Bool>)),
};
#undef MT_FAST
static_assert(sizeof(fast_slow_methods) / sizeof(PyMethodDef) == kNumFastSlots, "one row per FastSlot");

// Replaces each of those methods on the class by its fast form, the method there now kept as its fallback
// (its docstring too). Once: a second call would make the fast forms their own fallbacks.
void install_fast_methods(py::handle cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  for (int k = 0; k < kNumFastSlots; ++k) {
    PyMethodDef& def = fast_slow_methods[k];
    MT_CHECK(!g_fallback[k], "_install_fast_methods: installed already");
    PyObject* old = PyDict_GetItemString(type->tp_dict, def.ml_name);
    MT_CHECK(old, "_install_fast_methods: Tensor.", def.ml_name, " is not defined yet");
    g_fallback[k] = Py_NewRef(old);
    py::object doc = py::reinterpret_borrow<py::object>(old).attr("__doc__");
    // (a method's doc must outlive it: the class's methods live as long as the process)
    if (!doc.is_none()) def.ml_doc = strdup(std::string(py::str(doc)).c_str());
    set_descriptor(cls, def.ml_name, PyDescr_NewMethod(type, &def));
  }
  PyType_Modified(type);
}
}  // namespace

void init_tensor(py::module_& m, TensorClass& cls) {
  g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  // Python's own errors name a type by tp_name ("unsupported operand type(s) for +: 'Tensor' and 'str'",
  // "type Tensor doesn't define __round__ method"): torch.Tensor is a Python class, named bare there
  g_tensor_type->tp_name = "Tensor";
  py::class_<MemoryFormatObj>(m, "memory_format")
      .def("__repr__",
           [](const MemoryFormatObj& f) { return std::string("torch.") + memory_format_name(f.mf); })
      .def("__reduce__", [](const MemoryFormatObj& f) { return std::string(memory_format_name(f.mf)); });
  for (auto mf : {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast,
                  MemoryFormat::ChannelsLast3d})
    m.attr(memory_format_name(mf)) = memory_format_object(mf);
  cls.def(py::init(&tensor_init));
  cls.def_property_readonly("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, OptInt dim) -> py::object {
            if (!dim.v) return make_size(t.sizes());
            return py::int_(t.size(*dim.v));
          },
          py::arg("dim") = py::none())
      .def(
          "stride",
          [](const Tensor& t, OptInt dim) -> py::object {
            if (!dim.v) return py::tuple(py::cast(t.strides().vec()));
            return py::int_(t.stride(*dim.v));
          },
          py::arg("dim") = py::none())
      .def("dim", [](const Tensor& t) { return t.dim(); })
      .def("ndimension", [](const Tensor& t) { return t.dim(); })
      .def_property_readonly("ndim", [](const Tensor& t) { return t.dim(); })
      .def("numel", [](const Tensor& t) { return t.numel(); })
      .def("nelement", [](const Tensor& t) { return t.numel(); })
      .def("element_size", [](const Tensor& t) { return t.itemsize(); })
      .def_property_readonly("itemsize", [](const Tensor& t) { return t.itemsize(); })
      .def_property_readonly("nbytes",
                             [](const Tensor& t) { return t.numel() * static_cast<int64_t>(t.itemsize()); })
      .def_property_readonly(
          "dtype", [](const Tensor& t) { return dtype_object(t.dtype()); },
          py::return_value_policy::reference)
      .def_property_readonly("device", [](const Tensor& t) { return t.device(); })
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.is_cuda(); })
      .def_property_readonly("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); })
      .def_property_readonly("is_meta", [](const Tensor& t) { return t.is_meta(); })
      .def("get_device", [](const Tensor& t) { return t.is_cuda() ? t.device().index : -1; })
      .def("is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); })
      .def("is_complex", [](const Tensor& t) { return is_complex(t.dtype()); })
      // views of the parts; assigning writes through them (x.real = y), as PyTorch's setters do
      .def_property(
          "real", [](const Tensor& t) { return real(t); },
          [](const Tensor& t, py::handle v) { copy_(real(t), to_operand(v, "value")); })
      .def_property(
          "imag", [](const Tensor& t) { return imag(t); },
          [](const Tensor& t, py::handle v) { copy_(imag(t), to_operand(v, "value")); })
      .def(
          "is_contiguous",
          [](const Tensor& t, py::handle mf) {
            return is_contiguous_as(t, parse_memory_format(mf, "is_contiguous"));
          },
          py::arg("memory_format") = memory_format_object(MemoryFormat::Contiguous))
      .def("storage_offset", [](const Tensor& t) { return t.storage_offset(); })
      // 0 for a meta tensor, as PyTorch's
      // a tensor of no elements points nowhere (0), as PyTorch's
      .def("data_ptr",
           [](const Tensor& t) {
             return t.numel() == 0 ? 0 : reinterpret_cast<uintptr_t>(t.unchecked_data_ptr());
           })
      // Tensor._base: the root base of a view, whatever the grad mode and dtype it was made with (None for
      // a tensor that is no view, or a view of an inference tensor), as PyTorch's
      .def_property_readonly("_base",
                             [](const Tensor& t) -> py::object {
                               if (!t.is_view()) return py::none();
                               return py::cast(t.view_base());
                             })
      .def("_is_view", [](const Tensor& t) { return t.is_view(); })
      // serialization (python/minitorch/serialization.py): a storage's identity, size and raw bytes
      .def("_storage_key",
           [](const Tensor& t) {
             // meta storages have no data address: their own identity tells them apart
             const void* key =
                 t.is_meta() ? static_cast<const void*>(storage_root(t.storage().get())) : t.storage()->data;
             return py::make_tuple(t.device().str(), reinterpret_cast<uintptr_t>(key));
           })
      .def("_storage_nbytes", [](const Tensor& t) { return t.storage()->nbytes; })
      .def("_storage_bytes",
           [](const Tensor& t) {
             // the whole storage as one flat byte tensor view, brought to the host (a sync on CUDA)
             int64_t n = static_cast<int64_t>(t.storage()->nbytes / t.itemsize());
             Tensor flat = make_view(t, {n}, {1}, 0);
             Tensor host = flat.is_cuda() ? to(flat, flat.dtype(), Device(DeviceType::CPU)) : flat;
             return py::bytes(static_cast<const char*>(host.data_ptr()),
                              static_cast<size_t>(n) * t.itemsize());
           })
      .def("untyped_storage_nbytes", [](const Tensor& t) { return t.storage()->nbytes; })
      .def_property_readonly("_version", [](const Tensor& t) { return t.version(); })
      .def("_is_view_of", [](const Tensor& a, const Tensor& b) { return same_memory(a, b); })
      // autograd flags; the graph's surface (grad_fn, backward, hooks) is in bind_autograd.cpp
      .def("is_inference", [](const Tensor& t) { return t.is_inference(); })
      .def_property(
          "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
          [](const Tensor& t, StrictBool v) { set_requires_grad(t, v); })
      .def(
          "requires_grad_", [](const Tensor& t, StrictBool v) { return set_requires_grad(t, v); },
          py::arg("requires_grad") = true)
      .def_property(
          "grad",
          [](const Tensor& t) {
            auto* m = t.impl()->autograd_meta();
            return m ? m->grad : Tensor();
          },
          [](const Tensor& t, py::object g) {
            Tensor grad = g.is_none() ? Tensor() : g.cast<Tensor>();
            if (grad.defined()) {
              MT_CHECK(grad.sizes() == t.sizes(), "assigned grad has data of a different size");
              MT_CHECK(grad.dtype() == t.dtype(), "assigned grad has data of a different type");
              MT_CHECK(grad.device() == t.device(), "assigned grad has data located on a different device");
            }
            t.impl()->ensure_autograd_meta().grad = grad;
          })
      .def_property(
          "data", [](const Tensor& t) { return data_alias(t); },
          [](const Tensor& t, const Tensor& src) { set_data_keep_version(t, src); })
      // conversions
      .def("to", strict_fn(&tensor_to))
      .def(
          "cpu",
          [](py::object self, py::handle memory_format) -> py::object {
            Tensor t = self.cast<Tensor>();
            MemoryFormat mf = parse_memory_format(memory_format, "cpu", MemoryFormat::Preserve);
            if (t.device().is_cpu())
              return mf == MemoryFormat::Preserve ? self : py::cast(contiguous_as(t, mf));
            return py::cast(to_as(t, t.dtype(), Device(DeviceType::CPU), false, false, mf));
          },
          py::kw_only(), py::arg("memory_format") = py::none())  // keyword only, as PyTorch's
      .def(
          "cuda",
          [](const Tensor& t, py::object device, StrictBool non_blocking, py::handle memory_format) {
            Device d = device.is_none() ? Device(DeviceType::CUDA) : parse_device(device);
            MT_CHECK(d.is_cuda(), "Invalid device, must be cuda device");
            MemoryFormat mf = parse_memory_format(memory_format, "cuda", MemoryFormat::Preserve);
            return to_as(t, t.dtype(), d, false, non_blocking, mf);
          },
          py::arg("device") = py::none(), py::arg("non_blocking") = false,
          py::arg("memory_format") = py::none())
      .def(
          "type",
          [](const Tensor& t, py::object dtype) -> py::object {
            if (dtype.is_none()) {
              return py::str(legacy_type_name(t.dtype(), t.is_cuda()));
            }
            ScalarType st = parse_dtype(dtype);
            return py::cast(nogil([&] { return to(t, st, t.device()); }, t));
          },
          py::arg("dtype") = py::none())
      .def(
          "contiguous",
          [](const Tensor& t, py::handle memory_format) {
            MemoryFormat mf = parse_memory_format(memory_format, "contiguous");
            // preserve_format is refused only when there is something to lay out, as PyTorch's
            MT_CHECK(mf != MemoryFormat::Preserve || t.is_contiguous(),
                     "preserve memory format is unsupported by the contiguous operator");
            return nogil([&] { return contiguous_as(t, mf); }, t);
          },
          py::arg("memory_format") = memory_format_object(MemoryFormat::Contiguous))
      .def(
          "clone",
          [](const Tensor& t, py::handle memory_format) {
            MemoryFormat mf = parse_memory_format(memory_format, "clone", MemoryFormat::Preserve);
            return nogil([&] { return clone_as(t, mf); }, t);
          },
          py::kw_only(), py::arg("memory_format") = py::none())
      // PyTorch's Python signature names the source `other`; a number is copied as a 0-dim tensor of its own
      // kind (300 into uint8 wraps to 44, as a copy does)
      .def(
          "copy_",
          [](const Tensor& t, py::handle other, StrictBool nb) {
            Tensor src;
            if (py::isinstance<TensorImpl>(other))
              src = other.cast<Tensor>();
            else if (is_python_scalar(other))
              src = to_operand(other);
            else
              throw py::type_error("copy_(): argument 'other' (position 1) must be Tensor, not " +
                                   arg_type_name(other));
            return nogil([&] { return copy_(t, src, nb); }, t, src);
          },
          py::arg("other"), py::arg("non_blocking") = false)
      .def(
          "pin_memory", [](const Tensor& t, py::object) { return nogil([&] { return pin_memory(t); }); },
          py::arg("device") = py::none())
      .def(
          "is_pinned", [](const Tensor& t, py::object) { return is_pinned(t); },
          py::arg("device") = py::none())
      .def("record_stream",
           [](const Tensor& t, py::object stream) {
             cuda_hooks().record_stream(t, stream.attr("cuda_stream").cast<uintptr_t>());
           })
      // item on a GPU tensor waits for it (released then; a CPU element is never worth it)
      .def("item", [](const Tensor& t) { return scalar_to_py(nogil([&] { return item(t); }, t)); })
      .def("tolist",
           [](const Tensor& t) {
             Tensor c =
                 t.device().is_cpu() ? t : nogil([&] { return to(t, t.dtype(), Device(DeviceType::CPU)); });
             return tolist_rec(static_cast<const char*>(c.data_ptr()), c.sizes(), c.strides(), 0, c.dtype());
           })
      .def(
          "numpy", [](const Tensor& t, StrictBool force) { return to_numpy(t, force); },
          py::arg("force") = false)
      .def("__len__",
           [](const Tensor& t) {
             MT_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
             return t.sizes()[0];
           })
      .def("__bool__",
           [](const Tensor& t) {
             MT_CHECK(t.numel() == 1, "Boolean value of Tensor with ",
                      t.numel() == 0 ? "no values" : "more than one value", " is ambiguous");
             return nogil([&] { return item(t); }, t).to_bool();
           })
      .def("__float__",
           [](const Tensor& t) {
             MT_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
             Scalar s = nogil([&] { return item(t); }, t);
             // PyTorch converts a complex number to a Python float only when it is real
             MT_CHECK(!s.is_complex() || s.to_complex().imag() == 0,
                      "value cannot be converted to type double without overflow");
             return s.to_double();
           })
      .def("__complex__",
           [](const Tensor& t) {
             MT_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
             return nogil([&] { return item(t); }, t).to_complex();
           })
      .def("__int__",
           [](const Tensor& t) -> py::object {
             MT_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
             Scalar v = item(t);
             // a float as PyTorch's PyLong_FromDouble takes it: truncated, exact past int64, NaN's ValueError
             if (!v.is_integral() && !v.is_bool() && !v.is_complex()) {
               PyObject* n = PyLong_FromDouble(v.to_double());
               if (!n) throw py::error_already_set();
               return py::reinterpret_steal<py::object>(n);
             }
             return py::int_(v.to_long());
           })
      .def("__index__",
           [](const Tensor& t) {
             MT_CHECK_TYPE(t.numel() == 1 && is_integral(t.dtype(), true),
                           "only integer tensors of a single element can be converted to an index");
             return item(t).to_long();
           })
      .def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); });

  m.def("from_numpy", [](py::array arr) { return from_numpy(arr); });
  m.def("_from_numpy_copy", [](py::array arr) { return from_numpy_copy(arr); });
  m.def("_is_tensor", [](py::handle h) { return py::isinstance<TensorImpl>(h); });
  // ops/copy.h's check for the Python composites that convert a number argument to a dtype as PyTorch's
  // kernels do (threshold's bounds, hardshrink's lambd): the C++ ops' own check, one place for its ranges
  m.def(
      "_check_scalar_fits",
      [](py::handle value, py::handle dtype) { check_scalar_fits(parse_scalar(value), parse_dtype(dtype)); },
      py::arg("value"), py::arg("dtype"));
  // A 1-D CPU tensor of `dtype` holding a copy of `buf` (whose size must be a multiple of the element size).
  m.def("_tensor_from_bytes", [](py::bytes buf, py::handle dtype) {
    ScalarType st = parse_dtype(dtype);
    std::string_view v = buf;
    size_t item = element_size(st);
    MT_CHECK(v.size() % item == 0, "storage of ", v.size(), " bytes is not a whole number of ",
             dtype_name(st), " elements (corrupt file?)");
    Tensor out = make_empty({static_cast<int64_t>(v.size() / item)}, st, Device(DeviceType::CPU));
    if (!v.empty()) std::memcpy(out.data_ptr(), v.data(), v.size());
    return out;
  });
  m.def("get_num_threads", strict_fn(&get_num_threads));
  m.def("set_num_threads", [](int n) {
    MT_CHECK(n > 0, "set_num_threads expects a positive integer");
    set_num_threads(n);
  });
  // whether parallel_for runs on the calling thread for now (core/Parallel.cpp's late-worker guard): for
  // tests
  m.def("_parallel_backing_off", &parallel_backing_off);
  m.def("_install_fast_methods", &install_fast_methods,
        "Puts the fast forms of the small Tensor methods on the class, each keeping the method it replaces.");
  install_fast_attributes(cls);
}

}  // namespace mt
