// Shared binding helpers: the Tensor type caster and conversions of Python arguments (dtype, device,
// sizes, scalars) used by every csrc/python/bind_*.cpp. Nothing here computes.
#pragma once
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "core/Generator.h"
#include "core/Scalar.h"
#include "core/Tensor.h"
#include "python/strict_args.h"

namespace py = pybind11;

namespace mt {
// Forward AD's DualTensor type (registered when minitorch.func._forward_ad loads) and its check: a dual of an
// active level that reaches a builtin directly, not through the torch namespaces' dispatch (a function bound
// before the level was entered: `from torch import sin`), would lose its tangent silently; the check raises.
// Other tensors pay one pointer compare.
extern PyTypeObject* g_dual_tensor_type;
void check_dual_argument(pybind11::handle src);
}  // namespace mt

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
    if (Py_TYPE(src.ptr()) == mt::g_dual_tensor_type) mt::check_dual_argument(src);
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

// torch.memory_format: one singleton object per layout, so `mf is minitorch.channels_last` holds.
enum class MemoryFormat : uint8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };
struct MemoryFormatObj {
  MemoryFormat mf;
};
// `fn`'s memory_format argument (None as `if_none` where the binding's default is None); TypeError in
// PyTorch's words for anything but a memory_format.
MemoryFormat parse_memory_format(py::handle h, const char* fn,
                                 std::optional<MemoryFormat> if_none = std::nullopt);
// t.is_contiguous(memory_format=): PyTorch's stride test, channels_last for 4-d tensors, channels_last_3d for
// 5-d (false for other ranks).
bool is_contiguous_as(const Tensor& t, MemoryFormat mf);
// The strides of a new tensor shaped like `t` laid out as mf (empty: contiguous): preserve_format keeps a
// dense layout and a channels-last-like one (PyTorch's empty_like/clone/to), channels_last(_3d) checks the
// rank.
DimVector layout_for(const Tensor& t, MemoryFormat mf);
// t itself when it is laid out as `mf` already (Preserve: contiguous), else a copy that is (NHWC / NDHWC
// strides for channels_last / channels_last_3d; autograd records it).
Tensor contiguous_as(const Tensor& t, MemoryFormat mf);

// None -> Undefined; minitorch.dtype; Python bool/int/float types (as PyTorch accepts).
ScalarType parse_dtype(py::handle h);
// None -> CPU; "cuda:1", minitorch.device, int (a CUDA index).
Device parse_device(py::handle h);
// A Python number or 1-element tensor as a Scalar; TypeError naming `what` otherwise.
Scalar parse_scalar(py::handle h, const char* what = "value");
bool is_python_scalar(py::handle h);
// a NumPy scalar (numpy.float32, numpy.int64, numpy.bool): the other numbers PyTorch's parser takes
bool is_numpy_scalar(py::handle h);
// A tensor operand: tensors pass through; Python numbers become wrapped 0-dim tensors.
Tensor to_operand(py::handle h, const char* what = "other");
// Sizes from f(2, 3), f((2, 3)), f([2, 3]) or f(Size): *args where a single sequence is unpacked.
DimVector parse_size(py::handle h);
DimVector parse_size_args(const py::args& args);
// int or tuple/list of ints as dims; None -> empty.
DimVector parse_dims(py::handle h);
// PyTorch's int list argument (roll's shifts, logsumexp's dim, tensor_split's indices), checked as its parser
// does: a list or tuple of ints, or one int (or one-element integer tensor) standing for the list, None for
// an empty one. Its TypeErrors name fn and the argument: a bad first element is "found" at `pos` (the
// position in the call's words, 0: keyword-only), a later one "failed to unpack" at its own place in the list
// (1-based, as PyTorch's: `sum(x, (0, 1, 'a'))` "at pos 3"), with no position of the argument.
DimVector int_list_arg(py::handle h, const char* fn, const char* name, int pos);
// One element of an int list as PyTorch's parser reads it into *v. first: the element that decides the value
// is an int list at all (an int, or anything with __index__, but no bool; a one-element integer or bool
// tensor); later ones are unpacked by __index__ (a bool there is 0 or 1). A SymInt list (symint) reads a
// tensor by item(), whose check refuses a bool one with ATen's RuntimeError. False: the wrong kind.
bool int_list_item(PyObject* e, bool first, bool symint, int64_t* v);
// The first element's kind, as PyTorch's parser checks it before choosing an overload: int_list_item's first
// element, a Python int of any size among them (past int64 it is the unpacking's TypeError, later).
bool int_list_head(PyObject* e);
// An int-list value with PyTorch's TypeErrors (int_list_arg's words): `pos` is its position in the call
// (1-based; 0: given by keyword, whose wrong first element makes the whole value the wrong kind); sized: one
// int (or one-element integer tensor) stands for the list, as for PyTorch's int[1]/int[2]/int[3].
DimVector int_list_value(py::handle h, const char* fn, const char* name, int pos, bool symint, bool sized);
// The lone int-list parameter `name` of a method or function that takes it as separate ints or one list or by
// keyword (view, reshape, permute, expand, zeros, resize_, repeat): PyTorch's parser's reading and errors
// ("takes 1 positional argument but 3 were given" where the first argument is no int, "missing 1 required
// positional arguments", "got multiple values"). overloads: the printed signatures of an op with more than
// one (view's dtype and size), whose "invalid combination" message stands for a wrong kind of argument.
DimVector int_list_varargs(const char* fn, const char* name, const py::args& args, py::handle kw, bool symint,
                           const std::vector<std::string>& overloads = {});
