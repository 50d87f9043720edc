"""torch.func.vmap: runs a function written for one example on a batch, by batching rules (see _batched.py).

The inputs are wrapped as BatchedTensors (batch dim moved to the front), the function runs once with the
torch-function dispatch switched on (minitorch.overrides), so that every op it calls on a BatchedTensor goes
to that op's batching rule, and the outputs are unwrapped with the batch dim moved to `out_dims`. A vmap
level's random factories (torch.rand(...) with no batched argument) are seen by a TorchFunctionMode that
applies `randomness`.
"""

import functools
import sys
import types

from minitorch import _C
from minitorch._random import get_rng_state, set_rng_state
from minitorch.func import _batch_rules
from minitorch.func._batched import (
    STATE,
    BatchedTensor,
    Level,
    call,
    dispatch,
    enter_transform,
    exit_transform,
    key_of,
)
from minitorch.func._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten
from minitorch.overrides import TorchFunctionMode, resolve_name

__all__ = ["chunk_vmap", "vmap"]


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _is_tensor(x):
    return _C._is_tensor(x) or type(x) is BatchedTensor


class _RandomnessMode(TorchFunctionMode):
    """Sees every torch function called inside vmap: random factories get the level's randomness rule, calls
    with a BatchedTensor argument go on to its __torch_function__, the rest run unchanged."""

    _mt_defers_to_overrides = (
        True  # NotImplemented whenever an argument overrides: overrides.py skips it then
    )
    _mt_tensor_methods = False  # the random Tensor methods (t.uniform_()) reach BatchedTensor's own

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__name__", None) in _batch_rules.RANDOM_NAMES:
            _batch_rules.check_random_op(key_of(func), args, kwargs)
        if types:
            return NotImplemented
        key = key_of(func)
        if key in _batch_rules.RANDOM_FACTORIES:
            return _batch_rules.random_factory(key, func, args, kwargs)
        return func(*args, **kwargs)


def _is_torch_function(func):
    # only functions of our own modules can be torch functions (resolve_name indexes the namespaces on a miss)
    if not isinstance(func, (types.FunctionType, types.BuiltinFunctionType)):
        return False
    if not str(getattr(func, "__module__", None) or "").startswith("minitorch"):
        return False
    return resolve_name(func) is not None


def _check_in_dims(in_dims, args, func):
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(  # noqa: TRY004  (PyTorch's exception type)
            f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if len(args) == 0:
        raise ValueError(
            f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to "
            "vmap over a function with no inputs. The latter is unsupported."
        )
    flat_args, spec = tree_flatten(args)
    flat_in_dims = broadcast_to_and_flatten(in_dims, spec)
    if flat_in_dims is None:
        raise ValueError(
            f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure "
            f"of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has structure {spec}."
        )
    for i, (arg, d) in enumerate(zip(flat_args, flat_in_dims)):
        if not isinstance(d, int) and d is not None:
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but in_dim "
                "must be either an integer dimension or None."
            )
        if isinstance(d, int) and not _is_tensor(arg):
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the "
                f"input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use None as the "
                "respective in_dim"
            )
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but that "
                f"input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                f"-{arg.dim()} <= in_dim < {arg.dim()}."
            )
        if d is not None and d < 0:
            flat_in_dims[i] = d % arg.dim()
    return flat_args, flat_in_dims, spec


def _batch_size(flat_in_dims, flat_args):
    sizes = [a.size(d) for d, a in zip(flat_in_dims, flat_args) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sizes} for the mapped dimension"
        )
    return sizes[0]


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    leaves, _ = tree_flatten(out_dims)
    for x in leaves:
        if x is not None and not isinstance(x, int):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                "collection of ints representing where in the outputs the vmapped dimension should appear."
            )


def _unwrap_output(out, level, size, out_dim, func):
    name = _name(func)
    if out_dim is None:
        if type(out) is BatchedTensor and out._level == level.id:
            raise ValueError(
                f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None"
            )
        return out
    if not _is_tensor(out):
        raise ValueError(
            f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(out)}. Did you mean to set "
            "out_dims= to None for output?"
        )
    if type(out) is BatchedTensor and out._level == level.id:
        value = out._value
    elif _is_dual(out) and _dual_parts_batched(out, level):
        # a dual made inside (vmap over forward AD): its primal and tangent come out batched, each on its own
        from minitorch.func import _forward_ad as fwd

        p, t = fwd._split(out, out._level)
        return fwd._make(
            _unwrap_output(p, level, size, out_dim, func),
            _unwrap_output(t, level, size, out_dim, func),
            out._level,
        )
    else:
        # not batched at this level: every entry got the same result
        value = out.unsqueeze(0).expand(size, *out.shape)
    rank = value.dim()
    if not -rank <= out_dim < rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {out_dim})"
        )
    return value.movedim(0, out_dim) if out_dim % rank != 0 else value


def _is_dual(x):
    fwd = sys.modules.get("minitorch.func._forward_ad")  # loaded once a dual exists
    return fwd is not None and type(x) is fwd.DualTensor


def _dual_parts_batched(out, level):
    from minitorch.func import _forward_ad as fwd

    if not fwd._is_active(out._level):
        return False
    return any(type(x) is BatchedTensor and x._level == level.id for x in (out._primal, out._tangent))


