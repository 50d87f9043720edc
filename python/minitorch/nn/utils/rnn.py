"""nn.utils.rnn: padding and packing of variable-length sequences (defined in nn/_rnn_packing.py, below
nn.modules, which uses them)."""

from minitorch.nn._rnn_packing import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
)

__all__ = ["PackedSequence", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence", "pad_sequence"]
