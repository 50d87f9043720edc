"""Tensor methods that PyTorch itself writes in Python: printing, iteration, NumPy protocol, pickling."""

import copy
import copyreg
import functools
import operator
import warnings

import numpy as np

from minitorch import (
    _C,
    _argcheck,
    _composite_math,
    _composite_shape,
    _factories,
    _method_spellings,
    _predicates,
    _random,
    _storage,
    autograd,
)
from minitorch import functional as _functional
from minitorch._creation import tensor as _tensor
from minitorch._dtype_names import dtype_name
from minitorch._tensor_str import tensor_repr
from minitorch.autograd import RemovableHandle
from minitorch.fft import _stft
from minitorch.utils import dlpack as _dl


def _rebuild_tensor(array, dtype_name, device, requires_grad):

    t = _C._from_numpy_copy(array)
    t = t.to(getattr(_C, dtype_name), device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_subclass(cls, array, dtype_name, device, requires_grad, state, slots=None):
    out = _make_subclass(cls, _rebuild_tensor(array, dtype_name, device, False), requires_grad)
    out.__dict__.update(state)
    for name, value in (slots or {}).items():
        setattr(out, name, value)
    return out


def _slot_values(obj):
    """the subclass's __slots__ that are set (PyTorch's _get_obj_state keeps them beside __dict__)"""
    return {n: getattr(obj, n) for n in copyreg._slotnames(type(obj)) if hasattr(obj, n)}


def _reduce(self):
    host = self.detach().cpu()
    name = dtype_name(self.dtype)
    arr = (host.float() if self.dtype == _C.bfloat16 else host).numpy().copy()
    args = (arr, name, str(self.device), self.requires_grad)
    t = type(self)
    if t is not _C.Tensor and getattr(t, "__torch_function__", None) is not _C._disabled_torch_function_impl:
        # a subclass unpickles as itself, with its attributes, as PyTorch's (_rebuild_from_type_v2)
        return (_rebuild_subclass, (t, *args, dict(getattr(self, "__dict__", {})), _slot_values(self)))
    return (_rebuild_tensor, args)


_NOT_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If "
    "you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see "
    "https://github.com/pytorch/pytorch/pull/103001"
)
_NOT_SAME_TYPE = (
    "The default implementation of __deepcopy__() for non-wrapper subclasses only works for subclass types that "
    "implement new_empty() and for which that function returns another instance of the same subclass. You "
    "should either properly implement new_empty() for your subclass or override __deepcopy__() if it is "
    "intended behavior for new_empty() to return an instance of a different type."
)

_NOT_SAME_TYPE_WRAPPER = (
    "The default implementation of __deepcopy__() for wrapper subclasses only works for subclass types that "
    "implement clone() and for which cloning returns another instance of the same subclass. You should either "
    "properly implement clone() for your subclass or override __deepcopy__() if it is intended behavior for "
    "clone() to return an instance of a different type."
)


def _deepcopy(self, memo):
    """Tensor.__deepcopy__ for a user's subclass, as PyTorch's (reached through its __torch_function__, so the
    default one, whose new_empty answers a plain Tensor, refuses; a subclass whose new_empty answers its own
    type gets a copy with its attributes and slots deep-copied). Plain tensors and ours copy by __reduce_ex__,
    as before."""
    t = type(self)
    if t is _C.Tensor or (t.__module__ or "").startswith("minitorch"):
        return copy._reconstruct(self, memo, *self.__reduce_ex__(4))
    if not self.is_leaf:
        raise RuntimeError(_NOT_LEAF)
    if id(self) in memo:
        return memo[id(self)]
    with autograd.no_grad():
        if self.data_ptr() == 0:  # no data (an empty tensor): PyTorch's path for wrapper subclasses
            new = self.clone()
            if type(new) is not t:
                raise RuntimeError(_NOT_SAME_TYPE_WRAPPER)
        else:
            new = self.new_empty([])
            if type(new) is not t:
                raise RuntimeError(_NOT_SAME_TYPE)
            new.set_(self.detach().clone())
        if self.requires_grad:
            new.requires_grad_()
        if self.grad is not None:
            new.grad = copy.deepcopy(self.grad, memo)
        for name, value in _slot_values(self).items():
            setattr(new, name, copy.deepcopy(value, memo))
        new.__dict__ = copy.deepcopy(self.__dict__, memo)
    memo[id(self)] = new
    return new


_deepcopy.__name__ = _deepcopy.__qualname__ = "__deepcopy__"  # what a handler is handed, as PyTorch's


def _array(self, dtype=None, copy=None):
    if copy is False and not self.device.type == "cpu":
        raise ValueError("can't return a NumPy view of a CUDA tensor without copying; pass copy=True")
    arr = self.numpy()
    if dtype is not None and arr.dtype != np.dtype(dtype):
        if copy is False:
            raise ValueError(f"converting {arr.dtype} to {np.dtype(dtype)} needs a copy")
        return arr.astype(dtype)
    return arr.copy() if copy else arr


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


