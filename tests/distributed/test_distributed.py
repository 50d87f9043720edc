"""minitorch.distributed over Gloo: every collective against its NumPy definition in 2-3 processes on
loopback, the stores, the init methods, bad inputs, faults (each bounded in time) and the launcher."""

import os
import threading
import time
from datetime import timedelta

import numpy as np
import pytest
from dist_harness import check_all_ok, rank_data, run_case, spawn
from utils import NO_GLOO, assert_matches, make_tensor

import minitorch
import minitorch.distributed as dist

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason=NO_GLOO)
needs_nccl = pytest.mark.skipif(
    not (dist.is_nccl_available() and minitorch.cuda.is_available()), reason="needs NCCL and a GPU"
)

NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."
REDUCE_DTYPES = [minitorch.float32, minitorch.float64, minitorch.int32, minitorch.int64]


def _spawn(case, world, **kwargs):
    return spawn("test_distributed", case, world, **kwargs)


def _child():
    run_case(globals())


# ---- the cases each rank runs


def _np_reduce(arrays, op, dtype):
    a = np.stack([np.asarray(x, dtype=np.float64) for x in arrays])
    if op == dist.ReduceOp.SUM:
        return a.sum(0)
    if op == dist.ReduceOp.AVG:
        return a.sum(0) / len(arrays)
    if op == dist.ReduceOp.PRODUCT:
        return a.prod(0)
    if op == dist.ReduceOp.MIN:
        return a.min(0)
    return a.max(0)


def _op_range(op, dtype):
    # products of up to 3 values stay exact in every dtype with small magnitudes
    return (-2.0, 2.0) if op == dist.ReduceOp.PRODUCT else (-3.0, 3.0)


