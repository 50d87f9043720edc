"""torch.compile, torch._assert and torch.cond: the entry points to program capture that the torch namespace holds
before the packages doing the work are loaded."""

import sys

from minitorch import _C

__all__ = ["_assert", "compile", "cond"]


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    disable=False,
    **kwargs,
):
    """torch.compile: minitorch.compiler.compile (see there), loaded on first use."""
    # torch.compile sits above this layer (it captures and compiles whole programs): reached through the
    # package root, which loads minitorch.compiler lazily, instead of an import from below
    compiler = sys.modules["minitorch"].compiler
    return compiler.compile(
        model,
        fullgraph=fullgraph,
        dynamic=dynamic,
        backend=backend,
        mode=mode,
        options=options,
        disable=disable,
        **kwargs,
    )


def _assert(condition, message):
    """torch._assert: raises AssertionError(message) unless condition holds (a traceable `assert`: torch.fx
    records it as a call where a Python assert statement would need a concrete value)."""
    if not condition:
        raise AssertionError(message)


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands): PyTorch's structured control flow, run eagerly
    (under torch.compile a tensor pred is data-dependent, so the capture breaks and the call runs eagerly)."""
    if _C._is_tensor(pred) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    return true_fn(*operands) if pred else false_fn(*operands)


# fx's generated code names it as PyTorch's does (torch._assert), not by its defining module
_assert._mt_public_name = "torch._assert"
