"""torch.utils.checkpoint: activation checkpointing. The checkpointed function's intermediate tensors are not
kept for backward; backward runs the function again (with the forward's RNG state) and differentiates that.

Both variants are autograd.Functions whose backward recomputes:
- ``use_reentrant=True`` (PyTorch's original): the forward runs under no_grad; backward reruns it and calls
  autograd.backward on the result, so parameters used inside get their ``.grad`` from that inner backward. As in
  PyTorch it needs an input that requires grad and does not work under autograd.grad / backward(inputs=).
- ``use_reentrant=False``: the forward runs with grad enabled only long enough to find the leaf tensors
  (parameters) the function reads, then drops that graph; the node's inputs are the function's tensor
  arguments plus those leaves, and backward returns their gradients from autograd.grad over the recomputed
  graph. So it works with autograd.grad, keyword arguments, inputs that do not require grad, and nested
  outputs. (PyTorch does this with saved-tensor hooks, which this engine does not have; the gradients are the
  same, the peak memory of the forward is one segment's activations, as during recomputation.)
"""

import contextlib
import enum
import warnings

from minitorch import _C, cuda
from minitorch.amp.autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled
from minitorch.autograd.engine import _is_checkpoint_valid
from minitorch.autograd.engine import backward as _autograd_backward
from minitorch.autograd.engine import grad as _autograd_grad
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import enable_grad, no_grad

__all__ = [
    "CheckpointError",
    "CheckpointFunction",
    "CheckpointPolicy",
    "DefaultDeviceType",
    "SelectiveCheckpointContext",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "create_selective_checkpoint_contexts",
    "detach_variable",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
]

# checkpoint's process-wide switches; neither changes what this implementation computes: it recomputes a
# segment whole (early stop is PyTorch's optimization of its saved-tensor hooks) and has no op traces to print
_checkpoint_debug_enabled = None
_enable_checkpoint_early_stop = True


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Overrides checkpoint's ``debug=`` for its extent (None defers to each call's own setting)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    try:
        _checkpoint_debug_enabled = enabled
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Whether non-reentrant checkpoints begun in its extent may stop recomputing once the needed tensors exist
    (accepted; recomputation here always runs the whole segment)."""
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    try:
        _enable_checkpoint_early_stop = enable
        yield
    finally:
        _enable_checkpoint_early_stop = prev


class DefaultDeviceType:
    """The device type whose RNG state checkpoint saves when no input is on an accelerator."""

    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        """Sets the default device type."""
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        """The default device type: the one set, else "cuda" when CUDA is present, else "cpu"."""
        if not DefaultDeviceType._default_device_type:
            DefaultDeviceType._default_device_type = "cuda" if cuda.is_available() else "cpu"
        return DefaultDeviceType._default_device_type


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output: save it in forward, or recompute it."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """The ctx a selective-checkpoint policy function receives (is_recompute: whether backward recomputes)."""

    def __init__(self, *, is_recompute):
        self.is_recompute = is_recompute


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The (forward, recompute) context managers of selective activation checkpointing, for
    ``checkpoint(fn, ..., use_reentrant=False, context_fn=partial(create_selective_checkpoint_contexts, p))``.
    The policy (a function ``(ctx, op, *args, **kwargs) -> CheckpointPolicy`` or a list of ops to save) is
    checked as PyTorch checks it; saving chosen ops needs PyTorch's dispatch modes, which minitorch does not
    have, so every op is recomputed: the gradients are the same, with the memory of plain checkpointing."""
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not callable(op):
                raise ValueError(  # noqa: TRY004  (PyTorch's class)
                    f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. "
                )
    elif not callable(policy_fn_or_list):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return contextlib.nullcontext(), contextlib.nullcontext()


_DEFAULT_DETERMINISM_MODE = "default"
_DETERMINISM_MODES = ["default", "none"]


class CheckpointError(RuntimeError):
    """The recomputation in backward did not reproduce the forward (different outputs' shapes/dtypes)."""


