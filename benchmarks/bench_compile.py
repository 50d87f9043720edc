"""torch.compile against eager at inference (no_grad, float32, CPU), beside PyTorch's eager and torch.compile
where PyTorch is installed, for two GPT-2 pieces:

- mlp: Linear 768->3072, GPT-2's GELU written out with tanh (NewGELU: eight elementwise ops), Linear
  3072->768, dropout (eval), on a batch of 8x64 tokens;
- ln_residual: the residual sum x + dropout(eval)(h) and LayerNorm(768) of it, both returned (GPT-2's
  "x = x + drop(h); then ln(x)" step between blocks), on 8x64 tokens;
- gelu_break: NewGELU, a graph break (torch._dynamo.graph_break(), as a print or a .item() would make one),
  NewGELU again, on 8x64x768: compiled, two graphs around the break (each fused) instead of one;
- gelu_item: NewGELU, then ``gelu(h * h.abs().mean().item()) * 0.5``: a break in the middle of a statement
  (the first GELU and the mean in one graph, .item() eagerly, the second GELU in the next graph).

Each library runs in its own worker process; samples are interleaved (minitorch eager, minitorch compiled,
torch eager, torch compiled, ...) so load drifts hit every column alike. PyTorch's compile needs its own C++
toolchain setup: when it fails, the column says why. A report, not a test; the issue asks compiled > eager.

Usage: PYTHONPATH=python python benchmarks/bench_compile.py [--repeats 5] [--min-time 0.5] [--case mlp]
"""

import argparse
import json
import math
import os
import platform
import statistics
import sys
import timeit

from _timing import Worker, find_torch_python, fmt, interleaved_samples, loops_for

HERE = os.path.dirname(os.path.abspath(__file__))
B, T, C = 8, 64, 768


