"""Shape and indexing functions composed in minitorch._composite_shape: values against NumPy (float64
references) over dtypes, non-contiguous and empty inputs, negative dims; gradients by gradcheck; bad inputs
raising PyTorch's exception types and messages."""

import itertools
import re

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck
from tests.utils import ALL_DTYPES, cases_here_and_in_pytorch, make_array, make_tensor, run_oracle, to_np

DTYPES = [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.bool]
LAYOUTS = ["contiguous", "transposed", "strided"]
F64 = minitorch.float64


def _np(a, dtype):
    return a.astype(np.bool_) if dtype == minitorch.bool else a


def _same(got, want):
    got = to_np(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=1e-6)


def _inputs(shape, dtype, device, layout, seed=0):
    a = _np(make_array(shape, dtype, np.random.default_rng(seed)), dtype)
    return a, make_tensor(a, dtype, device, layout)


def _rand64(*shape):
    return minitorch.randn(shape, dtype=F64, requires_grad=True)


# ---- flips, rolls, rotations, tiles


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flip_roll_rot90_tile(device, dtype, layout):
    a, x = _inputs((3, 4), dtype, device, layout)
    for dims in [(0,), (1,), (0, 1), (-1,), ()]:
        _same(minitorch.flip(x, dims), np.flip(a, dims) if dims else a)
    _same(x.fliplr(), np.fliplr(a))
    _same(minitorch.flipud(x), np.flipud(a))
    for shifts, dims in [(1, 0), (-5, 1), ((2, 1), (0, -1)), (7, None), (0, 1)]:
        _same(minitorch.roll(x, shifts, dims), np.roll(a, shifts, dims))
    for k in range(-2, 6):
        _same(minitorch.rot90(x, k), np.rot90(a, k))
        _same(x.rot90(k, [1, 0]), np.rot90(a, k, (1, 0)))
    for reps in [(2,), (2, 3), (2, 1, 2), ()]:
        _same(minitorch.tile(x, reps), np.tile(a, reps))
    assert minitorch.flip(x, [0]).dtype == dtype


def test_flip_roll_empty_and_clone(device):
    e = minitorch.zeros(0, 3, device=device)
    assert minitorch.flip(e, (0, 1)).shape == (0, 3)
    assert minitorch.roll(e, 2, 0).shape == (0, 3)
    assert minitorch.roll(e, 2).shape == (0, 3)
    x = minitorch.arange(6.0, device=device).reshape(2, 3)
    c = minitorch.clone(x)
    c.add_(1)
    _same(x, np.arange(6.0).reshape(2, 3))  # a copy, not a view
    y = minitorch.flip(x, [])
    y.add_(1)
    _same(x, np.arange(6.0).reshape(2, 3))


def test_flip_roll_rot90_errors():
    x = minitorch.zeros(2, 3)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        minitorch.flip(x, (0, -2))
    with pytest.raises(
        IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"
    ):
        x.flip(2)
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        minitorch.fliplr(minitorch.zeros(3))
    with pytest.raises(RuntimeError, match="Input must be >= 1-d."):
        minitorch.flipud(minitorch.tensor(1.0))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        minitorch.roll(x, (1, 2), (0,))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:0"):
        minitorch.roll(x, (1, 2))
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2, but got dims = 3"):
        minitorch.rot90(x, 1, (0, 1, 2))
    with pytest.raises(RuntimeError, match="expected total dims >= 2, but got total dims = 1"):
        minitorch.rot90(minitorch.zeros(3))
    with pytest.raises(
        RuntimeError, match="expected rotation dims to be different, but got dim0 = 1 and dim1 = -1"
    ):
        minitorch.rot90(x, 1, (1, -1))
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -3: \[2, -3\]"):
        minitorch.tile(x, (-1,))


def test_flip_and_rot90_dims_are_ints():
    # PyTorch's parser refuses a bool or a float among flip's dims (int() of each took them before); rot90's
    # unparsed common call takes plain ints only, and anything else goes through the parser (which, as
    # PyTorch's, takes a bool among rot90's dims)
    x = minitorch.zeros(2, 3)
    for bad, kind in [([True], "bool"), ([1.0], "float")]:
        with pytest.raises(
            TypeError,
            match=rf"flip\(\): argument 'dims' .* must be tuple of ints, but found element of type {kind}",
        ):
            minitorch.flip(x, bad)
    with pytest.raises(
        TypeError,
        match=re.escape(
            "rot90(): argument 'dims' failed to unpack the object at pos 2 with error "
            '"type must be tuple of ints,but got float"'
        ),
    ):
        minitorch.rot90(x, 1, [0, 1.0])
    with pytest.raises(TypeError, match=r"rot90\(\): argument 'k' .* must be int, not bool"):
        minitorch.rot90(x, True)
    assert minitorch.rot90(x, 1, [0, True]).shape == (3, 2)
    a = np.arange(6.0).reshape(2, 3)
    _same(minitorch.rot90(x + minitorch.tensor(a), 1, (np.int64(1), np.int64(0))), np.rot90(a, 1, (1, 0)))
    _same(minitorch.rot90(minitorch.tensor(a), 5, [-1, -2]), np.rot90(a, 5, (-1, -2)))
    _same(minitorch.tensor(a).rot90(-1, (0, 1)), np.rot90(a, -1))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_repeat_and_tile_plain_calls_every_dtype_and_layout(dtype):
    # the plain-int calls go straight to the C++ op (csrc/python/bind_shape.cpp), any other through the Python
    # checks to the same op: every spelling, dtype and layout against NumPy's tile
    for layout in LAYOUTS:
        a, x = _inputs((3, 4), dtype, "cpu", layout, seed=3)
        for reps in [(2, 3), (1, 1), (3, 1, 2), (0, 2), (2, 0, 1)]:
            want = np.tile(a, reps)
            for got in (x.repeat(*reps), x.repeat(reps), x.repeat(list(reps)), x.tile(*reps), x.tile(reps)):
                assert got.dtype == x.dtype and got.is_contiguous()
                np.testing.assert_array_equal(to_np(got), want)
            np.testing.assert_array_equal(to_np(minitorch.tile(x, reps)), want)
            np.testing.assert_array_equal(to_np(minitorch.tile(x, list(reps))), want)
        for reps in [(2,), (), [3]]:  # tile pads the counts with leading ones
            np.testing.assert_array_equal(to_np(minitorch.tile(x, reps)), np.tile(a, reps))
            np.testing.assert_array_equal(to_np(x.tile(reps)), np.tile(a, tuple(reps)))
        # the fallback's spellings: NumPy ints, a Size, a keyword
        np.testing.assert_array_equal(to_np(x.repeat(np.int64(2), 1)), np.tile(a, (2, 1)))
        np.testing.assert_array_equal(to_np(x.repeat(repeats=minitorch.Size([1, 2]))), np.tile(a, (1, 2)))
        np.testing.assert_array_equal(to_np(minitorch.tile(x, dims=(2,))), np.tile(a, (2,)))
    e = minitorch.zeros(0, 3).to(dtype)
    assert e.repeat(2, 2).shape == (0, 6) and minitorch.tile(e, (4,)).shape == (0, 12)
    with pytest.raises(TypeError, match='tile\\(\\) missing 1 required positional arguments: "dims"'):
        e.tile()  # PyTorch's own error for no counts at all
    s = minitorch.tensor(1).to(dtype)
    assert s.repeat(3).shape == (3,) and s.tile(()).shape == ()


def test_repeat_lane_results_are_fresh_and_take_subclasses():
    x = minitorch.arange(6.0).reshape(2, 3)
    for y in (x.repeat(1, 1), minitorch.tile(x, (1,)), x.repeat(1, 0), x.tile(0, 1)):
        assert type(y) is minitorch.Tensor and y._base is None and not y.requires_grad
        if y.numel():
            assert y.data_ptr() != x.data_ptr()
    p = minitorch.nn.Parameter(minitorch.arange(3.0))
    y = p.repeat(2, 1)
    assert type(y) is minitorch.Tensor and y.grad_fn is not None
    y.backward(minitorch.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(p.grad.numpy(), [3.0, 5.0, 7.0])  # summed over the repeats
    with pytest.raises(TypeError, match=re.escape("repeat() takes 1 positional argument but 2 were given")):
        x.repeat(True, 1)  # a bool is no int to start separate counts: PyTorch's parser takes one list
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type bool at pos 0"):
        x.repeat([True, 1])
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller"):
        x.repeat([2])
    with pytest.raises(TypeError, match=r"tile\(\): argument 'dims' \(position 2\) must be tuple of ints"):
        minitorch.tile(x, minitorch.tensor([2]))


def test_repeat_and_tile_gradients_sum_over_the_repeats():
    x = _rand64(3, 4)
    for fn in (
        lambda t: t.repeat(2, 1, 3),
        lambda t: t.repeat(1, 1),
        lambda t: t.t().repeat(2, 2),
        lambda t: minitorch.tile(t, (3,)),
        lambda t: t.tile(2, 1, 1),
    ):
        assert gradcheck(fn, (x,))
    g = minitorch.arange(24.0, dtype=F64).reshape(6, 4)
    x.grad = None
    x.repeat(2, 1).backward(g)
    np.testing.assert_array_equal(x.grad.numpy(), g.numpy()[:3] + g.numpy()[3:])


def test_flip_roll_rot90_tile_gradients():
    x = _rand64(3, 4)
    assert gradcheck(lambda t: minitorch.flip(t, (0, 1)), (x,))
    assert gradcheck(lambda t: minitorch.roll(t, (1, -2), (0, 1)), (x,))
    assert gradcheck(lambda t: minitorch.roll(t, 5), (x,))
    assert gradcheck(lambda t: minitorch.rot90(t, 3), (x,))
    assert gradcheck(lambda t: t.tile((2, 1, 2)), (x,))


# flip is one strided copy (csrc/ops/shape.cpp): a view walking each flipped dim backwards, whose runs the copy
# kernels read forwards (an outer dim flipped) or reversed (the last dim). Exact copies, so exact comparisons.
FLIP_CASES = [((7,), (0,)), ((2, 3, 5), (1,)), ((2, 3, 5), (2,)), ((2, 3, 5), (0, 2)), ((2, 3, 5), (0, 1, 2))]
FLIP_CASES += [((3, 1, 4), (1, 2)), ((2, 3, 4, 5), (-1, 1)), ((4, 33), (1,)), ((4, 33), ())]
# reversed runs of 64 and more elements take the AVX2 copy where the CPU has one
FLIP_CASES += [((3, 131), (1,)), ((131, 2), (0, 1)), ((64,), (0,))]


@pytest.mark.parametrize("dtype", [*ALL_DTYPES, minitorch.complex64, minitorch.complex128], ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "expanded"])
def test_flip_kernel_values(device, dtype, layout):
    rng = np.random.default_rng(3)
    for shape, dims in FLIP_CASES:
        if dtype.is_complex:
            a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
            a = a.astype(np.complex64 if dtype == minitorch.complex64 else np.complex128)
        else:
            a = _np(make_array(shape, dtype, rng), dtype)
        if layout == "expanded":
            a = np.broadcast_to(a[:1], a.shape)
        x = make_tensor(a, dtype, device, layout)
        got = minitorch.flip(x, dims)
        assert got.dtype == dtype and got.shape == shape
        want = np.flip(a, dims) if dims else a
        if dtype.is_complex:
            np.testing.assert_array_equal(got.cpu().numpy(), want)
        else:
            np.testing.assert_array_equal(to_np(got), np.asarray(want).astype(to_np(got).dtype))
        if layout == "transposed" and len(shape) > 1:
            # PyTorch's preserve_format: a transposed input gives a transposed (dense) result
            assert got.stride() == x.stride()


