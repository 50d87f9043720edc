"""TorchScript's IR as a read-only view of a captured fx graph: Graph, Node, Value and types under torch._C's names, printed in PyTorch's text format, and the TorchScript-style ``.code`` of script and trace results.

script and trace capture an fx Graph (jit._script, jit._trace); ``.graph`` of their results is this view of it.
Node kinds are PyTorch's (``aten::<op>`` without overload, ``prim::Constant``, ``prim::GetAttr``,
``prim::CallMethod``, ``prim::ListConstruct``, ``prim::TupleConstruct``...). A traced graph is shaped as
PyTorch's tracer records one: the module attributes it reads are fetched first (``prim::GetAttr`` chains from
self, in reverse order of first use), every constant is its own node just before the op that reads it, a Python number in a
tensor operand of arithmetic is a tensor constant (``{2}``), and value types are the complete tensor types seen
while tracing (``Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu)``). A scripted graph pools its
constants at the top and types tensors as ``Tensor``. Only the defaults that PyTorch's graphs spell out for
the common ops (add/sub's alpha, softmax's and sum's dtype) are added: we keep no full op schemas here. Standard
nn modules are ``prim::CallMethod`` calls; ``inlined_graph`` expands the common ones (Linear, Conv, BatchNorm,
ReLU, Sigmoid, Tanh) as PyTorch's inlined graphs do, with ``scope: __module.<name>``. User-defined submodules
are traced through by fx, so their operations sit directly in ``.graph`` (PyTorch keeps them as calls there).
"""

import builtins
import operator

from minitorch import _C

__all__ = ["Block", "Graph", "Node", "Type", "Use", "Value", "build_graph", "graph_code"]


# ---------------------------------------------------------------- types

_SCALAR_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble", "complex32": "ComplexHalf",
}  # fmt: skip

# c10::ScalarType numbers: what a dtype argument is in PyTorch's graphs (an int constant)
_SCALAR_TYPE_CODES = {
    "uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5, "float32": 6, "float64": 7,
    "complex32": 8, "complex64": 9, "complex128": 10, "bool": 11, "bfloat16": 15,
}  # fmt: skip


class Type:
    """A TorchScript type (torch._C.Type): ``kind()`` ('IntType', 'TensorType', ...), ``str()`` as graphs print
    it, ``annotation_str`` as code annotates it; str() of the object is the annotation."""

    def __init__(self, kind, name, annotation=None):
        self._kind = kind
        self._name = name
        self._annotation = annotation if annotation is not None else name

    def kind(self):
        """'TensorType', 'IntType', 'ClassType', ..."""
        return self._kind

    def str(self):
        """The type as graphs print it (int[], (Tensor, int), a complete tensor type)."""
        return self._name

    @property
    def annotation_str(self):
        """The type as code annotates it (List[int], Tuple[Tensor, int], Tensor)."""
        return self._annotation

    def containedTypes(self):
        """The element types of a container type (empty for others)."""
        return []

    def __str__(self):
        return self._annotation

    def __repr__(self):
        return self._annotation

    def __eq__(self, other):
        return isinstance(other, Type) and (self._kind, self.str()) == (other._kind, other.str())

    def __hash__(self):
        return hash((self._kind, self.str()))


class TensorType(Type):
    """A tensor type: 'Tensor', or complete (dtype, sizes, strides, requires_grad, device) where a trace saw
    the value."""

    def __init__(self, dtype=None, sizes=None, strides=None, requires_grad=None, device=None):
        self._dtype, self._sizes, self._strides = dtype, sizes, strides
        self._requires_grad, self._device = requires_grad, device
        super().__init__("TensorType", self._complete_str(), "Tensor")

    @classmethod
    def from_tensor(cls, t):
        """The complete type of tensor t."""
        return cls(t.dtype, tuple(t.shape), tuple(t.stride()), bool(t.requires_grad), t.device)

    def _complete_str(self):
        if self._dtype is None:
            return "Tensor"
        name = _SCALAR_NAMES.get(str(self._dtype).replace("torch.", ""), "Tensor")
        parts = [str(s) for s in self._sizes]
        if self._sizes:
            parts.append(f"strides=[{', '.join(str(s) for s in self._strides)}]")
        parts += [f"requires_grad={int(self._requires_grad)}", f"device={self._device}"]
        return f"{name}({', '.join(parts)})"

    def dtype(self):
        """The dtype, or None when unknown."""
        return self._dtype

    def scalarType(self):
        """The dtype's name as PyTorch's ScalarType ('Float'), or None when unknown."""
        return None if self._dtype is None else _SCALAR_NAMES.get(str(self._dtype).replace("torch.", ""))

    def sizes(self):
        """The sizes as a list, or None when unknown."""
        return None if self._sizes is None else list(self._sizes)

    def strides(self):
        """The strides as a list, or None when unknown."""
        return None if self._strides is None else list(self._strides)

    def dim(self):
        """The number of dimensions, or None when unknown."""
        return None if self._sizes is None else len(self._sizes)

    def requires_grad(self):
        """Whether the value requires grad (None when unknown)."""
        return self._requires_grad

    def device(self):
        """The device, or None when unknown."""
        return self._device


class ClassType(Type):
    """A module's class: ``__torch__.<module path>.<class name>`` (minitorch's own classes under torch's path)."""

    def __init__(self, qualified_name):
        super().__init__("ClassType", qualified_name)

    @classmethod
    def of(cls, obj_type):
        """The ClassType of a Python class."""
        mod = getattr(obj_type, "__module__", "") or ""
        if mod == "minitorch" or mod.startswith("minitorch."):
            mod = "torch" + mod[len("minitorch") :]
        path = "" if mod in ("__main__", "builtins", "") else mod + "."
        return cls(f"__torch__.{path}{obj_type.__name__}")

    def name(self):
        """The class name."""
        return self._name.rsplit(".", 1)[-1]

    def qualified_name(self):
        """The qualified name (``__torch__.MyModule``)."""
        return self._name


