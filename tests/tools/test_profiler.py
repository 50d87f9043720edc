"""torch.profiler, torch.autograd.profiler and torch.utils.benchmark measure what they say: op counts, nesting,
schedules and traces against PyTorch 2.15's behaviour, and the namespaces come back untouched afterwards."""

import json
import os
import warnings

import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.profiler import ProfilerAction, ProfilerActivity, _recorder, profile, record_function, schedule
from minitorch.utils import benchmark

CUDA = torch.cuda.is_available()


def _counts(prof, **kw):
    return {e.key: e.count for e in prof.key_averages(**kw)}


# -- utils.benchmark -----------------------------------------------------------------------------------------


def test_timer_measures_a_sleep():
    # a sleep never returns early, so 2 ms is a floor; the ceiling is loose, as a loaded machine oversleeps
    t = benchmark.Timer("time.sleep(0.002)", setup="import time", label="sleep", description="2 ms")
    m = t.timeit(5)
    assert m.number_per_run == 5
    assert 0.0019 < m.mean < 0.05
    m = t.blocked_autorange(min_run_time=0.05)
    assert 0.0019 < m.median < 0.05
    assert min(m.times) > 0.0019
    assert m.iqr >= 0
    assert len(m.raw_times) == len(m.times)
    assert "ms" in repr(m) and "sleep" in repr(m)


def test_timer_globals_and_compare_prints(capsys):
    x = torch.ones(64, 64)
    results = []
    for n in (16, 64):
        for desc, stmt in (("add", "x + x"), ("mm", "torch.mm(x, x)")):
            t = benchmark.Timer(
                stmt, globals={"x": x[:n, :n]}, label="ops", sub_label=f"n={n}", description=desc
            )
            results.append(t.blocked_autorange(min_run_time=0.01))
    assert all(m.median > 0 for m in results)
    benchmark.Compare(results).print()
    out = capsys.readouterr().out
    for word in ("ops", "n=16", "n=64", "add", "mm"):
        assert word in out


# -- profile: what is recorded -------------------------------------------------------------------------------


def test_table_counts_the_ops_called():
    a, b = torch.randn(32, 32), torch.randn(32, 32)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            torch.mm(a, b)
        a @ b
        a + b
        F.relu(a)
        a.relu()
        a.sum()
        a[0]
    counts = _counts(prof)
    assert counts["aten::mm"] == 3
    assert counts["aten::matmul"] == 1
    assert counts["aten::add"] == 1
    assert counts["aten::relu"] == 2  # F.relu's call of the builtin relu is the same op, counted once
    assert counts["aten::sum"] == 1
    assert counts["aten::select"] == 1
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    header = table.splitlines()[1]
    for col in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"):
        assert col in header
    assert "Input Shapes" not in header
    assert table.splitlines()[-1].startswith("Self CPU time total:")
    row = next(line for line in table.splitlines() if "aten::mm" in line)
    assert row.split()[-1] == "3"
    for e in prof.events():
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total


def test_row_limit_and_sorting():
    a = torch.randn(64, 64)
    # CPU activity only: where CUDA is present the default adds CUDA columns and a "Self CUDA time" footer line
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(4):
            torch.mm(a, a)
        a.add(1)
        a.mul(2)
        a.neg()
    avgs = prof.key_averages()
    table = avgs.table(sort_by="count", row_limit=2)
    rows = table.splitlines()[3:-2]
    assert len(rows) == 2 and "aten::mm" in rows[0]
    by_self = sorted(avgs, key=lambda e: e.self_cpu_time_total, reverse=True)
    rows = avgs.table(sort_by="self_cpu_time_total").splitlines()[3:-2]
    assert [r.split()[0] for r in rows] == [e.key for e in by_self]
    # the device keys sort (all zero on a CPU-only profile) as in PyTorch, and cuda means device
    assert avgs.table(sort_by="cuda_time_total", row_limit=1).count("\n") == 6


