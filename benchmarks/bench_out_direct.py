"""Issue 32's out= rows of the non-elementwise ops at one thread beside PyTorch: index_select, gather, tril/triu,
cat and stack, then clamp/clip, lerp, addcmul/addcdiv, take and the reductions along a dim (var/std/nansum too), writing into a
preallocated out of the result's shape (bind_out.cpp's direct paths: the kernel writes into out) against the
general path's temporary and copy, which a --baseline build still takes; and the products' rows (GEMM_CASES:
mm/bmm/mv/dot/matmul/addmm/addmv/baddbmm/outer with out=, plain mm/bmm/mv beside them, topk, cross). One
process per CPU capability, each timed in the calling thread's CPU time (min of repeats).

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_out_direct.py [--caps avx2] [--baseline DIR]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python)."""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main, thread_cpu_min

# (name, timed expression over torch, x, y [n, m] float32, idx (n reversed), gi [n, m] int64 and o, the out
# of shape key)
CASES = [
    ("index_select(x, 0, idx, out=o)", "torch.index_select(x, 0, idx, out=o)", "o"),
    ("gather(x, 1, gi, out=o)", "torch.gather(x, 1, gi, out=o)", "o"),
    ("triu(x, out=o)", "torch.triu(x, out=o)", "o"),
    ("tril(x, 1, out=o)", "torch.tril(x, 1, out=o)", "o"),
    ("triu(x, out=o[:, 1:]) strided out", "torch.triu(x, out=o[:, 1:])", "w"),
    ("cat([x, y], out=o)", "torch.cat([x, y], out=o)", "c"),
    ("cat([x, y], 1, out=o)", "torch.cat([x, y], 1, out=o)", "c1"),
    ("stack([x, y], out=o)", "torch.stack([x, y], out=o)", "s"),
]
SIZES = [(64, 64), (512, 512)]

# out27's rows: clamp/clip, lerp, addcmul/addcdiv, take and the reductions along a dim (bind_out.cpp's
# try_direct_result, _composite_math.py's _addc), over x, y, w (in [0.1, 0.9]), lo/hi (bounds of x's shape),
# ti (n * m // 4 flat indices); out o of shape key t [n * m // 4], r0 [m], r1 [n] or r1k [n, 1]
POINTWISE_REDUCE_CASES = [
    ("clamp(x, -0.5, 0.5, out=o)", "torch.clamp(x, -0.5, 0.5, out=o)", "o"),
    ("clip(x, lo, hi, out=o)", "torch.clip(x, lo, hi, out=o)", "o"),
    ("lerp(x, y, 0.3, out=o)", "torch.lerp(x, y, 0.3, out=o)", "o"),
    ("lerp(x, y, w, out=o)", "torch.lerp(x, y, w, out=o)", "o"),
    ("addcmul(x, y, w, value=0.5, out=o)", "torch.addcmul(x, y, w, value=0.5, out=o)", "o"),
    ("addcdiv(x, y, w, value=0.5, out=o)", "torch.addcdiv(x, y, w, value=0.5, out=o)", "o"),
    ("take(x, ti, out=o)", "torch.take(x, ti, out=o)", "t"),
    ("sum(x, 0, out=o)", "torch.sum(x, 0, out=o)", "r0"),
    ("sum(x, 1, out=o)", "torch.sum(x, 1, out=o)", "r1"),
    ("mean(x, 1, keepdim=True, out=o)", "torch.mean(x, 1, keepdim=True, out=o)", "r1k"),
    ("prod(x, 1, out=o)", "torch.prod(x, 1, out=o)", "r1"),
    ("amax(x, 0, out=o)", "torch.amax(x, 0, out=o)", "r0"),
    ("amin(x, 1, out=o)", "torch.amin(x, 1, out=o)", "r1"),
    ("logsumexp(x, 1, out=o)", "torch.logsumexp(x, 1, out=o)", "r1"),
    ("var(x, 1, out=o)", "torch.var(x, 1, out=o)", "r1"),
    ("std(x, 0, correction=0, out=o)", "torch.std(x, 0, correction=0, out=o)", "r0"),
    ("nansum(x, 1, out=o)", "torch.nansum(x, 1, out=o)", "r1"),
    ("take(x, ti.abs(), out=o) non-negative", "torch.take(x, tp, out=o)", "t"),
]


