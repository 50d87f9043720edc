// minitorch._C._cuda_*: the runtime queries behind minitorch.cuda (python/minitorch/cuda/__init__.py).
#include "cuda/CUDAHooks.h"
#include "python/bind.h"

namespace mt {

void init_cuda(py::module_& m) {
  m.def("_cuda_compiled", [] { return cuda_hooks().compiled_with_cuda(); });
  m.def("_cuda_device_count", [] { return cuda_hooks().device_count(); });
  m.def("_cuda_is_initialized", [] { return cuda_hooks().is_initialized(); });
  m.def("_cuda_init", [] { cuda_hooks().lazy_init(); });
  m.def("_cuda_current_device", [] { return cuda_hooks().current_device(); });
  m.def("_cuda_set_device", [](int i) { cuda_hooks().set_device(i); });
  m.def("_cuda_synchronize", [](int i) { cuda_hooks().synchronize(i); });
  m.def("_cuda_device_properties", [](int i) {
    DeviceProperties p = cuda_hooks().properties(i);
    return py::make_tuple(p.name, p.total_memory, p.multi_processor_count, p.major, p.minor);
  });
}

}  // namespace mt
