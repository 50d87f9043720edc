"""Complex tensors (complex64/complex128): creation, promotion, elementwise math and branch cuts, reductions,
matmul, views, conjugation, casts, printing, save/load, the Python composites that take complex values, and
autograd with PyTorch's conjugate-Wirtinger convention, checked against NumPy's complex128 and finite
differences. The complex kernels are CPU-only for now, so tests that compute build their tensors on the CPU."""

import io
import warnings

import numpy as np
import pytest

import minitorch as torch
from tests.ops import opdb

C64, C128 = torch.complex64, torch.complex128
CPU_ONLY = "complex kernels are CPU-only (no CUDA complex kernels yet)"


def crandn(*shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def np_of(t):
    return t.detach().cpu().numpy()


def close(actual, expected, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np_of(actual), expected, rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------------------------ dtypes, creation


def test_dtype_names_and_properties():
    assert torch.cfloat is C64 and torch.cdouble is C128
    assert str(C64) == "torch.complex64" and str(C128) == "torch.complex128"
    assert C64.is_complex and C128.is_complex and not torch.float32.is_complex
    assert not C64.is_floating_point
    assert C64.itemsize == 8 and C128.itemsize == 16
    assert C64.to_real() == torch.float32 and C128.to_real() == torch.float64
    assert torch.float32.to_complex() == C64 and torch.float64.to_complex() == C128
    assert torch.finfo(C64).eps == torch.finfo(torch.float32).eps
    assert torch.finfo(C128).max == torch.finfo(torch.float64).max


def test_tensor_from_python_complex():
    t = torch.tensor([1 + 2j, 3, -0.5j])
    assert t.dtype == C64 and t.is_complex() and torch.is_complex(t) and not t.is_floating_point()
    close(t, np.array([1 + 2j, 3, -0.5j]))
    assert torch.tensor(1j).dtype == C64 and torch.tensor(1j).dim() == 0
    assert torch.tensor([[1, 2.5], [1j, True]]).dtype == C64
    assert torch.tensor([1j], dtype=C128).dtype == C128
    assert not torch.tensor([1.0]).is_complex() and not torch.is_complex(torch.tensor([1]))


def test_default_dtype_float64_makes_complex128():
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        assert torch.tensor([1j]).dtype == C128
        assert (torch.tensor([1.0]) * 1j).dtype == C128
    finally:
        torch.set_default_dtype(old)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_tensor_of_real_data_with_complex_dtype(dtype):
    t = torch.tensor([1.5, -2.0], dtype=dtype)
    assert t.dtype == dtype
    close(t, np.array([1.5 + 0j, -2 + 0j]))
    close(torch.tensor([1, 2], dtype=dtype), np.array([1 + 0j, 2 + 0j]))
    close(
        torch.tensor(np.array([1 + 1j, 2 - 3j], dtype=np.complex128), dtype=dtype), np.array([1 + 1j, 2 - 3j])
    )


@pytest.mark.parametrize("np_dtype, dtype", [(np.complex64, C64), (np.complex128, C128)])
def test_numpy_interop(np_dtype, dtype):
    a = crandn(3, 4, dtype=np_dtype)
    t = torch.tensor(a)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), a)
    shared = torch.from_numpy(a)
    assert shared.dtype == dtype
    a[0, 0] = 7 - 7j  # from_numpy shares memory
    assert shared[0, 0].item() == 7 - 7j
    assert t.numpy().dtype == np_dtype
    back = torch.from_dlpack(t)
    np.testing.assert_array_equal(back.numpy(), t.numpy())


@pytest.mark.parametrize("dtype", [C64, C128])
def test_factories(dtype):
    close(torch.zeros(2, 3, dtype=dtype), np.zeros((2, 3), complex))
    close(torch.ones(2, dtype=dtype), np.ones(2, complex))
    close(torch.full((2,), 1 - 2j, dtype=dtype), np.full(2, 1 - 2j))
    close(torch.full((2,), 3, dtype=dtype), np.full(2, 3 + 0j))
    assert torch.full((2,), 1 + 1j).dtype == C64  # the fill value's kind decides, as PyTorch
    close(torch.eye(3, dtype=dtype), np.eye(3, dtype=complex))
    assert torch.empty(4, dtype=dtype).dtype == dtype
    z = torch.tensor([1j, 2], dtype=dtype)
    close(torch.zeros_like(z), np.zeros(2, complex))
    close(torch.ones_like(z), np.ones(2, complex))
    assert torch.empty(0, dtype=dtype).shape == (0,)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_randn_and_rand(dtype):
    torch.manual_seed(0)
    r = np_of(torch.randn(20000, dtype=dtype))
    # PyTorch's complex normal: E|z|^2 = 1, variance 1/2 in each part, parts uncorrelated
    assert abs(np.var(r.real) - 0.5) < 0.03 and abs(np.var(r.imag) - 0.5) < 0.03
    assert abs(np.mean(r.real * r.imag)) < 0.02
    u = np_of(torch.rand(20000, dtype=dtype))
    assert u.real.min() >= 0 and u.real.max() < 1 and u.imag.min() >= 0 and u.imag.max() < 1
    assert abs(u.real.mean() - 0.5) < 0.02 and abs(u.imag.mean() - 0.5) < 0.02
    assert torch.randn_like(torch.zeros(3, dtype=dtype)).dtype == dtype


# ------------------------------------------------------------------------------------------------------ promotion

_KINDS = [torch.bool, torch.int64, torch.float16, torch.float32, torch.float64, C64, C128]
_RANK = {torch.float16: 0, torch.float32: 1, torch.float64: 2}


def _expected_promotion(a, b):
    """PyTorch's rule for a complex operand: the complex twin of the wider float part (float16's twin,
    complex32, is not in this table: float16 with complex64 gives complex64)."""
    if not (a.is_complex or b.is_complex):
        return torch.promote_types(a, b)
    parts = [d.to_real() if d.is_complex else d for d in (a, b) if d.is_complex or d.is_floating_point]
    widest = max(parts, key=lambda d: _RANK[d])
    return C128 if widest == torch.float64 else C64


@pytest.mark.parametrize("a", _KINDS, ids=str)
@pytest.mark.parametrize("b", _KINDS, ids=str)
def test_promote_types_table(a, b):
    want = _expected_promotion(a, b)
    assert torch.promote_types(a, b) == want
    x, y = torch.ones(2, dtype=a), torch.ones(2, dtype=b)
    assert torch.result_type(x, y) == want
    if want.is_complex:
        r = x + y
        assert r.dtype == want
        close(r, np.full(2, 2 + 0j) if a != torch.bool or b != torch.bool else np.full(2, 1 + 0j))


def test_promote_types_spot_values():
    # a few entries spelled out from PyTorch 2.15 (torch.promote_types)
    assert torch.promote_types(torch.float64, C64) == C128
    assert torch.promote_types(torch.int64, C64) == C64
    assert torch.promote_types(torch.float16, C64) == C64
    assert torch.promote_types(torch.bool, C128) == C128


def test_python_complex_scalars_and_zero_dim_categories():
    assert (torch.tensor([1.0]) * 1j).dtype == C64
    assert (torch.tensor([1.0], dtype=torch.float64) * 1j).dtype == C128  # float64 with 1j is complex128
    assert (torch.tensor([1, 2]) + 1j).dtype == C64
    assert (torch.tensor([True]) + 1j).dtype == C64
    assert torch.result_type(torch.tensor([1.0]), 1j) == C64
    assert torch.result_type(torch.tensor([1j]), 1.0) == C64
    assert torch.result_type(torch.tensor([1j], dtype=C128), 1j) == C128
    # a 0-d tensor of a higher category promotes; of the same category it does not widen
    assert (torch.tensor([1.0]) + torch.tensor(1j, dtype=C128)).dtype == C64
    assert (torch.tensor([1j]) + torch.tensor(1.0, dtype=torch.float64)).dtype == C64
    assert (torch.tensor([1j]) + torch.tensor([1.0], dtype=torch.float64)).dtype == C128
    close(torch.tensor([1.0, 2.0]) * 1j, np.array([1j, 2j]))


def test_can_cast():
    assert not torch.can_cast(C64, torch.float32)
    assert torch.can_cast(torch.float64, C64)
    assert torch.can_cast(C64, C128) and torch.can_cast(C128, C64)
    assert torch.can_cast(torch.int64, C64)


def test_inplace_complex_into_real_refused():
    with pytest.raises(
        RuntimeError, match="result type ComplexFloat can't be cast to the desired output type Float"
    ):
        torch.ones(2).add_(1j)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        torch.ones(2, dtype=torch.int64).mul_(torch.tensor([1j, 1j]))


# ------------------------------------------------------------------------------------------------------- casts


