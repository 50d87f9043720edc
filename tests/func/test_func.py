"""torch.func transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, functional_call, stack_module_state, the
functorch-era make_functional) and torch.autograd.functional: values against closed forms and central finite
differences in float64, nesting, per-sample gradients under vmap against a loop, and PyTorch's errors."""

import functools

import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import functional as AF
from minitorch.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    stack_module_state,
    vjp,
    vmap,
)
from minitorch.func._functorch_compat import (
    combine_state_for_ensemble,
    make_functional,
    make_functional_with_buffers,
)
from minitorch.testing import assert_close

D = torch.float64


def rand(*shape):
    return torch.randn(shape, dtype=D)


def fd_jacobian(f, x, eps=1e-6):
    """Central finite differences: J[i, j] = d f(x)_i / d x_j, shape out.shape + x.shape."""
    x = x.detach()
    out = f(x)
    cols = []
    flat = x.reshape(-1)
    for j in range(flat.numel()):
        e = torch.zeros_like(flat)
        e[j] = eps
        cols.append(
            ((f((flat + e).reshape(x.shape)) - f((flat - e).reshape(x.shape))) / (2 * eps)).reshape(-1)
        )
    jac = torch.stack(cols, -1) if cols else torch.zeros(out.numel(), 0, dtype=D)
    return jac.reshape(tuple(out.shape) + tuple(x.shape))


def f_vec(x):
    return torch.stack([x[0] * x[1].sin(), (x**2).sum(), x[2].exp() * x[0]])


def f_scalar(x):
    return (x.sin() * x.exp()).sum() + (x[0] * x[1]) ** 2


# ------------------------------------------------------------------------------------------------ autograd.functional


