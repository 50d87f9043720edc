"""count_nonzero (ops/reduce.cpp, one counting kernel over a dense CPU input, the sum of x != 0 otherwise) and its
hand-written binding (csrc/python/bind_reduce.cpp) against PyTorch and NumPy: every dtype with its zeros of both
signs, NaN and subnormals, every layout, dims as PyTorch's parser reads them, and its errors word for word."""

import numpy as np
import pytest

import minitorch
from tests.utils import cases_here_and_in_pytorch, to_np

# Run here with minitorch and under PyTorch (the oracle): every case's result as [dtype, shape, values], an error
# as [type, first line of the message].
CASES = r"""
def cases(torch):
    def enc(t):
        if isinstance(t, torch.Tensor):
            return [str(t.dtype), list(t.shape), t.tolist()]
        return t

    run = runner(enc)  # tests/utils.py's CASE_HELPERS

    out = {}
    inf, nan = float("inf"), float("nan")
    floats = [0.0, -0.0, 1.0, nan, -inf, 1e-40, -1e-310, 0.0, 2.5, -0.0, 0.0, -3.0]
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
        # 1e-40 and -1e-310 are subnormal (or zero once rounded to the dtype): both libraries round alike
        x = torch.tensor(floats, dtype=torch.float64).to(dt).reshape(3, 4)
        name = str(dt)
        out["all", name] = run(lambda: torch.count_nonzero(x))
        out["method", name] = run(lambda: x.count_nonzero())
        out["t", name] = run(lambda: x.t().count_nonzero())
        out["dim", name] = run(lambda: torch.count_nonzero(x, 1))
        out["dims", name] = run(lambda: x.t().count_nonzero((0, 1)))
        out["neg zeros only", name] = run(lambda: torch.full((5, 3), -0.0, dtype=dt).count_nonzero())
    ints = [[0, 1, -1, 0], [127, -128, 0, 5], [0, 0, 2, -7]]
    for dt in [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool]:
        x = torch.tensor(ints).to(dt)
        name = str(dt)
        out["all", name] = run(lambda: torch.count_nonzero(x))
        out["t", name] = run(lambda: x.t().count_nonzero())
        out["dim", name] = run(lambda: x.count_nonzero(0))
    big = torch.tensor([0, -(2**63), 2**62, 0, -1])
    out["int64 extremes"] = run(lambda: big.count_nonzero())
    out["int32 min"] = run(lambda: torch.tensor([-(2**31), 0], dtype=torch.int32).count_nonzero())
    for dt in [torch.complex64, torch.complex128]:
        z = torch.tensor([0j, complex(-0.0, 0.0), complex(0.0, -0.0), 1j, 2 + 0j, complex(nan, 0), complex(0, 1e-310)],
                         dtype=dt)
        out["complex", str(dt)] = run(lambda: z.count_nonzero())
        out["complex 2-d t", str(dt)] = run(lambda: z[:6].reshape(2, 3).t().count_nonzero())
        out["complex dim", str(dt)] = run(lambda: z[:6].reshape(2, 3).count_nonzero(1))
    x = ((torch.arange(60.0) * 7) % 4).reshape(3, 4, 5)
    for key, f in [
        ("permuted", lambda: x.permute(2, 0, 1).count_nonzero()),
        ("permuted dims", lambda: x.permute(2, 0, 1).count_nonzero((0, 2))),
        ("sliced", lambda: x[:, ::2, 1:].count_nonzero()),
        ("expanded", lambda: x[:1, :1].expand(6, 4, 5).count_nonzero()),
        ("channels last", lambda: x.reshape(1, 3, 4, 5).contiguous(memory_format=torch.channels_last).count_nonzero()),
        ("0-dim", lambda: torch.tensor(2.0).count_nonzero()),
        ("0-dim zero", lambda: torch.tensor(-0.0).count_nonzero()),
        ("0-dim dim 0", lambda: torch.tensor(3).count_nonzero(0)),
        ("0-dim dim -1", lambda: torch.count_nonzero(torch.tensor(3.0), -1)),
        ("0-dim dims", lambda: torch.tensor(3.0).count_nonzero((0,))),
        ("empty", lambda: torch.zeros(0, 3).count_nonzero()),
        ("empty dim", lambda: torch.zeros(0, 3).count_nonzero(0)),
        ("empty dim 1", lambda: torch.count_nonzero(torch.zeros(0, 3), 1)),
        ("every dim listed", lambda: x.count_nonzero((2, 0, 1))),
        ("every dim separately", lambda: x.count_nonzero(-1, 0, 1)),
        ("two of three", lambda: x.count_nonzero(0, 2)),
        ("dim=None", lambda: x.count_nonzero(dim=None)),
        ("None", lambda: torch.count_nonzero(x, None)),
        ("empty tuple", lambda: x.count_nonzero(())),
        ("empty list", lambda: torch.count_nonzero(x, [])),
        ("dim= list", lambda: x.count_nonzero(dim=[1])),
        ("input=", lambda: torch.count_nonzero(input=x, dim=1)),
        ("int tensor dim", lambda: x.count_nonzero(torch.tensor(1))),
        ("one-element tensor dim", lambda: x.count_nonzero(torch.tensor([2]))),
        ("tensor in a list", lambda: x.count_nonzero((torch.tensor(1), 0))),
        ("later int tensor", lambda: x.count_nonzero(0, torch.tensor(1))),
        ("numpy int", lambda: x.count_nonzero(__import__("numpy").int64(1))),
        # errors
        ("repeated", lambda: x.count_nonzero(0, 0)),
        ("repeated wrapped", lambda: torch.count_nonzero(x, (1, -2))),
        ("out of range", lambda: x.count_nonzero(3)),
        ("out of range in list", lambda: torch.count_nonzero(x, (0, -4))),
        ("0-dim out of range", lambda: torch.tensor(1.0).count_nonzero(1)),
        ("float dim", lambda: x.count_nonzero(1.5)),
        ("float dim function", lambda: torch.count_nonzero(x, 1.0)),
        ("str dim", lambda: x.count_nonzero("a")),
        ("bool dim", lambda: x.count_nonzero(True)),
        ("float tensor dim", lambda: x.count_nonzero(torch.tensor(1.0))),
        ("two-element tensor dim", lambda: x.count_nonzero(torch.tensor([0, 1]))),
        ("float in tuple", lambda: x.count_nonzero((0, 1.0))),
        ("float later", lambda: x.count_nonzero(0, 1.0)),
        ("None later", lambda: x.count_nonzero(0, None)),
        ("None first", lambda: x.count_nonzero(None, 0)),
        ("tuple then int", lambda: x.count_nonzero((0,), 1)),
        ("bool list", lambda: x.count_nonzero([True])),
        ("positional and keyword", lambda: x.count_nonzero(0, dim=1)),
        ("unknown keyword", lambda: x.count_nonzero(dims=1)),
        ("function separate ints", lambda: torch.count_nonzero(x, 0, 1)),
        ("function no input", lambda: torch.count_nonzero()),
        ("function input not a tensor", lambda: torch.count_nonzero(1)),
        ("overflow", lambda: torch.count_nonzero(x, 2**70)),
    ]:
        out[key] = run(f)
    return [[list(k) if isinstance(k, tuple) else k, v] for k, v in out.items()]
"""


