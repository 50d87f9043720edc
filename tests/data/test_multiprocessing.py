"""minitorch.multiprocessing: tensors through queues share memory, share_memory_ keeps views, spawn reports child
errors with their traceback. Every wait is bounded (joins and gets have timeouts)."""

import os
import signal

import numpy as np
import pytest

import minitorch
import minitorch.multiprocessing as mp
from minitorch import _C

TIMEOUT = 60


def test_reexports():
    for name in [
        "Process",
        "Queue",
        "SimpleQueue",
        "Pool",
        "Pipe",
        "get_context",
        "set_start_method",
        "get_start_method",
        "cpu_count",
        "Manager",
        "Event",
        "Lock",
    ]:
        assert hasattr(mp, name), name
    assert mp.cpu_count() >= 1
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert mp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("nonsense")


@pytest.mark.parametrize(
    "dtype",
    [
        minitorch.float32,
        minitorch.float64,
        minitorch.int64,
        minitorch.int8,
        minitorch.bool,
        minitorch.float16,
        minitorch.bfloat16,
    ],
)
def test_share_memory_keeps_views_and_values(dtype):
    base = minitorch.arange(12).reshape(3, 4).to(dtype)
    view = base.t()[1:3]  # non-contiguous, with an offset
    expected = view.clone()
    assert not base.is_shared() and not view.is_shared()
    assert base.share_memory_() is base
    assert base.is_shared() and view.is_shared()
    assert minitorch.equal(view, expected)
    assert minitorch.equal(base, minitorch.arange(12).reshape(3, 4).to(dtype))
    view[0, 0] = 1  # a write through the old view lands in the (moved) storage of base
    assert base[0, 1].item() == 1  # view[0, 0] is base.t()[1, 0]
    ptr = base.data_ptr()
    base.share_memory_()  # already shared: nothing moves
    assert base.data_ptr() == ptr


def test_share_memory_old_numpy_array_stays_valid():
    t = minitorch.arange(1000, dtype=minitorch.float64)
    a = t.numpy()
    t.share_memory_()
    t.add_(1)
    np.testing.assert_array_equal(a, np.arange(1000.0))  # the old buffer lives on (not freed under the array)
    np.testing.assert_array_equal(t.numpy(), np.arange(1000.0) + 1)


def test_share_memory_empty_and_grad():
    e = minitorch.empty(0, 3)
    e.share_memory_()
    assert e.is_shared() and e.shape == (0, 3)
    p = minitorch.nn.Parameter(minitorch.randn(4))
    p.share_memory_()
    assert p.is_shared() and p.requires_grad


def test_module_share_memory():
    m = minitorch.nn.Sequential(minitorch.nn.Linear(3, 4), minitorch.nn.BatchNorm1d(4))
    params = list(m.parameters())
    m(minitorch.randn(5, 3)).sum().backward()
    assert m.share_memory() is m
    assert [p for p in m.parameters()] == params  # the same Parameter objects, moved in place
    assert all(p.is_shared() for p in m.parameters())
    assert all(p.grad.is_shared() for p in m.parameters())
    assert all(b.is_shared() for b in m.buffers())


def _child_add_one(q_in, q_out):
    t = q_in.get(timeout=TIMEOUT)
    assert t.is_shared()
    with minitorch.no_grad():
        t.add_(1)
    q_out.put((t.shape, t.dtype, t.requires_grad))
    fresh = minitorch.full((2, 2), 7.0)
    q_out.put(fresh)
    q_in.get(timeout=TIMEOUT)  # keep `fresh` alive until the parent has it
    # the parent wrote into the tensor it received from us: we see it
    assert fresh.sum().item() == 4 * 7.0 + 1.0


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_queue_shares_memory_both_ways(method):
    ctx = mp.get_context(method)
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_child_add_one, args=(q_in, q_out))
    p.start()
    try:
        base = minitorch.zeros(4, 6, requires_grad=True)
        with minitorch.no_grad():
            base[1].fill_(3)
        q_in.put(base)
        shape, dtype, rg = q_out.get(timeout=TIMEOUT)
        assert shape == (4, 6) and dtype == minitorch.float32 and rg
        assert base.is_shared()
        np.testing.assert_array_equal(
            base.detach().numpy(), np.where(np.arange(4)[:, None] == 1, 4.0, 1.0) * np.ones((4, 6))
        )
        fresh = q_out.get(timeout=TIMEOUT)
        assert fresh.is_shared() and minitorch.equal(fresh, minitorch.full((2, 2), 7.0))
        fresh[0, 0] += 1
        q_in.put(None)
        p.join(TIMEOUT)
        assert p.exitcode == 0
    finally:
        if p.is_alive():
            p.kill()
            p.join(TIMEOUT)


def _child_view(q, q_out):
    v = q.get(timeout=TIMEOUT)
    q_out.put(v.clone())  # a contiguous copy: its values prove the view's strides and offset arrived
    v.fill_(-1)
    # a sender must outlive the receipt of what it sent (the receiver fetches the descriptor from it)
    q.get(timeout=TIMEOUT)


