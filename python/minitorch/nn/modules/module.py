"""nn.Module: registration of parameters, buffers and submodules, traversal, state dicts, device/dtype moves
and hooks, with PyTorch's behaviour, order and error messages."""

import itertools
import sys
import warnings
import weakref
from collections import OrderedDict, namedtuple

from minitorch import _C
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.parameter import Buffer, Parameter

__all__ = ["Module", "RemovableHandle"]


def _typename(obj):
    if isinstance(obj, _C.Tensor):
        return obj.type()
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _addindent(s, num_spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * num_spaces + line for line in lines)


class RemovableHandle:
    """Returned by the register_*_hook methods; remove() unregisters the hook (also as a context manager).
    torch.utils.hooks.RemovableHandle: ``RemovableHandle(hooks_dict, *, extra_dict=None)`` as PyTorch's (extra
    dicts, one or a list, lose the id too)."""

    _next_id = itertools.count()

    def __init__(self, *hooks_dicts, extra_dict=None):
        self.id = next(RemovableHandle._next_id)
        if isinstance(extra_dict, dict):
            hooks_dicts += (extra_dict,)
        elif isinstance(extra_dict, list):
            hooks_dicts += tuple(extra_dict)
        self._refs = [weakref.ref(d) for d in hooks_dicts]

    def remove(self):
        for ref in self._refs:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


# the hook dicts are plain OrderedDicts; weakref needs a subclass instance
class _HookDict(OrderedDict):
    pass


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) from Module.to's overloads: to(device), to(dtype),
    to(tensor), to(device, dtype), keywords device=/dtype=/non_blocking=/memory_format=."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: unexpected {sorted(kwargs)}")
    rest = list(args)
    if rest and isinstance(rest[-1], bool):
        non_blocking = rest.pop()
    for a in rest:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, _C.Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (str, int, _C.device)):
            device = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({_typename(a)})")
    if device is not None:
        device = _C.device(device)
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError(
            f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
        )
    return device, dtype, non_blocking, memory_format


_FULL_HOOK_NO_INPUTS = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs "
    "require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


def _hook_identity():
    # defined on first use: minitorch.autograd imports nn's neighbours, not the other way round
    global _HookIdentity
    if _HookIdentity is None:
        from minitorch.autograd.function import Function

        class BackwardHookFunction(Function):
            """Identity on a module's tensor inputs or outputs whose backward hands the gradients to a hook
            (PyTorch's BackwardHookFunction): one node for all of them, so the hook sees them together."""

            @staticmethod
            def forward(ctx, on_grads, *tensors):
                ctx.on_grads = on_grads
                return tuple(t.view_as(t) for t in tensors)

            @staticmethod
            def backward(ctx, *grads):
                return (None, *ctx.on_grads(grads))

        _HookIdentity = BackwardHookFunction
    return _HookIdentity


_HookIdentity = None


class _BackwardHook:
    """One call's full backward hooks: the inputs and outputs pass through BackwardHookFunction nodes; the
    outputs' node runs the pre-hooks and keeps grad_output, the inputs' node runs the hooks on grad_input."""

    def __init__(self, module):
        self.module = module
        self.n_inputs = 0
        self.input_wrapped = False
        self.grad_outputs = None

    @staticmethod
    def _wrap(values, on_grads):
        pos = [i for i, v in enumerate(values) if isinstance(v, _C.Tensor) and v.requires_grad]
        if not pos:
            return values, False
        out = _hook_identity().apply(on_grads, *(values[i] for i in pos))
        values = list(values)
        for i, o in zip(pos, out):
            values[i] = o
        return values, True

    def setup_input_hook(self, args):
        # grad_input has an entry per argument, as PyTorch's: the gradient where the argument requires grad,
        # zeros for another tensor, None for anything else
        self.n_inputs = len(args)
        self.grad_pos = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor) and a.requires_grad]
        self.others = {i: a for i, a in enumerate(args) if isinstance(a, _C.Tensor) and not a.requires_grad}
        if not self.module._backward_hooks:
            return args
        new, self.input_wrapped = self._wrap(list(args), self._on_input_grads)
        return tuple(new)

    def setup_output_hook(self, result):
        single = isinstance(result, _C.Tensor)
        if not (single or isinstance(result, tuple)):
            return result
        new, wrapped = self._wrap([result] if single else list(result), self._on_output_grads)
        if not wrapped:
            return result
        return new[0] if single else tuple(new)

    def _on_output_grads(self, grads):
        grads = tuple(grads)
        for hook in list(self.module._backward_pre_hooks.values()):
            res = hook(self.module, grads)
            if res is not None:
                grads = res if isinstance(res, tuple) else (res,)
        self.grad_outputs = grads
        if self.module._backward_hooks and not self.input_wrapped:
            warnings.warn(_FULL_HOOK_NO_INPUTS, stacklevel=1)
            for hook in list(self.module._backward_hooks.values()):
                res = hook(self.module, (None,) * self.n_inputs, grads)
                if res is not None and any(r is not None for r in res):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should always return None "
                        "or None for all gradients."
                    )
        return grads

    def _on_input_grads(self, grads):
        by_pos = dict(zip(self.grad_pos, grads))
        grad_input = tuple(
            by_pos[i] if i in by_pos else (_C.zeros_like(self.others[i]) if i in self.others else None)
            for i in range(self.n_inputs)
        )
        for hook in list(self.module._backward_hooks.values()):
            res = hook(self.module, grad_input, self.grad_outputs)
            if res is not None:
                res = res if isinstance(res, tuple) else (res,)
                if len(res) != len(grad_input):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got {len(res)}, but expected "
                        f"{len(grad_input)}"
                    )
                grad_input = res
        return tuple(grad_input[i] for i in self.grad_pos)


