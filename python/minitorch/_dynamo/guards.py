"""Guards on the Python values a captured graph bakes in: globals, closure cells and attributes of plain objects.

A capture runs the callable on real values, so ``x * G[0]``, ``if FLAG:`` or ``x * cfg.scale`` put the value
read at capture time into the graph as a constant. Dynamo guards on those reads (ID_MATCH, EQUALS_MATCH,
TYPE_MATCH on globals, closure cells and attributes of non-module objects) and recompiles when they change;
here the names the callable's code reads are found in its bytecode before the capture (``sources``), their
values are remembered then, as the call found them (what the capture changes is replayed on each call:
side_effects.py), and each call of a cached graph first checks them (``Guard.holds``).

What is checked: numbers, strings, bools and None by type and ``==``; lists, tuples, dicts and sets of
guardable values by their contents (a deep copy, up to ``_BUDGET`` values; a bigger container by a shallow
copy compared with ``==``); a tensor (not a parameter) by its sizes, strides, dtype, device and requires_grad,
as Dynamo: it is a graph input (``Guard.lifted``, read again at each call by ``Guard.values``), so a state
tensor replaced on every call (``self.h = f(self.h, x)``, ``S["h"] = S["h"] + x``, a class attribute) keeps its
graph; a tensor in a container that the graph holds as a constant (read by a computed key) by identity
(``Guard.tighten``); every other object by identity. Chains have attribute steps and constant-subscript steps
(``Item``). A call of a C method whose changes the side-effect tracker cannot record (an array.array's, a
file's: ``Guard.traps``) makes the caller break the graph at that statement, as Dynamo breaks at a C function it
does not know, rather than make the change once at capture. Attributes are read only where reading runs no
code (the instance ``__dict__`` or a plain class attribute, no property), so checking a guard has no side
effects. What differs from Dynamo: the reads are found statically in the code of the callable and of the user
functions and submodules reached through its globals, cells and attributes (a function passed as an argument
is not looked into), so a name read on a branch not taken is guarded too (a change there recompiles
needlessly), and Python modules of minitorch and the standard library are not guarded."""

import collections
import dis
import inspect
import math
import sys
import types

__all__ = ["Guard", "Item", "number_sources", "source_key", "sources", "step"]

_MISSING = object()
_SCALARS = (bool, int, float, complex, str, bytes, type(None))
_BUDGET = 64  # values compared one by one; past that a container is compared shallowly
_SKIP_MODULES = frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins", "minitorch", "torch"}


def _skipped_module(value):
    if not isinstance(value, types.ModuleType):
        return False
    root = value.__name__.partition(".")[0]
    return root in _SKIP_MODULES


def _root_expr(c, i, scope, global_get):
    """The generated code's expression for where check c's value starts (an argument, a global, a cell, a
    constant), its root and key bound in scope as R{i}/K{i}; global_get is the global's read ({i} filled in):
    the guard's tolerates a missing name, the lifted values' does not."""
    scope[f"R{i}"], scope[f"K{i}"] = c.root, (c.key[1] if isinstance(c.key, tuple) else c.key)
    if c.kind == "global":
        return global_get.format(i=i)
    if c.kind == "cell":
        return f"R{i}.cell_contents"
    if c.kind == "const":
        return f"R{i}"
    if c.key[0] == "pos":
        return f"args[{c.key[1]}]"
    return f"kwargs[K{i}]"


class Item(tuple):
    """A subscript step of a guarded chain (``S["h"]``, ``self.state["h"]``, ``self.layers[0]``): Item((key,)),
    told from an attribute name (a str) by its type."""

    __slots__ = ()

    def __str__(self):
        return str(self[0])


def _item(obj, key):
    """obj[key] for a dict, list or tuple (the exact types: reading one runs no code), else _MISSING."""
    t = type(obj)
    if t is dict:
        return obj.get(key, _MISSING)
    if (t is list or t is tuple) and type(key) is int and -len(obj) <= key < len(obj):
        return obj[key]
    return _MISSING


def step(obj, a):
    """One step of a chain: an attribute read where it runs no code (static_attr) or an Item's subscript."""
    return _item(obj, a[0]) if type(a) is Item else static_attr(obj, a)


