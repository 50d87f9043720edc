"""torch.export: export(mod, args) traces a Module into an ExportedProgram (a flat graph with its parameters,
buffers and constants lifted to inputs, a graph signature, dynamic-shape bounds); save/load write it to a file.

Tracing is torch.jit.trace's tracer (fx's machinery with proxies that carry the example values, so Python
control flow on sizes and dims resolves on them, as PyTorch's export specializes it, while sizes stay graph
values), run through every module (no leaf modules, so the graph holds torch functions, as PyTorch's holds ATen
ops), with each leaf of the example inputs a placeholder named by its path (x, d_key, xs_0). Non-tensor inputs
are specialized to their example values, as PyTorch specializes them. The
graph's ops are the torch functions and Tensor methods the code called, not ATen overloads, so
run_decompositions() has nothing to lower and returns a copy. Sizes are symbolic while tracing, so one graph
serves every size; the exported module checks sizes as PyTorch's guards do (a dimension without a Dim keeps the
example's size). In-place updates of buffers happen on the exported module's own buffers, and are not lifted
to BUFFER_MUTATION outputs.
"""

import inspect
import io
import pickle

from minitorch import _C, serialization
from minitorch._dynamo.exc import UserError, UserErrorType
from minitorch.autograd.grad_mode import no_grad
from minitorch.export.dynamic_shapes import Dim, DimHint, ValueRanges, dim_bounds, dims
from minitorch.export.exported_program import ExportedProgram
from minitorch.export.graph_signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)
from minitorch.fx.graph_module import GraphModule
from minitorch.fx.node import Node
from minitorch.jit._trace import _ValueTracer
from minitorch.nn.modules.module import Module
from minitorch.utils import _pytree

__all__ = [
    "ConstantArgument",
    "Dim",
    "ExportGraphSignature",
    "ExportedProgram",
    "InputKind",
    "InputSpec",
    "OutputKind",
    "OutputSpec",
    "TensorArgument",
    "default_decompositions",
    "dims",
    "draft_export",
    "export",
    "load",
    "register_dataclass",
    "save",
]

_FORMAT = "minitorch.export/1"
_EPILOGUE = (
    "\n\nThe error above occurred when calling torch.export.export. If you would like to view some more "
    "information about this error, and get a list of all other errors that may occur in your export call, you "
    "can replace your `export()` call with `draft_export()`."
)


def _children(x):
    """[(path piece, child)] of a container leaf-walk, in the order the pytree flattens it."""
    if _pytree._is_leaf(x):
        return None
    children, context = _pytree._node_def(_pytree._get_node_type(x)).flatten_fn(x)
    if isinstance(x, dict):
        return list(zip((str(k) for k in context), children))
    names = getattr(type(x), "_fields", None) or context  # a namedtuple's or a dataclass's field names
    if (
        isinstance(names, (list, tuple))
        and len(names) == len(children)
        and all(isinstance(n, str) for n in names)
    ):
        return list(zip(names, children))
    return [(str(i), c) for i, c in enumerate(children)]


def _leaf_names(value, name, out):
    kids = _children(value)
    if kids is None:
        out.append((name, value))
        return
    for piece, child in kids:
        _leaf_names(child, f"{name}_{piece}", out)


class _ExportTracer(_ValueTracer):
    """jit.trace's tracer (it runs the code on the example values while recording, so Python control flow on
    sizes and dims resolves as PyTorch's export specializes it) through every module, so the graph is flat, with
    buffers read as get_attr nodes and the example inputs' leaves as placeholders."""

    proxy_buffer_attributes = True
    guard_on_data_raises = True

    def __init__(self, args, kwargs, leaf_names):
        super().__init__(args, kwargs)
        self._mt_leaf_names = leaf_names
        self.user_placeholders = []

    def is_leaf_module(self, m, module_qualified_name):
        """Nothing is a leaf: export's graph holds the functions the modules call."""
        return False

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """One placeholder per leaf of the example inputs; a non-tensor leaf gets one too (it is a user input
        of the signature) but the code sees its example value, to which the program is specialized."""
        leaves, spec = _pytree.tree_flatten((self._args, self._kwargs))
        values = []
        for (name, _), leaf in zip(self._mt_leaf_names, leaves):
            proxy = self._input(name, leaf)
            self.user_placeholders.append((proxy.node, leaf))
            values.append(proxy if _C._is_tensor(leaf) else leaf)
        args, kwargs = _pytree.tree_unflatten(values, spec)
        root = self.root

        def call():
            # the outputs leave flat (a registered dataclass output is no fx argument); module() rebuilds them
            leaves, self.out_spec = _pytree.tree_flatten(root_fn(root, *args, **kwargs))
            return tuple(leaves)

        return call, []


