"""The real programs of tests/integration/programs, each run unchanged under minitorch and under PyTorch in turn.

For each program: the run's wall time after `import torch` (the import timed apart: PyTorch's takes seconds) and,
where the program trains with a torch.optim optimizer, the median time of one training iteration (between the
ends of successive optimizer steps, the first three left out as warm-up). R = PyTorch's time / minitorch's
(above 1: minitorch is faster). The two libraries run one after the other per program, each in its own process
(benchmarks/_program_runner.py), so load drifts hit both alike; --repeats takes the minimum of several runs.
Times are the process's CPU time by default (--clock cpu: on the shared 2-vCPU machines wall time under load
moved `import torch` from 2 to 30 s); --clock wall for an idle machine or programs whose work is in DataLoader
worker processes, which CPU time leaves out.

A report, not a test. Usage:
  PYTHONPATH=python python benchmarks/bench_programs.py [--threads 1] [--repeats 1] [-k name,...] [--clock cpu]
      [--torch-python /tmp/tv/bin/python] [--table out.md] [--json out.json]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PROGRAMS = os.path.join(REPO, "tests", "integration", "programs")
RUNNER = os.path.join(HERE, "_program_runner.py")
WARMUP = 3


def programs(only):
    names = sorted(
        f[:-3]
        for f in os.listdir(PROGRAMS)
        if f.endswith(".py") and not f.startswith("_") and f != "as_torch.py"
    )
    return [n for n in names if not only or any(k in n for k in only)]


def run_one(python, lib, name, threads, timeout, clock):
    """(result dict, None) or (None, the failure's last output lines)."""
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # both from bytecode, as an installed package runs
    if lib == "minitorch":
        env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    else:  # PyTorch's own interpreter, none of our paths
        env.pop("PYTHONPATH", None)
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    try:
        proc = subprocess.run(
            [python, RUNNER, lib, os.path.join(PROGRAMS, name + ".py"), out, clock],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if proc.returncode != 0:
            return None, (proc.stdout + proc.stderr).strip().splitlines()[-1:]
        with open(out) as f:
            return json.load(f), None
    except subprocess.TimeoutExpired:
        return None, [f"timeout after {timeout} s"]
    finally:
        os.unlink(out)


def step_time(result):
    stamps = result["steps"]
    gaps = [b - a for a, b in zip(stamps, stamps[1:])][WARMUP:]
    return statistics.median(gaps) if gaps else None


def best(runs):
    """The fastest of repeated runs: least run time, least median step."""
    steps = [s for s in (step_time(r) for r in runs) if s is not None]
    return {
        "import_s": min(r["import_s"] for r in runs),
        "run_s": min(r["run_s"] for r in runs),
        "step_s": min(steps) if steps else None,
        "steps": len(runs[0]["steps"]),
    }


def fmt_s(s):
    if s is None:
        return "-"
    return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("-k", default="", help="comma-separated substrings of program names")
    ap.add_argument("--torch-python", default="/tmp/tv/bin/python")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    ap.add_argument("--table")
    ap.add_argument("--json")
    args = ap.parse_args()
    if not os.path.exists(args.torch_python):
        sys.exit(
            f"bench_programs needs a Python with PyTorch (--torch-python; {args.torch_python} is missing)"
        )
    names = programs([k for k in args.k.split(",") if k])
    # PyTorch's wheel ships its bytecode; ours is compiled here once, so no run pays Python's compiler
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", os.path.join(REPO, "python", "minitorch")], check=True
    )
    lines = [
        f"# {platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at start, {args.threads} thread(s), {args.clock} time",
        "| program | steps | minitorch run | PyTorch run | R run | minitorch step | PyTorch step | R step |",
        "|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    report, r_runs, r_steps = {}, [], []
    for name in names:
        results = {"minitorch": [], "torch": []}
        failed = {}
        for _ in range(args.repeats):
            for lib, python in (("minitorch", sys.executable), ("torch", args.torch_python)):
                if lib in failed:
                    continue
                res, err = run_one(python, lib, name, args.threads, args.timeout, args.clock)
                if res is None:
                    failed[lib] = err
                else:
                    results[lib].append(res)
        if failed:
            line = f"| {name} | failed: " + "; ".join(
                f"{lib}: {' '.join(e)[:120]}" for lib, e in failed.items()
            )
            line += " | | | | | | |"
            report[name] = {"failed": failed}
        else:
            mt, pt = best(results["minitorch"]), best(results["torch"])
            r_run = pt["run_s"] / mt["run_s"]
            r_runs.append(r_run)
            r_step = None
            if mt["step_s"] and pt["step_s"]:
                r_step = pt["step_s"] / mt["step_s"]
                r_steps.append(r_step)
            line = (
                f"| {name} | {mt['steps']} | {fmt_s(mt['run_s'])} | {fmt_s(pt['run_s'])} | {r_run:.2f} | "
                f"{fmt_s(mt['step_s'])} | {fmt_s(pt['step_s'])} | {'-' if r_step is None else f'{r_step:.2f}'} |"
            )
            report[name] = {"minitorch": mt, "torch": pt, "r_run": r_run, "r_step": r_step}
        lines.append(line)
        print(line, flush=True)

    def gmean(v):
        return statistics.geometric_mean(v) if v else float("nan")

    tail = (
        f"\ngeometric mean R run {gmean(r_runs):.2f} over {len(r_runs)} programs ({sum(r < 1 for r in r_runs)} below 1);"
        f" R step {gmean(r_steps):.2f} over {len(r_steps)} ({sum(r < 1 for r in r_steps)} below 1)"
    )
    lines.append(tail)
    print(tail)
    if args.table:
        with open(args.table, "w") as f:
            f.write("\n".join(lines) + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
