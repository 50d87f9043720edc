"""Breadth of Tensor methods composed in Python (_composite_shape / _composite_math): scatter_reduce,
index_reduce, masked_scatter, put, fill_diagonal_, sum_to_size, new, adjoint, split_with_sizes, the in-place
arithmetic aliases, renorm, dist, cov, corrcoef, frexp, nextafter, mvlgamma, conj bits and shifts. References
are NumPy float64 computations written here."""

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck


def _np(t):
    return np.array(t.cpu().tolist())


def _t(a, dtype, device):
    return torch.tensor(np.asarray(a).tolist(), dtype=dtype, device=device)


DTYPES = [torch.float32, torch.float64, torch.int64]


# ---------------------------------------------------------------- scatter_reduce / index_reduce


def _np_scatter_reduce(x, dim, idx, src, reduce, include_self):
    x = x.astype(np.float64).copy()
    out = x.copy()
    groups = {}
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[dim] = idx[pos]
        groups.setdefault(tuple(tgt), []).append(src[pos])
    for tgt, vals in groups.items():
        vals = list(vals) + ([x[tgt]] if include_self else [])
        out[tgt] = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce](
            vals
        )
    return out


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_reduce_values(device, reduce, include_self, dtype):
    rng = np.random.default_rng(0)
    x = rng.integers(-4, 5, (4, 6)).astype(np.float64)
    src = rng.integers(-4, 5, (5, 7)).astype(np.float64)
    idx = rng.integers(0, 4, (3, 5))
    for dim in (0, 1):
        ref = _np_scatter_reduce(x, dim, idx, src, reduce, include_self)
        got = _t(x, dtype, device).scatter_reduce(
            dim, _t(idx, torch.int64, device), _t(src, dtype, device), reduce, include_self=include_self
        )
        assert got.dtype == dtype
        if dtype == torch.int64 and reduce == "mean":
            ref = np.floor(ref)
        np.testing.assert_allclose(_np(got), ref, rtol=1e-6)


def test_scatter_reduce_noncontiguous_inplace_and_empty(device):
    x = torch.arange(12.0, device=device).view(3, 4).t()  # non-contiguous (4, 3)
    idx = torch.tensor([[0, 1, 0], [2, 2, 1]], device=device)
    src = torch.ones(2, 3, device=device) * 10
    ref = _np_scatter_reduce(_np(x), 0, _np(idx).astype(int), _np(src), "amax", True)
    np.testing.assert_allclose(_np(torch.scatter_reduce(x, 0, idx, src, "amax")), ref)
    y = x.clone()
    assert y.scatter_reduce_(0, idx, src, "sum") is y
    np.testing.assert_allclose(
        _np(y), _np_scatter_reduce(_np(x), 0, _np(idx).astype(int), _np(src), "sum", True)
    )
    e = torch.ones(3, device=device).scatter_reduce(
        0, torch.zeros(0, dtype=torch.int64, device=device), torch.ones(0, device=device), "amin"
    )
    np.testing.assert_allclose(_np(e), [1, 1, 1])


def test_scatter_reduce_nan(device):
    x = torch.tensor([1.0, 2.0, 3.0], device=device)
    idx = torch.tensor([0, 0, 1], device=device)
    src = torch.tensor([float("nan"), -5.0, 7.0], device=device)
    for r in ("amax", "amin"):
        got = _np(x.scatter_reduce(0, idx, src, r))
        assert math.isnan(got[0]) and got[2] == 3.0


