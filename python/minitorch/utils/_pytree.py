"""torch.utils._pytree: nested Python containers as trees of leaves, as PyTorch's (the module libraries and
training scripts import for tree_map over batches and outputs).

Nodes are tuple, list, dict, OrderedDict, defaultdict, deque and namedtuples (their specs' type is
``collections.namedtuple``, the class their context), plus the classes given to ``register_pytree_node``;
everything else, None included, is a leaf. dict keys keep insertion order. The transforms of torch.func keep
their own smaller helpers (func/_pytree.py)."""

import collections
import dataclasses
import functools
from collections import OrderedDict, defaultdict, deque

__all__ = [
    "SUPPORTED_NODES",
    "LeafSpec",
    "PyTree",
    "TreeSpec",
    "register_pytree_node",
    "tree_all",
    "tree_all_only",
    "tree_any",
    "tree_any_only",
    "tree_flatten",
    "tree_iter",
    "tree_leaves",
    "tree_map",
    "tree_map_",
    "tree_map_only",
    "tree_map_only_",
    "tree_structure",
    "tree_unflatten",
    "treespec_leaf",
]

PyTree = object


@dataclasses.dataclass(frozen=True)
class NodeDef:
    """How a registered type comes apart: flatten_fn(node) -> (children, context) and
    unflatten_fn(children, context) -> node."""

    type: type
    flatten_fn: object
    unflatten_fn: object


SUPPORTED_NODES = {}


def register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
):
    """Makes cls a node type: flatten_fn(obj) gives (children, context), unflatten_fn(children, context) the
    object back. ValueError for a class already registered, as PyTorch's."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, **kwargs):
    # the older private spelling that libraries still call
    register_pytree_node(cls, flatten_fn, unflatten_fn)


def _seq_flatten(seq):
    return list(seq), None


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_unflatten(values, context):
    return dict(zip(context, values))


def _odict_unflatten(values, context):
    return OrderedDict(zip(context, values))


def _ddict_flatten(d):
    return list(d.values()), [d.default_factory, list(d.keys())]


def _ddict_unflatten(values, context):
    factory, keys = context
    return defaultdict(factory, zip(keys, values))


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


def _namedtuple_flatten(nt):
    return list(nt), type(nt)


def _namedtuple_unflatten(values, context):
    return context(*values)


register_pytree_node(tuple, _seq_flatten, lambda values, context: tuple(values))
register_pytree_node(list, _seq_flatten, lambda values, context: list(values))
register_pytree_node(dict, _dict_flatten, _dict_unflatten)
register_pytree_node(OrderedDict, _dict_flatten, _odict_unflatten)
register_pytree_node(defaultdict, _ddict_flatten, _ddict_unflatten)
register_pytree_node(deque, _deque_flatten, _deque_unflatten)
register_pytree_node(collections.namedtuple, _namedtuple_flatten, _namedtuple_unflatten)
BUILTIN_TYPES = frozenset({tuple, list, dict, OrderedDict, defaultdict, deque, collections.namedtuple})
_STANDARD_DICTS = (dict, OrderedDict, defaultdict)


def _is_namedtuple_class(t):
    return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields") and t is not tuple


def _get_node_type(x):
    # every namedtuple class is one node type, as in PyTorch
    t = type(x)
    return collections.namedtuple if _is_namedtuple_class(t) else t


def _node_def(t):
    return SUPPORTED_NODES.get(t)


def _is_leaf(x, is_leaf=None):
    return (is_leaf is not None and is_leaf(x)) or _node_def(_get_node_type(x)) is None


class TreeSpec:
    """The structure of a pytree: its node type, context (dict keys, namedtuple class, ...) and children."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self._context = context
        self.context = context
        self._children = list(children_specs)
        self.children_specs = self._children
        self.num_children = len(self._children)
        self.num_leaves = sum(c.num_leaves for c in self._children)
        self.num_nodes = 1 + sum(c.num_nodes for c in self._children)

    def is_leaf(self):
        """Whether this is a leaf's spec."""
        return False

    def children(self):
        """The children's specs."""
        return self._children.copy()

    def child(self, index):
        """The spec of child index."""
        return self._children[index]

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (
            self.type == other.type and self._context == other._context and self._children == other._children
        )

    def __hash__(self):
        return hash((self.type, self.num_children))

    def __repr__(self, indent=0):
        prefix = f"TreeSpec({self.type.__name__}, {self._context}, ["
        body = ""
        if self.num_children > 0:
            indent += 2
            body += self._children[0].__repr__(indent)
            body += "," if self.num_children > 1 else ""
            body += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return prefix + body + "])"

    def flatten_up_to(self, tree):
        """The subtrees of tree at this spec's leaves (tree must have this structure down to them)."""
        out = []
        _flatten_up_to(self, tree, out)
        return out

    def unflatten(self, leaves):
        """The pytree of this structure with the given leaves."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a pytree "
                f"that holds {self.num_leaves} items ({self}).",
            )
        it = iter(leaves)
        return _build(self, it)


class LeafSpec(TreeSpec):
    """The spec of a leaf (printed ``*``)."""

    def __init__(self):
        super().__init__(None, None, [])
        self.num_nodes = 1
        self.num_leaves = 1

    def is_leaf(self):
        """True: this is a leaf's spec."""
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __hash__(self):
        return 0

    def __repr__(self, indent=0):
        return "*"

    def __reduce__(self):
        return (treespec_leaf, ())


