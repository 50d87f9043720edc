// The out= keyword of the functions PyTorch gives one: each listed function gets one more overload, tried
// after its own, that runs the op as usual and writes the result into `out` (resized if needed, PyTorch's
// checks and messages). Calls without out= never reach it, so they cost what they did before.
#include <string>
#include <vector>

#include "autograd/GradMode.h"
#include "core/TypeMeta.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "python/bind.h"

namespace mt {

namespace {

// How the result's dtype must relate to out's: castable (the result can be cast, as TensorIterator ops),
// exact (GEMMs and the tuple results of max/sort/topk...), or castable with cat's message.
enum class OutRule { castable, exact, cat };

struct OutOp {
  const char* name;
  OutRule rule;
};

constexpr OutOp kOutOps[] = {
    // elementwise
    {"add", OutRule::castable},
    {"sub", OutRule::castable},
    {"mul", OutRule::castable},
    {"div", OutRule::castable},
    {"true_divide", OutRule::castable},
    {"floor_divide", OutRule::castable},
    {"remainder", OutRule::castable},
    {"fmod", OutRule::castable},
    {"pow", OutRule::castable},
    {"maximum", OutRule::castable},
    {"minimum", OutRule::castable},
    {"atan2", OutRule::castable},
    {"eq", OutRule::castable},
    {"ne", OutRule::castable},
    {"lt", OutRule::castable},
    {"le", OutRule::castable},
    {"gt", OutRule::castable},
    {"ge", OutRule::castable},
    {"logical_and", OutRule::castable},
    {"logical_or", OutRule::castable},
    {"logical_xor", OutRule::castable},
    {"bitwise_and", OutRule::castable},
    {"bitwise_or", OutRule::castable},
    {"bitwise_xor", OutRule::castable},
    {"abs", OutRule::castable},
    {"absolute", OutRule::castable},
    {"neg", OutRule::castable},
    {"negative", OutRule::castable},
    {"sign", OutRule::castable},
    {"floor", OutRule::castable},
    {"ceil", OutRule::castable},
    {"round", OutRule::castable},
    {"trunc", OutRule::castable},
    {"exp", OutRule::castable},
    {"exp2", OutRule::castable},
    {"expm1", OutRule::castable},
    {"log", OutRule::castable},
    {"log2", OutRule::castable},
    {"log10", OutRule::castable},
    {"log1p", OutRule::castable},
    {"sqrt", OutRule::castable},
    {"rsqrt", OutRule::castable},
    {"reciprocal", OutRule::castable},
    {"sin", OutRule::castable},
    {"cos", OutRule::castable},
    {"tan", OutRule::castable},
    {"asin", OutRule::castable},
    {"acos", OutRule::castable},
    {"atan", OutRule::castable},
    {"sinh", OutRule::castable},
    {"cosh", OutRule::castable},
    {"tanh", OutRule::castable},
    {"erf", OutRule::castable},
    {"sigmoid", OutRule::castable},
    {"logical_not", OutRule::castable},
    {"bitwise_not", OutRule::castable},
    {"clamp", OutRule::castable},
    {"clip", OutRule::castable},
    {"clamp_min", OutRule::castable},
    {"clamp_max", OutRule::castable},
    {"_where", OutRule::castable},
    {"lerp", OutRule::castable},
    {"tril", OutRule::castable},
    {"triu", OutRule::castable},
    // linear algebra
    {"matmul", OutRule::exact},
    {"mm", OutRule::exact},
    {"bmm", OutRule::exact},
    {"mv", OutRule::exact},
    {"dot", OutRule::exact},
    {"addmm", OutRule::exact},
    {"outer", OutRule::exact},
    {"ger", OutRule::exact},
    // joining, reductions, indexing
    {"cat", OutRule::cat},
    {"concat", OutRule::cat},
    {"stack", OutRule::cat},
    {"sum", OutRule::castable},
    {"mean", OutRule::castable},
    {"prod", OutRule::castable},
    {"amax", OutRule::castable},
    {"amin", OutRule::castable},
    {"all", OutRule::castable},
    {"any", OutRule::castable},
    {"std", OutRule::castable},
    {"var", OutRule::castable},
    {"norm", OutRule::castable},
    {"logsumexp", OutRule::castable},
    {"max", OutRule::exact},
    {"min", OutRule::exact},
    {"argmax", OutRule::exact},
    {"argmin", OutRule::exact},
    {"cumsum", OutRule::castable},
    {"cumprod", OutRule::castable},
    {"gather", OutRule::exact},
    {"index_select", OutRule::exact},
    {"masked_select", OutRule::exact},
    {"nonzero", OutRule::exact},
    // sort family
    {"sort", OutRule::exact},
    {"topk", OutRule::exact},
    {"kthvalue", OutRule::exact},
    {"median", OutRule::exact},
    {"mode", OutRule::exact},
    {"multinomial", OutRule::exact},
};

std::string type_name(py::handle h) {
  return py::str(py::type::of(h).attr("__name__"));
}

bool any_requires_grad(py::handle h) {
  if (py::isinstance<TensorImpl>(h)) return h.cast<Tensor>().requires_grad();
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h))
    for (py::handle e : h)
      if (any_requires_grad(e)) return true;
  return false;
}

