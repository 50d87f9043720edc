"""One training step of a small GPT (tests/integration/programs/gpt.py's model: token + position embeddings, pre-LayerNorm
blocks of causal self-attention and a GELU MLP, tied head, AdamW with decay/no-decay groups, clip_grad_norm_)
with the same code run by minitorch and by PyTorch (when importable), each in its own process, on the CPU and
on CUDA when present. No NumPy column: a hand-written NumPy transformer with backward would measure that code,
not a floor. The causal mask is built from arange comparisons so the step needs no tril.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_gpt.py [--quick]
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

CONFIGS = {  # name: (n_layer, n_head, n_embd, block_size, batch, vocab)
    "tiny (2x64, T=32, B=16)": (2, 4, 64, 32, 16, 65),
    "small (4x128, T=64, B=16)": (4, 4, 128, 64, 16, 65),
}


def build(lib, n_layer, n_head, n_embd, block_size, vocab, device):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.c_attn, self.c_proj = nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)
            self.fc, self.proj = nn.Linear(n_embd, 4 * n_embd), nn.Linear(4 * n_embd, n_embd)
            self.gelu = nn.GELU()

        def attn(self, x, mask):
            B, T, C = x.shape
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q, k, v = (t.view(B, T, n_head, C // n_head).transpose(1, 2) for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // n_head))
            att = F.softmax(att.masked_fill(mask[:T, :T], float("-inf")), dim=-1)
            return self.c_proj((att @ v).transpose(1, 2).contiguous().view(B, T, C))

        def forward(self, x, mask):
            x = x + self.attn(self.ln_1(x), mask)
            return x + self.proj(self.gelu(self.fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block_size, n_embd)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab, bias=False)
            self.wte.weight = self.head.weight
            r = lib.arange(block_size, device=device)
            self.register_buffer("mask", r.unsqueeze(0) > r.unsqueeze(1))

        def forward(self, idx, targets):
            T = idx.shape[1]
            x = self.wte(idx) + self.wpe(lib.arange(T, device=idx.device))
            for b in self.h:
                x = b(x, self.mask)
            logits = self.head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return GPT().to(device)


def worker(args):
    if args.worker == "torch":
        import torch as lib
    else:
        import minitorch as lib
    n_layer, n_head, n_embd, T, B, vocab = CONFIGS[args.config]
    lib.manual_seed(0)
    model = build(lib, n_layer, n_head, n_embd, T, vocab, args.device)
    params = [p for p in model.parameters()]
    groups = [
        {"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    opt = lib.optim.AdamW(groups, lr=3e-4, betas=(0.9, 0.95))
    idx = lib.randint(0, vocab, (B, T), device=args.device)
    tgt = lib.randint(0, vocab, (B, T), device=args.device)

    def step():
        loss = model(idx, tgt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    sync = lib.cuda.synchronize if args.device == "cuda" else (lambda: None)
    for _ in range(3):
        step()
    sync()
    times = []
    deadline = time.perf_counter() + args.min_time
    while time.perf_counter() < deadline or len(times) < 5:
        t0 = time.perf_counter()
        loss = step()
        sync()
        times.append(time.perf_counter() - t0)
    times.sort()
    print(json.dumps({"step": times[len(times) // 2], "loss": float(loss)}))


def measure(lib, config, device, min_time):
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        lib,
        "--config",
        config,
        "--device",
        device,
        "--min-time",
        str(min_time),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, env=os.environ, check=False)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--config", default=next(iter(CONFIGS)))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--min-time", type=float, default=2.0)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    min_time = 0.5 if args.quick else args.min_time
    import importlib.util

    has_torch = importlib.util.find_spec("torch") is not None
    devices = ["cpu"]
    import minitorch

    if minitorch.cuda.is_available():
        devices.append("cuda")
    print(f"GPT training step (forward, backward, clip_grad_norm_, AdamW), median of >= {min_time}s per cell")
    print(f"{'config':28s} {'device':6s} {'minitorch':>12s} {'PyTorch':>12s} {'ratio':>7s}")
    for config in CONFIGS:
        for device in devices:
            mt, err = measure("minitorch", config, device, min_time)
            pt, _ = measure("torch", config, device, min_time) if has_torch else (None, "not installed")
            a = f"{mt['step'] * 1e3:.2f} ms" if mt else "error"
            b = f"{pt['step'] * 1e3:.2f} ms" if pt else "-"
            r = f"{mt['step'] / pt['step']:.2f}x" if mt and pt else "-"
            print(f"{config:28s} {device:6s} {a:>12s} {b:>12s} {r:>7s}")
            if err:
                print("   minitorch:", err)


if __name__ == "__main__":
    main()
