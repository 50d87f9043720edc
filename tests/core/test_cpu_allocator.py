"""The CPU allocator's caches (core/Allocator.cpp): freed large blocks (process-wide) and freed small blocks
(per thread). A block freed is handed to the next request of its size, live tensors never share memory, what
the caches hold is capped (the rest goes back to the OS or to glibc), a thread's small blocks are handed back
when it exits, and both stay consistent across threads and fork."""

import inspect
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import minitorch as torch

MiB = 1 << 20
CACHE_CAP = 256 * MiB  # kCacheCap in core/Allocator.cpp
linux_only = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")


@pytest.mark.parametrize("nbytes", [256 << 10, 3 * MiB + 8, 8 * MiB])
def test_freed_large_block_is_reused(nbytes):
    x = torch.empty(nbytes // 8, dtype=torch.float64)
    p = x.data_ptr()
    del x
    y = torch.empty(nbytes // 8, dtype=torch.float64)
    assert y.data_ptr() == p
    # a reused block is not zeroed memory: zeros() still fills it
    y.fill_(7.0)
    del y
    z = torch.zeros(nbytes // 8, dtype=torch.float64)
    assert z.data_ptr() == p
    assert not z.numpy().any()


@linux_only
def test_zeros_of_a_fresh_block_leave_its_pages_untouched():
    """zeros, full(0), full(False) and zeros_like of a block mapped fresh for them skip the fill (the kernel's
    pages read as zeros, as numpy's calloc'd zeros): resident memory grows only where the tensor is written.
    Values of every spelling are zeros; -0.0 (not zero bits) and 1 are still filled; a block the cache hands
    out again is filled (test_freed_large_block_is_reused)."""

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    n = (CACHE_CAP + 44 * MiB) // 4  # past the cache's cap: mapped fresh and unmapped when freed
    for make in (
        lambda: torch.zeros(n),
        lambda: torch.full((n,), 0),
        lambda: torch.full((n,), False),
        lambda: torch.zeros(n // 2, 2, dtype=torch.int32),
        lambda: torch.zeros_like(torch.empty(n)),
    ):
        before = rss()
        z = make()
        assert rss() - before < 16 * MiB
        assert (
            z.numel() == n
            and not z.reshape(-1)[:4096].numpy().any()
            and not z.reshape(-1)[-4096:].numpy().any()
        )
        z.reshape(-1)[n // 2] = 1
        assert z.reshape(-1)[n // 2].item() == 1 and z.reshape(-1)[n // 2 + 1].item() == 0
        assert z.count_nonzero().item() == 1
        del z
    m = torch.full((n,), -0.0)
    assert np.signbit(m.numpy()).all()
    del m
    o = torch.full((n,), 1, dtype=torch.int8)
    assert (o.numpy() == 1).all()


def test_small_request_does_not_take_a_much_bigger_block():
    big = torch.empty(16 * MiB // 4)
    p = big.data_ptr()
    del big
    small = torch.empty(MiB // 4)  # a 16 MiB block would waste 15 of them
    assert small.data_ptr() != p


def test_live_tensors_never_share_memory():
    xs = [torch.full((MiB // 8,), float(i), dtype=torch.float64) for i in range(24)]
    del xs[::2]  # free every other one: the cache now holds blocks of this size
    ys = [torch.full((MiB // 8,), -float(i), dtype=torch.float64) for i in range(12)]
    ptrs = [t.data_ptr() for t in xs + ys]
    assert len(set(ptrs)) == len(ptrs)
    for i, t in zip(range(1, 24, 2), xs):
        np.testing.assert_array_equal(t.numpy(), np.full(MiB // 8, float(i)))
    for i, t in enumerate(ys):
        np.testing.assert_array_equal(t.numpy(), np.full(MiB // 8, -float(i)))


def run_script(body):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)],
        check=False,
        env=env,
        timeout=120,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


@linux_only
@pytest.mark.skipif(bool(os.environ.get("MINITORCH_SANITIZED")), reason="ASan keeps freed memory on purpose")
def test_cache_is_capped_and_the_rest_goes_back_to_the_os():
    # in a fresh process: what earlier tests left in the cache would change what it can take
    run_script(
        f"""
        import os
        import minitorch as torch
        MiB, CAP = 1 << 20, {CACHE_CAP}

        def rss_bytes():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

        n = 40  # 40 live 10 MiB blocks (400 MiB), more than the cache may keep
        rss0 = rss_bytes()
        xs = [torch.ones(10 * MiB // 4) for _ in range(n)]
        rss_peak = rss_bytes()
        assert rss_peak - rss0 > n * 10 * MiB * 0.9, (rss0, rss_peak)  # the pages were really touched
        del xs
        rss1 = rss_bytes()
        assert CAP - 16 * MiB <= rss1 - rss0 <= CAP + 16 * MiB, (rss0, rss_peak, rss1)
        # what the cache kept serves the next requests without growing the process
        ys = [torch.ones(10 * MiB // 4) for _ in range(CAP // (10 * MiB))]
        assert rss_bytes() - rss1 < 16 * MiB, (rss1, rss_bytes())
        assert all(float(y[123]) == 1.0 for y in ys)
        """
    )


def test_free_on_another_thread_and_concurrent_use():
    errors = []

    def churn(seed):
        try:
            rng = np.random.default_rng(seed)
            for _ in range(60):
                n = int(rng.choice([MiB // 8, 3 * MiB // 8, 5 * MiB // 8]))
                t = torch.full((n,), float(seed), dtype=torch.float64)
                u = t + 1.0
                if float(u[n - 1]) != seed + 1.0 or float(t.sum()) != seed * n:
                    errors.append(seed)
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)

    threads = [threading.Thread(target=churn, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    # tensors made here and freed on other threads (and the other way round)
    made_here = [torch.full((MiB // 8,), 2.0, dtype=torch.float64) for _ in range(8)]
    freed_there = []

    def free_them():
        while made_here:
            made_here.pop()
        freed_there.append(torch.full((3 * MiB // 8,), 5.0, dtype=torch.float64))

    f = threading.Thread(target=free_them)
    f.start()
    f.join()
    for t in threads:
        t.join()
    assert not errors
    np.testing.assert_array_equal(freed_there[0].numpy(), 5.0)
    del freed_there[:]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_while_another_thread_allocates():
    """DataLoader workers fork while other threads may be inside the allocator: the child must not inherit a
    locked cache, and the blocks it inherits are its own copies. A hang fails by the timeout."""
    script = """
        import os, sys, threading
        import minitorch as torch
        MiB = 1 << 20
        keep = [torch.full((2 * MiB // 8,), 3.0, dtype=torch.float64) for _ in range(4)]
        stop = False
        def churn():
            while not stop:
                a = torch.empty(2 * MiB // 8, dtype=torch.float64)
                b = torch.empty(5 * MiB // 8, dtype=torch.float64)
                del a, b
        t = threading.Thread(target=churn)
        t.start()
        for _ in range(20):
            pid = os.fork()
            if pid == 0:
                xs = [torch.full((2 * MiB // 8,), 1.0, dtype=torch.float64) for _ in range(3)]
                del xs
                ys = [torch.full((5 * MiB // 8,), 2.0, dtype=torch.float64) for _ in range(3)]
                ok = all(float(y.sum()) == 2.0 * 5 * MiB // 8 for y in ys)
                ok = ok and all(float(k.sum()) == 3.0 * 2 * MiB // 8 for k in keep)
                os._exit(0 if ok else 3)
            _, status = os.waitpid(pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                stop = True
                t.join()
                sys.exit(4)
        stop = True
        t.join()
        """
    run_script(script)


SMALL_SIZES = [1, 16, 100, 250, 1000, 4000, 30_000, 65_000]  # float32 elements: 64 B to 254 KiB blocks


@pytest.mark.skipif(bool(os.environ.get("MINITORCH_SANITIZED")), reason="ASan builds keep no small cache")
@pytest.mark.parametrize("n", SMALL_SIZES)
def test_freed_small_block_is_reused(n):
    def check():  # on a fresh thread: its cache is empty, so it has room for the freed block
        x = torch.empty(n)
        p = x.data_ptr()
        del x
        y = torch.empty(n)  # last freed, first reused, in the same thread
        assert y.data_ptr() == p
        assert p % 64 == 0
        del y
        z = torch.zeros(n)
        assert z.data_ptr() == p
        assert not z.numpy().any()

    errors = []
    t = threading.Thread(target=lambda: _record_errors(check, errors))
    t.start()
    t.join()
    assert not errors, errors


def _record_errors(f, errors):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - reported by the caller's assertion
        errors.append(e)


def test_small_live_tensors_never_share_memory():
    rng = np.random.default_rng(0)
    sizes = [int(rng.choice(SMALL_SIZES)) for _ in range(400)]
    xs = [torch.full((n,), float(i)) for i, n in enumerate(sizes)]
    del xs[::2]
    ys = [torch.full((n,), -float(i)) for i, n in enumerate(sizes[::2])]
    ptrs = [t.data_ptr() for t in xs + ys]
    assert len(set(ptrs)) == len(ptrs)
    for i, t in zip(range(1, 400, 2), xs):
        assert t.data_ptr() % 64 == 0
        np.testing.assert_array_equal(t.numpy(), float(i))
    for i, t in enumerate(ys):
        np.testing.assert_array_equal(t.numpy(), -float(i))


def test_small_blocks_freed_on_another_thread():
    made_here = [torch.full((n,), 2.0) for n in SMALL_SIZES for _ in range(20)]
    out, errors = [], []

    def free_and_reuse():
        try:
            made_here.clear()  # freed into this thread's cache ...
            out.extend(
                torch.full((n,), 5.0) for n in SMALL_SIZES for _ in range(20)
            )  # ... and served from it
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)

    t = threading.Thread(target=free_and_reuse)
    t.start()
    t.join()
    assert not errors
    assert len({x.data_ptr() for x in out}) == len(out)
    for x in out:
        np.testing.assert_array_equal(x.numpy(), 5.0)
    del out[:]  # freed here, made there


@linux_only
@pytest.mark.skipif(bool(os.environ.get("MINITORCH_SANITIZED")), reason="ASan keeps freed memory on purpose")
def test_exiting_threads_hand_their_small_blocks_back():
    # each thread fills its cache (4 MiB) and exits: were the blocks kept, 64 threads would hold 256 MiB;
    # handed back, the next threads' glibc arenas reuse them
    run_script(
        """
        import os, threading
        import minitorch as torch

        def rss_bytes():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

        def churn():
            xs = [torch.ones(256) for _ in range(4 * 1024)]  # 4096 live 1 KiB tensors, then freed
            assert float(xs[-1].sum()) == 256.0
            del xs

        churn()
        rss0 = rss_bytes()
        for _ in range(64):
            t = threading.Thread(target=churn)
            t.start()
            t.join()
        grown = rss_bytes() - rss0
        assert grown < 64 * (1 << 20), grown
        """
    )


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_with_small_blocks_cached():
    """A forked child inherits the forking thread's cached small blocks as its own copies and uses them; the
    parent's other threads (which have caches too) do not exist there."""
    script = """
        import os, sys, threading
        import minitorch as torch
        keep = [torch.full((100,), 3.0) for _ in range(50)]
        stop = False
        def churn():
            while not stop:
                xs = [torch.empty(100) for _ in range(20)]
                del xs
        t = threading.Thread(target=churn)
        t.start()
        junk = [torch.empty(100) for _ in range(100)]
        del junk  # cached in this thread
        for _ in range(10):
            pid = os.fork()
            if pid == 0:
                xs = [torch.full((100,), 1.0) for _ in range(200)]
                ok = len({x.data_ptr() for x in xs}) == 200 and all(float(x.sum()) == 100.0 for x in xs)
                ok = ok and all(float(k.sum()) == 300.0 for k in keep)
                os._exit(0 if ok else 3)
            _, status = os.waitpid(pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                stop = True
                t.join()
                sys.exit(4)
        stop = True
        t.join()
        """
    run_script(script)


def _thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read().split("[")[1].split("]")[0]
    except OSError:
        return None


def _advised(addr):
    """Whether the mapping holding addr is advised as huge pages (madvise(MADV_HUGEPAGE): VmFlags' hg),
    whatever the kernel then gave; run in the process that owns the block."""
    with open("/proc/self/smaps") as f:
        inside = False
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo <= addr < hi
            elif inside and head == "VmFlags:":
                return "hg" in line.split()[1:]
    raise AssertionError("no mapping holds the block")


HUGE_AFTER_REUSES = 64  # kHugeAfterReuses in core/Allocator.cpp


@linux_only
@pytest.mark.skipif(_thp_mode() is None, reason="needs a kernel with transparent huge pages")
@pytest.mark.parametrize("switch", [None, "0", "1"])
def test_huge_pages_for_blocks_the_cache_keeps_handing_out(switch):
    """THP_MEM_ALLOC_ENABLE=1 (PyTorch's switch) advises every big block as transparent huge pages when it is
    mapped, as PyTorch's CPU allocator; 0 never. Unset, a block is advised only once the cache has handed it
    out again HUGE_AFTER_REUSES times, and only where the kernel's mode is 'madvise' ('always' needs no
    advice, 'never' forbids it): a huge-page fault can cost ~5 ms on a VM, which a program whose tensors
    outgrow the cache would pay on every fresh block. The block's values stay right across the switch."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("THP_MEM_ALLOC_ENABLE", None)
    if switch is not None:
        env["THP_MEM_ALLOC_ENABLE"] = switch
    script = inspect.getsource(_advised) + textwrap.dedent(
        f"""
        import json
        import minitorch as torch

        n = 8 << 18  # 8 MiB of float32
        flags, ptrs = [], []
        for i in range({HUGE_AFTER_REUSES} + 3):
            x = torch.full((n,), float(i)) if i % 2 else torch.zeros(n)
            ptrs.append(x.data_ptr())
            flags.append(_advised(x.data_ptr()))
            assert (x.numpy() == (i % 2) * i).all(), i
            del x
        assert len(set(ptrs)) == 1, ptrs  # the same block, handed out again
        print(json.dumps(flags))
        """
    )
    r = subprocess.run(
        [sys.executable, "-c", script], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr[-2000:]
    flags = json.loads(r.stdout.split("\n")[-2])
    if switch == "1":
        expected = [True] * len(flags)
    elif switch is None and _thp_mode() == "madvise":
        expected = [reuses >= HUGE_AFTER_REUSES for reuses in range(len(flags))]
    else:
        expected = [False] * len(flags)
    assert flags == expected


@linux_only
@pytest.mark.skipif(_thp_mode() != "madvise", reason="needs the kernel's THP mode 'madvise'")
def test_blocks_live_through_a_settled_loop_are_collapsed_in_place():
    """When a loop has settled (a block handed out again HUGE_AFTER_REUSES times), the big blocks that stayed
    live through all its steps (since before that block was mapped: a loop's inputs and weights) are
    collapsed into huge pages in place: their values stay. A block made after the loop began is left alone."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("THP_MEM_ALLOC_ENABLE", None)
    script = inspect.getsource(_advised) + textwrap.dedent(
        f"""
        import minitorch as torch

        n, m = 8 << 18, 6 << 18  # 8 and 6 MiB of float32
        old = torch.full((n,), 5.0)
        t = torch.empty(m)
        del t
        t = torch.empty(m)  # the cache's first hand-out
        del t
        young = torch.full((n,), 7.0)
        assert not _advised(old.data_ptr()) and not _advised(young.data_ptr())
        for _ in range({HUGE_AFTER_REUSES} - 1):
            t = torch.empty(m)
            del t
        assert _advised(old.data_ptr())
        assert not _advised(young.data_ptr())
        assert (old.numpy() == 5.0).all() and (young.numpy() == 7.0).all()
        """
    )
    r = subprocess.run(
        [sys.executable, "-c", script], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr[-2000:]
