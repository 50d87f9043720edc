"""Forward-mode AD where it meets reverse mode, in-place writes, dtypes and the other transforms, against PyTorch."""

import math

import numpy as np
import pytest
from utils import cases_here_and_in_pytorch

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD

# The same source runs on minitorch and on PyTorch (the oracle); `js` makes each result JSON: a tensor as its
# primal, tangent (or None) and both dtypes, an exception as its type and words.
CASES = r"""
def cases(torch, fwAD):
    def js(x):
        if isinstance(x, BaseException):
            return {"exc": type(x).__name__, "msg": str(x)}
        if isinstance(x, torch.Tensor):
            p, t = fwAD.unpack_dual(x)
            vals = lambda v: torch.view_as_real(v.detach()).tolist() if v.is_complex() else v.tolist()
            return {"p": vals(p), "t": None if t is None else vals(t), "dtype": str(p.dtype),
                    "t_dtype": None if t is None else str(t.dtype)}
        if isinstance(x, (list, tuple)):
            return [js(y) for y in x]
        return x

    def run(f):
        try:
            with fwAD.dual_level():
                return js(f())
        except Exception as e:
            return js(e)

    md = fwAD.make_dual
    x = torch.tensor([1.0, 2.0, 3.0])
    tx = torch.tensor([0.5, 1.0, -1.0])
    out = {}

    # (b) make_dual of a primal that requires grad is a view of it: not a leaf, gradients reach the primal
    def dual_of_leaf():
        w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        d = md(w, tx)
        p = fwAD.unpack_dual(d).primal
        facts = [d.is_leaf, d.requires_grad, d.grad_fn.name(), d._base is w, p.is_leaf, p._base is w]
        y = (d * d.sin()).sum()
        y.backward(retain_graph=True)
        g, = torch.autograd.grad(y, w)
        return facts + [w.grad, g, y]

    def dual_of_plain():
        w = torch.tensor([1.0, 2.0])
        d = md(w, torch.ones(2))
        facts = [d.is_leaf, d.grad_fn is None, d.requires_grad, d._base is w]
        d.requires_grad_()  # the dual's own flag, not the primal's
        (d * 3).sum().backward()
        return facts + [d.requires_grad, w.requires_grad, d.grad, w.grad is None]

    def dual_of_nonleaf():
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        d = md(w * 2, torch.ones(2))
        facts = [d.is_leaf, d.grad_fn.name(), d.grad_fn.next_functions[0][0].name()]
        d.sum().backward()
        return facts + [w.grad]

    def in_place_on_dual_of_leaf():
        return md(torch.ones(2, requires_grad=True), torch.ones(2)).mul_(2)

    def retain_grad_of_dual():
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        d = md(w, torch.ones(2))
        d.retain_grad()
        (d * 3).sum().backward()
        return [d.grad, w.grad, d.retains_grad]

    for f in (dual_of_leaf, dual_of_plain, dual_of_nonleaf, in_place_on_dual_of_leaf, retain_grad_of_dual):
        out[f.__name__] = run(f)

    # (f) a plain tensor written with a dual becomes dual: zeros but for the written part
    def written(op):
        def f():
            d = md(x, tx)
            p = torch.zeros(3) if op != "mul_" else torch.full((3,), 2.0)
            r = getattr(p, op)(d)
            return [p, r is p, p * 2, torch.sin(p)]
        return f

    for op in ("add_", "mul_", "copy_", "sub_", "div_"):
        out["plain_" + op] = run(written(op))

    def setitem_row():
        p = torch.zeros(2, 3)
        p[1] = md(x, tx)
        return p

    def setitem_slice_and_scalar():
        p = torch.zeros(5)
        d = md(x, tx)
        p[1:4] = d
        q = torch.zeros(4)
        q[2] = d[0]
        return [p, q]

    def setitem_mask():
        p = torch.zeros(3)
        p[torch.tensor([True, False, True])] = md(x, tx)[:2]
        return p

    def copy_broadcast():
        p = torch.zeros(2, 3)
        p.copy_(md(x, tx))
        return p

    def view_of_plain():  # the base becomes dual too, the view's tangent a view of its
        base = torch.zeros(2, 3)
        v = base[0]
        v.copy_(md(x, tx))
        w = base[1]
        w.add_(md(x, tx) * 2)
        return [base, v, w, base.t()]

    def indexed_writes():
        d = md(x, tx)
        i = torch.tensor([0, 2, 4])
        m = torch.tensor([True, False, True])
        return [torch.zeros(5).index_put_((i,), d), torch.zeros(5).index_copy_(0, i, d),
                torch.zeros(3).masked_fill_(m, d[0]), torch.zeros(5).index_add_(0, i, d),
                torch.zeros(5).scatter_(0, i, d), torch.zeros(3).addcmul_(d, d), torch.zeros(3).lerp_(d, 0.5),
                torch.zeros(3).fill_(d[1]), torch.zeros(3).clamp_(min=d)]

    def dtypes_of_written():  # the op's tangent as its rule gives it (float32 here), not the plain tensor's dtype
        d = md(x, tx)
        return [torch.zeros(3, dtype=torch.float64).copy_(d), torch.zeros(3, dtype=torch.float16).add_(d),
                torch.zeros(3, dtype=torch.complex64).add_(d)]

    def integer_plain():
        return torch.zeros(3, dtype=torch.int64).add_(md(x, tx))

    def leaf_that_requires_grad():
        return torch.zeros(3, requires_grad=True).add_(md(x, tx))

    def autograd_through_written():
        w = torch.ones(3, requires_grad=True)
        q = w * 1.0
        q.add_(md(x, tx))
        (q * q).sum().backward()
        return [q, w.grad]

    for f in (setitem_row, setitem_slice_and_scalar, setitem_mask, copy_broadcast, view_of_plain, indexed_writes,
              dtypes_of_written, integer_plain, leaf_that_requires_grad, autograd_through_written):
        out[f.__name__] = run(f)

    def plain_again_after_the_level():
        p = torch.zeros(3)
        with fwAD.dual_level():
            p.add_(md(x, tx))
            inside = js(p * 2)
        after = [type(p).__name__, js(p * 2)]
        with fwAD.dual_level():
            again = js(p)
            p.mul_(md(x, tx))
            return [inside, after, again, js(p)]

    out["plain_again_after_the_level"] = plain_again_after_the_level()

    # (f2) views taken before their base became dual see its tangent (a view's tangent is the view of its base's),
    # siblings of a written view too; a dual's own primal and a view that already has a tangent keep theirs
    def before_the_level(make, write):
        def f():
            base, views = make()
            with fwAD.dual_level():
                write(base, views)
                inside = js([base, *views, views[0] * 2, torch.sin(views[-1])])
            return [inside, js(views[0])]
        return f

    x4, t4 = torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([10.0, 20.0, 30.0, 40.0])
    t23 = torch.arange(6.0).reshape(2, 3)

    def flat4():
        base = torch.zeros(4)
        return base, [base[:2], base[1:], base[1:][1:], base.view(2, 2), base.unsqueeze(0), base.expand(2, 4)]

    def mat23():
        base = torch.zeros(2, 3)
        return base, [base.t(), base[1], base.as_strided((2,), (2,), 1), base.t()[1:]]

    for name, make, write in (
        ("copy", flat4, lambda b, v: b.copy_(md(x4, t4))),
        ("add", mat23, lambda b, v: b.add_(md(torch.ones(2, 3), t23))),
        ("setitem", flat4, lambda b, v: b.__setitem__(0, md(torch.tensor(5.0), torch.tensor(6.0)))),
        ("through_a_view", flat4, lambda b, v: v[0].copy_(md(torch.ones(2), torch.tensor([5.0, 6.0])))),
        ("through_a_sibling", flat4, lambda b, v: v[1][2:].copy_(md(torch.ones(1), torch.tensor([7.0])))),
        ("then_a_view_in_place", flat4, lambda b, v: [b.copy_(md(x4, t4)), v[0].mul_(md(torch.ones(2), t4[:2]))]),
    ):
        out["views_before_" + name] = before_the_level(make, write)()

    def views_before_other_cases():
        base = torch.zeros(4, dtype=torch.float64)
        v = base[:2]
        c = torch.zeros(2, dtype=torch.complex64)
        r = torch.view_as_real(c)
        w = torch.ones(4, requires_grad=True)
        nb = w * 1.0
        nv = nb[1:3]
        q = torch.zeros(4)
        qv = q[:2]
        with fwAD.dual_level():
            base.copy_(md(x4, t4))  # the f32 tangent of an f64 base: its views' tangents are f32 too
            c.copy_(md(torch.ones(2, dtype=torch.complex64), torch.tensor([1 + 2j, 3 + 4j])))
            nb.copy_(md(x4, t4))
            y = (nv * nv).sum()
            d = md(qv, torch.ones(2))  # a view with a tangent of its own keeps it
            e = md(q, torch.ones(4))
            p = fwAD.unpack_dual(e).primal  # a dual's primal is a view without tangent
            q.copy_(md(x4, t4))
            res = js([v, r, y, d, e, p, qv])
        (g,) = torch.autograd.grad(y, w)
        return [res, g.tolist()]

    out["views_before_other_cases"] = views_before_other_cases()

    def views_before_every_kind():  # each view op's replay on the base's tangent
        base = torch.zeros(3, 4)
        vs = [*base.unbind(0), *base.split(3, 1), base.diagonal(), base.select(1, 2), base.narrow(1, 1, 2),
              base.movedim(0, 1), base.unfold(1, 2, 1), base.unsqueeze(1)[:, :, 1:], base.flatten(), base.mT,
              base.reshape(12)[::3], base.view(2, 6)[1], base[..., 1], base.as_strided((2, 2), (1, 4), 3)]
        c = torch.zeros(3, 2)
        z = torch.zeros(3, dtype=torch.complex64)
        vs += [torch.view_as_complex(c), z.real, z.imag]
        with fwAD.dual_level():
            base.copy_(md(torch.ones(3, 4), torch.arange(12.0).reshape(3, 4)))
            c.copy_(md(torch.ones(3, 2), torch.arange(6.0).reshape(3, 2)))
            z.add_(md(torch.ones(3, dtype=torch.complex64), torch.tensor([1 + 2j, 3 + 4j, 5 + 6j])))
            return js(vs)

    out["views_before_every_kind"] = views_before_every_kind()

    # (c) a tangent whose dtype differs from its primal's: results keep the dtype the formula computes in
    x64, t64, t32 = x.double(), tx.double(), tx.clone()
    for name, f in {
        "make_dual": lambda: [md(x, t64), md(x64, t32), md(x.half(), t32)],
        "sin": lambda: md(x, t64).sin(),
        "sin_f64_primal": lambda: md(x64, t32).sin(),
        "sin_f16_primal": lambda: md(x.half(), t32).sin(),
        "mul_scalar": lambda: md(x, t64) * 2,
        "add_duals": lambda: md(x, t64) + md(x, t32),
        "mul_duals": lambda: md(x, t64) * md(x, t64),
        "views": lambda: [md(x, t64).view(3, 1), md(x, t64)[0], md(x, t64).t()],
        "reductions": lambda: [md(x, t64).sum(), md(x, t64).mean()],
        "to_double": lambda: md(x, t64).double(),
        "exp_relu": lambda: [md(x, t64).exp(), torch.relu(md(x, t64))],
        "matmul": lambda: md(x.view(1, 3), t64.view(1, 3)) @ torch.ones(3, 1),
        "in_place_keeps_the_tangent_dtype": lambda: [md(x.clone(), t64).mul_(2),
                                                     md(x.clone(), t32).copy_(md(x64, t64)),
                                                     md(x.clone(), t32).add_(md(x64, t64))],
        "unpack": lambda: fwAD.unpack_dual(md(x, t64)).tangent,
    }.items():
        out["dtype_" + name] = run(f)

    # (e) vmap over a dual: the functions vmap's rules call on the values compute the tangent too
    func = torch.func
    xm, tm = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 0.5], [-1.0, 2.0]])
    for name, f in {
        "sin": lambda: func.vmap(torch.sin)(md(xm, tm)),
        "sin_in_dims_1": lambda: func.vmap(torch.sin, in_dims=1)(md(xm, tm)),
        "method": lambda: func.vmap(torch.Tensor.sin)(md(xm, tm)),
        "mul": lambda: func.vmap(torch.mul)(md(xm, tm), xm),
        "sum": lambda: func.vmap(torch.sum)(md(xm, tm)),
        "relu": lambda: func.vmap(torch.nn.functional.relu)(md(xm, tm)),
        "dot": lambda: func.vmap(torch.dot)(md(xm, tm), xm),
        "matmul": lambda: func.vmap(torch.matmul, in_dims=(0, None))(md(xm, tm), xm),
        "nested": lambda: func.vmap(func.vmap(torch.sin))(md(xm, tm)),
        "index_select": lambda: func.vmap(lambda i: md(xm, tm).index_select(0, i))(torch.tensor([[1], [0]])),
    }.items():
        out["vmap_of_dual_" + name] = run(f)

    # (d) functorch's forward transforms inside a dual_level, and the autograd API inside transforms
    sin_sum = lambda a: a.sin().sum()
    for name, f in {
        "jvp": lambda: func.jvp(torch.sin, (x,), (tx,)),
        "jvp_of_dual": lambda: func.jvp(torch.sin, (md(x, tx),), (tx,)),
        "jacfwd": lambda: func.jacfwd(torch.sin)(x),
        "hessian": lambda: func.hessian(sin_sum)(x),
        "af_jacobian_forward": lambda: torch.autograd.functional.jacobian(
            torch.sin, x, vectorize=True, strategy="forward-mode"),
        "af_jvp": lambda: torch.autograd.functional.jvp(torch.sin, x, tx),
        "grad": lambda: func.grad(sin_sum)(x),
    }.items():
        out["in_dual_level_" + name] = run(f)

    def fresh_grad(a):
        w = torch.ones(3, requires_grad=True)
        g, = torch.autograd.grad((w * 3).sum(), w)
        return a * g

    def fresh_backward(a):
        w = torch.ones(3, requires_grad=True)
        (w * 3).sum().backward()
        return a * w.grad

    def grad_of_input(a):
        return torch.autograd.grad((a * 3).sum(), a)[0]

    def own_level(a):
        with fwAD.dual_level():
            return a * 2

    def make_dual_inside(a):
        return md(torch.ones(3), torch.ones(3)) * a

    def jvp_inside(a):
        return func.jvp(torch.sin, (a,), (tx,))[1]

    # Tensor.requires_grad_() inside a transform refuses on any tensor (the input, a fresh one, autograd.functional's
    # on its inputs); a factory's requires_grad= and the setter do not
    def requires_grad_input(a):
        a.requires_grad_()
        return a * 2

    def requires_grad_fresh(a):
        return a * torch.ones(3).requires_grad_()

    def requires_grad_false(a):
        return (a * 2).requires_grad_(False)

    def requires_grad_factory(a):
        return a * torch.ones(3, requires_grad=True)

    def requires_grad_setter(a):
        w = torch.ones(3)
        w.requires_grad = True
        return a * w

    def functional_jacobian(a):
        return torch.autograd.functional.jacobian(torch.sin, a).sum(0) * a

    transforms = {
        "jvp": lambda f: func.jvp(f, (x,), (tx,)),
        "vmap": lambda f: func.vmap(f)(x.view(1, 3)),
        "grad": lambda f: func.grad(lambda a: f(a).sum())(x),
        "jacfwd": lambda f: func.jacfwd(f)(x),
        "vjp": lambda f: func.vjp(f, x)[0],
    }
    for tname, T in transforms.items():
        for f in (fresh_grad, fresh_backward, grad_of_input, requires_grad_input, requires_grad_fresh,
                  requires_grad_false, requires_grad_factory, requires_grad_setter, functional_jacobian):
            try:
                out[f"{tname}_{f.__name__}"] = js(T(f))
            except Exception as e:
                out[f"{tname}_{f.__name__}"] = js(e)
    # (g) jacfwd is vmap over jvp: a random op on its duals (plain primals) meets vmap's randomness
    def shape_or_error(f):
        try:
            return list(f().shape)
        except Exception as e:
            return js(e)

    drop = lambda a: torch.nn.functional.dropout(a, 0.5, training=True)
    for name, f in {
        "default": lambda: func.jacfwd(drop)(x),
        "error": lambda: func.jacfwd(drop, randomness="error")(x),
        "same": lambda: func.jacfwd(drop, randomness="same")(x),
        "different": lambda: func.jacfwd(drop, randomness="different")(x),
        "eval": lambda: func.jacfwd(lambda a: torch.nn.functional.dropout(a, 0.5, training=False))(x),
        "randn_like": lambda: func.jacfwd(lambda a: a * torch.randn_like(a))(x),
        "bernoulli_of_plain": lambda: func.jacfwd(lambda a: a * torch.bernoulli(torch.full((3,), 0.5)))(x),
        "module": lambda: func.jacfwd(torch.nn.Dropout(0.5))(x),
        "hessian": lambda: func.hessian(lambda a: drop(a).sum())(x),
        "jacrev": lambda: func.jacrev(drop)(x),
        "vmap_bernoulli_of_plain": lambda: func.vmap(lambda a: a * torch.bernoulli(torch.full((3,), 0.5)))(
            x.view(1, 3)),
    }.items():
        out["random_jacfwd_" + name] = shape_or_error(f)

    for f in (own_level, make_dual_inside, jvp_inside):
        try:
            out["jvp_" + f.__name__] = js(func.jvp(f, (x,), (tx,)))
        except Exception as e:
            out["jvp_" + f.__name__] = js(e)

    # (h) reverse transforms vmapped over a dual (forward over reverse, per entry: Hessian-vector products)
    x4 = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-2.0, 1.0, 0.5], [0.3, 0.6, -0.9]], dtype=torch.float64)
    t4 = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [-0.5, 0.25, 3.0], [1.0, -1.0, 0.5]], dtype=torch.float64)
    w3 = torch.tensor([0.7, -1.3, 0.4], dtype=torch.float64)
    cube = lambda a: (a.sin() ** 2 * a).sum() + (a * w3).prod()
    mix = lambda a, b: (a * b).sin().sum() + (a ** 2 * b).sum()
    for name, f in {
        "grad": lambda: func.vmap(func.grad(cube))(md(x4, t4)),
        "grad_then_ops": lambda: func.vmap(lambda a: func.grad(cube)(a) * 2 + a)(md(x4, t4)),
        "grad_and_value": lambda: func.vmap(func.grad_and_value(cube))(md(x4, t4)),
        "jacrev": lambda: func.vmap(func.jacrev(lambda a: a.sin() * a.sum()))(md(x4, t4)),
        "in_dims_dual_batched": lambda: func.vmap(func.grad(mix), in_dims=(0, None))(
            md(x4, t4), md(w3, torch.ones(3, dtype=torch.float64))),
        "in_dims_dual_shared": lambda: func.vmap(func.grad(mix), in_dims=(None, 0))(
            md(w3, torch.ones(3, dtype=torch.float64)), md(x4, t4)),
        "argnums_plain_batched": lambda: func.vmap(func.grad(mix, argnums=1))(md(x4, t4), x4),
        "in_dims_1": lambda: func.vmap(func.grad(cube), in_dims=1)(md(x4.T, t4.T)),
        "requires_grad": lambda: func.vmap(func.grad(cube))(md(x4.clone().requires_grad_(), t4)).requires_grad,
    }.items():
        out["vmap_reverse_of_dual_" + name] = run(f)

    # (i) make_dual / unpack_dual of tensors vmap batches (no batching rule in PyTorch), of unbatched ones inside
    for name, f in {
        "make_dual_batched": lambda: func.vmap(lambda a, b: md(a, b))(xm, tm),
        "make_dual_batched_tangent": lambda: func.vmap(lambda b: md(torch.ones(2), b))(tm),
        "make_dual_unbatched": lambda: func.vmap(lambda a: md(xm[0], tm[0]) * a)(xm),
        "unpack_dual_batched": lambda: func.vmap(lambda a: fwAD.unpack_dual(a).primal)(md(xm, tm)),
        "unpack_dual_plain_batched": lambda: func.vmap(lambda a: fwAD.unpack_dual(a).primal)(xm),
        "unpack_dual_unbatched": lambda: func.vmap(lambda a: fwAD.unpack_dual(dm).tangent * a)(xm),
    }.items():
        try:
            with fwAD.dual_level():
                dm = md(xm[1], tm[1])
                out["vmap_" + name] = js(f())
        except Exception as e:
            out["vmap_" + name] = js(e)
    with fwAD.dual_level():
        d = md(x, tx)
        out["type_name"] = [type(d).__name__, type(d * 2).__name__, type(d.sin()).__name__, d.__class__.__name__]
    return out
"""


