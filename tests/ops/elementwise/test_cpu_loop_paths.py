"""The dense elementwise loops of kernels/cpu/Loops.h are compiled twice, for the baseline and for AVX2, and the
copy in use follows the CPU and MINITORCH_CPU_CAPABILITY: both must give the same bits for every dtype and for
NaN, infinities, signed zeros and subnormals (plain IEEE operations, no FMA). Each path runs in a fresh process."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch

_SCRIPT = r"""
import sys
import numpy as np
import minitorch as m

rng = np.random.default_rng(4)
special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1.0, -1.0, 3.4e38, -0.5, 0.5], np.float32)
a32 = np.concatenate([rng.standard_normal(1000).astype(np.float32) * 3, np.repeat(special, 12)])
b32 = np.concatenate([rng.standard_normal(1000).astype(np.float32) * 3, np.tile(special, 12)])
i64 = rng.integers(-1000, 1000, a32.size)
j64 = rng.integers(1, 50, a32.size)
out = {}
for dt in ("float32", "float64", "float16", "bfloat16"):
    x = m.from_numpy(a32).to(getattr(m, dt))
    y = m.from_numpy(b32).to(getattr(m, dt))
    for name, f in {
        "add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y, "div": lambda: x / y,
        "max": lambda: m.maximum(x, y), "min": lambda: m.minimum(x, y), "clamp": lambda: m.clamp(x, -0.5, 0.7),
        "clamp_t": lambda: m.clamp(x, y, y + 1), "clamp_nan": lambda: m.clamp(x, min=float("nan")),
        "where": lambda: m.where(x > y, x, y), "relu": lambda: m.relu(x), "abs": lambda: m.abs(x),
        "neg": lambda: -x, "sqrt": lambda: m.sqrt(x), "lerp": lambda: m.lerp(x, y, 0.3),
        "lerp_t": lambda: m.lerp(x, y, y), "scalar": lambda: x * 0.1 + 2.0, "rsub": lambda: 1.0 - x,
        "fmod": lambda: m.fmod(x, y), "rem": lambda: m.remainder(x, y), "floordiv": lambda: m.floor_divide(x, y),
        "lt": lambda: x < y, "eq": lambda: x == y, "masked_fill": lambda: x.clone().masked_fill_(x > 0, 9.0),
        "inplace": lambda: x.clone().add_(y, alpha=2), "sigmoid_bw": lambda: x * (1 - x),
    }.items():
        out[dt + " " + name] = f().float().numpy().view(np.uint32)
xi, yi = m.from_numpy(i64), m.from_numpy(j64)
for name, f in {
    "iadd": lambda: xi + yi, "imul": lambda: xi * yi, "idiv": lambda: xi // yi, "irem": lambda: xi % yi,
    "iand": lambda: xi & yi, "ishift": lambda: xi << 3, "imax": lambda: m.maximum(xi, yi),
    "iclamp": lambda: m.clamp(xi, -100, 100), "i8": lambda: (xi.to(m.int8) * 3).to(m.int64),
    "u8": lambda: (xi.to(m.uint8) + 200).to(m.int64), "bool": lambda: ((xi > 0) & (yi < 25)).to(m.int64),
}.items():
    out[name] = f().numpy()
np.savez(sys.argv[1], **out)
"""


def test_baseline_and_avx2_loops_give_the_same_bits(tmp_path):
    if minitorch.backends.cpu.get_cpu_capability() == "DEFAULT":
        pytest.skip("this CPU runs the baseline loops only")
    got = {}
    for cap in ("default", "avx2"):
        path = tmp_path / f"{cap}.npz"
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        subprocess.run([sys.executable, "-c", _SCRIPT, str(path)], check=True, env=env, timeout=300)
        got[cap] = np.load(path)
    assert len(got["default"].files) > 100
    for k in got["default"].files:
        np.testing.assert_array_equal(got["avx2"][k], got["default"][k], err_msg=k)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "shape_a, shape_b",
    [
        ((3872, 16), (3872, 1)),  # the rms_norm shape: a broadcast value per short row
        ((3872, 1), (3872, 16)),
        ((3, 50, 17), (3, 1, 17)),  # rows of dim 1 carry into dim 2
        ((40, 33, 29), (40, 33, 29)),
        ((7, 9000), (1, 9000)),  # long rows, split mid-row across threads
        ((2, 3, 4, 5), (3, 1, 5)),
        ((0, 16), (0, 1)),
    ],
)
def test_binary_rows_broadcast_and_strided(shape_a, shape_b, threads):
    """Binary ops iterate blocks of whole rows (TensorIter::for_each_rows): every broadcast, strided and
    partial-row case against NumPy, on one thread and on two (chunks that start and end inside a row)."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal(shape_a).astype(np.float32)
    b = rng.standard_normal(shape_b).astype(np.float32)
    old = minitorch.get_num_threads()
    minitorch.set_num_threads(threads)
    try:
        x, y = minitorch.from_numpy(a), minitorch.from_numpy(b)
        np.testing.assert_array_equal((x * y).numpy(), a * b)
        np.testing.assert_array_equal((y - x).numpy(), b - a)
        # rows with a stride between them: a sliced output-sized view and a transposed operand
        xs = minitorch.from_numpy(np.ascontiguousarray(np.concatenate([a, a], -1)))[..., : a.shape[-1]]
        np.testing.assert_array_equal((xs + y).numpy(), a + b)
        if a.ndim == 2 and a.shape == b.shape:
            np.testing.assert_array_equal((x + y.t().t()).numpy(), a + b)
        t = minitorch.from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
        np.testing.assert_array_equal((t / y).numpy(), a / b)
        out = (
            minitorch.empty(np.broadcast_shapes(shape_a, shape_b))
            .transpose(0, -1)
            .contiguous()
            .transpose(0, -1)
        )
        minitorch.add(x, y, out=out)
        np.testing.assert_array_equal(out.numpy(), a + b)
    finally:
        minitorch.set_num_threads(old)


