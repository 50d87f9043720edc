"""Graph breaks that split a function into graphs, as Dynamo's resume functions do, at the source level.

Dynamo interprets bytecode, so at a graph break it compiles the graph traced so far, runs the breaking
instruction eagerly and resumes tracing in a generated "resume function" holding the rest of the bytecode.
Our capture is a concrete-valued fx trace of the real Python call (capture.py): it can be stopped but not
resumed mid-statement. So the split happens between *statements* of the function's source (its AST):

* the statements before the breaking one become a generated function, captured and compiled as one graph
  (a CompiledFunction of its own, so it has its own guards, recompiles and backend call);
* the breaking statement runs eagerly (the real Python, on real tensors);
* the statements after it become another generated function, captured the same way; a break in it splits it
  again, so a function with n breaks runs as n + 1 graphs.

Live variables travel between the pieces in a dict (tensors are graph inputs, other values guards, as for any
argument of a compiled function); each piece reads the names it uses and returns those it assigned that a
later piece reads, plus whether the user's code returned (``return v`` inside a piece becomes
``return (True, v)``). Closure cells are shared with the original function, and ``global``/``nonlocal``
declarations are repeated in every piece, so reads and writes reach the same variables.

Statements the break sits inside of:
* ``if``: a break in the test (``if t.sum() > 0:``, ``if x.item() > 0:``) compiles the statements before it
  together with the test's tensor part, evaluates the test eagerly and resumes in the branch taken followed
  by the rest (Dynamo's generic_jump). A break inside a branch compiles the test and the branch up to the
  breaking statement into the previous graph (a marker says which branch ran) and resumes there.
* ``for`` / ``while`` loops: the whole function runs eagerly, as Dynamo 2.15 skips a frame with a graph
  break inside a loop (it cannot resume inside the loop either).
* ``with torch.no_grad():`` (and enable_grad, set_grad_enabled, inference_mode): the body up to the break
  joins the previous graph, the breaking statement runs eagerly inside the context, the rest of the body and
  what follows resume in the next graph, as in Dynamo (entering a grad-mode context again changes nothing
  else). Any other ``with`` holding a break runs eagerly as a whole statement, the code around it compiled.
* ``try``: the whole function runs eagerly, as Dynamo skips such a frame.

Limits: splitting needs the function's source (a def, not a lambda, not a generator or coroutine, whose file
still compiles to the function's instructions, without zero-argument super()), and a module's forward with no
hooks (a hook registered after the split makes the call run eagerly whole); a break in the middle of a
statement is isolated (_Hoist: the work before the breaking call joins the previous graph, the call runs
eagerly, the rest of the statement resumes in the next graph) only where that keeps Python's evaluation
order and the frame has column positions (Python 3.11+), else the statement runs eagerly whole; a user
function the breaking call enters is compiled as its own frame (_Frames); Python scalars computed eagerly and
passed on (``s = x.sum().item()``) are guarded by value, so a new value recompiles the next graph, up to
``config.recompile_limit``, after which that graph runs eagerly.
"""

import __future__

import ast
import builtins
import copy
import dis
import inspect
import itertools
import os
import textwrap
import types

from minitorch._inductor.utils import PKG_DIR as _PKG_DIR
from minitorch.nn.modules.module import Module

__all__ = ["CannotSplit", "Plan", "Source", "has_hooks", "source_of"]

_RESULT = "__mt_result"  # names of our own locals in generated functions (not valid user names: dunder-ish)
_ENV = "__mt_env"
_TEST = "__mt_test"
_BRANCH = "__mt_branch"
_FRAME = "__mt_frame"  # compiles the user function a breaking call enters (see _Hoist)
# the `from __future__ import ...` flags a function's code carries, so that generated code compiles the same way
_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
_MISSING = object()
_MAX_DEPTH = 64  # nested splits of one call; a deeper chain means we failed to make progress


class CannotSplit(Exception):
    """The function cannot be split at this break (the reason says why): it runs eagerly as a whole."""


