"""functorch.compile: ahead-of-time autograd (aot_function, aot_module, aot_module_simplified,
memory_efficient_fusion, nnc_jit), the compilers PyTorch ships for it (nop, print_compile, ts_compile, ...) and
its config module (torch._functorch.config: PyTorch's flags, accepted, read by nothing here).

aot_function(fn, fw_compiler, bw_compiler) traces fn on its first call's inputs with make_fx, hands the forward
GraphModule to fw_compiler (to inference_compiler when no input needs a gradient), runs what it returns on every
later call, and on the first backward hands a backward GraphModule to bw_compiler. The outputs carry a
``CompiledFunctionBackward`` grad_fn, as PyTorch's do. Compilers get and may return a GraphModule; a callable
marked by make_boxed_func is called with one list of inputs.

What differs from PyTorch, by design (minitorch has no ATen dispatcher to trace through autograd with):
- the graphs hold minitorch's ops, not ATen's (see fx.experimental.proxy_tensor);
- there is no joint graph to partition: the forward graph ``forward(primals_1, ...)`` returns the outputs only
  and keeps no activations; the backward graph ``forward(primals_1, ..., tangents_1, ...)`` recomputes the
  forward under autograd and differentiates it (one ``recompute_vjp`` node over the forward graph, which it
  holds as the submodule ``forward_graph``): full rematerialization, what min_cut_rematerialization_partition
  tends to for cheap ops. partition_fn is accepted and not called; default_partition and
  min_cut_rematerialization_partition split a joint graph built otherwise (the latter by always recomputing);
- decompositions apply while tracing the forward (keys: minitorch functions or torch.ops.aten names), and
  default_decompositions is empty (our ops are not ATen ops with backward ops to decompose);
- a compiled function is cached per input structure, per whether a gradient is needed, and per the inputs'
  shapes (ranks when dynamic=True), dtypes, devices and non-tensor values, which the graphs are specialized to
  (PyTorch keeps the first compilation whatever comes later, which fails or misleads on other shapes); double
  backward through it is not supported, as in PyTorch.
"""

import copy
import functools
import operator
import os

from minitorch import _C, overrides
from minitorch._functorch import config
from minitorch.autograd import grad_mode
from minitorch.autograd.engine import grad as _autograd_grad
from minitorch.autograd.function import Function
from minitorch.func._functional_call import functional_call as _functional_call
from minitorch.fx import Graph, GraphModule, Node
from minitorch.fx.experimental.proxy_tensor import _decomposition_keys, _trace
from minitorch.fx.passes import graph_drawer
from minitorch.nn.modules.module import Module
from minitorch.utils import _pytree as pytree

__all__ = [
    "aot_function",
    "aot_module",
    "aot_module_simplified",
    "compiled_function",
    "compiled_module",
    "config",
    "default_decompositions",
    "default_partition",
    "draw_graph",
    "draw_graph_compile",
    "get_aot_compilation_context",
    "get_aot_graph_name",
    "get_graph_being_compiled",
    "make_boxed_compiler",
    "make_boxed_func",
    "memory_efficient_fusion",
    "min_cut_rematerialization_partition",
    "nnc_jit",
    "nop",
    "print_compile",
    "ts_compile",
]

default_decompositions = {}


# ---- boxed calling convention
def make_boxed_func(f):
    """f as a function of one list of arguments (marked ``_boxed_call``), the convention aot_function calls a
    compiled graph with when it is so marked."""

    @functools.wraps(f)
    def g(args):
        return f(*args)

    g._boxed_call = True
    return g


def make_boxed_compiler(compiler):
    """A compiler returning make_boxed_func of what compiler returns."""

    @functools.wraps(compiler)
    def f(fx_g, inps):
        return make_boxed_func(compiler(fx_g, inps))

    return f


def _call(compiled, args):
    if getattr(compiled, "_boxed_call", False):
        return compiled(list(args))
    return compiled(*args)


# ---- compilers
@make_boxed_compiler
def nop(fx_g, _):
    """Returns the GraphModule as it is (a no-op compiler, to check accuracy)."""
    return fx_g


@make_boxed_compiler
def print_compile(fx_g, _):
    """Prints the GraphModule's code and returns it unchanged."""
    print(fx_g.code)
    return fx_g


def ts_compile(fx_g, inps):
    """The GraphModule compiled with TorchScript: torch.jit.script of it, frozen when in eval mode."""
    from minitorch import jit

    f = jit.script(fx_g)
    if not f.training:
        f = jit.freeze(f)
    return f


