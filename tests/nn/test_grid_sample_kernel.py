"""F.grid_sample's CPU kernel (csrc/kernels/cpu/grid_sample.cpp) against the composite of ops it replaces on float
and double CPU tensors and against PyTorch: values and both gradients for every mode, padding and rank, strided,
empty and NaN grids, one and many channels, several threads, every CPU capability, gradcheck, and double backward
(the composite's recorded gradients)."""

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest
from utils import run_oracle

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn.functional import _sampling

MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
CASES = [
    (dims, mode, pad, align)
    for dims, mode, pad, align in itertools.product((2, 3), MODES, PADDINGS, (False, True))
    if not (dims == 3 and mode == "bicubic")
]


def _grid(rng, shape, dtype=np.float64):
    # points inside, outside (up to 1.4) and exactly on the borders, the centre and pixel centres
    g = rng.uniform(-1.4, 1.4, shape)
    flat = g.reshape(-1)
    special = [-1.0, 1.0, 0.0, 0.5, -1.0, 1.0, 0.25, -0.5]
    flat[: min(len(special), flat.size)] = special[: min(len(special), flat.size)]
    return g.astype(dtype)


def _run(fn, x, g, w):
    """(values, input grad, grid grad) of fn(x, g) weighted by w, on fresh leaves."""
    xt = minitorch.tensor(x, requires_grad=True)
    gt = minitorch.tensor(g, requires_grad=True)
    y = fn(xt, gt)
    (y * minitorch.tensor(w)).sum().backward()
    gg = gt.grad.numpy() if gt.grad is not None else np.zeros(g.shape, g.dtype)
    return y, [y.detach().numpy(), xt.grad.numpy(), gg]


def _kernel(mode, pad, align):
    return lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=pad, align_corners=align)


def _composite(mode, pad, align):
    return lambda a, b: _sampling._composite(a, b, MODES[mode], PADDINGS[pad], align)


def _shapes(dims, n=2, c=3):
    if dims == 2:
        return (n, c, 4, 5), (n, 3, 4, 2)
    return (n, c, 3, 4, 5), (n, 2, 3, 2, 3)


@pytest.mark.parametrize("dims, mode, pad, align", CASES)
@pytest.mark.parametrize("dtype", ("float64", "float32"))
def test_kernel_matches_composite(dims, mode, pad, align, dtype):
    rng = np.random.default_rng(11)
    xs, gs = _shapes(dims)
    x, g = rng.standard_normal(xs).astype(dtype), _grid(rng, gs, dtype)
    y, ours = _run(_kernel(mode, pad, align), x, g, rng.standard_normal((2, 3) + gs[1:-1]).astype(dtype))
    assert y.grad_fn.name() == f"GridSampler{dims}DBackward0"  # the kernel ran, not the composite
    w = rng.standard_normal(y.shape).astype(dtype)
    _, ours = _run(_kernel(mode, pad, align), x, g, w)
    _, theirs = _run(_composite(mode, pad, align), x, g, w)
    tol = 1e-12 if dtype == "float64" else 2e-5
    for a, b, what in zip(ours, theirs, ("values", "input grad", "grid grad")):
        assert a.dtype == np.dtype(dtype)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=what)


@pytest.mark.parametrize("dims, mode, pad", sorted({c[:3] for c in CASES}))
def test_kernel_nonfinite_grid_matches_composite(dims, mode, pad):
    rng = np.random.default_rng(12)
    nan, inf = float("nan"), float("inf")
    g = np.array([[[[nan, 0.0], [inf, 0.2], [-inf, 0.1], [1e20, 0.3], [0.3, nan], [-1e20, -1e20]]]])
    x = rng.standard_normal((1, 2, 3, 4))
    if dims == 3:  # the same points with a third coordinate, finite and not
        x = rng.standard_normal((1, 2, 2, 3, 4))
        z = np.array([0.1, nan, -0.4, inf, 0.7, -1e20]).reshape(1, 1, 6, 1)
        g = np.concatenate([g, z], axis=-1)[:, None]
    w = rng.standard_normal((1, 2) + g.shape[1:-1])
    _, ours = _run(_kernel(mode, pad, False), x, g, w)
    _, theirs = _run(_composite(mode, pad, False), x, g, w)
    for a, b in zip(ours[:2], theirs[:2]):  # values and the input's gradient (NaN where PyTorch's are)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_kernel_strided_input_and_grid():
    rng = np.random.default_rng(13)
    x = rng.standard_normal((2, 3, 6, 5))
    g = _grid(rng, (2, 4, 3, 2))
    xt = minitorch.tensor(x.transpose(0, 1, 3, 2).copy()).transpose(2, 3).requires_grad_(True)
    gt = minitorch.tensor(g.transpose(0, 2, 1, 3).copy()).transpose(1, 2).requires_grad_(True)
    assert not xt.is_contiguous() and not gt.is_contiguous()
    for mode in MODES:
        xt.grad = gt.grad = None
        y = F.grid_sample(xt, gt, mode=mode, padding_mode="reflection", align_corners=False)
        (y * y).sum().backward()
        _, ref = _run(_kernel(mode, "reflection", False), x, g, 2 * y.detach().numpy())
        np.testing.assert_array_equal(y.detach().numpy(), ref[0])
        np.testing.assert_array_equal(xt.grad.numpy(), ref[1])
        np.testing.assert_array_equal(gt.grad.numpy(), ref[2])


