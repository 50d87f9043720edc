"""nn.parallel: DataParallel (one process, several devices), DistributedDataParallel (one process per device)
and their parts, as torch.nn.parallel lays them out."""

from minitorch.nn.parallel.data_parallel import DataParallel, data_parallel
from minitorch.nn.parallel.parallel_apply import parallel_apply
from minitorch.nn.parallel.replicate import replicate
from minitorch.nn.parallel.scatter_gather import gather, scatter

__all__ = [
    "DataParallel",
    "DistributedDataParallel",
    "data_parallel",
    "gather",
    "parallel_apply",
    "replicate",
    "scatter",
]


def __getattr__(name):
    # DistributedDataParallel pulls in minitorch.distributed (process groups, the store): loaded on first use,
    # so `import minitorch` does not pay for it.
    if name == "DistributedDataParallel":
        from minitorch.nn.parallel.distributed import DistributedDataParallel

        globals()[name] = DistributedDataParallel
        return DistributedDataParallel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"DistributedDataParallel"})
