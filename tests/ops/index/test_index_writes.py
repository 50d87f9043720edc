"""index_copy, index_fill, masked_scatter, slice_scatter (one C++ op each, ops/index.cpp) and count_nonzero
(ops/reduce.cpp) against PyTorch: values over dtypes and layouts, empty and 0-dim inputs, negative dims, the
refusals word for word, and the gradients against finite differences."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck
from tests.utils import cases_here_and_in_pytorch, to_np

# Run here with minitorch and under PyTorch (the oracle): every case's result as JSON, a tensor as
# [dtype, shape, strides, values], an error as [type, message].
CASES = r"""
def cases(torch):
    def enc(t):
        if isinstance(t, torch.Tensor):
            v = t.float() if t.dtype in (torch.float16, torch.bfloat16) else t
            return [str(t.dtype), list(t.shape), list(t.stride()), v.tolist()]
        return t

    run = runner(enc)  # tests/utils.py's CASE_HELPERS

    out = {}
    dtypes = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
              torch.uint8, torch.int8, torch.bool]
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6) % 7

    def make(shape, dt, off=0):
        n = 1
        for s in shape:
            n *= s
        return ((torch.arange(n, dtype=torch.float64) * 3 + off) % 5).reshape(shape).to(dt)

    for dt in dtypes:
        x = base.to(dt)
        name = str(dt)
        src = make((4, 2), dt, 1)
        idx = torch.tensor([5, 0])
        out["copy", name] = run(lambda: x.index_copy(1, idx, src))
        out["copy neg dim", name] = run(lambda: torch.index_copy(x, -1, idx, src))
        out["copy t", name] = run(lambda: x.t().index_copy(0, idx, src.t()))
        out["copy strided src", name] = run(lambda: x.index_copy(0, torch.tensor([3, 1]), make((6, 2), dt).t()))
        out["copy_", name] = run(lambda: x.clone().index_copy_(1, idx, src))
        out["copy_ into t", name] = run(lambda: x.t().contiguous().t().index_copy_(0, torch.tensor([2]), make((1, 6), dt)))
        out["fill", name] = run(lambda: x.index_fill(1, torch.tensor([4, -1, 0, 4]), 1))
        out["fill tensor", name] = run(lambda: x.index_fill(0, torch.tensor([2]), torch.tensor(3)))
        out["fill_ t", name] = run(lambda: x.t().index_fill_(0, torch.tensor([1, 3]), 0))
        mask = (make((4, 6), torch.float64, 2) > 2)
        out["mscatter", name] = run(lambda: x.masked_scatter(mask, make((30,), dt, 3)))
        out["mscatter t", name] = run(lambda: x.t().masked_scatter(mask.t(), make((5, 6), dt, 3).t()))
        out["mscatter bcast mask", name] = run(lambda: x.masked_scatter(mask[1], make((24,), dt, 3)))
        out["mscatter bcast self", name] = run(lambda: x[1].masked_scatter(mask, make((24,), dt, 3)))
        out["mscatter_", name] = run(lambda: x.clone().masked_scatter_(mask[:1], make((24,), dt, 3)))
        out["sscatter", name] = run(lambda: x.slice_scatter(make((4, 2), dt, 1), 1, 1, None, 3))
        out["sscatter neg", name] = run(lambda: torch.slice_scatter(x, make((2, 6), dt, 1), -2, -2))
        out["sscatter t", name] = run(lambda: torch.slice_scatter(x.t(), make((3, 4), dt, 1).t(), 0, 0, 6, 2))
        out["count", name] = run(lambda: torch.count_nonzero(x))
        out["count t", name] = run(lambda: torch.count_nonzero(x.t()))
        out["count dim", name] = run(lambda: x.t().count_nonzero(dim=-1))
        out["count dims", name] = run(lambda: torch.count_nonzero(make((2, 3, 4), dt).permute(2, 0, 1), (0, -1)))
    x = make((3, 4), torch.float32)
    x3 = make((2, 3, 4), torch.float32).permute(1, 2, 0)
    f32 = torch.float32
    for key, f in [
        ("count permuted 3-d", lambda: torch.count_nonzero(x3)),
        ("count expanded", lambda: torch.count_nonzero(x[:1].expand(5, 4))),
        ("count sliced", lambda: torch.count_nonzero(x3[:, ::2])),
        ("count 0-dim", lambda: torch.count_nonzero(torch.tensor(2.0))),
        ("count empty", lambda: torch.count_nonzero(torch.zeros(0, 3), 0)),
        ("count nan", lambda: torch.count_nonzero(torch.tensor([float("nan"), -0.0, 0.0, 1.0]))),
        ("count repeated dim", lambda: torch.count_nonzero(x, (0, 0))),
        ("copy 0-dim", lambda: torch.tensor(1.0).index_copy(0, torch.tensor([0]), torch.tensor(5.0))),
        ("copy 0-dim source", lambda: torch.zeros(3).index_copy(0, torch.tensor([1]), torch.tensor(5.0))),
        ("copy empty index", lambda: x.index_copy(1, torch.tensor([], dtype=torch.int64), torch.zeros(3, 0))),
        ("copy empty self", lambda: torch.zeros(0, 4).index_copy(1, torch.tensor([1]), torch.zeros(0, 1))),
        ("copy dup", lambda: x.index_copy(0, torch.tensor([1, 1]), torch.arange(8.0).reshape(2, 4))),
        ("copy dup last dim", lambda: x.index_copy(1, torch.tensor([2, 0, 2]), torch.arange(9.0).reshape(3, 3))),
        ("copy_ dup last dim t", lambda: x.t().clone().t().index_copy_(1, torch.tensor([3, 3]), torch.ones(3, 2))),
        ("fill last dim t", lambda: x.t().index_fill(-1, torch.tensor([-1, 0, -1]), 9.0)),
        ("copy out of range", lambda: x.index_copy(0, torch.tensor([3]), torch.ones(1, 4))),
        ("copy negative", lambda: x.index_copy(1, torch.tensor([-1]), torch.ones(3, 1))),
        ("copy index dtype", lambda: x.index_copy(0, torch.tensor([0], dtype=torch.int32), torch.ones(1, 4))),
        ("copy index 2-d", lambda: x.index_copy(0, torch.tensor([[0]]), torch.ones(1, 4))),
        ("copy source dtype", lambda: x.index_copy(0, torch.tensor([0]), torch.ones(1, 4, dtype=torch.float64))),
        ("copy source shape", lambda: x.index_copy(0, torch.tensor([0]), torch.ones(1, 3))),
        ("copy source rank", lambda: x.index_copy(0, torch.tensor([0]), torch.ones(4))),
        ("copy count", lambda: x.index_copy(0, torch.tensor([0, 1]), torch.ones(1, 4))),
        ("copy dim", lambda: x.index_copy(2, torch.tensor([0]), torch.ones(1, 4))),
        ("fill 0-dim", lambda: torch.tensor(1.0).index_fill(0, torch.tensor([0]), 2.0)),
        ("fill -dim", lambda: x.index_fill(-2, torch.tensor([-3]), -1.5)),
        ("fill empty index", lambda: x.index_fill(0, torch.tensor([], dtype=torch.int64), 1)),
        ("fill out of range", lambda: x.index_fill(1, torch.tensor([4]), 1)),
        ("fill below range", lambda: x.index_fill(1, torch.tensor([-5]), 1)),
        ("fill index dtype", lambda: x.index_fill(1, torch.tensor([0], dtype=torch.int32), 1)),
        ("fill index 2-d", lambda: x.index_fill(1, torch.tensor([[0]]), 1)),
        ("fill value rank", lambda: x.index_fill(1, torch.tensor([0]), torch.ones(1))),
        ("fill inf into int", lambda: x.long().index_fill(1, torch.tensor([0]), float("inf"))),
        ("fill 1.5 into int", lambda: x.long().index_fill(1, torch.tensor([0]), 1.5)),
        ("fill f64 tensor", lambda: x.index_fill(1, torch.tensor([0]), torch.tensor(1.25, dtype=torch.float64))),
        ("fill dim", lambda: x.index_fill(-3, torch.tensor([0]), 1)),
        ("ms empty", lambda: torch.zeros(0, 3).masked_scatter(torch.zeros(0, 3, dtype=torch.bool), torch.ones(2))),
        ("ms none", lambda: x.masked_scatter(torch.zeros(3, 4, dtype=torch.bool), torch.ones(0))),
        ("ms 0-dim", lambda: torch.tensor(1.0).masked_scatter(torch.tensor(True), torch.tensor([4.0, 5.0]))),
        ("ms 0-dim mask", lambda: x.masked_scatter(torch.tensor(True), torch.arange(20.0))),
        ("ms source 2-d", lambda: x.masked_scatter(x > 2, torch.arange(20.0).reshape(4, 5).t())),
        ("ms too small", lambda: x.masked_scatter(x > 0, torch.ones(3))),
        ("ms mask dtype", lambda: x.masked_scatter((x > 0).to(torch.uint8), torch.ones(12))),
        ("ms source dtype", lambda: x.masked_scatter(x > 0, torch.ones(12, dtype=torch.float64))),
        ("ms shapes", lambda: x.masked_scatter(torch.ones(2, 4, dtype=torch.bool), torch.ones(12))),
        ("ms_ too small", lambda: x.clone().masked_scatter_(x > 0, torch.ones(3))),
        ("ss step", lambda: x.slice_scatter(torch.ones(3, 2), 1, 0, 4, 0)),
        ("ss shape", lambda: x.slice_scatter(torch.ones(3, 3), 1, 0, 2)),
        ("ss empty", lambda: x.slice_scatter(torch.ones(3, 0), 1, 3, 1)),
        ("ss big bounds", lambda: x.slice_scatter(torch.ones(3, 4), 1, -10, 10)),
        ("ss cast", lambda: x.slice_scatter(torch.ones(3, 4, dtype=torch.int64), 1)),
        ("ss dim", lambda: x.slice_scatter(torch.ones(3, 4), 2)),
        ("ss 0-dim", lambda: torch.tensor(1.0).slice_scatter(torch.tensor(2.0))),
    ]:
        out[key] = run(f)
    return [[list(k) if isinstance(k, tuple) else k, v] for k, v in out.items()]
