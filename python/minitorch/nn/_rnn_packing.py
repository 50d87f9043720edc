"""Variable-length sequences for the recurrent layers (re-exported as torch.nn.utils.rnn): padding and packing.
It lives under nn, below nn.modules, because nn.modules.rnn uses it and nn.utils sits above nn.modules.
A PackedSequence holds the time-major rows of the sequences still running at each step (data), how many
run at each step (batch_sizes, int64 on the CPU) and, when the batch was sorted by length here, the
permutation and its inverse."""

from collections import namedtuple

from minitorch import _C
from minitorch._creation import tensor as _tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence", "pad_sequence"]


class PackedSequence(
    namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
):
    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        idx = [None if t is None else t.to(data.device) for t in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *idx)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _invert_permutation(perm):
    if perm is None:
        return None
    p = [int(i) for i in perm.tolist()]
    inv = [0] * len(p)
    for i, j in enumerate(p):
        inv[j] = i
    return _tensor(inv, dtype=_C.int64, device=perm.device)


def _lengths_list(lengths):
    if hasattr(lengths, "tolist"):
        if lengths.dim() != 1:
            raise RuntimeError(
                f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D"
            )
        return [int(x) for x in lengths.tolist()]
    return [int(x) for x in lengths]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    s0 = sequences[0]
    out = _C.full((len(sequences), max_len) + trailing, padding_value, dtype=s0.dtype, device=s0.device)
    for i, s in enumerate(sequences):
        n = s.size(0)
        if n:
            if padding_side == "right":
                out[i, :n] = s
            else:
                out[i, max_len - n :] = s
    return out if batch_first else out.transpose(0, 1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    lens = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if len(lens) != input.size(batch_dim):
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
            f"(batch_size={input.size(batch_dim)})"
        )
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])  # stable: equal lengths keep their order
        sorted_indices = _tensor(order, dtype=_C.int64, device=input.device)
        lens = [lens[i] for i in order]
        input = input.index_select(batch_dim, sorted_indices)
    if lens and lens[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if batch_first:
        input = input.transpose(0, 1)
    if lens and lens[0] > input.size(0):
        raise RuntimeError(
            f"Expected sequence length to be larger than or equal to {lens[0]}, got {input.size(0)}"
        )
    steps = lens[0] if lens else 0
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(steps)]
    data = (
        _C.cat([input[t, : batch_sizes[t]] for t in range(steps)])
        if steps
        else input.reshape(0, *input.shape[2:])
    )
    return PackedSequence(data, _tensor(batch_sizes, dtype=_C.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    n = batch_sizes[0] if steps else 0
    if total_length is not None and total_length < steps:
        raise ValueError(
            "Expected total_length to be at least the length of the longest sequence in input, but got "
            f"total_length={total_length} and max sequence length being {steps}"
        )
    T = steps if total_length is None else total_length
    out = _C.full((T, n) + tuple(data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    off = 0
    for t, b in enumerate(batch_sizes):
        out[t, :b] = data[off : off + b]
        off += b
    lengths = [sum(1 for b in batch_sizes if b > i) for i in range(n)]
    lengths = _tensor(lengths, dtype=_C.int64)
    if sequence.unsorted_indices is not None:
        out = out.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.cpu())
    return (out.transpose(0, 1) if batch_first else out), lengths


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)
