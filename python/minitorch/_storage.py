"""Tensor.untyped_storage() and Tensor.storage(): PyTorch's storage objects over the memory under a tensor."""

import warnings
import weakref

from minitorch import _C

__all__ = ["TypedStorage", "UntypedStorage"]


def _flat(t):
    """The whole storage under t as a 1-d detached view in t's dtype (what a storage indexes and lists)."""
    n = t._storage_nbytes() // t.element_size()
    return t.detach().as_strided((n,), (1,), 0)


def _base_ptr(t):
    # a meta tensor or an empty storage has no memory: PyTorch reports address 0 for both
    if t.is_meta or t._storage_nbytes() == 0:
        return 0
    return t.data_ptr() - t.storage_offset() * t.element_size()


class UntypedStorage:
    """The bytes under a tensor. It holds the tensor, so the memory stays alive while the storage object does;
    two views of one tensor give storages with the same data_ptr() (the usual test for shared memory)."""

    def __init__(self, size=0, *, device=None):
        self._tensor = _C.empty(int(size), dtype=_C.uint8, device=device)

    @classmethod
    def _of(cls, tensor):
        s = cls.__new__(cls)
        s._tensor = tensor
        return s

    def data_ptr(self):
        """Address of the storage's first byte (0 for meta and empty storages, as PyTorch)."""
        return _base_ptr(self._tensor)

    def nbytes(self):
        """Size of the storage in bytes."""
        return self._tensor._storage_nbytes()

    def size(self):
        """Size in bytes (an untyped storage counts bytes)."""
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        """1: an untyped storage's elements are bytes."""
        return 1

    @property
    def device(self):
        """The device the memory is on."""
        return self._tensor.device

    @property
    def is_cuda(self):
        """True for memory on a CUDA device."""
        return self._tensor.is_cuda

    def is_shared(self):
        """False: no storage here lives in shared memory."""
        return False

    def tolist(self):
        """The bytes as a list of ints (brought to the host)."""
        return list(self._tensor._storage_bytes())

    def __getitem__(self, i):
        return self.tolist()[i]

    def __eq__(self, other):
        # PyTorch hands back one object per storage, so == is identity there: the same memory here
        if not isinstance(other, UntypedStorage):
            return NotImplemented
        return self._tensor._storage_key() == other._tensor._storage_key() and self.nbytes() == other.nbytes()

    def __hash__(self):
        return hash(self._tensor._storage_key())

    def __repr__(self):
        body = "\n".join(f" {b}" for b in self.tolist()) if not self._tensor.is_meta else "..."
        return f"{body}\n[minitorch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"


_warned_typed = False


class TypedStorage:
    """Tensor.storage(): the storage as elements of the tensor's dtype (deprecated in PyTorch, which warns once
    that untyped_storage() is the way forward; so do we)."""

    def __init__(self, tensor):
        self._tensor = tensor

    @property
    def dtype(self):
        """The element type (the tensor's dtype)."""
        return self._tensor.dtype

    @property
    def device(self):
        """The device the memory is on."""
        return self._tensor.device

    @property
    def is_cuda(self):
        """True for memory on a CUDA device."""
        return self._tensor.is_cuda

    @property
    def _untyped_storage(self):
        return UntypedStorage._of(self._tensor)

    def untyped(self):
        """The same memory as an UntypedStorage."""
        return self._untyped_storage

    def data_ptr(self):
        """Address of the storage's first element (0 for meta and empty storages)."""
        return _base_ptr(self._tensor)

    def nbytes(self):
        """Size of the storage in bytes."""
        return self._tensor._storage_nbytes()

    def element_size(self):
        """Bytes per element."""
        return self._tensor.element_size()

    def size(self):
        """Number of elements of the dtype the storage holds."""
        return self.nbytes() // self.element_size()

    def __len__(self):
        return self.size()

    def is_shared(self):
        """False: no storage here lives in shared memory."""
        return False

    def tolist(self):
        """Every element of the storage, in order, as Python numbers."""
        return _flat(self._tensor).tolist()

    def __getitem__(self, i):
        return _flat(self._tensor)[i].item() if isinstance(i, int) else _flat(self._tensor)[i].tolist()

    def __eq__(self, other):
        if not isinstance(other, TypedStorage):
            return NotImplemented
        return self.dtype == other.dtype and self.untyped() == other.untyped()

    def __hash__(self):
        return hash(self.untyped())

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist()) if not self._tensor.is_meta else "..."
        return f"{body}\n[minitorch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {self.size()}]"


# One object per live storage, as PyTorch's (x.untyped_storage() is x[1:].untyped_storage()): the object holds
# a detached alias of the tensor, so its memory stays alive (and its key unused by any other storage) while
# the object does, and setting the tensor's .data later does not move the object to other memory.
_live_storages = weakref.WeakValueDictionary()


def untyped_storage(self):
    """Tensor.untyped_storage(): the bytes under the tensor."""
    if self._storage_nbytes() == 0:  # no address tells empty storages apart
        return UntypedStorage._of(self.detach())
    key = self._storage_key()
    s = _live_storages.get(key)
    if s is None or s.nbytes() != self._storage_nbytes():
        s = UntypedStorage._of(self.detach())
        _live_storages[key] = s
    return s


def storage(self):
    """Tensor.storage(): the storage as elements of the tensor's dtype (warns once, as PyTorch)."""
    global _warned_typed
    if not _warned_typed:
        _warned_typed = True
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
            "storage class. This should only matter to you if you are using storages directly.  To access "
            "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
            UserWarning,
            stacklevel=2,
        )
    return TypedStorage(self)