class ListType(Type):
    """List[T], printed T[] in graphs."""

    def __init__(self, elem):
        self._elem = elem
        super().__init__("ListType", f"{elem.str()}[]", f"List[{elem.annotation_str}]")

    def getElementType(self):
        """T."""
        return self._elem

    def containedTypes(self):
        """[T]."""
        return [self._elem]


class TupleType(Type):
    """Tuple[T1, T2, ...], printed (T1, T2) in graphs."""

    def __init__(self, elems):
        self._elems = list(elems)
        super().__init__(
            "TupleType",
            f"({', '.join(e.str() for e in self._elems)})",
            f"Tuple[{', '.join(e.annotation_str for e in self._elems)}]",
        )

    def elements(self):
        """The element types."""
        return list(self._elems)

    def containedTypes(self):
        """The element types."""
        return list(self._elems)


class DictType(Type):
    """Dict[K, V], printed Dict(K, V) in graphs."""

    def __init__(self, key, value):
        self._key, self._val = key, value
        super().__init__(
            "DictType",
            f"Dict({key.str()}, {value.str()})",
            f"Dict[{key.annotation_str}, {value.annotation_str}]",
        )

    def getKeyType(self):
        """K."""
        return self._key

    def getValueType(self):
        """V."""
        return self._val

    def containedTypes(self):
        """[K, V]."""
        return [self._key, self._val]


TENSOR = TensorType()
INT = Type("IntType", "int")
FLOAT = Type("FloatType", "float")
BOOL = Type("BoolType", "bool")
COMPLEX = Type("ComplexType", "complex")
STR = Type("StringType", "str")
NONE = Type("NoneType", "NoneType")
DEVICE = Type("DeviceObjType", "Device")
ANY = Type("AnyType", "Any")


def _type_of(value):
    """The type of a value seen while tracing (complete for tensors)."""
    if isinstance(value, _C.Tensor):
        return TensorType.from_tensor(value)
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, complex):
        return COMPLEX
    if isinstance(value, str):
        return STR
    if value is None:
        return NONE
    if isinstance(value, tuple) and type(value) is tuple:
        return TupleType([_type_of(v) for v in value])
    if isinstance(value, (list, tuple)):  # torch.Size and other int sequences: int[]
        return ListType(_type_of(value[0]) if value else TENSOR)
    if isinstance(value, dict):
        k, v = next(iter(value.items()), ("", None))
        return DictType(_type_of(k), TENSOR if v is None else _type_of(v))
    return ANY


# ---------------------------------------------------------------- values and nodes


class Use:
    """One use of a value: the node reading it (``user``) and at which input (``offset``)."""

    def __init__(self, user, offset):
        self.user = user
        self.offset = offset

    def __repr__(self):
        return f"<Use {self.user.kind()}:{self.offset}>"


class Value:
    """A value of the graph (torch._C.Value): ``debugName()``, ``type()``, ``node()`` (its producer),
    ``uses()``."""

    def __init__(self, graph, unique, type_, name=None):
        self._graph = graph
        self._unique = unique
        self._type = type_
        self._name = name
        self._node = None
        self._offset = 0
        self._uses = []

    def debugName(self):
        """The name printed after %: the Python name when it has one, else its number."""
        return self._name if self._name is not None else str(self._unique)

    def unique(self):
        """The value's number in its graph."""
        return self._unique

    def type(self):
        """Its Type."""
        return self._type

    def node(self):
        """The node producing it (prim::Param for a graph input)."""
        return self._node

    def offset(self):
        """Which output of its node it is."""
        return self._offset

    def uses(self):
        """The Uses of this value (list)."""
        return list(self._uses)

    def isCompleteTensor(self):
        """Whether it is a tensor whose dtype, sizes and device are known (a traced value)."""
        return isinstance(self._type, TensorType) and self._type.dtype() is not None

    def requires_grad(self):
        """Whether it is a tensor known to require grad."""
        return bool(isinstance(self._type, TensorType) and self._type.requires_grad())

    requiresGrad = requires_grad

    def toIValue(self):
        """The constant's value when a prim::Constant produces it, else None."""
        node = self._node
        if node is not None and node.kind() == "prim::Constant":
            return node._attrs.get("value", (None, None))[1]
        return None

    def __repr__(self):
        return f"{self.debugName()} defined in ({self._node})"


def _fmt_float(v):
    # C++'s 17-digit %g (so 0.1 is 0.10000000000000001), with a point where %g leaves none (2.)
    s = "%.17g" % v  # noqa: UP031
    if not any(c in s for c in ".en"):
        s += "."
    return s


def _fmt_attr(kind, value):
    if kind == "s":
        return f'"{value}"'
    if kind == "f":
        return _fmt_float(value)
    if kind == "t":
        if value.dim() == 0:
            v = value.item()
            return "{" + (_fmt_float(v) if isinstance(v, float) else str(int(v))) + "}"
        return "<Tensor>"
    if kind == "i":
        return str(int(value))
    return str(value)


