"""minitorch.utils.data: datasets, samplers, collation and the DataLoader with and without worker processes."""

import collections
import glob
import math
import os
import random
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
    get_worker_info,
    random_split,
)
from minitorch.utils.data._utils.shared import _SHM_DIR as SHM_DIR

# A safety net for the multi-process tests: no test may wait on a worker for longer than this.
GUARD = 20

Point = collections.namedtuple("Point", ["x", "y"])


# Datasets live at module level so the 'spawn' test can pickle them into its workers.
class RangeDataset(Dataset):
    """Sample i is a dict with tensors and Python values derived from i."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": minitorch.full((3,), float(i)), "i": i, "name": f"s{i}"}


class SeedProbe(Dataset):
    """Returns which worker produced sample i and a few random numbers drawn there."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        wid = -1 if info is None else info.id
        seed = -1 if info is None else info.seed
        return wid, seed, float(minitorch.rand(1).item()), random.random(), float(np.random.rand())


class Failing(Dataset):
    def __init__(self, bad, exc=ValueError):
        self.bad, self.exc = bad, exc

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc(f"bad sample {i}")
        return i


class Dying(Dataset):
    """Sample `bad` kills the worker that fetches it, by os._exit or by a signal."""

    def __init__(self, bad, how="exit"):
        self.bad, self.how = bad, how

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.bad and get_worker_info() is not None:
            if self.how == "exit":
                os._exit(3)
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Slow(Dataset):
    def __init__(self, delay):
        self.delay = delay

    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(self.delay)
        return i


class PidDataset(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return i, os.getpid()


class Stream(IterableDataset):
    """0..n-1, split between workers by get_worker_info() when `shard` is set."""

    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __len__(self):
        return self.n

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.n))
        per = math.ceil(self.n / info.num_workers)
        return iter(range(info.id * per, min(self.n, (info.id + 1) * per)))


class MixedTensors(Dataset):
    """Tensors the shared-memory path must carry exactly: dtypes, bfloat16, empty, non-contiguous."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        m = minitorch.arange(12).reshape(3, 4) + i
        return {
            "f64": minitorch.full((2,), i + 0.5, dtype=minitorch.float64),
            "i32": minitorch.full((2,), i, dtype=minitorch.int32),
            "u8": minitorch.full((2,), i, dtype=minitorch.uint8),
            "b": minitorch.tensor([i % 2 == 0]),
            "bf16": minitorch.full((2,), i + 0.5).to(minitorch.bfloat16),
            "empty": minitorch.zeros(0, 3),
            "t": m.t(),  # non-contiguous
        }


class Offset(Dataset):
    offset = 0

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return i + self.offset


def _init_offset(worker_id):
    # runs in the worker, on the worker's copy of the dataset
    get_worker_info().dataset.offset = 100 * (worker_id + 1)


class Big(Dataset):
    """Samples large enough (16 KiB and more) to travel through shared-memory files, not inline."""

    def __len__(self):
        return 24

    def __getitem__(self, i):
        base = minitorch.arange(4096, dtype=minitorch.float32) + 10000 * i
        return {
            "x": base,
            "t": base.reshape(64, 64).t(),  # non-contiguous
            "bf16": base.to(minitorch.bfloat16),
            "i64": minitorch.full((4096,), i, dtype=minitorch.int64),
        }


def _add_ten(batch):
    return [b + 10 for b in batch]


def _segments(it):
    """The shared-memory files an iterator's workers left behind."""
    return glob.glob(f"{SHM_DIR}/{it._shm_prefix}*")


# --------------------------------------------------------------------------------------------- datasets


def test_tensor_dataset():
    x, y = minitorch.arange(10).float().reshape(5, 2), minitorch.arange(5)
    ds = TensorDataset(x, y)
    assert len(ds) == 5
    a, b = ds[3]
    assert a.tolist() == [6.0, 7.0] and b.item() == 3
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, minitorch.arange(4))


