"""The out= keyword: results written into (and returned as) the given tensor, resized when its shape differs
(PyTorch's UserWarning when it had elements), PyTorch's dtype, device and autograd checks."""

import warnings

import numpy as np
import pytest
from utils import to_np

import minitorch


def rnd(*shape, device="cpu", dtype=minitorch.float32):
    return minitorch.randn(*shape, device=device).to(dtype)


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
