"""Derivatives of linalg.householder_product / orgqr / ormqr in A and tau (the product of reflectors composed of
recorded ops when an input requires grad): its values against the LAPACK path, gradients against finite
differences (to second order) and PyTorch's, forward-mode tangents, and the bad-input messages on both paths."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.linalg._decomp import _householder_product_composed
from tests.utils import cases_here_and_in_pytorch

LA = torch.linalg
F64, C128 = torch.float64, torch.complex128
rng = np.random.default_rng(31)

# (A's shape, k = tau's length): m > n, m == n, k < n, k == 0, batches, and empty matrices
SHAPES = [
    ((5, 3), 3),
    ((5, 3), 2),
    ((4, 4), 4),
    ((4, 4), 1),
    ((6, 4), 0),
    ((2, 3, 6, 4), 3),
    ((3, 0), 0),
    ((2, 0, 0), 0),
]


def rand(shape, dtype):
    x = rng.standard_normal(shape)
    if dtype == C128:
        x = x + 1j * rng.standard_normal(shape)
    return torch.tensor(x, dtype=dtype)


def reflectors(shape, k, dtype):
    """geqrf's reflectors and scales of a random matrix (tau in [0, 2], as the product meets it in practice),
    tau cut to its first k."""
    if 0 in shape:
        return rand(shape, dtype), rand((*shape[:-2], k), dtype)
    g, tau = torch.geqrf(rand(shape, dtype))
    return g, tau[..., :k].contiguous()


@pytest.mark.parametrize("dtype", [F64, C128])
@pytest.mark.parametrize(("shape", "k"), SHAPES)
def test_composed_product_is_lapacks(dtype, shape, k):
    A, tau = reflectors(shape, k, dtype)
    ref = LA.householder_product(A, tau)
    assert ref.grad_fn is None
    for got in (
        _householder_product_composed(A, tau),
        LA.householder_product(A.clone().requires_grad_(), tau),
        LA.householder_product(A, tau.clone().requires_grad_()),
    ):
        assert got.shape == ref.shape and got.dtype == ref.dtype
        np.testing.assert_allclose(got.detach().numpy(), ref.numpy(), rtol=0, atol=1e-12)
    # arbitrary tau (not a reflector's) too, and a non-contiguous A
    tau2 = rand(tuple(tau.shape), dtype)
    At = A.mT.contiguous().mT
    assert not At.is_contiguous() or A.shape[-1] <= 1 or A.shape[-2] <= 1
    got = LA.householder_product(At.requires_grad_(), tau2)
    ref = LA.householder_product(A, tau2)
    np.testing.assert_allclose(got.detach().numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)


def test_lapack_path_without_grad():
    A, tau = reflectors((5, 3), 3, F64)
    A.requires_grad_()
    with torch.no_grad():
        Q = LA.householder_product(A, tau)
    assert Q.grad_fn is None and not Q.requires_grad
    Q = LA.householder_product(A, tau)
    assert Q.requires_grad and Q.grad_fn is not None


@pytest.mark.parametrize("dtype", [F64, C128])
@pytest.mark.parametrize(("shape", "k"), [((5, 3), 3), ((5, 3), 2), ((3, 3), 3), ((2, 4, 3), 2), ((4, 3), 0)])
def test_gradcheck(dtype, shape, k):
    A, tau = reflectors(shape, k, dtype)
    # the scales only matter through the product: nonzero random ones reach every term of the derivative
    tau = rand(tuple(tau.shape), dtype)
    A.requires_grad_()
    tau.requires_grad_()
    assert gradcheck(LA.householder_product, (A, tau))
    assert gradgradcheck(LA.householder_product, (A, tau))
    assert gradcheck(lambda a: torch.orgqr(a, tau.detach()), (A,))
    assert gradcheck(lambda t: A.detach().orgqr(t), (tau,))


@pytest.mark.parametrize("dtype", [F64, C128])
@pytest.mark.parametrize(
    ("shape", "left", "transpose"), [((5, 3), True, False), ((5, 3), False, True), ((3, 5), True, True)]
)
def test_ormqr_gradcheck_in_input_and_tau(dtype, shape, left, transpose):
    m, n = shape
    A = rand(shape, dtype).requires_grad_()
    tau = rand((min(m, n),), dtype).requires_grad_()
    C = rand((m, 2) if left else (2, m), dtype).requires_grad_()
    assert gradcheck(lambda a, t, c: torch.ormqr(a, t, c, left=left, transpose=transpose), (A, tau, C))


@pytest.mark.parametrize("dtype", [F64, C128])
@pytest.mark.parametrize(("shape", "k"), [((5, 3), 2), ((2, 4, 4), 4)])
def test_jvp_against_finite_differences(dtype, shape, k):
    A, tau = rand(shape, dtype), rand((*shape[:-2], k), dtype)
    tA, tt = rand(shape, dtype), rand((*shape[:-2], k), dtype)
    eps = 1e-6
    fd = (
        LA.householder_product(A + eps * tA, tau + eps * tt)
        - LA.householder_product(A - eps * tA, tau - eps * tt)
    ) / (2 * eps)
    for f in (LA.householder_product, torch.orgqr, lambda a, t: a.orgqr(t)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # its own rule, not the double-vjp fallback's warning
            Q, dQ = torch.func.jvp(f, (A, tau), (tA, tt))
        np.testing.assert_allclose(Q.numpy(), LA.householder_product(A, tau).numpy(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(dQ.numpy(), fd.numpy(), rtol=1e-7, atol=1e-7)
    # a tangent in one operand only
    _, dA = torch.func.jvp(lambda a: LA.householder_product(a, tau), (A,), (tA,))
    fdA = (LA.householder_product(A + eps * tA, tau) - LA.householder_product(A - eps * tA, tau)) / (2 * eps)
    np.testing.assert_allclose(dA.numpy(), fdA.numpy(), rtol=1e-7, atol=1e-7)


_ORACLE = """
def cases(torch, data):
    def t(x):
        re = torch.tensor(x[0], dtype=torch.float64)
        return re if x[1] is None else torch.complex(re, torch.tensor(x[1], dtype=torch.float64))
    def out(x):
        x = x.detach()
        return [x.real.tolist(), x.imag.tolist() if x.is_complex() else None]
    res = []
    for c in data:
        A, tau, G, tA, tt = (t(x) for x in c)
        A.requires_grad_()
        tau.requires_grad_()
        Q = torch.linalg.householder_product(A, tau)
        gA, gt = torch.autograd.grad(Q, (A, tau), G)
        _, dQ = torch.func.jvp(torch.linalg.householder_product, (A.detach(), tau.detach()), (tA, tt))
        res.append([out(Q), out(gA), out(gt), out(dQ)])
    return res
