"""BatchedTensor: what a vmapped function sees in place of a tensor, and the dispatch of its ops to batching rules.

A BatchedTensor holds the underlying tensor with the batch dimension physically present, always at position 0
(wrapping moves it there: a view, no copy), and the vmap level it belongs to. Nested vmaps nest the wrappers:
the value of a level-2 BatchedTensor is a level-1 BatchedTensor whose value is a plain tensor, so the plain
tensor's dims are [B1, B2, *logical]. Every op on a BatchedTensor, whether a torch function (through
`__torch_function__`, which `minitorch.overrides.enable_torch_function_dispatch` routes to us while vmap runs),
a Tensor method or an operator, goes to `dispatch(key, args, kwargs)`: it takes the innermost (highest) level
among the arguments, and the batching rule registered under the op's key (`_batch_rules.py`) rewrites the call
into one call on the underlying values (which may themselves be BatchedTensors of outer levels: the call
dispatches again). An op without a rule runs once per batch entry and stacks the results, after a one-time
warning in PyTorch's words.

Keys name the public op: "add" (torch.add), "F.conv2d" (torch.nn.functional.conv2d), "linalg.norm",
"special.erfcx", "Tensor.view" (a method; a method without its own rule uses the function rule of its name,
since methods take self first).
"""

import operator
import sys
import threading
import warnings

from minitorch import _C
from minitorch.overrides import original_function, resolve_name

__all__ = ["BatchedTensor", "dispatch", "register_rule"]

RULES = {}  # key -> rule(key, level, args, kwargs)
_warned = set()
_originals = {}


class _State(threading.local):
    def __init__(self):
        self.levels = []  # active vmap levels, outermost first
        self.next_level = 1
        self.grad_depth = 0  # function transforms of the grad family currently running (create_graph)
        # torch.func transforms running (vmap, grad/vjp, jvp): a user's autograd.Function checks its support
        self.transform_depth = 0
        # jacfwd calls running: PyTorch's jacfwd is vmap over jvp, so a Function inside needs a vmap rule
        self.jacfwd_depth = 0
        self.mode_depth = 0
        # vmap levels set aside while forward AD runs a reverse transform on plain primals (through_reverse):
        # their randomness still rules the random ops inside
        self.suspended = []


STATE = _State()

FUNCTORCH_REQUIRES_GRAD = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using torch.autograd.functional.* APIs) inside "
    "of a function being transformed by a functorch transform. This is unsupported, please attempt to use the "
    "functorch transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function "
    "being transformed instead."
)
# The library's own calls stay allowed (the transforms' stand-ins, factories' requires_grad=, nn.Parameter) but for
# Module.requires_grad_, which calls it on the user's tensors as PyTorch's does (autograd.functional checks at its
# entry: it also runs transforms of its own).
_ON_BEHALF = frozenset(("minitorch.nn.modules.module",))
_REQUIRES_GRAD_ = _C.Tensor.requires_grad_
_running = 0  # transforms running on all threads: Tensor.requires_grad_ is the checking one while any runs


def check_requires_grad_call(frame):
    """PyTorch refuses Tensor.requires_grad_() inside a functorch transform (vmap, grad/vjp/jacrev, jvp/jacfwd)
    on any tensor; `frame` is the caller's: a call from the library itself is its own business."""
    if STATE.transform_depth:
        name = frame.f_globals.get("__name__", "")
        if not name.startswith("minitorch.") or name in _ON_BEHALF:
            raise RuntimeError(FUNCTORCH_REQUIRES_GRAD)


def _requires_grad_checked(self, requires_grad=True):
    check_requires_grad_call(sys._getframe(1))
    return _REQUIRES_GRAD_(self, requires_grad)


_requires_grad_checked.__name__ = _requires_grad_checked.__qualname__ = "requires_grad_"
_requires_grad_checked.__doc__ = _REQUIRES_GRAD_.__doc__


def enter_transform():
    """A torch.func transform starts on this thread. The builtin Tensor.requires_grad_ cannot tell who calls it,
    so while any transform runs it is replaced by a checking one (two attribute writes per outermost transform;
    the method costs nothing extra the rest of the time)."""
    global _running
    STATE.transform_depth += 1
    if _running == 0:
        _C.Tensor.requires_grad_ = _requires_grad_checked
    _running += 1