def test_flip_kernel_long_runs_and_threads():
    # long runs split over threads, and every dim of a dense tensor flipped (one reversed run)
    a = np.arange(300 * 700, dtype=np.float32).reshape(300, 700)
    x = minitorch.from_numpy(a)
    for dims in [(1,), (0,), (0, 1)]:
        np.testing.assert_array_equal(minitorch.flip(x, dims).numpy(), np.flip(a, dims))
    v = np.arange(100_003, dtype=np.float64)
    np.testing.assert_array_equal(minitorch.flip(minitorch.from_numpy(v), (0,)).numpy(), v[::-1])
    b = np.arange(5 * 6 * 7, dtype=np.int16).reshape(5, 6, 7)
    xb = minitorch.from_numpy(b).permute(2, 0, 1)[1:, ::2]  # permuted and sliced: no run is dense
    np.testing.assert_array_equal(
        minitorch.flip(xb, (0, 2)).numpy(), np.flip(b.transpose(2, 0, 1)[1:, ::2], (0, 2))
    )


def test_flip_kernel_edges(device):
    s = minitorch.tensor(3.5, device=device)
    for dims in [(0,), (-1,), ()]:
        r = minitorch.flip(s, dims)
        assert r.shape == () and r.item() == 3.5
    e = minitorch.zeros(4, 0, 3, device=device)
    assert minitorch.flip(e, (0, 2)).shape == (4, 0, 3)
    x = minitorch.arange(6.0, device=device).reshape(2, 3)
    y = x.flip(1)
    y.add_(1)  # a copy: the input is untouched
    np.testing.assert_array_equal(to_np(x), np.arange(6.0).reshape(2, 3))
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        minitorch.flip(x, (1, -1))
    m = minitorch.empty(2, 3, device="meta").flip(0)
    assert m.shape == (2, 3) and m.device.type == "meta"


def test_flip_kernel_gradients():
    x = _rand64(2, 3, 4)
    for dims in [(0,), (2,), (0, 2), (1, 2, 0)]:
        assert gradcheck(lambda t, dims=dims: minitorch.flip(t, dims), (x,))
    xt = _rand64(4, 3).detach().t().requires_grad_()
    assert gradcheck(lambda t: minitorch.rot90(t, 1), (xt,))
    assert minitorch.autograd.gradgradcheck(lambda t: minitorch.flip(t, (1,)) ** 2, (x,))
    assert minitorch.flip(x, (0,)).grad_fn.name() == "FlipBackward0"


def test_flip_strides_match_pytorch():
    """the result's layout: a transposed input's order kept, a sliced (gapped) or expanded one made dense"""
    script = """
import json, sys, torch
out = {}
x = torch.zeros(4, 3).t()
out["t"] = list(torch.flip(x, [0]).stride())
out["s"] = list(torch.flip(torch.zeros(3, 1, 8)[:, :, ::2], [0]).stride())
out["e"] = list(torch.flip(torch.zeros(3, 4).expand(2, 3, 4), [0]).stride())
print(json.dumps(out))
"""
    want = run_oracle(script, {})
    got = {
        "t": list(minitorch.flip(minitorch.zeros(4, 3).t(), [0]).stride()),
        "s": list(minitorch.flip(minitorch.zeros(3, 1, 8)[:, :, ::2], [0]).stride()),
        "e": list(minitorch.flip(minitorch.zeros(3, 4).expand(2, 3, 4), [0]).stride()),
    }
    assert got == want


# ---- broadcasting, grids, products of sets


def test_broadcast_to_and_tensors(device):
    a, x = _inputs((3, 1), minitorch.float32, device, "strided")
    b = np.arange(4.0)
    y = minitorch.tensor(b, device=device)
    _same(minitorch.broadcast_to(x, (2, 3, 4)), np.broadcast_to(a, (2, 3, 4)))
    _same(x.broadcast_to((3, -1)), a)
    got = minitorch.broadcast_tensors(x, y, minitorch.tensor(2.0, device=device))
    want = np.broadcast_arrays(a, b, np.float64(2.0))
    assert isinstance(got, tuple) and len(got) == 3
    for g, w in zip(got, want):
        _same(g, w)
    with pytest.raises(
        RuntimeError, match=r"The expanded size of the tensor \(3\) must match the existing size \(2\)"
    ):
        minitorch.broadcast_to(minitorch.zeros(2, 3), (3, 3))
    with pytest.raises(
        RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) at "
    ):
        minitorch.broadcast_tensors(minitorch.zeros(2, 3), minitorch.zeros(4))
    g = _rand64(3, 1)
    assert gradcheck(lambda t: minitorch.broadcast_to(t, (2, 3, 4)), (g,))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.int64])
def test_meshgrid_cartesian_prod_combinations(device, dtype):
    a = np.array([3, 1, 2])
    b = np.array([5, 6])
    x = minitorch.tensor(a, dtype=dtype, device=device)
    y = minitorch.tensor(b, dtype=dtype, device=device)
    for indexing in ("ij", "xy"):
        got = minitorch.meshgrid(x, y, minitorch.tensor(7, dtype=dtype, device=device), indexing=indexing)
        want = np.meshgrid(a, b, np.array(7), indexing=indexing)
        for g, w in zip(got, want):
            _same(g, w)
        for g, w in zip(minitorch.meshgrid([x, y], indexing=indexing), np.meshgrid(a, b, indexing=indexing)):
            _same(g, w)
    _same(minitorch.meshgrid(x)[0], a)
    _same(minitorch.cartesian_prod(x, y), np.array(list(itertools.product(a, b))))
    _same(minitorch.cartesian_prod(x), a)
    for r in (1, 2, 3, 4):
        for rep in (False, True):
            fn = itertools.combinations_with_replacement if rep else itertools.combinations
            want = np.array(list(fn(a, r))).reshape(-1, r)
            _same(minitorch.combinations(x, r, with_replacement=rep), want)
    assert minitorch.combinations(x, 0).numel() == 0


def test_grid_errors_and_gradients():
    with pytest.raises(RuntimeError, match="torch.meshgrid: Expected 0D or 1D tensor in the tensor list"):
        minitorch.meshgrid(minitorch.zeros(2, 2), indexing="ij")
    with pytest.raises(RuntimeError, match="meshgrid expects all tensors to have the same dtype"):
        minitorch.meshgrid(minitorch.zeros(2), minitorch.zeros(2, dtype=F64), indexing="ij")
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but received: foo'):
        minitorch.meshgrid(minitorch.zeros(2), indexing="foo")
    with pytest.raises(RuntimeError, match="meshgrid expects a non-empty TensorList"):
        minitorch.meshgrid(indexing="ij")
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 3\]"):
        minitorch.cartesian_prod(minitorch.zeros(2, 3))
    with pytest.raises(RuntimeError, match="Expect a non-negative number, but got -1"):
        minitorch.combinations(minitorch.zeros(3), -1)
    x, y = _rand64(3), _rand64(2)
    assert gradcheck(lambda a, b: minitorch.meshgrid(a, b, indexing="xy"), (x, y))
    assert gradcheck(lambda a, b: minitorch.cartesian_prod(a, b), (x, y))
    assert gradcheck(lambda a: minitorch.combinations(a, 2), (x,))


# ---- stacks


@pytest.mark.parametrize("dtype", DTYPES)
def test_stacks_and_atleast(device, dtype):
    rng = np.random.default_rng(1)
    for shapes in [[(), ()], [(3,), (2,)], [(2, 3), (2, 1)], [(2, 3, 2), (2, 1, 2)]]:
        arrs = [_np(make_array(s, dtype, rng), dtype) for s in shapes]
        ts = [make_tensor(a, dtype, device, "transposed" if a.ndim == 2 else "contiguous") for a in arrs]
        _same(minitorch.hstack(ts), np.hstack(arrs))
        if len({a.shape[1:] for a in arrs if a.ndim}) <= 1 or arrs[0].ndim != 2:
            pass
        for fn, nfn in [(minitorch.atleast_1d, np.atleast_1d), (minitorch.atleast_2d, np.atleast_2d)]:
            for t, a in zip(ts, arrs):
                _same(fn(t), nfn(a))
        for t, a in zip(ts, arrs):
            _same(minitorch.atleast_3d(t), np.atleast_3d(a))
        got = minitorch.atleast_2d(*ts)
        assert isinstance(got, tuple) and len(got) == 2
        assert isinstance(minitorch.atleast_3d(ts), tuple)
    rows = [_np(make_array(s, dtype, rng), dtype) for s in [(3,), (2, 3)]]
    rt = [make_tensor(a, dtype, device) for a in rows]
    _same(minitorch.vstack(rt), np.vstack(rows))
    _same(minitorch.row_stack(rt), np.vstack(rows))
    cols = [_np(make_array(s, dtype, rng), dtype) for s in [(3,), (3, 2), ()]]
    cols[2] = np.broadcast_to(cols[2], (3,))
    ct = [make_tensor(a, dtype, device) for a in cols]
    _same(minitorch.column_stack(ct), np.column_stack(cols))
    deep = [_np(make_array(s, dtype, rng), dtype) for s in [(2, 3), (2, 3, 2)]]
    _same(minitorch.dstack([make_tensor(a, dtype, device, "strided") for a in deep]), np.dstack(deep))
    _same(minitorch.concatenate(rt[1:] * 2, axis=-1), np.concatenate(rows[1:] * 2, axis=-1))
    assert minitorch.atleast_1d() == ()
    assert minitorch.hstack([minitorch.zeros(0, device=device)] * 2).shape == (0,)


def test_stack_errors_and_gradients():
    for fn in ("hstack", "vstack", "dstack", "column_stack"):
        with pytest.raises(RuntimeError, match=f"{fn} expects a non-empty TensorList"):
            getattr(minitorch, fn)([])
    a, b = _rand64(3), _rand64(3)
    assert gradcheck(lambda x, y: minitorch.dstack([x, y]), (a, b))
    assert gradcheck(lambda x, y: minitorch.column_stack([x, y]), (a, b))
    assert gradcheck(lambda x, y: minitorch.hstack([x, y]), (a, b))