class TestAutogradFunctional:
    def test_jacobian_vs_finite_differences(self):
        x = rand(3)
        assert_close(AF.jacobian(f_vec, x), fd_jacobian(f_vec, x), rtol=1e-6, atol=1e-7)
        assert_close(AF.jacobian(f_vec, x, vectorize=True), fd_jacobian(f_vec, x), rtol=1e-6, atol=1e-7)
        got = AF.jacobian(f_vec, x, vectorize=True, strategy="forward-mode")
        assert_close(got, fd_jacobian(f_vec, x), rtol=1e-6, atol=1e-7)

    def test_jacobian_closed_form_and_shapes(self):
        a = rand(2, 3)
        x = rand(3)
        assert_close(AF.jacobian(lambda v: a @ v, x), a)
        m = rand(2, 2)
        jac = AF.jacobian(lambda v: v.sin(), m)
        assert jac.shape == (2, 2, 2, 2)
        assert_close(jac.reshape(4, 4), torch.diag(m.cos().reshape(-1)))
        # tuples of inputs and outputs: jac[i][j] is d out_i / d in_j
        y = rand(3)
        jac = AF.jacobian(lambda u, v: (u * v, u.sum() * 2), (x, y))
        assert isinstance(jac, tuple) and len(jac) == 2 and len(jac[0]) == 2
        assert_close(jac[0][0], torch.diag(y))
        assert_close(jac[0][1], torch.diag(x))
        assert_close(jac[1][0], torch.full((3,), 2.0, dtype=D))
        assert_close(jac[1][1], torch.zeros(3, dtype=D))

    def test_jacobian_create_graph(self):
        x = rand(3).requires_grad_()
        jac = AF.jacobian(lambda v: v**3, x, create_graph=True)
        assert jac.requires_grad
        (g,) = torch.autograd.grad(jac.sum(), x)
        assert_close(g, 6 * x.detach())
        assert not AF.jacobian(lambda v: v**3, x).requires_grad

    def test_jacobian_strict_and_errors(self):
        x = rand(3)
        with pytest.raises(
            RuntimeError, match="Output 0 of the user-provided function does not require gradients"
        ):
            AF.jacobian(lambda v: torch.ones(2, dtype=D), x, strict=True)
        with pytest.raises(
            RuntimeError, match="Output 0 of the user-provided function is independent of input 1"
        ):
            AF.jacobian(lambda u, v: u * 2, (x, x.clone()), strict=True)
        # not strict: zeros
        jac = AF.jacobian(lambda u, v: u * 2, (x, x.clone()))
        assert_close(jac[1], torch.zeros(3, 3, dtype=D))
        with pytest.raises(
            RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"
        ):
            AF.jacobian(f_vec, x, strict=True, vectorize=True)
        with pytest.raises(
            AssertionError, match='Expected strategy to be either "forward-mode" or "reverse-mode"'
        ):
            AF.jacobian(f_vec, x, strategy="bad")
        with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
            AF.jacobian(f_vec, x, strategy="forward-mode")
        with pytest.raises(NotImplementedError, match='`create_graph=True` and `strategy="forward-mode"`'):
            AF.jacobian(f_vec, x, strategy="forward-mode", vectorize=True, create_graph=True)
        with pytest.raises(
            TypeError, match="The inputs given to jacobian must be either a Tensor or a tuple of Tensors"
        ):
            AF.jacobian(f_vec, [x])
        with pytest.raises(TypeError, match="but the value at index 1 has type <class 'int'>"):
            AF.jacobian(f_vec, (x, 3))

    def test_hessian(self):
        x = rand(3)
        a = rand(3, 3)
        assert_close(AF.hessian(lambda v: v @ a @ v, x), a + a.T)
        assert_close(AF.hessian(lambda v: (v**3).sum(), x), torch.diag(6 * x))
        h = AF.hessian(f_scalar, x)
        want = fd_jacobian(lambda v: AF.jacobian(f_scalar, v), x)
        assert_close(h, want, rtol=1e-6, atol=1e-6)
        y = rand(2)
        h = AF.hessian(lambda u, v: (u.sum() * v**2).sum(), (x, y))
        assert_close(h[0][0], torch.zeros(3, 3, dtype=D))
        assert_close(h[0][1], (2 * y).expand(3, 2))
        assert_close(h[1][1], torch.diag(torch.full((2,), 2 * x.sum().item(), dtype=D)))
        with pytest.raises(
            RuntimeError, match="The Tensor returned by the function given to hessian should contain a single"
        ):
            AF.hessian(lambda v: v**2, x)
        with pytest.raises(RuntimeError, match="The function given to hessian should return a single Tensor"):
            AF.hessian(lambda v: (v.sum(), v.sum()), x)

    def test_vjp_jvp_hvp_vhp(self):
        x = rand(3)
        v3 = rand(3)
        jac = fd_jacobian(f_vec, x)
        out, vj = AF.vjp(f_vec, x, v3)
        assert_close(out, f_vec(x))
        assert_close(vj, v3 @ jac, rtol=1e-6, atol=1e-7)
        out, jv = AF.jvp(f_vec, x, v3)
        assert_close(jv, jac @ v3, rtol=1e-6, atol=1e-7)
        hess = AF.hessian(f_scalar, x)
        _, hv = AF.hvp(f_scalar, x, v3)
        assert_close(hv, hess @ v3)
        _, vh = AF.vhp(f_scalar, x, v3)
        assert_close(vh, v3 @ hess)
        # v may be omitted for one-element outputs (vjp) and inputs (jvp)
        _, g = AF.vjp(lambda t: (t**2).sum(), x)
        assert_close(g, 2 * x)
        _, d = AF.jvp(lambda t: t * 3, rand(1))
        assert_close(d, torch.full((1,), 3.0, dtype=D))

    def test_product_errors(self):
        x = rand(3)
        with pytest.raises(
            RuntimeError, match="The vector v can only be None if the user-provided function returns"
        ):
            AF.vjp(f_vec, x)
        with pytest.raises(
            RuntimeError, match="The vector v can only be None if the input to the user-provided"
        ):
            AF.jvp(f_vec, x)
        with pytest.raises(
            RuntimeError,
            match=r"v has invalid size: should be torch.Size\(\[3\]\) but got torch.Size\(\[2\]\)",
        ):
            AF.jvp(f_vec, x, rand(2))
        with pytest.raises(RuntimeError, match="v is a tuple of invalid length: should be 2 but got 1"):
            AF.jvp(lambda a, b: a + b, (x, x), (rand(3),))
        with pytest.raises(RuntimeError, match="The function given to hvp should return a single Tensor"):
            AF.hvp(lambda t: (t, t), x, x)
        with pytest.raises(
            RuntimeError, match="The output of the user-provided function is independent of input 1"
        ):
            AF.vjp(lambda a, b: a * 2, (x, x), rand(3), strict=True)

    def test_jvp_strict_double_back(self):
        x = rand(3)
        with pytest.raises(
            RuntimeError, match="Output 0 of the user-provided function does not require gradients"
        ):
            AF.jvp(lambda t: torch.zeros(3, dtype=D), x, rand(3), strict=True)


# ------------------------------------------------------------------------------------------------ grad


