"""nn.parallel: DataParallel (one process, several GPUs)."""

from minitorch.nn.parallel.data_parallel import DataParallel  # noqa: F401
