"""Random numbers for samplers and the DataLoader: minitorch's global generator, a ``minitorch.Generator``
(as PyTorch's ``generator=torch.Generator()``), or a ``numpy.random.Generator`` (accepted as well).

With ``generator=None`` every draw comes from minitorch's global CPU generator, so ``minitorch.manual_seed``
makes shuffling, splitting and worker seeds reproducible; a seeded ``minitorch.Generator`` makes them
reproducible without touching the global one. The sequences differ from PyTorch's for the same seed
(different bit generators), as they would anyway.
"""

import numpy as np

from minitorch import _C

_SEED_HIGH = 2**63 - 1  # PyTorch draws worker and sampler seeds as non-negative int64


def _check_generator(generator):
    if generator is not None and not isinstance(generator, (_C.Generator, np.random.Generator)):
        raise TypeError(
            "generator must be None, a minitorch.Generator or a numpy.random.Generator, "
            f"got {type(generator).__name__}"
        )
    return generator


def _draw_seed(generator=None):
    """A non-negative 63-bit seed from `generator`, or from minitorch's global generator when None."""
    if generator is None or isinstance(_check_generator(generator), _C.Generator):
        return int(_C.randint(0, _SEED_HIGH, (), generator=generator).item())
    return int(generator.integers(0, _SEED_HIGH))


def _numpy_rng(generator=None):
    """A NumPy Generator: `generator` itself when it is one, else a fresh one seeded by one draw from
    minitorch's global generator or the given minitorch.Generator."""
    if isinstance(_check_generator(generator), np.random.Generator):
        return generator
    return np.random.Generator(np.random.PCG64(_draw_seed(generator)))


def _randperm(n, generator=None):
    """A random permutation of range(n) as a list, drawn from `generator` (minitorch's global one if None)."""
    if isinstance(_check_generator(generator), np.random.Generator):
        return generator.permutation(n).tolist()
    return _C.randperm(n, generator=generator).tolist()
