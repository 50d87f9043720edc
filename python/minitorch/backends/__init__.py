"""minitorch.backends: switches for the libraries behind the ops (cuDNN, cuBLAS)."""

from minitorch.backends import cpu, cuda, cudnn, mkldnn  # noqa: F401
