"""Optimizer step time: SGD with momentum, Adam, and NAdam/RAdam/Adamax/ASGD/Rprop over a ResNet-18-sized parameter list (62 tensors, 11.7M
values) and a tiny model (4 tensors), beside a NumPy loop over the parameters (in-place ufuncs, the floor on
the CPU; SGD and Adam only) and PyTorch's foreach, fused and for-loop (foreach=False, its CPU default for the
optimizers without a fused kernel) implementations when PyTorch is installed. Markdown table.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_optim.py [--device cuda]
"""

import argparse
import os
import platform

import numpy as np
from _timing import bench, fmt

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def resnet18_shapes():
    """The 62 parameter shapes of torchvision's resnet18 (convs, batch-norm weight/bias, fc)."""
    shapes = [(64, 3, 7, 7), (64,), (64,)]
    cin = 64
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for block in range(2):
            shapes += [(cout, cin if block == 0 else cout, 3, 3), (cout,), (cout,)]
            shapes += [(cout, cout, 3, 3), (cout,), (cout,)]
            if block == 0 and (stride != 1 or cin != cout):
                shapes += [(cout, cin, 1, 1), (cout,), (cout,)]
        cin = cout
    return shapes + [(1000, 512), (1000,)]


def tiny_shapes():
    return [(32, 16), (32,), (1, 32), (1,)]


LR, MOMENTUM, BETAS, EPS = 1e-3, 0.9, (0.9, 0.999), 1e-8


def numpy_sgd(params, grads):
    bufs = [np.zeros_like(p) for p in params]

    def step():
        for p, g, b in zip(params, grads, bufs):
            b *= MOMENTUM
            b += g
            p -= LR * b

    return step


def numpy_adam(params, grads):
    ms = [np.zeros_like(p) for p in params]
    vs = [np.zeros_like(p) for p in params]
    tmp = [np.empty_like(p) for p in params]
    state = {"t": 0}
    b1, b2 = BETAS

    def step():
        state["t"] += 1
        t = state["t"]
        step_size = LR / (1 - b1**t)
        bc2_sqrt = (1 - b2**t) ** 0.5
        for p, g, m, v, d in zip(params, grads, ms, vs, tmp):
            m *= b1
            np.multiply(g, 1 - b1, out=d)
            m += d
            v *= b2
            np.multiply(g, g, out=d)
            d *= 1 - b2
            v += d
            np.sqrt(v, out=d)
            d /= bc2_sqrt
            d += EPS
            np.divide(m, d, out=d)
            d *= step_size
            p -= d

    return step


# optimizers composed per tensor in Python (no fused kernel): minitorch beside PyTorch's foreach and for-loop
PER_TENSOR = {
    "NAdam": {"lr": LR},
    "RAdam": {"lr": LR},
    "Adamax": {"lr": LR},
    "ASGD": {"lr": LR},
    "Rprop": {"lr": LR},
    "Adafactor": {"lr": LR},
}


def _per_tensor_cases(p_np, g_np, device):
    out = {}
    for kind, kwargs in PER_TENSOR.items():
        cols = {}
        ps = [minitorch.tensor(p, device=device, requires_grad=True) for p in p_np]
        for p, g in zip(ps, g_np):
            p.grad = minitorch.tensor(g, device=device)
        opt = getattr(minitorch.optim, kind)(ps, **kwargs)
        cols["minitorch"] = (
            (lambda opt=opt: (opt.step(), minitorch.cuda.synchronize())) if device == "cuda" else opt.step
        )
        if real_torch is not None:
            for impl, flag in (("foreach", True), ("for-loop", False)):
                tps = [real_torch.tensor(p, device=device, requires_grad=True) for p in p_np]
                for p, g in zip(tps, g_np):
                    p.grad = real_torch.tensor(g, device=device)
                topt = getattr(real_torch.optim, kind)(tps, foreach=flag, **kwargs)
                cols[f"torch {impl}"] = (
                    (lambda topt=topt: (topt.step(), real_torch.cuda.synchronize()))
                    if device == "cuda"
                    else topt.step
                )
        out[kind] = cols
    return out


