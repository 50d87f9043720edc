"""Methods of plain tensors given a transformed argument (vmap's BatchedTensor, jvp's dual, a user's tensor-like)
reach its __torch_function__ as PyTorch's C++ methods do: results against a loop over the batch (float64),
in-place refusals in PyTorch's words, tangents against the function forms and by hand."""

import json
import os
import subprocess
import sys
import typing
import warnings

import pytest

import minitorch as torch
from minitorch.func import jvp, vmap
from minitorch.overrides import enable_torch_function_dispatch
from minitorch.testing import assert_close
from tests.utils import run_oracle

D = torch.float64


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def rand(*shape):
    return torch.randn(shape, dtype=D)


W = rand(3)
M = rand(4, 3)
IDX = torch.tensor([2, 0, 1, 1, 0])

# (name, f, batched inputs): f calls a method of the plain W or M with its batched argument(s) in various
# positions (positional, keyword, inside a tuple); the methods written in C++ and in Python both
CASES = [
    ("mul", lambda x: W.mul(x), (rand(5, 3),)),
    ("add alpha", lambda x: W.add(x, alpha=2), (rand(5, 3),)),
    ("add other=", lambda x: W.add(other=x), (rand(5, 3),)),
    ("sub of a row", lambda x: W.sub(x), (rand(5, 1),)),
    ("matmul", lambda x: W.matmul(x), (rand(5, 3),)),
    ("mm", lambda x: M.mm(x), (rand(5, 3, 2),)),
    ("matmul matrix", lambda x: M.matmul(x), (rand(5, 3),)),
    ("dot", lambda x: W.dot(x), (rand(5, 3),)),
    ("expand_as", lambda x: W.expand_as(x), (rand(5, 2, 3),)),
    ("where batched condition", lambda x: W.where(x > 0, -W), (rand(5, 3),)),
    ("where batched other", lambda x: W.where(W > 0, x), (rand(5, 3),)),
    ("where both", lambda c, x: W.where(c > 0, x), (rand(5, 3), rand(5, 3))),
    ("masked_fill batched mask", lambda x: W.masked_fill(x > 0, 0.5), (rand(5, 3),)),
    ("maximum", lambda x: W.maximum(x), (rand(5, 3),)),
    ("clamp min=", lambda x: W.clamp(min=x), (rand(5, 3),)),
    ("lerp batched end and weight", lambda x, y: W.lerp(x, y), (rand(5, 3), rand(5, 3))),
    ("getitem batched index", lambda i: W[i], (IDX,)),
    ("index_put tuple", lambda i: W.index_put((i,), torch.tensor(7.0, dtype=D)), (IDX,)),
    ("chained", lambda x: W.mul(x).add(W).sum(), (rand(5, 3),)),
    # the methods written in Python (guarded in C++ as the pybind11 ones are)
    ("hypot (Python)", lambda x: W.hypot(x), (rand(5, 3),)),
    ("type_as (Python)", lambda x: W.float().type_as(x), (rand(5, 3),)),
    ("copysign (Python)", lambda x: W.copysign(x), (rand(5, 3),)),
    ("addcmul (Python)", lambda x: W.addcmul(x, x, value=0.5), (rand(5, 3),)),
    ("kron (Python)", lambda x: W.kron(x), (rand(5, 2),)),
]


def loop(f, *args):
    return torch.stack([f(*(a[i] for a in args)) for i in range(args[0].shape[0])])


