// Autograd bindings: grad_fn/Node objects, is_leaf, detach, retain_grad, tensor hooks, grad mode, the engine
// entry point, and the node behind minitorch.autograd.Function (a Python backward called by the C++ engine).
#include <deque>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "autograd/AnomalyMode.h"
#include "autograd/Node.h"
#include "autograd/engine_dual.h"
#include "autograd/record.h"
#include "core/FreshWrites.h"
#include "core/TypeMeta.h"
#include "ops/ops.h"
#include "python/bind.h"

namespace mt {

namespace {

using autograd::Node;
using autograd::variable_list;

int next_hook_id() {
  static int id = 0;
  return ++id;
}

// A node hook's replacement gradients: a tuple, as PyTorch checks (a Tensor passes Python's sequence check
// and would be read as its rows)
py::tuple hook_tuple(const py::object& r) {
  if (!py::isinstance<py::tuple>(r))
    throw py::type_error("expected tuple, but hook returned '" +
                         std::string(py::str(py::type::of(r).attr("__name__"))) + "'");
  return r.cast<py::tuple>();
}

// A tensor a hook handed back, a dual one included: in a dual backward pass hooks receive and return dual
// gradients, which the engine splits (the Tensor caster's check is for builtins bound before a dual level).
// A dual pass keeps the duals hooks hand back alive until the engine has split them: the engine holds only
// the TensorImpl, whose Python object (the dual's parts) would otherwise go with the hook's frame.
thread_local std::vector<py::object>* t_dual_keep = nullptr;

Tensor hook_result(py::handle r) {
  py::detail::make_caster<std::shared_ptr<TensorImpl>> inner;
  if (!inner.load(r, true)) throw py::cast_error("expected a Tensor");
  if (t_dual_keep && Py_TYPE(r.ptr()) == g_dual_tensor_type)
    t_dual_keep->push_back(py::reinterpret_borrow<py::object>(r));
  return Tensor(py::detail::cast_op<std::shared_ptr<TensorImpl>>(inner));
}

// The engine runs with the GIL released: a hook takes it to call Python, and holds its callable in a
// PyHandle so that freeing the graph (anywhere, on any thread) drops it under the GIL.
autograd::Hook wrap_hook(py::function fn) {
  std::string name = "<unknown>";
  if (py::hasattr(fn, "__name__") && py::isinstance<py::str>(fn.attr("__name__")))
    name = fn.attr("__name__").cast<std::string>();
  return [h = py_handle(std::move(fn)), name](const Tensor& g) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = h->obj(g);
    if (r.is_none()) return Tensor();
    MT_CHECK_TYPE(py::isinstance<TensorImpl>(r), "expected Variable, but hook returned '",
                  std::string(py::str(py::type::of(r).attr("__name__"))), "'");
    Tensor t = hook_result(r);
    // PyTorch's check_variable_result: a hook may change values, never the type, device or shape, which
    // the rest of the graph was built for
    if (g.defined()) {
      MT_CHECK(t.dtype() == g.dtype() && t.is_cuda() == g.is_cuda(), "hook '", name,
               "' has changed the type of value (was ", error_type_name(g.dtype(), g.is_cuda()), " got ",
               error_type_name(t.dtype(), t.is_cuda()), ")");
      MT_CHECK(t.sizes() == g.sizes(), "hook '", name, "' has changed the size of value");
    }
    return t;
  };
}

// The node of a minitorch.autograd.Function: saved tensors live here (version-checked, freed after backward)
// rather than on the ctx, so no tensor -> node -> ctx -> tensor cycle hides from Python's GC.
struct PyFunctionNode : Node {
  PyFunctionNode(std::string name, py::object backward, py::object ctx)
      : name_(std::move(name)), backward_(std::move(backward)), ctx_(std::move(ctx)) {}
  ~PyFunctionNode() override {
    for (auto& s : saved) autograd::defer_release(s.take());
    if (!Py_IsInitialized()) {
      backward_.release();
      ctx_.release();
      return;
    }
    py::gil_scoped_acquire g;
    backward_ = py::object();
    ctx_ = py::object();
  }
  std::string name() const override { return name_; }
  bool materializes_grads() const override { return materialize_grads_; }
  void release_variables() override {
    for (auto& s : saved) s.reset();
    released_ = true;
  }
  variable_list apply(variable_list&& grads) override {
    py::gil_scoped_acquire gil;  // the engine runs released
    py::tuple saved_t(saved.size());
    for (size_t i = 0; i < saved.size(); ++i) saved_t[i] = py::cast(saved[i].unpack(shared_from_this()));
    ctx_.attr("_saved_tensors") = saved_t;
    py::tuple args(grads.size() + 1);
    args[0] = ctx_;
    for (size_t i = 0; i < grads.size(); ++i)
      args[i + 1] = grads[i].defined() ? py::cast(grads[i]) : py::object(py::none());
    py::object r = backward_(*args);
    ctx_.attr("_saved_tensors") = py::none();
    variable_list out;
    if (py::isinstance<py::tuple>(r)) {
      for (py::handle h : r) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
    } else {
      out.push_back(r.is_none() ? Tensor() : r.cast<Tensor>());
    }
    // Extra trailing Nones are allowed, as in PyTorch.
    while (out.size() > next_edges.size() && !out.back().defined()) out.pop_back();
    MT_CHECK(out.size() == next_edges.size(), "function ", name_,
             " returned an incorrect number of gradients (expected ", next_edges.size(), ", got ", out.size(),
             ")");
    return out;
  }
  std::vector<autograd::SavedVariable> saved;
  bool materialize_grads_ = true;  // ctx.set_materialize_grads, read when the call is recorded

