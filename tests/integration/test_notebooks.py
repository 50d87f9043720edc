"""Executes every tutorial notebook in notebooks/ top to bottom with nbclient; any cell error fails the test."""

import glob
import json
import os
import sys

import pytest
from utils import REPO

import minitorch

nbformat = pytest.importorskip(
    "nbformat", reason="executing notebooks needs nbformat (pip install '.[test]')"
)
nbclient = pytest.importorskip(
    "nbclient", reason="executing notebooks needs nbclient (pip install '.[test]')"
)
pytest.importorskip("ipykernel", reason="executing notebooks needs ipykernel (pip install '.[test]')")

ROOT = REPO
NOTEBOOK_DIR = os.path.join(ROOT, "notebooks")
NOTEBOOKS = sorted(glob.glob(os.path.join(NOTEBOOK_DIR, "*.ipynb")))
CELL_TIMEOUT_S = 120
KERNEL = "minitorch-test-python3"


def test_notebooks_exist():
    names = [os.path.basename(p) for p in NOTEBOOKS]
    assert len(names) == 9, names


@pytest.fixture
def kernel_env(tmp_path, monkeypatch):
    # A kernelspec of our own pins the kernel to this interpreter: a python3 kernelspec installed elsewhere
    # on the machine could otherwise start a Python without minitorch.
    spec_dir = tmp_path / "jupyter" / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "minitorch tests",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    # The kernel imports the minitorch under test: the package directory this process imported.
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([pkg_parent, os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # silences a debugpy warning on stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[os.path.basename(p)[:-6] for p in NOTEBOOKS])
def test_notebook_runs(path, kernel_env):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "commit notebooks without outputs"
    )
    client = nbclient.NotebookClient(
        nb,
        kernel_name=KERNEL,
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": NOTEBOOK_DIR}},
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        pytest.fail(f"{os.path.basename(path)} failed:\n{e}", pytrace=False)
    # The install cell must be a no-op when minitorch already imports.
    install_out = "".join(o.get("text", "") for o in nb.cells[1].get("outputs", []))
    assert "pip" not in install_out.lower(), install_out
