"""Forward over reverse through the autograd API: autograd.grad / backward of dual tensors inside a dual level."""

import numpy as np
import pytest
from utils import cases_here, cases_here_and_in_pytorch

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
import minitorch.nn.functional as F
from minitorch.autograd import functional as AF
from minitorch.testing import assert_close
from tests.ops import op_schema, opdb

D = torch.float64

# Each case runs the same source on minitorch and on PyTorch (the oracle): `cases(torch, fwAD, F, AF, data)`
# returns name -> list of results; a tensor result is recorded with whether it is dual at the level (and its
# tangent), so the comparison covers which results carry tangents, not only the values.
CASES = r"""
def cases(torch, fwAD, F, AF, data):
    D = torch.float64
    T = lambda k, rg=False: torch.tensor(data[k], dtype=D, requires_grad=rg)

    def rec(t):
        if t is None:
            return None
        p, tan = fwAD.unpack_dual(t)
        return {"p": p.detach().tolist(), "t": None if tan is None else tan.detach().tolist(),
                "graph": p.requires_grad}

    def run(f):
        try:
            return f()
        except Exception as e:
            return [{"exc": type(e).__name__, "msg": str(e)}]

    out = {}
    v = T("v3")

    def grad_plain(create):
        def f():
            x = T("x3", True)
            with fwAD.dual_level():
                d = fwAD.make_dual(x, v)
                (g,) = torch.autograd.grad((d ** 3).sum(), x, create_graph=create)
                return [rec(g)]
        return f

    out["grad"] = run(grad_plain(False))
    out["grad_create"] = run(grad_plain(True))

    def grad_wrt_dual():
        x = T("x3", True)
        with fwAD.dual_level():
            d = fwAD.make_dual(x, v)
            return [rec(g) for g in torch.autograd.grad((d.sin() * d).sum(), d, create_graph=True)]

    out["grad_wrt_dual"] = run(grad_wrt_dual)

    def linear():  # a backward pass without dual saved values: the gradient is not dual
        x = T("x3", True)
        with fwAD.dual_level():
            return [rec(g) for g in torch.autograd.grad((fwAD.make_dual(x, v) * 2).sum(), x)]

    out["linear"] = run(linear)

    def dual_cotangent():
        x = T("x3", True)
        with fwAD.dual_level():
            y = fwAD.make_dual(x, v) ** 2
            u = fwAD.make_dual(torch.ones(3, dtype=D), T("w3"))
            return [rec(g) for g in torch.autograd.grad(y, x, u)]

    out["dual_cotangent"] = run(dual_cotangent)

    def dual_weight_only():  # the input has no tangent, a weight does: the mixed second derivative
        x, w = T("x3", True), T("w3")
        with fwAD.dual_level():
            dw = fwAD.make_dual(w, v)
            return [rec(g) for g in torch.autograd.grad((x.tanh() * dw).sum(), x)]

    out["dual_weight_only"] = run(dual_weight_only)

    def unused(allow, materialize):
        def f():
            x, z = T("x3", True), T("w3", True)
            with fwAD.dual_level():
                y = (fwAD.make_dual(x, v) ** 2).sum()
                gs = torch.autograd.grad(y, [x, z], allow_unused=allow, materialize_grads=materialize)
                return [rec(g) for g in gs]
        return f

    out["unused_allowed"] = run(unused(True, False))
    out["materialized"] = run(unused(True, True))

    def grad_twice():  # the tangent's passes free the graph as PyTorch's one pass does
        x = T("x3", True)
        with fwAD.dual_level():
            y = (fwAD.make_dual(x, v) ** 3).sum()
            torch.autograd.grad(y, x)
            return [rec(g) for g in torch.autograd.grad(y, x)]

    out["grad_twice"] = run(grad_twice)

    def no_grad_primal():
        with fwAD.dual_level():
            d = fwAD.make_dual(T("x3"), v)
            return [rec(g) for g in torch.autograd.grad((d * d).sum(), d)]

    out["no_grad_primal"] = run(no_grad_primal)

    def backward(create, inputs):
        def f():
            x, w = T("x3", True), T("w3", True)
            x.grad = torch.ones(3, dtype=D)
            with fwAD.dual_level():
                d = fwAD.make_dual(x, v)
                (d * d * w).sum().backward(create_graph=create, inputs=inputs and [w])
                (d ** 3).sum().backward(create_graph=create, inputs=inputs and [w])
                return [rec(x.grad), rec(w.grad)]
        return f

    out["backward"] = run(backward(False, False))
    out["backward_create"] = run(backward(True, False))
    out["backward_inputs"] = run(backward(True, True))

    def mlp(create):
        def f():
            ps = [T(k, True) for k in ("W1", "b1", "W2", "b2")]
            X, Y = T("X"), torch.tensor(data["Y"])
            with fwAD.dual_level():
                d = [fwAD.make_dual(p, T("v" + k)) for p, k in zip(ps, ("W1", "b1", "W2", "b2"))]
                h = torch.tanh(X @ d[0].T + d[1])
                loss = F.cross_entropy(h @ d[2].T + d[3], Y)
                return [rec(g) for g in torch.autograd.grad(loss, ps, create_graph=create)]
        return f

    out["mlp"] = run(mlp(False))
    out["mlp_create"] = run(mlp(True))

    def conv():
        x, w = T("cx", True), T("cw", True)
        with fwAD.dual_level():
            dx, dw = fwAD.make_dual(x, T("vcx")), fwAD.make_dual(w, T("vcw"))
            y = F.conv2d(dx, dw, padding=1)
            loss = (torch.tanh(y) ** 2).sum() + F.log_softmax(y.flatten(1), dim=1).sum() * 0.1
            loss = loss + torch.softmax(y, dim=-1).pow(2).sum() + (y.sum(0) @ y.sum(1).mT).sum() * 0.01
            return [rec(g) for g in torch.autograd.grad(loss, [x, w], create_graph=True)]

    out["conv"] = run(conv)

    def hessians():
        f = lambda a, b: torch.tanh(a @ b).sum() + (a ** 3).sum()
        a, b = T("A"), T("B")
        h = AF.hessian(f, (a, b), vectorize=True, outer_jacobian_strategy="forward-mode")
        j = AF.jacobian(lambda a, b: (a @ b).tanh(), (a, b), vectorize=True, strategy="forward-mode")
        # values only: PyTorch's forward-mode hessian leaves its result requiring grad (its inputs were set so)
        return [rec(t.detach()) for row in h for t in row] + [rec(t.detach()) for t in j]

    out["hessian_forward"] = run(hessians)
    return out
"""


def _data():
    rng = np.random.default_rng(31)
    shapes = {
        "x3": (3,), "v3": (3,), "w3": (3,), "W1": (5, 4), "b1": (5,), "W2": (3, 5), "b2": (3,), "X": (6, 4),
        "cx": (2, 3, 5, 5), "cw": (4, 3, 3, 3), "vcx": (2, 3, 5, 5), "vcw": (4, 3, 3, 3), "A": (3, 3), "B": (3, 3),
    }  # fmt: skip
    data = {k: rng.standard_normal(s).tolist() for k, s in shapes.items()}
    for k in ("W1", "b1", "W2", "b2"):
        data["v" + k] = rng.standard_normal(np.shape(data[k])).tolist()
    data["Y"] = [0, 1, 2, 1, 0, 2]
    return data


def _same(ours, theirs, where):
    assert (ours is None) == (theirs is None), where
    if ours is None:
        return
    if "exc" in theirs:
        assert ours == theirs, where
        return
    assert "exc" not in ours, (where, ours)
    np.testing.assert_allclose(ours["p"], theirs["p"], rtol=1e-10, atol=1e-12, err_msg=where)
    assert (ours["t"] is None) == (theirs["t"] is None), (
        where,
        "dual" if ours["t"] is not None else "not dual",
    )
    if ours["t"] is not None:
        np.testing.assert_allclose(ours["t"], theirs["t"], rtol=1e-10, atol=1e-12, err_msg=where)
    assert ours["graph"] == theirs["graph"], (where, "requires_grad")


