"""torch.fx: symbolic tracing of Modules and functions into a Graph, graph editing, code generation
(GraphModule), interpretation (Interpreter, Transformer) and pattern rewriting.

Tracing intercepts torch functions through minitorch.overrides (switched on only during a trace), Tensor
methods and operators through Proxy itself, and module calls by patching nn.Module.__call__ while it runs.
"""

from minitorch.fx import passes, subgraph_rewriter  # noqa: F401
from minitorch.fx._symbolic_trace import PH, Tracer, is_fx_tracing, symbolic_trace, wrap  # noqa: F401
from minitorch.fx.graph import Graph
from minitorch.fx.graph_module import GraphModule
from minitorch.fx.interpreter import Interpreter, Transformer
from minitorch.fx.node import Node, has_side_effect, map_arg
from minitorch.fx.proxy import Proxy
from minitorch.fx.subgraph_rewriter import replace_pattern

__all__ = [
    "Graph",
    "GraphModule",
    "Interpreter",
    "Node",
    "Proxy",
    "Tracer",
    "Transformer",
    "has_side_effect",
    "map_arg",
    "replace_pattern",
    "symbolic_trace",
    "wrap",
]
