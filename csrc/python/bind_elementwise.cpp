// Elementwise bindings, generated from the op table: minitorch.<op>, Tensor.<op>, Tensor.<op>_ and the
// Python operators, each a form below that the schema's rows name (`operators:`, `keyword:`). Operators
// return NotImplemented for operands that are neither tensors nor numbers.
#include <set>
#include <string>

#include "autograd/record.h"
#include "generated/bindings.h"
#include "kernels/cpu/VecUnary.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "python/bind.h"
#include "python/bind_factory.h"

namespace mt {

namespace {

bool is_operand(py::handle h) {
  return py::isinstance<TensorImpl>(h) || is_python_scalar(h) || py::isinstance<py::array>(h) ||
         is_numpy_scalar(h);
}

// The op calls, with the GIL released for big operands (bind.h); operands are converted before.
Tensor un(UnaryOp op, const Tensor& x) {
  return nogil([&] { return unary(op, x); }, x);
}
void un_(UnaryOp op, const Tensor& x) {
  nogil([&] { unary_(op, x); }, x);
}
Tensor bin(BinaryOp op, const Tensor& x, const Tensor& y) {
  return nogil([&] { return binary(op, x, y); }, x, y);
}
void bin_(BinaryOp op, const Tensor& x, const Tensor& y) {
  nogil([&] { binary_(op, x, y); }, x, y);
}

// The operator forms (ops.schema's `operators:`), templates over the op so that `a + b` is one direct call.
// a (op) b with either side a Python number
template <BinaryOp OP>
py::object op_fwd(const Tensor& self, py::handle other) {
  if (!is_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return py::cast(bin(OP, self, to_operand(other)));
}
template <BinaryOp OP>
py::object op_rev(const Tensor& self, py::handle other) {
  if (!is_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return py::cast(bin(OP, to_operand(other), self));
}
// other / self is PyTorch's Tensor.__rdiv__, self.reciprocal() * other: rounded twice, as PyTorch's, so the
// bits agree (2.526 / a bfloat16 0.1937 is 13.02 there, not the once-rounded 13.06); 1 / x is the reciprocal
template <BinaryOp OP>
py::object op_reciprocal_mul(const Tensor& self, py::handle other) {
  static_assert(OP == BinaryOp::div, "reciprocal_mul is div's reverse form");
  if (!is_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  Tensor r = un(UnaryOp::reciprocal, self);
  const bool one = (PyLong_CheckExact(other.ptr()) || PyFloat_CheckExact(other.ptr())) &&
                   PyObject_RichCompareBool(other.ptr(), py::int_(1).ptr(), Py_EQ) == 1;
  return py::cast(one ? r : bin(BinaryOp::mul, r, to_operand(other)));
}
template <BinaryOp OP>
py::object op_inplace(py::object self, py::handle other) {
  if (!is_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  bin_(OP, self.cast<Tensor>(), to_operand(other));
  return self;
}
template <UnaryOp OP>
Tensor op_unary(const Tensor& x) {
  return unary(OP, x);
}
// ~x: logical_not on bool, refused on floating and complex
template <UnaryOp OP>
Tensor op_invert(const Tensor& x) {
  static_assert(OP == UnaryOp::bitwise_not, "invert is bitwise_not's form");
  MT_CHECK_TYPE(!is_floating(x.dtype()) && !is_complex(x.dtype()),
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
  return x.dtype() == ScalarType::Bool ? logical_not(x) : bitwise_not(x);
}
// the operators' Python names, for init_operator_fallbacks
#define MT_OPERATOR_NAME(name, op, form) name,
constexpr const char* kOperatorNames[] = {MT_BINARY_OPERATORS(MT_OPERATOR_NAME)};
#undef MT_OPERATOR_NAME

// One Python name of a table op (csrc/ops/ops.schema): the forms it has besides the function.
struct Spelling {
  const char* name;
  int op;  // UnaryOp or BinaryOp
  ElementwiseKeyword keyword;
  bool alpha_first, method, inplace, out, torch_inplace;  // alpha_first: the deprecated (input, alpha, other)
};
#define MT_ROW_UNARY(name, op, keyword, alpha_first, method, inplace, out, torch_inplace) \
  {name, static_cast<int>(UnaryOp::op), keyword, alpha_first, method, inplace, out, torch_inplace},
#define MT_ROW_BINARY(name, op, keyword, alpha_first, method, inplace, out, torch_inplace) \
  {name, static_cast<int>(BinaryOp::op), keyword, alpha_first, method, inplace, out, torch_inplace},
constexpr Spelling kUnarySpellings[] = {MT_UNARY_SPELLINGS(MT_ROW_UNARY)};
constexpr Spelling kBinarySpellings[] = {MT_BINARY_SPELLINGS(MT_ROW_BINARY)};
#undef MT_ROW_UNARY
#undef MT_ROW_BINARY

std::string inplace_name(const char* name) {
  return std::string(name) + "_";
}

// PyTorch's parser's Number: a Python or NumPy number, or a 0-dim tensor that does not require grad
bool is_number_arg(py::handle h) {
  if (py::isinstance<TensorImpl>(h)) {
    const Tensor t = h.cast<Tensor>();
    return t.dim() == 0 && !t.requires_grad();
  }
  return is_python_scalar(h) || is_numpy_scalar(h);
}

// a Number argument as the parser passes it on: a 0-dim tensor becomes its Python number (a wrapped number in
// type promotion, not a tensor operand)
py::object as_number(py::handle h) {
  if (py::isinstance<TensorImpl>(h)) return h.attr("item")();
  return py::reinterpret_borrow<py::object>(h);
}

// The old add/sub(alpha, other) overload: alpha a Number (a 0-dim tensor passes as one), other a Tensor or
// number, no keyword but out= (left to the out= overload, which calls this one again without it). Anything
// else is PyTorch's refusal of a third positional argument.
void deprecated_alpha_first(const std::string& name, bool method, py::handle alpha, py::handle other,
                            const py::kwargs& kw) {
  if (kw.size() == 1 && kw.contains("out")) throw py::reference_cast_error();
  const bool alpha_ok = is_number_arg(alpha);
  const bool other_ok = py::isinstance<TensorImpl>(other) || is_python_scalar(other);
  if (!kw.empty() || !alpha_ok || !other_ok)
    throw py::type_error(name + (method ? "() takes 1 positional argument but 2 were given"
                                        : "() takes 2 positional arguments but 3 were given"));
  if (deprecated_overload_first_use()) {
    const std::string old_sig =
        method ? name + "(Number alpha, Tensor other)"
               : name + "(Tensor input, Number alpha, Tensor other, *, Tensor out = None)";
    const std::string new_sig =
        method ? name + "(Tensor other, *, Number alpha = 1)"
               : name + "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)";
    const std::string msg = "This overload of " + name + " is deprecated:\n\t" + old_sig +
                            "\nConsider using one of the following signatures instead:\n\t" + new_sig;
    warn(msg);
  }
}

// Which operands PyTorch's parser takes as Python numbers for a binary op: add/sub/mul/div and their
// spellings anywhere (its should_allow_numbers_as_tensors list); ops with a `Number other` overload in the
// second place; pow, remainder, xlogy and bitwise_* (a `Number self` overload too) in either place beside a
// tensor; the rest (maximum, atan2, logaddexp, logical_*) tensors only. A number where none is taken is its
// TypeError.
enum class Numbers { anywhere, other, self_or_other, none };
Numbers numbers_taken(const std::string& n) {
  static const std::set<std::string> anywhere = {"add",          "sub",         "subtract", "mul",
                                                 "multiply",     "div",         "divide",   "true_divide",
                                                 "floor_divide", "trunc_divide"};
  static const std::set<std::string> self_or_other = {"pow",
                                                      "remainder",
                                                      "xlogy",
                                                      "bitwise_and",
                                                      "bitwise_or",
                                                      "bitwise_xor",
                                                      "bitwise_left_shift",
                                                      "bitwise_right_shift"};
  static const std::set<std::string> tensors_only = {"maximum",     "minimum",    "atan2",
                                                     "arctan2",     "logaddexp",  "logaddexp2",
                                                     "logical_and", "logical_or", "logical_xor"};
  if (anywhere.count(n) || n[0] == '_') return Numbers::anywhere;  // `_` rows: internal, behind Python checks
  if (self_or_other.count(n)) return Numbers::self_or_other;
  if (tensors_only.count(n)) return Numbers::none;
  return Numbers::other;
}

// The second parameter's name where PyTorch's is not `other`.
const char* other_name(const std::string& n) {
  return n == "pow" ? "exponent" : "other";
}

bool is_number_operand(PyObject* o) {
  return is_python_scalar(o) || is_numpy_scalar(o);
}

// PyTorch's TypeError for an operand that is neither a tensor nor a number (an ndarray, a list; the operators
// take an ndarray, these spellings do not): add/sub/mul/div take a number as a tensor, so theirs is the
// Tensor parameter's; the others list their Tensor and Number signatures. `a` is null for a method or
// in-place form. (A keyword argument is worded as a positional one.)
[[noreturn]] void refuse_operands(const std::string& name, Numbers k, PyObject* a, PyObject* b) {
  const bool a_ok = !a || PyObject_TypeCheck(a, g_tensor_type) || is_number_operand(a);
  const std::string other = other_name(name);
  const std::string base = name.back() == '_' ? name.substr(0, name.size() - 1) : name;
  if (k == Numbers::none || base == "add" || base == "sub" || base == "mul" || base == "div")
    throw py::type_error(name + "(): argument '" + (a_ok ? other : "input") + "' (position " +
                         (a_ok && a ? "2" : "1") + ") must be Tensor, not " + arg_type_name(a_ok ? b : a));
  std::vector<std::string> sigs;
  // the spellings that take numbers anywhere list their own overloads (subtract's alpha, divide's
  // rounding_mode; the Number overload has no out=)
  const std::string out = ", *, Tensor out = None)";
  if (base == "subtract")
    sigs =
        a ? std::vector<std::string>{"(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
                                     "(Tensor input, Number other, Number alpha = 1)"}
          : std::vector<std::string>{"(Tensor other, *, Number alpha = 1)",
                                     "(Number other, Number alpha = 1)"};
  else if (base == "divide")
    sigs =
        a ? std::vector<std::string>{"(Tensor input, Tensor other, *, Tensor out = None)",
                                     "(Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)",
                                     "(Tensor input, Number other)",
                                     "(Tensor input, Number other, *, str rounding_mode)"}
          : std::vector<std::string>{"(Tensor other)", "(Tensor other, *, str rounding_mode)",
                                     "(Number other)", "(Number other, *, str rounding_mode)"};
  else if (!a)
    sigs = {"(Tensor " + other + ")", "(Number " + other + ")"};
  else if (k == Numbers::anywhere)
    sigs = {"(Tensor input, Tensor other" + out, "(Tensor input, Number other)"};
  if (!sigs.empty()) {
    py::tuple args = a ? py::tuple(py::make_tuple(py::handle(a), py::handle(b)))
                       : py::tuple(py::make_tuple(py::handle(b)));
    throw py::type_error(format_invalid_args(name, args, py::dict(), sigs));
  }
  sigs = {"(Tensor input, Tensor " + other + out};
  if (k == Numbers::self_or_other)
    sigs.push_back("(Number self, Tensor " + other +
                   (name == "remainder" || name.rfind("bitwise", 0) == 0 ? ")" : out));
  sigs.push_back("(Tensor input, Number " + other + out);
  throw py::type_error(
      format_invalid_args(name, py::make_tuple(py::handle(a), py::handle(b)), py::dict(), sigs));
}

// PyTorch's TypeError for operands its parser refuses (see Numbers); a tensor is never refused. `a` is null
// for a method or in-place form, whose self is the tensor.
void check_number_operands(const char* name, Numbers k, PyObject* a, PyObject* b) {
  const bool a_tensor = !a || PyObject_TypeCheck(a, g_tensor_type),
             b_tensor = PyObject_TypeCheck(b, g_tensor_type);
  if (!(a_tensor || is_number_operand(a)) || !(b_tensor || is_number_operand(b))) {
    refuse_operands(name, k, a, b);
  }
  if (k == Numbers::anywhere) return;
  if (a_tensor && (b_tensor || k != Numbers::none)) return;
  if (k == Numbers::self_or_other && b_tensor) return;
  const std::string n = name, other = other_name(n);
  if (k == Numbers::none)
    throw py::type_error(n + "(): argument '" + (a_tensor ? other : "input") + "' (position " +
                         (a_tensor ? (a ? "2" : "1") : "1") + ") must be Tensor, not " +
                         arg_type_name(a_tensor ? b : a));
  const std::string out = ", *, Tensor out = None)\n";
  std::string msg = n + "() received an invalid combination of arguments - got (" + arg_type_name(a) + ", " +
                    arg_type_name(b) + "), but expected one of:\n * (Tensor input, Tensor " + other + out;
  if (k == Numbers::self_or_other)
    msg +=
        " * (Number self, Tensor " + other + (n == "remainder" || n.rfind("bitwise", 0) == 0 ? ")\n" : out);
  throw py::type_error(msg + " * (Tensor input, Number " + other + out);
}

// (other, alpha) from a third positional argument of add/sub: the deprecated (alpha, other) on the op's own
// name (old_form), else PyTorch's (Number other, Number alpha); anything else is Python's refusal of it
std::pair<py::object, py::object> third_positional(const std::string& name, bool method, bool old_form,
                                                   py::handle second, py::handle third,
                                                   const py::kwargs& kw) {
  if (old_form) {
    deprecated_alpha_first(name, method, second, third, kw);
    return {py::reinterpret_borrow<py::object>(third), py::reinterpret_borrow<py::object>(second)};
  }
  if (kw.empty() && is_number_arg(second) && is_number_arg(third))
    return {as_number(second), py::reinterpret_borrow<py::object>(third)};
  throw py::type_error(name + (method ? "() takes 1 positional argument but 2 were given"
                                      : "() takes 2 positional arguments but 3 were given"));
}

// add/sub's `keyword: alpha` (a + alpha * b, a - alpha * b: they differ only in the sign) under one spelling,
// and on the op's own name PyTorch's deprecated add(input, alpha, other) and its method/in-place forms
// (`p.data.add_(-lr, grad)` in older optimizers): tried after the signatures above, with its one-time warning
void bind_alpha(py::module_& m, TensorClass& cls, const Spelling& s) {
  const BinaryOp op = static_cast<BinaryOp>(s.op);
  MT_INTERNAL_ASSERT((op == BinaryOp::add || op == BinaryOp::sub) && !s.torch_inplace, s.name,
                     ": alpha is add's and sub's keyword");
  const bool subtract = op == BinaryOp::sub;
  const std::string sname = s.name;
  // (the method's self is a tensor: its other is position 1 in PyTorch's message)
  auto make_fn = [subtract, sname](bool method) {
    return [subtract, sname, method](py::handle a, py::handle b, py::handle alpha) {
      check_number_operands(sname.c_str(), Numbers::anywhere, method ? nullptr : a.ptr(), b.ptr());
      Tensor x = to_operand(a, "input"), y = to_operand(b);
      Scalar s = parse_scalar(alpha, "alpha");
      return nogil([&] { return subtract ? sub(x, y, s) : add(x, y, s); }, x, y);
    };
  };
  auto fn = make_fn(false), method_fn = make_fn(true);
  auto fn_ = [subtract, iname = sname + "_"](py::object self, py::handle b, py::handle alpha) {
    check_number_operands(iname.c_str(), Numbers::anywhere, nullptr, b.ptr());
    Tensor self_t = self.cast<Tensor>(), other = to_operand(b);
    Scalar s = parse_scalar(alpha, "alpha");
    nogil([&] { add_scaled_(self_t, other, s, subtract); }, self_t, other);
    return self;
  };
  m.def(s.name, fn, py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  if (s.method) cls.def(s.name, method_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  if (s.inplace)
    cls.def(inplace_name(s.name).c_str(), fn_, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  // a third positional argument: PyTorch's (Tensor input, Number other, Number alpha=1) under every spelling,
  // where the op's own name has the deprecated (Tensor input, Number alpha, Tensor other), that form, which
  // PyTorch's parser tries first (sub(x, 3, 2) warns; int.sub(float 0-d, 3) is its alpha error)
  const std::string name = s.name;
  const bool old_form = s.alpha_first;
  m.def(name.c_str(), [fn, name, old_form](py::handle a, py::handle second, py::handle third, py::kwargs kw) {
    auto [other, alpha] = third_positional(name, false, old_form, second, third, kw);
    return fn(a, other, alpha);
  });
  if (s.method)
    cls.def(name.c_str(),
            [method_fn, name, old_form](py::handle a, py::handle second, py::handle third, py::kwargs kw) {
              auto [other, alpha] = third_positional(name, true, old_form, second, third, kw);
              return method_fn(a, other, alpha);
            });
  if (s.inplace)
    cls.def(inplace_name(name.c_str()).c_str(),
            [fn_, name, old_form](py::object self, py::handle second, py::handle third, py::kwargs kw) {
              auto [other, alpha] = third_positional(name + "_", true, old_form, second, third, kw);
              return fn_(self, other, alpha);
            });
}

// div's `keyword: rounding_mode` (None, "trunc" or "floor") under one spelling
void bind_rounding_mode(py::module_& m, TensorClass& cls, const Spelling& s) {
  MT_INTERNAL_ASSERT(static_cast<BinaryOp>(s.op) == BinaryOp::div && !s.torch_inplace, s.name,
                     ": rounding_mode is div's keyword");
  const std::string sname = s.name;
  auto make_div = [sname](bool method) {
    return [sname, method](py::handle a, py::handle b, std::optional<std::string> mode) {
      check_number_operands(sname.c_str(), Numbers::anywhere, method ? nullptr : a.ptr(), b.ptr());
      Tensor x = to_operand(a, "input"), y = to_operand(b);
      return nogil([&] { return div(x, y, mode); }, x, y);
    };
  };
  auto div_fn = make_div(false);
  auto div_ = [iname = sname + "_"](py::object self, py::handle b, std::optional<std::string> mode) {
    check_number_operands(iname.c_str(), Numbers::anywhere, nullptr, b.ptr());
    BinaryOp op = !mode ? BinaryOp::div : *mode == "trunc" ? BinaryOp::trunc_divide : BinaryOp::floor_divide;
    MT_CHECK(!mode || *mode == "trunc" || *mode == "floor",
             "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
    bin_(op, self.cast<Tensor>(), to_operand(b));
    return self;
  };
  m.def(s.name, div_fn, py::arg("input"), py::arg("other"), py::kw_only(),
        py::arg("rounding_mode") = py::none());
  if (s.method)
    cls.def(s.name, make_div(true), py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  if (s.inplace)
    cls.def(inplace_name(s.name).c_str(), div_, py::arg("other"), py::kw_only(),
            py::arg("rounding_mode") = py::none());
}

// round's `int decimals` (PyTorch's round.decimals overload), a second overload beside each spelling's own,
// so round(x) stays one direct call and a bad decimals words PyTorch's TypeError (arg_errors.cpp)
void bind_decimals(py::module_& m, TensorClass& cls, const Spelling& s) {
  auto fn = [](const Tensor& x, StrictInt d) {
    return nogil([&] { return autograd::round_decimals(x, d); }, x);
  };
  auto fn_ = [](py::object self, StrictInt d) {
    const Tensor x = self.cast<Tensor>();
    // decimals=0 is round_ (in place, one pass) on floating types; round_decimals refuses the others
    if (d == 0 && is_floating(x.dtype()))
      un_(UnaryOp::round, x);
    else
      copy_(x, nogil([&] { return autograd::round_decimals(x, d); }, x));
    return self;
  };
  m.def(s.name, fn, py::arg("input"), py::kw_only(), py::arg("decimals"));
  if (s.method) cls.def(s.name, fn, py::kw_only(), py::arg("decimals"));
  if (s.inplace) cls.def(inplace_name(s.name).c_str(), fn_, py::kw_only(), py::arg("decimals"));
  if (s.torch_inplace)
    m.def(
        inplace_name(s.name).c_str(), [fn_](py::object x, StrictInt d) { return fn_(x, d); },
        py::arg("input"), py::kw_only(), py::arg("decimals"));
}

}  // namespace

void init_elementwise(py::module_& m, TensorClass& cls) {
  // the schema as compiled in, for tests/ops/test_op_schema.py to hold against csrc/ops/ops.schema
  m.def("_op_schema", [] {
    py::list rows;
#define MT_SCHEMA_ROW(kind, name, functor, rule, variants, aliases, autocast, grad, module) \
  rows.append(py::make_tuple(kind, name, functor, rule, variants, aliases, autocast, grad, module));
    MT_SCHEMA_ROWS(MT_SCHEMA_ROW)
#undef MT_SCHEMA_ROW
    return rows;
  });
  // the forward-mode and vmap rules declared beside the ops (Python expressions; autograd/_jvp_rules.py and
  // func/_batch_rules.py read them)
  m.def("_op_schema_rules", [] {
    py::list rows;
#define MT_SCHEMA_RULE_ROW(name, key, value) rows.append(py::make_tuple(name, key, value));
    MT_SCHEMA_RULES(MT_SCHEMA_RULE_ROW)
#undef MT_SCHEMA_RULE_ROW
    return rows;
  });
  // the operators and keywords declared beside the ops, for the test that holds the bound ones to them
  m.def("_op_schema_bindings", [] {
    py::list rows;
#define MT_SCHEMA_BINDING_ROW(name, key, value) rows.append(py::make_tuple(name, key, value));
    MT_SCHEMA_BINDING_ROWS(MT_SCHEMA_BINDING_ROW)
#undef MT_SCHEMA_BINDING_ROW
    return rows;
  });
  for (const Spelling& s : kUnarySpellings) {
    UnaryOp o = static_cast<UnaryOp>(s.op);
    m.def(s.name, [o](const Tensor& x) { return un(o, x); }, py::arg("input"));
    if (s.method) cls.def(s.name, [o](const Tensor& x) { return un(o, x); });
    if (s.inplace)
      cls.def(inplace_name(s.name).c_str(), [o](py::object self) {
        un_(o, self.cast<Tensor>());
        return self;
      });
    if (s.torch_inplace)
      m.def(
          inplace_name(s.name).c_str(),
          [o](const Tensor& x) {
            un_(o, x);
            return x;
          },
          py::arg("input"));
    if (s.keyword == ElementwiseKeyword::decimals) bind_decimals(m, cls, s);
  }

  for (const Spelling& s : kBinarySpellings) {
    if (s.keyword == ElementwiseKeyword::alpha) {
      bind_alpha(m, cls, s);
      continue;
    }
    if (s.keyword == ElementwiseKeyword::rounding_mode) {
      bind_rounding_mode(m, cls, s);
      continue;
    }
    BinaryOp o = static_cast<BinaryOp>(s.op);
    const char* name = s.name;
    const Numbers k = numbers_taken(name);
    const char* other = other_name(name);
    m.def(
        s.name,
        [o, name, k](py::handle a, py::handle b) {
          check_number_operands(name, k, a.ptr(), b.ptr());
          Tensor x = to_operand(a, "input");
          return bin(o, x, to_operand(b));
        },
        py::arg("input"), py::arg(other));
    if (s.method)
      cls.def(
          s.name,
          [o, name, k](const Tensor& x, py::handle b) {
            check_number_operands(name, k, nullptr, b.ptr());
            return bin(o, x, to_operand(b));
          },
          py::arg(other));
    if (s.inplace) {
      const std::string iname = inplace_name(s.name);
      cls.def(
          iname.c_str(),
          [o, iname, k](py::object self, py::handle b) {
            check_number_operands(iname.c_str(), k, nullptr, b.ptr());
            bin_(o, self.cast<Tensor>(), to_operand(b));
            return self;
          },
          py::arg(other));
    }
    if (s.torch_inplace)
      m.def(
          inplace_name(s.name).c_str(),
          [o](const Tensor& x, py::handle b) {
            bin_(o, x, to_operand(b));
            return x;
          },
          py::arg("input"), py::arg(other));
  }
  // PyTorch's (Tensor input, Tensor other, *, Number alpha=1) and (Tensor input, Number other, Number
  // alpha=1): other - alpha * input, the input a tensor; a call neither takes is arg_errors.cpp's invalid
  // combination
  m.def(
      "rsub",
      [](TensorArg a, TensorArg b, ScalarArg alpha) {
        return sub(b.h.cast<Tensor>(), a.h.cast<Tensor>(), parse_scalar(alpha, "alpha"));
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  m.def(
      "rsub",
      [](TensorArg a, ScalarArg b, ScalarArg alpha) {
        return sub(to_operand(as_number(b)), a.h.cast<Tensor>(), parse_scalar(alpha, "alpha"));
      },
      py::arg("input"), py::arg("other"), py::arg("alpha") = 1);

  // the operators the schema declares (`operators:`), each its form's instance for its op
#define MT_BIND_OPERATOR_UNARY(name, op, form) cls.def(name, &form<UnaryOp::op>);
#define MT_BIND_OPERATOR_BINARY(name, op, form) cls.def(name, &form<BinaryOp::op>);
  MT_UNARY_OPERATORS(MT_BIND_OPERATOR_UNARY)
  MT_BINARY_OPERATORS(MT_BIND_OPERATOR_BINARY)
#undef MT_BIND_OPERATOR_UNARY
#undef MT_BIND_OPERATOR_BINARY
  // +x is not a table op (PyTorch's positive, a composite): self, but refused on bool
  cls.def("__pos__", [](py::object self) {
    MT_CHECK_NOT_IMPLEMENTED(self.cast<Tensor>().dtype() != ScalarType::Bool,
                             "The `+` operator, on a bool tensor is not supported.");
    return self;
  });

  m.def("_get_cpu_capability", [] { return std::string(vec::cpu_capability()); });
  m.def("_has_sleef", [] { return vec::has_sleef(); });
  m.def(
      "_has_vec_loop",
      [](const std::string& name, StrictBool f64) { return vec::has_vec_loop(name.c_str(), f64); },
      py::arg("name"), py::arg("f64"));
}

// PyTorch's operators answer NotImplemented to any call they cannot take (x.__xor__() with no operand, two
// operands, a string), where pybind11 raises TypeError: one catch-all overload after each operator's own. It
// is tried only when the operator's signature does not match, so `a + b` costs what it did.
void init_operator_fallbacks(TensorClass& cls) {
  std::vector<const char*> names(std::begin(kOperatorNames), std::end(kOperatorNames));
  names.insert(names.end(), {"__matmul__", "__rmatmul__"});  // bind_linalg.cpp's
  for (const char* name : names) {
    MT_INTERNAL_ASSERT(py::hasattr(cls, name), "operator fallback for an unbound operator: ", name);
    cls.def(name, [](const py::args&, const py::kwargs&) {
      return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    });
  }
}

}  // namespace mt
