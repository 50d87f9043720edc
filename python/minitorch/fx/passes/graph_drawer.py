"""torch.fx.passes.graph_drawer.FxGraphDrawer: a GraphModule (and each GraphModule it calls) as pydot graphs, one
record-shaped box per node (name, op, target, constant arguments, users, ShapeProp's tensor metadata), an edge
per use. As in PyTorch, pydot is optional: without it, creating a drawer raises RuntimeError."""

import hashlib
from itertools import chain

from minitorch._predicates import typename
from minitorch.fx._names import qualified_name
from minitorch.fx.graph_module import GraphModule
from minitorch.fx.node import _format_arg
from minitorch.fx.passes.shape_prop import TensorMetadata
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

try:
    import pydot

    HAS_PYDOT = True
except ModuleNotFoundError:
    pydot = None
    HAS_PYDOT = False

__all__ = ["FxGraphDrawer"]

_COLOR_MAP = {
    "placeholder": '"AliceBlue"',
    "call_module": "LemonChiffon1",
    "get_param": "Yellow2",
    "get_attr": "LightGrey",
    "output": "PowderBlue",
}

_HASH_COLOR_MAP = [
    "CadetBlue1",
    "Coral",
    "DarkOliveGreen1",
    "DarkSeaGreen1",
    "GhostWhite",
    "Khaki1",
    "LavenderBlush1",
    "LightSkyBlue",
    "MistyRose1",
    "MistyRose2",
    "PaleTurquoise2",
    "PeachPuff1",
    "Salmon",
    "Thistle1",
    "Thistle3",
    "Wheat1",
]

_WEIGHT_TEMPLATE = {"fillcolor": "Salmon", "style": '"filled,rounded"', "fontcolor": "#000000"}


def _escape(s):
    # dot's record labels treat braces as structure
    return s.replace("{", r"\{").replace("}", r"\}")


