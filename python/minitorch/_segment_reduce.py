"""torch.segment_reduce: sum/mean/max/min/prod over runs of consecutive slices along one axis (lengths or offsets)."""

import numpy as np

from minitorch import _C, _argcheck
from minitorch._creation import tensor as _tensor
from minitorch._dtype_names import scalar_name
from minitorch.autograd.function import Function

# ATen's names (and the aliases its parser of the string takes) -> the scatter_reduce reduction
_REDUCE = {
    "sum": "sum",
    "mean": "sum",
    "prod": "prod",
    "max": "amax",
    "amax": "amax",
    "min": "amin",
    "amin": "amin",
}
_KIND = {"amax": "max", "amin": "min"}
# the largest finite value of each type (ATen refuses to convert a larger Scalar) and its C++ name
_LIMITS = {
    _C.float16: (65504.0, "c10::Half"),
    _C.float32: (3.4028234663852886e38, "float"),
    _C.bfloat16: (3.3895313892515355e38, "c10::BFloat16"),
    _C.float64: (float("inf"), "double"),
}
_FLOATING = (_C.float32, _C.float64, _C.float16, _C.bfloat16)


def _start_value(kind, initial):
    if initial is not None:
        return initial
    return {"max": float("-inf"), "min": float("inf"), "prod": 1.0}.get(kind, 0.0)


def _segment_ids(bounds, outer, length, by_offsets):
    """(outer, length) int64: the segment each position of each outer row falls in, the segment count (S) for
    positions no segment covers, and (outer, S) counts. bounds: (outer, S) lengths or (outer, S + 1) offsets."""
    if by_offsets:
        starts, ends = bounds[:, :-1], bounds[:, 1:]
    else:
        ends = np.cumsum(bounds, axis=1)
        starts = ends - bounds
    counts = ends - starts
    if (counts < 0).any():
        raise RuntimeError(
            "Expected segment_length >= 0 to be true, but got false.  (Could this error message be improved?  "
            "If so, please report an enhancement request to PyTorch.)"
        )
    nseg = counts.shape[1]
    # PyTorch reads past the data for bounds beyond it (unsafe lengths, offsets out of range): refused here
    if (starts < 0).any() or (ends > length).any():
        raise RuntimeError(f"segment_reduce(): the segments reach outside the {length} positions along axis")
    ids = np.full((outer, length + 1), nseg, np.int64)
    for r in range(outer):
        seg = np.repeat(np.arange(nseg, dtype=np.int64), counts[r])
        first = int(starts[r, 0]) if nseg else 0  # offsets need not start at 0; consecutive segments follow
        ids[r, first : first + seg.size] = seg
    return ids[:, :length], counts


class SegmentReduce(Function):
    """The reduction of (outer, L, inner) data into (outer, S, inner) by segment ids, with ATen's backward: max
    and min share a gradient equally among tied (or NaN) extremes where it is positive, prod divides the output
    by each element except at zeros and NaNs (there the product of the others)."""

    @staticmethod
    def forward(ctx, data, ids, counts, kind, initial, nseg, inner, shape):
        """data reduced into `shape` by the (outer, L) segment ids (nseg: the uncovered positions' id)."""
        outer, length = ids.shape
        shape_in = data.shape
        data = data.reshape(outer, length, inner)
        index = ids.unsqueeze(-1).expand(outer, length, inner)
        start = _start_value(kind, initial)
        base = _C.full((outer, nseg + 1, inner), start, dtype=data.dtype, device=data.device)
        out = base.scatter_reduce(1, index, data, _REDUCE[kind], include_self=True)[:, :nseg]
        if kind == "mean":
            n = counts.to(data.dtype).unsqueeze(-1)
            empty = (counts == 0).unsqueeze(-1)
            fill = float("nan") if initial is None else float(initial)
            out = _C._where(
                empty, _C.full((), fill, dtype=data.dtype, device=data.device), out / n.clamp(min=1)
            )
        ctx.save_for_backward(data, ids, counts, out)
        ctx.kind, ctx.initial, ctx.nseg, ctx.data_shape = kind, initial, nseg, shape_in
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        """data's gradient by ATen's rules (_grad); under create_graph a node whose derivative raises."""
        data, ids, counts, out = ctx.saved_tensors
        g = SegmentReduce._grad(
            ctx.kind, ctx.nseg, ctx.initial, data, ids, counts, out, grad.reshape(out.shape)
        )
        if _C.is_grad_enabled():  # create_graph: ATen has no derivative of this backward
            g = _NoDerivative.apply(g, data)  # (data: the output joins the graph as ATen's does)
        return g.reshape(ctx.data_shape), None, None, None, None, None, None, None

    @staticmethod
    def _grad(kind, nseg, initial, data, ids, counts, out, grad):
        outer, length, inner = data.shape
        index = ids.unsqueeze(-1).expand(outer, length, inner)
        valid = (ids < nseg).unsqueeze(-1)

        def spread(t):  # (outer, S, inner) -> each position's segment value (0 where no segment)
            pad = _C.zeros((outer, 1, inner), dtype=t.dtype, device=t.device)
            return _C.cat([t, pad], 1).gather(1, index)

        g = spread(grad)
        zero = _C.zeros((), dtype=data.dtype, device=data.device)
        if kind == "sum":
            return g
        if kind == "mean":
            n = spread(counts.to(data.dtype).unsqueeze(-1).expand(outer, nseg, inner))
            return g / n.clamp(min=1)
        if kind in ("max", "min"):
            hit = valid & (data.isnan() | (data == spread(out)))
            base = _C.zeros((outer, nseg + 1, inner), dtype=data.dtype, device=data.device)
            ties = spread(base.scatter_add(1, index, hit.to(data.dtype))[:, :nseg])
            g = _C._where(hit, g, zero)
            return _C._where(hit & (ties >= 2) & (g > 0), g / ties, g)
        # prod: the output over each element, or at a zero or NaN the product of the others
        special = data.isnan() | (data == 0)
        ones = _C.ones((), dtype=data.dtype, device=data.device)
        start = 1.0 if initial is None else initial
        base = _C.full((outer, nseg + 1, inner), start, dtype=data.dtype, device=data.device)
        rest = spread(base.scatter_reduce(1, index, _C._where(special, ones, data), "prod")[:, :nseg])
        cnt = _C.zeros((outer, nseg + 1, inner), dtype=data.dtype, device=data.device)
        nans = spread(cnt.scatter_add(1, index, data.isnan().to(data.dtype))[:, :nseg]) - data.isnan().to(
            data.dtype
        )
        zeros = spread(cnt.scatter_add(1, index, (data == 0).to(data.dtype))[:, :nseg]) - (data == 0).to(
            data.dtype
        )
        others = _C._where(nans > 0, float("nan"), _C._where(zeros > 0, 0.0, 1.0)).to(data.dtype)
        at_special = g * rest * others
        plain = g * spread(out) / _C._where(special, ones, data)
        return _C._where(valid, _C._where(special, at_special, plain), zero)