def _format(self, spec):
    # a subclass's 0-d tensor formats as an object, as PyTorch's (which tests for exactly Tensor; forward AD's
    # duals are plain tensors there)
    if self.dim() == 0 and (type(self) is _C.Tensor or getattr(type(self), "_mt_transform_only", False)):
        return self.item().__format__(spec)
    return object.__format__(self, spec)


@_argcheck.parses("Tensor other", name="type_as", method=True, upfront=False)  # (arity and keywords)
def _type_as(self, other):
    """self converted to other's dtype (PyTorch's TypeError for a non-tensor, not an AttributeError)."""
    if not isinstance(other, _C.Tensor):
        raise TypeError(
            f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}"
        )
    return self.to(other.dtype)


def _new_tensor(self, data, *args, dtype=None, device=None, requires_grad=False):
    """A copy of `data` with this tensor's dtype and device unless given (Tensor.new_tensor)."""
    if args:  # PyTorch's options are keyword-only (counted without self)
        raise TypeError(f"new_tensor() takes 1 positional argument but {1 + len(args)} were given")
    return _tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def _register_hook(self, hook):
    return RemovableHandle(self, self._register_hook(hook))


def _register_post_accumulate_grad_hook(self, hook):
    """hook(tensor) runs after backward has accumulated into this leaf's .grad."""
    return RemovableHandle(self, self._register_post_accumulate_grad_hook(hook))


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _converter(name, dtype):
    def convert(self, memory_format=_C.preserve_format):
        return self.to(dtype, memory_format=memory_format)

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"self.to(torch.{dtype_name(dtype)}): self itself when it has that dtype already."
    return convert


def new_empty_strided(
    self, size, stride=None, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """empty_strided with this tensor's dtype and device unless given (Tensor.new_empty_strided)."""
    if stride is None:
        raise TypeError('new_empty_strided() missing 1 required positional arguments: "stride"')
    return _factories._empty_strided(
        "new_empty_strided",
        size,
        stride,
        self.dtype if dtype is None else dtype,
        layout,
        self.device if device is None else device,
        requires_grad,
        pin_memory,
    )


def _resize_to(self, sizes):
    # autograd's Resize, as PyTorch's Python function: the product of the sizes as given (resize([2, 3]) is a
    # list times 1, so it fails as there), then a view of the same elements (resize_ would reallocate)
    n = functools.reduce(operator.mul, sizes, 1)
    if self.numel() != n:
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in total), but the given tensor has a "
            f"size of {'x'.join(map(str, self.size()))} ({self.numel()} elements). autograd's resize can only "
            "change the shape of a given tensor, while preserving the number of elements. "
        )
    return self.contiguous().view(*sizes)


def _resize(self, *sizes):
    """The deprecated out-of-place resize: a view of the same elements in another shape (separate sizes)."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return _resize_to(self, sizes)


def _resize_as(self, tensor):
    """The deprecated out-of-place resize_as: resize to tensor's shape."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return _resize_to(self, tensor.size())


def _as_subclass(self, cls):
    """A cls instance over self's data, attached to self's autograd graph (a view of it)."""
    _check_subclass(cls)
    out = _BUILT[0](cls)
    # the base initializer's view of self, which keeps its history (a subclass's own __init__ is not run, as
    # PyTorch's), without the legacy constructor's Python: Tensor.__torch_function__ makes one per result
    _BUILT[1](out, _view_of=self)
    return out


