"""minitorch.save / minitorch.load: PyTorch's zip checkpoint layout, safe loading by default.

A checkpoint is a zip archive: `<name>/data.pkl` (the object, pickled, with every tensor storage replaced by a
persistent id), `<name>/data/<key>` (each storage's raw bytes, stored once however many views share it) and
`<name>/version`. Loading rebuilds each storage once and every tensor as a view of it, so views that shared
memory before saving share it after loading. With weights_only=True (the default, as in PyTorch 2.6+) the
unpickler accepts only tensors, dtypes, devices and plain containers; anything else is refused before it runs.
"""

import collections
import io
import os
import pickle
import zipfile

from minitorch import _C
from minitorch._dtype_names import dtype_name as _dtype_name

_VERSION = "1"
_DTYPES = {
    name: getattr(_C, name)
    for name in (
        "bool",
        "uint8",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
}


def _rebuild_tensor(storage, offset, size, stride, requires_grad):
    t = storage.as_strided(tuple(size), tuple(stride), offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad):
    from minitorch.nn.parameter import Parameter

    return Parameter(data, requires_grad)


# What weights_only loading may construct: (module, name) -> object.
_SAFE_GLOBALS = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "slice"): slice,
    ("builtins", "complex"): complex,
    ("minitorch.serialization", "_rebuild_tensor"): _rebuild_tensor,
    ("minitorch.serialization", "_rebuild_parameter"): _rebuild_parameter,
    ("minitorch._C", "device"): _C.device,
}
_SAFE_GLOBALS.update({("minitorch._C", n): d for n, d in _DTYPES.items()})


class _Pickler(pickle.Pickler):
    def __init__(self, f, storages):
        super().__init__(f, protocol=2)
        self._storages = storages  # key -> (name, tensor holding the storage)

    def reducer_override(self, obj):
        from minitorch.nn.parameter import Parameter  # nn imports after this module

        if isinstance(obj, Parameter):
            # a Parameter stays one: its data goes through the tensor path below (storage shared, saved once)
            return (_rebuild_parameter, (obj.detach(), obj.requires_grad))
        if _C._is_tensor(obj):
            key = obj._storage_key()
            if key not in self._storages:
                self._storages[key] = (str(len(self._storages)), obj)
            elif self._storages[key][1].dtype != obj.dtype:
                # a storage is saved with one dtype (e.g. a complex tensor and its .real view), as PyTorch
                raise RuntimeError(
                    "Cannot save multiple tensors or storages that view the same data as different types"
                )
            name = self._storages[key][0]
            storage_ref = ("storage", name, _dtype_name(obj.dtype), str(obj.device), obj._storage_nbytes())
            return (
                _rebuild_tensor,
                (
                    _StorageRef(storage_ref),
                    obj.storage_offset(),
                    tuple(obj.shape),
                    obj.stride(),
                    obj.requires_grad,
                ),
            )
        return NotImplemented

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return obj.ref
        return None


class _StorageRef:
    """Stands for a storage inside the pickle stream (written as a persistent id)."""

    __slots__ = ("ref",)

    def __init__(self, ref):
        self.ref = ref


