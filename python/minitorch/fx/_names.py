"""Names for fx: unique Python identifiers for nodes and the dotted names that print and generate targets."""

import builtins
import keyword
import re
import sys

from minitorch import overrides

_illegal = set(keyword.kwlist) | set(dir(builtins)) | {"inf", "nan", "NoneType", "torch", "device"}
_snake_sub = re.compile(r"(?<=[a-z])([A-Z])")
_bad_chars = re.compile(r"[^0-9a-zA-Z_]+")
_name_re = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")


def snake_case(s):
    """'pascalCase' -> 'pascal_case', 'ALL_CAPS' -> 'all_caps'."""
    return _snake_sub.sub(r"_\1", s).lower()


class Namespace:
    """Hands out unique identifiers: a candidate already taken, a keyword or a builtin gets a _N suffix."""

    def __init__(self):
        self._used = set()
        self._obj_to_name = {}

    def create_name(self, candidate, obj=None):
        """A unique identifier from candidate (the same one again for the same obj)."""
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)][0]
        m = _name_re.match(candidate)
        if m is None:
            candidate = _bad_chars.sub("_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = "_" + candidate
            m = _name_re.match(candidate)
        base, num = m.group(1), m.group(2)
        if num is None:
            num = 0
            if candidate in _illegal:
                num = 1
                candidate = f"{base}_1"
        else:
            num = int(num)
        while candidate in self._used:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        if obj is not None:
            self._obj_to_name[id(obj)] = (candidate, obj)  # the object is kept so its id stays unique
        return candidate

    def reserve(self, name):
        """Marks name as taken."""
        self._used.add(name)

    def release(self, name):
        """Makes name available again."""
        self._used.discard(name)


def _resolves_to(path, obj):
    """Whether the dotted path (starting at 'torch', meaning minitorch) names obj."""
    parts = path.split(".")
    cur = sys.modules.get("minitorch")
    if parts[0] != "torch" or cur is None:
        return False
    try:
        for p in parts[1:]:
            cur = getattr(cur, p)
    except AttributeError:
        return False
    return overrides.original_function(cur) is obj


def torch_path(target):
    """'torch.<...>' for a function reachable from the package root, else None."""
    public = getattr(target, "_mt_public_name", None)
    if public is not None:
        return public
    mod = getattr(target, "__module__", None) or ""
    if not mod.startswith("minitorch"):
        return None
    name = overrides.resolve_name(target)
    if name is not None:
        return name
    short = getattr(target, "__name__", None)
    if short is None:
        return None
    path = "torch" + mod[len("minitorch") :] + "." + short
    return path if _resolves_to(path, target) else None


def qualified_name(target):
    """The dotted name Graph printing uses for a call_function target."""
    if isinstance(target, str):
        return target
    path = torch_path(target)
    if path is not None:
        return path
    mod = getattr(target, "__module__", None)
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or repr(target)
    if mod == "_operator":
        mod = "operator"
    if mod is None:
        return name
    return f"{mod}.{name}"
