"""The op recorder behind torch.profiler and torch.autograd.profiler: while a profile collects, the public
callables of the torch namespaces and the Tensor methods and operators are replaced by timing wrappers; the
originals come back when it stops, so outside a profile an op costs exactly what it did.

PyTorch observes ops in its C++ dispatcher. Ours are pybind11 builtins called straight from Python with no hook
on the fast path (one would tax every eager call), so, as overrides.py does for ``__torch_function__``, the
namespaces are patched for the dynamic extent of a recording. What is seen: calls through the attributes of
``minitorch``, ``minitorch._C``, ``nn.functional`` (and its family modules), ``special``, ``linalg``, ``fft``,
Tensor methods and operators. What is not: ops a C++ op runs inside itself (matmul's mm, the kernels of backward),
and functions bound to a name before the profile started (``from torch import add``).
A call whose name equals its enclosing recorded call (F.relu running _C.relu) is the same op and is not recorded
twice. Device time, when CUDA is profiled, is measured by CUDA events recorded on the current stream at the
start and end of each range (the legacy ``use_cuda`` method): it spans the device work queued inside the range.
Memory (profile_memory) counts the bytes of the tensors a range returns that do not share storage with its
arguments, not the allocator's traffic.
"""

import functools
import os
import sys
import threading
import time
import traceback
import types

from minitorch import _C
from minitorch.autograd.profiler_util import EventList, FunctionEvent

__all__ = ["record_function"]

# the namespaces patched: (module name, prefix of the aten name of its functions)
_NAMESPACES = (
    ("minitorch", ""),
    ("minitorch._C", ""),
    ("minitorch.nn.functional", ""),
    ("minitorch.special", "special_"),
    ("minitorch.linalg", "linalg_"),
    ("minitorch.fft", "fft_"),
)

# Functions that are not ops: settings, predicates, factories of non-tensors, I/O. PyTorch's dispatcher never sees
# them, so they make no event.
_NOT_OPS = frozenset((
    "is_tensor", "is_storage", "is_grad_enabled", "is_inference_mode_enabled", "set_grad_enabled",
    "get_default_dtype", "set_default_dtype", "get_default_device", "set_default_device", "manual_seed", "seed",
    "initial_seed", "get_num_threads", "set_num_threads", "get_num_interop_threads", "set_num_interop_threads",
    "set_printoptions", "save", "load", "from_numpy", "from_dlpack", "can_cast", "promote_types", "typename",
    "compile", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "is_autocast_enabled",
    "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype", "clear_autocast_cache",
    "is_autocast_cache_enabled", "set_autocast_cache_enabled", "is_inference", "is_floating_point_type",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "is_anomaly_enabled", "set_anomaly_enabled",
    "get_rng_state", "set_rng_state", "is_floating_point", "is_complex", "is_nonzero", "numel", "result_type",
    "is_warn_always_enabled", "set_warn_always", "get_device", "is_storage", "vmap", "cond",
))  # fmt: skip

# Tensor methods that read metadata (or hand the tensor elsewhere) and reach no kernel; the recorder itself
# calls some of them, so they must stay unwrapped.
_NOT_OP_METHODS = frozenset((
    "size", "dim", "ndimension", "stride", "numel", "nelement", "element_size", "data_ptr", "storage_offset",
    "is_contiguous", "is_floating_point", "is_complex", "is_signed", "get_device", "untyped_storage", "storage",
    "register_hook", "register_post_accumulate_grad_hook", "retain_grad", "requires_grad_", "tolist", "numpy",
    "type", "is_shared", "is_pinned", "has_names", "dim_order", "is_set_to", "backward", "is_inference",
    "is_leaf", "share_memory_", "storage_type", "data_ptr", "nbytes", "itemsize", "is_nonzero", "dtype",
))  # fmt: skip

