"""torch.func.vmap: batching rules against an explicit loop over the batch (float64), in_dims/out_dims and their
errors (PyTorch's words), randomness modes, chunk_size, nesting, the per-op loop fallback and its warning."""

import warnings

import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.func import vmap
from minitorch.testing import assert_close

D = torch.float64


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def rand(*shape, device="cpu"):
    return torch.randn(shape, dtype=D, device=device)


def loop(f, in_dims=0, out_dims=0):
    """The reference: f on each batch entry, results stacked along out_dims."""

    def run(*args):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
        outs = [f(*[a if d is None else a.select(d, i) for a, d in zip(args, dims)]) for i in range(size)]
        if isinstance(outs[0], tuple):
            od = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(outs[0])
            return tuple(
                outs[0][j] if od[j] is None else torch.stack([o[j] for o in outs], od[j])
                for j in range(len(od))
            )
        return torch.stack(outs, out_dims)

    return run


def check(f, *args, in_dims=0, out_dims=0, **tol):
    got = vmap(f, in_dims=in_dims, out_dims=out_dims)(*args)
    want = loop(f, in_dims, out_dims)(*args)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            assert_close(g, w, **tol)
    else:
        assert got.shape == want.shape, (got.shape, want.shape)
        assert_close(got, want, **tol)
    return got


# ------------------------------------------------------------------------------------------------ pointwise


@pytest.mark.parametrize(
    "f",
    [
        torch.sin,
        torch.exp,
        lambda x: x.relu(),
        lambda x: -x,
        lambda x: abs(x),
        lambda x: x * 2 + 1,
        lambda x: 1 - x,
        lambda x: 2 / (x.abs() + 1),
        lambda x: x**2,
        lambda x: 2**x,
        lambda x: F.gelu(x),
        lambda x: F.softplus(x, beta=2.0),
        lambda x: F.leaky_relu(x, 0.2),
        lambda x: torch.clamp(x, -0.5, 0.5),
        lambda x: torch.where(x > 0, x, torch.zeros_like(x)),
        lambda x: (x > 0).to(D),
        lambda x: x.double().float().double(),
        lambda x: torch.nan_to_num(x / 0.0, nan=0.0, posinf=1.0, neginf=-1.0),
    ],
)
def test_unary_pointwise(f, device):
    check(f, rand(4, 3, 2, device=device))


@pytest.mark.parametrize(
    "shapes,in_dims",
    [
        (((4, 3), (4, 3)), (0, 0)),
        (((4, 3), (3,)), (0, None)),
        (((3,), (4, 3)), (None, 0)),
        (((4, 3), (4, 2, 3)), (0, 0)),  # different logical ranks broadcast as without vmap
        (((4, 2, 1), (4, 3)), (0, 0)),
        (((2, 4, 3), (3, 4)), (1, 1)),
        (((3, 4), (4, 3)), (-1, 0)),
        (((4, 3), (2, 3)), (0, None)),
        (((4,), (4, 2, 3)), (0, 0)),  # a batched scalar against a batched matrix
        (((4, 3), ()), (0, None)),
    ],
)
@pytest.mark.parametrize(
    "op", [torch.add, torch.mul, torch.sub, torch.maximum, torch.atan2, lambda a, b: a / (b * b + 1)]
)
def test_binary_broadcast(shapes, in_dims, op):
    a, b = rand(*shapes[0]), rand(*shapes[1])
    check(op, a, b, in_dims=in_dims)


def test_operators_with_scalars_and_reflection():
    x = rand(5, 3)
    check(lambda a: (a + 1, 1 + a, a - 2, 2 - a, a * 3, 3 * a, a / 4, 4 / (a.abs() + 1), a**2, 2**a), x)
    check(lambda a: (a > 0, a <= 0.5, a == a.clone(), a != 1.0), x)
    y = rand(5, 3)
    check(lambda a, b: (a @ b.unsqueeze(-1), a % 0.7, a // 0.3), x, y)


def test_non_contiguous_inputs():
    base = rand(3, 6, 4)
    x = base.transpose(0, 2)  # (4, 6, 3), not contiguous
    assert not x.is_contiguous()
    check(lambda a: a.sin() * a.sum(0), x, in_dims=1)
    check(lambda a: a.view(-1), x.contiguous(), in_dims=2)
    check(lambda a: a.reshape(-1), x, in_dims=2)


def test_empty_batch_and_empty_entries():
    out = vmap(torch.sin)(rand(0, 3))
    assert out.shape == (0, 3)
    out = vmap(lambda a: a.sum(0))(rand(4, 0))
    assert out.shape == (4,)
    assert_close(out, torch.zeros(4, dtype=D))


# ------------------------------------------------------------------------------------------------ reductions


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x.sum(),
        lambda x: x.sum(0),
        lambda x: x.sum(-1, keepdim=True),
        lambda x: x.sum((0, 1)),
        lambda x: x.mean(1),
        lambda x: x.mean(),
        lambda x: x.prod(1),
        lambda x: x.prod(),
        lambda x: x.std(0),
        lambda x: x.var(correction=0),
        lambda x: x.amax(1),
        lambda x: x.amin(),
        lambda x: x.max(),
        lambda x: x.min(),
        lambda x: x.argmax(),
        lambda x: x.argmax(1),
        lambda x: x.logsumexp(1),
        lambda x: x.norm(),
        lambda x: x.norm(dim=1),
        lambda x: (x > 0).all(1),
        lambda x: (x > 0).any(),
        lambda x: torch.sum(x, dim=0),
        lambda x: torch.softmax(x, 1),
        lambda x: F.softmax(x, dim=0),
        lambda x: F.log_softmax(x, dim=-1),
        lambda x: x.cumsum(1),
        lambda x: x.cumprod(0),
        lambda x: F.normalize(x, dim=1),
    ],
)
def test_reductions(f):
    check(f, rand(5, 3, 4))


def test_reductions_returning_tuples():
    x = rand(5, 3, 4)
    got = vmap(lambda a: a.max(1))(x)
    want = x.max(2)
    assert_close(got.values, want.values)
    assert_close(got.indices, want.indices)
    check(lambda a: tuple(a.sort(1)), x)
    check(lambda a: tuple(a.topk(2, dim=0)), x)
    check(lambda a: tuple(torch.min(a, -1)), x)


def test_reduction_of_scalar_entries():
    x = rand(5)
    check(lambda a: a.sum(), x)
    check(lambda a: a.sum(0), x)
    check(lambda a: a.mean(-1), x)


def test_dim_out_of_range_counts_logical_dims():
    with pytest.raises(
        IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"
    ):
        vmap(lambda a: a.sum(2))(rand(5, 3, 4))
    with pytest.raises(
        IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"
    ):
        vmap(lambda a: a.softmax(2))(rand(5, 3, 4))


# ------------------------------------------------------------------------------------------------ views


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x.view(12),
        lambda x: x.view(-1, 2),
        lambda x: x.reshape(2, 6),
        lambda x: torch.reshape(x, (4, 3)),
        lambda x: x.permute(1, 0),
        lambda x: torch.permute(x, (1, 0)),
        lambda x: x.transpose(0, 1),
        lambda x: x.t(),
        lambda x: x.T,
        lambda x: x.mT,
        lambda x: x.unsqueeze(0),
        lambda x: x.unsqueeze(-1),
        lambda x: torch.unsqueeze(x, 1),
        lambda x: x.unsqueeze(1).squeeze(),
        lambda x: x.unsqueeze(0).squeeze(0),
        lambda x: x.flatten(),
        lambda x: x.unsqueeze(0).flatten(1),
        lambda x: x.select(1, 2),
        lambda x: x.narrow(0, 1, 2),
        lambda x: x.expand(2, 3, 4),
        lambda x: x[:, :1].expand(3, 4),
        lambda x: x.unsqueeze(0).expand_as(torch.zeros(2, 3, 4)),
        lambda x: x.movedim(0, 1),
        lambda x: x.repeat(2, 1),
        lambda x: x.flip(0),
        lambda x: x.unflatten(1, (2, 2)),
        lambda x: x.contiguous(),
        lambda x: x.clone(),
        lambda x: x.split(2, 1),
        lambda x: x.chunk(3, 0),
        lambda x: x.unbind(1),
        lambda x: x.diagonal(),
        lambda x: torch.tile(x, (2,)),
    ],
)
def test_views_and_shapes(f):
    check(f, rand(5, 3, 4)) if not isinstance(f(rand(3, 4)), (tuple, list)) else _check_tuple(
        f, rand(5, 3, 4)
    )


def _check_tuple(f, x):
    got = vmap(lambda a: tuple(f(a)))(x)
    want = loop(lambda a: tuple(f(a)))(x)
    for g, w in zip(got, want):
        assert_close(g, w)


def test_view_errors_count_logical_dims():
    with pytest.raises(IndexError, match=r"expected to be in range of \[-3, 2\], but got 3"):
        vmap(lambda a: a.unsqueeze(3))(rand(3, 2, 2))
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        vmap(lambda a: a.transpose(0, 2))(rand(3, 2, 4))
    with pytest.raises(RuntimeError, match=r"the number of sizes provided \(1\) must be greater or equal"):
        vmap(lambda a: a.expand(2))(rand(3, 2, 4))
    with pytest.raises(RuntimeError, match="invalid for input of size"):
        vmap(lambda a: a.view(5))(rand(3, 2, 2))


def test_view_shares_storage():
    x = rand(4, 3)
    out = vmap(lambda a: a.view(3, 1))(x)
    out[0, 0, 0] = 100.0
    assert x[0, 0].item() == 100.0


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x[0],
        lambda x: x[-1, 1:],
        lambda x: x[:, 2],
        lambda x: x[..., 1],
        lambda x: x[None],
        lambda x: x[:, None, 1:3],
        lambda x: x[torch.tensor([2, 0])],
        lambda x: x[:, torch.tensor([3, 1, 1])],
        lambda x: x[torch.tensor([0, 2]), torch.tensor([1, 3])],
        lambda x: x[torch.tensor([0, 2]), :, torch.tensor([1, 0])] if x.dim() == 3 else x[0],
        lambda x: x[[1, 0]],
        lambda x: x[x.shape[0] - 1],
    ],
)
def test_getitem(f):
    check(f, rand(5, 3, 4))
    check(f, rand(5, 3, 4, 2))


def test_getitem_with_batched_index():
    x = rand(5, 6)
    idx = torch.randint(0, 6, (5, 3))
    check(lambda a, i: a[i], x, idx)
    # (a plain tensor indexed by a batched one needs Tensor.__getitem__ to hand over: not supported yet)
    y = rand(5, 4, 6)
    check(lambda a, i: a[:, i], y, idx)
    check(lambda a, i: a[i, 1:], y.transpose(1, 2).contiguous(), idx)
    t = torch.randint(0, 4, (5,))
    check(lambda a, i: a[i], y, t)


def test_setitem_and_inplace():
    def f(a, b):
        c = a.clone()
        c[0] = b.sum()
        c[1:, 2] = b[0, :2]
        c.mul_(2).add_(b[:1])
        c += 1
        return c

    check(f, rand(5, 3, 4), rand(5, 2, 4))
    x = rand(5, 3)
    out = vmap(lambda a: a.add_(1))(x.clone())
    assert_close(out, x + 1)