# ---- diagonals


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_diag_family(device, dtype, layout):
    a, x = _inputs((3, 4), dtype, device, layout)
    v = a[0]
    vt = x[0]
    for k in (-2, 0, 1, 3):
        _same(minitorch.diag(vt, k), np.diag(v, k))
        _same(x.diag(k), np.diag(a, k))
        _same(minitorch.diagflat(x, k), np.diagflat(a, k))
    if dtype != minitorch.bool:
        want = np.trace(a).astype(np.int64) if dtype == minitorch.int64 else np.trace(a)
        _same(minitorch.trace(x), want)
        assert minitorch.trace(x).dim() == 0
    for off, d1, d2 in [(0, -2, -1), (1, 0, 2), (-1, 2, 0), (2, 1, -1)]:
        got = minitorch.diag_embed(x, off, d1, d2)
        assert got.dim() == 3
        # the defining property: the (d1, d2) diagonal is the input, everything else zero
        _same(got.diagonal(off, d1, d2), a)
        assert int((got != 0).sum()) == int((x != 0).sum())
    d = minitorch.diag(x)
    d.zero_()  # diag of a matrix is a copy
    _same(x, a)
    assert minitorch.diag(minitorch.zeros(0, device=device)).shape == (0, 0)
    assert minitorch.diag_embed(minitorch.zeros(2, 0, device=device)).shape == (2, 0, 0)


def test_diag_embed_paths_agree():
    """diag_embed without autograd (a zero result, the diagonal written through a view) and with it (the
    differentiable catenation) give the same values; the former is contiguous with version 0, as PyTorch's."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 4))
    x = minitorch.tensor(a).transpose(0, 2)  # (4, 3, 2), non-contiguous
    for off, d1, d2 in [(0, -2, -1), (2, 0, 3), (-3, 3, 1)]:
        fast = minitorch.diag_embed(x, off, d1, d2)
        slow = minitorch.diag_embed(x.clone().requires_grad_(), off, d1, d2)
        assert slow.grad_fn is not None and fast.grad_fn is None
        assert fast._version == 0 and fast.is_contiguous()
        np.testing.assert_array_equal(to_np(fast), to_np(slow.detach()))
        v = a.transpose(2, 1, 0)  # x's values, (4, 3, 2)
        m = np.stack([np.diag(r, off) for r in v.reshape(-1, 2)]).reshape(4, 3, *np.diag(v[0, 0], off).shape)
        want = np.moveaxis(m, (-2, -1), (d1 % 4, d2 % 4))
        np.testing.assert_array_equal(to_np(fast), want)


def test_diag_errors_and_gradients():
    with pytest.raises(RuntimeError, match="diag\\(\\): Supports 1D or 2D tensors. Got 3D"):
        minitorch.diag(minitorch.zeros(2, 2, 2))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical -1, 2"):
        minitorch.diag_embed(minitorch.zeros(2, 3), 0, -1, 2)
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 1"):
        minitorch.trace(minitorch.zeros(3))
    x, v = _rand64(3, 4), _rand64(4)
    assert gradcheck(lambda t: minitorch.diag(t, -1), (v,))
    assert gradcheck(lambda t: minitorch.diag(t, 1), (x,))
    assert gradcheck(lambda t: minitorch.diag_embed(t, -1, 2, 0), (x,))
    assert gradcheck(lambda t: minitorch.diagflat(t, 2), (x,))
    assert gradcheck(minitorch.trace, (x,))


# trace: the diagonal summed where it lies (a strided view into the reduction kernels), a node of its own
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "expanded"])
def test_trace_kernel(device, layout):
    rng = np.random.default_rng(4)
    for dtype in [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.int8, minitorch.uint8]:
        for shape in [(5, 5), (3, 7), (7, 3), (1, 4), (0, 3)]:
            a = make_array(shape, dtype, rng)
            if layout == "expanded" and shape[0]:
                a = np.broadcast_to(a[:1], shape)
            x = make_tensor(a, dtype, device, layout)
            got = minitorch.trace(x)
            want_dt = minitorch.int64 if dtype in (minitorch.int8, minitorch.uint8) else dtype
            assert got.shape == () and got.dtype == want_dt and x.trace().dtype == want_dt
            np.testing.assert_allclose(to_np(got), np.trace(a.astype(np.float64)), rtol=2e-3)
    z = np.array([[1 + 2j, 3j], [4.0, -1 - 1j]])
    assert minitorch.trace(minitorch.tensor(z)).item() == np.trace(z)
    with pytest.raises(NotImplementedError, match="^\"trace\" not implemented for 'Bool'$"):
        minitorch.trace(minitorch.ones(2, 2, dtype=minitorch.bool, device=device))


def test_trace_kernel_gradients():
    x = _rand64(4, 3)
    y = minitorch.trace(x)
    assert y.grad_fn.name() == "TraceBackward0"
    y.backward(minitorch.tensor(2.5, dtype=F64))
    np.testing.assert_array_equal(x.grad.numpy(), 2.5 * np.eye(4, 3))
    assert gradcheck(minitorch.trace, (_rand64(3, 5).detach().t().requires_grad_(),))
    assert minitorch.autograd.gradgradcheck(lambda t: minitorch.trace(t * t), (x,))
    zc = minitorch.randn(3, 3, dtype=minitorch.complex128, requires_grad=True)
    assert gradcheck(lambda t: minitorch.trace(t).abs(), (zc,))


# ---- splits


@pytest.mark.parametrize("dtype", DTYPES)
def test_split_family(device, dtype):
    a, x = _inputs((6, 4, 6), dtype, device, "transposed")
    for spec in [3, 4, 7, [1, 4], [-2, 5], [4, 2], [0, 10], [2]]:
        for dim in (0, -1, 1):
            got = minitorch.tensor_split(x, spec, dim)
            want = np.array_split(a, spec, axis=dim)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                _same(g, w)
    for spec in [minitorch.tensor(3), minitorch.tensor([1, 4])]:
        want = np.array_split(a, spec.tolist(), axis=1)
        for g, w in zip(x.tensor_split(spec, 1), want):
            _same(g, w)
    for fn, nfn in [("hsplit", np.hsplit), ("vsplit", np.vsplit), ("dsplit", np.dsplit)]:
        for spec in (2, [1, 3]):
            for g, w in zip(getattr(minitorch, fn)(x, spec), nfn(a, spec)):
                _same(g, w)
    for g, w in zip(minitorch.hsplit(x[0, 0], 3), np.hsplit(a[0, 0], 3)):
        _same(g, w)
    assert [t.shape[0] for t in minitorch.tensor_split(minitorch.zeros(0, device=device), 2)] == [0, 0]


def test_split_errors_and_gradients():
    x = minitorch.zeros(2, 3)
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        minitorch.tensor_split(x, 0)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        minitorch.tensor_split(x, 2**64)  # an int64 argument, checked before any work (not 2^64 sections)
    with pytest.raises(RuntimeError, match="tensor_split expected at least a 1-dimensional tensor"):
        minitorch.tensor_split(minitorch.tensor(1.0), 2)
    with pytest.raises(
        RuntimeError, match="to be a zero-dimensional or one-dimensional tensor, but got a tensor"
    ):
        minitorch.tensor_split(x, minitorch.ones(2, 2, dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match="to have dtype of long, but got Float"):
        minitorch.tensor_split(x, minitorch.tensor([1.0]))
    with pytest.raises(
        RuntimeError, match="the size of the dimension 3 is not divisible by the split_size 2!"
    ):
        minitorch.hsplit(x, 2)
    with pytest.raises(
        RuntimeError, match="torch.hsplit requires a tensor with at least 1 dimension, but got a"
    ):
        minitorch.hsplit(minitorch.tensor(1.0), 2)
    with pytest.raises(RuntimeError, match="torch.vsplit requires a tensor with at least 2 dimension"):
        minitorch.vsplit(minitorch.zeros(4), 2)
    with pytest.raises(RuntimeError, match="torch.dsplit requires a tensor with at least 3 dimension"):
        minitorch.dsplit(x, 2)
    g = _rand64(5, 4)
    assert gradcheck(lambda t: minitorch.tensor_split(t, 3, 0), (g,))
    assert gradcheck(lambda t: minitorch.hsplit(t, [1, 3]), (g,))


def test_split_methods_take_index_lists_as_pytorch():
    """x.vsplit([...]) and the other methods' index lists pass the parser's fast test (a list after the
    sections overload: not a call `_varargs` could repack); separate ints, keywords and bad lists keep
    PyTorch's readings and words"""
    a = np.arange(48.0).reshape(4, 6, 2)
    x = minitorch.tensor(a)
    for call, want in [
        (lambda: x.vsplit([1, 3]), np.vsplit(a, [1, 3])),
        (lambda: x.vsplit((1,)), np.vsplit(a, [1])),
        (lambda: x.vsplit([]), [a]),
        (lambda: x.hsplit([2, 5]), np.hsplit(a, [2, 5])),
        (lambda: x.dsplit([1]), np.dsplit(a, [1])),
        (lambda: x.vsplit(2, 3), np.vsplit(a, [2, 3])),
        (lambda: x.vsplit([1, True]), np.vsplit(a, [1, 1])),
        (lambda: x.vsplit(indices=[1]), np.vsplit(a, [1])),
        (lambda: x.vsplit(sections=2), np.vsplit(a, 2)),
    ]:
        got = call()
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    with pytest.raises(
        TypeError, match=r"vsplit\(\) received an invalid combination of arguments - got \(list\)"
    ):
        x.vsplit([1.5])
    with pytest.raises(
        TypeError, match=r"vsplit\(\) received an invalid combination of arguments - got \(list\)"
    ):
        x.vsplit([True])
    with pytest.raises(TypeError, match="argument 'indices' failed to unpack the object at pos 2"):
        x.vsplit([1, "a"])


# ---- dims, sorting, nonzero


@pytest.mark.parametrize("dtype", DTYPES)
def test_dims_ravel_msort_argwhere(device, dtype):
    a, x = _inputs((3, 4, 2), dtype, device, "strided")
    _same(minitorch.swapdims(x, 0, -1), np.swapaxes(a, 0, -1))
    _same(x.swapdims(1, 2), np.swapaxes(a, 1, 2))
    _same(minitorch.moveaxis(x, 0, -1), np.moveaxis(a, 0, -1))
    _same(x.moveaxis((0, 1), (2, 0)), np.moveaxis(a, (0, 1), (2, 0)))
    _same(minitorch.ravel(x), np.ravel(a))
    _same(x.ravel(), np.ravel(a))
    if dtype != minitorch.bool:
        _same(minitorch.msort(x), np.sort(a, axis=0))
    _same(minitorch.argwhere(x), np.argwhere(a))
    _same(x.argwhere(), np.argwhere(a))
    g = _rand64(3, 4)
    assert gradcheck(lambda t: minitorch.moveaxis(t.unsqueeze(0), (0, 1), (2, 0)), (g,))
    assert gradcheck(lambda t: minitorch.msort(t), (g,))


# ---- gathers


