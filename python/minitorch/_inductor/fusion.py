"""The fusion pass: groups of elementwise nodes (with at most one layer_norm) become one generated C++ kernel.

Grouping walks the graph in order and joins a fusable node to the groups of its fusable producers when they
compute over the same shape and dtype and joining them leaves no path that leaves the group and comes back (a
node outside the group that depends on one member and feeds another would have to run in the middle of the
fused loop). Nodes that may mutate memory (in-place methods, setitem, out=, inplace modules, unknown
functions) are barriers no group spans, so moving a group's work to one place never reorders it with a write.
A group is kept when it saves something: at least two elementwise ops, or a layer_norm with at least one.

Each kept group becomes a FusedKernel node in a copy of the graph. At run time it checks its guards (every
tensor contiguous, on the CPU, of the dtypes and shapes the kernel was generated for, nothing requiring grad
while grad mode is on) and calls the C++ kernel, or else runs the group's original nodes eagerly: training
runs fused groups eagerly (a backward for the generated code is future work), so gradients are autograd's own.
"""

import heapq
import operator

from minitorch import _C
from minitorch._inductor import codegen
from minitorch._inductor.lowering import lower
from minitorch._inductor.meta import meta_of
from minitorch.fx import Graph, GraphModule, Node

__all__ = ["FusedKernel", "find_groups", "fuse", "is_barrier"]

_FLOATS = ("float32", "float64")


def _dtype_name(dt):
    return str(dt).replace("torch.", "").replace("minitorch.", "")


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _strip(shape):
    shape = tuple(shape)
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def is_barrier(node, gm):
    """Whether node may write memory other nodes read (or do anything we cannot see)."""
    if node.op in ("placeholder", "get_attr", "output"):
        return False
    if "out" in node.kwargs or node.kwargs.get("inplace") is True:
        return True
    if node.op == "call_method":
        t = node.target
        return (t.endswith("_") and not t.startswith("__")) or t in ("__setitem__", "copy_", "resize_")
    if node.op == "call_module":
        try:
            mod = gm.get_submodule(node.target)
        except AttributeError:
            return True
        return bool(getattr(mod, "inplace", False))
    t = node.target
    if t in (
        operator.setitem,
        operator.iadd,
        operator.isub,
        operator.imul,
        operator.itruediv,
        operator.delitem,
    ):
        return True
    if t in (operator.getitem, getattr, operator.add, operator.sub, operator.mul, operator.truediv):
        return False
    name = getattr(t, "__name__", "")
    if name.endswith("_") and not name.startswith("__"):
        return True
    module = getattr(t, "__module__", "") or ""
    # anything else is a function we know nothing about: a barrier
    return not (
        module.startswith(("minitorch", "_operator", "math", "builtins"))
        or type(t).__name__ == "builtin_function_or_method"
    )


class _Info:
    """A fusable node: its Op, shape, dtype, and the row length its broadcast operands need (or None)."""

    __slots__ = ("d", "dtype", "op", "roles", "shape")

    def __init__(self, op, shape, dtype, d, roles):
        self.op = op
        self.shape = shape
        self.dtype = dtype
        self.d = d
        self.roles = roles  # operand index -> "full" | "row" | "scalar" for tensor operands


def _classify(node, gm):
    op = lower(node, gm)
    if op is None:
        return None
    m = meta_of(node)
    if m is None or m.device.type != "cpu" or _dtype_name(m.dtype) not in _FLOATS:
        return None
    shape = tuple(m.shape)
    dtype = _dtype_name(m.dtype)
    roles, d = {}, None
    if op.name == "layer_norm":
        x, w, b = op.operands
        xm = meta_of(x)
        if xm is None or tuple(xm.shape) != shape or _dtype_name(xm.dtype) != dtype or not shape:
            return None
        if shape[-1] != op.params["d"]:
            return None
        roles[0] = "full"
        d = shape[-1]
        for i, p in ((1, w), (2, b)):
            if p is None:
                continue
            pm = meta_of(p)
            if (
                pm is None
                or tuple(pm.shape) != (d,)
                or _dtype_name(pm.dtype) != dtype
                or pm.device.type != "cpu"
            ):
                return None
            roles[i] = "row"
        mod = op.params.get("module")
        if mod is not None:
            for name in ("weight", "bias"):
                p = getattr(mod, name, None)
                if p is not None and (tuple(p.shape) != (d,) or _dtype_name(p.dtype) != dtype):
                    return None
        return _Info(op, shape, dtype, d, roles)
    for i, a in enumerate(op.operands):
        if not isinstance(a, Node):
            continue
        am = meta_of(a)
        if am is None or am.device.type != "cpu":
            return None
        want = "bool" if (op.name == "where" and i == 0) else dtype
        if _dtype_name(am.dtype) != want:
            return None
        ashape = tuple(am.shape)
        if ashape == shape:
            roles[i] = "full"
        elif _numel(ashape) == 1 and op.name != "identity":
            roles[i] = "scalar"
        else:
            rs = _strip(ashape)
            if op.name == "identity" or not rs or shape[len(shape) - len(rs) :] != rs:
                return None
            rd = _numel(rs)
            if d is not None and rd != d:
                return None
            roles[i] = "row"
            d = rd
    if op.name == "where" and not isinstance(op.operands[0], Node):
        return None
    return _Info(op, shape, dtype, d, roles)