@pytest.mark.parametrize(
    "xs, gs",
    [((0, 3, 4, 4), (0, 5, 5, 2)), ((2, 0, 4, 4), (2, 5, 5, 2)), ((2, 3, 4, 4), (2, 0, 5, 2))],
)
def test_kernel_empty_gives_zero_gradients(xs, gs):
    x = minitorch.randn(*xs, dtype=minitorch.float64, requires_grad=True)
    g = minitorch.randn(*gs, dtype=minitorch.float64, requires_grad=True)
    y = F.grid_sample(x, g, align_corners=False)
    assert y.shape == (xs[0], xs[1], *gs[1:3])
    y.sum().backward()
    assert x.grad.shape == xs and g.grad.shape == gs
    assert not x.grad.any().item() and not g.grad.any().item()


@pytest.mark.parametrize("channels", (1, 37))
@pytest.mark.parametrize("mode", MODES)
def test_kernel_one_and_many_channels(channels, mode):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((2, channels, 5, 6))
    g = _grid(rng, (2, 4, 7, 2))
    w = rng.standard_normal((2, channels, 4, 7))
    _, ours = _run(_kernel(mode, "zeros", True), x, g, w)
    _, theirs = _run(_composite(mode, "zeros", True), x, g, w)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_kernel_split_over_threads_matches_one_thread():
    rng = np.random.default_rng(15)
    x = rng.standard_normal((4, 8, 40, 40)).astype(np.float32)
    g = _grid(rng, (4, 64, 64, 2), np.float32)
    w = rng.standard_normal((4, 8, 64, 64)).astype(np.float32)
    before = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(1)
        _, one = _run(_kernel("bilinear", "border", False), x, g, w)
        minitorch.set_num_threads(2)
        _, two = _run(_kernel("bilinear", "border", False), x, g, w)
    finally:
        minitorch.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pad", PADDINGS)
def test_kernel_gradcheck_and_double_backward(mode, pad):
    rng = np.random.default_rng(16)
    x = minitorch.tensor(rng.standard_normal((1, 2, 4, 5)), requires_grad=True)
    # points off the pixel lattice and the borders, where the sampling is differentiable
    g = minitorch.tensor(rng.uniform(-0.8, 0.8, (1, 3, 2, 2)) + 0.013, requires_grad=mode != "nearest")
    fn = _kernel(mode, pad, False)
    assert fn(x, g).grad_fn.name() == "GridSampler2DBackward0"
    assert gradcheck(fn, (x, g))
    assert gradgradcheck(fn, (x, g))


def test_kernel_3d_gradcheck_and_double_backward():
    rng = np.random.default_rng(17)
    x = minitorch.tensor(rng.standard_normal((1, 2, 3, 3, 4)), requires_grad=True)
    g = minitorch.tensor(rng.uniform(-0.8, 0.8, (1, 2, 2, 1, 3)) + 0.017, requires_grad=True)
    fn = _kernel("bilinear", "border", True)
    assert fn(x, g).grad_fn.name() == "GridSampler3DBackward0"
    assert gradcheck(fn, (x, g))
    assert gradgradcheck(fn, (x, g))


def test_half_and_forward_ad_take_the_composite():
    x = minitorch.randn(1, 2, 4, 4)
    g = minitorch.rand(1, 3, 3, 2) * 2 - 1
    half = F.grid_sample(x.half().requires_grad_(), g.half(), align_corners=False)
    assert half.grad_fn.name() != "GridSampler2DBackward0"
    import minitorch.autograd.forward_ad as fwAD

    t = minitorch.randn(1, 2, 4, 4)
    with fwAD.dual_level():
        y = F.grid_sample(fwAD.make_dual(x, t), g, align_corners=False)
        tangent = fwAD.unpack_dual(y).tangent
    np.testing.assert_allclose(
        tangent.numpy(), F.grid_sample(t, g, align_corners=False).numpy(), rtol=1e-6, atol=1e-6
    )


# The 2-D and 3-D passes work on blocks of 64 points of a batch entry (the forward's across output rows):
# 3 x 70 and 2 x 3 x 35 points give full blocks, blocks across rows and short tails.
_BLOCK_X = {2: (2, 3, 7, 9), 3: (2, 3, 4, 5, 6)}
_BLOCK_GRID = {2: (2, 3, 70, 2), 3: (2, 2, 3, 35, 3)}


