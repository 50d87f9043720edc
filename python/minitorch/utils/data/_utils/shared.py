"""Moves the tensors of a worker's batch to the main process through shared memory, copying them once.

A worker pickles its batch with a pickler that writes each CPU tensor's bytes into a file under /dev/shm
(tmpfs: RAM) and pickles only the file's name, dtype and shape. The main process maps the file and wraps the
mapping in a NumPy array and then a tensor with ``minitorch.from_numpy``: no second copy, and the mapping
lives exactly as long as the tensor. When ``default_collate`` runs in a worker it stacks the samples straight
into such a file (``stack_into_shared``), so a default-collated batch costs no copy beyond the stack itself.

Files are recycled: when the last tensor on a mapping dies, the main process puts the file's name on its
iterator's free list, and the names ride back to the workers with the next requests. Fresh tmpfs pages cost
far more than the copy itself (the kernel zeroes and accounts each 4 KiB page: about 0.3 ms for a 0.8 MB
batch, against 0.02 ms to copy it), so reusing them is what makes worker batches cheap.

Files are named ``<prefix>w<worker>_<n>``, the prefix unique to one DataLoader iterator, and removed by
``sweep(prefix)``: at the iterator's shutdown, at interpreter exit, and by a worker that finds the main
process gone (so even a killed main process leaves nothing behind once its workers notice). Existing
mappings survive the unlink. We use plain files rather than multiprocessing.shared_memory because its
resource tracker would unlink, and warn about, segments that change hands between processes.
"""

import atexit
import collections
import glob
import io
import mmap
import os
import pickle
import secrets
import tempfile
import threading

import numpy as np

from minitorch import _C
from minitorch._dtype_names import dtype_name as _dtype_name

_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
# map every page at once: one system call instead of a page fault per 4 KiB when the batch is written or read
_MAP_FLAGS = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
_MAX_FREE = 32  # files a worker (or an iterator's free list) keeps for reuse; the rest are removed
# Tensors smaller than this travel inside the pickle: for them a file (create, map, map again, unmap twice)
# costs more than copying the bytes twice.
_INLINE_MAX = 16 * 1024

# numpy dtypes by minitorch dtype; bfloat16 has none, so it travels as float32 (one extra conversion)
_TO_NUMPY = {
    _C.float32: np.float32,
    _C.float64: np.float64,
    _C.float16: np.float16,
    _C.int8: np.int8,
    _C.int16: np.int16,
    _C.int32: np.int32,
    _C.int64: np.int64,
    _C.uint8: np.uint8,
    _C.bool: np.bool_,
}

# Worker-side state, set by the worker loop: the file-name prefix, a counter, and the tensors that
# stack_into_shared made (by data pointer, with the array that keeps their mapping alive until the batch is
# sent, so an address can never be reused by another allocation in between).
_prefix = None
_counter = 0
_live = {}
_free = collections.OrderedDict()  # worker side: recycled file name -> size, oldest first


def set_prefix(prefix):
    """Starts a worker's shared-memory file names at `prefix` and forgets the previous worker state."""
    global _prefix, _counter
    _prefix, _counter = prefix, 0
    _live.clear()
    _free.clear()


def recycle(names):
    """Worker side: files the main process no longer maps, (name, size) pairs, become reusable."""
    for name, size in names:
        _free[name] = size
    while len(_free) > _MAX_FREE:
        name, _ = _free.popitem(last=False)
        _unlink(name)


def _unlink(name):
    try:
        os.unlink(os.path.join(_SHM_DIR, name))
    except OSError:
        pass


