"""The CPU thread pool (core/Parallel.cpp): back-to-back parallel regions of every size agree with one thread,
set_num_threads switches back and forth, several Python threads share the pool, and a forked child after
threaded work runs its own ops. Builds with oneDNN on OpenMP run parallel_for on OpenMP's team: the tests run
again in a subprocess with MINITORCH_THREAD_POOL=own, on our own pool."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from utils import rerun_in_child

import minitorch as torch


@pytest.fixture
def threads():
    old = torch.get_num_threads()
    yield
    torch.set_num_threads(old)


def test_many_back_to_back_regions_match_one_thread(threads):
    # sizes around the point where an elementwise op splits (32768 elements) and far above it, one after the
    # other, so regions start while the workers are still finishing (or spinning after) the last one
    rng = np.random.default_rng(0)
    xs = [torch.tensor(rng.standard_normal(n)) for n in (1000, 40000, 70000, 300000, 65536)]
    ref = [np.exp(x.numpy()) * 2.0 for x in xs]
    for nthreads in (2, 3, 1, 2):
        torch.set_num_threads(nthreads)
        for _ in range(150):
            for x, r in zip(xs, ref):
                np.testing.assert_allclose((x.exp() * 2.0).numpy(), r, rtol=1e-15)


def test_row_kernels_and_reductions_do_not_depend_on_threads(threads):
    rng = np.random.default_rng(1)
    a = torch.tensor(rng.standard_normal((512, 300)))
    out = []
    for nthreads in (1, 2, 4):
        torch.set_num_threads(nthreads)
        out.append(
            [
                torch.softmax(a, 1).numpy(),
                a.mean(1).numpy(),
                a.sum(0).numpy(),
                torch.nn.functional.layer_norm(a, [300]).numpy(),
            ]
        )
    for got in out[1:]:
        np.testing.assert_array_equal(got[0], out[0][0])
        np.testing.assert_array_equal(got[1], out[0][1])
        np.testing.assert_array_equal(got[2], out[0][2])
        np.testing.assert_array_equal(got[3], out[0][3])
    np.testing.assert_allclose(
        out[0][0], np.exp(a.numpy()) / np.exp(a.numpy()).sum(1, keepdims=True), rtol=1e-12
    )


def test_python_threads_share_the_pool(threads):
    torch.set_num_threads(2)
    rng = np.random.default_rng(2)
    xs = [torch.tensor(rng.standard_normal(200000)) for _ in range(4)]
    refs = [(x.tanh() + 1.0).numpy() for x in xs]  # one region at a time
    for x, r in zip(xs, refs):
        np.testing.assert_allclose(r, np.tanh(x.numpy()) + 1.0, rtol=1e-12, atol=1e-15)
    bad = []

    def run(i):
        for _ in range(100):
            if not np.array_equal((xs[i].tanh() + 1.0).numpy(), refs[i]):
                bad.append(i)

    ts = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def test_error_in_a_parallel_region_reaches_the_caller(threads):
    torch.set_num_threads(2)
    x = torch.randn(100000, 8)
    idx = torch.zeros(100000, dtype=torch.int64)
    idx[77777] = 100000  # out of range, in the second half of the rows
    with pytest.raises(IndexError):
        x.index_select(0, idx)
    # the pool is still usable
    np.testing.assert_allclose(x.exp().numpy(), np.exp(x.numpy()), rtol=1e-6)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_after_threaded_work():
    """The child forks right after threaded regions (workers may be spinning): it rebuilds the pool and its ops
    agree with the parent's. A hang fails by the timeout."""
    script = textwrap.dedent(
        """
        import os, sys
        import numpy as np
        import minitorch as torch
        torch.set_num_threads(2)
        x = torch.randn(1000000)
        ref = (x.exp() + x.sigmoid()).numpy()
        for _ in range(5):
            y = x.exp() + x.sigmoid()
            pid = os.fork()
            if pid == 0:
                torch.set_num_threads(2)
                ok = all(np.array_equal((x.exp() + x.sigmoid()).numpy(), ref) for _ in range(20))
                os._exit(0 if ok else 3)
            _, status = os.waitpid(pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(4)
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run(
        [sys.executable, "-c", script], check=False, env=env, timeout=120, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr[-2000:]


@pytest.mark.skipif(os.environ.get("MINITORCH_THREAD_POOL") == "own", reason="already on our own pool")
def test_own_pool_passes_the_same_tests():
    rerun_in_child(__file__, "not own_pool", timeout=300, MINITORCH_THREAD_POOL="own")


def test_omp_num_threads_sets_the_default():
    # As PyTorch: OMP_NUM_THREADS (else MKL_NUM_THREADS) picks the default thread count; junk is ignored.
    def count(**env):
        base = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
        r = subprocess.run(
            [sys.executable, "-c", "import minitorch; print(minitorch.get_num_threads())"],
            env={**base, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return int(r.stdout)

    default = count()
    assert default >= 1
    assert count(OMP_NUM_THREADS="3") == 3
    assert count(MKL_NUM_THREADS="2") == 2
    assert count(OMP_NUM_THREADS="1", MKL_NUM_THREADS="2") == 1
    assert count(OMP_NUM_THREADS="abc") == default
    assert count(OMP_NUM_THREADS="0") == default


def _two_vs_one_thread_results():
    """exp/add/sigmoid/where (elementwise), softmax and a row sum at 1 and 2 threads (not GEMMs: OpenBLAS's
    threaded kernels can round differently from its one-thread ones)"""
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.standard_normal(300000).astype(np.float32))
    y = torch.tensor(rng.standard_normal(300000).astype(np.float32))
    m = torch.tensor(rng.standard_normal((512, 300)))
    out = {"inputs": (x.numpy(), y.numpy(), m.numpy())}
    for n in (1, 2):
        torch.set_num_threads(n)
        out[n] = [
            x.exp().numpy(),
            (x + y).numpy(),
            torch.sigmoid(x).numpy(),
            torch.where(x > 0, x, y).numpy(),
            torch.softmax(m, 1).numpy(),
            m.sum(1).numpy(),
        ]
    return out


def test_two_threads_give_the_bits_of_one(threads):
    out = _two_vs_one_thread_results()
    for got, ref in zip(out[2], out[1]):
        np.testing.assert_array_equal(got, ref)
    x, y, m = out["inputs"]
    np.testing.assert_allclose(out[1][0], np.exp(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_array_equal(out[1][1], x + y)
    np.testing.assert_allclose(out[1][5], m.sum(1), rtol=1e-12)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity")
def test_oversubscribed_two_threads_back_off_with_the_same_bits():
    """Two threads squeezed onto one CPU beside a busy loop: OpenMP's worker is late, so parallel_for backs off
    to the calling thread (the late-worker guard), and the results keep the bits of the regions it ran in
    parallel (the same chunks, in order). Our own pool's caller takes the chunks a preempted worker has not
    started, so there the bits are checked without asking for a back-off."""
    script = textwrap.dedent(
        """
        import os, subprocess, sys
        import numpy as np
        import minitorch as torch
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        torch.set_num_threads(2)
        # a region of 65536 elements takes tens of microseconds, so a worker that misses it by a scheduler
        # slice is late in any build; the large ones (a scalar build's exp of 1M takes milliseconds a half)
        # are often not late by the guard's rule, but their bits are checked while it is on
        s = torch.randn(1 << 16, dtype=torch.float64)
        x = torch.randn(1 << 20, dtype=torch.float64)
        m = torch.randn(4096, 512, dtype=torch.float64)
        ops = lambda: [s.exp().numpy(), x.exp().numpy(), x.sum().item(), m.sum(1).numpy(), torch.softmax(m, 1).numpy()]
        ref = ops()
        spin = subprocess.Popen([sys.executable, "-c", "import os; os.sched_setaffinity(0, {%d})\\nwhile True: pass" % cpu])
        try:
            backed_off = 0  # calls checked while the guard was on
            for _ in range(300 if os.environ.get("MINITORCH_THREAD_POOL") != "own" else 60):
                on = torch._C._parallel_backing_off()
                got = ops()
                for g, r in zip(got, ref):
                    if not np.array_equal(g, r):
                        sys.exit(3)
                backed_off += on
                if backed_off >= 5:
                    break
        finally:
            spin.kill()
            spin.wait()
        sys.exit(0 if backed_off >= 5 or os.environ.get("MINITORCH_THREAD_POOL") == "own" else 4)
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run(
        [sys.executable, "-c", script], check=False, env=env, timeout=300, capture_output=True, text=True
    )
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
