"""torch.fx.passes.split_module: cuts a GraphModule into submodules submod_<i> by a per-node partition id, with
a top-level graph that calls them in dependency order (PyTorch's algorithm, without its autocast/grad-mode
region handling and symbolic-size bookkeeping, which our graphs do not carry)."""

import inspect
import operator

from minitorch.fx.graph import Graph
from minitorch.fx.graph_module import GraphModule
from minitorch.fx.node import map_arg
from minitorch.nn.modules.module import Module

__all__ = ["Partition", "split_module"]


class Partition:
    """One partition: its nodes, the values it takes and gives (by node name), the partitions it depends on
    and those depending on it, and the graph being built for it."""

    def __init__(self, name):
        self.name = name
        self.submod_name = f"submod_{name}"
        self.node_names = []
        self.inputs = {}
        self.outputs = {}
        self.dependencies = {}
        self.dependents = {}
        self.graph = Graph()
        self.environment = {}
        self.targets = {}

    def __repr__(self):
        return (
            f"name: {self.name},\n"
            f" nodes: {self.node_names},\n"
            f" inputs: {self.inputs},\n"
            f" outputs: {self.outputs},\n"
            f" partitions depended on: {self.dependencies},\n"
            f" partition dependents: {self.dependents}"
        )


def _get_attr_from_qualname(mod, qualname):
    attr_val = mod
    for atom in qualname.split("."):
        if not hasattr(attr_val, atom):
            raise AttributeError(f"Node target {qualname} not found!")
        attr_val = getattr(attr_val, atom)
    return attr_val


