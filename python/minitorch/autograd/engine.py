"""backward() and grad(): the Python entry points of the C++ backward engine (csrc/autograd/engine.cpp)."""

import sys
import threading

from minitorch import _C
from minitorch.autograd import anomaly_mode
from minitorch.autograd.grad_mode import set_grad_enabled

# Whether the backward pass running on this thread accumulates into every leaf (plain backward) rather than
# computing the gradients of chosen inputs (grad(), backward(inputs=)): the reentrant checkpoint needs the former.
_state = threading.local()


def _is_checkpoint_valid():
    return getattr(_state, "checkpoint_valid", True)


def _callback_stack():
    stack = getattr(_state, "callbacks", None)
    if stack is None:
        stack = _state.callbacks = []
    return stack


def _run_backward(checkpoint_valid, *args, _engine=None):
    """A pass of the C++ engine (`_engine`: _C._run_backward, or forward AD's _C._run_backward_dual) with the
    anomaly hooks, checkpoint flag and queued callbacks around it."""
    prev = _is_checkpoint_valid()
    _state.checkpoint_valid = checkpoint_valid
    hooks = anomaly_mode.nan_hooks(args[0])
    # the C++ engine runs a pass on the calling thread, so a thread-local stack scopes the callbacks that
    # hooks queue to the pass (nested passes from hooks get their own entry)
    stack = _callback_stack()
    callbacks = []
    stack.append(callbacks)
    try:
        res = (_engine or _C._run_backward)(*args)
        # as PyTorch: after the pass, in order; a callback may queue more, which run in the same loop
        i = 0
        while i < len(callbacks):
            callbacks[i]()
            i += 1
        return res
    finally:
        stack.pop()
        for h in hooks:
            h.remove()
        _state.checkpoint_valid = prev


class _ImperativeEngine:
    """``Variable._execution_engine``: the engine object old code and libraries reach for, mostly to queue a
    callback that runs once the backward pass in progress finishes."""

    def queue_callback(self, callback):
        stack = _callback_stack()
        if not stack:
            raise RuntimeError("Final callbacks can only be installed during backward pass.")
        stack[-1].append(callback)

    def run_backward(
        self,
        tensors,
        grad_tensors,
        keep_graph,
        create_graph,
        inputs=(),
        allow_unreachable=True,
        accumulate_grad=True,
    ):
        """The engine's raw entry: accumulate into the leaves (accumulate_grad) or return the gradients of
        ``inputs``."""
        tensors = list(tensors)
        if accumulate_grad:
            if inputs:
                backward(tensors, list(grad_tensors), keep_graph, create_graph, inputs=list(inputs))
                return ()
            _run_backward(True, tensors, list(grad_tensors), keep_graph, create_graph, [], False)
            return ()
        return tuple(
            _run_backward(
                False, tensors, list(grad_tensors), keep_graph, create_graph, list(inputs), allow_unreachable
            )
        )

    def is_checkpoint_valid(self):
        return _is_checkpoint_valid()


def _is_edge(x):
    # a torch.autograd.graph.GradientEdge (a NamedTuple; graph.py sits above this module)
    return isinstance(x, tuple) and hasattr(x, "node") and hasattr(x, "output_nr")


def _tensor_or_tensors(x):
    if x is None:
        return []
    if _C._is_tensor(x) or _is_edge(x) or type(x).__name__ == "BatchedTensor":
        return [x]
    return list(x)


def _edges_as_tensors(xs):
    return [_C._tensor_for_edge(x.node, x.output_nr) if _is_edge(x) else x for x in xs]


def _forward_ad():
    """minitorch.func._forward_ad once loaded (dual tensors exist only then): gradients of dual tensors go through
    it, forward AD over the backward pass. It sits above autograd (docs/architecture.md), so it is looked up."""
    return sys.modules.get("minitorch.func._forward_ad")


def _make_grads(outputs, grad_outputs):
    grads = _tensor_or_tensors(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"grad requires one grad_output per output: got {len(grads)} grad_outputs for {len(outputs)} outputs"
        )
    return grads


