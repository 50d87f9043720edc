"""Elementwise ops against float64 NumPy: the op table of csrc/ops/elementwise.h over dtypes, layouts,
broadcasting, scalars, zero-size tensors, in-place variants, type promotion and edge cases."""

import builtins
import math
import re
import subprocess
import sys

import numpy as np
import pytest

import minitorch
from tests.ops import op_schema, opdb
from tests.utils import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    assert_matches,
    expanded_array,
    make_array,
    make_tensor,
    to_np,
)

# the cases (reference, dtypes, domain, result rule) are the op database's entries (tests/ops/opdb.py)
UNARY, BINARY = opdb.UNARY, opdb.BINARY


def test_table_is_complete():
    """Every schema op has a case here, in the schema's order, with the schema's result rule."""
    assert list(UNARY) == op_schema.UNARY
    assert list(BINARY) == op_schema.BINARY
    for table in (UNARY, BINARY):
        for name, (*_, rule) in table.items():
            assert rule == op_schema.RESULT_RULE[op_schema.BY_NAME[name].rule], name


_op = op_schema.function


def _has(name, variant):
    return variant in op_schema.BY_NAME[name].variants


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(UNARY) + list(BINARY))
def test_dtype_support_matches_pytorch(name, dtype, device):
    """Every (op, dtype) pair does what PyTorch does (opdb's verdict from tests/ops/elementwise_oracle.py, made by
    scripts/classify_elementwise_dtypes.py): computes with PyTorch's result dtype, its values checked against
    NumPy by test_unary/test_binary, or raises PyTorch's error word for word, in place as well."""
    table, nargs = (UNARY, 1) if name in UNARY else (BINARY, 2)
    verdict = opdb.OPS[name].verdict(_dtype_name(dtype))
    x = minitorch.ones(3, dtype=dtype, device=device)
    if verdict[0] == "ok":
        assert dtype in table[name][1], f"{name} computes {dtype}: the table must test its values"
        assert _dtype_name(_op(name)(*[x] * nargs).dtype) == verdict[1]
        return
    assert dtype not in table[name][1]
    _kind, exc, msg = verdict
    pattern = re.escape(msg)
    if device != "cpu" and msg.startswith('"'):  # PyTorch's CUDA kernels have their own names ("abs_cuda")
        pattern = r'"\w+"' + re.escape(msg[msg.index('"', 1) + 1 :])
    calls = [lambda: _op(name)(*[x] * nargs)]
    if hasattr(x, name + "_"):
        calls.append(lambda: getattr(x.clone(), name + "_")(*[x] * (nargs - 1)))
    for call in calls:
        with pytest.raises(getattr(builtins, exc), match=f"^{pattern}$"):
            call()


LAYOUTS = ["contiguous", "transposed", "expanded", "strided"]


def _make(arr, dtype, device, layout):
    """make_tensor, with "strided" built by as_strided (every other element of a larger buffer, offset 1),
    since tests.utils' strided layout needs __getitem__."""
    if layout != "strided":
        return make_tensor(arr, dtype, device, layout)
    arr = np.asarray(arr)
    big = np.zeros(2 * arr.size + 1, dtype=arr.dtype)
    big[1::2] = arr.ravel()
    strides = [2 * int(np.prod(arr.shape[i + 1 :])) for i in range(arr.ndim)]
    t = minitorch.as_strided(minitorch.tensor(big, dtype=dtype, device=device), arr.shape, strides, 1)
    assert not t.is_contiguous()
    return t


def _result_dtype(rule, dtype):
    if rule == "bool":
        return minitorch.bool
    if rule in ("float", "div") and not dtype.is_floating_point:
        return minitorch.get_default_dtype()
    return dtype


def _input(dtype, shape, rng, domain):
    if domain is None:
        return make_array(shape, dtype, rng)
    lo, hi = domain
    if dtype == minitorch.bool:
        return rng.random(shape) > 0.5 if lo <= 0 else np.ones(shape, dtype=bool)
    if dtype in INT_DTYPES:
        return rng.integers(
            max(math.ceil(lo), 0 if dtype == minitorch.uint8 else -10), max(int(hi), 1) + 1, size=shape
        ).astype(np.int64)
    return make_array(shape, dtype, rng, lo, hi)


def _np_ref(ref, *arrs, dtype):
    """Reference in float64 (bool/integers keep integer semantics)."""
    if dtype.is_floating_point:
        arrs = [np.asarray(a, dtype=np.float64) for a in arrs]
    with np.errstate(all="ignore"):
        return ref(*arrs)


def _tol(rule, dtype, name):
    out = _result_dtype(rule, dtype)
    if out == minitorch.bool or not out.is_floating_point:
        return {}
    # the result is rounded to out's precision, so references of the rounded inputs differ by a few ulps
    if name in ("tan", "exp", "exp2", "sinh", "cosh", "pow", "expm1", "mish") and out in (
        minitorch.float16,
        minitorch.bfloat16,
    ):
        r = {minitorch.float16: 4e-3, minitorch.bfloat16: 2e-2}[out]
        return {"rtol": r, "atol": r}
    return {}


def _pairs(table):
    """(op, dtype) for every dtype the op computes; the others raise, as in PyTorch (test_dtype_support)."""
    return [pytest.param(n, d, id=f"{n}-{d}") for n in table for d in ALL_DTYPES if d in table[n][1]]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("name", "dtype"), _pairs(UNARY))
def test_unary(name, dtype, layout, device):
    ref, _dtypes, domain, rule = UNARY[name]
    rng = np.random.default_rng(0)
    arr = _input(dtype, (3, 4), rng, domain)
    if layout == "expanded":
        arr = expanded_array(arr)
    x = _make(arr, dtype, device, layout)
    out = _op(name)(x)
    assert out.dtype == _result_dtype(rule, dtype)
    assert out.shape == (3, 4)
    expect = _np_ref(ref, arr, dtype=_result_dtype("float", dtype) if rule == "float" else dtype)
    assert_matches(out, expect, **_tol(rule, dtype, name))
    if _has(name, "method"):  # the method spelling is the same op
        assert_matches(getattr(x, name)(), expect, **_tol(rule, dtype, name))


@pytest.mark.parametrize(("name", "dtype"), _pairs(UNARY))
def test_unary_inplace_and_empty(name, dtype, device):
    ref, _dtypes, domain, rule = UNARY[name]
    empty = minitorch.empty(0, 3, dtype=dtype, device=device)
    out = _op(name)(empty)
    assert out.shape == (0, 3) and out.dtype == _result_dtype(rule, dtype)
    if not _has(name, "inplace"):
        return
    rng = np.random.default_rng(1)
    arr = _input(dtype, (5,), rng, domain)
    x = make_tensor(arr, dtype, device)
    out_dt = _result_dtype(rule, dtype)
    if minitorch.can_cast(out_dt, dtype):
        r = getattr(x, name + "_")()
        assert r is x and x.dtype == dtype
        expect = _np_ref(ref, arr, dtype=dtype)
        if out_dt != dtype:
            expect = expect.astype(np.float64 if dtype.is_floating_point else bool)
        assert_matches(x, expect, **_tol(rule, dtype, name))
    else:
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            getattr(x, name + "_")()