def test_complex_to_real_warns_and_keeps_real_part():
    z = torch.tensor([1 + 2j, -3 - 4j])
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        r = z.to(torch.float32)
    close(r, np.array([1.0, -3.0]))
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        z.double()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # real -> complex and complex -> complex are silent
        w = torch.tensor([1.5]).to(C64)
        z.to(C128)
    close(w, np.array([1.5 + 0j]))
    close(torch.tensor([1.0, 2.0]).cfloat(), np.array([1 + 0j, 2 + 0j]))
    assert torch.tensor([1.0]).cdouble().dtype == C128
    assert z.type() == "torch.ComplexFloatTensor" and z.cdouble().type() == "torch.ComplexDoubleTensor"
    assert z.type(C128).dtype == C128


def test_copy_between_complex_and_real():
    dst = torch.zeros(3, dtype=C128)
    dst.copy_(torch.tensor([1.0, 2.0, 3.0]))
    close(dst, np.array([1, 2, 3], complex))
    dst.copy_(torch.tensor([1j, 2j, 3 + 3j]))  # complex64 -> complex128
    close(dst, np.array([1j, 2j, 3 + 3j]))


def test_item_and_python_numbers():
    assert torch.tensor(1 + 2j).item() == 1 + 2j and isinstance(torch.tensor(1j).item(), complex)
    assert complex(torch.tensor(1 - 2j, dtype=C128)) == 1 - 2j
    assert bool(torch.tensor(1j)) and not bool(torch.tensor(0j))


def test_tolist_gives_python_complex():
    assert torch.tensor([[1 + 2j], [3 - 1j]]).tolist() == [[1 + 2j], [3 - 1j]]


# ------------------------------------------------------------------------------------------- elementwise vs NumPy

# the op database's complex references (tests/ops/opdb.py), and square (a composite: no schema entry of its own)
_UNARY = {**opdb.COMPLEX_UNARY, "square": np.square}


@pytest.mark.parametrize("name", sorted(_UNARY))
@pytest.mark.parametrize("dtype", [C64, C128])
def test_unary_against_numpy(name, dtype):
    a = crandn(4, 5) * 1.5
    t = torch.tensor(a, dtype=dtype)
    got = getattr(torch, name)(t)
    assert got.dtype == dtype
    tol = 1e-12 if dtype == C128 else 2e-5
    close(got, _UNARY[name](a), rtol=tol, atol=tol)
    # the method spelling and a non-contiguous input give the same values
    nc = torch.tensor(a.T.copy(), dtype=dtype).t()
    close(getattr(nc, name)(), _UNARY[name](a), rtol=tol, atol=tol)


def test_log1p_small_values_accurate():
    # log1p(z) ~ z - z^2/2 near 0 (NumPy's complex log1p loses this; PyTorch keeps it)
    z = 1e-10 + 1e-10j
    got = torch.log1p(torch.tensor([z], dtype=C128)).item()
    want = z - z * z / 2
    assert abs(got - want) < 1e-24
    close(torch.log1p(torch.tensor(crandn(6), dtype=C128)), np.log(1 + crandn(6)))


# points on and beside the branch cuts, with both signs of zero: the side a cut value takes follows the sign
# of the zero, as in C99 / NumPy
_CUT = np.array(
    [
        complex(-2, 0.0),
        complex(-2, -0.0),
        complex(2, 0.0),
        complex(2, -0.0),
        complex(0.0, 2),
        complex(-0.0, 2),
        complex(0.0, -2),
        complex(-0.0, -2),
        complex(0.5, 0.0),
        complex(-0.5, -0.0),
        complex(30, 1),
        complex(-30, 1),
        complex(1, 30),
    ]
)


@pytest.mark.parametrize(
    "name, ref",
    [
        ("sqrt", np.sqrt),
        ("log", np.log),
        ("log10", np.log10),
        ("asin", np.arcsin),
        ("acos", np.arccos),
        ("atan", np.arctan),
        ("asinh", np.arcsinh),
        ("acosh", np.arccosh),
        ("atanh", np.arctanh),
        ("exp", np.exp),
        ("tanh", np.tanh),
    ],
)
def test_branch_cuts_and_signed_zeros(name, ref):
    got = np_of(getattr(torch, name)(torch.tensor(_CUT, dtype=C128)))
    want = ref(_CUT)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    # the side of each cut: the signs of the parts agree, zeros included
    np.testing.assert_array_equal(np.signbit(got.imag), np.signbit(want.imag))
    np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))


def test_abs_angle_sgn():
    a = np.concatenate([crandn(7), [0j, complex(-1, 0.0), complex(-1, -0.0), 3 + 4j]])
    for dtype, tol in ((C64, 1e-6), (C128, 1e-14)):
        t = torch.tensor(a, dtype=dtype)
        r = torch.abs(t)
        assert r.dtype == dtype.to_real()
        close(r, np.abs(a), rtol=tol, atol=tol)
        close(t.abs(), np.abs(a), rtol=tol, atol=tol)
        close(torch.angle(t), np.angle(a), rtol=tol, atol=tol)
        assert torch.angle(t).dtype == dtype.to_real()
        want_sgn = np.where(a == 0, 0, a / np.where(a == 0, 1, np.abs(a)))
        close(torch.sgn(t), want_sgn, rtol=tol, atol=tol)
    # angle of real numbers: 0 or pi, NaN stays NaN
    r = torch.angle(torch.tensor([-1.0, 0.0, 2.0, float("nan")], dtype=torch.float64))
    np.testing.assert_array_equal(np_of(r), [np.pi, 0.0, 0.0, np.nan])
    assert torch.abs(torch.tensor([complex(float("inf"), float("nan"))])).item() == float("inf")


def test_angle_of_real_is_one_kernel():
    """angle of a real tensor: PyTorch's angle_impl (NaN kept, pi below zero, 0 else, -0 included), in the
    input's float dtype or the default one, over any layout; its gradient is zero"""
    v = [-1.0, -0.0, 0.0, 2.0, float("nan"), float("-inf"), float("inf"), -1e-30, -1e-40]
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        x = torch.tensor(v, dtype=dtype)
        r = torch.angle(x)
        assert r.dtype == dtype
        xv = np_of(x.double())  # -1e-30 is -0 in half, -1e-40 a subnormal in float32
        pi = torch.tensor(np.pi, dtype=dtype).item()  # pi rounded to the dtype (3.140625 in half)
        want = np.where(np.isnan(xv), np.nan, np.where(xv < 0, pi, 0.0))
        np.testing.assert_array_equal(np_of(r.double()), want)
    for dtype in (torch.int64, torch.int8, torch.uint8, torch.bool):
        x = torch.tensor([-3, 0, 5] if dtype not in (torch.uint8, torch.bool) else [1, 0, 1], dtype=dtype)
        r = torch.angle(x)
        assert r.dtype == torch.float32
        np.testing.assert_array_equal(np_of(r), np.angle(np_of(x).astype(np.float64)).astype(np.float32))
    a = np.random.default_rng(0).standard_normal((6, 8))
    x = torch.tensor(a)
    for view in (x.t(), x[::2, 1::3], x[:1].expand(4, 8)):
        np.testing.assert_array_equal(np_of(torch.angle(view)), np.angle(np_of(view)))
    assert torch.angle(torch.empty(0, 3)).shape == (0, 3)
    g = torch.tensor(a, requires_grad=True)
    torch.angle(g).sum().backward()
    np.testing.assert_array_equal(np_of(g.grad), np.zeros_like(a))


@pytest.mark.parametrize(
    "op, ref", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)]
)
@pytest.mark.parametrize("dtype", [C64, C128])
def test_binary_against_numpy(op, ref, dtype):
    a, b = crandn(3, 4), crandn(4, seed=1)
    tol = 1e-12 if dtype == C128 else 1e-5
    ta, tb = torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype)
    close(getattr(torch, op)(ta, tb), ref(a, b), rtol=tol, atol=tol)  # broadcasting
    # a real tensor operand, a Python complex / real scalar
    real = np.linspace(-2, 2, 4)
    r = getattr(torch, op)(ta, torch.tensor(real, dtype=dtype.to_real()))
    assert r.dtype == dtype
    close(r, ref(a, real), rtol=tol, atol=tol)
    close(getattr(torch, op)(ta, 2 - 0.5j), ref(a, 2 - 0.5j), rtol=tol, atol=tol)
    close(getattr(ta, op)(3), ref(a, 3), rtol=tol, atol=tol)
    # in place
    x = ta.clone()
    getattr(x, op + "_")(tb)
    close(x, ref(a, b), rtol=tol, atol=tol)


