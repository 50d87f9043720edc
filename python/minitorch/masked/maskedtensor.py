"""MaskedTensor: a Tensor subclass pairing data with a same-shaped bool mask, whose operations act on the
masked-in elements only (PyTorch's prototype torch.masked.MaskedTensor).

PyTorch's class is a wrapper subclass driven by __torch_dispatch__, so its gradients are MaskedTensors too and
their masks come from the backward formulas. We have no __torch_dispatch__ (docs/architecture.md): our instance
IS its data (a TensorImpl sharing the data's storage) and every torch function, method and operator that
reaches it goes through __torch_function__ below, which runs the op on the data and computes the result's mask.
Gradients run through the C++ engine on the data; their masks come from a shadow graph: each MaskedTensor
result that descends from a MaskedTensor leaf requiring grad carries a float tensor built by ops whose
backward passes a positive value exactly where PyTorch's masked backward keeps an element masked in
(elementwise ops pass it on, where() selects it, reductions and softmax send it to their masked-in inputs).
A plain tensor that receives a gradient from a MaskedTensor output gets a MaskedTensor gradient masked where
no masked-in value reached it (its value is 0 or NaN), since plain ops are not shadowed."""

import builtins
import sys
import warnings

from minitorch import _C
from minitorch.autograd.function import Function
from minitorch.masked import _ops

__all__ = ["MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"]

_SUPPORTED = frozenset((_C.float16, _C.float32, _C.float64, _C.bool, _C.int8, _C.int16, _C.int32, _C.int64))

_UNARY = frozenset((
    "abs", "absolute", "acos", "arccos", "acosh", "arccosh", "angle", "asin", "arcsin", "asinh", "arcsinh",
    "atan", "arctan", "atanh", "arctanh", "bitwise_not", "ceil", "clamp", "clip", "conj_physical", "cos", "cosh",
    "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fix", "floor", "frac", "lgamma",
    "log", "log10", "log1p", "log2", "logit", "i0", "isnan", "nan_to_num", "neg", "negative", "positive", "pow",
    "rad2deg", "reciprocal", "round", "rsqrt", "sigmoid", "sgn", "sign", "signbit", "sin", "sinc", "sinh",
    "sqrt", "square", "tan", "tanh", "trunc", "logical_not", "float", "double", "half", "int", "long", "bool",
    "short", "char",
))  # fmt: skip
_BINARY = frozenset((
    "add", "atan2", "arctan2", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "div", "divide", "floor_divide", "fmod", "logaddexp", "logaddexp2", "mul", "multiply",
    "nextafter", "remainder", "sub", "subtract", "true_divide", "eq", "ne", "le", "ge", "greater",
    "greater_equal", "gt", "less_equal", "lt", "less", "maximum", "minimum", "fmax", "fmin", "not_equal", "pow",
))  # fmt: skip
_NO_INPLACE = frozenset(("logaddexp", "logaddexp2", "fmin", "minimum", "maximum", "fmax"))
_REDUCTIONS = frozenset(("sum", "mean", "amax", "amin", "argmax", "argmin", "prod", "std", "var", "all"))
_NORMALIZATIONS = frozenset(("softmax", "_softmax"))  # PyTorch's MaskedTensor has no log_softmax
# applied to the data and the mask alike (PyTorch's passthrough functions)
_PASSTHROUGH = frozenset((
    "select", "transpose", "split", "t", "__getitem__", "expand", "expand_as", "view", "reshape", "flatten",
    "cat", "concat", "concatenate", "stack", "unsqueeze", "squeeze", "unfold", "unbind", "chunk", "narrow",
    "view_as", "reshape_as", "contiguous",
))  # fmt: skip
_LIKE = frozenset(("ones_like", "zeros_like", "empty_like", "full_like", "rand_like", "randn_like"))
# operators -> the op they run (self first: a commutative reflected operator is the op itself, as PyTorch's
# Tensor.__radd__; the others, `2 - mt`, have no MaskedTensor rule there and raise Python's TypeError)
_OPERATORS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul",
    "__truediv__": "div", "__div__": "div", "__floordiv__": "floor_divide", "__mod__": "remainder",
    "__pow__": "pow", "__and__": "bitwise_and", "__rand__": "bitwise_and", "__or__": "bitwise_or",
    "__ror__": "bitwise_or", "__xor__": "bitwise_xor", "__rxor__": "bitwise_xor",
    "__lshift__": "bitwise_left_shift", "__rshift__": "bitwise_right_shift", "__eq__": "eq", "__ne__": "ne",
    "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__iadd__": "add_", "__isub__": "sub_",
    "__imul__": "mul_", "__itruediv__": "div_", "__neg__": "neg", "__abs__": "abs", "__invert__": "bitwise_not",
    "__pos__": "positive",
}  # fmt: skip
# attributes and queries whose answers are not tensors: run on the data as they are
_METADATA = frozenset((
    "shape", "dtype", "device", "layout", "ndim", "requires_grad", "is_leaf", "grad_fn", "size", "dim", "numel",
    "__len__", "is_contiguous", "is_floating_point", "is_complex", "element_size", "stride", "storage_offset",
    "data_ptr", "_version", "is_cuda", "is_cpu", "is_meta", "nbytes", "itemsize", "ndimension", "nelement",
    "item", "__bool__", "__float__", "__int__", "__index__", "requires_grad_", "retain_grad", "retains_grad",
    "register_hook", "get_device", "is_sparse", "is_quantized", "is_nested", "names", "output_nr", "__hash__",
    "type", "__format__", "__reduce_ex__", "__deepcopy__", "is_mkldnn", "is_mps", "is_xpu", "untyped_storage",
    "storage", "__array__", "_base", "is_inference",
))  # fmt: skip


