"""Random numbers for samplers and the DataLoader: minitorch's global generator or a NumPy Generator.

minitorch has no ``Generator`` class yet (its Philox generators live in C++ and only the global ones are
exposed), so wherever PyTorch takes ``generator=torch.Generator()`` this package takes a
``numpy.random.Generator`` instead. With ``generator=None`` every draw comes from minitorch's global CPU
generator, so ``minitorch.manual_seed`` makes shuffling, splitting and worker seeds reproducible. The
sequences differ from PyTorch's for the same seed (different bit generators), as they would anyway.
"""

import numpy as np

import minitorch

_SEED_HIGH = 2**63 - 1  # PyTorch draws worker and sampler seeds as non-negative int64


def _check_generator(generator):
    if generator is not None and not isinstance(generator, np.random.Generator):
        raise TypeError(
            "generator must be None or a numpy.random.Generator (minitorch has no Generator class yet), "
            f"got {type(generator).__name__}"
        )
    return generator


def _draw_seed(generator=None):
    """A non-negative 63-bit seed from `generator`, or from minitorch's global generator when None."""
    if generator is None:
        return int(minitorch.randint(0, _SEED_HIGH, ()).item())
    return int(_check_generator(generator).integers(0, _SEED_HIGH))


def _numpy_rng(generator=None):
    """`generator` itself, or (when None) a fresh NumPy Generator seeded by one draw from minitorch's."""
    if generator is None:
        return np.random.Generator(np.random.PCG64(_draw_seed()))
    return _check_generator(generator)


def _randperm(n, generator=None):
    """A random permutation of range(n) as a list: minitorch.randperm when no generator is given."""
    if generator is None:
        return minitorch.randperm(n).tolist()
    return _check_generator(generator).permutation(n).tolist()
