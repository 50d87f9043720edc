// Tensor methods and __torch_function__. PyTorch's C++ methods look at every argument for __torch_function__,
// so `w.mul(x)` reaches the __torch_function__ of x (vmap's BatchedTensor, forward AD's DualTensor, a user's
// tensor-like) as torch.mul(w, x) does. minitorch.overrides switches the protocol on only while a program
// transform runs (its module docstring says why); while it is on (g_tf_on), a Tensor method first looks at
// its arguments (one level into lists and tuples, keyword values included) and hands a call holding an
// overriding one to overrides._tensor_method_dispatch. The pybind11 methods look through arg_errors.cpp's
// dispatcher, the methods written in Python through a `_TensorMethod` guard around each (a C callable that
// binds as a method: no bound-method object, the arguments passed on as they came). Outside the extent a
// method pays one load and branch; inside, a compare per argument (exact Tensors and Python numbers are never
// looked up). Installing Python wrappers over every method for each extent instead cost ~290 us per vmap
// call.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/Exception.h"
#include "python/bind.h"
#include "python/python_functions.h"

namespace mt {

bool g_tf_on = false;

namespace {

PyObject* g_tf_hook = nullptr;  // overrides._tensor_method_dispatch(name, args, kwargs)
// overrides._builtin_function_dispatch(record, args, kwargs): a torch function bound before the protocol was
// switched on (`from torch import sin`, `act = torch.tanh` at import time) is the builtin itself, not the
// namespace's dispatching wrapper, so the builtin hands a call holding an overriding argument to it
PyObject* g_tf_function_hook = nullptr;
PyObject* g_tf_predicate = nullptr;  // overrides._type_overrides(type): whether a type's instances override
// (type, whether it overrides): the types seen since the dispatch was last switched on, each held by a
// reference so that an address is never reused while cached (few distinct types reach methods in a transform)
std::vector<std::pair<PyObject*, bool>> g_tf_types;
constexpr size_t kMaxTfTypes = 64;

void clear_tf_types() {
  for (auto& e : g_tf_types) Py_DECREF(e.first);
  g_tf_types.clear();
}

// -1: the predicate raised (its error is set)
int type_overrides(PyTypeObject* t) {
  PyObject* key = reinterpret_cast<PyObject*>(t);
  for (const auto& e : g_tf_types)
    if (e.first == key) return e.second;
  PyObject* r = PyObject_CallOneArg(g_tf_predicate, key);
  if (!r) return -1;
  int hit = PyObject_IsTrue(r);
  Py_DECREF(r);
  if (hit < 0) return -1;
  if (g_tf_types.size() < kMaxTfTypes) {
    Py_INCREF(key);
    g_tf_types.emplace_back(key, hit != 0);
  }
  return hit;
}

int overrides(PyObject* o, bool nest) {
  PyTypeObject* t = Py_TYPE(o);
  if (t == g_tensor_type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type || o == Py_None ||
      t == &PyUnicode_Type || t == &PyComplex_Type || t == &PySlice_Type || o == Py_Ellipsis)
    return 0;
  if (t == &PyTuple_Type || t == &PyList_Type) {
    if (!nest) return 0;
    // a list can change size under a predicate's Python code: read its size afresh each time
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i) {
      int hit = overrides(PySequence_Fast_GET_ITEM(o, i), false);
      if (hit) return hit;
    }
    return 0;
  }
  return type_overrides(t);
}

PyObject* call_hook(PyObject* hook, PyObject* name, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames) {
  PyObject* pos = PyTuple_New(nargs);
  if (!pos) return nullptr;
  for (Py_ssize_t k = 0; k < nargs; ++k) PyTuple_SET_ITEM(pos, k, Py_NewRef(args[k]));
  PyObject* kw = Py_NewRef(Py_None);
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    Py_SETREF(kw, PyDict_New());
    for (Py_ssize_t k = 0; kw && k < PyTuple_GET_SIZE(kwnames); ++k)
      if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0) Py_CLEAR(kw);
  }
  PyObject* r = kw ? PyObject_CallFunctionObjArgs(hook, name, pos, kw, nullptr) : nullptr;
  Py_XDECREF(kw);
  Py_DECREF(pos);
  return r;
}

// Whether the call holds an overriding argument: 1, 0, or -1 with the predicate's error set.
int any_overrides(PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  Py_ssize_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  for (Py_ssize_t i = 0; i < n; ++i) {
    int hit = overrides(args[i], true);
    if (hit) return hit;
  }
  return 0;
}

