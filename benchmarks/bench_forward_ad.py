"""Forward-mode AD benchmark: jvp of a small MLP by forward mode vs the double-vjp trick vs PyTorch's forward AD;
then per op, jvp by the op's rule vs the generic double-vjp JVP the op took before it had one (issue 31), beside
PyTorch's torch.func.jvp.

Run: OMP_NUM_THREADS=1 PYTHONPATH=python python benchmarks/bench_forward_ad.py [--oracle /path/to/python-with-torch]
Reports microseconds per jvp and ratios (not pass/fail).
"""

import argparse
import json
import subprocess
import sys
import timeit
import warnings

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
from minitorch.autograd import _jvp_rules
from minitorch.autograd import functional as AF
from minitorch.func import jvp

# per-op cases: (rule key, input shapes, function source over `torch`), the same text for both libraries
OP_CASES = {
    "F.max_pool2d 8x16x32x32": (
        "F.max_pool2d",
        [(8, 16, 32, 32)],
        "lambda x: torch.nn.functional.max_pool2d(x, 2)",
    ),
    "F.batch_norm train 32x64x8x8": (
        "F.batch_norm",
        [(32, 64, 8, 8)],
        "lambda x: torch.nn.functional.batch_norm(x, None, None, training=True)",
    ),
    "F.group_norm 16x64x8x8": (
        "F.group_norm",
        [(16, 64, 8, 8)],
        "lambda x: torch.nn.functional.group_norm(x, 8)",
    ),
    "F.interpolate bilinear 8x16x32x32": (
        "F.interpolate",
        [(8, 16, 32, 32)],
        "lambda x: torch.nn.functional.interpolate(x, scale_factor=2, mode='bilinear')",
    ),
    "F.scaled_dot_product_attention 4x8x64x32": (
        "F.scaled_dot_product_attention",
        [(4, 8, 64, 32)],
        "lambda q: torch.nn.functional.scaled_dot_product_attention(q, q, q)",
    ),
    "F.multi_head_attention_forward 32x8x64, 4 heads": (
        "F.multi_head_attention_forward",
        [(32, 8, 64)],
        (
            "lambda q: torch.nn.functional.multi_head_attention_forward(q, q, q, 64, 4, "
            "torch.arange(12288.0, dtype=q.dtype).reshape(192, 64).sin() * 0.1, None, None, None, False, 0.0, "
            "torch.arange(4096.0, dtype=q.dtype).reshape(64, 64).cos() * 0.1, None)[0]"
        ),
    ),
    "F.cross_entropy 256x1000 smoothing": (
        "F.cross_entropy",
        [(256, 1000)],
        "lambda x: torch.nn.functional.cross_entropy(x, torch.arange(256) % 1000, label_smoothing=0.1)",
    ),
    "linalg.solve 64x64": ("linalg.solve", [(64, 64)], "lambda a: torch.linalg.solve(a, a.mT)"),
    "linalg.eigh 64x64": ("linalg.eigh", [(64, 64)], "lambda a: torch.linalg.eigh(a + a.mT)"),
    "linalg.svd 48x32 reduced": (
        "linalg.svd",
        [(48, 32)],
        "lambda a: torch.linalg.svd(a, full_matrices=False)",
    ),
}

ORACLE_OPS_SCRIPT = """
import json, sys, timeit, torch
import torch.autograd.forward_ad as fwAD
torch.set_num_threads(1)
torch.manual_seed(0)
out = {}
for name, (shapes, src) in json.loads(sys.stdin.read()).items():
    f = eval(src)
    xs = [torch.randn(*s, dtype=torch.float64) for s in shapes]
    ts = [torch.randn(*s, dtype=torch.float64) for s in shapes]
    with fwAD.dual_level():
        duals = [fwAD.make_dual(x, t) for x, t in zip(xs, ts)]
        call = lambda: f(*duals)
        try:
            call()
        except (NotImplementedError, RuntimeError):
            continue  # (PyTorch 2.15 has no forward AD for its CPU flash attention)
        n = max(1, int(0.2 / max(timeit.timeit(call, number=1), 1e-6)))
        out[name] = min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6
print(json.dumps(out))
"""


def _time(call):
    call()
    n = max(1, int(0.2 / max(timeit.timeit(call, number=1), 1e-6)))
    return min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6


def _tangent(out):
    return (
        tuple(fwAD.unpack_dual(o).tangent for o in out)
        if isinstance(out, tuple)
        else fwAD.unpack_dual(out)[1]
    )