def test_autograd_api_matches_pytorch():
    modules = [
        ("torch", torch),
        ("torch.autograd.forward_ad", fwAD),
        ("torch.nn.functional", F),
        ("torch.autograd.functional", AF),
    ]
    ours, theirs = cases_here_and_in_pytorch(CASES, modules, _data())
    for name, results in theirs.items():
        assert len(ours[name]) == len(results), (name, ours[name])
        for i, (a, b) in enumerate(zip(ours[name], results)):
            _same(a, b, f"{name}[{i}]")


def _hessian(f, x):
    return AF.hessian(f, x)


@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_tangent_is_the_hessian_vector_product(create_graph):
    torch.manual_seed(0)
    x, v = torch.randn(4, dtype=D), torch.randn(4, dtype=D)
    f = lambda a: (a.tanh() ** 2 * a).sum() + torch.softmax(a, 0).pow(3).sum() + a.prod()
    xr = x.clone().requires_grad_()
    with fwAD.dual_level():
        (g,) = torch.autograd.grad(f(fwAD.make_dual(xr, v)), xr, create_graph=create_graph)
        p, t = fwAD.unpack_dual(g)
    assert_close(p, torch.func.grad(f)(x))
    assert_close(t, _hessian(f, x) @ v)
    assert t.requires_grad == create_graph


def test_backward_accumulates_dual_grads_only_with_create_graph():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=D, requires_grad=True)
    v = torch.tensor([0.5, -1.0, 2.0], dtype=D)
    with fwAD.dual_level():
        (fwAD.make_dual(x, v) ** 3).sum().backward()
        assert fwAD.unpack_dual(x.grad).tangent is None
        x.grad = None
        (fwAD.make_dual(x, v) ** 3).sum().backward(create_graph=True)
        (fwAD.make_dual(x, v) ** 2).sum().backward(create_graph=True)
        p, t = fwAD.unpack_dual(x.grad)
        assert_close(p, 3 * x.detach() ** 2 + 2 * x.detach())
        assert_close(t, (6 * x.detach() + 2) * v)
    # after the level the gradient is the primal, usable as a tensor
    assert_close(x.grad * 1, 3 * x.detach() ** 2 + 2 * x.detach())
    assert fwAD.unpack_dual(x.grad).tangent is None


def test_grad_outside_a_level_of_a_dual_made_inside_it():
    x = torch.tensor([1.0, 2.0], dtype=D, requires_grad=True)
    with fwAD.dual_level():
        y = (fwAD.make_dual(x, torch.ones(2, dtype=D)) ** 2).sum()
    (g,) = torch.autograd.grad(y, x)
    assert_close(g, 2 * x.detach())
    assert fwAD.unpack_dual(g).tangent is None


def test_grad_of_a_non_grad_dual_raises_pytorchs_error():
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.ones(2, dtype=D), torch.ones(2, dtype=D))
        with pytest.raises(
            RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"
        ):
            torch.autograd.grad((d * d).sum(), d)


_W = torch.linspace(-1.0, 1.0, 24, dtype=D).reshape(4, 6)
_IDX = torch.tensor([2, 0, 1, 2])
FD_CASES = {
    "layer_norm": (lambda a: F.layer_norm(a, (6,)) * _W, (4, 6)),
    "batch_norm": (lambda a: F.batch_norm(a, None, None, training=True) * _W, (4, 6)),
    "gelu_silu": (lambda a: F.gelu(a) * F.silu(a), (4, 6)),
    "logsumexp_norm": (lambda a: torch.logsumexp(a, 1) * torch.linalg.vector_norm(a, dim=1), (4, 6)),
    "max_avg_pool": (lambda a: F.max_pool2d(a, 2) ** 2 + F.avg_pool2d(a, 2).sin(), (1, 2, 4, 4)),
    "nll_log_softmax": (lambda a: F.nll_loss(F.log_softmax(a, 1), _IDX) * a.sum(), (4, 6)),
    "sort_gather": (lambda a: a.sort(1).values.cumsum(1) ** 2 + a.gather(1, _IDX.view(4, 1)) * a, (4, 6)),
    "det_inv": (lambda a: torch.linalg.det(a) + torch.linalg.inv(a).sum() ** 2, (3, 3)),
    "sdpa": (lambda a: F.scaled_dot_product_attention(a, a.sin(), a.cos()) ** 2, (1, 4, 6)),
}


@pytest.mark.parametrize("name", list(FD_CASES))
def test_grad_tangent_matches_finite_differences_of_the_gradient(name):
    f, shape = FD_CASES[name]
    torch.manual_seed(5)
    x, v = torch.randn(*shape, dtype=D), torch.randn(*shape, dtype=D)
    if name == "det_inv":
        x = x + 3 * torch.eye(3, dtype=D)  # well away from singular
    loss = lambda a: f(a).sum()
    xr = x.clone().requires_grad_()
    with fwAD.dual_level():
        (g,) = torch.autograd.grad(loss(fwAD.make_dual(xr, v)), xr)
        t = fwAD.unpack_dual(g).tangent
    eps = 1e-6
    fd = (torch.func.grad(loss)(x + eps * v) - torch.func.grad(loss)(x - eps * v)) / (2 * eps)
    assert_close(t, fd, rtol=1e-5, atol=1e-6)


