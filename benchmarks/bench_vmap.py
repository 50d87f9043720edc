"""Per-sample gradients of a small CNN (conv-relu-pool-linear, MNIST-sized input) by vmap(grad(...)) against a
Python loop over the samples, beside PyTorch's torch.func (and its loop) when PyTorch is installed, and a
NumPy hand-written per-sample backward for reference. Printed as a Markdown table.
--entry-only: what a transform costs on tiny inputs, where its entry (switching the __torch_function__ dispatch
on and off) dominates, beside PyTorch run by --oracle in a second process.

The issue's target is vmap at least 5x faster than the loop (minitorch against minitorch). A report, not a
test. Then, per op (--ops-only for these alone), vmap by the op's batching rule against the per-entry loop
fallback the op took before it had one (issue 31: torch.fft, the linalg solves, kron, cdist; renorm, cov/corrcoef,
householder_product, block_diag, inner, hstack; the Python composites: pdist, histc, losses, ...), beside PyTorch's vmap.
Usage: PYTHONPATH=python python benchmarks/bench_vmap.py [--batch 64] [--repeats 5] [--ops-only [--ops NAME ...]]
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import warnings

import numpy as np
from _timing import bench, find_torch_python, fmt

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def weights(channels, classes, rng):
    return {
        "conv.weight": (rng.standard_normal((channels, 1, 3, 3)) * 0.3).astype(np.float32),
        "conv.bias": np.zeros(channels, np.float32),
        "fc.weight": (rng.standard_normal((classes, channels * 13 * 13)) * 0.01).astype(np.float32),
        "fc.bias": np.zeros(classes, np.float32),
    }


def cases_for(lib, w_np, x_np, y_np):
    """(vmap(grad), loop) callables for one library (minitorch or torch), same weights and data."""
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, w_np["conv.weight"].shape[0], 3)
            self.fc = nn.Linear(w_np["fc.weight"].shape[1], w_np["fc.weight"].shape[0])

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv(x)), 2)
            return self.fc(x.flatten(1))

    model = Net()
    params = {k: lib.from_numpy(v.copy()) for k, v in w_np.items()}
    x, y = lib.from_numpy(x_np), lib.from_numpy(y_np)

    def loss_fn(p, sample, target):
        out = lib.func.functional_call(model, p, (sample.unsqueeze(0),))
        return F.cross_entropy(out, target.unsqueeze(0))

    per_sample = lib.func.vmap(lib.func.grad(loss_fn), in_dims=(None, 0, 0))
    one = lib.func.grad(loss_fn)

    def vmapped():
        return per_sample(params, x, y)

    def loop():
        return [one(params, x[i], y[i]) for i in range(x.shape[0])]

    return vmapped, loop


def numpy_floor(w_np, x_np, y_np):
    """The same per-sample gradients written out in NumPy over the whole batch (im2col conv, batched matmul):
    a reference for the arithmetic, not a tuned kernel."""
    cw, cb, fw, fb = w_np["conv.weight"], w_np["conv.bias"], w_np["fc.weight"], w_np["fc.bias"]
    b = x_np.shape[0]
    cols = np.lib.stride_tricks.sliding_window_view(x_np[:, 0], (3, 3), axis=(1, 2))  # b, 26, 26, 3, 3
    cols = cols.reshape(b, 26 * 26, 9)
    onehot = np.eye(fw.shape[0], dtype=np.float32)[y_np]

    def step():
        h = np.matmul(cols, cw.reshape(cw.shape[0], 9).T).transpose(0, 2, 1) + cb[None, :, None]  # b, c, 676
        r = np.maximum(h, 0).reshape(b, -1, 13, 2, 13, 2)
        pooled = r.max(axis=(3, 5))
        mask = r == pooled[:, :, :, None, :, None]
        flat = pooled.reshape(b, -1)
        logits = flat @ fw.T + fb
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        g_logits = p - onehot
        g_fw = g_logits[:, :, None] * flat[:, None, :]
        g_flat = g_logits @ fw
        g_r = mask * g_flat.reshape(pooled.shape)[:, :, :, None, :, None]
        g_h = g_r.reshape(b, -1, 676) * (h > 0)
        g_cw = np.matmul(g_h, cols)
        return g_cw, g_h.sum(2), g_fw, g_logits

    return step


# (rule key, function source over `lib`, entry shapes): vmapped over a batch of `OPS_BATCH` entries
OPS_BATCH = 64
OP_CASES = {
    "fft.fft 256": ("fft.fft", "lambda x: lib.fft.fft(x)", [(256,)]),
    "fft.rfft2 32x32": ("fft.rfft2", "lambda x: lib.fft.rfft2(x)", [(32, 32)]),
    "fft.ifftn 8x8x8": ("fft.ifftn", "lambda x: lib.fft.ifftn(x)", [(8, 8, 8)]),
    "linalg.solve 8x8, 8x4": ("linalg.solve", "lambda a, b: lib.linalg.solve(a, b)", [(8, 8), (8, 4)]),
    "linalg.solve_triangular 8x8": (
        "linalg.solve_triangular",
        "lambda a, b: lib.linalg.solve_triangular(a, b, upper=True)",
        [(8, 8), (8, 4)],
    ),
    "cdist 32x8, 16x8": ("cdist", "lambda a, b: lib.cdist(a, b)", [(32, 8), (16, 8)]),
    "kron 4x4, 4x4": ("kron", "lambda a, b: lib.kron(a, b)", [(4, 4), (4, 4)]),
    # issue 31's leftovers (eleventh session)
    "renorm 8x16": ("renorm", "lambda x: lib.renorm(x, 2, 0, 1.0)", [(8, 16)]),
    "cov 8x32": ("cov", "lambda x: lib.cov(x)", [(8, 32)]),
    "corrcoef 8x32": ("corrcoef", "lambda x: lib.corrcoef(x)", [(8, 32)]),
    "linalg.householder_product 8x4": (
        "linalg.householder_product",
        "lambda a, t: lib.linalg.householder_product(a, t)",
        [(8, 4), (4,)],
    ),
    "block_diag 3x3, 2x4, 5": (
        "block_diag",
        "lambda a, b, c: lib.block_diag(a, b, c)",
        [(3, 3), (2, 4), (5,)],
    ),
    "inner 4x8, 6x8": ("inner", "lambda a, b: lib.inner(a, b)", [(4, 8), (6, 8)]),
    "hstack 2 x (4x3)": ("hstack", "lambda a, b: lib.hstack([a, b])", [(4, 3), (4, 3)]),
    # the Python composites (twelfth session)
    "pdist 32x16": ("pdist", "lambda x: lib.pdist(x)", [(32, 16)]),
    "histc 32x16, 10 bins": ("histc", "lambda x: lib.histc(x, 10)", [(32, 16)]),
    "kl_div 32x16 (torch.*)": ("kl_div", "lambda a, b: lib.kl_div(a, b.abs(), 1)", [(32, 16), (32, 16)]),
    "margin_ranking_loss 64 (torch.*)": (
        "margin_ranking_loss",
        "lambda a, b, c: lib.margin_ranking_loss(a, b, c.sign(), 0.1, 1)",
        [(64,), (64,), (64,)],
    ),
    "F.gaussian_nll_loss 32x16": (
        "F.gaussian_nll_loss",
        "lambda a, b: lib.nn.functional.gaussian_nll_loss(a, b, 0.5)",
        [(32, 16), (32, 16)],
    ),
    "repeat_interleave 32x16, 2": ("repeat_interleave", "lambda x: lib.repeat_interleave(x, 2)", [(32, 16)]),
    "index_put 16x8": (
        "index_put",
        "lambda x, v: lib.index_put(x, (lib.tensor([0, 3, 3]),), v, accumulate=True)",
        [(16, 8), (8,)],
    ),
    "diff 32x16, n=2": ("diff", "lambda x: lib.diff(x, 2)", [(32, 16)]),
}


def op_rows(repeats, min_time, batch=OPS_BATCH, only=()):
    """Per op: minitorch's vmap by its rule, by the loop fallback (the rule taken out for the run), PyTorch's;
    `only`: substrings of the case names to run (all when empty)."""
    from minitorch.func import _batched

    rng = np.random.default_rng(0)
    cols, keys = {}, {}
    for name, (key, src, shapes) in OP_CASES.items():
        data = [rng.standard_normal((batch, *s)) for s in shapes]
        if key.startswith("linalg.") and shapes[0][-1] == shapes[0][-2]:
            data[0] += 4 * np.eye(shapes[0][-1])  # well-conditioned matrices
        f = eval(src, {"lib": minitorch})
        args = [minitorch.from_numpy(d.copy()) for d in data]
        cols[(name, "rule")] = lambda f=f, args=args: minitorch.func.vmap(f)(*args)
        cols[(name, "loop")] = lambda f=f, args=args: minitorch.func.vmap(f)(*args)
        keys[name] = key
        if real_torch is not None:
            g = eval(src, {"lib": real_torch})
            targs = [real_torch.from_numpy(d.copy()) for d in data]
            cols[(name, "torch")] = lambda g=g, targs=targs: real_torch.func.vmap(g)(*targs)
    times = {}
    for name in list(OP_CASES):
        if only and not any(o in name for o in only):
            continue
        times[(name, "rule")] = bench({0: cols[(name, "rule")]}, repeats, min_time)[0]
        rule = _batched.RULES.pop(keys[name])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                times[(name, "loop")] = bench({0: cols[(name, "loop")]}, repeats, min_time)[0]
        finally:
            _batched.RULES[keys[name]] = rule
        if (name, "torch") in cols:
            times[(name, "torch")] = bench({0: cols[(name, "torch")]}, repeats, min_time)[0]
    print(f"\nvmap over {batch} entries, float64: the batching rule against the per-entry loop fallback\n")
    print("| op (entry shapes) | rule | loop fallback | loop/rule | PyTorch vmap | R = PyTorch/ours |")
    print("|---|---|---|---|---|---|")
    for name in OP_CASES:
        if (name, "rule") not in times:
            continue
        r, lp = times[(name, "rule")], times[(name, "loop")]
        t = times.get((name, "torch"))
        tail = f"{fmt(t)} | {t / r:.2f}" if t else "- | -"
        print(f"| {name} | {fmt(r)} | {fmt(lp)} | {lp / r:.1f} | {tail} |")


# What one call of a transform costs on tiny inputs (its entry dominates), and eager calls that must not pay
# for the transforms' existence. The same text runs under minitorch here and under PyTorch in the oracle process.
ENTRY_SCRIPT = r"""
import json, sys, timeit
lib = sys.argv[1]
if lib == "minitorch":
    import minitorch as torch
    import minitorch.autograd.forward_ad
