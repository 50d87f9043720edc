"""nn.functional's sparse layers: embedding, embedding_bag and one_hot."""

import warnings

import numpy as np

from minitorch import _C, _argcheck
from minitorch._creation import tensor as _tensor
from minitorch.autograd.grad_mode import no_grad

_nn = _C._nn


def _embedding_padding_idx(padding_idx, num_embeddings):
    """padding_idx checked against num_embeddings and made non-negative (F.embedding and nn.Embedding)."""
    if padding_idx is None:
        return None
    # PyTorch's two asserts: 0 passes even when num_embeddings is 0.
    if (padding_idx > 0 and padding_idx >= num_embeddings) or padding_idx < -num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def embedding(
    input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False
):
    # PyTorch's F.embedding reads weight's size only to check a positive or negative padding_idx
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx > 0:
        if padding_idx >= weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = weight.size(0) + padding_idx
    if sparse:
        raise NotImplementedError("minitorch has no sparse tensors: use sparse=False (a dense gradient)")
    if max_norm is not None:
        input = input.contiguous()
        with no_grad():  # PyTorch renormalizes weight.detach() (its AttributeError for a non-tensor weight)
            _nn.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    return _embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# torch.embedding, the C++ op F.embedding ends in: PyTorch's parser decides the argument kinds
_embedding = _argcheck.parsing(
    _nn.embedding.__call__,
    ["Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False"],
    "embedding",
    upfront=False,
    positional=True,
)


def one_hot(tensor, num_classes=-1):
    if not _argcheck._int_like(num_classes, True):  # the parser's int, before the kernel's dtype check
        raise TypeError(
            f"one_hot(): argument 'num_classes' (position 2) must be int, not {_argcheck._kind_name(num_classes)}"
        )
    num_classes = int(num_classes)
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max().item()) + 1
    if tensor.is_meta:  # no values to check: the shape is all there is
        return _C.empty(tuple(tensor.shape) + (num_classes,), dtype=_C.int64, device=tensor.device)
    if tensor.numel() and (int(tensor.min().item()) < 0):
        raise RuntimeError("Class values must be non-negative.")
    if num_classes > 2**63 - 1:  # int64's max + 1 wraps negative in ATen's kernel, which zeros() refuses
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    if tensor.numel() and int(tensor.max().item()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = _C.zeros(tuple(tensor.shape) + (num_classes,), dtype=_C.int64, device=tensor.device)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)


