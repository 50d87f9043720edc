// The out= keyword of the functions PyTorch gives one: each listed function gets one more overload, tried
// after its own, that writes the result into `out` (resized if needed, PyTorch's checks and messages). The
// elementwise table's plain calls go straight to ops/out.h, which writes into `out` through the TensorIter;
// everything else runs the op as usual and copies its result in. Calls without out= never reach it, so they
// cost what they did before.
#include <cstring>
#include <string>
#include <vector>

#include "core/GradMode.h"
#include "core/TypeMeta.h"
#include "generated/bindings.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/index.h"
#include "ops/out.h"
#include "ops/shape.h"
#include "ops/sort.h"
#include "python/bind.h"

namespace mt {

// arg_errors.cpp: a call of fn with out= goes to `overload` (the same catch-all, alone) straight
// (every_signature: PyTorch's every signature of fn takes out=, as the elementwise ops' do)
void register_out_overload(py::handle fn, py::object overload, bool every_signature);
// arg_errors.cpp: the next call's TypeError counts an out= this overload took from it
void note_out_taken(bool taken);

namespace {

// How the result's dtype must relate to out's: castable (the result can be cast, as TensorIterator ops),
// exact (GEMMs and the tuple results of max/sort/topk...), castable with cat's message, or exact with
// index_select's ("self and result must have the same scalar type").
enum class OutRule { castable, exact, cat, same_type };
// Whether the op's plain call writes straight into out (ops/out.h), as which entry of the elementwise table.
enum class Direct { none, unary, binary };

struct OutOp {
  const char* name;
  OutRule rule;
  Direct direct = Direct::none;
  int op = 0;                                             // UnaryOp or BinaryOp
  ElementwiseKeyword keyword = ElementwiseKeyword::none;  // add/sub's alpha, div's rounding_mode
};

// the elementwise spellings come from csrc/ops/ops.schema; a row whose `on` is false has no out= there
struct ElementwiseOut {
  OutOp op;
  bool on;
};
#define MT_OUT_UNARY(name, op, keyword, alpha_first, method, inplace, out, torch_inplace) \
  {{name, OutRule::castable, Direct::unary, static_cast<int>(UnaryOp::op), keyword}, out},
#define MT_OUT_BINARY(name, op, keyword, alpha_first, method, inplace, out, torch_inplace) \
  {{name, OutRule::castable, Direct::binary, static_cast<int>(BinaryOp::op), keyword}, out},
constexpr ElementwiseOut kElementwiseOut[] = {MT_BINARY_SPELLINGS(MT_OUT_BINARY)
                                                  MT_UNARY_SPELLINGS(MT_OUT_UNARY)};
#undef MT_OUT_BINARY
#undef MT_OUT_UNARY

// the schema's funcs with out=, the `binding: own` rows' included (the joins, the reductions)
#define MT_OUT_FUNC(name, rule) {name, OutRule::rule},
constexpr OutOp kFuncOut[] = {MT_FUNC_OUT(MT_OUT_FUNC)};
#undef MT_OUT_FUNC

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

void warn_resized(IntArrayRef from, IntArrayRef to_shape) {
  std::string msg = "An output with one or more elements was resized since it had shape " + shape_str(from) +
                    ", which does not match the required output shape " + shape_str(to_shape) +
                    ". This behavior is deprecated, and in a future PyTorch release outputs will not be "
                    "resized unless they have zero elements. You can explicitly reuse an out tensor t by "
                    "resizing it, inplace, to zero elements with t.resize_(0).";
  warn(msg);
}

void check_no_grad(const char* shown, bool requires_grad) {
  MT_CHECK(!autograd::GradMode::is_enabled() || !requires_grad, shown,
           "(): functions with out=... arguments don't support automatic differentiation, but one of the "
           "arguments requires grad.");
}

// The device check, resize (warning when out had elements, unless warn is false) and copy every out= ends in.
void place_result(const Tensor& out, const Tensor& result, bool warn) {
  MT_CHECK(out.device() == result.device(),
           "Expected all tensors to be on the same device, but found at least two ", "devices, ",
           result.device().str(), " and ", out.device().str(), "!");
  DimVector old_shape = out.sizes();
  if (resize_out(out, result.sizes()) && warn) warn_resized(old_shape, result.sizes());
  nogil([&] { copy_(out, result); }, out);
}

void write_one(const char* name, OutRule rule, const Tensor& out, const Tensor& result) {
  ScalarType from = result.dtype(), to_dt = out.dtype();
  if (rule == OutRule::exact)
    MT_CHECK(from == to_dt, "Expected out tensor to have dtype ", cpp_type_name(from), ", but got ",
             cpp_type_name(to_dt), " instead");
  else if (rule == OutRule::same_type)
    MT_CHECK(from == to_dt, name, "(): self and result must have the same scalar type");
  else if (rule == OutRule::cat)
    MT_CHECK_TYPE(can_cast(from, to_dt), "torch.", name,
                  "(): input types can't be cast to the desired output type ", dtype_short_name(to_dt));
  else
    MT_CHECK(can_cast(from, to_dt), "result type ", dtype_short_name(from),
             " can't be cast to the desired output type ", dtype_short_name(to_dt));
  place_result(out, result, true);
}

// torch.<op>(tensor[, tensor or number], out=tensor), with add/sub's alpha and div's rounding_mode, of an op
// whose entry says Direct: computed straight into out (ops/out.h). Any other form (keywords for the inputs, a
// number first, a bad out, autocast on) returns false and takes the general path with its conversions and
// errors.
bool try_direct(const OutOp& op, const py::args& args, const py::kwargs& kwargs) {
  if (op.direct == Direct::none || autocast::active()) return false;
  const size_t nargs = op.direct == Direct::binary ? 2 : 1;
  if (args.size() != nargs || !py::isinstance<TensorImpl>(args[0])) return false;
  if (nargs == 2 && !py::isinstance<TensorImpl>(args[1]) && !is_python_scalar(args[1])) return false;
  auto bop = static_cast<BinaryOp>(op.op);
  py::handle out_h, alpha;
  for (auto kv : kwargs) {
    const std::string key = py::str(kv.first);
    if (key == "out") {
      out_h = kv.second;
    } else if (key == "alpha" && op.keyword == ElementwiseKeyword::alpha) {
      alpha = kv.second;
    } else if (key == "rounding_mode" && op.keyword == ElementwiseKeyword::rounding_mode) {
      if (kv.second.is_none()) continue;
      if (!py::isinstance<py::str>(kv.second)) return false;
      const std::string mode = py::str(kv.second);
      if (mode == "trunc")
        bop = BinaryOp::trunc_divide;
      else if (mode == "floor")
        bop = BinaryOp::floor_divide;
      else
        return false;  // div's own message
    } else {
      return false;
    }
  }
  if (!py::isinstance<TensorImpl>(out_h)) return false;
  Tensor out = out_h.cast<Tensor>(), x = args[0].cast<Tensor>();
  Tensor y = nargs == 2 ? to_operand(args[1]) : Tensor();
  check_no_grad(op.name, x.requires_grad() || (y.defined() && y.requires_grad()) || out.requires_grad());
  const DimVector old_shape = out.sizes();
  bool resized;
  if (op.direct == Direct::unary) {
    resized = nogil([&] { return unary_out(static_cast<UnaryOp>(op.op), x, out); }, x);
  } else {
    if (alpha) y = scale_by_alpha(x, y, parse_scalar(alpha, "alpha"));
    resized = nogil([&] { return binary_out(bop, x, y, out); }, x, y);
  }
  if (resized) warn_resized(old_shape, out.sizes());
  return true;
}

// A plain minitorch.Tensor that requires no grad: a subclass (a Parameter, vmap's or forward AD's wrappers, a
// user's __torch_function__ type) and a graph keep the general path, with its dispatch and refusals.
bool plain_tensor(py::handle h) {
  static PyTypeObject* const type = reinterpret_cast<PyTypeObject*>(py::type::of<TensorImpl>().ptr());
  return Py_TYPE(h.ptr()) == type && !h.cast<Tensor>().requires_grad();
}

bool plain_int(py::handle h) {
  if (!PyLong_CheckExact(h.ptr())) return false;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  return overflow == 0;
}

// A list or tuple of plain tensors, as a vector; false when any is not one.
bool plain_tensors(py::handle h, std::vector<Tensor>& ts) {
  if (!PyList_CheckExact(h.ptr()) && !PyTuple_CheckExact(h.ptr())) return false;
  for (py::handle e : h) {
    if (!plain_tensor(e)) return false;
    ts.push_back(e.cast<Tensor>());
  }
  return !ts.empty();
}

// torch.index_select / gather / tril / triu / cat / concat / stack with out= an out of the result's shape and
// dtype (ops/out.h's out_takes): the kernel writes into out, no temporary and copy (index_select of 16 rows
// of 16001 float32 into out: R 0.33 against PyTorch before). The positional form only, plain tensors, no
// autocast; the op's own checks run first, so its errors are the general path's. false: the general path.
bool try_direct_func(const OutOp& op, const py::args& args, const py::kwargs& kwargs) {
  if (kwargs.size() != 1 || autocast::active()) return false;
  py::handle out_h = kwargs["out"];
  if (!plain_tensor(out_h)) return false;
  const Tensor out = out_h.cast<Tensor>();
  const std::string name = op.name;
  const size_t n = args.size();
  auto tensor_at = [&](size_t i) { return plain_tensor(args[i]); };
  if (name == "index_select" || name == "gather") {
    if (n != 3 || !tensor_at(0) || !plain_int(args[1]) || !tensor_at(2)) return false;
    const Tensor self = args[0].cast<Tensor>(), index = args[2].cast<Tensor>();
    const int64_t dim = args[1].cast<int64_t>();
    return nogil(
        [&] {
          return name == "gather" ? gather_into(out, self, dim, index)
                                  : index_select_into(out, self, dim, index);
        },
        self);
  }
  if (name == "tril" || name == "triu") {
    if (n < 1 || n > 2 || !tensor_at(0) || (n == 2 && !plain_int(args[1]))) return false;
    const Tensor self = args[0].cast<Tensor>();
    const int64_t diagonal = n == 2 ? args[1].cast<int64_t>() : 0;
    return nogil([&] { return triangle_into(out, self, diagonal, name == "tril"); }, self);
  }
  if (name == "cat" || name == "concat" || name == "stack") {
    std::vector<Tensor> ts;
    if (n < 1 || n > 2 || (n == 2 && !plain_int(args[1])) || !plain_tensors(args[0], ts)) return false;
    const int64_t dim = n == 2 ? args[1].cast<int64_t>() : 0;
    return nogil([&] { return name == "stack" ? stack_into(out, ts, dim) : cat_into(out, ts, dim); }, ts[0]);
  }
  return false;
}

py::object call_with_out(const OutOp& op, const py::object& fn, const py::args& args,
                         const py::kwargs& kwargs) {
  // No out=: a call the op's own overloads did not take in pybind11's first (no-conversion) pass. Throwing
  // reference_cast_error tells pybind11 to try the next overload, so conversions and errors stay theirs.
  if (!kwargs.contains("out")) throw py::reference_cast_error();
  // PyTorch's sum over every element (sum(x, *, dtype)) is its one signature without out= (mean's has it)
  if (std::strcmp(op.name, "sum") == 0 && args.size() + kwargs.size() < 3 && !kwargs.contains("dim"))
    throw py::type_error(format_invalid_args("sum", args, kwargs,
                                             {"(Tensor input, *, torch.dtype dtype = None)",
                                              "(Tensor input, tuple of ints dim, bool keepdim = False, *, "
                                              "torch.dtype dtype = None, Tensor out = None)"}));
  if (try_direct(op, args, kwargs) || try_direct_func(op, args, kwargs)) return kwargs["out"];
  py::dict kw = kwargs.attr("copy")();
  py::object out = kw.attr("pop")("out");
  // fn(*args, **{}) would hand pybind11 an empty tuple of keyword names, for which it looks up each named
  // parameter among them (an interned string made per parameter, ~750 instructions each)
  auto call = [&] { return kw.empty() ? fn(*args) : fn(*args, **kw); };
  if (out.is_none()) return call();
  const char* shown = op.name[0] == '_' ? op.name + 1 : op.name;
  // PyTorch's take_along_dim writes out= through gather's out= (the check's words name gather)
  check_no_grad(std::strcmp(shown, "take_along_dim") == 0 ? "gather" : shown,
                any_requires_grad(args) || any_requires_grad(kw) || any_requires_grad(out));
  auto call_counting_out = [&] {
    note_out_taken(true);
    try {
      py::object r = call();
      note_out_taken(false);
      return r;
    } catch (...) {
      note_out_taken(false);
      throw;
    }
  };
  // a unary op's keyword form (round's decimals): its out's dtype is checked before the kernel runs
  if (op.direct == Direct::unary && args.size() == 1 && py::isinstance<TensorImpl>(args[0]) &&
      py::isinstance<TensorImpl>(out))
    check_unary_out_dtype(static_cast<UnaryOp>(op.op), args[0].cast<Tensor>().dtype(),
                          out.cast<Tensor>().dtype());
  py::object result = call_counting_out();
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

Tensor resize_out_tensor(const Tensor& out, const Tensor& result) {
  place_result(out, result, false);
  return out;
}

void add_out_overload(py::module_& m, const OutOp& op) {
  MT_INTERNAL_ASSERT(py::hasattr(m, op.name), "out= listed for a function that is not bound: ", op.name);
  py::object fn = m.attr(op.name);
  // m.def appends to the function's overloads (pybind11 chains to the existing one as a sibling)
  auto overload = [&op, fn](py::args args, py::kwargs kwargs) { return call_with_out(op, fn, args, kwargs); };
  m.def(op.name, overload);
  // mean's signatures all take out=, so PyTorch's parser counts it in each one's size ("invalid combination")
  register_out_overload(m.attr(op.name), py::cpp_function(overload, py::name(op.name)),
                        op.direct != Direct::none || std::strcmp(op.name, "mean") == 0);
}

void init_out(py::module_& m) {
  for (const ElementwiseOut& e : kElementwiseOut)
    if (e.on) add_out_overload(m, e.op);
  for (const OutOp& op : kFuncOut) add_out_overload(m, op);
  // place_result for the out= of the functions written in Python (python/minitorch/_out.py words their dtype
  // checks, which differ op by op in PyTorch). Factories resize without the warning.
  m.def(
      "_write_out",
      [](const Tensor& out, const Tensor& result, bool warn_resize) {
        place_result(out, result, warn_resize);
        return out;
      },
      py::arg("out"), py::arg("result"), py::arg("warn_resize"));
}

}  // namespace mt