def static_attr(obj, name):
    """obj.name where reading it runs no code (the instance __dict__, a plain class attribute), else _MISSING."""
    cls = type(obj)
    if isinstance(obj, type):
        for klass in obj.__mro__:
            if name in klass.__dict__:
                v = klass.__dict__[name]
                return _MISSING if hasattr(type(v), "__get__") else v
        return _MISSING
    if cls.__getattribute__ is not object.__getattribute__ and not isinstance(
        obj, (types.ModuleType, _module_cls())
    ):
        return _MISSING  # a __getattribute__ of its own computes what it returns
    class_attr = _MISSING
    for klass in cls.__mro__:
        if name in klass.__dict__:
            class_attr = klass.__dict__[name]
            break
    descriptor = type(class_attr)
    if class_attr is not _MISSING and (hasattr(descriptor, "__set__") or hasattr(descriptor, "__delete__")):
        return _MISSING  # a property, a slot: reading it runs code
    d = getattr(obj, "__dict__", None)
    if type(d) is dict:
        if name in d:
            return d[name]
        if isinstance(obj, _module_cls()):
            # what Module.__getattr__ returns (a submodule, a parameter, a buffer, or None set in their place)
            for store in ("_parameters", "_buffers", "_modules"):
                values = d.get(store)
                if values is not None and name in values:
                    return values[name]
    if class_attr is _MISSING or hasattr(descriptor, "__get__"):
        return _MISSING  # a method, or absent
    return class_attr


_MODULE_CLS = []


def _module_cls():
    if not _MODULE_CLS:
        from minitorch.nn.modules.module import Module

        _MODULE_CLS.append(Module)
    return _MODULE_CLS[0]


def _chains(code, freevars_top, params):
    """(root kind, root name, attribute names) for every global, closure cell and parameter the code reads,
    with the attributes read from it right after (``G``, ``cfg.scale``, ``self.opts.flag``)."""
    out = set()
    instrs = list(dis.get_instructions(code))
    stored = {i.argval for i in instrs if i.opname in ("STORE_FAST", "DELETE_FAST")}
    i = 0
    while i < len(instrs):
        ins = instrs[i]
        root = None
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            root = ("global", ins.argval)
        elif ins.opname in ("LOAD_DEREF", "LOAD_CLASSDEREF") and ins.argval in freevars_top:
            root = ("cell", ins.argval)
        elif ins.opname == "LOAD_FAST" and ins.argval in params and ins.argval not in stored:
            root = ("arg", ins.argval)
        if root is None:
            i += 1
            continue
        attrs = []
        j = i + 1
        while j < len(instrs):
            op = instrs[j].opname
            if op == "LOAD_ATTR":
                attrs.append(instrs[j].argval)
                j += 1
            elif (
                op == "LOAD_CONST"
                and type(instrs[j].argval) in (str, int)
                and j + 1 < len(instrs)
                and instrs[j + 1].opname == "BINARY_SUBSCR"
            ):
                # `S["h"]`, `self.state["h"]`: a constant subscript, a step of the chain as Dynamo's GetItemSource
                attrs.append(Item((instrs[j].argval,)))
                j += 2
            else:
                break
        if j < len(instrs) and instrs[j].opname == "LOAD_METHOD":
            # `self.block(x)` (3.11's method call): a submodule or a callable attribute, guarded as the value
            attrs.append(instrs[j].argval)
            j += 1
        out.add((root[0], root[1], tuple(attrs)))
        i = j
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            # a comprehension, lambda or inner function: its globals are the same, its parameters its own
            out |= {c for c in _chains(const, (), ()) if c[0] == "global"}
    return out


class _Check:
    """One guarded value: how to read it again (a root and attributes) and what it was. lift: a tensor the
    graph takes as an input (read again at each call), not a constant."""

    __slots__ = ("attrs", "home", "key", "kind", "lift", "root", "snap", "start")

    def __init__(self, kind, root, key, attrs, snap, start=None, lift=False, home=None):
        self.lift = lift
        self.home = home  # the class whose __dict__ holds a lifted class attribute (install writes there)
        self.start = start  # the root's value at the capture (where its attributes were found)
        self.kind = kind  # "global": root is the globals dict, "cell", "arg": key indexes args or kwargs
        self.root = root
        self.key = key
        self.attrs = attrs
        self.snap = snap


