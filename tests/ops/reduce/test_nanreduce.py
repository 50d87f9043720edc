"""torch.nansum / torch.nanmean: values against NumPy's nansum/nanmean in float64, gradients, PyTorch's errors."""

import re

import numpy as np
import pytest
from conftest import DEVICES
from utils import FLOAT_DTYPES, TOL, make_tensor

import minitorch

SHAPES_DIMS = [
    ((3, 4), None),
    ((3, 4), 1),
    ((3, 4), (0, 1)),
    ((2, 3, 5), -1),
    ((2, 3, 5), (0, 2)),
    ((0, 3), 0),
]


def with_nans(shape, rng):
    a = rng.standard_normal(shape)
    a[rng.random(shape) < 0.3] = np.nan
    if a.ndim == 2 and a.shape[0] > 0:
        a[0, :] = np.nan  # one all-NaN row: nanmean gives NaN there, nansum 0
    return a


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_values(device, dtype, layout, shape, dim, keepdim):
    rng = np.random.default_rng(0)
    a = with_nans(shape, rng)
    x = make_tensor(a, dtype, device, layout)
    a = x.cpu().to(minitorch.float64).numpy()  # the values as rounded to dtype
    rtol, atol = TOL[dtype]
    npdim = dim if dim is None or isinstance(dim, int) else tuple(dim)
    with np.errstate(invalid="ignore", divide="ignore"):
        want_sum = np.nansum(a, axis=npdim, keepdims=keepdim)
        cnt = np.sum(~np.isnan(a), axis=npdim, keepdims=keepdim)
        want_mean = np.where(cnt > 0, want_sum / np.maximum(cnt, 1), np.nan)
    args = () if dim is None else (dim,)
    s = minitorch.nansum(x, *args, keepdim=keepdim)
    m = x.nanmean(*args, keepdim=keepdim)
    assert s.dtype == dtype and m.dtype == dtype and s.device.type == device
    np.testing.assert_allclose(s.cpu().to(minitorch.float64).numpy(), want_sum, rtol=rtol, atol=atol * a.size)
    np.testing.assert_allclose(m.cpu().to(minitorch.float64).numpy(), want_mean, rtol=rtol, atol=atol * 4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [minitorch.int64, minitorch.int32, minitorch.uint8, minitorch.bool])
def test_nansum_integers_sum_as_is(device, dtype):
    a = np.array([[1, 0, 3], [2, 1, 1]])
    x = minitorch.tensor(a, dtype=dtype, device=device)
    assert minitorch.nansum(x).item() == x.sum().item()
    assert minitorch.nansum(x).dtype == x.sum().dtype
    assert minitorch.nansum(x, 1, dtype=minitorch.float64).dtype == minitorch.float64


@pytest.mark.parametrize("device", DEVICES)
def test_gradients(device):
    rng = np.random.default_rng(1)
    a = with_nans((3, 4), rng)
    x = minitorch.tensor(a, dtype=minitorch.float64, device=device, requires_grad=True)
    minitorch.nansum(x).backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), (~np.isnan(a)).astype(float))
    x.grad = None
    minitorch.nanmean(x, 1).sum().backward()
    cnt = (~np.isnan(a)).sum(1, keepdims=True)
    want = np.where(np.isnan(a), 0.0, 1.0 / np.maximum(cnt, 1))
    np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-12)
    # without NaNs the gradients are those of sum and mean, checked by finite differences
    y = minitorch.tensor(
        rng.standard_normal((2, 3)), dtype=minitorch.float64, device=device, requires_grad=True
    )
    assert minitorch.autograd.gradcheck(
        lambda t: minitorch.nanmean(t, 0) * 3 + minitorch.nansum(t, 1).sum(), (y,)
    )


