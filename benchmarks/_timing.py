"""Timing shared by the benchmarks: calibrated loop counts, interleaved repeats, medians, readable units, and
the per-library worker processes of the side-by-side benchmarks."""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import timeit


def _nothing():
    pass


def loops_for(fn, min_time, warmup=5, cap=1 << 24, sync=_nothing):
    """How many calls of fn fill about min_time seconds (after warm-up calls); sync waits for queued work."""
    timer = timeit.Timer(fn)
    for _ in range(warmup):
        fn()
    sync()
    number = 1
    while True:
        t0 = time.perf_counter()
        timer.timeit(number)
        sync()
        t = time.perf_counter() - t0
        if t >= min_time / 5 or number >= cap:
            break
        number *= 2
    return max(1, int(number * min_time / max(t, 1e-9)))


def bench(cases, repeats, min_time, sync=None):
    """cases: {column: fn}; repeats interleaved (A, B, A, B ...) so drift hits every column alike; the median
    seconds per call of each column. sync: {column: fn} that waits for the column's queued device work (CUDA),
    called once after each timed batch, so a batch measures throughput, not one launch's latency."""
    sync = sync or {}
    loops = {k: loops_for(fn, min_time, sync=sync.get(k, _nothing)) for k, fn in cases.items()}
    samples = {k: [] for k in cases}
    for _ in range(repeats):
        for k, fn in cases.items():
            s = sync.get(k, _nothing)
            t0 = time.perf_counter()
            timeit.Timer(fn).timeit(loops[k])
            s()
            samples[k].append((time.perf_counter() - t0) / loops[k])
    return {k: statistics.median(s) for k, s in samples.items()}


def cuda_sync(device, minitorch, real_torch):
    """print_ratio_table's sync for a device: on CUDA each library's synchronize (PyTorch's where it is
    installed), on the CPU none."""
    if device != "cuda":
        return None
    sync = {"minitorch": minitorch.cuda.synchronize}
    if real_torch is not None:
        sync["torch"] = real_torch.cuda.synchronize
    return sync


def print_ratio_table(cases, repeats, min_time, first="op", numpy_name="NumPy", sync=None):
    """Times each case's {"minitorch", "numpy", "torch"} callables (the last two optional) with bench() and prints
    a markdown row per case: minitorch's time, then each other library's time and its ratio to minitorch's.
    sync: {library: fn} waiting for that library's queued device work (bench()'s)."""
    print("median of interleaved repeats; ratio = other / minitorch\n")
    print(f"| {first} | minitorch | {numpy_name} | NumPy/mt | PyTorch | torch/mt |")
    print("|---|---|---|---|---|---|")
    for name, fns in cases.items():
        t = bench(fns, repeats, min_time, sync)
        mt = t["minitorch"]
        cols = []
        for lib in ("numpy", "torch"):
            cols += [fmt(t[lib]), f"{t[lib] / mt:.2f}"] if lib in t else ["-", "-"]
        print(f"| {name} | {fmt(mt)} | " + " | ".join(cols) + " |")


