"""minitorch.utils.benchmark (issue 33): Timer's measurement loops, Measurement's statistics and repr, and
Compare's table, against PyTorch 2.15's output for the same raw times (the expected strings below are what
torch.utils.benchmark prints for them, with object addresses blanked)."""

import re
import time

import numpy as np
import pytest

import minitorch
from minitorch.utils import benchmark
from minitorch.utils.benchmark import Compare, Measurement, TaskSpec, Timer
from minitorch.utils.benchmark.utils.common import Measurement as CommonMeasurement

T1 = [2.00e-6, 2.02e-6, 1.98e-6, 2.01e-6, 1.99e-6, 2.03e-6]
T2 = [30e-6, 22e-6, 26e-6, 34e-6, 25e-6, 28e-6]
T3 = [210e-6, 205e-6, 208e-6, 212e-6]


def m(stmt, times, label=None, sub=None, desc=None, threads=1, env=None, number=10, setup="pass"):
    spec = TaskSpec(stmt, setup, label=label, sub_label=sub, description=desc, num_threads=threads, env=env)
    return Measurement(number, [t * number for t in times], spec)


def table():
    return [
        m("x + y", T1, "add", "float", "n=1"),
        m("x + y", T2, "add", "float", "n=100"),
        m("x + y", T3, "add", "int", "n=1"),
        m("x + y", [t * 0.6 for t in T1], "add", "float", "n=1", threads=4),
        m("x + y", [t * 0.7 for t in T3], "add", "int", "n=100", threads=4),
        m("mm(a, b)", [1.5e-3, 1.52e-3, 1.49e-3, 1.51e-3], "mm", "A", "d", env="new"),
        m("mm(a, b)", [1.9e-3, 1.2e-3, 2.5e-3, 1.6e-3], "mm", "B", "d", env="old"),
    ]


def clean(s):
    return re.sub(r"0x[0-9a-f]+", "0x", s).replace("minitorch.", "torch.")


