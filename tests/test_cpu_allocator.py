"""The CPU allocator's cache of freed large blocks (core/Allocator.cpp): a block freed is handed to the next
request of its size, live tensors never share memory, what the cache holds is capped (the rest goes back to
the OS), and it stays consistent across threads and fork."""

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