def is_masked_tensor(obj):
    """Whether obj is a MaskedTensor."""
    return isinstance(obj, MaskedTensor)


class _MaskGrad(Function):
    """The identity whose gradient is zero at the masked-out elements (get_data's: PyTorch masks the gradient
    that reaches a MaskedTensor through its data)."""

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
    # a sparse tensor (minitorch.sparse's classes are not the bound Tensor) passes, to be refused for its layout
    sparse = getattr(x, "layout", _ops.strided) != _ops.strided and hasattr(x, "to_dense")
    if is_masked_tensor(x) or not (isinstance(x, _C.Tensor) or sparse):
        raise TypeError(f"{what} must be a Tensor")


def _func_name(func):
    name = getattr(func, "__name__", None)
    if name == "__get__":  # a getter: the descriptor's name (a property's is its getter's)
        owner = getattr(func, "__self__", None)
        name = getattr(owner, "__name__", None) or getattr(getattr(owner, "fget", None), "__name__", None)
        if not name:  # a pybind11 property's getter is unnamed: its name in the class
            name = next((k for k, v in vars(_C.Tensor).items() if v is owner), "")
    return name or ""


def _plain(x):
    """A MaskedTensor's data as a plain Tensor joined to its autograd history (call with subclasses off)."""
    return _C.Tensor.view_as(x, x) if is_masked_tensor(x) else x


def _grad_on():
    return _C.is_grad_enabled()


def _shadow(x):
    """x's shadow (see the module docstring), made for a MaskedTensor leaf that requires grad on first use."""
    if not is_masked_tensor(x):
        return None
    s = x.__dict__.get("_mt_shadow")
    if s is None and _grad_on() and x.requires_grad and x.is_leaf:
        s = _C.zeros(tuple(x.shape), dtype=_C.float32, requires_grad=True)
        x._mt_shadow = s
    return s