_BOOL_SCRIPT = r"""
import json
import numpy as np
import minitorch as m

rng = np.random.default_rng(7)
special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.0, -1.0, 1.7e308, 0.5], np.float64)
# 1139 elements: four 256-element blocks and a tail; equal values and the special values on both sides
a = np.concatenate([rng.standard_normal(1000), np.repeat(special, 11), np.arange(18.0)])
b = np.concatenate([rng.standard_normal(1000), np.tile(special, 11), np.arange(18.0)[::-1]])
a[::7] = b[::7]
wrong = []
for dt in ("float64", "float32"):
    an, bn = a.astype(dt), b.astype(dt)
    x, y = m.from_numpy(an), m.from_numpy(bn)
    with np.errstate(all="ignore"):
        cases = {
            "eq": (lambda: x == y, an == bn), "ne": (lambda: x != y, an != bn), "lt": (lambda: x < y, an < bn),
            "le": (lambda: x <= y, an <= bn), "gt": (lambda: x > y, an > bn), "ge": (lambda: x >= y, an >= bn),
            "lt_number": (lambda: x < 0.5, an < 0.5), "rge_number": (lambda: 0.5 >= x, 0.5 >= an),
            "eq_inf": (lambda: m.eq(x, float("inf")), an == np.inf), "ne_nan": (lambda: x != float("nan"), np.ones(an.shape, bool)),
            "isposinf": (lambda: m.isposinf(x), np.isposinf(an)), "isneginf": (lambda: m.isneginf(x), np.isneginf(an)),
            "isnan": (lambda: m.isnan(x), np.isnan(an)), "isinf": (lambda: m.isinf(x), np.isinf(an)),
            "isfinite": (lambda: m.isfinite(x), np.isfinite(an)), "not": (lambda: m.logical_not(x), ~an.astype(bool)),
            "and": (lambda: m.logical_and(x, y), an.astype(bool) & bn.astype(bool)),
            "or": (lambda: m.logical_or(x, y), an.astype(bool) | bn.astype(bool)),
            "xor": (lambda: m.logical_xor(x, y), an.astype(bool) ^ bn.astype(bool)),
            "or_number": (lambda: m.logical_or(x, m.tensor(0.0, dtype=x.dtype)), an.astype(bool)),
            "strided": (lambda: x[::3] < y[::3], an[::3] < bn[::3]),
            "rows": (lambda: x[:1122].reshape(33, 34) > y[:34], an[:1122].reshape(33, 34) > bn[:34]),
            "cols": (lambda: x[:33].reshape(33, 1) <= y[:34], an[:33].reshape(33, 1) <= bn[:34]),
            "empty": (lambda: x[:0] == y[:0], an[:0] == bn[:0]),
        }
        for name, (f, want) in cases.items():
            got = f()
            if got.dtype != m.bool or not np.array_equal(got.numpy(), want):
                wrong.append(dt + " " + name)
print(json.dumps([m.backends.cpu.get_cpu_capability(), wrong]))
"""


@pytest.mark.parametrize("cap", ["default", "avx2", "this"])
def test_comparisons_to_bool_on_each_path(cap):
    """Comparisons, logical ops and the float predicates of float64 and float32 into bool against NumPy on each
    path: the baseline copy compares float64 into a float block and narrows it to bytes (Loops.h
    bools_by_blocks), the AVX2 copy in one pass. Dense operands, a number on either side, strided views,
    broadcast rows and columns, the special values (NaN, infinities, signed zeros, subnormals), tails of blocks."""
    env = dict(os.environ)
    if cap != "this":
        env["MINITORCH_CPU_CAPABILITY"] = cap
    r = subprocess.run(
        [sys.executable, "-c", _BOOL_SCRIPT], check=True, env=env, timeout=300, capture_output=True, text=True
    )
    path, wrong = json.loads(r.stdout.strip().splitlines()[-1])
    if cap == "default":
        assert path == "DEFAULT"
    assert not wrong, (path, wrong)
