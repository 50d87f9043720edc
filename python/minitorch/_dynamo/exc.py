"""torch._dynamo.exc: the exceptions torch.compile raises (PyTorch's classes and messages)."""

__all__ = [
    "BackendCompilerFailed",
    "FailOnRecompileLimitHit",
    "InvalidBackend",
    "RecompileLimitExceeded",
    "TorchDynamoException",
    "Unsupported",
]


class TorchDynamoException(RuntimeError):
    """Base of torch.compile's errors."""


class Unsupported(TorchDynamoException):
    """Capture met something a graph cannot hold (raised with fullgraph=True; otherwise a graph break)."""

    def __init__(self, msg, gb_type=""):
        super().__init__(msg)
        self.msg = msg
        self.gb_type = gb_type


class BackendCompilerFailed(TorchDynamoException):
    """The backend raised while compiling a captured graph (unless config.suppress_errors)."""

    def __init__(self, backend_fn, inner_exception):
        self.backend_name = getattr(backend_fn, "__name__", "?")
        self.inner_exception = inner_exception
        super().__init__(
            f"backend={self.backend_name!r} raised:\n{type(inner_exception).__name__}: {inner_exception}"
        )


class InvalidBackend(TorchDynamoException):
    """backend= names no registered backend (with close matches suggested)."""

    def __init__(self, name, suggestions=None):
        msg = f"Invalid backend: {name!r}"
        msg += f", did you mean: {', '.join(map(repr, suggestions))}?" if suggestions else "."
        msg += " See `torch._dynamo.list_backends()` for available backends."
        super().__init__(msg)


class RecompileLimitExceeded(TorchDynamoException):
    """More graphs than config.recompile_limit were needed."""


class FailOnRecompileLimitHit(TorchDynamoException):
    """recompile_limit reached with fullgraph=True."""
