"""minitorch.autograd: backward/grad over the C++ engine, grad mode, custom Functions, gradcheck."""

from minitorch import _C
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


def _tensor_or_tensors(x):
    if x is None:
        return []
    if _C._is_tensor(x):
        return [x]
    return list(x)


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
    grads = _make_grads(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        # accumulate only into the given leaves: compute their gradients, then add them to .grad
        inputs = _tensor_or_tensors(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        res = _C._run_backward(tensors, grads, retain_graph, create_graph, inputs, True)
        with no_grad():
            for t, g in zip(inputs, res):
                if g is None:
                    continue
                t.grad = g.clone() if t.grad is None else t.grad + g
        return
    _C._run_backward(tensors, grads, retain_graph, create_graph, [], False)


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
    outputs = _tensor_or_tensors(outputs)
    _C._is_tensor(inputs)
    inputs = _tensor_or_tensors(inputs)
    grads = _make_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    res = _C._run_backward(outputs, grads, retain_graph, create_graph, inputs, allow_unused)
    if materialize_grads:
        import minitorch

        res = tuple(minitorch.zeros_like(i) if g is None else g for i, g in zip(inputs, res))
    return tuple(res)


__all__ = [
    "Function",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "no_grad",
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
