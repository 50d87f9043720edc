"""The schema rows that replaced hand bindings (new_*, randint, the in-place fills, empty, linspace, logspace, clamp,
clip, Tensor.where, result_type): every call form, good and bad, answers as PyTorch's does (the result's dtype,
shape and values, or the exception's type and words)."""

import pytest

import minitorch
from tests.utils import cases_here_and_in_pytorch

# Each call is evaluated with `torch` bound to PyTorch, then to minitorch (np: NumPy). x: float64 (2, 3); i: int64 [1, 2];
# y: float32 zeros(3) written in place; g: a generator; o: an out= tensor. A call ending in `  # random`
# draws: its values are compared only through `check` (a property true of every draw), not as numbers.
CALLS = """
x.new_zeros(2)
x.new_zeros(2, 3)
x.new_zeros((2, 3))
x.new_zeros([2, 3])
x.new_zeros(size=(2, 3))
x.new_zeros(size=[2])
x.new_zeros(())
x.new_zeros(x.shape)
x.new_zeros(0)
x.new_zeros(torch.Size([2, 1]))
x.new_zeros(torch.tensor(2))
x.new_zeros(2, torch.tensor(3))
x.new_zeros(2, dtype=torch.int32)
x.new_zeros(2, dtype=None)
x.new_zeros(2, device='cpu')
x.new_zeros(2, device=None)
x.new_zeros(2, requires_grad=True)
x.new_zeros(2, pin_memory=False)
x.new_zeros(2, layout=torch.strided)
i.new_zeros(2)
x.new_zeros()
x.new_zeros(2.0)
x.new_zeros('a')
x.new_zeros(2, size=(2,))
x.new_zeros(size=2)
x.new_zeros(2, out=o)
x.new_zeros(2, foo=1)
x.new_zeros(2, dtype='a')
x.new_zeros(2, requires_grad=1)
x.new_zeros(-1)
x.new_zeros((2, 3.0))
x.new_zeros(True)
x.new_zeros(2, None)
x.new_zeros([2], [3])
x.new_zeros(None)
x.new_zeros(2, dtype=torch.int64, requires_grad=True)
x.new_ones(2)
x.new_ones(2, 3)
x.new_ones((2, 3))
x.new_ones(size=(1,))
x.new_ones(2, dtype=torch.bool)
i.new_ones(3)
x.new_ones()
x.new_ones(2.5)
x.new_ones(2, size=(2,))
x.new_ones(2, out=o)
x.new_empty(2).shape
x.new_empty(2, 3).shape
x.new_empty((2, 3)).dtype
x.new_empty(size=(4,)).shape
x.new_empty(2, dtype=torch.float16).dtype
x.new_empty(2, requires_grad=True).requires_grad
x.new_empty(0).shape
x.new_empty(()).shape
x.new_empty()
x.new_empty(2.0)
x.new_empty(2, out=o)
x.new_empty(2, foo=1)
x.new_full((2,), 1.5)
x.new_full([2, 3], 1)
x.new_full(size=(2,), fill_value=3)
x.new_full((2,), True)
x.new_full((2,), 1, dtype=torch.int64)
x.new_full((2,), torch.tensor(2.0))
x.new_full((), 7)
x.new_full(2, 1)
x.new_full(torch.Size([1, 2]), 0.5)
x.new_full((2,), 1, requires_grad=True)
x.new_full((2,), 1, device='cpu')
i.new_full((2,), 1.5)
i.new_full((2,), 4)
x.new_full((2,))
x.new_full()
x.new_full((2,), 'a')
x.new_full(2.0, 1)
x.new_full((2,), 1, 2)
x.new_full((2,), 1, out=o)
x.new_full((2.0,), 1)
x.new_full((2,), None)
x.new_full((2,), torch.zeros(2))
x.new_full((2,), 1, foo=2)
x.new_full(fill_value=1)
torch.randint(5, (3,))  # random
torch.randint(2, 5, (3,))  # random
torch.randint(5, size=(3,))  # random
torch.randint(2, 5, size=(3,))  # random
torch.randint(low=0, high=5, size=(3,))  # random
torch.randint(high=5, size=(3,))  # random
torch.randint(0, high=5, size=(3,))  # random
torch.randint(5, (3,), dtype=torch.int32)  # random
torch.randint(5, (3,), dtype=torch.float32)  # random
torch.randint(5, (3,), generator=g)  # random
torch.randint(2, 5, (3,), generator=g)  # random
torch.randint(5, [3])  # random
torch.randint(5, torch.Size([3, 2]))  # random
torch.randint(5, ())  # random
torch.randint(3, 5, (2, 2), device='cpu')  # random
torch.randint(5, (2,), requires_grad=False)  # random
torch.randint(5, (2,), dtype=torch.float32, requires_grad=True)  # random
torch.randint(5, (2,), layout=torch.strided, pin_memory=False)  # random
torch.randint(torch.tensor(5), (3,))  # random
torch.randint(-3, -1, (3,))  # random
torch.randint(5, (3,), out=o)  # random
torch.randint(5, (3,), dtype=None)  # random
torch.randint(5, (3,), requires_grad=True)
torch.randint(5)
torch.randint(0, 3)
torch.randint(5, 3)
torch.randint(5.0, (3,))
torch.randint(1, 2, 3, 4)
torch.randint()
torch.randint(low=1, size=(3,))
torch.randint(5, (3,), foo=1)
torch.randint(high=5)
torch.randint(5, size=3)
torch.randint(5, (3.0,))
torch.randint(5, high=3, size=(2,))
torch.randint(3, 3, (2,))
torch.randint(5, 2, (2,))
torch.randint(5, (2,), generator=1)
torch.randint(5, (2,), dtype='a')
torch.randint(True, (2,))
torch.randint(5, None)
torch.randint(1, 5, (2,), low=0)
torch.randint(5, (2,), size=(2,))
torch.randint(2, 5.5, (2,))
y.fill_(2)
y.fill_(2.5)
y.fill_(True)
y.fill_(torch.tensor(3.0))
y.fill_(value=1)
y.fill_(torch.tensor(3, dtype=torch.int64))
i.clone().fill_(2.7)
y.fill_(torch.tensor([1.0]))
y.fill_('a')
y.fill_()
y.fill_(1, 2)
y.fill_(None)
y.fill_(1, foo=2)
y.zero_()
y.zero_(1)
y.zero_(foo=1)
y.uniform_()  # random
y.uniform_(0, 2)  # random
y.uniform_(1)  # random
y.uniform_(**{'from': 1, 'to': 2})  # random
y.uniform_(to=0.5)  # random
y.uniform_(0, 1, generator=g)  # random
y.uniform_(2, 1)
y.uniform_('a')
y.uniform_(0, 1, g)
y.uniform_(0, 1, foo=1)
y.uniform_(0, float('inf'))
y.uniform_(True, 2)  # random
y.uniform_(torch.tensor(0.5))  # random
i.clone().uniform_()
y.normal_()  # random
y.normal_(0, 2)  # random
y.normal_(mean=1, std=2)  # random
y.normal_(1)  # random
y.normal_(0, 1, generator=g)  # random
y.normal_(std=-1)
y.normal_('a')
y.normal_(0, 1, 2)
y.normal_(0, 1, g)
i.clone().normal_()
y.random_()  # random
y.random_(5)  # random
y.random_(2, 5)  # random
y.random_(to=5)  # random
y.random_(**{'from': 2})  # random
y.random_(**{'from': 2, 'to': 4})  # random
y.random_(2, None)  # random
y.random_(5, generator=g)  # random
y.random_(2, 5, generator=g)  # random
i.clone().random_(3)  # random
i.clone().random_()  # random
torch.zeros(3, dtype=torch.bool).random_()  # random
y.random_(5.0)
y.random_(5, 2)
y.random_('a')
y.random_(1, 2, 3)
y.random_(None)
y.random_(2, 5, g)
y.random_(foo=1)
y.random_(0)
y.bernoulli_()  # random
y.bernoulli_(0.3)  # random
y.bernoulli_(p=0.3)  # random
y.bernoulli_(1)  # random
y.bernoulli_(torch.tensor([0.1, 0.2, 0.3]))  # random
y.bernoulli_(torch.tensor(0.5))  # random
y.bernoulli_(0.5, generator=g)  # random
y.bernoulli_(p=torch.tensor([0.0, 1.0, 0.0]))  # random
i.clone().bernoulli_(0.5)  # random
y.bernoulli_(2.0)
y.bernoulli_(-0.5)
y.bernoulli_('a')
y.bernoulli_(0.5, g)
y.bernoulli_(0.5, 1)
y.bernoulli_(None)
torch.empty(2, 3).shape
torch.empty((2, 3)).shape
torch.empty([2, 3]).dtype
torch.empty(size=(2,)).shape
torch.empty(()).shape
torch.empty(0).shape
torch.empty(2, dtype=torch.int32).dtype
torch.empty(2, requires_grad=True).requires_grad
torch.empty(2, device='cpu').device.type
torch.empty(1, 2, 3, 4, memory_format=torch.channels_last).stride()
torch.empty(1, 2, 3, 4, memory_format=torch.contiguous_format).stride()
torch.empty(2, 2, 2, 2, 2, memory_format=torch.channels_last_3d).stride()
torch.empty(1, 2, 3, 4, memory_format=torch.channels_last, requires_grad=True).requires_grad
torch.empty(2, memory_format=None).shape
torch.empty(2, out=o) is o
torch.empty(2, memory_format=torch.channels_last)
torch.empty(2, memory_format=torch.preserve_format)
torch.empty(2, memory_format='a')
torch.empty()
torch.empty(2.0)
torch.empty(2, size=(2,))
torch.empty(2, foo=1)
torch.empty(2, dtype='a')
torch.empty(-1)
torch.linspace(0, 1, 5)
torch.linspace(torch.tensor(0.0), 1, 5)
torch.linspace(0, torch.tensor(1.0, dtype=torch.float64), 3)
torch.linspace(torch.tensor(0.0, requires_grad=True), 1, 3)
torch.linspace(torch.tensor(1j), 2, 3)
torch.linspace(torch.tensor(1, dtype=torch.int32), torch.tensor(True), 3)
torch.linspace(torch.tensor([0.0]), 1, 5)
torch.linspace(torch.tensor([0.0, 1.0]), 1, 5)
torch.linspace(0, torch.zeros(1, 1), 5)
torch.linspace(torch.tensor([0.0]), torch.tensor([1.0]), 5)
torch.linspace(True, 2, 3)
torch.linspace(0, 1j, 5)
torch.linspace(x.sum(), 1, 3)
torch.linspace(0, 1, i[0])
torch.linspace(start=0, end=1, steps=3)
torch.linspace(0, 1, steps=3)
torch.linspace(0, 1, 0)
torch.linspace(0, 1, 1)
torch.linspace(2, 1, 3, dtype=torch.float64)
torch.linspace(-5, 5, 4, dtype=torch.int32)
torch.linspace(0, 1, 3, dtype=torch.complex128)
torch.linspace(0, 1, 3, requires_grad=True)
torch.linspace(0, 1, 3, device='cpu', layout=torch.strided, pin_memory=False)
torch.linspace(0, 1, 5, out=o)
torch.linspace(0, 1, 5, out=torch.zeros(2))
torch.linspace(0, 1, 5, dtype=torch.float64, out=torch.zeros(2))
torch.linspace(0, 1, 3, dtype=torch.bool)
torch.linspace(0, 1, -1)
torch.linspace(0, 1, 5.0)
torch.linspace(0, 1, True)
torch.linspace('a', 1, 5)
torch.linspace(None, 1, 5)
torch.linspace(0, [1], 5)
torch.linspace(0, 1)
torch.linspace(0, 1, 3, 4)
torch.linspace(0, 1, 3, base=2)
torch.linspace(0, 1, 3, requires_grad=1)
torch.linspace(0, 1, 3, dtype='a')
torch.linspace(0, 1, 3, out=1)
torch.logspace(0, 1, 5)
torch.logspace(0, 1, 5, 2)
torch.logspace(0, 2, 3, base=2)
torch.logspace(torch.tensor(1.0), 2, 3)
torch.logspace(0, 1, 5, dtype=torch.int64)
torch.logspace(0, 1, 5, dtype=torch.complex64)
torch.logspace(0, 1, 5, dtype=torch.complex128)
torch.logspace(0j, 1, 5)
torch.logspace(-1, 1j, 5)
torch.logspace(0, 2, 3, out=o)
torch.logspace(0, 2, 3, out=torch.zeros(1))
torch.logspace(0, 2, 3, requires_grad=True)
torch.logspace(torch.tensor([0.0]), 1, 5)
torch.logspace(torch.tensor([0.0]), torch.ones(2, 2), 5)
torch.logspace(0, 1, 3, dtype=torch.bool)
torch.logspace(0, 1, -2)
torch.logspace(0, 1, 5.0)
torch.logspace('a', 1, 5)
torch.logspace(0, 1, 5, base='a')
torch.logspace(0, 1)
torch.logspace(0, 1, 3, 2, 3)
torch.clamp(x, 0.5, 1.0)
torch.clamp(x, min=0.5)
torch.clamp(x, max=-1)
torch.clamp(x, None, 2)
torch.clamp(x, torch.tensor(0.5), 1)
torch.clamp(x, torch.zeros(3), torch.ones(3))
torch.clamp(x, torch.tensor(0.5), torch.tensor(1.0))
torch.clamp(i, 1.5)
torch.clamp(i, torch.tensor(1.5))
torch.clamp(i.int(), -1, torch.tensor(0))
torch.clamp(i.int(), torch.tensor(0), torch.tensor(5))
torch.clamp(x, torch.zeros(3), 1)
torch.clamp(x, torch.tensor(0.0, requires_grad=True), 1)
torch.clamp(x)
torch.clamp(x, 'a')
torch.clamp(x, 0, 1, 2)
torch.clamp(x, 0, out=o)
torch.clamp(1, 0)
torch.clip(x, -1, 0)
torch.clip(x, torch.zeros(3), 1)
torch.clip(i.int(), -1, torch.tensor(0))
x.clamp(0.1, 0.2)
x.clamp(min=torch.ones(3))
x.clamp(torch.zeros(3), 1)
x.clip(max=0)
x.clip('a')
y.clamp_(0.5, 1)
y.clamp_(torch.ones(3))
y.clip_(-1, -0.5)
y.clip_(torch.ones(3), 1)
x.where(x > 0, 2.0)
x.where(x > 0, torch.ones(3))
x.where(condition=x > 0, other=1)
x.where(x > 0)
x.where(x > 0, 'a')
torch.result_type(x, 1)
torch.result_type(i, 1.5)
torch.result_type(1, 2.0)
torch.result_type(i, torch.tensor(1.0))
torch.result_type(tensor=i, other=x)
torch.result_type(x)
torch.result_type(x, None)
torch.result_type(x, np.float64(2.5))
torch.clamp_min(x, 'a')
torch.clamp_min(x)
x.clamp_min(None)
x.clamp_max(torch.tensor(0.5))
torch.clamp_max(x, np.array([0.5, 1.0, 2.0]))
torch.lerp(x, x, 'a')
torch.lerp(x, 'a', 0.5)
torch.lerp(x, torch.zeros(3), 0.5)
torch.masked_fill(x, x > 0, 'a')
torch.masked_fill(x, x > 0, 2)
x.masked_fill(x > 0, torch.tensor(2.0))
"""
CALLS = [c.strip() for c in CALLS.strip().splitlines()]