class TestGrad:
    def test_closed_form_and_finite_differences(self):
        x = rand(4)
        assert_close(grad(lambda t: (t**3).sum())(x), 3 * x**2)
        g = grad(f_scalar)(x)
        assert_close(g, fd_jacobian(f_scalar, x), rtol=1e-6, atol=1e-7)
        assert not g.requires_grad

    def test_argnums_and_trees(self):
        x, y = rand(3), rand(3)
        f = lambda a, b: (a * b.sin()).sum()
        assert_close(grad(f, argnums=1)(x, y), x * y.cos())
        assert_close(grad(f, argnums=-1)(x, y), x * y.cos())
        gx, gy = grad(f, argnums=(0, 1))(x, y)
        assert_close(gx, y.sin())
        assert_close(gy, x * y.cos())
        g = grad(lambda d: (d["w"] * d["b"][0]).sum())({"w": x, "b": [y]})
        assert set(g) == {"w", "b"}
        assert_close(g["w"], y)
        assert_close(g["b"][0], x)

    def test_has_aux_and_value(self):
        x = rand(3)
        g, aux = grad(lambda t: ((t**2).sum(), t * 2), has_aux=True)(x)
        assert_close(g, 2 * x)
        assert_close(aux, 2 * x)
        g, (v, aux) = grad_and_value(lambda t: ((t**2).sum(), {"m": t.mean()}), has_aux=True)(x)
        assert_close(v, (x**2).sum())
        assert_close(aux["m"], x.mean())
        g, v = grad_and_value(lambda t: (t**2).sum())(x)
        assert_close(g, 2 * x)
        assert not v.requires_grad

    def test_independent_output_gives_zeros(self):
        x = rand(3)
        assert_close(grad(lambda t: torch.ones((), dtype=D))(x), torch.zeros(3, dtype=D))
        assert_close(grad(lambda t: t.sum().detach())(x), torch.zeros(3, dtype=D))
        assert_close(grad(lambda a, b: (a * 2).sum(), argnums=1)(x, x), torch.zeros(3, dtype=D))

    def test_kwargs_pass_through(self):
        x = rand(3)
        assert_close(
            grad(lambda t, scale=1.0: (t * scale).sum())(x, scale=3.0), torch.full((3,), 3.0, dtype=D)
        )

    def test_errors(self):
        x = rand(3)
        with pytest.raises(
            RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor, got tensor with 1 dims"
        ):
            grad(lambda t: t)(x)
        with pytest.raises(
            RuntimeError, match="Expected f\\(\\*args\\) to return a Tensor, got <class 'int'>"
        ):
            grad(lambda t: 3)(x)
        with pytest.raises(RuntimeError, match="Got argnum=2, but only 1 positional inputs"):
            grad(lambda t: t.sum(), argnums=2)(x)
        with pytest.raises(RuntimeError, match="argnums must be non-empty"):
            grad(lambda t: t.sum(), argnums=())(x)
        with pytest.raises(RuntimeError, match="argnums elements must be unique, got \\(0, 0\\)"):
            grad(lambda t: t.sum(), argnums=(0, 0))(x)
        with pytest.raises(
            RuntimeError, match="argnums must be int or Tuple\\[int, ...\\], got: <class 'float'>"
        ):
            grad(lambda t: t.sum(), argnums=1.0)(x)
        with pytest.raises(RuntimeError, match="output of function f should be a tuple: \\(output, aux\\)"):
            grad(lambda t: t.sum(), has_aux=True)(x)
        with pytest.raises(
            ValueError, match="Thing passed to transform API must be Tensor, got <class 'float'>"
        ):
            grad(lambda t: t)(3.0)
        with pytest.raises(RuntimeError, match="only Tensors of floating point"):
            grad(lambda t: t.sum())(torch.arange(3))

    def test_nested(self):
        x = torch.tensor(1.3, dtype=D)
        f = lambda t: t**4
        assert_close(grad(grad(f))(x), 12 * x**2)
        assert_close(grad(grad(grad(f)))(x), 24 * x)
        assert_close(grad(grad(torch.sin))(x), -x.sin())
        # a closure over the outer variable: d/dx [d/dy (x * y)] at y = x is 1
        assert_close(grad(lambda a: grad(lambda b: a * b)(a))(x), torch.tensor(1.0, dtype=D))

    def test_grad_under_no_grad_still_differentiates(self):
        x = rand(3)
        with torch.no_grad():
            g = grad(lambda t: (t**2).sum())(x)
        assert_close(g, 2 * x)

    def test_differentiable_through_ordinary_autograd(self):
        x = rand(3).requires_grad_()
        g = grad(lambda t: (t**3).sum())(x)
        assert g.requires_grad
        (gg,) = torch.autograd.grad(g.sum(), x)
        assert_close(gg, 6 * x.detach())


# ------------------------------------------------------------------------------------------------ vjp / jvp


