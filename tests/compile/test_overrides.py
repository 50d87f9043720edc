"""minitorch.overrides: __torch_function__ dispatch switched on inside enable_torch_function_dispatch(), and outside it
for a call no overload binds."""

import pickle
import threading
import typing

import pytest
from utils import cases_here_and_in_pytorch

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import overrides
from minitorch.overrides import (
    BaseTorchFunctionMode,
    TorchFunctionMode,
    enable_torch_function_dispatch,
    handle_torch_function,
    has_torch_function,
)


class Toy:
    """A tensor-like that records the calls handed to it."""

    calls: typing.ClassVar[list] = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((overrides.resolve_name(func), types, args, kwargs or {}))
        return "toy"


class Refuses:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


class SubToy(Toy):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return "subtoy"


@pytest.fixture(autouse=True)
def _clear():
    Toy.calls.clear()
    yield
    assert not overrides.is_torch_function_dispatch_enabled()


def test_dispatch_inside_context_only():
    t = torch.ones(3)
    toy = Toy()
    with enable_torch_function_dispatch():
        assert torch.add(t, toy) == "toy"
        assert F.relu(toy) == "toy"
        assert torch.cat([toy, t]) == "toy"
        assert torch.special.expit(toy) == "toy"
        assert torch.add(t, other=toy) == "toy"
    names = [c[0] for c in Toy.calls]
    assert names == ["torch.add", "torch.nn.functional.relu", "torch.cat", "torch.special.expit", "torch.add"]
    _, types, args, _ = Toy.calls[2]
    assert types == (Toy,) and len(args) == 1 and args[0][0] is Toy.calls[2][2][0][0]
    assert Toy.calls[4][3]["other"] is toy
    # the public_api handed over is the function the user called, so identity checks work inside
    seen = []

    class Ident:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func is torch.mul)
            return 0

    with enable_torch_function_dispatch():
        torch.mul(Ident(), 2)
    assert seen == [True]


def test_plain_tensors_run_the_original():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, -4.0])
    p = torch.nn.Parameter(torch.tensor([1.0, -1.0]))
    with enable_torch_function_dispatch():
        assert torch.equal(torch.add(a, b), torch.tensor([4.0, -2.0]))
        assert torch.equal(F.relu(b), torch.tensor([3.0, 0.0]))
        assert torch.equal(torch.cat([a, b]), torch.tensor([1.0, 2.0, 3.0, -4.0]))
        assert torch.equal(torch.mul(p, 2), torch.tensor([2.0, -2.0]))
        out = torch.matmul(p, a)
        out.backward()  # autograd still records through the wrapper
    assert torch.equal(p.grad, a)
    assert Toy.calls == []


def test_originals_restored_exactly():
    before = {n: getattr(torch, n) for n in ("add", "cat", "relu", "matmul")}
    f_relu, lin_norm = F.relu, torch.linalg.norm
    with enable_torch_function_dispatch():
        assert torch.add is not before["add"]
        assert torch.add._mt_original is before["add"] and torch.add.__wrapped__ is before["add"]
        assert torch.add.__name__ == before["add"].__name__ and torch.add.__doc__ == before["add"].__doc__
        assert F.relu.__qualname__ == f_relu.__qualname__ and F.relu.__module__ == f_relu.__module__
        assert overrides.resolve_name(F.relu) == "torch.nn.functional.relu"
        assert overrides.resolve_name(torch.linalg.norm) == "torch.linalg.norm"
        # a wrapper equals and hashes as its original: tables keyed outside the extent still match
        assert torch.add == before["add"] and before["add"] == torch.add and torch.add != torch.sub
        assert {before["add"]: "add"}[torch.add] == "add" and hash(torch.add) == hash(before["add"])
        assert pickle.loads(pickle.dumps(torch.add)) is before["add"]
        assert repr(torch.add) == repr(before["add"])
    for n, f in before.items():
        assert getattr(torch, n) is f
    assert F.relu is f_relu and torch.linalg.norm is lin_norm
    # outside the extent the functions are the original builtins: no per-call cost
    assert type(torch.add).__name__ == "builtin_function_or_method"
    assert not hasattr(torch.add, "_mt_original")


def test_restored_after_exception_and_nesting():
    add = torch.add
    with pytest.raises(ZeroDivisionError), enable_torch_function_dispatch():
        raise ZeroDivisionError
    assert torch.add is add
    with enable_torch_function_dispatch():
        wrapped = torch.add
        with enable_torch_function_dispatch():
            assert torch.add is wrapped  # nesting keeps the same wrappers
            assert torch.add(torch.ones(1), Toy()) == "toy"
        assert torch.add is wrapped and overrides.is_torch_function_dispatch_enabled()
        assert torch.add(torch.ones(1), Toy()) == "toy"
    assert torch.add is add