def test_operators_and_pow():
    a, b = crandn(5), crandn(5, seed=2)
    ta, tb = torch.tensor(a, dtype=C128), torch.tensor(b, dtype=C128)
    close(ta + tb, a + b)
    close(ta * tb - ta / tb, a * b - a / b)
    close(-ta, -a)
    close(1 / ta, 1 / a)
    close(ta**tb, a**b, rtol=1e-10)
    close(ta**0.5, np.sqrt(a), rtol=1e-10)
    close(2**ta, 2**a, rtol=1e-10)
    close(ta.pow(3), a**3, rtol=1e-10)
    close(torch.pow(ta, 2), a**2, rtol=1e-10)
    close(torch.addcmul(ta, ta, tb, value=2), a + 2 * a * b)
    close(torch.tensor([1 + 1j], dtype=C128) / 0, np.array([complex(np.inf, np.inf)]))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_logaddexp(dtype):
    # exp of the result is exp(a) + exp(b) (the branch of the log aside); large real parts do not overflow
    a, b = crandn(3, 4), crandn(4, seed=3)
    tol = 1e-12 if dtype == C128 else 2e-5
    r = torch.logaddexp(torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype))
    assert r.dtype == dtype
    close(r.exp(), np.exp(a) + np.exp(b), rtol=tol, atol=tol)
    big = torch.logaddexp(torch.tensor([1000 + 1j], dtype=dtype), torch.tensor([999 - 0.5j], dtype=dtype))
    want = 1000 + 1j + np.log1p(np.exp(-1 - 1.5j))
    close(big, np.array([want]), rtol=tol, atol=tol)
    # PyTorch 2.15's values at the special points (NaN spreads, equal infinite real parts)
    inf, nan = float("inf"), float("nan")
    z = torch.tensor([1 + 2j, complex(inf, 0), complex(-inf, 1), complex(nan, 0), 3 - 1j], dtype=C128)
    w = torch.tensor([0.5 - 1j, complex(inf, 2), complex(-inf, 0), 1 + 1j, complex(-inf, 0)], dtype=C128)
    got = np_of(torch.logaddexp(z, w))
    np.testing.assert_allclose(got[[0, 4]], [0.10499301432446873 + 1.7889591478473275j, 3 - 1j], rtol=1e-12)
    assert got[1].real == inf and np.isnan(got[1].imag)
    assert got[2] == complex(-inf, 0) and np.isnan(got[3].real) and np.isnan(got[3].imag)
    # a real operand promotes; the gradient follows the conjugate convention (gradcheck)
    assert torch.logaddexp(torch.tensor([1 + 1j]), torch.tensor([2.0])).dtype == C64
    x = torch.tensor(crandn(4, seed=4), dtype=C128, requires_grad=True)
    y = torch.tensor(crandn(4, seed=5), dtype=C128, requires_grad=True)
    assert torch.autograd.gradcheck(lambda p, q: torch.logaddexp(p, q).abs(), (x, y))
    # logaddexp2 has no complex kernel in PyTorch either
    with pytest.raises(NotImplementedError, match="\"logaddexp2_cpu\" not implemented for 'ComplexFloat'"):
        torch.logaddexp2(torch.tensor([1j]), torch.tensor([1j]))


def test_comparisons_and_tests():
    t = torch.tensor([1 + 1j, 2 - 1j, complex(float("nan"), 1), complex(1, float("inf"))])
    assert (t == t.clone()).tolist() == [True, True, False, True]
    assert (t != torch.tensor([1 + 1j, 2 + 1j, 0, 0])).tolist() == [False, True, True, True]
    assert (t == 1 + 1j).tolist() == [True, False, False, False]
    assert torch.tensor([1 + 0j]).eq(torch.tensor([1.0])).item()
    assert torch.isnan(t).tolist() == [False, False, True, False]
    assert torch.isinf(t).tolist() == [False, False, False, True]
    assert torch.isfinite(t).tolist() == [True, True, False, False]
    assert torch.isnan(torch.tensor([complex(1, float("nan"))])).item()
    assert torch.isreal(torch.tensor([1 + 0j, 1j, complex(float("nan"), 0)])).tolist() == [True, False, True]
    assert torch.isreal(torch.tensor([1.0, float("nan")])).tolist() == [True, True]
    assert torch.equal(torch.tensor([1j, 2]), torch.tensor([1j, 2]))
    with pytest.raises(NotImplementedError, match="\"lt_cpu\" not implemented for 'ComplexFloat'"):
        _ = torch.tensor([1j]) < torch.tensor([1j])


def test_unsupported_ops_name_complex():
    with pytest.raises(RuntimeError, match="Please use torch.sgn instead"):
        torch.sign(torch.tensor([1j]))
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        torch.erf(torch.tensor([1j]))
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        torch.arange(3, dtype=C64)


def test_nan_to_num_per_part():
    t = torch.tensor([complex(float("nan"), float("inf")), complex(-float("inf"), 2)], dtype=C128)
    r = torch.nan_to_num(t)
    big = np.finfo(np.float64).max
    np.testing.assert_array_equal(np_of(r), np.array([complex(0, big), complex(-big, 2)]))
    r = torch.tensor([complex(float("nan"), float("inf"))]).nan_to_num(1.0, 2.0, 3.0)
    assert r.dtype == C64 and r.item() == 1 + 2j