def _user_error(msg, case_name=None):
    return UserError(UserErrorType.INVALID_INPUT, msg + _EPILOGUE, case_name=case_name)


def _dynamic_dims(mod, args, kwargs, dynamic_shapes, leaf_names):
    """{leaf index: {dim: (min, max)}} from dynamic_shapes (a dict by argument name, or a tuple/list by
    position, each entry {dim: Dim} or a list per dimension)."""
    if dynamic_shapes is None:
        return {}
    sig = inspect.signature(mod.forward)
    bound = sig.bind(*args, **kwargs)
    names = list(bound.arguments)
    if isinstance(dynamic_shapes, dict):
        if not set(dynamic_shapes) <= set(names):
            raise UserError(
                UserErrorType.INVALID_INPUT,
                "When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg names "
                f"{names} of `inputs`, but here they are {list(dynamic_shapes)}. Alternatively, you could also "
                "ignore arg names entirely and specify `dynamic_shapes` as a list/tuple matching `inputs`. For "
                "more information about this error, see: "
                "https://pytorch.org/docs/main/generated/exportdb/index.html#dynamic-shapes-validation"
                + _EPILOGUE,
            )
        per_arg = dynamic_shapes
    else:
        if len(dynamic_shapes) != len(names):
            raise _user_error(
                f"When `dynamic_shapes` is specified as a list/tuple, it must have one entry per input "
                f"({len(names)}), got {len(dynamic_shapes)}"
            )
        per_arg = dict(zip(names, dynamic_shapes))
    out = {}
    index = {name: i for i, (name, _) in enumerate(leaf_names)}

    def visit(value, spec, name):
        if spec is None:
            return
        if _C._is_tensor(value):
            items = spec.items() if isinstance(spec, dict) else enumerate(spec)
            dims_ = {}
            for d, s in items:
                bounds = dim_bounds(s)
                if bounds is not None:
                    # a Dim (by name, as PyTorch's) used on several inputs is one size: the key ties them
                    key = s.__name__ if isinstance(s, Dim) else None
                    dims_[d] = (*bounds, key, "AUTO" if isinstance(s, DimHint) and s.type == "AUTO" else None)
            out[index[name]] = dims_
            return
        kids = _children(value)
        if kids is None:
            return
        for piece, child in kids:
            key = piece if isinstance(value, dict) else int(piece)
            sub = spec.get(key) if isinstance(spec, dict) else spec[key]
            visit(child, sub, f"{name}_{piece}")

    for name, value in bound.arguments.items():
        visit(value, per_arg.get(name), name)
    return out


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, preserve_module_call_signature=(),
           prefer_deferred_runtime_asserts_over_guards=False):  # fmt: skip
    """Traces mod(*args, **kwargs) into an ExportedProgram (see the package's docstring for what the graph
    holds and how dynamic_shapes is honoured). strict is accepted: both modes trace the same way here."""
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")  # noqa: TRY004
    if not isinstance(args, tuple):
        raise UserError(
            UserErrorType.INVALID_INPUT,
            f"Expecting `args` to be a tuple of example positional inputs, got {type(args)}" + _EPILOGUE,
        )
    kwargs = dict(kwargs or {})
    sig = inspect.signature(mod.forward)
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        raise _user_error(
            f"The example inputs do not match {type(mod).__name__}.forward's signature: {e}"
        ) from e
    params = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    tops = [(params[i].name if i < len(params) else f"args_{i}", a) for i, a in enumerate(args)]
    tops += list(kwargs.items())
    leaf_names = []
    for name, value in tops:
        _leaf_names(value, name, leaf_names)
    dynamic = _dynamic_dims(mod, args, kwargs, dynamic_shapes, leaf_names)

    tracer = _ExportTracer(args, kwargs, leaf_names)
    graph = tracer.trace(mod)
    attrs = {}
    for n in graph.nodes:
        if n.op == "get_attr":
            value = tracer.constants.get(n.target)
            attrs[n.target] = value if value is not None else _resolve_attr(mod, n.target)
    gm = GraphModule(attrs, graph, "GraphModule")  # PyTorch's class name, whatever the module's
    graph = gm.graph

    # lift parameters, buffers and tensor constants (get_attr nodes) to placeholders before the user inputs
    params_by_name = dict(mod.named_parameters())
    buffers_by_name = dict(mod.named_buffers())
    persistent = set(mod.state_dict(keep_vars=True))
    first_user = next((n for n in graph.nodes if n.op == "placeholder"), None)
    lifted = {}  # target -> placeholder
    specs = {InputKind.PARAMETER: [], InputKind.BUFFER: [], InputKind.CONSTANT_TENSOR: []}
    state_dict, constants = {}, {}
    for node in list(graph.nodes):
        if node.op != "get_attr":
            continue
        target = node.target
        if target in params_by_name:
            kind, prefix, value = InputKind.PARAMETER, "p_", params_by_name[target]
        elif target in buffers_by_name:
            kind, prefix, value = InputKind.BUFFER, "b_", buffers_by_name[target]
        else:
            value = attrs[target]
            if not _C._is_tensor(value):
                continue
            kind, prefix = InputKind.CONSTANT_TENSOR, "c_"
        ph = lifted.get(target)
        if ph is None:
            with graph.inserting_before(first_user):
                ph = graph.placeholder(prefix + target.replace(".", "_"))
            lifted[target] = ph
            is_persistent = None
            if kind == InputKind.BUFFER:
                is_persistent = target in persistent
                (state_dict if is_persistent else constants)[target] = value
            elif kind == InputKind.PARAMETER:
                state_dict[target] = value
            else:
                constants[target] = value
            specs[kind].append((ph, target, is_persistent))
        node.replace_all_uses_with(ph)
        graph.erase_node(node)
    # placeholders in PyTorch's order: parameters, buffers, constants, then user inputs
    ordered = specs[InputKind.PARAMETER] + specs[InputKind.BUFFER] + specs[InputKind.CONSTANT_TENSOR]
    if first_user is not None:
        for ph, _, _ in ordered:
            first_user.prepend(ph)
    input_specs = [
        InputSpec(kind, TensorArgument(ph.name), target, persistent=p)
        for kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)
        for ph, target, p in specs[kind]
    ]
    for node, leaf in tracer.user_placeholders:
        arg = TensorArgument(node.name) if _C._is_tensor(leaf) else ConstantArgument(node.name, leaf)
        input_specs.append(InputSpec(InputKind.USER_INPUT, arg, None))

    # flat outputs
    out_node = graph.output_node()
    out_leaves, out_spec = list(out_node.args[0]), tracer.out_spec
    output_specs = []
    for leaf in out_leaves:
        arg = TensorArgument(leaf.name) if isinstance(leaf, Node) else ConstantArgument("", leaf)
        output_specs.append(OutputSpec(OutputKind.USER_OUTPUT, arg, None))
    out_node.args = (tuple(out_leaves),)
    gm.recompile()
    for target in lifted:
        _drop_attr(gm, target)

    leaves = _pytree.tree_leaves((args, kwargs))
    in_spec = _pytree.tree_structure((args, kwargs))
    lifted_values = [state_dict.get(t, constants.get(t)) for _, t, _ in ordered]
    _drop_specialized(gm, lifted_values, leaves, leaf_names, dynamic)
    guards, ranges, count = [], {}, 0
    first = {}  # a shared Dim's key -> the (input, dim) that introduced its symbol
    for i, ((name, _), leaf) in enumerate(zip(leaf_names, leaves)):
        if _C._is_tensor(leaf):
            d = {}
            for dim, (lo, hi, key, _) in dynamic.get(i, {}).items():
                # a later use of a shared Dim is guarded equal to the first, which alone has a symbol
                d[dim] = (lo, hi, first.get(key))
                if key is None or key not in first:
                    ranges[f"s{count}"] = ValueRanges(lo, hi)
                    count += 1
                    if key is not None:
                        first[key] = (name, dim)
            guards.append((name, i, tuple(leaf.shape), d))
        elif isinstance(leaf, (int, float, bool, str)) or leaf is None:
            guards.append((name, i, leaf, None))
    signature = ExportGraphSignature(input_specs, output_specs)
    return ExportedProgram(
        gm, signature, state_dict, constants, ranges, (args, kwargs), in_spec, out_spec, guards
    )


