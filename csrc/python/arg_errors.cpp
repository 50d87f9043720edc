// PyTorch's TypeError for a call that no overload of a binding takes. pybind11 answers one with "f():
// incompatible function arguments. The following argument types are supported: ..."; PyTorch's parser names
// the argument ("topk(): argument 'k' (position 2) must be int, not bool"), the count ("takes from 2 to 5
// positional arguments but 6 were given") or, where several signatures could take the call, "received an
// invalid combination of arguments - got (...), but expected one of: ...". Every pybind11 function of _C is
// routed through `dispatch` below, which calls pybind11's own dispatcher and, only when that fails with its
// overload error, words the message from the function records (argument names, positions, defaults, kinds
// from the signatures), the call's arguments and the refusals the strict casters recorded (strict_args.h). A
// call that binds pays one indirect call and a few loads and stores (about 2 ns on x.dim(), measured against
// the unrouted dispatcher).
#include <unistd.h>

#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/Exception.h"
#include "python/bind.h"
#include "python/torch_function.h"

namespace mt {

// torch_function.cpp: whether the __torch_function__ protocol is on (a program transform runs), and the
// Tensor methods' look for an overriding argument: *handled says whether the call went to its handler (then
// the result, or nullptr with the error set), else the method binds as usual.
extern bool g_tf_on;
PyObject* tensor_method_torch_function(const char* name, PyObject* const* args, size_t nargsf,
                                       PyObject* kwnames, bool* handled);
PyObject* function_torch_function(PyObject* record, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                                  bool* handled);
bool tensor_method_dispatches(const char* name);
// imports minitorch.overrides once, which registers the hooks (a fresh `import minitorch` has not)
void import_overrides();

namespace {

using Dispatcher = PyObject* (*)(PyObject*, PyObject* const*, size_t, PyObject*);
Dispatcher g_pybind_dispatch = nullptr;

constexpr int kMaxRefusals = 16;
// A call's refusals follow those of the calls it is nested in (pybind11 builds its overload error from the
// arguments' reprs, which call into _C again): each call keeps the ones it found from its own start on, and
// drops them when it returns; the outermost call starts afresh (refusals by a function not routed here).
struct Refusals {
  Refusal r[kMaxRefusals];
  int n = 0;
  int depth = 0;
};
// One for the process: casters and dispatches run under the GIL (a thread-local cost a lookup on every call)
Refusals g_refusals;

// A pybind11 type text in PyTorch's spelling for the "expected one of" list.
std::string torch_type(std::string t) {
  if (t.rfind("typing.SupportsInt", 0) == 0) return "int";
  if (t.rfind("typing.SupportsFloat", 0) == 0) return "float";
  auto none = t.find(" | None");
  if (none != std::string::npos) t = t.substr(0, none);
  if (t.rfind("minitorch._C.", 0) == 0) t = t.substr(13);
  return t;
}

// One parameter of a pybind11 signature: "name: type = default", "*args", "**kwargs".
struct Param {
  std::string name, type, dflt;
  bool has_default = false, kw_only = false, star = false, star2 = false;
};

struct Sig {
  std::vector<Param> params;  // self included for a method
  bool has_args = false, has_kwargs = false;
  std::string returns;  // the annotation after "->": "Tensor", "object"
};

// "(self: minitorch._C.Tensor, k: int, dim: int = -1, *, out: object = None) -> object": commas inside
// brackets and quotes (a default's repr) do not split.
Sig parse_signature(const char* text) {
  Sig sig;
  std::string s = text ? text : "";
  size_t open = s.find('(');
  if (open == std::string::npos) return sig;
  std::vector<std::string> parts;
  int depth = 0;
  char quote = 0;
  size_t start = open + 1, i = open + 1;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;  // the parameter list's own ')'
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start, i - start));
  size_t arrow = s.find(" -> ", i);
  if (arrow != std::string::npos) sig.returns = torch_type(s.substr(arrow + 4));
  bool kw_only = false;
  for (std::string part : parts) {
    size_t b = part.find_first_not_of(' '), e = part.find_last_not_of(' ');
    if (b == std::string::npos) continue;
    part = part.substr(b, e - b + 1);
    if (part == "*") {
      kw_only = true;
      continue;
    }
    if (part == "/") continue;
    Param p;
    if (part.rfind("**", 0) == 0) {
      sig.has_kwargs = true;
      continue;
    }
    if (part[0] == '*') {
      sig.has_args = true;
      kw_only = true;
      continue;
    }
    size_t colon = part.find(": ");
    size_t eq = part.find(" = ", colon == std::string::npos ? 0 : colon);
    p.name =
        part.substr(0, colon == std::string::npos ? (eq == std::string::npos ? part.size() : eq) : colon);
    if (colon != std::string::npos)
      p.type = part.substr(colon + 2, eq == std::string::npos ? std::string::npos : eq - colon - 2);
    if (eq != std::string::npos) {
      p.has_default = true;
      p.dflt = part.substr(eq + 3);
      // a string default in PyTorch's quotes (`str padding = "valid"`), not Python's repr ('valid')
      if (p.dflt.size() >= 2 && p.dflt.front() == '\'' && p.dflt.back() == '\'' &&
          p.dflt.find_first_of("'\"\\", 1) == p.dflt.size() - 1)
        p.dflt = '"' + p.dflt.substr(1, p.dflt.size() - 2) + '"';
    }
    p.kw_only = kw_only;
    sig.params.push_back(p);
  }
  return sig;
}

}  // namespace

std::string arg_type_name(py::handle v) {
  py::handle t = reinterpret_cast<PyObject*>(Py_TYPE(v.ptr()));
  std::string name = py::str(t.attr("__name__"));
  std::string mod = py::str(t.attr("__module__"));
  if (mod.rfind("minitorch", 0) == 0) {
    // the types PyTorch defines in C carry their module in tp_name, which its parser prints
    if (name == "dtype" || name == "device" || name == "memory_format" || name == "layout" || name == "Size")
      return "torch." + name;
    if (name == "Generator") return "torch._C.Generator";
    if (name == "UntypedStorage" || name == "TypedStorage") return "torch.storage." + name;
    return name;
  }
  // PyTorch prints tp_name: a class written in Python is its bare name (Fraction), a C type names its module
  // (numpy.float64, decimal.Decimal)
  if (mod == "builtins") return name;
  return Py_TYPE(v.ptr())->tp_name;
}