def _case_collectives():
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    assert dist.is_initialized()
    rank, world = dist.get_rank(), dist.get_world_size()
    assert (rank, world) == (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
    assert dist.get_backend() == "gloo"
    seed = 0

    # all_reduce: every op and dtype, contiguous and transposed (written back in place)
    for op in dist.ReduceOp:
        for dtype in REDUCE_DTYPES:
            if op == dist.ReduceOp.AVG and not dtype.is_floating_point:
                continue
            for layout in ("contiguous", "transposed"):
                seed += 1
                lo, hi = _op_range(op, dtype)
                arrays = [rank_data(seed, r, (3, 4), dtype, lo, hi) for r in range(world)]
                t = make_tensor(arrays[rank], dtype, layout=layout)
                assert t.is_contiguous() == (layout == "contiguous")
                dist.all_reduce(t, op=op)
                assert_matches(t, _np_reduce(arrays, op, dtype), dtype)
    # half precision reduces in float
    for dtype in (minitorch.float16, minitorch.bfloat16):
        seed += 1
        arrays = [rank_data(seed, r, (5,), dtype) for r in range(world)]
        t = make_tensor(arrays[rank], dtype)
        dist.all_reduce(t)
        assert_matches(t, _np_reduce(arrays, dist.ReduceOp.SUM, dtype), dtype)
    # a transposed view of a parameter (a leaf that requires grad): written back outside autograd
    w = minitorch.nn.Parameter(minitorch.full((2, 3), float(rank + 1)))
    dist.all_reduce(w.t())
    assert w.requires_grad and w.grad_fn is None
    assert_matches(w, np.full((2, 3), float(sum(range(1, world + 1)))))
    # empty tensors are a no-op on every rank (and do not desynchronize the next collective)
    e = minitorch.empty(0, 3)
    dist.all_reduce(e)
    assert tuple(e.shape) == (0, 3)

    # broadcast from every source, every dtype (bool too: a byte copy)
    for src in range(world):
        for dtype in REDUCE_DTYPES + [minitorch.bool, minitorch.float16]:
            seed += 1
            arrays = [rank_data(seed, r, (2, 3), dtype) for r in range(world)]
            t = make_tensor(
                arrays[rank], dtype, layout="transposed" if dtype == minitorch.float32 else "contiguous"
            )
            dist.broadcast(t, src)
            assert_matches(t, arrays[src], dtype)

    # all_gather / all_gather_into_tensor
    seed += 1
    arrays = [rank_data(seed, r, (2, 3), minitorch.float64) for r in range(world)]
    outs = [minitorch.empty(2, 3, dtype=minitorch.float64) for _ in range(world)]
    dist.all_gather(outs, make_tensor(arrays[rank], minitorch.float64, layout="transposed"))
    for r in range(world):
        assert_matches(outs[r], arrays[r])
    out = minitorch.empty(2 * world, 3, dtype=minitorch.float64)
    dist.all_gather_into_tensor(out, make_tensor(arrays[rank], minitorch.float64))
    assert_matches(out, np.concatenate(arrays))

    # reduce_scatter_tensor: block r of the reduction lands on rank r
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.AVG):
        for dtype in (minitorch.float32, minitorch.int64):
            if op == dist.ReduceOp.AVG and dtype == minitorch.int64:
                continue
            seed += 1
            arrays = [rank_data(seed, r, (2 * world, 3), dtype) for r in range(world)]
            out = minitorch.empty(2, 3, dtype=dtype)
            dist.reduce_scatter_tensor(out, make_tensor(arrays[rank], dtype), op=op)
            assert_matches(out, _np_reduce(arrays, op, dtype)[2 * rank : 2 * rank + 2], dtype)

    # reduce into every destination
    for dst in range(world):
        for op in (dist.ReduceOp.SUM, dist.ReduceOp.MIN, dist.ReduceOp.PRODUCT, dist.ReduceOp.AVG):
            seed += 1
            lo, hi = _op_range(op, minitorch.float64)
            arrays = [rank_data(seed, r, (4,), minitorch.float64, lo, hi) for r in range(world)]
            t = make_tensor(arrays[rank], minitorch.float64)
            dist.reduce(t, dst, op=op)
            if rank == dst:
                assert_matches(t, _np_reduce(arrays, op, minitorch.float64))

    # gather into the last rank, scatter from the first
    seed += 1
    arrays = [rank_data(seed, r, (3, 2), minitorch.int32) for r in range(world)]
    dst = world - 1
    glist = [minitorch.empty(3, 2, dtype=minitorch.int32) for _ in range(world)] if rank == dst else None
    dist.gather(make_tensor(arrays[rank], minitorch.int32, layout="transposed"), glist, dst=dst)
    if rank == dst:
        for r in range(world):
            assert_matches(glist[r], arrays[r])
    seed += 1
    pieces = [rank_data(seed, 0, (2, 2), minitorch.float32) + 10 * r for r in range(world)]
    out = make_tensor(np.zeros((2, 2)), minitorch.float32, layout="transposed")
    slist = [make_tensor(p, minitorch.float32) for p in pieces] if rank == 0 else None
    dist.scatter(out, slist, src=0)
    assert_matches(out, pieces[rank])

    # point to point around a ring, with a tag, then from any source
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    w = dist.isend(minitorch.full((4,), float(rank)), nxt, tag=3)
    got = minitorch.empty(4)
    assert dist.recv(got, prv, tag=3) == prv
    w.wait()
    assert_matches(got, np.full(4, float(prv)))
    if rank == 0:
        senders = set()
        for _ in range(world - 1):
            buf = minitorch.empty(2, dtype=minitorch.int64)
            s = dist.recv(buf)
            senders.add(s)
            assert_matches(buf, np.full(2, s))
        assert senders == set(range(1, world))
    else:
        dist.send(minitorch.full((2,), rank, dtype=minitorch.int64), 0)

    # async_op: a Work per collective, completed by wait(), results in issue order
    ts = [minitorch.full((1000,), float(rank + i)) for i in range(3)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    for wk in works:
        assert wk.wait() is True
        assert wk.is_completed() and wk.is_success()
    for i, t in enumerate(ts):
        assert_matches(t, np.full(1000, sum(r + i for r in range(world)), dtype=np.float64))
    bw = dist.barrier(async_op=True)
    bw.wait()

    # a subgroup: ranks 0 and 1 only; collectives take global ranks
    g = dist.new_group([0, 1])
    if rank in (0, 1):
        assert dist.get_rank(g) == rank and dist.get_world_size(g) == 2
        t = minitorch.tensor([float(rank + 1)])
        dist.all_reduce(t, group=g)
        assert_matches(t, np.array([3.0]))
        t = minitorch.tensor([float(rank)])
        dist.broadcast(t, 1, group=g)
        assert_matches(t, np.array([1.0]))
    else:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1
        assert dist.all_reduce(minitorch.ones(1), group=g) is None

    # all_to_all: block r of rank s's input lands in block s of rank r's output
    seed += 1
    arrays = [rank_data(seed, r, (2 * world, 3), minitorch.float32) for r in range(world)]
    out = make_tensor(np.zeros((2 * world, 3)), minitorch.float32)
    dist.all_to_all_single(out, make_tensor(arrays[rank], minitorch.float32))
    assert_matches(out, np.concatenate([arrays[s][2 * rank : 2 * rank + 2] for s in range(world)]))
    outs = [minitorch.empty(2, 3) for _ in range(world)]
    dist.all_to_all(
        outs, [make_tensor(arrays[rank][2 * r : 2 * r + 2], minitorch.float32) for r in range(world)]
    )
    for s_ in range(world):
        assert_matches(outs[s_], arrays[s_][2 * rank : 2 * rank + 2])

    # picklable objects
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank, "pad": "x" * (rank * 100)})
    assert objs == [{"rank": r, "pad": "x" * (r * 100)} for r in range(world)]
    lst = ["from", rank, (1, 2)] if rank == 1 else [None, None, None]
    dist.broadcast_object_list(lst, src=1)
    assert lst == ["from", 1, (1, 2)]

    # bad inputs raise before any communication, on every rank alike
    with pytest.raises(
        ValueError, match="output tensor size must be equal to world_size times input tensor size"
    ):
        dist.all_gather_into_tensor(minitorch.empty(world * 2 + 1), minitorch.empty(2))
    with pytest.raises(
        ValueError, match="input tensor must be the same size as output size times world size"
    ):
        dist.reduce_scatter_tensor(minitorch.empty(2), minitorch.empty(2 * world + 1))
    with pytest.raises(
        ValueError, match="destination rank should not be the same as the rank of the current"
    ):
        dist.send(minitorch.empty(1), rank)
    if rank != 0:
        with pytest.raises(
            ValueError, match="Argument ``gather_list`` must NOT be specified on non-destination"
        ):
            dist.gather(minitorch.empty(1), [minitorch.empty(1)] * world, dst=0)
        with pytest.raises(ValueError, match="Argument ``scatter_list`` must NOT be specified on non-source"):
            dist.scatter(minitorch.empty(1), [minitorch.empty(1)] * world, src=0)
    else:
        with pytest.raises(ValueError, match="Argument ``scatter_list`` must be specified on source rank."):
            dist.scatter(minitorch.empty(1), None, src=0)
    with pytest.raises(ValueError, match="is not part of group"):
        dist.broadcast(minitorch.empty(1), world)
    with pytest.raises(TypeError, match="Expected parameter `tensor` of type torch.Tensor"):
        dist.all_reduce(np.zeros(3))

    dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()


