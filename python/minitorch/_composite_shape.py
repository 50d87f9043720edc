"""Shape, construction and indexing functions that PyTorch writes as ATen ops and we compose in Python from our
primitive ops (views, cat, index_select, gather...), so autograd and every device come for free; one that a
benchmark shows slow gets a kernel of its own in csrc/."""

from minitorch import _C  # noqa: F401

__all__ = []
# Tensor methods installed by minitorch/__init__.py (name -> function taking the tensor first)
TENSOR_METHODS = {}
