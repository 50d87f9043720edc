"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap) and
functional_call, over minitorch's reverse-mode autograd and per-op batching rules (see the submodules)."""

import functools as _functools

from minitorch.func import _batch_rules  # noqa: F401  (registers the batching rules)
from minitorch.func._batched import BatchedTensor
from minitorch.func._eager import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from minitorch.func._functional_call import functional_call, stack_module_state
from minitorch.func._vmap import vmap

__all__ = [
    "debug_unwrap",
    "functional_call",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]


def functionalize(func, *, remove="mutations"):
    """A function computing what func computes. PyTorch's rewrites func's in-place ops into out-of-place ones for
    graph capture; in eager mode the results are the same, which is what this returns (no rewriting is done)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid options "
            "are:\n     remove='mutations': all inplace and out= operators will be removed from the program, and "
            "replaced with their out-of-place equivalents.\n     remove='mutations_and_views': In addition to the "
            "above, all aliasing operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n"
        )

    @_functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def debug_unwrap(tensor, *, recurse=True):
    """The tensor behind a BatchedTensor (with its batch dim at 0), for debugging inside vmap; other values are
    returned unchanged."""
    while type(tensor) is BatchedTensor:
        tensor = tensor._value
        if not recurse:
            break
    return tensor


def replace_all_batch_norm_modules_(root):
    """Makes every BatchNorm module in root stop tracking running statistics (in place), so that vmap can run
    it: running_mean/var and num_batches_tracked become None. Returns root."""
    from minitorch.nn.modules.batchnorm import _BatchNorm

    for m in root.modules():
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