class Node:
    """A node of the graph (torch._C.Node): ``kind()``, its input and output Values, attributes (``s``, ``i``,
    ``f``, ``t`` by name), ``scopeName()`` and ``sourceRange()``."""

    def __init__(self, graph, kind, inputs, outputs, attrs=None, scope="", source=None):
        self._graph = graph
        self._kind = kind
        self._inputs = list(inputs)
        self._outputs = list(outputs)
        self._attrs = dict(attrs or {})  # name -> (kind letter, value)
        self._scope = scope
        self._source = source  # (file, line, column) or None
        for i, v in enumerate(self._inputs):
            v._uses.append(Use(self, i))
        for i, v in enumerate(self._outputs):
            v._node = self
            v._offset = i

    def kind(self):
        """'aten::relu', 'prim::Constant', ..."""
        return self._kind

    def inputs(self):
        """An iterator over the input Values."""
        return iter(self._inputs)

    def outputs(self):
        """An iterator over the output Values."""
        return iter(self._outputs)

    def inputsAt(self, i):
        """The i-th input."""
        if not 0 <= i < len(self._inputs):
            raise RuntimeError(f"ArrayRef: invalid index Index = {i}; Length = {len(self._inputs)}")
        return self._inputs[i]

    def outputsAt(self, i):
        """The i-th output."""
        if not 0 <= i < len(self._outputs):
            raise RuntimeError(f"ArrayRef: invalid index Index = {i}; Length = {len(self._outputs)}")
        return self._outputs[i]

    def inputsSize(self):
        """The number of inputs."""
        return len(self._inputs)

    def outputsSize(self):
        """The number of outputs."""
        return len(self._outputs)

    def input(self):
        """The only input (RuntimeError when there is not exactly one)."""
        if len(self._inputs) != 1:
            raise RuntimeError(
                f"Tried to access a single input on node '{self._kind}' which has {len(self._inputs)} outputs. "
                "You may consider using node.inputs() instead."
            )
        return self._inputs[0]

    def output(self):
        """The only output (RuntimeError when there is not exactly one)."""
        if len(self._outputs) != 1:
            raise RuntimeError(
                f"Tried to access a single output on node '{self._kind}' which has {len(self._outputs)} outputs. "
                "You may consider using node.outputs() instead."
            )
        return self._outputs[0]

    def hasMultipleOutputs(self):
        """Whether the node has more than one output."""
        return len(self._outputs) > 1

    def hasUses(self):
        """Whether any output is read."""
        return any(v._uses for v in self._outputs)

    def attributeNames(self):
        """The attribute names ('value' of a constant, 'name' of GetAttr and CallMethod)."""
        return list(self._attrs)

    def hasAttribute(self, name):
        """Whether the node has the attribute."""
        return name in self._attrs

    def hasAttributes(self):
        """Whether the node has any attribute."""
        return bool(self._attrs)

    def kindOf(self, name):
        """The attribute's kind letter: 's' (string), 'i' (int or bool), 'f' (float), 't' (tensor)."""
        return self._attr(name)[0]

    def _attr(self, name, want=None):
        if name not in self._attrs:
            raise RuntimeError(f"required keyword attribute '{name}' is undefined")
        kind, value = self._attrs[name]
        if want is not None and kind != want:
            raise RuntimeError(f"required keyword attribute '{name}' has the wrong type")
        return kind, value

    def s(self, name):
        """A string attribute."""
        return self._attr(name, "s")[1]

    def i(self, name):
        """An int attribute (bools are ints)."""
        return int(self._attr(name, "i")[1])

    def f(self, name):
        """A float attribute."""
        return self._attr(name, "f")[1]

    def t(self, name):
        """A tensor attribute."""
        return self._attr(name, "t")[1]

    def ival(self, name):
        """An attribute's value, whatever its kind."""
        return self._attr(name)[1]

    def __getitem__(self, name):
        return self._attr(name)[1]

    def scopeName(self):
        """'__module.fc1' for a node an inlined submodule produced, else ''."""
        return self._scope

    def sourceRange(self):
        """Where the captured code created the node ('file(line): ...' lines, as a trace records), or ''."""
        if self._source is None:
            return ""
        return f"{self._source[0]}({self._source[1]}): {self._source[3]}\n"

    def blocks(self):
        """Sub-blocks: none (captured graphs have no control flow)."""
        return []

    def findNode(self, kind, recurse=True):
        """The first node of kind in this node's blocks: None (it has none)."""
        return

    def findAllNodes(self, kind, recurse=True):
        """The nodes of kind in this node's blocks: [] (it has none)."""
        return []

    def owningBlock(self):
        """The graph's block."""
        return self._graph._block

    def prev(self):
        """The node before this one (the graph's prim::Param for the first)."""
        nodes = self._graph._nodes
        if self in nodes:
            i = nodes.index(self)
            return nodes[i - 1] if i > 0 else self._graph._param
        return None

    def isBefore(self, other):
        """Whether this node comes before other."""
        return self._graph._order(self) < self._graph._order(other)

    def isAfter(self, other):
        """Whether this node comes after other."""
        return self._graph._order(self) > self._graph._order(other)

    def mustBeNone(self):
        """Whether this node produces a None constant."""
        return self._kind == "prim::Constant" and len(self._outputs) == 1 and self._outputs[0].type() == NONE

    def _line(self, print_source=True):
        outs = ", ".join(f"%{v.debugName()} : {v.type().str()}" for v in self._outputs)
        attrs = ""
        if self._attrs:
            attrs = "[" + ", ".join(f"{k}={_fmt_attr(*kv)}" for k, kv in self._attrs.items()) + "]"
        ins = ", ".join(f"%{v.debugName()}" for v in self._inputs)
        line = f"{outs} = {self._kind}{attrs}({ins})"
        if self._scope:
            line += f", scope: {self._scope}"
        if print_source and self._source is not None:
            line += f" # {self._source[0]}:{self._source[1]}:{self._source[2]}"
        return line

    def __str__(self):
        return self._line() + "\n"

    __repr__ = __str__


class Block:
    """The graph's one block (torch._C.Block)."""

    def __init__(self, graph):
        self._graph = graph

    def nodes(self):
        """The graph's nodes."""
        return self._graph.nodes()

    def inputs(self):
        """The graph's inputs."""
        return self._graph.inputs()

    def outputs(self):
        """The graph's outputs."""
        return self._graph.outputs()

    def paramNode(self):
        """The graph's prim::Param node."""
        return self._graph.param_node()

    def returnNode(self):
        """The graph's prim::Return node."""
        return self._graph.return_node()

    def findNode(self, kind, recurse=True):
        """The graph's first node of kind, or None."""
        return self._graph.findNode(kind, recurse)

    def findAllNodes(self, kind, recurse=True):
        """The graph's nodes of kind."""
        return self._graph.findAllNodes(kind, recurse)

    def owningNode(self):
        """None: the graph's own block belongs to no node."""
        return


