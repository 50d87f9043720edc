"""Regenerates python/minitorch/_C.pyi (type stubs for IDEs and type checkers) from the built extension.

    PYTHONPATH=python python scripts/gen_stubs.py      # needs pybind11-stubgen; re-run when bindings change

pybind11-stubgen writes a package (_C/__init__.pyi + _C/_nn.pyi + _C/_distributed.pyi); a `_C/` folder beside
`_C*.so` would be a second import candidate, so the result is folded into one `_C.pyi` with each submodule
typed as a class of static methods (a submodule's own classes become module-level `_<Sub>_<Name>` classes).
"""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "python", "minitorch", "_C.pyi")

# Run in a child: stubgen must see Tensor and OutOfMemoryError as members of minitorch._C (the bindings give
# them __module__ = "minitorch" so reprs read like PyTorch's), else it imports them instead of describing them.
_CHILD = r"""
import sys
import minitorch
from minitorch import _C
for cls in (_C.Tensor, _C.OutOfMemoryError, _C.Generator):
    cls.__module__ = "minitorch._C"
import pybind11_stubgen
pybind11_stubgen.main(["minitorch._C", "-o", sys.argv[1]])
"""


def _benign(line):
    # _nn's docstrings name the bare `Tensor`, which only the folded file (where Tensor is defined) resolves.
    return "detail::accessor" in line or (
        ("._nn." in line or "._distributed." in line) and "'Tensor'" in line
    )


def _fold_submodule(name, src):
    """A submodule's stub as stub text for the parent file: its classes renamed `_<Name>_<Class>` at module
    level, its functions static methods of `class _<Name>Module`, and `<name>: _<Name>Module`."""
    body = src.split("__all__", 1)[1].split("\n", 1)[1]  # drop the header and __all__
    title = name.strip("_").capitalize()
    classes = re.findall(r"^class (\w+)", body, flags=re.MULTILINE)
    for c in classes:
        body = re.sub(rf"\b{c}\b", f"_{title}_{c}", body)
    out_classes, methods, in_class = [], [], False
    for line in body.splitlines():
        if line.startswith("class "):
            in_class = True
        elif line.startswith("def "):
            in_class = False
            methods.append("    @staticmethod")
        if in_class:
            out_classes.append(line)
        else:
            methods.append("    " + line if line.strip() else line)
    attrs = [f"    {c}: type[_{title}_{c}]" for c in classes]
    doc = f'    """minitorch._C.{name}: native functions of minitorch.{name.strip("_").replace("nn", "nn.functional")}."""'
    text = "\n".join(out_classes).rstrip() + "\n" if out_classes else ""
    text += f"\nclass _{title}Module:\n" + doc + "\n" + "\n".join(attrs + methods).rstrip() + "\n"
    return text + f"\n{name}: _{title}Module\n"


def _fold(init_src, subs):
    """One stub file: the parent's text, then each submodule folded into it."""
    for name in subs:
        init_src = init_src.replace(f"from . import {name}\n", "")
    return init_src.rstrip("\n") + "\n" + "".join("\n" + _fold_submodule(n, src) for n, src in subs.items())


def _fix(src):
    # stubgen reads our `dtype` as NumPy's, and cannot print the device.__reduce__ callable's C++ type.
    src = src.replace("numpy.dtype[typing.Any]", "dtype")
    src = src.replace(
        "def __reduce__(self) -> tuple[..., tuple[str]]:",
        "def __reduce__(self) -> tuple[typing.Any, tuple[str]]:",
    )
    # `from` (random_, uniform_) is a Python keyword: PyTorch's own stubs spell it `from_`.
    src = src.replace("(self, from:", "(self, from_:")
    src = src.replace("from minitorch import OutOfMemoryError\n", "").replace(
        "from minitorch import Tensor\n", ""
    )
    # Methods whose first parameter is not named `self` (Tensor.__dlpack__(tensor, ...)) read as static.
    src = re.sub(r"    @staticmethod\n(    def \w+\(tensor\b)", r"\1", src)
    # Build-dependent values (CUDA version, cuDNN present) would make the stub differ between builds.
    src = re.sub(r"^(_\w+: [\w.]+) = .*$", r"\1", src, flags=re.MULTILINE)
    # (in a CPU-only build the value is None, which stubgen writes as `_cuda_version = None`)
    src = re.sub(
        r"\n_cuda_version(: str| = None)\n",
        "\n_cuda_version: str | None  # None in a build without CUDA\n",
        src,
    )
    # _C defines no __all__ (stubgen invents one); without it the stub's star-import exports the same names.
    src = re.sub(r"^__all__: .*\n", "", src, flags=re.MULTILINE)
    # Tensor's methods bool/int/float (and the module-level dtype `bool`) shadow the builtins inside the stub,
    # so annotations name builtins.bool/int/float.
    lines = []
    for line in src.splitlines():
        if re.match(r"\s*(def |[A-Za-z_]\w*: )", line) and not line.startswith(("bool:", "__all__")):
            line = re.sub(r"(?<!def )(?<!\.)\b(bool|int|float)\b", r"builtins.\1", line)
        lines.append(line)
    src = "\n".join(lines) + "\n"
    src = src.replace("import collections.abc\n", "import builtins\nimport collections.abc\n", 1)
    header = '"""Type stubs for minitorch._C, generated by scripts/gen_stubs.py (pybind11-stubgen); do not edit."""\n'
    header += "# ruff: noqa: N999  (the extension's name is _C, as torch._C)\n"
    return header + src.split('"""', 2)[2].lstrip("\n")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([sys.executable, "-c", _CHILD, tmp], check=False, capture_output=True, text=True)
        errors = [ln for ln in r.stderr.splitlines() if "ERROR" in ln and not _benign(ln)]
        if errors:
            sys.exit("pybind11-stubgen reported:\n" + "\n".join(errors))
        base = os.path.join(tmp, "minitorch", "_C")
        with open(os.path.join(base, "__init__.pyi")) as f:
            init_src = f.read()
        subs = {}
        for fname in sorted(os.listdir(base)):
            if fname.endswith(".pyi") and fname != "__init__.pyi":
                with open(os.path.join(base, fname)) as f:
                    subs[fname[:-4]] = f.read()
    with open(OUT, "w") as f:
        f.write(_fix(_fold(init_src, subs)))
    # The repository's lint and format rules apply to the stub as to any source file.
    for args in (["check", "--fix", "--quiet"], ["format", "--quiet"]):
        subprocess.run([sys.executable, "-m", "ruff", *args, OUT], check=True)
    print("wrote", os.path.relpath(OUT, ROOT))


if __name__ == "__main__":
    main()
