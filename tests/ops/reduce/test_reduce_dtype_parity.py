"""sum/mean/prod/nansum with out= of another dtype and with dtype=, complex inputs (a real dtype=, 0-dim tensors,
infinite parts of a mean), prod's one-int dim, the extrema's complex refusals and the norms of -0.0: against
PyTorch 2.15 (the oracle: the same calls, values compared by their text so -0.0 and NaN count) and against
float64 NumPy references."""

import math
import warnings

import numpy as np
import pytest

import minitorch
from tests.utils import cases_here_and_in_pytorch, rerun_in_child, to_np


def cnp(t):
    """A complex tensor's values as a NumPy array (to_np reads real dtypes only)."""
    return np.array(t.detach().tolist(), dtype=np.complex128)


# Each call's outcome: [dtype, shape, values] (a complex result as its real view) and, where it wrote one, out's
# contents after the call, or [exception type, first line of its message] (out's contents beside it, where out
# was written before the error, as PyTorch's mean into an integer out).
CASES = r"""
def cases(torch, calls):
    import math, warnings

    def enc(t):
        if isinstance(t, torch.Tensor):
            v = torch.view_as_real(t) if t.is_complex() else t
            return [str(t.dtype).replace("minitorch.", "torch."), list(t.shape), repr(v.tolist())]
        if isinstance(t, (tuple, list)):
            return [enc(e) for e in t]
        return repr(t)

    inf, nan = math.inf, math.nan
    out = []
    for call in calls:
        env = {"torch": torch, "inf": inf, "nan": nan}
        exec(
            "x = torch.tensor([[1.5, 2.25, -0.0], [3.75, -4.5, 0.5]])\n"
            "xi = torch.tensor([[1, 2, 0], [3, -4, 7]])\n"
            "xb = torch.tensor([[True, False, True], [False, False, True]])\n"
            "xh = torch.tensor([1.0, 2.0, 3.3], dtype=torch.bfloat16)\n"
            "big = torch.tensor([1e5, -1e5, 3.0], dtype=torch.float64)\n"
            "c = torch.tensor([[1 + 2j, 3 - 1j, -0.5j], [2 + 0j, -1 + 1j, 4 - 4j]])\n"
            "z = torch.tensor(1 + 2j)\n"
            "E = lambda dt, *s: torch.full(s or (0,), 7, dtype=dt)\n",
            env,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = eval(call, env)
                o = env.get("o")
                out.append([enc(r)] + ([enc(o)] if o is not None else []))
            except Exception as e:  # noqa: BLE001 - the error is the case's result
                o = env.get("o")
                out.append([type(e).__name__, str(e).split("\n")[0]] + ([enc(o)] if o is not None else []))
    return out
"""

