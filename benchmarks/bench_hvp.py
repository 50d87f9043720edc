"""Hessian-vector products by forward over reverse (issue 31), beside PyTorch in the same run: autograd.grad of dual
weights inside a dual level, torch.func.jvp(grad(f)), torch.autograd.functional.hvp (PyTorch's double-backward
trick) and reverse over forward (the gradient of a dual loss's tangent), each on a small MLP loss. Ours runs twice, with the second-order terms of the common nodes in C++ and with every term by the Python
re-run of the op's rule (_forward_ad.CXX_TERMS off), interleaved with PyTorch in rounds. --rows-before adds a
third path for the dual-level rows: the C++ terms but for the rows that got theirs in the second set (special
functions, atan2/hypot/logaddexp/xlogy, logsumexp, cumprod, prelu, gelu tanh, mish, hardswish), which take the re-run
as before.

Run: OMP_NUM_THREADS=1 PYTHONPATH=python python benchmarks/bench_hvp.py [--oracle /path/to/python-with-torch]
Reports microseconds per HVP (best of 5 repeats, per round) and R = PyTorch time / ours (not pass/fail).
"""

import argparse
import json
import subprocess
import sys
import timeit

# The cases, the same text for both libraries: `setup(torch)` returns {name: a call that computes one HVP}.
CASES = r"""
def setup(torch):
    fwAD, F = torch.autograd.forward_ad, torch.nn.functional
    grad, jvp = torch.func.grad, torch.func.jvp

    torch.manual_seed(0)
    D = torch.float64
    x, y = torch.randn(16, 32, dtype=D), torch.randn(16, 1, dtype=D)
    w1, b1 = torch.randn(64, 32, dtype=D) * 0.2, torch.randn(64, dtype=D) * 0.1
    w2, b2 = torch.randn(1, 64, dtype=D) * 0.2, torch.randn(1, dtype=D) * 0.1
    ps = [p.requires_grad_() for p in (w1, b1, w2, b2)]
    vs = [torch.randn_like(p) for p in ps]

    def loss(w1, b1, w2, b2):  # (not F.mse_loss: PyTorch 2.15's raises "ZeroTensors are immutable" here)
        return ((F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2) - y) ** 2).mean()

    def loss_ops(w1):
        h = torch.sigmoid(x @ w1.t()) * torch.exp(-(x @ w1.t()) ** 2 / 4)
        return (torch.log_softmax(h, 1) * torch.softmax(h.sin(), 1)).sum() / h.cos().add(2).sum()

    def dual_level_hvp():
        with fwAD.dual_level():
            duals = [fwAD.make_dual(p, v) for p, v in zip(ps, vs)]
            gs = torch.autograd.grad(loss(*duals), ps)
            return [fwAD.unpack_dual(g).tangent for g in gs]

    def dual_level_ops():
        with fwAD.dual_level():
            (g,) = torch.autograd.grad(loss_ops(fwAD.make_dual(ps[0], vs[0])), ps[0])
            return fwAD.unpack_dual(g).tangent

    def reverse_of_forward():  # functional.hvp's path before it took PyTorch's double-backward trick
        with fwAD.dual_level():
            duals = [fwAD.make_dual(p, v) for p, v in zip(ps, vs)]
            return torch.autograd.grad(fwAD.unpack_dual(loss(*duals)).tangent, ps)

    def loss_special(w1):
        h = x @ w1.t()
        u = torch.erf(h) * torch.lgamma(h * h + 1.0) + torch.digamma(h * h + 0.5) * torch.special.i0e(h)
        return (u + torch.atanh(torch.tanh(h) * 0.5) + torch.erfinv(torch.tanh(h) * 0.9)).sum()

    def loss_binary(w1):
        h = x @ w1.t()
        u = torch.atan2(h, h.sin() + 2.0) + torch.logaddexp(h, -h * h) * torch.hypot(h, h.cos())
        return torch.logsumexp(u, 1).sum() + torch.xlogy(h * h, h.exp() + 1.0).mean()

    def loss_gelu_tanh(w1, b1, w2, b2):  # GELU(tanh) MLP, cross entropy written with logsumexp
        out = F.linear(F.gelu(F.linear(x, w1, b1), approximate="tanh"), w2, b2) * y
        return (torch.logsumexp(out.expand(16, 3) * torch.tensor([1.0, -0.5, 0.25], dtype=D), 1) - out[:, 0]).mean()

    def dual_level(f, k):
        def run():
            with fwAD.dual_level():
                gs = torch.autograd.grad(f(*[fwAD.make_dual(p, v) for p, v in zip(ps[:k], vs[:k])]), ps[:k])
                return [fwAD.unpack_dual(g).tangent for g in gs]

        return run

    plain = [p.detach() for p in ps]
    return {
        "MLP 32-64-1 loss, autograd.grad of dual weights in a dual level": dual_level_hvp,
        "sigmoid/exp/pow/log_softmax/softmax/sin/cos/div loss, the same": dual_level_ops,
        "erf/lgamma/digamma/i0e/atanh/erfinv loss, the same": dual_level(loss_special, 1),
        "atan2/logaddexp/hypot/logsumexp/xlogy loss, the same": dual_level(loss_binary, 1),
        "GELU(tanh) MLP, logsumexp loss, the same": dual_level(loss_gelu_tanh, 4),
        "MLP, torch.func.jvp(grad(f))": lambda: jvp(grad(loss, argnums=(0, 1, 2, 3)), tuple(plain), tuple(vs)),
        "MLP, torch.autograd.functional.hvp": lambda: torch.autograd.functional.hvp(loss, tuple(plain), tuple(vs)),
        "MLP, autograd.grad of a dual loss's tangent (reverse over forward)": reverse_of_forward,
    }
"""