namespace {

bool is_tensor(py::handle v) {
  return g_tensor_type && PyObject_TypeCheck(v.ptr(), g_tensor_type);
}

// The call bound to one overload's parameters: values (null where absent), whether each came by keyword,
// and why it does not bind (an empty reason: it binds).
struct Bound {
  std::vector<PyObject*> values;
  std::vector<bool> by_keyword;
  std::string why;  // PyTorch's message for a call of the wrong shape
};

Bound bind(const char* fname, const Sig& sig, bool method, PyObject* const* args, size_t nargs,
           PyObject* kwnames) {
  Bound b;
  b.values.assign(sig.params.size(), nullptr);
  b.by_keyword.assign(sig.params.size(), false);
  std::string name = fname;
  size_t by_pos = 0, required = 0;
  for (const Param& p : sig.params) {
    if (p.kw_only) continue;
    ++by_pos;
    if (!p.has_default) ++required;
  }
  size_t skip = method ? 1 : 0;  // PyTorch's counts leave self out
  if (nargs > by_pos && !sig.has_args) {
    size_t lo = required - std::min(required, skip), hi = by_pos - skip;
    std::string takes =
        lo == hi ? std::to_string(hi) + " positional argument" + (hi == 1 ? "" : "s")
                 : "from " + std::to_string(lo) + " to " + std::to_string(hi) + " positional arguments";
    b.why = name + "() takes " + takes + " but " + std::to_string(nargs - skip) +
            (nargs - skip == 1 ? " was given" : " were given");
    return b;
  }
  for (size_t i = 0; i < nargs && i < by_pos; ++i) b.values[i] = args[i];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    std::string kw = py::str(PyTuple_GET_ITEM(kwnames, k));
    size_t j = 0;
    while (j < sig.params.size() && sig.params[j].name != kw) ++j;
    if (j == sig.params.size()) {
      if (sig.has_kwargs) continue;
      b.why = name + "() got an unexpected keyword argument '" + kw + "'";
      return b;
    }
    if (b.values[j]) {
      b.why = name + "() got multiple values for argument '" + kw + "'";
      return b;
    }
    b.values[j] = args[nargs + k];
    b.by_keyword[j] = true;
  }
  std::vector<std::string> missing;
  for (size_t j = 0; j < sig.params.size(); ++j)
    if (!b.values[j] && !sig.params[j].has_default) missing.push_back(sig.params[j].name);
  if (!missing.empty()) {
    std::string names;
    for (auto& m : missing) names += (names.empty() ? "\"" : ", \"") + m + "\"";
    // PyTorch's parser's words, its plural as it writes it ("arguments" for one, "argument" for more)
    b.why = name + "() missing " + std::to_string(missing.size()) + " required positional argument" +
            (missing.size() == 1 ? "s" : "") + ": " + names;
  }
  return b;
}

// The first argument the overload refuses, as PyTorch's parser words it ("" when none is known to fail): a
// Tensor parameter takes tensors only; a strict kind refused what its caster recorded.
std::string first_refused(const char* fname, const Sig& sig, const Bound& b, bool method, int base) {
  const Refusals& rs = g_refusals;
  for (size_t j = method ? 1 : 0; j < sig.params.size(); ++j) {
    PyObject* v = b.values[j];
    if (!v) continue;
    const std::string& type = sig.params[j].type;
    std::string want;
    if (type == "Tensor" || type == "Tensor | None") {
      if (!is_tensor(v) && !(type == "Tensor | None" && v == Py_None)) want = "Tensor";
    } else if (type.rfind("typing.SupportsFloat", 0) == 0 || type == "float") {
      // pybind11's double takes what converts to a float (an int, __float__, __index__)
      PyNumberMethods* nb = Py_TYPE(v)->tp_as_number;
      if (!PyFloat_Check(v) && !PyLong_Check(v) && !(nb && (nb->nb_float || nb->nb_index))) want = "float";
    } else {
      // the kinds a caster refused (strict_args.h, bind_factory.h, bind_reduce.cpp) in PyTorch's words
      for (int r = base; r < rs.n; ++r)
        if (rs.r[r].obj == v && type == rs.r[r].kind) {
          want = torch_type(type);
          break;
        }
    }
    if (want.empty()) continue;
    std::string where = b.by_keyword[j] ? "" : " (position " + std::to_string(method ? j : j + 1) + ")";
    return std::string(fname) + "(): argument '" + sig.params[j].name + "'" + where + " must be " + want +
           ", not " + arg_type_name(v);
  }
  return "";
}

// bind_factory.h's ScalarOrTensorArg and OperandArg: one parameter for PyTorch's Tensor and Number overloads
bool is_union(const std::string& type) {
  return type == "Scalar|Tensor" || type == "Tensor|Scalar";
}

int unions(const Sig& sig) {
  int n = 0;
  for (const Param& p : sig.params) n += is_union(p.type);
  return n;
}

// One of the signatures PyTorch lists, "(Tensor input, ...)": a Scalar|Tensor parameter is Tensor where its
// bit of `choice` is clear, Number where it is set (the first such parameter the lowest bit: PyTorch's order
// for linspace's four).
// Whether a function's out= overload (bind_out.cpp's catch-all) stands for this overload's out= parameter in
// PyTorch's signature: where the overload returns one tensor and names no out of its own. PyTorch lists it
// last of the keywords. (Which overloads PyTorch gives out= is not known here: median's without a dim has
// none, so it is listed only, not counted where a signature's plausibility is weighed; listed() knows sum's
// and prod's.)
bool takes_out(const Sig& sig) {
  for (const Param& p : sig.params)
    if (p.name == "out") return false;
  return sig.returns == "Tensor";
}

std::string describe(const Sig& sig, bool method, unsigned choice, bool with_out) {
  std::string out = "(";
  bool first = true, star = false;
  int u = 0;
  for (size_t j = method ? 1 : 0; j < sig.params.size(); ++j) {
    const Param& p = sig.params[j];
    if (!first) out += ", ";
    first = false;
    if (p.kw_only && !star && !sig.has_args) {
      out += "*, ";
      star = true;
    }
    if (is_union(p.type))
      out += std::string((choice >> u++) & 1u ? "Number" : "Tensor") + " " + p.name;
    else
      out += torch_type(p.type) + " " + p.name;
    if (p.has_default) out += " = " + p.dflt;
  }
  if (with_out && takes_out(sig))
    out += std::string(first ? "" : ", ") + (star || sig.has_args ? "" : "*, ") + "Tensor out = None";
  return out + ")";
}

