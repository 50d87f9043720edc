"""linalg.matrix_sqrth and linalg.polar: values against SciPy (sqrtm, polar) in float64 and complex128, batches,
empty and non-contiguous inputs, gradients by finite differences, and PyTorch's errors through the oracle."""

import numpy as np
import pytest
import scipy.linalg
from utils import cases_here_and_in_pytorch

import minitorch


def spd(rng, n, batch=(), complex_=False):
    a = rng.standard_normal(batch + (n, n))
    if complex_:
        a = a + 1j * rng.standard_normal(batch + (n, n))
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)


@pytest.mark.parametrize("complex_", [False, True])
def test_matrix_sqrth_matches_scipy(complex_):
    rng = np.random.default_rng(0)
    a = spd(rng, 4, (2,), complex_)
    got = minitorch.linalg.matrix_sqrth(minitorch.tensor(a).mT.contiguous().mT)  # non-contiguous
    for g, m in zip(got.numpy(), a):
        np.testing.assert_allclose(g, scipy.linalg.sqrtm(m), rtol=1e-10, atol=1e-12)
    assert minitorch.linalg.matrix_sqrth(minitorch.ones(3, 0, 0)).shape == (3, 0, 0)
    # the lower triangle is all it reads
    low = np.tril(a[0]) + np.triu(rng.standard_normal((4, 4)), 1)
    np.testing.assert_allclose(
        minitorch.linalg.matrix_sqrth(minitorch.tensor(low)).numpy(), scipy.linalg.sqrtm(a[0]), rtol=1e-10
    )


@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 3), (5, 1)])
def test_polar_matches_scipy(complex_, shape):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if complex_ else 0)
    u, h = minitorch.linalg.polar(minitorch.tensor(a))
    for ui, hi, ai in zip(
        u.numpy().reshape((-1,) + shape[-2:]),
        h.numpy().reshape((-1,) + shape[-1:] * 2),
        a.reshape((-1,) + shape[-2:]),
    ):
        eu, eh = scipy.linalg.polar(ai, side="right")
        np.testing.assert_allclose(ui, eu, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(hi, eh, rtol=1e-10, atol=1e-12)
    out = (minitorch.empty(0, dtype=u.dtype), minitorch.empty(0, dtype=u.dtype))
    r = minitorch.linalg.polar(minitorch.tensor(a), out=out)
    assert r.U is out[0] and r.H is out[1] and type(r).__name__ == "linalg_polar_out"
    assert minitorch.equal(out[0], u) and minitorch.equal(out[1], h)


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(2)
    a = minitorch.tensor(spd(rng, 3), requires_grad=True)
    # symmetric perturbations only: the function reads the lower triangle
    assert minitorch.autograd.gradcheck(
        lambda t: minitorch.linalg.matrix_sqrth(t.tril() + t.tril(-1).mT), (a,)
    )
    b = minitorch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: tuple(minitorch.linalg.polar(t)), (b,))


CASES = r"""
def cases(torch):
    def enc(r):
        r = tuple(r) if isinstance(r, tuple) else (r,)
        return [[list(t.shape), str(t.dtype), [str(round(v, 8)) for v in t.detach().double().reshape(-1).tolist()]]
                for t in r]

    run = runner(enc)
    S, P = torch.linalg.matrix_sqrth, torch.linalg.polar
    A = torch.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=torch.float64)
    out = {}
    out["sqrth"] = run(lambda: S(A))
    out["lower"] = run(lambda: S(torch.tensor([[4.0, 1.0], [7.0, 3.0]])))
    out["negative"] = run(lambda: S(torch.tensor([[-4.0, 0.0], [0.0, 3.0]])))
    out["rect"] = run(lambda: S(torch.ones(2, 3)))
    out["vec"] = run(lambda: S(torch.ones(3)))
    out["long"] = run(lambda: S(torch.ones(2, 2, dtype=torch.int64)))
    out["longrect"] = run(lambda: S(torch.ones(2, 3, dtype=torch.int64)))
    out["half"] = run(lambda: S(torch.ones(2, 2, dtype=torch.half)))
    out["empty"] = run(lambda: S(torch.ones(0, 0)))
    out["sqrthout"] = run(lambda: S(A, out=torch.empty(2, 2)))
    out["sqrthkind"] = run(lambda: S(3))
    out["polar"] = run(lambda: P(torch.tensor([[3.0, 1.0], [0.0, 2.0], [1.0, 1.0]], dtype=torch.float64)))
    out["polarwide"] = run(lambda: P(torch.ones(2, 3)))
    out["polarvec"] = run(lambda: P(torch.ones(3)))
    out["polarint"] = run(lambda: P(torch.ones(2, 3, dtype=torch.int32)))
    out["polarhalf"] = run(lambda: P(torch.ones(3, 3, dtype=torch.half)))
    out["polarempty"] = run(lambda: P(torch.ones(3, 0)))
    out["polarzero"] = run(lambda: P(torch.zeros(3, 2)))
    out["polarkind"] = run(lambda: P(3))
    return out
"""


def test_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert ours.keys() == theirs.keys()
    for k in theirs:
        assert ours[k] == theirs[k], k
