"""nn.utils.rnn: padding and packing of variable-length sequences (defined in nn/_rnn_packing.py, below
nn.modules, which uses them), and their inverses unpad_sequence/unpack_sequence."""

from minitorch import _C
from minitorch.nn._rnn_packing import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
)

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


def invert_permutation(permutation):
    """The inverse of a 1-D permutation tensor (None for None), on its device, without a host round trip."""
    if permutation is None:
        return None
    output = _C.empty_like(permutation)
    output.scatter_(0, permutation, _C.arange(0, permutation.numel(), device=permutation.device))
    return output


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded tensor (T x B x * or, batch_first, B x T x *), each cut to its length.
    PyTorch transposes a T x B x * argument in place (Tensor.transpose_, which minitorch does not have yet);
    here the argument is left as it was."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    idx = _C.arange(padded_sequences.shape[1], device=lengths.device)
    out = []
    for seq, length in zip(padded_sequences, lengths, strict=True):
        out.append(seq[idx < length])
    return out


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