# ------------------------------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("dtype", [C64, C128])
def test_sum_mean(dtype):
    a = crandn(3, 4, 5)
    t = torch.tensor(a, dtype=dtype)
    tol = 1e-12 if dtype == C128 else 1e-5
    close(t.sum(), a.sum(), rtol=tol, atol=tol)
    close(t.mean(), a.mean(), rtol=tol, atol=tol)
    for dim in (0, 1, 2, (0, 2), -1):
        close(t.sum(dim), a.sum(axis=dim), rtol=tol, atol=tol)
        close(torch.mean(t, dim), a.mean(axis=dim), rtol=tol, atol=tol)
    close(t.transpose(0, 2).sum(1), a.transpose(2, 1, 0).sum(axis=1), rtol=tol, atol=tol)  # non-contiguous
    assert t.sum().dtype == dtype and t.sum(dtype=C128).dtype == C128
    assert torch.zeros(0, dtype=dtype).sum().item() == 0
    assert torch.zeros(0, 3, dtype=dtype).sum(0).shape == (3,)
    close(torch.trace(torch.tensor(a[0, :, :4], dtype=dtype)), np.trace(a[0, :, :4]), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_prod_cumsum_cumprod(dtype):
    # accumulated in complex128 (as PyTorch's CPU kernels accumulate complex64 in complex128 for prod)
    a = crandn(3, 4, 5) * 0.8
    t = torch.tensor(a, dtype=dtype)
    tol = 1e-12 if dtype == C128 else 2e-5
    close(t.prod(), a.prod(), rtol=tol, atol=tol)
    for dim in (0, 1, 2, -1):
        close(t.prod(dim), a.prod(axis=dim), rtol=tol, atol=tol)
        close(t.cumsum(dim), np.cumsum(a, axis=dim), rtol=tol, atol=tol)
        close(torch.cumprod(t, dim), np.cumprod(a, axis=dim), rtol=tol, atol=tol)
    close(t.prod(1, keepdim=True), a.prod(axis=1, keepdims=True), rtol=tol, atol=tol)
    tt = t.transpose(0, 2)  # non-contiguous
    close(tt.cumprod(1), np.cumprod(a.transpose(2, 1, 0), axis=1), rtol=tol, atol=tol)
    close(tt.prod(0), a.transpose(2, 1, 0).prod(axis=0), rtol=tol, atol=tol)
    assert t.prod().dtype == dtype and t.cumsum(0).dtype == dtype
    assert torch.prod(torch.tensor([1.0, 2.0]), dtype=C128).item() == 2
    assert torch.cumsum(torch.ones(3), 0, dtype=C64).tolist() == [1, 2, 3]
    assert torch.zeros(3, 0, dtype=dtype).prod(1).tolist() == [1, 1, 1]  # the empty product
    assert torch.zeros(0, dtype=dtype).cumprod(0).shape == (0,)


def test_accumulating_index_ops_any_all_lerp():
    # index_add / index_put_(accumulate) / scatter_add / scatter_reduce("sum"/"prod") add or multiply complex
    # values (no order: amax/amin stay refused); any/all test x != 0; lerp is complex-valued
    a, v = crandn(4, 3), crandn(3, 3, seed=5)
    x, tv = torch.tensor(a), torch.tensor(v)
    idx = np.array([0, 2, 0])
    want = a.copy()
    np.add.at(want, idx, v)
    close(x.index_add(0, torch.tensor(idx), tv), want)
    close(x.clone().index_put_((torch.tensor(idx),), tv, accumulate=True), want)
    want2 = a.copy()
    np.add.at(want2, idx, 2 * v)
    close(x.index_add(0, torch.tensor(idx), tv, alpha=2), want2)
    sidx = torch.tensor(idx).reshape(3, 1).expand(3, 3)
    close(x.scatter_add(0, sidx, tv), want)
    prod = a.copy()
    np.multiply.at(prod, idx, v)
    close(x.scatter_reduce(0, sidx, tv, "prod"), prod)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexDouble'"):
        x.scatter_reduce(0, sidx, tv, "amax")
    z = torch.tensor([[0j, 1j], [0j, 0j], [2 + 0j, 3j]])
    assert z.any(1).tolist() == [True, False, True] and z.all(1).tolist() == [False, False, True]
    assert z.any().item() and not z.all().item()
    close(torch.lerp(x[:3], tv, 0.3), a[:3] + 0.3 * (v - a[:3]))
    close(torch.lerp(x[:3], tv, torch.tensor(0.25 + 0.5j)), a[:3] + (0.25 + 0.5j) * (v - a[:3]))


def test_sum_keepdim():
    a = crandn(3, 4)
    close(torch.tensor(a, dtype=C128).sum(1, keepdim=True), a.sum(axis=1, keepdims=True))


def test_vector_norms_of_complex():
    a = crandn(4, 3)
    t = torch.tensor(a, dtype=C128)
    for ord in (2, 1, 3.5, float("inf"), -float("inf"), 0):
        r = torch.linalg.vector_norm(t, ord)
        assert r.dtype == torch.float64
        close(r, np.linalg.norm(a.reshape(-1), ord))
    close(torch.linalg.vector_norm(t, 2, dim=1), np.linalg.norm(a, axis=1))
    close(torch.linalg.norm(t), np.linalg.norm(a))
    close(torch.linalg.matrix_norm(t), np.linalg.norm(a, "fro"))
    close(torch.linalg.matrix_norm(t, 1), np.linalg.norm(a, 1))
    close(torch.linalg.matrix_norm(t, float("inf")), np.linalg.norm(a, np.inf))
    a64 = torch.tensor(a, dtype=C64)
    close(torch.linalg.vector_norm(a64, dtype=C128), np.linalg.norm(np_of(a64).astype(np.complex128)))
    with pytest.raises(RuntimeError, match="dtype should be complex for complex inputs, but got Double"):
        torch.linalg.vector_norm(t, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="dtype should be real for real inputs, but got ComplexDouble"):
        torch.linalg.vector_norm(torch.ones(3), dtype=C128)
    close(torch.linalg.vecdot(t, t), np.sum(np.conj(a) * a, axis=-1))
    close(torch.dist(t, torch.zeros_like(t)), np.linalg.norm(a))
    rows = np.linalg.norm(a, axis=1, keepdims=True)
    close(torch.renorm(t, 2, 0, 1.0), np.where(rows > 1, a / (rows + 1e-7), a))


def test_tensor_norm_of_complex():
    a = crandn(4)
    close(torch.tensor(a, dtype=C128).norm(), np.linalg.norm(a))


def test_var_of_complex():
    a = crandn(5)
    close(torch.var(torch.tensor(a, dtype=C128)), np.var(a, ddof=1))


# ------------------------------------------------------------------------------------------------------- matmul


@pytest.mark.parametrize("dtype", [C64, C128])
def test_matmul_shapes_and_layouts(dtype):
    tol = 1e-12 if dtype == C128 else 1e-4
    a, b = crandn(4, 5), crandn(5, 3, seed=1)
    ta, tb = torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype)
    close(ta @ tb, a @ b, rtol=tol, atol=tol)
    close(torch.mm(ta, tb), a @ b, rtol=tol, atol=tol)
    # transposed and strided operands reach the GEMM without a copy of the caller's data
    close(tb.t() @ ta.t(), (a @ b).T, rtol=tol, atol=tol)
    big = torch.tensor(crandn(8, 10, seed=3), dtype=dtype)
    sl = big[::2, 1::2]
    close(sl @ tb, np_of(big)[::2, 1::2] @ b, rtol=tol, atol=tol)
    # batched with broadcasting, matrix-vector, vector-vector
    x, y = crandn(2, 1, 4, 5, seed=4), crandn(3, 5, 2, seed=5)
    close(torch.tensor(x, dtype=dtype) @ torch.tensor(y, dtype=dtype), x @ y, rtol=tol, atol=tol)
    close(
        torch.bmm(torch.tensor(y, dtype=dtype).mT, torch.tensor(y, dtype=dtype)),
        y.transpose(0, 2, 1) @ y,
        rtol=tol,
        atol=tol,
    )
    v = crandn(5, seed=6)
    close(ta @ torch.tensor(v, dtype=dtype), a @ v, rtol=tol, atol=tol)
    close(torch.mv(ta, torch.tensor(v, dtype=dtype)), a @ v, rtol=tol, atol=tol)
    close(torch.addmm(ta @ tb, ta, tb), 2 * (a @ b), rtol=tol, atol=tol)
    # empty inner and outer dims
    close(torch.zeros(2, 0, dtype=dtype) @ torch.zeros(0, 3, dtype=dtype), np.zeros((2, 3), complex))
    assert (torch.zeros(0, 5, dtype=dtype) @ tb).shape == (0, 3)


def test_dot_vdot_inner_outer_einsum():
    a, b = crandn(6), crandn(6, seed=1)
    ta, tb = torch.tensor(a, dtype=C128), torch.tensor(b, dtype=C128)
    close(torch.dot(ta, tb), np.dot(a, b))  # no conjugation
    close(torch.vdot(ta, tb), np.vdot(a, b))  # the first conjugated
    close(ta.vdot(tb), np.vdot(a, b))
    close(torch.inner(ta, tb), np.inner(a, b))
    close(torch.outer(ta, tb), np.outer(a, b))
    m = crandn(3, 6, seed=2)
    close(torch.einsum("ij,j->i", torch.tensor(m, dtype=C128), tb), m @ b)
    close(torch.tensordot(torch.tensor(m, dtype=C128), tb, dims=1), m @ b)
    close(torch.kron(ta[:2], tb[:3]), np.kron(a[:2], b[:3]))
    with pytest.raises(
        RuntimeError,
        match="dot : expected both vectors to have same dtype, but found ComplexDouble and Double",
    ):
        torch.vdot(ta, torch.ones(6, dtype=torch.float64))


def test_matmul_mixed_real_complex_refused():
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        torch.ones(2, 2, dtype=C64) @ torch.ones(2, 2)


# -------------------------------------------------------------------------------- shape ops and indexing


@pytest.mark.parametrize("dtype", [C64, C128])
def test_shape_and_index_ops_keep_values(dtype):
    a = np_of(torch.tensor(crandn(3, 4), dtype=dtype)).astype(np.complex128)
    t = torch.tensor(a, dtype=dtype)
    close(t.reshape(12), a.reshape(12))
    close(t.permute(1, 0).contiguous(), a.T)
    close(t.transpose(0, 1).clone(), a.T)
    close(t.mT, a.T)
    close(t.flip(0), a[::-1])
    close(torch.roll(t, 1, 1), np.roll(a, 1, 1))
    close(torch.cat([t, t], 1), np.concatenate([a, a], 1))
    close(torch.stack([t, t]), np.stack([a, a]))
    close(t[torch.tensor([2, 0])], a[[2, 0]])
    close(t[torch.tensor([True, False, True])], a[[0, 2]])
    close(
        torch.gather(t, 1, torch.tensor([[0], [3], [1]])), np.take_along_axis(a, np.array([[0], [3], [1]]), 1)
    )
    close(t.index_select(1, torch.tensor([3, 1])), a[:, [3, 1]])
    close(torch.diag(t[0]), np.diag(a[0]))
    close(t.diagonal(), np.diagonal(a))
    close(t.unsqueeze(0).expand(2, 3, 4).contiguous(), np.broadcast_to(a, (2, 3, 4)))
    close(t.repeat(2, 1), np.tile(a, (2, 1)))
    close(torch.masked_select(t, torch.tensor(np.abs(a) > 1)), a[np.abs(a) > 1])
    close(torch.take(t, torch.tensor([0, 5, 11])), a.reshape(-1)[[0, 5, 11]])
    close(torch.rot90(t), np.rot90(a))
    parts = t.split(2, 1)
    close(parts[1], a[:, 2:])
    u = t.clone()
    u[0, 1] = 5j
    u[1] = torch.tensor([1 + 1j] * 4, dtype=dtype)
    b = a.copy()
    b[0, 1] = 5j
    b[1] = 1 + 1j
    close(u, b)
    z = torch.zeros(3, dtype=dtype).scatter(0, torch.tensor([1]), torch.tensor([1 + 2j], dtype=dtype))
    close(z, np.array([0, 1 + 2j, 0]))
    close(torch.zeros(3, dtype=dtype).fill_(2j), np.full(3, 2j))