// A Tensor method written in Python, guarded: `func` runs unless an argument overrides while the protocol is
// on.
struct TensorMethod {
  PyObject_HEAD PyObject* func;
  PyObject* name;
  vectorcallfunc vectorcall;
};

PyObject* tensor_method_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* m = reinterpret_cast<TensorMethod*>(self);
  if (g_tf_on) {
    int hit = any_overrides(args, nargsf, kwnames);
    if (hit < 0) return nullptr;
    if (hit) return call_hook(g_tf_hook, m->name, args, PyVectorcall_NARGS(nargsf), kwnames);
  }
  return PyObject_Vectorcall(m->func, args, nargsf, kwnames);
}

PyObject* tensor_method_get(PyObject* self, PyObject* obj, PyObject*) {
  if (!obj || obj == Py_None) return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

int tensor_method_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<TensorMethod*>(self)->func);
  return 0;
}

int tensor_method_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<TensorMethod*>(self)->func);
  Py_CLEAR(reinterpret_cast<TensorMethod*>(self)->name);
  return 0;
}

void tensor_method_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  tensor_method_clear(self);
  Py_TYPE(self)->tp_free(self);
}

// The function's own attributes (__name__, __doc__, __wrapped__ through inspect, __code__) read through the
// guard
PyObject* tensor_method_getattro(PyObject* self, PyObject* name) {
  const char* s = PyUnicode_AsUTF8(name);
  if (!s) return nullptr;
  auto* m = reinterpret_cast<TensorMethod*>(self);
  if (!strcmp(s, "__wrapped__") || !strcmp(s, "_mt_original")) return Py_NewRef(m->func);
  if (!strcmp(s, "__doc__") || !strcmp(s, "__name__") || !strcmp(s, "__qualname__") ||
      !strcmp(s, "__module__"))
    return PyObject_GetAttr(m->func, name);
  PyObject* r = PyObject_GenericGetAttr(self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
  PyErr_Clear();
  return PyObject_GetAttr(m->func, name);
}

PyObject* tensor_method_repr(PyObject* self) {
  return PyObject_Repr(reinterpret_cast<TensorMethod*>(self)->func);
}

PyTypeObject TensorMethodType = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject* make_tensor_method(PyObject* func, PyObject* name) {
  auto* m = PyObject_GC_New(TensorMethod, &TensorMethodType);
  if (!m) return nullptr;
  m->func = Py_NewRef(func);
  m->name = Py_NewRef(name);
  m->vectorcall = tensor_method_call;
  PyObject_GC_Track(m);
  return reinterpret_cast<PyObject*>(m);
}

}  // namespace

// The Tensor methods that look for __torch_function__: the public ones, indexing and the in-place operators
// (`w += x` must not fall back to rebinding w to w + x). The other operators need not (they answer
// NotImplemented for a foreign operand, so Python asks its reflected method), nor the rest of the dunders
// (repr, reduce, dlpack: the protocol leaves them alone).
bool tensor_method_dispatches(const char* name) {
  std::string s = name;
  if (s.rfind("__", 0) != 0) return true;
  if (s == "__getitem__" || s == "__setitem__") return true;
  return s.rfind("__i", 0) == 0 && s != "__init__" && s != "__int__" && s != "__index__" &&
         s != "__invert__" && s != "__iter__" && s != "__init_subclass__";
}

PyObject* tensor_method_torch_function(const char* name, PyObject* const* args, size_t nargsf,
                                       PyObject* kwnames, bool* handled) {
  if (!g_tf_hook || !g_tf_predicate) return nullptr;  // minitorch.overrides not imported yet
  int hit = any_overrides(args, nargsf, kwnames);
  if (hit == 0) return nullptr;
  *handled = true;
  if (hit < 0) return nullptr;
  PyObject* n = PyUnicode_FromString(name);
  if (!n) return nullptr;
  PyObject* r = call_hook(g_tf_hook, n, args, PyVectorcall_NARGS(nargsf), kwnames);
  Py_DECREF(n);
  if (r == Py_NotImplemented) {  // refused inside a function that hands the call over itself (_handover.py)
    Py_DECREF(r);
    *handled = false;
    return nullptr;
  }
  return r;
}

PyObject* function_torch_function(PyObject* record, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                                  bool* handled) {
  if (!g_tf_function_hook || !g_tf_predicate) return nullptr;
  int hit = any_overrides(args, nargsf, kwnames);
  if (hit == 0) return nullptr;
  *handled = true;
  if (hit < 0) return nullptr;
  PyObject* r = call_hook(g_tf_function_hook, record, args, PyVectorcall_NARGS(nargsf), kwnames);
  if (r == Py_NotImplemented) {  // not a function of the torch namespaces: it binds as usual
    Py_DECREF(r);
    *handled = false;
    return nullptr;
  }
  return r;
}