def test_decorator_form():
    @enable_torch_function_dispatch()
    def f(x):
        return torch.neg(x)

    assert f(Toy()) == "toy"
    assert not overrides.is_torch_function_dispatch_enabled()


def test_user_rebinding_inside_is_kept():
    orig = torch.sub

    def mine(*a, **k):
        return "mine"

    add, relu = torch.add, F.relu
    try:
        with enable_torch_function_dispatch():
            torch.sub = mine
        assert torch.sub is mine
        # the other names still get their originals back, the family modules' bindings included
        assert torch.add is add and F.relu is relu
        assert all(vars(m).get("relu", relu) is relu for m in F._FAMILY_MODULES)
    finally:
        torch.sub = orig


def test_rebinding_between_extents_is_seen():
    orig, add = torch.sub, torch.add

    def mine(x, y):
        return "mine"

    def theirs(x, y):
        return "theirs"

    mine.__module__ = "minitorch.user"  # counts as a torch function: wrapped while the dispatch is on
    try:
        with enable_torch_function_dispatch():
            pass
        torch.sub = mine
        with enable_torch_function_dispatch():
            assert torch.sub is not mine and overrides.original_function(torch.sub) is mine
            assert torch.sub(torch.ones(1), Toy()) == "toy"
            assert torch.sub(torch.ones(1), torch.ones(1)) == "mine"
        assert torch.sub is mine and torch.add is add
        torch.sub = theirs  # not a torch function: left alone
        with enable_torch_function_dispatch():
            assert torch.sub is theirs and torch.add is not add
        assert torch.sub is theirs and torch.add is add
    finally:
        torch.sub = orig
    with enable_torch_function_dispatch():
        assert overrides.original_function(torch.sub) is orig
        assert torch.sub(torch.ones(1), Toy()) == "toy"
    assert torch.sub is orig


def test_namespaces_switch_by_class_and_their_own_globals_by_dict():
    # the namespace dicts keep the builtins (nothing rewritten per entry); reads through the module, attribute or
    # `from` import, hand out one wrapper per name; the names a namespace's own code reads as globals (fft's
    # helpers, nn.functional's family modules) are switched in those dicts, since a global read skips the class
    import minitorch.nn.functional._attention as attention
    from minitorch import fft

    add, plain = torch.add, type(torch)
    with enable_torch_function_dispatch():
        assert vars(torch)["add"] is add and type(torch) is not plain
        assert torch.add is not add and overrides.original_function(torch.add) is add
        first = torch.add
        assert torch.add is first  # the same wrapper on every read
        from minitorch import add as imported

        assert imported is torch.add
        assert torch.add(torch.ones(1), Toy()) == "toy"
        assert type(vars(attention)["linear"]).__name__ == "_DispatchingFunction"
        own = [n for n in ("c2c", "r2c", "c2r") if n in vars(fft)]
        assert own and all(type(vars(fft)[n]).__name__ == "_DispatchingFunction" for n in own)
    assert type(torch) is plain and torch.add is add
    assert vars(attention)["linear"] is F.linear


def test_rebound_tensor_constant_between_extents():
    # a plan compares the namespace's public values; a rebound tensor's == is elementwise and must not break it
    torch.mt_test_constant = torch.ones(3)
    try:
        with enable_torch_function_dispatch():
            pass
        torch.mt_test_constant = torch.ones(3)
        with enable_torch_function_dispatch():
            assert torch.add(torch.ones(1), Toy()) == "toy"
        torch.mt_test_constant = torch.zeros(1)
        with enable_torch_function_dispatch():
            assert torch.add(torch.ones(1), Toy()) == "toy"
    finally:
        del torch.mt_test_constant
    assert not overrides.is_torch_function_dispatch_enabled()


def test_not_implemented_errors():
    with enable_torch_function_dispatch():
        with pytest.raises(
            TypeError, match=r"Multiple dispatch failed for 'torch.add'; all __torch_function__"
        ):
            torch.add(Refuses(), 1)
        with pytest.raises(
            TypeError, match=r"no implementation found for 'torch.nn.functional.relu' on types"
        ):
            F.relu(Refuses())
        # a later argument's handler is tried when the first declines
        assert torch.add(Refuses(), Toy()) == "toy"


def test_subclass_goes_first():
    with enable_torch_function_dispatch():
        assert torch.add(Toy(), SubToy()) == "subtoy"
    assert Toy.calls == []


