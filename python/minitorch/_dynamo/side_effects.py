"""Python side effects of a captured frame, replayed on every call of its compiled graph (Dynamo's SideEffects).

A capture runs the callable once on real values, so ``log.append(y)``, ``d[k] = v``, ``self.steps += 1`` or
``global G; G = ...`` happen once, at capture, and a graph replays none of them. Before the capture the state
the code can reach is recorded (``Tracker``): the lists, dicts and sets (their subclasses and deques too: a
Counter.update or deque.append writes through C) and the attribute dicts of plain objects and modules found from
its globals, closure cells, arguments, the owners of builtin methods held as values (``app = log.append``) and
the attribute chains guards.py finds, a few levels deep, plus the globals and cells its code stores to. After the capture each one is compared with its
record; what changed becomes an ``Effects``: the final contents, with every traced value in them (a Proxy)
turned into an extra output of the graph, assigned after each call of the graph, as Dynamo's codegen writes
``log[:] = [...]``/``setattr``/``STORE_GLOBAL`` after the graph. The entry state is part of the guard (the
recorded contents of each mutated object), so the final contents the replay writes are the eager ones; a
changed entry state recompiles, as Dynamo's list-length and value guards do; in an attribute dict (and a
module's ``_buffers``) a tensor the graph reads as an input or a live buffer may be another one of the same
metadata (guards.py guards that), so replacing it each call reuses the graph, and an attribute the capture set
to a traced value is not checked where no code of the capture reads that name (``setattr(o, "v", x + 1)``:
Dynamo guards no store). A capture that breaks has its recorded state put back first, so the split pieces run
its statements once (``restore``).

What is not seen: a mutation of an object the walk does not reach (deeper than ``_DEPTH`` levels, past
``_BUDGET`` objects, reached only through a function's return value, an object with ``__slots__``), and writes
through C code other than the containers' own methods (a file, a socket: guards.py finds the calls it can see
and the caller breaks the graph there). ``print`` and clock reads are graph
breaks instead (capture.py)."""

import types

from minitorch import _C
from minitorch._dynamo.guards import ALL_NAMES, _container_kind, step
from minitorch.fx import Proxy

__all__ = ["Effects", "Tracker", "Unreplayable"]

_MISSING = object()
_DELETE = ("delete",)
_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _bound_owner(value):
    """The object a builtin method is bound to (``log.append`` stored and called later), else None."""
    if isinstance(value, types.BuiltinMethodType):
        owner = getattr(value, "__self__", None)
        if owner is not None and not isinstance(owner, (types.ModuleType, type)):
            return owner
    return None


def _put_list(obj, items):
    if isinstance(obj, list):
        obj[:] = items
    else:  # a deque
        obj.clear()
        obj.extend(items)


_DEPTH = 3  # levels walked below each root
_BUDGET = 4096  # objects recorded per capture


class Unreplayable(Exception):
    """A side effect whose final value cannot be rebuilt on a later call (a new object holding a traced value)."""


def _module_cls():
    from minitorch.nn.modules.module import Module

    return Module


def _skipped(v):
    if isinstance(
        v, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    ):
        return True
    return isinstance(v, (_C.Tensor, Proxy))


def _attrs_of(obj):
    """The attribute dict a capture can write (a plain object's or a module's __dict__), or None."""
    if _skipped(obj) or type(obj) in _SCALARS:
        return None
    d = getattr(obj, "__dict__", None) if type(obj).__getattribute__ is object.__getattribute__ else None
    if d is None and isinstance(obj, _module_cls()):
        d = object.__getattribute__(obj, "__dict__")
    return d if type(d) is dict else None


def _shallow(obj, kind):
    """What obj holds now, compared item by item (identity, or type and == for numbers and strings)."""
    if kind == "list":
        return list(obj)
    if kind == "set":
        return set(obj)
    return dict(obj)


def _same_item(a, b):
    if a is b:
        return True
    ta = type(a)
    return ta is type(b) and ta in _SCALARS and a == b


def _dict_kind(kind):
    # "attrs" (an object's __dict__) and "keys" (a module's _buffers) are dicts written key by key
    return "dict" if kind in ("attrs", "keys") else kind


