"""nn.utils.parametrize: express a parameter or buffer as a function of other tensors (register_parametrization,
cached, remove_parametrizations), with PyTorch's module layout, checks and error messages."""

import collections.abc
import copy
import copyreg
from contextlib import contextmanager

from minitorch import _C
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.modules.container import ModuleDict, ModuleList
from minitorch.nn.parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]

# Depth of nested cached() blocks and the values computed inside them, keyed by (id(module), tensor name).
_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Within the block each parametrized tensor is computed once, on first access, and reused (an RNN reading
    its parametrized recurrent weight every step pays for the parametrization once)."""
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest, src):
    """Gives `dest` the value (and shape) of `src` while keeping the tensor object, so optimizers that hold it
    keep training the right thing: dest shares src's memory, as PyTorch's."""
    dest.set_(src)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in registration order, plus the unconstrained tensor(s) they start
    from: ``original`` when the first parametrization's right_inverse gives one tensor (or there is none),
    ``original0``, ``original1``, ... when it gives a sequence. Built by register_parametrization only."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype

        # the originals are right_inverse of the current value, through the chain from the last parametrization
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, _C.Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError(  # noqa: TRY004  (PyTorch's exception type)
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, _C.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}"
                )
            # the same tensor object stays the original, so an optimizer built before still updates it
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, _C.Tensor):
                    raise ValueError(  # noqa: TRY004  (PyTorch's exception type)
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                        f"Got element {i} of the sequence with type {type(originali).__name__}."
                    )
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)

        if not self.unsafe:
            # forward(right_inverse(X)) must look like X: same dtype and shape
            z = self()
            if not isinstance(z, _C.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag "
                    "is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\n"
                    f"parametrized dtype: {z.dtype}"
                )
            if z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag "
                    "is enabled.\n"
                    f"unparametrized shape: {original_shape}\n"
                    f"parametrized shape: {z.shape}"
                )

    def right_inverse(self, value):
        """Stores right_inverse(value), through every parametrization from the last, in the original(s): what
        assigning ``module.weight = value`` does."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, _C.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` has dtype "
                        f"{self.original.dtype}"
                    )
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(
                        f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}."
                    )
                if len(value) != self.ntensors:
                    raise ValueError(
                        f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. Got a "
                        f"sequence of length {len(value)}."
                    )
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, _C.Tensor):
                        raise ValueError(  # noqa: TRY004  (PyTorch's exception type)
                            "'right_inverse' must return a sequence of tensors or reference-type opaques. Got "
                            f"element {i} of type {type(tensor).__name__}."
                        )
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(
                            f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while `original{i}` "
                            f"has dtype {original_i.dtype}"
                        )
                    _maybe_set(original_i, tensor)

    def forward(self):
        # the first parametrization takes the original(s); each later one takes the previous result
        mods = self._modules
        if self.is_tensor:
            x = mods["0"](self.original)
        else:
            x = mods["0"](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        i = 1
        while str(i) in mods:
            x = mods[str(i)](x)
            i += 1
        return x


def _default_deepcopy(self, memo):
    # what copy.deepcopy does for a plain object; needed because __getstate__ below refuses pickling
    found = memo.get(id(self))
    if found is not None:
        return found
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _getstate(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _inject_new_class(module):
    """Gives the module its own subclass, ``Parametrized<Class>``, so that properties added for parametrized
    tensors touch this module only."""
    cls = module.__class__
    namespace = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    """Makes ``module.<tensor_name>`` a property: reading runs the parametrizations (or hits the cache inside
    cached()), assigning calls their right_inverse."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_chained(module, tensor_name, parametrization):
    # a parametrization added to an already parametrized tensor must keep its dtype and shape (both ways)
    y = getattr(module, tensor_name)
    x = parametrization(y)
    if not isinstance(x, _C.Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")  # noqa: TRY004  (PyTorch's exception type)
    if x.dtype != y.dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` flag is "
            "enabled.\n"
            f"module.{tensor_name}.dtype: {y.dtype}\n"
            f"parametrization(module.{tensor_name}).dtype: {x.dtype}"
        )
    if x.shape != y.shape:
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag is "
            "enabled.\n"
            f"module.{tensor_name}.shape: {y.shape}\n"
            f"parametrization(module.{tensor_name}).shape: {x.shape}"
        )
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        z = parametrization.right_inverse(x)
    except NotImplementedError:
        return
    if not isinstance(z, _C.Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(z).__name__}")  # noqa: TRY004  (PyTorch's exception type)
    if z.dtype != y.dtype:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype as "
            f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {y.dtype}\n"
            f"returned dtype: {z.dtype}"
        )
    if z.shape != y.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same shape as "
            f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {y.shape}\n"
            f"returned shape: {z.shape}"
        )


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes ``module.<tensor_name>`` read as ``parametrization(original)``; the original moves to
    ``module.parametrizations.<tensor_name>.original`` (``original0``, ``original1``, ... when the
    parametrization's right_inverse returns several tensors). Registering again on the same name chains the
    parametrizations in order. ``unsafe=True`` skips the dtype/shape consistency checks."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_chained(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
            f"'{tensor_name}'"
        )
    return module


def is_parametrized(module, tensor_name=None):
    """Whether the module has a parametrization on ``tensor_name`` (on any tensor when it is None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undoes register_parametrization on ``tensor_name``: the tensor becomes a plain parameter/buffer again,
    holding its current parametrized value (``leave_parametrized=True``) or the original (False, possible only
    when there is a single original). The original tensor object is kept, so optimizers keep working."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms "
                "of a sequence of tensors."
            )
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class as it was before any parametrization was registered."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers ``from_module``'s parametrizations (of ``tensor_name``, or all) on ``to_module`` too, sharing
    the same original tensors; creates the parameter on ``to_module`` when it has none by that name."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for param_func in from_module.parametrizations[name]:
            register_parametrization(to_module, name, param_func)
        src, dst = from_module.parametrizations[name], to_module.parametrizations[name]
        if hasattr(src, "original"):
            dst.original = src.original
        else:
            i = 0
            while hasattr(src, f"original{i}"):
                setattr(dst, f"original{i}", getattr(src, f"original{i}"))
                i += 1
    return to_module