def test_unknown_sort_key_raises_as_pytorch():
    with profile() as prof:
        torch.ones(2).add(1)
    with pytest.raises(AttributeError, match="'FunctionEventAvg' object has no attribute 'foo'"):
        prof.key_averages().table(sort_by="foo")


def test_group_by_input_shape():
    with profile(record_shapes=True) as prof:
        torch.ones(2, 3).add(torch.ones(2, 3))
        torch.ones(4).add(torch.ones(4))
        torch.ones(4).add(torch.ones(4))
    rows = {(e.key, str(e.input_shapes)): e.count for e in prof.key_averages(group_by_input_shape=True)}
    assert rows[("aten::add", "[[2, 3], [2, 3]]")] == 1
    assert rows[("aten::add", "[[4], [4]]")] == 2
    assert _counts(prof)["aten::add"] == 3
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
    assert "Input Shapes" in table.splitlines()[1]
    assert "[[2, 3], [2, 3]]" in table


def test_record_function_nests_in_table_and_events():
    @record_function("decorated")
    def work(x):
        return x * 2

    x = torch.ones(8)
    with profile() as prof, record_function("outer"):
        with record_function("inner"):
            x.add(1)
        work(x)
    ev = {e.name: e for e in prof.events()}
    assert ev["inner"].cpu_parent is ev["outer"]
    assert ev["aten::add"].cpu_parent is ev["inner"]
    assert ev["decorated"].cpu_parent is ev["outer"]
    assert ev["aten::mul"].cpu_parent is ev["decorated"]
    assert ev["outer"].is_user_annotation and not ev["aten::add"].is_user_annotation
    outer = ev["outer"]
    assert outer.cpu_time_total >= sum(c.cpu_time_total for c in outer.cpu_children)
    assert outer.self_cpu_time_total <= outer.cpu_time_total
    assert outer.time_range.start <= ev["inner"].time_range.start <= ev["inner"].time_range.end
    table = prof.key_averages().table(sort_by="cpu_time_total")
    first = table.splitlines()[3]
    assert first.split()[0] == "outer" and "100.00%" in first
    for name in ("inner", "decorated"):
        assert name in table


def test_record_function_outside_a_profile_does_nothing():
    with record_function("alone") as r:
        torch.ones(2).add(1)
    assert r._open == []


def test_modules_and_memory():
    lin = torch.nn.Linear(16, 4)
    x = torch.randn(8, 16)
    with profile(profile_memory=True, record_shapes=True) as prof:
        y = lin(x)
        z = x + x
    assert y.shape == (8, 4) and z.shape == (8, 16)
    ev = {e.name: e for e in prof.events()}
    assert ev["aten::linear"].input_shapes[:3] == [[8, 16], [4, 16], [4]]
    assert ev["aten::add"].cpu_memory_usage == 8 * 16 * 4
    assert "CPU Mem" in prof.key_averages().table()
    with profile(profile_memory=True) as prof:  # a meta tensor has no data pointer and allocates nothing
        m = torch.ones(3, device="meta")
        m + m
    assert [(e.name, e.cpu_memory_usage) for e in prof.events()] == [("aten::ones", 0), ("aten::add", 0)]


def test_nested_profiles_refuse():
    with profile(), pytest.raises(RuntimeError, match="already enabled"), profile():
        pass


# -- profiling off restores everything -----------------------------------------------------------------------


def _snapshot():
    return {
        "torch.add": torch.add,
        "torch.mm": torch.mm,
        "_C.mm": torch._C.mm,
        "F.relu": F.relu,
        "F.linear": F.linear,
        "Tensor.add": vars(torch.Tensor)["add"],
        "Tensor.__add__": vars(torch.Tensor)["__add__"],
        "Tensor.__getitem__": vars(torch.Tensor)["__getitem__"],
        "Tensor.__matmul__": vars(torch.Tensor)["__matmul__"],
    }