def _same(a, b):
    """JSON equality with floats to float32's precision (a float32 factor of a float64 tangent is rounded where
    the formulas round it differently)."""
    if isinstance(a, float) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=2e-7, abs_tol=1e-7)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def test_forward_ad_semantics_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", torch), ("torch.autograd.forward_ad", fwAD)])
    bad = [name for name, expect in theirs.items() if not _same(ours[name], expect)]
    assert not bad, {name: (ours[name], theirs[name]) for name in bad}


# ------------------------------------------------------------------------------------------------ without PyTorch

D = torch.float64


def _fd(f, x, t, eps=1e-6):
    return (f(x + eps * t) - f(x - eps * t)) / (2 * eps)


def test_make_dual_of_a_leaf_is_a_view_gradients_reach_the_leaf():
    w = torch.tensor([0.5, -1.0, 2.0], dtype=D, requires_grad=True)
    t = torch.tensor([1.0, 0.5, -2.0], dtype=D)
    with fwAD.dual_level():
        d = fwAD.make_dual(w, t)
        assert not d.is_leaf and d.grad_fn.name() == "ViewBackward0" and d._base is w
        y = (d.exp() * d).sum()
        (g,) = torch.autograd.grad(y, w, create_graph=True)
        # forward over reverse: the tangent of the gradient is the Hessian (diagonal here) times t
        grad, hvp = fwAD.unpack_dual(g)
    x = w.detach()
    np.testing.assert_allclose(grad.detach().numpy(), ((x + 1) * x.exp()).numpy(), rtol=1e-12)
    np.testing.assert_allclose(hvp.detach().numpy(), ((x + 2) * x.exp() * t).numpy(), rtol=1e-12)
    with fwAD.dual_level(), pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        fwAD.make_dual(w, t).mul_(2)


