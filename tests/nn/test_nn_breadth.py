"""Breadth of nn: PReLU, RMSNorm, shrinks, distances, fold/unfold, unpooling, LP pooling, LRN, channel
shuffle, RReLU, alpha dropout, in-place activations, gumbel-softmax, EmbeddingBag and the lazy modules.
Values against NumPy float64 formulas written here, gradients by gradcheck, modules against PyTorch's
parameter names, reprs and errors."""

import math
import re
import typing

import numpy as np
import pytest
from utils import child_json

import minitorch
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn import functional as F

DTYPES = [minitorch.float32, minitorch.float64]
TOL = {minitorch.float32: {"rtol": 1e-5, "atol": 1e-5}, minitorch.float64: {"rtol": 1e-10, "atol": 1e-12}}


def _t(a, dtype=minitorch.float64, device="cpu", noncontig=False):
    """a as a tensor; noncontig=True gives the same values as a transposed view of a copy."""
    a = np.asarray(a)
    if noncontig and a.ndim >= 2:
        return minitorch.tensor(
            np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=dtype, device=device
        ).transpose(-1, -2)
    return minitorch.tensor(a, dtype=dtype, device=device)


def _np(t):
    return t.detach().cpu().double().numpy()


def _close(got, ref, dtype=minitorch.float64):
    np.testing.assert_allclose(_np(got), ref, **TOL[dtype])


def _rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def _leaf(a):
    return minitorch.tensor(np.asarray(a), dtype=minitorch.float64, requires_grad=True)


# ---------------------------------------------------------------- activations
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("noncontig", [False, True])
def test_prelu_values(device, dtype, noncontig):
    x = _rand(2, 3, 4)
    w = np.array([0.1, -0.5, 2.0])
    got = F.prelu(_t(x, dtype, device, noncontig), _t(w, dtype, device))
    _close(got, np.where(x > 0, x, w[None, :, None] * x), dtype)
    got1 = F.prelu(_t(x, dtype, device, noncontig), _t([0.3], dtype, device))
    _close(got1, np.where(x > 0, x, 0.3 * x), dtype)
    assert F.prelu(_t(-2.0, dtype, device), _t([0.5], dtype, device)).shape == ()


def test_prelu_errors_and_grad():
    with pytest.raises(RuntimeError, match=r"Found parameter numbers = 2 and channel size = 3\."):
        F.prelu(minitorch.randn(2, 3, 4), minitorch.ones(2))
    with pytest.raises(RuntimeError, match="channel size = 1"):
        F.prelu(minitorch.randn(3), minitorch.ones(3))
    assert gradcheck(F.prelu, (_leaf(_rand(2, 3, 2) + 0.05), _leaf([0.2, 0.4, -0.3])))
    # PyTorch's checks in its order (fuzz seed 2201: integer and mixed dtypes and 2-d weights were accepted)
    bad = [
        (
            (2, 3),
            minitorch.int64,
            (1,),
            minitorch.float32,
            "Type promoting not supported. Got Long and Float",
        ),
        ((2, 8, 3), minitorch.float32, (9,), minitorch.float64, "Got Float and Double"),
        ((), minitorch.float32, (2,), minitorch.float32, "Not allow zero-dim input tensor."),
        (
            (2, 4),
            minitorch.float32,
            (1, 1),
            minitorch.float32,
            "Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2",
        ),
    ]
    for xs, xd, ws, wd, msg in bad:
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            F.prelu(minitorch.ones(xs, dtype=xd), minitorch.ones(ws, dtype=wd))
    for dt, name in ((minitorch.int64, "Long"), (minitorch.bool, "Bool")):
        with pytest.raises(NotImplementedError, match=f"\"prelu_cpu\" not implemented for '{name}'"):
            F.prelu(minitorch.ones(2, 3, dtype=dt), minitorch.ones(1, dtype=dt))