void import_overrides() {
  static bool imported = false;
  if (imported) return;
  imported = true;
  PyObject* mod = PyImport_ImportModule("minitorch.overrides");
  if (mod)
    Py_DECREF(mod);
  else
    PyErr_Clear();  // a failed import leaves the calls' own errors standing
}

bool python_function_overridden(py::handle x) {
  return py::module_::import("minitorch.overrides").attr("has_torch_function_unary")(x).cast<bool>();
}

void init_torch_function(py::module_& m) {
  TensorMethodType.tp_name = "minitorch._C._TensorMethod";
  TensorMethodType.tp_basicsize = sizeof(TensorMethod);
  TensorMethodType.tp_flags =
      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR;
  TensorMethodType.tp_vectorcall_offset = offsetof(TensorMethod, vectorcall);
  TensorMethodType.tp_call = PyVectorcall_Call;
  TensorMethodType.tp_descr_get = tensor_method_get;
  TensorMethodType.tp_getattro = tensor_method_getattro;
  TensorMethodType.tp_repr = tensor_method_repr;
  TensorMethodType.tp_traverse = tensor_method_traverse;
  TensorMethodType.tp_clear = tensor_method_clear;
  TensorMethodType.tp_dealloc = tensor_method_dealloc;
  TensorMethodType.tp_doc = "A Tensor method written in Python that looks for __torch_function__ arguments.";
  MT_INTERNAL_ASSERT(PyType_Ready(&TensorMethodType) == 0, "_TensorMethod: PyType_Ready failed");
  m.attr("_TensorMethod") = py::handle(reinterpret_cast<PyObject*>(&TensorMethodType));

  m.def(
      "_set_tensor_method_hooks",
      [](py::function hook, py::function predicate) {
        Py_XSETREF(g_tf_hook, hook.inc_ref().ptr());
        Py_XSETREF(g_tf_predicate, predicate.inc_ref().ptr());
      },
      "Registers overrides' handler of Tensor methods with an overriding argument and its type predicate.");
  m.def(
      "_import_overrides", [] { import_overrides(); },
      "Imports minitorch.overrides once (its hooks and handlers register themselves): the first call a "
      "tensor-like refuses does, as a C++ import outside the Python package's import graph.");
  m.def(
      "_set_builtin_function_hook",
      [](py::function hook) { Py_XSETREF(g_tf_function_hook, hook.inc_ref().ptr()); },
      "Registers overrides' handler of a _C function called with an overriding argument while the dispatch "
      "is on (its function record, args, kwargs; NotImplemented: bind as usual).");
  m.def(
      "_set_tensor_method_dispatch",
      [](bool on) {
        MT_CHECK(!on || (g_tf_hook && g_tf_predicate), "_set_tensor_method_dispatch: no hooks registered");
        clear_tf_types();  // a type may have gained or lost __torch_function__ since
        g_tf_on = on;
      },
      "Switches the Tensor methods' look for __torch_function__ arguments on or off (minitorch.overrides).");
  m.def(
      "_guard_tensor_methods",
      [](py::handle cls) {
        // the methods written in Python that tensor_method_dispatches names
        py::dict d = py::reinterpret_borrow<py::dict>(reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_dict);
        std::vector<std::pair<py::object, py::object>> todo;
        for (auto kv : d) {
          std::string name = py::str(kv.first);
          if (!PyFunction_Check(kv.second.ptr()) || !tensor_method_dispatches(name.c_str())) continue;
          // a method that takes self alone never sees another argument: it need not pay the guard's ~50 ns
          // (the call from C enters the interpreter afresh, where a call from Python would be inlined)
          py::object code = kv.second.attr("__code__");
          int flags = code.attr("co_flags").cast<int>();
          if (code.attr("co_argcount").cast<int>() == 1 && code.attr("co_kwonlyargcount").cast<int>() == 0 &&
              !(flags & (CO_VARARGS | CO_VARKEYWORDS)))
            continue;
          todo.emplace_back(py::reinterpret_borrow<py::object>(kv.first),
                            py::reinterpret_borrow<py::object>(kv.second));
        }
        for (auto& [name, func] : todo) {
          PyObject* g = make_tensor_method(func.ptr(), name.ptr());
          if (!g) throw py::error_already_set();
          cls.attr(name) = py::reinterpret_steal<py::object>(g);
        }
      },
      "Puts a _TensorMethod guard around each public Tensor method written in Python.");
}

}  // namespace mt
