"""The torch functions a sparse argument reaches, made sparse-aware: by name for __torch_function__, and as
wrappers of the root's C++ functions that this module holds (so they pickle by reference, as builtins do)."""

import sys

from minitorch.sparse import _ops, _types

# torch functions a sparse argument may reach, by name: for __torch_function__ (overrides) and the wrappers
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

# The root's C++ functions that take a sparse operand: the products, which is what a sparse matrix is for. The
# other functional forms (torch.add, sum, mul, t, ...) are left the builtins they are (a wrapper costs every dense
# call a Python frame, and torch.add is pinned as a builtin by the overrides tests); their sparse spellings are
# the operators and methods (D + S, S * 2, S.sum(), S.t()) and torch.sparse.sum.
SPARSE_AWARE = ("mm", "matmul", "addmm")


def torch_function(cls, func, types, args=(), kwargs=None):
    """The sparse types' __torch_function__: the sparse implementation of `func`, by name."""
    impl = TORCH_FUNCTIONS.get(getattr(func, "__name__", None))
    if impl is None:
        return NotImplemented
    return impl(*args, **(kwargs or {}))


def any_sparse(args, kwargs):
    """Whether a positional or keyword argument is a sparse tensor."""
    for a in args:
        if isinstance(a, _types._SparseTensor):
            return True
    if kwargs:
        for a in kwargs.values():
            if isinstance(a, _types._SparseTensor):
                return True
    return False


def _with_out(result, out):
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(
            f"minitorch: out= of a sparse product must have the result's shape {list(result.shape)}, got "
            f"{list(out.shape)}"
        )
    return out.copy_(result)


# Each wrapper has its function's own signature, so the dense path forwards positional arguments and builds no
# argument tuple or dict: the C++ call runs first, and only when it raises a TypeError (what the binding does for
# an argument that is not a Tensor) is a sparse argument looked for.


def _mm(dense_fn):
    def mm(input, mat2, out_dtype=None, *, out=None):
        try:
            if out_dtype is None and out is None:
                return dense_fn(input, mat2)
            extra = () if out_dtype is None else (out_dtype,)
            return dense_fn(input, mat2, *extra) if out is None else dense_fn(input, mat2, *extra, out=out)
        except TypeError:
            if not any_sparse((input, mat2), None):
                raise
        return _with_out(_ops.mm(input, mat2), out)

    return mm


def _matmul(dense_fn):
    def matmul(input, other, *, out=None):
        try:
            return dense_fn(input, other) if out is None else dense_fn(input, other, out=out)
        except TypeError:
            if not any_sparse((input, other), None):
                raise
        return _with_out(_ops.matmul(input, other), out)

    return matmul


def _addmm(dense_fn):
    def addmm(input, mat1, mat2, out_dtype=None, *, beta=1, alpha=1, out=None):
        try:
            if out_dtype is None and out is None and beta == 1 and alpha == 1:
                return dense_fn(input, mat1, mat2)
            extra = () if out_dtype is None else (out_dtype,)
            kw = {"beta": beta, "alpha": alpha}
            if out is not None:
                kw["out"] = out
            return dense_fn(input, mat1, mat2, *extra, **kw)
        except TypeError:
            if not any_sparse((input, mat1, mat2), None):
                raise
        return _with_out(_ops.addmm(input, mat1, mat2, beta=beta, alpha=alpha), out)

    return addmm


_MAKERS = {"mm": _mm, "matmul": _matmul, "addmm": _addmm}


def sparse_aware(name, dense_fn):
    """`dense_fn` (the root's C++ function `name`) that also takes sparse arguments; a dense call costs one
    Python frame more. The wrapper is kept on this module under `name`, where pickle finds it."""
    fn = _MAKERS[name](dense_fn)
    fn.__qualname__ = name
    fn.__doc__ = getattr(dense_fn, "__doc__", None)
    fn.__module__ = __name__
    fn.__wrapped__ = dense_fn
    fn._mt_sparse_aware = True
    setattr(sys.modules[__name__], name, fn)
    return fn
