"""Graph capture for torch.compile: the callable runs once on its real inputs while a torch.fx tracer records
every tensor operation into a Graph.

Each recorded node is also computed right away on the real values (``CaptureTracer.values``), so the Python
code being captured sees what it would see eagerly wherever the answer follows from what the guards fix:
shapes, strides, dtypes, devices and requires_grad of tensors are plain Python values (``x.shape[0] > 2``,
``B, T, C = x.size()``, ``range(x.size(0))`` work, and the graph is specialized to them, as Dynamo specializes
static shapes). Python code that needs tensor *data* (``if x.sum() > 0``, ``float(t)``, ``.item()`` unless
``config.capture_scalar_outputs``, ``.tolist()``, ``str(t)``, a shape produced by ``nonzero``), ``print``,
clock reads, logger methods, ``warnings.warn`` and Python's ``random`` functions other than random, randint, uniform
and randrange (graph inputs drawn before each call, as Dynamo's random_value_i) raise ``GraphBreak``: the caller then splits the callable around the breaking statement (resume.py)
or, where it cannot, runs it eagerly as a whole.

With ``specialize=False`` (dynamic shapes) shapes stay symbolic (fx Proxies), so the graph holds for any
sizes; code that branches on a size then breaks and the caller captures a specialized graph instead.

The caller (eval_frame.py) undoes what the traced run changed (RNG, buffers, inputs written in place, Python
side effects) and runs the compiled graph for the first call's result too, as Dynamo; where that cannot be
undone, the traced run's own output is the first call's. Before a capture that breaks the caller restores
the same state, then runs the split pieces (or the callable eagerly).
"""

import builtins
import itertools
import operator
import os
import sys
import threading
import time
import traceback
import types

from minitorch import _C, overrides
from minitorch._dynamo import config as _config
from minitorch._inductor.meta import record
from minitorch._inductor.utils import PKG_DIR as _PKG_DIR
from minitorch._inductor.utils import user_stacklevel
from minitorch.autograd import grad_mode
from minitorch.fx import GraphModule, Proxy, Tracer
from minitorch.fx.node import map_aggregate, map_arg
from minitorch.fx.proxy import Attribute, TraceError, _unpack_count
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = [
    "CaptureResult",
    "CaptureTracer",
    "GraphBreak",
    "capture",
    "current_tracer",
    "is_capturing",
    "proxies_in",
    "user_frames",
    "user_stacklevel",
]

_state = threading.local()


def is_capturing():
    """True while a torch.compile capture runs on this thread (torch.compiler.is_compiling)."""
    return getattr(_state, "depth", 0) > 0


def current_tracer():
    """The CaptureTracer of the innermost capture running on this thread, or None."""
    stack = getattr(_state, "tracers", None)
    return stack[-1] if stack else None


_ENTRY_FILE = "<torch.compile entry>"


def user_frames(frames):
    """The user's frames of a StackSummary/list of FrameSummary: those inside the compiled callable (after
    capture's entry function), outside minitorch itself."""
    frames = list(frames)
    for i in range(len(frames) - 1, -1, -1):
        if frames[i].filename == _ENTRY_FILE:
            frames = frames[i + 1 :]
            break
    return [f for f in frames if not os.path.abspath(f.filename).startswith(_PKG_DIR + os.sep)]