def _resized(t, dim):
    """t with one more index along dim, its first slice repeated (values reused, so indices stay valid)."""
    return _C.cat([t, t.narrow(dim, 0, 1)], dim)


def _drop_specialized(gm, lifted_values, leaves, leaf_names, dynamic):
    """PyTorch's export proves each dimension marked dynamic stays symbolic, and raises where the code fixes it
    (a Linear's in_features); our trace keeps sizes as graph values but cannot prove that, so each dynamic
    size (a shared Dim's uses together) is grown by one and the traced graph run on it: if it fails, the code
    needs the example's size. A Dim or Dim.DYNAMIC then raises PyTorch's constraint violation; Dim.AUTO
    becomes static, as PyTorch's AUTO does."""
    groups = {}  # key -> [(leaf index, dim)]
    for i, dims_ in dynamic.items():
        for d, (lo, hi, key, kind) in dims_.items():
            groups.setdefault(key if key is not None else (i, d), []).append((i, d))
    for key, members in groups.items():
        i0, d0 = members[0]
        size = leaves[i0].shape[d0]
        hi = dynamic[i0][d0][1]
        if size == 0 or size + 1 > hi or any(leaves[i].shape[d] != size for i, d in members):
            continue  # no larger size to try (a mismatch of a shared Dim is the guard's to report)
        trial = list(leaves)
        for i, d in members:
            trial[i] = _resized(trial[i], d)
        try:
            with no_grad():
                gm(*[v.clone() if _C._is_tensor(v) else v for v in lifted_values], *trial)
        except (RuntimeError, ValueError, IndexError, TypeError):
            pass
        else:
            continue
        if all(dynamic[i][d][3] == "AUTO" for i, d in members):
            for i, d in members:
                del dynamic[i][d]
            continue
        name = key if isinstance(key, str) else f"L['{leaf_names[i0][0]}'].size()[{d0}]"
        fix = f"\nSuggested fixes:\n  {key} = {size}" if isinstance(key, str) else ""
        raise UserError(
            UserErrorType.CONSTRAINT_VIOLATION,
            f'Constraints violated ({name})! For more information, run with TORCH_LOGS="+dynamic".\n'
            f"  - You marked {name} as dynamic but your code specialized it to be a constant ({size}). If you're "
            "using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace "
            f"it with either Dim.STATIC or Dim.AUTO.{fix}" + _EPILOGUE,
        )


