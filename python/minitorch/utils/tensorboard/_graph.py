"""add_graph's GraphDef, built from one forward call: autograd records every differentiable operation as a node
(grad_fn) with edges to the nodes of its inputs; forward hooks say which module ran each one, and the
parameters and inputs are the graph's sources. TensorBoard draws the module scopes as nested boxes."""

import re
import warnings

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

from minitorch import _C
from minitorch.autograd import grad_mode


def _tensors(obj):
    """The tensors in a (nested) tuple/list/dict of outputs, in order."""
    if isinstance(obj, _C.Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    return []


def _op_name(node):
    """'AddmmBackward0' -> 'Addmm'."""
    return re.sub(r"Backward\d*$", "", node.name()) or node.name()


def _shape_attr(shape):
    dims = [TensorShapeProto.Dim(size=int(s)) for s in shape]
    return AttrValue(list=AttrValue.ListValue(shape=[TensorShapeProto(dim=dims)]))


def graph_def(model, input_to_model=None, verbose=False):
    """GraphDef of model(*input_to_model), run once in eval mode with autograd on."""
    if input_to_model is None:
        args = ()
    elif isinstance(input_to_model, (list, tuple)):
        args = tuple(input_to_model)
    else:
        args = (input_to_model,)
    # float inputs become leaves that require grad, so the operations on them are recorded and linked back
    traced = tuple(
        a.detach().requires_grad_(True) if isinstance(a, _C.Tensor) and a.is_floating_point() else a
        for a in args
    )
    root = type(model).__name__
    scope_of = {}
    for name, mod in model.named_modules():
        parent, _, last = name.rpartition(".")
        scope_of[mod] = (
            root if not name else f"{scope_of[model.get_submodule(parent)]}/{type(mod).__name__}[{last}]"
        )

    node_scope = {}  # key(grad_fn) -> scope of the innermost module that ran it
    known_shape = {}  # key(grad_fn) -> shape of a tensor it produced (module outputs)
    alive = []  # every grad_fn wrapper seen: while one lives, pybind11 hands back that same object, so ids hold

    def key(node):
        alive.append(node)
        return id(node)

    def claim(module, inputs, output):
        boundary = {key(t.grad_fn) for t in _tensors(inputs) if t.grad_fn is not None}
        stack = []
        for t in _tensors(output):
            if t.grad_fn is not None:
                known_shape.setdefault(key(t.grad_fn), tuple(t.shape))
                stack.append(t.grad_fn)
        seen = set()
        while stack:
            node = stack.pop()
            k = key(node)
            if k in seen or k in boundary:
                continue
            seen.add(k)
            if node.name() != "torch::autograd::AccumulateGrad":
                node_scope.setdefault(k, scope_of[module])
            stack.extend(f for f, _ in node.next_functions if f is not None)

    handles = [m.register_forward_hook(claim) for m in scope_of]
    modes = {m: m.training for m in scope_of}
    try:
        model.eval()
        with grad_mode.enable_grad():
            output = model(*traced)
    finally:
        for h in handles:
            h.remove()
        for m, mode in modes.items():
            m.training = mode

    param_name = {id(p): n for n, p in model.named_parameters()}
    input_name = {id(t): f"input/input.{i}" for i, t in enumerate(traced) if isinstance(t, _C.Tensor)}
    nodes, name_of, counts = [], {}, {}

    def add(name, op, inputs=(), shape=None, **attrs):
        node = NodeDef(name=name, op=op, input=list(inputs))
        if shape is not None:
            node.attr["_output_shapes"].CopyFrom(_shape_attr(shape))
        for k, v in attrs.items():
            node.attr[k].CopyFrom(AttrValue(s=v.encode()))
        nodes.append(node)
        return name

    for i, t in enumerate(traced):
        if isinstance(t, _C.Tensor):
            add(input_name[id(t)], "IO Node", shape=t.shape)

    def visit(node):
        """The node's name, after naming (and adding) everything it reads from."""
        k = key(node)
        if k in name_of:
            return name_of[k]
        if node.name() == "torch::autograd::AccumulateGrad":
            var = node.variable
            if id(var) in input_name:
                name_of[k] = input_name[id(var)]
            elif id(var) in param_name:
                pname = param_name[id(var)]
                owner, _, attr = pname.rpartition(".")
                scope = scope_of[model.get_submodule(owner)] if owner else root
                name_of[k] = add(f"{scope}/{attr}", "Parameter", shape=var.shape)
            else:
                counts["constant"] = counts.get("constant", -1) + 1
                name_of[k] = add(f"constant/leaf.{counts['constant']}", "Constant", shape=var.shape)
            return name_of[k]
        # iterative post-order: a deep network would overflow Python's recursion limit
        order, stack = [], [(node, False)]
        while stack:
            n, expanded = stack.pop()
            if key(n) in name_of:
                continue
            if expanded or n.name() == "torch::autograd::AccumulateGrad":
                order.append(n)
                continue
            stack.append((n, True))
            stack.extend((f, False) for f, _ in n.next_functions if f is not None)
        for n in order:
            nk = key(n)
            if nk in name_of:
                continue
            if n.name() == "torch::autograd::AccumulateGrad":
                visit(n)
                continue
            scope = node_scope.get(nk, root)
            op = _op_name(n)
            count = counts.get((scope, op), 0)
            counts[(scope, op)] = count + 1
            inputs = [name_of[key(f)] for f, _ in n.next_functions if f is not None and key(f) in name_of]
            name_of[nk] = add(
                f"{scope}/{op}_{count}", op, inputs, shape=known_shape.get(nk), grad_fn=n.name()
            )
        return name_of[k]

    outs = _tensors(output)
    if not any(t.grad_fn is not None for t in outs):
        warnings.warn(
            "add_graph: the model's output has no autograd history (no parameter or input requires grad), so "
            "the graph shows only its inputs and outputs",
            stacklevel=3,
        )
    for i, t in enumerate(outs):
        src = [visit(t.grad_fn)] if t.grad_fn is not None else []
        add(f"output/output.{i}", "IO Node", src, shape=t.shape)
    if verbose:
        for n in nodes:
            print(f"{n.name} = {n.op}({', '.join(n.input)})")
    return GraphDef(node=nodes, versions=VersionDef(producer=22))