def _not_implemented(name):
    return TypeError(
        f"Multiple dispatch failed for 'torch._ops.{name}.default'; all __torch_dispatch__ handlers returned NotImplemented:\n\n"
        f"  - tensor subclass {MaskedTensor!r}\n\nFor more information, try re-running with "
        "TORCH_LOGS=not_implemented"
    )


def _map(args, fn):
    out = []
    for a in args:
        if is_masked_tensor(a):
            out.append(fn(a))
        elif isinstance(a, (list, tuple)):
            out.append(type(a)(_map(a, fn)))
        else:
            out.append(a)
    return out


def _wrap_result(data, mask, shadow=None):
    if isinstance(data, (list, tuple)):
        shadows = shadow if shadow is not None else [None] * len(data)
        return type(data)(_wrap_result(d, m, s) for d, m, s in zip(data, mask, shadows))
    return MaskedTensor._wrap(data, mask, shadow)


class MaskedTensor(_C.Tensor):
    """data with a bool mask of the same shape; masked-out elements print as ``--`` and take no part in the
    operations (PyTorch's prototype torch.masked.MaskedTensor)."""

    _mt_autograd_torch_function = True  # autograd.grad hands calls with a MaskedTensor to __torch_function__
    # defined when minitorch is imported, but the bindings should look for subclass instances (a cost on every
    # call, docs/architecture.md) only once a MaskedTensor exists: the flag keeps __init_subclass__ from noting
    # the class and is removed below; _note() notes it with the first instance
    _mt_transform_only = True

    # Tensor.__new__ leaves the instance empty for __init__ to build from data (as nn.Parameter)
    _mt_builds_in_init = True

    def __init__(self, data, mask, requires_grad=False):
        _note()
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
        with _C.DisableTorchFunctionSubclass():
            _C.Tensor.__init__(self, _alias_of=data.detach().clone(), requires_grad=requires_grad)
            self._masked_mask = mask.detach().clone()

    @classmethod
    def _wrap(cls, data, mask, shadow=None):
        """A MaskedTensor over data itself, keeping its autograd history (no copy, no warning)."""
        _note()
        out = _C.Tensor.__new__(cls)
        _C.Tensor.__init__(out, _view_of=data)
        out._masked_mask = mask
        if shadow is not None:
            out._mt_shadow = shadow
        return out

    @property
    def _masked_data(self):
        with _C.DisableTorchFunctionSubclass():
            return _C.Tensor.view_as(self, self)

    def get_data(self):
        """The data, differentiable, with zero gradient at the masked-out elements."""
        return _MaskGrad.apply(self._masked_data, self._masked_mask)

    def get_mask(self):
        """The bool mask: True where an element is masked in."""
        return self._masked_mask

    def to_tensor(self, value):
        """A plain tensor: the data with the masked-out elements set to value."""
        return self.get_data().masked_fill(~self._masked_mask, value)

    def is_sparse_coo(self):
        """Whether the layout is sparse COO (never: only strided MaskedTensors are made here)."""
        return False

    def is_sparse_csr(self):
        """Whether the layout is sparse CSR (never: only strided MaskedTensors are made here)."""
        return False

    @property
    def grad(self):
        """The gradient, masked where no masked-in value reached it (a MaskedTensor)."""
        with _C.DisableTorchFunctionSubclass():
            g = vars(_C.Tensor)["grad"].__get__(self, _C.Tensor)
        if g is None or is_masked_tensor(g):
            return g
        s = self.__dict__.get("_mt_shadow")
        mask = s.grad > 0 if s is not None and s.grad is not None else self._masked_mask
        return MaskedTensor._wrap(g, mask)

    @grad.setter
    def grad(self, value):
        with _C.DisableTorchFunctionSubclass():
            vars(_C.Tensor)["grad"].__set__(self, value)
        s = self.__dict__.get("_mt_shadow")
        if value is None and s is not None:
            s.grad = None

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Backpropagates the masked-in elements: leaves' gradients are MaskedTensors (see the module docstring)."""
        seed = self._masked_mask
        if is_masked_tensor(gradient):
            seed = gradient._masked_mask
            gradient = gradient.to_tensor(0).detach()
        retain = create_graph if retain_graph is None else retain_graph
        with _C.DisableTorchFunctionSubclass():
            leaves = _plain_leaves(self.grad_fn)
            _C.Tensor.backward(self, gradient, retain_graph, create_graph, inputs)
        s = self.__dict__.get("_mt_shadow")
        if s is not None and s.requires_grad:
            _autograd().backward(s, seed.to(s.dtype).expand(tuple(s.shape)), retain_graph=retain)
        for leaf in leaves:
            _mask_plain_grad(leaf)

    def __repr__(self):
        fmt = "{0:8.4f}"
        with _C.DisableTorchFunctionSubclass():
            data = _C.Tensor.detach(self)
        mask = self._masked_mask
        if data.dim() == 0:
            value = data.item()
            text = fmt.format(value) if isinstance(value, float) else str(value)
            if not mask.item():
                text = "--"
            return f"MaskedTensor({text}, {mask.item()})"
        s = _masked_str(data, mask, fmt)
        return "MaskedTensor(\n" + "\n".join("  " + line for line in s.split("\n")) + "\n)"

    __str__ = __repr__

    def __format__(self, spec):
        return format(repr(self), spec)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._masked_data.detach(), self._masked_mask))

    def __deepcopy__(self, memo):
        return MaskedTensor._wrap(self._masked_data.detach().clone(), self._masked_mask.clone())

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = _func_name(func)
        if name == "grad" and func is _engine_grad():
            return _autograd_grad(*args, **kwargs)
        with _C.DisableTorchFunctionSubclass():
            return _dispatch(func, name, args, kwargs)