 private:
  std::string name_;
  py::object backward_, ctx_;
  bool released_ = false;
};

// saved_tensors_hooks' pair for one saved tensor: the user's callables (shared by every tensor saved under
// one context) and what pack_hook returned for this tensor.
struct PySavedTensorHooks : autograd::SavedTensorHooks {
  PySavedTensorHooks(std::shared_ptr<PyHandle> pack, std::shared_ptr<PyHandle> unpack)
      : pack_(std::move(pack)), unpack_(std::move(unpack)) {}
  void pack(const Tensor& t) override {
    py::gil_scoped_acquire gil;  // ops save tensors with the GIL released
    packed_ = py_handle(pack_->obj(py::cast(t)));
  }
  Tensor unpack() override {
    py::gil_scoped_acquire gil;
    py::object r = unpack_->obj(packed_->obj);
    MT_CHECK_TYPE(py::isinstance<TensorImpl>(r),
                  "Output of saved tensor unpack_hook expected to be a Tensor but got result of type ",
                  std::string(py::str(py::type::of(r).attr("__name__"))));
    return r.cast<Tensor>();
  }

 private:
  std::shared_ptr<PyHandle> pack_, unpack_, packed_;
};

// PyTorch gives each kind of node a Python class of its own: type(t.grad_fn).__name__ is "MulBackward0"
// (torchviz labels its boxes so, and user code tests it). Here each is a subclass of Node with nothing added,
// made the first time a node of that name reaches Python, and the object takes its class then:
// PyType_FromSpecWithBases, not type(), because a class statement's subclass has a GC header (pybind11's
// instances do not) and so a different deallocator. Same layout, so the cast back to Node and pybind11's
// instance lookup are unchanged. A custom Function's node is in minitorch.autograd.function, as PyTorch's
// FBackward is in torch.autograd.function; the built-in ones have no module, as PyTorch's print.
PyTypeObject* node_class(const Node& n, PyTypeObject* base) {
  static py::dict* classes = new py::dict();  // kept for the process: no destructor at exit
  static std::deque<std::string>* names = new std::deque<std::string>();  // a spec's name outlives the call
  py::str key(n.name());
  if (PyObject* cls = PyDict_GetItemWithError(classes->ptr(), key.ptr()))
    return reinterpret_cast<PyTypeObject*>(cls);
  if (PyErr_Occurred()) throw py::error_already_set();
  names->push_back((dynamic_cast<const PyFunctionNode*>(&n) ? "minitorch.autograd.function." : "builtins.") +
                   n.name());
  PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(base->tp_dealloc)}, {0, nullptr}};
  PyType_Spec spec = {names->back().c_str(), 0, 0, Py_TPFLAGS_DEFAULT, slots};
  py::tuple bases = py::make_tuple(py::handle(reinterpret_cast<PyObject*>(base)));
  py::object cls = py::reinterpret_steal<py::object>(PyType_FromSpecWithBases(&spec, bases.ptr()));
  if (!cls) throw py::error_already_set();
  // type's repr prints tp_name for a class in builtins: the bare name, <class 'MulBackward0'>, as PyTorch's
  const std::string& full = names->back();
  reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_name = full.c_str() + full.rfind('.') + 1;
  (*classes)[key] = cls;
  return reinterpret_cast<PyTypeObject*>(cls.ptr());
}

py::object node_object(const std::shared_ptr<Node>& n) {
  if (!n) return py::none();
  py::object o = py::cast(n);
  static PyTypeObject* base = reinterpret_cast<PyTypeObject*>(py::type::of<Node>().ptr());
  if (Py_TYPE(o.ptr()) == base)
    o.attr("__class__") = py::handle(reinterpret_cast<PyObject*>(node_class(*n, base)));
  return o;
}

}  // namespace

PyTypeObject* g_dual_tensor_type = nullptr;
namespace {
PyObject* g_dual_check = nullptr;  // forward AD's check (kept for the process: no destructor at exit)
}  // namespace

void check_dual_argument(py::handle src) {
  if (!g_dual_check) return;
  PyObject* r = PyObject_CallOneArg(g_dual_check, src.ptr());
  if (!r) throw py::error_already_set();
  Py_DECREF(r);
}

