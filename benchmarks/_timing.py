"""Timing shared by the benchmarks: calibrated loop counts, interleaved repeats, medians, readable units."""

import statistics
import time
import timeit


def _nothing():
    pass


def loops_for(fn, min_time, warmup=5, cap=1 << 24, sync=_nothing):
    """How many calls of fn fill about min_time seconds (after warm-up calls); sync waits for queued work."""
    timer = timeit.Timer(fn)
    for _ in range(warmup):
        fn()
    sync()
    number = 1
    while True:
        t0 = time.perf_counter()
        timer.timeit(number)
        sync()
        t = time.perf_counter() - t0
        if t >= min_time / 5 or number >= cap:
            break
        number *= 2
    return max(1, int(number * min_time / max(t, 1e-9)))


def bench(cases, repeats, min_time, sync=None):
    """cases: {column: fn}; repeats interleaved (A, B, A, B ...) so drift hits every column alike; the median
    seconds per call of each column. sync: {column: fn} that waits for the column's queued device work (CUDA),
    called once after each timed batch, so a batch measures throughput, not one launch's latency."""
    sync = sync or {}
    loops = {k: loops_for(fn, min_time, sync=sync.get(k, _nothing)) for k, fn in cases.items()}
    samples = {k: [] for k in cases}
    for _ in range(repeats):
        for k, fn in cases.items():
            s = sync.get(k, _nothing)
            t0 = time.perf_counter()
            timeit.Timer(fn).timeit(loops[k])
            s()
            samples[k].append((time.perf_counter() - t0) / loops[k])
    return {k: statistics.median(s) for k, s in samples.items()}


def fmt(s):
    """Seconds in us / ms / s; '-' for a missing measurement."""
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"