def _raises(message, kind="TypeError"):
    return ["raises", kind, message]


# Where PyTorch's answer is not ours: the call, our outcome (pinned: a change shows here) and why. Most are the
# words of helpers every factory shares, not of these rows.
DTYPE = "parse_dtype's words, shared by every dtype= argument"
GRAD = "set_requires_grad's words, shared by every factory"
DIVERGES = {
    "x.new_zeros(2, dtype='a')": (
        _raises("dtype must be a minitorch.dtype (e.g. minitorch.float32), got str"),
        DTYPE,
    ),
    "torch.randint(5, (2,), dtype='a')": (
        _raises("dtype must be a minitorch.dtype (e.g. minitorch.float32), got str"),
        DTYPE,
    ),
    "torch.empty(2, dtype='a')": (
        _raises("dtype must be a minitorch.dtype (e.g. minitorch.float32), got str"),
        DTYPE,
    ),
    "torch.linspace(0, 1, 3, dtype='a')": (
        _raises("dtype must be a minitorch.dtype (e.g. minitorch.float32), got str"),
        DTYPE,
    ),
    "torch.linspace(0, 1, 3, out=1)": (
        _raises("argument 'out' must be Tensor, not int"),
        "FactoryOut's words (bind_factory.cpp), shared by every factory's out=; a row's out= is no caster",
    ),
    "torch.clamp(x, 0, out=o)": (
        _raises("result type Double can't be cast to the desired output type Short", "RuntimeError"),
        "the out= rule's words (castable, bind_out.cpp), as clamp's hand binding had them",
    ),
    "x.new_zeros(2, dtype=torch.int64, requires_grad=True)": (
        _raises("only Tensors of floating point dtype can require gradients", "RuntimeError"),
        GRAD,
    ),
    "torch.randint(5, (3,), requires_grad=True)": (
        _raises("only Tensors of floating point dtype can require gradients", "RuntimeError"),
        GRAD,
    ),
    "x.new_full(fill_value=1)": (
        _raises('new_full() missing 1 required positional arguments: "size"'),
        "PyTorch's parser counts fill_value, given by keyword, as missing too",
    ),
    "torch.randint(low=1, size=(3,))": (
        _raises("randint() got an unexpected keyword argument 'low'"),
        "both words are the first row's: PyTorch names what it lacks, arg_errors.cpp the keyword it does not take",
    ),
}

