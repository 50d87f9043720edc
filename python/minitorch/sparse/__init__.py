"""torch.sparse: COO and compressed (CSR, CSC, BSR, BSC) sparse tensors over dense minitorch ops, with PyTorch's
names, semantics and errors.

What the package root takes from here (see `torch_namespace` and `_install_tensor_methods`): the constructors
``sparse_coo_tensor`` / ``sparse_csr_tensor`` / ``sparse_csc_tensor`` / ``sparse_bsr_tensor`` /
``sparse_bsc_tensor`` / ``sparse_compressed_tensor``, the layouts (``torch.strided``, ``torch.sparse_coo``, ...),
``spmm`` / ``smm`` / ``hspmm``, the dense Tensor's ``to_sparse`` / ``to_dense`` / ``layout`` / ``is_sparse``
/ ``sparse_mask``, and sparse-aware versions of the C++ functions a sparse argument reaches (``torch.mm``,
``torch.add``, ...). Those call the C++ function first and look for a sparse argument only when it raised a
TypeError, so dense calls do not pay for the sparse path.

Known differences from PyTorch: a sparse tensor is not an instance of ``torch.Tensor`` (``torch.is_tensor``
is True for it); a COO tensor's index bounds are checked at construction whatever check_invariants says (a
compressed tensor's invariants only with check_invariants, as PyTorch, and else at its first use, where PyTorch
would read out of bounds); a sparse leaf's ``.grad`` keeps its own pattern for every op (PyTorch gives a dense
gradient through ``torch.mm`` / ``@``); ``grad_fn`` names are those of the dense ops underneath; products of
2-D CSR/CSC matrices run our CSR kernels (cuSPARSE on CUDA), the other layouts' gathers and scatter-adds, and
BSR/BSC arithmetic goes through dense blocks (a block of explicit zeros is dropped).
"""

