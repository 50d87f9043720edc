"""torch.random: the default generator's seeding and state (manual_seed, seed, initial_seed, get_rng_state,
set_rng_state) and fork_rng, which restores the CPU and the chosen CUDA devices' generator states on exit."""

import contextlib
import warnings

from minitorch import _C
from minitorch._generator import manual_seed, thread_safe_generator
from minitorch._random import get_rng_state, set_rng_state

__all__ = [
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
    "thread_safe_generator",
]

default_generator = _C.default_generator
_fork_rng_warned_already = False


def seed():
    """Seeds the default generator with a non-deterministic number and returns it."""
    return _C.seed()


def initial_seed():
    """The seed the default generator was last seeded with."""
    return _C.initial_seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Restores the random state on exit: the CPU generator's always, and the chosen CUDA devices' (their
    indices; all of them by default, with PyTorch's warning when there are several) once the cuda module
    exposes their states (cuda.get_rng_state; until then only the CPU state is forked)."""
    global _fork_rng_warned_already
    if device_type == "meta" or not enabled:
        yield
        return
    from minitorch import cuda

    device_type = device_type or "cuda"
    if device_type not in ("cuda", "cpu"):
        raise RuntimeError(
            f"torch has no module of `{device_type}`, you should register a module by `torch._register_device_module`."
        )
    has_cuda = device_type == "cuda" and cuda.is_available() and hasattr(cuda, "get_rng_state")
    if devices is None:
        num_devices = cuda.device_count() if has_cuda else 0
        if num_devices > 1 and not _fork_rng_warned_already:
            warnings.warn(
                f"CUDA reports that you have {num_devices} available devices, and you have used {_caller} without "
                "explicitly specifying which devices are being used. For safety, we initialize *every* CUDA device "
                "by default, which can be quite slow if you have a lot of CUDAs. If you know that you are only "
                "making use of a few CUDA devices, set the environment variable CUDA_VISIBLE_DEVICES or the "
                f"'{_devices_kw}' keyword argument of {_caller} with the set of devices you are actually using.",
                stacklevel=3,
            )
            _fork_rng_warned_already = True
        devices = list(range(num_devices))
    else:
        devices = list(devices) if has_cuda else []
    cpu_state = default_generator.get_state()
    cuda_states = [(d, cuda.get_rng_state(d)) for d in devices]
    try:
        yield
    finally:
        default_generator.set_state(cpu_state)
        for d, state in cuda_states:
            cuda.set_rng_state(state, d)
