// Factory bindings: sizes as *args or a sequence, dtype/device/requires_grad keywords as PyTorch.
#include "python/bind_factory.h"

#include <cstring>
#include <random>

#include "autograd/Node.h"
#include "core/Generator.h"
#include "core/GradMode.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/sort.h"
#include "ops/sparse.h"
#include "python/bind.h"

namespace mt {

// torch.set_default_device: where factories put a tensor when device= is None. Thread-local, as PyTorch's
// (a thread started inside `with torch.device("cuda"):` makes CPU tensors).
static thread_local Device tls_default_device{};

Device factory_device(py::handle h) {  // also used by bind_sort.cpp
  return h.is_none() ? tls_default_device : parse_device(h);
}

Tensor write_out_tensor(const char* name, const Tensor& out, const Tensor& result);  // bind_out.cpp
// out resized without a warning, result copied in (bind_out.cpp)
Tensor resize_out_tensor(const Tensor& out, const Tensor& result);

namespace {
// keyword arguments every factory accepts
// (after py::args they are keyword-only already; pybind11 rejects an explicit kw_only there)
#define MT_FACTORY_KW_NAMES                                                                        \
  py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false, \
  py::arg("layout") = py::none(), py::arg("pin_memory") = false, py::arg("out") = py::none()
#define MT_FACTORY_KW py::kw_only(), MT_FACTORY_KW_NAMES

// out= of a factory: the tensor is made in out's dtype and on its device unless dtype=/device= say otherwise,
// then written into out (resized like any op's out=) and out is returned.
struct FactoryOut {
  Tensor out;
  explicit FactoryOut(py::handle h) {
    if (h.is_none()) return;
    MT_CHECK_TYPE(py::isinstance<TensorImpl>(h), "argument 'out' must be Tensor, not ",
                  std::string(py::str(py::type::of(h).attr("__name__"))));
    out = h.cast<Tensor>();
  }
  Device device(py::handle d) const {
    return d.is_none() && out.defined() ? out.device() : factory_device(d);
  }
  // dtype= given beside out= must be out's (PyTorch's parser checks it for every factory); None is out's
  ScalarType dtype_of(ScalarType dtype) const {
    if (!out.defined()) return dtype;
    if (dtype == ScalarType::Undefined) return out.dtype();
    MT_CHECK(dtype == out.dtype(), "dtype ", dtype_short_name(dtype),
             " does not match dtype of out parameter (", dtype_short_name(out.dtype()), ")");
    return dtype;
  }
  // the tensor was made in out's dtype; PyTorch's factories resize out silently (arange warns in its own
  // words)
  Tensor finish(const char* name, const Tensor& t, bool rg) const {
    if (!out.defined()) return set_requires_grad(t, rg);
    if (std::strcmp(name, "arange") == 0) return write_out_tensor(name, out, t);
    return resize_out_tensor(out, t);
  }
};

// Makes the tensor with the GIL released when it is big (bind.h).
template <typename F>
Tensor made(IntArrayRef sizes, Device device, F&& f) {
  return nogil_if(worth_releasing_output(sizes, device), f);
}

}  // namespace

DimVector factory_size(const char* name, const py::args& sizes, py::handle size) {
  return int_list_varargs(name, "size", sizes, size, /*symint=*/true);
}

IntArrayRef nonnegative_size(const char* name, IntArrayRef size) {
  for (int64_t s : size) MT_CHECK(s >= 0, name, ": Dimension size must be non-negative.");
  return size;
}

Tensor factory_tensor(Filler fill, IntArrayRef size, ScalarType dtype, py::handle device, bool requires_grad,
                      py::handle out) {
  FactoryOut o(out);
  ScalarType dt = o.dtype_of(dtype);
  Device dev = o.device(device);
  return o.finish("factory", made(size, dev, [&] { return fill(size, dt, dev); }), requires_grad);
}

Tensor arange_tensor(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype,
                     py::handle device, bool requires_grad, py::handle out) {
  FactoryOut o(out);
  ScalarType dt = o.dtype_of(dtype);
  return o.finish("arange", arange(start, end, step, dt, o.device(device)), requires_grad);
}

Tensor eye_tensor(int64_t n, int64_t m, ScalarType dtype, py::handle device, bool requires_grad,
                  py::handle out) {
  FactoryOut o(out);
  ScalarType dt = o.dtype_of(dtype);
  return o.finish("eye", eye(n, m, dt, o.device(device)), requires_grad);
}

Tensor full_tensor(IntArrayRef size, const Scalar& value, ScalarType dtype, py::handle device,
                   bool requires_grad, py::handle out) {
  FactoryOut o(out);
  ScalarType dt = o.dtype_of(dtype);
  Device dev = o.device(device);
  return o.finish("full", made(size, dev, [&] { return full(size, value, dt, dev); }), requires_grad);
}

Tensor randperm_tensor(int64_t n, ScalarType dtype, py::handle device, bool requires_grad, py::handle out) {
  FactoryOut o(out);
  ScalarType dt = o.dtype_of(dtype);
  return o.finish("randperm", randperm(n, dt, o.device(device)), requires_grad);
}

Tensor scalar_tensor_of(const Scalar& s, ScalarType dtype, py::handle device, bool requires_grad) {
  ScalarType dt = dtype == ScalarType::Undefined ? default_dtype() : dtype;
  return set_requires_grad(scalar_tensor(s, dt, factory_device(device)), requires_grad);
}

Tensor triangle_indices_tensor(TriangleIndices fill, int64_t row, int64_t col, int64_t offset,
                               ScalarType dtype, py::handle device, bool requires_grad) {
  ScalarType dt = dtype == ScalarType::Undefined ? ScalarType::Long : dtype;
  return set_requires_grad(fill(row, col, offset, dt, factory_device(device)), requires_grad);
}

// PyTorch's Number: a bool, int, float or complex (their subclasses: numpy.float64), or another NumPy scalar
// (numpy.int64, numpy.float32, numpy.bool); not a 0-d ndarray, a string or None
bool is_number_arg(PyObject* o) {
  if (PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o)) return true;
  const char* tp = Py_TYPE(o)->tp_name;
  return std::strncmp(tp, "numpy.", 6) == 0 && std::strcmp(tp, "numpy.ndarray") != 0 && PyNumber_Check(o);
}