class Graph:
    """A captured program as TorchScript's IR (torch._C.Graph), read-only: ``nodes()``, ``inputs()``,
    ``outputs()``, ``findNode(kind)``, ``findAllNodes(kind)``; str() is PyTorch's text format."""

    def __init__(self):
        self._nodes = []
        self._next = 0
        self._block = Block(self)
        self._param = Node(self, "prim::Param", [], [])
        self._return = Node(self, "prim::Return", [], [])

    def _value(self, type_, name=None):
        v = Value(self, self._next, type_, name)
        self._next += 1
        return v

    def _order(self, node):
        if node is self._param:
            return -1
        if node is self._return:
            return len(self._nodes)
        return self._nodes.index(node)

    def nodes(self):
        """An iterator over the nodes (not prim::Param / prim::Return)."""
        return iter(list(self._nodes))

    def inputs(self):
        """An iterator over the graph's input Values (self first for a module's forward)."""
        return iter(self._param._outputs)

    def outputs(self):
        """An iterator over the returned Values."""
        return iter(self._return._inputs)

    def param_node(self):
        """The prim::Param node whose outputs are the inputs."""
        return self._param

    def return_node(self):
        """The prim::Return node whose inputs are the outputs."""
        return self._return

    def block(self):
        """The graph's one Block."""
        return self._block

    def findNode(self, kind, recurse=True):
        """The first node of this kind, or None."""
        return next((n for n in self._nodes if n._kind == kind), None)

    def findAllNodes(self, kind, recurse=True):
        """Every node of this kind, in order."""
        return [n for n in self._nodes if n._kind == kind]

    def str(self, print_source_ranges=True):
        """The text format; print_source_ranges=False leaves out the '# file:line:col' comments."""
        ins = ",\n      ".join(f"%{v.debugName()} : {v.type().str()}" for v in self._param._outputs)
        lines = [f"graph({ins}):"]
        lines += ["  " + n._line(print_source_ranges) for n in self._nodes]
        lines.append(f"  return ({', '.join('%' + v.debugName() for v in self._return._inputs)})")
        return "\n".join(lines) + "\n"

    def __str__(self):
        return self.str()

    __repr__ = __str__


# ---------------------------------------------------------------- building from fx

_OPERATORS = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "div",
    operator.floordiv: "floor_divide", operator.mod: "remainder", operator.pow: "pow", operator.matmul: "matmul",
    operator.neg: "neg", operator.pos: "positive", operator.abs: "abs", operator.invert: "bitwise_not",
    operator.and_: "__and__", operator.or_: "__or__", operator.xor: "__xor__", operator.lshift: "__lshift__",
    operator.rshift: "__rshift__", operator.lt: "lt", operator.le: "le", operator.gt: "gt", operator.ge: "ge",
    operator.eq: "eq", operator.ne: "ne", operator.iadd: "add_", operator.isub: "sub_", operator.imul: "mul_",
    operator.itruediv: "div_", builtins.abs: "abs",
}  # fmt: skip

# Python number operands of these become tensor constants in a trace (PyTorch wraps them before recording)
_WRAPS_NUMBER = frozenset(("add", "sub", "mul", "div", "remainder", "add_", "sub_", "mul_", "div_"))
_COMMUTES = frozenset(("add", "mul"))
_ALPHA = frozenset(("add", "sub", "rsub", "add_", "sub_"))
# methods whose sizes may come as separate numbers (x.view(2, 3)): one int[] argument in the graph
_SIZE_VARARGS = frozenset(("view", "reshape", "permute", "expand", "repeat", "tile", "new_zeros", "new_ones"))
# ops whose last argument PyTorch's graphs spell out: a dtype of None
_DTYPE_LAST = {"softmax": 2, "log_softmax": 2, "sum": 1, "mean": 1}
_NON_TENSOR = {"size": INT, "dim": INT, "numel": INT, "item": Type("NumberType", "Scalar")}


class _Builder:
    """One pass over an fx graph producing the IR (see the module docstring for the shape of each form)."""

    def __init__(self, fx_graph, traced, root, inline, constants):
        self.fx = fx_graph
        self.traced = traced
        self.root = root
        self.inline = inline
        self.tensor_constants = constants or {}
        self.g = Graph()
        self.env = {}
        self.attrs = {}  # dotted path -> Value of a GetAttr
        self.hoisted = []  # a trace's GetAttrs, fetched before everything
        self.pooled = {}  # a script's constants, pooled at the top
        self.pool_nodes = []
        self.names = {}
        self.body = []
        self.prefetched = {}  # a script's module fetches made before their call (_prefetch)

    # ---- helpers

    def name(self, base):
        n = self.names.get(base, 0)
        self.names[base] = n + 1
        return base if n == 0 else f"{base}.{n}"

    def emit(self, kind, inputs, out_types, attrs=None, scope="", source=None, names=None):
        outs = [self.g._value(t, (names or {}).get(i)) for i, t in enumerate(out_types)]
        node = Node(self.g, kind, inputs, outs, attrs, scope, source)
        self.body.append(node)
        return node

    def const(self, value, source=None, wrap=False):
        """A prim::Constant for a Python value (a trace's operand of arithmetic: a 0-dim tensor)."""
        if wrap and self.traced and isinstance(value, (bool, int, float)) and not isinstance(value, bool):
            import minitorch

            t = minitorch.tensor(value)
            attrs = {"value": ("t", t)}
            ty = TensorType(t.dtype, (), (), False, t.device)
            return self.emit("prim::Constant", [], [ty], attrs, source=source).output()
        kind, ty, v = self._const_kind(value)
        key = (ty.str(), repr(v))
        if not self.traced and key in self.pooled:
            return self.pooled[key]
        attrs = {} if kind is None else {"value": (kind, v)}
        outs = [self.g._value(ty)]
        node = Node(self.g, "prim::Constant", [], outs, attrs, "", source if kind is not None else None)
        if self.traced:
            self.body.append(node)
        else:
            self.pool_nodes.append(node)
            self.pooled[key] = outs[0]
        return outs[0]

    @staticmethod
    def _const_kind(value):
        if value is None:
            return None, NONE, None
        if isinstance(value, bool):
            return "i", BOOL, int(value)
        if isinstance(value, int):
            return "i", INT, value
        if isinstance(value, float):
            return "f", FLOAT, value
        if isinstance(value, str):
            return "s", STR, value
        if isinstance(value, _C.dtype):
            return "i", INT, _SCALAR_TYPE_CODES.get(str(value).replace("torch.", ""), -1)
        if isinstance(value, _C.Tensor):
            return "t", TensorType.from_tensor(value), value
        if type(value).__name__ == "device":
            return "s", DEVICE, str(value)
        return "s", STR, str(value)

    def getattr_path(self, path):
        """The Value of self.<path>, one prim::GetAttr per atom (a trace fetches each once, up front)."""
        if self.traced and path in self.attrs:
            return self.attrs[path]
        parent = self.self_value
        obj = self.root
        chain = []
        for atom in path.split("."):
            obj = getattr(obj, atom, None) if obj is not None else None
            ty = TENSOR if isinstance(obj, _C.Tensor) or obj is None else ClassType.of(type(obj))
            # a debug name is never all digits (those are the unnamed values'): a Sequential's "0" is "_0"
            out = self.g._value(ty, self.name("_" + atom if atom.isdigit() else atom))
            chain.append(Node(self.g, "prim::GetAttr", [parent], [out], {"name": ("s", atom)}))
            parent = out
        if self.traced:
            # as PyTorch's tracer: each path fetched from self in its own chain (parents first), the chains in
            # reverse order of first use; sharing a parent fetched by a later-placed chain would use it early
            self.hoisted[:0] = chain
            self.attrs[path] = parent
        else:
            self.body.extend(chain)
        return parent

    def arg(self, a, source):
        from minitorch.fx.node import Node as FxNode

        if isinstance(a, FxNode):
            return self.env[a.name]
        if isinstance(a, (list, tuple)):
            items = [self.arg(x, source) for x in a]
            elem = items[0].type() if items else INT
            elem = TENSOR if isinstance(elem, TensorType) else elem
            return self.emit("prim::ListConstruct", items, [ListType(elem)]).output()
        return self.const(a, source)

    def out_type(self, fx_node, op):
        if self.traced and "_mt_jit_type" in fx_node.meta:
            return fx_node.meta["_mt_jit_type"]
        if op == "size":
            return INT if len(fx_node.args) > 1 else ListType(INT)
        return _NON_TENSOR.get(op, TENSOR)

    # ---- the pass

    def build(self, self_type):
        g = self.g
        params = []
        self.self_value = None
        if self_type is not None:
            self.self_value = g._value(self_type, "self.1" if self.traced else "self")
            params.append(self.self_value)
        for n in self.fx.nodes:
            if n.op == "placeholder":
                ty = n.meta.get("_mt_jit_type", TENSOR) if self.traced else TENSOR
                v = g._value(ty, n.target if self.traced else f"{n.target}.1")
                params.append(v)
                self.env[n.name] = v
        g._param = Node(g, "prim::Param", [], params)
        self._calls = [n for n in self.fx.nodes if n.op == "call_module"]
        for n in self.fx.nodes:
            if n.op == "placeholder":
                continue
            source = n.meta.get("_mt_source")
            if self.traced and source is not None:
                source = (*source[:2], 0, *source[3:])  # a trace records lines, not columns
            if not self.traced:
                self._prefetch(n, source)
            if n.op == "output":
                out = self.result(n.args[0], source)
                g._return = Node(g, "prim::Return", [out], [])
            elif n.op == "get_attr":
                if n.target in self.tensor_constants:
                    self.env[n.name] = self.const(self.tensor_constants[n.target], source)
                else:
                    self.env[n.name] = self.getattr_path(n.target)
            elif n.op == "call_module":
                self.env[n.name] = self.call_module(n, source)
            else:
                self.env[n.name] = self.call(n, source)
        g._nodes = self.pool_nodes + self.hoisted + self.body
        return g

    def _prefetch(self, node, source):
        """Python evaluates self.fc2 in self.fc2(f(self.fc1(x))) before the arguments: a script fetches a called
        module before the first operation inside the call's span (source positions, where Python gives them)."""
        if source is None or len(source) < 6 or source[4] is None:
            return
        span = (source[1], source[2]), (source[4], source[5])
        outer = []
        for n in self._calls:
            if n.name in self.prefetched or n.name in self.env or n is node:
                continue
            src = n.meta.get("_mt_source")
            if src is None or len(src) < 6 or src[4] is None or src[0] != source[0]:
                continue
            start, end = (src[1], src[2]), (src[4], src[5])
            if start <= span[0] and span[1] <= end and (start, end) != span:
                outer.append((start, (-end[0], -end[1]), n))
        for _, _, n in sorted(outer, key=lambda t: (t[0], t[1])):
            self.prefetched[n.name] = self.getattr_path(n.target)

    def result(self, out, source):
        from minitorch.fx.node import Node as FxNode

        if isinstance(out, FxNode):
            return self.env[out.name]
        if isinstance(out, tuple):
            items = [self.result(x, source) for x in out]
            return self.emit("prim::TupleConstruct", items, [TupleType([v.type() for v in items])]).output()
        if isinstance(out, list):
            items = [self.result(x, source) for x in out]
            elem = items[0].type() if items else TENSOR
            return self.emit("prim::ListConstruct", items, [ListType(elem)]).output()
        if isinstance(out, dict):
            items = []
            for k, v in out.items():
                items += [self.const(k, source), self.result(v, source)]
            ty = DictType(items[0].type() if items else STR, items[1].type() if items else TENSOR)
            return self.emit("prim::DictConstruct", items, [ty]).output()
        return self.const(out, source)

    def call_module(self, n, source):
        mod = self.root.get_submodule(n.target) if self.root is not None else None
        if self.inline and mod is not None:
            inl = _INLINE.get(type(mod).__name__)
            if inl is not None and not n.kwargs:
                return inl(self, n, mod, source, "__module." + n.target)
        m = self.prefetched.pop(n.name, None) or self.getattr_path(n.target)
        args = [self.arg(a, source) for a in n.args] + [self.arg(a, source) for a in n.kwargs.values()]
        # PyTorch types a trace's submodule calls as plain Tensor
        ty = n.meta.get("_mt_jit_type", TENSOR)
        if isinstance(ty, TensorType):
            ty = TENSOR
        node = self.emit(
            "prim::CallMethod",
            [m, *args],
            [ty],
            {"name": ("s", "forward")},
            source=None if self.traced else source,
        )
        return node.output()

    def call(self, n, source):
        from minitorch.fx.node import Node as FxNode

        args, kwargs = list(n.args), dict(n.kwargs)
        if n.op == "call_method":
            op = n.target
        elif n.target is getattr:
            return self.attribute(n, args, source)
        elif n.target is operator.getitem:
            return self.getitem(n, args, source)
        else:
            op = _OPERATORS.get(n.target) or getattr(n.target, "__name__", str(n.target))
        reflected = len(args) == 2 and not isinstance(args[0], FxNode) and isinstance(args[1], FxNode)
        if reflected and op in ("add", "mul", "sub", "div"):
            # a reflected operator (2 * x, 1 - x, 2 / x): recorded on the tensor, as PyTorch's __r*__ methods
            # (a script compiles 1 - x as neg then add, a trace records rsub)
            if op in _COMMUTES:
                args = [args[1], args[0]]
            elif op == "sub" and self.traced:
                op, args = "rsub", [args[1], args[0]]
            else:
                first = "aten::neg" if op == "sub" else "aten::reciprocal"
                inner = self.emit(first, [self.env[args[1].name]], [TENSOR], source=source).output()
                c = self.const(args[0], source, wrap=True)
                ins, then = [inner, c], "aten::add" if op == "sub" else "aten::mul"
                if op == "sub":
                    ins.append(self.const(1, source if self.traced else None))
                out = self.emit(then, ins, [self.out_type(n, then[6:])], source=source)
                out._n_defaults = len(ins) - 2
                return out.output()
        if op in _SIZE_VARARGS and len(args) >= 2 and not isinstance(args[1], (list, tuple)):
            first = args[1]
            if not isinstance(first, FxNode) or not isinstance(self.env[first.name].type(), ListType):
                args = [args[0], list(args[1:])]
        ins = []
        for i, a in enumerate(args):
            if i > 0 and op in _WRAPS_NUMBER and isinstance(a, (int, float)) and not isinstance(a, bool):
                ins.append(self.const(a, source, wrap=True))
            else:
                ins.append(self.arg(a, source))
        ins += [self.arg(a, source) for a in kwargs.values()]
        given = len(ins)
        if op in _ALPHA and "alpha" not in kwargs and len(args) == 2:
            is_tensor = not self.traced or isinstance(ins[0].type(), TensorType)
            if is_tensor:
                ins.append(self.const(1, source if self.traced else None))
        if op in _DTYPE_LAST and len(args) + len(kwargs) == _DTYPE_LAST[op] and "dtype" not in kwargs:
            ins.append(self.const(None))
        ty = self.out_type(n, op)
        if not self.traced and ins and not any(isinstance(v.type(), TensorType) for v in ins):
            ty = ins[0].type()  # arithmetic on numbers (x.size(0) * 2): a number in a script
        node = self.emit(f"aten::{op}", ins, [ty], source=source)
        node._n_defaults = len(ins) - given  # code leaves the defaults out, as PyTorch's
        return node.output()

    def attribute(self, n, args, source):
        x, name = args[0], args[1]
        xv = self.arg(x, source)
        if name == "shape":
            return self.emit("aten::size", [xv], [ListType(INT)], source=source).output()
        if name in ("dtype", "device"):
            ty = INT if name == "dtype" else DEVICE
            return self.emit(f"prim::{name}", [xv], [ty], source=source).output()
        if name == "ndim":
            return self.emit("aten::dim", [xv], [INT], source=source).output()
        if name == "T":
            return self.emit("aten::numpy_T", [xv], [self.out_type(n, "T")], source=source).output()
        return self.emit("prim::GetAttr", [xv], [self.out_type(n, name)], {"name": ("s", name)}).output()

    def getitem(self, n, args, source):
        x, idx = args
        xv = self.arg(x, source)
        xt = xv.type()
        if isinstance(xt, TensorType) and xv.node() is not None and xv.node().kind() != "prim::CallMethod":
            if isinstance(idx, int):
                ins = [xv, self.const(0, source), self.const(idx, source)]
                return self.emit("aten::select", ins, [self.out_type(n, "select")], source=source).output()
            if isinstance(idx, slice):
                # a trace records an open end as the largest int64; code leaves out the defaults at the end
                stop = idx.stop if idx.stop is not None or not self.traced else 9223372036854775807
                step = 1 if idx.step is None else idx.step
                ins = [xv, self.const(0, source)]
                ins += [self.const(v, source) for v in (idx.start, stop, step)]
                node = self.emit("aten::slice", ins, [self.out_type(n, "slice")], source=source)
                node._n_defaults = int(step == 1) + int(step == 1 and stop is None)
                return node.output()
            return self.emit("aten::index", [xv, self.arg(idx, source)], [self.out_type(n, "index")]).output()
        if isinstance(xt, (ListType, DictType)):
            ty = xt.getElementType() if isinstance(xt, ListType) else xt.getValueType()
            return self.emit("aten::__getitem__", [xv, self.arg(idx, source)], [ty], source=source).output()
        ty = (
            xt.elements()[idx] if isinstance(xt, TupleType) and isinstance(idx, int) else self.out_type(n, "")
        )
        return self.emit("prim::TupleIndex", [xv, self.arg(idx, source)], [ty], source=source).output()


