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
#include "python/torch_function.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/Exception.h"
#include "python/bind.h"
#include "python/python_functions.h"

namespace mt {

bool g_tf_on = false;
// Tensor subclasses. PyTorch's Tensor has a __torch_function__ of its own (a classmethod that runs the call
// with subclasses' handlers off and hands back results of the subclass), so every call holding an instance of
// a subclass goes through it, whether or not a transform runs. Here the bindings look for such an argument
// only once a subclass that takes part has been defined (Tensor.__init_subclass__ notes it:
// g_subclass_tf): programs that define none pay one load and branch per call.
bool g_subclass_tf = false;
// PyTorch's torch function state per thread: 0 on, 1 subclasses' handlers off (DisableTorchFunctionSubclass),
// 2 all off (DisableTorchFunction). Read only once a call holds a subclass instance.
thread_local int t_tf_state = 0;
void import_overrides();

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

// predicate(t)'s truth, remembered in cache (up to kMaxTfTypes types, each held by a reference); -1: the
// predicate raised (its error is set)
int cached_type_answer(std::vector<std::pair<PyObject*, bool>>& cache, PyObject* predicate, PyTypeObject* t) {
  PyObject* key = reinterpret_cast<PyObject*>(t);
  for (const auto& e : cache)
    if (e.first == key) return e.second;
  PyObject* r = PyObject_CallOneArg(predicate, key);
  if (!r) return -1;
  int hit = PyObject_IsTrue(r);
  Py_DECREF(r);
  if (hit < 0) return -1;
  if (cache.size() < kMaxTfTypes) {
    Py_INCREF(key);
    cache.emplace_back(key, hit != 0);
  }
  return hit;
}

int type_overrides(PyTypeObject* t) {
  return cached_type_answer(g_tf_types, g_tf_predicate, t);
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
  int hit = type_overrides(t);
  // the torch function state switches handlers off: a Tensor subclass's inside Tensor.__torch_function__
  // (DisableTorchFunctionSubclass), every one in DisableTorchFunction
  if (hit > 0 && t_tf_state && (t_tf_state == 2 || PyType_IsSubtype(t, g_tensor_type))) return 0;
  return hit;
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
  bool subclass_only;  // a dunder that only a Tensor subclass's handler sees (repr): transforms leave it be
};

PyObject* tensor_method_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* m = reinterpret_cast<TensorMethod*>(self);
  if (g_tf_on && !m->subclass_only) {
    int hit = any_overrides(args, nargsf, kwnames);
    if (hit < 0) return nullptr;
    if (hit) return call_hook(g_tf_hook, m->name, args, PyVectorcall_NARGS(nargsf), kwnames);
  } else if (g_subclass_tf) {
    bool handled = false;
    PyObject* r = subclass_torch_function(SubclassCall::method, m->name, args, nargsf, kwnames, &handled);
    if (handled) return r;
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

PyObject* make_tensor_method(PyObject* func, PyObject* name, bool subclass_only) {
  auto* m = PyObject_GC_New(TensorMethod, &TensorMethodType);
  if (!m) return nullptr;
  m->func = Py_NewRef(func);
  m->name = Py_NewRef(name);
  m->vectorcall = tensor_method_call;
  m->subclass_only = subclass_only;
  PyObject_GC_Track(m);
  return reinterpret_cast<PyObject*>(m);
}

PyObject* g_subclass_hook = nullptr;       // overrides._subclass_dispatch(kind, key, args, kwargs)
PyObject* g_subclass_predicate = nullptr;  // overrides._subclass_overrides(type)
// (type, whether its instances dispatch): the Tensor subclasses seen, each held by a reference as g_tf_types'
std::vector<std::pair<PyObject*, bool>> g_subclass_types;

int subclass_type_overrides(PyTypeObject* t) {
  return cached_type_answer(g_subclass_types, g_subclass_predicate, t);
}

int subclass_arg(PyObject* o, bool nest) {
  PyTypeObject* t = Py_TYPE(o);
  if (t == g_tensor_type) return 0;
  if (t == &PyTuple_Type || t == &PyList_Type) {
    if (!nest) return 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i) {
      int hit = subclass_arg(PySequence_Fast_GET_ITEM(o, i), false);
      if (hit) return hit;
    }
    return 0;
  }
  if (!PyType_IsSubtype(t, g_tensor_type)) return 0;
  return subclass_type_overrides(t);
}

}  // namespace