def _unwrap_outputs(outputs, out_dims, level, size, func):
    flat_out, spec = tree_flatten(outputs)

    def incompatible():
        raise ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
            f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has "
            f"structure {spec}."
        )

    if _is_tensor(outputs):
        if isinstance(out_dims, int) or out_dims is None:
            flat_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_dims = list(out_dims)
        else:
            incompatible()
    else:
        flat_dims = broadcast_to_and_flatten(out_dims, spec)
        if flat_dims is None:
            incompatible()
    return tree_unflatten(
        [_unwrap_output(o, level, size, d, func) for o, d in zip(flat_out, flat_dims)],
        spec,
    )


def _flat_vmap(func, size, flat_in_dims, flat_args, spec, out_dims, randomness, kwargs):
    level = Level(STATE.next_level, size, randomness)
    STATE.next_level += 1
    STATE.levels.append(level)
    # a torch function itself (vmap(torch.sin)) goes straight to its rule, whose calls dispatch by key: no user
    # code runs that could read the namespaces, so the outermost such vmap leaves the dispatch off
    direct = _is_torch_function(func)
    mode = _RandomnessMode() if STATE.mode_depth == 0 and not direct else None
    counted = mode is not None or STATE.mode_depth > 0
    try:
        if mode is not None:
            mode.__enter__()
        if counted:
            STATE.mode_depth += 1
        enter_transform()
        try:
            batched = [
                a if d is None else BatchedTensor(a.movedim(d, 0) if d != 0 else a, level.id)
                for a, d in zip(flat_args, flat_in_dims)
            ]
            inputs = tree_unflatten(batched, spec)
            if direct:
                # the name it was bound to predates the dispatch
                outputs = dispatch(key_of(func), inputs, kwargs)
            else:
                outputs = func(*inputs, **kwargs)
            return _unwrap_outputs(outputs, out_dims, level, size, func)
        finally:
            if counted:
                STATE.mode_depth -= 1
            exit_transform()
            if mode is not None:
                mode.__exit__(None, None, None)
    finally:
        STATE.levels.pop()


def _chunk_sizes(total, chunk):
    sizes = [chunk] * (total // chunk)
    if total % chunk:
        sizes.append(total % chunk)
    return sizes


def _chunked_vmap(func, size, flat_in_dims, flat_args, spec, out_dims, randomness, chunk_size, kwargs):
    sizes = _chunk_sizes(size, chunk_size)
    rng = get_rng_state() if randomness == "same" else None
    results = []
    start = 0
    for n in sizes:
        chunk_args = [a if d is None else a.narrow(d, start, n) for a, d in zip(flat_args, flat_in_dims)]
        start += n
        if rng is not None:
            set_rng_state(rng)
        results.append(_flat_vmap(func, n, flat_in_dims, chunk_args, spec, out_dims, randomness, kwargs))
    flat_results = [tree_flatten(r)[0] for r in results]
    out_spec = tree_flatten(results[0])[1]
    flat_dims = broadcast_to_and_flatten(out_dims, out_spec) if not isinstance(out_dims, int) else None
    if flat_dims is None:
        flat_dims = [out_dims] * out_spec.num_leaves
    joined = []
    for j, d in enumerate(flat_dims):
        parts = [fr[j] for fr in flat_results]
        joined.append(parts[0] if d is None else _cat(parts, d))
    return tree_unflatten(joined, out_spec)


def _cat(parts, dim):
    return call("cat", parts, dim)


def check_randomness(randomness):
    """PyTorch's refusal of a randomness mode other than 'error', 'different' and 'same' (vmap, chunk_vmap,
    jacfwd)"""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}"
        )


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorizing map: vmap(func)(*inputs) is func applied to each slice of the inputs along in_dims, stacked
    along out_dims, computed by batching rules per op (one call on the whole batch, not a Python loop).

    in_dims / out_dims: an int, None (not mapped), or a tree matching the inputs / outputs. randomness: 'error'
    (random ops raise), 'different' (each batch entry draws its own) or 'same' (one draw shared by all).
    chunk_size: batch entries per call (the results equal those of a single call; with randomness='same' every
    chunk replays the same generator state).
    """
    check_randomness(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        flat_args, flat_in_dims, spec = _check_in_dims(in_dims, args, func)
        size = _batch_size(flat_in_dims, flat_args)
        if chunk_size is not None and chunk_size < size:
            return _chunked_vmap(
                func, size, flat_in_dims, flat_args, spec, out_dims, randomness, chunk_size, kwargs
            )
        return _flat_vmap(func, size, flat_in_dims, flat_args, spec, out_dims, randomness, kwargs)

    return wrapped


def chunk_vmap(func, in_dims=0, out_dims=0, randomness="error", chunks=2):
    """vmap over the inputs split into `chunks` pieces along the mapped dims (as Tensor.chunk splits), one vmap
    call per piece, the results concatenated: functorch.experimental's (vmap's chunk_size is the newer form)."""
    check_randomness(randomness)
    if chunks == 1:
        return vmap(func, in_dims=in_dims, out_dims=out_dims, randomness=randomness)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        flat_args, flat_in_dims, spec = _check_in_dims(in_dims, args, func)
        size = _batch_size(flat_in_dims, flat_args)
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        piece = -(-size // chunks)  # Tensor.chunk's piece size
        if piece >= size:
            return _flat_vmap(func, size, flat_in_dims, flat_args, spec, out_dims, randomness, kwargs)
        return _chunked_vmap(func, size, flat_in_dims, flat_args, spec, out_dims, randomness, piece, kwargs)

    return wrapped
