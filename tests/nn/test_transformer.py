"""MultiheadAttention and the Transformer layers against a float64 NumPy reference with the same weights,
PyTorch's state_dict key names, gradients by gradcheck and bad inputs."""

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck
from tests.utils import assert_matches, to_np


def W(p):
    return to_np(p)


def softmax(s):
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    return e / e.sum(-1, keepdims=True)


def ref_mha(m, q, k, v, kpm=None, am=None, batch_first=False):
    """NumPy MultiheadAttention with m's weights; returns (out, weights per head [N, H, L, S])."""
    if batch_first:
        q, k, v = (x.transpose(1, 0, 2) for x in (q, k, v))
    E, H = m.embed_dim, m.num_heads
    hd = E // H
    if m._qkv_same_embed_dim:
        wq, wk, wv = np.split(W(m.in_proj_weight), 3)
    else:
        wq, wk, wv = W(m.q_proj_weight), W(m.k_proj_weight), W(m.v_proj_weight)
    bq, bk, bv = np.split(W(m.in_proj_bias), 3) if m.in_proj_bias is not None else (0, 0, 0)
    Q, K, V = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv
    L, N = Q.shape[:2]
    add = np.zeros((N, 1, L, K.shape[0]))
    if am is not None:
        add = add + (np.where(am, -np.inf, 0.0) if am.dtype == bool else am)
    if kpm is not None:
        add = add + np.where(kpm, -np.inf, 0.0)[:, None, None, :]
    if m.bias_k is not None:
        K = np.concatenate([K, np.tile(W(m.bias_k), (1, N, 1))])
        V = np.concatenate([V, np.tile(W(m.bias_v), (1, N, 1))])
        add = np.concatenate([add, np.zeros(add.shape[:-1] + (1,))], -1)
    Qh, Kh, Vh = (x.reshape(x.shape[0], N, H, hd).transpose(1, 2, 0, 3) for x in (Q, K, V))
    if m.add_zero_attn:
        Kh = np.concatenate([Kh, np.zeros((N, H, 1, hd))], 2)
        Vh = np.concatenate([Vh, np.zeros((N, H, 1, hd))], 2)
        add = np.concatenate([add, np.zeros(add.shape[:-1] + (1,))], -1)
    P = softmax(Qh @ Kh.transpose(0, 1, 3, 2) / np.sqrt(hd) + add)
    O = (P @ Vh).transpose(2, 0, 1, 3).reshape(L, N, E) @ W(m.out_proj.weight).T
    if m.out_proj.bias is not None:
        O = O + W(m.out_proj.bias)
    return (O.transpose(1, 0, 2) if batch_first else O), P


def T(a, dt=minitorch.float64, device="cpu", rg=False):
    return minitorch.tensor(np.asarray(a), dtype=dt, device=device, requires_grad=rg)


MHA_KEYS = ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
MHA_KDIM_KEYS = [
    "q_proj_weight",
    "k_proj_weight",
    "v_proj_weight",
    "in_proj_bias",
    "out_proj.weight",
    "out_proj.bias",
]
MHA_BIASKV_KEYS = ["in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight", "out_proj.bias"]
ENC_KEYS = [
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
    "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
    "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
]  # fmt: skip
DEC_KEYS = [
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
    "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias", "multihead_attn.out_proj.weight",
    "multihead_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
    "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias", "norm3.weight", "norm3.bias",
]  # fmt: skip


