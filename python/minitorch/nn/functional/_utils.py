"""Argument checks two or more nn.functional families share (floating dtypes, int tuples)."""

import collections.abc

from minitorch import _C
from minitorch._dtype_names import scalar_name


def _floating(input, kernel, suffix=True):
    """PyTorch's NotImplementedError for an activation or loss whose kernel takes only floating inputs."""
    if not input.is_floating_point():
        if suffix:
            kernel += "_cuda" if input.is_cuda else "_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input.dtype)}'")


def _floating_pair(input, target, kernel):
    """_floating for a loss whose kernel runs in the promoted dtype of input and target."""
    if isinstance(target, _C.Tensor) and not _C.result_type(input, target).is_floating_point:
        _floating(input if not input.is_floating_point() else target, kernel)


def _ntuple(x, n):
    """PyTorch's _single/_pair/_triple: any iterable taken apart, a bare value repeated"""
    return tuple(x) if isinstance(x, collections.abc.Iterable) else (x,) * n
