"""torch.fx.Interpreter (runs a GraphModule node by node, each op overridable) and Transformer (builds a new
graph by running the old one on Proxies)."""

import inspect

from minitorch import overrides
from minitorch.fx._symbolic_trace import Tracer
from minitorch.fx.graph import Graph
from minitorch.fx.graph_module import GraphModule
from minitorch.fx.node import map_aggregate, map_arg
from minitorch.fx.proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs a GraphModule's graph one node at a time: ``run(*args)`` calls ``run_node`` on each node, which
    calls the method named by the node's op (placeholder, get_attr, call_function, call_method, call_module,
    output) with the node's target and evaluated args/kwargs. Subclass and override any of them."""

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:
            # free each value after its last use
            last_use = {}
            self.user_to_last_uses = {}
            for node in reversed(list(self.graph.nodes)):
                for n in _inputs(node):
                    if n not in last_use:
                        last_use[n] = node
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """The graph's result on args; initial_env (node -> value) pre-fills values that are then not
        recomputed."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    e.args = (
                        f"{e.args[0]}\n\n{msg}" if e.args and isinstance(e.args[0], str) else msg,
                        *e.args[1:],
                    )
                    if isinstance(e, KeyError):
                        raise RuntimeError(*e.args) from e
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list):
        """run(*args_list), clearing args_list first (callers that hand over ownership of the inputs)."""
        args_iter = list(args_list)
        args_list.clear()
        return self.run(*args_iter)

    def run_node(self, n):
        """Evaluates node n from the values of its inputs."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ---- one method per op
    def placeholder(self, target, args, kwargs):
        """The next positional input (the rest for *args, {} for **kwargs, the default when none is left)."""
        if target.startswith("**"):
            return {}
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(
                f"Expected positional argument for parameter {target}, but one was not passed in!"
            ) from si

    def get_attr(self, target, args, kwargs):
        """The module attribute at target."""
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        """target(*args, **kwargs)."""
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        """args[0].target(*args[1:], **kwargs)."""
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target, args, kwargs):
        """The submodule at target called on args and kwargs."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        """The graph's result (args[0])."""
        return args[0]

    # ---- helpers
    def fetch_attr(self, target):
        """The module's attribute at the dotted path target."""
        atoms = target.split(".")
        attr = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(attr, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[: i + 1])}")
            attr = getattr(attr, atom)
        return attr

    def fetch_args_kwargs_from_env(self, n):
        """n's args and kwargs with each Node replaced by its value."""
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        """args with each Node replaced by its computed value (RuntimeError for one not computed)."""

        def load(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(
                    f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() to diagnose such issues"
                )
            return self.env[n_arg]

        return map_arg(args, load)


def _inputs(node):
    seen = {}
    map_arg(node.args, lambda n: seen.setdefault(n, None))
    map_arg(node.kwargs, lambda n: seen.setdefault(n, None))
    return list(seen)


class _TransformerTracer(Tracer):
    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.tensor_attrs = {}

    def is_leaf_module(self, m, module_qualified_name):
        return True


class Transformer(Interpreter):
    """Runs the graph on Proxies of a new graph: overriding call_function etc. to return other Proxies
    rewrites the program; ``transform()`` returns the new GraphModule. Torch functions called on the
    Proxies inside overrides are recorded (the __torch_function__ dispatch is on during transform)."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args, kwargs):
        """A placeholder of the new graph, as a Proxy."""
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        """A get_attr node of the new graph, as a Proxy."""
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        """A call_module node of the new graph, as a Proxy."""
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        """A call_function node of the new graph, as a Proxy."""
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def run_node(self, n):
        """Interpreter.run_node, keeping the torch name a carried-over function was called by."""
        result = super().run_node(n)
        # keep the name the user called a torch function by, when the node is carried over unchanged
        carried = isinstance(result, Proxy) and n._mt_public is not None and result.node.target is n.target
        if carried and result.node._mt_public is None:
            result.node._mt_public = n._mt_public
        return result

    def transform(self):
        """The transformed GraphModule."""
        with overrides.enable_torch_function_dispatch(tensor_methods=True):
            result = super().run(enable_io_processing=False)
        if result is not None:

            def strip_proxy(a):
                return a.node if isinstance(a, Proxy) else a

            new_output = self.new_graph.output(map_aggregate(result, strip_proxy))
            old_output = next(reversed(self.graph.nodes))
            new_output.meta.update(old_output.meta)
        return GraphModule(self.module, self.new_graph)
