"""nn utilities on the CPU: the cost of activation checkpointing on a training step (checkpoint and
checkpoint_sequential against the plain step) and the per-call overhead of parametrized / hooked weights
(parametrizations.weight_norm and spectral_norm, the legacy weight_norm hook, a pruned layer) against the plain
layer. minitorch beside PyTorch when `import torch` works (run with PyTorch's Python and PYTHONPATH=python);
NumPy has no counterpart of these module utilities, so the ratios are against the plain step of the same
library (the overhead) and against PyTorch."""

import argparse
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import bench, fmt

try:
    import torch
except Exception:  # noqa: BLE001 - absent or unloadable: minitorch only
    torch = None

import minitorch


def _mlp(L, width, depth):
    L.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [L.nn.Linear(width, width), L.nn.GELU()]
    return L.nn.Sequential(*layers)


def _train_step(L, model, x, mode):
    """One forward + backward of the MLP: plain, per-layer checkpoint (non-reentrant), or two reentrant
    segments with checkpoint_sequential."""
    from importlib import import_module

    ckpt = import_module(L.__name__ + ".utils.checkpoint")

    def step():
        model.zero_grad(set_to_none=True)
        if mode == "plain":
            out = model(x)
        elif mode == "checkpoint":
            out = x
            for i in range(0, len(model), 2):
                out = ckpt.checkpoint(model[i : i + 2], out, use_reentrant=False)
        else:
            out = ckpt.checkpoint_sequential(model, 2, x, use_reentrant=True)
        out.pow(2).mean().backward()

    return step


def _forward(L, kind, width):
    """A Linear layer's forward with its weight plain, parametrized, hooked or pruned."""
    L.manual_seed(0)
    m = L.nn.Linear(width, width)
    utils = L.nn.utils
    if kind == "weight_norm (parametrization)":
        utils.parametrizations.weight_norm(m)
    elif kind == "spectral_norm (parametrization)":
        utils.parametrizations.spectral_norm(m)
    elif kind == "weight_norm (legacy hook)":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            utils.weight_norm(m)
    elif kind == "l1_unstructured 50% (pruned)":
        from importlib import import_module

        import_module(L.__name__ + ".nn.utils.prune").l1_unstructured(m, "weight", amount=0.5)
    x = L.randn(64, width)
    return lambda: m(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--batch", type=int, default=128)
    args = ap.parse_args()
    threads = os.environ.get("OMP_NUM_THREADS")
    libs = [("minitorch", minitorch)] + ([("torch", torch)] if torch is not None else [])
    if threads:
        for _, L in libs:
            L.set_num_threads(int(threads))

    print(f"training step, MLP {args.depth} x Linear({args.width}) + GELU, batch {args.batch}")
    print(
        f"{'case':38s} {'minitorch':>10s} {'torch':>10s} {'mt/plain':>9s} {'torch/plain':>11s} {'mt/torch':>9s}"
    )
    # every (library, case) in one interleaved bench call: load and drift hit the plain step and the
    # checkpointed ones alike, which matters for the overhead ratios
    modes = ("plain", "checkpoint", "checkpoint_sequential")
    fns = {}
    for mode in modes:
        for name, L in libs:
            model = _mlp(L, args.width, args.depth)
            x = L.randn(args.batch, args.width, requires_grad=True)
            fns[(name, mode)] = _train_step(L, model, x, mode)
    _table(modes, libs, bench(fns, args.repeats, args.min_time))

    print(f"\nforward of Linear({args.width}) on a 64 x {args.width} batch")
    print(
        f"{'case':38s} {'minitorch':>10s} {'torch':>10s} {'mt/plain':>9s} {'torch/plain':>11s} {'mt/torch':>9s}"
    )
    kinds = [
        "plain",
        "weight_norm (parametrization)",
        "spectral_norm (parametrization)",
        "weight_norm (legacy hook)",
        "l1_unstructured 50% (pruned)",
    ]
    fns = {(name, kind): _forward(L, kind, args.width) for kind in kinds for name, L in libs}
    _table(kinds, libs, bench(fns, args.repeats, args.min_time))


def _table(cases, libs, t):
    for case in cases:
        mt, plain_mt = t[("minitorch", case)], t[("minitorch", cases[0])]
        tt = t.get(("torch", case))
        ratio_t = tt / t[("torch", cases[0])] if tt else float("nan")
        print(
            f"{case:38s} {fmt(mt):>10s} {fmt(tt) if tt else '-':>10s} {mt / plain_mt:9.2f} {ratio_t:11.2f} "
            f"{(mt / tt) if tt else float('nan'):9.2f}"
        )


if __name__ == "__main__":
    main()