namespace {
// The TensorImpl behind a live Python tensor object, read from the instance as impl_of does in
// bind_tensor.cpp (not through the Tensor caster, which checks a dual argument).
const TensorImpl* impl_of_instance(PyObject* o) {
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  if (inst->simple_layout) return static_cast<const TensorImpl*>(inst->simple_value_holder[0]);
  return py::handle(o).cast<TensorImpl*>();
}

// Calls f(PyObject*) on every live Python object of a bound C++ class (pybind11's instance registry: one
// entry per object, so a scan costs the live bound objects, not the whole heap).
template <typename F>
void for_each_bound_instance(F&& f) {
  auto& internals = py::detail::get_internals();
#ifdef Py_GIL_DISABLED
  for (size_t i = 0; i <= internals.instance_shards_mask; ++i) {
    auto& shard = internals.instance_shards[i];
    std::unique_lock<py::detail::pymutex> lock(shard.mutex);
    for (auto& kv : shard.registered_instances) f(reinterpret_cast<PyObject*>(kv.second));
  }
#else
  for (auto& kv : internals.registered_instances) f(reinterpret_cast<PyObject*>(kv.second));
#endif
}

// The live Python tensors that are tracked views of `base` (views made in grad mode, whose root base it is),
// without the primals and tangents of dual tensors: forward AD makes these views dual when their base becomes
// dual in place (PyTorch's views read their tangent from their base's). A dual's primal is a view of the
// same base that PyTorch's forward AD does not see (unpack_dual(d).primal has no tangent).
// Paid only where a tensor becomes dual in place and something besides its Python object holds its impl
// (every tracked view holds its base): 7 us with 1k live tensors, 0.9 ms with 10k.
py::list live_views(py::handle base_obj) {
  if (!g_tensor_type || !PyObject_TypeCheck(base_obj.ptr(), g_tensor_type))
    throw py::type_error("_live_views: expected a Tensor");
  auto* inst = reinterpret_cast<py::detail::instance*>(base_obj.ptr());
  auto vh = inst->get_value_and_holder();
  if (vh.holder<std::shared_ptr<TensorImpl>>().use_count() == 1) return py::list();
  const TensorImpl* base = impl_of_instance(base_obj.ptr());
  std::vector<PyObject*> found;
  std::unordered_set<PyObject*> parts;
  for_each_bound_instance([&](PyObject* o) {
    if (!g_tensor_type || !PyObject_TypeCheck(o, g_tensor_type)) return;
    if (g_dual_tensor_type && Py_TYPE(o) == g_dual_tensor_type) {
      // the instance dict, public API (a DualTensor keeps its parts there: it has no slots of its own)
      if (PyObject* dict = PyObject_GenericGetDict(o, nullptr)) {
        for (const char* name : {"_primal", "_tangent"})
          if (PyObject* p = PyDict_GetItemString(dict, name)) parts.insert(p);
        Py_DECREF(dict);
      } else {
        PyErr_Clear();
      }
    }
    const TensorImpl* impl = impl_of_instance(o);
    if (impl == base) return;
    if (impl->view_base().get() == base) found.push_back(o);
  });
  py::list out;
  for (PyObject* o : found)
    if (!parts.count(o)) out.append(py::handle(o));
  return out;
}
}  // namespace

