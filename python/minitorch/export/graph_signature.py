"""torch.export's graph signature: which placeholders of an exported graph are parameters, buffers, constants
or user inputs, and which outputs are user outputs (InputSpec/OutputSpec and their kinds)."""

import dataclasses
import enum

__all__ = [
    "ConstantArgument",
    "ExportGraphSignature",
    "InputKind",
    "InputSpec",
    "OutputKind",
    "OutputSpec",
    "TensorArgument",
]


@dataclasses.dataclass
class TensorArgument:
    """A tensor placeholder or output, by node name."""

    name: str


@dataclasses.dataclass
class ConstantArgument:
    """A non-tensor input or output, by name, with its value."""

    name: str
    value: object


class InputKind(enum.Enum):
    """What a graph input is."""

    USER_INPUT = enum.auto()
    PARAMETER = enum.auto()
    BUFFER = enum.auto()
    CONSTANT_TENSOR = enum.auto()
    CUSTOM_OBJ = enum.auto()
    TOKEN = enum.auto()


class OutputKind(enum.Enum):
    """What a graph output is."""

    USER_OUTPUT = enum.auto()
    LOSS_OUTPUT = enum.auto()
    BUFFER_MUTATION = enum.auto()
    GRADIENT_TO_PARAMETER = enum.auto()
    GRADIENT_TO_USER_INPUT = enum.auto()
    USER_INPUT_MUTATION = enum.auto()
    TOKEN = enum.auto()
    PARAMETER_MUTATION = enum.auto()


@dataclasses.dataclass
class InputSpec:
    """One graph input: its kind, placeholder, the state_dict/constants key it reads (target) and, for a
    buffer, whether it is persistent."""

    kind: InputKind
    arg: object
    target: str = None
    persistent: bool = None


@dataclasses.dataclass
class OutputSpec:
    """One graph output: its kind, the node returned and (for mutations) the target written."""

    kind: OutputKind
    arg: object
    target: str = None


@dataclasses.dataclass
class ExportGraphSignature:
    """The inputs and outputs of an exported graph, in placeholder and output order."""

    input_specs: list
    output_specs: list

    def _names(self, kind):
        return tuple(s.target for s in self.input_specs if s.kind == kind)

    @property
    def parameters(self):
        """The state_dict keys of the parameters, in placeholder order."""
        return self._names(InputKind.PARAMETER)

    @property
    def buffers(self):
        """The names of the buffers, persistent or not."""
        return self._names(InputKind.BUFFER)

    @property
    def non_persistent_buffers(self):
        """The buffers outside the state_dict."""
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.BUFFER and not s.persistent)

    @property
    def lifted_tensor_constants(self):
        """The tensor constants lifted to inputs."""
        return self._names(InputKind.CONSTANT_TENSOR)

    @property
    def user_inputs(self):
        """The user inputs' placeholder names (or constant values)."""
        out = []
        for s in self.input_specs:
            if s.kind == InputKind.USER_INPUT:
                out.append(s.arg.name if isinstance(s.arg, TensorArgument) else s.arg.value)
        return tuple(out)

    @property
    def user_outputs(self):
        """The user outputs' node names (or constant values)."""
        out = []
        for s in self.output_specs:
            if s.kind == OutputKind.USER_OUTPUT:
                out.append(s.arg.name if isinstance(s.arg, TensorArgument) else s.arg.value)
        return tuple(out)

    @property
    def inputs_to_parameters(self):
        """{placeholder name: parameter name}"""
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self):
        """{placeholder name: buffer name}"""
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.BUFFER}

    @property
    def inputs_to_lifted_tensor_constants(self):
        """{placeholder name: constant name}"""
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.CONSTANT_TENSOR}

    @property
    def buffers_to_mutate(self):
        """{output name: buffer name} (exports here do not lift buffer mutations: always empty)."""
        return {s.arg.name: s.target for s in self.output_specs if s.kind == OutputKind.BUFFER_MUTATION}

    def __str__(self):
        def line(s):
            name = s.arg.name
            out = f"{name}: {s.kind.name}"
            if s.target is not None:
                out += f" target='{s.target}'"
            if s.persistent is not None if hasattr(s, "persistent") else False:
                out += f" persistent={s.persistent}"
            return out

        ins = "\n".join(line(s) for s in self.input_specs)
        outs = "\n".join(line(s) for s in self.output_specs)
        return f"\n# inputs\n{ins}\n\n# outputs\n{outs}\n"