def test_state_dict_keys_and_init():
    minitorch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2)
    assert list(m.state_dict()) == MHA_KEYS
    assert tuple(m.in_proj_weight.shape) == (24, 8) and np.all(W(m.in_proj_bias) == 0)
    assert np.all(W(m.out_proj.bias) == 0)
    bound = np.sqrt(6 / (24 + 8))  # xavier_uniform_ on the packed [3E, E] weight
    assert np.abs(W(m.in_proj_weight)).max() <= bound
    assert list(nn.MultiheadAttention(8, 2, kdim=5, vdim=3).state_dict()) == MHA_KDIM_KEYS
    assert list(nn.MultiheadAttention(8, 2, add_bias_kv=True).state_dict()) == MHA_BIASKV_KEYS
    assert list(nn.MultiheadAttention(8, 2, bias=False).state_dict()) == ["in_proj_weight", "out_proj.weight"]
    assert list(nn.TransformerEncoderLayer(8, 2, 16).state_dict()) == ENC_KEYS
    assert list(nn.TransformerDecoderLayer(8, 2, 16).state_dict()) == DEC_KEYS
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))
    keys = list(enc.state_dict())
    assert keys == [f"layers.{i}.{k}" for i in range(2) for k in ENC_KEYS] + ["norm.weight", "norm.bias"]
    t = nn.Transformer(8, 2, 1, 1, 16)
    keys = list(t.state_dict())
    assert keys[0] == "encoder.layers.0.self_attn.in_proj_weight" and keys[-1] == "decoder.norm.bias"
    assert len(keys) == len(ENC_KEYS) + 2 + len(DEC_KEYS) + 2


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha_values(device, batch_first, need_weights, average):
    rng = np.random.default_rng(0)
    minitorch.manual_seed(1)
    m = nn.MultiheadAttention(12, 3, batch_first=batch_first, dtype=minitorch.float64, device=device)
    for p in m.parameters():  # non-zero biases so they are checked too
        p.data.copy_(T(rng.uniform(-0.5, 0.5, tuple(p.shape)), device=device))
    L, S, N = 4, 6, 2
    shp = (lambda n: (N, n, 12)) if batch_first else (lambda n: (n, N, 12))
    q, k, v = rng.standard_normal(shp(L)), rng.standard_normal(shp(S)), rng.standard_normal(shp(S))
    kpm = np.zeros((N, S), bool)
    kpm[0, -2:] = True
    am = rng.standard_normal((L, S))
    out, w = m(
        T(q, device=device),
        T(k, device=device),
        T(v, device=device),
        key_padding_mask=minitorch.tensor(kpm, device=device),
        attn_mask=T(am, device=device),
        need_weights=need_weights,
        average_attn_weights=average,
    )
    ro, rp = ref_mha(m, q, k, v, kpm=kpm, am=am, batch_first=batch_first)
    assert_matches(out, ro)
    if need_weights:
        assert_matches(w, rp.mean(1) if average else rp)
    else:
        assert w is None


def test_mha_self_attention_bool_mask_and_unbatched(device):
    rng = np.random.default_rng(1)
    m = nn.MultiheadAttention(8, 4, dtype=minitorch.float64, device=device)
    x = rng.standard_normal((5, 3, 8))
    am = np.triu(np.ones((5, 5), bool), 1)  # True = not allowed (PyTorch's MHA convention)
    xt = T(x, device=device)
    out, _ = m(xt, xt, xt, attn_mask=minitorch.tensor(am, device=device))
    ro, _ = ref_mha(m, x, x, x, am=am)
    assert_matches(out, ro)
    out2, _ = m(xt, xt, xt, attn_mask=minitorch.tensor(am, device=device), need_weights=False)
    assert_matches(out2, ro)
    out3, _ = m(xt, xt, xt, attn_mask=minitorch.tensor(am, device=device), need_weights=False, is_causal=True)
    assert_matches(out3, ro)
    # unbatched (L, E)
    o1, w1 = m(xt[:, 0], xt[:, 0], xt[:, 0])
    ro1, rp1 = ref_mha(m, x[:, :1], x[:, :1], x[:, :1])
    assert_matches(o1, ro1[:, 0])
    assert_matches(w1, rp1.mean(1)[0])
    # 3-D mask, one per (batch, head)
    am3 = rng.standard_normal((12, 5, 5))
    o3, _ = m(xt, xt, xt, attn_mask=T(am3, device=device))
    ro3, _ = ref_mha(m, x, x, x, am=am3.reshape(3, 4, 5, 5))
    assert_matches(o3, ro3)


