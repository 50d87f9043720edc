// Bindings of the sort family (ops/sort.h) that csrc/ops/ops.schema's signatures cannot say (its `binding:
// own` rows): median's and nanmedian's two signatures, and searchsorted's kernel; the others are generated.
#include "ops/sort.h"
#include "python/bind.h"

namespace mt {

py::object values_indices(const char* name, const std::tuple<Tensor, Tensor>& r);  // bind_reduce.cpp

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
  // histogram's CPU kernel behind torch.histc and torch.histogram (Python, which checks the arguments)
  m.def("_histc", nogil_fn(&histc_counts), py::arg("input"), py::arg("bins"), py::arg("min"), py::arg("max"));
  m.def("_histogram_bin_ct", nogil_fn(&histogram_bin_ct), py::arg("input"), py::arg("bins"), py::arg("range"),
        py::arg("weight"), py::arg("density"));
  m.def("_histogram_bin_edges", nogil_fn(&histogram_bin_edges), py::arg("input"), py::arg("bins"),
        py::arg("weight"), py::arg("density"));
}

}  // namespace mt