// PyTorch's format_invalid_args (torch/csrc/utils/invalid_arguments.cpp), step by step on the printed
// signatures, quirks included: it splits a signature at ", " and takes each piece's last word as the name and
// the rest as the type, so `*` and `Number beta = 1` (type "Number beta =", name "1") count as parameters and
// never match; a signature gets its "didn't match" line only when the call gives as many arguments as these
// pieces; a type matches an argument only by the exact type name ("Number", "tuple of ints" never do), "int"
// an int and "float" an int or a float. Keywords come in the order of its std::unordered_map (Kwargs).
namespace invalid_args {

struct Piece {
  std::string type, name;
};

std::vector<std::string> split(const std::string& s, const std::string& delim) {
  std::vector<std::string> out;
  size_t start = 0, end;
  while ((end = s.find(delim, start)) != std::string::npos) {
    out.push_back(s.substr(start, end - start));
    start = end + delim.size();
  }
  out.push_back(s.substr(start));
  return out;
}

struct Option {
  std::vector<Piece> pieces;
  bool variadic = false;
};

Option parse(const std::string& text) {
  Option o;
  std::string body = text.substr(1, text.size() - 2);
  for (const std::string& arg : split(body, ", ")) {
    size_t type_end = arg.find_last_of(' ');
    size_t name_start = type_end == std::string::npos ? 0 : type_end + 1;
    if (type_end != std::string::npos && arg.find("...") != std::string::npos) type_end -= 4;
    o.pieces.push_back({arg.substr(0, type_end), arg.substr(name_start)});
  }
  o.variadic = body.find("...") != std::string::npos;
  return o;
}

bool matches(const std::string& type, py::handle v) {
  if (type == "float") return PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr());
  if (type == "int") return PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr());  // THPUtils_checkLong
  return type == arg_type_name(v);
}

// the keywords as PyTorch holds them: inserted in the call's order, listed in the map's own order
using Kwargs = std::unordered_map<std::string, PyObject*>;

bool count_matches(const Option& o, size_t nargs, const Kwargs& kw) {
  size_t expected = o.pieces.size(), got = nargs + kw.size();
  return got == expected || (o.variadic && got > expected);
}

std::vector<std::string> unmatched_keywords(const Option& o, const Kwargs& kw) {
  std::vector<std::string> out;
  size_t start = o.pieces.size() > kw.size() ? o.pieces.size() - kw.size() : 0;
  for (const auto& [name, v] : kw) {
    bool found = false;
    for (size_t i = start; i < o.pieces.size() && !found; ++i) found = o.pieces[i].name == name;
    if (!found) out.push_back(name);
  }
  return out;
}

std::string plain(const std::vector<PyObject*>& args, const Kwargs& kw) {
  std::string out = "(";
  for (PyObject* a : args) out += arg_type_name(a) + ", ";
  for (const auto& [name, v] : kw) out += name + "=" + arg_type_name(v) + ", ";
  if (!args.empty()) out.erase(out.size() - 2);
  return out + ")";
}

// the call with each argument the signature's piece does not take between `!`s (red on a terminal)
std::string marked(const Option& o, const std::vector<PyObject*>& args, const Kwargs& kw) {
  const bool tty = isatty(1) && isatty(2);
  const std::string red = tty ? "\33[31;1m" : "!", reset_red = tty ? "\33[0m" : "!",
                    green = tty ? "\33[32;1m" : "", reset_green = tty ? "\33[0m" : "";
  std::string out = "(";
  for (size_t i = 0; i < args.size() + kw.size(); ++i) {
    bool is_kw = i >= args.size();
    PyObject* v = nullptr;
    if (!is_kw) {
      v = args[i];
    } else if (i < o.pieces.size()) {
      for (const auto& [name, value] : kw)
        if (name == o.pieces[i].name) v = value;
    }
    if (!v) return plain(args, kw);  // (PyTorch's unordered_map::at would throw: not reached by its checks)
    bool ok =
        i < o.pieces.size() ? matches(o.pieces[i].type, v) : o.variadic && matches(o.pieces.back().type, v);
    out += ok ? green : red;
    if (is_kw) out += o.pieces[i].name + "=";
    bool tuple = PyTuple_Check(v);
    if (tuple || PyList_Check(v)) {
      out += arg_type_name(v) + " of " + (tuple ? "(" : "[");
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      for (size_t e = 0; e < seq.size(); ++e) out += (e ? ", " : "") + arg_type_name(seq[e]);
      out += tuple ? (seq.size() == 1 ? ",)" : ")") : "]";
    } else {
      out += arg_type_name(v);
    }
    out += (ok ? reset_green : reset_red) + ", ";
  }
  if (!args.empty()) out.erase(out.size() - 2);
  return out + ")";
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string format(const std::string& fname, const std::vector<PyObject*>& args, const Kwargs& kw,
                   const std::vector<std::string>& options) {
  std::string msg = fname + "() received an invalid combination of arguments - ";
  if (options.size() == 1) {
    Option o = parse(options[0]);
    std::vector<std::string> unmatched = kw.empty() ? std::vector<std::string>{} : unmatched_keywords(o, kw);
    if (!unmatched.empty()) return msg + "got unrecognized keyword arguments: " + join(unmatched);
    return msg + "got " + (count_matches(o, args.size(), kw) ? marked(o, args, kw) : plain(args, kw)) +
           ", but expected " + options[0];
  }
  msg += "got " + plain(args, kw) + ", but expected one of:\n";
  for (const std::string& text : options) {
    msg += " * " + text + "\n";
    Option o = parse(text);
    if (!count_matches(o, args.size(), kw)) continue;
    std::vector<std::string> unmatched = kw.empty() ? std::vector<std::string>{} : unmatched_keywords(o, kw);
    if (!unmatched.empty())
      msg += "      didn't match because some of the keywords were incorrect: " + join(unmatched) + "\n";
    else
      msg += "      didn't match because some of the arguments have invalid types: " + marked(o, args, kw) +
             "\n";
  }
  return msg;
}

}  // namespace invalid_args

}  // namespace

