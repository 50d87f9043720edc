// Bindings of the reduce op family (ops/reduce.h) that csrc/ops/ops.schema cannot declare yet (several
// signatures in one name, arguments PyTorch reads in more than one way); max/min along a dim return a
// (values, indices) named tuple of minitorch.return_types. The others are generated from the schema.
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "python/bind.h"

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

// max(input), max(input, dim, keepdim) -> (values, indices), max(input, other) -> maximum
py::object max_min(const Tensor& x, py::handle dim, bool keepdim, bool is_max) {
  if (dim.is_none()) return py::cast(nogil([&] { return is_max ? max(x) : min(x); }, x));
  if (py::isinstance<TensorImpl>(dim)) {
    Tensor o = dim.cast<Tensor>();
    return py::cast(nogil([&] { return is_max ? maximum(x, o) : minimum(x, o); }, x, o));
  }
  int64_t d = dim.cast<int64_t>();
  auto r = nogil([&] { return is_max ? max(x, d, keepdim) : min(x, d, keepdim); }, x);
  return values_indices(is_max ? "max" : "min", r);
}

// p as PyTorch's norm takes it: a number, inf, None or "fro" (2-norm over the given dims).
double parse_p(py::handle p) {
  if (p.is_none()) return 2.0;
  if (py::isinstance<py::str>(p)) {
    std::string s = p.cast<std::string>();
    if (s == "fro") return 2.0;
    MT_CHECK_NOT_IMPLEMENTED(s != "nuc", "norm(p='nuc') is not implemented");
    MT_ERROR("norm(): p must be a number, inf, 'fro' or 'nuc', got '", s, "'");
  }
  return p.cast<double>();
}

// var/std: (dim, unbiased, keepdim, *, correction) where std(x, True) passes unbiased positionally, as
// PyTorch allows.
Tensor var_std(const Tensor& x, py::handle dim, py::handle unbiased, bool keepdim, py::handle correction,
               bool is_std) {
  if (PyBool_Check(dim.ptr())) {
    MT_CHECK_TYPE(unbiased.is_none(), "std/var(): unbiased given twice");
    unbiased = dim;
    dim = py::none();
  }
  MT_CHECK(unbiased.is_none() || correction.is_none(),
           "std/var(): cannot specify both unbiased and correction");
  double c = 1.0;
  if (!unbiased.is_none()) c = unbiased.cast<bool>() ? 1.0 : 0.0;
  if (!correction.is_none()) c = correction.cast<double>();
  DimVector dims = parse_dims(dim);
  return nogil([&] { return is_std ? std(x, dims, c, keepdim) : var(x, dims, c, keepdim); }, x);
}

}  // namespace