@pytest.mark.parametrize("dtype", DTYPES)
def test_take_along_dim_take_unravel(device, dtype):
    a, x = _inputs((3, 4), dtype, device, "transposed")
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 4, size=(3, 2))
    it = minitorch.tensor(idx, device=device)
    _same(minitorch.take_along_dim(x, it, 1), np.take_along_axis(a, idx, 1))
    _same(x.take_along_dim(it, -1), np.take_along_axis(a, idx, -1))
    idx0 = rng.integers(0, 3, size=(2, 1))
    _same(
        minitorch.take_along_dim(x, minitorch.tensor(idx0, device=device), 0),
        np.take_along_axis(a, np.broadcast_to(idx0, (2, 4)), 0),
    )
    flat = rng.integers(0, 12, size=(5,))
    # flattened by view, as PyTorch: a contiguous input (the transposed one is refused, test_reliability.py)
    _same(minitorch.take_along_dim(x.contiguous(), minitorch.tensor(flat, device=device)), a.ravel()[flat])
    tidx = np.array([[0, -1], [11, -12]])
    _same(minitorch.take(x, minitorch.tensor(tidx, device=device)), np.take(a, tidx))
    assert minitorch.take(x, minitorch.zeros(0, dtype=minitorch.int64, device=device)).shape == (0,)
    flat_idx = np.array([0, 5, 23, 17])
    got = minitorch.unravel_index(minitorch.tensor(flat_idx, device=device), (2, 3, 4))
    for g, w in zip(got, np.unravel_index(flat_idx, (2, 3, 4))):
        _same(g, w)
    assert got[0].dtype == minitorch.int64


def test_take_reads_strided_inputs_in_place():
    """take of a strided input without autograd reads its elements through their storage offsets (no contiguous
    copy first): permuted, sliced with steps, expanded (stride 0), wrapped negative indices; with autograd the
    copy path, the same values and gradient"""
    a = np.arange(60.0).reshape(3, 4, 5)
    x = minitorch.tensor(a)
    rng = np.random.default_rng(7)
    views = [
        (x.permute(2, 0, 1), a.transpose(2, 0, 1)),
        (x[:, 1:3, ::2], a[:, 1:3, ::2]),
        (x[1:, :1, :3].expand(2, 4, 3), np.broadcast_to(a[1:, :1, :3], (2, 4, 3))),
    ]
    for v, arr in views:
        idx = rng.integers(-arr.size, arr.size, size=(2, 3))
        want = np.take(arr, idx)
        np.testing.assert_array_equal(to_np(minitorch.take(v, minitorch.tensor(idx))), want)
        g = v.detach().requires_grad_()
        np.testing.assert_array_equal(to_np(minitorch.take(g, minitorch.tensor(idx)).detach()), want)
    with pytest.raises(
        IndexError, match="out of range: tried to access index 24 on a tensor of 24 elements."
    ):
        minitorch.take(views[2][0], minitorch.tensor([24]))


def test_gather_errors_and_gradients():
    x = minitorch.zeros(2, 3)
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got Int"):
        minitorch.take_along_dim(x, minitorch.zeros(2, 3, dtype=minitorch.int32), 1)
    # without a dim, PyTorch 2.15 hands the flat indices to gather: int32 taken, the rest in gather's words
    flat = minitorch.tensor([5, 0], dtype=minitorch.int32)
    assert minitorch.take_along_dim(minitorch.arange(6.0).reshape(2, 3), flat).tolist() == [5.0, 0.0]
    with pytest.raises(RuntimeError, match=r"^gather\(\): Expected dtype int32/int64 for index$"):
        minitorch.take_along_dim(x, minitorch.zeros(2, dtype=minitorch.int16))
    with pytest.raises(
        RuntimeError, match="input and indices should have the same number of dimensions, but got 2"
    ):
        minitorch.take_along_dim(x, minitorch.zeros(3, dtype=minitorch.int64), 1)
    with pytest.raises(IndexError, match="out of range: tried to access index 6 on a tensor of 6 elements."):
        minitorch.take(x, minitorch.tensor([6]))
    with pytest.raises(RuntimeError, match="take\\(\\): Expected a long tensor for index, but got Float"):
        minitorch.take(x, minitorch.tensor([1.0]))
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
        minitorch.unravel_index(minitorch.tensor([1.0]), (2, 3))
    with pytest.raises(ValueError, match=r"'shape' cannot have negative values, but got \(2, -3\)"):
        minitorch.unravel_index(minitorch.tensor([1]), (2, -3))
    g = _rand64(3, 4)
    idx = minitorch.tensor([[0, 0], [3, 1], [2, 2]])
    assert gradcheck(lambda t: minitorch.take_along_dim(t, idx, 1), (g,))
    assert gradcheck(lambda t: minitorch.take(t, idx), (g,))


_TAKE_ALONG_DIM_CASES = """
import warnings


def cases(T):
    def run(f):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # out='s resize warning
                r = f()
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            return [type(e).__name__, str(e).splitlines()[0]]
        return [str(r.dtype), list(r.shape), r.tolist()]

    x = T.arange(24.0).reshape(2, 3, 4)
    L = lambda v, dt=T.int64: T.tensor(v, dtype=dt)
    out = {
        "dim2": run(lambda: T.take_along_dim(x, L([[[0, 3]], [[2, 1]]]), 2)),  # indices broadcast over dim 1
        "dim0_bcast_input": run(lambda: T.take_along_dim(x[:, :1], L([[[1], [0]]]), 0)),  # both broadcast
        "neg_dim": run(lambda: T.take_along_dim(x, L([[[2]], [[0]]]), -2)),
        "wrapped": run(lambda: T.take_along_dim(x, L([[[-1, 4, -5, 9]]]), 2)),  # read modulo the size
        "none": run(lambda: T.take_along_dim(x, L([[23, 0], [5, 7]]))),
        "none_int32": run(lambda: T.take_along_dim(x, L([1, 2], T.int32))),
        "none_out_of_range": run(lambda: T.take_along_dim(x, L([-1]))),
        "none_strided": run(lambda: T.take_along_dim(x.transpose(0, 2), L([1]))),
        "strided_input": run(lambda: T.take_along_dim(x.transpose(0, 2), L([[[1, 0]]]), 1)),
        "strided_indices": run(lambda: T.take_along_dim(x[0], L([[3, 0, 1], [2, 2, 0]]).t(), 1)),
        "empty_indices": run(lambda: T.take_along_dim(x, T.zeros(2, 3, 0, dtype=T.int64), 2)),
        "empty_input_dim": run(lambda: T.take_along_dim(T.zeros(2, 0), T.zeros(2, 1, dtype=T.int64), 1)),
        "empty_both": run(lambda: T.take_along_dim(T.zeros(2, 0), T.zeros(2, 0, dtype=T.int64), 1)),
        "empty_batch": run(lambda: T.take_along_dim(T.zeros(0, 3), T.zeros(0, 2, dtype=T.int64), 1)),
        "int_input": run(lambda: T.take_along_dim(L([[4, 5, 6]]), L([[2, 0]]), 1)),
        "bool_input": run(lambda: T.take_along_dim(T.tensor([[True, False]]), L([[1, 1, 0]]), 1)),
        "int32_indices": run(lambda: T.take_along_dim(x, L([[[1]]], T.int32), 2)),
        "float_indices": run(lambda: T.take_along_dim(x, T.tensor([[[1.0]]]), 2)),
        "rank": run(lambda: T.take_along_dim(x, L([1]), 2)),
        "bad_bcast": run(lambda: T.take_along_dim(x, T.zeros(3, 3, 1, dtype=T.int64), 2)),
        "dim_range": run(lambda: T.take_along_dim(x, L([[[1]]]), 3)),
        "zero_dim": run(lambda: T.take_along_dim(T.tensor(3.0), L(0), 0)),
        "zero_dim_none": run(lambda: T.take_along_dim(T.tensor(3.0), L(0))),
        "dim_bool": run(lambda: T.take_along_dim(x, L([[[1]]]), True)),
        "method": run(lambda: x.take_along_dim(L([[[1]]]), dim=-1)),
        "method_none": run(lambda: x.take_along_dim(L([3]))),
    }
    o = T.empty(2, 3, 1)
    out["out"] = run(lambda: T.take_along_dim(x, L([[[3]]]), 2, out=o)) + [o is T.take_along_dim(x, L([[[3]]]), 2, out=o)]
    r = T.empty(5)
    out["out_resized"] = run(lambda: T.take_along_dim(x, L([[[0]]]), 2, out=r)) + [list(r.shape)]
    out["out_none"] = run(lambda: T.take_along_dim(x, L([0, 2]), out=T.empty(2)))
    out["out_dtype"] = run(lambda: T.take_along_dim(x, L([[[3]]]), 2, out=T.empty(2, 3, 1, dtype=T.float64)))
    out["out_int32"] = run(lambda: T.take_along_dim(x, L([[[3]]], T.int32), 2, out=T.empty(2, 3, 1)))
    w1 = T.ones(2, 3, requires_grad=True)
    out["out_requires_grad"] = run(lambda: T.take_along_dim(w1, L([[0], [2]]), 1, out=T.empty(2, 1)))
    s = T.zeros(1, 3, 2).transpose(0, 2)  # a non-contiguous out of the result's shape
    out["out_strided"] = run(lambda: T.take_along_dim(x, L([[[3]], [[1]]]), 2, out=s)) + [s.tolist()]
    w = T.arange(12.0, dtype=T.float64).reshape(3, 4).requires_grad_()
    y = T.take_along_dim(w, L([[0, 0, -1], [7, 2, 3], [1, 1, 1]]), 1)
    y.backward(T.arange(9.0, dtype=T.float64).reshape(3, 3))
    out["grad"] = [w.grad.tolist(), y.grad_fn.name()]
    wb = T.ones(1, 4, dtype=T.float64, requires_grad=True)
    T.take_along_dim(wb, L([[0, 3], [3, 3]]), 1).sum().backward()
    out["grad_broadcast"] = wb.grad.tolist()
    return out
"""


def test_take_along_dim_against_pytorch():
    """Values, broadcasting, dim=None, empty and strided operands, indices read modulo the dim's size, out= and
    the gradient (through duplicated and wrapped indices) as PyTorch 2.15's, and its errors for bad input."""
    ours, theirs = cases_here_and_in_pytorch(_TAKE_ALONG_DIM_CASES, [("torch", minitorch)])
    assert ours == theirs


# ---- block_diag, kron, tensordot, inner, vdot, cross