def _case_reinit():
    # init, destroy, init again on the same port / file: the first store is closed, no stale keys are read
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    for round_ in range(3):
        if os.environ["MT_INIT"] == "file":
            url = f"file://{os.environ['MT_FILE']}"
            dist.init_process_group("gloo", init_method=url, rank=rank, world_size=world)
        else:
            dist.init_process_group("gloo", timeout=timedelta(seconds=30))
        t = minitorch.tensor([float(rank + round_)])
        dist.all_reduce(t)
        assert t.item() == sum(r + round_ for r in range(world))
        dist.destroy_process_group()


def _case_init_method():
    method = os.environ["MT_INIT"]
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    if method == "tcp":
        url = f"tcp://127.0.0.1:{os.environ['MASTER_PORT']}"
    else:
        url = f"file://{os.environ['MT_FILE']}"
    dist.init_process_group(
        "gloo", init_method=url, rank=rank, world_size=world, timeout=timedelta(seconds=30)
    )
    t = minitorch.tensor([float(rank)])
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    assert t.item() == world - 1
    dist.destroy_process_group()


def _case_init_timeout():
    # rank 0 alone: the store's master waits for clients that never come, then raises
    t0 = time.monotonic()
    with pytest.raises(
        dist.DistStoreError, match=r"Timed out after 2 seconds waiting for clients. 1/2 clients"
    ):
        dist.init_process_group("gloo", timeout=timedelta(seconds=2))
    assert time.monotonic() - t0 < 10


def _case_no_master():
    t0 = time.monotonic()
    with pytest.raises(
        dist.DistNetworkError, match="The client socket has timed out after 2s while trying to"
    ):
        dist.init_process_group("gloo", timeout=timedelta(seconds=2))
    assert time.monotonic() - t0 < 10


