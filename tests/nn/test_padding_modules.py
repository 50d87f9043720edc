"""The padding layers (nn.ZeroPad2d, ConstantPad*, ReflectionPad*, ReplicationPad*, CircularPad*): values against
np.pad, gradients, PyTorch's reprs."""

import numpy as np
import pytest
from conftest import DEVICES

import minitorch
from minitorch import nn

NP_MODE = {
    "Constant": "constant",
    "Zero": "constant",
    "Reflection": "reflect",
    "Replication": "edge",
    "Circular": "wrap",
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", sorted(NP_MODE))
@pytest.mark.parametrize("nd,padding", [(1, 2), (1, (1, 3)), (2, 1), (2, (1, 2, 0, 2))])
def test_values_match_numpy(kind, nd, padding, device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3) + (5,) * nd)
    cls = getattr(nn, f"{kind}Pad{nd}d")
    layer = cls(padding, 1.5) if kind == "Constant" else cls(padding)
    out = layer(minitorch.tensor(x, device=device))
    p = (padding,) * (2 * nd) if isinstance(padding, int) else padding
    # F.pad's tuple starts at the last dim; np.pad wants (before, after) per dim from the first
    widths = [(0, 0), (0, 0)] + [(p[2 * i], p[2 * i + 1]) for i in reversed(range(nd))]
    kw = {"constant_values": 1.5 if kind == "Constant" else 0.0} if NP_MODE[kind] == "constant" else {}
    np.testing.assert_array_equal(out.cpu().numpy(), np.pad(x, widths, mode=NP_MODE[kind], **kw))


@pytest.mark.parametrize("kind", ["Reflection", "Replication", "Zero"])
def test_gradcheck(kind):
    x = minitorch.randn(1, 2, 4, 3, dtype=minitorch.float64, requires_grad=True)
    layer = getattr(nn, f"{kind}Pad2d")((1, 2, 2, 1))
    assert minitorch.autograd.gradcheck(layer, (x,))


def test_reprs():
    assert repr(nn.ZeroPad2d(1)) == "ZeroPad2d((1, 1, 1, 1))"
    assert repr(nn.ConstantPad2d(2, 3.5)) == "ConstantPad2d(padding=(2, 2, 2, 2), value=3.5)"
    assert repr(nn.ReflectionPad2d((1, 2, 3, 4))) == "ReflectionPad2d((1, 2, 3, 4))"
    assert repr(nn.ReplicationPad1d(2)) == "ReplicationPad1d((2, 2))"
    assert repr(nn.CircularPad2d(1)) == "CircularPad2d((1, 1, 1, 1))"
    assert repr(nn.ReflectionPad3d(1)) == "ReflectionPad3d((1, 1, 1, 1, 1, 1))"


def test_reflection_pad_too_large_raises():
    with pytest.raises(
        RuntimeError, match="Padding size should be less than the corresponding input dimension"
    ):
        nn.ReflectionPad2d(3)(minitorch.zeros(1, 1, 3, 3))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(1, 2, 2, 0), (3, 3, 2, 2), (0, 1, 1, 0), (-1, 2, 0, 1), (2, -1, 1, 1)])