def test_errors():
    with pytest.raises(
        NotImplementedError,
        match=r"nanmean\(\): expected input to have floating point or complex dtype but got Long",
    ):
        minitorch.nanmean(minitorch.tensor([1, 2]))
    with pytest.raises(
        RuntimeError, match=r"Optional dtype must be either a floating point or complex dtype. Got: Int"
    ):
        minitorch.nanmean(minitorch.tensor([1.0]), dtype=minitorch.int32)
    with pytest.raises(IndexError, match="Dimension out of range"):
        minitorch.nansum(minitorch.ones(2, 3), 5)


def test_empty():
    assert minitorch.nansum(minitorch.empty(0)).item() == 0
    assert np.isnan(minitorch.nanmean(minitorch.empty(0)).item())


def test_nanmean_arguments_as_pytorch():
    """PyTorch's parser (issue 34): keepdim a bool, dim an int list (a one-element integer tensor stands for
    one), and out= (computed in out's dtype)"""
    x = minitorch.tensor([1.0, float("nan"), 4.0])
    with pytest.raises(
        TypeError, match=re.escape("nanmean(): argument 'keepdim' (position 3) must be bool, not int")
    ):
        minitorch.nanmean(x, 0, 1)
    with pytest.raises(
        TypeError, match=re.escape("nanmean(): argument 'dim' (position 2) must be tuple of ints, not float")
    ):
        minitorch.nanmean(x, 0.5)
    with pytest.raises(
        IndexError, match=re.escape("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    ):
        minitorch.nanmean(minitorch.tensor(0.5), minitorch.tensor(True))
    assert minitorch.nanmean(x, minitorch.tensor([0])).item() == 2.5
    out = minitorch.zeros((), dtype=minitorch.float64)
    r = minitorch.nanmean(x, out=out)
    assert r is out and out.dtype == minitorch.float64 and out.item() == 2.5


# nansum is a reduction of its own (ReduceOp::nansum beside sum): rows, columns (a middle dim read in place),
# long rows split over threads, and the layouts that take the copy into rows
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("layout", ["strided", "expanded", "contiguous"])
def test_nansum_kernel_paths(device, dtype, layout):
    rng = np.random.default_rng(5)
    for shape, dim in [((4, 6, 5), 1), ((4, 6, 5), (0, 1)), ((3, 700), 1), ((700, 3), 0), ((2, 3, 4), None)]:
        a = with_nans(shape, rng)
        if layout == "expanded":
            a = np.broadcast_to(a[:1], a.shape)
        x = make_tensor(a, dtype, device, layout)
        a = x.cpu().to(minitorch.float64).numpy()
        rtol, atol = TOL[dtype]
        npdim = dim if dim is None or isinstance(dim, int) else tuple(dim)
        for keepdim in (False, True):
            got = minitorch.nansum(x, dim, keepdim) if dim is not None else x.nansum()
            want = np.nansum(a, axis=npdim, keepdims=keepdim and dim is not None)
            assert got.dtype == dtype
            np.testing.assert_allclose(got.cpu().double().numpy(), want, rtol=rtol, atol=atol * a.size)


def test_nansum_long_rows_and_dtypes():
    rng = np.random.default_rng(6)
    a = rng.standard_normal(300_001)
    a[rng.random(a.size) < 0.1] = np.nan
    a[:10] = np.inf  # an infinity stays one
    x = minitorch.from_numpy(a)
    assert minitorch.nansum(x).item() == np.inf
    a[:10] = 0.0
    x = minitorch.from_numpy(a)
    np.testing.assert_allclose(minitorch.nansum(x).item(), np.nansum(a), rtol=1e-12)
    np.testing.assert_allclose(minitorch.nansum(x.float()).item(), np.nansum(a), rtol=1e-5)
    h = minitorch.tensor([1.5, float("nan"), 2.25], dtype=minitorch.float16)
    r = minitorch.nansum(h, dtype=minitorch.float32)
    assert r.dtype == minitorch.float32 and r.item() == 3.75
    # an integer dtype: the NaNs drop before the cast (PyTorch gives 1 here, not int64's minimum plus one)
    r = minitorch.nansum(minitorch.tensor([1.0, float("nan")]), dtype=minitorch.int64)
    assert r.dtype == minitorch.int64 and r.item() == 1
    # ... and each element converts before the sum (fuzz seed 2502: PyTorch's [-1, 3], not the floats' [-1, 4])
    m = minitorch.tensor([[1.7, -2.9, float("nan")], [0.5, 3.9, -0.2]])
    assert minitorch.nansum(m, 1, dtype=minitorch.int32).tolist() == [-1, 3]
    assert minitorch.nansum(m, dtype=minitorch.int64).item() == 2
    assert minitorch.nansum(minitorch.empty(0, 3), 0).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(NotImplementedError, match="^nansum on CPU does not support complex inputs$"):
        minitorch.nansum(minitorch.ones(3, dtype=minitorch.complex64))
    with pytest.raises(NotImplementedError, match="^\"nansum_cpu\" not implemented for 'ComplexFloat'$"):
        minitorch.nansum(minitorch.ones(3), dtype=minitorch.complex64)


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_nansum_is_the_sum_with_nan_as_zero_bit_for_bit(dtype):
    """nansum adds NaN as 0 in the sum's own lanes (cpu_reduce::NanToZero): the same blocks, lanes and order as
    sum, so nansum(x) is sum(x with NaN zeroed) to the bit, at lengths around the lane (16) and block (2048)
    sizes; infinities stay (inf + -inf is NaN, as in PyTorch), -0.0 adds as itself, strided rows too."""
    rng = np.random.default_rng(11)
    npdt = np.float32 if dtype == minitorch.float32 else np.float64
    for n in (1, 5, 15, 16, 17, 33, 64, 2047, 2048, 4096, 4097, 6145, 10007):
        # 40 rows of the short ones: sum(1) takes the many-short-rows loop there, nansum the generic one
        a = rng.standard_normal((40 if n <= 64 else 3, n)).astype(npdt)
        a[rng.random(a.shape) < 0.2] = np.nan
        a[1, :: max(1, n // 3)] = -0.0
        a[2, 0] = np.inf
        for x in (minitorch.from_numpy(a), minitorch.from_numpy(np.repeat(a, 2, axis=1))[:, ::2]):
            zeroed = minitorch.where(minitorch.isnan(x), 0.0, x)
            assert minitorch.equal(minitorch.nansum(x, 1), zeroed.sum(1)), n
            assert minitorch.equal(minitorch.nansum(x), zeroed.sum()), n
            assert minitorch.nansum(x[2]).item() == np.inf
    b = np.array([np.nan, np.inf, -np.inf, 1.0] * 5, dtype=npdt)
    assert np.isnan(minitorch.nansum(minitorch.from_numpy(b)).item())
    assert minitorch.nansum(minitorch.from_numpy(np.full(40, np.nan, dtype=npdt))).item() == 0.0


def test_nansum_gradient_over_dims():
    rng = np.random.default_rng(7)
    a = with_nans((3, 4, 2), rng)
    x = minitorch.tensor(a, dtype=minitorch.float64, requires_grad=True)
    y = minitorch.nansum(x, (0, 2), keepdim=True)
    assert y.grad_fn.name() == "NansumBackward0" and y.shape == (1, 4, 1)
    g = rng.standard_normal((1, 4, 1))
    y.backward(minitorch.from_numpy(g))
    np.testing.assert_array_equal(x.grad.numpy(), np.where(np.isnan(a), 0.0, np.broadcast_to(g, a.shape)))
    z = minitorch.tensor(rng.standard_normal((3, 4)), dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda t: minitorch.nansum(t * t, 1), (z,))


def test_nansum_arguments_as_pytorch():
    x = minitorch.tensor([[1.0, float("nan")], [2.0, 3.0]])
    with pytest.raises(
        TypeError, match=re.escape("nansum(): argument 'keepdim' (position 3) must be bool, not int")
    ):
        minitorch.nansum(x, 0, 1)
    assert minitorch.nansum(x, (0, 1)).item() == 6.0 and x.nansum(-1).tolist() == [1.0, 5.0]