class FxGraphDrawer:
    """Visualizes a GraphModule with graphviz: ``FxGraphDrawer(gm, "name").get_dot_graph().write_svg("a.svg")``.
    get_dot_graph(submod_name) gives the graph of a GraphModule called by a call_module node instead."""

    def __init__(
        self,
        graph_module,
        name,
        ignore_getattr=False,
        ignore_parameters_and_buffers=False,
        skip_node_names_in_args=True,
        parse_stack_trace=False,
        dot_graph_shape=None,
        normalize_args=False,
    ):
        if not HAS_PYDOT:
            raise RuntimeError(
                "FXGraphDrawer requires the pydot package to be installed. Please install "
                "pydot through your favorite Python package manager."
            )
        self._name = name
        self.dot_graph_shape = dot_graph_shape if dot_graph_shape is not None else "record"
        self.normalize_args = normalize_args  # we keep the arguments as the graph holds them
        opts = (ignore_getattr, ignore_parameters_and_buffers, skip_node_names_in_args)
        self._dot_graphs = {name: self._to_dot(graph_module, name, *opts)}
        for node in graph_module.graph.nodes:
            if node.op != "call_module":
                continue
            leaf = self._get_leaf_node(graph_module, node)
            if isinstance(leaf, GraphModule):
                self._dot_graphs[f"{name}_{node.target}"] = self._to_dot(leaf, f"{name}_{node.target}", *opts)

    def get_dot_graph(self, submod_name=None):
        """The pydot.Dot of the module (of its GraphModule submodule submod_name when given)."""
        if submod_name is None:
            return self.get_main_dot_graph()
        return self.get_submod_dot_graph(submod_name)

    def get_main_dot_graph(self):
        """The pydot.Dot of the module itself."""
        return self._dot_graphs[self._name]

    def get_submod_dot_graph(self, submod_name):
        """The pydot.Dot of the GraphModule submodule submod_name."""
        return self._dot_graphs[f"{self._name}_{submod_name}"]

    def get_all_dot_graphs(self):
        """{name: pydot.Dot} of the module and of each GraphModule it calls."""
        return self._dot_graphs

    def _get_node_style(self, node):
        style = {
            "shape": self.dot_graph_shape,
            "fillcolor": "#CAFFE3",
            "style": '"filled,rounded"',
            "fontcolor": "#000000",
        }
        if node.op in _COLOR_MAP:
            style["fillcolor"] = _COLOR_MAP[node.op]
        else:
            # a colour per target, from its name, so it is stable across runs
            digest = hashlib.md5(qualified_name(node.target).encode(), usedforsecurity=False).hexdigest()
            style["fillcolor"] = _HASH_COLOR_MAP[int(digest[:8], 16) % len(_HASH_COLOR_MAP)]
        return style

    def _get_leaf_node(self, module, node):
        obj = module
        for atom in node.target.split("."):
            if not hasattr(obj, atom):
                raise RuntimeError(str(obj) + " does not have attribute " + atom + "!")
            obj = getattr(obj, atom)
        return obj

    def _typename(self, target):
        if isinstance(target, Module):
            ret = typename(target)
        elif isinstance(target, str):
            ret = target
        elif getattr(target, "__module__", None) == "_operator":
            ret = f"_operator.{target.__name__}"  # PyTorch's drawer names the C module
        else:
            ret = qualified_name(target)
        return _escape(ret)

    def _args_label(self, arg, skip_node_names_in_args):
        if isinstance(arg, tuple):
            prefix, suffix = r"|args=(\l", r",\n)\l"
            strs = [_format_arg(a) for a in arg]
        else:
            prefix, suffix = r"|kwargs={\l", r",\n}\l"
            strs = [f"{k}: {_format_arg(v)}" for k, v in arg.items()]
        if skip_node_names_in_args:
            strs = [a for a in strs if "%" not in a]
        if not strs:
            return ""
        out = prefix + r",\n".join(strs) + suffix
        if len(strs) == 1:
            out = out.replace(r"\l", "").replace(r"\n", "")
        return _escape(out)

    def _get_node_label(self, module, node, skip_node_names_in_args):
        label = "{" + f"name=%{node.name}|op_code={node.op}\n"
        if node.op == "call_module":
            leaf = self._get_leaf_node(module, node)
            label += r"\n" + self._typename(leaf) + r"\n|"
            consts = getattr(leaf, "__constants__", ())
            label += r"\n".join(f"{c}: {getattr(leaf, c)}" for c in consts) + r"\n"
        else:
            label += f"|target={self._typename(node.target)}" + r"\n"
            if node.args:
                label += self._args_label(node.args, skip_node_names_in_args)
            if node.kwargs:
                label += self._args_label(node.kwargs, skip_node_names_in_args)
            label += f"|num_users={len(node.users)}" + r"\n"
        label += self._tensor_meta_to_label(node.meta.get("tensor_meta"))
        return label + "}"

    def _tensor_meta_to_label(self, tm):
        if tm is None:
            return ""
        if isinstance(tm, TensorMetadata):
            return (
                f"|dtype={tm.dtype}" + r"\n" + f"|shape={tuple(tm.shape)}" + r"\n"
                f"|requires_grad={tm.requires_grad}" + r"\n" + f"|stride={tm.stride}" + r"\n"
            )
        if isinstance(tm, dict):
            tm = list(tm.values())
        if isinstance(tm, (list, tuple)):
            return "".join(self._tensor_meta_to_label(t) for t in tm)
        raise RuntimeError(f"Unsupported tensor meta type {type(tm)}")

    def _to_dot(
        self, graph_module, name, ignore_getattr, ignore_parameters_and_buffers, skip_node_names_in_args
    ):
        dot_graph = pydot.Dot(name, rankdir="TB")
        for node in graph_module.graph.nodes:
            if ignore_getattr and node.op == "get_attr":
                continue
            label = self._get_node_label(graph_module, node, skip_node_names_in_args)
            dot_graph.add_node(pydot.Node(node.name, label=label, **self._get_node_style(node)))
            if node.op != "call_module":
                continue
            leaf = self._get_leaf_node(graph_module, node)
            if ignore_parameters_and_buffers or isinstance(leaf, GraphModule):
                continue
            for pname, t in chain(leaf.named_parameters(), leaf.named_buffers()):
                full = node.name + "." + pname
                kind = full + "|op_code=get_parameter" if isinstance(t, Parameter) else "buffer" + r"\l"
                w_label = "{" + kind + str(t.dtype) + str(list(t.shape)) + r"\n" + "}"
                weight_style = dict(_WEIGHT_TEMPLATE, shape=self.dot_graph_shape)
                dot_graph.add_node(pydot.Node(full, label=w_label, **weight_style))
                dot_graph.add_edge(pydot.Edge(full, node.name))
        for node in graph_module.graph.nodes:
            if ignore_getattr and node.op == "get_attr":
                continue
            for user in node.users:
                dot_graph.add_edge(pydot.Edge(node.name, user.name))
        return dot_graph