def exit_transform():
    """The transform enter_transform counted ends; the last one running puts the builtin method back."""
    global _running
    STATE.transform_depth -= 1
    _running -= 1
    if _running == 0:
        _C.Tensor.requires_grad_ = _REQUIRES_GRAD_


class Level:
    """One active vmap: its id (increasing with nesting), batch size and randomness setting."""

    __slots__ = ("id", "randomness", "size")

    def __init__(self, id, size, randomness):
        self.id = id
        self.size = size
        self.randomness = randomness


def level_of(level_id):
    """The active Level of this id; a RuntimeError once that vmap has returned (a leaked BatchedTensor)."""
    for lv in STATE.levels:
        if lv.id == level_id:
            return lv
    raise RuntimeError(
        "vmap: a BatchedTensor escaped the vmap that created it (it was stored and used after the vmapped "
        "function returned); return it from the function instead."
    )


def register_rule(*keys):
    """Decorator: registers fn as the batching rule of each key."""

    def deco(fn):
        for k in keys:
            RULES[k] = fn
        return fn

    return deco


def _root():
    # the public namespace, read at run time: a submodule never imports the package root (docs/architecture.md)
    return sys.modules["minitorch"]


_NAMESPACES = {
    "": "minitorch",
    "F": "minitorch.nn.functional",
    "linalg": "minitorch.linalg",
    "special": "minitorch.special",
    "fft": "minitorch.fft",
}


def namespace_attr(key):
    """The public callable a function key names ('F.relu' -> minitorch.nn.functional.relu); None for a key outside
    the torch namespaces or a Tensor method."""
    if key.startswith("Tensor."):
        return None
    ns, _, name = key.rpartition(".")
    modname = _NAMESPACES.get(ns)
    if modname is None:
        return None
    mod = sys.modules.get(modname)
    if mod is None:
        import importlib

        mod = importlib.import_module(modname)
    return getattr(mod, name)


def _original(key):
    fn = _originals.get(key)
    if fn is None:
        fn = original_function(namespace_attr(key))
        _originals[key] = fn
    return fn


def key_of(func):
    """The rule key of a public torch function (a dispatch wrapper or an original)."""
    key = getattr(func, "_mt_key", None)  # a dispatch wrapper keeps its key once computed
    if key is not None:
        return key
    key = _key_of(func)
    if type(func).__name__ == "_DispatchingFunction":
        func._mt_key = key
    return key


def _key_of(func):
    name = resolve_name(func)
    if name is None:
        name = getattr(func, "__name__", repr(func))
        return name
    for prefix, short in (
        ("torch.nn.functional.", "F."),
        ("torch.linalg.", "linalg."),
        ("torch.special.", "special."),
        ("torch.fft.", "fft."),
        ("torch.", ""),
    ):
        if name.startswith(prefix):
            key = short + name[len(prefix) :]
            _originals.setdefault(key, original_function(func))
            return key
    return name


# Tensor operators as the `operator` functions that run them on plain values (reflected ones swap operands).
_OPERATORS = {
    "__add__": operator.add,
    "__sub__": operator.sub,
    "__mul__": operator.mul,
    "__truediv__": operator.truediv,
    "__floordiv__": operator.floordiv,
    "__mod__": operator.mod,
    "__pow__": operator.pow,
    "__matmul__": operator.matmul,
    "__and__": operator.and_,
    "__or__": operator.or_,
    "__xor__": operator.xor,
    "__lshift__": operator.lshift,
    "__rshift__": operator.rshift,
    "__eq__": operator.eq,
    "__ne__": operator.ne,
    "__lt__": operator.lt,
    "__le__": operator.le,
    "__gt__": operator.gt,
    "__ge__": operator.ge,
    "__iadd__": operator.iadd,
    "__isub__": operator.isub,
    "__imul__": operator.imul,
    "__itruediv__": operator.itruediv,
    "__ifloordiv__": operator.ifloordiv,
    "__imod__": operator.imod,
    "__ipow__": operator.ipow,
    "__iand__": operator.iand,
    "__ior__": operator.ior,
    "__ixor__": operator.ixor,
    "__neg__": operator.neg,
    "__pos__": operator.pos,
    "__abs__": operator.abs,
    "__invert__": operator.invert,
    "__getitem__": operator.getitem,
}
for _n in (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
):
    _f = _OPERATORS[f"__{_n}__"]
    _OPERATORS[f"__r{_n}__"] = lambda a, b, _f=_f: _f(b, a)


