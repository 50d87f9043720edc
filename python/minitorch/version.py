"""Version information, as torch.version: __version__ and the CUDA toolkit minitorch was built against."""

__version__ = "0.1.0"
git_version = "unknown"