def _new_segment(nbytes):
    global _counter
    for name, size in _free.items():
        if size == nbytes:  # a recycled file of the right size: its pages already exist
            del _free[name]
            try:
                fd = os.open(os.path.join(_SHM_DIR, name), os.O_RDWR)
            except OSError:
                break  # swept meanwhile: make a new one
            try:
                return name, mmap.mmap(fd, nbytes, flags=_MAP_FLAGS)
            finally:
                os.close(fd)
    name = f"{_prefix}{_counter}"
    _counter += 1
    fd = os.open(os.path.join(_SHM_DIR, name), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        # fallocate, not ftruncate: a full /dev/shm then fails here with OSError instead of killing the
        # worker with SIGBUS when it first writes a page
        if hasattr(os, "posix_fallocate"):
            os.posix_fallocate(fd, 0, nbytes)
        else:
            os.ftruncate(fd, nbytes)
        return name, mmap.mmap(fd, nbytes, flags=_MAP_FLAGS)
    finally:
        os.close(fd)


def anonymous_segment(nbytes):
    """A new file of `nbytes` bytes under /dev/shm, mapped and already unlinked: (descriptor, mapping).

    For minitorch.multiprocessing (Tensor.share_memory_): such memory is reached through the descriptor alone,
    which other processes receive over multiprocessing's descriptor passing, so nothing is left behind when
    the processes end, however they end.
    """
    path = os.path.join(_SHM_DIR, f"minitorch_shm_{os.getpid()}_{secrets.token_hex(8)}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.unlink(path)
        if hasattr(os, "posix_fallocate"):
            os.posix_fallocate(fd, 0, nbytes)  # a full /dev/shm fails here, not with SIGBUS on first write
        else:
            os.ftruncate(fd, nbytes)
        return fd, mmap.mmap(fd, nbytes, flags=_MAP_FLAGS)
    except BaseException:
        os.close(fd)
        raise


def _shared_array(shape, np_dtype):
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(np_dtype).itemsize
    name, mm = _new_segment(nbytes)
    return name, np.ndarray(shape, dtype=np_dtype, buffer=mm)


def stack_into_shared(batch):
    """minitorch.stack(batch) written straight into shared memory, or None where that does not apply.

    Applies in a worker to equally shaped CPU tensors of one NumPy-representable dtype that need no grad;
    anything else (mismatched shapes included, so stack raises its own error) goes through minitorch.stack.
    The checks run on NumPy views: per-sample tensor attribute calls would cost more than the copy.
    """
    if _prefix is None:
        return None
    np_dtype = _TO_NUMPY.get(getattr(batch[0], "dtype", None))
    if np_dtype is None:
        return None
    try:
        # zero-copy views; numpy() itself refuses CUDA tensors and tensors that require grad
        arrs = [t.numpy() for t in batch]
    except (AttributeError, TypeError, RuntimeError):
        return None
    a0 = arrs[0]
    shape, dt = a0.shape, a0.dtype
    for a in arrs:
        if a.shape != shape or a.dtype != dt:
            return None
    out_shape = (len(arrs), *shape)
    if a0.nbytes * len(arrs) < _INLINE_MAX:
        return None  # small (or empty): sent inline
    name, out = _shared_array(out_shape, np_dtype)
    np.stack(arrs, out=out)
    t = _C.from_numpy(out)
    _live[t.data_ptr()] = (name, out)
    return t


class _Segment(mmap.mmap):
    """Main side: a mapping of a worker's file that offers the file back for reuse when it is dropped."""

    def __del__(self):
        # runs when the last array (and so the last tensor) on this mapping is gone
        try:
            free = self.free_list
            if len(free) < _MAX_FREE:
                free.append((self.name, len(self)))  # list.append is atomic: safe from any thread
            else:
                _unlink(self.name)
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown: the sweep at exit removes the file
            pass


_receiving = threading.local()  # the free list of the iterator whose message is being unpickled


def _rebuild_shared(name, np_dtype, shape, cast, requires_grad):
    """Main side: map the worker's file and wrap it as a tensor without copying."""
    fd = os.open(os.path.join(_SHM_DIR, name), os.O_RDWR)
    try:
        mm = _Segment(fd, os.fstat(fd).st_size, flags=_MAP_FLAGS)
    finally:
        os.close(fd)
    mm.name = name
    mm.free_list = getattr(_receiving, "free_list", None)
    if mm.free_list is None:  # unpickled outside an iterator: nobody to give the file back to
        mm.free_list = []
    return _rebuild_inline(np.frombuffer(mm, dtype=np_dtype).reshape(shape), cast, requires_grad)


def _rebuild_empty(shape, dtype_name, requires_grad):
    return _C.empty(shape, dtype=getattr(_C, dtype_name), requires_grad=requires_grad)


def _rebuild_inline(arr, cast, requires_grad):
    t = _C.from_numpy(arr)
    if cast is not None:
        t = t.to(getattr(_C, cast))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce_tensor(t):
    shape = tuple(t.shape)
    rg = t.requires_grad
    if t.numel() == 0:
        return _rebuild_empty, (shape, _dtype_name(t.dtype), rg)
    np_dtype = _TO_NUMPY.get(t.dtype)
    entry = _live.get(t.data_ptr())
    if entry is not None and np_dtype is not None and t.is_contiguous() and entry[1].shape == shape:
        # made by stack_into_shared: the bytes are already in the file
        return _rebuild_shared, (entry[0], np.dtype(np_dtype).str, shape, None, rg)
    cast = None
    if np_dtype is None:  # bfloat16: sent as float32, converted back in the main process
        np_dtype, cast = np.float32, _dtype_name(t.dtype)
    if t.numel() * np.dtype(np_dtype).itemsize < _INLINE_MAX:
        src = t.detach() if cast is None else t.detach().float()
        return _rebuild_inline, (np.array(src.numpy(), copy=True), cast, rg)
    name, arr = _shared_array(shape, np_dtype)
    _C.from_numpy(arr).copy_(t.detach())  # the one copy (copy_ handles strides and bfloat16)
    return _rebuild_shared, (name, np.dtype(np_dtype).str, shape, cast, rg)


class _SharedPickler(pickle.Pickler):
    def reducer_override(self, obj):
        # CUDA tensors keep their own reduction (host copy); a forked worker cannot touch CUDA anyway
        if isinstance(obj, _C.Tensor) and obj.device.type == "cpu":
            return _reduce_tensor(obj)
        return NotImplemented


def dumps(obj):
    """Worker side: `obj` pickled with its CPU tensors moved to shared memory."""
    buf = io.BytesIO()
    try:
        _SharedPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    finally:
        _live.clear()  # the batch's tensors are in files now (or pickling failed): drop our mappings
    return buf.getvalue()


def loads(data, free_list):
    """Main side: the inverse of dumps; files are mapped, and offered to `free_list` once dropped."""
    _receiving.free_list = free_list
    try:
        return pickle.loads(data)
    finally:
        _receiving.free_list = None


_live_prefixes = set()  # main side: iterators whose files still exist, swept at exit if still there


def register(prefix):
    """Records an iterator's file-name prefix, so its files are swept at exit if they are still there."""
    _live_prefixes.add(prefix)


def sweep(prefix):
    """Removes every file of one iterator; mappings that tensors still hold stay valid."""
    _live_prefixes.discard(prefix)
    for path in glob.glob(os.path.join(_SHM_DIR, glob.escape(prefix) + "*")):
        try:
            os.unlink(path)
        except OSError:
            pass


@atexit.register
def _sweep_all():
    for prefix in list(_live_prefixes):
        sweep(prefix)