def test_exit_restores_functions_and_stops_recording():
    before = _snapshot()
    x = torch.ones(4)
    with profile() as prof:
        assert torch.mm is not before["torch.mm"]  # recording: the namespaces hold the timing wrappers
        x.add(1)
    after = _snapshot()
    for key, fn in before.items():
        assert after[key] is fn, key
    n = len(prof.events())
    x.add(1)
    torch.mm(torch.ones(2, 2), torch.ones(2, 2))
    with record_function("late"):
        pass
    assert len(prof.events()) == n
    assert not _recorder.is_recording()


def test_exception_inside_profile_restores():
    before = _snapshot()
    with pytest.raises(ValueError), profile():
        torch.ones(2).add(1)
        raise ValueError("boom")
    assert _snapshot() == before
    assert all(_snapshot()[k] is v for k, v in before.items())
    assert not _recorder.is_recording()


def test_failing_op_is_recorded_and_restores():
    with profile() as prof, pytest.raises(RuntimeError):
        torch.mm(torch.ones(2, 3), torch.ones(2, 3))
    assert _counts(prof)["aten::mm"] == 1
    assert all(e.time_range.end is not None for e in prof.events())


# -- schedule ------------------------------------------------------------------------------------------------

N, W, R, S = ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE


def test_schedule_actions_match_pytorch():
    s = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    assert [s(i) for i in range(12)] == [N, N, W, R, S, N, W, R, S, N, N, N]
    with pytest.warns(UserWarning, match="won't be using warmup"):
        s = schedule(wait=1, warmup=0, active=1)
    assert [s(i) for i in range(6)] == [N, S, N, S, N, S]
    s = schedule(wait=2, warmup=1, active=1, skip_first_wait=1)
    assert [s(i) for i in range(5)] == [W, S, N, N, W]


def test_schedule_rejects_bad_arguments():
    with pytest.raises(
        AssertionError, match=r"Invalid profiler schedule arguments. Got wait=0 .*active=0 \(need > 0\)"
    ):
        schedule(wait=0, warmup=0, active=0)
    with pytest.raises(AssertionError, match=r"wait=-1 \(need >= 0\)"):
        schedule(wait=-1, warmup=0, active=1)


def test_profile_records_only_the_active_steps():
    ready = []

    def on_ready(p):
        ready.append((p.step_num, sorted({e.name for e in p.events()})))

    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1), on_trace_ready=on_ready) as p:
        for i in range(6):
            with record_function(f"it{i}"):
                torch.ones(3).add(i)
            p.step()
    # PyTorch 2.15: one window, handed over when step 4 begins, holding steps 2 and 3
    assert len(ready) == 1
    step_num, names = ready[0]
    assert step_num == 4
    assert names == ["ProfilerStep*", "aten::add", "aten::ones", "it2", "it3"]
    counts = _counts(p)
    assert counts["ProfilerStep*"] == 2 and counts["aten::add"] == 2
    ev = {e.name: e for e in p.events()}
    assert ev["it2"].cpu_parent.name == "ProfilerStep*"
    assert [e.trace_name for e in p.events() if e.name == "ProfilerStep*"] == [
        "ProfilerStep#2",
        "ProfilerStep#3",
    ]
    assert p.step_num == 6


def test_repeating_schedule_hands_over_each_window():
    windows = []
    with profile(
        schedule=schedule(wait=0, warmup=1, active=1),
        on_trace_ready=lambda p: windows.append([e.name for e in p.events() if e.is_user_annotation]),
    ) as p:
        for i in range(6):
            with record_function(f"it{i}"):
                pass
            p.step()
    assert windows == [["ProfilerStep*", "it1"], ["ProfilerStep*", "it3"], ["ProfilerStep*", "it5"]]


