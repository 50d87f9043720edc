"""nn ops in minitorch._C._nn (linear, batch/layer/group norm, embedding, dropout) against float64 NumPy
references: values per dtype and layout, running statistics, gradients (gradcheck in float64), dropout's
statistics and mask, empty inputs and PyTorch's error messages, on every device present."""

import warnings

import numpy as np
import pytest
from utils import (
    FLOAT_DTYPES,
    TOL,
    assert_matches,
    cases_here_and_in_pytorch,
    make_array,
    rerun_in_child,
    to_np,
)

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch._C._nn


def rng_for(seed=0):
    return np.random.default_rng(seed)


def T(arr, dtype=minitorch.float64, device="cpu", requires_grad=False):
    t = minitorch.tensor(np.asarray(arr), dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def transposed(arr, dtype, device):
    """The same values as a non-contiguous (transposed) view."""
    return minitorch.tensor(np.ascontiguousarray(np.asarray(arr).T), dtype=dtype, device=device).T


# ---------------------------------------------------------------- linear


def np_linear(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(100, 3), (2, 5, 3), (3,), (0, 3)])
@pytest.mark.parametrize("use_bias", [True, False])
def test_linear_values(device, dtype, shape, use_bias):
    rng = rng_for(1)
    x = make_array(shape, dtype, rng, -1, 1)
    w = make_array((10, 3), dtype, rng, -1, 1)
    b = make_array((10,), dtype, rng, -1, 1) if use_bias else None
    y = F.linear(T(x, dtype, device), T(w, dtype, device), T(b, dtype, device) if use_bias else None)
    assert y.dtype == dtype and y.shape == tuple(shape[:-1]) + (10,)
    assert_matches(y, np_linear(x, w, b))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_linear_non_contiguous(device, dtype):
    rng = rng_for(2)
    x = make_array((7, 4), dtype, rng)
    w = make_array((5, 4), dtype, rng)
    b = make_array((5,), dtype, rng)
    # transposed input and transposed weight views, and a strided bias
    bb = minitorch.tensor(np.repeat(b, 2), dtype=dtype, device=device)[::2]
    y = F.linear(transposed(x, dtype, device), transposed(w, dtype, device), bb)
    assert_matches(y, np_linear(x, w, b))
    # a 3-D input whose leading dims cannot be viewed as rows (permuted)
    x3 = make_array((3, 2, 4), dtype, rng)
    t3 = minitorch.tensor(np.ascontiguousarray(x3.transpose(1, 0, 2)), dtype=dtype, device=device).permute(
        1, 0, 2
    )
    assert_matches(F.linear(t3, T(w, dtype, device)), np_linear(x3, w))


def test_linear_zero_in_features(device):
    b = np.array([1.0, 2.0])
    y = F.linear(
        minitorch.zeros(3, 0, device=device),
        minitorch.zeros(2, 0, device=device),
        T(b, minitorch.float32, device),
    )
    assert_matches(y, np.tile(b, (3, 1)))
    assert_matches(
        F.linear(minitorch.zeros(3, 0, device=device), minitorch.zeros(2, 0, device=device)), np.zeros((3, 2))
    )


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 3), (3,)])
@pytest.mark.parametrize("use_bias", [True, False])
def test_linear_gradcheck(device, shape, use_bias):
    rng = rng_for(3)
    x = T(rng.standard_normal(shape), device=device, requires_grad=True)
    w = T(rng.standard_normal((5, 3)), device=device, requires_grad=True)
    inputs = [x, w]
    if use_bias:
        inputs.append(T(rng.standard_normal(5), device=device, requires_grad=True))
    assert gradcheck(lambda *a: F.linear(*a), inputs)
    assert gradgradcheck(lambda *a: F.linear(*a), inputs)


def test_linear_one_node(device):
    x = minitorch.randn(4, 3, device=device, requires_grad=True)
    w = minitorch.randn(2, 3, device=device, requires_grad=True)
    b = minitorch.randn(2, device=device, requires_grad=True)
    y = F.linear(x, w, b)
    assert y.grad_fn.name() == "LinearBackward0"
    y.sum().backward()
    assert_matches(b.grad, np.full(2, 4.0))
    assert_matches(x.grad, np.tile(to_np(w).sum(0), (4, 1)), rtol=1e-5, atol=1e-5)
    assert_matches(w.grad, np.tile(to_np(x).sum(0), (2, 1)), rtol=1e-5, atol=1e-5)


def test_linear_errors(device):
    x = minitorch.randn(100, 3, device=device)
    with pytest.raises(
        RuntimeError, match=r"^mm: mat1 and mat2 shapes cannot be multiplied \(100x3 and 4x10\)$"
    ):
        F.linear(x, minitorch.randn(10, 4, device=device))
    with pytest.raises(
        RuntimeError, match="mat1 and mat2 must have the same dtype, but got Float and Double"
    ):
        F.linear(x, minitorch.randn(10, 3, dtype=minitorch.float64, device=device))
    with pytest.raises(RuntimeError, match="both arguments to linear need to be at least 1D"):
        F.linear(minitorch.tensor(1.0, device=device), minitorch.randn(1, 1, device=device))


# ---------------------------------------------------------------- layer_norm