@pytest.mark.parametrize("reduce", ["sum", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_grad(reduce, include_self):
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    src = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    idx = torch.tensor([[0, 1, 2], [0, 1, 3], [3, 3, 3], [1, 0, 0], [2, 2, 2]])
    assert gradcheck(lambda a, b: a.scatter_reduce(0, idx, b, reduce, include_self=include_self), (x, src))


def test_scatter_reduce_errors():
    x = torch.ones(5, dtype=torch.int64)
    i = torch.tensor([0, 1])
    with pytest.raises(
        RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got foo"
    ):
        x.scatter_reduce(0, i, x, "foo")
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        x.scatter_reduce(0, i, x.float(), "sum")
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected dtype int32/int64 for index"):
        x.scatter_reduce(0, i.float(), x, "sum")
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        x.scatter_reduce(0, i.view(1, 2), x, "sum")


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_index_reduce(device, reduce, dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(-3, 4, (3, 5)).astype(np.float64)
    src = rng.integers(-3, 4, (3, 4)).astype(np.float64)
    index = np.array([0, 4, 0, 2])
    for include_self in (True, False):
        idx = np.broadcast_to(index, (3, 4))
        ref = _np_scatter_reduce(x, 1, idx, src, reduce, include_self)
        if dtype == torch.int64 and reduce == "mean":
            ref = np.floor(ref)
        got = _t(x, dtype, device).index_reduce(
            1, _t(index, torch.int64, device), _t(src, dtype, device), reduce, include_self=include_self
        )
        np.testing.assert_allclose(_np(got), ref, rtol=1e-6)
    y = _t(x, dtype, device)
    assert y.index_reduce_(1, _t(index, torch.int64, device), _t(src, dtype, device), reduce) is y


def test_index_reduce_errors():
    x, i, s = torch.ones(5, dtype=torch.int64), torch.tensor([0, 0, 1, 3]), torch.ones(4, dtype=torch.int64)
    with pytest.raises(
        RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum"
    ):
        x.index_reduce(0, i, s, "sum")
    with pytest.raises(
        RuntimeError, match=r"self \(Long\) and source \(Float\) must have the same scalar type"
    ):
        x.index_reduce(0, i, s.float(), "mean")
    with pytest.raises(
        RuntimeError, match=r"Number of indices \(4\) should be equal to source.size\(dim\): \(3\)"
    ):
        x.index_reduce(0, i, s[:3], "mean")
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_reduce(0, torch.tensor([-1, 0, 0, 0]), s, "mean")
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index but got: Float"):
        x.index_reduce(0, i.float(), s, "prod")


# ---------------------------------------------------------------- masked_scatter / put / index_put


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_scatter(device, dtype):
    x = np.arange(12.0).reshape(3, 4)
    mask = (np.arange(12).reshape(3, 4) % 3) == 0
    src = np.arange(100.0, 112.0)
    ref = x.copy()
    ref[mask] = src[: mask.sum()]
    X = _t(x, dtype, device).t().contiguous().t()  # non-contiguous
    got = X.masked_scatter(_t(mask, torch.bool, device), _t(src, dtype, device))
    np.testing.assert_allclose(_np(got), ref)
    # a broadcast mask out of place
    b = torch.zeros(2, 1, dtype=dtype, device=device).masked_scatter(
        torch.tensor([True, False, True], device=device), torch.arange(6, device=device).to(dtype)
    )
    np.testing.assert_allclose(_np(b), [[0, 0, 1], [2, 0, 3]])
    y = X.clone()
    assert y.masked_scatter_(_t(mask, torch.bool, device), _t(src, dtype, device)) is y
    np.testing.assert_allclose(_np(y), ref)


def test_masked_scatter_grad_and_errors():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    s = torch.randn(12, dtype=torch.float64, requires_grad=True)
    m = torch.tensor([[True, False, True, False]] * 3)
    assert gradcheck(lambda a, b: a.masked_scatter(m, b), (x, s))
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        torch.zeros(4).masked_scatter(torch.ones(4, dtype=torch.bool), torch.ones(2))
    with pytest.raises(RuntimeError, match="masked_scatter_ only supports boolean masks"):
        torch.zeros(4).masked_scatter(torch.ones(4, dtype=torch.int64), torch.ones(4))
    with pytest.raises(RuntimeError, match="masked_scatter: expected self and source to have same dtypes"):
        torch.zeros(4).masked_scatter(torch.ones(4, dtype=torch.bool), torch.ones(4, dtype=torch.float64))


@pytest.mark.parametrize("dtype", DTYPES)
def test_put(device, dtype):
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([0, -1, 5, 0])
    src = np.array([10.0, 20.0, 30.0, 40.0])
    ref_acc = x.reshape(-1).copy()
    np.add.at(ref_acc, idx, src)
    X = _t(x, dtype, device)
    got = X.put(_t(idx, torch.int64, device), _t(src, dtype, device), accumulate=True)
    np.testing.assert_allclose(_np(got), ref_acc.reshape(3, 4))
    ref = x.reshape(-1).copy()
    ref[[-1, 5]] = [20, 30]
    Y = X.clone()
    assert Y.put_(_t(idx[1:3], torch.int64, device), _t(src[1:3], dtype, device)) is Y
    np.testing.assert_allclose(_np(Y), ref.reshape(3, 4))
    np.testing.assert_allclose(
        _np(torch.index_put(X, (_t([0, 2], torch.int64, device),), _t([1.0], dtype, device))),
        np.where(np.arange(3)[:, None] % 2 == 0, 1, x),
    )


def test_put_errors_and_grad():
    x = torch.arange(5)
    with pytest.raises(IndexError, match="out of range: tried to access index 7 on a tensor of 5 elements."):
        x.put(torch.tensor([0, 7]), torch.tensor([1, 2]))
    with pytest.raises(IndexError, match="Expected source and index to have the same number of elements"):
        x.put(torch.tensor([0, 1]), torch.tensor([1]))
    with pytest.raises(RuntimeError, match="self and source expected to have the same dtype"):
        x.put(torch.tensor([0, 1]), torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Float"):
        x.put(torch.tensor([0.0, 1.0]), torch.tensor([1, 2]))
    a = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    s = torch.randn(3, dtype=torch.float64, requires_grad=True)
    i = torch.tensor([0, 4, 0])
    assert gradcheck(lambda u, v: u.put(i, v, accumulate=True), (a, s))


# ---------------------------------------------------------------- small methods


def test_fill_diagonal(device):
    for shape, wrap in [((5, 3), True), ((7, 3), True), ((7, 3), False), ((3, 5), False), ((2, 2, 2), False)]:
        ref = np.zeros(shape)
        if len(shape) == 2:
            np.fill_diagonal(ref, 2, wrap=wrap)
        else:
            ref[0, 0, 0] = ref[1, 1, 1] = 2
        x = torch.zeros(shape, device=device)
        assert x.fill_diagonal_(2, wrap=wrap) is x
        np.testing.assert_allclose(_np(x), ref)
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        torch.zeros(2, 3, 2).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        torch.zeros(2).fill_diagonal_(1)
    leaf = torch.zeros(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        leaf.fill_diagonal_(1)


def test_sum_to_size_new_adjoint_split(device):
    x = torch.arange(6.0, device=device).view(2, 3)
    np.testing.assert_allclose(_np(x.sum_to_size(1, 3)), [[3, 5, 7]])
    np.testing.assert_allclose(_np(x.sum_to_size((2, 1))), [[3], [12]])
    np.testing.assert_allclose(_np(x.sum_to_size(3)), [3, 5, 7])
    with pytest.raises(RuntimeError, match=r"size \{\[2\]\} is not expandable to size \{\[2, 3\]\}"):
        x.sum_to_size(2)
    n = x.long().new([1.5, 2])
    assert n.dtype == torch.int64 and n.tolist() == [1, 2]
    assert x.new(2, 4).shape == (2, 4) and x.new().shape == (0,) and x.new(torch.Size([3])).shape == (3,)
    assert x.new(2).device == x.device
    np.testing.assert_allclose(_np(x.adjoint()), np.arange(6.0).reshape(2, 3).T)
    np.testing.assert_allclose(_np(torch.adjoint(x)), np.arange(6.0).reshape(2, 3).T)
    with pytest.raises(
        RuntimeError, match="only supported on matrices or batches of matrices. Got 1-D tensor."
    ):
        x[0].adjoint()
    _, b = torch.split_with_sizes(x, [1, 2], dim=1)
    np.testing.assert_allclose(_np(b), [[1, 2], [4, 5]])
    assert [p.shape[0] for p in x.split_with_sizes([0, 2])] == [0, 2]
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 2"):
        x.split_with_sizes([1, 2])
    with pytest.raises(RuntimeError, match="only non-negative entries"):
        x.split_with_sizes([3, -1])


# ---------------------------------------------------------------- in-place arithmetic


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_lerp_(device, dtype):
    a = np.linspace(-1, 1, 12).reshape(3, 4)
    b = np.cos(a)
    x = _t(a, dtype, device).t()  # non-contiguous self
    assert x.lerp_(_t(b, dtype, device).t(), 0.1) is x
    np.testing.assert_allclose(_np(x), (a + 0.1 * (b - a)).T, rtol=1e-6)
    w = np.linspace(0, 1, 4)
    y = _t(a, dtype, device)
    y.lerp_(_t(b, dtype, device), _t(w, dtype, device))
    np.testing.assert_allclose(_np(y), a + w * (b - a), rtol=1e-6, atol=1e-7)
    with pytest.raises(
        RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"
    ):
        torch.ones(2, dtype=dtype, device=device).lerp_(torch.zeros(2, 2, dtype=dtype, device=device), 0.5)


def test_inplace_autograd():
    p = torch.randn(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        p.lerp_(torch.zeros(3, dtype=torch.float64), 0.5)
    with torch.no_grad():
        ema = torch.zeros(3, dtype=torch.float64)
        ema.lerp_(p, 1 - 0.9)
    np.testing.assert_allclose(_np(ema), 0.1 * _np(p))

    def f(x, e, m1, m2):
        y = x * 1
        y.lerp_(e, 0.3)
        y = y.view(2, 2) * 1
        y.addmm_(m1, m2, beta=0.5, alpha=2)
        y.cumsum_(1)
        y.subtract_(e.view(2, 2), alpha=2)
        return y.divide_(3.0)

    args = [torch.randn(s, dtype=torch.float64, requires_grad=True) for s in [(4,), (4,), (2, 3), (3, 2)]]
    assert gradcheck(f, args)


@pytest.mark.parametrize("dtype", DTYPES)
def test_addmm_cum_div_sub_clamp(device, dtype):
    rng = np.random.default_rng(2)
    s, m1, m2 = (rng.integers(-3, 4, sh).astype(np.float64) for sh in [(3, 2), (3, 4), (4, 2)])
    x = _t(s, dtype, device)
    if device == "cuda" and not dtype.is_floating_point:  # no integer GEMM on CUDA, as in PyTorch
        with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
            x.addmm_(_t(m1, dtype, device), _t(m2, dtype, device))
    else:
        assert x.addmm_(_t(m1, dtype, device), _t(m2, dtype, device), beta=2, alpha=3) is x
        np.testing.assert_allclose(_np(x), 2 * s + 3 * m1 @ m2)
    with pytest.raises(
        RuntimeError, match=r"Bad in-place call: input tensor size \[2\] and output tensor size"
    ):
        torch.ones(2, dtype=dtype).addmm_(torch.ones(2, 2, dtype=dtype), torch.ones(2, 1, dtype=dtype))
    c = _t(s, dtype, device).t()
    np.testing.assert_allclose(_np(c.cumsum_(1)), np.cumsum(s.T, 1))
    np.testing.assert_allclose(_np(_t(s, dtype, device).cumprod_(0)), np.cumprod(s, 0))
    np.testing.assert_allclose(_np(_t(s, dtype, device).clamp_min_(0)), np.maximum(s, 0))
    np.testing.assert_allclose(_np(_t(s, dtype, device).clamp_max_(1)), np.minimum(s, 1))
    np.testing.assert_allclose(_np(_t(s, dtype, device).subtract_(1, alpha=2)), s - 2)
    np.testing.assert_allclose(_np(_t(s, dtype, device).divide_(2, rounding_mode="floor")), np.floor(s / 2))
    if dtype != torch.int64:
        np.testing.assert_allclose(_np(_t(s, dtype, device).true_divide_(4)), s / 4)
    else:
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type"):
            _t(s, dtype, device).true_divide_(4)
        with pytest.raises(RuntimeError, match="Bad in-place call: input tensor dtype long int and output"):
            _t(s, dtype, device).cumsum_(0, dtype=torch.float32)


# ---------------------------------------------------------------- renorm / dist / cov / corrcoef


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_renorm_dist(device, dtype):
    a = np.random.default_rng(3).standard_normal((3, 4, 2))
    for p, dim, maxnorm in [(2, 0, 1.0), (1, 1, 0.5), (3, -1, 2.0)]:
        other = tuple(k for k in range(3) if k != dim % 3)
        norms = (np.abs(a) ** p).sum(axis=other, keepdims=True) ** (1 / p)
        ref = a * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1)
        np.testing.assert_allclose(_np(torch.renorm(_t(a, dtype, device), p, dim, maxnorm)), ref, rtol=1e-5)
    x = _t(a, dtype, device)
    assert x.renorm_(2, 0, 1.0) is x
    b = np.random.default_rng(4).standard_normal((4, 2))
    for p in (2, 1, 0, float("inf"), 3):
        d = np.abs(a - b).reshape(-1)
        ref = {0: (d != 0).sum(), float("inf"): d.max()}.get(p, (d**p).sum() ** (1 / p) if p else None)
        np.testing.assert_allclose(
            _np(torch.dist(_t(a, dtype, device), _t(b, dtype, device), p)), ref, rtol=1e-5
        )
    # an integer difference is refused, as PyTorch's norm does; a float one on either side computes
    with pytest.raises(
        NotImplementedError,
        match="norm\\(\\): input dtype should be either floating point or complex. Got Long instead.",
    ):
        torch.dist(torch.tensor([1, 2, 3]), torch.zeros(3, dtype=torch.int64))
    assert torch.dist(torch.tensor([1, 2, 3]), torch.zeros(3)).dtype == torch.float32
    with pytest.raises(RuntimeError, match="renorm: non-positive-norm not supported"):
        torch.ones(2, 3).renorm(-1, 0, 1)
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        torch.ones(3).renorm(2, 0, 1)
    with pytest.raises(RuntimeError, match="renorm: expected maxnorm to be >= 0 but got -1"):
        torch.ones(2, 3).renorm(2, 0, -1)


def test_renorm_grad():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda a: a.renorm(2, 0, 0.5), (x,))
    assert gradcheck(
        lambda a, b: torch.dist(a, b, 3), (x, torch.randn(4, dtype=torch.float64, requires_grad=True))
    )
    # dist's direct call of the norm kernel (a real order, a non-empty difference) and vector_norm's path
    y = torch.randn(4, dtype=torch.float64, requires_grad=True)
    for p in (2, 0.5, 1, float("inf"), -2.0, True, torch.tensor(3.0)):
        assert gradcheck(lambda a, b, p=p: torch.dist(a, b, p), (x, y)), p
    assert torch.dist(torch.ones(0), torch.ones(0)).item() == 0.0
    with pytest.raises(RuntimeError, match="cannot compute the -inf norm on an empty tensor"):
        torch.dist(torch.ones(0), torch.ones(0), float("-inf"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cov_corrcoef(device, dtype):
    rng = np.random.default_rng(5)
    a = rng.integers(-5, 6, (3, 7)).astype(np.float64)
    fw = rng.integers(0, 4, 7)
    aw = rng.random(7)
    X = _t(a, dtype, device)
    rtol = 1e-5
    np.testing.assert_allclose(_np(torch.cov(X)), np.cov(a), rtol=rtol)
    np.testing.assert_allclose(_np(X.cov(correction=0)), np.cov(a, ddof=0), rtol=rtol)
    np.testing.assert_allclose(
        _np(torch.cov(X, fweights=_t(fw, torch.int64, device))), np.cov(a, fweights=fw), rtol=rtol
    )
    np.testing.assert_allclose(
        _np(torch.cov(X, aweights=_t(aw, torch.float64, device), fweights=_t(fw, torch.int64, device))),
        np.cov(a, fweights=fw, aweights=aw),
        rtol=rtol,
    )
    np.testing.assert_allclose(_np(torch.cov(X.t().contiguous().t()[0])), np.cov(a[0]), rtol=rtol)
    np.testing.assert_allclose(_np(torch.corrcoef(X)), np.corrcoef(a), rtol=rtol, atol=1e-6)
    np.testing.assert_allclose(_np(X.corrcoef()), np.corrcoef(a), rtol=rtol, atol=1e-6)
    assert torch.cov(X).dtype == (torch.float32 if dtype == torch.int64 else dtype)


def test_cov_errors_and_grad():
    x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(
        lambda a: torch.cov(a, aweights=torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)), (x,)
    )
    assert gradcheck(torch.corrcoef, (x,))
    with pytest.raises(
        RuntimeError, match="expected input to have two or fewer dimensions but got an input with 3"
    ):
        torch.cov(torch.ones(2, 2, 2))
    with pytest.raises(
        RuntimeError, match="expected fweights to have integral dtype but got fweights with Float"
    ):
        torch.cov(x, fweights=torch.ones(3))
    with pytest.raises(RuntimeError, match=r"cov\(\): fweights cannot be negative"):
        torch.cov(x, fweights=torch.tensor([1, -2, 3]))
    with pytest.raises(RuntimeError, match=r"cov\(\): aweights cannot be negative"):
        torch.cov(x, aweights=torch.tensor([1, -2, 3.0]))
    with pytest.raises(
        RuntimeError, match="same numel as there are observations in the input but got 2 != 3"
    ):
        torch.cov(x, aweights=torch.tensor([1, 2.0]))
    with pytest.raises(
        RuntimeError, match="expected aweights to have floating point dtype but got aweights with Long"
    ):
        torch.cov(x, aweights=torch.tensor([1, 2, 3]))


# ---------------------------------------------------------------- frexp / nextafter / mvlgamma


_SPECIALS = [
    0.0,
    -0.0,
    1.0,
    2.0,
    0.5,
    -1.0,
    -2.0,
    np.inf,
    -np.inf,
    1e-45,
    -1e-45,
    2.0**-126,
    2.0**-1022,
    5e-324,
]


@pytest.mark.parametrize(
    "dtype, ndt", [(torch.float32, np.float32), (torch.float64, np.float64), (torch.float16, np.float16)]
)
def test_frexp_nextafter(device, dtype, ndt):
    rng = np.random.default_rng(6)
    with np.errstate(over="ignore"):
        a = np.concatenate([rng.standard_normal(300) * 10.0 ** rng.integers(-40, 38, 300), _SPECIALS]).astype(
            ndt
        )
    b = np.concatenate([rng.standard_normal(300), [1, 1, 0, 3, -1, 0, 0, 0, 0, 0, 0, 0, 0, 1]]).astype(ndt)
    A, B = _t(a, dtype, device), _t(b, dtype, device)
    got = np.array(torch.nextafter(A, B).cpu().tolist(), dtype=ndt)
    assert np.array_equal(got, np.nextafter(a, b))
    m, e = torch.frexp(A)
    rm, re = np.frexp(a)
    fin = np.isfinite(a)
    assert e.dtype == torch.int32 and m.dtype == dtype
    assert np.array_equal(np.array(m.cpu().tolist(), dtype=ndt)[fin], rm[fin])
    assert np.array_equal(_np(e)[fin], re[fin])
    r = torch.frexp(A[:5])
    assert r.mantissa is r[0] and r.exponent is r[1]
    x = A.clone()
    assert x.nextafter_(B) is x
    assert np.array_equal(np.array(x.cpu().tolist(), dtype=ndt), np.nextafter(a, b))
    assert math.isnan(
        torch.nextafter(torch.tensor([float("nan")], dtype=dtype), torch.tensor([1.0], dtype=dtype)).item()
    )
    # both are computed on the bits: the largest finite steps to inf and back, subnormals keep their exponents,
    # a broadcast and a transposed operand read the right elements
    big = np.finfo(ndt).max
    edge = np.array([big, -big, np.inf, -np.inf, np.finfo(ndt).smallest_subnormal], dtype=ndt)
    toward = np.array([np.inf, -np.inf, 0, 0, 1], dtype=ndt)
    got = np.array(
        torch.nextafter(_t(edge, dtype, device), _t(toward, dtype, device)).cpu().tolist(), dtype=ndt
    )
    with np.errstate(over="ignore"):
        assert np.array_equal(got, np.nextafter(edge, toward))
    sq = a[:16].reshape(4, 4)
    T = _t(sq, dtype, device).t()
    got = np.array(torch.nextafter(T, _t(b[:4], dtype, device)).cpu().tolist(), dtype=ndt)
    assert np.array_equal(got, np.nextafter(sq.T, b[:4]))
    m, e = torch.frexp(T)
    fin = np.isfinite(sq.T)
    assert np.array_equal(np.array(m.cpu().tolist(), dtype=ndt)[fin], np.frexp(sq.T)[0][fin])
    assert np.array_equal(_np(e)[fin], np.frexp(sq.T)[1][fin])
    with pytest.raises(RuntimeError, match=r"torch.frexp\(\) only supports floating-point dtypes"):
        torch.frexp(torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="\"nextafter_cpu\" not implemented for 'Long'"):
        torch.nextafter(torch.tensor([1, 2]), torch.tensor([1, 2]))


def test_mvlgamma(device):
    a = np.array([1.5, 2.0, 3.7, 10.0])
    for p in (1, 2, 3):
        ref = p * (p - 1) / 4 * math.log(math.pi) + sum(
            np.vectorize(math.lgamma)(a - i / 2) for i in range(p)
        )
        np.testing.assert_allclose(_np(torch.mvlgamma(_t(a, torch.float64, device), p)), ref, rtol=1e-10)
        x = _t(a, torch.float64, device)
        assert x.mvlgamma_(p) is x
        np.testing.assert_allclose(_np(x), ref, rtol=1e-10)
    # small p sums one lgamma per term, large p reduces the stacked terms: both against the float64 formula
    b = np.array([5.3, 7.1, 12.0])
    for p in (8, 9):
        ref = p * (p - 1) / 4 * math.log(math.pi) + sum(
            np.vectorize(math.lgamma)(b - i / 2) for i in range(p)
        )
        np.testing.assert_allclose(_np(torch.mvlgamma(_t(b, torch.float64, device), p)), ref, rtol=1e-10)
    ints = torch.mvlgamma(torch.tensor([2, 3], device=device), 1)  # an integer input computes in float32
    assert ints.dtype == torch.float32
    np.testing.assert_allclose(_np(ints), [0.0, math.log(2.0)], atol=1e-6)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        torch.mvlgamma(torch.ones(2), 0)
    x = torch.tensor([2.5, 3.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.mvlgamma(2), (x,))


def test_conj_bits(device):
    x = torch.ones(3, device=device)
    assert x.conj() is x and torch.conj(x) is x and x.resolve_conj() is x and torch.resolve_neg(x) is x
    assert not x.is_conj() and not torch.is_neg(x) and not torch.is_conj(x) and not x.is_neg()


# ---------------------------------------------------------------- shifts


@pytest.mark.parametrize(
    "dtype, ndt",
    [(torch.int64, np.int64), (torch.int32, np.int32), (torch.int8, np.int8), (torch.uint8, np.uint8)],
)
def test_shifts(device, dtype, ndt):
    bits = np.iinfo(ndt).bits
    rng = np.random.default_rng(7)
    info = np.iinfo(ndt)
    a = rng.integers(info.min, info.max, 200, dtype=ndt, endpoint=True)
    s = rng.integers(0, bits, 200).astype(ndt)
    A, S = _t(a, dtype, device), _t(s, dtype, device)
    with np.errstate(all="ignore"):
        assert np.array_equal(_np(A << S).astype(ndt), np.left_shift(a, s))
        assert np.array_equal(_np(A >> S).astype(ndt), np.right_shift(a, s))
        assert np.array_equal(_np(torch.bitwise_left_shift(A, 3)).astype(ndt), np.left_shift(a, ndt(3)))
        assert np.array_equal(_np(A[::2].bitwise_right_shift(2)).astype(ndt), np.right_shift(a[::2], ndt(2)))
    # shifts at or past the width: left gives 0, right the sign fill
    big = torch.tensor([bits, bits + 5], dtype=dtype, device=device)
    v = torch.tensor([-3 if info.min < 0 else 200, 5], dtype=dtype, device=device)
    assert (v << big).tolist() == [0, 0]
    assert (v >> big).tolist() == ([-1, 0] if info.min < 0 else [0, 0])
    x = A.clone()
    x <<= 1
    y = A.clone()
    assert y.bitwise_right_shift_(1) is y
    with np.errstate(all="ignore"):
        assert np.array_equal(_np(x).astype(ndt), np.left_shift(a, ndt(1)))
        assert np.array_equal(_np(y).astype(ndt), np.right_shift(a, ndt(1)))


def test_shift_misc():
    assert (3 << torch.tensor([1, 2])).tolist() == [6, 12]
    assert (64 >> torch.tensor([1, 2])).tolist() == [32, 16]
    assert (torch.tensor([1], dtype=torch.int32) << torch.tensor([2])).dtype == torch.int64
    assert (torch.tensor([-8]) << torch.tensor([-1])).tolist() == [0]
    assert (torch.tensor([-8]) >> torch.tensor([-1])).tolist() == [-1]
    assert torch.tensor([2, 4]).bitwise_left_shift(torch.zeros(0, dtype=torch.int64).view(0, 1)).shape == (
        0,
        2,
    )
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Float'"):
        torch.tensor([1.0]) << 1
    with pytest.raises(NotImplementedError, match="\"rshift_cpu\" not implemented for 'Float'"):
        torch.tensor([1]) >> 1.5


def test_shift_kernel_dtypes_out_and_refusals(device):
    """the shifts as PyTorch's kernels (ops.schema rows): int16 too, a uint8 amount of 128 or more reads as
    negative, no bool, out= with the usual cast rule, the parser's three signatures"""
    a = torch.tensor([[-300, 7], [1, -1]], dtype=torch.int16, device=device)
    s = torch.tensor([[2, 15], [16, 3]], dtype=torch.int16, device=device)
    assert (a << s).tolist() == [[-1200, -32768], [0, -8]]
    assert (a >> s).tolist() == [[-75, 0], [0, -1]]
    assert (a.t() << s.t()).tolist() == [[-1200, 0], [-32768, -8]]  # strided operands
    u = torch.tensor([255, 255, 3], dtype=torch.uint8, device=device)
    amt = torch.tensor([1, 130, 7], dtype=torch.uint8, device=device)
    assert (u << amt).tolist() == [254, 0, 128] and (u >> amt).tolist() == [127, 0, 0]
    for op, name in ((torch.bitwise_left_shift, "lshift"), (torch.bitwise_right_shift, "rshift")):
        kernel = f"{name}_{'cuda' if torch.device(device).type == 'cuda' else 'cpu'}"
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Bool'$"):
            op(torch.tensor([True], device=device), torch.tensor([True], device=device))
        assert op(torch.tensor([True], device=device), 1).dtype == torch.int64  # a Python int promotes bool
        o = torch.empty(2, device=device)
        assert op(torch.tensor([1, 8], device=device), 2, out=o) is o and o.dtype == torch.float32
        with pytest.raises(
            TypeError, match=r"received an invalid combination of arguments - got \(float, bool\)"
        ):
            op(0.5, True)
    assert torch.bitwise_left_shift(3, torch.tensor([1, 2], dtype=torch.uint8, device=device)).tolist() == [
        6,
        12,
    ]
    # the cast into the written tensor is checked before the kernel's dtype, as PyTorch's TensorIterator
    five, one = torch.tensor([5], device=device), torch.tensor([1.0], device=device)
    cast = "result type Float can't be cast to the desired output type Long"
    for name in ("bitwise_left_shift", "bitwise_right_shift", "bitwise_and", "bitwise_xor"):
        with pytest.raises(RuntimeError, match=cast):
            getattr(five.clone(), name + "_")(one)
        with pytest.raises(RuntimeError, match=cast):
            getattr(torch, name)(five, one, out=torch.empty(1, dtype=torch.int64, device=device))
    assert (3 << torch.tensor(1, device=device)).tolist() == 6 and torch.bitwise_left_shift(
        2, torch.tensor(1)
    ) == 4
    with pytest.raises(TypeError):
        torch.tensor([5], device=device) << "a"


@pytest.mark.parametrize(
    "dtype, ndt, sdt",
    [(torch.uint8, np.uint8, np.int8), (torch.int8, np.int8, np.int8), (torch.int16, np.int16, np.int16)],
)
def test_shifts_every_amount(device, dtype, ndt, sdt):
    """every value against every amount (8-bit types; int16: every amount, sampled values), dense and strided,
    against PyTorch's rule in int64: the amount read as signed, a left shift by a negative amount or the width
    or more gives 0, a right one shifts by the sign's position (the CPU's 8- and 16-bit barrel shifter)"""
    info, bits = np.iinfo(ndt), np.iinfo(ndt).bits
    every = np.arange(info.min, info.max + 1, dtype=np.int64)
    if bits == 8:
        a, b = (g.ravel() for g in np.meshgrid(every, every))
    else:
        vals = np.concatenate([np.random.default_rng(3).choice(every, 300), [info.min, info.max, 0, 1, -1]])
        a, b = (g.ravel() for g in np.meshgrid(vals, np.arange(-40, 41)))
    a, b = a.astype(ndt), b.astype(ndt)
    sb = b.astype(sdt).astype(np.int64)  # the amount read as signed
    out_of_range = (sb < 0) | (sb >= bits)
    left = np.where(out_of_range, 0, a.astype(np.int64) << np.clip(sb, 0, bits - 1)).astype(ndt)
    top = bits - 1 if info.min < 0 else bits
    right = (a.astype(np.int64) >> np.where((sb < 0) | (sb >= top), top, sb)).astype(ndt)
    A, B = _t(a, dtype, device), _t(b, dtype, device)
    assert np.array_equal(_np(A << B).astype(ndt), left)
    assert np.array_equal(_np(A >> B).astype(ndt), right)
    # strided operands (the TensorIter's generic loop) and a one-value amount
    assert np.array_equal(_np(A[::3] << B[::3]).astype(ndt), left[::3])
    assert np.array_equal(_np(A[1::3] >> B[1::3]).astype(ndt), right[1::3])
    one = b == b[5]
    A1 = _t(a[one], dtype, device)
    assert np.array_equal(_np(A1 << B[5]).astype(ndt), left[one])
    assert np.array_equal(_np(A1 >> B[5:6]).astype(ndt), right[one])


def test_int16_shifts_every_amount_on_every_path(device):
    """int16 << and >> over all 65536 amounts (the CPU's AVX2 lanes read the whole 16 bits: 259 is not 3),
    against PyTorch's rule in int64, on each of the kernel's paths: dense, either operand one broadcast value,
    every tail length, in place and into the amount, a transposed view, no elements"""
    rng = np.random.default_rng(11)
    every = np.arange(-32768, 32768, dtype=np.int64)
    b = np.tile(every, 3)
    a = rng.integers(-32768, 32768, b.size)
    a[: 3 * 8] = np.repeat([-32768, 32767, 0, 1, -1, -2, 16384, -16385], 3)

    def left(x, s):
        return np.where((s < 0) | (s >= 16), 0, x << np.clip(s, 0, 15)).astype(np.int16)

    def right(x, s):
        return (x >> np.where((s < 0) | (s >= 15), 15, s)).astype(np.int16)

    def t(v):
        return torch.from_numpy(np.ascontiguousarray(v, dtype=np.int16)).to(device)

    A, B = t(a), t(b)
    assert np.array_equal(_np(A << B), left(a, b))
    assert np.array_equal(_np(A >> B), right(a, b))
    for n in range(50):  # every tail length beside whole vectors
        assert np.array_equal(_np(A[1 : 1 + n] << B[7 : 7 + n]), left(a[1 : 1 + n], b[7 : 7 + n]))
        assert np.array_equal(_np(A[1 : 1 + n] >> B[7 : 7 + n]), right(a[1 : 1 + n], b[7 : 7 + n]))
    # one value as either operand (a 0-dim tensor, a broadcast [1]): amounts 3, 259, 16, -1, -32768
    for k in (32768 + 3, 32768 + 259, 32768 + 16, 32767, 0):
        assert np.array_equal(_np(A << B[k]), left(a, b[k]))
        assert np.array_equal(_np(A[k : k + 1] >> B), right(a[k], b))
        assert np.array_equal(_np(torch.bitwise_left_shift(A[k], B)), left(a[k], b))
    C = A.clone()
    C <<= B
    assert np.array_equal(_np(C), left(a, b))
    D = B.clone()
    assert torch.bitwise_right_shift(A, D, out=D) is D
    assert np.array_equal(_np(D), right(a, b))
    A2, B2 = A[: 300 * 256].reshape(300, 256), B[: 300 * 256].reshape(256, 300)
    want = left(a[: 300 * 256].reshape(300, 256), b[: 300 * 256].reshape(256, 300).T)
    assert np.array_equal(_np(A2 << B2.t()), want)
    e = torch.empty(0, 5, dtype=torch.int16, device=device)
    assert (e << e).shape == (0, 5) and (e >> e[:, :1]).shape == (0, 5)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_extreme_gradients(reduce, include_self, device):
    """amax/amin (the scatter kernel's extreme modes): gradcheck away from ties, and PyTorch's even split of the
    gradient among tied values (input's included when include_self)."""
    x = torch.randn(4, 3, dtype=torch.float64, device=device, requires_grad=True)
    src = torch.randn(5, 3, dtype=torch.float64, device=device, requires_grad=True)
    idx = torch.tensor([[0, 1, 2], [0, 1, 3], [3, 3, 3], [1, 0, 0], [2, 2, 2]], device=device)
    assert gradcheck(lambda a, b: a.scatter_reduce(0, idx, b, reduce, include_self=include_self), (x, src))
    # ties: position 0 gets 5.0 from input and twice from src; each of the three takes a third
    a = torch.tensor([5.0, 1.0], dtype=torch.float64, device=device, requires_grad=True)
    b = torch.tensor([5.0, 5.0, -9.0], dtype=torch.float64, device=device, requires_grad=True)
    i = torch.tensor([0, 0, 1], device=device)
    sign = 1.0 if reduce == "amax" else -1.0
    out = (a * sign).scatter_reduce(0, i, b * sign, reduce, include_self=include_self)
    out.sum().backward()
    # amin of the negated values mirrors amax: the same shares, times the sign of the negation.
    # Input's 5.0 equals the result in both cases, so it counts toward the three ways (PyTorch's rule); at
    # position 1 the result is input's 1.0 with include_self, else src's -9.0
    share = 1 / 3
    want_a = [share if include_self else 0.0, 1.0 if include_self else 0.0]
    want_b = [share, share, 0.0 if include_self else 1.0]
    np.testing.assert_allclose(_np(a.grad), [sign * v for v in want_a])
    np.testing.assert_allclose(_np(b.grad), [sign * v for v in want_b])


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.float16, torch.bool])
def test_scatter_reduce_extreme_dtypes_and_larger_src(dtype, device):
    rng = np.random.default_rng(4)
    base = rng.integers(0, 50, (6, 4))
    srcv = rng.integers(0, 50, (9, 5))  # larger than index in both dims: the extra elements take no part
    idxv = rng.integers(0, 6, (7, 4))
    x = torch.tensor(base, device=device).to(dtype)
    src = torch.tensor(srcv, device=device).to(dtype)
    idx = torch.tensor(idxv, device=device)
    for reduce in ("amax", "amin"):
        for include_self in (True, False):
            got = x.scatter_reduce(0, idx, src, reduce, include_self=include_self)
            ref = _np_scatter_reduce(
                _np(x).astype(np.float64), 0, idxv, _np(src)[:7, :4].astype(np.float64), reduce, include_self
            )
            np.testing.assert_array_equal(_np(got).astype(np.float64), ref)
            assert got.dtype == dtype