def op_rows(oracle):
    """Microseconds per call of each OP_CASES op on dual tensors inside one dual level (the op's forward AD cost,
    without func.jvp's per-call setup): by its rule, by the generic JVP (the rule taken out of the table for the
    run), and PyTorch's forward AD."""
    torch.manual_seed(0)
    rows = {}
    for name, (key, shapes, src) in OP_CASES.items():
        f = eval(src, {"torch": torch})
        xs = [torch.randn(*s, dtype=torch.float64) for s in shapes]
        ts = [torch.randn(*s, dtype=torch.float64) for s in shapes]
        with fwAD.dual_level():
            duals = [fwAD.make_dual(x, t) for x, t in zip(xs, ts)]
            call = lambda f=f, duals=duals: f(*duals)
            rule = _time(call)
            ref = _tangent(call())
            row, compiled = _jvp_rules.JVP_RULES.pop(key), _jvp_rules._compiled.pop(key, None)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.testing.assert_close(
                        _tangent(call()), ref, rtol=1e-6, atol=1e-8
                    )  # the same tangents
                    generic = _time(call)
            finally:
                _jvp_rules.JVP_RULES[key] = row
                if compiled is not None:
                    _jvp_rules._compiled[key] = compiled
        rows[name] = {"rule": rule, "generic": generic}
    if oracle:
        payload = json.dumps({n: (c[1], c[2]) for n, c in OP_CASES.items()})
        out = subprocess.run(
            [oracle, "-c", ORACLE_OPS_SCRIPT], input=payload, capture_output=True, text=True, check=False
        )
        if out.returncode == 0:
            for n, us in json.loads(out.stdout.strip().splitlines()[-1]).items():
                rows[n]["torch"] = us
        else:
            print(out.stderr[-2000:])
    print(
        "\n| op on duals (float64, 1 thread) | rule us | generic us | generic/rule | PyTorch us | R = PyTorch/ours |"
    )
    print("|---|---|---|---|---|---|")
    for n, r in rows.items():
        t = r.get("torch")
        tail = f"{t:.0f} | {t / r['rule']:.2f}" if t else "- | -"
        print(f"| {n} | {r['rule']:.0f} | {r['generic']:.0f} | {r['generic'] / r['rule']:.2f} | {tail} |")


ORACLE_SCRIPT = """
import json, timeit, torch
from torch.func import jvp
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 128), torch.nn.Tanh(),
                          torch.nn.Linear(128, 10))
x, v = torch.randn(32, 64), torch.randn(32, 64)
f = lambda: jvp(net, (x,), (v,))
f()
n = 200
print(json.dumps({"torch_forward_us": min(timeit.repeat(f, number=n, repeat=5)) / n * 1e6}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=None, help="a Python that imports real PyTorch")
    args = ap.parse_args()
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(64, 128),
        torch.nn.GELU(),
        torch.nn.Linear(128, 128),
        torch.nn.Tanh(),
        torch.nn.Linear(128, 10),
    )
    x, v = torch.randn(32, 64), torch.randn(32, 64)
    fwd = lambda: jvp(net, (x,), (v,))
    trick = lambda: AF.jvp(net, x, v, strict=True)
    torch.testing.assert_close(fwd()[1], trick()[1], rtol=1e-4, atol=1e-5)
    n = 100
    res = {
        "forward_us": min(timeit.repeat(fwd, number=n, repeat=5)) / n * 1e6,
        "double_vjp_us": min(timeit.repeat(trick, number=n, repeat=5)) / n * 1e6,
    }
    if args.oracle:
        out = subprocess.run([args.oracle, "-c", ORACLE_SCRIPT], capture_output=True, text=True, check=False)
        if out.returncode == 0:
            res.update(json.loads(out.stdout.strip().splitlines()[-1]))
    print(
        f"MLP 64-128-128-10, batch 32: forward mode {res['forward_us']:.1f} us, double-vjp {res['double_vjp_us']:.1f} us"
    )
    print(f"  double-vjp / forward: {res['double_vjp_us'] / res['forward_us']:.2f}x")
    if "torch_forward_us" in res:
        print(f"  PyTorch forward AD {res['torch_forward_us']:.1f} us; ours / PyTorch: "
              f"{res['forward_us'] / res['torch_forward_us']:.2f}x")  # fmt: skip
    op_rows(args.oracle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
