"""minitorch.distributed: torch.distributed's process groups and collectives (Gloo on CPU, NCCL on CUDA)."""

from .distributed_c10d import *  # noqa: F403
from .distributed_c10d import __all__ as _c10d_all
from .store import DistNetworkError  # noqa: F401

__all__ = list(_c10d_all) + ["DistNetworkError"]