_LEAF = LeafSpec()


def treespec_leaf():
    """The (shared) spec of a leaf."""
    return _LEAF


def _build(spec, it):
    if spec.is_leaf():
        return next(it)
    children = [_build(c, it) for c in spec._children]
    return _node_def(spec.type).unflatten_fn(children, spec._context)


def _flatten_up_to(spec, node, out):
    if spec.is_leaf():
        out.append(node)
        return
    node_type = _get_node_type(node)
    if spec.type not in BUILTIN_TYPES:
        if node_type != spec.type:
            raise ValueError(f"Type mismatch; expected {spec.type!r}, but got {node_type!r}.")
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        if len(children) != spec.num_children:
            raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}.")
        if context != spec._context:
            raise ValueError(f"Node context mismatch for custom node type {spec.type!r}.")
    else:
        both_dicts = spec.type in _STANDARD_DICTS and node_type in _STANDARD_DICTS
        if not both_dicts and node_type != spec.type:
            raise ValueError(f"Node type mismatch; expected {spec.type!r}, but got {node_type!r}.")
        if len(node) != spec.num_children:
            raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got {len(node)}.")
        if both_dicts:
            keys = spec._context if spec.type is not defaultdict else spec._context[1]
            got, expected = set(node), set(keys)
            if got != expected:
                message = ""
                if expected - got:
                    message += f"; missing key(s): {expected - got}"
                if got - expected:
                    message += f"; extra key(s): {got - expected}"
                raise ValueError(f"Node keys mismatch{message}.")
            children = [node[k] for k in keys]
        else:
            children, context = _node_def(node_type).flatten_fn(node)
            if node_type is not deque and context != spec._context:
                raise ValueError(
                    f"Node context mismatch for node type {spec.type!r}; expected {spec._context!r}, but got "
                    f"{context!r}.",
                )
    for child, child_spec in zip(children, spec._children):
        _flatten_up_to(child_spec, child, out)


def tree_flatten(tree, is_leaf=None):
    """([leaves], TreeSpec): the leaves left to right and the structure holding them."""
    leaves = []

    def walk(x):
        if _is_leaf(x, is_leaf):
            leaves.append(x)
            return _LEAF
        t = _get_node_type(x)
        children, context = _node_def(t).flatten_fn(x)
        return TreeSpec(t, context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The pytree of treespec's structure with the given leaves."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"Expected `treespec` to be an instance of PyTreeSpec but got item of type {type(treespec)}."
        )
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves, left to right, as an iterator."""
    if _is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = _node_def(_get_node_type(tree)).flatten_fn(tree)
    for c in children:
        yield from tree_iter(c, is_leaf)


def tree_leaves(tree, is_leaf=None):
    """The leaves, left to right."""
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    """The TreeSpec of tree."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """The same structure with func(leaf, *leaves of rests at that place) at each leaf; each of rests has tree's
    structure (or tree's structure as its prefix)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Calls func on each leaf (with the matching leaves of rests) for its effect; returns tree."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    collections.deque(map(func, *flat), maxlen=0)
    return tree


def _type_pred(type_or_types_or_pred):
    if isinstance(type_or_types_or_pred, (type, tuple)):
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def _only(type_or_types_or_pred, func):
    pred = _type_pred(type_or_types_or_pred)

    @functools.wraps(func)
    def wrapped(x):
        return func(x) if pred(x) else x

    return wrapped


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    """tree_map applying func only to the leaves of the given type(s) (or passing the predicate); the other
    leaves are kept."""
    return tree_map(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    """tree_map_ over the leaves of the given type(s) only."""
    return tree_map_(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    """Whether pred holds for every leaf."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    """Whether pred holds for some leaf."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None):
    """Whether pred holds for every leaf of the given type(s)."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred, tree, is_leaf=None):
    """Whether pred holds for some leaf of the given type(s)."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))
