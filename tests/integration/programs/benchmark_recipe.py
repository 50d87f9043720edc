# Follows PyTorch's "PyTorch Benchmark" recipe (recipes/recipes/benchmark.py): two ways of a batched dot
# product timed with timeit and with torch.utils.benchmark.Timer (timeit, blocked_autorange, threads), the
# results of a size x thread sweep gathered in a Compare table (plain, then trimmed and colored), and saved
# and loaded with pickle. Smaller sizes and run times than the recipe's, so that it runs in seconds; the
# fuzzer section is left out. Asserts the two functions agree and the table holds every measurement.
import pickle
import timeit
from itertools import product

import torch
import torch.utils.benchmark as benchmark  # noqa: PLR0402  (the recipe's import)


def batched_dot_mul_sum(a, b):
    """Computes batched dot by multiplying and summing"""
    return a.mul(b).sum(-1)


def batched_dot_bmm(a, b):
    """Computes batched dot by reducing to ``bmm``"""
    a = a.reshape(-1, 1, a.shape[-1])
    b = b.reshape(-1, b.shape[-1], 1)
    return torch.bmm(a, b).flatten(-3)


# Input for benchmarking
x = torch.randn(10000, 64)

# Ensure that both functions compute the same output
assert batched_dot_mul_sum(x, x).allclose(batched_dot_bmm(x, x))

# ---- Benchmarking with timeit.Timer
t0 = timeit.Timer(
    stmt="batched_dot_mul_sum(x, x)", setup="from __main__ import batched_dot_mul_sum", globals={"x": x}
)
t1 = timeit.Timer(
    stmt="batched_dot_bmm(x, x)", setup="from __main__ import batched_dot_bmm", globals={"x": x}
)
print(f"mul_sum(x, x):  {t0.timeit(100) / 100 * 1e6:>5.1f} us")
print(f"bmm(x, x):      {t1.timeit(100) / 100 * 1e6:>5.1f} us")

# ---- Benchmarking with torch.utils.benchmark.Timer
t0 = benchmark.Timer(
    stmt="batched_dot_mul_sum(x, x)", setup="from __main__ import batched_dot_mul_sum", globals={"x": x}
)
t1 = benchmark.Timer(
    stmt="batched_dot_bmm(x, x)", setup="from __main__ import batched_dot_bmm", globals={"x": x}
)
m = t0.timeit(100)
print(m)
print(t1.timeit(100))
assert m.number_per_run == 100 and len(m.times) == 1 and m.times[0] > 0

# ---- Benchmarking with multiple threads
num_threads = torch.get_num_threads()
print(f"Benchmarking on {num_threads} threads")
t0 = benchmark.Timer(
    stmt="batched_dot_mul_sum(x, x)",
    setup="from __main__ import batched_dot_mul_sum",
    globals={"x": x},
    num_threads=num_threads,
    label="Multithreaded batch dot",
    sub_label="Implemented using mul and sum",
)
t1 = benchmark.Timer(
    stmt="batched_dot_bmm(x, x)",
    setup="from __main__ import batched_dot_bmm",
    globals={"x": x},
    num_threads=num_threads,
    label="Multithreaded batch dot",
    sub_label="Implemented using bmm",
)
print(t0.timeit(100))
print(t1.timeit(100))

# ---- blocked_autorange
m0 = t0.blocked_autorange(min_run_time=0.05)
m1 = t1.blocked_autorange(min_run_time=0.05)
print(m0)
print(m1)
print(f"Mean:   {m0.mean * 1e6:6.2f} us")
print(f"Median: {m0.median * 1e6:6.2f} us")
assert sum(m0.raw_times) >= 0.05 and m0.median > 0 and "Multithreaded batch dot" in repr(m0)

# ---- Comparing benchmark results
results = []
sizes = [1, 64, 1024]
threads = [1, 2]
for b, n in product(sizes, sizes):
    # label and sub_label are the rows
    # description is the column
    label = "Batched dot"
    sub_label = f"[{b}, {n}]"
    x = torch.ones((b, n))
    for num_threads in threads:
        results.append(
            benchmark.Timer(
                stmt="batched_dot_mul_sum(x, x)",
                setup="from __main__ import batched_dot_mul_sum",
                globals={"x": x},
                num_threads=num_threads,
                label=label,
                sub_label=sub_label,
                description="mul/sum",
            ).blocked_autorange(min_run_time=0.01)
        )
        results.append(
            benchmark.Timer(
                stmt="batched_dot_bmm(x, x)",
                setup="from __main__ import batched_dot_bmm",
                globals={"x": x},
                num_threads=num_threads,
                label=label,
                sub_label=sub_label,
                description="bmm",
            ).blocked_autorange(min_run_time=0.01)
        )

compare = benchmark.Compare(results)
compare.print()
table = str(compare)
lines = table.splitlines()
assert lines[0].startswith("[") and "Batched dot" in lines[0]
assert "mul/sum" in lines[1] and "bmm" in lines[1]
for t in threads:
    assert sum(line.startswith(f"{t} threads: ") for line in lines) == 1
for b, n in product(sizes, sizes):
    assert sum(f"[{b}, {n}]" in line for line in lines) == len(threads)
assert "Times are in" in table

# ---- Saving/Loading benchmark results
saved = pickle.dumps(results)
loaded = pickle.loads(saved)
assert [r.median for r in loaded] == [r.median for r in results]
compare = benchmark.Compare(loaded)
compare.trim_significant_figures()
compare.colorize()
compare.print()
assert "\033[" in str(compare)  # colored cells
print("benchmark recipe: ok")
