"""torch.export's ExportedProgram: a flat graph whose parameters, buffers and tensor constants are lifted to
placeholders (graph_signature says which), the state they read, and `module()`, which puts that state back as
attributes and gives a runnable GraphModule taking the original inputs."""

import copy

from minitorch.export.dynamic_shapes import GuardsFn
from minitorch.export.graph_signature import InputKind
from minitorch.fx.graph import Graph
from minitorch.fx.graph_module import GraphModule
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter
from minitorch.utils import _pytree

__all__ = ["ExportedProgram"]


def _install(root, target, value, kind, persistent=True):
    *prefix, field = target.split(".")
    mod = root
    for p in prefix:
        child = mod._modules.get(p)
        if child is None:
            child = Module()
            mod.add_module(p, child)
        mod = child
    if kind == InputKind.PARAMETER:
        mod.register_parameter(field, value if isinstance(value, Parameter) else Parameter(value))
    elif kind == InputKind.BUFFER:
        mod.register_buffer(field, value, persistent=persistent)
    else:
        setattr(mod, field, value)


class ExportedProgram:
    """What torch.export.export returns: `graph_module`/`graph` (placeholders: lifted state, then user
    inputs), `graph_signature`, `state_dict` (parameters and persistent buffers), `constants` (non-persistent
    buffers and tensor constants), `range_constraints`, `example_inputs`; `module()` runs it."""

    def __init__(self, graph_module, graph_signature, state_dict, constants, range_constraints, example_inputs,
                 in_spec, out_spec, guards):  # fmt: skip
        self._graph_module = graph_module
        self._graph_signature = graph_signature
        self._state_dict = state_dict
        self._constants = constants
        self._range_constraints = range_constraints
        self._example_inputs = example_inputs
        self._in_spec = in_spec
        self._out_spec = out_spec
        self._guards = guards

    @property
    def graph_module(self):
        """The GraphModule of the flat graph (lifted state as placeholders)."""
        return self._graph_module

    @property
    def graph(self):
        """graph_module.graph"""
        return self._graph_module.graph

    @property
    def graph_signature(self):
        """The ExportGraphSignature: the kind of each placeholder and output."""
        return self._graph_signature

    @property
    def state_dict(self):
        """The parameters and persistent buffers, by their names in the exported module."""
        return self._state_dict

    @property
    def constants(self):
        """Non-persistent buffers and tensor constants, by name."""
        return self._constants

    @property
    def tensor_constants(self):
        """constants (the older name)."""
        return self._constants

    @property
    def range_constraints(self):
        """{symbol: VR[min, max]} for each dynamic dimension."""
        return self._range_constraints

    @property
    def example_inputs(self):
        """(args, kwargs) export traced with."""
        return self._example_inputs

    @property
    def call_spec(self):
        """(in_spec, out_spec): the structures of the user inputs and outputs."""
        return self._in_spec, self._out_spec

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Unable to call ExportedProgram directly. You should use `exported_program.module()` instead."
        )

    def parameters(self):
        """The parameters, in graph-signature order."""
        for name in self._graph_signature.parameters:
            yield self._state_dict[name]

    def named_parameters(self):
        """(name, parameter) pairs."""
        for name in self._graph_signature.parameters:
            yield name, self._state_dict[name]

    def buffers(self):
        """The buffers, in graph-signature order."""
        for _, b in self.named_buffers():
            yield b

    def named_buffers(self):
        """(name, buffer) pairs."""
        for name in self._graph_signature.buffers:
            yield name, self._state_dict[name] if name in self._state_dict else self._constants[name]

    def _value(self, spec):
        if spec.target in self._state_dict:
            return self._state_dict[spec.target]
        return self._constants[spec.target]

    def module(self):
        """A GraphModule computing the program from the original inputs: the lifted parameters, buffers and
        constants are its attributes again (get_attr nodes), and it checks its inputs' sizes against the
        export's (static dimensions equal, dynamic ones within their Dim) before running."""
        root = Module()
        graph = Graph()
        env = {}
        specs = dict(
            zip(
                (n.name for n in self.graph.nodes if n.op == "placeholder"), self._graph_signature.input_specs
            )
        )
        user = []
        for node in self.graph.nodes:
            if node.op != "placeholder":
                continue
            spec = specs[node.name]
            if spec.kind == InputKind.USER_INPUT:
                env[node] = graph.placeholder(node.name)
                user.append(env[node])
        for node in self.graph.nodes:
            if node.op == "placeholder":
                spec = specs[node.name]
                if spec.kind != InputKind.USER_INPUT:
                    _install(root, spec.target, self._value(spec), spec.kind, spec.persistent is not False)
                    env[node] = graph.get_attr(spec.target)
            elif node.op == "output":
                graph.output(_pytree.tree_map(lambda a: env.get(a, a), node.args[0]))
            else:
                env[node] = graph.node_copy(node, lambda n: env[n])
        gm = GraphModule(root, graph, "GraphModule")
        for spec in self._graph_signature.input_specs:
            if spec.kind == InputKind.BUFFER and spec.persistent is False:
                # GraphModule copies every tensor in as a persistent buffer, as PyTorch's does
                *prefix, field = spec.target.split(".")
                gm.get_submodule(".".join(prefix))._non_persistent_buffers_set.add(field)
        gm.meta = dict(getattr(self._graph_module, "meta", {}))
        _attach_calling_convention(gm, self._in_spec, self._out_spec, GuardsFn(self._guards))
        return gm

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """A copy of this program. PyTorch lowers the graph to core ATen here; our graphs hold the torch
        functions themselves (each is already one op of ours), so there is nothing to decompose."""
        return copy.deepcopy(self)

    def validate(self):
        """Checks the graph against its signature (placeholders match the input specs)."""
        names = [n.name for n in self.graph.nodes if n.op == "placeholder"]
        if names != [s.arg.name for s in self._graph_signature.input_specs]:
            raise AssertionError(f"placeholders {names} do not match the graph signature")

    def __str__(self):
        # PyTorch's layout: each part indented by replacing its newlines
        code = self._graph_module.print_readable(print_output=False).replace("\n", "\n    ")
        sig = str(self._graph_signature).replace("\n", "\n    ")
        return f"ExportedProgram:\n    {code}\nGraph signature:{sig}\nRange constraints: {self._range_constraints}\n"

    def __repr__(self):
        return str(self)


def _attach_calling_convention(gm, in_spec, out_spec, guards):
    """gm's forward takes the original (args, kwargs) structure: it flattens them to the graph's user-input
    leaves, runs the guards, then rebuilds the output structure from the graph's flat outputs."""
    flat_forward = type(gm).forward
    gm._in_spec = in_spec
    gm._out_spec = out_spec
    gm._guards_fn = guards

    def forward(self, *args, **kwargs):
        leaves, spec = _pytree.tree_flatten((args, kwargs))
        if spec != self._in_spec:
            raise ValueError(
                f"Trying to flatten user inputs with exported input tree spec: \n{self._in_spec}\nbut actually "
                f"got inputs with tree spec of: \n{spec}.\nPlease check that the inputs have the same number and "
                "type of args and kwargs as the ones you used when tracing."
            )
        self._guards_fn(leaves)
        out = flat_forward(self, *leaves)
        return _pytree.tree_unflatten(list(out), self._out_spec)

    type(gm).forward = forward
    type(gm)._mt_flat_forward = flat_forward