def test_disabled_impl_opts_out():
    class Plain:
        __torch_function__ = overrides._disabled_torch_function_impl

    with enable_torch_function_dispatch(), pytest.raises(TypeError):
        torch.add(torch.ones(1), Plain())


def test_has_and_handle_torch_function():
    t = torch.ones(2)
    assert not has_torch_function((t, 1, "a"))
    assert not has_torch_function((torch.nn.Parameter(t),))
    assert has_torch_function((t, Toy()))
    assert not has_torch_function([[Toy()]])  # one level only, as PyTorch's
    assert overrides.has_torch_function_unary(Toy()) and not overrides.has_torch_function_unary(t)
    assert overrides.has_torch_function_variadic(t, Toy())
    assert overrides.is_tensor_like(t) and overrides.is_tensor_like(Toy()) and not overrides.is_tensor_like(1)

    def my_func(a, b=0):
        if has_torch_function((a,)):
            return handle_torch_function(my_func, (a,), a, b=b)
        return a + b

    assert my_func(1, b=2) == 3
    assert my_func(Toy(), b=2) == "toy"
    # resolve_name knows only the torch namespaces' functions (None otherwise, as PyTorch's)
    assert Toy.calls[-1][0] is None and Toy.calls[-1][3] == {"b": 2}
    with pytest.raises(TypeError, match="no implementation found for .*my_func"):
        handle_torch_function(my_func, (Refuses(),), Refuses())


def test_ignored_functions_are_not_intercepted():
    with enable_torch_function_dispatch():
        assert torch.is_tensor(Toy()) is False
        assert torch.get_default_dtype() == torch.float32
    ignored = overrides.get_ignored_functions()
    assert torch.is_tensor in ignored
    overridable = overrides.get_overridable_functions()
    assert torch.add in overridable[torch] and F.relu in overridable[F]
    assert not any(isinstance(f, type) for fs in overridable.values() for f in fs)
    assert torch.nn.Linear not in overridable[torch.nn.functional]