std::string format_invalid_args(const std::string& fname, const py::tuple& args, const py::dict& kwargs,
                                const std::vector<std::string>& options) {
  std::vector<PyObject*> positional;
  for (py::handle a : args) positional.push_back(a.ptr());
  invalid_args::Kwargs kw;
  for (auto item : kwargs) kw.emplace(py::str(item.first), item.second.ptr());
  return invalid_args::format(fname, positional, kw, options);
}

namespace {

// A binding's own "f(): argument 'k' (position 2) must be ..." (the generated ones word it without knowing
// how the argument came) for an argument given by keyword, which PyTorch's messages give no position; "" for
// any other message.
std::string unposition(const std::string& text, const char* fname, PyObject* const* kwvalues,
                       PyObject* kwnames) {
  std::string head = std::string(fname) + "(): argument '";
  if (text.rfind(head, 0) != 0) return "";
  size_t end = text.find('\'', head.size());
  if (end == std::string::npos || text.compare(end + 1, 11, " (position ") != 0) return "";
  std::string name = text.substr(head.size(), end - head.size());
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k) {
    if (std::string(py::str(PyTuple_GET_ITEM(kwnames, k))) != name) continue;
    size_t close = text.find(')', end);
    if (close == std::string::npos) return "";
    std::string rest = text.substr(close + 1);
    // an int list given by keyword is judged whole: a wrong first element makes it the wrong kind of value
    if (rest.rfind(" must be tuple of ints, but found element of type ", 0) == 0)
      rest = " must be tuple of ints, not " + arg_type_name(kwvalues[k]);
    return text.substr(0, end + 1) + rest;
  }
  return "";
}

struct Candidate {
  Sig sig;
  Bound bound;
};

// The overloads of a function as PyTorch's signatures, bound to the call.
std::vector<Candidate> candidates(const py::detail::function_record* chain, PyObject* const* args,
                                  size_t nargs, PyObject* kwnames) {
  std::vector<Candidate> cands;
  for (auto* rec = chain; rec; rec = rec->next) {
    Sig sig = parse_signature(rec->signature);
    // a catch-all (*args, **kwargs: bind_out.cpp's out= overload) is no signature of PyTorch's
    if (sig.has_args && sig.has_kwargs && sig.params.size() <= (chain->is_method ? 1u : 0u)) continue;
    Bound b = bind(chain->name, sig, chain->is_method, args, nargs, kwnames);
    cands.push_back({std::move(sig), std::move(b)});
  }
  return cands;
}

// The signatures PyTorch's message lists, in its spelling ("(Tensor input, ...)"). sum's and prod's over
// every element (no dim) are PyTorch's that take no out=.
std::vector<std::string> listed(const std::vector<Candidate>& cands, bool method, bool with_out,
                                const char* fname) {
  const bool dim_out_only = std::strcmp(fname, "sum") == 0 || std::strcmp(fname, "prod") == 0;
  std::vector<std::string> out;
  for (auto& c : cands) {
    bool has_dim = false;
    for (const Param& p : c.sig.params) has_dim = has_dim || p.name == "dim";
    for (unsigned choice = 0; choice < (1u << unions(c.sig)); ++choice)
      out.push_back(describe(c.sig, method, choice, with_out && !method && (has_dim || !dim_out_only)));
  }
  return out;
}

// The message for a call no overload took, or "" to keep pybind11's. hidden: the function also has
// signatures PyTorch's message leaves out (the deprecated ones), so even one listed signature is not its
// only.
std::string reword(const py::detail::function_record* chain, PyObject* const* args, size_t nargs,
                   PyObject* kwnames, int base, bool hidden, bool with_out, int out_taken = 0,
                   bool out_every = false) {
  const char* fname = chain->name;
  bool method = chain->is_method;
  std::vector<Candidate> cands = candidates(chain, args, nargs, kwnames);
  if (cands.empty()) return "";
  // a method of one signature taking nothing but self is CPython's METH_NOARGS in PyTorch: CPython's words
  // (the keywords first), for the type the method is defined on
  const Sig& only = cands[0].sig;
  if (method && cands.size() == 1 && !hidden && only.params.size() == 1 && !only.has_args &&
      !only.has_kwargs) {
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0)
      return std::string("TensorBase.") + fname + "() takes no keyword arguments";
    if (nargs > 1)
      return std::string("TensorBase.") + fname + "() takes no arguments (" + std::to_string(nargs - 1) +
             " given)";
  }
  // PyTorch's parser: a function of one signature raises that signature's own error; else a signature is
  // plausible when the number of arguments given (by position and keyword) lies between its required and all
  // its parameters; where one is, its own error, else the combination
  Py_ssize_t given = static_cast<Py_ssize_t>(nargs) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0) + out_taken;
  std::vector<const Candidate*> plausible;
  for (auto& c : cands) {
    Py_ssize_t required = 0, all = static_cast<Py_ssize_t>(c.sig.params.size());
    for (const Param& p : c.sig.params) required += !p.has_default;
    // PyTorch's signature has the out= this one lacks: where every one of its signatures does, and beside
    // deprecated signatures (addmv's: its one listed signature is then measured by its count, out included)
    if ((out_every || (hidden && with_out)) && !method) ++all;
    if (given >= required && (given <= all || c.sig.has_args || c.sig.has_kwargs)) plausible.push_back(&c);
  }
  // a Scalar|Tensor parameter stands for two of PyTorch's signatures: any call none takes is the combination
  bool several = false;
  for (auto& c : cands) several = several || unions(c.sig) > 0;
  if (!several && (plausible.size() == 1 || (cands.size() == 1 && !hidden))) {
    const Candidate& c = plausible.size() == 1 ? *plausible[0] : cands[0];
    if (!c.bound.why.empty()) return c.bound.why;
    return first_refused(fname, c.sig, c.bound, method, base);
  }
  std::vector<PyObject*> positional(args + (method ? 1 : 0), args + nargs);
  invalid_args::Kwargs kw;
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); ++k)
    kw.emplace(py::str(PyTuple_GET_ITEM(kwnames, k)), args[nargs + k]);
  return invalid_args::format(fname, positional, kw, listed(cands, method, with_out, fname));
}

// PyTorch's deprecated signatures of a function (add/sub's are bind_elementwise.cpp's own), by its record
// capsule: a Python handler (_argcheck.py's), called with the call and the listed signatures once no overload
// took the call, returns the result of the call a deprecated signature takes, or NotImplemented.
std::unordered_map<PyObject*, PyObject*> g_deprecated;

