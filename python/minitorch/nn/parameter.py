"""nn.Parameter (a Tensor subclass that Modules register as a parameter) and nn.Buffer."""

from minitorch import _C


class Parameter(_C.Tensor):
    """A leaf tensor that a Module registers as a parameter when assigned as an attribute.

    It shares storage with ``data`` and requires grad by default, as PyTorch's."""

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

    def __init__(self, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        super().__init__(_alias_of=data, requires_grad=data.requires_grad)
        self.persistent = persistent
