"""minitorch.linalg: PyTorch's torch.linalg (norms, products) over our ops."""

__all__ = []