class TestVjpJvp:
    def test_vjp(self):
        x = rand(3)
        out, fn = vjp(f_vec, x)
        assert_close(out, f_vec(x))
        jac = fd_jacobian(f_vec, x)
        for _ in range(2):  # vjp_fn can be called again
            v = rand(3)
            (g,) = fn(v)
            assert_close(g, v @ jac, rtol=1e-6, atol=1e-7)
        out, fn = vjp(lambda a, b: (a * b, a.sum()), x, x.cos())
        ga, gb = fn((torch.ones(3, dtype=D), torch.tensor(2.0, dtype=D)))
        assert_close(ga, x.cos() + 2)
        assert_close(gb, x)
        out, fn, aux = vjp(lambda a: (a.exp(), a.sum()), x, has_aux=True)
        assert_close(aux, x.sum())
        assert_close(fn(torch.ones(3, dtype=D))[0], x.exp())

    def test_vjp_errors(self):
        x = rand(3)
        _, fn = vjp(lambda a: a * 2, x)
        with pytest.raises(
            RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[2\]\)"
        ):
            fn(torch.ones(2, dtype=D))
        with pytest.raises(
            RuntimeError, match="Expected pytree structure of cotangents to be the same as pytree structure"
        ):
            fn((torch.ones(3, dtype=D),))
        with pytest.raises(
            RuntimeError, match="expected f\\(\\*primals\\) to return only tensors, got unsupported type"
        ):
            vjp(lambda a: (a, 3), x)
        with pytest.raises(
            RuntimeError,
            match="All outputs of f must be floating-point or complex Tensors, got Tensor with dtype torch.int64",
        ):
            vjp(lambda a: a.long(), x)

    def test_jvp(self):
        x, t = rand(3), rand(3)
        out, jv = jvp(f_vec, (x,), (t,))
        assert_close(out, f_vec(x))
        assert_close(jv, fd_jacobian(f_vec, x) @ t, rtol=1e-6, atol=1e-7)
        y, s = rand(3), rand(3)
        out, jv = jvp(lambda a, b: a * b.exp(), (x, y), (t, s))
        assert_close(jv, t * y.exp() + x * y.exp() * s)
        out, jv = jvp(lambda a: torch.ones(2, dtype=D), (x,), (t,))
        assert_close(jv, torch.zeros(2, dtype=D))
        out, jv, aux = jvp(lambda a: (a.sin(), {"c": a.cos()}), (x,), (t,), has_aux=True)
        assert_close(aux["c"], x.cos())
        assert_close(jv, x.cos() * t)

    def test_jvp_errors(self):
        x = rand(3)
        with pytest.raises(
            RuntimeError,
            match="Expected primals to be a tuple. E.g. it should be valid to call f\\(\\*primals\\)",
        ):
            jvp(torch.sin, x, x)
        with pytest.raises(
            RuntimeError, match="Expected primals and tangents to have the same python structure"
        ):
            jvp(torch.sin, (x,), (x, x))
        with pytest.raises(
            RuntimeError,
            match="Tensor is of size \\[3\\] while the given forward gradient is of size \\[2\\]",
        ):
            jvp(torch.sin, (x,), (rand(2),))
        with pytest.raises(
            RuntimeError, match="Expected primals to only contain Tensors, got <class 'float'>"
        ):
            jvp(torch.sin, (3.0,), (3.0,))
        with pytest.raises(RuntimeError, match="expected f\\(\\*primals\\) to return only tensors"):
            jvp(lambda a: 3, (x,), (x,))

    def test_linearize(self):
        x, t = rand(3), rand(3)
        out, fn = linearize(torch.sin, x)
        assert_close(out, x.sin())
        assert_close(fn(t), x.cos() * t)
        out, fn = linearize(lambda a, b: (a * b.exp(), {"q": a * a}), x, x)
        jv, d = fn(t, t)
        assert_close(jv, fd_jacobian(lambda a: a * a.exp(), x) @ t, rtol=1e-6, atol=1e-7)
        assert_close(d["q"], 2 * x * t)

    @pytest.mark.parametrize(
        "tangents, words",
        [
            (
                (rand(3), rand(3)),
                (
                    r"Expected the tangents TreeSpec\(tuple, None, \[\*,\s+\*\]\) to have the same argspec as the primals "
                    r"TreeSpec\(tuple, None, \[\*\]\)"
                ),
            ),
            (
                (rand(2),),
                (
                    r"tangent:0 with shape torch.Size\(\[2\]\) in flattened pytree doesn't match the shape "
                    r"torch.Size\(\[3\]\) of the corresponding primal."
                ),
            ),
            (
                (rand(3).float(),),
                (
                    "tangent:0 with dtype torch.float32 in flattened pytree doesn't match the dtype torch.float64 of the "
                    "corresponding primal."
                ),
            ),
        ],
    )
    def test_linearize_checks_tangents_as_pytorch(self, tangents, words):
        _, fn = linearize(torch.sin, rand(3))
        with pytest.raises(RuntimeError, match=words):
            fn(*tangents)

    def test_jacfwd_refuses_integer_primals_as_pytorch(self):
        with pytest.raises(
            ValueError, match="Expected primal to be floating point or complex, but got: torch.int64"
        ):
            jacfwd(torch.sin)(torch.ones(3, dtype=torch.int64))

    @pytest.mark.parametrize(
        "call",
        [
            lambda x: grad(lambda a: ((a * a).sum(), 3), has_aux=True)(x),
            lambda x: grad_and_value(lambda a: ((a * a).sum(), [a, None]), has_aux=True)(x),
            lambda x: vjp(lambda a: (a * a, {"n": 3}), x, has_aux=True),
            lambda x: jvp(lambda a: (a * a, "aux"), (x,), (x,), has_aux=True),
            lambda x: jacrev(lambda a: (a * a, 3), has_aux=True)(x),
            lambda x: jacfwd(lambda a: (a * a, 3), has_aux=True)(x),
        ],
    )
    def test_aux_must_hold_tensors_only(self, call):
        # PyTorch's transforms unwrap every leaf of aux as a tensor
        with pytest.raises(
            RuntimeError, match="Expected tensors, got unsupported type <class '(int|NoneType|str)'>"
        ):
            call(rand(3))


# ------------------------------------------------------------------------------------------------ jacobians