@pytest.mark.parametrize("dtype", DTYPES)
def test_block_diag_kron(device, dtype):
    rng = np.random.default_rng(3)
    arrs = [_np(make_array(s, dtype, rng), dtype) for s in [(2, 3), (), (2,), (0, 2), (1, 1)]]
    ts = [make_tensor(a, dtype, device, "transposed") for a in arrs]
    want = np.zeros((5, 9), dtype=np.float64)
    r = c = 0
    for m in [np.atleast_2d(a) for a in arrs]:
        want[r : r + m.shape[0], c : c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    _same(minitorch.block_diag(*ts), want)
    assert minitorch.block_diag(*ts).dtype == dtype
    mixed = minitorch.block_diag(minitorch.ones(1, dtype=minitorch.int64), minitorch.ones(1, dtype=F64))
    assert mixed.dtype == F64
    for sa, sb in [((2, 3), (3, 2)), ((2,), (3, 2)), ((2, 1, 2), (2, 2)), ((0, 2), (2, 2))]:
        a, x = _inputs(sa, dtype, device, "transposed" if len(sa) == 2 else "contiguous", 4)
        b, y = _inputs(sb, dtype, device, "strided", 5)
        got = minitorch.kron(x, y)
        _same(got, np.kron(a, b))
        assert got.dtype == dtype


def test_block_diag_fill_and_gradient_paths_agree():
    # without autograd the blocks are copied into one zero-filled result; with it the rows are catenated
    rng = np.random.default_rng(8)
    blocks = [rng.standard_normal(s) for s in [(3, 2), (1, 4), (0, 3), (2, 0), (2, 2)]]
    plain = [minitorch.tensor(b, dtype=F64) for b in blocks]
    leaves = [minitorch.tensor(b, dtype=F64, requires_grad=True) for b in blocks]
    fast, recorded = minitorch.block_diag(*plain), minitorch.block_diag(*leaves)
    assert fast.shape == recorded.shape == (8, 11) and recorded.requires_grad and not fast.requires_grad
    np.testing.assert_array_equal(fast.numpy(), recorded.detach().numpy())
    assert gradcheck(lambda a, b: minitorch.block_diag(a, b, a), (leaves[0], leaves[4]))
    with minitorch.no_grad():
        assert not minitorch.block_diag(*leaves).requires_grad


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.int64, minitorch.bool])
def test_block_diag_of_few_large_blocks(dtype):
    """up to four blocks of 16384+ elements: each block row written once (the block, zeros beside it), not a
    zero fill under the blocks: one block (a copy), two, three of mixed shapes and dtypes (promoted), a
    transposed block, and the result written over memory that held other values before"""
    rng = np.random.default_rng(12)
    npd = {minitorch.float32: np.float32, minitorch.int64: np.int64, minitorch.bool: np.bool_}[dtype]
    arrs = [(rng.standard_normal(s) * 5).astype(npd) for s in [(128, 128), (200, 100), (90, 300)]]
    for k in (1, 2, 3):
        for _ in range(2):  # the second round reuses the first's freed memory: no stale values show
            got = minitorch.block_diag(*[minitorch.from_numpy(a) for a in arrs[:k]])
            want = np.zeros((sum(a.shape[0] for a in arrs[:k]), sum(a.shape[1] for a in arrs[:k])), npd)
            r = c = 0
            for a in arrs[:k]:
                want[r : r + a.shape[0], c : c + a.shape[1]] = a
                r, c = r + a.shape[0], c + a.shape[1]
            assert got.dtype == dtype
            np.testing.assert_array_equal(got.numpy(), want)
            minitorch.full((2000, 2000), 7, dtype=dtype)
    t = minitorch.from_numpy(arrs[0]).t()
    np.testing.assert_array_equal(minitorch.block_diag(t).numpy(), arrs[0].T)
    mixed = minitorch.block_diag(minitorch.from_numpy(arrs[0]), minitorch.ones(150, 150, dtype=F64))
    assert (
        mixed.dtype == F64
        and mixed[128:, :128].abs().sum().item() == 0
        and mixed[:128, 128:].sum().item() == 0
    )


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64])
def test_tensordot_inner_vdot_cross(device, dtype):
    a, x = _inputs((2, 3, 4), dtype, device, "transposed")
    b, y = _inputs((4, 3, 5), dtype, device, "strided", 1)
    if device == "cuda" and dtype == minitorch.int64:  # no integer GEMM on CUDA, as in PyTorch
        with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
            minitorch.tensordot(x, y, 1)
        return
    _same(minitorch.tensordot(x, y, ([1, 2], [1, 0])), np.tensordot(a, b, ([1, 2], [1, 0])))
    _same(minitorch.tensordot(x, y, 1), np.tensordot(a, b, 1))
    _same(minitorch.tensordot(x, y, 0), np.tensordot(a, b, 0))
    _same(minitorch.tensordot(x, y, minitorch.tensor([[2], [0]])), np.tensordot(a, b, ([2], [0])))
    c, z = _inputs((5, 4), dtype, device, "transposed", 2)
    _same(minitorch.inner(x, z), np.inner(a, c))
    # two matrices: one product of input and other's transpose (strided and transposed sides, one row each,
    # no rows), the same values as tensordot's
    for m, w in [(x[0], z), (z, z), (z[:1], z[2:3]), (z[:0], z)]:
        _same(minitorch.inner(m, w), np.inner(m.cpu().numpy(), w.cpu().numpy()))
        assert minitorch.equal(minitorch.inner(m, w), minitorch.tensordot(m, w, ([-1], [-1])))
    _same(x.inner(minitorch.tensor(2, dtype=dtype, device=device)), a * 2)
    _same(minitorch.vdot(z[0], z[1]), np.vdot(c[0], c[1]))
    _same(z[:, 0].vdot(z[:, 1]), np.vdot(c[:, 0], c[:, 1]))
    p, u = _inputs((4, 3), dtype, device, "transposed", 6)
    q, v = _inputs((1, 3), dtype, device, "contiguous", 7)
    _same(minitorch.cross(u, v, dim=1), np.cross(p, q, axis=1))
    _same(u.cross(v, -1), np.cross(p, q))
    _same(minitorch.cross(u.t(), v.t()), np.cross(p, q).T)  # dim=None: the first dim of size 3
    assert minitorch.cross(u, v, dim=1).dtype == dtype


def test_product_errors_and_gradients():
    x = minitorch.zeros(2, 3)
    with pytest.raises(
        RuntimeError, match="contracted dimensions need to match, but first has size 3 in dim 1"
    ):
        minitorch.tensordot(x, x, dims=([1], [0]))
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0, but got dims=-1"):
        minitorch.tensordot(x, x, dims=-1)
    with pytest.raises(RuntimeError, match="both dimension lists should have same length"):
        minitorch.tensordot(x, x, dims=([0, 1], [0]))
    with pytest.raises(RuntimeError, match=r"inner\(\) the last dimension must match on both input tensors"):
        minitorch.inner(x, minitorch.zeros(4))
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        minitorch.vdot(x, minitorch.zeros(3))
    with pytest.raises(
        RuntimeError, match="expected both vectors to have same dtype, but found Float and Double"
    ):
        minitorch.vdot(minitorch.zeros(3), minitorch.zeros(3, dtype=F64))
    with pytest.raises(
        RuntimeError, match="linalg.cross: inputs dimension 1 must have length 3. Got 2 and 2"
    ):
        minitorch.cross(minitorch.zeros(2, 2), minitorch.zeros(2, 2), dim=1)
    with pytest.raises(RuntimeError, match="no dimension of size 3 in input"):
        minitorch.cross(minitorch.zeros(2, 2), minitorch.zeros(2, 2))
    with pytest.raises(
        RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(4\)"
    ):
        minitorch.cross(minitorch.zeros(2, 3), minitorch.zeros(4, 3), dim=1)
    with pytest.raises(RuntimeError, match="linalg.cross: inputs must have the same number of dimensions."):
        minitorch.cross(minitorch.zeros(3), minitorch.zeros(2, 3), dim=1)
    a, b = _rand64(2, 3), _rand64(3, 2)
    assert gradcheck(minitorch.kron, (a, b))
    # kron in one C++ call (ops/linalg.cpp): operands of different ranks, a 0-d one, mixed dtypes, its backward
    assert gradcheck(minitorch.kron, (_rand64(3), _rand64(2, 1, 2)))
    assert gradcheck(minitorch.kron, (_rand64(), _rand64(2, 2)))
    k = minitorch.kron(
        minitorch.ones(2, dtype=minitorch.int64), minitorch.tensor([[0.5, 1.5]], dtype=minitorch.float32)
    )
    assert k.dtype == minitorch.float32 and k.tolist() == [[0.5, 1.5, 0.5, 1.5]]
    assert minitorch.kron(minitorch.tensor(2.0), minitorch.tensor(3.0)).shape == ()
    assert gradcheck(lambda s, t: minitorch.tensordot(s, t, ([0, 1], [1, 0])), (a, b))
    assert gradcheck(lambda s, t: minitorch.inner(s, t.t()), (a, b))
    assert gradcheck(lambda s, t: minitorch.cross(s, t.t(), dim=1), (a, b))
    assert gradcheck(lambda s, t: minitorch.vdot(s[0], t[:, 0]), (a, b))
    assert gradcheck(lambda s, t: minitorch.block_diag(s, t), (a, b))


# ---- diff


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_diff(device, dtype, layout):
    a, x = _inputs((4, 5), dtype, device, layout)
    for n, dim in [(1, -1), (2, 0), (0, 1), (3, 1), (6, 1)]:
        _same(minitorch.diff(x, n, dim), np.diff(a, n, dim))
    p, pt = _inputs((4, 2), dtype, device, "contiguous", 1)
    q, qt = _inputs((4, 1), dtype, device, "contiguous", 2)
    _same(x.diff(2, 1, pt, qt), np.diff(a, 2, 1, prepend=p, append=q))
    s = _np(np.array(1), dtype)
    _same(x.diff(dim=0, append=minitorch.tensor(s, dtype=dtype, device=device)), np.diff(a, axis=0, append=s))
    assert minitorch.diff(x, 1, 0).dtype == dtype
    assert minitorch.diff(minitorch.zeros(0, device=device)).shape == (0,)


def test_diff_errors_and_gradients():
    with pytest.raises(RuntimeError, match="diff expects input to be at least one-dimensional"):
        minitorch.diff(minitorch.tensor(1.0))
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        minitorch.diff(minitorch.zeros(3), n=-1)
    x, p = _rand64(4, 5), _rand64(4, 1)
    assert gradcheck(lambda t, u: minitorch.diff(t, 2, -1, prepend=u), (x, p))
    # n=0 (PyTorch 2.15): a copy of the input, prepend unused; the dim checked only where prepend/append is given
    y = minitorch.diff(x, 0, 7)
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy())
    assert y.data_ptr() != x.data_ptr()
    assert minitorch.diff(x, 0, 0, prepend=p.t()).shape == (4, 5)
    with pytest.raises(IndexError, match="Dimension out of range"):
        minitorch.diff(x, 0, 7, prepend=p)


