"""torch.compile(mode="reduce-overhead") on CUDA: a compiled graph replayed as a CUDA graph (PyTorch's cudagraph
trees in spirit, one graph per input signature).

Per signature (sizes, strides, dtypes, devices, requires_grad, grad mode): the first call runs eagerly (warm-up:
cuBLAS/cuDNN set-up, lazy allocations); the second captures the graph on copies of the inputs (static input
buffers) and replays it; later calls copy their inputs into those buffers and replay. In training (grad enabled
and an input or parameter requiring grad) the forward and the backward are captured as two graphs through
torch.cuda.make_graphed_callables, so loss.backward() replays the captured backward. Anything that cannot be
captured runs eagerly: CPU inputs, non-tensor inputs, graphs writing into their inputs, outputs aliasing inputs,
and a capture that fails (for example a host sync inside the graph), after one warning.

Outputs: a replay writes the same output buffers each time. Outputs of the previous replay that are still
referenced when the next replay starts get a copy of their values first, so they never change under the user,
unless torch.compiler.cudagraph_mark_step_begin() was called in between: it declares the previous iteration's
outputs dead (PyTorch's meaning), and the replay overwrites them without copying.
"""

import warnings
import weakref

from minitorch import _C
from minitorch.cuda import graphs as _graphs
from minitorch.nn.modules.module import Module

__all__ = ["CUDAGraphRunner", "mark_step_begin"]

_generation = [0]  # bumped by cudagraph_mark_step_begin


def mark_step_begin():
    """A new iteration begins: outputs of earlier replays may be overwritten without being preserved."""
    _generation[0] += 1


def _writes_inputs(gm):
    # an in-place call on a graph input would write the static buffer, not the caller's tensor
    placeholders = {n for n in gm.graph.nodes if n.op == "placeholder"}
    for n in gm.graph.nodes:
        if n.op not in ("call_function", "call_method"):
            continue
        name = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", "")
        if name.endswith("_") and not name.endswith("__") and any(a in placeholders for a in n.args):
            return True
        if "out" in n.kwargs:
            return True
    return False


class _Record:
    __slots__ = ("graph", "graphed", "spec", "static_inputs", "static_outputs")


class CUDAGraphRunner:
    """Calls fn (a compiled GraphModule's forward) through CUDA graphs where it can (see the module docstring)."""

    def __init__(self, fn, gm, warmup_calls=1):
        self.fn = fn
        self.gm = gm
        self.warmup_calls = warmup_calls
        self._mt_kernels = []
        self._seen = {}
        self._records = {}
        self._live = []
        self._live_generation = -1
        self.disabled = _writes_inputs(gm)

    def _key(self, args):
        key = [_C.is_grad_enabled()]
        for a in args:
            if not _C._is_tensor(a) or not a.is_cuda:
                return None
            key.append((tuple(a.shape), tuple(a.stride()), a.dtype, a.device, a.requires_grad))
        return tuple(key)

    def __call__(self, *args):
        key = None if self.disabled or not args else self._key(args)
        if key is None:
            return self.fn(*args)
        rec = self._records.get(key)
        if rec is None:
            n = self._seen.get(key, 0)
            if n < self.warmup_calls:
                self._seen[key] = n + 1
                return self.fn(*args)
            rec = self._record(args)
            if rec is None:
                return self.fn(*args)
            self._records[key] = rec
        self._preserve_live_outputs()
        if rec.graphed is not None:
            out = rec.graphed(*args)
        else:
            for s, a in zip(rec.static_inputs, args):
                if s.data_ptr() != a.data_ptr():
                    s.copy_(a)
            rec.graph.replay()
            out = _graphs._unflatten(
                [o.detach() if _C._is_tensor(o) else o for o in rec.static_outputs], rec.spec
            )
        self._remember(out)
        return out

    def _training(self, args):
        if not _C.is_grad_enabled():
            return False
        return any(a.requires_grad for a in args) or any(p.requires_grad for p in self.gm.parameters())

    def _record(self, args):
        static_inputs = [a.detach().clone().requires_grad_(a.requires_grad) for a in args]
        rec = _Record()
        rec.graph, rec.graphed, rec.static_outputs, rec.spec = None, None, (), None
        rec.static_inputs = static_inputs
        try:
            if self._training(args):
                module = getattr(self.fn, "__self__", None)
                if not isinstance(module, Module):
                    raise RuntimeError("the compiled callable is not a module's forward")
                _graphs.make_graphed_callables(module, tuple(static_inputs), num_warmup_iters=1)
                rec.graphed = module.forward  # the graphed forward make_graphed_callables installed
            else:
                g = _graphs.CUDAGraph()
                with _graphs.graph(g):
                    out = self.fn(*static_inputs)
                leaves, rec.spec = _graphs._flatten(out)
                inputs = {s.untyped_storage().data_ptr() for s in static_inputs}
                if any(_C._is_tensor(o) and o.untyped_storage().data_ptr() in inputs for o in leaves):
                    raise RuntimeError("an output aliases an input")
                rec.graph = g
                rec.static_outputs = tuple(leaves)
        except Exception as e:  # noqa: BLE001  (any capture failure: run eagerly)
            warnings.warn(
                f"torch.compile(mode='reduce-overhead'): skipping CUDA graphs ({type(e).__name__}: {e}); "
                "running eagerly",
                stacklevel=3,
            )
            self.disabled = True
            return None
        return rec

    def _preserve_live_outputs(self):
        if self._live and self._live_generation == _generation[0]:
            for r in self._live:
                t = r()
                if t is not None:
                    t.data = t.detach().clone()
        self._live = []

    def _remember(self, out):
        self._live_generation = _generation[0]
        for o in _graphs._flatten(out)[0]:
            if _C._is_tensor(o):
                try:
                    self._live.append(weakref.ref(o))
                except TypeError:
                    pass