def noop_context_fn():
    """The default context_fn: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """The tuple with each tensor replaced by a detached alias that keeps its requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(  # noqa: TRY004  (PyTorch's exception type)
            f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}"
        )
    out = []
    for inp in inputs:
        if not isinstance(inp, _C.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    """Warns (as PyTorch) when no input requires grad: the reentrant checkpoint then gives no gradients."""
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, _C.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


# ---- RNG state: saved at forward, restored around the recomputation, the caller's state put back after
def _get_cpu_rng_state():
    return _C.default_generator.get_state()


def _set_cpu_rng_state(state):
    _C.default_generator.set_state(state)


def _cuda_devices(tensors):
    if not (cuda.is_available() and cuda.is_initialized()) or not hasattr(cuda, "get_rng_state"):
        return []
    return sorted({t.device.index for t in tensors if t.device.type == "cuda"})


def _get_rng_states(tensors):
    return _get_cpu_rng_state(), [(d, cuda.get_rng_state(d)) for d in _cuda_devices(tensors)]


def _set_rng_states(states):
    cpu, cuda_states = states
    _set_cpu_rng_state(cpu)
    for d, s in cuda_states:
        cuda.set_rng_state(s, d)


@contextlib.contextmanager
def _forked_rng(states, enabled):
    """Runs the block from the RNG states ``states`` (the forward's) and restores the current ones after."""
    if not enabled:
        yield
        return
    now = (_get_cpu_rng_state(), [(d, cuda.get_rng_state(d)) for d, _ in states[1]])
    _set_rng_states(states)
    try:
        yield
    finally:
        _set_rng_states(now)


def _autocast_state():
    return {
        dev: (is_autocast_enabled(dev), get_autocast_dtype(dev))
        for dev in ("cpu", "cuda")
        if cuda.is_available() or dev == "cpu"
    }


@contextlib.contextmanager
def _autocast_as(state):
    # the recomputation runs under the autocast settings of the forward
    with contextlib.ExitStack() as stack:
        for dev, (enabled, dtype) in state.items():
            stack.enter_context(autocast(dev, dtype=dtype, enabled=enabled))
        yield


# ---- the reentrant variant
class CheckpointFunction(Function):
    """The reentrant checkpoint: forward runs the function under no_grad and keeps only its inputs."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        """Runs run_function(*args) without recording; saves the inputs and the RNG/autocast state."""
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        tensors = [a for a in args if isinstance(a, _C.Tensor)]
        ctx.autocast = _autocast_state()
        if preserve_rng_state:
            ctx.fwd_rng = _get_rng_states(tensors)
        ctx.inputs = [None if isinstance(a, _C.Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Reruns the function with grad on and backpropagates through it into the inputs and parameters."""
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, "
                "or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _forked_rng(getattr(ctx, "fwd_rng", None), ctx.preserve_rng_state):
            detached = detach_variable(tuple(inputs))
            with enable_grad(), _autocast_as(ctx.autocast):
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, _C.Tensor):
            outputs = (outputs,)
        with_grad = [
            (o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, _C.Tensor) and o.requires_grad
        ]
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd_backward([o for o, _ in with_grad], [g for _, g in with_grad])
        grads = tuple(inp.grad if isinstance(inp, _C.Tensor) else None for inp in detached)
        return (None, None, *grads)


# ---- the non-reentrant variant
def _flatten(obj, out):
    """Appends the tensors of a nested list/tuple/dict structure to ``out``; returns a spec to rebuild it."""
    if isinstance(obj, _C.Tensor):
        out.append(obj)
        return None
    if type(obj) in (list, tuple):
        return (type(obj), [_flatten(o, out) for o in obj])
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return ("namedtuple", (type(obj), [_flatten(o, out) for o in obj]))
    if type(obj) is dict:
        return (dict, {k: _flatten(v, out) for k, v in obj.items()})
    return ("leaf", obj)


def _unflatten(spec, it):
    if spec is None:
        return next(it)
    kind, body = spec
    if kind == "leaf":
        return body
    if kind is dict:
        return {k: _unflatten(v, it) for k, v in body.items()}
    if kind == "namedtuple":
        cls, items = body
        return cls(*(_unflatten(s, it) for s in items))
    return kind(_unflatten(s, it) for s in body)


def _aliases(tensors):
    # detached aliases: the function's graph starts at them, not at the caller's graph
    out = []
    for t in tensors:
        a = t.detach()
        if t.requires_grad:
            a.requires_grad_(True)
        out.append(a)
    return out


def _graph_leaves(outputs, own):
    """The leaf tensors (parameters...) whose AccumulateGrad nodes the outputs' graph reaches, except the
    tensors in ``own`` (the function's detached arguments)."""
    own_ids = {id(t) for t in own}
    seen, keep, leaves = set(), [], []
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)  # the wrappers must stay alive for their ids to stay unique
        if node.name() == "torch::autograd::AccumulateGrad":
            var = node.variable
            if id(var) not in own_ids:
                leaves.append(var)
            continue
        stack.extend(fn for fn, _ in node.next_functions if fn is not None)
    return leaves


def _meta(t):
    return (tuple(t.shape), t.dtype, t.device)