void init_reduce(py::module_& m, TensorClass& cls) {
  // sum/mean/prod: (dim=None, keepdim=False, *, dtype=None)
  using DTypeReduce = Tensor (*)(const Tensor&, IntArrayRef, bool, ScalarType);
  const std::pair<const char*, DTypeReduce> dtype_reductions[] = {
      {"sum", &sum}, {"mean", &mean}, {"prod", &prod}};
  for (auto [name, fn] : dtype_reductions) {
    DTypeReduce f = fn;
    auto call = [f](const Tensor& x, py::handle dim, StrictBool keepdim, py::handle dtype) {
      DimVector dims = parse_dims(dim);
      ScalarType dt = parse_dtype(dtype);
      return nogil([&] { return f(x, dims, keepdim, dt); }, x);
    };
    m.def(name, call, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false,
          py::kw_only(), py::arg("dtype") = py::none());
    cls.def(name, call, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
            py::arg("dtype") = py::none());
  }

  using PlainReduce = Tensor (*)(const Tensor&, IntArrayRef, bool);
  const std::pair<const char*, PlainReduce> plain[] = {
      {"amax", &amax}, {"amin", &amin}, {"all", &all}, {"any", &any}};
  for (auto [name, fn] : plain) {
    PlainReduce f = fn;
    bool logical = std::string(name) == "all" || std::string(name) == "any";
    auto call = [f, logical](const Tensor& x, py::handle dim, StrictBool keepdim) {
      DimVector dims = parse_dims(dim);
      // all/any over an explicit empty dim list reduce nothing (PyTorch: elementwise, x.all([]) keeps x's
      // shape), where amax/amin and the sums read it as every dim
      if (logical && dims.empty() && !dim.is_none())
        return nogil([&] { return f(unsqueeze(x, x.dim()), {x.dim()}, false); }, x);
      return nogil([&] { return f(x, dims, keepdim); }, x);
    };
    m.def(name, call, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
    cls.def(name, call, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  }

  for (bool is_std : {false, true}) {
    auto call = [is_std](const Tensor& x, py::handle dim, py::handle unbiased, StrictBool keepdim,
                         py::handle correction) {
      return var_std(x, dim, unbiased, keepdim, correction, is_std);
    };
    const char* name = is_std ? "std" : "var";
    m.def(name, call, py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
          py::arg("keepdim") = false, py::kw_only(), py::arg("correction") = py::none());
    cls.def(name, call, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
            py::arg("keepdim") = false, py::kw_only(), py::arg("correction") = py::none());
  }

  // var_mean / std_mean: (var or std, mean) over the same dims
  for (bool is_std : {false, true}) {
    auto call = [is_std](const Tensor& x, py::handle dim, py::handle unbiased, StrictBool keepdim,
                         py::handle correction) {
      MT_CHECK_NOT_IMPLEMENTED(is_inexact(x.dtype()), is_std ? "std_mean" : "var_mean",
                               " only support floating point and complex dtypes");
      Tensor spread = var_std(x, dim, unbiased, keepdim, correction, is_std);
      py::handle d = PyBool_Check(dim.ptr()) ? py::handle(py::none()) : dim;
      DimVector dims = parse_dims(d);
      return py::make_tuple(spread, nogil([&] { return welford_mean(x, dims, keepdim); }, x));
    };
    const char* name = is_std ? "std_mean" : "var_mean";
    m.def(name, call, py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
          py::arg("keepdim") = false, py::kw_only(), py::arg("correction") = py::none());
  }

  auto norm_fn = [](const Tensor& x, py::handle p, py::handle dim, StrictBool keepdim, py::handle dtype) {
    ScalarType dt = parse_dtype(dtype);
    double pv = parse_p(p);
    DimVector dims = parse_dims(dim);
    return nogil(
        [&] {
          Tensor in = dt == ScalarType::Undefined ? x : x.dtype() == dt ? x : to(x, dt, x.device());
          return norm(in, pv, dims, keepdim);
        },
        x);
  };
  // torch.equal's comparison, behind python/minitorch/_compare.py's argument checks
  m.def("_equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); });
  m.def("norm", norm_fn, py::arg("input"), py::arg("p") = "fro", py::arg("dim") = py::none(),
        py::arg("keepdim") = false, py::arg("dtype") = py::none());
  cls.def("norm", norm_fn, py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false,
          py::arg("dtype") = py::none());

  for (bool is_max : {true, false}) {
    const char* name = is_max ? "max" : "min";
    auto call = [is_max](const Tensor& x, py::handle dim, StrictBool keepdim) {
      return max_min(x, dim, keepdim, is_max);
    };
    m.def(name, call, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
    cls.def(name, call, py::arg("dim") = py::none(), py::arg("keepdim") = false);
    // max(input, other=...) spelled with the keyword
    auto other = [is_max](const Tensor& x, const Tensor& o) {
      return nogil([&] { return is_max ? maximum(x, o) : minimum(x, o); }, x, o);
    };
    m.def(name, other, py::arg("input"), py::arg("other"));
    cls.def(name, other, py::arg("other"));
  }
}

}  // namespace mt