REPR_GOLD = [
    "<torch.utils.benchmark.utils.common.Measurement object at 0x>\nadd: float\nn=1\n  Median: 2.00 us\n  IQR:    0.03 us (1.99 to 2.02)\n  6 measurements, 10 runs per measurement, 1 thread",
    "<torch.utils.benchmark.utils.common.Measurement object at 0x>\nadd: float\nn=100\n  Median: 27.00 us\n  IQR:    4.25 us (25.25 to 29.50)\n  6 measurements, 10 runs per measurement, 1 thread\n  WARNING: Interquartile range is 15.7% of the median measurement.\n           This could indicate system fluctuation.",
    "<torch.utils.benchmark.utils.common.Measurement object at 0x>\nstmt: (sub)\n  a = 1\n  b = 2\n\ndesc\nsetup:\n  import math\n  x = 1\n\n  Median: 27.00 us\n  IQR:    4.25 us (25.25 to 29.50)\n  6 measurements, 10 runs per measurement, 1 thread\n  WARNING: Interquartile range is 15.7% of the median measurement.\n           This could indicate system fluctuation.",
    "<torch.utils.benchmark.utils.common.Measurement object at 0x>\nsum\n  71.00 ns\n  1 measurement, 100 runs , 1 thread",
]
COMPARE_GOLD = {
    (
        False,
        None,
        False,
    ): "[------------ add ------------]\n             |   n=1   |  n=100\n1 threads: --------------------\n      float  |    2.0  |   27.0\n      int    |  209.0  |       \n4 threads: --------------------\n      float  |    1.2  |       \n      int    |         |  146.3\n\nTimes are in microseconds (us).\n\n[------ mm ------]\n            |   d \n1 threads: -------\n  (new)  A  |  1.5\n  (old)  B  |  1.8\n\nTimes are in milliseconds (ms).\n",
    (
        True,
        None,
        True,
    ): "[-------------- add --------------]\n             |  n=1  |     n=100   \n1 threads: ------------------------\n      float  |    2  |   30 (! 16%)\n      int    |  210  |             \n4 threads: ------------------------\n      float  |    1  |             \n      int    |       |   150       \n\nTimes are in microseconds (us).\n(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n\n[--------- mm ---------]\n            |      d    \n1 threads: -------------\n  (new)  A  |   2       \n  (old)  B  |  2 (! 31%)\n\nTimes are in milliseconds (ms).\n(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n",
    (
        False,
        False,
        False,
    ): "[------------ add ------------]\n             |   n=1   |  n=100\n1 threads: --------------------\n      float  |  \x1b[92m\x1b[1m  2.0\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 27.0\x1b[0m\x1b[0m\n      int    |  \x1b[31m\x1b[1m209.0\x1b[0m\x1b[0m  |       \n4 threads: --------------------\n      float  |  \x1b[92m\x1b[1m  1.2\x1b[0m\x1b[0m  |       \n      int    |         |  \x1b[92m\x1b[1m146.3\x1b[0m\x1b[0m\n\nTimes are in microseconds (us).\n\n[------ mm ------]\n            |   d \n1 threads: -------\n  (new)  A  |  \x1b[92m\x1b[1m1.5\x1b[0m\x1b[0m\n  (old)  B  |  1.8\n\nTimes are in milliseconds (ms).\n",
    (
        True,
        True,
        False,
    ): "[----------- add -----------]\n             |  n=1  |  n=100\n1 threads: ------------------\n      float  |  \x1b[92m\x1b[1m  2\x1b[0m\x1b[0m  |  \x1b[31m\x1b[1m  30 \x1b[0m\x1b[0m\n      int    |  \x1b[92m\x1b[1m210\x1b[0m\x1b[0m  |       \n4 threads: ------------------\n      float  |  \x1b[92m\x1b[1m  1\x1b[0m\x1b[0m  |       \n      int    |       |  \x1b[92m\x1b[1m 150 \x1b[0m\x1b[0m\n\nTimes are in microseconds (us).\n\n[----- mm -----]\n            |  d\n1 threads: -----\n  (new)  A  |  \x1b[92m\x1b[1m2\x1b[0m\x1b[0m\n  (old)  B  |  \x1b[92m\x1b[1m2\x1b[0m\x1b[0m\n\nTimes are in milliseconds (ms).\n",
}


def test_measurement_statistics_against_numpy():
    ms = table()
    for x in ms:
        per_stmt = np.array(x.raw_times) / x.number_per_run
        assert x.times == pytest.approx(per_stmt.tolist())
        assert x.median == pytest.approx(np.median(per_stmt))
        assert x.mean == pytest.approx(per_stmt.mean())
        assert x.iqr == pytest.approx(np.percentile(per_stmt, 75) - np.percentile(per_stmt, 25))
    # PyTorch's values for the same times
    assert [x.significant_figures for x in ms] == [1, 1, 2, 1, 2, 2, 1]
    assert [x.has_warnings for x in ms] == [False, True, False, False, False, False, True]
    assert ms[0].title == "add: float" and ms[0].as_row_name == "float" and ms[0].stmt == "x + y"
    assert ms[0].num_threads == 1 and ms[3].num_threads == 4  # TaskSpec fields read through
    assert ms[1].meets_confidence(0.2) and not ms[1].meets_confidence(0.1)
    assert CommonMeasurement is Measurement


def test_measurement_repr_matches_pytorch():
    ms = table()
    got = [
        ms[0],
        ms[1],
        m("a = 1\nb = 2", T2, None, "sub", "desc", setup="import math\nx = 1"),
        m("x.sum()", [7.1e-8], "sum", number=100),
    ]
    for x, want in zip(got, REPR_GOLD):
        assert clean(repr(x)) == want


@pytest.mark.parametrize(
    "options", list(COMPARE_GOLD), ids=lambda o: f"trim={o[0]}-color={o[1]}-highlight={o[2]}"
)
def test_compare_table_matches_pytorch(options, capsys):
    trim, color, highlight = options
    c = Compare(table())
    if trim:
        c.trim_significant_figures()
    if color is not None:
        c.colorize(rowwise=color)
    if highlight:
        c.highlight_warnings()
    assert clean(str(c)) == COMPARE_GOLD[options]
    c.print()
    assert clean(capsys.readouterr().out) == COMPARE_GOLD[options] + "\n"