def _block_case(mode, pad, align, dtype, seed, dims=2):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(_BLOCK_X[dims]).astype(dtype)
    g = _grid(rng, _BLOCK_GRID[dims], dtype)
    w = rng.standard_normal((2, 3) + _BLOCK_GRID[dims][1:-1]).astype(dtype)
    return x, g, w


_BLOCK_CASES = [
    (dims, mode, pad, align)
    for dims, mode, pad, align in itertools.product((2, 3), MODES, PADDINGS, (False, True))
    if not (dims == 3 and mode == "bicubic")
]

_PT_ORACLE = """
import json, sys, warnings
import torch
warnings.simplefilter("ignore")
out = []
for c in json.loads(sys.stdin.read()):
    x = torch.tensor(c["x"], dtype=torch.float64, requires_grad=True)
    g = torch.tensor(c["g"], dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.grid_sample(x, g, mode=c["mode"], padding_mode=c["pad"], align_corners=c["align"])
    (y * torch.tensor(c["w"], dtype=torch.float64)).sum().backward()
    gg = g.grad if g.grad is not None else torch.zeros_like(g)
    out.append([y.tolist(), x.grad.tolist(), gg.tolist()])
print(json.dumps(out))
"""


def test_kernel_blocks_match_pytorch():
    """Full blocks and tails of the 2-D and 3-D passes, every mode, padding and align_corners, in float64
    against PyTorch: values, input gradient (the scatter) and grid gradient."""
    cases, mine = [], []
    for k, (dims, mode, pad, align) in enumerate(_BLOCK_CASES):
        x, g, w = _block_case(mode, pad, align, "float64", 30 + k, dims)
        mine.append(_run(_kernel(mode, pad, align), x, g, w)[1])
        cases.append(
            {"x": x.tolist(), "g": g.tolist(), "w": w.tolist(), "mode": mode, "pad": pad, "align": align}
        )
    for case, ours, ref in zip(cases, mine, run_oracle(_PT_ORACLE, cases)):
        for a, b, what in zip(ours, ref, ("values", "input grad", "grid grad")):
            np.testing.assert_allclose(
                a, np.array(b), rtol=1e-10, atol=1e-10, err_msg=f"{case['mode']} {case['pad']} {what}"
            )


@pytest.mark.parametrize("dims, mode, pad, align", _BLOCK_CASES)
def test_kernel_blocks_match_composite_float32(dims, mode, pad, align):
    x, g, w = _block_case(mode, pad, align, "float32", 50, dims)
    _, ours = _run(_kernel(mode, pad, align), x, g, w)
    _, theirs = _run(_composite(mode, pad, align), x, g, w)
    for a, b, what in zip(ours, theirs, ("values", "input grad", "grid grad")):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5, err_msg=what)


_CAPABILITY_SCRIPT = """
import itertools, sys
import numpy as np
import minitorch
import minitorch.nn.functional as F
rng = np.random.default_rng(40)
out = {}
for dims, dtype, mode, pad, align in itertools.product(
    (2, 3), ("float32", "float64"), ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"),
    (False, True)
):
    if dims == 3 and mode == "bicubic":
        continue
    c = 1 if align else 3  # one channel samples in the coordinate pass
    xs, gs = ((2, c, 7, 9), (2, 3, 70, 2)) if dims == 2 else ((2, c, 4, 5, 6), (2, 2, 3, 35, 3))
    x = minitorch.tensor(rng.standard_normal(xs).astype(dtype), requires_grad=True)
    g = rng.uniform(-1.4, 1.4, gs).astype(dtype)
    # on the borders, NaN, far outside, and beyond int32 with a fraction (double), at 1.5 and 2.5 (rounding)
    g.reshape(-1)[:10] = [-1.0, 1.0, 0.0, 0.5, float("nan"), 3e9, 1e9 + 0.37, -7e8 - 0.61, 1.5 / 7 - 1, 5 / 9 - 1]
    g = minitorch.tensor(g, requires_grad=True)
    y = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=align)
    (y * minitorch.tensor(rng.standard_normal(tuple(y.shape)).astype(dtype))).sum().backward()
    key = f"{dims}d_{dtype}_{mode}_{pad}_{align}"
    out[key + "_y"], out[key + "_gx"] = y.detach().numpy(), x.grad.numpy()
    out[key + "_gg"] = g.grad.numpy() if g.grad is not None else np.zeros(1)
np.savez(sys.argv[1], **out)
"""


