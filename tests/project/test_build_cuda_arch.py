"""cmake/cuda_arch.cmake: which CUDA architectures a build compiles. Configure-only runs of a tiny project that
includes the module (no CUDA compiler needed), with a fake nvidia-smi standing in for the build machine's GPU."""

import os
import shutil
import stat
import subprocess

import pytest
from utils import REPO

ROOT = REPO
MODULE = os.path.join(ROOT, "cmake", "cuda_arch.cmake")
CMAKE = shutil.which("cmake")
pytestmark = pytest.mark.skipif(CMAKE is None, reason="needs cmake")


def _choice(tmp_path, env_extra=None, smi_output=None):
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(t NONE)\n"
        f'include("{MODULE}")\n'
        'message(STATUS "CHOICE=${CMAKE_CUDA_ARCHITECTURES}|${MINITORCH_CUDA_ARCH_SOURCE}")\n'
    )
    bindir = tmp_path / "bin"
    bindir.mkdir()
    if smi_output is not None:
        smi = bindir / "nvidia-smi"
        smi.write_text(f"#!/bin/sh\nprintf '{smi_output}'\n")
        smi.chmod(smi.stat().st_mode | stat.S_IEXEC)
    env = {k: v for k, v in os.environ.items() if k not in ("CUDAARCHS", "MINITORCH_CUDA_ARCH_LIST")}
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    env.update(env_extra or {})
    proc = subprocess.run(
        [CMAKE, "-S", str(src), "-B", str(tmp_path / "build")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    line = next(ln for ln in proc.stdout.splitlines() if "CHOICE=" in ln)
    archs, source = line.split("CHOICE=", 1)[1].split("|")
    return archs, source


def test_gpu_present_at_build_time_gets_its_own_architecture(tmp_path):
    # Colab's T4 (two of them: one entry)
    assert _choice(tmp_path, smi_output="7.5\\n7.5\\n") == ("75", "nvidia-smi")


def test_several_gpus_each_get_code(tmp_path):
    assert _choice(tmp_path, smi_output="8.0\\n8.9\\n") == ("80;89", "nvidia-smi")


@pytest.mark.skipif(
    shutil.which("nvidia-smi") is not None or os.path.exists("/usr/bin/nvidia-smi"),
    reason="this machine has a real nvidia-smi",
)
def test_no_gpu_gets_the_default_from_sm75_to_sm90_with_ptx(tmp_path):
    assert _choice(tmp_path) == ("75-real;80-real;90", "default")


def test_failing_nvidia_smi_falls_back_to_the_default(tmp_path):
    # nvidia-smi present but no driver loaded: it prints an error and exits non-zero (here: prints nothing useful)
    archs, source = _choice(tmp_path, smi_output="NVIDIA-SMI has failed\\n")
    assert (archs, source) == ("75-real;80-real;90", "default")


def test_pytorch_style_arch_list_overrides_the_gpu(tmp_path):
    got = _choice(tmp_path, env_extra={"MINITORCH_CUDA_ARCH_LIST": "8.6;9.0+PTX"}, smi_output="7.5\\n")
    assert got == ("86-real;90", "MINITORCH_CUDA_ARCH_LIST")


def test_cudaarchs_overrides_the_gpu(tmp_path):
    got = _choice(tmp_path, env_extra={"CUDAARCHS": "86-real;90"}, smi_output="7.5\\n")
    assert got == ("86-real;90", "CUDAARCHS")
