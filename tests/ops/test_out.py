"""The out= keyword: results written into (and returned as) the given tensor, resized when its shape differs
(PyTorch's UserWarning when it had elements), PyTorch's dtype, device and autograd checks."""

import re
import warnings

import numpy as np
import pytest
from utils import TOL, make_array, to_np

import minitorch
from tests.ops import opdb


def rnd(*shape, device="cpu", dtype=minitorch.float32):
    return minitorch.randn(shape, device=device).to(dtype)


# (name, inputs made from two random (3, 4) float64 tensors, NumPy reference on those inputs)
CASES = [
    ("add", lambda a, b: (a, b), np.add),
    ("sub", lambda a, b: (a, b), np.subtract),
    ("mul", lambda a, b: (a, b), np.multiply),
    ("div", lambda a, b: (a, b), np.divide),
    ("maximum", lambda a, b: (a, b), np.maximum),
    ("exp", lambda a, b: (a,), np.exp),
    ("log1p", lambda a, b: (a.abs(),), np.log1p),
    ("sin", lambda a, b: (a,), np.sin),
    ("sqrt", lambda a, b: (a.abs(),), np.sqrt),
    ("tanh", lambda a, b: (a,), np.tanh),
    ("sigmoid", lambda a, b: (a,), lambda x: 1 / (1 + np.exp(-x))),
    ("abs", lambda a, b: (a,), np.abs),
    ("neg", lambda a, b: (a,), np.negative),
    ("matmul", lambda a, b: (a, b.T), np.matmul),
    ("mm", lambda a, b: (a, b.T), np.matmul),
    ("tril", lambda a, b: (a,), np.tril),
]


@pytest.mark.parametrize("name,args,ref", CASES, ids=[c[0] for c in CASES])
def test_out_values(device, name, args, ref):
    a, b = (
        rnd(3, 4, device=device, dtype=minitorch.float64),
        rnd(3, 4, device=device, dtype=minitorch.float64),
    )
    ins = args(a, b)
    out = minitorch.empty(0, dtype=minitorch.float64, device=device)
    r = getattr(minitorch, name)(*ins, out=out)
    assert r is out
    np.testing.assert_allclose(to_np(out), ref(*[to_np(t) for t in ins]), rtol=1e-12)


def test_out_reductions_and_joins(device):
    a = rnd(3, 4, device=device, dtype=minitorch.float64)
    an = to_np(a)

    def fresh():
        return minitorch.empty(0, dtype=minitorch.float64, device=device)

    o = fresh()
    assert minitorch.sum(a, 1, out=o) is o
    np.testing.assert_allclose(to_np(o), an.sum(1))
    o = fresh()
    minitorch.mean(a, dim=0, keepdim=True, out=o)
    np.testing.assert_allclose(to_np(o), an.mean(0, keepdims=True))
    o = fresh()
    minitorch.cat([a, a], 0, out=o)
    assert np.array_equal(to_np(o), np.concatenate([an, an]))
    o = fresh()
    minitorch.stack([a, a], dim=1, out=o)
    assert np.array_equal(to_np(o), np.stack([an, an], 1))
    o = fresh()
    minitorch.clamp(a, -0.5, 0.5, out=o)
    assert np.array_equal(to_np(o), np.clip(an, -0.5, 0.5))
    o = fresh()
    minitorch.where(a > 0, a, minitorch.zeros((), dtype=minitorch.float64, device=device), out=o)
    assert np.array_equal(to_np(o), np.where(an > 0, an, 0))
    b = rnd(2, 3, 4, device=device, dtype=minitorch.float64)
    o = fresh()
    minitorch.bmm(b, b.transpose(1, 2), out=o)
    np.testing.assert_allclose(to_np(o), to_np(b) @ to_np(b).transpose(0, 2, 1))


def test_out_tuple_results(device):
    a = rnd(3, 5, device=device)
    an = to_np(a)
    v = minitorch.empty(0, device=device)
    i = minitorch.empty(0, dtype=minitorch.int64, device=device)
    r = minitorch.max(a, 1, out=(v, i))
    assert type(r).__name__ == "max" and r.values is v and r.indices is i
    assert np.array_equal(to_np(v), an.max(1)) and np.array_equal(to_np(i), an.argmax(1))
    v, i = minitorch.empty(0, device=device), minitorch.empty(0, dtype=minitorch.int64, device=device)
    r = minitorch.sort(a, dim=0, descending=True, out=(v, i))
    assert r[0] is v and np.array_equal(to_np(v), -np.sort(-an, 0))
    v, i = minitorch.empty(0, device=device), minitorch.empty(0, dtype=minitorch.int64, device=device)
    r = minitorch.topk(a, 2, out=[v, i])
    assert r.indices is i and np.array_equal(to_np(v), -np.sort(-an, 1)[:, :2])
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have dtype long int, but got float instead"
    ):
        minitorch.min(a, 0, out=(minitorch.empty(5, device=device), minitorch.empty(5, device=device)))
    with pytest.raises(TypeError, match="must be tuple of 2 Tensors"):
        minitorch.sort(a, out=v)


