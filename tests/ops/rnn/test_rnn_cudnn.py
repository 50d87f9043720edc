"""The fused cuDNN RNN path (_C._cudnn_rnn) of nn.RNN/LSTM/GRU: on a GPU it must equal the composite path
(outputs, final states, every input and weight gradient); everywhere, the choice between the two paths and the
op's argument checks."""

import types

import numpy as np
import pytest

import minitorch
from minitorch import _C, nn
from minitorch.nn.modules import rnn as rnn_mod

CUDA = minitorch.cuda.is_available()
needs_cudnn_gpu = pytest.mark.skipif(
    not (CUDA and _C._has_cudnn_rnn()), reason="needs a GPU and a build with cuDNN"
)

MODES = {
    "LSTM": (nn.LSTM, {}),
    "GRU": (nn.GRU, {}),
    "RNN_TANH": (nn.RNN, {}),
    "RNN_RELU": (nn.RNN, {"nonlinearity": "relu"}),
}


def make(mode, **kw):
    cls, extra = MODES[mode]
    return cls(**kw, **extra)


def run(m, x, h0, c0, cudnn, monkeypatch):
    """Forward and backward through one path; returns every value and gradient as NumPy."""
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", cudnn)
    for p in m.parameters():
        p.grad = None
    x = x.detach().requires_grad_(True)
    h0 = h0.detach().requires_grad_(True)
    c0 = c0.detach().requires_grad_(True) if c0 is not None else None
    with minitorch.backends.cudnn.flags(enabled=True, allow_tf32=False):
        out, hn = m(x, (h0, c0) if c0 is not None else h0)
    hy, cy = hn if c0 is not None else (hn, None)
    # hy's node tells which path ran (the composite path ends in stack)
    assert (hy.grad_fn.name() == "CudnnRnnBackward0") == cudnn, hy.grad_fn.name()
    rng = np.random.default_rng(7)
    loss = (
        out * minitorch.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype, device=out.device)
    ).sum()
    loss = loss + (hy * hy).sum()
    if cy is not None:
        loss = loss + (cy * 0.5).sum()
    loss.backward()
    res = {"out": out, "hy": hy, "x.grad": x.grad, "h0.grad": h0.grad}
    if cy is not None:
        res.update({"cy": cy, "c0.grad": c0.grad})
    for name, p in m.named_parameters():
        res[name + ".grad"] = p.grad
    return {k: v.detach().cpu().numpy() for k, v in res.items()}


