"""PyTorch's process-wide switches and questions about the build: deterministic algorithms, warn-always, inter-op
threads, flush-denormal, the ABI and the backends compiled in."""

import builtins
import os
import warnings

from minitorch import _argcheck

__all__ = [
    "are_deterministic_algorithms_enabled",
    "compiled_with_cxx11_abi",
    "get_deterministic_debug_mode",
    "get_device_module",
    "get_num_interop_threads",
    "init_num_threads",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_vulkan_available",
    "is_warn_always_enabled",
    "set_deterministic_debug_mode",
    "set_flush_denormal",
    "set_num_interop_threads",
    "set_warn_always",
    "use_deterministic_algorithms",
]


# Our kernels give the same result run to run except CUDA scatter/index_put with accumulate (atomics): the
# flags are recorded for code that reads them back. They are separate from backends.cudnn.deterministic, as
# in PyTorch (cuDNN's convolutions honour either).
_state = {"deterministic": False, "warn_only": False, "warn_always": False, "interop_threads": None}


_warned = set()


def warn_once(key, message, stacklevel=3):
    """A UserWarning the first time `key` comes (PyTorch's TORCH_WARN_ONCE), every time under set_warn_always(True);
    stacklevel 3: the call of the function that warns."""
    if key not in _warned or _state["warn_always"]:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=stacklevel)


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records whether deterministic algorithms are required (PyTorch's process-wide flag). minitorch's ops
    are deterministic except CUDA scatter/index_put with accumulate, which do not check the flag."""
    if not isinstance(mode, builtins.bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
            f"{type(mode).__name__}"
        )
    if not isinstance(warn_only, builtins.bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
            f"{type(warn_only).__name__}"
        )
    _state["deterministic"] = mode
    _state["warn_only"] = warn_only if mode else False


def are_deterministic_algorithms_enabled():
    """True after use_deterministic_algorithms(True)."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """True after use_deterministic_algorithms(True, warn_only=True)."""
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """The determinism flags by one value: 'default'/0 (off), 'warn'/1 (on, warn only), 'error'/2 (on)."""
    if isinstance(debug_mode, str):
        names = ("default", "warn", "error")
        if debug_mode not in names:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                f"{debug_mode}"
            )
        debug_mode = names.index(debug_mode)
    elif isinstance(debug_mode, builtins.int) and not isinstance(debug_mode, builtins.bool):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0 when determinism is off, 1 when it only warns, 2 when it is required (see set_deterministic_debug_mode)."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_warn_always(b):
    """Records PyTorch's warn-always flag (warnings that fire once per process would fire every time)."""
    _state["warn_always"] = builtins.bool(b)


def is_warn_always_enabled():
    """The flag set by set_warn_always."""
    return _state["warn_always"]


def get_num_interop_threads():
    """Threads for inter-op parallelism. minitorch runs ops one after another on the calling thread (the
    intra-op pool is get_num_threads); this reports the value set, else the core count, as PyTorch's default."""
    n = _state["interop_threads"]
    return n if n is not None else (os.cpu_count() or 1)


def set_num_interop_threads(num):
    """Records the inter-op thread count (see get_num_interop_threads); it must be positive."""
    if not isinstance(num, builtins.int) or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _state["interop_threads"] = num


def set_flush_denormal(mode):
    """PyTorch sets the CPU's flush-to-zero mode here; minitorch cannot set it, so this returns False (as
    PyTorch does on a CPU without the mode) and subnormal numbers keep their values."""
    return False


def compiled_with_cxx11_abi():
    """True: the extension is built with the C++11 std::string ABI (GCC's default since 5, as PyTorch's wheels)."""
    return True


@_argcheck.checks_own_arguments  # it takes anything and cannot fail: no translating wrapper (0.15 -> 0.1 us)
def is_vulkan_available(*args, **kwargs):
    """False: there is no Vulkan backend (PyTorch's stub takes and ignores any arguments too)."""
    return False


def init_num_threads():
    """Nothing to do: the CPU thread pool starts with the process (PyTorch calls this in new threads)."""


def get_device_module(device=None):
    """The module of a device type (minitorch.cuda for 'cuda', minitorch.cpu for 'cpu'); the current
    accelerator's (or cpu) for None."""
    import importlib

    from minitorch import _C

    if device is None:
        name = "cuda" if importlib.import_module("minitorch.cuda").is_available() else "cpu"
    elif isinstance(device, str):
        name = _C.device(device).type
    elif isinstance(device, _C.device):
        name = device.type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if name not in ("cpu", "cuda"):
        raise RuntimeError(
            f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'."
        )
    return importlib.import_module(f"minitorch.{name}")