void write_one(const char* name, OutRule rule, const Tensor& out, const Tensor& result) {
  ScalarType from = result.dtype(), to_dt = out.dtype();
  if (rule == OutRule::exact)
    MT_CHECK(from == to_dt, "Expected out tensor to have dtype ", cpp_type_name(from), ", but got ",
             cpp_type_name(to_dt), " instead");
  else if (rule == OutRule::cat)
    MT_CHECK_TYPE(can_cast(from, to_dt), "torch.", name,
                  "(): input types can't be cast to the desired output type ", dtype_short_name(to_dt));
  else
    MT_CHECK(can_cast(from, to_dt), "result type ", dtype_short_name(from),
             " can't be cast to the desired output type ", dtype_short_name(to_dt));
  MT_CHECK(out.device() == result.device(),
           "Expected all tensors to be on the same device, but found at least two ", "devices, ",
           result.device().str(), " and ", out.device().str(), "!");
  if (out.sizes() != result.sizes()) {
    if (out.numel() != 0) {
      std::string msg = "An output with one or more elements was resized since it had shape " +
                        shape_str(out.sizes()) + ", which does not match the required output shape " +
                        shape_str(result.sizes()) +
                        ". This behavior is deprecated, and in a future PyTorch release outputs will not be "
                        "resized unless they have zero elements. You can explicitly reuse an out tensor t by "
                        "resizing it, inplace, to zero elements with t.resize_(0).";
      if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) != 0) throw py::error_already_set();
    }
    out.impl()->set_data(*make_empty(result.sizes(), to_dt, out.device()).impl());
  }
  nogil([&] { copy_(out, result); }, out);
}

py::object call_with_out(const OutOp& op, const py::object& fn, const py::args& args,
                         const py::kwargs& kwargs) {
  // No out=: a call the op's own overloads did not take in pybind11's first (no-conversion) pass. Throwing
  // reference_cast_error tells pybind11 to try the next overload, so conversions and errors stay theirs.
  if (!kwargs.contains("out")) throw py::reference_cast_error();
  py::dict kw = kwargs.attr("copy")();
  py::object out = kw.attr("pop")("out");
  if (out.is_none()) return fn(*args, **kw);
  const char* shown = op.name[0] == '_' ? op.name + 1 : op.name;
  MT_CHECK(!autograd::GradMode::is_enabled() ||
               !(any_requires_grad(args) || any_requires_grad(kw) || any_requires_grad(out)),
           shown,
           "(): functions with out=... arguments don't support automatic differentiation, but one of the "
           "arguments requires grad.");
  py::object result = fn(*args, **kw);
  if (py::isinstance<TensorImpl>(result)) {
    MT_CHECK_TYPE(py::isinstance<TensorImpl>(out), shown, "(): argument 'out' must be Tensor, not ",
                  type_name(out));
    write_one(shown, op.rule, out.cast<Tensor>(), result.cast<Tensor>());
    return out;
  }
  // (values, indices) results take a tuple of tensors and return the same named tuple type over them
  py::tuple res = result.cast<py::tuple>();
  MT_CHECK_TYPE(
      (py::isinstance<py::tuple>(out) || py::isinstance<py::list>(out)) && py::len(out) == res.size(), shown,
      "(): argument 'out' must be tuple of ", res.size(), " Tensors, not ", type_name(out));
  py::list outs;
  for (size_t i = 0; i < res.size(); ++i) {
    py::handle o = out[py::int_(i)];
    MT_CHECK_TYPE(py::isinstance<TensorImpl>(o), shown, "(): argument 'out' must be tuple of Tensors, not ",
                  type_name(o));
    write_one(shown, OutRule::exact, o.cast<Tensor>(), res[i].cast<Tensor>());
    outs.append(o);
  }
  return py::type::of(result)(*outs);
}

}  // namespace

// The out= of the factories (zeros(3, out=t), arange(5, out=t)): same checks, resize and copy
// (bind_factory.cpp).
Tensor write_out_tensor(const char* name, const Tensor& out, const Tensor& result) {
  write_one(name, OutRule::castable, out, result);
  return out;
}

void init_out(py::module_& m) {
  for (const OutOp& op : kOutOps) {
    MT_INTERNAL_ASSERT(py::hasattr(m, op.name), "out= listed for a function that is not bound: ", op.name);
    py::object fn = m.attr(op.name);
    // m.def appends to the function's overloads (pybind11 chains to the existing one as a sibling)
    m.def(op.name,
          [&op, fn](py::args args, py::kwargs kwargs) { return call_with_out(op, fn, args, kwargs); });
  }
}

}  // namespace mt