def test_addmm_with_float_and_complex_scalars():
    a, b, c = crandn(2, 3), crandn(3, 2, seed=1), crandn(2, 2, seed=2)
    ta, tb, tc = (torch.tensor(x, dtype=C128) for x in (a, b, c))
    close(torch.addmm(tc, ta, tb, beta=0.5, alpha=2 - 1j), 0.5 * c + (2 - 1j) * (a @ b))


def test_where_and_masked_fill():
    a, b = crandn(3), crandn(3, seed=1)
    c = torch.tensor([True, False, True])
    close(torch.where(c, torch.tensor(a), torch.tensor(b)), np.where([True, False, True], a, b), rtol=1e-6)
    close(torch.tensor(a).masked_fill(c, 1j), np.where([True, False, True], 1j, a), rtol=1e-6)


# ------------------------------------------------------------------------------------------------------- views


@pytest.mark.parametrize("dtype", [C64, C128])
def test_view_as_real_aliases(dtype):
    a = crandn(2, 3)
    t = torch.tensor(a, dtype=dtype)
    r = torch.view_as_real(t)
    assert r.shape == (2, 3, 2) and r.dtype == dtype.to_real() and r._is_view_of(t)
    np.testing.assert_array_equal(np_of(r), np.stack([np_of(t).real, np_of(t).imag], -1))
    r[0, 1, 1] = 9.0  # writes reach the complex tensor
    assert t[0, 1].item().imag == 9.0
    t[1, 2] = 4 - 4j
    assert r[1, 2].tolist() == [4.0, -4.0]
    c = torch.view_as_complex(r)
    assert c.dtype == dtype and c._is_view_of(t)
    c.mul_(2)
    assert r[1, 2].tolist() == [8.0, -8.0]
    # view_as_complex of a real tensor with even strides, e.g. a slice of the leading dim
    base = torch.arange(12.0).reshape(3, 2, 2)
    np.testing.assert_array_equal(
        np_of(torch.view_as_complex(base[1:])), np.array([[4 + 5j, 6 + 7j], [8 + 9j, 10 + 11j]])
    )


def test_real_imag_views_and_setters():
    a = crandn(3)
    t = torch.tensor(a, dtype=C128)
    re, im = t.real, t.imag
    assert re.dtype == torch.float64 and im.dtype == torch.float64
    close(re, a.real)
    close(torch.imag(t), a.imag)
    re.mul_(10)  # a view: the complex tensor changes
    close(t, 10 * a.real + 1j * a.imag)
    t.imag = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    close(t, 10 * a.real + 1j * np.array([1.0, 2.0, 3.0]))
    t.real[0] = -1
    assert t[0].item().real == -1
    x = torch.ones(2)
    assert torch.real(x) is x or torch.equal(torch.real(x), x)
    with pytest.raises(TypeError, match="imag is not implemented for tensors with non-complex dtypes."):
        _ = torch.ones(2).imag


def test_conj_is_eager():
    a = crandn(2, 3)
    t = torch.tensor(a, dtype=C128)
    c = t.conj()
    close(c, np.conj(a))
    assert not c.is_conj() and not torch.is_conj(c)
    c[0, 0] = 0  # a new tensor: the original does not change
    close(t, a)
    close(torch.conj_physical(t), np.conj(a))
    close(c.resolve_conj(), np_of(c))
    x = torch.ones(3)
    assert x.conj() is x  # real tensors are their own conjugate
    close(torch.conj_physical(torch.tensor([-1.0], dtype=torch.float64)), np.array([-1.0]))
    # a real tensor is its own conjugate: PyTorch returns it (no copy), and so do we
    r = torch.randn(3, 4)
    assert torch.conj_physical(r) is r and r.conj_physical() is r


def test_conjugate_transposes():
    a = crandn(3, 4)
    t = torch.tensor(a, dtype=C128)
    close(t.H, a.conj().T)
    close(t.mH, a.conj().T)
    close(t.adjoint(), a.conj().T)
    b = crandn(2, 3, 4, seed=1)
    close(torch.tensor(b).mH, b.conj().transpose(0, 2, 1), rtol=1e-6, atol=1e-6)
    close(torch.adjoint(torch.tensor(b)), b.conj().transpose(0, 2, 1), rtol=1e-6, atol=1e-6)
    r = torch.ones(2, 3)
    assert r.H.shape == (3, 2) and r.adjoint()._is_view_of(r)
    with pytest.raises(
        RuntimeError,
        match=r"tensor.H is only supported on matrices \(2-D tensors\). Got 3-D tensor. For batches of matrices, consider using tensor.mH",
    ):
        _ = torch.ones(2, 3, 4).H
    with pytest.raises(
        RuntimeError, match=r"tensor.H is only supported on matrices \(2-D tensors\). Got 1-D tensor.$"
    ):
        _ = torch.ones(3).H
    with pytest.raises(
        RuntimeError, match="tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."
    ):
        _ = torch.ones(3).mH
    with pytest.raises(
        RuntimeError,
        match="tensor.adjoint.. is only supported on matrices or batches of matrices. Got 1-D tensor.",
    ):
        torch.ones(3).adjoint()
    with pytest.warns(UserWarning, match="Tensor.H is deprecated on 0-D tensors"):
        assert torch.tensor(1 + 2j).H.item() == 1 - 2j


# ------------------------------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "make, exc, words",
    [
        (lambda: torch.ones(3, 3), RuntimeError, "Tensor must have a last dimension of size 2"),
        (lambda: torch.ones(2, 4)[:, ::2], RuntimeError, "Tensor must have a last dimension with stride 1"),
        (lambda: torch.tensor(1.0), RuntimeError, "Input tensor must have one or more dimensions"),
        (
            lambda: torch.ones(7)[1:].view(3, 2),
            RuntimeError,
            "Tensor must have a storage_offset divisible by 2",
        ),
        (
            lambda: torch.ones(3, 2, dtype=torch.int64),
            NotImplementedError,
            "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: Long",
        ),
    ],
)
def test_view_as_complex_errors(make, exc, words):
    with pytest.raises(exc, match=words):
        torch.view_as_complex(make())


def test_view_as_real_and_complex_builder_errors():
    with pytest.raises(TypeError, match="view_as_real is only supported for complex tensors"):
        torch.view_as_real(torch.ones(3))
    with pytest.raises(
        RuntimeError,
        match="Expected object of scalar type Float but got scalar type Double for second argument",
    ):
        torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64))
    with pytest.raises(
        NotImplementedError,
        match="Expected both inputs to be Half, Float or Double tensors but got Long and Long",
    ):
        torch.complex(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))
    with pytest.raises(
        NotImplementedError,
        match="Expected both inputs to be Half, Float or Double tensors but got Long and Long",
    ):
        torch.polar(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))
    with pytest.raises(
        RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)"
    ):
        torch.complex(torch.ones(2), torch.ones(3))


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
def test_complex_builder_layouts(dt):
    # the CPU's one pass writes an elementwise op's layout: contiguous parts give a contiguous result,
    # transposed parts a transposed one (as PyTorch's TensorIterator), broadcast and strided parts their values
    rng = np.random.default_rng(3)
    re, im = rng.standard_normal((34, 70)).astype(dt), rng.standard_normal((34, 70)).astype(dt)
    tr, ti = torch.tensor(re), torch.tensor(im)
    tol = 0 if dt == np.float64 else 1e-7
    z = torch.complex(tr, ti)
    assert z.dtype == (C64 if dt == np.float32 else C128) and z.is_contiguous()
    close(z, re + 1j * im, rtol=tol, atol=0)
    zt = torch.complex(tr.t(), ti.t())
    assert zt.stride() == (1, 70)
    close(zt, (re + 1j * im).T, rtol=tol, atol=0)
    close(torch.complex(tr, ti[0]), re + 1j * im[0], rtol=tol, atol=0)  # imaginary part broadcast
    close(torch.complex(tr[:, :1], ti), re[:, :1] + 1j * im, rtol=tol, atol=0)  # real part broadcast
    close(torch.complex(tr.t(), ti[:, 0]), re.T + 1j * im[:, 0], rtol=tol, atol=0)
    close(torch.complex(tr[::2, 1::3], ti[1::2, 2::3]), re[::2, 1::3] + 1j * im[1::2, 2::3], rtol=tol, atol=0)
    close(torch.complex(tr[5, 7], ti[6, 8]), re[5, 7] + 1j * im[6, 8], rtol=tol, atol=0)  # 0-dim
    e = torch.complex(tr[:0], ti[:0])
    assert e.shape == (0, 70) and e.dtype == z.dtype
    # special values move as they are
    sp = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=dt)
    got = np_of(torch.complex(torch.tensor(sp), torch.tensor(sp[::-1].copy())))
    np.testing.assert_array_equal(got.real, sp)
    np.testing.assert_array_equal(got.imag, sp[::-1])
    assert np.signbit(got.real[3]) and np.signbit(got.imag[1])


