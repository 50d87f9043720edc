"""torch.nested: batches of tensors of different sizes (nested_tensor, as_nested_tensor, to_padded_tensor,
narrow) over the list-of-components NestedTensor of _nested_tensor.py."""

from minitorch import _C
from minitorch._creation import tensor as _tensor
from minitorch.nested._nested_tensor import NestedTensor, RaggedSize, to_padded_tensor
from minitorch.sparse._layout import jagged, strided

__all__ = ["as_nested_tensor", "narrow", "nested_tensor", "to_padded_tensor"]


def _components(tensor_list, dtype, device, what):
    comps = [t if isinstance(t, _C.Tensor) else _tensor(t) for t in tensor_list]
    for i, c in enumerate(comps):
        if c.dim() != comps[0].dim():
            raise RuntimeError(
                f"All Tensors given to {what} must have the same dimension. Found dimension {c.dim()} for Tensor at "
                f"index {i} and dimension {comps[0].dim()} for Tensor at index 0."
            )
    if comps:
        dtype = comps[0].dtype if dtype is None else dtype
        device = comps[0].device if device is None else device
        comps = [c.to(device=device, dtype=dtype) for c in comps]
    return comps


def _layout_of(comps, layout):
    """(layout, ragged_idx): the jagged layout allows a single ragged dimension, found from the sizes."""
    if layout is None or layout is strided:
        return strided, None
    if layout is not jagged:
        raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout}")
    if comps and comps[0].dim() == 0:
        raise RuntimeError("Cannot construct a nested tensor from a list of zero-dim tensors")
    if not comps:
        return jagged, 1
    ragged = [d for d in range(comps[0].dim()) if len({c.shape[d] for c in comps}) > 1]
    if len(ragged) > 1:
        raise RuntimeError(
            "Cannot represent given tensor list as a nested tensor with the jagged layout. Note that the jagged "
            "layout only allows for a single ragged dimension. For example: (B, *, D_0, D_1, ..., D_N), with "
            "ragged * dim."
        )
    return jagged, (ragged[0] if ragged else 0) + 1


def nested_tensor(
    tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """A NestedTensor over copies of the tensors (or nested lists of numbers) in tensor_list: a leaf, whose
    components require grad with requires_grad=True. layout: torch.strided (default) or torch.jagged."""
    if not isinstance(tensor_list, list):
        raise TypeError("Only lists (List[Tensor] and List[List...[Scalar]]) are accepted in nested_tensor")
    comps = [c.detach().clone() for c in _components(tensor_list, dtype, device, "nested_tensor")]
    layout, idx = _layout_of(comps, layout)
    if requires_grad:
        for c in comps:
            c.requires_grad_(True)
    return NestedTensor(comps, layout, idx)


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    """A NestedTensor over ts (a list of tensors, or a tensor whose first dimension is the batch), keeping their
    autograd history: gradients flow back to ts."""
    if isinstance(ts, NestedTensor):
        return ts if dtype is None and device is None else ts.to(device=device, dtype=dtype)
    if isinstance(ts, _C.Tensor):
        if ts.dim() < 1:
            raise RuntimeError("as_nested_tensor(): Expected tensor argument to have dim() > 1")
        ts = list(ts.unbind(0))
    if not isinstance(ts, (list, tuple)):
        raise TypeError(
            "as_nested_tensor(): Expected first argument to be a tensor or a list / tuple of tensors "
        )
    comps = _components(list(ts), dtype, device, "nested_tensor")
    layout, idx = _layout_of(comps, layout)
    return NestedTensor(comps, layout, idx)


def narrow(tensor, dim, start, length, layout=strided):
    """The rows of tensor (its dim 0 is the batch) each narrowed along dim from its own start for its own length
    (ints, or tensors of one entry per row)."""
    if dim == 0:
        raise RuntimeError("narrow(): cannot narrow along the batch dimension")
    n = tensor.shape[0]
    starts = start.tolist() if isinstance(start, _C.Tensor) else [start] * n
    lengths = length.tolist() if isinstance(length, _C.Tensor) else [length] * n
    comps = [tensor[i].narrow(dim - 1, starts[i], lengths[i]) for i in range(n)]
    if layout is jagged:
        return NestedTensor(comps, jagged, dim)
    return NestedTensor([c.contiguous() for c in comps], *_layout_of(comps, layout))


def _install_tensor_methods(cls):
    """Tensor.is_nested: False for every dense tensor (a NestedTensor answers True)."""
    cls.is_nested = False


NestedTensor.__module__ = "minitorch.nested"
RaggedSize.__module__ = "minitorch.nested"
