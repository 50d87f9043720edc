"""The scripts in examples/ run end to end (small settings) and reach their own success line."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

CASES = [
    ("train_tutorial.py", ["--steps", "300"], "train_tutorial: ok"),
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
        pytest.skip("this build has no Gloo")
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