# ---- index_add / index_copy / index_fill


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_add_copy_fill(device, dtype, dim):
    a, x = _inputs((4, 5), dtype, device, "transposed")
    d = dim % 2
    idx = np.array([3, 0, 3, 1]) if d == 1 else np.array([2, 0, 2])
    sshape = (4, len(idx)) if d == 1 else (len(idx), 5)
    s, st = _inputs(sshape, dtype, device, "contiguous", 1)
    it = minitorch.tensor(idx, device=device)
    want = a.copy()
    np.add.at(want, (slice(None), idx) if d == 1 else idx, s * 2)
    _same(minitorch.index_add(x, dim, it, st, alpha=2), want)
    _same(x, a)  # out of place
    uniq = np.array([3, 0]) if d == 1 else np.array([2, 0])
    us = s[:, :2] if d == 1 else s[:2]
    want = a.copy()
    if d == 1:
        want[:, uniq] = us
    else:
        want[uniq] = us
    ut = minitorch.tensor(uniq, device=device)
    ust = make_tensor(us, dtype, device)
    _same(x.index_copy(dim, ut, ust), want)
    want = a.copy()
    if d == 1:
        want[:, idx] = 7
    else:
        want[idx] = 7
    _same(x.index_fill(dim, it, 7), want)
    _same(x.index_fill(dim, it, minitorch.tensor(7, device=device)), want)
    # in place: writes into self's storage, views included
    base = minitorch.tensor(a, dtype=dtype, device=device)
    view = base.t()
    r = view.index_fill_(1 - d, it, 7)
    assert r is view
    _same(base, want)
    y = minitorch.tensor(a, dtype=dtype, device=device)
    y.index_add_(dim, it, st)
    want = a.copy()
    np.add.at(want, (slice(None), idx) if d == 1 else idx, s)
    _same(y, want)
    y = minitorch.tensor(a, dtype=dtype, device=device)
    y.index_copy_(dim, ut, ust)
    _same(y, to_np(x.index_copy(dim, ut, ust)))
    e = minitorch.zeros(0, 5, dtype=dtype, device=device)
    assert e.index_add(1, it[:0], minitorch.zeros(0, 0, dtype=dtype, device=device)).shape == (0, 5)


def test_index_ops_errors():
    x = minitorch.zeros(2, 3)
    one = minitorch.ones(1, 3)
    with pytest.raises(
        RuntimeError, match="index_add_\\(\\): Expected dtype int32/int64 for index but got: Float"
    ):
        x.index_add(0, minitorch.tensor([0.0]), one)
    with pytest.raises(RuntimeError, match="source tensor shape must match self tensor shape, excluding the"):
        x.index_add(0, minitorch.tensor([0]), minitorch.ones(1, 4))
    with pytest.raises(IndexError, match="Index is supposed to be a vector, but got dim: 2"):
        x.index_add(0, minitorch.tensor([[0]]), one)
    with pytest.raises(
        RuntimeError, match=r"Number of indices \(2\) should be equal to source.size\(dim\): \(1\)"
    ):
        x.index_add(0, minitorch.tensor([0, 1]), one)
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 2"):
        x.index_add(0, minitorch.tensor([5]), one)
    with pytest.raises(
        RuntimeError, match=r"self \(Float\) and source \(Double\) must have the same scalar type"
    ):
        x.index_add(0, minitorch.tensor([0]), one.double())
    with pytest.raises(
        RuntimeError, match="index_copy_\\(\\): Expected a long tensor for index, but got Float"
    ):
        x.index_copy(0, minitorch.tensor([0.0]), one)
    with pytest.raises(RuntimeError, match="Source/destination tensor must have same slice shapes"):
        x.index_copy(0, minitorch.tensor([0]), minitorch.ones(1, 4))
    with pytest.raises(
        IndexError, match=r"index_copy_\(\): Number of indices \(2\) should be equal to source"
    ):
        x.index_copy(0, minitorch.tensor([0, 1]), one)
    with pytest.raises(IndexError, match="index_fill_\\(\\): Expected dtype int64 for index."):
        x.index_fill(0, minitorch.tensor([0.0]), 1)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        x.index_fill(0, minitorch.tensor([5]), 1)
    with pytest.raises(RuntimeError, match="index_fill_ only supports a 0-dimensional value tensor"):
        x.index_fill(0, minitorch.tensor([0]), minitorch.ones(2))


def test_index_ops_gradients():
    x, s = _rand64(4, 5), _rand64(4, 3)
    idx = minitorch.tensor([1, 4, 1])
    uidx = minitorch.tensor([1, 4, 0])
    assert gradcheck(lambda t, u: t.index_add(1, idx, u, alpha=3), (x, s))
    assert gradcheck(lambda t, u: minitorch.index_copy(t, -1, uidx, u), (x, s))
    assert gradcheck(lambda t: t.index_fill(1, idx, 2.5), (x,))

    def inplace(t, u):
        y = t * 1
        y.index_add_(1, idx, u)
        y.index_copy_(0, minitorch.tensor([2]), u[:1, :1].expand(1, 5))
        return y.index_fill_(1, minitorch.tensor([0]), 1.0)

    assert gradcheck(inplace, (x, s))


# ---- unfold and scatters


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unfold(device, dtype, layout):
    a, x = _inputs((5, 7), dtype, device, layout)
    for dim, size, step in [(1, 3, 1), (1, 3, 2), (0, 5, 1), (-1, 0, 3), (0, 2, 4), (1, 7, 10)]:
        got = x.unfold(dim, size, step)
        want = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim % 2)
        want = want[:, ::step] if dim % 2 == 1 else want[::step]
        _same(got, want)
    _same(minitorch.tensor(3.0, device=device).unfold(0, 1, 1), [3.0])


def test_unfold_errors_and_gradients():
    x = minitorch.zeros(2, 3)
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 1 is 3 but size is 4"):
        x.unfold(1, 4, 1)
    with pytest.raises(RuntimeError, match="step is 0 but must be > 0"):
        x.unfold(1, 2, 0)
    with pytest.raises(RuntimeError, match="size is -1 but must be >= 0"):
        x.unfold(1, -1, 1)
    g = _rand64(4, 6)
    assert gradcheck(lambda t: t.unfold(1, 3, 1), (g,))  # overlapping windows accumulate
    assert gradcheck(lambda t: t.t().unfold(0, 2, 3), (g,))
    assert gradcheck(lambda t: t[1:, 2:].unfold(1, 2, 1), (g,))


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatters(device, dtype):
    a, x = _inputs((4, 5, 3), dtype, device, "transposed")
    rng = np.random.default_rng(8)
    for dim, index in [(0, 1), (1, -1), (-1, 2)]:
        sl = np.take(a, index, axis=dim)
        src = _np(make_array(sl.shape, dtype, rng), dtype)
        want = a.copy()
        np.moveaxis(want, dim, 0)[index] = src
        _same(minitorch.select_scatter(x, make_tensor(src, dtype, device), dim, index), want)
    for dim, start, end, step in [(0, 1, 3, 1), (1, None, None, 2), (-1, -2, None, 1), (1, 4, 2, 1)]:
        key = [slice(None)] * 3
        key[dim] = slice(start, end, step)
        src = _np(make_array(a[tuple(key)].shape, dtype, rng), dtype)
        want = a.copy()
        want[tuple(key)] = src
        got = x.slice_scatter(make_tensor(src, dtype, device), dim, start, end, step)
        _same(got, want)
    for off, d1, d2 in [(0, 0, 1), (1, 0, 2), (-1, 2, 1)]:
        dshape = np.diagonal(a, off, d1, d2).shape
        src = _np(make_array(dshape, dtype, rng), dtype)
        want = a.copy()
        # write through index arrays on a view with (d1, d2) moved last, where np.diagonal puts its dim last
        n = dshape[-1]
        i = np.arange(n) + max(-off, 0)
        j = np.arange(n) + max(off, 0)
        np.moveaxis(want, (d1, d2), (-2, -1))[..., i, j] = src
        got = minitorch.diagonal_scatter(x, make_tensor(src, dtype, device), off, d1, d2)
        _same(got, want)
    _same(x, a)


def test_scatter_errors_and_gradients():
    x = minitorch.zeros(2, 3)
    with pytest.raises(
        RuntimeError, match=r"expected src to have a size equal to the slice of self. src size = \[2\]"
    ):
        minitorch.select_scatter(x, minitorch.ones(2), 0, 0)
    with pytest.raises(IndexError, match="index 2 out of range for tensor of size"):
        minitorch.select_scatter(x, minitorch.ones(3), 0, 2)
    with pytest.raises(RuntimeError, match=r"src size = \[2, 2\], slice size = \[2, 3\]"):
        minitorch.slice_scatter(x, minitorch.ones(2, 2), 1, 0, 3)
    with pytest.raises(RuntimeError, match=r"src size = \[3\], slice size = \[2\]"):
        minitorch.diagonal_scatter(x, minitorch.ones(3))
    g, s = _rand64(4, 5), _rand64(5)
    assert gradcheck(lambda t, u: minitorch.select_scatter(t, u, 0, -1), (g, s))
    assert gradcheck(lambda t, u: t.slice_scatter(u[:4].unsqueeze(1).expand(4, 2), 1, 1, 5, 2), (g, s))
    assert gradcheck(lambda t, u: t.diagonal_scatter(u[:4], 1), (g, s))


def test_tensor_methods_installed():
    x = minitorch.zeros(2, 3)
    for name in ("flip", "roll", "tile", "diag", "unfold", "index_add_", "kron", "cross", "diff", "msort"):
        assert callable(getattr(x, name))
    for name in ("meshgrid", "block_diag", "broadcast_tensors", "atleast_2d", "clone", "cartesian_prod"):
        assert callable(getattr(minitorch, name))


def test_movedim_sequences_and_select_message(device):
    """movedim takes ints or sequences (PyTorch's two overloads, its checks and words); Tensor.select words an
    out-of-range index as PyTorch's select() does, while x[i] keeps the indexing message."""
    a = np.arange(24.0).reshape(2, 3, 4)
    x = minitorch.tensor(a, device=device)
    for src, dst in [((0, 1), (1, 0)), ([0, 2], [2, 0]), ((0,), (2,)), ((), ()), ((-1, 0), (0, -1))]:
        np.testing.assert_array_equal(to_np(x.movedim(src, dst)), np.moveaxis(a, src, dst))
        np.testing.assert_array_equal(to_np(minitorch.movedim(x, src, dst)), np.moveaxis(a, src, dst))
    assert x.movedim(0, -1).shape == (3, 4, 2)
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, 0\]\)"):
        x.movedim((0, 0), (1, 2))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `destination` \(\[1, 1\]\)"):
        x.movedim((0, 1), (1, 1))
    with pytest.raises(
        RuntimeError, match=r"source \(\[0, 1\] dims\) should contain the same number of dims"
    ):
        x.movedim((0, 1), (1,))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\]"):
        x.movedim((0, 5), (1, 2))
    y = minitorch.zeros(2, 3, device=device)
    with pytest.raises(
        IndexError, match=r"^select\(\): index 2 out of range for tensor of size \[2, 3\] at dimension 0$"
    ):
        y.select(0, 2)
    with pytest.raises(
        IndexError, match=r"^select\(\): index -4 out of range for tensor of size \[2, 3\] at dimension 1$"
    ):
        minitorch.select(y, 1, -4)
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        y[2]
    np.testing.assert_array_equal(to_np(minitorch.select(x, -1, -1)), a[..., -1])