def test_subset_concat_chain_stack():
    base = RangeDataset(10)
    sub = Subset(base, [7, 2, 5])
    assert len(sub) == 3 and sub[0]["i"] == 7 and [s["i"] for s in sub.__getitems__([2, 1])] == [5, 2]
    cat = ConcatDataset([RangeDataset(3), RangeDataset(4)])
    assert len(cat) == 7 and cat.cumulative_sizes == [3, 7]
    assert [cat[i]["i"] for i in range(7)] == [0, 1, 2, 0, 1, 2, 3]
    assert cat[-1]["i"] == 3
    with pytest.raises(ValueError, match="absolute value of index"):
        cat[-8]
    assert len(RangeDataset(2) + RangeDataset(3)) == 5
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Stream(3)])
    chain = Stream(3) + Stream(2)
    assert isinstance(chain, ChainDataset) and list(chain) == [0, 1, 2, 0, 1] and len(chain) == 5
    st = StackDataset(a=RangeDataset(3), b=RangeDataset(3))
    assert len(st) == 3 and st[1]["b"]["i"] == 1
    with pytest.raises(ValueError, match="Size mismatch"):
        StackDataset(RangeDataset(3), RangeDataset(4))


def test_random_split():
    ds = RangeDataset(10)
    parts = random_split(ds, [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    # fractions: floors are 3, 3, 3 and the remaining sample goes to the first split
    assert [len(p) for p in random_split(ds, [0.33, 0.33, 0.34])] == [4, 3, 3]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [3, 3])
    minitorch.manual_seed(5)
    a = random_split(ds, [5, 5])[0].indices
    minitorch.manual_seed(5)
    assert random_split(ds, [5, 5])[0].indices == a
    g = [np.random.default_rng(1), np.random.default_rng(1)]
    assert (
        random_split(ds, [0.5, 0.5], generator=g[0])[1].indices
        == random_split(ds, [5, 5], generator=g[1])[1].indices
    )
    with pytest.raises(TypeError, match="minitorch.Generator or a numpy.random.Generator"):
        random_split(ds, [5, 5], generator=object())


# --------------------------------------------------------------------------------------------- samplers


def test_sequential_and_random_sampler():
    ds = range(10)
    assert list(SequentialSampler(ds)) == list(range(10)) and len(SequentialSampler(ds)) == 10
    order = list(RandomSampler(ds))
    assert sorted(order) == list(range(10))
    # without replacement, more samples than the dataset: whole permutations, then part of one
    long = list(RandomSampler(ds, num_samples=25))
    assert len(long) == 25 and sorted(long[:10]) == list(range(10)) and sorted(long[10:20]) == list(range(10))
    rep = list(RandomSampler(ds, replacement=True, num_samples=70))
    assert len(rep) == 70 and all(0 <= i < 10 for i in rep) and len(set(rep)) < 70
    minitorch.manual_seed(3)
    a = list(RandomSampler(ds))
    minitorch.manual_seed(3)
    assert list(RandomSampler(ds)) == a
    s = RandomSampler(ds, generator=np.random.default_rng(0))
    assert list(s) != list(s)  # the generator advances between epochs
    assert list(RandomSampler(ds, generator=np.random.default_rng(0))) == list(
        RandomSampler(ds, generator=np.random.default_rng(0))
    )
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(ds, num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        RandomSampler(ds, replacement=1)


def test_batch_subset_weighted_samplers():
    bs = BatchSampler(SequentialSampler(range(10)), 3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(bs) == 4
    bs = BatchSampler(SequentialSampler(range(10)), 3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(bs) == 3
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(range(3), 0, False)
    sub = SubsetRandomSampler([10, 20, 30, 40])
    assert sorted(sub) == [10, 20, 30, 40] and len(sub) == 4
    w = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200, generator=np.random.default_rng(0))
    drawn = list(w)
    assert len(drawn) == 200 and set(drawn) == {1, 3} and drawn.count(3) > drawn.count(1)
    assert sorted(WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]


@pytest.mark.parametrize(
    "n,replicas,drop_last", [(10, 3, False), (10, 3, True), (12, 4, False), (2, 4, False)]
)
def test_distributed_sampler_partitions(n, replicas, drop_last):
    ds = range(n)
    for shuffle in (False, True):
        shares = [
            list(DistributedSampler(ds, num_replicas=replicas, rank=r, shuffle=shuffle, drop_last=drop_last))
            for r in range(replicas)
        ]
        lens = {len(s) for s in shares}
        assert len(lens) == 1  # every rank gets the same number of samples
        per = lens.pop()
        assert per == len(DistributedSampler(ds, num_replicas=replicas, rank=0, drop_last=drop_last))
        flat = [i for s in shares for i in s]
        if drop_last:
            assert per == n // replicas and len(set(flat)) == len(flat)  # disjoint, tail dropped
        else:
            assert per == math.ceil(n / replicas) and set(flat) == set(range(n))  # covers all, padded
        if not shuffle and not drop_last and n % replicas == 0:
            assert shares[1] == list(range(1, n, replicas))


def test_distributed_sampler_epochs_and_errors():
    s0 = DistributedSampler(range(20), num_replicas=2, rank=0, seed=7)
    s1 = DistributedSampler(range(20), num_replicas=2, rank=1, seed=7)
    e0 = list(s0)
    assert list(s0) == e0  # same epoch, same order
    assert sorted(e0 + list(s1)) == list(range(20))  # both ranks agree on the order
    s0.set_epoch(1)
    s1.set_epoch(1)
    assert list(s0) != e0 and sorted(list(s0) + list(s1)) == list(range(20))
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))  # no process group to ask, as PyTorch


# --------------------------------------------------------------------------------------------- collate


def test_default_collate_leaves():
    t = default_collate([minitorch.tensor([1.0, 2.0]), minitorch.tensor([3.0, 4.0])])
    assert t.shape == (2, 2) and t.dtype == minitorch.float32
    ints, floats, bools = default_collate([1, 2]), default_collate([1.5, 2.0]), default_collate([True, False])
    assert ints.dtype == minitorch.int64 and ints.tolist() == [1, 2]
    assert floats.dtype == minitorch.float64 and floats.tolist() == [1.5, 2.0]
    assert bools.dtype == minitorch.bool and bools.tolist() == [True, False]
    arr = default_collate([np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)])
    assert arr.shape == (2, 2, 3) and arr.dtype == minitorch.float32
    sc = default_collate([np.int32(4), np.int32(5)])
    assert sc.dtype == minitorch.int32 and sc.tolist() == [4, 5]
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]