def draft_export(mod, args, kwargs=None, *, dynamic_shapes=None, preserve_module_call_signature=(), strict=False,
                 pre_dispatch=True, prefer_deferred_runtime_asserts_over_guards=False):  # fmt: skip
    """export() (PyTorch's draft mode also collects the problems it tolerates; ours has none to tolerate)."""
    return export(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict)


def default_decompositions():
    """The decomposition table run_decompositions uses: empty, our graphs hold no ops to lower."""
    return {}


def register_dataclass(cls, *, serialized_type_name=None, field_definition=None):
    """Registers a dataclass as a pytree node (its fields the children), so it may be an input or output."""
    import dataclasses

    names = [f.name for f in dataclasses.fields(cls)]

    def flatten(obj):
        return [getattr(obj, n) for n in names], names

    def unflatten(values, context):
        return cls(**dict(zip(context, values)))

    _pytree.register_pytree_node(cls, flatten, unflatten, serialized_type_name=serialized_type_name)


def _resolve_attr(root, target):
    obj = root
    for p in target.split("."):
        obj = getattr(obj, p, None)
    return obj


def _drop_attr(gm, target):
    """Removes a lifted attribute from the exported graph module (it now arrives as a placeholder)."""
    *prefix, field = target.split(".")
    mod = gm
    for p in prefix:
        mod = getattr(mod, p, None)
        if mod is None:
            return
    for store in ("_parameters", "_buffers"):
        d = getattr(mod, store, None)
        if d is not None and field in d:
            del d[field]
            break
    else:
        mod.__dict__.pop(field, None)
    # a submodule left empty goes too: PyTorch's exported GraphModule holds no module for lifted state
    while prefix:
        *parent_path, name = prefix
        parent = gm.get_submodule(".".join(parent_path))
        child = parent._modules.get(name)
        if child is None or child._parameters or child._buffers or child._modules:
            return
        del parent._modules[name]
        prefix = parent_path


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """Writes ep to a path or binary file (our own format: minitorch.save of the program and extra_files)."""
    if not isinstance(ep, ExportedProgram):
        raise TypeError(
            f"The 'ep' parameter must be an instance of 'ExportedProgram', got '{type(ep).__name__}' instead."
        )
    payload = {
        "format": _FORMAT,
        "program": pickle.dumps(ep, protocol=4),
        "extra_files": dict(extra_files or {}),
    }
    serialization.save(payload, f)


def load(f, *, extra_files=None, expected_opset_version=None):
    """Reads what save wrote; extra_files (a dict of names) is filled with the saved extra files' contents."""
    if isinstance(f, (bytes, bytearray)):
        f = io.BytesIO(f)
    payload = serialization.load(f, weights_only=False)
    if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
        raise RuntimeError(
            "torch.export.load: the file is not an ExportedProgram written by torch.export.save"
        )
    if extra_files is not None:
        for k in extra_files:
            extra_files[k] = payload["extra_files"].get(k, "")
    return pickle.loads(payload["program"])
