"""nn.LSTM's fused CPU path (oneDNN's LSTM behind _C._cudnn_rnn): equal to the composite path and to PyTorch in
values and every gradient, the layouts it takes (layers, directions, batch_first, strides, no h0/bias), when it
runs and when the composite path does, and the module's checks on the way there."""

import threading

import numpy as np
import pytest

import minitorch
from minitorch import _C, nn
from minitorch.nn.modules import rnn as rnn_mod
from tests.utils import run_oracle

needs_onednn = pytest.mark.skipif(not _C._has_onednn_rnn(), reason="needs a build with oneDNN")
FUSED = "CudnnRnnBackward0"


def run(m, x, hx, fused, monkeypatch, dtype=None):
    """Forward and backward through one path (the module's parameters cast to `dtype` when given); returns
    every output and gradient as float64 NumPy, and the name of h_n's node."""
    monkeypatch.setattr(rnn_mod, "onednn_rnn_enabled", fused)
    if dtype is not None:
        m = m.to(dtype)
    for p in m.parameters():
        p.grad = None
    dt = m.weight_ih_l0.dtype
    x = x.detach().to(dt).requires_grad_(True)
    if hx is not None:
        hx = tuple(h.detach().to(dt).requires_grad_(True) for h in hx)
    out, (hy, cy) = m(x, hx)
    rng = np.random.default_rng(7)
    loss = (out * minitorch.tensor(rng.standard_normal(tuple(out.shape)), dtype=dt)).sum()
    loss = loss + (hy * hy).sum() + (cy * 0.5).sum()
    loss.backward()
    res = {"out": out, "hy": hy, "cy": cy, "x.grad": x.grad}
    if hx is not None:
        res.update({"h0.grad": hx[0].grad, "c0.grad": hx[1].grad})
    for name, p in m.named_parameters():
        res[name + ".grad"] = p.grad
    if dtype is not None:
        m.float()
    return {k: v.detach().double().numpy() for k, v in res.items()}, hy.grad_fn.name()


CASES = [
    # num_layers, bidirectional, batch_first, bias, with hx
    (1, False, False, True, True),
    (1, False, True, True, False),
    (2, False, False, True, True),
    (1, True, False, True, True),
    (3, True, True, True, True),
    (2, True, False, False, False),
]


@needs_onednn
@pytest.mark.parametrize("L,bidir,batch_first,bias,with_hx", CASES)
def test_fused_equals_composite(L, bidir, batch_first, bias, with_hx, monkeypatch):
    minitorch.manual_seed(0)
    m = nn.LSTM(5, 6, num_layers=L, bidirectional=bidir, batch_first=batch_first, bias=bias)
    T, N = 7, 3
    x = minitorch.randn(*((N, T, 5) if batch_first else (T, N, 5)))
    D = 2 if bidir else 1
    hx = (minitorch.randn(L * D, N, 6), minitorch.randn(L * D, N, 6)) if with_hx else None
    fused, node = run(m, x, hx, True, monkeypatch)
    assert node == FUSED
    ref, node = run(m, x, hx, False, monkeypatch)
    assert node != FUSED
    # and against the composite path in float64 (whose gradients test_rnn.py checks by finite differences)
    ref64, _ = run(m, x, hx, False, monkeypatch, dtype=minitorch.float64)
    assert fused.keys() == ref.keys()
    for k in ref:
        np.testing.assert_allclose(fused[k], ref[k], rtol=1e-4, atol=1e-5, err_msg=k)
        np.testing.assert_allclose(fused[k], ref64[k], rtol=1e-4, atol=1e-5, err_msg=k)


@needs_onednn
@pytest.mark.parametrize("L,bidir", [(2, False), (3, True)])
def test_dropout_between_layers_runs_fused_layer_by_layer(L, bidir, monkeypatch):
    """In training with dropout between layers the fused op runs one layer at a time, the masks drawn between
    them as the composite path draws them: the same values and gradients from the same seed."""
    minitorch.manual_seed(0)
    m = nn.LSTM(5, 6, num_layers=L, bidirectional=bidir, dropout=0.4)
    D = 2 if bidir else 1
    x = minitorch.randn(7, 3, 5)
    hx = (minitorch.randn(L * D, 3, 6), minitorch.randn(L * D, 3, 6))
    minitorch.manual_seed(3)
    fused, node = run(m, x, hx, True, monkeypatch)
    assert node == "CatBackward0"
    minitorch.manual_seed(3)
    ref, node = run(m, x, hx, False, monkeypatch)
    assert node != "CatBackward0"
    minitorch.manual_seed(4)  # other masks: other values, so the dropout is really applied
    other, _ = run(m, x, hx, True, monkeypatch)
    assert not np.allclose(other["out"], fused["out"], rtol=1e-3, atol=1e-4)
    assert fused.keys() == ref.keys()
    for k in ref:
        np.testing.assert_allclose(fused[k], ref[k], rtol=1e-4, atol=1e-5, err_msg=k)


