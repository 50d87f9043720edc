"""torch.overrides: the ``__torch_function__`` protocol, switched on only while a program transform runs.

PyTorch checks every argument of every op for ``__torch_function__`` in C++. Our ops are pybind11 builtins
whose fast path has no such check, and adding one would tax every eager call. Instead the protocol is off by
default and `enable_torch_function_dispatch()` switches it on for a dynamic extent: on the first entry each
torch namespace (``minitorch``, ``nn.functional``, ``special``, ``linalg``, ``fft``) gets a module class whose
attribute reads hand out, for each public function, a wrapper that looks for an argument whose type defines
``__torch_function__`` (or an active `TorchFunctionMode`) and hands the call to it, else calls the original
(the names the namespaces' own code reads as globals are switched in their module dicts); the last exit puts
the plain module class back, so outside a transform ``minitorch.add`` is the builtin itself and costs nothing
extra.

What is intercepted: calls made through those module attributes while the dispatch is on (``torch.add``,
``F.relu``, ``torch.cat([...])``; arguments are scanned one level into lists and tuples, and keyword values),
and Tensor methods called on real tensors with an overriding argument (``w.mul(batched)``, ``buffer.add(proxy)``,
``t[proxy]``): the methods look in C++ while the dispatch is on (csrc/python/torch_function.cpp, switched with
the namespaces: nothing to install per extent) and hand such a call to `_tensor_method_dispatch`. With
``tensor_methods=True`` (fx and jit tracing) the methods are also routed to an active TorchFunctionMode when no
argument overrides. What is not intercepted: operators on real tensors (ours return
NotImplemented for a foreign operand, so Python asks the other operand's reflected method), methods of the
tensor-like itself (it handles them, as fx's Proxy does), and reads of a namespace's dict itself
(``vars(torch)["add"]``) handed to a mode with no overriding argument. A builtin bound to a name before the
dispatch was switched on (``from torch import add``) dispatches when an argument overrides
(`_builtin_function_dispatch`). Outside any extent, a builtin (function or Tensor method) that no overload binds
looks for an overriding argument before raising its TypeError (csrc/python/arg_errors.cpp), so an fx Proxy
over a graph built by hand, or a user's tensor-like, reaches its __torch_function__ as in PyTorch; a function
written in Python that hands it on to a builtin (``F.relu``) is then seen as that builtin (``torch.relu``). The
patch is process-wide (module classes and class attributes are), modes are per thread.

Tensor subclasses take part everywhere, as in PyTorch: Tensor has a __torch_function__ of its own (_tensor.py:
the call runs with the subclasses' handlers off and its tensors come back as the subclass), and once a subclass
that does not opt out is defined, the bindings look at every call for an instance of one (csrc/python/
torch_function.cpp) and hand such a call to `_subclass_dispatch` with the callable PyTorch's handler receives.
The functions written in Python (``F.relu``, ``F.softmax``) are not handed over as themselves: their handler
sees the builtins they call.
"""

import contextlib
import functools
import importlib
import operator
import sys
import threading
import types
import warnings

from minitorch import _C, _argcheck, _handover

__all__ = [
    "BaseTorchFunctionMode",
    "TorchFunctionMode",
    "enable_torch_function_dispatch",
    "get_default_nowrap_functions",
    "get_ignored_functions",
    "get_overridable_functions",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_torch_function_dispatch_enabled",
    "resolve_name",
]

# (module, PyTorch's name for it): the namespaces whose functions the dispatch intercepts
_NAMESPACES = _handover.NAMESPACES

# Functions that are not ops (PyTorch's get_ignored_functions()): _handover's list, which its rewrite skips too
_IGNORED = _handover.IGNORED


# A tensor subclass sets ``__torch_function__`` to this to opt out of the protocol (Parameter, Buffer): its
# instances are then treated as plain tensors
_disabled_torch_function_impl = _C._disabled_torch_function_impl


_state_lock = threading.RLock()
_depth = 0
_overrides_cache = {}  # type -> whether it takes part in the protocol
_modes = threading.local()


def _root():
    # the public namespace, read at run time: a submodule never imports the package root (docs/architecture.md)
    return sys.modules["minitorch"]


def _plain_types():
    # read at run time, as _root() (nn.functional imports this module): a Parameter instance means its module
    # is loaded
    parameter = sys.modules.get("minitorch.nn.parameter")
    return (_C.Tensor,) if parameter is None else (_C.Tensor, parameter.Parameter)


