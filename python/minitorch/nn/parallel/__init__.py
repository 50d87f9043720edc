"""nn.parallel: DataParallel (one process, several GPUs)."""

from minitorch.nn.parallel.data_parallel import DataParallel  # noqa: F401
from minitorch.nn.parallel.distributed import DistributedDataParallel  # noqa: F401