class Source:
    """What splitting needs of a function: its top-level statements (AST with the original positions), its
    name, file, globals, closure cells, the names local to it, its global/nonlocal declarations, how
    (args, kwargs) bind to its locals, and the module whose forward it is (guards on its training flag)."""

    def __init__(
        self, stmts, name, filename, globals_, cells, local_names, decls, bind, module=None, depth=0
    ):
        self.stmts = stmts
        self.name = name
        self.qualname = name
        self.hooked = None  # the module whose __call__ (hooks, then forward) the source stands for
        self.future_flags = 0
        self.filename = filename
        self.globals = globals_
        self.cells = cells
        self.local_names = local_names
        self.decls = decls
        self.bind = bind
        self.module = module
        self.depth = depth
        self.cellvars = frozenset()  # locals a nested function may rebind (not plain locals)

    def derived(self, stmts, extra_locals=()):
        """The Source of a piece of this one (its locals arrive as a dict)."""
        src = Source(
            stmts,
            self.name,
            self.filename,
            self.globals,
            self.cells,
            self.local_names | set(extra_locals),
            self.decls,
            _bind_env,
            self.module,
            self.depth + 1,
        )
        src.qualname = self.qualname
        src.future_flags = self.future_flags
        src.cellvars = self.cellvars
        return src


def _bind_env(args, kwargs):
    return dict(args[0])


def source_of(fn, module=None):
    """The Source of a plain function, a bound method or a module (its forward), or CannotSplit."""
    bound_self = None
    hooked = None
    if isinstance(fn, types.MethodType) and fn.__func__ is Module._call_impl:
        fn = fn.__self__  # Module.compile(): its __call__ is compiled, so hooks and forward as for a module
    if isinstance(fn, Module):
        module = hooked = fn
        if has_hooks(fn):
            raise CannotSplit("the module has hooks (they run around forward as a whole)")
        if "forward" in fn.__dict__:
            raise CannotSplit("the module's forward is an instance attribute")
        bound_self = fn
        fn = type(fn).forward
    elif isinstance(fn, types.MethodType):
        bound_self = fn.__self__
        if isinstance(bound_self, Module):
            module = bound_self
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        raise CannotSplit(f"a {type(fn).__name__} has no Python source to split")
    code = fn.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise CannotSplit("generators and coroutines are not split")
    if fn.__name__ == "<lambda>":
        raise CannotSplit("a lambda has no statements to split")
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise CannotSplit(f"its source is not available ({e})") from None
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError as e:
        raise CannotSplit(f"its source does not parse on its own ({e.msg})") from None
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        raise CannotSplit("its source is not a def statement")
    ast.increment_lineno(tree, first - 1)
    # columns as in the file (dedent removed the def's indentation from every line): a break's frame gives the
    # span of the sub-expression that broke in the file's columns
    indent = len(lines[0]) - len(lines[0].lstrip())
    if indent:
        for node in ast.walk(tree):
            if getattr(node, "col_offset", None) is not None:
                node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    fdef = tree.body[0]
    if fdef.name != fn.__name__:
        raise CannotSplit("its source does not match the function")
    for node in ast.walk(fdef):
        is_super = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
        if is_super and not node.args:
            raise CannotSplit("zero-argument super() needs the method's own frame")
    _check_same_code(fdef, code)
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    decls = [n for n in _walk_scope(fdef.body) if isinstance(n, (ast.Global, ast.Nonlocal))]
    local_names = set(code.co_varnames) | set(code.co_cellvars)
    signature = inspect.signature(fn)
    # the common call: every positional parameter given positionally, nothing else (no signature.bind)
    simple = code.co_argcount == len(signature.parameters) and not code.co_posonlyargcount
    names = tuple(signature.parameters)

    def bind(args, kwargs):
        if bound_self is not None:
            args = (bound_self, *args)
        if simple and not kwargs and len(args) == len(names):
            return dict(zip(names, args))
        ba = signature.bind(*args, **kwargs)
        ba.apply_defaults()
        return dict(ba.arguments)

    src = Source(
        list(fdef.body),
        fn.__name__,
        code.co_filename,
        fn.__globals__,
        cells,
        local_names,
        decls,
        bind,
        module,
    )
    src.qualname = fn.__qualname__
    src.cellvars = frozenset(code.co_cellvars)
    src.hooked = hooked
    src.future_flags = code.co_flags & _FUTURE_FLAGS
    return src