class Module:
    """Base class of every layer and model: assign Parameters, Modules and buffers as attributes and they are
    registered; call the module to run ``forward`` (with hooks)."""

    dump_patches = False
    _version = 1
    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            extra = next(iter(kwargs)) if kwargs else None
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument '{extra}'"
                if extra
                else f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_pre_hooks", _HookDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", _HookDict())
        setattr_(self, "_forward_hooks", _HookDict())
        setattr_(self, "_forward_hooks_with_kwargs", _HookDict())
        setattr_(self, "_forward_hooks_always_called", _HookDict())
        setattr_(self, "_backward_pre_hooks", _HookDict())
        setattr_(self, "_backward_hooks", _HookDict())
        setattr_(self, "_state_dict_hooks", _HookDict())
        setattr_(self, "_load_state_dict_pre_hooks", _HookDict())
        setattr_(self, "_load_state_dict_post_hooks", _HookDict())

    def forward(self, *input):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ---- calling
    # set by compile(): the compiled call, which runs this method eagerly itself (it is then "active")
    _compiled_call_impl = None

    def _call_impl(self, *args, **kwargs):
        compiled = self._compiled_call_impl
        if compiled is not None and not compiled._mt_active():
            return compiled(*args, **kwargs)
        if not (
            self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                            f"but got {res}."
                        )
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw_hook = None
        if (self._backward_hooks or self._backward_pre_hooks) and _C.is_grad_enabled():
            bw_hook = _BackwardHook(self)
            args = bw_hook.setup_input_hook(args)
        try:
            result = self.forward(*args, **kwargs)
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception:  # noqa: BLE001, S110  (an always_call hook must not mask the forward's error)
                        pass
            raise
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
        if bw_hook is not None:
            result = bw_hook.setup_output_hook(result)
        return result

    __call__ = _call_impl

    def compile(self, *args, **kwargs):
        """Compiles this Module's __call__ with torch.compile, in place (arguments as torch.compile's)."""
        # torch.compile sits above nn: reached through the package root, which loads minitorch.compiler on
        # first use, instead of an import from below
        compiler = sys.modules["minitorch"].compiler
        self._compiled_call_impl = compiler.compile(self._call_impl, *args, **kwargs)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        handle = RemovableHandle(
            self._forward_hooks, self._forward_hooks_with_kwargs, self._forward_hooks_always_called
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> new grad_output or None: called when the gradients of the module's
        outputs are computed, before those of its inputs."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> new grad_input or None: called when the gradients of the
        module's inputs are computed (one entry per argument: zeros for a tensor that needs no gradient, None
        for a non-tensor; with no input requiring grad it is called, with a warning, once the output gradients
        are known, grad_input all None)."""
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    # ---- registration
    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in the "
                "forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, _C.Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
            tensor = tensor.detach()
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    @staticmethod
    def _check_name(name, kind):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*containers):
            for c in containers:
                if name in c:
                    if isinstance(c, dict):
                        del c[name]
                    else:
                        c.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' (torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' (torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, _C.Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                remove_from(d, self._parameters, self._modules)
                self.register_buffer(name, value)
            else:
                buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        # modules pickled before the load_state_dict pre-hooks and the backward hooks existed
        for name in ("_load_state_dict_pre_hooks", "_backward_pre_hooks", "_backward_hooks"):
            self.__dict__.setdefault(name, _HookDict())

    # ---- traversal
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or (remove_duplicate and v in memo):
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")  # noqa: TRY004  (PyTorch's exception type)
        return mod

    # get_parameter/get_buffer: the same walk as get_submodule, each with PyTorch's own message for its kind.
    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")  # noqa: TRY004  (PyTorch's exception type)
        return param

    def get_buffer(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    # ---- modes and gradients
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")  # noqa: TRY004  (PyTorch's exception type)
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- device and dtype
    def _apply(self, fn, recurse=True):
        """Converts every parameter, gradient and buffer with fn. Parameters change in place (`param.data =`),
        so optimizers and other holders of the Parameter objects keep seeing the module's tensors."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            if applied is not param:
                param.data = applied
            g = param.grad
            if g is not None:
                with no_grad():
                    g_applied = fn(g)
                if g_applied is not g:
                    g.data = g_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        device, dtype, non_blocking, memory_format = _parse_to(*args, **kwargs)

        if dtype is not None and dtype.is_complex:
            warnings.warn(
                "Complex modules are a new feature under active development whose design may change, and some "
                "modules might not work as expected when using complex tensors as parameters or buffers. Please "
                "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if a "
                "complex module does not work as expected.",
                stacklevel=2,
            )

        def convert(t):
            # a layout applies to the 4-d and 5-d tensors only (conv weights), as PyTorch's
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(
                    device=device if device is not None else t.device,
                    dtype=dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) else None,
                    non_blocking=non_blocking,
                    memory_format=memory_format,
                )
            # complex tensors follow a dtype too (to a real one with the cast's warning), as PyTorch
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                return t.to(
                    device=device if device is not None else t.device, dtype=dtype, non_blocking=non_blocking
                )
            if device is not None:
                return t.to(device=device, non_blocking=non_blocking)
            return t

        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse=True):
        return self._apply(lambda t: _C.empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        """Moves every parameter, gradient and buffer to shared memory in place (Tensor.share_memory_), so
        processes that receive the module (minitorch.multiprocessing) train the same weights."""
        return self._apply(lambda t: t.share_memory_())

    # ---- state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # PyTorch's deprecated positional form state_dict(destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if res is not None:
                destination = res
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        # pre-hooks may rename or convert this module's entries (legacy weight_norm/spectral_norm layouts)
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())}
        local_state = {k: v for k, v in local_state.items() if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, _C.Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object '
                    f"from checkpoint but received {type(input_param)}"
                )
                continue
            if tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {input_param.shape} from checkpoint, "
                    f"the shape in current model is {param.shape}."
                )
                continue
            if param.is_meta and not input_param.is_meta and not assign:
                warnings.warn(
                    f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                    "parameter in the current model, which is a no-op. (Did you mean to "
                    "pass `assign=True` to assign items in the state dictionary to their "
                    "corresponding key in the module instead of copying them in place?)",
                    stacklevel=2,
                )
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            new = (
                                input_param
                                if isinstance(input_param, Parameter)
                                else Parameter(input_param, requires_grad=param.requires_grad)
                            )
                            setattr(self, name, new)
                        else:
                            setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:  # noqa: BLE001  (reported in the state-dict error list, as PyTorch)
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{param.shape} and whose dimensions in the checkpoint are {input_param.shape}, "
                    f"an exception occurred : {ex.args}."
                )
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    input_name = key[len(prefix) :].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_sd = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_sd, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, incompatible)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)
                    ),
                )
            if missing_keys:
                error_msgs.insert(
                    0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys))
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    self._get_name(), "\n\t".join(error_msgs)
                )
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def register_state_dict_post_hook(self, hook):
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    _register_state_dict_hook = register_state_dict_post_hook

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs) runs
        before this module loads its entries (with the module first when with_module)."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        if with_module:
            module_ref = weakref.ref(self)

            def bound(*args):
                return hook(module_ref(), *args)

            self._load_state_dict_pre_hooks[handle.id] = bound
        else:
            self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        runs before the module loads its entries of a state_dict; it may edit them."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ---- printing
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"