class TestJacobians:
    @pytest.mark.parametrize("jac", [jacrev, jacfwd])
    def test_values(self, jac):
        x = rand(3)
        assert_close(jac(f_vec)(x), fd_jacobian(f_vec, x), rtol=1e-6, atol=1e-7)
        a = rand(2, 3)
        assert_close(jac(lambda v: a @ v)(x), a)
        m = rand(2, 3)
        # a builtin passed itself (bound before any transform): jacfwd once read it before its level and gave zeros
        want = torch.diag(torch.cos(m).reshape(-1)).reshape(2, 3, 2, 3)
        assert_close(jac(torch.sin)(m), want)

    @pytest.mark.parametrize("jac", [jacrev, jacfwd])
    def test_structure(self, jac):
        x, y = rand(3), rand(3)
        j = jac(lambda a, b: a * b, argnums=(0, 1))(x, y)
        assert isinstance(j, tuple)
        assert_close(j[0], torch.diag(y))
        assert_close(j[1], torch.diag(x))
        j = jac(lambda a: (a * 2, a.sum()))(x)
        assert_close(j[0], 2 * torch.eye(3, dtype=D))
        assert_close(j[1], torch.ones(3, dtype=D))
        j = jac(lambda a, b: {"p": a * b})(x, y)
        assert_close(j["p"], torch.diag(y))
        j, aux = jac(lambda a: (a.exp(), a.sum()), has_aux=True)(x)
        assert_close(j, torch.diag(x.exp()))
        assert_close(aux, x.sum())
        j = jac(lambda p: p["w"] @ x)({"w": rand(2, 3)})
        assert j["w"].shape == (2, 2, 3)

    def test_jacfwd_by_columns_for_tall_jacobians(self):
        # 3 inputs, 15 outputs: jacfwd takes its columns by the double-vjp trick
        def tall(v):
            return torch.cat([v.sin(), v.outer(v).reshape(-1) ** 2, v.exp() * v[0]])

        x = rand(3)
        assert_close(jacfwd(tall)(x), fd_jacobian(tall, x), rtol=1e-6, atol=1e-7)
        xs = rand(4, 3)
        assert_close(vmap(jacfwd(tall))(xs), torch.stack([jacrev(tall)(v) for v in xs]))
        y = rand(3)
        j = jacfwd(lambda a, b: torch.cat([(a * b).repeat(3), a.sum().reshape(1)]), argnums=(0, 1))(x, y)
        assert_close(j[0], torch.cat([torch.diag(y)] * 3 + [torch.ones(1, 3, dtype=D)]))
        assert_close(j[1], torch.cat([torch.diag(x)] * 3 + [torch.zeros(1, 3, dtype=D)]))
        # an output that does not depend on the input
        assert_close(jacfwd(lambda v: torch.ones(7, dtype=D))(x), torch.zeros(7, 3, dtype=D))

    def test_hessian(self):
        x = rand(4)
        a = rand(4, 4)
        assert_close(hessian(lambda v: v @ a @ v)(x), a + a.T)
        assert_close(hessian(lambda v: v.sin().sum())(x), torch.diag(-x.sin()))
        assert_close(jacrev(jacrev(f_scalar))(x), hessian(f_scalar)(x))
        assert_close(hessian(f_scalar)(x), AF.hessian(f_scalar, x))

    def test_errors(self):
        with pytest.raises(ValueError, match="jacrev: `chunk_size` should be greater than 0."):
            jacrev(torch.sin, chunk_size=0)
        with pytest.raises(RuntimeError, match="Got argnum=3, but only 1 positional inputs"):
            jacrev(torch.sin, argnums=3)(rand(2))
        with pytest.raises(RuntimeError, match="All outputs of f must be floating-point"):
            jacrev(lambda v: v.long())(rand(2))

    def test_chunk_size_does_not_change_values(self):
        x = rand(5)
        assert_close(jacrev(f_scalar, chunk_size=2)(x), jacrev(f_scalar)(x))


# ------------------------------------------------------------------------------------------------ with vmap


