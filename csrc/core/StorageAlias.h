// Storage aliases: a second StorageImpl over another's memory with a version counter of its own (`x.data`).
#pragma once
#include "core/Tensor.h"

namespace mt {

// PyTorch keeps the version counter in the TensorImpl: `x.data` is a new TensorImpl over x's storage with a
// fresh counter (writes through it are hidden from autograd's saved-tensor check, the documented point of
// `.data`), while views and detach() share x's. Ours lives in StorageImpl (one counter per storage, read by
// every in-place kernel's wrote()), so `.data` and `x.data = y` give the tensor an alias: a StorageImpl over
// the same bytes that keeps the original alive and counts on its own. The memory never moves under an alias
// (nothing reallocates a StorageImpl's data in place: resize_ and set_data swap in a new one), so the alias
// cannot dangle. Aliases of aliases point at the root, so the chain never grows.
Storage alias_storage(const Storage& src, uint32_t version);
// The StorageImpl that owns the memory: `s` itself unless it is an alias.
const StorageImpl* storage_root(const StorageImpl* s);

// `x.data`: a new tensor (no autograd state, not a view) over x's memory, counting versions from 0.
Tensor data_alias(const Tensor& t);

// `x.data = src`: x takes src's memory, sizes, strides and dtype but keeps its own version count, as
// PyTorch's set_data (which keeps the TensorImpl's counter); src's counter is not shared.
void set_data_keep_version(const Tensor& self, const Tensor& src);

// Whether two tensors lie in one storage, counting an alias as its root (what PyTorch's Storage::is_alias_of
// answers for one StorageImpl). Storages whose memory an allocator owns (no deleter) are no aliases: two
// loads decide the common case.
inline bool same_memory(const Tensor& a, const Tensor& b) {
  const StorageImpl* sa = a.storage().get();
  const StorageImpl* sb = b.storage().get();
  if (sa == sb) return true;
  if (!sa->deleter && !sb->deleter) return false;
  return storage_root(sa) == storage_root(sb);
}

}  // namespace mt