def backward(
    tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None
):
    """Accumulates the gradients of `tensors` into the .grad of the leaves of their graph."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _tensor_or_tensors(tensors)
    cls = _autograd_subclass(tensors) if len(tensors) == 1 else None
    if cls is not None:  # its backward (MaskedTensor's masks the leaves' gradients)
        tensors[0].backward(None if grad_tensors is None else _tensor_or_tensors(grad_tensors)[0], retain_graph,
                            create_graph, inputs)  # fmt: skip
        return
    grads = _make_grads(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    bt = sys.modules.get("minitorch.func._batched")
    if bt is not None and bt.STATE.transform_depth:
        raise RuntimeError(
            "backward() called inside a functorch transform. This is not supported, please use functorch.grad or "
            "functorch.vjp instead or call backward() outside of functorch transforms."
        )
    fad = _forward_ad()
    if fad is not None and fad.holds_dual(tensors + grads + _tensor_or_tensors(inputs)):
        fad.autograd_backward(
            tensors, grads, retain_graph, create_graph, None if inputs is None else _tensor_or_tensors(inputs)
        )
        return
    if inputs is not None:
        # accumulate only into the given leaves: compute their gradients, then add them to .grad
        inputs = _tensor_or_tensors(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        res = _run_backward(False, tensors, grads, retain_graph, create_graph, inputs, True)
        # with create_graph the accumulated gradient keeps its graph (PyTorch's AccumulateGrad), else it is detached
        with set_grad_enabled(create_graph):
            for t, g in zip(inputs, res):
                if g is None:
                    continue
                t.grad = (g if create_graph else g.clone()) if t.grad is None else t.grad + g
        return
    _run_backward(True, tensors, grads, retain_graph, create_graph, [], False)


def _autograd_subclass(*groups):
    """The Tensor subclass among the arguments whose __torch_function__ takes autograd.grad (MaskedTensor's, whose
    gradients are masked), while subclasses' handlers are on: PyTorch's grad goes through handle_torch_function.
    Only classes that ask (_mt_autograd_torch_function) are handed the call: the transforms' subclasses run
    their own gradient paths below."""
    if _C._torch_function_state() != 0:
        return None
    for g in groups:
        for t in g if isinstance(g, (list, tuple)) else (g,):
            if getattr(type(t), "_mt_autograd_torch_function", False):
                return type(t)
    return None


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """The gradients of `outputs` with respect to `inputs` (a tuple), without touching any .grad."""
    cls = _autograd_subclass(outputs, inputs, grad_outputs)
    if cls is not None:
        kwargs = {
            "grad_outputs": grad_outputs, "retain_graph": retain_graph, "create_graph": create_graph,
            "only_inputs": only_inputs, "allow_unused": allow_unused, "is_grads_batched": is_grads_batched,
            "materialize_grads": materialize_grads,
        }  # fmt: skip
        return cls.__torch_function__(grad, (cls,), (outputs, inputs), kwargs)
    outputs = _edges_as_tensors(_tensor_or_tensors(outputs))
    if not _is_edge(inputs):
        _C._is_tensor(inputs)
    inputs = _edges_as_tensors(_tensor_or_tensors(inputs))
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _make_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        return _grad_batched(
            outputs, inputs, grads, retain_graph, create_graph, allow_unused, materialize_grads
        )
    _check_transform_outputs(outputs)
    fad = _forward_ad()
    if fad is not None and fad.holds_dual(outputs + inputs + grads):
        return fad.autograd_grad(
            outputs, inputs, grads, retain_graph, create_graph, allow_unused, materialize_grads
        )
    res = _run_backward(False, outputs, grads, retain_graph, create_graph, inputs, allow_unused)
    if materialize_grads:
        res = tuple(_C.zeros_like(i) if g is None else g for i, g in zip(inputs, res))
    return tuple(res)


def _check_transform_outputs(outputs):
    """autograd.grad of a value a functorch transform made (vmap's batched tensor, func.jvp's dual) inside it:
    PyTorch's autograd sees such a wrapper as not requiring grad, so it refuses in those words."""
    bt = sys.modules.get("minitorch.func._batched")
    if bt is None or not bt.STATE.transform_depth:
        return
    fad = _forward_ad()
    for i, o in enumerate(outputs):
        if type(o) is bt.BatchedTensor or (fad is not None and fad.functorch_dual(o)):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def _grad_batched(outputs, inputs, grads, retain_graph, create_graph, allow_unused, materialize_grads):
    """grad(is_grads_batched=True): one backward pass per entry of the grad_outputs' first dimension, the results
    stacked (PyTorch vmaps the pass; the values are the same). PyTorch's checks and words."""
    sizes = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None or g.dim() == 0:
            raise ValueError(
                "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is a Tensor of "
                "dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0."
            )
        if tuple(g.shape[1:]) != tuple(o.shape):
            # PyTorch's message shows the first entry's shape less its first dim
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {g[0].shape[1:]} and "
                f"output[{i}] has a shape of {o.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap."
            )
        sizes.append(g.shape[0])
    if len(set(sizes)) > 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sizes} for the mapped dimension"
        )
    n = sizes[0] if sizes else 0
    per = [
        grad(
            outputs,
            inputs,
            [g[b] for g in grads],
            retain_graph=retain_graph if b == n - 1 else True,
            create_graph=create_graph,
            allow_unused=allow_unused,
        )
        for b in range(n)
    ]
    stack = sys.modules["minitorch"].stack  # the namespace's, which serves dual and batched tensors too
    res = []
    for j, inp in enumerate(inputs):
        col = [r[j] for r in per]
        if all(c is None for c in col):
            res.append(_C.zeros_like(inp) if materialize_grads else None)
        else:
            res.append(stack([_C.zeros_like(inp) if c is None else c for c in col]))
    return tuple(res)