def test_default_collate_nested_structures():
    batch = [
        {"p": Point(minitorch.tensor(float(i)), i), "pair": (i, [i, 2 * i]), "s": str(i)} for i in range(3)
    ]
    out = default_collate(batch)
    assert isinstance(out["p"], Point)
    assert out["p"].x.tolist() == [0.0, 1.0, 2.0] and out["p"].y.tolist() == [0, 1, 2]
    assert isinstance(out["pair"], list)  # tuples become lists, as in PyTorch
    assert out["pair"][0].tolist() == [0, 1, 2]
    assert [x.tolist() for x in out["pair"][1]] == [[0, 1, 2], [0, 2, 4]]
    assert out["s"] == ["0", "1", "2"]
    od = default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert isinstance(od, collections.OrderedDict) and od["a"].tolist() == [1, 2]


def test_default_collate_errors():
    with pytest.raises(
        TypeError, match=r"batch must contain tensors, numpy arrays, numbers, dicts or lists; found"
    ):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([minitorch.zeros(2), minitorch.zeros(3)])


def test_default_convert():
    out = default_convert({"a": np.arange(3), "b": (np.float64(2.0), "s"), "c": 5, "p": Point(np.ones(1), 1)})
    assert isinstance(out["a"], minitorch.Tensor) and out["a"].tolist() == [0, 1, 2]
    assert isinstance(out["b"], list) and out["b"][0].item() == 2.0 and out["b"][1] == "s"
    assert out["c"] == 5 and isinstance(out["p"], Point) and out["p"].x.tolist() == [1.0]
    strs = np.array(["x"])
    assert default_convert(strs) is strs


