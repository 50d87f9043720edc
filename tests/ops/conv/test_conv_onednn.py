"""The CPU float32 convolution paths, oneDNN's and im2col + OpenBLAS's (torch.backends.mkldnn.enabled picks),
against NumPy float64 references and against the float64 path (which test_conv.py checks against NumPy and by
gradcheck): forward, input and weight gradients, transposed convs, strides, paddings, dilations, groups,
non-contiguous and empty inputs, thread counts, and a conv in a forked child after the parent ran threaded."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_conv import CONV2D_CASES, CONVT_CASES, _ref_padding, np_conv2d, np_conv_transpose2d
from utils import assert_matches

import minitorch

F = minitorch._C._nn
mkldnn = minitorch.backends.mkldnn
BACKENDS = ["onednn", "im2col"]
RTOL, ATOL = 1e-4, 1e-4


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param == "onednn" and not mkldnn.is_available():
        pytest.skip("built without oneDNN")
    with mkldnn.flags(enabled=request.param == "onednn"):
        yield request.param


def f32(a, requires_grad=False):
    t = minitorch.tensor(np.asarray(a, dtype=np.float32))
    return t.requires_grad_() if requires_grad else t


def grads(fn, x, w, b, seed):
    """fn(x, w, b) and the gradients of <fn(x, w, b), g> for a random g, in x's dtype."""
    x, w, b = (t.detach().requires_grad_() for t in (x, w, b))
    y = fn(x, w, b)
    g = minitorch.tensor(np.random.default_rng(seed).uniform(-1, 1, tuple(y.shape)), dtype=x.dtype)
    (y * g).sum().backward()
    return y, x.grad, w.grad, b.grad


# a few shapes where oneDNN picks blocked layouts (channels a multiple of 16) and its first-layer kernels
BIG_CASES = [
    ((3, 32, 14, 14), (64, 32, 3, 3), {"padding": 1}),
    ((2, 32, 15, 15), (48, 32, 3, 3), {"stride": 2, "padding": 1}),
    ((2, 64, 9, 9), (32, 64, 1, 1), {}),
    ((2, 64, 9, 9), (32, 64, 1, 1), {"stride": 2}),
    ((2, 3, 23, 23), (16, 3, 7, 7), {"stride": 2, "padding": 3}),  # forward: im2col (few input channels)
    ((2, 3, 23, 23), (64, 3, 7, 7), {"stride": 2, "padding": 3}),  # forward: oneDNN (the stem's shape)
    ((2, 32, 8, 8), (32, 1, 3, 3), {"padding": 1, "groups": 32}),
    ((2, 32, 8, 8), (64, 8, 3, 3), {"padding": 2, "dilation": 2, "groups": 4}),
]
CASES = CONV2D_CASES + BIG_CASES


@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv2d_float32(backend, case):
    xs, ws, kw = CASES[case]
    rng = np.random.default_rng(100 + case)
    x, w, b = rng.uniform(-1, 1, xs), rng.uniform(-1, 1, ws), rng.uniform(-1, 1, ws[0])
    expect = np_conv2d(x, w, b, **dict(kw, padding=_ref_padding(ws, kw)))
    conv = lambda x, w, b: F.conv2d(x, w, b, **kw)
    y, gx, gw, gb = grads(conv, f32(x), f32(w), f32(b), case)
    assert y.dtype == minitorch.float32
    assert_matches(y, expect, rtol=RTOL, atol=ATOL)
    # the gradients against the float64 path's, itself checked by gradcheck in test_conv.py
    with mkldnn.flags(enabled=False):
        _, ex, ew, eb = grads(conv, *(minitorch.tensor(a) for a in (x, w, b)), case)
    for got, ref in ((gx, ex), (gw, ew), (gb, eb)):
        assert got.dtype == minitorch.float32
        assert_matches(got, ref.numpy(), rtol=RTOL, atol=ATOL * 10)


