// Bindings of the reduce op family (ops/reduce.h) that csrc/ops/ops.schema's signatures cannot say (its
// `binding: own` rows: several of PyTorch's overloads in one name, arguments PyTorch reads in more than one
// way); max/min along a dim return a (values, indices) named tuple of minitorch.return_types. The others are
// generated from the schema.
#include <cstring>

#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "python/bind.h"
#include "python/bind_factory.h"
#include "python/bind_shape.h"
#include "python/python_functions.h"

namespace mt {
// std/var's argument kinds, so their three overloads refuse what PyTorch's parser refuses (a bool or None for
// unbiased beside a dim, a number where a dim belongs): dims as "tuple of ints" (an int or a list/tuple of
// ints, None only where the overload says so) and correction as "Number" (a number, or a 0-dim tensor without
// grad).
struct OptDims {
  DimVector dims;  // empty: every dim
};
struct OptNumber {
  std::optional<double> v;
};
// sum/mean/prod's `ScalarType? dtype` as PyTorch's parser reads it: None, a dtype, or float/int/bool (a
// string is refused, so a call no signature takes gets PyTorch's TypeError)
struct OptDtype {
  ScalarType st = ScalarType::Undefined;
};
// sum/mean's `int[1]? dim`: what SizedIntListArg takes, and None; int_list_arg reads the elements in its own
// messages
struct OptDimList {
  py::handle h;
};
struct DimArg {
  py::handle h;
};
// all/any's `int[]? dim=None`: None, or a list or tuple (its first element an int or a one-element integer or
// bool tensor); no lone value stands for it (that is their `int dim` overload's)
struct OptIntListArg {
  py::handle h;
};
}  // namespace mt

