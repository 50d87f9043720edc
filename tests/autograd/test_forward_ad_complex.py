"""Forward-mode AD on complex tensors: the rules and the generic JVP against finite differences and PyTorch."""

import warnings

import numpy as np
import pytest
from utils import run_oracle

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
import minitorch.nn.functional as F
from minitorch.autograd import _jvp_rules
from minitorch.func import _forward_ad as fwd_impl
from minitorch.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap
from minitorch.testing import assert_close

C = torch.complex128
D = torch.float64


def crand(*shape, lo=-1.0, hi=1.0):
    re = torch.rand(*shape, dtype=D) * (hi - lo) + lo
    im = torch.rand(*shape, dtype=D) * (hi - lo) + lo
    return torch.complex(re, im)


def fd_jvp(f, z, t, eps=1e-6):
    """The directional derivative (f(z + h t) - f(z - h t)) / 2h: PyTorch's forward-mode tangent of any f,
    holomorphic or not (for a non-holomorphic f it is the real-linear map, not f'(z) t)."""
    return (f(z + eps * t) - f(z - eps * t)) / (2 * eps)


def fwd(f, z, t):
    with fwAD.dual_level():
        out = fwAD._dispatching(f)(fwAD.make_dual(z, t))
        return fwAD.unpack_dual(out)