def _is_path(f):
    return isinstance(f, (str, os.PathLike))


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Saves `obj` (tensors, state dicts, nested containers) to a path or a writable binary file object."""
    storages = {}
    buf = io.BytesIO()
    _Pickler(buf, storages).dump(obj)
    name = "archive"
    own = _is_path(f)
    fh = open(f, "wb") if own else f  # noqa: SIM115 - closed below when we opened it
    try:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as z:
            z.writestr(f"{name}/data.pkl", buf.getvalue())
            z.writestr(f"{name}/version", _VERSION + "\n")
            for key, t in storages.values():
                # a meta storage has no bytes: its record is empty, its size stays in the pickle
                z.writestr(f"{name}/data/{key}", b"" if t.is_meta else t._storage_bytes())
    finally:
        if own:
            fh.close()


def _weights_only_error(what):
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps "
        "only if you trust the source of the checkpoint. (1) Re-running `minitorch.load` with `weights_only` set "
        "to `False` will likely succeed, but it can result in arbitrary code execution. (2) Only tensors, dtypes, "
        f"devices and plain containers are allowed with weights_only=True. WeightsUnpickler error: {what}"
    )


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, load_storage, weights_only):
        super().__init__(f)
        self._load_storage = load_storage
        self._weights_only = weights_only

    def find_class(self, module, name):
        module = {"__builtin__": "builtins", "copy_reg": "copyreg"}.get(module, module)  # protocol 2 names
        if (module, name) in _SAFE_GLOBALS:
            return _SAFE_GLOBALS[(module, name)]
        if self._weights_only:
            raise _weights_only_error(
                f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by default."
            )
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unknown persistent id in checkpoint: {pid!r}")
        return self._load_storage(*pid[1:])


def _resolve_location(map_location, saved):
    if map_location is None:
        loc = saved
    elif isinstance(map_location, dict):
        loc = map_location.get(saved, saved)
    elif callable(map_location):
        return map_location
    else:
        loc = str(map_location)
    d = _C.device(loc)
    if d.type == "cuda" and not _C._cuda_device_count():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but minitorch.cuda.is_available() is False. "
            "If you are running on a CPU-only machine, please use minitorch.load with "
            "map_location=minitorch.device('cpu') to map your storages to the CPU."
        )
    return d


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Loads what `save` wrote. map_location: None (the saved devices), a device or string, a dict mapping
    saved device strings to new ones, or a callable(storage, location) -> tensor."""
    own = _is_path(f)
    fh = open(f, "rb") if own else f  # noqa: SIM115 - closed below when we opened it
    try:
        try:
            z = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, OSError, EOFError) as e:
            raise RuntimeError(
                "PytorchStreamReader failed reading zip archive: failed finding central directory "
                f"(not a minitorch/PyTorch checkpoint, or a truncated one: {e})"
            ) from None
        with z:
            names = z.namelist()
            pkl = [n for n in names if n.endswith("/data.pkl")]
            if len(pkl) != 1:
                raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
            prefix = pkl[0][: -len("data.pkl")]
            cache = {}

            def load_storage(key, dtype_name, location, nbytes):
                if key in cache:
                    return cache[key]
                if dtype_name not in _DTYPES:
                    raise pickle.UnpicklingError(f"Unknown dtype in checkpoint: {dtype_name!r}")
                if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes < 0:
                    raise pickle.UnpicklingError(
                        f"corrupt checkpoint: storage size {nbytes!r} for data/{key}"
                    )
                name = f"{prefix}data/{key}"
                if _C.device(location).type == "meta":
                    t = _C.empty(
                        nbytes // _DTYPES[dtype_name].itemsize, dtype=_DTYPES[dtype_name], device="meta"
                    )
                    loc = _resolve_location(map_location, location)
                    cache[key] = t = loc(t, location) if callable(loc) else t.to(loc)
                    return t
                try:
                    # the size the record declares is checked before anything is inflated: a small record may
                    # deflate into gigabytes, and reading stops at the declared size
                    declared = z.getinfo(name).file_size
                    if declared != nbytes:
                        raise RuntimeError(
                            f"PytorchStreamReader failed reading file data/{key}: expected {nbytes} bytes, "
                            f"the record declares {declared}"
                        )
                    with z.open(name) as rec:
                        raw = rec.read(nbytes)
                except (KeyError, zipfile.BadZipFile, OSError, EOFError) as e:
                    raise RuntimeError(f"PytorchStreamReader failed reading file data/{key}: {e}") from None
                if len(raw) != nbytes:
                    raise RuntimeError(
                        f"PytorchStreamReader failed reading file data/{key}: expected {nbytes} bytes, "
                        f"found {len(raw)}"
                    )
                t = _C._tensor_from_bytes(raw, _DTYPES[dtype_name])
                loc = _resolve_location(map_location, location)
                t = loc(t, location) if callable(loc) else t.to(loc)
                cache[key] = t
                return t

            try:
                data = z.read(pkl[0])
            except (zipfile.BadZipFile, OSError, EOFError) as e:
                raise RuntimeError(f"PytorchStreamReader failed reading file data.pkl: {e}") from None
            try:
                return _Unpickler(io.BytesIO(data), load_storage, weights_only).load()
            except (pickle.UnpicklingError, RuntimeError):
                raise
            except Exception as e:  # noqa: BLE001 - a malformed stream must raise, in one exception type
                raise pickle.UnpicklingError(f"corrupt checkpoint: {type(e).__name__}: {e}") from None
    finally:
        if own:
            fh.close()
