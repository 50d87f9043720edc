"""minitorch._C shares a process with PyTorch and other C++ libraries: it exports only PyInit__C, nothing binds to it,
and either import order works, error messages included (each case in a fresh subprocess, since the failure is a
segfault)."""

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import REAL_TORCH

import minitorch

C_PATH = os.path.realpath(minitorch._C.__file__)
ON_LINUX = sys.platform.startswith("linux")
# Formats int64 through std::ostream in both libraries: the crash on the GPU machine was in ostream << long.
MT_ERROR = (
    "try:\n"
    "    minitorch.zeros(2, 3).view(7)\n"
    "    raise SystemExit('minitorch did not raise')\n"
    "except RuntimeError as e:\n"
    "    assert \"shape '[7]' is invalid for input of size 6\" in str(e), e\n"
)
TORCH_ERROR = (
    "try:\n"
    "    torch.zeros(2, 3).view(7)\n"
    "    raise SystemExit('torch did not raise')\n"
    "except RuntimeError as e:\n"
    "    assert \"shape '[7]' is invalid for input of size 6\" in str(e), e\n"
)


def run_python(code, env_extra=None):
    env = dict(os.environ)
    # the child imports the same minitorch as this process (source tree or installed)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent, env.get("PYTHONPATH", "")])
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def dynamic_symbols(path):
    """Names of the defined dynamic symbols of a shared object, with their nm type letter."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not installed")
    r = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True, text=True, check=True)
    out = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out[parts[-1]] = parts[-2]
    return out


@pytest.mark.skipif(not ON_LINUX, reason="ELF symbol tables")
def test_extension_exports_only_its_init_function():
    syms = dynamic_symbols(C_PATH)
    # before the export map: ~3600 symbols, among them libstdc++'s basic_stringbuf destructors and GNU_UNIQUE
    # objects ('u') that libstdc++ and PyTorch's libraries bound to
    assert set(syms) == {"PyInit__C"}, sorted(syms)[:40]


@pytest.mark.skipif(not ON_LINUX, reason="glibc's LD_DEBUG")
def test_no_other_library_binds_to_extension_symbols(tmp_path):
    extra = "import torch\n" if REAL_TORCH is not None else ""
    code = "import minitorch\n" + extra + MT_ERROR
    r = run_python(code, {"LD_DEBUG": "bindings", "LD_DEBUG_OUTPUT": str(tmp_path / "ld")})
    assert r.returncode == 0, r.stderr[-3000:]
    lines = [ln for f in tmp_path.glob("ld*") for ln in f.read_text(errors="replace").splitlines()]
    bindings = [ln for ln in lines if "binding file" in ln]
    if not bindings:
        pytest.skip("this dynamic loader does not report bindings through LD_DEBUG")
    name = os.path.basename(C_PATH)
    foreign = []
    for ln in bindings:
        m = re.search(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]", ln)
        if m and os.path.basename(m.group(2)) == name and os.path.basename(m.group(1)) != name:
            foreign.append(ln.strip())
    assert not foreign, "\n".join(foreign[:20])


needs_torch = pytest.mark.skipif(REAL_TORCH is None, reason="PyTorch is not installed")
# A CUDA build run from the source tree (PYTHONPATH=python) would load the toolkit's libnccl.so.2 and cuBLAS
# through its RUNPATH, and PyTorch imported afterwards would get those by soname ("undefined symbol:
# ncclCommResume"); minitorch/_preload.py loads the NVIDIA wheels' copies first when they are installed, so these
# tests cover that layout too. Installed beside PyTorch, _C's RUNPATH ($ORIGIN/../nvidia/...) does the same.


@needs_torch
@pytest.mark.parametrize(
    "first,second",
    [("minitorch", "torch"), ("torch", "minitorch")],
    ids=["minitorch-first", "torch-first"],
)
def test_both_import_orders_and_error_messages(first, second):
    code = f"import {first}\nimport {second}\n" + MT_ERROR + TORCH_ERROR + MT_ERROR + "print('ok')\n"
    r = run_python(code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-3000:])


@needs_torch
def test_tensors_cross_after_minitorch_first():
    code = (
        "import minitorch\nimport torch\n"
        "m = minitorch.arange(6).reshape(2, 3)\n"
        "p = torch.from_dlpack(m)\n"
        "assert p.tolist() == [[0, 1, 2], [3, 4, 5]]\n"
        "assert minitorch.from_dlpack(p.t().contiguous()).tolist() == [[0, 3], [1, 4], [2, 5]]\n"
        "print('ok')\n"
    )
    r = run_python(code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-3000:])
