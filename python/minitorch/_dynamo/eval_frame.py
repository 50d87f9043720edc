"""What torch.compile returns: a callable that captures its target per input signature, hands each graph to
the backend, and replays the compiled graph while the guards hold.

Guards: for each tensor input its sizes, strides, dtype, device and requires_grad; every other argument by
value (or identity when unhashable); grad mode; the ``training`` flag of every module the graph calls; the
globals, closure variables and object attributes its code reads (guards.py; the tensors among them are
graph inputs after the call's own, guarded on their metadata). A call
that matches no cached graph captures a new one (a recompile), up to ``config.recompile_limit`` graphs per
callable, after which new signatures run eagerly with one warning. With ``dynamic=None`` a recompile caused
only by sizes tries a size-generic graph first (``dynamic=True`` starts with one, ``dynamic=False`` never
does), as Dynamo's automatic dynamic shapes; likewise an int or float argument whose value changed becomes a
graph input at that recompile; so does a number read from a closure cell or a float global
(guards.number_sources), as in Dynamo. Python control flow on such numbers (``if SCALE > 0.5:``) becomes a
guard of the graph (the branch taken must be taken again, as Dynamo's guard on a symbolic number); one that
needs the number's value itself (``range(n)``) makes it a constant again. Draws from Python's random
(random, randint, uniform, randrange) are graph inputs drawn before each call, as Dynamo replays them.
The Python side effects a capture makes are replayed after each call of its graph (side_effects.py). The
first call's result too comes from the backend's compiled graph, as in Dynamo: what the capture's run changed
is undone first (_Snapshot.undo).

Graph breaks: when capture meets Python it cannot put in a graph (``GraphBreak``), the callable is split
at the breaking statement (resume.py): the statements before it are one graph, the statement runs eagerly,
the statements after it are captured as further graphs, each piece a CompiledFunction of its own with its
own guards. Where it cannot be split (no source, a break inside a loop, hooks on a compiled module...) the
whole callable runs eagerly from then on, after one warning. With ``fullgraph=True`` the call raises
``Unsupported`` naming the cause.
"""

import functools
import inspect
import keyword
import math
import random
import threading
import warnings
import weakref

from minitorch import _C
from minitorch._dynamo import config, resume
from minitorch._dynamo import guards as py_guards
from minitorch._dynamo import side_effects as _side_effects
from minitorch._dynamo.capture import GraphBreak, capture, is_capturing, user_stacklevel
from minitorch._dynamo.exc import BackendCompilerFailed, FailOnRecompileLimitHit, RecompileError, Unsupported
from minitorch._dynamo.utils import counters
from minitorch.autograd import grad_mode
from minitorch.nn.modules.module import Module

__all__ = ["CompiledFunction", "OptimizedModule", "reset", "set_stance"]

_all_compiled = weakref.WeakSet()
_stance = {"stance": "default"}
_break_log = []  # GraphBreaks of this process, for explain()

_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile")


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """torch.compiler.set_stance: "default", "force_eager" (compiled callables run their original code),
    "eager_on_recompile" (no new graphs: new signatures run eagerly), "fail_on_recompile" (a new graph raises).
    Returns a context manager restoring the previous stance (it is already in effect when returned)."""
    if stance not in _STANCES:
        raise RuntimeError(f"Unsupported stance: {stance}. Supported stances are: {', '.join(_STANCES)}")
    previous = _stance["stance"]
    _stance["stance"] = stance

    class _Restore:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            _stance["stance"] = previous
            return False

        def __call__(self, fn):
            @functools.wraps(fn)
            def inner(*a, **k):
                old = _stance["stance"]
                _stance["stance"] = stance
                try:
                    return fn(*a, **k)
                finally:
                    _stance["stance"] = old

            _stance["stance"] = previous
            return inner

    return _Restore()


def reset():
    """Forgets every compiled graph, graph break and counter (the on-disk kernel cache stays)."""
    for c in list(_all_compiled):
        c._reset()
    _break_log.clear()
    counters.clear()


# ---- inputs: tensors become graph inputs, everything else is part of the guard
class _Unhashable:
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Unhashable) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)


def _spec(o, leaves):
    if isinstance(o, _C.Tensor):
        leaves.append(o)
        return None
    t = type(o)
    if t is list or t is tuple:
        return (t, tuple(_spec(x, leaves) for x in o))
    if t is dict:
        return (dict, tuple((k, _spec(v, leaves)) for k, v in o.items()))
    try:
        hash(o)
    except TypeError:
        return ("obj", _Unhashable(o))
    return ("const", t, o)


def _flatten(args, kwargs):
    """(tensor leaves, hashable structure with the other values)."""
    if not kwargs:
        for a in args:
            if not isinstance(a, _C.Tensor):
                break
        else:
            return list(args), len(args)
        if len(args) == 1 and type(args[0]) is dict:
            # the live variables a piece of a split function gets (resume.py), most often all tensors
            values = list(args[0].values())
            for v in values:
                if not isinstance(v, _C.Tensor):
                    break
            else:
                return values, ("env", tuple(args[0]))
    leaves = []
    spec = (_spec(args, leaves), _spec(kwargs, leaves) if kwargs else None)
    return leaves, spec


def _number_spec(o, leaves, nums, dyn, count):
    """_spec with Python numbers (int, float; bool is not one) numbered in visiting order: those in dyn go to
    nums and stand in the structure as ("num", type); dyn None: all of them, as ("num",)."""
    if isinstance(o, _C.Tensor):
        leaves.append(o)
        return None
    t = type(o)
    if t is int or t is float:
        i = count[0]
        count[0] += 1
        if dyn is None or i in dyn:
            nums.append(o)
            return (
                ("num",) if dyn is None else ("num", t)
            )  # which numbers changed is tracked whatever their type
        return ("const", t, o)
    if t is list or t is tuple:
        return (t, tuple(_number_spec(x, leaves, nums, dyn, count) for x in o))
    if t is dict:
        return (dict, tuple((k, _number_spec(v, leaves, nums, dyn, count)) for k, v in o.items()))
    return _spec(o, leaves)


def _flatten_numbers(args, kwargs, dyn):
    """(tensor leaves, the numbers in dyn, structure) as _flatten's slow path gives them (dyn empty: the same)."""
    leaves, nums, count = [], [], [0]
    spec = (
        _number_spec(args, leaves, nums, dyn, count),
        _number_spec(kwargs, leaves, nums, dyn, count) if kwargs else None,
    )
    return leaves, nums, spec


def _both_nan(a, b):
    return type(a) is float and type(b) is float and math.isnan(a) and math.isnan(b)


def _rebuilder(args, kwargs, dyn=frozenset(), n_tensors=None):
    """rebuild(values): args and kwargs with the tensors replaced by values[:n_tensors] and the numbers in dyn
    by the values after them (in the order _flatten_numbers visits them)."""

    def rebuild(values):
        it = iter(values[:n_tensors] if n_tensors is not None else values)
        nums = iter(values[n_tensors:] if n_tensors is not None else ())
        count = [0]

        def build(o):
            if isinstance(o, _C.Tensor):
                return next(it)
            t = type(o)
            if t is int or t is float:
                i = count[0]
                count[0] += 1
                return next(nums) if i in dyn else o
            if t is list or t is tuple:
                return t(build(x) for x in o)
            if t is dict:
                return {k: build(v) for k, v in o.items()}
            return o

        return build(tuple(args)), build(dict(kwargs))

    return rebuild


