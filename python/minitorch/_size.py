"""minitorch.Size: the tuple subclass that Tensor.shape and Tensor.size() return."""

from minitorch import _C


class Size(_C._SizeBase):
    """A tensor's shape: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self):
        """The number of elements a tensor of this size holds (the product of the sizes)."""
        n = 1
        for s in self:
            n *= s
        return n

    # indexing (a slice gives a Size) is _C._SizeBase's, in C

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))
