"""torch.jit.freeze / optimize_for_inference: checks as PyTorch's, then the module itself (no TorchScript
passes to run: the captured code already reads parameters directly)."""

import warnings

from minitorch.jit._script import ScriptModule

__all__ = ["freeze", "optimize_for_inference", "run_frozen_optimizations"]


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """mod (a ScriptModule in eval mode), as PyTorch's frozen module would compute."""
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
    return mod


def run_frozen_optimizations(mod, optimize_numerics=True, preserved_methods=None):
    """Nothing to run here; kept for scripts that call it."""
    return


def optimize_for_inference(mod, other_methods=None):
    """mod in eval mode (frozen), as PyTorch's optimize_for_inference returns it."""
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return freeze(mod.eval(), preserved_attrs=other_methods)