def np_layer_norm(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("ns", [[5], (5,), (4, 5)])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_values(device, dtype, ns, affine):
    rng = rng_for(4)
    x = make_array((3, 4, 5), dtype, rng, -1.0, 5.0)  # an offset mean: the variance must not lose it
    shape = tuple(ns)
    w = make_array(shape, dtype, rng) if affine else None
    b = make_array(shape, dtype, rng) if affine else None
    y = F.layer_norm(
        T(x, dtype, device),
        ns,
        T(w, dtype, device) if affine else None,
        T(b, dtype, device) if affine else None,
    )
    assert y.dtype == dtype
    rtol, atol = TOL[dtype]
    assert_matches(y, np_layer_norm(x, len(shape), w, b), rtol=rtol * 4, atol=atol * 4)


def test_layer_norm_non_contiguous_and_eps(device):
    rng = rng_for(5)
    x = rng.standard_normal((6, 8))
    y = F.layer_norm(transposed(x, minitorch.float64, device), (8,), eps=0.5)
    assert_matches(y, np_layer_norm(x, 1, eps=0.5))


def test_layer_norm_empty(device):
    y = F.layer_norm(minitorch.zeros(0, 5, device=device), (5,))
    assert y.shape == (0, 5)


@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_gradcheck(device, affine):
    rng = rng_for(6)
    x = T(rng.standard_normal((3, 2, 4)), device=device, requires_grad=True)
    inputs = [x]
    if affine:
        inputs += [T(rng.standard_normal((2, 4)), device=device, requires_grad=True) for _ in range(2)]
        fn = lambda x, w, b: F.layer_norm(x, (2, 4), w, b)
    else:
        fn = lambda x: F.layer_norm(x, (2, 4))
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("n", [37, 1024])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_float32_backward_matches_float64(device, n, affine):
    """The float32 rows (a separate AVX2 path on the CPU): forward, dx, dw and db against the float64 result,
    whose gradients gradcheck covers; a row length that is not a multiple of the vector width too."""
    rng = rng_for(7)
    x64 = rng.standard_normal((5, n)) * 3 + 1
    g64 = rng.standard_normal((5, n))
    w64, b64 = rng.standard_normal(n), rng.standard_normal(n)
    res = {}
    for dt in (minitorch.float32, minitorch.float64):
        x = T(x64, dtype=dt, device=device, requires_grad=True)
        w = T(w64, dtype=dt, device=device, requires_grad=True) if affine else None
        b = T(b64, dtype=dt, device=device, requires_grad=True) if affine else None
        y = F.layer_norm(x, (n,), w, b)
        y.backward(T(g64, dtype=dt, device=device))
        res[dt] = [to_np(y), to_np(x.grad)] + ([to_np(w.grad), to_np(b.grad)] if affine else [])
    for got, exp in zip(res[minitorch.float32], res[minitorch.float64]):
        np.testing.assert_allclose(got, exp, rtol=1e-4, atol=1e-4 * np.abs(exp).max())


@pytest.mark.parametrize("n", [31, 2048 + 37, 5000])
@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_layer_norm_float32_rows_statistics(device, n, offset):
    """The float32 rows sum in float lanes flushed to double and correct the mean with a deviation pass: mean,
    rstd (from the saved statistics through the output) and all gradients stay near float64, also for rows
    longer than one flush block and for data whose mean dwarfs its spread."""
    rng = rng_for(8)
    x64 = rng.standard_normal((4, n)) + offset
    x32 = x64.astype(np.float32)
    w64, b64, g64 = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal((4, n))
    x = T(x32, minitorch.float32, device, requires_grad=True)
    w = T(w64, minitorch.float32, device, requires_grad=True)
    b = T(b64, minitorch.float32, device, requires_grad=True)
    y = F.layer_norm(x, (n,), w, b)
    y.backward(T(g64, minitorch.float32, device))
    ref = T(x32.astype(np.float64), requires_grad=True)
    wr, br = (
        T(w64.astype(np.float32).astype(np.float64), requires_grad=True),
        T(b64.astype(np.float32).astype(np.float64), requires_grad=True),
    )
    yr = F.layer_norm(ref, (n,), wr, br)
    yr.backward(T(g64.astype(np.float32).astype(np.float64)))
    np.testing.assert_allclose(
        to_np(y),
        np_layer_norm(x32.astype(np.float64), 1, w64.astype(np.float32), b64.astype(np.float32)),
        rtol=1e-4,
        atol=1e-4 + offset * 2.0**-23,  # y = (x - mean) * rstd in float: the mean's rounding in float32
    )
    for got, exp in ((x.grad, ref.grad), (w.grad, wr.grad), (b.grad, br.grad)):
        e = to_np(exp)
        np.testing.assert_allclose(to_np(got), e, rtol=1e-4, atol=2e-4 * np.abs(e).max())


def test_layer_norm_float32_row_lengths(device):
    """The float32 rows' statistics take a row's last values (fewer than 32) as one more lane step, the last
    rem < 8 of them masked from the row's final 8 (element by element below 8 values), and run two rows at
    a time: every row length 1..70 over an odd row count, mean and rstd (through the saved statistics) and
    the output against float64 NumPy, with a mean that dwarfs the spread in one row."""
    rng = rng_for(9)
    for n in range(1, 71):
        x64 = rng.standard_normal((5, n)) * 2 + 0.5
        x64[3] += 300.0
        x32 = x64.astype(np.float32)
        y, mean, rstd = minitorch.native_layer_norm(T(x32, minitorch.float32, device), (n,), None, None, 1e-5)
        ref = x32.astype(np.float64)
        np.testing.assert_allclose(to_np(mean).ravel(), ref.mean(1), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(to_np(rstd).ravel(), 1 / np.sqrt(ref.var(1) + 1e-5), rtol=1e-5)
        np.testing.assert_allclose(to_np(y), np_layer_norm(ref, 1), rtol=1e-4, atol=1e-4)


def _hard_float32_rows(rng, n):
    """Rows whose statistics cancel badly in float: a mean of 1e4 over spreads of 1e-2 and 1, a ramp (the
    pivot of eight spread samples far from nothing, but every sample a deviation), a constant row, one
    outlier among the pivot's samples, a 1e4 ramp, and plain rows."""
    rows = [
        rng.standard_normal(n) * 1e-2 + 1e4,
        rng.standard_normal(n) + 1e4,
        np.linspace(-3.0, 5.0, n),
        np.full(n, 1.1),
        rng.standard_normal(n),
        np.linspace(0.0, 1.0, n) + 1e4,
        rng.standard_normal(n) * 3 - 7,
    ]
    out = rng.standard_normal(n)
    out[0] = 50.0  # the first of the pivot's samples
    rows.append(out)
    return np.stack(rows).astype(np.float32)


@pytest.mark.parametrize("n", [5, 8, 64, 121, 768, 4099])
def test_layer_norm_float32_statistics_large_mean(device, n):
    """The float32 row statistics in one pass of deviations from a pivot (with a second pass around the float
    mean where the pivot fell far from it), layer_norm's and group_norm's, against float64 statistics of the
    same float32 values, for rows whose mean is 1e4 and spread 1e-2 or 1, ramps, a constant row, an outlier at
    the pivot's first sample. The kernel's statistics show in y = (x - mean) * rstd (eps negligible): std(y)
    is rstd times the exact spread (x - mean is exact in float near the mean, one rounding per product), and
    mean(y) is the mean's error in units of the spread, at most its float rounding."""
    x32 = _hard_float32_rows(rng_for(12), n)
    ref = x32.astype(np.float64)
    m, v = ref.mean(1), ref.var(1)
    rs = 1 / np.sqrt(v + 1e-12)
    xg = x32.reshape(4, 4, n // 2) if n % 2 == 0 else x32.reshape(8, 1, n)
    groups = 2 if n % 2 == 0 else 1
    for y in (
        F.layer_norm(T(x32, minitorch.float32, device), (n,), None, None, 1e-12),
        F.group_norm(T(xg, minitorch.float32, device), groups, None, None, 1e-12),
    ):
        y = to_np(y).reshape(x32.shape).astype(np.float64)
        assert (y[3] == 0).all()  # the constant row: its pivot is its value
        rows = [0, 1, 2, 4, 5, 6, 7]
        np.testing.assert_allclose(y[rows].std(1), (np.sqrt(v) * rs)[rows], rtol=1e-6)
        assert np.all(np.abs(y[rows].mean(1)) <= (2.0**-23 * np.abs(m) * rs + 1e-6)[rows])


def test_layer_norm_float32_baseline_rows():
    """MINITORCH_CPU_CAPABILITY=default forces the baseline (SSE2) build of the float32 rows, which the AVX2
    machines never run otherwise: the layer_norm tests again in a fresh process."""
    rerun_in_child(__file__, "layer_norm and not baseline_rows", MINITORCH_CPU_CAPABILITY="default")


def test_layer_norm_errors(device):
    x = minitorch.randn(2, 4, device=device)
    with pytest.raises(
        RuntimeError,
        match=r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\], but got input of size\[2, 4\]",
    ):
        F.layer_norm(x, (5,))
    with pytest.raises(RuntimeError, match=r"Expected weight to be of same shape as normalized_shape"):
        F.layer_norm(x, (4,), minitorch.ones(3, device=device))
    # PyTorch's parser takes normalized_shape as a list or tuple only (nn.LayerNorm(5) makes the tuple)
    with pytest.raises(TypeError, match=r"argument 'normalized_shape' \(position 2\) must be tuple of ints"):
        F.layer_norm(x, 4)
    assert minitorch.nn.LayerNorm(4).to(device)(x).shape == (2, 4)


# ---------------------------------------------------------------- group_norm


def np_group_norm(x, g, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    x3 = x.reshape(n, g, -1)
    y = ((x3 - x3.mean(2, keepdims=True)) / np.sqrt(x3.var(2, keepdims=True) + eps)).reshape(x.shape)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(bshape)
    if b is not None:
        y = y + b.reshape(bshape)
    return y


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 3), ((3, 4, 2, 3), 2), ((2, 4), 4), ((2, 6, 5), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_values(device, dtype, shape, groups, affine):
    rng = rng_for(7)
    x = make_array(shape, dtype, rng)
    w = make_array((shape[1],), dtype, rng) if affine else None
    b = make_array((shape[1],), dtype, rng) if affine else None
    y = F.group_norm(
        T(x, dtype, device),
        groups,
        T(w, dtype, device) if affine else None,
        T(b, dtype, device) if affine else None,
    )
    rtol, atol = TOL[dtype]
    assert_matches(y, np_group_norm(x, groups, w, b), rtol=rtol * 4, atol=atol * 4)


def test_group_norm_gradcheck(device):
    rng = rng_for(8)
    inputs = [
        T(rng.standard_normal((2, 4, 3)), device=device, requires_grad=True),
        T(rng.standard_normal(4), device=device, requires_grad=True),
        T(rng.standard_normal(4), device=device, requires_grad=True),
    ]
    fn = lambda x, w, b: F.group_norm(x, 2, w, b)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
    assert gradcheck(lambda x: F.group_norm(x, 2), inputs[:1])


@pytest.mark.parametrize("shape", [(3, 6, 5, 4), (4, 6)], ids=str)
def test_group_norm_backward_float32_and_layouts(device, shape):
    """The fused backward (layer_norm's rows for the input, per-channel sums for weight and bias) in float32 and
    on a non-contiguous input, against float64 gradients; gradcheck covers the float64 ones above."""
    rng = rng_for(9)
    x = rng.standard_normal(shape) * 3 + 1
    w, b, g = rng.standard_normal(6), rng.standard_normal(6), rng.standard_normal(shape)

    def grads(dtype, transposed):
        xt = T(x, dtype, device)
        if transposed:  # the same values through a transposed-and-back view
            xt = xt.transpose(0, -1).contiguous().transpose(0, -1)
            assert not xt.is_contiguous()
        xt.requires_grad_()
        wt, bt = T(w, dtype, device, True), T(b, dtype, device, True)
        F.group_norm(xt, 3, wt, bt).backward(T(g, dtype, device))
        xn = T(x, dtype, device, True)
        F.group_norm(xn, 2).backward(T(g, dtype, device))
        return [to_np(t.grad) for t in (xt, wt, bt, xn)]

    want = grads(minitorch.float64, False)
    for got in (grads(minitorch.float32, True), grads(minitorch.float64, True)):
        for a, e in zip(got, want):
            np.testing.assert_allclose(a, e, rtol=2e-4, atol=2e-4)


def test_group_norm_errors(device):
    with pytest.raises(
        RuntimeError,
        match=r"Expected number of channels in input to be divisible by num_groups, but got input of shape "
        r"\[2, 4, 5\] and num_groups=3",
    ):
        F.group_norm(minitorch.randn(2, 4, 5, device=device), 3)
    with pytest.raises(
        RuntimeError, match="Expected weight to be a vector of size equal to the number of channels"
    ):
        F.group_norm(minitorch.randn(2, 4, device=device), 2, minitorch.ones(3, device=device))


# ---------------------------------------------------------------- batch_norm


def np_batch_norm_train(x, w, b, rm, rv, momentum, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    bshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    m = x.mean(axis=axes)
    v = x.var(axis=axes)
    n = x.size // x.shape[1]
    y = (x - m.reshape(bshape)) / np.sqrt(v.reshape(bshape) + eps)
    if w is not None:
        y = y * w.reshape(bshape) + b.reshape(bshape)
    new_rm = (1 - momentum) * rm + momentum * m
    new_rv = (1 - momentum) * rv + momentum * v * n / (n - 1)
    return y, new_rm, new_rv


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batch_norm_train_values_and_running_stats(device, dtype, shape):
    rng = rng_for(9)
    x = make_array(shape, dtype, rng, -1.5, 4.5)  # an offset mean: the variance must not lose it
    w, b = make_array((3,), dtype, rng), make_array((3,), dtype, rng)
    rm0, rv0 = rng.uniform(-1, 1, 3), rng.uniform(0.5, 2, 3)
    rm, rv = T(rm0, minitorch.float32, device), T(rv0, minitorch.float32, device)
    y = F.batch_norm(T(x, dtype, device), T(w, dtype, device), T(b, dtype, device), rm, rv, True, 0.1, 1e-5)
    ey, erm, erv = np_batch_norm_train(x, w, b, rm0, rv0, 0.1, 1e-5)
    rtol, atol = TOL[dtype]
    assert_matches(y, ey, rtol=rtol * 4, atol=atol * 4)
    # running statistics stay float32 and follow PyTorch's rule (unbiased variance) exactly
    assert_matches(rm, erm, rtol=1e-5, atol=1e-6)
    assert_matches(rv, erv, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("shape", [(8, 16, 32, 32), (32, 4, 28, 28)])
def test_batch_norm_many_elements_per_channel(device, dtype, shape):
    """Channels of 8K-25K elements: on CUDA each channel's statistics and backward sums are split over several
    blocks and folded (Chan's update); values, running stats and gradients against float64 NumPy."""
    rng = rng_for(17)
    x = rng.standard_normal(shape) * 2 + 3  # an offset mean
    c = shape[1]
    w, b, g = rng.standard_normal(c), rng.standard_normal(c), rng.standard_normal(shape)
    rm0, rv0 = np.zeros(c), np.ones(c)
    rm, rv = T(rm0, minitorch.float32, device), T(rv0, minitorch.float32, device)
    xt = T(x, dtype, device, requires_grad=True)
    wt, bt = T(w, dtype, device, requires_grad=True), T(b, dtype, device, requires_grad=True)
    y = F.batch_norm(xt, wt, bt, rm, rv, True, 0.1, 1e-5)
    ey, erm, erv = np_batch_norm_train(x, w, b, rm0, rv0, 0.1, 1e-5)
    tol = 1e-4 if dtype == minitorch.float32 else 1e-10
    assert_matches(y, ey, rtol=tol, atol=tol)
    assert_matches(rm, erm, rtol=1e-5, atol=1e-6)
    assert_matches(rv, erv, rtol=1e-5, atol=1e-6)
    y.backward(T(g, dtype, device))
    axes = (0, 2, 3)
    n = x.size // c
    m, v = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    xhat = (x - m) / np.sqrt(v + 1e-5)
    wb = w.reshape(1, c, 1, 1)
    gx = (
        wb
        / np.sqrt(v + 1e-5)
        / n
        * (n * g - g.sum(axis=axes, keepdims=True) - xhat * (g * xhat).sum(axis=axes, keepdims=True))
    )
    assert_matches(xt.grad, gx, rtol=tol * 10, atol=tol * 10)
    assert_matches(wt.grad, (g * xhat).sum(axis=axes), rtol=tol * 10, atol=tol * 10)
    assert_matches(bt.grad, g.sum(axis=axes), rtol=tol * 10, atol=tol * 10)


def test_batch_norm_no_running_stats_no_affine(device):
    rng = rng_for(10)
    x = rng.standard_normal((5, 2, 3))
    y = F.batch_norm(T(x, device=device), None, None, None, None, True, 0.1, 1e-5)
    ey, _, _ = np_batch_norm_train(x, None, None, np.zeros(2), np.ones(2), 0.1, 1e-5)
    assert_matches(y, ey)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_batch_norm_eval(device, dtype):
    rng = rng_for(11)
    x = make_array((4, 3, 2), dtype, rng)
    w, b = make_array((3,), dtype, rng), make_array((3,), dtype, rng)
    rm0, rv0 = rng.uniform(-1, 1, 3), rng.uniform(0.5, 2, 3)
    rm, rv = T(rm0, minitorch.float32, device), T(rv0, minitorch.float32, device)
    y = F.batch_norm(T(x, dtype, device), T(w, dtype, device), T(b, dtype, device), rm, rv, False, 0.1, 1e-3)
    bshape = (1, 3, 1)
    rm32, rv32 = rm0.astype(np.float32).astype(np.float64), rv0.astype(np.float32).astype(np.float64)
    ey = (x - rm32.reshape(bshape)) / np.sqrt(rv32.reshape(bshape) + 1e-3) * w.reshape(bshape) + b.reshape(
        bshape
    )
    rtol, atol = TOL[dtype]
    assert_matches(y, ey, rtol=rtol * 4, atol=atol * 4)
    assert_matches(rm, rm32)  # untouched in eval
    assert_matches(rv, rv32)


def test_batch_norm_non_contiguous(device):
    rng = rng_for(12)
    x = rng.standard_normal((3, 6))  # (C, N) stored, viewed as (N, C)
    y = F.batch_norm(transposed(x.T, minitorch.float64, device), None, None, None, None, True, 0.1, 1e-5)
    ey, _, _ = np_batch_norm_train(x.T, None, None, np.zeros(3), np.ones(3), 0.1, 1e-5)
    assert_matches(y, ey)


def test_batch_norm_empty_batch(device):
    rm = minitorch.zeros(3, device=device)
    y = F.batch_norm(
        minitorch.zeros(0, 3, device=device),
        None,
        None,
        rm,
        minitorch.ones(3, device=device),
        True,
        0.1,
        1e-5,
    )
    assert y.shape == (0, 3)
    assert_matches(rm, np.zeros(3))


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 4)])
def test_batch_norm_gradcheck(device, training, shape):
    rng = rng_for(13)
    c = shape[1]
    inputs = [
        T(rng.standard_normal(shape), device=device, requires_grad=True),
        T(rng.standard_normal(c), device=device, requires_grad=True),
        T(rng.standard_normal(c), device=device, requires_grad=True),
    ]
    rm, rv = T(rng.standard_normal(c), device=device), T(rng.uniform(0.5, 2, c), device=device)

    def fn(x, w, b):
        # running stats cloned per call: gradcheck evaluates many times and the update must not feed back
        return F.batch_norm(x, w, b, rm.clone(), rv.clone(), training, 0.1, 1e-5)

    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_batch_norm_errors(device):
    with pytest.raises(
        ValueError, match=r"Expected more than 1 value per channel when training, got input size \[1, 4\]"
    ):
        F.batch_norm(minitorch.randn(1, 4, device=device), None, None, None, None, True, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        F.batch_norm(
            minitorch.randn(2, 4, device=device),
            None,
            None,
            minitorch.zeros(3, device=device),
            minitorch.ones(4, device=device),
            True,
            0.1,
            1e-5,
        )
    # eval with one value per channel is fine
    F.batch_norm(
        minitorch.randn(1, 4, device=device),
        None,
        None,
        minitorch.zeros(4, device=device),
        minitorch.ones(4, device=device),
        False,
        0.1,
        1e-5,
    )


# ---------------------------------------------------------------- embedding


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("idx_dtype", [minitorch.int64, minitorch.int32])
def test_embedding_values(device, dtype, idx_dtype):
    rng = rng_for(14)
    w = make_array((10, 3), dtype, rng)
    idx = np.array([[1, 2, 9], [0, 2, 2]])
    y = F.embedding(T(w, dtype, device), T(idx, idx_dtype, device))
    assert y.dtype == dtype and y.shape == (2, 3, 3)
    assert_matches(y, w[idx])
    # non-contiguous indices, empty indices
    it = T(idx, idx_dtype, device).T
    assert_matches(F.embedding(T(w, dtype, device), it), w[idx.T])
    assert F.embedding(T(w, dtype, device), minitorch.zeros(0, dtype=idx_dtype, device=device)).shape == (
        0,
        3,
    )


def test_embedding_gradcheck(device):
    rng = rng_for(15)
    w = T(rng.standard_normal((6, 4)), device=device, requires_grad=True)
    idx = T(np.array([[0, 2, 2], [5, 0, 2]]), minitorch.int64, device)
    # padding_idx and scale_grad_by_freq change the gradient on purpose (not the true derivative): checked
    # against their own rule below
    assert gradcheck(lambda w: F.embedding(w, idx), [w])
    assert gradgradcheck(lambda w: F.embedding(w, idx), [w])


def test_embedding_grad_accumulates_and_padding(device):
    w = minitorch.randn(5, 2, dtype=minitorch.float64, device=device, requires_grad=True)
    idx = T(np.array([1, 1, 3, 1, 0]), minitorch.int64, device)
    g = np.arange(10.0).reshape(5, 2)
    F.embedding(w, idx, 3).backward(T(g, device=device))
    expect = np.zeros((5, 2))
    for k, i in enumerate([1, 1, 3, 1, 0]):
        if i != 3:
            expect[i] += g[k]
    assert_matches(w.grad, expect)
    w.grad = None
    F.embedding(w, idx, -1, True).backward(T(g, device=device))
    counts = np.bincount([1, 1, 3, 1, 0], minlength=5)
    expect = np.zeros((5, 2))
    for k, i in enumerate([1, 1, 3, 1, 0]):
        expect[i] += g[k] / counts[i]
    assert_matches(w.grad, expect)


def test_embedding_errors(device):
    w = minitorch.randn(4, 2, device=device)
    with pytest.raises(
        RuntimeError,
        match="Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int",
    ):
        F.embedding(w, minitorch.tensor([1.0], device=device))
    if device == "cpu":
        with pytest.raises(IndexError, match="index out of range in self"):
            F.embedding(w, minitorch.tensor([4]))
        with pytest.raises(IndexError, match="index out of range in self"):
            F.embedding(w, minitorch.tensor([-1]))
        return
    # CUDA: a device-side assert, as PyTorch's; it leaves the process's CUDA context unusable, so in a child
    import subprocess
    import sys

    code = (
        "import minitorch as torch\n"
        "w = torch.randn(4, 2, device='cuda')\n"
        "try:\n"
        "    torch.nn.functional.embedding(torch.tensor([4], device='cuda'), w)\n"
        "    torch.cuda.synchronize()\n"
        "except RuntimeError as e:\n"
        "    print('raised:', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    out = r.stdout + r.stderr
    assert "raised: CUDA error: device-side assert triggered" in out, out
    assert "index out of range in self" in out and "CUDA_LAUNCH_BLOCKING=1" in out, out


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_renorm(device, norm_type):
    rng = rng_for(16)
    w0 = rng.standard_normal((6, 3)) * 2
    w = T(w0, device=device)
    idx = np.array([0, 2, 2, 5])
    F.embedding_renorm_(w, T(idx, minitorch.int64, device), 1.0, norm_type)
    expect = w0.copy()
    for i in set(idx.tolist()):
        nrm = np.linalg.norm(w0[i], ord=norm_type)
        if nrm > 1.0:
            expect[i] = w0[i] * (1.0 / (nrm + 1e-7))
    assert_matches(w, expect)


# ---------------------------------------------------------------- dropout


def test_dropout_identity_cases(device):
    x = minitorch.randn(5, 4, device=device)
    assert F.dropout(x, 0.5, False) is x
    assert F.dropout(x, 0.0, True) is x
    z = F.dropout(x, 1.0, True)
    assert_matches(z, np.zeros((5, 4)))
    assert F.feature_dropout(x, 0.5, False) is x
    assert F.alpha_dropout(x, 0.5, False) is x


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_statistics(device, dtype, p):
    n = 200_000
    x = minitorch.full((n,), 1.25, dtype=dtype, device=device)
    y = to_np(F.dropout(x, p, True))
    dropped = np.mean(y == 0)
    assert abs(dropped - p) < 5 * np.sqrt(p * (1 - p) / n)
    kept = y[y != 0]
    # every kept value is exactly x * (1 / (1 - p)) in the dtype's opmath, rounded once (PyTorch's formula)
    expect = to_np(minitorch.full((1,), 1.25, dtype=dtype) * (1 / (1 - p)))[0]
    assert np.all(kept == expect)


def test_dropout_backward_uses_mask(device):
    x = minitorch.randn(1000, dtype=minitorch.float64, device=device, requires_grad=True)
    y = F.dropout(x, 0.3, True)
    g = np.random.default_rng(0).standard_normal(1000)
    y.backward(T(g, device=device))
    keep = to_np(y) != 0
    assert_matches(x.grad, np.where(keep, g / 0.7, 0.0))
    assert_matches(y, np.where(keep, to_np(x) / 0.7, 0.0))


def test_dropout_non_contiguous_and_seed(device):
    x = minitorch.ones(64, 32, device=device).T
    minitorch.manual_seed(7)
    a = to_np(F.dropout(x, 0.5, True))
    minitorch.manual_seed(7)
    b = to_np(F.dropout(x, 0.5, True))
    assert a.shape == (32, 64)
    np.testing.assert_array_equal(a, b)
    c = to_np(F.dropout(x, 0.5, True))
    assert not np.array_equal(a, c)


def test_feature_dropout(device):
    x = minitorch.ones(50, 40, 3, 3, device=device)
    y = to_np(F.feature_dropout(x, 0.5, True))
    per_channel = y.reshape(50, 40, 9)
    assert np.all(per_channel.max(2) == per_channel.min(2))  # one draw per (N, C) channel
    assert set(np.unique(y).tolist()) <= {0.0, 2.0}
    assert abs(np.mean(y == 0) - 0.5) < 0.05


def test_alpha_dropout_keeps_moments(device):
    x = minitorch.randn(400_000, device=device)
    y = to_np(F.alpha_dropout(x, 0.3, True))
    assert abs(y.mean()) < 0.02
    assert abs(y.std() - 1) < 0.02


def test_dropout_errors(device):
    x = minitorch.randn(3, device=device)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5, True)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        F.feature_dropout(x.reshape(1, 3), -0.1, False)
    # the torch.* spellings are ATen's: RuntimeError, the number printed as C++ does
    for fn in (
        minitorch.dropout,
        minitorch.alpha_dropout,
        minitorch.feature_alpha_dropout,
        minitorch.dropout_,
    ):
        with pytest.raises(RuntimeError, match=r"dropout probability has to be between 0 and 1, but got 2$"):
            fn(x.reshape(1, 3).clone(), 2.0, True)
    with pytest.raises(RuntimeError, match=r"but got -1$"):
        minitorch.feature_dropout(x.reshape(1, 3), -1.0, False)


@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_parser_before_nan_check(inplace):
    # PyTorch's order: F's range check (a NaN passes it), the ATen parser (train a bool), then the kernel's NaN
    # check; dropout1d/2d/3d hand train to feature_dropout
    nan, x, NF = float("nan"), minitorch.ones(2, 3, 4), minitorch.nn.functional
    tail = "_" if inplace else ""
    for f, aten in (
        (NF.dropout, "dropout"),
        (NF.alpha_dropout, "alpha_dropout"),
        (NF.feature_alpha_dropout, "feature_alpha_dropout"),
        (NF.dropout1d, "feature_dropout"),
        (NF.dropout2d, "feature_dropout"),
        (NF.dropout3d, "feature_dropout"),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # dropout3d's deprecated rank
            for train, kind in ((None, "NoneType"), (1, "int"), ("a", "str")):
                with pytest.raises(TypeError) as e:
                    f(x.clone(), nan, train, inplace)
                assert (
                    str(e.value) == f"{aten}{tail}(): argument 'train' (position 3) must be bool, not {kind}"
                )
            for train in (True, False):
                with pytest.raises(RuntimeError) as e:
                    f(x.clone(), nan, train, inplace)
                assert str(e.value) == "dropout probability has to be between 0 and 1, but got nan"
            with pytest.raises(TypeError) as e:  # p's kind before train's
                f(x.clone(), minitorch.tensor([nan]), None, inplace)
            assert str(e.value) == f"{aten}{tail}(): argument 'p' (position 2) must be float, not Tensor"
            with pytest.raises(ValueError) as e:  # the range first
                f(x.clone(), 2.0, None, inplace)
            assert str(e.value) == "dropout probability has to be between 0 and 1, but got 2.0"


# ---------------------------------------------------------------- fused backward passes per dtype


def np_norm_grads(x, w, g, axes, eps):
    """(dx, dw, db) of y = xhat * w + b normalized over `axes`, w broadcast against x."""
    m = x.mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    xhat = (x - m) * rstd
    gw = g * w
    dx = rstd * (gw - gw.mean(axis=axes, keepdims=True) - xhat * (gw * xhat).mean(axis=axes, keepdims=True))
    return dx, xhat


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_layer_norm_backward_values(device, dtype):
    rng = rng_for(20)
    x, w, b = make_array((6, 10), dtype, rng), make_array((10,), dtype, rng), make_array((10,), dtype, rng)
    g = make_array((6, 10), dtype, rng)
    xt, wt, bt = (T(a, dtype, device, requires_grad=True) for a in (x, w, b))
    F.layer_norm(xt, (10,), wt, bt).backward(T(g, dtype, device))
    dx, xhat = np_norm_grads(x, w, g, (1,), 1e-5)
    rtol, atol = TOL[dtype]
    assert_matches(xt.grad, dx, rtol=rtol * 10, atol=atol * 10)
    assert_matches(wt.grad, (g * xhat).sum(0), rtol=rtol * 10, atol=atol * 10)
    assert_matches(bt.grad, g.sum(0), rtol=rtol * 10, atol=atol * 10)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_backward_values(device, dtype, training):
    rng = rng_for(21)
    x, g = make_array((5, 3, 4), dtype, rng), make_array((5, 3, 4), dtype, rng)
    w, b = make_array((3,), dtype, rng), make_array((3,), dtype, rng)
    rm0, rv0 = rng.uniform(-1, 1, 3), rng.uniform(0.5, 2, 3)
    xt, wt, bt = (T(a, dtype, device, requires_grad=True) for a in (x, w, b))
    rm, rv = T(rm0, minitorch.float64, device), T(rv0, minitorch.float64, device)
    F.batch_norm(xt, wt, bt, rm, rv, training, 0.1, 1e-5).backward(T(g, dtype, device))
    w3 = w.reshape(1, 3, 1)
    if training:
        dx, xhat = np_norm_grads(x, w3, g, (0, 2), 1e-5)
    else:
        rstd = 1 / np.sqrt(rv0.reshape(1, 3, 1) + 1e-5)
        xhat = (x - rm0.reshape(1, 3, 1)) * rstd
        dx = g * w3 * rstd
    rtol, atol = TOL[dtype]
    assert_matches(xt.grad, dx, rtol=rtol * 10, atol=atol * 10)
    assert_matches(wt.grad, (g * xhat).sum((0, 2)), rtol=rtol * 10, atol=atol * 10)
    assert_matches(bt.grad, g.sum((0, 2)), rtol=rtol * 10, atol=atol * 10)


def test_group_norm_non_contiguous(device):
    rng = rng_for(22)
    x = rng.standard_normal((4, 6, 5))
    t = minitorch.tensor(np.ascontiguousarray(x.transpose(2, 1, 0)), dtype=minitorch.float64, device=device)
    t = t.permute(2, 1, 0)
    assert not t.is_contiguous()
    w, b = rng.standard_normal(6), rng.standard_normal(6)
    assert_matches(F.group_norm(t, 3, T(w, device=device), T(b, device=device)), np_group_norm(x, 3, w, b))


@pytest.mark.parametrize("run_dtype", [minitorch.float64, minitorch.float16])
def test_batch_norm_running_stats_other_dtype(device, run_dtype):
    """Running buffers in another dtype than the statistics (float32 input): updated through a conversion."""
    rng = rng_for(23)
    x = make_array((6, 2), minitorch.float32, rng)
    rm0 = make_array((2,), run_dtype, rng)
    rv0 = make_array((2,), run_dtype, rng, 0.5, 2.0)
    rm, rv = T(rm0, run_dtype, device), T(rv0, run_dtype, device)
    F.batch_norm(T(x, minitorch.float32, device), None, None, rm, rv, True, 0.3, 1e-5)
    _, erm, erv = np_batch_norm_train(x, None, None, rm0, rv0, 0.3, 1e-5)
    assert rm.dtype == run_dtype and rv.dtype == run_dtype
    assert_matches(
        rm,
        erm,
        rtol=2e-3 if run_dtype == minitorch.float16 else 1e-6,
        atol=1e-3 if run_dtype == minitorch.float16 else 1e-6,
    )
    assert_matches(
        rv,
        erv,
        rtol=2e-3 if run_dtype == minitorch.float16 else 1e-6,
        atol=1e-3 if run_dtype == minitorch.float16 else 1e-6,
    )


def test_partial_requires_grad(device):
    """Only some inputs need a gradient: the others stay None and the wanted ones are right."""
    rng = rng_for(24)
    x = rng.standard_normal((4, 3))
    w = T(rng.standard_normal((2, 3)), device=device, requires_grad=True)
    F.linear(T(x, device=device), w).sum().backward()
    assert_matches(w.grad, np.tile(x.sum(0), (2, 1)))
    xt = T(x, device=device, requires_grad=True)
    wn = T(np.ones(3), device=device)
    F.layer_norm(xt, (3,), wn, None).backward(T(np.ones((4, 3)), device=device))
    assert_matches(xt.grad, np.zeros((4, 3)), atol=1e-12)  # sum of a normalized row is constant
    bt = T(np.zeros(3), device=device, requires_grad=True)
    F.batch_norm(T(x, device=device), None, bt, None, None, True, 0.1, 1e-5).sum().backward()
    assert_matches(bt.grad, np.full(3, 4.0))


def test_dropout_half_backward(device):
    x = minitorch.randn(4096, dtype=minitorch.float16, device=device, requires_grad=True)
    y = F.dropout(x, 0.25, True)
    y.sum().backward()
    keep = to_np(y) != 0
    assert x.grad.dtype == minitorch.float16
    assert_matches(x.grad, np.where(keep, 1 / 0.75, 0.0))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("idx_dtype", [minitorch.int64, minitorch.int32])
def test_embedding_backward_values(device, dtype, idx_dtype):
    rng = rng_for(25)
    w = T(make_array((7, 5), dtype, rng), dtype, device, requires_grad=True)
    idx = np.array([[6, 0, 6], [2, 6, 0]])
    g = make_array((2, 3, 5), dtype, rng)
    F.embedding(w, T(idx, idx_dtype, device), 0, True).backward(T(g, dtype, device))
    expect = np.zeros((7, 5))
    counts = np.bincount(idx.reshape(-1), minlength=7)
    for k, i in enumerate(idx.reshape(-1)):
        if i != 0:
            expect[i] += g.reshape(-1, 5)[k] / counts[i]
    assert w.grad.dtype == dtype
    rtol, atol = TOL[dtype]
    assert_matches(w.grad, expect, rtol=rtol * 4, atol=atol * 4)


def test_empty_table_and_empty_group_norm_as_pytorch():
    # an embedding table without columns is index_select's empty self on the CPU: its bound check's words;
    # group_norm of an empty input never reaches the kernel's dtype dispatch (seeds 9303, 9304)
    NF = minitorch.nn.functional
    for idx, shown in (([[-3, 1]], -3), ([5], 5), ([-1], -1)):
        for w in (minitorch.zeros(3, 0), minitorch.zeros(3, 0, requires_grad=True)):
            with pytest.raises(RuntimeError) as e:
                NF.embedding(minitorch.tensor(idx), w)
            assert type(e.value) is RuntimeError
            assert str(e.value) == f"INDICES element is out of DATA bounds, id={shown} axis_dim=3"
    assert tuple(NF.embedding(minitorch.tensor([[2, 1]]), minitorch.zeros(3, 0)).shape) == (1, 2, 0)
    with pytest.raises(IndexError, match="^index out of range in self$"):  # a table with columns: IndexError
        NF.embedding(minitorch.tensor([3]), minitorch.zeros(3, 2))
    for dt in (minitorch.int64, minitorch.bool):
        for shape in ((0, 1, 3, 1), (0, 2, 3)):
            x = minitorch.zeros(shape, dtype=dt)
            for f in (minitorch.group_norm, NF.group_norm):
                y = f(x, 1)
                assert tuple(y.shape) == shape and y.dtype == dt
        with pytest.raises(NotImplementedError) as e:
            NF.group_norm(minitorch.zeros(2, 2, 3, dtype=dt), 1)
        assert (
            str(e.value)
            == f"\"GroupNormKernelImpl\" not implemented for '{'Long' if dt == minitorch.int64 else 'Bool'}'"
        )


_RENORM = r"""
def cases(torch):
    def run(f):
        try:
            return f().tolist()
        except Exception as e:
            return [type(e).__name__, str(e)]
    W = [[3.0, 4.0, 0.0], [0.1, 0.2, 0.2], [1.0, 2.0, 2.0], [0.0, 0.0, 5.0], [6.0, 8.0, 0.0]]
    out = []
    for dt in (torch.float32, torch.float64):
        w = torch.tensor(W, dtype=dt)
        r = torch.embedding_renorm_(w, torch.tensor([0, 2, 2, -1]), 1.5, 2.0)  # (negative: from the end)
        out.append([r is w, str(w.dtype), w.tolist()])
        w = torch.tensor(W, dtype=dt)
        torch.embedding_renorm_(w, torch.tensor([[1, 3]], dtype=torch.int32), 0.5, 1.0)
        out.append(w.tolist())
    w = torch.tensor(W).t().contiguous().t()
    torch.embedding_renorm_(w, torch.tensor([4]), 2.0, 2.0)
    out.append(w.tolist())
    w = torch.tensor(W)
    torch.embedding_renorm_(w, torch.tensor([], dtype=torch.int64), 2.0, 2.0)
    out.append(w.tolist())
    for f in (
        lambda: torch.embedding_renorm_(torch.ones(5, requires_grad=True), torch.tensor([1.0]), 1.0, 2.0),
        lambda: torch.embedding_renorm_(torch.ones(5), torch.tensor([1.0]), 1.0, 2.0),
        lambda: torch.embedding_renorm_(torch.ones(5, 3), torch.tensor([1.0]), 1.0, 2.0),
        lambda: torch.embedding_renorm_(torch.ones(5, 3), torch.tensor([[1, -6]]), 1.0, 2.0),
        lambda: torch.embedding_renorm_(torch.ones(5, 3), torch.tensor([5]), 1.0, 2.0),
        lambda: torch.embedding_renorm_(torch.ones(5, 3).int(), torch.tensor([1, 2]), 1.0, 2.0),
        lambda: torch.embedding_renorm_(torch.ones(5, 3), torch.tensor([1]), None, 2.0),
        lambda: torch.embedding_renorm_(torch.ones(5, 3, requires_grad=True), torch.tensor([1]), 1.0, 2.0),
    ):
        out.append(run(f))
    w = torch.tensor(W, requires_grad=True)
    e = torch.nn.functional.embedding(torch.tensor([0, 4]), w, max_norm=1.0)
    out.append([e.tolist(), w.tolist()])
    return out
"""


def _close(a, b):
    """equal structure and exact non-floats; floats within float32's rounding (its scale is computed in double
    here, in float there: an ulp apart)"""
    if isinstance(b, float):
        return isinstance(a, float) and abs(a - b) <= 2e-7 * max(abs(b), 1.0)
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


def test_torch_embedding_renorm_as_pytorch():
    ours, theirs = cases_here_and_in_pytorch(_RENORM, [("torch", minitorch)])
    assert _close(ours, theirs), (ours, theirs)