def _case_peer_dies():
    dist.init_process_group("gloo", timeout=timedelta(seconds=20))
    dist.barrier()
    if dist.get_rank() == 1:
        os._exit(5)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError):
        for _ in range(100):
            dist.all_reduce(minitorch.ones(1000))
            time.sleep(0.05)
    assert time.monotonic() - t0 < 15


def _case_peer_stalls():
    # rank 1 stays alive but never joins the collective: rank 0 hits the group's timeout. The rendezvous gets a
    # generous one (under load a peer's import alone took over 2 s); the stalled collective runs in a group of 2 s.
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    group = dist.new_group(timeout=timedelta(seconds=2))
    dist.barrier(group=group)
    if dist.get_rank() == 1:
        time.sleep(60)
        return
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="[Tt]imed out"):
        dist.all_reduce(minitorch.ones(10), group=group)
    assert time.monotonic() - t0 < 10


def _mlp(seed):
    minitorch.manual_seed(seed)
    return minitorch.nn.Sequential(
        minitorch.nn.Linear(4, 8), minitorch.nn.Tanh(), minitorch.nn.Linear(8, 3), minitorch.nn.Linear(3, 2)
    )


def _params_np(model):
    return [p.detach().double().numpy().copy() for p in model.parameters()]


def _case_ddp():
    from minitorch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    cap = float(os.environ.get("MT_BUCKET_MB", "25"))
    # different initial weights per rank: construction must broadcast rank 0's
    model = DDP(_mlp(100 + rank), bucket_cap_mb=cap)
    reference = _mlp(100)  # single process on the concatenated batch
    for a, b in zip(model.module.parameters(), reference.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = minitorch.optim.SGD(reference.parameters(), lr=0.1)
    rng = np.random.default_rng(7)
    per = 5
    for step in range(4):
        x = rng.standard_normal((per * world, 4)).astype(np.float32)
        y = rng.standard_normal((per * world, 2)).astype(np.float32)
        xs, ys = (
            minitorch.tensor(x[rank * per : (rank + 1) * per]),
            minitorch.tensor(y[rank * per : (rank + 1) * per]),
        )
        opt.zero_grad()
        if step % 2 == 1:
            # gradient accumulation: the first half of the shard without communication
            with model.no_sync():
                ((model(xs[:2]) - ys[:2]) ** 2).sum().div(per).backward()
            ((model(xs[2:]) - ys[2:]) ** 2).sum().div(per).backward()
        else:
            ((model(xs) - ys) ** 2).sum().div(per).backward()
        opt.step()
        ref_opt.zero_grad()
        ((reference(minitorch.tensor(x)) - minitorch.tensor(y)) ** 2).sum().div(per * world).backward()
        ref_opt.step()
        # replicas stay bit-identical
        mine = np.concatenate([a.ravel() for a in _params_np(model.module)])
        everyone = minitorch.empty(world * mine.size, dtype=minitorch.float64)
        dist.all_gather_into_tensor(everyone, minitorch.tensor(mine))
        for r in range(world):
            np.testing.assert_array_equal(everyone.numpy()[r * mine.size : (r + 1) * mine.size], mine)
        for a, b in zip(model.module.parameters(), reference.parameters()):
            assert_matches(a, b.detach().double().numpy(), rtol=1e-5, atol=1e-6)
    dist.destroy_process_group()


def _case_ddp_unused():
    from minitorch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()

    class Branchy(minitorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = minitorch.nn.Linear(3, 2)
            self.b = minitorch.nn.Linear(3, 2)

        def forward(self, x, use_b):
            return self.a(x) + (self.b(x) if use_b else 0)

    minitorch.manual_seed(0)
    model = DDP(Branchy(), find_unused_parameters=True)
    x = minitorch.ones(4, 3)
    # rank 0 uses both branches, rank 1 only `a`: b's gradient is rank 0's halved
    model(x, use_b=rank == 0).sum().backward()
    g = model.module.b.weight.grad
    assert_matches(g, np.full((2, 3), 4.0 / 2))
    assert_matches(model.module.a.weight.grad, np.full((2, 3), 4.0))
    # without detection an unused parameter leaves the reduction unfinished: the next forward says so
    plain = DDP(Branchy())
    plain(x, use_b=False).sum().backward()
    with pytest.raises(RuntimeError, match="Expected to have finished reduction in the prior iteration"):
        plain(x, use_b=False)
    dist.destroy_process_group()


# ---- tests


@needs_gloo
@pytest.mark.parametrize("world,bucket_mb", [(2, 25), (2, 0.0001), (3, 0.0001)])
def test_ddp_matches_single_process_training(world, bucket_mb):
    # 0.0001 MB: one bucket per parameter, several all-reduces in flight during backward
    check_all_ok(_spawn("ddp", world, extra_env={"MT_BUCKET_MB": str(bucket_mb)}))


@needs_gloo
def test_ddp_find_unused_parameters():
    check_all_ok(_spawn("ddp_unused", 2))


@needs_gloo
@pytest.mark.parametrize("world", [2, 3])
def test_collectives_match_numpy(world):
    check_all_ok(_spawn("collectives", world, timeout=150))


@needs_gloo
@pytest.mark.parametrize("method", ["tcp", "file", "tcp+iface"])
def test_init_methods(method, tmp_path):
    env = {"MT_INIT": method.split("+")[0], "MT_FILE": str(tmp_path / "store")}
    if method.endswith("+iface"):
        env["GLOO_SOCKET_IFNAME"] = "lo"  # the interface by name instead of an address
    check_all_ok(_spawn("init_method", 2, extra_env=env))


@needs_gloo
@pytest.mark.parametrize("method", ["env", "file"])
def test_reinit_after_destroy(method, tmp_path):
    check_all_ok(_spawn("reinit", 2, extra_env={"MT_INIT": method, "MT_FILE": str(tmp_path / "store")}))


@needs_gloo
def test_init_times_out_when_a_rank_never_arrives():
    check_all_ok(_spawn("init_timeout", 2, ranks=[0], timeout=30))


def test_init_times_out_without_master():
    check_all_ok(_spawn("no_master", 2, ranks=[1], timeout=30))


@needs_gloo
def test_peer_death_raises_instead_of_hanging():
    res = _spawn("peer_dies", 2, timeout=60)
    assert res[0][0] == 0, res[0][1]
    assert res[1][0] == 5, res[1][1]


@needs_gloo
def test_stalled_peer_times_out():
    res = _spawn("peer_stalls", 2, timeout=60, wait_for=[0])
    assert res[0][0] == 0, res[0][1]


def test_not_initialized_errors():
    assert not dist.is_initialized()
    for fn in (
        dist.get_rank,
        dist.get_world_size,
        dist.barrier,
        lambda: dist.all_reduce(minitorch.ones(1)),
        lambda: dist.broadcast(minitorch.ones(1), 0),
        lambda: dist.new_group([0]),
    ):
        with pytest.raises(ValueError, match=NOT_INIT):
            fn()


def test_bad_init_arguments(monkeypatch):
    with pytest.raises(ValueError, match="Invalid backend: 'mpi'"):
        dist.init_process_group("mpi", init_method="env://")
    store = dist.FileStore(os.devnull)
    with pytest.raises(ValueError, match="Cannot specify both init_method and store."):
        dist.init_process_group("gloo", init_method="env://", store=store)
    with pytest.raises(ValueError, match="world_size must be positive if using store"):
        dist.init_process_group("gloo", store=store, rank=0)
    with pytest.raises(ValueError, match="rank must be non-negative if using store"):
        dist.init_process_group("gloo", store=store, world_size=2)
    for name in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="environment variable RANK expected, but not set"):
        dist.init_process_group("gloo")
    with pytest.raises(RuntimeError, match="No rendezvous handler for foo://"):
        dist.init_process_group("gloo", init_method="foo://x", rank=0, world_size=1)
    assert not dist.is_initialized()


@needs_gloo
def test_world_of_one_in_process():
    store = dist.TCPStore("127.0.0.1", 0, 1, is_master=True, timeout=timedelta(seconds=10))
    dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=timedelta(seconds=10))
    try:
        with pytest.raises(ValueError, match="trying to initialize the default process group twice!"):
            dist.init_process_group("gloo", store=store, rank=0, world_size=1)
        t = minitorch.tensor([1.0, -2.0])
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        assert_matches(t, np.array([1.0, -2.0]))
        out = minitorch.empty(2)
        dist.reduce_scatter_tensor(out, minitorch.tensor([4.0, 5.0]))
        assert_matches(out, np.array([4.0, 5.0]))
        assert dist.get_rank() == 0 and dist.get_world_size() == 1
    finally:
        dist.destroy_process_group()
        store.close()
    assert not dist.is_initialized()


