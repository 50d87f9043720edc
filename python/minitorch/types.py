"""torch.types: the type aliases PyTorch's signatures and user annotations use (Number, Device, _size, ...)."""

import os
from collections.abc import Sequence
from typing import IO

from minitorch._C import Tensor, device, dtype
from minitorch._size import Size

__all__ = ["Device", "FileLike", "Number"]

_TensorOrTensors = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors = Tensor | Sequence[Tensor | None]
_size = Size | list[int] | tuple[int, ...]
_int = int
_float = float
_bool = bool
_complex = complex
_dtype = dtype
_device = device
_layout = object
_qscheme = object
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
Number = int | float | bool
_Number = (int, float, bool)
FileLike = str | os.PathLike[str] | IO[bytes]
Device = device | str | int | None
