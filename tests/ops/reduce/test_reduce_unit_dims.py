"""Reductions over dims of size 1 only (x.sum((2, 3)) of [N, C, 1, 1]: ops/reduce.cpp's unit_reduction, an
elementwise pass) against PyTorch: sum, mean, prod, amax, amin (and nansum, logsumexp, all/any, var, which keep
the kernels) of every dtype with -0.0, NaN and infinities, keepdim, dtype=, out=, transposed, sliced
and expanded inputs, empty inputs; against NumPy in float64 over the reference shapes; gradients by finite
differences; the scalar path (MINITORCH_CPU_CAPABILITY=default) in a child."""

import numpy as np
import pytest

import minitorch
from tests.utils import cases_here_and_in_pytorch, rerun_in_child, to_np


def reduce_over(op, x, dims, **kw):
    """op over dims; PyTorch's prod takes one dim, so it reduces them one at a time, the last first"""
    if op != "prod" or isinstance(dims, int):
        return getattr(minitorch, op)(x, dims, **kw)
    for d in sorted((d % x.dim() for d in dims), reverse=True):
        x = minitorch.prod(x, d, keepdim=kw.get("keepdim", False))
    return x


# Run here with minitorch and under PyTorch (the oracle): every case's result as [dtype, shape, values] (a
# complex result as its real view), an error as [type, first line of the message].
CASES = r"""
def cases(torch):
    def enc(t):
        if isinstance(t, torch.Tensor):
            v = torch.view_as_real(t) if t.is_complex() else t
            return [str(t.dtype), list(t.shape), list(t.stride()), v.tolist()]
        return t

    run = runner(enc)  # tests/utils.py's CASE_HELPERS

    out = {}
    inf, nan = float("inf"), float("nan")
    vals = [0.0, -0.0, 1.5, nan, -inf, inf, -2.25, 3.0, -0.0, 7.0, 0.5, -1.0]
    ints = [0, 1, -1, 0, 127, -128, 0, 5, 3, -7, 2, 9]
    dtypes = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
              torch.int8, torch.uint8, torch.bool, torch.complex64]
    for dt in dtypes:
        cx = dt.is_complex
        src = vals if dt.is_floating_point else ints  # complex: finite values (x / (1 + 0j) of inf is nan there)
        base = torch.tensor(src, dtype=torch.float64 if dt.is_floating_point else torch.int64)
        base = base.to(dt) + (0.5j if cx else 0)
        x = base.reshape(4, 3, 1, 1)
        xt = base.reshape(3, 4).t().reshape(4, 3, 1, 1)  # a permuted (non-contiguous) layout
        xs = base.reshape(4, 3)[:, ::2].unsqueeze(-1)  # sliced: [4, 2, 1], gapped
        xe = base[:3].reshape(1, 3, 1).expand(4, 3, 1)  # expanded: stride 0
        x0 = base[5].reshape(1, 1)
        n = str(dt)
        for op in ["sum", "mean", "prod"] + ([] if cx else ["amax", "amin", "nansum"]):
            f = getattr(torch, op)
            both = 3 if op == "prod" else (2, 3)  # PyTorch's prod takes one dim
            out[op, n, "both"] = run(lambda: f(x, both))
            out[op, n, "both keepdim"] = run(lambda: f(x, both, keepdim=True))
            out[op, n, "3 keepdim"] = run(lambda: f(x, 3, keepdim=True))
            out[op, n, "-1"] = run(lambda: f(x, -1))
            out[op, n, "t"] = run(lambda: f(xt, 3 if op == "prod" else (3, 2)))
            out[op, n, "sliced 2"] = run(lambda: f(xs, 2))
            out[op, n, "expanded 2"] = run(lambda: f(xe, 2))
            out[op, n, "[1, 1] all"] = run(lambda: f(x0) if op == "prod" else f(x0, (0, 1)))
            out[op, n, "[1, 1] 0 keepdim"] = run(lambda: f(x0, 0, keepdim=True))
            if not cx:
                out[op, n, "0-d"] = run(lambda: f(x0.reshape(()), 0))
            out[op, n, "empty"] = run(lambda: f(x[:0], both))
            out[op, n, "empty kept"] = run(lambda: f(x[:, :0], 3, keepdim=True))
        if cx:
            continue
        out["logsumexp", n] = run(lambda: torch.logsumexp(x, (2, 3)))
        out["all", n] = run(lambda: torch.all(x, 3))
        out["any keepdim", n] = run(lambda: torch.any(x, 3, keepdim=True))
        out["var", n] = run(lambda: torch.var(x, (2, 3)))
        for dtype in [torch.float64, torch.float16, torch.int32, torch.int64, torch.bool, torch.complex128]:
            out["sum dtype", n, str(dtype)] = run(lambda: torch.sum(x, (2, 3), dtype=dtype))
            out["prod dtype", n, str(dtype)] = run(lambda: torch.prod(x, 3, dtype=dtype))
            if dtype != torch.complex128:  # (inf / (1 + 0j) is nan + nan j)
                out["mean dtype", n, str(dtype)] = run(lambda: torch.mean(x, (2, 3), dtype=dtype))
        for op in ["sum", "mean", "prod", "amax"]:
            f = getattr(torch, op)
            both = 3 if op == "prod" else (2, 3)
            if op == "mean" and not dt.is_floating_point:
                continue  # (its error: above)
            wide = [torch.int64] if op in ("sum", "prod") and not dt.is_floating_point else [torch.float64]
            for odt in [f(x, both).dtype] + wide:
                for shape in [(4, 3), (2,), (4, 3, 1)]:  # the result's shape, a resize, and another rank

                    def written():
                        o = torch.full(shape, 5, dtype=odt)
                        r = f(x, both, out=o)
                        return [enc(o), r is o]

                    out[op, "out", n, str(odt), str(shape)] = run(written)
    return [[list(k) if isinstance(k, tuple) else k, v] for k, v in out.items()]
"""


