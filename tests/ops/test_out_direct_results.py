"""out= of clamp/clip/clamp_min/clamp_max, lerp, addcmul/addcdiv, take and the reductions along dims (sum, mean,
prod, amax, amin, logsumexp, var, std, nansum): the kernel writes into an out of the result's shape and dtype (bind_out.cpp's
try_direct_result, _composite_math.py's _addc), any other out takes the general path (resize with its warning,
dtype rules, copy); and the out= of index_add and diag (PyTorch takes it, ours raised TypeError)."""

import warnings

import numpy as np
import pytest
from utils import TOL, to_np

import minitorch
from tests.utils import cases_here_and_in_pytorch

_rng = np.random.default_rng(7)
X, Y = _rng.standard_normal((5, 6)), _rng.standard_normal((5, 6))
W = _rng.uniform(0.1, 0.9, (5, 6))  # lerp's weight, and addcdiv's divisor (away from zero)
I = np.array([[0, 29, -1], [7, 3, -30]])  # take's flat indices, negatives from the end


def _logsumexp(a, axis):
    return np.log(np.exp(a).sum(axis))


# (name, call over x, y, w [5, 6] and int64 index i [2, 3] with out, NumPy reference over the float64 arrays,
# whether out= of any layout is written by the kernel: the TensorIter ops take out's strides, the others a
# contiguous out only)
CASES = [
    ("clamp numbers", lambda T, x, y, w, i, o: T.clamp(x, -0.5, 0.7, out=o), lambda x, y, w, i: np.clip(x, -0.5, 0.7), True),
    ("clamp min=", lambda T, x, y, w, i, o: T.clamp(x, min=-0.2, out=o), lambda x, y, w, i: np.maximum(x, -0.2), True),
    ("clamp max= int", lambda T, x, y, w, i, o: T.clamp(x, max=0, out=o), lambda x, y, w, i: np.minimum(x, 0), True),
    ("clip tensors", lambda T, x, y, w, i, o: T.clip(x, y - 1, y + 1, out=o), lambda x, y, w, i: np.minimum(np.maximum(x, y - 1), y + 1), True),
    ("clip row bound", lambda T, x, y, w, i, o: T.clip(x, max=y[0], out=o), lambda x, y, w, i: np.minimum(x, y[0]), True),
    ("clamp_min", lambda T, x, y, w, i, o: T.clamp_min(x, 0.1, out=o), lambda x, y, w, i: np.maximum(x, 0.1), True),
    ("clamp_max tensor", lambda T, x, y, w, i, o: T.clamp_max(x, y, out=o), lambda x, y, w, i: np.minimum(x, y), True),
    ("lerp number", lambda T, x, y, w, i, o: T.lerp(x, y, 0.3, out=o), lambda x, y, w, i: x + 0.3 * (y - x), True),
    ("lerp tensor", lambda T, x, y, w, i, o: T.lerp(x, y, w, out=o), lambda x, y, w, i: x + w * (y - x), True),
    ("lerp of x.t()", lambda T, x, y, w, i, o: T.lerp(x.t(), y.t(), 0.8, out=o), lambda x, y, w, i: y.T - 0.2 * (y.T - x.T), True),
    ("addcmul", lambda T, x, y, w, i, o: T.addcmul(x, y, w, value=0.5, out=o), lambda x, y, w, i: x + 0.5 * y * w, True),
    ("addcdiv", lambda T, x, y, w, i, o: T.addcdiv(x, y, w, value=-2, out=o), lambda x, y, w, i: x - 2 * y / w, True),
    ("take", lambda T, x, y, w, i, o: T.take(x, i, out=o), lambda x, y, w, i: np.take(x, i), False),
    ("take non-negative", lambda T, x, y, w, i, o: T.take(x, i.remainder(30), out=o), lambda x, y, w, i: np.take(x, np.mod(i, 30)), False),
    ("take of x.t()", lambda T, x, y, w, i, o: T.take(x.t(), i, out=o), lambda x, y, w, i: np.take(x.T, i), False),
    ("sum 0", lambda T, x, y, w, i, o: T.sum(x, 0, out=o), lambda x, y, w, i: x.sum(0), False),
    ("sum (0, 1) keepdim", lambda T, x, y, w, i, o: T.sum(x, (0, 1), True, out=o), lambda x, y, w, i: x.sum((0, 1), keepdims=True), False),
    ("sum dim= of x.t()", lambda T, x, y, w, i, o: T.sum(x.t(), dim=1, out=o), lambda x, y, w, i: x.T.sum(1), False),
    ("mean 1 keepdim", lambda T, x, y, w, i, o: T.mean(x, 1, keepdim=True, out=o), lambda x, y, w, i: x.mean(1, keepdims=True), False),
    ("prod -1", lambda T, x, y, w, i, o: T.prod(x, -1, out=o), lambda x, y, w, i: x.prod(-1), False),
    ("amax 0", lambda T, x, y, w, i, o: T.amax(x, 0, out=o), lambda x, y, w, i: x.max(0), False),
    ("amin [1]", lambda T, x, y, w, i, o: T.amin(x, [1], out=o), lambda x, y, w, i: x.min(1), False),
    ("logsumexp 1", lambda T, x, y, w, i, o: T.logsumexp(x, 1, out=o), lambda x, y, w, i: _logsumexp(x, 1), False),
    ("var 1", lambda T, x, y, w, i, o: T.var(x, 1, out=o), lambda x, y, w, i: x.var(1, ddof=1), False),
    ("std 0 unbiased keepdim", lambda T, x, y, w, i, o: T.std(x, 0, False, True, out=o), lambda x, y, w, i: x.std(0, keepdims=True), False),
    ("var correction= (0, 1) keepdim", lambda T, x, y, w, i, o: T.var(x, (0, 1), correction=2.5, keepdim=True, out=o), lambda x, y, w, i: x.var(ddof=2.5, keepdims=True), False),
    ("std dim= of x.t()", lambda T, x, y, w, i, o: T.std(x.t(), dim=1, keepdim=False, out=o), lambda x, y, w, i: x.T.std(1, ddof=1), False),
    ("nansum 1", lambda T, x, y, w, i, o: T.nansum(x.log(), 1, out=o), lambda x, y, w, i: np.nansum(np.log(np.where(x > 0, x, np.nan)), 1), False),
    ("nansum keepdim", lambda T, x, y, w, i, o: T.nansum(x, 0, keepdim=True, out=o), lambda x, y, w, i: x.sum(0, keepdims=True), False),
]  # fmt: skip
IDS = [c[0] for c in CASES]