def build(t, case):
    """(eager fn, module) of a case for library t (minitorch or torch)."""
    nn = t.nn

    class NewGELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + t.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * t.pow(x, 3.0))))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(C, 4 * C)
            self.gelu = NewGELU()
            self.c_proj = nn.Linear(4 * C, C)
            self.dropout = nn.Dropout(0.1)

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class LNResidual(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(C)
            self.drop = nn.Dropout(0.1)

        def forward(self, x, h):
            x = x + self.drop(h)
            return x, self.ln(x)

    class GELUBreak(nn.Module):
        def __init__(self):
            super().__init__()
            self.gelu = NewGELU()

        def forward(self, x):
            h = self.gelu(x)
            t._dynamo.graph_break()
            return self.gelu(h) * 0.5

    class GELUItem(nn.Module):
        def __init__(self):
            super().__init__()
            self.gelu = NewGELU()

        def forward(self, x):
            h = self.gelu(x)
            # .item() mid-statement: the mean joins the first graph, the GELU after it the second
            return self.gelu(h * h.abs().mean().item()) * 0.5

    t.manual_seed(0)
    m = {"mlp": MLP, "ln_residual": LNResidual, "gelu_break": GELUBreak, "gelu_item": GELUItem}[case]().eval()
    x = t.randn(B, T, C)
    args = (x, t.randn(B, T, C)) if case == "ln_residual" else (x,)
    return m, args


CASES = ("mlp", "ln_residual", "gelu_break", "gelu_item")


def worker(name):
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints (compile logs) must not break the protocol
    if name.startswith("minitorch"):
        import minitorch as t

        compile_fn = t.compiler.compile
    else:
        import torch as t

        compile_fn = t.compile
    compiled = name.endswith("compiled")
    fns = {}
    for line in sys.stdin:
        cmd = json.loads(line)
        reply = None
        try:
            if cmd["op"] == "setup":
                if cmd.get("threads"):
                    t.set_num_threads(cmd["threads"])
                m, args = build(t, cmd["case"])
                run = compile_fn(m) if compiled else m

                def fn(run=run, args=args):
                    with t.no_grad():
                        return run(*args)

                with t.no_grad():
                    ref = m(*args)
                    got = fn()
                    got = fn()  # the second call runs the compiled graph
                pairs = list(zip(got, ref)) if isinstance(got, tuple) else [(got, ref)]
                err = max(float((a - b).abs().max()) for a, b in pairs)
                fns[cmd["case"]] = fn
                reply = {"loops": loops_for(fn, cmd["min_time"], warmup=3), "err": err}
                if name == "minitorch compiled":
                    k = getattr(run, "_mt_kernels", [])
                    reply["kernels"] = [f"{x.spec.kind}: {', '.join(x.ops)}" for x in k]
            elif cmd["op"] == "time":
                fn = fns[cmd["case"]]
                reply = timeit.Timer(fn).timeit(cmd["loops"]) / cmd["loops"]
            elif cmd["op"] == "info":
                reply = {
                    "version": t.__version__ if hasattr(t, "__version__") else "?",
                    "threads": t.get_num_threads(),
                }
        except Exception as e:  # noqa: BLE001  (a failing column reports why and the others go on)
            reply = {"error": f"{type(e).__name__}: {e}"[:300]}
        out.write(json.dumps(reply) + "\n")
        out.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--worker")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per sample (approximately)")
    ap.add_argument("--gap", type=float, default=0.2, help="pause before each sample (other pools go idle)")
    ap.add_argument("--case", choices=CASES, action="append")
    ap.add_argument("--threads", type=int, help="intra-op threads of every worker (default: the library's)")
    ap.add_argument("--torch-python", help="a Python with PyTorch (default: /tmp/tv/bin/python if present)")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    env = dict(os.environ)
    # a PYTHONPATH given first (an installed or overlay minitorch), then the source tree
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [env.get("PYTHONPATH"), os.path.join(HERE, "..", "python")] if p
    )
    workers = [
        Worker("minitorch eager", sys.executable, env, __file__),
        Worker("minitorch compiled", sys.executable, env, __file__),
    ]
    tpy = find_torch_python(args.torch_python)
    if tpy:
        workers += [Worker("torch eager", tpy, env, __file__), Worker("torch compiled", tpy, env, __file__)]
    info = {w.name: w.ask(op="info") for w in workers}
    print(
        f"CPU: {platform.machine()}, {os.cpu_count()} logical cores; load {os.getloadavg()[0]:.1f}; "
        + "; ".join(
            f"{k} {v.get('version')} ({v.get('threads')} threads)" for k, v in info.items() if "eager" in k
        )
    )
    print(
        f"batch {B}x{T} tokens, width {C}, float32, no_grad"
        + (f", {args.threads} thread(s) per worker" if args.threads else "")
        + f"; median of {args.repeats} interleaved samples\n"
    )
    print("| case | " + " | ".join(w.name for w in workers) + " | minitorch eager / compiled |")
    print("|---|" + "---|" * (len(workers) + 1))
    notes = []
    for case in args.case or CASES:
        loops, live = {}, []
        for w in workers:
            r = w.ask(op="setup", case=case, min_time=args.min_time, threads=args.threads)
            if isinstance(r, dict) and "error" in r:
                notes.append(f"{case}, {w.name}: {r['error']}")
                continue
            loops[w.name] = r["loops"]
            live.append(w)
            if r.get("err", 0) > 1e-3:
                notes.append(f"{case}, {w.name}: max |compiled - eager| = {r['err']:.2e}")
            if "kernels" in r:
                notes.append(f"{case}: minitorch kernels: {r['kernels']}")
        samples = interleaved_samples(live, case, loops, args.repeats, args.gap)
        med = {k: statistics.median(v) for k, v in samples.items()}
        ratio = "-"
        if "minitorch eager" in med and "minitorch compiled" in med:
            ratio = f"{med['minitorch eager'] / med['minitorch compiled']:.2f}x"
        print(f"| {case} | " + " | ".join(fmt(med.get(w.name)) for w in workers) + f" | {ratio} |")
    for w in workers:
        w.close()
    if notes:
        print()
        for n in notes:
            print(f"- {n}")
    print(f"\nload {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
