"""minitorch.testing: assert_close with PyTorch's per-dtype default tolerances, and make_tensor."""

from minitorch.testing._asserts import assert_close  # noqa: F401
from minitorch.testing._creation import make_tensor  # noqa: F401