def _check_same_code(fdef, code):
    """CannotSplit unless fdef compiles to code's bytecode: the file may have changed since the function was
    loaded (the pieces would run the new text)."""
    factory = ast.parse("def __mt_factory():\n    pass\n").body[0]
    plain = copy.deepcopy(fdef)
    plain.decorator_list = []
    factory.body = [ast.parse(f"{n} = None").body[0] for n in code.co_freevars] + [plain]
    module = ast.Module([factory], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        compiled = compile(module, code.co_filename, "exec", code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except SyntaxError as e:
        raise CannotSplit(f"its source does not compile on its own ({e.msg})") from None
    outer = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    inner = next(
        (c for c in outer.co_consts if isinstance(c, types.CodeType) and c.co_name == code.co_name), None
    )
    if inner is None or _instructions(inner) != _instructions(code) or inner.co_varnames != code.co_varnames:
        raise CannotSplit("its source file no longer matches the function's code")


_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
# compiled apart from its module, `module.f()` on an imported module is a method load (CPython 3.11 knows
# imported names and emits an attribute load): the same program either way
_SAME_OP = {"LOAD_METHOD": "LOAD_ATTR"}


def _instructions(code):
    """code's instructions, with their arguments (not jump offsets, which move with inline caches)."""
    out = []
    for ins in dis.get_instructions(code):
        arg = ins.argval
        if ins.opcode in _JUMPS:
            arg = None
        elif isinstance(arg, types.CodeType):
            arg = (arg.co_name, tuple(_instructions(arg)))
        out.append((_SAME_OP.get(ins.opname, ins.opname), repr(arg)))
    return out


def has_hooks(module):
    """Whether module has forward hooks (a split forward would skip them: such a call runs eagerly whole)."""
    return bool(
        module._forward_hooks or module._forward_pre_hooks or getattr(module, "_backward_hooks", None)
    )


# ---------------------------------------------------------------- names read and written by statements
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _walk_scope(stmts):
    """The nodes of stmts in their own scope (not inside nested functions, lambdas or classes)."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _SCOPES):
                # the name a def/class binds, and its decorators and defaults, belong to this scope
                if not isinstance(child, ast.Lambda):
                    todo.extend(child.decorator_list)
                yield child
                continue
            todo.append(child)


def _binding_name(n):
    """The name a def, class, import alias or except clause binds, else None."""
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return n.name
    if isinstance(n, ast.alias):
        return (n.asname or n.name).split(".")[0]
    if isinstance(n, ast.ExceptHandler):
        return n.name
    return None


def _names_used(stmts):
    """Every identifier in stmts, nested scopes included (a nested function may read a local as a closure)."""
    out = set()
    for s in stmts:
        for n in ast.walk(s):
            name = n.id if isinstance(n, ast.Name) else n.arg if isinstance(n, ast.arg) else _binding_name(n)
            if name:
                out.add(name)
    return out


def _names_written(stmts):
    """The names stmts may bind in their own scope."""
    out = set()
    for n in _walk_scope(stmts):
        name = n.id if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) else _binding_name(n)
        if name:
            out.add(name)
    return out


class _Returns(ast.NodeTransformer):
    """``return v`` -> ``return (True, v)`` in the piece's own scope."""

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Return(self, node):
        value = node.value if node.value is not None else ast.Constant(None)
        new = ast.Return(ast.Tuple([ast.Constant(True), value], ast.Load()))
        return ast.copy_location(new, node)


# ---------------------------------------------------------------- generated functions
def _make_function(source, stmts, inputs, outputs):
    """A function of one dict (the live variables) running stmts; returns (True, value) when they return,
    else (False, {name: value} of the outputs they bound)."""
    first, last = stmts[0], stmts[-1]

    def at(node, where):
        ast.copy_location(node, where)
        return node

    body = [at(ast.parse(ast.unparse(d)).body[0], first) for d in source.decls]
    declared = {n for d in source.decls for n in d.names}
    for name in sorted(inputs - declared):
        # `if 'a' in env: a = env['a']` keeps `a` local (unbound when the caller has no value for it)
        body.append(at(ast.parse(f"if {name!r} in {_ENV}:\n    {name} = {_ENV}[{name!r}]").body[0], first))
    # on copies: the statements are shared with other pieces of the same function
    body += [_Returns().visit(copy.deepcopy(s)) for s in stmts]
    body.append(at(ast.parse(f"{_RESULT} = {{}}").body[0], last))
    for name in sorted(outputs - declared):
        body.append(
            at(
                ast.parse(f"try:\n    {_RESULT}[{name!r}] = {name}\nexcept NameError:\n    pass").body[0],
                last,
            )
        )
    body.append(at(ast.parse(f"return (False, {_RESULT})").body[0], last))
    # the enclosing factory makes the original free variables free variables of the piece too, so it can be
    # built over the original function's own cells (def nodes come from parsed templates: their fields differ
    # between Python versions)
    factory = ast.parse(f"def __mt_factory():\n    def {source.name}({_ENV}):\n        pass\n").body[0]
    fdef = factory.body[0]
    fdef.body = body
    ast.copy_location(fdef, first)
    factory.body = [at(ast.parse(f"{n} = None").body[0], first) for n in source.cells]
    factory.body += [fdef, at(ast.Return(ast.Name(source.name, ast.Load())), first)]
    ast.copy_location(factory, first)
    module = ast.Module([factory], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, source.filename, "exec", source.future_flags, dont_inherit=True)
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(
        c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == source.name
    )
    closure = tuple(source.cells[n] for n in inner.co_freevars) if inner.co_freevars else None
    fn = types.FunctionType(inner, source.globals, source.name, None, closure)
    fn.__qualname__ = source.qualname
    return fn


# ---------------------------------------------------------------- the plan: pieces run in turn
def _line_span(node):
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
    return start, getattr(node, "end_lineno", node.lineno) or node.lineno


def _index_at(stmts, lineno):
    for i, s in enumerate(stmts):
        lo, hi = _line_span(s)
        if lo <= lineno <= hi:
            return i
    return None


_GRAD_MODES = frozenset({"no_grad", "enable_grad", "set_grad_enabled", "inference_mode"})


def _grad_mode_with(s):
    """Whether every context of a with statement is a grad-mode one over plain names or constants (entering it
    again has no other effect)."""
    for item in s.items:
        call = item.context_expr
        if item.optional_vars is not None or not isinstance(call, ast.Call) or call.keywords:
            return False
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in _GRAD_MODES:
            return False
        if not all(isinstance(a, (ast.Name, ast.Constant)) for a in call.args):
            return False
    return True


# ---------------------------------------------------------------- a break in the middle of a statement
_SIMPLE_STMTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)
_UNSPLITTABLE = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)
_TEMPS = itertools.count()