@pytest.mark.parametrize(
    "opts", [{"kdim": 5, "vdim": 3}, {"add_bias_kv": True}, {"add_zero_attn": True}, {"bias": False}]
)
def test_mha_options(device, opts):
    rng = np.random.default_rng(2)
    m = nn.MultiheadAttention(8, 2, dtype=minitorch.float64, device=device, **opts)
    q = rng.standard_normal((3, 2, 8))
    k = rng.standard_normal((4, 2, opts.get("kdim", 8)))
    v = rng.standard_normal((4, 2, opts.get("vdim", 8)))
    kpm = np.array([[False] * 4, [False, False, False, True]])
    out, w = m(
        T(q, device=device),
        T(k, device=device),
        T(v, device=device),
        key_padding_mask=minitorch.tensor(kpm, device=device),
    )
    ro, rp = ref_mha(m, q, k, v, kpm=kpm)
    assert_matches(out, ro)
    assert_matches(w, rp.mean(1))
    out2, _ = m(
        T(q, device=device),
        T(k, device=device),
        T(v, device=device),
        key_padding_mask=minitorch.tensor(kpm, device=device),
        need_weights=False,
    )
    assert_matches(out2, ro)


def test_mha_gradcheck():
    rng = np.random.default_rng(3)
    m = nn.MultiheadAttention(4, 2, dtype=minitorch.float64)
    q = T(rng.standard_normal((3, 2, 4)), rg=True)
    k = T(rng.standard_normal((5, 2, 4)), rg=True)
    kpm = minitorch.tensor(np.array([[False] * 5, [False] * 4 + [True]]))
    assert gradcheck(lambda a, b: m(a, b, b, key_padding_mask=kpm, need_weights=False)[0], (q, k))
    assert gradcheck(lambda a, b: m(a, b, b, key_padding_mask=kpm)[0], (q, k))
    out = m(q, k, k, need_weights=False)[0]
    out.sum().backward()
    assert all(p.grad is not None for p in m.parameters())