def test_tcp_store():
    master = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    client = dist.TCPStore("127.0.0.1", master.port, timeout=timedelta(seconds=5))
    try:
        master.set("a", "x")
        assert client.get("a") == b"x"
        assert client.add("n", 2) == 2 and master.add("n", 3) == 5
        assert client.get("n") == b"5"
        assert client.check(["a", "n"]) and not client.check(["a", "missing"])
        t0 = time.monotonic()
        with pytest.raises(dist.DistStoreError, match="wait timeout after 300ms, keys: missing"):
            client.wait(["missing"], timedelta(milliseconds=300))
        assert 0.25 < time.monotonic() - t0 < 3
        # get blocks until another process sets the key
        threading.Timer(0.2, lambda: master.set("late", b"v")).start()
        assert client.get("late") == b"v"
        assert client.compare_set("a", "x", "y") == b"y"
        assert client.compare_set("a", "x", "z") == b"y"
        assert master.delete_key("a") and not master.check(["a"])
        p = dist.PrefixStore("pg", client)
        p.set("k", b"1")
        assert master.get("pg/k") == b"1"
    finally:
        client.close()
        master.close()


def test_file_store(tmp_path):
    path = str(tmp_path / "fs")
    a, b = (
        dist.FileStore(path, 2, timeout=timedelta(seconds=5)),
        dist.FileStore(path, 2, timeout=timedelta(seconds=5)),
    )
    a.set("k", b"v")
    assert b.get("k") == b"v"
    assert a.add("c", 1) == 1 and b.add("c", 4) == 5
    with pytest.raises(dist.DistStoreError, match="wait timeout after 200ms"):
        b.wait(["nope"], timedelta(milliseconds=200))
    assert b.num_keys() == 2


