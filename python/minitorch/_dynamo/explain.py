"""torch._dynamo.explain(fn)(*args, **kwargs): captures fn on those arguments and reports the graphs, the graph
breaks with their reasons and user stacks, and the ops of each graph (ExplainOutput, printed as PyTorch's).

As PyTorch 2.15 counts them: graph_count is the number of graphs handed to the backend (a piece of a split
function with no operation is none), graph_break_count is graph_count - 1 (so -1 when nothing was compiled),
break_reasons has the reason of each break that ended a compiled graph (a break before any operation has
none), in Dynamo's words where ours match its (resume.py splits functions at breaks). A callable that could
not be split (a break inside a loop) shows no graphs and, unlike PyTorch, the break that made it run
eagerly."""

from minitorch._dynamo.eval_frame import CompiledFunction
from minitorch.nn.modules.module import Module

__all__ = ["BreakReason", "ExplainOutput", "explain"]


class BreakReason:
    """Why a graph break happened (PyTorch's GraphCompileReason): reason, user_stack (FrameSummary list)."""

    def __init__(self, reason, user_stack, graph_break=True):
        self.reason = reason
        self.user_stack = list(user_stack)
        self.graph_break = graph_break

    def __repr__(self):
        return f"GraphCompileReason(reason={self.reason!r}, user_stack={self.user_stack!r}, graph_break={self.graph_break})"


class ExplainOutput:
    """What explain() found: graphs, graph_count, graph_break_count, break_reasons, op_count, ops_per_graph,
    out_guards (descriptions of the guards of each graph), compile_times."""

    def __init__(
        self,
        graphs,
        graph_count,
        graph_break_count,
        break_reasons,
        op_count,
        ops_per_graph=None,
        out_guards=None,
        compile_times=None,
    ):
        self.graphs = graphs
        self.graph_count = graph_count
        self.graph_break_count = graph_break_count
        self.break_reasons = break_reasons
        self.op_count = op_count
        self.ops_per_graph = ops_per_graph
        self.out_guards = out_guards
        self.compile_times = compile_times

    def __str__(self):
        out = f"Graph Count: {self.graph_count}\n"
        out += f"Graph Break Count: {self.graph_break_count}\n"
        out += f"Op Count: {self.op_count}\n"
        out += "Break Reasons:\n"
        for i, br in enumerate(self.break_reasons):
            out += f"  Break Reason {i + 1}:\n"
            out += f"    Reason: {br.reason}\n"
            out += "    User Stack:\n"
            for fs in br.user_stack:
                out += f"      {fs}\n"
        if self.ops_per_graph is not None:
            out += "Ops per Graph:\n"
            for i, ops in enumerate(self.ops_per_graph):
                out += f"  Ops {i + 1}:\n"
                for op in ops:
                    out += f"    {op}\n"
        if self.out_guards is not None:
            out += "Out Guards:\n"
            for i, g in enumerate(self.out_guards):
                out += f"  Guard {i + 1}:\n"
                out += f"    {g}\n"
        if self.compile_times is not None:
            out += f"Compile Times: {self.compile_times}\n"
        return out

    __repr__ = __str__


def _guards(gm, example_inputs, state):
    names = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
    out = ["GRAD_MODE: torch.is_grad_enabled() is unchanged"]
    for name, t in zip(names, example_inputs):
        out.append(
            f"TENSOR_MATCH: {name}: size={tuple(t.shape)}, stride={tuple(t.stride())}, dtype={t.dtype}, "
            f"device={t.device}, requires_grad={t.requires_grad}"
        )
    for obj, name, value in state:
        kind = "NN_MODULE" if name == "training" else "CONSTANT_MATCH"
        out.append(f"{kind}: {type(obj).__name__}.{name} == {value!r}")
    return out


def explain(f, *extra_args, **extra_kwargs):
    """explain(f)(*args, **kwargs) -> ExplainOutput (extra_args given to explain itself are the call's
    arguments too, as PyTorch's older form)."""

    def inner(*args, **kwargs):
        graphs, breaks, guards = [], [], []

        def on_graph(gm, gb):
            if gm is not None:
                graphs.append(gm)
            if gb is not None:
                breaks.append(BreakReason(gb.break_reason, gb.user_stack))

        def backend(gm, example_inputs):
            guards.extend(_guards(gm, example_inputs, compiled._last_guards))
            return gm.forward

        module = f if isinstance(f, Module) else None
        target = f._torchdynamo_orig_callable if isinstance(f, CompiledFunction) else f
        compiled = CompiledFunction(target, backend, module=module, on_graph=on_graph)
        compiled(*args, **kwargs)
        ops_per_graph = [[n.target for n in gm.graph.nodes if n.op == "call_function"] for gm in graphs]
        return ExplainOutput(
            graphs,
            len(graphs),
            len(graphs) - 1,  # PyTorch's count: the graphs between breaks
            breaks,
            sum(len(o) for o in ops_per_graph),
            ops_per_graph,
            guards,
            "TorchDynamo compilation metrics: not recorded",
        )

    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner
