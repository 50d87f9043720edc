"""torch.fx.Graph: the node list of a traced program, its editing API, printing, linting and Python codegen."""

import builtins
import copy
import enum
import inspect
import math
import operator
import sys
import types
import warnings

from minitorch import _C
from minitorch.fx._names import Namespace, qualified_name, snake_case, torch_path
from minitorch.fx.node import Node, map_aggregate, map_arg

__all__ = ["Graph", "PythonCode"]

# operator functions printed infix, as PyTorch's codegen does
_REFLECTABLE = {
    "add": "{} + {}",
    "sub": "{} - {}",
    "mul": "{} * {}",
    "floordiv": "{} // {}",
    "truediv": "{} / {}",
    "div": "{} / {}",
    "mod": "{} % {}",
    "pow": "{} ** {}",
    "lshift": "{} << {}",
    "rshift": "{} >> {}",
    "and_": "{} & {}",
    "or_": "{} | {}",
    "xor": "{} ^ {}",
    "getitem": "{}[{}]",
    "matmul": "{} @ {}",
}
_MAGIC = {
    "eq": "{} == {}",
    "ne": "{} != {}",
    "lt": "{} < {}",
    "gt": "{} > {}",
    "le": "{} <= {}",
    "ge": "{} >= {}",
    "pos": "+{}",
    "neg": "-{}",
    "invert": "~{}",
    **_REFLECTABLE,
}


class PythonCode:
    """The source of a graph's generated ``forward`` and the globals it runs with."""

    def __init__(self, src, globals_):
        self.src = src
        self.globals = globals_


class _InsertPoint:
    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        self.graph._insert = self.orig_insert


class _NodeList:
    """The graph's nodes in order (or reversed); iteration tolerates erasing the node just yielded."""

    def __init__(self, graph, forward=True):
        self.graph = graph
        self.forward = forward

    def __len__(self):
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        step = "_next" if self.forward else "_prev"
        cur = getattr(root, step)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, step)

    def __reversed__(self):
        return iter(_NodeList(self.graph, not self.forward))

    def __repr__(self):
        return repr(list(self))


def _format_target(base, target):
    """'self.layer1.0.conv' as Python: getattr(...) for atoms that are not identifiers."""
    out = base
    for atom in target.split("."):
        out = f"{out}.{atom}" if atom.isidentifier() else f'getattr({out}, "{atom}")'
    return out


def _exact_builtin(obj):
    name = getattr(obj, "__name__", None)
    return name is not None and getattr(builtins, name, None) is obj


