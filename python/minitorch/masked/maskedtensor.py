"""MaskedTensor: a tensor and a same-shaped bool mask, whose operations act on the masked-in elements only.

Layout choice: PyTorch's MaskedTensor is a torch.Tensor subclass driven by __torch_dispatch__; our Tensor is
the bound C++ class and ops do not dispatch on Python subclasses (overrides.py), so a subclass would let every
method we did not write compute on the raw data and ignore the mask. This is a plain class instead:
isinstance(mt, torch.Tensor) is False, and its operations are its methods and operators (``mt.sum()``,
``mt.exp()``, ``mt * 2``) and the torch.masked functions, not torch.exp(mt)."""

import builtins
import warnings

from minitorch import _C
from minitorch.autograd.function import Function
from minitorch.masked import _ops

__all__ = ["MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"]

_SUPPORTED = frozenset((_C.float16, _C.float32, _C.float64, _C.bool, _C.int8, _C.int16, _C.int32, _C.int64))

_UNARY = (
    "abs", "absolute", "acos", "arccos", "acosh", "arccosh", "angle", "asin", "arcsin", "asinh", "arcsinh",
    "atan", "arctan", "atanh", "arctanh", "bitwise_not", "ceil", "clamp", "clip", "conj_physical", "cos", "cosh",
    "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fix", "floor", "frac", "lgamma",
    "log", "log10", "log1p", "log2", "logit", "i0", "isnan", "nan_to_num", "neg", "negative", "positive", "pow",
    "rad2deg", "reciprocal", "round", "rsqrt", "sigmoid", "sgn", "sign", "signbit", "sin", "sinc", "sinh",
    "sqrt", "square", "tan", "tanh", "trunc", "relu", "logical_not", "float", "double", "half", "int", "long",
    "bool",
)  # fmt: skip
_BINARY = (
    "add", "atan2", "arctan2", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "div", "divide", "eq", "fmax", "fmin", "fmod", "ge", "gt", "le", "logaddexp",
    "logical_and", "logical_or", "logical_xor", "lt", "maximum", "minimum", "mul", "multiply", "ne", "nextafter",
    "remainder", "sub", "subtract", "true_divide", "floor_divide", "hypot",
)  # fmt: skip
_REDUCTIONS = ("sum", "mean", "amax", "amin", "argmax", "argmin", "prod", "std", "var", "logsumexp", "norm")
_OPERATORS = {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "floordiv": "floor_divide", "mod": "remainder",
    "pow": "pow", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
}  # fmt: skip


def is_masked_tensor(obj):
    """Whether obj is a MaskedTensor."""
    return isinstance(obj, MaskedTensor)


class _MaskGrad(Function):
    """The identity whose gradient is zero at the masked-out elements: how a MaskedTensor's data meets
    autograd, so that masked-out gradients are masked as PyTorch's."""

    @staticmethod
    def forward(ctx, data, mask):
        ctx.save_for_backward(mask)
        ctx.mark_non_differentiable(mask)
        return data.view_as(data)

    @staticmethod
    def backward(ctx, grad):
        """The incoming gradient with its masked-out elements zeroed."""
        (mask,) = ctx.saved_tensors
        return _C._where(mask, grad, _C.zeros((), dtype=grad.dtype, device=grad.device)), None


def _check_tensor(x, what):
    if is_masked_tensor(x) or not isinstance(x, _C.Tensor):
        raise TypeError(f"{what} must be a Tensor")