def test_torch_function_mode():
    log = []

    class Logging(BaseTorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(overrides.resolve_name(func))
            return super().__torch_function__(func, types, args, kwargs)

    x = torch.tensor([-1.0, 2.0])
    with Logging():
        y = F.relu(torch.mul(x, 2))
        assert overrides._get_current_function_mode() is not None
    assert torch.equal(y, torch.tensor([0.0, 4.0]))
    assert log == ["torch.mul", "torch.nn.functional.relu"]
    assert overrides._get_current_function_mode() is None
    assert not overrides.is_torch_function_dispatch_enabled()

    class Abstract(TorchFunctionMode):
        pass

    with pytest.raises(NotImplementedError), Abstract():
        torch.neg(x)


MODE_SEES_METHODS = r"""
def cases(torch):
    seen = []

    class Logging(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    t = torch.ones(2, 3)
    with Logging():
        t.add(t)
        t.sum()
        t[0]
        t.split(1)
        t.numel()
        t.tolist()
        t.size(0)
    return seen
"""


def test_a_users_mode_sees_tensor_methods():
    ours, theirs = cases_here_and_in_pytorch(MODE_SEES_METHODS, [("torch", torch)])
    assert ours == theirs == ["add", "sum", "__getitem__", "split", "numel", "tolist", "size"]


def test_threads_share_the_count():
    add = torch.add
    errors = []

    def worker():
        try:
            for _ in range(20):
                with enable_torch_function_dispatch():
                    assert torch.add(torch.ones(1), Toy()) == "toy"
                    assert torch.equal(torch.add(torch.ones(1), 1), torch.tensor([2.0]))
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert torch.add is add


def test_tensor_methods_opt_in():
    t = torch.tensor([1.0, 2.0])
    add, getitem = vars(torch.Tensor)["add"], vars(torch.Tensor)["__getitem__"]
    with enable_torch_function_dispatch():
        # methods look for overriding arguments in C++: no wrapper installed, vmap pays nothing for them
        assert t.add(Toy()) == "toy"
        assert vars(torch.Tensor)["add"] is add
    Toy.calls.clear()
    with enable_torch_function_dispatch(tensor_methods=True):
        assert t.add(Toy()) == "toy" and t[Toy()] == "toy" and t.expand_as(other=Toy()) == "toy"
        assert torch.equal(t.add(1.0), torch.tensor([2.0, 3.0])) and t[1].item() == 2.0
        with enable_torch_function_dispatch(tensor_methods=True):
            assert t.mul(Toy()) == "toy"
        assert t.mul(Toy()) == "toy"  # still on: counted
    names = [c[0] for c in Toy.calls]
    assert names == [
        "torch.Tensor.add",
        "torch.Tensor.__getitem__",
        "torch.Tensor.expand_as",
        "torch.Tensor.mul",
        "torch.Tensor.mul",
    ]
    assert Toy.calls[0][2][0] is t  # self is the first argument, as PyTorch's
    assert vars(torch.Tensor)["add"] is add and vars(torch.Tensor)["__getitem__"] is getitem
    # outside, the restored method still hands a call it cannot bind to the tensor-like, as PyTorch's does
    n = len(Toy.calls)
    assert t.add(Toy()) == "toy" and len(Toy.calls) == n + 1


# Outside any extent a tensor-like reaches its __torch_function__ once the builtin cannot bind it, as PyTorch's
# parser hands it over; a call with nothing overriding keeps the binder's TypeError.
OUTSIDE = r"""
def cases(torch):
    class Toy:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ["toy", func.__name__, len(args), sorted((kwargs or {}).keys())]

    class Refuses:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    t = torch.ones(3)
    run = runner(lambda v: v)
    return [
        run(lambda: torch.add(t, Toy())),
        run(lambda: torch.add(t, other=Toy())),
        run(lambda: torch.cat([t, Toy()])),
        run(lambda: torch.tanh(Toy())),
        run(lambda: t.mul(Toy())),
        run(lambda: torch.add(t, "x")[0]),
        run(lambda: torch.tanh(Refuses())),
        run(lambda: torch.add(t, 2).tolist()),
    ]
"""


def test_tensor_like_outside_an_extent_reaches_its_handler():
    ours, theirs = cases_here_and_in_pytorch(OUTSIDE, [("torch", torch)])
    assert ours[:5] == theirs[:5]
    assert ours[5][0] == theirs[5][0] == "TypeError"  # nothing overrides: the binder's refusal stands
    assert ours[6][0] == theirs[6][0] == "TypeError"  # every handler refused: PyTorch's words
    assert ours[6] == theirs[6]
    assert ours[7] == theirs[7] == [3.0, 3.0, 3.0]
    assert not overrides.is_torch_function_dispatch_enabled()


# A public function calling others hands a tensor-like argument's __torch_function__ the call as itself, the
# outermost (PyTorch tests at each entry; ours once a call failed, _handover.py): torch.linalg.norm is not
# vector_norm there, F.relu is not torch.relu. Each case: [func is the public function called, the overriding
# types (PyTorch's Python functions also list torch.Tensor, which defines __torch_function__ there and not here),
# the kinds of args].
OUTERMOST = r"""
def cases(torch):
    import warnings

    warnings.simplefilter("ignore")
    F = torch.nn.functional

    def toy_types(types):
        return [t.__name__ for t in types if t.__name__ != "Tensor"]

    class Toy:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return [func, toy_types(types), [type(a).__name__ for a in args]]

    t = torch.ones(2, 4)
    idx = torch.tensor([0, 1])
    calls = [
        (torch.linalg.norm, lambda: torch.linalg.norm(Toy())),
        (torch.linalg.vector_norm, lambda: torch.linalg.vector_norm(Toy())),
        (torch.linalg.matrix_norm, lambda: torch.linalg.matrix_norm(Toy())),
        (torch.tensordot, lambda: torch.tensordot(Toy(), t, 1)),
        (torch.cdist, lambda: torch.cdist(Toy(), t)),
        (F.relu, lambda: F.relu(Toy())),
        (F.softmax, lambda: F.softmax(Toy(), dim=1)),
        (F.log_softmax, lambda: F.log_softmax(Toy(), 1)),
        (F.dropout, lambda: F.dropout(Toy())),
        (F.layer_norm, lambda: F.layer_norm(Toy(), (4,))),
        (F.normalize, lambda: F.normalize(Toy())),
        (F.mse_loss, lambda: F.mse_loss(Toy(), t)),
        (F.cross_entropy, lambda: F.cross_entropy(Toy(), idx)),
        (F.linear, lambda: F.linear(Toy(), t)),
        (F.silu, lambda: F.silu(Toy())),
        (F.leaky_relu, lambda: F.leaky_relu(Toy(), 0.2)),
        (F.embedding, lambda: F.embedding(idx, Toy())),
        (F.pad, lambda: F.pad(Toy(), (1, 1))),
        (torch.tanh, lambda: torch.tanh(Toy())),
        (torch.add, lambda: torch.add(t, Toy())),
        (torch.Tensor.mul, lambda: t.mul(Toy())),
    ]
    out = []
    for public, call in calls:
        try:
            func, types, args = call()
            name = torch.overrides.resolve_name  # (a method's wrapper here is named as the method)
            out.append([func is public or func == public or name(func) == name(public), types, args])
        except Exception as e:
            out.append([type(e).__name__, str(e)])
    return out
"""


def test_the_outermost_public_function_is_handed_the_call():
    ours, theirs = cases_here_and_in_pytorch(OUTERMOST, [("torch", torch)])
    assert all(case[0] is True for case in theirs), theirs
    assert ours == theirs


# torch.norm and torch.split are Python in PyTorch (torch/functional.py): a tensor-like input gets the call with
# every keyword those functions pass, anything else fails reading it as a tensor. The products (matmul, mm,
# addmm) hand a tensor-like to its handler as every builtin does: bound to the instance, one type per class
# (subclasses first), the dispatcher's words when every handler refuses.
PYTHON_FUNCTIONS = r"""
def cases(torch):
    import warnings

    warnings.simplefilter("ignore")  # PyTorch deprecates a handler that is not a classmethod

    class Toy:
        def __torch_function__(self, func, types, args=(), kwargs=None):  # an instance method, not a classmethod
            assert isinstance(self, Toy)
            kw = None if kwargs is None else {k: str(v) for k, v in kwargs.items()}
            return [func.__name__, [t.__name__ for t in types], [type(a).__name__ for a in args], kw]

    class SubToy(Toy):
        pass

    class Refuses:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented

    t, s = Toy(), SubToy()
    run = runner(lambda v: v)
    return [
        run(lambda: torch.norm(t)),
        run(lambda: torch.norm(t, 2, 0, True)),
        run(lambda: torch.norm(t, p=1, dtype=torch.float64)),
        run(lambda: torch.split(t, 1)),
        run(lambda: torch.split(t, [1, 2], dim=1)),
        run(lambda: torch.norm([1.0])),
        run(lambda: torch.split([1.0], 1)),
        run(lambda: torch.matmul(t, t)),
        run(lambda: torch.matmul(t, s)),
        run(lambda: torch.mm(torch.ones(2, 2), t)),
        run(lambda: torch.addmm(t, t, t)),
        run(lambda: torch.matmul(Refuses(), Refuses())),
        run(lambda: torch.split(Refuses(), 1)[0]),
    ]
"""


def test_python_functions_and_products_hand_a_tensor_like_its_call():
    ours, theirs = cases_here_and_in_pytorch(PYTHON_FUNCTIONS, [("torch", torch)])
    assert ours[:12] == theirs[:12]
    # every handler refused: the dispatcher's words for a builtin ("Multiple dispatch failed for
    # 'torch.matmul'"), handle_torch_function's for a Python function (up to the class's repr, which names
    # the module the case runs as)
    assert ours[11][0] == ours[12][0] == theirs[12][0] == "TypeError"
    want = (
        "no implementation found for 'torch.functional.split' on types that implement __torch_function__: [<"
    )
    assert ours[12][1].startswith(want) and theirs[12][1].startswith(want)


def test_a_rewritten_function_keeps_its_lines_and_its_errors():
    import traceback

    from minitorch import _handover

    assert F.softmax.__code__ in _handover.CATCHERS and torch.tensordot.__code__ in _handover.CATCHERS
    with pytest.raises(IndexError) as info:
        F.softmax(torch.ones(2), dim=3)  # a plain tensor: the error is the function's own, raised unchanged
    frames = [f for f in traceback.extract_tb(info.tb) if f.name == "softmax"]
    assert frames and all("__mt_" not in (f.line or "") for f in frames)
    assert "softmax" in frames[0].line  # the line of the body that raised, not the handler's
    # nothing overrides: Python's own error for a plain value, as before
    with pytest.raises(AttributeError):
        F.softmax([1.0, 2.0], dim=0)


def test_the_rewrite_cache_round_trips(tmp_path):
    from minitorch import _handover

    code = _handover._compile(torch.tensordot)
    assert code is not None and code.co_firstlineno == torch.tensordot.__code__.co_firstlineno
    path, stamp = str(tmp_path / "x.handover"), (1, 2)
    _handover._store(path, stamp, {("tensordot", code.co_firstlineno): code})
    assert _handover._load(path, stamp) == {("tensordot", code.co_firstlineno): code}
    assert _handover._load(path, (1, 3)) == {}  # another source: recompiled
    (tmp_path / "x.handover").write_bytes(b"\x00garbage")
    assert _handover._load(path, stamp) == {}