def test_without_schedule_steps_are_not_ranges_and_exit_hands_over():
    ready = []
    with profile(on_trace_ready=ready.append) as p:
        for _ in range(3):
            torch.ones(2).add(1)
            p.step()
    assert ready == [p]
    assert [e.name for e in p.events()].count("aten::add") == 3
    assert not any(e.name.startswith("ProfilerStep") for e in p.events())


# -- traces --------------------------------------------------------------------------------------------------


def test_chrome_trace_is_valid_json(tmp_path):
    with profile(record_shapes=True) as prof, record_function("block"):
        torch.mm(torch.ones(4, 5), torch.ones(5, 6))
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    by_name = {e["name"]: e for e in spans if e["cat"] != "gpu_user_annotation"}
    # (with CUDA present a record_function also marks the GPU timeline, as PyTorch's does)
    assert by_name["block"]["cat"] == "user_annotation"
    mm = by_name["aten::mm"]
    assert mm["cat"] == "cpu_op" and mm["args"]["Input Dims"] == [[4, 5], [5, 6]]
    assert mm["args"]["Input type"] == ["float", "float"]
    assert all(e["dur"] >= 0 for e in spans)
    block = by_name["block"]
    # the trace rounds times to the nanosecond
    assert block["ts"] <= mm["ts"] and mm["ts"] + mm["dur"] <= block["ts"] + block["dur"] + 0.01
    assert trace["displayTimeUnit"] == "ms"


def test_tensorboard_trace_handler_writes_a_file(tmp_path):
    out = tmp_path / "tb"
    handler = torch.profiler.tensorboard_trace_handler(str(out), worker_name="w0")
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=1), on_trace_ready=handler) as p:
        for _ in range(3):
            torch.ones(2).add(1)
            p.step()
    files = os.listdir(out)
    assert len(files) == 1 and files[0].startswith("w0.") and files[0].endswith(".pt.trace.json")
    trace = json.loads((out / files[0]).read_text())
    assert any(e.get("name") == "aten::add" for e in trace["traceEvents"])


# -- torch.autograd.profiler, the legacy API -----------------------------------------------------------------


def test_autograd_profiler_profile():
    x = torch.ones(3, requires_grad=True)
    with (
        torch.autograd.profiler.profile(record_shapes=True) as prof,
        torch.autograd.profiler.record_function("fwd"),
    ):
        y = (x * 2).sum()
    y.backward()
    names = [e.name for e in prof.function_events]
    assert names[:3] == ["fwd", "aten::mul", "aten::sum"]
    assert isinstance(prof.self_cpu_time_total, float) and prof.self_cpu_time_total > 0
    assert prof.total_average().key == "Total"
    assert "aten::mul" in prof.key_averages().table(sort_by="self_cpu_time_total")
    assert "aten::mul" in str(prof)
    with torch.autograd.profiler.profile(enabled=False):
        pass
    with pytest.raises(RuntimeError, match="didn't finish"):
        torch.autograd.profiler.profile().key_averages()


def test_emit_nvtx_is_a_no_op_context():
    with torch.autograd.profiler.emit_nvtx():
        assert torch.ones(2).add(1).sum().item() == 4


def test_namespaces():
    assert torch.profiler.profile is profile
    assert torch.autograd.profiler.record_function is record_function
    assert ProfilerActivity.CPU in torch.profiler.supported_activities()
    assert repr(ProfilerActivity.CUDA) == "<ProfilerActivity.CUDA: 2>"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
            torch.ones(2).add(1)
    assert _counts(p)["aten::add"] == 1


