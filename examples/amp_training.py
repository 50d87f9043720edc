"""Mixed-precision training as the tutorials teach it: autocast + GradScaler (float16) on the GPU, bfloat16
autocast on the CPU, gradient clipping between unscale_ and step, compared with a float32 run of the same model.

    python examples/amp_training.py [--steps 200]
"""

import argparse
import time

import numpy as np

import minitorch as torch
from minitorch import nn


def train(use_amp, device, steps, x, y):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.LayerNorm(256), nn.Linear(256, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    scaler = torch.amp.GradScaler(device.type, enabled=use_amp and dtype == torch.float16)
    criterion = nn.CrossEntropyLoss()
    t0 = time.perf_counter()
    for _ in range(steps):
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, dtype=dtype, enabled=use_amp):
            out = model(x)
            loss = criterion(out, y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return loss.item(), out.dtype, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.normal(size=(1024, 64)).astype(np.float32)).to(device)
    y = x[:, :10].argmax(dim=1)
    full = train(False, device, args.steps, x, y)
    mixed = train(True, device, args.steps, x, y)
    print(f"minitorch {torch.__version__} on {device}")
    print(f"float32:         final loss {full[0]:.4f}  ({full[2]:.2f} s)")
    print(f"autocast {str(mixed[1]).split('.')[-1]:8s} final loss {mixed[0]:.4f}  ({mixed[2]:.2f} s)")
    assert mixed[1] != torch.float32, "autocast did not lower the precision of the linear layers"
    assert abs(mixed[0] - full[0]) < 0.1 + 0.2 * full[0], "mixed precision ended far from float32"
    print("amp_training: ok")


if __name__ == "__main__":
    main()
