"""torch.cuda.graphs: CUDA graphs with PyTorch's API (CUDAGraph, graph, graph_pool_handle, make_graphed_callables,
is_current_stream_capturing) over minitorch._C._CUDAGraph (csrc/cuda/CUDAGraph.cpp).

A capture records the kernels enqueued on the capturing stream; its memory comes from a private pool of the
caching allocator, so the addresses a replay writes stay the graph's until it is reset. Random ops inside a
capture draw, at each replay, what the same eager calls would draw from the device's generator then."""

import weakref

from minitorch import _C
from minitorch.autograd.engine import grad as _autograd_grad
from minitorch.autograd.function import Function, once_differentiable
from minitorch.cuda.streams import Stream

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]

_CUDAGraph = _C._CUDAGraph


def is_current_stream_capturing():
    """True if CUDA graph capture is underway on the current CUDA stream, False otherwise (False without
    creating a context when CUDA was not initialized; raises, as PyTorch, where CUDA cannot be used)."""
    return _C._cuda_isCurrentStreamCapturing()


def graph_pool_handle():
    """An opaque token (a tuple) naming a new graph memory pool, to share one pool between captures."""
    return tuple(_C._graph_pool_handle())


def _get_pool_id(pool):
    if pool is None:
        return None
    pool = getattr(pool, "id", pool)  # a torch.cuda.MemPool carries its id
    return tuple(pool)


def _synchronize():
    _C._cuda_synchronize(_C._cuda_current_device())