def test_complex_builder_gradients_of_transposed_parts():
    rng = np.random.default_rng(4)
    x = torch.tensor(rng.standard_normal((4, 3))).t().requires_grad_(True)
    y = torch.tensor(rng.standard_normal(4)).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a, b: torch.view_as_real(torch.complex(a, b)), (x, y))
    with torch.no_grad():
        assert not torch.complex(x, y).requires_grad


def test_complex_and_polar_builders():
    re, im = np.array([1.0, -2.0, 0.5]), np.array([0.0, 3.0, -1.0])
    z = torch.complex(torch.tensor(re, dtype=torch.float32), torch.tensor(im, dtype=torch.float32))
    assert z.dtype == C64
    close(z, re + 1j * im, rtol=1e-6)
    z = torch.complex(
        torch.tensor(re, dtype=torch.float64), torch.tensor(2.0, dtype=torch.float64)
    )  # broadcast
    assert z.dtype == C128
    close(z, re + 2j)
    p = torch.polar(
        torch.tensor([2.0, 1.0], dtype=torch.float64), torch.tensor([np.pi / 2, np.pi], dtype=torch.float64)
    )
    close(p, np.array([2j, -1 + 0j]), atol=1e-15)


# ---------------------------------------------------------------------------------------------- comparisons API


def test_isclose_allclose_assert_close():
    a = torch.tensor([1 + 1j, complex(float("inf"), 1), complex(float("nan"), 0)])
    assert torch.isclose(a, a).tolist() == [True, True, False]
    assert torch.isclose(a, a, equal_nan=True).tolist() == [True, True, True]
    # |a - b| against atol + rtol |b|: 1e-5 away is close, 1e-4 is not
    assert torch.isclose(torch.tensor([1 + 1j]), torch.tensor([1 + 1.00001j])).item()
    assert not torch.isclose(torch.tensor([1 + 1j]), torch.tensor([1 + 1.0001j])).item()
    inf1, inf2 = torch.tensor([complex(float("inf"), 1)]), torch.tensor([complex(float("inf"), 2)])
    assert not torch.isclose(inf1, inf2).item()
    assert torch.allclose(torch.tensor([1 + 1j]), torch.tensor([1 + 1j + 1e-9j]))
    assert not torch.allclose(torch.tensor([1 + 1j]), torch.tensor([1 + 1.1j]))
    torch.testing.assert_close(torch.tensor([1 + 1j]), torch.tensor([1 + 1j + 1e-7j]))
    with pytest.raises(AssertionError, match="Tensor-likes are not close!"):
        torch.testing.assert_close(torch.tensor([1 + 1j]), torch.tensor([1 + 1.1j]))
    # the imaginary part counts: a real-only comparison would pass this pair
    with pytest.raises(AssertionError):
        torch.testing.assert_close(torch.tensor([1 + 0j], dtype=C128), torch.tensor([1 + 1e-3j], dtype=C128))
    with pytest.raises(RuntimeError, match="^ComplexFloat did not match ComplexDouble$"):
        torch.allclose(torch.tensor([1j]), torch.tensor([1j], dtype=C128))


# ------------------------------------------------------------------------------------------------------ printing

_REPRS = [
    (lambda: torch.tensor(1 + 2j), "tensor(1.+2.j)"),
    (lambda: torch.tensor(complex(1, -0.0)), "tensor(1.-0.j)"),
    (lambda: torch.tensor([1 + 2j, 3 - 1j]), "tensor([1.+2.j, 3.-1.j])"),
    (
        lambda: torch.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j]),
        "tensor([ 1.0000+2.0000j,  3.0000-1.0000j, -0.5000+0.2500j])",
    ),
    (
        lambda: torch.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j], dtype=C128),
        "tensor([ 1.0000+2.0000j,  3.0000-1.0000j, -0.5000+0.2500j],\n       dtype=torch.complex128)",
    ),
    (lambda: torch.empty(0, dtype=C64), "tensor([], dtype=torch.complex64)"),
    (lambda: torch.empty(0, 2, dtype=C128), "tensor([], size=(0, 2), dtype=torch.complex128)"),
    (
        lambda: torch.tensor([1e10 + 1j, 1 - 1e-6j]),
        "tensor([1.0000e+10+1.0000e+00j, 1.0000e+00-1.0000e-06j])",
    ),
    (
        lambda: torch.tensor(
            [complex(float("nan"), 1), complex(1, float("inf")), complex(-float("inf"), -float("inf"))]
        ),
        "tensor([nan+1.j, 1.+infj, -inf-infj])",
    ),
    (lambda: -torch.zeros(2, dtype=C64), "tensor([-0.-0.j, -0.-0.j])"),
    (
        lambda: torch.arange(6.0).reshape(2, 3) * (1 - 0.5j),
        "tensor([[0.+0.0000j, 1.-0.5000j, 2.-1.0000j],\n        [3.-1.5000j, 4.-2.0000j, 5.-2.5000j]])",
    ),
    (
        lambda: torch.tensor([1 + 1j, 2 - 2j], requires_grad=True),
        "tensor([1.+1.j, 2.-2.j], requires_grad=True)",
    ),
    (lambda: torch.tensor([1 + 1j], requires_grad=True) * 2, "tensor([2.+2.j], grad_fn=<MulBackward0>)"),
    (
        lambda: torch.arange(2000.0) * (1 + 1j) / 7,
        (
            "tensor([0.0000e+00+0.0000e+00j, 1.4286e-01+1.4286e-01j, 2.8571e-01+2.8571e-01j,\n"
            "         ..., 2.8529e+02+2.8529e+02j, 2.8543e+02+2.8543e+02j,\n"
            "        2.8557e+02+2.8557e+02j])"
        ),
    ),
    (
        lambda: torch.arange(30.0) * (1.5 + 1j),
        (
            "tensor([ 0.0000+0.j,  1.5000+1.j,  3.0000+2.j,  4.5000+3.j,  6.0000+4.j,\n"
            "         7.5000+5.j,  9.0000+6.j, 10.5000+7.j, 12.0000+8.j, 13.5000+9.j,\n"
            "        15.0000+10.j, 16.5000+11.j, 18.0000+12.j, 19.5000+13.j, 21.0000+14.j,\n"
            "        22.5000+15.j, 24.0000+16.j, 25.5000+17.j, 27.0000+18.j, 28.5000+19.j,\n"
            "        30.0000+20.j, 31.5000+21.j, 33.0000+22.j, 34.5000+23.j, 36.0000+24.j,\n"
            "        37.5000+25.j, 39.0000+26.j, 40.5000+27.j, 42.0000+28.j, 43.5000+29.j])"
        ),
    ),
]


@pytest.mark.parametrize("k", range(len(_REPRS)))
def test_repr_matches_pytorch(k):
    make, want = _REPRS[k]
    assert repr(make()) == want


def test_repr_print_options():
    t = torch.tensor([1.25 + 2j, 3 - 1.125j])
    try:
        torch.set_printoptions(precision=2)
        assert repr(t) == "tensor([1.25+2.00j, 3.00-1.12j])"
        torch.set_printoptions(precision=4, sci_mode=True)
        assert repr(t) == "tensor([1.2500e+00+2.0000e+00j, 3.0000e+00-1.1250e+00j])"
        torch.set_printoptions(sci_mode=False)
        assert (
            repr(torch.tensor([1e10 + 1j, 1 - 1e-6j]))
            == "tensor([10000000000.+1.0000j,           1.-0.0000j])"
        )
        torch.set_default_dtype(torch.float64)
        assert repr(torch.tensor([1j])) == "tensor([0.+1.j])"
        assert repr(torch.tensor([1j], dtype=C64)) == "tensor([0.+1.j], dtype=torch.complex64)"
    finally:
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)


# ------------------------------------------------------------------------------------------------- save / load


def _roundtrip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf)


def test_save_load_complex():
    t = torch.tensor(crandn(3, 2), dtype=C128)
    back = _roundtrip(t)
    assert back.dtype == C128
    np.testing.assert_array_equal(np_of(back), np_of(t))
    m = torch.nn.Linear(3, 2, dtype=C64)
    sd = _roundtrip(m.state_dict())
    assert sd["weight"].dtype == C64
    np.testing.assert_array_equal(np_of(sd["weight"]), np_of(m.weight))
    z = torch.tensor([1 + 2j, 3 - 4j])
    zz, z2 = _roundtrip([z, z[1:]])  # views of one complex storage keep their aliasing
    zz[1] = 0
    assert z2.item() == 0
    np.testing.assert_array_equal(np_of(_roundtrip(z.imag)), [2.0, -4.0])
    # one storage is saved with one dtype: a complex tensor with its real view is refused, as PyTorch
    with pytest.raises(
        RuntimeError,
        match="Cannot save multiple tensors or storages that view the same data as different types",
    ):
        _roundtrip([z.imag, z])


