"""torch.lstm / gru / rnn_tanh / rnn_relu, the whole-layer functions nn.LSTM & co. call in PyTorch: values
against the NumPy recurrence and PyTorch (padded, batch_first, packed, projections, the fused float32 path),
gradients by finite differences, and PyTorch's refusals."""

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.autograd import gradcheck
from tests.ops.rnn.test_rnn import MODES, T, make, ref_rnn
from tests.utils import assert_matches, cases_here_and_in_pytorch

FUNCS = {
    "LSTM": minitorch.lstm,
    "GRU": minitorch.gru,
    "RNN_TANH": minitorch.rnn_tanh,
    "RNN_RELU": minitorch.rnn_relu,
}


@pytest.mark.parametrize("mode,extra", MODES)
@pytest.mark.parametrize("layers,bidir,batch_first,bias", [(1, False, False, True), (2, True, True, False)])
def test_matches_the_module_and_numpy(device, mode, extra, layers, bidir, batch_first, bias):
    rng = np.random.default_rng(1)
    minitorch.manual_seed(1)
    m = make(mode, input_size=3, hidden_size=4, num_layers=layers, bidirectional=bidir, bias=bias, **extra)
    m = m.to(dtype=minitorch.float64, device=device)
    D = 2 if bidir else 1
    x = rng.standard_normal((5, 2, 3))
    h0, c0 = rng.standard_normal((2, layers * D, 2, 4))
    xin = T(x.transpose(1, 0, 2) if batch_first else x, device)
    hx = (T(h0, device), T(c0, device)) if mode == "LSTM" else T(h0, device)
    got = FUNCS[mode](xin, hx, m._flat_weights, bias, layers, 0.0, False, bidir, batch_first)
    assert len(got) == (3 if mode == "LSTM" else 2)
    ro, rh, rc = ref_rnn(m, x, h0, c0)
    assert_matches(got[0], ro.transpose(1, 0, 2) if batch_first else ro)
    assert_matches(got[1], rh)
    if mode == "LSTM":
        assert_matches(got[2], rc)
    m.batch_first = batch_first
    want = m(xin, hx)
    assert_matches(got[0], want[0].detach())


def test_gradients():
    rng = np.random.default_rng(2)
    x = T(rng.standard_normal((3, 2, 2)), rg=True)
    h, c = T(rng.standard_normal((1, 2, 3)), rg=True), T(rng.standard_normal((1, 2, 3)), rg=True)
    w = [T(rng.standard_normal(s), rg=True) for s in ((12, 2), (12, 3), (12,), (12,))]

    def f(x, h, c, *w):
        out, hn, cn = minitorch.lstm(x, (h, c), w, True, 1, 0.0, True, False, False)
        return out.sum() + (hn * cn).sum()

    assert gradcheck(f, (x, h, c, *w))
    wg = [T(rng.standard_normal(s), rg=True) for s in ((9, 2), (9, 3))]
    assert gradcheck(
        lambda x, h, a, b: minitorch.gru(x, h, [a, b], False, 1, 0.0, True, False, False)[0], (x, h, *wg)
    )


def test_fused_float32_path_matches_the_composite():
    # the float32 LSTM takes oneDNN's fused op where built with it; the composite in float64 is the reference
    rng = np.random.default_rng(3)
    x, h, c = (rng.standard_normal(s) for s in ((7, 3, 4), (2, 3, 5), (2, 3, 5)))
    w = [rng.standard_normal(s) for s in ((20, 4), (20, 5), (20,), (20,), (20, 5), (20, 5), (20,), (20,))]
    f32 = [minitorch.tensor(a, dtype=minitorch.float32) for a in (x, h, c, *w)]
    f64 = [minitorch.tensor(a) for a in (x, h, c, *w)]
    a = minitorch.lstm(f32[0], tuple(f32[1:3]), f32[3:], True, 2, 0.0, False, False, False)
    b = minitorch.lstm(f64[0], tuple(f64[1:3]), f64[3:], True, 2, 0.0, False, False, False)
    for u, v in zip(a, b):
        assert u.dtype == minitorch.float32
        np.testing.assert_allclose(u.double().numpy(), v.numpy(), atol=2e-6)


def test_dropout_between_layers_in_training_only():
    x = minitorch.randn(4, 2, 3, dtype=minitorch.float64)
    h = minitorch.zeros(2, 2, 3, dtype=minitorch.float64)
    w = [minitorch.randn(3, 3, dtype=minitorch.float64) for _ in range(4)]
    a = minitorch.rnn_tanh(x, h, w, False, 2, 1.0, False, False, False)[0]
    b = minitorch.rnn_tanh(x, h, w, False, 2, 0.0, False, False, False)[0]
    assert_matches(a, b.numpy())
    # p=1 in training: the second layer's input is all zeros, so its output is tanh of the recurrence alone
    minitorch.manual_seed(0)
    c = minitorch.rnn_tanh(x, h, w, False, 2, 1.0, True, False, False)[0]
    z = minitorch.rnn_tanh(
        minitorch.zeros(4, 2, 3, dtype=minitorch.float64), h[1:], w[2:], False, 1, 0.0, False, False, False
    )
    assert_matches(c, z[0].numpy())


