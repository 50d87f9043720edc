"""minitorch.distributed beyond the basics, 2-3 processes on loopback: uneven all_to_all, gather/scatter of
objects, PyTorch's backend strings (undefined, 'cpu:gloo,cuda:nccl'), DDP on post-accumulate-grad hooks
(parameters used twice, unused in some steps, gradient_as_bucket_view), and a rank that dies mid-collective."""

import os
import signal
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


def _spawn(case, world, **kwargs):
    check_all_ok(spawn("test_distributed2", case, world, **kwargs))


def _child():
    run_case(globals())


# ---- uneven all_to_all


def _case_alltoall_uneven():
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()

    def rows(s, r):  # rows rank s sends rank r: uneven, zeros included
        return (s + 2 * r) % 3

    for seed, (dtype, layout) in enumerate(
        [
            (minitorch.float64, "contiguous"),
            (minitorch.float32, "transposed"),
            (minitorch.int32, "contiguous"),
            (minitorch.float16, "contiguous"),
        ]
    ):
        arrays = [rank_data(seed, s, (sum(rows(s, r) for r in range(world)), 2), dtype) for s in range(world)]
        ins = [rows(rank, r) for r in range(world)]
        outs = [rows(s, rank) for s in range(world)]
        out = make_tensor(np.zeros((sum(outs), 2)), dtype, layout=layout)
        inp = make_tensor(arrays[rank], dtype, layout=layout)
        dist.all_to_all_single(out, inp, output_split_sizes=outs, input_split_sizes=ins)
        # block `rank` of every sender's input, in sender order
        expect = [
            arrays[s][sum(rows(s, r) for r in range(rank)) : sum(rows(s, r) for r in range(rank + 1))]
            for s in range(world)
        ]
        assert_matches(out, np.concatenate(expect), dtype)

        # the list form: tensors of different sizes per peer
        in_list = []
        off = 0
        for r in range(world):
            in_list.append(make_tensor(arrays[rank][off : off + rows(rank, r)], dtype))
            off += rows(rank, r)
        out_list = [minitorch.empty(rows(s, rank), 2, dtype=dtype) for s in range(world)]
        dist.all_to_all(out_list, in_list)
        for s in range(world):
            assert_matches(out_list[s], expect[s], dtype)

    # only input splits given: rank s sends r + 1 rows to rank r, so every rank receives equal blocks
    arrays = [
        rank_data(50, s, (sum(r + 1 for r in range(world)), 3), minitorch.float64) for s in range(world)
    ]
    out = minitorch.empty(world * (rank + 1), 3, dtype=minitorch.float64)
    w = dist.all_to_all_single(
        out, minitorch.tensor(arrays[rank]), input_split_sizes=[r + 1 for r in range(world)], async_op=True
    )
    w.wait()
    start = sum(r + 1 for r in range(rank))
    assert_matches(out, np.concatenate([a[start : start + rank + 1] for a in arrays]))

    # nothing to move at all still takes part (and keeps the next collective in step)
    e = minitorch.empty(0, 2)
    dist.all_to_all_single(minitorch.empty(0, 2), e, [0] * world, [0] * world)
    t = minitorch.tensor([float(rank)])
    dist.all_reduce(t)
    assert t.item() == sum(range(world))

    # bad splits raise before any communication, with PyTorch's words
    with pytest.raises(RuntimeError, match="Number of tensor splits not equal to group size"):
        dist.all_to_all_single(minitorch.empty(4), minitorch.empty(4), input_split_sizes=[4] + [0] * world)
    with pytest.raises(RuntimeError, match="Split sizes doesn't match total dim 0 size"):
        dist.all_to_all_single(minitorch.empty(4), minitorch.empty(4), [1] * world, [1] * world)
    with pytest.raises(RuntimeError, match="Tensor's dim 0 does not divide equally across group size"):
        dist.all_to_all_single(minitorch.empty(world + 1), minitorch.empty(world + 1))
    with pytest.raises(ValueError, match="Invalid usage of tensors with different dtypes"):
        dist.all_to_all_single(minitorch.empty(world), minitorch.empty(world, dtype=minitorch.float64))
    with pytest.raises(ValueError, match="Invalid usage of tensors with different dtypes"):
        dist.all_to_all(
            [minitorch.empty(1) for _ in range(world)],
            [minitorch.empty(1, dtype=minitorch.int64) for _ in range(world)],
        )
    dist.barrier()
    dist.destroy_process_group()


