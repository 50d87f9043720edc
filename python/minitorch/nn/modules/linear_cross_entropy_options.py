"""torch.nn.modules.linear_cross_entropy_options, PyTorch's home of LinearCrossEntropyOptions (defined beside
the function that reads it, nn/functional/_linear_cross_entropy.py)."""

from minitorch.nn.functional._linear_cross_entropy import LinearCrossEntropyOptions

__all__ = ["LinearCrossEntropyOptions"]