from minitorch import _C, _argcheck, _creation
from minitorch import serialization as _serialization
from minitorch.sparse import _aware, _layout, _ops, _types
from minitorch.sparse._layout import (
    jagged,
    layout,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from minitorch.sparse._spdiags import spdiags
from minitorch.sparse._types import (
    SparseCompressedTensor,
    SparseCooTensor,
    sparse_bsc_tensor,
    sparse_bsr_tensor,
    sparse_compressed_tensor,
    sparse_coo_tensor,
    sparse_csc_tensor,
    sparse_csr_tensor,
)

__all__ = [
    "SparseCsrTensor",
    "addmm",
    "check_sparse_tensor_invariants",
    "log_softmax",
    "mm",
    "softmax",
    "spdiags",
    "sum",
]


def mm(mat1, mat2, reduce=None):
    """Matrix product with a sparse mat1 (COO or CSR) or mat2: sparse @ dense is dense, sparse @ sparse is
    sparse. Gradients reach a sparse operand as a sparse tensor of its pattern and the dense one in full.
    reduce ('sum', 'mean', 'amax', 'amin'; CSR mat1 only) combines each row's products."""
    return _ops.sparse_mm(mat1, mat2, reduce)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * mat + alpha * (mat1 @ mat2) for a sparse mat1 (the result is dense)."""
    return _ops.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):
    """The sum of a sparse tensor's elements: every one (a dense 0-dim tensor) or over `dim` (int or list):
    a coalesced sparse tensor of the remaining sparse dims, dense when none remains."""
    return _ops.sparse_sum(input, dim, dtype)


def softmax(input, dim, *, dtype=None):
    """Softmax along `dim` over the stored elements of a COO tensor (unspecified elements count as -inf and
    stay unspecified): each row of a normalized adjacency, say, sums to one over its edges."""
    return _ops.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log(softmax(input, dim)) over the stored elements, computed stably."""
    return _ops.log_softmax(input, dim, dtype=dtype)


class check_sparse_tensor_invariants:
    """Turns on the constructors' invariant checks (check_invariants=None follows it): as a context manager,
    a decorator, or through the static enable()/disable()/is_enabled(). minitorch always checks a COO
    tensor's index bounds; the switch adds the checks of an is_coalesced=True claim and all of a compressed
    tensor's invariants (PyTorch's), which are otherwise checked at its first use."""

    @staticmethod
    def is_enabled():
        """Whether the checks are on for constructors called without check_invariants."""
        return _layout.checks_enabled()

    @staticmethod
    def enable():
        """Turns the checks on (until disable())."""
        _layout.set_checks(True)

    @staticmethod
    def disable():
        """Turns the checks off (the default)."""
        _layout.set_checks(False)

    def __init__(self, enable=True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError(
                "This context manager instance is already activated. Use a different context manager instance "
                "for context nesting."
            )
        self.saved_state = _layout.checks_enabled()
        _layout.set_checks(self.state)

    def __exit__(self, exc_type, exc, tb):
        _layout.set_checks(self.saved_state)
        self.saved_state = None

    def __call__(self, fn):
        def checked(*args, **kwargs):
            with type(self)(self.state):
                return fn(*args, **kwargs)

        return checked


# ---- the legacy sparse types: torch.sparse.FloatTensor(indices, values, size) as pygcn writes it


class _LegacySparseMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, SparseCooTensor) and obj.dtype == cls._dtype and not obj.is_cuda

    def __repr__(cls):
        return f"<class 'torch.sparse.{cls.__name__}'>"


def _legacy_type(name, dtype):
    def __new__(cls, *args, device=None):
        if (
            not args
            or all(isinstance(a, int) for a in args)
            or (len(args) == 1 and isinstance(args[0], (tuple, list)))
        ):
            sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            idx = _C.zeros((len(sizes), 0), dtype=_C.int64, device=device)
            vals = _C.zeros((0,), dtype=dtype, device=device)
            return SparseCooTensor(idx, vals, sizes, True)
        if len(args) not in (2, 3):
            raise TypeError(
                f"{name}() takes (indices, values), (indices, values, size) or sizes, got {len(args)} arguments"
            )
        return sparse_coo_tensor(*args, device=device)

    return _LegacySparseMeta(
        name, (), {"__new__": __new__, "_dtype": dtype, "__module__": "minitorch.sparse"}
    )


FloatTensor = _legacy_type("FloatTensor", _C.float32)
DoubleTensor = _legacy_type("DoubleTensor", _C.float64)
HalfTensor = _legacy_type("HalfTensor", _C.float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", _C.bfloat16)
LongTensor = _legacy_type("LongTensor", _C.int64)
IntTensor = _legacy_type("IntTensor", _C.int32)
ShortTensor = _legacy_type("ShortTensor", _C.int16)
CharTensor = _legacy_type("CharTensor", _C.int8)
ByteTensor = _legacy_type("ByteTensor", _C.uint8)
BoolTensor = _legacy_type("BoolTensor", _C.bool)


# ---- methods of the sparse types that are operations (defined in _ops, above the types)


def _install_sparse_methods():
    def binary(fn, reflected=False):
        if reflected:
            return lambda self, other: fn(other, self)
        return lambda self, other: fn(self, other)

    def in_place(fn):
        def op(self, other, **kwargs):
            out = fn(self, other, **kwargs)
            if type(out) is not type(self):
                out = (
                    _ops._like_layout(out, self)
                    if isinstance(self, SparseCompressedTensor)
                    else out.to_sparse()
                )
            # the tensor's own fields rebound to the result (its values tensor is replaced, not written to)
            self.__dict__.update(out.__dict__)
            return self

        return op

    def softmax_method(self, dim, dtype=None):
        raise NotImplementedError(
            f"Could not run 'aten::_softmax' with arguments from the '{self._layout_word}CPU' backend."
        )

    methods = {
        "__add__": binary(_ops.add),
        "__radd__": binary(_ops.add, reflected=True),
        "__sub__": binary(_ops.sub),
        "__rsub__": binary(_ops.sub, reflected=True),
        "__mul__": binary(_ops.mul),
        "__rmul__": binary(_ops.mul, reflected=True),
        "__truediv__": binary(_ops.div),
        "__rtruediv__": binary(_ops.div, reflected=True),
        "__matmul__": binary(_ops.matmul),
        "__rmatmul__": binary(_ops.matmul, reflected=True),
        "__neg__": _ops.neg,
        "__abs__": _unary_method("abs"),
        "__pow__": _ops.pow,
        "add": lambda self, other, *, alpha=1: _ops.add(self, other, alpha=alpha),
        "sub": lambda self, other, *, alpha=1: _ops.sub(self, other, alpha=alpha),
        "mul": binary(_ops.mul),
        "div": lambda self, other, *, rounding_mode=None: _ops.div(self, other, rounding_mode=rounding_mode),
        "add_": in_place(_ops.add),
        "sub_": in_place(_ops.sub),
        "mul_": in_place(_ops.mul),
        "div_": in_place(_ops.div),
        "neg": _ops.neg,
        "negative": _ops.neg,
        "pow": _ops.pow,
        "mm": binary(_ops.mm),
        "matmul": binary(_ops.matmul),
        "smm": binary(_ops.smm),
        "hspmm": binary(_ops.hspmm),
        "sum": _ops.sum,
        "softmax": softmax_method,
        "log_softmax": softmax_method,
    }
    for name in _ops._UNARY:
        methods[name] = _unary_method(name)
    for cls in (SparseCooTensor, SparseCompressedTensor):
        for name, fn in methods.items():
            setattr(cls, name, fn)
    _types._SparseTensor.__torch_function__ = classmethod(_aware.torch_function)


def _unary_method(name):
    return getattr(_ops, name, None) or _ops._unary(name)


def torch_namespace(root):
    """The names the package root adds or replaces: {name: object} given the root's namespace (a dict)."""
    out = {
        "sparse_coo_tensor": sparse_coo_tensor,
        "sparse_csr_tensor": sparse_csr_tensor,
        "sparse_csc_tensor": sparse_csc_tensor,
        "sparse_bsr_tensor": sparse_bsr_tensor,
        "sparse_bsc_tensor": sparse_bsc_tensor,
        "sparse_compressed_tensor": sparse_compressed_tensor,
        "spmm": _ops.spmm,
        "smm": _ops.smm,
        "hspmm": _ops.hspmm,
        "layout": layout,
        "strided": strided,
        "sparse_coo": sparse_coo,
        "sparse_csr": sparse_csr,
        "sparse_csc": sparse_csc,
        "sparse_bsr": sparse_bsr,
        "sparse_bsc": sparse_bsc,
        "jagged": jagged,
    }
    return out


# ---- the dense Tensor's side of the API


def _layout_error(what, expected):
    def method(self):  # no arguments, as PyTorch's (a call with some is Python's TypeError, as there)
        raise RuntimeError(f"{what} expected {expected} but got Strided")

    method.__name__ = what
    return method


@_argcheck.parses("ScalarType? dtype=None, *, bool? masked_grad=None", name="to_dense", method=True)
def _dense_to_dense(self, dtype=None, *, masked_grad=None):
    return self if dtype is None or dtype == self.dtype else self.to(dtype)


def _install_tensor_methods(cls):
    """The sparse API of the dense Tensor class (layout, is_sparse, to_sparse, to_dense, sparse_mask, ...)."""
    coo = "sparse coordinate tensor layout"
    attrs = {
        "layout": strided,
        "is_sparse": False,
        "is_sparse_csr": False,
        "to_sparse": _ops.dense_to_sparse,
        "to_sparse_coo": lambda self: _types.dense_to_coo(self),
        "to_sparse_csr": _ops.dense_to_layout(sparse_csr),
        "to_sparse_csc": _ops.dense_to_layout(sparse_csc),
        "to_sparse_bsr": _ops.dense_to_layout(sparse_bsr),
        "to_sparse_bsc": _ops.dense_to_layout(sparse_bsc),
        "to_dense": _dense_to_dense,
        "sparse_mask": _ops.sparse_mask,
        "sparse_dim": lambda self: 0,
        "dense_dim": lambda self: self.dim(),
        "indices": _layout_error("indices", coo),
        "_indices": _layout_error("_indices", coo),
        "values": _layout_error("values", "sparse tensor layout"),
        "_values": _layout_error("_values", coo),
        "coalesce": _layout_error("coalesce", coo),
        "is_coalesced": _layout_error("is_coalesced", coo),
        "crow_indices": _layout_error("crow_indices", "sparse row compressed tensor layout"),
        "col_indices": _layout_error("col_indices", "sparse row compressed tensor layout"),
        "ccol_indices": _layout_error("ccol_indices", "sparse column compressed tensor layout"),
        "row_indices": _layout_error("row_indices", "sparse column compressed tensor layout"),
    }
    for name, value in attrs.items():
        if name in cls.__dict__:
            raise RuntimeError(f"Tensor.{name} is defined twice (minitorch.sparse and the extension)")
        setattr(cls, name, value)


_install_sparse_methods()
_creation.register_tensor_type(SparseCooTensor)
_creation.register_tensor_type(SparseCompressedTensor)
# minitorch.load(weights_only=True) may rebuild sparse tensors: their rebuild functions check the indices
for _fn in (_types._rebuild_sparse_coo, _types._rebuild_sparse_csr, _types._rebuild_sparse_compressed):
    _serialization._SAFE_GLOBALS[(_fn.__module__, _fn.__name__)] = _fn
del _fn
