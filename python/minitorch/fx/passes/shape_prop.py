"""torch.fx.passes.shape_prop: ShapeProp runs a GraphModule and records each value's shape and dtype."""

from typing import Any, NamedTuple

from minitorch import _C
from minitorch.fx.interpreter import Interpreter
from minitorch.fx.node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records for a tensor: shape, dtype, requires_grad, stride, memory_format (None: we
    have no memory formats), is_quantized (always False) and qparams."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    return TensorMetadata(
        result.shape, result.dtype, result.requires_grad, tuple(result.stride()), None, False, {}
    )


class ShapeProp(Interpreter):
    """Runs the module on example inputs (``propagate(*args)``) and stores, for each node whose value holds
    tensors, ``node.meta['tensor_meta']`` (a TensorMetadata, or the same nesting of them as the value) and
    ``node.meta['type']`` (the value's Python type)."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        self.fake_mode = fake_mode

    def run_node(self, n):
        """Runs the node and records meta['tensor_meta'] and meta['type'] of its value."""
        result = super().run_node(n)
        found = False

        def extract(obj):
            nonlocal found
            if isinstance(obj, _C.Tensor):
                found = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Runs the module on args, recording the metadata; returns its result."""
        return super().run(*args)