def _binary_inputs(name, dtype, shape_a, shape_b, rng, domain):
    a = make_array(shape_a, dtype, rng)
    b = make_array(shape_b, dtype, rng)
    if domain == "nonzero":
        if dtype == minitorch.bool:
            b = np.ones(shape_b, dtype=bool)
        else:
            b = np.where(b == 0, 1, b).astype(b.dtype)
    elif domain == "pow":
        if dtype in INT_DTYPES or dtype == minitorch.bool:
            b = np.abs(b).astype(b.dtype) if dtype != minitorch.uint8 else b
            b = np.minimum(b, 3).astype(b.dtype)
        else:
            a = np.abs(a) + 0.5 if dtype != minitorch.bfloat16 else make_array(shape_a, dtype, rng, 0.5, 3)
            a = make_array(shape_a, dtype, rng, 0.5, 3)
    return a, b


def _binary_ref(name, a, b, dtype):
    ref = BINARY[name][0]
    if dtype.is_floating_point or BINARY[name][3] == "div":
        return _np_ref(ref, np.asarray(a, np.float64), np.asarray(b, np.float64), dtype=minitorch.float64)
    if dtype == minitorch.bool:
        with np.errstate(all="ignore"):
            return ref(a, b)
    np_dt = {
        minitorch.int64: np.int64,
        minitorch.int32: np.int32,
        minitorch.int16: np.int16,
        minitorch.int8: np.int8,
        minitorch.uint8: np.uint8,
    }[dtype]
    with np.errstate(all="ignore"):
        return ref(np.asarray(a, np_dt), np.asarray(b, np_dt))


SHAPES = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (3, 4)), ((3, 4), ()), ((0, 4), (1, 4))]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("name", "dtype"), _pairs(BINARY))
def test_binary(name, dtype, layout, device):
    _ref, _dtypes, domain, rule = BINARY[name]
    rng = np.random.default_rng(2)
    a, b = _binary_inputs(name, dtype, (3, 4), (3, 4), rng, domain)
    if layout == "expanded":
        a = expanded_array(a)
    x = _make(a, dtype, device, layout)
    y = make_tensor(b, dtype, device)
    out = _op(name)(x, y)
    assert out.dtype == _result_dtype(rule, dtype)
    assert_matches(out, _binary_ref(name, a, b, dtype), **_tol(rule, dtype, name))
    if _has(name, "method"):
        assert_matches(getattr(x, name)(y), _binary_ref(name, a, b, dtype), **_tol(rule, dtype, name))


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize(
    ("name", "dtype"),
    [p for p in _pairs(BINARY) if p.values[1] in (minitorch.float32, minitorch.int64, minitorch.float16)],
)
def test_binary_broadcast(name, dtype, shapes, device):
    _ref, _dtypes, domain, rule = BINARY[name]
    rng = np.random.default_rng(3)
    a, b = _binary_inputs(name, dtype, shapes[0], shapes[1], rng, domain)
    out = _op(name)(make_tensor(a, dtype, device), make_tensor(b, dtype, device))
    expect = _binary_ref(name, a, b, dtype)
    assert out.shape == np.shape(expect)
    assert_matches(out, expect, **_tol(rule, dtype, name))


# Where PyTorch's parser takes Python numbers for a binary function's operands (its
# should_allow_numbers_as_tensors list, the `Number self` overloads, the ops with tensor-only signatures); the
# other ops take a number second only.
_NUMBERS_ANYWHERE = {"add", "sub", "mul", "div", "floor_divide", "trunc_divide"}
_NUMBER_FIRST = {"pow", "remainder", "xlogy", "bitwise_and", "bitwise_or", "bitwise_xor"}
_TENSORS_ONLY = {
    "maximum",
    "minimum",
    "atan2",
    "logaddexp",
    "logaddexp2",
    "logical_and",
    "logical_or",
    "logical_xor",
}


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        pytest.param(n, d, id=f"{n}-{d}")
        for n in BINARY
        if not n.startswith("bitwise")
        for d in (minitorch.float32, minitorch.int64, minitorch.int32, minitorch.float64)
        if d in BINARY[n][1]
    ],
)
def test_binary_python_scalars(name, dtype, device):
    _ref, _dtypes, domain, rule = BINARY[name]
    rng = np.random.default_rng(4)
    a, _ = _binary_inputs(name, dtype, (2, 3), (2, 3), rng, domain)
    if domain == "pow" and not dtype.is_floating_point:
        a = np.abs(a)
    x = make_tensor(a, dtype, device)
    s = 2
    public = not name.startswith("_")  # the `_` rows are internal, behind Python wrappers that check
    if public and name in _TENSORS_ONLY:
        with pytest.raises(
            TypeError, match=rf"^{name}\(\): argument 'other' \(position 2\) must be Tensor, not int"
        ):
            _op(name)(x, s)
        with pytest.raises(
            TypeError, match=rf"^{name}\(\): argument 'other' \(position 1\) must be Tensor, not int"
        ):
            getattr(x, name)(s)
        s = minitorch.tensor(s, dtype=dtype, device=device)
    out = _op(name)(x, s)
    assert out.dtype == _result_dtype(rule, dtype)
    assert_matches(out, _binary_ref(name, a, np.full_like(a, 2), dtype))
    # scalar on the left (through the operator when one exists, else the functional form), where PyTorch's
    # parser takes a number first
    if public and name not in _NUMBERS_ANYWHERE and name not in _NUMBER_FIRST:
        with pytest.raises(TypeError, match=rf"^{name}\(\)"):
            _op(name)(2, x)
        with pytest.raises(TypeError, match=rf"^{name}\(\)"):
            _op(name)(2, 3)
        return
    out = _op(name)(s, x) if domain is None or dtype.is_floating_point else None
    if out is not None:
        assert_matches(out, _binary_ref(name, np.full_like(a, 2), a, dtype))


def test_operators(device):
    a = np.array([[1.5, -2.0, 3.0]])
    b = np.array([[2.0], [-4.0]])
    x, y = minitorch.tensor(a, device=device), minitorch.tensor(b, device=device)
    for op in [
        "__add__",
        "__sub__",
        "__mul__",
        "__truediv__",
        "__floordiv__",
        "__mod__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__eq__",
        "__ne__",
    ]:
        assert_matches(getattr(x, op)(y), getattr(a, op)(b))
        assert_matches(getattr(x, op)(2.5), getattr(a, op)(2.5))
    for op in ["__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__", "__rpow__"]:
        assert_matches(getattr(x, op)(2.5), getattr(a, op)(2.5))
    assert_matches(3 - x, 3 - a)
    assert_matches(2**x, 2**a)
    assert_matches(-x, -a)
    assert_matches(abs(x), abs(a))
    assert_matches(x**2, a**2)
    i = minitorch.tensor([5, 6, 12], device=device)
    assert_matches(i & 3, np.array([5, 6, 12]) & 3)
    assert_matches(i | 3, np.array([5, 6, 12]) | 3)
    assert_matches(i ^ 3, np.array([5, 6, 12]) ^ 3)
    assert_matches(~i, ~np.array([5, 6, 12]))
    m = minitorch.tensor([True, False], device=device)
    assert to_np(~m).tolist() == [False, True]
    # ndarray on the left defers to the tensor; the array becomes a CPU tensor, so on CUDA it is a device
    # mismatch, as in PyTorch
    if device == "cuda":
        msg = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            np.array([1.0, 2.0]) + minitorch.tensor([1.0, 2.0], device=device)
        return
    r = np.array([1.0, 2.0]) + minitorch.tensor([1.0, 2.0], device=device)
    assert (
        isinstance(r, minitorch.Tensor) and r.dtype is minitorch.float64 and to_np(r).tolist() == [2.0, 4.0]
    )
    r = minitorch.tensor([1.0, 2.0], device=device) * np.array([3.0, 4.0], dtype=np.float32)
    assert isinstance(r, minitorch.Tensor) and to_np(r).tolist() == [3.0, 8.0]
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x + None