else:
    import torch
    import torch.autograd.forward_ad
torch.set_num_threads(1)
func, fwAD = torch.func, torch.autograd.forward_ad
torch.manual_seed(0)
x43, a, b = torch.randn(4, 3), torch.randn(4, 3), torch.randn(4, 3)
W1, b1, W2, b2 = torch.randn(32, 16), torch.randn(32), torch.randn(8, 32), torch.randn(8)
xb, tb = torch.randn(4, 16), torch.randn(4, 16)
w, xs, ys = torch.randn(4, 8), torch.randn(16, 8), torch.randn(16, 4)
c3 = torch.randn(3)


def mlp(x):
    return torch.tanh(x @ W1.T + b1) @ W2.T + b2


def loss(W):
    return (torch.tanh(xb @ W.T + b1) ** 2).sum()


def ps_loss(w, x, y):
    return ((x @ w.T - y) ** 2).sum()


per_sample = func.vmap(func.grad(ps_loss), in_dims=(None, 0, 0))


def sin21(x):
    for _ in range(21):
        x = torch.sin(x)
    return x


vsin21, vsin1 = func.vmap(sin21), func.vmap(torch.sin)


def chain(x):
    # reported per op: (21 ops - 1 op) / 20, the entry taken out
    return vsin21(x)