# (name, f of one complex vector of 6 entries); the entries lie in 0.2..0.9 + 0.2i..0.9i, away from the branch cuts
# and zeros. Holomorphic ops, the non-holomorphic ones (abs, angle, sgn, conj, real/imag, var, norms), the complex
# constructors and views, reductions, products and linear algebra.
SWEEP = [
    ("abs", lambda a: torch.abs(a)),
    ("abs_method", lambda a: a.abs() * a.angle()),
    ("angle", lambda a: torch.angle(a)),
    ("sgn", lambda a: torch.sgn(a)),
    ("real", lambda a: torch.real(a)),
    ("imag", lambda a: torch.imag(a)),
    ("real_imag_properties", lambda a: a.real * a.imag),
    ("conj", lambda a: torch.conj(a)),
    ("conj_physical", lambda a: torch.conj_physical(a)),
    ("resolve_conj", lambda a: a.conj().resolve_conj()),
    ("view_as_real", lambda a: torch.view_as_real(a)),
    ("view_as_complex", lambda a: torch.view_as_complex(torch.view_as_real(a).flip(-1).contiguous())),
    ("complex", lambda a: torch.complex(a.real * 2, a.imag.exp())),
    ("polar", lambda a: torch.polar(a.abs(), a.angle() * 3)),
    ("abs_squared", lambda a: a.abs() ** 2),
    ("conj_times_self", lambda a: a.conj() * a),
    ("reciprocal", lambda a: torch.reciprocal(a)),
    ("div", lambda a: a / (a.conj() + 2)),
    ("rdiv", lambda a: (1 - 2j) / a),
    ("exp", lambda a: torch.exp(a)),
    ("log", lambda a: torch.log(a)),
    ("sin", lambda a: torch.sin(a)),
    ("cos", lambda a: torch.cos(a)),
    ("tan", lambda a: torch.tan(a)),
    ("tanh", lambda a: torch.tanh(a)),
    ("sinh", lambda a: torch.sinh(a)),
    ("cosh", lambda a: torch.cosh(a)),
    ("sqrt", lambda a: torch.sqrt(a)),
    ("rsqrt", lambda a: torch.rsqrt(a)),
    ("sigmoid", lambda a: torch.sigmoid(a)),
    ("log1p", lambda a: torch.log1p(a)),
    ("expm1", lambda a: torch.expm1(a)),
    ("log2", lambda a: torch.log2(a)),
    ("log10", lambda a: torch.log10(a)),
    ("exp2", lambda a: torch.exp2(a)),
    ("asin", lambda a: torch.asin(a)),
    ("acos", lambda a: torch.acos(a)),
    ("atan", lambda a: torch.atan(a)),
    ("asinh", lambda a: torch.asinh(a)),
    ("acosh", lambda a: torch.acosh(a)),
    ("atanh", lambda a: torch.atanh(a)),
    ("square", lambda a: torch.square(a)),
    ("sinc", lambda a: torch.sinc(a)),
    ("pow_scalar", lambda a: a**2.5),
    ("pow_int", lambda a: a**3),
    ("pow_complex_scalar", lambda a: a ** (1 + 0.5j)),
    ("pow_tensor", lambda a: torch.pow(a, a.conj())),
    ("pow_real_exponent", lambda a: torch.pow(a, a.real)),
    ("rpow", lambda a: 2.0**a),
    ("rpow_complex", lambda a: (1 + 2j) ** a),
    ("neg_positive", lambda a: +(-a)),
    ("mul", lambda a: a * a.conj().exp()),
    ("mul_real", lambda a: a * a.real),
    ("add", lambda a: torch.add(a, a.conj(), alpha=2)),
    ("sub", lambda a: a - a.conj() * 1j),
    ("addcmul", lambda a: torch.addcmul(a, a, a.conj(), value=0.5)),
    ("lerp", lambda a: torch.lerp(a, a.exp(), 0.3)),
    ("where", lambda a: torch.where(a.real > 0.5, a, a.conj())),
    ("masked_fill", lambda a: a.masked_fill(a.imag > 0.5, 0)),
    ("sum", lambda a: a.sum()),
    ("mean", lambda a: a.reshape(2, 3).mean(0)),
    ("prod", lambda a: a.prod()),
    ("cumsum", lambda a: a.cumsum(0)),
    ("cumprod", lambda a: a.cumprod(0)),
    ("var", lambda a: a.reshape(2, 3).var(1)),
    ("std", lambda a: a.std()),
    ("std_mean", lambda a: torch.std_mean(a)[0]),
    ("var_mean", lambda a: torch.var_mean(a, correction=0)[1]),
    ("norm", lambda a: a.norm()),
    ("vector_norm", lambda a: torch.linalg.vector_norm(a)),
    ("vector_norm_1", lambda a: torch.linalg.vector_norm(a, 1)),
    ("vector_norm_3", lambda a: torch.linalg.vector_norm(a, 3)),
    ("vector_norm_inf", lambda a: torch.linalg.vector_norm(a, float("inf"))),
    ("matrix_norm_fro", lambda a: torch.linalg.matrix_norm(a.reshape(2, 3))),
    ("normalize", lambda a: F.normalize(a.reshape(2, 3), dim=1)),
    ("views", lambda a: a.reshape(2, 3).t().flip(0).transpose(0, 1).unsqueeze(0)[0, 1:]),
    ("mT_mH_H", lambda a: a.reshape(2, 3).mT + a.reshape(2, 3).mH + a.reshape(2, 3).H),
    ("getitem", lambda a: a[torch.tensor([0, 2, 2])]),
    ("cat_stack", lambda a: torch.stack([torch.cat([a, a.conj()]), torch.cat([a.exp(), a])])),
    ("clone_tril_roll", lambda a: a.reshape(2, 3).clone().tril().roll(1)),
    ("diag_trace", lambda a: torch.diag(a).trace()),
    ("matmul", lambda a: a.reshape(2, 3) @ a.reshape(3, 2)),
    ("mv", lambda a: torch.mv(a.reshape(2, 3), a[:3].conj())),
    ("dot", lambda a: torch.dot(a, a.flip(0))),
    ("vdot", lambda a: torch.vdot(a, a.flip(0).exp())),
    ("inner", lambda a: torch.inner(a, a.exp())),
    ("outer", lambda a: torch.outer(a, a)),
    ("einsum", lambda a: torch.einsum("i,j->ij", a, a.conj())),
    ("kron", lambda a: torch.kron(a[:2], a[2:4])),
    ("linear", lambda a: F.linear(a.reshape(2, 3), a.reshape(2, 3).exp())),
    ("fft", lambda a: torch.fft.fft(a)),
    ("ifft2", lambda a: torch.fft.ifft2(a.reshape(2, 3), norm="ortho")),
    ("irfft", lambda a: torch.fft.irfft(a)),
    ("hfft", lambda a: torch.fft.hfft(a, n=8)),
    ("fftshift", lambda a: torch.fft.fftshift(a.reshape(2, 3))),
    ("real_to_complex", lambda a: a.real.to(C) * a),
    ("inv", lambda a: torch.linalg.inv(a[:4].reshape(2, 2))),
    ("det", lambda a: torch.linalg.det(a[:4].reshape(2, 2))),
    ("solve", lambda a: torch.linalg.solve(a[:4].reshape(2, 2) + 2, a[4:])),
    ("matrix_exp", lambda a: torch.linalg.matrix_exp(a[:4].reshape(2, 2))),
    ("sgn_of_tanh", lambda a: torch.sgn(torch.tanh(a))),
    ("abs_sum_real", lambda a: (a.conj() * a).real.sum() + a.abs().sum()),
]

