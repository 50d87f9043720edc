"""Instructions per call of minitorch calls on tiny tensors under valgrind's callgrind: exact counts, immune to
the machine's load, to compare two builds of the bindings (one column per --pythonpath) where wall-clock
differences of a few ns drown in noise.

    python benchmarks/callcount.py [--n 20000] [--only clamp_min,zeros] [--pythonpath DIR ...]

Each case runs N times in one loop; callgrind zeroes its counters on entering os.getppid (called just before the
loop) and dumps them on entering os.getpgrp (just after), so each loop's count is exact and excludes the import.
A row is (loop count - the empty loop's count) / N: the call's own instructions, the Python loop excluded.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

# name, setup (run once, names the objects the statement reads), statement (run N times)
SETUP = """
import minitorch as torch
from minitorch import _C
x = torch.rand(3)
y = torch.rand(3)
o = torch.empty(3)
t = torch.tensor(0.5)
m = x > 0.5
p = torch.tensor([0.2, 0.3, 0.5])
clamp_min, clamp_max, lerp, masked_fill, detach = (
    torch.clamp_min, torch.clamp_max, torch.lerp, torch.masked_fill, torch.detach)
zeros, ones, rand, randn = torch.zeros, torch.ones, torch.rand, torch.randn
zeros_like, ones_like, empty_like, rand_like, randn_like = (
    torch.zeros_like, torch.ones_like, torch.empty_like, torch.rand_like, torch.randn_like)
