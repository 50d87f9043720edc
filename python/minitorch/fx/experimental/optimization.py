"""torch.fx.experimental.optimization: inference rewrites of a symbolically traced module, as PyTorch's:
``fuse`` folds each eval-mode BatchNorm into the convolution or linear layer feeding only it,
``remove_dropout`` drops Dropout layers, ``extract_subgraph`` makes a GraphModule of a list of nodes.
PyTorch's MKL-DNN helpers of this module (modules_to_mkldnn, optimize_for_inference) are not provided."""

import copy

from minitorch import fx
from minitorch.nn import modules as _m
from minitorch.nn.modules.dropout import Dropout
from minitorch.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

__all__ = ["extract_subgraph", "fuse", "matches_module_pattern", "remove_dropout", "replace_node_module"]


def _parent_name(target):
    # "a.b.c" -> ("a.b", "c")
    *parent, name = target.rsplit(".", 1)
    return (parent[0] if parent else ""), name


def matches_module_pattern(pattern, node, modules):
    """Whether node and its first argument are calls of modules of exactly the two types of pattern (first
    argument's type first)."""
    if len(node.args) == 0:
        return False
    for expected, current in zip(pattern, (node.args[0], node)):
        if not isinstance(current, fx.Node) or current.op != "call_module":
            return False
        if not isinstance(current.target, str) or current.target not in modules:
            return False
        if type(modules[current.target]) is not expected:
            return False
    return True


def replace_node_module(node, modules, new_module):
    """Puts new_module where node's call_module target is, in the module tree and in modules."""
    if not isinstance(node.target, str):
        raise AssertionError(f"Expected str target, got {type(node.target)}")  # noqa: TRY004  (PyTorch's class)
    parent_name, name = _parent_name(node.target)
    modules[node.target] = new_module
    setattr(modules[parent_name], name, new_module)


_PATTERNS = (
    (_m.Conv1d, _m.BatchNorm1d),
    (_m.Conv2d, _m.BatchNorm2d),
    (_m.Conv3d, _m.BatchNorm3d),
    (_m.Linear, _m.BatchNorm1d),
)


def fuse(model, inplace=False, no_trace=False):
    """A GraphModule computing model with every BatchNorm that follows a Conv1d/2d/3d or Linear used only by it
    folded into that layer (for inference: the layers must be in eval mode). model is deep-copied unless
    inplace; no_trace uses a GraphModule as it is instead of tracing it again."""
    if not inplace:
        model = copy.deepcopy(model)
    if not no_trace or not isinstance(model, fx.GraphModule):
        fx_model = fx.symbolic_trace(model)
    else:
        fx_model = model
    modules = dict(fx_model.named_modules())
    new_graph = copy.deepcopy(fx_model.graph)
    for pattern in _PATTERNS:
        for node in list(new_graph.nodes):
            if not matches_module_pattern(pattern, node, modules):
                continue
            if len(node.args[0].users) > 1:  # the layer's output feeds more than the BatchNorm
                continue
            first, bn = modules[node.args[0].target], modules[node.target]
            if not bn.track_running_stats:
                continue
            if pattern[0] is _m.Linear:
                fused = fuse_linear_bn_eval(first, bn)
            else:
                fused = fuse_conv_bn_eval(first, bn)
            replace_node_module(node.args[0], modules, fused)
            node.replace_all_uses_with(node.args[0])
            new_graph.erase_node(node)
    return fx.GraphModule(fx_model, new_graph)


def remove_dropout(model):
    """A GraphModule of model without its Dropout layers (each passes its input through)."""
    fx_model = fx.symbolic_trace(model)

    class DropoutRemover(fx.Transformer):
        def call_module(self, target, args, kwargs):
            if isinstance(self.submodules[target], Dropout):
                if len(args) != 1:
                    raise AssertionError(f"Expected 1 arg for Dropout, got {len(args)}")
                return args[0]
            return super().call_module(target, args, kwargs)

    return DropoutRemover(fx_model).transform()


def extract_subgraph(orig_module, nodes, inputs, outputs):
    """A GraphModule over orig_module running nodes, with inputs as its placeholders and outputs returned."""
    new_graph = fx.Graph()
    env = {}
    for inp in inputs:
        env[inp] = new_graph.placeholder(inp.name)
    for node in nodes:
        env[node] = new_graph.node_copy(node, lambda x: env[x])
    new_graph.output([env[out] for out in outputs])
    new_graph.lint()
    return fx.GraphModule(orig_module, new_graph)
