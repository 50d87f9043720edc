"""Python layering: the modules of python/minitorch import each other without a circle (docs/architecture.md,
'Python package layering').

Every import counts, at module level or inside a function: an import written inside a function to break a
circle still is one (it only moves the failure from import time to call time), so the test sees it. The rules
for what an import statement depends on:

- `import minitorch.a.b` and `from minitorch.a import b` (b a module) depend on `minitorch.a.b`;
  `from minitorch.a import name` (name not a module) depends on the package `minitorch.a`, its `__init__`.
  Relative imports resolve the same way.
- Importing `minitorch.a.b` also runs the `__init__` of the package `minitorch.a` first, so it depends on each
  package on the way that does not enclose the importer (an enclosing package is already being imported).
- The root package `minitorch` encloses every module and is never entered that way, but it is the public
  namespace that assembles everything: a submodule reaching it (`import minitorch`, `from minitorch import
  tensor`, or `minitorch.<name>` when an `import minitorch.x` has bound the name `minitorch`) depends on the
  root `__init__`, which imports every module, so that is a circle. A submodule imports what it uses from the
  module that defines it (`_C`, `_creation`, `autograd.grad_mode`, ...).
- A package `__init__` importing its own submodules is how a package is assembled: an ordinary edge down.
- `minitorch._C` is the extension module (a leaf here; its few imports of Python modules at run time are
  C++ calls, outside this test).
"""

import ast
import os
import sys

from utils import REPO

ROOT = REPO
PKG_DIR = os.path.join(ROOT, "python", "minitorch")
PKG = "minitorch"

# Imports that still close a circle, each with its reason, keyed (importing module, imported module). An entry
# that no longer matches an import inside a circle fails too, so the list only shrinks.
EXCEPTIONS = {}