ORACLE = r"""
import json, sys, timeit, torch
torch.set_num_threads(1)
ns = {}
exec(sys.stdin.read(), ns)
out = {}
for name, call in ns["setup"](torch).items():
    if sys.argv[1] not in name:
        continue
    call()
    n = max(1, int(0.2 / max(timeit.timeit(call, number=1), 1e-6)))
    out[name] = min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6
print(json.dumps(out))
"""


def _time(call):
    call()
    n = max(1, int(0.2 / max(timeit.timeit(call, number=1), 1e-6)))
    return min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6


# the schema rows whose second-order term the second set declared (dual31); --rows-before re-runs them as before
SECOND_SET = {
    "erf", "erfc", "erfinv", "asin", "acos", "asinh", "acosh", "atanh", "lgamma", "digamma", "i0", "gelu",
    "gelu_tanh", "mish", "hardswish", "atan2", "_hypot", "xlogy", "logaddexp", "logaddexp2", "logsumexp", "cumprod",
    "_prelu_kernel",
}  # fmt: skip


def _rows_before(forward_ad):
    """A _dual_kind that sends the second set's rows to the re-run (gelu only for approximate='tanh', whose calls
    took the re-run before; the benchmark's gelu calls are all tanh)."""
    kind = forward_ad._dual_kind

    def before(rkey):
        k = kind(rkey)
        return ("fallback", None, None) if k[1] in SECOND_SET or k[1] and k[1].startswith("_special_") else k

    return before


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=None, help="a Python that imports real PyTorch")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--rows-before", action="store_true", help="also time the second set's rows by the re-run"
    )
    ap.add_argument("-k", default="", help="only the cases whose name contains this")
    args = ap.parse_args()
    import minitorch as torch
    from minitorch.func import _forward_ad

    kind, before = _forward_ad._dual_kind, _rows_before(_forward_ad)

    torch.set_num_threads(1)
    ns = {}
    exec(CASES, ns)  # noqa: S102 (the same case text runs in PyTorch)
    calls = {k: c for k, c in ns["setup"](torch).items() if args.k in k}
    for name, call in calls.items():  # both paths give the same HVP
        _forward_ad.CXX_TERMS = False
        ref = call()
        _forward_ad.CXX_TERMS = True
        got = call()
        torch.testing.assert_close(got, ref, rtol=1e-12, atol=1e-12, msg=name)
    rows = {name: {"cxx": [], "python": [], "before": [], "torch": []} for name in calls}
    paths = ("python", "before", "cxx") if args.rows_before else ("python", "cxx")
    for _ in range(args.rounds):
        for name, call in calls.items():
            for path in paths:
                if path == "before" and "dual level" not in name and ", the same" not in name:
                    continue
                _forward_ad.CXX_TERMS = path != "python"
                _forward_ad._dual_kind = before if path == "before" else kind
                rows[name][path].append(_time(call))
        _forward_ad.CXX_TERMS, _forward_ad._dual_kind = True, kind
        if args.oracle:
            out = subprocess.run(
                [args.oracle, "-c", ORACLE, args.k], input=CASES, capture_output=True, text=True, check=False
            )
            if out.returncode != 0:
                print(out.stderr[-2000:])
            else:
                for name, us in json.loads(out.stdout.strip().splitlines()[-1]).items():
                    if name in rows:
                        rows[name]["torch"].append(us)
    print(
        "| case (float64, 1 thread) | Python terms: ours / PyTorch us (R), per round | C++ terms: the same | "
        "best of the rounds: Python terms / C++ terms / PyTorch us (R Python, R C++) |"
    )
    print("|---|---|---|---|")
    for name, r in rows.items():
        cells = []
        for path in ("python", "cxx"):
            parts = []
            for i, us in enumerate(r[path]):
                t = r["torch"][i] if i < len(r["torch"]) else None
                parts.append(f"{us:.0f} / {t:.0f} ({t / us:.2f})" if t else f"{us:.0f} / -")
            cells.append("; ".join(parts))
        py, cx = min(r["python"]), min(r["cxx"])
        if r["torch"]:
            t = min(r["torch"])
            cells.append(f"{py:.0f} / {cx:.0f} / {t:.0f} ({t / py:.2f}, {t / cx:.2f})")
        else:
            cells.append(f"{py:.0f} / {cx:.0f} / -")
        print(f"| {name} | {' | '.join(cells)} |")
    if args.rows_before:
        print(
            "\n| case | second set re-run, per round: ours / PyTorch us (R) | best: re-run / C++ / PyTorch us |"
        )
        print("|---|---|---|")
        for name, r in rows.items():
            if r["before"]:
                t = r["torch"]
                per = "; ".join(
                    f"{us:.0f} / {t[i]:.0f} ({t[i] / us:.2f})" if i < len(t) else f"{us:.0f}"
                    for i, us in enumerate(r["before"])
                )
                best_t = f"{min(t):.0f}" if t else "-"
                print(f"| {name} | {per} | {min(r['before']):.0f} / {min(r['cxx']):.0f} / {best_t} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