def test_roll_combinations_unfold_parse_as_pytorch():
    """PyTorch's parser in front of these composites (issue 34): the kinds it refuses raise its TypeError, and a
    one-element integer tensor stands for an int list (roll's shifts)"""
    t = minitorch.ones(3)
    cases = [
        (lambda: minitorch.roll(t, 1.5), "roll(): argument 'shifts' (position 2) must be tuple of ints, not float"),
        (lambda: minitorch.roll(t, minitorch.tensor([1.5])), "argument 'shifts' (position 2) must be tuple of ints, not Tensor"),
        (lambda: t.roll(False, False), "roll(): argument 'shifts' (position 1) must be tuple of ints, not bool"),
        (lambda: minitorch.combinations(t, None), "combinations(): argument 'r' (position 2) must be int, not NoneType"),
        (lambda: minitorch.combinations(t, True), "combinations(): argument 'r' (position 2) must be int, not bool"),
        (lambda: minitorch.combinations(t, 2, 1), "argument 'with_replacement' (position 3) must be bool, not int"),
        (lambda: minitorch.ones(2, 5).unfold(minitorch.ones(2), 2, 1),
         "unfold(): argument 'dimension' (position 1) must be int, not Tensor"),
        (lambda: minitorch.ones(2, 5).unfold(0, 2.0, 1), "unfold(): argument 'size' (position 2) must be int, not float"),
    ]  # fmt: skip
    for call, msg in cases:
        with pytest.raises(TypeError, match=re.escape(msg)):
            call()
    x = minitorch.arange(5.0)
    np.testing.assert_array_equal(
        minitorch.roll(x, minitorch.tensor([2])).numpy(), np.roll(np.arange(5.0), 2)
    )
    np.testing.assert_array_equal(
        minitorch.roll(x, minitorch.tensor(-1), 0).numpy(), np.roll(np.arange(5.0), -1)
    )