def test_out_resize_warning(device):
    a = minitorch.ones(3, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = minitorch.empty(0, device=device)
        minitorch.add(a, a, out=out)  # empty: resized silently
        assert out.shape == (3,)
        minitorch.add(a, a, out=out)  # right shape: no resize
    out = minitorch.empty(2, device=device)
    with pytest.warns(
        UserWarning, match=r"An output with one or more elements was resized since it had shape \[2\]"
    ):
        minitorch.add(a, a, out=out)
    assert out.shape == (3,) and out.tolist() == [2.0, 2.0, 2.0]


def test_out_writes_through_views(device):
    base = minitorch.zeros(2, 3, device=device)
    minitorch.add(minitorch.ones(3, device=device), 1, out=base[1])
    assert base.tolist() == [[0.0, 0.0, 0.0], [2.0, 2.0, 2.0]]
    t = minitorch.zeros(3, 2, device=device).t()  # non-contiguous out
    minitorch.mul(minitorch.ones(2, 3, device=device), 3, out=t)
    assert t.tolist() == [[3.0] * 3] * 2


def test_out_dtype_rules(device):
    a = minitorch.ones(3, device=device)
    o = minitorch.empty(3, dtype=minitorch.float64, device=device)
    minitorch.add(a, a, out=o)  # float -> double is a valid cast
    assert o.dtype == minitorch.float64 and o.tolist() == [2.0] * 3
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        minitorch.add(a, a, out=minitorch.empty(0, dtype=minitorch.int64, device=device))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Bool"):
        minitorch.add(a, a, out=minitorch.empty(3, dtype=minitorch.bool, device=device))
    li = minitorch.ones(2, dtype=minitorch.int64, device=device)
    o = minitorch.empty(0, dtype=minitorch.float64, device=device)
    minitorch.exp(li, out=o)
    np.testing.assert_allclose(to_np(o), np.exp([1.0, 1.0]))
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have dtype float, but got long int instead"
    ):
        minitorch.matmul(
            minitorch.ones(2, 2, device=device),
            minitorch.ones(2, 2, device=device),
            out=minitorch.empty(0, dtype=minitorch.int64, device=device),
        )
    with pytest.raises(TypeError, match="input types can't be cast to the desired output type Int"):
        minitorch.cat([a, a], out=minitorch.empty(0, dtype=minitorch.int32, device=device))
    o = minitorch.empty(3, device=device)
    minitorch.eq(a, a, out=o)  # bool result into float
    assert o.tolist() == [1.0] * 3


def test_out_autograd_check(device):
    a = minitorch.ones(3, device=device, requires_grad=True)
    msg = r"add\(\): functions with out=\.\.\. arguments don't support automatic differentiation, but one of the"
    with pytest.raises(RuntimeError, match=msg):
        minitorch.add(a, 1, out=minitorch.empty(3, device=device))
    with pytest.raises(RuntimeError, match=msg):
        minitorch.add(minitorch.ones(3), 1, out=minitorch.empty(3, requires_grad=True))
    with pytest.raises(RuntimeError, match=r"cat\(\): functions with out="):
        minitorch.cat([a, a], out=minitorch.empty(0, device=device))
    with pytest.raises(RuntimeError, match=r"where\(\): functions with out="):
        minitorch.where(a > 0, a, a, out=minitorch.empty(0, device=device))
    with minitorch.no_grad():
        o = minitorch.empty(3, device=device)
        minitorch.add(a, 1, out=o)
        assert o.tolist() == [2.0] * 3 and not o.requires_grad


def test_out_bad_arguments(device):
    a = minitorch.ones(3, device=device)
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not int"):
        minitorch.add(a, a, out=5)
    with pytest.raises(TypeError):
        minitorch.add(a, out=minitorch.empty(3))  # the op's own argument error
    with pytest.raises(TypeError):
        minitorch.add(a, a, bogus=1)
    assert minitorch.add(a, a, out=None).tolist() == [2.0] * 3


def test_out_device_mismatch():
    if not minitorch.cuda.is_available():
        pytest.skip("needs a GPU")
    a = minitorch.ones(3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        minitorch.add(a, a, out=minitorch.empty(3, device="cuda"))


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")  # reuse is the point
def test_factory_out(device):
    o = minitorch.empty(0, dtype=minitorch.float64, device=device)
    assert minitorch.zeros(2, 3, out=o) is o
    assert o.shape == (2, 3) and o.dtype == minitorch.float64 and not o.any().item()
    assert minitorch.arange(5, out=o) is o and o.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    li = minitorch.empty(0, dtype=minitorch.int64, device=device)
    minitorch.arange(1, 7, 2, out=li)
    assert li.dtype == minitorch.int64 and li.tolist() == [1, 3, 5]
    minitorch.full((2,), 7, out=li)
    assert li.tolist() == [7, 7]
    minitorch.eye(2, out=o)
    assert o.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    minitorch.linspace(0, 1, 3, out=o)
    assert o.tolist() == [0.0, 0.5, 1.0]
    minitorch.ones(3, out=o)
    assert o.tolist() == [1.0] * 3
    minitorch.manual_seed(3)
    minitorch.randn(4, out=o)
    minitorch.manual_seed(3)
    assert o.tolist() == minitorch.randn(4, dtype=minitorch.float64, device=device).tolist()
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        minitorch.zeros(2, out=[])


# ---- the elementwise table writes straight into out (no temporary): every op of it, every layout of out

# every public spelling with out= of every op of the op database (tests/ops/opdb.py) that computes float64
_BINARY = opdb.spellings(opdb.BINARY_OPS, "out")
_UNARY = opdb.spellings(opdb.UNARY_OPS, "out")
# the unary ops whose result keeps the input's dtype (the schema's `dtype: same`), by every spelling
_SAME_DTYPE = {
    n
    for row in minitorch._C._op_schema()
    if row[0] == "unary" and row[3] == "Same"
    for n in [row[1], *re.findall(r"(\w+)(?:\[[^\]]*\])?", row[5])]
}


def _out_layouts(device, shape):
    """An out tensor of `shape`, float64, in each layout: contiguous, transposed, a strided slice, and one of
    the wrong shape (resized in place: its storage holds the result) and empty (resized onto new storage)."""
    r, c = shape
    yield "contiguous", minitorch.full(shape, 7.0, dtype=minitorch.float64, device=device)
    yield "transposed", minitorch.full((c, r), 7.0, dtype=minitorch.float64, device=device).t()
    yield "strided", minitorch.full((r, 2 * c), 7.0, dtype=minitorch.float64, device=device)[:, ::2]
    yield "empty", minitorch.empty(0, dtype=minitorch.float64, device=device)


@pytest.mark.parametrize("name,op", _BINARY, ids=[b[0] for b in _BINARY])
def test_out_binary_table(device, name, op):
    rng = np.random.default_rng(0)
    an, bn = rng.uniform(-3, 3, (3, 4)), rng.uniform(-3, 3, (3, 4))
    bn[0, 0] = an[0, 0]  # an equal pair for the comparisons
    if op.domain == "pow":
        an = np.abs(an)
    ref = op.ref
    a, b = minitorch.tensor(an, device=device), minitorch.tensor(bn, device=device)
    f = getattr(minitorch, name)
    want = ref(an, bn).astype(np.float64)
    for layout, out in _out_layouts(device, (3, 4)):
        r = f(a, b, out=out)
        assert r is out and out.shape == (3, 4), layout
        np.testing.assert_allclose(to_np(out), want, rtol=1e-12, atol=1e-15, err_msg=layout)
        # the same kernels as without out= (xlogy's NaN of a negative y included)
        assert np.array_equal(to_np(out), to_np(f(a, b)).astype(np.float64), equal_nan=True), layout
    # broadcasting and a Python number as the second operand
    out = minitorch.empty(3, 4, dtype=minitorch.float64, device=device)
    f(a, b[1], out=out)
    np.testing.assert_allclose(to_np(out), ref(an, bn[1]).astype(np.float64), rtol=1e-12, atol=1e-15)
    f(a, 1.5, out=out)
    np.testing.assert_allclose(to_np(out), ref(an, 1.5).astype(np.float64), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name,op", _UNARY, ids=[u[0] for u in _UNARY])
def test_out_unary_table(device, name, op):
    rng = np.random.default_rng(1)
    lo, hi = op.domain or (-3, 3)  # the op's input domain, as test_unary draws it
    an = rng.uniform(lo, hi, (4, 5))
    if lo <= 0 <= hi:
        an[0, 0] = 0.0
    ref = op.ref
    a = minitorch.tensor(an, device=device)
    f = getattr(minitorch, name)
    want = ref(an).astype(np.float64)
    for layout, out in _out_layouts(device, (4, 5)):
        assert f(a, out=out) is out and out.shape == (4, 5), layout
        np.testing.assert_allclose(to_np(out), want, rtol=1e-12, atol=1e-15, err_msg=layout)
        assert np.array_equal(to_np(out), to_np(f(a)).astype(np.float64)), layout
    # non-contiguous input, float32 input into a float64 out (computed in float32 as PyTorch, then cast)
    at = minitorch.tensor(np.ascontiguousarray(an.T), device=device).t()
    out = minitorch.empty(4, 5, dtype=minitorch.float64, device=device)
    f(at, out=out)
    np.testing.assert_allclose(to_np(out), want, rtol=1e-12, atol=1e-15)
    a32 = a.float()
    if name in _SAME_DTYPE:  # an op of its input's own dtype writes no other out (PyTorch's TensorIterator)
        with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
            f(a32, out=out)
        return
    f(a32, out=out)
    assert np.array_equal(to_np(out), to_np(f(a32)).astype(np.float64))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float16, minitorch.bfloat16, minitorch.int32])
