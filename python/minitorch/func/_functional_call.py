"""torch.func.functional_call and stack_module_state: calling a module with given parameters and buffers.

functional_call swaps the given tensors into the module for one call (restored afterwards, also when the
call raises), through nn.utils.stateless; the tensors may be BatchedTensors, which is how vmap runs one
module over a stack of parameter sets (model ensembling) or per-sample gradients.
"""

from collections.abc import Sequence

from minitorch import _C
from minitorch.nn.utils.stateless import _functional_call

__all__ = ["functional_call", "stack_module_state"]


def functional_call(
    module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """module(*args, **kwargs) with the parameters and buffers named in parameter_and_buffer_dicts (a dict
    {"layer.weight": tensor}, or a sequence of dicts with disjoint keys) in place of the module's own for this
    call. tie_weights: a value given for one name of a tied tensor applies to all its names; strict: the names
    must be exactly the module's parameters and buffers."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous"
            )
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(  # noqa: TRY004  (PyTorch's exception type)
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    return _functional_call(module, values, args, kwargs, tie_weights=tie_weights, strict=strict)


def _stacked_leaf(tensors, name):
    all_grad = all(t.requires_grad for t in tensors)
    if not all_grad and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = _C.stack(list(tensors))
    if all_grad:
        out = out.detach().requires_grad_()
    return out


def stack_module_state(models):
    """(params, buffers): each model's parameters and buffers stacked along a new dim 0, by name, for
    vmap over functional_call (ensembling). The stacked parameters are new leaves (requires_grad as the
    models' parameters), unrelated to the models' own."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
