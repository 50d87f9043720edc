// Bindings of the sort family and the triangle ops (ops/sort.h) that csrc/ops/ops.schema cannot declare yet:
// median's and nanmedian's two signatures, tril_indices/triu_indices (factories) and searchsorted's kernel;
// the others are generated from the schema.
#include "ops/sort.h"
#include "python/bind.h"

namespace mt {

py::object values_indices(const char* name, const std::tuple<Tensor, Tensor>& r);  // bind_reduce.cpp
Device factory_device(py::handle h);  // bind_factory.cpp: device=None is the default device

void init_sort(py::module_& m, TensorClass& cls) {
  // PyTorch's two median signatures: (input) -> 0-dim value, (input, int dim, bool keepdim=False) -> (values,
  // indices); an explicit dim=None is neither
  auto median_all_fn = [](const Tensor& x) { return nogil([&] { return median(x); }, x); };
  auto median_dim_fn = [](const Tensor& x, StrictInt dim, StrictBool keepdim) {
    return values_indices("median", nogil([&] { return median(x, dim.v, keepdim); }, x));
  };
  m.def("median", median_all_fn, py::arg("input"));
  m.def("median", median_dim_fn, py::arg("input"), py::arg("dim"), py::arg("keepdim") = false);
  cls.def("median", median_all_fn);
  cls.def("median", median_dim_fn, py::arg("dim"), py::arg("keepdim") = false);
  // nanmedian takes median's two signatures (so its argument errors are median's); the dim form is composed
  // in Python (_composite_math._nanmedian_dim: sort, count the non-NaN, gather)
  auto nanmedian_all_fn = [](const Tensor& x) { return nogil([&] { return nanmedian(x); }, x); };
  auto nanmedian_dim_fn = [](const Tensor& x, StrictInt dim, StrictBool keepdim) {
    // released: the module outlives every call
    static py::handle composed =
        py::object(py::module_::import("minitorch._composite_math").attr("_nanmedian_dim")).release();
    auto r = composed(x, dim.v, keepdim.v).cast<std::tuple<Tensor, Tensor>>();
    return values_indices("nanmedian", r);
  };
  m.def("nanmedian", nanmedian_all_fn, py::arg("input"));
  m.def("nanmedian", nanmedian_dim_fn, py::arg("input"), py::arg("dim"), py::arg("keepdim") = false);
  cls.def("nanmedian", nanmedian_all_fn);
  cls.def("nanmedian", nanmedian_dim_fn, py::arg("dim"), py::arg("keepdim") = false);
  // searchsorted's CPU kernel; torch.searchsorted (Python) checks, promotes and calls it
  m.def("_searchsorted", nogil_fn(&searchsorted_sorted), py::arg("sorted_sequence"), py::arg("values"),
        py::arg("right") = false);

  for (bool lower : {true, false}) {
    m.def(
        lower ? "tril_indices" : "triu_indices",
        [lower](StrictInt row, StrictInt col, StrictInt offset, py::handle dtype, py::handle device,
                py::handle) {
          ScalarType dt = dtype.is_none() ? ScalarType::Long : parse_dtype(dtype);
          Device dev = factory_device(device);
          return lower ? tril_indices(row, col, offset, dt, dev) : triu_indices(row, col, offset, dt, dev);
        },
        py::arg("row"), py::arg("col"), py::arg("offset") = 0, py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("layout") = py::none());
  }
}

}  // namespace mt