def _tensor_attrs():
    from minitorch import _C

    return frozenset(dir(_C.Tensor))


def _span(node):
    return tuple(getattr(node, f, None) for f in ("lineno", "col_offset", "end_lineno", "end_col_offset"))


def _replace(parent, old, new):
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for i, v in enumerate(value):
                if v is old:
                    value[i] = new
                    return
    raise CannotSplit("internal: the node to replace is not a child of its parent")


def _is_name_chain(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Name, ast.Constant))


class _Hoist:
    """One statement split around the sub-expression that broke (the frame's column span names it), as Dynamo
    splits the bytecode: what Python evaluates before it becomes temporaries assigned in evaluation order
    (``hoists``, run in the previous graph), the breaking call runs eagerly on them (``eager``), and the
    statement, reading the temporaries, resumes in the next graph (``rest``). Order-preserving by construction:
    an expression evaluated before the break either moves whole into a temporary, keeping its place in the
    order, or stays where it is because reading it again later gives the same value: a constant, a plain local
    name (no call can rebind it), an attribute chain on a module or a builtin (``torch.clamp``, ``float``: we
    assume no breaking call monkey-patches those), a Tensor method looked up on its receiver (``t.add``, ``t``
    hoisted), or an attribute chain on a plain local (``self.proj``) when the breaking call is no user function
    (``.item()``, ``float()``, ``print``). A read of anything else before the break (a global variable,
    ``box.n`` before a user function that may change it), the break
    inside ``and``/``or`` past the first operand, a conditional expression, a comprehension, a chained
    comparison, an f-string, ``*args`` before it or a walrus: the statement is not split, it runs eagerly whole.
    ``deeper``: the break happened inside a function the statement calls; the call then runs that function
    compiled as its own frame (``__mt_frame(callee)(...)``), as Dynamo compiles an inlined frame that breaks."""

    def __init__(self, source, stmt, frame, deeper, wrap=True):
        self.source = source
        self.deeper = deeper
        self.temps = []
        self.hoists = []
        declared = {n for d in source.decls for n in d.names}
        self.plain = source.local_names - source.cellvars - declared - set(source.cells)
        span = (frame.lineno, frame.colno, frame.end_lineno, frame.end_colno)
        self.rest = stmt = copy.deepcopy(stmt)
        if not isinstance(stmt, _SIMPLE_STMTS) or stmt.value is None:
            raise CannotSplit("not an assignment, expression or return")
        if any(isinstance(n, _UNSPLITTABLE) for n in ast.walk(stmt)):
            raise CannotSplit("a walrus, yield or await in the statement")
        parents, depth = {}, {stmt: 0}
        for node in ast.walk(stmt):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
                depth[child] = depth[node] + 1
        matches = [n for n in ast.walk(stmt) if isinstance(n, ast.expr) and _span(n) == span]
        if not matches:
            # a method call over several lines: Python 3.11 places it from the method's name to the end
            matches = [
                n
                for n in ast.walk(stmt)
                if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and _span(n)[2:] == span[2:]
                and (n.func.end_lineno, n.func.end_col_offset - len(n.func.attr)) == span[:2]
            ]
        if not matches:
            raise CannotSplit("no sub-expression at the break's position")
        target = max(matches, key=depth.__getitem__)
        path = [target]
        while path[-1] is not stmt:
            path.append(parents[path[-1]])
        path.reverse()
        for parent, child in zip(path, path[1:]):
            for sibling in self._before(parent, child):
                self._take(sibling, parents[sibling])
        breaking = self._internals(target)
        if deeper and wrap:
            breaking.func = ast.copy_location(
                ast.Call(ast.Name(_FRAME, ast.Load()), [breaking.func], []), breaking.func
            )
        temp = self._temp()
        self.eager = ast.copy_location(ast.Assign([ast.Name(temp, ast.Store())], breaking), target)
        _replace(parents[target], target, ast.copy_location(ast.Name(temp, ast.Load()), target))

    def _temp(self):
        name = f"__mt_t{next(_TEMPS)}"
        self.temps.append(name)
        return name

    def _stays(self, node):
        """Whether reading node later gives the same value: a constant, a plain local name, an attribute chain
        on a module or a builtin (``torch.clamp``, ``F.gelu``, ``float``), or, when the break is in this frame
        (the breaking call is ``.item()``, ``float()``, ``print``..., no user function), an attribute chain on a
        plain local (``self.proj``)."""
        if isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and node.id in self.plain):
            return True
        chain = isinstance(node, ast.Attribute)
        while isinstance(node, ast.Attribute):
            node = node.value
        if chain and not self.deeper and isinstance(node, ast.Name) and node.id in self.plain:
            return True
        if (
            not isinstance(node, ast.Name)
            or node.id in self.source.local_names
            or node.id in self.source.cells
        ):
            return False
        value = self.source.globals.get(node.id, _MISSING)
        if value is _MISSING:
            return hasattr(builtins, node.id)
        return isinstance(value, types.ModuleType)

    def _take(self, node, parent, before_eager=True):
        """node -> a temporary assigned (in the previous graph) in its place in the evaluation order.
        before_eager=False: node is the breaking call's own callee, which only graph work moves past (a graph
        rebinds no Python name), so any name or attribute chain may stay."""
        if self._stays(node) or (not before_eager and _is_name_chain(node)):
            return
        if _is_name_chain(node):
            # a read of another object (a global, an attribute of self): it has no work for a graph, and moving
            # it past the eager call could see a value that call rebound
            raise CannotSplit("a read before the break that the break could change")
        temp = self._temp()
        self.hoists.append(ast.copy_location(ast.Assign([ast.Name(temp, ast.Store())], node), node))
        _replace(parent, node, ast.copy_location(ast.Name(temp, ast.Load()), node))

    def _module_chain(self, node):
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and isinstance(self.source.globals.get(node.id), types.ModuleType)

    def _callee_part(self, func):
        # a Tensor method stays looked up on its (hoisted) receiver: the bound method of a traced tensor is not
        # a value a graph can return (``torch.relu`` on a module is read whole)
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _tensor_attrs()
            and not self._module_chain(func.value)
        ):
            return func.value, func
        return func, None

    def _before(self, parent, child):
        """The expressions of parent that Python evaluates before child (CannotSplit where that order cannot be
        kept)."""
        if isinstance(parent, ast.stmt):
            if child is not parent.value:
                raise CannotSplit("the break is outside the statement's value")
            if isinstance(parent, ast.AugAssign) and not self._stays(parent.target):
                raise CannotSplit("an augmented assignment to an attribute or item")
            if isinstance(parent, ast.AnnAssign) and not isinstance(parent.target, ast.Name):
                raise CannotSplit("an annotated assignment to an attribute or item")
            return []
        if isinstance(parent, ast.BinOp):
            return [parent.left] if child is parent.right else []
        if isinstance(parent, (ast.UnaryOp, ast.Attribute, ast.Starred, ast.keyword)):
            return []
        if isinstance(parent, ast.BoolOp):
            if child is parent.values[0]:
                return []
            raise CannotSplit("the break is in a short-circuited operand of and/or")
        if isinstance(parent, ast.Compare):
            if child is parent.left:
                return []
            if child is parent.comparators[0]:
                return [parent.left]
            raise CannotSplit("the break is in a chained comparison")
        if isinstance(parent, ast.Subscript):
            return [parent.value] if child is parent.slice else []
        if isinstance(parent, (ast.Tuple, ast.List, ast.Slice)):
            parts = (
                [getattr(parent, f) for f in ("lower", "upper", "step")]
                if isinstance(parent, ast.Slice)
                else parent.elts
            )
            parts = [p for p in parts if p is not None]
            out = parts[: parts.index(child)]
            if any(isinstance(p, ast.Starred) for p in out):
                raise CannotSplit("a starred element before the break")
            return out
        if isinstance(parent, ast.Call):
            if child is parent.func:
                return []
            parts = [*parent.args, *parent.keywords]
            out = parts[: parts.index(child)]
            if any(isinstance(p, ast.Starred) or (isinstance(p, ast.keyword) and p.arg is None) for p in out):
                raise CannotSplit("*args or **kwargs before the break")
            callee, _ = self._callee_part(parent.func)
            return [callee] + [p.value if isinstance(p, ast.keyword) else p for p in out]
        raise CannotSplit(f"the break is inside a {type(parent).__name__}")

    def _internals(self, node):
        """The breaking call with the work of its receiver and arguments hoisted into the previous graph."""
        if not isinstance(node, ast.Call):
            return node
        callee, _ = self._callee_part(node.func)
        parts = [callee]
        for a in node.args:
            if isinstance(a, ast.Starred):
                break
            parts.append(a)
        else:
            for k in node.keywords:
                if k.arg is None:
                    break
                parts.append(k.value)
        work = [i for i, p in enumerate(parts) if not _is_name_chain(p)]
        if work:
            parent_of = {}
            for parent in [node, node.func, *node.keywords]:
                for child in ast.iter_child_nodes(parent):
                    parent_of[id(child)] = parent
            for p in parts[: work[-1] + 1]:
                self._take(p, parent_of[id(p)], before_eager=p is not callee)
        return node


