"""torch.gradient: values against numpy.gradient (float64), every spacing form and edge order, dims, dtypes,
non-contiguous input, gradients, vmap and forward AD, PyTorch's errors."""

import warnings

import numpy as np
import pytest

import minitorch


def _np(ts):
    return [t.cpu().numpy() for t in ts]


@pytest.mark.parametrize("edge_order", (1, 2))
def test_gradient_matches_numpy(device, edge_order):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5, 6))
    x = minitorch.tensor(a, device=device)
    for got, ref in zip(
        _np(minitorch.gradient(x, edge_order=edge_order)), np.gradient(a, edge_order=edge_order)
    ):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    got = minitorch.gradient(x, spacing=0.25, dim=1, edge_order=edge_order)
    assert isinstance(got, tuple) and len(got) == 1
    np.testing.assert_allclose(
        got[0].cpu().numpy(), np.gradient(a, 0.25, axis=1, edge_order=edge_order), rtol=1e-12
    )
    got = minitorch.gradient(x, spacing=[2.0, 0.5], dim=[-1, 0], edge_order=edge_order)
    ref = np.gradient(a, 2.0, 0.5, axis=(2, 0), edge_order=edge_order)
    for g, r in zip(_np(got), ref):
        np.testing.assert_allclose(g, r, rtol=1e-12)


@pytest.mark.parametrize("edge_order", (1, 2))
def test_gradient_coordinates_match_numpy(device, edge_order):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 7))
    cy, cx = np.cumsum(rng.uniform(0.2, 2.0, 5)), np.cumsum(rng.uniform(0.2, 2.0, 7))
    x = minitorch.tensor(a, device=device)
    got = minitorch.gradient(
        x,
        spacing=(minitorch.tensor(cy, device=device), minitorch.tensor(cx, device=device)),
        edge_order=edge_order,
    )
    for g, r in zip(_np(got), np.gradient(a, cy, cx, edge_order=edge_order)):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)
    got = minitorch.gradient(x, spacing=[minitorch.tensor(cx, device=device)], dim=1, edge_order=edge_order)
    np.testing.assert_allclose(
        got[0].cpu().numpy(), np.gradient(a, cx, axis=1, edge_order=edge_order), rtol=1e-10
    )


def test_gradient_dtypes_and_layouts(device):
    # integers give the default float (division), float32/complex keep theirs, a transposed input reads right
    x = minitorch.tensor([1, 2, 4, 7, 11], device=device)
    (g,) = minitorch.gradient(x)
    assert g.dtype == minitorch.float32
    np.testing.assert_allclose(g.cpu().numpy(), np.gradient(np.array([1, 2, 4, 7, 11.0])))
    (g,) = minitorch.gradient(x, spacing=[minitorch.tensor([0, 1, 3, 4, 6], device=device)])
    np.testing.assert_allclose(
        g.cpu().numpy(), np.gradient(np.array([1, 2, 4, 7, 11.0]), [0, 1, 3, 4, 6.0]), rtol=1e-6
    )
    c = np.array([1 + 1j, 2, 4 - 2j, 3j])
    (g,) = minitorch.gradient(minitorch.tensor(c, device=device))
    assert g.dtype == minitorch.complex128
    np.testing.assert_allclose(g.cpu().numpy(), np.gradient(c))
    a = np.random.default_rng(2).standard_normal((6, 4)).astype(np.float32)
    xt = minitorch.tensor(a.T.copy(), device=device).t()
    assert not xt.is_contiguous()
    for g, r in zip(_np(minitorch.gradient(xt, edge_order=2)), np.gradient(a, edge_order=2)):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)
    assert minitorch.gradient(minitorch.tensor(3.0, device=device)) == ()


def test_gradient_autograd_vmap_and_jvp():
    x = minitorch.randn(3, 5, dtype=minitorch.float64, requires_grad=True)
    cx = minitorch.tensor([0.0, 1.0, 2.5, 3.0, 5.0], dtype=minitorch.float64)
    assert minitorch.autograd.gradcheck(lambda a: minitorch.gradient(a, edge_order=2), (x,))
    assert minitorch.autograd.gradcheck(lambda a: minitorch.gradient(a, spacing=[cx], dim=1), (x,))
    b = minitorch.randn(4, 3, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a batching rule, no per-entry loop
        got = minitorch.func.vmap(
            lambda a: minitorch.gradient(a, spacing=[cx.float()], dim=-1, edge_order=2)
        )(b)
        got_t = minitorch.func.vmap(lambda a: minitorch.gradient(a), in_dims=2)(b)
        _, tangent = minitorch.func.jvp(
            lambda a: minitorch.gradient(a, spacing=0.5)[1], (x.detach(),), (x.detach(),)
        )
    ref = minitorch.stack(
        [minitorch.gradient(b[i], spacing=[cx.float()], dim=-1, edge_order=2)[0] for i in range(4)]
    )
    np.testing.assert_allclose(got[0].numpy(), ref.numpy(), rtol=1e-6)
    for k in range(2):
        ref = minitorch.stack([minitorch.gradient(b[:, :, i])[k] for i in range(5)])
        np.testing.assert_allclose(got_t[k].numpy(), ref.numpy(), rtol=1e-6)
    np.testing.assert_allclose(tangent.numpy(), minitorch.gradient(x.detach(), spacing=0.5)[1].numpy())


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (
            lambda x: minitorch.gradient(x, edge_order=3),
            RuntimeError,
            "only supports edge_order=1 and edge_order=2",
        ),
        (lambda x: minitorch.gradient(x[:, :2], edge_order=2), RuntimeError, "at least edge_order\\+1"),
        (lambda x: minitorch.gradient(minitorch.empty(0)), RuntimeError, "at least edge_order\\+1"),
        (
            lambda x: minitorch.gradient(x, spacing=[1.0, 2.0, 3.0]),
            RuntimeError,
            "'self.dim\\(\\) = 2'.*length 3",
        ),
        (
            lambda x: minitorch.gradient(x, spacing=[1.0], dim=[0, 1]),
            RuntimeError,
            "spacing argument of length 1",
        ),
        (lambda x: minitorch.gradient(x, dim=[0, 0]), RuntimeError, "dim 0 appears multiple times"),
        (lambda x: minitorch.gradient(x, dim=2), IndexError, "Dimension out of range"),
        (
            lambda x: minitorch.gradient(x, spacing=[minitorch.tensor(2.0), minitorch.tensor(3.0)]),
            RuntimeError,
            "each element of spacing to have one dimension, but got an element with 0 dimensions!",
        ),
        (
            lambda x: minitorch.gradient(x, spacing=[minitorch.arange(3.0), 3.0]),
            TypeError,
            "expected Tensor as element 1 in argument 1, but got float",
        ),
        (
            lambda x: minitorch.gradient(minitorch.tensor([1, 2, 3], dtype=minitorch.uint8)),
            NotImplementedError,
            "does not support uint8 input",
        ),
        (
            lambda x: minitorch.gradient(x > 0),
            NotImplementedError,
            "Subtraction, the `-` operator, with two bool",
        ),
    ],
)
def test_gradient_bad_input(call, kind, message):
    with pytest.raises(kind, match=message):
        call(minitorch.randn(3, 4))
