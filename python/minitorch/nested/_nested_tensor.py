"""NestedTensor: a batch of tensors that differ in one or more dimensions, with PyTorch's torch.nested API.

Layout choice: PyTorch stores a nested tensor as one buffer plus per-component sizes (torch.strided) or as
values and offsets along one ragged dimension (torch.jagged), and makes it a torch.Tensor subclass whose ops
dispatch on the nested layout. Our ops are the bound C++ functions and do not dispatch on Python types
(overrides.py), so this is a plain Python class over the list of component tensors, for both layouts: each op
runs per component (autograd flows through the components), the jagged layout adds the single-ragged-dim
rule, ``values()`` / ``offsets()`` and dense broadcasting. ``isinstance(nt, torch.Tensor)`` is False, and
NestedTensor works through its methods and operators (``nt.softmax(-1)``, ``nt @ w``, ``nt.transpose(1, 2)``,
``torch.nested.to_padded_tensor``), not through torch.* or nn.functional functions (``F.linear(nt, w)`` is
``nt @ w.T`` here)."""

import builtins
import itertools

from minitorch import _C
from minitorch._composite_shape import _wrap as _wrap_dim
from minitorch._creation import tensor
from minitorch._size import Size
from minitorch.sparse._layout import jagged, strided

__all__ = ["NestedTensor"]

_ragged_ids = itertools.count(1)

_UNARY = (
    "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "exp", "expm1", "floor", "gelu", "log", "log1p",
    "log2", "neg", "reciprocal", "relu", "round", "rsqrt", "sigmoid", "sign", "silu", "sin", "sinh", "sqrt",
    "square", "tan", "tanh", "trunc", "logical_not", "isnan", "nan_to_num", "clamp", "clamp_min", "clamp_max",
    "float", "double", "half", "bfloat16", "int", "long", "bool", "pow",
)  # fmt: skip
_BINARY = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "true_divide": "div", "floor_divide": "floor_divide",
    "remainder": "remainder", "maximum": "maximum", "minimum": "minimum", "eq": "eq", "ne": "ne", "lt": "lt",
    "le": "le", "gt": "gt", "ge": "ge", "logical_and": "logical_and", "logical_or": "logical_or",
    "atan2": "atan2",
}  # fmt: skip
_OPERATORS = {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "floordiv": "floor_divide", "mod": "remainder",
    "pow": "pow",
}  # fmt: skip


class RaggedSize:
    """The size of a ragged dimension (PyTorch's nested int ``j1``): equal only to itself and its copies."""

    __slots__ = ("_id",)
    _mt_symint = True  # torch.Size takes it as an item, as PyTorch's takes a SymInt (bind_common.cpp)

    def __init__(self, ident):
        self._id = ident

    def __repr__(self):
        return f"j{self._id}"

    def __eq__(self, other):
        return isinstance(other, RaggedSize) and other._id == self._id

    def __hash__(self):
        return hash(("j", self._id))


