"""default_collate and default_convert: samples -> batch, following PyTorch's rules type by type."""

import collections.abc
import copy
import re

import numpy as np

from minitorch import _C, _creation
from minitorch.utils.data._utils import shared

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def default_convert(data):
    """NumPy arrays and scalars inside `data` become tensors (no batch dimension); the rest is kept.

    The DataLoader's collate function when automatic batching is off (``batch_size=None``).
    """
    elem_type = type(data)
    if isinstance(data, _C.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_", "bytes_"):
        # arrays of strings or objects have no tensor form: leave them as they are
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as PyTorch (backwards compatibility)
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates a list of samples: by `collate_fn_map` (type -> function) for leaves, recursively through
    mappings, namedtuples and sequences. ``default_collate`` is this with ``default_collate_fn_map``."""
    elem = batch[0]
    elem_type = type(elem)

    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                # a shallow copy keeps the mapping's type and extra attributes; the values are replaced
                clone = copy.copy(elem)
                clone.update(
                    {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
                )
                return clone
            return elem_type(
                {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
            )
        except TypeError:
            # the mapping type cannot be built from a dict: return a plain dict
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))  # a list, since zip() cannot be iterated twice
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]

    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stacks same-shaped tensors into one batch tensor (into shared memory inside a worker)."""
    # In a worker, stack straight into shared memory: the batch then reaches the main process without
    # another copy (PyTorch does the same with a shared storage and stack(out=)).
    out = shared.stack_into_shared(batch)
    if out is not None:
        return out
    return _C.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """Stacks NumPy arrays into one batch tensor."""
    elem = batch[0]
    # arrays of strings and objects have no tensor form
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_creation.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars to a 1-D tensor of their dtype."""
    return _creation.as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats to a float64 tensor, as PyTorch does."""
    return _creation.tensor(batch, dtype=_C.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints to an int64 tensor (bool when the samples are bools)."""
    return _creation.tensor(batch)  # int64, or bool when the samples are bools (bool subclasses int)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings stay a list of strings."""
    return batch


default_collate_fn_map = {
    _C.Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,  # np.memmap too (a subclass)
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,  # string scalars are not numbers: skipped
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stacks a list of samples into a batch, keeping the samples' structure.

    Tensors are stacked along a new first dimension; NumPy arrays become tensors and are stacked; NumPy
    scalars become a 1-d tensor; Python floats a float64 tensor, ints an int64 tensor, bools a bool tensor;
    strings and bytes stay a list; mappings, namedtuples and sequences are collated field by field
    (tuples become lists, as in PyTorch). Anything else raises TypeError.
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