// PyTorch's "fn() received an invalid combination of arguments" for a call (arg_errors.cpp): options as
// "(Tensor input, int dim)".
std::string format_invalid_args(const std::string& fname, const py::tuple& args, const py::dict& kwargs,
                                const std::vector<std::string>& options);
// Python object for a Scalar (bool/int/float).
py::object scalar_to_py(const Scalar& s);
// minitorch.Size(tuple)
py::object make_size(IntArrayRef sizes);
// Applies requires_grad=True from a factory argument (leaf tensor).
Tensor set_requires_grad(const Tensor& t, bool requires_grad);

// The generator= argument: None (the device's default generator, nullptr) or a minitorch.Generator, whose
// device type it writes to *type (bind_factory.cpp).
Generator* parse_generator(py::handle h, int8_t* type);
// A generator= argument in force for its scope: the random draws of the call come from it.
class GeneratorScope {
 public:
  explicit GeneratorScope(py::handle h) : GeneratorScope(parse(h)) {}

 private:
  explicit GeneratorScope(std::pair<Generator*, int8_t> g) : scope_(g.first, g.second) {}
  static std::pair<Generator*, int8_t> parse(py::handle h) {
    int8_t type = -1;
    Generator* g = parse_generator(h, &type);
    return {g, type};
  }
  ScopedGenerator scope_;
};

// ---- Releasing the GIL around ops (as PyTorch does around each dispatched op), so DataParallel's replica
// threads and DataLoader's pin-memory thread run ops at the same time. Only the pure C++ call runs released:
// arguments are converted before and results cast after, under the GIL. Whatever a released op frees must not
// touch Python unguarded (Python callables the graph holds live in a PyHandle, see bind_autograd.cpp).
// Releasing costs a save/restore of the thread state, and handing the GIL to a waiting thread can cost that
// thread's switch interval to get it back, so small CPU ops keep it: an op is released when one of its
// tensors lives on a GPU (a launch can block on a full queue or the allocator's sync) or has at least
// kNoGilMinNumel elements (tens of microseconds of work, where the release is noise).
constexpr int64_t kNoGilMinNumel = int64_t(1) << 15;

inline bool worth_releasing(const Tensor& t) {
  return t.defined() && (t.numel() >= kNoGilMinNumel || !t.device().is_cpu());
}
inline bool worth_releasing(const std::optional<Tensor>& t) {
  return t && worth_releasing(*t);
}
// A list (cat, the foreach ops, fused optimizer steps) by its total size: many small parameters add up.
inline bool worth_releasing(const std::vector<Tensor>& ts) {
  int64_t total = 0;
  for (auto& t : ts) {
    if (!t.defined()) continue;
    if (!t.device().is_cpu()) return true;
    total += std::min(t.numel(), kNoGilMinNumel);  // saturating: expanded inputs may hold 2**62 elements each
  }
  return total >= kNoGilMinNumel;
}
// A factory by the tensor it makes.
inline bool worth_releasing_output(IntArrayRef sizes, Device device) {
  if (!device.is_cpu()) return true;
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s <= 0) return false;
    n *= s;
    if (n >= kNoGilMinNumel) return true;
  }
  return false;
}
template <typename T>
bool worth_releasing(const T&) {
  return false;
}