PyObject* subclass_torch_function(SubclassCall kind, PyObject* key, PyObject* const* args, size_t nargsf,
                                  PyObject* kwnames, bool* handled) {
  if (!g_subclass_hook) import_overrides();  // registers the hook and the predicate
  if (!g_subclass_hook || !g_subclass_predicate) return nullptr;
  Py_ssize_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  int hit = 0;
  for (Py_ssize_t i = 0; i < n && !hit; ++i) hit = subclass_arg(args[i], true);
  // the thread's state is read once an instance is found (a thread-local costs a call in a shared library)
  if (hit == 0 || (hit > 0 && t_tf_state)) return nullptr;
  *handled = true;
  if (hit < 0) return nullptr;
  PyObject* k = PyLong_FromLong(static_cast<long>(kind));
  if (!k) return nullptr;
  PyObject* pos = PyTuple_New(PyVectorcall_NARGS(nargsf));
  if (!pos) {
    Py_DECREF(k);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < PyVectorcall_NARGS(nargsf); ++i) PyTuple_SET_ITEM(pos, i, Py_NewRef(args[i]));
  PyObject* kw = Py_NewRef(Py_None);
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    Py_SETREF(kw, PyDict_New());
    for (Py_ssize_t i = 0; kw && i < PyTuple_GET_SIZE(kwnames); ++i)
      if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[PyVectorcall_NARGS(nargsf) + i]) < 0)
        Py_CLEAR(kw);
  }
  PyObject* r = kw ? PyObject_CallFunctionObjArgs(g_subclass_hook, k, key, pos, kw, nullptr) : nullptr;
  Py_XDECREF(kw);
  Py_DECREF(pos);
  Py_DECREF(k);
  // but an operator's, NotImplemented is the handler's word for a callable outside the protocol (a private
  // _C function it cannot name, as_subclass): it binds as usual
  if (r == Py_NotImplemented && kind != SubclassCall::op) {
    Py_DECREF(r);
    *handled = false;
    return nullptr;
  }
  return r;
}

PyObject* subclass_call(SubclassCall kind, const char* name, PyObject* const* args, size_t nargsf,
                        PyObject* kwnames, bool* handled) {
  // looked for before the name is made: calls with plain tensors pay the look alone
  if (!g_subclass_hook) import_overrides();
  if (!g_subclass_hook || !g_subclass_predicate) return nullptr;
  Py_ssize_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  int hit = 0;
  for (Py_ssize_t i = 0; i < n && !hit; ++i) hit = subclass_arg(args[i], true);
  if (hit == 0 || (hit > 0 && t_tf_state)) return nullptr;
  if (hit < 0) {
    *handled = true;
    return nullptr;
  }
  PyObject* key = PyUnicode_FromString(name);
  if (!key) {
    *handled = true;
    return nullptr;
  }
  PyObject* r = subclass_torch_function(kind, key, args, nargsf, kwnames, handled);
  Py_DECREF(key);
  return r;
}

PyObject* subclass_call_record(PyObject* record, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                               bool* handled) {
  return subclass_torch_function(SubclassCall::function, record, args, nargsf, kwnames, handled);
}

// The dunders written in Python that PyTorch hands a Tensor subclass's handler (Tensor.__repr__ & co.), whose
// bodies then run with the subclasses' handlers off: a handler that prints its arguments (the docs'
// LoggingTensor) would otherwise see repr's own ops, each printing again.
bool tensor_dunder_for_subclasses(const std::string& s) {
  return s == "__repr__" || s == "__str__" || s == "__format__" || s == "__array__" || s == "__reduce_ex__" ||
         s == "__reduce__" || s == "__deepcopy__" || s == "__reversed__" || s == "__contains__" ||
         s == "__len__" || s == "__bool__" || s == "__float__" || s == "__int__" || s == "__index__" ||
         s == "__complex__";
}

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