del MaskedTensor._mt_transform_only
_NOTED = []


def _note():
    if not _NOTED:
        _C._note_tensor_subclass()
        _NOTED.append(True)


def _rebuild(data, mask):
    return MaskedTensor._wrap(data, mask)


def _autograd():
    return sys.modules["minitorch.autograd"]


def _engine_grad():
    return sys.modules["minitorch.autograd.engine"].grad


def _plain_leaves(fn):
    """The plain tensors that accumulate gradients below the node fn."""
    seen, leaves, stack, held = set(), [], [fn], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        held.append(node)  # the node objects are made per read: held, so that an id is not reused
        seen.add(id(node))
        if type(node).__name__ == "AccumulateGrad":
            if not is_masked_tensor(node.variable):
                leaves.append(node.variable)
            continue
        stack.extend(n for n, _ in getattr(node, "next_functions", ()))
    return leaves


def _heuristic_mask(g):
    return (g != 0) & ~g.isnan()


def _mask_plain_grad(leaf):
    g = leaf.grad
    if g is None or is_masked_tensor(g):
        return
    masked = MaskedTensor._wrap(g, _heuristic_mask(g))
    leaf.grad = masked
    leaf._mt_masked_grad = masked  # the binding hands back this object for leaf.grad while it lives


def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, **kwargs):
    """autograd.grad with MaskedTensor outputs or inputs: the gradients as MaskedTensors."""
    single_out = isinstance(outputs, _C.Tensor)
    outs = [outputs] if single_out else list(outputs)
    ins = [inputs] if isinstance(inputs, _C.Tensor) else list(inputs)
    gos = (
        [None] * len(outs)
        if grad_outputs is None
        else ([grad_outputs] if isinstance(grad_outputs, _C.Tensor) else list(grad_outputs))
    )
    seeds = [
        (g._masked_mask if is_masked_tensor(g) else o._masked_mask) if is_masked_tensor(o) else None
        for o, g in zip(outs, gos)
    ]
    plain_gos = [g.to_tensor(0).detach() if is_masked_tensor(g) else g for g in gos]
    retain = create_graph if retain_graph is None else retain_graph
    with _C.DisableTorchFunctionSubclass():
        res = _engine_grad()(outs, ins, plain_gos, retain_graph, create_graph, **kwargs)
    # the shadow pass: masks of the gradients of MaskedTensor inputs
    sh_out = [(_shadow(o), s) for o, s in zip(outs, seeds) if s is not None and _shadow(o) is not None]
    sh_in = [(k, _shadow(i)) for k, i in enumerate(ins) if _shadow(i) is not None]
    masks = {}
    if sh_out and sh_in:
        got = _engine_grad()(
            [s for s, _ in sh_out],
            [s for _, s in sh_in],
            [m.to(s.dtype).expand(tuple(s.shape)) for s, m in sh_out],
            retain_graph=retain,
            allow_unused=True,
        )
        masks = {
            k: (g > 0 if g is not None else _C.zeros(tuple(s.shape), dtype=_C.bool))
            for (k, s), g in zip(sh_in, got)
        }
    any_masked_out = builtins.any(s is not None for s in seeds)
    out = []
    for k, (i, g) in enumerate(zip(ins, res)):
        if g is None:
            out.append(None)
        elif k in masks:
            out.append(MaskedTensor._wrap(g, masks[k]))
        elif is_masked_tensor(i):
            out.append(MaskedTensor._wrap(g, i._masked_mask if not any_masked_out else _heuristic_mask(g)))
        elif any_masked_out:
            out.append(MaskedTensor._wrap(g, _heuristic_mask(g)))
        else:
            out.append(g)
    return tuple(out)