def test_plain_tensor_written_with_a_dual_carries_its_tangent():
    x = torch.tensor([0.3, 1.2, -0.7], dtype=D)
    t = torch.tensor([1.0, -2.0, 0.5], dtype=D)

    def f(a):
        buf = torch.zeros(5, dtype=D)
        buf[1:4] = a
        return buf.sin()

    with fwAD.dual_level():
        out = f(fwAD.make_dual(x, t))
        tan = fwAD.unpack_dual(out).tangent
    np.testing.assert_allclose(tan.numpy(), _fd(f, x, t).numpy(), rtol=1e-8, atol=1e-10)
    # in place into a view reaches its base's tangent; the base is plain again after the level
    base = torch.zeros(2, 3, dtype=D)
    with fwAD.dual_level():
        base[0].copy_(fwAD.make_dual(x, t))
        base[1].add_(fwAD.make_dual(x, t) * 3)
        np.testing.assert_array_equal(
            fwAD.unpack_dual(base).tangent.numpy(), np.stack([t.numpy(), 3 * t.numpy()])
        )
    assert type(base) is torch.Tensor and fwAD.unpack_dual(base).tangent is None
    np.testing.assert_array_equal(base.numpy(), np.stack([x.numpy(), 3 * x.numpy()]))


def test_views_taken_before_their_base_became_dual_follow_its_tangent():
    x = torch.tensor([0.3, 1.2, -0.7, 2.0, 0.1, -1.5], dtype=D)
    t = torch.tensor([1.0, -2.0, 0.5, 0.25, 3.0, -1.0], dtype=D)
    buf = torch.zeros(2, 3, dtype=D)
    # taken before the level, as a network's preallocated buffers and their slices are
    row, col, flat = buf[1], buf.t()[2], buf.view(6)

    def f(a):
        buf.copy_(a.reshape(2, 3))
        flat[1:3].mul_(a[:2])  # in place through one view reaches the base and the others
        return torch.cat([row.exp(), col * row[1:], flat.sin()])

    with fwAD.dual_level():
        out = f(fwAD.make_dual(x, t))
        tan = fwAD.unpack_dual(out).tangent
        assert all(type(v) is not torch.Tensor for v in (row, col, flat))
    np.testing.assert_allclose(tan.numpy(), _fd(f, x, t).numpy(), rtol=1e-7, atol=1e-9)
    # plain again after the level, as their base
    assert all(type(v) is torch.Tensor and fwAD.unpack_dual(v).tangent is None for v in (buf, row, col, flat))


