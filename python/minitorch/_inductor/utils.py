"""Helpers shared by torch.compile's modules (_dynamo imports them from here, the lower package)."""

import os
import sys

__all__ = ["PKG_DIR", "user_stacklevel"]

PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_stacklevel():
    """The stacklevel for warnings.warn that points at the first frame outside minitorch (the user's call)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(PKG_DIR + os.sep):
        frame = frame.f_back
        level += 1
    return level
