"""minitorch.Generator's Python-level methods: PyTorch's argument checks for manual_seed/set_state, clone_state,
get_offset/set_offset, pickling and deepcopy; and minitorch.manual_seed returning the default generator. The
generator itself (a Philox stream) is bound in C++."""

import sys

import numpy as np

from minitorch import _C

Generator = _C.Generator
_manual_seed = Generator.manual_seed
_set_state = Generator.set_state
_STATE_BYTES = 16  # get_state(): (seed, offset) as two little-endian uint64


def _generator_manual_seed(self, seed):
    """Seeds this generator and returns it; `seed` is an int in [-2**63, 2**64) (a negative one wraps)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")  # noqa: TRY004 (PyTorch's)
    return _manual_seed(self, seed)


def set_state(self, new_state):
    """Restores a state from get_state() (a 16-byte uint8 CPU tensor) and returns the generator."""
    if not isinstance(new_state, _C.Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    if new_state.dtype != _C.uint8 or new_state.is_cuda:
        raise TypeError("RNG state must be a torch.ByteTensor")
    if new_state.numel() != _STATE_BYTES:
        raise RuntimeError(
            f"Expected a PhiloxGeneratorState of size {_STATE_BYTES} but found the input RNG state size to be "
            f"{new_state.numel()}"
        )
    return _set_state(self, new_state)


def _seed_offset(self):
    seed, offset = np.frombuffer(self.get_state().numpy().tobytes(), dtype="<u8")
    return int(seed), int(offset)


def _with_seed_offset(self, seed, offset):
    raw = np.array([seed, offset], dtype="<u8").view(np.uint8)
    _set_state(self, _C.from_numpy(raw.copy()))
    return self


def get_offset(self):
    """How many Philox counters this generator has consumed since it was seeded (every device's generator
    is Philox here, so the CPU one has an offset too, where PyTorch's Mersenne Twister has none)."""
    return _seed_offset(self)[1]


def set_offset(self, offset):
    """Moves the generator to `offset` counters past its seed; returns the generator."""
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 0:
        raise RuntimeError(f"set_offset expected a non-negative int, but got {offset!r}")
    return _with_seed_offset(self, _seed_offset(self)[0], int(offset))


def clone_state(self):
    """A new generator on the same device in the same state: both then draw the same numbers."""
    g = Generator(self.device)
    _set_state(g, self.get_state())
    return g


def manual_seed(seed):
    """torch.manual_seed: seeds the default generator of every device and returns the CPU one
    (minitorch.default_generator), so that `g = torch.manual_seed(0)` can be passed as generator=."""
    _C.manual_seed(seed)
    return _C.default_generator


def _rebuild(device, state):
    g = Generator(device)
    _set_state(g, state)
    return g


def _reduce(self):
    # (a state tensor pickles as a tensor); the device is rebuilt from its string
    return (_rebuild, (str(self.device), self.get_state()))


def _deepcopy(self, memo):
    return clone_state(self)


def _repr(self):
    return f"<minitorch.Generator object at {id(self):#x}>"


Generator.manual_seed = _generator_manual_seed
Generator.set_state = set_state
Generator.get_offset = get_offset
Generator.set_offset = set_offset
Generator.clone_state = clone_state
Generator.__reduce__ = _reduce
Generator.__deepcopy__ = _deepcopy
Generator.__module__ = "minitorch"


def thread_safe_generator():
    """The running DataLoader thread worker's own generator, else None (the main process and process workers use
    the default generator). minitorch's DataLoader runs its workers as processes, so this is None there."""
    data = sys.modules.get("minitorch.utils.data")  # (not loaded: no DataLoader worker can be running)
    info = data.get_worker_info() if data is not None else None
    if info is not None and getattr(info, "worker_method", None) == "thread" and getattr(info, "rng", None):
        return info.rng.torch_generator
    return None
