"""minitorch.signal: PyTorch's torch.signal namespace (its windows)."""

from minitorch.signal import windows

__all__ = ["windows"]