namespace {
// Forward AD's records of the ops it ran on primals that require grad, by the node each made: what the dual
// backward pass needs for the node's second-order term (see _forward_ad.py's _second_order). The node is held
// weakly (a record dies with it: expired ones are purged as the table grows, and all when the outermost dual
// level exits); the mutex lets the engine, which runs without the GIL, look a node up before taking it.
struct FwadRecord {
  std::weak_ptr<Node> node;
  py::object obj;
  std::shared_ptr<autograd::DualTerm> term;  // the term in C++ (engine_dual.h), where the op has one
};
std::mutex g_records_mutex;
auto& records() {
  static auto* table = new std::unordered_map<const Node*, FwadRecord>();  // never destroyed (exit order)
  return *table;
}
size_t g_records_purge_at = 1024;

// The term in C++ (autograd/engine_dual.h) of forward AD's spec (_forward_ad._cxx_term, None for none): (op,
// its tensors, their tangents, result, its tangent, params, level, output_nr); null where the op has none in
// C++.
std::shared_ptr<autograd::DualTerm> dual_term_of(const py::object& spec) {
  if (spec.is_none()) return nullptr;
  py::tuple s = spec.cast<py::tuple>();
  variable_list x, t;
  for (py::handle h : s[1]) x.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  for (py::handle h : s[2]) t.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  Tensor r = s[3].cast<Tensor>(), tr = s[4].is_none() ? Tensor() : s[4].cast<Tensor>();
  return autograd::make_dual_term(s[0].cast<std::string>(), x, t, r, tr, s[5].cast<std::vector<double>>(),
                                  s[6].cast<int64_t>(), s[7].cast<uint32_t>());
}

// The engine's dual-pass callbacks, forward AD's Python functions (each takes the GIL).
struct PyDualCallbacks : autograd::DualCallbacks {
  py::object make_, split_, second_, retain_, store_leaf_;
  int64_t level_ = -1;  // the pass's forward AD level
  bool create_graph_ = false;
  static py::object maybe(const Tensor& t) { return t.defined() ? py::cast(t) : py::object(py::none()); }
  static Tensor tensor_or_none(py::handle h) { return h.is_none() ? Tensor() : hook_result(h); }
  Tensor make(const Tensor& g, const Tensor& t) override {
    py::gil_scoped_acquire gil;
    return hook_result(make_(py::cast(g), py::cast(t)));
  }
  std::pair<Tensor, Tensor> split(const Tensor& r) override {
    if (!r.defined()) return {};
    py::gil_scoped_acquire gil;
    py::tuple p = split_(py::cast(r));
    return {tensor_or_none(p[0]), tensor_or_none(p[1])};
  }
  std::vector<std::pair<autograd::Edge, Tensor>> second_order(Node& n, const variable_list& grads) override {
    std::shared_ptr<autograd::DualTerm> term;
    {
      std::lock_guard<std::mutex> lock(g_records_mutex);
      auto it = records().find(&n);
      if (it == records().end()) return {};
      // a term in C++ needs neither the GIL nor Python; create_graph takes the re-run, whose terms record
      // (the C++ one reads tensors without history)
      if (it->second.term && !create_graph_ && it->second.node.lock().get() == &n) {
        if (it->second.term->level != level_) return {};  // _second_order's level test
        term = it->second.term;
      }
    }
    if (term) return autograd::dual_terms(*term, grads);
    py::gil_scoped_acquire gil;
    py::object rec;
    {
      std::lock_guard<std::mutex> lock(g_records_mutex);
      auto it = records().find(&n);
      if (it == records().end() || it->second.node.lock().get() != &n) return {};
      rec = it->second.obj;
    }
    py::tuple gs(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) gs[i] = maybe(grads[i]);
    // each input as a tensor (its gradient edge) or, for an in-place op's overwritten self, a (node,
    // input_nr) edge
    std::vector<std::pair<autograd::Edge, Tensor>> out;
    for (py::handle pair : second_(rec, gs)) {
      py::tuple p = py::reinterpret_borrow<py::tuple>(pair);
      autograd::Edge e;
      if (py::isinstance<py::tuple>(p[0])) {
        py::tuple edge = p[0].cast<py::tuple>();
        e = {edge[0].cast<std::shared_ptr<Node>>(), edge[1].cast<uint32_t>()};
      } else {
        e = autograd::gradient_edge(hook_result(p[0]));
      }
      out.push_back({std::move(e), tensor_or_none(p[1])});
    }
    return out;
  }
  Tensor retain(const Tensor& old, const Tensor& g) override {
    py::gil_scoped_acquire gil;
    return hook_result(retain_(maybe(old), py::cast(g)));
  }
  void store_leaf(const Tensor& leaf, const Tensor& t) override {
    py::gil_scoped_acquire gil;
    store_leaf_(py::cast(leaf), py::cast(t));
  }
};
}  // namespace