def test_unit_dims_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert [k for k, _ in ours] == [k for k, _ in theirs]
    # NaN != NaN and -0.0 == 0.0 in the lists: compare their text
    bad = [(k, a, b) for (k, a), (_, b) in zip(ours, theirs) if repr(a) != repr(b)]
    assert not bad, f"{len(bad)} cases differ\n" + "\n".join(
        f"{k}: ours {a}, PyTorch {b}" for k, a, b in bad[:12]
    )


@pytest.mark.parametrize(
    "op,dtype",
    [
        (op, dt)
        for op in ["sum", "mean", "prod", "amax", "amin"]
        for dt in [minitorch.float32, minitorch.float64, minitorch.int32, minitorch.bool]
        if op != "mean" or dt.is_floating_point  # (mean of an integer is an error: the oracle test has it)
    ],
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_reference_shape_against_numpy(op, dtype, layout):
    """[64, 2048, 1, 1] over (2, 3) and [64, 2048, 1] over 2: the values of float64 NumPy (one element each, so
    exact), the result's dtype (integer and bool sums and products widen to int64) and a fresh contiguous result
    that shares no memory with the input"""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 2048)) * 4
    a[0, :5] = [-0.0, np.nan, np.inf, -np.inf, 0.0]
    x = minitorch.tensor(a).to(dtype)
    if layout == "transposed":
        x = x.t().contiguous().t()
    want = to_np(x)
    if op in ("sum", "mean") and dtype.is_floating_point:
        want = want + 0.0  # the sum's total starts at +0: -0.0 becomes +0.0, as PyTorch's
    widen = op in ("sum", "prod") and not dtype.is_floating_point
    for shape, dims in (((64, 2048, 1, 1), (2, 3)), ((64, 2048, 1), (2,))):
        xx = x.reshape(shape)
        got = reduce_over(op, xx, dims)
        assert got.dtype == (minitorch.int64 if widen else dtype)
        assert tuple(got.shape) == (64, 2048) and got.is_contiguous()
        np.testing.assert_array_equal(np.signbit(to_np(got)), np.signbit(want))
        np.testing.assert_array_equal(to_np(got), want)
        before = to_np(xx).copy()
        got.fill_(1)  # a fresh result: the input is untouched
        np.testing.assert_array_equal(to_np(xx), before)
        kept = reduce_over(op, xx, dims, keepdim=True)
        assert tuple(kept.shape) == shape
        np.testing.assert_array_equal(to_np(kept).reshape(64, 2048), want)


def test_out_is_written_and_its_version_bumped():
    """out= of the result's shape and dtype is written in place (the returned tensor is out) and its version
    moves, so a saved tensor sees the write"""
    x = minitorch.randn(8, 5, 1, 1)
    for op in ["sum", "mean", "prod", "amax", "amin"]:
        o = minitorch.empty(8, 5)
        v = o._version
        src, dims = (x.reshape(8, 5, 1), 2) if op == "prod" else (x, (2, 3))  # (prod takes one dim)
        r = getattr(minitorch, op)(src, dims, out=o)
        assert r is o and o._version > v
        np.testing.assert_array_equal(to_np(o), to_np(x).reshape(8, 5))


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin"])
def test_gradients(op):
    """the recorded backward of each op over size-1 dims (keepdim or not, a transposed input) against central
    finite differences in float64"""
    x = minitorch.randn(3, 4, 1, 1, dtype=minitorch.float64, requires_grad=True)
    f = getattr(minitorch, op)
    assert minitorch.autograd.gradcheck(lambda t: reduce_over(op, t, (2, 3)), (x,))
    assert minitorch.autograd.gradcheck(lambda t: f(t, -1, keepdim=True), (x,))
    xt = minitorch.randn(4, 3, dtype=minitorch.float64).t().unsqueeze(-1).requires_grad_()
    assert minitorch.autograd.gradcheck(lambda t: f(t, 2), (xt,))
    y = reduce_over(op, x, (2, 3))
    assert y.grad_fn is not None
    y.backward(minitorch.ones(3, 4, dtype=minitorch.float64))
    np.testing.assert_array_equal(to_np(x.grad), np.ones((3, 4, 1, 1)))


def test_default_capability():
    """the same checks at the scalar path (the elementwise kernels' baseline loops)"""
    rerun_in_child(__file__, "reference_shape or out_is_written", MINITORCH_CPU_CAPABILITY="default")