class NestedTensor:
    """A batch of tensors of the same dim whose sizes may differ (see the module docstring for the layout)."""

    __array_priority__ = 1000  # a Tensor on the left of an operator hands it to us

    def __init__(self, components, layout=strided, ragged_idx=None, ragged_id=None):
        self._components = list(components)
        self._layout = layout
        self._ragged_idx = ragged_idx
        self._ragged_id = ragged_id if ragged_id is not None or layout is strided else next(_ragged_ids)

    def _like(self, components, ragged_idx=None):
        """A NestedTensor of the same layout (and ragged dimension, unless moved) over new components."""
        idx = self._ragged_idx if ragged_idx is None else ragged_idx
        return NestedTensor(components, self._layout, idx, self._ragged_id)

    # metadata
    is_nested = property(lambda self: True)
    layout = property(lambda self: self._layout)
    dtype = property(lambda self: self._components[0].dtype if self._components else _C.get_default_dtype())
    device = property(lambda self: self._components[0].device if self._components else _C.device("cpu"))
    requires_grad = property(lambda self: builtins.any(c.requires_grad for c in self._components))
    is_sparse = property(lambda self: False)

    @property
    def grad(self):
        """The components' gradients as a NestedTensor (None before any backward)."""
        grads = [c.grad for c in self._components]
        if builtins.all(g is None for g in grads):
            return None
        return self._like([g if g is not None else _C.zeros_like(c) for g, c in zip(grads, self._components)])

    def dim(self):
        """The number of dimensions, the batch dimension included."""
        return (self._components[0].dim() if self._components else 0) + 1

    ndim = property(dim)

    def numel(self):
        """The number of elements over all components."""
        return builtins.sum(c.numel() for c in self._components)

    def _sizes(self):
        return [tuple(c.shape) for c in self._components]

    def size(self, dim=None):
        """The size of dim: the batch size for 0, the common size of a regular dimension; a ragged dimension
        has none (strided: RuntimeError as PyTorch's; jagged: its nested int)."""
        if dim is None:
            if self._layout is strided:
                raise RuntimeError(
                    "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue."
                )
            return self.shape
        d = _wrap_dim(dim, self.dim())
        if d == 0:
            return len(self._components)
        sizes = {s[d - 1] for s in self._sizes()}
        if self._layout is jagged and d == self._ragged_idx:
            return RaggedSize(self._ragged_id)
        if len(sizes) != 1:
            raise RuntimeError(f"Given dimension {d} is irregular and does not have a size.")
        return sizes.pop()

    @property
    def shape(self):
        """The jagged layout's shape, the ragged dimension a nested int (strided: RuntimeError as PyTorch's)."""
        if self._layout is strided:
            raise RuntimeError(
                "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue."
            )
        return Size(tuple(self.size(d) for d in range(self.dim())))

    def is_contiguous(self, memory_format=None):
        """Always True: every component is its own contiguous tensor (or is made so by the ops)."""
        return True

    def unbind(self, dim=0):
        """The components, as a tuple."""
        if dim != 0:
            if self._layout is jagged:
                raise RuntimeError("unbind(): only supported for NestedTensor on dim=0")
            raise RuntimeError(
                f"NestedTensor can only be unbound along dimension 0 got dimension {dim} instead."
            )
        return tuple(self._components)

    def __getitem__(self, index):
        if isinstance(index, int):
            return self._components[index]
        raise NotImplementedError("NestedTensor indexing supports one integer index (a component) only")

    def __len__(self):
        return len(self._components)

    def __iter__(self):
        return iter(self._components)

    def values(self):
        """The jagged layout's buffer: the components concatenated along the ragged dimension."""
        if self._layout is not jagged:
            raise RuntimeError("values(): only supported for the jagged layout")
        moved = [c.movedim(self._ragged_idx - 1, 0) for c in self._components]
        return _C.cat(moved, 0)

    def offsets(self):
        """The jagged layout's offsets: where each component starts in values(), and the total length."""
        if self._layout is not jagged:
            raise RuntimeError("offsets(): only supported for the jagged layout")
        lengths = [c.shape[self._ragged_idx - 1] for c in self._components]
        return _offsets(lengths, self.device)

    def to_padded_tensor(self, padding, output_size=None):
        """A dense tensor with every component padded (at the end of each dimension) with padding."""
        return to_padded_tensor(self, padding, output_size)

    # conversions
    def to(self, *args, **kwargs):
        """Each component converted as Tensor.to."""
        return self._like([c.to(*args, **kwargs) for c in self._components])

    def detach(self):
        """The components detached from the graph."""
        return self._like([c.detach() for c in self._components])

    def clone(self):
        """A copy of every component."""
        return self._like([c.clone() for c in self._components])

    def contiguous(self):
        """The components made contiguous."""
        return self._like([c.contiguous() for c in self._components])

    def requires_grad_(self, requires_grad=True):
        """Makes every component a leaf that records gradients (in place)."""
        for c in self._components:
            c.requires_grad_(requires_grad)
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        """Backpropagates from every component (gradient: a NestedTensor of the same structure, or None for
        ones)."""
        from minitorch.autograd.engine import backward

        grads = (
            [_C.ones_like(c) for c in self._components] if gradient is None else list(gradient._components)
        )
        backward(self._components, grads, retain_graph=retain_graph, create_graph=create_graph)

    # ops
    def _component_dim(self, dim, what):
        d = _wrap_dim(dim, self.dim())
        if d == 0:
            raise RuntimeError(what)
        return d - 1

    def softmax(self, dim, dtype=None):
        """Softmax along a non-batch dim of every component."""
        if self._layout is jagged:
            d = self._component_dim(
                dim, "softmax(): not supported when reducing across the batch dimension for NestedTensor"
            )
        else:
            d = self._component_dim(dim, "Cannot apply softmax across nested dimension 0")
        return self._like([c.softmax(d, dtype=dtype) for c in self._components])

    def log_softmax(self, dim, dtype=None):
        """Log-softmax along a non-batch dim of every component."""
        d = self._component_dim(dim, "Cannot apply log_softmax across nested dimension 0")
        return self._like([c.log_softmax(d, dtype=dtype) for c in self._components])

    def transpose(self, dim0, dim1):
        """Every component with two non-batch dims swapped (the ragged dimension moves with them)."""
        n = self.dim()
        d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
        if 0 in (d0, d1):
            if self._layout is jagged:
                raise ValueError("Transpose is not supported on the batch dimension for jagged NT")
            raise RuntimeError("Nested tensor dimension 0 cannot be transposed")
        idx = self._ragged_idx
        if idx in (d0, d1):
            idx = d1 if idx == d0 else d0
        return self._like([c.transpose(d0 - 1, d1 - 1) for c in self._components], idx)

    def matmul(self, other):
        """Component-wise matrix products with another NestedTensor of as many components, or (jagged) with a
        dense matrix, as nn.Linear's weight.T."""
        if isinstance(other, NestedTensor):
            if len(other) != len(self):
                raise RuntimeError(
                    f"matmul: Expected size for the 1st dimension of 2nd input tensor to be: {len(self)} but got: "
                    f"{len(other)}."
                )
            return self._like([a @ b for a, b in zip(self._components, other._components)])
        if self._layout is strided:
            raise RuntimeError("Expected both to be nested, but got a nested self and non-nested other")
        return self._like([c @ other for c in self._components])

    __matmul__ = matmul

    def _binary(self, name, other, reflected=False):
        if isinstance(other, NestedTensor):
            if self._sizes() != other._sizes() or (
                self._layout is jagged and other._layout is jagged and self._ragged_id != other._ragged_id
                and [s[self._ragged_idx - 1] for s in self._sizes()]
                != [s[other._ragged_idx - 1] for s in other._sizes()]
            ):  # fmt: skip
                if self._layout is jagged:
                    raise RuntimeError(
                        f"cannot call binary pointwise function {name}.Tensor with inputs of shapes "
                        f"{_fmt_shape(self)} and {_fmt_shape(other)}"
                    )
                raise RuntimeError(f"{name} does not support broadcasting when given a NestedTensor")
            pairs = zip(self._components, other._components)
        elif isinstance(other, _C.Tensor) and other.dim() > 0:
            if self._layout is strided:
                raise RuntimeError(
                    "Expected both self and other to be nested, but got a nested self and non-nested other"
                )
            if other.dim() >= self.dim():
                raise RuntimeError(
                    f"{name}: a dense operand must broadcast against each component of a jagged NT"
                )
            pairs = ((c, other) for c in self._components)
        else:
            pairs = ((c, other) for c in self._components)
        if reflected:
            return self._like([_apply(name, b, a) for a, b in pairs])
        return self._like([_apply(name, a, b) for a, b in pairs])

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """torch.matmul(nt, w) and torch.mm (whose C++ functions hand a foreign argument here), and inside a
        program transform any torch function that is also a NestedTensor method: that method of the first
        argument."""
        name = getattr(func, "__name__", None)
        if args and isinstance(args[0], NestedTensor) and name in ("matmul", "mm"):
            return args[0].matmul(*args[1:], **(kwargs or {}))
        if args and isinstance(args[0], NestedTensor) and callable(getattr(cls, name or "_", None)):
            return getattr(args[0], name)(*args[1:], **(kwargs or {}))
        return NotImplemented

    def __repr__(self):
        if self._layout is jagged:
            grad = ", requires_grad=True" if self.requires_grad else ""
            return f"NestedTensor(size={_fmt_shape(self)}, offsets={self.offsets()!r}{grad}, contiguous=True)"
        body = ",\n".join("\n".join("  " + line for line in repr(c).split("\n")) for c in self._components)
        grad = ", requires_grad=True" if self.requires_grad else ""
        return f"nested_tensor([\n{body}\n]{grad})"

    __str__ = __repr__

    def __bool__(self):
        raise RuntimeError("Boolean value of NestedTensor is ambiguous")

    __hash__ = object.__hash__