namespace {
// DisableTorchFunctionSubclass() (level 1) and DisableTorchFunction() (2): context managers over this
// thread's state, each restoring on exit what it found on entry
template <int Level>
struct StateGuard {
  int saved = 0;
};

template <int Level>
void bind_state_guard(py::module_& m, const char* name, const char* doc) {
  py::class_<StateGuard<Level>>(m, name, doc)
      .def(py::init<>())
      .def("__enter__",
           [](StateGuard<Level>& g) {
             g.saved = t_tf_state;
             t_tf_state = std::max(g.saved, Level);
           })
      .def("__exit__", [](StateGuard<Level>& g, const py::args&) {
        t_tf_state = g.saved;
        return false;
      });
}
}  // namespace

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
      "_set_subclass_hooks",
      [](py::function hook, py::function predicate) {
        Py_XSETREF(g_subclass_hook, hook.inc_ref().ptr());
        Py_XSETREF(g_subclass_predicate, predicate.inc_ref().ptr());
      },
      "Registers overrides' handler of a call holding a Tensor subclass instance (kind, key, args, kwargs) "
      "and "
      "its predicate of the subclasses that take part (asked once per type).");
  m.def(
      "_note_tensor_subclass", [] { g_subclass_tf = true; },
      "Tensor.__init_subclass__: a subclass that takes part in __torch_function__ exists, so the bindings "
      "look "
      "for instances of one from now on.");
  m.def(
      "_tensor_is_built",
      [](py::handle t) {
        if (!PyObject_TypeCheck(t.ptr(), g_tensor_type))
          throw py::type_error("_tensor_is_built: not a Tensor");
        auto* inst = reinterpret_cast<py::detail::instance*>(t.ptr());
        return inst->get_value_and_holder().holder_constructed();
      },
      "Whether a Tensor instance holds its TensorImpl yet: Tensor.__init__ builds nothing for one that "
      "its class's __new__ built (PyTorch's Tensor.__init__ is object's).");
  m.def(
      "_torch_function_state", [] { return t_tf_state; },
      "This thread's torch function state: 0 on, 1 subclasses' handlers off, 2 all off.");
  m.def(
      "_is_torch_function_enabled", [] { return t_tf_state == 0; },
      "Whether __torch_function__ handlers run in this thread (neither DisableTorchFunction nor "
      "DisableTorchFunctionSubclass is active).");
  m.def(
      "_is_torch_function_all_disabled", [] { return t_tf_state == 2; },
      "Whether DisableTorchFunction is active in this thread.");
  m.def(
      "_disabled_torch_function_impl",
      [](py::handle func, py::handle /*types*/, py::handle args, py::handle kwargs) {
        // runs func as a plain Tensor's call would: its subclass arguments' handlers off
        py::tuple pos = py::reinterpret_steal<py::tuple>(PySequence_Tuple(args.ptr()));
        if (!pos) throw py::error_already_set();
        int saved = t_tf_state;
        t_tf_state = std::max(saved, 1);
        PyObject* r = PyObject_Call(func.ptr(), pos.ptr(), kwargs.is_none() ? nullptr : kwargs.ptr());
        t_tf_state = saved;
        if (!r) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(r);
      },
      py::arg("func"), py::arg("types"), py::arg("args") = py::tuple(), py::arg("kwargs") = py::none(),
      "A __torch_function__ that opts a Tensor subclass out of the protocol (`__torch_function__ = "
      "torch._C._disabled_torch_function_impl`): func runs with the subclasses' handlers off.");
  bind_state_guard<1>(m, "DisableTorchFunctionSubclass",
                      "Switches the __torch_function__ handlers of Tensor subclasses off in its block.");
  bind_state_guard<2>(m, "DisableTorchFunction",
                      "Switches every __torch_function__ handler off in its block.");
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
          if (!PyFunction_Check(kv.second.ptr())) continue;
          bool subclass_only = tensor_dunder_for_subclasses(name);
          if (!subclass_only && !tensor_method_dispatches(name.c_str())) continue;
          // a method that takes self alone never sees another argument: it need not pay the guard's ~50 ns
          // (the call from C enters the interpreter afresh, where a call from Python would be inlined); a
          // subclass's handler sees it all the same
          py::object code = kv.second.attr("__code__");
          int flags = code.attr("co_flags").cast<int>();
          if (!subclass_only && code.attr("co_argcount").cast<int>() == 1 &&
              code.attr("co_kwonlyargcount").cast<int>() == 0 && !(flags & (CO_VARARGS | CO_VARKEYWORDS)))
            continue;
          todo.emplace_back(py::reinterpret_borrow<py::object>(kv.first),
                            py::reinterpret_borrow<py::object>(kv.second));
        }
        for (auto& [name, func] : todo) {
          PyObject* g =
              make_tensor_method(func.ptr(), name.ptr(), tensor_dunder_for_subclasses(py::str(name)));
          if (!g) throw py::error_already_set();
          cls.attr(name) = py::reinterpret_steal<py::object>(g);
        }
      },
      "Puts a _TensorMethod guard around each public Tensor method written in Python.");
}

}  // namespace mt