# --------------------------------------------------------------------------------------------- DataLoader


def test_dataloader_batching_and_len():
    ds = RangeDataset(10)
    dl = DataLoader(ds, batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    assert batches[0]["x"].shape == (4, 3) and batches[0]["i"].tolist() == [0, 1, 2, 3]
    assert batches[2]["name"] == ["s8", "s9"]
    assert len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    assert [len(b["i"]) for b in DataLoader(ds, batch_size=4, drop_last=True)] == [4, 4]
    # batch_size=None: no batching, NumPy converted by default_convert
    unbatched = list(DataLoader([np.arange(2), np.arange(2) + 1], batch_size=None))
    assert len(unbatched) == 2 and unbatched[1].tolist() == [1, 2]
    # custom collate_fn, sampler and batch_sampler
    assert list(DataLoader(range(4), batch_size=2, collate_fn=_add_ten)) == [[10, 11], [12, 13]]
    assert [b.tolist() for b in DataLoader(range(5), batch_size=2, sampler=[4, 3, 2, 1, 0])] == [
        [4, 3],
        [2, 1],
        [0],
    ]
    dl = DataLoader(range(6), batch_sampler=[[5, 0], [1, 2, 3]])
    assert [b.tolist() for b in dl] == [[5, 0], [1, 2, 3]] and len(dl) == 2


def test_dataloader_argument_errors():
    ds = range(4)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_size=None option disables auto-batching"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="timeout option should be non-negative"):
        DataLoader(ds, timeout=-1)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified in multiprocessing"):
        DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="multiprocessing_context can only be used with multi-process"):
        DataLoader(ds, multiprocessing_context="fork")
    with pytest.raises(ValueError, match="should specify a valid start method"):
        DataLoader(ds, num_workers=1, multiprocessing_context="nope")
    dl = DataLoader(ds, batch_size=2)
    with pytest.raises(
        ValueError, match="batch_size attribute should not be set after DataLoader is initialized"
    ):
        dl.batch_size = 3
    with pytest.raises(TypeError):
        len(DataLoader(IterableDataset()))  # an IterableDataset without __len__


def test_shuffle_reproducible_with_manual_seed_and_generator():
    ds = RangeDataset(20)

    def epoch(**kw):
        return [b["i"].tolist() for b in DataLoader(ds, batch_size=6, shuffle=True, **kw)]

    minitorch.manual_seed(11)
    a1, a2 = epoch(), epoch()
    minitorch.manual_seed(11)
    assert epoch() == a1 and epoch() == a2 and a1 != a2
    assert sorted(i for b in a1 for i in b) == list(range(20))
    assert epoch(generator=np.random.default_rng(4)) == epoch(generator=np.random.default_rng(4))


def test_workers_give_the_same_batches_as_the_main_process():
    ds = RangeDataset(23)
    runs = []
    for nw in (0, 2):
        minitorch.manual_seed(123)
        dl = DataLoader(ds, batch_size=5, shuffle=True, num_workers=nw, timeout=GUARD)
        it = iter(dl)
        runs.append([(b["i"].tolist(), b["x"].tolist(), b["name"]) for b in it])
    assert runs[0] == runs[1]
    assert len(runs[0]) == 5
    assert not _segments(it)


