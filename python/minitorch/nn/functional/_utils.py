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


def assert_int_or_pair(arg, arg_name, message):
    """PyTorch's F.assert_int_or_pair: an int or a length-2 sequence, else AssertionError(message.format(arg_name))"""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, func_name):
    """PyTorch's boolean_dispatch (torch._jit_internal): the flag's truth (given by keyword or at arg_index,
    default otherwise) picks if_true or if_false, which then take every argument as given (the flag too), so
    a tensor flag of several values fails on its truth and a bad argument fails in the chosen function's own
    words (its name in a TypeError: max_pool3d_with_indices, _max_pool3d)."""

    def fn(*args, **kwargs):
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        if flag:
            return if_true(*args, **kwargs)
        return if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        if_true.__doc__ = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        if_false.__doc__ = if_true.__doc__
    fn.__doc__ = if_true.__doc__
    fn.__module__ = "minitorch.nn.functional"
    fn.__name__ = fn.__qualname__ = func_name
    return fn
