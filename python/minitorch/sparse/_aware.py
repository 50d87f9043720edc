"""The torch functions a sparse argument reaches, by name, for the sparse types' __torch_function__: the C++
products (mm, matmul, addmm) hand a call they cannot take to it (their last overload, csrc/python/bind_linalg.cpp),
and minitorch.overrides does inside a transform."""

from minitorch.sparse import _ops

# torch functions a sparse argument may reach, by name, for __torch_function__
TORCH_FUNCTIONS = {
    "mm": _ops.mm,
    "matmul": _ops.matmul,
    "addmm": _ops.addmm,
    "add": _ops.add,
    "sub": _ops.sub,
    "mul": _ops.mul,
    "div": _ops.div,
    "sum": _ops.sum,
    "neg": _ops.neg,
    "t": lambda input: input.t(),
    "transpose": lambda input, dim0, dim1: input.transpose(dim0, dim1),
    "spmm": _ops.spmm,
    "smm": _ops.smm,
    "hspmm": _ops.hspmm,
}


def torch_function(cls, func, types, args=(), kwargs=None):
    """The sparse types' __torch_function__: the sparse implementation of `func`, by name."""
    impl = TORCH_FUNCTIONS.get(getattr(func, "__name__", None))
    if impl is None:
        return NotImplemented
    kwargs = dict(kwargs or {})
    out = kwargs.pop("out", None)
    return _with_out(impl(*args, **kwargs), out)


def _with_out(result, out):
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(
            f"minitorch: out= of a sparse product must have the result's shape {list(result.shape)}, got "
            f"{list(out.shape)}"
        )
    return out.copy_(result)
