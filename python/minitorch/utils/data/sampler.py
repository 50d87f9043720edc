"""Samplers: which dataset indices an epoch visits, in which order, and how they are grouped in batches."""

import itertools

import numpy as np

from minitorch.utils.data._random import _check_generator, _numpy_rng, _randperm

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]


class Sampler:
    """Base class: subclasses define __iter__ (the indices) and, where they know it, __len__."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of the dataset (a permutation, or `num_samples` draws with replacement).

    Each epoch draws one seed (from `generator`, else from minitorch's global generator) and takes the whole
    epoch's order from a private generator seeded with it, as PyTorch does: the order then does not depend on
    other random calls made while the epoch runs (a model's dropout, for instance), and prefetching workers
    consume it in the same order as the main process.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = _check_generator(generator)
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self):
        """How many indices one pass draws (the dataset's length unless num_samples was given)."""
        # the dataset may change size between construction and iteration
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        rng = _numpy_rng(self.generator)
        if self.replacement:
            # drawn in chunks of 32, like PyTorch, so a huge num_samples never materializes at once
            for _ in range(self.num_samples // 32):
                yield from rng.integers(0, n, 32).tolist()
            yield from rng.integers(0, n, self.num_samples % 32).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from rng.permutation(n).tolist()
            yield from rng.permutation(n).tolist()[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order, without replacement."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = _check_generator(generator)

    def __iter__(self):
        for i in _randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices in [0, len(weights)) drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")  # noqa: TRY004 - PyTorch's type
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = _check_generator(generator)

    def __iter__(self):
        rng = _numpy_rng(self.generator)
        p = self.weights / self.weights.sum()
        yield from rng.choice(len(p), size=self.num_samples, replace=self.replacement, p=p).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size` (the last one shorter unless `drop_last`)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")  # noqa: TRY004 - PyTorch's type
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            # zip over one iterator taken batch_size times cuts full batches without a Python step per index
            args = [sampler_iter] * self.batch_size
            for batch in zip(*args):
                yield [*batch]
        else:
            batch = [*itertools.islice(sampler_iter, self.batch_size)]
            while batch:
                yield batch
                batch = [*itertools.islice(sampler_iter, self.batch_size)]

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