# ---- objects


def _case_objects():
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    mine = {"rank": rank, "pad": "x" * (rank * 300), "t": (rank, [rank] * rank)}

    for dst in (0, world - 1):
        got = [None] * world if rank == dst else None
        dist.gather_object(mine, got, dst=dst)
        if rank == dst:
            assert got == [{"rank": r, "pad": "x" * (r * 300), "t": (r, [r] * r)} for r in range(world)]
        else:
            assert got is None

    src = 1
    out = [None]
    payload = [{"for": r, "blob": b"z" * (97 * r)} for r in range(world)] if rank == src else None
    dist.scatter_object_list(out, payload, src=src)
    assert out[0] == {"for": rank, "blob": b"z" * (97 * rank)}
    # non-src ranks may pass anything (ignored); output lists longer than one keep the rest
    out = [None, "keep"]
    dist.scatter_object_list(out, ["a" * (r + 1) for r in range(world)] if rank == 0 else None, src=0)
    assert out == ["a" * (rank + 1), "keep"]

    objs = [None] * world
    dist.all_gather_object(objs, mine)
    assert [o["rank"] for o in objs] == list(range(world))
    lst = [rank, "x"] if rank == world - 1 else [None, None]
    dist.broadcast_object_list(lst, src=world - 1)
    assert lst == [world - 1, "x"]

    # each rank misuses the call its own way: every rank raises before communicating
    if rank == 0:
        with pytest.raises(
            ValueError, match="Argument ``gather_list`` must be specified on destination rank."
        ):
            dist.gather_object(mine, None, dst=0)
        with pytest.raises(ValueError, match="source rank must provide non-None scatter_object_input_list"):
            dist.scatter_object_list([None], None, src=0)
    else:
        with pytest.raises(
            ValueError, match="Argument ``gather_list`` must NOT be specified on non-destination ranks."
        ):
            dist.gather_object(mine, [None] * world, dst=0)
        with pytest.raises(
            ValueError, match="Expected argument scatter_object_output_list to be a list of size at least 1."
        ):
            dist.scatter_object_list([], None, src=0)
    with pytest.raises(ValueError, match="is not part of group"):
        dist.gather_object(mine, [None] * world, dst=world)
    dist.barrier()
    dist.destroy_process_group()


# ---- backend strings


def _case_backend_forms():
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    pg_cuda = (
        "cpu:gloo,cuda:nccl" if dist.is_nccl_available() and minitorch.cuda.is_available() else "cpu:gloo"
    )
    for backend, name, config in [
        (None, "undefined", pg_cuda),
        ("cpu:gloo,cuda:nccl", "cpu:gloo,cuda:nccl", "cpu:gloo,cuda:nccl"),
        ("GLOO", "gloo", "cpu:gloo,cuda:gloo"),
    ]:
        dist.init_process_group(backend, timeout=timedelta(seconds=30))
        assert dist.get_backend() == name
        assert isinstance(dist.get_backend(), dist.Backend)
        assert dist.get_backend_config() == config
        pg = dist.GroupMember.WORLD
        # no CUDA tensor yet: the nccl half (if any) is not connected
        assert set(pg._engines) == {"gloo"}
        t = make_tensor(np.arange(6.0).reshape(2, 3) + rank, minitorch.float32, layout="transposed")
        dist.all_reduce(t)
        assert_matches(t, sum(np.arange(6.0).reshape(2, 3) + r for r in range(world)))
        objs = [None] * world
        dist.all_gather_object(objs, rank)
        assert objs == list(range(world))
        g = dist.new_group([0, 1])
        if rank in (0, 1):
            assert dist.get_backend(g) == name
            x = minitorch.tensor([rank + 1.0])
            dist.all_reduce(x, group=g)
            assert x.item() == 3.0
        dist.destroy_process_group()