def test_prelu_module():
    m = nn.PReLU(3, init=0.1)
    assert repr(m) == "PReLU(num_parameters=3)"
    assert list(m.state_dict()) == ["weight"]
    np.testing.assert_allclose(_np(m.weight), [0.1] * 3, rtol=1e-6)
    assert repr(nn.PReLU()) == "PReLU(num_parameters=1)" and nn.PReLU().weight.shape == (1,)
    out = m(minitorch.tensor([[-1.0, -2.0, 3.0]]))
    np.testing.assert_allclose(_np(out), [[-0.1, -0.2, 3.0]], rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_shrinks(device, dtype):
    x = _rand(4, 5, seed=1)
    xt = _t(x, dtype, device, noncontig=True)
    _close(F.softshrink(xt, 0.7), np.where(x > 0.7, x - 0.7, np.where(x < -0.7, x + 0.7, 0.0)), dtype)
    _close(F.hardshrink(xt, 0.7), np.where(np.abs(x) > 0.7, x, 0.0), dtype)
    _close(F.softshrink(xt), np.sign(x) * np.maximum(np.abs(x) - 0.5, 0), dtype)
    _close(F.tanhshrink(xt), x - np.tanh(x), dtype)
    _close(nn.Softshrink(0.7)(xt), np.where(x > 0.7, x - 0.7, np.where(x < -0.7, x + 0.7, 0.0)), dtype)
    _close(nn.Hardshrink()(xt), np.where(np.abs(x) > 0.5, x, 0.0), dtype)
    _close(minitorch.hardshrink(xt, 0.7), np.where(np.abs(x) > 0.7, x, 0.0), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_hardshrink_and_threshold_kernels_on_special_values(device, dtype):
    """F.hardshrink / F.threshold's one-pass kernels (fn::Hardshrink, fn::Threshold) against NumPy in the
    input's dtype, bit for bit: the bounds are the numbers rounded to the dtype, the band [-lambd, lambd] is
    closed, a NaN x stays NaN (hardshrink) or is kept (threshold), -0.0 and the infinities; strided, empty."""
    npdt = np.float32 if dtype == minitorch.float32 else np.float64
    nan, inf = float("nan"), float("inf")
    vals = [nan, inf, -inf, -0.0, 0.0, 0.1, -0.1, 0.5, -0.5, 0.50000001, -0.49999999, 1e-45, 3.0, -7.0, 1e30]
    a = np.array(vals * 3, dtype=npdt)
    for layout in ("contiguous", "strided"):
        if layout == "strided":
            x = minitorch.from_numpy(np.repeat(a, 2)).to(device)[::2]
            assert not x.is_contiguous()
        else:
            x = minitorch.from_numpy(a).to(device)
        for lambd in (0.5, 0.1, 0.0, inf, nan):
            lam = npdt(lambd)
            want = np.where((a >= -lam) & (a <= lam), npdt(0), a)
            got = F.hardshrink(x, lambd).cpu().numpy()
            assert got.dtype == npdt
            np.testing.assert_array_equal(got, want)
            assert np.array_equal(np.signbit(got), np.signbit(want)), lambd  # -0.0 inside the band is +0
        for th, value in (
            (0.1, -2.5),
            (0.0, 9.0),
            (-inf, 1.0),
            (inf, -1.0),
            (nan, 4.0),
            (0.5, nan),
            (-0.5, 0.1),
        ):
            want = np.where(a <= npdt(th), npdt(value), a)
            got = F.threshold(x, th, value).cpu().numpy()
            np.testing.assert_array_equal(got, want, err_msg=f"{th} {value}")
            assert np.array_equal(np.signbit(got), np.signbit(want))
            y = x.clone()
            assert F.threshold_(y, th, value) is y
            np.testing.assert_array_equal(y.cpu().numpy(), want)
    e = minitorch.empty(0, 3, dtype=dtype, device=device)
    assert F.hardshrink(e).shape == (0, 3) and F.threshold(e, 0.1, 2.0).shape == (0, 3)
    # the gradient: through the kept elements only (hardshrink: x < -lambd or x > lambd, so none at a NaN x, as
    # PyTorch's vectorized backward, whose scalar tail passes it; threshold: where x <= th fails, NaN included)
    g = minitorch.tensor([nan, -1.0, -0.5, 0.2, 0.5, 2.0], dtype=dtype, device=device, requires_grad=True)
    (d,) = minitorch.autograd.grad(F.hardshrink(g, 0.5).sum(), g)
    assert d.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    assert F.hardshrink(g, 0.5).grad_fn.name() == "HardshrinkBackward0"
    (d,) = minitorch.autograd.grad(F.threshold(g, 0.2, -3.0).sum(), g)
    assert d.tolist() == [1.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    assert F.threshold(g, 0.2, -3.0).grad_fn.name() == "ThresholdBackward0"


@pytest.mark.parametrize("dtype", DTYPES)
def test_softshrink_kernel_on_special_values(device, dtype):
    """F.softshrink's one-pass kernel (fn::Softshrink) against NumPy in the input's dtype, bit for bit: x - lambd
    above lambd, x + lambd below -lambd, x * 0 between (so -0.5 and -0.0 give -0.0, as PyTorch's kernel), a NaN
    x stays NaN; strided, empty; the gradient 1 outside the closed band, none at a NaN (softshrink_backward's
    vectorized loop; its scalar tail, the last elements, passes it)."""
    npdt = np.float32 if dtype == minitorch.float32 else np.float64
    nan, inf = float("nan"), float("inf")
    vals = [nan, inf, -inf, -0.0, 0.0, 0.1, -0.1, 0.5, -0.5, 0.50000001, -0.50000001, 1e-45, 3.0, -7.0, 1e30]
    a = np.array(vals * 3, dtype=npdt)
    for layout in ("contiguous", "strided"):
        x = minitorch.from_numpy(np.repeat(a, 2) if layout == "strided" else a).to(device)
        x = x[::2] if layout == "strided" else x
        for lambd in (0.5, 0.1, 0.0, 1e30):
            lam = npdt(lambd)
            with np.errstate(invalid="ignore"):
                want = np.where(a > lam, a - lam, np.where(a < -lam, a + lam, a * npdt(0)))
            got = F.softshrink(x, lambd).cpu().numpy()
            assert got.dtype == npdt
            np.testing.assert_array_equal(got, want)
            assert np.array_equal(np.signbit(got), np.signbit(want)), lambd
    assert F.softshrink(minitorch.empty(0, 3, dtype=dtype, device=device)).shape == (0, 3)
    g = minitorch.tensor(
        [nan, -1.0, -0.5, 0.2, 0.5, 2.0, -0.0], dtype=dtype, device=device, requires_grad=True
    )
    y = F.softshrink(g, 0.5)
    assert y.grad_fn.name() == "SoftshrinkBackward0"
    (d,) = minitorch.autograd.grad(y.sum(), g)
    assert d.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    x = minitorch.tensor(np.linspace(-2, 2, 24).reshape(4, 6), dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda v: F.softshrink(v, 0.3), (x.t(),))
    assert gradgradcheck(lambda v: F.softshrink(v, 0.3), (x,))


@pytest.mark.parametrize(
    "dtype,lambd,kind,hi",
    [
        (minitorch.float32, float("nan"), "Float", "3.40282e+38"),
        (minitorch.float32, float("inf"), "Float", "3.40282e+38"),
        (minitorch.float32, 1e39, "Float", "3.40282e+38"),
        (minitorch.float64, float("inf"), "Double", "1.79769e+308"),
        (minitorch.float16, 70000.0, "Half", "65504"),
        (minitorch.bfloat16, 1e39, "BFloat16", "3.38953e+38"),
        (minitorch.float64, -0.25, "Double", "1.79769e+308"),
    ],
)
def test_softshrink_lambda_range(dtype, lambd, kind, hi):
    """PyTorch's softshrink_check: 0 <= lambd <= the dtype's largest value, NaN and inf refused."""
    x = minitorch.tensor([1.0, -2.0], dtype=dtype)
    with pytest.raises(RuntimeError) as e:
        F.softshrink(x, lambd)
    assert str(e.value) == f"lambda must be in range [0, {hi}] for input dtype {kind}, but found {lambd:g}"


def test_softshrink_reduced_precision_and_number_lambd():
    """float16/bfloat16 compute in float and round once (0.7 in half is 0.7002, minus 0.5); the top of the
    range, a bool and a 0-d tensor lambd are numbers."""
    x = minitorch.tensor([0.7, -0.7, 0.3, -0.3], dtype=minitorch.float16)
    assert F.softshrink(x, 0.5).tolist() == [0.2001953125, -0.2001953125, 0.0, -0.0]
    assert F.softshrink(x, 65504.0).tolist() == [0.0, -0.0, 0.0, -0.0]
    y = minitorch.tensor([1.0, -2.0])
    assert F.softshrink(y, True).tolist() == [0.0, -1.0]
    assert F.softshrink(y, minitorch.tensor(0.5)).tolist() == [0.5, -1.5]
    with pytest.raises(NotImplementedError, match="\"softshrink_check\" not implemented for 'Long'"):
        F.softshrink(minitorch.arange(3), 0.5)


@pytest.mark.parametrize(
    "dtype", [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.bfloat16]
)
def test_hardsigmoid_hardswish_kernels(device, dtype):
    """F.hardsigmoid / F.hardswish's one pass (fn::Hardsigmoid, fn::Hardswish and their vector loops) against
    NumPy float64, and bit for bit against PyTorch's order of operations in the dtype (min(max(x + 3, 0), 6) /
    6, x times it over 6; half and bfloat16 in float, rounded once): dense, strided (a buffer), a padded tail,
    the special values; the capability paths compute the same bits (checked in tests/ops/elementwise)."""
    npdt = {minitorch.float32: np.float32, minitorch.float64: np.float64}.get(dtype, np.float32)
    nan, inf = float("nan"), float("inf")
    special = [nan, inf, -inf, -0.0, 0.0, -3.0, 3.0, -3.0000002, 2.9999998, -6.0, 6.0, 1e-45, 1e30, -1e30]
    a = np.concatenate([np.random.default_rng(0).uniform(-5, 5, 1000), special]).astype(npdt)
    x = minitorch.from_numpy(a).to(dtype).to(device)
    xs = x.cpu().numpy() if dtype == minitorch.float64 else x.float().cpu().numpy()  # as the dtype holds them
    relu6 = np.minimum(np.maximum(xs + npdt(3), npdt(0)), npdt(6))
    for fn, want in ((F.hardsigmoid, relu6 / npdt(6)), (F.hardswish, xs * relu6 / npdt(6))):
        got = fn(x)
        assert got.dtype == dtype and got.shape == x.shape
        if dtype in (minitorch.float32, minitorch.float64):
            np.testing.assert_array_equal(got.cpu().numpy(), want)
            assert np.array_equal(np.signbit(got.cpu().numpy()), np.signbit(want))
        else:  # computed in float, rounded once to the dtype
            w = minitorch.from_numpy(want.astype(np.float32)).to(dtype).float().numpy()
            np.testing.assert_array_equal(got.double().cpu().numpy(), w)
        xd = xs.astype(np.float64)
        ref = np.clip(xd + 3, 0, 6) / 6 if fn is F.hardsigmoid else xd * np.clip(xd + 3, 0, 6) / 6
        fin = np.isfinite(ref)
        tol = {np.float64: 1e-15}.get(npdt, 1e-6) if dtype in (minitorch.float32, minitorch.float64) else 1e-2
        np.testing.assert_allclose(got.double().cpu().numpy()[fin], ref[fin], rtol=tol, atol=tol)
        # strided (through a buffer), one element (a padded vector tail), empty
        np.testing.assert_array_equal(fn(x[::3]).double().cpu().numpy(), got.double().cpu().numpy()[::3])
        np.testing.assert_array_equal(fn(x[7:8]).double().cpu().numpy(), got.double().cpu().numpy()[7:8])
        assert fn(minitorch.empty(0, 4, dtype=dtype, device=device)).shape == (0, 4)
        y = x.clone()
        assert fn(y, inplace=True) is y
        np.testing.assert_array_equal(y.double().cpu().numpy(), got.double().cpu().numpy())


def test_hardsigmoid_hardswish_gradients_and_errors():
    """The backward formulas are PyTorch's vectorized kernels' (HardsigmoidBackward0: grad / 6 strictly inside
    (-3, 3), 1/6 rounded to float for float64 too; HardswishBackward0: 0 up to -3, grad * (x / 3 + 1/2) between,
    grad from 3 on and at NaN), values taken from PyTorch 2.15; gradcheck away from the kinks; integer inputs
    refused with PyTorch's error."""
    nan = float("nan")
    g = minitorch.tensor([0.0, 3.0, -3.0, nan, 1.0, -4.0, 4.0], dtype=minitorch.float64, requires_grad=True)
    out = F.hardsigmoid(g)
    assert out.grad_fn.name() == "HardsigmoidBackward0"
    (d,) = minitorch.autograd.grad(out.sum(), g)
    sixth = float(np.float32(1.0) / np.float32(6.0))
    assert d.tolist() == [sixth, 0.0, 0.0, 0.0, sixth, 0.0, 0.0]
    out = F.hardswish(g)
    assert out.grad_fn.name() == "HardswishBackward0"
    (d,) = minitorch.autograd.grad(out.sum(), g)
    assert d.tolist() == [0.5, 1.0, 0.0, 1.0, 1 / 3 + 0.5, 0.0, 1.0]
    x = _leaf([-3.5, -2.9, -1.0, 0.2, 2.5, 3.4, 5.0])
    assert gradcheck(F.hardsigmoid, (x,)) and gradcheck(F.hardswish, (x,))
    assert gradgradcheck(F.hardswish, (x,))
    # in place on a non-leaf: the gradient still flows
    a = _leaf([-1.0, 0.5, 4.0])
    b = a * 1.0
    F.hardswish(b, inplace=True).sum().backward()
    np.testing.assert_allclose(_np(a.grad), [-1 / 3 + 0.5, 0.5 / 3 + 0.5, 1.0])
    for bad, name in ((minitorch.tensor([1, 2]), "Long"), (minitorch.tensor([True]), "Bool")):
        for fn in ("hardswish", "hardsigmoid"):
            with pytest.raises(NotImplementedError, match=f"\"{fn}_cpu\" not implemented for '{name}'"):
                getattr(F, fn)(bad)


def test_shrink_reprs_errors_grads():
    assert repr(nn.Softshrink()) == "Softshrink(0.5)"
    assert repr(nn.Hardshrink(0.3)) == "Hardshrink(0.3)"
    assert repr(nn.Tanhshrink()) == "Tanhshrink()"
    with pytest.raises(
        RuntimeError, match=r"lambda must be in range \[0, .*\] for input dtype Float, but found -1"
    ):
        F.softshrink(minitorch.randn(3), -1.0)
    x = _leaf([-2.0, -0.3, 0.2, 1.7, 0.9])
    assert gradcheck(lambda v: F.softshrink(v, 0.5), (x,))
    assert gradcheck(lambda v: F.hardshrink(v, 0.5), (x,))


@pytest.mark.parametrize(
    "name,fn,ref",
    [
        ("elu_", lambda x: F.elu_(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
        ("celu_", lambda x: F.celu_(x, 2.0), lambda x: np.where(x > 0, x, 2.0 * np.expm1(x / 2.0))),
        (
            "selu_",
            F.selu_,
            lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
        ),
        ("leaky_relu_", lambda x: F.leaky_relu_(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
        ("hardtanh_", lambda x: F.hardtanh_(x, -0.5, 1.0), lambda x: np.clip(x, -0.5, 1.0)),
        ("threshold_", lambda x: F.threshold_(x, 0.3, -7.0), lambda x: np.where(x > 0.3, x, -7.0)),
        ("rrelu_eval", lambda x: F.rrelu_(x, 0.1, 0.3), lambda x: np.where(x >= 0, x, 0.2 * x)),
        ("torch.selu_", lambda x: minitorch.selu_(x), None),
    ],
)
def test_inplace_activations_write_into_the_input(device, name, fn, ref):
    x = _rand(3, 4, seed=2)
    t = _t(x, minitorch.float64, device)
    view = t[:, 1:]  # a non-contiguous view: the write must land in the base
    out = fn(view)
    assert out.data_ptr() == view.data_ptr()
    expect = ref(x[:, 1:]) if ref is not None else F.selu(_t(x[:, 1:])).numpy()
    _close(view, expect)
    _close(t[:, 0], x[:, 0])


def test_inplace_activation_on_a_non_leaf_keeps_the_gradient():
    a = _leaf(_rand(5, seed=3))
    b = a * 1.0
    F.elu_(b, 1.0)
    b.sum().backward()
    x = _np(a)
    np.testing.assert_allclose(_np(a.grad), np.where(x > 0, 1.0, np.exp(x)), rtol=1e-12)


def test_threshold_module_and_torch_names():
    x = minitorch.tensor([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(_np(nn.Threshold(0.6, 9.0)(x)), [9.0, 9.0, 2.0])
    np.testing.assert_allclose(_np(minitorch.threshold(x, 0.6, 9.0)), [9.0, 9.0, 2.0])
    assert repr(nn.Threshold(0.1, 2.0)) == "Threshold(threshold=0.1, value=2.0)"
    np.testing.assert_allclose(_np(minitorch.celu(x, 1.0)), np.where(_np(x) > 0, _np(x), np.expm1(_np(x))))
    for name in ("prelu", "rms_norm", "cosine_similarity", "pairwise_distance", "pdist", "selu", "celu"):
        assert callable(getattr(minitorch, name))


def test_threshold_converts_the_threshold_to_the_input_type():
    # PyTorch's kernel compares with threshold.to<scalar_t>() (issue 34): an integer input meets the truncated
    # threshold, uint8 the wrapped one, float16/bfloat16 the float one
    a = np.array([-5, -1, 0, 1, 2, 3, 100])
    x = minitorch.tensor(a)
    assert nn.Threshold(-0.5, 7)(x).tolist() == np.where(a <= 0, 7, a).tolist()
    assert F.threshold(x, -1.5, -9.9).tolist() == np.where(a <= -1, -9, a).tolist()
    assert F.threshold(x[::2], 0.9, 2.7).tolist() == np.where(a[::2] <= 0, 2, a[::2]).tolist()
    u = minitorch.tensor(a.astype(np.uint8))
    assert (
        F.threshold(u, -3, 1).tolist() == np.where(a.astype(np.uint8) <= 253, 1, a.astype(np.uint8)).tolist()
    )
    y = x.clone()
    F.threshold_(y, -0.5, 7)
    assert y.tolist() == np.where(a <= 0, 7, a).tolist()
    h = np.array([0.0999755859375, 0.1000366211, 0.10009765625, 1.0], dtype=np.float16)
    want = np.where(h.astype(np.float32) <= np.float32(0.10002), 2.0, h)  # float16(0.10002) is h[1]
    assert F.threshold(minitorch.tensor(h), 0.10002, 2.0).tolist() == want.tolist() == [2.0, h[1], h[2], 1.0]
    for dt, th, name in ((minitorch.int8, 200, "int8_t"), (minitorch.int64, 1e30, "int64_t")):
        with pytest.raises(RuntimeError, match=f"value cannot be converted to type {name} without overflow"):
            F.threshold(x.to(dt), th, 1)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        F.threshold(x, float("nan"), 1)
    for bad, name in ((minitorch.tensor([True]), "Bool"), (minitorch.tensor([1j]), "ComplexFloat")):
        with pytest.raises(NotImplementedError, match=f"\"threshold_cpu\" not implemented for '{name}'"):
            F.threshold(bad, 0.5, 1)
    # the gradient passes where the input was kept
    g = minitorch.tensor([1.0, 2.0, -1.0, float("nan")], dtype=minitorch.float64, requires_grad=True)
    F.threshold(g, 1.5, 0.0).sum().backward()
    assert g.grad.tolist() == [0.0, 1.0, 0.0, 1.0]


def test_rrelu_train_and_eval():
    minitorch.manual_seed(0)
    x = -minitorch.rand(2000, dtype=minitorch.float64) - 0.1
    slopes = _np(F.rrelu(x, 0.1, 0.3, training=True)) / _np(x)
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    np.testing.assert_allclose(_np(F.rrelu(x, 0.1, 0.3)), 0.2 * _np(x), rtol=1e-12)
    pos = minitorch.rand(10, dtype=minitorch.float64)
    np.testing.assert_array_equal(_np(F.rrelu(pos, training=True)), _np(pos))
    # without a negative element the result is a copy (not the input), and its gradient is one
    pos.requires_grad_()
    out = F.rrelu(pos, training=True)
    assert out.data_ptr() != pos.data_ptr() and out.grad_fn is not None
    out.sum().backward()
    np.testing.assert_array_equal(_np(pos.grad), np.ones(10))
    # NaN and -0.0 pass through as they are
    odd = minitorch.tensor([float("nan"), -0.0, 2.0], dtype=minitorch.float64)
    r = _np(F.rrelu(odd, training=True))
    assert np.isnan(r[0]) and r[1] == 0.0 and np.signbit(r[1]) and r[2] == 2.0
    m = nn.RReLU(0.1, 0.3)
    assert repr(m) == "RReLU(lower=0.1, upper=0.3)"
    assert repr(nn.RReLU()) == "RReLU(lower=0.125, upper=0.3333333333333333)"
    assert repr(nn.RReLU(0.1, 0.3, inplace=True)) == "RReLU(lower=0.1, upper=0.3, inplace=True)"
    m.eval()
    np.testing.assert_allclose(_np(m(x)), 0.2 * _np(x), rtol=1e-12)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        F.rrelu(x, 0.5, 0.1, training=True)


def test_logsigmoid_follows_pytorchs_operation_order():
    # PyTorch's kernel: min(x, 0) - log1p(exp(-|x|)), each step rounded in float32 (issue 34: the old
    # -softplus(-x) rounded differently for negative x; multilabel_soft_margin_loss showed it)
    a = np.random.default_rng(1).uniform(-15, 15, 20000).astype(np.float32)
    d = a.astype(np.float64)
    e = np.exp(-np.abs(d)).astype(np.float32).astype(np.float64)
    want = (np.minimum(d, 0) - np.log1p(e).astype(np.float32).astype(np.float64)).astype(np.float32)
    got = F.logsigmoid(minitorch.tensor(a)).numpy()
    assert np.abs(got - want).max() <= np.spacing(np.abs(want)).max()
    assert (got == want).mean() > 0.99
    # the loss PyTorch 2.15 gives for a float32 input and a float64 target of -1e30
    x = minitorch.tensor([0.243911724225641], dtype=minitorch.float32)
    t = minitorch.tensor([-1e30], dtype=minitorch.float64)
    ls = [float(F.logsigmoid(v).item()) for v in (x, -x)]
    assert ls == [float.fromhex("-0x1.283f84p-1"), float.fromhex("-0x1.a52184p-1")]  # PyTorch's bits
    assert F.multilabel_soft_margin_loss(x, t).item() == 1e30 * ls[0] - (1 + 1e30) * ls[1]
    # float16/bfloat16 computed in float32 and rounded once
    for dt in (minitorch.float16, minitorch.bfloat16):
        v = minitorch.tensor(a[:200]).to(dt)
        assert F.logsigmoid(v).dtype == dt
        assert minitorch.equal(F.logsigmoid(v), F.logsigmoid(v.float()).to(dt))
    edge = F.logsigmoid(minitorch.tensor([float("-inf"), float("inf"), float("nan"), -200.0, 0.0])).tolist()
    assert (
        edge[:2] == [float("-inf"), 0.0]
        and math.isnan(edge[2])
        and edge[3:] == [-200.0, float(np.float32(-math.log(2.0)))]
    )
    # gradient 1/2 and second derivative -1/4 at 0, as finite differences
    xs = minitorch.tensor([-3.0, -0.5, 0.0, 0.4, 7.0, -30.0], dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(F.logsigmoid, (xs,)) and gradgradcheck(F.logsigmoid, (xs,))
    (g,) = minitorch.autograd.grad(F.logsigmoid(xs).sum(), xs)
    np.testing.assert_allclose(g.detach().numpy(), 1 / (1 + np.exp(xs.detach().numpy())), rtol=1e-15)


_LOGSIGMOID_CHILD = """
import json, numpy as np, minitorch as m
F = m.nn.functional
a = np.concatenate([np.linspace(-110, 110, 4001), [0.0, -0.0, 1e-30, -1e-30, 88.5, -88.5, 745.0, -745.0]])
out = {"cap": m.backends.cpu.get_cpu_capability()}
for dt in ("float32", "float64"):
    x = m.from_numpy(a.astype(dt))
    # the composite this kernel replaced: where(x > 0, 0, x) - softplus(-|x|), each step PyTorch's
    mn = m.where(x > 0, m.zeros_like(x), x)
    ref = mn - F.softplus(mn - m.relu(x), 1.0, 20.0)
    xt = m.from_numpy(np.stack([a, -a]).astype(dt)).t()
    got, got_t = F.logsigmoid(x), F.logsigmoid(xt)
    out[dt] = {
        "same_as_composite": bool(m.equal(got, ref)),
        "strided_same": bool(m.equal(got_t[:, 0], got) and m.equal(got_t[:, 1], F.logsigmoid(-x))),
        "values": got.double().tolist(),
    }
h = m.from_numpy(a.astype("float32")).half()
out["half_once"] = bool(m.equal(F.logsigmoid(h), F.logsigmoid(h.float()).half()))
print(json.dumps(out))
"""


@pytest.mark.parametrize("cap", ["avx512", "avx2", "default"])
def test_logsigmoid_kernel_on_every_path(cap):
    # the one-pass kernel (min(x, 0) - log1p(exp(-|x|)), the table's vector row or the scalar functor) gives
    # the bits of the composite it replaced at every CPU capability, on strided input too, and float64 within
    # 2 ulp of the formula in x86's 64-bit-mantissa long double
    out = child_json(_LOGSIGMOID_CHILD, MINITORCH_CPU_CAPABILITY=cap)
    a = np.concatenate([np.linspace(-110, 110, 4001), [0.0, -0.0, 1e-30, -1e-30, 88.5, -88.5, 745.0, -745.0]])
    al = a.astype(np.longdouble)
    want = (np.minimum(al, 0) - np.log1p(np.exp(-np.abs(al)))).astype(np.float64)
    for dt in ("float32", "float64"):
        assert out[dt]["same_as_composite"] and out[dt]["strided_same"], (out["cap"], dt)
    got = np.array(out["float64"]["values"])
    assert (np.abs(got - want) <= 2 * np.spacing(np.abs(want))).all()
    assert out["half_once"]


def test_multilabel_soft_margin_loss_keeps_pytorchs_two_logsigmoids():
    # the loss takes logsigmoid(x) and logsigmoid(-x) from one softplus pass: the same bits as PyTorch's
    # composite of the two calls, infinities included (tensor-likes take the two calls themselves:
    # tests/autograd/test_forward_ad.py's composite rule runs it on dual tensors)
    rng = np.random.default_rng(3)
    a = rng.uniform(-30, 30, (64, 12)).astype(np.float32)
    a[0, :4] = [np.inf, -np.inf, 0.0, -0.0]
    t = (rng.random((64, 12)) < 0.5).astype(np.float32)
    t[0, :4] = [0.0, 1.0, 1.0, 0.0]
    for dt in (minitorch.float32, minitorch.float64, minitorch.float16):
        x, y = minitorch.tensor(a).to(dt), minitorch.tensor(t).to(dt)
        two = -(y * F.logsigmoid(x) + (1 - y) * F.logsigmoid(-x))
        want = (two.sum(1) / 12).mean()
        got = F.multilabel_soft_margin_loss(x, y)
        assert got.dtype == dt and minitorch.equal(got, want), dt
        # a transposed (non-contiguous) input, reduction none
        xt, yt = minitorch.tensor(a.T.copy()).to(dt).t(), minitorch.tensor(t.T.copy()).to(dt).t()
        assert not xt.is_contiguous()
        assert minitorch.equal(F.multilabel_soft_margin_loss(xt, yt, reduction="none"), two.sum(1) / 12)
    assert F.multilabel_soft_margin_loss(
        minitorch.ones(0, 3), minitorch.ones(0, 3), reduction="none"
    ).shape == (0,)

    xs = minitorch.tensor(a[:3, :4].astype(np.float64) / 10, requires_grad=True)
    ys = minitorch.tensor(t[:3, :4].astype(np.float64))
    xs.data[0, 0] = 0.0  # the kink-free point where |x| turns
    assert gradcheck(lambda v: F.multilabel_soft_margin_loss(v, ys), (xs,))
    assert gradgradcheck(lambda v: F.multilabel_soft_margin_loss(v, ys), (xs,))


def test_softmax2d():
    x = _rand(2, 3, 4, 5, seed=4)
    e = np.exp(x - x.max(1, keepdims=True))
    _close(nn.Softmax2d()(_t(x)), e / e.sum(1, keepdims=True))
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(minitorch.randn(3, 4))


def test_gumbel_softmax():
    minitorch.manual_seed(0)
    logits = minitorch.tensor([[1.0, 2.0, 0.5]] * 4000, dtype=minitorch.float64)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(_np(soft).sum(1), 1.0, rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True)
    h = _np(hard)
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(1) == 1).all()
    # the argmax of logits + Gumbel noise is a sample of softmax(logits)
    p = np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum()
    np.testing.assert_allclose(h.mean(0), p, atol=0.03)
    lg = _leaf([[0.1, 0.5, -0.3]])
    F.gumbel_softmax(lg, hard=True)[0, 1].backward()
    assert lg.grad is not None and np.abs(_np(lg.grad)).sum() > 0


# ---------------------------------------------------------------- normalization
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("noncontig", [False, True])
def test_rms_norm_values(device, dtype, noncontig):
    x = _rand(3, 4, 5, seed=5)
    w = _rand(4, 5, seed=6)
    eps = {minitorch.float32: 1.1920928955078125e-07, minitorch.float64: 2.220446049250313e-16}[dtype]
    ref = x / np.sqrt((x**2).mean((-2, -1), keepdims=True) + eps) * w
    got = F.rms_norm(_t(x, dtype, device, noncontig), (4, 5), _t(w, dtype, device))
    _close(got, ref, dtype)
    ref1 = x / np.sqrt((x**2).mean(-1, keepdims=True) + 1e-3)
    _close(F.rms_norm(_t(x, dtype, device, noncontig), [5], eps=1e-3), ref1, dtype)
    assert F.rms_norm(_t(np.zeros((0, 5)), dtype, device), (5,)).shape == (0, 5)


def test_rms_norm_errors_grad_module():
    with pytest.raises(
        RuntimeError,
        match=r"Given normalized_shape=\[4\], expected input with shape \[\*4\], but got input of size\[2, 3\]",
    ):
        F.rms_norm(minitorch.randn(2, 3), (4,))
    with pytest.raises(
        RuntimeError,
        match=r"Expected weight to be of same shape as normalized_shape, but got weight of shape \[2\]",
    ):
        F.rms_norm(minitorch.randn(2, 3), (3,), minitorch.ones(2))
    assert gradcheck(lambda x, w: F.rms_norm(x, (3,), w, 1e-5), (_leaf(_rand(2, 3)), _leaf(_rand(3, seed=1))))
    m = nn.RMSNorm(3)
    assert repr(m) == "RMSNorm((3,), eps=None, elementwise_affine=True)"
    assert list(m.state_dict()) == ["weight"] and (_np(m.weight) == 1).all()
    m2 = nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False)
    assert repr(m2) == "RMSNorm((2, 3), eps=0.001, elementwise_affine=False)"
    assert list(m2.parameters()) == [] and m2.weight is None
    x = _rand(4, 2, 3)
    _close(m2(_t(x)), x / np.sqrt((x**2).mean((1, 2), keepdims=True) + 1e-3))


def test_norm_argument_checks_are_pytorchs():
    """Each call and its exception, class and words, as PyTorch 2.15 answers it (issue 34's fuzzer findings):
    the C++ ops' parser (a bare int is no normalized_shape), the checks F's Python runs first, then ATen's."""
    x, x3 = minitorch.ones(2, 3), minitorch.ones(2, 3, 4)
    cases = [
        (lambda: F.rms_norm(x, 3), TypeError,
         "rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"),
        (lambda: minitorch.rms_norm(x, "nearest"), TypeError, "must be tuple of ints, not str"),
        (lambda: F.rms_norm(x, [3], eps=minitorch.ones(2)), TypeError,
         "rms_norm(): argument 'eps' (position 4) must be float, not Tensor"),
        (lambda: F.rms_norm(minitorch.ones(5), [2, 2, 3]), ValueError,
         "Input tensor must have at least 3 dimensions, but got 1"),
        (lambda: F.rms_norm(x, []), RuntimeError, "Expected normalized_shape to be at least 1-dimensional"),
        (lambda: F.rms_norm(x.long(), [3]), NotImplementedError, "\"rms_norm\" not implemented for 'Long'"),
        (lambda: F.layer_norm(x, 3), TypeError,
         "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"),
        (lambda: F.layer_norm(x, [3], eps=None), TypeError,
         "layer_norm(): argument 'eps' (position 5) must be float, not NoneType"),
        (lambda: minitorch.layer_norm(x, [3], cudnn_enable=1), TypeError,
         "layer_norm(): argument 'cudnn_enable' must be bool, not int"),
        (lambda: F.group_norm(-1, 3), AttributeError, "'int' object has no attribute 'dim'"),
        (lambda: F.group_norm(x, 2.0), TypeError, "group_norm(): argument 'num_groups' (position 2) must be int"),
        (lambda: F.group_norm(x, 0), ZeroDivisionError, ""),
        (lambda: F.group_norm(minitorch.ones(1, 4), 4), ValueError,
         "Expected more than 1 value per channel when training, got input size [1, 4]"),
        (lambda: minitorch.group_norm(minitorch.ones(3), 3), IndexError,
         "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
        (lambda: minitorch.group_norm(minitorch.ones(2, 0), 1), RuntimeError,
         "Expected number of channels to be greater than 0, got 0"),
        (lambda: F.group_norm(minitorch.ones(2, 2, 0), 1), RuntimeError, "Expected HxW to be greater than 0, got 0"),
        (lambda: F.instance_norm(minitorch.ones(3, 3), 3), ValueError,
         "Expected more than 1 spatial element when training, got input size torch.Size([3, 3])"),
        (lambda: F.instance_norm(x3, 3), TypeError,
         "instance_norm(): argument 'running_mean' (position 4) must be Tensor, not int"),
        (lambda: F.instance_norm(x3, None, None, None, None, False), RuntimeError,
         "Expected running_mean and running_var to be defined when use_input_stats is false"),
        (lambda: F.instance_norm(x3, minitorch.ones(3), None), ValueError,
         "running_mean and running_var must either both be None or neither be None"),
        (lambda: F.instance_norm(x3, minitorch.ones(2), minitorch.ones(3)), RuntimeError,
         "running_mean should contain 6 elements not 4"),
        (lambda: F.instance_norm(x3, weight=minitorch.ones(2)), RuntimeError, "weight should contain 6 elements not 4"),
        (lambda: F.instance_norm(x3.long()), NotImplementedError, "\"batch_norm\" not implemented for 'Long'"),
        (lambda: F.batch_norm(x, 1.5, None), TypeError,
         "batch_norm(): argument 'running_mean' (position 4) must be Tensor, not float"),
        (lambda: F.batch_norm(x, None, None, training=1), TypeError,
         "batch_norm(): argument 'training' (position 6) must be bool, not int"),
        (lambda: F.batch_norm(x, None, None, training=True, eps=0.0), ValueError,
         "batch_norm eps must be positive during training, but got 0.0"),
        (lambda: F.batch_norm(x, None, None, eps=-1.0), ValueError, "batch_norm eps must be non-negative"),
        (lambda: F.batch_norm(x.long(), None, None, training=True), NotImplementedError,
         "\"batch_norm\" not implemented for 'Long'"),
    ]  # fmt: skip
    for call, cls, msg in cases:
        with pytest.raises(cls) as e:
            call()
        assert type(e.value) is cls and msg in str(e.value), (msg, e.value)


def test_norm_parameters_of_another_dtype_follow_aten_cpu_rule():
    """ATen's CPU normalizations take float32 parameters for a bfloat16/float16 input (the result keeps the
    input's dtype) and refuse every other mix, in the words of the first defined parameter's case."""
    f64, f32, bf = minitorch.float64, minitorch.float32, minitorch.bfloat16
    x = _rand(4, 3, 5, seed=3)
    w, b = _rand(3, seed=4), _rand(3, seed=5)
    share = "mixed dtype (CPU): all inputs must share same datatype."
    param = "mixed dtype (CPU): expect parameter to have scalar type of Float"
    for call, msg in [
        (lambda: F.layer_norm(_t(x, f64), [5], _t(_rand(5), f32)), share),
        (lambda: F.layer_norm(_t(x, f32), [5], None, _t(_rand(5), f64)), param),
        (lambda: F.layer_norm(_t(x, bf), [5], _t(_rand(5), f32), _t(_rand(5), bf)), param),
        (lambda: F.group_norm(_t(x, f64), 3, _t(w, f32)), share),
        (lambda: F.batch_norm(_t(x, f64), _t(w, f32), _t(w, f32)), share),
        (lambda: F.batch_norm(_t(x, f64), _t(w, f32), _t(w, f64)), param),
        (
            lambda: F.batch_norm(_t(x, f64), _t(w, f64), _t(w, f32), training=True),
            "expected scalar type Double but found Float",
        ),
        (lambda: F.instance_norm(_t(x, f32), None, None, _t(w, f64)), param),
        (lambda: F.layer_norm(_t(x, minitorch.int64), [5], None, _t(_rand(5), f32)), share),
    ]:
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            call()
    # the allowed mix: a bfloat16 input with float32 parameters, against a float64 reference
    xb = _t(x, bf)
    xr = _np(xb)
    ref = (xr - xr.mean(-1, keepdims=True)) / np.sqrt(xr.var(-1, keepdims=True) + 1e-5)
    got = F.instance_norm(xb, None, None, _t(w, f32), _t(b, f32))
    assert got.dtype == bf
    np.testing.assert_allclose(_np(got), ref * w[:, None] + b[:, None], rtol=2e-2, atol=5e-2)
    got = F.group_norm(xb, 3, _t(w, f32))
    assert got.dtype == bf
    np.testing.assert_allclose(_np(got), ref * w[:, None], rtol=2e-2, atol=5e-2)
    # empty inputs return before any dtype check, as ATen's batch_norm
    assert (
        F.batch_norm(minitorch.ones(0, 3, dtype=minitorch.int64), _t(w, f32), _t(w, f32)).dtype
        == minitorch.int64
    )
    assert F.batch_norm(minitorch.ones(0, 3), _t(w, f64), _t(w, f32)).shape == (0, 3)


def test_instance_norm_weight_or_bias_alone():
    x = _rand(2, 3, 4, seed=8)
    w, b = _rand(3, seed=9), _rand(3, seed=10)
    norm = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    _close(F.instance_norm(_t(x), weight=_t(w)), norm * w[:, None])
    _close(F.instance_norm(_t(x, noncontig=True), bias=_t(b)), norm + b[:, None])
    assert gradcheck(lambda x, w: F.instance_norm(x, weight=w), (_leaf(x), _leaf(w)))


def test_instance_norm_3d_and_lazy_norms():
    x = _rand(2, 3, 2, 3, 4, seed=13)
    axes = (2, 3, 4)
    norm = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    _close(nn.InstanceNorm3d(3)(_t(x)), norm)
    _close(nn.InstanceNorm3d(3)(_t(x[0])), norm[0])  # unbatched (C, D, H, W)
    m = nn.InstanceNorm3d(3, affine=True, track_running_stats=True).double()
    m(_t(x))
    # the running mean moves by momentum toward the batch's mean of the per-instance means
    _close(m.running_mean, 0.1 * x.mean(axes).mean(0))
    with pytest.raises(ValueError, match=re.escape("expected 4D or 5D input (got 3D input)")):
        nn.InstanceNorm3d(3)(minitorch.ones(3, 4, 5))
    assert repr(nn.InstanceNorm3d(4, affine=True)) == (
        "InstanceNorm3d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)"
    )
    # PyTorch's lazy instance norms default to affine=True, track_running_stats=True (unlike the eager ones)
    for cls, done, shape in (
        (nn.LazyInstanceNorm1d, nn.InstanceNorm1d, (2, 3, 4)),
        (nn.LazyInstanceNorm2d, nn.InstanceNorm2d, (2, 3, 4, 4)),
        (nn.LazyInstanceNorm3d, nn.InstanceNorm3d, (2, 3, 2, 3, 4)),
    ):
        lazy = cls()
        assert lazy.affine and lazy.track_running_stats
        y = lazy(minitorch.randn(*shape))
        assert type(lazy) is done and lazy.num_features == 3 and tuple(lazy.weight.shape) == (3,)
        assert y.shape == shape
    lazy = nn.LazyBatchNorm3d().double()
    y = lazy(_t(x))
    assert type(lazy) is nn.BatchNorm3d and lazy.num_features == 3
    bn_axes = (0, 2, 3, 4)
    _close(y, (x - x.mean(bn_axes, keepdims=True)) / np.sqrt(x.var(bn_axes, keepdims=True) + 1e-5))
    with pytest.raises(ValueError, match=re.escape("expected 5D input (got 3D input)")):
        nn.LazyBatchNorm3d()(minitorch.ones(2, 3, 4))


def test_norm_modules_take_bias_keyword():
    """PyTorch 2.15's `bias=` (keyword only) on GroupNorm and the BatchNorm/InstanceNorm family: an affine
    scale without a shift, shown in the repr."""
    g = nn.GroupNorm(2, 4, bias=False)
    assert g.bias is None and tuple(g.weight.shape) == (4,)
    assert repr(g) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=False)"
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    bn = nn.BatchNorm1d(3, bias=False)
    assert bn.bias is None and [n for n, _ in bn.named_parameters()] == ["weight"]
    assert (
        repr(bn)
        == "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=False, track_running_stats=True)"
    )
    inorm = nn.InstanceNorm1d(3, affine=True, bias=False)
    assert repr(inorm) == (
        "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=False, track_running_stats=False)"
    )
    assert (
        repr(nn.LayerNorm(3, bias=False)) == "LayerNorm((3,), eps=1e-05, elementwise_affine=True, bias=False)"
    )
    lazy = nn.LazyBatchNorm1d(bias=False)
    lazy(minitorch.randn(4, 3))
    assert lazy.bias is None and tuple(lazy.weight.shape) == (3,)
    x = _rand(4, 3, seed=11)
    with minitorch.no_grad():
        bn.weight.copy_(_t(_rand(3, seed=12), minitorch.float32))
    ref = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5) * _rand(3, seed=12)
    np.testing.assert_allclose(_np(bn(_t(x, minitorch.float32))), ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=re.escape("num_channels (4) must be divisible by num_groups (3)")):
        nn.GroupNorm(3, 4)
    with pytest.raises(
        ValueError, match=re.escape("expected input's size at dim=1 to match num_features (2), but got: 3.")
    ):
        nn.InstanceNorm1d(2, affine=True)(minitorch.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="input's size at dim=0 does not match num_features"):
        nn.InstanceNorm1d(2)(minitorch.ones(3, 4))


@pytest.mark.parametrize("dtype", DTYPES)
def test_local_response_norm(device, dtype):
    def ref(x, size, alpha=1e-4, beta=0.75, k=1.0):
        c = x.shape[1]
        out = np.empty_like(x)
        for ch in range(c):
            lo, hi = max(0, ch - size // 2), min(c, ch + (size - 1) // 2 + 1)
            s = (x[:, lo:hi] ** 2).sum(1)
            out[:, ch] = x[:, ch] / (k + alpha / size * s) ** beta
        return out

    x = _rand(2, 5, 3, 4, seed=7)
    _close(
        F.local_response_norm(_t(x, dtype, device, True), 3, 0.5, 0.7, 2.0), ref(x, 3, 0.5, 0.7, 2.0), dtype
    )
    x3 = _rand(2, 6, 4, seed=8)
    _close(nn.LocalResponseNorm(4, alpha=0.3)(_t(x3, dtype, device)), ref(x3, 4, alpha=0.3), dtype)
    assert repr(nn.LocalResponseNorm(3)) == "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)"
    with pytest.raises(
        ValueError, match=r"Expected 3D or higher dimensionality\s+input \(got 2 dimensions\)"
    ):
        F.local_response_norm(minitorch.randn(2, 3), 2)
    assert gradcheck(lambda v: F.local_response_norm(v, 2, 0.5), (_leaf(_rand(1, 3, 2, seed=9)),))


# ---------------------------------------------------------------- distances
@pytest.mark.parametrize("dtype", DTYPES)
def test_cosine_similarity_and_pairwise_distance(device, dtype):
    a, b = _rand(4, 6, seed=10), _rand(4, 6, seed=11)
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    _close(F.cosine_similarity(_t(a, dtype, device, True), _t(b, dtype, device)), cos, dtype)
    _close(nn.CosineSimilarity(dim=1)(_t(a, dtype, device), _t(b, dtype, device)), cos, dtype)
    _close(minitorch.cosine_similarity(_t(a, dtype, device), _t(b, dtype, device), 1), cos, dtype)
    for p in (1.0, 2.0, 3.0):
        ref = (np.abs(a - b + 1e-6) ** p).sum(1) ** (1 / p)
        _close(F.pairwise_distance(_t(a, dtype, device, True), _t(b, dtype, device), p), ref, dtype)
        _close(nn.PairwiseDistance(p=p)(_t(a, dtype, device), _t(b, dtype, device)), ref, dtype)
    assert nn.PairwiseDistance(keepdim=True)(_t(a), _t(b)).shape == (4, 1)
    assert (
        repr(nn.CosineSimilarity()) == "CosineSimilarity()"
        and repr(nn.PairwiseDistance()) == "PairwiseDistance()"
    )
    assert gradcheck(lambda x, y: F.cosine_similarity(x, y), (_leaf(a), _leaf(b)))
    assert gradcheck(lambda x, y: F.pairwise_distance(x, y), (_leaf(a), _leaf(b)))


def test_cosine_similarity_normalizes_each_float_side_in_its_own_dtype():
    # PyTorch casts only integer inputs to the common dtype: a float16 side is divided by its float16 norm
    # (accumulated in float32) and rounded to float16 before the float64 product (issue 34)
    a, b = _rand(5, 7, seed=12), _rand(5, 7, seed=13)
    a16 = a.astype(np.float16)
    n1 = np.float16(np.sqrt((a16.astype(np.float32) ** 2).sum(1, keepdims=True)))
    q1 = (a16.astype(np.float32) / np.float32(n1)).astype(np.float16).astype(np.float64)
    want = (q1 * (b / np.linalg.norm(b, axis=1, keepdims=True))).sum(1)
    got = F.cosine_similarity(minitorch.tensor(a16), minitorch.tensor(b), dim=1)
    assert got.dtype == minitorch.float64
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-15)
    # the float16 rounding is visible: the all-float64 answer differs
    exact = (a16.astype(np.float64) * b).sum(1) / (
        np.linalg.norm(a16.astype(np.float64), axis=1) * np.linalg.norm(b, axis=1)
    )
    assert np.abs(got.numpy() - exact).max() > 1e-6
    # an integer side is cast to the common dtype first
    ai = np.array([[1, 2, 3], [0, -4, 5]])
    bf = _rand(2, 3, seed=14).astype(np.float32)
    want = (ai * bf).sum(1) / (np.linalg.norm(ai, axis=1) * np.linalg.norm(bf, axis=1))
    got = F.cosine_similarity(minitorch.tensor(ai), minitorch.tensor(bf), dim=1)
    assert got.dtype == minitorch.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [1.0, 2.0, 3.5])
def test_pdist(device, dtype, p):
    x = _rand(5, 3, seed=12)
    ref = [(np.abs(x[i] - x[j]) ** p).sum() ** (1 / p) for i in range(5) for j in range(i + 1, 5)]
    _close(F.pdist(_t(x, dtype, device, True), p), np.array(ref), dtype)
    _close(minitorch.pdist(_t(x, dtype, device), p), np.array(ref), dtype)
    assert F.pdist(_t(np.zeros((1, 3)), dtype, device)).shape == (0,)


def test_pdist_errors_grad():
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 3D"):
        F.pdist(minitorch.randn(2, 3, 4))
    with pytest.raises(RuntimeError, match="pdist only supports non-negative p values"):
        F.pdist(minitorch.randn(3, 4), p=-1)
    assert gradcheck(F.pdist, (_leaf(_rand(4, 3, seed=13)),))
    # PyTorch's order: 2-D, then floating, then p; its CPU kernel has float and double only
    with pytest.raises(RuntimeError, match="^pdist only supports floating-point dtypes$"):
        F.pdist(minitorch.ones(3, 2, dtype=minitorch.int64), -1)
    with pytest.raises(NotImplementedError, match="^\"pdist\" not implemented for 'Half'$"):
        F.pdist(minitorch.ones(3, 2, dtype=minitorch.float16))


def _np_pdist_and_grad(x, p, g):
    """float64 pdist of x's rows and d (sum g * pdist) / d x by PyTorch's pdist_backward formulas."""
    n = len(x)
    i, j = np.triu_indices(n, 1)
    d = x[i] - x[j]
    a = np.abs(d)
    with np.errstate(all="ignore"):
        if p == 0:
            dist = np.minimum(np.ceil(a), 1).sum(1)
            v = np.zeros_like(d)
        elif np.isinf(p):
            dist = a.max(1)
            v = np.sign(d) * (a == dist[:, None])
        else:
            dist = (a**p).sum(1) ** (1 / p)
            if p == 1:
                v = np.sign(d)
            elif p < 2:
                v = np.where(
                    (dist[:, None] == 0) | ((d == 0) & (p < 1)),
                    0.0,
                    np.sign(d) * a ** (p - 1) / dist[:, None] ** (p - 1),
                )
            else:
                v = np.where(dist[:, None] == 0, 0.0, d * a ** (p - 2) / dist[:, None] ** (p - 1))
    v = v * g[:, None]
    grad = np.zeros_like(x)
    np.add.at(grad, i, v)
    np.add.at(grad, j, -v)
    return dist, grad


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf])
def test_pdist_kernel_values_and_gradient(dtype, p):
    """The CPU kernel (torch._pdist_forward/_pdist_backward's): many rows, a transposed input, two equal rows
    (distance 0: PyTorch's zero gradient), values and the gradient against float64 NumPy."""
    x = _rand(21, 37, seed=21).T.copy()  # (37, 21)
    x[5] = x[9]
    rng = np.random.default_rng(3)
    g = rng.standard_normal(37 * 36 // 2)
    want, want_grad = _np_pdist_and_grad(x, p, g)
    xm = minitorch.tensor(x.T, dtype=dtype).t().requires_grad_()  # not contiguous
    got = F.pdist(xm, p)
    tol = 2e-5 if dtype == minitorch.float32 else 1e-12
    np.testing.assert_allclose(got.detach().double().numpy(), want, rtol=tol, atol=tol)
    got.backward(minitorch.tensor(g, dtype=dtype))
    # each row's gradient sums 36 pair terms (|d|^(p - 1) is large for small d when p < 1): absolute error
    # at the scale of the largest
    scale = max(1.0, np.abs(want_grad).max())
    np.testing.assert_allclose(xm.grad.double().numpy(), want_grad, rtol=tol * 10, atol=tol * 10 * scale)
    with minitorch.no_grad():
        np.testing.assert_allclose(F.pdist(xm, p).double().numpy(), want, rtol=tol, atol=tol)


_PDIST_CHILD = """
import json, numpy as np, minitorch as m
x = np.random.default_rng(7).standard_normal((24, 21)) * 3
x[3] = x[8]
x[10, 4], x[11, 2] = np.inf, np.nan
out = {"cap": m.backends.cpu.get_cpu_capability()}
for p in (0.3, 1.5, 2.5, 7.5, 9.0):
    out[str(p)] = [m.pdist(m.from_numpy(x.astype(dt)), p).double().tolist() for dt in ("float64", "float32")]
print(json.dumps(out))
"""


@pytest.mark.parametrize("cap", ["avx512", "avx2", "default"])
def test_pdist_general_p_on_every_path(cap):
    # |d|^p through the vector pow where the CPU's path has one (AVX-512's, AVX2's float32 through double,
    # pdist's own AVX2 float64 one for p <= 8), libm's elsewhere: every distance within a few ulp of the
    # long-double sum (a zero distance exactly 0, a row with inf or NaN gives inf or NaN as libm's pow)
    out = child_json(_PDIST_CHILD, MINITORCH_CPU_CAPABILITY=cap)
    x = np.random.default_rng(7).standard_normal((24, 21)) * 3
    x[3] = x[8]
    x[10, 4], x[11, 2] = np.inf, np.nan
    i, j = np.triu_indices(24, 1)
    for p in (0.3, 1.5, 2.5, 7.5, 9.0):
        for dt, rtol in (("float64", 4e-15), ("float32", 2e-6)):
            xd = x.astype(dt).astype(np.longdouble)
            want = (np.abs(xd[i] - xd[j]) ** p).sum(1) ** (1 / np.longdouble(p))
            got = np.array(out[str(p)][0 if dt == "float64" else 1])
            np.testing.assert_allclose(
                got, want.astype(np.float64), rtol=rtol, err_msg=f"{out['cap']} {dt} {p}"
            )
            assert got[(i == 3) & (j == 8)] == 0.0


_PDIST_WIDE_CHILD = """
import json, numpy as np, minitorch as m
rng = np.random.default_rng(11)
# rows of one magnitude each, from subnormal differences to ones whose powers overflow float32
x = rng.standard_normal((40, 19)) * np.logspace(-44, 30, 40)[:, None]
x[5] = x[6]
out = {"cap": m.backends.cpu.get_cpu_capability(), "x": x.astype(np.float32).astype(float).tolist()}
for p in (0.3, 0.7, 1.5, 2.5, 7.5, 16.0):
    out[str(p)] = m.pdist(m.from_numpy(x.astype(np.float32)), p).double().tolist()
print(json.dumps(out))
"""


@pytest.mark.parametrize("cap", ["avx2", "default"])
def test_pdist_float32_general_p_wide_magnitudes(cap):
    # float32 |d|^p through AVX2's pdist pow (in double, 0 < p <= 16) or libm's powf: each distance within
    # 2e-6 of the long-double one of the exact terms rounded to float32 and summed in float32, where that is
    # a float, inf where a |d|^p or the sum overflows a float (as powf), and a zero distance exactly 0
    out = child_json(_PDIST_WIDE_CHILD, MINITORCH_CPU_CAPABILITY=cap)
    x = np.array(out["x"], dtype=np.longdouble)
    i, j = np.triu_indices(40, 1)
    for p in (0.3, 0.7, 1.5, 2.5, 7.5, 16.0):
        got = np.array(out[str(p)])
        # the kernel's p and 1 / p are float32 values (0.3 is 0.30000001: ln(1e-40) times that shift is 1e-6)
        p32 = np.float32(p)
        terms = np.abs(x[i] - x[j]) ** np.longdouble(p32)
        # each term rounded to float32 (an overflow is inf, an underflow 0) and summed in float32 in column
        # order, as the kernel sums them: only the powers' own errors are left to the tolerance
        rounded = terms.astype(np.float32)
        s = np.zeros(len(i), np.float32)
        for c in range(rounded.shape[1]):
            s = s + rounded[:, c]
        want = s.astype(np.longdouble) ** np.longdouble(np.float32(1) / p32)
        fin = np.isfinite(want) & (want.astype(np.float32) >= np.finfo(np.float32).tiny)  # normal floats
        assert fin.sum() > 50, (p, fin.sum())
        np.testing.assert_allclose(got[fin], want[fin].astype(np.float64), rtol=2e-6, err_msg=f"{cap} {p}")
        assert np.all(np.isinf(got[np.isinf(want)])), (cap, p)
        assert got[(i == 5) & (j == 6)] == 0.0


@pytest.mark.parametrize("p", [0.5, 1.0, 2.0, 3.0, math.inf])
def test_pdist_kernel_gradcheck_and_create_graph(p):
    """gradcheck through the kernel; under create_graph the gradient is built from ops, so it has its own
    gradient (gradgradcheck); a NaN in a row gives that row's distances NaN."""
    x = _leaf(_rand(5, 3, seed=22))
    assert gradcheck(lambda a: F.pdist(a, p), (x,))
    if p == 2.0:
        assert gradgradcheck(lambda a: F.pdist(a, p), (x,))
    y = _rand(4, 3, seed=23)
    y[1, 2] = np.nan
    d = F.pdist(minitorch.tensor(y), p).numpy()
    assert np.isnan(d[[0, 3, 4]]).all() and not np.isnan(d[[1, 2, 5]]).any()
    assert F.pdist(minitorch.zeros(3, 0)).tolist() == [0.0, 0.0, 0.0]
    e = minitorch.zeros(1, 4, requires_grad=True)
    F.pdist(e).sum().backward()
    assert e.grad.tolist() == [[0.0] * 4]


# ---------------------------------------------------------------- fold / unfold
def _unfold_ref(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            for y in range(oh):
                for z in range(ow):
                    out[:, :, i, j, y, z] = xp[:, :, y * s[0] + i * d[0], z * s[1] + j * d[1]]
    return out.reshape(n, c * k[0] * k[1], oh * ow)


def _fold_ref(cols, out_size, k, d, p, s):
    n, ck, _ = cols.shape
    c = ck // (k[0] * k[1])
    hp, wp = out_size[0] + 2 * p[0], out_size[1] + 2 * p[1]
    bh = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1
    bw = (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = cols.reshape(n, c, k[0], k[1], bh, bw)
    out = np.zeros((n, c, hp, wp))
    for i in range(k[0]):
        for j in range(k[1]):
            for y in range(bh):
                for z in range(bw):
                    out[:, :, y * s[0] + i * d[0], z * s[1] + j * d[1]] += cols[:, :, i, j, y, z]
    return out[:, :, p[0] : p[0] + out_size[0], p[1] : p[1] + out_size[1]]


FOLD_CASES = [
    ((2, 2), (1, 1), (0, 0), (1, 1)),
    ((3, 2), (2, 1), (1, 2), (2, 1)),
    ((1, 3), (1, 2), (0, 1), (3, 2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k,d,p,s", FOLD_CASES)
def test_unfold_fold_values(device, dtype, k, d, p, s):
    x = _rand(2, 3, 7, 6, seed=14)
    cols = F.unfold(_t(x, dtype, device, noncontig=True), k, d, p, s)
    ref = _unfold_ref(x, k, d, p, s)
    _close(cols, ref, dtype)
    c = _rand(*ref.shape, seed=15)
    _close(F.fold(_t(c, dtype, device, True), (7, 6), k, d, p, s), _fold_ref(c, (7, 6), k, d, p, s), dtype)
    # unbatched and empty-batch forms
    _close(F.unfold(_t(x[0], dtype, device), k, d, p, s), ref[0], dtype)
    _close(F.fold(_t(c[0], dtype, device), (7, 6), k, d, p, s), _fold_ref(c, (7, 6), k, d, p, s)[0], dtype)
    assert F.unfold(_t(np.zeros((0, 3, 7, 6)), dtype, device), k, d, p, s).shape == (0,) + ref.shape[1:]
    assert F.fold(_t(np.zeros((0,) + ref.shape[1:]), dtype, device), (7, 6), k, d, p, s).shape == (0, 3, 7, 6)


def test_fold_is_unfolds_adjoint_and_grads():
    k, d, p, s = (2, 3), (1, 2), (1, 0), (2, 1)
    x, y = _rand(1, 2, 5, 6, seed=16), None
    cols = _unfold_ref(x, k, d, p, s)
    y = _rand(*cols.shape, seed=17)
    lhs = (_np(F.unfold(_t(x), k, d, p, s)) * y).sum()
    rhs = (x * _np(F.fold(_t(y), (5, 6), k, d, p, s))).sum()
    assert abs(lhs - rhs) < 1e-10
    assert gradcheck(lambda v: F.unfold(v, k, d, p, s), (_leaf(x),))
    assert gradcheck(lambda v: F.fold(v, (5, 6), k, d, p, s), (_leaf(y),))


def test_fold_unfold_modules_and_errors():
    u = nn.Unfold((2, 3), dilation=2, padding=1, stride=2)
    assert repr(u) == "Unfold(kernel_size=(2, 3), dilation=2, padding=1, stride=2)"
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    f = nn.Fold((4, 5), 2)
    assert repr(f) == "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"
    x = _rand(1, 2, 4, 5)
    _close(
        nn.Fold((4, 5), 2)(nn.Unfold(2)(_t(x))),
        _fold_ref(_unfold_ref(x, (2, 2), (1, 1), (0, 0), (1, 1)), (4, 5), (2, 2), (1, 1), (0, 0), (1, 1)),
    )
    with pytest.raises(
        RuntimeError,
        match=r"calculated shape of the array of sliding blocks as \(0, 0\), but its components must be at least one",
    ):
        F.unfold(minitorch.randn(1, 3, 4, 4), 5)
    with pytest.raises(
        RuntimeError, match="stride should be greater than zero, but got stride_height: 0 stride_width: 0"
    ):
        F.unfold(minitorch.randn(1, 3, 4, 4), (2, 2), stride=0)
    with pytest.raises(
        RuntimeError, match=r"Expected 3D or 4D \(batch mode\) tensor .* but got: \[1, 3, 4, 4, 4\]"
    ):
        F.unfold(minitorch.randn(1, 3, 4, 4, 4), 2)
    with pytest.raises(RuntimeError, match=r"input.size\(1\)=13 and kernel_size=\(2, 2\)"):
        F.fold(minitorch.randn(1, 13, 9), (4, 4), 2)
    with pytest.raises(RuntimeError, match=r"sliding blocks 3 \* 3 = 9, but got input.size\(2\)=8\."):
        F.fold(minitorch.randn(1, 12, 8), (4, 4), 2)
    with pytest.raises(
        RuntimeError, match=r"Expected 2D or 3D \(batch mode\) tensor .* but got: \[2, 1, 12, 9\]"
    ):
        F.fold(minitorch.randn(2, 1, 12, 9), (4, 4), 2)


# ---------------------------------------------------------------- pooling extras
def test_max_unpool_inverts_max_pool(device):
    x = _t(_rand(2, 3, 6, 8, seed=18), device=device)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    up = F.max_unpool2d(out, idx, 2)
    xn = _np(x)
    ref = np.zeros_like(xn)
    win = xn.reshape(2, 3, 3, 2, 4, 2)
    mx = win.max((3, 5), keepdims=True)
    ref = np.where(win == mx, win, 0.0).reshape(2, 3, 6, 8)
    _close(up, ref)
    # a larger output keeps the flat positions (the grid is re-wrapped, as PyTorch's)
    big = nn.MaxUnpool2d(2)(out, idx, output_size=(2, 3, 7, 9))
    _close(big.reshape(2, 3, -1)[:, :, :48], ref.reshape(2, 3, 48))
    x1 = _t(_rand(2, 3, 8, seed=19), device=device)
    o1, i1 = F.max_pool1d(x1, 2, return_indices=True)
    x1n = _np(x1).reshape(2, 3, 4, 2)
    _close(nn.MaxUnpool1d(2)(o1, i1), np.where(x1n == x1n.max(-1, keepdims=True), x1n, 0).reshape(2, 3, 8))
    assert gradcheck(lambda v: F.max_unpool2d(v, idx.cpu(), 2), (_leaf(_np(out)),))


def test_max_unpool_reprs_errors():
    assert repr(nn.MaxUnpool1d(2)) == "MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))"
    assert (
        repr(nn.MaxUnpool2d(2, stride=1, padding=1))
        == "MaxUnpool2d(kernel_size=(2, 2), stride=(1, 1), padding=(1, 1))"
    )
    z = minitorch.zeros(1, 1, 2, 2, dtype=minitorch.int64)
    with pytest.raises(ValueError, match=r'invalid output_size "\(9, 9\)" \(dim 0 must be between 2 and 6\)'):
        F.max_unpool2d(minitorch.randn(1, 1, 2, 2), z, 2, output_size=(9, 9))
    with pytest.raises(
        RuntimeError, match=r"Found an invalid max index: 100 \(output volumes are of size 4x4\)"
    ):
        F.max_unpool2d(
            minitorch.randn(1, 1, 2, 2), minitorch.full((1, 1, 2, 2), 100, dtype=minitorch.int64), 2
        )
    with pytest.raises(
        RuntimeError, match=r"Found an invalid max index: -3 \(output volumes are of size 4x4\)"
    ):
        F.max_unpool2d(minitorch.randn(1, 1, 2, 2), minitorch.tensor([[[[0, 1], [-3, 2]]]]), 2)


def test_pool_unpool_embedding_errors_are_pytorchs():
    """Classes and words of PyTorch 2.15 (issue 34): F's Python parts fail as PyTorch's Python does (IndexError
    from input.size(), ValueError from unpacking), the C++ ops as ATen's (avg_pool2d reads input.size(-3))."""
    i0 = minitorch.zeros(1, 2, 2, dtype=minitorch.int64)
    x = minitorch.ones(1, 2, 2)
    cases = [
        (lambda: F.avg_pool2d(minitorch.ones(4), 2), IndexError,
         "Dimension out of range (expected to be in range of [-1, 0], but got -3)"),
        (lambda: F.avg_pool2d(minitorch.tensor(1.0), 0), IndexError, "Dimension specified as -3 but tensor has no dimensions"),
        (lambda: nn.AvgPool2d(2)(minitorch.ones(2, 3)), IndexError, "but got -3"),
        (lambda: F.avg_pool2d(minitorch.ones(4), (1, 2, 3)), RuntimeError,
         "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
        (lambda: F.avg_pool2d(minitorch.ones(4), 2, divisor_override=0), RuntimeError, "divisor must be not zero"),
        (lambda: F.avg_pool2d(minitorch.ones(4), 2.5), TypeError,
         "avg_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
        (lambda: F.lp_pool2d(minitorch.ones(3, 3), 1e-5, None), TypeError,
         "avg_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not NoneType"),
        (lambda: F.lp_pool2d(minitorch.ones(4), 2, "replicate"), ValueError, "too many values to unpack (expected 2)"),
        (lambda: F.lp_pool2d(minitorch.tensor(1), 2, minitorch.tensor(5)), TypeError, "iteration over a 0-d tensor"),
        (lambda: F.lp_pool2d(minitorch.ones(1, 4, 4), 0, 2), ValueError, "norm_type must be a non-zero value, but got 0"),
        (lambda: F.lp_pool1d(minitorch.ones(1, 4), 0, 2), ValueError, "norm_type must be a non-zero value, but got 0"),
        (lambda: F.max_unpool3d(float("nan"), float("nan"), -1), AttributeError, "'float' object has no attribute 'size'"),
        (lambda: F.max_unpool2d(minitorch.ones(4), minitorch.ones(4, dtype=minitorch.int64), 2), IndexError,
         "tuple index out of range"),
        (lambda: F.max_unpool2d(x, 1.5, 2), TypeError, "max_unpool2d(): argument 'indices' (position 2) must be Tensor, not float"),
        (lambda: F.max_unpool2d(x, i0, 2, output_size=(4,)), ValueError,
         "output_size should be a sequence containing 2 or 4 elements, but it has a length of '1'"),
        (lambda: F.max_unpool2d(minitorch.ones(2, 2), minitorch.zeros(2, 2, dtype=minitorch.int64), 2), RuntimeError,
         "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 dimensions."),
        (lambda: F.max_unpool1d(minitorch.ones(2), minitorch.zeros(2, dtype=minitorch.int64), 2), RuntimeError,
         "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 dimensions."),
        (lambda: F.max_unpool2d(minitorch.ones(1, 0, 2), minitorch.zeros(1, 0, 2, dtype=minitorch.int64), 2), RuntimeError,
         ("max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, but input "
         "has sizes [1, 0, 2] with dimension 1 being empty")),
        (lambda: F.max_unpool2d(x, i0, -2), ValueError,
         "max_unpooling: output_size must contain non-negative spatial dimensions, but got output_size[0]=-4"),
        (lambda: F.max_unpool2d(x.long(), i0, 2), NotImplementedError, "\"max_unpool2d\" not implemented for 'Long'"),
        (lambda: nn.MaxUnpool3d(1)(minitorch.ones(1, 1, 2, 2, 2, dtype=minitorch.int32),
                                   minitorch.zeros(1, 1, 2, 2, 2, dtype=minitorch.int64)),
         NotImplementedError, "\"max_unpool3d\" not implemented for 'Int'"),
        (lambda: F.max_unpool3d(minitorch.ones(1, 2, 2, 2), minitorch.zeros(1, 2, 2, 2, dtype=minitorch.int64), (2, 2)),
         RuntimeError, "There should be exactly three elements (depth, height, width) in output_size, but got 2 elements."),
        (lambda: F.embedding(minitorch.tensor(0), minitorch.tensor(0)), RuntimeError, "'weight' must be 2-D"),
        (lambda: F.embedding(minitorch.tensor([0]), 1.5), TypeError,
         "embedding(): argument 'weight' (position 1) must be Tensor, not float"),
        (lambda: F.embedding(minitorch.tensor(0.0), minitorch.tensor(0.0), minitorch.tensor(0.0)), TypeError,
         "embedding(): argument 'padding_idx' (position 3) must be int, not Tensor"),
        (lambda: F.embedding(minitorch.tensor([0]), minitorch.ones(3, 2), padding_idx=1.5), TypeError,
         "argument 'padding_idx' (position 3) must be int, not float"),
    ]  # fmt: skip
    for call, cls, msg in cases:
        with pytest.raises(cls) as e:
            call()
        assert type(e.value) is cls and msg in str(e.value), (msg, e.value)
    # what still works: unpooling with an exact or a batched output_size, lp pools with an infinite norm
    v = _t(_rand(1, 2, 2, seed=30))
    flat = minitorch.tensor([[[0, 3], [12, 15]]])
    ref = np.zeros(16)
    ref[[0, 3, 12, 15]] = _np(v).reshape(-1)
    _close(F.max_unpool2d(v, flat, 2, output_size=(1, 1, 4, 4)), ref.reshape(1, 4, 4))
    got = F.max_unpool1d(v, minitorch.tensor([[[0, 3], [2, 1]]]), 2, output_size=[4])
    vn = _np(v)[0]
    _close(got, np.array([[[vn[0, 0], 0, 0, vn[0, 1]], [0, vn[1, 1], vn[1, 0], 0]]]))
    x4 = _rand(1, 4, 4, seed=31)
    w4 = np.abs(x4).reshape(1, 2, 2, 2, 2)
    _close(F.lp_pool2d(_t(x4), float("inf"), 2), w4.max((2, 4)))
    _close(F.lp_pool2d(_t(x4), -float("inf"), 2), -(-w4).max((2, 4)))
    _close(F.lp_pool1d(_t(x4), float("inf"), 2), np.abs(x4).reshape(1, 4, 2, 2).max(-1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_lp_pool(device, dtype):
    x = _rand(2, 3, 6, 8, seed=20, low=0.1, high=2.0)
    w = x.reshape(2, 3, 3, 2, 4, 2)
    _close(F.lp_pool2d(_t(x, dtype, device, True), 2, 2), np.sqrt((w**2).sum((3, 5))), dtype)
    _close(nn.LPPool2d(3, (2, 2))(_t(x, dtype, device)), ((w**3).sum((3, 5))) ** (1 / 3), dtype)
    x1 = _rand(2, 3, 9, seed=21, low=0.1)
    w1 = x1.reshape(2, 3, 3, 3)
    _close(F.lp_pool1d(_t(x1, dtype, device), 1.5, 3), (w1**1.5).sum(-1) ** (1 / 1.5), dtype)
    _close(nn.LPPool1d(2, 3, stride=3)(_t(x1, dtype, device)), np.sqrt((w1**2).sum(-1)), dtype)
    assert repr(nn.LPPool1d(2, 3)) == "LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    assert (
        repr(nn.LPPool2d(1.5, (2, 3), stride=1, ceil_mode=True))
        == "LPPool2d(norm_type=1.5, kernel_size=(2, 3), stride=1, ceil_mode=True)"
    )


def test_adaptive_max_pool1d_and_with_indices(device):
    x = _rand(2, 3, 10, seed=22)
    t = _t(x, device=device)
    out, idx = F.adaptive_max_pool1d(t, 4, return_indices=True)
    starts = [math.floor(i * 10 / 4) for i in range(4)]
    ends = [math.ceil((i + 1) * 10 / 4) for i in range(4)]
    ref = np.stack([x[..., a:b].max(-1) for a, b in zip(starts, ends)], -1)
    _close(out, ref)
    _close(nn.AdaptiveMaxPool1d(4)(t), ref)
    np.testing.assert_array_equal(np.take_along_axis(x, _np(idx).astype(np.int64), -1), ref)
    assert repr(nn.AdaptiveMaxPool1d(3)) == "AdaptiveMaxPool1d(output_size=3)"
    v, _ = F.max_pool1d_with_indices(t, 2)
    _close(v, x.reshape(2, 3, 5, 2).max(-1))
    v2, i2 = F.max_pool2d_with_indices(_t(_rand(1, 1, 4, 4), device=device), 2)
    assert v2.shape == (1, 1, 2, 2) and i2.dtype == minitorch.int64
    x4 = _rand(1, 1, 4, 4, seed=3)
    np.testing.assert_array_equal(
        _np(F.max_pool2d_with_indices(_t(x4), 2)[0]), x4.reshape(1, 1, 2, 2, 2, 2).max((3, 5))
    )
    v3, _ = F.adaptive_max_pool2d_with_indices(_t(x4, device=device), 2)
    _close(v3, x4.reshape(1, 1, 2, 2, 2, 2).max((3, 5)))


# ---------------------------------------------------------------- channel shuffle, dropout
def test_channel_shuffle(device):
    x = _rand(2, 6, 3, seed=23)
    ref = x.reshape(2, 2, 3, 3).transpose(0, 2, 1, 3).reshape(2, 6, 3)
    _close(F.channel_shuffle(_t(x, device=device, noncontig=True), 2), ref)
    _close(nn.ChannelShuffle(2)(_t(x, device=device)), ref)
    _close(minitorch.channel_shuffle(_t(x, device=device), 2), ref)
    assert repr(nn.ChannelShuffle(2)) == "ChannelShuffle(groups=2)"
    with pytest.raises(
        RuntimeError, match="Number of channels must be divisible by groups. Got 6 channels and 4 groups."
    ):
        F.channel_shuffle(minitorch.randn(2, 6, 3), 4)
    with pytest.raises(
        RuntimeError, match="Number of groups to divide channels in must be positive. Value of groups:0"
    ):
        F.channel_shuffle(minitorch.randn(2, 6, 3), 0)
    with pytest.raises(
        RuntimeError, match=r"channel_shuffle expects input with > 2 dims, but got input with sizes \[6\]"
    ):
        F.channel_shuffle(minitorch.randn(6), 2)


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropouts_keep_mean_and_variance(feature):
    minitorch.manual_seed(0)
    x = minitorch.randn(400, 300, 2, dtype=minitorch.float64)
    fn = F.feature_alpha_dropout if feature else F.alpha_dropout
    y = _np(fn(x, 0.3, training=True))
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1) < 0.03
    # a dropped unit takes one value, SELU's saturation -alpha mapped by the restoring affine a * v + b
    alpha = 1.7580993408473766
    a = 1 / math.sqrt((alpha**2 * 0.3 + 1) * 0.7)
    dropped = np.isclose(y, a * -alpha + alpha * a * 0.3, rtol=0, atol=1e-12)
    assert 0.27 < dropped.mean() < 0.33
    kept = ~dropped
    np.testing.assert_allclose(y[kept], a * _np(x)[kept] + alpha * a * 0.3, rtol=1e-12)
    if feature:  # whole (sample, channel) rows share one draw
        np.testing.assert_array_equal(dropped.any(-1), dropped.all(-1))
    np.testing.assert_array_equal(_np(fn(x, 0.3, training=False)), _np(x))


def test_alpha_dropout_modules_and_errors():
    m = nn.AlphaDropout(0.2)
    assert repr(m) == "AlphaDropout(p=0.2, inplace=False)"
    assert repr(nn.FeatureAlphaDropout(0.2)) == "FeatureAlphaDropout(p=0.2, inplace=False)"
    x = minitorch.randn(4, 5)
    m.eval()
    np.testing.assert_array_equal(_np(m(x)), _np(x))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.alpha_dropout(x, 1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        nn.AlphaDropout(-0.1)


# ---------------------------------------------------------------- embedding bag
def _bag_ref(table, ids, starts, mode, psw=None, padding_idx=None):
    out = []
    bounds = list(starts) + [len(ids)]
    for b in range(len(starts)):
        sel = [i for i in range(bounds[b], bounds[b + 1]) if ids[i] != padding_idx]
        rows = table[[ids[i] for i in sel]] * (np.asarray(psw)[sel, None] if psw is not None else 1.0)
        if not sel:
            out.append(np.zeros(table.shape[1]))
        elif mode == "sum":
            out.append(rows.sum(0))
        elif mode == "mean":
            out.append(rows.mean(0))
        else:
            out.append(rows.max(0))
    return np.stack(out)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_values(device, dtype, mode):
    table = _rand(10, 4, seed=24)
    ids = [1, 2, 4, 5, 4, 3, 2, 9]
    offsets = [0, 3, 3, 6]
    w = _t(table, dtype, device, noncontig=True)
    got = F.embedding_bag(
        _t(ids, minitorch.int64, device), w, _t(offsets, minitorch.int64, device), mode=mode
    )
    _close(got, _bag_ref(table, ids, offsets, mode), dtype)
    got_pad = F.embedding_bag(
        _t(ids, minitorch.int64, device), w, _t(offsets, minitorch.int64, device), mode=mode, padding_idx=4
    )
    _close(got_pad, _bag_ref(table, ids, offsets, mode, padding_idx=4), dtype)
    ids2 = np.array([[1, 2, 3], [4, 4, 9]])
    got2 = F.embedding_bag(_t(ids2, minitorch.int64, device), w, mode=mode)
    _close(got2, _bag_ref(table, ids2.reshape(-1).tolist(), [0, 3], mode), dtype)
    last = F.embedding_bag(
        _t(ids, minitorch.int64, device), w, _t(offsets + [8], minitorch.int64, device), mode=mode,
        include_last_offset=True,
    )  # fmt: skip
    _close(last, _bag_ref(table, ids, offsets, mode), dtype)


def test_embedding_bag_per_sample_weights_and_grad():
    table = _rand(6, 3, seed=25)
    ids = minitorch.tensor([0, 2, 2, 5, 1])
    off = minitorch.tensor([0, 2])
    psw = _rand(5, seed=26)
    got = F.embedding_bag(ids, _t(table), off, mode="sum", per_sample_weights=_t(psw))
    _close(got, _bag_ref(table, [0, 2, 2, 5, 1], [0, 2], "sum", psw))
    for mode in ("sum", "mean", "max"):
        assert gradcheck(lambda w, m=mode: F.embedding_bag(ids, w, off, mode=m), (_leaf(table),))
    assert gradcheck(
        lambda w, p: F.embedding_bag(ids, w, off, mode="sum", per_sample_weights=p),
        (_leaf(table), _leaf(psw)),
    )


def test_embedding_bag_errors():
    w = minitorch.randn(5, 3)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(minitorch.tensor([1, 2]), w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(minitorch.tensor([[1, 2]]), w, minitorch.tensor([0]))
    with pytest.raises(
        NotImplementedError, match=r"per_sample_weights is only supported for mode='sum' \(got mode='mean'\)"
    ):
        F.embedding_bag(
            minitorch.tensor([1, 2]),
            w,
            minitorch.tensor([0]),
            mode="mean",
            per_sample_weights=minitorch.ones(2),
        )
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(minitorch.tensor([1, 2]), w, minitorch.tensor([0]), mode="foo")
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(minitorch.tensor([1, 2]), w, minitorch.tensor([1]))
    with pytest.raises(ValueError, match="input has to be 1D or 2D Tensor, but got Tensor of dimension 3"):
        F.embedding_bag(minitorch.tensor([[[1, 2]]]), w)


def test_embedding_bag_module():
    m = nn.EmbeddingBag(10, 3)
    assert repr(m) == "EmbeddingBag(10, 3, mode='mean')"
    assert list(m.state_dict()) == ["weight"] and m.weight.shape == (10, 3)
    m2 = nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=3, mode="sum", padding_idx=2, scale_grad_by_freq=True)
    assert (
        repr(m2)
        == "EmbeddingBag(10, 3, max_norm=1.0, norm_type=3, scale_grad_by_freq=True, mode='sum', padding_idx=2)"
    )
    assert (_np(m2.weight[2]) == 0).all()
    table = _rand(4, 3, seed=27)
    pre = nn.EmbeddingBag.from_pretrained(_t(table), mode="max")
    assert not pre.weight.requires_grad and repr(pre) == "EmbeddingBag(4, 3, mode='max')"
    _close(pre(minitorch.tensor([[0, 3], [1, 1]])), np.stack([table[[0, 3]].max(0), table[1]]))
    assert nn.EmbeddingBag.from_pretrained(_t(table), freeze=False).weight.requires_grad


# ---------------------------------------------------------------- lazy modules
def test_uninitialized_parameter():
    p = nn.parameter.UninitializedParameter()
    assert repr(p) == "<UninitializedParameter>" and p.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer"):
        _ = p.shape
    p.materialize((3, 2))
    assert type(p) is nn.Parameter and p.shape == (3, 2)


def test_lazy_linear_becomes_linear():
    m = nn.LazyLinear(4)
    assert repr(m) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert list(m.state_dict()) == ["weight", "bias"]
    assert all(isinstance(p, nn.parameter.UninitializedParameter) for p in m.parameters())
    params_before = list(m.parameters())
    x = minitorch.randn(2, 5)
    y = m(x)
    assert type(m) is nn.Linear and m.in_features == 5 and m.weight.shape == (4, 5) and y.shape == (2, 4)
    assert all(type(p) is nn.Parameter for p in m.parameters())
    assert params_before[0] is m.weight  # an optimizer built before the first call keeps the same objects
    np.testing.assert_allclose(_np(y), _np(x) @ _np(m.weight).T + _np(m.bias), rtol=1e-5, atol=1e-6)
    bound = 1 / math.sqrt(5)
    assert np.abs(_np(m.weight)).max() <= bound and np.abs(_np(m.bias)).max() <= bound
    assert repr(m) == "Linear(in_features=5, out_features=4, bias=True)"
    nb = nn.LazyLinear(3, bias=False)
    nb(minitorch.randn(2, 2))
    assert nb.bias is None and list(nb.state_dict()) == ["weight"]


def test_lazy_linear_loads_a_state_dict():
    src = nn.Linear(5, 4)
    m = nn.LazyLinear(4)
    m.load_state_dict(src.state_dict())
    x = minitorch.randn(3, 5)
    np.testing.assert_allclose(_np(m(x)), _np(src(x)), rtol=1e-6)
    assert type(m) is nn.Linear and m.in_features == 5


@pytest.mark.parametrize(
    "cls,target,shape", [(nn.LazyConv1d, nn.Conv1d, (2, 3, 9)), (nn.LazyConv2d, nn.Conv2d, (2, 3, 7, 6))]
)
def test_lazy_conv(cls, target, shape):
    m = cls(4, 3, padding=1, bias=False) if cls is nn.LazyConv2d else cls(4, 3)
    r = repr(m)
    assert r in (
        "LazyConv1d(0, 4, kernel_size=(3,), stride=(1,))",
        "LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)",
    )
    x = minitorch.randn(shape)
    y = m(x)
    assert type(m) is target and m.in_channels == 3 and m.weight.shape[:2] == (4, 3)
    conv = F.conv1d if target is nn.Conv1d else F.conv2d
    np.testing.assert_allclose(_np(y), _np(conv(x, m.weight, m.bias, m.stride, m.padding)), rtol=1e-6)
    unbatched = cls(2, 3)
    assert unbatched(minitorch.randn(shape[1:])).shape[0] == 2 and unbatched.in_channels == 3


@pytest.mark.parametrize(
    "cls,target,shape",
    [(nn.LazyBatchNorm1d, nn.BatchNorm1d, (6, 3)), (nn.LazyBatchNorm2d, nn.BatchNorm2d, (4, 3, 2, 2))],
)
def test_lazy_batchnorm(cls, target, shape):
    m = cls()
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert repr(m).startswith(f"{cls.__name__}(0, eps=1e-05, momentum=0.1, affine=True")
    x = minitorch.randn(shape, dtype=minitorch.float32)
    y = m(x)
    assert type(m) is target and m.num_features == 3 and m.running_mean.shape == (3,)
    assert int(m.num_batches_tracked.item()) == 1
    dims = (0,) if len(shape) == 2 else (0, 2, 3)
    xn = _np(x)
    ref = (xn - xn.mean(dims, keepdims=True)) / np.sqrt(xn.var(dims, keepdims=True) + 1e-5)
    np.testing.assert_allclose(_np(y), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(m.running_mean), 0.1 * xn.mean(dims), rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="expected"):
        cls()(minitorch.randn(2, 3, 4, 5, 6))


def test_bilinear_unfold_fold_pixel_shuffle_checks_are_pytorchs():
    """ATen's checks, their order and words (issue 34): bilinear's dtype, rank and size checks (IndexError when
    the weight is short), im2col's (kernel, dilation, padding, stride; then it reads dims 1 and 2) and
    col2im's (kernel, stride, ...; then the rank), their dtypes (floating and bool), and the parser"""
    o = minitorch.ones
    cases = [
        (lambda: F.bilinear(o(3), o(3), o(3)), IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
        (lambda: F.bilinear(o(2, 3), o(3), o(4, 3, 3)), RuntimeError, "bilinear(): input dimensions do not match: got 2 and 1"),
        (lambda: F.bilinear(o(2, 3), o(3, 3), o(4, 3, 3)), RuntimeError,
         "bilinear(): input batch dimensions do not match at dim 0: got 2 and 3"),
        (lambda: F.bilinear(o(2, 3), o(2, 3), o(4, 2, 3)), RuntimeError,
         "bilinear(): input1 size does not match weight size: got 3 but expected 2"),
        (lambda: F.bilinear(o(2, 3), o(2, 3), o(4, 3, 3), o(3)), RuntimeError,
         "bilinear(): bias size does not match weight size: got 3 but expected 4"),
        (lambda: F.bilinear(o(2, 3, dtype=minitorch.float64), o(2, 3), o(4, 3)), RuntimeError,
         "All tensors must have the same dtype, got input1: double, input2: float, weight: float"),
        (lambda: minitorch.bilinear(o(2, 3), o(2, 3), 1), TypeError, "bilinear(): argument 'weight' (position 3) must be Tensor, not int"),
        (lambda: F.pixel_shuffle(o(1, 4, 2, 2), 2.0), TypeError,
         "pixel_shuffle(): argument 'upscale_factor' (position 2) must be int, not float"),
        (lambda: F.unfold(o(2, 4), 2, 0), RuntimeError, "dilation should be greater than zero, but got dilation_height: 0 dilation_width: 0"),
        (lambda: F.unfold(o(2, 4), 0), RuntimeError, "kernel size should be greater than zero"),
        (lambda: F.unfold(o(2), 2), IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
        (lambda: F.unfold(minitorch.tensor(2.0), 3, 1), IndexError, "Dimension specified as 1 but tensor has no dimensions"),
        (lambda: F.unfold(o(1, 2, 4), 2, 1, -1, 0), RuntimeError, "padding should be non-negative, but got pad_height: -1 pad_width: -1"),
        (lambda: F.unfold(o(1, 2, 4, 4), (1, 2, 3)), RuntimeError, "It is expected kernel_size equals to 2, but got size 3"),
        (lambda: F.unfold(o(1, 2, 4, 4, dtype=minitorch.int64), 2), NotImplementedError, "\"im2col_out_cpu\" not implemented for 'Long'"),
        (lambda: F.unfold(o(1, 2, 4), 2.5), TypeError,
         "im2col(): argument 'kernel_size' (position 2) must be tuple of ints, but found element of type float at pos 0"),
        (lambda: F.fold(o(4), (3, 3), 0), RuntimeError, "kernel size should be greater than zero"),
        (lambda: F.fold(o(1, 4, 4), (3, 3), 2, 0, -1, 0), RuntimeError, "stride should be greater than zero"),
        (lambda: F.fold(o(1, 4, 4, dtype=minitorch.int64), (3, 3), 2), NotImplementedError, "\"col2im_out_cpu\" not implemented for 'Long'"),
        (lambda: F.fold(o(4), -1, minitorch.tensor([2, 3]), 1e-05), TypeError, "col2im(): argument 'dilation' (position 4) must be tuple of ints"),
    ]  # fmt: skip
    for call, cls, msg in cases:
        with pytest.raises(cls) as e:
            call()
        assert type(e.value) is cls and msg in str(e.value), (msg, e.value)
    # bool unfold/fold (PyTorch takes them), values against the float computation
    xb = minitorch.tensor(np.random.default_rng(3).random((1, 2, 4, 4)) > 0.5)
    np.testing.assert_array_equal(_np(F.unfold(xb, 2)), _np(F.unfold(xb.double(), 2)))
    assert F.unfold(xb, 2).dtype == minitorch.bool
    bil = F.bilinear(_t(_rand(3)), _t(_rand(3, seed=1)), _t(_rand(4, 3, 3, seed=2)))
    _close(bil, np.einsum("i,oij,j->o", _rand(3), _rand(4, 3, 3, seed=2), _rand(3, seed=1)))


def test_loss_dropout_adaptive_pool_checks_are_pytorchs():
    """More of issue 34's findings, each call's class and words as PyTorch 2.15's: gaussian_nll_loss takes only
    a float as a number var (any() refuses the bool an int var gives), dropout1d checks p before the rank,
    the adaptive pools' _list_with_default (ValueError) and their C++ parser, max_pool1d/3d_with_indices' and
    lp_pool3d's parser, binary_cross_entropy reads weight.size()"""
    o = minitorch.ones
    cases = [
        (lambda: F.gaussian_nll_loss(o(3), o(3), 2), TypeError,
         "any() received an invalid combination of arguments - got (bool), but expected one of:"),
        (lambda: F.gaussian_nll_loss(o(3), o(3), False, -1), TypeError, "any() received an invalid combination"),
        (lambda: F.gaussian_nll_loss(o(3), o(3), -1.0), ValueError, "var has negative entry/entries"),
        (lambda: F.dropout1d(minitorch.tensor(2.0), -1), ValueError,
         "dropout probability has to be between 0 and 1, but got -1"),
        (lambda: F.adaptive_max_pool2d(minitorch.tensor(3.0), []), ValueError, "Input dimension should be at least 1"),
        (lambda: F.adaptive_avg_pool2d(o(3), [0]), ValueError, "Input dimension should be at least 2"),
        (lambda: nn.AdaptiveMaxPool2d([0, 1, 0])(o(2)), ValueError, "Input dimension should be at least 4"),
        (lambda: F.adaptive_avg_pool2d(o(1, 4, 4), 2.5), TypeError,
         "object of type 'float' has no len()"),
        (lambda: F.max_pool1d_with_indices(minitorch.tensor(-1.7), minitorch.tensor([0, 0])), TypeError,
         "max_pool1d_with_indices(): argument 'kernel_size' (position 2) must be tuple of ints, not Tensor"),
        (lambda: F.max_pool1d_with_indices(o(2), 0, minitorch.tensor([1, 0])), TypeError,
         "max_pool1d_with_indices(): argument 'stride' (position 3) must be tuple of ints, not Tensor"),
        (lambda: F.max_pool3d_with_indices(o(2, 1), False), TypeError,
         "max_pool3d_with_indices(): argument 'kernel_size' (position 2) must be tuple of ints, not bool"),
        (lambda: F.max_pool3d(o(1, 2, 2, 2), 2, dilation=1.5), TypeError, "max_pool3d(): argument 'dilation' (position 5)"),
        (lambda: F.avg_pool3d(o(1, 2, 2, 2), True), TypeError,
         "avg_pool3d(): argument 'kernel_size' (position 2) must be tuple of ints, not bool"),
        (lambda: F.lp_pool3d(o(4, 1), 2, True), TypeError,
         "avg_pool3d(): argument 'kernel_size' (position 2) must be tuple of ints, not bool"),
        (lambda: F.lp_pool3d(o(5), 2, o(10)), ValueError, "too many values to unpack (expected 3)"),
        (lambda: F.binary_cross_entropy(o(2, 2), o(2, 2), 3), AttributeError, "'int' object has no attribute 'size'"),
        (lambda: F.elu_(o(2, dtype=minitorch.int64), -0.5, False), NotImplementedError, "\"elu_cpu\" not implemented for 'Long'"),
    ]  # fmt: skip
    for call, cls, msg in cases:
        with pytest.raises(cls) as e:
            call()
        assert type(e.value) is cls and msg in str(e.value), (msg, e.value)
    # the valid calls: None sizes, elu_'s scales, a weight broadcast to the target
    assert F.adaptive_max_pool2d(o(1, 4, 4), [None, 2]).shape == (1, 4, 2)
    assert F.adaptive_avg_pool3d(o(1, 2, 2, 2), [None, 1, None]).shape == (1, 2, 1, 2)
    x = minitorch.tensor([-1.0, 2.0])
    assert F.elu_(x, 0.5, 2.0, 3.0) is x
    _close(x, np.array([2.0 * 0.5 * np.expm1(-3.0), 4.0]), minitorch.float32)
    w = np.array([1.0, 2.0, 3.0])
    got = F.binary_cross_entropy(minitorch.full((2, 3), 0.25), o(2, 3), _t(w, minitorch.float32))
    _close(got, np.mean(-np.log(0.25) * np.broadcast_to(w, (2, 3))), minitorch.float32)


def test_adaptive_avg_pool_of_size_one_is_a_mean_over_trailing_dims():
    """ATen's shortcut for output size 1 (issue 34): a mean over the last two (three) dims whatever the rank,
    so other ranks work and fewer dims fail in mean's IndexError, as PyTorch 2.15's"""
    x = _rand(2, 3, 4, 5, 6, seed=40)
    _close(F.adaptive_avg_pool2d(_t(x), 1), x.mean((-1, -2), keepdims=True))
    _close(F.adaptive_avg_pool2d(_t(x[0, 0, 0]), 1), x[0, 0, 0].mean(keepdims=True).reshape(1, 1))
    _close(F.adaptive_avg_pool3d(_t(x[0, 0]), 1), x[0, 0].mean(keepdims=True).reshape(1, 1, 1))
    _close(
        F.adaptive_avg_pool3d(_t(x, noncontig=True), [1, 1, 1]),
        np.swapaxes(x, -1, -2).mean((-1, -2, -3), keepdims=True),
    )
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t, 1), (_leaf(x[0, :2, :3, :3]),))
    with pytest.raises(
        IndexError, match=re.escape("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    ):
        F.adaptive_avg_pool2d(minitorch.ones(4), 1)
    with pytest.raises(
        RuntimeError, match=re.escape("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [5]")
    ):
        F.adaptive_avg_pool3d(minitorch.ones(5), 0)
    with pytest.raises(RuntimeError, match="elements of output_size must be greater than or equal to 0"):
        nn.AdaptiveAvgPool3d(-3)(minitorch.ones(4))


def test_hardtanh_inplace_is_atens_op():
    """F.hardtanh_ is PyTorch's C++ op (issue 34): no min_val <= max_val check there (min_val > max_val gives
    max_val everywhere, as PyTorch 2.15's kernel), no bools, integers keep their dtype; F.hardtanh keeps its
    Python check"""
    x = minitorch.tensor([1.8, 1.3, -0.5, 2.5])
    assert F.hardtanh_(x, 2) is x and x.tolist() == [1.0, 1.0, 1.0, 1.0]
    i = minitorch.tensor([1, 5, -3])
    assert F.hardtanh_(i, 0, 2).tolist() == [1, 2, 0] and i.dtype == minitorch.int64
    for call in (
        lambda: F.hardtanh_(minitorch.tensor(False), False),
        lambda: F.hardtanh(minitorch.tensor([True]), 0, 1),
    ):
        with pytest.raises(NotImplementedError, match="Bool inputs not supported for hardtanh"):
            call()
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(minitorch.ones(2), 2, 1)
    _close(F.hardtanh(_t(_rand(5, seed=41)), -0.5, 0.5), np.clip(_rand(5, seed=41), -0.5, 0.5))


# ---------------------------------------------------------------- ELU family and hardtanh: PyTorch's gradients
# (found by the differential fuzzer, issue 34)
_ELU_X = [0.0, -0.0, 1.0, -1.0, -1e30, 2.5, -1e-3, -30.0]


def _elu_ref(x, alpha, scale=1.0, input_scale=1.0):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        return np.where(x < 0, alpha * scale * np.expm1(x * input_scale), x * scale)


@pytest.mark.parametrize("alpha", [1.0, 2.0, 1e-5, math.inf])
def test_elu_celu_values_and_gradients(alpha):
    x = _leaf(_ELU_X)
    ones = minitorch.ones(len(_ELU_X), dtype=minitorch.float64)
    # elu(0) is 0 for every alpha; the branch not taken never reaches the gradient (no 0 * inf)
    with np.errstate(all="ignore"):
        for fn, ref, dref in (
            (F.elu, _elu_ref(_ELU_X, alpha), np.where(np.array(_ELU_X) > 0, 1.0, alpha * np.exp(_ELU_X))),
            (
                F.celu,
                _elu_ref(_ELU_X, alpha, 1.0, 1.0 / alpha),
                # PyTorch's backward scales by 1 / alpha with alpha rounded to float32 (1.0 / alpha.toFloat())
                np.where(
                    np.array(_ELU_X) > 0,
                    1.0,
                    alpha / float(np.float32(alpha)) * np.exp(np.array(_ELU_X) / float(np.float32(alpha))),
                ),
            ),
        ):
            y = fn(x, alpha)
            np.testing.assert_allclose(_np(y), ref, rtol=1e-14)
            (g,) = minitorch.autograd.grad(y, x, ones)
            # at x = 0 the gradient is the negative branch's, as PyTorch's x <= 0 test
            np.testing.assert_allclose(_np(g), dref, rtol=1e-12)
    if alpha >= 1 and math.isfinite(alpha):  # (finite differences cannot resolve CELU's 1e-5 scale)
        assert gradcheck(lambda v: F.elu(v, alpha), (_leaf([-1.5, -0.2, 0.3, 2.0]),))
        assert gradcheck(lambda v: F.celu(v, alpha), (_leaf([-1.5, -0.2, 0.3, 2.0]),))


def test_elu_special_alphas_and_dtypes():
    nan = math.nan
    y = F.celu(_t([0.0, -0.0, -1.0, 1.0], minitorch.float32), math.inf)
    np.testing.assert_array_equal(_np(y), [0.0, -0.0, nan, 1.0])
    y = F.elu(_t([0.0, -1.0, 2.0], minitorch.float16), nan)
    np.testing.assert_array_equal(_np(y), [0.0, nan, 2.0])
    for dt in (minitorch.float16, minitorch.bfloat16):
        y = F.elu(_t([-1.0, 2.0], dt), 2.0)
        assert y.dtype == dt
        np.testing.assert_allclose(_np(y), [2 * math.expm1(-1.0), 2.0], rtol=1e-2)
    # NaN in gives NaN out, and a NaN gradient
    x = _leaf([nan, 1.0])
    (g,) = minitorch.autograd.grad(F.elu(x), x, minitorch.ones(2, dtype=minitorch.float64))
    assert math.isnan(g[0].item()) and g[1].item() == 1.0


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.bfloat16])
def test_elu_kernel_blocks_layouts_and_grad(dtype):
    # the kernel runs 256-element blocks through the vector expm1 and skips it in blocks without a negative:
    # an all-positive stretch, a lone negative at a block's end, mixed signs, a strided view and an empty input
    rng = np.random.default_rng(3)
    v = rng.standard_normal(2000) * 4
    v[:600] = np.abs(v[:600])
    v[511] = -0.75
    v = v.astype(np.float32 if dtype != minitorch.float64 else np.float64)
    x = minitorch.from_numpy(v).to(dtype)
    xv = v.astype(np.float64) if dtype != minitorch.bfloat16 else _np(x)
    tol = {minitorch.float32: 2e-6, minitorch.float64: 1e-14, minitorch.bfloat16: 1e-2}[dtype]
    for fn, ref in (
        (F.selu, _elu_ref(xv, 1.6732632423543772, 1.0507009873554805)),
        (lambda t: F.celu(t, 1.7), _elu_ref(xv, 1.7, 1.0, 1 / 1.7)),
        (lambda t: F.elu(t, 0.3), _elu_ref(xv, 0.3)),
    ):
        y = fn(x)
        assert y.dtype == dtype
        np.testing.assert_allclose(_np(y), ref, rtol=tol, atol=tol * 1e-3)
        np.testing.assert_allclose(_np(fn(x[::3])), ref[::3], rtol=tol, atol=tol * 1e-3)
        assert fn(x[:0]).shape == (0,)
    a = _leaf([-1.5, -0.2, 0.3, 2.0, -3.0])
    assert gradcheck(F.selu, (a,)) and gradcheck(lambda t: F.celu(t, 1.7), (a,))
    assert F.selu(a).grad_fn.name() == "EluBackward0"


def test_inplace_elu_gradient_reads_the_result():
    # PyTorch's in-place forms differentiate through the result r: r <= 0 gives input_scale * (r + alpha * scale)
    for scale, input_scale in ((1.0, 1.0), (2.0, 0.5)):
        a = _leaf([-1.5, -0.2, 0.0, 0.3, 2.0])
        y = F.elu_(a * 1, 0.7, scale, input_scale)
        np.testing.assert_allclose(_np(y), _elu_ref(_np(a), 0.7, scale, input_scale), rtol=1e-14)
        (g,) = minitorch.autograd.grad(y, a, minitorch.ones(5, dtype=minitorch.float64))
        r = _np(y)
        np.testing.assert_allclose(
            _np(g), np.where(r > 0, scale, input_scale * (r + 0.7 * scale)), rtol=1e-14
        )
    a = _leaf([-1.5, -0.2, 0.3])
    assert gradcheck(lambda v: F.celu_(v * 1, 0.5), (a,))
    assert gradcheck(lambda v: F.selu_(v * 1), (a,))
    assert gradcheck(lambda v: F.elu(v * 1, 2.0, inplace=True), (a,))
    # a negative alpha cannot be recovered from the result: PyTorch refuses it at backward
    y = F.elu_(a * 1, -1.0)
    with pytest.raises(
        RuntimeError, match="In-place elu backward calculation is triggered with a negative slope"
    ):
        y.sum().backward()


def test_hardtanh_gradient_stops_at_the_bounds():
    x = _leaf([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 6.0])
    ones = minitorch.ones(8, dtype=minitorch.float64)
    for fn, lo, hi in (
        (lambda v: F.hardtanh(v), -1.0, 1.0),
        (lambda v: F.relu6(v), 0.0, 6.0),
        (lambda v: F.hardtanh(v * 1, -0.5, 1.0, inplace=True), -0.5, 1.0),
        (lambda v: F.relu6(v * 1, inplace=True), 0.0, 6.0),
        (lambda v: nn.Hardtanh(-2.0, 2.0)(v), -2.0, 2.0),
    ):
        y = fn(x)
        np.testing.assert_array_equal(_np(y), np.clip(_np(x), lo, hi))
        (g,) = minitorch.autograd.grad(y, x, ones)
        # PyTorch's hardtanh_backward: 0 at the bounds themselves, unlike clamp
        np.testing.assert_array_equal(_np(g), ((_np(x) > lo) & (_np(x) < hi)).astype(float))
    assert gradcheck(lambda v: F.hardtanh(v, -0.5, 0.5), (_leaf([-0.9, -0.3, 0.2, 0.8]),))


# ---- AdaptiveLogSoftmaxWithLoss


def _np_log_softmax(a):
    m = a.max(1, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(1, keepdims=True))


def _asm_reference(mod, x):
    """(N, n_classes) log-probabilities from the module's weights, in float64 NumPy."""
    w = {k: v.detach().double().numpy() for k, v in mod.state_dict().items()}
    head = x @ w["head.weight"].T + w.get("head.bias", 0)
    hl = _np_log_softmax(head)
    cols = [hl[:, : mod.shortlist_size]]
    for i in range(mod.n_clusters):
        t = (x @ w[f"tail.{i}.0.weight"].T) @ w[f"tail.{i}.1.weight"].T
        cols.append(_np_log_softmax(t) + hl[:, mod.shortlist_size + i : mod.shortlist_size + i + 1])
    return np.concatenate(cols, 1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_matches_numpy(dtype, head_bias):
    minitorch.manual_seed(0)
    mod = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 9, 15], div_value=2.0, head_bias=head_bias).to(dtype)
    assert [k for k, _ in mod.named_parameters()] == (
        ["head.weight"] + (["head.bias"] if head_bias else [])
    ) + [f"tail.{i}.{j}.weight" for i in range(3) for j in range(2)]
    assert mod.tail[2][0].weight.shape == (2, 16) and mod.tail[0][1].weight.shape == (5, 16 // 2)
    rng = np.random.default_rng(3)
    xn = rng.standard_normal((7, 16))
    target = np.array([0, 3, 4, 8, 9, 19, 12])
    x = _t(xn, dtype, noncontig=True)
    out, loss = mod(x, minitorch.tensor(target))
    ref = _asm_reference(mod, xn)
    want = ref[np.arange(7), target]
    np.testing.assert_allclose(out.detach().double().numpy(), want, **TOL[dtype])
    np.testing.assert_allclose(loss.item(), -want.mean(), **TOL[dtype])
    lp = mod.log_prob(x)
    np.testing.assert_allclose(lp.detach().double().numpy(), ref, **TOL[dtype])
    np.testing.assert_allclose(np.exp(ref).sum(1), 1.0, rtol=1e-12)  # a distribution over the classes
    assert mod.predict(x).tolist() == ref.argmax(1).tolist()
    # one unbatched example: a 1-D input with a 0-dim target
    o1, l1 = mod(x[2], minitorch.tensor(target[2]))
    assert o1.dim() == 0 and math.isclose(o1.item(), want[2], rel_tol=1e-5)
    assert math.isclose(l1.item(), -want[2], rel_tol=1e-5)


def test_adaptive_log_softmax_gradients_and_errors():
    minitorch.manual_seed(1)
    mod = nn.AdaptiveLogSoftmaxWithLoss(6, 8, [2, 5], div_value=1.0, head_bias=True).double()
    x = _leaf(_rand(5, 6))
    target = minitorch.tensor([0, 2, 7, 4, 1])
    assert gradcheck(lambda a: mod(a, target).output, (x,))
    assert gradcheck(lambda a: mod(a, target).loss, (x,))
    loss = mod(x, target).loss
    loss.backward()
    assert all(p.grad is not None for p in mod.parameters())
    with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
        nn.AdaptiveLogSoftmaxWithLoss(6, 8, [])
    for bad in ([5, 2], [0, 3], [3, 8], [2, 2], [2.5]):
        with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
            nn.AdaptiveLogSoftmaxWithLoss(6, 8, bad)
    with pytest.raises(
        RuntimeError, match=re.escape("Target values should be in [0, 7], but values in range [-1, 8]")
    ):
        mod(x[:2], minitorch.tensor([-1, 8]))
    with pytest.raises(
        RuntimeError, match="Input and target should have the same size in the batch dimension"
    ):
        mod(x, minitorch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input tensors"):
        mod(x, minitorch.tensor(1))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        mod(x, minitorch.zeros(5, 1, dtype=minitorch.int64))


_ACT_BACKWARD_CHILD = """
import json, numpy as np, minitorch as m
F = m.nn.functional
rng = np.random.default_rng(4)
a = np.concatenate([np.linspace(-30, 30, 2001), rng.uniform(-8, 8, 1500),
                    [0.0, -0.0, 1e-30, -1e-30, 88.5, -88.5, 745.0, -745.0, np.inf, -np.inf, np.nan]])
fns = {"gelu": F.gelu, "silu": F.silu, "elu": F.elu, "celu": lambda v: F.celu(v, 1.5), "selu": F.selu,
       "elu_all_positive": F.elu}
out = {"cap": m.backends.cpu.get_cpu_capability()}
for dt in ("float32", "float64"):
    for name, f in fns.items():
        v = np.abs(a) + 1 if name == "elu_all_positive" else a
        x = m.from_numpy(v.astype(dt)).requires_grad_()
        gout = m.from_numpy(rng.uniform(-2, 2, v.size).astype(dt))
        # not differentiated again: the one-pass kernel; create_graph: the recorded formula it replaced
        fused = [m.autograd.grad(f(x).sum(), x)[0], m.autograd.grad(f(x), x, gout)[0]]
        composite = [m.autograd.grad(f(x).sum(), x, create_graph=True)[0],
                     m.autograd.grad(f(x), x, gout, create_graph=True)[0]]
        xt = m.from_numpy(np.stack([v, -v]).astype(dt)).t().requires_grad_()
        gt = m.from_numpy(np.stack([gout.numpy(), gout.numpy()]).astype(dt)).t()
        strided = m.autograd.grad(f(xt), xt, gt)[0]
        out[dt + " " + name] = {
            "same": all(np.array_equal(p.detach().numpy(), q.detach().numpy(), equal_nan=True)
                        for p, q in zip(fused, composite)),
            "strided": bool(np.array_equal(strided[:, 0].numpy(), fused[1].numpy(), equal_nan=True)),
            "sum": fused[0].double().tolist(),
        }
print(json.dumps(out))
"""


@pytest.mark.parametrize("cap", ["avx512", "avx2", "default"])
def test_activation_backward_kernels_on_every_path(cap):
    # gelu, silu and elu/celu/selu's gradients in one pass when not differentiated again (csrc/kernels/cpu/
    # elementwise.cpp activation_backward_rows): the bits of the recorded formula they replace at every CPU
    # capability, with a broadcast gradient (a sum's), a full one, transposed inputs and NaN/inf among the values
    out = child_json(_ACT_BACKWARD_CHILD, MINITORCH_CPU_CAPABILITY=cap)
    for key, row in out.items():
        if key != "cap":
            assert row["same"] and row["strided"], (out["cap"], key)
    a = np.linspace(-30, 30, 2001)
    phi = 0.5 * (1 + np.vectorize(math.erf)(a / math.sqrt(2)))
    want = phi + a * np.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    # (both derivatives cross 0 for a negative x: an absolute bound there)
    np.testing.assert_allclose(out["float64 gelu"]["sum"][:2001], want, rtol=1e-13, atol=1e-15)
    s = 1 / (1 + np.exp(-a))
    np.testing.assert_allclose(
        out["float64 silu"]["sum"][:2001], s * (1 + a * (1 - s)), rtol=1e-13, atol=1e-15
    )
    np.testing.assert_allclose(out["float64 elu"]["sum"][:2001], np.where(a > 0, 1.0, np.exp(a)), rtol=1e-15)
    # NaN in, NaN out; elu's gradient at +-inf: 1 and 0 (exp(-inf)), as PyTorch's elu_backward
    assert math.isnan(out["float32 gelu"]["sum"][-1]) and out["float64 elu"]["sum"][-3:-1] == [1.0, 0.0]


def test_normalize_out_receives_the_division():
    """F.normalize(out=...) writes through torch.div's out= (its checks included), as PyTorch's."""
    x = minitorch.tensor([[3.0, -4.0], [0.0, 1e-40]])
    out = minitorch.empty(2, 2)
    r = F.normalize(x, 2.0, 1, 1e-12, out)
    assert r is out
    want = x.numpy() / np.maximum(np.linalg.norm(x.numpy(), axis=1, keepdims=True), 1e-12)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    with pytest.raises(
        RuntimeError, match="^result type Float can't be cast to the desired output type Long$"
    ):
        F.normalize(x, out=minitorch.empty(2, 2, dtype=minitorch.int64))
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not bool"):
        F.normalize(x, 1, 0, 1e-12, False)


def test_functional_namespace_holds_pytorchs_helper_names():
    """Library code reaches these through torch.nn.functional (`F.has_torch_function_unary(input)` guards in
    copied PyTorch functions, `F.Tensor` annotations, F.assert_int_or_pair)"""

    class Like:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return "dispatched"

    t = minitorch.ones(2)
    assert F.Tensor is minitorch.Tensor and F.math is math and F.Optional is typing.Optional
    assert F.has_torch_function_unary(Like()) and not F.has_torch_function_unary(t)
    assert not F.has_torch_function_unary(nn.Parameter(t))
    assert F.has_torch_function_variadic(t, Like()) and not F.has_torch_function_variadic(t, t)
    assert (
        F.has_torch_function((t, Like()))
        and F.handle_torch_function(F.relu, (Like(),), Like()) == "dispatched"
    )
    F.assert_int_or_pair(3, "kernel_size", "{} must be int or pair")
    F.assert_int_or_pair([1, 2], "kernel_size", "{} must be int or pair")
    with pytest.raises(AssertionError, match="^stride must be int or pair$"):
        F.assert_int_or_pair((1, 2, 3), "stride", "{} must be int or pair")