"""


def test_index_writes_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert [k for k, _ in ours] == [k for k, _ in theirs]
    bad = [(k, a, b) for (k, a), (_, b) in zip(ours, theirs) if a != b]
    assert not bad, "\n".join(f"{k}: ours {a}, PyTorch {b}" for k, a, b in bad[:10])


def test_index_writes_on_each_device_match_cpu(device):
    """The same writes on the tested device (CUDA: masked_scatter's count on the host, then an index_put_)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    m = rng.random((5, 7)) < 0.4
    src = rng.standard_normal(40).astype(np.float32)
    for dev in ["cpu", device]:
        x = minitorch.tensor(a, device=dev)
        mask = minitorch.tensor(m, device=dev)
        s = minitorch.tensor(src, device=dev)
        idx = minitorch.tensor([4, 0, 2], device=dev)
        got = [
            x.masked_scatter(mask, s),
            x.t().masked_scatter(mask.t(), s),
            x.clone().masked_scatter_(mask[2], s),
            x.index_copy(1, idx, s[:15].reshape(5, 3)),
            x.index_fill(0, idx, -2.0),
            x.slice_scatter(s[:10].reshape(5, 2), 1, 1, None, 3),
            minitorch.count_nonzero(x.t() > 0),
        ]
        if dev == "cpu":
            want = [to_np(g) for g in got]
        else:
            for g, w in zip(got, want):
                np.testing.assert_array_equal(to_np(g), w)
    # a hand-checked masked_scatter: the k-th True (row-major) takes source's k-th element
    y = minitorch.zeros(2, 3).masked_scatter(minitorch.tensor([[True, False, True], [False, True, True]]), s)
    np.testing.assert_array_equal(y.numpy(), [[src[0], 0, src[1]], [0, src[2], src[3]]])


def test_masked_scatter_across_mask_blocks_and_layouts():
    """Masks past MaskScan's 65536-element block, dense and strided self, mask runs of all-true and all-false
    bytes: every write against NumPy."""
    rng = np.random.default_rng(1)
    n = 3 * 65536 + 11
    for p in (0.0, 0.3, 1.0):
        m = rng.random(n) < p
        m[:40] = True  # one all-true run of eight bytes at least
        a = rng.standard_normal(n)
        src = rng.standard_normal(n)
        want = a.copy()
        want[m] = src[: m.sum()]
        got = minitorch.tensor(a).masked_scatter(minitorch.tensor(m), minitorch.tensor(src))
        np.testing.assert_array_equal(got.numpy(), want)
        # strided self (every other element of a wider buffer), written in place
        buf = minitorch.tensor(np.repeat(a, 2))
        buf[::2].masked_scatter_(minitorch.tensor(m), minitorch.tensor(src))
        np.testing.assert_array_equal(buf.numpy()[::2], want)
        np.testing.assert_array_equal(buf.numpy()[1::2], a)


def test_masked_scatter_source_in_selfs_memory():
    """A source that is self (or a view of it) is read before any write lands."""
    a = np.arange(8.0)
    m = np.array([False, True, False, True, True, False, True, True])
    want = a.copy()
    want[m] = a[: m.sum()]
    x = minitorch.tensor(a)
    x.masked_scatter_(minitorch.tensor(m), x)
    np.testing.assert_array_equal(x.numpy(), want)


def _r(*shape, seed=0):
    g = np.random.default_rng(seed)
    return minitorch.tensor(g.standard_normal(shape), dtype=minitorch.float64, requires_grad=True)


def test_index_writes_gradients():
    idx = minitorch.tensor([3, 0, 3])
    x, s = _r(4, 5), _r(3, 5, seed=1)
    assert gradcheck(lambda t, u: t.index_copy(0, minitorch.tensor([3, 0]), u[:2]), (x, s))
    assert gradcheck(
        lambda t, u: minitorch.index_copy(t.t(), -1, minitorch.tensor([1, 2]), u[:2].t()), (x, s)
    )
    assert gradcheck(
        lambda t, u: t.clone().index_copy_(1, minitorch.tensor([4]), u[:, :1].t()[:, :1].expand(4, 1)), (x, s)
    )
    assert gradcheck(lambda t, u: t[0, 0].index_copy(0, minitorch.tensor([0]), u[0, 0]), (x, s))
    v = minitorch.tensor(0.5, dtype=minitorch.float64, requires_grad=True)
    # a repeated index fills its slice once: the value's gradient counts it once (PyTorch's)
    assert gradcheck(lambda t, w: t.index_fill(1, idx, w), (x, v))
    assert gradcheck(lambda t, w: t.clone().index_fill_(-2, minitorch.tensor([-1]), w), (x, v))
    assert gradcheck(lambda t: t.t().index_fill(0, idx, 2.5), (x,))
    m = minitorch.tensor(np.random.default_rng(2).random((4, 5)) < 0.5)
    big = _r(25, seed=3)
    assert gradcheck(lambda t, u: t.masked_scatter(m, u), (x, big))  # source longer than the mask's count
    assert gradcheck(lambda t, u: t[1].masked_scatter(m, u), (x, big))  # self broadcast to the mask
    assert gradcheck(lambda t, u: t.masked_scatter(m[2], u), (x, big))  # mask broadcast to self
    assert gradcheck(lambda t, u: t.clone().masked_scatter_(m, u.reshape(5, 5).t()), (x, big))
    assert gradcheck(lambda t, u: t.slice_scatter(u[:2], 0, -3, None, 2), (x, s))
    assert gradcheck(lambda t, u: minitorch.slice_scatter(t.t(), u.t()[:4].t(), 0, 1, 4), (x, s))


def test_index_writes_in_place_version_and_leaf():
    x = minitorch.zeros(3, 4)
    v0 = x._version
    assert x.index_fill_(0, minitorch.tensor([1]), 2.0) is x and x._version > v0
    leaf = minitorch.zeros(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.index_copy_(0, minitorch.tensor([0]), minitorch.ones(1, 4))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.masked_scatter_(minitorch.ones(3, 4, dtype=minitorch.bool), minitorch.ones(12))