class _Group:
    __slots__ = ("d", "dtype", "has_ln", "mask", "members", "shape")

    def __init__(self, node, info, bit):
        self.members = [node]
        self.shape = info.shape
        self.dtype = info.dtype
        self.d = info.d
        self.has_ln = info.op.name == "layer_norm"
        self.mask = bit


def _compatible(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.d is not None and b.d is not None and a.d != b.d:
        return False
    return not (a.has_ln and b.has_ln)


def find_groups(gm):
    """[(nodes in order, {node: _Info})] for the groups worth a kernel."""
    nodes = list(gm.graph.nodes)
    pos = {n: i for i, n in enumerate(nodes)}
    infos = {}
    segment, seg = {}, 0
    for n in nodes:
        if is_barrier(n, gm):
            seg += 1
            segment[n] = seg
            seg += 1
            continue
        segment[n] = seg
        info = _classify(n, gm)
        if info is not None:
            infos[n] = info
    anc = {}
    for n in nodes:
        a = 0
        for p in n.all_input_nodes:
            a |= anc[p] | (1 << pos[p])
        anc[n] = a
    group_of = {}

    def valid(mask, members):
        for m in members:
            for p in m.all_input_nodes:
                if not (mask >> pos[p]) & 1 and anc[p] & mask:
                    return False
        return True

    groups = []
    for n in nodes:
        info = infos.get(n)
        if info is None:
            continue
        bit = 1 << pos[n]
        single = _Group(n, info, bit)
        cands = []
        for p in n.all_input_nodes:
            g = group_of.get(p)
            if (
                g is not None
                and g not in cands
                and segment[g.members[0]] == segment[n]
                and _compatible(g, single)
            ):
                cands.append(g)
        chosen = None
        if cands:
            trial = [cands]
            trial += [[c] for c in cands] if len(cands) > 1 else []
            for gs in trial:
                mask = bit
                members = [n]
                ok = True
                for i, g in enumerate(gs):
                    if any(not _compatible(g, h) for h in gs[i + 1 :]):
                        ok = False
                        break
                    mask |= g.mask
                    members += g.members
                if ok and sum(g.has_ln for g in gs) + single.has_ln <= 1 and valid(mask, members):
                    chosen = gs
                    break
        if chosen is None:
            groups.append(single)
            group_of[n] = single
            continue
        target = chosen[0]
        for g in chosen[1:]:
            target.members += g.members
            target.mask |= g.mask
            target.d = target.d if target.d is not None else g.d
            target.has_ln = target.has_ln or g.has_ln
            for m in g.members:
                group_of[m] = target
            groups.remove(g)
        target.members.append(n)
        target.mask |= bit
        target.d = target.d if target.d is not None else single.d
        target.has_ln = target.has_ln or single.has_ln
        group_of[n] = target
    out = []
    for g in groups:
        members = sorted(g.members, key=pos.__getitem__)
        ew = sum(1 for m in members if infos[m].op.name not in ("identity", "layer_norm"))
        if ew >= 2 or (g.has_ln and ew >= 1):
            out.append((members, {m: infos[m] for m in members}))
    return out


class FusedKernel:
    """A group of the graph as one call: the generated C++ kernel when its guards hold, else the group's
    original nodes run eagerly (``eager``, a GraphModule). ``calls``/``eager_calls`` count each path."""

    def __init__(
        self, name, spec, eager, kinds, dtypes, param_inputs, n_outputs, ops, d_rule, spec_d, out_dtype
    ):
        self.name = name
        self.__name__ = name  # what the rewritten graph's code calls it
        self.out_dtype = out_dtype
        self.spec = spec
        self.eager = eager
        self.kinds = kinds  # per tensor input: "full" | "row" | "scalar"
        self.dtypes = dtypes
        self.param_inputs = param_inputs  # [(module, attribute)] read at each call, after the node inputs
        self.n_outputs = n_outputs
        self.ops = ops
        self.d_rule = d_rule  # "flat" | "rows" | "last" (a LayerNorm over a last dim of spec_d)
        self.spec_d = spec_d
        self.source = None  # the kernel's C++ (set by the backend)
        self.library = None
        self.cfn = None
        self.nthreads = None
        self.calls = 0
        self.eager_calls = 0
        self._first_full = kinds.index("full")
        # outputs are allocated like a full input of the output dtype (a where's condition is bool)
        self._like = next(
            (i for i, (k, dt) in enumerate(zip(kinds, dtypes)) if k == "full" and dt == self.out_dtype), None
        )

    def __repr__(self):
        return f"FusedKernel({self.name}: {', '.join(self.ops)})"

    def _run_eager(self, args):
        self.eager_calls += 1
        return self.eager(*args)

    def __call__(self, *args):
        cfn = self.cfn
        if cfn is None:
            return self._run_eager(args)
        tensors = args
        if self.param_inputs:
            tensors = args + tuple([getattr(m, a, None) for m, a in self.param_inputs])
        grad = _C.is_grad_enabled()
        tensor_type = _C.Tensor
        ptrs = []
        for t, dt in zip(tensors, self.dtypes):
            if not isinstance(t, tensor_type) or t.dtype is not dt or t.is_cuda or not t.is_contiguous():
                return self._run_eager(args)
            if grad and t.requires_grad:
                return self._run_eager(args)
            ptrs.append(t.data_ptr())
        full = tensors[self._first_full]
        shape = full.shape
        d = None
        if len(tensors) > 1:
            for t, kind in zip(tensors, self.kinds):
                if kind == "full":
                    if t.shape != shape:
                        return self._run_eager(args)
                elif kind == "row":
                    rs = _strip(t.shape)
                    td = _numel(rs)
                    if (rs and tuple(shape[len(shape) - len(rs) :]) != rs) or (d is not None and td != d):
                        return self._run_eager(args)
                    d = td
                elif t.numel() != 1:
                    return self._run_eager(args)
        n = full.numel()
        if self.d_rule == "last":
            if not shape or (d is not None and d != shape[-1]) or shape[-1] != self.spec_d:
                return self._run_eager(args)
            d = shape[-1]
        elif d is None:
            d = n
        if self._like is not None:
            like = tensors[self._like]
            outs = [_C.empty_like(like) for _ in range(self.n_outputs)]
        else:
            outs = [_C.empty(shape, dtype=self.out_dtype) for _ in range(self.n_outputs)]
        for o in outs:
            ptrs.append(o.data_ptr())
        cfn(*ptrs, n, d, self.nthreads or _C.get_num_threads())
        self.calls += 1
        return outs[0] if self.n_outputs == 1 else tuple(outs)


def _build(members, infos, idx):
    """(KernelSpec, external input nodes, [(LayerNorm module, attribute)], output nodes, kinds, dtypes) of a
    group. The kernel's tensor arguments are the input nodes, then the LayerNorm module's weight and bias."""
    member_set = set(members)
    var_of = {m: i for i, m in enumerate(members)}
    inputs, kinds, dtypes, index_of = [], [], [], {}
    for m in members:
        info = infos[m]
        for i, a in enumerate(info.op.operands):
            if isinstance(a, Node) and a not in member_set and a not in index_of:
                index_of[a] = len(inputs)
                inputs.append(a)
                kinds.append(info.roles[i])
                dtypes.append(meta_of(a).dtype)
    param_inputs, nodes, ln_index = [], [], None
    for m in members:
        info = infos[m]
        refs = []
        for a in info.op.operands:
            if isinstance(a, Node):
                refs.append(("var", var_of[a]) if a in member_set else ("in", index_of[a]))
            elif a is None:
                refs.append(None)
            else:
                refs.append(("const", a))
        if info.op.name == "layer_norm":
            ln_index = len(nodes)
            mod = info.op.params.get("module")
            if mod is not None:
                for j, attr in ((1, "weight"), (2, "bias")):
                    p = getattr(mod, attr, None)
                    if p is not None:
                        refs[j] = ("in", len(inputs) + len(param_inputs))
                        param_inputs.append((mod, attr))
                        kinds.append("row")
                        dtypes.append(p.dtype)
        nodes.append((var_of[m], info.op.name, refs, info.op.params))
    outputs = [m for m in members if any(u not in member_set for u in m.users)]
    spec = codegen.KernelSpec(
        f"mt_kernel_{idx}",
        infos[members[0]].dtype,
        [(k, _dtype_name(dt)) for k, dt in zip(kinds, dtypes)],
        nodes,
        [var_of[o] for o in outputs],
        ln=ln_index,
    )
    return spec, inputs, param_inputs, outputs, kinds, dtypes


def _eager_module(members, inputs, outputs, gm):
    g = Graph()
    env = {}
    for i, node in enumerate(inputs):
        env[node] = g.placeholder(f"in{i}_{node.name}")
    for m in members:
        env[m] = g.node_copy(m, lambda n: env[n])
    g.output(env[outputs[0]] if len(outputs) == 1 else tuple(env[o] for o in outputs))
    return GraphModule(gm, g, "FusedGroupEager")


class _Unit:
    """A node, or a whole group, placed as one in the rewritten graph."""

    __slots__ = ("deps", "members", "node", "plan", "pos", "users")

    def __init__(self, node, plan, pos):
        self.node = node
        self.plan = plan
        self.members = [node] if node is not None else plan[1]
        self.pos = pos
        self.deps = set()
        self.users = set()

    def __lt__(self, other):
        return self.pos < other.pos


def fuse(gm):
    """(a new GraphModule with each group replaced by a FusedKernel call, [FusedKernel]) — the kernels have
    their spec but no compiled code yet. (gm, []) when there is nothing to fuse."""
    groups = find_groups(gm)
    if not groups:
        return gm, []
    kernels = []
    group_of = {}
    plans = []
    for idx, (members, infos) in enumerate(groups):
        spec, inputs, param_inputs, outputs, kinds, dtypes = _build(members, infos, idx)
        if "full" not in kinds:
            continue  # no input has the group's shape (broadcasts only): leave it eager
        rule = "last" if spec.ln is not None else ("rows" if "row" in kinds else "flat")
        spec_d = infos[members[spec.ln]].d if spec.ln is not None else None
        k = FusedKernel(
            spec.name,
            spec,
            _eager_module(members, inputs, outputs, gm),
            kinds,
            dtypes,
            param_inputs,
            len(outputs),
            [infos[m].op.name for m in members],
            rule,
            spec_d,
            meta_of(members[0]).dtype,
        )
        kernels.append(k)
        plan = (k, members, inputs, outputs)
        plans.append(plan)
        for m in members:
            group_of[m] = plan
    # a new graph: each group is emitted once all of its inputs are (Kahn's order, ties by original position),
    # non-group nodes keep their relative order and barriers their place
    nodes = list(gm.graph.nodes)
    pos = {n: i for i, n in enumerate(nodes)}
    units, unit_of = [], {}
    for n in nodes:
        plan = group_of.get(n)
        if plan is None:
            unit = _Unit(n, None, pos[n])
        elif plan[1][0] is n:
            unit = _Unit(None, plan, pos[n])
        else:
            continue
        units.append(unit)
        for m in unit.members:
            unit_of[m] = unit
    for u in units:
        for m in u.members:
            for p in m.all_input_nodes:
                pu = unit_of[p]
                if pu is not u and pu not in u.deps:
                    u.deps.add(pu)
                    pu.users.add(u)
    before = []
    last_barrier = None
    for u in units:
        if u.node is not None and is_barrier(u.node, gm):
            for v in before:
                if v not in u.deps:
                    u.deps.add(v)
                    v.users.add(u)
            last_barrier = u
        elif last_barrier is not None and last_barrier not in u.deps:
            u.deps.add(last_barrier)
            last_barrier.users.add(u)
        before.append(u)
    remaining = {u: len(u.deps) for u in units}
    heap = [(u.pos, u.pos, u) for u in units if remaining[u] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        u = heapq.heappop(heap)[2]
        order.append(u)
        for v in u.users:
            remaining[v] -= 1
            if remaining[v] == 0:
                heapq.heappush(heap, (v.pos, v.pos, v))
    if len(order) != len(units):
        return gm, []  # a cycle would mean the grouping check failed: run unfused rather than wrongly
    g = Graph()
    env = {}
    for u in order:
        if u.node is not None:
            env[u.node] = g.node_copy(u.node, lambda n: env[n])
            continue
        k, members, inputs, outputs = u.plan
        call = g.call_function(k, tuple(env[i] for i in inputs))
        if len(outputs) == 1:
            env[outputs[0]] = call
        else:
            for j, o in enumerate(outputs):
                env[o] = g.call_function(operator.getitem, (call, j))
    new = GraphModule(gm, g, type(gm).__name__)
    return new, kernels