def _same(kind, now, snap, live=None):
    """now holds what snap held; live: ids of tensors the graph reads afresh at each call (not constants of
    it), where any tensor in their place will do (its metadata is guarded elsewhere)."""
    if len(now) != len(snap):
        return False
    if kind == "list":
        if live:
            return all(
                _same_item(a, b) or (id(b) in live and isinstance(a, _C.Tensor)) for a, b in zip(now, snap)
            )
        return all(_same_item(a, b) for a, b in zip(now, snap))
    if kind == "set":
        # members are hashable: ids of the non-scalar ones, values of the scalars
        return {(type(v), v) if type(v) in _SCALARS else id(v) for v in now} == {
            (type(v), v) if type(v) in _SCALARS else id(v) for v in snap
        }
    if list(now) != list(snap):  # keys, in order (dict keys are hashable, compared as dicts compare them)
        return False
    if live:
        for k, v in snap.items():
            if not _same_item(now[k], v) and not (id(v) in live and isinstance(now[k], _C.Tensor)):
                return False
        return True
    return all(_same_item(now[k], snap[k]) for k in snap)


class _Record:
    """One mutable thing the capture can reach: how to find it again (root and steps), what it held."""

    __slots__ = ("kind", "obj", "path", "snap")

    def __init__(self, kind, obj, path, snap):
        self.kind = kind  # "list", "set", "dict", "attrs" (obj's __dict__), "keys" (a module's _buffers),
        # "global" (obj: globals, name), "cell"
        self.obj = obj
        self.path = path
        self.snap = snap

    def now(self):
        if self.kind == "global":
            g, name = self.obj
            return g.get(name, _MISSING)
        if self.kind == "cell":
            try:
                return self.obj.cell_contents
            except ValueError:
                return _MISSING
        return _shallow(self.obj, _dict_kind(self.kind))

    def changed(self):
        now = self.now()
        if self.kind in ("global", "cell"):
            return not _same_item(now, self.snap)
        return not _same(_dict_kind(self.kind), now, self.snap)

    def restore(self):
        if self.kind == "global":
            g, name = self.obj
            if self.snap is _MISSING:
                g.pop(name, None)
            else:
                g[name] = self.snap
        elif self.kind == "cell":
            if self.snap is _MISSING:
                try:
                    del self.obj.cell_contents
                except ValueError:
                    pass
            else:
                self.obj.cell_contents = self.snap
        elif self.kind == "list":
            _put_list(self.obj, self.snap)
        else:
            self.obj.clear()
            # dict's and set's own update: a Counter's adds to the counts
            (dict.update if isinstance(self.obj, dict) else set.update)(self.obj, self.snap)


def _resolve(path, args, kwargs):
    """The object at path on this call: its root (an argument, or an object held) then item/attribute steps."""
    root, steps = path
    if root[0] == "pos":
        v = args[root[1]] if root[1] < len(args) else _MISSING
    elif root[0] == "kw":
        v = kwargs.get(root[1], _MISSING)
    else:
        v = root[1]
    for kind, key in steps:
        if v is _MISSING:
            return v
        if kind == "item":
            try:
                v = v[key]
            except (KeyError, IndexError, TypeError):
                return _MISSING
        else:
            d = _attrs_of(v)
            v = _MISSING if d is None else d.get(key, _MISSING)
    return v