# Hooks inside a dual level: PyTorch runs its backward formulas under forward AD, so every hook sees the dual
# gradient (its value and tangent), retain_grad keeps it, a hook's replacement replaces both parts, and a leaf's
# .grad is dual with create_graph. Ours carries the tangent through the engine (docs/architecture.md, forward-mode
# AD); every value below, tangents included, is compared with PyTorch's.
HOOK_CASES = r"""
def cases(torch, fwAD, data):
    D = torch.float64

    def js(g):
        if g is None:
            return None
        p, t = fwAD.unpack_dual(g)
        return [p.detach().tolist(), None if t is None else t.detach().tolist()]

    out = {}
    x0 = torch.tensor(data["x"], dtype=D)
    v = torch.tensor(data["v"], dtype=D)

    # every kind of hook on a graph with intermediates, through autograd.grad and backward
    for create in (False, True):
        x = x0.clone().requires_grad_()
        seen = {"h": [], "x": [], "node_pre": [], "node_post_in": [], "node_post_out": [], "post_acc": []}
        with fwAD.dual_level():
            d = fwAD.make_dual(x, v)
            h = d.sin() * d
            h.register_hook(lambda g: seen["h"].append(js(g)))
            h.retain_grad()
            x.register_hook(lambda g: seen["x"].append(js(g)))
            x.register_post_accumulate_grad_hook(lambda p: seen["post_acc"].append(js(p.grad)))
            h.grad_fn.register_prehook(lambda go: seen["node_pre"].append(js(go[0])))

            def post(gi, go):
                seen["node_post_in"].append([js(g) for g in gi])
                seen["node_post_out"].append([js(g) for g in go])

            h.grad_fn.register_hook(post)
            y = (h ** 3).sum() + (d * h).sum()
            (g,) = torch.autograd.grad(y, x, create_graph=create, retain_graph=True)
            y.backward(create_graph=create)
            out[f"all_hooks_create_graph={create}"] = {
                "seen": seen, "grad": js(g), "h.grad": js(h.grad), "x.grad": js(x.grad),
                "grad_t_requires_grad": None if fwAD.unpack_dual(g).tangent is None
                else fwAD.unpack_dual(g).tangent.requires_grad,
            }

    # the tangent at an intermediate whose tangent reads its own value (exp's rule): 2 t h, not 4 t h
    def exp_case(how):
        x = torch.tensor([1.0, 2.0], dtype=D, requires_grad=True)
        seen = []
        with fwAD.dual_level():
            h = fwAD.make_dual(x, torch.tensor([1.0, 0.0], dtype=D)).exp()
            h.register_hook(lambda g: seen.append(js(g)))
            y = (h * h).sum()
            if how == "grad":
                r = torch.autograd.grad(y, x)[0]
            else:
                y.backward(create_graph=how == "backward_create")
                r = x.grad
            return [seen, js(r)]

    for how in ("grad", "backward", "backward_create"):
        out["exp_" + how] = exp_case(how)

    # hooks that replace a gradient: the replacement's tangent flows on (a plain one drops it there)
    replacers = {
        "tensor_hook_double": lambda h, x: h.register_hook(lambda g: g * 2),
        "tensor_hook_plain": lambda h, x: h.register_hook(lambda g: torch.ones_like(fwAD.unpack_dual(g).primal)),
        "tensor_hook_square": lambda h, x: h.register_hook(lambda g: g * g),
        "leaf_hook_double": lambda h, x: x.register_hook(lambda g: g * 2),
        "node_prehook_double": lambda h, x: h.grad_fn.register_prehook(lambda go: (go[0] * 2,)),
        "node_posthook_double": lambda h, x: h.grad_fn.register_hook(lambda gi, go: tuple(
            None if g is None else g * 2 for g in gi)),
    }
    for name, register in replacers.items():
        for create in (False, True):
            x = x0.clone().requires_grad_()
            with fwAD.dual_level():
                d = fwAD.make_dual(x, v)
                h = d.sin() * d.cos()
                register(h, x)
                y = (h * h.exp()).sum()
                (g,) = torch.autograd.grad(y, x, create_graph=create, retain_graph=True)
                y.backward(create_graph=create)
                out[f"{name}_create_graph={create}"] = [js(g), js(x.grad)]

    # a small MLP: weights that require grad, a dual input; the weights' gradients' tangents and hooks on them
    torch.manual_seed(0)
    w1 = torch.tensor(data["w1"], dtype=D, requires_grad=True)
    w2 = torch.tensor(data["w2"], dtype=D, requires_grad=True)
    seen = []
    with fwAD.dual_level():
        xi = fwAD.make_dual(torch.tensor(data["xi"], dtype=D), torch.tensor(data["ti"], dtype=D))
        a = torch.tanh(xi @ w1)
        a.register_hook(lambda g: seen.append(js(g)))
        w1.register_hook(lambda g: seen.append(js(g)))
        loss = ((a @ w2) ** 2).mean()
        gw = torch.autograd.grad(loss, (w1, w2), retain_graph=True)
        loss.backward()
        out["mlp"] = [seen, [js(g) for g in gw], js(w1.grad), js(w2.grad)]

    # in-place ops between: their nodes' second-order terms too (sin_, a product with a dual, through a view)
    inplace = {
        "sin_": lambda h, d: h.sin_(),
        "mul_dual": lambda h, d: h.mul_(d),
        "relu_": lambda h, d: h.relu_(),
        "view_mul_": lambda h, d: h[1:].mul_(d[:2].exp()),
    }
    for name, op in inplace.items():
        x = x0.clone().requires_grad_()
        seen = []
        with fwAD.dual_level():
            d = fwAD.make_dual(x, v)
            h = d * 1
            op(h, d)
            h.register_hook(lambda g: seen.append(js(g)))
            (g,) = torch.autograd.grad((h * h).sum(), x)
            out["inplace_" + name] = [seen, js(g)]

    # create_graph: the gradient's tangent differentiates again (third order), through the second-order terms
    x = x0.clone().requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        h = d.exp() * d.sin()
        (g,) = torch.autograd.grad((h * h).sum(), x, create_graph=True)
        p, t = fwAD.unpack_dual(g)
        (a,) = torch.autograd.grad(t.sum(), x, retain_graph=True)
        (b,) = torch.autograd.grad((p * t).sum(), x)
        out["create_graph_third_order"] = [a.tolist(), b.tolist()]

    # a dual cotangent with hooks (the gradient's tangent is J^T u_t plus the second-order term)
    x = x0.clone().requires_grad_()
    seen = []
    with fwAD.dual_level():
        h = x.sin() * x
        h.register_hook(lambda g: seen.append(js(g)))
        u = fwAD.make_dual(torch.ones(3, dtype=D), v)
        (g,) = torch.autograd.grad(h.exp(), x, u)
        out["dual_cotangent"] = [seen, js(g)]
    return out
"""


