"""F.affine_grid and F.grid_sample: values against a NumPy reference of PyTorch's sampling rules and against
PyTorch itself, gradients by finite differences, PyTorch's errors for bad input."""

import itertools
import math
import warnings

import numpy as np
import pytest
from utils import run_oracle

import minitorch
import minitorch.nn.functional as F

MODES = ("bilinear", "nearest", "bicubic")
PADDINGS = ("zeros", "border", "reflection")


# ---- a scalar NumPy reference, written from PyTorch's documented rules


def _unnormalize(c, size, align):
    return (c + 1) / 2 * (size - 1) if align else ((c + 1) * size - 1) / 2


def _reflect(c, twice_low, twice_high):
    if twice_low == twice_high:
        return 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    c = abs(c - low)
    extra, flips = math.fmod(c, span), math.floor(c / span)
    return extra + low if flips % 2 == 0 else span - extra + low


def _pad(c, size, padding, align):
    if padding == "border":
        c = min(max(c, 0.0), size - 1.0)
    elif padding == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align else _reflect(c, -1, 2 * size - 1)
        c = min(max(c, 0.0), size - 1.0)
    return c


def _at(img, idx):
    # img (C, *spatial); a tap outside reads zero
    if all(0 <= i < s for i, s in zip(idx, img.shape[1:])):
        return img[(slice(None),) + tuple(idx)]
    return np.zeros(img.shape[0])


def _cubic(t):
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def reference(x, grid, mode, padding, align):
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    out = np.zeros((n, c) + grid.shape[1:-1])
    for b in range(n):
        for pos in np.ndindex(*grid.shape[1:-1]):
            g = grid[(b,) + pos][::-1]  # slowest axis first
            if mode == "bicubic":
                y, xx = (_unnormalize(v, s, align) for v, s in zip(g, sizes))
                y0, x0 = math.floor(y), math.floor(xx)
                wy, wx = _cubic(y - y0), _cubic(xx - x0)
                val = 0
                for i, j in itertools.product(range(4), range(4)):
                    yi = int(_pad(y0 - 1 + i, sizes[0], padding, align))
                    xj = int(_pad(x0 - 1 + j, sizes[1], padding, align))
                    val = val + wy[i] * wx[j] * _at(x[b], (yi, xj))
            else:
                coords = [_pad(_unnormalize(v, s, align), s, padding, align) for v, s in zip(g, sizes)]
                if mode == "nearest":
                    val = _at(x[b], [int(np.rint(v)) for v in coords])
                else:
                    val = 0
                    for corner in itertools.product((0, 1), repeat=len(coords)):
                        w, idx = 1.0, []
                        for hi, v in zip(corner, coords):
                            lo = math.floor(v)
                            w *= (v - lo) if hi else (lo + 1 - v)
                            idx.append(lo + hi)
                        val = val + w * _at(x[b], idx)
            out[(b, slice(None)) + pos] = val
    return out


def _grid(rng, shape):
    g = rng.uniform(-1.4, 1.4, shape)
    flat = g.reshape(-1)
    flat[: min(6, flat.size)] = [-1.0, 1.0, 0.0, 0.5, -1.0, 1.0][: min(6, flat.size)]  # borders and centre
    return g


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("align", (False, True))
def test_grid_sample_2d_matches_reference(device, mode, padding, align):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4, 5))
    g = _grid(rng, (2, 3, 4, 2))
    got = F.grid_sample(
        minitorch.tensor(x, device=device),
        minitorch.tensor(g, device=device),
        mode=mode,
        padding_mode=padding,
        align_corners=align,
    )
    np.testing.assert_allclose(
        got.cpu().numpy(), reference(x, g, mode, padding, align), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("mode", ("bilinear", "nearest"))
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("align", (False, True))
def test_grid_sample_3d_matches_reference(device, mode, padding, align):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 2, 3, 4, 5))
    g = _grid(rng, (2, 2, 3, 2, 3))
    got = F.grid_sample(
        minitorch.tensor(x, device=device),
        minitorch.tensor(g, device=device),
        mode=mode,
        padding_mode=padding,
        align_corners=align,
    )
    np.testing.assert_allclose(
        got.cpu().numpy(), reference(x, g, mode, padding, align), rtol=1e-12, atol=1e-12
    )


