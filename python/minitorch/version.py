"""Version information, as torch.version: __version__ and the CUDA toolkit minitorch was built against."""

from minitorch import _C

__version__ = "0.1.0"
git_version = "unknown"
cuda = _C._cuda_version  # None when built without CUDA, as torch.version.cuda
