"""Timing shared by the benchmarks: calibrated loop counts, interleaved repeats, medians, readable units."""

import statistics
import timeit


def loops_for(fn, min_time, warmup=5, cap=1 << 24):
    """How many calls of fn fill about min_time seconds (after warm-up calls)."""
    timer = timeit.Timer(fn)
    for _ in range(warmup):
        fn()
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_time / 5 or number >= cap:
            break
        number *= 2
    return max(1, int(number * min_time / max(t, 1e-9)))


def bench(cases, repeats, min_time):
    """cases: {column: fn}; repeats interleaved (A, B, A, B ...) so drift hits every column alike; the median
    seconds per call of each column."""
    loops = {k: loops_for(fn, min_time) for k, fn in cases.items()}
    samples = {k: [] for k in cases}
    for _ in range(repeats):
        for k, fn in cases.items():
            samples[k].append(timeit.Timer(fn).timeit(loops[k]) / loops[k])
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