def test_out_direct_dtypes(device, dtype):
    rng = np.random.default_rng(2)
    an, bn = make_array((5, 6), dtype, rng), make_array((5, 6), dtype, rng)
    a, b = minitorch.tensor(an, dtype=dtype, device=device), minitorch.tensor(bn, dtype=dtype, device=device)
    for f, ref in ((minitorch.add, np.add), (minitorch.mul, np.multiply), (minitorch.maximum, np.maximum)):
        out = minitorch.empty(5, 6, dtype=dtype, device=device)
        f(a, b, out=out)
        assert out.dtype == dtype
        assert np.array_equal(to_np(out), to_np(f(a, b)))
        np.testing.assert_allclose(to_np(out), ref(an, bn), rtol=TOL.get(dtype, (0, 0))[0], atol=1e-2)
    out = minitorch.empty(5, 6, dtype=minitorch.bool, device=device)
    minitorch.lt(a, b, out=out)
    assert np.array_equal(to_np(out), an < bn)
    minitorch.logical_not(a, out=out)
    assert np.array_equal(to_np(out), an == 0)
    if dtype == minitorch.int32:
        out = minitorch.empty(5, 6, dtype=minitorch.int64, device=device)
        minitorch.bitwise_xor(a, b, out=out)
        assert np.array_equal(to_np(out), an ^ bn)
        with pytest.raises(RuntimeError, match="^Found dtype Long but expected Int$"):
            minitorch.bitwise_not(a, out=out)  # an op of its input's own dtype: PyTorch's exact out dtype
        out = minitorch.empty(5, 6, dtype=minitorch.int32, device=device)
        minitorch.bitwise_not(a, out=out)
        assert np.array_equal(to_np(out), ~an)


def test_out_aliases_an_input(device):
    rng = np.random.default_rng(3)
    an, bn = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    a, b = minitorch.tensor(an, device=device), minitorch.tensor(bn, device=device)
    v = a._version
    assert minitorch.add(a, b, out=a) is a and a._version > v
    np.testing.assert_allclose(to_np(a), an + bn, rtol=1e-15)
    minitorch.mul(b, b, out=b)
    np.testing.assert_allclose(to_np(b), bn * bn, rtol=1e-15)
    minitorch.exp(a, out=a)
    np.testing.assert_allclose(to_np(a), np.exp(an + bn), rtol=1e-14)
    # the same view of the same memory (x.t().t()) is a full overlap: allowed
    c = minitorch.tensor(an, device=device)
    minitorch.sub(c, c.t().t(), out=c)
    assert not to_np(c).any()
    # a non-dense out sharing memory with a non-dense input: read from a copy, so values stay right
    base = minitorch.tensor(np.arange(20.0), device=device)
    minitorch.add(base[1::2], 100, out=base[::2])
    want = np.arange(20.0)
    want[::2] = want[1::2] + 100
    assert np.array_equal(to_np(base), want)
    # int32 computed in int32 and cast into int64 out: wraps as PyTorch's
    out = minitorch.empty(1, dtype=minitorch.int64, device=device)
    minitorch.add(minitorch.tensor([2**31 - 1], dtype=minitorch.int32, device=device), 1, out=out)
    assert out.tolist() == [-(2**31)]