class _NoDerivative(Function):
    """The gradient's node under create_graph: differentiating it again raises ATen's error."""

    @staticmethod
    def forward(ctx, g, data):
        return g.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::_segment_reduce_backward is not implemented")


def _bounds(name, bounds, data, axis, unsafe):
    """bounds (lengths or offsets) checked as ATen does; axis is already wrapped"""
    if data.dim() < bounds.dim():
        raise RuntimeError(
            f"Expected data.dim() >= {name}_value.dim() to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)"
        )
    if axis != bounds.dim() - 1:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of {name} but got {axis}."
        )
    if not unsafe and name == "lengths" and not (bounds.is_meta or data.is_meta):
        if int(bounds.min().item()) < 0:
            raise RuntimeError("lengths contains negative value!")
        if not bool((bounds.sum(-1) == data.shape[axis]).all().item()):
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) "
                "when !unsafe."
            )
    if bounds.dtype not in (_C.int32, _C.int64):
        raise NotImplementedError(
            f"\"_segment_reduce_{name}_cpu_kernel1\" not implemented for '{scalar_name(bounds.dtype)}'"
        )


@_argcheck.parses(
    "Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, Tensor? offsets=None, int axis=0, "
    "bool unsafe=False, Scalar? initial=None"
)
def segment_reduce(
    data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None
):
    """Reduces data along axis over consecutive segments given by lengths (each segment's size) or offsets (their
    bounds; they win when both are given). lengths/offsets have axis + 1 dims, one row per index of the dims
    before axis. An empty segment gives the reduction's identity (NaN for mean) or initial."""
    axis = _wrap(axis, data.dim())
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    kind = _KIND.get(reduce, reduce)
    by_offsets = offsets is not None
    bounds = offsets if by_offsets else lengths
    _bounds("offsets" if by_offsets else "lengths", bounds, data, axis, unsafe)
    if data.dtype not in _FLOATING:
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for '{scalar_name(data.dtype)}'")
    if initial is not None:  # ATen's conversion of the Scalar to the data's type (its overflow check)
        limit, cname = _LIMITS[data.dtype]
        if isinstance(initial, complex) and initial.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {cname} without overflow")
        value = float(initial.real if isinstance(initial, complex) else initial)
        if abs(value) != float("inf") and abs(value) > limit:
            raise RuntimeError(f"value cannot be converted to type {cname} without overflow")
        initial = _C.full((), value, dtype=data.dtype).item()
    nseg = bounds.shape[-1] - (1 if by_offsets else 0)
    shape = list(data.shape)
    shape[axis] = nseg
    if data.is_meta or bounds.is_meta:
        return _C.empty(shape, dtype=data.dtype, device=data.device)
    outer = 1
    for s in data.shape[:axis]:
        outer *= s
    length = data.shape[axis]
    inner = 1
    for s in data.shape[axis + 1 :]:
        inner *= s
    rows = bounds.reshape(-1, bounds.shape[-1]).cpu().numpy().astype(np.int64)
    if rows.shape[0] < outer:
        raise RuntimeError(
            f"segment_reduce(): {'offsets' if by_offsets else 'lengths'} has {rows.shape[0]} rows for the "
            f"{outer} slices before axis"
        )
    ids, counts = _segment_ids(rows[:outer], outer, length, by_offsets)
    dev = data.device
    return SegmentReduce.apply(
        data, _tensor(ids, device=dev), _tensor(counts, device=dev), kind, initial, nseg, inner, shape
    )


def _wrap(axis, ndim):
    n = max(ndim, 1)
    if not -n <= axis < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {axis})"
        )
    return axis + n if axis < 0 else axis
