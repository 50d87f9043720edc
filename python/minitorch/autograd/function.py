"""minitorch.autograd.Function: custom forward/backward in Python, recorded as one node of the C++ graph."""

import functools
import inspect
import sys
from collections import namedtuple

from minitorch import _C
from minitorch.autograd.grad_mode import no_grad


class FunctionCtx:
    """The ctx passed to forward and backward."""

    def save_for_backward(self, *tensors):
        """Keeps tensors for backward (read them there as ctx.saved_tensors); call it at most once in forward."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Keeps tensors for jvp (read them there as ctx.saved_tensors), as PyTorch's ctx.save_for_forward."""
        self._saved_for_forward = tensors

    @property
    def saved_tensors(self):
        """The tensors given to save_for_backward, checked against in-place changes since; in jvp, those given
        to save_for_forward."""
        if getattr(self, "_in_jvp", False) and hasattr(self, "_saved_for_forward"):
            return tuple(self._saved_for_forward)
        saved = getattr(self, "_saved_tensors", None)
        if saved is not None:
            return saved
        if getattr(self, "_recorded", False):
            # outside backward, or after the graph was freed
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after "
                "they have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward."
            )
        return tuple(getattr(self, "to_save", ()))

    def mark_non_differentiable(self, *tensors):
        """Declares outputs that get no gradient (for example integer indices)."""
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        """Declares inputs that forward modified in place (and returns): they take this function's history."""
        self._dirty = tensors

    def set_materialize_grads(self, value):
        """Whether backward receives zero tensors (True, the default) or None for outputs without a gradient."""
        self.materialize_grads = value


_EXTENDING_FUNC = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _check_functorch_support(cls, bt):
    """PyTorch's refusals of a user's Function under a torch.func transform (vmap, grad, vjp, jvp and the
    Jacobians over them): the ctx-first style has no setup_context for the transforms to call, and under vmap a
    Function needs a vmap staticmethod or generate_vmap_rule=True, whether or not its inputs are batched (under
    jacfwd and hessian too: PyTorch runs them as vmap over jvp). The library's own Functions stand for PyTorch's
    C++ ops, which need neither, and are not checked."""
    if not cls._setup_context_style():
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it "
            f"must override the setup_context staticmethod. {_EXTENDING_FUNC}"
        )
    if (
        (bt.STATE.levels or bt.STATE.jacfwd_depth)
        and cls.vmap is Function.vmap
        and not cls.generate_vmap_rule
    ):
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please override and "
            f"implement the vmap staticmethod or set generate_vmap_rule=True. {_EXTENDING_FUNC}"
        )


VmapInfo = namedtuple("VmapInfo", ["batch_size", "randomness"])
VmapInfo.__doc__ = (
    "What a Function's vmap staticmethod learns of the vmap it runs under (PyTorch's VmapInfo)."
)


