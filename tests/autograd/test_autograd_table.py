"""Every recording twin in autograd/record.h's table (minitorch._C._op_table()) has a gradient check here: a
twin added to the table without a case fails test_every_twin_has_a_case, and each case checks the twin's
formula against finite differences in float64 (double backward where the twin is itself a gradient)."""

import os
import warnings

import pytest
from utils import REPO

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from tests.ops import op_schema, opdb

D = torch.float64


def r(*shape, seed=0, grad=True, lo=-1.0, hi=1.0):
    g = torch.Generator().manual_seed(seed)
    if len(shape) == 1 and isinstance(shape[0], tuple):  # r(()) is a 0-d tensor, r(3) and r(2, 3) as rand's
        shape = shape[0]
    t = torch.rand(shape, generator=g, dtype=D) * (hi - lo) + lo
    return t.requires_grad_(grad)


def idx(*values):
    return torch.tensor(values, dtype=torch.long)


def check(fn, *inputs):
    assert gradcheck(fn, inputs)


def check2(fn, *inputs):
    assert gradgradcheck(fn, inputs)


def case_extremum(f):
    def run():
        x = r(3, 4)
        check(lambda t: f(t), x)  # the whole-tensor overload
        check(lambda t: f(t, 1)[0], x)  # the dim overload
        check(lambda t: f(t, 0, True)[0], x)

    return run


def case_unary(inplace):
    """The unary twins record every op of the enum: each differentiable one of tests/ops/opdb.py, on inputs from
    its gradcheck domain (the in-place twin: each with Tensor.<op>_)."""
    g = torch.Generator().manual_seed(0)
    for op in opdb.UNARY_OPS:
        if op.grad is None or (inplace and "inplace" not in op.schema.variants):
            continue
        x = op.grad_input(3, 4, generator=g)
        fn = (
            (lambda a, name=op.name: getattr(a * 1, name + "_")()) if inplace else op_schema.function(op.name)
        )
        assert gradcheck(fn, (x,)), op.name


def case_binary(inplace):
    """The binary twins: each op of tests/ops/opdb.py whose gradcheck is over broadcast shapes, other broadcast
    against self, both away from zero (the in-place twin: each with Tensor.<op>_)."""
    for op in opdb.BINARY_OPS:
        if op.grad != "broadcast" or (inplace and "inplace" not in op.schema.variants):
            continue
        a, b = away(3, 4, seed=1), away(4, seed=2, scale=1.7)
        fn = (
            (lambda x, y, name=op.name: getattr(x * 1, name + "_")(y))
            if inplace
            else op_schema.function(op.name)
        )
        assert gradcheck(fn, (a, b)), op.name


def away(*shape, seed, scale=1.0):
    """A float64 leaf with entries in +-[0.2, 1) * scale: clear of the kinks and poles at zero."""
    g = torch.Generator().manual_seed(seed)
    sign = torch.randint(0, 2, shape, generator=g).double() * 2 - 1
    return ((torch.rand(shape, generator=g, dtype=D) * 0.8 + 0.2) * sign * scale).requires_grad_()


def case_squeeze():
    x = r(3, 1, 4)
    check(lambda t: t.squeeze(), x)
    check(lambda t: t.squeeze(1), x)