@pytest.mark.parametrize(("name", "f", "inputs"), CASES, ids=[c[0] for c in CASES])
def test_vmap_plain_method_matches_loop(name, f, inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a method without a rule runs per entry
        got = vmap(f)(*inputs)
    assert_close(got, loop(f, *inputs))


def test_nested_vmap_plain_method():
    x, y = rand(4, 3), rand(5, 3)

    def f(a, b):
        return W.mul(a).add(b).mul(W.expand_as(b))

    got = vmap(vmap(f, in_dims=(None, 0)), in_dims=(0, None))(x, y)
    want = torch.stack([torch.stack([f(x[i], y[j]) for j in range(5)]) for i in range(4)])
    assert_close(got, want)
    # the plain tensor meets arguments of two levels in one call
    got = vmap(vmap(lambda a, b: W.addcmul(a, b), in_dims=(None, 0)), in_dims=(0, None))(x, y)
    want = torch.stack([torch.stack([W.addcmul(x[i], y[j]) for j in range(5)]) for i in range(4)])
    assert_close(got, want)


_TAIL = (
    "(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more "
    "elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over "
)


def _arith(name):
    return f"vmap: {name}{_TAIL}in a vmap. Please try to use out-of-place operators instead of {name}."


def _aten(name, level=1):
    return f"vmap: aten::{name}{_TAIL}at level {level}. Please try to use out-of-place operators instead of aten::{name}."


# PyTorch 2.15's words, by how functorch implements each op
INPLACE = [
    ("add_", lambda w, x: w.add_(x), "output with shape [3] doesn't match the broadcast shape [5, 3]"),
    ("iadd", lambda w, x: w.__iadd__(x), "output with shape [3] doesn't match the broadcast shape [5, 3]"),
    ("mul_", lambda w, x: w.mul_(x), _arith("inplace arithmetic")),
    ("sub_", lambda w, x: w.sub_(x), _arith("inplace arithmetic")),
    ("div_", lambda w, x: w.div_(x), _arith("inplace arithmetic")),
    ("copy_", lambda w, x: w.copy_(x), _arith("inplace arithmetic")),
    ("imul", lambda w, x: w.__imul__(x), _arith("inplace arithmetic")),
    ("masked_fill_ batched mask", lambda w, x: w.masked_fill_(x > 0, 1.0), _arith("inplace arithmetic")),
    ("masked_fill_ batched value", lambda w, x: w.masked_fill_(w > 0, x[0]), _arith("masked_fill_")),
    ("fill_", lambda w, x: w.fill_(x[0]), _arith("fill_")),
    ("index_add_", lambda w, x: w.index_add_(0, torch.tensor([0, 1, 2]), x), _arith("index_add_")),
    ("setitem", lambda w, x: w.__setitem__(0, x[0]), _arith("index_put_")),
    ("pow_", lambda w, x: w.pow_(x), _aten("pow_")),
    ("ipow", lambda w, x: w.__ipow__(x), _aten("pow_")),
    ("lerp_", lambda w, x: w.lerp_(x, 0.5), _aten("lerp_")),
    ("addcmul_", lambda w, x: w.addcmul_(x, x), _aten("addcmul_")),
    ("clamp_", lambda w, x: w.clamp_(x), _aten("clamp_")),
]


@pytest.mark.parametrize(("name", "f", "msg"), INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_on_plain_tensor_refused(name, f, msg):
    w = rand(3).abs() + 0.5
    before = w.clone()
    with pytest.raises(RuntimeError) as info:
        vmap(lambda x: f(w, x))(rand(5, 3).abs() + 0.5)
    assert str(info.value).startswith(msg)
    assert torch.equal(w, before)  # nothing written


def test_inplace_refused_at_the_inner_level():
    # self batched at the outer level only: the inner level's argument cannot be written into it
    with pytest.raises(RuntimeError) as info:
        vmap(vmap(lambda w, x: w.pow_(x), in_dims=(None, 0)))(rand(2, 3), rand(2, 4, 3))
    assert str(info.value).startswith(_aten("pow_", level=2))


def test_inplace_on_batched_self_still_writes():
    x, y = rand(5, 3), rand(5, 3)
    want = x * y

    def f(a, b):
        return a.mul_(b)

    vmap(f)(x, y)
    assert_close(x, want)


# jvp: a dual argument to a plain tensor's method carries its tangent through, as the function form does
JVP = [
    ("mul", lambda x: W.mul(x), lambda x, t: W * t),
    ("dot", lambda x: W.dot(x), lambda x, t: (W * t).sum()),
    ("matmul", lambda x: M.matmul(x), lambda x, t: M @ t),
    ("expand_as", lambda x: W.expand_as(x), lambda x, t: torch.zeros_like(t)),
    ("where other", lambda x: W.where(W > 0, x), lambda x, t: torch.where(W > 0, 0.0, t)),
    ("where self", lambda x: x.where(x > 0, W), lambda x, t: torch.where(x > 0, t, 0.0)),
    ("hypot (Python)", lambda x: W.hypot(x), lambda x, t: x * t / torch.hypot(W, x)),
    ("add other= alpha", lambda x: W.add(other=x, alpha=3), lambda x, t: 3 * t),
]


@pytest.mark.parametrize(("name", "f", "tangent"), JVP, ids=[c[0] for c in JVP])
def test_jvp_dual_argument_to_plain_method(name, f, tangent):
    x, t = rand(3), rand(3)
    out, tan = jvp(f, (x,), (t,))
    assert_close(out, f(x))
    assert_close(tan, tangent(x, t))


def test_jvp_of_vmap_plain_method():
    # jacfwd-like: batched tangents of a dual argument to a plain tensor's method
    x = rand(3)
    jac = vmap(lambda t: jvp(lambda a: W.mul(a).sum() * W, (x,), (t,))[1])(torch.eye(3, dtype=D))
    assert_close(jac, W[:, None] * W[None, :])


class Toy:
    """A tensor-like that is no Tensor: records what each call handed it."""

    calls: typing.ClassVar[list] = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(
            [
                func.__name__,
                [t.__name__ for t in types],
                [type(a).__name__ for a in args],
                sorted(kwargs or {}),
            ]
        )
        return "toy"


class Refuses:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


_USER_CALLS = """
def run(torch, Toy, Refuses):
    w = torch.tensor([1.0, 2.0, 3.0])
    out = []
    for f in (lambda: w.mul(Toy()), lambda: w.add(other=Toy()), lambda: w.expand_as(Toy()),
              lambda: w[Toy()], lambda: w.index_put_((Toy(),), w), lambda: w.where(w > 1, Toy()),
              lambda: w.hypot(Toy()), lambda: w.type_as(Toy()), lambda: w.lerp(Toy(), 0.5)):
        out.append(f())
    try:
        w.mul(Refuses())
    except TypeError as e:
        out.append(str(e).replace(Refuses.__module__ + ".", ""))
    return out
"""


def test_user_tensor_like_reaches_plain_methods_as_in_pytorch():
    ns = {}
    exec(_USER_CALLS, ns)  # noqa: S102  (the same calls run here and in PyTorch)
    Toy.calls.clear()
    with enable_torch_function_dispatch():
        got = ns["run"](torch, Toy, Refuses)
    got_calls = list(Toy.calls)
    script = (
        "import json, sys, torch\n"
        + "class Toy:\n    calls = []\n"
        + "    @classmethod\n    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        + "        cls.calls.append([func.__name__, [t.__name__ for t in types], "
        + "[type(a).__name__ for a in args], sorted(kwargs or {})])\n        return 'toy'\n"
        + "class Refuses:\n    @classmethod\n    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        + "        return NotImplemented\n"
        + _USER_CALLS
        + "out = run(torch, Toy, Refuses)\nprint(json.dumps({'out': out, 'calls': Toy.calls}))\n"
    )
    want = run_oracle(script, {})
    assert json.loads(json.dumps(got)) == want["out"]
    assert got_calls == want["calls"]


def test_tensor_like_reaches_its_handler_outside_transforms():
    # outside a transform the protocol runs only where no overload accepts the call (successful calls pay
    # nothing): there a tensor-like's handler answers, as PyTorch's (w.mul(Toy()) is 'toy' there too)
    w = torch.ones(3)
    assert w.mul(Toy()) == "toy"
    assert w.hypot(Toy()) == "toy"
    assert torch.mul(w, Toy()) == "toy"
    with pytest.raises(TypeError):  # no handler: the overloads' TypeError
        w.mul(object())


def test_tensor_like_reaches_its_handler_in_a_fresh_process():
    """`import minitorch` alone (minitorch.overrides not imported yet): a tensor-like's handler answers the
    C++ functions, the Python-written ones (hypot, linalg) and methods: the answers PyTorch 2.15 gives."""
    script = (
        "import json, sys\n"
        "import {mod} as torch\n"
        "class Toy:\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        return 'toy'\n"
        "w = torch.ones(3)\n"
        "calls = ['torch.hypot(w, Toy())', 'w.hypot(Toy())', 'torch.atan2(w, Toy())', 'torch.cat([w, Toy()])',\n"
        "         'torch.nn.functional.relu(Toy())', 'torch.lerp(w, Toy(), 0.5)', 'torch.linalg.norm(Toy())',\n"
        "         'torch.stack([Toy(), w])', 'torch.add(w, object())', 'torch.hypot(w, object())']\n"
        "out = []\n"
        "for c in calls:\n"
        "    try:\n"
        "        out.append(eval(c))\n"
        "    except TypeError as e:\n"
        "        out.append('TypeError')\n"
        "print(json.dumps(out))\n"
    )
    got = subprocess.run(
        [sys.executable, "-c", script.format(mod="minitorch")], capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    ours = json.loads(got.stdout.strip().splitlines()[-1])
    assert ours == ["toy"] * 8 + ["TypeError"] * 2