def test_worker_seeding_and_info():
    def run():
        dl = DataLoader(SeedProbe(), batch_size=2, num_workers=2, timeout=GUARD)
        return [tuple(x.tolist() if isinstance(x, minitorch.Tensor) else x for x in b) for b in dl]

    minitorch.manual_seed(9)
    a = run()
    minitorch.manual_seed(9)
    assert run() == a  # minitorch, random and NumPy in the workers are all seeded from the loader
    wids = [w for b in a for w in b[0]]
    assert wids == [0, 0, 1, 1, 0, 0, 1, 1]  # round robin over the workers, in order
    seeds = {w: s for b in a for w, s in zip(b[0], b[1])}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker id
    # the two workers draw different random numbers
    assert a[0][2] != a[1][2] and a[0][3] != a[1][3] and a[0][4] != a[1][4]
    assert get_worker_info() is None


def test_worker_init_fn_and_spawn_context():
    ds = Offset()
    dl = DataLoader(
        ds,
        batch_size=3,
        num_workers=2,
        worker_init_fn=_init_offset,
        multiprocessing_context="spawn",
        timeout=GUARD,
    )
    assert [b.tolist() for b in dl] == [[100, 101, 102], [203, 204, 205]]
    assert ds.offset == 0  # the main process's dataset is untouched


def test_worker_exception_is_reraised_with_traceback():
    dl = DataLoader(Failing(5), batch_size=2, num_workers=2, timeout=GUARD)
    it = iter(dl)
    assert next(it).tolist() == [0, 1]
    assert next(it).tolist() == [2, 3]
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 0") as ei:
        next(it)
    msg = str(ei.value)
    assert (
        "Original Traceback (most recent call last)" in msg and "bad sample 5" in msg and "__getitem__" in msg
    )
    assert next(it).tolist() == [6, 7]  # the loader goes on after the failed batch, as PyTorch's
    it._shutdown_workers()
    it = iter(DataLoader(Failing(3, KeyError), batch_size=2, num_workers=2, timeout=GUARD))
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 1"):
        list(it)
    it._shutdown_workers()  # the traceback keeps the iterator alive until the garbage collector runs


def _raise_in_init(worker_id):
    raise OSError(f"init failed in {worker_id}")


def _unpicklable_collate(batch):
    return lambda: batch  # a batch that cannot cross the process boundary


def test_worker_errors_outside_getitem():
    # worker_init_fn fails: the error comes with the worker's first batch
    it = iter(DataLoader(range(4), batch_size=2, num_workers=1, worker_init_fn=_raise_in_init, timeout=GUARD))
    with pytest.raises(OSError, match="Caught OSError in DataLoader worker process 0(.|\n)*init failed in 0"):
        next(it)
    it._shutdown_workers()
    # the batch cannot be pickled: reported, not lost (a lost batch would leave the loader waiting)
    it = iter(
        DataLoader(range(4), batch_size=2, num_workers=1, collate_fn=_unpicklable_collate, timeout=GUARD)
    )
    with pytest.raises(Exception, match="in DataLoader worker process 0"):
        next(it)
    it._shutdown_workers()

    # an exception class pickle cannot find: re-raised as RuntimeError with the same text
    class LocalError(Exception):
        pass

    class Raiser(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            raise LocalError("local")

    it = iter(DataLoader(Raiser(), batch_size=1, num_workers=1, timeout=GUARD))
    with pytest.raises(RuntimeError, match="Caught LocalError in DataLoader worker process 0(.|\n)*local"):
        next(it)
    it._shutdown_workers()


@pytest.mark.parametrize("how,expect", [("exit", "exit code 3"), ("kill", "killed by signal SIGKILL")])
def test_dying_worker_raises_instead_of_hanging(how, expect):
    dl = DataLoader(Dying(2, how), batch_size=1, num_workers=2, timeout=GUARD)
    start = time.monotonic()
    it = iter(dl)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid \d+\) exited unexpectedly") as ei:
        list(it)
    assert expect in str(ei.value)
    assert time.monotonic() - start < GUARD / 2
    assert not any(w.is_alive() for w in it._workers)  # the others were stopped
    assert not _segments(it)