def _inline_linear(b, n, mod, source, scope):
    x = b.arg(n.args[0], source)
    m = b.prefetched.pop(n.name, None) or b.getattr_path(n.target)
    bias = _inline_attr(b, m, "bias", scope) if mod.bias is not None else b.const(None)
    weight = _inline_attr(b, m, "weight", scope)
    return b.emit(
        "aten::linear", [x, weight, bias], [b.out_type(n, "linear")], scope=scope, source=source
    ).output()


def _inline_attr(b, parent, name, scope):
    out = b.g._value(TENSOR, b.name(name))
    node = Node(b.g, "prim::GetAttr", [parent], [out], {"name": ("s", name)})
    b.body.append(node)
    return out


def _inline_unary(op):
    def run(b, n, mod, source, scope):
        x = b.arg(n.args[0], source)
        return b.emit(f"aten::{op}", [x], [b.out_type(n, op)], scope=scope, source=source).output()

    return run


def _inline_conv(b, n, mod, source, scope):
    x = b.arg(n.args[0], source)
    m = b.prefetched.pop(n.name, None) or b.getattr_path(n.target)
    bias = _inline_attr(b, m, "bias", scope) if mod.bias is not None else b.const(None)
    weight = _inline_attr(b, m, "weight", scope)
    if mod.padding_mode != "zeros" or isinstance(mod.padding, str):
        return b.emit("prim::CallMethod", [m, x], [TENSOR], {"name": ("s", "forward")}).output()
    ins = [x, weight, bias]
    ins += [b.arg(list(v), source) for v in (mod.stride, mod.padding, mod.dilation)]
    op = f"conv{len(mod.kernel_size)}d"
    ins.append(b.const(mod.groups, source))
    return b.emit(f"aten::{op}", ins, [b.out_type(n, op)], scope=scope, source=source).output()