def module_files():
    """{dotted module name: path} for every .py file of the package (a package is its __init__.py)."""
    mods = {f"{PKG}._C": None}
    for dirpath, dirs, files in os.walk(PKG_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            parts = os.path.relpath(os.path.join(dirpath, name), os.path.dirname(PKG_DIR))[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = os.path.join(dirpath, name)
    return mods


MODULES = module_files()


def _is_package(mod):
    path = MODULES.get(mod)
    return path is not None and path.endswith("__init__.py")


def _existing(name):
    """The longest prefix of a dotted name that is one of our modules."""
    while name not in MODULES:
        name = name.rsplit(".", 1)[0]
    return name


def _targets(importer, target):
    """The modules an import of `target` from `importer` runs: the target and the packages on its way that do
    not enclose the importer (the root encloses everything)."""
    out = [target]
    parts = target.split(".")
    for i in range(2, len(parts)):
        pkg = ".".join(parts[:i])
        if not (importer == pkg or importer.startswith(pkg + ".")):
            out.append(pkg)
    return out


def imports(mod):
    """[(line, imported module, statement)] for every import of our package in module `mod`."""
    path = MODULES[mod]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found, binds_root = [], False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != PKG:
                    continue
                if alias.asname is None:
                    binds_root = True  # `import minitorch.x` binds the name minitorch
                found += [
                    (node.lineno, t, f"import {alias.name}") for t in _targets(mod, _existing(alias.name))
                ]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".") if _is_package(mod) else mod.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            if source is None or source.split(".")[0] != PKG:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                target = sub if sub in MODULES else _existing(source)
                found += [
                    (node.lineno, t, f"from {source} import {alias.name}") for t in _targets(mod, target)
                ]
    if binds_root and mod != PKG:
        for node in ast.walk(tree):
            is_root = (
                isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == PKG
            )
            if is_root and f"{PKG}.{node.attr}" not in MODULES:
                found.append((node.lineno, PKG, f"minitorch.{node.attr}"))
    return [(line, t, text) for line, t, text in found if t != mod]


def graph():
    """{module: [(line, imported module, statement)]} over the whole package."""
    return {mod: imports(mod) for mod, path in MODULES.items() if path is not None}


def strongly_connected(g):
    """The components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for _, w, _ in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(g) + 100))
    try:
        for v in sorted(g):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return comps


def _rel(mod):
    return os.path.relpath(MODULES[mod], ROOT).replace(os.sep, "/")


def one_cycle(g, comp):
    """A shortest circle through the component's first module: [('file:line: statement', (importer, imported))]."""
    members, start = set(comp), comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for line, w, text in g[v]:
                if w == start:
                    steps, cur = [(v, line, text, w)], v
                    while prev[cur] is not None:
                        p, pline, ptext = prev[cur]
                        steps.append((p, pline, ptext, cur))
                        cur = p
                    return [(f"{_rel(a)}:{ln}: {t}  ({a} -> {b})", (a, b)) for a, ln, t, b in reversed(steps)]
                if w in members and w not in prev:
                    prev[w] = (v, line, text)
                    nxt.append(w)
        frontier = nxt
    return []


def cycles(excepted=EXCEPTIONS):
    """([report per circle], {excepted edges that lie in a circle of the full graph})."""
    full = graph()
    used = set()
    for comp in strongly_connected(full):
        members = set(comp)
        used |= {(a, w) for a in comp for _, w, _ in full[a] if w in members and (a, w) in excepted}
    g = {a: [e for e in es if (a, e[1]) not in excepted] for a, es in full.items()}
    # One circle per round; its closing import is then set aside, so that every circle gets a report.
    reports = []
    while len(reports) < 200:
        comps = strongly_connected(g)
        if not comps:
            break
        for comp in comps:
            steps = one_cycle(g, comp)
            reports.append("circle:\n    " + "\n    ".join(s for s, _ in steps))
            a, b = steps[-1][1]
            g[a] = [e for e in g[a] if e[1] != b]
    return reports, used


def test_no_import_circle():
    reports, _ = cycles()
    assert not reports, "import circles in python/minitorch:\n" + "\n".join(reports)


def test_exceptions_are_still_needed():
    _, used = cycles()
    stale = sorted(set(EXCEPTIONS) - used)
    assert not stale, f"these exceptions no longer close a circle, drop them from EXCEPTIONS: {stale}"


def test_checker_sees_each_kind_of_import(tmp_path, monkeypatch):
    # The checker itself: function-level, relative, `from package import name`, the root namespace reached
    # through `import minitorch` or through the name an `import minitorch.x` binds, and the parent package an
    # import runs, each close the circle they would close at run time.
    src = {
        "__init__.py": "from minitorch import a, b, pkg\n",
        "a.py": "def f():\n    from minitorch import b\n",
        "b.py": "from . import a\n",
        "c.py": "import minitorch\n",
        "d.py": "import minitorch.a\nx = minitorch.tensor\n",
        "e.py": "import minitorch.a\nx = minitorch.a.f\n",
        "pkg/__init__.py": "from minitorch.pkg.inner import g\n",
        "pkg/inner.py": "from minitorch import e\n",
        "f.py": "from minitorch.pkg import inner\n",
    }
    for name, text in src.items():
        p = tmp_path / "minitorch" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "PKG_DIR", str(tmp_path / "minitorch"))
    monkeypatch.setattr(sys.modules[__name__], "MODULES", module_files())
    g = graph()
    edges = {(a, w) for a, es in g.items() for _, w, _ in es}
    assert ("minitorch.a", "minitorch.b") in edges and ("minitorch.b", "minitorch.a") in edges
    assert ("minitorch.c", "minitorch") in edges and ("minitorch.d", "minitorch") in edges
    assert ("minitorch.e", "minitorch") not in edges and ("minitorch.e", "minitorch.a") in edges
    assert ("minitorch.f", "minitorch.pkg") in edges and ("minitorch.f", "minitorch.pkg.inner") in edges
    assert ("minitorch.pkg.inner", "minitorch.pkg") not in edges
    comps = strongly_connected(g)
    assert ["minitorch.a", "minitorch.b"] in comps
    assert not any("minitorch.e" in c or "minitorch.f" in c for c in comps)
    reports, _ = cycles(excepted={})
    assert any("minitorch/a.py:2: from minitorch import b" in r for r in reports)