# out= of another dtype: the reduction runs in out's dtype (the input cast first), PyTorch's refusals of a
# dtype= other than out's, mean's into an integer out (out keeps the sum), mean over everything's cast check
OUT_CALLS = (
    [
        f"torch.{op}({src}, {dim}, out={out})"
        for op in ["sum", "prod", "mean", "nansum"]
        for src in ["x", "xi", "xb", "c", "xh", "big"]
        for dim in ["1", "0", "-1"]
        for out in [
            "E(torch.int64)",
            "E(torch.int32)",
            "E(torch.uint8)",
            "E(torch.bool)",
            "E(torch.float64)",
            "E(torch.float16)",
            "E(torch.bfloat16)",
            "E(torch.complex64)",
            "E(torch.float32, 3)",
        ]
        if (dim != "-1" or src == "x")
        # (a bfloat16 product rounds each partial product in PyTorch's kernel, in float32 here: a known difference)
        and not (op == "prod" and src == "big" and "bfloat16" in out)
    ]
    + [
        "torch.sum(x, (0, 1), out=E(torch.int32))",
        "torch.sum(x, [], out=E(torch.int32))",
        "torch.sum(x, None, out=E(torch.int32))",
        "torch.sum(x, 1, True, out=E(torch.int16))",
        "torch.sum(x, out=E(torch.int64))",
        "torch.sum(x, dtype=torch.float32, out=E(torch.float32))",
        "torch.prod(x, out=E(torch.float32))",
        "torch.prod(x, dtype=torch.float32, out=E(torch.float32))",
        "torch.mean(x, out=E(torch.int64))",
        "torch.mean(x, out=E(torch.complex64))",
        "torch.mean(c, out=E(torch.float32))",
        "torch.mean(xi, out=E(torch.int64))",
        "torch.mean(xi, out=E(torch.bool))",
        "torch.mean(big, out=E(torch.float16))",
        "torch.mean(x, (0, 1), out=E(torch.int32))",
        "torch.mean(x, 5, out=E(torch.int32))",
        "torch.sum(x, 5, dtype=torch.float64, out=E(torch.float32))",
        "torch.mean(x, 1, out=torch.zeros(2, dtype=torch.int64))",
        "torch.mean(x, 1, out=(o := torch.zeros(2, dtype=torch.int64)))",
        "torch.sum(x, 1, out=(o := torch.zeros(2, dtype=torch.int64)))",
        "torch.prod(x, 1, out=(o := torch.zeros(5, dtype=torch.int64)))",
        "torch.sum(torch.zeros(0, 3), 0, out=E(torch.int64))",
        "torch.prod(torch.zeros(0, 3), 0, out=E(torch.int64))",
        "torch.nansum(torch.zeros(0, 3), 0, out=E(torch.int32))",
        "torch.nansum(torch.zeros(0, 3), out=E(torch.complex64))",
        "torch.sum(torch.ones(2, requires_grad=True), 0, out=E(torch.float64))",
        "torch.sum(torch.tensor([1e8, 1.0, -1e8], dtype=torch.float64), 0, out=E(torch.float32))",
        "torch.sum(torch.tensor([100, 100, 100]), 0, out=E(torch.int8))",
        "torch.prod(torch.tensor([-1.5, 300.0, 2.0]), 0, out=E(torch.uint8))",
    ]
    + [
        f"torch.{op}({src}, 1, dtype={dt}, out=E({odt}))"
        for op in ["sum", "prod", "mean", "nansum"]
        for src in ["x", "xi", "torch.tensor([1.5, nan, 2.7])[None]"]
        for dt, odt in [
            ("torch.float64", "torch.float32"),
            ("torch.float64", "torch.float64"),
            ("torch.int64", "torch.float32"),
            ("torch.int64", "torch.int64"),
            ("torch.float32", "torch.int64"),
            ("torch.int32", "torch.int64"),
            ("torch.float16", "torch.float16"),
            ("torch.bool", "torch.bool"),
            ("torch.complex64", "torch.complex64"),
            ("torch.complex64", "torch.float32"),
        ]
    ]
    + [
        f"torch.mean({src}, dtype={dt}, out=E({odt}))"
        for src in ["x", "xi", "c"]
        for dt, odt in [
            ("torch.float64", "torch.float32"),
            ("torch.float32", "torch.float64"),
            ("torch.int64", "torch.int64"),
            ("torch.complex128", "torch.complex128"),
        ]
    ]
)