"""


def test_gradients_and_tangents_are_pytorchs():
    def j(x):
        x = x.numpy()
        return [x.real.tolist(), x.imag.tolist() if np.iscomplexobj(x) else None]

    data = []
    for dtype in (F64, C128):
        for shape, k in [((5, 3), 3), ((5, 3), 2), ((4, 4), 4), ((2, 4, 3), 1)]:
            A, tau = rand(shape, dtype), rand((*shape[:-2], k), dtype)
            G, tA, tt = (
                rand((*shape[:-2], shape[-2], shape[-1]), dtype),
                rand(shape, dtype),
                rand(tuple(tau.shape), dtype),
            )
            data.append([j(A), j(tau), j(G), j(tA), j(tt)])
    ours, theirs = cases_here_and_in_pytorch(_ORACLE, [("torch", torch)], data)
    assert len(ours) == len(theirs) == len(data)
    for o, p in zip(ours, theirs):
        for a, b in zip(o, p):
            np.testing.assert_allclose(np.array(a[0]), np.array(b[0]), rtol=1e-10, atol=1e-10)
            assert (a[1] is None) == (b[1] is None)
            if a[1] is not None:
                np.testing.assert_allclose(np.array(a[1]), np.array(b[1]), rtol=1e-10, atol=1e-10)


def test_double_backward_through_a_loss():
    # a Hessian-vector product (reverse over reverse) against central differences of the gradient
    A = rand((4, 3), F64).requires_grad_()
    tau = rand((3,), F64).requires_grad_()
    W = rand((4, 3), F64)

    def grads(a, t):
        Q = LA.householder_product(a, t)
        return torch.autograd.grad((Q * W).sum() ** 2, (a, t), create_graph=True)

    vA, vt = rand((4, 3), F64), rand((3,), F64)
    gA, gt = grads(A, tau)
    hA, ht = torch.autograd.grad((gA * vA).sum() + (gt * vt).sum(), (A, tau))
    eps = 1e-6
    with torch.no_grad():
        Ap, Am, tp, tm = A + eps * vA, A - eps * vA, tau + eps * vt, tau - eps * vt
    (pA, pt), (mA, mt) = (
        grads(Ap.requires_grad_(), tp.requires_grad_()),
        grads(Am.requires_grad_(), tm.requires_grad_()),
    )
    np.testing.assert_allclose(hA.numpy(), ((pA - mA) / (2 * eps)).detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ht.numpy(), ((pt - mt) / (2 * eps)).detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("grad", [False, True])
def test_errors_are_pytorchs_on_both_paths(grad):
    fn = "torch.linalg.householder_product"

    def call(a_shape, t_shape, dtype=F64, tdtype=None):
        A = torch.zeros(a_shape, dtype=dtype)
        tau = torch.zeros(t_shape, dtype=tdtype or dtype)
        if grad and dtype.is_floating_point:
            A.requires_grad_()
        return lambda: LA.householder_product(A, tau)

    cases = [
        (call((3,), (1,)), RuntimeError, f"{fn}: input must have at least 2 dimensions."),
        (call((3, 4), (2,)), RuntimeError, f"{fn}: input.shape[-2] must be greater than or equal to input.shape[-1]"),
        (call((4, 3), (4,)), RuntimeError, f"{fn}: input.shape[-1] must be greater than or equal to tau.shape[-1]"),
        (call((4, 3), (2, 2)), RuntimeError, f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to 2 and input.ndim is equal to 2"),
        (call((2, 4, 3), (3, 2)), RuntimeError, f"{fn}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got [3]"),
        (call((4, 3), (2,), F64, torch.float32), RuntimeError, f"{fn}: tau dtype Float does not match input dtype Double"),
        (call((4, 3), (2,), torch.int64), NotImplementedError, "\"orgqr_cpu\" not implemented for 'Long'"),
        (call((4, 3), (2,), torch.float16), NotImplementedError, "\"orgqr_cpu\" not implemented for 'Half'"),
        (call((4, 3), ()), IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    ]  # fmt: skip
    for f, cls, msg in cases:
        with pytest.raises(cls) as e:
            f()
        assert type(e.value) is cls and str(e.value) == msg, (msg, str(e.value))


def test_out_with_grad_is_refused():
    A, tau = reflectors((4, 3), 3, F64)
    out = torch.empty(4, 3, dtype=F64)
    LA.householder_product(A, tau, out=out)
    np.testing.assert_allclose(out.numpy(), LA.householder_product(A, tau).numpy())
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        LA.householder_product(A.requires_grad_(), tau, out=out)