def test_vmap_over_a_dual_carries_the_tangent():
    x = torch.tensor([[0.3, 1.2], [-0.7, 2.0]], dtype=D)
    t = torch.tensor([[1.0, -2.0], [0.5, 0.25]], dtype=D)
    from minitorch.func import vmap

    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        for f, fx in (
            (vmap(torch.sin), torch.sin),
            (vmap(torch.sum), lambda a: a.sum(1)),
            (vmap(torch.mul, in_dims=(0, None)), lambda a: a * x[0]),
        ):
            args = (d,) if fx is not None and f.__wrapped__ is not torch.mul else (d, x[0])
            tan = fwAD.unpack_dual(f(*args)).tangent
            np.testing.assert_allclose(tan.numpy(), _fd(fx, x, t).numpy(), rtol=1e-7, atol=1e-9)
        from minitorch.func import grad

        # forward over reverse per entry: the tangent of each entry's gradient is its Hessian times its tangent
        tan = fwAD.unpack_dual(vmap(grad(lambda a: (a**3).sum()))(d)).tangent
        np.testing.assert_allclose(tan.numpy(), (6 * x * t).numpy(), rtol=1e-12)
        # a dual batched by two vmaps is out of the trick's reach: refused, not computed without its tangent
        with pytest.raises(NotImplementedError, match="its tangent would be lost"):
            vmap(vmap(grad(lambda a: (a**3).sum())))(d.view(2, 2, 1))