multinomial, add, neg = torch.multinomial, torch.add, torch.neg
softplus, leaky_relu, hardshrink, threshold = _C.softplus, _C.leaky_relu, _C._hardshrink, _C._threshold
nan_to_num, addc, where = _C._nan_to_num, _C._addc, _C._where
randint, empty, g = torch.randint, torch.empty, torch.Generator()
cl = torch.channels_last
w = torch.rand(3, requires_grad=True)
linspace, logspace = torch.linspace, torch.logspace
o5 = torch.empty(5)  # linspace's out=, of its size (a resized o would break the cases after it)
clamp, clip, result_type = torch.clamp, torch.clip, torch.result_type
xm, x1 = torch.rand(3, 4), torch.rand(1, 3, 1)
transpose, squeeze = torch.transpose, torch.squeeze
x4, o4 = torch.rand(4, 4), torch.empty(4)
xo = torch.empty(4, 4)
sum_, max_, tril_indices = torch.sum, torch.max, torch.tril_indices
addmm, addmv, addcmul = torch.addmm, torch.addmv, torch.addcmul
"""

CASES = [
    ("empty loop", "pass"),
    # controls: bindings the generator did not touch
    ("add(x, y)", "add(x, y)"),
    # the scaled products, whose deprecated scalars-first forms are tried only once a call fails
    ("addmm(x4, x4, x4)", "addmm(x4, x4, x4)"),
    ("addmm(x4, x4, x4, beta=0.5)", "addmm(x4, x4, x4, beta=0.5)"),
    ("x4.addmm(x4, x4)", "x4.addmm(x4, x4)"),
    ("addmm(x4, x4, x4, out=xo)", "addmm(x4, x4, x4, out=xo)"),
    ("addmv(o4, x4, o4)", "addmv(o4, x4, o4)"),
    ("addcmul(x, y, y, value=2)", "addcmul(x, y, y, value=2)"),
    ("neg(x)", "neg(x)"),
    ("x.neg()", "x.neg()"),
    # the moved bindings
    ("clamp_min(x, 0.5)", "clamp_min(x, 0.5)"),
    ("clamp_min(x, t)", "clamp_min(x, t)"),
    ("x.clamp_min(0.5)", "x.clamp_min(0.5)"),
    ("clamp_max(x, 0.5)", "clamp_max(x, 0.5)"),
    ("clamp_min(x, 0.5, out=o)", "clamp_min(x, 0.5, out=o)"),
    ("lerp(x, y, 0.5)", "lerp(x, y, 0.5)"),
    ("x.lerp(y, t)", "x.lerp(y, t)"),
    ("lerp(x, y, 0.5, out=o)", "lerp(x, y, 0.5, out=o)"),
    ("masked_fill(x, m, 1.0)", "masked_fill(x, m, 1.0)"),
    ("x.masked_fill(m, 1.0)", "x.masked_fill(m, 1.0)"),
    ("o.masked_fill_(m, 1.0)", "o.masked_fill_(m, 1.0)"),
    ("detach(x)", "detach(x)"),
    ("x.detach()", "x.detach()"),
    ("x.detach_()", "x.detach_()"),
    ("_C.softplus(x)", "softplus(x)"),
    ("_C.softplus(x, 2.0, 10.0)", "softplus(x, 2.0, 10.0)"),
    ("_C.leaky_relu(x, 0.1)", "leaky_relu(x, 0.1)"),
    ("_C._hardshrink(x, 0.5)", "hardshrink(x, 0.5)"),
    ("_C._threshold(x, 0.5, 0.0)", "threshold(x, 0.5, 0.0)"),
    ("_C._nan_to_num(x, 0., 1., -1.)", "nan_to_num(x, 0.0, 1.0, -1.0)"),
    ("_C._addc(x, y, y, 0.5, False)", "addc(x, y, y, 0.5, False)"),
    ("_C._where(m, x, 0.0)", "where(m, x, 0.0)"),
    ("zeros(3)", "zeros(3)"),
    ("zeros(2, 3)", "zeros(2, 3)"),
    ("zeros((2, 3))", "zeros((2, 3))"),
    ("zeros(3, dtype=float64)", "zeros(3, dtype=torch.float64)"),
    ("zeros(3, out=o)", "zeros(3, out=o)"),
    ("ones(3)", "ones(3)"),
    ("rand(3)", "rand(3)"),
    ("randn(3)", "randn(3)"),
    ("zeros_like(x)", "zeros_like(x)"),
    ("ones_like(x)", "ones_like(x)"),
    ("empty_like(x)", "empty_like(x)"),
    ("rand_like(x)", "rand_like(x)"),
    ("randn_like(x)", "randn_like(x)"),
    ("zeros_like(x, dtype=float64)", "zeros_like(x, dtype=torch.float64)"),
    ("multinomial(p, 1)", "multinomial(p, 1)"),
    ("p.multinomial(2, True)", "p.multinomial(2, True)"),
    # the new-factories, randint, the in-place fills and empty, moved from hand bindings to rows
    ("x.new_zeros(3)", "x.new_zeros(3)"),
    ("x.new_zeros((2, 3))", "x.new_zeros((2, 3))"),
    ("x.new_zeros(3, dtype=float64)", "x.new_zeros(3, dtype=torch.float64)"),
    ("x.new_ones(3)", "x.new_ones(3)"),
    ("x.new_empty(3)", "x.new_empty(3)"),
    ("x.new_full((3,), 1.5)", "x.new_full((3,), 1.5)"),
    ("randint(5, (3,))", "randint(5, (3,))"),
    ("randint(2, 5, (3,))", "randint(2, 5, (3,))"),
    ("randint(5, (3,), generator=g)", "randint(5, (3,), generator=g)"),
    ("o.fill_(1.5)", "o.fill_(1.5)"),
    ("o.fill_(t)", "o.fill_(t)"),
    ("o.zero_()", "o.zero_()"),
    ("o.uniform_()", "o.uniform_()"),
    ("o.uniform_(0, 2)", "o.uniform_(0, 2)"),
    ("o.normal_()", "o.normal_()"),
    ("o.random_()", "o.random_()"),
    ("o.random_(5)", "o.random_(5)"),
    ("o.random_(2, 5)", "o.random_(2, 5)"),
    ("o.bernoulli_()", "o.bernoulli_()"),
    ("o.bernoulli_(0.5)", "o.bernoulli_(0.5)"),
    ("empty(3)", "empty(3)"),
    ("empty((2, 3))", "empty((2, 3))"),
    ("empty(3, dtype=float64)", "empty(3, dtype=torch.float64)"),
    ("empty(1, 2, 3, 4, memory_format=cl)", "empty(1, 2, 3, 4, memory_format=cl)"),
    # autograd: a tracked view (forward AD finds these when their base becomes dual) and a tiny backward
    ("x[1:] (a tracked view)", "x[1:]"),
    ("(w * x).sum().backward()", "(w * x).sum().backward()"),
    # linspace and logspace, moved to rows with Scalar|Tensor endpoints
    ("linspace(0, 1, 5)", "linspace(0, 1, 5)"),
    ("linspace(0.0, 1.0, 5, dtype=float64)", "linspace(0.0, 1.0, 5, dtype=torch.float64)"),
    ("linspace(t, 1, 5)", "linspace(t, 1, 5)"),
    ("linspace(0, 1, 5, out=o5)", "linspace(0, 1, 5, out=o5)"),
    ("logspace(0, 1, 5)", "logspace(0, 1, 5)"),
    ("logspace(0, 1, 5, 2.0)", "logspace(0, 1, 5, 2.0)"),
    # clamp/clip (two overloaded rows), Tensor.where and result_type, moved from hand bindings
    ("clamp(x, 0.25, 0.75)", "clamp(x, 0.25, 0.75)"),
    ("clamp(x, min=0.5)", "clamp(x, min=0.5)"),
    ("clamp(x, y, o)", "clamp(x, y, o)"),
    ("clamp(x, t, 1.0)", "clamp(x, t, 1.0)"),
    ("x.clamp(0.25, 0.75)", "x.clamp(0.25, 0.75)"),
    ("x.clamp(max=y)", "x.clamp(max=y)"),
    ("o.clamp_(0.0, 1.0)", "o.clamp_(0.0, 1.0)"),
    ("clip(x, 0.25, 0.75)", "clip(x, 0.25, 0.75)"),
    ("x.where(m, y)", "x.where(m, y)"),
    ("x.where(m, 0.0)", "x.where(m, 0.0)"),
    ("result_type(x, 1)", "result_type(x, 1)"),
    ("result_type(x, y)", "result_type(x, y)"),
    # the shape family's views (the hot path of indexing-heavy code), moved from bind_shape.cpp to rows
    ("xm.transpose(0, 1)", "xm.transpose(0, 1)"),
    ("transpose(xm, 0, 1)", "transpose(xm, 0, 1)"),
    ("xm.swapaxes(0, 1)", "xm.swapaxes(0, 1)"),
    ("xm.swapdims(0, 1)", "xm.swapdims(0, 1)"),
    ("xm.t()", "xm.t()"),
    ("xm.unsqueeze(0)", "xm.unsqueeze(0)"),
    ("x1.squeeze()", "x1.squeeze()"),
    ("x1.squeeze(0)", "x1.squeeze(0)"),
    ("x1.squeeze((0, 2))", "x1.squeeze((0, 2))"),
    ("squeeze(x1, 0)", "squeeze(x1, 0)"),
    ("xm.flatten()", "xm.flatten()"),
    ("xm.narrow(1, 0, 2)", "xm.narrow(1, 0, 2)"),
    ("xm.select(0, 1)", "xm.select(0, 1)"),
    ("xm.movedim(0, 1)", "xm.movedim(0, 1)"),
    ("xm.diagonal()", "xm.diagonal()"),
    ("xm.transpose_(0, 1)", "xm.transpose_(0, 1)"),
    ("x1.unsqueeze_(0).squeeze_(0)", "x1.unsqueeze_(0).squeeze_(0)"),
    # the operators and add/sub/div's keywords, bound from the schema's `operators:`/`keyword:` (issue 29)
    ("x + y", "x + y"),
    ("x * 2.0", "x * 2.0"),
    ("2.0 - x", "2.0 - x"),
    ("1 / x", "1 / x"),
    ("x / y", "x / y"),
    ("o += y", "z = o; z += y"),  # z: a local (o += y in the loop function would make o one)
    ("o *= 0.5", "z = o; z *= 0.5"),
    ("x == y", "x == y"),
    ("-x", "-x"),
    ("~m", "~m"),
    ("abs(x)", "abs(x)"),
    ("add(x, y, alpha=2)", "add(x, y, alpha=2)"),
    ("x.sub(y)", "x.sub(y)"),
    ("o.add_(y, alpha=0.5)", "o.add_(y, alpha=0.5)"),
    ("x.div(y, rounding_mode='floor')", "x.div(y, rounding_mode='floor')"),
    ("x.mul(y)", "x.mul(y)"),
    # the reductions and tril_indices, hand bindings declared as schema rows (issue 29)
    ("sum(x4)", "sum_(x4)"),
    ("x4.sum(0)", "x4.sum(0)"),
    ("sum(x4, 0, out=o4)", "sum_(x4, 0, out=o4)"),
    ("max(x4, 1)", "max_(x4, 1)"),
    ("x4.max()", "x4.max()"),
    ("max(x4, x4)", "max_(x4, x4)"),
    ("x4.mean()", "x4.mean()"),
    ("x4.std()", "x4.std()"),
    ("x4.amax(0)", "x4.amax(0)"),
    ("tril_indices(3, 3)", "tril_indices(3, 3)"),
]


def child(n, only):
    """Runs under callgrind: each case's loop between the zero (os.getppid) and the dump (os.getpgrp)."""
    scope = {}
    exec(SETUP, scope)  # noqa: S102 (the cases are this file's own text)
    for name, stmt in CASES:
        if only and name != "empty loop" and not any(o in name for o in only):
            continue
        code = compile(
            f"def run(r):\n    for _ in r:\n        {stmt}\n", f"<{name}>", "exec"
        )  # a function's loop: fast locals, as a benchmark's timeit loop
        exec(code, scope)  # noqa: S102
        run = scope["run"]
        run(range(50))  # warm caches (method cache, the allocator's free lists) outside the count
        r = range(n)
        os.getppid()
        run(r)
        os.getpgrp()
        print(name, flush=True)


