"""Moves the tensors of a worker's batch to the main process through shared memory, copying them once.

A worker pickles its batch with a pickler that writes each CPU tensor's bytes into a file under /dev/shm
(tmpfs: RAM) and pickles only the file's name, dtype and shape. The main process maps the file, unlinks it
at once (the mapping stays valid, and nothing is left behind if it dies later), and wraps the mapping in a
NumPy array and then a tensor with ``minitorch.from_numpy``: no second copy, and the mapping lives exactly as
long as the tensor. When ``default_collate`` runs in a worker it stacks the samples straight into such a
file (``stack_into_shared``), so a default-collated batch costs no copy beyond the stack itself.

Files are named ``<prefix>w<worker>_<n>``, the prefix unique to one DataLoader iterator, so the main process
can remove whatever a crash or an early shutdown left behind (``sweep``). We use plain files rather than
multiprocessing.shared_memory because its resource tracker would unlink, and warn about, segments that
change hands between processes.
"""

import glob
import io
import mmap
import os
import pickle
import tempfile

import numpy as np

import minitorch

_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()

# numpy dtypes by minitorch dtype; bfloat16 has none, so it travels as float32 (one extra conversion)
_TO_NUMPY = {
    minitorch.float32: np.float32,
    minitorch.float64: np.float64,
    minitorch.float16: np.float16,
    minitorch.int8: np.int8,
    minitorch.int16: np.int16,
    minitorch.int32: np.int32,
    minitorch.int64: np.int64,
    minitorch.uint8: np.uint8,
    minitorch.bool: np.bool_,
}

# Worker-side state, set by the worker loop: the file-name prefix, a counter, and the tensors that
# stack_into_shared made (by data pointer, with the array that keeps their mapping alive until the batch is
# sent, so an address can never be reused by another allocation in between).
_prefix = None
_counter = 0
_live = {}


def set_prefix(prefix):
    global _prefix, _counter
    _prefix, _counter = prefix, 0
    _live.clear()


def _new_segment(nbytes):
    global _counter
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
        return name, mmap.mmap(fd, nbytes)
    finally:
        os.close(fd)


def _shared_array(shape, np_dtype):
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(np_dtype).itemsize
    name, mm = _new_segment(nbytes)
    return name, np.ndarray(shape, dtype=np_dtype, buffer=mm)


def stack_into_shared(batch):
    """minitorch.stack(batch) written straight into shared memory, or None where that does not apply.

    Applies in a worker to equally shaped CPU tensors of one NumPy-representable dtype that need no grad;
    anything else (mismatched shapes included, so stack raises its own error) goes through minitorch.stack.
    """
    if _prefix is None:
        return None
    elem = batch[0]
    np_dtype = _TO_NUMPY.get(elem.dtype)
    if np_dtype is None:
        return None
    shape = tuple(elem.shape)
    for t in batch:
        if (
            not isinstance(t, minitorch.Tensor)
            or t.dtype != elem.dtype
            or tuple(t.shape) != shape
            or t.device.type != "cpu"
            or t.requires_grad
        ):
            return None
    out_shape = (len(batch), *shape)
    if int(np.prod(out_shape, dtype=np.int64)) == 0:
        return None
    name, arr = _shared_array(out_shape, np_dtype)
    np.stack([t.numpy() for t in batch], out=arr)
    out = minitorch.from_numpy(arr)
    _live[out.data_ptr()] = (name, arr)
    return out


def _rebuild_shared(name, np_dtype, shape, cast, requires_grad):
    """Main side: map the worker's file, unlink it, and wrap it as a tensor without copying."""
    path = os.path.join(_SHM_DIR, name)
    fd = os.open(path, os.O_RDWR)
    try:
        size = os.fstat(fd).st_size
        mm = mmap.mmap(fd, size)
    finally:
        os.close(fd)
        os.unlink(path)
    arr = np.frombuffer(mm, dtype=np_dtype).reshape(shape)
    t = minitorch.from_numpy(arr)
    if cast is not None:
        t = t.to(getattr(minitorch, cast))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_empty(shape, dtype_name, requires_grad):
    return minitorch.empty(shape, dtype=getattr(minitorch, dtype_name), requires_grad=requires_grad)


def _dtype_name(dtype):
    return repr(dtype).split(".")[-1]


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
    name, arr = _shared_array(shape, np_dtype)
    minitorch.from_numpy(arr).copy_(t.detach())  # the one copy (copy_ handles strides and bfloat16)
    return _rebuild_shared, (name, np.dtype(np_dtype).str, shape, cast, rg)


class _SharedPickler(pickle.Pickler):
    def reducer_override(self, obj):
        # CUDA tensors keep their own reduction (host copy); a forked worker cannot touch CUDA anyway
        if isinstance(obj, minitorch.Tensor) and obj.device.type == "cpu":
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


def loads(data):
    """Main side: the inverse of dumps (the files are mapped and unlinked)."""
    return pickle.loads(data)


def sweep(prefix):
    """Removes every file an iterator's workers made that the main process did not take (shutdown, crash)."""
    for path in glob.glob(os.path.join(_SHM_DIR, glob.escape(prefix) + "*")):
        try:
            os.unlink(path)
        except OSError:
            pass
