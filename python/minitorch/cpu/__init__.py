"""minitorch.cpu: CPU counterparts of minitorch.cuda's helpers (amp)."""

from minitorch.cpu import amp  # noqa: F401


def is_available():
    """Always True: the CPU is always there."""
    return True


def device_count():
    """Always 1: minitorch treats the CPU as one device."""
    return 1


def synchronize(device=None):
    """CPU ops finish before they return: nothing to wait for."""