def measure(pythonpath, n, only, keep=None):
    """{case name: instructions per call} of one build (PYTHONPATH=pythonpath); keep: a directory to leave the
    dumps in (cg.out.<k>, the k-th case run; callgrind_annotate reads them), else they are deleted."""
    out_dir = keep or tempfile.mkdtemp(prefix="callcount")
    os.makedirs(out_dir, exist_ok=True)
    try:
        env = dict(os.environ, PYTHONPATH=pythonpath, OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
        cmd = [
            "valgrind",
            "--tool=callgrind",
            "--zero-before=os_getppid",
            "--dump-before=os_getpgrp",
            f"--callgrind-out-file={out_dir}/cg.out",
            sys.executable,
            __file__,
            "--child",
            "--n",
            str(n),
            "--only",
            ",".join(only),
        ]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        names = proc.stdout.split("\n")[:-1]
        dumps = sorted(glob.glob(f"{out_dir}/cg.out.*"), key=lambda f: int(f.rsplit(".", 1)[1]))
        counts = []
        for path in dumps[: len(names)]:
            with open(path) as f:
                counts += [int(line.split()[1]) for line in f if line.startswith("summary:")]
        empty = counts[names.index("empty loop")]
        return {name: (c - empty) / n for name, c in zip(names, counts)}
    finally:
        if not keep:
            shutil.rmtree(out_dir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--only", default="", help="comma-separated substrings of the case names")
    ap.add_argument(
        "--pythonpath", action="append", help="a build's python/ directory (one column each; default: python)"
    )
    ap.add_argument("--keep", help="leave the callgrind dumps of the (one) build in this directory")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    only = [o for o in args.only.split(",") if o]
    if args.child:
        return child(args.n, only)
    paths = args.pythonpath or [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")]
    columns = [measure(p, args.n, only, args.keep if len(paths) == 1 else None) for p in paths]
    print(f"instructions per call (callgrind, N={args.n}, the empty loop subtracted)")
    for i, p in enumerate(paths):
        print(f"  [{i}] {p}")
    print(f"{'call':32}" + "".join(f"{'[' + str(i) + ']':>10}" for i in range(len(paths))))
    for name in columns[0]:
        if name == "empty loop":
            continue
        row = [c.get(name) for c in columns]
        cells = "".join(f"{v:10.0f}" if v is not None else f"{'-':>10}" for v in row)
        diff = f"{row[-1] - row[0]:+8.0f}" if len(row) > 1 and None not in row else ""
        print(f"{name:32}{cells}{diff}")


if __name__ == "__main__":
    main()
