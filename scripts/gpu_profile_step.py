"""Where a training step's GPU time goes, minitorch beside PyTorch: runs steps of a benchmarks/bench_train.py model
for ncu, then reads ncu's per-kernel summaries of both libraries into one table (the largest totals first).

usage on the GPU machine (scripts/gpu_check.sh profile does both):
  ncu --metrics gpu__time_duration.sum --print-summary per-kernel \\
      python scripts/gpu_profile_step.py run minitorch ResNet-18 32 [fp32|fp16|bf16] > mt.txt
  python scripts/gpu_profile_step.py table mt.txt torch.txt
ncu sees every kernel of the process: the warm-up step is in the counts too (two steps in all, said in the table).
"""

import importlib
import os
import re
import sys

STEPS = 2  # one to warm up (cuDNN plans, optimizer state), one measured; ncu counts both


def run(lib_name, model, batch, mode="fp32"):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
    import bench_train

    lib = importlib.import_module(lib_name)
    step, sync = bench_train.make_step(lib, model, int(batch), "sgd", "cuda", mode)
    for _ in range(STEPS):
        step()
    sync()


def kernels(path):
    """{kernel name (shortened): (invocations, total us)} from one ncu --print-summary per-kernel output."""
    out, name, count = {}, None, 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"\s+(\S.*?) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), .*Invocations (\d+)", line)
            if m:
                name, count = re.sub(r"\(.*", "", m.group(1))[:90], int(m.group(2))
                continue
            if name and "gpu__time_duration.sum" in line:
                avg_us = float(line.split()[-1])
                unit = line.split()[1]
                scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}.get(unit, 1.0)
                n, t = out.get(name, (0, 0.0))
                out[name] = (n + count, t + count * avg_us * scale)
                name = None
    return out


def table(mt_path, torch_path, top=25):
    rows = []
    for lib, path in (("minitorch", mt_path), ("torch", torch_path)):
        ks = kernels(path)
        total = sum(t for _, t in ks.values())
        rows.append(f"\n### {lib}: {len(ks)} kernels, {total:,.0f} us of GPU time over {STEPS} steps\n")
        rows.append("| kernel | calls | total us | share |")
        rows.append("|---|---:|---:|---:|")
        for k, (n, t) in sorted(ks.items(), key=lambda kv: -kv[1][1])[:top]:
            rows.append(f"| `{k}` | {n} | {t:,.1f} | {100 * t / total:.1f} % |")
    print("\n".join(rows))


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "run":
        run(*sys.argv[2:6])
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