# complex inputs: a real dtype= reduces the real parts; dim 0 / -1 of a 0-dim tensor; a mean with infinite or
# NaN parts divides the complex sum by the count (inf * 0 makes the other part NaN)
COMPLEX_CALLS = (
    [
        f"torch.{op}({src}{dim}, dtype={dt})"
        for op in ["sum", "mean", "prod", "nansum"]
        for src in ["c", "z"]
        for dim in ["", ", 0", ", -1", ", (0,)"]
        for dt in [
            "torch.float32",
            "torch.float64",
            "torch.int64",
            "torch.bool",
            "torch.float16",
            "torch.complex128",
            "None",
        ]
    ]
    + [
        f"torch.{op}(z, {dim}{keep})"
        for op in ["sum", "mean", "prod", "nansum", "logsumexp", "amax", "amin"]
        for dim in ["0", "-1", "1", "(0,)", "[]", "(0, 0)", "(0, -1)"]
        for keep in ["", ", True"]
    ]
    + [
        f"torch.mean(torch.tensor({vals}){dim})"
        for vals in [
            "[1 + 1j, complex(inf, 0), 2 + 0j]",
            "[1 + 1j, complex(0, inf)]",
            "[1 + 1j, complex(-inf, 1)]",
            "[1 + 1j, complex(inf, inf)]",
            "[1 + 1j, complex(nan, 0)]",
            "[complex(3e38, 3e38), complex(3e38, 3e38)]",
            "[[1 + 1j, complex(inf, 0)], [1 + 0j, 2 + 0j]]",
            "complex(1, inf)",
            "[complex(inf, 0)]",
        ]
        for dim in ["", ", 0", ", -1"]
    ]
    + [
        "torch.mean(torch.tensor([], dtype=torch.complex64))",
        "torch.mean(torch.zeros(0, 2, dtype=torch.complex128), 0)",
        "torch.mean(torch.tensor([inf, 1.0]), dtype=torch.complex64)",
        "torch.mean(torch.tensor([1 + 1j, complex(inf, 0)]), dtype=torch.complex128)",
        "torch.mean(torch.tensor([1 + 1j, complex(inf, 0)]), dtype=torch.float32)",
        "torch.sum(torch.tensor([1 + 2j]), 3, dtype=torch.float32)",
        "torch.mean(big, dtype=torch.float16)",
        "torch.mean(big, 0, dtype=torch.bfloat16)",
        "torch.mean(c, 1, dtype=torch.float16)",
        "torch.mean(torch.tensor([1e39, -1e39, 3.0], dtype=torch.float64), 0, dtype=torch.bfloat16)",
        "torch.nansum(z, 1)",
        "torch.nansum(c, (0, 0))",
        "torch.nansum(torch.tensor([1.5]), 4, dtype=torch.complex64)",
    ]
)

# prod takes one int dim (PyTorch's TypeErrors for a list, by position and keyword, with and without out=);
# the extrema and arg-reductions refuse complex in PyTorch's words and order; torch.norm's p is a Number
BAD_CALLS = (
    [
        "torch.prod(x, (0, 1))",
        "torch.prod(x, [1])",
        "x.prod((0, 1))",
        "x.prod([1])",
        "x.prod([1], True)",
        "x.prod(dim=[1])",
        "x.prod(dim=[0, 1], keepdim=True)",
        "torch.prod(x, dim=(1,))",
        "torch.prod(x, dim=[0], keepdim=True)",
        "torch.prod(x, [0], True)",
        "torch.prod(x, [0], dtype=torch.float32)",
        "torch.prod(x, (0, 1), out=E(torch.float32))",
        "torch.prod(x, dim=[0], out=E(torch.float32))",
        "torch.prod(x, None)",
        "torch.prod(x, 'a')",
        "torch.prod(x, True)",
        "torch.prod(x, 1.0)",
        "torch.prod(x, torch.tensor(1))",
        "torch.prod(x, torch.tensor([1]))",
        "torch.sum(x, 'a')",
        "torch.prod(x, 1, True)",
        "torch.prod(z, 0)",
        "torch.prod(z, (0,))",
    ]
    + [
        f"torch.{op}({src}{dim})"
        for op in ["amax", "amin", "max", "min", "argmax", "argmin"]
        for src in ["c", "c.to(torch.complex128)", "z", "torch.zeros(0, 3, dtype=torch.complex64)"]
        for dim in ["", ", 0", ", 1", ", 5"]
    ]
    + [
        "c.amax()",
        "c.amin(1, True)",
        "torch.amax(c, 0, out=E(torch.complex64))",
        "torch.aminmax(c)",
        "torch.aminmax(c, dim=0)",
        "torch.aminmax(c, dim=4)",
        "torch.aminmax(torch.zeros(0, dtype=torch.complex64))",
        "torch.norm(torch.tensor(2.5), (0, -1))",
        "torch.norm(torch.tensor([2.5]), [0])",
    ]
    + [
        f"{f}(torch.tensor({v}), {o}{dim})"
        for f in ["torch.linalg.vector_norm", "torch.norm"]
        for v in ["[-0.0]", "[[-0.0], [0.0]]", "[[-0.0, -3.0]]", "-0.0", "[-nan]"]
        for o in ["2", "1", "inf", "-inf", "0", "3", "0.5", "-1"]
        for dim in ["", ", -1", ", 0"]
    ]
    + [
        f"torch.abs(torch.tensor({v}, dtype={dt}))"
        for v in ["[-0.0, 0.0, -nan, -inf]"]
        for dt in ["torch.float32", "torch.float64", "torch.float16", "torch.bfloat16"]
    ]
)


