"""The differential fuzzer (tests/ops/difffuzz.py) at a fixed seed and a small budget: the same random calls on
minitorch and on PyTorch must agree. Runs where PyTorch can be run (this interpreter imports torch, or
MINITORCH_ORACLE_PYTHON names one that does; CI sets it), skips otherwise. Differences accepted on purpose
are the "Known differences" table of docs/reliability.md, each with its reason."""

import os
import re

import pytest
from utils import REPO

from tests.ops import difffuzz

ORACLE = difffuzz.oracle_python()
pytestmark = pytest.mark.skipif(
    ORACLE is None, reason="PyTorch (the oracle) is not available: set MINITORCH_ORACLE_PYTHON"
)

CALLS = int(os.environ.get("MINITORCH_DIFFFUZZ_CALLS", "4000"))
SEED = int(os.environ.get("MINITORCH_DIFFFUZZ_SEED", "20261202"))
DOC = os.path.join(REPO, "docs", "reliability.md")
# what each class may reach, as a share of all calls. Issue 34 asks for under 1 % each; these are a ratchet at
# the rates of the day (2026-12-02: 2.4 %, 3.0 %, 3.9 %; then 1.5 % and 2.7 % once the Python composites
# raise PyTorch's TypeError and activations/losses refuse integers; 1.4 % and 1.8 % once the C++ dtype refusals
# raise PyTorch's NotImplementedError), lowered as the classes are fixed, never raised. The sample itself changed
# once, when difffuzz.plan started picking names by rendezvous hashing (so that new ops no longer reshuffle it):
# on the new sample the same build measured 1.5 %, 3.0 % and 2.1 %; then missing fell to 0.8 % once operators
# answer NotImplemented as PyTorch's and Python in-place composites keep their backward; accepted_bad 1.05 % and
# exc_type 2.0 % after the padding, dropout1d, tolerance and endpoint checks. The fourth session added ~400 names
# (linalg's decompositions, sparse, 3-D layers, legacy API) and still measured exc_type 1.83 %, accepted_bad
# 1.03 %, missing 0.75 % once the in-place composites named wrong arguments. Then PyTorch's argument parser for
# the Python composites (_argcheck.check_call) and F's Python checks in PyTorch's order: exc_type 0.85 %, missing
# 0.60 %, accepted_bad 0.93 % (issue 34's helper; fresh seeds 401/402 in docs/reliability.md). The tenth session
# (the bindings' refusals in PyTorch's words, the deprecated overloads, dtype rules on the common dtype) measured
# exc_type 0.68 %, accepted_bad 0.38 %, missing 0.22 % on this sample; the nineteenth (fuzz seeds 4417-4425 fixed,
# reductions as rows) exc_type 0.28 %, missing 0.13 %, accepted_bad 0.10 %; the twentieth (seeds 4427-4430, the
# deprecated signatures) exc_type 0.13 %, missing 0.08 %, accepted_bad 0.10 %.
LIMITS = {"accepted_bad": 0.0020, "missing": 0.0015, "exc_type": 0.0025}


def known_differences():
    """rows `| class | kind:name | detail contains | reason |` of the table under "Known differences\""""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    section = text.split("### Known differences", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0] in ("wrong", "accepted_bad", "missing", "exc_type") and cells[3]:
            rows.append((cells[0], cells[1].strip("`"), cells[2].strip("`")))
    return rows


def is_known(finding, rows):
    cls, kind, name, detail, _ = finding
    for c, n, sub in rows:
        if c == cls and re.fullmatch(n.replace("*", ".*"), f"{kind}:{name}") and sub in detail:
            return True
    return False


@pytest.fixture(scope="module")
def outcome():
    return difffuzz.run(CALLS, SEED, oracle=ORACLE)


def test_known_differences_table_parses():
    rows = known_differences()
    assert rows, "docs/reliability.md lost its Known differences table"


def test_no_crash_no_hang(outcome):
    _, findings = outcome
    bad = [(f[0], difffuzz.repro(f[4])[:300]) for f in findings if f[0] in ("crash", "hang")]
    assert not bad, bad[:5]


def test_no_unexplained_wrong_answer(outcome):
    _, findings = outcome
    rows = known_differences()
    wrong = [
        f"{f[1]}:{f[2]}: {f[3]}\n    {difffuzz.repro(f[4])[:400]}"
        for f in findings
        if f[0] == "wrong" and not is_known(f, rows)
    ]
    assert not wrong, "\n".join(wrong[:10])


@pytest.mark.parametrize("cls", sorted(LIMITS))
def test_difference_classes_are_rare(outcome, cls):
    _, findings = outcome
    rows = known_differences()
    left = [f for f in findings if f[0] == cls and not is_known(f, rows)]
    share = len(left) / CALLS
    shown = "\n".join(f"{f[1]}:{f[2]}: {f[3]}" for f in left[:15])
    assert share <= LIMITS[cls], f"{len(left)} of {CALLS} calls ({share:.2%}) are {cls}:\n{shown}"


def test_fuzzer_catches_a_planted_difference():
    """the comparison itself: a value, a dtype, an exception class and an accepted bad input are told apart"""
    import numpy as np

    call = {"name": "add", "kind": "torch", "args": [("T", "float32", np.ones(3), "c")], "grad": False}
    t = {"result": ("T", "float32", (3,), np.ones(3, np.float32), False), "mutated": {}}
    same = {"result": ("T", "float32", (3,), np.ones(3, np.float32) + 1e-7, False), "mutated": {}}
    off = {"result": ("T", "float32", (3,), np.array([1, 1, 1.01], np.float32), False), "mutated": {}}
    dt = {"result": ("T", "float64", (3,), np.ones(3), False), "mutated": {}}
    nan = {"result": ("T", "float32", (3,), np.array([1, 1, np.nan], np.float32), False), "mutated": {}}
    assert difffuzz.classify(call, same, t)[0] == "ok"
    assert difffuzz.classify(call, off, t)[0] == "wrong"
    assert difffuzz.classify(call, dt, t)[0] == "wrong"
    assert difffuzz.classify(call, nan, t)[0] == "wrong"
    # an in-place change on one side only: the same answer when it is rounding-sized, else a difference
    one = np.ones(1, np.float32)
    tiny = dict(t, mutated={0: ("float32", one + np.float32(1e-7), one)})
    real = dict(t, mutated={0: ("float32", one * 2, one)})
    assert difffuzz.classify(call, t, tiny)[0] == "ok"
    assert difffuzz.classify(call, t, real)[0] == "wrong"
    r = {"raise": ("RuntimeError", "RuntimeError", "x")}
    assert (
        difffuzz.classify(call, {"raise": ("NotImplementedError", "NotImplementedError", "x")}, r)[0] == "ok"
    )
    assert difffuzz.classify(call, {"raise": ("AttributeError", "AttributeError", "x")}, r)[0] == "exc_type"
    assert difffuzz.classify(call, t, r)[0] == "accepted_bad"
    assert difffuzz.classify(call, r, t)[0] == "missing"
    assert difffuzz.classify(call, ("crash", -11), t)[0] == "crash"
