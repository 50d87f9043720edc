"""nn.parallel: DataParallel (one process, several devices), DistributedDataParallel (one process per device)
and their parts, as torch.nn.parallel lays them out."""

from minitorch.nn.parallel.data_parallel import DataParallel, data_parallel  # noqa: F401
from minitorch.nn.parallel.distributed import DistributedDataParallel  # noqa: F401
from minitorch.nn.parallel.parallel_apply import parallel_apply  # noqa: F401
from minitorch.nn.parallel.replicate import replicate  # noqa: F401
from minitorch.nn.parallel.scatter_gather import gather, scatter  # noqa: F401