_ORPHAN_SCRIPT = """
import os, signal, sys
import minitorch
from minitorch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(minitorch.zeros(64, 8192))
it = iter(DataLoader(ds, batch_size=8, num_workers=2))
held = [next(it), next(it)]  # mapped files exist now, and workers are alive
print(it._shm_prefix, *[w.pid for w in it._workers], flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # no cleanup of any kind in this process
"""


def test_workers_clean_up_after_a_killed_main_process():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run(
        [sys.executable, "-c", _ORPHAN_SCRIPT],
        check=False,
        capture_output=True,
        text=True,
        timeout=GUARD,
        env=env,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    prefix, *pids = proc.stdout.split()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        alive = [p for p in pids if os.path.exists(f"/proc/{p}") and "zombie" not in _proc_state(p)]
        if not alive and not glob.glob(f"{SHM_DIR}/{prefix}*"):
            break
        time.sleep(0.05)
    assert not alive, "orphaned workers kept running"
    assert not glob.glob(f"{SHM_DIR}/{prefix}*"), "the workers did not remove the shared-memory files"


def _proc_state(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((line for line in f if line.startswith("State:")), "").lower()
    except OSError:
        return "gone"


def test_timeout():
    it = iter(DataLoader(Slow(3.0), batch_size=1, num_workers=1, timeout=0.3))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        next(it)
    assert time.monotonic() - start < 2.5
    it._shutdown_workers()


def test_persistent_workers_across_epochs():
    dl = DataLoader(PidDataset(), batch_size=2, num_workers=2, persistent_workers=True, timeout=GUARD)
    epochs = [[(b[0].tolist(), b[1].tolist()) for b in dl] for _ in range(3)]
    assert all([i for idx, _ in e for i in idx] == list(range(6)) for e in epochs)
    pids = [{p for _, ps in e for p in ps} for e in epochs]
    assert len(pids[0]) == 2 and pids[0] == pids[1] == pids[2] and os.getpid() not in pids[0]
    # an epoch abandoned half way: the next one still starts from the beginning
    it = iter(dl)
    next(it)
    assert [b[0].tolist() for b in dl] == [[0, 1], [2, 3], [4, 5]]
    dl._iterator._shutdown_workers()
    assert not any(w.is_alive() for w in dl._iterator._workers)
    assert [b[0].tolist() for b in dl] == [[0, 1], [2, 3], [4, 5]]  # stopped workers: new ones start
    dl._iterator._shutdown_workers()


def test_prefetch_factor_and_out_of_order_arrival():
    # worker 0 is slow on its first batch, so worker 1's batches arrive first and wait for their turn
    class FirstSlow(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            if i == 0:
                time.sleep(0.3)
            return i

    dl = DataLoader(FirstSlow(), batch_size=1, num_workers=2, prefetch_factor=3, timeout=GUARD)
    assert [b.item() for b in dl] == list(range(8))


def test_tensors_cross_processes_exactly():
    main = list(DataLoader(MixedTensors(), batch_size=2))
    it = iter(DataLoader(MixedTensors(), batch_size=2, num_workers=2, timeout=GUARD))
    work = list(it)
    for a, b in zip(main, work):
        for k in a:
            assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
            assert a[k].float().tolist() == b[k].float().tolist(), k
    # batches from workers are ordinary writable tensors
    work[0]["f64"].add_(1)
    assert work[0]["f64"].tolist() == [[1.5, 1.5], [2.5, 2.5]]
    assert not _segments(it)
    # without automatic batching the dataset's own tensors travel too
    un = list(DataLoader(MixedTensors(), batch_size=None, num_workers=1, timeout=GUARD))
    assert un[3]["t"].tolist() == (minitorch.arange(12).reshape(3, 4) + 3).t().tolist()


def test_shared_memory_files_are_exact_and_recycled():
    def files_created(it):
        # files are named <prefix>w<worker>_<n>, n counting up per worker
        last = collections.Counter()
        for f in glob.glob(f"{SHM_DIR}/{it._shm_prefix}*"):
            w, n = f.rsplit("_w", 1)[1].split("_")
            last[w] = max(last[w], int(n) + 1)
        return sum(last.values())

    expect = list(DataLoader(Big(), batch_size=4))
    dl = DataLoader(Big(), batch_size=4, num_workers=2, persistent_workers=True, timeout=GUARD)
    held = list(dl)  # every batch kept alive: no file may be reused while a tensor maps it
    made = []
    for _ in range(3):  # batches dropped at once: their files go back to the workers
        before = files_created(dl._iterator)
        for b in dl:
            assert b["x"][0, 1].item() == b["x"][0, 0].item() + 1
        made.append(files_created(dl._iterator) - before)
    # the first epoch fills the pool of files in circulation; later epochs (6 batches x 4 tensors each) reuse it
    assert made[1] + made[2] <= 8, made
    held += list(dl)
    for a, b in zip(expect + expect, held):
        for k in a:
            assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
            assert minitorch.equal(a[k], b[k]), k
    prefix = dl._iterator._shm_prefix
    dl._iterator._shutdown_workers()
    assert not glob.glob(f"{SHM_DIR}/{prefix}*")
    assert held[0]["x"].sum().item() == expect[0]["x"].sum().item()  # mappings outlive the files
    # without automatic batching, each sample's tensors travel (strided and bfloat16 included)
    un = list(DataLoader(Big(), batch_size=None, num_workers=1, timeout=GUARD))
    assert minitorch.equal(un[5]["t"], Big()[5]["t"]) and minitorch.equal(un[5]["bf16"], Big()[5]["bf16"])


def test_iterable_dataset_sharding_and_len():
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(DataLoader(Stream(7), batch_size=3)) == 3
    assert len(DataLoader(Stream(7), batch_size=3, drop_last=True)) == 2
    sharded = [b.tolist() for b in DataLoader(Stream(10), batch_size=2, num_workers=2, timeout=GUARD)]
    assert sorted(i for b in sharded for i in b) == list(range(10))
    # worker 0 has 0..4 and worker 1 has 5..9: batches alternate between them until one runs out
    assert sharded[:2] == [[0, 1], [5, 6]]
    # without sharding each worker yields the whole stream
    dup = [
        i
        for b in DataLoader(Stream(4, shard=False), batch_size=3, num_workers=2, timeout=GUARD)
        for i in b.tolist()
    ]
    assert sorted(dup) == sorted(list(range(4)) * 2)
    per = [
        b.tolist() for b in DataLoader(Stream(5), batch_size=2, drop_last=True, num_workers=2, timeout=GUARD)
    ]
    assert sorted(per) == [[0, 1], [3, 4]]  # each worker drops its own short tail
    persistent = DataLoader(Stream(6), batch_size=2, num_workers=2, persistent_workers=True, timeout=GUARD)
    assert sorted(i for _ in range(2) for b in persistent for i in b.tolist()) == sorted(list(range(6)) * 2)
    persistent._iterator._shutdown_workers()


def test_pin_memory():
    ds = TensorDataset(minitorch.arange(6).float())
    if not minitorch.cuda.is_available():
        with pytest.warns(
            UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"
        ):
            batches = list(DataLoader(ds, batch_size=3, pin_memory=True))
        assert not batches[0][0].is_pinned() and batches[1][0].tolist() == [3.0, 4.0, 5.0]
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for nw in (0, 2):
            batches = list(DataLoader(ds, batch_size=3, pin_memory=True, num_workers=nw, timeout=GUARD))
            assert all(b[0].is_pinned() for b in batches)
            assert batches[1][0].to("cuda", non_blocking=True).cpu().tolist() == [3.0, 4.0, 5.0]