def test_missing_backend_raises(monkeypatch):
    monkeypatch.setattr(dist.distributed_c10d, "is_gloo_available", lambda: False)
    store = dist.TCPStore("127.0.0.1", 0, 1, is_master=True, timeout=timedelta(seconds=5))
    try:
        with pytest.raises(RuntimeError, match="Distributed package doesn't have Gloo built in"):
            dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    finally:
        store.close()
    assert not dist.is_initialized()


@needs_nccl
def test_nccl_world_of_one():
    store = dist.TCPStore("127.0.0.1", 0, 1, is_master=True, timeout=timedelta(seconds=30))
    dist.init_process_group("nccl", store=store, rank=0, world_size=1, timeout=timedelta(seconds=30))
    try:
        t = minitorch.tensor([1.0, 2.0, 3.0], device="cuda")
        dist.all_reduce(t)
        assert_matches(t, np.array([1.0, 2.0, 3.0]))
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        assert_matches(t, np.array([1.0, 2.0, 3.0]))
        dist.broadcast(t, 0)
        out = minitorch.empty(3, device="cuda")
        dist.all_gather_into_tensor(out, t)
        assert_matches(out, np.array([1.0, 2.0, 3.0]))
        dist.reduce_scatter_tensor(out, t * 2)
        assert_matches(out, np.array([2.0, 4.0, 6.0]))
        nc = make_tensor(np.arange(6.0).reshape(2, 3), minitorch.float32, device="cuda", layout="transposed")
        dist.all_reduce(nc, op=dist.ReduceOp.MAX)
        assert_matches(nc, np.arange(6.0).reshape(2, 3))
        dist.barrier()
        with pytest.raises(RuntimeError, match="No backend type associated with device type cpu"):
            dist.all_reduce(minitorch.ones(2))
    finally:
        dist.destroy_process_group()
        store.close()


@needs_gloo
@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="needs a GPU")
def test_gloo_stages_cuda_tensors():
    store = dist.TCPStore("127.0.0.1", 0, 1, is_master=True, timeout=timedelta(seconds=10))
    dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=timedelta(seconds=10))
    try:
        t = minitorch.tensor([1.0, -2.0], device="cuda")
        dist.all_reduce(t)
        assert t.is_cuda
        assert_matches(t, np.array([1.0, -2.0]))
    finally:
        dist.destroy_process_group()
        store.close()
