// DLPack capsules: _C._to_dlpack exports a tensor without copying, _C._from_dlpack_capsule adopts another
// library's memory (NumPy, PyTorch, CuPy). The protocol logic (streams, dl_device, copy) is in Python
// (python/minitorch/utils/dlpack.py), as in PyTorch.
#include <vector>

#include "core/Storage.h"
#include "python/bind.h"
#include "python/dlpack.h"

namespace mt {
namespace {

DLDataType to_dl(ScalarType st) {
  auto bits = static_cast<uint8_t>(element_size(st) * 8);
  switch (st) {
    case ScalarType::Bool:
      return {kDLBool, 8, 1};
    case ScalarType::Byte:
      return {kDLUInt, 8, 1};
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
      return {kDLInt, bits, 1};
    case ScalarType::BFloat16:
      return {kDLBfloat, 16, 1};
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble:
      return {kDLComplex, bits, 1};
    default:
      return {kDLFloat, bits, 1};
  }
}

ScalarType from_dl(DLDataType d) {
  if (d.lanes == 1) {
    switch (d.code) {
      case kDLBool:
        if (d.bits == 8) return ScalarType::Bool;
        break;
      case kDLUInt:
        if (d.bits == 8) return ScalarType::Byte;
        break;
      case kDLInt:
        if (d.bits == 8) return ScalarType::Char;
        if (d.bits == 16) return ScalarType::Short;
        if (d.bits == 32) return ScalarType::Int;
        if (d.bits == 64) return ScalarType::Long;
        break;
      case kDLFloat:
        if (d.bits == 16) return ScalarType::Half;
        if (d.bits == 32) return ScalarType::Float;
        if (d.bits == 64) return ScalarType::Double;
        break;
      case kDLBfloat:
        if (d.bits == 16) return ScalarType::BFloat16;
        break;
      case kDLComplex:
        if (d.bits == 64) return ScalarType::ComplexFloat;
        if (d.bits == 128) return ScalarType::ComplexDouble;
        break;
      default:
        break;
    }
  }
  throw py::buffer_error(str("Unsupported DLPack dtype (code ", int(d.code), ", bits ", int(d.bits),
                             ", lanes ", d.lanes,
                             "): minitorch holds bool, uint8, int8-64, float16/32/64 and bfloat16"));
}

// The exported tensor (hence its storage) kept alive with the shape/strides arrays DLPack points at and the
// managed struct itself: one allocation per export (four, with vectors and a separate context, cost a third
// of a 0.2 us call)
template <typename M>
struct Export {
  M managed;
  Tensor t;
  DimVector shape, strides;
};

template <typename M>
void delete_export(M* m) {
  delete static_cast<Export<M>*>(m->manager_ctx);
}

void unused_versioned_capsule(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    m->deleter(m);
  }
}
void unused_capsule(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    m->deleter(m);
  }
}

template <typename M>
M* export_of(const Tensor& t) {
  auto* e = new Export<M>{M{}, t, t.sizes(), t.strides()};
  DLTensor& dl = e->managed.dl_tensor;
  dl.data = t.numel() == 0 ? nullptr : t.data_ptr();
  dl.device = t.is_cuda() ? DLDevice{kDLCUDA, t.device().index} : DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = to_dl(t.dtype());
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  dl.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = &delete_export<M>;
  return &e->managed;
}

py::object to_dlpack(const Tensor& t, bool versioned, bool copied) {
  PyObject* cap;
  if (versioned) {
    auto* m = export_of<DLManagedTensorVersioned>(t);
    m->version = {1, 0};
    m->flags = copied ? kDLPackFlagIsCopied : 0;
    cap = PyCapsule_New(m, "dltensor_versioned", &unused_versioned_capsule);
    if (!cap) m->deleter(m);
  } else {
    auto* m = export_of<DLManagedTensor>(t);
    cap = PyCapsule_New(m, "dltensor", &unused_capsule);
    if (!cap) m->deleter(m);
  }
  if (!cap) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(cap);
}

// The producer's deleter runs when our storage dies; it may touch Python objects (NumPy's does), so it runs
// with the GIL.
template <typename M>
void release_import(void* ctx, void*) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  auto* m = static_cast<M*>(ctx);
  if (m->deleter) m->deleter(m);
  PyGILState_Release(g);
}

template <typename M>
Tensor adopt(M* m, const DLTensor& dl) {
  ScalarType st = from_dl(dl.dtype);
  Device device;
  if (dl.device.device_type == kDLCPU || dl.device.device_type == kDLCUDAHost)
    device = Device(DeviceType::CPU);
  else if (dl.device.device_type == kDLCUDA || dl.device.device_type == kDLCUDAManaged)
    device = Device(DeviceType::CUDA, dl.device.device_id);
  else
    throw py::buffer_error(str("Unsupported device in DLTensor (DLPack device type ", dl.device.device_type,
                               "): minitorch takes CPU and CUDA memory"));
  MT_CHECK(dl.ndim >= 0, "DLTensor with negative ndim");
  DimVector sizes(dl.shape, dl.shape + dl.ndim);
  DimVector strides;
  if (dl.strides) {
    strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {
    strides = contiguous_strides(sizes);
  }
  int64_t numel = 1, extent = 1;
  for (int32_t d = 0; d < dl.ndim; ++d) {
    MT_CHECK(sizes[d] >= 0, "DLTensor with a negative size");
    if (strides[d] < 0)
      throw py::buffer_error(
          "from_dlpack: negative strides are not supported (make the array contiguous first, e.g. "
          "numpy.ascontiguousarray)");
    numel *= sizes[d];
    extent += (sizes[d] - 1) * strides[d];
  }
  auto storage = std::make_shared<StorageImpl>();
  storage->data = numel == 0 ? nullptr : static_cast<char*>(dl.data) + dl.byte_offset;
  storage->nbytes = numel == 0 ? 0 : static_cast<size_t>(extent) * element_size(st);
  storage->device = device;
  storage->deleter = &release_import<M>;
  storage->deleter_ctx = m;
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, 0, st));
}

Tensor from_dlpack_capsule(py::handle cap) {
  PyObject* o = cap.ptr();
  if (PyCapsule_IsValid(o, "dltensor_versioned")) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(o, "dltensor_versioned"));
    if (m->version.major > 1)
      throw py::buffer_error(str("from_dlpack: DLPack version ", m->version.major, ".", m->version.minor,
                                 " is newer than the 1.x minitorch understands"));
    Tensor t = adopt(m, m->dl_tensor);
    PyCapsule_SetName(o, "used_dltensor_versioned");
    return t;
  }
  if (PyCapsule_IsValid(o, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(o, "dltensor"));
    Tensor t = adopt(m, m->dl_tensor);
    PyCapsule_SetName(o, "used_dltensor");
    return t;
  }
  throw py::value_error(
      "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so "
      "you "
      "might have already constructed a tensor from it once.");
}

}  // namespace

void init_dlpack(py::module_& m) {
  m.def("_to_dlpack", &to_dlpack, py::arg("tensor"), py::arg("versioned"), py::arg("copied") = false);
  m.def("_from_dlpack_capsule", &from_dlpack_capsule);
}

}  // namespace mt