def test_backend_strings():
    assert dist.Backend("GLOO") == "gloo" and dist.Backend.GLOO == "gloo"
    assert dist.Backend("CPU:Gloo,CUDA:NCCL") == "cpu:gloo,cuda:nccl"
    assert dist.Backend.default_device_backend_map == {"cpu": "gloo", "cuda": "nccl"}
    assert repr(dist.BackendConfig("gloo")) == "cpu:gloo,cuda:gloo"
    assert repr(dist.BackendConfig("nccl")) == "cuda:nccl"
    assert repr(dist.BackendConfig("cpu:gloo,cuda:nccl")) == "cpu:gloo,cuda:nccl"
    with_cuda = dist.is_nccl_available() and minitorch.cuda.is_available()
    assert repr(dist.BackendConfig("undefined")) == ("cpu:gloo,cuda:nccl" if with_cuda else "cpu:gloo")
    assert dist.is_gloo_available() in (True, False) and dist.is_nccl_available() in (True, False)
    with pytest.raises(ValueError, match="Backend constructor parameter must be string-ish"):
        dist.Backend(3)
    with pytest.raises(ValueError, match="Invalid backend: 'mpi'"):
        dist.Backend("mpi")
    with pytest.raises(ValueError, match="Invalid device:backend pairing: cpu. The custom backend string"):
        dist.Backend("cpu,cuda:nccl")
    with pytest.raises(ValueError, match="Duplicate device type cpu in backend string"):
        dist.Backend("cpu:gloo,cpu:gloo")
    with pytest.raises(ValueError, match="Invalid backend: 'mpi'"):
        dist.Backend("cpu:mpi")
    with pytest.raises(ValueError, match="Backend nccl does not support device type cpu"):
        dist.Backend("cpu:nccl")


@needs_gloo
def test_default_backend_world_of_one():
    store = dist.TCPStore("127.0.0.1", 0, 1, is_master=True, timeout=timedelta(seconds=10))
    dist.init_process_group(store=store, rank=0, world_size=1, timeout=timedelta(seconds=10))
    try:
        assert dist.get_backend() == "undefined"
        t = minitorch.tensor([1.0, 2.0])
        dist.all_reduce(t)
        assert_matches(t, np.array([1.0, 2.0]))
        if not minitorch.cuda.is_available():
            # nothing CUDA was made: the group only knows the CPU
            assert dist.get_backend_config() == "cpu:gloo"
            assert set(dist.GroupMember.WORLD._engines) == {"gloo"}
    finally:
        dist.destroy_process_group()
        store.close()


@needs_nccl
def test_mixed_backend_routes_by_device():
    # the nccl half connects on the first CUDA collective; CPU tensors keep going through Gloo
    store = dist.TCPStore("127.0.0.1", 0, 1, is_master=True, timeout=timedelta(seconds=30))
    dist.init_process_group("cpu:gloo,cuda:nccl", store=store, rank=0, world_size=1)
    try:
        pg = dist.GroupMember.WORLD
        assert set(pg._engines) == {"gloo"}
        c = minitorch.tensor([1.0, 2.0], device="cuda")
        dist.all_reduce(c)
        assert set(pg._engines) == {"gloo", "nccl"}
        assert_matches(c, np.array([1.0, 2.0]))
        h = minitorch.tensor([3.0])
        dist.all_reduce(h)
        assert_matches(h, np.array([3.0]))
        out = minitorch.empty(3, device="cuda")
        dist.all_to_all_single(out, minitorch.tensor([1.0, 2.0, 3.0], device="cuda"), [3], [3])
        assert_matches(out, np.array([1.0, 2.0, 3.0]))
    finally:
        dist.destroy_process_group()
        store.close()