class Graph:
    """A program as a list of Nodes: placeholders (inputs), get_attr, call_function, call_method, call_module,
    and one output. Build it with the node-creating methods, edit it (inserting_before/after, erase_node,
    Node.replace_all_uses_with), check it with lint(), and turn it into Python with python_code()."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._namespace = Namespace()
        self._len = 0
        self._insert = self._root.prepend
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._co_fields = {}

    # ---- structure
    @property
    def nodes(self):
        """The nodes in order (len(), iteration, reversed())."""
        return _NodeList(self)

    @property
    def owning_module(self):
        """The GraphModule this graph belongs to (None for a free graph)."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    def find_nodes(self, *, op, target=None, sort=True):
        """The nodes with the given op (and target when given), in graph order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    def output_node(self):
        """The graph's output node."""
        for n in reversed(self.nodes):
            if n.op == "output":
                return n
        raise RuntimeError("Graph has no output node")

    # ---- creating nodes
    def _target_to_str(self, target):
        if callable(target):
            op = getattr(target, "__name__", None) or type(target).__name__
        else:
            op = target
            if op.startswith("__") and op.endswith("__"):
                op = op[2:-2]
        return snake_case(op)

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Creates a node at the current insertion point (the end unless inserting_before/after says
        otherwise), named after name or the target, made unique."""
        args = () if args is None else tuple(args)
        kwargs = {} if kwargs is None else dict(kwargs)
        candidate = name if name is not None else self._target_to_str(target)
        unique = self._namespace.create_name(candidate)
        n = Node(self, unique, op, target, args, kwargs, type_expr)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        """An input of the program; default_value makes it optional in the generated signature."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """Reads the attribute at qualified_name of the owning module (a parameter, buffer, submodule...)."""
        mod = self.owning_module
        if mod is not None and not _has_attr_path(mod, qualified_name):
            warnings.warn(
                "Attempted to insert a get_attr Node with no underlying reference in the owning "
                "GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                "GraphModule.add_parameter to add the necessary Parameter, or nn.Module.register_buffer "
                "to add the necessary buffer",
                stacklevel=2,
            )
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        """Calls the submodule at module_name with args and kwargs."""
        mod = self.owning_module
        if mod is not None and not _has_attr_path(mod, module_name):
            warnings.warn(
                "Attempted to insert a call_module Node with no underlying reference in the owning "
                "GraphModule! Call GraphModule.add_submodule to add the necessary submodule",
                stacklevel=2,
            )
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        """Calls args[0].method_name(*args[1:], **kwargs)."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        """Calls the_function(*args, **kwargs)."""
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        """The program's result (a node, a constant, or a nested tuple/list/dict of them)."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of node (from any graph) inserted here, its Node arguments mapped through arg_transform."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        out = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        out.meta = copy.copy(node.meta)
        out._mt_public = getattr(node, "_mt_public", None)
        return out

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copies every node of g but its output into this graph (val_map: old node -> new, filled in);
        returns what g's output refers to, mapped (and the old output node when return_output_node)."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo):
        g = Graph(tracer_cls=self._tracer_cls)
        memo[id(self)] = g
        out = g.graph_copy(self, {}, return_output_node=True)
        if out is not None:
            rv, old = out
            new = g.output(rv, type_expr=old.type)
            new.meta = copy.copy(old.meta)
        return g

    # ---- editing
    def erase_node(self, to_erase):
        """Removes a node that nothing reads any more."""
        if len(to_erase.users) > 0:
            raise RuntimeError(
                f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in the graph: "
                f"{to_erase.users}!"
            )
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs(
            map_arg(to_erase._args, lambda n: None), map_arg(to_erase._kwargs, lambda n: None)
        )

    def inserting_before(self, n=None):
        """Context manager: nodes created inside go just before n (None: at the start of the graph)."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """Context manager: nodes created inside go just after n (None: at the end of the graph). Each new
        node goes right after n, so several land in reverse order of creation, as in PyTorch."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def eliminate_dead_code(self, is_impure_node=None):
        """Erases the nodes whose value nothing reads and that have no side effect; True if any was."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self):
        """Checks the graph: nodes belong to it, arguments are defined before use, names are unique, there is
        one output at the end, and get_attr/call_module targets exist in the owning module."""
        seen_names, seen_nodes = set(), set()
        for node in self.nodes:
            if node.op not in (
                "placeholder",
                "call_method",
                "call_module",
                "call_function",
                "get_attr",
                "output",
            ):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(
                        f"Argument '{arg}' of Node '{node}' does not belong to this Graph, but was used as an "
                        "argument! If you are copying nodes from another graph, make sure to use "
                        f"``arg_transform`` on node_copy() to remap values\n{self}"
                    )
                if arg not in seen_nodes:
                    raise RuntimeError(
                        f"Argument '{arg}' of Node '{node}' was used before it has been defined! Please check "
                        f"that Nodes in the graph are topologically ordered\n{self}"
                    )
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
            seen_nodes.add(node)
        outputs = [n for n in self.nodes if n.op == "output"]
        if len(outputs) > 1:
            raise RuntimeError(f"Graph has {len(outputs)} output nodes; a graph has one output")
        mod = self.owning_module
        if mod is not None:
            for node in self.nodes:
                if node.op in ("get_attr", "call_module"):
                    atoms = node.target.split(".")
                    cur = mod
                    for i, atom in enumerate(atoms):
                        if not hasattr(cur, atom):
                            seen = ".".join(atoms[:i])
                            raise RuntimeError(
                                f"Node {node} target {node.target} references nonexistent attribute {atom} "
                                f"of {seen or 'root'}"
                            )
                        cur = getattr(cur, atom)
                    if node.op == "call_module" and not _is_module(cur):
                        raise RuntimeError(f"Node {node} target {node.target} {atom} is not a module")

    # ---- printing
    def __str__(self):
        ret = [None]
        lines = [n.format_node(maybe_return_typename=ret) for n in self.nodes]
        head = f"graph(){ret[0] or ''}:"
        return head + "".join("\n    " + line for line in lines)

    def __repr__(self):
        return self.__str__()

    def print_tabular(self):
        """Prints the nodes as a table (opcode, name, target, args, kwargs)."""
        rows = [[n.op, n.name, _tabular_target(n), str(n.args), str(n.kwargs)] for n in self.nodes]
        print(_table(["opcode", "name", "target", "args", "kwargs"], rows))

    # ---- pickling: nodes by name, rebuilt in order
    def __getstate__(self):
        records = []
        for n in self.nodes:

            def ref(x):
                return _NodeRef(x.name)

            records.append((
                n.name, n.op, n.target, map_arg(n.args, ref), map_arg(n.kwargs, ref), n.type, n.meta,
                getattr(n, "_mt_public", None),
            ))  # fmt: skip
        return {"records": records, "co_fields": self._co_fields}

    def __setstate__(self, state):
        self.__init__()
        self._co_fields = state.get("co_fields", {})
        by_name = {}

        def deref(x):
            return by_name[x.name] if isinstance(x, _NodeRef) else x

        for name, op, target, args, kwargs, type_expr, meta, public in state["records"]:
            n = self.create_node(
                op, target, map_aggregate(args, deref), map_aggregate(kwargs, deref), name, type_expr
            )
            n.meta = meta
            n._mt_public = public
            by_name[name] = n

    # ---- code generation
    def python_code(self, root_module="self", *, verbose=False):
        """The Python source of ``forward(self, <placeholders>)`` computing this graph, and its globals."""
        return _CodeGen(self, root_module).generate()


class _NodeRef:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return (_NodeRef, (self.name,))


def _is_module(obj):
    from minitorch.nn.modules.module import Module

    return isinstance(obj, Module)


def _has_attr_path(mod, target):
    cur = mod
    for atom in target.split("."):
        if not hasattr(cur, atom):
            return False
        cur = getattr(cur, atom)
    return True


def _tabular_target(n):
    # our builtins print as pybind11 records; their torch name says more
    if n.op == "call_function":
        return torch_path(n.target) or str(n.target)
    return str(n.target)


def _table(headers, rows):
    """A plain-text table in the layout of tabulate's default format."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    fmt = "  ".join("{:<%d}" % w for w in widths)  # noqa: UP031  (widths vary per column)
    lines = [fmt.format(*headers).rstrip(), "  ".join("-" * w for w in widths)]
    lines += [fmt.format(*r).rstrip() for r in rows]
    return "\n".join(lines)