def test_alpha_and_rounding_mode(device):
    a = minitorch.tensor([7.0, -7.0, 5.0], device=device)
    b = minitorch.tensor([2.0, 2.0, -3.0], device=device)
    assert_matches(minitorch.add(a, b, alpha=2), [11.0, -3.0, -1.0])
    assert_matches(minitorch.sub(a, b, alpha=0.5), [6.0, -8.0, 6.5])
    assert_matches(a.add(b, alpha=2), [11.0, -3.0, -1.0])
    assert_matches(minitorch.div(a, b, rounding_mode="trunc"), [3.0, -3.0, -1.0])
    assert_matches(minitorch.div(a, b, rounding_mode="floor"), [3.0, -4.0, -2.0])
    assert_matches(minitorch.rsub(a, 1), [-6.0, 8.0, -4.0])
    with pytest.raises(RuntimeError, match="rounding_mode"):
        minitorch.div(a, b, rounding_mode="round")
    c = a.clone()
    c.add_(b, alpha=3)
    assert_matches(c, [13.0, -1.0, -4.0])
    c.sub_(b, alpha=3)
    assert_matches(c, [7.0, -7.0, 5.0])
    c.div_(b, rounding_mode="floor")
    assert_matches(c, [3.0, -4.0, -2.0])
    with pytest.raises(RuntimeError, match="rounding_mode"):
        c.div_(b, rounding_mode="bad")


# ---- in place


def test_inplace_ops(device):
    x = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device)
    base = x.numpy().copy() if device == "cpu" else to_np(x)
    y = x
    x += 1
    assert x is y
    x *= minitorch.tensor([1.0, 2.0, 3.0], device=device)
    x -= 0.5
    x /= 2
    assert_matches(x, ((base + 1) * np.array([1.0, 2.0, 3.0]) - 0.5) / 2)
    v0 = x._version
    x.mul_(2)
    assert x._version > v0
    # in-place on a non-contiguous view writes through to the base
    b = minitorch.zeros(3, 2, device=device)
    b.t().add_(minitorch.tensor([1.0, 2.0], device=device).unsqueeze(1))
    assert to_np(b).tolist() == [[1.0, 2.0]] * 3


def test_inplace_errors(device):
    i = minitorch.tensor([1, 2, 3], device=device)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i += 1.5
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.div_(2)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.sqrt_()
    x = minitorch.zeros(3, device=device)
    with pytest.raises(
        RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"
    ):
        x.add_(minitorch.ones(2, 3, device=device))
    with pytest.raises(
        RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"
    ):
        x.clamp_(min=minitorch.ones(2, 3, device=device))
    b = minitorch.tensor([True, False], device=device)
    with pytest.raises(RuntimeError, match="can't be cast"):
        b += 1
    # int in place with an int result is fine
    i *= 2
    assert to_np(i).tolist() == [2, 4, 6] and i.dtype == minitorch.int64
    # a float tensor absorbs an integer operand
    f = minitorch.ones(2, dtype=minitorch.float16, device=device)
    f += minitorch.tensor([1, 2], device=device)
    assert f.dtype == minitorch.float16 and to_np(f).tolist() == [2.0, 3.0]


# ---- type promotion

P = minitorch


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda d: P.tensor([1, 2], device=d) + 1.5, P.float32),
        (lambda d: P.tensor([1, 2], device=d) / P.tensor([2, 2], device=d), P.float32),
        (lambda d: P.tensor([True], device=d) + P.tensor([True], device=d), P.bool),
        (lambda d: P.tensor([True], device=d) + P.tensor([1], device=d), P.int64),
        (lambda d: P.tensor([1], dtype=P.uint8, device=d) + P.tensor([1], dtype=P.int8, device=d), P.int16),
        (lambda d: P.tensor([1], dtype=P.int32, device=d) + 5, P.int32),
        (lambda d: P.tensor([1], dtype=P.int32, device=d) + P.tensor(5, device=d), P.int32),
        (
            lambda d: P.tensor([1], dtype=P.float16, device=d) + P.tensor(1.0, dtype=P.float64, device=d),
            P.float16,
        ),
        (lambda d: P.tensor([1], device=d) + P.tensor(1.0, device=d), P.float32),
        (lambda d: P.tensor([1], dtype=P.int8, device=d) + P.tensor(1000, device=d), P.int8),
        (lambda d: P.tensor([True], device=d) + 1, P.int64),
        (lambda d: P.tensor([True], device=d) * 1.5, P.float32),
        (lambda d: P.tensor(1, device=d) + 1.5, P.float32),
        (
            lambda d: P.tensor(1.0, dtype=P.float64, device=d) + P.tensor([1], dtype=P.int32, device=d),
            P.float64,
        ),
        (
            lambda d: (
                P.tensor([1.0], dtype=P.bfloat16, device=d) + P.tensor([1.0], dtype=P.float16, device=d)
            ),
            P.float32,
        ),
        (lambda d: P.tensor([1.0], dtype=P.float64, device=d) + 1, P.float64),
        (lambda d: P.tensor([1], device=d) < 1.5, P.bool),
        (lambda d: P.tensor([1], dtype=P.int16, device=d).sqrt(), P.float32),
        (lambda d: P.atan2(P.tensor([1], device=d), P.tensor([1], device=d)), P.float32),
        (lambda d: P.tensor([3], device=d) // 2, P.int64),
        (lambda d: P.tensor([3], device=d) ** 2, P.int64),
        (lambda d: P.tensor([3], device=d) ** 0.5, P.float32),
        (lambda d: 2 ** P.tensor([3], device=d), P.int64),
    ],
)
def test_type_promotion(make, expected, device):
    assert make(device).dtype is expected


def test_result_type():
    t = P.tensor
    assert P.result_type(t([1, 2]), 1.0) is P.float32
    assert P.result_type(t([1], dtype=P.uint8), t([1], dtype=P.int8)) is P.int16
    assert P.result_type(t([1.0], dtype=P.float16), t(1.0, dtype=P.float64)) is P.float16
    assert P.result_type(t([1]), t(1.0)) is P.float32
    assert P.result_type(t([1], dtype=P.int32), 5) is P.int32
    assert P.result_type(t([True]), True) is P.bool
    assert P.result_type(2, 3.0) is P.float32
    assert P.promote_types(P.uint8, P.int8) is P.int16
    assert P.promote_types(P.bfloat16, P.float16) is P.float32
    assert P.promote_types(P.bool, P.float16) is P.float16
    assert P.can_cast(P.int32, P.float16) and not P.can_cast(P.float32, P.int64)
    assert not P.can_cast(P.int64, P.bool)


def test_default_dtype_changes_promotion():
    P.set_default_dtype(P.float64)
    try:
        assert (P.tensor([1, 2]) * 0.5).dtype is P.float64
        assert P.tensor([1.0]).dtype is P.float64
        assert P.tensor([1], dtype=P.float32).add(1.5).dtype is P.float32
    finally:
        P.set_default_dtype(P.float32)


def test_mixed_dtype_values(device):
    a = P.tensor([1, 2, 3], dtype=P.uint8, device=device)
    b = P.tensor([-1, -2, -3], dtype=P.int8, device=device)
    out = a + b
    assert out.dtype is P.int16 and to_np(out).tolist() == [0, 0, 0]
    f = P.tensor([0.5, 1.5], dtype=P.float16, device=device) + P.tensor(2.25, dtype=P.float64, device=device)
    assert f.dtype is P.float16 and to_np(f).tolist() == [2.75, 3.75]
    assert to_np(P.tensor([7, 8], device=device) / P.tensor([2, 4], device=device)).tolist() == [3.5, 2.0]