# ---- monitored_barrier and the group rank helpers


def _case_monitored():
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    dist.monitored_barrier(timeout=timedelta(seconds=10))
    # round 1: rank 2 is late; rank 0 names it, rank 1 is told to look at rank 0, rank 2 learns it failed
    # round 2: ranks 1 and 2 are late and rank 0 waits for all of them
    for late, wait_all, msg in [
        ({2}, False, r"\[Rank 0\]: Rank 2 failed to pass monitoredBarrier in 1000 ms"),
        ({1, 2}, True, r"\[Rank 0\]: Ranks 1, 2 failed to pass monitoredBarrier in 1000 ms"),
    ]:
        if rank in late:
            time.sleep(1.5)
        t0 = time.monotonic()
        if rank == 0:
            with pytest.raises(RuntimeError, match=msg):
                dist.monitored_barrier(timeout=timedelta(seconds=1), wait_all_ranks=wait_all)
        else:
            with pytest.raises(RuntimeError, match=f"Rank {rank} successfully reached monitoredBarrier, but"):
                dist.monitored_barrier(timeout=timedelta(seconds=1), wait_all_ranks=wait_all)
        assert time.monotonic() - t0 < 5
    # everyone on time again: it passes
    dist.monitored_barrier(timeout=timedelta(seconds=10), wait_all_ranks=True)

    g = dist.new_group([1, 2])
    assert dist.get_process_group_ranks(dist.group.WORLD) == list(range(world))
    assert dist.get_process_group_ranks(None) == list(range(world))
    if rank in (1, 2):
        assert dist.get_process_group_ranks(g) == [1, 2]
        assert dist.get_global_rank(g, 0) == 1 and dist.get_global_rank(g, 1) == 2
        assert dist.get_group_rank(g, 2) == 1
        with pytest.raises(ValueError, match="Global rank 0 is not part of group"):
            dist.get_group_rank(g, 0)
        with pytest.raises(ValueError, match="Group rank 2 is not part of group"):
            dist.get_global_rank(g, 2)
        dist.monitored_barrier(g, timeout=timedelta(seconds=10))
    else:
        with pytest.raises(ValueError, match="is not registered, please create group with"):
            dist.get_process_group_ranks(g)
    dist.barrier()
    dist.destroy_process_group()


# ---- a rank dies mid-collective: the others raise at once, as PyTorch's gloo does (about 0.1 s after the
# dead peer's socket closes), instead of waiting out the group's timeout

DEATH_PG_TIMEOUT = 10.0  # the group's timeout (s) in these cases


def _case_peer_dies():
    op, victim, how = os.environ["MT_OP"], int(os.environ["MT_VICTIM"]), os.environ["MT_HOW"]
    dist.init_process_group("gloo", timeout=timedelta(seconds=DEATH_PG_TIMEOUT))
    rank, world = dist.get_rank(), dist.get_world_size()
    big = minitorch.ones(1 << 22)  # 16 MiB: the victim dies with messages to and from it half transferred

    def run(async_op=False):
        if op == "all_reduce":
            return dist.all_reduce(big, async_op=async_op)
        if op == "broadcast":  # from the victim: the others wait for what it was sending
            return dist.broadcast(big, src=victim, async_op=async_op)
        if op == "all_gather":
            return dist.all_gather([minitorch.empty(big.shape) for _ in range(world)], big, async_op=async_op)
        return dist.barrier(async_op=async_op)

    run()
    dist.barrier()
    if rank == victim:
        if how == "kill_mid":
            run(async_op=True)  # under way on the group's thread when the rank is killed
            time.sleep(0.005)
            os.kill(os.getpid(), signal.SIGKILL)
        os._exit(3)  # "exit_before": gone before the others' collective
    t0 = time.monotonic()
    # Gloo's words (Connection closed by peer [addr]:port / Read error [addr]:port: Connection reset by peer)
    # and PyTorch's hint after them
    with pytest.raises(
        RuntimeError, match=r"Connection (closed|reset) by peer.*typically caused by a remote worker"
    ):
        for _ in range(20):
            run()
    elapsed = time.monotonic() - t0
    assert elapsed < DEATH_PG_TIMEOUT / 4, f"raised after {elapsed:.2f}s"
    # (a later collective may wait out the timeout, as in PyTorch: a live peer's message for the failed one,
    # half read, leaves Gloo's pair to it stuck)
    t0 = time.monotonic()
    dist.destroy_process_group()
    assert time.monotonic() - t0 < DEATH_PG_TIMEOUT / 4