def test_forward_transforms_refuse_a_users_dual_level_and_autograd_inside():
    from minitorch.func import grad, jacfwd, jvp, vmap

    x, t = torch.tensor([0.5, 1.0], dtype=D), torch.ones(2, dtype=D)
    with fwAD.dual_level():
        for call in (lambda: jvp(torch.sin, (x,), (t,)), lambda: jacfwd(torch.sin)(x)):
            with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported at the moment"):
                call()
        # autograd.functional's jvp, which PyTorch computes by the double-vjp trick, still runs
        np.testing.assert_allclose(
            torch.autograd.functional.jvp(torch.sin, x, t)[1].numpy(), np.cos(x.numpy()), rtol=1e-15
        )

    def backward_inside(a):
        w = torch.ones(2, dtype=D, requires_grad=True)
        (w * a).sum().backward()
        return a

    for transform in (
        lambda f: jvp(f, (x,), (t,)),
        lambda f: vmap(f)(x.view(1, 2)),
        lambda f: grad(lambda a: f(a).sum())(x),
    ):
        with pytest.raises(RuntimeError, match="backward\\(\\) called inside a functorch transform"):
            transform(backward_inside)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        jvp(lambda a: torch.autograd.grad(a.sum(), a)[0], (x,), (t,))
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        vmap(lambda a: torch.autograd.grad((a * 3).sum(), a)[0])(x.view(1, 2))
    with pytest.raises(RuntimeError, match="perhaps using torch.autograd.functional"):
        vmap(lambda a: torch.autograd.functional.jacobian(torch.sin, a))(x.view(1, 2))
    # outside transforms backward still works, and inside a user's dual_level too
    w = torch.ones(2, dtype=D, requires_grad=True)
    with fwAD.dual_level():
        (fwAD.make_dual(w, t) * 3).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0])