// the handler's answer: a new reference to the result, nullptr with the error set, or Py_NotImplemented
PyObject* try_deprecated(PyObject* handler, const py::detail::function_record* chain, PyObject* const* args,
                         size_t nargs, PyObject* kwnames, bool with_out) {
  py::tuple pos(nargs);
  for (size_t i = 0; i < nargs; ++i) pos[i] = py::reinterpret_borrow<py::object>(args[i]);
  py::dict kw;
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); ++k)
    kw[PyTuple_GET_ITEM(kwnames, k)] = py::reinterpret_borrow<py::object>(args[nargs + k]);
  py::list options;
  for (const std::string& o :
       listed(candidates(chain, args, nargs, kwnames), chain->is_method, with_out, chain->name))
    options.append(o);
  PyObject* r = PyObject_CallFunctionObjArgs(handler, pos.ptr(), kw.ptr(), options.ptr(), nullptr);
  if (r == Py_NotImplemented) Py_DECREF(r);  // (the singleton lives on)
  return r;
}

// bind_out.cpp's out= overloads, each alone, by the function whose chain ends in it (both by their record
// capsules, the dispatcher's self). pybind11 tries the function's own overloads first, and for each
// parameter they name that the call passes by position it looks for that name among the call's keywords
// through an interned string made afresh (~750 instructions a parameter); none of them takes out=, so a call
// with out= goes to its overload straight, after bind_out.cpp's fast entry for it (the direct writes on the
// call's own arguments, before pybind11 builds the overload's args tuple and kwargs dict).
using OutFast = PyObject* (*)(const void* ctx, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
struct OutEntry {
  PyObject* overload;
  OutFast fast;
  const void* ctx;
};
std::unordered_map<PyObject*, OutEntry> g_out_overloads;
// the functions whose every signature of PyTorch's takes out= (the elementwise ops': round, round.decimals),
// which a call's count of arguments is measured against
std::unordered_set<PyObject*> g_out_every;
PyObject* g_out_name = nullptr;  // "out", interned as the keyword names of a call site are

const OutEntry* out_overload(PyObject* self, PyObject* kwnames) {
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k)
    if (PyTuple_GET_ITEM(kwnames, k) == g_out_name) {
      auto it = g_out_overloads.find(self);
      return it == g_out_overloads.end() ? nullptr : &it->second;
    }
  return nullptr;  // (an out built at run time, not interned, takes the chain: the same call, slower)
}

// bind_out.cpp's out= overload calls the function without its out: that call's message counts it as given
// (PyTorch's signatures hold out, so a call with out= has one argument more to be plausible for)
thread_local int g_out_taken = 0;

}  // namespace

void note_out_taken(bool taken) {
  g_out_taken = taken ? 1 : 0;
}

namespace {

// PyTorch's parser also takes NumPy's keyword names for four parameters (its numpy_compatibility_arg_names):
// axis for dim, keepdims for keepdim, x, a or x1 for input, x2 for other, each only where the canonical name
// is not given too (a second spelling is then an unexpected keyword). A call spelled so fails pybind11's
// overload match first (nothing ran) and is tried again with the canonical names: no cost to other calls.
struct NumpyAlias {
  const char* canonical;
  const char* alias;
};
constexpr NumpyAlias kNumpyAliases[] = {{"dim", "axis"}, {"keepdim", "keepdims"}, {"input", "x"},
                                        {"input", "a"},  {"input", "x1"},         {"other", "x2"}};

// ours in C++ where PyTorch's are Python functions (torch/functional.py, torch/_tensor.py): no parser, no
// aliases
bool numpy_aliases_apply(const char* fname) {
  for (const char* python_in_pytorch : {"split", "norm", "unflatten"})
    if (std::strcmp(fname, python_in_pytorch) == 0) return false;
  return true;
}

bool kw_is(PyObject* name, const char* s) {
  return PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, s) == 0;
}

// whether an overload of chain has a parameter of that name (an alias that is one is that parameter)
bool has_param(const py::detail::function_record* chain, const char* name) {
  for (const py::detail::function_record* r = chain; r; r = r->next)
    for (const py::detail::argument_record& a : r->args)
      if (a.name && std::strcmp(a.name, name) == 0) return true;
  return false;
}

// kwnames with the NumPy spellings renamed (a new tuple), or an empty object when none applies; renamed
// lists (canonical, alias) pairs for the message of a call that fails again.
py::object numpy_kwnames(const py::detail::function_record* chain, PyObject* kwnames,
                         std::vector<std::pair<std::string, std::string>>& renamed) {
  const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  std::vector<int> to(static_cast<size_t>(n), -1);  // the alias entry each keyword takes, if any
  for (const NumpyAlias& a : kNumpyAliases) {
    bool taken = false;  // the canonical name given, or an earlier alias of it
    for (Py_ssize_t k = 0; k < n; ++k) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, k);
      if (kw_is(name, a.canonical)) taken = true;
      if (to[static_cast<size_t>(k)] >= 0 &&
          std::strcmp(kNumpyAliases[to[static_cast<size_t>(k)]].canonical, a.canonical) == 0)
        taken = true;
    }
    if (taken || has_param(chain, a.alias)) continue;
    for (Py_ssize_t k = 0; k < n; ++k)
      if (kw_is(PyTuple_GET_ITEM(kwnames, k), a.alias)) {
        to[static_cast<size_t>(k)] = static_cast<int>(&a - kNumpyAliases);
        break;
      }
  }
  py::tuple out(n);
  bool any = false;
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (to[static_cast<size_t>(k)] < 0) {
      out[static_cast<size_t>(k)] = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(kwnames, k));
      continue;
    }
    const NumpyAlias& a = kNumpyAliases[to[static_cast<size_t>(k)]];
    out[static_cast<size_t>(k)] = py::reinterpret_steal<py::object>(PyUnicode_InternFromString(a.canonical));
    renamed.emplace_back(a.canonical, a.alias);
    any = true;
  }
  return any ? py::object(std::move(out)) : py::object();
}