def level():
    with fwAD.dual_level():
        pass


cases = {
    "eager torch.add 4x3": lambda: torch.add(a, b),
    "eager torch.sin 4x3": lambda: torch.sin(a),
    "eager a + b 4x3": lambda: a + b,
    "eager 2-layer MLP forward 4x16": lambda: mlp(xb),
    "forward_ad.dual_level() enter/exit": level,
    "vmap(torch.sin) 4x3": lambda: func.vmap(torch.sin)(x43),
    "vmap(lambda x: torch.sin(x) * 2) 4x3": lambda: func.vmap(lambda x: torch.sin(x) * 2)(x43),
    "vmap(21 chained torch.sin) 4x3, per op": lambda: chain(x43),
    "func.jvp 2-layer MLP 4x16": lambda: func.jvp(mlp, (xb,), (tb,)),
    "func.grad 1-layer loss 4x16": lambda: func.grad(loss)(W1),
    "vmap(grad) per-sample linear 16 x (8->4)": lambda: per_sample(w, xs, ys),
    # methods of plain tensors: eager ones must not pay for looking for __torch_function__ arguments, and one
    # given a BatchedTensor (a TypeError before the thirteenth session) must cost what the operator does
    "eager a.mul(b) 4x3": lambda: a.mul(b),
    "eager a.sum() 4x3": lambda: a.sum(),
    "eager a.hypot(b) 4x3 (a method written in Python)": lambda: a.hypot(b),
    "eager a.float() 4x3 (a method written in Python)": lambda: a.float(),
    "vmap(lambda v: c.mul(v)) 4x3, c plain": lambda: func.vmap(lambda v: c3.mul(v))(x43),
    "vmap(lambda v: c * v) 4x3, c plain": lambda: func.vmap(lambda v: c3 * v)(x43),
}
if lib == "minitorch":
    from minitorch.overrides import enable_torch_function_dispatch

    def switch():
        with enable_torch_function_dispatch():
            pass

    cases = {"overrides switch on/off (minitorch only)": switch, **cases}
