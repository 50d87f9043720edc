// Shared-memory storages for minitorch.multiprocessing: moving a CPU storage into a mapped file in place (so
// every existing view follows, as PyTorch's share_memory_), and rebuilding a tensor over a received mapping.
// The file handling (create, map, pass the descriptor) is Python (python/minitorch/multiprocessing/).
#include <unistd.h>

#include <cstring>

#include "core/Storage.h"
#include "python/bind.h"

namespace mt {
namespace {

// What a shared storage owns besides the mapping: the Python object that keeps the mapping alive (a NumPy
// array over an mmap), the descriptor of the file (sent to other processes), and, for a storage that was
// moved into shared memory, its previous buffer. That buffer is kept until the storage dies because arrays
// from `.numpy()` may still point into it; freeing it would leave them dangling.
struct SharedCtx {
  PyObject* owner = nullptr;
  int fd = -1;
  void* old_data = nullptr;
  Allocator* old_allocator = nullptr;
  StorageImpl::Deleter old_deleter = nullptr;
  void* old_ctx = nullptr;
  Device device;
};

void release_shared(void* ctx, void*) {
  auto* c = static_cast<SharedCtx*>(ctx);
  if (c->old_deleter)
    c->old_deleter(c->old_ctx, c->old_data);
  else if (c->old_allocator && c->old_data)
    c->old_allocator->deallocate(c->old_data, c->device);
  if (c->fd >= 0) ::close(c->fd);
  if (Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(c->owner);
    PyGILState_Release(g);
  }
  delete c;
}

SharedCtx* shared_ctx(const Tensor& t) {
  const Storage& s = t.storage();
  return s && s->deleter == &release_shared ? static_cast<SharedCtx*>(s->deleter_ctx) : nullptr;
}

// The writable bytes `owner` exposes (a NumPy array or mmap), checked to hold at least `nbytes`.
void* buffer_of(const py::object& owner, size_t nbytes) {
  py::buffer_info info = py::reinterpret_borrow<py::buffer>(owner).request(/*writable=*/true);
  size_t have = static_cast<size_t>(info.size) * static_cast<size_t>(info.itemsize);
  MT_CHECK(have >= nbytes, "shared memory buffer of ", have, " bytes is smaller than the storage (", nbytes,
           " bytes)");
  return info.ptr;
}

// Moves t's storage into `owner`'s buffer (copying the bytes), keeping the StorageImpl: all views of it, and
// every tensor that shares it, now use the shared memory. `fd` is taken over and closed with the storage.
void storage_share(const Tensor& t, const py::object& owner, int fd) {
  MT_CHECK(t.device().is_cpu(), "share_memory: only CPU storages can be moved to shared memory here");
  MT_CHECK(!shared_ctx(t), "share_memory: the storage is already in shared memory");
  StorageImpl& s = *t.storage();
  void* data = buffer_of(owner, s.nbytes);
  if (s.nbytes && s.data != data) std::memcpy(data, s.data, s.nbytes);
  auto* c = new SharedCtx;
  c->owner = owner.inc_ref().ptr();
  c->fd = fd;
  // the previous buffer is released with the storage; when the storage already lived in this buffer (made by
  // from_numpy over the mapping) that runs its own deleter, which only drops its reference to the array
  c->old_data = s.data;
  c->old_allocator = s.allocator;
  c->old_deleter = s.deleter;
  c->old_ctx = s.deleter_ctx;
  c->device = s.device;
  s.data = data;
  s.allocator = nullptr;
  s.deleter = &release_shared;
  s.deleter_ctx = c;
}

// A tensor over a mapping received from another process: a new storage of `nbytes` bytes in `owner`'s buffer.
// Sizes, strides and offset come from the sender and are bounds-checked against the storage.
Tensor shared_tensor(const py::object& owner, int fd, size_t nbytes, py::handle dtype, py::handle sizes,
                     py::handle strides, int64_t offset) {
  ScalarType st = parse_dtype(dtype);
  DimVector sz = parse_size(sizes), sd = parse_size(strides);
  MT_CHECK_VALUE(sz.size() == sd.size(), "shared tensor: sizes and strides differ in length");
  int64_t last = offset;
  bool empty = false;
  for (size_t i = 0; i < sz.size(); ++i) {
    MT_CHECK_VALUE(sz[i] >= 0 && sd[i] >= 0, "shared tensor: negative size or stride");
    if (sz[i] == 0) empty = true;
    last += (sz[i] - 1) * sd[i];
  }
  MT_CHECK_VALUE(offset >= 0 && (empty || static_cast<size_t>(last + 1) * element_size(st) <= nbytes),
                 "shared tensor: sizes and strides reach outside the shared storage of ", nbytes, " bytes");
  auto s = std::make_shared<StorageImpl>();
  s->data = buffer_of(owner, nbytes);
  s->nbytes = nbytes;
  s->device = Device(DeviceType::CPU);
  auto* c = new SharedCtx;
  c->owner = owner.inc_ref().ptr();
  c->fd = fd;
  s->deleter = &release_shared;
  s->deleter_ctx = c;
  return Tensor(std::make_shared<TensorImpl>(std::move(s), sz, sd, offset, st));
}

}  // namespace

void init_multiprocessing(py::module_& m) {
  m.def("_storage_share_", &storage_share, py::arg("tensor"), py::arg("owner"), py::arg("fd"));
  m.def("_shared_tensor", &shared_tensor, py::arg("owner"), py::arg("fd"), py::arg("nbytes"),
        py::arg("dtype"), py::arg("sizes"), py::arg("strides"), py::arg("offset"));
  m.def("_storage_shared_fd", [](const Tensor& t) {
    SharedCtx* c = shared_ctx(t);
    return c ? c->fd : -1;
  });
}

}  // namespace mt
