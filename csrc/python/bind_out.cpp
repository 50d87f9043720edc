// The out= keyword of the functions PyTorch gives one: each listed function gets one more overload, tried
// after its own, that writes the result into `out` (resized if needed, PyTorch's checks and messages). The
// elementwise table's plain calls go straight to ops/out.h, which writes into `out` through the TensorIter;
// everything else runs the op as usual and copies its result in. Calls without out= never reach it, so they
// cost what they did before.
#include <cstring>
#include <string>
#include <vector>

#include "core/Allocator.h"
#include "core/GradMode.h"
#include "core/TypeMeta.h"
#include "generated/bindings.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/index.h"
#include "ops/linalg.h"
#include "ops/out.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/sort.h"
#include "python/bind.h"
#include "python/bind_products.h"

namespace mt {

// arg_errors.cpp: a call of fn with out= goes to `overload` (the same catch-all, alone) straight
// (every_signature: PyTorch's every signature of fn takes out=, as the elementwise ops' do); `fast(ctx, ...)`
// is tried first on the call's own vector of arguments (a new reference, or null without an error: not taken)
using OutFast = PyObject* (*)(const void* ctx, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
void register_out_overload(py::handle fn, py::object overload, bool every_signature, OutFast fast,
                           const void* ctx);
// arg_errors.cpp: the next call's TypeError counts an out= this overload took from it
void note_out_taken(bool taken);
// bind_reduce.cpp: minitorch.return_types.<name>
py::object return_type(const char* name);

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

// One call's arguments as CPython's vectorcall holds them: the positionals, then the keywords' values in
// kwnames' order. The direct writes read them in place from arg_errors.cpp's dispatch (out_fast: no args
// tuple and kwargs dict, which pybind11's catch-all overload builds at about 0.45 us a call), and from
// call_with_out through a copy of that overload's tuple and dict.
struct CallArgs {
  PyObject* const* v = nullptr;
  size_t n = 0;
  PyObject* kwnames = nullptr;  // a tuple of str, or null

  size_t size() const { return n; }
  py::handle operator[](size_t i) const { return v[i]; }
  size_t nkw() const { return kwnames ? static_cast<size_t>(PyTuple_GET_SIZE(kwnames)) : 0; }
  PyObject* key(size_t k) const { return PyTuple_GET_ITEM(kwnames, static_cast<Py_ssize_t>(k)); }
  py::handle value(size_t k) const { return v[n + k]; }
  // the keyword's value, or a null handle
  py::handle kw(const char* name) const {
    for (size_t k = 0; k < nkw(); ++k)
      if (PyUnicode_CompareWithASCIIString(key(k), name) == 0) return value(k);
    return {};
  }
};

bool key_is(PyObject* key, const char* s) {
  return PyUnicode_CompareWithASCIIString(key, s) == 0;
}

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

// The ops whose kernels refuse out's dtype in their own words in PyTorch (its take_out, the amax/amin meta
// functions' exact check, mv's through addmv, logsumexp_out's floating check), checked before the schema's
// rule.
void check_own_out_dtype(const char* name, const Tensor& out, const Tensor& result) {
  const ScalarType from = result.dtype(), to_dt = out.dtype();
  if (from == to_dt) return;
  if (std::strcmp(name, "take") == 0)
    MT_ERROR("take(): self and out expected to have the same dtype, but got self.dtype = ",
             dtype_short_name(from), " and out.dtype = ", dtype_short_name(to_dt));
  if (std::strcmp(name, "amax") == 0 || std::strcmp(name, "amin") == 0)
    MT_ERROR("Expected the dtype for input and out to match, but got ", dtype_short_name(from),
             " for input's dtype and ", dtype_short_name(to_dt), " for out's dtype.");
  // mv_out is addmv_out(out, out, self, vec) where out has the result's size (its three dtypes, out's first;
  // self's and vec's are the result's once the product ran), else over a fresh addend (the exact rule's
  // words)
  if (std::strcmp(name, "mv") == 0 && out.dim() <= 1 && out.numel() == result.numel())
    MT_ERROR("addmv input tensors must have the same dtype, but got ", dtype_short_name(to_dt), ", ",
             dtype_short_name(from), ", and ", dtype_short_name(from));
  if (std::strcmp(name, "logsumexp") == 0)
    MT_CHECK(
        is_floating(to_dt) || is_complex(to_dt),
        "logsumexp(): Expected floating point type for result tensor, but got: ", dtype_short_name(to_dt));
}

void write_one(const char* name, OutRule rule, const Tensor& out, const Tensor& result) {
  ScalarType from = result.dtype(), to_dt = out.dtype();
  check_own_out_dtype(name, out, result);
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
bool try_direct(const OutOp& op, const CallArgs& args) {
  if (op.direct == Direct::none || autocast::active()) return false;
  const size_t nargs = op.direct == Direct::binary ? 2 : 1;
  if (args.size() != nargs || !py::isinstance<TensorImpl>(args[0])) return false;
  if (nargs == 2 && !py::isinstance<TensorImpl>(args[1]) && !is_python_scalar(args[1])) return false;
  auto bop = static_cast<BinaryOp>(op.op);
  py::handle out_h, alpha;
  for (size_t k = 0; k < args.nkw(); ++k) {
    PyObject* key = args.key(k);
    const py::handle value = args.value(k);
    if (key_is(key, "out")) {
      out_h = value;
    } else if (op.keyword == ElementwiseKeyword::alpha && key_is(key, "alpha")) {
      alpha = value;
    } else if (op.keyword == ElementwiseKeyword::rounding_mode && key_is(key, "rounding_mode")) {
      if (value.is_none()) continue;
      if (!py::isinstance<py::str>(value)) return false;
      const std::string mode = py::str(value);
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
bool try_direct_func(const OutOp& op, const CallArgs& args) {
  if (args.nkw() != 1 || autocast::active()) return false;
  py::handle out_h = args.kw("out");
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

// ---- out= of clamp/clip, lerp, take and the reductions along dims (sum, mean, prod, amax, amin, logsumexp)

// clamp/clip's bound as its two overloads read it: None, a tensor (Tensor?), a Python number (Scalar?)
enum class Bound { none, tensor, number };

bool read_bound(py::handle h, Bound& kind, std::optional<Tensor>& t) {
  if (h.is_none()) {
    kind = Bound::none;
    return true;
  }
  if (plain_tensor(h)) {
    kind = Bound::tensor;
    t = h.cast<Tensor>();
    return true;
  }
  if (!PyFloat_CheckExact(h.ptr()) && !plain_int(h)) return false;  // bool, complex, NumPy: general path
  kind = Bound::number;
  t = to_operand(h);
  return true;
}

// A reduction's dim: an int or a non-empty list/tuple of ints (dim=None, every dim, keeps the general path).
bool read_dims(py::handle h, DimVector& dims) {
  if (plain_int(h)) {
    dims.push_back(h.cast<int64_t>());
    return true;
  }
  if (!PyList_CheckExact(h.ptr()) && !PyTuple_CheckExact(h.ptr())) return false;
  for (py::handle e : h) {
    if (!plain_int(e)) return false;
    dims.push_back(e.cast<int64_t>());
  }
  return !dims.empty();
}

// The positional arguments after the first `n` and the keywords `names` (out= aside), in `slots` by position;
// false for a keyword not in names, one given twice, or more positionals than names.
bool read_args(const CallArgs& args, size_t n, std::initializer_list<const char*> names,
               std::vector<py::handle>& slots) {
  if (args.size() < n || args.size() > n + names.size()) return false;
  slots.assign(names.size(), py::handle());
  for (size_t i = n; i < args.size(); ++i) slots[i - n] = args[i];
  for (size_t k = 0; k < args.nkw(); ++k) {
    PyObject* key = args.key(k);
    if (key_is(key, "out")) continue;
    size_t i = 0;
    for (const char* name : names) {
      if (key_is(key, name)) break;
      ++i;
    }
    if (i == names.size() || slots[i]) return false;
    slots[i] = args.value(k);
  }
  return true;
}

// A plain Python int or float (not a bool, a complex, a NumPy number or a tensor): addmm's beta and alpha,
// var's correction, as the direct paths take them.
bool plain_number(py::handle h, Scalar& s) {
  if (PyFloat_CheckExact(h.ptr())) {
    s = Scalar(PyFloat_AS_DOUBLE(h.ptr()));
    return true;
  }
  if (!plain_int(h)) return false;
  s = Scalar(int64_t(PyLong_AsLongLong(h.ptr())));
  return true;
}

// torch.clamp/clip/clamp_min/clamp_max (number or tensor bounds), lerp (number or tensor weight), take, and
// sum / mean / prod / amax / amin / logsumexp over dims with out=: the op's checks and kernel in one call,
// its result written straight into out when the op's *_into front end finds out_takes it (the result's shape
// and dtype, no memory of an input's), else the general path's dtype check, resize (with its warning) and
// copy of that one result. Plain tensors that require no grad, no autocast, the forms below; anything else
// returns false and takes the general path with its parser, conversions and errors.
bool try_direct_result(const OutOp& op, const CallArgs& args) {
  if (autocast::active() || args.size() == 0 || !plain_tensor(args[0])) return false;
  py::handle out_h = args.kw("out");
  if (!out_h || !plain_tensor(out_h)) return false;
  const Tensor out = out_h.cast<Tensor>(), self = args[0].cast<Tensor>();
  const std::string name = op.name;
  std::vector<py::handle> a;
  Tensor r;
  if (name == "clamp" || name == "clip" || name == "clamp_min" || name == "clamp_max") {
    if (name == "clamp_min" || name == "clamp_max") {  // (input, bound): the other bound is None
      if (args.size() != 2 || args.nkw() != 1) return false;
      a.assign(2, py::handle());
      a[name == "clamp_max"] = args[1];
    } else if (!read_args(args, 1, {"min", "max"}, a)) {
      return false;
    }
    Bound kind[2] = {Bound::none, Bound::none};
    std::optional<Tensor> bound[2];
    for (int i = 0; i < 2; ++i)
      if (a[i] && !read_bound(a[i], kind[i], bound[i])) return false;
    // both None is clamp's own error; a tensor beside a number, PyTorch's overload choice
    if ((kind[0] == Bound::none && kind[1] == Bound::none) ||
        (kind[0] != Bound::none && kind[1] != Bound::none && kind[0] != kind[1]))
      return false;
    r = nogil([&] { return clamp_into(out, self, bound[0], bound[1]); }, self);
  } else if (name == "lerp") {
    if (args.size() != 3 || args.nkw() != 1 || !plain_tensor(args[1])) return false;
    py::handle w = args[2];
    if (!plain_tensor(w) && !PyFloat_CheckExact(w.ptr()) && !plain_int(w)) return false;
    const Tensor end = args[1].cast<Tensor>(), weight = to_operand(w, "weight");
    r = nogil([&] { return lerp_into(out, self, end, weight); }, self);
  } else if (name == "take") {
    if (args.size() != 2 || args.nkw() != 1 || !plain_tensor(args[1])) return false;
    const Tensor index = args[1].cast<Tensor>();
    r = nogil([&] { return take_into(out, self, index); }, self);
  } else if (name == "var" || name == "std") {
    // PyTorch's (dim, unbiased, keepdim) and (dim, *, correction, keepdim) with a dim: a floating input (a
    // complex or integer one, unbiased beside correction, a bool correction: the general path's parser)
    DimVector dims;
    if (!is_floating(self.dtype()) || args.size() > 4 ||
        !read_args(args, 1, {"dim", "unbiased", "keepdim", "correction"}, a) || !a[0] ||
        !read_dims(a[0], dims) || (a[1] && (a[3] || !PyBool_Check(a[1].ptr()))) ||
        (a[2] && !PyBool_Check(a[2].ptr())))
      return false;
    Scalar c(int64_t(1));
    if (a[3] && !plain_number(a[3], c)) return false;
    const double correction = a[1] ? (a[1].ptr() == Py_True ? 1.0 : 0.0) : c.to<double>();
    const bool keepdim = a[2] && a[2].ptr() == Py_True;
    const ReduceOp rop = name == "var" ? ReduceOp::var : ReduceOp::std;
    r = nogil([&] { return reduce_into(out, rop, self, dims, keepdim, correction); }, self);
  } else {
    static const std::pair<const char*, ReduceOp> reductions[] = {
        {"sum", ReduceOp::sum},   {"mean", ReduceOp::mean}, {"prod", ReduceOp::prod},
        {"amax", ReduceOp::amax}, {"amin", ReduceOp::amin}, {"logsumexp", ReduceOp::logsumexp}};
    const ReduceOp* rop = nullptr;
    for (const auto& [n, o] : reductions)
      if (name == n) rop = &o;
    DimVector dims;
    if (!rop || !read_args(args, 1, {"dim", "keepdim"}, a) || !a[0] || !read_dims(a[0], dims) ||
        (a[1] && !PyBool_Check(a[1].ptr())))
      return false;
    // prod's dim is one int (a list is its parser's TypeError); sum/prod/mean into another dtype than their
    // own reduce in out's (dtype_reduction_out)
    if (*rop == ReduceOp::prod && !plain_int(a[0])) return false;
    if ((*rop == ReduceOp::sum || *rop == ReduceOp::prod || *rop == ReduceOp::mean) &&
        out.dtype() != (*rop == ReduceOp::mean || is_inexact(self.dtype()) ? self.dtype() : ScalarType::Long))
      return false;
    const bool keepdim = a[1] && a[1].ptr() == Py_True;
    r = nogil([&] { return reduce_into(out, *rop, self, dims, keepdim); }, self);
  }
  if (!r.is_same(out)) write_one(op.name, op.rule, out, r);
  return true;
}

// torch.mm / bmm / mv / dot / matmul / addmm / addmv / outer / ger with out= an out the product fits
// (ops/linalg.h's *_into: the GEMM writes into out, no temporary and copy: mm of 16x16 float32 R 0.44 against
// PyTorch before). Positional tensors (addmm's and addmv's beta and alpha as keywords), plain tensors, no
// autocast; false leaves the call to the general path, whose checks and errors then run.
bool try_direct_gemm(const OutOp& op, const CallArgs& args) {
  if (autocast::active()) return false;
  const std::string name = op.name;
  const bool scaled = name == "addmm" || name == "addmv";
  const size_t n = args.size();
  if (n != (scaled ? 3u : 2u)) return false;
  for (size_t i = 0; i < n; ++i)
    if (!plain_tensor(args[i])) return false;
  py::handle out_h;
  Scalar beta(int64_t(1)), alpha(int64_t(1));
  for (size_t k = 0; k < args.nkw(); ++k) {
    PyObject* key = args.key(k);
    if (key_is(key, "out"))
      out_h = args.value(k);
    else if (!scaled || !(key_is(key, "beta") || key_is(key, "alpha")) ||
             !plain_number(args.value(k), key_is(key, "beta") ? beta : alpha))
      return false;
  }
  if (!plain_tensor(out_h)) return false;
  const Tensor out = out_h.cast<Tensor>(), a = args[0].cast<Tensor>(), b = args[1].cast<Tensor>();
  if (name == "outer" || name == "ger") {
    // a broadcast multiply (ops/linalg.cpp's outer), written by binary_out's TensorIter: only an out of the
    // promoted dtype and shape goes this way (another dtype out may take is the general path's cast)
    if (a.dim() != 1 || b.dim() != 1 || out.dim() != 2 || out.sizes()[0] != a.sizes()[0] ||
        out.sizes()[1] != b.sizes()[0] || out.dtype() != promote_types(a.dtype(), b.dtype()))
      return false;
    nogil([&] { binary_out(BinaryOp::mul, mt::unsqueeze(a, 1), b, out); }, a, b);
    return true;
  }
  auto run = [&](auto&& f) { return nogil_if(big_product(a, b), f); };
  if (name == "mm") return run([&] { return mm_into(out, a, b); });
  if (name == "bmm") return run([&] { return bmm_into(out, a, b); });
  if (name == "mv") return run([&] { return mv_into(out, a, b); });
  if (name == "dot") return run([&] { return dot_into(out, a, b); });
  if (name == "matmul") return run([&] { return matmul_into(out, a, b); });
  if (scaled) {
    const Tensor m2 = args[2].cast<Tensor>();
    return nogil_if(big_product(b, m2), [&] {
      return name == "addmm" ? addmm_into(out, a, b, m2, beta, alpha)
                             : addmv_into(out, a, b, m2, beta, alpha);
    });
  }
  return false;
}

// torch.topk(x, k[, dim, largest, sorted], out=(values, indices)) along x's last dim with outs of the
// result's shape and dtypes (ops/sort.h's topk_into: the sort kernel writes into them; 64 rows of 100
// float32, k = 5: R 0.64 against PyTorch before). Its named tuple over the outs, or a null object: the
// general path.
py::object try_direct_topk(const OutOp& op, const CallArgs& args) {
  if (std::strcmp(op.name, "topk") != 0 || autocast::active()) return {};
  // dim, largest, sorted: by position or keyword, never both
  std::vector<py::handle> given;
  if (args.size() < 2 || !plain_tensor(args[0]) || !plain_int(args[1]) ||
      !read_args(args, 2, {"dim", "largest", "sorted"}, given))
    return {};
  py::handle out_h = args.kw("out");
  if (given[0] && !plain_int(given[0])) return {};
  for (int i = 1; i < 3; ++i)
    if (given[i] && !PyBool_Check(given[i].ptr())) return {};
  if (!out_h || !(PyTuple_CheckExact(out_h.ptr()) || PyList_CheckExact(out_h.ptr())) || py::len(out_h) != 2)
    return {};
  py::handle v_h = out_h[py::int_(0)], i_h = out_h[py::int_(1)];
  if (!plain_tensor(v_h) || !plain_tensor(i_h)) return {};
  const Tensor self = args[0].cast<Tensor>(), values = v_h.cast<Tensor>(), indices = i_h.cast<Tensor>();
  const int64_t k = args[1].cast<int64_t>(), dim = given[0] ? given[0].cast<int64_t>() : -1;
  const bool largest = !given[1] || given[1].ptr() == Py_True,
             sorted = !given[2] || given[2].ptr() == Py_True;
  if (!nogil([&] { return topk_into(values, indices, self, k, dim, largest, sorted); }, self)) return {};
  return return_type("topk")(v_h, i_h);
}

// Which direct write reads a call of the op: each reads its own ops (by name), so a call tries only its
// own, found once per op (trying them in turn cost mv's out= about 0.1 us of reductions' argument reading).
enum class Writer : uint8_t { elementwise, func, result, gemm, topk, none };

Writer writer_of(const OutOp& op) {
  if (op.direct != Direct::none) return Writer::elementwise;
  static const std::pair<const char*, Writer> by_name[] = {
      {"index_select", Writer::func}, {"gather", Writer::func},      {"tril", Writer::func},
      {"triu", Writer::func},         {"cat", Writer::func},         {"concat", Writer::func},
      {"stack", Writer::func},        {"clamp", Writer::result},     {"clip", Writer::result},
      {"clamp_min", Writer::result},  {"clamp_max", Writer::result}, {"lerp", Writer::result},
      {"take", Writer::result},       {"var", Writer::result},       {"std", Writer::result},
      {"sum", Writer::result},        {"mean", Writer::result},      {"prod", Writer::result},
      {"amax", Writer::result},       {"amin", Writer::result},      {"logsumexp", Writer::result},
      {"mm", Writer::gemm},           {"bmm", Writer::gemm},         {"mv", Writer::gemm},
      {"dot", Writer::gemm},          {"matmul", Writer::gemm},      {"addmm", Writer::gemm},
      {"addmv", Writer::gemm},        {"outer", Writer::gemm},       {"ger", Writer::gemm},
      {"topk", Writer::topk}};
  for (const auto& [name, w] : by_name)
    if (std::strcmp(op.name, name) == 0) return w;
  return Writer::none;
}

// The op's direct write: out (or topk's named tuple over its outs) when it took the call, else null.
py::object try_direct_all(const OutOp& op, Writer writer, const CallArgs& args) {
  // PyTorch's dot_out checks out's dtype against input's before anything else (the shapes, other's dtype)
  if (writer == Writer::gemm && std::strcmp(op.name, "dot") == 0 && args.size() > 0 && args.kw("out") &&
      py::isinstance<TensorImpl>(args[0]) && py::isinstance<TensorImpl>(args.kw("out"))) {
    const ScalarType self_dt = args[0].cast<Tensor>().dtype(), out_dt = args.kw("out").cast<Tensor>().dtype();
    MT_CHECK(out_dt == self_dt, "result dtype ", dtype_short_name(out_dt), " does not match input dtype ",
             dtype_short_name(self_dt));
  }
  bool taken = false;
  switch (writer) {
    case Writer::elementwise:
      taken = try_direct(op, args);
      break;
    case Writer::func:
      taken = try_direct_func(op, args);
      break;
    case Writer::result:
      taken = try_direct_result(op, args);
      break;
    case Writer::gemm:
      taken = try_direct_gemm(op, args);
      break;
    case Writer::topk:
      return try_direct_topk(op, args);
    case Writer::none:
      break;
  }
  return taken ? py::reinterpret_borrow<py::object>(args.kw("out")) : py::object();
}

// out_fast's context: the op and its writer, one per op for the process
struct OutFastCtx {
  const OutOp* op;
  Writer writer;
};

// arg_errors.cpp's dispatch calls this first for a call of op with out= (an interned "out" among its
// keywords), on the call's own arguments: a direct write's result, an error raised as pybind11 raises it, or
// null without an error, for the overload below (whose pybind11 entry costs about 0.45 us: the args tuple and
// kwargs dict) to take the call. sum's TypeError comes before any direct write there; none is taken here for
// the calls it refuses (no dim), so the order holds.
PyObject* out_fast(const void* ctx, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    const auto* c = static_cast<const OutFastCtx*>(ctx);
    return try_direct_all(*c->op, c->writer, CallArgs{args, static_cast<size_t>(nargs), kwnames})
        .release()
        .ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return nullptr;
}

// sum/prod/mean with out= as PyTorch's *_out: a dtype= must be out's (the structured kernels' exact check),
// else the reduction runs in out's dtype, the input cast to it first (sum([1.5, 2.5]) into int64 is 3, not
// 4; a float64 total into float32 rounds each element first). mean into an integer or bool out is sum_out
// into it, then the division in place that cannot write a float there (out keeps the sum, as PyTorch's);
// mean over every element first checks that the input casts to out. `call` runs fn(*args, **kw) with the
// dtype= this sets. A null object: the general path takes the call.
template <typename Call>
py::object dtype_reduction_out(const char* name, const py::args& args, py::dict& kw,
                               const py::object& out_obj, Call&& call) {
  const Tensor out = out_obj.cast<Tensor>();
  const bool is_mean = std::strcmp(name, "mean") == 0;
  const bool given = kw.contains("dtype") && !kw["dtype"].is_none();
  if (args.size() == 0 || !py::isinstance<TensorImpl>(args[0])) return {};
  const Tensor self = args[0].cast<Tensor>();
  const bool all = args.size() < 2 && !kw.contains("dim");
  if (is_mean && all)
    MT_CHECK(can_cast(self.dtype(), out.dtype()),
             "mean.dtype_out(): input types can't be cast to the desired output type ",
             dtype_short_name(out.dtype()));
  if (given) {
    py::object r = call();
    if (!py::isinstance<TensorImpl>(r)) return {};
    const Tensor t = r.cast<Tensor>();
    MT_CHECK(t.dtype() == out.dtype(), "Expected out tensor to have dtype ", cpp_type_name(t.dtype()),
             ", but got ", cpp_type_name(out.dtype()), " instead");
    place_result(out, t, true);
    return out_obj;
  }
  const bool inexact_out = is_inexact(out.dtype());
  if (is_mean) {
    // mean's own refusal of an integer or bool input comes first (its dtype check, out's dtype aside)
    MT_CHECK_NOT_IMPLEMENTED(
        is_inexact(self.dtype()),
        "mean(): could not infer output dtype. Input dtype must be either a floating point "
        "or complex dtype. Got: ",
        dtype_short_name(self.dtype()));
  }
  kw["dtype"] = py::cast(dtype_object(out.dtype()), py::return_value_policy::reference);
  py::object r;
  if (is_mean && !inexact_out) {
    // sum_out into out, then div_'s refusal: a true division of integers is the default float dtype
    py::object sum_fn = py::module_::import("minitorch").attr("sum");
    py::dict skw = kw;
    r = kw.empty() ? sum_fn(*args) : sum_fn(*args, **skw);
    place_result(out, r.cast<Tensor>(), true);
    MT_ERROR("result type ", dtype_short_name(default_dtype()), " can't be cast to the desired output type ",
             dtype_short_name(out.dtype()));
  }
  r = call();
  if (!py::isinstance<TensorImpl>(r)) return {};
  place_result(out, r.cast<Tensor>(), true);
  return out_obj;
}

py::object call_with_out(const OutOp& op, const py::object& fn, const py::args& args,
                         const py::kwargs& kwargs) {
  // No out=: a call the op's own overloads did not take in pybind11's first (no-conversion) pass. Throwing
  // reference_cast_error tells pybind11 to try the next overload, so conversions and errors stay theirs.
  if (!kwargs.contains("out")) throw py::reference_cast_error();
  // PyTorch's sum and prod over every element (sum(x, *, dtype)) are their one signatures without out=
  // (mean's has it): without a dim, its parser's error, the combination where that signature is plausible (at
  // most two arguments) else the other's missing dim
  const bool is_sum = std::strcmp(op.name, "sum") == 0;
  if ((is_sum || std::strcmp(op.name, "prod") == 0) && args.size() < 2 && !kwargs.contains("dim")) {
    if (args.size() + kwargs.size() >= 3)
      throw py::type_error(std::string(op.name) + "() missing 1 required positional arguments: \"dim\"");
    throw py::type_error(format_invalid_args(
        op.name, args, kwargs,
        {"(Tensor input, *, torch.dtype dtype = None)",
         std::string("(Tensor input, ") + (is_sum ? "tuple of ints" : "int") +
             " dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)"}));
  }
  {
    // (a call dispatch's out_fast did not take comes here too, and is tried again: a few checks' cost on the
    // general path)
    std::vector<PyObject*> items;
    for (py::handle a : args) items.push_back(a.ptr());
    py::tuple names(kwargs.size());
    size_t k = 0;
    for (auto kv : kwargs) {
      names[k++] = kv.first;
      items.push_back(kv.second.ptr());
    }
    if (py::object r = try_direct_all(op, writer_of(op), CallArgs{items.data(), args.size(), names.ptr()}))
      return r;
  }
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
    } catch (py::error_already_set& e) {
      note_out_taken(false);
      // PyTorch's parser checks out (its signature's last parameter) before it looks for unknown keywords
      if (e.matches(PyExc_TypeError) && !py::isinstance<TensorImpl>(out) && !py::isinstance<py::tuple>(out) &&
          !py::isinstance<py::list>(out) &&
          std::string(py::str(e.value())).find("() got an unexpected keyword argument '") !=
              std::string::npos)
        MT_CHECK_TYPE(false, shown, "(): argument 'out' must be Tensor, not ", type_name(out));
      throw;
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
  if (py::isinstance<TensorImpl>(out) &&
      (std::strcmp(op.name, "sum") == 0 || std::strcmp(op.name, "prod") == 0 ||
       std::strcmp(op.name, "mean") == 0)) {
    if (py::object r = dtype_reduction_out(op.name, args, kw, out, call_counting_out)) return r;
  }
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
                        op.direct != Direct::none || std::strcmp(op.name, "mean") == 0, &out_fast,
                        new OutFastCtx{&op, writer_of(op)});  // (held for the process, as the op is)
}

void init_out(py::module_& m) {
  for (const ElementwiseOut& e : kElementwiseOut)
    if (e.on) add_out_overload(m, e.op);
  for (const OutOp& op : kFuncOut) add_out_overload(m, op);
  // baddbmm (python/minitorch/_composite_math.py) with out=: True when the GEMM wrote out directly
  // (ops/linalg.h's baddbmm_into, try_direct_gemm's conditions); False: the composite computes and writes as
  // before.
  m.def("_scaled_gemm_out", [](py::handle out_h, py::handle self_h, py::handle a_h, py::handle b_h,
                               py::handle beta_h, py::handle alpha_h) {
    Scalar beta, alpha;
    if (autocast::active() || !plain_tensor(out_h) || !plain_tensor(self_h) || !plain_tensor(a_h) ||
        !plain_tensor(b_h) || !plain_number(beta_h, beta) || !plain_number(alpha_h, alpha))
      return false;
    const Tensor out = out_h.cast<Tensor>(), self = self_h.cast<Tensor>(), a = a_h.cast<Tensor>(),
                 b = b_h.cast<Tensor>();
    return nogil_if(big_product(a, b), [&] { return baddbmm_into(out, self, a, b, beta, alpha); });
  });
  // the scales PyTorch's integer and bool GEMM kernels read, for baddbmm / addbmm (_composite_math.py's
  // _integral_scales): ops/linalg.h's integral_gemm_scales, the rule addmm and addmv follow in C++
  m.def("_gemm_scales", [](py::handle dtype, py::handle beta, py::handle alpha, bool beta_used,
                           bool alpha_used, bool scales_self_first) {
    const GemmScales s = integral_gemm_scales(parse_dtype(dtype), parse_scalar(beta), parse_scalar(alpha),
                                              beta_used, alpha_used, scales_self_first);
    return py::make_tuple(scalar_to_py(s.beta), scalar_to_py(s.alpha));
  });
  // torch.cross / linalg.cross after their checks (python/minitorch/linalg's cross): the device's cross
  // kernel writes out when out_takes it (returned), else a fresh result for the caller's out= checks; None
  // where the composite runs instead (a device without the kernel; a tensor that requires grad or a subclass,
  // which autograd or __torch_function__ must see through the composite's ops)
  m.def("_linalg_cross", [](py::handle a_h, py::handle b_h, int64_t dim, py::handle out_h) -> py::object {
    if (!plain_tensor(a_h) || !plain_tensor(b_h)) return py::none();
    const Tensor a = a_h.cast<Tensor>(), b = b_h.cast<Tensor>();
    if (a.device() != b.device() || a.dtype() != b.dtype() || !has_cross_kernel(a)) return py::none();
    if (plain_tensor(out_h) &&
        nogil([&] { return linalg_cross_into(out_h.cast<Tensor>(), a, b, dim); }, a, b))
      return py::reinterpret_borrow<py::object>(out_h);
    return py::cast(nogil([&] { return linalg_cross(a, b, dim); }, a, b));
  });
  // place_result for the out= of the functions written in Python (python/minitorch/_out.py words their dtype
  // checks, which differ op by op in PyTorch). Factories resize without the warning.
  m.def(
      "_write_out",
      [](const Tensor& out, const Tensor& result, bool warn_resize) {
        place_result(out, result, warn_resize);
        return out;
      },
      py::arg("out"), py::arg("result"), py::arg("warn_resize"));
  // addcmul/addcdiv's out= (python/minitorch/_composite_math.py's _addc, after their checks): the fused
  // kernel writes into out when out_takes it, and None says so; else the fresh result, for write_out
  m.def(
      "_addc_out",
      [](const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, double value,
         bool div) -> py::object {
        Tensor r = nogil([&] { return addc_fused_into(out, self, t1, t2, value, div); }, self);
        return r.is_same(out) ? py::none() : py::cast(r);
      },
      py::arg("out"), py::arg("input"), py::arg("tensor1"), py::arg("tensor2"), py::arg("value"),
      py::arg("div"));
  // addcmul/addcdiv ahead of their Python front end's promotion and checks (_composite_math.py): input,
  // tensor1, tensor2 (and out, when given) plain tensors that require no grad, the operands of one floating
  // dtype and device, a plain int or float value (what _fused_addc takes, with nothing to promote). Without
  // out: the fused kernel's result (the front end's checks and calls cost 2.5 us, 0.6 of PyTorch's speed at
  // 8x8). With out: None, the fused kernel wrote out; a tensor, its fresh result, for write_out's checks and
  // resize. False: none of these hold, and the front end runs as before.
  m.def("_addc_direct",
        [](py::handle out_h, py::handle self_h, py::handle t1_h, py::handle t2_h, py::handle value_h,
           bool div) -> py::object {
          Scalar value;
          const bool no_out = out_h.is_none();
          if (!(no_out || plain_tensor(out_h)) || !plain_tensor(self_h) || !plain_tensor(t1_h) ||
              !plain_tensor(t2_h) || !plain_number(value_h, value))
            return py::bool_(false);
          const Tensor self = self_h.cast<Tensor>(), t1 = t1_h.cast<Tensor>(), t2 = t2_h.cast<Tensor>();
          if (!is_floating(self.dtype()) || t1.dtype() != self.dtype() || t2.dtype() != self.dtype() ||
              t1.device() != self.device() || t2.device() != self.device())
            return py::bool_(false);
          if (no_out)
            return py::cast(nogil([&] { return addc_fused(self, t1, t2, value.to<double>(), div); }, self));
          const Tensor out = out_h.cast<Tensor>();
          Tensor r = nogil([&] { return addc_fused_into(out, self, t1, t2, value.to<double>(), div); }, self);
          return r.is_same(out) ? py::none() : py::cast(r);
        });
  // nansum's out= (python/minitorch/functional.py, after its argument checks): computed in out's dtype as
  // PyTorch's nansum_out, the kernel writing into out when out_takes it (None says so); else the fresh
  // result, for _write_out's resize
  m.def(
      "_nansum_out",
      [](const Tensor& out, const Tensor& self, std::vector<int64_t> dims, bool keepdim) -> py::object {
        Tensor r = nogil([&] { return reduce_into(out, ReduceOp::nansum, self, dims, keepdim); }, self);
        return r.is_same(out) ? py::none() : py::cast(r);
      },
      py::arg("out"), py::arg("input"), py::arg("dim"), py::arg("keepdim"));
  // The out= tests' proof that a direct write makes no temporary: how many CPU blocks fn() allocates, counted
  // by a wrapper put in front of the CPU allocator for the call alone (the usual path pays nothing for it).
  // Leaked: storages made meanwhile free their memory through it.
  m.def("_count_cpu_allocations", [](const py::function& fn) {
    struct Counting : Allocator {
      Allocator* inner = nullptr;
      size_t n = 0;
      void* allocate(size_t nbytes, Device device) override {
        ++n;
        return inner->allocate(nbytes, device);
      }
      void deallocate(void* ptr, Device device) override { inner->deallocate(ptr, device); }
    };
    static Counting* const counting = new Counting();
    Allocator* prev = get_allocator(DeviceType::CPU);
    MT_CHECK(prev != counting, "_count_cpu_allocations: already counting");
    counting->inner = prev;
    counting->n = 0;
    set_allocator(DeviceType::CPU, counting);
    try {
      fn();
    } catch (...) {
      set_allocator(DeviceType::CPU, prev);
      throw;
    }
    set_allocator(DeviceType::CPU, prev);
    return counting->n;
  });
}

}  // namespace mt