@pytest.mark.parametrize("calls", [OUT_CALLS, COMPLEX_CALLS, BAD_CALLS], ids=["out", "complex", "refusals"])
def test_calls_match_pytorch(calls):
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)], calls)
    assert len(ours) == len(calls) == len(theirs)
    bad = [(c, a, b) for c, a, b in zip(calls, ours, theirs) if a != b]
    assert not bad, f"{len(bad)} of {len(calls)} calls differ\n" + "\n".join(
        f"{c}\n  ours:    {a}\n  PyTorch: {b}" for c, a, b in bad[:15]
    )


@pytest.mark.parametrize(
    "out_dtype", [minitorch.int64, minitorch.int32, minitorch.float64, minitorch.bfloat16]
)
@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_out_dtype_reduces_in_it_numpy(op, out_dtype, layout):
    """sum/prod into out of another dtype cast each element to out's dtype first, then reduce there: float64
    NumPy over the cast elements (truncated toward zero for integers), on a transposed input too"""
    rng = np.random.default_rng(7)
    a = rng.uniform(-3, 3, (6, 5))
    x = minitorch.tensor(a, dtype=minitorch.float32)
    if layout == "transposed":
        x = minitorch.tensor(a.T.copy(), dtype=minitorch.float32).t()
    cast = to_np(x.to(out_dtype)).astype(np.float64)
    want = cast.sum(1) if op == "sum" else cast.prod(1)
    o = minitorch.empty(0, dtype=out_dtype)
    r = getattr(minitorch, op)(x, 1, out=o)
    assert r is o and o.dtype == out_dtype and tuple(o.shape) == (6,)
    if out_dtype.is_floating_point:
        np.testing.assert_allclose(
            to_np(o).astype(np.float64), want, rtol=1e-2 if out_dtype == minitorch.bfloat16 else 1e-12
        )
    else:
        np.testing.assert_array_equal(to_np(o), want.astype(np.int64))


def test_mean_into_float64_out_is_the_float64_mean_numpy():
    """mean of float32 into a float64 out is computed in float64 (the float32 elements widened), where the
    float32 mean rounded first"""
    a = np.array([0.1, 0.2, 0.3, 0.7], dtype=np.float32)
    o = minitorch.empty(0, dtype=minitorch.float64)
    minitorch.mean(minitorch.tensor(a), 0, out=o)
    assert o.item() == a.astype(np.float64).mean()


def test_mean_into_integer_out_keeps_the_sum():
    """PyTorch's mean_out sums into out, then refuses to write the float quotient: out holds the sum of the
    elements cast to its dtype"""
    o = minitorch.zeros(3, dtype=minitorch.int64)
    x = minitorch.tensor([[1.5, 2.0, 4.9], [1.0, -1.7, 1.0]])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        minitorch.mean(x, 0, out=o)
    np.testing.assert_array_equal(to_np(o), np.trunc(to_np(x)).astype(np.int64).sum(0))