def test_out_overlap_errors(device):
    partial = "some elements of the input tensor and the written-to tensor refer to a single memory location"
    x = minitorch.arange(10.0, device=device)
    with pytest.raises(RuntimeError, match=partial):
        minitorch.add(x[:-1], x[1:], out=x[1:])
    with pytest.raises(RuntimeError, match=partial):
        minitorch.neg(x[1:], out=x[:-1])
    m = minitorch.arange(9.0, device=device).reshape(3, 3)
    with pytest.raises(RuntimeError, match=partial):
        minitorch.add(m, m.t(), out=m)
    assert np.array_equal(to_np(x), np.arange(10.0)) and np.array_equal(
        to_np(m), np.arange(9.0).reshape(3, 3)
    )
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        minitorch.add(minitorch.ones(3, device=device), 1, out=minitorch.zeros(1, device=device).expand(3))
    # disjoint parts of one storage are fine
    minitorch.add(x[:5], 1, out=x[5:])
    assert to_np(x).tolist() == [0, 1, 2, 3, 4, 1, 2, 3, 4, 5]


def test_out_resize_keeps_storage(device):
    x = minitorch.arange(4.0, device=device)
    with pytest.warns(
        UserWarning, match=r"had shape \[1\], which does not match the required output shape \[2\]"
    ):
        minitorch.add(x[:2], 1, out=x[2:3])  # PyTorch's resize_: the view grows inside its storage
    assert x.tolist() == [0.0, 1.0, 1.0, 2.0]
    o = minitorch.tensor(5.0, device=device)  # a 0-dim out has one element: resizing it warns
    with pytest.warns(UserWarning, match=r"had shape \[\]"):
        minitorch.exp(x, out=o)
    assert o.shape == (4,)
    e = minitorch.empty(0, device=device)
    minitorch.add(minitorch.ones(0, 3, device=device), 1, out=e)
    assert e.shape == (0, 3)


def test_out_direct_arguments(device):
    a = minitorch.tensor([1.0, 2.0, 7.0], device=device)
    b = minitorch.tensor([2.0, 2.0, 2.0], device=device)
    out = minitorch.empty(3, device=device)
    minitorch.add(a, b, alpha=3, out=out)
    assert out.tolist() == [7.0, 8.0, 13.0]
    minitorch.sub(a, b, alpha=0.5, out=out)
    assert out.tolist() == [0.0, 1.0, 6.0]
    minitorch.div(a, b, rounding_mode="floor", out=out)
    assert out.tolist() == [0.0, 1.0, 3.0]
    minitorch.div(-a, b, rounding_mode="trunc", out=out)
    assert out.tolist() == [-0.0, -1.0, -3.0]
    minitorch.div(a, b, rounding_mode=None, out=out)
    assert out.tolist() == [0.5, 1.0, 3.5]
    with pytest.raises(
        RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor'"
    ):
        minitorch.div(a, b, rounding_mode="bad", out=out)
    li = minitorch.ones(3, dtype=minitorch.int64, device=device)
    with pytest.raises(
        RuntimeError, match="For integral input tensors, argument alpha must not be a floating"
    ):
        minitorch.add(li, li, alpha=2.5, out=minitorch.empty(3, dtype=minitorch.int64, device=device))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        minitorch.div(li, 2, out=minitorch.empty(3, dtype=minitorch.int64, device=device))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        minitorch.sigmoid(li, out=minitorch.empty(3, dtype=minitorch.int64, device=device))
    bo = minitorch.ones(2, dtype=minitorch.bool, device=device)
    with pytest.raises(NotImplementedError, match="Subtraction, the `-` operator, with two bool tensors"):
        minitorch.sub(bo, bo, out=minitorch.empty(2, dtype=minitorch.bool, device=device))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        minitorch.abs(bo, out=minitorch.empty(2, dtype=minitorch.bool, device=device))
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        minitorch.mul(a, minitorch.ones(2, device=device), out=out)
    # keyword inputs take the general path, with the same result
    minitorch.mul(input=a, other=b, out=out)
    assert out.tolist() == [2.0, 4.0, 14.0]
    with minitorch.inference_mode():
        inf = minitorch.ones(3, device=device)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        minitorch.add(a, b, out=inf)
    r = minitorch.ones(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"exp\(\): functions with out=\.\.\. arguments don't support"):
        minitorch.exp(r, out=out)
    with pytest.raises(RuntimeError, match=r"mul\(\): functions with out=\.\.\. arguments don't support"):
        minitorch.mul(a, r, out=out)


