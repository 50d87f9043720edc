"""torch.fx.experimental.proxy_tensor.make_fx: a function or module traced, on example inputs, into a GraphModule
of the operations it ran, every module call inlined.

What differs from PyTorch, by design: PyTorch traces below autograd, at the ATen dispatcher, so its graph holds
``torch.ops.aten.<op>.<overload>`` calls (``aten.addmm`` for a Linear layer) with its decompositions applied.
minitorch has no dispatcher below its Python API: make_fx traces with the torch.compile capture tracer
(minitorch._dynamo.capture), which records each minitorch function and Tensor method called on the inputs
(``torch.nn.functional.linear``, ``sin``, ``add``), computing each on the real values as it goes. So:

- the graph holds minitorch's own ops (the calls the program made, with modules inlined and their parameters
  read with get_attr), not ATen ops; ``decomposition_table`` maps an op to a Python function traced in its place:
  a ``torch.ops.aten.<op>[.<overload>]`` key applies to every call of the op of that name (function, method or
  functional spelling; our ops carry ATen's names, and overloads are not told apart), a function key to the
  calls of that function;
- tracing_mode="fake" traces on the real inputs (there are no fake tensors); "symbolic" keeps sizes symbolic in
  the graph where the code does not branch on them, and specializes the graph to the example's sizes where it does
  (PyTorch would add guards);
- as in PyTorch, the placeholders are named after the function's parameters (``x_1``; ``arg0_1`` for a module
  or a function with ``*args``), non-tensor arguments are placeholders whose example value is baked into the
  graph. Reading a tensor's value in Python: in "real" mode ``.tolist()`` gives the example's values, baked into
  the graph as constants, while ``.item()``, ``float(t)`` and ``if t.sum() > 0`` raise; in "fake" and
  "symbolic" mode ``.item()`` and ``.tolist()`` are recorded in the graph (PyTorch's ``_local_scalar_dense``), so
  the graph reads each call's values, and branching on them raises.
"""

import functools
import inspect

from minitorch import _C
from minitorch._dynamo.capture import CaptureTracer, GraphBreak, capture
from minitorch.fx import Proxy, Tracer
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter
from minitorch.utils import _pytree as pytree

__all__ = ["make_fx"]

_DATA_DEPENDENT = (
    "It appears that you're trying to get value out of a tracing tensor with aten._local_scalar_dense.default - "
    "erroring out! It's likely that this is caused by data-dependent control flow or similar.  It may be possible "
    "to trace this with dynamic shapes; try setting tracing_mode='symbolic' in your make_fx call."
)
# (the last: the capture's own .item() break, which meets a traced .item() before _evaluate does)
_DATA_BREAKS = (
    "Data-dependent branching",
    "Unsupported Tensor.item() call",
    "Data-dependent index",
    "Unsupported Tensor.item() call with capture_scalar_outputs=False",
)


def _decomposition_keys(table):
    """{function: decomposition} and {op name: decomposition} of a decomposition table: a torch.ops.aten.<op>
    [.<overload>] key applies to every call of an op of that name (our ops carry ATen's names, and one op
    may be reached as a function, a method or a functional spelling); any other key to calls of itself."""
    by_fn, by_name = {}, {}
    for k, v in (table or {}).items():
        public = getattr(k, "_mt_public_name", "")
        if public.startswith("torch.ops.aten."):
            by_name[public.split(".")[3]] = v
        else:
            by_fn[k] = v
    return by_fn, by_name


class _MakeFxTracer(CaptureTracer):
    """The capture tracer with every module traced into (no call_module nodes, as PyTorch's make_fx gives),
    the decompositions applied, and reading a value raising in real mode."""

    decompositions = ({}, {})
    real = True  # values are read at trace time: .tolist() is baked in, .item() raises

    def __init__(self, inputs, specialize=True):
        super().__init__(inputs, specialize=specialize)
        self._decomposing = set()

    def is_leaf_module(self, m, module_qualified_name):
        """No module is a leaf: each is traced into."""
        return False

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """As Tracer's, but a call of an op in decompositions traces the decomposition instead (once: the
        decomposition may call the op itself); .tolist() and .item() as the module docstring says."""
        if kind == "call_method" and target in ("item", "tolist") and isinstance(args[0], Proxy):
            if not self.real:
                # fake/symbolic: the value stays data-dependent, read from the graph's own tensor at each call
                return Tracer.create_proxy(
                    self, kind, target, args, kwargs, name, type_expr, proxy_factory_fn
                )
            if target == "tolist" and not self._mt_passthrough:
                # real mode: PyTorch's proxy tensor gives the traced tensor's values, so the graph holds them
                return self.values[args[0].node].tolist(*args[1:], **kwargs)
        by_fn, by_name = self.decompositions
        decomp = None
        if kind in ("call_function", "call_method") and (by_fn or by_name):
            key = target if isinstance(target, str) else getattr(target, "__name__", None)
            decomp = by_fn.get(target) if kind == "call_function" else None
            decomp = decomp or by_name.get(key)
            if decomp is not None and key not in self._decomposing:
                self._decomposing.add(key)
                try:
                    return decomp(*args, **kwargs)
                finally:
                    self._decomposing.discard(key)
        return super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)

    def _evaluate(self, node):
        super()._evaluate(node)
        if self.real and node.op == "call_method" and node.target in ("item", "_local_scalar_dense"):
            raise GraphBreak(_DATA_BREAKS[1], "")