# ---- clamp / where / masked_fill / activations


def test_clamp(device):
    a = np.array([-3.0, -1.0, 0.0, 2.0, 5.0, np.nan])
    x = P.tensor(a, device=device)
    assert_matches(P.clamp(x, -1, 2), np.clip(a, -1, 2))
    assert_matches(x.clamp(min=0), np.where(np.isnan(a), np.nan, np.maximum(a, 0)))
    assert_matches(x.clamp(max=0), np.where(np.isnan(a), np.nan, np.minimum(a, 0)))
    assert_matches(x.clip(-1, 1), np.clip(a, -1, 1))
    assert_matches(P.clamp_min(x, 1.0), np.clip(a, 1, None))
    assert_matches(P.clamp_max(x, 1.0), np.clip(a, None, 1))
    lo = P.tensor([0.0, 0.0, 1.0, 1.0, 1.0, 1.0], device=device)
    hi = P.tensor(3.0, device=device)
    assert_matches(P.clamp(x, lo, hi), np.clip(a, to_np(lo), 3.0))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        P.clamp(x)
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        x.clamp(None, None)
    i = P.tensor([-5, 0, 5], device=device)
    assert P.clamp(i, -1, 1).dtype is P.int64
    assert P.clamp(i, -1.5, 1.5).dtype is P.float32
    assert_matches(P.clamp(i, -1.5, 1.5), [-1.5, 0, 1.5])
    y = x.clone()
    r = y.clamp_(0, 1)
    assert r is y
    assert_matches(y, np.clip(a, 0, 1))
    # broadcasting bounds
    m = P.zeros(2, 3, device=device)
    assert P.clamp(m, min=P.ones(3, 1, 1, device=device)).shape == (3, 2, 3)
    # min > max: everything equals max, as in PyTorch
    assert to_np(P.clamp(P.tensor([0.0, 5.0], device=device), 3, 1)).tolist() == [1.0, 1.0]
    # zero size
    assert P.clamp(P.empty(0, device=device), 0, 1).shape == (0,)


def test_where(device):
    c = P.tensor([[True, False, True]], device=device)
    a = P.tensor([[1.0], [2.0]], device=device)
    b = P.tensor([10, 20, 30], device=device)
    out = P.where(c, a, b)
    assert out.dtype is P.float32 and out.shape == (2, 3)
    assert to_np(out).tolist() == [[1, 20, 1], [2, 20, 2]]
    assert to_np(P.where(c, 1.5, 0)).tolist() == [[1.5, 0.0, 1.5]]
    assert P.where(c, 1, 0).dtype is P.int64
    assert P.where(c, P.tensor([1], dtype=P.int32, device=device), 0).dtype is P.int32
    assert P.where(c, P.tensor([1], dtype=P.float16, device=device), 2.0).dtype is P.float16
    assert to_np(a.where(a > 1.5, 0.0)).tolist() == [[0.0], [2.0]]
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        P.where(P.tensor([1, 0], device=device), a, b)
    with pytest.raises(RuntimeError):
        P.where(P.tensor([True, False], device=device), P.ones(3, device=device), 0.0)


