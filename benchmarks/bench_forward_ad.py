"""Forward-mode AD benchmark: jvp of a small MLP by forward mode vs the double-vjp trick vs PyTorch's forward AD.

Run: PYTHONPATH=python python benchmarks/bench_forward_ad.py [--oracle /path/to/python-with-torch]
Reports microseconds per jvp and ratios (not pass/fail).
"""

import argparse
import json
import subprocess
import sys
import timeit

import minitorch as torch
from minitorch.autograd import functional as AF
from minitorch.func import jvp

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
