"""autograd.Variable: the pre-0.4 wrapper, now a function that returns a tensor, kept for old scripts."""

import warnings

from minitorch import _C
from minitorch.autograd.engine import _ImperativeEngine

__all__ = ["Variable", "VariableMeta"]


class VariableMeta(type):
    """Makes isinstance(t, Variable) true for every tensor, as PyTorch's metaclass does."""

    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=VariableMeta):
    """Variable(data, requires_grad=False): `data` detached from its graph, as a leaf that requires grad when
    asked (sharing data's storage). Variable() is an empty float tensor."""

    _execution_engine = _ImperativeEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=None, _grad_fn=None, name=None):
        if volatile is not None:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            data = _C.empty(0, dtype=_C.get_default_dtype(), device="cpu")
        elif not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if _grad_fn is not None:
            raise TypeError(
                "_grad_fn has to be a Function object or None, but got " + type(_grad_fn).__name__
            )
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