# ------------------------------------------------------------------------------------------- modules, optimizers


def test_module_to_complex():
    m = torch.nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="Complex modules are a new feature under active development"):
        m.to(torch.cfloat)
    assert m.weight.dtype == C64 and m.bias.dtype == C64
    m.float()  # float()/double()/half() leave complex tensors alone
    m.double()
    assert m.weight.dtype == C64
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        m.to(torch.float64)
    assert m.weight.dtype == torch.float64
    assert torch.nn.Linear(2, 2).type(torch.cdouble).weight.dtype == C128
    p = torch.nn.Parameter(torch.tensor([1j]))
    assert p.dtype == C64 and p.requires_grad and isinstance(p, torch.nn.Parameter)


def _loss(p):
    # |p|^2 + 3 Re p: real-valued; its conjugate-Wirtinger gradient is 2p + 3
    return (p * p.conj()).real.sum() + (p.real * 3).sum()


def _run(opt_cls, steps=3, **kw):
    p = torch.nn.Parameter(torch.tensor([1 + 2j, -1 + 0.5j], dtype=C128))
    opt = opt_cls([p], **kw)
    for _ in range(steps):
        opt.zero_grad()
        _loss(p).backward()
        opt.step()
    return np_of(p.detach())


def test_sgd_on_complex_parameters():
    p = np.array([1 + 2j, -1 + 0.5j])
    want = p.copy()
    buf = None
    for _ in range(3):
        g = 2 * want + 3 + 0.1 * want  # weight decay 0.1
        buf = g if buf is None else 0.9 * buf + g
        want = want - 0.1 * buf
    np.testing.assert_allclose(
        _run(torch.optim.SGD, lr=0.1, momentum=0.9, weight_decay=0.1), want, rtol=1e-12
    )
    np.testing.assert_allclose(_run(torch.optim.SGD, steps=1, lr=0.1), p - 0.1 * (2 * p + 3), rtol=1e-12)


def test_adam_on_complex_parameters_as_real_pairs():
    # PyTorch's Adam updates a complex parameter as its real view: the second moment is per part
    x = np.array([[1.0, 2.0], [-1.0, 0.5]])
    m, v = np.zeros_like(x), np.zeros_like(x)
    for t in range(1, 4):
        g = 2 * x + np.array([3.0, 0.0])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        x = x - 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    np.testing.assert_allclose(_run(torch.optim.Adam, lr=0.1), x[:, 0] + 1j * x[:, 1], rtol=1e-10)
    for cls in (torch.optim.AdamW, torch.optim.RMSprop, torch.optim.Adagrad):
        out = _run(cls, lr=0.1)
        assert np.all(np.isfinite(out)) and np.all(np.abs(out - np.array([1 + 2j, -1 + 0.5j])) > 1e-3)


def test_adadelta_and_lbfgs_on_complex_parameters():
    # both treat a complex parameter as its real pair: the same steps as on an equivalent real parameter
    def run(cls, complex_param, **kw):
        start = np.array([1 + 2j, -1 + 0.5j])
        if complex_param:
            p = torch.nn.Parameter(torch.tensor(start, dtype=C128))
        else:
            p = torch.nn.Parameter(torch.tensor(np.stack([start.real, start.imag], -1), dtype=torch.float64))
        opt = cls([p], **kw)

        def closure():
            opt.zero_grad()
            if complex_param:
                loss = _loss(p)
            else:
                loss = (p * p).sum() + (p[:, 0] * 3).sum()
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        out = np_of(p.detach())
        return out if complex_param else out[:, 0] + 1j * out[:, 1]

    for cls, kw in ((torch.optim.Adadelta, {"lr": 1.0}), (torch.optim.LBFGS, {"lr": 0.5})):
        np.testing.assert_allclose(run(cls, True, **kw), run(cls, False, **kw), rtol=1e-12, atol=1e-12)
    # L-BFGS reaches the minimum of |p|^2 + 3 Re p, at p = -1.5
    np.testing.assert_allclose(run(torch.optim.LBFGS, True, lr=0.5), [-1.5, -1.5], atol=1e-3)


# --------------------------------------------------------------------------------------------------- autograd


def fd_grad(f, z, eps=1e-6):
    """Finite-difference gradient of a real-valued f at complex z (complex128 NumPy), in PyTorch's convention:
    dL/dx + i dL/dy, each part perturbed on its own."""
    g = np.zeros_like(z)
    flat, out = z.reshape(-1), g.reshape(-1)
    for k in range(flat.size):
        for unit in (1.0, 1j):
            hi, lo = flat.copy(), flat.copy()
            hi[k] += eps * unit
            lo[k] -= eps * unit
            d = (f(hi.reshape(z.shape)) - f(lo.reshape(z.shape))) / (2 * eps)
            out[k] += d * unit
    return g


def autograd_grad(f, z):
    t = torch.tensor(z, dtype=C128, requires_grad=True)
    loss = f(t)
    assert loss.dtype == torch.float64 and loss.dim() == 0
    loss.backward()
    return np_of(t.grad)


def check_grad(f, z, **kw):
    def real_f(a):
        return f(torch.tensor(a, dtype=C128)).item()

    np.testing.assert_allclose(autograd_grad(f, z), fd_grad(real_f, z), rtol=1e-6, atol=1e-7, **kw)


_W = crandn(3, seed=9)

_LOSSES = {
    "abs2": lambda z: (z * z.conj()).real.sum(),
    "abs": lambda z: z.abs().sum(),
    "real_exp": lambda z: z.exp().real.sum(),
    "imag_log": lambda z: torch.log(z).imag.sum(),
    "abs_sqrt": lambda z: torch.sqrt(z).abs().sum(),
    "div": lambda z: (torch.tensor(_W) / z).real.sum(),
    "mul_const": lambda z: (z * torch.tensor(_W)).imag.sum(),
    "trig": lambda z: (torch.sin(z) * torch.cosh(z)).abs().sum(),
    "tanh_sigmoid": lambda z: (torch.tanh(z) + torch.sigmoid(z)).real.sum(),
    "reciprocal_rsqrt": lambda z: (z.reciprocal() + z.rsqrt()).abs().sum(),
    "mean_sum": lambda z: z.mean().abs() + z.sum().real,
    "view_as_real": lambda z: (torch.view_as_real(z) ** 2).sum(),
    "angle": lambda z: torch.angle(z).sum(),
    "sgn": lambda z: torch.sgn(z).real.sum(),
    "conj": lambda z: (z.conj() * torch.tensor(_W)).real.sum(),
    "matmul": lambda z: (z.reshape(3, 1) @ z.reshape(1, 3)).abs().sum(),
    "dot": lambda z: torch.dot(z, torch.tensor(_W)).abs(),
    "vdot": lambda z: torch.vdot(z, torch.tensor(_W)).real,
    "index_cat": lambda z: torch.cat([z[1:], z[:1] * 2]).abs().sum(),
    "norm": lambda z: torch.linalg.vector_norm(z),
    "cumsum": lambda z: (z.cumsum(0) * torch.tensor(_W)).real.sum(),
    "cumprod": lambda z: torch.cumprod(z, 0).abs().sum(),
    "prod": lambda z: z.prod().imag + z.reshape(3, 1).prod(1).real.sum(),
    "index_add": lambda z: (
        torch.zeros(2, dtype=C128).index_add(0, torch.tensor([1, 0, 1]), z * torch.tensor(_W)).abs().sum()
    ),
    "scatter_add": lambda z: torch.zeros(2, dtype=C128).scatter_add(0, torch.tensor([1, 0, 1]), z).imag.sum(),
    "index_select_gather": lambda z: (
        z.index_select(0, torch.tensor([2, 2, 0])) * torch.gather(z, 0, torch.tensor([1, 0, 0]))
    ).real.sum(),
    "lerp": lambda z: torch.lerp(z, torch.tensor(_W), 0.3).abs().sum(),
}


@pytest.mark.parametrize("name", sorted(_LOSSES))
def test_gradients_against_finite_differences(name):
    check_grad(_LOSSES[name], crandn(3, seed=4) + 0.5)


def test_gradient_of_real_input_through_complex_ops_is_real():
    x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
    loss = (x * (1 + 2j)).exp().abs().sum()
    loss.backward()
    assert x.grad.dtype == torch.float64

    def f(a):
        return np.abs(np.exp(a * (1 + 2j))).sum()

    want = [(f(np.array([0.3 + 1e-6, -1.2])) - f(np.array([0.3 - 1e-6, -1.2]))) / 2e-6]
    want.append((f(np.array([0.3, -1.2 + 1e-6])) - f(np.array([0.3, -1.2 - 1e-6]))) / 2e-6)
    np.testing.assert_allclose(np_of(x.grad), want, rtol=1e-6)