def test_inplace_into_unbatched_is_an_error():
    x, y = rand(2), rand(3, 2)
    before = x.clone()
    # a method of a plain tensor hands the BatchedTensor to its __torch_function__, whose rule refuses the
    # write in PyTorch's words (tests/func/test_plain_tensor_methods.py has the other in-place ops)
    with pytest.raises(
        RuntimeError, match=r"^output with shape \[2\] doesn't match the broadcast shape \[3, 2\]$"
    ):
        vmap(lambda a, b: a.add_(b), in_dims=(None, 0))(x, y)
    assert torch.equal(x, before)


# ------------------------------------------------------------------------------------------------ joining


def test_cat_and_stack():
    x, y = rand(5, 3), rand(5, 2)
    check(lambda a, b: torch.cat([a, b]), x, y)
    check(lambda a, b: torch.cat([a, b], dim=-1), x, y)
    check(lambda a: torch.cat([a, torch.zeros(2, dtype=D)]), x)
    check(lambda a: torch.stack([a, a * 2], 1), x)
    check(lambda a: torch.stack([a, torch.ones(3, dtype=D)]), x)
    with pytest.raises(RuntimeError):
        vmap(lambda a: torch.stack([a, torch.zeros(4, dtype=D)]))(x)


def test_factories_and_like():
    x = rand(4, 3)
    check(lambda a: torch.zeros_like(a) + a, x)
    check(lambda a: torch.ones_like(a).sum(), x)
    check(lambda a: torch.full_like(a, 7.0), x)
    check(lambda a: a.new_zeros(2, 3) + 1, x)
    check(lambda a: a.new_ones((5,)), x)
    check(lambda a: a.new_full((2,), 3.0), x)
    # new_zeros is batched, so entries can be written into it
    check(lambda a: a.new_zeros(3).add_(a), x)
    check(lambda a: torch.tensor(1.0, dtype=D) + a, x)


# ------------------------------------------------------------------------------------------------ matmul


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((3,), (3, 4)),
        ((2, 3), (3, 4)),
        ((5, 2, 3), (3, 4)),
        ((2, 3), (5, 3, 4)),
        ((3,), (5, 3, 4)),
        ((5, 2, 3), (3,)),
    ],
)
@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 0), (1, 0)])
def test_matmul_all_ranks(sa, sb, in_dims):
    b = 4
    a = rand(*sa).unsqueeze(0).repeat(b, *[1] * len(sa)) + rand(b, *sa)
    c = rand(b, *sb)
    if in_dims[0] is None:
        a = a[0]
    elif in_dims[0] == 1:
        if len(sa) < 1:
            pytest.skip("no dim 1")
        a = a.movedim(0, 1).contiguous()
    if in_dims[1] is None:
        c = c[0]
    check(torch.matmul, a, c, in_dims=in_dims)
    check(lambda x, y: x @ y, a, c, in_dims=in_dims)


def test_matmul_family():
    check(torch.mm, rand(4, 2, 3), rand(4, 3, 5))
    check(torch.mm, rand(4, 2, 3), rand(3, 5), in_dims=(0, None))
    check(torch.bmm, rand(4, 6, 2, 3), rand(4, 6, 3, 5))
    check(torch.mv, rand(4, 2, 3), rand(4, 3))
    check(torch.dot, rand(4, 3), rand(4, 3))
    check(torch.dot, rand(4, 3), rand(3), in_dims=(0, None))
    check(
        lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=2.0),
        rand(4, 2, 5),
        rand(4, 2, 3),
        rand(3, 5),
        in_dims=(0, 0, None),
    )
    check(lambda a, b: torch.einsum("ij,jk->ik", a, b), rand(4, 2, 3), rand(3, 5), in_dims=(0, None))
    check(lambda a, b: torch.einsum("...i,...i->...", a, b), rand(4, 2, 3), rand(4, 2, 3))


@pytest.mark.parametrize("in_dims", [(0, None, None), (0, 0, 0), (None, 0, 0), (0, 0, None), (0, None, 0)])
def test_linear_with_batched_weight(in_dims):
    x = rand(4, 2, 3)
    w = rand(4, 5, 3)
    bias = rand(4, 5)
    args = [x, w, bias]
    args = [a if d is not None else a[0] for a, d in zip(args, in_dims)]
    check(F.linear, *args, in_dims=in_dims)
    check(lambda a, b: F.linear(a, b), args[0], args[1], in_dims=in_dims[:2])


# ------------------------------------------------------------------------------------------------ nn


@pytest.mark.parametrize("wdim", [None, 0])
@pytest.mark.parametrize(
    "kw",
    [{}, {"stride": 2}, {"padding": 1}, {"padding": "same"}, {"dilation": 2}, {"groups": 2}],
)
def test_conv2d(wdim, kw):
    x = rand(3, 2, 4, 7, 7)
    w = rand(3, 6, 4 // kw.get("groups", 1), 3, 3)
    b = rand(3, 6)
    if wdim is None:
        w, b = w[0], b[0]
    check(lambda a, ww, bb: F.conv2d(a, ww, bb, **kw), x, w, b, in_dims=(0, wdim, wdim))
    # unbatched (C, H, W) entries
    check(lambda a, ww, bb: F.conv2d(a, ww, bb, **kw), x[:, 0], w, b, in_dims=(0, wdim, wdim))
    # the input unbatched, the weight batched
    if wdim is not None:
        check(lambda a, ww, bb: F.conv2d(a, ww, bb, **kw), x[0], w, b, in_dims=(None, 0, 0))


def test_conv1d_and_modules():
    check(lambda a, w: F.conv1d(a, w, padding=1), rand(3, 2, 4, 9), rand(3, 5, 4, 3))
    conv = torch.nn.Conv2d(2, 4, 3).double()
    check(conv, rand(3, 1, 2, 6, 6))
    pool = torch.nn.MaxPool2d(2)
    check(pool, rand(3, 2, 2, 6, 6))


def test_pooling_and_norms():
    x = rand(3, 2, 4, 6, 6)
    check(lambda a: F.max_pool2d(a, 2), x)
    check(lambda a: F.max_pool2d(a, 3, stride=2, padding=1), x)
    check(lambda a: F.avg_pool2d(a, 2), x[:, 0])
    check(lambda a: F.adaptive_avg_pool2d(a, 1), x)
    check(lambda a: tuple(F.max_pool2d(a, 2, return_indices=True)), x)
    w, b = rand(6), rand(6)
    check(lambda a: F.layer_norm(a, (6,), w, b), x)
    check(lambda a, ww, bb: F.layer_norm(a, (6,), ww, bb), x, rand(3, 6), rand(3, 6))
    rm, rv, g = rand(4), rand(4).abs() + 0.5, rand(4)
    check(lambda a: F.batch_norm(a, rm, rv, g, None, training=False), x)
    check(lambda a: F.batch_norm(a, None, None, training=True), x)
    check(lambda a: F.group_norm(a, 2), x)


def test_embedding_and_one_hot():
    w = rand(10, 3)
    idx = torch.randint(0, 10, (4, 5))
    check(lambda i: F.embedding(i, w), idx)
    check(lambda i, ww: F.embedding(i, ww), idx, rand(4, 10, 3))
    check(lambda i: F.one_hot(i, 10), idx)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses(reduction):
    x, y = rand(4, 5, 3), torch.randint(0, 3, (4, 5))
    check(lambda a, t: F.cross_entropy(a, t, reduction=reduction), x, y)
    check(lambda a, t: F.cross_entropy(a, t, reduction=reduction), x[:, 0], y[:, 0])
    w = rand(3).abs()
    check(lambda a, t: F.cross_entropy(a, t, weight=w, reduction=reduction), x, y)
    # an entry whose targets are all ignored gives 0/0 = nan, as PyTorch's
    check(lambda a, t: F.cross_entropy(a, t, ignore_index=1, reduction=reduction), x, y, equal_nan=True)
    check(lambda a, t: F.cross_entropy(a, t, label_smoothing=0.1, reduction=reduction), x, y)
    check(lambda a, t: F.nll_loss(F.log_softmax(a, -1), t, reduction=reduction), x, y)
    p = torch.softmax(rand(4, 5, 3), -1)
    check(lambda a, t: F.cross_entropy(a, t, reduction=reduction), x, p)
    z = rand(4, 5, 3)
    check(lambda a, b: F.mse_loss(a, b, reduction=reduction), x, z)
    check(lambda a, b: F.l1_loss(a, b, reduction=reduction), x, z)
    check(lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction), x, z)
    check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction), x, z.sigmoid())
    check(lambda a, b: F.mse_loss(a, b, reduction=reduction), x, z[0], in_dims=(0, None))


def test_dropout_eval_is_not_random():
    x = rand(4, 3)
    check(lambda a: F.dropout(a, 0.5, training=False), x)


# ------------------------------------------------------------------------------------------------ in_dims / out_dims


def test_in_dims_variants():
    x = rand(2, 3, 4)
    check(lambda a: a * 2, x, in_dims=1)
    check(lambda a: a * 2, x, in_dims=-1)
    check(lambda a, b: a + b, x, rand(4), in_dims=(1, None))
    # nested in_dims matching a tree of inputs
    out = vmap(lambda d: d["a"] + d["b"][0], in_dims=({"a": 0, "b": [1]},))(
        {"a": rand(3, 4), "b": [rand(4, 3)]}
    )
    assert out.shape == (3, 4)
    # a non-tensor argument with in_dim None passes through
    assert_close(vmap(lambda a, k: a * k, in_dims=(0, None))(x, 3), x * 3)


def test_out_dims_variants():
    x = rand(3, 4, 5)
    check(lambda a: a.sin(), x, out_dims=1)
    check(lambda a: a.sin(), x, out_dims=-1)
    check(lambda a: (a, a.sum()), x, out_dims=(1, 0))
    out = vmap(lambda a: (a.sum(), 7), out_dims=(0, None))(x)
    assert out[1] == 7
    # an output not batched is expanded over the batch
    out = vmap(lambda a: torch.ones(2, dtype=D))(x)
    assert out.shape == (3, 2)


def test_in_dims_errors():
    x = torch.ones(2)

    def f(a, b):
        return a

    with pytest.raises(
        ValueError, match=r"vmap\(f, in_dims=\(0,\), \.\.\.\)\(<inputs>\): in_dims is not compatible"
    ):
        vmap(f, in_dims=(0,))(x, x)
    with pytest.raises(ValueError, match=r"expected `in_dims` to be int or a \(potentially nested\) tuple"):
        vmap(f, in_dims=[0, 0])(x, x)
    with pytest.raises(
        ValueError,
        match=r"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes \[2, 3\] "
        r"for the mapped dimension",
    ):
        vmap(f)(x, torch.ones(3))
    with pytest.raises(ValueError, match=r"Got in_dim=1.0 for an input but in_dim must be either an integer"):
        vmap(f, in_dims=(0, 1.0))(x, x)
    with pytest.raises(ValueError, match=r"We cannot vmap over non-Tensor arguments, please use None"):
        vmap(f, in_dims=(0, 1))(x, 3)
    with pytest.raises(ValueError, match=r"so expected in_dim to satisfy -1 <= in_dim < 1"):
        vmap(lambda a: a, in_dims=2)(x)
    with pytest.raises(ValueError, match=r"got no inputs"):
        vmap(lambda: x)()
    with pytest.raises(ValueError, match=r"Expected at least one Tensor to vmap over"):
        vmap(f, in_dims=(None, None))(x, x)


