"""minitorch.utils: interop helpers (dlpack) and data loading (data), as torch.utils."""

from minitorch.utils import data, dlpack  # noqa: F401