def _close(a, b, rel=1e-10):
    """Nested lists of floats (None allowed) equal to `rel` relative (1e-10)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= rel * max(1.0, abs(b))
    return a == b


def test_hooks_see_the_dual_gradient_as_pytorchs():
    data = {
        "x": [0.5, -1.25, 2.0],
        "v": [1.0, 0.5, -2.0],
        "w1": [[0.3, -0.2], [0.1, 0.4], [-0.5, 0.25]],
        "w2": [[0.7], [-0.3]],
        "xi": [[1.0, -0.5, 0.25], [0.5, 2.0, -1.0]],
        "ti": [[0.5, 1.0, 0.0], [-1.0, 0.25, 2.0]],
    }
    modules = [("torch", torch), ("torch.autograd.forward_ad", fwAD)]
    ours, theirs = cases_here_and_in_pytorch(HOOK_CASES, modules, data)
    bad = {name: (ours[name], want) for name, want in theirs.items() if not _close(ours[name], want)}
    assert not bad, bad


def test_the_tangent_at_an_intermediate_follows_its_own_dependence():
    # h = exp(x), y = sum(h * h): dy/dh = 2 h, whose tangent is 2 h_t = 2 t h (not 4 t h: h's tangent t h is
    # held fixed at h, as the backward formulas under forward AD hold it)
    x = torch.tensor([1.0, 2.0], dtype=D, requires_grad=True)
    seen = []
    with fwAD.dual_level():
        h = fwAD.make_dual(x, torch.tensor([1.0, 0.0], dtype=D)).exp()
        h.register_hook(lambda g: seen.append(fwAD.unpack_dual(g)))
        (g,) = torch.autograd.grad((h * h).sum(), x)
        gt = fwAD.unpack_dual(g).tangent
    e = np.exp([1.0, 2.0])
    np.testing.assert_allclose(seen[0].primal.numpy(), 2 * e)
    np.testing.assert_allclose(seen[0].tangent.numpy(), [2 * e[0], 0.0])
    # d/dx (2 exp(2x)) along t = [1, 0]
    np.testing.assert_allclose(gt.numpy(), [4 * np.exp(2.0), 0.0])
    # and a plain backward afterwards is untouched
    seen = []
    y = x.exp()
    y.register_hook(lambda g: seen.append(type(g)))
    y.sum().backward()
    assert seen == [torch.Tensor]


# The common nonlinear ops take their second-order term in C++ (csrc/autograd/dual_terms.cpp) instead of the
# re-run of their rule (_forward_ad._second_order, which stays for the rest and for create_graph): each case's
# HVP by both paths (1e-12 apart), against finite differences of the gradient, and against PyTorch below.
_M = torch.linspace(-0.8, 0.9, 20, dtype=D).reshape(4, 5)
_T5 = torch.linspace(-0.5, 0.7, 5, dtype=D)
_TAKE = torch.tensor([0, 7, 19, 3])
CXX_TERM_CASES = {
    "mul_div": (lambda a, b: a * b / (b * b + 1.5) + 2.0 / (a * a + 1.0) + a * 3.0 / 2.0, ((4, 5), (4, 5))),
    "div_broadcast": (lambda a, b: (a / (b.exp() + 1.0)) * a, ((4, 5), (5,))),
    "exp_log": (lambda a, b: (a * b).exp() * (a * a + 1.0).log(), ((4, 5), (4, 5))),
    "tanh_sigmoid_relu": (lambda a, b: a.tanh() * torch.sigmoid(a * b) + F.relu(a) * b, ((4, 5), (4, 5))),
    "pow": (lambda a, b: (a * a + 0.5) ** 1.5 + a**3 * b + a**2 + torch.pow(b, 1) * a, ((4, 5), (4, 5))),
    "sin_cos": (lambda a, b: a.sin() * torch.cos(a * b), ((4, 5), (4, 5))),
    "mm_matmul": (lambda a, b: torch.mm(a, b).tanh() @ b.t() + (a @ b).sin().sum(), ((4, 5), (5, 3))),
    "rmatmul_addmm": (
        lambda a, b: (_M @ a).tanh().sum() * 2 + torch.addmm(_T5, a, b, beta=0.5, alpha=-1.5).exp(),
        ((5, 5), (5, 5)),
    ),
    "linear": (lambda a, b: F.linear(F.linear(a, b, _T5).tanh(), b) ** 2, ((3, 4, 5), (5, 5))),
    "softmax": (lambda a, b: torch.softmax(a * b, 1) * F.log_softmax(a, dim=0) + a.softmax(-1) ** 2, ((4, 5),) * 2),
    "mse_loss": (
        lambda a, b: F.mse_loss(a.tanh(), b) * 3 + F.mse_loss(a * b, b, reduction="none") ** 2
        + F.mse_loss(a, b.sin(), reduction="sum"),
        ((4, 5), (4, 5)),
    ),
    "gelu_silu": (lambda a, b: F.gelu(a * b) * F.silu(a) + F.silu(b) * a, ((4, 5), (4, 5))),
    "gelu": (lambda a, b: F.gelu(a * b) * F.gelu(a), ((4, 5), (4, 5))),
    "masks": (
        lambda a, b: F.relu6(a.sin() * 8) * F.leaky_relu(a * b, 0.1)
        + torch.clamp(a.exp(), max=1.5) * torch.where(a > 0, a * b, b.sin())
        + F.max_pool1d((a * b).unsqueeze(0), 2).sum() * F.hardtanh(a.cos() * 2).sum(),
        ((4, 5), (4, 5)),
    ),
    # the schema's other `linear` and `zero` rows
    "linear_zero": (
        lambda a, b: (torch.floor(a * 3) * b).sin() + torch.take(a * b, _TAKE).sum() * torch.roll(a.exp(), 1, 0)
        + torch.cumsum(a * b, 1).tril().cos() + torch.cat([a.sin(), b]).sum() + (a * b)[1:, ::2].exp().sum(),
        ((4, 5), (4, 5)),
    ),
    # the unary rows whose term is a C++ expression (beside exp, log, tanh, sigmoid, sin, cos)
    "unary_rows": (
        lambda a, b: (a * a + 0.5).sqrt() * (b * b + 0.5).rsqrt() + (a * b + 2.0).reciprocal()
        + (a * a).log1p() * (b * b + 0.3).log2() + (a * b + 2.0).log10() + torch.exp2(a * b) * torch.expm1(a)
        + (a * 0.5).tan() * (a * b).atan() + torch.sinh(a) * torch.cosh(b * a),
        ((4, 5), (4, 5)),
    ),
}  # fmt: skip

# The terms of the special functions, the selections and the binary and reduction rows (issue 31's second set):
# one source for both libraries, so that the re-run, finite-difference and PyTorch tests read the same functions.
# Domains are reached by smooth maps of normal data (tanh into (-1, 1), squares plus a constant above 0); the
# selections stay away from ties here (their ties have their own test below). Bessel J's and Y's arguments stay
# within 2.3 of 0, where PyTorch 2.15's float64 bessel_j0/j1/y0/y1 are within 1e-12 of mpmath (8e-7 near 5, where
# ours are within 2e-16).
MORE_TERMS = r"""
def more_terms(torch, F):
    sp = torch.special
    return {
        "inverse_trig_erf": lambda a, b: torch.asin(a.tanh() * 0.9) * torch.acos(b.tanh() * 0.8)
        + torch.asinh(a * b) + torch.acosh(a * a + 1.5) * torch.atanh(b.tanh() * 0.8) + torch.erf(a * b)
        + torch.erfc(a) * b + torch.erfinv(a.tanh() * 0.9) + sp.erfinv(b.tanh() * 0.5) * a,
        "gamma": lambda a, b: torch.lgamma(a * a + 0.5) * torch.digamma(b * b + 0.5)
        + sp.gammaln(b * b + 0.7) * sp.psi(a * a + 0.6),
        "bessel_i": lambda a, b: torch.i0(a * b) + sp.i0e(a) * sp.i1(b * a) + sp.i1e(a) + sp.i0(b),
        "bessel": lambda a, b: sp.bessel_j0(a.tanh() * 2) * sp.bessel_j1(b.tanh() * 2)
        + sp.bessel_y0(a.tanh() ** 2 * 1.5 + 0.5) + sp.bessel_y1(b.tanh() ** 2 * 1.5 + 0.5) * a + sp.modified_bessel_i0(a) * sp.modified_bessel_i1(b * a)
        + sp.modified_bessel_k0(a * a + 0.3) + sp.modified_bessel_k1(b * b + 0.3) * b,
        "activations": lambda a, b: F.gelu(a * b, approximate="tanh") * F.hardswish(b * 3) + F.hardswish(a * 3) * b
        + F.gelu(b, approximate="tanh"),
        "hardsigmoid": lambda a, b: F.hardsigmoid(b * 3) * a * a + F.hardsigmoid(a * b * 2),
        "mish": lambda a, b: F.mish(b) * a + F.mish(a * b),
        "selections": lambda a, b: torch.maximum(a, b).exp() + torch.minimum(a * b, b).sin()
        + a.sort(1)[0] * b + torch.topk(a * b, 2, 1)[0].exp().sum() * a + torch.kthvalue(a, 2, 1)[0].sin().sum()
        + torch.mode(b * 2, 0)[0].exp().sum() + (a % 0.7).sin() * b + torch.fmod(a * b, b.exp() + 0.5) * a
        + a.abs() * b + (a * b).sgn() * a.exp() + torch.angle(a) * b + torch.copysign(a, b) * a.exp()
        + torch.copysign(a * b, -1.0) * b + torch.nextafter(a, b).exp(),
        "binary": lambda a, b: torch.atan2(a, b) * a + torch.hypot(a * b, b) + torch.logaddexp(a, b * b)
        + torch.logaddexp2(a * b, b).sin() + torch.xlogy(a, b * b + 0.5) + torch.xlogy(2.0, a * a + 0.5) * b
        + torch.xlogy(a * b, 3.0) + sp.xlogy(b, a * a + 0.2),
        "logsumexp": lambda a, b: torch.logsumexp(a * b, 1).exp().sum() * torch.logsumexp(a, (0, 1))
        + torch.logsumexp(a, 0, keepdim=True) * b + sp.logsumexp(b * a, dim=-1, keepdim=True).sin(),
        "prelu": lambda a, b: F.prelu(a * b, b[0]) ** 2 + F.prelu(a.unsqueeze(-1), b[1]).pow(3).squeeze(-1)
        + F.prelu(a * 2, b[2, 1:2]).exp() + torch.prelu(b, a[3, 2]) * a,
        "cumprod": lambda a, b: torch.cumprod(a * b + 1.5, 1) * b + (a.exp()).cumprod(0).sin()
        + torch.cumprod(a, dim=-1, dtype=torch.float64).sum(1, keepdim=True),
    }
