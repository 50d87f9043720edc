// The minitorch._C extension: exception translation and the per-family init functions.
#include "core/Exception.h"
#include "cuda/CUDAHooks.h"
#include "python/bind.h"

namespace mt {

static PyObject* g_oom_error = nullptr;

static void translate(const Error& e) {
  switch (e.kind()) {
    case ErrorKind::Index:
      PyErr_SetString(PyExc_IndexError, e.what());
      return;
    case ErrorKind::Value:
      PyErr_SetString(PyExc_ValueError, e.what());
      return;
    case ErrorKind::Type:
      PyErr_SetString(PyExc_TypeError, e.what());
      return;
    case ErrorKind::NotImplemented:
      PyErr_SetString(PyExc_NotImplementedError, e.what());
      return;
    case ErrorKind::OutOfMemory:
      PyErr_SetString(g_oom_error, e.what());
      return;
    case ErrorKind::Assertion:
      PyErr_SetString(PyExc_AssertionError, e.what());
      return;
    default:
      PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

// A .cast<T>() inside a binding failed: pybind11's "Unable to cast Python instance of type <class 'int'> to
// C++ type '?'" names no argument and no reason. An int that fails to become a C++ integer is out of range
// (PyTorch 2.15: ValueError "Overflow when unpacking long long"); anything else is a wrong type, a TypeError
// as in PyTorch.
static void translate_cast_error(const std::string& msg) {
  std::string type;
  auto a = msg.find("<class '");
  if (a != std::string::npos) {
    auto b = msg.find("'>", a + 8);
    if (b != std::string::npos) type = msg.substr(a + 8, b - a - 8);
  }
  if (type == "int") {
    PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
  } else if (!type.empty()) {
    PyErr_SetString(PyExc_TypeError, ("an argument of type '" + type + "' is not valid here").c_str());
  } else {
    PyErr_SetString(PyExc_TypeError, msg.c_str());
  }
}

// bind_autograd.cpp (declared here rather than in bind.h, which every binding file includes)
void init_autograd(py::module_& m, TensorClass& cls);
void init_sort(py::module_& m, TensorClass& cls);           // bind_sort.cpp
void init_schema_funcs(py::module_& m, TensorClass& cls);   // generated from csrc/ops/ops.schema
void init_operator_fallbacks(TensorClass& cls);             // bind_elementwise.cpp: after every operator
void init_out(py::module_& m);                              // bind_out.cpp: after every op is bound
void init_linalg_torch_function_fallbacks(py::module_& m);  // bind_linalg.cpp: after init_out
// bind_multiprocessing.cpp
void init_multiprocessing(py::module_& m);
void init_rnn(py::module_& m);  // bind_rnn.cpp
// torch_function.cpp: the Tensor methods' __torch_function__ look-up switch and the Python methods' guard
void init_torch_function(py::module_& m);
// arg_errors.cpp: last, once every function is bound
void init_argument_errors(py::module_& m);

}  // namespace mt

PYBIND11_MODULE(_C, m) {
  using namespace mt;
  m.doc() = "minitorch's C++ core";
  g_oom_error =
      PyErr_NewExceptionWithDoc("minitorch.OutOfMemoryError",
                                "Raised when a device (CPU or CUDA) cannot provide the memory an op needs.",
                                PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = py::handle(g_oom_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      translate(e);
    } catch (const std::bad_alloc&) {
      PyErr_SetString(g_oom_error, "DefaultCPUAllocator: not enough memory");
    } catch (const py::cast_error& e) {
      translate_cast_error(e.what());
    }
  });

  // Warnings raised inside ops go through Python's warnings module; one the filters turn into an error
  // raises.
  warning_handler() = [](const std::string& msg) {
    py::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw py::error_already_set();
  };

  // torch._C._nn's counterpart: the kernels behind nn.functional (ops.schema's `module: nn` rows, generated)
  m.def_submodule("_nn", "native ops behind minitorch.nn.functional");
  init_dtype_device(m);
  TensorClass cls(m, "Tensor", py::dynamic_attr());
  init_tensor(m, cls);
  init_factory(m, cls);
  init_shape(m, cls);
  init_elementwise(m, cls);
  init_reduce(m, cls);
  init_index(m, cls);
  init_linalg(m, cls);
  init_sort(m, cls);
  init_cuda(m);
  init_dlpack(m);
  init_foreach(m);
  init_autograd(m, cls);
  init_amp(m);
  init_conv(m);
  init_rnn(m);
  init_distributed(m);
  init_multiprocessing(m);
  init_schema_funcs(m, cls);
  init_operator_fallbacks(cls);
  init_out(m);
  init_linalg_torch_function_fallbacks(m);
  m.attr("_cuda_version") =
      cuda_hooks().cuda_version() ? py::object(py::str(cuda_hooks().cuda_version())) : py::object(py::none());
  init_torch_function(m);
  init_argument_errors(m);
}