# ---- DDP on post-accumulate-grad hooks


def _flat_params(model):
    return np.concatenate([p.detach().double().numpy().ravel() for p in model.parameters()])


def _assert_replicas_identical(model, world):
    mine = _flat_params(model)
    everyone = minitorch.empty(world * mine.size, dtype=minitorch.float64)
    dist.all_gather_into_tensor(everyone, minitorch.tensor(mine))
    for r in range(world):
        np.testing.assert_array_equal(everyone.numpy()[r * mine.size : (r + 1) * mine.size], mine)


class _Twice(minitorch.nn.Module):
    """One Linear applied twice: its parameters get two gradient contributions per backward."""

    def __init__(self):
        super().__init__()
        self.lin = minitorch.nn.Linear(4, 4)
        self.head = minitorch.nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.lin(minitorch.tanh(self.lin(x))))


class _Branchy(minitorch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = minitorch.nn.Linear(4, 2)
        self.b = minitorch.nn.Linear(4, 2)

    def forward(self, x, use_b):
        return self.a(x) + (self.b(x) if use_b else 0)


def _case_ddp_hooks():
    from minitorch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    view = os.environ["MT_GRAD_VIEW"] == "1"
    set_to_none = os.environ["MT_SET_TO_NONE"] == "1"
    per = 3
    rng = np.random.default_rng(11)

    # a parameter used twice: the hook fires once, after both contributions are in .grad
    minitorch.manual_seed(200 + rank)
    model = DDP(_Twice(), bucket_cap_mb=0.0001, gradient_as_bucket_view=view)
    minitorch.manual_seed(200)
    ref = _Twice()
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = minitorch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for step in range(4):
        x = rng.standard_normal((per * world, 4)).astype(np.float32)
        y = rng.standard_normal((per * world, 2)).astype(np.float32)
        xs, ys = (
            minitorch.tensor(x[rank * per : (rank + 1) * per]),
            minitorch.tensor(y[rank * per : (rank + 1) * per]),
        )
        opt.zero_grad(set_to_none=set_to_none)
        if step == 2:
            # accumulation: one micro-batch without communication, then a synchronized one
            with model.no_sync():
                ((model(xs[:1]) - ys[:1]) ** 2).sum().div(per).backward()
            ((model(xs[1:]) - ys[1:]) ** 2).sum().div(per).backward()
        else:
            ((model(xs) - ys) ** 2).sum().div(per).backward()
        opt.step()
        ref_opt.zero_grad()
        ((ref(minitorch.tensor(x)) - minitorch.tensor(y)) ** 2).sum().div(per * world).backward()
        ref_opt.step()
        _assert_replicas_identical(model.module, world)
        for a, b in zip(model.module.parameters(), ref.parameters()):
            assert_matches(a, b.detach().double().numpy(), rtol=1e-5, atol=1e-6)

    if view:
        # every .grad is a view into its bucket: the all-reduce ran on the gradients in place
        for i, p in enumerate(model.module.parameters()):
            assert p.grad.data_ptr() == model._views[i].data_ptr()
        one = DDP(_Twice(), gradient_as_bucket_view=True)  # one bucket: the grads lie side by side
        one(minitorch.ones(2, 4)).sum().backward()
        ps = list(one.module.parameters())
        order = one._buckets[0].indices
        base = ps[order[0]].grad.data_ptr()
        off = 0
        for i in order:
            assert ps[i].grad.data_ptr() == base + off * 4
            off += ps[i].numel()

    # a parameter some ranks skip in some steps, and no rank uses in one step
    minitorch.manual_seed(300 + rank)
    model = DDP(_Branchy(), find_unused_parameters=True, gradient_as_bucket_view=view)
    minitorch.manual_seed(300)
    ref = _Branchy()
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = minitorch.optim.SGD(ref.parameters(), lr=0.1)
    for step in range(4):
        uses = [step != 3 and (step + r) % 2 == 0 for r in range(world)]  # step 3: nobody uses b
        x = rng.standard_normal((per * world, 4)).astype(np.float32)
        xs = minitorch.tensor(x[rank * per : (rank + 1) * per])
        opt.zero_grad(set_to_none=set_to_none)
        (model(xs, use_b=uses[rank]) ** 2).sum().div(per).backward()
        if not any(uses):
            # globally unused: .grad left untouched, as PyTorch
            g = model.module.b.weight.grad
            if set_to_none:
                assert g is None
            else:
                np.testing.assert_array_equal(g.numpy(), np.zeros((2, 4)))
        opt.step()
        ref_opt.zero_grad()
        loss = sum(
            (ref(minitorch.tensor(x[r * per : (r + 1) * per]), use_b=uses[r]) ** 2).sum()
            for r in range(world)
        )
        loss.div(per * world).backward()
        ref_opt.step()
        _assert_replicas_identical(model.module, world)
        for a, b in zip(model.module.parameters(), ref.parameters()):
            assert_matches(a, b.detach().double().numpy(), rtol=1e-5, atol=1e-6)
    dist.destroy_process_group()


# ---- SyncBatchNorm


def _case_sync_batchnorm():
    # each rank holds its slice of one batch (uneven sizes); the synced layer must give what one BatchNorm2d
    # over the whole batch gives: outputs, input gradients, summed parameter gradients, running statistics
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    sizes = [2 + r for r in range(world)]
    full = minitorch.tensor(
        rank_data(7, 0, (sum(sizes), 3, 4, 5), minitorch.float64), dtype=minitorch.float64
    )
    weights = minitorch.tensor(
        rank_data(8, 0, (sum(sizes), 3, 4, 5), minitorch.float64), dtype=minitorch.float64
    )
    start = sum(sizes[:rank])
    for momentum in (0.1, None):
        ref_bn = minitorch.nn.BatchNorm2d(3, momentum=momentum, dtype=minitorch.float64)
        bn = minitorch.nn.SyncBatchNorm.convert_sync_batchnorm(
            minitorch.nn.BatchNorm2d(3, momentum=momentum, dtype=minitorch.float64)
        )
        assert isinstance(bn, minitorch.nn.SyncBatchNorm)
        with minitorch.no_grad():
            for m in (ref_bn, bn):
                m.weight.copy_(minitorch.tensor([0.5, -1.0, 2.0], dtype=minitorch.float64))
                m.bias.copy_(minitorch.tensor([0.1, 0.2, -0.3], dtype=minitorch.float64))
        for step in range(2):
            xf = (full + step).requires_grad_()
            ref = ref_bn(xf)
            (ref * weights).sum().backward()
            x = (full + step)[start : start + sizes[rank]].clone().requires_grad_()
            out = bn(x)
            (out * weights[start : start + sizes[rank]]).sum().backward()
            assert_matches(out.detach(), ref[start : start + sizes[rank]].detach(), rtol=1e-10, atol=1e-10)
            assert_matches(x.grad, xf.grad[start : start + sizes[rank]], rtol=1e-9, atol=1e-10)
        for p_ref, p in ((ref_bn.weight, bn.weight), (ref_bn.bias, bn.bias)):
            g = p.grad.clone()
            dist.all_reduce(g)
            assert_matches(g, p_ref.grad, rtol=1e-9, atol=1e-10)
        assert_matches(bn.running_mean, ref_bn.running_mean, rtol=1e-10, atol=1e-12)
        assert_matches(bn.running_var, ref_bn.running_var, rtol=1e-10, atol=1e-12)
        assert bn.num_batches_tracked.item() == 2
        bn.eval()  # eval uses the running statistics, no collective
        with minitorch.no_grad():
            assert_matches(bn(full[:2]), ref_bn.eval()(full[:2]), rtol=1e-10, atol=1e-12)
    dist.destroy_process_group()


@needs_gloo
@pytest.mark.parametrize("world", [2, 3])
def test_sync_batchnorm(world):
    _spawn("sync_batchnorm", world)


def test_sync_batchnorm_without_a_group_is_batchnorm():
    x = minitorch.randn(4, 3, 5)
    bn, ref = minitorch.nn.SyncBatchNorm(3), minitorch.nn.BatchNorm1d(3)
    assert_matches(bn(x).detach(), ref(x).detach())
    assert_matches(bn.running_var, ref.running_var)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        bn(minitorch.randn(3))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        minitorch.nn.SyncBatchNorm(0)(minitorch.randn(2, 0))
    # convert_sync_batchnorm keeps the layer's parameters and buffers (the same tensors) and its mode
    m = minitorch.nn.Sequential(minitorch.nn.Linear(2, 3), minitorch.nn.BatchNorm1d(3).eval())
    conv = minitorch.nn.SyncBatchNorm.convert_sync_batchnorm(m)
    assert type(conv[1]) is minitorch.nn.SyncBatchNorm and not conv[1].training
    assert conv[1].weight is m[1].weight and conv[1].running_mean is m[1].running_mean


@needs_gloo
@pytest.mark.parametrize("world", [2, 3])
def test_all_to_all_uneven(world):
    _spawn("alltoall_uneven", world)


@needs_gloo
@pytest.mark.parametrize("world", [2, 3])
def test_object_collectives(world):
    _spawn("objects", world)


@needs_gloo
def test_monitored_barrier_and_group_ranks():
    _spawn("monitored", 3, timeout=60)


@needs_gloo
def test_backend_forms_in_processes():
    _spawn("backend_forms", 3)


@needs_gloo
@pytest.mark.parametrize("world,view,set_to_none", [(2, 0, 1), (2, 1, 1), (3, 1, 0), (3, 0, 0)])
def test_ddp_post_accumulate_hooks(world, view, set_to_none):
    _spawn("ddp_hooks", world, extra_env={"MT_GRAD_VIEW": str(view), "MT_SET_TO_NONE": str(set_to_none)})


@needs_gloo
@pytest.mark.parametrize(
    "op,world,victim,how",
    [
        ("all_reduce", 2, 1, "kill_mid"),
        ("all_reduce", 3, 0, "kill_mid"),  # rank 0 also holds the store
        ("all_reduce", 3, 2, "exit_before"),
        ("broadcast", 2, 1, "kill_mid"),
        ("broadcast", 3, 1, "kill_mid"),
        ("barrier", 2, 0, "exit_before"),
        ("barrier", 3, 1, "kill_mid"),
        ("all_gather", 3, 1, "kill_mid"),
    ],
)
def test_rank_dying_mid_collective_raises_promptly(op, world, victim, how):
    # a hang fails the test at the harness's timeout, a wait of the group's timeout fails the child's check
    res = spawn(
        "test_distributed2",
        "peer_dies",
        world,
        timeout=45,
        extra_env={"MT_OP": op, "MT_VICTIM": str(victim), "MT_HOW": how},
    )
    for r, (rc, out) in enumerate(res):
        if r == victim:
            assert rc == (-signal.SIGKILL if how == "kill_mid" else 3), f"victim rank {r} exit {rc}:\n{out}"
        else:
            assert rc == 0, f"rank {r} failed (exit {rc}):\n{out}"
