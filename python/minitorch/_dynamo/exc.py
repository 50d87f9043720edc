"""torch._dynamo.exc: the exceptions torch.compile raises (PyTorch's classes and messages)."""

__all__ = [
    "BackendCompilerFailed",
    "FailOnRecompileLimitHit",
    "InvalidBackend",
    "RecompileError",
    "RecompileLimitExceeded",
    "TorchDynamoException",
    "Unsupported",
    "UserError",
    "UserErrorType",
]


class TorchDynamoException(RuntimeError):
    """Base of torch.compile's errors."""


class Unsupported(TorchDynamoException):
    """Capture met something a graph cannot hold (raised with fullgraph=True; otherwise a graph break)."""

    def __init__(self, msg, gb_type=""):
        super().__init__(msg)
        self.msg = msg
        self.gb_type = gb_type


class UserErrorType:
    """The kinds of UserError (PyTorch's enum values, as strings)."""

    DYNAMIC_CONTROL_FLOW = "DYNAMIC_CONTROL_FLOW"
    ANTI_PATTERN = "ANTI_PATTERN"
    STANDARD_LIBRARY = "STANDARD_LIBRARY"
    CONSTRAINT_VIOLATION = "CONSTRAINT_VIOLATION"
    DYNAMIC_DIM = "DYNAMIC_DIM"
    INVALID_INPUT = "INVALID_INPUT"
    INVALID_OUTPUT = "INVALID_OUTPUT"
    UNSUPPORTED_NON_STANDARD_BATCH_DIM = "UNSUPPORTED_NON_STANDARD_BATCH_DIM"


class UserError(Unsupported):
    """A mistake in how torch.export (or torch.compile) was called, with PyTorch's pointer to its docs."""

    def __init__(self, error_type, msg, case_name=None):
        if case_name is not None:
            msg += (
                f"\nFor more information about this error, see: "
                f"https://pytorch.org/docs/main/generated/exportdb/index.html#{case_name.replace('_', '-')}"
            )
        super().__init__(msg)
        self.error_type = error_type


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


class RecompileError(TorchDynamoException):
    """A recompile while config.error_on_recompile is set."""


class RecompileLimitExceeded(TorchDynamoException):
    """More graphs than config.recompile_limit were needed."""


class FailOnRecompileLimitHit(TorchDynamoException):
    """recompile_limit reached with fullgraph=True."""
