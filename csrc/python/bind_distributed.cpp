// Bindings for minitorch.distributed: the Gloo/NCCL process groups in _C._distributed, over a Python store.
#include "distributed/ProcessGroup.h"
#include "python/bind.h"

namespace mt {

namespace {

using distributed::ProcessGroup;
using distributed::ReduceOp;

// Gloo/NCCL rendezvous call the store from C++ with the GIL released; each call takes it back.
class PyStore : public distributed::Store {
 public:
  explicit PyStore(py::object s) : store_(std::move(s)) {}
  ~PyStore() override {
    py::gil_scoped_acquire g;
    store_ = py::object();
  }
  void set(const std::string& key, const std::vector<char>& value) override {
    py::gil_scoped_acquire g;
    call([&] { store_.attr("set")(key, py::bytes(value.data(), value.size())); });
  }
  std::vector<char> get(const std::string& key) override {
    py::gil_scoped_acquire g;
    std::vector<char> out;
    call([&] {
      std::string s = py::bytes(store_.attr("get")(key));
      out.assign(s.begin(), s.end());
    });
    return out;
  }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    py::gil_scoped_acquire g;
    call([&] {
      auto td = py::module_::import("datetime").attr("timedelta")(py::arg("milliseconds") = timeout.count());
      store_.attr("wait")(keys, td);
    });
  }

 private:
  // A Python exception becomes a C++ one here, so it crosses Gloo's frames and the GIL-free region as text.
  template <typename F>
  void call(F f) {
    try {
      f();
    } catch (py::error_already_set& e) {
      std::string msg = e.what();
      throw Error(ErrorKind::Runtime, msg);
    }
  }
  py::object store_;
};

}  // namespace

void init_distributed(py::module_& m) {
  auto d = m.def_submodule("_distributed", "Gloo and NCCL process groups behind minitorch.distributed");
  d.def("is_gloo_available", &distributed::gloo_available);
  d.def("is_nccl_available", &distributed::nccl_available);

  py::class_<distributed::P2PWork>(d, "P2PWork")
      .def("wait", &distributed::P2PWork::wait, py::call_guard<py::gil_scoped_release>());

  py::class_<ProcessGroup>(d, "ProcessGroup")
      .def_property_readonly("rank", &ProcessGroup::rank)
      .def_property_readonly("size", &ProcessGroup::size)
      .def(
          "allreduce", [](ProcessGroup& g, const Tensor& t, int op) { g.allreduce(t, ReduceOp(op)); },
          py::call_guard<py::gil_scoped_release>())
      .def("broadcast", &ProcessGroup::broadcast, py::call_guard<py::gil_scoped_release>())
      .def("allgather", &ProcessGroup::allgather, py::call_guard<py::gil_scoped_release>())
      .def(
          "reduce_scatter",
          [](ProcessGroup& g, const Tensor& out, const Tensor& in, int op) {
            g.reduce_scatter(out, in, ReduceOp(op));
          },
          py::call_guard<py::gil_scoped_release>())
      .def(
          "reduce",
          [](ProcessGroup& g, const Tensor& t, int root, int op) { g.reduce(t, root, ReduceOp(op)); },
          py::call_guard<py::gil_scoped_release>())
      .def("alltoall", &ProcessGroup::alltoall, py::call_guard<py::gil_scoped_release>())
      .def("alltoallv", &ProcessGroup::alltoallv, py::call_guard<py::gil_scoped_release>())
      .def("gather", &ProcessGroup::gather, py::call_guard<py::gil_scoped_release>())
      .def("scatter", &ProcessGroup::scatter, py::call_guard<py::gil_scoped_release>())
      .def("isend", &ProcessGroup::isend, py::call_guard<py::gil_scoped_release>())
      .def("irecv", &ProcessGroup::irecv, py::call_guard<py::gil_scoped_release>())
      .def("barrier", &ProcessGroup::barrier, py::call_guard<py::gil_scoped_release>());

  d.def(
      "make_gloo_group",
      [](py::object store, int rank, int size, double timeout_s, const std::string& hostname,
         const std::string& iface) {
        auto s = std::make_shared<PyStore>(std::move(store));
        auto ms = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
        py::gil_scoped_release r;
        return distributed::make_gloo_group(std::move(s), rank, size, ms, hostname, iface);
      },
      py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"), py::arg("hostname"),
      py::arg("iface") = "");
  d.def(
      "make_nccl_group",
      [](py::object store, int rank, int size, double timeout_s, int device) {
        auto s = std::make_shared<PyStore>(std::move(store));
        auto ms = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
        py::gil_scoped_release r;
        return distributed::make_nccl_group(std::move(s), rank, size, ms, device);
      },
      py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"), py::arg("device"));
}

}  // namespace mt
