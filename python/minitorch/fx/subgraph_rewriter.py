"""torch.fx.subgraph_rewriter: replace_pattern finds every occurrence of a pattern's graph in a GraphModule
and splices in a replacement's graph."""

from dataclasses import dataclass, field
from typing import NamedTuple

from minitorch.fx._symbolic_trace import symbolic_trace
from minitorch.fx.graph import Graph
from minitorch.fx.graph_module import GraphModule, _copy_attr
from minitorch.fx.node import Node, map_arg

__all__ = ["Match", "ReplacedPatterns", "replace_pattern", "replace_pattern_with_filters"]


class Match(NamedTuple):
    """anchor: the graph node matched by the pattern's (last) returned node; nodes_map: pattern node ->
    graph node."""

    anchor: Node
    nodes_map: dict


@dataclass
class InternalMatch:
    """What a match filter receives: the matched anchors, the pattern node -> graph node map, and the graph
    nodes standing for the pattern's inputs and returned values."""

    anchors: list
    nodes_map: dict
    placeholder_nodes: list
    returning_nodes: list


@dataclass
class ReplacedPatterns:
    """One replacement: the anchor, the pattern node -> graph node map, and the nodes inserted."""

    anchor: Node
    nodes_map: dict
    replacements: list = field(default_factory=list)


def _graph_of(obj):
    if isinstance(obj, GraphModule):
        return obj.graph, obj
    if isinstance(obj, Graph):
        return obj, None
    gm = symbolic_trace(obj)
    return gm.graph, gm


def _returned_nodes(graph):
    out = graph.output_node()
    nodes = []
    map_arg(out.args[0], nodes.append)
    return nodes


class _Matcher:
    def __init__(self, pattern, ignore_literals=False):
        self.pattern = pattern
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]
        self.returning = _returned_nodes(pattern)
        self.ignore_literals = ignore_literals
        if not self.returning:
            raise ValueError("replace_pattern: the pattern returns no node")

    def match_arg(self, pa, ga, m):
        if isinstance(pa, Node):
            return isinstance(ga, Node) and self.match_node(pa, ga, m)
        if isinstance(ga, Node):
            return False
        if isinstance(pa, (list, tuple)):
            if not isinstance(ga, (list, tuple)) or len(pa) != len(ga):
                return False
            return all(self.match_arg(a, b, m) for a, b in zip(pa, ga))
        if isinstance(pa, dict):
            if not isinstance(ga, dict) or pa.keys() != ga.keys():
                return False
            return all(self.match_arg(pa[k], ga[k], m) for k in pa)
        if self.ignore_literals:
            return True
        return type(pa) is type(ga) and pa == ga

    def match_node(self, pn, gn, m):
        if pn in m:
            return m[pn] is gn
        if any(v is gn for v in m.values()):
            return False
        if pn.op == "placeholder":
            m[pn] = gn
            return True
        if pn.op != gn.op or pn.target != gn.target or pn.op == "output":
            return False
        if len(pn.args) != len(gn.args) or pn.kwargs.keys() != gn.kwargs.keys():
            return False
        m[pn] = gn
        snapshot = dict(m)
        ok = all(self.match_arg(a, b, m) for a, b in zip(pn.args, gn.args)) and all(
            self.match_arg(pn.kwargs[k], gn.kwargs[k], m) for k in pn.kwargs
        )
        if not ok:
            m.clear()
            m.update(snapshot)
            del m[pn]
        return ok

    def contained(self, m):
        """The match is self-contained: no graph node standing for an internal pattern node is read
        outside the match."""
        inside = {id(v) for k, v in m.items() if k.op != "placeholder"}
        for pn, gn in m.items():
            if pn.op == "placeholder" or pn in self.returning:
                continue
            if any(id(u) not in inside for u in gn.users):
                return False
        return True

    def matches(self, graph):
        found = []
        candidates = [n for n in graph.nodes if n.op not in ("placeholder", "output")]

        def extend(i, m):
            if i == len(self.returning):
                yield dict(m)
                return
            pn = self.returning[i]
            for gn in candidates:
                trial = dict(m)
                if self.match_node(pn, gn, trial):
                    yield from extend(i + 1, trial)

        for m in extend(0, {}):
            if self.contained(m):
                found.append(m)
        return found