def _freeze(v, budget):
    """What v is compared against later: (tag, ...) with the contents of containers of guardable values."""
    t = type(v)
    if t in _SCALARS:
        return ("nan",) if t is float and math.isnan(v) else ("eq", t, v)
    if t in (list, tuple, dict, set, frozenset):
        budget[0] -= len(v)
        if budget[0] < 0:
            return ("shallow", v, t, dict(v) if t is dict else t(v))
        if t is dict:
            return ("dict", t, tuple(v), tuple(_freeze(x, budget) for x in v.values()))
        if t in (set, frozenset):
            return ("shallow", v, t, t(v))
        return ("seq", t, tuple(_freeze(x, budget) for x in v))
    if _is_tensor(v):
        # a tensor in a container: any tensor of its metadata will do unless the graph holds this one as a
        # constant (Guard.tighten, after the capture); one read by a constant subscript is lifted (_loosen)
        return ("tensorval", v, _tensor_meta(v))
    return ("is", v)


def _same(v, snap):
    tag = snap[0]
    if tag == "is":
        return v is snap[1]
    if tag == "eq":
        return type(v) is snap[1] and v == snap[2]
    if tag == "seq":
        items = snap[2]
        if type(v) is not snap[1] or len(v) != len(items):
            return False
        for x, s in zip(v, items):
            if not _same(x, s):
                return False
        return True
    if tag == "dict":
        if type(v) is not dict or len(v) != len(snap[2]):
            return False
        for k, s in zip(snap[2], snap[3]):
            x = v.get(k, _MISSING)
            if x is _MISSING or not _same(x, s):
                return False
        return tuple(v) == snap[2]
    if tag == "nan":
        return type(v) is float and math.isnan(v)
    if tag == "tensor":
        return _is_tensor(v) and _tensor_meta(v) == snap[1]
    if tag == "tensorval":
        return v is snap[1] or (_is_tensor(v) and _tensor_meta(v) == snap[2])
    if tag == "type":
        return type(v) is snap[1]
    # shallow: the same container holding the same (==) items
    return v is snap[1] and type(v) is snap[2] and v == snap[3]


def _tensor_meta(t):
    return (t.shape, t.stride(), t.dtype, t.device, t.requires_grad, type(t))


def _tensor_check(kind, root, key, path, value, start, parent):
    """The check of a tensor the code reads from a global, a closure cell or an attribute: as Dynamo, a graph
    input guarded on its sizes, strides, dtype, device and requires_grad, not on its identity (a state tensor
    replaced each call, ``self.h = self.h * a + x``, reuses the graph). A parameter stays guarded by identity
    (the graph reads it as an attribute); a buffer is read live too (get_attr), so only its metadata is; a
    class attribute is lifted too (swapped in its class's __dict__ at capture), and so is an item of a dict or
    list (``S["h"]``); an item of a tuple (which cannot be swapped) stays a constant, guarded by identity."""
    from minitorch.nn.parameter import Parameter

    meta = ("tensor", _tensor_meta(value))
    if isinstance(value, Parameter):
        return _Check(kind, root, key, path, ("is", value), start)
    if not path:
        return _Check(kind, root, key, path, meta, start, lift=True)
    if type(path[-1]) is Item:
        lift = type(parent) in (dict, list)
        return _Check(kind, root, key, path, meta if lift else ("is", value), start, lift=lift)
    d = object.__getattribute__(parent, "__dict__") if isinstance(parent, _module_cls()) else None
    if d is None and type(parent).__getattribute__ is object.__getattribute__:
        d = getattr(parent, "__dict__", None)
    if type(d) is dict and d.get(path[-1], _MISSING) is value:
        # an instance attribute: swapped for the traced input at capture
        return _Check(kind, root, key, path, meta, start, lift=True)
    if type(d) is dict and isinstance(parent, _module_cls()) and d.get("_buffers", {}).get(path[-1]) is value:
        return _Check(kind, root, key, path, meta, start)
    # a class attribute (of the object's class, or of a class read as the value): lifted where the class holds it
    for klass in (parent if isinstance(parent, type) else type(parent)).__mro__:
        if path[-1] in klass.__dict__:
            if klass.__dict__[path[-1]] is value:
                return _Check(kind, root, key, path, meta, start, lift=True, home=klass)
            break
    return _Check(kind, root, key, path, ("is", value), start)