def test_kernel_capabilities_give_the_same_bits(tmp_path):
    """The 2-D and 3-D passes compiled for the baseline, AVX2 and AVX-512 (MINITORCH_CPU_CAPABILITY, fresh processes):
    values and both gradients bit for bit, NaN and far-outside grid points included."""
    cap = minitorch.backends.cpu.get_cpu_capability()
    if cap == "DEFAULT":
        pytest.skip("this CPU runs the baseline path only")
    caps = ["default", "avx2"] + (["avx512"] if cap == "AVX512" else [])
    out = {}
    for c in caps:
        path = tmp_path / f"{c}.npz"
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=c, OMP_NUM_THREADS="1")
        subprocess.run(
            [sys.executable, "-c", _CAPABILITY_SCRIPT, str(path)], check=True, env=env, timeout=300
        )
        out[c] = np.load(path)
    for c in caps[1:]:
        for k in out["default"].files:
            np.testing.assert_array_equal(out[c][k], out["default"][k], err_msg=f"{c} {k}")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("align", (False, True))
@pytest.mark.parametrize("dtype", ("float64", "float32"))
def test_kernel_reflection_folds_many_times(mode, align, dtype):
    """Reflection's vector fold (remainder and flip count) far outside the image, on exact multiples of the
    span and beside them, as the composite's fmod and floor."""
    rng = np.random.default_rng(60)
    x = rng.standard_normal((1, 2, 5, 6)).astype(dtype)
    g = rng.uniform(-40.0, 40.0, (1, 3, 80, 2))
    g.reshape(-1)[:8] = [9.0, -9.0, 11.0, -13.0, 9.000001, -8.999999, 21.0, 1e5]
    g = g.astype(dtype)
    w = rng.standard_normal((1, 2, 3, 80)).astype(dtype)
    _, ours = _run(_kernel(mode, "reflection", align), x, g, w)
    _, theirs = _run(_composite(mode, "reflection", align), x, g, w)
    tol = 1e-12 if dtype == "float64" else 2e-5
    for a, b, what in zip(ours, theirs, ("values", "input grad", "grid grad")):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=what)


@pytest.mark.parametrize("pad", ("reflection", "border"))
@pytest.mark.parametrize("align", (False, True))
def test_kernel_bicubic_floors_far_double_coordinates(pad, align):
    """Bicubic taps of double coordinates beyond int32 (between 1e9 and 2^52) start at the floor, as
    PyTorch's: the blocked floor once returned such values unfloored, so reflection folded fractional taps."""
    rng = np.random.default_rng(61)
    x = rng.standard_normal((1, 2, 5, 6))
    g = rng.uniform(-1.0, 1.0, (1, 2, 8, 2))
    g[0, 0, :, 0] = [
        5e8 + 0.123,
        -5e8 - 0.377,
        3.3e9 + 0.25,
        7.7e11 + 0.5,
        1e14 + 0.75,
        4e8 + 0.9,
        1.1e9,
        2.5e9,
    ]
    w = rng.standard_normal((1, 2, 2, 8))
    _, ours = _run(_kernel("bicubic", pad, align), x, g, w)
    _, theirs = _run(_composite("bicubic", pad, align), x, g, w)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ("bilinear", "nearest"))
@pytest.mark.parametrize("pad", PADDINGS)
@pytest.mark.parametrize("align", (False, True))
@pytest.mark.parametrize("dtype", ("float64", "float32"))
def test_kernel_one_channel_framed_copy_gives_the_same_bits(mode, pad, align, dtype):
    """One-channel bilinear and nearest sampling of many points reads a zero-framed copy of the image (no tap
    masks); of a few points (fewer than the copy's size), the image itself with masks. The same points give the
    same bits either way: on the borders, just outside, far outside, NaN, and the reflection folds."""
    rng = np.random.default_rng(60)
    x = minitorch.tensor(rng.standard_normal((2, 1, 9, 11)).astype(dtype))
    g = rng.uniform(-1.6, 1.6, (2, 30, 31, 2)).astype(dtype)
    g.reshape(-1)[:12] = [-1.0, 1.0, 0.0, float("nan"), 1.09, -1.09, 1e9, -3e7, 1.2, -1.11, 7.5, -0.999]
    kw = {"mode": mode, "padding_mode": pad, "align_corners": align}
    many = F.grid_sample(x, minitorch.tensor(g), **kw).numpy()
    few = F.grid_sample(x, minitorch.tensor(g[:, :1, :4].copy()), **kw).numpy()
    few_end = F.grid_sample(x, minitorch.tensor(g[:, -1:, -4:].copy()), **kw).numpy()
    np.testing.assert_array_equal(many[:, :, :1, :4], few)
    np.testing.assert_array_equal(many[:, :, -1:, -4:], few_end)
    # bilinear: a NaN coordinate meets NaN weights with zeros padding (border and reflection clip it to 0 first);
    # nearest reads a zero there
    assert np.isnan(many[0, 0, 0, 1]) == (pad == "zeros" and mode == "bilinear") and not np.isnan(many).all()