def pointwise_reduce_inputs(rng, n, m):
    """The arrays and out shapes POINTWISE_REDUCE_CASES read, beside the first rows' (NumPy, made once per size)."""
    wa = rng.uniform(0.1, 0.9, (n, m)).astype(np.float32)
    lo = rng.uniform(-1.0, 0.0, (n, m)).astype(np.float32)
    ti = rng.integers(-n * m, n * m, n * m // 4)
    arrays = {"w": wa, "lo": lo, "hi": lo + 1.0, "ti": ti, "tp": abs(ti)}
    return arrays, {"t": (n * m // 4,), "r0": (m,), "r1": (n,), "r1k": (n, 1)}


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    rng = np.random.default_rng(0)
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    for n, m in SIZES:
        xa, ya = (rng.standard_normal((n, m)).astype(np.float32) for _ in range(2))
        gia = rng.integers(0, m, (n, m))
        outs = {"o": (n, m), "w": (n, m + 1), "c": (2 * n, m), "c1": (n, 2 * m), "s": (2, n, m)}
        extra, extra_outs = pointwise_reduce_inputs(rng, n, m)
        outs.update(extra_outs)
        for name, expr, o in CASES + POINTWISE_REDUCE_CASES:
            label = f"{name} [{n}, {m}] f32"
            if only and not any(k in label for k in only):
                continue
            t = {}
            for lib, torch in (("minitorch", minitorch), ("torch", real)):
                env = {
                    "torch": torch,
                    "x": torch.from_numpy(xa.copy()),
                    "y": torch.from_numpy(ya.copy()),
                    "idx": torch.arange(n - 1, -1, -1),
                    "gi": torch.from_numpy(gia.copy()),
                }
                env.update({k: torch.from_numpy(a.copy()) for k, a in extra.items()})
                env["o"] = torch.empty(outs[o])
                fn = eval("lambda: " + expr, env)
                try:
                    fn()
                except TypeError:  # out= a baseline build does not take yet (nansum's)
                    t[lib] = float("nan")
                    continue
                t[lib] = thread_cpu_min(fn, max(1, number * 64 * 64 // (n * m)), repeat)
            out["rows"].append([label, t["minitorch"] * 1e6, t["torch"] * 1e6])
    out["rows"] += gemm_rows(minitorch, real, number, repeat, only)
    print(json.dumps(out))


# The products (bind_out.cpp's try_direct_gemm, _scaled_gemm_out), topk and cross at square sizes n: (name,
# timed expression over torch, a, b [n, n], v [n], ba, bb [8, n, n], t [64, 100], x3, y3 [1000, 3], and the
# outs o [n, n], vo [n], bo [8, n, n], s (0-dim), tv/ti [64, 5], co [1000, 3]).
GEMM_CASES = [
    ("mm(a, b)", "torch.mm(a, b)"),
    ("mm(a, b, out=o)", "torch.mm(a, b, out=o)"),
    ("mm(a, b, out=o.t()) transposed out", "torch.mm(a, b, out=ot)"),
    ("matmul(a, b, out=o)", "torch.matmul(a, b, out=o)"),
    ("addmm(a, a, b, out=o)", "torch.addmm(a, a, b, out=o)"),
    ("bmm(ba, bb)", "torch.bmm(ba, bb)"),
    ("bmm(ba, bb, out=bo)", "torch.bmm(ba, bb, out=bo)"),
    ("baddbmm(ba, ba, bb, out=bo)", "torch.baddbmm(ba, ba, bb, out=bo)"),
    ("mv(a, v)", "torch.mv(a, v)"),
    ("mv(a, v, out=vo)", "torch.mv(a, v, out=vo)"),
    ("addmv(v, a, v)", "torch.addmv(v, a, v)"),
    ("addmv(v, a, v, out=vo)", "torch.addmv(v, a, v, out=vo)"),
    ("dot(v, v, out=s)", "torch.dot(v, v, out=s)"),
    ("outer(v, v, out=o)", "torch.outer(v, v, out=o)"),
]
GEMM_SIZES = [4, 16, 64]
# size-independent rows, once
OTHER_CASES = [
    ("topk(t, 5) [64, 100] f32", "torch.topk(t, 5)"),
    ("topk(t, 5, out=(tv, ti)) [64, 100] f32", "torch.topk(t, 5, out=(tv, ti))"),
    ("cross(x3, y3, dim=1) [1000, 3] f32", "torch.cross(x3, y3, dim=1)"),
    ("linalg.cross(x3, y3) [1000, 3] f32", "torch.linalg.cross(x3, y3)"),
    ("linalg.cross(x3, y3, out=co) [1000, 3] f32", "torch.linalg.cross(x3, y3, out=co)"),
    ("linalg.cross(x3[:8], y3[:8], out=co8) [8, 3] f32", "torch.linalg.cross(x3[:8], y3[:8], out=co8)"),
]


def gemm_rows(minitorch, real, number, repeat, only):
    import numpy as np

    rng = np.random.default_rng(1)
    t_a, x3_a, y3_a = (rng.standard_normal(s).astype(np.float32) for s in ((64, 100), (1000, 3), (1000, 3)))
    rows = []
    for n in GEMM_SIZES + [None]:
        cases = GEMM_CASES if n else OTHER_CASES
        m = n or 1
        arrays = {
            k: rng.standard_normal(s).astype(np.float32) for k, s in (("a", (m, m)), ("b", (m, m)), ("v", m))
        }
        arrays.update(
            ba=rng.standard_normal((8, m, m)).astype(np.float32),
            bb=rng.standard_normal((8, m, m)).astype(np.float32),
        )
        for name, expr in cases:
            label = f"{name} [{n}, {n}] f32" if n else name
            if only and not any(k in label for k in only):
                continue
            t = {}
            for lib, torch in (("minitorch", minitorch), ("torch", real)):
                env = {k: torch.from_numpy(a.copy()) for k, a in arrays.items()}
                env.update(torch=torch, t=torch.from_numpy(t_a.copy()), x3=torch.from_numpy(x3_a.copy()))
                env.update(y3=torch.from_numpy(y3_a.copy()), o=torch.empty(m, m), ot=torch.empty(m, m).t())
                env.update(
                    vo=torch.empty(m), bo=torch.empty(8, m, m), s=torch.empty(()), co=torch.empty(1000, 3)
                )
                env.update(
                    co8=torch.empty(8, 3), tv=torch.empty(64, 5), ti=torch.empty(64, 5, dtype=torch.int64)
                )
                fn = eval("lambda: " + expr, env)
                fn()
                t[lib] = thread_cpu_min(fn, max(1, number * 4 * 64 // (m * m)) if n else number, repeat)
            rows.append([label, t["minitorch"] * 1e6, t["torch"] * 1e6])
    return rows


def main():
    capability_main(__file__, __doc__, child, number=400)


if __name__ == "__main__":
    main()
