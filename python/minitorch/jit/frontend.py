"""torch.jit.frontend: the errors TorchScript's frontend raises for Python it cannot compile, and the check of a
function's syntax against what the frontend accepts (``check_syntax``), run by script before it captures."""

import ast
import inspect
import textwrap

__all__ = ["FrontendError", "NotSupportedError", "UnsupportedNodeError", "check_syntax"]


class SourceRange:
    """Where in a file a construct is: rendered as TorchScript's error context (the lines around it, the
    construct underlined)."""

    def __init__(self, filename, lines, first_lineno, lineno, col, end_col):
        self.filename = filename
        self.lines = lines  # the function's source lines, dedented
        self.first_lineno = first_lineno
        self.lineno = lineno
        self.col = col
        self.end_col = end_col

    def __str__(self):
        i = self.lineno - self.first_lineno
        out = [f'  File "{self.filename}", line {self.lineno}']
        out += [ln.rstrip("\n") for ln in self.lines[max(0, i - 3) : i + 1]]
        width = max(1, self.end_col - self.col)
        out.append(" " * self.col + "~" * width + " <--- HERE")
        out += [ln.rstrip("\n") for ln in self.lines[i + 1 : i + 2]]
        return "\n".join(out) + "\n"


class FrontendError(Exception):
    """A construct the TorchScript frontend rejects (source_range: where, msg: why)."""

    def __init__(self, source_range, msg):
        super().__init__(msg)
        self.source_range = source_range
        self.msg = msg

    def __str__(self):
        where = f":\n{self.source_range}" if self.source_range else ""
        return self.msg + where


class NotSupportedError(FrontendError):
    """A Python construct TorchScript does not support."""


class UnsupportedNodeError(NotSupportedError):
    """A Python syntax node TorchScript does not support."""


# PyTorch's names of the statements and expressions its frontend has no builder for (torch/jit/frontend.py);
# a node missing here is named by its class, as there
_PRETTY = {
    ast.FunctionDef: "function definitions",
    ast.ClassDef: "class definitions",
    ast.Import: "import statements",
    ast.ImportFrom: "import statements",
    ast.Global: "global variables",
    ast.AsyncFunctionDef: "async function definitions",
    ast.AsyncFor: "async for loops",
    ast.AsyncWith: "async with statements",
    ast.Try: "try blocks",
    ast.Nonlocal: "nonlocal variables",
}
_UNSUPPORTED = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.AsyncFor,
    ast.AsyncWith,
    ast.Match,
    ast.Try,
    ast.TryStar,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
    ast.NamedExpr,
    ast.Lambda,
    ast.Set,
    ast.SetComp,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
)
_VARARG_KWARG_ERR = (
    "Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults"
)


def check_syntax(fn):
    """Raises what TorchScript's frontend raises for fn's source: NotSupportedError for *args, **kwargs or
    keyword-only defaults, UnsupportedNodeError for a statement or expression it has no builder for (a set, a
    lambda, import, try, global, a nested def, ...). Functions without source are not checked."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError):
        return
    src = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs:
        return
    fdef = defs[0]
    dedented = src.splitlines(keepends=True)

    def where(node, width=None):
        col = node.col_offset
        end = node.end_col_offset if node.end_lineno == node.lineno else col + 1
        if width is not None:
            end = col + width
        return SourceRange(filename, dedented, first, first + node.lineno - 1, col, end)

    a = fdef.args
    for star in (a.vararg, a.kwarg):
        if star is not None:
            rng = where(star)
            rng.col -= 1
            raise NotSupportedError(rng, _VARARG_KWARG_ERR)
    for d in a.kw_defaults:
        if d is not None:
            raise NotSupportedError(where(d), _VARARG_KWARG_ERR)
    for node in _walk_body(fdef):
        if isinstance(node, _UNSUPPORTED):
            name = _PRETTY.get(type(node), type(node).__name__)
            width = len("def") if isinstance(node, ast.FunctionDef) else None
            raise UnsupportedNodeError(where(node, width), f"{name} aren't supported")
    _check_names(fn, fdef, where)


def _check_names(fn, fdef, where):
    """TorchScript resolves every name when it compiles: one neither bound in the function (a parameter, an
    assignment, a loop or comprehension target) nor a global, builtin or closure variable is PyTorch's
    RuntimeError "undefined value", raised at script time, not when the line runs."""
    a = fdef.args
    bound = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    loads = []
    for node in _walk_body(fdef):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.append(node)
            else:
                bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    code = getattr(fn, "__code__", None)
    known = set(code.co_freevars) if code is not None else set()
    glb = getattr(fn, "__globals__", {})
    builtins = glb.get("__builtins__", {})
    builtins = builtins if isinstance(builtins, dict) else vars(builtins)
    for node in loads:
        if node.id in bound or node.id in known or node.id in glb or node.id in builtins:
            continue
        raise _UndefinedValue(where(node), f"undefined value {node.id}")


class _UndefinedValue(FrontendError, RuntimeError):
    """A name script cannot resolve: PyTorch raises RuntimeError with these words and the source range."""


def _walk_body(fdef):
    # the function's own body, in source order; decorators and annotations are not compiled code
    stack = list(reversed(fdef.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _UNSUPPORTED):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