def test_masked_fill(device):
    x = P.arange(6.0, device=device).reshape(2, 3)
    mask = P.tensor([True, False, True], device=device)
    out = x.masked_fill(mask, -1.0)
    assert to_np(out).tolist() == [[-1, 1, -1], [-1, 4, -1]]
    assert to_np(x).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert to_np(P.masked_fill(x, mask, P.tensor(7.0, device=device))).tolist() == [[7, 1, 7], [7, 4, 7]]
    i = P.arange(3, device=device)
    i.masked_fill_(mask, 9)
    assert to_np(i).tolist() == [9, 1, 9] and i.dtype is P.int64
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        x.masked_fill(P.tensor([1, 0, 1], device=device), 0.0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        x.masked_fill(mask, P.tensor([1.0], device=device))
    with pytest.raises(RuntimeError):
        P.zeros(3, device=device).masked_fill_(P.ones(2, 3, dtype=P.bool, device=device), 1.0)


def test_masked_fill_broadcasts_self_out_of_place(device):
    # PyTorch expands self and the mask together out of place (a wider mask widens the result, its gradient
    # sums over the new dims); in place the mask must fit self
    x = P.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    m = np.array([[True, False, False], [False, True, False]])
    out = x.masked_fill(P.tensor(m, device=device), 0.5)
    assert out.shape == (2, 3) and out.is_contiguous()
    np.testing.assert_array_equal(
        to_np(out.detach()), np.where(m, 0.5, np.broadcast_to([1.0, 2.0, 3.0], (2, 3)))
    )
    out.sum().backward()
    np.testing.assert_array_equal(to_np(x.grad), (~m).sum(0).astype(np.float32))
    with pytest.raises(
        RuntimeError, match=re.escape("output with shape [3] doesn't match the broadcast shape [2, 3]")
    ):
        x.detach().clone().masked_fill_(P.tensor(m, device=device), 0.5)
    with pytest.raises(
        RuntimeError, match="The size of tensor a \\(4\\) must match the size of tensor b \\(3\\)"
    ):
        x.masked_fill(P.ones(4, dtype=P.bool, device=device), 0.5)
    with pytest.raises(
        RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(4\\)"
    ):
        x.detach().clone().masked_fill_(P.ones(4, dtype=P.bool, device=device), 0.5)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_where_masked_fill_dense_random_masks(device, dtype):
    # the CPU's dense ternary loops (a bit select for where/masked_fill, masked_fill_ writing the tensor it
    # reads): long random masks, every dtype, scalar operands on either side, a strided view for the
    # general path
    rng = np.random.default_rng(11)
    n = 5000
    a, b = make_array((n,), dtype, rng), make_array((n,), dtype, rng)
    m = rng.random(n) > 0.5
    ta, tb, tm = (
        P.tensor(a, dtype=dtype, device=device),
        P.tensor(b, dtype=dtype, device=device),
        P.tensor(m, device=device),
    )
    conv = lambda t: to_np(t) if dtype != P.bool else t.cpu().numpy()
    ref = lambda x: np.asarray(x, dtype=np.float64) if dtype != P.bool else np.asarray(x)
    np.testing.assert_array_equal(conv(P.where(tm, ta, tb)), ref(np.where(m, a, b)))
    v = a[0]
    np.testing.assert_array_equal(
        conv(ta.masked_fill(tm, P.tensor(v, dtype=dtype, device=device))), ref(np.where(m, v, a))
    )
    np.testing.assert_array_equal(
        conv(P.where(tm, ta, P.tensor(b[1], dtype=dtype, device=device))), ref(np.where(m, a, b[1]))
    )
    np.testing.assert_array_equal(
        conv(P.where(tm, P.tensor(a[2], dtype=dtype, device=device), tb)), ref(np.where(m, a[2], b))
    )
    c = ta.clone()
    assert c.masked_fill_(tm, P.tensor(v, dtype=dtype, device=device)) is c
    np.testing.assert_array_equal(conv(c), ref(np.where(m, v, a)))
    np.testing.assert_array_equal(
        conv(P.where(tm[::2], ta[::2], tb[1::2])), ref(np.where(m[::2], a[::2], b[1::2]))
    )


def test_clamp_dense_random(device):
    # dense clamp with scalar and tensor bounds, NaN in values and bounds, against NumPy
    rng = np.random.default_rng(12)
    a = rng.uniform(-2, 2, 3001)
    a[::97] = np.nan
    lo, hi = rng.uniform(-1.5, 0, 3001), rng.uniform(0, 1.5, 3001)
    lo[5::211] = np.nan
    for dt in (P.float32, P.float64):
        x = P.tensor(a, dtype=dt, device=device)
        npa = a.astype(P.tensor(0, dtype=dt).numpy().dtype)
        np.testing.assert_array_equal(to_np(x.clamp(-0.5, 0.5)), np.clip(npa, -0.5, 0.5).astype(np.float64))
        tl, th = P.tensor(lo, dtype=dt, device=device), P.tensor(hi, dtype=dt, device=device)
        nl, nh = lo.astype(npa.dtype), hi.astype(npa.dtype)
        want = np.where(np.isnan(npa), npa, np.where(np.isnan(nl) | (npa < nl), nl, npa))
        want = np.where(np.isnan(npa), npa, np.where(np.isnan(nh) | (want > nh), nh, want))
        np.testing.assert_array_equal(to_np(P.clamp(x, tl, th)), want.astype(np.float64))


@pytest.mark.parametrize("dt", [P.float32, P.float64], ids=str)
def test_clamp_number_bounds_match_tensor_bounds(device, dt):
    """Two Python numbers bounding a float32/float64 tensor take a one-pass kernel (fn::ClampScalar): bit for
    bit what the same bounds give as tensors (the general kernel), for NaN, -0.0 and infinite x, one-sided,
    crossed (min > max gives max), infinite and integer bounds (2^53 + 1: rounded as its wrapped tensor),
    bounds that round in float32, strided and empty inputs; a NaN bound gives NaN as before."""
    npdt = np.float32 if dt == P.float32 else np.float64
    rng = np.random.default_rng(7)
    a = np.concatenate(
        [rng.uniform(-3, 3, 1001), [np.nan, -0.0, 0.0, np.inf, -np.inf, 0.1, -0.1, 1.0000001, 2.0**60]]
    ).astype(npdt)
    for layout in ("dense", "strided"):
        x = P.tensor(np.repeat(a, 2) if layout == "strided" else a, dtype=dt, device=device)
        x = x[::2] if layout == "strided" else x
        for lo, hi in [
            (-0.5, 0.5),
            (0, 6),
            (-1.0, None),
            (None, 0.1),
            (2.0, -1.0),
            (-np.inf, np.inf),
            (0.1, 1.0000001),
            (-(2**53) - 1, 2**53 + 1),
            (True, 2),
        ]:
            got = x.clamp(lo, hi)
            as_tensor = lambda v: None if v is None else P.tensor(v, dtype=P.float64).to(dt).to(device)
            ref = x.clamp(as_tensor(lo), as_tensor(hi))
            assert got.dtype == dt
            np.testing.assert_array_equal(to_np(got), to_np(ref), err_msg=f"{lo} {hi}")
            np.testing.assert_array_equal(np.signbit(got.cpu().numpy()), np.signbit(ref.cpu().numpy()))
    x = P.tensor(a, dtype=dt, device=device)
    assert np.isnan(to_np(x.clamp(float("nan"), 1.0))).all()
    assert np.isnan(to_np(x.clamp(None, float("nan")))).all()
    assert P.clamp(P.empty(0, 3, dtype=dt, device=device), 0.0, 1.0).shape == (0, 3)


def test_activations(device):
    a = np.linspace(-30, 30, 13)
    x = P.tensor(a, dtype=P.float64, device=device)
    assert_matches(P.softplus(x), np.where(a > 20, a, np.log1p(np.exp(a))))
    assert_matches(
        P.softplus(x, beta=2.0, threshold=5.0), np.where(2 * a > 5, a, np.log1p(np.exp(2 * a)) / 2)
    )
    assert_matches(P.leaky_relu(x), np.where(a > 0, a, 0.01 * a))
    assert_matches(P.leaky_relu(x, 0.2), np.where(a > 0, a, 0.2 * a))
    kernel = "softplus_cuda" if device == "cuda" else "softplus_cpu"
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Long'"):
        P.softplus(P.tensor([1, 2], device=device))  # PyTorch's kernel takes floating types only
    s = P.tensor([0.0, 1.0, 2.0], device=device)
    e = P.tensor([10.0, 11.0, 12.0], device=device)
    assert_matches(P.lerp(s, e, 0.5), [5.0, 6.0, 7.0])
    assert_matches(s.lerp(e, P.tensor([0.0, 0.5, 1.0], device=device)), [0.0, 6.0, 12.0])
    assert_matches(P.sigmoid(P.tensor([-1000.0, 1000.0], device=device)), [0.0, 1.0])


# ---- division and pow edge cases


def test_float_division_by_zero(device):
    a = np.array([1.0, -1.0, 0.0, 5.5])
    z = np.zeros(4)
    x, y = P.tensor(a, device=device), P.tensor(z, device=device)
    with np.errstate(all="ignore"):
        assert_matches(x / y, a / z)
        assert_matches(x // y, np.floor_divide(a, z))
        assert_matches(x % y, np.remainder(a, z))
        assert_matches(P.fmod(x, y), np.fmod(a, z))
        assert_matches(x // 0.0, np.floor_divide(a, 0.0))
        assert_matches(P.tensor([1, 0], device=device) / 0, np.array([1.0, 0.0]) / 0)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_integer_division_by_zero(dtype, device):
    x = P.tensor([5, 6], dtype=dtype, device=device)
    z = P.tensor([1, 0], dtype=dtype, device=device)
    for f in (
        lambda: x // z,
        lambda: x % z,
        lambda: P.fmod(x, z),
        lambda: x // 0,
        lambda: x % 0,
        lambda: P.div(x, z, rounding_mode="trunc"),
        lambda: P.div(x, z, rounding_mode="floor"),
    ):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            f()
    y = x.clone()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        y //= 0
    # true division of integers is float: no error
    assert to_np(x / z).tolist() == [5.0, math.inf]


def test_int_min_division_in_subprocess():
    code = """
import minitorch
for dt, lo in [(minitorch.int64, -2**63), (minitorch.int32, -2**31), (minitorch.int16, -2**15), (minitorch.int8, -128)]:
    x = minitorch.tensor([lo, 7, -7], dtype=dt)
    d = minitorch.tensor([-1, -1, 2], dtype=dt)
    q = (x // d).tolist(); r = (x % d).tolist(); f = minitorch.fmod(x, d).tolist()
    t = minitorch.div(x, d, rounding_mode='trunc').tolist()
    assert q[0] == lo and r[0] == 0 and f[0] == 0 and t[0] == lo, (q, r, f, t)
    assert q[1:] == [-7, -4] and r[1:] == [0, 1] and f[1:] == [0, -1] and t[1:] == [-7, -3], (q, r, f, t)
print('ok')
"""
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_unsigned_division_by_max_value(device):
    # uint8's 255 is T(-1) bit for bit: it must divide as 255, not take the signed "divide by -1" shortcut
    a = np.array([10, 255, 254, 0], dtype=np.uint8)
    b = np.full(4, 255, dtype=np.uint8)
    x, y = P.tensor(a, device=device), P.tensor(b, device=device)
    assert to_np(x // y).tolist() == (a // b).tolist()
    assert to_np(x % y).tolist() == (a % b).tolist()
    assert to_np(P.fmod(x, y)).tolist() == np.fmod(a, b).tolist()
    assert to_np(P.div(x, y, rounding_mode="trunc")).tolist() == (a // b).tolist()


def test_integer_floor_and_remainder_signs(device):
    a = np.array([7, -7, 7, -7, 0])
    b = np.array([2, 2, -2, -2, 3])
    x, y = P.tensor(a, device=device), P.tensor(b, device=device)
    assert to_np(x // y).tolist() == (a // b).tolist()
    assert to_np(x % y).tolist() == (a % b).tolist()
    assert to_np(P.fmod(x, y)).tolist() == np.fmod(a, b).tolist()
    assert to_np(P.div(x, y, rounding_mode="trunc")).tolist() == np.trunc(a / b).astype(int).tolist()
    u = P.tensor([200, 7], dtype=P.uint8, device=device)
    assert to_np(u // P.tensor([3, 2], dtype=P.uint8, device=device)).tolist() == [66, 3]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_integer_pow_negative_tensor_exponents(device, dtype):
    # 1 ** -k = 1, (-1) ** -k = +-1 by k's parity, any other base (0 included) truncates to 0
    base = np.array([1, -1, -1, 2, -2, 0, 3, 5], dtype=dtype)
    exp = np.array([-4, -3, -2, -1, -1, -1, -2, 0], dtype=dtype)
    want = [1, -1, 1, 0, 0, 0, 0, 1]
    x, e = P.tensor(base, device=device), P.tensor(exp, device=device)
    got = P.pow(x, e)
    assert got.dtype == getattr(P, dtype) and to_np(got).tolist() == want
    assert to_np(P.pow(-1, e)).tolist() == [1, -1, 1, -1, -1, -1, 1, 1]  # a number base, tensor exponents
    assert to_np(x[::2] ** e[::2]).tolist() == want[::2]  # strided
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        x**-2


def test_pow_edge_cases(device):
    x = P.tensor([2, 3, -2], device=device)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        x**-1
    # only a Python number is refused: a tensor's negative exponents truncate 1 / x**|e| (PyTorch's kernel)
    assert to_np(P.pow(x, P.tensor([1, -1, 2], device=device))).tolist() == [2, 0, 4]
    assert to_np(x**0).tolist() == [1, 1, 1]
    assert to_np(x**3).tolist() == [8, 27, -8]
    assert_matches(x.float() ** -1, [0.5, 1 / 3, -0.5])
    assert_matches(x**-1.0, [0.5, 1 / 3, -0.5])
    assert_matches(P.tensor([-8.0], device=device) ** 0.5, [np.nan])
    assert_matches(2.0 ** P.tensor([-1, 2], device=device), [0.5, 4.0])


def test_nan_propagation(device):
    a = np.array([np.nan, 1.0, -2.0, np.nan])
    b = np.array([0.0, np.nan, -3.0, np.nan])
    x, y = P.tensor(a, device=device), P.tensor(b, device=device)
    assert_matches(P.maximum(x, y), np.maximum(a, b))
    assert_matches(P.minimum(x, y), np.minimum(a, b))
    assert_matches(P.relu(x), [np.nan, 1.0, 0.0, np.nan])
    assert_matches(P.clamp(x, 0, 1), [np.nan, 1.0, 0.0, np.nan])
    assert_matches(P.clamp(P.tensor([0.5], device=device), P.tensor([np.nan], device=device)), [np.nan])
    assert to_np(x == x).tolist() == [False, True, True, False]  # noqa: PLR0124
    assert to_np(x != x).tolist() == [True, False, False, True]  # noqa: PLR0124
    h = P.tensor([np.nan, 1.0], dtype=P.float16, device=device)
    assert_matches(P.maximum(h, P.tensor([0.0, 2.0], dtype=P.float16, device=device)), [np.nan, 2.0])


def test_bad_dtypes(device):
    f = P.tensor([1.0], device=device)
    with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
        f & f
    with pytest.raises(TypeError, match="~ \\(operator.invert\\) is only implemented on integer and Boolean"):
        ~f  # noqa: B018
    b = P.tensor([True], device=device)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        b - b
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor"):
        -b  # noqa: B018


def test_large_and_noncontiguous(device):
    # large enough for the threaded path, with a transposed and an expanded operand
    rng = np.random.default_rng(5)
    a = rng.standard_normal((300, 257))
    b = rng.standard_normal((257, 300))
    x = P.tensor(a, device=device)
    y = P.tensor(b, device=device).t()
    assert_matches(x * y + 1, a * b.T + 1)
    assert_matches(P.exp(y), np.exp(b.T))
    row = P.tensor(a[:1], device=device).expand(300, 257)
    assert_matches(row - x, a[:1] - a)
    s = P.as_strided(P.tensor(a, device=device), (100, 50), (514, 3), 1)
    ref = np.lib.stride_tricks.as_strided(a.ravel()[1:], (100, 50), (514 * 8, 24))
    assert_matches(P.sin(s), np.sin(ref))
    n = P.tensor(a, device=device).narrow(1, 5, 100).t()
    assert_matches(n * 2, a[:, 5:105].T * 2)


def test_inplace_into_expanded_tensor_raises(device):
    msg = "more than one element of the written-to tensor refers to a single memory location"
    e = minitorch.zeros(3, device=device).expand(2, 3)
    for f in (
        lambda: e.add_(1),
        lambda: e.mul_(e),
        lambda: e.copy_(minitorch.ones(2, 3, device=device)),
        lambda: e.sqrt_(),
        lambda: e.clamp_(0, 1),
        lambda: e.masked_fill_(e > 0, 1.0),
    ):
        with pytest.raises(RuntimeError, match=msg):
            f()
    assert to_np(e).tolist() == [[0.0] * 3] * 2
    # a size-1 dim with stride 0 is not an overlap
    ok = minitorch.zeros(1, 3, device=device).expand(1, 3)
    ok.add_(1)
    assert to_np(ok).tolist() == [[1.0] * 3]


def test_inplace_with_aliased_input(device):
    # the other operand overlaps self without being the same view: the result is the out-of-place one
    a = minitorch.arange(9.0, device=device).view(3, 3)
    a.add_(a.t())
    ref = np.arange(9.0).reshape(3, 3)
    assert to_np(a).tolist() == (ref + ref.T).tolist()
    c = minitorch.arange(6.0, device=device)
    c.narrow(0, 1, 5).add_(c.narrow(0, 0, 5))
    assert to_np(c).tolist() == [0.0, 1.0, 3.0, 5.0, 7.0, 9.0]
    d = minitorch.arange(6.0, device=device)
    d.narrow(0, 1, 5).copy_(d.narrow(0, 0, 5))
    assert to_np(d).tolist() == [0.0, 0.0, 1.0, 2.0, 3.0, 4.0]
    e = minitorch.arange(4.0, device=device).view(2, 2)
    e.t().copy_(e)
    assert to_np(e).tolist() == [[0.0, 2.0], [1.0, 3.0]]
    f = minitorch.arange(4.0, device=device)
    f.mul_(f)  # the very same view is fine in place
    assert to_np(f).tolist() == [0.0, 1.0, 4.0, 9.0]


def _torch_promote(a, b):
    """PyTorch's promote_types, stated as rules: floats beat integers and keep their own width; two floats give
    the wider (bfloat16 with float16 gives float32); two integers follow NumPy; bool is the lowest."""
    if a == b:
        return a
    if a == minitorch.bool:
        return b
    if b == minitorch.bool:
        return a
    fa, fb = a.is_floating_point, b.is_floating_point
    if fa and not fb:
        return a
    if fb and not fa:
        return b
    if fa and fb:
        if {a, b} == {minitorch.bfloat16, minitorch.float16}:
            return minitorch.float32
        return a if a.itemsize > b.itemsize else b
    from tests.utils import NP_OF

    np_res = np.promote_types(NP_OF[a], NP_OF[b])
    return {v: k for k, v in NP_OF.items()}[np_res.type]


@pytest.mark.parametrize("a", ALL_DTYPES, ids=str)
def test_promote_types_table(a):
    for b in ALL_DTYPES:
        expected = _torch_promote(a, b)
        assert minitorch.promote_types(a, b) is expected, (a, b)
        x = minitorch.ones(2, dtype=a)
        y = minitorch.ones(2, dtype=b)
        assert (x * y).dtype is expected, (a, b)
        assert minitorch.result_type(x, y) is expected


def test_large_inplace_and_conversions(device):
    # sizes past the parallel grain, with non-contiguous self and broadcast operands
    rng = np.random.default_rng(6)
    b = rng.standard_normal((1024, 768)).astype(np.float32)
    x = minitorch.tensor(b, device=device)
    x.t().add_(1.0)
    x.mul_(minitorch.tensor(b[:1], device=device))
    assert_matches(x, (b + 1) * b[:1])
    y = minitorch.tensor(b, device=device).t()
    assert_matches(y.to(minitorch.int32), b.T.astype(np.int32))
    assert_matches(y.half(), b.T.astype(np.float16))
    assert_matches(y.contiguous(), b.T)
    p = rng.standard_normal((3, 4, 5, 6, 7))
    tp = minitorch.tensor(p, device=device).permute(4, 2, 0, 3, 1)
    assert_matches(tp + 1, p.transpose(4, 2, 0, 3, 1) + 1)
    a6 = rng.standard_normal((7, 1, 5, 3, 1, 11))
    b6 = rng.standard_normal((1, 4, 5, 1, 6, 11))
    assert_matches(minitorch.tensor(a6, device=device) * minitorch.tensor(b6, device=device), a6 * b6)


def test_alpha_checks(device):
    i = minitorch.tensor([1, 2], device=device)
    with pytest.raises(
        RuntimeError, match="For integral input tensors, argument alpha must not be a floating"
    ):
        minitorch.add(i, i, alpha=0.5)
    with pytest.raises(
        RuntimeError, match="For integral input tensors, argument alpha must not be a floating"
    ):
        i.sub_(i, alpha=0.5)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        minitorch.add(i, 1, alpha=True)
    assert to_np(minitorch.add(i, i, alpha=3)).tolist() == [4, 8]
    assert to_np(minitorch.sub(i.float(), i, alpha=0.5)).tolist() == [0.5, 1.0]


# ---- sizes and layouts that pick each CUDA launcher path (on the CPU they exercise the threaded loops)
# past 2^16 and odd: whole 16-byte vectors plus a tail; offset 1 gives a misaligned view (strided path),
# offset 8 an aligned one that starts inside the buffer.
N_LARGE = (1 << 17) + 5
LARGE_DTYPES = [P.float32, P.float16, P.bfloat16, P.float64, P.int8, P.int64, P.uint8, P.bool]


@pytest.mark.parametrize("offset", [0, 1, 8])
@pytest.mark.parametrize("dtype", LARGE_DTYPES, ids=str)
def test_large_odd_and_offset_views(dtype, offset, device):
    rng = np.random.default_rng(11)
    a = make_array((N_LARGE + offset,), dtype, rng)
    b = make_array((N_LARGE + offset,), dtype, rng)
    x = P.tensor(a, dtype=dtype, device=device)[offset:]
    y = P.tensor(b, dtype=dtype, device=device)[offset:]
    ra, rb = a[offset:], b[offset:]
    assert x.shape == (N_LARGE,)
    assert to_np(x < y).tolist() == (ra < rb).tolist()  # bool output: narrower than the inputs
    assert to_np(x != ra[7].item()).tolist() == (ra != ra[7]).tolist()  # broadcast scalar operand
    if dtype is P.bool:
        assert to_np(~x).tolist() == (~ra).tolist()
        assert to_np(x & y).tolist() == (ra & rb).tolist()
        assert to_np(x ^ True).tolist() == (ra ^ True).tolist()
        assert to_np(P.where(x, y, False)).tolist() == np.where(ra, rb, False).tolist()
    else:
        assert_matches(-x, -ra)
        assert_matches(x * y, ra * rb)
        assert_matches(x + 2, ra + 2)
        assert_matches(P.where(x > y, x, y), np.maximum(ra, rb))
        assert_matches(P.where(x > 0, 1, y), np.where(ra > 0, 1, rb))
        assert_matches(P.clamp(x, 1, 2), np.clip(ra, 1, 2))
        assert_matches(
            P.clamp(x, y, P.tensor(2, dtype=dtype, device=device)), np.minimum(np.maximum(ra, rb), 2)
        )
        assert_matches(
            P.sqrt(P.abs(x)), np.sqrt(np.abs(ra.astype(np.float64))), dtype=_result_dtype("float", dtype)
        )
    assert_matches(x.float(), ra.astype(np.float32))
    assert to_np(x.bool()).tolist() == (ra != 0).tolist()
    assert_matches(x.clone(), ra)
    assert_matches(x.to(P.float16).to(dtype), ra.astype(np.float32).astype(np.float16).astype(np.float64))
    z = P.zeros(N_LARGE + offset, dtype=dtype, device=device)[offset:]
    z.copy_(y)
    assert_matches(z, rb)
    z.fill_(1)
    assert to_np(z).tolist() == [1] * N_LARGE


def test_large_broadcast_and_strided(device):
    rng = np.random.default_rng(12)
    a = rng.standard_normal(N_LARGE).astype(np.float32)
    x = P.tensor(a, device=device)
    # an expanded 0-dim source: a stride-0 operand on the vectorized path
    assert to_np(P.tensor(2.5, device=device).expand(N_LARGE).contiguous()).tolist() == [2.5] * N_LARGE
    assert_matches(P.exp(x[::3]), np.exp(a[::3]))
    assert_matches(x[:-1:2] * x[1::2], a[:-1:2] * a[1::2])
    h = P.zeros(N_LARGE, dtype=P.float16, device=device)
    h[::2].fill_(3.0)
    assert to_np(h[::2]).tolist() == [3.0] * ((N_LARGE + 1) // 2)
    assert to_np(h[1::2]).tolist() == [0.0] * (N_LARGE // 2)
    # more non-mergeable dimensions than the CUDA launcher takes at once
    p = rng.standard_normal((2,) * 11)
    perm = (10, 0, 9, 1, 8, 2, 7, 3, 6, 4, 5)
    t = P.tensor(p, device=device).permute(*perm)
    assert_matches(t + 1, p.transpose(perm) + 1)
    assert_matches(t.contiguous().half(), p.transpose(perm).astype(np.float16))


# ---- device rules (PyTorch's TensorIterator): the op runs on the first non-CPU device, which the mismatch
# error names first; a 0-dim CPU tensor (a Python number included) joins a CUDA op as a scalar.
needs_gpu = pytest.mark.skipif(not minitorch.cuda.is_available(), reason="needs a GPU")
MISMATCH = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


@needs_gpu
def test_device_mismatch_raises():
    g, c = P.ones(3, device="cuda"), P.ones(3)
    for f in (
        lambda: g + c,
        lambda: c + g,
        lambda: P.maximum(c, g),
        lambda: g.add_(c),
        lambda: c.add_(g),
        lambda: P.tensor(1.0).add_(P.tensor(1.0, device="cuda")),  # a CPU 0-dim output cannot be a scalar
        lambda: P.tensor(2.0, device="cuda") + c,  # CUDA scalars do not join CPU ops
        lambda: P.where(g > 0, c, g),
        lambda: P.where(c > 0, g, g),
        lambda: P.clamp(g, min=c),
        lambda: g.clamp_(max=c),
        lambda: P.tensor(0.5).clamp_(P.tensor(0.0, device="cuda")),
        lambda: g.masked_fill(c > 0, 1.0),
        lambda: P.lerp(g, c, 0.5),
        lambda: P.add(g, c, alpha=2),
    ):
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == MISMATCH


@needs_gpu
def test_cpu_scalar_joins_cuda_op():
    a = np.array([1.0, -2.0, 3.5])
    g, s = P.tensor(a, device="cuda"), P.tensor(2.0)
    cases = [
        (g + s, a + 2),
        (s * g, 2 * a),
        (s / g, 2 / a),
        (g - 1, a - 1),
        (P.maximum(s, g), np.maximum(2, a)),
        (g > s, a > 2),
        (P.where(g > 0, s, g), np.where(a > 0, 2, a)),
        (P.where(P.tensor(True), g, 0.0), a),
        (P.clamp(g, P.tensor(-1.0), s), np.clip(a, -1, 2)),
        (P.add(g, s, alpha=3), a + 6),
        (P.sub(g, g, alpha=0.5), a * 0.5),
        (P.lerp(g, P.zeros(3, device="cuda", dtype=P.float64), P.tensor(0.5)), a * 0.5),
        (g.masked_fill(g > 0, P.tensor(7.0)), np.where(a > 0, 7, a)),
    ]
    for r, ref in cases:
        assert r.device.type == "cuda"
        assert_matches(r, ref)
    h = g.clone()
    h.add_(s)
    h.mul_(P.tensor(3))
    h.clamp_(P.tensor(0.0), 10)
    h.masked_fill_(h > 9, P.tensor(-1.0))
    assert h.device.type == "cuda"
    assert_matches(h, [9.0, 0.0, -1.0])
    r = P.tensor([1, 2], device="cuda") + P.tensor(0.5)  # a 0-dim float outranks integer dims by category
    assert r.dtype is P.float32 and r.device.type == "cuda"
    assert_matches(r, [1.5, 2.5])
    r = P.tensor([1, 2], dtype=P.float16, device="cuda") * P.tensor(3)
    assert r.dtype is P.float16 and r.device.type == "cuda"
    assert (P.tensor(1.0) + P.tensor(2.0)).device.type == "cpu"


@needs_gpu
def test_dtype_errors_name_the_cuda_kernel():
    f = P.tensor([1.0], device="cuda")
    with pytest.raises(RuntimeError, match="\"bitwise_and_cuda\" not implemented for 'Float'"):
        f & f
    with pytest.raises(RuntimeError, match="\"bitwise_not_cuda\" not implemented for 'Float'"):
        ~f  # noqa: B018
    with pytest.raises(RuntimeError, match="\"clamp_min_scalar_cuda\" not implemented for 'Bool'"):
        P.clamp(P.tensor([True], device="cuda"), min=False)


@needs_gpu
def test_cuda_32bit_split():
    # more than 2^31 elements through the strided path: the launcher splits it into 32-bit pieces
    free, _ = minitorch.cuda.mem_get_info() if hasattr(minitorch.cuda, "mem_get_info") else (1 << 40, 0)
    if free < (6 << 30):
        pytest.skip("needs 6 GiB of free GPU memory")
    x = P.ones((1 << 16) + 1, (1 << 15) + 1, dtype=P.int8, device="cuda")
    x[-1, -1] = 5
    y = x.t() + 1
    assert y.shape == ((1 << 15) + 1, (1 << 16) + 1)
    assert to_np(y[0, :3]).tolist() == [2, 2, 2]
    assert to_np(y[-1, -3:]).tolist() == [2, 2, 6]
    del x, y


def test_float32_exp_is_within_two_ulp_over_its_whole_range():
    """The vectorized float32 exp (AVX2 where present) against float64, dense and strided, up to the largest
    finite result (exp(88.72)) and through the special values."""
    x = np.concatenate(
        [
            np.linspace(-87.3, 88.72, 200001),
            [88.7, 88.72283, 88.73, -87.34, -104.0, 0.0, np.inf, -np.inf, np.nan],
        ]
    ).astype(np.float32)
    ref = np.exp(x.astype(np.float64))
    for got in (
        minitorch.from_numpy(x).exp().numpy(),
        minitorch.from_numpy(np.stack([x, x], 1)).t()[0].exp().numpy(),
    ):
        finite = np.isfinite(ref) & (ref > 1.2e-38) & (ref < 3.4e38)
        np.testing.assert_allclose(got[finite], ref[finite], rtol=2.4e-7)
        assert np.isfinite(got[x == np.float32(88.72283)]).all()
        assert got[x == np.float32(88.73)][0] == np.inf and got[-3] == np.inf and got[-2] == 0.0
        assert np.isnan(got[-1]) and got[-4] == 1.0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("op", ["add_", "sub_"])
def test_inplace_add_sub_with_alpha_one_pass(op, dtype, device):
    """self.add_(other, alpha=a) on large dense same-dtype tensors runs as one fused pass (the multi-tensor
    kernel); small, strided, aliased and autograd cases keep the two-op path. Both against float64 NumPy."""
    rng = np.random.default_rng(11)
    sign = 1.0 if op == "add_" else -1.0
    for n, layout in [(5000, "contiguous"), (100, "contiguous"), (5000, "strided")]:
        a = make_array((n,), dtype, rng)
        b = make_array((n,), dtype, rng)
        x = make_tensor(a, dtype, device, layout)
        y = make_tensor(b, dtype, device)
        v0 = x._version
        assert getattr(x, op)(y, alpha=-0.75) is x
        assert x._version > v0
        assert_matches(x, a + sign * -0.75 * b, dtype=dtype)
        z = make_tensor(a, dtype, device)
        getattr(z, op)(y, alpha=3)  # an integer alpha
        assert_matches(z, a + sign * 3 * b, dtype=dtype)
    # self as other (the same memory, read before written per element)
    s = minitorch.tensor(a, dtype=dtype, device=device)
    s.add_(s, alpha=0.5)
    assert_matches(s, a * 1.5, dtype=dtype)
    # a leaf that requires grad refuses, as before
    w = minitorch.ones(5000, dtype=dtype, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        getattr(w, op)(minitorch.ones(5000, dtype=dtype, device=device), alpha=2)


def test_inplace_unary_writes_self_in_place():
    # a same-dtype in-place unary runs the kernel over self itself (no temporary): a strided view changes only
    # its own elements, the version counter moves, an expanded view and a dtype change are refused
    base = minitorch.arange(-12.0, 12.0).reshape(4, 6) / 5
    want = to_np(base).copy()
    v = base[:, 1::2]
    ver = v._version
    for name in ("frac_", "abs_", "exp_", "neg_"):
        getattr(v, name)()
        f = {"frac_": lambda a: a - np.trunc(a), "abs_": np.abs, "exp_": np.exp, "neg_": np.negative}[name]
        want[:, 1::2] = f(want[:, 1::2])
        np.testing.assert_allclose(to_np(base), want, rtol=1e-6)
    assert v._version == ver + 4
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        minitorch.zeros(3, 1).expand(3, 4).abs_()
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        minitorch.ones(3, dtype=minitorch.int64).sqrt_()