def _spd(device):
    a = minitorch.tensor(
        [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=minitorch.float64, device=device
    )
    return a


# Functions written in Python (python/minitorch/_out.py): (call given A and out, the name PyTorch 2.15 gives in
# its autograd refusal or None where it differentiates the composite, its message for a float32 out of a float64
# result or None where float32 is accepted as castable)
_COMPOSITES = [
    ("linalg.inv", lambda A, o: minitorch.linalg.inv(A, out=o), "linalg_inv_ex", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.det", lambda A, o: minitorch.linalg.det(A, out=o), "_linalg_det", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.cholesky", lambda A, o: minitorch.linalg.cholesky(A, out=o), "linalg_cholesky_ex", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.solve", lambda A, o: minitorch.linalg.solve(A, A[:, :2], out=o), "_linalg_solve_ex", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.solve_triangular", lambda A, o: minitorch.linalg.solve_triangular(A, A, upper=False, out=o), "linalg_solve_triangular", "expected scalar type Double but found Float"),
    ("linalg.eigvalsh", lambda A, o: minitorch.linalg.eigvalsh(A, out=o), "_linalg_eigh", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.svdvals", lambda A, o: minitorch.linalg.svdvals(A, out=o), "_linalg_svd", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.pinv", lambda A, o: minitorch.linalg.pinv(A, out=o), "linalg_pinv", None),
    ("linalg.matrix_power", lambda A, o: minitorch.linalg.matrix_power(A, 3, out=o), "matmul", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.vector_norm", lambda A, o: minitorch.linalg.vector_norm(A, out=o), "linalg_vector_norm", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.matrix_norm", lambda A, o: minitorch.linalg.matrix_norm(A, out=o), None, "linalg.matrix_norm expected out tensor dtype Double but got: Float"),
    ("linalg.norm", lambda A, o: minitorch.linalg.norm(A[0], 3, out=o), None, "linalg.norm expected out tensor dtype Double but got: Float"),
    ("linalg.vecdot", lambda A, o: minitorch.linalg.vecdot(A, A, out=o), "sum", "linalg.vecdot: Expected out of dtypeDouble but found Float"),
    ("linalg.multi_dot", lambda A, o: minitorch.linalg.multi_dot([A, A], out=o), "mm", "multi_dot(): expected out tensor to have dtype double but got float"),
    ("linalg.cross", lambda A, o: minitorch.linalg.cross(A, A, out=o), "linalg_cross", "Expected out tensor to have dtype double, but got float instead"),
    ("linalg.tensorinv", lambda A, o: minitorch.linalg.tensorinv(A, ind=1, out=o), None, None),
    ("cholesky_inverse", lambda A, o: minitorch.cholesky_inverse(A, out=o), "cholesky_inverse", None),
    ("t_copy", lambda A, o: minitorch.t_copy(A, out=o), None, "Expected out tensor to have dtype double, but got float instead"),
    ("diagonal_copy", lambda A, o: minitorch.diagonal_copy(A, out=o), None, "Expected out tensor to have dtype double, but got float instead"),
]  # fmt: skip


@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated")
@pytest.mark.parametrize("name,call,grad_name,f32_error", _COMPOSITES, ids=[c[0] for c in _COMPOSITES])
def test_out_of_python_composites(device, name, call, grad_name, f32_error):
    """The composites' out= check, resize and write as PyTorch's ops: never a silent cast into the wrong dtype."""
    A = _spd(device)
    want = call(A, None)
    o = minitorch.empty(1, 1, 1, dtype=minitorch.float64, device=device)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        got = call(A, o)
    assert got is o and tuple(o.shape) == tuple(want.shape)
    np.testing.assert_array_equal(to_np(o), to_np(want))
    f32 = minitorch.empty(0, dtype=minitorch.float32, device=device)
    if f32_error is None:  # castable: the result is rounded into out
        np.testing.assert_allclose(to_np(call(A, f32)), to_np(want), rtol=1e-6)
    else:
        with pytest.raises(RuntimeError, match=f"^{re.escape(f32_error)}$"):
            call(A, f32)
    if f32_error is None:
        with pytest.raises(
            RuntimeError, match="Expected result to be safely castable from Double dtype, but got"
        ):
            call(A, minitorch.empty(0, dtype=minitorch.int64, device=device))
    Ar = A.clone().requires_grad_()
    o = minitorch.empty(0, dtype=minitorch.float64, device=device)
    if grad_name is None:  # PyTorch differentiates the composite: out joins the graph
        call(Ar, o).sum().backward()
        assert Ar.grad is not None and o.grad_fn is not None
    else:
        with pytest.raises(
            RuntimeError,
            match=re.escape(
                f"{grad_name}(): functions with out=... arguments don't support automatic differentiation"
            ),
        ):
            call(Ar, o)
        with minitorch.no_grad():
            call(Ar, o)
        np.testing.assert_array_equal(to_np(o), to_np(want))


def test_out_of_python_composites_other_rules(device):
    A = _spd(device)
    c64 = minitorch.empty(0, dtype=minitorch.complex64, device=device)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Expected object of scalar type ComplexDouble but got scalar type ComplexFloat for argument 'out'"
        ),
    ):
        minitorch.complex(A, A, out=c64)
    with pytest.raises(
        RuntimeError, match=re.escape("polar(): functions with out=... arguments don't support")
    ):
        minitorch.polar(
            A.requires_grad_(), A, out=minitorch.empty(0, dtype=minitorch.complex128, device=device)
        )
    A = A.detach()
    with pytest.raises(
        RuntimeError,
        match="torch.linalg.eigvals: Expected eigenvalues to be safely castable from ComplexDouble dtype, but got "
        "eigenvalues with dtype Double",
    ):
        minitorch.linalg.eigvals(A, out=minitorch.empty(0, dtype=minitorch.float64, device=device))
    with pytest.raises(RuntimeError, match="Expected eigenvectors to be safely castable from ComplexDouble"):
        minitorch.linalg.eig(A, out=(minitorch.empty(0, dtype=minitorch.complex128), minitorch.empty(0)))
    np.testing.assert_allclose(  # complex128 -> complex64 is castable
        np.sort_complex(minitorch.linalg.eigvals(A, out=c64).cpu().numpy()),
        np.sort_complex(np.linalg.eigvals(to_np(A))),
        rtol=1e-5,
    )
    r = minitorch.linalg.matrix_rank(A, out=minitorch.empty(0, dtype=minitorch.int32, device=device))
    assert r.dtype == minitorch.int32 and r.item() == 3
    with pytest.raises(
        RuntimeError, match="torch.linalg.matrix_rank: Expected result to be safely castable from Long"
    ):
        minitorch.linalg.matrix_rank(A, out=minitorch.empty(0, dtype=minitorch.bool, device=device))
    with (
        pytest.raises(
            RuntimeError, match="^multi_dot\\(\\): expected out tensor to have dtype double but got long int$"
        ),
        pytest.warns(UserWarning, match="chain_matmul is deprecated"),
    ):
        minitorch.chain_matmul(A, A, out=minitorch.empty(0, dtype=minitorch.int64, device=device))
    # factories: out's dtype wins and a resize is silent, as PyTorch's
    o = minitorch.empty(2, dtype=minitorch.int64, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minitorch.logspace(0, 2, 3, out=o)
    assert o.tolist() == [1, 10, 100]
    outs = [minitorch.empty(0, dtype=minitorch.float64, device=device) for _ in range(3)]
    assert minitorch.unbind_copy(A, out=outs) is None
    np.testing.assert_array_equal(to_np(outs[1]), to_np(A[1]))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        minitorch.unbind_copy(A, out=[minitorch.empty(0, device=device) for _ in range(3)])


def test_out_of_fft(device):
    """torch.fft's out=: its primitive's autograd refusal (the composites ending in conj join the graph instead),
    out's complex dtype wins, a resize warns."""
    x = minitorch.tensor([1.0, 2.0, -1.0, 0.5], dtype=minitorch.float64, device=device)
    want = np.fft.fft(to_np(x))
    o = minitorch.empty(2, dtype=minitorch.complex64, device=device)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        minitorch.fft.fft(x, out=o)
    np.testing.assert_allclose(o.cpu().numpy(), want, rtol=1e-6)
    xr = x.clone().requires_grad_()
    for fn, prim in (
        (minitorch.fft.fft, "_fft_r2c"),
        (minitorch.fft.irfft, "_fft_c2r"),
        (minitorch.fft.fft2, "_fft_c2c"),
    ):
        arg = xr if fn is not minitorch.fft.fft2 else xr.reshape(2, 2)
        y = fn(arg)
        with pytest.raises(
            RuntimeError, match=re.escape(f"{prim}(): functions with out=... arguments don't support")
        ):
            fn(arg, out=minitorch.empty(0, dtype=y.dtype, device=device))
    o = minitorch.empty(0, dtype=minitorch.complex128, device=device)
    minitorch.fft.ifft(
        xr, out=o
    ).real.sum().backward()  # a composite ending in conj (PyTorch's conj fails here)
    np.testing.assert_allclose(to_np(xr.grad), [1.0, 0.0, 0.0, 0.0], atol=1e-12)
    with pytest.raises(RuntimeError, match="fft expects a complex output tensor, but got Double"):
        minitorch.fft.fft(x, out=minitorch.empty(0, dtype=minitorch.float64, device=device))


_CAST_LONG = "result type Double can't be cast to the desired output type Long"
_EXACT_F32 = "Expected out tensor to have dtype double, but got float instead"
# More functions written in Python: (call given A and out, the name in PyTorch 2.15's autograd refusal or None,
# its error for a float32 out or None where float32 is castable, its error for an int64 out)
_MATH_COMPOSITES = [
    ("addcmul", lambda A, o: minitorch.addcmul(A, A, A, out=o), "addcmul", None, _CAST_LONG),
    ("addcdiv", lambda A, o: minitorch.addcdiv(A, A, A + 5, out=o), "addcdiv", None, _CAST_LONG),
    ("addr", lambda A, o: minitorch.addr(A, A[0], A[1], out=o), "addr", None, _CAST_LONG),
    ("baddbmm", lambda A, o: minitorch.baddbmm(A[None], A[None], A[None], out=o), "baddbmm", _EXACT_F32, None),
    ("addmv", lambda A, o: minitorch.addmv(A[0], A, A[1], out=o), "addmv", _EXACT_F32, None),
    ("quantile", lambda A, o: minitorch.quantile(A, 0.3, dim=0, out=o), None, "quantile() out tensor must be same dtype as the input tensor", None),
    ("nan_to_num", lambda A, o: minitorch.nan_to_num(A, out=o), "nan_to_num", "nan_to_num: dtype of out: Float should be same as input: Double", None),
    ("tensordot", lambda A, o: minitorch.tensordot(A, A, 1, out=o), None, "tensordot: Expected the output tensor to have dtype Double, but got an output tensor with dtype Float", None),
    ("scatter_reduce", lambda A, o: minitorch.scatter_reduce(A, 0, minitorch.tensor([[0, 1, 2]], device=A.device), A[:1], "sum", out=o), "scatter_reduce", _EXACT_F32, None),
    ("index_reduce", lambda A, o: minitorch.index_reduce(A, 0, minitorch.tensor([0, 1], device=A.device), A[:2], "prod", out=o), "index_reduce", _EXACT_F32, None),
    ("float_power", lambda A, o: minitorch.float_power(A, 2, out=o), "pow", "the output given to float_power has dtype Float but the operation's result requires dtype Double", None),
    ("nanmean", lambda A, o: minitorch.nanmean(A, 0, out=o), "nansum", None, None),
]  # fmt: skip


@pytest.mark.parametrize(
    "name,call,grad_name,f32_error,i64_error", _MATH_COMPOSITES, ids=[c[0] for c in _MATH_COMPOSITES]
)
def test_out_of_math_composites(device, name, call, grad_name, f32_error, i64_error):
    A = _spd(device)
    want = call(A, None)
    o = minitorch.empty(1, 1, 1, 1, dtype=minitorch.float64, device=device)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        assert call(A, o) is o
    np.testing.assert_array_equal(to_np(o), to_np(want))
    f32 = minitorch.empty(0, dtype=minitorch.float32, device=device)
    if f32_error is None:
        np.testing.assert_allclose(to_np(call(A, f32)), to_np(want), rtol=1e-6)
    else:
        with pytest.raises(RuntimeError, match=f"^{re.escape(f32_error)}$"):
            call(A, f32)
    if i64_error is not None:
        with pytest.raises(RuntimeError, match=f"^{re.escape(i64_error)}$"):
            call(A, minitorch.empty(0, dtype=minitorch.int64, device=device))
    o = minitorch.empty(0, dtype=minitorch.float64, device=device)
    Ar = A.clone().requires_grad_()
    if grad_name is None:
        call(Ar, o).sum().backward()
        assert Ar.grad is not None
    else:
        with pytest.raises(RuntimeError, match=re.escape(f"{grad_name}(): functions with out=... arguments")):
            call(Ar, o)


def test_copy_into_smaller_rank(device):
    """copy_ broadcasts src to self only: PyTorch's errors, not an internal assert."""
    dst = minitorch.empty(3, device=device)
    with pytest.raises(
        RuntimeError, match=re.escape("output with shape [3] doesn't match the broadcast shape [2, 3]")
    ):
        dst.copy_(minitorch.ones(2, 3, device=device))
    with pytest.raises(
        RuntimeError, match=re.escape("output with shape [] doesn't match the broadcast shape [3]")
    ):
        minitorch.empty((), device=device).copy_(minitorch.ones(3, device=device))
    with pytest.raises(
        RuntimeError, match=re.escape("The size of tensor a (0) must match the size of tensor b (3)")
    ):
        minitorch.empty(0, device=device).copy_(minitorch.ones(3, 3, device=device))
    dst.copy_(minitorch.tensor([2.0], device=device))
    assert dst.tolist() == [2.0, 2.0, 2.0]


def test_float_power_complex(device):
    """A complex operand computes in complex128 (the imaginary part was dropped)."""
    x = minitorch.tensor([1 + 1j, -2 + 0.5j], dtype=minitorch.complex64, device=device)
    np.testing.assert_allclose(
        minitorch.float_power(x, 2).cpu().numpy(), x.cpu().numpy().astype(np.complex128) ** 2
    )
    r = minitorch.float_power(minitorch.tensor([2.0], device=device), 1j)
    assert r.dtype == minitorch.complex128
    np.testing.assert_allclose(r.cpu().numpy(), [2.0**1j])
    np.testing.assert_allclose(
        minitorch.float_power(2j, minitorch.tensor([2.0], device=device)).cpu().numpy(),
        [-4.0 + 0j],
        atol=1e-15,
    )


def test_out_shortcut_matches_the_chain(device):
    # a call site's `out=` (an interned name) goes to the out= overload straight (arg_errors.cpp); a keyword
    # name built at run time is not interned and takes pybind11's overload chain: both write the same values
    # and raise the same errors, for bindings whose parameters are named (lerp, clamp_min) and not
    a, b = rnd(5, device=device), rnd(5, device=device)
    runtime_out = b"out".decode()  # a new str, not the interned "out"
    calls = [
        ("lerp", (a, b, 0.25), {}, lambda x, y: x + 0.25 * (y - x)),
        ("lerp", (a,), {"end": b, "weight": 0.5}, lambda x, y: x + 0.5 * (y - x)),
        ("clamp_min", (a, 0.1), {}, lambda x, y: np.maximum(x, 0.1)),
        ("add", (a, b), {"alpha": 2}, lambda x, y: x + 2 * y),
        ("multinomial", (a.abs(), 2), {"replacement": True}, None),
    ]
    for name, args, kwargs, ref in calls:
        fn = getattr(minitorch, name)
        dtype = minitorch.int64 if name == "multinomial" else minitorch.float32
        n = 2 if name == "multinomial" else 5
        o1, o2 = (minitorch.empty(n, dtype=dtype, device=device) for _ in range(2))
        r1 = fn(*args, **kwargs, out=o1)
        r2 = fn(*args, **kwargs, **{runtime_out: o2})
        assert r1 is o1 and r2 is o2
        if ref is not None:
            expect = ref(to_np(a).astype(np.float64), to_np(b).astype(np.float64))
            rtol, atol = TOL[minitorch.float32]
            np.testing.assert_allclose(to_np(o1), expect, rtol=rtol, atol=atol)
            assert to_np(o1).tolist() == to_np(o2).tolist()
        errors = []
        for out_kw in ({"out": 3}, {runtime_out: 3}, {"out": o1, "bogus": 1}, {runtime_out: o1, "bogus": 1}):
            with pytest.raises(TypeError) as e:
                fn(*args, **kwargs, **out_kw)
            errors.append(str(e.value))
        assert errors[0] == errors[1] and errors[2] == errors[3], errors
        assert f"{name}(): argument 'out' must be Tensor, not int" in errors[0]


# The ops whose kernels write straight into an out of the result's shape and dtype (bind_out.cpp's
# try_direct_func): (name, call over x [5, 6], y [5, 6], int64 index idx [4] and gi [5, 3], NumPy reference)
DIRECT = [
    ("index_select 0", lambda T, x, y, i, g, out: T.index_select(x, 0, i, out=out), lambda x, y, i, g: x[i]),
    (
        "index_select 1",
        lambda T, x, y, i, g, out: T.index_select(x, 1, i, out=out),
        lambda x, y, i, g: x[:, i],
    ),
    (
        "index_select -1 of x.t()",
        lambda T, x, y, i, g, out: T.index_select(x.t(), -1, i, out=out),
        lambda x, y, i, g: x.T[:, i],
    ),
    (
        "index_select int32",
        lambda T, x, y, i, g, out: T.index_select(x, 0, i.int(), out=out),
        lambda x, y, i, g: x[i],
    ),
    (
        "gather",
        lambda T, x, y, i, g, out: T.gather(x, 1, g, out=out),
        lambda x, y, i, g: np.take_along_axis(x, g, 1),
    ),
    (
        "gather of x.t()",
        lambda T, x, y, i, g, out: T.gather(x.t(), 0, g.t(), out=out),
        lambda x, y, i, g: np.take_along_axis(x.T, g.T, 0),
    ),
    ("triu", lambda T, x, y, i, g, out: T.triu(x, out=out), lambda x, y, i, g: np.triu(x)),
    ("tril -2", lambda T, x, y, i, g, out: T.tril(x, -2, out=out), lambda x, y, i, g: np.tril(x, -2)),
    (
        "triu of x.t()",
        lambda T, x, y, i, g, out: T.triu(x.t(), 1, out=out),
        lambda x, y, i, g: np.triu(x.T, 1),
    ),
    ("cat", lambda T, x, y, i, g, out: T.cat([x, y], out=out), lambda x, y, i, g: np.concatenate([x, y])),
    (
        "cat 1",
        lambda T, x, y, i, g, out: T.cat((x, y, x), 1, out=out),
        lambda x, y, i, g: np.concatenate([x, y, x], 1),
    ),
    (
        "concat of x.t()",
        lambda T, x, y, i, g, out: T.concat([x.t(), y.t()], out=out),
        lambda x, y, i, g: np.concatenate([x.T, y.T]),
    ),
    ("stack", lambda T, x, y, i, g, out: T.stack([x, y], out=out), lambda x, y, i, g: np.stack([x, y])),
    (
        "stack -1",
        lambda T, x, y, i, g, out: T.stack([x, y], -1, out=out),
        lambda x, y, i, g: np.stack([x, y], -1),
    ),
]


def _direct_inputs(device, dtype=minitorch.float64):
    x, y = rnd(5, 6, device=device, dtype=dtype), rnd(5, 6, device=device, dtype=dtype)
    i = minitorch.tensor([4, 0, 2, 2], device=device)
    g = minitorch.tensor(np.random.default_rng(0).integers(0, 5, (5, 3)), device=device)
    return x, y, i, g


@pytest.mark.parametrize("name,call,ref", DIRECT, ids=[c[0] for c in DIRECT])
def test_out_direct_layouts(device, name, call, ref):
    x, y, i, g = _direct_inputs(device)
    want = ref(*[to_np(t) for t in (x, y, i, g)])

    # an out of the right shape, as the kernel writes it (contiguous), then one it cannot take (transposed
    # rows, a column slice of a wider buffer) and an empty one (resized): every form the plain result
    def filled(shape):
        return minitorch.full(shape, 7.0, dtype=minitorch.float64, device=device)

    n = len(want.shape)
    for make in (
        filled,
        lambda s: filled(s[::-1]).permute(*range(n - 1, -1, -1)),
        lambda s: filled(s[:-1] + (s[-1] + 2,))[..., 1:-1],
        lambda s: minitorch.empty(0, dtype=minitorch.float64, device=device),
    ):
        out = make(want.shape)
        version = out._version
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # right shape or empty: no resize warning
            r = call(minitorch, x, y, i, g, out)
        assert r is out and out._version > version
        np.testing.assert_array_equal(to_np(out), want)
    # the wider buffer's columns around the slice are left alone
    buf = minitorch.full(
        (want.shape[0], want.shape[1] + 2) + want.shape[2:], 7.0, dtype=minitorch.float64, device=device
    )
    call(minitorch, x, y, i, g, buf[:, 1:-1])
    assert (to_np(buf[:, 0]) == 7).all() and (to_np(buf[:, -1]) == 7).all()


@pytest.mark.parametrize("name,call,ref", DIRECT, ids=[c[0] for c in DIRECT])
def test_out_direct_rules(device, name, call, ref):
    x, y, i, g = _direct_inputs(device, minitorch.float32)
    want = call(minitorch, x, y, i, g, None)
    # another dtype: the general path's check (exact but for cat's cast, in cat's wording, and index_select's own)
    wrong = minitorch.empty(want.shape, dtype=minitorch.int64, device=device)
    with pytest.raises((RuntimeError, TypeError), match="dtype|cast|same scalar type"):
        call(minitorch, x, y, i, g, wrong)
    # another shape with elements: resized with PyTorch's warning
    out = minitorch.empty(2, dtype=minitorch.float32, device=device)
    with pytest.warns(UserWarning, match=r"was resized since it had shape \[2\]"):
        call(minitorch, x, y, i, g, out)
    assert tuple(out.shape) == tuple(want.shape) and minitorch.equal(out, want)
    # an input that requires grad, or out itself: PyTorch's refusal, in the op's name
    shown = name.split()[0]
    for xg, og in (
        (x.detach().requires_grad_(), minitorch.empty(want.shape, device=device)),
        (x, minitorch.empty(want.shape, device=device, requires_grad=True)),
    ):
        with pytest.raises(RuntimeError, match=shown + r"\(\): functions with out=\.\.\. arguments don't"):
            call(minitorch, xg, y, i, g, og)


def test_out_direct_aliasing_and_errors(device):
    x = rnd(5, 5, device=device, dtype=minitorch.float64)
    want = minitorch.triu(x)
    z = x.clone()
    assert minitorch.triu(z, out=z) is z and minitorch.equal(z, want)  # out is the input: computed first
    z = x.clone()
    minitorch.index_select(z, 0, minitorch.tensor([4, 3, 2, 1, 0], device=device), out=z)
    assert minitorch.equal(z, x.flip(0))  # rows read before any is written
    z = x.clone()
    minitorch.cat([z[:2], z[3:]], out=z[1:])
    assert minitorch.equal(z[1:], minitorch.cat([x[:2], x[3:]]))
    out = minitorch.full((1, 5), 7.0, dtype=minitorch.float64, device=device)
    with pytest.raises(IndexError, match="index out of range in self"):
        minitorch.index_select(x, 0, minitorch.tensor([5], device=device), out=out)
    with pytest.raises(RuntimeError, match="index 9 is out of bounds for dimension 1 with size 5"):
        minitorch.gather(x, 1, minitorch.tensor([[9]], device=device), out=out[:, :1])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        minitorch.cat([x, x[:, :2]], out=minitorch.empty(7, 5, dtype=minitorch.float64, device=device))
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        minitorch.stack([x, x[:2]], out=minitorch.empty(2, 5, 5, dtype=minitorch.float64, device=device))
    with pytest.raises(RuntimeError, match="triu: input tensor must have at least 2 dimensions"):
        minitorch.triu(x[0], out=minitorch.empty(5, dtype=minitorch.float64, device=device))
    assert (to_np(out) == 7).all()  # a refused call leaves out alone


def test_out_triangle_dtype_is_exact(device):
    # PyTorch 2.15's tril/triu take no out of another dtype, a widening one included
    x = rnd(3, 3, device=device)
    for op in (minitorch.tril, minitorch.triu):
        for dt, shown in ((minitorch.float64, "double"), (minitorch.int64, "long int")):
            with pytest.raises(
                RuntimeError, match=f"Expected out tensor to have dtype float, but got {shown} instead"
            ):
                op(x, out=minitorch.empty(3, 3, dtype=dt, device=device))