def test_non_constant_modes_with_negative_pads_match_pytorch(mode, pad, device):
    """F.pad's edge slabs (a cat per padded dim): values and gradients on every device against PyTorch's rules,
    negative pads included (circular crops first, then wraps within what is left, as PyTorch's)"""
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    got = minitorch.nn.functional.pad(minitorch.tensor(x, device=device), pad, mode=mode).cpu().numpy()
    want = x
    for i in range(len(pad) // 2):
        axis, lo, hi = x.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        if mode == "circular":  # crop the negative sides, then wrap
            n = want.shape[axis]
            want = np.take(want, range(max(-lo, 0), n - max(-hi, 0)), axis=axis)
            want = np.pad(
                want, [(0, 0)] * axis + [(max(lo, 0), max(hi, 0))] + [(0, 0)] * (x.ndim - 1 - axis), "wrap"
            )
        else:
            npm = "reflect" if mode == "reflect" else "edge"
            want = np.pad(
                want, [(0, 0)] * axis + [(max(lo, 0), max(hi, 0))] + [(0, 0)] * (x.ndim - 1 - axis), npm
            )
            n = want.shape[axis]
            want = np.take(want, range(max(-lo, 0), n - max(-hi, 0)), axis=axis)
    np.testing.assert_array_equal(got, want)
    t = minitorch.tensor(x[:1, :1], device=device, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda v: minitorch.nn.functional.pad(v, pad, mode=mode), (t,))


def test_non_constant_pad_refusals_name_the_argument():
    x = minitorch.zeros(1, 1, 3, 4)
    with pytest.raises(RuntimeError, match=r"Argument #6: Padding size should be less than"):
        minitorch.nn.functional.pad(x, (0, 0, 3, 3), mode="reflect")
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once."):
        minitorch.nn.functional.pad(x, (5, 0, 0, 0), mode="circular")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "pad", [(1, 2), (2, 0, 0, 3), (1, 1, 2, 2, 1, 0), (-1, 2, 0, 1), (2, -1, -2, 1), (-1, -1), (0, 0, 0, 0)]
)
def test_constant_pad_values_strides_and_negative_pads(pad, device):
    """F.pad's constant mode (one fill of the result, the input copied into its interior): values against
    np.pad with the negative sides cropped, on a strided input, a fresh result even without padding"""
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    t = minitorch.tensor(x.transpose(0, 1, 3, 2).copy(), device=device).transpose(2, 3)  # x's values, strided
    assert not t.is_contiguous()
    got = minitorch.nn.functional.pad(t, pad, value=-1.5)
    want = x
    for i in range(len(pad) // 2):
        axis, lo, hi = x.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        want = np.pad(
            want,
            [(0, 0)] * axis + [(max(lo, 0), max(hi, 0))] + [(0, 0)] * (x.ndim - 1 - axis),
            constant_values=-1.5,
        )
        n = want.shape[axis]
        want = np.take(want, range(max(-lo, 0), n - max(-hi, 0)), axis=axis)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    assert got.data_ptr() != t.data_ptr()  # PyTorch's result never aliases the input
    got.fill_(0.0)
    np.testing.assert_array_equal(t.cpu().numpy(), x)
    g = minitorch.tensor(x[:1, :2], device=device, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda v: minitorch.nn.functional.pad(v, pad, value=2.0), (g,))


@pytest.mark.parametrize("device", DEVICES)
def test_constant_pad_dtypes_empty_inputs_and_refusals(device):
    F = minitorch.nn.functional
    b = F.pad(minitorch.tensor([True, False], device=device), (1, 1), value=1)
    assert b.dtype == minitorch.bool and b.tolist() == [True, True, False, True]
    i = F.pad(minitorch.tensor([1, 2], device=device), (1, 1), value=2)
    assert i.dtype == minitorch.int64 and i.tolist() == [2, 1, 2, 2]
    e = F.pad(minitorch.zeros(0, 3, device=device), (1, 1))
    assert e.shape == (0, 5)
    np.testing.assert_array_equal(
        F.pad(minitorch.zeros(0, 3, device=device), (0, 0, 1, 1)).cpu().numpy(), np.zeros((2, 3))
    )
    x = minitorch.zeros(2, 3, 4, device=device)
    # PyTorch crops with narrow: a side cropped past the dim's size is its negative-length error
    for pad in [(-5, 0), (1, -5), (-3, -3), (0, 0, -4, 0)]:
        with pytest.raises(RuntimeError, match=r"^narrow\(\): length must be non-negative\.$"):
            F.pad(x, pad)
    assert F.pad(x, (-2, -2)).shape == (2, 3, 0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_reflect_replicate_take_an_empty_batch_only(mode, k, device):
    # PyTorch's kernels: a batched input may have 0 samples, every other dim (all of an unbatched one) has elements
    F = minitorch.nn.functional
    for nd in (k + 1, k + 2):
        for zero in range(nd):
            shape = [2] * nd
            shape[zero] = 0
            x = minitorch.zeros(*shape, device=device)
            if nd == k + 2 and zero == 0:
                assert F.pad(x, [1, 1] * k, mode=mode).shape == tuple([0, 2] + [4] * k)
                continue
            msg = (
                rf"^Expected {k + 1}D or {k + 2}D \(batch mode\) tensor with possibly 0 batch size and other "
                rf"non-zero dimensions for input, but got: \[{', '.join(map(str, shape))}\]$"
            )
            with pytest.raises(RuntimeError, match=msg):
                F.pad(x, [1, 1] * k, mode=mode)
    # the module spelling, an integer input (the fuzzer's case: checked before any kernel)
    with pytest.raises(RuntimeError, match=r"but got: \[0, 3\]$"):
        nn.ReplicationPad1d([1, 4])(minitorch.empty((0, 3), dtype=minitorch.int64, device=device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("nd,padding", [(1, 16), (1, (0, 9)), (2, (7, 0, 1, 12)), (3, (5, 1, 0, 6, 4, 4))])
def test_replication_pad_wider_than_the_dim(nd, padding, device):
    """a replicated edge repeats to any width (the edge slab expanded, not an index list), on a non-contiguous
    input too; gradients sum each edge's repeats"""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3) + (4, 3, 2)[:nd])
    p = (padding,) * (2 * nd) if isinstance(padding, int) else padding
    widths = [(0, 0), (0, 0)] + [(p[2 * i], p[2 * i + 1]) for i in reversed(range(nd))]
    layer = getattr(nn, f"ReplicationPad{nd}d")(padding)
    for t in (minitorch.tensor(x, device=device), minitorch.tensor(x.swapaxes(0, 1).copy(), device=device)):
        src = t if t.shape[0] == 2 else t.transpose(0, 1)
        np.testing.assert_array_equal(layer(src).cpu().numpy(), np.pad(x, widths, mode="edge"))
    t = minitorch.tensor(x[:1, :1], device=device, requires_grad=True)
    assert minitorch.autograd.gradcheck(layer, (t,))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "mode,np_mode", [("replicate", "edge"), ("reflect", "reflect"), ("circular", "wrap")]
)
@pytest.mark.parametrize("shape", [(2, 16, 4), (3, 7), (1, 5, 9), (40, 33, 30)])
def test_small_one_dim_pads_gather_path(mode, np_mode, shape, device):
    """F.pad's one-gather path for small 1-D non-constant pads (and the slab path above its size): np.pad's
    values at each pad width up to the limits (reflect below the dim, circular up to it), a strided input, the
    gradient of each source element summed over its copies, the index cache keyed by every argument"""
    rng = np.random.default_rng(1)
    n = shape[-1]
    widths = {"replicate": (0, 1, n, n + 5), "reflect": (0, 1, n - 1), "circular": (0, 1, n)}[mode]
    x = rng.standard_normal(shape)
    xs = minitorch.tensor(x, device=device)
    for lo in widths:
        for hi in widths:
            want = np.pad(x, [(0, 0)] * (len(shape) - 1) + [(lo, hi)], mode=np_mode)
            np.testing.assert_array_equal(nn.functional.pad(xs, (lo, hi), mode).cpu().numpy(), want)
            np.testing.assert_array_equal(nn.functional.pad(xs, [lo, hi], mode=mode).cpu().numpy(), want)
    # strided: the transposed view pads as its copy
    xt = minitorch.tensor(np.ascontiguousarray(x.swapaxes(-1, -2)), device=device).transpose(-1, -2)
    np.testing.assert_array_equal(
        nn.functional.pad(xt, (2, 1), mode).cpu().numpy(),
        np.pad(x, [(0, 0)] * (len(shape) - 1) + [(2, 1)], mode=np_mode),
    )
    # the gradient: each source element's copies summed
    g = minitorch.tensor(x, device=device, requires_grad=True)
    w = rng.standard_normal(np.pad(x, [(0, 0)] * (len(shape) - 1) + [(1, 2)], mode=np_mode).shape)
    (nn.functional.pad(g, (1, 2), mode) * minitorch.tensor(w, device=device)).sum().backward()
    idx = np.pad(np.arange(n), (1, 2), mode=np_mode)
    want = np.zeros_like(x)
    for j, src in enumerate(idx):
        want[..., src] += w[..., j]
    np.testing.assert_allclose(g.grad.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


def test_small_one_dim_pads_keep_pytorchs_refusals():
    """the limits of the gather path are the general path's errors: reflect by the dim's size, circular past
    it, a bool input, an empty dim, a 1-D or 4-D input"""
    x = minitorch.ones(2, 3, 4)
    with pytest.raises(
        RuntimeError, match="Padding size should be less than the corresponding input dimension"
    ):
        nn.functional.pad(x, (4, 0), "reflect")
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once"):
        nn.functional.pad(x, (0, 5), "circular")
    with pytest.raises(NotImplementedError, match="replication_pad1d"):
        nn.functional.pad(minitorch.ones(2, 3, 4, dtype=minitorch.bool), (1, 1), "replicate")
    with pytest.raises(RuntimeError, match="Expected 2D or 3D"):
        nn.functional.pad(minitorch.ones(2, 0, 4), (1, 1), "replicate")
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 1D input"):
        nn.functional.pad(minitorch.ones(4), (1, 1), "replicate")
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 4D input"):
        nn.functional.pad(minitorch.ones(1, 2, 3, 4), (1, 1), "reflect")
