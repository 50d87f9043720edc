"""RNN / LSTM / GRU and their cells against a float64 NumPy reference with the same weights (PyTorch's gate
order), parameter names and initialization, packing and padding utilities, gradients and bad inputs."""

import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.autograd import gradcheck
from minitorch.nn.utils.rnn import (
    invert_permutation,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)
from tests.utils import assert_matches, to_np


def sig(x):
    return 1 / (1 + np.exp(-x))


def cell_np(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, -1)
        c = sig(f) * c + sig(i) * np.tanh(g)
        return sig(o) * np.tanh(c), c
    if mode == "GRU":
        ir, iz, inn = np.split(gi, 3, -1)
        hr, hz, hn = np.split(gh, 3, -1)
        r, z = sig(ir + hr), sig(iz + hz)
        n = np.tanh(inn + r * hn)
        return (1 - z) * n + z * h, None
    a = gi + gh
    return (np.maximum(a, 0) if mode == "RNN_RELU" else np.tanh(a)), None


def ref_rnn(m, x, h0=None, c0=None):
    """x time-major [T, N, F]; returns (out [T, N, D*H], h_n, c_n)."""
    D = 2 if m.bidirectional else 1
    T_, N = x.shape[:2]
    H = m.hidden_size
    h0 = np.zeros((m.num_layers * D, N, H)) if h0 is None else h0
    c0 = np.zeros((m.num_layers * D, N, H)) if c0 is None else c0
    hs, cs, inp = [], [], x
    for layer in range(m.num_layers):
        outs = []
        for d in range(D):
            sfx = "_reverse" if d else ""
            w = [to_np(getattr(m, f"{n}_l{layer}{sfx}")) for n in ("weight_ih", "weight_hh")]
            b = [to_np(getattr(m, f"{n}_l{layer}{sfx}")) if m.bias else 0.0 for n in ("bias_ih", "bias_hh")]
            h, c = h0[layer * D + d], c0[layer * D + d]
            ys = [None] * T_
            for t in range(T_ - 1, -1, -1) if d else range(T_):
                h, c2 = cell_np(m.mode, inp[t], h, c, w[0], w[1], b[0], b[1])
                c = c2 if c2 is not None else c
                ys[t] = h
            hs.append(h)
            cs.append(c)
            outs.append(np.stack(ys))
        inp = np.concatenate(outs, -1)
    return inp, np.stack(hs), np.stack(cs)


def T(a, device="cpu", rg=False):
    return minitorch.tensor(np.asarray(a), dtype=minitorch.float64, device=device, requires_grad=rg)


MODES = [("LSTM", {}), ("GRU", {}), ("RNN_TANH", {}), ("RNN_RELU", {"nonlinearity": "relu"})]


def make(mode, **kw):
    cls = {"LSTM": nn.LSTM, "GRU": nn.GRU, "RNN_TANH": nn.RNN, "RNN_RELU": nn.RNN}[mode]
    return cls(**kw)


@pytest.mark.parametrize("mode,extra", MODES)
@pytest.mark.parametrize(
    "layers,bidir,batch_first", [(1, False, False), (2, True, False), (3, False, True), (2, True, True)]
)
def test_values(device, mode, extra, layers, bidir, batch_first):
    rng = np.random.default_rng(0)
    minitorch.manual_seed(0)
    m = make(
        mode,
        input_size=5,
        hidden_size=4,
        num_layers=layers,
        bidirectional=bidir,
        batch_first=batch_first,
        dtype=minitorch.float64,
        device=device,
        **extra,
    )
    D = 2 if bidir else 1
    x = rng.standard_normal((6, 3, 5))
    h0 = rng.standard_normal((layers * D, 3, 4))
    c0 = rng.standard_normal((layers * D, 3, 4))
    xin = x.transpose(1, 0, 2) if batch_first else x
    hx = (T(h0, device), T(c0, device)) if mode == "LSTM" else T(h0, device)
    out, hn = m(T(xin, device), hx)
    ro, rh, rc = ref_rnn(m, x, h0, c0)
    assert tuple(out.shape) == ((3, 6, 4 * D) if batch_first else (6, 3, 4 * D))
    assert_matches(out, ro.transpose(1, 0, 2) if batch_first else ro)
    if mode == "LSTM":
        assert_matches(hn[0], rh)
        assert_matches(hn[1], rc)
    else:
        assert_matches(hn, rh)
    # no initial state: zeros
    out0, _ = m(T(xin, device))
    r0 = ref_rnn(m, x)[0]
    assert_matches(out0, r0.transpose(1, 0, 2) if batch_first else r0)