def test_gradients_through_builders():
    re = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    im = torch.tensor([2.0, 0.25], dtype=torch.float64, requires_grad=True)
    torch.complex(re, im).abs().sum().backward()
    r = np.hypot([0.5, -1.0], [2.0, 0.25])
    np.testing.assert_allclose(np_of(re.grad), np.array([0.5, -1.0]) / r, rtol=1e-12)
    np.testing.assert_allclose(np_of(im.grad), np.array([2.0, 0.25]) / r, rtol=1e-12)
    mag = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    ang = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    torch.polar(mag, ang).real.sum().backward()
    np.testing.assert_allclose(np_of(mag.grad), [np.cos(0.3)], rtol=1e-12)
    np.testing.assert_allclose(np_of(ang.grad), [-2 * np.sin(0.3)], rtol=1e-12)


def test_complex_gradient_of_holomorphic_output_with_grad_output():
    # for a complex output, backward(grad) gives grad * conj(f'(z)): here f = z^3 / 3 through products
    z0 = crandn(2, seed=7)
    t = torch.tensor(z0, dtype=C128, requires_grad=True)
    out = t * t * t / 3
    g = crandn(2, seed=8)
    out.backward(torch.tensor(g, dtype=C128))
    np.testing.assert_allclose(np_of(t.grad), g * np.conj(z0**2), rtol=1e-12)


def test_nodes_outside_the_complex_list_refuse():
    z = torch.tensor([1 + 1j], requires_grad=True)
    # addmm's formula takes alpha/beta as real numbers: it is not on the complex-safe list
    m = torch.tensor([[1 + 1j]], requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="^AddmmBackward0 does not support automatic differentiation for outputs with complex dtype.$",
    ):
        torch.addmm(m, m, m)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        torch.erf(z)
    with torch.no_grad():  # without grad nothing records, so the op runs
        close(torch.addmm(m, m, m), np.array([[1 + 1j + 2j]]), rtol=1e-6)


def test_pow_and_linear_gradients_follow_the_convention():
    # z ** 2 is holomorphic: d|z^2|^2/dz* gives 2 |z|^2 * 2 z ... checked against finite differences of the
    # real and imaginary parts of a real loss
    a = np.array([1 + 2j, -0.5 + 0.25j])
    z = torch.tensor(a, requires_grad=True)
    ((z**3).abs() ** 2).sum().backward()

    def f(v):
        return np.sum(np.abs(v**3) ** 2)

    h = 1e-6
    num = np.array(
        [
            (f(a + h * e) - f(a - h * e)) / (2 * h) + 1j * (f(a + 1j * h * e) - f(a - 1j * h * e)) / (2 * h)
            for e in np.eye(2)
        ]
    )
    close(z.grad, num, rtol=1e-5)
    # exact integer powers (not exp(n log z))
    assert (torch.tensor([1 + 2j]) ** 2).tolist() == [-3 + 4j]
    lin = torch.nn.Linear(3, 2, dtype=torch.cdouble)
    x = torch.tensor(np.arange(6.0).reshape(2, 3) * (1 - 0.5j), requires_grad=True)
    lin(x).abs().sum().backward()
    w = lin.weight.detach().numpy()
    b = lin.bias.detach().numpy()
    xv = x.detach().numpy()

    def g(wv):
        return np.sum(np.abs(xv @ wv.T + b))

    num_w = np.zeros_like(w)
    for i in range(2):
        for j in range(3):
            e = np.zeros_like(w)
            e[i, j] = 1
            num_w[i, j] = (g(w + h * e) - g(w - h * e)) / (2 * h) + 1j * (
                g(w + 1j * h * e) - g(w - 1j * h * e)
            ) / (2 * h)
    close(lin.weight.grad, num_w, rtol=1e-5)


def test_complex_on_device(device):
    # creation and transfer work on any device; arithmetic is CPU-only (CPU_ONLY)
    t = torch.tensor([1 + 2j, 3 - 4j], device=device)
    assert t.dtype == C64 and t.device.type == device
    np.testing.assert_array_equal(t.cpu().numpy(), np.array([1 + 2j, 3 - 4j], np.complex64))
    if device != "cpu":
        pytest.skip(CPU_ONLY)
    close(t * t, np.array([1 + 2j, 3 - 4j]) ** 2, rtol=1e-6)


def test_norm_var_std_of_complex_along_dims():
    a = crandn(3, 4)
    t = torch.tensor(a, dtype=C128)
    close(t.norm(dim=1), np.linalg.norm(a, axis=1))
    close(torch.linalg.vector_norm(t, 1), np.abs(a).sum())
    close(t.var(0), np.var(a, axis=0, ddof=1))
    close(t.std(1, keepdim=True), np.std(a, axis=1, ddof=1, keepdims=True))
    assert t.var().dtype == torch.float64


def test_clip_grad_norm_of_complex_gradients():
    p = torch.nn.Parameter(torch.zeros(3, dtype=C64))
    p.grad = torch.full((3,), 3 + 4j, dtype=C64)
    total = torch.nn.utils.clip_grad_norm_([p], 1.0)
    close(total, np.sqrt(3) * 5, rtol=1e-6)
    close(p.grad.norm(), 1.0, rtol=1e-5)


def test_view_dtype_between_complex_and_real():
    x = torch.arange(8.0).reshape(2, 4)
    z = x.view(C64)
    assert z.shape == (2, 2)
    close(z, x.numpy().view(np.complex64))
    close(z.view(torch.float32), x.numpy())
    assert z.view(torch.float32).data_ptr() == x.data_ptr()
    close(torch.tensor(crandn(3), dtype=C128).view(torch.float64), crandn(3).view(np.float64))
    with pytest.raises(RuntimeError, match=r"^self.stride\(-1\) must be 1 to view Float as ComplexFloat"):
        x.t().view(C64)
    with pytest.raises(RuntimeError, match=r"^self.size\(-1\) must be divisible by 2 to view Float as"):
        torch.zeros(3).view(C64)
    with pytest.raises(RuntimeError, match="^self.dim\\(\\) cannot be 0 to view Float as Double"):
        torch.tensor(1.0).view(torch.float64)


def test_linspace_with_complex_endpoints():
    close(torch.linspace(0, 1 + 1j, 3), np.linspace(0, 1 + 1j, 3), rtol=1e-6)
    t = torch.linspace(-1, 1, 5, dtype=C128)
    assert t.dtype == C128
    close(t, np.linspace(-1, 1, 5).astype(np.complex128))


def test_resize_keeps_elements_and_grows():
    t = torch.arange(6.0)
    u = t.view(2, 3)
    t.resize_(2, 2)
    assert t.shape == (2, 2)
    close(t.clone(), np.arange(4.0).reshape(2, 2))  # a clone: .numpy() of t itself would pin its storage
    t.resize_(4, 4)  # past the storage: a larger one that keeps the old elements
    close(t.reshape(-1)[:6], np.arange(6.0))
    assert u.shape == (2, 3)
    v = torch.arange(8.0).reshape(2, 4)[:, ::2]  # the same sizes: a no-op that keeps the strides
    assert v.resize_(2, 2).stride() == (4, 2)
    close(v, np.arange(8.0).reshape(2, 4)[:, ::2])
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        torch.zeros(2, requires_grad=True).resize_(3)
    z = torch.tensor(crandn(2), dtype=C128)
    z.resize_(1)
    close(z, crandn(2)[:1])


def test_fft_primitives_halve_the_last_listed_dim():
    x = torch.randn(3, 5, 6, dtype=torch.float64)
    r = torch._C._fft_r2c(x, [2, 0], 0, True)
    assert r.shape == (2, 5, 6)
    close(r, np.fft.rfftn(x.numpy(), axes=(2, 0)))
    back = torch._C._fft_c2r(r, [2, 0], 2, 3)
    close(back, x.numpy())


def test_gradcheck_checks_complex_inputs_and_outputs():
    # complex inputs and outputs are checked as pairs of reals: a backward that drops the imaginary part fails
    from minitorch.autograd import GradcheckError, gradcheck

    z = torch.randn(3, dtype=torch.complex128, requires_grad=True)
    assert gradcheck(lambda z: z.exp() * z, (z,))
    assert gradcheck(lambda z: z.abs(), (z,))
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x: torch.polar(x.abs() + 1, x), (x,))

    class DropsImag(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return z * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).real.to(torch.complex128)

    with pytest.raises(GradcheckError, match="imaginary part"):
        gradcheck(DropsImag.apply, (z,))
    assert gradcheck(DropsImag.apply, (z,), raise_exception=False) is False