# Tensor operators and their aten names
_DUNDERS = {
    "__abs__": "abs", "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
    "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_", "__floordiv__": "floor_divide",
    "__rfloordiv__": "floor_divide", "__ifloordiv__": "floor_divide_", "__mod__": "remainder",
    "__rmod__": "remainder", "__imod__": "remainder_", "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__pos__": "positive",
    "__invert__": "bitwise_not", "__and__": "__and__", "__rand__": "__and__", "__iand__": "__iand__",
    "__or__": "__or__", "__ror__": "__or__", "__ior__": "__ior__", "__xor__": "__xor__", "__rxor__": "__xor__",
    "__ixor__": "__ixor__", "__lshift__": "__lshift__", "__rlshift__": "__lshift__", "__ilshift__": "__ilshift__",
    "__rshift__": "__rshift__", "__rrshift__": "__rshift__", "__irshift__": "__irshift__", "__eq__": "eq",
    "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__bool__": "is_nonzero",
    "__float__": "item", "__int__": "item", "__index__": "item", "__complex__": "item",
    "__getitem__": "index", "__setitem__": "index_put_",
}  # fmt: skip

# PyTorch's names for the ops whose Python spelling differs from the aten op
_RENAMES = {"cross_entropy": "cross_entropy_loss"}

# scalar type names as PyTorch's trace writes them ("Input type")
_DTYPE_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}  # fmt: skip


class _State(threading.local):
    def __init__(self):
        self.stack = []  # the open events of this thread
        self.busy = False  # the recorder's own calls are not recorded


_tls = _State()
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_active = None  # the collecting _Collector, or None
_lock = threading.RLock()


def _now_ns():
    return time.perf_counter_ns()


def _shape_of(a):
    if isinstance(a, _C.Tensor):
        return list(a.shape)
    if type(a) in (list, tuple) and a and all(isinstance(b, _C.Tensor) for b in a):
        return [list(b.shape) for b in a]
    return []


def _dtype_of(a):
    if isinstance(a, _C.Tensor):
        name = str(a.dtype).rsplit(".", 1)[-1]
        return _DTYPE_NAMES.get(name, name)
    if isinstance(a, (bool, int, float, complex)):
        return "Scalar"
    if type(a) in (list, tuple) and a and isinstance(a[0], _C.Tensor):
        return "TensorList"
    return ""


def _tensors(x, out):
    if isinstance(x, _C.Tensor):
        out.append(x)
    elif type(x) in (list, tuple) or isinstance(x, tuple):
        for y in x:
            if isinstance(y, _C.Tensor):
                out.append(y)
    return out


def _ptr(t):
    try:
        return t.data_ptr()
    except (RuntimeError, NotImplementedError):  # a meta tensor has no data
        return 0


def _user_stack():
    """The Python frames of the caller, innermost first, as PyTorch writes them: "file(line): function"."""
    frames = traceback.extract_stack()
    out = []
    for fr in reversed(frames):
        if fr.filename.startswith(_PKG_DIR):
            continue  # the library's own frames (the recorder, nn.functional) say nothing about the caller
        out.append(f"{fr.filename}({fr.lineno}): {fr.name}")
    return out