def _leaf_names(fn, args, kwargs):
    """A readable placeholder name per tensor leaf: the parameter's name (with _i for nested ones)."""
    try:
        target = fn.forward if isinstance(fn, Module) else fn
        bound = inspect.signature(target).bind(*args, **kwargs)
        items = list(bound.arguments.items())
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        items = [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
        params = {}
    names = []

    def walk(name, o):
        if isinstance(o, _C.Tensor):
            names.append(name)
        elif type(o) in (list, tuple):
            for i, x in enumerate(o):
                walk(f"{name}_{i}", x)
        elif type(o) is dict:
            for k, v in o.items():
                walk(f"{name}_{k}", v)

    for name, value in items:
        p = params.get(name)
        if p is not None and p.kind == p.VAR_POSITIONAL:
            for i, x in enumerate(value):
                walk(f"{name}_{i}", x)
        elif p is not None and p.kind == p.VAR_KEYWORD:
            for k, v in value.items():
                walk(str(k), v)
        else:
            walk(name, value)
    out, seen = [], set()
    for i, n in enumerate(names):
        n = "".join(c if c.isalnum() or c == "_" else "_" for c in str(n)) or f"arg{i}"
        if n[0].isdigit() or keyword.iskeyword(n) or n in ("self", "_mt_call"):
            n = f"l_{n}"
        while n in seen:
            n += "_"
        seen.add(n)
        out.append(n)
    return out


def _tensor_key(t):
    return (t.shape, t.stride(), t.dtype, t.device, t.requires_grad)


def _rank_key(t):
    return (t.dim(), t.dtype, t.device, t.requires_grad)


class _Snapshot:
    """The state a capture can change in place, taken before it: the RNG states, the module buffers and the
    tensor inputs (with their version counters). ``restore`` puts it back when the capture breaks (the eager
    rerun or the split pieces then see it as the call found it); ``undo`` puts it back after a capture that
    succeeded, so the first call runs the backend's compiled graph as every later call does (see
    CompiledFunction._capture_and_compile)."""

    def __init__(self, modules, tensors=()):
        self.gen = _C.default_generator
        self.rng = self.gen.get_state()
        self.py_rng = (
            random.getstate()
        )  # Python's generator: the capture's draws are made again by the graph's call
        self.cuda_rng = []
        if _C._cuda_is_initialized():
            for i in range(_C._cuda_device_count()):
                g = _C._cuda_default_generator(i)
                self.cuda_rng.append((g, g.get_state()))
        self.saved = []  # (tensor, its version, a copy of its data)
        self._ids = set()
        with grad_mode.no_grad():
            for m in modules:
                for b in m.buffers():
                    self._save(b)
            for t in tensors:
                self._save(t)

    def _save(self, t):
        if id(t) not in self._ids:
            self._ids.add(id(t))
            self.saved.append((t, t._version, t.detach().clone()))

    def _rng_back(self):
        self.gen.set_state(self.rng)
        random.setstate(self.py_rng)
        for g, state in self.cuda_rng:
            g.set_state(state)

    @staticmethod
    def _changed(t, version, copy):
        # the version counter misses writes through .data; equal() sees them (NaN reads as changed: harmless)
        return t._version != version or t.shape != copy.shape or not t.equal(copy)

    def restore(self):
        self._rng_back()
        with grad_mode.no_grad():
            for t, version, copy in self.saved:
                if t.shape == copy.shape and self._changed(t, version, copy):
                    t.copy_(copy)

    def undo(self, touched, saved=()):
        """Puts back what the capture changed in place, or returns False having changed nothing when that
        cannot be done: a tensor written in place that was not saved (a constant the code reached, a view of
        a parameter), one whose new shape or autograd history a copy cannot undo (resize_, an in-place op on
        a tensor with autograd history). touched: {id: (tensor, version before the capture read it)}; saved:
        more (tensor, version, copy), taken by the capture before an in-place op wrote them."""
        back = []
        for t, version, copy in saved:
            if id(t) not in self._ids:
                self._ids.add(id(t))
                self.saved.append((t, version, copy))
        for t, version, copy in self.saved:
            if self._changed(t, version, copy):
                if t.shape != copy.shape or t.grad_fn is not None:
                    return False
                back.append((t, copy))
        for i, (t, version) in touched.items():
            if i not in self._ids and t._version != version:
                return False
        self._rng_back()
        with grad_mode.no_grad():
            for t, copy in back:
                t.copy_(copy)
        return True


class _Entry:
    """One cached graph: fn is what a call runs (the backend's result), gm the captured graph, guards the
    (object, attribute, value) it was captured under besides its inputs (module training flags, Python
    scalars read from modules)."""

    __slots__ = (
        "compiled",
        "conditions",
        "draws",
        "effects",
        "fn",
        "gm",
        "guards",
        "kernels",
        "py_guard",
        "rank_key",
        "specialized",
    )

    def __init__(
        self,
        fn,
        compiled,
        gm,
        kernels,
        rank_key,
        specialized,
        guards,
        py_guard=None,
        effects=None,
        draws=(),
        conditions=None,
    ):
        # (check, tensor count, dynamic number positions): the branches the capture took on numbers that are
        # graph inputs must go the same way (capture.py's number_condition)
        self.conditions = conditions
        self.draws = (
            draws  # (function, args, kwargs) of each draw from Python's random, the last graph inputs
        )
        self.py_guard = py_guard  # guards.Guard: globals, closure cells, object attributes the graph baked in
        # side_effects.Effects: the Python state each call changes (the graph returns (output, extras) then)
        self.effects = effects
        self.fn = fn
        self.compiled = compiled
        self.gm = gm
        self.kernels = kernels
        self.rank_key = rank_key
        self.specialized = specialized
        self.guards = guards

    def holds(self, args, kwargs):
        for obj, name, value in self.guards:
            v = getattr(obj, name, _MISSING)
            if v is not value and v != value:
                return False
        if self.effects is not None and not self.effects.holds(args, kwargs):
            return False
        if self.py_guard is not None and not self.py_guard.fast(args, kwargs):
            return False
        return self.conditions is None or self._conditions_hold(args, kwargs)

    def _conditions_hold(self, args, kwargs):
        check, n_tensors, dyn = self.conditions
        inputs = [None] * n_tensors
        if dyn:
            inputs += _flatten_numbers(args, kwargs, dyn)[1]
        guard = self.py_guard
        if guard is not None and guard.values is not None:
            inputs += guard.values(args, kwargs)
        try:
            return check(inputs)
        except Exception:  # noqa: BLE001  (a value the condition cannot take: not this graph's)
            return False

    def run(self, leaves, args, kwargs):
        """The compiled graph on this call's tensors, then its side effects."""
        guard = self.py_guard
        if guard is not None and guard.values is not None:
            leaves = [*leaves, *guard.values(args, kwargs)]  # the tensors read from attributes and globals
        if self.draws:
            leaves = [*leaves, *[f(*a, **k) for f, a, k in self.draws]]
        if self.effects is None:
            return self.fn(*leaves)
        out, extra = self.fn(*leaves)
        self.effects.apply(extra, args, kwargs)
        return out


def _find(entries, args, kwargs):
    if entries:
        for e in entries:
            if e.holds(args, kwargs):
                return e
    return None


class CompiledFunction:
    """The compiled form of a function or module (see the module docstring). ``_torchdynamo_orig_callable``
    is the original; ``_mt_graphs`` the captured GraphModules; ``_mt_kernels`` the generated kernels."""

    _is_frame = False  # made for a function a breaking statement calls (resume._Frames)

    def __init__(
        self,
        fn,
        backend,
        *,
        fullgraph=False,
        dynamic=None,
        module=None,
        recompile_limit=None,
        on_graph=None,
        capture_module=None,
        resume_source=None,
        compile_reason=None,
        frame_cache=None,
    ):
        self._torchdynamo_orig_callable = fn
        # the functions its breaking calls enter, compiled as frames: one per callee for the whole call tree
        # (shared with its pieces), as Dynamo caches a frame's code once whoever calls it
        self._owns_frames = frame_cache is None  # a piece shares its root's: reset() clears it there
        self._frame_cache = {} if frame_cache is None else frame_cache
        # a piece of a split function (resume.py): its Source and outputs (to split it again), the module whose
        # forward it came from (guards on its training flag), the break that made it (explain's reason)
        self._capture_module = capture_module
        self._resume_source = resume_source
        self._compile_reason = compile_reason
        self._module = module
        self._backend = backend
        self._fullgraph = fullgraph
        self._dynamic = dynamic
        self._recompile_limit = recompile_limit
        self._on_graph = on_graph  # explain(): told of each graph and break
        self._active = threading.local()
        self._lock = threading.RLock()
        self._reset()
        if module is None:
            try:
                functools.update_wrapper(self, fn)
            except (AttributeError, TypeError):
                pass
        _all_compiled.add(self)

    def _reset(self):
        if self._owns_frames:
            self._frame_cache.clear()
        # automatic dynamic numbers, per argument structure: the numbers of the first capture, the positions
        # that changed since (graph inputs from then on) and those that must stay constants (they steer Python)
        self._seen_numbers = {}
        self._dyn_numbers = {}
        self._static_numbers = {}
        # the same for the numbers read from globals and closure cells (guards.number_sources), by source key
        self._seen_sources = {}
        self._dyn_sources = set()
        self._static_sources = set()
        self._cache = {}
        self._dyn_cache = {}
        self._no_dynamic = set()
        self._entries = []
        self._broken = None
        self._split = None  # resume.Plan once a graph break split the callable
        self._last_guards = []
        self._warned_limit = False

    # ---- what tests and users inspect
    def _pieces(self, seen=None):
        """The CompiledFunctions of a split callable's pieces (their own pieces included, each once)."""
        if self._split is None:
            return []
        seen = set() if seen is None else seen
        out = []
        for cf in self._split.compiled_functions():
            if id(cf) not in seen:
                seen.add(id(cf))
                out.append(cf)
                out += cf._pieces(seen)
        return out

    @property
    def _mt_graphs(self):
        return [e.gm for c in [self, *self._pieces()] for e in c._entries]

    @property
    def _mt_kernels(self):
        return [k for c in [self, *self._pieces()] for e in c._entries for k in e.kernels]

    @property
    def _mt_graph_break(self):
        """The GraphBreak that split this callable, or made it run eagerly; None without one."""
        if self._split is not None:
            return self._split.reason
        return self._broken

    def _mt_active(self):
        return getattr(self._active, "on", False)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __reduce__(self):
        # a module's compiled call is not pickled or deep-copied: the copy runs eagerly, as PyTorch's
        return (_none, ())

    # ---- calling
    def _eager(self, args, kwargs):
        active = self._active
        prev = getattr(active, "on", False)
        active.on = True
        try:
            return self._torchdynamo_orig_callable(*args, **kwargs)
        finally:
            active.on = prev

    def _key(self, leaves, spec):
        key = [_C.is_grad_enabled(), spec]
        key += [_tensor_key(t) for t in leaves]
        return tuple(key)

    def _rank_key(self, leaves, spec):
        key = [_C.is_grad_enabled(), spec]
        key += [_rank_key(t) for t in leaves]
        return tuple(key)

    def __call__(self, *args, **kwargs):
        stance = _stance["stance"]
        if stance == "force_eager" or self._broken is not None or is_capturing() or self._mt_active():
            # inside another capture this runs on proxies: the outer graph records it inline
            return self._eager(args, kwargs)
        split = self._split
        if split is not None:
            hooked = split.source.hooked
            if hooked is not None and resume.has_hooks(hooked):
                return self._eager(args, kwargs)  # hooks registered since the split run around forward whole
            return split.run(args, kwargs)
        leaves, spec = _flatten(args, kwargs)
        entry = _find(self._cache.get(self._key(leaves, spec)), args, kwargs)
        if entry is None and self._dyn_cache:
            entry = _find(self._dyn_cache.get(self._rank_key(leaves, spec)), args, kwargs)
        if entry is not None:
            return entry.run(leaves, args, kwargs)
        if self._dyn_numbers:
            found = self._find_numbers(args, kwargs)
            if found is not None:
                return found[0].run(found[1], args, kwargs)
        with self._lock:
            # another thread may have compiled this signature while we waited
            entry = _find(self._cache.get(self._key(leaves, spec)), args, kwargs)
            if entry is None and self._dyn_cache:
                entry = _find(self._dyn_cache.get(self._rank_key(leaves, spec)), args, kwargs)
            if entry is None:
                return self._miss(args, kwargs, leaves, spec)
        return entry.run(leaves, args, kwargs)

    def _find_numbers(self, args, kwargs):
        """(entry, inputs) of a graph taking this call's changed numbers as inputs, or None."""
        # each set of dynamic positions is tried (one, most often): a set made for another argument structure
        # gives a structure no graph has
        for dyn in list(self._dyn_numbers.values()):
            tensors, nums, spec = _flatten_numbers(args, kwargs, dyn)
            entry = _find(self._cache.get(self._key(tensors, spec)), args, kwargs)
            if entry is None and self._dyn_cache:
                entry = _find(self._dyn_cache.get(self._rank_key(tensors, spec)), args, kwargs)
            if entry is not None:
                return entry, tensors + nums
        return None

    def _miss(self, args, kwargs, leaves, spec):
        stance = _stance["stance"]
        if self._entries:
            if stance == "eager_on_recompile":
                return self._eager(args, kwargs)
            if stance == "fail_on_recompile":
                raise RuntimeError("Detected recompile when torch.compile stance is 'fail_on_recompile'")
            if config.error_on_recompile:
                fn = self._torchdynamo_orig_callable
                code = getattr(getattr(fn, "forward", fn), "__code__", None)
                where = f" in {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
                raise RecompileError(
                    f"Recompiling function {getattr(fn, '__name__', type(fn).__name__)}{where}\n"
                    "    triggered by the following guard failure(s):\n"
                    "    - no cached graph matches the input signature or the guarded Python values"
                )
        limit = self._recompile_limit if self._recompile_limit is not None else config.recompile_limit
        if len(self._entries) >= limit:
            if self._fullgraph:
                raise FailOnRecompileLimitHit(
                    "recompile_limit reached with fullgraph=True. Excessive recompilations can degrade "
                    "performance due to the compilation overhead of each recompilation. To monitor "
                    "recompilations, enable TORCH_LOGS=recompiles."
                )
            if not self._warned_limit:
                self._warned_limit = True
                name = getattr(
                    self._torchdynamo_orig_callable, "__qualname__", repr(self._torchdynamo_orig_callable)
                )
                warnings.warn(
                    f"torch._dynamo hit config.recompile_limit ({limit})\n"
                    f"   function: '{name}'\n"
                    f"   last reason: no cached graph matches the input signature (sizes, strides, dtypes, "
                    f"devices, requires_grad, other arguments, grad mode, module training flags, or globals, closure variables or "
                    f"object attributes the graph read changed)\n"
                    f"New input signatures of this function run eagerly.",
                    UserWarning,
                    stacklevel=user_stacklevel(),
                )
            return self._eager(args, kwargs)
        rk = self._rank_key(leaves, spec)
        marked = any(getattr(t, "_dynamo_dynamic_indices", None) for t in leaves)
        specialize = True
        if (
            self._dynamic is True
            or (self._dynamic is None and marked)
            or (self._dynamic is None and not config.assume_static_by_default)
            or (
                self._dynamic is None
                and config.automatic_dynamic_shapes
                and rk not in self._no_dynamic
                and any(e.rank_key == rk for e in self._entries)
            )
        ):
            specialize = False
        if not specialize and rk in self._no_dynamic:
            specialize = True
        dyn, nums, spec = self._numbers_to_trace(args, kwargs, leaves, spec)
        return self._capture_and_compile(args, kwargs, leaves, spec, rk, specialize, dyn, nums)

    def _numbers_to_trace(self, args, kwargs, leaves, spec):
        """Dynamo's automatic dynamic for Python numbers: a number that differs from the first capture's (same
        argument structure) becomes a graph input from this recompile on, unless it steered Python control
        flow or a shape before (then it stays a constant). (positions, their values, the call's structure)."""
        if self._dynamic is False or not config.automatic_dynamic_shapes:
            return frozenset(), [], spec
        _, values, nspec = _flatten_numbers(args, kwargs, None)
        if not values:
            return frozenset(), [], spec
        seen = self._seen_numbers.setdefault(nspec, tuple(values))
        changed = {i for i, (a, b) in enumerate(zip(values, seen)) if not (a == b or _both_nan(a, b))}
        if self._dynamic is True:
            changed = set(range(len(values)))
        if config.specialize_int:
            changed = {i for i in changed if type(values[i]) is not int}  # ints stay constants
        dyn = (self._dyn_numbers.get(nspec, frozenset()) | changed) - self._static_numbers.get(
            nspec, frozenset()
        )
        if not dyn:
            return frozenset(), [], spec
        dyn = frozenset(dyn)
        self._dyn_numbers[nspec] = dyn
        _, nums, spec = _flatten_numbers(args, kwargs, dyn)
        return dyn, nums, spec

    def _sources_to_trace(self, guard, stores):
        """_numbers_to_trace for the numbers read from globals and closure cells: those that changed since the
        first capture become graph inputs of guard (lifted, guarded on their type). The keys lifted."""
        if self._dynamic is False or not config.automatic_dynamic_shapes:
            return frozenset()
        lift = set()
        for key, value in py_guards.number_sources(guard, stores):
            first = self._seen_sources.setdefault(key, value)
            if key in self._static_sources:
                continue
            if key in self._dyn_sources or not (first == value or _both_nan(first, value)):
                lift.add(key)
        if lift:
            self._dyn_sources |= lift
            guard.lift_numbers(lift)
        return frozenset(lift)

    def _capture_and_compile(self, args, kwargs, leaves, spec, rk, specialize, dyn=frozenset(), nums=()):
        fn = self._torchdynamo_orig_callable
        target = self._module if self._module is not None else fn
        names = _leaf_names(target, args, kwargs)
        if nums:
            # the numbers that are graph inputs come after the tensors, named as Dynamo names its symbols
            names = names + [f"s{i}" for i in range(len(nums))]
            rk = self._rank_key(leaves, spec)
        if self._resume_source is not None:
            # a piece's one argument is the dict of live variables: name its tensors after the variables
            names = [("L_" + n[len("__mt_env_") :]) if n.startswith("__mt_env_") else n for n in names]
        owner = self._module if self._module is not None else self._capture_module
        target = fn if self._module is None else self._module
        # the Python values the code reads, as the call found them (Dynamo's guards are on the entry state); the
        # state it can change is recorded too, so what the capture changes is replayed on every later call
        stores, reads = [], set()
        py_guard = py_guards.sources(target, args, kwargs, stores, reads)
        if py_guard is not None and py_guard.traps:
            # a call of a C method whose changes cannot be replayed (array.append, a file's write): the graph
            # breaks at that statement, which runs eagerly on every call, rather than once at capture
            return self._graph_break(_opaque_break(py_guard.traps[0]), args, kwargs)
        dyn_sources = self._sources_to_trace(py_guard, stores)
        # the tensors it reads from globals, cells and attributes are graph inputs after the call's own
        lifted = list(py_guard.lifted) if py_guard is not None else []
        lifted_values = [py_guard.read(c, args, kwargs) for c in lifted]
        if lifted:
            names = names + _lifted_names(lifted, names)
        snapshot = _Snapshot(
            [owner] if owner is not None else [],
            list(leaves) + [v for v in lifted_values if isinstance(v, _C.Tensor)],
        )
        tracker = _side_effects.Tracker(reads)
        owner_self = target if isinstance(target, Module) else getattr(target, "__self__", None)
        if owner_self is not None:
            tracker.add_root(owner_self, (("obj", owner_self), ()))  # self.n += 1 reads no attribute chain
        tracker.add_guarded(py_guard, stores, args, kwargs)
        counters["frames"]["total"] += 1
        active = self._active
        prev = getattr(active, "on", False)
        active.on = True  # a Module.compile()d module calls back into its own eager _call_impl
        try:
            res = capture(
                fn if self._module is None else self._module,
                args,
                kwargs,
                list(leaves) + list(nums) + lifted_values,
                _rebuilder(args, kwargs, dyn, len(leaves)) if nums else _rebuilder(args, kwargs),
                names,
                module=owner if owner is not None else _bound_module(fn),
                specialize=specialize,
                side_effects=tracker,
                lifted=[_swap(py_guard, c, args, kwargs) for c in lifted],
            )
        except GraphBreak as gb:
            # what the capture did before it broke is undone: the split pieces (or the eager run) do it once
            tracker.restore()
            snapshot.restore()
            if dyn_sources and gb.shape_only:
                # a global or cell number steered Python control flow: it stays a constant, guarded by value
                self._static_sources |= dyn_sources
                self._dyn_sources -= dyn_sources
                active.on = prev
                return self._capture_and_compile(args, kwargs, leaves, spec, rk, specialize, dyn, nums)
            if nums and gb.shape_only:
                # a number decided Python control flow (or a size): it stays a constant, guarded by value
                _, _, nspec = _flatten_numbers(args, kwargs, None)
                self._static_numbers[nspec] = self._static_numbers.get(nspec, frozenset()) | dyn
                self._dyn_numbers.pop(nspec, None)
                active.on = prev
                leaves, spec = _flatten(args, kwargs)
                return self._capture_and_compile(
                    args, kwargs, leaves, spec, self._rank_key(leaves, spec), specialize
                )
            if not specialize and gb.shape_only:
                self._no_dynamic.add(rk)
                active.on = prev
                return self._capture_and_compile(args, kwargs, leaves, spec, rk, True, dyn, nums)
            return self._graph_break(gb, args, kwargs)
        finally:
            active.on = prev
        counters["frames"]["ok"] += 1
        if py_guard is not None:
            # the tensors the graph holds as constants (read from a container by a computed key...) are guarded
            # by identity
            py_guard.tighten(
                {
                    id(getattr(res.gm, n.target, None))
                    for n in res.gm.graph.nodes
                    if n.op == "get_attr" and "." not in n.target
                }
            )
        # The capture ran the code on the real values. As in Dynamo (whose capture is symbolic), the first
        # call's result comes from the backend's compiled graph: what the capture changed is undone (the
        # Python state the tracker recorded, the RNG, the buffers and inputs it wrote in place), then the
        # compiled graph runs on the real inputs below and makes every change once. Where a change cannot be
        # undone (a parameter written in place, an in-place op on a tensor with autograd history) the
        # capture's own run stands as the first call's: its output, with its side effects written out. So it
        # does where a node ran the user's own Python (a torch.compiler.disable'd helper) or a backward pass:
        # it ran once already.
        undone = not res.irreversible and snapshot.undo(res.touched, res.saved)
        if undone:
            tracker.restore()
        elif res.effects is not None:
            # the traced run's mutations put traced values where the eager run puts tensors: write its real ones
            res.effects.apply(res.extra_values, args, kwargs)
        guards, seen = [], set()
        for m in res.modules:
            if (id(m), "training") not in seen:
                seen.add((id(m), "training"))
                guards.append((m, "training", m.training))
        for m, name in res.attr_reads:
            if (id(m), name) not in seen:
                seen.add((id(m), name))
                guards.append((m, name, getattr(m, name, _MISSING)))
        self._last_guards = guards
        compiled = self._compile(res)
        # a compiled GraphModule is called through its forward (no hooks to run: Module.__call__ is overhead)
        hooked = isinstance(compiled, Module) and (compiled._forward_hooks or compiled._forward_pre_hooks)
        call = compiled.forward if isinstance(compiled, Module) and not hooked else compiled
        kernels = list(
            getattr(compiled, "_mt_kernels", None)
            or getattr(getattr(compiled, "__self__", None), "_mt_kernels", None)
            or []
        )
        entry = _Entry(
            call,
            compiled,
            res.gm,
            kernels,
            self._rank_key(leaves, spec),
            specialize,
            guards,
            py_guard,
            res.effects,
            getattr(res, "random_calls", ()),
            None if res.conditions is None else (res.conditions, len(leaves), dyn),
        )
        self._entries.append(entry)
        if specialize:
            self._cache.setdefault(self._key(leaves, spec), []).insert(0, entry)
        else:
            self._dyn_cache.setdefault(self._rank_key(leaves, spec), []).insert(0, entry)
        if undone:
            return entry.run(list(leaves) + list(nums), args, kwargs)
        return res.output

    def _compile(self, res):
        gm = res.gm
        if self._resume_source is not None and not any(n.op.startswith("call_") for n in gm.graph.nodes):
            # as Dynamo, a piece of a split function with no operation is not a graph: it is not compiled
            return gm.forward
        counters["stats"]["unique_graphs"] += 1
        counters["stats"]["calls_captured"] += sum(1 for n in gm.graph.nodes if n.op.startswith("call_"))
        if self._on_graph is not None:
            self._on_graph(gm, self._compile_reason)
        try:
            compiled = self._backend(gm, list(res.example_inputs))
        except Exception as e:
            if config.suppress_errors:
                warnings.warn(
                    f"torch.compile: backend {getattr(self._backend, '__name__', self._backend)!r} failed "
                    f"({type(e).__name__}: {e}); running the captured graph eagerly (config.suppress_errors)",
                    stacklevel=user_stacklevel(),
                )
                return gm.forward
            raise BackendCompilerFailed(self._backend, e) from e
        if not callable(compiled):
            raise BackendCompilerFailed(
                self._backend, TypeError(f"the backend returned {type(compiled).__name__}, not a callable")
            )
        return compiled

    def _graph_break(self, gb, args, kwargs):
        counters["graph_break"][gb.title] += 1
        _break_log.append(gb)
        if self._fullgraph:
            if self._on_graph is not None:
                self._on_graph(None, gb)
            raise Unsupported(gb.format(), gb.title) from gb.__cause__
        try:
            plan = self._plan(gb)
        except resume.CannotSplit as e:
            why = str(e)
        else:
            # the break's reason reaches explain() with the graph before it, as Dynamo's compile reason
            self._split = plan
            return plan.run(args, kwargs)
        self._broken = gb
        if self._on_graph is not None:
            # explain() reports the break itself; a piece's, as Dynamo skipping the rest, only by its warning, and
            # a called function's frame that cannot be split is skipped silently, as Dynamo skips it
            if self._resume_source is None and not self._is_frame:
                self._on_graph(None, gb)
            return self._eager(args, kwargs)
        name = (
            getattr(self._torchdynamo_orig_callable, "__qualname__", None)
            or type(self._torchdynamo_orig_callable).__name__
        )
        where = ""
        if gb.user_stack:
            f = gb.user_stack[-1]
            where = f" at {f.filename}:{f.lineno}"
        what = "It runs eagerly from now on"
        if self._resume_source is not None:
            what = "The code from this statement on runs eagerly (the graphs before it stay)"
        warnings.warn(
            f"torch.compile: graph break in {name}{where}: {gb.reason.rstrip('.')}. {what}, not split into "
            f"graphs around the break: {why} (fullgraph=True raises instead).",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        return self._eager(args, kwargs)

    def _plan(self, gb):
        """The resume.Plan splitting this callable at gb, or CannotSplit."""
        if self._resume_source is not None:
            source, exports = self._resume_source
        else:
            source, exports = resume.source_of(self._torchdynamo_orig_callable), ()
        for f in gb.user_stack or ():
            if f.filename == source.filename and f.name == source.name:
                return resume.Plan(source, self._make_piece, gb, exports, f.lineno, f, self._make_frame)
        raise resume.CannotSplit("the break is outside the function's own source")

    def _make_frame(self, fn, key):
        """A function (or module) that a breaking statement calls, compiled as its own frame with this one's
        backend and settings, as Dynamo compiles the frame of an inlined call that graph-breaks: one per key
        for this callable's whole call tree; None past resume._MAX_FRAMES callees (the call runs as it is)."""
        hit = self._frame_cache.get(key)
        if hit is not None:
            return hit[0]
        if len(self._frame_cache) >= resume._MAX_FRAMES:
            return None
        module = fn if isinstance(fn, Module) else None
        cf = CompiledFunction(
            fn,
            self._backend,
            dynamic=self._dynamic,
            module=module,
            recompile_limit=self._recompile_limit,
            on_graph=self._on_graph,
        )
        cf._is_frame = True
        self._frame_cache[key] = (cf, fn)  # fn kept alive: its id stays its own
        return cf

    def _make_piece(self, fn, source, outputs, reason):
        return CompiledFunction(
            fn,
            self._backend,
            dynamic=self._dynamic,
            recompile_limit=self._recompile_limit,
            on_graph=self._on_graph,
            capture_module=source.module,
            resume_source=(source, outputs),
            compile_reason=reason,
            frame_cache=self._frame_cache,
        )


def _none():
    return None


def _opaque_break(trap):
    """The GraphBreak of a call of an opaque C method (guards.Guard.traps), in Dynamo's words, at the call."""
    import traceback

    code, line, end_line, col, end_col, what = trap
    frame = traceback.FrameSummary(
        code.co_filename, line, code.co_name, end_lineno=end_line, colno=col, end_colno=end_col
    )
    return GraphBreak(
        "Unsupported method call",
        f"Dynamo does not know how to trace {what} (written in C: a graph would make its change once, at "
        "capture).",
        [f"Avoid calling the {what} in your code.", "Move the call out of the compiled function."],
        user_stack=[frame],
    )


def _lifted_names(checks, taken):
    """Placeholder names of the tensors read from globals, cells and attributes (Dynamo's L_self_h style)."""
    out, seen = [], set(taken)
    for c in checks:
        if c.kind == "global":
            parts = ["G", str(c.key)]
        elif c.kind == "cell":
            parts = ["L", "cell"]
        elif c.kind == "const":
            parts = ["L", "self"]
        else:
            parts = ["L", str(c.key[1])]
        n = "_".join(parts + [str(a) for a in c.attrs])
        n = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in n)
        while n in seen:
            n += "_"
        seen.add(n)
        out.append(n)
    return out


def _swap(guard, check, args, kwargs):
    """(put, take) for capture(): the traced input swapped in where the code reads check's tensor, and the
    tensor put back after unless the code stored something else there (a side effect, replayed)."""

    def put(proxy):
        return guard.install(check, args, kwargs, proxy)

    def take(proxy, old):
        if guard.installed(check, args, kwargs) is proxy:
            guard.install(check, args, kwargs, old)

    return put, take


_MISSING = object()


def _bound_module(fn):
    owner = getattr(fn, "__self__", None)
    return owner if isinstance(owner, Module) else None


class OptimizedModule(Module):
    """torch.compile(module): a Module wrapping ``_orig_mod`` (its parameters and state_dict appear under
    ``_orig_mod.``) whose forward is the compiled call of the original module (hooks included). Attribute
    reads and writes other than its own go to the original module."""

    _opt_mod_attributes = frozenset(
        {
            "_orig_mod",
            "dynamo_ctx",
            "_torchdynamo_orig_callable",
            "forward",
            "_forward",
            "__dict__",
            "_super_module_initialized",
            "_mt_compiled",
        }
    )

    def __init__(self, mod, compiled):
        object.__setattr__(self, "_orig_mod", mod)
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod
        self._mt_compiled = compiled
        self.forward = compiled

    @property
    def training(self):
        """The original module's training flag (setting it sets the original's)."""
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        if self.__dict__.get("_super_module_initialized", False):
            self._orig_mod.training = value

    @property
    def _mt_kernels(self):
        return self._mt_compiled._mt_kernels

    @property
    def _mt_graphs(self):
        return self._mt_compiled._mt_graphs

    def __len__(self):
        try:
            return len(self._orig_mod)
        except TypeError:
            raise TypeError(f"{type(self._orig_mod).__name__} does not support len()") from None

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __reduce__(self):
        return (
            _rebuild_optimized,
            (
                self._orig_mod,
                self._mt_compiled._backend,
                self._mt_compiled._fullgraph,
                self._mt_compiled._dynamic,
            ),
        )

    def __dir__(self):
        own = self._orig_mod.__dir__()
        return own + [a for a in super().__dir__() if a not in own]


def _rebuild_optimized(mod, backend, fullgraph, dynamic):
    return OptimizedModule(
        mod, CompiledFunction(mod, backend, fullgraph=fullgraph, dynamic=dynamic, module=mod)
    )