void init_autograd(py::module_& m, TensorClass& cls) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node")
      // PyTorch names its graph-machinery nodes with their C++ namespace (their reprs stay short)
      .def("name",
           [](const Node& n) {
             std::string s = n.name();
             return s == "AccumulateGrad" || s == "CopySlices" || s == "NotImplemented"
                        ? "torch::autograd::" + s
                        : s;
           })
      .def_property_readonly("next_functions",
                             [](const Node& n) {
                               py::tuple t(n.next_edges.size());
                               for (size_t i = 0; i < n.next_edges.size(); ++i)
                                 t[i] = py::make_tuple(node_object(n.next_edges[i].fn),
                                                       n.next_edges[i].input_nr);
                               return t;
                             })
      .def_property_readonly(
          "variable",
          [](Node& n) -> py::object {
            if (auto* a = dynamic_cast<autograd::AccumulateGrad*>(&n)) return py::cast(a->variable);
            throw py::attribute_error("'" + n.name() + "' object has no attribute 'variable'");
          })
      // Node hooks (grad_fn.register_hook / register_prehook in Python): tuples in, a tuple or None out.
      .def("_register_prehook",
           [](Node& n, py::function fn) {
             int id = next_hook_id();
             n.node_pre_hooks.push_back({id, [h = py_handle(fn)](variable_list& gouts) {
                                           py::gil_scoped_acquire gil;
                                           py::tuple args(gouts.size());
                                           for (size_t i = 0; i < gouts.size(); ++i)
                                             args[i] = py::cast(gouts[i]);
                                           py::object r = h->obj(args);
                                           if (r.is_none()) return;
                                           auto seq = hook_tuple(r);
                                           MT_CHECK(seq.size() == gouts.size(), "hook returned ", seq.size(),
                                                    " gradients, expected ", gouts.size());
                                           for (size_t i = 0; i < gouts.size(); ++i)
                                             gouts[i] = seq[i].is_none() ? Tensor() : hook_result(seq[i]);
                                         }});
             return id;
           })
      .def("_register_hook",
           [](Node& n, py::function fn) {
             int id = next_hook_id();
             n.node_post_hooks.push_back(
                 {id, [h = py_handle(fn)](variable_list& gins, const variable_list& gouts) {
                    py::gil_scoped_acquire gil;
                    py::tuple a(gins.size()), b(gouts.size());
                    for (size_t i = 0; i < gins.size(); ++i) a[i] = py::cast(gins[i]);
                    for (size_t i = 0; i < gouts.size(); ++i) b[i] = py::cast(gouts[i]);
                    py::object r = h->obj(a, b);
                    if (r.is_none()) return;
                    auto seq = hook_tuple(r);
                    MT_CHECK(seq.size() == gins.size(), "hook returned ", seq.size(), " gradients, expected ",
                             gins.size());
                    for (size_t i = 0; i < gins.size(); ++i)
                      gins[i] = seq[i].is_none() ? Tensor() : hook_result(seq[i]);
                  }});
             return id;
           })
      .def("_remove_hook",
           [](Node& n, int id) {
             auto drop = [id](auto& v) {
               v.erase(std::remove_if(v.begin(), v.end(), [id](auto& h) { return h.first == id; }), v.end());
             };
             drop(n.node_pre_hooks);
             drop(n.node_post_hooks);
           })
      .def_property_readonly("metadata",
                             [](Node& n) {
                               if (!n.py_metadata) n.py_metadata = py_handle(py::dict());
                               return static_cast<PyHandle*>(n.py_metadata.get())->obj;
                             })
      // grad_fn._saved_<name>: the tensors a formula saved, unpacked as backward would (hooks included);
      // None for one saved as undefined, a tuple for a list (an RNN's weights)
      .def("__getattr__",
           [](Node& n, const std::string& attr) -> py::object {
             auto* fn = dynamic_cast<autograd::FnNode*>(&n);
             if (fn && attr.rfind("_saved_", 0) == 0) {
               std::string key = attr.substr(7);
               for (const char* name : fn->saved_names()) {
                 if (!name || key != name) continue;
                 auto list = fn->saved_list(name);
                 if (list.size() == 1) return list[0].defined() ? py::cast(list[0]) : py::object(py::none());
                 py::tuple t(list.size());
                 for (size_t i = 0; i < list.size(); ++i) t[i] = py::cast(list[i]);
                 return t;
               }
             }
             throw py::attribute_error("'" + n.name() + "' object has no attribute '" + attr + "'");
           })
      .def("__repr__", [](const Node& n) {
        return "<" + n.name() + " object at 0x" + ([&] {
                 char buf[32];
                 snprintf(buf, sizeof buf, "%llx", (unsigned long long)reinterpret_cast<uintptr_t>(&n));
                 return std::string(buf);
               })() +
               ">";
      });

  cls.def_property_readonly("grad_fn", [](const Tensor& t) { return node_object(autograd::grad_fn(t)); })
      .def_property_readonly("is_leaf", [](const Tensor& t) { return autograd::grad_fn(t) == nullptr; })
      .def_property_readonly("retains_grad",
                             [](const Tensor& t) {
                               auto* m = t.impl()->autograd_meta();
                               return m && m->retains_grad;
                             })
      .def("retain_grad", [](const Tensor& t) { autograd::retain_grad(t); })
      // which output of its grad_fn the tensor is (0 for leaves): get_gradient_edge's second half
      .def_property_readonly("output_nr",
                             [](const Tensor& t) {
                               if (!autograd::grad_fn(t)) return 0u;
                               return t.impl()->autograd_meta()->output_nr;
                             })
      // any object as the hook, as PyTorch's (which checks requires_grad first; a hook that cannot be called
      // fails when backward calls it)
      .def("_register_hook",
           [](const Tensor& t, py::object hook) {
             MT_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
             auto fn = py::reinterpret_borrow<py::function>(hook);
             autograd::grad_fn(t);  // a stale view's history is remade first
             auto& m = t.impl()->ensure_autograd_meta();
             int id = next_hook_id();
             if (m.grad_fn)
               m.grad_fn->pre_hooks.push_back({id, {m.output_nr, wrap_hook(fn)}});
             else
               m.leaf_hooks.push_back({id, wrap_hook(fn)});
             return id;
           })
      .def("_register_post_accumulate_grad_hook",
           [](const Tensor& t, py::object fn) {
             MT_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
             MT_CHECK(!autograd::grad_fn(t),
                      "post accumulate grad hooks cannot be registered on non-leaf tensors");
             auto& m = t.impl()->ensure_autograd_meta();
             int id = next_hook_id();
             m.post_accumulate_hooks.push_back({id, [h = py_handle(fn)](const Tensor& leaf) -> Tensor {
                                                  py::gil_scoped_acquire gil;
                                                  h->obj(leaf);
                                                  return Tensor();
                                                }});
             return id;
           })
      .def("_remove_hook", [](const Tensor& t, int id) {
        auto* m = t.impl()->autograd_meta();
        if (!m) return;
        auto& lh = m->leaf_hooks;
        lh.erase(std::remove_if(lh.begin(), lh.end(), [id](auto& h) { return h.first == id; }), lh.end());
        auto& pa = m->post_accumulate_hooks;
        pa.erase(std::remove_if(pa.begin(), pa.end(), [id](auto& h) { return h.first == id; }), pa.end());
        if (m->grad_fn) {
          auto& ph = m->grad_fn->pre_hooks;
          ph.erase(std::remove_if(ph.begin(), ph.end(), [id](auto& h) { return h.first == id; }), ph.end());
        }
      });

  m.def("is_grad_enabled", [] { return autograd::GradMode::is_enabled(); });
  // ops/op_table.h's tables, so tests iterate the lists the C++ declares: "twins" gives [(twin, ops/
  // family)], "stubs" gives [(stub, ops/ family, [device types with a registered kernel])].
  m.def(
      "_op_table",
      [](const std::string& kind) {
        py::list out;
        if (kind == "twins") {
#define MT_TWIN_ROW(name, family, ret, params) out.append(py::make_tuple(#name, #family));
          MT_AUTOGRAD_TWINS(MT_TWIN_ROW)
#undef MT_TWIN_ROW
        } else if (kind == "stubs") {
          for (const StubRow& r : dispatch_stub_rows()) {
            py::list devices;
            for (int d = 0; d < kNumDeviceTypes; ++d)
              if (r.has_kernel[d]) devices.append(Device(static_cast<DeviceType>(d)).str());
            out.append(py::make_tuple(r.name, r.family, devices));
          }
        } else {
          throw py::value_error("_op_table(): kind must be 'twins' or 'stubs', got '" + kind + "'");
        }
        return out;
      },
      py::arg("kind") = "twins");
  // torch.autograd.graph's C++ half: saved-tensor hooks, the running backward pass, version bumps.
  m.def("_push_saved_tensors_default_hooks", [](py::function pack, py::function unpack) {
    autograd::push_saved_tensors_hooks(
        [p = py_handle(std::move(pack)),
         u = py_handle(std::move(unpack))]() -> std::unique_ptr<autograd::SavedTensorHooks> {
          return std::make_unique<PySavedTensorHooks>(p, u);
        });
  });
  m.def("_pop_saved_tensors_default_hooks", [] { autograd::pop_saved_tensors_hooks(); });
  m.def("_saved_tensors_hooks_disable",
        [](const std::string& message) { autograd::set_saved_tensors_hooks_disabled(message); });
  m.def("_saved_tensors_hooks_enable", [] { autograd::set_saved_tensors_hooks_disabled(std::nullopt); });
  m.def("_saved_tensors_hooks_get_disabled_error_message",
        []() -> std::optional<std::string> { return autograd::saved_tensors_hooks_disabled(); });
  m.def("_current_graph_task_id", [] { return autograd::current_graph_task_id(); });
  m.def("_will_engine_execute_node",
        [](const std::shared_ptr<Node>& n) { return autograd::will_engine_execute_node(n.get()); });
  // autograd.grad given GradientEdges: a stand-in tensor of the edge's geometry whose gradient edge is that
  // edge, so the engine's tensor-based entry point serves edges too
  m.def("_tensor_for_edge", [](const std::shared_ptr<Node>& n, uint32_t nr) {
    MT_CHECK(nr < n->inputs.size(), "output_nr ", nr, " is out of range for ", n->name(), " with ",
             n->inputs.size(), " inputs");
    const auto& g = n->inputs[nr];
    Tensor t = empty(g.sizes, g.dtype, g.device);
    auto& meta = t.impl()->ensure_autograd_meta();
    meta.requires_grad = true;
    meta.grad_fn = n;
    meta.output_nr = nr;
    return t;
  });
  m.def("_set_anomaly_enabled", [](bool on) { autograd::g_anomaly_enabled.store(on); });
  m.def("_increment_version", [](const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts)
      if (!t.is_inference()) t.bump_version();  // an inference tensor has no version counter
  });
  // `with _C._fresh_writes:` around a Python composite's in-place writes into the result it is building
  // (core/FreshWrites.h): they leave the version counter alone, so the result starts at 0 as PyTorch's does.
  // A plain C type: pybind11's dispatch of __enter__/__exit__ cost ~550 ns a block, more than F.pad's own
  // work.
  static PyMethodDef fresh_methods[] = {{"__enter__",
                                         [](PyObject* self, PyObject*) -> PyObject* {
                                           ++tls_fresh_writes;
                                           g_fresh_scopes.fetch_add(1, std::memory_order_relaxed);
                                           Py_INCREF(self);
                                           return self;
                                         },
                                         METH_NOARGS, nullptr},
                                        {"__exit__",
                                         reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(
                                             +[](PyObject*, PyObject* const*, Py_ssize_t) -> PyObject* {
                                               g_fresh_scopes.fetch_sub(1, std::memory_order_relaxed);
                                               --tls_fresh_writes;
                                               Py_RETURN_NONE;  // an exception inside propagates
                                             })),
                                         METH_FASTCALL, nullptr},
                                        {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot fresh_slots[] = {{Py_tp_methods, fresh_methods}, {0, nullptr}};
  static PyType_Spec fresh_spec = {"minitorch._C._FreshWrites", sizeof(PyObject), 0, Py_TPFLAGS_DEFAULT,
                                   fresh_slots};
  py::object fresh_type = py::reinterpret_steal<py::object>(PyType_FromSpec(&fresh_spec));
  if (!fresh_type) throw py::error_already_set();
  m.attr("_fresh_writes") = fresh_type();
  m.def("_set_grad_enabled", [](bool v) { autograd::GradMode::set_enabled(v); });
  // forward AD registers its DualTensor type and the check a dual argument of a builtin goes through
  m.def("_set_dual_tensor_type", [](py::type t, py::function check) {
    Py_XDECREF(g_dual_check);
    g_dual_check = check.inc_ref().ptr();
    g_dual_tensor_type = reinterpret_cast<PyTypeObject*>(t.ptr());
    Py_INCREF(t.ptr());
  });
  m.def("_live_views", &live_views);
  // unsafe_split / unsafe_chunk: their parts share the input's memory but are no views of it (PyTorch's: no
  // _base, and in-place writes into them are not refused as a multi-output view op's are)
  m.def("_forget_view_base", [](const Tensor& t) {
    t.impl()->set_view_base(nullptr, CreationMeta::Default);
    if (auto* am = t.impl()->autograd_meta()) am->view_fn = nullptr;
  });
  // the ops whose second-order term is C++ (ops.schema's dual_term:, as built), with whether each reads the
  // result's tangent
  m.def("_fwad_dual_term_ops", [] { return autograd::dual_term_ops(); });
  // rec: forward AD's record for the re-run (_forward_ad._record); term: None or what the term in C++ reads
  // (see dual_term_of)
  m.def("_fwad_set_record", [](const std::shared_ptr<Node>& n, py::object rec, py::object term) {
    std::shared_ptr<autograd::DualTerm> dt = dual_term_of(term);
    // the replaced and expired records are freed after the lock: freeing Python objects may run Python code
    std::vector<FwadRecord> gone;
    std::lock_guard<std::mutex> lock(g_records_mutex);
    auto& table = records();
    if (table.size() >= g_records_purge_at) {
      for (auto it = table.begin(); it != table.end();) {
        if (it->second.node.expired()) {
          gone.push_back(std::move(it->second));
          it = table.erase(it);
        } else {
          ++it;
        }
      }
      g_records_purge_at = std::max<size_t>(1024, 2 * table.size());
    }
    auto& slot = table[n.get()];
    gone.push_back(std::move(slot));
    slot = {n, std::move(rec), std::move(dt)};
  });
  m.def("_fwad_clear_records", [] {
    std::unordered_map<const Node*, FwadRecord> gone;
    {
      std::lock_guard<std::mutex> lock(g_records_mutex);
      gone.swap(records());
    }  // the records' objects go after the lock (freeing them may free nodes)
  });
  // The backward pass of dual tensors (autograd/engine_dual.h): gradients with tangents beside them.
  // Returns (gradients of inputs, their tangents).
  m.def(
      "_run_backward_dual",
      [](const std::vector<Tensor>& outputs, const std::vector<std::optional<Tensor>>& grads,
         const std::vector<std::optional<Tensor>>& tangents, bool keep_graph, bool create_graph,
         const std::vector<Tensor>& inputs, bool allow_unused, py::object make, py::object split,
         py::object second_order, py::object retain, py::object store_leaf, int64_t level) {
        variable_list g, t;
        for (auto& x : grads) g.push_back(x ? *x : Tensor());
        for (auto& x : tangents) t.push_back(x ? *x : Tensor());
        std::vector<py::object> keep;
        struct KeepScope {
          std::vector<py::object>* prev;
          explicit KeepScope(std::vector<py::object>* k) : prev(t_dual_keep) { t_dual_keep = k; }
          ~KeepScope() { t_dual_keep = prev; }
        } keep_scope(&keep);
        PyDualCallbacks cb;
        cb.make_ = std::move(make);
        cb.split_ = std::move(split);
        cb.second_ = std::move(second_order);
        cb.retain_ = std::move(retain);
        cb.store_leaf_ = std::move(store_leaf);
        cb.level_ = level;
        cb.create_graph_ = create_graph;
        autograd::DualBackwardResult r = nogil([&] {
          return autograd::run_backward_dual(outputs, g, t, keep_graph, create_graph, inputs, allow_unused,
                                             cb);
        });
        py::tuple gs(r.grads.size()), ts(r.tangents.size());
        for (size_t i = 0; i < r.grads.size(); ++i) gs[i] = py::cast(r.grads[i]);
        for (size_t i = 0; i < r.tangents.size(); ++i) ts[i] = py::cast(r.tangents[i]);
        return py::make_tuple(gs, ts);
      },
      py::arg("outputs"), py::arg("grad_outputs"), py::arg("grad_tangents"), py::arg("keep_graph"),
      py::arg("create_graph"), py::arg("inputs"), py::arg("allow_unused"), py::arg("make"), py::arg("split"),
      py::arg("second_order"), py::arg("retain"), py::arg("store_leaf"), py::arg("level") = -1);
  // `view`, a tracked view, remade on t laid out as its root base (forward AD: the view's tangent)
  m.def("_replay_view_on",
        [](const Tensor& view, const Tensor& t) { return autograd::replay_view_on(view, t); });
  m.def("is_inference_mode_enabled", [] { return autograd::tls_inference_mode; });
  m.def("_set_inference_mode", [](bool v) { autograd::tls_inference_mode = v; });

  m.def(
      "_run_backward",
      [](const std::vector<Tensor>& outputs, const std::vector<std::optional<Tensor>>& grads, bool keep_graph,
         bool create_graph, const std::vector<Tensor>& inputs, bool allow_unused) {
        variable_list g;
        for (auto& x : grads) g.push_back(x ? *x : Tensor());
        // Released as PyTorch's engine runs: hooks and Function backwards take the GIL back to call Python.
        variable_list r = nogil([&] {
          return autograd::run_backward(outputs, g, keep_graph, create_graph, inputs, allow_unused);
        });
        py::tuple t(r.size());
        for (size_t i = 0; i < r.size(); ++i) t[i] = py::cast(r[i]);
        return t;
      },
      py::arg("outputs"), py::arg("grad_outputs"), py::arg("keep_graph"), py::arg("create_graph"),
      py::arg("inputs"), py::arg("allow_unused"));

  // Records a minitorch.autograd.Function call: args are the forward's arguments (edges for tensors that
  // require grad), outputs its tensor results. Returns the outputs to hand back: an input returned as is
  // becomes a new alias, so that it can carry this node's history, unless forward marked it dirty (modified
  // in place): then the input itself takes the history, as after any in-place op.
  m.def("_function_record", [](const std::string& name, py::object backward, py::object ctx, py::list args,
                               py::list outputs, py::list to_save, py::list non_diff, py::list dirty) {
    auto node = std::make_shared<PyFunctionNode>(name, backward, ctx);
    node->materialize_grads_ = py::getattr(ctx, "materialize_grads", py::bool_(true)).cast<bool>();
    std::vector<Tensor> ins;
    std::vector<const Tensor*> in_ptrs;
    ins.reserve(args.size());
    for (py::handle a : args) ins.push_back(py::isinstance<TensorImpl>(a) ? a.cast<Tensor>() : Tensor());
    for (auto& t : ins) in_ptrs.push_back(t.defined() ? &t : nullptr);
    auto is_dirty = [&](const Tensor& t) {
      for (py::handle h : dirty)
        if (h.cast<Tensor>().is_same(t)) return true;
      return false;
    };
    for (py::handle h : dirty) {
      Tensor d = h.cast<Tensor>();
      bool is_input = false;
      for (auto& i : ins) is_input = is_input || (i.defined() && i.is_same(d));
      MT_CHECK(is_input, "mark_dirty only accepts input tensors, but argument 0 isn't one");
      autograd::check_inplace(d);
    }
    std::vector<Tensor> outs, dirty_outs;  // dirty_outs[k]: the input an output aliases, when dirty
    for (py::handle o : outputs) {
      Tensor t = o.cast<Tensor>(), orig;
      for (auto& i : ins)
        if (i.defined() && i.is_same(t)) {
          if (is_dirty(t)) orig = t;
          t = autograd::detach(t);
        }
      outs.push_back(t);
      dirty_outs.push_back(orig);
    }
    // Every tensor output gets a slot (backward receives a gradient for each, zeros for the
    // non-differentiable ones, as in PyTorch); only differentiable ones get this node as grad_fn.
    autograd::set_history(node, in_ptrs, {});
    py::list result;
    uint32_t nr = 0;
    for (auto& t : outs) {
      bool nd = !is_inexact(t.dtype());
      for (py::handle h : non_diff)
        if (h.cast<Tensor>().is_same(t)) nd = true;
      node->inputs.push_back(autograd::geometry_of(t));
      if (!nd) {
        auto& m = t.impl()->ensure_autograd_meta();
        m.requires_grad = true;
        m.grad_fn = node;
        m.output_nr = nr;
      }
      const Tensor& orig = dirty_outs[nr];
      ++nr;
      if (orig.defined()) {
        if (!nd) autograd::take_history(orig, t);
        result.append(py::cast(orig));
        continue;
      }
      result.append(py::cast(t));
    }
    for (py::handle h : to_save) {
      if (h.is_none()) {
        node->saved.emplace_back(Tensor(), false);
        continue;
      }
      Tensor s = h.cast<Tensor>();
      bool is_out = false;
      for (size_t k = 0; k < outs.size(); ++k) {
        // a dirty input is this node's output now: saved as one (no strong link back to the node)
        if (dirty_outs[k].defined() && dirty_outs[k].is_same(s)) s = outs[k];
        if (outs[k].is_same(s)) is_out = true;
      }
      node->saved.emplace_back(s, is_out);
    }
    return result;
  });
}

}  // namespace mt