def _placeholder_names(f, args, flat_counts):
    """PyTorch's placeholder names: <parameter>_1 (then _2... for the leaves of a nested argument) for a Python
    function without *args (keyword-only parameters count), arg<i>_1 otherwise (modules, builtins, *args)."""
    params = None
    code = getattr(f, "__code__", None)
    if code is not None and not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        total = code.co_argcount + code.co_kwonlyargcount
        if total != len(args):
            raise RuntimeError(f"Tracing expected {total} arguments but got {len(args)} concrete arguments")
        params = code.co_varnames[:total]
    names, used = [], set()
    for i, count in enumerate(flat_counts):
        base = params[i] if params is not None else f"arg{i}"
        for _ in range(count):
            n = 1
            while f"{base}_{n}" in used:
                n += 1
            used.add(f"{base}_{n}")
            names.append(f"{base}_{n}")
    return names


def _lift_constants(gm):
    """The tensors the graph reads (get_attr of the traced module's parameters and buffers) as attributes of gm
    itself, named _param_constantN / _tensor_constantN as PyTorch's make_fx names them: the same tensor objects,
    so in-place updates of the module (an optimizer step, BatchNorm's running stats) still show."""
    counts = {"_param_constant": 0, "_tensor_constant": 0}
    lifted = {}
    for node in gm.graph.nodes:
        if node.op != "get_attr":
            continue
        val = gm
        for part in node.target.split("."):
            val = getattr(val, part)
        if not isinstance(val, _C.Tensor):
            continue
        if id(val) not in lifted:
            prefix = "_param_constant" if isinstance(val, Parameter) else "_tensor_constant"
            name = f"{prefix}{counts[prefix]}"
            counts[prefix] += 1
            if isinstance(val, Parameter):
                gm.register_parameter(name, val)
            else:
                gm.register_buffer(name, val)
            lifted[id(val)] = name
        node.target = lifted[id(val)]
    if lifted:
        gm.delete_all_unused_submodules()
        gm.recompile()
    return gm


def _trace(f, args, decompositions, tracing_mode, names=None):
    """make_fx(f)(*args) (names: the placeholders' names instead of PyTorch's defaults, for aot_function)."""
    flat_per_arg = [pytree.tree_flatten(a) for a in args]
    if names is None:
        names = _placeholder_names(f, args, [len(leaves) for leaves, _ in flat_per_arg])
    flat = [leaf for leaves, _ in flat_per_arg for leaf in leaves]
    is_tensor = [isinstance(v, _C.Tensor) for v in flat]

    def rebuild(values):
        # non-tensor leaves are placeholders too, but the function sees their example values (specialized)
        vals = [v if t else orig for v, t, orig in zip(values, is_tensor, flat)]
        out, i = [], 0
        for leaves, spec in flat_per_arg:
            out.append(pytree.tree_unflatten(vals[i : i + len(leaves)], spec))
            i += len(leaves)
        return tuple(out), {}

    tracer_cls = type(
        "MakeFxTracer",
        (_MakeFxTracer,),
        {"decompositions": decompositions, "real": tracing_mode == "real"},
    )
    module = f if isinstance(f, Module) else None
    try:
        try:
            res = capture(f, args, {}, flat, rebuild, names, module=module, specialize=tracing_mode != "symbolic",
                          tracer_cls=tracer_cls)  # fmt: skip
        except GraphBreak as e:
            if not (e.shape_only and tracing_mode == "symbolic"):
                raise
            # the code branches on a size: the graph holds for the example's sizes only
            res = capture(
                f, args, {}, flat, rebuild, names, module=module, specialize=True, tracer_cls=tracer_cls
            )
    except GraphBreak as e:
        if e.title in _DATA_BREAKS:
            raise RuntimeError(_DATA_DEPENDENT) from None
        raise RuntimeError(f"make_fx could not trace {getattr(f, '__name__', f)!r}: {e.reason}") from None
    gm = _lift_constants(res.gm)
    # PyTorch names the class after the function, and "<lambda>" for what it wraps in one (modules, builtins,
    # functions taking *args)
    code = getattr(f, "__code__", None)
    name = f.__name__ if code is not None and not code.co_flags & inspect.CO_VARARGS else "<lambda>"
    cls = type(gm)
    cls.__name__ = cls.__qualname__ = name
    if any(not spec.is_leaf() for _, spec in flat_per_arg):
        # nested arguments: the module takes them as f did (PyTorch generates the flattening into forward)
        flat_forward = cls.forward

        def forward(self, *args):
            return flat_forward(self, *[leaf for a in args for leaf in pytree.tree_flatten(a)[0]])

        cls.forward = forward
    return gm


def make_fx(
    f,
    decomposition_table=None,
    tracing_mode="real",
    _allow_non_fake_inputs=False,
    *,
    pre_dispatch=False,
    record_module_stack=False,
    _allow_fake_constant=False,
    _error_on_data_dependent_ops=True,
    record_stack_traces=False,
    proxy_module_inputs=False,
    _disable_torch_fn_metadata_mode=False,
    dynamic_shapes=None,
):
    """make_fx(f)(*args): a GraphModule of the ops f runs on args (see the module docstring: minitorch's ops,
    not ATen's). tracing_mode: "real", "fake" (the same here) or "symbolic"; decomposition_table: {op: fn}.
    The other flags tune PyTorch's dispatcher-level tracing (pre_dispatch, module stacks, stack traces, fake
    constants) and are accepted without effect here."""
    if tracing_mode not in ("real", "fake", "symbolic"):
        raise AssertionError(f"tracing_mode must be real/fake/symbolic, got {tracing_mode}")
    decompositions = _decomposition_keys(decomposition_table)

    @functools.wraps(f)
    def wrapped(*args):
        return _trace(f, args, decompositions, tracing_mode)

    return wrapped