SOURCE = r"""
def cases(torch, data):
    draws = iter(data)
    def R(*s):  # the next of the test's NumPy draws (the two libraries' generators differ)
        t = torch.tensor(next(draws), dtype=torch.float64)
        assert tuple(t.shape) == s
        return t
    run = runner(lambda r: [t.tolist() for t in r] if isinstance(r, tuple) else r)
    x, h, c = R(5, 2, 3), R(1, 2, 4), R(1, 2, 4)
    w = [R(16, 3), R(16, 4), R(16), R(16)]
    wg = [R(12, 3), R(12, 4)]
    data, bs = R(6, 3), torch.tensor([3, 2, 1])
    return [
        run(lambda: torch.lstm(data, bs, (R(1, 3, 4), R(1, 3, 4)), w, True, 1, 0.0, False, False)),
        run(lambda: torch.gru(data, bs, R(2, 3, 4), wg + wg[:1] + [R(12, 4)], False, 1, 0.0, False, True)),
        run(lambda: torch.rnn_relu(data, bs, R(1, 3, 4), [R(4, 3), R(4, 4)], False, 1, 0.0, False, False)),
        # an LSTM whose h and c sizes differ has projections (w_hr after each layer's weights)
        run(lambda: torch.lstm(x, (R(1, 2, 2), c), [R(16, 3), R(16, 2), R(16), R(16), R(2, 4)], True, 1, 0.0,
                               False, False, False)),
        run(lambda: torch.lstm(x, hx=(h, c), params=w, has_biases=True, num_layers=1, dropout=0.0, train=False,
                               bidirectional=False, batch_first=False)),
        run(lambda: torch.lstm(x, (h,), w, True, 1, 0.0, False, False, False)),
        run(lambda: torch.lstm(x, (h, c, c), w, True, 1, 0.0, False, False, False)),
        run(lambda: torch.lstm(x, (h, c), w[:3], True, 1, 0.0, False, False, False)),
        run(lambda: torch.lstm(x, (h[0], c[0]), w, True, 1, 0.0, False, False, False)),
        run(lambda: torch.gru(x[:0], h, wg, False, 1, 0.0, False, False, False)),
        run(lambda: torch.gru(x, h, wg, False, 1, 0.0, False, False)),
        run(lambda: torch.lstm(x, [h, c], w, True, 1, 0.0, False, False, False, 1)),
        run(lambda: torch.rnn_tanh(x, h, wg[0], False, 1, 0.0, False, False, False)),
    ]
"""


def test_packed_projections_and_refusals_as_pytorch():
    shapes = [(5, 2, 3), (1, 2, 4), (1, 2, 4), (16, 3), (16, 4), (16,), (16,), (12, 3), (12, 4), (6, 3)]
    shapes += [
        (1, 3, 4),
        (1, 3, 4),
        (2, 3, 4),
        (12, 4),
        (1, 3, 4),
        (4, 3),
        (4, 4),
        (1, 2, 2),
        (16, 3),
        (16, 2),
    ]
    shapes += [(16,), (16,), (2, 4)]
    rng = np.random.default_rng(5)
    data = [rng.standard_normal(s).tolist() for s in shapes]
    ours, theirs = cases_here_and_in_pytorch(SOURCE, [("torch", minitorch)], data)
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if isinstance(b[0], str):  # an error: type and message
            assert a == b, (i, a, b)
        else:
            assert len(a) == len(b), i
            for u, v in zip(a, b):
                np.testing.assert_allclose(np.array(u), np.array(v), rtol=1e-12, atol=1e-14, err_msg=str(i))


def test_module_still_matches_after_the_refactor():
    # nn.LSTM's call goes through the same function: a packed call and a projected one against torch.lstm
    minitorch.manual_seed(4)
    m = nn.LSTM(3, 4, proj_size=2, dtype=minitorch.float64)
    x = minitorch.randn(5, 2, 3, dtype=minitorch.float64)
    out, (hn, cn) = m(x)
    h0, c0 = (
        minitorch.zeros(1, 2, 2, dtype=minitorch.float64),
        minitorch.zeros(1, 2, 4, dtype=minitorch.float64),
    )
    want = minitorch.lstm(x, (h0, c0), m._flat_weights, True, 1, 0.0, False, False, False)
    for u, v in zip((out, hn, cn), want):
        assert_matches(u.detach(), v.detach().numpy())