def test_tangent_dtype_follows_the_formula_not_the_primal():
    x = torch.tensor([0.3, 1.2], dtype=torch.float32)
    t = torch.tensor([1.0, -2.0], dtype=torch.float64)
    with fwAD.dual_level():
        s = fwAD.unpack_dual(fwAD.make_dual(x, t).sin()).tangent
        same = fwAD.unpack_dual(fwAD.make_dual(x, t.float()).sin()).tangent
    assert s.dtype == torch.float64 and same.dtype == torch.float32
    np.testing.assert_allclose(s.numpy(), np.cos(x.numpy().astype(np.float64)) * t.numpy(), rtol=1e-6)


def test_jacfwd_sees_dropout_on_its_duals():
    from minitorch.func import hessian, jacfwd

    x = torch.tensor([0.5, -1.0, 2.0, 0.25], dtype=D)
    drop = lambda a: torch.nn.functional.dropout(a, 0.5, training=True)
    for call in (lambda: jacfwd(drop)(x), lambda: hessian(lambda a: drop(a).sum())(x)):
        with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
            call()
    # 'same': one mask for every basis direction, so the Jacobian is diagonal with the dropout scale or zero
    j = jacfwd(drop, randomness="same")(x).numpy()
    assert np.count_nonzero(j - np.diag(np.diag(j))) == 0
    assert set(np.diag(j).tolist()) <= {0.0, 2.0}
    # eval mode draws nothing
    np.testing.assert_array_equal(
        jacfwd(lambda a: torch.nn.functional.dropout(a, 0.5, training=False))(x).numpy(), np.eye(4)
    )