namespace pybind11 {
namespace detail {
template <>
struct type_caster<mt::OptDims> {
  PYBIND11_TYPE_CASTER(mt::OptDims, const_name("tuple of ints | None"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    value = mt::OptDims();
    if (o == Py_None) return true;
    int64_t v = 0;
    // PyTorch's int[1]? dim: one int, or a one-element integer (or bool) tensor standing for it
    if (mt::int_list_item(o, /*first=*/true, /*symint=*/false, &v)) {
      value.dims.push_back(v);
      return true;
    }
    if (!PyList_Check(o) && !PyTuple_Check(o)) return mt::refuse(o, "tuple of ints | None");
    for (Py_ssize_t i = 0, n = PySequence_Fast_GET_SIZE(o); i < n; ++i) {
      // the elements as PyTorch's int lists read them: one-element integer (or bool) tensors too, and a
      // Python bool anywhere but first
      if (!mt::int_list_item(PySequence_Fast_GET_ITEM(o, i), /*first=*/i == 0, /*symint=*/false, &v))
        return mt::refuse(o, "tuple of ints | None");
      value.dims.push_back(v);
    }
    return true;
  }
  static handle cast(const mt::OptDims&, return_value_policy, handle) { return none().release(); }
};
template <>
struct type_caster<mt::OptNumber> {
  PYBIND11_TYPE_CASTER(mt::OptNumber, const_name("Number | None"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    value.v.reset();
    if (o == Py_None) return true;
    if (mt::is_python_scalar(src) && !PyComplex_Check(o)) {
      value.v = PyFloat_AsDouble(o);
      return true;
    }
    if (mt::g_tensor_type && PyObject_TypeCheck(o, mt::g_tensor_type)) {
      mt::Tensor t = src.cast<mt::Tensor>();
      if (t.dim() == 0 && !t.requires_grad() && !mt::is_complex(t.dtype())) {
        value.v = mt::item(t).to_double();
        return true;
      }
    }
    return mt::refuse(o, "Number | None");
  }
  static handle cast(const mt::OptNumber& n, return_value_policy, handle) {
    return n.v ? PyFloat_FromDouble(*n.v) : none().release();
  }
};
template <>
struct type_caster<mt::OptDtype> {
  PYBIND11_TYPE_CASTER(mt::OptDtype, const_name("torch.dtype | None"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    const bool python_type = o == reinterpret_cast<PyObject*>(&PyFloat_Type) ||
                             o == reinterpret_cast<PyObject*>(&PyLong_Type) ||
                             o == reinterpret_cast<PyObject*>(&PyBool_Type);
    if (o != Py_None && !python_type && !isinstance<mt::DType>(src))
      return mt::refuse(o, "torch.dtype | None");
    value.st = mt::parse_dtype(src);
    return true;
  }
  static handle cast(const mt::OptDtype&, return_value_policy, handle) { return none().release(); }
};
template <>
struct type_caster<mt::OptDimList> {
  PYBIND11_TYPE_CASTER(mt::OptDimList, const_name("tuple of ints | None"));
  bool load(handle src, bool convert) {
    value.h = src;
    if (src.is_none()) return true;
    if (make_caster<mt::SizedIntListArg>().load(src, convert)) return true;
    return false;  // (the list's caster recorded the refusal)
  }
  static handle cast(const mt::OptDimList& d, return_value_policy, handle) { return d.h.inc_ref(); }
};
template <>
struct type_caster<mt::OptIntListArg> {
  PYBIND11_TYPE_CASTER(mt::OptIntListArg, const_name("tuple of ints | None"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    value.h = src;
    if (o == Py_None ||
        ((PyList_Check(o) || PyTuple_Check(o)) &&
         (PySequence_Fast_GET_SIZE(o) == 0 || mt::int_list_head(PySequence_Fast_GET_ITEM(o, 0)))))
      return true;
    return mt::refuse(o, "tuple of ints | None");
  }
  static handle cast(const mt::OptIntListArg& d, return_value_policy, handle) { return d.h.inc_ref(); }
};
template <>
struct type_caster<mt::DimArg> {
  PYBIND11_TYPE_CASTER(mt::DimArg, const_name("int"));
  bool load(handle src, bool) {
    value.h = src;
    int64_t v = 0;
    // PyTorch's `int dim`: an int or a 0-dim integer tensor (not bool, not one of shape [1], not a list:
    // prod(x, (2, 3)) is its TypeError)
    if (mt::load_strict_int(src.ptr(), &v)) return true;
    return mt::refuse(src.ptr(), "int");
  }
  static handle cast(const mt::DimArg& d, return_value_policy, handle) { return d.h.inc_ref(); }
};
}  // namespace detail
}  // namespace pybind11

namespace mt {

// (also used by bind_sort.cpp)
// torch.return_types.max and friends: the classes of minitorch/return_types.py (tuples that unpack and also
// expose .values/.indices), looked up once per name.
py::object return_type(const char* name) {
  static py::dict* types = new py::dict();  // leaked on purpose: outlives interpreter teardown order
  if (!types->contains(name)) (*types)[name] = py::module_::import("minitorch.return_types").attr(name);
  return (*types)[name];
}

py::object values_indices(const char* name, const std::tuple<Tensor, Tensor>& r) {
  return return_type(name)(py::cast(std::get<0>(r)), py::cast(std::get<1>(r)));
}

namespace {

// p as PyTorch's norm takes it: a number, inf, None or "fro" (2-norm over the given dims).
// The dtype= checks of the norms (torch.norm here, linalg's vector_norm and matrix_norm through
// _C._check_norm_dtype): a floating or complex dtype of the input's kind that the input converts to without
// narrowing; Undefined (dtype=None) passes.
void check_norm_dtype(ScalarType dt, ScalarType input, const char* fn) {
  if (dt == ScalarType::Undefined) return;
  MT_CHECK(is_inexact(dt), fn, ": dtype should be floating point or complex, but got ", dtype_short_name(dt));
  const char* kind = is_complex(input) ? "complex" : "real";
  MT_CHECK(is_complex(dt) == is_complex(input), fn, ": dtype should be ", kind, " for ", kind,
           " inputs, but got ", dtype_short_name(dt));
  MT_CHECK(promote_types(input, dt) == dt, fn, ": the dtype of the input (", dtype_short_name(input),
           ") should be convertible without narrowing to the specified dtype (", dtype_short_name(dt), ")");
}

// torch.norm's p for linalg.vector_norm (a string p never reaches here but 'fro', which is 2)
double parse_p(py::handle p) {
  if (p.is_none() || py::isinstance<py::str>(p)) return 2.0;
  // a tensor p reaches linalg.vector_norm's parser in PyTorch: a Number there, so 0-dim without grad only
  if (py::isinstance<TensorImpl>(p)) {
    const Tensor t = p.cast<Tensor>();
    if (t.dim() != 0 || t.requires_grad())
      throw py::type_error("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not Tensor");
  }
  // anything else no Number either (a list, a dtype): the same parser's TypeError
  if (!PyNumber_Check(p.ptr()))
    throw py::type_error("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not " +
                         arg_type_name(p));
  MT_CHECK(!PyComplex_Check(p.ptr()),
           "linalg.vector_norm: Expected a non-complex scalar as the order of norm.");
  return p.cast<double>();
}

// PyTorch's torch.norm sends a string p to linalg.matrix_norm (nuclear norms, and the errors of a bad order
// or dim) except 'fro' over at most two dims, which is the vector 2-norm; no dim means every dim there
bool norm_is_matrix(py::handle p, py::handle dim) {
  if (!py::isinstance<py::str>(p)) return false;
  if (p.cast<std::string>() != "fro") return true;
  return !dim.is_none() && (PyList_Check(dim.ptr()) || PyTuple_Check(dim.ptr())) && py::len(dim) > 2;
}

}  // namespace

void init_reduce(py::module_& m, TensorClass& cls) {
  // sum/mean: PyTorch's two signatures, (*, dtype=None) over every element and (dim, bool keepdim=False, *,
  // dtype=None) whose dim may be None but must be given (sum(x, keepdim=True) is no call of PyTorch's)
  using DTypeReduce = Tensor (*)(const Tensor&, IntArrayRef, bool, ScalarType);
  const std::pair<const char*, DTypeReduce> dtype_reductions[] = {
      {"sum", &sum}, {"mean", &mean}, {"prod", &prod}};
  for (auto [name, fn] : dtype_reductions) {
    auto all = [f = fn](const Tensor& x, OptDtype dtype) {
      return nogil([&] { return f(x, IntArrayRef(), false, dtype.st); }, x);
    };
    // pos: dim's position in PyTorch's message (the function's 2, the method's 1). prod's dim is one int,
    // never None
    auto dims = [f = fn, name = name](int pos) {
      return [f, name, pos](const Tensor& x, OptDimList dim, StrictBool keepdim, OptDtype dtype) {
        DimVector d = int_list_arg(dim.h, name, "dim", pos);
        return nogil([&] { return f(x, d, keepdim, dtype.st); }, x);
      };
    };
    auto prod_dims = [pos_dims = dims](int pos) {
      return [call = pos_dims(pos)](const Tensor& x, DimArg dim, StrictBool keepdim, OptDtype dtype) {
        return call(x, OptDimList{dim.h}, keepdim, dtype);
      };
    };
    const bool is_prod = std::strcmp(name, "prod") == 0;
    m.def(name, all, py::arg("input"), py::kw_only(), py::arg("dtype") = py::none());
    cls.def(name, all, py::kw_only(), py::arg("dtype") = py::none());
    if (is_prod) {
      m.def(name, prod_dims(2), py::arg("input"), py::arg("dim"), py::arg("keepdim") = false, py::kw_only(),
            py::arg("dtype") = py::none());
      cls.def(name, prod_dims(1), py::arg("dim"), py::arg("keepdim") = false, py::kw_only(),
              py::arg("dtype") = py::none());
    } else {
      m.def(name, dims(2), py::arg("input"), py::arg("dim"), py::arg("keepdim") = false, py::kw_only(),
            py::arg("dtype") = py::none());
      cls.def(name, dims(1), py::arg("dim"), py::arg("keepdim") = false, py::kw_only(),
              py::arg("dtype") = py::none());
    }
  }

  using PlainReduce = Tensor (*)(const Tensor&, IntArrayRef, bool);
  const std::pair<const char*, PlainReduce> plain[] = {
      {"amax", &amax}, {"amin", &amin}, {"all", &all}, {"any", &any}};
  for (auto [name, fn] : plain) {
    bool logical = std::string(name) == "all" || std::string(name) == "any";
    auto call = [f = fn, name = name, logical](int pos) {
      return [f, name, logical, pos](const Tensor& x, py::handle dim, StrictBool keepdim) {
        DimVector dims = int_list_arg(dim, name, "dim", pos);
        // all/any over an explicit empty dim list reduce nothing (PyTorch: elementwise, x.all([]) keeps x's
        // shape), where amax/amin and the sums read it as every dim
        if (logical && dims.empty() && !dim.is_none())
          return nogil([&] { return f(unsqueeze(x, x.dim()), {x.dim()}, false); }, x);
        return nogil([&] { return f(x, dims, keepdim); }, x);
      };
    };
    if (!logical) {
      m.def(name, call(2), py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
      cls.def(name, call(1), py::arg("dim") = py::none(), py::arg("keepdim") = false);
      continue;
    }
    // all/any: PyTorch's three signatures in its order, (), (int[]? dim=None, keepdim) and (int dim,
    // keepdim), so a lone value is an int dim's (a 0-dim integer tensor, not a bool one) and a call none
    // takes gets its "invalid combination" TypeError
    auto whole = [f = fn](const Tensor& x) { return nogil([&] { return f(x, IntArrayRef(), false); }, x); };
    auto listed = [call](int pos) {
      return [c = call(pos)](const Tensor& x, OptIntListArg dim, StrictBool keepdim) {
        return c(x, dim.h, keepdim);
      };
    };
    auto one = [f = fn](const Tensor& x, StrictInt dim, StrictBool keepdim) {
      const int64_t d = dim;
      return nogil([&] { return f(x, IntArrayRef(&d, 1), keepdim); }, x);
    };
    m.def(name, whole, py::arg("input"));
    m.def(name, listed(2), py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
    m.def(name, one, py::arg("input"), py::arg("dim"), py::arg("keepdim") = false);
    cls.def(name, whole);
    cls.def(name, listed(1), py::arg("dim") = py::none(), py::arg("keepdim") = false);
    cls.def(name, one, py::arg("dim"), py::arg("keepdim") = false);
  }

  // count_nonzero: PyTorch's two signatures in its order, (int? dim=None) and (int[] dim); its method also
  // takes the dims as separate ints (x.count_nonzero(0, 1): PyTorch's parser reads a lone int list so), which
  // the method's last overload reads, raising PyTorch's TypeError for any other call the first two refused
  auto count_one = [](const Tensor& x, OptInt dim) {
    const std::optional<int64_t> d = dim;
    return nogil([&] { return count_nonzero(x, d); }, x);
  };
  auto count_list = [](int pos) {
    return [pos](const Tensor& x, IntListArg dim) {
      DimVector dims = int_list_value(dim.h, "count_nonzero", "dim", pos, /*symint=*/false, /*sized=*/false);
      return nogil([&] { return count_nonzero(x, IntArrayRef(dims)); }, x);
    };
  };
  m.def("count_nonzero", count_one, py::arg("input"), py::arg("dim") = py::none());
  m.def("count_nonzero", count_list(2), py::arg("input"), py::arg("dim"));
  cls.def("count_nonzero", count_one, py::arg("dim") = py::none());
  cls.def("count_nonzero", count_list(1), py::arg("dim"));
  cls.def("count_nonzero", [](const Tensor& x, const py::args& args, const py::kwargs& kw) {
    int64_t first = 0;
    // an int of any size starts the list (one past int64 is int_list_value's "failed to unpack", as
    // PyTorch's)
    PyObject* a0 = args.empty() ? nullptr : args[0].ptr();
    if (kw.empty() && a0 &&
        ((PyLong_Check(a0) && !PyBool_Check(a0)) || int_list_item(a0, true, false, &first))) {
      DimVector dims = int_list_value(args, "count_nonzero", "dim", 1, /*symint=*/false, /*sized=*/false);
      return nogil([&] { return count_nonzero(x, IntArrayRef(dims)); }, x);
    }
    throw py::type_error(
        format_invalid_args("count_nonzero", args, kw, {"(int dim = None)", "(tuple of ints dim)"}));
  });

  // std/var/std_mean/var_mean: PyTorch's three signatures, tried in its order: (dim, unbiased=True,
  // keepdim=False), (dim=None, *, correction=None, keepdim=False), (unbiased=True)
  for (int kind = 0; kind < 4; ++kind) {
    const bool is_std = kind % 2 == 1, with_mean = kind >= 2;
    const char* name = with_mean ? (is_std ? "std_mean" : "var_mean") : (is_std ? "std" : "var");
    auto run = [is_std, with_mean, name](const Tensor& x, const OptDims& dim, double correction,
                                         bool keepdim) -> py::object {
      // the dtype is checked before the dims are read (a bad dim of an integer tensor is NotImplementedError)
      MT_CHECK_NOT_IMPLEMENTED(is_inexact(x.dtype()), with_mean ? name : "std and var",
                               " only support floating point and complex dtypes");
      Tensor spread = nogil(
          [&] {
            return is_std ? std(x, dim.dims, correction, keepdim) : var(x, dim.dims, correction, keepdim);
          },
          x);
      // PyTorch warns when the correction leaves no degree of freedom (the result is inf or nan); counted
      // once the op has checked the dims in its order (each dim's range and repeats, left to right)
      double n = 1;
      if (dim.dims.empty())
        n = static_cast<double>(x.numel());
      else
        for (int64_t d : dim.dims)
          n *= static_cast<double>(x.dim() == 0 ? 1 : x.sizes()[wrap_dim(d, x.dim())]);
      if (n - correction <= 0)
        warn(std::string(name) +
             "(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
             "(input "
             "numel divided by output numel).");
      if (!with_mean) return py::cast(spread);
      return py::make_tuple(spread, nogil([&] { return welford_mean(x, dim.dims, keepdim); }, x));
    };
    auto by_dim = [run](const Tensor& x, const OptDims& dim, StrictBool unbiased, StrictBool keepdim) {
      return run(x, dim, unbiased ? 1.0 : 0.0, keepdim);
    };
    auto by_correction = [run](const Tensor& x, const OptDims& dim, const OptNumber& correction,
                               StrictBool keepdim) {
      return run(x, dim, correction.v.value_or(1.0), keepdim);
    };
    auto all = [run](const Tensor& x, StrictBool unbiased) {
      return run(x, OptDims(), unbiased ? 1.0 : 0.0, false);
    };
    m.def(name, by_dim, py::arg("input"), py::arg("dim"), py::arg("unbiased") = true,
          py::arg("keepdim") = false);
    m.def(name, by_correction, py::arg("input"), py::arg("dim") = py::none(), py::kw_only(),
          py::arg("correction") = py::none(), py::arg("keepdim") = false);
    m.def(name, all, py::arg("input"), py::arg("unbiased") = true);
    if (with_mean) continue;
    cls.def(name, by_dim, py::arg("dim"), py::arg("unbiased") = true, py::arg("keepdim") = false);
    cls.def(name, by_correction, py::arg("dim") = py::none(), py::kw_only(),
            py::arg("correction") = py::none(), py::arg("keepdim") = false);
    cls.def(name, all, py::arg("unbiased") = true);
  }

  auto norm_fn = [](const Tensor& x, py::handle p, py::handle dim, StrictBool keepdim, py::handle dtype) {
    if (norm_is_matrix(p, dim)) {
      py::object d = py::reinterpret_borrow<py::object>(dim);
      if (dim.is_none()) {
        py::list all;
        for (int64_t i = 0; i < x.dim(); ++i) all.append(i);
        d = all;
      } else if (PyLong_Check(dim.ptr())) {
        d = py::make_tuple(dim);
      }
      py::object matrix_norm = py::module_::import("minitorch.linalg").attr("matrix_norm");
      return matrix_norm(py::cast(x), p, d, keepdim.v, py::arg("dtype") = dtype).cast<Tensor>();
    }
    ScalarType dt = parse_dtype(dtype);
    double pv = parse_p(p);
    // vector_norm's int[1] reads a one-element integer or bool tensor as the dim and refuses any other tensor
    DimVector dims = py::isinstance<TensorImpl>(dim) ? int_list_value(dim, "linalg_vector_norm", "dim", 3,
                                                                      /*symint=*/false, /*sized=*/true)
                                                     : parse_dims(dim);
    // PyTorch's norm(dtype=) is vector_norm's: after its parser, the input's own dtype, then dtype=
    MT_CHECK_NOT_IMPLEMENTED(is_inexact(x.dtype()),
                             "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
                             dtype_short_name(x.dtype()));
    check_norm_dtype(dt, x.dtype(), "linalg.vector_norm");
    return nogil(
        [&] {
          Tensor in = dt == ScalarType::Undefined ? x : x.dtype() == dt ? x : to(x, dt, x.device());
          return norm(in, pv, dims, keepdim);
        },
        x);
  };
  m.def(
      "_check_norm_dtype",
      [](py::handle dtype, py::handle input_dtype, const std::string& fn) {
        check_norm_dtype(parse_dtype(dtype), parse_dtype(input_dtype), fn.c_str());
      },
      py::arg("dtype"), py::arg("input_dtype"), py::arg("fn"));
  // torch.equal's comparison, behind python/minitorch/_compare.py's argument checks
  m.def("_equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); });
  // torch.norm is Python in PyTorch: a tensor-like input gets the call (every parameter as a keyword,
  // out=None included), anything else is read as a tensor (input.layout first)
  m.def(
      "norm",
      [norm_fn](py::handle x, py::handle p, py::handle dim, StrictBool keepdim,
                py::handle dtype) -> py::object {
        if (!py::isinstance<TensorImpl>(x)) {
          if (python_function_overridden(x))
            return handle_python_function("norm", x, py::make_tuple(x), py::arg("p") = p,
                                          py::arg("dim") = dim, py::arg("keepdim") = keepdim.v,
                                          py::arg("out") = py::none(), py::arg("dtype") = dtype);
          throw py::attribute_error("'" + arg_type_name(x) + "' object has no attribute 'layout'");
        }
        return py::cast(norm_fn(x.cast<Tensor>(), p, dim, keepdim, dtype));
      },
      py::arg("input"), py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false,
      py::arg("dtype") = py::none());
  cls.def("norm", norm_fn, py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false,
          py::arg("dtype") = py::none());

  // max/min: PyTorch's three overloads in its order, (input) -> 0-dim, (input, other) -> maximum/minimum,
  // (input, int dim, bool keepdim=False) -> (values, indices); other is a TensorArg, so an int dim costs a
  // type check there, not pybind11's search for a foreign Tensor type
  for (bool is_max : {true, false}) {
    const char* name = is_max ? "max" : "min";
    auto all = [is_max](const Tensor& x) { return nogil([&] { return is_max ? max(x) : min(x); }, x); };
    auto other = [is_max](const Tensor& x, TensorArg other) {
      Tensor o = other.h.cast<Tensor>();
      return nogil([&] { return is_max ? maximum(x, o) : minimum(x, o); }, x, o);
    };
    auto by_dim = [is_max, name](const Tensor& x, StrictInt dim, StrictBool keepdim) {
      auto r = nogil([&] { return is_max ? max(x, dim, keepdim) : min(x, dim, keepdim); }, x);
      return values_indices(name, r);
    };
    m.def(name, all, py::arg("input"));
    m.def(name, other, py::arg("input"), py::arg("other"));
    m.def(name, by_dim, py::arg("input"), py::arg("dim"), py::arg("keepdim") = false);
    cls.def(name, all);
    cls.def(name, other, py::arg("other"));
    cls.def(name, by_dim, py::arg("dim"), py::arg("keepdim") = false);
  }
}

}  // namespace mt