def _inputs(dtype, device="cpu"):
    def t(a):
        return minitorch.tensor(a, dtype=dtype, device=device)

    return t(X), t(Y), t(W), minitorch.tensor(I, device=device)


def _count(fn):
    return minitorch._C._count_cpu_allocations(fn)


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64], ids=str)
@pytest.mark.parametrize("name,call,ref,strided", CASES, ids=IDS)
def test_direct_values_and_layouts(name, call, ref, strided, dtype):
    x, y, w, i = _inputs(dtype)
    want = ref(X, Y, W, I)
    plain = call(minitorch, x, y, w, i, None)  # out=None: the plain call
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(to_np(plain), want, rtol=rtol, atol=atol)

    def filled(shape):
        return minitorch.full(shape, 7.0, dtype=dtype)

    n = len(want.shape)
    layouts = [
        ("contiguous", filled),
        ("transposed", lambda s: filled(s[::-1]).permute(*range(n - 1, -1, -1))),
        ("column slice", lambda s: filled(s[:-1] + (s[-1] + 2,))[..., 1:-1]),
        ("empty", lambda s: minitorch.empty(0, dtype=dtype)),
    ]
    plain_allocs = _count(lambda: call(minitorch, x, y, w, i, None))
    for layout, make in layouts:
        out = make(want.shape)
        direct = layout != "empty" and (strided or out.is_contiguous())
        ptr, version = out.data_ptr(), out._version
        got = []
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the right shape, or empty: no resize warning
            allocs = _count(lambda: got.append(call(minitorch, x, y, w, i, out)))  # noqa: B023
        assert got[0] is out and out._version > version, layout
        # the kernel's own values: what the plain call gives, bit for bit
        assert to_np(out).tolist() == to_np(plain).tolist(), layout
        if direct:
            # written where out lies, and the one block the plain call takes for its result never made
            assert out.data_ptr() == ptr and allocs == plain_allocs - 1, (layout, allocs, plain_allocs)
        elif layout != "empty":
            assert allocs >= plain_allocs, (layout, allocs, plain_allocs)  # a temporary copied in
    # a wider buffer's columns around the slice it gave as out are left alone
    if n == 2:
        buf = filled((want.shape[0], want.shape[1] + 2))
        call(minitorch, x, y, w, i, buf[:, 1:-1])
        assert (to_np(buf[:, 0]) == 7).all() and (to_np(buf[:, -1]) == 7).all()
        np.testing.assert_allclose(to_np(buf[:, 1:-1]), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,call,ref,strided", CASES, ids=IDS)
def test_direct_rules(name, call, ref, strided):
    x, y, w, i = _inputs(minitorch.float32)
    plain = call(minitorch, x, y, w, i, None)
    # another shape with elements: resized, with PyTorch's warning, then written
    out = minitorch.full((2,), 7.0)
    with pytest.warns(UserWarning, match=r"was resized since it had shape \[2\]"):
        assert call(minitorch, x, y, w, i, out) is out
    assert tuple(out.shape) == tuple(plain.shape) and minitorch.equal(out, plain)
    # an input that requires grad, or out: PyTorch's refusal, naming the op; out is left alone
    shown = name.split()[0].rstrip("=")
    for xg, og in (
        (x.detach().requires_grad_(), minitorch.full(plain.shape, 7.0)),
        (x, minitorch.full(plain.shape, 7.0).requires_grad_()),
    ):
        with pytest.raises(RuntimeError, match=shown + r"\(\): functions with out=\.\.\. arguments don't"):
            call(minitorch, xg, y, w, i, og)
        assert (to_np(og) == 7).all()
    # under no_grad a graph input is fine (the general path: computed, then copied in)
    out = minitorch.full(plain.shape, 7.0)
    with minitorch.no_grad():
        call(minitorch, x.detach().requires_grad_(), y, w, i, out)
    assert minitorch.equal(out, plain)
    # out is an input: computed first, then written (the general path's copy)
    if tuple(plain.shape) == tuple(x.shape):
        z = x.clone()
        assert call(minitorch, z, y, w, i, z) is z and minitorch.equal(z, plain)


def test_direct_dtypes_of_the_ops():
    # every dtype each op takes: the direct write equals the plain call (out of the plain result's dtype)
    ops = {
        "clamp": (lambda x, o: minitorch.clamp(x, 1, 3, out=o), ["int", "float", "half"]),
        "clamp tensor": (
            lambda x, o: minitorch.clamp(x, min=x.flip(0), out=o),
            ["int", "float", "half", "bool"],
        ),
        "lerp": (lambda x, o: minitorch.lerp(x, x.flip(0), 0.25, out=o), ["float", "half"]),
        "take": (
            lambda x, o: minitorch.take(x, minitorch.tensor([3, 0, -1]), out=o),
            ["int", "float", "half", "bool"],
        ),
        "sum": (lambda x, o: minitorch.sum(x, 0, out=o), ["int", "float", "half", "bool"]),
        "prod": (lambda x, o: minitorch.prod(x, 1, out=o), ["int", "float", "half", "bool"]),
        "mean": (lambda x, o: minitorch.mean(x, 1, out=o), ["float", "half"]),
        "amax": (lambda x, o: minitorch.amax(x, 0, out=o), ["int", "float", "half", "bool"]),
        "amin": (lambda x, o: minitorch.amin(x, 1, True, out=o), ["int", "float", "half", "bool"]),
        "logsumexp": (lambda x, o: minitorch.logsumexp(x, 1, out=o), ["float", "half", "int"]),
        "var": (lambda x, o: minitorch.var(x, 1, out=o), ["float", "half"]),
        "std": (lambda x, o: minitorch.std(x, 0, correction=0, out=o), ["float", "half"]),
        "nansum": (lambda x, o: minitorch.nansum(x, 1, out=o), ["int", "float", "half", "bool"]),
    }
    kinds = {
        "int": [minitorch.int64, minitorch.int32, minitorch.int16, minitorch.int8, minitorch.uint8],
        "float": [minitorch.float32, minitorch.float64],
        "half": [minitorch.float16, minitorch.bfloat16],
        "bool": [minitorch.bool],
    }
    vals = np.arange(12).reshape(3, 4) % 5
    for name, (call, takes) in ops.items():
        for kind in takes:
            for dt in kinds[kind]:
                x = minitorch.tensor(vals, dtype=dt)
                plain = call(x, None)
                out = minitorch.full(plain.shape, 9, dtype=plain.dtype)
                ptr = out.data_ptr()
                assert call(x, out) is out and out.data_ptr() == ptr, (name, dt)
                assert to_np(out).tolist() == to_np(plain).tolist(), (name, dt)


def test_direct_empty_inputs():
    e = minitorch.ones(0, 6)
    for call, fill in (
        (lambda o: minitorch.sum(e, 0, out=o), 0.0),
        (lambda o: minitorch.prod(e, 0, out=o), 1.0),
        (lambda o: minitorch.logsumexp(e, 0, out=o), -np.inf),
    ):
        out = minitorch.full((6,), 7.0)
        ptr = out.data_ptr()
        assert call(out) is out and out.data_ptr() == ptr
        assert (to_np(out) == fill).all()
    out = minitorch.full((6,), 7.0)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 0 to have non-zero size"):
        minitorch.amax(e, 0, out=out)
    mean = minitorch.mean(e, 0, out=out)
    assert mean is out and np.isnan(to_np(out)).all()
    # an empty result: out resized to it (no warning for an empty out), nothing written
    for call in (
        lambda o: minitorch.sum(e, 1, out=o),
        lambda o: minitorch.clamp(e, 0, 1, out=o),
        lambda o: minitorch.take(e, minitorch.tensor([], dtype=minitorch.int64), out=o),
    ):
        out = minitorch.empty(0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert call(out) is out
        assert out.numel() == 0


def test_direct_forms_left_to_the_general_path():
    # forms the direct path does not read give the plain call's values all the same
    x, y, _, _ = _inputs(minitorch.float64)
    for call in (
        lambda o: minitorch.clamp(x, y[0, 0], 0.5, out=o),  # a 0-dim tensor beside a number
        lambda o: minitorch.clamp(x, True, out=o),
        lambda o: minitorch.sum(x, 0, dtype=minitorch.float32, out=o),
        lambda o: minitorch.sum(x, [], out=o),
        lambda o: minitorch.lerp(x, y, weight=0.5, out=o),
        lambda o: minitorch.amax(x, dim=np.int64(1), out=o),
    ):
        plain = call(None)
        out = minitorch.empty(0, dtype=plain.dtype)
        assert call(out) is out and minitorch.equal(out, plain)


def test_direct_allocation_counter_sees_a_temporary():
    # the counter the direct tests trust: the plain call's result is a block, a copy into out one more
    x = minitorch.ones(4, 4)
    assert _count(lambda: minitorch.sum(x, 0)) == 1
    # another dtype: PyTorch's sum_out reduces in out's dtype, so the input cast to it and the result are two
    out = minitorch.empty(4, dtype=minitorch.float64)
    assert _count(lambda: minitorch.sum(x, 0, out=out)) == 2
    assert _count(lambda: minitorch.sum(x, 0, out=minitorch.empty(4))) == 1  # out's own block
    with pytest.raises(RuntimeError, match="already counting"):
        _count(lambda: _count(lambda: None))
    assert _count(lambda: minitorch.sum(x, 0)) == 1  # restored after the refusal


# The errors and dtype rules beside PyTorch's where the general path already held them (out of another dtype,
# bad arguments); the direct path must keep each. Not yet PyTorch's (the general path's, left as they were):
# clamp/clip/lerp-with-a-tensor-weight's same-dtype rule ("Found dtype Double but expected Float"), sum/prod
# into an out of any dtype (computed in out's), and the partial-overlap refusal of an out sharing memory with an
# input
SOURCE = r"""
def cases(torch):
    run = runner(lambda r: [list(r.shape), str(r.dtype).split(".")[-1]])
    x = torch.arange(30.0).reshape(5, 6) / 7
    xi = torch.arange(30).reshape(5, 6)
    def o(*shape, dtype=torch.float32):
        return torch.zeros(*shape, dtype=dtype)
    y = torch.arange(7.0)
    calls = [
        lambda: torch.lerp(x, x, 0.5, out=o(5, 6, dtype=torch.int64)),
        lambda: torch.lerp(x, x, 0.5, out=o(5, 6, dtype=torch.float16)),
        lambda: torch.sum(x, 0, out=o(6, dtype=torch.float64)),
        lambda: torch.sum(xi, 0, out=o(6, dtype=torch.int32)),
        lambda: torch.mean(x, 0, out=o(6, dtype=torch.float64)),
        lambda: torch.mean(xi, 0, out=o(6)),
        lambda: torch.logsumexp(x, 0, out=o(6, dtype=torch.float64)),
        lambda: torch.logsumexp(x, 0, out=o(6, dtype=torch.int64)),
        lambda: torch.logsumexp(xi, 1, out=o(5, dtype=torch.float16)),
        lambda: torch.amax(x, 0, out=o(6, dtype=torch.float64)),
        lambda: torch.amin(xi, 1, True, out=o(5, 1)),
        lambda: torch.amax(xi, 1, out=o(5, dtype=torch.int64)),
        lambda: torch.take(x, torch.tensor([1]), out=o(1, dtype=torch.float64)),
        lambda: torch.take(xi, torch.tensor([1]), out=o(1, dtype=torch.int32)),
        lambda: torch.addcmul(x, x, x, out=o(5, 6, dtype=torch.int64)),
        lambda: torch.addcmul(x, x, x, out=o(5, 6, dtype=torch.float64)),
        lambda: torch.addcdiv(x, x, x + 1, value=2, out=o(5, 6, dtype=torch.float16)),
        lambda: torch.sum(x, 2, out=o(6)),
        lambda: torch.amax(x, (0, 0), out=o(6)),
        lambda: torch.take(x, torch.tensor([30]), out=o(1)),
        lambda: torch.take(x, torch.tensor([3, -31, 40]), out=o(3)),
        lambda: torch.take(x, torch.tensor([1.0]), out=o(1)),
        lambda: torch.clamp(x, out=o(5, 6)),
        lambda: torch.lerp(x, xi, 0.5, out=o(5, 6)),
        lambda: torch.take(x, torch.tensor([0]), out=3),
        lambda: torch.sum(x, 1, out=x[0, :5]),
        lambda: torch.var(x, 1, out=o(5, dtype=torch.int64)),
        lambda: torch.std(x, 1, out=o(5, dtype=torch.float64)),
        lambda: torch.std(x.double(), 1, out=o(5, dtype=torch.float16)),
        lambda: torch.var(xi, 1, out=o(5)),
        lambda: torch.std(x, 1, correction=True, out=o(5)),
        lambda: torch.std(x, 3, out=o(5)),
        lambda: torch.var(x, out=o(5)),
        lambda: torch.var(x, 1, True, True, out=o(5)),
        lambda: torch.nansum(x, 1, out=o(5, dtype=torch.int64)),
        lambda: torch.nansum(x, 5, out=o(5, dtype=torch.int64)),
        lambda: torch.nansum(x, 1, out=o(5, dtype=torch.complex64)),
        lambda: torch.nansum(x, 1, dtype=torch.float64, out=o(5)),
        lambda: torch.nansum(x, 1, dtype=torch.float32, out=o(5)),
        lambda: torch.nansum(xi, 1, out=o(5)),
        lambda: torch.nansum(xi, 1, out=o(5, dtype=torch.bool)),
        lambda: torch.nansum(xi, 1, out=o(5, dtype=torch.complex64)),
        lambda: torch.nansum(x, 1, out=o(5, dtype=torch.float16)),
        lambda: torch.nansum(x.double(), 1, out=o(5)),
        lambda: torch.nansum(x.to(torch.complex64), 1, out=o(5, dtype=torch.complex64)),
        lambda: torch.nansum(x, (0, 1), out=o(5)),
        lambda: torch.nansum(x, out=o(())),
        lambda: torch.nansum(x, 1, out=3),
        lambda: torch.var_mean(x, 1, out=(o(5), o(5))),
        lambda: torch.std_mean(x, 1, out=(o(5), o(5))),
    ]
    return [run(c) for c in calls]
"""


def test_direct_errors_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(SOURCE, [("torch", minitorch)])
    assert ours == theirs


# index_add and diag with out=: the general path (computed, then PyTorch's exact dtype rule, resize, copy)
OUT_SOURCE = r"""
def cases(torch):
    run = runner(lambda r: [list(r.shape), str(r.dtype).split(".")[-1], r.tolist()])
    x = torch.arange(12.0).reshape(3, 4)
    i, s = torch.tensor([0, 2, 0]), torch.ones(3, 4)
    calls = [
        lambda: torch.index_add(x, 0, i, s, out=torch.zeros(3, 4)),
        lambda: torch.index_add(x, 1, torch.tensor([3, 3]), s[:, :2], alpha=2, out=torch.zeros(0)),
        lambda: torch.index_add(x, 0, i, s, out=torch.zeros(3, 4, dtype=torch.float64)),
        lambda: torch.index_add(x, 0, i, s, out=torch.zeros(3, 4, dtype=torch.int64)),
        lambda: torch.index_add(x, 0, i, s.double(), out=torch.zeros(3, 4)),
        lambda: torch.index_add(x, 0, i, s, out=3),
        lambda: torch.index_add(x.requires_grad_(), 0, i, s, out=torch.zeros(3, 4)),
        lambda: x.detach().index_add(0, i, s, out=torch.zeros(3, 4)),
        lambda: torch.diag(x.detach(), out=torch.zeros(3)),
        lambda: torch.diag(x.detach(), 1, out=torch.zeros(0)),
        lambda: torch.diag(torch.arange(3), -1, out=torch.zeros(0, dtype=torch.int64)),
        lambda: torch.diag(x.detach(), out=torch.zeros(3, dtype=torch.float64)),
        lambda: torch.diag(torch.ones(2, 2, 2), out=torch.zeros(3)),
        lambda: torch.diag(x.detach(), out=3),
        lambda: torch.diag(x.detach(), diagonal=1, out=torch.zeros(3), bogus=1),
        lambda: x.detach().diag(out=torch.zeros(3)),
        lambda: torch.diag(x, out=torch.zeros(3)),  # a composite in PyTorch: out joins the graph
        lambda: torch.diag(x, out=torch.zeros(3)).requires_grad,
    ]
    return [run(c) for c in calls]
"""


def test_index_add_and_diag_out_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(OUT_SOURCE, [("torch", minitorch)])
    assert ours == theirs


def test_index_add_and_diag_out_resize_and_values():
    x = minitorch.tensor(X)
    i, s = minitorch.tensor([4, 0, 4]), minitorch.tensor(Y[:3])
    want = X.copy()
    np.add.at(want, [4, 0, 4], 2 * Y[:3])
    out = minitorch.zeros(2, dtype=minitorch.float64)
    with pytest.warns(UserWarning, match=r"was resized since it had shape \[2\]"):
        assert minitorch.index_add(x, 0, i, s, alpha=2, out=out) is out
    np.testing.assert_allclose(to_np(out), want, rtol=1e-6, atol=1e-6)
    out = minitorch.zeros(5, dtype=minitorch.float64)
    assert minitorch.diag(minitorch.tensor(X, dtype=minitorch.float64), out=out) is out
    np.testing.assert_array_equal(to_np(out), np.diag(X))
    z = x.clone()
    assert minitorch.index_add(z, 0, i, s, alpha=2, out=z) is z  # out is the input: computed first
    np.testing.assert_allclose(to_np(z), want, rtol=1e-6, atol=1e-6)