// A message about the renamed call, with the keywords as the caller spelled them where PyTorch's shows them:
// the "got (...)" list and an unexpected keyword (a wrong type names the canonical parameter, as PyTorch's).
std::string numpy_respell(std::string msg, const std::vector<std::pair<std::string, std::string>>& renamed) {
  for (const auto& [canonical, alias] : renamed) {
    size_t got = msg.find("got (");
    if (got != std::string::npos) {
      size_t end = msg.find("), but expected", got);
      for (const char* lead : {"(", " "}) {
        std::string from = lead + canonical + "=", to = lead + alias + "=";
        size_t at = msg.find(from, got);
        if (at != std::string::npos && (end == std::string::npos || at < end)) {
          msg.replace(at, from.size(), to);
          break;
        }
      }
    }
    std::string from = "keyword argument '" + canonical + "'";
    size_t at = msg.find(from);
    if (at != std::string::npos) msg.replace(at, from.size(), "keyword argument '" + alias + "'");
  }
  return msg;
}

// PyTorch's parser takes a method's ints as one list when that list is the signature's only positional
// parameter (python_arg_parser.cpp's allow_varargs_intlist): x.squeeze(0, 1) is x.squeeze((0, 1)). Here: the
// call's arguments with its positional arguments after self packed into one tuple, when the first is int-like
// and an overload of chain has that shape, else an empty vector. Tried only once no overload took the call as
// written; as PyTorch's, the list's own errors then stand (x.squeeze(0, 'a'): "failed to unpack").
std::vector<py::object> varargs_intlist(const py::detail::function_record* chain, PyObject* const* args,
                                        size_t nargs, PyObject* kwnames) {
  // the first argument as PyTorch's is_int_or_symint: an int (not a bool), a one-element integral tensor
  // (bool too), a NumPy int
  int64_t first = 0;
  if (!chain->is_method || nargs < 2 || !int_list_item(args[1], true, false, &first)) return {};
  bool shaped = false;
  for (const py::detail::function_record* r = chain; r && !shaped; r = r->next) {
    Sig sig = parse_signature(r->signature);
    int positional = 0;
    bool list = false;
    for (size_t k = 1; k < sig.params.size(); ++k)
      if (!sig.params[k].kw_only) {
        ++positional;
        list = sig.params[k].type == "tuple of ints";
      }
    shaped = positional == 1 && list;
  }
  if (!shaped) return {};
  std::vector<py::object> out;
  out.push_back(py::reinterpret_borrow<py::object>(args[0]));
  py::tuple ints(nargs - 1);
  for (size_t i = 1; i < nargs; ++i) ints[i - 1] = py::reinterpret_borrow<py::object>(args[i]);
  out.push_back(std::move(ints));
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); ++k)
    out.push_back(py::reinterpret_borrow<py::object>(args[nargs + static_cast<size_t>(k)]));
  return out;
}

// whether the TypeError set is an overload refusal (pybind11's or its rewording), not an argument's own error
bool refused_as_written() {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  PyObject* str = v ? PyObject_Str(v) : nullptr;
  const char* utf8 = str ? PyUnicode_AsUTF8(str) : nullptr;
  bool refused = utf8 && (std::strstr(utf8, "incompatible function arguments") ||
                          std::strstr(utf8, "received an invalid combination of arguments"));
  if (!utf8) PyErr_Clear();
  Py_XDECREF(str);
  PyErr_Restore(t, v, tb);
  return refused;
}

