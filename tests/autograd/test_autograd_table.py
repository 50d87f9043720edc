"""Every recording twin in autograd/record.h's table (minitorch._C._op_table()) has a gradient check here: a
twin added to the table without a case fails test_every_twin_has_a_case, and each case checks the twin's
formula against finite differences in float64 (double backward where the twin is itself a gradient)."""

import os

import pytest
from utils import REPO

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

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


def case_squeeze():
    x = r(3, 1, 4)
    check(lambda t: t.squeeze(), x)
    check(lambda t: t.squeeze(1), x)


def case_cudnn_rnn():
    # The twin's kernels are cuDNN's (CUDA only): without a GPU this case cannot run (tests/ops/rnn/test_rnn_cudnn.py
    # compares the path with the composite one on a GPU).
    if not (torch.cuda.is_available() and torch._C._has_cudnn_rnn()):
        pytest.skip("the cuDNN RNN twin needs a GPU and a build with cuDNN")
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
    # elementwise
    "unary": lambda: check(torch.sin, r(3, 4)),
    "unary_": lambda: check(lambda a: (a * 1).sin_(), r(3, 4)),
    "binary": lambda: check(torch.mul, r(3, 4), r(4, seed=1)),
    "binary_": lambda: check(lambda a, b: (a * 1).mul_(b), r(3, 4), r(4, seed=1)),
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
    "leaky_relu": lambda: check(lambda a: F.leaky_relu(a, 0.1), r(3, 4)),
    "hardshrink": lambda: check(lambda a: F.hardshrink(a, 0.3), r(3, 4)),
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
    # sort
    "tril": lambda: check(lambda a: torch.tril(a, -1), r(2, 3, 4)),
    "triu": lambda: check(lambda a: a.triu(1), r(2, 4, 3)),
    "tril_": lambda: check(lambda a: (a * 1).tril_(), r(3, 4)),
    "triu_": lambda: check(lambda a: (a * 1).triu_(-1), r(4, 3)),
    # linalg
    "mm": lambda: check(torch.mm, r(3, 4), r(4, 2, seed=1)),
    "bmm": lambda: check(torch.bmm, r(2, 3, 4), r(2, 4, 2, seed=1)),
    "mv": lambda: check(torch.mv, r(3, 4), r(4, seed=1)),
    "dot": lambda: check(torch.dot, r(4), r(4, seed=1)),
    "addmm": lambda: check(
        lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0), r(3, 2), r(3, 4, seed=1), r(4, 2, seed=2)
    ),
    # loss
    "class_loss": lambda: check(lambda a: F.cross_entropy(a, idx(0, 2, 1)), r(3, 4)),
    "mse_loss": lambda: check(F.mse_loss, r(3, 4), r(3, 4, seed=1)),
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
    "softmax": lambda: check(lambda a: torch.softmax(a, 1), r(3, 4)),
    "log_softmax": lambda: check(lambda a: torch.log_softmax(a, 1), r(3, 4)),
    # upsample
    "upsample_impl": lambda: check(
        lambda a: F.interpolate(a, scale_factor=2, mode="bilinear"), r(1, 2, 3, 3)
    ),
    "upsample_backward": lambda: check2(
        lambda a: F.interpolate(a, scale_factor=2, mode="bilinear"), r(1, 1, 2, 2)
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
