"""Custom autograd.Functions under forward over reverse: their backward runs under forward AD, as PyTorch's."""

import numpy as np
import pytest
from utils import cases_here_and_in_pytorch

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
from minitorch.autograd import function
from minitorch.autograd import functional as AF
from minitorch.autograd.function import once_differentiable

# The same source on minitorch and on PyTorch: cases(torch, fwAD, AF, function) returns name ->
# [primal, tangent] (None for a gradient without a tangent) or the exception's type and first line.
CASES = r"""
def cases(torch, fwAD, AF, function):
    once_differentiable = function.once_differentiable
    D = torch.float64
    Function = torch.autograd.Function
    p = torch.tensor([0.5, -1.2, 2.0], dtype=D)
    v = torch.tensor([1.0, 0.3, -0.7], dtype=D)
    q = torch.tensor([1.5, 0.2, -0.4], dtype=D)

    class CubeSaved(Function):  # ctx first, the input saved for backward and for jvp
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * 3 * x ** 2

    class CubeAttr(Function):  # the input kept as a ctx attribute
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            return g * 3 * ctx.x ** 2

        @staticmethod
        def jvp(ctx, t):
            return t * 3 * ctx.x ** 2

    class ScaleNum(Function):  # only number state: no second-order term
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

        @staticmethod
        def jvp(ctx, t, _):
            return t * ctx.k

    class ExpOut(Function):  # saves its output, whose tangent is jvp's
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            ctx.save_for_forward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

        @staticmethod
        def jvp(ctx, t):
            (y,) = ctx.saved_tensors
            return t * y

    class Straight(Function):  # a backward that is not forward's derivative: PyTorch differentiates backward
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.round()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.sin()

        @staticmethod
        def jvp(ctx, t):
            return t * 0.5

    class SinSetup(Function):  # setup_context style
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x.sin()

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * x.cos()

    class MulSetup(Function):  # two inputs
        generate_vmap_rule = True

        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)
            ctx.save_for_forward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * y + x * ty

    class TwoOut(Function):  # two outputs, one of them saved
        @staticmethod
        def forward(ctx, x):
            s, c = x.sin(), x.cos()
            ctx.save_for_backward(x, s)
            ctx.save_for_forward(x, s)
            return s, c

        @staticmethod
        def backward(ctx, gs, gc):
            x, s = ctx.saved_tensors
            return gs * x.cos() - gc * s

        @staticmethod
        def jvp(ctx, t):
            x, s = ctx.saved_tensors
            return t * x.cos(), -t * s

    class CubeOnce(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x ** 3

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * 3 * x ** 2

    class CubeNoJvp(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    fns = {
        "CubeSaved": CubeSaved.apply,
        "CubeAttr": CubeAttr.apply,
        "ScaleNum": lambda x: ScaleNum.apply(x, 2.5),
        "ExpOut": ExpOut.apply,
        "Straight": Straight.apply,
        "SinSetup": SinSetup.apply,
        "MulSetup": lambda x: MulSetup.apply(x, x.sin()),
        "TwoOut": lambda x: TwoOut.apply(x)[0] * 2 + TwoOut.apply(x)[1],
        "CubeOnce": CubeOnce.apply,
        "CubeNoJvp": CubeNoJvp.apply,
    }

    def rec(g):
        pr, tn = fwAD.unpack_dual(g)
        return [pr.detach().tolist(), None if tn is None else tn.tolist()]

    def run(f):
        try:
            return f()
        except Exception as e:
            return ["exc", type(e).__name__, str(e).split("\n")[0]]

    out = {}
    for name, f in fns.items():
        def grad(create):
            with fwAD.dual_level():
                x = fwAD.make_dual(p.clone().requires_grad_(), v)
                (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=create)
                return rec(g)

        def cotangent():
            with fwAD.dual_level():
                x = fwAD.make_dual(p.clone().requires_grad_(), v)
                y = f(x)
                (g,) = torch.autograd.grad(y, x, fwAD.make_dual(q.clone(), v * 2))
                return rec(g)

        def backward():
            with fwAD.dual_level():
                a = p.clone().requires_grad_()
                f(a * fwAD.make_dual(torch.ones(3, dtype=D), v)).sum().backward()
                return rec(a.grad)

        def hvp():
            val, h = AF.hvp(lambda x: f(x).sum(), p, v)
            return [val.tolist(), h.tolist()]

        out[name + "/grad"] = run(lambda: grad(False))
        out[name + "/grad_create"] = run(lambda: grad(True))
        out[name + "/cotangent"] = run(cotangent)
        out[name + "/backward"] = run(backward)
        out[name + "/hvp"] = run(hvp)
    for name in ("SinSetup", "MulSetup"):
        f = fns[name]

        def jvp_of_grad():
            pr, tn = torch.func.jvp(torch.func.grad(lambda x: f(x).sum()), (p,), (v,))
            return [pr.tolist(), tn.tolist()]

        out[name + "/jvp_grad"] = run(jvp_of_grad)
        out[name + "/jacfwd_jacrev"] = run(
            lambda: torch.func.jacfwd(torch.func.jacrev(lambda x: f(x).sum()))(p).tolist()
        )
    return out
"""