def _overriding(t):
    """0: instances of type t never dispatch through __torch_function__ (exact Tensor, an opted-out subclass),
    1: they do, 2: they do as a Tensor subclass (whose handlers DisableTorchFunctionSubclass switches off)."""
    impl = getattr(t, "__torch_function__", None)
    if impl is None or impl is _disabled_torch_function_impl or t in _plain_types():
        return 0
    # a subclass that opts out through the function itself (a staticmethod keeps identity)
    if getattr(impl, "__func__", impl) is _disabled_torch_function_impl:
        return 0
    return 2 if issubclass(t, _C.Tensor) else 1


def _type_overrides(t):
    """Whether instances of type t dispatch through __torch_function__ now (exact Tensor/Parameter never do;
    a Tensor subclass not while its handlers are switched off, as inside Tensor.__torch_function__)."""
    hit = _overrides_cache.get(t)
    if hit is None:
        hit = _overrides_cache[t] = _overriding(t)
    if hit == 2:
        return _C._torch_function_state() == 0
    return hit == 1 and _C._torch_function_state() != 2


def _subclass_overrides(t):
    """Whether instances of Tensor subclass t go through __torch_function__ outside the transforms too
    (csrc/python/torch_function.cpp asks once per type): every subclass but the opted-out and forward AD's
    DualTensor, which its own extent dispatches."""
    return _overriding(t) == 2 and not getattr(t, "_mt_transform_only", False)


def _mode_stack():
    stack = getattr(_modes, "stack", None)
    if stack is None:
        stack = _modes.stack = []
    return stack


def _relevant(args, kwargs):
    """The arguments (one level into lists and tuples, and keyword values) that may override."""
    out = []
    for a in args:
        if type(a) in (list, tuple):
            out.extend(a)
        else:
            out.append(a)
    if kwargs:
        for a in kwargs.values():
            if type(a) in (list, tuple):
                out.extend(a)
            else:
                out.append(a)
    return out


def _any_overrides(args, kwargs):
    for a in args:
        t = type(a)
        if t is list or t is tuple:
            for b in a:
                if _type_overrides(type(b)):
                    return True
        elif _type_overrides(t):
            return True
    if kwargs:
        return _any_overrides(tuple(kwargs.values()), None)
    return False


def _get_overloaded_args(relevant_args):
    """The distinct-typed overriding arguments, subclasses before their superclasses, else left to right."""
    seen, out = set(), []
    for arg in relevant_args:
        t = type(arg)
        if t in seen or not _type_overrides(t):
            continue
        seen.add(t)
        index = len(out)
        for i, old in enumerate(out):
            if issubclass(t, type(old)):
                index = i
                break
        out.insert(index, arg)
    return out


def has_torch_function(relevant_args):
    """Whether an element of relevant_args overrides through __torch_function__ (exact Tensors and Parameters
    do not) or a TorchFunctionMode is active. Use it to guard a call to `handle_torch_function`."""
    if _mode_stack():
        return True
    return any(_type_overrides(type(a)) for a in relevant_args)


def has_torch_function_unary(arg):
    """has_torch_function((arg,)) without building the tuple."""
    return bool(_mode_stack()) or _type_overrides(type(arg))


def has_torch_function_variadic(*args):
    """has_torch_function(args) for arguments passed one by one."""
    return has_torch_function(args)


def is_tensor_like(inp):
    """True for a Tensor or an object whose type defines ``__torch_function__``."""
    return type(inp) is _C.Tensor or hasattr(inp, "__torch_function__")


# torch.norm and torch.split are Python in PyTorch (torch/functional.py): their bindings hand a tensor-like input
# to handle_torch_function themselves, with the keywords PyTorch's functions pass (csrc/python/
# python_functions.h), so the builtins' hook leaves them alone; PyTorch's words name them by that module
_PYTHON_IN_PYTORCH = {_C.norm: "torch.functional.norm", _C.split: "torch.functional.split"}


def _qualified(public_api):
    try:
        python_name = _PYTHON_IN_PYTORCH.get(public_api)
    except TypeError:  # pybind11's instancemethod (a Tensor method, as the class hands it out) does not hash
        python_name = None
    if python_name is not None:
        return python_name
    name = getattr(public_api, "_mt_public_name", None) or resolve_name(public_api)
    if name is not None:
        return name
    return f"{getattr(public_api, '__module__', None)}.{getattr(public_api, '__name__', public_api)}"