@needs_onednn
def test_non_contiguous_input_and_states(monkeypatch):
    minitorch.manual_seed(1)
    m = nn.LSTM(4, 5, num_layers=2)
    x = minitorch.randn(3, 6, 8)[:, :, ::2].transpose(0, 1)  # [6, 3, 4], strided
    h0 = minitorch.randn(3, 2, 5).transpose(0, 1)  # [2, 3, 5]
    c0 = minitorch.randn(2, 5, 3).permute(0, 2, 1)
    assert not (x.is_contiguous() or h0.is_contiguous() or c0.is_contiguous())
    fused, node = run(m, x, (h0, c0), True, monkeypatch)
    assert node == FUSED
    ref, _ = run(m, x.contiguous(), (h0.contiguous(), c0.contiguous()), False, monkeypatch)
    for k in ref:
        np.testing.assert_allclose(fused[k], ref[k], rtol=1e-4, atol=1e-5, err_msg=k)


@needs_onednn
def test_against_pytorch():
    """Same weights and inputs in PyTorch (its CPU LSTM is oneDNN's too): outputs, states and gradients."""
    g = np.random.default_rng(3)
    L, D, I, H, T, N = 2, 2, 4, 5, 6, 3
    m = nn.LSTM(I, H, num_layers=L, bidirectional=True, batch_first=True)
    weights = {n: g.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32) for n, p in m.named_parameters()}
    with minitorch.no_grad():
        for n, p in m.named_parameters():
            p.copy_(minitorch.from_numpy(weights[n]))
    x = g.standard_normal((N, T, I)).astype(np.float32)
    h0 = g.standard_normal((L * D, N, H)).astype(np.float32)
    c0 = g.standard_normal((L * D, N, H)).astype(np.float32)
    script = (
        "import json, sys, torch\n"
        "d = json.loads(sys.stdin.read())\n"
        "m = torch.nn.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True)\n"
        "with torch.no_grad():\n"
        "    for n, p in m.named_parameters(): p.copy_(torch.tensor(d['w'][n]))\n"
        "x, h0, c0 = (torch.tensor(d[k], requires_grad=True) for k in ('x', 'h0', 'c0'))\n"
        "out, (hy, cy) = m(x, (h0, c0))\n"
        "(out.sin().sum() + (hy * hy).sum() + cy.sum()).backward()\n"
        "r = {'out': out, 'hy': hy, 'cy': cy, 'x.grad': x.grad, 'h0.grad': h0.grad, 'c0.grad': c0.grad}\n"
        "r.update({n + '.grad': p.grad for n, p in m.named_parameters()})\n"
        "print(json.dumps({k: v.tolist() for k, v in r.items()}))\n"
    )
    payload = {"w": {n: w.tolist() for n, w in weights.items()}, "x": x.tolist(), "h0": h0.tolist()}
    payload["c0"] = c0.tolist()
    theirs = run_oracle(script, payload)
    X, H0, C0 = (minitorch.from_numpy(a).requires_grad_(True) for a in (x, h0, c0))
    out, (hy, cy) = m(X, (H0, C0))
    assert hy.grad_fn.name() == FUSED
    (out.sin().sum() + (hy * hy).sum() + cy.sum()).backward()
    mine = {"out": out, "hy": hy, "cy": cy, "x.grad": X.grad, "h0.grad": H0.grad, "c0.grad": C0.grad}
    mine.update({n + ".grad": p.grad for n, p in m.named_parameters()})
    assert mine.keys() == theirs.keys()
    for k, v in mine.items():
        np.testing.assert_allclose(v.detach().numpy(), np.array(theirs[k]), rtol=1e-4, atol=1e-5, err_msg=k)


@needs_onednn
def test_no_grad_eval_retain_graph_and_double_backward(monkeypatch):
    minitorch.manual_seed(2)
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = minitorch.randn(5, 2, 3)
    with minitorch.no_grad():  # oneDNN's inference forward: nothing recorded
        a, _ = m(x)
    assert a.grad_fn is None
    monkeypatch.setattr(rnn_mod, "onednn_rnn_enabled", False)
    b, _ = m(x)
    np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    monkeypatch.setattr(rnn_mod, "onednn_rnn_enabled", True)
    m.eval()  # eval still records when a gradient is needed
    xr = x.clone().requires_grad_(True)
    out, (hy, _) = m(xr)
    assert hy.grad_fn.name() == FUSED
    loss = out.pow(2).sum()
    (g1,) = minitorch.autograd.grad(loss, xr, retain_graph=True)
    (g2,) = minitorch.autograd.grad(loss, xr)  # the saved workspace is only read by backward
    np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    out, _ = m(xr)
    # as PyTorch's CPU LSTM (mkldnn_rnn_layer_backward has no derivative)
    with pytest.raises(NotImplementedError, match="_cudnn_rnn_backward"):
        minitorch.autograd.grad(out.sum(), xr, create_graph=True)