def test_tensor_split_signatures_as_pytorchs():
    """tensor_split is bound in C++ with PyTorch's three signatures (int sections, Tensor, tuple of ints indices),
    their keywords, and its refusals in PyTorch's words"""
    a = np.arange(24.0).reshape(4, 6)
    m = minitorch.tensor(a)
    x = minitorch.arange(10.0)
    shapes = lambda ts: [tuple(t.shape) for t in ts]
    assert shapes(minitorch.tensor_split(x, sections=3)) == [(4,), (3,), (3,)]
    assert shapes(x.tensor_split(indices=[3])) == [(3,), (7,)]
    assert shapes(minitorch.tensor_split(x, tensor_indices_or_sections=minitorch.tensor([3]))) == [(3,), (7,)]
    assert shapes(minitorch.tensor_split(x, minitorch.tensor(3))) == [(4,), (3,), (3,)]
    assert shapes(minitorch.tensor_split(x, (1, -3))) == [(1,), (6,), (3,)]
    assert shapes(minitorch.tensor_split(x, [8, 2])) == [(8,), (0,), (8,)]
    assert shapes(minitorch.tensor_split(x, [])) == [(10,)]
    assert shapes(minitorch.tensor_split(x, 12)) == [(1,)] * 10 + [(0,)] * 2
    for got, want in zip(minitorch.tensor_split(m, [1, 5], -1), np.split(a, [1, 5], -1)):
        np.testing.assert_array_equal(got.numpy(), want)
    for got, want in zip(m.tensor_split(3, 1), np.array_split(a, 3, 1)):
        np.testing.assert_array_equal(got.numpy(), want)
    for call, exc, msg in [
        (lambda: minitorch.tensor_split(x, 2.5), TypeError, "tensor_split() received an invalid combination of arguments - got (Tensor, float)"),
        (lambda: minitorch.tensor_split(x, [2.5]), TypeError, "tensor_split() received an invalid combination of arguments - got (Tensor, list)"),
        (lambda: m.tensor_split([1, "a"], 1), TypeError, "tensor_split(): argument 'indices' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\""),
        (lambda: minitorch.tensor_split(x, 0), RuntimeError, "number of sections must be larger than 0, got 0"),
        (lambda: minitorch.tensor_split(minitorch.tensor(1.0), 2), RuntimeError, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"),
        (lambda: minitorch.tensor_split(x, minitorch.tensor([[1]])), RuntimeError, "to be a zero-dimensional or one-dimensional tensor, but got a tensor with 2 dims"),
        (lambda: minitorch.tensor_split(x, minitorch.tensor([1.0])), RuntimeError, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float"),
        (lambda: minitorch.tensor_split(x, 3, 1), IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ]:  # fmt: skip
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    # views of the input, with gradients flowing back through each
    w = minitorch.randn(4, 6, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda t: minitorch.tensor_split(t, [1, 4], 1), (w,))


def test_int_list_arguments_word_pytorchs_errors():
    """roll is bound from the op schema: its int lists (and every schema func's) refuse in PyTorch's words, the
    first bad element "found", a later one "failed to unpack" at its own place in the list (1-based)"""
    t = minitorch.ones(3, 3, 3)
    cases = [
        (lambda: minitorch.roll(t, [1.5]), "roll(): argument 'shifts' (position 2) must be tuple of ints, but found element of type float at pos 0"),
        (lambda: minitorch.roll(t, [True]), "must be tuple of ints, but found element of type bool at pos 0"),
        (lambda: minitorch.roll(t, 1, [0, 1, 1.5]), "roll(): argument 'dims' failed to unpack the object at pos 3 with error \"type must be tuple of ints,but got float\""),
        (lambda: t.roll([1, "a"], [0, 1]), "roll(): argument 'shifts' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\""),
        (lambda: minitorch.roll(t, minitorch.tensor([1, 2]), (0, 0)), "roll(): argument 'shifts' (position 2) must be tuple of ints, not Tensor"),
        (lambda: minitorch.logsumexp(t, 1.5), "logsumexp(): argument 'dim' (position 2) must be tuple of ints, not float"),
        (lambda: minitorch.logsumexp(t, [0, 1.5]), "logsumexp(): argument 'dim' failed to unpack the object at pos 2"),
        (lambda: minitorch.logsumexp(t, [0, 1, 1.5]), "logsumexp(): argument 'dim' failed to unpack the object at pos 3 with error \"type must be tuple of ints,but got float\""),
        (lambda: minitorch.roll(t, 1, [0, 1, 2, 1.5]), "roll(): argument 'dims' failed to unpack the object at pos 4"),
        (lambda: minitorch.roll(t, [1, 1, "a"], [0, 1, 2]), "roll(): argument 'shifts' failed to unpack the object at pos 3"),
    ]  # fmt: skip
    for call, msg in cases:
        with pytest.raises(TypeError, match=re.escape(msg)):
            call()
    # what PyTorch's roll itself refuses, with its words
    for call, exc, msg in [
        (lambda: minitorch.roll(minitorch.tensor(1.0), 1, 0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
        (lambda: minitorch.roll(t, (), ()), RuntimeError, "`shifts` required"),
        (lambda: minitorch.roll(t, [1, 2]), RuntimeError, "shifts and dimensions must align. shifts: 2, dims:0"),
        (lambda: minitorch.roll(t, 1, [0, 1]), RuntimeError, "shifts and dimensions must align. shifts: 1, dims:2"),
    ]:  # fmt: skip
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    # an element that is a one-element integer tensor, keywords, dims=None, a 0-dim tensor rolled flat
    a = np.arange(27.0).reshape(3, 3, 3)
    x = minitorch.tensor(a)
    np.testing.assert_array_equal(
        minitorch.roll(x, [1, minitorch.tensor(2)], [0, -1]).numpy(), np.roll(a, (1, 2), (0, -1))
    )
    np.testing.assert_array_equal(minitorch.roll(input=x, shifts=-4, dims=None).numpy(), np.roll(a, -4))
    np.testing.assert_array_equal(x.roll(5, 1).numpy(), np.roll(a, 5, 1))
    assert minitorch.roll(minitorch.tensor(3.0), 1).item() == 3.0


def test_method_int_lists_take_separate_ints_as_pytorch():
    """A Tensor method whose first parameter is an int list takes it as separate ints, as PyTorch's parser
    (t.flip(0, 1), t.dsplit(1, 2), t.sum_to_size(1, 4)); the function form does not (issue 34)"""
    x = minitorch.arange(24.0).reshape(2, 3, 4)
    xn = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(x.flip(0, 2).numpy(), xn[::-1, :, ::-1])
    np.testing.assert_array_equal(x.flip(1).numpy(), xn[:, ::-1])
    parts = x.dsplit(1, 3)
    assert [tuple(p.shape) for p in parts] == [(2, 3, 1), (2, 3, 2), (2, 3, 1)]
    np.testing.assert_array_equal(minitorch.ones(2, 4).sum_to_size(1, 4).numpy(), np.full((1, 4), 2.0))
    assert tuple(minitorch.ones(4).tile(3, 0).shape) == (3, 0)
    np.testing.assert_array_equal(minitorch.arange(2.0).tile(2, 2).numpy(), np.tile(np.arange(2.0), (2, 2)))
    # not when the int list has a second positional parameter: t.roll(4, 1) is shifts=4 along dim 1
    np.testing.assert_array_equal(x.roll(4, 1).numpy(), np.roll(xn, 4, 1))
    with pytest.raises(
        IndexError, match=re.escape("Dimension out of range (expected to be in range of [-3, 2], but got 3)")
    ):
        x.roll(4, 3)
    cases = [
        (lambda: minitorch.ones(3, 3).dsplit(1, 1), RuntimeError,
         "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!"),
        (lambda: minitorch.hsplit(minitorch.ones(3, 3), 1, 1), TypeError,
         "hsplit() received an invalid combination of arguments - got (Tensor, int, int)"),
        (lambda: minitorch.flip(minitorch.ones(3), 5), TypeError, "flip(): argument 'dims' (position 2) must be tuple of ints, not int"),
        (lambda: minitorch.ones(3).flip(1, 2, 0), IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
        (lambda: minitorch.ones(3).flip([minitorch.tensor([0.5, 1.0])]), TypeError,
         "flip(): argument 'dims' (position 1) must be tuple of ints, but found element of type Tensor at pos 0"),
        (lambda: minitorch.ones(3).sum_to_size(minitorch.ones(0), 0, True), TypeError,
         "sum_to_size() takes 1 positional argument but 3 were given"),
        (lambda: minitorch.ones(4).split_with_sizes(minitorch.tensor([1, 3])), TypeError,
         "split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not Tensor"),
    ]  # fmt: skip
    for call, cls, msg in cases:
        with pytest.raises(cls) as e:
            call()
        assert type(e.value) is cls and msg in str(e.value), (msg, e.value)


def test_sum_to_size_of_an_empty_size_is_sum():
    # PyTorch's sum_to: a 0-dim target is sum() itself, so integers widen to int64 even from a 0-dim tensor
    import minitorch as T

    assert T.tensor(4, dtype=T.int32).sum_to_size([]).dtype == T.int64
    assert T.ones(2, 3, dtype=T.int32).sum_to_size([]).item() == 6
    assert T.tensor(2.0).sum_to_size(()).item() == 2.0


def test_repeat_and_sum_to_size_take_their_keyword_forms():
    # PyTorch's signatures are repeat(*repeats) / sum_to_size(*size), with the list also accepted by keyword
    x = minitorch.arange(6.0).reshape(2, 3)
    assert minitorch.equal(x.repeat(repeats=(2, 1)), x.repeat(2, 1))
    assert minitorch.equal(x.repeat(repeats=minitorch.Size([1, 2])), x.repeat(1, 2))
    assert x.sum_to_size(size=(1, 3)).tolist() == [[3.0, 5.0, 7.0]]
    assert x.sum_to_size(size=[3]).tolist() == [3.0, 5.0, 7.0]
    cases = [
        (lambda: x.repeat(2, repeats=(2,)), "repeat() got multiple values for argument 'repeats'"),
        (lambda: x.repeat(), 'repeat() missing 1 required positional arguments: "repeats"'),
        (lambda: x.repeat(foo=1), 'repeat() missing 1 required positional arguments: "repeats"'),
        (lambda: x.repeat(2, 1, foo=1), "repeat() got an unexpected keyword argument 'foo'"),
        (lambda: x.repeat(repeats=2), "repeat(): argument 'repeats' must be tuple of ints, not int"),
        (lambda: x.sum_to_size(3, size=(3,)), "sum_to_size() got multiple values for argument 'size'"),
        (lambda: x.sum_to_size(), 'sum_to_size() missing 1 required positional arguments: "size"'),
        (lambda: x.sum_to_size(size=3), "sum_to_size(): argument 'size' must be tuple of ints, not int"),
        (lambda: x.sum_to_size(3, foo=1), "sum_to_size() got an unexpected keyword argument 'foo'"),
    ]
    for call, msg in cases:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == msg


def test_slice_scatter_leaves_input_alone_and_casts_src():
    # the result is a fresh clone with the slice overwritten: the input keeps its values, a src of another
    # dtype is cast to the input's, an empty slice (start past end) takes an empty src and returns a copy
    a = np.arange(12.0).reshape(3, 4)
    x = minitorch.tensor(a)
    out = minitorch.slice_scatter(x, minitorch.tensor([[7, 8], [9, 10], [11, 12]]), 1, 1, None, 2)
    want = a.copy()
    want[:, 1::2] = [[7, 8], [9, 10], [11, 12]]
    assert out.dtype == minitorch.float64 and out.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(x.numpy(), a)
    same = minitorch.slice_scatter(x, minitorch.zeros(3, 0), 1, 3, 1)
    assert same.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(same.numpy(), a)
    np.testing.assert_array_equal(
        minitorch.slice_scatter(x, minitorch.ones(1, 4), 0, -1).numpy()[2], np.ones(4)
    )


@pytest.mark.parametrize("nbytes", [1000, 1024, 1027, 4108, 65540, 1 << 20, (1 << 20) + 12])
def test_bulk_copies_at_every_offset(nbytes):
    """Contiguous copies whose destination lies 1..63 bytes past the source's 64-byte alignment go through
    the vector loop of copy_bytes (glibc's memcpy is slow there): clone of a slice at each byte offset, roll
    and cat of uint8/float32/float64, sizes about its 1 KiB and 1 MiB bounds and ragged tails."""
    rng = np.random.default_rng(nbytes)
    base = rng.integers(0, 256, size=nbytes + 64, dtype=np.uint8)
    t = minitorch.from_numpy(base.copy())
    for off in (0, 1, 3, 8, 15, 16, 40, 63):
        np.testing.assert_array_equal(to_np(t[off : off + nbytes].clone()), base[off : off + nbytes])
    for dtype, np_dtype in ((minitorch.float32, np.float32), (minitorch.float64, np.float64)):
        n = nbytes // np.dtype(np_dtype).itemsize
        v = rng.standard_normal(n).astype(np_dtype)
        x = minitorch.tensor(v, dtype=dtype)
        for shift in (1, 2, 3, -5):
            np.testing.assert_array_equal(to_np(x.roll(shift)), np.roll(v, shift))
        np.testing.assert_array_equal(
            to_np(minitorch.cat([x[:3], x[5:], x[1:4]])), np.concatenate([v[:3], v[5:], v[1:4]])
        )
        m = v[: (n // 4) * 4].reshape(4, -1)
        np.testing.assert_array_equal(to_np(minitorch.tensor(m, dtype=dtype).roll(1, 1)), np.roll(m, 1, 1))


@pytest.mark.parametrize("row_bytes", [1000, 1028, 4100, 65540, (1 << 20) + 4])
def test_row_copies_at_odd_offsets(row_bytes):
    """The row moves of index_select / x[i] (gather), index_put_ (put), embedding and triu/tril go through
    copy_bytes too: rows whose byte size is not a multiple of 64 put destination and source at every
    offset, for float32, float64 and uint8 rows, against NumPy's fancy indexing."""
    rng = np.random.default_rng(row_bytes)
    for np_dtype in (np.float32, np.float64, np.uint8):
        d = row_bytes // np.dtype(np_dtype).itemsize
        rows = 3 if row_bytes > 70000 else 9
        v = (rng.standard_normal((rows, d)) * 50).astype(np_dtype)
        idx = rng.integers(0, rows, 2 * rows)
        x, i = minitorch.from_numpy(v.copy()), minitorch.from_numpy(idx)
        np.testing.assert_array_equal(to_np(minitorch.index_select(x, 0, i)), v[idx])
        np.testing.assert_array_equal(to_np(x[i]), v[idx])
        np.testing.assert_array_equal(to_np(x[1:][i[i < rows - 1]]), v[1:][idx[idx < rows - 1]])
        if np_dtype != np.uint8:
            np.testing.assert_array_equal(to_np(minitorch.nn.functional.embedding(i, x)), v[idx])
        put = (rng.standard_normal((rows, d)) * 50).astype(np_dtype)
        perm = rng.permutation(rows)
        got = x.clone().index_put_((minitorch.from_numpy(perm),), minitorch.from_numpy(put))
        want = v.copy()
        want[perm] = put
        np.testing.assert_array_equal(to_np(got), want)
        for k in (-1, 0, 3):
            np.testing.assert_array_equal(to_np(minitorch.triu(x[:, 1:], k)), np.triu(v[:, 1:], k))
            np.testing.assert_array_equal(to_np(minitorch.tril(x[:, 1:], k)), np.tril(v[:, 1:], k))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32, np.float64, np.complex128])
def test_cat_inner_dim_short_runs(dtype):
    """cat along an inner dim whose parts' rows are 16..127 bytes (moved inline) or longer, beside parts of
    under 16 bytes a row (the per-input copies): every byte where NumPy's concatenate puts it, a 3-D batch, a
    transposed part, and a result large enough to run in chunks"""
    rng = np.random.default_rng(32)
    width = np.dtype(dtype).itemsize
    for rows, cols in [
        (3, (16, 16, 16)),
        (5, (1, 17, 5, 40)),
        (9, (33, 2, 127)),
        (4097, (16, 16, 16)),
        (2, (3,)),
    ]:
        parts = [
            np.frombuffer(
                rng.integers(0, 256, size=rows * c * width, dtype=np.uint8).tobytes(), dtype
            ).reshape(rows, c)
            for c in cols
        ]
        got = minitorch.cat([minitorch.from_numpy(p.copy()) for p in parts], 1)
        assert np.array_equal(got.numpy().view(np.uint8), np.concatenate(parts, 1).view(np.uint8))
        b = [p.reshape(1, rows, -1).repeat(2, 0) for p in parts]
        got = minitorch.cat([minitorch.from_numpy(p.copy()) for p in b], 2)
        assert np.array_equal(got.numpy().view(np.uint8), np.concatenate(b, 2).view(np.uint8))
        tr = minitorch.from_numpy(np.ascontiguousarray(parts[0].T)).t()
        got = minitorch.cat([tr] + [minitorch.from_numpy(p.copy()) for p in parts[1:]], 1)
        assert np.array_equal(got.numpy().view(np.uint8), np.concatenate(parts, 1).view(np.uint8))


def test_cat_dim0_row_copies():
    """cat (and stack) along dim 0 of contiguous CPU inputs below 1 MiB moves each input with one copy (cat's
    row path, outer = 1); a transposed input, a dtype to promote, 1-D empties and tiny parts take the general
    copies, a result of 1 MiB or more the threaded copy kernel: all against NumPy, gradients too."""
    rng = np.random.default_rng(31)
    parts = [rng.standard_normal((k, 100)).astype(np.float32) for k in (33, 1, 7, 33)]
    ts = [minitorch.from_numpy(p) for p in parts]
    np.testing.assert_array_equal(to_np(minitorch.cat(ts)), np.concatenate(parts))
    np.testing.assert_array_equal(to_np(minitorch.stack(ts[:1] + ts[3:])), np.stack([parts[0], parts[3]]))
    tr = minitorch.from_numpy(np.ascontiguousarray(parts[0].T)).t()  # not contiguous
    np.testing.assert_array_equal(
        to_np(minitorch.cat([ts[1], tr, ts[2]])), np.concatenate([parts[1], parts[0], parts[2]])
    )
    mixed = minitorch.cat([ts[1], minitorch.from_numpy(parts[2].astype(np.float64))])
    assert mixed.dtype == minitorch.float64
    np.testing.assert_array_equal(to_np(mixed), np.concatenate([parts[1], parts[2]]).astype(np.float64))
    empty1d = minitorch.empty(0)
    np.testing.assert_array_equal(
        to_np(minitorch.cat([empty1d, ts[2], empty1d, ts[1]])), np.concatenate([parts[2], parts[1]])
    )
    small = [minitorch.arange(3.0), minitorch.arange(5.0)]  # runs under 128 bytes
    np.testing.assert_array_equal(
        to_np(minitorch.cat(small)), np.concatenate([np.arange(3.0), np.arange(5.0)])
    )
    big = [rng.standard_normal((700, 100)) for _ in range(2)]  # 1.1 MB of float64
    np.testing.assert_array_equal(
        to_np(minitorch.cat([minitorch.from_numpy(b) for b in big])), np.concatenate(big)
    )
    leaves = [minitorch.from_numpy(p.astype(np.float64)).requires_grad_() for p in parts[:2]]
    out = minitorch.stack([leaves[0][:1], leaves[1]])
    out.backward(minitorch.ones(2, 1, 100, dtype=minitorch.float64) * 3)
    assert leaves[1].grad.tolist() == [[3.0] * 100]
    np.testing.assert_array_equal(to_np(leaves[0].grad)[1:], 0)
