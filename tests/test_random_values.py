"""Seeded random draws pinned to exact values: moving the kernels (ops/factory.cpp -> kernels/cpu/random.cpp behind
random_fill_stub) or reworking them must not change a single bit of what a seeded program draws on the CPU.

The values were recorded from the code before the move; they are the generator's contract, not a property one could
derive independently (Philox(seed, chunk, offset << 20), 4096 elements a chunk, Box-Muller, the dtype's mantissa bits
kept, then the copy_ cast to the dtype). tests/test_generator.py checks the statistical and API side.

One deliberate change since (2026-11-26): on AVX-512 CPUs the draws are vectorized (kernels/cpu/vec/avx512_random.h,
8x faster) and, where the build has SLEEF, Box-Muller's log/sin/cos are SLEEF's, within 1 ulp of the C library's
(without SLEEF they are the C library's, lane by lane, and every bit is the scalar path's): the same stream, but a float64
normal can differ from the scalar path's in its last bit (about 4 % of them; `big_fsum` moved by 5e-15). Uniform,
integer and Bernoulli draws and the narrower dtypes' normals are unchanged; test_vectorized_draws_match_the_scalar_path
holds the two paths to that."""

import math

import pytest

import minitorch as torch

PINNED = {
    "after_empty": [0.6242710329329673, 0.07310002740277632],
    "bernoulli_": [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    "bernoulli_bool": [0, 1, 0, 1, 0, 0, 1, 0],
    "bf16_normal_fsum": 27.27643585205078,
    "big_chunks": [
        -0.7557622839946903,
        -1.5486804779408896,
        0.22273640750959714,
        -0.01542762807311286,
        -0.33115249828619087,
    ],
    "big_fsum": -8.0630543092832,  # the C library's Box-Muller (SLEEF_PINNED below for SLEEF's)
    "f16_fsum": 2476.52685546875,
    "int_sum": -13689903213247,
    "noncontig": [0.8476942334275162, 0.8870955430350265, 0.29633377451657117, 0.48090801442380515],
    "normal_": [1.6617138114508476, 2.7285513228885456, 2.048374215568432],
    "rand_bf16": [0.375, 0.83203125, 0.73828125],
    "rand_f16": [0.90625, 0.05712890625, 0.87060546875],
    "rand_f32": [0.1272079348564148, 0.26564884185791016, 0.6208323240280151],
    "rand_f64": [0.32697709933738606, 0.8958442633134573, 0.224436979713457],
    "randint": [14, 29, -6],
    "randint_f32": [351.0, 50.0, 360.0],
    "randint_int8": [-27, 74, 9],
    "randint_wide": [1352816929932554240, -5742059729427656192, -7852554944619531776],
    "randn_f32": [-1.8869717121124268, 0.10921218991279602, 0.4833678901195526],
    "randn_f64": [0.18445166324690918, 0.054327365138125465, -0.8488008543248252],
    "randperm": [0, 1, 2, 3, 5, 6, 4],
    "uniform_": [1.8917756109522728, 4.053443285848545, 1.307548804070911],
}


def draws():
    out = {}

    def take(name, t, idx=(0, 1, 2)):
        flat = t.reshape(-1)
        out[name] = [float(flat[i].item()) if t.dtype.is_floating_point else int(flat[i].item()) for i in idx]

    torch.manual_seed(1234)
    take("rand_f32", torch.rand(5))
    take("rand_f64", torch.rand(5, dtype=torch.float64))
    take("rand_f16", torch.rand(5, dtype=torch.float16))
    take("rand_bf16", torch.rand(5, dtype=torch.bfloat16))
    take("randn_f32", torch.randn(5))
    take("randn_f64", torch.randn(3, dtype=torch.float64))
    take("uniform_", torch.empty(4, dtype=torch.float64).uniform_(-3.0, 5.0))
    take("normal_", torch.empty(4, dtype=torch.float64).normal_(2.0, 0.5))
    take("randint", torch.randint(-7, 50, (6,)))
    take("randint_wide", torch.randint(-(2**63), 2**62, (3,)))
    take("randint_int8", torch.randint(-128, 128, (3,), dtype=torch.int8))
    take("randint_f32", torch.randint(0, 1000, (3,), dtype=torch.float32))
    take("bernoulli_", torch.empty(8, dtype=torch.float64).bernoulli_(0.3), idx=range(8))
    take("bernoulli_bool", torch.empty(8, dtype=torch.bool).bernoulli_(0.6), idx=range(8))
    take("randperm", torch.randperm(7), idx=range(7))
    torch.rand(0)  # an empty draw still takes an offset
    take("after_empty", torch.rand(2, dtype=torch.float64), idx=(0, 1))
    big = torch.randn(10000, dtype=torch.float64)  # three Philox chunks of 4096
    take("big_chunks", big, idx=(0, 4095, 4096, 8192, 9999))
    out["big_fsum"] = math.fsum(big.tolist())
    out["f16_fsum"] = math.fsum(torch.rand(5000, dtype=torch.float16).float().tolist())
    out["bf16_normal_fsum"] = math.fsum(torch.randn(5000, dtype=torch.bfloat16).float().tolist())
    out["int_sum"] = sum(torch.randint(-(2**40), 2**40, (5000,)).tolist())
    t = torch.empty(4, 6, dtype=torch.float64).t()
    t.uniform_()
    take("noncontig", t, idx=(0, 1, 5, 23))
    return out


@pytest.fixture(scope="module")
def drawn():
    return draws()


# big_fsum sums float64 normals: on the AVX-512 path of a build with SLEEF, Box-Muller's log/sin/cos are SLEEF's
# and a few last bits differ from the C library's (the docstring's last paragraph); every other path (the scalar
# one, AVX2, and AVX-512 without SLEEF, which calls the C library per lane) draws the scalar path's bits
SLEEF_PINNED = {"big_fsum": -8.063054309283205}


def _sleef_normals():
    return torch.backends.cpu.get_cpu_capability() == "AVX512" and torch._C._has_sleef()


@pytest.mark.parametrize("name", sorted(PINNED))
def test_seeded_draw_is_bit_identical(drawn, name):
    want = SLEEF_PINNED[name] if name in SLEEF_PINNED and _sleef_normals() else PINNED[name]
    assert drawn[name] == want


def test_draws_do_not_depend_on_the_thread_count():
    prev = torch.get_num_threads()
    try:
        outs = []
        for n in (1, 2):
            torch.set_num_threads(n)
            torch.manual_seed(7)
            outs.append(
                (torch.randn(20000, dtype=torch.float64).tolist(), torch.randint(0, 9, (9000,)).tolist())
            )
        assert outs[0] == outs[1]
    finally:
        torch.set_num_threads(prev)


_DRAW_SCRIPT = """
import sys, minitorch as torch, numpy as np
torch.manual_seed(5)
u = torch.rand(10001, dtype=torch.float64).numpy()
i = torch.randint(-(2**40), 2**40, (5000,)).numpy()
n64 = torch.randn(10001, dtype=torch.float64).numpy()
n32 = torch.randn(9000).numpy()
b = torch.bernoulli(torch.full((3000,), 0.3)).numpy()
np.savez(sys.argv[1], u=u, i=i, n64=n64, n32=n32, b=b)
"""


def test_vectorized_draws_match_the_scalar_path(tmp_path):
    """The AVX-512 draws against the scalar ones (MINITORCH_CPU_CAPABILITY=default) in fresh processes: uniform,
    integer and Bernoulli bit for bit, float64 normals within 4 ulp (SLEEF's log/sincos against libm's) or,
    without SLEEF, bit for bit."""
    import os
    import subprocess
    import sys

    import numpy as np

    if torch.backends.cpu.get_cpu_capability() != "AVX512":
        pytest.skip("this CPU runs the scalar path only")
    out = {}
    for cap in ("default", "avx512"):
        path = tmp_path / f"{cap}.npz"
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        subprocess.run([sys.executable, "-c", _DRAW_SCRIPT, str(path)], check=True, env=env, timeout=300)
        out[cap] = np.load(path)
    for k in ("u", "i", "b", "n32"):
        np.testing.assert_array_equal(out["avx512"][k], out["default"][k], err_msg=k)
    a, s = out["avx512"]["n64"], out["default"]["n64"]
    if not torch._C._has_sleef():  # the C library per lane: the scalar path's bits
        np.testing.assert_array_equal(a, s)
        return
    np.testing.assert_array_max_ulp(
        a, s, maxulp=4
    )  # 1 ulp in each of log, sin or cos, then sqrt and the product
    assert 0 < np.count_nonzero(a != s) < 0.2 * a.size  # the same stream, not a different one