def test_out_dims_errors():
    x = torch.ones(2)
    with pytest.raises(ValueError, match=r"must only return Tensors, got type <class 'int'>"):
        vmap(lambda a: 3)(x)
    # a Size is a node of ints, as PyTorch's pytree registers it: out_dims=None gives it back as a tuple
    with pytest.raises(ValueError, match=r"must only return Tensors, got type <class 'int'>"):
        vmap(lambda a: a.shape)(torch.ones(2, 3))
    _, shape = vmap(lambda a: (a * 2, a.shape), out_dims=(0, None))(torch.ones(2, 3))
    assert shape == (3,) and type(shape) is tuple
    with pytest.raises(ValueError, match=r"out_dims is not compatible with the structure of `outputs`"):
        vmap(lambda a: a, out_dims=(0, 1))(x)
    with pytest.raises(ValueError, match=r"`out_dims` must be an int, None or a python collection of ints"):
        vmap(lambda a: a, out_dims="a")(x)
    with pytest.raises(ValueError, match=r"can not return a BatchedTensor when out_dim is None"):
        vmap(lambda a: a, out_dims=None)(x)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        vmap(lambda a: a, out_dims=2)(x)


def test_argument_errors():
    with pytest.raises(
        RuntimeError, match="Only allowed values for randomness are 'error', 'different', or 'same'. Got x"
    ):
        vmap(torch.sin, randomness="x")
    with pytest.raises(ValueError, match=r"vmap: chunk_size should be None or greater than 0. \(got 0\)"):
        vmap(torch.sin, chunk_size=0)


def test_data_dependent_python_is_refused():
    x = torch.ones(2)
    with pytest.raises(RuntimeError, match=r"vmap: It looks like you're calling .item\(\) on a Tensor"):
        vmap(lambda a: a.item())(x)
    with pytest.raises(RuntimeError, match=r"data-dependent control flow"):
        vmap(lambda a: 1 if a > 0 else 2)(x)
    # int(), range() and list indexing read the value by item(); the host copies have no storage to read, in
    # PyTorch's words
    x2 = torch.ones(2, 3)
    for f in (lambda a: int(a[0]), lambda a: list(range(a[0].long())), lambda a: [0, 1][a[0].long()]):
        with pytest.raises(RuntimeError, match=r"vmap: It looks like you're calling .item\(\) on a Tensor"):
            vmap(f)(x2)
    for f in (lambda a: a.tolist(), lambda a: a.numpy(), lambda a: a.data_ptr()):
        with pytest.raises(
            RuntimeError, match=r"^Cannot access data pointer of Tensor that doesn't have storage$"
        ):
            vmap(f)(x2)


# ------------------------------------------------------------------------------------------------ randomness


def test_randomness_error():
    msg = r"vmap: called random operation while in randomness error mode"
    with pytest.raises(RuntimeError, match=msg):
        vmap(lambda a: torch.rand(3))(torch.ones(2))
    with pytest.raises(RuntimeError, match=msg):
        vmap(lambda a: F.dropout(a, 0.5))(torch.ones(2, 3))
    with pytest.raises(RuntimeError, match=msg):
        vmap(lambda a: torch.rand_like(a))(torch.ones(2, 3))
    with pytest.raises(RuntimeError, match=msg):
        vmap(lambda a: a.normal_())(torch.ones(2, 3))


def test_randomness_different_and_same():
    x = torch.ones(6, 50)
    for f in (
        lambda a: torch.rand(50) + a,
        lambda a: torch.rand_like(a),
        lambda a: F.dropout(a, 0.5),
        lambda a: a.clone().normal_(),
        lambda a: torch.bernoulli(a * 0.5),
    ):
        d = vmap(f, randomness="different")(x)
        s = vmap(f, randomness="same")(x)
        assert d.shape == s.shape == (6, 50)
        assert not torch.equal(d[0], d[1])
        for i in range(1, 6):
            assert torch.equal(s[0], s[i])
    # dropout keeps the expected scale: kept values are 2x
    out = vmap(lambda a: F.dropout(a, 0.5), randomness="different")(x)
    assert set(out.unique().tolist()) <= {0.0, 2.0}


def test_randomness_same_with_chunks_replays_the_generator():
    x = torch.ones(6, 5)
    torch.manual_seed(3)
    a = vmap(lambda v: torch.rand(5) * v, randomness="same", chunk_size=2)(x)
    for i in range(6):
        assert torch.equal(a[i], a[0])


# ------------------------------------------------------------------------------------------------ chunks, nesting


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 100])
def test_chunk_size_equivalence(chunk_size):
    x, y = rand(5, 3), rand(4, 5)
    f = lambda a, b: (a.sin() * b[:3], (a * b[1:]).sum())
    want = vmap(f, in_dims=(0, 1), out_dims=(1, 0))(x, y)
    got = vmap(f, in_dims=(0, 1), out_dims=(1, 0), chunk_size=chunk_size)(x, y)
    for g, w in zip(got, want):
        assert_close(g, w)


def test_nested_vmap():
    x = rand(3, 4, 5)
    got = vmap(vmap(lambda a: a.sin().sum()))(x)
    assert_close(got, x.sin().sum(-1))
    y = rand(4, 5)
    ms = rand(2, 5, 6)
    got = vmap(vmap(lambda a, b: a @ b, in_dims=(0, None)), in_dims=(None, 0))(x[0], ms)
    want = torch.stack([torch.stack([row @ m for row in x[0]]) for m in ms])
    assert_close(got, want)
    # an outer-batched tensor captured by the inner function
    got = vmap(lambda a: vmap(lambda b: a * b)(y))(x)
    want = torch.stack([torch.stack([x[i] * y[j] for j in range(4)]) for i in range(3)])
    assert_close(got, want)
    # in_dims on the inner level
    got = vmap(vmap(lambda a: a * 2, in_dims=1), in_dims=0)(x)
    assert_close(got, (x * 2).transpose(1, 2))


def test_nested_matmul_conv_linear():
    x = rand(2, 3, 4, 5)
    w = rand(6, 5)
    got = vmap(vmap(lambda a: F.linear(a, w)))(x)
    assert_close(got, x @ w.T)
    imgs = rand(2, 3, 1, 2, 6, 6)
    k = rand(4, 2, 3, 3)
    got = vmap(vmap(lambda a: F.conv2d(a, k)))(imgs)
    want = F.conv2d(imgs.reshape(6, 2, 6, 6), k).reshape(2, 3, 1, 4, 4, 4)
    assert_close(got, want)


# ------------------------------------------------------------------------------------------------ fallback