SOURCE = """
def cases(torch, calls):
    import math

    import numpy as np

    def outcome(value, random):
        if isinstance(value, torch.Tensor):
            v = None if random else value.detach()
            # complex values as [real, imag] pairs: the outcomes travel as JSON
            v = v if v is None else (torch.view_as_real(v) if v.dtype.is_complex else v).tolist()
            if isinstance(v, list) and any(isinstance(e, float) and math.isnan(e) for e in _flat(v)):
                v = "nan"
            return ["tensor", str(value.dtype), list(value.shape), v, value.requires_grad]
        if isinstance(value, torch.Size):
            return ["size", list(value)]
        return [type(value).__name__, value if isinstance(value, (int, float, bool, str, type(None), tuple)) else repr(value)]

    def _flat(v):
        for e in v:
            if isinstance(e, list):
                yield from _flat(e)
            else:
                yield e

    out = []
    for call in calls:
        random = call.endswith("# random")
        torch.manual_seed(0)
        env = {
            "torch": torch,
            "np": np,
            "x": torch.zeros(2, 3, dtype=torch.float64),
            "i": torch.tensor([1, 2]),
            "y": torch.zeros(3),
            "g": torch.Generator().manual_seed(1),
            "o": torch.zeros(0, dtype=torch.int16),
        }
        try:
            r = eval(call.split("  #")[0], env)
            res = outcome(r, random)
            if random and isinstance(r, torch.Tensor) and r.dtype != torch.bool and r.numel():
                res.append("finite" if bool(torch.isfinite(r.double()).all()) else "not finite")
            if call.startswith("y.") and isinstance(r, torch.Tensor):
                res.append(r is env["y"])
        except Exception as e:  # noqa: BLE001 - the exception is the outcome
            res = ["raises", type(e).__name__, str(e).splitlines()[0] if str(e) else ""]
        out.append(res)
    return out
"""


@pytest.fixture(scope="module")
def outcomes():
    ours, theirs = cases_here_and_in_pytorch(SOURCE, [("torch", minitorch)], CALLS)
    return dict(zip(CALLS, ours)), dict(zip(CALLS, theirs))


@pytest.mark.parametrize("call", CALLS)
def test_call_answers_as_pytorchs(outcomes, call):
    ours, theirs = outcomes
    if call in DIVERGES:
        want, _why = DIVERGES[call]
        assert ours[call] == want and ours[call] != theirs[call]
    else:
        assert ours[call] == theirs[call]
