"""The tests' own layout: every test file sits in a directory of tests/README.md's table (which says what
source it mirrors), opens with its purpose, and has a name no other test file has."""

import os
import re
from collections import Counter

from utils import TESTS


def _test_files():
    for dirpath, dirs, files in os.walk(TESTS):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "programs", "cpp")]
        for f in files:
            if f.startswith("test_") and f.endswith(".py"):
                yield os.path.relpath(dirpath, TESTS).replace(os.sep, "/"), f


def _table_dirs():
    with open(os.path.join(TESTS, "README.md"), encoding="utf-8") as f:
        rows = re.findall(r"^\| `tests/([\w/]*)` \|", f.read(), re.MULTILINE)
    return {r.rstrip("/") or "." for r in rows}


def test_every_test_directory_is_in_the_readme_table():
    table = _table_dirs()
    assert "ops" in table and "nn" in table  # the table parsed
    holding = {d for d, _ in _test_files()}
    assert holding - {"."} <= table, f"directories missing from tests/README.md: {sorted(holding - table)}"
    assert not {d for d in table if not os.path.isdir(os.path.join(TESTS, d))}, (
        "table rows without a directory"
    )


def test_no_test_file_at_the_root():
    # tests/ holds the shared conftest.py and utils.py; a test belongs in the directory of what it checks
    root = sorted(f for d, f in _test_files() if d == ".")
    assert not root, f"move these into the directory of the source they test (tests/README.md): {root}"


def test_test_file_names_are_unique():
    # pytest imports each test file by its base name (no __init__.py): two files of one name cannot both load
    counts = Counter(f for _, f in _test_files())
    assert not [f for f, n in counts.items() if n > 1]


def test_every_test_file_opens_with_its_purpose():
    for d, f in _test_files():
        with open(os.path.join(TESTS, d, f), encoding="utf-8") as fh:
            first = fh.readline()
        assert first.startswith(('"""', "#")) and len(first.strip()) > 12, f"{d}/{f}: no purpose line"
