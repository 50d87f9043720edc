"""Python containers as trees of leaves (tuple, list, dict, OrderedDict, namedtuple, Size), for the transforms'
in_dims, out_dims, argnums and outputs; the structure prints as PyTorch's TreeSpec does, since its error messages show it."""

import collections

from minitorch._size import Size

__all__ = ["LEAF", "TreeSpec", "broadcast_to_and_flatten", "tree_flatten", "tree_map", "tree_unflatten"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class TreeSpec:
    """The shape of a container tree: its type, context (dict keys, namedtuple class) and children's specs."""

    __slots__ = ("children", "context", "num_leaves", "type")

    def __init__(self, typ, context, children):
        self.type = typ
        self.context = context
        self.children = children
        self.num_leaves = sum(c.num_leaves for c in children)

    def is_leaf(self):
        """Whether this spec is a leaf's; False for a container node (the leaf spec overrides it)."""
        return False

    def __eq__(self, other):
        return (
            isinstance(other, TreeSpec)
            and self.type is other.type
            and self.context == other.context
            and self.children == other.children
        )

    def __hash__(self):
        return hash((self.type, len(self.children)))

    def __repr__(self, indent=0):
        context = self.context.__name__ if isinstance(self.context, type) else self.context
        text = f"TreeSpec({self.type.__name__}, {context}, ["
        if self.children:
            indent += 2
            text += self.children[0].__repr__(indent)
            text += "," if len(self.children) > 1 else ""
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return text + "])"


class _LeafSpec(TreeSpec):
    __slots__ = ()

    def __init__(self):
        self.type = None
        self.context = None
        self.children = []
        self.num_leaves = 1

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, _LeafSpec)

    def __hash__(self):
        return 0

    def __repr__(self, indent=0):
        return "*"


LEAF = _LeafSpec()


def _children(x):
    """(type, context, children) of a container node, or None for a leaf."""
    t = type(x)
    if t is tuple or t is list:
        return t, None, list(x)
    if t is Size:  # a node of ints, as PyTorch registers it (it unflattens to a tuple)
        return t, None, list(x)
    if _is_namedtuple(x):
        return t, t, list(x)
    if t is dict or t is collections.OrderedDict or t is collections.defaultdict:
        keys = list(x.keys())
        return t, keys, [x[k] for k in keys]
    return None


def tree_flatten(tree):
    """([leaves], spec): the leaves left to right (dict values in insertion order)."""
    leaves = []

    def walk(x):
        node = _children(x)
        if node is None:
            leaves.append(x)
            return LEAF
        t, ctx, kids = node
        return TreeSpec(t, ctx, [walk(k) for k in kids])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, spec):
    """Rebuilds the tree of `spec` from its leaves."""
    it = iter(leaves)

    def build(s):
        if s.is_leaf():
            return next(it)
        kids = [build(c) for c in s.children]
        if s.type is tuple or s.type is list:
            return s.type(kids)
        if s.type is Size:
            return tuple(kids)
        if _is_namedtuple_type(s.type):
            return s.type(*kids)
        out = s.type() if s.type is not collections.defaultdict else collections.defaultdict()
        for k, v in zip(s.context, kids):
            out[k] = v
        return out

    return build(spec)


def _is_namedtuple_type(t):
    return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")


def tree_map(fn, tree):
    """The same tree with fn applied to every leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """The leaves of `prefix` repeated over the matching subtrees of `spec` (a leaf of prefix stands for a
    whole subtree), flattened in spec's order; None when prefix is not a prefix of spec's structure."""
    out = []

    def walk(p, s):
        if s.is_leaf() or _children(p) is None:
            if _children(p) is not None:
                return False  # a container where spec has a leaf
            out.extend([p] * s.num_leaves)
            return True
        t, ctx, kids = _children(p)
        if t is not s.type and not (_is_namedtuple_type(s.type) and t is s.type):
            return False
        if ctx != s.context or len(kids) != len(s.children):
            return False
        return all(walk(k, c) for k, c in zip(kids, s.children))

    return out if walk(prefix, spec) else None