"""
_MORE = {}
exec(MORE_TERMS, _MORE)  # noqa: S102 - the source the PyTorch test runs too
CXX_TERM_CASES.update({k: (f, ((4, 5), (4, 5))) for k, f in _MORE["more_terms"](torch, F).items()})
# the binary terms on a broadcast operand and transposed (strided) inputs: each term is summed to its input's shape
CXX_TERM_CASES["binary_broadcast"] = (
    lambda a, b: torch.atan2(a, b) + torch.hypot(b, a.t().contiguous().t()) * a
    + torch.logaddexp(a.t(), b.unsqueeze(1)).t().sin() + torch.xlogy(a, b * b + 0.5)
    + torch.logsumexp(a.t() * b.unsqueeze(1), -1) * b,
    ((4, 5), (5,)),
)  # fmt: skip


def _dual_hvp(f, xs, vs, create_graph=False):
    xr = [x.clone().requires_grad_() for x in xs]
    with fwAD.dual_level():
        gs = torch.autograd.grad(
            f(*[fwAD.make_dual(x, v) for x, v in zip(xr, vs)]).sum(), xr, create_graph=create_graph
        )
        return [fwAD.unpack_dual(g) for g in gs]


@pytest.mark.parametrize("name", list(CXX_TERM_CASES))
def test_cxx_second_order_terms_match_the_rerun_and_finite_differences(name, monkeypatch):
    from minitorch.func import _forward_ad

    f, shapes = CXX_TERM_CASES[name]
    torch.manual_seed(7)
    xs = [torch.randn(*s, dtype=D) * 0.7 for s in shapes]
    vs = [torch.randn(*s, dtype=D) for s in shapes]
    reruns = []
    second_order = _forward_ad._second_order
    monkeypatch.setattr(
        _forward_ad, "_second_order", lambda rec, g: reruns.append(rec[0]) or second_order(rec, g)
    )
    monkeypatch.setattr(_forward_ad, "CXX_TERMS", False)
    want = _dual_hvp(f, xs, vs)
    assert reruns  # the re-run path ran (without C++ terms)
    reruns.clear()
    monkeypatch.setattr(_forward_ad, "CXX_TERMS", True)
    got = _dual_hvp(f, xs, vs)
    assert not reruns, reruns  # every node of these cases has its term in C++
    for (gp, gt), (wp, wt) in zip(got, want):
        assert_close(gp, wp, rtol=0, atol=0)
        assert_close(gt, wt, rtol=1e-12, atol=1e-12)
    # the tangent is the gradient's derivative along v
    eps = 1e-6
    loss = lambda *a: f(*a).sum()
    grads = lambda s: torch.func.grad(loss, argnums=tuple(range(len(xs))))(
        *[x + s * v for x, v in zip(xs, vs)]
    )
    for (_, gt), up, down in zip(got, grads(eps), grads(-eps)):
        assert_close(gt, (up - down) / (2 * eps), rtol=1e-5, atol=1e-6)
    # create_graph keeps the re-run (its terms record), with the same values
    reruns.clear()
    again = _dual_hvp(f, xs, vs, create_graph=True)
    assert reruns
    for (gp, gt), (_, wt) in zip(again, want):
        assert gt.requires_grad
        assert_close(gt, wt, rtol=1e-12, atol=1e-12)


def test_cxx_second_order_terms_decline_what_they_do_not_cover(monkeypatch):
    # a tensor exponent, a 1-D matmul, float32 beside float64 and softmax's dtype= keep the re-run (and the first
    # two agree with finite differences through it)
    from minitorch.func import _forward_ad

    reruns = []
    second_order = _forward_ad._second_order
    monkeypatch.setattr(
        _forward_ad, "_second_order", lambda rec, g: reruns.append(rec[0]) or second_order(rec, g)
    )
    x, v = torch.tensor([0.5, 1.5, 2.0], dtype=D), torch.tensor([1.0, -0.5, 0.25], dtype=D)
    f = lambda a: a**a + (a @ a) * a.exp()
    ((_, t),) = _dual_hvp(f, [x], [v])
    assert {"Tensor.__pow__", "Tensor.__matmul__"} <= set(reruns), reruns
    loss = lambda a: f(a).sum()
    fd = (torch.func.grad(loss)(x + 1e-6 * v) - torch.func.grad(loss)(x - 1e-6 * v)) / 2e-6
    assert_close(t, fd, rtol=1e-5, atol=1e-6)
    reruns.clear()
    _dual_hvp(lambda a: a * a.float() + torch.softmax(a, 0, dtype=torch.float32), [x], [v])
    assert {"Tensor.__mul__", "softmax"} <= set(reruns), reruns


def test_cumprod_term_with_zeros_matches_the_rerun_and_finite_differences(monkeypatch):
    """cumprod's C++ term where slices hold zeros (one, two, three, adjacent, leading and trailing ones), with
    tangents that move them off zero: the re-run's values without a re-run, double backward's and finite
    differences of the gradient."""
    from minitorch.func import _forward_ad

    x = torch.tensor(
        [
            [0.5, 0.0, 1.5, -2.0, 0.0, 0.7, 0.0, 1.2],
            [0.0, 1.1, -0.6, 0.9, 1.3, -1.4, 0.8, 0.0],
            [1.2, -0.8, 0.4, 1.5, 0.3, 0.0, 0.0, 2.0],
            [0.9, 1.1, -1.3, 0.0, 0.6, 1.4, -0.7, 0.8],
        ],
        dtype=D,
    )
    torch.manual_seed(3)
    v = torch.randn(4, 8, dtype=D)
    w = torch.randn(4, 8, dtype=D)  # an incoming gradient that differs per element
    reruns = []
    second_order = _forward_ad._second_order
    monkeypatch.setattr(
        _forward_ad, "_second_order", lambda rec, g: reruns.append(rec[0]) or second_order(rec, g)
    )
    for dim in (1, 0, -1):
        f = lambda a, d=dim: torch.cumprod(a, d) * w
        monkeypatch.setattr(_forward_ad, "CXX_TERMS", False)
        reruns.clear()
        ((wp, wt),) = _dual_hvp(f, [x], [v])
        assert "cumprod" in reruns
        monkeypatch.setattr(_forward_ad, "CXX_TERMS", True)
        reruns.clear()
        ((gp, gt),) = _dual_hvp(f, [x], [v])
        assert "cumprod" not in reruns, reruns
        assert_close(gp, wp, rtol=0, atol=0)
        assert_close(gt, wt, rtol=1e-12, atol=1e-12)
        # the gradient's derivative along v: double backward, and finite differences (a step of 1e-4: near a
        # zero the gradient's reversed cumulative sum cancels to ~eps^2 and loses digits to a smaller one)
        xr = x.clone().requires_grad_()
        (g,) = torch.autograd.grad(f(xr).sum(), xr, create_graph=True)
        assert_close(gt, torch.autograd.grad((g * v).sum(), xr)[0], rtol=1e-12, atol=1e-12)
        eps = 1e-4
        loss = lambda a, f=f: f(a).sum()
        fd = (torch.func.grad(loss)(x + eps * v) - torch.func.grad(loss)(x - eps * v)) / (2 * eps)
        assert_close(gt, fd, rtol=1e-5, atol=1e-6)


def test_cxx_second_order_terms_match_pytorch():
    data = {"cases": {k: [s for s in shapes] for k, (_, shapes) in CXX_TERM_CASES.items()}}
    rng = np.random.default_rng(3)
    for k, shapes in data["cases"].items():
        data[k] = [(rng.standard_normal(s) * 0.7).tolist() for s in shapes] + [
            rng.standard_normal(s).tolist() for s in shapes
        ]
    modules = [("torch", torch), ("torch.autograd.forward_ad", fwAD), ("torch.nn.functional", F)]
    ours, theirs = cases_here_and_in_pytorch(CXX_TERM_ORACLE, modules, data)
    assert [k for k, v in theirs.items() if v is None] == ["gelu_silu"]
    bad = {k: (ours[k], want) for k, want in theirs.items() if want is not None and not _close(ours[k], want)}
    assert not bad, bad


def test_more_cxx_terms_match_pytorch():
    # the special functions', selections' and binary rows' terms (MORE_TERMS) beside PyTorch's HVP (its
    # backward formulas run under forward AD), float64 at random points
    rng = np.random.default_rng(31)
    fs = _MORE["more_terms"](torch, F)
    data = {k: [(rng.standard_normal((4, 5)) * 0.7).tolist() for _ in range(4)] for k in fs}
    modules = [("torch", torch), ("torch.autograd.forward_ad", fwAD), ("torch.nn.functional", F)]
    ours, theirs = cases_here_and_in_pytorch(MORE_TERMS + _HVP_OF_CASES, modules, data)
    assert set(theirs) == set(fs)
    # PyTorch 2.15 has no forward AD of hardsigmoid_backward and mish_backward (the re-run test checks them)
    assert [k for k, v in theirs.items() if v is None] == ["hardsigmoid", "mish"]
    # PyTorch 2.15's float64 polygamma(1, x) is ~4e-10 from mpmath (ours and its polygamma(2) within 2e-16), which
    # digamma's gradient and lgamma's term read
    rel = {"gamma": 2e-9}
    bad = {
        k: (ours[k], want)
        for k, want in theirs.items()
        if want is not None and not _close(ours[k], want, rel.get(k, 1e-10))
    }
    assert not bad, bad


# each case's HVP by forward over reverse: data[name] holds a, b and their tangents
_HVP_OF_CASES = r"""
def cases(torch, fwAD, F, data):
    out = {}
    for name, f in more_terms(torch, F).items():
        xs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in data[name][:2]]
        vs = [torch.tensor(v, dtype=torch.float64) for v in data[name][2:]]
        with fwAD.dual_level():
            try:
                gs = torch.autograd.grad(f(*[fwAD.make_dual(x, v) for x, v in zip(xs, vs)]).sum(), xs)
            except NotImplementedError:
                out[name] = None
                continue
            out[name] = [[fwAD.unpack_dual(g).primal.tolist(), fwAD.unpack_dual(g).tangent.tolist()] for g in gs]
    return out