# ---- embedding bags
def _embedding_bag_checks(flat, weight, mode, padding_idx, used, offsets=None):
    """PyTorch's CPU embedding_bag checks: the indices' (and offsets') dtype, weight's dtype, then the indices
    against the rows. Its fast path (float, half or bfloat16 rows contiguous along dim 1, sum or mean, no
    padding_idx) checks the positions the bags cover (the first `used`) in FBGEMM's words; the others every
    index, in their own"""
    # indices and offsets are promoted to one type first (PyTorch >= 2.1), then checked as the indices
    dt = flat.dtype if offsets is None else _C.result_type(flat, offsets)
    if dt not in (_C.int64, _C.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {flat.to(dt).type()} instead (while checking arguments for embedding_bag)"
        )
    if weight.is_cuda:  # (PyTorch's CUDA kernel asserts on the device)
        return
    if not weight.is_floating_point():
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, "
            f"Float, Double; but got {weight.type()} instead (while checking arguments for embedding_bag)"
        )
    fast = (
        weight.dtype in (_C.float32, _C.float16, _C.bfloat16)
        and weight.stride(1) == 1
        and padding_idx is None
        and mode != "max"
    )
    ids = flat.reshape(-1).cpu().numpy()
    if fast:
        ids = ids[:used]
    n = weight.shape[0]
    bad = np.flatnonzero((ids < 0) | (ids >= n))
    if bad.size:
        i = int(bad[0])
        if fast:
            raise RuntimeError(
                f"Index {i} of input takes value {int(ids[i])} which is not in the valid range [0, {n})"
            )
        raise RuntimeError(
            f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {int(ids[i])}"
        )


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, averages or maxes bags of embedding rows: a 2-D input is one bag per row, a 1-D input is cut into
    bags at `offsets`. padding_idx entries are left out of every bag; an empty bag gives zeros."""

    if weight.dtype == _C.int64 and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
            "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, then it "
            f"must have the same shape as the input ({tuple(input.shape)})"
        )
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                f"length sequences. However, found offsets of type {type(offsets)}"
            )
        nbags, width = input.shape
        # PyTorch makes the bags' offsets with arange in input's dtype: its refusals (a bool or complex input,
        # a zero width's step) come from there, before the indices' dtype check
        _C.arange(0, input.numel(), width, dtype=input.dtype, device=input.device)
        starts = np.arange(nbags, dtype=np.int64) * width
        flat = input.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        if offsets.is_meta or input.is_meta or weight.is_meta:
            starts = np.zeros(offsets.shape[0], np.int64)  # (no values: the bags' count alone)
        else:
            starts = offsets.cpu().numpy().astype(np.int64)
        if starts.size and starts[0] != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                f"position 0. However, got {starts[0]}"
            )
        if starts.size and starts[-1] > input.shape[0]:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {input.shape[0]} but got offsets[-1] of "
                f"{starts[-1]}"
            )
        if include_last_offset:
            starts = starts[:-1]
        flat, psw = input, per_sample_weights
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for "
            f"mode='sum' (got mode='{mode}'). Please open a feature request on GitHub."
        )
    if input.is_meta or weight.is_meta or (offsets is not None and offsets.is_meta):
        # the bags' lookups read the indices: a meta result is the output's shape, as PyTorch's meta function
        _embedding_padding_idx(padding_idx, weight.shape[0])
        return _C.empty((len(starts), weight.shape[1]), dtype=weight.dtype, device=weight.device)
    if max_norm is not None:
        with no_grad():
            _nn.embedding_renorm_(weight, flat.contiguous(), max_norm, norm_type)
    padding_idx = _embedding_padding_idx(padding_idx, weight.shape[0])
    total = flat.shape[0]
    nbags = len(starts)
    if include_last_offset and input.dim() == 1:
        ends = offsets.cpu().numpy().astype(np.int64)[1:]
    else:
        ends = np.append(starts[1:], total) if nbags else starts
    lengths = ends - starts
    _embedding_bag_checks(
        flat, weight, mode, padding_idx, int(ends[-1]) if nbags else 0, offsets if input.dim() == 1 else None
    )
    if nbags and int(ends[-1]) < total:  # past include_last_offset's last offset: never read
        total = int(ends[-1])
        flat = flat[:total]
        psw = None if psw is None else psw[:total]
    width = int(lengths.max()) if nbags else 0
    # each bag as a row of `width` positions into the looked-up rows; the slots past a bag's end (and
    # padding_idx entries) point at one extra row that is neutral for the reduction
    pos = starts[:, None] + np.arange(width)[None, :]
    valid = np.arange(width)[None, :] < lengths[:, None]
    if padding_idx is not None and total:
        ids = flat.cpu().numpy()
        valid &= ids[np.minimum(pos, total - 1)] != padding_idx
    dim = weight.shape[1]
    if width == 0:
        return _C.zeros((nbags, dim), dtype=weight.dtype, device=weight.device)
    # index_select is the cheaper lookup; the native embedding only for its scale_grad_by_freq backward
    if scale_grad_by_freq:
        rows = embedding(flat, weight, scale_grad_by_freq=True)
    else:
        rows = weight.index_select(0, flat.reshape(-1))
    if psw is not None:
        rows = rows * psw.unsqueeze(-1)
    if valid.all() and nbags * width == total:
        # equal, back-to-back bags (every 2-D input): the looked-up rows already are the dense layout
        dense = rows.reshape(nbags, width, dim)
    else:
        gather = _tensor(np.where(valid, pos, total).reshape(-1).astype(np.int64), device=weight.device)
        fill = float("-inf") if mode == "max" else 0.0
        extra = _C.full((1, dim), fill, dtype=rows.dtype, device=rows.device)
        dense = _C.cat([rows, extra], 0).index_select(0, gather).reshape(nbags, width, dim)
    if mode == "max":
        out = dense.amax(1)
        nonempty = _tensor(valid.any(1), device=weight.device).unsqueeze(-1)
        return _C._where(nonempty, out, 0.0)
    out = dense.sum(1)
    if mode == "mean":
        counts = _tensor(np.maximum(valid.sum(1), 1).astype(np.float64), device=weight.device)
        out = out / counts.to(out.dtype).unsqueeze(-1)
    return out


# PyTorch's TypeError for an argument of the wrong kind, on the error path only (minitorch/_argcheck.py):
# one_hot is a C++ op in PyTorch (its parser checks every kind)
_argcheck.translate_module(globals(), ["one_hot"])