def call_plain(key, args, kwargs, lookup=_original):
    """Runs the op of `key` on arguments that hold no BatchedTensor; `lookup` turns a function key into its
    callable (the undispatched original here; forward AD passes the public one, so outer transforms see it)."""
    if key.startswith("Tensor."):
        name = key[7:]
        op = _OPERATORS.get(name)
        if op is not None:
            return op(*args)
        if name == "__setitem__":
            args[0][args[1]] = args[2]
            return None
        return getattr(args[0], name)(*args[1:], **kwargs)
    return lookup(key)(*args, **kwargs)


def _max_level(args, kwargs):
    lv = -1
    for a in args:
        t = type(a)
        if t is BatchedTensor:
            lv = max(lv, a._level)
        elif t is list or t is tuple:
            for b in a:
                if type(b) is BatchedTensor and b._level > lv:
                    lv = b._level
    if kwargs:
        for a in kwargs.values():
            t = type(a)
            if t is BatchedTensor:
                lv = max(lv, a._level)
            elif t is list or t is tuple:
                for b in a:
                    if type(b) is BatchedTensor and b._level > lv:
                        lv = b._level
    return lv


def dispatch(key, args, kwargs=None):
    """Runs op `key` on args that may hold BatchedTensors: by the rule of the innermost level among them, by
    the per-entry fallback when the op has none, or directly when none is batched."""
    kwargs = kwargs or {}
    level = _max_level(args, kwargs)
    if level < 0:
        try:
            return call_plain(key, args, kwargs)
        except RuntimeError as e:
            return dual_values(e, key, args, kwargs)
    if not args and "input" in kwargs:
        # the rules read the first operand positionally (F.linear(input=x, weight=w))
        kwargs = dict(kwargs)
        args = (kwargs.pop("input"),)
    if is_inplace(key) and args:
        self = args[0]
        # an in-place op writes one value per batch entry: self must hold them (a list is _foreach_'s)
        if not (type(self) is BatchedTensor and self._level == level) and type(self) not in (list, tuple):
            raise inplace_refusal(key, level, args, kwargs)
    rule = RULES.get(key)
    if rule is None and key.startswith("Tensor."):
        rule = RULES.get(key[7:])
    if rule is None:
        return fallback(key, level, args, kwargs)
    return rule(key, level, args, kwargs)


def dual_values(e, key, args, kwargs):
    """The op on values that are forward AD's dual tensors (vmap over a dual, `vmap(torch.sin)(d)`): the builtin a
    rule called refused them (DualBuiltinError, raised before the op ran), so the op runs through forward AD,
    which computes the primal and the tangent by the op's rule. Any other error is re-raised."""
    # forward AD sits above this module: loaded whenever a dual exists, so it is looked up, not imported
    fad = sys.modules.get("minitorch.func._forward_ad")
    if fad is None or not isinstance(e, fad.DualBuiltinError):
        raise e
    return fad.dispatch(key, args, kwargs)


def call(key, *args, **kwargs):
    """dispatch() with the arguments spelled out, for rules calling ops on values."""
    return dispatch(key, args, kwargs)


def _select_level(x, level, i):
    t = type(x)
    if t is BatchedTensor:
        return x._value.select(0, i) if x._level == level else x
    if t is list or t is tuple:
        return t(_select_level(y, level, i) for y in x)
    return x


_inplace = {}


def is_inplace(key):
    """Whether op `key` writes into its first operand (`add_`, `__iadd__`); the fallback needs it batched."""
    hit = _inplace.get(key)
    if hit is None:
        name = key.rpartition(".")[2]
        if name.startswith("__"):
            hit = name.startswith("__i") and name not in ("__invert__", "__index__", "__int__", "__iter__")
        else:
            hit = name.endswith("_") and not name.endswith("__")
        _inplace[key] = hit
    return hit


