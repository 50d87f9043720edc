"""The per-op speed sweep: every public op both libraries have, timed in minitorch and in PyTorch in one run.

The op list is generated, not written: the names are the common surface of the two libraries (the differential
fuzzer's `surface()`: torch functions, Tensor methods, nn.functional, special, linalg, nn modules) and each name's
call shape is one of the argument templates the fuzzer learned to be valid for it (tests/ops/difffuzz_templates.json,
refreshed by `tests/ops/difffuzz.py --calibrate`). So an op added to the API enters the sweep by itself. Each name is
timed at small (8x8: the per-call overhead), medium (256x256) and large (1024x1024) sizes, float32 and float64,
contiguous and transposed (strided), one library after the other per case so that load and drift hit both alike.
R = PyTorch's time / minitorch's (above 1: minitorch is faster).

A report, not a test. Usage:
  PYTHONPATH=python python benchmarks/bench_sweep.py [--sizes small,medium,large] [--dtypes float32,float64]
      [--layouts c,t] [--kinds torch,method,F,special,linalg,nn] [-k name,...] [--threads 1]
      [--json out.json] [--table out.md] [--torch-python /tmp/tv/bin/python] [--cpu-capability avx2]
In-place spellings (`x.add_`) are timed through their out-of-place twin when both exist (repeating an in-place
call drifts its values into subnormals and infinities, which times the libm slow paths instead of the op).
"""

import argparse
import json
import math
import os
import platform
import select
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "ops"))

SIZES = {"small": (8, 8), "medium": (256, 256), "large": (1024, 1024)}
# the argument kinds of the fuzzer's templates this sweep can give a deterministic benchmark-sized value
USABLE = set("TUBFMLlWVCdDiknszbyN")
# ops whose cost at 1024x1024 is a cubic decomposition, not a per-element pass: timed at small and medium only
CUBIC = (
    "linalg",
    "svd",
    "qr",
    "eig",
    "lstsq",
    "pinv",
    "inverse",
    "det",
    "cholesky",
    "lu",
    "solve",
    "matrix_",
)
# ops whose result holds the square of their input's elements (256x256 in, 65536x65536 = 17 GB out) or a cube
# of a side: timed at the sizes whose result fits the 2-vCPU machine's memory twice (one per library)
OUTER = {"diagflat": ("small",), "diag_embed": ("small", "medium")}


# ---------------------------------------------------------------------------------------------------------------
# The worker: one process per library; builds a case's arguments from its spec and times the call.


def _values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int64":
        return rng.integers(0, max(1, min(shape) if shape else 1), size=shape).astype(np.int64)
    # inside every float op's domain (log, acos, atanh, erfinv, sqrt, logit ...) and away from subnormals
    return rng.uniform(0.1, 0.9, size=shape).astype(dtype)


