"""Docstrings on the public Python API (help() shows text) and type stubs (_C.pyi) that match the extension."""

import ast
import glob
import io
import os
import pydoc
import subprocess
import sys

import pytest

import minitorch
from minitorch import _C

PKG = os.path.dirname(os.path.abspath(minitorch.__file__))
STUB = os.path.join(PKG, "_C.pyi")
REGEN = (
    "an op of csrc/ops/ops.schema or a Python method on Tensor (a composite's): python scripts/gen_ops.py "
    "--stubs; else add its stub by hand "
    "(scripts/gen_stubs.py regenerates the whole file and drops the stubs kept by hand)"
)


def _help_text(obj):
    buf = io.StringIO()
    pydoc.Helper(output=buf).help(obj)
    return buf.getvalue()


@pytest.mark.parametrize(
    "obj, words",
    [
        (minitorch.tensor, "tensor"),
        (minitorch.is_tensor, "True when"),
        (minitorch.allclose, "close"),
        (minitorch.cuda.is_available, "GPU"),
        (minitorch.cuda.memory_allocated, "Bytes"),
        (minitorch.cuda.synchronize, "Waits"),
        (minitorch.autograd.gradcheck, "gradient"),
        (minitorch.save, "ave"),
        (minitorch.Size.numel, "number of elements"),
    ],
)
def test_help_shows_text(obj, words):
    assert obj.__doc__, f"{obj.__qualname__} has no docstring"
    text = _help_text(obj)
    assert words in text, text
    assert obj.__doc__.strip().splitlines()[0] in text


def test_help_on_bound_ops_shows_signature():
    # The C++ ops carry pybind11's signature line, so help() names their arguments.
    text = _help_text(minitorch.randn)
    assert "randn(" in text and "dtype" in text and "device" in text, text


# Packages other work owns document themselves; this checks the rest of the package.
_OTHERS = ("nn", "optim", "amp", "distributed", os.path.join("cuda", "amp"))


def _public_defs_without_docstring(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    missing = []

    def visit(body, prefix):
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if node.name.startswith("_"):
                continue
            setter = any(
                isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") for d in node.decorator_list
            )
            if not setter and ast.get_docstring(node) is None:
                missing.append(prefix + node.name)
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")

    visit(tree.body, "")
    return missing


def test_public_python_functions_have_docstrings():
    missing = []
    for path in sorted(glob.glob(os.path.join(PKG, "**", "*.py"), recursive=True)):
        rel = os.path.relpath(path, PKG)
        if rel.startswith(_OTHERS):
            continue
        missing += [f"{rel}: {name}" for name in _public_defs_without_docstring(path)]
    assert not missing, "public functions without a docstring:\n" + "\n".join(missing)


# ---- type stubs


def _stub_tree():
    with open(STUB, encoding="utf-8") as f:
        return ast.parse(f.read())


def _stub_names(body):
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_py_typed_marker_ships():
    assert os.path.isfile(os.path.join(PKG, "py.typed"))


def test_stub_covers_every_public_extension_name():
    have = _stub_names(_stub_tree().body)
    want = {n for n in dir(_C) if not n.startswith("__")}
    assert not (want - have), f"_C.pyi lacks {sorted(want - have)}; {REGEN}"
    folded = {
        n for n in have if n.endswith("Module") or n.startswith("_Distributed_")
    }  # submodules' stand-ins
    assert not (have - want - folded), f"_C.pyi has names _C lacks {sorted(have - want)}; {REGEN}"


def test_stub_covers_every_tensor_method():
    tensor = next(n for n in _stub_tree().body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    have = _stub_names(tensor.body)
    want = {
        n
        for n in vars(_C.Tensor)
        if (not n.startswith("__") or n in ("__add__", "__matmul__", "__getitem__"))
        and n != "_pybind11_conduit_v1_"  # pybind11's cross-module hook, which stubgen leaves out
    }
    assert not (want - have), f"_C.pyi's Tensor lacks {sorted(want - have)}; {REGEN}"
    for name in ("to", "cuda", "cpu", "backward", "sum", "shape", "dtype", "device", "grad", "requires_grad"):
        assert name in have


@pytest.mark.parametrize("sub,cls", [("_nn", "_NnModule"), ("_distributed", "_DistributedModule")])
def test_stub_covers_submodules(sub, cls):
    sub_cls = next(n for n in _stub_tree().body if isinstance(n, ast.ClassDef) and n.name == cls)
    have = _stub_names(sub_cls.body)
    want = {n for n in dir(getattr(_C, sub)) if not n.startswith("__")}
    assert want == have, f"_C.pyi's {sub} differs from _C.{sub}: {sorted(want ^ have)}; {REGEN}"


def test_mypy_accepts_the_stubs_and_sees_tensor_methods(tmp_path):
    pytest.importorskip("mypy", reason="mypy not installed")
    script = tmp_path / "use.py"
    script.write_text(
        "import minitorch as torch\n"
        "x = torch.randn(3, 4)\n"
        "y: torch.Tensor = x.to('cpu').sum(dim=0).relu()\n"
        "x.no_such_method()\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.dirname(PKG), MYPY_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-error-summary", str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    # Exactly one error, the deliberate one: the stub parses, randn/to/sum/relu resolve, unknown names are caught.
    assert len(lines) == 1 and 'has no attribute "no_such_method"' in lines[0], r.stdout + r.stderr
