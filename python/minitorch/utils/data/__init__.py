"""minitorch.utils.data: datasets, samplers, collation and the DataLoader, with PyTorch's API."""

from minitorch.utils.data._utils.collate import default_collate, default_convert
from minitorch.utils.data._utils.worker import get_worker_info
from minitorch.utils.data.dataloader import DataLoader, _DatasetKind  # noqa: F401
from minitorch.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from minitorch.utils.data.distributed import DistributedSampler
from minitorch.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
