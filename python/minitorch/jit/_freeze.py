"""torch.jit.freeze / optimize_for_inference: PyTorch's checks, then a frozen module. Freezing inlines the
parameters and attributes into the code, so the frozen module has no fields left (no submodules, parameters,
buffers or attributes) and no methods but forward and those named in preserved_attrs; the tensors it computes
with are the original's, detached (they share storage: an in-place change of a parameter reaches it, a rebinding
does not)."""

import types
import warnings

from minitorch.jit._script import ScriptModule
from minitorch.nn.modules.module import Module
from minitorch.nn.utils.stateless import _functional_call

__all__ = ["freeze", "optimize_for_inference", "run_frozen_optimizations"]


def _lookup(mod, name):
    """(True, value) for a name a scripted module has (field, submodule or method), else (False, None)."""
    try:
        return True, getattr(mod, name)
    except AttributeError:
        return False, None


class _FrozenModule(ScriptModule):
    """What torch.jit.freeze returns: forward runs the scripted module's code on constants (its parameters and
    buffers, detached, as they were at freezing); the preserved names stay reachable."""

    def __init__(self, mod, preserved):
        super().__init__()
        d = self.__dict__
        # no training flag either, as PyTorch's frozen module (freezing one again fails on it)
        del d["training"]
        d["_mt_src"] = mod
        d["_mt_consts"] = {
            **{k: v.detach() for k, v in mod.named_parameters(remove_duplicate=False)},
            **{k: v.detach() for k, v in mod.named_buffers(remove_duplicate=False)},
        }
        d["original_name"] = mod.__dict__.get("original_name", type(mod).__name__)
        d["_mt_preserved_methods"] = set()
        for name in preserved:
            found, value = _lookup(mod, name)
            if not found:
                raise RuntimeError(f"Unknown name: {name}")
            if isinstance(value, types.MethodType):
                d["_mt_preserved_methods"].add(name)
            elif isinstance(value, Module):
                d["_modules"][name] = value
            else:
                # a preserved attribute keeps its value at freezing, as a field of the frozen module
                d[name] = value.detach() if hasattr(value, "detach") else value

    def forward(self, *args, **kwargs):
        """The scripted module's forward with its parameters and buffers as constants."""
        return _functional_call(self.__dict__["_mt_src"], self.__dict__["_mt_consts"], args, kwargs)

    def __getattr__(self, name):
        d = self.__dict__
        if name in d.get("_mt_preserved_methods", ()):
            return getattr(d["_mt_src"], name)
        try:
            return super().__getattr__(name)
        except AttributeError:
            pass
        raise AttributeError(f"'RecursiveScriptModule' object has no attribute '{name}'")

    @property
    def graph(self):
        """The scripted forward's graph (the constants it reads are the frozen tensors)."""
        return self.__dict__["_mt_src"].graph

    @property
    def inlined_graph(self):
        return self.__dict__["_mt_src"].inlined_graph

    @property
    def code(self):
        return self.__dict__["_mt_src"].code

    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self):
        """original_name=<the scripted class>."""
        return f"original_name={self.__dict__['original_name']}"


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """A frozen copy of mod (a ScriptModule in eval mode): forward, and the methods and attributes named in
    preserved_attrs; everything else it held is inlined and no longer reachable."""
    warnings.warn(
        "`torch.jit.freeze` is deprecated. Please use `torch.compile` instead.", FutureWarning, stacklevel=2
    )
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(  # noqa: TRY004  (PyTorch's class)
            "Freezing expects a ScriptModule as input. Please use torch.jit.script or torch.jit.trace to script "
            "your 'nn.Module'."
        )
    if mod.training:
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. Please call .eval() on your module "
            "before freezing."
        )
    return _FrozenModule(mod, list(preserved_attrs or ()))


def run_frozen_optimizations(mod, optimize_numerics=True, preserved_methods=None):
    """Nothing to run here; kept for scripts that call it."""
    return


def optimize_for_inference(mod, other_methods=None):
    """mod in eval mode, frozen (other_methods preserved), as PyTorch's optimize_for_inference returns it."""
    warnings.warn(
        "`torch.jit.optimize_for_inference` is deprecated. Please use `torch.compile` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(  # noqa: TRY004  (PyTorch's class)
            "optimize_for_inference expects a ScriptModule as input. Please use torch.jit.script or "
            "torch.jit.trace to script your 'nn.Module'."
        )
    if not hasattr(mod, "training"):  # already frozen
        return mod
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return freeze(mod.eval(), preserved_attrs=other_methods)
