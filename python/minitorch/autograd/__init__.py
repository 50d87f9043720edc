"""minitorch.autograd: backward/grad over the C++ engine, grad mode, custom Functions, gradcheck."""

import importlib

from minitorch import _C
from minitorch.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from minitorch.autograd.engine import _is_checkpoint_valid, backward, grad  # noqa: F401
from minitorch.autograd.function import Function, FunctionCtx  # noqa: F401
from minitorch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from minitorch.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from minitorch.autograd.variable import Variable

__all__ = [
    "Function",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
]


class RemovableHandle:
    """Returned by Tensor.register_hook and grad_fn.register_hook/register_prehook (the owner is the tensor or
    the node); remove() unregisters the hook."""

    def __init__(self, owner, hook_id):
        self._owner = owner
        self._id = hook_id

    def remove(self):
        """Unregisters the hook; calling it again does nothing."""
        if self._owner is not None:
            self._owner._remove_hook(self._id)
            self._owner = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _node_register_hook(self, fn):
    """fn(grad_inputs, grad_outputs) runs after this node computed grad_inputs; it may return replacements."""
    return RemovableHandle(self, self._register_hook(fn))


def _node_register_prehook(self, fn):
    """fn(grad_outputs) runs before this node; it may return replacement gradients."""
    return RemovableHandle(self, self._register_prehook(fn))


_C.Node.register_hook = _node_register_hook
_C.Node.register_prehook = _node_register_prehook


# torch.autograd.forward_ad and torch.autograd.functional are transforms built on minitorch.func and overrides,
# and autograd.profiler is the legacy API over minitorch.profiler's recorder, all of which sit above this package
# (docs/architecture.md, Python package layering): loaded on first use, so that the modules below (everything
# that imports autograd.Function) do not depend on them.
_LAZY_SUBMODULES = frozenset({"forward_ad", "functional", "graph", "profiler", "profiler_util"})


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"minitorch.autograd.{name}")
    raise AttributeError(f"module 'minitorch.autograd' has no attribute '{name}'")
