"""torch.fx.experimental.symbolic_shapes: the errors a trace raises when a guard would need a tensor's data
(export's tracer raises GuardOnDataDependentSymNode where Python control flow reads a traced tensor's value)."""


class GuardOnDataDependentSymNode(RuntimeError):
    """A guard (a Python bool, if/while) on a value known only when the program runs, not while tracing."""


__all__ = ["GuardOnDataDependentSymNode"]
