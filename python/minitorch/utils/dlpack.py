"""DLPack and __cuda_array_interface__: zero-copy exchange with NumPy, PyTorch, CuPy, JAX.

The capsule code is C++ (csrc/python/bind_dlpack.cpp); the protocol is here, as PyTorch writes it in Python:
`stream` makes the consumer's stream wait for ours, `dl_device`/`copy` follow the array API (BufferError when
a request cannot be met), and tensors that require grad are refused.
"""

from minitorch import _C, _argcheck
from minitorch._dtype_names import dtype_name as _dtype_name

_CPU, _CUDA = 1, 2  # DLPack device types
_TYPESTR = {
    "bool": "|b1",
    "uint8": "|u1",
    "int8": "|i1",
    "int16": "<i2",
    "int32": "<i4",
    "int64": "<i8",
    "float16": "<f2",
    "bfloat16": "<V2",  # as PyTorch: no typestr names bfloat16; ml_dtypes' bfloat16 reads "<V2"
    "float32": "<f4",
    "float64": "<f8",
}


def _stream_handle(device_index):
    """Our current stream on a device as a DLPack/CAI integer (1 is the legacy default stream)."""
    h = _C._cuda_current_stream(device_index)
    return 1 if h == 0 else h


def dlpack_device(tensor):
    """(device type, device index) in DLPack's numbering: (kDLCPU, 0) or (kDLCUDA, index)."""
    return (_CUDA, tensor.get_device()) if tensor.is_cuda else (_CPU, 0)


def dlpack(tensor, *, stream=None, max_version=None, dl_device=None, copy=None, _grad_check=True):
    """Tensor.__dlpack__: a capsule viewing the tensor's memory (no copy unless asked or required)."""
    if _grad_check and tensor.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    t, copied = tensor, False
    if dl_device is not None and tuple(dl_device) != dlpack_device(tensor):
        if copy is False:
            raise BufferError(
                f"cannot export to DLPack device {tuple(dl_device)} without a copy (copy=False)"
            )
        if dl_device[0] != _CPU:
            raise BufferError(
                f"unsupported dl_device {tuple(dl_device)}: minitorch exports to the CPU or in place"
            )
        t, copied = tensor.cpu(), True
    if copy and not copied:
        t, copied = t.clone(), True
    if t.is_cuda and stream is not None and stream != -1:
        if stream == 0:
            raise ValueError("stream 0 is ambiguous in DLPack; use 1 for the legacy default stream")
        ours = _stream_handle(t.get_device())
        if stream != ours:
            # the consumer's stream must not read before our pending work on this memory has finished
            ev = _C._cuda_event_create(False, False)
            _C._cuda_event_record(ev, 0 if ours == 1 else ours)
            _C._cuda_stream_wait_event(stream, ev)
            _C._cuda_event_destroy(ev)
    versioned = max_version is not None and max_version[0] >= 1
    return _C._to_dlpack(t, versioned, copied)


def from_dlpack(ext_tensor):
    """A minitorch tensor sharing memory with `ext_tensor` (any object with __dlpack__, or a DLPack capsule)."""
    if hasattr(ext_tensor, "__dlpack__"):
        kwargs = {}
        dev_type, dev_id = ext_tensor.__dlpack_device__()
        if int(dev_type) == _CUDA:
            kwargs["stream"] = _stream_handle(int(dev_id))
        try:
            capsule = ext_tensor.__dlpack__(max_version=(1, 0), **kwargs)
        except TypeError:  # producers that predate DLPack 1.0's keyword
            capsule = ext_tensor.__dlpack__(**kwargs)
    else:
        capsule = ext_tensor
    return _C._from_dlpack_capsule(capsule)


# read once (through _C at each call they measured up to half of a 0.4 us to_dlpack)
_Tensor = _C.Tensor
_export = _C._to_dlpack


def to_dlpack(tensor):
    """The legacy capsule API (torch.utils.dlpack.to_dlpack): PyTorch's exports a tensor requiring grad too (only
    __dlpack__ refuses it)."""
    if type(tensor) is _Tensor:  # what dlpack() below does with no stream, device or copy asked
        return _export(tensor, False, False)
    _argcheck.check_tensor_like("_to_dlpack", "data", 1, tensor)
    return dlpack(tensor, _grad_check=False)


def cuda_array_interface(tensor):
    """Tensor.__cuda_array_interface__ (version 3) for CUDA tensors, as PyTorch defines it."""
    if not tensor.is_cuda:
        raise AttributeError(
            f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {tensor.type()} If CUDA data is "
            "required use tensor.cuda() to copy tensor to device memory."
        )
    if tensor.requires_grad:
        raise RuntimeError(
            "Can't get __cuda_array_interface__ on Variable that requires grad. If gradients aren't required, "
            "use var.detach() to get Variable that doesn't require grad."
        )
    name = _dtype_name(tensor.dtype)
    if name not in _TYPESTR:
        raise TypeError(f"Got unsupported ScalarType {name} for __cuda_array_interface__")
    item = tensor.element_size()
    strides = None if tensor.is_contiguous() else tuple(s * item for s in tensor.stride())
    ptr = tensor.data_ptr() if tensor.numel() > 0 else 0
    return {
        "typestr": _TYPESTR[name],
        "shape": tuple(tensor.shape),
        "strides": strides,
        "data": (ptr, False),
        "version": 3,
        "stream": _stream_handle(tensor.get_device()),
    }