def _apply(name, a, b):
    if isinstance(a, _C.Tensor):
        return getattr(a, name)(b)
    return getattr(_C, name)(_C.full((), a, dtype=b.dtype, device=b.device), b)


def _offsets(lengths, device):
    total, out = 0, [0]
    for n in lengths:
        total += n
        out.append(total)
    return tensor(out, dtype=_C.int64, device=device)


def _fmt_shape(nt):
    return "(" + ", ".join(str(s) for s in nt.shape) + ")"


def to_padded_tensor(input, padding, output_size=None):
    """A dense tensor of the batch's largest sizes (or output_size) with each component at the start of its
    slot and the rest filled with padding; differentiable to the components."""
    if not isinstance(input, NestedTensor):
        raise NotImplementedError(
            "Could not run 'aten::to_padded_tensor' with arguments from the 'CPU' backend."
        )
    comps = input._components
    n = input.dim()
    if not comps:
        size = (0,) if output_size is None else tuple(output_size)
        return _C.full(size, padding, dtype=input.dtype, device=input.device)
    biggest = [builtins.max(c.shape[d] for c in comps) for d in range(n - 1)]
    if output_size is not None:
        output_size = tuple(output_size)
        if len(output_size) != n:
            raise RuntimeError(
                "Length of output_size does not match NestedTensor dims. Broadcasting is not supported."
            )
        if output_size[0] < len(comps) or builtins.any(o < b for o, b in zip(output_size[1:], biggest)):
            raise RuntimeError(
                "Value in output_size is less than NestedTensor padded size. Truncation is not supported."
            )
        biggest = list(output_size[1:])
    padded = [_pad_to(c, biggest, padding) for c in comps]
    out = _C.stack(padded, 0)
    if output_size is not None and output_size[0] > len(comps):
        fill = _C.full((output_size[0] - len(comps), *biggest), padding, dtype=out.dtype, device=out.device)
        out = _C.cat([out, fill], 0)
    return out