class TestPerSample:
    def test_vmap_grad_matches_loop(self):
        w = rand(3)
        xs, ys = rand(6, 3), rand(6)

        def loss(w, x, y):
            return ((x @ w).tanh() - y) ** 2

        got = vmap(grad(loss), in_dims=(None, 0, 0))(w, xs, ys)
        want = torch.stack([grad(loss)(w, xs[i], ys[i]) for i in range(6)])
        assert got.shape == (6, 3)
        assert_close(got, want)
        # the batched argument itself
        got = vmap(grad(loss, argnums=1), in_dims=(None, 0, 0))(w, xs, ys)
        want = torch.stack([grad(loss, argnums=1)(w, xs[i], ys[i]) for i in range(6)])
        assert_close(got, want)

    def test_vmap_jacrev_and_hessian(self):
        xs = rand(5, 3)
        got = vmap(jacrev(f_vec))(xs)
        assert_close(got, torch.stack([jacrev(f_vec)(x) for x in xs]))
        got = vmap(hessian(f_scalar))(xs)
        assert_close(got, torch.stack([hessian(f_scalar)(x) for x in xs]))
        got = vmap(jacfwd(jacrev(f_scalar)))(xs)
        assert_close(got, torch.stack([hessian(f_scalar)(x) for x in xs]))

    def test_vmap_vjp_and_jvp(self):
        xs, vs = rand(4, 3), rand(4, 3)
        got = vmap(lambda x, v: vjp(f_vec, x)[1](v)[0])(xs, vs)
        assert_close(got, torch.stack([vjp(f_vec, x)[1](v)[0] for x, v in zip(xs, vs)]))
        got = vmap(lambda x, v: jvp(f_vec, (x,), (v,))[1])(xs, vs)
        assert_close(got, torch.stack([jvp(f_vec, (x,), (v,))[1] for x, v in zip(xs, vs)]))
        # a vjp_fn vmapped over cotangents (one backward per cotangent)
        _, fn = vjp(f_vec, xs[0])
        got = vmap(fn)(vs)[0]
        assert_close(got, torch.stack([fn(v)[0] for v in vs]))

    def test_grad_of_vmap(self):
        x = rand(4, 3)
        got = grad(lambda t: vmap(lambda r: (r.sin() * r).sum())(t).sum())(x)
        assert_close(got, x.cos() * x + x.sin())

    def test_nested_vmap_grad(self):
        xs = rand(2, 3, 4)
        got = vmap(vmap(grad(lambda v: (v**3).sum())))(xs)
        assert_close(got, 3 * xs**2)

    def test_cnn_per_sample_gradients(self):
        torch.manual_seed(0)
        model = nn.Sequential(
            nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 5)
        ).double()
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss_fn(p, x, y):
            out = functional_call(model, p, (x.unsqueeze(0),))
            return F.cross_entropy(out, y.unsqueeze(0))

        xs, ys = rand(6, 1, 8, 8), torch.randint(0, 5, (6,))
        got = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, xs, ys)
        for k, p in params.items():
            want = torch.stack([grad(loss_fn)(params, xs[i], ys[i])[k] for i in range(6)])
            assert got[k].shape == (6,) + tuple(p.shape)
            assert_close(got[k], want)
        # the model's own parameters are untouched
        for k, v in model.named_parameters():
            assert v is not params[k] and torch.equal(v.detach(), params[k])


# ------------------------------------------------------------------------------------------------ functional_call


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(3, 4)
        self.l2 = nn.Linear(4, 2)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        return self.l2(self.l1(x).relu()) * self.scale