class _NonReentrant(Function):
    @staticmethod
    def forward(ctx, state, *tensors):
        # outputs were computed by the caller (the discovery run); hand back graph-free aliases of them
        ctx.state = state
        ctx.save_for_backward(*tensors[: state["n_inputs"]])
        outputs = state.pop("outputs")
        detached = tuple(o.detach() for o in outputs)
        # an output that does not depend on anything differentiable stays without grad, as it was computed
        ctx.mark_non_differentiable(*(d for d, o in zip(detached, outputs) if not o.requires_grad))
        return detached

    @staticmethod
    def backward(ctx, *grad_outputs):
        st = ctx.state
        n_in = st["n_inputs"]
        inputs = ctx.saved_tensors
        leaves = st["leaves"]
        create_graph = _C.is_grad_enabled()
        with _forked_rng(st.get("rng"), st["preserve"]):
            # for double backward the recomputation must hang off the real inputs; otherwise it starts at
            # detached aliases so that it does not reach into the caller's graph
            aliases = list(inputs) if create_graph else _aliases(inputs)
            args, kwargs = _unflatten(st["in_spec"], iter(aliases))
            with enable_grad(), _autocast_as(st["autocast"]), st["recompute_ctx"]:
                out = st["function"](*args, **kwargs)
        flat = []
        _flatten(out, flat)
        if st["determinism_check"] == "default":
            got = [_meta(t) for t in flat]
            if got != st["out_meta"]:
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have different "
                    "metadata than during the forward pass.\n"
                    f"saved metadata: {st['out_meta']}\nrecomputed metadata: {got}\n"
                )
        wrt_pos = [i for i in range(n_in) if ctx.needs_input_grad[1 + i] and aliases[i].requires_grad]
        wrt_pos += [n_in + j for j in range(len(leaves)) if ctx.needs_input_grad[1 + n_in + j]]
        wrt = [aliases[i] if i < n_in else leaves[i - n_in] for i in wrt_pos]
        pairs = [(o, g) for o, g in zip(flat, grad_outputs) if o.requires_grad and g is not None]
        result = [None] * (n_in + len(leaves))
        if wrt and pairs:
            grads = _autograd_grad(
                [o for o, _ in pairs],
                wrt,
                [g for _, g in pairs],
                allow_unused=True,
                create_graph=create_graph,
            )
            for i, g in zip(wrt_pos, grads):
                result[i] = g
        return (None, *result)


def _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, context_fn, determinism_check):
    if not _C.is_grad_enabled():
        # nothing will be differentiated: no graph to save memory on
        return function(*args, **kwargs)
    inputs = []
    in_spec = _flatten((tuple(args), dict(kwargs)), inputs)
    forward_ctx, recompute_ctx = context_fn()
    state = {
        "function": function,
        "in_spec": in_spec,
        "n_inputs": len(inputs),
        "preserve": preserve_rng_state,
        "autocast": _autocast_state(),
        "determinism_check": determinism_check,
        "recompute_ctx": recompute_ctx,
    }
    if preserve_rng_state:
        state["rng"] = _get_rng_states(inputs)
    aliases = _aliases(inputs)
    a_args, a_kwargs = _unflatten(in_spec, iter(aliases))
    with forward_ctx:
        out = function(*a_args, **a_kwargs)
    flat = []
    out_spec = _flatten(out, flat)
    leaves = _graph_leaves(flat, aliases)
    if not any(o.requires_grad for o in flat):
        return out
    state["leaves"] = leaves
    state["outputs"] = flat
    state["out_meta"] = [_meta(t) for t in flat]
    del out, aliases, a_args, a_kwargs
    results = _NonReentrant.apply(state, *inputs, *leaves)
    return _unflatten(out_spec, iter(results))


def checkpoint(
    function=None,
    *args,
    use_reentrant=None,
    preserve_rng_state=True,
    context_fn=noop_context_fn,
    determinism_check=_DEFAULT_DETERMINISM_MODE,
    debug=False,
    early_stop=True,
    respect_saved_tensors_hooks=None,
    **kwargs,
):
    """``function(*args, **kwargs)`` without keeping its intermediate tensors for backward: backward runs it
    again (from the same RNG state when ``preserve_rng_state``) and differentiates the recomputation.
    ``use_reentrant`` should be passed (a warning says so when it is not; it then defaults to True, as in
    PyTorch); False is the recommended variant. ``context_fn`` returns two context managers, entered around the
    forward and around the recomputation (non-reentrant only)."""
    if function is None and not args:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        options = {
            "use_reentrant": use_reentrant,
            "preserve_rng_state": preserve_rng_state,
            "context_fn": context_fn,
            "determinism_check": determinism_check,
            "debug": debug,
            "early_stop": early_stop,
            "respect_saved_tensors_hooks": respect_saved_tensors_hooks,
        }

        def wrap(fn):
            def checkpointed(*a, **kw):
                return checkpoint(fn, *a, **options, **kw)

            return checkpointed

        return wrap
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a future release, "
            "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, "
            "but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to "
            "docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False or respect_saved_tensors_hooks is not None:
            raise ValueError(
                "Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only supported when "
                "use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in _DETERMINISM_MODES:
        raise ValueError(
            f"determinism_check should be one of {_DETERMINISM_MODES}, but got {determinism_check}"
        )
    return _checkpoint_without_reentrant(
        function, args, kwargs, preserve_rng_state, context_fn, determinism_check
    )


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs ``functions`` (a Sequential or a list of modules/functions) on ``input`` in ``segments`` chunks,
    checkpointing every chunk but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In a future release, we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, you "
            "can pass use_reentrant=True. Refer to docs for more details on the differences between the two "
            "variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    if not isinstance(functions, (list, tuple)) and hasattr(functions, "children"):
        # an nn.Sequential: its layers in order
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)
