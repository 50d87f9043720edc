"""minitorch.distributed: torch.distributed's process groups and collectives (Gloo on CPU, NCCL on CUDA)."""

from .distributed_c10d import *
from .distributed_c10d import __all__ as _c10d_all
from .store import DistNetworkError

__all__ = list(_c10d_all) + ["DistNetworkError"]