# ---- partitioners of a joint forward-backward graph
def _ancestors(outputs, stop):
    """The nodes the outputs are computed from, not walking past the nodes in stop."""
    seen, todo = set(), [o for o in outputs if isinstance(o, Node)]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n not in stop:
            todo.extend(n.all_input_nodes)
    return seen


def _extract_graph(joint_module, inputs, outputs, needed):
    """A GraphModule taking inputs (nodes of the joint graph) and computing outputs, with copies of the nodes of
    needed in the joint graph's order."""
    g = Graph()
    env = {n: g.placeholder(n.name) for n in inputs}
    for n in joint_module.graph.nodes:
        if n in needed and n not in env and n.op not in ("placeholder", "output"):
            env[n] = g.node_copy(n, env.__getitem__)
    g.output(tuple(env[o] if isinstance(o, Node) else o for o in outputs))
    return GraphModule(joint_module, g, "GraphModule")


def _partition(joint_module, num_fwd_outputs, recompute):
    nodes = list(joint_module.graph.nodes)
    primals = [n for n in nodes if n.op == "placeholder" and "tangents" not in n.target]
    tangents = [n for n in nodes if n.op == "placeholder" and "tangents" in n.target]
    outs = joint_module.graph.output_node().args[0]
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    fwd_outs, bwd_outs = outs[:num_fwd_outputs], outs[num_fwd_outputs:]
    inputs = set(primals) | set(tangents)
    if recompute:
        # only the primals cross over: every forward value the backward reads is recomputed there
        saved = [p for p in primals if p in _ancestors(bwd_outs, inputs)]
    else:
        # the forward computes what its outputs need; what of it the backward reads is saved
        fwd_nodes = _ancestors(fwd_outs, set(primals))
        bwd_nodes = _ancestors(bwd_outs, fwd_nodes | inputs)
        crossing = {i for n in bwd_nodes if n not in fwd_nodes for i in n.all_input_nodes if i in fwd_nodes}
        crossing |= {o for o in bwd_outs if isinstance(o, Node) and o in fwd_nodes}
        saved = [n for n in nodes if n in crossing]
    fwd = _extract_graph(joint_module, primals, fwd_outs + saved, _ancestors(fwd_outs + saved, set(primals)))
    bwd = _extract_graph(
        joint_module, saved + tangents, bwd_outs, _ancestors(bwd_outs, set(saved) | set(tangents))
    )
    return fwd, bwd


def default_partition(
    joint_module, _joint_inputs, *, num_fwd_outputs, static_lifetime_input_indices=None,
    static_lifetime_input_nodes=None,
):  # fmt: skip
    """(forward, backward) GraphModules of a joint graph (placeholders primals_* then tangents_*, outputs the
    num_fwd_outputs forward outputs then the gradients): the forward returns its outputs then the values the
    backward reads (saved), the backward takes those saved values then the tangents. (aot_function here makes
    no joint graph, so it does not call a partitioner; this is for joint graphs built otherwise.)"""
    return _partition(joint_module, num_fwd_outputs, recompute=False)


def min_cut_rematerialization_partition(
    joint_module, _joint_inputs, compiler="inductor", *, num_fwd_outputs, static_lifetime_input_indices=None
):
    """As default_partition, but only the primals are saved and every forward value the backward reads is
    recomputed in the backward graph: full rematerialization (PyTorch searches a min cut to choose what to
    recompute; here the choice is always to recompute, which is what its search picks for cheap pointwise ops)."""
    return _partition(joint_module, num_fwd_outputs, recompute=True)


# ---- drawing
def draw_graph(
    traced,
    fname,
    figname="fx_graph",
    clear_meta=True,
    prog=None,
    parse_stack_trace=False,
    dot_graph_shape=None,
):
    """Writes traced's graph drawn by FxGraphDrawer to fname (its extension picks the format, .svg by default;
    .dot and .raw write the DOT source). Needs pydot (and Graphviz for rendered formats), as PyTorch's."""
    if clear_meta:
        traced = GraphModule(traced, copy.deepcopy(traced.graph))
        for node in traced.graph.nodes:
            node.meta = {}
    base, ext = os.path.splitext(fname)
    if not ext:
        ext = ".svg"
    drawing = graph_drawer.FxGraphDrawer(
        traced, figname, parse_stack_trace=parse_stack_trace, dot_graph_shape=dot_graph_shape
    ).get_main_dot_graph()
    fname = f"{base}{ext}"
    graph_format = ext.lstrip(".")
    if graph_format in ("dot", "raw"):
        drawing.write(fname)
    elif prog is None:
        getattr(drawing, "write_" + graph_format)(fname)
    else:
        getattr(drawing, "write_" + graph_format)(fname, prog=prog)