def split_module(m, root_m, split_callback, qualname_map=None, keep_original_order=False,
                 keep_original_node_name=False, keep_original_input_name=True, *, partition_affix=None,
                 tuple_return=False):  # fmt: skip
    """A GraphModule whose graph calls submodules submod_<id>, one per partition id split_callback(node) gives
    the graph's call nodes; each takes the values it uses from elsewhere and returns those used elsewhere (a
    tuple when more than one, or always with tuple_return). Placeholders and get_attr nodes stay in the top
    graph. root_m is unused (PyTorch's signature). qualname_map, when a dict, receives {new target: old
    target} for the modules and attributes the submodules hold."""
    partitions = {}
    orig_nodes = {}

    def record_cross_partition_use(def_node, use_node):
        defined = getattr(def_node, "_fx_partition", None)
        used = getattr(use_node, "_fx_partition", None)
        if defined != used:
            if defined is not None:
                def_partition = partitions[defined]
                def_partition.outputs.setdefault(def_node.name)
                if used is not None:
                    def_partition.dependents.setdefault(used)
            if used is not None:
                use_partition = partitions[used]
                use_partition.inputs.setdefault(def_node.name)
                if defined is not None:
                    use_partition.dependencies.setdefault(defined)

    for node in m.graph.nodes:
        if node.op in ("placeholder", "get_attr", "output"):
            continue
        name = str(split_callback(node))
        if partition_affix is not None:
            name = f"{partition_affix}_{name}"
        partition = partitions.get(name)
        if partition is None:
            partitions[name] = partition = Partition(name)
        partition.node_names.append(node.name)
        node._fx_partition = name

    for node in m.graph.nodes:
        orig_nodes[node.name] = node
        if node.op in ("placeholder", "get_attr"):
            continue
        if node.op == "output":
            map_arg(node.args[0], lambda n: record_cross_partition_use(n, None))
            continue
        map_arg(node.args, lambda d, node=node: record_cross_partition_use(d, node))
        map_arg(node.kwargs, lambda d, node=node: record_cross_partition_use(d, node))

    original_partition_order = list(partitions)
    # topological order of the partitions (a stack, as PyTorch's, so the submodule order matches)
    root_partitions = [name for name, p in partitions.items() if not p.dependencies]
    sorted_partitions = []
    while root_partitions:
        root = root_partitions.pop()
        sorted_partitions.append(root)
        for dependent in partitions[root].dependents:
            partitions[dependent].dependencies.pop(root)
            if not partitions[dependent].dependencies:
                root_partitions.append(dependent)
    if len(sorted_partitions) != len(partitions):
        raise RuntimeError("cycle exists between partitions!")

    # each partition's inputs: placeholders (module-valued get_attrs are read as get_attr, after the others)
    for name in sorted_partitions:
        partition = partitions[name]
        new_inputs = {}
        counter = 0
        plain, modules = [], []
        for inp in partition.inputs:
            orig = orig_nodes[inp]
            is_mod = orig.op == "get_attr" and isinstance(_get_attr_from_qualname(m, orig.target), Module)
            (modules if is_mod else plain).append(inp)
        for inp in plain + modules:
            orig = orig_nodes[inp]
            if orig.op == "get_attr" and isinstance(_get_attr_from_qualname(m, orig.target), Module):
                placeholder = partition.graph.get_attr(orig.target)
                partition.targets[orig.target] = _get_attr_from_qualname(m, orig.target)
            else:
                if keep_original_input_name:
                    ph_name = inp
                else:
                    ph_name = f"arg_{counter}"
                    counter += 1
                placeholder = partition.graph.placeholder(ph_name, type_expr=orig.type)
                new_inputs[inp] = None
            placeholder.meta = orig.meta.copy()
            partition.environment[orig] = placeholder
        partition.inputs = new_inputs

    # the partitions' bodies
    for node in m.graph.nodes:
        if not hasattr(node, "_fx_partition"):
            continue
        partition = partitions[node._fx_partition]
        env = partition.environment
        args = map_arg(node.args, lambda n, env=env: env[n])
        kwargs = map_arg(node.kwargs, lambda n, env=env: env[n])
        if node.op not in ("call_module", "get_attr"):
            target = node.target
        else:
            target = node.target.replace(".", "_")
            partition.targets[target] = _get_attr_from_qualname(m, node.target)
            if qualname_map is not None:
                qualname_map[f"{partition.submod_name}.{target}"] = node.target
        new_node = partition.graph.create_node(
            node.op,
            target,
            args,
            kwargs,
            name=node.name if keep_original_node_name else None,
            type_expr=node.type,
        )
        new_node.meta = node.meta.copy()
        env[node] = new_node

    base_graph = Graph()
    base_env = {}
    base_attrs = {}

    def construct(node):
        if node.op == "placeholder":
            default = node.args[0] if node.args else inspect.Signature.empty
            if keep_original_node_name:
                base_env[node.name] = base_graph.create_node(
                    "placeholder", node.name, () if default is inspect.Signature.empty else (default,), {},
                    type_expr=node.type,
                )  # fmt: skip
            else:
                base_env[node.name] = base_graph.placeholder(
                    node.target, type_expr=node.type, default_value=default
                )
            base_env[node.name].meta = node.meta.copy()
        elif node.op == "get_attr":
            base_env[node.name] = base_graph.get_attr(node.target)
            base_env[node.name].meta = node.meta.copy()
            base_attrs[node.target] = _get_attr_from_qualname(m, node.target)

    constructed = set()
    if not keep_original_order:
        for node in m.graph.nodes:
            construct(node)
    placeholders = [n for n in m.graph.nodes if n.op == "placeholder"]
    order = original_partition_order if keep_original_order else sorted_partitions
    for name in order:
        partition = partitions[name]
        outputs = tuple(partition.environment[orig_nodes[o]] for o in partition.outputs)
        partition.graph.output(outputs[0] if len(outputs) == 1 and not tuple_return else outputs)
        if keep_original_order:
            # placeholders first, then the get_attr nodes this partition reads, as each is first needed
            needed = placeholders + [
                orig_nodes[k] for k in partition.inputs if orig_nodes[k].op == "get_attr"
            ]
            for node in needed:
                if node not in constructed:
                    construct(node)
                    constructed.add(node)
        base_attrs[partition.submod_name] = GraphModule(partition.targets, partition.graph)
        out = base_graph.call_module(partition.submod_name, tuple(base_env[i] for i in partition.inputs))
        n_out = len(partition.outputs)
        if n_out > 1 or (n_out == 1 and tuple_return):
            for i, o in enumerate(partition.outputs):
                base_env[o] = base_graph.call_function(operator.getitem, (out, i))
        elif n_out == 1:
            base_env[next(iter(partition.outputs))] = out
    if keep_original_order and not base_env:
        for node in m.graph.nodes:
            construct(node)
    for node in m.graph.nodes:
        if node.op == "output":
            base_graph.output(map_arg(node.args[0], lambda n: base_env[n.name]))
    ret = GraphModule(base_attrs, base_graph)
    ret.meta["partition_names"] = {p.submod_name for p in partitions.values()}
    for node in m.graph.nodes:
        if hasattr(node, "_fx_partition"):
            del node._fx_partition
    return ret