class _Collector:
    """One recording: the events of every thread from start() to stop()."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False, use_cuda=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.use_cuda = use_cuda
        self.events = []
        self._next_id = 1
        self._cuda = None
        self._ref_event = None
        self.base_time_ns = 0
        self._t0 = 0

    # -- lifetime --------------------------------------------------------------------------------------------
    def start(self):
        global _active
        with _lock:
            if _active is not None:
                raise RuntimeError("Profiler is already enabled on this thread")
            if self.use_cuda:
                self._cuda = sys.modules["minitorch"].cuda
                self._cuda.synchronize()
                self._ref_event = self._cuda.Event(enable_timing=True)
            self.base_time_ns = time.time_ns()
            self._t0 = _now_ns()
            if self._ref_event is not None:
                self._ref_event.record()
            try:
                _install()
            except BaseException:
                _uninstall()
                raise
            _active = self

    def stop(self):
        global _active
        with _lock:
            if _active is not self:
                return
            _active = None
            _uninstall()
            end_us = (_now_ns() - self._t0) / 1e3
            for ev in self.events:  # ranges still open (a record_function left without exit) end here
                if ev.time_range.end is None:
                    ev.time_range.end = end_us
            if self.use_cuda:
                self._cuda.synchronize()
                self._resolve_device_times()
            _tls.stack = [e for e in _tls.stack if getattr(e, "_collector", None) is not self]

    def _resolve_device_times(self):
        ref = self._ref_event
        for ev in self.events:
            pair = getattr(ev, "_cuda_events", None)
            if pair is None or pair[1] is None:
                continue
            ev.device_time_total = pair[0].elapsed_time(pair[1]) * 1e3
            ev.device_start_us = ref.elapsed_time(pair[0]) * 1e3
            ev.use_device = "cuda"

    # -- ranges ----------------------------------------------------------------------------------------------
    def enter(self, name, args=(), kwargs=None, annotation=False):
        stack = _tls.stack
        if _tls.busy:
            return None
        parent = stack[-1] if stack and getattr(stack[-1], "_collector", None) is self else None
        if parent is not None and parent.name == name and not annotation:
            return None  # a Python spelling delegating to the builtin of the same op
        _tls.busy = True
        try:
            shapes = dtypes = None
            if self.record_shapes and not annotation:
                vals = list(args) + (list(kwargs.values()) if kwargs else [])
                shapes = [_shape_of(a) for a in vals]
                dtypes = [_dtype_of(a) for a in vals]
            ev = FunctionEvent(
                self._next_id,
                name,
                threading.get_native_id(),
                0.0,
                None,
                input_shapes=shapes,
                input_dtypes=dtypes,
                stack=_user_stack() if self.with_stack else None,
                is_user_annotation=annotation,
                use_device="cuda" if self.use_cuda else None,
            )
            self._next_id += 1
            ev._collector = self
            if self.profile_memory and not annotation:
                ev._input_ptrs = {_ptr(t) for t in _tensors(args, [])}
            if parent is not None:
                ev.set_cpu_parent(parent)
                parent.append_cpu_child(ev)
            self.events.append(ev)
            stack.append(ev)
            if self.use_cuda:
                start = self._cuda.Event(enable_timing=True)
                start.record()
                ev._cuda_events = (start, None)
            ev.time_range.start = (_now_ns() - self._t0) / 1e3
        finally:
            _tls.busy = False
        return ev

    def exit(self, ev, result=None):
        end_us = (_now_ns() - self._t0) / 1e3
        if ev.time_range.end is not None:
            return  # the recording already stopped and closed it
        _tls.busy = True
        try:
            ev.time_range.end = end_us
            if self.use_cuda:
                stop = self._cuda.Event(enable_timing=True)
                stop.record()
                ev._cuda_events = (ev._cuda_events[0], stop)
            stack = _tls.stack
            if stack and stack[-1] is ev:
                stack.pop()
            elif ev in stack:
                stack.remove(ev)
            if self.profile_memory:
                self._account_memory(ev, result)
        finally:
            _tls.busy = False

    def _account_memory(self, ev, result):
        # a range's memory: what its children allocated, plus the new tensors it returns that no child returned
        child_ptrs = set()
        for c in ev.cpu_children:
            child_ptrs |= getattr(c, "_output_ptrs", set())
        seen = set(getattr(ev, "_input_ptrs", ())) | child_ptrs
        own_cpu = own_dev = 0
        ptrs = set()
        for t in _tensors(result, []):
            p = _ptr(t)
            ptrs.add(p)
            if p in seen or p == 0:
                continue
            seen.add(p)
            nbytes = t.numel() * t.element_size()
            if t.is_cuda:
                own_dev += nbytes
            else:
                own_cpu += nbytes
        ev._output_ptrs = ptrs | child_ptrs
        ev.cpu_memory_usage = own_cpu + sum(c.cpu_memory_usage for c in ev.cpu_children)
        ev.device_memory_usage = own_dev + sum(c.device_memory_usage for c in ev.cpu_children)

    def event_list(self):
        """The finished recording as an EventList (the private bookkeeping dropped)."""
        for ev in self.events:
            for attr in ("_collector", "_input_ptrs", "_output_ptrs", "_cuda_events"):
                ev.__dict__.pop(attr, None)
        out = EventList(
            self.events, use_device="cuda" if self.use_cuda else None, profile_memory=self.profile_memory
        )
        out._trace_meta = {"base_time_ns": self.base_time_ns, "record_shapes": self.record_shapes}
        return out


# -- patching ------------------------------------------------------------------------------------------------
_wrappers = {}  # (aten name, id of the original) -> (original, wrapper), kept across recordings
_patched = []  # [(owner, attribute name, original, wrapper)] while a recording is on


def _make_wrapper(original, name):
    def op(*args, **kwargs):
        c = _active
        if c is None:
            return original(*args, **kwargs)
        ev = c.enter(name, args, kwargs)
        if ev is None:
            return original(*args, **kwargs)
        try:
            result = original(*args, **kwargs)
        except BaseException:
            c.exit(ev)
            raise
        c.exit(ev, result)
        return result

    try:
        functools.update_wrapper(op, original)
    except (AttributeError, TypeError):
        pass
    op._mt_profiled = original
    return op


def _wrapper_for(original, name):
    key = (name, id(original))
    hit = _wrappers.get(key)
    if hit is None or hit[0] is not original:
        hit = _wrappers[key] = (original, _make_wrapper(original, name))
    return hit[1]


def _getitem_name(index):
    if isinstance(index, int):
        return "aten::select"
    if isinstance(index, slice):
        return "aten::slice"
    return "aten::index"


def _make_getitem(original):
    def __getitem__(self, index):
        c = _active
        ev = None if c is None else c.enter(_getitem_name(index), (self, index))
        if ev is None:
            return original(self, index)
        try:
            result = original(self, index)
        except BaseException:
            c.exit(ev)
            raise
        c.exit(ev, result)
        return result

    __getitem__._mt_profiled = original
    return __getitem__


def _namespace_targets():
    """[(owner, attribute name, original, aten name)] for every function the recording wraps."""
    out = []
    for modname, prefix in _NAMESPACES:
        mod = sys.modules.get(modname)
        if mod is None:
            continue
        owners = [mod, *getattr(mod, "_FAMILY_MODULES", ())]
        for attr, obj in list(vars(mod).items()):
            if attr.startswith("_") or attr in _NOT_OPS:
                continue
            if not isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
                continue
            if not str(getattr(obj, "__module__", None) or "").startswith("minitorch"):
                continue
            name = "aten::" + prefix + _RENAMES.get(attr, attr)
            for owner in owners:
                if vars(owner).get(attr) is obj:
                    out.append((owner, attr, obj, name))
    cls = _C.Tensor
    for attr, obj in list(vars(cls).items()):
        if attr.startswith("_"):
            if attr not in _DUNDERS:
                continue
            name = "aten::" + _DUNDERS[attr]
        elif attr in _NOT_OP_METHODS:
            continue
        else:
            name = "aten::" + attr
        if type(obj).__name__ not in (
            "instancemethod",
            "function",
            "builtin_function_or_method",
            "method_descriptor",  # the C methods of bind_tensor.cpp's fast tables
            "_TensorMethod",
        ):
            continue
        out.append((cls, attr, obj, name))
    return out


def _install():
    for owner, attr, original, name in _namespace_targets():
        if getattr(original, "_mt_profiled", None) is not None:
            continue  # left by a recording that could not restore it; it already records
        if attr == "__getitem__":
            wrapper = _make_getitem(original)
        else:
            wrapper = _wrapper_for(original, name)
        _patched.append((owner, attr, original, wrapper))
        setattr(owner, attr, wrapper)


def _uninstall():
    while _patched:
        owner, attr, original, wrapper = _patched.pop()
        # a name rebound inside the recording (by the user, or by a transform) keeps its new value
        if vars(owner).get(attr) is wrapper:
            setattr(owner, attr, original)


def is_recording():
    """Whether a profile is collecting now."""
    return _active is not None


class record_function:
    """Marks a range in the profile: ``with record_function("name"):`` or ``@record_function("name")``. It
    appears as a user annotation in the table and the trace, enclosing the ops run inside it. Outside a profile
    it does nothing."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._open = []

    def __enter__(self):
        c = _active
        self._open.append(None if c is None else c.enter(self.name, annotation=True))
        return self

    def __exit__(self, *exc):
        ev = self._open.pop() if self._open else None
        if ev is not None:
            c = getattr(ev, "_collector", None)
            if c is not None:
                c.exit(ev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapped
