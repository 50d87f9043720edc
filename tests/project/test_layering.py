"""Layering: no file under csrc includes a layer above its own (the rules are docs/architecture.md's table)."""

import fnmatch
import os
import re

import pytest
from utils import REPO

ROOT = REPO
CSRC = os.path.join(ROOT, "csrc")
DOC = os.path.join(ROOT, "docs", "architecture.md")
SOURCE_EXTS = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# Upward includes not removed yet, each with its reason. An entry that no longer matches an include fails too,
# so the list only shrinks.
EXCEPTIONS = {
    ("core/Tensor.cpp", "autograd/AutogradMeta.h"): (
        "TensorImpl owns its AutogradMeta through a unique_ptr, whose deleter needs the complete type; "
        "PyTorch puts a virtual AutogradMetaInterface in c10 instead"
    ),
}


def parse_rules():
    """{layer: (allowed layers, upward interface header patterns)} from the doc's 'Allowed includes' table."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    start = text.index("### Allowed includes")
    rules = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        m = re.match(r"^\| `csrc/([a-z_]+)` \|([^|]*)\|([^|]*)\|\s*$", line)
        if not m:
            continue
        allowed = {w.strip() for w in m.group(2).split(",") if w.strip()}
        interface = re.findall(r"`([^`]+)`", m.group(3))
        rules[m.group(1)] = (allowed, interface)
    return rules


def sources():
    for dirpath, _, files in os.walk(CSRC):
        for name in sorted(files):
            if name.endswith(SOURCE_EXTS):
                yield os.path.relpath(os.path.join(dirpath, name), CSRC).replace(os.sep, "/")


def includes(rel):
    with open(os.path.join(CSRC, rel), encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                target = m.group(1)
                if "/" not in target:  # a sibling header
                    target = os.path.dirname(rel) + "/" + target
                yield lineno, target


RULES = parse_rules()


def permitted(rel, target):
    layer, to = rel.split("/")[0], target.split("/")[0]
    allowed, interface = RULES[layer]
    if to not in RULES:  # not one of ours (a system header written with quotes)
        return True
    return to == layer or to in allowed or any(fnmatch.fnmatchcase(target, p) for p in interface)


def violations():
    found, used = [], set()
    for rel in sources():
        layer = rel.split("/")[0]
        allowed, interface = RULES[layer]
        for lineno, target in includes(rel):
            if permitted(rel, target):
                continue
            if (rel, target) in EXCEPTIONS:
                used.add((rel, target))
                continue
            found.append(
                f"csrc/{rel}:{lineno}: includes {target}, but csrc/{layer} may include only "
                f"{', '.join(sorted(allowed | {layer}))}"
                + (f" and the interface headers {', '.join(interface)}" if interface else "")
                + " (docs/architecture.md, 'Allowed includes')"
            )
    return found, used


def test_rules_table_covers_every_directory():
    dirs = {d for d in os.listdir(CSRC) if os.path.isdir(os.path.join(CSRC, d))}
    assert dirs == set(RULES), f"csrc directories without a row in the table: {sorted(dirs - set(RULES))}"
    for layer, (allowed, _) in RULES.items():
        assert allowed <= set(RULES), f"csrc/{layer} names unknown layers {sorted(allowed - set(RULES))}"


def test_rules_table_is_acyclic():
    # Layers (without the named interface headers) form an order: no two layers may include each other.
    for a, (allowed, _) in RULES.items():
        for b in allowed - {a}:
            assert a not in RULES[b][0], f"csrc/{a} and csrc/{b} may include each other"


def test_no_upward_include():
    found, _ = violations()
    assert not found, "upward includes:\n" + "\n".join(found)


def test_ops_include_no_autograd_header():
    # autograd sits above ops: the generated entry points (ops.schema's twin and entry rows) call both
    found = [f"csrc/{rel}:{n}: {t}" for rel in sources() if rel.startswith("ops/") for n, t in includes(rel)]
    assert not [f for f in found if " autograd/" in f], [f for f in found if " autograd/" in f]


def test_exceptions_are_still_needed():
    _, used = violations()
    stale = sorted(set(EXCEPTIONS) - used)
    assert not stale, f"these exceptions no longer match an include, drop them from EXCEPTIONS: {stale}"


@pytest.mark.parametrize(
    "rel,target,ok",
    [
        ("core/Storage.h", "autograd/AutogradMeta.h", False),
        ("core/TensorIterator.h", "kernels/cpu/Parallel.h", False),
        ("cuda/CUDNNUtils.cpp", "ops/conv.h", False),
        ("kernels/cpu/copy.cpp", "autograd/record.h", False),
        ("ops/shape.cpp", "python/bind.h", False),
        ("ops/shape.cpp", "autograd/record.h", False),
        ("ops/shape.cpp", "generated/native.h", True),
        ("kernels/cpu/copy.cpp", "ops/kernels.h", True),
        ("kernels/cpu/copy.cpp", "ops/copy.cpp", False),
        ("python/bind_tensor.cpp", "autograd/Node.h", True),
        ("autograd/engine.cpp", "ops/ops.h", True),
    ],
)
def test_rule_checker(rel, target, ok):
    # The checker itself: the upward includes this test was written to catch are refused.
    assert permitted(rel, target) == ok


REGISTER = re.compile(r"MT_REGISTER_KERNEL\((\w+)_stub,\s*(CPU|CUDA),\s*&(?:[\w]+::)*(\w+)\)")
ASSIGN = re.compile(
    r"(\w+)_stub\.fns\[static_cast<int>\(DeviceType::(CPU|CUDA)\)\]\s*=\s*&(?:[\w]+::)*(\w+);"
)


def registrations():
    """(file, stub name without _stub, device, kernel function) for every kernel registered under csrc."""
    found = []
    for rel in sources():
        with open(os.path.join(CSRC, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for pattern in (REGISTER, ASSIGN):
            found += [(rel, stub, dev, fn) for stub, dev, fn in pattern.findall(text)]
    return found


def test_kernels_are_named_after_their_stub():
    # docs/architecture.md, 'Kernel registration': the kernel for <name>_stub is <name>_cpu / <name>_cuda.
    regs = registrations()
    assert len(regs) > 50 and {d for _, _, d, _ in regs} == {"CPU", "CUDA"}
    wrong = [
        f"csrc/{rel}: {fn} registered for {stub}_stub"
        for rel, stub, dev, fn in regs
        if fn != f"{stub}_{dev.lower()}"
    ]
    assert not wrong, "kernels not named <stub>_cpu / <stub>_cuda:\n" + "\n".join(wrong)


def test_kernel_name_check_catches_a_stray_name():
    text = "MT_REGISTER_KERNEL(copy_stub, CPU, &copy_kernel);\nMT_REGISTER_KERNEL(fill_stub, CUDA, &cuda::fill_cuda);"
    assert REGISTER.findall(text) == [("copy", "CPU", "copy_kernel"), ("fill", "CUDA", "fill_cuda")]
