"""Pickling reductions that send CPU tensors through shared memory (registered with ForkingPickler), and
Tensor.share_memory_ / Tensor.is_shared.

share_memory_ moves a storage, in place, into a file under /dev/shm that is unlinked at once and reached
only through its descriptor (``shared.anonymous_segment``, the DataLoader's shared-memory machinery): every
view and every tensor sharing the storage follows, as in PyTorch. Sending such a tensor sends a duplicate of
the descriptor (multiprocessing's ``DupFd``: passed to a spawned child at start, through the resource-sharer
otherwise) plus dtype, sizes, strides and offset; the receiver maps the same file, so writes on either side
are seen by the other (Hogwild training relies on it). Memory is freed when the last process drops it.
"""

import mmap
import multiprocessing.reduction as _reduction

import numpy as np

from minitorch import _C, nn
from minitorch._dtype_names import dtype_name as _dtype_name
from minitorch._tensor import _reduce as _reduce_by_copy
from minitorch.utils.data._utils import shared as _shared

__all__ = ["get_all_sharing_strategies", "get_sharing_strategy", "init_reductions", "set_sharing_strategy"]

# PyTorch's two strategies. Both are served by descriptor passing here (minitorch runs no shared-memory
# manager daemon, which 'file_system' uses in PyTorch); the setting is kept for code that sets it.
_all_strategies = {"file_descriptor", "file_system"}
_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Sets how tensors are shared: 'file_descriptor' or 'file_system' (both pass descriptors here)."""
    global _strategy
    if new_strategy not in _all_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}")
    _strategy = new_strategy


def get_sharing_strategy():
    """The current sharing strategy."""
    return _strategy


def get_all_sharing_strategies():
    """The sharing strategies this build accepts."""
    return set(_all_strategies)


def share_memory_(self):
    """Moves the underlying storage to shared memory (a no-op if it is there already, or on CUDA)."""
    if self.device.type != "cpu" or _C._storage_shared_fd(self) >= 0:
        return self
    nbytes = self._storage_nbytes()
    fd, mm = _shared.anonymous_segment(max(nbytes, 1))  # mmap refuses length 0
    try:
        _C._storage_share_(self, np.frombuffer(mm, dtype=np.uint8), fd)
    except BaseException:
        import os

        os.close(fd)
        raise
    return self


def is_shared(self):
    """True when the storage is in shared memory (CUDA tensors count as shared, as in PyTorch)."""
    return self.device.type == "cuda" or _C._storage_shared_fd(self) >= 0


def _rebuild_shared(handle, nbytes, dtype_name, size, stride, offset, requires_grad):
    fd = handle.detach()
    try:
        mm = mmap.mmap(fd, max(nbytes, 1), flags=mmap.MAP_SHARED)
        owner = np.frombuffer(mm, dtype=np.uint8)
        t = _C._shared_tensor(owner, fd, nbytes, getattr(_C, dtype_name), size, stride, offset)
    except BaseException:
        import os

        os.close(fd)
        raise
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(t):
    """ForkingPickler reduction of a tensor: its storage moves to shared memory and the descriptor travels."""
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support "
            "crossing process boundaries.  If you just want to transfer the data, call detach() on the tensor "
            "before serializing (e.g., putting it on the queue)."
        )
    if t.device.type != "cpu":
        return _reduce_by_copy(t)
    t.share_memory_()
    handle = _reduction.DupFd(_C._storage_shared_fd(t))
    args = (handle, t._storage_nbytes(), _dtype_name(t.dtype), tuple(t.shape), t.stride(), t.storage_offset())
    return (_rebuild_shared, (*args, t.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return nn.Parameter(data, requires_grad)


def reduce_parameter(p):
    """ForkingPickler reduction of an nn.Parameter: its data as a shared tensor, and requires_grad."""
    return (_rebuild_parameter, (p.detach(), p.requires_grad))


def init_reductions():
    """Registers the tensor reductions with multiprocessing and installs share_memory_/is_shared."""
    _reduction.ForkingPickler.register(_C.Tensor, reduce_tensor)
    _reduction.ForkingPickler.register(nn.Parameter, reduce_parameter)
    _C.Tensor.share_memory_ = share_memory_
    _C.Tensor.is_shared = is_shared
