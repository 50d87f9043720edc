"""The Optimizer base class: param groups, per-parameter state, zero_grad and state_dict, as PyTorch's."""

import functools
import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain

from minitorch import _C, _creation
from minitorch.autograd import grad_mode
from minitorch.nn.modules.module import RemovableHandle, _HookDict
from minitorch.profiler import _recorder

__all__ = ["Optimizer", "register_optimizer_step_post_hook", "register_optimizer_step_pre_hook", "required"]

# Hooks every optimizer's step runs (global pre-hooks before the instance's, global post-hooks after them).
_global_optimizer_pre_hooks = _HookDict()
_global_optimizer_post_hooks = _HookDict()


def _add_hook(hooks, hook, prepend=False):
    """hook into the ordered dict hooks (first with prepend), with the handle that removes it."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    r"""Registers a pre hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None or (new_args,
    new_kwargs)``, run before each ``step``. Returns a handle whose ``remove()`` unregisters it."""
    return _add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    r"""Registers a post hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None``, run after
    each ``step``. Returns a handle whose ``remove()`` unregisters it."""
    return _add_hook(_global_optimizer_post_hooks, hook)


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    if isinstance(obj, _C.Tensor):
        return "minitorch.Tensor"
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in (None, "builtins") else f"{module}.{name}"


def _use_grad_for_differentiable(func):
    """Runs an optimizer's step with autograd off (PyTorch: unless differentiable=True, which we refuse)."""

    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        with grad_mode.no_grad():
            return func(self, *args, **kwargs)

    return _use_grad


def _real_lists(*args):
    """The arguments of a fused update with every complex tensor in a list argument viewed as real ([..., 2]),
    as PyTorch's optimizers do: each complex parameter is updated as its real and imaginary parts, so state such
    as Adam's second moment is kept per part."""
    return [
        [_C.view_as_real(t) if isinstance(t, _C.Tensor) and t.is_complex() else t for t in a]
        if isinstance(a, list)
        else a
        for a in args
    ]


def _amp_step_args(optimizer):
    """GradScaler's tensors for a fused step (PyTorch's contract for optimizers with
    ``_step_supports_amp_scaling``: ``GradScaler.step`` sets ``optimizer.grad_scale`` and ``optimizer.found_inf``
    for the call), as the keyword arguments of the ``_C._fused_*_`` kernels, which read them on the device."""
    return {
        "grad_scale": getattr(optimizer, "grad_scale", None),
        "found_inf": getattr(optimizer, "found_inf", None),
    }