class TestFunctionalCall:
    def test_swaps_and_restores(self):
        m = Tiny()
        x = torch.randn(5, 3)
        params = {k: torch.zeros_like(v) for k, v in m.named_parameters()}
        bias = m.l2.bias
        out = functional_call(m, params, (x,))
        assert_close(out, torch.zeros(5, 2))
        out = functional_call(m, ({"l2.bias": torch.ones(2)}, {"scale": torch.tensor(3.0)}), x)
        want = (m.l2.weight @ m.l1(x).relu().T).T + 1
        assert_close(out, want * 3)
        assert m.scale.item() == 2.0
        assert m.l2.bias is bias and isinstance(m.l2.bias, nn.Parameter)

    def test_restores_on_exception(self):
        m = Tiny()
        before = m.l1.weight

        class Boom(Exception):
            pass

        def bad(x):
            raise Boom

        m.l1.register_forward_hook(lambda mod, i, o: bad(o))
        with pytest.raises(Boom):
            functional_call(m, {"l1.weight": torch.zeros(4, 3)}, (torch.randn(1, 3),))
        assert m.l1.weight is before

    def test_kwargs_strict_tie(self):
        m = Tiny()
        with pytest.raises(
            RuntimeError, match="Error\\(s\\) in reparametrizing for Tiny:\n\tUnexpected key\\(s\\): 'nope'"
        ):
            functional_call(m, {"nope": torch.zeros(1)}, (torch.randn(1, 3),), strict=True)
        with pytest.raises(RuntimeError, match="Missing key\\(s\\)"):
            functional_call(m, {"l1.weight": torch.zeros(4, 3)}, (torch.randn(1, 3),), strict=True)
        with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
            functional_call(m, ({"scale": torch.ones(())}, {"scale": torch.ones(())}), (torch.randn(1, 3),))
        with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts to be a dict"):
            functional_call(m, 3, (torch.randn(1, 3),))

        class Kw(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.ones(2))

            def forward(self, x, *, k=1.0):
                return self.w * x * k

        assert_close(
            functional_call(Kw(), {"w": torch.full((2,), 2.0)}, (torch.ones(2),), {"k": 3.0}),
            torch.full((2,), 6.0),
        )

        class Tied(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(2, 2, bias=False)
                self.b = nn.Linear(2, 2, bias=False)
                self.b.weight = self.a.weight

            def forward(self, x):
                return self.b(self.a(x))

        t = Tied()
        w = torch.eye(2) * 2
        assert_close(functional_call(t, {"a.weight": w}, (torch.ones(1, 2),)), torch.full((1, 2), 4.0))
        out = functional_call(t, {"a.weight": w}, (torch.ones(1, 2),), tie_weights=False)
        assert_close(out, (torch.ones(1, 2) @ w.T) @ t.a.weight.detach().T)

    def test_ensemble_with_stack_module_state(self):
        torch.manual_seed(0)
        models = [Tiny() for _ in range(3)]
        params, buffers = stack_module_state(models)
        assert params["l1.weight"].shape == (3, 4, 3) and params["l1.weight"].requires_grad
        assert params["l1.weight"].is_leaf and buffers["scale"].shape == (3,)
        x = torch.randn(5, 3)
        base = Tiny()

        def call(p, b, data):
            return functional_call(base, (p, b), (data,))

        out = vmap(call, in_dims=(0, 0, None))(params, buffers, x)
        want = torch.stack([m(x) for m in models])
        assert_close(out, want)
        # each model its own minibatch
        xs = torch.randn(3, 5, 3)
        out = vmap(call)(params, buffers, xs)
        assert_close(out, torch.stack([m(xx) for m, xx in zip(models, xs)]))
        with pytest.raises(RuntimeError, match="Expected at least one model, got 0"):
            stack_module_state([])
        with pytest.raises(RuntimeError, match="Expected all models to be of the same class"):
            stack_module_state([Tiny(), nn.Linear(3, 4)])
        m2 = Tiny().eval()
        with pytest.raises(RuntimeError, match="same training/eval mode"):
            stack_module_state([Tiny(), m2])


class TestFunctorchCompat:
    def test_make_functional(self):
        m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
        fmodel, params = make_functional(m)
        x = torch.randn(2, 3)
        assert_close(fmodel(params, x), m(x))
        zeros = tuple(torch.zeros_like(p) for p in params)
        assert_close(fmodel(zeros, x), torch.zeros(2, 1))
        assert_close(m(x), fmodel(params, x))  # the original is untouched
        g = grad(lambda p, d: fmodel(p, d).sum())(params, x)
        assert len(g) == len(params) and g[0].shape == params[0].shape
        with pytest.raises(
            RuntimeError, match="`model` has buffers. Please use make_functional_with_buffers"
        ):
            make_functional(Tiny())
        _, params = make_functional(m, disable_autograd_tracking=True)
        assert not any(p.requires_grad for p in params)

    def test_with_buffers_and_ensemble(self):
        models = [Tiny() for _ in range(2)]
        fmodel, params, buffers = make_functional_with_buffers(models[0])
        x = torch.randn(4, 3)
        assert_close(fmodel(params, buffers, x), models[0](x))
        fmodel, params, buffers = combine_state_for_ensemble(models)
        assert params[0].shape[0] == 2 and not params[0].requires_grad
        out = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
        assert_close(out, torch.stack([m(x) for m in models]))
        with pytest.raises(
            RuntimeError, match="combine_state_for_ensemble: Expected at least one model, got 0."
        ):
            combine_state_for_ensemble([])


def test_functionalize_debug_unwrap_batch_norm_replacement():
    from minitorch.func import debug_unwrap, functionalize, replace_all_batch_norm_modules_

    def f(x):
        y = x.clone()
        y.add_(1)
        return y

    x = rand(3)
    assert_close(functionalize(f)(x), x + 1)
    with pytest.raises(RuntimeError, match="received invalid argument for remove=bad"):
        functionalize(f, remove="bad")
    seen = []
    vmap(lambda t: seen.append(debug_unwrap(t)) or t)(rand(4, 2))
    assert seen[0].shape == (4, 2)
    net = nn.Sequential(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2))
    replace_all_batch_norm_modules_(net)
    assert net[1].running_mean is None and not net[1].track_running_stats
    xs = torch.randn(3, 2, 1, 4, 4)
    out = vmap(net)(xs)
    assert_close(out, torch.stack([net(xx) for xx in xs]), rtol=1e-5, atol=1e-5)


def test_functools_partial_names():
    f = functools.partial(lambda a, b: a * b, b=2.0)
    assert_close(vmap(f)(torch.ones(3, dtype=D)), torch.full((3,), 2.0, dtype=D))
    with pytest.raises(ValueError, match=r"vmap\(functools.partial\(<lambda>, \.\.\.\), in_dims=2"):
        vmap(f, in_dims=2)(torch.ones(3))


# jvp and hvp go through the double-vjp trick: each op's backward must itself be differentiable (with respect
# to the incoming gradient too). Against central finite differences of the function, in float64.
_T = torch.rand(3, 4, dtype=D)
_JVP_OPS = {
    "exp-log1p": lambda x: x.exp() + (x * x).log1p(),
    "trig": lambda x: x.sin() * x.cos() + x.tanh() + x.atan(),
    "sigmoid-softplus": lambda x: x.sigmoid() + F.softplus(x) + F.gelu(x) + F.silu(x),
    "pow-div": lambda x: x**3 / (x * x + 1),
    "sum-mean-prod": lambda x: torch.stack([x.sum(), x.mean(), x.prod(), x.std(), x.norm()]),
    "softmax": lambda x: x.softmax(1) + x.log_softmax(0),
    "logsumexp-cumsum": lambda x: x.logsumexp(1).sum() + x.cumsum(1),
    "matmul": lambda x: x @ x.T @ x,
    "max-amax": lambda x: x.max(1).values + x.amax(0).sum(),
    "views": lambda x: x.t().reshape(-1)[1:7].unsqueeze(0).expand(2, 6) * x.flatten()[:6],
    "index": lambda x: x[:, torch.tensor([0, 2, 2])] * x.gather(1, torch.tensor([[1], [0], [3]])),
    "cat-where": lambda x: torch.cat([torch.where(x > 0, x * x, -x), x.clamp(-0.3, 0.3)], 1),
    "layer_norm": lambda x: F.layer_norm(x, (4,)),
    "cross_entropy": lambda x: F.cross_entropy(x, torch.tensor([0, 2, 1])),
    "bce_logits": lambda x: F.binary_cross_entropy_with_logits(x, _T),
    "conv2d": lambda x: F.conv2d(x.reshape(1, 1, 3, 4), x[:2, :2].reshape(1, 1, 2, 2) ** 2, padding=1),
    "max_pool": lambda x: F.max_pool2d(x.reshape(1, 1, 3, 4), 2, ceil_mode=True) * 2,
    "linalg": lambda x: (
        torch.linalg.inv(x[:, :3] + 3 * torch.eye(3, dtype=D)) + torch.det(x[:, 1:] + torch.eye(3, dtype=D))
    ),
}