def ref_ln(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu_np(x):
    from math import erf

    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def ref_encoder_layer(layer, x, act, mask=None, kpm=None, batch_first=False):
    def sa(y):
        return ref_mha(layer.self_attn, y, y, y, kpm=kpm, am=mask, batch_first=batch_first)[0]

    def ff(y):
        return act(y @ W(layer.linear1.weight).T + W(layer.linear1.bias)) @ W(layer.linear2.weight).T + W(
            layer.linear2.bias
        )

    n1 = lambda y: ref_ln(y, W(layer.norm1.weight), W(layer.norm1.bias))
    n2 = lambda y: ref_ln(y, W(layer.norm2.weight), W(layer.norm2.bias))
    if layer.norm_first:
        x = x + sa(n1(x))
        return x + ff(n2(x))
    x = n1(x + sa(x))
    return n2(x + ff(x))


def relu_np(x):
    return np.maximum(x, 0)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu", "callable"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer(device, norm_first, activation, batch_first):
    rng = np.random.default_rng(4)
    act = {"relu": "relu", "gelu": "gelu", "callable": F.silu}[activation]
    act_np = {"relu": relu_np, "gelu": gelu_np, "callable": lambda y: y / (1 + np.exp(-y))}[activation]
    layer = nn.TransformerEncoderLayer(
        8,
        2,
        16,
        dropout=0.1,
        activation=act,
        norm_first=norm_first,
        batch_first=batch_first,
        dtype=minitorch.float64,
        device=device,
    )
    for p in layer.parameters():
        p.data.copy_(T(rng.uniform(-0.5, 0.5, tuple(p.shape)), device=device))
    layer.eval()
    x = rng.standard_normal((2, 5, 8) if batch_first else (5, 2, 8))
    mask = rng.standard_normal((5, 5))
    kpm = np.zeros((2, 5), bool)
    kpm[1, -1] = True
    out = layer(
        T(x, device=device),
        src_mask=T(mask, device=device),
        src_key_padding_mask=minitorch.tensor(kpm, device=device),
    )
    assert_matches(out, ref_encoder_layer(layer, x, act_np, mask, kpm, batch_first))


def test_encoder_stack_decoder_and_transformer(device):
    rng = np.random.default_rng(5)
    kw = {"dtype": minitorch.float64, "device": device}
    enc_layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw)
    enc = nn.TransformerEncoder(enc_layer, 2, norm=nn.LayerNorm(8, **kw))
    for p in enc.parameters():
        p.data.copy_(T(rng.uniform(-0.5, 0.5, tuple(p.shape)), device=device))
    x = rng.standard_normal((4, 3, 8))
    causal = nn.Transformer.generate_square_subsequent_mask(4, device=device, dtype=minitorch.float64)
    np.testing.assert_array_equal(to_np(causal), np.where(np.triu(np.ones((4, 4)), 1) > 0, -np.inf, 0.0))
    out = enc(T(x, device=device), mask=causal, is_causal=True)
    y = x
    cm = to_np(causal)
    for lyr in enc.layers:
        y = ref_encoder_layer(lyr, y, relu_np, cm)
    y = ref_ln(y, W(enc.norm.weight), W(enc.norm.bias))
    assert_matches(out, y)

    dec_layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True, **kw)
    for p in dec_layer.parameters():
        p.data.copy_(T(rng.uniform(-0.5, 0.5, tuple(p.shape)), device=device))
    tgt, mem = rng.standard_normal((3, 3, 8)), rng.standard_normal((4, 3, 8))
    tm = to_np(nn.Transformer.generate_square_subsequent_mask(3))
    out = dec_layer(T(tgt, device=device), T(mem, device=device), tgt_mask=T(tm, device=device))
    d = dec_layer

    def ln(i, y):
        n = getattr(d, f"norm{i}")
        return ref_ln(y, W(n.weight), W(n.bias))

    z = tgt
    z = z + ref_mha(d.self_attn, ln(1, z), ln(1, z), ln(1, z), am=tm)[0]
    z = z + ref_mha(d.multihead_attn, ln(2, z), mem, mem)[0]
    h = ln(3, z)
    z = z + relu_np(h @ W(d.linear1.weight).T + W(d.linear1.bias)) @ W(d.linear2.weight).T + W(d.linear2.bias)
    assert_matches(out, z)

    t = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True, **kw)
    src, tg = (
        T(rng.standard_normal((3, 5, 8)), device=device),
        T(rng.standard_normal((3, 4, 8)), device=device),
    )
    o = t(
        src,
        tg,
        tgt_mask=nn.Transformer.generate_square_subsequent_mask(4, device=device, dtype=minitorch.float64),
    )
    assert tuple(o.shape) == (3, 4, 8)
    memory = t.encoder(src)
    o2 = t.decoder(
        tg,
        memory,
        tgt_mask=nn.Transformer.generate_square_subsequent_mask(4, device=device, dtype=minitorch.float64),
    )
    assert_matches(o, to_np(o2))


def test_dropout_in_training_changes_output():
    minitorch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = minitorch.randn(4, 2, 8)
    layer.train()
    a, b = layer(x), layer(x)
    assert not np.allclose(to_np(a), to_np(b))
    layer.eval()
    np.testing.assert_array_equal(to_np(layer(x)), to_np(layer(x)))


def test_bad_inputs():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        nn.MultiheadAttention(0, 1)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    m = nn.MultiheadAttention(8, 2)
    x = minitorch.randn(4, 2, 8)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is .*, but should be \(4, 4\)\."):
        m(x, x, x, attn_mask=minitorch.zeros(3, 4))
    with pytest.raises(
        RuntimeError, match=r"The shape of the 3D attn_mask is .*, but should be \(4, 4, 4\)\."
    ):
        m(x, x, x, attn_mask=minitorch.zeros(2, 4, 4))
    with pytest.raises(RuntimeError, match="attn_mask's dimension 4 is not supported"):
        m(x, x, x, attn_mask=minitorch.zeros(1, 1, 4, 4))
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 6"):
        m(minitorch.randn(4, 2, 6), x, x)
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D tensor"):
        m(minitorch.randn(1, 4, 2, 8), x, x)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    t = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        t(minitorch.randn(4, 2, 8), minitorch.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        t(minitorch.randn(4, 2, 6), minitorch.randn(4, 2, 6))