def test_fallback_loops_and_warns_once():
    x = rand(4, 3, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        # histogram has no rule (nor has PyTorch's): each entry's own bin edges
        got = vmap(lambda a: torch.trace(a) + torch.histogram(a, 4).hist.sum())(x)
        vmap(lambda a: torch.histogram(a, 4).hist)(x)
    want = torch.stack([torch.trace(a) + torch.histogram(a, 4).hist.sum() for a in x])
    assert_close(got, want)
    msgs = [str(m.message) for m in w if "performance drop" in str(m.message)]
    assert any(
        m.startswith("There is a performance drop because we have not yet implemented the batching rule for")
        and "histogram" in m
        for m in msgs
    )
    assert sum("histogram" in m for m in msgs) <= 1  # once per op per process


def test_vmap_of_a_torch_builtin():
    x = rand(4, 3)
    assert_close(vmap(torch.sin)(x), x.sin())
    assert_close(vmap(torch.sum)(x), x.sum(1))


_EARLY_SIN = torch.sin  # bound at import, before any transform: the C++ builtin itself
_EARLY_TANH = torch.tanh


class _HeldActivation(torch.nn.Module):
    """A module holding a torch function as an attribute (`act=torch.tanh` defaults), as many models do."""

    def __init__(self, act=_EARLY_TANH):
        super().__init__()
        self.act = act

    def forward(self, a):
        return self.act(a) * 2


def test_vmap_of_builtins_bound_before_the_transform():
    # PyTorch's C++ dispatch sees every call; ours hands a builtin called with a BatchedTensor to the namespace's
    # dispatching spelling
    x, y = rand(4, 3), rand(4, 3)
    assert_close(vmap(lambda a, b: _EARLY_SIN(a) + torch._C.add(a, b))(x, y), x.sin() + x + y)
    assert_close(vmap(_HeldActivation())(x), x.tanh() * 2)
    # in_dims over the second operand: the plain first operand is not what overrides
    assert_close(vmap(lambda a, b: torch._C.mul(a, b), in_dims=(None, 0))(x[0], y), x[0] * y)


def test_dispatch_is_off_after_vmap():
    vmap(torch.sin)(rand(2))
    assert type(torch.add).__name__ == "builtin_function_or_method"
    with pytest.raises(ZeroDivisionError):
        vmap(lambda a: 1 / 0)(rand(2))
    assert type(torch.add).__name__ == "builtin_function_or_method"


def test_autograd_through_vmap():
    x = rand(4, 3).requires_grad_()
    w = rand(3, 2).requires_grad_()
    out = vmap(lambda a: (a @ w).tanh().sum())(x)
    out.sum().backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = None
    w.grad = None
    torch.stack([(a @ w).tanh().sum() for a in x]).sum().backward()
    assert_close(gx, x.grad)
    assert_close(gw, w.grad)


def test_trailing_dim_ops_and_linalg():
    m = rand(4, 3, 3) + 3 * torch.eye(3, dtype=D)
    check(torch.tril, m)
    check(lambda a: torch.triu(a, 1), m)
    check(torch.linalg.inv, m)
    check(torch.linalg.det, m)
    check(lambda a: torch.linalg.cholesky(a @ a.mT), m)
    check(torch.diag, rand(4, 3))
    check(torch.diag, m)
    check(torch.trace, m)
    check(lambda a: torch.roll(a, 1, 0), m)
    check(lambda a: torch.roll(a, 2), m)
    check(lambda a, b: torch.cross(a, b, dim=-1), rand(4, 2, 3), rand(4, 2, 3))
    check(lambda a: F.unfold(a, 2), rand(4, 2, 5, 5))
    q = rand(4, 2, 5, 8)
    check(F.scaled_dot_product_attention, q, rand(4, 2, 5, 8), rand(4, 2, 5, 8))
    check(lambda a, k: F.scaled_dot_product_attention(a, k, k), q, rand(2, 5, 8), in_dims=(0, None))
    assert vmap(lambda a: a * a.numel())(rand(4, 3)).shape == (4, 3)


def test_conv_with_expanded_weight_keeps_plain_forward_values():
    # inside vmap(grad) the shared weight is expanded over the batch; the forward values stay those of the
    # plain convolution exactly (float32 rounding of a batched form could flip a max-pool choice)
    from minitorch.func import grad_and_value

    x = torch.randn(6, 1, 2, 9, 9)
    w = torch.randn(4, 2, 3, 3)

    def f(ww, a):
        return F.max_pool2d(F.conv2d(a, ww).relu(), 2).pow(2).sum()

    g, v = vmap(grad_and_value(f), in_dims=(None, 0))(w, x)
    for i in range(6):
        gi, vi = grad_and_value(f)(w, x[i])
        assert torch.equal(v[i], vi)
        assert_close(g[i], gi)


@pytest.mark.parametrize(
    "f",
    [
        lambda a, b: torch.relu_(a.clone()) + torch.exp_(b.clone()),
        lambda a, b: torch.celu(a) + torch.selu(b) + torch.silu(a),
        lambda a, b: torch.cosine_similarity(a, b),
        lambda a, b: torch.linalg.vecdot(a, b),
        lambda a, b: torch.linalg.norm(a) + torch.linalg.norm(b, dim=1).sum(),
        lambda a, b: torch.linalg.matrix_norm(a),
        lambda a, b: torch.linalg.diagonal(a @ b.mT),
        lambda a, b: torch.fliplr(a) + torch.flipud(b),
        lambda a, b: torch.msort(a),
        lambda a, b: torch.quantile(a, 0.3) + torch.quantile(b, 0.7, dim=1).sum(),
        lambda a, b: torch.linalg.multi_dot([a, b.mT, a]),
        lambda a, b: F.margin_ranking_loss(a, b, torch.ones(3, 5, dtype=D)),
        lambda a, b: F.triplet_margin_loss(a, b, b * 2),
        lambda a, b: F.cosine_embedding_loss(a, b, torch.tensor([1.0, -1.0, 1.0], dtype=D)),
        lambda a, b: a.index_add(1, torch.tensor([0, 2]), torch.ones(3, 2, dtype=D)),
        lambda a, b: torch.ravel(a) + torch.layer_norm(b, (5,)).reshape(-1),
        # the aliases' own keyword names (swapaxes' axis0 was read as dim0: the batch dim moved)
        lambda a, b: a.swapaxes(axis0=0, axis1=1) + torch.swapdims(b, dim0=0, dim1=1),
        lambda a, b: torch.moveaxis(a, source=0, destination=1) + b.movedim(source=(0,), destination=(1,)),
    ],
)
def test_more_rules(f):
    check(f, rand(4, 3, 5), rand(4, 3, 5))


def test_gather_scatter_forms():
    x = rand(4, 3, 5)
    idx = torch.randint(0, 5, (4, 3, 2))
    src = rand(4, 3, 2)
    check(lambda a, i: a.gather(1, i), x, idx)
    check(lambda a, i: torch.gather(a, 1, i), x, idx[0], in_dims=(0, None))
    check(lambda a, i, s: a.scatter(1, i, s), x, idx, src)
    check(lambda a, i, s: torch.scatter_add(a, 1, i, s), x, idx, src)
    check(lambda a, i, s: a.clone().scatter_add_(1, i, s), x, idx, src)
    check(lambda a, i: a.index_select(1, i), x, idx[0, 0], in_dims=(0, None))
    check(lambda a: a.index_add(1, torch.tensor([0, 4]), torch.ones(3, 2, dtype=D)), x)
    check(lambda a: a.clone().index_add_(1, torch.tensor([0, 4]), torch.ones(3, 2, dtype=D)), x)


def test_index_select_with_a_batched_index_is_one_gather():
    # per-sample rows of a shared table (embedding-style lookups), the table itself batched, int32 indices,
    # a dim counted from the end, a 0-dim index per sample, nested vmap: no per-entry loop
    w = rand(6, 4)
    i = torch.randint(0, 6, (5, 3))
    _quiet_check(lambda ii: w.index_select(0, ii), i)
    _quiet_check(lambda ii: torch.index_select(w, -1, ii % 4), i)
    _quiet_check(lambda ii: w.index_select(1, ii), (i % 4).int())
    _quiet_check(lambda ii: w.index_select(0, ii), i[:, 0])
    _quiet_check(lambda x, ii: x.index_select(1, ii), rand(5, 2, 6), i)
    _quiet_check(lambda x, ii: x.index_select(0, ii), rand(6, 5, 2), i, in_dims=(1, 0))
    _quiet_check(lambda ii: w.index_select(0, ii), torch.zeros(5, 0, dtype=torch.int64))
    _quiet_check(lambda ii: torch.tensor(2.0, dtype=D).index_select(0, ii), i[:, :1] * 0)
    nested = vmap(vmap(lambda ii: w.index_select(0, ii)))(i.view(5, 3, 1))
    assert_close(nested, w[i.view(5, 3, 1)])
    # PyTorch's errors: its rule gathers, so a bad index reports gather's words
    with pytest.raises(RuntimeError, match="gather\\(\\): Expected dtype int32/int64 for index"):
        vmap(lambda ii: w.index_select(0, ii))(i.double())
    with pytest.raises(RuntimeError, match="index 6 is out of bounds for dimension 1 with size 6"):
        vmap(lambda ii: w.index_select(0, ii))(torch.full((5, 1), 6))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        vmap(lambda ii: w.index_select(0, ii))(i.view(5, 3, 1))


def test_batch_norm_running_stats():
    x = rand(3, 4, 2, 5)
    # shared running statistics in training would be updated by every entry: PyTorch's error
    rm, rv = torch.zeros(2, dtype=D), torch.ones(2, dtype=D)
    with pytest.raises(RuntimeError, match="Batch norm got a batched tensor as input while the running_mean"):
        vmap(lambda a: F.batch_norm(a, rm, rv, training=True))(x)
    # per-entry running statistics (stacked buffers, as stack_module_state gives): each entry updates its own
    rms, rvs = torch.zeros(3, 2, dtype=D), torch.ones(3, 2, dtype=D)
    got = vmap(lambda a, m, v: F.batch_norm(a, m, v, training=True, momentum=0.5))(x, rms, rvs)
    ref_m, ref_v = torch.zeros(3, 2, dtype=D), torch.ones(3, 2, dtype=D)
    want = torch.stack(
        [F.batch_norm(x[i], ref_m[i], ref_v[i], training=True, momentum=0.5) for i in range(3)]
    )
    assert_close(got, want)
    assert_close(rms, ref_m)
    assert_close(rvs, ref_v)
    # eval mode with per-entry statistics
    got = vmap(lambda a, m, v: F.batch_norm(a, m, v, training=False))(x, rms, rvs)
    want = torch.stack([F.batch_norm(x[i], rms[i], rvs[i], training=False) for i in range(3)])
    assert_close(got, want)


def test_ensemble_of_batch_norm_models():
    from minitorch.func import functional_call, stack_module_state

    models = [torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4)).double() for _ in range(3)]
    params, buffers = stack_module_state(models)
    base = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4)).double()
    data = rand(5, 3)
    out = vmap(lambda p, b, d: functional_call(base, (p, b), (d,)), in_dims=(0, 0, None))(
        params, buffers, data
    )
    want = torch.stack([m(data) for m in models])
    assert_close(out, want)
    # each model's running statistics moved as its own module's did
    for i, m in enumerate(models):
        assert_close(buffers["1.running_mean"][i], m[1].running_mean)


def test_keyword_operands():
    x, w = rand(4, 2, 3), rand(5, 3)
    check(lambda a: F.linear(input=a, weight=w), x)
    check(lambda a: torch.sum(input=a, dim=1), x)
    check(lambda a: F.softmax(input=a, dim=-1), x)


@pytest.mark.parametrize("attr", ["H", "mH"])
def test_conjugate_transposes_of_complex_entries(attr):
    # each entry's conjugate transpose, as the property on that entry (H once equalled T: no conj)
    import numpy as np

    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 2, 2)) + 1j * rng.standard_normal((3, 2, 2))
    x = torch.tensor(a)
    got = vmap(lambda m: getattr(m, attr))(x)
    np.testing.assert_array_equal(got.numpy(), np.conj(np.swapaxes(a, -1, -2)))
    real = torch.tensor(a.real)
    np.testing.assert_array_equal(vmap(lambda m: getattr(m, attr))(real).numpy(), np.swapaxes(a.real, -1, -2))


def test_einsum_sublist_format():
    # the sublist spelling batches as its equation does
    x, y = torch.randn(5, 2, 3), torch.randn(3, 4)
    assert_close(vmap(lambda a: torch.einsum(a, [0, 1], y, [1, 2], [0, 2]))(x), x @ y)
    assert_close(vmap(lambda a: torch.einsum(a, [Ellipsis, 1], [1, Ellipsis]))(x), x.transpose(1, 2))
    with pytest.raises(ValueError, match=r"not within the valid range \[0, 52\)"):
        vmap(lambda a: torch.einsum(a, [0, 60], [0]))(x)


# ---- the rules csrc/ops/ops.schema declares


def _schema_spellings():
    import re

    out = {}
    for kind, name, _f, _r, _variants, aliases, _a, _g, module in torch._C._op_schema():
        if module:  # a _C._nn kernel: batched at its nn.functional wrapper (F.<name>), which holds the rule
            continue
        out[name] = kind
        for a in re.findall(r"([a-z_0-9]+)(?:\[[^\]]*\])?", aliases):
            out[a] = kind
    return out


def test_every_schema_op_declares_its_batching_rule_there():
    from minitorch.func import _batch_rules
    from minitorch.func._batched import RULES

    declared = {name for name, key, _ in torch._C._op_schema_rules() if key == "vmap"}
    # `rules: python` funcs keep their rules in _batch_rules.py, under the public name, until they move here
    python_rules = {name for name, key, _ in torch._C._op_schema_rules() if key == "rules"}
    spellings = {n: k for n, k in _schema_spellings().items() if n not in python_rules}
    funcs = {n for n, k in spellings.items() if k == "func"}
    names = {r[1] for r in torch._C._op_schema()}
    missing = sorted(n for n in funcs if n not in declared and n in names)
    assert not missing, f"funcs of csrc/ops/ops.schema without 'vmap:': {missing}"
    # every spelling but the private primitives' has a rule, and none is registered by Python code as well
    private = {
        name for name, key, value in torch._C._op_schema_rules() if key == "vmap" and value == "private"
    }
    assert private and all(n.startswith("_") for n in private)
    assert all(s in RULES for s in spellings if s not in private)
    assert not set(spellings) & _batch_rules.PYTHON_KEYS, "rules of schema ops belong in csrc/ops/ops.schema"
    # a `rules: python` func is exempt above only while _batch_rules.py registers its rule (under its name or as
    # the method), so that no op escapes both; a factory that takes no tensor never meets a batched value
    import re
    from pathlib import Path

    takes_tensor = {}
    for line in (Path(__file__).resolve().parents[2] / "csrc/ops/ops.schema").read_text().splitlines():
        m = re.match(r"^func (\w+)(?:\.\w+)?\((.*)\) ->", line)
        if m:
            params = m.group(2)
            tensor = re.search(r"\bTensor\S*\s+(?!out\b)\w+", params) is not None
            takes_tensor[m.group(1)] = takes_tensor.get(m.group(1), False) or tensor
    lacking = sorted(
        n for n in python_rules if takes_tensor[n] and n not in RULES and "Tensor." + n not in RULES
    )
    assert not lacking, (
        f"`rules: python` funcs of csrc/ops/ops.schema without a batching rule in Python: {lacking}"
    )


