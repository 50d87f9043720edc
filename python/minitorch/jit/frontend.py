"""torch.jit.frontend: the errors TorchScript's frontend raises for Python it cannot compile."""

__all__ = ["FrontendError", "NotSupportedError", "UnsupportedNodeError"]


class FrontendError(Exception):
    """A construct the TorchScript frontend rejects (source_range: where, msg: why)."""

    def __init__(self, source_range, msg):
        super().__init__(msg)
        self.source_range = source_range
        self.msg = msg

    def __str__(self):
        where = f"\n{self.source_range}" if self.source_range else ""
        return self.msg + where


class NotSupportedError(FrontendError):
    """A Python construct TorchScript does not support."""


class UnsupportedNodeError(NotSupportedError):
    """A Python syntax node TorchScript does not support."""
