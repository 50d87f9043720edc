"""nn.Parameter (a Tensor subclass that Modules register as a parameter) and nn.Buffer."""

from minitorch import _C


class Parameter(_C.Tensor):
    """A leaf tensor that a Module registers as a parameter when assigned as an attribute.

    It shares storage with ``data`` and requires grad by default, as PyTorch's."""

    # ops on a Parameter answer plain tensors, as PyTorch's (which opts out the same way)
    __torch_function__ = _C._disabled_torch_function_impl
    # Tensor.__new__ leaves the instance empty for __init__ to build (PyTorch's builds in Parameter.__new__)
    _mt_builds_in_init = True

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Parameter(): expected a Tensor as data, got {type(data).__name__}")
        super().__init__(_alias_of=data, requires_grad=requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = type(self)(self.detach().clone(), self.requires_grad)
        if self.grad is not None:
            out.grad = self.grad.clone()
        memo[id(self)] = out
        return out


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Buffer(_C.Tensor):
    """A tensor a Module registers as a buffer when assigned as an attribute (``persistent`` picks whether it
    enters the state dict)."""

    __torch_function__ = _C._disabled_torch_function_impl  # ops answer plain tensors, as PyTorch's
    _mt_builds_in_init = True  # (as Parameter's)

    def __init__(self, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        super().__init__(_alias_of=data, requires_grad=data.requires_grad)
        self.persistent = persistent


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: a placeholder of unknown shape (an empty
    tensor of the eventual device and dtype) that materialize() turns into a real tensor of its class's
    cls_to_become."""

    cls_to_become = None
    __torch_function__ = _C._disabled_torch_function_impl
    _mt_builds_in_init = True  # (as Parameter's)

    def materialize(self, shape, device=None, dtype=None):
        """Gives the placeholder real storage of `shape` (uninitialized values) and turns it into
        cls_to_become, in place, so every holder of the object sees the materialized tensor."""
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.data = _C.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        """Unknown until materialized: raises, as PyTorch's does."""
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    def size(self, dim=None):
        """Unknown until materialized: raises like shape."""
        return self.shape

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (self.__class__, (None, self.requires_grad))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (lazy modules): materialize() makes it a Parameter."""

    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(_C.empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = type(self)(self.requires_grad, self.device, self.dtype)
        memo[id(self)] = out
        return out


class UninitializedBuffer(UninitializedTensorMixin, _C.Tensor):
    """A buffer whose shape is not known yet (lazy modules): materialize() makes it a Buffer (a plain
    _C.Tensor has another object layout, so the in-place class change cannot target it)."""

    cls_to_become = Buffer

    def __init__(self, requires_grad=False, device=None, dtype=None):
        super().__init__(_alias_of=_C.empty(0, device=device, dtype=dtype), requires_grad=requires_grad)
        self.persistent = True