def test_complex_mean_infinite_parts_numpy():
    """The complex mean is the sum divided by the count as c10's complex division: re' = (re + im * 0) / n,
    im' = (im - re * 0) / n, so an infinite part makes the other NaN; finite values equal NumPy's float64 mean"""
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))).astype(np.complex128)
    x = minitorch.tensor(a)
    np.testing.assert_allclose(cnp(minitorch.mean(x, 1)), a.mean(1), rtol=1e-13)
    np.testing.assert_allclose(cnp(minitorch.mean(x[:, ::2], 0)), a[:, ::2].mean(0), rtol=1e-13)
    b = a.copy()
    b[1, 2] = complex(np.inf, 0.0)
    b[2, 3] = complex(0.5, -np.inf)
    with np.errstate(invalid="ignore"):
        s = b.sum(1)
        want = np.array(
            [complex((v.real + v.imag * 0.0) * (1 / 6), (v.imag - v.real * 0.0) * (1 / 6)) for v in s]
        )
    got = cnp(minitorch.mean(minitorch.tensor(b), 1))
    np.testing.assert_array_equal(np.isnan(got.real), np.isnan(want.real))
    np.testing.assert_array_equal(np.isnan(got.imag), np.isnan(want.imag))
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert math.isnan(got[1].imag) and got[1].real == math.inf
    assert math.isnan(got[2].real) and got[2].imag == -math.inf


def test_complex_mean_and_sum_gradients():
    """The mean's division keeps the gradient: d mean / d z_k is 1/n for each element (real and imaginary
    parts), the sum's 1, through a 0-dim input too"""
    z = minitorch.tensor([[1 + 2j, -1j, 3.0 + 0j], [0.5 + 0.5j, 2 - 1j, -4 + 0j]], requires_grad=True)
    m = minitorch.mean(z, 1)
    (m.real.sum() + 2 * m.imag.sum()).backward()
    np.testing.assert_allclose(cnp(z.grad), np.full((2, 3), (1 + 2j) / 3), rtol=1e-6)
    z0 = minitorch.tensor(1 + 2j, requires_grad=True)
    s = minitorch.sum(z0, 0)
    assert s.shape == () and s.item() == 1 + 2j
    s.real.backward()
    assert z0.grad.item() == 1


def test_real_dtype_of_complex_input_warns_and_takes_real_parts_numpy():
    """sum/mean/prod of a complex tensor with a real dtype= reduce the real parts (the cast's warning), as
    NumPy's float64 reductions of a.real"""
    a = np.array([[1 + 2j, 3 - 1j, -0.5j], [2 + 0j, -1 + 1j, 4 - 4j]])
    c = minitorch.tensor(a, dtype=minitorch.complex128)
    for op, ref in [("sum", np.sum), ("mean", np.mean), ("prod", np.prod)]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = getattr(minitorch, op)(c, 1, dtype=minitorch.float64)
        assert got.dtype == minitorch.float64
        np.testing.assert_allclose(to_np(got), ref(a.real, 1), rtol=1e-15)
        assert any("discards the imaginary part" in str(x.message) for x in w)
    with pytest.raises(
        NotImplementedError, match="Optional dtype must be either a floating point or complex"
    ):
        minitorch.mean(c, dtype=minitorch.int64)


def test_norms_of_negative_zero_are_positive_zero():
    """|x| clears the sign bit: abs(-0.0) and every vector norm of -0.0 (one element per result, the whole
    tensor, or a 0-dim one) is +0.0, as PyTorch's"""
    for dt in [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.bfloat16]:
        t = minitorch.tensor([-0.0, -math.nan, -1.5], dtype=dt)
        assert not np.signbit(to_np(minitorch.abs(t)).astype(np.float64)).any()
    for ord_ in [2, 1, math.inf, -math.inf, 3, 0.5, -1]:
        for x, dim in [
            (minitorch.tensor([[-0.0], [-0.0]]), -1),
            (minitorch.tensor([-0.0]), None),
            (minitorch.tensor(-0.0), None),
        ]:
            r = to_np(minitorch.linalg.vector_norm(x, ord_, dim))
            assert not np.signbit(r).any() and (r == 0).all(), (ord_, x, dim)


def test_scalar_path():
    """The same at the scalar CPU path"""
    rerun_in_child(__file__, "numpy or gradients or zero", MINITORCH_CPU_CAPABILITY="default")
