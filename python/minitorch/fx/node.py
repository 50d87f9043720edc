"""torch.fx.node: Node (one operation of a Graph), Argument, map_arg and map_aggregate."""

import operator
from typing import Any, Union

__all__ = ["Argument", "Node", "Target", "has_side_effect", "map_aggregate", "map_arg"]

Target = Union[str, Any]  # a callable for call_function, an attribute path or method name otherwise
Argument = Any  # None, numbers, str, slices, dtypes, devices, Nodes, and tuples/lists/dicts of them

_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")

# call_function targets that must survive dead-code elimination (see has_side_effect)
_side_effectful_functions = {operator.setitem}


def has_side_effect(fn):
    """Marks fn as impure: a call_function node of it is never removed by eliminate_dead_code."""
    _side_effectful_functions.add(fn)
    return fn


def map_aggregate(a, fn):
    """Applies fn to every leaf of a nested tuple/list/dict/slice argument, rebuilding the containers."""
    t = type(a)
    if t is tuple or (isinstance(a, tuple) and not hasattr(a, "_fields")):
        return tuple(map_aggregate(x, fn) for x in a)
    if isinstance(a, tuple):  # a namedtuple keeps its type
        return t(*(map_aggregate(x, fn) for x in a))
    if isinstance(a, list):
        return [map_aggregate(x, fn) for x in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Applies fn to each Node inside the (nested) argument a; everything else is kept."""
    if not callable(fn):
        raise TypeError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _qualified_name(target):
    """A printable dotted name for a call_function target ("torch.add", "operator.add", "builtins.getattr")."""
    from minitorch.fx._names import qualified_name

    return qualified_name(target)


def _type_repr(t):
    if t is None:
        return ""
    if isinstance(t, type):
        if t.__module__ == "builtins":
            return t.__qualname__
        mod = t.__module__
        if mod.startswith("minitorch"):
            mod = "torch" + mod[len("minitorch") :]
            if mod == "torch._C":
                mod = "torch"
        return f"{mod}.{t.__qualname__}"
    return repr(t)


def _format_arg(arg):
    """Argument as Graph printing shows it: %name for nodes, strings bare."""
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple):
        inner = ", ".join(_format_arg(a) for a in arg)
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + arg.name
    return str(arg)


class Node:
    """One operation of a Graph: ``op`` (placeholder, get_attr, call_function, call_method, call_module,
    output), ``target``, ``args``/``kwargs`` (which may hold other Nodes), the ``users`` that read its value,
    and a free-form ``meta`` dict. Nodes form a doubly linked list in their graph's order."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPS:
            raise ValueError(f"Node op must be one of {_OPS[:-1]}, got {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(
                f"Node [graph = {graph}, name = '{name}'] target {target} has type {type(target)} but a "
                "Callable is expected"
            )
        if op in ("placeholder", "call_method", "call_module", "get_attr") and not isinstance(target, str):
            raise ValueError(
                f"Node [graph = {graph}, name = '{name}'] target {target} has type {type(target)} but a "
                "str is expected"
            )
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta = {}
        self._mt_public = None  # (target, "torch.nn.functional.relu"): the name the user called it by
        self._args = ()
        self._kwargs = {}
        self._update_args_kwargs(args, kwargs)

    # ---- list links
    @property
    def next(self):
        """The node after this one in the graph (the graph's sentinel after the last)."""
        return self._next

    @property
    def prev(self):
        """The node before this one in the graph."""
        return self._prev

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    def prepend(self, x):
        """Moves x (a node of the same graph) to just before this node."""
        if x is self:
            return
        if x.graph is not self.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Moves x to just after this node."""
        self._next.prepend(x)

    # ---- arguments and uses
    @property
    def args(self):
        """The positional arguments (setting them updates the users of the nodes involved)."""
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        """The keyword arguments (setting them updates the users of the nodes involved)."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        """The distinct Nodes among args and kwargs, in order of appearance."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args, new_kwargs):
        new_args = tuple(new_args)
        new_kwargs = dict(new_kwargs)
        found = {}

        def collect(n):
            found.setdefault(n, None)
            return n

        self._args = map_arg(new_args, collect)
        self._kwargs = map_arg(new_kwargs, collect)
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = found
        for n in found:
            n.users.setdefault(self, None)

    def update_arg(self, idx, arg):
        """Sets args[idx]."""
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx, arg):
        """Inserts arg at position idx of args."""
        args = list(self._args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        """Sets kwargs[key]."""
        self.kwargs = {**self._kwargs, key: arg}

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False):
        """Makes every user of this node (those for which delete_user_cb returns True) read replace_with
        instead; returns the users changed. propagate_meta copies this node's meta into replace_with's
        (which must then be empty)."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError(
                    "Called node.replace_all_uses_with(replace_with, propagate_meta=True), but replace_with "
                    "already has .meta keys"
                )
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if not delete_user_cb(user):
                continue
            user._replace_input(self, replace_with)
            changed.append(user)
        return changed

    def _replace_input(self, old, new):
        def swap(n):
            return new if n is old else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_input_with(self, old_input, new_input):
        """Makes this node read new_input wherever it read old_input."""
        self._replace_input(old_input, new_input)

    # ---- properties
    @property
    def stack_trace(self):
        """Where the traced code created this node, when recorded (meta['stack_trace'])."""
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random=True):
        """Whether eliminate_dead_code must keep this node although nothing reads it: placeholders, outputs,
        side-effectful functions, impure modules, and in-place methods (their effect is the mutation)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            if self.target in _side_effectful_functions:
                return True
            name = getattr(self.target, "__name__", "")
            return name.endswith("_") and not name.startswith("_")
        if self.op == "call_method":
            return self.target.endswith("_") and not self.target.startswith("_")
        if self.op == "call_module":
            mod = self.graph.owning_module
            if mod is None:
                return False
            try:
                return bool(getattr(mod.get_submodule(self.target), "_is_impure", False))
            except AttributeError:
                return False
        return False

    def _pretty_target(self):
        if self.op == "call_function":
            return _qualified_name(self.target)
        return self.target

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """The line Graph printing shows for this node."""
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : {typename}[num_users={len(self.users)}] = placeholder[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"%{self.name} : {typename}[num_users={len(self.users)}] = get_attr[target={self.target}]"
        if self.op == "output":
            if self.type is not None and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (
            f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}[target={self._pretty_target()}]"
            f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"
        )

    def __repr__(self):
        return self.name

    # Nodes are graph identities: equal only to themselves, hashable by identity
    __hash__ = object.__hash__