def _inline_batch_norm(b, n, mod, source, scope):
    x = b.arg(n.args[0], source)
    m = b.prefetched.pop(n.name, None) or b.getattr_path(n.target)
    training = mod.training or not mod.track_running_stats
    consts = [b.const(v, source) for v in (True, mod.eps, mod.momentum or 0.0, training)]
    stats = [
        _inline_attr(b, m, k, scope) if getattr(mod, k, None) is not None else b.const(None)
        for k in ("running_var", "running_mean")
    ]
    affine = [_inline_attr(b, m, k, scope) if mod.affine else b.const(None) for k in ("bias", "weight")]
    ins = [x, affine[1], affine[0], stats[1], stats[0], consts[3], consts[2], consts[1], consts[0]]
    return b.emit("aten::batch_norm", ins, [b.out_type(n, "batch_norm")], scope=scope, source=source).output()


_INLINE = {
    "Linear": _inline_linear,
    "Conv1d": _inline_conv,
    "Conv2d": _inline_conv,
    "Conv3d": _inline_conv,
    "BatchNorm1d": _inline_batch_norm,
    "BatchNorm2d": _inline_batch_norm,
    "BatchNorm3d": _inline_batch_norm,
    "ReLU": _inline_unary("relu"),
    "Sigmoid": _inline_unary("sigmoid"),
    "Tanh": _inline_unary("tanh"),
}


def build_graph(fx_graph, *, traced, root=None, constants=None, inline=False):
    """The IR Graph of a captured fx graph: a module's forward when root is the module (its graph takes self
    first), else a function's. traced: shaped as a trace records (module docstring), else as script compiles.
    constants: {get_attr target: tensor} of tensors the capture made constants. inline: expand the common
    standard modules' calls (inlined_graph)."""
    self_type = ClassType.of(_class_of(root)) if root is not None else None
    return _Builder(fx_graph, traced, root, inline, constants).build(self_type)


def _class_of(root):
    cls = root.__dict__.get("_mt_cls") if hasattr(root, "__dict__") else None
    return cls if cls is not None else type(root)


# ---------------------------------------------------------------- code


def _literal(node):
    if not node._attrs:
        return "None"
    kind, v = node._attrs["value"]
    out_type = node._outputs[0].type()
    if kind == "t":
        return None  # a CONSTANTS.cN reference, numbered by graph_code
    if out_type == BOOL:
        return "True" if v else "False"
    if kind == "f":
        return _fmt_float(v)
    if kind == "s":
        return f'"{v}"'
    return str(v)


def _has_name(v):
    return not v.debugName().isdigit()