# ops whose complex JVP is the generic double-vjp one on purpose (their rows return GENERIC for complex inputs)
GENERIC_ON_PURPOSE = {
    "slogdet": lambda a: torch.linalg.slogdet(a[:4].reshape(2, 2) + 2)[1],
    "slogdet_sign": lambda a: torch.linalg.slogdet(a[:4].reshape(2, 2) + 2)[0],
    "svdvals": lambda a: torch.linalg.svdvals(a.reshape(2, 3)),
    "matrix_norm_nuc": lambda a: torch.linalg.matrix_norm(a.reshape(2, 3), "nuc"),
    "cholesky": lambda a: torch.linalg.cholesky(a.reshape(2, 3) @ a.reshape(2, 3).mH + torch.eye(2, dtype=C)),
}


def _point():
    torch.manual_seed(0)
    return crand(6, lo=0.2, hi=0.9)


@pytest.mark.parametrize("real_tangent", [False, True], ids=["complex_tangent", "real_tangent"])
@pytest.mark.parametrize("name,f", SWEEP, ids=[s[0] for s in SWEEP])
def test_rule_matches_the_directional_derivative(name, f, real_tangent):
    z = _point()
    torch.manual_seed(1)
    t = torch.rand(6, dtype=D) * 2 - 1 if real_tangent else crand(6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the generic JVP's warning: every op here has a rule
        p, tan = fwd(f, z, t)
    assert_close(p, f(z))
    expect = fd_jvp(f, z, t)
    assert tan.dtype == expect.dtype  # a real-valued f of a complex input has a real tangent
    assert_close(tan, expect, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(GENERIC_ON_PURPOSE))
def test_generic_jvp_of_complex_decompositions(name):
    f = GENERIC_ON_PURPOSE[name]
    z, t = _point(), crand(6)
    p, tan = fwd(f, z, t)
    assert_close(p, f(z))
    assert_close(tan, fd_jvp(f, z, t), rtol=1e-6, atol=1e-7)


# a spread of maps for the double-vjp trick itself, every kind: holomorphic, anti-holomorphic, complex -> real,
# real -> complex, several inputs, several outputs
TRICK = [
    ("holomorphic", lambda a, b: a * b.exp()),
    ("conj", lambda a, b: a.conj() * b),
    ("abs", lambda a, b: a.abs() + b.angle()),
    ("real_imag", lambda a, b: torch.complex(a.real * b.imag, a.imag)),
    ("sgn", lambda a, b: torch.sgn(a) * b.conj()),
    ("matmul", lambda a, b: a.reshape(2, 3) @ b.reshape(2, 3).mH),
    ("var", lambda a, b: (a - b).var()),
    ("fft", lambda a, b: torch.fft.rfft(a.real * b.imag)),
    ("two_outputs", lambda a, b: torch.stack([a.abs(), (a * b).real])),
]


@pytest.mark.parametrize("name,f", TRICK, ids=[s[0] for s in TRICK])
def test_generic_double_vjp_is_the_directional_derivative(name, f, monkeypatch):
    # every op of f through the generic JVP: the engine's vjp g(u) = conj(A)^T u + B^T conj(u) is the adjoint of
    # J t = A t + B conj(t) under Re(a^H b), so the vjp of g is J again
    monkeypatch.setattr(_jvp_rules, "get_rule", lambda key: None)
    monkeypatch.setattr(fwd_impl, "_warned", set())  # its warnings here leave the shared set as it was
    torch.manual_seed(2)
    a, b = crand(6, lo=0.2, hi=0.9), crand(6, lo=0.2, hi=0.9)
    ta, tb = crand(6), crand(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fwAD.dual_level():
            out = f(fwAD.make_dual(a, ta), fwAD.make_dual(b, tb))
            p, tan = fwAD.unpack_dual(out)
    eps = 1e-6
    expect = (f(a + eps * ta, b + eps * tb) - f(a - eps * ta, b - eps * tb)) / (2 * eps)
    assert_close(p, f(a, b))
    assert tan.dtype == expect.dtype
    assert_close(tan, expect, rtol=1e-6, atol=1e-7)


def test_pytorch_values_of_the_issue():
    # PyTorch 2.15's tangents at z = [1+2j, -0.5+0.3j] along t = [0.3-1j, 2+0.1j] (complex128)
    z = torch.tensor([1 + 2j, -0.5 + 0.3j], dtype=C)
    t = torch.tensor([0.3 - 1j, 2 + 0.1j], dtype=C)
    cases = {
        "mul": (lambda d: d * d, [4.6 - 0.8j, -2.06 + 1.1j]),
        "abs": (lambda d: d.abs(), [-0.760263, -1.663522]),
        "angle": (lambda d: d.angle(), [-0.32, -1.911765]),
        "conj_mul": (lambda d: d.conj() * d, [-3.4 + 0j, -1.94 + 0j]),
        "matmul": (lambda d: d @ d, 2.54 + 0.3j),
    }
    for name, (f, expect) in cases.items():
        _, tan = fwd(f, z, t)
        np.testing.assert_allclose(tan.numpy(), np.array(expect), rtol=1e-5, atol=1e-6, err_msg=name)
    assert fwd(lambda d: d.abs(), z, t)[1].dtype == D
    # a real tangent on a complex primal: a direction along the real axis
    _, tan = fwd(lambda d: d * d, z, torch.tensor([1.0, 2.0], dtype=D))
    np.testing.assert_allclose(tan.numpy(), np.array([2 + 4j, -2 + 1.2j]))


def test_non_holomorphic_ops_at_zero():
    # PyTorch's: abs, sgn and angle have tangent 0 where z == 0 (sgn(0) = 0), not NaN
    z = torch.tensor([0j, 1 + 1j], dtype=C)
    t = torch.tensor([0.3 - 1j, 2 + 0.1j], dtype=C)
    for f in (torch.abs, torch.sgn, torch.angle):
        tan = fwd(f, z, t)[1]
        assert tan[0].item() == 0
        assert_close(tan[1], fd_jvp(f, z, t)[1])
    assert torch.isfinite(fwd(lambda d: torch.linalg.vector_norm(d, 3), z, t)[1]).all()


ORACLE_CASES = {
    "mul": "lambda d: d * d",
    "abs": "lambda d: d.abs()",
    "angle": "lambda d: d.angle()",
    "sgn": "lambda d: d.sgn()",
    "real": "lambda d: d.real * 2",
    "imag": "lambda d: torch.imag(d)",
    "view_as_real": "lambda d: torch.view_as_real(d)",
    "conj_mul": "lambda d: d.conj() * d",
    "polar": "lambda d: torch.polar(d.abs(), d.angle() * 2)",
    "complex": "lambda d: torch.complex(d.imag, d.real.exp())",
    "reciprocal": "lambda d: d.reciprocal()",
    "div": "lambda d: d / (d.conj() + 1)",
    "sqrt_pow": "lambda d: d.sqrt() + d ** 2.5 + d ** d",
    "exp_log_sin_cos_tanh": "lambda d: d.exp() * d.log() + d.sin() / d.cos() - d.tanh()",
    "sum_mean": "lambda d: d.sum() + d.mean()",
    "var_std": "lambda d: d.var() + d.std()",
    "vector_norm": "lambda d: torch.linalg.vector_norm(d)",
    "matmul": "lambda d: d @ d.flip(0)",
    "vdot": "lambda d: torch.vdot(d, d.exp())",
    "fft": "lambda d: torch.fft.fft(d)",
    "abs_squared": "lambda d: d.abs() ** 2",
}


def test_tangents_match_pytorch():
    torch.manual_seed(4)
    z, t = crand(5, lo=0.2, hi=0.9), crand(5)
    script = (
        "import json, sys, torch\n"
        "import torch.autograd.forward_ad as fwAD\n"
        "d = json.loads(sys.stdin.read())\n"
        "c = lambda v: torch.complex(torch.tensor(v[0], dtype=torch.float64), torch.tensor(v[1], dtype=torch.float64))\n"
        "z, t = c(d['z']), c(d['t'])\n"
        "out = {}\n"
        "for k, src in d['cases'].items():\n"
        "    with fwAD.dual_level():\n"
        "        tan = fwAD.unpack_dual(eval(src)(fwAD.make_dual(z, t))).tangent\n"
        "    dtype = str(tan.dtype)\n"
        "    tan = tan if tan.is_complex() else torch.complex(tan, torch.zeros_like(tan))\n"
        "    out[k] = [dtype, tan.real.tolist(), tan.imag.tolist()]\n"
        "print(json.dumps(out))\n"
    )
    parts = lambda x: [x.real.tolist(), x.imag.tolist()]
    theirs = run_oracle(script, {"z": parts(z), "t": parts(t), "cases": ORACLE_CASES})
    for k, src in ORACLE_CASES.items():
        _, tan = fwd(eval(src, {"torch": torch}), z, t)
        dtype, re, im = theirs[k]
        assert str(tan.dtype) == dtype, k
        ours = tan.numpy() if tan.is_complex() else tan.numpy().astype(complex)
        np.testing.assert_allclose(ours, np.array(re) + 1j * np.array(im), rtol=1e-10, atol=1e-12, err_msg=k)


# ------------------------------------------------------------------------------------------------ make_dual, dtypes


def test_make_dual_takes_complex_and_keeps_the_tangent_as_given():
    z = crand(3)
    with fwAD.dual_level():
        for tangent in (crand(3), torch.rand(3, dtype=D), torch.rand(3), crand(3).to(torch.complex64)):
            p, t = fwAD.unpack_dual(fwAD.make_dual(z, tangent))
            assert p is z or torch.equal(p, z)
            assert t.dtype == tangent.dtype  # PyTorch's: a real tangent of a complex primal stays real
        # a complex tangent on a real primal is accepted and carried (PyTorch's mul keeps it complex)
        x = torch.tensor([1.0, 2.0], dtype=D)
        t = torch.tensor([0.3 - 1j, 2 + 0.1j], dtype=C)
        tan = fwAD.unpack_dual(fwAD.make_dual(x, t) * fwAD.make_dual(x, t).detach())[1]
        np.testing.assert_allclose(tan.numpy(), np.array([0.3 - 1j, 4 + 0.2j]))


def test_conversions_carry_the_tangent():
    z, t = crand(3), crand(3)
    tan = fwd(lambda d: d.to(torch.complex64), z, t)[1]
    assert tan.dtype == torch.complex64
    assert_close(tan, t.to(torch.complex64))
    # a real primal made complex: the tangent follows into the complex dtype
    x, tx = torch.rand(3, dtype=D), torch.rand(3, dtype=D)
    for f in (lambda d: d.to(C), lambda d: d.type_as(z), lambda d: torch.complex(d, d * 0)):
        tan = fwd(f, x, tx)[1]
        assert tan.dtype == C
        assert_close(tan, tx.to(C))


def test_make_dual_refuses_integer_primals_and_tangents():
    with fwAD.dual_level():
        with pytest.raises(
            ValueError, match="^Expected primal to be floating point or complex, but got: torch.int64$"
        ):
            fwAD.make_dual(torch.arange(3), crand(3))
        with pytest.raises(
            ValueError, match="^Expected tangent to be floating point or complex, but got: torch.int64$"
        ):
            fwAD.make_dual(crand(3), torch.arange(3))
        with pytest.raises(
            ValueError, match="^Expected primal to be floating point or complex, but got: torch.bool$"
        ):
            fwAD.make_dual(torch.ones(3, dtype=torch.bool), crand(3))


def test_real_tangent_of_complex_primal_meets_same_dtype_ops():
    # dot and mm need equal dtypes: the rules see the tangent in the primal's dtype
    z, other = crand(4), crand(4)
    t = torch.rand(4, dtype=D)
    for f in (
        lambda d: torch.dot(d, other),
        lambda d: d[None] @ other[:, None],
        lambda d: torch.einsum("i,i->", d, d),
    ):
        assert_close(fwd(f, z, t)[1], fd_jvp(f, z, t.to(C)))


def test_in_place_ops_on_complex_duals():
    z, t, w = crand(3), crand(3), crand(3)
    with fwAD.dual_level():
        d = fwAD.make_dual(z.clone(), t.clone())  # in-place ops write the tangent given in place
        d.mul_(w)
        d.add_(d.conj())
        tan = fwAD.unpack_dual(d)[1]
    assert_close(tan, t * w + (t * w).conj())
    with fwAD.dual_level():
        # a real tangent on a complex primal, written into by a complex dual
        d = fwAD.make_dual(z.clone(), torch.tensor([1.0, 2.0, 3.0], dtype=D))
        d[0] = fwAD.make_dual(w[1], t[1])
        tan = fwAD.unpack_dual(d)[1]
    assert_close(tan, torch.tensor([t[1].item(), 2, 3], dtype=C))


def test_generic_jvp_refuses_complex_tangent_of_real_primal(monkeypatch):
    monkeypatch.setattr(_jvp_rules, "get_rule", lambda key: None)
    x, t = torch.rand(3, dtype=D), crand(3)
    with fwAD.dual_level(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = fwAD.make_dual(x, t)
        with pytest.raises(NotImplementedError, match="cannot take a complex tangent of a real primal"):
            d.exp()


def test_complex_aware_rules_live_in_the_schema():
    # the real-linear rules sit on the ops' schema rows (no separate complex table)
    for key in ("abs", "angle", "sgn", "real", "imag", "view_as_real", "view_as_complex"):
        rule = _jvp_rules.get_rule(key)
        assert rule is not None and not rule.generic and not rule.composite, key
        assert fwd_impl._public(key) is not None


# ------------------------------------------------------------------------------------------------ torch.func


def test_func_jvp_on_complex_functions():
    z, t = crand(4, lo=0.2, hi=0.9), crand(4)
    f = lambda a: (a.exp() * a.conj()).abs() + torch.fft.fft(a).angle()
    out, tan = jvp(f, (z,), (t,))
    assert_close(out, f(z))
    assert_close(tan, fd_jvp(f, z, t), rtol=1e-6, atol=1e-7)
    # a real tangent, and a complex64 one on a complex128 primal
    assert_close(jvp(f, (z,), (t.real,))[1], fd_jvp(f, z, t.real.to(C)), rtol=1e-6, atol=1e-7)
    _, tan64 = jvp(lambda a: a * a, (z,), (t.to(torch.complex64),))
    assert tan64.dtype == C
    # PyTorch's: a complex tangent of a real primal stays complex through mul
    x = torch.tensor([1.0, 2.0], dtype=D)
    _, tan = jvp(lambda a: a * a, (x,), (torch.tensor([0.3 - 1j, 2 + 0.1j], dtype=C),))
    np.testing.assert_allclose(tan.numpy(), np.array([0.6 - 2j, 8 + 0.4j]))
    with pytest.raises(
        ValueError, match="^Expected primal to be floating point or complex, but got: torch.int64$"
    ):
        jvp(lambda a: a * a, (torch.arange(2),), (torch.arange(2),))


def test_forward_over_reverse_on_complex_inputs():
    # jvp of func.grad (PyTorch's conjugate Wirtinger gradient) runs reverse mode through the double-vjp trick
    z, t = crand(4, lo=0.2, hi=0.9), crand(4)
    g = grad(lambda a: (a.abs() ** 3).sum() + (a * a).real.sum())
    out, tan = jvp(g, (z,), (t,))
    assert_close(out, g(z))
    assert_close(tan, fd_jvp(g, z, t), rtol=1e-6, atol=1e-7)


def test_vmapped_jvp_on_complex_batched_tangents():
    # batched complex tangents through rules and through the generic JVP's batched second vjp
    z = crand(3, 3, lo=0.2, hi=0.9)
    ts = crand(2, 3, 3)
    f = lambda a: a.abs().sum() + torch.linalg.matrix_norm(a, "nuc") + (a @ a).angle().sum()
    out = vmap(lambda tt: jvp(f, (z,), (tt,))[1])(ts)
    for k in range(2):
        assert_close(out[k], fd_jvp(f, z, ts[k]), rtol=1e-6, atol=1e-7)


def test_jacfwd_and_jacrev_refuse_complex_as_pytorch():
    z, x = crand(2), torch.rand(2, dtype=D)
    for api, fn in (("jacfwd", jacfwd), ("jacrev", jacrev)):
        with pytest.raises(
            RuntimeError,
            match=f"^{api}: Expected all inputs to be real but received complex tensor at flattened input idx: 0$",
        ):
            fn(lambda a: a.abs())(z)
        with pytest.raises(
            RuntimeError,
            match=f"^{api}: Expected all outputs to be real but received complex tensor at flattened input idx: 0$",
        ):
            fn(lambda a: a * (1 + 2j))(x)
        with pytest.raises(RuntimeError, match=f"^{api}: Expected all inputs to be real .* idx: 1$"):
            fn(lambda a, b: a * b.abs())(x, z)
    with pytest.raises(RuntimeError, match="^jacfwd: Expected all inputs to be real"):
        hessian(lambda a: a.abs().sum())(z)
    # a real function of real inputs through complex intermediates is fine, forward and reverse alike
    g = lambda a: torch.fft.fft(a).abs()
    assert_close(jacfwd(g)(x), jacrev(g)(x))


def test_vjp_takes_complex_outputs():
    # PyTorch's convention: the vjp of z * z at cotangent u is conj(2 z) u
    z, u = crand(3), crand(3)
    (g,) = vjp(lambda a: a * a, z)[1](u)
    assert_close(g, (2 * z).conj() * u)


# ------------------------------------------------------------------------------------------------ primals


def test_addcmul_and_sinc_of_complex_primals():
    # the sweep's addcmul and sinc: a float value kept (not truncated to an int) and sinc computed in complex
    z = crand(4)
    zn = z.numpy()
    np.testing.assert_allclose(torch.addcmul(z, z, z, value=0.5).numpy(), zn + 0.5 * zn * zn)
    np.testing.assert_allclose(torch.sinc(z).numpy(), np.sinc(zn))
    assert torch.sinc(torch.zeros(1, dtype=C)).item() == 1
