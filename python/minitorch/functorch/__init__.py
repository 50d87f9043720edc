"""functorch: the package PyTorch still ships beside torch.func, here as ``minitorch.functorch``.

``from minitorch import functorch`` (or ``import minitorch.functorch as functorch``) gives what ``import
functorch`` gives with PyTorch 2.15: vmap, grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, functionalize,
make_functional(_with_buffers) and combine_state_for_ensemble (each warning FutureWarning, as PyTorch's do, with
PyTorch's text pointing at torch.func), FunctionalModule(WithBuffers), make_fx, and the subpackages
``functorch.experimental`` and ``functorch.compile`` (aot_function, aot_module, memory_efficient_fusion, nop,
ts_compile...).

Why a subpackage and not a top-level ``functorch``: the wheel ships only the ``minitorch`` package, so it can
never shadow the ``functorch`` of a PyTorch installed beside it. A program written for PyTorch that does
``import functorch`` runs under minitorch through an alias of its own: the test programs' shim
(tests/integration/programs/torch_shim/functorch) maps ``functorch`` and ``functorch.<sub>`` to this package, as
the ``torch`` shim maps ``torch``. See docs/architecture.md, "functorch".
"""

import warnings as _warnings

from minitorch import func as _func
from minitorch.func._functorch_compat import FunctionalModule, FunctionalModuleWithBuffers
from minitorch.func._functorch_compat import combine_state_for_ensemble as _combine_state_for_ensemble
from minitorch.func._functorch_compat import make_functional as _make_functional
from minitorch.func._functorch_compat import make_functional_with_buffers as _make_functional_with_buffers
from minitorch.fx.experimental.proxy_tensor import make_fx
from minitorch.version import __version__  # noqa: F401  (functorch.__version__, as PyTorch sets it)

__all__ = [
    "FunctionalModule",
    "FunctionalModuleWithBuffers",
    "combine_state_for_ensemble",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "make_functional",
    "make_functional_with_buffers",
    "make_fx",
    "vjp",
    "vmap",
]


def _warn_deprecated(api, new_api=None):
    # PyTorch's own text (torch._functorch.deprecated.get_warning), newlines removed as it does
    new_api = new_api or f"torch.func.{api}"
    _warnings.warn(
        "We've integrated functorch into PyTorch. As the final step of the "
        f"integration, `functorch.{api}` is deprecated as of PyTorch "
        "2.0 and will be deleted in a future version of PyTorch >= 2.3. "
        f"Please use `{new_api}` instead; see the PyTorch 2.0 release notes "
        "and/or the `torch.func` migration guide for more details "
        "https://pytorch.org/docs/main/func.migrating.html",
        FutureWarning,
        stacklevel=3,
    )


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.vmap, with functorch's FutureWarning."""
    _warn_deprecated("vmap", "torch.vmap")
    return _func.vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def grad(func, argnums=0, has_aux=False):
    """torch.func.grad, with functorch's FutureWarning."""
    _warn_deprecated("grad")
    return _func.grad(func, argnums, has_aux)


def grad_and_value(func, argnums=0, has_aux=False):
    """torch.func.grad_and_value, with functorch's FutureWarning."""
    _warn_deprecated("grad_and_value")
    return _func.grad_and_value(func, argnums, has_aux)


def vjp(func, *primals, has_aux=False):
    """torch.func.vjp, with functorch's FutureWarning."""
    _warn_deprecated("vjp")
    return _func.vjp(func, *primals, has_aux=has_aux)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp, with functorch's FutureWarning."""
    _warn_deprecated("jvp")
    return _func.jvp(func, primals, tangents, strict=strict, has_aux=has_aux)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """torch.func.jacrev, with functorch's FutureWarning."""
    _warn_deprecated("jacrev")
    return _func.jacrev(
        func, argnums, has_aux=has_aux, chunk_size=chunk_size, _preallocate_and_copy=_preallocate_and_copy
    )


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """torch.func.jacfwd, with functorch's FutureWarning."""
    _warn_deprecated("jacfwd")
    return _func.jacfwd(func, argnums, has_aux, randomness=randomness)


def hessian(func, argnums=0):
    """torch.func.hessian, with functorch's FutureWarning."""
    _warn_deprecated("hessian")
    return _func.hessian(func, argnums=argnums)


def functionalize(func, *, remove="mutations"):
    """torch.func.functionalize, with functorch's FutureWarning."""
    _warn_deprecated("functionalize")
    return _func.functionalize(func, remove=remove)


def make_functional(model, disable_autograd_tracking=False):
    """(fmodel, params): a stateless copy of model and its parameters (FutureWarning: use
    torch.func.functional_call)."""
    _warn_deprecated("make_functional", "torch.func.functional_call")
    return _make_functional(model, disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """(fmodel, params, buffers) (FutureWarning: use torch.func.functional_call)."""
    _warn_deprecated("make_functional_with_buffers", "torch.func.functional_call")
    return _make_functional_with_buffers(model, disable_autograd_tracking)


def combine_state_for_ensemble(models):
    """(fmodel, params, buffers) stacked over models (FutureWarning: use torch.func.stack_module_state)."""
    _warn_deprecated("combine_state_for_ensemble", "torch.func.stack_module_state")
    return _combine_state_for_ensemble(models)