class _Printer:
    """PyTorch's python_print over our IR: a reverse scan decides which values are written inside the
    expression that reads them (read once, by the next statement in order, unnamed: constants always), then
    statements are printed in order, an inlined expression of 40 columns or more being split out as its own
    ``_N = ...`` statement with the inlined arguments before it (python_print.cpp's splitLongInlines)."""

    def __init__(self, graph):
        self.g = graph
        self.inline = set()
        self.expr = {}
        self.lines = []
        self.visited = {}
        self.split = set()
        self.n_temps = 0
        self.n_consts = 0
        self.local_names = {}

    # ---- which values are inlined

    def prev(self, node):
        nodes = self.g._nodes
        if node is self.g._return:
            return nodes[-1] if nodes else self.g._param
        i = nodes.index(node)
        return nodes[i - 1] if i > 0 else self.g._param

    def previous_non_constant(self, node):
        node = self.prev(node)
        while node.kind() == "prim::Constant":
            node = self.prev(node)
        return node

    @staticmethod
    def can_inline(v):
        node = v.node()
        if len(node._outputs) != 1 or len(v._uses) != 1:
            return False
        return not (_has_name(v) and v._uses[0].user.kind() != "prim::Return")

    def scan_value(self, block_point, v):
        node = v.node()
        if node is block_point and self.can_inline(v):
            block_point = self.scan_node(block_point)
            self.inline.add(node)
        elif node.kind() == "prim::Constant":
            self.inline.add(node)
        return block_point

    def scan_node(self, node):
        if node in self.inline:
            return node
        block_point = self.previous_non_constant(node)
        for v in reversed(node._inputs):
            block_point = self.scan_value(block_point, v)
        return block_point

    # ---- printing

    def name_of(self, v):
        if _has_name(v):
            base = v.debugName().replace(".", "_") if v.node().kind() == "prim::GetAttr" else v.debugName()
            base = base.split(".")[0]
            n = self.local_names.get(base, 0)
            self.local_names[base] = n + 1
            return base if n == 0 else f"{base}{n - 1}"
        # temporaries skip the names a named value took (a Sequential's "_0")
        name = f"_{self.n_temps}"
        self.n_temps += 1
        while name in self.local_names:
            name = f"_{self.n_temps}"
            self.n_temps += 1
        self.local_names[name] = 1
        return name

    def statement(self, node, rhs):
        names = [self.name_of(v) for v in node._outputs]
        for v, name in zip(node._outputs, names):
            self.expr[v] = name
        self.lines.append(f"  {', '.join(names)} = {rhs}")

    def rhs(self, node):
        kind = node.kind()
        ins = [self.expr[v] for v in node._inputs]
        ins = ins[: len(ins) - getattr(node, "_n_defaults", 0)]
        if kind == "prim::Constant":
            lit = _literal(node)
            if lit is None:
                lit = f"CONSTANTS.c{self.n_consts}"
                self.n_consts += 1
            return lit
        if kind == "prim::GetAttr":
            attr = node.s("name")
            return f"{ins[0]}.{attr}" if attr.isidentifier() else f'getattr({ins[0]}, "{attr}")'
        if kind == "prim::CallMethod":
            return f"({ins[0]}).{node.s('name')}({''.join(a + ', ' for a in ins[1:])})"
        if kind == "prim::ListConstruct":
            return f"[{', '.join(ins)}]"
        if kind == "prim::TupleConstruct":
            return f"({ins[0]},)" if len(ins) == 1 else f"({', '.join(ins)})"
        if kind == "prim::DictConstruct":
            return "{" + ", ".join(f"{ins[i]}: {ins[i + 1]}" for i in range(0, len(ins), 2)) + "}"
        if kind in ("prim::TupleIndex", "aten::__getitem__"):
            return f"{ins[0]}[{ins[1]}]" if ins[0].isidentifier() else f"({ins[0]})[{ins[1]}]"
        if kind.startswith("aten::"):
            return f"torch.{kind[6:]}({', '.join(ins)})"
        return f"ops.{kind.replace('::', '.')}({', '.join(ins)})"

    def is_non_constant_inline(self, v):
        return v.node() in self.inline and v.node().kind() != "prim::Constant" and v not in self.split

    def scan_long_inlines(self, user, offset, acc):
        present = user in self.visited
        stop = self.visited[user] + 1 if present else 0
        for i in range(offset, stop - 1, -1):
            arg = user._inputs[i]
            if self.is_non_constant_inline(arg):
                acc.append(arg)
        self.visited[user] = offset
        if not present and user in self.inline:
            use = user._outputs[0]._uses[0]
            self.scan_long_inlines(use.user, use.offset - 1, acc)

    def split_long_inlines(self, v):
        acc = []
        use = v._uses[0]
        self.scan_long_inlines(use.user, use.offset, acc)
        for arg in reversed(acc):
            self.split.add(arg)
            name = self.name_of(arg)
            self.lines.append(f"  {name} = {self.expr[arg]}")
            self.expr[arg] = name

    def run(self, name):
        g = self.g
        self.scan_node(g._return)
        for node in reversed(g._nodes):
            self.scan_node(node)
        inputs = g._param._outputs
        params = []
        for v in inputs:
            pname = v.debugName().split(".")[0]
            self.expr[v] = pname
            self.local_names[pname] = 1
            params.append(pname if v.type().kind() == "ClassType" else f"{pname}: {v.type().annotation_str}")
        outs = g._return._inputs
        ret = (
            outs[0].type().annotation_str
            if len(outs) == 1
            else "Tuple[" + ", ".join(v.type().annotation_str for v in outs) + "]"
        )
        sep = ",\n    "
        head = f"def {name}({sep.join(params)}) -> {ret}:"
        for node in g._nodes:
            text = self.rhs(node)
            if node not in self.inline:
                self.statement(node, text)
                continue
            v = node._outputs[0]
            self.expr[v] = text
            if node.kind() != "prim::Constant" and len(text) + 2 >= 40:
                self.split_long_inlines(v)
        self.lines.append(f"  return {', '.join(self.expr[v] for v in outs)}")
        return head + "\n" + "\n".join(self.lines) + "\n"


def graph_code(graph, name="forward"):
    """TorchScript-style code of an IR Graph, as PyTorch's ``.code`` prints it: ``def forward(self,\\n    x:
    Tensor) -> Tensor:`` then two-space statements (_Printer decides which values are written inline)."""
    return _Printer(graph).run(name)


def code_constants(graph):
    """{'c0': tensor, ...}: the tensor constants graph_code names CONSTANTS.cN, in its order."""
    tensors = [
        n._attrs["value"][1]
        for n in graph.nodes()
        if n.kind() == "prim::Constant" and n._attrs.get("value", ("",))[0] == "t"
    ]
    return {f"c{i}": t for i, t in enumerate(tensors)}