"""

TIES = r"""
def cases(torch, fwAD, F, data):
    # maximum/minimum at ties (the mean of the tangents), sort/kthvalue/mode over repeated values, abs and sgn at
    # 0: the selecting rows' second-order term is zero there as well (topk is left out: at ties it picks other
    # indices than PyTorch's, a first-order difference)
    D = torch.float64
    fs = {
        "maxmin": lambda a, b: torch.maximum(a, b) ** 3 + torch.minimum(a, b * 1.0).exp(),
        "sorts": lambda a, b: a.sort(1)[0] ** 3 * b + torch.kthvalue(a, 2, 1)[0].sin().sum() * b
        + torch.mode(a, 1)[0].pow(3).sum() * b,
        "abs_sgn": lambda a, b: a.abs() ** 3 * b + a.sgn() * b.exp() + torch.fmod(a, b.abs() + 1) * a,
    }
    out = {}
    for name, f in fs.items():
        xs = [torch.tensor(v, dtype=D, requires_grad=True) for v in data["x"]]
        vs = [torch.tensor(v, dtype=D) for v in data["v"]]
        with fwAD.dual_level():
            gs = torch.autograd.grad(f(*[fwAD.make_dual(x, v) for x, v in zip(xs, vs)]).sum(), xs)
            out[name] = [[fwAD.unpack_dual(g).primal.tolist(), fwAD.unpack_dual(g).tangent.tolist()] for g in gs]
    return out
"""


def test_selecting_rows_at_ties_match_the_rerun_and_pytorch(monkeypatch):
    # the rows declared zero select by value: at ties (a == b entrywise, repeated values in a row, a == 0) the
    # re-run's term is zero too, and PyTorch's
    from minitorch.func import _forward_ad

    a = [[1.0, 1.0, -0.5, 0.0, 2.0], [0.25, -1.0, 0.25, 0.25, 0.0]]
    b = [[1.0, 0.5, -0.5, 0.0, 1.5], [0.25, 0.75, -2.0, 0.25, 0.5]]
    va = [[0.5, -1.0, 2.0, 0.75, 0.3], [1.5, 0.2, -0.4, 1.0, -2.0]]
    vb = [[-1.5, 0.5, 1.0, 0.25, -0.3], [0.6, -0.7, 0.8, -0.9, 1.1]]
    data = {"x": [a, b], "v": [va, vb]}
    modules = [("torch", torch), ("torch.autograd.forward_ad", fwAD), ("torch.nn.functional", F)]
    ours, theirs = cases_here_and_in_pytorch(TIES, modules, data)
    bad = {k: (ours[k], want) for k, want in theirs.items() if not _close(ours[k], want)}
    assert not bad, bad
    monkeypatch.setattr(_forward_ad, "CXX_TERMS", False)
    assert cases_here(TIES, modules, data) == ours


def test_zero_real_rows_take_the_rerun_for_complex_inputs(monkeypatch):
    # abs, sgn and angle are flat off 0 for real inputs only: a complex input's node keeps the re-run, whose term
    # agrees with finite differences of the gradient
    from minitorch.func import _forward_ad

    reruns = []
    second_order = _forward_ad._second_order
    monkeypatch.setattr(
        _forward_ad, "_second_order", lambda rec, g: reruns.append(rec[0]) or second_order(rec, g)
    )
    torch.manual_seed(2)
    xs = [torch.randn(3, 4, dtype=D) for _ in range(2)]
    vs = [torch.randn(3, 4, dtype=D) for _ in range(2)]
    f = lambda a, b: (
        torch.complex(a, b).abs() ** 3 + torch.angle(torch.complex(a * b, b)) * a
        + torch.view_as_real(torch.complex(b, a).sgn()).sum(-1) * b
    )  # fmt: skip
    got = _dual_hvp(f, xs, vs)
    assert {"Tensor.abs", "angle", "Tensor.sgn"} <= set(reruns), reruns
    loss = lambda *a: f(*a).sum()
    grads = lambda s: torch.func.grad(loss, argnums=(0, 1))(*[x + s * v for x, v in zip(xs, vs)])
    for (_, gt), up, down in zip(got, grads(1e-6), grads(-1e-6)):
        assert_close(gt, (up - down) / 2e-6, rtol=1e-5, atol=1e-6)
    reruns.clear()
    _dual_hvp(lambda a, b: a.abs() ** 3 + torch.angle(a) * b + a.sgn() * b, xs, vs)
    assert not reruns, reruns


CXX_TERM_ORACLE = r"""
def cases(torch, fwAD, F, data):
    D = torch.float64
    _M = torch.linspace(-0.8, 0.9, 20, dtype=D).reshape(4, 5)
    _T5 = torch.linspace(-0.5, 0.7, 5, dtype=D)
    fs = {
        "mul_div": lambda a, b: a * b / (b * b + 1.5) + 2.0 / (a * a + 1.0) + a * 3.0 / 2.0,
        "div_broadcast": lambda a, b: (a / (b.exp() + 1.0)) * a,
        "exp_log": lambda a, b: (a * b).exp() * (a * a + 1.0).log(),
        "tanh_sigmoid_relu": lambda a, b: a.tanh() * torch.sigmoid(a * b) + F.relu(a) * b,
        "pow": lambda a, b: (a * a + 0.5) ** 1.5 + a**3 * b + a**2 + torch.pow(b, 1) * a,
        "sin_cos": lambda a, b: a.sin() * torch.cos(a * b),
        "mm_matmul": lambda a, b: torch.mm(a, b).tanh() @ b.t() + (a @ b).sin().sum(),
        "rmatmul_addmm": lambda a, b: (_M @ a).tanh().sum() * 2 + torch.addmm(_T5, a, b, beta=0.5, alpha=-1.5).exp(),
        "linear": lambda a, b: F.linear(F.linear(a, b, _T5).tanh(), b) ** 2,
        "softmax": lambda a, b: torch.softmax(a * b, 1) * F.log_softmax(a, dim=0) + a.softmax(-1) ** 2,
        "mse_loss": lambda a, b: F.mse_loss(a.tanh(), b) * 3 + F.mse_loss(a * b, b, reduction="none") ** 2
        + F.mse_loss(a, b.sin(), reduction="sum"),
        "gelu_silu": lambda a, b: F.gelu(a * b) * F.silu(a) + F.silu(b) * a,
        "gelu": lambda a, b: F.gelu(a * b) * F.gelu(a),
        "masks": lambda a, b: F.relu6(a.sin() * 8) * F.leaky_relu(a * b, 0.1)
        + torch.clamp(a.exp(), max=1.5) * torch.where(a > 0, a * b, b.sin())
        + F.max_pool1d((a * b).unsqueeze(0), 2).sum() * F.hardtanh(a.cos() * 2).sum(),
        "linear_zero": lambda a, b: (torch.floor(a * 3) * b).sin()
        + torch.take(a * b, torch.tensor([0, 7, 19, 3])).sum() * torch.roll(a.exp(), 1, 0)
        + torch.cumsum(a * b, 1).tril().cos() + torch.cat([a.sin(), b]).sum() + (a * b)[1:, ::2].exp().sum(),
        "unary_rows": lambda a, b: (a * a + 0.5).sqrt() * (b * b + 0.5).rsqrt() + (a * b + 2.0).reciprocal()
        + (a * a).log1p() * (b * b + 0.3).log2() + (a * b + 2.0).log10() + torch.exp2(a * b) * torch.expm1(a)
        + (a * 0.5).tan() * (a * b).atan() + torch.sinh(a) * torch.cosh(b * a),
    }
    out = {}
    for name, f in fs.items():
        n = len(data["cases"][name])
        xs = [torch.tensor(v, dtype=D, requires_grad=True) for v in data[name][:n]]
        vs = [torch.tensor(v, dtype=D) for v in data[name][n:]]
        with fwAD.dual_level():
            try:
                gs = torch.autograd.grad(f(*[fwAD.make_dual(x, v) for x, v in zip(xs, vs)]).sum(), xs)
            except NotImplementedError:  # PyTorch 2.15 has no forward AD of silu_backward
                out[name] = None
                continue
            out[name] = [[fwAD.unpack_dual(g).primal.tolist(), fwAD.unpack_dual(g).tangent.tolist()] for g in gs]
    return out