PyObject* dispatch(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const int out_taken = g_out_taken;
  g_out_taken = 0;      // (the calls it makes are its own)
  PyObject* fn = self;  // the function's own record capsule (an out= call goes to its overload alone)
  if (kwnames && g_out_name)
    if (const OutEntry* o = out_overload(self, kwnames)) {
      // a direct write's result or its error; null without an error: the overload takes the call
      if (PyObject* r = o->fast(o->ctx, args, PyVectorcall_NARGS(nargsf), kwnames); r || PyErr_Occurred())
        return r;
      self = o->overload;
    }
  Refusals& rs = g_refusals;
  if (rs.depth == 0) rs.n = 0;
  int base = rs.n;
  ++rs.depth;
  PyObject* r = g_pybind_dispatch(self, args, nargsf, kwnames);
  --rs.depth;
  if (r || !PyErr_ExceptionMatches(PyExc_TypeError)) {
    rs.n = base;
    return r;
  }
  const py::detail::function_record* chain = py::detail::function_record_ptr_from_PyObject(self);
  if (!chain || !chain->name) {
    rs.n = base;
    return r;
  }
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  std::string msg;
  try {
    std::string text = py::str(value);
    if (text.rfind(std::string(chain->name) + "(): incompatible function arguments", 0) == 0) {
      std::vector<py::object> packed = varargs_intlist(chain, args, PyVectorcall_NARGS(nargsf), kwnames);
      if (!packed.empty()) {
        std::vector<PyObject*> raw;
        for (const py::object& o : packed) raw.push_back(o.ptr());
        const Refusals saved = rs;  // the message of a call the retry refuses too reads the first refusals
        rs.n = base;
        g_out_taken = out_taken;
        PyObject* again = dispatch(fn, raw.data(), 2, kwnames);
        if (again || !PyErr_ExceptionMatches(PyExc_TypeError) || !refused_as_written()) {
          Py_XDECREF(type);
          Py_XDECREF(value);
          Py_XDECREF(tb);
          return again;
        }
        PyErr_Clear();  // no overload took the list either (a keyword): the call's own message
        rs = saved;
      }
      std::vector<std::pair<std::string, std::string>> renamed;
      if (kwnames && numpy_aliases_apply(chain->name))
        if (py::object names = numpy_kwnames(chain, kwnames, renamed)) {
          rs.n = base;
          Py_XDECREF(type);
          Py_XDECREF(value);
          Py_XDECREF(tb);
          g_out_taken = out_taken;
          PyObject* again = dispatch(fn, args, nargsf, names.ptr());
          if (again || !PyErr_ExceptionMatches(PyExc_TypeError)) return again;
          // (no C++ exception may leave here: the outer handler would restore the released error)
          PyObject *t2, *v2, *tb2;
          PyErr_Fetch(&t2, &v2, &tb2);
          PyErr_NormalizeException(&t2, &v2, &tb2);
          PyObject* str = v2 ? PyObject_Str(v2) : nullptr;
          const char* utf8 = str ? PyUnicode_AsUTF8(str) : nullptr;
          if (!utf8) {
            Py_XDECREF(str);
            PyErr_Clear();
            PyErr_Restore(t2, v2, tb2);
            return nullptr;
          }
          std::string respelled = numpy_respell(utf8, renamed);
          Py_DECREF(str);
          Py_XDECREF(t2);
          Py_XDECREF(v2);
          Py_XDECREF(tb2);
          PyErr_SetString(PyExc_TypeError, respelled.c_str());
          return nullptr;
        }
      auto dep = g_deprecated.find(fn);
      const bool with_out = g_out_overloads.count(fn) > 0;
      if (dep != g_deprecated.end()) {
        chain = py::detail::function_record_ptr_from_PyObject(fn);
        ++rs.depth;  // the handler's own calls keep this call's refusals, which reword reads
        PyObject* result =
            try_deprecated(dep->second, chain, args, PyVectorcall_NARGS(nargsf), kwnames, with_out);
        --rs.depth;
        if (result != Py_NotImplemented) {
          rs.n = base;
          Py_XDECREF(type);
          Py_XDECREF(value);
          Py_XDECREF(tb);
          return result;  // (nullptr: the handler's error stands)
        }
      }
      msg = reword(chain, args, PyVectorcall_NARGS(nargsf), kwnames, base, dep != g_deprecated.end(),
                   with_out, out_taken, g_out_every.count(fn) > 0);
    } else if (kwnames)
      msg = unposition(text, chain->name, args + PyVectorcall_NARGS(nargsf), kwnames);
  } catch (...) {  // a message we cannot word keeps pybind11's
    PyErr_Clear();
    msg.clear();
  }
  rs.n = base;
  if (msg.empty()) {
    PyErr_Restore(type, value, tb);
    return nullptr;
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  PyErr_SetString(PyExc_TypeError, msg.c_str());
  return nullptr;
}

// Outside a transform the protocol is off, yet a program may hold a tensor-like there: an fx Proxy over a
// graph it builds by hand (`torch.cat([Proxy(a, tracer), Proxy(b, tracer)])`), a user's __torch_function__
// type. PyTorch's parser looks for one before binding; we look only once nothing bound the call (a
// TypeError), so eager calls pay nothing, and a value no overload takes reaches its __torch_function__ as in
// PyTorch. `method` names a Tensor method, else `record` is a function's. The binding error stands when no
// argument overrides.
PyObject* torch_function_after_bind_error(PyObject* record, const char* method, PyObject* const* args,
                                          size_t nargsf, PyObject* kwnames) {
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return nullptr;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  import_overrides();  // the hooks are its: the first refused call imports it
  bool handled = false;
  PyObject* r = method ? tensor_method_torch_function(method, args, nargsf, kwnames, &handled)
                       : function_torch_function(record, args, nargsf, kwnames, &handled);
  if (handled || PyErr_Occurred()) {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return r;
  }
  PyErr_Restore(type, value, tb);
  return nullptr;
}

// A Tensor method looks for __torch_function__ arguments first (torch_function.cpp), then binds as any
// function.
PyObject* dispatch_method(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const char* name = py::detail::function_record_ptr_from_PyObject(self)->name;
  if (g_tf_on) {
    bool handled = false;
    PyObject* r = tensor_method_torch_function(name, args, nargsf, kwnames, &handled);
    if (handled) return r;
  } else if (g_subclass_tf) {
    bool handled = false;
    PyObject* r = subclass_call(SubclassCall::method, name, args, nargsf, kwnames, &handled);
    if (handled) return r;
  }
  PyObject* r = dispatch(self, args, nargsf, kwnames);
  if (!r && !g_tf_on) return torch_function_after_bind_error(self, name, args, nargsf, kwnames);
  return r;
}

// A Tensor operator (`a + b`, `-a`, `a == b`) looks for an instance of a Tensor subclass only: a foreign
// operand gets NotImplemented from the operator itself, so Python asks its reflected method.
PyObject* dispatch_operator(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  if (g_subclass_tf) {
    bool handled = false;
    PyObject* r = subclass_call(SubclassCall::op, py::detail::function_record_ptr_from_PyObject(self)->name,
                                args, nargsf, kwnames, &handled);
    if (handled) return r;
  }
  return dispatch(self, args, nargsf, kwnames);
}

// A module function (or static method) does the same, so that one bound to a name before the protocol was
// switched on (`from torch import sin`) still reaches a BatchedTensor's, a DualTensor's or a Proxy's
// __torch_function__; the handler answers NotImplemented for a function outside the torch namespaces.
PyObject* dispatch_function(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  if (g_tf_on) {
    bool handled = false;
    PyObject* r = function_torch_function(self, args, nargsf, kwnames, &handled);
    if (handled) return r;
  } else if (g_subclass_tf) {
    bool handled = false;
    PyObject* r = subclass_call_record(self, args, nargsf, kwnames, &handled);
    if (handled) return r;
  }
  PyObject* r = dispatch(self, args, nargsf, kwnames);
  if (!r && !g_tf_on) return torch_function_after_bind_error(self, nullptr, args, nargsf, kwnames);
  return r;
}

enum class Route { plain, method, function, op, getter };

// The Tensor properties' getters, which hand a subclass instance to its __torch_function__ (PyTorch's hands
// it every getter: T, data, grad, requires_grad, is_leaf...), by their pybind11 records
std::unordered_map<PyObject*, std::string> g_getter_names;

PyObject* dispatch_getter(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  if (g_subclass_tf && PyVectorcall_NARGS(nargsf) > 0 && Py_TYPE(args[0]) != g_tensor_type) {
    auto it = g_getter_names.find(self);
    bool handled = false;
    PyObject* r = it == g_getter_names.end() ? nullptr
                                             : subclass_call(SubclassCall::getter, it->second.c_str(), args,
                                                             nargsf, kwnames, &handled);
    if (handled) return r;
  }
  return dispatch(self, args, nargsf, kwnames);
}

// The Tensor operators that hand a subclass instance to its __torch_function__ (the in-place ones are
// methods)
bool tensor_operator(const char* name) {
  static const std::unordered_set<std::string> ops = {
      "__add__",      "__radd__",     "__sub__",       "__rsub__",   "__mul__",     "__rmul__", "__truediv__",
      "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",    "__rmod__",    "__pow__",  "__rpow__",
      "__matmul__",   "__rmatmul__",  "__and__",       "__rand__",   "__or__",      "__ror__",  "__xor__",
      "__rxor__",     "__lshift__",   "__rlshift__",   "__rshift__", "__rrshift__", "__eq__",   "__ne__",
      "__lt__",       "__le__",       "__gt__",        "__ge__",     "__neg__",     "__pos__",  "__abs__",
      "__invert__",   "__bool__",     "__float__",     "__int__",    "__index__",   "__len__",  "__complex__",
      "__contains__"};
  return ops.count(name) > 0;
}

void route(PyObject* f, Route kind) {
  if (!f || !PyCFunction_Check(f)) return;
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(f)->m_ml;
  Dispatcher to = kind == Route::method     ? &dispatch_method
                  : kind == Route::function ? &dispatch_function
                  : kind == Route::op       ? &dispatch_operator
                  : kind == Route::getter   ? &dispatch_getter
                                            : &dispatch;
  if (reinterpret_cast<void (*)()>(def->ml_meth) == reinterpret_cast<void (*)()>(g_pybind_dispatch))
    def->ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(to));
}

