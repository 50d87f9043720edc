"""Recurrent layers: nn.LSTM / nn.GRU forward and forward+backward over a sequence. On the CPU: minitorch's
composite path, its fused oneDNN LSTM (_C._cudnn_rnn's CPU kernel), a NumPy LSTM forward and PyTorch (CPU) when
it imports. On CUDA: the composite path, the fused cuDNN path (_C._cudnn_rnn) and PyTorch (which uses cuDNN).
Printed as a Markdown table with ratios (ours / PyTorch's time).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_rnn.py [--device cpu|cuda] [--quick]
[--threads N] (default: the CPU, then CUDA when a GPU is present; all threads)
"""

import argparse
import os
import platform

import numpy as np
from _timing import bench, fmt

import minitorch
from minitorch.nn.modules import rnn as rnn_mod

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def np_lstm_forward(x, h, c, w_ih, w_hh, b):
    """One LSTM layer the way one writes it in NumPy: the input projection as one GEMM, then a loop over steps."""
    gi = x @ w_ih.T + b
    H = h.shape[1]
    for t in range(x.shape[0]):
        g = gi[t] + h @ w_hh.T
        i, f, gg, o = (g[:, k * H : (k + 1) * H] for k in range(4))
        i, f, o = (1 / (1 + np.exp(-v)) for v in (i, f, o))
        c = f * c + i * np.tanh(gg)
        h = o * np.tanh(c)
    return h, c


def case(kind, T, N, I, H, L, bidir, device, backward):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((T, N, I)).astype(np.float32)
    cols, sync = {}, {}

    def mini(fused):
        minitorch.manual_seed(0)
        m = getattr(minitorch.nn, kind)(I, H, num_layers=L, bidirectional=bidir).to(device)
        X = minitorch.from_numpy(x.copy()).to(device).requires_grad_(backward)

        def step():
            rnn_mod.cudnn_rnn_enabled = rnn_mod.onednn_rnn_enabled = fused
            out, _ = m(X)
            if backward:
                out.sum().backward()

        return step

    cols["composite"] = mini(False)
    if device == "cuda" and minitorch._C._has_cudnn_rnn():
        cols["cudnn"] = mini(True)
    if device == "cpu" and kind == "LSTM" and minitorch._C._has_onednn_rnn():
        cols["onednn"] = mini(True)
    if device == "cuda":
        for k in cols:
            sync[k] = minitorch.cuda.synchronize
    if real_torch is not None and (device == "cpu" or real_torch.cuda.is_available()):
        real_torch.manual_seed(0)
        tm = getattr(real_torch.nn, kind)(I, H, num_layers=L, bidirectional=bidir).to(device)
        TX = real_torch.from_numpy(x.copy()).to(device).requires_grad_(backward)

        def tstep():
            out, _ = tm(TX)
            if backward:
                out.sum().backward()

        cols["torch"] = tstep
        if device == "cuda":
            sync["torch"] = real_torch.cuda.synchronize
    if device == "cpu" and kind == "LSTM" and L == 1 and not bidir and not backward:
        w_ih = rng.standard_normal((4 * H, I)).astype(np.float32) * 0.1
        w_hh = rng.standard_normal((4 * H, H)).astype(np.float32) * 0.1
        b = np.zeros(4 * H, np.float32)
        h0 = np.zeros((N, H), np.float32)
        cols["numpy"] = lambda: np_lstm_forward(x, h0, h0, w_ih, w_hh, b)
    name = f"{kind} {'fwd+bwd' if backward else 'fwd'} T={T} N={N} {I}->{H} L={L}" + (
        " bidir" if bidir else ""
    )
    return name, bench(cols, 5, 0.2, sync)


def run(device, quick):
    # (T, N, in, H, layers, bidirectional); the first is issue 32's long thin sequence
    shapes = [(4096, 1, 16, 16, 1, False), (32, 16, 64, 128, 1, False), (64, 32, 256, 256, 2, False)]
    shapes.append((128, 8, 32, 64, 2, True))
    if quick:
        shapes = shapes[1:2]
    rows = []
    for kind in ("LSTM", "GRU"):
        for T, N, I, H, L, bidir in shapes:
            for backward in (False, True):
                rows.append(case(kind, T, N, I, H, L, bidir, device, backward))
    cols = ["composite", "cudnn", "onednn", "numpy", "torch"]
    fused = ("composite", "cudnn", "onednn")
    print(f"\n### {device} ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)\n")
    print("| case | " + " | ".join(cols) + " | " + " | ".join(f"{a}/torch" for a in fused) + " |")
    print("|---" * (len(cols) + len(fused) + 1) + "|")
    for name, r in rows:
        ratio = [f"{r[a] / r['torch']:.2f}" if a in r and "torch" in r else "-" for a in fused]
        print(f"| {name} | " + " | ".join(fmt(r.get(c)) for c in cols) + " | " + " | ".join(ratio) + " |")
    rnn_mod.cudnn_rnn_enabled = False
    rnn_mod.onednn_rnn_enabled = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", choices=["cpu", "cuda"])
    ap.add_argument("--quick", action="store_true", help="the small shape only")
    ap.add_argument("--threads", type=int, help="intra-op threads of both libraries (default: theirs)")
    a = ap.parse_args()
    if a.threads:
        minitorch.set_num_threads(a.threads)
        if real_torch is not None:
            real_torch.set_num_threads(a.threads)
    devices = [a.device] if a.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    for d in devices:
        run(d, a.quick)


if __name__ == "__main__":
    main()