# PyTorch's refusal of an in-place op whose self is not batched at the level another argument is batched at
# comes in three wordings, by how functorch implements the op: the binary in-place rules fail their output
# shape check, the legacy rules (and a few named ones) say "in a vmap", the boxed fallback names the aten op and
# the level.
_SHAPE_REFUSED = frozenset((
    "add_", "atan2_", "arctan2_", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
    "bitwise_right_shift_", "copysign_", "gcd_", "lcm_", "__iadd__", "__iand__", "__ior__", "__ixor__",
    "__ilshift__", "__irshift__",
))  # fmt: skip
_ARITHMETIC_REFUSED = frozenset((
    "sub_", "mul_", "multiply_", "div_", "divide_", "true_divide_", "copy_", "clamp_min_", "clamp_max_",
    "logical_and_", "logical_or_", "logical_xor_", "__isub__", "__imul__", "__itruediv__",
))  # fmt: skip
_NAMED_REFUSED = frozenset(
    ("fill_", "index_add_", "index_fill_", "scatter_add_", "index_put_", "__setitem__")
)
_ATEN_NAMES = {"__ifloordiv__": "floor_divide_", "__imod__": "remainder_", "__ipow__": "pow_"}


def inplace_refusal(key, level, args, kwargs):
    """The RuntimeError of in-place op `key` on a self that is not batched at `level` (PyTorch's words)."""
    name = key.rpartition(".")[2]
    if name in _SHAPE_REFUSED:
        self = args[0]
        others = [a for a in (*args[1:], *kwargs.values()) if type(a) is BatchedTensor and a._level == level]
        shape = [level_of(level).size, *others[0].shape] if others else []
        return RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {shape}")
    if name == "masked_fill_":
        mask = args[1] if len(args) > 1 else kwargs.get("mask")
        # a batched mask goes through the legacy rule, a batched value through masked_fill_'s own
        name = "inplace arithmetic" if type(mask) is BatchedTensor and mask._level == level else name
    where = "in a vmap"
    if name in _ARITHMETIC_REFUSED:
        name = "inplace arithmetic"
    elif name in _NAMED_REFUSED:
        name = "index_put_" if name == "__setitem__" else name
    elif name != "inplace arithmetic" and name != "masked_fill_":
        name = "aten::" + _ATEN_NAMES.get(name, name)
        # PyTorch numbers the vmaps running from 1, outermost first (our level ids grow for the process)
        depth = 1 + next((i for i, lv in enumerate(STATE.levels) if lv.id == level), 0)
        where = f"at level {depth}"
    return RuntimeError(
        f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args "
        "that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being "
        f"vmapped over {where}. Please try to use out-of-place operators instead of {name}. If said operator is "
        "being called inside the PyTorch framework, please file a bug report instead."
    )


