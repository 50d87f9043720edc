"""Flatten and Unflatten: reshape a range of dimensions."""

from minitorch.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int) and not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                "unflattened_size must be tuple of ints, but found type " + type(unflattened_size).__name__
            )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