def _replace(gm, pattern, replacement, match_filters=None, ignore_literals=False):
    pattern_graph, _ = _graph_of(pattern)
    replacement_graph, replacement_mod = _graph_of(replacement)
    graph = gm.graph
    matcher = _Matcher(pattern_graph, ignore_literals)
    pattern_phs = matcher.placeholders
    replacement_phs = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    if len(pattern_phs) != len(replacement_phs):
        raise ValueError(
            f"replace_pattern: the pattern takes {len(pattern_phs)} inputs but the replacement "
            f"{len(replacement_phs)}"
        )
    # accept matches in order, skipping any that overlaps one already taken
    taken, accepted = set(), []
    for m in matcher.matches(graph):
        owned = {id(gn) for pn, gn in m.items() if pn.op != "placeholder"}
        if owned & taken:
            continue
        internal = InternalMatch(
            anchors=[m[r] for r in matcher.returning],
            nodes_map=m,
            placeholder_nodes=[m[p] for p in pattern_phs if p in m],
            returning_nodes=[m[r] for r in matcher.returning],
        )
        if match_filters and not all(f(internal, graph, pattern_graph) for f in match_filters):
            continue
        taken |= owned
        accepted.append(m)

    results = []
    replaced = {}  # a returning node of an earlier match -> what replaced it

    def current(n):
        while isinstance(n, Node) and n in replaced:
            n = replaced[n]
        return n

    for m in accepted:
        for p in pattern_phs:
            if p in m:
                m[p] = current(m[p])
        returning = [m[r] for r in matcher.returning]
        # PyTorch's place: before the first user of a returning node in graph order, else right after the
        # last returning node (so the replaced graph reads in the order PyTorch's does)
        users = {u for r in returning for u in r.users}
        point = None
        for n in graph.nodes:
            if n in users:
                point = graph.inserting_before(n)
                break
        if point is None:
            point = graph.inserting_after(
                max(returning, key={n: i for i, n in enumerate(graph.nodes)}.__getitem__)
            )
        val_map = {r: m[p] for r, p in zip(replacement_phs, pattern_phs) if p in m}
        new_nodes, out = _splice(gm, graph, replacement_graph, replacement_mod, val_map, point)
        values = [out] if len(returning) == 1 else (list(out) if isinstance(out, (tuple, list)) else [out])
        if len(values) != len(returning):
            raise ValueError(
                f"replace_pattern: the pattern returns {len(returning)} values but the replacement {len(values)}"
            )
        for old, new in zip(returning, values):
            old.replace_all_uses_with(new)
            replaced[old] = new
        for pn in reversed(list(pattern_graph.nodes)):
            if pn in m and pn.op != "placeholder":
                gn = m[pn]
                if not gn.users and not gn._erased:
                    graph.erase_node(gn)
        results.append(ReplacedPatterns(m[matcher.returning[-1]], m, new_nodes))
    gm.recompile()
    return results


def _splice(gm, graph, replacement_graph, replacement_mod, val_map, point):
    """Copies the replacement's nodes at the insertion point, in order; returns them and what its output
    refers to (mapped)."""
    new_nodes, last, out = [], None, None
    with point:
        for rn in replacement_graph.nodes:
            if rn.op == "placeholder":
                continue
            if rn.op == "output":
                out = map_arg(rn.args[0], val_map.__getitem__)
                break
            needs_attr = rn.op in ("get_attr", "call_module") and replacement_mod is not None
            if needs_attr and not _has_path(gm, rn.target):
                _copy_attr(replacement_mod, gm, rn.target)
            if last is None:
                new = graph.node_copy(rn, val_map.__getitem__)
            else:
                with graph.inserting_after(last):
                    new = graph.node_copy(rn, val_map.__getitem__)
            val_map[rn] = new
            new_nodes.append(new)
            last = new
    return new_nodes, out


def _has_path(mod, target):
    cur = mod
    for atom in target.split("."):
        if not hasattr(cur, atom):
            return False
        cur = getattr(cur, atom)
    return True


def replace_pattern(gm, pattern, replacement):
    """Replaces each non-overlapping occurrence of pattern's graph in gm (a GraphModule) by replacement's
    graph, then recompiles gm. pattern and replacement are functions (traced) or GraphModules taking the same
    inputs. Returns the Matches (anchor node and pattern node -> graph node map)."""
    return [Match(anchor=r.anchor, nodes_map=r.nodes_map) for r in _replace(gm, pattern, replacement)]


def replace_pattern_with_filters(
    gm, pattern, replacement, match_filters=None, ignore_literals=False, replacement_callback=None
):
    """replace_pattern keeping only the matches every filter accepts (filter(match_nodes_map, graph,
    pattern_graph) -> bool); ignore_literals matches any constant argument. Returns ReplacedPatterns."""
    if replacement_callback is not None:
        raise NotImplementedError("replace_pattern_with_filters: replacement_callback is not supported")
    return _replace(gm, pattern, replacement, match_filters, ignore_literals)