def ratio_table_main(description, cases, threads, min_time=0.1):
    """The command line of a print_ratio_table benchmark: --repeats and --min-time, a line naming the CPU and
    minitorch's thread count, then the table of cases() (a function: the cases are built after the parsing)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=min_time)
    args = ap.parse_args()
    print(f"{platform.processor() or platform.machine()}, {threads} threads")
    print_ratio_table(cases(), args.repeats, args.min_time)


def add_sampling_options(ap, repeats=5, gap=0.2):
    """The options of interleaved sampling shared by the side-by-side benchmarks."""
    ap.add_argument("--repeats", type=int, default=repeats, help="timed samples per library and case")
    ap.add_argument(
        "--gap", type=float, default=gap, help="seconds of pause before each sample (other pools go idle)"
    )


def interleaved_samples(workers, case, loops, repeats, gap, **extra):
    """{worker name: [sample, ...]}: `repeats` rounds, each asking every worker in turn for one timed sample of
    `case` (loops[name] calls), so drift and load hit every library alike. Before each sample a pause of `gap`
    seconds: the previous library's OpenMP threads keep spinning after its sample (PyTorch's libgomp for up to
    ~0.2 s), and the pause lets them sleep so they do not take a core from this one. `extra`: more fields of
    the workers' time request (bench_vs_torch_cpu.py's cpu)."""
    samples = {w.name: [] for w in workers}
    for _ in range(repeats):
        for w in workers:
            if gap > 0:
                time.sleep(gap)
            samples[w.name].append(w.ask(op="time", case=case, loops=loops[w.name], **extra))
    return samples


def fmt(s):
    """Seconds in us / ms / s; '-' for a missing measurement."""
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def report(ratios, results, json_path):
    """The closing lines of a side-by-side run: geometric mean of R = t_torch / t_minitorch, the rows below 1 and
    the load; the results as JSON when asked."""
    if ratios:
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(
            f"\ngeometric mean R = {gm:.2f} over {len(ratios)} cases; {sum(r < 1 for r in ratios)} below 1; "
            f"load {os.getloadavg()[0]:.1f} at end"
        )
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)


class Worker:
    """One library's benchmark process (`script --worker name`), answering JSON commands line by line."""

    def __init__(self, name, python, env, script):
        self.name = name
        self.p = subprocess.Popen(
            [python, os.path.abspath(script), "--worker", name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def ask(self, **cmd):
        self.p.stdin.write(json.dumps(cmd) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name} worker died")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def find_torch_python(arg):
    """A Python that imports torch: the one given, the oracle venv, or this one; None when there is none."""
    for py in [arg, "/tmp/tv/bin/python", sys.executable]:
        if py and os.path.exists(py):
            r = subprocess.run([py, "-c", "import torch"], capture_output=True, check=False)
            if r.returncode == 0:
                return py
    return None


def thread_cpu_min(fn, number, repeat):
    """fn's best time per call in the calling thread's CPU time (a loaded machine's waits are not counted)."""
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=time.thread_time)) / number


def capability_main(script, doc, child, header="op", caps="avx2,avx512", number=100, repeat=7):
    """The driver of the per-capability ratio tables (bench_unary_f32, bench_act_rows, bench_special_gaps): one
    child process per MINITORCH_CPU_CAPABILITY (ATEN_CPU_CAPABILITY set alike) runs child(number, repeat, only)
    and prints {"caps": [ours, PyTorch's], "rows": [[name, our us, PyTorch's us], ...]} as JSON; the parent
    prints a markdown table with R = PyTorch time / ours. --baseline DIR (a directory holding another build's
    minitorch package) runs a second child per capability on that build, right after ours, and adds its time
    and its R (each against PyTorch timed in its own child) as columns."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--caps", default=caps)
    ap.add_argument("--number", type=int, default=number)
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("-k", default="", help="only rows whose names contain one of these (comma separated)")
    ap.add_argument("--baseline", help="a directory holding another build's minitorch package")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    only = [s for s in args.k.split(",") if s]
    if args.child:
        return child(args.number, args.repeat, only)
    extra = " baseline (us) | R baseline |" if args.baseline else ""
    print(f"| {header} | capability (ours / PyTorch's) | minitorch (us) | PyTorch (us) | R |{extra}")
    print("|---|---|---|---|---|" + ("---|---|" if args.baseline else ""))
    cmd = [sys.executable, script, "--child", "--number", str(args.number), "--repeat", str(args.repeat)]
    cmd += ["-k", args.k] if args.k else []
    for cap in args.caps.split(","):
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap, ATEN_CPU_CAPABILITY=cap, OMP_NUM_THREADS="1")
        res = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
        base_rows = [None] * len(res["rows"])
        if args.baseline:
            path = os.pathsep.join(p for p in (os.path.abspath(args.baseline), env.get("PYTHONPATH")) if p)
            out = subprocess.run(
                cmd, env=dict(env, PYTHONPATH=path), capture_output=True, text=True, check=True
            )
            base_rows = json.loads(out.stdout)["rows"]
        caps_taken = " / ".join(res["caps"])
        for (name, ours, theirs), base in zip(res["rows"], base_rows):
            line = f"| {name} | {caps_taken} | {ours:.1f} | {theirs:.1f} | {theirs / ours:.2f} |"
            if base is not None:
                line += f" {base[1]:.1f} | {base[2] / base[1]:.2f} |"
            print(line, flush=True)