def case_cudnn_rnn():
    # The twin's kernels are cuDNN's on CUDA (tests/ops/rnn/test_rnn_cudnn.py compares the path with the composite
    # one on a GPU) and oneDNN's float32 LSTM on the CPU: finite differences in float32 there, with steps and
    # tolerances float32 rounding allows (a wrong gate or a missing term is off by far more).
    if not (torch.cuda.is_available() and torch._C._has_cudnn_rnn()):
        if not torch._C._has_onednn_rnn():
            pytest.skip("the fused RNN twin needs a GPU and a build with cuDNN, or a build with oneDNN")
        m = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
        ws = [p.detach().clone().requires_grad_() for p in m.parameters()]
        h = r(4, 2, 4, seed=1, grad=False).float().requires_grad_()
        c = r(4, 2, 4, seed=2, grad=False).float().requires_grad_()
        x = r(5, 2, 3, grad=False).float().requires_grad_()

        def fn(x, h0, c0, *ws):
            out, hy, cy, _ = torch._C._cudnn_rnn(x, list(ws), h0, c0, 2, 4, 2, False, 0.0, True, True)
            assert hy.grad_fn.name() == "CudnnRnnBackward0"
            return out, hy, cy

        with warnings.catch_warnings():  # gradcheck's "not double precision": float32 is the point here
            warnings.simplefilter("ignore", UserWarning)
            assert gradcheck(fn, (x, h, c, *ws), eps=1e-2, atol=2e-3, rtol=1e-2)
        return
    from minitorch.nn.modules import rnn as rnn_mod

    enabled = rnn_mod.cudnn_rnn_enabled
    rnn_mod.cudnn_rnn_enabled = True
    try:
        m = torch.nn.LSTM(3, 4).double().cuda()
        h = r(1, 2, 4, seed=1, grad=False).cuda().requires_grad_()
        c = r(1, 2, 4, seed=2, grad=False).cuda().requires_grad_()
        check(lambda x, h0, c0: m(x, (h0, c0))[0], r(5, 2, 3, grad=False).cuda().requires_grad_(), h, c)
    finally:
        rnn_mod.cudnn_rnn_enabled = enabled


def dropout_fixed(t):
    torch.manual_seed(0)  # the same mask on every call gradcheck makes
    return F.dropout(t, 0.5, True)


