#!/usr/bin/env python
"""Samples the binding layer for pybind11's own errors leaking out: calls every public function of minitorch
(and every Tensor method) that PyTorch also has with wrong-typed and out-of-range arguments, and reports the
calls whose error is pybind11's ("Unable to cast Python instance", "incompatible function arguments") or a
different exception type from PyTorch's (when torch is importable, e.g. /tmp/tv/bin/python with
PYTHONPATH=python). usage: PYTHONPATH=python python scripts/probe_bindings.py
With --missing (torch importable) it lists instead the public callables of torch, torch.Tensor and the
namespaces in NAMESPACES that minitorch lacks, less the families no user program calls (MACHINERY)."""

import importlib
import re
import sys

import minitorch

try:
    import torch
except ImportError:
    torch = None

SKIP = ("save", "load", "set_", "use_deterministic", "compile", "manual_seed_all", "seed", "from_file")
BAD = [object(), "x", 2**64, -(2**64), 1e300, None, [object()], (1.5, "a")]
PYBIND = ("Unable to cast",)  # a TypeError for a wrong type is right; its wording is pybind11s, see docs


def outcome(f, *args):
    try:
        f(*args)
    except Exception as e:  # noqa: BLE001 - the exception is what we look at
        return type(e).__name__, str(e).splitlines()[0][:140] if str(e) else ""
    return "ok", ""


def probe(lib, name, method):
    base = lib.ones(2, 2)
    f = getattr(base, name) if method else getattr(lib, name)
    calls = []
    for bad in BAD:
        for args in ([bad] if method else [[bad], [base, bad]]) if not method else [[bad], [0, bad]]:
            shown = ", ".join("T" if isinstance(a, lib.Tensor) else repr(a)[:24] for a in args)
            calls.append((f"({shown})", outcome(f, *args)))
    return calls


def names():
    fns = [n for n in dir(minitorch) if not n.startswith("_") and callable(getattr(minitorch, n))]
    fns = [n for n in fns if not isinstance(getattr(minitorch, n), type) and not n.startswith(SKIP)]
    meths = [
        n for n in dir(minitorch.Tensor) if not n.startswith("_") and callable(getattr(minitorch.Tensor, n))
    ]
    meths = [
        n for n in meths if not n.startswith(SKIP) and n not in ("backward", "register_hook", "share_memory_")
    ]
    if torch is not None:
        fns = [n for n in fns if hasattr(torch, n)]
        meths = [n for n in meths if hasattr(torch.Tensor, n)]
    return fns, meths


# the namespaces compared by --missing, and the names left out there: quantization, the sparse-compressed
# internals, the backends' own entry points (cuDNN, MIOpen, oneDNN, FBGEMM), TorchScript's IR and type classes,
# legacy typed storages, and the typing helpers some modules re-export
NAMESPACES = ("", "nn.functional", "linalg", "special", "fft", "nn.init", "nn.utils")
MACHINERY = re.compile(
    r"^(q_|quantize|quantized_|dequantize|int_repr|qscheme|empty_quantized|choose_qparams|fused_moving_avg"
    r"|fbgemm_|cudnn_|miopen_|mkldnn_|to_mkldnn|ccol_indices_copy|row_indices_copy|resize_as_sparse_"
    r"|sparse_resize|import_ir_module|parse_ir|parse_schema|parse_type_comment|merge_type_from_type_comment"
    r"|unify_type_list|profiler_|.*Storage$|Script|Callable$|Literal$|ParamSpec$|TypeVar$|Tensor$)"
)


def _public_callables(mod):
    out = set()
    for n in dir(mod):
        if n.startswith("_") or MACHINERY.match(n):
            continue
        if callable(getattr(mod, n, None)):
            out.add(n)
    return out


def missing():
    """{namespace: sorted names} of PyTorch's public callables minitorch has not (classes apart)."""
    found = {}
    for ns in NAMESPACES + ("Tensor",):
        if ns == "Tensor":
            theirs, ours = torch.Tensor, minitorch.Tensor
        else:
            theirs = importlib.import_module("torch" + ("." + ns if ns else ""))
            ours = importlib.import_module("minitorch" + ("." + ns if ns else ""))
        names = sorted(n for n in _public_callables(theirs) if not hasattr(ours, n))
        found[ns or "torch"] = names
    return found


def report_missing():
    total = 0
    for ns, names in missing().items():
        theirs = (
            torch.Tensor
            if ns == "Tensor"
            else importlib.import_module("torch" if ns == "torch" else "torch." + ns)
        )
        classes = [n for n in names if isinstance(getattr(theirs, n), type)]
        fns = [n for n in names if n not in classes]
        total += len(fns)
        print(f"{ns}: {len(fns)} functions: {' '.join(fns)}")
        if classes:
            print(f"{ns}: {len(classes)} classes: {' '.join(classes)}")
    print(f"{total} functions missing")
    return 0


def main():
    if "--missing" in sys.argv:
        if torch is None:
            sys.exit("--missing needs torch importable (e.g. /tmp/tv/bin/python with PYTHONPATH=python)")
        return report_missing()
    fns, meths = names()
    leaks, mismatches, total = [], [], 0
    for method, group in ((False, fns), (True, meths)):
        for n in group:
            ours = probe(minitorch, n, method)
            theirs = probe(torch, n, method) if torch is not None else [None] * len(ours)
            for (args, (kind, msg)), other in zip(ours, theirs):
                total += 1
                where = ("Tensor." if method else "") + n
                if any(p in msg for p in PYBIND):
                    leaks.append(f"{where}{args}: {kind}: {msg}")
                elif other is not None and kind != other[1][0] and "ok" not in (kind, other[1][0]):
                    mismatches.append(
                        f"{where}{args}: ours {kind} ({msg[:60]}), torch {other[1][0]} ({other[1][1][:60]})"
                    )
    print(f"{total} calls; {len(leaks)} pybind11 errors; {len(mismatches)} exception type differences")
    for line in leaks:
        print("PYBIND", line)
    for line in mismatches:
        print("TYPE", line)
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