@pytest.mark.parametrize("case", range(len(CONVT_CASES)))
def test_conv_transpose2d_float32(backend, case):
    xs, ws, kw = CONVT_CASES[case]
    rng = np.random.default_rng(200 + case)
    x, w = rng.uniform(-1, 1, xs), rng.uniform(-1, 1, ws)
    b = rng.uniform(-1, 1, ws[1] * kw.get("groups", 1))
    conv = lambda x, w, b: F.conv_transpose2d(x, w, b, **kw)
    y, gx, gw, gb = grads(conv, f32(x), f32(w), f32(b), case)
    assert_matches(y, np_conv_transpose2d(x, w, b, **kw), rtol=RTOL, atol=ATOL)
    with mkldnn.flags(enabled=False):
        _, ex, ew, eb = grads(conv, *(minitorch.tensor(a) for a in (x, w, b)), case)
    for got, ref in ((gx, ex), (gw, ew), (gb, eb)):
        assert_matches(got, ref.numpy(), rtol=RTOL, atol=ATOL * 10)


def test_noncontiguous_and_empty_float32(backend):
    rng = np.random.default_rng(300)
    x, w = rng.uniform(-1, 1, (2, 16, 9, 10)), rng.uniform(-1, 1, (32, 16, 3, 3))
    # a channels-last view and a transposed weight: the kernels see contiguous copies
    xt = f32(x.transpose(0, 2, 3, 1)).permute(0, 3, 1, 2)
    wt = f32(w.transpose(1, 0, 2, 3)).transpose(0, 1)
    assert not xt.is_contiguous() and not wt.is_contiguous()
    assert_matches(F.conv2d(xt, wt, None, 1, 1), np_conv2d(x, w, padding=1), rtol=RTOL, atol=ATOL)
    e = f32(np.zeros((0, 16, 9, 10)), requires_grad=True)
    wg = f32(w, requires_grad=True)
    y = F.conv2d(e, wg, None, 1, 1)
    assert tuple(y.shape) == (0, 32, 9, 10)
    y.sum().backward()
    assert tuple(e.grad.shape) == (0, 16, 9, 10)
    assert_matches(wg.grad, np.zeros(w.shape))


def test_thread_counts_agree(backend):
    rng = np.random.default_rng(301)
    x, w = f32(rng.uniform(-1, 1, (4, 32, 12, 12)), True), f32(rng.uniform(-1, 1, (32, 32, 3, 3)), True)
    old = minitorch.get_num_threads()
    out = []
    try:
        for n in (1, 2):
            minitorch.set_num_threads(n)
            x.grad = w.grad = None
            y = F.conv2d(x, w, None, 1, 1)
            (y * y).sum().backward()
            out.append([y.detach().numpy(), x.grad.numpy(), w.grad.numpy()])
    finally:
        minitorch.set_num_threads(old)
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)


def test_conv_in_forked_child():
    """DataLoader workers fork after the parent ran convs and a GEMM on several threads (oneDNN's OpenMP threads
    do not exist in the child): the child's must finish and agree. A hang fails by the timeout."""
    script = textwrap.dedent(
        """
        import os, sys
        import numpy as np
        import minitorch
        F = minitorch._C._nn
        minitorch.set_num_threads(2)
        rng = np.random.default_rng(0)
        x = minitorch.tensor(rng.uniform(-1, 1, (8, 32, 16, 16)).astype(np.float32), requires_grad=True)
        w = minitorch.tensor(rng.uniform(-1, 1, (32, 32, 3, 3)).astype(np.float32), requires_grad=True)
        F.conv2d(x, w, None, 1, 1).sum().backward()
        a = minitorch.tensor(rng.uniform(-1, 1, (300, 400)).astype(np.float32))
        ref = (F.conv2d(x, w, None, 1, 1).detach().numpy(), x.grad.numpy().copy(), w.grad.numpy().copy(),
               (a @ a.t()).numpy())
        pid = os.fork()
        if pid == 0:
            x.grad = w.grad = None
            y = F.conv2d(x, w, None, 1, 1)
            y.sum().backward()
            got = (y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), (a @ a.t()).numpy())
            ok = all(np.allclose(r, g, rtol=1e-5, atol=1e-4) for r, g in zip(ref, got))
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run(
        [sys.executable, "-c", script], check=False, env=env, timeout=120, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr[-2000:]


def test_mkldnn_flags():
    assert isinstance(mkldnn.is_available(), bool)
    old = mkldnn.enabled
    try:
        mkldnn.enabled = False
        assert mkldnn.enabled is False
        with mkldnn.flags(enabled=True):
            assert mkldnn.enabled is True
        assert mkldnn.enabled is False
    finally:
        mkldnn.enabled = old
    assert mkldnn.enabled is old