def draw_graph_compile(name):
    """A boxed compiler that prints each graph's code, draws it to name (draw_graph) and returns it."""

    def _draw_graph_compile(fx_g, _, clear_meta=True):
        print(fx_g.code)
        draw_graph(fx_g, name, clear_meta=clear_meta)
        return fx_g

    return make_boxed_compiler(_draw_graph_compile)


# ---- naming of the graphs being compiled (get_aot_graph_name & co.)
_context = {"names": [], "kind": None, "nth": 0}
_model_count = [0]


def get_aot_compilation_context():
    """(model names, "forward"/"backward"/"inference", number of the graph): what the compiler now running is
    compiling."""
    return list(_context["names"]), _context["kind"], _context["nth"]


def get_aot_graph_name():
    """The name of the graph being compiled, as '<model>__<n>_<kind>_<nth>'."""
    return f"{'__'.join(_context['names'])}_{_context['kind']}_{_context['nth']}"


get_graph_being_compiled = get_aot_graph_name


def _compile(compiler, gm, inputs, names, kind, nth):
    saved = dict(_context)
    _context.update(names=names, kind=kind, nth=nth)
    try:
        return compiler(gm, list(inputs))
    finally:
        _context.update(saved)


# ---- the backward graph
def recompute_vjp(forward_graph, primals, tangents, needs_grad):
    """The gradient of forward_graph's outputs at primals weighted by tangents, one per primal (None for a primal
    that needs none): forward_graph rerun under autograd, then the backward engine. One opaque call when the
    backward graph is traced again (torch.jit.script in ts_compile), through the __torch_function__ protocol."""
    relevant = (*primals, *tangents)
    if overrides.has_torch_function(relevant):
        return overrides.handle_torch_function(
            recompute_vjp, relevant, forward_graph, primals, tangents, needs_grad
        )
    with grad_mode.enable_grad():
        inputs = [p.detach().requires_grad_(True) if need else p for p, need in zip(primals, needs_grad)]
        outs = [o for o in forward_graph(*inputs) if isinstance(o, _C.Tensor)]  # a tangent per tensor output
        pairs = [(o, t) for o, t in zip(outs, tangents) if o.requires_grad and t is not None]
        wrt = [x for x, need in zip(inputs, needs_grad) if need]
        grads = iter(())
        if pairs and wrt:
            grads = iter(_autograd_grad([o for o, _ in pairs], wrt, [t for _, t in pairs], allow_unused=True))
    return tuple(next(grads, None) if need else None for need in needs_grad)


def _backward_graph(fw_gm, n_primals, n_tangents, needs_grad):
    g = Graph()
    primals = [g.placeholder(f"primals_{i + 1}") for i in range(n_primals)]
    tangents = [g.placeholder(f"tangents_{i + 1}") for i in range(n_tangents)]
    fw = g.get_attr("forward_graph")
    vjp = g.call_function(recompute_vjp, (fw, tuple(primals), tuple(tangents), tuple(needs_grad)))
    grads = [g.call_function(operator.getitem, (vjp, i)) for i in range(n_primals)]
    g.output(tuple(grads))
    return GraphModule({"forward_graph": fw_gm}, g, "GraphModule")


# ---- aot_function
def _guard_key(flat_args, dynamic):
    """What a traced graph is specialized to: each tensor's shape (its rank when dynamic), dtype and device, and
    the other arguments' values (a graph bakes them in)."""
    key = []
    for a in flat_args:
        if isinstance(a, _C.Tensor):
            key.append((a.dim() if dynamic else tuple(a.shape), a.dtype, a.device))
        else:
            try:
                hash(a)
                key.append((type(a), a))
            except TypeError:
                key.append((type(a), id(a)))
    return tuple(key)


class _Compiled:
    """One compilation of an aot_function: the graphs and what the compilers returned for them."""

    def __init__(self, fw_gm, compiled_fw, out_spec, training, names, nth):
        self.fw_gm = fw_gm
        self.compiled_fw = compiled_fw
        self.out_spec = out_spec
        self.training = training
        self.names = names
        self.nth = nth
        self.compiled_bw = None