class Tracker:
    """The state one capture can reach, recorded before it runs (see the module docstring)."""

    def __init__(self, reads=None):
        # the attribute names the captured code may read (guards.names_read; None: any), see effects()
        self.reads = reads
        self.records = []
        self._ids = {}
        self._budget = _BUDGET

    # ---- before the capture
    def add_root(self, value, path, depth=0):
        """Records value (and what it holds, _DEPTH levels) as found at path."""
        owner = _bound_owner(value)
        if owner is not None:
            # a container's (or object's) builtin method held as a value: what it writes is the owner's
            self.add_root(owner, (("obj", owner), ()), depth)
            return
        if self._budget <= 0 or depth > _DEPTH or type(value) in _SCALARS or _skipped(value):
            return
        t = type(value)
        if t in (tuple, frozenset):
            if t is tuple:
                for i, v in enumerate(value):
                    self.add_root(v, (path[0], path[1] + (("item", i),)), depth + 1)
            return
        if id(value) in self._ids:
            return
        kind = _container_kind(value)
        if kind is not None:
            self._add(kind, value, path)
            if kind == "list":
                items = enumerate(value)
            elif kind == "dict":
                items = value.items()
            else:
                return
            for k, v in list(items):
                self.add_root(v, (path[0], path[1] + (("item", k),)), depth + 1)
            return
        d = _attrs_of(value)
        if d is None:
            return
        self._add("attrs", d, path, key=id(value))
        is_module = isinstance(value, _module_cls())
        for k, v in list(d.items()):
            if is_module:
                # a module's own registries: assigning a tensor to a buffer's name changes _buffers
                if k == "_buffers":
                    self._add("keys", v, (path[0], path[1] + (("attr", k),)))
                if k.startswith("_"):
                    continue
            self.add_root(v, (path[0], path[1] + (("attr", k),)), depth + 1)

    def _add(self, kind, obj, path, key=None):
        key = id(obj) if key is None else key
        if key in self._ids:
            return
        self._budget -= 1 + (len(obj) if kind != "attrs" else 0)
        self._ids[key] = True
        self.records.append(_Record(kind, obj, path, _shallow(obj, _dict_kind(kind))))

    def add_guarded(self, guard, stores, args, kwargs):
        """The roots guards.py found (guard: its Guard of the call, or None; stores: what guards.sources put in
        its stores list): each value read and each attribute along its chain, the globals and cells assigned."""
        for kind, root, name in stores:
            if kind == "global":
                self.add_global(root, name)
            else:
                self.add_cell(root)
        for c in guard.checks if guard is not None else ():
            if c.kind == "global":
                v = c.root.get(c.key, _MISSING)
            elif c.kind == "cell":
                try:
                    v = c.root.cell_contents
                except ValueError:
                    continue
            elif c.kind == "const":
                v = c.root
            else:
                continue  # an argument: add_arguments walks it with the path a later call finds it by
            for a in (None, *c.attrs):
                if a is not None:
                    v = step(v, a)
                if v is _MISSING:
                    break
                self.add_root(v, (("obj", v), ()))

    def add_global(self, g, name):
        """Watches the global `name` of the globals dict g (a `global` store in the compiled code), once."""
        if ("g", id(g), name) not in self._ids:
            self._ids[("g", id(g), name)] = True
            self.records.append(_Record("global", (g, name), None, g.get(name, _MISSING)))

    def add_cell(self, cell):
        """Watches a closure cell (a `nonlocal` store in the compiled code), once."""
        if ("c", id(cell)) not in self._ids:
            self._ids[("c", id(cell))] = True
            try:
                snap = cell.cell_contents
            except ValueError:
                snap = _MISSING
            self.records.append(_Record("cell", cell, None, snap))

    def add_arguments(self, args, kwargs):
        """The arguments the captured code gets (containers rebuilt with traced tensors in them): what it
        does to them is replayed on each call's own arguments."""
        for i, a in enumerate(args):
            self.add_root(a, (("pos", i), ()))
        for k, a in kwargs.items():
            self.add_root(a, (("kw", k), ()))

    # ---- after it
    def restore(self):
        """Puts every recorded object back as it was before the capture (the capture broke)."""
        for r in reversed(self.records):
            if r.changed():
                r.restore()

    def effects(self, tracer):
        """The Effects of the capture (None without any), and the traced values of tracer they need from the
        graph."""
        changed = [r for r in self.records if r.changed()]
        if not changed:
            return None, []
        outs = []
        index = {}

        def template(v, depth=0, kept=frozenset()):
            if isinstance(v, Proxy) and v.tracer is tracer:
                if id(v.node) not in index:
                    index[id(v.node)] = len(outs)
                    outs.append(v)
                return ("out", index[id(v.node)])
            t = type(v)
            if t in _SCALARS or id(v) in self._ids or id(v) in kept:
                return ("const", v)
            if t in (list, tuple, set, frozenset) and depth < 8:
                # a container the capture made: a new one on every call, as each eager call makes one
                return ("new", t, [template(x, depth + 1) for x in v])
            if t is dict and depth < 8:
                return ("newdict", [(k, template(x, depth + 1)) for k, x in v.items()])
            d = _attrs_of(v)
            if d is not None and any(isinstance(x, Proxy) for x in d.values()):
                raise Unreplayable(f"a new {t.__name__} object holding a traced value")
            return ("const", v)

        steps = []
        guards = []
        for r in changed:
            now = r.now()
            kind = r.kind
            if kind in ("global", "cell"):
                steps.append((kind, r.obj, None, _MISSING if now is _MISSING else template(now)))
                continue
            # what the object held before stays that very object (only what the capture made is made anew)
            kept = frozenset(id(v) for v in (r.snap.values() if isinstance(r.snap, dict) else r.snap))
            step_kind, loose, snap = kind, kind in ("attrs", "keys"), r.snap
            in_order = kind == "dict" and list(now) == [k for k in snap if k in now] + [
                k for k in now if k not in snap
            ]
            if in_order or (kind == "list" and len(now) == len(snap)):
                # written key by key (index by index) as an attribute dict is (the order comes out the same): what
                # the code did not write stays as the call finds it, so a tensor item the graph reads as an input
                # may be replaced between calls (``S["h"] = S["h"] + x``)
                step_kind, loose = "keys", True
                if kind == "list":
                    now, snap = dict(enumerate(now)), dict(enumerate(snap))
            if step_kind in ("list", "set"):
                final = [template(v, 0, kept) for v in now]
            elif step_kind == "dict":
                final = [(k, template(v, 0, kept)) for k, v in now.items()]
            else:
                # an attribute dict (or _buffers): only the entries that changed are written, the removed ones
                # deleted
                final = [
                    (k, template(v, 0, kept))
                    for k, v in now.items()
                    if not _same_item(v, snap.get(k, _MISSING))
                ]
                final += [(k, _DELETE) for k in snap if k not in now]
            # what an argument holds is found again on each call (a list or dict in it has its entry contents
            # fixed by the cache key); anything else is the object the capture changed, guarded on what it held
            on_arg = r.path is not None and r.path[0][0] in ("pos", "kw")
            target = r.path if on_arg else r.obj
            steps.append((step_kind, target, on_arg, final))
            # an attribute the replay sets to a traced value (``setattr(o, "v", x + 1)``) that no code of the
            # capture reads by its name is the same whatever it held before (what the graph reads is guarded):
            # as Dynamo, which guards no store, its entry state is not checked, so the second call (where it now
            # exists) reuses the graph. A dict's keys are not: its length and iteration depend on them
            reads = self.reads
            free = (
                frozenset(k for k, t in final if t[0] == "out" and k not in reads)
                if kind == "attrs" and reads is not None and ALL_NAMES not in reads
                else frozenset()
            )
            if not on_arg:
                guards.append((r, None, loose, free))
            elif kind not in ("list", "dict") or any(step[0] == "attr" for step in r.path[1]):
                # not a container the call rebuilds from the cache key: its entry contents are guarded too
                guards.append((r, r.path, loose, free))
        # the tensors of attributes the graph reads as inputs (or as live buffers) may be replaced between
        # calls (``self.h = ...``): in an attribute dict, only a tensor the graph holds as a constant must
        # stay that very tensor
        graph = getattr(tracer, "graph", None)
        baked = {
            id(tracer.values[n])
            for n in (graph.nodes if graph is not None else ())
            if n.op == "get_attr" and "." not in n.target and n in tracer.values
        }  # the root's own attributes: constants (and parameters from outside the module)
        live = frozenset(
            id(v)
            for r, _, loose, _ in guards
            if loose
            for v in (r.snap.values() if isinstance(r.snap, dict) else r.snap)
            if isinstance(v, _C.Tensor) and id(v) not in baked
        )
        return Effects(steps, guards, live), outs