def test_grid_sample_float32_noncontiguous_and_default_align(device):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    g = _grid(rng, (2, 4, 3, 2)).astype(np.float32)
    xt = minitorch.tensor(x.transpose(0, 1, 3, 2).copy(), device=device).transpose(2, 3)  # strided input
    gt = minitorch.tensor(g.transpose(0, 2, 1, 3).copy(), device=device).transpose(1, 2)
    assert not xt.is_contiguous() and not gt.is_contiguous()
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        got = F.grid_sample(xt, gt)
    assert got.dtype == minitorch.float32
    ref = reference(x.astype(np.float64), g.astype(np.float64), "bilinear", "zeros", False)
    np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)


def test_grid_sample_nonfinite_grid_as_pytorch():
    x = minitorch.arange(24, dtype=minitorch.float32).reshape(2, 1, 3, 4)
    nan, inf = float("nan"), float("inf")
    g = minitorch.tensor([[[[nan, 0.0], [inf, 0.2], [-inf, 0.1], [1e20, 0.3], [0.3, 1.0]]]] * 2)
    zeros = F.grid_sample(x, g, align_corners=False)[0, 0, 0]
    assert zeros[:3].isnan().all() and zeros[3].item() == 0.0  # NaN weights spread; a far point reads nothing
    border = F.grid_sample(x, g, padding_mode="border", align_corners=False)[0, 0, 0]
    # NaN lands on the first column, inf on the last (PyTorch's values)
    np.testing.assert_allclose(border.numpy(), [4.0, 8.2, 4.6, 8.8, 10.1], rtol=1e-6)
    refl = F.grid_sample(x, g, padding_mode="reflection", align_corners=False)[0, 0, 0]
    np.testing.assert_allclose(refl.numpy(), [4.0, 5.2, 4.6, 5.8, 10.1], rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding", PADDINGS)
def test_grid_sample_gradcheck(mode, padding):
    rng = np.random.default_rng(4)
    x = minitorch.tensor(rng.standard_normal((1, 2, 4, 5)), requires_grad=True)
    # keep points off the pixel lattice and the borders, where the sampling is not differentiable
    g = minitorch.tensor(rng.uniform(-0.8, 0.8, (1, 3, 2, 2)) + 0.013, requires_grad=mode != "nearest")
    for align in (False, True):
        assert minitorch.autograd.gradcheck(
            lambda a, b, align=align: F.grid_sample(
                a, b, mode=mode, padding_mode=padding, align_corners=align
            ),
            (x, g),
        )


def test_grid_sample_3d_gradcheck():
    rng = np.random.default_rng(5)
    x = minitorch.tensor(rng.standard_normal((1, 1, 3, 3, 4)), requires_grad=True)
    g = minitorch.tensor(rng.uniform(-0.8, 0.8, (1, 2, 2, 1, 3)) + 0.017, requires_grad=True)
    assert minitorch.autograd.gradcheck(
        lambda a, b: F.grid_sample(a, b, padding_mode="reflection", align_corners=False), (x, g)
    )


def test_grid_sample_border_point_gets_no_grid_gradient():
    # PyTorch's clip passes no gradient at the border itself (clip_coordinates_set_grad)
    x = minitorch.arange(20, dtype=minitorch.float64).reshape(1, 1, 4, 5)
    g = minitorch.tensor([[[[1.0, -1.0]]]], dtype=minitorch.float64, requires_grad=True)
    F.grid_sample(x, g, padding_mode="border", align_corners=True).sum().backward()
    assert g.grad.tolist() == [[[[0.0, 0.0]]]]


def test_grid_sample_empty(device):
    x = minitorch.randn(0, 3, 4, 4, device=device)
    assert F.grid_sample(x, minitorch.randn(0, 5, 5, 2, device=device), align_corners=False).shape == (
        0,
        3,
        5,
        5,
    )
    x = minitorch.randn(2, 0, 4, 4, device=device)
    assert F.grid_sample(x, minitorch.randn(2, 5, 5, 2, device=device), align_corners=False).shape == (
        2,
        0,
        5,
        5,
    )
    x = minitorch.randn(2, 3, 4, 4, device=device)
    assert F.grid_sample(x, minitorch.randn(2, 0, 5, 2, device=device), align_corners=False).shape == (
        2,
        3,
        0,
        5,
    )


@pytest.mark.parametrize(
    "make, kind, message",
    [
        (lambda: (minitorch.randn(2, 3, 4, 4), minitorch.randn(1, 5, 5, 2)), RuntimeError, "same batch size"),
        (lambda: (minitorch.randn(1, 3, 4, 4), minitorch.randn(1, 5, 5, 3)), RuntimeError, "size 2 in last"),
        (
            lambda: (minitorch.randn(1, 3, 0, 4), minitorch.randn(1, 5, 5, 2)),
            RuntimeError,
            "dimension 2 being empty",
        ),
        (
            lambda: (minitorch.randn(1, 3, 4), minitorch.randn(1, 5, 1)),
            RuntimeError,
            "expected 5D input and grid",
        ),
        (
            lambda: (minitorch.randn(1, 3, 4, 4), minitorch.randn(1, 5, 5, 2, 2)),
            RuntimeError,
            "expected 4D input",
        ),
        (
            lambda: (minitorch.randn(1, 3, 4, 4, dtype=minitorch.float64), minitorch.randn(1, 5, 5, 2)),
            RuntimeError,
            "expected scalar type Double but found Float",
        ),
        (
            lambda: (minitorch.ones(1, 3, 4, 4, dtype=minitorch.int64), minitorch.randn(1, 5, 5, 2)),
            NotImplementedError,
            "not implemented for 'Long'",
        ),
    ],
)
def test_grid_sample_bad_input(make, kind, message):
    x, g = make()
    with pytest.raises(kind, match=message):
        F.grid_sample(x, g, align_corners=False)


def test_grid_sample_bad_options():
    x, g = minitorch.randn(1, 1, 3, 3), minitorch.randn(1, 2, 2, 2)
    with pytest.raises(
        ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'area'"
    ):
        F.grid_sample(x, g, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection'"):
        F.grid_sample(x, g, padding_mode="wrap", align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(
            minitorch.randn(1, 1, 2, 3, 3),
            minitorch.randn(1, 2, 2, 2, 3),
            mode="bicubic",
            align_corners=False,
        )


# ---- affine_grid


def _base(steps, align):
    if steps <= 1:
        return np.zeros(1)
    r = np.linspace(-1, 1, steps)
    return r if align else r * (steps - 1) / steps


@pytest.mark.parametrize("align", (False, True))
def test_affine_grid_2d_and_3d_values(device, align):
    rng = np.random.default_rng(6)
    theta = rng.standard_normal((2, 2, 3))
    got = (
        F.affine_grid(minitorch.tensor(theta, device=device), (2, 3, 4, 5), align_corners=align).cpu().numpy()
    )
    ys, xs = np.meshgrid(_base(4, align), _base(5, align), indexing="ij")
    base = np.stack([xs, ys, np.ones_like(xs)], -1)  # (H, W, 3)
    np.testing.assert_allclose(got, np.einsum("hwk,njk->nhwj", base, theta), rtol=1e-12, atol=1e-12)
    theta3 = rng.standard_normal((2, 3, 4))
    got3 = F.affine_grid(minitorch.tensor(theta3, device=device), (2, 1, 3, 4, 5), align_corners=align)
    zs, ys, xs = np.meshgrid(_base(3, align), _base(4, align), _base(5, align), indexing="ij")
    base3 = np.stack([xs, ys, zs, np.ones_like(xs)], -1)
    np.testing.assert_allclose(got3.cpu().numpy(), np.einsum("dhwk,njk->ndhwj", base3, theta3), rtol=1e-12)


def test_affine_grid_identity_round_trip():
    # sampling with the identity map gives the image back (align_corners=False: pixel centres)
    x = minitorch.randn(2, 3, 5, 7, dtype=minitorch.float64)
    theta = minitorch.eye(2, 3, dtype=minitorch.float64).expand(2, 2, 3)
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    assert grid.shape == (2, 5, 7, 2)
    np.testing.assert_allclose(F.grid_sample(x, grid, align_corners=False).numpy(), x.numpy(), atol=1e-12)


def test_affine_grid_gradcheck_and_unit_size():
    theta = minitorch.randn(2, 2, 3, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(
        lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), (theta,)
    )
    with pytest.warns(UserWarning, match="unit-size grids when align_corners=True"):
        g = F.affine_grid(theta.detach(), (2, 3, 1, 1), align_corners=True)
    np.testing.assert_allclose(
        g.numpy()[:, 0, 0], theta.detach().numpy()[:, :, 2]
    )  # the centre maps to the shift


def test_affine_grid_bad_input():
    with pytest.raises(ValueError, match="Expected theta to have floating point type, but got torch.int64"):
        F.affine_grid(minitorch.ones(2, 2, 3, dtype=minitorch.int64), (2, 3, 4, 4), align_corners=False)
    with pytest.raises(ValueError, match=r"shape Nx2x3 for size \(2, 3, 4, 4\)"):
        F.affine_grid(minitorch.randn(2, 3, 3), (2, 3, 4, 4), align_corners=False)
    with pytest.raises(ValueError, match=r"shape Nx3x4 for size"):
        F.affine_grid(minitorch.randn(2, 2, 3), (2, 3, 4, 4, 4), align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(minitorch.randn(2, 2, 3), (2, 3, 4), align_corners=False)
    with pytest.raises(ValueError, match=r"Expected non-zero, positive output size. Got \(2, 3, 0, 4\)"):
        F.affine_grid(minitorch.randn(2, 2, 3), (2, 3, 0, 4), align_corners=False)
    with pytest.raises(RuntimeError):  # theta's batch and size's disagree (bmm's error)
        F.affine_grid(minitorch.randn(2, 2, 3), (3, 3, 4, 4), align_corners=False)


def test_torch_namespace_spellings():
    x, theta = minitorch.randn(1, 2, 4, 4), minitorch.eye(2, 3).unsqueeze(0)
    grid = minitorch.affine_grid_generator(theta, [1, 2, 4, 4], False)
    np.testing.assert_array_equal(
        grid.numpy(), F.affine_grid(theta, (1, 2, 4, 4), align_corners=False).numpy()
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(
            minitorch.grid_sampler(x, grid, 0, 0, False).numpy(),
            F.grid_sample(x, grid, align_corners=False).numpy(),
        )


_ORACLE = """
import json, sys, warnings
import torch
warnings.simplefilter("ignore")
F = torch.nn.functional
cases = json.loads(sys.stdin.read())
out = []
for c in cases:
    x = torch.tensor(c["x"], dtype=torch.float64, requires_grad=True)
    g = torch.tensor(c["g"], dtype=torch.float64, requires_grad=True)
    y = F.grid_sample(x, g, mode=c["mode"], padding_mode=c["pad"], align_corners=c["align"])
    (y * torch.tensor(c["w"], dtype=torch.float64)).sum().backward()
    gg = g.grad if g.grad is not None else torch.zeros_like(g)
    out.append([y.tolist(), x.grad.tolist(), gg.tolist()])
print(json.dumps(out))
"""


def test_grid_sample_against_pytorch():
    # values and both gradients, including points on the border and the centre (where the subgradient is a choice)
    rng = np.random.default_rng(7)
    cases, mine = [], []
    for dims, mode, pad, align in itertools.product((2, 3), MODES, PADDINGS, (False, True)):
        if dims == 3 and mode == "bicubic":
            continue
        xs = (2, 2, 4, 5) if dims == 2 else (2, 2, 3, 4, 5)
        gs = (2, 3, 4, 2) if dims == 2 else (2, 2, 3, 2, 3)
        x, g = rng.standard_normal(xs), _grid(rng, gs)
        xt = minitorch.tensor(x, requires_grad=True)
        gt = minitorch.tensor(g, requires_grad=True)
        y = F.grid_sample(xt, gt, mode=mode, padding_mode=pad, align_corners=align)
        w = rng.standard_normal(tuple(y.shape))
        (y * minitorch.tensor(w)).sum().backward()
        gg = gt.grad.numpy() if gt.grad is not None else np.zeros(g.shape)
        mine.append([y.detach().numpy(), xt.grad.numpy(), gg])
        cases.append(
            {"x": x.tolist(), "g": g.tolist(), "w": w.tolist(), "mode": mode, "pad": pad, "align": align}
        )
    theirs = run_oracle(_ORACLE, cases)
    for case, ours, ref in zip(cases, mine, theirs):
        for a, b in zip(ours, ref):
            np.testing.assert_allclose(a, np.array(b), rtol=1e-10, atol=1e-10, err_msg=str(case["mode"]))