def test_count_nonzero_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert [k for k, _ in ours] == [k for k, _ in theirs]
    # NaN != NaN in the lists: compare their text
    bad = [(k, a, b) for (k, a), (_, b) in zip(ours, theirs) if repr(a) != repr(b)]
    assert not bad, "\n".join(f"{k}: ours {a}, PyTorch {b}" for k, a, b in bad[:10])


# the dtypes whose every bit pattern the kernel reads as a word: NumPy counts the same values
NP_DTYPES = [
    "float32",
    "float64",
    "float16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
    "complex64",
    "complex128",
]


@pytest.mark.parametrize("dtype", NP_DTYPES)
@pytest.mark.parametrize("threads", [1, 2])
def test_count_nonzero_long_inputs_match_numpy(dtype, threads):
    """Inputs past the kernel's vector width, the pool's grain and reduce_row's split (2 * 32768 elements), with
    runs of zeros of both signs: the count of every layout against NumPy's."""
    rng = np.random.default_rng(3)
    n = 3 * 65536 + 13
    v = rng.standard_normal(n) * (rng.random(n) < 0.6)
    if dtype.startswith("complex"):
        a = (v + 1j * v[::-1] * (rng.random(n) < 0.3)).astype(dtype)
        a.real[::7] = -0.0
    elif dtype == "bool":
        a = v != 0
    elif dtype.startswith(("int", "uint")):
        a = (v * 3).astype(dtype)
    else:
        a = v.astype(dtype)
        a[::5] = -0.0
        a[3::97] = np.nan
    old = minitorch.get_num_threads()
    minitorch.set_num_threads(threads)
    try:
        x = minitorch.from_numpy(a)
        assert minitorch.count_nonzero(x).item() == np.count_nonzero(a)
        m = a[: 512 * 384].reshape(512, 384)
        xm = minitorch.from_numpy(np.ascontiguousarray(m.T)).t()  # transposed, dense
        assert xm.count_nonzero().item() == np.count_nonzero(m)
        assert to_np(xm.count_nonzero(1)).tolist() == np.count_nonzero(m, axis=1).tolist()
        xs = minitorch.from_numpy(m)[:, ::3]  # not dense: the compare-and-sum path
        assert xs.count_nonzero().item() == np.count_nonzero(m[:, ::3])
        assert minitorch.from_numpy(a[:0]).count_nonzero().item() == 0
    finally:
        minitorch.set_num_threads(old)


def test_count_nonzero_bfloat16_bits():
    """bfloat16 (no NumPy dtype): -0 is zero, the smallest subnormal and NaN are not."""
    x = minitorch.tensor([0.0, -0.0, 1.0, float("nan"), 9.2e-41, -1.0], dtype=minitorch.bfloat16)
    assert x.count_nonzero().item() == 4
    assert x.reshape(2, 3).t().count_nonzero().item() == 4


def test_count_nonzero_on_each_device_matches_cpu(device):
    """The tested device (CUDA: the sum of x != 0) gives the CPU kernel's counts."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((37, 53)) * (rng.random((37, 53)) < 0.5)
    a[::4, ::3] = -0.0
    for dt in [minitorch.float32, minitorch.float64, minitorch.int32, minitorch.bool, minitorch.complex64]:
        got = []
        for dev in ["cpu", device]:
            x = minitorch.tensor(a, device=dev).to(dt)
            got.append(
                [
                    x.count_nonzero().item(),
                    x.t().count_nonzero().item(),
                    to_np(x.count_nonzero(0)).tolist(),
                    to_np(minitorch.count_nonzero(x.t(), (0, 1))).tolist(),
                ]
            )
        assert got[0] == got[1]
    assert got[0][0] == np.count_nonzero(a)