@needs_cudnn_gpu
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize(
    "layers,bidir,batch_first,bias",
    [(1, False, False, True), (2, True, False, True), (2, False, True, False), (1, True, True, True)],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cudnn_equals_composite(mode, layers, bidir, batch_first, bias, dtype, monkeypatch):
    dt = getattr(minitorch, dtype)
    minitorch.manual_seed(0)
    m = make(
        mode,
        input_size=5,
        hidden_size=6,
        num_layers=layers,
        bidirectional=bidir,
        batch_first=batch_first,
        bias=bias,
        device="cuda",
        dtype=dt,
    )
    D = 2 if bidir else 1
    rng = np.random.default_rng(1)
    T_, N = 7, 3
    xs = (N, T_, 5) if batch_first else (T_, N, 5)
    x = minitorch.tensor(rng.standard_normal(xs), dtype=dt, device="cuda")
    h0 = minitorch.tensor(rng.standard_normal((layers * D, N, 6)), dtype=dt, device="cuda")
    c0 = (
        minitorch.tensor(rng.standard_normal((layers * D, N, 6)), dtype=dt, device="cuda")
        if mode == "LSTM"
        else None
    )
    # float32 without TF32: cuDNN's default (as PyTorch's) rounds its GEMM inputs to TF32's 10-bit mantissa,
    # ~1e-3 relative, where the composite's cuBLAS GEMMs keep float32
    with minitorch.backends.cudnn.flags(enabled=True, allow_tf32=False):
        fused = run(m, x, h0, c0, True, monkeypatch)
    ref = run(m, x, h0, c0, False, monkeypatch)
    assert fused.keys() == ref.keys()
    tol = 1e-10 if dtype == "float64" else 2e-4
    for k in ref:
        np.testing.assert_allclose(fused[k], ref[k], rtol=tol, atol=tol, err_msg=k)


@needs_cudnn_gpu
def test_cudnn_float16_close_to_float32(monkeypatch):
    minitorch.manual_seed(0)
    m = nn.LSTM(8, 16, num_layers=2, device="cuda")
    x = minitorch.randn(5, 4, 8, device="cuda")
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", True)
    with minitorch.backends.cudnn.flags(enabled=True, allow_tf32=False):
        ref, _ = m(x)
        m.half()
        out, (hy, _) = m(x.half())
    assert out.dtype == minitorch.float16 and hy.grad_fn.name() == "CudnnRnnBackward0"
    np.testing.assert_allclose(out.float().detach().cpu().numpy(), ref.detach().cpu().numpy(), atol=1e-2)


@needs_cudnn_gpu
def test_cudnn_no_grad_and_eval_and_double_backward(monkeypatch):
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", True)
    minitorch.manual_seed(0)
    m = nn.GRU(4, 5, device="cuda", dtype=minitorch.float64)
    x = minitorch.randn(6, 2, 4, device="cuda", dtype=minitorch.float64)
    with minitorch.no_grad():
        a, _ = m(x)
    assert a.grad_fn is None
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", False)
    b, _ = m(x)
    np.testing.assert_allclose(a.cpu().numpy(), b.detach().cpu().numpy(), rtol=1e-10, atol=1e-10)
    # eval mode still records (cuDNN's training forward runs whenever a gradient is needed)
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", True)
    m.eval()
    xr = x.clone().requires_grad_(True)
    out, _ = m(xr)
    (g,) = minitorch.autograd.grad(out.sum(), xr, create_graph=False)
    assert tuple(g.shape) == tuple(x.shape)
    out, _ = m(xr)
    with pytest.raises(NotImplementedError, match="_cudnn_rnn_backward"):
        minitorch.autograd.grad(out.sum(), xr, create_graph=True)


# ---- everywhere: which path runs, and the op's argument checks


def fake_input(device, dtype=minitorch.float32, is_cuda=True, numel=6):
    return types.SimpleNamespace(is_cuda=is_cuda, dtype=dtype, device=device, numel=lambda: numel)


def _use_cudnn(m, x, h0, c0):
    """rnn_mod._use_cudnn for module m's call (the function takes the layers' settings one by one)"""
    w = m._flat_weights
    return rnn_mod._use_cudnn(m.mode, x, h0, c0, w, m.proj_size > 0, m.dropout, m.training, m.num_layers)


def test_choice_logic(monkeypatch):
    m = nn.LSTM(3, 4, num_layers=2)  # CPU weights; the fake input claims CUDA on the weights' device
    dev = m.weight_ih_l0.device
    h0 = minitorch.zeros(4, 2, 4)
    c0 = minitorch.zeros(4, 2, 4)
    flags = _C._get_cudnn_flags()
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", True)
    monkeypatch.setattr(rnn_mod, "onednn_rnn_enabled", False)  # the CPU's choice: test_rnn_onednn.py
    monkeypatch.setattr(_C, "_has_cudnn_rnn", lambda: True)
    assert _use_cudnn(m, fake_input(dev), h0, c0)
    assert not _use_cudnn(m, fake_input(dev, is_cuda=False), h0, c0)  # CPU input
    assert not _use_cudnn(m, fake_input(dev, numel=0), h0, c0)  # empty
    assert not _use_cudnn(m, fake_input(dev, dtype=minitorch.bfloat16), h0, c0)  # dtype
    assert not _use_cudnn(m, fake_input(dev), h0.double(), c0)  # state dtype differs
    m.dropout = 0.5
    assert not _use_cudnn(m, fake_input(dev), h0, c0)  # dropout between layers in training
    m.eval()
    assert _use_cudnn(m, fake_input(dev), h0, c0)  # ... but not in eval
    m.train()
    m.dropout = 0.0
    try:
        minitorch.backends.cudnn.enabled = False
        assert not _use_cudnn(m, fake_input(dev), h0, c0)
    finally:
        _C._set_cudnn_flags(*flags)
    with monkeypatch.context() as mp:  # inside a CUDA autocast region (faked: no GPU here)
        mp.setattr(_C, "_is_autocast_enabled", lambda device_type: device_type == "cuda")
        assert not _use_cudnn(m, fake_input(dev), h0, c0)
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", False)
    assert not _use_cudnn(m, fake_input(dev), h0, c0)
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", True)
    monkeypatch.setattr(_C, "_has_cudnn_rnn", lambda: False)
    assert not _use_cudnn(m, fake_input(dev), h0, c0)
    p = nn.LSTM(3, 4, proj_size=2)
    monkeypatch.setattr(_C, "_has_cudnn_rnn", lambda: True)
    assert not _use_cudnn(
        p, fake_input(p.weight_ih_l0.device), minitorch.zeros(1, 2, 2), minitorch.zeros(1, 2, 4)
    )


def test_cpu_modules_take_the_composite_path(monkeypatch):
    # all but float32 LSTM (oneDNN's, test_rnn_onednn.py) whatever cudnn_rnn_enabled says
    monkeypatch.setattr(rnn_mod, "cudnn_rnn_enabled", True)
    for mode in MODES:
        for dtype in (minitorch.float32, minitorch.float64):
            if mode == "LSTM" and dtype == minitorch.float32:
                continue
            m = make(mode, input_size=3, hidden_size=4, dtype=dtype)
            _, hn = m(minitorch.randn(5, 2, 3, requires_grad=True, dtype=dtype))
            hy = hn[0] if mode == "LSTM" else hn
            assert hy.grad_fn.name() != "CudnnRnnBackward0"


def lstm_args(T=5, N=2, inp=3, H=4, L=1, D=1, dtype=minitorch.float32):
    ws = []
    for layer in range(L):
        for _ in range(D):
            i = inp if layer == 0 else H * D
            ws += [
                minitorch.randn(4 * H, i, dtype=dtype),
                minitorch.randn(4 * H, H, dtype=dtype),
                minitorch.randn(4 * H, dtype=dtype),
                minitorch.randn(4 * H, dtype=dtype),
            ]
    x = minitorch.randn(T, N, inp, dtype=dtype)
    h = minitorch.zeros(L * D, N, H, dtype=dtype)
    return x, ws, h, h.clone()


def call(x, ws, h, c, mode=2, H=4, L=1, bidir=False, dropout=0.0, train=False):
    return _C._cudnn_rnn(x, ws, h, c, mode, H, L, False, dropout, train, bidir)


def test_op_argument_checks():
    x, ws, h, c = lstm_args()
    # the CPU has a kernel for float32 LSTM only (with oneDNN; none at all without it)
    cpu_refusal = (
        "only float32 LSTM has a fused kernel|Could not run '_cudnn_rnn' with arguments from the 'CPU'"
    )
    xd, wsd, hd, cd = lstm_args(dtype=minitorch.float64)
    with pytest.raises(NotImplementedError, match=cpu_refusal):
        call(xd, wsd, hd, cd)
    with pytest.raises(NotImplementedError, match=cpu_refusal):
        call(x, [minitorch.randn(4, 3), minitorch.randn(4, 4)], h, None, mode=1)
    with pytest.raises(ValueError, match="Unknown cuDNN RNN mode 7"):
        call(x, ws, h, c, mode=7)
    with pytest.raises(RuntimeError, match="expected 2 or 4 weights, got 3"):
        call(x, ws[:3], h, c)
    with pytest.raises(RuntimeError, match=r"expected weight_hh of size \[16, 4\], got \[16, 3\]"):
        call(x, [ws[0], ws[0], ws[2], ws[3]], h, c)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        call(x, ws, minitorch.zeros(1, 3, 4), c)
    with pytest.raises(RuntimeError, match="cx is required for LSTM"):
        call(x, ws, h, None)
    with pytest.raises(RuntimeError, match="cx is only taken by LSTM"):
        call(x, [minitorch.randn(4, 3), minitorch.randn(4, 4)], h, c, mode=1)
    with pytest.raises(RuntimeError, match="input must have 3 dimensions, got 2"):
        call(x[0], ws, h, c)
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        call(x.long(), ws, h, c)
    with pytest.raises(
        RuntimeError,
        match="not the same dtype, found input tensor with Float and parameter tensor with Double",
    ):
        call(x, [w.double() for w in ws], h, c)
    with pytest.raises(RuntimeError, match="empty input"):
        call(x[:0], ws, h, c)
    with pytest.raises(NotImplementedError, match="dropout between layers"):
        x2, ws2, h2, c2 = lstm_args(L=2)
        call(x2, ws2, h2, c2, L=2, dropout=0.5, train=True)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        call(x, ws, h, c, H=0)
