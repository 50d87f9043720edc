// minitorch._C._cuda_*: the runtime queries behind minitorch.cuda (python/minitorch/cuda/__init__.py).
#include "core/Generator.h"
#include "cuda/CUDAGraph.h"
#include "cuda/CUDAHooks.h"
#include "python/bind.h"

namespace mt {

void init_cuda(py::module_& m) {
  const CUDAHooks& h = cuda_hooks();
  m.def("_cuda_compiled", [] { return cuda_hooks().compiled_with_cuda(); });
  m.def("_cuda_device_count", [] { return cuda_hooks().device_count(); });
  m.def("_cuda_is_initialized", [] { return cuda_hooks().is_initialized(); });
  // initializing the driver takes long; other Python threads run meanwhile
  m.def("_cuda_init", [] { cuda_hooks().lazy_init(); }, py::call_guard<py::gil_scoped_release>());
  m.def("_cuda_current_device", [] { return cuda_hooks().current_device(); });
  m.def("_cuda_set_device", [](int i) { cuda_hooks().set_device(i); });
  m.def("_cuda_synchronize", [](int i) {
    py::gil_scoped_release nogil;
    cuda_hooks().synchronize(i);
  });
  m.def("_cuda_device_properties", [](int i) {
    DeviceProperties p = cuda_hooks().properties(i);
    return py::make_tuple(p.name, p.total_memory, p.multi_processor_count, p.major, p.minor);
  });
  // memory
  m.def("_cuda_memory_stats", [&h](int d) { return h.memory_stats(d); });
  m.def("_cuda_reset_peak_memory_stats", [&h](int d) { h.reset_peak_memory_stats(d); });
  m.def("_cuda_empty_cache", [&h] { h.empty_cache(); }, py::call_guard<py::gil_scoped_release>());
  m.def("_cuda_mem_get_info", [&h](int d) { return h.mem_get_info(d); });
  // streams and events: handles are the cudaStream_t / cudaEvent_t values as integers
  m.def("_cuda_current_stream", [&h](int d) { return h.current_stream(d); });
  m.def("_cuda_set_stream", [&h](int d, uintptr_t s) { h.set_current_stream(d, s); });
  m.def("_cuda_stream_from_pool", [&h](int d, bool high) { return h.stream_from_pool(d, high); });
  m.def("_cuda_stream_priority_range", [&h] { return h.stream_priority_range(); });
  m.def("_cuda_stream_query", [&h](uintptr_t s) { return h.stream_query(s); });
  m.def("_cuda_stream_synchronize", [&h](uintptr_t s) {
    py::gil_scoped_release nogil;
    h.stream_synchronize(s);
  });
  m.def("_cuda_stream_wait_event", [&h](uintptr_t s, uintptr_t e) { h.stream_wait_event(s, e); });
  m.def("_cuda_event_create", [&h](bool timing, bool blocking) { return h.event_create(timing, blocking); });
  m.def("_cuda_event_destroy", [&h](uintptr_t e) { h.event_destroy(e); });
  m.def("_cuda_event_record", [&h](uintptr_t e, uintptr_t s) { h.event_record(e, s); });
  m.def("_cuda_event_query", [&h](uintptr_t e) { return h.event_query(e); });
  m.def("_cuda_event_synchronize", [&h](uintptr_t e) {
    py::gil_scoped_release nogil;
    h.event_synchronize(e);
  });
  m.def("_cuda_event_elapsed_time", [&h](uintptr_t a, uintptr_t b) { return h.event_elapsed_time(a, b); });
  m.def("_cuda_manual_seed", [](int d, uint64_t seed) { cuda_generator(d).manual_seed(seed); });
  m.def("_cuda_initial_seed", [](int d) { return cuda_generator(d).seed(); });
  m.def("_cuda_record_stream", [&h](const Tensor& t, uintptr_t s) { h.record_stream(t, s); });

  // CUDA graphs (python/minitorch/cuda/graphs.py wraps these as PyTorch does)
  m.def("_cuda_isCurrentStreamCapturing", [] { return is_current_stream_capturing(); });
  m.def("_graph_pool_handle", [] { return graph_pool_handle(); });
  py::class_<CUDAGraph>(m, "_CUDAGraph")
      .def(py::init<bool>(), py::arg("keep_graph") = false)
      .def(
          "capture_begin",
          [](CUDAGraph& g, std::optional<GraphPoolId> pool, const std::string& mode) {
            g.capture_begin(pool.value_or(GraphPoolId{0, 0}), mode);
          },
          py::arg("pool") = py::none(), py::arg("capture_error_mode") = "global")
      .def("capture_end", &CUDAGraph::capture_end)
      .def("_abort_capture", &CUDAGraph::abort_capture)
      .def("instantiate", &CUDAGraph::instantiate)
      .def("replay", &CUDAGraph::replay)
      .def("reset", &CUDAGraph::reset)
      .def("pool", &CUDAGraph::pool)
      .def("enable_debug_mode", &CUDAGraph::enable_debug_mode)
      .def("debug_dump", &CUDAGraph::debug_dump, py::arg("debug_path"), py::arg("verbose") = true)
      .def("raw_cuda_graph", &CUDAGraph::raw_cuda_graph)
      .def("raw_cuda_graph_exec", &CUDAGraph::raw_cuda_graph_exec)
      .def_property_readonly("_has_graph_exec", &CUDAGraph::has_graph_exec);
}

}  // namespace mt
