"""DistributedSampler: each of num_replicas processes gets its own equally long share of the dataset."""

import math

import numpy as np

from minitorch.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]


def _dist_default(what):
    # num_replicas/rank default to the process group's, as in PyTorch; given explicitly, no group is needed
    try:
        from minitorch import distributed as dist
    except ImportError:
        dist = None
    if dist is None or not getattr(dist, "is_available", lambda: False)():
        raise RuntimeError("Requires distributed package to be available")
    return dist.get_world_size() if what == "num_replicas" else dist.get_rank()


class DistributedSampler(Sampler):
    """Rank `rank`'s share of the dataset: every num_replicas-th index of one (optionally shuffled) order.

    All ranks shuffle with the same seed (``seed + epoch``), so their shares never overlap; call
    ``set_epoch(epoch)`` before each epoch to get a new order. Without `drop_last` the order is padded
    with its own first indices so every rank gets the same number of samples; with it the tail is dropped.
    The shuffle uses NumPy's PCG64 seeded with ``seed + epoch``, so the
    order differs from PyTorch's for the same seed but is identical on every rank and every run.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _dist_default("num_replicas")
        if rank is None:
            rank = _dist_default("rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # drop the tail so every rank gets the same amount of data without padding
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            rng = np.random.Generator(np.random.PCG64(self.seed + self.epoch))
            indices = rng.permutation(n).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank : self.total_size : self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch, which seeds this epoch's shuffle: call it before each epoch."""
        self.epoch = epoch