class Builder:
    def __init__(self, lib):
        self.lib = lib

    def tensor(self, shape, dtype, layout, seed):
        v = _values(shape, dtype, seed)
        if layout == "t" and len(shape) >= 2:
            t = self.lib.from_numpy(np.ascontiguousarray(v.transpose())).clone()
            return t.permute(*reversed(range(len(shape))))
        return self.lib.from_numpy(v).clone()

    def arg(self, kind, S, dtype, layout, seed, has_tensor):
        lib = self.lib
        n = len(S)
        if kind in "TUF":
            return self.tensor(S, dtype, layout, seed)
        if kind == "B":
            return self.tensor(S[-1:], dtype, "c", seed)
        if kind == "M":
            return lib.from_numpy(_values(S, "bool", seed))
        if kind == "L":
            return lib.from_numpy(_values(S, "int64", seed))
        if kind == "l":
            return lib.from_numpy(_values((S[-1],), "int64", seed) % max(1, min(S)))
        if kind == "W":
            return self.tensor((S[-1], S[-1]), dtype, "c", seed)
        if kind == "V":
            return self.tensor((S[-1],), dtype, "c", seed)
        if kind == "C":
            return [self.tensor(S, dtype, layout, seed + i) for i in range(3)]
        if kind == "d":
            return -1
        if kind == "D":
            return list(reversed(range(n)))
        if kind == "i":
            return 1
        if kind == "k":
            return 2
        if kind == "n":
            return 2 if has_tensor else S[-1]
        if kind == "s":
            return 0.5
        if kind == "z":
            return list(S)
        if kind == "b":
            return False
        if kind == "y":
            return getattr(lib, dtype)
        if kind == "N":
            return None
        raise ValueError(kind)

    def target(self, case):
        """(callable, args, kwargs) of one case"""
        lib = self.lib
        S, dtype, layout, tpl = tuple(case["shape"]), case["dtype"], case["layout"], case["template"]
        pos, _, kw = tpl.partition("|")
        kws = dict(item.split("=") for item in kw.split(",")) if kw else {}
        kind = case["kind"]
        if kind == "nn":
            return self.module(case, S, dtype, layout)
        if kind == "method":
            pos = "T" + pos
        has_tensor = any(c in "TUFBMLWVC" for c in pos)
        args = [self.arg(c, S, dtype, layout, 11 + i, has_tensor) for i, c in enumerate(pos)]
        kwargs = {
            k: self.arg(v, S, dtype, layout, 71 + i, has_tensor) for i, (k, v) in enumerate(kws.items())
        }
        if kind == "method":
            return getattr(args[0], case["name"]), args[1:], kwargs
        mod = {"torch": lib, "F": lib.nn.functional, "special": lib.special, "linalg": lib.linalg}[kind]
        return getattr(mod, case["name"]), args, kwargs

    def module(self, case, S, dtype, layout):
        """nn classes: the template's constructor ints become 16 channels/features; the input has 16 channels (or
        features, at rank 2) and about S's element count"""
        lib = self.lib
        ctor, _, fwd = case["template"].partition(">")
        cpos, _, ckw = ctor.partition("|")
        cargs = [16 if c in "kn" else self.arg(c, S, dtype, layout, 5, False) for c in cpos]
        ckws = {}
        for item in ckw.split(",") if ckw else []:
            k, v = item.split("=")
            ckws[k] = 1 if v == "k" else self.arg(v, S, dtype, layout, 6, False)
        mod = getattr(lib.nn, case["name"])(*cargs, **ckws).to(getattr(lib, dtype))
        numel = S[0] * S[1]
        rank = case["rank"]
        if rank == 2:  # (batch, features): Linear, LayerNorm(16), the losses
            shape = (max(2, numel // 16), 16)
        else:
            b = max(2, S[0] // 8)
            side = max(2, round((numel / (b * 16)) ** (1.0 / (rank - 2))))
            shape = (b, 16) + (side,) * (rank - 2)
        x = self.tensor(shape, dtype, "c", 3)
        extra = [x if c == "X" else self.arg(c, shape, dtype, "c", 9, True) for c in fwd[1:]]
        return mod, [x, *extra], {}


def _signature(r, lib):
    if isinstance(r, lib.Tensor):
        return [list(r.shape), str(r.dtype).split(".")[-1]]
    if isinstance(r, (tuple, list)):
        return [_signature(x, lib) for x in r[:4]]
    return type(r).__name__


def worker(name, threads):
    import warnings

    warnings.simplefilter("ignore")
    if name == "torch":
        import torch as lib
    else:
        import minitorch as lib
    lib.set_num_threads(threads)
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray prints of either library must not break the protocol
    sys.stdout = sys.stderr
    b = Builder(lib)
    current = None
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            if cmd["op"] == "info":
                reply = {
                    "version": lib.__version__,
                    "threads": lib.get_num_threads(),
                    "cpu": lib.backends.cpu.get_cpu_capability(),
                }
            elif cmd["op"] == "setup":
                fn, args, kwargs = b.target(cmd["case"])
                with lib.no_grad():
                    r = fn(*args, **kwargs)
                    if r is NotImplemented:  # an operator handed an operand it does not take
                        raise TypeError("NotImplemented")
                    t0 = time.perf_counter()
                    fn(*args, **kwargs)
                    one = time.perf_counter() - t0
                current = (fn, args, kwargs)
                loops = max(1, min(1 << 16, int(cmd["budget"] / max(one, 1e-7))))
                reply = {"loops": loops, "sig": _signature(r, lib)}
            elif cmd["op"] == "time":
                fn, args, kwargs = current
                with lib.no_grad():
                    t0 = time.perf_counter()
                    for _ in range(cmd["loops"]):
                        fn(*args, **kwargs)
                    reply = (time.perf_counter() - t0) / cmd["loops"]
        except Exception as e:  # noqa: BLE001 - a call this case's arguments do not fit: reported, not fatal
            reply = {"error": f"{type(e).__name__}: {e}"[:160]}
            current = None
        out.write(json.dumps(reply) + "\n")
        out.flush()


class Proc:
    """a library's worker, restarted when it dies or a call outlives the timeout"""

    def __init__(self, name, python, env, threads):
        self.name, self.python, self.env, self.threads = name, python, env, threads
        self.start()

    def start(self):
        self.p = subprocess.Popen(
            [self.python, __file__, "--worker", self.name, "--threads", str(self.threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=self.env,
        )

    def ask(self, timeout, **cmd):
        self.p.stdin.write(json.dumps(cmd) + "\n")
        self.p.stdin.flush()
        ready, _, _ = select.select([self.p.stdout], [], [], timeout)
        line = self.p.stdout.readline() if ready else ""
        if not line:
            self.p.kill()
            self.p.wait()
            self.start()
            return {"error": "timed out" if not ready else "worker died"}
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ---------------------------------------------------------------------------------------------------------------
# The driver: the generated case list, interleaved timing, the table.


def names_and_templates(mt_surface, pt_surface, kinds, only, exact=()):
    import difffuzz

    learned = difffuzz.load_templates()
    order = {t: i for i, t in enumerate(difffuzz.TEMPLATES + difffuzz.NN_TEMPLATES)}
    out = []
    for kind in kinds:
        common = sorted(set(mt_surface.get(kind, ())) & set(pt_surface.get(kind, ())))
        for name in common:
            if only and not any(o in name for o in only):
                continue
            if exact and name not in exact and f"{kind}.{name}" not in exact:
                continue
            if name.endswith("_") and not name.endswith("__") and name[:-1] in common:
                continue  # timed through its out-of-place twin
            if kind == "method" and name.startswith("__") and name not in difffuzz.DUNDERS:
                continue
            tpls = learned.get(f"{kind}:{name}", [])
            usable = []
            for t in tpls:
                pos, kws = difffuzz.parse(t.replace(">", ""))
                letters = set(pos) | set(kws.values())
                if kind == "nn" or (letters <= USABLE and (kind == "method" or t)):
                    usable.append(t)
            usable.sort(key=lambda t: order.get(t, 999))
            if usable:
                out.append((kind, name, usable))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sizes", default="small,medium,large")
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--layouts", default="c,t")
    ap.add_argument("--kinds", default="torch,method,F,special,linalg,nn")
    ap.add_argument("-k", default="", help="only names containing one of these (comma separated)")
    ap.add_argument(
        "--names",
        default="",
        help="only these names, exactly (comma separated; `F.gelu`, `nn.GELU` name one kind's op): "
        "re-timing a run's slow rows",
    )
    ap.add_argument("--budget", type=float, default=0.004, help="seconds per timed sample")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--torch-python", default=None)
    ap.add_argument(
        "--cpu-capability",
        default=None,
        help="avx2|avx512|default: both libraries' vector kernels at this instruction set "
        "(MINITORCH_CPU_CAPABILITY and PyTorch's ATEN_CPU_CAPABILITY)",
    )
    ap.add_argument("--json", default=None)
    ap.add_argument("--table", default=None, help="write the markdown table here (default: stdout)")
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.threads)

    from _timing import find_torch_python

    tpy = find_torch_python(args.torch_python)
    if tpy is None:
        sys.exit("bench_sweep needs a Python with PyTorch (--torch-python, or /tmp/tv/bin/python)")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [os.path.join(HERE, "..", "python"), env.get("PYTHONPATH")] if p
    )
    tenv = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    tenv["OMP_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(args.threads)
    if args.cpu_capability:
        # each library reads only its own variable: set both, so that a comparison at AVX2 on an AVX-512 CPU is
        # AVX2 against AVX2 (the info line shows what each side took). Neither variable reaches the libraries
        # under the two: PyTorch's MKL (its VML functions and GEMM), oneDNN, OpenBLAS and glibc's ifunc variants
        # pick their own code from the CPU on both sides (MKL_ENABLE_INSTRUCTIONS=SSE4_2 measured no change on
        # this AMD EPYC), so `default` holds the two libraries' own kernels to SSE2 and nothing below them
        env["MINITORCH_CPU_CAPABILITY"] = tenv["MINITORCH_CPU_CAPABILITY"] = args.cpu_capability
        env["ATEN_CPU_CAPABILITY"] = tenv["ATEN_CPU_CAPABILITY"] = args.cpu_capability
    mt = Proc("minitorch", sys.executable, env, args.threads)
    pt = Proc("torch", tpy, tenv, args.threads)
    procs = (mt, pt)
    info = {p.name: p.ask(120, op="info") for p in procs}
    took = {p: v.get("cpu") for p, v in info.items()}
    if args.cpu_capability and any(str(c).lower() != args.cpu_capability.lower() for c in took.values()):
        print(f"warning: asked for {args.cpu_capability}, the workers took {took}", file=sys.stderr)

    sys.path.insert(0, os.path.join(HERE, "..", "tests", "ops"))
    import difffuzz

    import minitorch

    # the torch surface comes from the torch worker's process: a one-off subprocess over the fuzzer's surface()
    code = "import sys, json; sys.path.insert(0, %r); import difffuzz, torch; print(json.dumps(difffuzz.surface(torch)))"
    pt_surface = json.loads(
        subprocess.run(
            [tpy, "-c", code % os.path.join(HERE, "..", "tests", "ops")],
            env=tenv,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    plan = names_and_templates(
        difffuzz.surface(minitorch),
        pt_surface,
        args.kinds.split(","),
        [o for o in args.k.split(",") if o],
        {o for o in args.names.split(",") if o},
    )
    sizes = args.sizes.split(",")
    dtypes = args.dtypes.split(",")
    layouts = args.layouts.split(",")

    rows, skipped = [], []
    t_start = time.time()
    # rows as they come: a cut run keeps them
    partial = open(args.json + ".partial", "w") if args.json else None  # noqa: SIM115 - closed after the loop
    for done, (kind, name, tpls) in enumerate(plan):
        if done % 25 == 0:
            print(
                f"[{done}/{len(plan)} names, {(time.time() - t_start) / 60:.1f} min]",
                file=sys.stderr,
                flush=True,
            )
        chosen = None  # the first template both libraries accept at the first size; kept for the other cases
        for size in sizes:
            if size == "large" and any(c in name for c in CUBIC):
                continue
            if name in OUTER and size not in OUTER[name]:
                continue
            for dtype in dtypes:
                for layout in layouts:
                    base = {
                        "kind": kind,
                        "name": name,
                        "shape": SIZES[size],
                        "dtype": dtype,
                        "layout": layout,
                    }
                    ranks = (4, 3, 2, 5) if kind == "nn" else (None,)
                    for tpl, rank in [chosen] if chosen else [(t, r) for t in tpls for r in ranks]:
                        case = dict(base, template=tpl, rank=rank)
                        ups = [p.ask(args.timeout, op="setup", case=case, budget=args.budget) for p in procs]
                        if all("loops" in u for u in ups):
                            chosen = (tpl, rank)
                            break
                    else:
                        if chosen is None:
                            skipped.append((kind, name, ups[0].get("error") or ups[1].get("error")))
                            break
                        continue
                    samples = {p.name: [] for p in procs}
                    for _ in range(args.repeats):
                        for p, u in zip(procs, ups):
                            s = p.ask(args.timeout, op="time", loops=u["loops"])
                            if isinstance(s, float):
                                samples[p.name].append(s)
                    if not all(samples.values()):
                        continue
                    m, t = min(samples["minitorch"]), min(samples["torch"])
                    rows.append(
                        {
                            "kind": kind,
                            "name": name,
                            "template": chosen[0] + (f" rank {chosen[1]}" if chosen[1] else ""),
                            "size": size,
                            "dtype": dtype,
                            "layout": layout,
                            "minitorch": m,
                            "torch": t,
                            "R": t / m,
                            "same_result": ups[0]["sig"] == ups[1]["sig"],
                        }
                    )
                    if partial:
                        partial.write(json.dumps(rows[-1]) + "\n")
                        partial.flush()
                if chosen is None:
                    break
            if chosen is None:
                break
    for p in procs:
        p.close()
    if partial:
        partial.close()
    write(rows, skipped, info, args, time.time() - t_start)


def _fmt(s):
    return f"{s * 1e6:.1f}" if s < 1e-2 else f"{s * 1e6:.0f}"


def write(rows, skipped, info, args, secs):
    lines = []
    comparable = [r for r in rows if r["same_result"]]
    gm = math.exp(sum(math.log(r["R"]) for r in comparable) / len(comparable)) if comparable else float("nan")
    lines.append(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, {args.threads} thread(s); "
        + ", ".join(f"{k} {v.get('version')} ({v.get('cpu')})" for k, v in info.items())
        + f"; {secs / 60:.1f} min, load {os.getloadavg()[0]:.1f} at end"
    )
    lines.append("")
    lines.append(
        f"{len(comparable)} cases over {len({(r['kind'], r['name']) for r in comparable})} names: geometric mean "
        f"R = {gm:.2f}; {sum(r['R'] < 1 for r in comparable)} below 1, {sum(r['R'] < 0.5 for r in comparable)} below "
        f"0.5. Cases whose result shape/dtype differ between the libraries ({len(rows) - len(comparable)}) are "
        f"left out of the mean; names neither template fits at these sizes: {len(skipped)}."
    )
    lines.append("")
    # per size and dtype
    lines.append("| size | dtype | layout | cases | geomean R | below 1 | below 0.5 |")
    lines.append("|---|---|---|---|---|---|---|")
    groups = {}
    for r in comparable:
        groups.setdefault((r["size"], r["dtype"], r["layout"]), []).append(r["R"])
    for (size, dtype, layout), rs in sorted(groups.items()):
        g = math.exp(sum(math.log(x) for x in rs) / len(rs))
        lines.append(
            f"| {size} | {dtype} | {layout} | {len(rs)} | {g:.2f} | {sum(x < 1 for x in rs)} | {sum(x < 0.5 for x in rs)} |"
        )
    lines.append("")
    lines.append("Every case, slowest R first (times in us per call):")
    lines.append("")
    lines.append("| op | template | size | dtype | layout | minitorch | PyTorch | R |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for r in sorted(comparable, key=lambda r: r["R"]):
        op = f"{r['kind']}.{r['name']}" if r["kind"] != "torch" else r["name"]
        lines.append(
            f"| {op} | `{r['template']}` | {r['size']} | {r['dtype']} | {r['layout']} | {_fmt(r['minitorch'])} | "
            f"{_fmt(r['torch'])} | {r['R']:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    if args.table:
        with open(args.table, "w") as f:
            f.write(text)
        print("\n".join(lines[: 3 + 3 + len(groups)]))
    else:
        print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "rows": rows, "skipped": skipped}, f, indent=1)


if __name__ == "__main__":
    main()