bool is_torch_number(PyObject* o) {
  if (g_tensor_type && PyObject_TypeCheck(o, g_tensor_type)) {
    Tensor t = py::handle(o).cast<Tensor>();
    return t.dim() == 0 && !t.requires_grad();
  }
  return is_number_arg(o);
}

std::optional<Tensor> wrapped_bound(const std::optional<Scalar>& s) {
  if (!s) return std::nullopt;
  return wrapped_scalar(*s);
}

RankedScalar ranked_scalar(py::handle h, const char* name) {
  if (g_tensor_type && PyObject_TypeCheck(h.ptr(), g_tensor_type)) {
    // PyTorch's Tensor overload: the value of a 0-dim tensor whether or not it requires grad
    Tensor t = h.cast<Tensor>();
    return t.dim() == 0 ? RankedScalar{item(t), 0} : RankedScalar{Scalar(), t.dim()};
  }
  return {parse_scalar(h, name), -1};
}

namespace {

// linspace/logspace take tensor endpoints only as single values, in PyTorch's words (both ranks when both
// are wrong)
void check_0d_endpoints(const char* fn, const RankedScalar& start, const RankedScalar& end) {
  if (start.dim <= 0 && end.dim <= 0) return;
  std::string got;
  if (start.dim > 0) got = "start with " + std::to_string(start.dim) + " dimension(s)";
  if (end.dim > 0)
    got += (got.empty() ? "" : " and ") + ("end with " + std::to_string(end.dim) + " dimension(s)");
  MT_ERROR(fn, " only supports 0-dimensional start and end tensors, but got ", got, ".");
}

// PyTorch's kernels refuse bool by their device's name ("linspace_cpu"); ours compute on the CPU and move
void check_not_bool(const char* fn, ScalarType dt, Device dev) {
  MT_CHECK_NOT_IMPLEMENTED(dt != ScalarType::Bool, "\"", fn, dev.is_cuda() ? "_cuda" : "_cpu",
                           "\" not implemented for 'Bool'");
}

}  // namespace