class MaskedTensor:
    """data with a bool mask of the same shape; masked-out elements print as ``--`` and take no part in the
    reductions (PyTorch's prototype torch.masked.MaskedTensor)."""

    __array_priority__ = 1000  # a Tensor operand on the left hands the operator to us

    def __init__(self, data, mask, requires_grad=False):
        _check_tensor(data, "data")
        _check_tensor(mask, "mask")
        warnings.warn(
            "The PyTorch API of MaskedTensors is in prototype stage and will change in the near future. Please "
            "open a Github issue for feature requests and see our documentation on the torch.masked module for "
            "further information about the project.",
            UserWarning,
            stacklevel=2,
        )
        if data.requires_grad:
            warnings.warn(
                "It is not recommended to create a MaskedTensor with a tensor that requires_grad. "
                "To avoid this, you can use data.detach().clone()",
                UserWarning,
                stacklevel=2,
            )
        if data.layout != mask.layout:
            raise TypeError("data and mask must have the same layout.")
        if data.layout != _ops.strided:
            raise TypeError(f"data layout of {data.layout} is not supported.")
        if mask.dtype != _C.bool:
            raise TypeError("mask must have dtype bool.")
        if data.dtype not in _SUPPORTED:
            raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
        if data.dim() != mask.dim():
            raise ValueError("data.dim() must equal mask.dim()")
        if tuple(data.shape) != tuple(mask.shape):
            raise ValueError("data.size() must equal mask.size()")
        data = data.detach().clone() if requires_grad else data.clone()
        if requires_grad:
            data.requires_grad_(True)
        self._masked_data = data
        self._masked_mask = mask.clone()

    @classmethod
    def _wrap(cls, data, mask):
        """A MaskedTensor over data itself, keeping its autograd history (no copy, no warning)."""
        out = cls.__new__(cls)
        out._masked_data = data
        out._masked_mask = mask
        return out

    def get_data(self):
        """The data, differentiable, with zero gradient at the masked-out elements."""
        return _MaskGrad.apply(self._masked_data, self._masked_mask)

    def get_mask(self):
        """The bool mask: True where an element is masked in."""
        return self._masked_mask

    def to_tensor(self, value):
        """A plain tensor: the data with the masked-out elements set to value."""
        return self.get_data().masked_fill(~self._masked_mask, value)

    # tensor metadata
    shape = property(lambda self: self._masked_data.shape)
    dtype = property(lambda self: self._masked_data.dtype)
    device = property(lambda self: self._masked_data.device)
    layout = property(lambda self: self._masked_data.layout)
    ndim = property(lambda self: self._masked_data.dim())
    requires_grad = property(lambda self: self._masked_data.requires_grad)
    is_sparse = property(lambda self: False)
    grad_fn = property(lambda self: self._masked_data.grad_fn)

    @property
    def grad(self):
        """The gradient of a leaf MaskedTensor, masked by its mask."""
        g = self._masked_data.grad
        return None if g is None else MaskedTensor._wrap(g, self._masked_mask)

    def size(self, dim=None):
        """The shape, or the length of dim."""
        return self._masked_data.size() if dim is None else self._masked_data.size(dim)

    def dim(self):
        """The number of dimensions."""
        return self._masked_data.dim()

    def numel(self):
        """The number of elements, masked in or out."""
        return self._masked_data.numel()

    def __len__(self):
        return len(self._masked_data)

    def requires_grad_(self, requires_grad=True):
        """Makes the data a leaf that records gradients (in place)."""
        self._masked_data.requires_grad_(requires_grad)
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        """Backpropagates from the data; a MaskedTensor gradient counts its masked-out elements as 0."""
        if is_masked_tensor(gradient):
            gradient = gradient.to_tensor(0)
        self._masked_data.backward(gradient, retain_graph, create_graph)

    def detach(self):
        """The same data and mask, out of the autograd graph."""
        return MaskedTensor._wrap(self._masked_data.detach(), self._masked_mask)

    def clone(self):
        """A copy of data and mask."""
        return MaskedTensor._wrap(self._masked_data.clone(), self._masked_mask.clone())

    def to(self, *args, **kwargs):
        """Data converted as Tensor.to; the mask follows to the device only."""
        mask = self._masked_mask.to(
            *[a for a in args if not isinstance(a, _C.dtype)],
            **{k: v for k, v in kwargs.items() if k != "dtype"},
        )
        return MaskedTensor._wrap(self._masked_data.to(*args, **kwargs), mask)

    def __getitem__(self, index):
        return MaskedTensor._wrap(self._masked_data[index], self._masked_mask[index])

    def __repr__(self):
        fmt = "{0:8.4f}"
        if self.dim() == 0:
            value = self._masked_data.item()
            text = fmt.format(value) if isinstance(value, float) else str(value)
            if not self._masked_mask.item():
                text = "--"
            return f"MaskedTensor({text}, {self._masked_mask.item()})"
        s = _masked_str(self._masked_data.detach(), self._masked_mask, fmt)
        return "MaskedTensor(\n" + "\n".join("  " + line for line in s.split("\n")) + "\n)"

    __str__ = __repr__

    def __bool__(self):
        raise RuntimeError("Boolean value of MaskedTensor is ambiguous")

    # reductions: the masked function over the data, masked-in where any element was
    def _reduce(self, name, dim=None, keepdim=False, dtype=None, **kwargs):
        fn = getattr(_ops, name)
        data, mask = self._masked_data, self._masked_mask
        if dim is None:
            return MaskedTensor._wrap(fn(data, mask=mask, **kwargs), mask.any())
        out = fn(data, dim, keepdim=keepdim, dtype=dtype, mask=mask, **kwargs)
        dims = _ops._canonical_dim(dim, data.dim())
        out_mask = mask
        for d in reversed(dims):
            out_mask = out_mask.any(d, keepdim=builtins.bool(keepdim))
        return MaskedTensor._wrap(out, out_mask)

    def _normalize(self, name, dim, dtype=None):
        out = getattr(_ops, name)(self._masked_data, dim, dtype=dtype, mask=self._masked_mask)
        return MaskedTensor._wrap(out, self._masked_mask)

    def softmax(self, dim, dtype=None):
        """Softmax along dim over the masked-in elements; the mask is kept."""
        return self._normalize("softmax", dim, dtype)

    def log_softmax(self, dim, dtype=None):
        """Log-softmax along dim over the masked-in elements; the mask is kept."""
        return self._normalize("log_softmax", dim, dtype)

    def softmin(self, dim, dtype=None):
        """Softmin along dim over the masked-in elements; the mask is kept."""
        return self._normalize("softmin", dim, dtype)

    def all(self, dim=None, keepdim=False):
        """Whether every masked-in element is true (over dim), masked in where any element was."""
        filled = self._masked_data.masked_fill(~self._masked_mask, True)
        if dim is None:
            return MaskedTensor._wrap(filled.all(), self._masked_mask.any())
        return MaskedTensor._wrap(filled.all(dim, keepdim), self._masked_mask.any(dim, keepdim))

    def _binary(self, name, other, reflected=False):
        if is_masked_tensor(other):
            if not _masks_match(self._masked_mask, other._masked_mask):
                raise ValueError(
                    "Input masks must match. If you need support for this, please open an issue on Github."
                )
            other = other._masked_data
        a, b = (other, self._masked_data) if reflected else (self._masked_data, other)
        if reflected and not isinstance(a, _C.Tensor):
            return NotImplemented  # as PyTorch's: `2 - mt` is Python's TypeError
        return MaskedTensor._wrap(getattr(a, name)(b), self._masked_mask)