class CompiledFunction(Function):
    """Runs a compiled forward graph; its backward runs the compiled backward graph (compiled on first use)."""

    @staticmethod
    def forward(ctx, state, bw_compiler, box, *flat_args):
        """The compiled forward's outputs (the tensors; box gets the others and the order)."""
        outs = list(_call(state.compiled_fw, flat_args))
        # box: this call's non-tensor outputs and where the tensors go (a Function returns tensors only)
        box["outs"] = [None if isinstance(o, _C.Tensor) else o for o in outs]
        box["is_tensor"] = [isinstance(o, _C.Tensor) for o in outs]
        tensor_outs = [o for o in outs if isinstance(o, _C.Tensor)]
        ctx.state, ctx.bw_compiler = state, bw_compiler
        ctx.needs_grad = [isinstance(a, _C.Tensor) and a.requires_grad for a in flat_args]
        ctx.tensor_pos = [i for i, a in enumerate(flat_args) if isinstance(a, _C.Tensor)]
        ctx.others = [None if isinstance(a, _C.Tensor) else a for a in flat_args]
        ctx.save_for_backward(*[flat_args[i] for i in ctx.tensor_pos])
        non_diff = [o for o in tensor_outs if not (o.is_floating_point() or o.is_complex())]
        if non_diff:
            ctx.mark_non_differentiable(*non_diff)
        return tuple(tensor_outs)

    @staticmethod
    def backward(ctx, *tangents):
        """The gradients from the compiled backward graph (compiled now on first use)."""
        primals = list(ctx.others)
        for i, t in zip(ctx.tensor_pos, ctx.saved_tensors):
            primals[i] = t
        tangents = list(tangents)
        state = ctx.state
        if state.compiled_bw is None:
            bw_gm = _backward_graph(state.fw_gm, len(primals), len(tangents), ctx.needs_grad)
            state.compiled_bw = _compile(
                ctx.bw_compiler, bw_gm, primals + tangents, state.names, "backward", state.nth
            )
        with grad_mode.no_grad():
            res = list(_call(state.compiled_bw, primals + tangents))
        if grad_mode.is_grad_enabled():  # create_graph=True: the gradients refuse to be differentiated again
            pos = [i for i, g in enumerate(res) if isinstance(g, _C.Tensor)]
            refused = _DoubleBackwardRefused.apply(len(pos), *[res[i] for i in pos], *ctx.saved_tensors)
            for i, g in zip(pos, refused):
                res[i] = g
        return (None, None, None, *res)


class _DoubleBackwardRefused(Function):
    """The first n inputs, copied, with a backward that raises (PyTorch's aot_autograd refuses double backward;
    the other inputs only connect the copies to the graph)."""

    @staticmethod
    def forward(ctx, n, *tensors):
        """Copies of the first n tensors."""
        return tuple(t.clone() for t in tensors[:n])

    @staticmethod
    def backward(ctx, *grads):
        """Refuses: PyTorch's words."""
        raise RuntimeError("torch.compile with aot_autograd does not currently support double backward")