def _masks_match(a, b):
    return tuple(a.shape) == tuple(b.shape) and builtins.bool((a == b).all())


def _input_mask(a, like):
    """a's mask, or all True for a plain operand (PyTorch's where treats it so)."""
    if is_masked_tensor(a):
        return a._masked_mask
    if isinstance(a, _C.Tensor):
        return _C.ones(tuple(a.shape), dtype=_C.bool, device=a.device)
    return _C.ones((), dtype=_C.bool, device=like.device)


def _clean(a, fill=1):
    """a's data with its masked-out elements replaced by a harmless value: the differentiable side of an op,
    so that masked-out values (NaN, inf) never reach another operand's gradient."""
    d = _plain(a)
    return _C._where(a._masked_mask, d, _C.full((), fill, dtype=d.dtype, device=d.device))


def _needs_grad(args):
    return _grad_on() and builtins.any(isinstance(a, _C.Tensor) and a.requires_grad for a in args)


def _elementwise(func, args, kwargs, mask):
    """func on the data; with gradients on, its masked-out outputs take no part in the backward pass."""
    out = func(*_map(args, _plain), **kwargs)
    if _needs_grad(args) and isinstance(out, _C.Tensor) and out.dtype.is_floating_point:
        clean = func(*_map(args, _clean), **kwargs)
        out = _C._where(mask.expand(tuple(out.shape)), clean, out.detach())
    return out


def _shadow_sum(args):
    shadows = [s for s in (_shadow(a) for a in args) if s is not None]
    if not shadows or not _grad_on():
        return None
    total = shadows[0]
    for s in shadows[1:]:
        total = total + s
    return total