@needs_onednn
def test_which_path_runs(monkeypatch):
    monkeypatch.setattr(rnn_mod, "onednn_rnn_enabled", True)

    def node(m, x, hx=None):
        return m(x, hx)[1][0].grad_fn.name()

    x = minitorch.randn(4, 2, 3, requires_grad=True)
    assert node(nn.LSTM(3, 4), x) == FUSED
    hy = nn.LSTM(3, 4)(x[:, 0])[1][0]  # unbatched: the fused op's h_n, squeezed
    assert hy.grad_fn.name() == "SqueezeBackward1" and hy.grad_fn.next_functions[0][0].name() == FUSED
    assert node(nn.LSTM(3, 4, dtype=minitorch.float64), x.double()) != FUSED  # oneDNN has no float64 RNN
    assert node(nn.LSTM(3, 4, proj_size=2), x) != FUSED
    d = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    hy = d(x)[1][0]  # dropout between layers in training: the fused op layer by layer, h_n their cat
    assert hy.grad_fn.name() == "CatBackward0"
    assert {f.name() for f, _ in hy.grad_fn.next_functions} == {FUSED}
    assert node(d.eval(), x) == FUSED
    with minitorch.backends.mkldnn.flags(enabled=False):
        assert node(nn.LSTM(3, 4), x) != FUSED
    with minitorch.autocast("cpu", dtype=minitorch.bfloat16):
        assert node(nn.LSTM(3, 4), x) != FUSED
    packed = nn.utils.rnn.pack_sequence([minitorch.randn(3, 3), minitorch.randn(2, 3)])
    assert nn.LSTM(3, 4)(packed)[1][0].grad_fn.name() != FUSED
    for cls in (nn.GRU, nn.RNN):  # at parity with PyTorch's own CPU loops: the composite path
        assert cls(3, 4)(x)[1].grad_fn.name() != FUSED
    monkeypatch.setattr(rnn_mod, "onednn_rnn_enabled", False)
    assert node(nn.LSTM(3, 4), x) != FUSED


@needs_onednn
def test_empty_batch_and_sequence():
    """As PyTorch: an empty batch gives empty outputs (and zero-size gradients); no time steps raises."""
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = minitorch.randn(5, 0, 3, requires_grad=True)
    out, (hy, cy) = m(x)
    assert tuple(out.shape) == (5, 0, 8) and tuple(hy.shape) == (4, 0, 4) and tuple(cy.shape) == (4, 0, 4)
    out.sum().backward()
    assert tuple(x.grad.shape) == (5, 0, 3)
    for bad in (minitorch.randn(0, 2, 3), minitorch.randn(0, 3)):
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
            m(bad)
    b = nn.LSTM(3, 4, batch_first=True)
    assert tuple(b(minitorch.randn(0, 2, 3))[0].shape) == (0, 2, 4)
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
        b(minitorch.randn(2, 0, 3))


@needs_onednn
def test_bad_inputs():
    m = nn.LSTM(3, 4, num_layers=2)
    x = minitorch.randn(5, 2, 3)
    with pytest.raises(
        RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 3, got 4"
    ):
        m(minitorch.randn(5, 2, 4))
    z = minitorch.zeros(2, 2, 4)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(2, 2, 4\), got \[2, 3, 4\]"):
        m(x, (minitorch.zeros(2, 3, 4), z))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(2, 2, 4\), got \[2, 2, 5\]"):
        m(x, (z, minitorch.zeros(2, 2, 5)))
    with pytest.raises(ValueError, match=r"RNN input dtype \(torch.float64\) does not match weight dtype"):
        m(x.double())
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        m(x[None])


@needs_onednn
def test_threads_share_the_plans(monkeypatch):
    """Python threads run the cached primitives at once (each call brings its own scratchpad)."""
    monkeypatch.setattr(rnn_mod, "onednn_rnn_enabled", True)
    minitorch.manual_seed(4)
    m = nn.LSTM(6, 8, num_layers=2)
    xs = [minitorch.randn(9, 4, 6) for _ in range(4)]
    with minitorch.no_grad():
        want = [m(x)[0].numpy() for x in xs]
    got = [None] * len(xs)

    def work(i):
        for _ in range(5):
            x = xs[i].clone().requires_grad_(True)
            out, _ = m(x)
            out.sum().backward()
            got[i] = out.detach().numpy()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
