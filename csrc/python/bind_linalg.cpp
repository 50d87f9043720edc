// Bindings of the linalg family that the schema's rows cannot generate (csrc/ops/ops.schema's linalg section
// binds matmul, mm, bmm, mv, dot, outer, ger and addmm): einsum's two spellings, the @ operator, the float32
// matmul precision flag, and the products' __torch_function__ fallback.
#include "generated/bindings.h"
#include "ops/linalg.h"
#include "python/bind.h"
#include "python/bind_products.h"

namespace mt {

namespace {

// einsum(eq, a, b) and einsum(eq, [a, b]) (PyTorch accepts both spellings).
Tensor einsum_py(const std::string& eq, const py::args& args) {
  std::vector<Tensor> ops;
  if (args.size() == 1 && (py::isinstance<py::list>(args[0]) || py::isinstance<py::tuple>(args[0]))) {
    for (py::handle h : args[0]) ops.push_back(h.cast<Tensor>());
  } else {
    for (py::handle h : args) ops.push_back(h.cast<Tensor>());
  }
  return nogil([&] { return einsum(eq, ops); }, ops);
}

// einsum(op0, sublist0, op1, sublist1, ..., [output sublist]): PyTorch's sublist spelling, turned into its
// equation (subscripts 0-25 are 'A'-'Z', 26-51 'a'-'z', Ellipsis is '...').
Tensor einsum_sublist_py(const py::args& args) {
  if (args.size() < 2)
    throw py::value_error(
        "einsum(): must specify the equation string and at least one operand, or at least one operand and "
        "its "
        "subscripts list");
  // PyTorch's parse_subscript, step by step in Python's protocols: n == Ellipsis, then n >= 0 and n < 26 (or
  // 26 <= n < 52), then chr(ord('A') + n); so a bool or a one-element integer tensor is a subscript, and
  // anything else fails in Python's own words (a float's chr(), a str's >=, a longer tensor's truth value)
  auto subscripts = [](py::handle list) {
    auto compare = [](py::handle n, long v, int op) {
      const int r = PyObject_RichCompareBool(n.ptr(), py::int_(v).ptr(), op);
      if (r < 0) throw py::error_already_set();
      return r == 1;
    };
    auto letter = [](py::handle n, long base) {
      PyObject* code = PyNumber_Add(py::int_(base).ptr(), n.ptr());
      if (!code) throw py::error_already_set();
      return py::module_::import("builtins")
          .attr("chr")(py::reinterpret_steal<py::object>(code))
          .cast<std::string>();
    };
    std::string out;
    for (py::handle s : list) {
      if (s.equal(py::ellipsis()))
        out += "...";
      else if (compare(s, 0, Py_GE) && compare(s, 26, Py_LT))
        out += letter(s, 'A');
      else if (compare(s, 26, Py_GE) && compare(s, 52, Py_LT))
        out += letter(s, long('a') - 26);
      else
        throw py::value_error("einsum(): subscript in subscript list is not within the valid range [0, 52)");
    }
    return out;
  };
  std::string eq;
  std::vector<Tensor> ops;
  const size_t pairs = args.size() / 2;
  for (size_t i = 0; i < pairs; ++i) {
    if (!py::isinstance<TensorImpl>(args[2 * i]))
      throw py::type_error(std::string("einsum(): expected an equation string or a Tensor operand, got ") +
                           Py_TYPE(args[2 * i].ptr())->tp_name);
    ops.push_back(args[2 * i].cast<Tensor>());
    if (i) eq += ",";
    eq += subscripts(args[2 * i + 1]);
  }
  if (args.size() % 2 == 1) eq += "->" + subscripts(args[args.size() - 1]);
  return nogil([&] { return einsum(eq, ops); }, ops);
}

const char* precision_name(Float32MatmulPrecision p) {
  switch (p) {
    case Float32MatmulPrecision::high:
      return "high";
    case Float32MatmulPrecision::medium:
      return "medium";
    default:
      return "highest";
  }
}

// PyTorch warns (UserWarning) and keeps the old setting for an unknown string; it does not raise.
void set_precision_py(const std::string& s) {
  if (s == "highest")
    set_float32_matmul_precision(Float32MatmulPrecision::highest);
  else if (s == "high")
    set_float32_matmul_precision(Float32MatmulPrecision::high);
  else if (s == "medium")
    set_float32_matmul_precision(Float32MatmulPrecision::medium);
  else
    warn(s +
         " is not one of 'highest', 'high', or 'medium'; the current"
         "setFloat32MatmulPrecision call has no effect.");
}

}  // namespace

void init_linalg(py::module_& m, TensorClass& cls) {
  // The float32 matmul precision flag (read by the CUDA GEMM kernel);
  // minitorch.backends.cuda.matmul.allow_tf32 is a view of it.
  m.def("set_float32_matmul_precision", strict_fn(&set_precision_py), py::arg("precision"));
  m.def("get_float32_matmul_precision", [] { return precision_name(float32_matmul_precision()); });
  m.def("_get_cublas_allow_tf32", strict_fn(&matmul_allow_tf32));
  m.def("_set_cublas_allow_tf32", [](StrictBool allow) {
    set_float32_matmul_precision(allow ? Float32MatmulPrecision::high : Float32MatmulPrecision::highest);
  });

  // torch.kron's composition in one call (the Python wrapper parses and handles out=); its refusals name it
  // kron, as PyTorch's parser does
  m.add_object("_kron",
               py::cpp_function(nogil_fn(&kron), py::name("kron"), py::arg("input"), py::arg("other")));
  m.def("einsum", strict_fn(&einsum_py), py::arg("equation"));
  m.def("einsum", strict_fn(&einsum_sublist_py));

  // Non-tensor operands return NotImplemented so Python can try the other side (then raises TypeError).
  cls.def("__matmul__", [](const Tensor& self, py::handle other) -> py::object {
    if (!py::isinstance<TensorImpl>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    Tensor b = other.cast<Tensor>();
    return py::cast(nogil_if(big_product(self, b), [&] { return matmul(self, b); }));
  });
  cls.def("__rmatmul__", [](const Tensor& self, py::handle other) -> py::object {
    if (!py::isinstance<TensorImpl>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    Tensor a = other.cast<Tensor>();
    return py::cast(nogil_if(big_product(a, self), [&] { return matmul(a, self); }));
  });
}

// The last overload of the schema's rows with `torch_function: fallback` (mm, matmul, addmm), tried only
// after every typed one (out= included) refused the arguments: an argument whose type defines
// __torch_function__ (minitorch.sparse's tensors, a user's tensor-like) gets the call, as PyTorch's argument
// parser hands it over; anything else moves on to arg_errors.cpp (PyTorch's deprecated signatures, then its
// TypeError). Dense calls never reach it, so they cost nothing more.
void init_linalg_torch_function_fallbacks(py::module_& m) {
#define MT_FALLBACK_NAME(name) name,
  static constexpr const char* kFallbacks[] = {MT_FUNC_TORCH_FUNCTION(MT_FALLBACK_NAME)};
#undef MT_FALLBACK_NAME
  for (const char* name : kFallbacks) {
    MT_INTERNAL_ASSERT(py::hasattr(m, name), "torch_function fallback for an unbound function: ", name);
    m.def(name, [name](const py::args& args, const py::kwargs& kwargs) -> py::object {
      auto overrides = [](py::handle h) {
        return !py::isinstance<TensorImpl>(h) && py::hasattr(py::type::of(h), "__torch_function__");
      };
      py::list relevant;
      for (py::handle a : args)
        if (overrides(a)) relevant.append(a);
      for (auto kv : kwargs)
        if (overrides(kv.second)) relevant.append(kv.second);
      if (relevant.empty())
        throw py::reference_cast_error();  // no overload took the call: arg_errors.cpp words PyTorch's error
      // as every builtin's: one handler per type (subclasses first), each bound to its argument, a mode's
      // first, and the dispatcher's words when all answer NotImplemented
      py::object ov = py::module_::import("minitorch.overrides");
      return ov.attr("_dispatch")(py::module_::import("minitorch").attr(name),
                                  ov.attr("_get_overloaded_args")(relevant), args, kwargs, true);
    });
  }
}

}  // namespace mt
