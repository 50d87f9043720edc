"""torch.is_complex, is_distributed, is_nonzero, is_signed, is_same_size, is_storage and typename: questions about a
tensor (all but is_complex, is_storage and typename are Tensor methods too) or about any object's type."""

import builtins

from minitorch import _C, _argcheck
from minitorch._storage import TypedStorage, UntypedStorage

__all__ = [
    "is_complex",
    "is_distributed",
    "is_nonzero",
    "is_same_size",
    "is_signed",
    "is_storage",
    "typename",
]


def typename(obj):
    """The type name PyTorch prints: 'torch.FloatTensor' (or 'torch.cuda.FloatTensor') for a tensor, the
    qualified class name otherwise."""
    if isinstance(obj, _C.Tensor):
        return obj.type()
    module = ""
    cls = getattr(obj, "__class__", type(obj))
    if getattr(cls, "__module__", "builtins") not in ("builtins", "__builtin__", None):
        module = cls.__module__ + "."
    # minitorch's classes answer with PyTorch's module paths, so code that compares the strings works
    if module.startswith("minitorch."):
        module = "torch." + module[len("minitorch.") :]
    return module + getattr(cls, "__qualname__", cls.__name__)


@_argcheck.python_in_pytorch
def is_storage(obj, /):
    """True when obj is a storage object (tensor.untyped_storage(), tensor.storage()); PyTorch compares the exact
    type, so a subclass is not one."""
    return type(obj) in _STORAGE_TYPES


_STORAGE_TYPES = (UntypedStorage, TypedStorage)


# is_complex, is_signed and is_same_size answer in a few hundred nanoseconds: their checks inline, and no
# `translating` wrapper (they word their TypeErrors themselves)


@_argcheck.checks_own_arguments
def is_complex(input):
    """True for a complex64/complex128 tensor."""
    if isinstance(input, _C.Tensor):
        return input.is_complex()
    _argcheck.check_tensor("is_complex", "input", 1, input)


def is_nonzero(input):
    """The truth value of a one-element tensor; an error for an empty or a larger one."""
    _argcheck.check_tensor("is_nonzero", "input", 1, input)
    return builtins.bool(input)


@_argcheck.checks_own_arguments
def is_signed(input):
    """True when the tensor's dtype can hold negative values."""
    if isinstance(input, _C.Tensor):
        return input.dtype.is_signed
    _argcheck.check_tensor("is_signed", "input", 1, input)


@_argcheck.checks_own_arguments
def is_same_size(input, other):
    """True when the two tensors have the same shape."""
    if isinstance(input, _C.Tensor) and isinstance(other, _C.Tensor):
        return input.shape == other.shape
    _argcheck.check_tensor("is_same_size", "input", 1, input)
    _argcheck.check_tensor("is_same_size", "other", 2, other)


def is_distributed(input):
    """False: no tensor here is spread over processes (PyTorch's answer for every dense tensor too)."""
    if not isinstance(input, _C.Tensor):  # (inline: the check's call was a fifth of this call's time)
        _argcheck.check_tensor("is_distributed", "input", 1, input)
    return False


@_argcheck.parses("Tensor other", name="is_same_size", method=True, upfront=False)  # (arity and keywords)
def _is_same_size_method(self, other):
    # the method counts its arguments after self: `other` is position 1 there (2 in torch.is_same_size)
    if isinstance(other, _C.Tensor):
        return self.shape == other.shape
    _argcheck.check_tensor("is_same_size", "other", 1, other)


# Tensor methods installed by minitorch/_tensor.py (name -> function taking the tensor first)
TENSOR_METHODS = {
    "is_distributed": is_distributed,
    "is_nonzero": is_nonzero,
    "is_signed": is_signed,
    "is_same_size": _is_same_size_method,
}