def _convert(ret, cls):
    """ret with each tensor in it (itself, or the items of a tuple or list) made a cls instance, as PyTorch's
    torch._tensor._convert: what Tensor.__torch_function__ hands back to a subclass."""
    if cls is _C.Tensor:
        return ret
    if isinstance(ret, _C.Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        # a named tuple (torch.return_types.max) takes its fields one by one
        ret = ret._make(items) if hasattr(ret, "_make") else type(ret)(items)
    return ret


def _default_nowrap():
    d = vars(_C.Tensor)
    return {d[name].__get__ for name in ("_base", "grad", "_grad") if name in d}


_NOWRAP = []  # [the set of getters whose results stay as they are], made on first use


def _torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: func run with the subclasses' handlers off, its tensors handed back as cls
    (NotImplemented when another type in `types` is not a base of cls: that type's handler answers)."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with _C.DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if not _NOWRAP:
            _NOWRAP.append(_default_nowrap())
        try:
            nowrap = func in _NOWRAP[0]
        except TypeError:  # an unhashable callable is none of them
            nowrap = False
        return ret if nowrap else _convert(ret, cls)


def _init_subclass(cls, **kwargs):
    """Notes a subclass that takes part in __torch_function__: the bindings look for its instances from then on
    (a program that defines none pays nothing for the look)."""
    super(_C.Tensor, cls).__init_subclass__(**kwargs)
    impl = getattr(cls, "__torch_function__", None)
    if (
        impl is _C._disabled_torch_function_impl
        or getattr(impl, "__func__", impl) is _C._disabled_torch_function_impl
    ):
        return
    if not getattr(cls, "_mt_transform_only", False):
        _C._note_tensor_subclass()


def _check_subclass(cls):
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    if not issubclass(cls, _C.Tensor):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. Make sure "
            "your class inherits from Tensor."
        )


def _make_subclass(cls, data, require_grad=False, **kwargs):
    """A cls instance sharing data's storage, detached, with requires_grad set (PyTorch's
    Tensor._make_subclass, which subclasses' __new__ call)."""
    _check_subclass(cls)
    if not isinstance(data, _C.Tensor):
        raise TypeError(
            f"_make_subclass(): argument 'data' (position 2) must be Tensor, not {type(data).__name__}"
        )
    if require_grad and not (data.is_floating_point() or data.is_complex()):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    out = _BUILT[0](cls)
    _BUILT[1](out, _alias_of=data.detach(), requires_grad=bool(require_grad))
    return out


# (the bound Tensor's own __new__ and __init__: an empty instance, and the initializer that gives it its
# TensorImpl), kept by _install_tensor_methods before it puts _new and _init in their place
_BUILT = []


def _new(cls, *args, **kwargs):
    """Tensor.__new__: a cls instance built from the legacy constructor's arguments, as PyTorch's (so a
    subclass's __new__ may call super().__new__(cls, data), and one without __new__ is built before its
    __init__ runs). Left empty for our classes that build in their own __init__ (nn.Parameter calls
    Tensor.__init__(self, _alias_of=...) there), whose arguments are not the constructor's."""
    if not isinstance(cls, type) or not issubclass(cls, _C.Tensor):
        name = cls.__name__ if isinstance(cls, type) else type(cls).__name__
        raise TypeError(f"minitorch.Tensor.__new__({name}): {name} is not a subtype of minitorch.Tensor")
    out = _BUILT[0](cls)
    if getattr(cls, "_mt_builds_in_init", False) and cls.__new__ is _new:
        return out
    _BUILT[1](out, *args, **kwargs)
    return out


def _init(self, *args, **kwargs):
    """Tensor.__init__: builds the instance from the constructor's arguments unless its __new__ did (PyTorch's
    Tensor.__init__ is object's, which a subclass's __init__ may call or not)."""
    if not _C._tensor_is_built(self):
        _BUILT[1](self, *args, **kwargs)


def _install_tensor_methods(cls):
    cls.backward = _backward
    cls.register_hook = _register_hook
    cls.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook
    cls.__repr__ = tensor_repr
    cls.__str__ = tensor_repr
    cls.__format__ = _format
    cls.__iter__ = _iter
    cls.__array__ = _array
    cls.__array_priority__ = 1000  # ndarray (op) tensor defers to Tensor's reflected operators
    cls.__reduce__ = _reduce
    cls.__deepcopy__ = _deepcopy
    cls.__module__ = "minitorch"
    for name, dt in (
        ("float", _C.float32),
        ("double", _C.float64),
        ("half", _C.float16),
        ("bfloat16", _C.bfloat16),
        ("long", _C.int64),
        ("int", _C.int32),
        ("short", _C.int16),
        ("char", _C.int8),
        ("byte", _C.uint8),
        ("bool", _C.bool),
    ):
        setattr(cls, name, _converter(name, dt))
    cls.untyped_storage = _storage.untyped_storage
    cls.storage = _storage.storage
    cls.new_empty_strided = new_empty_strided
    cls.type_as = _type_as
    cls.new_tensor = _new_tensor
    for name, fn in _functional.TENSOR_METHOD_FORMS.items():
        setattr(cls, name, fn)
    cls.as_subclass = _as_subclass
    cls.__torch_function__ = classmethod(_torch_function)
    cls.__init_subclass__ = classmethod(_init_subclass)
    cls._make_subclass = staticmethod(_make_subclass)
    if not _BUILT:
        _BUILT.extend((cls.__new__, cls.__init__))
        cls.__new__ = staticmethod(_new)
        cls.__init__ = _init
    cls.resize = _resize
    cls.resize_as = _resize_as
    cls.const_data_ptr = cls.data_ptr  # the read-only spelling of data_ptr
    from minitorch.linalg import _decomp  # loaded last by minitorch's __init__, so imported here

    owner = {}
    for mod in (_composite_shape, _composite_math, _predicates, _random, _stft, _decomp, _method_spellings):
        for name, fn in mod.TENSOR_METHODS.items():
            if name in cls.__dict__:  # one definition per method: a composite must not shadow another one
                where = owner.get(name, "the extension")
                raise RuntimeError(f"Tensor.{name} is defined twice ({mod.__name__} and {where})")
            setattr(cls, name, _argcheck.translating(fn, name, method=True))
            owner[name] = mod.__name__
    cls.__dlpack__ = _dl.dlpack
    cls.__dlpack_device__ = _dl.dlpack_device
    cls.__cuda_array_interface__ = property(_dl.cuda_array_interface)
    cls.H = property(_composite_shape.tensor_H)
    cls.mH = property(_composite_shape.tensor_mH)