Tensor linspace_tensor(const RankedScalar& start, const RankedScalar& end, int64_t steps, ScalarType dtype,
                       py::handle device, bool requires_grad, py::handle out) {
  check_0d_endpoints("linspace", start, end);
  FactoryOut o(out);
  ScalarType dt = o.dtype_of(dtype);
  Device dev = o.device(device);
  const Scalar &s0 = start.value, &s1 = end.value;
  if (s0.is_complex() || s1.is_complex() || (dt != ScalarType::Undefined && is_complex(dt))) {
    // complex endpoints (or dtype): the real and imaginary parts are two real linspaces
    ScalarType ct = dt != ScalarType::Undefined ? dt : to_complex_type(default_dtype());
    MT_CHECK(is_complex(ct), "linspace: complex endpoints need a complex dtype, got ", dtype_name(ct));
    std::complex<double> z0 = s0.to_complex(), z1 = s1.to_complex();
    ScalarType rt = to_real_type(ct);
    Tensor re = linspace(z0.real(), z1.real(), steps, rt, dev);
    Tensor im = linspace(z0.imag(), z1.imag(), steps, rt, dev);
    return o.finish("linspace", complex(re, im), requires_grad);
  }
  if (dt == ScalarType::Bool && steps <= 1)  // PyTorch's kernel never runs: no values, or start itself
    return o.finish("linspace",
                    to(linspace(s0.to_double(), s1.to_double(), steps, ScalarType::Double, dev), dt, dev),
                    requires_grad);
  check_not_bool("linspace", dt, dev);
  return o.finish("linspace", linspace(s0.to_double(), s1.to_double(), steps, dt, dev), requires_grad);
}

Tensor logspace_tensor(const RankedScalar& start, const RankedScalar& end, int64_t steps, double base,
                       ScalarType dtype, py::handle device, bool requires_grad, py::handle out) {
  check_0d_endpoints("logspace", start, end);
  FactoryOut o(out);
  ScalarType dt = o.dtype_of(dtype);
  Device dev = o.device(device);
  const Scalar &s0 = start.value, &s1 = end.value;
  // complex endpoints make the default complex dtype's result
  if (dt == ScalarType::Undefined && (s0.is_complex() || s1.is_complex()))
    dt = to_complex_type(default_dtype());
  if (dt == ScalarType::Bool && steps <= 1)  // PyTorch's kernel never runs: no values, or base ** start
    return o.finish(
        "logspace",
        to(logspace(s0.to_complex(), s1.to_complex(), steps, base, ScalarType::Double, dev), dt, dev),
        requires_grad);
  check_not_bool("logspace", dt == ScalarType::Undefined ? default_dtype() : dt, dev);
  return o.finish("logspace", logspace(s0.to_complex(), s1.to_complex(), steps, base, dt, dev),
                  requires_grad);
}

Tensor empty_tensor(IntArrayRef size, ScalarType dtype, py::handle device, bool requires_grad, py::handle out,
                    py::handle memory_format) {
  MemoryFormat mf = parse_memory_format(memory_format, "empty", MemoryFormat::Contiguous);
  MT_CHECK(mf != MemoryFormat::Preserve, "unsupported memory format Preserve");
  if (mf == MemoryFormat::Contiguous) return factory_tensor(empty, size, dtype, device, requires_grad, out);
  Tensor r = factory_tensor(empty, size, dtype, device, false, out);
  return set_requires_grad(contiguous_as(r, mf), requires_grad);
}