class Effects:
    """The side effects of one captured graph, written after each call of it (see the module docstring)."""

    __slots__ = ("guards", "live", "steps")

    def __init__(self, steps, guards, live=frozenset()):
        self.steps = steps
        self.guards = guards
        self.live = live

    def holds(self, args, kwargs):
        """Whether each mutated object holds what it held when the capture began."""
        for r, path, loose, free in self.guards:
            kind = _dict_kind(r.kind)
            if path is None:
                now = r.now()
            else:
                obj = _resolve(path, args, kwargs)
                if r.kind == "attrs":
                    obj = _attrs_of(obj)
                if obj is _MISSING or obj is None or type(obj) is not type(r.snap):
                    return False
                now = _shallow(obj, kind)
            snap = r.snap
            if free:
                now = {k: v for k, v in now.items() if k not in free}
                snap = {k: v for k, v in snap.items() if k not in free}
            if not _same(kind, now, snap, self.live if loose else None):
                return False
        return True

    def apply(self, extra, args, kwargs):
        """Writes the final state, with extra: the values of the graph's extra outputs on this call."""

        def build(t):
            tag = t[0]
            if tag == "out":
                return extra[t[1]]
            if tag == "const":
                return t[1]
            if tag == "new":
                return t[1](build(x) for x in t[2])
            return {k: build(x) for k, x in t[1]}

        for kind, target, on_arg, final in self.steps:
            if kind == "global":
                g, name = target
                if final is _MISSING:
                    g.pop(name, None)
                else:
                    g[name] = build(final)
                continue
            if kind == "cell":
                if final is _MISSING:
                    try:
                        del target.cell_contents
                    except ValueError:
                        pass
                else:
                    target.cell_contents = build(final)
                continue
            obj = _resolve(target, args, kwargs) if on_arg else target
            if on_arg and kind == "attrs":
                obj = _attrs_of(obj)
            if obj is _MISSING or obj is None:
                continue
            if kind == "list":
                _put_list(obj, [build(t) for t in final])
            elif kind == "set":
                obj.clear()
                set.update(obj, (build(t) for t in final))
            elif kind == "dict":
                values = {k: build(t) for k, t in final}
                obj.clear()  # the keys in the order the capture left them
                dict.update(obj, values)
            else:
                for k, t in final:
                    if t is _DELETE:
                        obj.pop(k, None)
                    else:
                        obj[k] = build(t)