def _stack_with_positions(frame):
    """traceback.extract_stack(frame) with each frame's column span (Python 3.11+, from co_positions): the
    split finds the exact sub-expression that broke in its statement (resume.py)."""
    frames = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    out = []
    for f in reversed(frames):
        code = f.f_code
        pos = None
        if hasattr(code, "co_positions") and f.f_lasti >= 0:
            pos = next(itertools.islice(code.co_positions(), f.f_lasti // 2, None), None)
        if pos is not None and None not in pos:
            fs = traceback.FrameSummary(
                code.co_filename, pos[0], code.co_name, end_lineno=pos[1], colno=pos[2], end_colno=pos[3]
            )
        else:
            fs = traceback.FrameSummary(code.co_filename, f.f_lineno, code.co_name)
        out.append(fs)
    return out


class GraphBreak(Exception):
    """The captured code did something a graph cannot hold. title: a short category; explanation/hints: what
    and how to avoid it; user_stack: the user's frames where it happened; shape_only: it happened only because
    shapes were symbolic (a specialized capture would work)."""

    def __init__(self, title, explanation, hints=(), user_stack=None, shape_only=False):
        super().__init__(title)
        self.title = title
        self.explanation = explanation
        self.hints = list(hints)
        if user_stack is None:
            user_stack = user_frames(_stack_with_positions(sys._getframe(1)))
        self.user_stack = user_stack
        self.shape_only = shape_only

    @property
    def reason(self):
        """One line: the title and the explanation."""
        return f"{self.title}: {self.explanation}" if self.explanation else self.title

    @property
    def break_reason(self):
        """The reason explain() reports, in Dynamo's words: its generic_jump line for a branch on a tensor, else
        the title, explanation and hints as Unsupported's message has them."""
        if self.title == "Data-dependent branching":
            return "generic_jump TensorVariable()"
        lines = [self.title, f"  Explanation: {self.explanation}"]
        lines += [f"  Hint: {h}" for h in self.hints]
        return "\n".join(lines)

    def format(self):
        """The message of torch._dynamo.exc.Unsupported for this break (fullgraph=True)."""
        lines = [self.title, f"  Explanation: {self.explanation}"]
        lines += [f"  Hint: {h}" for h in self.hints]
        if self.user_stack:
            lines += ["", "from user code:"]
            for f in self.user_stack[-3:]:
                lines.append(f'   File "{f.filename}", line {f.lineno}, in {f.name}')
                if f.line:
                    lines.append(f"    {f.line}")
        return "\n".join(lines)


class _OpError(Exception):
    """An exception raised by an op itself while computing a node: the user's own error, re-raised as is."""

    def __init__(self, exc):
        super().__init__(str(exc))
        self.exc = exc


_DATA_BRANCH_HINTS = (
    (
        "For the common pattern `if tensor_cond: x = transform(x)`, consider making the code branchless by "
        "always applying the transform: torch.where, torch.clamp and torch.nan_to_num compile without graph "
        "breaks."
    ),
    (
        "This graph break is fundamental: the whole function runs eagerly. Move the data-dependent Python out "
        "of the compiled function, or use torch.compiler.disable on the part that needs it."
    ),
)

# methods whose result depends on tensor data rather than shapes (their values must not be specialized)
_DATA_METHODS = frozenset(
    {
        "item",
        "tolist",
        "numpy",
        "nonzero",
        "masked_select",
        "unique",
        "unique_consecutive",
        "argwhere",
        "bincount",
    }
)
_DATA_FUNCTIONS = frozenset(
    {"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere", "bincount", "repeat_interleave"}
)
# tensor attributes fixed by the guards (rank, dtype, device, requires_grad) and those fixed only by the
# shape guards of a specialized capture
_RANK_ATTRS = frozenset(
    {
        "dtype",
        "device",
        "is_cuda",
        "is_cpu",
        "layout",
        "is_sparse",
        "is_quantized",
        "is_meta",
        "is_nested",
        "requires_grad",
        "is_leaf",
        "ndim",
    }
)
_RANK_METHODS = frozenset(
    {"dim", "ndimension", "is_floating_point", "is_complex", "element_size", "get_device", "type"}
)
_SHAPE_ATTRS = frozenset({"shape"})
_SHAPE_METHODS = frozenset({"size", "numel", "nelement", "stride", "is_contiguous", "storage_offset"})
# factories: recorded even without a Proxy argument, so each call of the compiled graph makes fresh tensors
# (and draws fresh random numbers) instead of reusing the trace's
_FACTORIES = (
    "zeros",
    "ones",
    "full",
    "empty",
    "arange",
    "linspace",
    "logspace",
    "eye",
    "rand",
    "randn",
    "randint",
    "randperm",
    "normal",
    "tensor",
    "empty_strided",
    "tril_indices",
    "triu_indices",
)


_GUARDED_ATTR_TYPES = (bool, int, float, str, type(None))


def _is_tensor(v):
    return isinstance(v, _C.Tensor)


def _writes_in_place(node, kwargs):
    """Whether a node may write its first argument (or an out= tensor) in place: x.add_(), x[i] = v, x += y,
    torch.relu_(x), F.relu(x, inplace=True), out=."""
    if "out" in kwargs or kwargs.get("inplace") is True:
        return True
    t = node.target
    if node.op == "call_method":
        return t.endswith("_") and not t.startswith("_") or t in ("__setitem__",) or t.startswith("__i")
    if node.op != "call_function":
        return False
    name = getattr(t, "__name__", "")
    if getattr(t, "__module__", "") in ("_operator", "operator"):
        return name == "setitem" or name.startswith("i")
    return name.endswith("_") and not name.startswith("_")


def _irreversible(node):
    """Whether running node changes state a copy cannot put back: a Python function of the user's (not
    minitorch's, not a builtin), or a backward pass (it accumulates into .grad)."""
    fn = node.target
    if node.op == "call_method":
        return fn == "backward"
    if node.op != "call_function" or not isinstance(fn, types.FunctionType):
        return False
    if fn.__name__ in ("backward", "grad") and (fn.__module__ or "").startswith("minitorch.autograd"):
        return True
    return (getattr(fn, "__module__", None) or "").partition(".")[0] != "minitorch"


# print inside a capture is a graph break, as in Dynamo: a graph would run it once, at capture time, and the
# later calls would print nothing. builtins.print is swapped only while some capture runs (counted, as
# captures nest); other threads, and code a capture runs for real (an op's own Python), print as usual.
_real_print = builtins.print
_print_hook_users = 0
_print_hook_lock = threading.Lock()


def _capture_print(*args, **kwargs):
    tracer = current_tracer()
    if tracer is not None and is_capturing() and not tracer._mt_passthrough:
        # a captured tensor's __class__ is Tensor, the name Dynamo gives its argument type
        kinds = [a.__class__.__name__ for a in args]
        raise GraphBreak(
            "Failed to trace builtin operator",
            f"Dynamo does not know how to trace builtin operator `print` with argument types {kinds} "
            f"(has_kwargs {bool(kwargs)})",
            (
                (
                    f"Avoid calling builtin `print` with argument types {kinds}. Consider using an equivalent "
                    "alternative function/method to `print`."
                ),
                "Move the print out of the compiled function, or into a function marked with torch.compiler.disable.",
            ),
        )
    return _real_print(*args, **kwargs)


# reading the clock is a graph break too (Dynamo's reason: the read must happen at its place among the
# compiled operations; a graph would return the capture's reading forever)
_TIME_FUNCTIONS = (
    "time",
    "time_ns",
    "perf_counter",
    "perf_counter_ns",
    "monotonic",
    "monotonic_ns",
    "process_time",
    "process_time_ns",
)
_real_time = {name: getattr(time, name) for name in _TIME_FUNCTIONS}


def _capture_clock(name):
    real = _real_time[name]

    def clock():
        tracer = current_tracer()
        if tracer is not None and is_capturing() and not tracer._mt_passthrough:
            raise GraphBreak(
                "Call to a time function",
                f"Dynamo graph breaks on `time.{name}()` so that the clock read occurs at the correct point "
                "relative to compiled operations.",
                [
                    f"Move the `time.{name}()` call outside the compiled function if the graph break is undesirable."
                ],
            )
        return real()

    clock.__name__ = name
    return clock


_hooked_time = {name: _capture_clock(name) for name in _TIME_FUNCTIONS}

# Other calls whose effect a graph cannot repeat break the same way: a logger's methods and warnings.warn (they
# write once, at capture; Dynamo's reasons), and Python's own random generator but for the draws Dynamo replays
# (_REPLAYED_RANDOM). Only calls made from
# outside minitorch break: our own Python warns and logs as usual while it is traced.
_LOGGER_METHODS = ("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log")
# random.random, randint, uniform and randrange with constant arguments are replayed as Dynamo 2.15 replays
# them: each draw is a graph input (random_value_i), drawn from Python's generator before each call of the graph
_REPLAYED_RANDOM = ("random", "randint", "uniform", "randrange")
_RANDOM_FUNCTIONS = (
    "choice",
    "choices",
    "shuffle",
    "sample",
    "gauss",
    "normalvariate",
    "getrandbits",
    "seed",
)
_STDLIB_DIR = os.path.dirname(os.__file__) + os.sep


def _called_from_minitorch(frame):
    # the nearest caller outside the standard library (logging.info reaches Logger.info through logging's own)
    while frame is not None and frame.f_code.co_filename.startswith(_STDLIB_DIR):
        frame = frame.f_back
    return frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PKG_DIR + os.sep)


def _user_capture(frame):
    """The tracer of a capture running user code (not its own pass-through work) called from frame, else None:
    the patched functions below act only on such calls."""
    tracer = current_tracer()
    if tracer is None or not is_capturing() or tracer._mt_passthrough or _called_from_minitorch(frame):
        return None
    return tracer


def _breaking(real, make_break):
    def call(*args, **kwargs):
        tracer = _user_capture(sys._getframe(1))
        if tracer is not None:
            # the break is at the user's call: frames inside the standard library (logging.info's) are not theirs
            stack = user_frames(_stack_with_positions(sys._getframe(1)))
            while stack and stack[-1].filename.startswith(_STDLIB_DIR):
                stack.pop()
            gb = make_break()
            gb.user_stack = stack
            raise gb
        return real(*args, **kwargs)

    call.__name__ = getattr(real, "__name__", "call")
    call.__wrapped__ = real
    return call


def _replayed_random(real):
    """random.<name> during a capture: a draw from user code becomes a graph input drawn again at each call."""

    def call(*args, **kwargs):
        tracer = _user_capture(sys._getframe(1))
        if tracer is not None:
            if proxies_in(args, kwargs):
                gb = _random_break(real.__name__)()
                gb.explanation = (
                    f"`random.{real.__name__}()` with traced arguments: its draw cannot be replayed."
                )
                raise gb
            return tracer.random_input(real, args, kwargs)
        return real(*args, **kwargs)

    call.__name__ = getattr(real, "__name__", "call")
    call.__wrapped__ = real
    return call


def _logger_break():
    return GraphBreak(
        "logging.Logger method not supported for non-export cases",
        "For non-export cases, logging.Logger methods are only supported if the logger has a source and the method "
        "is registered as reorderable.",
        [
            "Move the logging call out of the compiled function, or into a function marked with torch.compiler.disable."
        ],
    )


def _warn_break():
    return GraphBreak(
        "Attempted to call function marked as skipped",
        "Dynamo does not know how to trace the Python builtin `_warnings.warn`.",
        [
            "Move the warning out of the compiled function, or into a function marked with torch.compiler.disable."
        ],
    )


def _random_break(name):
    return lambda: GraphBreak(
        "Call to Python's random number generator",
        f"`random.{name}()` draws from Python's generator: a graph would return the capture's draw on every call, "
        "so the call runs eagerly between graphs.",
        [
            "Draw with torch.rand/torch.randint inside the compiled function, or pass the number in as an argument."
        ],
    )


def _hooks():
    """(owner, name, replacement) of every patch a capture installs besides print and the clocks."""
    import logging
    import random
    import warnings

    out = [(warnings, "warn", _breaking(warnings.warn, _warn_break))]
    for name in _LOGGER_METHODS:
        real = logging.Logger.__dict__.get(name)
        if real is not None:
            out.append((logging.Logger, name, _breaking(real, _logger_break)))
    for name in _RANDOM_FUNCTIONS:
        real = getattr(random, name, None)
        if real is not None:
            out.append((random, name, _breaking(real, _random_break(name))))
    for name in _REPLAYED_RANDOM:
        out.append((random, name, _replayed_random(getattr(random, name))))
    return out


_HOOKS = []


def _install_print_hook():
    global _print_hook_users
    with _print_hook_lock:
        if _print_hook_users == 0:
            if builtins.print is _real_print:
                builtins.print = _capture_print
            for name, fn in _hooked_time.items():
                if getattr(time, name) is _real_time[name]:
                    setattr(time, name, fn)
            if not _HOOKS:
                _HOOKS.extend(_hooks())
            for owner, name, fn in _HOOKS:
                if owner.__dict__.get(name) is fn.__wrapped__:
                    setattr(owner, name, fn)
        _print_hook_users += 1


def _remove_print_hook():
    global _print_hook_users
    with _print_hook_lock:
        _print_hook_users -= 1
        if _print_hook_users == 0:
            if builtins.print is _capture_print:
                builtins.print = _real_print
            for name, fn in _hooked_time.items():
                if getattr(time, name) is fn:
                    setattr(time, name, _real_time[name])
            for owner, name, fn in _HOOKS:
                if owner.__dict__.get(name) is fn:
                    setattr(owner, name, fn.__wrapped__)


class _CaptureProxy(Proxy):
    """A Proxy that knows its concrete value: metadata questions get plain Python answers."""

    def _mt_value(self):
        return self.tracer.values.get(self.node)

    def _mt_data_dependent(self):
        return self.node in self.tracer.dds

    @property
    def __class__(self):  # isinstance(proxy, torch.Tensor) holds as for the tensor it stands for
        if type(self) is _CaptureProxy:
            v = self.tracer.values.get(self.node)
            if _is_tensor(v) or type(v) in (int, float):
                return type(v)  # a number that is a graph input (or a symbolic size) is an int as Dynamo's is
        return type(self)

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        v = self._mt_value()
        if _is_tensor(v):
            shape_ok = self.tracer.specialize and not self._mt_data_dependent()
            if k in _RANK_ATTRS or (k in _SHAPE_ATTRS and shape_ok):
                return getattr(v, k)
            if k in _RANK_METHODS or (k in _SHAPE_METHODS and shape_ok):
                return getattr(v, k)
            if k in _SHAPE_ATTRS | _SHAPE_METHODS and self._mt_data_dependent():
                raise GraphBreak(
                    "Dynamic shape operator",
                    f"reading the shape of a tensor whose shape depends on tensor data (Tensor.{k} after "
                    "nonzero, masked_select, boolean indexing, unique...)",
                    ["Keep data-dependent shapes out of the compiled function."],
                )
            if k in ("data", "grad", "T", "mT", "H", "real", "imag", "_base"):
                return self.tracer.create_proxy("call_function", getattr, (self, k), {})
        return _CaptureAttribute(self, k)

    def __len__(self):
        v = self._mt_value()
        if _is_tensor(v):
            if self.tracer.specialize and not self._mt_data_dependent():
                return len(v)
            raise GraphBreak(
                "len() of a tensor", "the length of a tensor's first dim is not fixed here", shape_only=True
            )
        if isinstance(v, (tuple, list)) and self.tracer.specialize:
            return len(v)
        raise GraphBreak(
            "len() of a traced value", f"len() of a value of type {type(v).__name__}", shape_only=True
        )

    def __iter__(self):
        v = self._mt_value()
        if self.tracer.specialize and not self._mt_data_dependent():
            if _is_tensor(v) and v.dim() > 0:
                return (self[i] for i in range(len(v)))
            if isinstance(v, (tuple, list)):
                return (self[i] for i in range(len(v)))
        n = _unpack_count(sys._getframe(1))  # `a, b = proxy`: the count is in the caller's bytecode
        if n is not None:
            return (self[i] for i in range(n))
        raise GraphBreak("Iteration over a symbolic value", "its length is not fixed here", shape_only=True)

    def __bool__(self):
        if self._mt_data_dependent() or _is_tensor(self._mt_value()):
            raise GraphBreak(
                "Data-dependent branching",
                "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). A graph cannot hold Python "
                "control flow that depends on tensor values.",
                _DATA_BRANCH_HINTS,
            )
        taken = self.tracer.number_condition(self.node)
        if taken is not None:
            return taken
        raise GraphBreak("Dynamic shape branching", "Python control flow on a symbolic size", shape_only=True)

    def _mt_scalar_break(self, what):
        if not self._mt_data_dependent() and not _is_tensor(self._mt_value()):
            raise GraphBreak("Dynamic shape conversion", f"{what} of a symbolic size", shape_only=True)
        if what == "index":
            raise GraphBreak(
                "Data-dependent index",
                "converting a tensor's value to a Python index needs its data, which a graph does not have at "
                "capture time",
                ["Keep the computation in tensors (e.g. index with the tensor instead of its value)."],
            )
        raise _item_break()

    def __str__(self):
        v = self._mt_value()
        if _is_tensor(v):
            _tensor_repr_break()
        if type(v) in (int, float):
            self._mt_scalar_break("str")  # its digits would be the capture's
        return Proxy.__repr__(self)

    def __format__(self, spec):
        if type(self._mt_value()) in (int, float):
            self._mt_scalar_break("format")
        return format(str(self), spec)

    def __int__(self):
        self._mt_scalar_break("int")

    def __float__(self):
        self._mt_scalar_break("float")

    def __index__(self):  # noqa: PLE0305  (it always raises)
        self._mt_scalar_break("index")

    def __setitem__(self, idx, value):
        self.tracer.create_proxy("call_function", operator.setitem, (self, idx, value), {})

    def _mt_inplace(op):
        def impl(self, other):
            return self.tracer.create_proxy("call_function", op, (self, other), {})

        return impl

    __iadd__ = _mt_inplace(operator.iadd)
    __isub__ = _mt_inplace(operator.isub)
    __imul__ = _mt_inplace(operator.imul)
    __itruediv__ = _mt_inplace(operator.itruediv)
    del _mt_inplace


def _item_break():
    """Tensor.item() (and float()/int()/bool() of a tensor's value) in Dynamo's words: a graph holds tensors, not
    the Python numbers read out of them (config.capture_scalar_outputs=True keeps .item() in the graph)."""
    return GraphBreak(
        "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.",
        [
            (
                "Set `torch._dynamo.config.capture_scalar_outputs = True` or "
                "`export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in the captured graph."
            )
        ],
    )


def _tolist_break(value):
    if _is_tensor(value) and (value.is_floating_point() or value.is_complex()):
        raise GraphBreak(
            "Tensor.tolist() with non-integer tensor",
            "Dynamo currently does not support tracing `tolist()` on non-integer tensors.",
            ["Ensure the input tensor to `tolist()` is an integer type (e.g., int8, int16, int32, int64)."],
        )
    raise GraphBreak(
        "Data dependent operator",
        "Operator `aten._local_scalar_dense.default` has a non-Tensor output whose value is dependent on the data "
        "of Tensor inputs.",
        [
            (
                "Enable tracing of data-dependent output operators with "
                "`torch._dynamo.config.capture_scalar_outputs = True`"
            )
        ],
    )


def _tensor_repr_break():
    # a graph would format the capture's values once: str()/f-strings of a tensor break, as in Dynamo
    raise GraphBreak(
        "repr() on tensor",
        "Tensor repr requires actual runtime values which are not available during tracing.",
        [
            "Move the formatting out of the compiled function, or into a function marked with torch.compiler.disable."
        ],
    )


class _CaptureAttribute(Attribute, _CaptureProxy):
    """``proxy.name`` for a name that is a method (called) or an attribute (read as a getattr node)."""


class CaptureTracer(Tracer):
    """An fx Tracer that computes every node on real values as it records it (see the module docstring)."""

    # buffers are read in the graph (get_attr), so what is computed from them stays live when they change
    proxy_buffer_attributes = True

    def __init__(self, inputs, specialize=True):
        super().__init__()
        self.values = {}
        self.dds = set()
        self._inputs = list(inputs)
        self._next_input = 0
        self.specialize = specialize
        self.entry_grad = grad_mode.is_grad_enabled()
        self.extra_modules = {}
        self.extra_params = {}
        self.touched_modules = []
        self.attr_reads = {}
        # {id: (tensor, version)} of the tensors from before the capture that it read (get_attr values, the
        # parameters and buffers of modules it called), as first read: what changed in place is found after
        self.touched = {}
        # {id: (tensor, version, copy)} of those about to be written in place (a parameter under no_grad, a
        # buffer of a module called): what the caller puts back before the first call runs the graph
        self.saved = {}
        # a node ran the user's own Python (a torch.compiler.disable'd helper, a custom op) or a backward pass
        # (gradients accumulated): what it did at capture cannot be undone, so the capture's run is the first
        # call's (eval_frame.py)
        self.irreversible = False
        # (function, args, kwargs) of each draw from Python's random generator, a graph input after the others
        self.random_calls = []
        self.random_values = []
        # (node, bool) of each Python branch taken on numbers that are graph inputs (``if SCALE > 0.5:``), the
        # graph's guard as Dynamo's on a symbolic float or int: the same outcome on later calls
        self.conditions = []

    def number_condition(self, node):
        """bool() of node where it is computed from graph inputs that are Python numbers only (no tensor, no
        draw): its value now, remembered as a guard of the graph; None otherwise."""
        seen, todo = set(), [node]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            if n in self.dds or n.op not in ("placeholder", "call_function"):
                return None
            if n.op == "placeholder":
                if type(self.values.get(n)) not in (int, float, bool):
                    return None
                continue
            todo.extend(n.all_input_nodes)
        taken = bool(self.values[node])
        self.conditions.append((node, taken))
        return taken

    def random_input(self, fn, args, kwargs):
        """A draw of fn(*args, **kwargs) (random.random, randint, uniform) as a new graph input, as Dynamo's
        random_value_i: drawn now for the traced run, again before each call of the graph."""
        value = fn(*args, **kwargs)
        graph = self.graph
        first_op = next((n for n in graph.nodes if n.op != "placeholder"), None)
        name = f"random_value_{len(self.random_calls)}"
        if first_op is None:
            node = graph.create_node("placeholder", name)
        else:
            with graph.inserting_before(first_op):
                node = graph.create_node("placeholder", name)
        self.values[node] = value
        self.dds.add(node)  # Python control flow on it is data-dependent: a graph break
        self.random_calls.append((fn, args, dict(kwargs)))
        self.random_values.append(value)
        return self.proxy(node)

    # ---- proxies and nodes
    def proxy(self, node):
        """A _CaptureProxy over node."""
        return _CaptureProxy(node, self)

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """The new node, with its value computed on the real inputs (values[node])."""
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        if kind != "output":
            self._evaluate(node)
        return node

    def _evaluate(self, node):
        op = node.op
        if op == "placeholder":
            val = self._inputs[self._next_input]
            self._next_input += 1
        elif op == "get_attr":
            val = self.root
            self._mt_passthrough += 1
            try:
                for part in node.target.split("."):
                    val = getattr(val, part)
            finally:
                self._mt_passthrough -= 1
            if isinstance(val, _C.Tensor):
                self.touched.setdefault(id(val), (val, val._version))
        else:
            args = map_arg(node.args, self.values.__getitem__)
            kwargs = map_arg(node.kwargs, self.values.__getitem__)
            data_dep = any(n in self.dds for n in node.all_input_nodes) or self._data_op(node, args)
            if not self.irreversible and _irreversible(node):
                self.irreversible = True
            if op == "call_module":
                for t in self.root.get_submodule(node.target).buffers():
                    self._save_before_write(t)
            elif _writes_in_place(node, kwargs):
                for a in itertools.chain(args[:1], kwargs.values()):
                    if isinstance(a, _C.Tensor) and id(a) in self.touched:
                        self._save_before_write(a)
            self._mt_passthrough += 1
            try:
                if op == "call_function":
                    val = node.target(*args, **kwargs)
                elif op == "call_method":
                    val = getattr(args[0], node.target)(*args[1:], **kwargs)
                else:
                    mod = self.root.get_submodule(node.target)
                    for t in itertools.chain(mod.parameters(), mod.buffers()):
                        self.touched.setdefault(id(t), (t, t._version))
                    val = mod(*args, **kwargs)
            except GraphBreak:
                raise
            except Exception as e:
                raise _OpError(e) from e
            finally:
                self._mt_passthrough -= 1
            if data_dep:
                self.dds.add(node)
        node.meta["grad_enabled"] = grad_mode.is_grad_enabled()
        record(node, val)
        self.values[node] = val

    def _save_before_write(self, t):
        if id(t) not in self.saved:
            with grad_mode.no_grad():
                self.saved[id(t)] = (t, t._version, t.detach().clone())

    def _data_op(self, node, args):
        if node.op == "call_method":
            return node.target in _DATA_METHODS
        if node.op == "call_function":
            t = node.target
            if t is operator.getitem and len(args) == 2:
                idx = args[1] if isinstance(args[1], tuple) else (args[1],)
                return any(_is_tensor(i) and str(i.dtype).endswith("bool") for i in idx)
            name = getattr(t, "__name__", "")
            if name == "where" and len(args) == 1:
                return True
            return name in _DATA_FUNCTIONS and getattr(t, "__module__", "") != "_operator"
        return False

    # ---- modules and parameters that are not the root's: installed under fresh names
    def _install_module(self, mod):
        name = f"mod_{len(self.extra_modules)}"
        while hasattr(self.root, name):
            name += "_"
        self.root.add_module(name, mod)
        self.extra_modules[id(mod)] = name
        for sub_name, sub in mod.named_modules(prefix=name):
            if self.submodule_paths is not None:
                self.submodule_paths.setdefault(id(sub), sub_name)
        return name

    def path_of_module(self, mod):
        """As Tracer's, installing a module the root does not hold (a global model) under a fresh name."""
        try:
            return super().path_of_module(mod)
        except NameError:
            return self._install_module(mod)

    def call_module(self, m, forward, args, kwargs):
        """As Tracer's, remembering the module (its training flag becomes a guard). fx patches Module.__call__
        for the whole process while it traces: calls from other threads just run."""
        if current_tracer() is not self:
            return forward(*args, **kwargs)
        self.touched_modules.append(m)
        return super().call_module(m, forward, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """As Tracer's on the capturing thread; other threads read plain attributes."""
        if current_tracer() is not self:
            return attr_val
        return super().getattr(attr, attr_val, parameter_proxy_cache)

    def create_arg(self, a):
        """As Tracer's; parameters of modules outside the root are installed on it."""
        if isinstance(a, Proxy):  # before the Tensor checks: a proxy of a tensor passes isinstance(a, Tensor)
            return a.node
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            name = f"param_{len(self.extra_params)}"
            self.root.register_parameter(name, a)
            self.extra_params[id(a)] = name
            return self.create_node("get_attr", name, (), {})
        return super().create_arg(a)

    # ---- factories recorded, data-dependent Python refused
    def _patch_wrapped(self, patcher):
        super()._patch_wrapped(patcher)
        tracer = self

        # Python scalars read from modules (a config value, an optional submodule that is None) are baked into
        # the graph: remember them, they become guards
        def module_getattribute(mod, name):
            value = object.__getattribute__(mod, name)
            if (
                type(value) in _GUARDED_ATTR_TYPES
                and not name.startswith("_")
                and name != "training"
                and not tracer._mt_passthrough
                and current_tracer() is tracer
            ):
                tracer.attr_reads.setdefault((id(mod), name), (mod, name))
            return value

        patcher.patch_attr(Module, "__getattribute__", module_getattribute)
        ns = sys.modules.get("minitorch")
        if ns is None:
            return
        for fname in _FACTORIES:
            fn = getattr(ns, fname, None)
            if fn is None:
                continue
            orig = overrides.original_function(fn)

            def recorded(*args, _orig=orig, **kwargs):
                if tracer._mt_passthrough or current_tracer() is not tracer:
                    return _orig(*args, **kwargs)
                return tracer.create_proxy("call_function", _orig, args, kwargs)

            patcher.patch_attr(ns, fname, recorded)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """As Tracer's; Tensor.item() and Tensor.tolist() are graph breaks as in Dynamo (item() is kept in the
        graph with config.capture_scalar_outputs)."""
        if kind == "call_method" and target in ("item", "tolist") and not self._mt_passthrough:
            if current_tracer() is self and target == "item" and not _config.capture_scalar_outputs:
                raise _item_break()
            if current_tracer() is self and target == "tolist":
                _tolist_break(self.values.get(getattr(args[0], "node", None)))
        return super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)

    def to_bool(self, obj):
        """bool() of a traced value: a graph break."""
        return _CaptureProxy.__bool__(obj)


class CaptureResult:
    """A captured graph: the GraphModule, the concrete output of the traced run, the example inputs, the
    modules whose training flags the graph depends on and the module attributes it read."""

    def __init__(self, gm, output, example_inputs, modules, specialized, attr_reads=()):
        self.gm = gm
        self.attr_reads = list(attr_reads)  # (module, name) of the Python scalars the capture read
        self.output = output
        self.example_inputs = example_inputs
        self.modules = modules
        self.specialized = specialized


def _wrap_grad_mode(graph, entry_grad, root):
    """Nodes recorded under another grad mode than the call's (a ``with torch.no_grad():`` inside) run under
    that mode in the graph too."""
    for node in list(graph.nodes):
        mode = node.meta.get("grad_enabled", entry_grad)
        if node.op in ("placeholder", "output", "get_attr") or mode == entry_grad:
            continue
        if node.op == "call_module":
            fn = _GradModeCall(mode, root.get_submodule(node.target))
        elif node.op == "call_method":
            fn = _GradModeCall(mode, _MethodCaller(node.target))
        else:
            fn = _GradModeCall(mode, node.target)
        node.op = "call_function"
        node.target = fn


class _MethodCaller:
    def __init__(self, name):
        self.name = name
        self.__name__ = name

    def __call__(self, obj, *args, **kwargs):
        return getattr(obj, self.name)(*args, **kwargs)


class _GradModeCall:
    """fn run under a fixed grad mode (a node recorded inside no_grad/enable_grad)."""

    def __init__(self, enabled, fn):
        self.enabled = enabled
        self.fn = fn
        self.__name__ = f"{'enable_grad' if enabled else 'no_grad'}_{getattr(fn, '__name__', 'call')}"

    def __call__(self, *args, **kwargs):
        with grad_mode.set_grad_enabled(self.enabled):
            return self.fn(*args, **kwargs)


def _entry_source(names):
    """The source of a forward taking the given parameter names and passing them on as one list."""
    params = ", ".join(names)
    src = f"def forward(self, {params}):\n    return _mt_call([{params}{',' if len(names) == 1 else ''}])\n"
    return src


def capture(
    fn,
    args,
    kwargs,
    leaves,
    rebuild,
    names,
    module=None,
    specialize=True,
    tracer_cls=None,
    side_effects=None,
    lifted=(),
):
    """Captures fn(*args, **kwargs). leaves: the tensor inputs (placeholders, named by names); rebuild(list)
    gives (args, kwargs) with those leaves replaced. module: the nn.Module being compiled, installed in the
    graph's root as ``mod``. tracer_cls: a CaptureTracer subclass (make_fx's inlines every module).
    side_effects: a side_effects.Tracker of the state the call can reach; the traced values its mutations
    leave there become extra graph outputs: the graph returns ``(output, extras)`` and the result carries
    ``effects`` and ``extra_values``. lifted: (put, take) pairs for the last len(lifted) leaves, tensors the
    code reads from globals, cells and attributes: put(proxy) swaps the traced input in where the code reads
    the tensor (returning what was there), take(proxy, old) puts the tensor back unless the code assigned
    another value there. Raises GraphBreak, or the user's own exception from an op."""
    root = Module()
    if module is not None:
        root.add_module("mod", module)

    def call(values):
        n = len(values) - len(lifted)
        a, k = rebuild(values[:n])
        if side_effects is not None:
            side_effects.add_arguments(a, k)
        swapped = []
        try:
            for (put, take), proxy in zip(lifted, values[n:]):
                swapped.append((take, proxy, put(proxy)))
            return fn(*a, **k)
        finally:
            for take, proxy, old in reversed(swapped):
                take(proxy, old)

    scope = {"_mt_call": call}
    exec(compile(_entry_source(names), _ENTRY_FILE, "exec"), scope)  # noqa: S102  (our two-line function)
    entry_cls = type("CompiledEntry", (Module,), {"forward": scope["forward"]})
    root.__class__ = entry_cls
    tracer = (tracer_cls or CaptureTracer)(leaves, specialize=specialize)
    stack = getattr(_state, "tracers", None)
    if stack is None:
        stack = _state.tracers = []
    stack.append(tracer)
    _state.depth = getattr(_state, "depth", 0) + 1
    _install_print_hook()
    try:
        graph = tracer.trace(root)
    except _OpError as e:
        if side_effects is not None:
            # the user's own error ends the call as it would eagerly: what it changed before stays, with the
            # real values where the trace put traced ones
            try:
                effects, extras = side_effects.effects(tracer)
            except Exception:  # noqa: BLE001  (the user's error is what the caller must see)
                effects = None
            if effects is not None:
                effects.apply([tracer.values.get(p.node) for p in extras], args, kwargs)
        raise e.exc.with_traceback(e.exc.__traceback__) from None
    except GraphBreak:
        raise
    except Exception as e:
        # error of the user's code shows again when the caller reruns it eagerly)
        frames = user_frames(traceback.extract_tb(e.__traceback__))
        title = "Unsupported Python in a captured function"
        if isinstance(e, TraceError):
            title = "Unsupported Python construct"
        raise GraphBreak(
            title,
            f"{type(e).__name__}: {e}",
            [
                "Keep the compiled function to tensor operations, or mark the helper with torch.compiler.disable."
            ],
            user_stack=frames,
        ) from e
    finally:
        _remove_print_hook()
        _state.depth -= 1
        stack.pop()
    out_node = graph.output_node()
    output = map_arg(out_node.args[0], tracer.values.__getitem__)
    effects, extra_values = None, []
    if side_effects is not None:
        from minitorch._dynamo.side_effects import Unreplayable

        try:
            effects, extras = side_effects.effects(tracer)
        except Unreplayable as e:
            raise GraphBreak(
                "Side effect that cannot be replayed",
                f"{e}: a compiled graph cannot make it again on the next call.",
                ["Keep the state the compiled function changes to lists, dicts, sets and plain attributes."],
                user_stack=[],
            ) from None
        if effects is not None:
            nodes = tuple(p.node for p in extras)
            extra_values = [tracer.values[n] for n in nodes]
            out_node.args = ((out_node.args[0], nodes),)
    _wrap_grad_mode(graph, tracer.entry_grad, root)
    # drop attribute reads nothing used (fx creates a node for every proxy.attr)
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and node.target is getattr and not node.users:
            graph.erase_node(node)
    root.__class__ = Module
    gm = GraphModule(root, graph, "GraphModule")
    for name, child in root._modules.items():
        if name in gm._modules:
            # the compiled module itself, not GraphModule's copy of the attributes read: a buffer the code
            # assigns (self.ema = ...) holds a traced value in the copy, and each call must read the live one
            gm._modules[name] = child
    modules = []
    seen = set()
    for m in (
        ([module] if module is not None else [])
        + tracer.touched_modules
        + [root.get_submodule(n) for n in tracer.extra_modules.values()]
    ):
        for sub in m.modules():
            if id(sub) not in seen:
                seen.add(id(sub))
                modules.append(sub)
    res = CaptureResult(
        gm, output, list(leaves) + tracer.random_values, modules, specialize, tracer.attr_reads.values()
    )
    res.random_calls = tracer.random_calls
    res.conditions = _conditions(graph, tracer.conditions)
    res.effects = effects
    res.extra_values = extra_values
    res.touched = tracer.touched
    res.saved = list(tracer.saved.values())
    res.irreversible = tracer.irreversible
    return res


def _conditions(graph, conditions):
    """conditions (node, taken) as check(inputs) -> bool: whether each node computes to the same outcome on
    the graph inputs of a call (a list in placeholder order); None without any."""
    if not conditions:
        return None
    index = {n: i for i, n in enumerate(n for n in graph.nodes if n.op == "placeholder")}
    steps, done = [], set()

    def visit(n):
        if n in done or n in index:
            return
        done.add(n)
        for a in n.all_input_nodes:
            visit(a)
        steps.append((n, n.target, n.args, n.kwargs))  # as now: a backend may rewrite the graph in place

    for n, _ in conditions:
        visit(n)
    used = {a for step in steps for a in step[0].all_input_nodes} | {n for n, _ in conditions}
    inputs_used = [(n, i) for n, i in index.items() if n in used]
    wanted = list(conditions)

    def check(inputs):
        env = {n: inputs[i] for n, i in inputs_used}
        get = env.__getitem__
        for n, target, args, kwargs in steps:
            env[n] = target(*map_arg(args, get), **map_arg(kwargs, get))
        return all(bool(env[n]) == taken for n, taken in wanted)

    return check


def proxies_in(args, kwargs):
    """Whether any Proxy is among args/kwargs (one level into containers)."""
    found = []

    def visit(a):
        if isinstance(a, Proxy):
            found.append(a)
        return a

    map_aggregate(args, visit)
    map_aggregate(kwargs, visit)
    return bool(found)