def test_queue_sends_views_with_strides_and_offset():
    ctx = mp.get_context("spawn")
    q, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_child_view, args=(q, q_out))
    p.start()
    try:
        base = minitorch.arange(20, dtype=minitorch.float32).reshape(4, 5)
        view = base[1:, ::2].t()
        q.put(view)
        got = q_out.get(timeout=TIMEOUT)
        assert minitorch.equal(got, minitorch.arange(20.0).reshape(4, 5)[1:, ::2].t())
        q.put(None)
        p.join(TIMEOUT)
        assert p.exitcode == 0
        assert (view == -1).all() and base[0].tolist() == [0, 1, 2, 3, 4]
    finally:
        if p.is_alive():
            p.kill()
            p.join(TIMEOUT)


def test_reduce_refuses_non_leaf_requiring_grad():
    x = minitorch.ones(3, requires_grad=True) * 2
    q = mp.get_context("spawn").SimpleQueue()
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        q.put(x)
    q.close()


def test_shared_tensor_checks_bounds():
    owner = np.zeros(16, dtype=np.uint8)
    t = _C._shared_tensor(owner, -1, 16, minitorch.float32, (2, 2), (2, 1), 0)
    assert t.shape == (2, 2)
    with pytest.raises(ValueError, match="outside the shared storage"):
        _C._shared_tensor(owner, -1, 16, minitorch.float32, (2, 2), (3, 1), 0)
    with pytest.raises(ValueError, match="outside the shared storage"):
        _C._shared_tensor(owner, -1, 16, minitorch.float32, (4,), (1,), 1)
    with pytest.raises(RuntimeError, match="smaller than the storage"):
        _C._shared_tensor(owner, -1, 32, minitorch.float32, (8,), (1,), 0)


# ---- spawn


def _ok(i, out_dir, scale):
    with open(os.path.join(out_dir, f"r{i}"), "w") as f:
        f.write(str(i * scale))


def _raise_in_one(i):
    if i == 1:
        raise ValueError("boom from the child")


def _exit_code(i):
    if i == 0:
        os._exit(3)


def _killed(i):
    if i == 1:
        os.kill(os.getpid(), signal.SIGKILL)


def _sleep_then_ok(i, t):
    import time

    time.sleep(t)


def test_spawn_runs_every_index(tmp_path):
    assert mp.spawn(_ok, args=(str(tmp_path), 10), nprocs=3, join=True) is None
    assert sorted(os.listdir(tmp_path)) == ["r0", "r1", "r2"]
    assert [(tmp_path / f"r{i}").read_text() for i in range(3)] == ["0", "10", "20"]


def test_spawn_propagates_the_child_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(_raise_in_one, nprocs=2)
    msg = str(info.value)
    assert "-- Process 1 terminated with the following error:" in msg
    assert "Traceback (most recent call last)" in msg
    assert "ValueError: boom from the child" in msg and "_raise_in_one" in msg
    assert info.value.error_index == 1


def test_spawn_reports_exit_code_and_signal():
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") as info:
        mp.spawn(_exit_code, nprocs=2)
    assert info.value.exit_code == 3 and info.value.error_index == 0
    with pytest.raises(mp.ProcessExitedException, match="process 1 terminated with signal SIGKILL") as info:
        mp.spawn(_killed, nprocs=2)
    assert info.value.signal_name == "SIGKILL" and info.value.exit_code == -signal.SIGKILL


def test_join_false_returns_a_context():
    ctx = mp.spawn(_sleep_then_ok, args=(1.0,), nprocs=2, join=False)
    assert isinstance(ctx, mp.ProcessContext)
    assert len(ctx.pids()) == 2
    assert ctx.join(timeout=0.01) is False  # still running
    for _ in range(200):
        if ctx.join(timeout=1):
            break
    else:
        pytest.fail("spawned processes did not finish")
    assert all(p.exitcode == 0 for p in ctx.processes)


def test_start_processes_fork_and_spawn_warning(tmp_path):
    mp.start_processes(_ok, args=(str(tmp_path), 1), nprocs=2, start_method="fork")
    assert sorted(os.listdir(tmp_path)) == ["r0", "r1"]
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(_ok, args=(str(tmp_path), 1), nprocs=1, start_method="fork")


def _hogwild_worker(rank, model, steps):
    for _ in range(steps):
        with minitorch.no_grad():
            model.weight.add_(1.0)


def test_spawned_processes_update_a_shared_model():
    model = minitorch.nn.Linear(3, 1)
    with minitorch.no_grad():
        model.weight.zero_()
    model.share_memory()
    # each process adds 1 per step to the one shared weight; writes never overlap in time enough to lose 2x
    mp.spawn(_hogwild_worker, args=(model, 5), nprocs=2)
    w = model.weight.detach()
    assert w.min().item() >= 5 and w.max().item() <= 10


def _child_echo_cuda(q, q_out):
    t = q.get(timeout=TIMEOUT)
    q_out.put((t.device.type, t.cpu().tolist()))


@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="needs a GPU")
def test_cuda_tensor_travels_as_a_copy():
    t = minitorch.arange(6.0, device="cuda")
    assert t.is_shared() and t.share_memory_() is t  # PyTorch: CUDA tensors count as shared, no-op
    ctx = mp.get_context("spawn")
    q, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_child_echo_cuda, args=(q, q_out))
    p.start()
    try:
        q.put(t)
        assert q_out.get(timeout=TIMEOUT) == ("cuda", [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
        p.join(TIMEOUT)
        assert p.exitcode == 0
    finally:
        if p.is_alive():
            p.kill()
            p.join(TIMEOUT)
