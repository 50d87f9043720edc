"""Copies every tensor of a (nested) batch into pinned host memory, so host-to-GPU copies can overlap."""

import collections.abc
import copy

from minitorch import _C


def pin_memory(data, device=None):
    """`data` with each tensor replaced by ``tensor.pin_memory()``; containers rebuilt as PyTorch does."""
    if isinstance(data, _C.Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                # a shallow copy keeps the mapping's type and attributes; the values are replaced
                clone = copy.copy(data)
                clone.update({k: pin_memory(v, device) for k, v in data.items()})
                return clone
            return type(data)({k: pin_memory(v, device) for k, v in data.items()})
        except TypeError:
            # the mapping type cannot be built from a dict: return a plain dict
            return {k: pin_memory(v, device) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(pin_memory(s, device) for s in data))
    if isinstance(data, tuple):
        return [pin_memory(s, device) for s in data]  # a list, as PyTorch (backwards compatibility)
    if isinstance(data, collections.abc.Sequence):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, item in enumerate(data):
                    clone[i] = pin_memory(item, device)
                return clone
            return type(data)([pin_memory(s, device) for s in data])
        except TypeError:
            return [pin_memory(s, device) for s in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
