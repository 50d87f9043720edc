"""torch.compiler: the public torch.compile API (``compile``, ``disable``, ``is_compiling``, ``reset``,
``set_stance``, ``list_backends``, ``allow_in_graph``...). See minitorch._dynamo for how capture works and
minitorch._inductor for the default backend.

``minitorch.compile`` is this module's ``compile``: torch.compile(model, *, fullgraph=False, dynamic=None,
backend="inductor", mode=None, options=None, disable=False), usable on functions and nn.Modules and as a
decorator with or without arguments.
"""

from minitorch._dynamo import config as _config
from minitorch._dynamo.api import compile, get_default_backend, set_default_backend
from minitorch._dynamo.backends import list_backends
from minitorch._dynamo.capture import is_capturing
from minitorch._dynamo.decorators import allow_in_graph, assume_constant_result
from minitorch._dynamo.decorators import disable as _dynamo_disable
from minitorch._dynamo.eval_frame import reset as _dynamo_reset
from minitorch._dynamo.eval_frame import set_stance
from minitorch._inductor.cudagraphs import mark_step_begin as _cudagraphs_mark_step_begin

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "compile",
    "config",
    "cudagraph_mark_step_begin",
    "disable",
    "get_default_backend",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "list_backends",
    "reset",
    "set_default_backend",
    "set_stance",
]

config = _config


def disable(fn=None, recursive=True, *, reason=None):
    """fn runs eagerly even when called from compiled code (decorator with or without arguments)."""
    return _dynamo_disable(fn, recursive=recursive, reason=reason)


def reset():
    """Clears every compiled graph and cache of torch.compile in this process (not the on-disk kernels)."""
    _dynamo_reset()


def is_compiling():
    """True while torch.compile captures a graph (the Python being traced runs with this True)."""
    return is_capturing()


def is_dynamo_compiling():
    """As is_compiling."""
    return is_capturing()


def cudagraph_mark_step_begin():
    """Marks the start of a new iteration for torch.compile(mode="reduce-overhead"): outputs of earlier CUDA-graph
    replays are dead, so the next replay may overwrite them (without it, outputs still referenced are copied
    before a replay would overwrite them)."""
    _cudagraphs_mark_step_begin()


def is_exporting():
    """False: torch.export is not implemented."""
    return False