def _same(a, b, where):
    if isinstance(b, list) and b and b[0] == "exc":
        assert a == b, where
        return
    assert isinstance(a, list) and len(a) == len(b), (where, a)
    for x, y in zip(a, b):
        assert (x is None) == (y is None), (where, a, b)
        if y is not None:
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12, err_msg=where)


def test_custom_functions_match_pytorch():
    modules = [
        ("torch", torch),
        ("torch.autograd.forward_ad", fwAD),
        ("torch.autograd.functional", AF),
        ("torch.autograd.function", function),
    ]
    ours, theirs = cases_here_and_in_pytorch(CASES, modules)
    assert set(ours) == set(theirs)
    for name, b in theirs.items():
        _same(ours[name], b, name)


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x**2

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * 3 * x**2


class LogSumExp(torch.autograd.Function):
    """A vector-valued Jacobian (softmax) in backward, on saved input and output."""

    @staticmethod
    def forward(ctx, x):
        r = x.logsumexp(-1)
        ctx.save_for_backward(x, r)
        ctx.save_for_forward(x, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, r = ctx.saved_tensors
        return g.unsqueeze(-1) * (x - r.unsqueeze(-1)).exp()

    @staticmethod
    def jvp(ctx, t):
        x, r = ctx.saved_tensors
        return (t * (x - r.unsqueeze(-1)).exp()).sum(-1)


def _fd_hvp(f, x, v, eps=1e-6):
    """The central difference of f's gradient along v (float64)."""

    def g(y):
        y = y.detach().requires_grad_()
        (r,) = torch.autograd.grad(f(y), y)
        return r

    return (g(x + eps * v) - g(x - eps * v)) / (2 * eps)


@pytest.mark.parametrize("fn", [Cube, LogSumExp])
@pytest.mark.parametrize("create_graph", [False, True])
def test_dual_gradient_tangent_is_the_finite_difference_hvp(fn, create_graph):
    torch.manual_seed(0)
    x = torch.randn(2, 4, dtype=torch.float64)
    v = torch.randn(2, 4, dtype=torch.float64)
    w = torch.randn(fn.apply(x).shape, dtype=torch.float64)

    def f(y):
        return (fn.apply(y) * w).sum()

    with fwAD.dual_level():
        d = fwAD.make_dual(x.clone().requires_grad_(), v)
        (g,) = torch.autograd.grad(f(d), d, create_graph=create_graph)
        tangent = fwAD.unpack_dual(g).tangent
    assert tangent is not None
    np.testing.assert_allclose(tangent.detach().numpy(), _fd_hvp(f, x, v).numpy(), rtol=1e-6, atol=1e-8)


def test_once_differentiable_refuses_a_second_backward():
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)

    class Once(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x**2

    y = Once.apply(x)
    gy = torch.ones(2, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(y, x, gy, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [0.75, 12.0])
    assert g.requires_grad
    with pytest.raises(
        RuntimeError,
        match="trying to differentiate twice a function that was marked with @once_differentiable",
    ):
        g.sum().backward()
    # without a graph to build, the backward's result is plain
    (g2,) = torch.autograd.grad(Once.apply(x), x, torch.ones(2, dtype=torch.float64))
    assert not g2.requires_grad
