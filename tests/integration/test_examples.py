"""The scripts in examples/ run end to end (small settings) and reach their own success line."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from utils import NO_GLOO, REPO

EXAMPLES = Path(REPO) / "examples"

CASES = [
    ("train_tutorial.py", ["--steps", "300", "--digits-epochs", "0"], "train_tutorial: ok"),
    ("cnn_classifier.py", ["--epochs", "2", "--train-size", "512"], "cnn_classifier: ok"),
    ("amp_training.py", ["--steps", "60"], "amp_training: ok"),
]


@pytest.mark.parametrize("script,args,ok", CASES, ids=[c[0] for c in CASES])
def test_example_runs(script, args, ok):
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert ok in proc.stdout


def test_ddp_example_under_the_launcher():
    import minitorch.distributed as dist

    if not dist.is_gloo_available():
        pytest.skip(NO_GLOO)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "minitorch.distributed.run",
            "--standalone",
            "--nproc_per_node=2",
            str(EXAMPLES / "ddp_train.py"),
            "--epochs",
            "10",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "ddp_train: ok" in proc.stdout and proc.stdout.count("replicas identical: True") == 2


def _run_example(script, *args, cwd=None):
    import minitorch

    # the minitorch under test, also from another working directory (PYTHONPATH=python is relative)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg_parent, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


def _test_accuracy(out):
    m = re.search(r"digits: test accuracy ([0-9.]+) on (\d+) held-out images", out)
    assert m, out[-2000:]
    return float(m.group(1)), int(m.group(2))


@pytest.mark.parametrize("amp", [False, True], ids=["fp32", "amp"])
def test_digits_learns_and_saves_its_plot(tmp_path, amp):
    pytest.importorskip(
        "sklearn", reason="the digits data set comes with scikit-learn (pip install '.[examples]')"
    )
    pytest.importorskip("matplotlib")
    plot = tmp_path / "digits.png"
    out = _run_example("train_digits.py", "--epochs", "15", "--plot", str(plot), *(["--amp"] if amp else []))
    acc, n_test = _test_accuracy(out)
    assert n_test == 450  # a quarter of the 1797 images is held out
    assert acc > 0.9, out
    assert f"plot saved to {plot}" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 5000
    assert "train_digits: ok" in out


def test_main_job_runs_the_tutorial_then_digits(tmp_path):
    """The README's first command's script, with its defaults, run from another directory."""
    pytest.importorskip(
        "sklearn", reason="the digits data set comes with scikit-learn (pip install '.[examples]')"
    )
    pytest.importorskip("matplotlib")
    out = _run_example("train_tutorial.py", cwd=tmp_path)
    assert "first loss" in out and "train_tutorial: ok" in out
    acc, _ = _test_accuracy(out)
    assert acc > 0.9
    assert (tmp_path / "digits_training.png").is_file()