"""


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cxx_second_order_terms_of_an_mlp_in_each_dtype(dtype, monkeypatch):
    # an MLP loss in float32 and float64: the C++ terms give the re-run's HVP (float32 to its rounding) and the
    # float64 HVP
    from minitorch.func import _forward_ad

    torch.manual_seed(3)
    x, y = torch.randn(8, 6, dtype=D), torch.randn(8, 2, dtype=D)
    ps = [torch.randn(5, 6, dtype=D) * 0.5, torch.randn(5, dtype=D), torch.randn(2, 5, dtype=D) * 0.5]
    vs = [torch.randn_like(p) for p in ps]

    def f(w1, b1, w2):
        h = torch.sigmoid(F.linear(x.to(w1.dtype), w1, b1)) * F.silu(F.linear(x.to(w1.dtype), w1))
        return F.mse_loss(torch.log_softmax(h @ w2.t(), 1).exp(), y.to(w1.dtype))

    cast = lambda ts: [t.to(dtype) for t in ts]
    reruns = []
    second_order = _forward_ad._second_order
    monkeypatch.setattr(
        _forward_ad, "_second_order", lambda rec, g: reruns.append(rec[0]) or second_order(rec, g)
    )
    got = _dual_hvp(f, cast(ps), cast(vs))
    assert not reruns, reruns
    monkeypatch.setattr(_forward_ad, "CXX_TERMS", False)
    want = _dual_hvp(f, cast(ps), cast(vs))
    ref = _dual_hvp(f, ps, vs)
    tol = 1e-12 if dtype == D else 1e-5
    for (gp, gt), (wp, wt), (_, rt) in zip(got, want, ref):
        assert gt.dtype == dtype
        assert_close(gp, wp, rtol=0, atol=0)
        assert_close(gt, wt, rtol=tol, atol=tol)
        assert_close(gt.double(), rt, rtol=1e-4 if dtype != D else 1e-12, atol=1e-5 if dtype != D else 1e-12)


@pytest.mark.parametrize("cxx", [False, True])
def test_a_broadcast_operands_tangent_counts_its_term_once(cxx, monkeypatch):
    # (a * b).sin() with b of shape (3,) broadcast over 2 rows: the mul node's term for b and its formula's part
    # are summed to b's shape before they are added (the re-run's term, already of b's shape, was counted once
    # per row when added to the broadcast part)
    from minitorch.func import _forward_ad

    monkeypatch.setattr(_forward_ad, "CXX_TERMS", cxx)
    a = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], dtype=D)
    b = torch.tensor([0.3, -0.7, 1.1], dtype=D)
    va = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]], dtype=D)
    vb = torch.tensor([-0.5, 1.0, 0.25], dtype=D)
    f = lambda a, b: (a * b).sin()
    (_, ta), (_, tb) = _dual_hvp(f, [a, b], [va, vb])
    loss = lambda a, b: f(a, b).sum()
    grads = lambda s: torch.func.grad(loss, argnums=(0, 1))(a + s * va, b + s * vb)
    (ua, ub), (da, db) = grads(1e-6), grads(-1e-6)
    assert_close(ta, (ua - da) / 2e-6, rtol=1e-6, atol=1e-7)
    assert_close(tb, (ub - db) / 2e-6, rtol=1e-6, atol=1e-7)


# ---- the schema's declarations (ops.schema's `dual_term:`, generated into csrc/autograd/dual_terms.inc)


def _dual_rows():
    return {op.name: op for op in op_schema.OPS if "dual_term" in op.fields}


def test_every_jvp_row_declares_its_second_order_term():
    # beside each forward-mode rule (but `jvp: none`), the row says what its node adds in forward-over-reverse:
    # linear, zero, fallback (the re-run, on purpose) or a C++ term
    missing = [
        op.name
        for op in op_schema.OPS
        if any(
            (k == "jvp" and v != "none") or (k.startswith("jvp_") and k != "jvp_args")
            for k, (v, _) in op.fields.items()
        )
        and "dual_term" not in op.fields
    ]
    assert not missing, f"rows of csrc/ops/ops.schema with a jvp rule and no 'dual_term:': {missing}"
    rows = _dual_rows()
    assert len(rows) > 130
    kinds = {op.dual_term[0] for op in rows.values()}
    assert kinds == {"linear", "zero", "zero_real", "fallback", "fn", "expr"}


def test_the_built_terms_are_the_schemas():
    # the build compiled what the schema says now: the declarations handed to Python, and the C++ table
    rows = _dual_rows()
    declared = {(name, "dual_term", op.fields["dual_term"][0]) for name, op in rows.items()}
    built = {r for r in torch._C._op_schema_rules() if r[1] == "dual_term"}
    assert built == declared, "rebuild: _C's dual terms differ from ops.schema"
    cxx = {(name, op.dual_term[2]) for name, op in rows.items() if op.dual_term[0] in ("fn", "expr")}
    assert set(torch._C._fwad_dual_term_ops()) == cxx
    # each `fn` has its call layout in forward AD, and each layout a row
    from minitorch.func import _forward_ad

    fns = {op.dual_term[1] for op in rows.values() if op.dual_term[0] == "fn"}
    assert fns == set(_forward_ad._LAYOUTS)
    # a C++ expression is a unary row's; a composite's row declares only what has no C++ term
    assert all(op.kind == "unary" for op in rows.values() if op.dual_term[0] == "expr")
    from minitorch.autograd._jvp_rules import JVP_RULES

    composite = {k: r["dual_term"] for k, r in JVP_RULES.items() if isinstance(r, dict) and "dual_term" in r}
    assert set(composite.values()) <= {"linear", "zero", "fallback"}
    # and the rule key of a call finds its row: spellings of the schema's, aliases, composites
    kind = _forward_ad._dual_kind
    assert kind("Tensor.exp")[:2] == kind("exp")[:2] == ("cxx", "exp")
    assert kind("F.linear")[:2] == ("cxx", "linear") and kind("multiply")[:2] == ("cxx", "mul")
    assert kind("F.relu6")[0] == kind("relu")[0] == "zero"
    assert kind("Tensor.sum")[0] == kind("Tensor.__getitem__")[0] == kind("transpose")[0] == "linear"
    assert kind("abs")[0] == kind("Tensor.sgn")[0] == "zero_real"
    assert kind("linalg.matmul")[0] == kind("special.zeta")[0] == kind("igamma")[0] == "fallback"
    # a public wrapper's key reaches the private row it calls: _<name>, torch.special's _special_<name> and aliases
    assert kind("special.expm1")[:2] == ("cxx", "expm1") and kind("special.psi")[:2] == ("cxx", "digamma")
    assert kind("hypot")[:2] == ("cxx", "_hypot") and kind("special.i0e")[:2] == ("cxx", "_special_i0e")
    assert kind("copysign")[0] == "zero" and kind("special.entr")[0] == "fallback"
    assert kind("F.prelu")[:2] == kind("prelu")[:2] == ("cxx", "_prelu_kernel")


def test_a_wrappers_rule_is_the_private_rows_whose_term_it_takes():
    # the term of a private row (hypot's _hypot, special.i1's _special_i1) is the derivative of that row's rule:
    # the public key's rule, which forward AD runs, must be the same formulas
    from minitorch.autograd._jvp_rules import JVP_RULES
    from minitorch.func import _forward_ad

    rows = _dual_rows()
    names = {r[1] for r in torch._C._op_schema()}
    checked = []
    for key, rule in JVP_RULES.items():
        ns, _, name = key.rpartition(".")
        private = _forward_ad._private_row(ns, name)
        if (ns in ("", "Tensor", "F") and name in names) or private not in rows or not isinstance(rule, dict):
            continue
        if "dual_term" in rule or rows[private].dual_term[0] == "fallback" or private == name:
            continue
        if (
            name == "prelu"
        ):  # its rule reshapes the weight as the wrapper does for the kernel (MORE_TERMS checks it)
            continue
        mine = {k: v for k, v in rule.items() if k.startswith("jvp") and k != "jvp_args"}
        schema = {
            k: v for k, (v, _) in rows[private].fields.items() if k.startswith("jvp") and k != "jvp_args"
        }
        if set(mine) != set(schema):  # the wrapper names its arguments as PyTorch (input, other)
            mine = {"jvp_" + k.split("_", 1)[1].replace("input", "self"): v for k, v in mine.items()}
        assert mine == schema, (key, private)
        checked.append(key)
    assert {"hypot", "copysign", "special.i0e", "special.bessel_y1", "special.modified_bessel_k1"} <= set(
        checked
    )


def test_generator_rejects_malformed_dual_terms():
    row = "unary foo\n  functor: Foo\n  dtype: same\n  grad: grad\n  jvp: t_self\n"
    assert "'dual_term:' takes linear, zero, fallback" in op_schema.schema_error(
        row + "  dual_term: nothing\n"
    )
    binary = "binary bar\n  functor: Bar\n  dtype: arith\n  grad: none\n"
    assert "'dual_term:' takes" in op_schema.schema_error(binary + "  dual_term: mul(grad, t_self)\n")
    assert "unbalanced parentheses" in op_schema.schema_error(row + "  dual_term: mul(grad, t_self\n")
    assert "reads `grad`" in op_schema.schema_error(row + "  dual_term: mul(self, t_self)\n")
    none = row.replace("jvp: t_self", "jvp: none")
    assert "needs the op's tangent" in op_schema.schema_error(none + "  dual_term: fn foo_term\n")
    (foo,) = op_schema.gen_ops.parse(row + "  dual_term: fn foo_term t_result\n", "s")
    assert foo.dual_term == ("fn", "foo_term", True)
    (foo,) = op_schema.gen_ops.parse(row + "  dual_term: mul(grad, t_result)\n", "s")
    assert foo.dual_term == ("expr", "mul(grad, t_result)", True)
    assert "Terms foo_dual_term(" in op_schema.gen_ops.dual_terms_inc([foo])


_EXPR_ROWS = sorted(name for name, op in _dual_rows().items() if op.dual_term[0] == "expr")


@pytest.mark.parametrize("name", _EXPR_ROWS)
def test_each_unary_term_matches_the_rerun(name, monkeypatch):
    # every unary row's C++ expression, on its gradcheck domain (tests/ops/opdb.py): the HVP of sum(f(x)^2 / 2)
    # is the re-run's (1e-12 apart), without a re-run
    from minitorch.func import _forward_ad

    op = {o.name: o for o in opdb.UNARY_OPS}[name]
    # looked up inside the level (forward AD's wrappers); a private _special_ row through torch.special's wrapper
    public = lambda: (
        getattr(torch.special, name[9:]) if name.startswith("_special_") else op_schema.function(name)
    )
    f = lambda a: public()(a)
    torch.manual_seed(5)
    x, v = op.grad_input(4, 3).detach(), torch.randn(4, 3, dtype=D)
    reruns = []
    second_order = _forward_ad._second_order
    monkeypatch.setattr(
        _forward_ad, "_second_order", lambda rec, g: reruns.append(rec[0]) or second_order(rec, g)
    )
    loss = lambda a: f(a) * f(a) / 2
    ((gp, gt),) = _dual_hvp(loss, [x], [v])
    assert not reruns, reruns
    monkeypatch.setattr(_forward_ad, "CXX_TERMS", False)
    ((wp, wt),) = _dual_hvp(loss, [x], [v])
    assert reruns
    assert_close(gp, wp, rtol=0, atol=0)
    assert_close(gt, wt, rtol=1e-12, atol=1e-12)


HVP_ORACLE = r"""
def cases(torch, F, AF, data):
    D = torch.float64
    T = lambda k: torch.tensor(data[k], dtype=D)
    w, b, x, vw, vb = T("w"), T("b"), T("x"), T("vw"), T("vb")

    def mlp(w, b):
        return ((F.linear(torch.tanh(F.linear(x, w, b)), w[:1, :3]) - 0.5) ** 2).mean()

    def kinks(w, b):  # relu and max at their kinks (exact zeros, a tie), a linear part in b
        return (F.relu(w - w.round()) ** 2 * w).sum() + torch.maximum(w, w.flip(0)).pow(3).sum() + b.sum()

    out = {}
    for name, f in (("mlp", mlp), ("kinks", kinks)):
        for create in (False, True):
            r = AF.hvp(f, (w, b), (vw, vb), create_graph=create)
            out[f"{name}_{create}"] = [r[0].tolist(), [h.tolist() for h in r[1]], r[1][0].requires_grad]
    return out
"""


def test_functional_hvp_matches_pytorch():
    # functional.hvp is PyTorch's double-backward trick: its values (a kink's convention too), the zeros of an
    # input on which the gradient does not depend, create_graph's graph
    rng = np.random.default_rng(11)
    w = np.round(rng.standard_normal((3, 4)), 1)
    w[0, :2] = [1.0, 2.0]  # relu at 0 after w - round(w)
    data = {"w": w.tolist(), "b": rng.standard_normal(3).tolist(), "x": rng.standard_normal((5, 4)).tolist()}
    data["vw"], data["vb"] = rng.standard_normal((3, 4)).tolist(), rng.standard_normal(3).tolist()
    modules = [("torch", torch), ("torch.nn.functional", F), ("torch.autograd.functional", AF)]
    ours, theirs = cases_here_and_in_pytorch(HVP_ORACLE, modules, data)
    assert set(theirs) == {"mlp_False", "mlp_True", "kinks_False", "kinks_True"}
    bad = {k: (ours[k], want) for k, want in theirs.items() if not _close(ours[k], want)}
    assert not bad, bad