const Tensor& fill_with_tensor_(const Tensor& self, const Tensor& value) {
  MT_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
           " dimensions.");
  // a value that requires grad receives the sum of the gradient, as PyTorch's fill_: filling is then a copy
  // of the value broadcast over self, which autograd differentiates
  if (needs_grad(value)) return copy_(self, expand(to(value, self.dtype(), self.device()), self.sizes()));
  // otherwise PyTorch's fill takes the value through a cast to self's dtype, unchecked (1e300 fills a float32
  // tensor with inf, 300 wraps in uint8), unlike a number's checked fill
  return fill_(self, item(value.dtype() == self.dtype() ? value : to(value, self.dtype(), value.device())));
}

namespace {

// A like-factory's fresh result given the layout memory_format= asks for, in place: its values are one
// constant or independent draws, so which element sits where in memory changes nothing.
Tensor restrided(const Tensor& r, IntArrayRef strides) {
  if (!strides.empty() && r.numel() > 0) r.impl()->set_sizes_strides(r.sizes(), strides, 0);
  return r;
}

}  // namespace

Tensor like_tensor(const char* name, Filler fill, const Tensor& self, ScalarType dtype, py::handle device,
                   bool requires_grad, py::handle memory_format) {
  MemoryFormat mf = parse_memory_format(memory_format, name, MemoryFormat::Preserve);
  ScalarType dt = dtype == ScalarType::Undefined ? self.dtype() : dtype;
  Device dev = device.is_none() ? self.device() : parse_device(device);
  Tensor r = made(self.sizes(), dev, [&] { return fill(self.sizes(), dt, dev); });
  return set_requires_grad(restrided(r, layout_for(self, mf)), requires_grad);
}

Tensor full_like_tensor(const Tensor& self, const Scalar& value, ScalarType dtype, py::handle device,
                        bool requires_grad, py::handle memory_format) {
  MemoryFormat mf = parse_memory_format(memory_format, "full_like", MemoryFormat::Preserve);
  ScalarType dt = dtype == ScalarType::Undefined ? self.dtype() : dtype;
  Device dev = device.is_none() ? self.device() : parse_device(device);
  Tensor r = made(self.sizes(), dev, [&] { return full(self.sizes(), value, dt, dev); });
  return set_requires_grad(restrided(r, layout_for(self, mf)), requires_grad);
}

Tensor randint_tensor(int64_t low, int64_t high, IntArrayRef size, ScalarType dtype, py::handle device,
                      bool requires_grad, py::handle out) {
  FactoryOut o(out);
  ScalarType dt = o.dtype_of(dtype);
  Device dev = o.device(device);
  return o.finish("randint", made(size, dev, [&] { return randint(low, high, size, dt, dev); }),
                  requires_grad);
}

Tensor randint_like_tensor(const Tensor& self, int64_t low, int64_t high, ScalarType dtype,
                           py::handle device) {
  return randint(low, high, self.sizes(), dtype == ScalarType::Undefined ? self.dtype() : dtype,
                 device.is_none() ? self.device() : parse_device(device));
}

int64_t randint_like_high(const Tensor& high) {
  MT_CHECK(high.dim() == 0 && high.device().is_cpu(), "high must be a scalar tensor and on CPU");
  return item(high).to_long();
}

namespace {

// minitorch.Generator: a Philox generator of its own, for the generator= argument of the random ops.
struct PyGenerator {
  Device device;
  std::shared_ptr<Generator> gen = std::make_shared<Generator>();
};

}  // namespace

bool is_generator(py::handle h) {
  return py::isinstance<PyGenerator>(h);
}

Generator* parse_generator(py::handle h, int8_t* type) {
  if (h.is_none()) return nullptr;
  MT_CHECK_TYPE(py::isinstance<PyGenerator>(h), "generator must be a minitorch.Generator, got ",
                std::string(py::str(py::type::of(h).attr("__name__"))));
  auto& g = h.cast<PyGenerator&>();
  *type = static_cast<int8_t>(g.device.type);
  return g.gen.get();
}

