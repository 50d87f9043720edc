"""python -m minitorch.utils.collect_env (the bug-report dump) and the GPU-architecture check behind it."""

import subprocess
import sys

import pytest

import minitorch
import minitorch.distributed as dist
from minitorch import _C


def test_collect_env_runs_and_reports_the_build():
    proc = subprocess.run(
        [sys.executable, "-m", "minitorch.utils.collect_env"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"minitorch version: {minitorch.__version__}" in out
    assert f"Built with CUDA: {minitorch.version.cuda}" in out
    assert f"CUDA architectures compiled: {_C._cuda_arch_list or None}" in out
    assert f"Gloo available: {dist.is_gloo_available()}" in out
    assert f"NCCL available: {dist.is_nccl_available()}" in out
    # the child starts from the environment (OMP_NUM_THREADS), not from whatever this process was set to
    child_threads = subprocess.run(
        [sys.executable, "-c", "import minitorch; print(minitorch.get_num_threads())"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.strip()
    assert f"minitorch threads: {child_threads}" in out
    assert "OpenBLAS: OpenBLAS " in out
    assert f"CUDA available: {minitorch.cuda.is_available()}" in out
    cap = minitorch.backends.cpu.get_cpu_capability()
    assert f"CPU capability: {cap} (vector kernels; SLEEF linked: {_C._has_sleef()})" in out
    assert f"oneDNN (CPU convolutions): {minitorch.backends.mkldnn.is_available()}" in out


def test_vector_path_follows_the_cpu_not_a_system_package():
    """The AVX2/AVX-512 kernels are ours and built on every x86-64 machine: the capability is what the CPU
    runs (capped by MINITORCH_CPU_CAPABILITY), whether or not SLEEF was found."""
    import os
    import platform

    cap = minitorch.backends.cpu.get_cpu_capability()
    if platform.machine() not in ("x86_64", "AMD64") or os.environ.get("MINITORCH_CPU_CAPABILITY"):
        assert cap in ("AVX512", "AVX2", "DEFAULT")
        return
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    want = "AVX512" if {"avx512f", "avx512dq"} <= flags else "AVX2" if {"avx2", "fma"} <= flags else "DEFAULT"
    assert cap == want, (cap, sorted(f for f in flags if f.startswith("avx")))


def test_get_env_info_keys_and_no_cuda_init():
    from minitorch.utils import collect_env

    info = collect_env.get_env_info()
    assert info["built_with_cuda"] == minitorch.version.cuda
    assert isinstance(info["gpus"], list) and isinstance(info["env"], dict)
    assert info["openblas_threads"] is None or info["openblas_threads"] >= 1
    if not minitorch.cuda.is_available():
        assert not minitorch.cuda.is_initialized()


def test_arch_list_recorded_at_build_time():
    if minitorch.version.cuda is None:
        assert _C._cuda_arch_list == ""
    else:
        assert _C._cuda_arch_list.strip(), "a CUDA build records the architectures it compiled"


@pytest.mark.parametrize(
    "cap,archs,ok",
    [
        ((7, 5), "80-real 90", False),  # a T4 against the old default: no sm_75 code, PTX 90 is too new
        ((7, 5), "75-real 80-real 90", True),
        ((8, 6), "80-real 90", True),  # sm_80 cubins run on sm_86 (same major, newer minor)
        ((8, 9), "75-real;80-real;90", True),
        ((8, 0), "86-real 90", False),  # cubins never run on an older minor
        ((10, 0), "80-real 90", True),  # compute_90 PTX is JIT-compiled for newer GPUs
        ((10, 0), "80-real 90-real", False),  # SASS only, no PTX
        ((9, 0), "90-virtual", True),
        ((12, 0), "90a-real", False),  # arch-specific code runs on its own GPU only
        ((9, 0), "90a-real", True),
        ((7, 5), "all-major", True),
        ((6, 1), "75", False),
    ],
)
def test_arch_check(cap, archs, ok):
    msg = _C._cuda_arch_check(*cap, archs)
    if ok:
        assert msg is None
    else:
        assert f"sm_{cap[0]}{cap[1]}" in msg and archs in msg and f"CUDAARCHS={cap[0]}{cap[1]}" in msg