class _Compiled:
    """Statements captured and compiled as a graph (a CompiledFunction of their generated function)."""

    def __init__(self, plan, stmts, extra_locals=()):
        self.plan = plan
        self.stmts = stmts
        self.extra_locals = tuple(extra_locals)
        self.used = _names_used(stmts)
        src = plan.source
        declared_globals = {n for d in src.decls if isinstance(d, ast.Global) for n in d.names}
        # closure variables and declared globals the piece reads: a graph bakes their values in, so they are
        # passed along (unused) to become part of its guard, as Dynamo guards them
        self.cells = sorted(self.used & set(src.cells))
        self.globals = sorted(self.used & declared_globals)
        self.cf = None

    def names(self):
        return self.used

    def run(self, env, needed, reason):
        if self.cf is None:
            src = self.plan.source.derived(self.stmts, self.extra_locals)
            outputs = _names_written(self.stmts) & needed
            fn = _make_function(src, self.stmts, self.used & src.local_names, outputs)
            self.cf = self.plan.make_compiled(fn, src, outputs, reason)
        # only the names the piece reads: the others would be guards it does not need
        live = {k: v for k, v in env.items() if k in self.used}
        for name in self.cells:
            try:
                live["__mt_cell_" + name] = self.plan.source.cells[name].cell_contents
            except ValueError:  # an empty cell: reading it raises in the piece, as in the function
                pass
        for name in self.globals:
            if name in self.plan.source.globals:
                live["__mt_global_" + name] = self.plan.source.globals[name]
        return self.cf(live)