def _guardable(value):
    if _skipped_module(value):
        return False
    mod = getattr(value, "__module__", None) if isinstance(value, (types.FunctionType, type)) else None
    if isinstance(mod, str) and mod.partition(".")[0] in _SKIP_MODULES:
        return False
    if isinstance(value, types.BuiltinFunctionType):
        # a builtin method bound to an object (``app = log.append``) is guarded by identity: the side-effect
        # tracker records its owner (side_effects.py); a function of a module is not guarded
        owner = getattr(value, "__self__", None)
        return owner is not None and not isinstance(owner, (types.ModuleType, type))
    return True


def sources(fn, args, kwargs, stores=None, reads=None):
    """The Guard of fn(*args, **kwargs) before its capture: the values its code reads from globals, closure
    cells and attributes of objects, and those read by the user functions and submodules it reaches that way
    (a helper function that is a global, a submodule's forward), None when there are none. fn: a function, a
    bound method or a Module. stores: a list that gets ("global", globals, name) and ("cell", cell, None) for
    each global and closure variable the code assigns (side_effects.py records them). reads: a set that gets
    every attribute name that code may read (names_read)."""
    checks, traps = [], []
    _collect(fn, args, kwargs, checks, 0, set(), stores, traps, reads)
    if not checks:
        return None
    _loosen_containers(checks)
    guard = Guard(checks)
    guard.traps = traps
    return guard


def _loosen_containers(checks):
    """A dict or list whose tensor item is lifted (its own check guards the item's metadata): the container's
    check takes any tensor of that metadata there, not only the capture's (``S["h"] = S["h"] + x`` reuses the
    graph)."""
    by_path = {}
    for c in checks:  # a root read by several chains has a check per chain (Guard keeps one)
        by_path.setdefault((c.kind, id(c.root), c.key, c.attrs), []).append(c)
    for c in checks:
        if not (c.lift and c.attrs and type(c.attrs[-1]) is Item):
            continue
        for parent in by_path.get((c.kind, id(c.root), c.key, c.attrs[:-1]), ()):
            _loosen(parent, c.attrs[-1][0], c.snap)


def _loosen(parent, k, item_snap):
    snap = parent.snap
    if snap[0] == "dict" and k in snap[2]:
        i = snap[2].index(k)
        parent.snap = (*snap[:3], snap[3][:i] + (item_snap,) + snap[3][i + 1 :])
    elif snap[0] == "seq" and type(k) is int:
        i = k % len(snap[2])
        parent.snap = (*snap[:2], snap[2][:i] + (item_snap,) + snap[2][i + 1 :])


ALL_NAMES = "*"  # in a reads set: the code may read any attribute (vars(), getattr with a computed name...)
_READS_ANY = frozenset({"vars", "dir", "getattr", "hasattr", "delattr", "__dict__", "__getattribute__"})