// Every function of a module or class of _C, and of the submodules and classes it holds.
void route_all(py::handle scope, std::vector<PyObject*>& seen) {
  for (PyObject* s : seen)
    if (s == scope.ptr()) return;
  seen.push_back(scope.ptr());
  PyObject* dict = PyModule_Check(scope.ptr()) ? PyModule_GetDict(scope.ptr())
                                               : reinterpret_cast<PyTypeObject*>(scope.ptr())->tp_dict;
  if (!dict) return;
  PyObject *key, *v;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &v)) {
    if (PyCFunction_Check(v)) {
      // Tensor.__init__'s question to the binding about its own instance is no torch function: a subclass's
      // handler must never see it (a MaskedTensor's refuses what it does not know)
      const char* name = PyUnicode_AsUTF8(key);
      route(v, name && std::strcmp(name, "_tensor_is_built") == 0 ? Route::plain : Route::function);
    } else if (PyInstanceMethod_Check(v)) {
      bool tensor = scope.ptr() == reinterpret_cast<PyObject*>(g_tensor_type);
      const char* name = PyUnicode_AsUTF8(key);
      route(PyInstanceMethod_GET_FUNCTION(v), !tensor                          ? Route::plain
                                              : tensor_method_dispatches(name) ? Route::method
                                              : tensor_operator(name)          ? Route::op
                                                                               : Route::plain);
    } else if (Py_TYPE(v) == &PyProperty_Type && scope.ptr() == reinterpret_cast<PyObject*>(g_tensor_type)) {
      const char* name = PyUnicode_AsUTF8(key);
      py::object fget = py::reinterpret_borrow<py::object>(v).attr("fget");
      if (name && PyCFunction_Check(fget.ptr())) {
        g_getter_names[PyCFunction_GET_SELF(fget.ptr())] = name;
        route(fget.ptr(), Route::getter);
      }
    } else if (Py_TYPE(v) == &PyStaticMethod_Type) {
      py::object f = py::reinterpret_borrow<py::object>(v).attr("__func__");
      route(f.ptr(), Route::function);
    } else if (PyType_Check(v) || PyModule_Check(v)) {
      py::object mod =
          py::reinterpret_borrow<py::object>(v).attr(PyModule_Check(v) ? "__name__" : "__module__");
      if (std::string(py::str(mod)).rfind("minitorch._C", 0) == 0) route_all(v, seen);
    }
  }
}

}  // namespace

void register_out_overload(py::handle fn, py::object overload, bool every_signature, OutFast fast,
                           const void* ctx) {
  PyObject* self = PyCFunction_GET_SELF(fn.ptr());
  if (every_signature) g_out_every.insert(self);
  // not where an overload before it (all but the last) could take out= itself: a parameter named out, or
  // **kwargs
  for (auto* r = py::detail::function_record_ptr_from_PyObject(self); r && r->next; r = r->next) {
    if (r->has_kwargs) return;
    for (const auto& a : r->args)
      if (a.name && !std::strcmp(a.name, "out")) return;
  }
  if (!g_out_name) g_out_name = PyUnicode_InternFromString("out");
  // held for the process, as the module holds fn
  g_out_overloads[self] = {Py_NewRef(PyCFunction_GET_SELF(overload.ptr())), fast, ctx};
}

bool refuse(PyObject* o, const char* kind) {
  Refusals& rs = g_refusals;
  if (rs.n < kMaxRefusals) rs.r[rs.n++] = {o, kind};
  return false;
}

bool deprecated_overload_first_use() {
  static bool used = false;  // one flag for every deprecated signature: PyTorch warns once per process
  return !std::exchange(used, true);
}

void init_argument_errors(py::module_& m) {
  // PyTorch's deprecated signatures of a function or Tensor method: `handler(args, kwargs, listed)` (see
  // g_deprecated), tried once no overload takes a call
  m.def("_register_deprecated", [](py::handle fn, py::object handler) {
    PyObject* f = PyInstanceMethod_Check(fn.ptr()) ? PyInstanceMethod_GET_FUNCTION(fn.ptr()) : fn.ptr();
    MT_CHECK_TYPE(
        PyCFunction_Check(f) && py::detail::function_record_ptr_from_PyObject(PyCFunction_GET_SELF(f)),
        "_register_deprecated: not a function of _C");
    PyObject*& slot = g_deprecated[PyCFunction_GET_SELF(f)];
    Py_XDECREF(slot);
    slot = handler.release().ptr();  // held for the process, as the module holds fn
  });
  m.def("_deprecated_overload_first_use", &deprecated_overload_first_use);
  // the same message for the functions written in Python (_argcheck.py): options as "(Tensor input, ...)"
  m.def("_format_invalid_args", &format_invalid_args);
  py::object probe = m.attr("eye");  // any function pybind11 bound: its dispatcher is every one's
  MT_INTERNAL_ASSERT(PyCFunction_Check(probe.ptr()) &&
                         py::detail::function_record_ptr_from_PyObject(PyCFunction_GET_SELF(probe.ptr())),
                     "init_argument_errors: eye is not a pybind11 function");
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(probe.ptr())->m_ml;
  // pybind11 3's dispatcher is a vectorcall (METH_FASTCALL); 2.x's takes an argument tuple, which `dispatch`
  // cannot stand in for: there the messages stay pybind11's
  if (!(def->ml_flags & METH_FASTCALL)) return;
  g_pybind_dispatch = reinterpret_cast<Dispatcher>(reinterpret_cast<void (*)()>(def->ml_meth));
  std::vector<PyObject*> seen;
  route_all(m, seen);
}

}  // namespace mt