class _Eager:
    """The breaking statement, run as written on real values (frames: the _Frames its breaking call compiles
    the function it enters with)."""

    def __init__(self, plan, stmts, extra_locals=(), frames=None):
        self.plan = plan
        self.stmts = stmts
        self.extra_locals = set(extra_locals)
        self.frames = frames
        self.fn = None

    def names(self):
        return _names_used(self.stmts) - {_FRAME}

    def run(self, env, needed, reason):
        if self.fn is None:
            src = self.plan.source
            self.fn = _make_function(
                src,
                self.stmts,
                _names_used(self.stmts) & (src.local_names | self.extra_locals | {_FRAME}),
                _names_written(self.stmts) & needed,
            )
        if self.frames is not None:
            env = dict(env)
            env[_FRAME] = self.frames
        return self.fn(env)


_MAX_FRAMES = 8  # distinct callees compiled as frames per compiled callable; more run as they are


class _Frames:
    """``__mt_frame(callee)``: the callee compiled as its own frame (make_frame(fn, key) gives the
    CompiledFunction, one per callee for the compiled callable's whole call tree) when it is a user's Python
    function, bound method or module; anything else as it is."""

    def __init__(self, make_frame):
        self.make_frame = make_frame
        self.compiled = {}  # id -> the CompiledFunctions this step used (for _mt_graphs)

    def __call__(self, fn):
        target = fn.__func__ if isinstance(fn, types.MethodType) else fn
        if isinstance(target, types.FunctionType):
            if os.path.abspath(target.__code__.co_filename).startswith(_PKG_DIR + os.sep):
                return (
                    fn  # minitorch's own function: it runs as it is (its break is in the user's code below)
                )
        elif not isinstance(fn, Module):
            return fn
        key = (target, id(fn.__self__)) if isinstance(fn, types.MethodType) else id(fn)
        cf = self.make_frame(fn, key)
        if cf is None:
            return fn
        self.compiled[id(cf)] = cf
        return cf