def test_the_fills_batch_by_their_schema_rows():
    from minitorch.func import _batch_rules
    from minitorch.func._batched import RULES

    declared = {n: v for n, k, v in torch._C._op_schema_rules() if k == "vmap"}
    assert declared["fill_"] == declared["zero_"] == "pointwise"
    assert all(declared[n] == "inplace_random_rule" for n in ("uniform_", "normal_", "random_", "bernoulli_"))
    assert RULES["uniform_"] is _batch_rules.inplace_random_rule and RULES["fill_"] is _batch_rules.pointwise
    xs = torch.randn(5, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # each has its rule: no per-entry fallback
        assert torch.equal(vmap(lambda x: x.clone().fill_(2.0))(xs), torch.full((5, 3), 2.0))
        assert torch.equal(vmap(lambda x: x.clone().zero_())(xs), torch.zeros(5, 3))
        same = vmap(lambda x: x.clone().uniform_(), randomness="same")(xs)
        different = vmap(lambda x: x.clone().normal_(), randomness="different")(xs)
    assert all(torch.equal(same[i], same[0]) for i in range(5))
    assert not all(torch.equal(different[i], different[0]) for i in range(5))


def test_schema_rules_batch_the_ops():
    # tril via _trailing(2), cumsum via _dims_rule, the complex views via pointwise, each against a loop
    x = rand(3, 4, 4)
    z = torch.complex(rand(3, 5), rand(3, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback warning: each has a rule
        assert_close(vmap(lambda t: torch.tril(t, -1))(x), loop(lambda t: torch.tril(t, -1))(x))
        assert_close(vmap(lambda t: t.cumsum(1))(x), loop(lambda t: t.cumsum(1))(x))
        assert_close(vmap(lambda t: t.logsumexp(0))(x), loop(lambda t: t.logsumexp(0))(x))
        assert_close(vmap(torch.view_as_real)(z), loop(torch.view_as_real)(z))
        assert_close(vmap(torch.imag)(z), loop(torch.imag)(z))
        assert_close(vmap(lambda t: t.topk(2))(x)[0], loop(lambda t: t.topk(2)[0])(x))


def test_dynamic_shape_ops_are_refused_as_pytorch_refuses_them():
    x = torch.arange(12.0).reshape(4, 3) - 5

    def words(aten):
        return (
            "vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap over "
            f"{aten}. Please file an issue at https://github.com/pytorch/pytorch/issues if you need this feature."
        )

    cases = [
        (torch.nonzero, words("aten::nonzero")),
        (lambda a: a.nonzero(), words("aten::nonzero")),
        (torch.unique, words("aten::_unique2")),
        (lambda a: a.unique(), words("aten::_unique2")),
        (torch.unique_consecutive, words("aten::unique_consecutive")),
        # where(cond) alone is nonzero as a tuple (it was batched as the pointwise where: a wrong shape)
        (lambda a: torch.where(a > 0)[0], words("aten::where")),
        (
            lambda a: torch.nonzero(a, as_tuple=True)[0],
            "Batching rule not implemented for aten::nonzero_numpy. We could not generate a fallback.",
        ),
        (
            lambda a: torch.masked_select(a, a > 0),
            (
                "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support this because "
                "for each batch this would return a differently shaped Tensor. Please file an issue at "
                "https://github.com/pytorch/pytorch/issues if you need this feature."
            ),
        ),
        (
            lambda a: a[a > 0],  # each entry's mask selects its own count (the loop once stacked, or raised)
            (
                "vmap: We do not support batching operators that can support dynamic shape. Attempting to batch "
                "over indexing with a boolean mask."
            ),
        ),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError) as e:
            vmap(fn)(x)
        assert str(e.value) == msg
    assert_close(vmap(lambda a: a[torch.tensor([True, False, True])])(x), x[:, [0, 2]])  # a shared mask
    # the pointwise where and a mask shared by every entry still batch, without the loop's warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_close(vmap(lambda a: torch.where(a > 0, a, 0.0))(x), x.clamp(min=0))
        mask = torch.tensor([True, False, True])
        assert_close(vmap(lambda a: torch.masked_select(a, mask))(x), x[:, mask])
        assert_close(vmap(lambda a: a.masked_select(mask))(x), x[:, mask])
        wide = torch.tensor([[True], [False]])  # broadcasts the entry to (2, 3): the first row's copy is kept
        assert_close(vmap(lambda a: torch.masked_select(a, wide))(x), x)


def test_renorm_is_batched_per_entry():
    # renorm's dim is its third argument and its norms span every other dim: a dim-shifting rule moved p and
    # took the batch into the norms; per-entry norms, as the loop computes them
    x = torch.randn(3, 4, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dim in (0, 1, -1):
            assert_close(
                vmap(lambda a, dim=dim: torch.renorm(a, 2, dim, 1.0))(x),
                loop(lambda a, dim=dim: torch.renorm(a, 2, dim, 1.0))(x),
            )
        assert_close(
            vmap(lambda a: torch.renorm(a, 1, 0, 0.5), in_dims=1)(x),
            loop(lambda a: torch.renorm(a, 1, 0, 0.5), 1)(x),
        )


# ------------------------------------------------------------------------------------------------ issue 31 rules
# torch.fft, the linalg solves, cross, cdist and kron batch without the per-entry loop (its warning an error)


def _quiet_check(f, *args, **kw):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")  # the loop fallback's
        return check(f, *args, **kw)


FFT_CASES = [
    lambda a: torch.fft.fft(a),
    lambda a: torch.fft.fft(a, n=5, dim=0, norm="ortho"),
    lambda a: torch.fft.ifft(a, dim=-2),
    lambda a: torch.fft.rfft(a, 6),
    lambda a: torch.fft.irfft(torch.fft.rfft(a), n=8),
    lambda a: torch.fft.hfft(a.to(torch.complex128), n=6, dim=1),
    lambda a: torch.fft.ihfft(a, dim=0),
    lambda a: torch.fft.fft2(a),
    lambda a: torch.fft.ifft2(a, s=(2, 4), dim=(0, 2), norm="forward"),
    lambda a: torch.fft.rfft2(a, dim=(1, 0)),
    lambda a: torch.fft.irfft2(a.to(torch.complex128)),
    lambda a: torch.fft.hfft2(a.to(torch.complex128), s=(3, 4)),
    lambda a: torch.fft.ihfft2(a),
    lambda a: torch.fft.fftn(a),
    lambda a: torch.fft.fftn(a, s=(4, 5)),
    lambda a: torch.fft.ifftn(a, dim=(0, -1)),
    lambda a: torch.fft.rfftn(a),
    lambda a: torch.fft.rfftn(a, s=(2, 6)),
    lambda a: torch.fft.irfftn(a.to(torch.complex128), dim=[2, 0]),
    lambda a: torch.fft.hfftn(a.to(torch.complex128)),
    lambda a: torch.fft.ihfftn(a, s=(4,)),
    lambda a: torch.fft.fftshift(a),
    lambda a: torch.fft.ifftshift(a, dim=(0, 2)),
    lambda a: torch.fft.fftshift(a, -1),
]


@pytest.mark.parametrize("f", FFT_CASES)
@pytest.mark.parametrize("in_dims", [0, 2])
def test_fft_functions_batch_the_transform_dims(f, in_dims):
    x = rand(4, 3, 5, 8)
    _quiet_check(f, x, in_dims=in_dims)
    # complex entries too, and a 1-D entry for the 1-D transforms
    z = torch.complex(rand(4, 3, 5, 6), rand(4, 3, 5, 6))
    _quiet_check(lambda a: torch.fft.ifftn(torch.fft.fft(a, dim=1), s=(2, 3)), z)
    _quiet_check(lambda a: torch.fft.rfft(a), rand(5, 7))


def test_fft_errors_are_the_entrys():
    # a dim out of the logical range raises the op's own error (per entry), not one about the batch dim
    x = rand(4, 3, 5)
    for f in (
        lambda a: torch.fft.fft(a, dim=2),
        lambda a: torch.fft.fft2(a[0]),
        lambda a: torch.fft.fftn(a, s=(1,) * 3),
    ):
        with pytest.raises((IndexError, RuntimeError)) as theirs:
            loop(f)(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(type(theirs.value)) as ours:
                vmap(f)(x)
        assert str(ours.value) == str(theirs.value)


def _spd(a):
    return a @ a.mT + a.shape[-1] * torch.eye(a.shape[-1], dtype=D)


@pytest.mark.parametrize(
    "shapes,in_dims",
    [
        (((4, 3, 3), (4, 3, 2)), (0, 0)),
        (((4, 3, 3), (3, 2)), (0, None)),
        (((3, 3), (4, 3, 2)), (None, 0)),
        (((3, 3), (4, 3)), (None, 0)),  # a batched vector right-hand side of an unbatched A
        (((4, 3, 3), (3,)), (0, None)),
        (((4, 2, 3, 3), (4, 3)), (0, 0)),  # vectors with A's batch shape
        (((4, 3, 3), (4, 5, 3, 1)), (0, 0)),  # B with more batch dims than A
        (((3, 4, 3), (3, 2, 4)), (1, 2)),
        (((1, 3, 3), (1, 3)), (0, 0)),  # one entry, n = 1 would read a physical [1, 1] as a vector
    ],
)
def test_linalg_solve_batches(shapes, in_dims):
    a, b = rand(*shapes[0]), rand(*shapes[1])
    eye = torch.eye(a.shape[-1], dtype=D)
    a = a + 3 * (eye.unsqueeze(1) if in_dims[0] == 1 else eye)  # well-conditioned entries
    _quiet_check(torch.linalg.solve, a, b, in_dims=in_dims)
    _quiet_check(lambda p, q: torch.linalg.solve_ex(p, q).result, a, b, in_dims=in_dims)
    one = rand(1, 1, 1) + 2
    _quiet_check(torch.linalg.solve, one, rand(1, 1))


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
def test_linalg_solve_right_and_other_solvers():
    A = rand(4, 3, 3) + 3 * torch.eye(3, dtype=D)
    B = rand(4, 2, 3)
    _quiet_check(lambda a, b: torch.linalg.solve(a, b, left=False), A, B)
    _quiet_check(lambda a, b: torch.linalg.solve(a, b, left=False), A[0], B, in_dims=(None, 0))
    U = A.triu()
    _quiet_check(lambda a, b: torch.linalg.solve_triangular(a, b, upper=True), U, B.mT)
    _quiet_check(lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False), A.tril(), B)
    _quiet_check(lambda b: torch.linalg.solve_triangular(U[0], b, upper=True, unitriangular=True), B.mT)
    _quiet_check(lambda b, a: torch.triangular_solve(b, a), B.mT, U)
    L = torch.linalg.cholesky(_spd(A))
    _quiet_check(torch.cholesky_solve, B.mT, L)
    _quiet_check(lambda b: torch.cholesky_solve(b, L[0].mT, upper=True), B.mT)
    LU, piv = torch.linalg.lu_factor(A)
    _quiet_check(torch.linalg.lu_solve, LU, piv, B.mT)
    _quiet_check(lambda lu, p, b: torch.linalg.lu_solve(lu, p, b, left=False), LU, piv, B)
    _quiet_check(lambda b: torch.linalg.lu_solve(LU[1], piv[1], b, adjoint=True), B.mT)
    _quiet_check(torch.linalg.inv, A)
    _quiet_check(lambda a: torch.linalg.inv_ex(a).inverse, A)
    _quiet_check(lambda a: torch.linalg.cholesky_ex(_spd(a)).L, A)
    _quiet_check(lambda a: torch.linalg.lu_factor(a), A)
    _quiet_check(lambda a: torch.linalg.lu(a), A)
    _quiet_check(lambda a: torch.linalg.eigvals(a), A)


def test_cross_cdist_kron_batch():
    a, b = rand(4, 2, 3), rand(4, 2, 3)
    _quiet_check(torch.linalg.cross, a, b)
    _quiet_check(torch.linalg.cross, a, b[0], in_dims=(0, None))
    _quiet_check(lambda p, q: torch.cross(p, q), a, b)  # dim=None: the first dim of size 3
    _quiet_check(lambda p, q: torch.cross(p, q), rand(4, 3, 2), rand(4, 3, 1))
    _quiet_check(lambda p, q: torch.cross(p, q, dim=0), rand(4, 3, 5), rand(4, 3, 5))
    _quiet_check(torch.cdist, rand(4, 5, 3), rand(4, 6, 3))
    _quiet_check(lambda p, q: torch.cdist(p, q, p=1.0), rand(4, 2, 5, 3), rand(6, 3), in_dims=(0, None))
    _quiet_check(torch.cdist, rand(5, 3), rand(4, 2, 6, 3), in_dims=(None, 0))
    _quiet_check(torch.kron, rand(4, 2, 3), rand(4, 3, 2))
    _quiet_check(torch.kron, rand(4, 2), rand(3, 2, 2), in_dims=(0, None))
    _quiet_check(torch.kron, rand(2, 3, 2), rand(2, 4), in_dims=(None, 1))
    _quiet_check(torch.kron, rand(4), rand(4, 3))
    # entries cross refuses still raise its errors
    with pytest.raises(RuntimeError, match="no dimension of size 3 in input"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vmap(lambda p: torch.cross(p, p))(rand(4, 2, 2))


# ------------------------------------------------------------------------------------------------ autograd.Function


_SCALE_CALLS = []


class _Scale(torch.autograd.Function):
    """With its own batching rule (PyTorch 2's vmap staticmethod), which records how it was called."""

    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

    @staticmethod
    def vmap(info, in_dims, x, k):
        _SCALE_CALLS.append((info.batch_size, info.randomness, in_dims, tuple(x.shape)))
        return _Scale.apply(x, k).movedim(0, -1), x.dim() - 1  # the batch dim moved last: out_dims says so


def test_custom_function_vmap_staticmethod():
    x = rand(4, 3, 2)
    _SCALE_CALLS.clear()
    got = vmap(_Scale.apply, in_dims=(1, None))(x, 2.0)
    assert_close(got, x.movedim(1, 0) * 2)
    # one call on the whole batch, batch dim first (minitorch's convention), the unbatched k as None
    assert _SCALE_CALLS == [(3, "error", (0, None), (3, 4, 2))]
    # gradients flow through the rule's own apply
    xr = x.clone().requires_grad_()
    vmap(_Scale.apply, in_dims=(0, None))(xr, 3.0).sum().backward()
    assert_close(xr.grad, torch.full_like(x, 3.0))

    class Unbatched(_Scale):
        @staticmethod
        def vmap(info, in_dims, x, k):
            return x.sum(0) * k, None  # an output the same for every entry

    assert_close(vmap(Unbatched.apply, in_dims=(0, None))(x, 2.0), (x.sum(0) * 2).expand(4, 3, 2))

    class Generated(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x.sin()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a.cos()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_close(vmap(Generated.apply)(x), x.sin())


class _CubeGen(torch.autograd.Function):
    """x**3 returning its derivative as a second output so that setup_context can save it (the extending.func
    notes' MyCube), with a non-tensor attribute on ctx that backward reads."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x**3, 3 * x**2

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output[1])
        ctx.six = 6

    @staticmethod
    def backward(ctx, g, g_dx):
        x, dx = ctx.saved_tensors
        return g * dx + g_dx * ctx.six * x


class _MulGen(torch.autograd.Function):
    """x * w, and the argmax of x as a non-differentiable second output."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x, w):
        return x * w, x.argmax()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)
        ctx.mark_non_differentiable(output[1])

    @staticmethod
    def backward(ctx, g, _g_idx):
        x, w = ctx.saved_tensors
        return g * w, g * x


def _cube_sum(r):
    return _CubeGen.apply(r)[0].sum()


def test_generate_vmap_rule_records_gradients():
    # PyTorch's generated rule is vmap over forward and over backward: gradients reach the batched inputs
    # whether backward runs inside the vmap (vmap of grad) or after it returned
    xs = rand(5, 3)
    assert_close(vmap(torch.func.grad(_cube_sum))(xs), 3 * xs**2)
    assert_close(
        vmap(torch.func.grad(torch.func.grad(lambda r: _CubeGen.apply(r)[0])))(xs[:, 0]), 6 * xs[:, 0]
    )
    xr = xs.clone().requires_grad_()
    vmap(lambda r: _CubeGen.apply(r)[0], in_dims=1, out_dims=1)(xr).sum().backward()
    assert_close(xr.grad, 3 * xs**2)
    # nested vmaps apply the rule once per level
    x3 = rand(2, 4, 3)
    assert_close(vmap(vmap(torch.func.grad(_cube_sum)))(x3), 3 * x3**2)
    assert_close(torch.func.jacrev(lambda r: _CubeGen.apply(r)[0])(xs[0]), torch.diag(3 * xs[0] ** 2))

    # an unbatched input used by every entry gets the sum of their gradients; the index output stays
    # non-differentiable and batched
    xr, w = xs.clone().requires_grad_(), rand(3).requires_grad_()
    prod, idx = vmap(_MulGen.apply, in_dims=(0, None))(xr, w)
    assert idx.tolist() == xs.argmax(1).tolist() and not idx.requires_grad
    (prod * torch.arange(3.0, dtype=D)).sum().backward()
    assert_close(w.grad, (xs * torch.arange(3.0, dtype=D)).sum(0))
    assert_close(xr.grad, (w.detach() * torch.arange(3.0, dtype=D)).expand(5, 3))
    # without gradients the forward runs on the batched inputs as before: no node, the same values
    assert_close(vmap(_MulGen.apply, in_dims=(0, None))(xs, w.detach())[0], xs * w.detach())


def test_more_linalg_and_signal_rules():
    A = rand(4, 3, 3) + 3 * torch.eye(3, dtype=D)
    _quiet_check(torch.linalg.cond, A)
    _quiet_check(lambda a: torch.linalg.cond(a, "fro"), A)
    _quiet_check(torch.linalg.matrix_rank, A)
    _quiet_check(lambda a: torch.linalg.ldl_factor(a @ a.mT).LD, A)
    _quiet_check(lambda x: torch.linalg.vander(x, N=4), rand(4, 3))
    _quiet_check(lambda a, b: torch.linalg.lstsq(a, b).solution, rand(4, 5, 3), rand(4, 5, 2))
    _quiet_check(
        lambda a, b: torch.linalg.lstsq(a, b, driver="gelsd"), rand(4, 5, 3), rand(5), in_dims=(0, None)
    )
    _quiet_check(
        lambda a, b: torch.linalg.lstsq(a, b, driver="gels"), rand(5, 3), rand(4, 5), in_dims=(None, 0)
    )
    x, y = rand(4, 3, 5), rand(5, 2)
    _quiet_check(lambda a: torch.tensordot(a, y, dims=1), x)
    _quiet_check(lambda b: torch.tensordot(x[0], b, dims=([1], [0])), rand(4, 5, 2))
    _quiet_check(lambda a: torch.tensordot(a, x[0], dims=([0, 1], [0, 1])), rand(4, 3, 5))
    _quiet_check(lambda a: torch.trapezoid(a), x)
    _quiet_check(lambda a: torch.trapezoid(a, dx=0.5, dim=0), x)
    _quiet_check(lambda a: torch.cumulative_trapezoid(a, torch.arange(3.0, dtype=D) ** 2, dim=0), x)
    edges = torch.tensor([-1.0, 0.0, 0.5], dtype=D)
    _quiet_check(lambda a: torch.bucketize(a, edges, right=True), x)
    _quiet_check(lambda a: torch.searchsorted(edges, a), x)
    _quiet_check(lambda s, v: torch.searchsorted(s, v, side="right"), rand(4, 6).sort().values, rand(4, 3))
    _quiet_check(lambda a: torch.stft(a, 8, hop_length=2, window=torch.hann_window(8, dtype=D), return_complex=True),
                 rand(4, 32))  # fmt: skip
    _quiet_check(torch.polar, rand(4, 3).abs(), rand(3), in_dims=(0, None))
    _quiet_check(lambda a: F.rms_norm(a, (5,)), x)


# ------------------------------------------------------------------------------------------------ issue 31 leftovers
# renorm, householder_product/orgqr, cov/corrcoef, block_diag and the stacking/at-least family batch without the loop


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("in_dims", [0, 2])
def test_renorm_rule(dim, in_dims):
    x = rand(4, 3, 5) * 2
    _quiet_check(lambda a: torch.renorm(a, 2, dim, 1.0), x, in_dims=in_dims)
    _quiet_check(lambda a: a.renorm(1, dim, 0.5), x, in_dims=in_dims)
    _quiet_check(lambda a: torch.renorm(a, 3, dim, 1.5), rand(4, 2, 3, 5), in_dims=in_dims)


def test_householder_product_rule():
    A, tau = rand(4, 5, 3), rand(4, 3)
    _quiet_check(torch.linalg.householder_product, A, tau)
    _quiet_check(torch.linalg.householder_product, A, tau[0], in_dims=(0, None))
    _quiet_check(torch.linalg.householder_product, A[0], tau, in_dims=(None, 0))
    _quiet_check(lambda a, t: torch.orgqr(a, t[..., :2]), rand(4, 2, 5, 3), rand(4, 2, 3), in_dims=(0, 0))
    _quiet_check(lambda a, t: a.orgqr(t), rand(5, 4, 3), rand(3, 3), in_dims=(2, 1))


@pytest.mark.parametrize(
    "f",
    [
        torch.cov,
        torch.corrcoef,
        lambda a: torch.cov(a, correction=0),
        lambda a: torch.cov(a, correction=3),
        lambda a: a.cov(),
        lambda a: a.corrcoef(),
        lambda a: torch.cov(a[0]),  # one variable: a 0-d result per entry
        lambda a: torch.corrcoef(a[:1]),
        lambda a: torch.cov((a * 3).to(torch.int64)),  # integer data goes to the default float dtype
    ],
)
@pytest.mark.parametrize("in_dims", [0, 1])
def test_cov_corrcoef_rule(f, in_dims):
    _quiet_check(f, rand(4, 3, 6) if in_dims == 0 else rand(3, 4, 6), in_dims=in_dims)


def test_cov_weights_batched_or_shared():
    x = rand(4, 3, 6)
    fw = torch.randint(0, 4, (4, 6))
    aw = rand(4, 6).abs() + 0.1
    _quiet_check(lambda a, f, w: torch.cov(a, fweights=f, aweights=w), x, fw, aw)
    _quiet_check(lambda a, f: torch.cov(a, fweights=f, correction=0), x, fw[0], in_dims=(0, None))
    _quiet_check(lambda a, w: torch.corrcoef(a) + torch.cov(a, aweights=w), x[0], aw, in_dims=(None, 0))
    # PyTorch's errors of the whole call, from the rule (negative weights, a float fweights, a 3-d input)
    for f, msg in (
        (lambda a, w: torch.cov(a, aweights=w - 5), "aweights cannot be negative"),
        (lambda a, w: torch.cov(a, fweights=w), "expected fweights to have integral dtype"),
        (
            lambda a, w: torch.cov(a.unsqueeze(0), aweights=w),
            "expected input to have two or fewer dimensions",
        ),
    ):
        with pytest.raises(RuntimeError, match=msg):
            loop(f)(x, aw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match=msg):
                vmap(f)(x, aw)


def test_block_diag_rule():
    a, b, c = rand(4, 2, 3), rand(4, 3), rand(4)
    _quiet_check(torch.block_diag, a, b, c)
    _quiet_check(torch.block_diag, a, b[0], c, in_dims=(0, None, 0))
    _quiet_check(lambda x: torch.block_diag(x, torch.ones(2, 2, dtype=torch.float32), x[0]), a)
    _quiet_check(lambda x: torch.block_diag(x.to(torch.int32), x[:1]), a)  # promoted as PyTorch's result_type
    _quiet_check(torch.block_diag, rand(3, 2, 2), in_dims=2)


def test_stacking_and_atleast_rules():
    x, v, s = rand(4, 2, 3), rand(4, 3), rand(4)
    for f in (torch.atleast_1d, torch.atleast_2d, torch.atleast_3d):
        for t in (x, v, s):
            _quiet_check(f, t)
        _quiet_check(lambda a, b, f=f: f(a, b), v, s)
        _quiet_check(lambda a, b, f=f: f([a, b]), s, x)
    _quiet_check(lambda a, b: torch.hstack([a, b]), v, v)
    _quiet_check(lambda a, b: torch.hstack((a, b)), x, x)
    _quiet_check(lambda a, b: torch.vstack([a, b]), v, x[:, 0])
    _quiet_check(lambda a, b: torch.row_stack([a, b]), x, v)
    _quiet_check(lambda a, b: torch.dstack([a, b]), x, x)
    _quiet_check(lambda a, b: torch.dstack([a, b]), v, v.flip(0))
    _quiet_check(lambda a, b, c: torch.column_stack([a, b, c]), v, x.mT[:, :, 0], x.mT)
    _quiet_check(lambda a: torch.hstack([a, x[0]]), x)


def test_inner_adjoint_diagflat_dist_aminmax_rules():
    x, y = rand(4, 2, 3), rand(4, 5, 3)
    _quiet_check(torch.inner, x, y)
    _quiet_check(torch.inner, x, y[0, 0], in_dims=(0, None))
    _quiet_check(torch.inner, x, rand(4), in_dims=(0, 0))  # a 0-d entry multiplies
    _quiet_check(torch.adjoint, x)
    _quiet_check(lambda a: a.adjoint(), torch.complex(x, y[:, :2]))
    _quiet_check(torch.diagflat, x)
    _quiet_check(lambda a: torch.diagflat(a, -1), x)
    _quiet_check(torch.dist, x, y[:, :2])
    _quiet_check(lambda a, b: torch.dist(a, b, 1), x, y[0, :1], in_dims=(0, None))
    _quiet_check(lambda a, b: a.dist(b, p=float("inf")), x, x.flip(0))
    _quiet_check(torch.aminmax, x)
    _quiet_check(lambda a: torch.aminmax(a, dim=1, keepdim=True), x)
    _quiet_check(lambda a: a.aminmax(dim=-2), x)
    # the ops' own errors, from the loop the rules step back to
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="inner\\(\\) the last dimension must match"):
            vmap(torch.inner)(x, y[:, :, :2])
        with pytest.raises(RuntimeError, match="tensor.adjoint\\(\\) is only supported on matrices"):
            vmap(torch.adjoint)(rand(4, 3))


# ------------------------------------------------------------------------------------------------ Function refusals
# PyTorch refuses a user's autograd.Function under a torch.func transform unless it supports it (checked against
# PyTorch 2.15's words): under vmap it needs a vmap staticmethod or generate_vmap_rule=True, batched inputs or not;
# under any transform the ctx-first style (no setup_context) is refused, generate_vmap_rule or not.

_NO_VMAP = (
    "You tried to vmap over NoVmap, but it does not have vmap support. Please override and implement the vmap "
    "staticmethod or set generate_vmap_rule=True. For more details, please see "
    "https://pytorch.org/docs/main/notes/extending.func.html"
)
_NO_SETUP = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must "
    "override the setup_context staticmethod. For more details, please see "
    "https://pytorch.org/docs/main/notes/extending.func.html"
)


class NoVmap(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.sin()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * a.cos()


class CtxFirst(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * a.cos()


class CtxFirstGenerated(CtxFirst):
    generate_vmap_rule = True


def test_function_without_vmap_support_is_refused():
    x = rand(4, 3)
    for f in (NoVmap.apply, lambda a: NoVmap.apply(x[0]) + a):  # batched or not, under vmap
        with pytest.raises(RuntimeError) as e:
            vmap(f)(x)
        assert str(e.value) == _NO_VMAP
    # jacfwd and hessian are vmap over jvp in PyTorch: refused there too, also when the Function is reached
    # through an inner jacrev (hessian = jacfwd(jacrev(f)))
    for run in (
        lambda: torch.func.jacfwd(NoVmap.apply)(x[0]),
        lambda: torch.func.hessian(lambda a: NoVmap.apply(a).sum())(x[0]),
    ):
        with pytest.raises(RuntimeError) as e:
            run()
        assert str(e.value) == _NO_VMAP
    # outside vmap, and under grad/jacrev (reverse transforms need no vmap rule), it runs; so does
    # autograd.functional.hessian (PyTorch's is not vmap-based by default)
    assert_close(NoVmap.apply(x), x.sin())
    assert_close(torch.func.grad(lambda a: NoVmap.apply(a).sum())(x[0]), x[0].cos())
    assert_close(torch.func.jacrev(NoVmap.apply)(x[0]), torch.diag_embed(x[0].cos()))
    h = torch.autograd.functional.hessian(lambda a: NoVmap.apply(a).sum(), x[0])
    assert_close(h, torch.diag_embed(-x[0].sin()))


@pytest.mark.parametrize("cls", [CtxFirst, CtxFirstGenerated])
def test_ctx_first_function_is_refused_by_every_transform(cls):
    x = rand(4, 3)
    for run in (
        lambda: vmap(cls.apply)(x),
        lambda: torch.func.grad(lambda a: cls.apply(a).sum())(x[0]),
        lambda: torch.func.jvp(cls.apply, (x[0],), (x[0],)),
        lambda: torch.func.jacrev(cls.apply)(x[0]),
    ):
        with pytest.raises(RuntimeError) as e:
            run()
        assert str(e.value) == _NO_SETUP
    # the autograd API outside torch.func is not a transform: it runs
    assert_close(cls.apply(x), x.sin())
    assert_close(torch.autograd.functional.jacobian(cls.apply, x[0]), torch.diag(x[0].cos()))


def test_decomposition_split_scatter_and_prelu_rules():
    A = rand(4, 5, 3)
    _quiet_check(lambda a: torch.svd(a), A)
    _quiet_check(lambda a: torch.svd(a, some=False)[1], A)
    _quiet_check(lambda a: torch.geqrf(a), A)
    spd = A.mT @ A + 3 * torch.eye(3, dtype=D)
    _quiet_check(lambda a: torch.cholesky_inverse(torch.linalg.cholesky(a)), spd)
    _quiet_check(lambda a: torch.cholesky_inverse(torch.linalg.cholesky(a, upper=True), upper=True), spd)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="torch.lu is deprecated")
        _quiet_check(lambda a: torch.lu(a), spd)
        _quiet_check(lambda a: torch.lu(a, get_infos=True), spd)
    _quiet_check(torch.igamma, A.abs() + 0.1, A[0].abs() + 0.2, in_dims=(0, None))
    _quiet_check(torch.igammac, A.abs() + 0.1, A.abs().flip(0) + 0.2)
    _quiet_check(torch.complex, A, A[0], in_dims=(0, None))
    x = rand(4, 6, 4, 2)
    test = torch.tensor([0.0, 1.0, 2.0], dtype=D)
    _quiet_check(lambda a: torch.isin(a.round(), test), x)
    _quiet_check(lambda a: torch.isin(a.round(), test, invert=True), x)
    for f in (
        lambda a: torch.vsplit(a, 2),
        lambda a: torch.vsplit(a, [1, 4]),
        lambda a: torch.hsplit(a, 2),
        lambda a: torch.hsplit(a[:, 0, 0], 3),  # a 1-D entry splits along dim 0
        lambda a: torch.dsplit(a, [1]),
        lambda a: a.hsplit([1, 3]),
    ):
        _quiet_check(f, x)
    src = rand(4, 6, 2, 2)
    _quiet_check(lambda a, s: torch.slice_scatter(a, s, 1, 1, 3), x, src)
    _quiet_check(
        lambda a, s: torch.slice_scatter(a, s, dim=1, start=0, end=4, step=2), x, src[0], in_dims=(0, None)
    )
    _quiet_check(lambda a, s: torch.select_scatter(a, s, 2, 1), x, rand(4, 6, 4))
    _quiet_check(lambda a, s: torch.diagonal_scatter(a, s), x[:, :, :, 0], rand(4, 4))
    _quiet_check(lambda a, s: torch.diagonal_scatter(a, s, -1, 0, 2), x[0], rand(4, 4, 2), in_dims=(None, 0))
    w = torch.tensor([0.1, 0.2, -0.3, 0.4], dtype=D)
    _quiet_check(lambda a: F.prelu(a, w), x)
    _quiet_check(lambda a: torch.prelu(a, w[:1]), x)
    _quiet_check(lambda a, ww: F.prelu(a, ww), x, rand(4, 4), in_dims=(0, 0))
    # per-sample gradients through the rule: at 0 the slope, as PyTorch's prelu backward
    z = torch.tensor([[-1.0, 0.0, 2.0, 0.0]], dtype=D).expand(3, 2, 4).contiguous()
    g = vmap(torch.func.grad(lambda a: F.prelu(a, w).sum()))(z)
    assert_close(g, torch.where(z > 0, 1.0, w.expand(3, 2, 4)))
    # the ops' own errors, from the loop the rules step back to
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="torch.vsplit attempted to split along dimension 0"):
            vmap(lambda a: torch.vsplit(a, 4))(x)


@pytest.mark.parametrize(
    "eq,shapes",
    [
        ("ij,jk", [(3, 4), (4, 5)]),
        ("ij,ij", [(3, 4), (3, 4)]),
        ("ba,ca", [(3, 4), (5, 4)]),  # the implicit output is sorted: "bc"
        ("Ab,bC", [(3, 4), (4, 2)]),  # upper case sorts first
        ("...ij,jk", [(2, 3, 4), (4, 5)]),
        ("ii", [(3, 3)]),
        ("i", [(3,)]),
    ],
)
def test_einsum_implicit_output(eq, shapes):
    ops = [rand(4, *sh) for sh in shapes]
    _quiet_check(lambda *a: torch.einsum(eq, *a), *ops)
    _quiet_check(
        lambda *a: torch.einsum(eq, *a),
        *ops[:1],
        *[o[0] for o in ops[1:]],
        in_dims=(0,) + (None,) * (len(ops) - 1),
    )


def test_tensordot_both_batched():
    a, b = rand(4, 3, 5, 2), rand(4, 5, 2, 6)
    _quiet_check(lambda x, y: torch.tensordot(x, y, dims=2), a, b)
    _quiet_check(lambda x, y: torch.tensordot(x, y, dims=1), rand(4, 3, 5), rand(4, 5, 6))
    _quiet_check(lambda x, y: torch.tensordot(x, y, dims=([1, 0], [0, 2])), rand(4, 3, 5), rand(4, 5, 2, 3))
    _quiet_check(lambda x, y: torch.tensordot(x, y, dims=0), rand(4, 2), rand(4, 3))
    _quiet_check(
        lambda x, y: torch.tensordot(x, y, dims=([-1], [0])), rand(3, 4, 5), rand(5, 6, 4), in_dims=(1, 2)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError) as ours:
            vmap(lambda x, y: torch.tensordot(x, y, dims=1))(rand(4, 3, 5), rand(4, 4, 6))
    with pytest.raises(RuntimeError) as theirs:
        torch.tensordot(rand(3, 5), rand(4, 6), dims=1)
    assert str(ours.value) == str(theirs.value)


def test_searchsorted_and_bucketize_with_batched_sequences():
    seq = rand(4, 6).sort().values
    vals = rand(4, 2, 3)
    _quiet_check(lambda s, v: torch.searchsorted(s, v), seq, vals)
    _quiet_check(
        lambda s, v: torch.searchsorted(s, v, right=True, out_int32=True), seq, vals[0], in_dims=(0, None)
    )
    _quiet_check(lambda s, v: torch.searchsorted(s, v, side="right"), seq, vals[:, 0, 0])  # 0-d values
    seq2 = rand(4, 2, 6).sort().values
    _quiet_check(lambda s, v: torch.searchsorted(s, v), seq2, vals)
    _quiet_check(lambda s, v: torch.searchsorted(s, v), seq2[0], vals, in_dims=(None, 0))
    unsorted = rand(4, 6)
    order = unsorted.argsort()
    _quiet_check(lambda s, v, o: torch.searchsorted(s, v, sorter=o), unsorted, vals, order)
    _quiet_check(lambda v, b: torch.bucketize(v, b), vals, seq)
    _quiet_check(
        lambda v, b: torch.bucketize(v, b, right=True, out_int32=True), vals[0], seq, in_dims=(None, 0)
    )


def test_binomial_obeys_randomness_and_bool_reductions_are_refused():
    x = rand(4, 3).abs() + 0.5
    for f in (
        lambda a: torch.binomial(a * 10, a / 4),
        lambda a: torch.binomial(a.round(), torch.full_like(a, 0.5)),
    ):
        with pytest.raises(
            RuntimeError, match="vmap: called random operation while in randomness error mode"
        ):
            vmap(f)(x)
        torch.manual_seed(1)
        got = vmap(f, randomness="different")(x)
        assert got.shape == x.shape
        same = vmap(f, randomness="same")(x[:1].expand(4, 3).contiguous())
        assert_close(same, same[:1].expand(4, 3))  # one draw shared by equal entries
    # binomial's draws are counts no larger than the trials
    counts = vmap(lambda a: torch.binomial(torch.full_like(a, 7.0), a / 4), randomness="different")(x)
    assert torch.equal(counts, counts.round()) and bool((counts <= 7).all())
    for f, msg in (
        (lambda a: torch.equal(a, a), "Batching rule not implemented for aten::equal. We could not generate a fallback."),
        (lambda a: a.equal(a), "Batching rule not implemented for aten::equal. We could not generate a fallback."),
        (lambda a: torch.allclose(a, a), ("vmap over torch.allclose isn't supported yet. Please file an issue at "
         "https://github.com/pytorch/pytorch/issues if you need this feature.")),
    ):  # fmt: skip
        with pytest.raises(RuntimeError) as e:
            vmap(f)(x)
        assert str(e.value) == msg


def test_meshgrid_cartesian_prod_constant_pad_trapz_and_flags():
    a, b, c = rand(4, 3), rand(4, 2), rand(4)
    _quiet_check(lambda x, y: torch.meshgrid(x, y, indexing="ij"), a, b)
    _quiet_check(lambda x, y, z: torch.meshgrid([x, y, z], indexing="xy"), a, b, c)
    _quiet_check(lambda x, y: torch.meshgrid(x, y, indexing="xy"), a, b[0], in_dims=(0, None))
    _quiet_check(lambda x, y: torch.cartesian_prod(x, y), a, b)
    _quiet_check(lambda x, y: torch.cartesian_prod(x, y, x), a, b[0], in_dims=(0, None))
    _quiet_check(lambda x: torch.cartesian_prod(x), a)
    _quiet_check(lambda x: torch.constant_pad_nd(x, (1, 2), 0.5), rand(4, 3, 5))
    _quiet_check(lambda x: torch.constant_pad_nd(x, [0, 1, 2, 0]), rand(4, 3, 5))
    _quiet_check(lambda x: torch.trapz(x, dim=0), rand(4, 3, 5))
    _quiet_check(lambda x: torch.resolve_neg(torch.resolve_conj(x)), a)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        assert vmap(lambda x: x * torch.is_signed(x) + x.is_neg() + torch.is_conj(x))(a).shape == a.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the rule steps back to the loop, which raises the op's own error
        with pytest.raises(RuntimeError, match="Expect a 1D vector"):
            vmap(lambda x: torch.cartesian_prod(x, x[0]))(a)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_batches_through_its_steps(need_weights, batch_first):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, dtype=D)
    q, kv = rand(4, 3, 5, 8), rand(4, 3, 6, 8)
    if not batch_first:
        q, kv = q.transpose(1, 2), kv.transpose(1, 2)
    mask = torch.tensor([[False] * 5 + [True]] * 3)
    causal = torch.ones(5, 6, dtype=torch.bool).triu(2)

    def f(a, b):
        return mha(a, b, b, need_weights=need_weights, key_padding_mask=mask, attn_mask=causal)

    _quiet_check(lambda a, b: f(a, b)[0], q, kv)
    _quiet_check(
        lambda a: mha(a, a, a, need_weights=need_weights)[0], q
    )  # self-attention: the fused projection
    _quiet_check(lambda a: mha(a[0], a[0], a[0], need_weights=need_weights)[0], q)  # unbatched entries
    if need_weights:
        _quiet_check(lambda a, b: f(a, b)[1], q, kv)
    # an ensemble: the parameters batched (stack_module_state), the input shared
    models = [torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, dtype=D) for _ in range(3)]
    params, buffers = torch.func.stack_module_state(models)

    def g(p, b, x):
        return torch.func.functional_call(models[0], (p, b), (x, x, x), {"need_weights": need_weights})[0]

    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        got = vmap(g, in_dims=(0, 0, None))(params, buffers, q[0])
    assert_close(got, torch.stack([m(q[0], q[0], q[0], need_weights=need_weights)[0] for m in models]))


@pytest.mark.parametrize("nd", [1, 2])
@pytest.mark.parametrize("groups", [1, 2])
def test_conv_transpose_and_group_norm_with_batched_parameters(nd, groups):
    sp = (5,) * nd
    name = f"conv_transpose{nd}d"

    def conv_t(*a, **k):
        return getattr(F, name)(*a, **k)  # read inside vmap: F's dispatching spelling

    x, w, b = rand(3, 2, 4, *sp), rand(3, 4, 6 // groups, *(3,) * nd), rand(3, 6)
    kw = {"stride": 2, "padding": 1, "output_padding": 1, "groups": groups}
    _quiet_check(lambda a, ww, bb: conv_t(a, ww, bb, **kw), x, w, b)
    _quiet_check(lambda ww: conv_t(x[0], ww, None, **kw), w)  # the input shared
    _quiet_check(lambda a, ww: conv_t(a, ww, **kw), x[:, 0], w)  # unbatched (C, *s) entries
    _quiet_check(lambda bb: conv_t(x[0], w[0], bb, **kw), b)
    gw, gb = rand(3, 4), rand(3, 4)
    _quiet_check(lambda a, ww, bb: F.group_norm(a, 2, ww, bb), x, gw, gb)
    _quiet_check(lambda ww: F.group_norm(x[0], 2, ww), gw)
    _quiet_check(lambda bb: F.group_norm(x[0], 4, bias=bb, eps=1e-3), gb)


def test_transformer_layers_under_vmap_and_jvp():
    # the layers keep F.relu, bound when the class was defined; they read it from F again, so inside a transform
    # the dispatching spelling runs (the original would meet a BatchedTensor or a dual it cannot take)
    torch.manual_seed(0)
    enc = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=D)
    dec = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=D)
    x, mem = rand(3, 2, 5, 8), rand(3, 2, 4, 8)
    _quiet_check(enc, x)
    _quiet_check(dec, x, mem)
    assert enc.activation is F.relu  # as PyTorch stores it
    t = rand(2, 5, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, tan = torch.func.jvp(enc, (x[0],), (t,))
    eps = 1e-6
    assert_close(tan, (enc(x[0] + eps * t) - enc(x[0] - eps * t)) / (2 * eps), rtol=1e-6, atol=1e-7)
    # dropout with p=0 draws nothing: no randomness to ask for, as PyTorch
    assert_close(vmap(lambda a: F.dropout(a, 0.0, training=True))(x), x)
    assert_close(vmap(lambda a: F.dropout2d(a, 0.0, training=True))(x), x)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_batch_through_their_steps(mode):
    # PyTorch has no batching rule for its fused lstm/gru/rnn ops (it refuses them under vmap); ours are Python
    # over F.linear and pointwise ops, so each step batches by their rules
    torch.manual_seed(0)
    cls = getattr(torch.nn, mode)
    rnn = cls(4, 5, num_layers=2, bidirectional=True, batch_first=True, dtype=D)
    x = rand(3, 2, 6, 4)
    _quiet_check(lambda a: rnn(a)[0], x)
    _quiet_check(lambda a: rnn(a[0])[0], x)  # unbatched (T, F) entries
    h0 = rand(3, 4, 2, 5)
    if mode == "LSTM":
        _quiet_check(lambda a, h, c: rnn(a, (h, c))[1][1], x, h0, h0.flip(0))
    else:
        _quiet_check(lambda a, h: rnn(a, h)[1], x, h0)
    models = [cls(4, 5, dtype=D) for _ in range(3)]
    params, buffers = torch.func.stack_module_state(models)

    def g(p, b, inp):
        return torch.func.functional_call(models[0], (p, b), (inp,))[0]

    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        got = vmap(g, in_dims=(0, 0, None))(params, buffers, x[0, 0])
    assert_close(got, torch.stack([m(x[0, 0])[0] for m in models]))


def test_isin_with_batched_test_elements():
    x = torch.randint(0, 6, (4, 3, 5))
    t = torch.stack([torch.randperm(6)[:4] for _ in range(4)])  # unique per entry, for assume_unique
    _quiet_check(torch.isin, x, t)
    _quiet_check(lambda a, b: torch.isin(a, b, invert=True), x, t)
    _quiet_check(lambda a, b: torch.isin(a, b, assume_unique=True), x[0, 0], t, in_dims=(None, 0))
    _quiet_check(torch.isin, x[:, 0, 0], t)  # 0-d elements per entry
    _quiet_check(torch.isin, x, t.reshape(4, 2, 2))  # test elements of any shape


# Python's builtins on a tensor inside vmap, as PyTorch's (where a batched tensor is a torch.Tensor): each raises
# at the point of use, in its words, or answers as there. Each case runs under vmap and reports the statement
# that ran last before the error, and the error (or a summary of the answer).
BUILTINS_IN_VMAP = r"""
def cases(torch):
    def probe(use):
        seen = []

        def f(x):
            seen.append("before")
            r = use(x)
            seen.append("after")
            return x.sum() if r is None else x.sum() * 1.0

        run = runner(lambda v: v)
        return [run(lambda: list(torch.func.vmap(f)(torch.ones(2, 3)).shape)), seen]

    uses = [
        lambda x: bool(x.sum() > 0),
        lambda x: float(x.sum()),
        lambda x: int(x.sum()),
        lambda x: x.sum().item(),
        lambda x: 1 if x.sum() > 0 else None,
        lambda x: len(x) and None,
        lambda x: [1, 2, 3][x[0].long()],
        lambda x: f"{x.sum():.2f}",
        lambda x: f"{x.sum()}",
        lambda x: format(x, ">5"),
        lambda x: f"{x}".startswith("BatchedTensor(lvl=1, bdim=0, value=\n    tensor([[1., 1., 1.],") or None,
        lambda x: 1.0 in x,
        lambda x: "a" in x,
        lambda x: round(x),
        lambda x: x.tolist(),
        lambda x: x.numpy(),
        lambda x: x.data_ptr(),
        lambda x: repr(x.sum()) == "BatchedTensor(lvl=1, bdim=0, value=\n    tensor([3., 3.])\n)" or None,
    ]
    return [probe(u) for u in uses]
"""


def test_python_builtins_raise_at_their_use_as_pytorchs():
    from tests.utils import cases_here_and_in_pytorch

    ours, theirs = cases_here_and_in_pytorch(BUILTINS_IN_VMAP, [("torch", torch)])
    assert ours == theirs
