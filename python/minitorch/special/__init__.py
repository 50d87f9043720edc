"""minitorch.special: PyTorch's torch.special names over our elementwise ops."""

__all__ = []