def test_unbatched_bias_false_and_float32(device):
    rng = np.random.default_rng(1)
    m = nn.GRU(3, 4, bias=False, dtype=minitorch.float64, device=device)
    assert [n for n, _ in m.named_parameters()] == ["weight_ih_l0", "weight_hh_l0"]
    x = rng.standard_normal((5, 3))
    out, h = m(T(x, device))
    ro, rh, _ = ref_rnn(m, x[:, None])
    assert tuple(out.shape) == (5, 4) and tuple(h.shape) == (1, 4)
    assert_matches(out, ro[:, 0])
    assert_matches(h, rh[:, 0])
    m32 = nn.LSTM(3, 4, device=device)
    # (on CUDA cuDNN's RNN computes float32 in TF32 by default, as PyTorch's: off for a float32 comparison)
    with minitorch.backends.cudnn.flags(enabled=True, allow_tf32=False):
        o32, _ = m32(minitorch.tensor(x[:, None].astype(np.float32), device=device))
    assert o32.dtype == minitorch.float32
    assert_matches(o32, ref_rnn(m32, x[:, None])[0], rtol=1e-5, atol=1e-6)


def test_parameter_names_shapes_init():
    minitorch.manual_seed(0)
    m = nn.LSTM(10, 20, num_layers=2, bidirectional=True)
    names = [n for n, _ in m.named_parameters()]
    expect = []
    for layer in range(2):
        for sfx in ("", "_reverse"):
            expect += [f"{p}_l{layer}{sfx}" for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    assert names == expect
    assert list(m.state_dict()) == expect
    assert tuple(m.weight_ih_l0.shape) == (80, 10) and tuple(m.weight_ih_l1.shape) == (80, 40)
    assert tuple(m.weight_hh_l1_reverse.shape) == (80, 20) and tuple(m.bias_hh_l0.shape) == (80,)
    bound = 1 / np.sqrt(20)
    for p in m.parameters():
        a = to_np(p)
        assert np.abs(a).max() <= bound and np.abs(a).max() > 0.8 * bound
    assert tuple(nn.GRU(3, 5).weight_hh_l0.shape) == (15, 5)
    assert tuple(nn.RNN(3, 5).weight_hh_l0.shape) == (5, 5)
    assert list(nn.LSTMCell(3, 4).state_dict()) == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert len(m.all_weights) == 4 and len(m.all_weights[0]) == 4
    p = nn.LSTM(4, 6, proj_size=3)
    assert list(p.state_dict())[-1] == "weight_hr_l0" and tuple(p.weight_hr_l0.shape) == (3, 6)
    assert tuple(p.weight_hh_l0.shape) == (24, 3)


def test_lstm_proj(device):
    rng = np.random.default_rng(2)
    m = nn.LSTM(3, 6, proj_size=2, dtype=minitorch.float64, device=device)
    x = rng.standard_normal((4, 2, 3))
    out, (h, c) = m(T(x, device))
    w_ih, w_hh, b_ih, b_hh, w_hr = (to_np(getattr(m, n)) for n in m._flat_weights_names)
    hh, cc, ys = np.zeros((2, 2)), np.zeros((2, 6)), []
    for t in range(4):
        hfull, cc = cell_np("LSTM", x[t], hh, cc, w_ih, w_hh, b_ih, b_hh)
        hh = hfull @ w_hr.T
        ys.append(hh)
    assert_matches(out, np.stack(ys))
    assert tuple(h.shape) == (1, 2, 2) and tuple(c.shape) == (1, 2, 6)
    assert_matches(c[0], cc)


@pytest.mark.parametrize("cell,mode", [(nn.LSTMCell, "LSTM"), (nn.GRUCell, "GRU"), (nn.RNNCell, "RNN_TANH")])
def test_cells(device, cell, mode):
    rng = np.random.default_rng(3)
    m = cell(5, 4, dtype=minitorch.float64, device=device)
    x, h, c = rng.standard_normal((3, 5)), rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    w = [to_np(getattr(m, n)) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    rh, rc = cell_np(mode, x, h, c, *w)
    if mode == "LSTM":
        oh, oc = m(T(x, device), (T(h, device), T(c, device)))
        assert_matches(oc, rc)
        uh, _ = m(T(x[0], device), (T(h[0], device), T(c[0], device)))  # unbatched
    else:
        oh = m(T(x, device), T(h, device))
        uh = m(T(x[0], device), T(h[0], device))
    assert_matches(oh, rh)
    assert_matches(uh, rh[0])
    z = m(T(x, device))
    zh = z[0] if mode == "LSTM" else z
    assert_matches(zh, cell_np(mode, x, 0 * h, 0 * c, *w)[0])


def test_gradcheck():
    rng = np.random.default_rng(4)
    for mode in ("LSTM", "GRU", "RNN_TANH"):
        m = make(mode, input_size=3, hidden_size=2, num_layers=2, bidirectional=True, dtype=minitorch.float64)
        x = T(rng.standard_normal((3, 2, 3)), rg=True)
        h0 = T(rng.standard_normal((4, 2, 2)), rg=True)
        if mode == "LSTM":
            c0 = T(rng.standard_normal((4, 2, 2)), rg=True)
            assert gradcheck(lambda a, h, c, m=m: m(a, (h, c))[0], (x, h0, c0))
        else:
            assert gradcheck(lambda a, h, m=m: m(a, h)[0], (x, h0))
    w = m.weight_hh_l0
    out, _ = m(x)
    out.sum().backward()
    assert w.grad is not None and np.abs(to_np(w.grad)).sum() > 0


def test_dropout_between_layers():
    minitorch.manual_seed(0)
    m = nn.GRU(4, 8, num_layers=2, dropout=0.5)
    x = minitorch.randn(5, 2, 4)
    a, b = m(x)[0], m(x)[0]
    assert not np.allclose(to_np(a), to_np(b))
    m.eval()
    np.testing.assert_array_equal(to_np(m(x)[0]), to_np(m(x)[0]))
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last recurrent layer"):
        nn.LSTM(2, 3, dropout=0.2)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(device, batch_first, side):
    rng = np.random.default_rng(5)
    seqs = [rng.standard_normal((n, 2)) for n in (3, 5, 1)]
    out = pad_sequence(
        [T(s, device) for s in seqs], batch_first=batch_first, padding_value=-7.0, padding_side=side
    )
    ref = np.full((3, 5, 2), -7.0)
    for i, s in enumerate(seqs):
        if side == "right":
            ref[i, : len(s)] = s
        else:
            ref[i, 5 - len(s) :] = s
    assert_matches(out, ref if batch_first else ref.transpose(1, 0, 2))


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_pad_roundtrip_and_lstm_on_packed(device, enforce_sorted):
    rng = np.random.default_rng(6)
    lens = [5, 3, 2] if enforce_sorted else [3, 5, 2]
    seqs = [rng.standard_normal((n, 4)) for n in lens]
    padded = pad_sequence([T(s, device) for s in seqs], batch_first=True)
    packed = pack_padded_sequence(padded, lens, batch_first=True, enforce_sorted=enforce_sorted)
    assert packed.batch_sizes.tolist() == [3, 3, 2, 1, 1]
    back, blens = pad_packed_sequence(packed, batch_first=True, total_length=6)
    assert blens.tolist() == lens and tuple(back.shape) == (3, 6, 4)
    ref = np.zeros((3, 6, 4))
    for i, s in enumerate(seqs):
        ref[i, : len(s)] = s
    assert_matches(back, ref)
    m = nn.LSTM(4, 3, bidirectional=True, batch_first=True, dtype=minitorch.float64, device=device)
    out, (h, c) = m(packed)
    out, olens = pad_packed_sequence(out, batch_first=True)
    assert olens.tolist() == lens
    for i, s in enumerate(seqs):  # each sequence alone gives the same outputs and final states
        ro, rh, rc = ref_rnn(m, s[:, None])
        assert_matches(out[i, : len(s)], ro[:, 0])
        assert np.all(to_np(out[i, len(s) :]) == 0)
        assert_matches(h[:, i], rh[:, 0])
        assert_matches(c[:, i], rc[:, 0])
    ps = pack_sequence([T(s, device) for s in seqs], enforce_sorted=False)
    assert ps.batch_sizes.tolist() == [3, 3, 2, 1, 1]


def test_bad_inputs():
    m = nn.LSTM(4, 3)
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        m(minitorch.randn(1, 2, 3, 4))
    with pytest.raises(
        RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 4, got 5"
    ):
        m(minitorch.randn(2, 3, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 3\), got \[1, 2, 3\]"):
        m(minitorch.randn(2, 3, 4), (minitorch.randn(1, 2, 3), minitorch.randn(1, 3, 3)))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx and cx should also be 3-D but got"):
        m(minitorch.randn(2, 3, 4), (minitorch.randn(3, 3), minitorch.randn(3, 3)))
    with pytest.raises(
        ValueError,
        match=r"RNN input dtype \(torch.float64\) does not match weight dtype \(torch.float32\). Convert input: "
        r"input.to\(torch.float32\), or convert model: model.to\(torch.float64\)",
    ):
        m(minitorch.randn(2, 3, 4, dtype=minitorch.float64))
    g = nn.GRU(4, 3)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 3, 3\), got \[2, 3, 3\]"):
        g(minitorch.randn(2, 3, 4), minitorch.randn(2, 3, 3))
    with pytest.raises(
        RuntimeError, match="For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"
    ):
        g(minitorch.randn(2, 4), minitorch.randn(1, 1, 3))
    with pytest.raises(ValueError, match="RNN: Expected input to be 2D or 3D, got 1D tensor instead"):
        nn.RNN(4, 3)(minitorch.randn(4))
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'."):
        nn.RNN(4, 3, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="dropout should be a number in range \\[0, 1\\]"):
        nn.LSTM(4, 3, dropout=1.5)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.GRU(4, 0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.GRU(4, 2, num_layers=0)
    with pytest.raises(TypeError, match="hidden_size should be of type int, got: float"):
        nn.GRU(4, 2.0)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(4, 2, proj_size=2)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 4"):
        nn.GRUCell(4, 3)(minitorch.randn(2, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        nn.GRUCell(4, 3)(minitorch.randn(2, 4), minitorch.randn(3, 3))
    with pytest.raises(ValueError, match="LSTMCell: Expected input to be 1D or 2D, got 3D instead"):
        nn.LSTMCell(4, 3)(minitorch.randn(1, 2, 4))
    # PyTorch's order in RNNCell: ranks, then the nonlinearity (before any size check)
    bad = nn.RNNCell(1, 3, True, "sigmoid")
    with pytest.raises(ValueError, match="RNNCell: Expected input to be 1D or 2D, got 3D instead"):
        bad(minitorch.randn(2, 3, 1))
    with pytest.raises(ValueError, match="RNNCell: Expected hidden to be 1D or 2D, got 3D instead"):
        bad(minitorch.randn(3, 1), minitorch.randn(1, 3, 3))
    with pytest.raises(RuntimeError, match="^Unknown nonlinearity: sigmoid$"):
        bad(minitorch.randn(3, 5))  # a wrong input size: the nonlinearity is named first
    # a plain RNN keeps hidden_size as given, so a bool reaches empty()'s size check (the gated ones multiply)
    with pytest.raises(TypeError, match="found element of type bool at pos 0"):
        nn.RNN(2, True)
    assert tuple(nn.GRU(True, True).weight_ih_l0.shape) == (3, 1)
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        pack_padded_sequence(minitorch.randn(3, 2, 1), [1, 3])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        pack_padded_sequence(minitorch.randn(3, 2, 1), [3, 0])
    with pytest.raises(ValueError, match="Expected padding_side to be one of left or right, but got middle."):
        pad_sequence([minitorch.randn(2)], padding_side="middle")
    p = pack_padded_sequence(minitorch.randn(3, 2, 1), [3, 2])
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest"):
        pad_packed_sequence(p, total_length=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.LSTM(4, 3, num_layers=2, dropout=0.2)  # no warning with several layers


def test_unpad_unpack_sequence_and_invert_permutation():
    a, b, c = minitorch.tensor([1, 2, 3]), minitorch.tensor([4, 5]), minitorch.tensor([6])

    def lists(ts):
        return [t.tolist() for t in ts]

    assert lists(unpack_sequence(pack_sequence([a, b, c]))) == [[1, 2, 3], [4, 5], [6]]
    # unsorted input comes back in its own order
    assert lists(unpack_sequence(pack_sequence([b, a, c], enforce_sorted=False))) == [[4, 5], [1, 2, 3], [6]]
    lengths = minitorch.tensor([3, 2, 1])
    padded = pad_sequence([a, b, c])
    assert lists(unpad_sequence(padded, lengths)) == [[1, 2, 3], [4, 5], [6]]
    assert padded.shape == (3, 3)
    assert lists(unpad_sequence(pad_sequence([a, b, c], batch_first=True), lengths, batch_first=True)) == [
        [1, 2, 3],
        [4, 5],
        [6],
    ]
    feats = minitorch.randn(3, 2, 4)  # T x B x features
    got = unpad_sequence(feats, minitorch.tensor([3, 1]))
    assert [tuple(t.shape) for t in got] == [(3, 4), (1, 4)] and minitorch.equal(got[1], feats[:1, 1])
    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is longer than argument 1"):
        unpad_sequence(pad_sequence([a, b]), lengths)
    perm = minitorch.tensor([2, 0, 3, 1])
    inv = invert_permutation(perm)
    assert inv.tolist() == [1, 3, 0, 2] and inv.dtype == minitorch.int64
    assert perm[inv].tolist() == [0, 1, 2, 3]
    assert invert_permutation(None) is None