min_time, repeats = float(sys.argv[2]), int(sys.argv[3])
out = {}
for k, f in cases.items():
    try:
        for _ in range(5):
            f()
    except TypeError:  # a case an older tree cannot run (a plain tensor's method given a BatchedTensor)
        continue
    n = max(1, int(min_time / (timeit.timeit(f, number=3) / 3)))
    out[k] = min(timeit.repeat(f, number=n, repeat=repeats)) / n
    if f is cases.get("vmap(21 chained torch.sin) 4x3, per op"):
        one = min(timeit.repeat(lambda: vsin1(x43), number=n, repeat=repeats)) / n
        out[k] = (out[k] - one) / 20
print(json.dumps(out))
"""


def entry_rows(oracle, repeats, min_time):
    """Per case: minitorch's time per call, PyTorch's (when an oracle Python is given) and R = PyTorch / ours;
    min of the repeats, one thread, each library in its own process one after the other."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    runs = {}
    for lib, py in (("minitorch", sys.executable), ("torch", oracle)):
        if py is None:
            continue
        out = subprocess.run(
            [py, "-c", ENTRY_SCRIPT, lib, str(min_time), str(repeats)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if out.returncode != 0:
            print(f"{lib} run failed:\n{out.stderr[-2000:]}")
            continue
        runs[lib] = json.loads(out.stdout.strip().splitlines()[-1])
    mt, tv = runs.get("minitorch", {}), runs.get("torch", {})
    print("\nper call, one thread, min of repeats; R = PyTorch time / ours\n")
    print("| case | minitorch | PyTorch | R |")
    print("|---|---|---|---|")
    for k, t in mt.items():
        o = tv.get(k)
        print(f"| {k} | {fmt(t)} | {fmt(o)} | {f'{o / t:.2f}' if o else '-'} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--channels", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per repeat (approximately)")
    ap.add_argument("--ops-only", action="store_true", help="only the per-op rule vs loop table")
    ap.add_argument("--ops-batch", type=int, default=OPS_BATCH, help="entries vmapped in the per-op table")
    ap.add_argument(
        "--ops", nargs="*", default=(), help="only the per-op cases whose names contain one of these"
    )
    ap.add_argument("--entry-only", action="store_true", help="only the transform-entry table")
    ap.add_argument("--oracle", default=None, help="a Python that imports real PyTorch (entry table)")
    args = ap.parse_args()
    if args.entry_only:
        entry_rows(find_torch_python(args.oracle), args.repeats, min(args.min_time, 0.1))
        return
    if args.ops_only:
        op_rows(args.repeats, args.min_time, args.ops_batch, args.ops)
        return
    rng = np.random.default_rng(0)
    w_np = weights(args.channels, 10, rng)
    x_np = rng.standard_normal((args.batch, 1, 28, 28)).astype(np.float32)
    y_np = rng.integers(0, 10, args.batch).astype(np.int64)

    print(
        f"CPU: {platform.machine()}, {os.cpu_count()} logical cores; numpy {np.__version__}; "
        f"torch {real_torch.__version__ if real_torch else 'not installed'}; minitorch threads "
        f"{minitorch.get_num_threads()}"
    )
    print(
        f"per-sample gradients, conv(1->{args.channels}, 3x3)-relu-maxpool2-linear(->10), batch {args.batch}, "
        f"28x28 input, float32; median of {args.repeats} interleaved repeats\n"
    )
    cols = {"numpy (hand-written)": numpy_floor(w_np, x_np, y_np)}
    mt_vmap, mt_loop = cases_for(minitorch, w_np, x_np, y_np)
    cols["minitorch vmap(grad)"] = mt_vmap
    cols["minitorch loop"] = mt_loop
    if real_torch is not None:
        t_vmap, t_loop = cases_for(real_torch, w_np, x_np, y_np)
        cols["torch vmap(grad)"] = t_vmap
        cols["torch loop"] = t_loop
    # the two minitorch paths agree before anything is timed
    got = mt_vmap()
    want = mt_loop()
    for k in got:
        ref = np.stack([g[k].numpy() for g in want])
        err = float(np.abs(got[k].numpy() - ref).max())
        assert err < 1e-4, (k, err)
    t = bench(cols, args.repeats, args.min_time)
    print("| path | time per batch | per sample |")
    print("|---|---|---|")
    for k, v in t.items():
        print(f"| {k} | {fmt(v)} | {fmt(v / args.batch)} |")
    print()
    speedup = t["minitorch loop"] / t["minitorch vmap(grad)"]
    print(f"minitorch: vmap(grad) is {speedup:.1f}x the loop (target: >= 5x)")
    if real_torch is not None:
        print(f"torch:     vmap(grad) is {t['torch loop'] / t['torch vmap(grad)']:.1f}x the loop")
        print(
            f"minitorch vmap(grad) / torch vmap(grad) time: {t['minitorch vmap(grad)'] / t['torch vmap(grad)']:.2f}"
        )
    op_rows(args.repeats, args.min_time, args.ops_batch)


if __name__ == "__main__":
    main()
