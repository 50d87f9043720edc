"""cmake/distributed.cmake: which Gloo a build takes. Configure-only runs of a tiny project that includes the
module around a stand-in _C target (seconds, no compiler work beyond CMake's checks): the system's Gloo when
present; with it hidden, the pinned archive is fetched and built into _C; an unreachable archive leaves the
backend off with a warning that names the fix."""

import os
import shutil
import subprocess
import sys
import tarfile

import pytest
from utils import REPO

ROOT = REPO
MODULE = os.path.join(ROOT, "cmake", "distributed.cmake")
pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")

# What hides a system Gloo from find_path/find_library: the usual prefixes, ignored.
HIDE = "-DCMAKE_IGNORE_PREFIX_PATH=/usr;/usr/local"


def _project(tmp_path):
    src = tmp_path / "proj"
    src.mkdir(exist_ok=True)
    (src / "dummy.cpp").write_text("int mt_dummy() { return 0; }\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\n"
        "project(mt_gloo_probe CXX)\n"
        "add_library(_C SHARED dummy.cpp)\n"
        "set(MINITORCH_HAS_CUDA OFF)\n"
        f'include("{MODULE}")\n'
        'message(STATUS "probe: gloo kind = ${MINITORCH_GLOO_KIND}")\n'
    )
    return src


def _configure(src, build, *args):
    proc = subprocess.run(
        ["cmake", "-S", str(src), "-B", str(build), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


def _fake_gloo_archive(tmp_path):
    """A stand-in for Gloo's archive with its layout (top-level project adding gloo/, which makes `gloo`)."""
    top = tmp_path / "gloo-deadbeef"
    (top / "gloo").mkdir(parents=True)
    (top / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 2.8.12)\nproject(gloo CXX)\nadd_subdirectory(gloo)\n"
    )
    (top / "gloo" / "CMakeLists.txt").write_text(
        'file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/config.h "#define GLOO_VERSION 1\\n")\n'
        "add_library(gloo ${GLOO_KIND_PROBE} algorithm.cc)\n"
    )
    (top / "gloo" / "algorithm.cc").write_text("int gloo_probe() { return 1; }\n")
    archive = tmp_path / "gloo.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(top, arcname=top.name)
    return archive


@pytest.mark.skipif(not os.path.exists("/usr/include/gloo/config.h"), reason="no system Gloo here")
def test_system_gloo_is_preferred(tmp_path):
    rc, out = _configure(_project(tmp_path), tmp_path / "b")
    assert rc == 0, out
    assert "minitorch: Gloo (system)" in out and "probe: gloo kind = system" in out


@pytest.mark.skipif(
    bool(os.environ.get("MINITORCH_SANITIZED")),
    reason="configures a build: with libasan preloaded into cmake and the compiler it tests ASan, not our CMake",
)
def test_bundled_gloo_is_fetched_when_the_system_has_none(tmp_path):
    archive = _fake_gloo_archive(tmp_path)
    build = tmp_path / "b"
    rc, out = _configure(_project(tmp_path), build, HIDE, f"-DMINITORCH_GLOO_URL=file://{archive}")
    assert rc == 0, out
    assert "no system Gloo; fetching Gloo" in out, out
    assert "minitorch: Gloo (bundled)" in out and "probe: gloo kind = bundled" in out, out
    # _C links the bundled static library and sees its headers and generated config.h
    cache = (build / "CMakeCache.txt").read_text()
    assert "USE_REDIS:BOOL=OFF" in cache and "BUILD_TEST:BOOL=OFF" in cache
    assert (build / "_deps" / "gloo-build" / "gloo" / "config.h").exists()


def test_offline_without_system_gloo_warns_with_the_fix(tmp_path):
    rc, out = _configure(
        _project(tmp_path), tmp_path / "b", HIDE, f"-DMINITORCH_GLOO_URL=file://{tmp_path}/none.tgz"
    )
    assert rc == 0, out
    assert "the gloo backend is off" in out and "libgloo-dev" in out and "MINITORCH_GLOO_SOURCE_DIR" in out
    assert "probe: gloo kind = none" in out


def test_bundled_mode_without_source_fails_configure(tmp_path):
    rc, out = _configure(
        _project(tmp_path),
        tmp_path / "b",
        "-DMINITORCH_GLOO=BUNDLED",
        f"-DMINITORCH_GLOO_URL=file://{tmp_path}/none.tgz",
    )
    assert rc != 0 and "MINITORCH_GLOO=BUNDLED" in out


def test_source_dir_override_and_off(tmp_path):
    archive = _fake_gloo_archive(tmp_path)
    with tarfile.open(archive) as tf:
        tf.extractall(tmp_path / "unpacked")
    rc, out = _configure(
        _project(tmp_path),
        tmp_path / "b",
        HIDE,
        f"-DMINITORCH_GLOO_SOURCE_DIR={tmp_path}/unpacked/gloo-deadbeef",
    )
    assert rc == 0 and "probe: gloo kind = bundled" in out and "fetching" not in out, out
    rc, out = _configure(_project(tmp_path), tmp_path / "c", "-DMINITORCH_GLOO=OFF")
    assert rc == 0 and "probe: gloo kind = none" in out, out


def test_nccl_from_nvidias_wheel_is_preferred(tmp_path):
    # a stand-in for nvidia-nccl-cu12/cu13: site-packages/nvidia/nccl/{include/nccl.h, lib/libnccl.so.2}
    site = tmp_path / "site"
    (site / "nvidia" / "nccl" / "include").mkdir(parents=True)
    (site / "nvidia" / "nccl" / "lib").mkdir()
    (site / "nvidia" / "nccl" / "include" / "nccl.h").write_text("/* stand-in */\n")
    (site / "nvidia" / "nccl" / "lib" / "libnccl.so.2").write_text("")
    src = _project(tmp_path)
    text = (src / "CMakeLists.txt").read_text().replace("MINITORCH_HAS_CUDA OFF", "MINITORCH_HAS_CUDA ON")
    (src / "CMakeLists.txt").write_text(text)
    env = dict(os.environ, PYTHONPATH=str(site))
    proc = subprocess.run(
        [
            "cmake",
            "-S",
            str(src),
            "-B",
            str(tmp_path / "b"),
            "-DMINITORCH_GLOO=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert f"NCCL wheel at {site}/nvidia/nccl" in out, out
    assert f"minitorch: NCCL {site}/nvidia/nccl/lib/libnccl.so.2" in out, out