CASES = {
    # attention
    "sdpa": lambda: check(
        F.scaled_dot_product_attention, r(1, 2, 3, 4), r(1, 2, 5, 4, seed=1), r(1, 2, 5, 4, seed=2)
    ),
    # conv
    "convolution": lambda: check(F.conv2d, r(1, 2, 5, 5), r(3, 2, 3, 3, seed=1), r(3, seed=2)),
    "convolution_transpose": lambda: check(
        F.conv_transpose2d, r(1, 2, 4, 4), r(2, 3, 3, 3, seed=1), r(3, seed=2)
    ),
    "convolution_backward_weight": lambda: check2(F.conv2d, r(1, 2, 4, 4), r(2, 2, 3, 3, seed=1)),
    # copy
    "copy_": lambda: check(lambda a, b: (a * 1).copy_(b), r(3), r(3, seed=1)),
    "clone": lambda: check(lambda a: a.clone(), r(3)),
    "to": lambda: check(lambda a: a.to(D, copy=True), r(3)),
    "fill_": lambda: check(lambda a: (a * 2).fill_(1.5) + a, r(3)),
    # elementwise: every differentiable op of the op database, through its function and its in-place form
    "unary": lambda: case_unary(inplace=False),
    "unary_": lambda: case_unary(inplace=True),
    "binary": lambda: case_binary(inplace=False),
    "binary_": lambda: case_binary(inplace=True),
    "clamp": lambda: check(
        lambda a, lo, hi: torch.clamp(a, lo, hi),
        r(3, 4),
        r(4, seed=1, lo=-0.6, hi=-0.4),
        r(4, seed=2, lo=0.4, hi=0.6),
    ),
    "clamp_": lambda: check(
        lambda a, lo, hi: (a * 1).clamp_(lo, hi),
        r(3, 4),
        r(4, seed=1, lo=-0.6, hi=-0.4),
        r(4, seed=2, lo=0.4, hi=0.6),
    ),
    "where": lambda: check(lambda a, b: torch.where(idx(1, 0, 1).bool(), a, b), r(3), r(3, seed=1)),
    "masked_fill": lambda: check(lambda a, v: a.masked_fill(idx(1, 0, 1).bool(), v), r(3), r((), seed=1)),
    "masked_fill_": lambda: check(
        lambda a, v: (a * 1).masked_fill_(idx(1, 0, 1).bool(), v), r(3), r((), seed=1)
    ),
    "softplus": lambda: check(F.softplus, r(3, 4)),
    "log_sigmoid": lambda: check(F.logsigmoid, r(3, 4, lo=-4.0, hi=4.0)),
    "leaky_relu": lambda: check(lambda a: F.leaky_relu(a, 0.1), r(3, 4)),
    "hardshrink": lambda: check(lambda a: F.hardshrink(a, 0.3), r(3, 4)),
    "softshrink": lambda: check(lambda a: F.softshrink(a, 0.3), r(3, 4)),
    "threshold": lambda: check(lambda a: F.threshold(a, 0.1, -2.0), r(3, 4)),
    "elu": lambda: check(lambda a: F.celu(a, 1.3), r(3, 4, lo=-2.0, hi=2.0)),
    "polygamma": lambda: check(lambda a: torch.polygamma(2, a), r(3, 4, lo=0.5, hi=3.0)),
    # index
    "index": lambda: check(lambda a: a[idx(0, 2, 2)], r(3, 4)),
    "index_put_": lambda: check(lambda a, v: (a * 1).index_put_((idx(0, 2),), v), r(3, 4), r(2, 4, seed=1)),
    "index_select": lambda: check(lambda a: torch.index_select(a, 1, idx(3, 0, 3)), r(3, 4)),
    "gather": lambda: check(lambda a: torch.gather(a, 1, idx(0, 3, 3).reshape(1, 3).expand(3, 3)), r(3, 4)),
    "scatter_": lambda: check(
        lambda a, s: (a * 1).scatter_(1, idx(2, 0).reshape(1, 2).expand(3, 2), s), r(3, 4), r(3, 2, seed=1)
    ),
    "index_copy": lambda: check(lambda a, s: a.index_copy(1, idx(3, 0), s), r(3, 4), r(3, 2, seed=1)),
    "index_copy_": lambda: check(lambda a, s: (a * 1).index_copy_(0, idx(2), s), r(3, 4), r(1, 4, seed=1)),
    "index_fill": lambda: check(lambda a, v: a.index_fill(1, idx(3, 0, 3), v), r(3, 4), r((), seed=1)),
    "index_fill_": lambda: check(lambda a, v: (a * 1).index_fill_(-2, idx(1), v), r(3, 4), r((), seed=1)),
    "masked_scatter": lambda: check(
        lambda a, s: a.masked_scatter(idx(1, 0, 1, 1).bool(), s), r(3, 4), r(10, seed=1)
    ),
    "masked_scatter_": lambda: check(
        lambda a, s: (a * 1).masked_scatter_(idx(0, 1, 1, 0).bool(), s), r(3, 4), r(3, 3, seed=1)
    ),
    "slice_scatter": lambda: check(lambda a, s: a.slice_scatter(s, 1, 1, None, 2), r(3, 4), r(3, 2, seed=1)),
    # sort
    "median_all": lambda: (check(torch.median, r(3, 4)), check(torch.nanmedian, r(3, 4))),
    "tril": lambda: check(lambda a: torch.tril(a, -1), r(2, 3, 4)),
    "triu": lambda: check(lambda a: a.triu(1), r(2, 4, 3)),
    "tril_": lambda: check(lambda a: (a * 1).tril_(), r(3, 4)),
    "triu_": lambda: check(lambda a: (a * 1).triu_(-1), r(4, 3)),
    # linalg
    "mm": lambda: check(torch.mm, r(3, 4), r(4, 2, seed=1)),
    "bmm": lambda: check(torch.bmm, r(2, 3, 4), r(2, 4, 2, seed=1)),
    "mv": lambda: check(torch.mv, r(3, 4), r(4, seed=1)),
    # self of the result's length, of one element and 0-d (broadcast: the engine sums its gradient back)
    "addmv": lambda: [
        check(lambda c, a, v: torch.addmv(c, a, v, beta=0.5, alpha=-2.0), c, r(3, 4, seed=1), r(4, seed=2))
        for c in (r(3), r(1, seed=3), r((), seed=4))
    ],
    "dot": lambda: check(torch.dot, r(4), r(4, seed=1)),
    "addmm": lambda: check(
        lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0), r(3, 2), r(3, 4, seed=1), r(4, 2, seed=2)
    ),
    # loss
    "class_loss": lambda: check(lambda a: F.cross_entropy(a, idx(0, 2, 1)), r(3, 4)),
    "mse_loss": lambda: check(F.mse_loss, r(3, 4), r(3, 4, seed=1)),
    # the CTC kernel's gradient (CPU): a repeated label, a shorter sample, an empty target. PyTorch's formula
    # exp(lp) - occupancy is the derivative through log_softmax (its rows sum to zero), as ctc_loss is used
    "ctc_loss": lambda: check(
        lambda a: F.ctc_loss(
            a.log_softmax(2), idx(1, 1, 2, 2, 1, 0).reshape(3, 2), [5, 4, 3], [2, 2, 0], reduction="none"
        ),
        r(5, 3, 3),
    ),
    # differences up to 2 against delta/beta 0.5: both sides of the kink (gradcheck's steps stay off it)
    "huber_loss": lambda: check(lambda a, b: F.huber_loss(a, b, delta=0.5), r(3, 4), r(3, 4, seed=1)),
    "smooth_l1_loss": lambda: check(
        lambda a, b: F.smooth_l1_loss(a, b, reduction="sum", beta=0.5), r(3, 4), r(3, 4, seed=1)
    ),
    "binary_cross_entropy": lambda: check(
        lambda a, t: F.binary_cross_entropy(torch.sigmoid(a), t), r(3, 4), r(3, 4, seed=1, lo=0.0, hi=1.0)
    ),
    # nn
    "linear": lambda: check(F.linear, r(3, 4), r(2, 4, seed=1), r(2, seed=2)),
    "layer_norm": lambda: check(
        lambda a, w, b: F.layer_norm(a, (4,), w, b), r(3, 4), r(4, seed=1), r(4, seed=2)
    ),
    "group_norm": lambda: check(
        lambda a, w, b: F.group_norm(a, 2, w, b), r(2, 4, 3), r(4, seed=1), r(4, seed=2)
    ),
    "batch_norm": lambda: check(
        lambda a, w, b: F.batch_norm(a, None, None, w, b, training=True), r(4, 3), r(3, seed=1), r(3, seed=2)
    ),
    "embedding": lambda: check(lambda w: F.embedding(idx(0, 2, 2), w), r(3, 4)),
    "dropout": lambda: check(dropout_fixed, r(3, 4)),
    # rnn
    "cudnn_rnn": case_cudnn_rnn,
    # pool
    "max_pool2d_impl": lambda: check(lambda a: F.max_pool2d(a, 2), r(1, 2, 4, 4)),
    "avg_pool2d_impl": lambda: check(lambda a: F.avg_pool2d(a, 2), r(1, 2, 4, 4)),
    "avg_pool2d_backward": lambda: check2(lambda a: F.avg_pool2d(a, 2), r(1, 2, 4, 4)),
    "max_pool2d_backward": lambda: check2(lambda a: F.max_pool2d(a, 2), r(1, 2, 4, 4)),
    # reduce
    "sum": lambda: check(lambda a: a.sum(1), r(3, 4)),
    "mean": lambda: check(lambda a: a.mean(0), r(3, 4)),
    "prod": lambda: check(lambda a: a.prod(1), r(3, 4)),
    "amax": lambda: check(lambda a: a.amax(1), r(3, 4)),
    "amin": lambda: check(lambda a: a.amin(1), r(3, 4)),
    "var": lambda: check(lambda a: a.var(1), r(3, 4)),
    "std": lambda: check(lambda a: a.std(1), r(3, 4)),
    "norm": lambda: check(lambda a: torch.norm(a, 3, dim=1), r(3, 4)),
    "logsumexp": lambda: check(lambda a: torch.logsumexp(a, 1), r(3, 4)),
    "nansum": lambda: check(lambda a: torch.nansum(a, (0, 2), keepdim=True), r(3, 4, 2)),
    "trace": lambda: check(torch.trace, r(3, 4)),
    "max": case_extremum(torch.max),
    "min": case_extremum(torch.min),
    "cumsum": lambda: check(lambda a: torch.cumsum(a, 1), r(3, 4)),
    "cumprod": lambda: check(lambda a: torch.cumprod(a, 1), r(3, 4)),
    "logcumsumexp": lambda: (
        check(lambda a: torch.logcumsumexp(a, 1), r(3, 4)),
        check2(lambda a: torch.logcumsumexp(a, 0), r(3, 4, lo=-3, hi=3)),
    ),
    "softmax": lambda: check(lambda a: torch.softmax(a, 1), r(3, 4)),
    "log_softmax": lambda: check(lambda a: torch.log_softmax(a, 1), r(3, 4)),
    # upsample
    "upsample_impl": lambda: check(
        lambda a: F.interpolate(a, scale_factor=2, mode="bilinear"), r(1, 2, 3, 3)
    ),
    "upsample_backward": lambda: check2(
        lambda a: F.interpolate(a, scale_factor=2, mode="bilinear"), r(1, 1, 2, 2)
    ),
    # the separable (antialias) primitive: a downscale in H (the filter widened) and an upscale in W
    "upsample_aa_impl": lambda: check(
        lambda a: F.interpolate(a, size=(2, 5), mode="bicubic", antialias=True), r(1, 2, 5, 3)
    ),
    "upsample_aa_backward": lambda: check2(
        lambda a: F.interpolate(a, size=(2, 5), mode="lanczos", antialias=True), r(1, 1, 5, 3)
    ),
    # grid_sample's kernel path, bicubic (every tap and weight derivative); points off the pixel lattice
    "grid_sampler_impl": lambda: check(
        lambda a, g: F.grid_sample(a, g, mode="bicubic", padding_mode="reflection", align_corners=False),
        r(1, 2, 3, 4),
        r(1, 2, 3, 2, seed=1, lo=-0.9, hi=0.9),
    ),
    # shape (the view ops' twins are in views.cpp)
    "as_strided": lambda: check(lambda a: a.as_strided((2, 2), (1, 2)), r(6)),
    "alias": lambda: check(lambda a: a.t() * 1, r(3)),  # t() of a 1-D tensor is an alias
    "view": lambda: check(lambda a: a.view(4, 3), r(3, 4)),
    "reshape": lambda: check(lambda a: a.t().reshape(12), r(3, 4)),
    "permute": lambda: check(lambda a: a.permute(2, 0, 1), r(2, 3, 4)),
    "transpose": lambda: check(lambda a: a.transpose(0, 1), r(3, 4)),
    "squeeze": case_squeeze,
    "unsqueeze": lambda: check(lambda a: a.unsqueeze(1), r(3, 4)),
    "expand": lambda: check(lambda a: a.expand(2, 3, 4), r(3, 1)),
    "select": lambda: check(lambda a: a.select(1, 2), r(3, 4)),
    "slice": lambda: check(lambda a: a[:, 1::2], r(3, 4)),
    "diagonal": lambda: check(lambda a: torch.diagonal(a, 1), r(3, 4)),
    # multi-output views: a function of some parts only (the others get zero gradients)
    "split_with_sizes": lambda: check(
        lambda a: a.split([2, 1, 2], 1)[0] * 2 + a.split([2, 1, 2], 1)[2], r(3, 5)
    ),
    "unbind": lambda: check(lambda a: a.unbind(1)[0] * a.unbind(1)[2], r(3, 4)),
    "cat": lambda: check(lambda a, b: torch.cat([a, b], 1), r(3, 4), r(3, 2, seed=1)),
    "flip": lambda: check(lambda a: torch.flip(a, (0, 2)), r(2, 3, 4)),
    # complex views, checked through real functions: z*z and exp(z) are holomorphic, so the gradient of the
    # real view of the result must match finite differences of the real parts
    "view_as_complex": lambda: check(lambda a: torch.view_as_real(torch.view_as_complex(a).exp()), r(3, 2)),
    "view_as_real": lambda: check(
        lambda a: torch.view_as_real(torch.view_as_complex(a) * torch.view_as_complex(a)), r(2, 3, 2)
    ),
}


def table_names():
    return sorted({name for name, _ in torch._C._op_table()})


def test_every_twin_has_a_case():
    table = table_names()
    assert table, "the table is empty"
    missing = sorted(set(table) - set(CASES))
    stale = sorted(set(CASES) - set(table))
    assert not missing, f"twins without a gradcheck case here: {missing}"
    assert not stale, f"cases for twins no longer in the table: {stale}"


def test_table_families_are_ops_headers():
    ops = os.path.join(REPO, "csrc", "ops")
    for name, family in torch._C._op_table():
        assert os.path.exists(os.path.join(ops, family + ".h")), (name, family)


@pytest.mark.parametrize("name", table_names())
def test_twin_gradcheck(name):
    CASES[name]()