Tensor new_tensor_of(Filler fill, const Tensor& self, IntArrayRef size, ScalarType dtype, py::handle device,
                     bool requires_grad) {
  ScalarType dt = dtype == ScalarType::Undefined ? self.dtype() : dtype;
  Device dev = device.is_none() ? self.device() : parse_device(device);
  return set_requires_grad(made(size, dev, [&] { return fill(size, dt, dev); }), requires_grad);
}

Tensor new_full_tensor(const Tensor& self, IntArrayRef size, const Scalar& value, ScalarType dtype,
                       py::handle device, bool requires_grad) {
  ScalarType dt = dtype == ScalarType::Undefined ? self.dtype() : dtype;
  Device dev = device.is_none() ? self.device() : parse_device(device);
  return set_requires_grad(made(size, dev, [&] { return full(size, value, dt, dev); }), requires_grad);
}

// PyTorch's unpack_uint64 for seeds: any int in [-2**63, 2**64) (a negative one as its two's complement), an
// int-like object (int(seed), as torch.manual_seed does), else PyTorch's errors.
static uint64_t unpack_seed(py::handle seed) {
  py::object o = py::reinterpret_borrow<py::object>(seed);
  if (!PyLong_Check(o.ptr())) o = py::module_::import("builtins").attr("int")(o);  // int("a"): ValueError
  unsigned long long u = PyLong_AsUnsignedLongLong(o.ptr());
  if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return u;
  PyErr_Clear();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  MT_CHECK_VALUE(!overflow, "Overflow when unpacking long long");
  return static_cast<uint64_t>(v);
}

