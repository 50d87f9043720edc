"""minitorch.backends.cpu: which instruction set the CPU kernels use (PyTorch's torch.backends.cpu)."""

from minitorch import _C

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """'AVX512', 'AVX2' or 'DEFAULT': the vector kernels the float unary ops take on this CPU (our own, with
    SLEEF's where the build found it). MINITORCH_CPU_CAPABILITY=avx2|default, set before import, caps it (as
    ATEN_CPU_CAPABILITY)."""
    return _C._get_cpu_capability()