class Function:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads); call with Subclass.apply(*args).

    PyTorch 2's other style is supported too: forward(*args) without ctx plus a setup_context(ctx, inputs,
    output) staticmethod that saves what backward/jvp need; setup_context's inputs are forward's arguments bound
    to its parameters, defaults filled in, as PyTorch's. Keyword arguments of apply go to forward."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """Computes the outputs from the inputs; override it (a staticmethod taking ctx first, or, with
        setup_context overridden, taking the inputs only)."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Called after a ctx-less forward with the inputs (a tuple) and forward's output: saves what backward and
        jvp need on ctx. Override it together with a forward that takes no ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    # with True, vmap runs forward on the batched inputs (its ops batch themselves), and where gradients are
    # recorded, forward and backward under vmap on the underlying tensors (_apply_generated_vmap); a user's
    # Function with neither this nor a vmap staticmethod is refused under vmap, as PyTorch refuses it
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """The batching rule under torch.func.vmap: receives a VmapInfo (batch_size, randomness), each input's
        batch dim (None for unbatched inputs; minitorch passes batched inputs with their batch dim at 0) and the
        inputs, returns (output, out_dims) with the output's batch dims (None for an unbatched output)."""
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod or set "
            "generate_vmap_rule=True."
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Returns one gradient per forward input (None where there is none); override it."""
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Returns the tangent of each forward output from the tangents of the inputs (forward-mode AD);
        override it to use the function under torch.autograd.forward_ad or torch.func.jvp."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @classmethod
    def _setup_context_style(cls):
        return cls.setup_context is not Function.setup_context

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward without recording and records one graph node whose backward is this class's; with dual
        tensors among the inputs, the outputs get the tangents of this class's jvp."""
        bt = sys.modules.get("minitorch.func._batched")
        if bt is not None and bt.STATE.transform_depth and not cls.__module__.startswith("minitorch."):
            _check_functorch_support(cls, bt)
        if cls._setup_context_style():
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        # no dual tensor exists before forward AD's module is loaded (and importing it here would circle)
        fad = sys.modules.get("minitorch.func._forward_ad")
        if fad is None or not fad._has_dual(args, None):
            level = bt._max_level(args, kwargs) if bt is not None else -1
            if level >= 0 and cls.vmap is not Function.vmap and not cls.generate_vmap_rule:
                return cls._apply_vmap(bt, level, args, kwargs)
            if level >= 0 and cls.generate_vmap_rule and _records_batched(bt, args):
                return _apply_generated_vmap(cls, bt, level, args)
            return cls._apply(FunctionCtx(), args, kwargs)
        level = fad._max_level(args, {})
        tangents = {}
        pargs = tuple(fad._unwrap(a, level, tangents, i) for i, a in enumerate(args))
        ctx = FunctionCtx()
        if tangents:
            ctx._keep_for_dual = True  # _apply keeps the saved tensors and forward's outputs (fad's record)
        out = cls._apply(ctx, pargs, kwargs)
        if not tangents:
            return out
        # PyTorch materializes the tangent of a tensor input that has none as zeros; None for the others
        tans = [
            tangents[i] if i in tangents else (_C.zeros_like(a) if _C._is_tensor(a) else None)
            for i, a in enumerate(pargs)
        ]
        ctx._in_jvp = True
        try:
            tan = cls.jvp(ctx, *tans)
        finally:
            ctx._in_jvp = False
        if isinstance(out, tuple) and not isinstance(tan, tuple):
            tan = (tan,)
        fad._record_function(cls, ctx, pargs, tangents, tan, level)
        return fad._attach(out, tan, level)

    @classmethod
    def _apply_vmap(cls, bt, level, args, kwargs):
        """The class's own vmap staticmethod on the batched values (batch dim 0) of the innermost vmap level;
        its outputs batched again at their out_dims."""
        lvl = bt.level_of(level)
        batched = [type(a) is bt.BatchedTensor and a._level == level for a in args]
        in_dims = tuple(0 if b else None for b in batched)
        values = tuple(a._value if b else a for a, b in zip(args, batched))
        out, out_dims = cls.vmap(VmapInfo(lvl.size, lvl.randomness), in_dims, *values, **kwargs)

        def rewrap(o, d):
            if d is None or not bt.is_tensor_like(o):
                return o
            return bt.BatchedTensor(o.movedim(d, 0) if d != 0 else o, level)

        if isinstance(out, tuple):
            dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(out)
            return tuple(rewrap(o, d) for o, d in zip(out, dims))
        return rewrap(out, out_dims)

    @classmethod
    def _apply(cls, ctx, args, kwargs):
        ctx.needs_input_grad = tuple(_C._is_tensor(a) and a.requires_grad for a in args)
        with no_grad():
            if cls._setup_context_style():
                out = cls.forward(*args)
                cls.setup_context(ctx, tuple(args), out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        if not (_C.is_grad_enabled() and any(ctx.needs_input_grad)):
            return out
        is_tuple = isinstance(out, tuple)
        outs = out if is_tuple else (out,)
        tensor_pos = [i for i, o in enumerate(outs) if _C._is_tensor(o)]
        to_save = list(getattr(ctx, "to_save", ()))
        ctx.to_save = ()
        ctx._recorded = True
        if getattr(ctx, "_keep_for_dual", False):
            ctx._dual_keep = (tuple(to_save), tuple(outs[i] for i in tensor_pos))
        recorded = _C._function_record(
            cls.__name__ + "Backward",
            cls.backward,
            ctx,
            list(args),
            [outs[i] for i in tensor_pos],
            to_save,
            list(getattr(ctx, "_non_differentiable", ())),
            list(getattr(ctx, "_dirty", ())),
        )
        result = list(outs)
        for i, t in zip(tensor_pos, recorded):
            result[i] = t
        return tuple(result) if is_tuple else result[0]


def _physical(bt, a):
    while type(a) is bt.BatchedTensor:
        a = a._value
    return a


def _records_batched(bt, args):
    """Whether a generate_vmap_rule Function applied to BatchedTensors must record a node for autograd: some
    batched input's underlying tensor requires grad (vmap over grad/vjp/jacrev, or a vmapped function
    differentiated afterwards)."""
    return _C.is_grad_enabled() and any(
        type(a) is bt.BatchedTensor and _physical(bt, a).requires_grad for a in args
    )


_CTX_INTERNALS = frozenset(
    ("to_save", "_non_differentiable", "_dirty", "needs_input_grad", "materialize_grads")
)


def _apply_generated_vmap(cls, bt, level, args):
    """PyTorch's generated vmap rule: Foo applied to inputs batched at `level` is VmappedFoo applied to their
    underlying tensors (batch dim 0), where VmappedFoo's forward is vmap(Foo's forward + setup_context) and its
    backward is vmap(Foo's backward) over the gradients and what setup_context saved. The node is recorded on the
    underlying tensors, so gradients flow to them however long after this vmap returned backward runs (an outer
    level's BatchedTensors among them nest the rule again)."""
    lvl = bt.level_of(level)
    in_dims = tuple(0 if type(a) is bt.BatchedTensor and a._level == level else None for a in args)
    values = tuple(a._value if d == 0 else a for a, d in zip(args, in_dims))
    out = _VmappedFunction.apply(cls, in_dims, lvl.randomness, *values)
    if isinstance(out, tuple):
        # an outer level's outputs are BatchedTensors themselves
        return tuple(bt.BatchedTensor(o, level) if bt.is_tensor_like(o) else o for o in out)
    return bt.BatchedTensor(out, level)


class _VmappedFunction(Function):
    """forward(ctx, fn, in_dims, randomness, *values): fn's forward and setup_context under vmap(in_dims);
    backward: fn's backward under vmap, gradients of unbatched inputs summed over the batch. Nested vmap levels
    apply it again (generate_vmap_rule), the outer level's BatchedTensors among its values."""

    generate_vmap_rule = True

    @staticmethod
    def forward(ctx, fn, in_dims, randomness, *values):
        # read at run time (minitorch.func imports this module; it is loaded whenever a vmap runs)
        vmap = sys.modules["minitorch.func"].vmap

        bt = sys.modules["minitorch.func._batched"]
        state = {}
        # a nested level's ctx is made by the outer level's run, which passes on its own
        needs_input_grad = getattr(ctx, "needs_input_grad", (False,) * (3 + len(values)))[3:]

        def run(*vals):
            inner = FunctionCtx()
            inner.needs_input_grad = needs_input_grad
            if fn._setup_context_style():
                out = fn.forward(*vals)
                fn.setup_context(inner, tuple(vals), out)
            else:
                out = fn.forward(inner, *vals)
            level = bt.STATE.levels[-1].id
            outs = out if isinstance(out, tuple) else (out,)
            saved = tuple(getattr(inner, "to_save", ()))
            # what setup_context saved, as tensors outside this vmap: batched ones by their value (batch dim 0)
            state["saved"] = tuple(
                s._value if type(s) is bt.BatchedTensor and s._level == level else s for s in saved
            )
            state["saved_dims"] = tuple(
                0 if type(s) is bt.BatchedTensor and s._level == level else None for s in saved
            )
            nondiff = getattr(inner, "_non_differentiable", ())
            state["nondiff"] = [i for i, o in enumerate(outs) if any(o is n for n in nondiff)]
            state["attrs"] = {k: v for k, v in vars(inner).items() if k not in _CTX_INTERNALS}
            return out

        out = vmap(run, in_dims=in_dims, out_dims=0, randomness=randomness)(*values)
        outs = out if isinstance(out, tuple) else (out,)
        ctx.fn, ctx.in_dims, ctx.randomness = fn, in_dims, randomness
        ctx.saved_dims, ctx.attrs = state["saved_dims"], state["attrs"]
        ctx.inner_needs_input_grad = needs_input_grad
        ctx.save_for_backward(*state["saved"])
        if state["nondiff"]:
            ctx.mark_non_differentiable(*(outs[i] for i in state["nondiff"]))
        return out

    @staticmethod
    def backward(ctx, *grads):
        vmap = sys.modules["minitorch.func"].vmap

        fn, in_dims = ctx.fn, ctx.in_dims
        saved = ctx.saved_tensors
        n = len(grads)
        present = []

        def run(*flat):
            inner = FunctionCtx()
            inner.__dict__.update(ctx.attrs)
            inner.needs_input_grad = ctx.inner_needs_input_grad
            inner.to_save = flat[n:]
            res = fn.backward(inner, *flat[:n])
            res = res if isinstance(res, tuple) else (res,)
            present[:] = [i for i, r in enumerate(res) if r is not None]
            return tuple(res[i] for i in present)

        grad_dims = tuple(0 if g is not None else None for g in grads)
        res = vmap(run, in_dims=grad_dims + tuple(ctx.saved_dims), out_dims=0, randomness=ctx.randomness)(
            *grads, *saved
        )
        result = [None] * len(in_dims)
        for i, g in zip(present, res):
            # an unbatched input was used by every batch entry: its gradient is their sum
            result[i] = g if in_dims[i] == 0 else g.sum(0)
        return (None, None, None, *result)


_ONCE_DIFFERENTIABLE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _DelayedError(Function):
    """The node behind once_differentiable's outputs when its backward ran where a graph is recorded: the outputs
    alias the values, and differentiating through them raises (PyTorch's DelayedError)."""

    @staticmethod
    def forward(ctx, *values):
        return tuple(v.detach() for v in values)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(_ONCE_DIFFERENTIABLE)


def once_differentiable(fn):
    """Decorates a Function's backward that is not itself differentiable: it runs without recording (forward-mode
    tangents still flow through it, as in PyTorch), and under create_graph with inputs that require grad its
    results raise when differentiated again."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled() or not any(_C._is_tensor(a) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        pos = [
            i for i, o in enumerate(outs) if _C._is_tensor(o) and (o.is_floating_point() or o.is_complex())
        ]
        if not pos:
            return outputs
        # the values enter _DelayedError as if they required grad, so its node is recorded
        vals = [outs[i].detach().requires_grad_() for i in pos]
        wrapped = _DelayedError.apply(*vals)
        res = list(outs)
        for i, w in zip(pos, wrapped):
            res[i] = w
        return res[0] if single else tuple(res)

    return wrapper
