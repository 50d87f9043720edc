"""Attention and recurrent layers: scaled_dot_product_attention forward+backward, one LSTM layer over a
sequence (forward), a TransformerEncoderLayer forward, each beside a NumPy reference (float32, forward only for
SDPA's reference: softmax(QK^T)V with the backward written out) and PyTorch when it imports. CPU; CUDA as well
when a GPU is present. Markdown table with ratios.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_attention.py [--quick]
"""

import argparse
import os
import platform
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import bench, fmt

import minitorch
import minitorch.nn as mnn
import minitorch.nn.functional as MF

try:
    import torch as real_torch
except ImportError:
    real_torch = None


def np_sdpa_fwd_bwd(q, k, v, g, causal):
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    if causal:
        L, S = s.shape[-2:]
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    o = p @ v
    dv = p.transpose(0, 1, 3, 2) @ g
    dp = g @ v.transpose(0, 1, 3, 2)
    ds = p * (dp - (p * dp).sum(-1, keepdims=True)) / np.sqrt(q.shape[-1])
    return o, ds @ k, ds.transpose(0, 1, 3, 2) @ q, dv


def np_lstm(x, w_ih, w_hh, b):
    T, N, _ = x.shape
    H = w_hh.shape[1]
    h = np.zeros((N, H), np.float32)
    c = np.zeros((N, H), np.float32)
    gi = x @ w_ih.T + b
    for t in range(T):
        g = gi[t] + h @ w_hh.T
        i, f, gg, o = np.split(g, 4, -1)
        c = 1 / (1 + np.exp(-f)) * c + 1 / (1 + np.exp(-i)) * np.tanh(gg)
        h = 1 / (1 + np.exp(-o)) * np.tanh(c)
    return h


def syncs(device):
    sync_m = (lambda: minitorch.cuda.synchronize()) if device == "cuda" else (lambda: None)
    sync_t = (lambda: real_torch.cuda.synchronize()) if device == "cuda" and real_torch else (lambda: None)
    return sync_m, sync_t


def sdpa_case(device, rng, shape, causal):
    sync_m, sync_t = syncs(device)
    a = [rng.standard_normal(shape).astype(np.float32) for _ in range(4)]
    mq, mk, mv = (minitorch.tensor(x, device=device, requires_grad=True) for x in a[:3])
    mg = minitorch.tensor(a[3], device=device)

    def m_run():
        o = MF.scaled_dot_product_attention(mq, mk, mv, is_causal=causal)
        o.backward(mg)
        sync_m()

    cases = {"minitorch": m_run}
    if device == "cpu":
        cases["numpy"] = lambda: np_sdpa_fwd_bwd(*a, causal)
    if real_torch is not None:
        tq, tk, tv = (real_torch.tensor(x, device=device, requires_grad=True) for x in a[:3])
        tg = real_torch.tensor(a[3], device=device)

        def t_run():
            o = real_torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)
            o.backward(tg)
            sync_t()

        cases["torch"] = t_run
    return bench(cases, 5, 0.2)


def rows(device, quick):
    out = []
    rng = np.random.default_rng(0)
    sync_m, sync_t = syncs(device)
    shapes = [(4, 8, 128, 64, False), (4, 8, 128, 64, True)] + ([] if quick else [(2, 8, 512, 64, True)])
    for B, H, L, E, causal in shapes:
        out.append(
            (f"sdpa fwd+bwd [{B},{H},{L},{E}] causal={causal}", sdpa_case(device, rng, (B, H, L, E), causal))
        )

    # one LSTM layer, forward over a sequence
    T, N, I, Hd = (32, 16, 64, 128)
    x = rng.standard_normal((T, N, I)).astype(np.float32)
    m = mnn.LSTM(I, Hd).to(device)
    mx = minitorch.tensor(x, device=device)
    w = [p.detach().cpu().numpy() for p in m.parameters()]

    def m_lstm():
        with minitorch.no_grad():
            m(mx)
        sync_m()

    cases = {"minitorch": m_lstm}
    if device == "cpu":
        cases["numpy"] = lambda: np_lstm(x, w[0], w[1], w[2] + w[3])
    if real_torch is not None:
        tm = real_torch.nn.LSTM(I, Hd).to(device)
        tx = real_torch.tensor(x, device=device)

        def t_lstm():
            with real_torch.no_grad():
                tm(tx)
            sync_t()

        cases["torch"] = t_lstm
    out.append((f"LSTM fwd T={T} N={N} {I}->{Hd}", bench(cases, 5, 0.2)))

    # TransformerEncoderLayer forward (eval)
    S, N, D = 64, 16, 256
    x = rng.standard_normal((S, N, D)).astype(np.float32)
    layer = mnn.TransformerEncoderLayer(D, 8, 1024).to(device).eval()
    lx = minitorch.tensor(x, device=device)

    def m_enc():
        with minitorch.no_grad():
            layer(lx)
        sync_m()

    cases = {"minitorch": m_enc}
    if real_torch is not None:
        tl = real_torch.nn.TransformerEncoderLayer(D, 8, 1024).to(device).eval()
        tlx = real_torch.tensor(x, device=device)

        def t_enc():
            with real_torch.no_grad():
                tl(tlx)
            sync_t()

        cases["torch"] = t_enc
    out.append((f"TransformerEncoderLayer fwd S={S} N={N} d={D}", bench(cases, 5, 0.2)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(
        f"# bench_attention: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"minitorch threads {minitorch.get_num_threads()}, torch {real_torch.__version__ if real_torch else '-'}"
    )
    devices = ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    print("| device | case | minitorch | numpy | torch | minitorch/numpy | minitorch/torch |")
    print("|---|---|---|---|---|---|---|")
    for dev in devices:
        for name, r in rows(dev, args.quick):
            m, n, t = r.get("minitorch"), r.get("numpy"), r.get("torch")
            rn = f"{m / n:.2f}" if n else "-"
            rt = f"{m / t:.2f}" if t else "-"
            print(f"| {dev} | {name} | {fmt(m)} | {fmt(n)} | {fmt(t)} | {rn} | {rt} |")


if __name__ == "__main__":
    main()