def _pad_to(t, sizes, padding):
    for d, want in enumerate(sizes):
        have = t.shape[d]
        if have < want:
            shape = list(t.shape)
            shape[d] = want - have
            t = _C.cat([t, _C.full(tuple(shape), padding, dtype=t.dtype, device=t.device)], d)
    return t


def _install():
    def unary(name):
        def method(self, *args, **kwargs):
            return self._like([getattr(c, name)(*args, **kwargs) for c in self._components])

        method.__name__ = name
        method.__doc__ = f"Tensor.{name} of every component."
        return method

    def binary(name, reflected=False):
        def method(self, other):
            return self._binary(name, other, reflected)

        method.__name__ = name
        method.__doc__ = (
            f"Tensor.{name} component by component (a scalar, or a NestedTensor of the same sizes)."
        )
        return method

    for name in _UNARY:
        setattr(NestedTensor, name, unary(name))
    for name, op in _BINARY.items():
        setattr(NestedTensor, name, binary(op))
    for op, name in _OPERATORS.items():
        setattr(NestedTensor, f"__{op}__", binary(name))
        setattr(NestedTensor, f"__r{op}__", binary(name, reflected=True))
    for op in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(NestedTensor, f"__{op}__", binary(op))
    NestedTensor.__neg__ = unary("neg")
    NestedTensor.__abs__ = unary("abs")
    NestedTensor.__hash__ = object.__hash__


_install()