def aot_function(
    fn,
    fw_compiler,
    bw_compiler=None,
    partition_fn=default_partition,
    decompositions=None,
    num_params_buffers=0,
    keep_inference_input_mutations=False,
    inference_compiler=None,
    *,
    dynamic=False,
    enable_log=True,
    disable_functionalization=False,
    _disable_torch_fn_metadata_mode=False,
):
    """fn traced on its first call and compiled: fw_compiler(forward GraphModule, example inputs) gives what
    runs the forward, bw_compiler (default fw_compiler) the backward, inference_compiler (default fw_compiler)
    the forward when no input needs a gradient. See the module docstring for what the graphs hold."""
    if bw_compiler is None:
        bw_compiler = fw_compiler
    if inference_compiler is None:
        inference_compiler = fw_compiler
    decomps = _decomposition_keys(decompositions)
    cache = {}
    _model_count[0] += 1
    names = [f"{getattr(fn, '__name__', 'model')}", str(_model_count[0] - 1)]
    tracing_mode = "symbolic" if dynamic else "real"

    def compile_for(flat_args, spec, training):
        out_spec = []

        def flat_fn(*flat):
            a, k = pytree.tree_unflatten(list(flat), spec)
            out, o_spec = pytree.tree_flatten(fn(*a, **k))
            out_spec.append(o_spec)
            return tuple(out)

        prefix = "primals" if training else "arg"
        ph = [f"{prefix}_{i + 1}" if training else f"arg{i}_1" for i in range(len(flat_args))]
        with grad_mode.set_grad_enabled(training):
            fw_gm = _trace(flat_fn, tuple(flat_args), decomps, tracing_mode, names=ph)
        type(fw_gm).__name__ = type(fw_gm).__qualname__ = "GraphModule"
        nth = len(cache) + 1
        kind = "forward" if training else "inference"
        compiler = fw_compiler if training else inference_compiler
        with grad_mode.no_grad():
            compiled = _compile(compiler, fw_gm, flat_args, names, kind, nth)
        return _Compiled(fw_gm, compiled, out_spec[-1], training, names, nth)

    @functools.wraps(fn)
    def returned_function(*args, **kwargs):
        flat_args, spec = pytree.tree_flatten((args, kwargs))
        training = grad_mode.is_grad_enabled() and any(
            isinstance(a, _C.Tensor) and a.requires_grad for a in flat_args
        )
        key = (spec, training, _guard_key(flat_args, dynamic))
        state = cache.get(key)
        if state is None:
            state = cache[key] = compile_for(flat_args, spec, training)
        if not training:
            outs = _call(state.compiled_fw, flat_args)
            return pytree.tree_unflatten(list(outs), state.out_spec)
        box = {}
        tensor_outs = iter(CompiledFunction.apply(state, bw_compiler, box, *flat_args))
        outs = [next(tensor_outs) if t else o for o, t in zip(box["outs"], box["is_tensor"])]
        return pytree.tree_unflatten(outs, state.out_spec)

    return returned_function


compiled_function = aot_function


def aot_module(mod, *args, **kwargs):
    """An nn.Module running mod through aot_function (the other arguments are aot_function's), its parameters and
    buffers inputs of the graphs, so they get gradients."""

    def functional_call(named_params, named_buffers, *args, **kwargs):
        params_and_buffers = {**named_params, **named_buffers}
        return _functional_call(mod, params_and_buffers, args, kwargs)

    named_params = dict(mod.named_parameters(remove_duplicate=False))
    named_buffers = dict(mod.named_buffers(remove_duplicate=False))
    num_params_buffers = len(named_params) + len(named_buffers)
    compiled_f = aot_function(functional_call, *args, num_params_buffers=num_params_buffers, **kwargs)

    class AOTModule(Module):
        def __init__(self):
            super().__init__()
            self.orig_module = mod

        def forward(self, *args, **kwargs):
            return compiled_f(named_params, named_buffers, *args, **kwargs)

    return AOTModule()


compiled_module = aot_module


def aot_module_simplified(
    mod,
    args,
    fw_compiler,
    bw_compiler=None,
    partition_fn=default_partition,
    decompositions=None,
    keep_inference_input_mutations=False,
    inference_compiler=None,
    compiler_config_extra=None,
    ignore_shape_env=False,
    disable_functionalization=False,
    pre_grad_passes=None,
    compile_region_name=None,
):
    """A function of mod's inputs (args: example inputs, unused here) running mod through aot_function, its
    parameters and buffers lifted to graph inputs (the torch.compile backend convention)."""
    compiled = aot_module(
        mod,
        fw_compiler,
        bw_compiler,
        partition_fn,
        decompositions,
        keep_inference_input_mutations=keep_inference_input_mutations,
        inference_compiler=inference_compiler,
    )

    def forward(*runtime_args):
        return compiled(*runtime_args)

    forward.zero_grad = mod.zero_grad
    forward.named_parameters = mod.named_parameters
    forward.named_buffers = mod.named_buffers
    return forward


def nnc_jit(f):
    """aot_function(f, ts_compile): both graphs compiled with TorchScript (PyTorch's NNC-backed TorchScript
    here is our torch.jit), as PyTorch's nnc_jit is aot_function with its simple TorchScript compiler."""
    return aot_function(f, ts_compile)


def memory_efficient_fusion(fn, **kwargs):
    """aot_function (aot_module for an nn.Module) with ts_compile for both graphs; kwargs override those
    settings. (PyTorch adds the min-cut partitioner and its decompositions; see the module docstring.)"""
    settings = {
        "fw_compiler": ts_compile,
        "bw_compiler": ts_compile,
        "partition_fn": min_cut_rematerialization_partition,
        "decompositions": default_decompositions,
    }
    settings.update(kwargs)
    if isinstance(fn, Module):
        return aot_module(fn, **settings)
    return aot_function(fn, **settings)