def _scalar(value, name):
    """Hyper-parameters reach the C++ kernels as Python floats (a 1-element tensor is read once here)."""
    if isinstance(value, _C.Tensor):
        return float(value.item())
    return float(value)


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of Tensors or dicts; the dicts give per-group options.
        defaults (dict): default values of the options (used when a group does not set them).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._init_hook_dicts()
        self._patch_step_function()
        if isinstance(params, _C.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + _typename(params)
            )
        if isinstance(params, set):
            warnings.warn(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in "
                "sets will change between runs. Please use a list instead. This will be an error in a future release.",
                FutureWarning,
                stacklevel=2,
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._init_hook_dicts()
        self._patch_step_function()  # an unpickled optimizer (multiprocessing) still runs its hooks

    _HOOK_DICTS = (
        "_optimizer_step_pre_hooks",
        "_optimizer_step_post_hooks",
        "_optimizer_state_dict_pre_hooks",
        "_optimizer_state_dict_post_hooks",
        "_optimizer_load_state_dict_pre_hooks",
        "_optimizer_load_state_dict_post_hooks",
    )

    def _init_hook_dicts(self):
        for name in self._HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, _HookDict())

    def _optimizer_step_code(self):
        """Entry point for profilers that hook each optimizer step (PyTorch's); it does nothing."""

    @staticmethod
    def profile_hook_step(func):
        """Wraps an optimizer class's ``step``: a profiler range named ``Optimizer.step#<Class>.step`` around the
        global and per-instance step pre-hooks, the step and the post-hooks (PyTorch's order)."""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self, *_ = args
            if (
                _recorder._active is None
                and not _global_optimizer_pre_hooks
                and not _global_optimizer_post_hooks
                and not self._optimizer_step_pre_hooks
                and not self._optimizer_step_post_hooks
            ):
                # nothing to run around the step: a tiny model's step stays a few microseconds
                out = func(*args, **kwargs)
                self._optimizer_step_code()
                return out
            with _recorder.record_function(f"Optimizer.step#{self.__class__.__name__}.step"):
                for pre_hook in chain(
                    _global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()
                ):
                    result = pre_hook(self, args, kwargs)
                    if result is not None:
                        if isinstance(result, tuple) and len(result) == 2:
                            args, kwargs = result
                        else:
                            raise RuntimeError(
                                f"{func} must return None or a tuple of (new_args, new_kwargs), but got {result}."
                            )
                out = func(*args, **kwargs)
                self._optimizer_step_code()
                for post_hook in chain(
                    self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()
                ):
                    post_hook(self, args, kwargs)
                return out

        return wrapper

    def _patch_step_function(self):
        # As PyTorch: the class's step (its own or the inherited one) is wrapped once, on the first instance, so
        # every optimizer, LBFGS and user subclasses included, runs the step hooks.
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        r"""Registers a step pre hook, ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)``, run
        before each :meth:`step` (after the global ones); a returned pair replaces step's arguments. Returns a
        handle whose ``remove()`` unregisters it."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        r"""Registers a step post hook, ``hook(optimizer, args, kwargs) -> None``, run after each :meth:`step`
        (before the global ones). Returns a handle whose ``remove()`` unregisters it."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        r"""Registers ``hook(optimizer) -> None``, run before :meth:`state_dict` builds the dict (first of the
        pre-hooks with ``prepend=True``). Returns a handle whose ``remove()`` unregisters it."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        r"""Registers ``hook(optimizer, state_dict) -> state_dict or None``, run on the dict :meth:`state_dict`
        built; a returned dict replaces it. Returns a handle whose ``remove()`` unregisters it."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        r"""Registers ``hook(optimizer, state_dict) -> state_dict or None``, run on a shallow copy of the dict
        given to :meth:`load_state_dict` before it is loaded; a returned dict is loaded instead. Returns a handle
        whose ``remove()`` unregisters it."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        r"""Registers ``hook(optimizer) -> None``, run after :meth:`load_state_dict` has loaded the state.
        Returns a handle whose ``remove()`` unregisters it."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def add_param_group(self, param_group):
        r"""Add a param group to the Optimizer's `param_groups` (e.g. layers unfrozen during fine-tuning)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {_typename(param_group)}")
        params = param_group["params"]
        if isinstance(params, _C.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        for param in param_group["params"]:
            if not isinstance(param, _C.Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(param)
                )
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        param_set = set()
        for group in self.param_groups:
            param_set.update(id(p) for p in group["params"])
        if not param_set.isdisjoint(id(p) for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        r"""Resets the gradients of all optimized tensors (to None by default, else to zero in place)."""
        grads = []
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    grads.append(p.grad)
        if grads:
            _C._foreach_zero_(grads)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        r"""Performs a single optimization step (parameter update).

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        # The preamble every optimizer shares: the closure runs with grad on, then each group's parameters that
        # have a gradient go to the optimizer's own update (a group with none is skipped, as PyTorch does).
        if type(self)._update_group is Optimizer._update_group:
            raise NotImplementedError
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, grads = self._params_with_grad(group)
            if params:
                self._update_group(group, params, grads)
        return loss

    def _update_group(self, group, params, grads):
        """Updates ``params`` (the group's parameters with a gradient) from ``grads``: each optimizer's own step."""
        raise NotImplementedError

    def state_dict(self):
        r"""The optimizer's state as a dict: ``state`` (per parameter, keyed by integer ids in the order the
        parameters appear in the groups) and ``param_groups`` (options, with ``params`` as those ids)."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {id(p): i for i, p in enumerate(group["params"], start_index) if id(p) not in param_mappings}
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, _C.Tensor) else k): v for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, key=None):
        # Steps stay float32 (the kernels read them as such) on the parameter's device; other floating state
        # takes the parameter's dtype and device.
        if key == "step":
            return value.to(dtype=_C.float32, device=param.device)
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        r"""Loads the optimizer state (an object returned by :meth:`state_dict`)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])

        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )

        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )

        def _cast(param, value, key=None):
            if key == "step" and isinstance(
                value, (int, float)
            ):  # older checkpoints keep the step as a number
                return _creation.tensor(float(value), dtype=_C.float32, device=param.device)
            if isinstance(value, _C.Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, key)
            if isinstance(value, dict):
                return {k: _cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(_cast(param, v) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ---- helpers for the subclasses

    def _check_supported(self, differentiable):
        if differentiable:
            raise NotImplementedError("minitorch optimizers do not support differentiable=True")

    def _params_with_grad(self, group):
        """The group's parameters that have a gradient (others are skipped, as PyTorch does)."""
        params, grads = [], []
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
        return params, grads

    @staticmethod
    def _host_counter(value=0.0):
        # The Python-composed optimizers read their counters every step: on the host (PyTorch's layout when not
        # capturable) that read never waits for a GPU.
        return _creation.tensor(value, dtype=_C.float32)

    @staticmethod
    def _new_step(p):
        # PyTorch's fused/capturable layout: the step count as a float32 tensor on the parameter's device
        return _C.zeros((), dtype=_C.float32, device=p.device)


def _check_lr(lr):
    if isinstance(lr, _C.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_betas_eps_wd(betas, eps, weight_decay):
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _check_not_capturable(name, capturable, differentiable):
    """The optimizers composed in Python read their step counts on the host: capturable=True (no host sync, for
    CUDA graphs) and differentiable=True (autograd through the step) are refused rather than silently ignored."""
    if capturable:
        raise NotImplementedError(f"minitorch's {name} does not support capturable=True")
    if differentiable:
        raise NotImplementedError("minitorch optimizers do not support differentiable=True")


def _check_dense(grads, name):
    for g in grads:
        if g.is_sparse:
            raise RuntimeError(f"{name} does not support sparse gradients")


def _as_real(*tensors):
    """Each tensor, a complex one viewed as real ([..., 2]): complex parameters are updated per part."""
    return [_C.view_as_real(t) if t.is_complex() else t for t in tensors]


def _step_tensor_setdefault(optimizer, group_key="params", keys=("step",)):
    """PyTorch's __setstate__ repair: state counters saved as Python numbers become float32 tensors."""
    for group in optimizer.param_groups:
        for p in group[group_key]:
            p_state = optimizer.state.get(p, {})
            for key in keys:
                if key in p_state and not isinstance(p_state[key], _C.Tensor):
                    p_state[key] = _creation.tensor(float(p_state[key]), dtype=_C.float32, device=p.device)
