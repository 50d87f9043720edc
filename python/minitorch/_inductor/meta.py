"""TensorMeta: what a captured graph records of a tensor value (shape, dtype, device, strides, requires_grad),
stored in ``node.meta["val"]`` and ``node.meta["example_value"]`` the way PyTorch stores its fake tensors there,
so backends can ask a node for ``.shape``/``.dtype``/``.device`` without holding the tensor itself."""

from minitorch import _C
from minitorch._size import Size

__all__ = ["TensorMeta", "meta_of", "record"]


class TensorMeta:
    """Shape, dtype, device, strides and requires_grad of a tensor value of a graph, with the Tensor methods
    that read them."""

    __slots__ = ("_stride", "device", "dtype", "requires_grad", "shape")

    def __init__(self, shape, dtype, device, stride, requires_grad):
        self.shape = Size(shape)
        self.dtype = dtype
        self.device = device
        self._stride = tuple(stride)
        self.requires_grad = requires_grad

    @classmethod
    def of(cls, t):
        """The meta of tensor t."""
        return cls(t.shape, t.dtype, t.device, t.stride(), t.requires_grad)

    def size(self, dim=None):
        """As Tensor.size."""
        return self.shape if dim is None else self.shape[dim]

    def stride(self, dim=None):
        """As Tensor.stride."""
        return self._stride if dim is None else self._stride[dim]

    def dim(self):
        """As Tensor.dim."""
        return len(self.shape)

    ndim = property(dim)

    def numel(self):
        """As Tensor.numel."""
        n = 1
        for s in self.shape:
            n *= s
        return n

    def is_contiguous(self):
        """As Tensor.is_contiguous (row-major, size-1 dims ignored)."""
        expected = 1
        for size, st in zip(reversed(self.shape), reversed(self._stride)):
            if size != 1 and st != expected:
                return False
            expected *= size
        return True

    def __repr__(self):
        return f"TensorMeta(shape={tuple(self.shape)}, dtype={self.dtype}, device={self.device})"


def record(node, value):
    """Stores the meta of a tensor value (or of the tensors in a tuple/list value) on node."""
    if isinstance(value, _C.Tensor):
        m = TensorMeta.of(value)
    elif isinstance(value, (tuple, list)) and any(isinstance(v, _C.Tensor) for v in value):
        m = (
            type(value)(TensorMeta.of(v) if isinstance(v, _C.Tensor) else v for v in value)
            if not hasattr(value, "_fields")
            else tuple(TensorMeta.of(v) if isinstance(v, _C.Tensor) else v for v in value)
        )
    elif value is None or type(value) in (bool, int, float, str):
        m = value
    else:
        m = None
    node.meta["val"] = m
    node.meta["example_value"] = m


def meta_of(node):
    """The TensorMeta of a node's tensor value, or None."""
    from minitorch.fx import Node

    if not isinstance(node, Node):
        return None
    m = node.meta.get("val")
    return m if isinstance(m, TensorMeta) else None