def _dispatch(public_api, overloaded, args, kwargs, builtin_words):
    types_ = tuple(type(a) for a in overloaded)
    if builtin_words and not kwargs:
        kwargs = None  # PyTorch's C++ dispatcher hands a builtin's handlers None for no keywords
    stack = _mode_stack()
    # a mode that only ever answers NotImplemented when an argument overrides (vmap's randomness mode) is
    # skipped then: the same result without the pop, the call and the push on every op
    if stack and not (overloaded and getattr(stack[-1], "_mt_defers_to_overrides", False)):
        # the mode runs with itself popped, so torch calls inside its handler reach the next one
        mode = stack.pop()
        try:
            result = mode.__torch_function__(public_api, types_, args, kwargs)
        finally:
            stack.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types_, args, kwargs)
        if result is not NotImplemented:
            return result
    name = _qualified(public_api)
    if builtin_words and overloaded:
        # the words of PyTorch's C++ dispatcher, which handles the builtin ops
        lines = "".join(f"  - tensor subclass {t}\n" for t in types_)
        msg = (
            f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
            f"NotImplemented:\n\n{lines}\nFor more information, try re-running with TORCH_LOGS=not_implemented"
        )
    else:
        msg = (
            f"no implementation found for '{name}' on types that implement __torch_function__: "
            f"{[type(a) for a in overloaded]}"
        )
    if stack:
        msg += f" nor in mode {stack[-1]}"
    raise TypeError(msg)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the ``__torch_function__`` of the active mode, then of each overriding argument of relevant_args
    (subclasses first) as ``type(arg).__torch_function__(public_api, types, args, kwargs)`` until one returns
    something other than NotImplemented; TypeError when none does."""
    overloaded = _get_overloaded_args(relevant_args)
    return _dispatch(public_api, overloaded, args, kwargs, builtin_words=False)


class _DispatchingFunction:
    """What a torch function is while the dispatch is on: calls the original unless an argument (or a mode)
    overrides. It equals and hashes as the original, so a table keyed by ``torch.add`` built outside the
    extent still finds it, and ``target == torch.add`` holds on either side of it."""

    def __init__(self, original, public_name):
        functools.update_wrapper(self, original, updated=())
        self.__wrapped__ = original
        self._mt_original = original
        self._mt_public_name = public_name
        self._mt_builtin = isinstance(original, types.BuiltinFunctionType)

    def __call__(self, *args, **kwargs):
        if _mode_stack() or _any_overrides(args, kwargs):
            overloaded = _get_overloaded_args(_relevant(args, kwargs))
            return _dispatch(self, overloaded, args, kwargs, builtin_words=self._mt_builtin)
        return self._mt_original(*args, **kwargs)

    def __eq__(self, other):
        return (
            other is self
            or other is self._mt_original
            or getattr(other, "_mt_original", None) is self._mt_original
        )

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._mt_original)

    def __repr__(self):
        return repr(self._mt_original)

    def __reduce__(self):
        # pickles as the function it stands for
        return (original_function, (self._mt_original,))


def _make_wrapper(original, public_name):
    return _DispatchingFunction(original, public_name)


def _namespaces():
    """[(module, PyTorch's name)] for the namespaces present (fft is optional)."""
    out = []
    for modname, public in _NAMESPACES:
        mod = sys.modules.get(modname)
        if mod is None:
            try:
                mod = importlib.import_module(modname)
            except ImportError:
                continue
        out.append((mod, public))
    return out


def _candidate(name, obj):
    """The function namespace attribute `name` bound to obj stands for when it is an op the dispatch intercepts
    (a dispatching wrapper stands for its original), else None."""
    if name.startswith("_") or name in _IGNORED:
        return None
    if type(obj) is _DispatchingFunction:
        obj = obj._mt_original
    if not isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
        return None
    if not str(getattr(obj, "__module__", None) or "").startswith("minitorch"):
        return None  # a helper the namespace imported from elsewhere (math, functools, typing)
    return obj


def _candidates(mod):
    """[(attribute name, function)] of the namespace's public functions and builtins that are ops."""
    out = []
    for name, obj in list(vars(mod).items()):
        obj = _candidate(name, obj)
        if obj is not None:
            out.append((name, obj))
    return out


# Made once and kept across extents: building ~900 wrappers costs ~3 ms, which every vmap/trace call would pay.
_wrappers = {}  # (public name, original) -> its wrapper


def _is_op(name, obj):
    """Whether namespace attribute `name` bound to obj is an op the dispatch intercepts (_candidates' test)."""
    if name[:1] == "_" or name in _IGNORED:
        return False
    t = type(obj)
    if t is _DispatchingFunction:
        return False
    if t is not types.BuiltinFunctionType and t is not types.FunctionType:
        return False
    return str(getattr(obj, "__module__", None) or "").startswith("minitorch")


def _wrapper_for(public, name, obj):
    qual = f"{public}.{name}"
    wrapper = _wrappers.get((qual, obj))
    if wrapper is None:
        wrapper = _wrappers[qual, obj] = _make_wrapper(obj, qual)
    return wrapper


# The namespace modules are switched by their class, not their dicts: while the dispatch is on, each one's
# __class__ is a subclass of its own whose __getattribute__ hands out the wrapper of an op it reads (made on the
# first read, then kept per name and checked by identity against what the dict binds now, so a name the user
# rebinds is seen at once). Switching costs one class assignment per namespace instead of rewriting its ~900
# names each way (~0.2 ms per outermost vmap/jvp entry); outside the extent the modules are plain modules and
# eager attribute reads cost what they always did. Reads inside the extent pay ~0.2 us each.
_module_classes = {}  # module -> its dispatching class


def _dispatching_class(mod, public):
    cls = _module_classes.get(mod)
    if cls is not None and cls.__bases__[0] is type(mod):
        return cls
    base = type(mod)
    base_get = base.__getattribute__
    seen = {}  # name -> (object the module bound, what a read returns)

    def __getattribute__(self, name):
        obj = base_get(self, name)
        hit = seen.get(name)
        if hit is not None and hit[0] is obj:
            return hit[1]
        out = _wrapper_for(public, name, obj) if _is_op(name, obj) else obj
        seen[name] = (obj, out)
        return out

    cls = type(base.__name__, (base,), {"__getattribute__": __getattribute__, "__module__": base.__module__})
    _module_classes[mod] = cls
    return cls


# A module's own functions read its globals from its dict, which the class does not see: the public functions
# that the namespace's own code (fft's helpers) and, for a namespace written as a package of private modules
# (nn.functional's _FAMILY_MODULES), its modules' code read as globals are switched in those dicts, so their
# calls to each other are intercepted as calls through the namespace are (forward AD runs such composites on
# duals), each dict by one dict.update of its wrappers and back by one of its originals. Whether a plan still holds (no dict grew or shrank, no planned name rebound)
# is one itemgetter call per dict and a tuple comparison (identity first, in C).
_plans = {}  # module -> _Plan of the dicts its functions read globals from
_patched = []  # [_Plan] switched on, in installation order, while the dispatch is on
_switched = []  # [(module, its own class)] while the dispatch is on


def _holds(d, items):
    """Whether d binds each name of the dict items as it does (each entry found by identity or equality)."""
    try:
        return d.items() >= items.items()
    except Exception:  # noqa: BLE001  (a rebound value whose == raises, as a tensor's may: not planned)
        return False


class _Plan:
    """The module dicts of one namespace to switch: per dict its originals and wrappers by name, and an
    itemgetter of its names that reads them all in one C call, to check the plan by identity."""

    __slots__ = ("rows", "sizes")

    def __init__(self, rows):
        # [(dict, {name: original}, {name: wrapper}, getter, what getter reads planned, what it reads switched)]
        self.rows = []
        for d, originals, wrappers in rows:
            get = operator.itemgetter(*originals)
            self.rows.append((d, originals, wrappers, get, get(originals), get(wrappers)))
        self.sizes = [len(r[0]) for r in self.rows]

    @staticmethod
    def _binds(d, get, values):
        try:
            return get(d) == values
        except Exception:  # noqa: BLE001  (a name removed, or a rebound value whose == raises, as a tensor's may)
            return False

    def current(self):
        """Whether the dicts still bind what was planned (no name added, removed or rebound)."""
        if [len(r[0]) for r in self.rows] != self.sizes:
            return False
        return all(self._binds(d, get, planned) for d, _, _, get, planned, _ in self.rows)

    def install(self):
        for row in self.rows:
            row[0].update(row[2])

    def uninstall(self):
        for d, originals, wrappers, get, _, switched in self.rows:
            if self._binds(d, get, switched):
                d.update(originals)
                continue
            # a name the user rebound inside the extent keeps the user's object
            for name, wrapper in wrappers.items():
                if d.get(name) is wrapper:
                    d[name] = originals[name]


def _global_reads(mod):
    """The names that code defined in mod (its functions, their nested functions, its classes' methods) may
    read as globals."""
    d = vars(mod)
    names = set()

    def scan(code):
        names.update(code.co_names)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                scan(c)

    def visit(obj, depth=0):
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if isinstance(obj, types.FunctionType) and obj.__globals__ is d:
            scan(obj.__code__)
        elif isinstance(obj, type) and obj.__module__ == mod.__name__ and depth == 0:
            for v in list(vars(obj).values()):
                visit(v, 1)

    for obj in list(d.values()):
        visit(obj)
    return names


def _plan(mod, public):
    """The namespace's _Plan, made again when its dicts changed. Only the ops that the namespace's own code
    (and its family modules') reads as globals are planned, and only their wrappers made here: reads through
    the module attribute get theirs from the module class on first use, so the first entry does not wrap all
    ~800 functions (~1.5 ms)."""
    plan = _plans.get(mod)
    if plan is not None and plan.current():
        return plan
    mine = vars(mod)
    rows = []

    def row(d, names):
        if names:
            originals = {n: _candidate(n, mine[n]) for n in names}
            rows.append((d, originals, {n: _wrapper_for(public, n, o) for n, o in originals.items()}))

    # sorted: the same plan (and so the same dict order) whatever order the set of reads comes in
    row(mine, sorted(n for n in _global_reads(mod) if n in mine and _candidate(n, mine[n]) is not None))
    for home in getattr(mod, "_FAMILY_MODULES", ()):
        d = vars(home)
        # the names it binds to the namespace's own op (a wrapper is not planned there)
        names = [
            n for n in _global_reads(home) if n in mine and d.get(n) is _candidate(n, mine[n]) is not None
        ]
        row(d, sorted(names))
    plan = _plans[mod] = _Plan(rows)
    return plan


def _install():
    _overrides_cache.clear()
    _C._set_tensor_method_dispatch(True)
    for mod, public in _namespaces():
        plan = _plan(mod, public)
        _patched.append(plan)
        plan.install()
        _switched.append((mod, type(mod)))
        mod.__class__ = _dispatching_class(mod, public)


def _uninstall():
    _C._set_tensor_method_dispatch(False)
    while _switched:
        mod, cls = _switched.pop()
        mod.__class__ = cls
    while _patched:
        _patched.pop().uninstall()


# Tensor methods -------------------------------------------------------------------------------------------
# A method called on a real tensor with an overriding argument (``buffer.add(proxy)``, ``mask.to(proxy)``,
# ``t[proxy]``) reaches the argument's __torch_function__ with func = the method, as PyTorch's C++ methods do:
# the methods look in C++ while the dispatch is on and call `_tensor_method_dispatch`; tensor_methods=True
# installs Python wrappers that also consult the modes. Operators need nothing: our binary operators return
# NotImplemented for a foreign operand, so Python asks its reflected method.
_method_depth = 0
_patched_methods = []  # [(name, original class attribute, wrapper)]
_METHOD_DUNDERS = ("__getitem__", "__setitem__")


def _make_method_wrapper(name, original):
    def method(self, *args, **kwargs):
        if _mode_stack() or _type_overrides(type(self)) or _any_overrides(args, kwargs):
            overloaded = _get_overloaded_args([self, *_relevant(args, kwargs)])
            return _dispatch(method, overloaded, (self, *args), kwargs, builtin_words=True)
        return original(self, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = getattr(original, "__doc__", None)
    method.__wrapped__ = original
    method._mt_original = original
    method._mt_tensor_method = name
    method._mt_public_name = f"torch.Tensor.{name}"
    return method


# (name, id(original)) -> (original, its wrapper), kept across extents as the functions' are (pybind11's
# instancemethod does not hash)
_method_wrappers = {}
_method_plan = [None, ()]  # [snapshot of vars(Tensor) when planned, ((name, original, wrapper), ...)]


def _method_wrapper(name, attr):
    hit = _method_wrappers.get((name, id(attr)))
    if hit is None or hit[0] is not attr:
        hit = _method_wrappers[name, id(attr)] = (attr, _make_method_wrapper(name, attr))
    return hit[1]


def _tensor_method_dispatch(name, args, kwargs):
    """What a Tensor method does, while the dispatch is on, with an argument that overrides (csrc/python/
    torch_function.cpp looks, as PyTorch's C++ methods do): ``w.mul(x)`` for a BatchedTensor x reaches x's
    __torch_function__ with func = Tensor.mul (the function tensor_methods=True installs)."""
    if (not _depth or _method_depth) and _handover.deferred(sys._getframe(1)):
        return NotImplemented  # as _builtin_function_dispatch's
    original = original_function(getattr(_C.Tensor, name))
    kwargs = kwargs or {}
    overloaded = _get_overloaded_args(_relevant(args, kwargs))
    return _dispatch(_method_wrapper(name, original), overloaded, args, kwargs, builtin_words=True)


def _type_ever_overrides(t):
    """_type_overrides whatever the torch function state (which the C++ look-up applies itself: it caches this
    per type)."""
    hit = _overrides_cache.get(t)
    if hit is None:
        hit = _overrides_cache[t] = _overriding(t)
    return hit != 0


_C._set_tensor_method_hooks(_tensor_method_dispatch, _type_ever_overrides)


def _python_function_answer(func, candidates, args, kwargs):
    """_argcheck's fallback for a Python-written torch function that a call holding tensor-likes made fail:
    their __torch_function__ answers (PyTorch's functions test for them before running)."""
    relevant = [v for v in candidates if _type_overrides(type(v))]
    if not relevant:
        return _argcheck._NO_ANSWER
    return handle_torch_function(func, relevant, *args, **kwargs)


_handover.handler = _python_function_answer

# Functions bound before the dispatch was switched on ---------------------------------------------------------
# `from torch import sin` or `act = torch.tanh` at import time binds the builtin itself, which the namespaces'
# wrappers never see. While the dispatch is on, a _C function called with an overriding argument hands the call
# here (csrc/python/arg_errors.cpp, by its pybind11 function record, the function's __self__): a function of the
# torch namespaces dispatches as its wrapper would, so `vmap(lambda x: sin(x))` and a module holding
# `self.act = torch.tanh` work under every transform, as PyTorch's C++ dispatch makes them.
_builtin_index = {}  # function record -> (PyTorch's namespace name, attribute name, builtin)
_builtin_misses = set()  # records looked up and not found since the last rebuild


def _index_builtins():
    _builtin_index.clear()
    _builtin_misses.clear()
    # the first namespace that holds a builtin names it (resolve_name's order)
    for mod, public in reversed(_namespaces()):
        for attr, original in _candidates(mod):
            # a pybind11 function's __self__ is its record, which the C++ dispatcher receives
            record = (
                getattr(original, "__self__", None) if type(original) is types.BuiltinFunctionType else None
            )
            if record is not None and not isinstance(record, types.ModuleType):
                _builtin_index[record] = (public, attr, original)


def _builtin_function_dispatch(record, args, kwargs):
    """A builtin of the torch namespaces called directly with an overriding argument while the dispatch is on:
    the call its dispatching wrapper would make; NotImplemented for any other _C function (it binds as usual)."""
    hit = _builtin_index.get(record)
    if hit is None:
        if record in _builtin_misses:
            return NotImplemented
        _index_builtins()  # namespaces gain functions (lazy submodules): look again once per new function
        hit = _builtin_index.get(record)
        if hit is None:
            _builtin_misses.add(record)
            return NotImplemented
    if (not _depth or _method_depth) and _handover.deferred(sys._getframe(1)):
        # called inside a public function that holds the tensor-like too: that function is handed the call (its
        # own handler, _handover.py), as PyTorch's test at its entry hands it. Outside an extent and while fx or
        # jit traces (whose handlers record, never run the function: vmap's decompose, and walking the stack at
        # each of their ops would cost)
        return NotImplemented
    public, attr, original = hit
    if original in _PYTHON_IN_PYTORCH:
        return NotImplemented  # its binding hands the call over itself (and a refusal it raised stands)
    kwargs = kwargs or {}
    overloaded = _get_overloaded_args(_relevant(args, kwargs))
    return _dispatch(_wrapper_for(public, attr, original), overloaded, args, kwargs, builtin_words=True)


_C._set_builtin_function_hook(_builtin_function_dispatch)

# Tensor subclasses outside the transforms ---------------------------------------------------------------
# PyTorch's Tensor defines __torch_function__ (Tensor.__torch_function__, installed by _tensor.py), so a call
# holding an instance of a subclass goes through the subclass's handler wherever it runs. Our bindings look for
# one only once such a subclass exists (csrc/python/torch_function.cpp) and hand the call here with the
# callable PyTorch's handler receives: the function itself (``torch.add``), the Tensor method (``Tensor.add``,
# ``Tensor.__getitem__``; an operator as PyTorch names it: ``a + b`` is Tensor.add, ``a += b`` Tensor.add_)
# or a property's getter (``Tensor.T.__get__``).
_OPERATOR_METHODS = {
    "__add__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_", "__mul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__itruediv__": "div_", "__eq__": "eq", "__ne__": "ne",
    "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__neg__": "neg", "__abs__": "abs",
    "__pos__": "positive", "__matmul__": "matmul", "__str__": "__repr__",
}  # fmt: skip
_UNARY_OPERATORS = frozenset((
    "__neg__", "__pos__", "__abs__", "__invert__", "__bool__", "__float__", "__int__", "__index__", "__len__",
    "__complex__", "__contains__",
))  # fmt: skip
# the Tensor methods PyTorch runs past the protocol (its get_ignored_functions): as_subclass is how handlers
# make their results
_NOT_DISPATCHED = frozenset(("as_subclass", "_make_subclass"))
_SUBCLASS_METHOD, _SUBCLASS_FUNCTION, _SUBCLASS_OPERATOR, _SUBCLASS_GETTER = range(4)
_plain_method_types = {}  # type -> whether its __torch_function__ is a plain method (warned about once)


_c_builtins = {}  # function record -> a _C builtin outside the torch namespaces, filled once


def _index_c_builtins():
    for mod in (_C, *(v for v in vars(_C).values() if isinstance(v, types.ModuleType))):
        for name, fn in list(vars(mod).items()):
            record = getattr(fn, "__self__", None) if type(fn) is types.BuiltinFunctionType else None
            if record is not None and not isinstance(record, types.ModuleType) and name not in _PROTOCOL:
                _c_builtins.setdefault(record, fn)


# _C's functions of the protocol itself, which hand tensors on without being ops
_PROTOCOL = frozenset(("_disabled_torch_function_impl", "_set_subclass_hooks", "_set_tensor_method_hooks"))


def _function_of(record):
    """The builtin a call reached by its pybind11 record: the torch namespaces' (``torch.add``), else _C's own
    (a helper that a function written in Python calls: its result too goes back as the subclass); None for
    the protocol's own."""
    hit = _builtin_index.get(record)
    if hit is None and record not in _builtin_misses:
        _index_builtins()
        hit = _builtin_index.get(record)
        if hit is None:
            _builtin_misses.add(record)
    if hit is not None:
        return hit[2]
    if not _c_builtins:
        _index_c_builtins()
    return _c_builtins.get(record)


def _warn_plain_method(overloaded):
    for arg in overloaded:
        t = type(arg)
        if t in _plain_method_types:
            continue
        impl = next(
            (vars(k)["__torch_function__"] for k in t.__mro__ if "__torch_function__" in vars(k)), None
        )
        plain = _plain_method_types[t] = isinstance(impl, types.FunctionType)
        if plain:
            warnings.warn(
                "Defining your `__torch_function__` as a plain method is deprecated and will be an error in "
                "future, please define it as a classmethod.",
                UserWarning,
                stacklevel=4,
            )


def _subclass_dispatch(kind, key, args, kwargs):
    """A call that holds an instance of a Tensor subclass, from the bindings: its handlers' answer (for an
    operator NotImplemented when all refuse, so that Python raises its TypeError); NotImplemented for a
    function we cannot name (it binds as usual)."""
    if _handover.deferred_subclass(sys._getframe(1)):
        # an op inside a public function written in Python that holds the instance too: that function's
        # handler answers, handed ``F.relu`` rather than the ``torch.relu`` it runs (_handover.py)
        raise _handover.HandOver
    cls = _C.Tensor
    if kind == _SUBCLASS_FUNCTION:
        func = _function_of(key)
        if func is None:
            return NotImplemented
    elif kind == _SUBCLASS_GETTER:
        func = vars(cls)[key].__get__
    elif key in _NOT_DISPATCHED:
        return NotImplemented
    else:
        func = getattr(cls, _OPERATOR_METHODS.get(key, key))
    overloaded = _get_overloaded_args(_relevant(args, kwargs or {}))
    _warn_plain_method(overloaded)
    if kind != _SUBCLASS_OPERATOR:
        return _dispatch(func, overloaded, args, kwargs, builtin_words=True)
    types_ = tuple(type(a) for a in overloaded)
    try:
        for arg in overloaded:
            result = arg.__torch_function__(func, types_, args, kwargs or None)
            if result is not NotImplemented:
                return result
    except TypeError:
        # PyTorch's binary operators answer NotImplemented for a TypeError (``a == None`` is False)
        if key in _UNARY_OPERATORS:
            raise
    return NotImplemented


_C._set_subclass_hooks(_subclass_dispatch, _subclass_overrides)


def get_default_nowrap_functions():
    """The Tensor attributes whose results Tensor.__torch_function__ hands back as they are, not converted to
    the subclass (PyTorch's: the getters of _base, grad and _grad)."""
    d = vars(_C.Tensor)
    return {d[name].__get__ for name in ("_base", "grad", "_grad") if name in d}


def _install_methods():
    cls = _C.Tensor
    snapshot, plan = _method_plan
    if snapshot is None or len(vars(cls)) != len(snapshot) or not _holds(vars(cls), snapshot):
        rows = []
        for name, attr in list(vars(cls).items()):
            if name.startswith("_") and name not in _METHOD_DUNDERS:
                continue
            if type(attr).__name__ not in (
                "instancemethod",
                "function",
                "builtin_function_or_method",
                "method_descriptor",  # the C methods of bind_tensor.cpp's fast tables
                "_TensorMethod",
            ):
                continue
            rows.append((name, attr, _method_wrapper(name, attr)))
        snapshot, plan = _method_plan[:] = dict(vars(cls)), tuple(rows)
    for row in plan:
        _patched_methods.append(row)
        setattr(cls, row[0], row[2])


def _uninstall_methods():
    cls = _C.Tensor
    while _patched_methods:
        name, original, wrapper = _patched_methods.pop()
        if vars(cls).get(name) is wrapper:
            setattr(cls, name, original)


class enable_torch_function_dispatch(contextlib.ContextDecorator):
    """Switches the __torch_function__ dispatch on for the torch namespaces (see the module docstring).

    Re-entrant and counted across threads: the first entry installs the wrappers, the last exit restores the
    original functions, also when the body raised. Tensor methods called on real tensors with an overriding
    argument (``t.add(x)``, ``t[i]``) dispatch while it is on; tensor_methods=True also hands them to an
    active mode when none overrides (counted separately: fx and jit tracing ask for it, vmap need not pay for
    the Python wrappers it installs)."""

    def __init__(self, tensor_methods=False):
        self.tensor_methods = tensor_methods

    def __enter__(self):
        global _depth, _method_depth
        with _state_lock:
            if _depth == 0:
                try:
                    _install()
                except BaseException:
                    _uninstall()
                    raise
            _depth += 1
            if self.tensor_methods:
                if _method_depth == 0:
                    try:
                        _install_methods()
                    except BaseException:
                        _uninstall_methods()
                        raise
                _method_depth += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        global _depth, _method_depth
        with _state_lock:
            if self.tensor_methods:
                _method_depth -= 1
                if _method_depth == 0:
                    _uninstall_methods()
            _depth -= 1
            if _depth == 0:
                _uninstall()
        return False


def is_torch_function_dispatch_enabled():
    """Whether the torch namespaces currently hold the dispatching wrappers."""
    return _depth > 0


def is_tensor_method(fn):
    """The method name when fn is a dispatching Tensor method (tensor_methods=True), else None."""
    return getattr(fn, "_mt_tensor_method", None)


def original_function(fn):
    """The function a dispatching wrapper stands for (fn itself when it is not one)."""
    return getattr(fn, "_mt_original", fn)


_name_index = {}  # id(original) -> (name, original)
_name_misses = {}  # id(f) -> f: functions looked up and not found since the last rebuild


def resolve_name(f):
    """PyTorch's dotted name for a function of the torch namespaces ("torch.nn.functional.relu"), or None.
    A wrapper names the namespace it was installed in; an original, the first namespace that holds it."""
    name = getattr(f, "_mt_public_name", None)
    if name is not None:
        return name
    f = original_function(f)
    hit = _name_index.get(id(f))
    if hit is not None and hit[1] is f:
        return hit[0]
    attr = getattr(f, "__name__", None)
    if type(attr) is str and getattr(_C.Tensor, attr, None) is f:  # a Tensor method, as the class gives it
        return f"torch.Tensor.{attr}"
    if _name_misses.get(id(f)) is f:
        return None
    # namespaces gain functions (lazy submodules, user additions): rebuild once per new miss, and forget the
    # misses when the rebuild found something new
    before = set(_name_index)
    _name_index.clear()
    for mod, public in reversed(_namespaces()):
        for attr, original in _candidates(mod):
            _name_index[id(original)] = (f"{public}.{attr}", original)
    if set(_name_index) != before:
        _name_misses.clear()
    hit = _name_index.get(id(f))
    if hit is not None and hit[1] is f:
        return hit[0]
    _name_misses[id(f)] = f
    return None


def get_overridable_functions():
    """{namespace module: [functions]}: what the dispatch intercepts while it is on (the original functions)."""
    return {mod: [fn for _, fn in _candidates(mod)] for mod, _ in _namespaces()}


def get_ignored_functions():
    """The functions of the torch namespaces the dispatch never intercepts (settings and predicates)."""
    out = set()
    for mod, _ in _namespaces():
        for name in _IGNORED:
            fn = vars(mod).get(name)
            if callable(fn) and not isinstance(fn, type):
                out.add(original_function(fn))
    return out


class TorchFunctionMode:
    """Overrides every intercepted torch function within a ``with`` block, whatever the arguments (as
    PyTorch's): ``__torch_function__(self, func, types, args, kwargs)`` receives each call. Calls made inside
    the handler go to the next mode down (the current one is popped while it runs). Entering a mode switches
    the dispatch on for its extent; modes are per thread."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    # a user's mode sees Tensor methods too (t.add(u), t.sum(), t[0]), as PyTorch's; vmap's randomness mode
    # answers only torch functions and does without the method wrappers' cost
    _mt_tensor_methods = True

    def __enter__(self):
        self._mt_dispatch = enable_torch_function_dispatch(tensor_methods=self._mt_tensor_methods)
        self._mt_dispatch.__enter__()
        _mode_stack().append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        stack = _mode_stack()
        if stack and stack[-1] is self:
            stack.pop()
        self._mt_dispatch.__exit__(exc_type, exc, tb)
        return False


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs each function unchanged (a base for modes that only observe)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _get_current_function_mode():
    stack = _mode_stack()
    return stack[-1] if stack else None


def _is_torch_function_mode_enabled():
    return bool(_mode_stack())