def _dispatch(func, name, args, kwargs):
    if name in _OPERATORS:
        name = _OPERATORS[name]
        func = getattr(_C.Tensor, name)
    if name in ("tolist", "numpy"):
        raise RuntimeError(
            f".{name}() is not supported for tensor subclasses"
            + (", got MaskedTensor" if name == "tolist" else ".")
        )
    if name in _METADATA or name.startswith(("is_", "_is_")):  # queries (the bindings' _is_tensor too)
        return (
            func(*_map(args, _plain), **kwargs)
            if name != "requires_grad_"
            else _requires_grad_(*args, **kwargs)
        )
    base = name[:-1] if name.endswith("_") and not name.startswith("_") else None
    if name in _BINARY or (base in _BINARY and base not in _NO_INPLACE):
        if name.startswith("pow") and len(args) > 1 and not isinstance(args[1], _C.Tensor):
            return _unary(func, args, kwargs, inplace=base is not None)
        return _binary(func, name, args, kwargs, inplace=base is not None)
    if name in _UNARY or base in _UNARY:
        return _unary(func, args, kwargs, inplace=base is not None)
    if name in ("where", "_where"):
        return _where(func, *args, **kwargs)
    if name in _REDUCTIONS:
        return _reduce(name, *args, **kwargs)
    if name in _NORMALIZATIONS:
        return _normalize(name.lstrip("_"), *args, **kwargs)
    if name in _PASSTHROUGH:
        data = func(*_map(args, _plain), **kwargs)
        mask = func(*_map(args, lambda a: a._masked_mask), **kwargs)
        shadows = None
        if _grad_on() and builtins.any(_shadow(a) is not None for a in _flat(args)):
            shadows = func(*_map(args, _shadow_or_zeros), **kwargs)
        return _wrap_result(data, mask, shadows)
    if name in _LIKE:
        return MaskedTensor._wrap(func(*_map(args, _plain), **kwargs), args[0]._masked_mask)
    if name in ("clone", "detach", "to", "cpu", "cuda", "type_as"):
        data = func(*_map(args, _plain), **kwargs)
        mask = args[0]._masked_mask
        if name in ("clone",):
            mask = mask.clone()
        elif name in ("to", "cpu", "cuda"):
            mask = mask.to(device=data.device)
        shadow = _shadow(args[0]) if name not in ("detach",) else None
        return MaskedTensor._wrap(data, mask, shadow if shadow is not None and data.requires_grad else None)
    raise _not_implemented(f"aten.{name}")


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _flat(a)
        else:
            yield a


def _shadow_or_zeros(a):
    s = _shadow(a)
    return s if s is not None else _C.zeros(tuple(a.shape), dtype=_C.float32)


def _requires_grad_(self, requires_grad=True):
    _C.Tensor.requires_grad_(self, requires_grad)
    return self


def _unary(func, args, kwargs, inplace):
    self = args[0]
    if not is_masked_tensor(self):
        raise _not_implemented(f"aten.{_func_name(func)}")
    mask = self._masked_mask
    if inplace:
        func(self, *args[1:], **kwargs)
        return self
    out = _elementwise(func, args, kwargs, mask)
    shadow = _shadow(self) if _grad_on() and out.requires_grad else None
    return MaskedTensor._wrap(out, mask, shadow)


def _binary(func, name, args, kwargs, inplace):
    if kwargs and name not in ("add", "sub", "add_", "sub_", "subtract", "subtract_"):
        raise ValueError("len(kwargs) must equal 0")
    for a in args[2:]:
        if isinstance(a, _C.Tensor):
            raise TypeError(
                "MaskedTensor binary ops do not support Tensor arguments aside from the lhs and rhs"
            )
    a, b = args[0], args[1] if len(args) > 1 else None
    if is_masked_tensor(a) and is_masked_tensor(b) and not _masks_match(a._masked_mask, b._masked_mask):
        raise ValueError(
            "Input masks must match. If you need support for this, please open an issue on Github."
        )
    mask = a._masked_mask if is_masked_tensor(a) else b._masked_mask
    if inplace:
        if not is_masked_tensor(a):
            raise _not_implemented(f"aten.{name}")
        func(a, _plain(b) if is_masked_tensor(b) else b, *args[2:], **kwargs)
        s = _shadow_sum(args[:2])
        if s is not None:
            a._mt_shadow = s
        return a
    out = _elementwise(func, args, kwargs, mask)
    mask = mask.expand(tuple(out.shape))
    shadow = _shadow_sum(args[:2]) if out.requires_grad else None
    if shadow is not None:
        shadow = shadow.expand(tuple(out.shape))
    return MaskedTensor._wrap(out, mask, shadow)