def _masked_str(data, mask, fmt):
    if data.dim() == 1:
        values = data.tolist()
        masked_in = mask.tolist()
        texts = [fmt.format(v) if isinstance(v, float) else str(v) for v in values]
        width = builtins.max((len(t) if m else 8 for t, m in zip(texts, masked_in)), default=0)
        return "[" + ", ".join(t if m else "--".rjust(width) for t, m in zip(texts, masked_in)) + "]"
    subs = [_masked_str(d, m, fmt) for d, m in zip(data, mask)]
    subs = ["\n".join("  " + line for line in s.split("\n")) for s in subs]
    return "[\n" + ",\n".join(subs) + "\n]"


def _install():
    def unary(name):
        def method(self, *args, **kwargs):
            return MaskedTensor._wrap(getattr(self._masked_data, name)(*args, **kwargs), self._masked_mask)

        return method

    def binary(name, reflected=False):
        def method(self, other, *args, **kwargs):
            return self._binary(name, other, reflected)

        return method

    def reduction(name):
        def method(self, dim=None, keepdim=False, dtype=None, **kwargs):
            return self._reduce(name, dim, keepdim, dtype, **kwargs)

        return method

    for name in _UNARY:
        setattr(MaskedTensor, name, unary(name))
    for name in _BINARY:
        setattr(MaskedTensor, name, binary(name))
    for name in _REDUCTIONS:
        setattr(MaskedTensor, name, reduction(name))
    for op, name in _OPERATORS.items():
        setattr(MaskedTensor, f"__{op}__", binary(name))
        setattr(MaskedTensor, f"__r{op}__", binary(name, reflected=True))
    for op, name in (("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge"), ("eq", "eq"), ("ne", "ne")):
        setattr(MaskedTensor, f"__{op}__", binary(name))
    MaskedTensor.__neg__ = unary("neg")
    MaskedTensor.__abs__ = unary("abs")
    MaskedTensor.__invert__ = unary("bitwise_not")
    MaskedTensor.__hash__ = object.__hash__


_install()


def masked_tensor(data, mask, requires_grad=False):
    """A MaskedTensor over a copy of data; requires_grad makes that copy a leaf whose .grad is masked."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask):
    """A MaskedTensor differentiable back to data: data's gradient is zero at the masked-out elements."""
    out = MaskedTensor(data, mask)
    out._masked_data = _MaskGrad.apply(data, out._masked_mask) if data.requires_grad else out._masked_data
    return out


def _masks_match(a, b):
    return tuple(a.shape) == tuple(b.shape) and builtins.bool((a == b).all())
