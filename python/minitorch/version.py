"""Version information, as torch.version: __version__ and the CUDA toolkit minitorch was built against."""

from minitorch._C import _cuda_version

__version__ = "0.1.0"
git_version = "unknown"
cuda = _cuda_version  # "13.0" for a CUDA build, None for a CPU-only build