@pytest.mark.parametrize("name", sorted(_JVP_OPS))
def test_jvp_and_hvp_across_ops(name):
    f = _JVP_OPS[name]
    torch.manual_seed(1)
    x = rand(3, 4)
    t = rand(3, 4)
    _, jv = jvp(f, (x,), (t,))
    want = fd_jacobian(f, x)
    want = (want.reshape(-1, 12) @ t.reshape(12)).reshape(f(x).shape)
    assert_close(jv, want, rtol=1e-5, atol=1e-6)
    # hvp of the scalar sum(f * w) by forward-over-reverse against the reverse-over-reverse Hessian
    w = rand(*f(x).shape)

    def scalar(v):
        return (f(v) * w).sum()

    hv = jvp(grad(scalar), (x,), (t,))[1]
    h = hessian(scalar)(x).reshape(12, 12)
    assert_close(hv, (h @ t.reshape(12)).reshape(3, 4), rtol=1e-6, atol=1e-7)


def test_results_stay_differentiable_for_closed_over_tensors():
    # a tensor the function closes over that requires grad: the transform's results depend on it, as
    # functorch's do, so ordinary autograd can differentiate through the transform
    w = rand(3).requires_grad_()
    x = rand(3)
    g = grad(lambda v: (w * v.sin()).sum())(x)
    assert g.requires_grad
    (gw,) = torch.autograd.grad(g.sum(), w)
    assert_close(gw, x.cos())
    _, jv = jvp(lambda v: w * v**2, (x,), (torch.ones(3, dtype=D),))
    assert jv.requires_grad
    # nothing outside requires grad: plain results
    assert not grad(lambda v: (v.sin() * 2).sum())(x).requires_grad
    with torch.no_grad():
        assert not grad(lambda v: (w * v.sin()).sum())(x).requires_grad


def test_autograd_functional_hessian_forward_over_reverse():
    x = rand(3)
    got = AF.hessian(f_scalar, x, vectorize=True, outer_jacobian_strategy="forward-mode")
    assert_close(got, AF.hessian(f_scalar, x))
    assert not x.requires_grad
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.hessian(f_scalar, x, outer_jacobian_strategy="forward-mode")
    with pytest.raises(
        AssertionError, match='Expected strategy to be either "forward-mode" or "reverse-mode".'
    ):
        AF.hessian(f_scalar, x, outer_jacobian_strategy="sideways")


@pytest.mark.parametrize("fn", [torch.sin, torch.tanh, F.relu, torch.exp])
def test_reverse_transforms_of_a_torch_function_under_vmap(fn):
    # the torch function itself is passed (not a lambda): inside vmap its arguments are BatchedTensors, so the
    # vjp must call it through the dispatch, as jvp does
    x = torch.randn(4, 3, dtype=torch.float64)
    per = vmap(jacrev(fn))(x)
    ref = torch.stack([jacrev(fn)(x[i]) for i in range(4)])
    assert per.shape == (4, 3, 3)
    assert_close(per, ref)
    assert_close(vmap(jacfwd(fn))(x), ref)
    cot = vmap(lambda a: vjp(fn, a)[1](torch.ones(3, dtype=torch.float64))[0])(x)
    assert_close(cot, torch.stack([torch.diagonal(r) for r in ref]))


def test_vmap_of_vjp_fn_returning_a_dict_of_parameters():
    # the NTK tutorial's pattern: vjp over a dict of parameters, its vjp_fn vmapped over a basis of cotangents
    torch.manual_seed(0)
    net = nn.Linear(4, 3)
    params = {k: v.detach() for k, v in net.named_parameters()}
    x = torch.randn(4)
    _, vjp_fn = vjp(lambda p: functional_call(net, p, (x,)), params)
    basis = torch.eye(3)
    got = vmap(vjp_fn)(basis)
    assert isinstance(got, tuple) and isinstance(got[0], dict) and set(got[0]) == {"weight", "bias"}
    for i in range(3):
        (row,) = vjp_fn(basis[i])
        for k in params:
            assert_close(got[0][k][i], row[k])
    # the weight's row i of the Jacobian of W x + b is e_i x^T
    assert_close(got[0]["weight"], torch.eye(3)[:, :, None] * x[None, None, :])
    assert_close(got[0]["bias"], torch.eye(3))