def test_compare_merges_replicates_and_rejects_other_objects():
    a = m("x", T1[:3], "lbl", "row", "col")
    b = m("x", T1[3:], "lbl", "row", "col")
    merged = Measurement.merge([a, b])
    assert len(merged) == 1 and merged[0].number_per_run == 1
    assert sorted(merged[0].times) == pytest.approx(sorted(T1))
    c = Compare([a])
    c.extend_results([b])
    assert "row" in str(c) and str(c).count("row") == 1
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`, got <class 'int'> instead."):
        Compare([1])


def test_timer_timeit_runs_the_statement_with_globals_and_torch():
    counter = {"n": 0}

    def bump():
        counter["n"] += 1

    t = Timer("bump()", globals={"bump": bump}, label="bump", num_threads=1)
    r = t.timeit(500)
    assert counter["n"] == 500 + 5  # a warm-up of number // 100, then the timed runs
    assert r.number_per_run == 500 and len(r.raw_times) == 1 and r.times[0] > 0
    assert r.label == "bump" and r.task_spec.stmt == "bump()"
    # statements written for PyTorch see minitorch as `torch`; setup runs before them
    x = Timer("torch.add(a, a)", setup="a = torch.ones(4)").timeit(10)
    assert x.median > 0
    ns = {}
    Timer(
        "out.append(torch is mt)",
        setup="out = ns_out",
        globals={"ns_out": ns.setdefault("o", []), "mt": minitorch},
    ).timeit(2)
    assert ns["o"] and all(ns["o"])


def test_blocked_and_adaptive_autorange():
    t = Timer("time.sleep(0.0005)", setup="import time")
    r = t.blocked_autorange(min_run_time=0.05)
    assert sum(r.raw_times) >= 0.05 and r.number_per_run >= 1
    assert 0.0004 < r.median < 0.01  # one sleep of 0.5 ms, with scheduling slack
    calls = []
    r2 = t.blocked_autorange(callback=lambda number, spent: calls.append((number, spent)), min_run_time=0.02)
    assert len(calls) == len(r2.raw_times) and all(n == r2.number_per_run for n, _ in calls)
    a = Timer("sum(range(100))").adaptive_autorange(threshold=0.5, min_run_time=0.01, max_run_time=2.0)
    assert len(a.raw_times) >= 4 and a.median > 0
    t0 = time.monotonic()
    Timer("time.sleep(0.001)", setup="import time").adaptive_autorange(threshold=0.0, max_run_time=0.2)
    assert time.monotonic() - t0 < 5  # max_run_time bounds a threshold that can never be met


def test_timer_thread_count_is_restored_and_bad_input_raises():
    before = minitorch.get_num_threads()
    seen = []
    Timer("seen.append(torch.get_num_threads())", globals={"seen": seen}, num_threads=1).timeit(3)
    assert set(seen) == {1} and minitorch.get_num_threads() == before
    with pytest.raises(ValueError, match="Currently only a `str` stmt is supported."):
        Timer(lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        Timer("pass", global_setup="#include <x>")
    with pytest.raises(NotImplementedError, match="C\\+\\+ statements"):
        Timer("pass", language="cpp")
    with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
        Timer("pass").autorange()
    with pytest.raises(NameError):
        Timer("undefined_name + 1").timeit(1)


def test_helpers():
    assert benchmark.select_unit(3e-8) == ("ns", 1e-9) and benchmark.select_unit(0.5) == ("ms", 1e-3)
    assert benchmark.select_unit(12.0) == ("s", 1.0)
    assert benchmark.trim_sigfig(3.14159, 2) == pytest.approx(3.1)
    assert benchmark.trim_sigfig(123456.0, 3) == pytest.approx(123000.0)
    assert benchmark.ordered_unique([3, 1, 3, 2, 1]) == [3, 1, 2]
    assert benchmark.unit_to_english("us") == "microsecond"