def names_read(code, out):
    """Adds to out the attribute names code (and the code nested in it) may read: every attribute loaded and
    every string constant, but the name a ``setattr(obj, "name", v)`` writes; ALL_NAMES where a name is read
    that no constant shows (``vars(o)``, ``getattr(o, name)``, ``o.__dict__``)."""
    instrs = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "PRECALL", "PUSH_NULL")]
    for i, ins in enumerate(instrs):
        op = ins.opname
        if op in ("LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL", "LOAD_NAME"):
            if ins.argval in _READS_ANY:
                out.add(ALL_NAMES)
            if op in ("LOAD_ATTR", "LOAD_METHOD"):
                out.add(ins.argval)
        elif op == "LOAD_CONST" and type(ins.argval) is str:
            # setattr's name: LOAD_GLOBAL setattr, the object (one load and its attribute steps), the name
            j = i - 1
            while j > 0 and instrs[j].opname == "LOAD_ATTR":
                j -= 1
            if not (
                j >= 1
                and instrs[j].opname in ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME")
                and instrs[j - 1].opname in ("LOAD_GLOBAL", "LOAD_NAME")
                and instrs[j - 1].argval == "setattr"
            ):
                out.add(ins.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names_read(const, out)


def _stores(code, g, cells, out):
    for ins in dis.get_instructions(code):
        if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL"):
            out.append(("global", g, ins.argval))
        elif ins.opname in ("STORE_DEREF", "DELETE_DEREF") and ins.argval in cells:
            out.append(("cell", cells[ins.argval], None))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _stores(const, g, {}, out)  # an inner function's `global` (its cells are its own)


_DEPTH = 4  # helper functions and submodules looked into, call depth


def _user_callable(value):
    """The function or module whose code a call of value runs, if it is the user's (not minitorch's)."""
    from minitorch.nn.modules.module import Module

    if getattr(value, "_torchdynamo_orig_callable", None) is not None:
        return None  # torch.compiler.disable / allow_in_graph: it runs at each call, reading its values then
    if isinstance(value, (types.FunctionType, types.MethodType)):
        func = value.__func__ if isinstance(value, types.MethodType) else value
        mod = getattr(func, "__module__", None) or ""
    elif isinstance(value, Module):
        mod = type(value).__module__ or ""
    else:
        return None
    return None if mod.partition(".")[0] in _SKIP_MODULES else value


_C_METHODS = (
    types.MethodDescriptorType,
    types.BuiltinFunctionType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
)
_IMMUTABLE = (tuple, frozenset, range, slice, memoryview)


# containers recorded by their base's kind (a deque is a list here: indexable, written whole with clear/extend);
# side_effects.py records them, the C-method check below leaves them to it
_CONTAINER_KINDS = ((list, "list"), (collections.deque, "list"), (dict, "dict"), (set, "set"))


def _container_kind(value):
    """ "list", "dict" or "set" for a container (a subclass, a deque too: Counter.update, deque.append and
    OrderedDict writes are seen as list.append's are), else None."""
    for cls, kind in _CONTAINER_KINDS:
        if isinstance(value, cls):
            return kind
    return None


def _opaque_call(obj, name):
    """Whether obj.name(...) is a method written in C that can change state the side-effect tracker does not
    record: a deque's, list's or dict's is recorded (side_effects.py), a tensor's or a module's is traced, an
    immutable value's changes nothing; an array.array's, a file's, a random.Random's are opaque."""
    if obj is _MISSING or isinstance(obj, _SCALARS + _IMMUTABLE) or _is_tensor(obj) or _skipped_module(obj):
        return False
    if isinstance(obj, (types.ModuleType, type, types.FunctionType, types.MethodType, _module_cls())):
        return False
    if _container_kind(obj) is not None or not isinstance(name, str):
        return False
    if (type(obj).__module__ or "").partition(".")[0] in ("minitorch", "torch"):
        return False
    for klass in type(obj).__mro__:
        if name in klass.__dict__:
            return klass is not object and isinstance(klass.__dict__[name], _C_METHODS)
    return False


def _method_name(obj, name):
    return f"method `{name}` of class `{type(obj).__name__}`"


def _opaque_bound(value):
    """A builtin method bound to an opaque object, held as a value (``write = f.write``)."""
    if not isinstance(value, types.BuiltinFunctionType):
        return False
    return _opaque_call(getattr(value, "__self__", _MISSING), value.__name__)


def _trap(code, name, loads, traps, owner):
    """Records where code calls an opaque C method (the first load of name): its call's position, for the
    graph break at that statement (Dynamo breaks at a call of a C function it does not know)."""
    instrs = list(dis.get_instructions(code))
    lines = sorted(dis.findlinestarts(code))
    for i, ins in enumerate(instrs):
        if ins.opname not in loads or ins.argval != name:
            continue
        at = ins
        for nxt in instrs[i + 1 : i + 8]:
            if nxt.opname in ("CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW", "CALL_KW"):
                at = nxt
                break
        pos = getattr(at, "positions", None)
        if pos is not None and None not in (pos.lineno, pos.end_lineno, pos.col_offset, pos.end_col_offset):
            traps.append((code, pos.lineno, pos.end_lineno, pos.col_offset, pos.end_col_offset, owner))
        else:
            line = max((ln for off, ln in lines if off <= ins.offset and ln is not None), default=None)
            if line is not None:
                traps.append((code, line, None, None, None, owner))
        return


def _collect(fn, args, kwargs, checks, depth, seen, stores=None, traps=None, reads=None):
    from minitorch.nn.modules.module import Module

    bound_self = _MISSING
    target = fn
    if isinstance(fn, Module):
        bound_self, target = fn, type(fn).forward
    elif isinstance(fn, types.MethodType):
        bound_self, target = fn.__self__, fn.__func__
    target = inspect.unwrap(target) if isinstance(target, types.FunctionType) else target
    if not isinstance(target, types.FunctionType):
        return
    key_seen = (id(target.__code__), id(bound_self))
    if key_seen in seen:
        return
    seen.add(key_seen)
    code = target.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    # where each parameter's value is found in a call: args[i] (positional) or kwargs[name]
    where = {}
    offset = 1 if bound_self is not _MISSING else 0
    for i, n in enumerate(names):
        if i < offset:
            continue
        if n in kwargs:
            where[n] = ("kw", n)
        elif i - offset < len(args) and i < code.co_argcount:
            where[n] = ("pos", i - offset)
    cells = dict(zip(code.co_freevars, target.__closure__ or ()))
    g = target.__globals__
    if stores is not None:
        _stores(code, g, cells, stores)
    if reads is not None:
        names_read(code, reads)
    reached = []
    for kind, name, attrs in sorted(_chains(code, frozenset(cells), frozenset(names)), key=repr):
        if kind == "global":
            value = g.get(name, _MISSING)
            if value is _MISSING:
                continue  # a builtin (or undefined): not guarded
            root, key = g, name
        elif kind == "cell":
            try:
                value = cells[name].cell_contents
            except ValueError:
                continue
            root, key = cells[name], None
        else:
            if offset and name == names[0]:
                value, root, key, kind = bound_self, bound_self, None, "const"
            elif name in where:
                key = where[name]
                value = args[key[1]] if key[0] == "pos" else kwargs[key[1]]
                root = None
            else:
                continue
        if not _guardable(value):
            continue
        if traps is not None and _opaque_bound(value):
            loads = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FAST")
            _trap(code, name, loads, traps, _method_name(value.__self__, value.__name__))
        # the root itself (an argument is already guarded by the cache key), then each attribute read after it
        path, start = [], value
        if kind != "arg" and kind != "const":
            if _is_tensor(value):
                checks.append(_tensor_check(kind, root, key, (), value, None, None))
            else:
                checks.append(_Check(kind, root, key, (), _freeze(value, [_BUDGET])))
            reached.append(value)
        for a in attrs:
            if isinstance(value, _SCALARS) or _is_tensor(value):
                break
            if kind == "arg" and not path and type(a) is Item:
                break  # an argument's lists, tuples and dicts are in the call's cache key already
            parent, value = value, step(value, a)
            if value is _MISSING or not _guardable(value):
                if traps is not None and value is _MISSING and _opaque_call(parent, a):
                    _trap(code, a, ("LOAD_METHOD", "LOAD_ATTR"), traps, _method_name(parent, a))
                break
            path.append(a)
            if traps is not None and _opaque_bound(value):
                _trap(
                    code, a, ("LOAD_METHOD", "LOAD_ATTR"), traps, _method_name(value.__self__, value.__name__)
                )
            if _is_tensor(value):
                checks.append(_tensor_check(kind, root, key, tuple(path), value, start, parent))
            elif type(a) is not Item:
                checks.append(_Check(kind, root, key, tuple(path), _freeze(value, [_BUDGET]), start))
            # (an item that is not a tensor is in its container's check already: the chain goes on past it)
            reached.append(value)
    if depth < _DEPTH:
        for value in reached:
            callee = _user_callable(value)
            if callee is not None:
                _collect(callee, (), {}, checks, depth + 1, seen, stores, traps, reads)
    elif reads is not None and any(_user_callable(v) is not None for v in reached):
        reads.add(ALL_NAMES)  # code past the depth looked into: what it reads is not known


def _is_tensor(v):
    from minitorch import _C

    return isinstance(v, _C.Tensor)


def source_key(c):
    """Where check c reads its value, the same for the checks of later captures of one callable."""
    return (c.kind, id(c.root), c.key, c.attrs)


def number_sources(guard, stores):
    """(key, value) of the numbers the code reads that Dynamo makes symbolic once they change (automatic
    dynamic): ints and floats in closure cells, floats in globals. An int global, a global the code assigns
    and attributes of objects stay constants, as in Dynamo (PyTorch 2.15's counts)."""
    stored = {(id(g), name) for kind, g, name in stores if kind == "global"}
    out = []
    for c in guard.checks if guard is not None else ():
        if c.attrs or c.kind not in ("global", "cell") or c.snap[0] != "eq" or c.snap[1] not in (int, float):
            continue
        if c.kind == "global" and ((id(c.root), c.key) in stored or c.snap[1] is int):
            continue
        out.append((source_key(c), c.snap[2]))
    return out


def _tensor_cls():
    from minitorch import _C

    return _C.Tensor


class Guard:
    """The checks of one captured graph (see the module docstring). lifted: the checks of the tensors the
    graph takes as inputs after the call's own (``values`` reads them for a call)."""

    # traps: (code, lineno, end_lineno, col, end_col, what) of each call of an opaque C method (_opaque_call)
    __slots__ = ("checks", "fast", "lifted", "traps", "values")

    def __init__(self, checks):
        # duplicates (a name read twice) checked once
        seen, unique = set(), []
        for c in checks:
            k = (c.kind, id(c.root), c.key, c.attrs)
            if k not in seen:
                seen.add(k)
                unique.append(c)
        self.checks = unique
        self.traps = []
        self._regenerate()

    def _regenerate(self):
        self.lifted = [c for c in self.checks if c.lift]
        self.fast = self._generate()
        self.values = self._generate_values() if self.lifted else None

    def tighten(self, baked):
        """After the capture: a tensor in a guarded container that the graph holds as a constant (its id in
        baked) must stay that very tensor."""

        def walk(snap):
            tag = snap[0]
            if tag == "tensorval":
                return ("is", snap[1]) if id(snap[1]) in baked else snap
            if tag == "seq":
                return (*snap[:2], tuple(walk(x) for x in snap[2]))
            if tag == "dict":
                return (*snap[:3], tuple(walk(x) for x in snap[3]))
            return snap

        changed = False
        for c in self.checks:
            new = walk(c.snap)
            if new != c.snap:
                c.snap, changed = new, True
        if changed:
            self._regenerate()

    def lift_numbers(self, keys):
        """The numbers at these source keys become graph inputs guarded on their type (automatic dynamic)."""
        for c in self.checks:
            if source_key(c) in keys and c.snap[0] == "eq":
                c.snap = ("type", c.snap[1])
                c.lift = True
        self._regenerate()

    def _generate(self):
        """holds() as one generated function with every check inlined (a call pays a few dict reads and
        compares, as Dynamo's guard code); anything unusual (an attribute not in the instance __dict__, an
        empty cell, a missing argument) goes to holds() itself."""
        scope = {"M": _MISSING, "same": _same, "attr": static_attr}
        lines = ["def check(args, kwargs):", "    try:"]
        for i, c in enumerate(self.checks):
            get = _root_expr(c, i, scope, "R{i}.get(K{i}, M)")
            lines.append(f"        v = {get}")
            now = c.start
            for j, a in enumerate(c.attrs):
                if type(a) is Item:
                    # a dict's or list's item (its container's type is checked by the step before)
                    scope[f"A{i}_{j}"] = a[0]
                    lines.append(f"        v = v[A{i}_{j}]")
                    now = _item(now, a[0]) if now is not _MISSING else _MISSING
                    continue
                scope[f"A{i}_{j}"] = a
                d = getattr(now, "__dict__", None)
                if type(d) is dict and a in d:
                    lines.append(f"        v = v.__dict__[A{i}_{j}]")
                else:  # a class attribute, a submodule...: where static_attr finds it
                    lines.append(f"        v = attr(v, A{i}_{j})")
                now = static_attr(now, a) if now is not _MISSING else _MISSING
            snap = c.snap
            if snap[0] == "type":
                scope[f"T{i}"] = snap[1]
                test = f"type(v) is T{i}"
            elif snap[0] == "tensor":
                scope[f"S{i}"], scope["TENSOR"], scope["meta"] = snap[1], _tensor_cls(), _tensor_meta
                test = f"isinstance(v, TENSOR) and meta(v) == S{i}"
            elif snap[0] == "is":
                scope[f"S{i}"] = snap[1]
                test = f"v is S{i}"
            elif snap[0] == "eq":
                scope[f"T{i}"], scope[f"S{i}"] = snap[1], snap[2]
                test = f"type(v) is T{i} and v == S{i}"
            else:
                scope[f"S{i}"] = snap
                test = f"same(v, S{i})"
            lines.append(f"        if not ({test}):")
            lines.append("            return False")
        lines += ["    except Exception:", "        return slow(args, kwargs)", "    return True"]
        scope["slow"] = self.holds
        exec(compile("\n".join(lines) + "\n", "<torch.compile guards>", "exec"), scope)  # noqa: S102
        return scope["check"]

    def _generate_values(self):
        """values(args, kwargs): the lifted tensors of a call, read as the generated check reads them."""
        lines = ["def values(args, kwargs):", "    try:", "        return ["]
        scope = {"attr": static_attr}
        for i, c in enumerate(self.lifted):
            get = _root_expr(c, i, scope, "R{i}[K{i}]")
            for j, a in enumerate(c.attrs):
                if type(a) is Item:
                    scope[f"A{i}_{j}"] = a[0]
                    get = f"{get}[A{i}_{j}]"
                    continue
                scope[f"A{i}_{j}"] = a
                get = f"attr({get}, A{i}_{j})"
            lines.append(f"            {get},")
        lines += ["        ]", "    except Exception:", "        return slow(args, kwargs)"]
        scope["slow"] = lambda args, kwargs: [self.read(c, args, kwargs) for c in self.lifted]
        exec(compile("\n".join(lines) + "\n", "<torch.compile guards>", "exec"), scope)  # noqa: S102
        return scope["values"]

    @staticmethod
    def read(c, args, kwargs):
        """The value check c reads on this call (_MISSING where it is gone)."""
        kind = c.kind
        if kind == "global":
            v = c.root.get(c.key, _MISSING)
        elif kind == "cell":
            try:
                v = c.root.cell_contents
            except ValueError:
                return _MISSING
        elif kind == "const":
            v = c.root
        else:
            k = c.key
            if k[0] == "pos":
                v = args[k[1]] if k[1] < len(args) else _MISSING
            else:
                v = kwargs.get(k[1], _MISSING)
        for a in c.attrs:
            if v is _MISSING:
                return v
            if type(a) is Item:
                v = _item(v, a[0])
                continue
            try:
                # where the capture found it (a check exists only where no data descriptor shadows it)
                v = v.__dict__[a]
            except (AttributeError, KeyError, TypeError):
                v = static_attr(v, a)
        return v

    def holds(self, args, kwargs):
        """Whether every guarded value is what it was at the capture."""
        for c in self.checks:
            v = self.read(c, args, kwargs)
            if v is _MISSING or not _same(v, c.snap):
                return False
        return True

    @staticmethod
    def install(c, args, kwargs, value):
        """Puts value where check c reads (a traced input in place of the tensor, for the capture); returns
        what was there."""
        if c.kind == "global" and not c.attrs:
            old = c.root[c.key]
            c.root[c.key] = value
            return old
        if c.kind == "cell" and not c.attrs:
            old = c.root.cell_contents
            c.root.cell_contents = value
            return old
        last = c.attrs[-1]
        if c.home is not None:
            old = c.home.__dict__[last]
            type.__setattr__(c.home, last, value)
            return old
        parent = Guard.read(_Check(c.kind, c.root, c.key, c.attrs[:-1], None), args, kwargs)
        if type(last) is Item:
            old = parent[last[0]]
            parent[last[0]] = value
            return old
        d = object.__getattribute__(parent, "__dict__")
        old = d[last]
        d[last] = value
        return old

    @staticmethod
    def installed(c, args, kwargs):
        """What is now where install() writes for check c (a class attribute: in its class, even where an
        instance attribute of the name has been set since)."""
        if c.home is not None:
            return c.home.__dict__.get(c.attrs[-1], _MISSING)
        return Guard.read(c, args, kwargs)

    def describe(self):
        """One line per check: where the value is read and what it must be (for recompile reasons)."""
        out = []
        for c in self.checks:
            where = {"global": f"G[{c.key!r}]", "cell": "closure cell", "const": "self"}.get(
                c.kind, str(c.key)
            )
            out.append(where + "".join(f"[{a[0]!r}]" if type(a) is Item else "." + a for a in c.attrs))
        return out