void init_factory(py::module_& m, TensorClass& cls) {
  // zeros, ones, rand, randn, linspace, logspace, the *_like and new_* factories are the schema's rows
  // (generated/bind_funcs.cpp)

  m.def(
      "_binomial",
      [](const Tensor& count, const Tensor& prob, py::handle generator) {
        GeneratorScope g(generator);
        return binomial(count, prob);
      },
      py::arg("count"), py::arg("prob"), py::arg("generator") = py::none());

  // torch.sparse_coo_tensor's checked parts (ops/sparse.h) for python/minitorch/sparse/_types.py:
  // (indices, values, Size, coalesced by construction: nnz <= 1). plain=True is the constructor's fast path:
  // None unless indices and values are tensors of the Tensor class itself, the indices of an integer dtype,
  // the values not requiring grad (then detached: the COO tensor's own alias) and size None or a tuple or
  // list of ints (any other call takes the Python path, which converts its arguments and calls back).
  m.def(
      "_sparse_coo_parts",
      [](py::handle indices, py::handle values, py::handle size, bool plain) -> py::object {
        auto tensor = [plain](py::handle h) {
          return plain ? Py_TYPE(h.ptr()) == g_tensor_type : PyObject_TypeCheck(h.ptr(), g_tensor_type) != 0;
        };
        if (!tensor(indices) || !tensor(values)) {
          if (plain) return py::none();
          throw py::type_error("_sparse_coo_parts: indices and values must be tensors");
        }
        Tensor i = indices.cast<Tensor>(), v = values.cast<Tensor>();
        if (plain && (v.requires_grad() || !is_integral(i.dtype(), false))) return py::none();
        std::optional<DimVector> sz;
        if (!size.is_none()) {
          PyObject* seq = size.ptr();
          if (!PyTuple_Check(seq) && !PyList_Check(seq)) return py::none();
          py::sequence items = py::reinterpret_borrow<py::sequence>(seq);
          DimVector d;
          for (py::handle item : items) {
            int64_t x = 0;
            if (!load_strict_int(item.ptr(), &x)) return py::none();
            d.push_back(x);
          }
          sz = std::move(d);
        }
        CooParts p = sparse_coo_parts(i, v, sz);
        return py::make_tuple(p.indices, plain ? autograd::detach(p.values) : p.values, make_size(p.size),
                              p.indices.size(1) <= 1);
      },
      py::arg("indices"), py::arg("values"), py::arg("size"), py::arg("plain"));

  // sparse_coo_tensor(size)'s parts in one call: (k, 0) int64 indices, (0,) values of dtype (None: the
  // default dtype) on device (None: the default device), and the Size (a tuple of non-negative ints, checked
  // in Python)
  m.def(
      "_sparse_coo_empty",
      [](const std::vector<int64_t>& size, py::handle dtype, py::handle device) {
        const ScalarType dt = dtype.is_none() ? default_dtype() : parse_dtype(dtype);
        const Device dev = factory_device(device);
        return py::make_tuple(empty({static_cast<int64_t>(size.size()), 0}, ScalarType::Long, dev),
                              empty({0}, dt, dev), make_size(size));
      },
      py::arg("size"), py::arg("dtype"), py::arg("device"));

  m.def("_get_default_device", [] { return tls_default_device; });
  m.def("_set_default_device",
        [](py::handle d) { tls_default_device = d.is_none() ? Device() : parse_device(d); });

  m.def("manual_seed", [](py::handle seed) { manual_seed(unpack_seed(seed)); });
  m.def("initial_seed", strict_fn(&initial_seed));
  m.def("seed", [] { return seed(); });

  py::class_<PyGenerator, std::shared_ptr<PyGenerator>>(m, "Generator")
      .def(py::init([](py::handle device) {
             auto g = std::make_shared<PyGenerator>();
             g->device = parse_device(device.is_none() ? py::str("cpu") : device);
             if (g->device.is_cuda() && g->device.index < 0) g->device = resolve_device(g->device);
             return g;
           }),
           py::arg("device") = py::none())
      .def_property_readonly("device", [](const PyGenerator& g) { return g.device; })
      .def(
          "manual_seed",
          [](py::object self, py::handle seed) {
            self.cast<PyGenerator&>().gen->manual_seed(unpack_seed(seed));
            return self;
          },
          py::arg("seed"))
      .def("initial_seed", [](const PyGenerator& g) { return g.gen->seed(); })
      .def("seed",
           [](PyGenerator& g) {
             uint64_t s = std::random_device{}();
             g.gen->manual_seed(s);
             return s;
           })
      // (seed, offset) as 16 bytes in a uint8 tensor, as PyTorch's get_state returns a ByteTensor
      .def("get_state",
           [](PyGenerator& g) {
             Tensor t = empty({16}, ScalarType::Byte, Device(DeviceType::CPU));
             uint64_t v[2] = {g.gen->seed(), g.gen->offset()};
             std::memcpy(t.data_ptr(), v, 16);
             return t;
           })
      .def(
          "set_state",
          [](py::object self, const Tensor& state) {
            MT_CHECK(state.dtype() == ScalarType::Byte && state.numel() == 16 && state.device().is_cpu(),
                     "set_state: expected a 16-byte torch.ByteTensor from Generator.get_state()");
            Tensor c = contiguous(state);
            uint64_t v[2];
            std::memcpy(v, c.data_ptr(), 16);
            self.cast<PyGenerator&>().gen->set_state(v[0], v[1]);
            return self;
          },
          py::arg("new_state"));
  // minitorch.default_generator: the CPU default generator itself (an aliasing, non-owning pointer; it lives
  // for the process), so get_rng_state/set_rng_state and generator=default_generator reach the same stream.
  auto cpu_default = std::make_shared<PyGenerator>();
  cpu_default->device = Device(DeviceType::CPU);
  cpu_default->gen = std::shared_ptr<Generator>(std::shared_ptr<Generator>(), &default_generator());
  m.attr("default_generator") = py::cast(cpu_default);
  // torch.cuda.default_generators[d]: the same aliasing view of CUDA device d's default generator, for the
  // cuda module's get_rng_state/set_rng_state/seed
  m.def("_cuda_default_generator", [](int d) {
    auto g = std::make_shared<PyGenerator>();
    g->device = Device(DeviceType::CUDA, d);
    g->gen = std::shared_ptr<Generator>(std::shared_ptr<Generator>(), &cuda_generator(d));
    return g;
  });
}

}  // namespace mt