// Released for the scope when `on`; PyEval_SaveThread directly, cheaper than pybind11's guard, which looks up
// its internals on each use.
class ReleaseGIL {
 public:
  explicit ReleaseGIL(bool on = true) : state_(on ? PyEval_SaveThread() : nullptr) {}
  ~ReleaseGIL() {
    if (state_) PyEval_RestoreThread(state_);
  }
  ReleaseGIL(const ReleaseGIL&) = delete;
  ReleaseGIL& operator=(const ReleaseGIL&) = delete;

 private:
  PyThreadState* state_;
};

// Runs f() released when the op is big: nogil([&] { return mm(a, b); }, a, b). With no tensors given it
// always releases (ops that block: synchronize, device copies, the backward engine).
template <typename F, typename... Ts>
decltype(auto) nogil(F&& f, const Ts&... inputs) {
  ReleaseGIL r(sizeof...(Ts) == 0 || (worth_releasing(inputs) || ...));
  return f();
}

// Runs f() released when `on` (for ops whose cost is not their tensors' size: GEMMs).
template <typename F>
decltype(auto) nogil_if(bool on, F&& f) {
  ReleaseGIL r(on);
  return f();
}

template <typename T>
constexpr bool is_python_type = std::is_base_of_v<py::handle, std::decay_t<T>>;

// The parameter type a binding declares for a C++ parameter of type T: int64_t and bool (and their optionals)
// take PyTorch's argument kinds (strict_args.h), everything else is itself.
template <typename T>
struct StrictOf {
  using type = T;
};
template <>
struct StrictOf<int64_t> {
  using type = StrictInt;
};
template <>
struct StrictOf<bool> {
  using type = StrictBool;
};
template <>
struct StrictOf<std::optional<int64_t>> {
  using type = OptInt;
};
template <>
struct StrictOf<std::optional<bool>> {
  using type = OptBool;
};
template <typename T>
using strict_t = typename StrictOf<T>::type;

// A binding for a C++ function taken as it is (m.def("flatten", strict_fn(&flatten))), its int and bool
// parameters PyTorch's strict kinds.
template <typename R, typename... A>
auto strict_fn(R (*f)(A...)) {
  return [f](strict_t<A>... a) -> R { return f(static_cast<A>(std::forward<strict_t<A>>(a))...); };
}

// A binding for a C++ function whose arguments are all C++ values: m.def("softplus", nogil_fn(&softplus)),
// or nogil_fn(+[](const Tensor& x) {...}) for a captureless lambda. Python-typed arguments are refused at
// compile time (they may only be used under the GIL); int and bool parameters are PyTorch's strict kinds.
template <typename R, typename... A>
auto nogil_fn(R (*f)(A...)) {
  static_assert(!(is_python_type<A> || ...), "nogil_fn: an argument is a Python object");
  return [f](strict_t<A>... a) -> R {
    return nogil([&]() -> R { return f(static_cast<A>(std::forward<strict_t<A>>(a))...); }, a...);
  };
}

// A Python object owned by C++ graph state (hooks in nodes and AutogradMeta, autograd.Function's backward):
// that state is copied and freed inside released ops (a node dies when its last tensor does), so the object
// is reached through a shared_ptr (copies touch no Python refcount) and the last owner drops it under the
// GIL, as PyTorch's PyFunctionTensorPreHook does. Calls must hold the GIL: py::gil_scoped_acquire first.
struct PyHandle {
  explicit PyHandle(py::object o) : obj(std::move(o)) {}
  ~PyHandle() {
    if (!Py_IsInitialized()) {  // interpreter gone: leak rather than touch it
      obj.release();
      return;
    }
    py::gil_scoped_acquire g;
    obj = py::object();
  }
  PyHandle(const PyHandle&) = delete;
  PyHandle& operator=(const PyHandle&) = delete;
  py::object obj;
};
inline std::shared_ptr<PyHandle> py_handle(py::object o) {
  return std::make_shared<PyHandle>(std::move(o));
}

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
void init_conv(py::module_& m);         // the conv flags (cuDNN, oneDNN), grid sampling's Python hook
void init_distributed(py::module_& m);  // _C._distributed (helper dist)

}  // namespace mt