class _on_stream:
    """Makes `stream` (and its device) current for the block, as torch.cuda.stream (the package enclosing this
    module, which imports it)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        s = self.stream
        self.prev_device = _C._cuda_current_device()
        if s.device_index != self.prev_device:
            _C._cuda_set_device(s.device_index)
        self.prev_stream = _C._cuda_current_stream(s.device_index)
        _C._cuda_set_stream(s.device_index, s.cuda_stream)
        return s

    def __exit__(self, *exc):
        _C._cuda_set_stream(self.stream.device_index, self.prev_stream)
        if self.stream.device_index != self.prev_device:
            _C._cuda_set_device(self.prev_device)
        return False


class CUDAGraph(_CUDAGraph):
    """Wrapper around a CUDA graph.

    Arguments:
        keep_graph (bool, optional): If False (default) the graph is instantiated at the end of capture_end and
            the cudaGraph_t destroyed; if True the cudaGraph_t is kept (raw_cuda_graph, debug_dump) and
            instantiated by instantiate() or the first replay().
    """

    def __init__(self, keep_graph=False):
        super().__init__(keep_graph)
        self._keep_graph = keep_graph

    def capture_begin(self, pool=None, capture_error_mode="global", check_input_liveness=False):
        """Begins capturing CUDA work on the current stream (use torch.cuda.graph or make_graphed_callables
        rather than calling this yourself). pool: a token from graph_pool_handle() or another graph's pool(),
        to share that pool. capture_error_mode: "global", "thread_local" or "relaxed" (cudaStreamCaptureMode)."""
        super().capture_begin(pool=_get_pool_id(pool), capture_error_mode=capture_error_mode)

    def capture_end(self):
        """Ends the capture on the current stream; replay() may be called afterwards."""
        super().capture_end()

    def instantiate(self):
        """Instantiates the captured graph (done by capture_end unless keep_graph=True)."""
        super().instantiate()

    def replay(self):
        """Replays the CUDA work captured by this graph on the current stream."""
        super().replay()

    def reset(self):
        """Deletes the graph held by this instance (its pool's memory goes back once no graph uses it)."""
        super().reset()

    def pool(self):
        """An opaque token naming this graph's memory pool, for another capture to share it."""
        return tuple(super().pool())

    def enable_debug_mode(self):
        """Keeps the captured graph (as keep_graph=True) so that debug_dump can write it."""
        super().enable_debug_mode()
        self._keep_graph = True

    def debug_dump(self, debug_path, *, verbose=True):
        """Writes the captured graph to debug_path in Graphviz DOT format (needs keep_graph=True or
        enable_debug_mode() before the capture)."""
        super().debug_dump(debug_path, verbose)

    def raw_cuda_graph(self):
        """The cudaGraph_t as an int (keep_graph=True only)."""
        return super().raw_cuda_graph()

    def raw_cuda_graph_exec(self):
        """The cudaGraphExec_t as an int, once instantiated."""
        return super().raw_cuda_graph_exec()


class graph:
    """Context manager that captures CUDA work into a torch.cuda.CUDAGraph for later replay.

    Arguments:
        cuda_graph (torch.cuda.CUDAGraph): graph object used for capture.
        pool (optional): token from graph_pool_handle() or other_graph.pool(): share that graph's memory pool.
        stream (torch.cuda.Stream, optional): the capture stream; by default a side stream shared by every
            capture of the process (as PyTorch's).
        capture_error_mode (str, optional): "global" (default), "thread_local" or "relaxed".
        enable_annotations, annotation_config, check_input_liveness: PyTorch's profiling and debugging aids
            (they need cuda.bindings / CUPTI there); accepted and ignored.

    The block runs with the capture stream current. An exception inside the block ends the capture, discards
    the graph and propagates unchanged (the graph may be captured again).
    """

    default_capture_stream = None

    def __init__(
        self,
        cuda_graph,
        pool=None,
        stream=None,
        capture_error_mode="global",
        enable_annotations=False,
        annotation_config=None,
        check_input_liveness=False,
    ):
        if stream is None and self.__class__.default_capture_stream is None:
            self.__class__.default_capture_stream = Stream()
        pool_id = _get_pool_id(pool)
        self.pool = () if pool_id is None else (pool_id,)
        self.capture_stream = stream if stream is not None else self.__class__.default_capture_stream
        self.stream_ctx = _on_stream(self.capture_stream)
        self.cuda_graph = cuda_graph
        self.capture_error_mode = capture_error_mode
        self.check_input_liveness = check_input_liveness

    def __enter__(self):
        # free as much memory as we can for the graph; work enqueued before the block is done before capture
        _synchronize()
        _C._cuda_empty_cache()
        self.stream_ctx.__enter__()
        try:
            self.cuda_graph.capture_begin(*self.pool, capture_error_mode=self.capture_error_mode)
        except BaseException:
            self.stream_ctx.__exit__(None, None, None)
            raise

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is not None:
                # the block's error is the one to report; CUDA's follow-up "capture invalidated" is not
                _CUDAGraph._abort_capture(self.cuda_graph)
            else:
                self.cuda_graph.capture_end()
        finally:
            self.stream_ctx.__exit__(exc_type, exc, tb)
        return False


# ---- a minimal pytree (tuples, lists, dicts, namedtuples; anything else is a leaf): minitorch.utils._pytree sits
# above this package (utils.data imports cuda)
def _flatten(obj):
    if isinstance(obj, (list, tuple)):
        leaves, specs = [], []
        for o in obj:
            lv, sp = _flatten(o)
            leaves += lv
            specs.append(sp)
        return leaves, (type(obj), None, specs)
    if isinstance(obj, dict):
        leaves, specs = [], []
        keys = list(obj)
        for k in keys:
            lv, sp = _flatten(obj[k])
            leaves += lv
            specs.append(sp)
        return leaves, (type(obj), keys, specs)
    return [obj], None


def _unflatten(leaves, spec):
    it = iter(leaves)

    def build(sp):
        if sp is None:
            return next(it)
        kind, keys, specs = sp
        items = [build(s) for s in specs]
        if keys is not None:
            return kind(zip(keys, items))
        if kind in (list, tuple):
            return kind(items)
        return kind(*items)  # a namedtuple

    return build(spec)


def _arg_leaves(*args):
    return _flatten(args)[0]


def _is_module(c):
    # nn.Module sits above this package: recognized by what make_graphed_callables uses of it
    return hasattr(c, "_forward_hooks") and hasattr(c, "parameters") and hasattr(c, "buffers")


def make_graphed_callables(
    callables,
    sample_args,
    num_warmup_iters=3,
    allow_unused_input=False,
    pool=None,
    capture_error_mode="global",
    enable_annotations=False,
):
    """Accepts callables (functions or nn.Modules) and returns graphed versions: each one's forward runs its
    forward CUDA work as one CUDA graph replay inside one autograd node, whose backward replays the captured
    backward graph. sample_args: a tuple of Tensors (one callable) or a tuple of such tuples (a tuple of
    callables, captured in that order and sharing one memory pool). PyTorch's rules apply: Tensor arguments
    only, their requires_grad as in the real run, no hooks on modules, buffers without requires_grad, no
    double backward, and the module's training/eval state at call time chooses the graph or the original."""
    if _C._is_autocast_enabled("cuda") and _C._is_autocast_cache_enabled():
        raise RuntimeError(
            "make_graphed_callables does not support the autocast caching. Please set `cache_enabled=False`."
        )
    just_one_callable = False
    if not isinstance(callables, tuple):
        just_one_callable = True
        callables = (callables,)
        sample_args = (sample_args,)

    flatten_sample_args = []
    for c, args in zip(callables, sample_args):
        if _is_module(c):
            hooks = (getattr(c, "_backward_hooks", ()), c._forward_hooks, c._forward_pre_hooks)
            if any(len(h) for h in hooks):
                raise AssertionError(
                    "Modules must not have hooks registered at the time they are passed. However, registering "
                    "hooks on modules after passing them through make_graphed_callables is allowed."
                )
            if not all(b.requires_grad is False for b in c.buffers()):
                raise AssertionError(
                    "In any :class:`~torch.nn.Module` passed to :func:`~make_graphed_callables`, only parameters "
                    "may be trainable. All buffers must have ``requires_grad=False``."
                )
        flatten_arg = _arg_leaves(*args)
        flatten_sample_args.append(tuple(flatten_arg))
        if not all(_C._is_tensor(arg) for arg in flatten_arg):
            raise AssertionError(
                "In the beta API, sample_args for each callable must contain only Tensors. Other types are not "
                "allowed."
            )

    per_callable_len_user_args = [len(args) for args in flatten_sample_args]
    per_callable_module_params = [tuple(c.parameters()) if _is_module(c) else () for c in callables]
    per_callable_static_input_surfaces = [
        flatten_sample_args[i] + per_callable_module_params[i] for i in range(len(callables))
    ]

    fwd_graphs = [CUDAGraph() for _ in range(len(callables))]
    bwd_graphs = [CUDAGraph() for _ in range(len(callables))]
    mempool = graph_pool_handle() if pool is None else _get_pool_id(pool)

    # warm-up (lazy initializations, algorithm searches) on the stream the captures use, outside them
    _synchronize()
    stream = Stream()
    with _on_stream(stream):
        for func, args, static_input_surface in zip(
            callables, sample_args, per_callable_static_input_surfaces
        ):
            grad_inputs, outputs, outputs_grad = None, None, None
            for _ in range(num_warmup_iters):
                outputs = _flatten(func(*args))[0]
                outputs_grad = tuple(o for o in outputs if o.requires_grad)
                if len(outputs_grad) > 0:
                    grad_inputs = _autograd_grad(
                        outputs=outputs_grad,
                        inputs=tuple(i for i in static_input_surface if i.requires_grad),
                        grad_outputs=tuple(_C.empty_like(o) for o in outputs if o.requires_grad),
                        only_inputs=True,
                        allow_unused=allow_unused_input,
                    )
            del outputs, outputs_grad, grad_inputs
    _synchronize()

    # all captures share one pool: capture in the order they will run (fwd 1..N, then bwd N..1)
    per_callable_static_outputs = []
    per_callable_output_unflatten_spec = []
    for func, args, fwd_graph in zip(callables, sample_args, fwd_graphs):
        with graph(fwd_graph, stream=stream, pool=mempool, capture_error_mode=capture_error_mode):
            func_outputs = func(*args)
        flatten_outputs, spec = _flatten(func_outputs)
        per_callable_static_outputs.append(tuple(flatten_outputs))
        per_callable_output_unflatten_spec.append(spec)

    per_callable_static_grad_outputs = []
    per_callable_static_grad_inputs = []
    for static_input_surface, static_outputs, bwd_graph in zip(
        reversed(per_callable_static_input_surfaces),
        reversed(per_callable_static_outputs),
        reversed(bwd_graphs),
    ):
        static_grad_outputs = tuple(_C.empty_like(o) if o.requires_grad else None for o in static_outputs)
        outputs_grad = tuple(o for o in static_outputs if o.requires_grad)
        grad_inputs = None
        if len(outputs_grad) > 0:
            with graph(bwd_graph, stream=stream, pool=mempool, capture_error_mode=capture_error_mode):
                grad_inputs = _autograd_grad(
                    outputs=outputs_grad,
                    inputs=tuple(i for i in static_input_surface if i.requires_grad),
                    grad_outputs=tuple(o for o in static_grad_outputs if o is not None),
                    only_inputs=True,
                    allow_unused=allow_unused_input,
                )
        # one slot per input of the surface: None where it does not require grad
        static_grad_inputs = []
        grad_idx = 0
        for arg in static_input_surface:
            if arg.requires_grad and grad_inputs is not None:
                static_grad_inputs.append(grad_inputs[grad_idx])
                grad_idx += 1
            else:
                static_grad_inputs.append(None)
        per_callable_static_grad_outputs.append(static_grad_outputs)
        per_callable_static_grad_inputs.append(tuple(static_grad_inputs))

    per_callable_static_grad_outputs.reverse()
    per_callable_static_grad_inputs.reverse()

    ret = []
    for i, func in enumerate(callables):
        graphed = _make_graphed_autograd_function(
            fwd_graphs[i],
            bwd_graphs[i],
            per_callable_module_params[i],
            per_callable_len_user_args[i],
            per_callable_output_unflatten_spec[i],
            per_callable_static_input_surfaces[i],
            per_callable_static_outputs[i],
            per_callable_static_grad_outputs[i],
            per_callable_static_grad_inputs[i],
        )
        if _is_module(func):
            func.forward = _make_graphed_forward(func, func.training, graphed, func.forward)
            ret.append(func)
        else:
            ret.append(graphed)
    return ret[0] if just_one_callable else tuple(ret)


def _make_graphed_autograd_function(
    fwd_graph,
    bwd_graph,
    module_params,
    len_user_args,
    output_unflatten_spec,
    static_input_surface,
    static_outputs,
    static_grad_outputs,
    static_grad_inputs,
):
    # the graphs go through apply, not a closure of the class, so dropping the callable frees them at once
    graphs = (fwd_graph, bwd_graph)

    class Graphed(Function):
        @staticmethod
        def forward(ctx, graphs, *inputs):
            fwd, bwd = graphs
            ctx.bwd_graph = bwd
            # only the user's arguments may be new tensors: copy them into the captured inputs
            for i in range(len_user_args):
                if static_input_surface[i].data_ptr() != inputs[i].data_ptr():
                    static_input_surface[i].copy_(inputs[i])
            fwd.replay()
            return tuple(o.detach() for o in static_outputs)

        @staticmethod
        @once_differentiable
        def backward(ctx, *grads):
            if len(grads) != len(static_grad_outputs):
                raise AssertionError(
                    f"len(grads)={len(grads)} != len(static_grad_outputs)={len(static_grad_outputs)}"
                )
            for g, grad in zip(static_grad_outputs, grads):
                if g is not None and grad is not None and g.data_ptr() != grad.data_ptr():
                    g.copy_(grad)
            ctx.bwd_graph.replay()
            return (None,) + tuple(b.detach() if b is not None else b for b in static_grad_inputs)

    def functionalized(*user_args):
        flatten_user_args = _arg_leaves(*user_args)
        out = Graphed.apply(graphs, *(tuple(flatten_user_args) + module_params))
        return _unflatten(out, output_unflatten_spec)

    return functionalized


def _make_graphed_forward(func, graph_training_state, graphed, orig_fwd):
    # held weakly: the closure is installed as func.forward, and a cycle through it would leave the graphs to
    # the cyclic collector
    func_ref = weakref.ref(func)
    orig_bound_to_func = getattr(orig_fwd, "__self__", None) is func
    orig_call = orig_fwd.__func__ if orig_bound_to_func else orig_fwd

    def new_fwd(*user_args, **user_kwargs):
        module = func_ref()
        if module is None:
            raise RuntimeError("the graphed module has been freed; its forward cannot be called on its own")
        # the graphs hold the training-or-eval behaviour they were captured in; the other runs the original
        if module.training == graph_training_state:
            return graphed(*user_args, **user_kwargs)
        if orig_bound_to_func:
            return orig_call(module, *user_args, **user_kwargs)
        return orig_call(*user_args, **user_kwargs)

    return new_fwd
