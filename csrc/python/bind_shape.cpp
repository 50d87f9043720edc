// View and shape-op bindings (methods and minitorch.* functions).
#include "ops/shape.h"
#include "python/bind.h"

namespace mt {

namespace {
std::vector<Tensor> tensor_seq(py::handle seq, const char* fn) {
  MT_CHECK_TYPE(!py::isinstance<TensorImpl>(seq), fn,
                "(): argument 'tensors' (position 1) must be tuple of Tensors, "
                "not Tensor");
  std::vector<Tensor> out;
  for (py::handle h : seq) {
    MT_CHECK_TYPE(py::isinstance<TensorImpl>(h), "expected Tensor as element ", out.size(),
                  " in argument 0, but got ", std::string(py::str(py::type::of(h).attr("__name__"))));
    out.push_back(h.cast<Tensor>());
  }
  return out;
}
// Tensor.select / minitorch.select word an out-of-range index as PyTorch's select() does; x[i] reaches the op
// directly and keeps the indexing message ("index 2 is out of bounds for dimension 0 with size 2").
Tensor select_checked(const Tensor& self, int64_t dim, int64_t index) {
  if (self.dim() > 0) {
    const int64_t d = wrap_dim(dim, self.dim()), size = self.sizes()[d];
    MT_CHECK_INDEX(index >= -size && index < size, "select(): index ", index,
                   " out of range for tensor of size ", shape_str(self.sizes()), " at dimension ", d);
  }
  return select(self, dim, index);
}
// movedim(source, destination): ints or sequences of ints, as PyTorch's two overloads
Tensor movedim_any(const Tensor& self, py::handle src, py::handle dst) {
  if (PyLong_Check(src.ptr()) && PyLong_Check(dst.ptr()))
    return movedim(self, src.cast<int64_t>(), dst.cast<int64_t>());
  auto ints = [](py::handle h) {
    return PyLong_Check(h.ptr()) ? DimVector{h.cast<int64_t>()} : parse_dims(h);
  };
  return movedim(self, ints(src), ints(dst));
}
py::tuple to_tuple(const std::vector<Tensor>& ts) {
  py::tuple t(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) t[i] = py::cast(ts[i]);
  return t;
}
}  // namespace

void init_shape(py::module_& m, TensorClass& cls) {
  cls.def("view",
          [](const Tensor& t, py::args shape) {
            if (shape.size() == 1 && py::isinstance<DType>(shape[0]))
              return view_dtype(t, shape[0].cast<DType*>()->st);
            return view(t, parse_size_args(shape));
          })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return view(t, o.sizes()); })
      .def("resize_",
           [](const Tensor& t, py::args shape, py::kwargs) {
             resize_(t, parse_size_args(shape));
             return t;
           })
      .def("resize_as_",
           [](const Tensor& t, const Tensor& o, py::kwargs) {
             resize_(t, o.sizes());
             return t;
           })
      // views only rewrite metadata and keep the GIL; reshape may copy, cat and stack always do
      .def("reshape",
           [](const Tensor& t, py::args shape) {
             DimVector s = parse_size_args(shape);
             return nogil([&] { return reshape(t, s); }, t);
           })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o.sizes()); })
      .def("permute", [](const Tensor& t, py::args dims) { return permute(t, parse_size_args(dims)); })
      .def("transpose", &transpose, py::arg("dim0"), py::arg("dim1"))
      .def("swapaxes", &transpose)
      .def("t", &t)
      .def_property_readonly("T",
                             [](const Tensor& x) {
                               DimVector d;
                               for (int64_t i = x.dim() - 1; i >= 0; --i) d.push_back(i);
                               return permute(x, d);
                             })
      .def_property_readonly(
          "mT",
          [](const Tensor& x) {
            MT_CHECK(x.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ",
                     x.dim(), "-D tensor.");
            return transpose(x, -2, -1);
          })
      .def(
          "squeeze",
          [](const Tensor& t, py::object dim) {
            return dim.is_none() ? squeeze(t) : squeeze(t, parse_dims(dim));
          },
          py::arg("dim") = py::none())
      .def("unsqueeze", &unsqueeze, py::arg("dim"))
      .def("expand", [](const Tensor& t, py::args sizes) { return expand(t, parse_size_args(sizes)); })
      .def("expand_as", [](const Tensor& t, const Tensor& o) { return expand(t, o.sizes()); })
      .def("flatten", &flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def(
          "unflatten",
          [](const Tensor& t, int64_t dim, py::handle sizes) { return unflatten(t, dim, parse_size(sizes)); },
          py::arg("dim"), py::arg("sizes"))
      .def("narrow", &narrow, py::arg("dim"), py::arg("start"), py::arg("length"))
      .def("select", &select_checked, py::arg("dim"), py::arg("index"))
      .def(
          "split",
          [](const Tensor& t, py::handle s, int64_t dim) {
            if (py::isinstance<py::int_>(s)) return to_tuple(split(t, s.cast<int64_t>(), dim));
            return to_tuple(split_with_sizes(t, parse_size(s), dim));
          },
          py::arg("split_size"), py::arg("dim") = 0)
      .def(
          "chunk", [](const Tensor& t, int64_t c, int64_t dim) { return to_tuple(chunk(t, c, dim)); },
          py::arg("chunks"), py::arg("dim") = 0)
      .def(
          "unbind", [](const Tensor& t, int64_t dim) { return to_tuple(unbind(t, dim)); }, py::arg("dim") = 0)
      .def("movedim", &movedim_any, py::arg("source"), py::arg("destination"))
      .def("diagonal", &diagonal, py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1)
      .def(
          "as_strided",
          [](const Tensor& t, py::handle size, py::handle stride, py::object off) {
            return as_strided(t, parse_size(size), parse_size(stride),
                              off.is_none() ? t.storage_offset() : off.cast<int64_t>());
          },
          py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());

  m.def("reshape", [](const Tensor& t, py::handle shape) {
    DimVector s = parse_size(shape);
    return nogil([&] { return reshape(t, s); }, t);
  });
  m.def("permute", [](const Tensor& t, py::handle dims) { return permute(t, parse_size(dims)); });
  m.def("transpose", &transpose);
  m.def("swapaxes", &transpose);
  m.def("t", &t);
  m.def(
      "squeeze",
      [](const Tensor& t, py::object dim) {
        return dim.is_none() ? squeeze(t) : squeeze(t, parse_dims(dim));
      },
      py::arg("input"), py::arg("dim") = py::none());
  m.def("unsqueeze", &unsqueeze);
  m.def("flatten", &flatten, py::arg("input"), py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  m.def("unflatten",
        [](const Tensor& t, int64_t dim, py::handle sizes) { return unflatten(t, dim, parse_size(sizes)); });
  m.def("narrow", &narrow);
  m.def("select", &select_checked, py::arg("input"), py::arg("dim"), py::arg("index"));
  m.def("movedim", &movedim_any, py::arg("input"), py::arg("source"), py::arg("destination"));
  m.def("diagonal", &diagonal, py::arg("input"), py::arg("offset") = 0, py::arg("dim1") = 0,
        py::arg("dim2") = 1);
  m.def(
      "split",
      [](const Tensor& t, py::handle s, int64_t dim) {
        if (py::isinstance<py::int_>(s)) return to_tuple(split(t, s.cast<int64_t>(), dim));
        return to_tuple(split_with_sizes(t, parse_size(s), dim));
      },
      py::arg("tensor"), py::arg("split_size_or_sections"), py::arg("dim") = 0);
  m.def(
      "chunk", [](const Tensor& t, int64_t c, int64_t dim) { return to_tuple(chunk(t, c, dim)); },
      py::arg("input"), py::arg("chunks"), py::arg("dim") = 0);
  m.def(
      "unbind", [](const Tensor& t, int64_t dim) { return to_tuple(unbind(t, dim)); }, py::arg("input"),
      py::arg("dim") = 0);
  m.def(
      "cat",
      [](py::handle ts, int64_t dim) {
        auto v = tensor_seq(ts, "cat");
        return nogil([&] { return cat(v, dim); }, v);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "concat",
      [](py::handle ts, int64_t dim) {
        auto v = tensor_seq(ts, "concat");
        return nogil([&] { return cat(v, dim); }, v);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "stack",
      [](py::handle ts, int64_t dim) {
        auto v = tensor_seq(ts, "stack");
        return nogil([&] { return stack(v, dim); }, v);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "as_strided",
      [](const Tensor& t, py::handle size, py::handle stride, py::object off) {
        return as_strided(t, parse_size(size), parse_size(stride),
                          off.is_none() ? t.storage_offset() : off.cast<int64_t>());
      },
      py::arg("input"), py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
}

}  // namespace mt
