"""Hessian-vector products by forward over reverse (issue 31), beside PyTorch in the same run: autograd.grad of dual
weights inside a dual level, torch.func.jvp(grad(f)), torch.autograd.functional.hvp (PyTorch's double-backward
trick) and reverse over forward (the gradient of a dual loss's tangent), each on a small MLP loss. Ours runs twice, with the second-order terms of the common nodes in C++ and with every term by the Python
re-run of the op's rule (_forward_ad.CXX_TERMS off), interleaved with PyTorch in rounds.

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

    plain = [p.detach() for p in ps]
    return {
        "MLP 32-64-1 loss, autograd.grad of dual weights in a dual level": dual_level_hvp,
        "sigmoid/exp/pow/log_softmax/softmax/sin/cos/div loss, the same": dual_level_ops,
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
    call()
    n = max(1, int(0.2 / max(timeit.timeit(call, number=1), 1e-6)))
    out[name] = min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6
print(json.dumps(out))
"""


def _time(call):
    call()
    n = max(1, int(0.2 / max(timeit.timeit(call, number=1), 1e-6)))
    return min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=None, help="a Python that imports real PyTorch")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    import minitorch as torch
    from minitorch.func import _forward_ad

    torch.set_num_threads(1)
    ns = {}
    exec(CASES, ns)  # noqa: S102 (the same case text runs in PyTorch)
    calls = ns["setup"](torch)
    for name, call in calls.items():  # both paths give the same HVP
        _forward_ad.CXX_TERMS = False
        ref = call()
        _forward_ad.CXX_TERMS = True
        got = call()
        torch.testing.assert_close(got, ref, rtol=1e-12, atol=1e-12, msg=name)
    rows = {name: {"cxx": [], "python": [], "torch": []} for name in calls}
    for _ in range(args.rounds):
        for name, call in calls.items():
            for path in ("python", "cxx"):
                _forward_ad.CXX_TERMS = path == "cxx"
                rows[name][path].append(_time(call))
        _forward_ad.CXX_TERMS = True
        if args.oracle:
            out = subprocess.run(
                [args.oracle, "-c", ORACLE], input=CASES, capture_output=True, text=True, check=False
            )
            if out.returncode != 0:
                print(out.stderr[-2000:])
            else:
                for name, us in json.loads(out.stdout.strip().splitlines()[-1]).items():
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
