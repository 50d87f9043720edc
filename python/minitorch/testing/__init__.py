"""minitorch.testing: assert_close with PyTorch's per-dtype default tolerances."""

from minitorch.testing._asserts import assert_close  # noqa: F401