class _CodeGen:
    """Turns a graph into the source of its forward, naming what it needs in a globals dict."""

    def __init__(self, graph, root_module):
        self.graph = graph
        self.root_module = root_module
        self.namespace = Namespace()
        self.globals = {
            "torch": sys.modules["minitorch"],
            "inf": math.inf,
            "nan": math.nan,
            "NoneType": type(None),
            "device": _C.device,
        }
        for n in graph.nodes:
            self.namespace.reserve(n.name)
        for name in self.globals:
            self.namespace.reserve(name)

    def add_global(self, hint, obj):
        """A name by which the generated code reaches obj."""
        if _exact_builtin(obj):
            return obj.__name__
        path = torch_path(obj) if callable(obj) or isinstance(obj, types.ModuleType) else None
        if path is not None:
            return path
        for name, val in self.globals.items():
            if val is obj:
                return name
        name = self.namespace.create_name(hint.replace(".", "_"))
        self.globals[name] = obj
        return name

    def target_expr(self, node):
        target = node.target
        public = getattr(node, "_mt_public", None)
        if public is not None and public[0] is target:
            return public[1]
        hint = f"{getattr(target, '__module__', None) or ''}.{getattr(target, '__name__', 'fn')}"
        return self.add_global(qualified_name(target) if torch_path(target) else hint, target)

    def repr_arg(self, a):
        if isinstance(a, Node):
            return a.name
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            cls = self.add_global(qualified_name(type(a)), type(a))
            return f"{cls}({', '.join(self.repr_arg(x) for x in a)})"
        if isinstance(a, tuple):
            inner = ", ".join(self.repr_arg(x) for x in a)
            return f"({inner},)" if len(a) == 1 else f"({inner})"
        if isinstance(a, list):
            return "[" + ", ".join(self.repr_arg(x) for x in a) + "]"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{self.repr_arg(k)}: {self.repr_arg(v)}" for k, v in a.items()) + "}"
        if isinstance(a, slice):
            return f"slice({self.repr_arg(a.start)}, {self.repr_arg(a.stop)}, {self.repr_arg(a.step)})"
        if isinstance(a, float):
            if math.isinf(a):
                return "inf" if a > 0 else "-inf"
            if math.isnan(a):
                return "nan"
            return repr(a)
        if a is None or a is Ellipsis or isinstance(a, (bool, int, str, bytes, complex)):
            return repr(a)
        if isinstance(a, _C.dtype):
            return repr(a)  # torch.float32
        if isinstance(a, _C.device):
            return repr(a)  # device(type='cpu')
        if isinstance(a, enum.Enum):
            cls = self.add_global(qualified_name(type(a)), type(a))
            return f"{cls}.{a.name}"
        if isinstance(a, (type, types.FunctionType, types.BuiltinFunctionType)) or callable(a):
            return self.add_global(qualified_name(a), a)
        if type(a).__name__ == "Size" and isinstance(a, tuple):
            return f"torch.Size({list(a)!r})"
        return repr(a)

    def call_args(self, args, kwargs):
        parts = [self.repr_arg(a) for a in args]
        parts += [f"{k} = {self.repr_arg(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def generate(self):
        nodes = list(self.graph.nodes)
        # each value is freed (set to None) right after its last use, as PyTorch's generated code does
        last_use, to_free = {}, {}
        for node in reversed(nodes):
            for inp in _ordered_inputs(node):
                if inp not in last_use:
                    last_use[inp] = node
                    to_free.setdefault(node, []).append(inp)
        free_vars, body = [], []
        self.wrapped = {}
        for node in nodes:
            line = self.emit(node, free_vars)
            if line is None:
                continue
            if node.op not in ("placeholder", "output"):
                freed = [n.name for n in to_free.get(node, [])]
                if not node.users:
                    freed.append(node.name)
                if freed:
                    line += ";  " + " = ".join(freed) + " = None"
            body.append(line)
        if not body:
            body = ["pass"]
        # functions wrap()ped while tracing stay calls when the generated module is traced again
        wrap_stmts = "\n".join(f'torch.fx._symbolic_trace.wrap("{name}")' for name in self.wrapped)
        src = (
            "\n"
            + wrap_stmts
            + "\n\ndef forward("
            + ", ".join([self.root_module, *free_vars])
            + "):\n"
            + "".join("    " + line + "\n" for line in body)
            + "    "
        )
        return PythonCode(src, self.globals)

    def emit(self, node, free_vars):
        op, target, args, kwargs = node.op, node.target, node.args, node.kwargs
        if op == "placeholder":
            if args:
                free_vars.append(f"{target} = {self.repr_arg(args[0])}")
            else:
                free_vars.append(target)
            raw = target.lstrip("*")
            return None if raw == node.name else f"{node.name} = {raw}"
        if op == "call_method":
            return f"{node.name} = {self.repr_arg(args[0])}.{target}({self.call_args(args[1:], kwargs)})"
        if op == "call_function":
            mod = getattr(target, "__module__", None)
            fname = getattr(target, "__name__", None)
            if mod == "_operator" and fname in _MAGIC and not kwargs and target is getattr(operator, fname):
                return f"{node.name} = {_MAGIC[fname].format(*(self.repr_arg(a) for a in args))}"
            if (
                target is builtins.getattr
                and len(args) == 2
                and isinstance(args[1], str)
                and args[1].isidentifier()
            ):
                return f"{node.name} = {self.repr_arg(args[0])}.{args[1]}"
            expr = self.target_expr(node)
            if node.meta.get("is_wrapped"):
                self.wrapped[expr] = None
            return f"{node.name} = {expr}({self.call_args(args, kwargs)})"
        if op == "call_module":
            return f"{node.name} = {_format_target(self.root_module, target)}({self.call_args(args, kwargs)})"
        if op == "get_attr":
            return f"{node.name} = {_format_target(self.root_module, target)}"
        if op == "output":
            return f"return {self.repr_arg(args[0])}"
        raise NotImplementedError(f"node: {op} {target}")


def _ordered_inputs(node):
    seen = {}
    map_arg(node.args, lambda n: seen.setdefault(n, None))
    map_arg(node.kwargs, lambda n: seen.setdefault(n, None))
    return list(seen)
