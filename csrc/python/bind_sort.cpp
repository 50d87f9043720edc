// Bindings for the sort family and the triangle ops (ops/sort.h) with PyTorch's signatures, as functions
// and Tensor methods; the (values, indices) results are torch.return_types-like named tuples.
#include "ops/sort.h"
#include "python/bind.h"

namespace mt {

py::object values_indices(const char* name, const std::tuple<Tensor, Tensor>& r);  // bind_reduce.cpp
Device factory_device(py::handle h);  // bind_factory.cpp: device=None is the default device

void init_sort(py::module_& m, TensorClass& cls) {
  // sort(input, dim=-1, descending=False, *, stable=False): always stable (see ops/sort.h)
  auto sort_fn = [](const Tensor& x, int64_t dim, bool descending, py::handle) {
    return values_indices("sort", nogil([&] { return sort(x, dim, descending); }, x));
  };
  m.def("sort", sort_fn, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(),
        py::arg("stable") = false);
  cls.def("sort", sort_fn, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(),
          py::arg("stable") = false);
  auto argsort_fn = [](const Tensor& x, int64_t dim, bool descending, py::handle) {
    return nogil([&] { return argsort(x, dim, descending); }, x);
  };
  m.def("argsort", argsort_fn, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false,
        py::kw_only(), py::arg("stable") = false);
  cls.def("argsort", argsort_fn, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(),
          py::arg("stable") = false);

  auto topk_fn = [](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
    return values_indices("topk", nogil([&] { return topk(x, k, dim, largest, sorted); }, x));
  };
  m.def("topk", topk_fn, py::arg("input"), py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true,
        py::arg("sorted") = true);
  cls.def("topk", topk_fn, py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true,
          py::arg("sorted") = true);

  auto kth_fn = [](const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
    return values_indices("kthvalue", nogil([&] { return kthvalue(x, k, dim, keepdim); }, x));
  };
  m.def("kthvalue", kth_fn, py::arg("input"), py::arg("k"), py::arg("dim") = -1, py::arg("keepdim") = false);
  cls.def("kthvalue", kth_fn, py::arg("k"), py::arg("dim") = -1, py::arg("keepdim") = false);

  // median(input) -> 0-dim value; median(input, dim, keepdim=False) -> (values, indices)
  auto median_fn = [](const Tensor& x, py::handle dim, bool keepdim) -> py::object {
    if (dim.is_none()) return py::cast(nogil([&] { return median(x); }, x));
    int64_t d = dim.cast<int64_t>();
    return values_indices("median", nogil([&] { return median(x, d, keepdim); }, x));
  };
  m.def("median", median_fn, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  cls.def("median", median_fn, py::arg("dim") = py::none(), py::arg("keepdim") = false);

  auto mode_fn = [](const Tensor& x, int64_t dim, bool keepdim) {
    return values_indices("mode", nogil([&] { return mode(x, dim, keepdim); }, x));
  };
  m.def("mode", mode_fn, py::arg("input"), py::arg("dim") = -1, py::arg("keepdim") = false);
  cls.def("mode", mode_fn, py::arg("dim") = -1, py::arg("keepdim") = false);

  m.def("tril", nogil_fn(&tril), py::arg("input"), py::arg("diagonal") = 0);
  m.def("triu", nogil_fn(&triu), py::arg("input"), py::arg("diagonal") = 0);
  cls.def("tril", nogil_fn(&tril), py::arg("diagonal") = 0);
  cls.def("triu", nogil_fn(&triu), py::arg("diagonal") = 0);
  for (bool lower : {true, false}) {
    cls.def(
        lower ? "tril_" : "triu_",
        [lower](py::object self, int64_t diagonal) {
          Tensor t = self.cast<Tensor>();
          nogil([&] { lower ? tril_(t, diagonal) : triu_(t, diagonal); }, t);
          return self;
        },
        py::arg("diagonal") = 0);
    m.def(
        lower ? "tril_indices" : "triu_indices",
        [lower](int64_t row, int64_t col, int64_t offset, py::handle dtype, py::handle device, py::handle) {
          ScalarType dt = dtype.is_none() ? ScalarType::Long : parse_dtype(dtype);
          Device dev = factory_device(device);
          return lower ? tril_indices(row, col, offset, dt, dev) : triu_indices(row, col, offset, dt, dev);
        },
        py::arg("row"), py::arg("col"), py::arg("offset") = 0, py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("layout") = py::none());
  }
}

}  // namespace mt