def fallback(key, level, args, kwargs):
    """The op without a batching rule: once per batch entry, results stacked along the batch dim."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(
            f"There is a performance drop because we have not yet implemented the batching rule for {public_name(key)}. "
            "Please file us an issue on GitHub so that we can prioritize its implementation.",
            UserWarning,
            stacklevel=3,
        )
    size = level_of(level).size
    inplace = is_inplace(key) or key == "Tensor.__setitem__"
    if inplace:
        self = args[0] if args else None
        if not (type(self) is BatchedTensor and self._level == level):
            raise inplace_refusal(key, level, args, kwargs)
    outs = []
    for i in range(size):
        a = tuple(_select_level(x, level, i) for x in args)
        k = {n: _select_level(v, level, i) for n, v in kwargs.items()}
        outs.append(dispatch(key, a, k))
    if inplace:
        return args[0]
    return stack_results(outs, level, key)


def stack_results(outs, level, key="op"):
    """Stacks per-entry results (tensors, or tuples/lists of them) into results batched at `level`."""
    first = outs[0] if outs else None
    if is_tensor_like(first):
        return BatchedTensor(call("stack", list(outs), 0), level)
    if isinstance(first, (tuple, list)):
        parts = [stack_results([o[j] for o in outs], level, key) for j in range(len(first))]
        t = type(first)
        if t is tuple or t is list:
            return t(parts)
        try:
            return t(parts)
        except TypeError:
            return t(*parts)
    if isinstance(first, dict):
        # a pytree of results (vjp_fn of a function of a dict of parameters, as the NTK tutorial's)
        return type(first)((k, stack_results([o[k] for o in outs], level, key)) for k in first)
    if first is None or all(o == first for o in outs[1:]):
        return first
    raise RuntimeError(
        f"vmap: {public_name(key)} returned a Python value that differs between the batch entries; vmap can only "
        "batch tensor results (this is data-dependent control flow, which vmap does not support)."
    )


def public_name(key):
    """A rule key as PyTorch spells it in messages: "F.conv2d" -> "torch.nn.functional.conv2d"."""
    ns, _, name = key.rpartition(".")
    if ns == "Tensor":
        return f"Tensor.{name}"
    return (
        "torch."
        + {"": "", "F": "nn.functional.", "linalg": "linalg.", "special": "special.", "fft": "fft."}[ns]
        + name
    )


def is_tensor_like(x):
    """Whether x is a plain tensor or a BatchedTensor (a result to stack along the batch dim)."""
    return type(x) is BatchedTensor or _C._is_tensor(x)


def wrap(res, level):
    """Results of a call on unwrapped values, as values batched at `level` (tuples and lists kept)."""
    if _C._is_tensor(res) or type(res) is BatchedTensor:
        return BatchedTensor(res, level)
    t = type(res)
    if t is tuple or t is list:
        return t(wrap(r, level) for r in res)
    if isinstance(res, tuple):  # a return_types structseq
        return t(tuple(wrap(r, level) for r in res))
    return res


def _method(name):
    def m(self, *args, **kwargs):
        return dispatch("Tensor." + name, (self,) + args, kwargs)

    m.__name__ = name
    return m


# PyTorch's words for reading one number out of a batch (item(), a batched number argument of a factory)
ITEM_REFUSAL = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
    "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
    "inside PyTorch internals, please file a bug report."
)


class BatchedTensor:
    """A tensor inside vmap: `_value` holds the batch dim at position 0, `_level` the vmap it belongs to."""

    __slots__ = ("__weakref__", "_level", "_value")

    def __init__(self, value, level):
        self._value = value
        self._level = level

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return dispatch(key_of(func), args, kwargs)

    # metadata: the logical tensor (the value without its batch dim)
    @property
    def shape(self):
        """The logical shape: the value's shape without the leading batch dim."""
        return self._value.shape[1:]

    def size(self, dim=None):
        """The logical shape, or one logical dim's size (a negative dim counts back, batch dim unseen)."""
        shape = self._value.shape[1:]
        if dim is None:
            return shape
        return shape[_wrap_dim(dim, len(shape))]

    def dim(self):
        """The number of logical dims, one fewer than the value's (the batch dim is hidden)."""
        return self._value.dim() - 1

    ndimension = dim

    @property
    def ndim(self):
        """The number of logical dims (as dim())."""
        return self._value.dim() - 1

    def numel(self):
        """The number of elements in one batch entry: the product of the logical shape."""
        n = 1
        for s in self._value.shape[1:]:
            n *= s
        return n

    nelement = numel

    def stride(self, dim=None):
        """The logical dims' strides in the value's storage (the batch dim's left out), or one of them."""
        strides = self._value.stride()[1:]
        return strides if dim is None else strides[_wrap_dim(dim, len(strides))]

    def is_contiguous(self, memory_format=None):
        """Whether the value, batch dim included, is contiguous (batch dim first: each entry is too)."""
        return self._value.is_contiguous()

    @property
    def dtype(self):
        """The value's dtype: every batch entry shares it."""
        return self._value.dtype

    @property
    def device(self):
        """The value's device: every batch entry lives there."""
        return self._value.device

    @property
    def requires_grad(self):
        """Whether the underlying value requires grad (the whole batch does or none of it)."""
        return self._value.requires_grad

    @property
    def grad_fn(self):
        """The autograd node of the underlying value, the batched computation as one graph node."""
        return self._value.grad_fn

    @property
    def is_leaf(self):
        """Whether the underlying value is an autograd leaf."""
        return self._value.is_leaf

    @property
    def grad(self):
        """None: gradients accumulate on the plain tensors outside vmap, never on a per-entry view of one."""
        return None

    @property
    def data(self):
        """The same batched tensor detached from autograd: the value's .data, batched at the same level."""
        return BatchedTensor(self._value.data, self._level)

    @property
    def T(self):
        """The logical dims reversed (the batch dim stays first), as Tensor.T on each entry."""
        return dispatch("Tensor.permute", (self, tuple(range(self.dim() - 1, -1, -1))))

    @property
    def mT(self):
        """The last two logical dims swapped, each entry's matrix transpose."""
        return dispatch("Tensor.transpose", (self, -2, -1))

    @property
    def mH(self):
        """Each entry's conjugate matrix transpose (mT for real dtypes)."""
        t = self.mT
        return dispatch("Tensor.conj", (t,)) if self.dtype.is_complex else t

    @property
    def H(self):
        """The conjugate of T (T itself for real dtypes)."""
        t = self.T
        return dispatch("Tensor.conj", (t,)) if self.dtype.is_complex else t

    def is_floating_point(self):
        """Whether the dtype is a floating-point one (the value's, shared by every entry)."""
        return self._value.is_floating_point()

    def is_complex(self):
        """Whether the dtype is a complex one (the value's, shared by every entry)."""
        return self._value.is_complex()

    def element_size(self):
        """The size in bytes of one element of the shared dtype."""
        return self._value.element_size()

    def get_device(self):
        """The value's device index (-1 on the CPU)."""
        return self._value.get_device()

    @property
    def is_cuda(self):
        """Whether the value lives on a CUDA device."""
        return self._value.is_cuda

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._value.shape[1]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(dispatch("Tensor.unbind", (self, 0)))

    def __bool__(self):
        raise RuntimeError(
            "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We don't "
            "support that yet, please file an issue at https://github.com/pytorch/pytorch/issues ."
        )

    def item(self):
        """Always a RuntimeError, PyTorch's: one Python number cannot stand for a whole batch of them."""
        raise RuntimeError(ITEM_REFUSAL)

    def _no_storage(self, *args, **kwargs):
        # PyTorch's words: its BatchedTensorImpl holds no storage of its own to read
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    # no __float__/__int__: the C++ operators would take a BatchedTensor for a Python scalar through them
    # (and fail) instead of answering NotImplemented, which hands `tensor / batched` to __rtruediv__.
    # __index__ (int(t), range(t), a list indexed by t) reads the value by item(), as PyTorch's does
    def __index__(self):
        return self.item()  # (raises: one Python int cannot stand for a batch)

    tolist = numpy = data_ptr = _no_storage

    def __repr__(self):
        value = "\n".join("    " + line if line else line for line in repr(self._value).split("\n"))
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{value}\n)"

    __hash__ = object.__hash__

    # Python's builtins reach Tensor's own methods in PyTorch (a BatchedTensor is a torch.Tensor there): their
    # errors come at the point of use, in its words
    def __format__(self, spec):
        if self.dim() == 0:
            return self.item()  # (raises: f"{loss:.3f}" reads one number out of a batch)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __contains__(self, element):
        if isinstance(element, (_C.Tensor, BatchedTensor, bool, int, float, complex)):
            return self.item()  # (raises: PyTorch reads (element == self).any().item())
        raise RuntimeError(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
        )

    def __round__(self, ndigits=None):
        raise TypeError("type Tensor doesn't define __round__ method")

    def __setitem__(self, index, value):
        dispatch("Tensor.__setitem__", (self, index, value))

    def requires_grad_(self, requires_grad=True):
        """Always PyTorch's RuntimeError: a BatchedTensor lives inside vmap, where requires_grad_() is refused."""
        raise RuntimeError(FUNCTORCH_REQUIRES_GRAD)

    def __getattr__(self, name):
        if name.startswith(("__", "_pybind11")) or name in BatchedTensor.__slots__:
            raise AttributeError(name)
        attr = getattr(_C.Tensor, name, None)
        if attr is None:
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        if not callable(attr):
            # a per-tensor property that does not depend on the batch (is_cpu, layout, names, ...)
            return getattr(self._value, name)
        # kept on the class: the next lookup of this method finds it without coming here
        method = _method(name)
        setattr(BatchedTensor, name, method)
        return method.__get__(self)


def _wrap_dim(dim, rank):
    r = max(rank, 1)
    if not -r <= dim < r:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-r}, {r - 1}], but got {dim})"
        )
    return dim % r


for _name in _OPERATORS:
    setattr(BatchedTensor, _name, _method(_name))
del _name
