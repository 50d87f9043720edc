"""torch.autograd.graph: hooks on saved tensors, the Node interface of grad_fn objects, gradient edges,
multi-tensor gradient hooks and version bumps, over the C++ graph."""

from __future__ import annotations

import abc
import contextlib
import functools
import threading
from collections import defaultdict
from typing import NamedTuple

from minitorch import _C
from minitorch.autograd import RemovableHandle
from minitorch.autograd.grad_mode import enable_grad

__all__ = [
    "GradientEdge",
    "Node",
    "allow_mutation_on_saved_tensors",
    "disable_saved_tensors_hooks",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]


class Node(abc.ABC):
    """The interface of autograd graph nodes (the objects ``grad_fn`` returns). Every C++ node passes
    ``isinstance(grad_fn, Node)``; a Python class may also subclass it."""

    @abc.abstractmethod
    def name(self) -> str:
        """The node's name, e.g. ``MulBackward0``."""

    @property
    @abc.abstractmethod
    def next_functions(self):
        """(node, input_nr) of each forward input; (None, 0) for one that needs no gradient."""

    @property
    @abc.abstractmethod
    def metadata(self) -> dict:
        """A dict kept with the node for the user's annotations."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after the node; it may return replacement grad_inputs."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """fn(grad_outputs) runs before the node; it may return replacement grad_outputs."""

    @classmethod
    def __subclasshook__(cls, subclass):
        if cls is Node and subclass is not None and issubclass(subclass, _C.Node):
            return True
        return NotImplemented


def _get_grad_fn_or_grad_acc(t):
    if isinstance(t, GradientEdge):
        return t.node
    if t.requires_grad and t.grad_fn is None:
        # a leaf's AccumulateGrad, reached through a throwaway view (as PyTorch does)
        with enable_grad():
            node = t.view_as(t).grad_fn.next_functions[0][0]
    else:
        node = t.grad_fn
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


class GradientEdge(NamedTuple):
    """Where a tensor's gradient is computed: the node and which of its inputs (``output_nr``)."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The gradient edge of ``tensor``: its grad_fn and output_nr, or its leaf's AccumulateGrad."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require gradients",
        )
    # C++ nodes are owned by the graph's shared pointers, which the Python object holds: no token needed.
    return GradientEdge(_get_grad_fn_or_grad_acc(tensor), tensor.output_nr)


def increment_version(tensor) -> None:
    """Marks ``tensor`` (or each tensor of an iterable) as modified in place, for the saved-tensor checks of
    backward; an inference tensor has no version counter and is left alone."""
    if isinstance(tensor, _C.Tensor):
        tensor = (tensor,)
    _C._increment_version(list(tensor))


class saved_tensors_hooks:
    """Context manager: every tensor the graph saves for backward while it is active is passed to
    ``pack_hook(tensor) -> Any`` (under no_grad), and the packed object to ``unpack_hook(packed) -> Tensor``
    when backward (or ``grad_fn._saved_*``) needs it. Nested contexts: the innermost pair applies. The packed
    object must not hold the tensor itself (a reference cycle through the graph, as in PyTorch), and
    pack_hook must not modify its input in place."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _C._pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU (pinned, copied asynchronously, with ``pin_memory=True``) and copied
    back to their device when backward needs them."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        import minitorch

        device_module = getattr(minitorch, device_type, minitorch.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            is_pinnable = device_module.is_available() and not tensor.is_sparse
            packed = minitorch.empty(tensor.size(), dtype=tensor.dtype, pin_memory=is_pinnable)
            packed.copy_(tensor, non_blocking=is_pinnable)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """While active, entering saved_tensors_hooks raises RuntimeError(error_message); entering it while hooks
    are active raises the same."""
    maybe_prev_message = None
    try:
        maybe_prev_message = _C._saved_tensors_hooks_get_disabled_error_message()
        _C._saved_tensors_hooks_disable(error_message)
        yield
    finally:
        if maybe_prev_message is None:
            _C._saved_tensors_hooks_enable()
        else:
            _C._saved_tensors_hooks_disable(maybe_prev_message)


_allow_mutation_on_saved_tensors_enabled = False


class _AllowMutationOnSavedContext:
    """The state of one allow_mutation_on_saved_tensors context: the copies of what its graphs saved."""

    def __init__(self):
        self.cloned: dict = {}

    def clear(self):
        self.cloned.clear()


class _Handle:
    pass


class _swap_with_cloned(saved_tensors_hooks):
    # PyTorch clones a saved tensor lazily, when a TorchDispatchMode sees an in-place op write to it. Ops here
    # go straight to C++ with no Python interception point for in-place writes (any op with out=, the
    # in-place methods, optimizers' fused updates), so the tensor is copied when it is saved: backward sees
    # the values at save time either way, at the cost of one copy per saved tensor while the context lives.
    def __init__(self, ctx):
        def pack_hook(tensor):
            handle = _Handle()
            ctx.cloned[handle] = tensor.clone()
            return handle

        def unpack_hook(handle):
            error_msg = (
                "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                "in which the graph was originally recorded."
            )
            if not _allow_mutation_on_saved_tensors_enabled or handle not in ctx.cloned:
                raise AssertionError(error_msg)
            return ctx.cloned[handle]

        super().__init__(pack_hook, unpack_hook)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which tensors saved for backward may be modified in place: backward uses their
    values at the time they were saved instead of raising. Run both forward and backward inside it; backward
    of a graph recorded in it raises AssertionError once it has exited. Yields the context's state; contexts
    cannot be nested."""
    global _allow_mutation_on_saved_tensors_enabled

    ctx = _AllowMutationOnSavedContext()
    with _swap_with_cloned(ctx):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False


class _MultiHandle(RemovableHandle):
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode="all": fn(grads) runs once per backward pass, after the gradient of every tensor of ``tensors``
    that the pass computes is known (None for the others). mode="any": fn(grad) runs with the first
    gradient of one of them computed in the pass. Returns a handle whose remove() unregisters it."""
    supported_modes = ("all", "any")
    lock = threading.Lock()
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")

    if mode == "all":
        count: dict = {}
        nb_calls = None
        buffer: dict = {}
        grad_fns = list(map(_get_grad_fn_or_grad_acc, tensors))
        len_tensors = len(tensors)

        def get_inner_hook(idx):
            def inner_hook(grad):
                nonlocal nb_calls
                task = _C._current_graph_task_id()
                if task == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                count[task] = count.get(task, 0)
                buffer[task] = buffer.get(task, [None] * len_tensors)
                with lock:
                    curr_count, count[task] = count[task], count[task] + 1
                    if curr_count == 0:
                        # the tensors this pass reaches, known once it runs
                        nb_calls = sum(map(_C._will_engine_execute_node, grad_fns))
                buffer[task][idx] = grad
                if curr_count == nb_calls - 1:
                    fn(buffer[task])
                    del count[task]
                    del buffer[task]

            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    else:
        ran_hook: dict = defaultdict(bool)

        @functools.wraps(fn)
        def wrapped_fn(grad):
            task = _C._current_graph_task_id()
            if task == -1:
                raise AssertionError("expected this hook to be called inside a backward call")
            with lock:
                prev, ran_hook[task] = ran_hook[task], True
            if prev:
                return
            fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)