def _where(func, condition, x=None, y=None, *, input=None, other=None, out=None):
    # torch.where is Python here: handed over, its operands come by keyword (input=, other=)
    x = input if x is None else x
    y = other if y is None else y
    if out is not None:
        raise _not_implemented("aten.where.self_out")
    if is_masked_tensor(condition):
        condition = condition._masked_data
    like = x if isinstance(x, _C.Tensor) else y
    mask = _C._where(condition, _input_mask(x, like), _input_mask(y, like))
    data = func(condition, *_map((x, y), _plain))
    if _needs_grad((x, y)) and data.dtype.is_floating_point:
        clean = func(condition, *_map((x, y), _clean))
        data = _C._where(mask, clean, data.detach())
    shadow = None
    sx, sy = _shadow(x), _shadow(y)
    if _grad_on() and (sx is not None or sy is not None):
        zero = _C.zeros((), dtype=_C.float32)
        shadow = _C._where(condition, zero if sx is None else sx, zero if sy is None else sy)
    return MaskedTensor._wrap(data, mask, shadow)


def _dims_and_keepdim(args, kwargs):
    dim = args[0] if args else kwargs.pop("dim", None)
    keepdim = args[1] if len(args) > 1 else kwargs.pop("keepdim", False)
    return dim, builtins.bool(keepdim)


def _reduce(name, self, *args, **kwargs):
    if not is_masked_tensor(self):
        raise _not_implemented(f"aten.{name}")
    data, mask = _plain(self), self._masked_mask
    dim, keepdim = _dims_and_keepdim(args, kwargs)
    if name == "all":
        filled = data.masked_fill(~mask, True)
        if dim is None:
            return MaskedTensor._wrap(filled.all(), mask.any())
        return MaskedTensor._wrap(filled.all(dim, keepdim), mask.any(dim, keepdim))
    fn = getattr(_ops, name)
    s = _shadow(self)
    if dim is None:
        out = fn(data, mask=mask, **kwargs)
        out_mask = mask.any()
        dims = tuple(range(data.dim()))
    else:
        out = fn(data, dim, keepdim=keepdim, mask=mask, **kwargs)
        dims = _ops._canonical_dim(dim, data.dim())
        out_mask = mask
        for d in reversed(dims):
            out_mask = out_mask.any(d, keepdim=keepdim)
    shadow = None
    if s is not None and _grad_on() and out.requires_grad:
        shadow = (s * mask).sum(dims, keepdim=keepdim) if dims else s * mask
        if dim is None:
            shadow = shadow.reshape(())
    return MaskedTensor._wrap(out, out_mask, shadow)


def _normalize(name, self, dim=None, dtype=None, *args, **kwargs):
    if args:  # the private _softmax(self, dim, half_to_float)
        args = ()
    dim = kwargs.pop("dim", dim)
    dtype = kwargs.pop("dtype", dtype)
    if not is_masked_tensor(self):
        raise _not_implemented(f"aten.{name}")
    mask = self._masked_mask
    out = getattr(_ops, name)(_plain(self), dim, dtype=dtype, mask=mask)
    s = _shadow(self)
    shadow = None
    if s is not None and _grad_on() and out.requires_grad:
        shadow = (s * mask).sum(dim, keepdim=True).expand(tuple(s.shape))
    return MaskedTensor._wrap(out, mask, shadow)


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


def masked_tensor(data, mask, requires_grad=False):
    """A MaskedTensor over a copy of data; requires_grad makes that copy a leaf whose .grad is masked."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask):
    """A MaskedTensor differentiable back to data (PyTorch's _from_values)."""
    out = MaskedTensor(data, mask)
    if not data.requires_grad:
        return out
    with _C.DisableTorchFunctionSubclass():
        return MaskedTensor._wrap(data.clone(), out._masked_mask)