def cases_for(shapes, device):
    rng = np.random.default_rng(0)
    p_np = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    g_np = [rng.standard_normal(s).astype(np.float32) * 1e-2 for s in shapes]
    out = {}
    for kind in ("SGD momentum", "Adam"):
        cols = {}
        if device == "cpu":
            ps, gs = [p.copy() for p in p_np], [g.copy() for g in g_np]
            cols["numpy"] = numpy_sgd(ps, gs) if kind == "SGD momentum" else numpy_adam(ps, gs)

        def mt_step(kind=kind):
            ps = [minitorch.tensor(p, device=device, requires_grad=True) for p in p_np]
            for p, g in zip(ps, g_np):
                p.grad = minitorch.tensor(g, device=device)
            if kind == "SGD momentum":
                opt = minitorch.optim.SGD(ps, lr=LR, momentum=MOMENTUM)
            else:
                opt = minitorch.optim.Adam(ps, lr=LR, betas=BETAS, eps=EPS)
            if device == "cuda":
                return lambda: (opt.step(), minitorch.cuda.synchronize())
            return opt.step

        cols["minitorch"] = mt_step()
        if real_torch is not None:
            for impl in ("foreach", "fused"):
                ps = [real_torch.tensor(p, device=device, requires_grad=True) for p in p_np]
                for p, g in zip(ps, g_np):
                    p.grad = real_torch.tensor(g, device=device)
                flag = {impl: True}
                try:
                    if kind == "SGD momentum":
                        opt = real_torch.optim.SGD(ps, lr=LR, momentum=MOMENTUM, **flag)
                    else:
                        opt = real_torch.optim.Adam(ps, lr=LR, betas=BETAS, eps=EPS, **flag)
                    opt.step()
                except (RuntimeError, TypeError):  # fused not available for this device/version
                    continue
                if device == "cuda":
                    cols[f"torch {impl}"] = lambda opt=opt: (opt.step(), real_torch.cuda.synchronize())
                else:
                    cols[f"torch {impl}"] = opt.step
        out[kind] = cols
    # the gradient-norm half of clip_grad_norm_: one 2-norm per tensor
    cols = {}
    if device == "cpu":
        cols["numpy"] = lambda: [np.linalg.norm(g.ravel()) for g in g_np]
    mg = [minitorch.tensor(g, device=device) for g in g_np]
    cols["minitorch"] = lambda: minitorch._C._foreach_norm(mg)
    if device == "cuda":
        cols["minitorch"] = lambda: (minitorch._C._foreach_norm(mg), minitorch.cuda.synchronize())
    if real_torch is not None:
        tg = [real_torch.tensor(g, device=device) for g in g_np]
        cols["torch foreach"] = lambda: real_torch._foreach_norm(tg)
        if device == "cuda":
            cols["torch foreach"] = lambda: (real_torch._foreach_norm(tg), real_torch.cuda.synchronize())
    out["_foreach_norm"] = cols
    out.update(_per_tensor_cases(p_np, g_np, device))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds per repeat (approximately)")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    print(
        f"CPU: {platform.machine()}, {os.cpu_count()} logical cores, minitorch threads "
        f"{minitorch.get_num_threads()}; numpy {np.__version__}; "
        f"torch {real_torch.__version__ if real_torch else 'not installed'}; device {args.device}"
    )
    print(f"median of {args.repeats} interleaved repeats; float32 parameters and gradients\n")
    cols_order = ["numpy", "minitorch", "torch foreach", "torch fused", "torch for-loop"]
    print("| model | optimizer | " + " | ".join(cols_order) + " | ratios |")
    print("|---|---|" + "---|" * len(cols_order) + "---|")
    for model, shapes in [
        ("ResNet-18 (62 tensors, 11.7M)", resnet18_shapes()),
        ("tiny (4 tensors)", tiny_shapes()),
    ]:
        for kind, cols in cases_for(shapes, args.device).items():
            t = bench(cols, args.repeats, args.min_time)
            ratios = []
            for ref in ("numpy", "torch foreach", "torch fused", "torch for-loop"):
                if ref in t:
                    ratios.append(f"t_{ref.replace('torch ', '')}/t_mt {t[ref] / t['minitorch']:.2f}")
            cells = " | ".join(fmt(t.get(c)) for c in cols_order)
            print(f"| {model} | {kind} | {cells} | {', '.join(ratios)} |", flush=True)


if __name__ == "__main__":
    main()