class _Branch:
    """Resumes in one of several continuations, chosen by a value the previous piece left in the env (the
    eager truth value of an ``if`` test, or the marker of the branch that ran)."""

    def __init__(self, plan, name, continuations, truth):
        self.plan = plan
        self.name = name
        self.continuations = continuations  # key -> list of statements
        self.truth = truth
        self.plans = {}

    def names(self):
        out = {self.name}
        for stmts in self.continuations.values():
            out |= _names_used(stmts)
        return out

    def run(self, env, needed, reason):
        value = env.pop(self.name)
        key = bool(value) if self.truth else value
        stmts = self.continuations[key]
        if not stmts:
            return (False, {})
        plan = self.plans.get(key)
        if plan is None:
            src = self.plan.source.derived(stmts)
            plan = self.plans[key] = Plan(
                src, self.plan.make_compiled, None, self.plan.exports, make_frame=self.plan.make_frame
            )
        return plan.run_env(env)


class Plan:
    """How a broken Source runs: a list of steps (compiled pieces, eager statements, branches), built at the
    break (see the module docstring). make_compiled(fn, source, outputs, reason) returns the CompiledFunction
    of a piece; exports: the names the caller of this plan reads afterwards (a piece's outputs)."""

    def __init__(
        self, source, make_compiled, gb, exports=frozenset(), lineno=None, frame=None, make_frame=None
    ):
        self.source = source
        self.make_compiled = make_compiled
        self.make_frame = make_frame
        self.exports = frozenset(exports)
        self.reason = gb
        if source.depth > _MAX_DEPTH:
            raise CannotSplit("too many nested splits")
        if gb is None:
            # a continuation: one piece, split again if it breaks
            self.steps = [_Compiled(self, source.stmts)]
        else:
            # frame: the function's own frame in the break's stack (its column span names the sub-expression
            # that broke); a frame after it means the break happened inside a function the statement calls
            stack = list(gb.user_stack or ())
            deeper = frame is not None and bool(stack) and frame is not stack[-1]
            self.steps = self._split(source.stmts, lineno, frame, deeper)
        # names each step's successors (and our caller) read: a step exports only those
        self.needed = []
        later = set(self.exports)
        for step in reversed(self.steps):
            self.needed.append(set(later))
            later |= step.names()
        self.needed.reverse()

    def _split(self, stmts, lineno, frame=None, deeper=False):
        i = _index_at(stmts, lineno)
        if i is None:
            raise CannotSplit(f"line {lineno} is not in a statement of the function")
        s = stmts[i]
        before, rest = stmts[:i], stmts[i + 1 :]
        if isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            raise CannotSplit("a graph break inside try cannot be resumed (Dynamo skips such a frame too)")
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            raise CannotSplit("a graph break inside a loop cannot be resumed (Dynamo skips such a frame too)")
        steps = []
        if isinstance(s, ast.If):
            lo, hi = _line_span(s.test)
            if lo <= lineno <= hi:
                # Dynamo's generic_jump: the test's tensor part joins the previous graph (if it traces: else the
                # test's assignment breaks in turn and runs eagerly), its truth value is taken eagerly
                assign = ast.copy_location(ast.Assign([ast.Name(_TEST, ast.Store())], s.test), s.test)
                steps.append(_Compiled(self, before + [assign], (_TEST,)))
                steps.append(_Branch(self, _TEST, {True: s.body + rest, False: s.orelse + rest}, truth=True))
                return steps
            j = _index_at(s.body, lineno)
            if j is not None:
                marked = self._marked_if(s, s.body[:j], s.orelse, 1)
                conts = {1: s.body[j:] + rest, 0: rest}
            else:
                j = _index_at(s.orelse, lineno)
                if j is None:
                    raise CannotSplit(f"line {lineno} is not in a statement of the if")
                marked = self._marked_if(s, s.body, s.orelse[:j], 0)
                conts = {0: s.orelse[j:] + rest, 1: rest}
            steps.append(_Compiled(self, before + [marked], (_BRANCH,)))
            steps.append(_Branch(self, _BRANCH, conts, truth=False))
            return steps
        if isinstance(s, ast.With) and _grad_mode_with(s):
            j = _index_at(s.body, lineno)
            if j is not None:
                # entering a grad-mode context again is harmless: the body up to the break joins the previous
                # graph, the breaking statement runs eagerly inside the context, the rest of the body resumes in it
                def within(body):
                    return ast.copy_location(ast.With(s.items, body or [ast.copy_location(ast.Pass(), s)]), s)

                steps.append(_Compiled(self, before + [within(s.body[:j])]))
                steps.append(_Eager(self, [within([s.body[j]])]))
                after = ([within(s.body[j + 1 :])] if s.body[j + 1 :] else []) + rest
                if after:
                    steps.append(_Compiled(self, after))
                return steps
        hoist = None
        if frame is not None and getattr(frame, "colno", None) is not None:
            try:
                hoist = _Hoist(self.source, s, frame, deeper, wrap=self.make_frame is not None)
            except CannotSplit:
                hoist = None  # the statement runs eagerly whole, the code around it compiled
        if hoist is not None:
            temps = hoist.temps
            if before or hoist.hoists:
                steps.append(_Compiled(self, before + hoist.hoists, temps))
            frames = _Frames(self.make_frame) if deeper and self.make_frame is not None else None
            steps.append(_Eager(self, [hoist.eager], temps, frames))
            steps.append(_Compiled(self, [hoist.rest] + rest, temps))
            return steps
        if before:
            steps.append(_Compiled(self, before))
        steps.append(_Eager(self, [s]))
        if rest:
            steps.append(_Compiled(self, rest))
        return steps

    @staticmethod
    def _marked_if(s, body, orelse, broken):
        """``if test: body; marker = 1 else: orelse; marker = 0`` (broken: the branch cut before its break)."""

        def mark(value):
            return ast.copy_location(ast.Assign([ast.Name(_BRANCH, ast.Store())], ast.Constant(value)), s)

        return ast.copy_location(ast.If(s.test, list(body) + [mark(1)], list(orelse) + [mark(0)]), s)

    def run_env(self, env):
        """Runs the steps on env; (True, value) when the code returned, else (False, exported names)."""
        for k, step in enumerate(self.steps):
            returned, payload = step.run(env, self.needed[k], self.reason if k == 0 else None)
            if returned:
                return True, payload
            env.update(payload)
            needed = self.needed[k]
            for name in [n for n in env if n not in needed]:
                del env[name]
        return False, {k: v for k, v in env.items() if k in self.exports}

    def run(self, args, kwargs):
        """Runs the plan on a call's arguments, in the protocol of the function the source came from."""
        returned, payload = self.run_env(self.source.bind(args, kwargs))
        if self.source.depth == 0:
            return payload if returned else None
        return returned, payload

    def compiled_functions(self):
        """The CompiledFunctions of this plan's pieces, continuations' included."""
        for step in self.steps:
            if isinstance(step, _Compiled) and step.cf is not None:
                yield step.cf
            elif isinstance(step, _Branch):
                for p in step.plans.values():
                    yield from p.compiled_functions()
            elif isinstance(step, _Eager) and step.frames is not None:
                yield from step.frames.compiled.values()