@pytest.mark.skipif(not CUDA, reason="needs CUDA")
def test_cuda_device_time():
    a = torch.randn(512, 512, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            torch.mm(a, a)
    mm = next(e for e in prof.key_averages() if e.key == "aten::mm")
    assert mm.count == 3 and mm.device_time_total > 0
    table = prof.key_averages().table(sort_by="cuda_time_total")
    assert "Self CUDA" in table and "CUDA total" in table and "Self CUDA time total" in table
    m = benchmark.Timer("torch.mm(a, a)", globals={"a": a, "torch": torch}).blocked_autorange(
        min_run_time=0.05
    )
    assert m.median > 0


class _ClockEvent:
    """Stands in for cuda.Event on a machine without a GPU: the host clock at record()."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.t = None

    def record(self, stream=None):
        import time

        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


def test_device_time_columns_and_trace_rows(monkeypatch, tmp_path):
    # the plumbing of the CUDA activity (events per range, the table's device columns, the trace's device track),
    # checked with host-clock events where no GPU is present
    if not CUDA:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
        monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
        monkeypatch.setattr(torch.cuda, "Event", _ClockEvent)
    a = torch.randn(64, 64)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof, record_function("block"):
        for _ in range(2):
            torch.mm(a, a)
    ev = {e.name: e for e in prof.events()}
    assert ev["aten::mm"].device_time_total > 0
    assert ev["block"].device_time_total >= ev["aten::mm"].device_time_total
    assert ev["block"].self_device_time_total <= ev["block"].device_time_total
    table = prof.key_averages().table(sort_by="cuda_time_total")
    header = table.splitlines()[1]
    for col in ("Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"):
        assert col in header
    assert "Self CUDA time total:" in table
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    trace = json.loads((tmp_path / "t.json").read_text())
    assert any(e.get("cat") == "gpu_op" and e["name"] == "aten::mm" for e in trace["traceEvents"])


def test_table_text_matches_pytorch():
    # the same events given to PyTorch 2.15's EventList print this table, character for character
    from minitorch.autograd.profiler_util import EventList, FunctionEvent

    spans = [
        ("outer", 0.0, 1500.0, []),
        ("aten::mm", 10.0, 510.25, [[64, 64], [64, 64]]),
        ("aten::mm", 600.0, 1100.5, [[64, 64], [64, 64]]),
        ("aten::add", 1200.0, 1212.125, [[3], [3], []]),
        ("a_very_long_operator_name_that_goes_past_the_name_column_width_for_sure", 1300.0, 1301.0, [[1]]),
    ]
    evs = [FunctionEvent(i + 1, n, 1, s, e, input_shapes=sh) for i, (n, s, e, sh) in enumerate(spans)]
    for child in evs[1:]:
        child.set_cpu_parent(evs[0])
        evs[0].append_cpu_child(child)
    expected = [
        "-------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------------------  ",
        "                                                   Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls              Input Shapes  ",
        "-------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------------------  ",
        "                                                  outer        32.41%     486.125us       100.00%       1.500ms       1.500ms             1                        []  ",
        "                                               aten::mm        66.72%       1.001ms        66.72%       1.001ms     500.375us             2      [[64, 64], [64, 64]]  ",
        "                                              aten::add         0.81%      12.125us         0.81%      12.125us      12.125us             1            [[3], [3], []]  ",
        "a_very_long_operator_name_that_goes_past_the_name_co...         0.07%       1.000us         0.07%       1.000us       1.000us             1                     [[1]]  ",
        "-------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------------------  ",
        "Self CPU time total: 1.500ms",
    ]
    table = EventList(evs).key_averages(group_by_input_shapes=True).table(sort_by="cpu_time_total")
    assert table.split("\n")[:-1] == expected


def test_with_stack_names_the_caller(tmp_path):
    with profile(with_stack=True) as prof:
        torch.ones(2).add(1)
    add = next(e for e in prof.events() if e.name == "aten::add")
    assert (
        add.stack
        and "test_profiler.py" in add.stack[0]
        and "test_with_stack_names_the_caller" in add.stack[0]
    )
    assert "Source Location" in prof.key_averages(group_by_stack_n=1).table()
    prof.export_stacks(str(tmp_path / "stacks.txt"))
    assert "test_with_stack_names_the_caller" in (tmp_path / "stacks.txt").read_text()
