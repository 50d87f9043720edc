"""Bad input never crashes and never gives a silent wrong answer: size arithmetic that would overflow, calls
PyTorch rejects, and Python arguments that do not fit a C++ integer all raise PyTorch's error. Calls that
used to read outside memory run in a subprocess, so a regression is a failed test, not a dead pytest."""

import io
import math
import os
import re
import subprocess
import sys
import textwrap
import warnings
import zipfile

import numpy as np
import pytest
from utils import REPO, TOL

import minitorch

BIG = 2**63 - 1


def run_isolated(code):
    """Runs `code` in a fresh interpreter; returns (returncode, stdout+stderr)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [os.path.dirname(os.path.dirname(minitorch.__file__))] + [env.get("PYTHONPATH", "")] if p
    )
    r = subprocess.run(
        [sys.executable, "-c", "import minitorch as torch\n" + textwrap.dedent(code)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    return r.returncode, r.stdout + r.stderr


def run_raising(code, errors="RuntimeError"):
    """Runs the expression `code` in a fresh interpreter; its output says "raised: <message>" when it raised one
    of `errors` (a name or a parenthesized tuple of names), "no error" otherwise. Returns (returncode, output)."""
    return run_isolated(
        f"""
        try:
            {code}
        except {errors} as e:
            print("raised:", e)
        else:
            print("no error")
        """
    )


# ---- size arithmetic: every product or sum of sizes is checked


@pytest.mark.parametrize(
    "code",
    [
        "torch.tensor(1.).view(2**63-1, 2**63-1)[5, 7]",
        "torch.zeros(2, 0).reshape(2**62, 2, 2)[1, 1, 1]",
        "torch.arange(8.).view(-1, 6148914691236517205, 3)",
        "torch.arange(8.).reshape(-1, 6148914691236517205, 3)",
        "torch.zeros(4).as_strided((2**62, 2**62), (1, 1))[3, 3]",
        "torch.zeros(1).expand(2**62, 2**62)[3, 3]",
        "torch.empty(2**62, 4)",
        "torch.zeros(3)[::2**63-1].sum()",
    ],
)
def test_overflowing_shapes_raise_in_a_subprocess(code):
    rc, out = run_raising(code, "(RuntimeError, IndexError, ValueError)")
    assert rc == 0, out  # a segfault gives rc -11
    if "[::2**63-1]" in code:
        assert "no error" in out  # a valid slice: one element
    else:
        assert "raised:" in out, out


def test_view_overflow_messages():
    # PyTorch's words (2.15): the wrapped product "fits" the element count, so the tensor's numel check fails
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        minitorch.tensor(1.0).view(BIG, BIG)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        minitorch.zeros(2, 0).reshape(2**62, 2, 2)
    with pytest.raises(
        RuntimeError, match=r"shape '\[3, 6148914691236517206\]' is invalid for input of size 6"
    ):
        minitorch.arange(6.0).view(3, 6148914691236517206)
    with pytest.raises(RuntimeError, match=r"is invalid for input of size 8"):
        minitorch.arange(8.0).view(-1, 6148914691236517205, 3)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        minitorch.empty(2**62, 4)
    # a zero anywhere: no element, no overflow (PyTorch accepts this shape) unless a stride overflows
    assert minitorch.zeros(2, 0).reshape(2**62, 0, 4).shape == (2**62, 0, 4)
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        minitorch.empty(0, 2**62, 4)
    with pytest.raises(
        RuntimeError,
        match=r"Storage size calculation overflowed with sizes=\[4611686018427387904, 4611686018427387904\] and strides=\[1, 1\]",
    ):
        minitorch.zeros(4).as_strided((2**62, 2**62), (1, 1))


def test_slice_with_huge_step():
    x = minitorch.arange(5.0)
    np.testing.assert_array_equal(x[:: 2**63 - 1].numpy(), np.arange(5.0)[:: 2**63 - 1])
    np.testing.assert_array_equal(x[1 :: 2**62].numpy(), [1.0])
    # found by UBSan: stride 4 times step 2**62 overflowed in the slice's stride (one element: never used)
    a = np.arange(8.0).reshape(2, 4)
    y = minitorch.tensor(a)[:, ::2]
    np.testing.assert_array_equal(y[: 3 : 2**62].numpy(), a[:, ::2][: 3 : 2**62])
    np.testing.assert_array_equal(y[:, 1 :: 2**62].numpy(), a[:, ::2][:, 1 :: 2**62])


def test_split_and_chunk_with_huge_sizes():
    x = minitorch.arange(8.0)
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 8"):
        x.split([BIG, BIG, 6])
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 8"):
        x.split([BIG, BIG, 4])  # wraps to 8 without the check
    parts = x.chunk(BIG)
    assert [p.tolist() for p in parts] == [[float(i)] for i in range(8)]
    parts = x.split(BIG)
    assert len(parts) == 1 and parts[0].tolist() == list(map(float, range(8)))


def test_repeat_values_gradients_and_overflow(device):
    a = np.arange(6.0).reshape(2, 3)
    x = minitorch.tensor(a, device=device)
    for reps in [(2, 2), (3, 1, 2), (1, 0), (2, 1, 1, 3)]:
        np.testing.assert_array_equal(x.repeat(*reps).cpu().numpy(), np.tile(a, reps))
    np.testing.assert_array_equal(x.t().repeat([2, 1]).cpu().numpy(), np.tile(a.T, (2, 1)))  # non-contiguous
    assert minitorch.tensor(1.0, device=device).repeat(()).shape == ()
    assert minitorch.zeros(0, 2, device=device).repeat(3, 2).shape == (0, 4)
    g = minitorch.randn(2, 3, dtype=minitorch.float64, device=device, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: t.repeat(2, 1, 3), (g,))
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller"):
        x.repeat(2)
    with pytest.raises(
        RuntimeError, match=re.escape("Trying to create tensor with negative dimension -2: [-2, 6]")
    ):
        x.repeat(-1, 2)
    with pytest.raises(RuntimeError, match="overflows"):
        x.repeat(2**62, 2**62)
    with pytest.raises(RuntimeError, match="overflows"):
        x.repeat(2**31, 2**31, 2**31)  # each size fits, the element count does not
    with pytest.raises(TypeError, match="failed to unpack the object at pos 2 with error"):
        x.repeat(1, 2**64)


@pytest.mark.parametrize("reps", [(1, 1), (1, 1, 1), (1,), ()])
def test_repeat_by_ones_copies(reps, device):
    # repeat and tile always return a new tensor, as PyTorch's: an expand by ones then a reshape is a view of
    # the input, which writes through
    x = minitorch.tensor(np.arange(6.0).reshape(2, 3), device=device)
    y = x.repeat(*reps) if len(reps) >= 2 else minitorch.tile(x, reps)
    assert y.data_ptr() != x.data_ptr() and y.is_contiguous()
    y.fill_(7.0)
    np.testing.assert_array_equal(x.cpu().numpy(), np.arange(6.0).reshape(2, 3))
    t = x.t()  # a strided input comes out contiguous too
    np.testing.assert_array_equal(t.repeat(1, 1).cpu().numpy(), np.arange(6.0).reshape(2, 3).T)


def test_repeat_to_an_empty_result_keeps_dtype_device_and_graph(device):
    x = minitorch.arange(6, device=device).reshape(2, 3)
    for reps in [(1, 0), (0, 2)]:
        y = x.repeat(*reps)
        assert y.shape == np.tile(np.zeros((2, 3)), reps).shape and y.dtype == minitorch.int64
        assert y.device == x.device
    g = minitorch.randn(2, 3, device=device, requires_grad=True)
    y = g.repeat(1, 0)
    assert y.requires_grad and y.grad_fn is not None
    (y.sum() + g.sum()).backward()
    np.testing.assert_array_equal(g.grad.cpu().numpy(), np.ones((2, 3)))
    with minitorch.no_grad():
        assert not g.repeat(0, 1).requires_grad


@pytest.mark.parametrize(
    "code",
    [
        "torch.cat([torch.zeros(1).expand(2**62), torch.zeros(1).expand(2**62)])",
        "torch.cat([torch.zeros(1).expand(2**62)] * 3)",
        "torch.nn.functional.conv1d(torch.zeros(1, 1, 4), torch.zeros(1, 1, 2), padding=2**62)",
        "torch.nn.functional.conv1d(torch.zeros(1, 1, 4), torch.zeros(1, 1, 2), dilation=2**62)",
        "torch.nn.functional.max_pool1d(torch.zeros(1, 1, 4), 2, padding=2**62)",
        "torch.nn.functional.max_pool1d(torch.zeros(1, 1, 4), 2**62)",
        "torch.nn.functional.avg_pool2d(torch.zeros(1, 1, 4, 4), 2**62)",
        "torch.nn.functional.avg_pool2d(torch.zeros(1, 1, 4, 4), 2, padding=2**62)",
    ],
)
def test_cat_conv_pool_output_sizes_that_overflow_raise(code):
    # PyTorch raises on each (its words vary, some quote the wrapped value); never a crash or a huge tensor
    rc, out = run_raising(code)
    assert rc == 0 and "raised:" in out, out


def test_conv_padding_that_overflows_names_the_bound():
    # found by UBSan: input + 2 * padding overflowed before the check; PyTorch's words
    msg = "Given padding=4611686018427387904 at dimension 0 , expected padding to be at most 4611686018427387903"
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        minitorch.nn.functional.conv1d(minitorch.zeros(1, 1, 4), minitorch.zeros(1, 1, 2), padding=2**62)


def test_pool_and_conv_with_huge_stride_give_one_window():
    x = minitorch.arange(4.0).view(1, 1, 4)
    assert minitorch.nn.functional.max_pool1d(x, 2, stride=2**63 - 1).tolist() == [[[1.0]]]
    w = minitorch.ones(1, 1, 2)
    assert minitorch.nn.functional.conv1d(x, w, stride=2**63 - 1).tolist() == [[[1.0]]]


def test_expand_negative_size():
    with pytest.raises(RuntimeError, match="negative dimension -5"):
        minitorch.zeros(1).expand(-5)


def test_flatten_of_empty_with_huge_sizes():
    x = minitorch.zeros(2, 0).reshape(2**62, 0, 4)
    assert x.flatten(0, 1).shape == (0, 4)
    assert x.flatten(1).shape == (2**62, 0)


# ---- calls PyTorch rejects


def test_hook_changing_size_or_type_raises():
    x = minitorch.ones(3, requires_grad=True)

    def bad_hook(g):
        return g[:2]

    y = x * 2
    y.register_hook(bad_hook)
    with pytest.raises(RuntimeError, match="hook 'bad_hook' has changed the size of value"):
        y.sum().backward()

    x = minitorch.ones(3, requires_grad=True)
    x.register_hook(lambda g: g.double())
    with pytest.raises(
        RuntimeError,
        match=r"hook '<lambda>' has changed the type of value \(was torch.FloatTensor got torch.DoubleTensor\)",
    ):
        (x * 2).sum().backward()

    x = minitorch.ones(3, requires_grad=True)
    x.register_hook(lambda g: 3)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        (x * 2).sum().backward()

    # a hook that keeps type and shape may change the values
    x = minitorch.ones(3, requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0, 20.0]


def test_backward_with_empty_inputs():
    x = minitorch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="`inputs` argument to `backward\\(\\)` cannot be empty."):
        (x * 2).sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        minitorch.autograd.backward((x * 2).sum(), inputs=())
    assert x.grad is None


def test_label_smoothing_out_of_range_for_probability_targets():
    inp = minitorch.randn(3, 4)
    prob = minitorch.softmax(minitorch.randn(3, 4), 1)
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0. Got: -0.1"):
        minitorch.nn.functional.cross_entropy(inp, prob, label_smoothing=-0.1)
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        minitorch.nn.functional.cross_entropy(inp, minitorch.tensor([0, 1, 2]), label_smoothing=1.5)


def test_scatter_dtype_mismatch():
    z = minitorch.zeros(3)
    idx = minitorch.tensor([0, 1])
    src = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64)
    # PyTorch names scatter() for scatter_add too
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        z.scatter_add(0, idx, src)
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        z.scatter_add_(0, idx, src)
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        z.scatter(0, idx, src)
    assert z.tolist() == [0.0, 0.0, 0.0]
    # a Python number takes self's dtype
    assert z.scatter(0, idx, 5).tolist() == [5.0, 5.0, 0.0]


def test_scalar_tensor_dims_out_of_range():
    s = minitorch.tensor(1.0)
    with pytest.raises(
        IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"
    ):
        s.flatten(1, 4)
    assert s.flatten().shape == (1,) and s.flatten(0, -1).shape == (1,)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        s.unbind(-1)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        s.unbind(0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        s.unbind(1)
    m = s.movedim(0, 0)
    assert m.shape == () and m.item() == 1.0
    assert s.movedim(-1, 0).shape == ()
    with pytest.raises(IndexError, match="Dimension out of range"):
        s.movedim(1, 0)


def test_negative_indices_in_gather_index_select_scatter():
    x = minitorch.arange(3.0)
    neg = minitorch.tensor([-1])
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 3"):
        x.gather(0, neg)
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, neg)
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, minitorch.tensor([3]))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 3"):
        minitorch.zeros(3).scatter(0, neg, minitorch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 3"):
        minitorch.zeros(3).scatter_add(0, neg, minitorch.tensor([1.0]))
    # plain indexing still wraps
    assert x[neg].tolist() == [2.0]


@pytest.mark.parametrize(
    "key, shape",
    [
        ((True, True), (1, 2)),
        ((True,), (1, 2)),
        ((False,), (0, 2)),
        ((True, False), (0, 2)),
        ((None, True), (1, 1, 2)),
        ((True, None), (1, 1, 2)),
        ((True, 0), (1,)),
        ((True, slice(None), True), (1, 2)),
    ],
    ids=str,
)
def test_python_bools_in_index_tuples(key, shape):
    # NumPy gives the same shapes (a bool is a 0-dim mask: an advanced index)
    x = minitorch.arange(2.0)
    assert x[key].shape == shape
    assert np.arange(2.0)[key].shape == shape
    np.testing.assert_array_equal(x[key].numpy(), np.arange(2.0)[key])


def test_bool_index_assignment():
    x = minitorch.zeros(2)
    x[True] = 3.0
    assert x.tolist() == [3.0, 3.0]
    x[False] = 5.0
    assert x.tolist() == [3.0, 3.0]
    x[minitorch.tensor(True), 1] = 7.0
    assert x.tolist() == [3.0, 7.0]


def test_eye_negative_columns():
    with pytest.raises(RuntimeError, match="m must be greater or equal to 0, got -2"):
        minitorch.eye(3, -2)
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        minitorch.eye(-1)
    np.testing.assert_array_equal(minitorch.eye(2, 3).numpy(), np.eye(2, 3))
    assert minitorch.eye(3, 0).shape == (3, 0)


@pytest.mark.parametrize(
    "dtype, low, high, msg",
    [
        (minitorch.int8, 0, 300, "to - 1 is out of bounds for signed char"),
        (minitorch.int8, -200, 3, "from is out of bounds for signed char"),
        (minitorch.uint8, -1, 3, "from is out of bounds for unsigned char"),
        (minitorch.int16, 0, 2**16, "to - 1 is out of bounds for short int"),
        (minitorch.int32, 0, 2**40, "to - 1 is out of bounds for int"),
        (minitorch.bool, 0, 3, "to - 1 is out of bounds for bool"),
        # found by the fuzzer: float16 took any bound and returned inf
        (minitorch.float16, 0, 2**31, "to - 1 is out of bounds for c10::Half"),
        (minitorch.float16, -70000, 0, "from is out of bounds for c10::Half"),
    ],
    ids=str,
)
def test_randint_outside_dtype_range(dtype, low, high, msg):
    with pytest.raises(RuntimeError, match=msg):
        minitorch.randint(low, high, (3,), dtype=dtype)


def test_randint_at_dtype_limits():
    r = minitorch.randint(-128, 128, (1000,), dtype=minitorch.int8)
    assert r.min().item() >= -128 and r.max().item() <= 127
    r = minitorch.randint(0, 256, (1000,), dtype=minitorch.uint8)
    assert r.max().item() <= 255
    assert minitorch.randint(0, 2, (10,), dtype=minitorch.bool).dtype == minitorch.bool
    r = minitorch.randint(-65504, 65505, (1000,), dtype=minitorch.float16)
    assert r.abs().max().item() <= 65504 and r.isfinite().all().item()


def test_tensor_of_none():
    with pytest.raises(RuntimeError, match="Could not infer dtype of NoneType"):
        minitorch.tensor([None])
    with pytest.raises(RuntimeError, match="Could not infer dtype of NoneType"):
        minitorch.tensor(None)
    with pytest.raises(TypeError, match="new\\(\\): invalid data type 'str'"):
        minitorch.tensor("a")
    with pytest.raises(ValueError, match="too many dimensions 'str'"):
        minitorch.tensor(["a"])


@pytest.mark.parametrize(
    "dtype, value, name",
    [
        (minitorch.int32, 1e30, "int"),
        (minitorch.int8, 300, "int8_t"),
        (minitorch.int8, -129, "int8_t"),
        (minitorch.uint8, 256, "uint8_t"),
        (minitorch.uint8, -256, "uint8_t"),
        (minitorch.int16, 40000, "int16_t"),
        (minitorch.int64, 1e19, "int64_t"),
        (minitorch.int64, float("nan"), "int64_t"),
        (minitorch.int32, float("inf"), "int"),
        (minitorch.float32, 1e300, "float"),
        # float16/bfloat16 are checked too, but for one CPU element (test_fuzz_4445_*)
        (minitorch.float16, 65505.0, "c10::Half"),
        (minitorch.bfloat16, 1e39, "c10::BFloat16"),
        (minitorch.complex64, 1e300, "c10::complex<float>"),
        (minitorch.complex64, complex(1, -1e39), "c10::complex<float>"),
    ],
    ids=str,
)
def test_fill_overflow(dtype, value, name):
    msg = f"value cannot be converted to type {name} without overflow"
    with pytest.raises(RuntimeError, match=msg):
        minitorch.full((2,), value, dtype=dtype)
    t = minitorch.zeros(2, dtype=dtype)
    with pytest.raises(RuntimeError, match=msg):
        t.fill_(value)
    assert t.tolist() == [0, 0]


@pytest.mark.parametrize(
    "dtype, value",
    [
        (minitorch.int8, 127),
        (minitorch.int8, -128),
        (minitorch.uint8, -1),  # wraps to 255, as in PyTorch
        (minitorch.uint8, 255),
        (minitorch.int64, 2**63 - 1),
        (minitorch.int64, -(2**63)),
        (minitorch.float16, 65504.0),
        (minitorch.float16, float("inf")),
        (minitorch.float32, float("-inf")),
        (minitorch.float32, float("nan")),
        (minitorch.float64, 1e300),
        (minitorch.bool, 5),
    ],
    ids=str,
)
def test_fill_in_range(dtype, value):
    t = minitorch.full((2,), value, dtype=dtype)
    expect = np.array([value, value]).astype(np.float64)
    if dtype == minitorch.uint8:
        expect = np.array([value % 256] * 2)
    if dtype == minitorch.bool:
        expect = np.array([True, True])
    if dtype == minitorch.int64:
        assert t.tolist() == [value, value]
    else:
        np.testing.assert_array_equal(t.double().numpy() if dtype != minitorch.bool else t.numpy(), expect)


# PyTorch 2.15's exception types and words for Python ints no C++ integer holds
@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: minitorch.manual_seed(2**64), ValueError, "Overflow when unpacking long long"),
        (lambda: minitorch.manual_seed(-(2**63) - 1), ValueError, "Overflow when unpacking long long"),
        (lambda: minitorch.Generator().manual_seed(2**64), ValueError, "Overflow when unpacking long long"),
        (lambda: minitorch.zeros(2).sum(2**70), ValueError, "Overflow when unpacking long long"),
        # pybind11 refuses these before our code runs: a TypeError, where PyTorch raises ValueError
        (lambda: minitorch.zeros(2).transpose(0, 2**64), ValueError, "Overflow when unpacking long long"),
        (lambda: minitorch.randint(0, 2**64, (2,)), ValueError, "Overflow when unpacking long long"),
        (lambda: minitorch.eye(2**64), ValueError, "Overflow when unpacking long long"),
        (
            lambda: minitorch.zeros(2).view(1, 2**64),
            TypeError,
            "argument 'size' failed to unpack the object at pos 2 with error \"Overflow when unpacking long long",
        ),
        (
            lambda: minitorch.zeros(2**64),
            TypeError,
            "argument 'size' failed to unpack the object at pos 1 with error",
        ),
        (lambda: minitorch.zeros(2) + 2**64, OverflowError, "int too big to convert"),
        (lambda: minitorch.full((2,), 2**64), OverflowError, "int too big to convert"),
    ],
    ids=range(11),
)
def test_python_ints_too_big_for_cpp(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_manual_seed_accepts_the_full_uint64_range():
    for s in (2**64 - 1, 2**63, -1, -(2**63)):
        minitorch.manual_seed(s)
        a = minitorch.rand(3)
        minitorch.manual_seed(s)
        assert minitorch.rand(3).tolist() == a.tolist()
    # -1 is 2**64 - 1 (two's complement), as in PyTorch
    minitorch.manual_seed(-1)
    a = minitorch.rand(3)
    minitorch.manual_seed(2**64 - 1)
    assert minitorch.rand(3).tolist() == a.tolist()
    with pytest.raises(ValueError, match="invalid literal for int"):
        minitorch.manual_seed("a")


# ---- checkpoints: a record that declares a huge size is refused before anything is read or inflated


def _checkpoint_bytes(obj):
    buf = io.BytesIO()
    minitorch.save(obj, buf)
    return buf.getvalue()


def _rewrite_record(raw, suffix, payload, compression):
    """The checkpoint `raw` with the record ending in `suffix` replaced by `payload`."""
    zin = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            if info.filename.endswith(suffix):
                zout.writestr(info.filename, payload, compress_type=compression)
            else:
                zout.writestr(info, zin.read(info.filename))
    out.seek(0)
    return out


def test_checkpoint_record_with_huge_declared_size_is_refused_before_inflating(monkeypatch):
    raw = _checkpoint_bytes({"w": minitorch.arange(4.0)})  # one 16-byte storage, record data/0
    # a zip bomb: 64 MiB of zeros deflate to ~64 KiB; the pickle still says 16 bytes
    bomb = _rewrite_record(raw, "data/0", bytes(64 << 20), zipfile.ZIP_DEFLATED)
    inflated = []
    real_read = zipfile.ZipExtFile.read

    def counting_read(self, n=-1):
        data = real_read(self, n)
        inflated.append(len(data))
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting_read)
    with pytest.raises(RuntimeError, match="data/0: expected 16 bytes, the record declares 67108864"):
        minitorch.load(bomb)
    assert sum(inflated) < (1 << 20)  # only data.pkl was read


def test_checkpoint_record_shorter_than_declared_storage():
    raw = _checkpoint_bytes({"w": minitorch.arange(4.0)})
    short = _rewrite_record(raw, "data/0", bytes(8), zipfile.ZIP_STORED)
    with pytest.raises(RuntimeError, match="expected 16 bytes"):
        minitorch.load(short)
    ok = minitorch.load(io.BytesIO(raw))
    assert ok["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


# ---- gradcheck itself catches a wrong derivative (the tests rely on it)


class _WrongSquare(minitorch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x  # should be 2 * x * g


class _RightSquare(_WrongSquare):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * g * x


def test_gradcheck_fails_on_a_wrong_gradient():
    x = minitorch.randn(4, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(_RightSquare.apply, (x,))
    with pytest.raises(minitorch.autograd.GradcheckError, match="Jacobian mismatch"):
        minitorch.autograd.gradcheck(_WrongSquare.apply, (x,))
    assert not minitorch.autograd.gradcheck(_WrongSquare.apply, (x,), raise_exception=False)


def test_chunk_of_an_empty_dim_into_absurdly_many_pieces():
    # found by the fuzzer: chunk(2**62) of a zero-size dim tried to build 2**62 views until memory ran out
    x = minitorch.zeros(2, 0)
    with pytest.raises((ValueError, RuntimeError, MemoryError)):
        x.chunk(2**62, 1)
    assert len(x.chunk(3, 1)) == 3 and all(p.shape == (2, 0) for p in x.chunk(3, 1))


# ---- the binding layer: no pybind11 error text reaches the user (scripts/probe_bindings.py samples every op)


def test_no_pybind11_cast_errors_over_the_op_table():
    import importlib.util
    import pathlib

    path = pathlib.Path(REPO) / "scripts" / "probe_bindings.py"
    spec = importlib.util.spec_from_file_location("probe_bindings", path)
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    probe.torch = None  # the PyTorch comparison is the script's job; here only our own errors
    fns, meths = probe.names()
    assert len(fns) > 100 and len(meths) > 100
    leaks = []
    for method, group in ((False, fns), (True, meths)):
        for n in group:
            leaks += [
                (n, args, msg)
                for args, (_k, msg) in probe.probe(minitorch, n, method)
                if "Unable to cast" in msg
            ]
    assert not leaks


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda: minitorch.allclose(minitorch.ones(2), "x"),
            "allclose(): argument 'other' (position 2) must be Tensor, not str",
        ),
        (
            lambda: minitorch.isclose(object(), minitorch.ones(2)),
            "isclose(): argument 'input' (position 1) must be Tensor, not object",
        ),
        (
            lambda: minitorch.equal(minitorch.ones(2), None),
            "equal(): argument 'other' (position 2) must be Tensor, not NoneType",
        ),
        (lambda: minitorch.numel([1, 2]), "numel(): argument 'input' (position 1) must be Tensor, not list"),
        (
            lambda: minitorch.is_floating_point(1.5),
            "is_floating_point(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: minitorch.ones(2).type_as("x"),
            "type_as(): argument 'other' (position 1) must be Tensor, not str",
        ),
        (
            lambda: minitorch.repeat_interleave("x"),
            "repeat_interleave(): argument 'repeats' (position 1) must be Tensor, not str",
        ),
    ],
)
def test_non_tensor_arguments_raise_type_error(call, msg):
    # found by scripts/probe_bindings.py: these leaked an AttributeError from the Python wrapper
    with pytest.raises(TypeError, match=re.escape(msg)):
        call()


@pytest.mark.parametrize(
    "size, stride",
    [
        ((2**62, 2**62), (1, 1)),
        ((2**63 - 1,), (1,)),
        ((4,), (2**62,)),
        ((2, 2), (-1, 1)),
        ((-4,), (1,)),
        ((5,), (1,)),
    ],
    ids=str,
)
def test_checkpoint_with_overflowing_tensor_metadata_raises(monkeypatch, size, stride):
    # the sizes and strides in data.pkl are checked against the storage like as_strided's, before any read
    from minitorch import serialization

    orig = serialization._Pickler.reducer_override

    def forged(self, obj):
        r = orig(self, obj)
        if r is NotImplemented or r[0] is not serialization._rebuild_tensor:
            return r
        ref, offset, _size, _stride, requires_grad = r[1]
        return r[0], (ref, offset, size, stride, requires_grad)

    monkeypatch.setattr(serialization._Pickler, "reducer_override", forged)
    buf = io.BytesIO()
    minitorch.save(minitorch.arange(4.0), buf)
    monkeypatch.undo()
    with pytest.raises(RuntimeError):
        minitorch.load(io.BytesIO(buf.getvalue()))


# ---- found by the differential fuzzer (issue 34): each crashed or read outside memory before


@pytest.mark.parametrize(
    "code",
    [
        "torch.scatter_add(torch.zeros(3, 4), 1, torch.zeros(3, 4, dtype=torch.long), torch.ones(1))",
        "torch.zeros(3, 4).scatter_(1, torch.zeros(3, 4, dtype=torch.long), torch.ones(1))",
        "torch.scatter(torch.zeros(3, 4), 1, torch.zeros(3, 4, dtype=torch.long), torch.tensor(1.))",
        "torch.zeros(3, 4).scatter_add_(0, torch.zeros(3, 4, dtype=torch.long), torch.ones(3, 4, 5))",
        "torch.zeros(3, 4).scatter_(1, torch.zeros(3, 4, dtype=torch.long), torch.ones(1), reduce='add')",
    ],
)
def test_scatter_src_dims_must_match_index_in_a_subprocess(code):
    rc, out = run_raising(code)
    assert rc == 0, out
    assert "raised: Index tensor must have the same number of dimensions as src tensor" in out, out


def test_scatter_zero_dim_src_is_one_element_and_value_fills():
    # PyTorch: a 0-dim src stands for one element along one dim; the value= overload fills every index
    z = minitorch.zeros(3)
    assert z.scatter_(0, minitorch.tensor([2]), minitorch.tensor(5.0)).tolist() == [0.0, 0.0, 5.0]
    assert minitorch.zeros(()).scatter_(0, minitorch.tensor([0]), minitorch.tensor([5.0])).item() == 5.0
    with pytest.raises(RuntimeError, match="to be no larger size than src"):
        minitorch.zeros(3).scatter_(0, minitorch.tensor([0, 1]), minitorch.tensor(5.0))
    idx = minitorch.tensor([[0, 2], [1, 0]])
    got = minitorch.zeros(2, 3).scatter(1, idx, 7.0)
    assert got.tolist() == [[7.0, 0.0, 7.0], [7.0, 7.0, 0.0]]
    got = minitorch.zeros(2, 3).scatter_(1, idx, 2.0, reduce="add").scatter_(1, idx, 2.0, reduce="add")
    assert got.tolist() == [[4.0, 0.0, 4.0], [4.0, 4.0, 0.0]]


@pytest.mark.parametrize("method", ["size", "stride"])
def test_zero_dim_size_and_stride_raise(method):
    t = minitorch.tensor(1.0)
    for d in (0, -1, 1):
        with pytest.raises(IndexError, match=f"Dimension specified as {d} but tensor has no dimensions"):
            getattr(t, method)(d)
    assert getattr(t, method)() == (() if method == "stride" else minitorch.Size([]))
    assert getattr(minitorch.zeros(2, 3), method)(-1) == (3 if method == "size" else 1)


@pytest.mark.parametrize(
    "code",
    [
        "torch.tensor([1, 2, 3], dtype=torch.int16) // 65536",
        "torch.tensor([1, 2, 3], dtype=torch.int16) % 65536",
        "torch.remainder(torch.tensor([1, 2], dtype=torch.int16), 65536)",
        "torch.fmod(torch.tensor([1, 2], dtype=torch.int16), 65536)",
        "torch.div(torch.tensor([1, 2], dtype=torch.int8), 256, rounding_mode='trunc')",
        "torch.tensor([1, 2], dtype=torch.uint8).floor_divide_(512)",
    ],
)
def test_integer_division_by_a_number_that_wraps_to_zero(code):
    rc, out = run_raising(code)
    assert rc == 0, out  # SIGFPE gives rc -8
    assert "raised: ZeroDivisionError" in out, out


def test_polygamma_of_a_huge_order_answers_at_once():
    # n! overflows past n = 170: PyTorch's formula gives inf there at once; the time must not grow with n
    import time

    x = minitorch.tensor([1.5, 0.5, 10.0, 3.0], dtype=minitorch.float64)
    t0 = time.perf_counter()
    r = minitorch.polygamma(2**40, x)
    r2 = minitorch.polygamma(200, x)
    assert time.perf_counter() - t0 < 5.0
    assert not np.isfinite(r.numpy()).any()
    assert (r2.numpy()[[0, 1, 2]] == -np.inf).all()  # even n: -n! zeta(n + 1, x), zeta > 0 there
    # the exact loop still serves n <= 170: polygamma(3, 2) = 6 zeta(4, 2) = pi^4/15 - 6
    np.testing.assert_allclose(minitorch.polygamma(3, x[3:] - 1).numpy(), [np.pi**4 / 15 - 6], rtol=1e-13)


def test_inplace_comparison_cuts_the_gradient():
    # PyTorch: y.gt_(0) gives y a GtBackward1 whose gradient to every input is zero (not passed through)
    for op in ("gt_", "lt_", "ge_", "le_", "eq_", "ne_"):
        x = minitorch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = x * 3
        getattr(y, op)(minitorch.tensor([0.0, 1.5, 2.0]))
        assert y.requires_grad and y.grad_fn is not None, op
        (y * minitorch.tensor([1.0, 2.0, 3.0])).sum().backward()
        assert x.grad is not None and x.grad.tolist() == [0.0, 0.0, 0.0], op
    x = minitorch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = x * 3
    y.gt_(0)
    assert y.tolist() == [0.0, 1.0, 1.0]


def test_inplace_logical_ops_pass_the_gradient_through():
    # PyTorch 2.15 (measured): y.logical_and_(o) leaves y's history as it was (grad_fn stays MulBackward0),
    # so x gets the upstream gradient times 3, not zeros; the differential fuzzer found ours cutting it
    for op in ("logical_and_", "logical_or_", "logical_xor_"):
        x = minitorch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = x * 3
        getattr(y, op)(minitorch.tensor([0.0, 1.5, 2.0]))
        (y * minitorch.tensor([1.0, 2.0, 3.0])).sum().backward()
        assert x.grad.tolist() == [3.0, 6.0, 9.0], op


def test_lerp_all_any_logit_xlog1py_as_pytorch():
    # lerp: PyTorch's two-sided form (|w| >= 0.5 counts back from end): inf - inf is nan there
    r = minitorch.lerp(minitorch.tensor([1.0, 0.5, -1.0]), minitorch.tensor([float("inf"), 1e30, 2.0]), 0.7)
    assert np.isnan(r[0].item()) and r[2].item() == pytest.approx(1.1)
    a, b = np.array([0.0, 1.0, -3.0]), np.array([1.0, 3.0, 5.0])
    for w in (0.25, 0.75, -2.0):
        got = minitorch.lerp(
            minitorch.tensor(a, dtype=minitorch.float64), minitorch.tensor(b, dtype=minitorch.float64), w
        )
        np.testing.assert_allclose(got.numpy(), a + w * (b - a), rtol=1e-15)
    s = minitorch.tensor([0.3, 0.8], dtype=minitorch.float64, requires_grad=True)
    e = minitorch.tensor([1.0, -2.0], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda u, v: minitorch.lerp(u, v, 0.75), (s, e))
    # all/any over an explicit empty dim list reduce nothing
    t = minitorch.tensor([[0.5, 0.0]])
    assert t.all([]).tolist() == [[True, False]] and minitorch.any(t, []).shape == (1, 2)
    assert minitorch.tensor([3, 0], dtype=minitorch.uint8).all([]).dtype == minitorch.uint8
    assert t.all().item() is False and t.any(dim=1).tolist() == [True]
    # logit without eps: NaN outside [0, 1], its gradient too
    x = minitorch.tensor([1.008, -0.7, 0.3], dtype=minitorch.float64, requires_grad=True)
    minitorch.logit(x).sum().backward()
    g = x.grad.numpy()
    assert np.isnan(g[:2]).all() and g[2] == pytest.approx(1 / (0.3 * 0.7))
    # xlog1py with a Python number keeps the tensor's float dtype
    assert (
        minitorch.special.xlog1py(minitorch.tensor([1.5], dtype=minitorch.float16), -1).dtype
        == minitorch.float16
    )


def test_clamp_gradient_when_min_exceeds_max():
    # min > max gives max everywhere: the gradient goes to max alone (PyTorch's clamp_backward)
    x = minitorch.tensor([0.0, 5.0, 10.0], requires_grad=True)
    lo = minitorch.tensor([6.0, 6.0, 6.0], requires_grad=True)
    hi = minitorch.tensor([4.0, 4.0, 4.0], requires_grad=True)
    r = minitorch.clamp(x, lo, hi)
    assert r.tolist() == [4.0, 4.0, 4.0]
    r.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    assert lo.grad.tolist() == [0.0, 0.0, 0.0]
    assert hi.grad.tolist() == [1.0, 1.0, 1.0]
    x = minitorch.tensor([0.0, 5.0, 10.0], requires_grad=True)  # min < max: as before
    lo = minitorch.tensor([1.0, 1.0, 1.0], requires_grad=True)
    hi = minitorch.tensor([8.0, 8.0, 8.0], requires_grad=True)
    minitorch.clamp(x, lo, hi).sum().backward()
    assert (x.grad.tolist(), lo.grad.tolist(), hi.grad.tolist()) == (
        [0.0, 1.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0],
    )


def test_threshold_and_hardshrink_keep_nan():
    import minitorch.nn.functional as F

    nan = float("nan")
    x = minitorch.tensor([nan, -1.0, 0.25, 3.0])
    r = F.threshold(x, 0.5, -7.0).tolist()
    assert np.isnan(r[0]) and r[1:] == [-7.0, -7.0, 3.0]
    assert np.isnan(F.threshold(x, nan, -7.0).numpy()).tolist() == [True, False, False, False]
    assert F.threshold(x, nan, -7.0).tolist()[1:] == [-1.0, 0.25, 3.0]  # x <= NaN is false: x kept
    r = F.hardshrink(x, 0.5).tolist()
    assert np.isnan(r[0]) and r[1:] == [-1.0, 0.0, 3.0]
    y = x.clone()
    F.threshold_(y, 0.5, 0.0)
    assert np.isnan(y[0].item()) and y.tolist()[1:] == [0.0, 0.0, 3.0]


def test_cosine_similarity_broadcasts_before_reducing():
    import minitorch.nn.functional as F

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 1, 5)), rng.standard_normal((1, 3, 5))
    want = (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
    got = F.cosine_similarity(minitorch.from_numpy(a), minitorch.from_numpy(b), dim=-1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    # one side of size 1 along dim itself: it is broadcast first, then reduced
    a1, b1 = rng.standard_normal((3, 1)), rng.standard_normal((3, 4))
    want = (a1 * b1).sum(1) / (np.sqrt(4 * a1[:, 0] ** 2) * np.linalg.norm(b1, axis=1))
    np.testing.assert_allclose(
        F.cosine_similarity(minitorch.from_numpy(a1), minitorch.from_numpy(b1), dim=1).numpy(),
        want,
        rtol=1e-12,
    )
    # each norm clamped on its own: a zero vector gives 0, not NaN
    assert F.cosine_similarity(minitorch.zeros(3), minitorch.ones(3), dim=0).item() == 0.0
    with pytest.raises(RuntimeError, match="expected common dtype to be floating point"):
        F.cosine_similarity(minitorch.tensor([1, 2]), minitorch.tensor([1, 3]), dim=0)


def test_scalar_tensor_takes_the_default_dtype():
    assert minitorch.scalar_tensor(0).dtype == minitorch.float32
    assert minitorch.scalar_tensor(True).dtype == minitorch.float32
    assert minitorch.scalar_tensor(3, dtype=minitorch.int64).dtype == minitorch.int64


def test_integer_corner_cases_as_pytorch():
    # each value checked against PyTorch 2.15 (CPU) on 2026-12-02
    u8 = minitorch.tensor([9, 200], dtype=minitorch.uint8)
    assert minitorch.clamp_min(u8, -1).tolist() == [9, 200]  # the bound saturates, it does not wrap to 255
    assert minitorch.clamp(u8, min=-1, max=300).tolist() == [9, 200]
    assert minitorch.clamp(u8, min=100).tolist() == [100, 200]
    i8 = minitorch.tensor([1, 5], dtype=minitorch.int8)
    assert minitorch.isclose(i8, minitorch.tensor([2, 5], dtype=minitorch.int8), atol=1).tolist() == [
        True,
        True,
    ]
    assert minitorch.isclose(i8, minitorch.tensor([3, 5], dtype=minitorch.int8), atol=1, rtol=0).tolist() == [
        False,
        True,
    ]
    assert minitorch.isclose(i8, minitorch.tensor([2, 5], dtype=minitorch.int8), atol=0, rtol=0).tolist() == [
        False,
        True,
    ]
    z = minitorch.zeros(3, dtype=minitorch.int64)
    assert z.index_add(0, minitorch.tensor([0, 1]), minitorch.tensor([1, 2]), alpha=1.5).tolist() == [1, 2, 0]
    import minitorch.nn.functional as F

    x = minitorch.tensor([1, 7, -2])
    assert F.relu6(x).tolist() == [1, 6, 0] and F.relu6(x).dtype == minitorch.int64
    assert F.hardtanh(x).tolist() == [1, 1, -1] and F.hardtanh(x).dtype == minitorch.int64


def test_where_of_a_zero_dim_condition():
    (i,) = minitorch.where(minitorch.tensor(True))
    assert i.tolist() == [0]
    (i,) = minitorch.where(minitorch.tensor(False))
    assert i.tolist() == [] and i.dtype == minitorch.int64
    (i,) = minitorch.tensor(True).nonzero(as_tuple=True)
    assert i.tolist() == [0]


def test_hypot_scales_instead_of_overflowing():
    a = minitorch.tensor([3e20, 0.0, float("inf"), float("nan"), -3.0, 0.0])
    b = minitorch.tensor([4e20, 0.0, float("nan"), 1.0, 4.0, -0.0])
    r = minitorch.hypot(a, b).numpy()
    want = np.hypot(a.numpy(), b.numpy())
    np.testing.assert_array_equal(np.isnan(r), np.isnan(want))
    np.testing.assert_allclose(r[~np.isnan(r)], want[~np.isnan(want)], rtol=1e-6)
    x = minitorch.tensor([3.0, -1e-3], dtype=minitorch.float64, requires_grad=True)
    y = minitorch.tensor([4.0, 2e-3], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(minitorch.hypot, (x, y))


def test_fill_with_a_tensor_value_passes_its_gradient():
    v = minitorch.tensor(2.0, requires_grad=True)
    r = minitorch.fill(minitorch.zeros(3), v)
    assert r.tolist() == [2.0, 2.0, 2.0]
    (r * minitorch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert v.grad.item() == 6.0  # PyTorch 2.15: the sum of the result's gradient
    assert minitorch.fill(minitorch.zeros(2, dtype=minitorch.int64), 7).tolist() == [7, 7]


# ---- found by tests/ops/difffuzz.py (the differential fuzzer in the project)


def test_logit_eps_follows_pytorchs_order():
    x = minitorch.tensor([-3825.5, 0.3, 2.0, float("nan")])
    # eps = 1 crosses the bounds: below eps goes to eps (logit(1) = inf), above 1 - eps to 1 - eps
    assert minitorch.logit(x, 1.0).tolist()[:3] == [float("inf"), float("inf"), float("-inf")]
    r = minitorch.logit(x, 0.6).numpy()
    np.testing.assert_allclose(
        r[:3], np.log(np.array([0.6, 0.6, 0.4]) / np.array([0.4, 0.4, 0.6])), rtol=1e-6
    )
    assert np.isnan(r[3])
    y = minitorch.tensor([0.05, 0.5, 0.97], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: minitorch.logit(t, 0.1), (y,))
    with pytest.raises(TypeError, match="argument 'eps' .* must be float, not Tensor"):
        minitorch.logit(x, minitorch.ones(4))


def test_logit_gradient_with_eps_is_zero_unless_eps_le_x_le_1_minus_eps():
    # PyTorch's vectorized LogitBackward tests eps <= x <= 1 - eps: a NaN eps or a NaN input gives 0 (issue 34)
    nan = float("nan")
    vals = [nan, 0.05, 0.5, 1.0, 0.0, 1.5, -0.5, 0.3]
    x = minitorch.tensor(vals, dtype=minitorch.float64, requires_grad=True)
    inner = [1 / (v * (1 - v)) if 0.1 <= v <= 0.9 else 0.0 for v in vals]
    assert minitorch.autograd.grad(minitorch.logit(x, 0.1).sum(), x)[0].tolist() == inner
    assert minitorch.autograd.grad(minitorch.logit(x, nan).sum(), x)[0].tolist() == [0.0] * 8
    (g,) = minitorch.autograd.grad(minitorch.logit_(x * 1, nan).sum(), x)  # the in-place form the same
    assert g.tolist() == [0.0] * 8
    # without eps (or a negative one): NaN outside [0, 1], inf at the ends
    for eps in (None, -1.0):
        g = minitorch.autograd.grad(minitorch.logit(x, eps).sum(), x)[0].tolist()
        assert math.isnan(g[0]) and math.isnan(g[5]) and math.isnan(g[6])
        assert g[3] == g[4] == math.inf and g[2] == 4.0 and g[7] == 1 / 0.21


def test_ndtri_keeps_its_digits_in_the_lower_tail():
    p = np.array([1e-300, 1e-40, 1e-20, 1e-10, 1e-5, 9.99e-4, 1e-3, 0.02, 0.5, 0.9])
    x = minitorch.special.ndtri(minitorch.tensor(p, dtype=minitorch.float64))
    assert np.isfinite(x.numpy()).all()  # 2p - 1 rounded every p under 5.6e-17 to -1: -inf
    back = minitorch.special.log_ndtr(x).numpy()
    np.testing.assert_allclose(back, np.log(p), rtol=1e-13)
    t = minitorch.tensor([1e-40, 1e-12, 3e-4, 0.3], dtype=minitorch.float64, requires_grad=True)
    minitorch.special.ndtri(t).sum().backward()
    pdf = np.exp(-(minitorch.special.ndtri(t).detach().numpy() ** 2) / 2)
    np.testing.assert_allclose(t.grad.numpy(), np.sqrt(2 * np.pi) / pdf, rtol=1e-10)  # d ndtri = 1 / pdf
    f32 = minitorch.special.ndtri(minitorch.tensor([1e-40, 1e-20, 1e-5]))
    np.testing.assert_allclose(f32.numpy(), [-13.310921, -9.262341, -4.264891], rtol=1e-6)


def test_xlogy_and_logaddexp2_work_in_the_result_dtype():
    x = minitorch.tensor([0.7355672280903351, 1.2086330991714798], dtype=minitorch.float64)
    assert minitorch.special.xlogy(x, 2).numpy().tolist() == (x.numpy() * np.log(2.0)).tolist()
    b = minitorch.tensor([2.36, -0.1], dtype=minitorch.bfloat16)
    assert minitorch.xlogy(b, 4).dtype == minitorch.bfloat16 and b.xlogy(4).dtype == minitorch.bfloat16
    a32 = minitorch.tensor([1e30, 2.33, 1e-40])
    b64 = minitorch.tensor([0.848, -1.67, 1.0], dtype=minitorch.float64)
    r = minitorch.logaddexp2(a32, b64)
    assert r.dtype == minitorch.float64
    np.testing.assert_allclose(
        r.numpy(), np.logaddexp2(a32.numpy().astype(np.float64), b64.numpy()), rtol=1e-15
    )


def test_index_select_of_a_zero_dim_tensor_is_zero_dim():
    t = minitorch.tensor(-3)
    for idx in (minitorch.tensor([0]), minitorch.tensor(0)):
        r = minitorch.index_select(t, 0, idx)
        assert r.shape == () and r.item() == -3
    with pytest.raises(RuntimeError, match="Index to scalar can have only 1 value, got 2 value"):
        minitorch.index_select(t, 0, minitorch.tensor([0, 0]))
    g = minitorch.tensor(2.0, requires_grad=True)
    minitorch.index_select(g, 0, minitorch.tensor([0])).backward()
    assert g.grad.item() == 1.0


def test_norm_of_one_element_is_its_magnitude():
    # the squares of float32 numbers past 1.8e19 overflow; one element per result needs no squaring (PyTorch)
    d = minitorch.pairwise_distance(minitorch.tensor([-1e30]), minitorch.tensor([6655.56]))
    assert d.item() == float(np.float32(1e30))
    x = minitorch.tensor([[3e20], [-4e20]])
    np.testing.assert_allclose(x.norm(dim=1).numpy(), [3e20, 4e20], rtol=1e-6)
    assert x.norm(dim=1, keepdim=True).shape == (2, 1)
    assert minitorch.tensor(-5.0).norm().item() == 5.0
    assert minitorch.tensor([[-2.0]]).norm(p=3).item() == 2.0
    assert minitorch.tensor([[0.0, 0.0]]).norm(p=0, dim=1).tolist() == [0.0]


# ---- argument kinds: the functions we write in Python raise PyTorch's TypeError (minitorch/_argcheck.py)


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda t: minitorch.cross(t, 0), "cross(): argument 'other' (position 2) must be Tensor, not int"),
        (lambda t: t.put_(-1, t), "put_(): argument 'index' (position 1) must be Tensor, not int"),
        (
            lambda t: minitorch.histc(3, 0, 3),
            "histc(): argument 'input' (position 1) must be Tensor, not int",
        ),
        (
            lambda t: minitorch.special.sinc([t]),
            "sinc(): argument 'input' (position 1) must be Tensor, not list",
        ),
        (lambda t: minitorch.linalg.matrix_power([t], 2), "must be Tensor, not list"),
        (lambda t: minitorch.nn.functional.pdist(3), "pdist(): argument 'input' (position 1) must be Tensor"),
        (lambda t: t.diff(minitorch.ones(2, 2)), "diff(): argument 'n' (position 1) must be int, not Tensor"),
        (lambda t: minitorch.nan_to_num(t, minitorch.ones(3)), "argument 'nan' (position 2) must be float"),
        (lambda t: minitorch.nn.functional.rrelu_(t, minitorch.ones(2)), "argument 'lower'"),
        (
            lambda t: minitorch.nn.functional.threshold(t, minitorch.ones(3), 0.0),
            "must be Number, not Tensor",
        ),
        (lambda t: minitorch.nn.functional.elu(t, minitorch.ones(3)), "argument 'alpha' (position 2)"),
    ],
)
def test_wrong_argument_kinds_raise_pytorchs_type_error(call, fragment):
    t = minitorch.randn(3)
    with pytest.raises(TypeError, match=re.escape(fragment)):
        call(t)


def test_argument_kind_translation_keeps_valid_calls_and_other_errors():
    t = minitorch.randn(3)
    assert minitorch.cross(t, minitorch.randn(3)).shape == (3,)
    # a number where PyTorch's overloads take one, and a tensor where they take a tensor, stay valid
    assert minitorch.normal(minitorch.zeros(3), minitorch.ones(3)).shape == (3,)
    # an error that is not about an argument's kind is PyTorch's own
    with pytest.raises(RuntimeError, match="no dimension of size 3"):
        minitorch.cross(minitorch.randn(2), minitorch.randn(2))
    # F functions PyTorch writes in Python fail there with an AttributeError too: kept as they are
    with pytest.raises(AttributeError):
        minitorch.nn.functional.binary_cross_entropy(t, 0)


def test_signature_parser_decides_like_pytorchs():
    """_argcheck.check_call against hand-written signatures: each verdict and message is PyTorch 2.15's for the
    same call of its C++ op (checked with torch.conv_transpose3d, torch.rms_norm, torch.conv3d)"""
    from minitorch import _argcheck

    t, i0 = minitorch.ones(2), minitorch.tensor(1)
    ct = [("Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, "
           "int[3] output_padding=0, int groups=1, int[3] dilation=1")]  # fmt: skip
    rms = ["Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None"]
    conv = [
        "Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, int[3] dilation=1, int groups=1",
        "Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, str padding=\"valid\", int[3] dilation=1, int groups=1",
    ]  # fmt: skip
    # accepted: an int for int[3], a 0-d integer tensor or NumPy int for an int, 0-d tensors and bools for floats
    for args, kwargs in [
        ((t, t, None, 1, (1, 2, 3), i0), {}),
        ((t, t), {"groups": np.int64(2), "stride": [i0, True]}),
    ]:
        _argcheck.check_call("conv_transpose3d", ct, args, kwargs)
    for eps in (None, True, minitorch.tensor(1.0), np.float64(1.0), 3):
        _argcheck.check_call("rms_norm", rms, (t, [2], None, eps), {})
    _argcheck.check_call("conv3d", conv, (t, t, None, 1, "same"), {})
    refused = [
        ("conv_transpose3d", ct, (t, 1), {}, "conv_transpose3d(): argument 'weight' (position 2) must be Tensor, not int"),
        ("conv_transpose3d", ct, (t, t), {"groups": None}, "conv_transpose3d(): argument 'groups' must be int, not NoneType"),
        ("conv_transpose3d", ct, (t, t, None, True), {}, "argument 'stride' (position 4) must be tuple of ints, not bool"),
        ("conv_transpose3d", ct, (t, t, None, t), {}, "argument 'stride' (position 4) must be tuple of ints, not Tensor"),
        ("conv_transpose3d", ct, (t, t, None, (1.0,)), {},
         "argument 'stride' (position 4) must be tuple of ints, but found element of type float at pos 0"),
        ("conv_transpose3d", ct, (t, t, None, [1, "a"]), {},
         "conv_transpose3d(): argument 'stride' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\""),
        ("conv_transpose3d", ct, (t,) * 10, {}, "conv_transpose3d() takes from 2 to 8 positional arguments but 10 were given"),
        ("conv_transpose3d", ct, (t, t), {"foo": 1}, "conv_transpose3d() got an unexpected keyword argument 'foo'"),
        ("conv_transpose3d", ct, (t,), {}, 'conv_transpose3d() missing 1 required positional arguments: "weight"'),
        ("conv_transpose3d", ct, (t, t), {"input": t}, "conv_transpose3d() got multiple values for argument 'input'"),
        ("rms_norm", rms, (t, 2), {}, "rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"),
        ("rms_norm", rms, (t, [2], None, minitorch.ones(2)), {}, "argument 'eps' (position 4) must be float, not Tensor"),
        ("rms_norm", rms, (t, [2], None, 1j), {}, "argument 'eps' (position 4) must be float, not complex"),
        ("rms_norm", rms, (t, [True]), {}, "must be tuple of ints, but found element of type bool at pos 0"),
        ("rms_norm", rms, (t, [minitorch.tensor(2.0)]), {}, "found element of type Tensor at pos 0"),
        ("conv3d", conv, (t, 0, t), {}, ("conv3d() received an invalid combination of arguments - got (Tensor, int, Tensor), but "
         "expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints "
         "padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, "
         'tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n')),
        ("conv3d", conv, (t, t), {"stride": 1.5}, "got (Tensor, Tensor, stride=float)"),
    ]  # fmt: skip
    for fname, sigs, args, kwargs, msg in refused:
        with pytest.raises(TypeError) as e:
            _argcheck.check_call(fname, sigs, args, kwargs)
        assert msg in str(e.value), (msg, str(e.value))
    # positional=True: a Python function of PyTorch's forwarding by position names every position
    with pytest.raises(TypeError, match=re.escape("argument 'eps' (position 4) must be float, not str")):
        _argcheck.check_call("rms_norm", rms, (t, [2]), {"eps": "x"}, positional=True)


def test_parsing_wrapper_checks_before_or_after_the_call():
    from minitorch import _argcheck

    calls = []

    def op(input, n=1):
        calls.append(n)
        if n == 0:
            raise RuntimeError("n must be positive")
        return n

    sig = ["Tensor input, int n=1"]
    upfront = _argcheck.parsing(op, sig, "op")
    lazy = _argcheck.parsing(op, sig, "op", upfront=False)
    t = minitorch.ones(1)
    assert upfront(t, 2) == 2 and lazy(t, 3) == 3
    with pytest.raises(TypeError, match=re.escape("op(): argument 'n' (position 2) must be int, not float")):
        upfront(t, 2.0)
    assert calls == [2, 3]  # the refused call never ran
    with pytest.raises(RuntimeError, match="n must be positive"):  # a well-typed call keeps its own error
        lazy(t, 0)
    with pytest.raises(TypeError, match="must be Tensor, not int"):  # a badly typed one gets PyTorch's
        lazy(0, 0)


def test_parsing_wrapper_fast_path_takes_only_what_the_parser_takes():
    """the upfront wrapper's inline test for calls by position (generated per signature) lets through exactly
    the values check_call takes as they are; every other call still meets check_call's verdict and words"""
    from minitorch import _argcheck

    calls = []

    def op(input, a, b=1.0, dims=(), *, flag=False):
        calls.append((type(input).__name__, a, b, dims, flag))
        return len(calls)

    sig = ["Tensor input, Scalar a, float b=1.0, int[] dims=[], *, bool flag=False"]
    fn = _argcheck.parsing(op, sig, "op")
    meth = _argcheck.parsing(
        op, ["Scalar a, float b=1.0, int[] dims=[], *, bool flag=False"], "op", method=True
    )
    t = minitorch.ones(2)
    p = minitorch.nn.Parameter(minitorch.ones(2))  # a Tensor subclass: the type test's fallback
    for f in (fn, meth):
        calls.clear()
        for args, kwargs in [
            ((t, 1), {}),
            ((t, 2.5, True), {}),
            ((t, False, 3, [0, 1]), {}),
            ((p, 1j, 2.0, (1,)), {}),
            ((t, 1), {"flag": True}),
            ((t,), {"a": 1, "dims": [2]}),
        ]:
            f(*args, **kwargs)
        assert calls == [
            ("Tensor", 1, 1.0, (), False),
            ("Tensor", 2.5, True, (), False),
            ("Tensor", False, 3, [0, 1], False),
            ("Parameter", 1j, 2.0, (1,), False),
            ("Tensor", 1, 1.0, (), True),
            ("Tensor", 1, 1.0, [2], False),
        ]
        k = 0 if f is fn else 1  # a method's positions count from the argument after self
        refused = [
            ((t, "x"), {}, f"op(): argument 'a' (position {2 - k}) must be Number, not str"),
            ((t, 1, "y"), {}, f"op(): argument 'b' (position {3 - k}) must be float, not str"),
            ((t, 1, 1.0, [1.5]), {}, "must be tuple of ints, but found element of type float at pos 0"),
            ((t, 1, 1.0, 3), {}, f"op(): argument 'dims' (position {4 - k}) must be tuple of ints, not int"),
            (
                (t, 1, 1.0, [], True),
                {},
                f"op() takes from {2 - k} to {4 - k} positional arguments but {5 - k} were",
            ),
            ((t,), {}, 'op() missing 1 required positional arguments: "a"'),
            ((t, 1), {"flag": 1}, "op(): argument 'flag' must be bool, not int"),
        ]
        if f is fn:
            refused.append(((1, 1), {}, "op(): argument 'input' (position 1) must be Tensor, not int"))
        calls.clear()
        for args, kwargs, msg in refused:
            with pytest.raises(TypeError) as e:
                f(*args, **kwargs)
            assert msg in str(e.value), (msg, str(e.value))
        assert calls == []
    # check_call keeps its parsed signatures: the same verdicts on a second call, and pre-parsed ones still work
    for _ in range(2):
        assert _argcheck.check_call("op", sig, (t, 1), {}) == (t, 1)
        with pytest.raises(TypeError, match="must be Number, not str"):
            _argcheck.check_call("op", sig, (t, "x"), {})
    assert _argcheck.check_call("op", [_argcheck._signature(sig[0])], (t, True), {}) == (t, True)


@pytest.mark.parametrize(
    "fn, kernel",
    [
        ("elu", "elu_cpu"),
        ("celu", "elu_cpu"),
        ("selu", "elu_cpu"),
        ("hardsigmoid", "hardsigmoid_cpu"),
        ("hardswish", "hardswish_cpu"),
        ("hardshrink", "hardshrink_cpu"),
        ("softshrink", "softshrink_check"),
        ("logsigmoid", "log_sigmoid_cpu"),
        ("rrelu", "leaky_relu_cpu"),
        ("glu", "glu_cpu"),
    ],
)
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_float_only_activations_refuse_integers(fn, kernel, dtype):
    x = minitorch.tensor([1, 0], dtype=getattr(minitorch, dtype))
    name = {"int64": "Long", "bool": "Bool"}[dtype]
    with pytest.raises(NotImplementedError, match=re.escape(f"\"{kernel}\" not implemented for '{name}'")):
        getattr(minitorch.nn.functional, fn)(x)


def test_float_only_losses_refuse_integers():
    F = minitorch.nn.functional
    x = minitorch.tensor([1, 0])
    for fn, kernel in [
        (F.huber_loss, "huber_cpu"),
        (F.smooth_l1_loss, "smooth_l1_cpu"),
        (F.binary_cross_entropy_with_logits, "log_sigmoid_cpu"),
        (F.multilabel_soft_margin_loss, "log_sigmoid_cpu"),
    ]:
        with pytest.raises(NotImplementedError, match=re.escape(f"\"{kernel}\" not implemented for 'Long'")):
            fn(x, x)
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported"):
        F.kl_div(x, x)


def test_celu_alpha_zero_and_hardtanh_bounds():
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        minitorch.nn.functional.celu(minitorch.tensor([1, 2]), 0.0)  # before the dtype, as PyTorch
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        minitorch.nn.CELU(0.0)(minitorch.randn(3))
    with pytest.raises(AssertionError, match=re.escape("max_val (1.0) must be greater than min_val (1)")):
        minitorch.nn.Hardtanh(1)


# ---- dtype refusals: PyTorch's kernels raise NotImplementedError naming the kernel (its AT_DISPATCH)
_F = minitorch.nn.functional


_MEAN = (
    "mean(): could not infer output dtype. {} dtype must be either a floating point or complex dtype. Got: {}"
)


def _t(*shape, dtype="int64"):
    return minitorch.ones(shape, dtype=getattr(minitorch, dtype))


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: _t(3).mean(),
            _MEAN.format("Input", "Long"),
        ),
        (
            lambda: _t(3, dtype="float32").mean(dtype=minitorch.long),
            _MEAN.format("Optional", "Long"),
        ),
        (lambda: _t(3).std(), "std and var only support floating point and complex dtypes"),
        (lambda: _t(3, dtype="bool").var(0), "std and var only support floating point and complex dtypes"),
        (lambda: minitorch.var_mean(_t(3)), "var_mean only support floating point and complex dtypes"),
        (lambda: minitorch.std_mean(_t(3), 0), "std_mean only support floating point and complex dtypes"),
        (lambda: _t(2, 3).softmax(1), "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
        (lambda: _t(2, 3).softmax(0), "\"softmax_kernel_impl\" not implemented for 'Long'"),
        (
            lambda: _t(3, dtype="float32").softmax(0, dtype=minitorch.int32),
            "_lastdim_kernel_impl\" not implemented for 'Int'",
        ),
        (
            lambda: _t(2, 3, dtype="bool").log_softmax(0),
            "\"log_softmax_kernel_impl\" not implemented for 'Bool'",
        ),
        (
            lambda: _F.cross_entropy(_t(2, 3), minitorch.zeros(2, dtype=minitorch.long)),
            "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'",
        ),
        (
            lambda: minitorch.linalg.vector_norm(_t(3)),
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
        ),
        (
            lambda: _t(3, dtype="int32").norm(),
            "Expected a floating point or complex tensor as input. Got Int",
        ),
        (
            lambda: minitorch._C._foreach_norm([_t(3)], 2.0),
            "Expected a floating point or complex tensor as input. Got Long",
        ),
        (lambda: _t(3, dtype="bool").argmax(), "argmax(): does not support bool input"),
        (lambda: _t(3, dtype="bool").argmin(0), "argmin(): does not support bool input"),
        (lambda: _t(3).normal_(), "\"normal_kernel_cpu\" not implemented for 'Long'"),
        (
            lambda: minitorch.randn(3, dtype=minitorch.int32),
            "\"normal_kernel_cpu\" not implemented for 'Int'",
        ),
        (lambda: _t(3, dtype="bool").uniform_(), "\"check_uniform_bounds\" not implemented for 'Bool'"),
        (
            lambda: _t(3).uniform_(2, 1),
            "\"check_uniform_bounds\" not implemented for 'Long'",
        ),  # before bounds
        (lambda: minitorch.rand_like(_t(3)), "\"check_uniform_bounds\" not implemented for 'Long'"),
        (lambda: _F.max_pool1d(_t(1, 2, 4), 2), "\"max_pool1d_impl\" not implemented for 'Long'"),
        (lambda: _F.max_pool2d(_t(1, 2, 4, 4, dtype="bool"), 2), "\"max_pool2d\" not implemented for 'Bool'"),
        (lambda: _F.avg_pool1d(_t(1, 2, 4, dtype="int32"), 2), "\"avg_pool2d\" not implemented for 'Int'"),
        (
            lambda: _F.adaptive_avg_pool1d(_t(1, 2, 4), 2),
            "\"adaptive_avg_pool2d\" not implemented for 'Long'",
        ),
        (
            lambda: _F.adaptive_avg_pool2d(_t(1, 2, 4, 4, dtype="uint8"), 1),
            _MEAN.format("Input", "Byte"),
        ),
        (
            lambda: _F.adaptive_max_pool1d(_t(1, 2, 4), 2),
            "\"adaptive_max_pool2d\" not implemented for 'Long'",
        ),
        (
            lambda: _F.conv2d(_t(1, 2, 4, 4, dtype="bool"), _t(2, 2, 1, 1, dtype="bool")),
            "\"slow_conv2d_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: _F.conv1d(_t(1, 2, 4, dtype="bool"), _t(2, 2, 1, dtype="bool"), dilation=2),
            "\"slow_conv_dilated<>\" not implemented for 'Bool'",
        ),
        (
            lambda: _F.conv_transpose1d(_t(1, 2, 4, dtype="int32"), _t(2, 2, 1, dtype="int32")),
            "\"slow_conv_transpose2d_out_cpu\" not implemented for 'Int'",
        ),
        (
            lambda: _F.linear(_t(2, 3, dtype="bool"), _t(2, 3, dtype="bool")),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'",
        ),
        (
            lambda: _t(2, 2, dtype="bool").mm(_t(2, 2, dtype="bool")),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'",
        ),
        (
            lambda: _t(2, 2, dtype="bool").mv(_t(2, dtype="bool")),
            "\"addmv_impl_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: _t(1, 2, 2, dtype="bool").bmm(_t(1, 2, 2, dtype="bool")),
            "\"bmm\" not implemented for 'Bool'",
        ),
        (lambda: _t(2, dtype="bool").dot(_t(2, dtype="bool")), "\"dot\" not implemented for 'Bool'"),
        (
            lambda: _t(2, dtype="bool").clamp(_t(2, dtype="bool"), _t(2, dtype="bool")),
            "\"clamp_cpu\" not implemented for 'Bool'",
        ),
        (lambda: _t(2, dtype="bool").clamp(min=True), "\"clamp_min_scalar_cpu\" not implemented for 'Bool'"),
        (lambda: _t(2, dtype="bool").clamp(True, False), "\"clamp_scalar_cpu\" not implemented for 'Bool'"),
        (lambda: _F.leaky_relu(_t(3)), "\"leaky_relu_cpu\" not implemented for 'Long'"),
        (
            lambda: _F.leaky_relu(_t(3, dtype="bool"), inplace=True),
            "\"leaky_relu_cpu\" not implemented for 'Bool'",
        ),
        (lambda: _F.softplus(_t(3, dtype="uint8")), "\"softplus_cpu\" not implemented for 'Byte'"),
        (lambda: _F.mse_loss(_t(3), _t(3)), "\"mse_cpu\" not implemented for 'Long'"),
        (
            lambda: _F.mse_loss(_t(3, dtype="bool"), _t(3, dtype="bool"), reduction="none"),
            "\"mse_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: minitorch.trapezoid(_t(3, dtype="bool")),
            "trapezoid: received a bool input for `y`, but bool is not supported",
        ),
        (
            lambda: minitorch.trapezoid(_t(3), _t(3, dtype="bool")),
            "received a bool input for `x` or `y`, but bool",
        ),
        (
            lambda: _F.batch_norm(_t(2, 3), None, None, training=True),
            "\"batch_norm\" not implemented for 'Long'",
        ),
        (lambda: _F.layer_norm(_t(2, 3), (3,)), "\"LayerNormKernelImpl\" not implemented for 'Long'"),
        (lambda: _F.group_norm(_t(2, 4, 3), 2), "\"GroupNormKernelImpl\" not implemented for 'Long'"),
    ],
)
def test_dtype_refusals_raise_pytorchs_not_implemented_error(call, message):
    with pytest.raises(NotImplementedError) as e:
        call()
    assert message in str(e.value)


def test_dtype_refusals_keep_what_pytorch_computes():
    b = minitorch.tensor([True, False])
    # a bool clamp with one tensor bound is PyTorch's maximum/minimum
    assert b.clamp(min=minitorch.tensor([False, True])).tolist() == [True, True]
    assert b.clamp(max=minitorch.tensor([False, True])).tolist() == [False, False]
    # no kernel runs for no elements: PyTorch returns them, any dtype
    assert _t(0, 3).softmax(0).dtype == minitorch.int64
    assert _t(0).normal_().shape == (0,)
    # huber_loss writes input's dtype, computed in the promoted one; a promoted dtype input cannot hold raises
    assert _F.huber_loss(_t(3, dtype="float16"), _t(3, dtype="float32")).dtype == minitorch.float16
    assert _F.huber_loss(_t(3, dtype="float32"), _t(3)).dtype == minitorch.float32
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        _F.huber_loss(_t(3), _t(3, dtype="float32"))
    # dropout on integers: PyTorch's in-place multiply refuses the float mask (RuntimeError, not the kernel's)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ) as e:
        _F.dropout(_t(3))
    assert type(e.value) is RuntimeError


def test_channel_shuffle_groups_must_be_an_int():
    x = minitorch.randn(1, 4, 2)
    for fn in ("channel_shuffle", "native_channel_shuffle"):
        with pytest.raises(
            TypeError, match=re.escape(f"{fn}(): argument 'groups' (position 2) must be int, not float")
        ):
            getattr(minitorch, fn)(x, 2.0)
        with pytest.raises(TypeError, match="must be int, not list"):
            getattr(minitorch, fn)(x, [2])
    assert minitorch.channel_shuffle(x, 2).shape == (1, 4, 2)


def test_trapezoid_of_nothing_keeps_the_dtype():
    """Found by the differential fuzzer: an empty integration dim gives PyTorch's zeros in y's own dtype."""
    for dt in (minitorch.int32, minitorch.uint8, minitorch.float16):
        r = minitorch.trapezoid(minitorch.zeros(2, 0, dtype=dt))
        assert r.dtype == dt and r.tolist() == [0, 0]
    assert minitorch.trapezoid(minitorch.zeros(0, 3, dtype=minitorch.int64), dim=0).shape == (3,)
    assert minitorch.trapezoid(minitorch.tensor([1, 2, 4], dtype=minitorch.int32)).dtype == minitorch.float32


def test_trapezoid_sample_points_of_other_ranks():
    """PyTorch wraps dim against y and slices a higher-rank x along that same dim (a lower-rank x gains leading
    ones): trapezoid(y of 2, x of (2, 1)) is one trapezoid, not two (found by the differential fuzzer)."""
    y = minitorch.tensor([1.0, 3.0], dtype=minitorch.float64)
    r = minitorch.trapezoid(y, minitorch.tensor([[0.5], [2.5]], dtype=minitorch.float64))
    assert r.shape == (1,) and r.tolist() == [4.0]  # (2.5 - 0.5) * (1 + 3) / 2
    y3 = minitorch.arange(24.0).reshape(2, 3, 4)
    x2 = minitorch.tensor([[0.0, 1.0, 3.0, 6.0], [0.0, 2.0, 4.0, 5.0], [1.0, 1.5, 2.0, 4.0]])
    np_trapezoid = getattr(np, "trapezoid", None) or np.trapz  # NumPy < 2 spells it trapz
    np.testing.assert_allclose(
        minitorch.trapezoid(y3, x2).numpy(), np_trapezoid(y3.numpy(), x2.numpy()[None])
    )
    with pytest.raises(RuntimeError, match="There must be one `x` value for each sample point"):
        minitorch.trapezoid(y3, minitorch.tensor([0.0, 1.0]))


def test_bce_with_logits_result_has_the_targets_dtype():
    """PyTorch builds the loss in place in (1 - target): a float64 weight or pos_weight, or a float64 input,
    does not promote a float32 target's loss (found by the differential fuzzer)."""
    f32, f64 = minitorch.float32, minitorch.float64
    x, t = minitorch.tensor([0.3, -1.2]), minitorch.tensor([1.0, 0.0])
    w = minitorch.tensor([2.0, 0.5], dtype=f64)
    assert minitorch.nn.functional.binary_cross_entropy_with_logits(x, t, w).dtype == f32
    assert (
        minitorch.nn.functional.binary_cross_entropy_with_logits(x, t, pos_weight=w, reduction="none").dtype
        == f32
    )
    assert minitorch.nn.functional.binary_cross_entropy_with_logits(x.double(), t).dtype == f32
    assert minitorch.nn.functional.binary_cross_entropy_with_logits(x, t.double()).dtype == f64
    want = [2.0 * (np.log1p(np.exp(-0.3))), 0.5 * np.log1p(np.exp(-1.2))]
    got = minitorch.nn.functional.binary_cross_entropy_with_logits(x, t, w, reduction="none")
    assert abs(got[0].item() - want[0]) < 1e-6 and abs(got[1].item() - want[1]) < 1e-6


def test_frexp_mantissa_has_pytorchs_gradient():
    """d mantissa / dx = 2**-exponent (PyTorch's FrexpBackward0); it had no gradient at all (fuzzer finding)."""
    x = minitorch.tensor([0.3, -5.0, 0.0, 8.0, 1e-310], dtype=minitorch.float64, requires_grad=True)
    m, e = minitorch.frexp(x)
    (g,) = minitorch.autograd.grad(m.sum(), x)
    assert g.tolist() == [2.0, 0.125, 1.0, 0.0625, float("inf")] and not e.requires_grad
    y = minitorch.tensor([0.3, -0.7, 3.1, -12.5], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: minitorch.frexp(t)[0], (y,))


def test_entr_gradient_is_minus_one_minus_log_x_everywhere():
    """PyTorch's entr gradient: NaN for x < 0, inf at 0 (the piecewise value would give 0 there)."""
    x = minitorch.tensor([-0.5, 0.0, 0.5, 2.0], dtype=minitorch.float64, requires_grad=True)
    (g,) = minitorch.autograd.grad(minitorch.special.entr(x).sum(), x)
    assert np.isnan(g[0].item()) and g[1].item() == float("inf")
    np.testing.assert_allclose(g[2:].tolist(), [-(1 + np.log(0.5)), -(1 + np.log(2.0))], rtol=1e-15)
    y = minitorch.tensor([0.2, 0.9, 3.0], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(minitorch.special.entr, (y,))
    assert minitorch.autograd.gradgradcheck(minitorch.special.entr, (y,))


def test_hinge_embedding_loss_keeps_integer_inputs_integer():
    """PyTorch subtracts in the input's dtype: an integer input truncates the margin (2.7 -> 2) and the loss
    stays integer, wrapping as the dtype does (uint8 2 - 3 = 255)."""
    F = minitorch.nn.functional
    a, t = minitorch.tensor([1, -2, 3]), minitorch.tensor([1, -1, -1])
    r = F.hinge_embedding_loss(a, t, margin=2.7, reduction="none")
    assert r.dtype == minitorch.int64 and r.tolist() == [1, 4, 0]
    assert F.hinge_embedding_loss(a.to(minitorch.uint8), t, margin=2.7, reduction="none").tolist() == [
        1,
        4,
        255,
    ]
    assert F.hinge_embedding_loss(a, t, margin=0.5, reduction="sum").item() == 3
    with pytest.raises(NotImplementedError, match="mean\\(\\): could not infer output dtype"):
        F.hinge_embedding_loss(a, t)
    f = F.hinge_embedding_loss(a.double(), t, margin=2.7, reduction="none")
    assert f.dtype == minitorch.float64 and np.allclose(f.tolist(), [1.0, 4.7, 0.0])


def test_logit_gradient_at_the_ends_and_with_negative_eps():
    """PyTorch's LogitBackward: grad / (x (1 - x)) of the unclamped input, so inf at 0 and 1 (the composite's
    chain rule gave inf * 0 = NaN there); a negative eps means no eps; 0 outside [eps, 1 - eps]."""
    x = minitorch.tensor([1.35, 0.3, -0.5, 0.0, 1.0], dtype=minitorch.float64, requires_grad=True)
    for eps in (None, -1):
        (g,) = minitorch.autograd.grad(minitorch.logit(x, eps).sum(), x)
        assert np.isnan(g[0].item()) and np.isnan(g[2].item()) and g[3:].tolist() == [math.inf, math.inf]
        assert abs(g[1].item() - 1 / (0.3 * 0.7)) < 1e-12
    (g,) = minitorch.autograd.grad(minitorch.logit(x, 0.0).sum(), x)
    assert g.tolist()[2:] == [0.0, math.inf, math.inf] and g[0].item() == 0.0
    (g,) = minitorch.autograd.grad(minitorch.special.logit(x, 0.2).sum(), x)
    assert g.tolist()[0] == 0.0 and g.tolist()[2:] == [0.0, 0.0, 0.0]
    y = minitorch.tensor([0.2, 0.45, 0.8], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(minitorch.logit, (y,))
    assert minitorch.autograd.gradgradcheck(lambda t: minitorch.logit(t, 0.1), (y,))
    z = y * 1
    z.logit_()
    (g,) = minitorch.autograd.grad(z.sum(), y)
    np.testing.assert_allclose(g.tolist(), [1 / (v * (1 - v)) for v in (0.2, 0.45, 0.8)], rtol=1e-14)


def test_copysign_ldexp_dtypes_and_std_gradient_at_zero():
    """Fuzzer findings: copysign promotes as PyTorch's result_type (a 0-dim float32 other keeps a float16 input
    float16), ldexp as input * 2**other (a float32 other widens bfloat16; an integer other does not), and the
    gradient of a zero std is 0 (PyTorch masks it; 0/0 gave NaN), also through std_mean."""
    h = minitorch.tensor([1.5, -2.0], dtype=minitorch.float16)
    assert minitorch.copysign(h, minitorch.tensor(-1.0)).dtype == minitorch.float16
    assert minitorch.copysign(h, minitorch.tensor(-1.0)).tolist() == [-1.5, -2.0]
    assert minitorch.copysign(h, minitorch.tensor([1.0, -1.0])).dtype == minitorch.float32
    b = minitorch.tensor([1.0, 3.0], dtype=minitorch.bfloat16)
    assert minitorch.ldexp(b, minitorch.tensor([2.0, 1.0])).dtype == minitorch.float32
    assert minitorch.ldexp(b, minitorch.tensor([2, 1])).tolist() == [4.0, 6.0]
    assert minitorch.ldexp(b, minitorch.tensor([2, 1])).dtype == minitorch.bfloat16
    x = minitorch.tensor([1.5, 1.5], dtype=minitorch.float64, requires_grad=True)
    (g,) = minitorch.autograd.grad(minitorch.std(x, 0, False), x)
    assert g.tolist() == [0.0, 0.0]
    s, m = minitorch.std_mean(x[:1], 0, False)
    (g,) = minitorch.autograd.grad((s + m).sum(), x)
    assert g.tolist() == [1.0, 0.0]
    y = minitorch.tensor([0.5, 1.5, 4.0], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: minitorch.std(t, 0), (y,))


def test_gaussian_nll_loss_refuses_an_integer_variance():
    """PyTorch clamps a clone of var in place with eps, which an integer var cannot hold (fuzzer finding)."""
    F = minitorch.nn.functional
    a, b = minitorch.tensor([[-5, 5], [2, 0]]), minitorch.tensor([[0, 0], [-3, 5]])
    for v in (minitorch.tensor([[1, 2], [4, 1]]), minitorch.tensor([[1, 2], [4, 1]], dtype=minitorch.int32)):
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type"):
            F.gaussian_nll_loss(a, b, v)
    r = F.gaussian_nll_loss(a, b, minitorch.tensor([[1.0, 2.0], [4.0, 1.0]]), reduction="none")
    np.testing.assert_allclose(r.tolist()[0], [12.5, 0.5 * (np.log(2.0) + 12.5)], rtol=1e-6)


def test_operators_answer_notimplemented_to_calls_they_cannot_take():
    """PyTorch wraps every binary operator so a TypeError becomes NotImplemented: x.__xor__() with no operand,
    two operands or a string operand answer NotImplemented instead of raising (the fuzzer's largest group of
    'missing' calls); the operators themselves work as before."""
    x, i = minitorch.tensor([[2.0, -1.5]]), minitorch.tensor([4, 3])
    for op in ("__add__", "__radd__", "__iadd__", "__xor__", "__eq__", "__lt__", "__matmul__", "__rmatmul__"):
        assert getattr(x, op)() is NotImplemented, op
        assert getattr(x, op)(1, 2) is NotImplemented, op
    for op in ("__lshift__", "__rshift__", "__rlshift__", "__rrshift__", "__ilshift__", "__irshift__"):
        assert getattr(i, op)() is NotImplemented, op
    assert minitorch.tensor([True]).__itruediv__() is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"
    assert (x + 1).tolist() == [[3.0, -0.5]] and (i << 1).tolist() == [8, 6] and (2 >> i).tolist() == [0, 0]


def test_backward_through_python_inplace_composites():
    """fix_, square_ and the other in-place spellings of Python composites on a non-leaf: backward works with
    PyTorch's gradient (the composite's nodes read a copy of the input the store overwrites; it used to fail
    with 'modified by an inplace operation', the fuzzer's largest 'missing' group after the operators)."""
    x = minitorch.tensor([-1.85, 2.5], dtype=minitorch.float64, requires_grad=True)
    for name, want in (("fix_", [0.0, 0.0]), ("square_", [-3.7, 5.0])):
        y = x * 1
        r = getattr(minitorch, name)(y)
        assert r is y
        (g,) = minitorch.autograd.grad(r.sum(), x)
        np.testing.assert_allclose(g.tolist(), want, rtol=1e-15)
    y = x * 1
    y.square_()
    (g,) = minitorch.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.tolist(), [-3.7, 5.0], rtol=1e-15)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.square_()


def test_tolerance_endpoint_and_dtype_refusals_in_pytorchs_words():
    """Fuzzer findings: negative isclose/allclose tolerances, a fill_ value or linspace/logspace endpoint tensor
    with dimensions, polygamma_ on integers and lerp on integers are refused with PyTorch's class and words."""
    x = minitorch.ones(3)
    with pytest.raises(RuntimeError, match="^atol must be greater than or equal to zero, but got -1$"):
        minitorch.isclose(x, x, atol=-1)
    with pytest.raises(RuntimeError, match="^rtol must be greater than or equal to zero, but got -0.5$"):
        minitorch.allclose(x, x, rtol=-0.5)
    with pytest.raises(
        RuntimeError, match="^fill_ only supports 0-dimension value tensor but got tensor with 2"
    ):
        x.fill_(minitorch.ones(2, 2))
    assert x.fill_(minitorch.tensor(2.0)).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(
        RuntimeError, match="linspace only supports 0-dimensional start and end tensors, but got end"
    ):
        minitorch.linspace(0, minitorch.ones(2), 4)
    with pytest.raises(
        RuntimeError, match="logspace only supports 0-dimensional start and end tensors, but got start"
    ):
        minitorch.logspace(minitorch.ones(2, 2), 3, 4)
    assert minitorch.linspace(minitorch.tensor(0.0), 1, 3).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        minitorch.tensor([1, 2]).polygamma_(1)
    i = minitorch.tensor([1, 2], dtype=minitorch.int32)
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Int'"):
        minitorch.lerp(i, i, 0.5)
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_tensor\" not implemented for 'Int'"):
        minitorch.lerp(i, i, minitorch.tensor([1, 1], dtype=minitorch.int32))


def test_padding_and_dropout1d_rank_rules_as_pytorch():
    """Fuzzer findings: non-constant padding pads the last 1-3 dims of a batched or unbatched input only
    (NotImplementedError with PyTorch's table otherwise), the circular modules check the rank first (ValueError),
    pad sizes must be ints (bool and float are TypeErrors) and dropout1d takes 2-D or 3-D input only."""
    nn, F = minitorch.nn, minitorch.nn.functional
    with pytest.raises(NotImplementedError, match="^Padding size 4 is not supported for 5D input tensor.\\n"):
        nn.ReplicationPad2d(0)(minitorch.ones(2, 2, 2, 2, 2))
    with pytest.raises(ValueError, match="^expected 2D or 3D input \\(got 5D input\\)$"):
        nn.CircularPad1d(1)(minitorch.ones(1, 1, 1, 1, 2))
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type bool at pos 0"):
        nn.ReplicationPad1d((True, 1))(minitorch.ones(2, 3))
    with pytest.raises(TypeError, match="found element of type float at pos 0"):
        F.pad(minitorch.ones(2, 3), (1.5, 1))
    assert nn.ReplicationPad3d(1)(minitorch.ones(1, 1, 2, 2, 2)).shape == (1, 1, 4, 4, 4)
    assert nn.CircularPad1d(1)(minitorch.arange(3.0).reshape(1, 3)).tolist() == [[2.0, 0.0, 1.0, 2.0, 0.0]]
    assert nn.ConstantPad1d(1, 0.0)(minitorch.ones(1, 1, 1, 1, 1, 2)).shape == (1, 1, 1, 1, 1, 4)
    with pytest.raises(RuntimeError, match="^dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(minitorch.ones(1, 2, 3, 4))
    assert F.dropout1d(minitorch.ones(2, 3), training=False).shape == (2, 3)


def test_argument_kinds_in_pytorchs_words_for_inplace_composites_shapes_and_dropouts():
    x = minitorch.randn(3, 2, dtype=minitorch.float64)
    # an in-place composite names the argument as its out-of-place form does (its signature is the same)
    with pytest.raises(
        TypeError, match=r"^renorm_\(\): argument 'p' \(position 1\) must be Number, not Tensor$"
    ):
        x.renorm_(minitorch.ones(3, 2), 1, 1.0)
    for bad, shown in [(0.5, "0.5"), (minitorch.tensor(3), "3")]:
        with pytest.raises(RuntimeError, match=rf"a tuple of ints, or a list of ints, got {shown}$"):
            minitorch.broadcast_shapes(bad, 1)
    with pytest.raises(
        TypeError, match=r"^feature_alpha_dropout\(\): argument 'train' \(position 3\) must be bool"
    ):
        minitorch.feature_alpha_dropout(minitorch.ones(2, 2), 0.5, 1)


@pytest.mark.parametrize(
    "pivots, message",
    [
        ("torch.tensor([5, 1, 2], dtype=torch.int32)", "must all be smaller or equal to LU.size(-2)"),
        ("torch.tensor([0, 1, 2], dtype=torch.int32)", "must all be greater or equal to 1"),
        ("torch.tensor([-7, 2, 3], dtype=torch.int32)", "must all be greater or equal to 1"),
        (
            "torch.tensor([1., 2., 3.], dtype=torch.float64)",
            "pivots should be a Tensor of scalar type torch.int32",
        ),
        ("torch.tensor([1, 2, 3])", "pivots should be a Tensor of scalar type torch.int32"),
    ],
)
def test_lu_solve_checks_its_pivots_in_a_subprocess(pivots, message):
    # LAPACK's getrs swaps rows by the pivots unchecked: fuzzed pivots corrupted the heap ("free(): invalid
    # next size") or segfaulted; PyTorch checks them first
    setup = "A = torch.eye(3, dtype=torch.float64) * 2; B = torch.ones(3, 2, dtype=torch.float64)"
    for call in ("torch.linalg.lu_solve(A, {p}, B)", "torch.lu_solve(B, A, {p})"):
        rc, out = run_raising(setup + "; " + call.format(p=pivots))
        assert rc == 0, out
        assert "raised: " in out and message in out, out
    # valid pivots still solve
    A = minitorch.tensor([[4.0, 3.0], [6.0, 3.0]], dtype=minitorch.float64)
    LU, piv = minitorch.linalg.lu_factor(A)
    x = minitorch.linalg.lu_solve(LU, piv, minitorch.tensor([[10.0], [12.0]], dtype=minitorch.float64))
    np.testing.assert_allclose(x.numpy().ravel(), np.linalg.solve(A.numpy(), [10.0, 12.0]))


def test_lerp_dtypes_checks_and_half_precision_as_pytorch():
    # one kernel now (it was seven ops): PyTorch's dtype checks and result_type, half computed in float and
    # rounded once, a number weight kept in full precision, foreach lerp_ deciding by |w|
    T = minitorch
    f32, f64, f16 = (
        (lambda *s: T.ones(s)),
        (lambda *s: T.ones(s, dtype=T.float64)),
        (lambda *s: T.ones(s, dtype=T.float16)),
    )
    assert T.lerp(f32(2), f32(2), f64()).dtype == T.float32  # a 0-dim weight of another dtype is taken
    assert (
        T.lerp(T.tensor(1.0), T.tensor(2.0), T.tensor(0.5, dtype=T.float64)).dtype == T.float64
    )  # all 0-dim
    assert T.lerp(f16(2), f16(2), 0.5).dtype == T.float16 and T.lerp(f32(2), f32(2), True).dtype == T.float32
    with pytest.raises(RuntimeError, match="^expected dtype float for `end` but got dtype double$"):
        T.lerp(f32(), f64(2), f32())
    with pytest.raises(RuntimeError, match="^expected dtype float for `weight` but got dtype double$"):
        T.lerp(f32(2), f32(2), f64(2))
    with pytest.raises(RuntimeError, match="expected dtype c10::Half for `end`"):
        T.lerp(f16(2), f32(), 0.5)
    # float16 in float: 1.2 -> -2.8 at w = 1 is end itself (the wrapped 1 - w kept float16, not float32)
    r = T.lerp(T.tensor(1.2, dtype=T.float16), T.tensor(-2.8, dtype=T.float16), 1)
    assert r.dtype == T.float16 and r.item() == np.float16(-2.8)
    h = np.array([0.1, 0.7, -3.3], dtype=np.float16)
    e = np.array([2.9, -1.1, 8.7], dtype=np.float16)
    w = np.array([0.3, 0.6, 0.45], dtype=np.float16)
    got = T.lerp(T.tensor(h), T.tensor(e), T.tensor(w)).numpy()
    h32, e32, w32 = h.astype(np.float32), e.astype(np.float32), w.astype(np.float32)
    ref = np.where(np.abs(w32) < 0.5, h32 + w32 * (e32 - h32), e32 - (e32 - h32) * (1 - w32)).astype(
        np.float16
    )
    np.testing.assert_array_equal(got, ref)
    # float64 with a huge number weight: computed in double, not through a float32 scalar
    big = T.lerp(T.tensor([1.0], dtype=T.float64), T.tensor([2.0], dtype=T.float64), 1e30)
    assert big.item() == 1e30
    # broadcasting over all three, strided operands
    a = T.arange(6.0).reshape(2, 3).t()
    got = T.lerp(a, T.zeros(3, 1), T.tensor([0.25, 0.75]))
    an = np.arange(6.0).reshape(2, 3).T
    np.testing.assert_allclose(
        got.numpy(), np.where([0.25, 0.75] < np.array(0.5), an * 0.75, -(0 - an) * 0.25)
    )
    # foreach lerp_ decides by |w|: w = -0.5 counts back from end, as PyTorch (inf - inf there is nan)
    b = T.tensor([1.2], dtype=T.bfloat16)
    b.lerp_(T.tensor([-float("inf")], dtype=T.bfloat16), -0.5)
    assert np.isnan(b.float().item())
    # gradients through the two-sided formula, tensor and number weights
    s, t = (T.randn(4, dtype=T.float64, requires_grad=True) for _ in range(2))
    wt = T.tensor([0.1, 0.5, 0.9, -2.0], dtype=T.float64, requires_grad=True)
    assert T.autograd.gradcheck(T.lerp, (s, t, wt))
    assert T.autograd.gradcheck(lambda u, v: T.lerp(u, v, 0.2), (s, t))


def test_fuzzer_findings_topk_std_fill_bce_as_pytorch():
    T = minitorch
    # topk of a 0-dim tensor gives the element itself for k = 0 as for k = 1, with its gradient
    x = T.tensor(2.5, requires_grad=True)
    v, i = T.topk(x, 0)
    assert v.shape == () and v.item() == 2.5 and i.item() == 0
    v.backward()
    assert x.grad.item() == 1.0
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        T.topk(x, 2)
    # float32 var/std accumulate in double: squares of 1e30 overflow float, the std does not
    big = T.tensor([1e30, -1e30, 3e29])
    ref = np.std(np.array([1e30, -1e30, 3e29]), ddof=1)
    assert T.std(big).item() == pytest.approx(ref, rel=1e-6) and np.isinf(T.var(big).item())
    assert T.std_mean(big)[0].item() == pytest.approx(ref, rel=1e-6)
    assert T.tensor([[1e30, -1e30, 3e29]]).std(1).item() == pytest.approx(ref, rel=1e-6)
    # fill_ with a value that requires grad: the value receives the gradient's sum
    val = T.tensor(2.0, requires_grad=True)
    t = T.zeros(3)
    t.fill_(val)
    (t * T.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert val.grad.item() == 6.0 and t.tolist() == [2.0, 2.0, 2.0]
    # BCE with logits on bfloat16 logits: log-sigmoid rounded once (four bfloat16 roundings moved it by 2e-3)
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((3, 4)).astype(np.float32)
    ys, ws = rng.uniform(0, 1, (3, 4)), rng.uniform(0, 1, (3, 4))
    xb = T.tensor(xs).to(T.bfloat16)
    got = T.nn.functional.binary_cross_entropy_with_logits(xb, T.tensor(ys), T.tensor(ws))
    xf = xb.float().numpy().astype(np.float64)
    log_sig = (np.minimum(xf, 0) - np.log1p(np.exp(-np.abs(xf)))).astype(np.float32)
    log_sig = T.tensor(log_sig).to(T.bfloat16).double().numpy()
    ref = np.mean(((1 - ys) * xf - log_sig) * ws)
    assert got.item() == pytest.approx(ref, rel=1e-12)


def test_cross_entropy_probability_targets_as_pytorch():
    T = minitorch
    F = T.nn.functional
    rng = np.random.default_rng(1)
    X, P, W = rng.standard_normal((4, 3)), rng.dirichlet([1, 1, 1], 4), rng.uniform(0.5, 2, 3)
    ls = X - np.log(np.exp(X).sum(1, keepdims=True))
    # zero classes: PyTorch's mean is nan (0 / 0 samples), its sum and 'none' rows -0.0
    z = T.zeros(5, 0)
    assert np.isnan(F.cross_entropy(z, z).item())
    s = F.cross_entropy(z, z, reduction="sum").item()
    assert s == 0 and np.signbit(s)
    assert F.cross_entropy(z, z, reduction="none").shape == (5,)
    # operands of several dtypes: the result is their result_type
    x32 = T.tensor(X, dtype=T.float32)
    r = F.cross_entropy(x32, T.tensor(P))
    assert r.dtype == T.float64 and r.item() == pytest.approx(-(ls * P).sum() / 4, rel=1e-6)
    r = F.cross_entropy(x32, T.tensor(P, dtype=T.float32), weight=T.tensor(W))
    assert r.dtype == T.float64 and r.item() == pytest.approx(-(ls * P * W).sum() / 4, rel=1e-6)
    # a weight that requires grad gets d loss / d w = -sum_n ls * t / N (label smoothing mixes the target)
    w = T.tensor(W, requires_grad=True)
    x = T.tensor(X, requires_grad=True)
    F.cross_entropy(x, T.tensor(P), weight=w, label_smoothing=0.1).backward()
    t = P * 0.9 + 0.1 / 3
    np.testing.assert_allclose(w.grad.numpy(), -(ls * t).sum(0) / 4, rtol=1e-12)
    assert T.autograd.gradcheck(
        lambda a, b: F.cross_entropy(a, T.tensor(P), weight=b, reduction="sum"),
        (T.tensor(X, requires_grad=True), T.tensor(W, requires_grad=True)),
    )
    # class-index targets read the weight as the input's dtype, as PyTorch's kernel (no silent conversion)
    with pytest.raises(RuntimeError, match="^expected scalar type BFloat16 but found Float$"):
        F.cross_entropy(x32.to(T.bfloat16), T.tensor([0, 1, 2, 0]), weight=T.ones(3))
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        F.nll_loss(x32, T.tensor([0, 1, 2, 0]), weight=T.ones(3, dtype=T.float64))


def test_max_pool_last_nan_index_and_pow_number_exponent_gradient():
    T = minitorch
    F = T.nn.functional
    nan = float("nan")
    # a NaN takes the window and a later NaN takes it over (PyTorch's `v > best || isnan(v)`), in the generic
    # loop and in the 2x2 SSE2 path alike
    v = T.tensor([[[3.0, nan, nan, 0.0]]])
    assert F.max_pool1d(v, 4, return_indices=True)[1].item() == 2
    assert F.adaptive_max_pool1d(v, 1, return_indices=True)[1].item() == 2
    x = T.tensor([[[[1.0, nan, 2.0, 5.0], [nan, 0.0, 7.0, nan], [1, 2, 3, 4], [5, 6, 7, 8.0]]]]).repeat(
        1, 1, 1, 4
    )
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert idx.tolist() == [[[[16, 19, 20, 23, 24, 27, 28, 31], [49, 51, 53, 55, 57, 59, 61, 63]]]]
    assert np.isnan(out[0, 0, 0].numpy()).all()
    # x ** 0.1 in float64: the gradient's exponent 0.1 - 1 stays a double (it was rounded to float32's -0.9)
    y = T.tensor([2.0], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(y.pow(0.1), y)
    assert g.item() == 0.1 * 2.0**-0.9
    assert T.autograd.gradcheck(
        lambda t: t.pow(0.1), (T.tensor([2.0, 3.5], dtype=T.float64, requires_grad=True),)
    )


def test_lerp_weight_of_another_dtype_is_read_after_conversion():
    # a 0-dim weight of another dtype is converted first; the converted temporary was freed before the kernel
    # read it (garbage such as 9e-310 in the result)
    T = minitorch
    a = T.tensor([1 + 1j, 2 + 0j], dtype=T.complex128)
    b = T.tensor([3 + 0j, 5 + 2j], dtype=T.complex128)
    np.testing.assert_allclose(T.lerp(a, b, T.tensor(0.3 + 0j)).numpy(), [1.6 + 0.7j, 2.9 + 0.6j], rtol=1e-7)
    x = T.arange(6.0, dtype=T.float64).reshape(2, 3)
    np.testing.assert_allclose(T.lerp(x, x + 10, T.tensor(0.3)).numpy(), x.numpy() + 3, rtol=1e-7)


def test_integer_overflow_wraps_as_pytorch():
    # two's complement, as PyTorch's integer kernels; computed without signed overflow (undefined in C++, which
    # the sanitizer build's fuzz run stopped on in add/mul/neg/abs/pow, the integer GEMM, sums and avg_pool)
    T = minitorch
    i32 = T.tensor([-(2**31), -3, 2**31 - 1], dtype=T.int32)
    assert T.square(i32).tolist() == [0, 9, 1]
    assert (i32 + 1).tolist() == [-(2**31) + 1, -2, -(2**31)]
    assert T.tensor(-(2**63)).neg().item() == -(2**63) and T.tensor([-(2**63)]).abs().tolist() == [-(2**63)]
    assert T.tensor([2**62, 2**62]).sum().item() == -(2**63)
    assert (T.tensor([[2**62]]) @ T.tensor([[4]])).item() == 0
    assert T.tensor([3], dtype=T.int64).pow(63).item() == np.int64(3) ** np.int64(63)
    assert T.tensor([2**62, 2**62], dtype=T.int64).prod().item() == 0
    # the column path (a reduced middle dim) too
    cols = T.tensor([[-4, -4], [-4, -3], [-(2**63), -2], [1, -3]])
    assert cols.sum(0).tolist() == [2**63 - 7, -12] and cols.sum_to_size(1, 2).tolist() == [[2**63 - 7, -12]]
    assert T.tensor([[2**62], [4]]).prod(0).item() == 0


def test_integer_scans_wrap_as_pytorch():
    T = minitorch
    x = T.tensor([[2**62, 2**62, 1], [5, 2**63 - 1, 2]])
    assert x.cumsum(1).tolist() == [[2**62, -(2**63), -(2**63) + 1], [5, -(2**63) + 4, -(2**63) + 6]]
    assert (
        x.cumprod(1)[0].tolist() == [2**62, 0, 0] and x.cumprod(1)[1, 1].item() == 2**63 - 5
    )  # 5 * (2**63 - 1) wrapped
    assert x.t().cumsum(0).t().tolist() == x.cumsum(1).tolist()  # the strip path along a middle dim
    v = T.linalg.vander(T.tensor([-(2**31), 4], dtype=T.int32), N=4)  # int64, as PyTorch: (-2**31)**3 wraps
    assert v.dtype == T.int64 and v.tolist() == [[1, -(2**31), 2**62, 0], [1, 4, 16, 64]]


def test_median_of_empty_tensor_as_pytorch():
    T = minitorch
    x = T.zeros(0, 3, requires_grad=True)
    m = x.median()
    assert np.isnan(m.item()) and m.grad_fn is not None
    m.backward()
    assert x.grad.shape == (0, 3)
    assert T.tensor([], dtype=T.float16).median().dtype == T.float16
    # PyTorch's NaN cast to integers on x86: the lowest int64/int32, 0 when narrower
    assert T.tensor([], dtype=T.int64).median().item() == -(2**63)
    assert T.tensor([], dtype=T.int32).median().item() == -(2**31)
    assert T.tensor([], dtype=T.uint8).median().item() == 0


def test_margin_ranking_loss_order_and_norm_except_dim_graph_as_pytorch():
    T = minitorch
    # ATen's order: -target first, in the target's dtype (a uint8 target wraps: -9 is 247)
    r = T.nn.functional.margin_ranking_loss(
        T.tensor([-0.0, float("nan")], dtype=T.float64),
        T.tensor([1.8255102829435472, 0.715162344715365]),
        T.tensor([9, 6], dtype=T.uint8),
        reduction="none",
    )
    assert r[0].item() == 0.0 and np.isnan(r[1].item())
    # norm_except_dim of a vector stays in the graph for any p (PyTorch's view(size(0), -1).norm(pow, 1))
    v = T.tensor([-0.5, 2.0, 0.0], dtype=T.float64, requires_grad=True)
    n0 = T.norm_except_dim(v, 0)
    assert n0.requires_grad and n0.tolist() == [1.0, 1.0, 0.0]
    n2 = T.norm_except_dim(v, 2, 0)
    assert n2.tolist() == [0.5, 2.0, 0.0]
    (g,) = T.autograd.grad(n2[:2].sum(), v)
    assert g.tolist() == [-1.0, 1.0, 0.0]


def test_xlogy_number_precision_and_celu_half_as_pytorch():
    T = minitorch
    # a Python number joins float64 at full precision (it went through float32 first)
    x = T.tensor([1.2544733265766395, -0.6043853937634238], dtype=T.float64)
    np.testing.assert_array_equal(T.xlogy(x, 1e-05).numpy(), x.numpy() * np.log(1e-05))
    np.testing.assert_array_equal(x.clone().xlogy_(1e-05).numpy(), x.numpy() * np.log(1e-05))
    # celu in half precision: computed in float and rounded once (1 / 1e30 underflowed in half: NaN)
    assert T.celu(T.tensor(-float("inf"), dtype=T.float16), 1e30).item() == -float("inf")
    got = T.celu(T.tensor([-1.0, -5.0], dtype=T.float16), 1e4)
    want = (1e4 * np.expm1(np.array([-1.0, -5.0], dtype=np.float32) / np.float32(1e4))).astype(np.float16)
    np.testing.assert_array_equal(got.numpy(), want)


def test_ldexp_with_a_narrower_float_exponent_as_pytorch():
    # PyTorch's input * pow(2.0, other): the power rounds in other's dtype first
    T = minitorch
    a = T.tensor([-1.4840542022753238, 0.5389089786644181], dtype=T.float32)
    e = T.tensor([2.25122000007119, -2.6125245100310295], dtype=T.bfloat16)
    p = np.exp2(e.float().numpy()).astype(np.float32)
    p = T.tensor(p).to(T.bfloat16).float().numpy()
    np.testing.assert_array_equal(T.ldexp(a, e).numpy(), a.numpy() * p)
    np.testing.assert_array_equal(a.clone().ldexp_(e).numpy(), a.numpy() * p)


def test_fuzz_seeds_1001_to_1003_findings_as_pytorch():
    """the wrong answers of the recorded run of seeds 1001-1003 that were ours to fix"""
    T = minitorch
    # lcm in C's arithmetic: int8 multiplies in int, abs, then wraps once (abs(127 / 1 * -2) = 254 -> -2)
    pairs = [(127, -2, -2), (100, 3, 44), (-128, 3, -128), (64, -3, -64), (0, 5, 0), (12, 18, 36)]
    for a, b, want in pairs:
        assert T.lcm(T.tensor(a, dtype=T.int8), T.tensor(b, dtype=T.int8)).item() == want
    assert T.lcm(T.tensor(200, dtype=T.uint8), T.tensor(3, dtype=T.uint8)).item() == 88
    assert T.lcm(T.tensor(2**30 + 1, dtype=T.int32), T.tensor(6, dtype=T.int32)).item() == 2147483642
    assert T.lcm(T.tensor(-(2**62)), T.tensor(3)).item() == 2**62
    # bool + bool with an int alpha stays bool (alpha taken as a bool, as PyTorch's kernel does)
    a, b = T.tensor([True, False, False]), T.tensor([True, True, False])
    assert T.add(a, b, alpha=0).dtype == T.bool and T.add(a, b, alpha=0).tolist() == [True, False, False]
    assert T.add(a, b, alpha=2).tolist() == [True, True, False]
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        T.add(a, b, alpha=0.5)
    # other / x is x.reciprocal() * other (PyTorch's __rdiv__): both roundings, so the same bits
    x = T.tensor([0.19372057729280767, -2.9319275491145578], dtype=T.bfloat16)
    o = T.tensor([2.526040992858123, 0.24130183497424662], dtype=T.float64)
    want = x.reciprocal().double().numpy() * o.numpy()
    np.testing.assert_array_equal(x.__rtruediv__(o).numpy(), want)
    f = T.tensor([3.0, 7.0, 0.0, -0.0, float("inf")])
    with np.errstate(divide="ignore"):
        r = np.float32(1) / f.numpy()
    np.testing.assert_array_equal((3.0 / f).numpy(), (r * np.float32(3)).astype(np.float32))
    np.testing.assert_array_equal((1 / f).numpy(), r)
    assert (2 / T.tensor([3])).dtype == T.float32 and (1j / T.tensor([2.0])).dtype == T.complex64
    g = T.tensor([2.0, 4.0], requires_grad=True)
    (3 / g).sum().backward()
    assert g.grad.tolist() == [-0.75, -0.1875]
    # empty matrices: pinv is the empty transpose and matrix_rank zeros, the tolerances not broadcast
    e = T.empty((0, 5)).permute(1, 0)
    assert T.linalg.pinv(e, T.tensor([0, 0, 0, 0])).shape == (0, 5)
    assert T.linalg.pinv(T.empty((2, 5, 0)), atol=T.ones(4, 1)).shape == (2, 0, 5)
    p = T.linalg.pinv(T.empty((2, 0, 3), requires_grad=True))
    assert p.shape == (2, 3, 0) and p.requires_grad
    r = T.linalg.matrix_rank(T.empty((0, 6))[..., ::2], T.empty((0, 3), dtype=T.int64))
    assert r.shape == () and r.dtype == T.int64 and r.item() == 0
    assert T.linalg.matrix_rank(T.empty((2, 0, 0)), hermitian=True).tolist() == [0, 0]
    # bincount of an empty input counts in int64 whatever the weights' dtype
    for w in (T.empty(0, dtype=T.int32), T.empty(0), T.empty(0, dtype=T.float16)):
        c = T.bincount(T.empty(0, dtype=T.int32), w, 3)
        assert c.dtype == T.int64 and c.tolist() == [0, 0, 0]
    assert T.bincount(T.tensor([1]), T.tensor([2], dtype=T.float16), 3).dtype == T.float64


def test_xlogy_derivatives_and_kl_div_target_gradient_as_pytorch():
    """xlogy is one op with PyTorch's derivatives: d/dx = xlogy(grad, y) (0 where x == 0 and y <= 0, and where
    the incoming gradient is 0 whatever y), d/dy = grad * x / y; kl_div is xlogy(t, t) - t * x over it"""
    T = minitorch
    a = T.tensor([0.0, 0.0, 2.0, 2.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([0.0, -1.0, 0.0, 3.0], dtype=T.float64, requires_grad=True)
    r = T.xlogy(a, b)
    assert r.grad_fn.name() == "XlogyBackward0"
    np.testing.assert_array_equal(r.detach().numpy(), [0.0, 0.0, -np.inf, 2 * np.log(3.0)])
    ga, gb = T.autograd.grad(r.sum(), (a, b))
    np.testing.assert_array_equal(ga.numpy(), [0.0, 0.0, -np.inf, np.log(3.0)])
    np.testing.assert_array_equal(gb.numpy(), [np.nan, -0.0, np.inf, 2 / 3])
    x = T.tensor([0.5, 0.5, 0.5], dtype=T.float64, requires_grad=True)
    t = T.tensor([0.0, -1.0, 2.0], dtype=T.float64, requires_grad=True)
    loss = T.nn.functional.kl_div(x, t, reduction="none")
    np.testing.assert_allclose(loss.detach().numpy(), [0.0, np.nan, 2 * np.log(2.0) - 1.0])
    gx, gt = T.autograd.grad(loss, (x, t), T.ones(3, dtype=T.float64))
    np.testing.assert_array_equal(gx.numpy(), [-0.0, 1.0, -2.0])
    np.testing.assert_allclose(gt.numpy(), [np.nan, np.nan, np.log(2.0) + 1.0 - 0.5])
    # a zero incoming gradient gives 0 for the negative target, not 0 * log(-1) = NaN (the t == 0 NaN stays)
    _, gt0 = T.autograd.grad(
        T.nn.functional.kl_div(x, t, reduction="none"), (x, t), T.zeros(3, dtype=T.float64)
    )
    np.testing.assert_array_equal(gt0.numpy(), [np.nan, 0.0, 0.0])
    # the torch-level in-place form PyTorch has, and a Python number on either side
    z = T.tensor([2.0, 0.0])
    assert T.xlogy_(z, T.tensor([3.0, 0.0])) is z and z.tolist() == [pytest.approx(2 * np.log(3.0)), 0.0]
    assert T.xlogy(2, T.tensor([3.0])).item() == pytest.approx(2 * np.log(3.0))
    assert T.xlogy(T.tensor([1, 2]), T.tensor([3, 4])).dtype == T.float32


def test_fuzz_seeds_1101_to_1103_findings_as_pytorch():
    """the wrong answers of the fuzz run of seeds 1101-1103 that were ours to fix"""
    T = minitorch
    F = T.nn.functional
    # addcmul/addcdiv of half tensors in float, rounded once: the float16 product 2288 * 505 overflowed to inf
    # and inf + -inf gave NaN
    x = T.tensor([float("inf"), 1.0], dtype=T.float16)
    a = T.tensor([2288.0, 2.0], dtype=T.float16)
    b = T.tensor([-505.0, 3.0], dtype=T.float16)
    np.testing.assert_array_equal(T.addcmul(x, a, b).numpy(), np.array([np.inf, 7.0], np.float16))
    d = T.addcdiv(x, a, T.tensor([-1 / 505, 1 / 3], dtype=T.float16))  # 2288 / (-1 / 505) is beyond float16
    assert d[0].item() == float("inf") and d[1].item() == pytest.approx(7.0, abs=0.01)
    r = T.addcmul(
        T.tensor([0.0], dtype=T.bfloat16),
        T.tensor([300.0], dtype=T.bfloat16),
        T.tensor([300.0], dtype=T.bfloat16),
    )
    assert r.dtype == T.bfloat16 and r.item() == float(T.tensor([90000.0]).to(T.bfloat16).item())
    # a 0-d tensor as hardtanh's bound is a number: float16 stays float16
    h = F.hardtanh(T.tensor(-1.0, dtype=T.float16), T.tensor(-5435.16, dtype=T.float64))
    assert h.dtype == T.float16 and h.item() == -1.0
    # isin against a number compares in the elements' dtype (bfloat16 1e30 is not float32 1e30)
    e = T.tensor([1e30, 2.0, 3.0], dtype=T.bfloat16)
    assert T.isin(e, 1e30).tolist() == [True, False, False]
    assert T.isin(e, 2, invert=True).tolist() == [True, False, True]
    # block_diag's dtype is PyTorch's result_type: a 0-d float32 does not widen float16 blocks
    assert T.block_diag(T.tensor(0.0), T.tensor([1.0, 2.0], dtype=T.float16)).dtype == T.float16
    assert T.block_diag(T.tensor([0.0]), T.tensor([1.0, 2.0], dtype=T.float16)).dtype == T.float32
    # binary_cross_entropy's loss is like input: a float64 weight keeps float32, a target of another dtype is refused
    i, t = T.tensor([0.25, 0.5]), T.tensor([1.0, 0.0])
    w = T.tensor([2.0, 3.0], dtype=T.float64)
    assert F.binary_cross_entropy(i, t, w).dtype == T.float32
    assert F.binary_cross_entropy(i[:0], t[:0], w[:0], reduction="sum").dtype == T.float32
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        F.binary_cross_entropy(i, t.double())
    # cdist of two dtypes: refused once there is something to compute, x1's dtype when empty
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        T.cdist(T.rand(2, 3), T.rand(2, 3, dtype=T.float64))
    assert T.cdist(T.rand(2, 3), T.rand(0, 3, dtype=T.float64)).dtype == T.float32
    assert T.cdist(T.rand(2, 0, dtype=T.float64), T.rand(2, 0)).shape == (2, 2)
    # cumulative_trapezoid sums dx * (left + right) and halves after, as PyTorch (integers wrap in the sum)
    ct = T.cumulative_trapezoid(T.tensor([3, -(2**63), 0, -4, 2]), T.tensor([1, 4, 3, 0, 3]))
    assert ct.tolist() == [-4.611686018427388e18, 4.5, 10.5, 7.5]
    np.testing.assert_allclose(
        T.cumulative_trapezoid(T.tensor([1.0, 2.0, 4.0]), T.tensor([0.0, 1.0, 3.0])).numpy(), [1.5, 7.5]
    )
    # addr of bool tensors: an int alpha/beta is a bool, the result stays bool
    bv = T.tensor([False, True])
    m = T.tensor([[True, False], [False, False]])
    assert m.addr(bv, bv, alpha=3).tolist() == [[True, False], [False, True]]
    assert m.addr(bv, bv, beta=2, alpha=0).tolist() == [[True, False], [False, False]]
    # relu's and clamp's backward select the gradient (PyTorch's threshold/clamp backward): an infinite
    # gradient outside the pass-through region gives 0 there, not inf * 0 = NaN
    z = T.tensor([0.0, 0.0], requires_grad=True)
    (g,) = T.autograd.grad((T.sign(z) * T.relu(z.abs())).pow(0.5).sum(), z)
    assert g.tolist() == [0.0, 0.0]
    c = T.tensor([0.0, 2.0, -3.0], requires_grad=True)
    (g,) = T.autograd.grad((T.clamp(c, -1, 1) * T.tensor([float("inf"), 1.0, float("nan")])).sum(), c)
    assert g.tolist() == [float("inf"), 0.0, 0.0]


def test_fuzz_seeds_1201_to_1203_findings_as_pytorch():
    """the wrong answers of the recorded run of seeds 1201-1203 that were ours to fix"""
    T = minitorch
    # a Python-number exponent of +-0.5 is sqrt/rsqrt (PyTorch's tensor-scalar shortcut): NaN at -inf, -0 kept;
    # a tensor exponent, 0-d too, is pow (+inf at -inf)
    x = T.tensor([-float("inf"), -0.0, 4.0, -4.0])
    r = T.pow(x, 0.5)
    assert np.isnan(r[0].item()) and np.signbit(r[1].item()) and r[2].item() == 2.0
    assert (x**0.5).numpy().tobytes() == r.numpy().tobytes()
    assert T.pow(x, -0.5)[1].item() == -float("inf") and T.pow(x, -0.5)[2].item() == 0.5
    assert T.pow(x, T.tensor(0.5))[0].item() == float("inf")
    y = x.clone()
    y.pow_(0.5)
    assert y.numpy().tobytes() == r.numpy().tobytes()
    assert np.isnan(T.float_power(x.half(), 0.5)[0].item())
    a = T.tensor([0.5, -1.0], requires_grad=True)
    (g,) = T.autograd.grad((a.abs() ** 0.5).sum(), a)
    np.testing.assert_allclose(g.numpy(), [0.5 / np.sqrt(0.5), -0.5])
    # other * alpha of a Python number stays a number: no promotion of a 0-d bfloat16
    assert T.add(T.tensor(-0.3598, dtype=T.bfloat16), -1, alpha=-1.5).dtype == T.bfloat16
    assert T.add(T.tensor([1, 2]), True, alpha=2).tolist() == [3, 4]
    assert T.sub(T.tensor([1, 2], dtype=T.int8), 100, alpha=3).tolist() == [-43, -42]
    # alpha == 0 reads neither factor of addmm/baddbmm (BLAS's rule): an inf in them does not become NaN
    i = T.ones(2, 2)
    m = T.tensor([[float("inf"), 1.0], [1.0, 1.0]])
    assert T.addmm(i, m, m, alpha=0).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert i.clone().addmm_(m, m, alpha=False).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert T.addmm(i, m, m, alpha=0, beta=2).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert T.addmm(i, m, m, alpha=0, beta=0).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert T.baddbmm(i[None], m[None], m[None], alpha=0).tolist() == [[[1.0, 1.0], [1.0, 1.0]]]


def test_cond_of_empty_input_is_zeros_outside_the_graph():
    """PyTorch answers linalg.cond of no matrices or of empty ones with zeros before any other check (no
    square check for p=1, no gradient), found by the fuzz run of seed 1301"""
    T = minitorch
    for shape, p in (((0, 4, 4), None), ((0, 4, 4), 1), ((2, 0, 0), "fro"), ((3, 0, 2), 1)):
        a = T.empty(shape, dtype=T.float64, requires_grad=True)
        r = T.linalg.cond(a, p)
        assert r.shape == shape[:-2] and r.dtype == T.float64 and not r.requires_grad
        assert (r == 0).all().item()


def test_fuzz_seeds_1301_to_1303_findings_as_pytorch():
    """logspace spaces its exponents in the result's float dtype (float32 2147483647 is 2^31, even: (-1.5) to
    it is +inf); hardshrink with a NaN lambd passes x but no gradient (PyTorch's vectorized backward)"""
    T = minitorch
    assert T.logspace(2147483647, 0, 2, -1.5).tolist() == [float("inf"), 1.0]
    assert T.logspace(16777217, 0, 2, -1.0).tolist() == [1.0, 1.0]
    assert T.logspace(16777217, 0, 2, -1.0, dtype=T.float64).tolist() == [-1.0, 1.0]
    np.testing.assert_array_equal(
        T.logspace(0.1, 1, 3).numpy(),
        np.power(10.0, np.linspace(0.1, 1, 3, dtype=np.float32).astype(np.float64)).astype(np.float32),
    )
    x = T.tensor([-1.33, -0.49, 0.64], dtype=T.float64, requires_grad=True)
    r = T.nn.functional.hardshrink(x, float("nan"))
    assert r.tolist() == [-1.33, -0.49, 0.64]
    (g,) = T.autograd.grad(r.sum(), x)
    assert g.tolist() == [0.0, 0.0, 0.0]
    (g,) = T.autograd.grad(T.nn.functional.hardshrink(x, 0.5).sum(), x)
    assert g.tolist() == [1.0, 0.0, 1.0]


def test_normal_of_two_tensors_has_the_mean_dtype():
    """normal(mean, std) is like mean (else like std) whatever std's dtype, as PyTorch's (seed 1401)"""
    T = minitorch
    for m, s in ((T.float16, T.bfloat16), (T.float32, T.float64), (T.float64, T.float32)):
        mean = T.zeros(3, dtype=m, requires_grad=True)
        r = T.normal(mean, T.ones(3, dtype=s))
        assert r.dtype == m
        (g,) = T.autograd.grad(r.sum(), mean)
        assert g.dtype == m and g.tolist() == [1.0, 1.0, 1.0]
        assert T.normal(0.5, T.ones(2, dtype=s)).dtype == s


def test_row_loops_keep_the_sign_of_a_broadcast_zero():
    """the CPU row loops (atan2, fmod, remainder, pow, logaddexp) broadcast a one-value operand into every lane:
    0 + v lost the sign of -0.0 there (atan2(-0., x < 0) gave +pi for the vector's lanes, -pi for the tail),
    found by the fuzz run of seed 1403"""
    T = minitorch
    x = T.tensor([-2.9, -1.5, -1.8, 2.4, -3.0, -0.5, -7.0, -1.0, -2.0, -4.0, 1.0])
    for dt in (T.float32, T.float64):
        y = x.to(dt)
        z = T.tensor(-0.0, dtype=dt)
        want = np.arctan2(np.float64(-0.0), y.double().numpy())
        np.testing.assert_array_equal(np.signbit(T.atan2(z, y).numpy()), np.signbit(want))
        np.testing.assert_allclose(T.atan2(z, y).double().numpy(), want, rtol=1e-6)
        np.testing.assert_array_equal(np.signbit(T.fmod(z, y).numpy()), np.ones(11, bool))
        np.testing.assert_array_equal(
            np.signbit(T.pow(z, T.full((11,), 3.0, dtype=dt)).numpy()), np.ones(11, bool)
        )
        np.testing.assert_array_equal(
            np.signbit(T.fmod(y.abs().neg() * 0, T.tensor(2.0, dtype=dt)).numpy()), np.ones(11, bool)
        )


def test_pointwise_losses_broadcast_first_and_shrink_bounds_are_numbers():
    """the fuzz run of seed 1501: PyTorch broadcasts input and target before l1/mse/smooth_l1/huber, so a 0-d
    float32 target promotes a float16 input like a dimensioned tensor; softshrink's 0-d lambd is a number"""
    T = minitorch
    F = T.nn.functional
    x = T.tensor([[0.25, -1.5], [2.0, 0.5]], dtype=T.float16)
    t = T.tensor(1.0)
    for f in (F.l1_loss, F.mse_loss, F.smooth_l1_loss):
        assert f(x, t).dtype == T.float32
        np.testing.assert_allclose(
            f(x, t, reduction="none").numpy(), f(x.float(), T.ones(2, 2), reduction="none").numpy()
        )
    assert F.huber_loss(x, t).dtype == T.float16  # PyTorch's huber keeps the input's dtype
    g = T.tensor(2.0, requires_grad=True)
    (gt,) = T.autograd.grad(F.mse_loss(T.tensor([1.0, 3.0, 4.0]), g), g)
    assert gt.item() == pytest.approx(2 * (2 - 8 / 3))
    assert F.softshrink(T.tensor([-0.52, 3.0], dtype=T.float16), T.tensor(1.0)).dtype == T.float16


def test_alpha_scales_the_other_operand_in_the_result_dtype():
    """a - alpha * b with a float16 b and a float32 a: b is promoted before the scaling, so alpha * b rounds
    once in float32 as PyTorch's kernel (it was scaled in float16 first), found by the fuzz run of seed 1502"""
    T = minitorch
    a = T.tensor([0.1, 0.2])
    b = T.tensor([1.001, 2.003], dtype=T.float16)
    want = a.numpy() - np.float32(3) * b.numpy().astype(np.float32)
    np.testing.assert_array_equal(T.sub(a, b, alpha=3).numpy(), want)
    np.testing.assert_array_equal(a.clone().sub_(b, alpha=3).numpy(), want)
    assert T.add(b, b, alpha=3).dtype == T.float16


def test_pow_exponent_gradient_takes_the_log_of_the_base_in_the_result_dtype():
    """7 ** x in float64: the gradient 7 ** x * log(7) took log of the integer base in float32 (found by the
    fuzz run of seed 1503); PyTorch promotes the base first. A real base under a complex exponent likewise."""
    T = minitorch
    xs = [0.0, 1.0, -1.0, 2.5, 30.0]
    x = T.tensor(xs, dtype=T.float64, requires_grad=True)
    (7**x).sum().backward()
    want = np.array([7.0**v * math.log(7.0) for v in xs])
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-15)
    e = T.tensor(xs, dtype=T.float64, requires_grad=True)
    (gb,) = T.autograd.grad(T.pow(T.tensor([3, 3, 3, 3, 3]), e).sum(), e)
    np.testing.assert_allclose(gb.numpy(), [3.0**v * math.log(3.0) for v in xs], rtol=1e-15)
    z = T.tensor([0.5 + 0.25j], dtype=T.complex128, requires_grad=True)
    (gz,) = T.autograd.grad(T.pow(T.tensor([-2.0], dtype=T.float64), z).abs().sum(), z)
    assert np.isfinite(gz.numpy()).all()


def test_isin_compares_in_the_dtype_of_pytorchs_algorithm_and_refuses_bool_and_complex():
    """the fuzz run of seed 1602: PyTorch's isin compares with the usual promotion below its size heuristic
    (10 * numel(elements) ** 0.145 test elements) and in the plainly promoted dtype above it (a Python float
    counts as float64 there), so float32 1e30 is found among 3 test values and not among 15"""
    T = minitorch
    u = T.tensor([1e30, 2.0, 3.0], dtype=T.float32)
    assert T.isin(1e30, u).item() and not T.isin(1e30, u.repeat(5)).item()
    assert T.isin(T.tensor(1e30, dtype=T.float64), u).item()
    assert not T.isin(T.tensor(1e30, dtype=T.float64), u.repeat(5)).item()
    assert T.isin(T.tensor([2.0**40]), T.tensor([2.0**40 + 1] * 12)).tolist() == [True]  # float32 both sides
    assert T.isin(3, T.arange(12.0)).item() and not T.isin(2.5, T.arange(12)).item()
    for a, b, name in [
        (True, T.arange(3), "Bool"),
        (T.arange(3), T.tensor([True]), "Bool"),
        (T.tensor([1j]), T.arange(3), "ComplexFloat"),
        (T.arange(3), 1j, "ComplexDouble"),
    ]:
        with pytest.raises(
            NotImplementedError, match=f"Unsupported input type encountered for isin\\(\\): {name}"
        ):
            T.isin(a, b)


def test_norm_of_one_value_follows_pytorchs_two_paths():
    """fuzz seeds 1603, 1701 and 1902: PyTorch returns |x| for a one-element reduction whatever the order (NaN
    included; the squaring p = 2 formula would overflow float32 there), except for a 0-dim tensor reduced over
    an explicit dim, where it runs the formula (|x|^p)^(1/p) in the dtype: NaN for a NaN order, inf for 1e30,
    0.2 % off |x| in float32 for p = 1e-5"""
    T = minitorch
    nan = float("nan")
    x = T.tensor([-1.24])
    for p in (nan, 1e-5, 0.5, 3.0, 1e30, 2, float("inf")):
        assert T.linalg.vector_norm(x, p).item() == np.float32(1.24)
        assert T.linalg.vector_norm(x, p, 0).item() == np.float32(1.24)
        assert T.linalg.vector_norm(x[0], p).item() == np.float32(1.24)
        assert T.linalg.vector_norm(x.view(1, 1), p, 1).tolist() == [np.float32(1.24)]
    assert T.tensor([2.4161]).dist(T.tensor([1.3106]), p=1e30).item() == pytest.approx(1.1055, abs=1e-4)
    zero_d = T.tensor(-0.5894544346886006)
    assert math.isnan(T.linalg.vector_norm(zero_d, nan, 0).item())
    assert T.linalg.vector_norm(T.tensor(-1.24), 1e30, -1).item() == math.inf
    want = np.float32(np.float32(np.float32(0.5894544346886006) ** np.float32(1e-5)) ** np.float32(1e5))
    assert T.linalg.vector_norm(zero_d, 1e-5, -1).item() == pytest.approx(float(want), rel=1e-6)
    assert T.linalg.vector_norm(zero_d, 2, -1).item() == np.float32(0.5894544346886006)
    assert T.linalg.vector_norm(T.tensor([3e30]), 2, 0).item() == np.float32(3e30)
    assert T.linalg.vector_norm(x, 0).item() == 1.0


def test_attention_row_with_a_nan_score_before_masked_ones_is_nan():
    """the fuzz run of seed 1801: the row maximum let a later -inf replace a NaN score, so [NaN, -inf, ...] was
    taken as a fully masked row (zeros); PyTorch's softmax gives NaN there, and zeros only where every score is
    -inf"""
    T = minitorch
    F = T.nn.functional
    q = T.tensor([[[1.0, 2.0]]])
    v = T.ones(1, 3, 2)
    k = T.tensor([[[float("nan"), 1.0], [1.0, 1.0], [2.0, 0.0]]])
    for kk in (k, k.flip(1)):
        assert np.isnan(F.scaled_dot_product_attention(q, kk, v).numpy()).all()
    ninf = float("-inf")
    # the NaN first, the rest masked out
    mask = T.tensor([[[0.0, ninf, ninf]]])
    assert np.isnan(F.scaled_dot_product_attention(q, k, v, attn_mask=mask).numpy()).all()
    mask = T.tensor([[[ninf, ninf, ninf]]])
    np.testing.assert_array_equal(
        F.scaled_dot_product_attention(q, k.nan_to_num(), v, attn_mask=mask).numpy(), 0.0
    )


def test_margin_losses_count_only_positive_terms_as_pytorchs_kernels():
    """fuzz seed 1903: PyTorch's multi-margin and multilabel-margin kernels add a term only where z > 0, so a
    NaN term adds nothing (clamp_min(0) kept it and made the loss NaN)"""
    T = minitorch
    F = T.nn.functional
    nan = float("nan")
    x = T.tensor([[-0.6444383102517452, nan], [0.5, 0.31839996990628805]])
    assert F.multi_margin_loss(x, T.tensor([0, 1])).item() == pytest.approx((1 - 0.3184 + 0.5) / 4, abs=1e-4)
    x = T.tensor([[0.1, nan, 0.4, 0.8], [0.5, 0.2, nan, 0.3]], requires_grad=True)
    y = T.tensor([[3, 0, -1, 1], [0, 1, -1, -1]])
    loss = F.multilabel_margin_loss(x, y)
    assert loss.item() == pytest.approx(0.475, abs=1e-6)
    loss.backward()
    np.testing.assert_allclose(
        x.grad.numpy(), [[-0.125, 0.0, 0.25, -0.125], [-0.125, -0.125, 0.0, 0.25]], atol=1e-6
    )


def test_size_arguments_take_tensors_without_leaving_a_python_error():
    """the fuzz run of seed 2101 under the sanitizer build: an adaptive pool's output_size given as a 0-dim
    tensor was iterated as a Python sequence, which failed inside and left the error set behind a successful
    return (pybind11's debug assertion fired; the release build raised an unrelated IndexError later). An
    integer tensor is one size, as PyTorch's parser takes it; a tensor is not a list of tensors either"""
    T = minitorch
    F = T.nn.functional
    x = T.randn(1, 2, 6)
    assert tuple(F.adaptive_avg_pool1d(x, T.tensor(3)).shape) == (1, 2, 3)
    assert tuple(F.adaptive_max_pool1d(x, T.tensor([2])).shape) == (1, 2, 2)
    assert tuple(F.adaptive_avg_pool2d(T.randn(1, 5, 5), [T.tensor(2), 3]).shape) == (1, 2, 3)
    with pytest.raises(RuntimeError, match="Expected 2 to 3 dimensions, but got 1-dimensional tensor"):
        T.adaptive_avg_pool1d(T.tensor([-1.55, 0.45]), T.tensor(0))
    for bad in (2.5, "a", T.tensor([2.0])):
        with pytest.raises(TypeError):
            F.adaptive_avg_pool1d(x, bad)
    with pytest.raises(TypeError, match="list or tuple of Tensors"):
        T._C._foreach_add_(T.ones(2), 1.0)


def test_node_hooks_must_return_a_tuple():
    """a grad_fn hook returning a bare Tensor was read as a sequence of its rows (len() of a 0-d tensor, or a
    count mismatch); PyTorch's TypeError names what came back"""
    T = minitorch
    x = T.ones(3, requires_grad=True)
    y = (x * 2).sum()
    y.grad_fn.register_prehook(lambda go: go[0] * 3)
    with pytest.raises(TypeError, match="expected tuple, but hook returned 'Tensor'"):
        y.backward()
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: T.ones(3))
    with pytest.raises(TypeError, match="expected tuple, but hook returned 'Tensor'"):
        y.sum().backward()
    y = (x * 2).sum()
    y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0, 6.0])


def test_clamp_bounds_are_two_tensors_or_two_numbers():
    """PyTorch's parser takes clamp's bounds as two Tensors or two Numbers (a 0-dim tensor counts as a number);
    a tensor with dims beside a number was accepted here (seed 2301)"""
    T = minitorch
    x = T.tensor([[0.0, 2.0, 5.0], [-1.0, 3.0, 9.0]])
    for call in (
        lambda: T.clamp(x, min=T.ones(3), max=4.0),
        lambda: T.clip(x, T.ones(3), 4.0),
        lambda: x.clamp(1.0, T.full((3,), 4.0)),
        lambda: x.clone().clamp_(T.ones(3), 4.0),
        lambda: x.clone().clip_(1.0, T.full((3,), 4.0)),
    ):
        with pytest.raises(TypeError, match=r"received an invalid combination of arguments - got \(.*Tensor"):
            call()
    want = [[1.0, 2.0, 4.0], [1.0, 3.0, 4.0]]
    np.testing.assert_array_equal(T.clamp(x, T.tensor(1.0), 4.0).numpy(), want)  # 0-dim: a number
    np.testing.assert_array_equal(T.clamp(x, T.ones(3), T.full((3,), 4.0)).numpy(), want)
    np.testing.assert_array_equal(T.clamp(x, T.ones(3), None).numpy(), np.maximum(x.numpy(), 1))


def test_nan_to_num_arguments_are_floats():
    """nan/posinf/neginf are PyTorch `float?`: a tensor with dims, a string or a complex number is a TypeError,
    None means the default (nan=None was refused here, a complex nan accepted)"""
    T = minitorch
    x = T.tensor([float("nan"), float("inf"), -float("inf"), 1.5])
    with pytest.raises(
        TypeError, match=re.escape("nan_to_num(): argument 'nan' (position 2) must be float, not Tensor")
    ):
        T.nan_to_num(x, T.ones(2))
    with pytest.raises(TypeError, match=re.escape("nan_to_num(): argument 'nan' must be float, not str")):
        T.nan_to_num(x, nan="a")
    with pytest.raises(TypeError, match=re.escape("argument 'nan' must be float, not complex")):
        T.nan_to_num(x, nan=1 + 2j)
    with pytest.raises(TypeError, match=re.escape("argument 'posinf' must be float, not Tensor")):
        T.nan_to_num(x, posinf=T.ones(3))
    big = float(np.finfo(np.float32).max)
    np.testing.assert_array_equal(T.nan_to_num(x, None).numpy(), [0.0, big, -big, 1.5])
    np.testing.assert_array_equal(T.nan_to_num(x, T.tensor(2.0)).numpy(), [2.0, big, -big, 1.5])
    np.testing.assert_array_equal(T.nan_to_num(x, 1.0, 7.0, -7.0).numpy(), [1.0, 7.0, -7.0, 1.5])


def test_slice_scatter_step_must_be_positive():
    T = minitorch
    x = T.zeros(2, 3)
    for step in (0, -1):
        with pytest.raises(RuntimeError, match="slice step must be positive"):
            T.slice_scatter(x, T.ones(2, 3), 1, 0, 3, step)
    np.testing.assert_array_equal(
        T.slice_scatter(x, T.ones(2, 2), 1, 0, 3, 2).numpy(), [[1, 0, 1], [1, 0, 1]]
    )


def test_nextafter_gradient_is_pytorchs():
    """PyTorch's NextafterBackward passes the gradient to input where input != other (NaN included) and gives
    other zeros; the bit-level forward had cut the gradient (seed 2301)"""
    T = minitorch
    x = T.tensor([1.0, 0.0, float("nan"), 2.0], dtype=T.float64, requires_grad=True)
    y = T.tensor([2.0, 0.0, 1.0, 2.0], dtype=T.float64, requires_grad=True)
    gx, gy = T.autograd.grad(T.nextafter(x, y).sum(), (x, y))
    np.testing.assert_array_equal(gx.numpy(), [1.0, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 0.0, 0.0, 0.0])
    (gb,) = T.autograd.grad(T.nextafter(x[:2], T.tensor(3.0, dtype=T.float64)).sum(), x)
    np.testing.assert_array_equal(gb.numpy(), [1.0, 1.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "call, exc, text",
    [
        (
            lambda T: T.tensordot(T.ones(2), T.ones(2), 2.5),
            RuntimeError,
            "tensordot expects dims to be int or tuple",
        ),
        (
            lambda T: T.binomial(T.ones(3), 0.5),
            TypeError,
            "argument 'prob' (position 2) must be Tensor, not float",
        ),
        (
            lambda T: T.ones(3).put_(T.tensor([0]), 3),
            TypeError,
            "argument 'source' (position 2) must be Tensor, not int",
        ),
        (
            lambda T: T.lu_unpack(T.ones(4), 3),
            TypeError,
            "argument 'LU_pivots' (position 2) must be Tensor, not int",
        ),
        (
            lambda T: T.orgqr(T.ones(3), []),
            TypeError,
            "argument 'input2' (position 2) must be Tensor, not list",
        ),
        (lambda T: T.ones(4, 3).take_along_dim(T.tensor([[1]]), True), TypeError, "must be int, not bool"),
        (
            lambda T: T.ones(3).select_scatter(T.tensor(2.0), 0, False),
            TypeError,
            "argument 'index' (position 3) must be int",
        ),
        (
            lambda T: T.ones(2).masked_scatter(T.ones(2, dtype=T.bool), True),
            TypeError,
            "must be Tensor, not bool",
        ),
        (
            lambda T: T.unique_consecutive(T.tensor(9.0), dim=-1),
            IndexError,
            "Dimension specified as -1 but tensor has no",
        ),
        (
            lambda T: T.meshgrid(T.ones(2), T.ones(2), "a"),
            TypeError,
            "expected Tensor as element 2 in argument 0, but got str",
        ),
    ],
)
def test_argument_kinds_of_composites_seed_2301(call, exc, text):
    """exception classes that differed from PyTorch's in fuzz seeds 2301/2302: the composites now check their
    arguments as PyTorch's parser does (on failure only, where the check would cost a valid call time)"""
    with pytest.raises(exc, match=re.escape(text)):
        call(minitorch)


@pytest.mark.parametrize(
    "call, exc, text",
    [
        (
            lambda T: T.unique(T.tensor([3, 1, 1]), sorted=1),
            TypeError,
            "argument 'sorted' must be bool, not int",
        ),
        (
            lambda T: T.unique(T.tensor([3, 1]), dim=0, return_counts=None),
            TypeError,
            "unique_dim(): argument 'return_counts' must be bool, not NoneType",
        ),
        (
            lambda T: T.repeat_interleave(T.tensor([3, 1]), True),
            TypeError,
            "invalid combination of arguments",
        ),
        (lambda T: T.tensor([3, 1]).repeat_interleave(2.0), TypeError, "invalid combination of arguments"),
        (
            lambda T: T.repeat_interleave(T.tensor([3, 1]), T.tensor([True, False])),
            NotImplementedError,
            "\"repeat_interleave_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda T: T.repeat_interleave(T.tensor([1.0, 2.0])),
            NotImplementedError,
            "\"repeat_interleave_cpu\" not implemented for 'Float'",
        ),
        (
            lambda T: T.special.round(T.tensor([3], dtype=T.int8)),
            NotImplementedError,
            "\"round_vml_cpu\" not implemented for 'Char'",
        ),
        (
            lambda T: T.special.ndtri(T.rand(3).bfloat16()),
            NotImplementedError,
            "\"ndtri_cpu\" not implemented for 'BFloat16'",
        ),
        (
            lambda T: T.special.log_ndtr(T.rand(3).half()),
            NotImplementedError,
            "\"log_ndtr_cpu\" not implemented for 'Half'",
        ),
        (
            lambda T: T.nanquantile(T.tensor(1.0), 0.5, dim=5),
            IndexError,
            "Dimension out of range (expected to be in range of [-1, 0], but got 5)",
        ),
        (lambda T: T.quantile(T.ones(3), 0.5, dim=True), TypeError, "invalid combination of arguments"),
        (
            lambda T: T.logcumsumexp(T.ones(3), True),
            TypeError,
            "argument 'dim' (position 2) must be int, not bool",
        ),
        (
            lambda T: T.ones(3, 2).to_sparse_csr(1),
            RuntimeError,
            "dense_dim argument must be in [0,0] range, but 1 is given",
        ),
        (
            lambda T: T.nn.functional.dropout3d(T.ones(1, 2, 2, 2, 2, dtype=T.int64)),
            RuntimeError,
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            lambda T: T.nn.functional.dropout2d(T.ones(2, 2, 2, 2, dtype=T.bool)),
            RuntimeError,
            "result type Float can't be cast to the desired output type Bool",
        ),
        (
            lambda T: T.nn.functional.alpha_dropout(T.ones(8, dtype=T.bool), 0.5, True),
            RuntimeError,
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            lambda T: T.addcmul(*[T.tensor([True])] * 3),
            NotImplementedError,
            "\"addcmul_cpu_out\" not implemented for 'Bool'",
        ),
        (
            lambda T: T.nn.functional.binary_cross_entropy_with_logits(
                T.zeros(3), T.ones(3), pos_weight=T.ones(3, requires_grad=True)
            ),
            RuntimeError,
            "not differentiable with respect to argument 'pos_weight'",
        ),
        (
            lambda T: T.logcumsumexp(T.tensor(2, dtype=T.int8), 3),
            IndexError,
            "Dimension out of range (expected to be in range of [-1, 0], but got 3)",
        ),
        (
            lambda T: T.index_fill(T.ones(3, 4), 0, T.tensor([[1]]), T.ones(2, 2)),
            RuntimeError,
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 2 dimension(s).",
        ),
        (lambda T: T.linalg.vander(T.ones(3), 2), TypeError, "takes 1 positional argument but 2 were given"),
        (
            lambda T: T.smm([1], T.ones(2)),
            TypeError,
            "smm(): argument 'input' (position 1) must be Tensor, not list",
        ),
        (
            lambda T: T.ones(3).log_normal_(T.ones(2)),
            TypeError,
            "log_normal_(): argument 'mean' (position 1) must be float, not Tensor",
        ),
        (
            lambda T: T.nn.functional.hardtanh_(T.ones(3, dtype=T.int64), float("nan")),
            RuntimeError,
            "value cannot be converted to type int64_t without overflow",
        ),
        (lambda T: T.addmv_(2), TypeError, "addmv_(): argument 'input' (position 1) must be Tensor, not int"),
        (
            lambda T: T.nn.functional.cosine_embedding_loss(T.tensor(False), -1, 0),
            TypeError,
            "cosine_embedding_loss(): argument 'input2' (position 2) must be Tensor, not int",
        ),
        (
            lambda T: T.linalg.ldl_solve(T.eye(3), T.zeros(3, dtype=T.int32), True),
            TypeError,
            "linalg_ldl_solve(): argument 'B' (position 3) must be Tensor, not bool",
        ),
        (
            lambda T: T.linalg.householder_product(T.eye(3), 2),
            TypeError,
            "linalg_householder_product(): argument 'tau' (position 2) must be Tensor, not int",
        ),
        (lambda T: T.eye(3).ormqr(T.ones(3), True), TypeError, "argument 'input3'"),
        (
            lambda T: T.lobpcg(T.ones(2, dtype=T.float64, requires_grad=True), T.ones(2, 3, dtype=T.float64)),
            RuntimeError,
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
        ),
    ],
)
def test_fuzz_seed_2401_accepted_bad_calls_raise_as_pytorch(call, exc, text):
    """calls PyTorch refuses that ran here (fuzz seed 2401): flags that must be real bools, integer counts,
    the special functions' float/double-only kernels, dims out of range, dropouts whose float mask cannot be
    cast back to an integer input, and weights PyTorch cannot differentiate"""
    with pytest.raises(exc, match=re.escape(text)):
        call(minitorch)


def test_valid_neighbours_of_the_seed_2401_calls_still_run():
    T = minitorch
    assert T.unique(T.tensor([3, 1, 1]), sorted=True).tolist() == [1, 3]
    assert T.repeat_interleave(T.tensor([3.0, 1.0]), T.tensor(2)).tolist() == [3.0, 3.0, 1.0, 1.0]
    assert T.special.round(T.tensor([2.5, -0.5])).tolist() == [2.0, -0.0]
    # p in {0, 1} or eval mode never draws a float mask: integer inputs pass (as PyTorch's)
    x = T.ones(2, 2, 2, 2, dtype=T.int64)
    assert T.nn.functional.dropout2d(x, 0.0).dtype == T.int64
    assert T.nn.functional.dropout2d(x, 0.5, training=False).equal(x)
    assert T.nn.functional.dropout3d(x, 1.0).sum().item() == 0
    assert T.ones(3).log_normal_(T.tensor(0.0), 1.0).shape == (3,)  # a 0-d tensor is a number to the parser
    assert T.linalg.vander(T.tensor([1.0, 2.0]), N=3).tolist() == [[1, 1, 1], [1, 2, 4]]
    assert T.nn.functional.hardtanh(T.tensor([-5, 0, 5]), -2.5, 2.5).tolist() == [-2, 0, 2]
    with T.no_grad():  # outside autograd the weights may require grad
        T.nn.functional.binary_cross_entropy_with_logits(
            T.zeros(3), T.ones(3), weight=T.ones(3, requires_grad=True)
        )


def test_dropout2d_of_a_3d_input_drops_per_sample_and_channel_as_pytorch():
    """PyTorch reads a 3-D dropout2d input as (N, C, L) (with a warning): one draw per (n, c) row, not per
    dim-0 slice; dropout3d takes every rank but 5 as unbatched"""
    T = minitorch
    T.manual_seed(0)
    with pytest.warns(UserWarning, match="interpreted as shape \\(N, C, L\\)"):
        y = T.nn.functional.dropout2d(T.ones(64, 8, 16), 0.5)
    rows = y.numpy()
    assert ((rows == 0).all(axis=2) | (rows == 2).all(axis=2)).all()  # whole (n, c) rows dropped or kept
    kept_per_sample = (rows[:, :, 0] != 0).sum(axis=1)
    # a sample's channels are drawn apart: some sample keeps only part of them (one draw per dim-0 slice kept 0 or 8)
    assert ((0 < kept_per_sample) & (kept_per_sample < 8)).any()
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        z = T.nn.functional.dropout3d(T.ones(16, 4, 4), 0.5).numpy()
    assert ((z == 0).all(axis=(1, 2)) | (z == 2).all(axis=(1, 2))).all()


def test_integer_and_float_binary_composites_dispatch_on_the_common_dtype():
    """gcd/lcm, nextafter and igamma/igammac refuse by the operands' common dtype, as PyTorch's TensorIterator
    kernels do (fuzz seed 3001): an int32 with a bool is int32, a float with an integer is the float"""
    T = minitorch
    i32, b = T.tensor([4, 6], dtype=T.int32), T.tensor([True, False])
    assert T.gcd(i32, b).tolist() == [1, 6] and T.gcd(i32, b).dtype == T.int32
    assert T.lcm(i32, b).tolist() == [4, 0]
    assert T.lcm(T.tensor([True]), T.tensor([4])).tolist() == [4]
    assert T.gcd(T.tensor([4, -6], dtype=T.int8), T.tensor(300)).dtype == T.int8  # a 0-d operand joins int8
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Bool'"):
        T.gcd(b, b)
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Float'"):
        T.gcd(T.tensor([4]), T.tensor(2.0))
    r = T.nextafter(T.tensor(4, dtype=T.int8), T.tensor(-0.99, dtype=T.float64))
    assert r.dtype == T.float64 and r.item() == np.nextafter(4.0, -0.99)
    r = T.nextafter(T.tensor([1.0]), T.tensor([0, 2], dtype=T.int64))
    assert r.dtype == T.float32 and r.tolist() == [
        np.nextafter(np.float32(1), np.float32(0)),
        np.nextafter(np.float32(1), np.float32(2)),
    ]
    with pytest.raises(NotImplementedError, match="\"nextafter_cpu\" not implemented for 'Short'"):
        T.nextafter(T.tensor([1], dtype=T.int8), T.tensor([2], dtype=T.int16))
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not float"):
        T.nextafter(T.tensor([1.0]), 2.0)
    p = T.special.gammainc(T.tensor([True]), T.tensor([1.0]))
    np.testing.assert_allclose(p.numpy(), [1 - np.exp(-1)], rtol=1e-6)
    q = T.igammac(T.tensor([1]), T.tensor(2.0, dtype=T.float64))
    assert q.dtype == T.float64  # a 0-d float64 of a higher category than the int64 tensor decides
    np.testing.assert_allclose(q.numpy(), [np.exp(-2)], rtol=1e-6)
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for 'Long'"):
        T.igamma(T.tensor([1]), T.tensor([2]))


def test_linear_hypot_and_margin_ranking_as_pytorch_fuzz_seed_3101():
    """F.linear takes a 1-D weight (a dot product over the last dim, ATen's matmul path); hypot dispatches on
    the common dtype and rounds half precision once from float32; torch.margin_ranking_loss broadcasts where
    F's refuses operands of different ranks"""
    T, F = minitorch, minitorch.nn.functional
    w = T.tensor([1.0, 2.0, 3.0])
    assert F.linear(T.ones(2, 3), w).tolist() == [6.0, 6.0]
    assert F.linear(T.ones(3), w, T.tensor(1.0)).item() == 7.0
    x = T.randn(4, 3, requires_grad=True)
    F.linear(x, w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.tile([1.0, 2.0, 3.0], (4, 1)))
    with pytest.raises(RuntimeError, match="addmm: mat2 must be a matrix, got 1-D tensor"):
        F.linear(T.ones(2, 3), w, T.tensor(1.0))
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        F.linear(T.ones(2, 3), T.ones(1, 2, 3))
    h = T.hypot(T.tensor([0.5, 0.07], dtype=T.float16), T.tensor([1, 2]))
    assert h.dtype == T.float16 and h.tolist() == [1.1181640625, 2.001953125]  # 2.001225 rounds up in float16
    assert T.hypot(T.tensor([True]), T.tensor([2.0])).dtype == T.float32
    with pytest.raises(NotImplementedError, match="\"hypot_cpu\" not implemented for 'Long'"):
        T.hypot(T.tensor([1, 2]), T.tensor([1, 2]))
    loss = T.margin_ranking_loss(T.tensor(1.0), T.tensor(0.3), T.tensor([-1.0, 1.0, 1.0]))
    np.testing.assert_allclose(loss.numpy(), [0.7, 0.0, 0.0], rtol=1e-6)
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        F.margin_ranking_loss(T.tensor(1.0), T.tensor(0.3), T.tensor([-1.0, 1.0, 1.0]))
    with pytest.raises(TypeError, match="argument 'input2' \\(position 2\\) must be Tensor, not float"):
        T.margin_ranking_loss(T.tensor([1.0]), 0.3, T.tensor([1.0]))


def test_clamp_number_bound_makes_a_0d_tensor_bound_a_number_fuzz_seed_3103():
    """PyTorch's Number overload of clamp: beside a number, a 0-dim tensor bound is a number too, so it does not
    promote the result (clip(int32, -1, tensor(0, int64)) stays int32); two 0-dim tensors promote as tensors"""
    T = minitorch
    x = T.tensor(-1, dtype=T.int32)
    assert T.clip(x, -1, T.tensor(0, dtype=T.int64)).dtype == T.int32
    assert T.clamp(x, T.tensor(-1), 0).dtype == T.int32
    assert T.clamp(x, T.tensor(-1), T.tensor(0, dtype=T.int64)).dtype == T.int64
    y = T.tensor([-1, 3], dtype=T.int32)
    assert y.clamp_(T.tensor(0, dtype=T.int64), 2).tolist() == [0, 2] and y.dtype == T.int32


def test_add_reads_a_number_in_the_result_dtype_before_alpha_fuzz_seed_3103():
    """a - alpha * 1e30 in float16: 1e30 is inf there and inf * 0 is NaN, as PyTorch's kernel reads it"""
    T = minitorch
    h = T.tensor([-0.33, -2.48], dtype=T.float16)
    assert T.sub(h, 1e30, alpha=0).isnan().all()
    assert T.add(T.tensor([1.0]), 1e300, alpha=0).isnan().all()
    assert T.add(T.tensor([1.0, 2.0], dtype=T.float16), 0.1, alpha=3).tolist() == [1.2998046875, 2.30078125]
    assert T.add(T.tensor([1.0], dtype=T.float64), 1e300, alpha=0).tolist() == [1.0]  # finite in float64


def test_deprecated_alpha_first_add_and_sub(recwarn):
    """add(input, alpha, other) and sub's, the old overload (`p.data.add_(-lr, grad)`), with PyTorch's one-time
    deprecation warning; `subtract` never had it, and a third positional argument of any other kind is refused"""
    T = minitorch
    x, g = T.tensor([1.0, 2.0]), T.tensor([1.0, 1.0])
    assert T.add(x, 2, g).tolist() == [3.0, 4.0]
    assert x.add(2, g).tolist() == [3.0, 4.0]
    assert T.sub(x, 2, g).tolist() == [-1.0, 0.0]
    p = x.clone()
    p.add_(-0.5, g)
    assert p.tolist() == [0.5, 1.5]
    p.sub_(T.tensor(2.0), g)  # a 0-dim alpha is a number
    assert p.tolist() == [-1.5, -0.5]
    assert T.add(x, -2, 0).tolist() == [1.0, 2.0]
    out = T.empty(2)
    assert T.add(x, 2, g, out=out) is out and out.tolist() == [3.0, 4.0]
    with pytest.raises(TypeError, match=r"add\(\) takes 2 positional arguments but 3 were given"):
        T.add(x, g, g)
    with pytest.raises(TypeError, match=r"sub\(\) takes 2 positional arguments but 3 were given"):
        T.sub(x, 2, g, alpha=3)
    with pytest.raises(TypeError, match=r"add_\(\) takes 1 positional argument but 2 were given"):
        x.clone().add_(g, 2)
    with pytest.raises(TypeError):
        T.subtract(x, 2, g)
    # the warning, once per process whatever the spelling, as PyTorch's (a fresh interpreter: this one may have
    # given it already)
    script = (
        "import warnings, minitorch as T\n"
        "x = T.ones(2)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    x.add(2, x); x.add(2, x); T.add(x, 2, x); T.addmm(2, T.ones(2, 2), x.diag(), x.diag())\n"
        "print([str(m.message) for m in w])\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    got = eval(res.stdout.strip().splitlines()[-1])
    assert got == [
        (
            "This overload of add is deprecated:\n\tadd(Number alpha, Tensor other)\nConsider using one of the "
            "following signatures instead:\n\tadd(Tensor other, *, Number alpha = 1)"
        ),
    ]


def test_zero_dim_transposes_masked_select_and_invert_as_pytorch_fuzz_seed_3101():
    """adjoint()/mT of a 0-D tensor are the identity (conj for adjoint) with PyTorch's deprecation warnings;
    masked_select of two 0-D operands is a 1-D selection; ~ of a float or complex tensor is a TypeError"""
    T = minitorch
    with pytest.warns(UserWarning, match="adjoint\\(\\) is deprecated on 0-D tensors"):
        assert T.adjoint(T.tensor(1.5 + 2j)).item() == 1.5 - 2j
    with pytest.warns(UserWarning, match="Tensor.mT is deprecated on 0-D tensors"):
        assert T.tensor(1.5).mT.item() == 1.5
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        assert T.tensor(1.5).T.item() == 1.5
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert T.ones(2, 3, 4).T.shape == (4, 3, 2)
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert T.ones(3).T.shape == (3,)  # a vector's too
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert T.ones(2, 3).T.shape == (3, 2)
    assert T.masked_select(T.tensor(-3.5), T.tensor(True)).tolist() == [-3.5]
    assert T.masked_select(T.tensor(-3.5), T.tensor(False)).shape == (0,)
    for dt in (T.float32, T.complex64):
        with pytest.raises(TypeError, match="only implemented on integer and Boolean-type tensors"):
            ~T.ones(2, dtype=dt)
    assert (~T.tensor([1, 2])).tolist() == [-2, -3]


def test_copy_number_logit_and_renorm_take_pytorchs_scalars_fuzz_seed_3101():
    """copy_ takes a number (a 0-dim tensor of its own kind, converted as a copy converts) and names its source
    `other`; a 0-dim tensor is a float for logit's eps and a Scalar for renorm's p and maxnorm"""
    T = minitorch
    assert T.ones(2, dtype=T.uint8).copy_(300).tolist() == [44, 44]
    assert T.ones(2, dtype=T.int32).copy_(2.7).tolist() == [2, 2]
    assert T.ones(2).copy_(1 + 2j).tolist() == [1.0, 1.0]
    assert T.ones(2).copy_(other=T.zeros(2)).tolist() == [0.0, 0.0]
    with pytest.raises(
        TypeError, match="copy_\\(\\): argument 'other' \\(position 1\\) must be Tensor, not list"
    ):
        T.ones(2).copy_([1, 2])
    np.testing.assert_allclose(
        T.logit(T.tensor([0.05]), T.tensor(0.1)).numpy(), [np.log(0.1 / 0.9)], rtol=1e-6
    )
    with pytest.raises(TypeError, match="must be float, not Tensor"):
        T.logit(T.tensor([0.3]), T.tensor([0.1]))
    r = T.renorm(T.ones(2, 2), T.tensor(2.0), 0, T.tensor(1.0))
    np.testing.assert_allclose(r.numpy(), np.full((2, 2), 2**-0.5), rtol=1e-6)


def test_bool_subtraction_binomial_scans_windows_and_poisson_kinds_fuzz_seed_3201():
    """PyTorch's sub refuses a bool operand on either side (tanhshrink of bools with it); binomial takes float
    and double of one dtype only; cumsum/cumprod have no bool result; the windows' periodic is a bool;
    F.poisson_nll_loss's operands are tensors"""
    T = minitorch
    bool_msg = "Subtraction, the `-` operator, with a bool tensor is not supported"
    for call in (
        lambda: T.tensor([True]) - T.tensor([1.5]),
        lambda: T.tensor([1.5]) - T.tensor([True]),
        lambda: 1 - T.tensor([True]),
        lambda: T.tensor([1.0]) - True,
        lambda: T.rsub(T.tensor([True]), 1),
        lambda: T.nn.functional.tanhshrink(T.tensor([True, False])),
    ):
        with pytest.raises(NotImplementedError, match=bool_msg):
            call()
    with pytest.raises(NotImplementedError, match="with two bool tensors"):
        T.tensor([True]) - T.tensor([True])
    assert (T.tensor([2.0]) - T.tensor([1])).tolist() == [1.0]
    with pytest.raises(NotImplementedError, match="\"binomial_cpu\" not implemented for 'Half'"):
        T.binomial(T.ones(2, dtype=T.float16), T.full((2,), 0.5, dtype=T.float16))
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for prob, got: Long"):
        T.binomial(T.ones(2), T.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        T.binomial(T.ones(2), T.full((2,), 0.5, dtype=T.float64))
    with pytest.raises(NotImplementedError, match="\"cumprod_out_cpu\" not implemented for 'Bool'"):
        T.cumprod(T.tensor([1.5, 2.0]), -1, dtype=T.bool)
    assert T.cumsum(T.tensor([True, True]), -1).tolist() == [1, 2]  # bool input sums in int64
    with pytest.raises(
        TypeError, match="hann_window\\(\\) received an invalid combination of arguments - got \\(int, int\\)"
    ):
        T.hann_window(4, 1)
    assert T.hann_window(4, False).tolist() == [0.0, 0.75, 0.75, 0.0]
    with pytest.raises(TypeError, match="argument 'target' \\(position 2\\) must be Tensor, not bool"):
        T.nn.functional.poisson_nll_loss(T.tensor([1.0]), False)


def test_matrix_exp_scales_each_matrix_of_a_batch_on_its_own_fuzz_seed_3301():
    """one shared scaling from the batch's largest norm squared every matrix as often as the largest needed (a
    1e30 entry in one matrix turned the others into zeros) and a NaN norm hid the rest: each matrix is scaled and
    squared by its own norm, as PyTorch's"""
    import scipy.linalg as sl

    T = minitorch
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 3, 3))
    a[1] *= 50
    a[2] *= 1e-3
    a[3] *= 7
    ref = np.stack([sl.expm(m) for m in a])
    np.testing.assert_allclose(T.linalg.matrix_exp(T.tensor(a)).numpy(), ref, rtol=1e-12)
    b = a.copy()
    b[0, 1, 1] = -1e30
    np.testing.assert_allclose(T.linalg.matrix_exp(T.tensor(b)).numpy()[1:], ref[1:], rtol=1e-12)
    c = a.copy()
    c[0, 0, 0] = np.nan
    r = T.linalg.matrix_exp(T.tensor(c)).numpy()
    assert np.isnan(r[0]).all()
    np.testing.assert_allclose(r[1:], ref[1:], rtol=1e-12)
    x = T.tensor(a[[0, 3]] * 0.3, requires_grad=True)
    assert T.autograd.gradcheck(T.linalg.matrix_exp, (x,))


def test_numbers_kinds_and_empty_padding_outputs_fuzz_seed_4405():
    """A 0-dim tensor that requires grad is no Number to PyTorch's parser; torch.rrelu takes a generator where
    F.rrelu takes inplace; pairwise_distance takes tensors only; norm_except_dim's pow is an int; the dtype and
    padded-size refusals PyTorch makes (fuzz seed 4405's accepted-bad calls)"""
    T, F = minitorch, minitorch.nn.functional
    x = T.tensor([-1.0, 0.5, 2.0], dtype=T.float64)
    rg = T.tensor(0.5, dtype=T.float64, requires_grad=True)
    for call in (lambda: F.threshold(x, rg, 1.0), lambda: T.hardshrink(x, rg), lambda: F.hardshrink(x, rg)):
        with pytest.raises(TypeError, match="must be Number, not Tensor"):
            call()
    assert F.threshold(x, T.tensor(0.3, dtype=T.float64), 9.0).tolist() == [9.0, 0.5, 2.0]
    with pytest.raises(TypeError, match="rrelu\\(\\) got an unexpected keyword argument 'inplace'"):
        T.rrelu(x, 0.1, 0.3, inplace=True)
    with pytest.raises(
        TypeError, match="argument 'generator' \\(position 5\\) must be torch.Generator, not bool"
    ):
        T.rrelu(x, 0.1, 0.3, False, False)
    draws = [T.rrelu(x, 0.1, 0.3, True, T.Generator().manual_seed(7)) for _ in range(2)]
    assert draws[0].tolist() == draws[1].tolist() and 0.1 <= -draws[0][0].item() <= 0.3
    assert T.rrelu(x, 0.1, 0.3).tolist() == [-0.2, 0.5, 2.0]
    y = x.clone()
    assert T.rrelu_(y, 0.1, 0.3) is y and y.tolist() == [-0.2, 0.5, 2.0]
    for call in (lambda: T.pairwise_distance(x, 0, 1), lambda: F.pairwise_distance(x, -1, True)):
        with pytest.raises(TypeError, match="argument 'x2' \\(position 2\\) must be Tensor, not int"):
            call()
    with pytest.raises(TypeError, match="argument 'pow' \\(position 2\\) must be int, not float"):
        T.norm_except_dim(x, -0.5, dim=0)
    np.testing.assert_allclose(T.norm_except_dim(x, 2, dim=-1).item(), np.linalg.norm([-1.0, 0.5, 2.0]))
    with pytest.raises(NotImplementedError, match="but got BFloat16"):
        T.linalg.vander(x.to(T.bfloat16))
    with pytest.raises(NotImplementedError, match="but got Half"):
        T.linalg.vander(x.to(T.float16))
    assert T.linalg.vander(T.tensor([2, 3], dtype=T.uint8)).tolist() == [[1, 2], [1, 3]]
    with pytest.raises(NotImplementedError, match="cov\\(\\): bool dtype is not supported for input"):
        T.cov(T.tensor([[True, False, True]]))
    for call in (
        lambda: T.mvlgamma(T.tensor([True]), 1),
        lambda: T.special.multigammaln(T.tensor([True]), 2),
    ):
        with pytest.raises(RuntimeError, match="The input tensor may not be a boolean tensor."):
            call()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.binary_cross_entropy_with_logits(T.tensor([0.5]), T.tensor([1]))
    with pytest.raises(RuntimeError, match="result type Double can't be cast to the desired output type Int"):
        T.binary_cross_entropy_with_logits(x, T.tensor([1, 0, 1], dtype=T.int32))
    pads = [
        (T.nn.ReflectionPad2d(-1), (1, 1, 2, 3), "Calculated output H: 0 W: 1 must be >= 1 in every dimension (input H: 2, W: 3)"),
        (T.nn.ReplicationPad2d((-1, 0, 0, 0)), (1, 1, 2, 1), "Calculated output H: 2 W: 0 must be >= 1 in every dimension (input H: 2, W: 1)"),
        (T.nn.ReflectionPad3d(-1), (1, 1, 2, 3, 3), "Calculated output D: 0 H: 1 W: 1 must be >= 1 in every dimension (input D: 2, H: 3, W: 3)"),
        (T.nn.ReplicationPad1d(-2), (1, 1, 3), "input (W: 3) is too small. Calculated output W: -1"),
    ]  # fmt: skip
    for module, shape, message in pads:
        with pytest.raises(RuntimeError, match=re.escape(message)):
            module(T.zeros(shape))
    assert T.nn.ReflectionPad2d(-1)(T.arange(9.0).reshape(1, 1, 3, 3)).tolist() == [[[[4.0]]]]
    assert T.nn.CircularPad2d(-1)(T.zeros(1, 1, 2, 3)).shape == (
        1,
        1,
        0,
        1,
    )  # PyTorch's circular pads allow it


def test_argument_kinds_and_check_order_fuzz_seed_4405():
    """The exception classes PyTorch raises for seed 4405's calls: tolerances given as tensors, a dtype for
    channel_shuffle's groups, tensorsolve's dims as a tensor, lu_solve's dtype before its shapes, renorm's dim
    before its dtype, a many-element tensor inside torch.tensor's data by the result's dtype"""
    T = minitorch
    x = T.ones(2, 2)
    for fn in (T.isclose, T.allclose):
        with pytest.raises(
            TypeError,
            match=f"{fn.__name__}\\(\\): argument 'rtol' \\(position 3\\) must be float, not Tensor",
        ):
            fn(x, x, T.ones(2, 2))
        with pytest.raises(TypeError, match="argument 'atol' \\(position 4\\) must be float, not Tensor"):
            fn(x, x, 1e-5, T.tensor(1.0, requires_grad=True))
    assert T.allclose(x, x + 0.05, T.tensor(0.1))  # a plain 0-dim tensor is the parser's float
    for groups, kind in ((T.bool, "torch.dtype"), (2.0, "float"), (True, "bool")):
        with pytest.raises(TypeError, match=f"argument 'groups' \\(position 2\\) must be int, not {kind}"):
            T.nn.functional.channel_shuffle(T.zeros(2, 4), groups)
    assert T.nn.functional.channel_shuffle(T.arange(4.0).reshape(1, 4, 1), 2).flatten().tolist() == [
        0,
        2,
        1,
        3,
    ]
    with pytest.raises(TypeError, match="argument 'dims' \\(position 3\\) must be tuple of ints, not Tensor"):
        T.linalg.tensorsolve(T.eye(4).reshape(4, 2, 2), T.ones(4), T.tensor([0, 1]))
    with pytest.raises(
        NotImplementedError, match="torch.linalg.lu_solve: Expected a floating point or complex tensor"
    ):
        T.linalg.lu_solve(T.tensor([1, 2]), T.tensor([1, 2], dtype=T.int32), T.tensor([1, 2]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        T.tensor([[1, 2]], dtype=T.int32).renorm(1, 3, 1)
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        T.tensor([T.tensor([5, 4]), T.tensor([0.1, 1.3])])
    with pytest.raises(ValueError, match="only one element tensors"):
        T.tensor([T.tensor([5, 4]), 2], dtype=T.float32)
    with pytest.raises(
        TypeError, match="only integer tensors of a single element can be converted to an index"
    ):
        T.tensor([T.tensor([5, 4]), 2])
    assert T.tensor([T.tensor(5), T.tensor(0.5)]).tolist() == [5.0, 0.5]


def test_parser_names_torch_types_as_pytorch():
    """PyTorch's parser prints the tp_name of the types it defines in C (torch.dtype, torch._C.Generator,
    torch.Size); a class written in Python by its bare name. The C++ bindings and the Python composites alike."""
    T = minitorch
    x = T.zeros(2, 2)
    for value, name in ((T.float16, "torch.dtype"), (T.device("cpu"), "torch.device"), (T.Generator(), "torch._C.Generator"), (T.Size([1]), "torch.Size"), (T.contiguous_format, "torch.memory_format"), (T.nn.Identity(), "Identity")):  # fmt: skip
        with pytest.raises(
            TypeError, match=re.escape(f"argument 'src' (position 2) must be Tensor, not {name}")
        ):
            T.diagonal_scatter(x, value)
    with pytest.raises(
        TypeError, match=re.escape("argument 'groups' (position 2) must be int, not torch.dtype")
    ):
        T.nn.functional.channel_shuffle(T.zeros(2, 4), T.float32)


def test_a_number_argument_takes_only_a_plain_0dim_tensor():
    """PyTorch's parser reads a tensor as a Number only when it has 0 dims and does not require grad (even under
    no_grad); a one-element tensor of more dims is refused (fuzz seed 4405's scalar_tensor([[x]]))"""
    T = minitorch
    x = T.ones(2)
    refused = [
        lambda: T.scalar_tensor(T.tensor([[0.5]])),
        lambda: T.full((2,), T.tensor([1.0])),
        lambda: T.arange(T.tensor([3])),
        lambda: T.add(x, x, alpha=T.tensor([2.0])),
        lambda: T.add(x, x, alpha=T.tensor(2.0, requires_grad=True)),
    ]
    for call in refused:
        with pytest.raises(TypeError, match="must be Number, not Tensor"):
            call()
    with T.no_grad(), pytest.raises(TypeError, match="must be Number, not Tensor"):
        T.scalar_tensor(T.tensor(1.0, requires_grad=True))
    assert T.scalar_tensor(T.tensor(1.5)).item() == 1.5
    assert T.full((2,), T.tensor(3.0)).tolist() == [3.0, 3.0]
    assert T.add(x, x, alpha=T.tensor(2.0)).tolist() == [3.0, 3.0]
    # where a Tensor overload exists a one-element tensor is that tensor, as PyTorch's
    assert x.clone().fill_(T.tensor(4.0)).tolist() == [4.0, 4.0]
    assert x.masked_fill(x > 0, T.tensor(7.0)).tolist() == [7.0, 7.0]


def test_std_var_take_pytorchs_three_signatures():
    """std/var/std_mean/var_mean: (dim, unbiased=True, keepdim=False), (dim=None, *, correction=None,
    keepdim=False), (unbiased=True); an unbiased of None or an int, a second unbiased after a bool, both unbiased
    and correction, are none of them (fuzz seed 4406's std(x, True, None) was accepted)"""
    T = minitorch
    a = np.arange(12.0).reshape(3, 4) ** 1.5
    x = T.tensor(a)
    for name, ref in (("std", np.std), ("var", np.var)):
        fn, method = getattr(T, name), getattr(x, name)
        np.testing.assert_allclose(fn(x).item(), ref(a, ddof=1))
        np.testing.assert_allclose(fn(x, False).item(), ref(a))
        np.testing.assert_allclose(method(unbiased=False).item(), ref(a))
        np.testing.assert_allclose(fn(x, 0).numpy(), ref(a, 0, ddof=1))
        np.testing.assert_allclose(fn(x, (0, 1), False, True).numpy(), ref(a, (0, 1), keepdims=True))
        np.testing.assert_allclose(fn(x, None, False).item(), ref(a))
        np.testing.assert_allclose(method(1, correction=2).numpy(), ref(a, 1, ddof=2))
        np.testing.assert_allclose(fn(x, correction=T.tensor(0)).item(), ref(a))
        np.testing.assert_allclose(fn(x, dim=[1], keepdim=True).numpy(), ref(a, 1, ddof=1, keepdims=True))
        for args, kwargs in (((True, None), {}), ((0, None), {}), ((None, None, True), {}), ((0, 1), {}),
                             ((True,), {"keepdim": True}), ((0,), {"unbiased": None}),
                             ((), {"unbiased": True, "correction": 1}), (("a",), {}), ((0, 1.5), {})):  # fmt: skip
            with pytest.raises(TypeError, match=rf"^{name}\(\) received an invalid combination of arguments"):
                fn(x, *args, **kwargs)
    with pytest.raises(
        TypeError, match=r"\* \(Tensor input, tuple of ints dim = None, \*, Number correction"
    ):
        T.std_mean(x, 0, None)
    s, m = T.var_mean(x, 1, False)
    np.testing.assert_allclose(s.numpy(), np.var(a, 1))
    np.testing.assert_allclose(m.numpy(), a.mean(1))


def test_binary_functions_take_numbers_where_pytorchs_parser_does():
    """Only add/sub/mul/div take a number for their first operand; pow/remainder/xlogy/bitwise_* take one
    first beside a tensor; maximum/minimum/atan2/logaddexp/logical_* take tensors only; pow's second parameter
    is `exponent` (torch.pow(x, exponent=2) was refused)"""
    T = minitorch
    x = T.tensor([1.0, 2.0])
    assert T.add(2.0, 3.0).item() == 5.0 and T.mul(2, x).tolist() == [2.0, 4.0]
    assert T.pow(2, x).tolist() == [2.0, 4.0] and T.remainder(5.0, x).tolist() == [0.0, 1.0]
    assert T.pow(x, exponent=2).tolist() == [1.0, 4.0] and x.pow(exponent=3).tolist() == [1.0, 8.0]
    with pytest.raises(
        TypeError, match=r"^pow\(\) received an invalid combination of arguments - got \(float, bool\)"
    ):
        T.pow(2.0, True)
    with pytest.raises(TypeError, match=r"\* \(Number self, Tensor other\)\n"):
        T.bitwise_or(1, 3)
    with pytest.raises(
        TypeError, match=r"^fmod\(\) received an invalid combination of arguments - got \(float, Tensor\)"
    ):
        T.fmod(2.0, x)
    with pytest.raises(TypeError, match=r"^eq\(\) received an invalid combination"):
        T.eq(1, x)
    with pytest.raises(
        TypeError, match=re.escape("maximum(): argument 'input' (position 1) must be Tensor, not float")
    ):
        T.maximum(2.0, x)
    with pytest.raises(
        TypeError, match=re.escape("atan2(): argument 'other' (position 2) must be Tensor, not float")
    ):
        T.atan2(x, 2.0)
    with pytest.raises(
        TypeError, match=re.escape("atan2_(): argument 'other' (position 1) must be Tensor, not int")
    ):
        x.clone().atan2_(2)
    with pytest.raises(
        TypeError, match=re.escape("logical_and(): argument 'other' (position 1) must be Tensor")
    ):
        x.logical_and(True)
    assert T.maximum(x, T.tensor(1.5)).tolist() == [1.5, 2.0] and T.lt(x, 2).tolist() == [True, False]


def test_argument_kinds_pytorch_refuses():
    """Calls PyTorch's parser refuses that ours took (fuzz seeds 4405-4408)"""
    T = minitorch
    x = T.arange(9.0).reshape(3, 3)
    with pytest.raises(
        TypeError,
        match=re.escape("as_strided(): argument 'size' (position 1) must be tuple of ints, not int"),
    ):
        x.as_strided(3, 1)
    with pytest.raises(
        TypeError,
        match=re.escape("as_strided(): argument 'size' (position 2) must be tuple of ints, not int"),
    ):
        T.as_strided(x, 3, (1,))
    with pytest.raises(
        TypeError,
        match=re.escape("as_strided(): argument 'stride' (position 3) must be tuple of ints, not int"),
    ):
        T.as_strided(x, (3,), 1)
    with pytest.raises(
        TypeError,
        match=re.escape("as_strided_copy(): argument 'size' (position 2) must be tuple of ints, not int"),
    ):
        T.as_strided_copy(x, 3, (1,))
    with pytest.raises(TypeError, match="storage_offset"):
        x.as_strided((3,), (1,), 2.5)
    assert x.as_strided((2,), (4,), 1).tolist() == [1.0, 5.0]
    assert x.clone().as_strided_([2], [3]).tolist() == [0.0, 3.0]
    with pytest.raises(TypeError, match="unexpected keyword argument 'dtype'"):
        x.clone().resize_as_(x, dtype=T.float64)
    assert x.clone().resize_as_(T.zeros(2), memory_format=T.contiguous_format).shape == (2,)
    for call in (
        lambda: T.squeeze(x, None),
        lambda: x.squeeze(None),
        lambda: x.squeeze(1.0),
        lambda: x.squeeze(True),
    ):
        with pytest.raises(TypeError, match=r"^squeeze\(\) received an invalid combination"):
            call()
    y = T.zeros(1, 3, 1)
    assert (
        y.squeeze().shape == (3,) and y.squeeze(0).shape == (3, 1) and T.squeeze(y, dim=[0, 2]).shape == (3,)
    )
    assert y.squeeze(T.tensor(2)).shape == (1, 3)
    with pytest.raises(
        NotImplementedError, match=re.escape("The `+` operator, on a bool tensor is not supported.")
    ):
        _ = +(x > 0)
    assert (+x) is x
    with pytest.raises(TypeError, match="argument 'hermitian' must be bool, not int"):
        T.linalg.matrix_rank(x, 0.1, 1)
    with pytest.raises(TypeError, match=r"^hsplit\(\) received an invalid combination of arguments"):
        T.hsplit(x.reshape(1, 9), T.tensor([3]))
    assert [t.shape for t in T.hsplit(x.reshape(1, 9), T.tensor(3))] == [(1, 3)] * 3


def test_value_checks_pytorch_makes():
    """Values PyTorch refuses with a message that ours took or failed on with Python's own error (fuzz 4408)"""
    T, F = minitorch, minitorch.nn.functional
    x = T.randn(4, 4)
    with pytest.raises(
        RuntimeError, match=re.escape("dropout probability has to be between 0 and 1, but got nan")
    ):
        F.dropout(x, float("nan"))
    with pytest.raises(RuntimeError, match="but got nan"):
        T.nn.Dropout(float("nan"))(x)
    with pytest.raises(ValueError, match="but got 1.5"):
        F.dropout(x, 1.5)
    for module in (T.nn.ReflectionPad1d([]), T.nn.ReplicationPad2d([])):
        with pytest.raises(NotImplementedError, match="Padding size 0 is not supported for 2D input tensor"):
            module(x)
    assert F.pad(x, []).tolist() == x.tolist()
    with pytest.raises(RuntimeError, match=re.escape("torch.histc: range of [0, inf] is not finite")):
        T.histc(x, 1, 0, float("inf"))
    with pytest.raises(RuntimeError, match=re.escape("torch.histc: range of [-1e+30, inf] is not finite")):
        T.histc(T.tensor([-1e30, float("inf"), 0.0]), 2)
    with pytest.raises(
        ValueError,
        match=re.escape("'shape' cannot have zero dimensions when 'indices' is non-empty, but got (2, 0)"),
    ):
        T.unravel_index(T.tensor([1]), (2, 0))
    assert [t.shape for t in T.unravel_index(T.tensor([], dtype=T.int64), (2, 0))] == [(0,), (0,)]
    for dtype, text in ((T.bfloat16, "the dtype of the input (Float) should be convertible without narrowing to the specified dtype (BFloat16)"),
                        (T.int64, "dtype should be floating point or complex, but got Long"),
                        (T.complex64, "dtype should be real for real inputs, but got ComplexFloat")):  # fmt: skip
        with pytest.raises(RuntimeError, match=re.escape("linalg.vector_norm: " + text)):
            T.norm(x, 1, dtype=dtype)
    np.testing.assert_allclose(
        T.norm(x, 1, dtype=T.float64).item(), np.abs(x.numpy().astype(np.float64)).sum()
    )


def test_fuzz_4409_refusals():
    """squeeze of a repeated dim, median/nanmedian with dim=None, quantile's keepdim=None and unravel_index of a
    tensor shape are PyTorch errors (fuzz seed 4409 found them accepted)"""
    T = minitorch
    x = T.zeros(1, 3, 1)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        x.squeeze([0, 0])
    with pytest.raises(RuntimeError, match="dim 2 appears multiple times in the list of dims"):
        x.squeeze((2, -1))
    assert x.squeeze([0, 2]).shape == (3,)
    with pytest.raises(
        TypeError, match=re.escape("median(): argument 'dim' (position 2) must be int, not NoneType")
    ):
        T.median(x, None)
    with pytest.raises(
        TypeError, match=re.escape("median(): argument 'dim' (position 1) must be int, not NoneType")
    ):
        x.median(None)
    v, i = T.tensor([3.0, 1.0, 2.0]).median(0)
    assert (v.item(), i.item()) == (2.0, 2) and T.median(T.tensor([3.0, 1.0, 2.0])).item() == 2.0
    with pytest.raises(TypeError, match=r"^quantile\(\) received an invalid combination of arguments"):
        x.quantile(0.5, None, None)
    assert x.quantile(0.5, None, False).item() == 0.0
    with pytest.raises(
        TypeError,
        match=re.escape("expected 'shape' to be int or sequence of ints, but got <class 'torch.Tensor'>"),
    ):
        T.unravel_index(T.tensor([1]), T.tensor([3]))


def test_fuzz_4410_refusals():
    """Calls fuzz seed 4410 found accepted or answered with the wrong error: nanmedian's two signatures, uniform_
    bounds outside the dtype, index_copy across dtypes, unique along a dim of an empty tensor, argmax of nothing,
    tensorinv's ind, multi_margin_loss of integers"""
    T = minitorch
    x = T.tensor([[1.0, math.nan, 3.0], [4.0, 5.0, 6.0]])
    assert T.nanmedian(x).item() == 4.0 and x.nanmedian().item() == 4.0
    v, i = T.nanmedian(x, 1)
    assert v.tolist() == [1.0, 5.0] and i.tolist() == [0, 1]
    v, i = x.nanmedian(1, True)
    assert v.shape == (2, 1) and i.tolist() == [[0], [1]]
    ov, oi = T.empty(0), T.empty(0, dtype=T.int64)
    T.nanmedian(x, 0, out=(ov, oi))
    assert ov.tolist() == [1.0, 5.0, 3.0] and oi.tolist() == [0, 1, 0]
    for call, pos in ((lambda: T.nanmedian(x, None), 2), (lambda: x.nanmedian(None), 1)):
        with pytest.raises(
            TypeError,
            match=re.escape(f"nanmedian(): argument 'dim' (position {pos}) must be int, not NoneType"),
        ):
            call()
    with pytest.raises(TypeError, match=re.escape("argument 'dim' (position 2) must be int, not float")):
        T.nanmedian(x, 1.0)
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "dim"'):
        T.nanmedian(x, keepdim=True)

    for dt, name in ((T.float64, "double"), (T.float32, "float"), (T.float16, "c10::Half")):
        with pytest.raises(RuntimeError, match=re.escape(f"to is out of bounds for {name}")):
            T.empty(3, dtype=dt).uniform_(0, math.inf)
        with pytest.raises(RuntimeError, match=re.escape(f"from is out of bounds for {name}")):
            T.empty(3, dtype=dt).uniform_(-math.inf, 0)
        with pytest.raises(RuntimeError, match=re.escape(f"to is out of bounds for {name}")):
            T.empty(3, dtype=dt).uniform_(0, math.nan)
    with pytest.raises(RuntimeError, match=re.escape("to is out of bounds for c10::Half")):
        T.empty(3, dtype=T.float16).uniform_(0, 1e5)
    with pytest.raises(
        RuntimeError, match=re.escape("uniform_ expects to-from <= std::numeric_limits<Float>::max()")
    ):
        T.empty(3).uniform_(-3e38, 3e38)
    with pytest.raises(RuntimeError, match=re.escape("uniform_ expects to return a [from, to) range")):
        T.empty(3).uniform_(2, 1)
    big = T.empty(1000, dtype=T.bfloat16).uniform_(0, 1e38)  # inside bfloat16's range
    assert 0 <= big.float().min().item() and big.float().max().item() <= 1.01e38
    with pytest.raises(RuntimeError, match=re.escape("to is out of bounds for float")):
        T.empty(2, dtype=T.complex64).uniform_(0, math.inf)

    for f in (T.argmax, T.argmin):
        with pytest.raises(
            IndexError, match=r"Expected reduction dim to be specified for input.numel\(\) == 0"
        ):
            f(T.empty(3, 0))

    z = T.zeros(3)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "index_copy_(): self and source expected to have the same dtype, but got (self) Float and "
        ),
    ):
        z.index_copy(0, T.tensor([0]), T.ones(1, dtype=T.float64))
    with pytest.raises(RuntimeError, match=re.escape("but got (self) Float and (source) Long")):
        z.index_copy_(0, T.tensor([0, 1]), T.ones(1, dtype=T.int64))  # the dtypes before the shapes
    assert z.index_copy(0, T.tensor([2]), T.ones(1)).tolist() == [0.0, 0.0, 1.0]

    e = T.empty((0, 3), dtype=T.int64)
    vals, inv, cnt = T.unique(e, dim=0, return_inverse=True, return_counts=True)
    assert vals.shape == (0, 3) and inv.shape == (0,) and cnt.shape == (0,) and inv.dtype == T.int64
    assert T.unique_consecutive(T.empty((3, 0)), dim=1).shape == (3, 0)
    with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't selected"):
        T.unique(e, dim=1)
    with pytest.raises(RuntimeError, match="Number of zero sized dimensions is more than one"):
        T.unique(T.empty(0, 0), dim=0)

    A = T.eye(4, dtype=T.float64).reshape(2, 2, 2, 2)
    assert T.linalg.tensorinv(A, 2).shape == (2, 2, 2, 2)
    for ind in (True, 2.0):
        with pytest.raises(
            TypeError, match=r"linalg_tensorinv\(\): argument 'ind' \(position 2\) must be int"
        ):
            T.linalg.tensorinv(A, ind)

    for dt, name in ((T.int64, "Long"), (T.float16, "Half"), (T.bool, "Bool")):
        with pytest.raises(
            NotImplementedError, match=f"\"multi_margin_loss_cpu_kernel\" not implemented for '{name}'"
        ):
            T.nn.functional.multi_margin_loss(T.tensor([[1, 0]], dtype=dt), T.tensor([0]))


def test_hard_activations_name_their_input_as_pytorch():
    """F.hardswish/hardsigmoid test `inplace` before the input's kind, as PyTorch's Python F does (fuzz 4410)"""
    F = minitorch.nn.functional
    with pytest.raises(
        TypeError, match=re.escape("hardswish_(): argument 'input' (position 1) must be Tensor, not float")
    ):
        F.hardswish(math.nan, -3)
    with pytest.raises(
        TypeError, match=re.escape("hardsigmoid(): argument 'input' (position 1) must be Tensor, not int")
    ):
        F.hardsigmoid(2)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        F.hardsigmoid(-0.5, minitorch.ones(2, 2))
    with pytest.raises(NotImplementedError, match="\"hardsigmoid_cpu\" not implemented for 'Long'"):
        F.hardsigmoid(minitorch.ones(2, dtype=minitorch.int64), True)
    x = minitorch.tensor([-4.0, 0.0, 1.0, 4.0])
    np.testing.assert_allclose(F.hardswish(x).numpy(), [0.0, 0.0, 4 / 6, 4.0], rtol=1e-6)
    y = x.clone()
    assert F.hardsigmoid(y, True) is y
    np.testing.assert_allclose(y.numpy(), [0.0, 0.5, 4 / 6, 1.0], rtol=1e-6)


def test_batched_addmm_checks_in_pytorchs_order():
    """baddbmm/addbmm: argument kinds, then the sizes read from batch1/batch2 (IndexError), then input's
    expansion, then the 3-D checks (fuzz 4410 found the 3-D check first)"""
    T = minitorch
    a3, b3 = T.ones(2, 3, 4), T.ones(2, 4, 5)
    with pytest.raises(
        TypeError, match=re.escape("baddbmm(): argument 'batch2' (position 3) must be Tensor, not int")
    ):
        T.baddbmm(T.ones(2), a3, 3)
    with pytest.raises(
        TypeError, match=re.escape("addbmm_(): argument 'batch2' (position 2) must be Tensor, not int")
    ):
        T.ones(1).addbmm_(T.ones(1), 4)
    with pytest.raises(
        IndexError, match=re.escape("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    ):
        T.baddbmm(T.ones(2), T.ones(4), b3)
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-2, 1], but got 2")):
        T.baddbmm(T.ones(3, 5), a3, T.ones(4, 5))
    with pytest.raises(
        RuntimeError, match=re.escape("The expanded size of the tensor (5) must match the existing size (4)")
    ):
        T.baddbmm(T.ones(4, 4), a3, b3)
    with pytest.raises(
        RuntimeError, match=re.escape("The expanded size of the tensor (4) must match the existing size (3)")
    ):
        T.addbmm(T.ones(3, 5), T.ones(3, 4), b3)
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        T.addbmm(T.ones(4, 5), T.ones(3, 4), b3)
    np.testing.assert_allclose(T.baddbmm(T.ones(3, 5), a3, b3).numpy(), np.full((2, 3, 5), 5.0))
    np.testing.assert_allclose(T.addbmm(T.ones(3, 5), a3, b3, beta=2).numpy(), np.full((3, 5), 10.0))


def test_fuzz_4411_refusals():
    """cross of two dtypes (PyTorch's kernel takes one) and its warning without dim, glu of uint8, pooling over an
    unbatched input with an empty dim (fuzz seed 4411)"""
    T = minitorch
    a, b = T.tensor([1.0, 2.0, 3.0], dtype=T.float64), T.tensor([2, 2, 1])
    for x, y, names in (
        (a, b, ("Double", "Long")),
        (b, a, ("Long", "Double")),
        (a, a.float(), ("Double", "Float")),
    ):
        with pytest.raises(RuntimeError, match=f"expected scalar type {names[0]} but found {names[1]}"):
            T.cross(x, y, dim=0)
    assert T.cross(b, b, dim=0).tolist() == [0, 0, 0]
    minitorch.set_warn_always(True)
    try:
        with pytest.warns(
            UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"
        ):
            got = T.cross(a, a * 2)
    finally:
        minitorch.set_warn_always(False)
    assert got.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(NotImplementedError, match="\"glu_cpu\" not implemented for 'Byte'"):
        T.nn.functional.glu(T.ones(4, 2, dtype=T.uint8), 0)
    F = T.nn.functional
    for f, shape, shown in (
        (F.max_pool2d, (0, 4, 4), "[0, 4, 4]"),
        (F.max_pool2d, (2, 0, 4, 4), "[2, 0, 4, 4]"),
        (F.avg_pool2d, (1, 4, 0), "[1, 4, 0]"),
        (F.avg_pool1d, (2, 0), "[2, 1, 0]"),
    ):
        with pytest.raises(
            RuntimeError,
            match=re.escape(
                f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{shown}"
            ),
        ):
            f(T.empty(shape), 1)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[0, 5]"
        ),
    ):
        F.max_pool1d(T.empty(0, 5), 2)
    assert F.max_pool2d(T.empty(0, 1, 4, 4), 1).shape == (0, 1, 4, 4)  # an empty batch is fine


def test_pinverse_rcond_and_batch_norm_stats_kinds():
    """pinverse's rcond is a float (a 0-dim tensor counts as one); batch_norm's running stats are tensors even
    for an empty input (fuzz seed 4411)"""
    T = minitorch
    x = T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=T.float64)
    with pytest.raises(
        TypeError, match=re.escape("pinverse(): argument 'rcond' (position 1) must be float, not Tensor")
    ):
        x.pinverse(T.ones(1))
    with pytest.raises(
        TypeError, match=re.escape("pinverse(): argument 'rcond' (position 2) must be float, not Tensor")
    ):
        T.pinverse(x, T.ones(1))
    want = np.linalg.pinv(x.numpy())
    for rcond in (T.tensor(1e-12), 1e-12, 0):
        np.testing.assert_allclose(T.pinverse(x, rcond).numpy(), want, rtol=1e-10, atol=1e-12)
    F = T.nn.functional
    with pytest.raises(
        TypeError,
        match=re.escape("batch_norm(): argument 'running_var' (position 5) must be Tensor, not float"),
    ):
        F.batch_norm(T.empty(0, 3), T.zeros(3), math.nan)
    with pytest.raises(
        TypeError,
        match=re.escape("batch_norm(): argument 'running_mean' (position 4) must be Tensor, not float"),
    ):
        F.batch_norm(T.empty(0, 3), 1.0, T.ones(3))
    assert F.batch_norm(T.empty(0, 3), T.zeros(3), T.ones(3)).shape == (0, 3)


def test_fuzz_4411_answers():
    """calls PyTorch answers that raised here (fuzz seed 4411): inner/tensordot over an empty contracted dim, a
    0-d tensor's sum/mean over dim 0 backward, to_sparse_coo of an empty matrix, the random fills of no
    elements of an integer dtype"""
    T = minitorch
    assert T.inner(T.empty(0, dtype=T.float64), T.empty(0, dtype=T.float64)).item() == 0.0
    got = T.inner(T.empty(3, 0), T.empty(2, 0))
    assert got.shape == (3, 2) and got.abs().sum().item() == 0.0
    assert T.tensordot(T.empty(2, 0, dtype=T.int8), T.empty(0, 4, dtype=T.int8), 1).shape == (2, 4)
    for f in (T.sum, T.mean, T.nansum):
        x = T.tensor(-0.49, dtype=T.float64, requires_grad=True)
        f(x, 0).backward()
        assert x.grad.shape == () and x.grad.item() == 1.0
    x = T.tensor(2.0, dtype=T.float64, requires_grad=True)
    v, m = T.var_mean(x, dim=0, correction=0)
    (v + m).backward()
    assert x.grad.item() == 1.0
    s = T.empty((4, 0), dtype=T.float16).to_sparse_coo()
    assert s.shape == (4, 0) and s._nnz() == 0
    for fill in (lambda t: t.log_normal_(), lambda t: t.exponential_()):
        e = T.empty((0, 5, 1), dtype=T.int64)
        assert fill(e) is e
    with pytest.raises(RuntimeError, match="dtype must be a floating point"):
        T.empty(2, dtype=T.int64).exponential_()
    assert T.is_vulkan_available(1, 2) is False


def test_inplace_composites_keep_their_backward():
    """polygamma_, cumprod_ and float_power_ write a result computed from self back into self: the backward
    must see the old values (fuzz seed 4411: "modified by an inplace operation" before); against PyTorch's
    gradients written out"""
    from scipy import special as sps

    T = minitorch
    base = np.array([0.3, 0.5, 0.7])
    for name, args, want in (
        ("polygamma_", (1,), sps.polygamma(2, base)),
        (
            "cumprod_",
            (0,),
            np.array([1 + base[1] + base[1] * base[2], base[0] + base[0] * base[2], base[0] * base[1]]),
        ),
        ("float_power_", (2,), 2 * base),
    ):
        x = T.tensor(base, requires_grad=True)
        y = x * 1
        getattr(y, name)(*args)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10, err_msg=name)


def test_var_std_warn_without_degrees_of_freedom():
    """PyTorch's warning when the correction leaves no degree of freedom, with the op's own name"""
    T = minitorch
    for call, name in (
        (lambda: T.var(T.ones(3, 1), 1), "var"),
        (lambda: T.std(T.ones(3), correction=3), "std"),
        (lambda: T.var_mean(T.ones(2, 2), 0, correction=2), "var_mean"),
        (
            lambda: T.std_mean(T.ones(2), correction=5),
            "std_mean",
        ),
        (lambda: T.var(T.empty(0)), "var"),
    ):
        with pytest.warns(
            UserWarning,
            match=re.escape(
                f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor"
            ),
        ):
            call()
    import warnings as w

    with w.catch_warnings():
        w.simplefilter("error")
        assert T.var(T.ones(3), correction=2).item() == 0.0  # one degree left: no warning
        T.var(T.empty(0, 3), 1)


def test_max_pool_integer_inputs_on_the_cpu():
    """PyTorch's CPU max_pool2d (and the max-pools with indices over it) takes every dtype but bool; the 1-d form
    without indices and adaptive max pooling stay floating-only, as its kernels"""
    T = minitorch
    F = T.nn.functional
    a = np.arange(-8, 8).reshape(1, 1, 4, 4)[:, :, ::-1].copy()
    for dt, npdt in ((T.int64, np.int64), (T.int32, np.int32), (T.int8, np.int8), (T.uint8, np.uint8)):
        src = a - a.min() if dt == T.uint8 else a
        x = T.tensor(src.astype(npdt), dtype=dt)
        v, i = F.max_pool2d(x, 2, return_indices=True)
        want = src.reshape(1, 1, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 1, 2, 2, 4).max(-1)
        assert v.dtype == dt and v.tolist() == want.tolist()
        assert T.equal(x.reshape(-1)[i.reshape(-1)].reshape(v.shape), v)
    m = T.tensor([[[-5, -3, -9, -1]]])  # all negative: the start of a max is the dtype's lowest, not 0
    assert F.max_pool1d(m, 2, return_indices=True)[0].tolist() == [[[-3, -1]]]
    with pytest.raises(NotImplementedError, match="\"max_pool1d_impl\" not implemented for 'Long'"):
        F.max_pool1d(m, 2)
    with pytest.raises(NotImplementedError, match="\"adaptive_max_pool2d\" not implemented for 'Long'"):
        F.adaptive_max_pool2d(T.tensor(a), 2)
    with pytest.raises(NotImplementedError, match="\"max_pool2d\" not implemented for 'Bool'"):
        F.max_pool2d(T.tensor(a) > 0, 2)


def test_fuzz_4414_argument_kinds():
    """Calls fuzz seed 4414 found accepted (or refused with another error) where PyTorch's parser refuses an
    argument's kind: int/tensor train flags of the composed dropouts, poisson_nll_loss's bools, a list for
    resolve_conj, triplet_margin_loss's tensors, the torch-level activations' extra arguments, the cells' hx,
    affine_grid_generator's size, isclose's rtol before the dtype check, new_tensor's keyword-only options,
    TensorList elements (no function named in PyTorch's message), gelu's approximate, linalg.solve's B"""
    T = minitorch
    F = T.nn.functional
    m = T.ones(2, 3, 4, 4)
    x = T.tensor([1.0, -2.0, 3.0])
    for call, name, kind in (
        (lambda: F.feature_alpha_dropout(m, 0.5, -1), "feature_alpha_dropout", "int"),
        (lambda: F.feature_alpha_dropout(m, 0.5, 1, True), "feature_alpha_dropout_", "int"),
        (lambda: F.alpha_dropout(m, 0.5, 1), "alpha_dropout", "int"),
        (lambda: F.dropout2d(m, 0.5, 1), "feature_dropout", "int"),
        (lambda: F.dropout3d(m, 0.5, T.tensor(True)), "feature_dropout", "Tensor"),
        (lambda: T.feature_dropout_(m, -2, T.tensor(True)), "feature_dropout_", "Tensor"),
        (lambda: T.feature_dropout(m, 0.5, 1), "feature_dropout", "int"),
    ):
        with pytest.raises(
            TypeError, match=re.escape(f"{name}(): argument 'train' (position 3) must be bool, not {kind}")
        ):
            call()
    with pytest.raises(TypeError, match="must be bool, not numpy.bool"):  # PyTorch's parser refuses it too
        F.dropout2d(m, 0.5, np.bool_(False))
    assert F.dropout2d(m, 0.5, False) is m
    with pytest.raises(
        TypeError,
        match=re.escape("poisson_nll_loss(): argument 'log_input' (position 3) must be bool, not int"),
    ):
        F.poisson_nll_loss(x, x, 1)
    with pytest.raises(
        TypeError, match=re.escape("poisson_nll_loss(): argument 'full' (position 4) must be bool, not int")
    ):
        F.poisson_nll_loss(x, x, True, 1)
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):  # checked first, as F's
        F.poisson_nll_loss(x, 3, 1, reduction="bad")
    for fn in (T.resolve_conj, T.resolve_neg, T.is_conj, T.is_neg):
        with pytest.raises(
            TypeError,
            match=re.escape(f"{fn.__name__}(): argument 'input' (position 1) must be Tensor, not list"),
        ):
            fn([])
    with pytest.raises(
        TypeError,
        match=re.escape("triplet_margin_loss(): argument 'negative' (position 3) must be Tensor, not float"),
    ):
        F.triplet_margin_loss(x, x, 1.0)
    for call, msg in (
        (lambda: T.selu(x, [0]), "selu() takes 1 positional argument but 2 were given"),
        (lambda: T.selu_(x.clone(), 1), "selu_() takes 1 positional argument but 2 were given"),
        (lambda: T.celu(x, 1.0, True), "celu() takes from 1 to 2 positional arguments but 3 were given"),
        (lambda: T.threshold(x, 1, 2, True), "threshold() takes 3 positional arguments but 4 were given"),
        (
            lambda: T.gru_cell(T.ones(3, 2), 0, T.ones(6, 2), T.ones(6, 2)),
            "gru_cell(): argument 'hx' (position 2) must be Tensor, not int",
        ),
        (
            lambda: T.lstm_cell(T.ones(3, 2), 0, T.ones(8, 2), T.ones(8, 2)),
            "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not int",
        ),
        (
            lambda: T.affine_grid_generator(T.empty(4, 0), T.empty(4, 0), False),
            "affine_grid_generator(): argument 'size' (position 2) must be tuple of ints, not Tensor",
        ),
        (
            lambda: T.isclose(T.tensor([1]), x, T.tensor([1.0])),
            "isclose(): argument 'rtol' (position 3) must be float, not Tensor",
        ),
        (lambda: x.new_tensor([1], T.int64), "new_tensor() takes 1 positional argument but 2 were given"),
        (lambda: T.linalg.multi_dot([2]), "expected Tensor as element 0 in argument 0, but got int"),
        (lambda: T.chain_matmul(T.empty(0), 3), "expected Tensor as element 1 in argument 0, but got int"),
        (lambda: T.block_diag(T.ones(2, 2, 2), 3), "expected Tensor as element 1 in argument 0, but got int"),
        (lambda: F.gelu(x, approximate=False), "gelu(): argument 'approximate' must be str, not bool"),
        (
            lambda: T.linalg.solve(T.tensor([2, 4], dtype=T.int32), -1),
            "linalg_solve(): argument 'B' (position 2) must be Tensor, not int",
        ),
    ):
        with pytest.raises(TypeError, match="^" + re.escape(msg)):
            call()
    with pytest.raises(RuntimeError, match=re.escape("approximate argument must be either none or tanh.")):
        F.gelu(x, approximate="foo")
    # the valid neighbours still run, with PyTorch's values
    assert T.celu(x, 2.0).tolist() == pytest.approx(F.celu(x, 2.0).tolist())
    assert T.threshold(x, 0.5, 20.0).tolist() == [1.0, 20.0, 3.0]
    assert T.selu(x).tolist() == pytest.approx(F.selu(x).tolist())
    y = x.clone()
    assert T.selu_(y) is y and y.tolist() == pytest.approx(F.selu(x).tolist())
    assert x.new_tensor([1, 2], dtype=T.int64).dtype == T.int64
    h = T.rnn_tanh_cell(T.ones(3, 2), T.zeros(3, 2), T.ones(2, 2), T.ones(2, 2))
    np.testing.assert_allclose(h.numpy(), np.tanh(np.full((3, 2), 2.0)), rtol=1e-6)


def test_fuzz_4414_module_and_size_checks():
    """PyTorch 2.15's RNN modules check bias/batch_first/input_size kinds; the adaptive 2-d pools refuse a size
    of one element; F.interpolate hands a float size to a kernel whose parser refuses it; tensordot reads a dims
    tensor as PyTorch's Python does"""
    T = minitorch
    F = T.nn.functional
    for cls, args, msg in (
        (T.nn.LSTM, (3, 3, 1, 3), "bias should be of type bool, got: int"),
        (T.nn.GRU, (3, 3, 1, True, 1), "batch_first should be of type bool, got: int"),
        (T.nn.RNN, (3.0, 3), "input_size should be of type int, got: float"),
    ):
        with pytest.raises(TypeError, match=re.escape(msg)):
            cls(*args)
    with pytest.raises(ValueError, match="input_size must be greater than zero"):
        T.nn.LSTM(0, 3)
    m = T.arange(2 * 3 * 16, dtype=T.float32).reshape(2, 3, 4, 4)
    with pytest.raises(
        RuntimeError, match=re.escape("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    ):
        T.nn.AdaptiveMaxPool2d([2])(m)
    with pytest.raises(RuntimeError, match=re.escape("adaptive_avg_pool2d: output_size must be 2")):
        T.nn.AdaptiveAvgPool2d((2,))(m)
    assert T.nn.AdaptiveAvgPool2d(2)(m).shape == (2, 3, 2, 2)
    for inp, mode, kernel, kinds in (
        (m[0], "nearest", "upsample_nearest1d", "float"),
        (m, "nearest", "upsample_nearest2d", "float, float"),
        (m, "bilinear", "upsample_bilinear2d", "float, float"),
        (m, "nearest-exact", "_upsample_nearest_exact2d", "float, float"),
        (m[None], "trilinear", "upsample_trilinear3d", "float, float, float"),
    ):
        with pytest.raises(
            TypeError, match="^" + re.escape(f"{kernel}() received an invalid combination of arguments")
        ) as e:
            F.interpolate(inp, 2.5, None, mode)
        assert f"!list of [{kinds}]!" in str(e.value)
    with pytest.raises(TypeError, match=re.escape("upsample_nearest2d() received an invalid combination")):
        T.nn.UpsamplingNearest2d(2.5)(m)
    with pytest.raises(
        TypeError,
        match=re.escape(
            "adaptive_avg_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type float at pos 0"
        ),
    ):
        F.interpolate(m, 2.5, None, "area")
    assert F.interpolate(m, T.tensor(2), None, "nearest").shape == (2, 3, 2, 2)  # an integer tensor is an int
    a, b = T.arange(10.0).reshape(5, 2), T.arange(10.0).reshape(2, 5)
    with pytest.raises(AssertionError, match="dims tensor must have size 2 in first dimension, got 3"):
        T.tensordot(a, b, T.ones(3, 2))
    want = np.tensordot(a.numpy(), b.numpy(), 1)
    assert T.tensordot(a, b, T.tensor([1])).tolist() == want.tolist()
    assert T.tensordot(a, b, T.tensor([[1], [0]])).tolist() == want.tolist()
    with pytest.raises(RuntimeError, match=re.escape("tensordot expects dims >= 0, but got dims=")):
        T.tensordot(a, b, T.tensor([-1]))
    with pytest.raises(RuntimeError, match="tensordot expects dims < ndim_a or ndim_b, but got dims=3"):
        T.tensordot(a, b, 3)
    with pytest.raises(
        TypeError,
        match=re.escape(
            "tensordot(): argument 'dims_self' (position 3) must be tuple of ints, but found element of type float at pos 0"
        ),
    ):
        T.tensordot(a, b, T.tensor([[1.0], [0.0]]))
    with pytest.raises(
        TypeError, match=re.escape("tensordot(): argument 'dims_self' failed to unpack the object at pos 2")
    ):
        T.tensordot(a.reshape(1, 5, 2), b.reshape(2, 5, 1), ([2, 1.0], [0, 1]))
    with pytest.raises(
        TypeError,
        match=re.escape("tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int"),
    ):
        T.tensordot(a, b, (1, 0))


def test_fuzz_4414_values_pytorch_computes():
    """Calls PyTorch answers that we refused: torch-level losses' reduction enum (anything but 1 and 2 leaves the
    loss unreduced), bool operands of the pointwise losses (read as 0/1 in the promoted dtype), take_along_dim's
    indices along a dim read modulo its size (PyTorch 2.15), feature alpha dropout with p=1 at any rank,
    frobenius_norm/nuclear_norm's int dim, a tensor dim of var/std"""
    T = minitorch
    F = T.nn.functional
    x = T.tensor([1.0, -2.0, 3.0])
    y = T.tensor([0.5, 0.5, 2.0])
    for red in (-1, 0, 5, 7):
        assert T.kl_div(x, y, red).tolist() == pytest.approx(F.kl_div(x, y, reduction="none").tolist())
        assert T.hinge_embedding_loss(x, y, 2.5, red).shape == (3,)
    assert T.kl_div(x, y, 2).item() == pytest.approx(F.kl_div(x, y, reduction="sum").item())
    b = T.tensor([False, False, True])
    xd = np.array([1.0, -2.0, 3.0])
    bd = np.array([0.0, 0.0, 1.0])
    assert F.mse_loss(x, b).item() == pytest.approx(np.mean((xd - bd) ** 2))
    assert F.mse_loss(b, x, reduction="none").tolist() == pytest.approx(((bd - xd) ** 2).tolist())
    d = np.abs(xd - bd)
    huber = np.where(d < 1, 0.5 * d * d, d - 0.5)
    assert F.smooth_l1_loss(x, b).item() == pytest.approx(huber.mean())
    assert F.huber_loss(x, b).item() == pytest.approx(huber.mean())
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Bool"):
        F.huber_loss(b, x)  # written in input's dtype
    with pytest.raises(
        NotImplementedError, match="Negation, the `-` operator, on a bool tensor is not supported"
    ):
        F.soft_margin_loss(T.tensor([[True, False]]), T.tensor([0]))
    x5 = T.tensor([5, 4, -1, 1, -5])
    got = T.take_along_dim(x5, T.tensor([-3, 0, -4, 3, -6, 9]), 0)
    assert got.tolist() == np.take(x5.numpy(), np.array([-3, 0, -4, 3, -6, 9]) % 5).tolist()
    with pytest.raises(RuntimeError, match="index -3 is out of bounds for dimension 0 with size 5"):
        T.take_along_dim(x5, T.tensor([-3]))  # flattened: no wrap
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        T.take_along_dim(T.ones(3, 4).t(), T.tensor([1]))  # flattened by view, as PyTorch (fuzz seed 4415)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
        ),
    ):
        T.take_along_dim(T.arange(6).reshape(2, 3), T.tensor([[-1, 0]]), 0)
    assert F.feature_alpha_dropout(T.tensor(-1.5), 1.0, True).tolist() == 0.0
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        F.feature_alpha_dropout(T.tensor([-1.5, 2.0]), 0.5, True)
    sq = T.arange(9.0).reshape(3, 3)
    with pytest.warns(UserWarning):
        assert T.frobenius_norm(sq, -1).tolist() == pytest.approx(
            np.linalg.norm(sq.numpy(), axis=-1).tolist()
        )
    with (
        pytest.warns(UserWarning),
        pytest.raises(
            RuntimeError, match=re.escape("linalg.matrix_norm: dims must be different. Got (0, 0)")
        ),
    ):
        T.nuclear_norm(sq, 0)
    with pytest.raises(
        NotImplementedError, match="std and var only support floating point and complex dtypes"
    ):
        T.tensor([[4, 7], [0, 7]], dtype=T.uint8).std(3)
    s = T.sparse_coo_tensor([2, 3], dtype=T.float16)  # the size-only overload: an empty sparse tensor
    assert (
        s.shape == (2, 3)
        and s.dtype == T.float16
        and s._nnz() == 0
        and s.to_dense().tolist() == [[0.0] * 3] * 2
    )
    v = T.tensor([[4.0, 7], [0, 7]])
    assert T.var(v, T.tensor([1])).tolist() == [4.5, 24.5]
    assert v.std(T.tensor(0)).tolist() == pytest.approx(np.std(v.numpy(), 0, ddof=1).tolist())


def test_fuzz_4414_check_order_and_ranges():
    """PyTorch's order of checks and its range checks: glu's dim before its dtype, tensorinv's slice of the
    shape, cdist's float-only direct kernel, unfold's empty dim 1, clamp bounds an integer dtype cannot reach
    and numbers a floating dtype cannot hold, torch.range of non-finite numbers, lerp in the promoted dtype, roll
    and gather/scatter of empty tensors, the torch-level BCE-with-logits and BCE of integers"""
    T = minitorch
    F = T.nn.functional
    with pytest.raises(
        IndexError, match=re.escape("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    ):
        F.glu(T.tensor([-1, -1, 5, 5]), 1)
    with pytest.raises(RuntimeError, match=re.escape("ArrayRef: invalid slice, N = 4; size = 0")):
        T.linalg.tensorinv(T.tensor(1.5), 4)
    for dt, name in ((T.float16, "Half"), (T.bfloat16, "BFloat16")):
        with pytest.raises(NotImplementedError, match=f"\"cdist\" not implemented for '{name}'"):
            T.cdist(T.ones(2, 3, dtype=dt), T.ones(2, 3, dtype=dt))
        # the matmul path takes the half types
        assert T.cdist(T.ones(30, 3, dtype=dt), T.ones(30, 3, dtype=dt)).dtype == dt
    with pytest.raises(ValueError, match="-5 is not a valid value for compute_mode"):
        T.cdist(T.tensor(3), 0, T.tensor(0), -5)  # PyTorch's Python reads compute_mode before the tensors
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [1, 0]"
        ),
    ):
        F.unfold(T.empty(1, 0), 2)
    u = T.tensor([8, 200], dtype=T.uint8)
    for call, msg in (
        (lambda: T.clamp(u, max=-1), "Clamp max value -1 is outside the representable range of Byte"),
        (lambda: T.clamp(u, min=256), "Clamp min value 256 is outside the representable range of Byte"),
        (
            lambda: T.clamp(T.tensor([1], dtype=T.int8), -129, -200),
            "Clamp max value -200 is outside the representable range of Char",
        ),
        (lambda: u.clone().clamp_(max=-1), "Clamp max value -1 is outside the representable range of Byte"),
        (
            lambda: F.hardtanh_(T.tensor(8, dtype=T.uint8), T.tensor(2, dtype=T.uint8), T.tensor(-9041.0)),
            "Clamp max value -9041 is outside the representable range of Byte",
        ),
        (
            lambda: T.clamp(T.ones(2, dtype=T.float16), -1e6, 1e6),
            "value cannot be converted to type c10::Half without overflow",
        ),
        (lambda: T.clamp(T.ones(2), max=1e39), "value cannot be converted to type float without overflow"),
    ):
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            call()
    assert T.clamp(u, min=-300, max=1000).tolist() == [8, 200]  # out of range the harmless way: kept
    assert T.clamp(T.ones(2, dtype=T.float16), max=math.inf).tolist() == [1.0, 1.0]
    assert T.clamp(u, max=-9041.5).dtype == T.float32  # a float bound promotes: nothing to refuse
    for args, msg in (
        ((-1, math.nan), "unsupported range: -1 -> nan"),
        ((-1, math.inf), "unsupported range: -1 -> inf"),
        ((0, 1, math.nan), "step must be finite but got nan"),
    ):
        with pytest.warns(UserWarning), pytest.raises(RuntimeError, match=re.escape(msg)):
            T.range(*args)
    r = T.lerp(T.tensor([5]), T.tensor([0]), T.tensor(0.5, dtype=T.float64))
    assert r.dtype == T.float64 and r.tolist() == [2.5]
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Long'"):
        T.lerp(T.tensor([5]), T.tensor([0]), 0.5)
    e = T.empty(0, 3, dtype=T.int32)
    assert e.roll(7, 3).shape == (0, 3)
    z = T.zeros(3, 4)
    empty_index = T.empty(0, dtype=T.int64)
    assert z.gather(0, empty_index).shape == (0,)
    assert T.scatter_add(z, -2, empty_index, T.ones(3, 4)).tolist() == z.tolist()
    assert T.scatter(z[..., None], 0, empty_index, 1.0).shape == (3, 4, 1)
    with pytest.raises(
        RuntimeError, match="Index tensor must have the same number of dimensions as input tensor"
    ):
        z.gather(0, T.tensor([0]))
    with pytest.raises(NotImplementedError, match="\"log_sigmoid_cpu\" not implemented for 'Long'"):
        T.binary_cross_entropy_with_logits(T.tensor([[[[-1], [-5]]]]), T.tensor([-5]))
    f = T.tensor([[0.5, 0.2]])
    with pytest.raises(
        RuntimeError, match=re.escape("output with shape [1] doesn't match the broadcast shape [1, 2]")
    ):
        T.binary_cross_entropy_with_logits(f, T.tensor([1.0]))
    got = T.binary_cross_entropy_with_logits(T.tensor([0.5]), T.tensor([[1.0, 0.0]]), None, None, 0)
    want = [math.log1p(math.exp(-0.5)), 0.5 + math.log1p(math.exp(-0.5))]
    assert got.tolist() == [pytest.approx(want)]
    with pytest.raises(NotImplementedError, match="\"binary_cross_entropy\" not implemented for 'Long'"):
        F.binary_cross_entropy(T.tensor([[-4, 0]]), T.tensor([[-5, -2]]))
    with pytest.raises(NotImplementedError, match="\"log_sigmoid_cpu\" not implemented for 'Long'"):
        F.multilabel_soft_margin_loss(T.tensor([[-4, 0]]), f, reduction="fro")


def test_fuzz_4415_refusals():
    """Calls fuzz seed 4415 found answered with another error than PyTorch's: the adaptive pool's parser before
    its size-count check, trace of bools, cross's float dim, cartesian_prod's elements, matrix_rank's deprecated
    positional tol on integers (svd's refusal)"""
    T = minitorch
    F = T.nn.functional
    m = T.ones(2, 3, 4, 4)
    with pytest.raises(
        TypeError, match=re.escape("must be tuple of ints, but found element of type float at pos 0")
    ):
        F.adaptive_avg_pool2d(m, [1.0])
    for x in (T.tensor(False), T.ones(2, 2, dtype=T.bool)):
        with pytest.raises(NotImplementedError, match="\"trace\" not implemented for 'Bool'"):
            T.trace(x)
    assert T.trace(T.arange(4.0).reshape(2, 2)).item() == 3.0
    with pytest.raises(
        TypeError, match=re.escape("cross(): argument 'dim' (position 3) must be int, not float")
    ):
        T.cross(T.ones(3), T.ones(3), 1.0)
    assert T.cross(T.tensor([1.0, 0, 0]), T.tensor([0.0, 1, 0]), T.tensor(0)).tolist() == [0.0, 0.0, 1.0]
    with pytest.raises(TypeError, match="^expected Tensor as element 1 in argument 0, but got int"):
        T.cartesian_prod(T.tensor(1.0), 3, 1)
    for call in (lambda: T.clamp_max_(T.tensor([3, -5]), None), lambda: T.tensor([3, -5]).clamp_min_(None)):
        with pytest.raises(
            TypeError, match=r"clamp_m(ax|in)_\(\) received an invalid combination of arguments"
        ):
            call()
    assert T.tensor([3, -5]).clamp_max_(0).tolist() == [0, -5]
    # a generated `float` argument is PyTorch's double: a number or a 0-dim tensor without grad
    x = T.zeros(3)
    for v in (True, 2, 0.5, np.float32(0.5), np.int64(2), T.tensor(0.5), T.tensor(1)):
        assert x.normal_(v) is x
    for v, kind in (
        (T.tensor([0.5]), "Tensor"),
        (T.tensor(0.5, requires_grad=True), "Tensor"),
        (np.array(0.5), "numpy.ndarray"),
        (1 + 2j, "complex"),
    ):
        with pytest.raises(
            TypeError, match=re.escape(f"normal_(): argument 'mean' (position 1) must be float, not {kind}")
        ):
            x.normal_(v)
    with pytest.raises(
        TypeError, match=re.escape("bernoulli_() received an invalid combination of arguments")
    ):
        x.bernoulli_("a")
    for fill, args in (("cauchy_", (0.0, 1.0)), ("exponential_", (1.0,)), ("geometric_", (0.5,))):
        with pytest.raises(TypeError, match=re.escape(f"{fill}(): argument")):
            getattr(x, fill)(T.tensor([args[0]]), *args[1:])
        assert getattr(x, fill)(T.tensor(args[0]), *args[1:]) is x  # a 0-dim tensor is a number
    # int-list parsing: the failed element's index + 1 (tensordot), the size-only sparse_coo_tensor's size
    cube = T.ones(2, 2, 2)
    with pytest.raises(
        TypeError, match=re.escape("argument 'dims_self' failed to unpack the object at pos 3 with error")
    ):
        T.tensordot(cube, cube, ([0, 1, 2.0], [0, 1, 2]))
    assert T.sparse_coo_tensor(3).shape == (3,) and T.sparse_coo_tensor(T.tensor([2])).shape == (2,)
    for size, msg in (
        (T.tensor([1.5]), "must be tuple of ints, not Tensor"),
        ([2.5], "must be tuple of ints, but found element of type float at pos 0"),
        ((2, 3.0), "failed to unpack the object at pos 2"),
    ):
        with pytest.raises(TypeError, match=re.escape(msg)):
            T.sparse_coo_tensor(size)
    a = T.ones(3, 3, dtype=T.int32)
    with pytest.raises(
        NotImplementedError, match="linalg.svd: Expected a floating point or complex tensor as input. Got Int"
    ):
        T.linalg.matrix_rank(a, -1)
    with pytest.raises(RuntimeError, match="This function doesn't handle types other than float and double"):
        T.linalg.matrix_rank(a)


def test_fuzz_4417_number_forms_and_deprecated_overloads():
    """Fuzz seed 4417: PyTorch's (Tensor input, Number other, Number alpha) under every add/sub spelling,
    rsub's, the deprecated addcmul/addcdiv(input, value, tensor1, tensor2), and sub's bool check before alpha"""
    T = minitorch
    x = T.ones(2)
    assert T.subtract(x, 3, 2).tolist() == [-5.0, -5.0]
    assert x.clone().subtract_(3, 2).tolist() == [-5.0, -5.0]
    assert x.subtract(T.tensor(2.0), 3).tolist() == [-5.0, -5.0]  # a 0-d tensor is a Number
    assert T.rsub(x, 3, 2).tolist() == [1.0, 1.0]
    for call in (
        lambda: T.subtract(x, T.ones(2), 2),
        lambda: x.clone().subtract_(T.ones(2), 2),
        lambda: T.rsub(x, T.ones(2), 2),
        lambda: x.subtract(3, T.tensor(2.0, requires_grad=True)),
    ):
        with pytest.raises(TypeError):
            call()
    # sub's own name keeps the deprecated (input, alpha, other) form, tried first (PyTorch's parser)
    with pytest.raises(
        RuntimeError, match="For integral input tensors, argument alpha must not be a floating"
    ):
        T.ones(2, dtype=T.int32).sub(T.tensor(2.0, dtype=T.float64), 3)
    with pytest.raises(TypeError):
        x.sub(T.tensor(2.0, requires_grad=True), 3)
    bool_msg = "Subtraction, the `-` operator, with a bool tensor is not supported"
    for call in (
        lambda: T.tensor(False).sub_(T.tensor(False), -2),
        lambda: T.sub(T.tensor(2.5, dtype=T.bfloat16), 0.5, False),
        lambda: T.sub(x, T.tensor([True, False]), alpha=2),
        lambda: x.clone().sub_(T.tensor([True, False]), alpha=2),
    ):
        with pytest.raises(NotImplementedError, match=re.escape(bool_msg) + "|two bool tensors"):
            call()
    a, t1, t2 = T.ones(2), T.tensor([2.0, 3.0]), T.tensor([4.0, 6.0])
    # (their one warning per process, whichever deprecated form comes first: test_deprecated_signatures.py)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert T.addcmul(a, 2, t1, t2).tolist() == [17.0, 37.0]
        assert T.addcdiv(a, T.tensor(2.0), t1, t2).tolist() == [2.0, 2.0]
        y = a.clone()
        assert y.addcmul_(0.5, t1, t2) is y and y.tolist() == [5.0, 10.0]
        assert a.addcdiv(2, t1, t2).tolist() == [2.0, 2.0]
    for call in (
        lambda: T.addcmul(a, 2, t1, t2, value=3),
        lambda: T.addcmul(a, t1, t2, t2),
        lambda: T.addcmul(a, T.ones(2), t1, t2),
        lambda: T.addcmul(a, t1, t2, value=None),
    ):
        with pytest.raises(TypeError):
            call()
    assert T.addcmul(a, t1, t2, value=2).tolist() == [17.0, 37.0]


def test_fuzz_4417_non_tensor_inputs_of_functional():
    """Fuzz seed 4417: nn.functional given a non-tensor raises PyTorch's error (its parser's TypeError, or an
    AttributeError where PyTorch's F calls a method), not an AttributeError from inside our code"""
    T = minitorch
    F = T.nn.functional
    for call, name in (
        (lambda: F.elu(1.0), "elu"),
        (lambda: F.elu(1.0, inplace=True), "elu_"),
        (lambda: F.celu(1.0), "celu"),
        (lambda: F.selu(1.0, True), "selu_"),
        (lambda: F.relu6(1.0), "relu6"),
        (lambda: F.hardtanh(1, inplace=True), "hardtanh_"),
        (lambda: F.logsigmoid(1.0), "log_sigmoid"),
        (lambda: F.hardshrink(2), "hardshrink"),
        (lambda: F.softshrink(2), "softshrink"),
        (lambda: F.alpha_dropout([1.0], 0.5, True), "alpha_dropout"),
        (lambda: F.feature_alpha_dropout([1.0], 0.5, True), "feature_alpha_dropout"),
        (lambda: F.hinge_embedding_loss(True, T.ones(2)), "hinge_embedding_loss"),
    ):
        with pytest.raises(
            TypeError, match=re.escape(f"{name}(): argument 'input' (position 1) must be Tensor")
        ):
            call()
    with pytest.raises(TypeError, match=re.escape("argument 'target' (position 2) must be Tensor, not int")):
        F.hinge_embedding_loss(T.ones(2), 3)
    with pytest.raises(
        TypeError, match=re.escape("grid_sampler(): argument 'grid' (position 2) must be Tensor")
    ):
        F.grid_sample(T.ones(1, 1, 2, 2), [0, 1], align_corners=False)
    for call in (
        lambda: F.sigmoid(1.0),
        lambda: F.tanh(1.0),
        lambda: F.softmax(1.0, 0),
        lambda: F.softmin(1.0, 0),
    ):
        with pytest.raises(AttributeError):
            call()
    with pytest.raises(
        TypeError, match=re.escape("elu(): argument 'alpha' (position 2) must be Number, not list")
    ):
        F.elu(T.tensor([1, 2], dtype=T.int32), [-2, 1])
    assert F.elu(T.tensor([-1.0]), np.float32(2.0)).item() == pytest.approx(2 * (math.exp(-1) - 1))
    # a 0-d bool tensor is a Number (True): |x| > 1 keeps x
    assert F.hardshrink(T.tensor([-1.75, 0.5]), T.tensor(True)).tolist() == [-1.75, 0.0]
    r = F.softmax(T.tensor([[0.0, math.log(3.0)]]), 1, dtype=T.float64)
    assert r.dtype == T.float64 and r.tolist()[0] == pytest.approx([0.25, 0.75])
    assert F.log_softmax(T.tensor([0.0, 0.0]), 0).tolist() == pytest.approx([-math.log(2)] * 2)
    # linear_cross_entropy's own checks, in PyTorch's order, before the target is read
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2, got 0"):
        F.linear_cross_entropy(T.tensor(1.0), -1, -0.5)
    with pytest.raises(RuntimeError, match="expected linear_weight with dimensionality at least 2, got 1"):
        F.linear_cross_entropy(T.ones(2), T.ones(2), 0)
    with pytest.raises(RuntimeError, match="expected equal input and linear_weight last dimensions"):
        F.linear_cross_entropy(T.ones(2, 3), T.ones(4, 2), T.zeros(2, dtype=T.long))
    with pytest.raises(RuntimeError, match=re.escape("expected linear_bias shape (4,), got (3,)")):
        F.linear_cross_entropy(T.ones(2, 3), T.ones(4, 3), T.zeros(2, dtype=T.long), linear_bias=T.ones(3))


def test_fuzz_4417_values_and_refusals():
    """Fuzz seed 4417: calls PyTorch computes that we refused, and calls PyTorch refuses that we computed or
    refused otherwise"""
    T = minitorch
    F = T.nn.functional
    assert T.empty(0).data_ptr() == 0 and T.zeros(3)[3:].data_ptr() == 0 and T.zeros(3).data_ptr() != 0
    # norm_except_dim: PyTorch's view(size(dim), -1) of no elements, and an int dim
    with pytest.raises(
        RuntimeError, match=re.escape("cannot reshape tensor of 0 elements into shape [0, -1]")
    ):
        T.norm_except_dim(T.ones(0, 3), 2, 0)
    with pytest.raises(RuntimeError, match=re.escape("into shape [-1, 0]")):
        T.norm_except_dim(T.ones(2, 0), 2, 1)
    assert T.norm_except_dim(T.ones(0, 3), 2, 1).tolist() == [[0.0, 0.0, 0.0]]
    with pytest.raises(
        TypeError, match=re.escape("norm_except_dim(): argument 'dim' (position 3) must be int")
    ):
        T.norm_except_dim(T.ones(2, 3), 2, T.tensor([1]))
    # a uint8 condition still selects (with PyTorch's deprecation warning)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = T.where(T.tensor([1, 0, 2], dtype=T.uint8), 5, True)
    assert r.tolist() == [5, 1, 5] and r.dtype == T.int64
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        T.where(T.tensor([1, 0], dtype=T.int8), 5, 1)
    rc, out = run_isolated(
        """
        import warnings
        warnings.simplefilter("always")
        c = torch.tensor([1, 0], dtype=torch.uint8)
        torch.where(c, 1, 0), torch.where(c, 1, 0)
        """
    )
    assert rc == 0 and out.count("where received a uint8 condition tensor. This behavior is deprecated") == 1
    # an empty integer tensor divided by 0: nothing to divide
    e = T.empty((5, 0), dtype=T.int64)
    assert e.remainder_(0) is e and T.fmod(e, 0).shape == (5, 0) and (e // 0).shape == (5, 0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        T.ones(2, dtype=T.int64) % 0
    # masked_fill reads its value as a number of self's dtype, checked
    m = T.tensor([True, False, True])
    for dt, v, cname in (
        (T.int64, float("inf"), "int64_t"),
        (T.int8, 300, "int8_t"),
        (T.int64, float("nan"), "int64_t"),
    ):
        with pytest.raises(RuntimeError, match=f"value cannot be converted to type {cname} without overflow"):
            T.ones(3, dtype=dt).masked_fill(m, v)
    assert T.ones(3, dtype=T.int8).masked_fill(m, 3.7).tolist() == [3, 1, 3]
    assert T.ones(3).masked_fill(m, float("inf")).tolist() == [math.inf, 1.0, math.inf]
    # nll_loss: one unbatched sample may give its class as a one-element vector
    x = T.tensor([-1.0, -2.0, -3.0])
    for loss in (F.nll_loss, F.cross_entropy):
        assert loss(x, T.tensor([2])).item() == pytest.approx(loss(x, T.tensor(2)).item())
    assert F.nll_loss(x, T.tensor([2]), reduction="none").shape == ()
    with pytest.raises(ValueError, match="For 1D input, 1D target must have size 1, but got target size: 3"):
        T.nn.NLLLoss()(x, T.tensor([2, 1, 2]))
    # cross_entropy of a 0-d input reads its class dim 1
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-1, 0], but got 1")):
        F.cross_entropy(T.tensor(1.0), T.tensor([1, 2]))
    with pytest.raises(
        RuntimeError, match="Expected floating point type for target with class probabilities"
    ):
        F.cross_entropy(T.tensor(1.0), T.tensor(1))
    with pytest.raises(NotImplementedError, match="multilabel_margin_loss_forward_out_frame"):
        T.nn.MultiLabelMarginLoss()(T.tensor([[3, 3]]), T.tensor([[0, -1]]))
    with pytest.raises(RuntimeError, match="Expected 2 to 3 dimensions, but got 0-dimensional tensor"):
        T.max_pool1d_with_indices(T.tensor(0.5), 2)
    for f in (T.nanmedian, T.median):
        with pytest.raises(
            IndexError, match=re.escape("median(): Expected reduction dim 0 to have non-zero size.")
        ):
            f(T.empty((0,), dtype=T.int64), -1, True)
    assert T.nanmedian(T.empty((0, 3)), 1).values.shape == (0,)
    with pytest.raises(
        RuntimeError, match=re.escape("Expected tensor with 2 or more dimensions. Got size: [3]")
    ):
        T.lu_unpack(T.ones(3, dtype=T.float64), T.tensor([2, 2]))
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        T.histogramdd(T.tensor(np.False_), 2)
    with pytest.raises(NotImplementedError, match="\"cdist\" not implemented for 'BFloat16'"):
        T.cdist(T.ones(2, 1, 2, dtype=T.bfloat16), T.ones(2, 1, 2, dtype=T.float64))
    with pytest.raises(
        RuntimeError, match=re.escape("expected tensor [3] and src [1] to have the same number")
    ):
        T.linalg.vecdot(T.ones(3), T.ones(1))
    assert T.linalg.vecdot(T.ones(2, 3), T.ones(1)).tolist() == [3.0, 3.0]  # broadcasting, beyond two vectors
    with pytest.raises(
        TypeError, match=re.escape("split_copy(): argument 'split_size' (position 2) must be int")
    ):
        T.split_copy(T.ones(3), [2, 1])
    for r in (
        T.split_copy(T.ones(3), 2),
        T.unbind_copy(T.ones(2, 2)),
        T.split_with_sizes_copy(T.ones(3), [2, 1]),
    ):
        assert isinstance(r, tuple) and all(p.is_contiguous() for p in r)
    outs = [T.empty(2), T.empty(1)]
    assert T.split_copy(T.arange(3.0), 2, out=outs) is None and outs[1].tolist() == [2.0]
    for call in (
        lambda: T.prod(T.ones(3), None),
        lambda: T.ones(3).prod(keepdim=True),
    ):
        with pytest.raises(TypeError, match=re.escape("prod() received an invalid combination of arguments")):
            call()
    p = T.arange(1.0, 7.0).reshape(2, 3)
    assert p.prod().item() == 720.0 and p.prod(1).tolist() == [6.0, 120.0]
    assert T.prod(p, T.tensor(0), keepdim=True, dtype=T.float64).tolist() == [[4.0, 10.0, 18.0]]
    out = T.empty(3)
    assert T.prod(p, 0, out=out) is out and out.tolist() == [4.0, 10.0, 18.0]
    for call in (lambda: T.ones(2, 2).symeig(1), lambda: T.ones(2, 2).eig([1])):
        with pytest.raises(
            RuntimeError, match="This function was deprecated since version 1.9 and is now removed"
        ):
            call()
    for call in (
        lambda: T.repeat_interleave(T.ones(3), None, None),
        lambda: T.repeat_interleave(T.tensor([1, 2]), None),
    ):
        with pytest.raises(TypeError, match=re.escape("repeat_interleave() received an invalid combination")):
            call()
    assert T.repeat_interleave(T.tensor([1, 2])).tolist() == [0, 1, 1]
    with pytest.raises(TypeError, match=re.escape("argument 'ord' (position 2) must be Number, not Tensor")):
        T.tensor([2.5], dtype=T.float16).norm(T.tensor([1.0]), -1, False)
    assert T.tensor([3.0, 4.0]).norm(T.tensor(2.0)).item() == 5.0
    # index_select out of range: the CPU's dim-1 kernel words it otherwise, as PyTorch's
    x = T.zeros(4, 2)
    with pytest.raises(RuntimeError, match="INDICES element is out of DATA bounds, id=-1 axis_dim=2"):
        T.index_select(x, 1, T.tensor([-1, 0]))
    with pytest.raises(IndexError, match="index out of range in self"):
        T.index_select(x, 0, T.tensor([4]))
    with pytest.raises(RuntimeError, match="self indexing axis dim should be positive"):
        T.index_select(T.zeros(3, 0), 1, T.tensor([0]))


def test_fuzz_4418_argument_kinds_and_orders():
    """Fuzz seed 4418 (after the 4417 fixes): the removed Tensor.eig/symeig keep PyTorch's Python signature, F's
    in-place activations and special's tails refuse a non-tensor in the parser's words, F.hardtanh checks its
    bounds first, the adaptive pools read input.size() first, index_fill/slice_copy/the view copies parse as
    PyTorch's, and a few values"""
    T = minitorch
    F = T.nn.functional
    for call in (lambda: T.ones(2, 2).symeig(1, 2, 3), lambda: T.ones(2, 2).eig(dim=1)):
        with pytest.raises(TypeError):
            call()
    for call, name in (
        (lambda: F.relu([1.0], inplace=True), "relu_"),
        (lambda: F.silu(1.0, True), "silu_"),
        (lambda: F.mish(1.0, True), "mish_"),
        (lambda: F.leaky_relu(1.0, 0.1, True), "leaky_relu_"),
        (lambda: T.norm_except_dim([1.0]), "norm_except_dim"),
    ):
        with pytest.raises(TypeError, match=re.escape(f"{name}(): argument '")):
            call()
    with pytest.raises(
        TypeError, match=re.escape("special_scaled_modified_bessel_k1(): argument 'x' (position 1)")
    ):
        T.special.scaled_modified_bessel_k1([1.0])
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(1, 2, 1)
    for call in (lambda: F.adaptive_avg_pool3d(-1.5, 2), lambda: F.adaptive_avg_pool2d([1.0], 3)):
        with pytest.raises(AttributeError, match="has no attribute 'size'"):
            call()
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.huber_loss(T.ones(2), T.ones(2), T.ones(2))
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        T.unique(T.tensor(-0.07), dim=-1)
    with pytest.raises(
        TypeError, match=re.escape("fill_diagonal_(): argument 'fill_value' (position 1) must be Number")
    ):
        T.ones(3, 1).fill_diagonal_([1.0])
    assert T.zeros(2, 2).fill_diagonal_(T.tensor(2.0)).tolist() == [[2.0, 0.0], [0.0, 2.0]]
    # native_dropout of nothing: PyTorch's early return, the mask in the input's dtype
    for train in (False, True):
        out, mask = T.native_dropout(T.empty((0,), dtype=T.float16), 0.5, train)
        assert out.shape == (0,) and mask.dtype == T.float16
    assert T.native_dropout(T.ones(2), 0.5, False)[1].dtype == T.bool
    # index_fill: an int dim (the parser's invalid combination otherwise), the number checked against the dtype
    for call in (
        lambda: T.tensor(1e-40).index_fill(T.tensor(-2.55), T.tensor(False), T.tensor(0.5)),
        lambda: T.tensor(-1.0).index_fill_(T.tensor(-2.6), T.tensor([[1.0]]), T.tensor([1.87, -1.9])),
    ):
        with pytest.raises(TypeError, match=r"index_fill_?\(\) received an invalid combination of arguments"):
            call()
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        T.index_fill(T.tensor([[-1, 4]]), -2, T.tensor([0]), float("nan"))
    assert T.ones(2, 3).index_fill(1, T.tensor([0]), T.tensor(5.0)).tolist() == [[5.0, 1, 1], [5.0, 1, 1]]
    # the view copies: required arguments in PyTorch's words; slice_copy's parser and checks
    with pytest.raises(
        TypeError, match=re.escape('expand_copy() missing 1 required positional arguments: "size"')
    ):
        T.expand_copy(T.ones(3, 2))
    with pytest.raises(TypeError, match=re.escape('missing 2 required positional argument: "dim0", "dim1"')):
        T.transpose_copy(T.ones(2, 2))
    assert T.select_copy(T.arange(4.0).reshape(2, 2), 0, index=1).tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match=re.escape("slice_copy(): argument 'start' (position 3) must be int")):
        T.slice_copy(T.ones(3), 0, T.tensor([0, 0]))
    with pytest.raises(IndexError, match=re.escape("slice() cannot be applied to a 0-dim tensor.")):
        T.slice_copy(T.tensor(1.0), -1)
    with pytest.raises(RuntimeError, match="slice step must be positive"):
        T.slice_copy(T.ones(3), 0, 0, 2, 0)
    assert T.slice_copy(T.arange(5.0), 0, 1, None, 2).tolist() == [1.0, 3.0]


def test_fuzz_4418_accepted_and_orders():
    """Fuzz seed 4418: calls PyTorch refuses that we computed (torch.reshape of an int, addmv of a matrix input,
    matrix_rank's None tol, weights that would grow the BCE losses), quantile's dim before q's values,
    linalg.cond's p kinds, and torch.to_dlpack of a tensor requiring grad (PyTorch exports it)"""
    T = minitorch
    F = T.nn.functional
    for shape in (-1, T.tensor(6)):
        with pytest.raises(
            TypeError, match=re.escape("reshape(): argument 'shape' (position 2) must be tuple of ints")
        ):
            T.reshape(T.ones(6), shape)
    assert T.reshape(T.ones(6), [2, 3]).shape == (2, 3) and T.ones(6).reshape(2, 3).shape == (2, 3)
    for inp in (T.ones(2, 2),):
        with pytest.raises(RuntimeError, match="vector \\+ matrix @ vector expected, got 2, 2, 1"):
            T.addmv(inp, T.ones(2, 2), T.ones(2))
        with pytest.raises(RuntimeError, match="vector \\+ matrix @ vector expected, got 2, 2, 1"):
            inp.addmv_(T.ones(2, 2), T.ones(2))
    assert T.addmv(T.tensor(1.0), T.ones(2, 2), T.ones(2)).tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match=re.escape("linalg_matrix_rank() received an invalid combination")):
        T.linalg.matrix_rank(T.ones(2, 2), None)
    assert T.linalg.matrix_rank(T.ones(2, 2), 0.5).item() == 1
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-1, 0], but got 5")):
        T.ones(4).quantile(T.tensor([-1.0, 0.5]), 5)
    with pytest.raises(
        RuntimeError, match=re.escape("quantile() q must be in the range [0, 1] but got 2") + "$"
    ):
        T.ones(4).quantile(2.0, 5)
    with pytest.raises(RuntimeError, match="q values must be in the range"):
        T.ones(4).nanquantile(T.tensor([-1.0, 0.5]), 0)
    for call in (
        lambda: F.binary_cross_entropy_with_logits(T.tensor(0.0), T.tensor(0.5), T.ones(3)),
        lambda: F.binary_cross_entropy_with_logits(T.zeros(3), T.ones(3) * 0.5, pos_weight=T.ones(2, 3)),
        lambda: F.binary_cross_entropy(T.tensor(0.5), T.tensor(0.5), T.ones(3)),
    ):
        with pytest.raises(
            RuntimeError, match="output with shape \\[3?\\] doesn't match the broadcast shape"
        ):
            call()
    r = F.binary_cross_entropy_with_logits(
        T.zeros(2, 3), T.ones(2, 3), T.tensor([1.0, 2.0, 3.0]), reduction="sum"
    )
    assert r.item() == pytest.approx(12 * math.log(2))
    with pytest.raises(TypeError, match=re.escape("linalg_cond() received an invalid combination")):
        T.linalg.cond(T.ones(2, 2), [1, 2])
    x = T.ones(3, requires_grad=True)
    assert T.utils.dlpack.to_dlpack(x) is not None
    with pytest.raises(RuntimeError, match="Can't export tensors that require gradient"):
        x.__dlpack__()


def test_fuzz_4419_copies_and_kinds():
    """Fuzz seed 4419: view_copy's dtype= form needs no size (the 4418 missing-argument check had refused it),
    expand_copy's size is a list, alias_copy/to_dlpack refuse non-tensors, fill_diagonal_'s wrap is a bool"""
    T = minitorch
    assert T.view_copy(T.ones(4), dtype=T.int16).shape == (8,)
    assert T.view_copy(T.ones(4), (2, 2)).shape == (2, 2)
    with pytest.raises(
        TypeError,
        match=re.escape("expand_copy(): argument 'size' (position 2) must be tuple of ints, not int"),
    ):
        T.expand_copy(T.ones(3, 1), 3)
    assert T.expand_copy(T.ones(3, 1), (3, 2)).shape == (3, 2)
    with pytest.raises(
        TypeError, match=re.escape("alias_copy(): argument 'input' (position 1) must be Tensor")
    ):
        T.alias_copy([T.ones(2)])
    with pytest.raises(
        TypeError, match=re.escape("_to_dlpack(): argument 'data' (position 1) must be Tensor, not int")
    ):
        T.to_dlpack(2)
    with pytest.raises(
        TypeError, match=re.escape("fill_diagonal_(): argument 'wrap' (position 2) must be bool, not int")
    ):
        T.ones(3, 1).fill_diagonal_(1, 3)
    assert T.zeros(5, 2).fill_diagonal_(1, True).tolist() == [[1, 0], [0, 1], [0, 0], [1, 0], [0, 1]]


def test_fuzz_4419_parsed_kinds():
    """Fuzz seed 4419: index_add/index_reduce parse PyTorch's signatures once they fail (a float dim is the
    parser's TypeError), Tensor.solve is the removed function's Python method, ldl_factor refuses a
    non-tensor"""
    T = minitorch
    with pytest.raises(
        TypeError, match=re.escape("index_add(): argument 'dim' (position 1) must be int, not Tensor")
    ):
        T.tensor(-1.78).index_add(T.tensor(-2.17), T.tensor(False), T.tensor(1.06))
    with pytest.raises(
        TypeError, match=re.escape("index_reduce_(): argument 'dim' (position 1) must be int")
    ):
        T.tensor(0.84).index_reduce_(T.tensor(1.2), -1, T.tensor(0), T.tensor(0.48))
    assert T.ones(3).index_add(0, T.tensor([0, 0]), T.ones(2), alpha=2).tolist() == [5.0, 1.0, 1.0]
    assert T.ones(3).index_reduce(0, T.tensor([1]), T.ones(1) * 5, "amax").tolist() == [1.0, 5.0, 1.0]
    with pytest.raises(RuntimeError, match="torch.solve. is deprecated in favor of"):
        T.tensor(4).solve([T.tensor(-5)])
    with pytest.raises(TypeError, match=re.escape("Tensor.solve() missing 1 required positional argument")):
        T.ones(2).solve()
    with pytest.raises(
        TypeError, match=re.escape("linalg_ldl_factor(): argument 'input' (position 1) must be Tensor")
    ):
        T.linalg.ldl_factor(3)


def test_fuzz_4417_sparse_size_as_separate_ints():
    """Fuzz seeds 4417-4419: PyTorch's parser reads sparse_coo_tensor(4, 0, 3) as the size-only overload's int
    list (a one-element integer tensor first counts as an int; a non-int later is its unpack TypeError)"""
    T = minitorch
    s = T.sparse_coo_tensor(4, 0, 3, dtype=T.float64)
    assert s.shape == (4, 0, 3) and s.dtype == T.float64 and s._nnz() == 0
    assert T.sparse_coo_tensor(T.tensor([[0]]), 0, 2).shape == (0, 0, 2)
    assert T.sparse_coo_tensor(4, True, 2).shape == (4, 1, 2)
    with pytest.raises(TypeError, match=re.escape("argument 'size' failed to unpack the object at pos 2")):
        T.sparse_coo_tensor(T.tensor([[0]]), T.tensor([1.0]), 2)
    with pytest.raises(TypeError):
        T.sparse_coo_tensor(T.tensor([[0, 1]]), T.tensor([1.0, 2.0]), 2)
    i = T.tensor([[0, 1]])
    assert T.sparse_coo_tensor(i, T.tensor([1.0, 2.0]), (3,)).to_dense().tolist() == [1.0, 2.0, 0.0]


def test_fuzz_4421_gradients_of_number_operands():
    """Fuzz seed 4421: zeta(0.001, q)'s gradient took x + 1 in float32 (two wrapped numbers add to the default
    dtype): -x zeta(x + 1, q) was off in the fourth digit"""
    T = minitorch
    q = T.tensor([1.694755060922371, 1.5, 2.5], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(T.special.zeta(0.001, q).sum(), q)
    # -x zeta(x + 1, q) from mpmath at 30 digits
    want = [
        -0.999795617032414860906278639506,
        -0.999963477195430716239044351686,
        -0.999297080784042876173897379806,
    ]
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)
    # pow's base gradient keeps a Python-number exponent a number too (the same helper)
    x = T.tensor([1.5, 2.5], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(T.pow(x, 0.1).sum(), x)
    np.testing.assert_allclose(g.numpy(), 0.1 * np.array([1.5, 2.5]) ** -0.9, rtol=1e-14)


def test_fuzz_4421_parser_kinds():
    """Fuzz seed 4421: arguments PyTorch's parser refuses before anything runs"""
    T = minitorch
    x = T.tensor([1.5, -2.5])
    for call, msg in [
        (
            lambda: T.gcd(T.tensor([4.0, 6.0]), 2),
            "gcd(): argument 'other' (position 2) must be Tensor, not int",
        ),
        (
            lambda: T.copysign(2, x),
            "copysign() received an invalid combination of arguments - got (int, Tensor)",
        ),
        (lambda: T.fmax(2, x), "fmax(): argument 'input' (position 1) must be Tensor, not int"),
        (lambda: T.polar(2, x), "polar(): argument 'abs' (position 1) must be Tensor, not int"),
        (lambda: T.complex(x, 1.0), "complex(): argument 'imag' (position 2) must be Tensor, not float"),
        (
            lambda: T.put(T.ones(3), T.tensor([0]), 1.0),
            "put(): argument 'source' (position 3) must be Tensor",
        ),
        (lambda: T.ones(3).put_(T.tensor([0]), 5.0), "put_(): argument 'source' (position 2) must be Tensor"),
        (
            lambda: T.scatter_reduce(T.ones(2), 0, 0, False, True),
            "scatter_reduce(): argument 'index' (position 3) must be Tensor, not int",
        ),
        (
            lambda: T.ones(2).scatter_reduce_(0, 0, False, True),
            "scatter_reduce_(): argument 'index' (position 2) must be Tensor, not int",
        ),
        (lambda: T.as_tensor([1, 2], T.float64), "as_tensor() takes 1 positional argument but 2 were given"),
        (
            lambda: T.where(x > 0, None),
            "where() received an invalid combination of arguments - got (Tensor, NoneType)",
        ),
        (
            lambda: T.where(x > 0, x),
            "where() received an invalid combination of arguments - got (Tensor, Tensor)",
        ),
        (
            lambda: T.repeat_interleave(T.ones(2, 2), dim=0),
            "repeat_interleave() received an invalid combination of arguments",
        ),
        (lambda: T.ones(3).cumprod_(1.5), "cumprod_(): argument 'dim' (position 1) must be int, not float"),
        (lambda: T.count_nonzero(T.ones(2, 2), 0, 1), "count_nonzero() received an invalid combination"),
        (
            lambda: T.ones(3).index_put(T.tensor([0]), T.tensor(1.0)),
            "index_put(): argument 'indices' (position 1) must be tuple of Tensors, not Tensor",
        ),
        (
            lambda: T.index_put(T.ones(3), T.tensor([0]), T.tensor(1.0)),
            "index_put(): argument 'indices' (position 2) must be tuple of Tensors, not Tensor",
        ),
        (
            lambda: T.ones(2, 3).index_put((None, T.tensor([0])), T.tensor(5.0)),
            "expected Tensor as element 0 in argument 0, but got NoneType",
        ),
        (
            lambda: T.ones(3).index_put_((0,), T.tensor(1.0)),
            "expected Tensor as element 0 in argument 0, but got int",
        ),
        (
            lambda: T.nn.functional.hardtanh_(
                T.ones(3), T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 2.0, 3.0])
            ),
            "hardtanh_(): argument 'min_val' (position 2) must be Number, not Tensor",
        ),
        (
            lambda: T.nn.functional.multi_margin_loss(T.ones(4, 4, 3, dtype=T.int8), 2),
            "multi_margin_loss(): argument 'target' (position 2) must be Tensor, not int",
        ),
        (
            lambda: T.nn.functional.binary_cross_entropy_with_logits(T.ones(2, dtype=T.bool), T.ones(2), -1),
            "binary_cross_entropy_with_logits(): argument 'weight' (position 3) must be Tensor, not int",
        ),
        (
            lambda: T.nn.functional.interpolate(T.ones(1, 1, 4), T.tensor([0, 0])),
            "upsample_nearest1d() received an invalid combination of arguments",
        ),
    ]:
        with pytest.raises(TypeError, match=re.escape(msg)):
            call()
    # what the same parsers take
    assert T.copysign(x, -1).tolist() == [-1.5, -2.5]
    assert x.copysign(T.tensor([1.0, -1.0])).tolist() == [1.5, -2.5]
    assert T.fmax(T.tensor([float("nan"), 1.0]), T.tensor(0.5)).tolist() == [0.5, 1.0]
    assert T.gcd(T.tensor([4, 6]), T.tensor(4)).tolist() == [4, 2]
    assert T.ones(3).put(T.tensor([0]), T.tensor([5.0]), True).tolist() == [6.0, 1.0, 1.0]
    assert T.where(T.tensor([1, 0]))[0].tolist() == [0]
    assert T.where(x > 0, 1, 2.0).tolist() == [1.0, 2.0]
    assert T.tensor([0, -1, -3]).count_nonzero(0).item() == 2
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        T.tensor([0, -1, -3]).count_nonzero(0, 0)  # the method's int list as separate ints
    assert T.ones(2, 3).index_put([T.tensor([0]), T.tensor([1])], T.tensor(5.0)).tolist() == [
        [1.0, 5.0, 1.0],
        [1.0, 1.0, 1.0],
    ]
    assert T.linalg.tensorinv(T.eye(4).reshape(4, 2, 2), T.tensor(1)).shape == (
        2,
        2,
        4,
    )  # a 0-d int tensor is an int
    assert T.nn.functional.interpolate(T.ones(1, 1, 4), T.tensor(2)).shape == (1, 1, 2)
    assert T.nn.functional.hardtanh_(T.ones(3) * 3, T.tensor(-1.0), T.tensor(2.0)).tolist() == [2.0, 2.0, 2.0]


def test_fuzz_4421_error_order_and_kinds():
    """Fuzz seed 4421: which check PyTorch makes first (the dim before the dtype, an empty y before x), the
    errors of 0-dim inputs, torch.stft as PyTorch's Python function and the padding modules' single value"""
    T = minitorch
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-1, 0], but got 5")):
        T.ones(3).cumsum_(5, dtype=T.int64)
    with pytest.raises(
        RuntimeError, match="Bad in-place call: input tensor dtype float and output tensor dtype long"
    ):
        T.ones(3).cumsum_(0, dtype=T.int64)
    assert T.trapezoid(T.ones(0), T.ones(3)).item() == 0.0  # no samples: zero, whatever x is
    assert T.trapezoid(T.ones(2, 0, dtype=T.bool), dx=2).dtype == T.bool
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        T.mv(T.tensor(2.0), T.ones(3))
    with pytest.raises(RuntimeError, match=re.escape("vector + matrix @ vector expected, got 1, 2, 0")):
        T.mv(T.ones(2, 3), T.tensor(3.0))
    for repeats, msg in [
        (2, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
        (T.tensor(2), "Dimension specified as 0 but tensor has no dimensions"),
    ]:
        with pytest.raises(IndexError, match=re.escape(msg)):
            T.repeat_interleave(T.tensor(3.0), repeats, dim=0)
    assert T.repeat_interleave(T.tensor(3.0), 2).tolist() == [3.0, 3.0]
    with pytest.raises(
        RuntimeError, match=re.escape("index_select(): self indexing axis dim should be positive")
    ):
        T.nn.Embedding(0, 3)(T.tensor([0]))
    assert T.nn.functional.embedding(T.tensor([], dtype=T.long), T.empty(0, 5)).shape == (0, 5)
    with pytest.raises(AttributeError, match="'list' object has no attribute 'dim'"):
        T.stft([1.0, 2.0], 4)
    assert T.nn.CircularPad1d(0.5).padding == (0.5, 0.5)
    with pytest.raises(ValueError, match=re.escape("expected 4D or 5D input (got 0D input)")):
        T.nn.CircularPad3d(0.5)(T.tensor(4))
    assert T.nn.ConstantPad1d(1, 2.0)(T.ones(1, 1, 2)).tolist() == [[[2.0, 1.0, 1.0, 2.0]]]


def test_fuzz_4422_parser_kinds():
    """Fuzz seed 4422: arguments PyTorch's parser refuses before anything runs"""
    T = minitorch
    F = T.nn.functional
    for call, msg in [
        (
            lambda: T.histc(T.tensor([-3, 3]), -1, "reflect"),
            "histc(): argument 'min' (position 3) must be Number, not str",
        ),
        (
            lambda: F.max_pool2d(T.ones(1, 4, 4), None),
            "max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints",
        ),
        (
            lambda: T.linalg.norm(T.tensor(-2.7), T.tensor([[0.9], [1.0]])),
            "linalg_norm() received an invalid combination of arguments - got (Tensor, Tensor)",
        ),
        (lambda: T.linalg.norm(T.tensor(-2.7), []), "linalg_norm() received an invalid combination"),
        (
            lambda: T.native_dropout(T.tensor(3.0), T.tensor(0.5), T.tensor(1.7)),
            "native_dropout(): argument 'train' (position 3) must be bool, not Tensor",
        ),
        (
            lambda: T.ones(3).sparse_mask(2),
            "sparse_mask(): argument 'mask' (position 1) must be Tensor, not int",
        ),
        (
            lambda: T.sparse_coo_tensor(T.tensor([[0, 1]]), T.tensor([1.0, 2.0]), T.tensor([2])),
            "sparse_coo_tensor() received an invalid combination of arguments - got (Tensor, Tensor, Tensor)",
        ),
        (
            lambda: T.sparse_coo_tensor(T.ones(4, 2, 2), 3, 4),
            "sparse_coo_tensor() received an invalid combination",
        ),
        (
            lambda: T.linalg.tensorinv(float("nan"), -1),
            "linalg_tensorinv(): argument 'input' (position 1) must be Tensor",
        ),
        (
            lambda: T.range(T.tensor(-0.15, dtype=T.float64, requires_grad=True), 3),
            "range(): argument 'start' (position 1) must be Number, not Tensor",
        ),
        (lambda: T.atleast_2d([1, 3]), "expected Tensor as element 0 in argument 0, but got int"),
        (lambda: T.atleast_3d((T.ones(1), 3)), "expected Tensor as element 1 in argument 0, but got int"),
        (
            lambda: F.multilabel_soft_margin_loss(0.5, True),
            "log_sigmoid(): argument 'input' (position 1) must be Tensor",
        ),
    ]:
        with pytest.raises(TypeError, match=re.escape(msg)):
            call()
    assert T.linalg.norm(T.ones(4), T.tensor(2.0)).item() == 2.0  # a 0-dim tensor is a Number
    assert T.native_dropout(T.ones(3), 0.0, None)[0].tolist() == [1.0, 1.0, 1.0]
    assert T.sparse_coo_tensor(T.tensor([[0, 1]]), T.tensor([1.0, 2.0]), T.Size([3])).to_dense().tolist() == [
        1,
        2,
        0,
    ]
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        assert T.range(T.tensor(0.5, dtype=T.float64), 2).tolist() == [0.5, 1.5]


def test_fuzz_4422_checks_and_their_order():
    """Fuzz seed 4422: PyTorch's value checks (histc's bins, isclose's NaN tolerances, BCE's target range, a dim in
    range, pinv's tolerances requiring grad) and which it makes first"""
    T = minitorch
    with pytest.raises(
        RuntimeError, match=re.escape("torch.histogram(): bins must be > 0, but got 0 for dimension 0")
    ):
        T.histc(T.empty(0, 6), 0)
    with pytest.raises(RuntimeError, match=re.escape("bins must be > 0, but got -1")):
        T.histc(T.ones(3), -1)
    for args, msg in [((float("nan"),), "rtol must be greater than or equal to zero, but got nan"),
                      ((1e-5, float("nan")), "atol must be greater than or equal to zero, but got nan"),
                      ((-1.0,), "rtol must be greater than or equal to zero, but got -1")]:  # fmt: skip
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            T.isclose(T.ones(2), T.ones(2), *args)
    for x, y, which in [
        ([0.58], [-1.88], "target"),
        ([0.58], [float("nan")], "target"),
        ([float("nan")], [0.5], "input"),
    ]:
        for dt in (T.float32, T.float64):
            with pytest.raises(RuntimeError, match=f"all elements of {which} should be between 0 and 1"):
                T.nn.BCELoss()(T.tensor(x, dtype=dt), T.tensor(y, dtype=dt))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        T.nn.BCELoss()(T.tensor(0.58, dtype=T.float64), T.tensor(-1.88, dtype=T.float64))  # a 0-dim pair
    np.testing.assert_allclose(
        T.nn.BCELoss()(T.tensor([0.58, 0.3]), T.tensor([1.0, 0.0])).item(),
        -(np.log(0.58) + np.log(0.7)) / 2,
        rtol=1e-6,
    )
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-1, 0], but got 3")):
        T.nanmedian(T.tensor(True), 3)  # the dim before the dtype
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-3, 2], but got -4")):
        T.unique_consecutive(T.ones(5, 1, 5, dtype=T.bool), dim=-4)
    for kw in (
        {"rtol": T.tensor(0.5, dtype=T.float64, requires_grad=True)},
        {"atol": T.tensor(0.5, dtype=T.float64, requires_grad=True)},
    ):
        name = next(iter(kw))
        with pytest.raises(RuntimeError, match=f"not differentiable with respect to argument '{name}'"):
            T.linalg.pinv(T.eye(2, dtype=T.float64), **kw)
    with T.no_grad():
        assert T.linalg.pinv(
            T.eye(2, dtype=T.float64), atol=T.tensor(0.5, dtype=T.float64, requires_grad=True)
        ).shape == (2, 2)
    for name in (
        "lstsq",
        "solve",
    ):  # the removed functions' Python methods raise their error for any argument
        with pytest.raises(RuntimeError, match=f"`torch.{name}` is deprecated in favor of"):
            getattr(T.ones(3), name)([])


def test_fuzz_4423_kinds_and_order():
    """Fuzz seed 4423: the parser's kinds (kl_div/cdist/histc tensors, one_hot's int num_classes,
    repeat_interleave's repeats and dim) and which check PyTorch makes first (quantile's empty input, the margin
    loss kernel's dtype before its target, ldl_solve's dtype, rrelu's finite bounds, unique's dim range)"""
    T = minitorch
    F = T.nn.functional
    for call, msg in [
        (lambda: F.kl_div(0, T.ones(2)), "kl_div(): argument 'input' (position 1) must be Tensor, not int"),
        (
            lambda: T.cdist(T.tensor([-2]), -1.5),
            "cdist(): argument 'x2' (position 2) must be Tensor, not float",
        ),
        (lambda: T.histc(-3, -3, -3), "histc(): argument 'input' (position 1) must be Tensor, not int"),
        (
            lambda: F.one_hot(T.empty((0, 1), dtype=T.float64), 2.5),
            "one_hot(): argument 'num_classes' (position 2) must be int, not float",
        ),
        (
            lambda: T.ones(3, 5).repeat_interleave(T.float64),
            "repeat_interleave() received an invalid combination",
        ),
        (
            lambda: T.ones(3, 5).repeat_interleave(2, 1.5),
            "repeat_interleave() received an invalid combination",
        ),
    ]:
        with pytest.raises(TypeError, match=re.escape(msg)):
            call()
    assert F.one_hot(T.tensor([1]), T.tensor(3)).tolist() == [[0, 1, 0]]  # a 0-dim integer tensor is an int
    assert T.ones(2, 3).repeat_interleave(2, T.tensor(1)).shape == (2, 6)
    for q in (T.tensor(0.5, dtype=T.float64), T.tensor([0.5, 2.0], dtype=T.float64)):
        with pytest.raises(RuntimeError, match=re.escape("quantile() input tensor must be non-empty")):
            T.empty(0, dtype=T.float64).quantile(q, -2)  # before the dim and q's values
    with pytest.raises(RuntimeError, match=re.escape("quantile() input tensor must be non-empty")):
        T.quantile(T.empty(0, dtype=T.int64), T.tensor(0.5))  # before the dtype
    with pytest.raises(RuntimeError, match=re.escape("quantile() q must be in the range [0, 1] but got 1.5")):
        T.quantile(T.empty(0), 1.5)  # a number q is checked by its own overload first
    with pytest.raises(NotImplementedError, match="multi_margin_loss_cpu_kernel"):
        F.multi_margin_loss(T.tensor([-2.07], dtype=T.float16), T.tensor([True]))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Bool"):
        F.multi_margin_loss(T.tensor([[-2.07, 1.0]]), T.tensor([True]))
    with pytest.raises(
        NotImplementedError, match="Expected a floating point or complex tensor as input. Got Bool"
    ):
        T.linalg.ldl_solve(T.tensor([[False]]), T.tensor([[-9, -9]]), T.tensor([[-1]]))
    for lower, upper, msg in [(-0.5, math.inf, "upper bound must be finite, got inf"),
                              (math.nan, 1.0, "lower bound must be finite, got nan"),
                              (2.0, 1.0, "Lower bound should be less than or equal to the upper bound")]:  # fmt: skip
        for fn in (T.rrelu, F.rrelu):
            with pytest.raises(RuntimeError, match=re.escape(msg)):
                fn(T.tensor([0.3, -1.0]), lower, upper)
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-3, 2], but got 3")):
        T.unique(T.ones(4, 1, 2), dim=3)
    assert T.unique(T.ones(4, 1, 2), dim=-1).shape == (4, 1, 1)


def test_fuzz_4423_class_index_dtypes():
    """Fuzz seed 4423: PyTorch 2.15's nll_loss/cross_entropy (input up to 2-D) take uint8 class indices and
    check the target's dtype before its shape; the spatial form reads int64 only, after the shapes"""
    T = minitorch
    F = T.nn.functional
    x = T.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]], dtype=T.float64, requires_grad=True)
    for fn in (F.nll_loss, F.cross_entropy):
        want = fn(x, T.tensor([2, 0]))
        got = fn(x, T.tensor([2, 0], dtype=T.uint8))
        assert got.item() == want.item()
        (g1,) = T.autograd.grad(want, x)
        (g2,) = T.autograd.grad(got, x)
        assert g1.tolist() == g2.tolist()
        with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but got Double$"):
            fn(x[0], T.tensor([1.5, -0.8], dtype=T.float64))  # before the one-sample target-size rule
        with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but got Int$"):
            fn(x, T.tensor([1, 0], dtype=T.int32))
    with pytest.raises(RuntimeError, match="^expected scalar type Long but found Byte$"):
        F.nll_loss(T.randn(2, 3, 4), T.zeros(2, 4, dtype=T.uint8))


@pytest.mark.parametrize(
    "name, call, kind",
    [
        ("sum", lambda x, d: x.sum(d), "range"),
        ("mean", lambda x, d: x.mean(d), "range"),
        ("amax", lambda x, d: x.amax(d), "range"),
        ("amin", lambda x, d: minitorch.amin(x, d), "range"),
        ("logsumexp", lambda x, d: x.logsumexp(d), "range"),
        ("nanmean", lambda x, d: x.nanmean(d), "range"),
        ("count_nonzero", lambda x, d: x.count_nonzero(d), "range"),
        ("all", lambda x, d: x.all(d), "range"),
        ("nansum", lambda x, d: x.nansum(d), "repeat"),
        ("std", lambda x, d: x.std(d), "repeat"),
        ("var", lambda x, d: x.var(d), "repeat"),
        ("var_mean", lambda x, d: minitorch.var_mean(x, d), "repeat"),
        ("vector_norm", lambda x, d: minitorch.linalg.vector_norm(x, 2, d), "repeat"),
        ("norm", lambda x, d: x.norm(2, d), "repeat"),
    ],
)
def test_fuzz_4422_reduction_dim_list_order(name, call, kind):
    """Fuzz seed 4422: PyTorch checks a reduction's dim list in one of two orders, each op as PyTorch 2.15
    (sum-like: every dim's range first; var/std/nansum/norms: range and repeat dim by dim)"""
    x = minitorch.ones(2)
    if kind == "range":
        with pytest.raises(IndexError, match=re.escape("expected to be in range of [-1, 0], but got 3")):
            call(x, [0, 0, 3])
    else:
        with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
            call(x, [0, 0, 3])
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        call(x, [0, 0])


def test_fuzz_4424_class_loss_check_order():
    """Fuzz seed 4424: nll_loss checks the batch sizes, then the target's dtype (any input rank), then the
    shapes, then its kernel's input dtype; cross_entropy's log_softmax meets the input's dtype first"""
    T = minitorch
    F = T.nn.functional
    with pytest.raises(
        ValueError, match=re.escape("Expected input batch_size (2) to match target batch_size (4).")
    ):
        F.nll_loss(T.ones(2, 5, 1, 4, dtype=T.int64), T.tensor([-2, 0, -4, 3]))
    with pytest.raises(
        ValueError, match=re.escape("Expected input batch_size (4) to match target batch_size (1).")
    ):
        F.cross_entropy(T.randn(4, 3), T.tensor([1.0], dtype=T.bfloat16))
    with pytest.raises(NotImplementedError, match="nll_loss_out_frame"):
        F.nll_loss(T.ones(2, 5, dtype=T.int64), T.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        F.nll_loss(T.ones(2, 5, dtype=T.int64), T.tensor([1.5, 0]))  # before the kernel's input dtype
    with pytest.raises(NotImplementedError, match="log_softmax_lastdim_kernel_impl"):
        F.cross_entropy(T.ones(2, 5, dtype=T.int64), T.tensor([1.5, 0]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        F.nll_loss(T.ones(2, 3, 4), T.ones(2, 4))  # the spatial form too


def test_fuzz_4425_linalg_norm_tensor_dim():
    """Fuzz seed 4425: linalg.norm's dim is PyTorch's int[1]: a one-element integer tensor stands for it (len() of
    it failed), a longer or a float one is the parser's TypeError"""
    T = minitorch
    x = T.ones(2, 3)
    assert T.linalg.norm(x, 2, T.tensor(1)).tolist() == pytest.approx([3**0.5] * 2)
    assert T.linalg.norm(x, None, T.tensor([0])).tolist() == pytest.approx([2**0.5] * 3)
    for dim in (T.tensor([0, 1]), T.tensor(1.0)):
        with pytest.raises(
            TypeError, match=re.escape("linalg_norm() received an invalid combination of arguments")
        ):
            T.linalg.norm(x, 2, dim)


def test_fuzz_4425_kinds_and_order():
    """Fuzz seed 4425: a removed function called without its input, the parser's kinds (bernoulli's p=None,
    special.round's keyword-only decimals, tile's dims, vector_norm's dim), index_add_/index_copy_'s dim before
    the index's dtype, triplet_margin_loss's margin before the tensors"""
    T = minitorch
    for call, exc, msg in [
        (lambda: T.qr(), TypeError, "qr() missing 1 required positional argument: 'input'"),
        (
            lambda: T.bernoulli(T.ones(3), None),
            TypeError,
            "bernoulli() received an invalid combination of arguments",
        ),
        (lambda: T.special.round(T.ones(3), 2), TypeError, "takes 1 positional argument but 2 were given"),
        (
            lambda: T.tile(T.ones(3), T.tensor([2])),
            TypeError,
            "tile(): argument 'dims' (position 2) must be tuple of ints",
        ),
        (
            lambda: T.linalg.vector_norm(T.ones(3), 2, "s"),
            TypeError,
            "linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
        ),
        (lambda: T.ones(3).index_copy_(-2, T.tensor([0.0]), T.ones(1)), IndexError, "but got -2"),
        (lambda: T.ones(3).index_add_(-2, T.tensor([0.0]), T.ones(1)), IndexError, "but got -2"),
        (
            lambda: T.nn.functional.triplet_margin_loss(T.ones(3), 1, T.ones(3), margin=-0.5),
            ValueError,
            "margin must be greater than 0, got -0.5",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert T.bernoulli(T.ones(4), 1.0).tolist() == [1.0] * 4
    assert T.bernoulli(T.ones(4)).tolist() == [1.0] * 4
    assert T.special.round(T.tensor([1.26]), decimals=1).tolist() == pytest.approx([1.3])
    with pytest.raises(TypeError, match="must be tuple of ints, not Tensor"):
        T.tile(T.ones(3), T.tensor(2))  # not even a 0-dim integer tensor


def test_fuzz_4427_bernoulli_method():
    """Fuzz seed 4427: Tensor.bernoulli() without p failed (the method handed None on as a given p, which the
    4425 check refuses); p may be a number, a bool or a 0-d tensor, as PyTorch's float argument"""
    T = minitorch
    x = T.tensor([0.0, 1.0, 1.0, 0.0])
    assert x.bernoulli().tolist() == [0.0, 1.0, 1.0, 0.0]
    assert T.empty(3, 0).bernoulli().shape == (3, 0)
    for p in (1.0, 1, True, T.tensor(1.0)):
        assert x.bernoulli(p).tolist() == [1.0] * 4
    assert x.bernoulli(p=0.0).tolist() == [0.0] * 4
    with pytest.raises(RuntimeError, match=re.escape("Expected p_in >= 0 && p_in <= 1 to be true")):
        T.tensor([2.5]).bernoulli()
    for p in (None, "a", T.ones(2)):
        with pytest.raises(
            TypeError, match=re.escape("bernoulli() received an invalid combination of arguments")
        ):
            x.bernoulli(p)


def test_fuzz_4427_index_add_copy_bounds():
    """Fuzz seed 4427: index_add/index_copy took negative indices (PyTorch refuses them; index_fill wraps), and
    the out-of-range message named dim 0 for any dim (the dim moved to the front for index_put)"""
    T = minitorch
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    src = T.tensor([[5.0], [6.0]])
    for i in (-1, 2, -3):
        with pytest.raises(
            RuntimeError, match=re.escape(f"index {i} is out of bounds for dimension 1 with size 2")
        ):
            T.index_add(x, 1, T.tensor([i]), src)
        with pytest.raises(
            IndexError,
            match=re.escape(f"index_copy_(): index {i} is out of bounds for dimension 1 with size 2"),
        ):
            T.index_copy(x, 1, T.tensor([i]), src)
    for i in (2, -3):
        with pytest.raises(
            IndexError, match=re.escape(f"index {i} is out of bounds for dimension 1 with size 2")
        ):
            T.index_fill(x, 1, T.tensor([i]), 7)
    assert T.index_fill(x, 1, T.tensor([-1]), 7).tolist() == [[1.0, 7.0], [3.0, 7.0]]
    for self_ in (T.tensor([1.0, 2.0]), T.tensor(1.0)):  # PyTorch's 1-D/0-D index_add words it its own way
        with pytest.raises(IndexError, match=re.escape("index out of range in self")):
            T.index_add(self_, 0, T.tensor([-1], dtype=T.int32), T.ones(1) if self_.dim() else T.tensor(1.0))
    with pytest.raises(IndexError):
        x.index_copy_(0, T.tensor([-1]), T.ones(1, 2))
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]  # the failed in-place call left self alone
    ok = T.index_add(T.zeros(3), 0, T.tensor([2, 0, 2]), T.tensor([1.0, 2.0, 3.0]))
    assert ok.tolist() == [2.0, 0.0, 4.0]
    assert T.index_copy(x, 0, T.tensor([1, 0]), x).tolist() == [[3.0, 4.0], [1.0, 2.0]]


@pytest.mark.filterwarnings("ignore:torch.lu is deprecated")
def test_fuzz_4427_kinds():
    """Fuzz seed 4427: the parser's kinds: a float tensor is no int dim (index_copy/index_add/index_fill took
    tensor(0.) as dim 0), hypot's other is a Tensor (a number reached the kernel, or computed), where's single
    condition is a Tensor, unravel_index's indices (PyTorch's Python function reads .is_complex() first),
    lobpcg's B, torch.lu's get_infos before pivot, stft's C++ signatures after its padding"""
    T = minitorch
    x = T.tensor([1.0, 2.0])
    for call, exc, msg in [
        (
            lambda: x.index_copy_(T.tensor(0.0), T.tensor([0]), T.tensor([5.0])),
            TypeError,
            "index_copy_(): argument 'dim' (position 1) must be int, not Tensor",
        ),
        (
            lambda: T.index_copy(x, T.tensor(0.0), T.tensor([0]), T.tensor([5.0])),
            TypeError,
            "index_copy(): argument 'dim' (position 2) must be int, not Tensor",
        ),
        (
            lambda: x.index_add_(T.tensor(0.0), T.tensor([0]), T.tensor([5.0])),
            TypeError,
            "index_add_(): argument 'dim' (position 1) must be int, not Tensor",
        ),
        (
            lambda: T.index_fill(x, T.tensor(0.0), T.tensor([0]), 5.0),
            TypeError,
            "index_fill() received an invalid combination of arguments",
        ),
        (lambda: x.hypot(0), TypeError, "hypot(): argument 'other' (position 1) must be Tensor, not int"),
        (
            lambda: x.hypot_(1.5),
            TypeError,
            "hypot_(): argument 'other' (position 1) must be Tensor, not float",
        ),
        (
            lambda: T.hypot(x, 1.5),
            TypeError,
            "hypot(): argument 'other' (position 2) must be Tensor, not float",
        ),
        (
            lambda: T.where([3]),
            TypeError,
            "where(): argument 'condition' (position 1) must be Tensor, not list",
        ),
        (lambda: T.unravel_index([3], (2, 2)), AttributeError, "'list' object has no attribute 'is_complex'"),
        (lambda: T.lobpcg(T.ones(5), 0, 3), AttributeError, "'int' object has no attribute 'requires_grad'"),
        (
            lambda: T.lu(T.ones(2, 2), -1, T.tensor([0, 0])),  # PyTorch reads get_infos first
            RuntimeError,
            "Boolean value of Tensor with more than one value is ambiguous",
        ),
        (
            lambda: T.stft(T.tensor(-2.3), 0, "nuc"),
            TypeError,
            "stft() received an invalid combination of arguments",
        ),
        (
            lambda: T.stft(T.tensor([1.0, 2, 3, 4]), 2, window=3),
            TypeError,
            "got (Tensor, int, NoneType, NoneType, int, bool, NoneType, NoneType, NoneType)",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert T.hypot(x, T.tensor(1.5)).tolist() == pytest.approx([math.hypot(1, 1.5), math.hypot(2, 1.5)])
    out = T.empty(2, dtype=T.float64)
    assert T.hypot(x, T.tensor([0.0, 0.0]), out=out) is out and out.tolist() == [1.0, 2.0]
    assert [t.tolist() for t in T.where(T.tensor([1, 0, 2]))] == [[0, 2]]
    assert T.stft(T.tensor([1.0, 2, 3, 4]), 2, hop_length=1, window=T.ones(2), return_complex=True).shape == (
        2,
        5,
    )


def test_fuzz_4427_values():
    """Fuzz seed 4427: a bool tensor to a bool power (PyTorch's tensor-scalar pow fills or copies before its
    kernel), tensordot's size-1 contracted dims (the other side summed), margin_ranking_loss's double margin
    (integer operands give a floating loss), vander's single column outside the graph, linalg.cond and
    matrix_rank of no matrices before their dtype checks, bool inputs refused by replicate/1-D reflect padding"""
    T = minitorch
    F = T.nn.functional
    b = T.tensor([True, False])
    assert T.pow(b, True).tolist() == [True, False] and T.pow(b, True).dtype == T.bool
    assert T.pow(b, False).tolist() == [True, True]
    assert (b**True).dtype == T.bool and b.clone().pow_(False).tolist() == [True, True]
    assert T.pow(b, 1).dtype == T.int64  # an int exponent promotes: the ordinary kernel
    with pytest.raises(NotImplementedError, match=re.escape("\"pow\" not implemented for 'Bool'")):
        T.pow(b, T.tensor(True))  # a tensor exponent takes no shortcut, as PyTorch's
    a = np.arange(20.0).reshape(5, 4, 1, 1)
    c = np.arange(40.0).reshape(2, 5, 4)
    got = T.tensordot(T.tensor(a), T.tensor(c), dims=([2, 3], [0, 1]))
    want = np.tensordot(a, c.sum(axis=(0, 1), keepdims=True), axes=([2, 3], [0, 1]))
    np.testing.assert_allclose(got.numpy(), want)
    got = T.tensordot(T.tensor(c), T.tensor(a), dims=([1, 2], [2, 3]))
    np.testing.assert_allclose(
        got.numpy(), np.tensordot(c.sum((1, 2), keepdims=True), a, axes=([1, 2], [2, 3]))
    )
    assert T.tensordot(
        T.ones(5, 4, 1, 4, dtype=T.int64), T.ones(5, 4, 1, 4, dtype=T.int64)
    ).unique().tolist() == [20]
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=([0], [0]))
    i16 = {"dtype": T.int16}
    loss = F.margin_ranking_loss(T.tensor([4, 4], **i16), T.tensor([-5, 5], **i16), T.tensor([-1, 1], **i16))
    assert loss.dtype == T.float32 and loss.item() == 5.0
    x = T.tensor([0.96, 1.74, 1.93], dtype=T.float64, requires_grad=True)
    v1 = T.vander(x, 1)
    assert not v1.requires_grad and v1.tolist() == [[1.0]] * 3
    assert T.vander(x, 2).requires_grad
    assert T.linalg.cond(T.empty(0, 4, 5, 4, dtype=T.int64)).dtype == T.int64
    assert T.linalg.cond(T.empty(0, 4, 4, dtype=T.complex64), 1).dtype == T.float32
    with pytest.raises(RuntimeError, match=re.escape("linalg.cond(ord=fro): A must be batches of square")):
        T.linalg.cond(T.empty(0, 4, 5), "fro")
    with pytest.raises(
        RuntimeError, match=re.escape("linalg.cond(ord=1.000000): A must be batches of square")
    ):
        T.linalg.cond(T.ones(4, 5), 1.0)
    # a string norm's squareness is checked before its name (a numeric one's after)
    with pytest.raises(
        RuntimeError, match=re.escape("linalg.cond(ord=circular): A must be batches of square")
    ):
        T.linalg.cond(T.ones(4, 3), "circular")
    with pytest.raises(ValueError, match="linalg.cond got an invalid norm type: circular"):
        T.linalg.cond(T.ones(3, 3), "circular")
    with pytest.raises(ValueError, match="linalg.cond got an invalid norm type: 3"):
        T.linalg.cond(T.ones(4, 3), 3)
    with pytest.raises(NotImplementedError, match=re.escape("linalg.inv: Expected a floating point")):
        T.linalg.cond(T.ones(4, 4, dtype=T.int64), 1)
    with pytest.raises(NotImplementedError, match=re.escape("linalg.svd: Expected a floating point")):
        T.linalg.cond(T.ones(4, 4, dtype=T.int64))
    r = T.linalg.matrix_rank(T.empty(0, 4, 3, 4, dtype=T.float16), 1, False)
    assert r.shape == (0, 4) and r.dtype == T.int64
    bb = T.tensor([[[False, True, True]]])
    for mode, name in (("reflect", "reflection_pad1d"), ("replicate", "replication_pad1d")):
        with pytest.raises(NotImplementedError, match=re.escape(f"\"{name}\" not implemented for 'Bool'")):
            F.pad(bb, [1, 1], mode)
    assert F.pad(bb, [1, 1], "circular").tolist() == [[[True, False, True, True, False]]]
    assert F.pad(bb.expand(1, 2, 3).unsqueeze(0), [1, 1, 1, 1], "reflect").shape == (1, 1, 4, 5)


@pytest.mark.filterwarnings("ignore:torch.lu is deprecated")
def test_fuzz_4427_torch_lu():
    """Found beside seed 4427's torch.lu finding: torch.lu raised on a singular matrix (PyTorch's _lu_with_info
    ignores check_errors), ignored out=, and named linalg's function in its errors; linalg's LU refuses an integer
    dtype by its kernel's name, as PyTorch's"""
    T = minitorch
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    LU, piv = T.lu(T.tensor(a, dtype=T.float64))
    L = np.tril(LU.numpy(), -1) + np.eye(2)
    U = np.triu(LU.numpy())
    P = np.eye(2)[[1, 0]]  # pivots [2, 2]: rows 1 and 2 swapped
    assert piv.tolist() == [2, 2]
    np.testing.assert_allclose(P @ L @ U, a)
    LU, piv, info = T.lu(T.ones(2, 3), get_infos=True)  # singular: info, no error
    assert info.item() == 2 and type(T.lu(T.eye(2), True, True)).__name__ == "_lu_with_info"
    o = (T.empty(0), T.empty(0, dtype=T.int32))
    assert T.lu(T.tensor(a, dtype=T.float32), out=o) is o and o[0].shape == (2, 2) and o[1].tolist() == [2, 2]
    with pytest.raises(TypeError, match=re.escape("expected tuple of 3 elements but got 2")):
        T.lu(T.eye(2), True, True, out=o)
    with pytest.raises(
        TypeError, match=re.escape("_lu_with_info(): argument 'input' (position 1) must be Tensor")
    ):
        T.lu(3)
    for f in (T.lu, T.linalg.lu_factor, T.linalg.lu_factor_ex):
        with pytest.raises(NotImplementedError, match=re.escape("\"lu_cpu\" not implemented for 'Long'")):
            f(T.ones(2, 2, dtype=T.int64))


def test_fuzz_4428_alpha_and_fill_overflow():
    """Fuzz seed 4428: add/sub's alpha is converted to the result's dtype with PyTorch's overflow check (1e30 in
    float16 was inf), a complex alpha with real tensors is refused; a float fill value into uint8 takes
    [0, 256) (PyTorch's overflows<>: -1.5 wrapped to 255, 255.9 truncates to 255)"""
    T = minitorch
    h = T.tensor([1.0, 2.0], dtype=T.float16)
    for call, dtype_name in [
        (lambda: T.add(h, h, alpha=1e30), "c10::Half"),
        (lambda: T.sub(h, h, alpha=70000), "c10::Half"),
        (lambda: T.add(h, 2.0, alpha=1e30), "c10::Half"),
        (lambda: h.clone().add_(h, alpha=1e30), "c10::Half"),
        (lambda: T.ones(5000, dtype=T.float16).add_(T.ones(5000, dtype=T.float16), alpha=1e30), "c10::Half"),
        (lambda: T.add(T.ones(2), T.ones(2), alpha=1e39), "float"),
        (lambda: T.add(T.ones(2, dtype=T.int8), T.ones(2, dtype=T.int8), alpha=300), "int8_t"),
        (lambda: T.zeros(2, dtype=T.uint8).fill_(-1.5), "uint8_t"),
        (lambda: T.zeros(2, dtype=T.uint8).fill_(256.0), "uint8_t"),
        (lambda: T.zeros(2, dtype=T.int8).fill_(-128.5), "int8_t"),
        (lambda: T.index_fill(T.zeros(2, 2, dtype=T.uint8), 0, T.tensor([1]), -1.5), "uint8_t"),
    ]:
        with pytest.raises(
            RuntimeError, match=re.escape(f"value cannot be converted to type {dtype_name} without")
        ):
            call()
    with pytest.raises(RuntimeError, match="argument alpha must not be a complex number"):
        T.add(h, h, alpha=1 + 2j)
    assert T.add(h, h, alpha=float("inf")).tolist() == [float("inf")] * 2  # inf converts
    assert T.add(T.ones(2, dtype=T.int8), T.ones(2, dtype=T.int8), alpha=-128).tolist() == [-127, -127]
    assert T.add(T.ones(2, dtype=T.uint8), T.ones(2, dtype=T.uint8), alpha=-255).tolist() == [2, 2]  # wraps
    assert T.zeros(2, dtype=T.uint8).fill_(255.9).tolist() == [255, 255]
    assert T.zeros(2, dtype=T.uint8).fill_(-1).tolist() == [255, 255]  # an integer wraps, as PyTorch's
    assert T.zeros(1, dtype=T.int32).fill_(2147483647.5).tolist() == [2147483647]


def test_fuzz_4428_integer_dtype_with_grad():
    """Fuzz seed 4428: sum/prod/nansum/cumsum/cumprod with an integer dtype= on a tensor requiring grad: PyTorch
    refuses ("Autograd not support dtype"); ours dropped the history. Under no_grad it computes. Also the full
    reductions' node names (SumBackward0, where a dim gives SumBackward1), which printed tensors show"""
    T = minitorch
    x = T.tensor([[0.5, 1.5]], dtype=T.float64, requires_grad=True)
    for call, name in [
        (lambda: T.sum(x, 1, dtype=T.int64), "Long"),
        (lambda: x.sum(dtype=T.bool), "Bool"),
        (lambda: T.prod(x, 1, dtype=T.int32), "Int"),
        (lambda: T.nansum(x, 1, dtype=T.int64), "Long"),
        (lambda: T.cumsum(x, 1, dtype=T.int64), "Long"),
        (lambda: T.cumprod(x, 1, dtype=T.int64), "Long"),
        (lambda: T.cumsum(T.empty(2, 0, dtype=T.float64, requires_grad=True), 0, dtype=T.bool), "Bool"),
    ]:
        with pytest.raises(RuntimeError, match=f"^Autograd not support dtype: {name}$"):
            call()
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        T.cumsum(x, 1, dtype=T.bool)  # the kernel refuses first where it runs
    with T.no_grad():
        assert T.sum(x, 1, dtype=T.int64).tolist() == [1]
    assert T.sum(x.detach(), 1, dtype=T.int64).tolist() == [1]
    assert x.sum(dtype=T.float32).requires_grad
    names = [x.sum(), x.sum(0), x.sum(dtype=T.float32), x.prod(), x.prod(1), x.mean(), x.mean(1)]
    assert [r.grad_fn.name() for r in names] == [
        "SumBackward0",
        "SumBackward1",
        "SumBackward0",
        "ProdBackward0",
        "ProdBackward1",
        "MeanBackward0",
        "MeanBackward1",
    ]
    assert "grad_fn=<SumBackward0>" in repr(x.sum())
    x.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0]]


@pytest.mark.filterwarnings("ignore:torch.lu is deprecated", "ignore:non-inplace resize")
def test_fuzz_4428_kinds_and_python_functions():
    """Fuzz seed 4428: the parser's kinds (vander's N and increasing, bincount's weights and minlength,
    unsafe_split's int, solve_ex's B, a size-taking method called without sizes), PyTorch's Python functions'
    own failures (unique/unique_consecutive read a flag's truth first, tanhshrink's .tanh(), Tensor.lu's
    arguments, Tensor.resize's product of the sizes as given), LU of no matrices in any dtype"""
    T = minitorch
    F = T.nn.functional
    for call, exc, msg in [
        (
            lambda: T.vander(T.ones(2, 2), T.tensor([1.0, 2.0])),
            TypeError,
            "vander(): argument 'N' (position 2)",
        ),
        (
            lambda: T.vander(T.ones(2), 3, 1),
            TypeError,
            "vander(): argument 'increasing' (position 3) must be bool",
        ),
        (lambda: T.bincount(T.tensor([[1, 2]]), [0, 1, 2]), TypeError, "argument 'weights' (position 2)"),
        (lambda: T.bincount(T.tensor([1, 2]), minlength=2.5), TypeError, "argument 'minlength' must be int"),
        (lambda: T.unsafe_split(T.ones(3, 2), [2, 1, 0]), TypeError, "argument 'split_size' (position 2)"),
        (lambda: T.linalg.solve_ex(T.ones(2, 2, dtype=T.bool), 3), TypeError, "argument 'B' (position 2)"),
        (lambda: T.linalg.solve_ex(3, 3), TypeError, "linalg_solve_ex(): argument 'A' (position 1)"),
        (
            lambda: T.ones(2, 3).permute(),
            TypeError,
            'permute() missing 1 required positional arguments: "dims"',
        ),
        (lambda: T.tensor(1.0).permute(), TypeError, "permute() missing 1 required positional arguments"),
        (
            lambda: T.ones(2).reshape(),
            TypeError,
            'reshape() missing 1 required positional arguments: "shape"',
        ),
        (lambda: T.ones(2).expand(), TypeError, 'expand() missing 1 required positional arguments: "size"'),
        (lambda: T.ones(2).view(), TypeError, "view() received an invalid combination of arguments - got ()"),
        (
            lambda: T.unique_consecutive(T.tensor([1, 1, 2]), T.tensor([True, False])),
            RuntimeError,
            "Boolean value of Tensor with more than one value is ambiguous",
        ),
        (
            lambda: T.unique(T.tensor([1, 1, 2]), return_counts=T.tensor([True, False])),
            RuntimeError,
            "Boolean value of Tensor with more than one value is ambiguous",
        ),
        (lambda: T.unique([1, 2]), TypeError, "_unique2(): argument 'input' (position 1) must be Tensor"),
        (
            lambda: T.unique(T.ones(2), dim=1.5),
            TypeError,
            "unique_dim(): argument 'dim' (position 2) must be int",
        ),
        (
            lambda: T.unique_consecutive([1, 2]),
            TypeError,
            "unique_consecutive(): argument 'input' (position 1)",
        ),
        (lambda: F.tanhshrink([T.ones(1)]), AttributeError, "'list' object has no attribute 'tanh'"),
        (
            lambda: T.eye(2).lu(True, False, 1),
            TypeError,
            "Tensor.lu() takes from 1 to 3 positional arguments",
        ),
        (
            lambda: T.ones(2, 3).resize([2, 3]),
            RuntimeError,
            "requested resize to [2, 3] ([2, 3] elements in total)",
        ),
        (lambda: T.tensor(1.0).resize_as(T.tensor(2.0)), TypeError, "view() received an invalid combination"),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert T.ones(2, 3).resize(3, 2).shape == (3, 2)
    with pytest.raises(
        TypeError, match=re.escape("_unique2(): argument 'return_inverse' must be bool, not Tensor")
    ):
        T.unique(T.tensor([1, 1, 2]), True, T.tensor(True))  # one value: its truth, then the parser's kind
    assert type(T.eye(2).lu(get_infos=True)) is tuple
    LU, piv = T.lu(T.empty(0, 5, dtype=T.int32).t())
    assert LU.shape == (5, 0) and LU.dtype == T.int32 and piv.shape == (0,) and piv.dtype == T.int32
    P, L, U = T.linalg.lu(T.empty(2, 1, 3, 0, dtype=T.float16))
    assert P.tolist() == [[np.eye(3).tolist()]] * 2 and L.shape == (2, 1, 3, 0) and U.shape == (2, 1, 0, 0)
    LU, piv, info = T.linalg.lu_factor_ex(T.empty(2, 0, 3, dtype=T.bool))
    assert piv.shape == (2, 0) and info.tolist() == [0, 0]
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Long'"):
        T.linalg.lu(T.ones(2, 2, dtype=T.int64))


def test_fuzz_4428_vector_norm_kinds_and_empty():
    """Fuzz seed 4428: vector_norm's ord takes a bool (a Number to PyTorch's parser), its int[1] dim one integer
    element of a tensor (0-d included) and nothing longer or empty; the orders without an identity on no
    elements refuse only an empty named dim (pairwise_distance of (0, 5) operands with p < 0 is empty)"""
    T = minitorch
    x = T.tensor([1.5, -2.0], dtype=T.float64)
    assert T.linalg.vector_norm(x, True, -1).item() == 3.5
    assert T.linalg.vector_norm(x, False).item() == 2.0
    assert T.linalg.vector_norm(T.tensor([[3.0, 4.0]]), 2, T.tensor(1)).tolist() == [5.0]
    for dim in (T.empty(0, dtype=T.int64), T.tensor([0, 1]), T.tensor(1.0)):
        with pytest.raises(
            TypeError, match=re.escape("argument 'dim' (position 3) must be tuple of ints, not Tensor")
        ):
            T.linalg.vector_norm(T.ones(2, 2), 2, dim)
    e = T.empty(0, 5)
    for p in (-0.5, float("inf"), float("-inf")):
        assert e.norm(p, -1).shape == (0,)
        with pytest.raises(RuntimeError, match="norm on the dimension 0because this dimension is empty"):
            e.norm(p, 0)
        with pytest.raises(RuntimeError, match="norm on an empty tensor because the operation does not have"):
            e.norm(p)
    assert T.pairwise_distance(
        T.empty(0, 5, 5, dtype=T.int64), T.empty(0, 5, 5, dtype=T.int64), -0.5
    ).shape == (0, 5)


def test_fuzz_4429_order_and_kinds():
    """Fuzz seed 4429: Tensor.broadcast_to takes separate ints and hands () to expand's own error (the
    missing-sizes check of 4428 had caught its internal call), broadcast_shapes checks a mismatch before a
    negative size, the losses read target.size() first (a plain value's AttributeError names .size()),
    huber_loss's reduction before its kernel's dtype, cumulative_trapezoid's bool before its dims,
    float_power_'s exponent kinds before its dtype"""
    T = minitorch
    F = T.nn.functional
    x = T.ones(2, 1)
    assert x.broadcast_to(2, 2, 3).shape == (2, 2, 3) and x.broadcast_to([2, 4]).shape == (2, 4)
    assert x.broadcast_to(size=(2, 3)).shape == (2, 3) and T.broadcast_to(x, (2, 5)).shape == (2, 5)
    t = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    for call, exc, msg in [
        (
            lambda: x.broadcast_to(()),
            RuntimeError,
            "the number of sizes provided (0) must be greater or equal",
        ),
        (
            lambda: x.broadcast_to(),
            TypeError,
            'broadcast_to() missing 1 required positional arguments: "size"',
        ),
        (
            lambda: T.broadcast_shapes((2,), (-3,)),
            RuntimeError,
            "Attempting to broadcast a dimension of length -3",
        ),
        (lambda: T.broadcast_shapes((2, -1), (-3,)), ValueError, "with negative length"),
        (lambda: F.l1_loss(t, 3), AttributeError, "'int' object has no attribute 'size'"),
        (lambda: F.mse_loss(3, t), AttributeError, "'int' object has no attribute 'size'"),
        (
            lambda: F.huber_loss(T.tensor([True]), T.tensor([True]), reduction="nuc"),
            ValueError,
            "nuc is not a valid value for reduction",
        ),
        (
            lambda: T.cumulative_trapezoid(T.tensor(True)),
            NotImplementedError,
            "received a bool input for `y`",
        ),
        (
            lambda: T.trapezoid(T.tensor(True)),
            IndexError,
            "Dimension specified as -1 but tensor has no dimensions",
        ),
        (
            lambda: T.tensor([1.5], dtype=T.bfloat16).float_power_([2]),
            TypeError,
            "float_power_() received an invalid combination of arguments - got (list)",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert F.pairwise_distance(T.tensor([[1, 2]]), T.tensor([[4, 6]])).tolist() == pytest.approx(
        [5.0], abs=1e-5
    )
    # seed 4430: an integer eps is still PyTorch's double (int32 operands gave an int32 difference)
    d = T.pairwise_distance(T.tensor([[1, 2]], dtype=T.int32), T.tensor([[4, 6]], dtype=T.int32), 2.0, 0)
    assert d.dtype == T.float32 and d.tolist() == [5.0]


def test_fuzz_4431_kinds_and_order():
    """Fuzz seed 4431: allclose/isclose check their tolerances' kinds before their values (the method form
    counts positions without self),
    histogramdd of points with no coordinates, soft_margin_loss refuses a bool input before broadcasting"""
    T = minitorch
    a = T.tensor([1.0, 2.0])
    for call, exc, msg in [
        (
            lambda: a.allclose(a, -1, "zeros"),
            TypeError,
            "allclose(): argument 'atol' (position 3) must be float, not str",
        ),
        (
            lambda: T.allclose(a, a, -1, "zeros"),
            TypeError,
            "allclose(): argument 'atol' (position 4) must be float, not str",
        ),
        (
            lambda: a.isclose(a, 1j),
            TypeError,
            "isclose(): argument 'rtol' (position 2) must be float, not complex",
        ),
        (lambda: a.allclose(a, None), TypeError, "argument 'rtol' (position 2) must be float, not NoneType"),
        (
            lambda: a.allclose(1),
            TypeError,
            "allclose(): argument 'other' (position 1) must be Tensor, not int",
        ),
        (lambda: a.allclose(a, -1), RuntimeError, "rtol must be greater than or equal to zero, but got -1"),
        (
            lambda: T.nn.functional.soft_margin_loss(T.tensor([[True, False]]), T.empty(0, dtype=T.int64)),
            NotImplementedError,
            "Negation, the `-` operator, on a bool tensor is not supported",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert a.allclose(a, True, np.float32(0)) and bool(a.isclose(a, np.int64(0), 0).all())
    assert T.zeros(6).unflatten(0, [-1, 3]).shape == (2, 3)
    assert a.unflatten(T.tensor(0), [2]).shape == (2,)
    for shape in [(4, 0), (0, 0), (3, 4, 0)]:
        hist, edges = T.histogramdd(T.empty(shape), 4)
        assert hist.shape == () and hist.item() == 0.0 and edges == ()
    assert math.isnan(T.histogramdd(T.empty(4, 0), 4, density=True)[0].item())


def test_fuzz_4431_borrowed_storage_does_not_grow():
    """Fuzz seed 4431: resize_ beyond a NumPy array's (or buffer's) memory raises as PyTorch's; ours copied
    into new memory, so later writes no longer reached the array. Tensors that own their memory still grow,
    torch.tensor's and unpickled ones included."""
    a = np.zeros(10, dtype=np.float32)
    t = minitorch.from_numpy(a)
    for call in [
        lambda: t.resize_(24),
        lambda: t[::2].resize_(2, 3, 4),
        lambda: minitorch.frombuffer(bytearray(8), dtype=minitorch.float32).resize_(5),
    ]:
        with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
            call()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.data.resize_(24)  # `.data` aliases the same borrowed memory
    assert minitorch.zeros(3).data.resize_(10).shape == (10,)
    assert t.resize_(2, 5).shape == (2, 5) and t.resize_(3).shape == (3,)  # within its memory: allowed
    t.fill_(7.0)
    assert a[:3].tolist() == [7.0] * 3
    for own in [
        minitorch.tensor([1.0, 2.0, 3.0]),
        minitorch.tensor([[1, 2], [3, 4]]),
        minitorch.tensor(np.arange(6.0).reshape(2, 3).T),
        minitorch.tensor([1.0, 2.0], dtype=minitorch.bfloat16),
        minitorch.zeros(3),
    ]:
        vals = own.flatten().tolist()
        grown = own.resize_(2, 3, 4)
        assert grown.shape == (2, 3, 4) and grown.flatten()[: len(vals)].tolist() == vals
    buf = io.BytesIO()
    minitorch.save(minitorch.tensor([1.0, 2.0]), buf)
    buf.seek(0)
    assert minitorch.load(buf).resize_(5).shape == (5,)
    # a copied array keeps its strides, an empty one NumPy's
    f = minitorch.tensor(np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    assert f.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert minitorch.tensor(np.zeros((0, 3))).shape == (0, 3)


def test_fuzz_4432_checks_as_pytorch():
    """Fuzz seed 4432: addr expands input to the product's shape (ours broadcast the result past it), addmv's
    size check with PyTorch's message (a 0-d input's IndexError), lu_unpack's int32 pivots, F.pad's parser
    kinds and its mode checked first, a 0-d embedding table requiring grad, a NaN 0-d tensor p for the dropouts,
    masked_scatter_'s argument kinds before the mask's dtype"""
    T = minitorch
    F = T.nn.functional
    x = T.ones(1, 2, 3)
    for call, exc, msg in [
        (
            lambda: T.tensor([1.0, 2.0]).addr(T.tensor([1.0, 2.0]), T.tensor([1.0])),
            RuntimeError,
            (
                "The expanded size of the tensor (1) must match the existing size (2) at non-singleton "
                "dimension 1.  Target sizes: [2, 1].  Tensor sizes: [2]"
            ),
        ),
        (
            lambda: T.addr(T.ones(2, 2), T.ones(2, 1), T.ones(2)),
            RuntimeError,
            "addr: Expected 1-D argument vec1, but got 2-D",
        ),
        (
            lambda: T.addr(T.ones(2, 2), T.ones(2), T.ones(2, 1)),
            RuntimeError,
            "addr: Expected 1-D argument vec2, but got 2-D",
        ),
        (
            lambda: T.addmv(T.tensor(0.5), T.ones(3, 1), T.ones(3)),
            IndexError,
            "Dimension specified as 0 but tensor has no dimensions",
        ),
        (
            lambda: T.addmv(T.ones(2), T.ones(3, 1), T.ones(1)),
            RuntimeError,
            "size mismatch, got input (2), mat (3x1), vec (1)",
        ),
        (
            lambda: T.lu_unpack(T.ones(4, 1), T.tensor([2.0])),
            RuntimeError,
            "LU_pivots is expected to be a contiguous tensor of torch.int32 dtype",
        ),
        (
            lambda: T.lu_unpack(T.ones(2, 2), T.tensor([1, 2])),
            RuntimeError,
            "LU_pivots is expected to be a contiguous tensor of torch.int32 dtype",
        ),
        (
            lambda: F.pad(x, T.tensor([1, 1])),
            TypeError,
            "pad(): argument 'pad' (position 2) must be tuple of ints, not Tensor",
        ),
        (
            lambda: F.pad(x, T.tensor(1)),
            TypeError,
            "pad(): argument 'pad' (position 2) must be tuple of ints, not Tensor",
        ),
        (lambda: F.pad(x, 1), TypeError, "pad(): argument 'pad' (position 2) must be tuple of ints, not int"),
        (lambda: F.pad(x, (1, 1), 3), TypeError, "pad(): argument 'mode' (position 3) must be str, not int"),
        (lambda: F.pad(x, (1,), "foo"), NotImplementedError, "Unrecognised padding mode foo"),
        (lambda: F.pad(x, (1, 1), "foo"), NotImplementedError, "Unrecognised padding mode foo"),
        (lambda: F.pad(x, (1,)), RuntimeError, "Padding length must be divisible by 2"),
        (
            lambda: F.pad(x, [1.5, 1]),
            TypeError,
            "must be tuple of ints, but found element of type float at pos 0",
        ),
        (
            lambda: T.embedding(T.tensor(1.5, requires_grad=True), T.tensor([0])),
            IndexError,
            "Dimension specified as 0",
        ),
        (lambda: T.embedding(T.tensor(1.5), T.tensor([0])), RuntimeError, "'weight' must be 2-D"),
        (
            lambda: F.alpha_dropout(T.tensor(1.0), T.tensor(float("nan"))),
            RuntimeError,
            "between 0 and 1, but got nan",
        ),
        (lambda: F.alpha_dropout(T.tensor(1.0), float("nan")), RuntimeError, "between 0 and 1, but got nan"),
        (lambda: F.alpha_dropout(T.tensor(1.0), 1.5), ValueError, "between 0 and 1, but got 1.5"),
        (
            lambda: T.ones(1, 2).masked_scatter_(T.ones(1, 2), 3),
            TypeError,
            "masked_scatter_(): argument 'source' (position 2) must be Tensor, not int",
        ),
        (
            lambda: T.ones(1, 2).masked_scatter_(T.ones(1, 2), T.ones(2)),
            RuntimeError,
            "masked_scatter_ only supports boolean masks",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    # what PyTorch accepts: the product's shape from a broadcastable input, an index-like pad, int32 pivots
    r = T.addr(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0]), T.tensor([1.0, 3.0]))
    assert r.tolist() == [[2.0, 5.0], [3.0, 8.0]]
    assert T.addmv(T.tensor(0.5), T.ones(3, 2), T.ones(2)).tolist() == [2.5] * 3
    assert F.pad(x, [T.tensor(1), np.int64(1)]).shape == (1, 2, 5)
    assert F.pad(x, (1, 1), value=2.0)[0, 0].tolist() == [2.0, 1.0, 1.0, 1.0, 2.0]
    LU, piv = T.linalg.lu_factor(T.tensor([[1.0, 2.0], [3.0, 4.0]]))
    P, L, U = T.lu_unpack(LU, piv)
    assert np.allclose((P @ L @ U).numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert T.lu_unpack(LU, piv.long(), unpack_pivots=False)[0].numel() == 0
    m = T.tensor([[True, False]])
    assert T.zeros(1, 2).masked_scatter_(mask=m, source=T.ones(3)).tolist() == [[1.0, 0.0]]


def test_fuzz_4433_kinds_and_order():
    """Fuzz seed 4433: matrix_power's n takes what PyTorch's int parser takes (a 0-d integer tensor, a NumPy
    int), F.pad's int list too; smooth_l1_loss reads target.size() first as PyTorch's Python"""
    T = minitorch
    x = T.tensor([[1.0, 1.0], [0.0, 1.0]])
    for n in [T.tensor(3), T.tensor(3, dtype=T.int16), np.int64(3)]:
        assert T.linalg.matrix_power(x, n).tolist() == [[1.0, 3.0], [0.0, 1.0]]
        assert T.matrix_power(x, n).tolist() == [[1.0, 3.0], [0.0, 1.0]]
    assert T.nn.functional.pad(T.ones(1, 2), [T.tensor([1]), True]).shape == (1, 4)
    for call, exc, msg in [
        (
            lambda: T.linalg.matrix_power(T.ones(3), T.tensor(2)),
            RuntimeError,
            "must have at least 2 dimensions",
        ),
        (
            lambda: T.linalg.matrix_power(x, T.tensor(2.0)),
            TypeError,
            "argument 'n' (position 2) must be int, not Tensor",
        ),
        (lambda: T.matrix_power(x, True), TypeError, "argument 'n' (position 2) must be int, not bool"),
        (
            lambda: T.nn.functional.pad(T.ones(1, 2), [True, 1]),
            TypeError,
            "must be tuple of ints, but found element of type bool at pos 0",
        ),
        (
            lambda: T.nn.functional.smooth_l1_loss(T.ones(2), 1, T.tensor([0, 0])),
            AttributeError,
            "'int' object has no attribute 'size'",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()


def test_fuzz_4434_checks_as_pytorch():
    """Fuzz seed 4434: cdist/pdist refuse a NaN p; pdist of fewer than two rows returns before its dtype check;
    rrelu's bound kinds before the input's dtype; bernoulli of an empty integer tensor; linalg.cond of a
    non-tensor as PyTorch's parser"""
    T = minitorch
    F = T.nn.functional
    for call, exc, msg in [
        (
            lambda: T.cdist(T.ones(2, 1), T.ones(3, 1), float("nan")),
            RuntimeError,
            "cdist only supports non-negative p values",
        ),
        (
            lambda: F.pdist(T.ones(3, 5), float("nan")),
            RuntimeError,
            "pdist only supports non-negative p values",
        ),
        (
            lambda: F.rrelu(T.tensor([0, 5]), 0, "floor"),
            TypeError,
            "rrelu(): argument 'upper' (position 3) must be Number, not str",
        ),
        (
            lambda: F.rrelu_(T.tensor([0.0, 5.0]), "x"),
            TypeError,
            "rrelu_(): argument 'lower' (position 2) must be Number, not str",
        ),
        (
            lambda: F.rrelu(T.tensor([0, 5])),
            NotImplementedError,
            "leaky_relu_cpu\" not implemented for 'Long'",
        ),
        (lambda: T.bernoulli(T.ones(2, dtype=T.int32)), NotImplementedError, "not implemented for 'Int'"),
        (
            lambda: T.linalg.cond(0.001),
            TypeError,
            "linalg_cond(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: T.linalg.cond(0.001, -3),
            TypeError,
            "linalg_cond() received an invalid combination of arguments - got (float, int)",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    for n in (0, 1):
        d = F.pdist(T.ones(n, 5, dtype=T.float16), 1)
        assert d.shape == (0,) and d.dtype == T.float16
    assert F.pdist(T.ones(1, 3, requires_grad=True)).requires_grad
    assert T.bernoulli(T.empty(2, 0, 1, dtype=T.int32)).shape == (2, 0, 1)
    assert F.rrelu(T.tensor([0.0, -4.0]), T.tensor(0.25), np.float32(0.25)).tolist() == [0.0, -1.0]


def test_fuzz_4435_kinds_and_bool_targets():
    """Fuzz seed 4435: trapezoid's parser (a number for x), torch.broadcast_to's size one sequence, pdist's p a
    float, smooth_l1_loss's gradient with a bool target (PyTorch's kernel promotes it)"""
    T = minitorch
    y = T.tensor([1.0, 2.0, 4.0])
    for call, exc, msg in [
        (
            lambda: T.trapezoid(y, 2),
            TypeError,
            "trapezoid() received an invalid combination of arguments - got (Tensor, int)",
        ),
        (lambda: T.trapezoid(y, 2, dim=1), TypeError, "got (Tensor, int, dim=int)"),
        (lambda: T.trapezoid(y, dim=3), IndexError, "Dimension out of range"),
        (
            lambda: T.broadcast_to(T.ones(5), -1),
            TypeError,
            "broadcast_to(): argument 'size' (position 2) must be tuple of ints, not int",
        ),
        (
            lambda: T.pdist(T.empty(0), T.int16),
            TypeError,
            "pdist(): argument 'p' (position 2) must be float, not torch.dtype",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert T.trapezoid(y, T.tensor([0.0, 1.0, 3.0])).item() == 7.5 and T.trapezoid(y, dx=2).item() == 9.0
    assert T.broadcast_to(T.ones(1), T.Size([2])).shape == (2,) and T.ones(1).broadcast_to(3).shape == (3,)
    assert T.pdist(T.ones(3, 2), T.tensor(1.0)).shape == (3,)
    x = T.tensor([[0.77], [-2.5]], dtype=T.float64, requires_grad=True)
    T.nn.functional.smooth_l1_loss(x, T.tensor([[True], [False]]), beta=1.0).backward()
    assert np.allclose(x.grad.numpy(), [[-0.115], [-0.5]])


def test_fuzz_4436_parsers():
    """Fuzz seed 4436: torch.trapz checked under its own name and signatures (my 4435 parse of trapezoid had
    reached trapz's dx=None and turned its body's errors into TypeErrors), linalg.multi_dot's tensor list,
    cartesian_prod's elements, torch.ctc_loss's two signatures before F.ctc_loss's checks"""
    T = minitorch
    for call, exc, msg in [
        (
            lambda: T.trapz(T.tensor([[1.0, 2.0]]), T.tensor([[True, False]])),
            NotImplementedError,
            "received a bool input",
        ),
        (
            lambda: T.trapz(T.tensor(2.0), T.tensor(True)),
            IndexError,
            "Dimension specified as 0 but tensor has no dimensions",
        ),
        (
            lambda: T.trapz(T.tensor([1.0, 2.0]), 2),
            TypeError,
            "trapz() received an invalid combination of arguments - got (Tensor, int)",
        ),
        (
            lambda: T.linalg.multi_dot(T.ones(5, 2)),
            TypeError,
            "argument 'tensors' (position 1) must be tuple of Tensors, not Tensor",
        ),
        (lambda: T.cartesian_prod([]), TypeError, "expected Tensor as element 0 in argument 0, but got list"),
        (
            lambda: T.ctc_loss(T.ones(3), T.ones(3), 2.5, 0.001),
            TypeError,
            "got (Tensor, Tensor, float, float), but expected one of",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert T.trapz(T.tensor([1.0, 2.0, 4.0]), dx=2).item() == 9.0
    assert T.trapz(T.tensor([1.0, 2.0]), dx=T.tensor(2.0)).item() == 3.0
    assert T.cartesian_prod(T.tensor([1, 2]), T.tensor([3])).tolist() == [[1, 3], [2, 3]]
    assert T.linalg.multi_dot((T.ones(2, 3), T.ones(3))).tolist() == [3.0, 3.0]


def test_fuzz_4437_kinds_first():
    """Fuzz seed 4437: torch.is_inference and the torch.* dropouts read the input's kind first, index_select
    wraps dim before it reads the index"""
    T = minitorch
    for call, exc, msg in [
        (
            lambda: T.is_inference(4),
            TypeError,
            "is_inference(): argument 'input' (position 1) must be Tensor, not int",
        ),
        (
            lambda: T.feature_alpha_dropout(False, float("inf"), True),
            TypeError,
            "feature_alpha_dropout(): argument 'input' (position 1) must be Tensor, not bool",
        ),
        (
            lambda: T.dropout_(3, 0.5, True),
            TypeError,
            "dropout_(): argument 'input' (position 1) must be Tensor, not int",
        ),
        (
            lambda: T.ones(2).index_select(-3, T.tensor([1.5])),
            IndexError,
            "Dimension out of range (expected to be in range of [-1, 0], but got -3)",
        ),
        (
            lambda: T.ones(2).index_select(0, T.tensor([1.5])),
            RuntimeError,
            "index_select(): Expected dtype int32 or int64 for index",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert not T.is_inference(T.ones(1)) and T.dropout(T.ones(3), 0.0, True).tolist() == [1.0] * 3


def test_fuzz_4438_kinds_first():
    """Fuzz seed 4438: the torch.* losses check their tensor arguments first, torch.normal of two numbers
    takes a size only as a sequence"""
    T = minitorch
    a = T.tensor([1.5])
    for call, exc, msg in [
        (
            lambda: T.triplet_margin_loss(a, a, 0.5, -1.5),
            TypeError,
            "triplet_margin_loss(): argument 'negative' (position 3) must be Tensor, not float",
        ),
        (
            lambda: T.cosine_embedding_loss(a, 2, a),
            TypeError,
            "cosine_embedding_loss(): argument 'input2' (position 2) must be Tensor, not int",
        ),
        (
            lambda: T.hinge_embedding_loss(a, 1.0),
            TypeError,
            "hinge_embedding_loss(): argument 'target' (position 2) must be Tensor, not float",
        ),
        (
            lambda: T.margin_ranking_loss(a, a, 1),
            TypeError,
            "margin_ranking_loss(): argument 'target' (position 3) must be Tensor, not int",
        ),
        (
            lambda: T.normal(0, 3, 2),
            TypeError,
            "normal() received an invalid combination of arguments - got (int, int, int)",
        ),
        (
            lambda: T.normal(0.0, 3.0),
            TypeError,
            "normal() received an invalid combination of arguments - got (float, float)",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert T.normal(0, 3, (2,)).shape == (2,) and T.normal(0.0, 1.0, [3, 1]).shape == (3, 1)
    assert T.normal(0.0, 1.0, T.Size([2])).shape == (2,)


def test_fuzz_4439_checks_as_pytorch():
    """Fuzz seed 4439: zeta(nan, q) at a pole q is inf (Cephes' order), pairwise_distance's p and
    matrix_rank's tol kinds, cumsum_/cumprod_ of bool (PyTorch has no bool kernel; an empty one is left),
    multilabel_margin_loss's float and double only on the CPU"""
    T = minitorch
    F = T.nn.functional
    z = T.special.zeta(T.tensor([float("nan"), float("nan"), 2.0]), T.tensor([-2.0, 0.5, -2.0]))
    assert np.isinf(z[0].item()) and np.isnan(z[1].item()) and np.isinf(z[2].item())
    for call, exc, msg in [
        (
            lambda: F.pairwise_distance(T.ones(3), T.ones(3), "floor"),
            TypeError,
            "pairwise_distance(): argument 'p' (position 3) must be float, not str",
        ),
        (
            lambda: T.linalg.matrix_rank(T.tensor([False, True]), "replicate"),
            TypeError,
            "linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, str)",
        ),
        (
            lambda: T.tensor([[False, True]]).cumprod_(0),
            NotImplementedError,
            "\"cumprod_out_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: T.tensor([[False, True]]).cumsum_(0),
            NotImplementedError,
            "\"cumsum_out_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: F.multilabel_margin_loss(T.ones(3, dtype=T.float16), T.tensor([0, -1, 1])),
            NotImplementedError,
            "not implemented for 'Half'",
        ),
        (
            lambda: F.multilabel_margin_loss(T.ones(3, dtype=T.bfloat16), T.tensor([0, -1, 1])),
            NotImplementedError,
            "not implemented for 'BFloat16'",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert T.zeros(0, dtype=T.bool).cumprod_(0).shape == (0,)
    assert F.pairwise_distance(T.ones(1, 3), T.zeros(1, 3), T.tensor(1.0)).tolist() == pytest.approx([3.0])
    assert T.linalg.matrix_rank(T.eye(3), 0.5).item() == 3


def test_fuzz_4440_softmax_implicit_dim_warning():
    """Fuzz seed 4440: F.softmax/softmin/log_softmax without dim warn under their own names with the caller's
    _stacklevel, as PyTorch's _get_softmax_dim (None there raises in warnings.warn, as in PyTorch)"""
    F = minitorch.nn.functional
    x = minitorch.tensor([[1.0, 2.0]])
    for fn, name in [(F.softmax, "softmax"), (F.softmin, "softmin"), (F.log_softmax, "log_softmax")]:
        with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"):
            assert fn(x).shape == (1, 2)
        with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
            fn(minitorch.tensor(-0.5), None, None)


# ---- session 21 (par21): calls compared with PyTorch itself (the oracle), outcome for outcome

_PAR21_SOURCE = r"""
import json
import math
import warnings


def cases(torch, data):
    setup, calls = data

    def enc(v):
        if isinstance(v, torch.Tensor):
            vals = v.detach().cpu()
            vals = (torch.view_as_real(vals) if vals.dtype.is_complex else vals).tolist()
            vals = json.loads(json.dumps(vals).replace("NaN", '"nan"'))
            return ["tensor", str(v.dtype).replace("minitorch.", "torch."), list(v.shape), vals]
        if isinstance(v, (tuple, list)):
            return [type(v).__name__, [enc(e) for e in v]]
        if isinstance(v, float) and math.isnan(v):
            return ["float", "nan"]
        return [type(v).__name__, v if isinstance(v, (int, float, bool, str, type(None))) else repr(v)]

    out = []
    for call in calls:
        env = {"torch": torch, "F": torch.nn.functional}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                torch.manual_seed(0)
                exec(setup, env)
                out.append(enc(eval(call, env)))
            except Exception as e:  # noqa: BLE001 - the exception is the outcome
                out.append(["raises", type(e).__name__, str(e).splitlines()[0] if str(e) else ""])
    return out
"""


def _par21_compare(setup, calls):
    """Each call (an expression, after `setup` ran in a fresh namespace holding torch and F) answers as in
    PyTorch: the same dtype, shape and values, or the same exception type and first line of its message."""
    from utils import cases_here_and_in_pytorch

    ours, theirs = cases_here_and_in_pytorch(_PAR21_SOURCE, [("torch", minitorch)], [setup, calls])
    diffs = [f"{c}\n  ours:    {o}\n  PyTorch: {t}" for c, o, t in zip(calls, ours, theirs) if o != t]
    assert not diffs, "\n".join(diffs)


def test_par21_boolean_dispatch_pools_and_kl_div():
    """The pools with return_indices are PyTorch's boolean_dispatch pairs (the flag's truth picks
    X_with_indices or _X, which take every argument and fail in their own names); max_pool3d_with_indices reads
    input.is_cuda before its parser; the adaptive 3-D pool takes len() of its size first; kl_div settles its
    reduction (get_enum's ValueError for a non-string) before torch.kl_div's parser"""
    setup = (
        "x = torch.arange(64.).reshape(1, 1, 4, 4, 4); y = torch.arange(16.).reshape(1, 2, 8)\n"
        "a = torch.tensor([[-1.0, -2.0], [-0.5, -3.0]]); b = torch.tensor([[0.25, 0.75], [0.5, 0.5]])"
    )
    calls = [
        "F.max_pool3d(x, 2, return_indices=1)",
        "F.max_pool3d(x, 2, 2, 0, 1, False, torch.tensor(0))",
        "F.max_pool3d(x, 2, 2, 0, 1, False, torch.tensor([1, 2]))",
        "F.max_pool3d(x, 2, return_indices='a')",
        "F.max_pool3d(x, 2, return_indices=[])",
        "F.max_pool3d(x, 2, 2, 0, 1, False, 0, 3)",
        "F.max_pool3d(x, 2, foo=1)",
        "F.max_pool3d_with_indices(x, 2, 2, 0, 1, False, 0)",
        "F.max_pool3d_with_indices(1, 2)",
        "F.max_pool3d([1], 2, return_indices=True)",
        "F.max_pool3d(None, 2)",
        "F.max_pool2d(x[0], 2, return_indices=2)",
        "F.max_pool2d(x[0], 2, foo=2, return_indices=True)",
        "F.max_pool1d(y, 2, return_indices=2.5)",
        "F.max_pool1d(1, 2, return_indices=True)",
        "F.max_pool1d(1, 2)",
        "F.adaptive_max_pool1d(y, 3, return_indices=1)",
        "F.adaptive_max_pool1d(y, 3, torch.tensor(0))",
        "F.adaptive_max_pool1d(y, 3, torch.tensor([1, 0]))",
        "F.adaptive_max_pool1d(y, 3, 1, 2)",
        "F.adaptive_max_pool1d(y, 3, foo=2)",
        "F.adaptive_max_pool2d(x[0], 2, torch.tensor(1.0))",
        "F.adaptive_max_pool2d(x[0], 2, return_indices=1, foo=2)",
        "F.adaptive_max_pool2d(x[0], [None, 2], 'yes')",
        "F.adaptive_max_pool3d(x, 2, [1])",
        "F.adaptive_max_pool3d(x, [None, 2], True)",
        "F.adaptive_max_pool3d(x, 2.5, True)",
        "F.adaptive_max_pool3d(x, torch.tensor(2))",
        "F.adaptive_max_pool3d(1, 2, True)",
        "F.fractional_max_pool2d(x[0], 2, output_size=2, return_indices=1, _random_samples=torch.full((1, 1, 2), 0.5))",
        "F.fractional_max_pool3d(x, 2, 2, None, torch.tensor(1), torch.full((1, 1, 3), 0.5))",
        "F.kl_div(a, b)",
        "F.kl_div(a, b, log_target=1)",
        "F.kl_div(a, b, log_target=torch.tensor([True, False]))",
        "F.kl_div(a, b, reduction=1)",
        "F.kl_div(a, b, reduction=None)",
        "F.kl_div(a, b, reduction=torch.tensor(1))",
        "F.kl_div(a, b, reduction=b'sum')",
        "F.kl_div(a, b, reduction=['sum'])",
        "F.kl_div(a, b, reduction='elementwise_mean')",
        "F.kl_div(a, b, reduction='batchmean')",
        "F.kl_div(a, b, size_average=False)",
        "F.kl_div(a, b, reduce=torch.tensor([1, 1]))",
        "F.kl_div(1, b, reduction=1)",
        "F.kl_div(a, 1.0, reduction='none')",
        "torch.kl_div(a, b, 1)",
    ]
    _par21_compare(setup, calls)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minitorch.kl_div(minitorch.ones(2), minitorch.ones(2), 1)  # the C++ op's spelling: no warning
        with pytest.raises(UserWarning, match="'batchmean' divides only by the batch size"):
            minitorch.nn.functional.kl_div(minitorch.ones(2), minitorch.ones(2))


def test_par21_fractional_max_pool_check_order():
    """fractional_max_pool2d/3d: PyTorch's Python (output_size or output_ratio, the 2-D ratio's len(), default
    samples), its op's parser, then ATen's checks in their order: kernel and output lengths, kernel > 0, rank,
    empty non-batch dims, too-large pools (3-D: time, width, height, strictly), a negative output size, then
    the samples' dtype, rank, batch, channels and length, and the dtype dispatch an empty output never reaches"""
    setup = (
        "x = torch.arange(72.).reshape(2, 1, 6, 6); r = torch.full((2, 1, 2), 0.5)\n"
        "y = torch.arange(432.).reshape(2, 1, 6, 6, 6); r3 = torch.full((2, 1, 3), 0.5)\n"
        "P = F.fractional_max_pool2d; P3 = F.fractional_max_pool3d"
    )
    calls = []
    for k, o, s, extra in [
        ("2", "3", "r", ""),
        ("2", "None", "r", ""),
        ("2", "None", "r", ", output_ratio=0.5"),
        ("2", "None", "r", ", output_ratio=(0.5, 0.5)"),
        ("2", "None", "r", ", output_ratio=(0.5, 0.5, 0.5)"),
        ("2", "None", "r", ", output_ratio=torch.tensor(0.5)"),
        ("(2, 2, 2)", "3", "r", ""),
        ("2", "(3,)", "r", ""),
        ("2.5", "3", "r", ""),
        ("True", "3", "r", ""),
        ("[2, None]", "3", "r", ""),
        ("torch.tensor([2])", "[torch.tensor(3), 3]", "r", ""),
        ("0", "0", "r.double()", ""),
        ("7", "3", "r.double()", ""),
        ("2", "-1", "r.double()", ""),
        ("9", "-1", "r", ""),
        ("2", "3", "r.double()", ""),
        ("2", "3", "r[0]", ""),
        ("2", "3", "r[:1, :, :1]", ""),
        ("2", "3", "r[:, :0]", ""),
        ("2", "3", "r[:, :, :1]", ""),
        ("2", "3", "[0.5]", ""),
        ("2", "[0, 3]", "r[:, :, :1]", ""),
    ]:
        calls.append(f"P(x, {k}, {o}, _random_samples={s}, return_indices=True{extra})")
    calls += [
        "P(x[0, 0], 0, 3, _random_samples=r)",
        "P(x[0, 0], 2, 3, _random_samples=r)",
        "P(x[:, :0], 2, 3, _random_samples=r)",
        "P(x[0, :, :0], 2, 3, _random_samples=r)",
        "P(x[0][:0], 2, 3, _random_samples=r)",
        "P(x[:0], 2, 3, _random_samples=r, return_indices=True)",
        "P(x.int(), 2, 3, _random_samples=r.int())",
        "P(x.int(), 2, [0, 3], _random_samples=r.int(), return_indices=True)",
        "P(x.bool(), 2, 3, _random_samples=r.bool())",
        "P(x.double(), 2, 3, _random_samples=r.double(), return_indices=True)",
        "P(x.transpose(2, 3), 3, 2, _random_samples=torch.tensor([[[0.2, 0.9]], [[0.7, 0.1]]]), return_indices=True)",
        "P(x[0], 2, 3, _random_samples=r[:1], return_indices=True)",
        "P(x, 2, 3, None, False, r, 5)",
        "P(1, 2, output_size=2)",
        "P3(y, 2, 3, _random_samples=r3, return_indices=True)",
        "P3(y, 2, output_ratio=0.5, _random_samples=r3)",
        "P3(y, 2, output_ratio=(0.5, 0.5))",
        "P3(y, (2, 2), 3, _random_samples=r3)",
        "P3(y, 2, (3, 3), _random_samples=r3)",
        "P3(y[0, 0], 0, 3, _random_samples=r3)",
        "P3(y[0, 0], 2, 3, _random_samples=r3)",
        "P3(y[:, :, :0], 2, 3, _random_samples=r3)",
        "P3(y, 2, [5, 3, 3], _random_samples=r3)",
        "P3(y, 2, [4, 4, 4], _random_samples=r3)",
        "P3(y, 2, [3, 5, 5], _random_samples=r3)",
        "P3(y, 2, [3, 5, 3], _random_samples=r3)",
        "P3(y, 2, [-1, 3, 3], _random_samples=r3.double())",
        "P3(y, 2, 3, _random_samples=r3[:, :, :2])",
        "P3(y.int(), 2, 3, _random_samples=r3.int())",
        "P3(y[:0].int(), 2, 3, _random_samples=r3.int(), return_indices=True)",
    ]
    _par21_compare(setup, calls)


def test_par21_int_lists_read_as_pytorchs_parser():
    """Int lists (view, reshape, permute, expand, repeat, flip, sum's dims, the factories' sizes, split's sizes):
    an element is an int, or anything with __index__ but a bool first, or a one-element integer or bool tensor
    (a SymInt list reads a bool one by item(), whose check refuses it); separate ints only where the first
    argument is one; PyTorch's TypeErrors word a bad first element, a later one, a keyword's whole value"""
    setup = (
        "x = torch.arange(24.).reshape(2, 3, 4); i0 = torch.tensor(0); i1 = torch.tensor(1)\n"
        "i2 = torch.tensor(2); f1 = torch.tensor(1.0); v1 = torch.tensor([1]); b1 = torch.tensor(True)"
    )
    calls = [
        "x.permute(i2, i0, i1).shape",
        "x.permute([i2, v1, 0]).shape",
        "x.permute([b1, 0, 2]).shape",
        "x.permute(b1, 0, 2).shape",
        "x.permute([0, b1, 2]).shape",
        "x.permute(f1, 0, 2)",
        "x.permute([2, f1, 0])",
        "x.permute([f1, 0, 2])",
        "x.permute(dims=[f1, 0, 1])",
        "x.permute(dims=(i1, 0, f1))",
        "x.permute(dims=2)",
        "torch.permute(x, (2, b1, 0)).shape",
        "torch.permute(x, [f1, 0, 2])",
        "torch.permute(x, i1)",
        "x.view(i2, 12).shape",
        "x.view([12, v1 * 2]).shape",
        "x.view(24, True).shape",
        "x.view(i2 * 12, b1)",
        "x.view(f1 * 24)",
        "x.view([f1 * 24])",
        "x.view(f1, 2)",
        "x.view(12, torch.tensor(2.))",
        "x.view(size=2)",
        "x.view(size=[f1])",
        "x.view(2, size=[2])",
        "x.view([12, 2], dtype=torch.float32)",
        "x.view(24, dtype=torch.float32)",
        "x.view(size=[24], dtype=torch.float32)",
        "x.view(dtype=torch.int32).shape",
        "x.reshape((-1, v1 * 4)).shape",
        "x.reshape((-1, f1 * 4))",
        "x.reshape(f1)",
        "x.reshape(shape=24)",
        "torch.reshape(x, (f1 * 2, -1))",
        "x.expand(v1 * 2, 2, 3, 4).shape",
        "x.expand(f1, 2, 3, 4)",
        "x.expand(size=24)",
        "x.expand(size=[2, 3, 4, f1])",
        "x.repeat(i2, 1, 1).shape",
        "x.repeat([1, i2, 1]).shape",
        "x.repeat([2, True, 1]).shape",
        "x.repeat([True, 2, 1])",
        "x.repeat(f1, 1, 1)",
        "x.repeat(b1, 1, 1)",
        "x.repeat(repeats=[i2, 1, 1]).shape",
        "x.repeat(repeats=[f1, 1, 1])",
        "x.tile(f1)",
        "torch.tile(x, [f1])",
        "torch.tile(x, [i2]).shape",
        "x.flip([i0, i1]).tolist()",
        "x.flip(v1).tolist()",
        "x.flip(dims=[f1])",
        "x.sum(dim=[i0, v1]).tolist()",
        "x.sum([0, f1])",
        "torch.zeros(i2, 3).shape",
        "torch.zeros(2, True).shape",
        "torch.zeros(f1, 3)",
        "torch.zeros([f1])",
        "torch.zeros(i2, f1)",
        "torch.zeros(size=(f1,))",
        "torch.zeros(True)",
        "torch.zeros(b1, 2)",
        "torch.full(3, 1.0)",
        "x.new_full((i2, b1), 1.0)",
        "x.new_zeros(f1, 2)",
        "x.new_empty(f1)",
        "torch.randint(3, (2, f1))",
        "x.unflatten(2, (2, f1))",
        "x.broadcast_to([2, 3, f1])",
        "torch.broadcast_to(x, (i2, 3, 4)).shape",
        "x.clone().resize_(size=[2, 12]).shape",
        "x.clone().resize_(2, size=[2])",
        "x.clone().resize_(f1, 2)",
        "x.clone().resize_([f1, 2])",
        "torch.zeros(3).sum(2**70)",
    ]
    _par21_compare(setup, calls)


def test_par21_split_as_pytorchs_python():
    """torch.split is tensor.split(...) (AttributeError for a plain value); a tensor size becomes int(size)
    where one element converts, an int (a bool too) goes to split's two signatures, the rest to
    split_with_sizes, each with its own errors"""
    setup = (
        "x = torch.arange(10.).reshape(5, 2); i2 = torch.tensor(2); f2 = torch.tensor(2.5)\n"
        "v2 = torch.tensor([2]); b1 = torch.tensor(True); import numpy as np"
    )
    calls = [
        "torch.split(x, i2)",
        "torch.split(x, f2)",
        "torch.split(x, v2)",
        "torch.split(x, torch.tensor([[2]]))",
        "torch.split(x, b1)",
        "torch.split(x, torch.tensor([2, 3]))",
        "torch.split(x, torch.tensor(float('nan')))",
        "torch.split(x, torch.tensor(-2.5))",
        "torch.split(x, True)",
        "torch.split(x, 2.5)",
        "torch.split(x, [i2, 3])",
        "torch.split(x, [f2, 3])",
        "torch.split(x, [2, f2])",
        "torch.split(x, [True, 4])",
        "torch.split(x, [6, -1])",
        "torch.split(x, -1)",
        "torch.split(x, 2, torch.tensor(1))",
        "torch.split(x, 2, f2)",
        "torch.split(x, 2, 1.0)",
        "torch.split(x, [1, 1], 1.0)",
        "torch.split(x, 2, dim=None)",
        "torch.split(x, None)",
        "torch.split(x, 'a')",
        "torch.split(1, 2)",
        "torch.split([1, 2], 1)",
        "torch.split(x, np.int64(2))",
        "x.split(f2)",
        "x.split(True)",
        "x.split([1, 1], None)",
        "x.split(split_size=[2, 3], dim=0)",
    ]
    _par21_compare(setup, calls)


def test_par21_round_decimals_and_out():
    """torch.round's two signatures (its own, decimals'), out= counted among the arguments as PyTorch's
    signatures hold it: a bad decimals is the combination where both could take the call, its own error where
    only decimals' can; an op of its input's own dtype writes no out of another (Found dtype ...)"""
    setup = (
        "x = torch.tensor([1.25, -5.75, 2.5]); o = torch.empty(3); od = torch.empty(3, dtype=torch.float64)\n"
        "oi = torch.empty(3, dtype=torch.int64); i = torch.tensor([15, 25])"
    )
    calls = [
        "torch.round(x, decimals=1)",
        "torch.round(x, decimals=1.5)",
        "torch.round(x, decimals=torch.tensor(1.0))",
        "torch.round(x, decimals=torch.tensor(1))",
        "torch.round(x, decimals=None)",
        "torch.round(x, decimals=True)",
        "torch.round(x, decimals=[1])",
        "torch.round(x, 1)",
        "torch.round(x, decimal=1)",
        "torch.round(x, decimals=1, foo=2)",
        "torch.round(3, decimals=1)",
        "torch.round(3)",
        "torch.round(x, decimals=1.5, out=o)",
        "torch.round(x, decimals=None, out=o)",
        "torch.round(x, decimals=1, out=o)",
        "torch.round(x, decimals=1, out=od)",
        "torch.round(x, out=od)",
        "torch.round(x, out=oi)",
        "torch.round(i, decimals=-1)",
        "torch.round(i, out=od)",
        "torch.floor(x, out=od)",
        "torch.neg(x, out=oi)",
        "torch.abs(x + 1j, out=od.float())",
        "torch.sin(x, out=od)",
        "x.round(decimals=1.5)",
        "x.clone().round_(decimals=None)",
        "torch.round(x, decimals=np.int64(1))",
    ]
    _par21_compare(setup + "\nimport numpy as np", calls)


def test_par21_foreach_functions():
    """torch._foreach_*: each tensor of the list as the op on it (broadcasting, promotion, its errors), with
    PyTorch's overloads (a number, numbers, a 0-dim tensor, tensors), list checks and TypeErrors; the in-place
    ones return the list they were given, the others a tuple"""
    setup = (
        "a = [torch.tensor([1.0, 2.0]), torch.tensor([[3.0], [4.0]])]; b = [torch.tensor([0.5, 0.25]), "
        "torch.tensor([[2.0], [1.0]])]\nc = [torch.tensor([1.0, 1.0]), torch.tensor([[0.5], [4.0]])]; "
        "ai = [torch.tensor([1, 2]), torch.tensor([3])]\nx = [t.clone() for t in a]"
    )
    calls = [
        "torch._foreach_add(a, 1)",
        "torch._foreach_add(a, [1, 2.5])",
        "torch._foreach_add(a, b, alpha=2)",
        "torch._foreach_add(a, torch.tensor(2.0), alpha=3)",
        "torch._foreach_add(a, b[::-1])",
        "torch._foreach_add(ai, [1, 2.5])",
        "torch._foreach_add(a, 1j)",
        "torch._foreach_add(a, [1])",
        "torch._foreach_add(a, b[:1])",
        "torch._foreach_add([], 1)",
        "torch._foreach_add(a, [])",
        "torch._foreach_add(a, 1, alpha=2)",
        "torch._foreach_add(a, torch.tensor([1.0, 2.0]))",
        "torch._foreach_add(a[0], 1)",
        "torch._foreach_add(a, None)",
        "torch._foreach_add(a, [b[0], 1])",
        "torch._foreach_add([a[0]], [torch.ones(3)])",
        "torch._foreach_mul(a, [2, 3])",
        "torch._foreach_mul(a, torch.tensor(3.0))",
        "torch._foreach_mul(a, b, alpha=2)",
        "torch._foreach_sub(a, b, alpha=2)",
        "torch._foreach_sub([torch.tensor([True])], 1)",
        "torch._foreach_div(ai, 2)",
        "torch._foreach_div(a, [2, 4])",
        "torch._foreach_maximum(a, [2.5, 1])",
        "torch._foreach_maximum(a, b)",
        "torch._foreach_sqrt([torch.tensor([4.0, 9.0]), torch.tensor([16])])",
        "torch._foreach_sqrt(a, 1)",
        "torch._foreach_neg(ai)",
        "torch._foreach_exp([torch.tensor([0.0])])",
        "torch._foreach_norm(a)",
        "torch._foreach_norm(a, 1, dtype=torch.float64)",
        "torch._foreach_norm(ai)",
        "torch._foreach_norm(a[0])",
        "torch._foreach_lerp(a, b, 0.5)",
        "torch._foreach_lerp(a, b, c)",
        "torch._foreach_addcmul(a, b, c)",
        "torch._foreach_addcdiv(a, b, c, 2)",
        "(torch._foreach_add_(x, 1) is x, x)",
        "(torch._foreach_mul_(x, b), x)",
        "(torch._foreach_sub_(x, [1, 1]), x)",
        "(torch._foreach_div_(x, torch.tensor(2.0)), x)",
        "(torch._foreach_maximum_(x, 0.75), x)",
        "(torch._foreach_lerp_(x, b, [0.5, 0.25]), x)",
        "(torch._foreach_addcmul_(x, b, c, torch.tensor([1.0, 2.0])), x)",
        "(torch._foreach_addcdiv_(x, b, c, value=2), x)",
        "(torch._foreach_neg_(x), x)",
        "(torch._foreach_zero_(x) is x, x)",
        "(torch._foreach_copy_(x, ai), x)",
        "torch._foreach_addcmul_(x, b, c, torch.tensor([1.0]))",
        "torch._foreach_addcdiv_(x, b, c, torch.tensor([[1.0, 2.0]]))",
        "torch._foreach_addcmul_(x, b, c, [1])",
        "torch._foreach_lerp_(x, b[:1], 0.5)",
        "torch._foreach_copy_(x, b[:1])",
        "torch._foreach_add_(ai, 1.5)",
        "torch._foreach_zero_([])",
    ]
    _par21_compare(setup, calls)


def test_par21_index_add_empty_and_check_order():
    """index_add's checks in PyTorch's order (index rank, dtype, the dtypes, source's dim, the number of indices,
    the shapes but the dim, a 0-dim tensor's all of it); nothing to add to or from checks no index"""
    calls = [
        "torch.zeros(0, 4).index_add_(0, torch.tensor([0]), torch.zeros(1, 4))",
        "torch.zeros(0, 4).index_add_(1, torch.tensor([5]), torch.zeros(0, 1))",
        "torch.zeros(2, 0).index_add_(0, torch.tensor([5]), torch.zeros(1, 0))",
        "torch.zeros(0, 4).index_add(0, torch.tensor([0, 0]), torch.zeros(2, 4), alpha=2)",
        "torch.zeros(0, 4).index_add_(0, torch.tensor(0), torch.zeros(1, 4))",
        "torch.zeros(0, 4).index_add_(0, torch.tensor([0]), torch.zeros(4))",
        "torch.zeros(0).index_add_(0, torch.tensor([0]), torch.zeros(1))",
        "torch.zeros(3, 4).index_add_(0, torch.tensor([[0.]]), torch.zeros(1, 4))",
        "torch.zeros(3, 4).index_add_(0, torch.tensor([0]), torch.zeros(2, 4, dtype=torch.float64))",
        "torch.zeros(3, 4).index_add_(1, torch.tensor([0]), torch.zeros(4))",
        "torch.zeros(3, 4).index_add_(1, torch.tensor([0]), torch.zeros(()))",
        "torch.zeros(3, 4).index_add_(0, torch.tensor([0, 1]), torch.zeros(1, 5))",
        "torch.zeros(3).index_add_(0, torch.tensor([0]), torch.zeros(()))",
        "torch.zeros(()).index_add_(0, torch.tensor([0]), torch.zeros(1))",
        "torch.zeros(()).index_add_(0, torch.tensor([0]), torch.ones(()))",
        "torch.zeros(3, 4).index_add(0, torch.tensor([2, 0]), torch.ones(2, 4))",
        "torch.zeros(3, 4).index_add(0, torch.tensor([3]), torch.zeros(1, 4))",
        "torch.zeros(3).index_add_(0, torch.tensor([5]), torch.zeros(1))",
    ]
    _par21_compare("", calls)


def test_par21_topk_ties():
    """topk over ties: the values are PyTorch's; the indices of equal values are ours in index order (a stable
    sort), where PyTorch's CPU order is what its partial sort leaves (docs/reliability.md's row): the case
    pinned here shows both, so a change on either side shows"""
    setup = "x = torch.tensor([1., 3., 3., 2., 3., 1., 1., 2.]); y = torch.tensor([[5, 5, 1, 5, 1], [2, 2, 2, 2, 2]])"
    calls = [
        "torch.topk(x, 3)",
        "torch.topk(x, 5, largest=False)",
        "torch.topk(y, 3)",
        "torch.topk(torch.zeros(100), 7)",
        "torch.topk(torch.tensor([float('nan'), 1., float('nan'), 1.]), 3)",
    ]
    from utils import cases_here_and_in_pytorch

    ours, theirs = cases_here_and_in_pytorch(_PAR21_SOURCE, [("torch", minitorch)], [setup, calls])
    for o, t in zip(ours, theirs):
        assert o[0] == t[0] == "topk" and o[1][0] == t[1][0]  # the same values
    assert [o[1][1][3] for o in ours] == [
        [1, 2, 4],
        [0, 5, 6, 3, 7],
        [[0, 1, 3], [0, 1, 2]],
        [0, 1, 2, 3, 4, 5, 6],
        [0, 2, 1],
    ]
    assert [t[1][1][3] for t in theirs] == [
        [1, 4, 2],
        [5, 6, 0, 3, 7],
        [[0, 3, 1], [2, 4, 3]],
        [65, 68, 67, 66, 69, 64, 63],
        [0, 2, 3],
    ]


def test_fuzz_4441_kinds_and_order():
    """Fuzz seed 4441: cumulative_trapezoid's parser, hardtanh's Number bounds (a 0-d tensor, not a 1-d one),
    the dropouts' float p, matrix_norm's checks in PyTorch's order (dtype before the dims)"""
    T = minitorch
    F = T.nn.functional
    for call, exc, msg in [
        (
            lambda: T.cumulative_trapezoid(T.tensor(0.98), -0.5),
            TypeError,
            "cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, float)",
        ),
        (
            lambda: F.hardtanh(T.tensor([-3]), T.tensor([False])),
            TypeError,
            "hardtanh(): argument 'min_val' (position 2) must be Number, not Tensor",
        ),
        (
            lambda: F.feature_alpha_dropout(T.ones(2, 2), T.tensor([0]), True),
            TypeError,
            "feature_alpha_dropout(): argument 'p' (position 2) must be float, not Tensor",
        ),
        (
            lambda: F.alpha_dropout(T.ones(2, 2), T.tensor([0.0]), True, True),
            TypeError,
            "alpha_dropout_(): argument 'p' (position 2) must be float, not Tensor",
        ),
        (
            lambda: T.nuclear_norm(T.tensor([[False, False], [True, True]]), dim=0),
            NotImplementedError,
            "Expected a floating point or complex tensor as input. Got Bool",
        ),
        (
            lambda: T.nuclear_norm(T.ones(5, 1, 1, dtype=T.bfloat16), dim=1),
            NotImplementedError,
            "Low precision dtypes not supported. Got BFloat16",
        ),
        (
            lambda: T.linalg.matrix_norm(T.ones(2, 2, dtype=T.float16), 1, dim=(0, 0)),
            RuntimeError,
            "dims must be different. Got (0, 0)",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    assert T.cumulative_trapezoid(T.tensor([1.0, 2.0, 4.0]), dx=2).tolist() == [3.0, 9.0]
    assert F.hardtanh(T.tensor([-3.0, 3.0]), T.tensor(0.0)).tolist() == [0.0, 1.0]
    assert F.dropout(T.ones(2), T.tensor(0.0), True).tolist() == [1.0, 1.0]


def test_fuzz_4443_dropout_check_order():
    """Fuzz seed 4443: F's dropouts check p's range (F's Python) before the input's kind (ATen's parser), then
    p's kind, then a NaN p (the kernel)"""
    F = minitorch.nn.functional
    for call, exc, msg in [
        (
            lambda: F.alpha_dropout(3, -0.5),
            ValueError,
            "dropout probability has to be between 0 and 1, but got -0.5",
        ),
        (lambda: F.feature_alpha_dropout(3, float("inf")), ValueError, "but got inf"),
        (
            lambda: F.alpha_dropout(3, 0.5),
            TypeError,
            "alpha_dropout(): argument 'input' (position 1) must be Tensor, not int",
        ),
        (
            lambda: F.dropout(3, float("nan")),
            TypeError,
            "dropout(): argument 'input' (position 1) must be Tensor, not int",
        ),
        (lambda: F.dropout(minitorch.ones(2), float("nan")), RuntimeError, "but got nan"),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()


def test_fuzz_4444_setitem_value_loses_leading_ones():
    """Fuzz seed 4444: x[key] = v with v of another shape drops v's leading size-1 dims first, as PyTorch's
    slicePrefix1sSize (`x[...] = y[None]` raised "output with shape ... doesn't match the broadcast shape")"""
    T = minitorch
    x = T.zeros(3, 1, 2)
    x[...] = T.arange(6.0).reshape(1, 3, 1, 2)
    assert x.flatten().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    y = T.zeros(3, 2)
    y[0] = T.tensor([[[1.0, 2.0]]])
    y[T.tensor([1, 2])] = T.tensor([[[3.0, 4.0], [5.0, 6.0]]])
    assert y.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    m = T.zeros(2, 2)
    m[m == 0] = T.ones(1, 1, 4)
    assert m.sum().item() == 4.0
    w = T.zeros(2, requires_grad=True)
    z = T.zeros(1, 2)
    z[0] = w.reshape(1, 1, 2) * 2  # the history through the dropped dims
    z.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError):  # only leading ones go (PyTorch's words are expand's, ours copy_'s)
        y[0] = T.ones(2, 1, 2)


def test_fuzz_4445_numpy_pins_the_storage():
    """Fuzz seed 4445 (the fuzzer reads every input with .numpy()): as PyTorch's, a storage NumPy has seen no
    longer grows (the array would stay on the old memory and miss later writes); shrinking and other storages
    still work"""
    T = minitorch
    for make in (lambda t: t.numpy(), np.asarray, lambda t: t[0:1].numpy(), lambda t: t.data.numpy()):
        t = T.zeros(2)
        a = make(t)
        with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
            t.resize_(3)
        t.resize_(1)
        t.fill_(3.0)
        assert a.ravel()[0] == 3.0  # still the same memory
    e = T.empty(0)
    e.numpy()
    with pytest.raises(RuntimeError, match="not resizable"):
        e.resize_([3])
    t = T.zeros(2)
    t.numpy()
    c = t.clone()
    c.resize_(3)  # a copy's storage is its own
    assert c.shape == (3,)
    t.share_memory_()
    t.add_(1)
    assert t.tolist() == [1.0, 1.0]
    u = T.zeros(2)
    u.tolist()  # no NumPy view: still resizable
    assert u.resize_(5).shape == (5,)


def test_fuzz_4445_check_orders_and_fills():
    """Fuzz seed 4445: float16/bfloat16 fills take any double unchecked (inf), as PyTorch's fill; cross
    entropy of an empty integer input meets nll's checks (log_softmax returns before its dtype check); the
    losses read target.size() before the legacy reduction; SymInt arguments take one-element tensors"""
    T, F = minitorch, minitorch.nn.functional
    assert T.full([], 1e30, dtype=T.float16).item() == math.inf
    assert T.zeros(1, dtype=T.bfloat16).fill_(-1e300).item() == -math.inf
    assert T.tensor(1.0, dtype=T.float16).new_full([1], 1e30).tolist() == [math.inf]
    with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half without overflow"):
        T.tensor(1.0, dtype=T.float16).new_full(
            [2], 1e30
        )  # two elements: PyTorch's kernel checks (seed 4496)
    for call, exc, msg in [
        (lambda: T.full([1], 1e40, dtype=T.float32), RuntimeError, "value cannot be converted to type float"),
        (lambda: T.zeros(1, dtype=T.float16).fill_(1 + 2j), RuntimeError, "to type double without overflow"),
        (
            lambda: T.zeros(1, dtype=T.float16).index_fill(0, T.tensor([0]), 1e30),
            RuntimeError,
            "value cannot be converted to type c10::Half without overflow",
        ),
        (
            lambda: T.zeros(1, dtype=T.float16).masked_fill(T.tensor([True]), 1e30),
            RuntimeError,
            "value cannot be converted to type c10::Half without overflow",
        ),
        (
            lambda: F.cross_entropy(T.empty((0, 3), dtype=T.int64), T.tensor([1, 2, 1])),
            ValueError,
            "Expected input batch_size (0) to match target batch_size (3).",
        ),
        (
            lambda: F.cross_entropy(T.empty((0, 3), dtype=T.int64), T.empty(0, dtype=T.int64)),
            NotImplementedError,
            "\"nll_loss_out_frame\" not implemented for 'Long'",
        ),
        (
            lambda: F.cross_entropy(T.empty((0, 3, 2), dtype=T.int64), T.empty((0, 2), dtype=T.int64)),
            NotImplementedError,
            "\"nll_loss2d_forward_out_frame\" not implemented for 'Long'",
        ),
        (
            lambda: F.cross_entropy(T.empty((0, 3), dtype=T.int32), T.empty(0, dtype=T.int32)),
            RuntimeError,
            "expected target dtype to be Long or Byte, but got Int",
        ),
        (
            lambda: F.cross_entropy(T.ones((2, 3), dtype=T.int64), T.tensor([1, 2])),
            NotImplementedError,
            "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'",
        ),
        (lambda: F.l1_loss(T.ones(2), -1, T.ones(2)), AttributeError, "'int' object has no attribute 'size'"),
        (lambda: F.mse_loss(T.ones(2), 3, T.ones(2)), AttributeError, "'int' object has no attribute 'size'"),
        (
            lambda: T.arange(6.0).unfold(0, T.tensor([2]), 1),
            TypeError,
            "unfold(): argument 'size' (position 2) must be int, not Tensor",
        ),
        (
            lambda: T.narrow_copy(T.arange(6.0), 0, T.tensor([1, 2]), 2),
            TypeError,
            "narrow_copy(): argument 'start' (position 3) must be int, not Tensor",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    x = T.arange(6.0).reshape(1, 6, 1)
    assert T.narrow_copy(x, 1, T.tensor([1]), T.tensor([[2]])).flatten().tolist() == [1.0, 2.0]
    assert T.slice_copy(x, 1, T.tensor([1]), T.tensor([[5]]), T.tensor([2])).flatten().tolist() == [1.0, 3.0]
    assert x.unfold(1, T.tensor(2), 3).shape == (1, 2, 1, 2)
    r = F.cross_entropy(T.empty((0, 3), dtype=T.int64), T.empty((0, 3)))  # ATen's composite: a float NaN
    assert r.dtype == T.float32 and math.isnan(r.item())


def test_fuzz_4446_half_scans_and_small_fixes():
    """Fuzz seed 4446: float16/bfloat16 cumsum/cumprod run in float as PyTorch's CPU scans (at::acc_type: a
    product past float's range is inf, and inf * 0 NaN, where double held it); mse_loss's backward with a bool
    target; Hardtanh's deprecated min_value/max_value; F.relu_'s input check; select_scatter's SymInt index"""
    T, F = minitorch, minitorch.nn.functional
    r = T.cumprod(T.tensor([-1e30, 1.39, -1e30, -0.0, 0.5], dtype=T.bfloat16), 0).float().tolist()
    assert r[2] == math.inf and math.isnan(r[3]) and math.isnan(r[4])
    assert T.cumprod(T.tensor([3e38, 10.0, 0.0]), 0).tolist()[2] == 0.0  # float32 still in double
    x16 = T.full((300,), 0.1, dtype=T.float16)
    ref = np.cumsum(np.full(300, np.float16(0.1), dtype=np.float32), dtype=np.float32).astype(np.float16)
    np.testing.assert_array_equal(T.cumsum(x16, 0).numpy(), ref)
    x = T.tensor([[1.39, 1.65], [1.14, 0.33]], dtype=T.float64, requires_grad=True)
    y = T.tensor([[True, False], [True, True]])
    (g,) = T.autograd.grad(F.mse_loss(x, y), x)
    np.testing.assert_allclose(g.numpy(), (x.detach().numpy() - y.numpy()) / 2, rtol=1e-12)
    with pytest.warns(UserWarning, match="keyword argument `min_value` is deprecated"):
        m = T.nn.Hardtanh(-1, 1, False, -2, 2)
    assert m(T.tensor([-3.0, 3.0])).tolist() == [-2.0, 2.0]
    with pytest.raises(AssertionError, match=re.escape("max_val (2) must be greater than min_val (3)")):
        T.nn.Hardtanh(2, 2, 2, 3)
    with pytest.raises(
        TypeError, match=re.escape("relu_(): argument 'input' (position 1) must be Tensor, not int")
    ):
        F.relu_(4)
    r = T.zeros(2, 3).select_scatter(T.ones(3), 0, T.tensor([[1]]))
    assert r.tolist() == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


def test_fuzz_4447_half_histograms():
    """Fuzz seed 4447: histogram/histogramdd of float16/bfloat16 run wherever PyTorch's do (edges given, or a
    range, or no points); only the data's own min/max (int bins, no range, some points) is refused there"""
    T = minitorch
    x = [-0.49, -0.53, 2.2, 0.5, 0.1]
    for dt in (T.float16, T.bfloat16):
        h, e = T.histogram(T.tensor(x, dtype=dt), T.tensor([-1.0, 0.0, 3.0], dtype=dt))
        assert h.dtype == dt and h.tolist() == [2.0, 3.0] and e.tolist() == [-1.0, 0.0, 3.0]
        h, e = T.histogram(T.tensor(x, dtype=dt), 4, range=(-1.0, 3.0), weight=T.arange(1.0, 6.0).to(dt))
        assert h.tolist() == [3.0, 9.0, 0.0, 3.0] and e.tolist() == [-1.0, 0.0, 1.0, 2.0, 3.0]
        h, _ = T.histogramdd(
            T.tensor([[-0.49, -0.53], [2.2, 1.0]], dtype=dt), [2, 1], range=[-1.0, 3.0, -1.0, 1.0]
        )
        assert h.tolist() == [[1.0], [1.0]]
        assert T.histogram(T.empty(0, dtype=dt), 3)[0].tolist() == [0.0, 0.0, 0.0]
        with pytest.raises(NotImplementedError, match='"histogramdd" not implemented for'):
            T.histogram(T.tensor(x, dtype=dt), 3)


def test_fuzz_4448_searchsorted_scalars_and_orders():
    """Fuzz seed 4448: **searchsorted of a Python number** joins the sequence's dtype as a wrapped scalar (0.1
    into a float64 sequence was searched as float32's 0.1, one past PyTorch's answer); a bool sequence runs in
    the common dtype; addcmul/addcdiv read a bool value as 0/1; trapezoid's x=None is PyTorch's parser error;
    conv checks bias, shapes, the kernel's dtype, then the weight's"""
    T, F = minitorch, minitorch.nn.functional
    s = T.tensor([0.1], dtype=T.float64)
    assert T.searchsorted(s, 0.1).item() == 0 and T.searchsorted(s, 0.1, right=True).item() == 1
    assert T.bucketize(0.1, s).item() == 0
    assert T.searchsorted(T.tensor([1, 5], dtype=T.uint8), 300).item() == 2  # wraps to 44, as PyTorch's
    assert T.searchsorted(T.tensor([False, True]), T.tensor([0.69, 1.0, -1.0])).tolist() == [1, 1, 0]
    assert T.searchsorted(T.tensor([False, True]), 1).item() == 1
    with pytest.raises(NotImplementedError, match="\"searchsorted_out_cpu\" not implemented for 'Bool'"):
        T.searchsorted(T.tensor([False, True]), True)
    x = T.tensor([2.0, 3.0])
    assert x.addcmul(x, x, value=True).tolist() == [6.0, 12.0]
    assert x.addcdiv(x, x, value=False).tolist() == [2.0, 3.0]
    for fn in (T.trapezoid, T.trapz, T.cumulative_trapezoid):
        with pytest.raises(TypeError, match="received an invalid combination of arguments"):
            fn(x, None)
        with pytest.raises(TypeError, match="received an invalid combination of arguments"):
            fn(x, x=None)
    assert T.trapezoid(x).item() == 2.5 and T.trapz(x, dx=2).item() == 5.0
    ones, b = T.ones(1, 4, 5, 5), T.ones(6)
    for call, exc, msg in [
        (
            lambda: T.conv2d(ones.bool(), T.ones(6, 2, 3, 3), b),
            RuntimeError,
            "Input type (bool) and bias type (float)",
        ),
        (
            lambda: T.conv2d(ones.bool(), T.ones(6, 2, 3, 3)),
            RuntimeError,
            "expected input[1, 4, 5, 5] to have 2",
        ),
        (
            lambda: T.conv2d(ones.bool(), T.ones(6, 4, 3, 3)),
            NotImplementedError,
            '"slow_conv2d_cpu" not impl',
        ),
        (
            lambda: T.conv2d(ones, T.ones(6, 4, 3, 3).double()),
            RuntimeError,
            "expected scalar type Float but found",
        ),
        (
            lambda: F.conv_transpose2d(ones.byte(), T.ones(4, 2, 3, 3).long()),
            NotImplementedError,
            "for 'Byte'",
        ),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            call()


def test_fuzz_4449_kind_first():
    """Fuzz seed 4449: diagonal_scatter checks src's kind before the dims (PyTorch's parser); sparse_mask of a
    dense mask is PyTorch's dispatcher's NotImplementedError"""
    T = minitorch
    with pytest.raises(TypeError, match="argument 'src'"):
        T.tensor([-5, 1, 4, 4]).diagonal_scatter(2)
    with pytest.raises(TypeError, match="argument 'src'"):
        T.ones(2, 2).diagonal_scatter(3, 1, 1)
    assert T.diagonal_scatter(T.zeros(2, 3), T.ones(2), 1).tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    with pytest.raises(NotImplementedError, match="aten::sparse_mask"):
        T.ones(2).sparse_mask(T.ones(2))


def test_fuzz_4450_embedding_and_fractional_pool():
    """Fuzz seed 4450: torch.embedding (ATen's, weight first) parses its arguments and does not range-check
    padding_idx (F.embedding's Python asserts); FractionalMaxPool3d checks its kernel size when built"""
    T = minitorch
    w = T.arange(10.0).reshape(2, 5)
    with pytest.raises(
        TypeError, match=re.escape("embedding(): argument 'indices' (position 2) must be Tensor")
    ):
        T.embedding(w, 2, 2)
    assert T.embedding(w, T.tensor([1]), 7).tolist() == [[5.0, 6.0, 7.0, 8.0, 9.0]]
    w = w.requires_grad_()
    T.embedding(w, T.tensor([0, 1, 1]), 1).sum().backward()
    assert w.grad.tolist() == [[1.0] * 5, [0.0] * 5]  # the padding row gets no gradient
    with pytest.raises(ValueError, match="kernel_size must be greater than 0, but got -1"):
        T.nn.FractionalMaxPool3d(-1, 1)
    T.nn.FractionalMaxPool2d(-1, 1)  # PyTorch's 2-d module leaves it to the kernel


# ---- session 22 (par22): more calls compared with PyTorch itself, through _par21_compare


def test_par22_bare_int_sizes():
    """PyTorch's parser takes one int for a sized list only (int[1] dims, int[2] strides) and for the lone
    int list of a method or factory (x.view(4), x.new_zeros(2)); an unsized `int[]` or `SymInt[]` given beside
    other arguments takes a list or tuple alone (flip's dims, new_full's size, view_copy's size)"""
    setup = "x = torch.arange(4.)"
    calls = [
        "x.new_full(2, 1.0)",
        "x.new_full(True, 1.0)",
        "x.new_full(torch.tensor(2), 1.0)",
        "x.new_full((2,), 1.0)",
        "x.new_zeros(2)",
        "x.new_ones(2, 3)",
        "x.new_empty(2).shape",
        "x.new_zeros(size=2)",
        "torch.full(2, 1.0)",
        "torch.view_copy(x, 4)",
        "torch.view_copy(x, 2, 2)",
        "torch.view_copy(x)",
        "torch.view_copy(x, size=4)",
        "torch.view_copy(x, ['a'])",
        "torch.view_copy(x, [2, 2.0])",
        "torch.view_copy(x, True)",
        "torch.view_copy(x, torch.tensor(4))",
        "torch.view_copy(x, (2, 2))",
        "torch.view_copy(x, torch.int32)",
        "torch.view_copy(x, dtype=torch.int32)",
        "torch.view_copy(x, [4], out=torch.zeros(4))",
        "torch.expand_copy(x, 4)",
        "torch.expand_copy(x, True)",
        "torch.flip(x, 0)",
        "torch.flip(x, torch.tensor(0))",
        "torch.flip(x, dims=0)",
        "torch.flip(x, [0])",
        "x.flip(0)",
        "x.flip(dims=0)",
        "torch.permute(x, 0)",
        "torch.tile(x, 2)",
        "torch.reshape(x, 4)",
        "torch.sum(x, 0)",
        "torch.amax(x, 0)",
        "torch.logsumexp(x, 0)",
        "torch.std(x, 0)",
        "torch.norm(x, 2, 0)",
        "torch.roll(x, 1, 0)",
        "torch.roll(x, 1)",
        "torch.nansum(x, 0)",
        "torch.all(x, (0,))",
        "torch.var_mean(x, 0)",
    ]
    _par21_compare(setup, calls)


def test_par22_histogramdd_parser():
    """histogramdd's three overloads (int bins, int list bins, tensor list bins; every argument may come by
    position, bins has none by default): a list input, a float bins, an int list with a float in it, and the
    tensor-list reading's own TypeError for a list that is no int list"""
    setup = "x = torch.tensor([[0.1, 0.2], [0.5, 0.9], [0.3, 0.3]])"
    calls = [
        "torch.histogramdd([[1., 2.], [3., 4.]], bins=2)",
        "torch.histogramdd([[1., 2.], [3., 4.]], [2, 2])",
        "torch.histogramdd(x, bins=[2.0, 3])",
        "torch.histogramdd(x, bins=[2, 2.0])",
        "torch.histogramdd(x, [torch.tensor([0., 1.]), 2])",
        "torch.histogramdd(x, [torch.tensor([0., 1.]), torch.tensor([0., 0.5, 1.])])",
        "torch.histogramdd(x, bins='a')",
        "torch.histogramdd(x, 2.5)",
        "torch.histogramdd(x, True)",
        "torch.histogramdd(x, torch.tensor(2))",
        "torch.histogramdd(x, torch.tensor([2]))",
        "torch.histogramdd(x, [torch.tensor(2), 2])",
        "torch.histogramdd(x)",
        "torch.histogramdd(5, 2)",
        "torch.histogramdd(x.long(), bins=2)",
        "torch.histogramdd(x.long(), bins=[2, 2], weight=[1.])",
        "torch.histogramdd(x, bins=2, weight=[1, 2, 3])",
        "torch.histogramdd(x, bins=2, density=1)",
        "torch.histogramdd(x, 2, [0., 1, 0, 1])",
        "torch.histogramdd(x, 2, (0., 'a'))",
        "torch.histogramdd(x, [2, 2], None, torch.ones(3), True)",
        "torch.histogramdd(x, 2, None, None, False, 5)",
        "torch.histogramdd(x, bins=2, range=[0., 1.])",
    ]
    _par21_compare(setup, calls)


def test_par22_check_order_cdist_frobenius_nuclear():
    """cdist checks the ranks and the columns before the dtypes, then p (its parser's float first, every
    argument by position); frobenius_norm and nuclear_norm are parsed before ATen's deprecation warning"""
    setup = "a = torch.zeros(1, 2); b = torch.zeros(1, 3); m = torch.eye(2)"
    calls = [
        "torch.cdist(a, b.long())",
        "torch.cdist(a.long(), b.long())",
        "torch.cdist(torch.zeros(2, dtype=torch.long), a)",
        "torch.cdist(a.long(), a, -1)",
        "torch.cdist(a, a, -1)",
        "torch.cdist(a, a, 'a')",
        "torch.cdist(a, a, None)",
        "torch.cdist(a, a, torch.tensor([2.]))",
        "torch.cdist(a, a, torch.tensor(2.))",
        "torch.cdist(a, a, True)",
        "torch.cdist(x1=a, x2=a, p='a')",
        "torch.cdist(a, [1.], 'a')",
        "torch.cdist(a.long(), a, 2, 'a')",
        "torch.cdist(torch.ones(1, 30), torch.ones(30, 30, dtype=torch.float64))",
        "torch.cdist(a, a.double(), compute_mode='use_mm_for_euclid_dist')",
        "torch.cdist(a, a.double())",
        "torch.frobenius_norm([1.], 'a')",
        "torch.frobenius_norm(m, 'a')",
        "torch.frobenius_norm(m, [0], 'a')",
        "torch.frobenius_norm(m, 0)",
        "torch.frobenius_norm(m, torch.tensor([0]))",
        "torch.frobenius_norm(m, [0, 'a'])",
        "torch.frobenius_norm(m)",
        "torch.frobenius_norm(m, [0, 1], 1)",
        "torch.frobenius_norm(m.long(), [0, 1])",
        "torch.frobenius_norm(m, [0], False, out=1)",
        "torch.nuclear_norm(m, True)",
        "torch.nuclear_norm(m, 'a')",
        "torch.nuclear_norm([1.], 'a')",
        "torch.nuclear_norm(m, keepdim=1)",
        "torch.nuclear_norm(m, [0, 1], 1)",
        "F.multilabel_margin_loss([1.], torch.zeros(2, dtype=torch.long), reduction='x')",
        "torch.native_channel_shuffle([1.], 2.0)",
    ]
    _par21_compare(setup, calls)


def test_par22_normal_overloads():
    """torch.normal's four overloads: a dtype= beside a tensor mean or std, a size beside them, a string, each
    PyTorch's invalid combination; NaN std refused; mean and std broadcast in ATen's words"""
    setup = "m = torch.zeros(2)"
    calls = [
        "torch.normal(m, 1, dtype=torch.float64)",
        "torch.normal(m, 1.0, dtype=torch.float64)",
        "torch.normal(0., torch.ones(2), dtype=torch.float64)",
        "torch.normal(m, torch.ones(2), dtype=torch.float64)",
        "torch.normal(m, 1, (2,))",
        "torch.normal(m, 'a')",
        "torch.normal('a', m)",
        "torch.normal(0, 1)",
        "torch.normal(0, 1, 2)",
        "torch.normal()",
        "torch.normal(std=torch.ones(2))",
        "torch.normal(m, float('nan'))",
        "torch.normal(0., float('nan'), (2,))",
        "torch.normal(0., torch.tensor([float('nan')]))",
        "torch.normal(m, -1)",
        "torch.normal(m, torch.ones(3))",
        "torch.normal(torch.zeros(2, 3), torch.ones(4, 2))",
        "torch.normal(0., 1., (2,), generator=1)",
        "torch.normal(0., 1., (2, 3), dtype=torch.float64).dtype",
        "torch.normal(0., 1., size=(2,)).shape",
        "torch.normal(torch.zeros(2, 3), torch.ones(4, 1, 1)).shape",
        "torch.normal(mean=m).shape",
        "torch.normal(torch.tensor(0.), 2.).shape",
        "torch.normal(m.long(), 1)",
        "torch.normal(0., 0., (3,))",
        "torch.normal(torch.zeros(2, dtype=torch.complex64), 1).dtype",
        "torch.normal(torch.zeros(2, dtype=torch.complex128), torch.ones(2)).dtype",
        "torch.normal(0., torch.ones(2, dtype=torch.complex64))",
        "torch.normal(m, torch.ones(2, dtype=torch.complex64))",
    ]
    _par21_compare(setup, calls)
    # a complex mean draws each part with variance std^2 / 2 (normal_'s convention, PyTorch's)
    minitorch.manual_seed(0)
    z = minitorch.normal(minitorch.full((200_000,), 1 + 1j, dtype=minitorch.complex64), 2.0)
    for part in (z.real, z.imag):
        assert abs(part.mean().item() - 1) < 0.02 and abs(part.std().item() - 2 / math.sqrt(2)) < 0.02


def test_par22_lstsq_rcond_and_empty_half_linalg():
    """linalg.lstsq's parser (rcond a float or a 0-dim tensor without grad, driver a keyword str); the linalg
    ops whose kernels PyTorch never dispatches for an empty input give results of an empty float16/bfloat16
    matrix's dtype, the others refuse it"""
    setup = "A = torch.eye(2); B = torch.ones(2, 1)"
    calls = [
        "torch.linalg.lstsq(A, B, 1)",
        "torch.linalg.lstsq(A, B, rcond=torch.tensor(1.))",
        "torch.linalg.lstsq(A, B, rcond=torch.tensor(1))",
        "torch.linalg.lstsq(A, B, rcond=torch.tensor(1., requires_grad=True))",
        "torch.linalg.lstsq(A, B, rcond=True)",
        "torch.linalg.lstsq(A, B, rcond='a')",
        "torch.linalg.lstsq(A, B, rcond=None)",
        "torch.linalg.lstsq(A, B, torch.tensor([1.]))",
        "torch.linalg.lstsq(A, B, rcond=1.0, driver=1)",
        "torch.linalg.lstsq(A, B, None, 'gelsd')",
        "torch.linalg.lstsq([1.], B, 'a')",
        "torch.linalg.lstsq(A, [1.], 'a')",
        "torch.linalg.lstsq(A.long(), B, 'a')",
        "torch.linalg.lstsq(A, B, driver='gelsd', foo=1)",
    ]
    for shape in ("(0, 2)", "(0, 0)", "(2, 0, 0)", "(0, 2, 2)", "(3, 0)"):
        for dt in ("torch.float16", "torch.bfloat16"):
            e = f"torch.zeros({shape}, dtype={dt})"
            calls += [f"torch.linalg.svd({e})", f"torch.linalg.svd({e}, full_matrices=False)",
                      f"torch.linalg.svdvals({e})", f"torch.svd({e})"]  # fmt: skip
            if shape != "(0, 2)" and shape != "(3, 0)":
                calls += [f"torch.linalg.eigh({e})", f"torch.linalg.eigvalsh({e})", f"torch.linalg.det({e})",
                          f"torch.linalg.cholesky({e})", f"torch.linalg.cholesky_ex({e})",
                          f"torch.linalg.matrix_exp({e})", f"torch.linalg.solve({e}, {e})",
                          f"torch.linalg.ldl_factor({e})", f"torch.logdet({e})", f"torch.cholesky_inverse({e})",
                          f"torch.linalg.qr({e})", f"torch.linalg.eig({e})", f"torch.linalg.inv({e})"]  # fmt: skip
    calls += [
        "torch.linalg.svd(torch.eye(2, dtype=torch.float16))",
        "torch.linalg.eigh(torch.eye(2, dtype=torch.bfloat16))",
        "torch.logdet(torch.eye(2, dtype=torch.float16))",
        "torch.cholesky_inverse(torch.eye(2, dtype=torch.long))",
        "torch.cholesky_inverse(torch.ones(2, 3, dtype=torch.long))",
    ]
    _par21_compare(setup, calls)


def test_par22_empty_integer_pools_and_gumbel_softmax():
    """adaptive average pooling: the output sizes' signs first, a 1 x 1 output is a mean (checked for its dtype,
    its input's sizes not), else the 2-d kernel checks the last two dims only and dispatches on the dtype only
    when there is an output (an empty integer input pools to an empty integer result); gumbel_softmax draws
    with exponential_, which refuses an integer or complex input unless it is empty"""
    setup = ""
    calls = []
    for fn, nd in (("adaptive_avg_pool1d", 1), ("adaptive_avg_pool2d", 2)):
        for shape in [(0,) + (4,) * nd, (1, 0) + (4,) * nd, (0, 4) + (0,) + (4,) * (nd - 1),
                      (1, 4) + (4,) * (nd - 1) + (0,), (1, 4) + (4,) * nd, (0,) * (nd + 1)]:  # fmt: skip
            for dt in ("torch.float32", "torch.int64", "torch.bool"):
                for o in (1, 2, 0, -1):
                    calls.append(f"F.{fn}(torch.zeros({shape}, dtype={dt}), {o})")
    calls.append("F.adaptive_avg_pool1d(torch.ones(1, 2, 0), 1)")  # NaN, the mean of nothing
    for shape in ("(0,)", "(2,)", "(0, 2)", "(2, 0)", "()"):
        for dt in ("torch.int64", "torch.bool", "torch.complex64", "torch.float32"):
            for hard in (False, True):
                call = f"F.gumbel_softmax(torch.zeros({shape}, dtype={dt}), hard={hard})"
                if dt == "torch.complex64" and shape == "(0, 2)" and hard:
                    continue  # PyTorch's max refuses complex input even when empty; ours has nothing to refuse
                calls.append(call + (".shape" if dt == "torch.float32" and "0" not in shape else ""))
    _par21_compare(setup, calls)


def test_par22_index_put_dtypes():
    """PyTorch's index_put_ takes a value of another dtype only as masked_fill_ (one element through one
    bool/uint8 mask): through an integer index the dtypes must match, x[long_index] = complex is index_fill_'s
    refusal, and x[mask] = 1.5 of an empty bool x is a no-op"""
    setup = (
        "xb = torch.zeros(0, dtype=torch.bool); mb = torch.zeros(0, dtype=torch.bool); i = torch.tensor([0])"
    )
    calls = [
        "xb.__setitem__(mb, 1.5) or xb",
        "xb.__setitem__(mb, torch.tensor(1.5)) or xb",
        "xb.__setitem__(mb, torch.tensor([1.5])) or xb",
        "xb.__setitem__(torch.zeros(0, dtype=torch.long), 1.5) or xb",
        "xb.__setitem__(torch.zeros(0, dtype=torch.long), torch.tensor(1.5)) or xb",
    ]
    for xd in ("torch.bool", "torch.int64", "torch.float32", "torch.complex64"):
        for vd in ("torch.bool", "torch.uint8", "torch.float64", "torch.complex64"):
            x = f"torch.zeros(2, dtype={xd})"
            for key in (
                "i",
                "torch.tensor([True, False])",
                "0",
                "slice(0, 1)",
                "torch.tensor([], dtype=torch.long)",
            ):
                calls.append(f"(lambda x: x.__setitem__({key}, torch.ones((1,), dtype={vd})) or x)({x})")
            calls += [
                f"{x}.index_put_((i,), torch.tensor(1, dtype={vd}))",
                f"{x}.index_put_((torch.tensor([True, False]),), torch.tensor(1, dtype={vd}))",
                f"{x}.index_put_((torch.tensor([True, False]),), torch.tensor(1, dtype={vd}), accumulate=True)",
                f"{x}.index_put_((torch.tensor([True, True]),), torch.tensor([1, 1], dtype={vd}))",
                f"{x}.index_put((i,), torch.tensor([1], dtype={vd}))",
            ]
        for key in ("i", "torch.tensor([[0]])", "(i,)", "[0]", "torch.tensor([True, False])", "i.int()"):
            calls.append(f"(lambda x: x.__setitem__({key}, 1j) or x)(torch.zeros(2, dtype={xd}))")
    _par21_compare(setup, calls)


def test_par22_inplace_result_type_under_grad():
    """an in-place op whose out-of-place result an integer or bool self cannot hold raises PyTorch's cast error
    on the grad path too (a bound or operand requiring grad), where self was silently rounded"""
    setup = "g = torch.tensor([0.4, 2.6], requires_grad=True); L = torch.tensor([1, 5])"
    calls = [
        "L.clone().clamp_(g, torch.ones(2))",
        "L.clone().clamp_(g)",
        "L.clone().clamp_(max=g)",
        "L.clone().clip_(g)",
        "L.clone().bool().clamp_(g.double())",
        "L.clone().clamp_min_(g)",
        "L.clone().clamp_max_(g)",
        "L.clone().add_(g)",
        "L.clone().mul_(g)",
        "L.clone().sub_(g)",
        "L.clone().pow_(g)",
        "L.clone().atan2_(g)",
        "L.clone().remainder_(g)",
        "L.clone().div_(g, rounding_mode='floor')",
        "L.clone().xlogy_(g)",
        "L.clone().lerp_(g, 0.5)",
        "L.clone().copy_(g)",
        "L.clone().masked_fill_(torch.tensor([True, False]), torch.tensor(1.5, requires_grad=True))",
        "g.clone().clamp_(L)",
        "g.clone().add_(L)",
        "torch.clamp_(L.clone(), g)",
    ]
    _par21_compare(setup, calls)


def test_par22_randint_like_tensor_high():
    """randint_like's Tensor high (PyTorch's randint_like.Tensor, tried before the int rows): a 0-dim CPU tensor
    of any dtype read as an int; a float high or string is the invalid combination; random_'s complex
    refusals in each of its forms"""
    setup = "x = torch.zeros(1000)"
    calls = [
        "torch.randint_like(x, torch.tensor(5)).max()",
        "torch.randint_like(x, torch.tensor(5.7)).max()",
        "torch.randint_like(x, torch.tensor(True)).max()",
        "torch.randint_like(x, torch.tensor(5, dtype=torch.float64)).dtype",
        "torch.randint_like(x, torch.tensor(5., requires_grad=True)).max()",
        "torch.randint_like(x, torch.tensor([5]))",
        "torch.randint_like(x, torch.zeros(2, 2))",
        "torch.randint_like(x, torch.tensor(0))",
        "torch.randint_like(x, torch.tensor(-1))",
        "torch.randint_like(x, torch.tensor(5), 3)",
        "torch.randint_like(x, high=torch.tensor(5), dtype=torch.int32).max()",
        "torch.randint_like(x.to(torch.uint8), torch.tensor(300))",
        "torch.randint_like(x.bool(), torch.tensor(5))",
        "torch.randint_like(x, 5.5)",
        "torch.randint_like(x, True)",
        "torch.randint_like(x, 'a')",
        "torch.randint_like(x.to(torch.complex64), 3)",
        "torch.randint_like(x.to(torch.complex64)[:0], 3)",
        "torch.randint_like(x.to(torch.complex64), torch.tensor(3))",
        "torch.randint(3, (0,), dtype=torch.complex64)",
        "torch.zeros(2, dtype=torch.complex64).random_()",
        "torch.zeros(0, dtype=torch.complex64).random_()",
        "torch.zeros(2, dtype=torch.complex64).random_(3)",
        "torch.zeros(0, dtype=torch.complex64).random_(0, None)",
        "torch.zeros(2, dtype=torch.complex64).random_(5, 3)",
    ]
    _par21_compare(setup, calls)


def test_par22_ctc_pad_and_grid_int_lists():
    """more SymInt[]/int[] readers in PyTorch's words: torch.ctc_loss's two overloads (both lengths int lists or
    both tensors, reached by F.ctc_loss after its reduction check, unreduced when torch's spelling omits it),
    constant_pad_nd's pad (and ATen's length checks), affine_grid_generator's size, native_layer_norm's
    normalized_shape"""
    setup = (
        "lp = torch.zeros(3, 1, 2).log_softmax(2); t = torch.ones(1, 1, dtype=torch.long); x = torch.zeros(3)"
    )
    calls = [
        "F.ctc_loss([1.], t, (3,), (1,))",
        "F.ctc_loss([1.], t, (3,), (1,), reduction='x')",
        "F.ctc_loss(lp, t, 3, 1)",
        "F.ctc_loss(lp, t, (3,), 1)",
        "F.ctc_loss(lp, t, (3,), (1,))",
        "F.ctc_loss(lp, t, torch.tensor([3]), (1,))",
        "F.ctc_loss(lp, t, torch.tensor([3]), torch.tensor([1]))",
        "F.ctc_loss(lp, t, (3,), (1,), blank=1.5)",
        "F.ctc_loss(lp, t, (3,), (1,), zero_infinity=1)",
        "F.ctc_loss(lp, [1], (3,), (1,))",
        "torch.ctc_loss(lp, t, (3,), (1,))",
        "torch.ctc_loss(lp, t, (3,), (1,), 0, 1)",
        "torch.ctc_loss(lp, t, (3,), (1,), 0, 2)",
        "torch.ctc_loss(lp, t, torch.tensor([3]), torch.tensor([1]))",
        "torch.ctc_loss(lp, t, 3, 1)",
        "torch.nn.CTCLoss()(lp, t, (3,), (1,))",
        "torch.nn.CTCLoss()(lp, t, 3, 1)",
        "torch.constant_pad_nd(x, 1)",
        "torch.constant_pad_nd(x, (1,))",
        "torch.constant_pad_nd(x, (1, 2, 3, 4))",
        "torch.constant_pad_nd(x, [1, 'a'])",
        "torch.constant_pad_nd(x, (1, 1), 'a')",
        "torch.constant_pad_nd(x, (1, 1), 2.5)",
        "torch.constant_pad_nd([1.], (1, 1))",
        "torch.constant_pad_nd(x, (torch.tensor(1), 2))",
        "F.affine_grid(torch.zeros(1, 2, 3), torch.tensor([1, 1, 2, 2]))",
        "F.affine_grid(torch.zeros(1, 2, 3), [1, 1, 2, 2], align_corners=False)",
        "torch.affine_grid_generator(torch.zeros(1, 2, 3), 4, False)",
        "torch.native_layer_norm(x, 3, None, None, 1e-5)",
        "torch.native_layer_norm(x, (3,), None, None, 1e-5)[0]",
        "F.layer_norm(x, 3)",
        "torch.layer_norm(x, torch.tensor(3))",
    ]
    _par21_compare(setup, calls)


def test_par22_fuzz_seed_5300():
    """difffuzz seed 5300 over this session's names: normal of an empty integer or bool tensor (no kernel
    refuses the dtype), channel_shuffle's bool groups, gumbel_softmax of a non-tensor, nuclear_norm's tensor
    dim, linalg.svd/svdvals's parser, adaptive_avg_pool1d's int[1] size"""
    setup = "x = torch.zeros(1, 3)"
    calls = [
        "torch.normal(torch.empty((5, 0), dtype=torch.bool), 1)",
        "torch.normal(torch.empty((0,), dtype=torch.long), 1)",
        "torch.normal(torch.empty((0,), dtype=torch.long), torch.ones(0))",
        "torch.normal(0., torch.empty((0,), dtype=torch.long))",
        "torch.normal(torch.ones(0), torch.empty((0,), dtype=torch.long))",
        "torch.normal(torch.empty((0,), dtype=torch.long), torch.empty((0,), dtype=torch.long))",
        "torch.normal(torch.ones(2, dtype=torch.long), torch.ones(2))",
        "torch.normal(torch.ones(2), torch.ones(2, dtype=torch.long)).dtype",
        "torch.native_channel_shuffle(torch.zeros(1, 4, 2), True)",
        "torch.channel_shuffle(torch.zeros(1, 4, 2), True)",
        "F.channel_shuffle(torch.zeros(1, 4, 2), True)",
        "F.channel_shuffle(torch.arange(8.).reshape(1, 4, 2), torch.tensor(2))",
        "F.gumbel_softmax(3, 1)",
        "torch.nuclear_norm(torch.tensor(-1.7, dtype=torch.float16), torch.tensor(False))",
        "torch.nuclear_norm(torch.eye(2), torch.tensor([0, 1]))",
        "torch.linalg.svd(torch.tensor(2, dtype=torch.uint8), -1)",
        "torch.linalg.svd(torch.eye(2), 1)",
        "torch.linalg.svd(torch.eye(2), driver=1)",
        "torch.linalg.svd(torch.eye(2), True, 'gesvd')",
        "torch.linalg.svdvals(torch.eye(2), 1)",
        "torch.linalg.svdvals(torch.eye(2), driver=1)",
        "torch.svd(torch.eye(2), 1)",
        "torch.adaptive_avg_pool1d(x, None)",
        "torch.adaptive_avg_pool1d(x, [None])",
        "torch.adaptive_avg_pool1d(x, torch.tensor(2))",
        "F.adaptive_avg_pool1d(x, None)",
        "F.adaptive_avg_pool1d(x, (2,))",
        "F.adaptive_avg_pool2d(x[None], (None, 2))",
        "torch.adaptive_max_pool1d(x, None)",
        # seeds 5301-5302: normal's std checks come before everything else; cdist's compute_mode before its parser
        "torch.normal(torch.empty((4, 0, 3), dtype=torch.bool), -3)",
        "torch.normal(torch.ones(2, dtype=torch.long), -1)",
        "torch.normal(torch.ones(2, dtype=torch.long), torch.full((2,), -1.))",
        "torch.normal(0., torch.full((2,), -1, dtype=torch.long))",
        "torch.cdist(torch.ones(4), 5, torch.tensor([3]), 0.001)",
        "torch.cdist(torch.ones(4), 5, torch.tensor([3]))",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4453_check_orders():
    """Fuzz seed 4453: repeat_interleave checks the dim before the counts' dtype; torch.histogramdd finds its
    outer edges (the range's checks, the half types' min/max refusal) before it checks the bin counts, where
    torch.histogram checks the counts first"""
    T = minitorch
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-1, 0], but got 1")):
        T.tensor([-1.79]).repeat_interleave(T.tensor([1078.6]), 1)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        T.tensor(1.05).repeat_interleave(T.tensor(-1.78), dim=0)
    with pytest.raises(NotImplementedError, match="\"repeat_interleave_cpu\" not implemented for 'Float'"):
        T.tensor([1.0, 2.0]).repeat_interleave(T.tensor([1.5, 2.0]), 0)
    with pytest.raises(
        RuntimeError, match="Repeats must be non-negative"
    ):  # seed 4454: before a 0-d input's dim
        T.repeat_interleave(T.tensor(1.0), -1, 0)
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'BFloat16'"):
        T.histogramdd(T.ones(3, 2, dtype=T.bfloat16), 0)
    with pytest.raises(RuntimeError, match="min should not exceed max, but got min 2 max 1 for dimension 0"):
        T.histogramdd(T.ones(3, 2), 0, range=[2.0, 1.0, 0.0, 1.0])
    with pytest.raises(RuntimeError, match=re.escape("torch.histogram(): bins must be > 0, but got 0")):
        T.histogram(T.ones(3), 0, range=(2.0, 1.0))


def test_fuzz_4455_cross_entropy_parses_weight_first():
    """Fuzz seed 4455: a 0-d target's special paths (ATen's index error, the batch-size check) come after the
    parse, so a weight that is not a tensor is named first, as PyTorch's"""
    T = minitorch
    for x, t in (
        (T.tensor(1.84, dtype=T.float64), T.tensor(0.07, dtype=T.float64)),
        (T.randn(3, 4), T.tensor(1)),
    ):
        with pytest.raises(TypeError, match="argument 'weight' \\(position 3\\) must be Tensor, not str"):
            minitorch.nn.functional.cross_entropy(x, t, "replicate")
    with pytest.raises(IndexError, match="Dimension specified as 1 but tensor has no dimensions"):
        T.nn.functional.cross_entropy(T.tensor(1.84, dtype=T.float64), T.tensor(0.07, dtype=T.float64))
    with pytest.raises(
        ValueError, match=re.escape("Expected input batch_size (3) to match target batch_size (0).")
    ):
        T.nn.functional.cross_entropy(T.randn(3, 4), T.tensor(1), T.ones(4))


def test_fuzz_4456_pow_checks_a_python_exponent():
    """Fuzz seed 4456: a Python exponent goes into a float16/bfloat16/integer result's own type through the
    checked conversion, as PyTorch's tensor-scalar pow (float32 and float64 take it as a double); and the
    check orders of hinge_embedding_loss (reduction first), inner (tensors only) and grid_sample (size(0))"""
    T = minitorch
    F = T.nn.functional
    for dt, e, name in (
        (T.float16, 1e30, "c10::Half"),
        (T.float16, 65520.0, "c10::Half"),
        (T.bfloat16, 1e39, "c10::BFloat16"),
        (T.int8, 300, "int8_t"),
        (T.int32, 2**40, "int"),
    ):
        with pytest.raises(RuntimeError, match=f"value cannot be converted to type {name} without overflow"):
            T.tensor([1.5]).to(dt).pow(e)
        with pytest.raises(RuntimeError, match="without overflow"):
            T.tensor([1.5]).to(dt).pow_(e)
    assert T.tensor([1.5], dtype=T.float16).pow(65504.0).item() == math.inf
    assert T.tensor([1.5], dtype=T.float16).pow(math.inf).item() == math.inf
    assert T.tensor([1.5]).pow(1e39).item() == math.inf
    assert T.tensor([3], dtype=T.int8).pow(2.5).dtype == T.float32  # a float exponent promotes: no int8 cast
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        T.tensor([3], dtype=T.int8).pow(-300)
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):  # lp_pool's x.pow(p) first
        F.lp_pool1d(T.ones(2, 3, dtype=T.float16), 1e30, 0.5)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        F.hinge_embedding_loss(T.tensor([-2.1, -1.2]), 0, T.tensor([1, 1]), T.tensor([0.5, 0.0]))
    with pytest.raises(
        TypeError, match=re.escape("inner(): argument 'other' (position 2) must be Tensor, not list")
    ):
        T.inner(T.tensor(True), [])
    with pytest.raises(
        TypeError, match=re.escape("inner(): argument 'input' (position 1) must be Tensor, not int")
    ):
        T.inner(2, T.tensor([1.0]))
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        F.grid_sample(T.tensor(0.1, dtype=T.float64), T.tensor([0]))
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        F.grid_sample(T.randn(1, 1, 2, 2), T.tensor(0.0))


def test_fuzz_4457_bool_products_without_work_and_check_orders():
    """Fuzz seed 4457: PyTorch's GEMM kernels finish an empty result or an empty contraction before their
    dtype dispatch, so bool operands of those shapes give the empty or all-false result (an empty contraction
    scaling a bool self by a number beta is refused there); addr's Boolean scales; bincount's int64 max;
    instance_norm of an empty input is its copy"""
    T = minitorch
    B = T.bool
    for r, shape in (
        (T.mm(T.empty(0, 2, dtype=B), T.ones(2, 2, dtype=B)), (0, 2)),
        (T.mm(T.empty(2, 0, dtype=B), T.ones(0, 2, dtype=B)), (2, 2)),
        (T.mv(T.empty(2, 0, dtype=B), T.ones(0, dtype=B)), (2,)),
        (T.bmm(T.empty(1, 2, 0, dtype=B), T.ones(1, 0, 2, dtype=B)), (1, 2, 2)),
        (T.bmm(T.empty(0, 2, 2, dtype=B), T.ones(0, 2, 2, dtype=B)), (0, 2, 2)),
        (T.matmul(T.empty(5, 0, 2, 1, dtype=B).permute(3, 2, 1, 0), T.ones(5, 2, dtype=B)), (1, 2, 0, 2)),
        (T.inner(T.empty(2, 0, dtype=B), T.ones(2, 0, dtype=B)), (2, 2)),
    ):
        assert r.dtype == B and tuple(r.shape) == shape and not r.any().item()
    with pytest.raises(NotImplementedError, match="\"addmm_impl_cpu_\" not implemented for 'Bool'"):
        T.mm(T.ones(2, 1, dtype=B), T.ones(1, 2, dtype=B))
    with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
        T.bmm(T.ones(1, 2, 1, dtype=B), T.ones(1, 1, 2, dtype=B))
    s = T.ones(2, 2, dtype=B)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        T.addmm(s, T.empty(2, 0, dtype=B), T.ones(0, 2, dtype=B))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Bool"):
        T.baddbmm(s[None], T.empty(1, 2, 0, dtype=B), T.ones(1, 0, 2, dtype=B), beta=2.5)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        T.addbmm(s, T.empty(0, 2, 3, dtype=B), T.ones(0, 3, 2, dtype=B))
    assert T.addmm(s, T.empty(2, 0, dtype=B), T.ones(0, 2, dtype=B), beta=True).all().item()
    assert not T.addmm(s, T.empty(2, 0, dtype=B), T.ones(0, 2, dtype=B), beta=0).any().item()
    assert T.addbmm(s, T.empty(1, 2, 0, dtype=B), T.ones(1, 0, 2, dtype=B), beta=True).all().item()
    i = T.tensor([1, 3])
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results."):
        i.addr(T.tensor([2, -2]), T.tensor([-4, -3]), alpha=False)
    with pytest.raises(RuntimeError, match="Boolean beta only supported for Boolean results."):
        T.addr(T.ones(2, 2), T.ones(2), T.ones(2), alpha=True, beta=True)
    np.testing.assert_array_equal(
        T.addr(
            T.ones(2, 2, dtype=B), T.ones(2, dtype=B), T.tensor([True, False]), alpha=True, beta=False
        ).numpy(),
        [[True, False], [True, False]],
    )
    with pytest.raises(RuntimeError, match=re.escape(f"it should be < {BIG} but got {BIG}")):
        T.tensor([5, BIG]).bincount(minlength=3)
    F = T.nn.functional
    for dt in (T.int64, T.float64):
        r = F.instance_norm(T.empty(0, 2, 3, dtype=dt))
        assert r.dtype == dt and tuple(r.shape) == (0, 2, 3)
    r = F.instance_norm(T.empty(2, 2, 0, dtype=T.int64), weight=T.full((2,), 2.0), bias=T.ones(2))
    assert r.dtype == T.float32 and tuple(r.shape) == (2, 2, 0)
    with pytest.raises(IndexError, match=re.escape("select(): index 0 out of range for tensor of size [0]")):
        F.instance_norm(T.empty(0, 2, 3), weight=T.ones(2))
    with pytest.raises(RuntimeError, match=re.escape("shape '[2, 2]' is invalid for input of size 6")):
        F.instance_norm(T.empty(2, 2, 0), T.zeros(3), T.ones(3))


def test_fuzz_4458_multilabel_soft_margin_reads_the_class_size_first():
    """Fuzz seed 4458: PyTorch's composite reads input.size(-1) (a 0-d input's IndexError) before it reads the
    reduction"""
    T = minitorch
    F = T.nn.functional
    x = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], dtype=T.float64)
    y = T.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]], dtype=T.float64)
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        F.multilabel_soft_margin_loss(T.tensor(1.8), T.tensor(1.0), reduction="reflect")
    with pytest.raises(ValueError, match="reflect is not valid"):
        F.multilabel_soft_margin_loss(x, y, reduction="reflect")
    xn, yn = x.numpy(), y.numpy()
    ref = -(yn * -np.log1p(np.exp(-xn)) + (1 - yn) * -np.log1p(np.exp(xn))).mean(1)
    np.testing.assert_allclose(F.multilabel_soft_margin_loss(x, y, reduction="none").numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(
        F.multilabel_soft_margin_loss(x, y, size_average=False).item(), ref.sum(), rtol=1e-12
    )


def test_fuzz_4459_vector_norm_ord_is_a_scalar_and_cat_of_nothing():
    """Fuzz seed 4459: linalg.vector_norm's ord is the parser's Scalar (a 0-d tensor without grad, a NumPy
    number); a complex one is refused after the parse; cat of an empty list is PyTorch 2.15's ValueError"""
    T = minitorch
    x = T.tensor([3.0, -4.0, 1.0], dtype=T.float64)
    for o in (T.tensor(-2), T.tensor(2.5), np.int64(3)):
        p = float(o)
        assert T.linalg.vector_norm(x, o).item() == pytest.approx(
            (np.abs(x.numpy()) ** p).sum() ** (1 / p), rel=1e-12
        )
    for o in (T.tensor([2.5]), T.tensor(2.5, requires_grad=True), "fro"):
        with pytest.raises(
            TypeError, match=re.escape("linalg_vector_norm(): argument 'ord' (position 2) must be Number")
        ):
            T.linalg.vector_norm(x, o)
    for o in (1j, T.tensor(1j)):
        with pytest.raises(RuntimeError, match="Expected a non-complex scalar as the order of norm"):
            T.linalg.vector_norm(x, o)
    for f in (T.cat, T.concat, T.concatenate):
        with pytest.raises(ValueError, match=re.escape("torch.cat(): expected a non-empty list of Tensors")):
            f([])


def test_fuzz_4460_rnn_hidden_dims_first_and_max_pool1d_dims():
    """Fuzz seed 4460: PyTorch's RNN modules check hx's dims before check_forward_args (the input's dtype);
    max_pool1d_with_indices takes 2-D or 3-D input only"""
    T = minitorch
    F = T.nn.functional
    with pytest.raises(
        RuntimeError,
        match=re.escape("For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D)"),
    ):
        T.nn.LSTM(3, 1)(T.ones(5, 2, 3, dtype=T.int64), T.ones(2, 3, 5, dtype=T.int64))
    with pytest.raises(
        RuntimeError, match=re.escape("For batched 3-D input, hx should also be 3-D but got 2-D tensor")
    ):
        T.nn.GRU(3, 1)(T.ones(5, 2, 3, dtype=T.int64), T.ones(2, 5))
    for hx in (None, T.ones(1, 2, 1, dtype=T.int64)):
        with pytest.raises(
            ValueError, match=re.escape("RNN input dtype (torch.int64) does not match weight dtype")
        ):
            T.nn.RNN(3, 1)(T.ones(5, 2, 3, dtype=T.int64), hx)
    with pytest.raises(
        RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 4"
    ):
        T.nn.LSTM(3, 1)(T.ones(5, 2, 4), (T.ones(1, 2, 2), T.ones(1, 2, 1)))
    for shape in ((2, 2, 2, 4), (4,)):
        with pytest.raises(
            RuntimeError, match=f"Expected 2 to 3 dimensions, but got {len(shape)}-dimensional tensor"
        ):
            F.max_pool1d(T.ones(*shape), 2, return_indices=True)
    v, i = F.max_pool1d_with_indices(T.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    assert v.tolist() == [[3.0, 2.0]] and i.tolist() == [[1, 2]]


def test_fuzz_4461_mvlgamma_int_p_and_parse_orders():
    """Fuzz seed 4461: mvlgamma's p is the parser's int (no float, no bool); multilabel_margin_loss parses its
    tensors before the shape checks; a Transformer encoder or decoder of no layers reads layers[0]"""
    T = minitorch
    x = T.tensor([2.5, 3.0], dtype=T.float64)
    for p, kind in ((0.001, "float"), (2.0, "float"), (True, "bool")):
        with pytest.raises(
            TypeError, match=re.escape(f"mvlgamma(): argument 'p' (position 2) must be int, not {kind}")
        ):
            T.mvlgamma(x, p)
    np.testing.assert_allclose(T.mvlgamma(x, np.int64(2)).numpy(), T.mvlgamma(x, 2).numpy(), rtol=0)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        T.mvlgamma(x, 0)
    with pytest.raises(
        TypeError,
        match=re.escape("multilabel_margin_loss(): argument 'target' (position 2) must be Tensor, not str"),
    ):
        T.nn.functional.multilabel_margin_loss(T.randn(5, 5, 5), "abc")
    with pytest.raises(IndexError, match="index 0 is out of range"):
        T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(4, 2), 0)(T.ones(3, 4))
    with pytest.raises(IndexError, match="index 0 is out of range"):
        T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(4, 2), 0)(T.ones(3, 4), T.ones(3, 4))


def test_fuzz_4462_sub_casts_the_negated_alpha():
    """Fuzz seed 4462: PyTorch's sub runs add's kernel with -alpha, so the checked cast is of -alpha: int8's
    alpha=-128 overflows, alpha=128 fits (and subtracts -128 * other, wrapping)"""
    T = minitorch
    a, b = T.tensor([5], dtype=T.int8), T.tensor([-4], dtype=T.int8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        a.sub(b, alpha=-128)
    assert a.sub(b, alpha=128).tolist() == [5]  # 5 - 128 * -4 = 517, which wraps to 5 in int8
    i32 = T.tensor([5], dtype=T.int32)
    for f in (
        lambda: i32.sub(i32, alpha=-(2**31)),
        lambda: T.sub(i32, i32, alpha=-(2**31)),
        lambda: i32.clone().sub_(i32, alpha=-(2**31)),
    ):
        with pytest.raises(RuntimeError, match="value cannot be converted to type int without overflow"):
            f()
    assert T.tensor([5]).sub(T.tensor([-4]), alpha=-(2**63)).tolist() == [5]  # int64's min negates to itself
    with pytest.raises(RuntimeError, match="value cannot be converted to type int without overflow"):
        i32.add(i32, alpha=2**31)


def test_fuzz_4463_parse_orders_grid_sampler_pinv_bce_weight():
    """Fuzz seed 4463: grid_sampler_2d/3d parse their arguments, then ATen's common checks (the grid's last
    dim) before their rank's; linalg.pinv's overloads all take a bool hermitian; binary_cross_entropy refuses
    a weight that requires grad (its autograd wrapper's check) before the kernel's dtype check"""
    T = minitorch
    with pytest.raises(
        TypeError, match=re.escape("grid_sampler_3d(): argument 'grid' (position 2) must be Tensor, not int")
    ):
        T.grid_sampler_3d(T.tensor(2.4), 1, 0, False, False)
    with pytest.raises(RuntimeError, match="expected grid to have size 3 in last dimension"):
        T.grid_sampler_3d(T.ones(1, 1, 2, 2, 2), T.zeros(1, 2, 2, 2), 0, 0, False)
    with pytest.raises(RuntimeError, match="expected 5D input and grid with same number of dimensions"):
        T.grid_sampler_3d(T.ones(1, 1, 2, 2), T.zeros(1, 2, 2, 2), 0, 0, False)
    with pytest.raises(RuntimeError, match="expected 4D input and grid with same number of dimensions"):
        T.grid_sampler_2d(T.ones(1, 1, 2, 2, 2), T.zeros(1, 2, 2, 2, 3), 0, 0, False)
    r = T.grid_sampler_2d(T.arange(4.0).reshape(1, 1, 2, 2), T.zeros(1, 1, 1, 2), 0, 0, True)
    assert r.tolist() == [[[[1.5]]]]
    e = T.eye(2, dtype=T.float64)
    for args, kw in (
        ((3, -4), {}),
        ((), {"hermitian": 1}),
        ((T.tensor(0.1), 2), {}),
        ((), {"rtol": 0.1, "hermitian": 1}),
    ):
        with pytest.raises(
            TypeError, match=re.escape("linalg_pinv() received an invalid combination of arguments")
        ):
            T.linalg.pinv(e, *args, **kw)
    np.testing.assert_allclose(T.linalg.pinv(e * 2, 0.1, True).numpy(), np.eye(2) / 2, rtol=1e-15)
    w = T.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        T.nn.functional.binary_cross_entropy(T.full((4,), 0.5), T.ones(4), w)
    with T.no_grad():
        assert T.nn.functional.binary_cross_entropy(T.full((4,), 0.5), T.ones(4), w).item() == pytest.approx(
            math.log(2)
        )


def test_fuzz_4464_checked_numbers_norm_dim_tensor_margin_parse():
    """Fuzz seed 4464: hardshrink's lambd and threshold's value go into the input's floating type with the
    checked conversion (threshold's threshold into float for float16/bfloat16, where it compares); torch.norm's
    dim takes a one-element integer or bool tensor (vector_norm's int[1]); multi_margin_loss parses p and
    margin as Numbers before the shape checks"""
    T = minitorch
    F = T.nn.functional
    for dt, v, name in (
        (T.float16, 1e30, "c10::Half"),
        (T.bfloat16, 1e39, "c10::BFloat16"),
        (T.float32, 1e39, "float"),
    ):
        x = T.tensor([-7142.9, 0.25]).to(dt)
        with pytest.raises(RuntimeError, match=f"value cannot be converted to type {name} without overflow"):
            F.hardshrink(x, v)
        with pytest.raises(RuntimeError, match=f"value cannot be converted to type {name} without overflow"):
            F.threshold(x, 0.0, v)
    h = T.tensor([-7142.9, 0.25], dtype=T.float16)
    assert F.threshold(h, 1e30, 2.0).tolist() == [2.0, 2.0]  # compared in float: 1e30 fits there
    assert F.hardshrink(h, math.inf).tolist() == [0.0, 0.0]
    x = T.tensor([[3.0, 4.0]], dtype=T.float64)
    assert T.norm(x, 2, T.tensor(True)).tolist() == [5.0]
    assert T.norm(T.tensor(1.5, dtype=T.float64), 0, T.tensor(False)).item() == 1.0
    with pytest.raises(
        IndexError, match=re.escape("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    ):
        T.norm(T.tensor([1.06]), 2, T.tensor([True]))
    for d in (T.tensor([0, 0]), T.tensor(0.0)):
        with pytest.raises(
            TypeError,
            match=re.escape(
                "linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not Tensor"
            ),
        ):
            T.norm(x, 2, d)
    with pytest.raises(
        TypeError,
        match=re.escape("multi_margin_loss(): argument 'p' (position 3) must be Number, not Tensor"),
    ):
        F.multi_margin_loss(T.ones(4, 1), T.ones(1, 1), T.tensor([1.0]))
    with pytest.raises(
        TypeError,
        match=re.escape("multi_margin_loss(): argument 'margin' (position 4) must be Number, not Tensor"),
    ):
        F.multi_margin_loss(T.ones(4, 1), T.ones(4, dtype=T.int64), 1, T.tensor([1.0]))


def test_par23_symint_start_and_narrow_tensor():
    """slice_scatter's start/end/step are PyTorch's SymInt? / SymInt (a one-element integer tensor of any rank
    stands for each); narrow's tensor start is PyTorch's narrow.Tensor overload (a 0-dim integral tensor, checked
    before the dim), tried before the int row"""
    setup = "x = torch.arange(12.).reshape(4, 3); s = torch.ones(2, 3); T = torch.tensor"
    calls = [
        "torch.slice_scatter(x, s, 0, T([1]), T([3]))",
        "torch.slice_scatter(x, s, 0, T(1), T(3))",
        "torch.slice_scatter(x, s, 0, T([[1]]), 3)",
        "torch.slice_scatter(x, s, 0, 1, 3, T([1]))",
        "x.slice_scatter(s, start=T([1]), end=T([3]))",
        "torch.slice_scatter(x, s[:1], 0, None, T([1]))",
        "torch.slice_scatter(x, s, 0, T([1.0]), 3)",
        "torch.slice_scatter(x, s, 0, T([1, 2]), 3)",
        "torch.slice_scatter(x, s, 0, 1.5, 3)",
        "torch.slice_scatter(x, s, 0, True, 3)",
        "torch.slice_scatter(x, s, T([0]), 1, 3)",
        "torch.slice_scatter(x, s, 0, 'a', 3)",
        "torch.narrow(x, 0, T([1]), 2)",
        "torch.narrow(x, 0, T(1), 2)",
        "torch.narrow(x, 0, T([1.0]), 2)",
        "torch.narrow(x, 0, T(True), 2)",
        "x.narrow(0, T([1]), 2)",
        "torch.narrow(x, 5, T([1.0]), 2)",
        "torch.narrow(x, 0, T(9), 2)",
        "torch.narrow(x, 0, T(2), 5)",
        "torch.narrow(torch.tensor(1.), 0, T(0), 1)",
        "torch.narrow(x, 0, start=T(1), length=2)",
        "torch.narrow(x, 0, 1.5, 2)",
        "x.narrow(0, 'a', 2)",
        "torch.narrow(x, 0, T(1), 2.0)",
        "torch.narrow(x, 0, T(1), T([2]))",
    ]
    _par21_compare(setup, calls)


def test_par23_fuzz_leads():
    """Calls the differential fuzzer found answered otherwise than PyTorch: lu without pivoting of an empty
    input, the legacy constructor's varargs size of tensors, rsub's Tensor input, Fraction/Decimal as numbers,
    embedding's renorm of weight.detach(), cross of bool, svd_lowrank in PyTorch's steps (bmm's and mv's check
    orders), index_fill's check order and empty self, einsum's sublist read in Python's protocols, pad's int64
    overflow, lobpcg's symmetrization first, instance_norm of no channels, broadcasting's trailing-most
    mismatch"""
    setup = (
        "import fractions, decimal\n"
        "x = torch.tensor([1., 2.]); T = torch.tensor; o = lambda s, d=torch.float32: torch.ones(s, dtype=d)\n"
        "Fr = fractions.Fraction(1, 2)"
    )
    calls = [
        "torch.lu(torch.zeros(0, 3, 3), pivot=False)",
        "torch.lu(torch.zeros(2, 0, 3), pivot=False, get_infos=True)",
        "torch.linalg.lu(torch.zeros(0, 5), pivot=False)",
        "torch.linalg.lu(torch.zeros(0, 3, dtype=torch.int64), pivot=False)",
        "torch.linalg.lu_factor_ex(torch.zeros(5, 0), pivot=False)",
        "torch.lu(torch.zeros(3, 3), pivot=False)",
        "x.new(T(1), T(2)).shape",
        "x.new(T([1]), T([2])).shape",
        "x.new(2, T(2)).shape",
        "x.new(T(2**63 - 1), -1, False)",
        "x.new(T([[3, 4]])[..., ::2], 3, 2).shape",
        "x.new(2, 2.5)",
        "x.new(2, T(2.5))",
        "x.new(T(True), 2)",
        "x.new(True, 2)",
        "x.new(2, None)",
        "torch.Tensor(T(2), 3).shape",
        "x.new(T(1.), 2)",
        "torch.rsub(1, 3, 1)",
        "torch.rsub(1, 3)",
        "torch.rsub(1, x)",
        "torch.rsub(x, 3, 2)",
        "torch.rsub(x, x, alpha=2)",
        "torch.rsub(x, x, 2)",
        "torch.rsub(x, Fr)",
        "torch.full((2,), Fr)",
        "torch.clamp(x, Fr)",
        "x.clone().fill_(Fr)",
        "torch.lerp(x, x, Fr)",
        "x.masked_fill(x > 1, Fr)",
        "torch.maximum(x, Fr)",
        "F.embedding(T([0, 1]), [[1.0, 2.0], [3.0, 4.0]], max_norm=1.0)",
        "F.embedding(T([0, 1]), 3, max_norm=1.0)",
        "torch.cross(o(3, torch.bool), o(3, torch.int64), dim=0)",
        "torch.cross(o(3, torch.bool), o(3, torch.bool), dim=0)",
        "torch.cross(o(3, torch.int64), o(3, torch.bool), dim=0)",
        "torch.linalg.cross(o(3, torch.bool), o(3, torch.int64))",
        "torch.svd_lowrank(o((3, 3, 4), torch.int64), 0, 2)",
        "torch.svd_lowrank(o((4, 2, 3), torch.bool), False)",
        "torch.svd_lowrank(o((3, 3, 4), torch.bool), 1, 3)",
        "torch.svd_lowrank(o((3, 3, 4), torch.int64), 2)",
        "torch.svd_lowrank(o((2, 3), torch.int64), 0)",
        "torch.svd_lowrank(o((3, 3)), 0)[1]",
        "torch.bmm(o((2, 3, 4), torch.bool), o((2, 4, 0)))",
        "torch.bmm(o((2, 3, 0), torch.int64), o((2, 0, 2)))",
        "torch.bmm(o((2, 3, 4), torch.bool), o((2, 4, 1)))",
        "torch.bmm(o((2, 20, 20), torch.bool), o((2, 20, 20)))",
        "torch.bmm(o((2, 20, 20), torch.bool), o((2, 20, 20), torch.bool))",
        "torch.mm(o((3, 4), torch.bool), o((4, 0), torch.bool))",
        "torch.mm(o((3, 0), torch.bool), o((0, 2), torch.bool))",
        "torch.mv(o((3, 4), torch.bool), o(4))",
        "torch.mv(o((0, 4)), o(4, torch.int64))",
        "torch.index_fill(T([4], dtype=torch.int32), -2, T([0]), float('inf'))",
        "torch.index_fill(T([4], dtype=torch.int32), 0, T([0.]), float('inf'))",
        "torch.index_fill(T([4], dtype=torch.int32), 0, T([[0]]), float('inf'))",
        "torch.index_fill(T([4], dtype=torch.int32), -2, T([0]), T([1]))",
        "torch.index_fill(torch.empty(0, 4), -2, T([0]), -0.5)",
        "torch.index_fill(torch.empty(0), 0, T([0, 0, 0]), float('nan'))",
        "torch.index_fill(torch.empty(0, 4), 1, T([9]), -0.5)",
        "torch.empty(3, 0).index_fill_(0, T([-9]), -0.5)",
        "torch.empty(0, 4).index_fill_(0, T([0]), -0.5)",
        "torch.einsum(o((2, 3)), T([0, 1]), o((3, 4)), T([1, 2]))",
        "torch.einsum(o((2, 3)), [T(0), 1], o((3, 4)), [1, 2], T([0, 2]))",
        "torch.einsum(o((2, 3)), [0, True])",
        "torch.einsum(o((4, 1)), T([[-0.69], [1.58], [0.], [1.]]))",
        "torch.einsum(o((3, 4)), o((3, 4)))",
        "torch.einsum(o((4, 1, 1, 2)), T([0]))",
        "torch.einsum(o((2, 3)), [0.0, 1])",
        "torch.einsum(o((2, 3)), 'ab')",
        "F.pad(o((1, 3, 4)), [5 * 10**29, 5 * 10**29], 'reflect')",
        "F.pad(o((1, 3, 4)), [1, 2**63])",
        "o((3, 4)).stft(1e30, 1e30, 0.001)",
        "o((3, 4)).stft(2**70, center=False, return_complex=True)",
        "torch.lobpcg(o(()).requires_grad_(), 0, 'constant')",
        "torch.lobpcg(o(()).requires_grad_(), 0.5, 0)",
        "torch.lobpcg(o((5, 4, 3, 4)).requires_grad_(), 1)",
        "torch.lobpcg(o(3).requires_grad_(), 1)",
        "torch.lobpcg(o((5, 1, 5)).requires_grad_(), [1])",
        "torch.lobpcg(o((5, 5), torch.bool), 0)",
        "torch.lobpcg(torch.eye(5), 0)",
        "torch.nn.InstanceNorm2d(0.001, 1e30)(torch.empty((0, 1, 8))[..., ::2])",
        "F.instance_norm(torch.empty((2, 0, 8)))",
        "torch.nn.InstanceNorm2d(2)(torch.empty((0, 3, 8, 8)))",
        "o((3, 4)) + o((4, 3))",
        "o((2, 3, 4)) + o((3, 2, 4))",
        # seed 5400: grid_sampler_2d/3d's parser before the rank check; a 0-dim cumsum/cumprod fills any dtype
        "torch.grid_sampler_3d(T(1.0), 3, 0, False, False)",
        "torch.grid_sampler_2d(T(1.0), 3, 0, False, False)",
        "torch.grid_sampler_2d(o((1, 1, 3, 3)), torch.zeros(1, 2, 2, 2), 0, 0, False)",
        "torch.cumsum(T(float('inf'), dtype=torch.float64), 0, dtype=torch.bool)",
        "torch.cumprod(T(2.), 0, dtype=torch.bool)",
        "torch.cumsum(T(3), 0, dtype=torch.float16)",
        "torch.cumsum(T([1.], dtype=torch.float64), 0, dtype=torch.bool)",
        "torch.cumsum(torch.ones(0), 0, dtype=torch.bool)",
        # seed 5401: linalg.qr checks A before its mode
        "torch.linalg.qr(o((2, 4), torch.int8), 'replicate')",
        "torch.linalg.qr(o(4, torch.int8), 'replicate')",
        "torch.linalg.qr(o((2, 4)), 'replicate')",
    ]
    _par21_compare(setup, calls)


@pytest.mark.parametrize("number", ["fraction", "decimal"])
def test_par23_fraction_and_decimal_are_no_numbers(number):
    """PyTorch's parser takes Python and NumPy numbers only: a Fraction or a Decimal (which have __float__) is
    refused by every binary op spelling, the operators answering NotImplemented (the words of the functions'
    refusal are ours, "other must be a Tensor or a number")"""
    import decimal
    import fractions

    T = minitorch
    v = fractions.Fraction(1, 2) if number == "fraction" else decimal.Decimal(1)
    x = T.tensor([1.0, 2.0])
    for call in (
        lambda: T.add(x, v),
        lambda: T.mul(x, v),
        lambda: T.sub(x, v),
        lambda: T.div(x, v),
        lambda: x.add(v),
        lambda: x.clone().add_(v),
        lambda: T.add(x, 1, alpha=v),
        lambda: T.pow(x, v),
        lambda: T.eq(x, v),
        lambda: T.where(x > 1, x, v),
        lambda: x + v,
        lambda: x * v,
    ):
        with pytest.raises(TypeError):
            call()
    assert x.tolist() == [1.0, 2.0]
    # NumPy scalars stay numbers
    assert T.add(x, np.float64(0.5)).tolist() == [1.5, 2.5]
    assert T.full((2,), np.int64(3)).tolist() == [3.0, 3.0]


def test_fuzz_4465_cross_entropy_int_input_and_lu_unpack_pivots_shape():
    """Fuzz seed 4465: cross_entropy of a batched integer input with a 0-d target meets log_softmax's dtype
    check before the batch sizes; lu_unpack checks the pivots' shape when it unpacks them"""
    T = minitorch
    F = T.nn.functional
    with pytest.raises(
        NotImplementedError, match="\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'"
    ):
        F.cross_entropy(T.tensor([[2], [-2]]), T.tensor(-2))
    with pytest.raises(
        ValueError, match=re.escape("Expected input batch_size (2) to match target batch_size (0).")
    ):
        F.cross_entropy(T.ones(2, 3), T.tensor(1))
    lu = T.ones(1, 1, 4, 3, dtype=T.float64)
    for piv in (T.tensor(5, dtype=T.int32), T.ones(2, dtype=T.int32)):
        with pytest.raises(
            ValueError,
            match=re.escape(f"Expected LU_pivots to have shape [1, 1, 3] but got {list(piv.shape)} instead."),
        ):
            T.lu_unpack(lu, piv)
    assert T.lu_unpack(lu, T.ones(2, dtype=T.int32), unpack_pivots=False)[0].numel() == 0
    a = T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64)
    P, L, U = T.lu_unpack(*T.linalg.lu_factor(a))
    np.testing.assert_allclose((P @ L @ U).numpy(), a.numpy(), rtol=1e-15)


def test_fuzz_4467_dim_wrap_first_and_other_orders():
    """Fuzz seed 4467: scatter/scatter_add/scatter_reduce wrap the dim before their other checks; the feature
    dropouts read input.dim() before a NaN p's kernel check; one_hot of int64's max wraps its class count
    negative (zeros' error) after the non-negative check; LSTM indexes hx[0], hx[1] for its rank check"""
    T = minitorch
    F = T.nn.functional
    msg = re.escape("Dimension out of range (expected to be in range of [-1, 0], but got 5)")
    for f in (
        lambda: T.scatter_add(T.tensor(1e-40, dtype=T.float64), 5, T.tensor([0]), T.tensor(1)),
        lambda: T.scatter(T.ones(2, dtype=T.float64), 5, T.tensor([0]), T.tensor([1])),
        lambda: T.scatter_reduce(T.ones(2, dtype=T.float64), 5, T.tensor([0]), T.tensor([1]), "bad"),
    ):
        with pytest.raises(IndexError, match=msg):
            f()
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        T.scatter(T.ones(2, dtype=T.float64), 0, T.tensor([0]), T.tensor([1]))
    for f in (F.dropout1d, F.dropout2d, F.dropout3d):
        with pytest.raises(AttributeError, match="'int' object has no attribute 'dim'"):
            f(1, math.nan)
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            f(1, 1.5)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got nan"):
        F.dropout2d(T.ones(2, 3, 4), math.nan)
    with pytest.raises(RuntimeError, match="zeros: Dimension size must be non-negative."):
        F.one_hot(T.tensor([BIG, 1]))
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        F.one_hot(T.tensor([BIG, -1]))
    with pytest.raises(
        RuntimeError, match=re.escape("hx and cx should also be 3-D but got (2-D, 2-D) tensors")
    ):
        T.nn.LSTM(3, 2)(T.ones(5, 4, 3), T.ones(4, 5, 2))


def test_fuzz_4468_put_parses_accumulate_when_nothing_is_written():
    """Fuzz seed 4468: put's accumulate is the parser's bool even for an empty index"""
    T = minitorch
    e = T.empty(0, 5, dtype=T.int64)
    with pytest.raises(TypeError, match="argument 'accumulate' \\(position 3\\) must be bool, not Tensor"):
        e.put(e, e, T.tensor([0]))
    with pytest.raises(TypeError, match="argument 'accumulate' \\(position 4\\) must be bool, not int"):
        T.put(T.ones(3), T.tensor([0]), T.tensor([2.0]), 1)
    assert T.ones(3).put_(T.tensor([0, 0]), T.tensor([2.0, 3.0]), True).tolist() == [6.0, 1.0, 1.0]


def test_fuzz_4470_trapezoid_parses_x_before_an_empty_dim():
    """Fuzz seed 4470: trapz/trapezoid/cumulative_trapezoid refuse a non-tensor x in the parser's words even
    when the integrated dim is empty (which returns before reading x)"""
    T = minitorch
    y = T.empty(0, 2, 1, 0, dtype=T.int64)
    for f, name in (
        (T.trapz, "trapz"),
        (T.trapezoid, "trapezoid"),
        (T.cumulative_trapezoid, "cumulative_trapezoid"),
    ):
        with pytest.raises(
            TypeError, match=re.escape(f"{name}() received an invalid combination of arguments")
        ):
            f(y, [-3, 3, 2, 0])
    assert T.trapezoid(T.ones(3), T.tensor([1.0, 2.0, 4.0])).item() == 3.0
    assert tuple(T.trapezoid(y).shape) == (0, 2, 1) and T.trapezoid(y).dtype == T.int64


def test_fuzz_4472_norm_input_dtype_first_and_histc_int_bins():
    """Fuzz seed 4472: torch.norm with a dtype is vector_norm, which refuses a non-floating input first (before
    the empty-tensor check and the cast); histc's bins is the parser's int"""
    T = minitorch
    msg = "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"
    with pytest.raises(NotImplementedError, match=msg):
        T.norm(T.empty(1, 0, dtype=T.int64), -1, dtype=T.float16)
    with pytest.raises(NotImplementedError, match=msg):
        T.ones(2, 3, dtype=T.int64).norm(2, dtype=T.float32)
    assert T.norm(T.ones(2, 2), 2, dtype=T.float64).item() == 2.0
    for b, kind in ((2.0, "float"), (True, "bool"), (T.tensor(-1.27), "Tensor")):
        with pytest.raises(
            TypeError, match=f"histc\\(\\): argument 'bins' \\(position \\d\\) must be int, not {kind}"
        ):
            T.histc(T.tensor([1.18]), b)
    assert T.histc(T.tensor([0.0, 1.0, 1.0]), T.tensor(2)).tolist() == [1.0, 2.0]


def test_fuzz_4477_inplace_rrelu_orders_its_bounds_only():
    """Fuzz seed 4477: PyTorch's in-place rrelu only checks lower <= upper (NaN fails it), so in eval an
    infinite bound is leaky_relu_ with that mean slope; the out-of-place forms refuse non-finite bounds first"""
    T = minitorch
    F = T.nn.functional
    x = T.tensor([-1.0, 2.0], dtype=T.float64)
    for call in (lambda y: T.rrelu_(y, 0.1, math.inf), lambda y: F.rrelu(y, 0.1, math.inf, inplace=True),
                 lambda y: F.rrelu_(y, 0.1, math.inf), lambda y: T.nn.RReLU(0.1, math.inf, True).eval()(y)):  # fmt: skip
        y = x.clone()
        assert call(y) is y and y.tolist() == [-math.inf, 2.0]
    y = x.clone()
    T.rrelu_(y, -math.inf, 0.3)
    assert y.tolist() == [math.inf, 2.0]  # slope -inf
    for lower, upper, training in [(math.nan, 0.3, False), (0.5, 0.3, True), (math.nan, 0.3, True)]:
        with pytest.raises(
            RuntimeError, match="^Lower bound should be less than or equal to the upper bound$"
        ):
            T.rrelu_(x.clone(), lower, upper, training)
    with pytest.raises(RuntimeError, match="rrelu: upper bound must be finite, got inf"):
        T.rrelu_(x.clone(), 0.1, math.inf, True)  # (PyTorch: its uniform draw's internal check)
    with pytest.raises(RuntimeError, match="rrelu: upper bound must be finite, got inf"):
        T.rrelu(x, 0.1, math.inf)


def test_fuzz_4480_clamp_with_a_nan_number_bound_fills_nan_first():
    """Fuzz seed 4480: PyTorch's clamp with two number bounds fills NaN when either is NaN, before converting
    the other to the dtype (so a float16 tensor clipped to (1e30, nan) is NaN, not min's overflow)"""
    T = minitorch
    nan = math.nan
    h = T.tensor([[0.5, -0.8], [1.9, -1.4]]).half()
    for lo, hi in [(1e30, nan), (nan, 1e30), (nan, nan), (0.5, nan)]:
        r = T.clamp(h, lo, hi)
        assert r.dtype == T.float16 and r.shape == (2, 2) and r.isnan().all().item()
        y = h.clone()
        assert T.clip_(y, min=lo, max=hi) is y and y.isnan().all().item()
    r = T.clamp(T.tensor([1, 2]), 0, nan)  # an integer tensor and a float bound: float32 NaN
    assert r.dtype == T.float32 and r.isnan().all().item()
    assert T.clamp(T.empty(0, 2, dtype=T.float64), 0, nan).shape == (0, 2)
    t = T.arange(6.0).reshape(2, 3).t()
    assert T.clamp(t, nan, 3).isnan().all().item()
    x = T.tensor([1.0, 2.0], requires_grad=True)
    T.clamp(x, nan, 3.0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]  # (the comparisons with NaN fail: no element passes)
    with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half without overflow"):
        T.clamp(h, 1e30, 2.0)  # no NaN: min's conversion is checked


def test_par24_unique_is_pytorchs_boolean_dispatch():
    """torch.unique/unique_consecutive pick one of four Python functions by the flags' truth (return_inverse
    first) before anything parses them: an unknown keyword or a sixth argument is Python's error in that
    function's name, a tensor of several values fails the truth test first; the methods are their own functions
    (Tensor.unique) calling them by keyword"""
    setup = "x = torch.tensor([4, -2, 4, 4, 5]); m = torch.tensor([[4, -2], [4, 4]])"
    calls = [
        "torch.unique(x, foo=1)",
        "torch.unique(x, return_inverse=True, foo=1)",
        "torch.unique(x, return_counts=True, foo=1)",
        "torch.unique(x, return_inverse=True, return_counts=True, foo=1)",
        "torch.unique(x, return_inverse=torch.ones(2), foo=1)",
        "torch.unique(x, return_counts=torch.ones(2), foo=1)",
        "torch.unique(x, False, torch.ones(2))",
        "torch.unique(x, True, False, False, 0, 5)",
        "torch.unique(x, return_inverse=torch.tensor(True))",
        "torch.unique(x, return_inverse='a')",
        "torch.unique(x, True, True, True)",
        "torch.unique(m, dim=1, return_counts=True)",
        "torch.unique(m, dim=0, foo=1)",
        "torch.unique(input=x)",
        "torch.unique()",
        "torch.unique(5)",
        "torch.unique_consecutive(x, foo=1)",
        "torch.unique_consecutive(x, return_inverse=True, foo=1)",
        "torch.unique_consecutive(x, return_inverse=True, return_counts=True)",
        "torch.unique_consecutive(x, return_counts=torch.ones(2), foo=1)",
        "torch.unique_consecutive(x, False, False, None, 3)",
        "torch.unique_consecutive()",
        "x.unique(foo=1)",
        "x.unique(return_inverse=True)",
        "x.unique(True, True, True, 0, 1)",
        "x.unique_consecutive(foo=1)",
        "x.unique_consecutive(return_counts=[1], foo=1)",
        "x.unique_consecutive(True)",
    ]
    _par21_compare(setup, calls)


def test_par24_amax_empty_dims_before_the_list_and_circular_pad_check_order():
    """amax/amin of an empty input check each listed dim in turn (wrapped, then non-empty) before the list as a
    whole (a repeat, a later dim's range); circular padding checks each padded dim, the outermost first: a side
    wrapping more than once, then a negative result size; a cropped dim may end empty; logsumexp's tensor dim"""
    setup = "e = torch.empty(0, 3); e3 = torch.empty(2, 0, 3); x = torch.arange(6.).reshape(1, 2, 3)"
    calls = [
        "torch.amax(e, (0, 0))",
        "torch.amin(e, (0, 0), keepdim=True)",
        "torch.amax(e, (0, -2))",
        "torch.amax(e, (0, 5))",
        "torch.amax(e, (5, 0))",
        "torch.amax(e, (1, 1))",
        "torch.amax(e, ())",
        "torch.amax(e, 1)",
        "torch.amin(torch.empty(0), (0, 0))",
        "torch.amax(e3, (0, 0, 1))",
        "torch.amax(e3, (1, 1, 0))",
        "torch.amax(torch.ones(3, 2), (1, 1))",
        "e.amax((0, 0))",
        "torch.nn.CircularPad1d(-1)(x)",
        "torch.nn.CircularPad1d(-3)(x)",
        "torch.nn.CircularPad1d(-4)(x)",
        "torch.nn.CircularPad1d((-2, -2))(x)",
        "torch.nn.CircularPad1d((-1, 4))(x)",
        "torch.nn.CircularPad1d((4, -1))(x)",
        "torch.nn.CircularPad1d((-1, 2))(x)",
        "torch.nn.CircularPad1d((-2, 1))(x)",
        "torch.nn.CircularPad1d((2, -1))(torch.arange(8.).reshape(1, 2, 4))",
        "torch.nn.CircularPad1d((-1, 3))(torch.arange(8.).reshape(1, 2, 4))",
        "torch.nn.CircularPad1d(-1)(x[0])",
        "torch.nn.CircularPad1d(-1)(torch.ones(3))",
        "torch.nn.CircularPad1d(-5)(torch.ones(1, 2, 0))",
        "torch.nn.CircularPad1d(-1)(torch.ones(1, 0, 3))",
        "torch.nn.CircularPad2d((-3, 0, 0, 0))(torch.ones(1, 2, 3, 3))",
        "torch.nn.CircularPad2d((0, 0, 5, 0))(torch.ones(1, 2, 3, 3))",
        "torch.nn.CircularPad2d((-3, 0, 5, 0))(torch.ones(1, 2, 3, 3))",
        "torch.nn.CircularPad2d((5, 0, -4, 0))(torch.ones(1, 2, 3, 3))",
        "torch.nn.CircularPad2d(-1)(torch.arange(18.).reshape(1, 2, 3, 3))",
        "torch.nn.CircularPad3d(-2)(torch.ones(1, 2, 3, 3, 3))",
        "F.pad(x, (-3, -1), mode='circular')",
        "F.pad(x, (-4, 1), mode='circular')",
        "F.pad(x[0], (-4, 1), mode='circular')",
        "F.pad(torch.ones(3), (-1, 1), mode='circular')",
        # logsumexp's dim is an int[1]: a one-element integer (or bool) tensor of any rank is its one dim
        "torch.logsumexp(torch.ones(2, 3), torch.tensor(1))",
        "torch.logsumexp(torch.ones(2, 3), torch.tensor([[1]]), keepdim=True)",
        "torch.logsumexp(torch.ones(2, 3), torch.tensor([True]))",
        "torch.logsumexp(torch.ones(2, 3), torch.tensor([1], dtype=torch.uint8))",
        "torch.logsumexp(torch.ones(2, 3), torch.tensor(5))",
        "torch.logsumexp(torch.ones(2, 3), torch.tensor([1, 0]))",
        "torch.logsumexp(torch.ones(2, 3), torch.tensor([1.0]))",
        "torch.logsumexp(torch.ones(2, 3), torch.tensor([], dtype=torch.int64))",
        "torch.ones(2, 3).logsumexp(torch.tensor([1]))",
    ]
    _par21_compare(setup, calls)
    # where PyTorch 2.15 reads memory it never wrote (docs/reliability.md), ours wraps what is left, or gives zeros
    T = minitorch
    x = T.arange(6.0).reshape(1, 2, 3)
    assert T.nn.CircularPad1d((-3, 1))(x).tolist() == [[[0.0], [0.0]]]
    assert T.nn.CircularPad1d((1, -3))(x).tolist() == [[[0.0], [0.0]]]
    assert T.nn.CircularPad1d((2, -2))(x).tolist() == [[[0.0] * 3, [3.0] * 3]]
    x.requires_grad_()
    T.nn.CircularPad1d((-2, 1))(x).sum().backward()
    assert x.grad.tolist() == [[[0.0, 0.0, 2.0], [0.0, 0.0, 2.0]]]


def test_par24_scatters_of_an_integer_self_refuse_a_src_requiring_grad():
    """slice/select/diagonal/as_strided_scatter of a bool or integer self with a src that requires grad: PyTorch
    computes the result, then its autograd refuses to record an integer one (after the shape checks)"""
    setup = "b = torch.zeros(3, dtype=torch.bool); s = torch.ones(3, requires_grad=True)"
    calls = [
        "torch.slice_scatter(b, s)",
        "torch.slice_scatter(b, s[:2], 0, 0, 2)",
        "torch.slice_scatter(b, torch.ones(4, requires_grad=True))",
        "torch.slice_scatter(torch.zeros(3, dtype=torch.int64), s)",
        "torch.slice_scatter(b, torch.ones(3, requires_grad=True, dtype=torch.complex64))",
        "torch.slice_scatter(b, s.detach())",
        "torch.slice_scatter(torch.zeros(3, dtype=torch.float16), s)",
        "torch.select_scatter(b, torch.tensor(1.0, requires_grad=True), 0, 0)",
        "torch.select_scatter(torch.zeros(3, dtype=torch.int32), torch.tensor(1.0, requires_grad=True), 0, 0)",
        "torch.diagonal_scatter(torch.zeros(3, 3, dtype=torch.bool), s)",
        "torch.diagonal_scatter(torch.zeros(3, 3, dtype=torch.bool), s.detach())",
        "torch.as_strided_scatter(b, s, (3,), (1,))",
        "b.slice_scatter(s)",
    ]
    _par21_compare(setup, calls)
    with minitorch.no_grad():
        assert minitorch.slice_scatter(minitorch.zeros(3, dtype=minitorch.bool), minitorch.ones(3)).all()
        s = minitorch.ones(3, requires_grad=True)
        r = minitorch.select_scatter(minitorch.zeros(3, dtype=minitorch.int64), s[0], 0, 1)
        assert r.tolist() == [0, 1, 0]


def test_par24_bce_with_logits_backward_refuses_a_broadcast_input():
    """torch.binary_cross_entropy_with_logits (no shape check of F's) broadcasts input to target's shape, but
    PyTorch's backward builds input's gradient in place in input's shape and refuses to grow it (seed 4474);
    under create_graph without pos_weight it sums back. A reduced loss's target gradient has input's shape,
    which autograd refuses for target's"""
    setup = (
        "a = torch.tensor(0.5, requires_grad=True); t = torch.tensor([1.0, 0.0]); tg = t.clone().requires_grad_()\n"
        "c = torch.tensor([[0.5], [0.2]], requires_grad=True); bce = torch.binary_cross_entropy_with_logits"
    )
    calls = [
        "bce(a, t, None, None, 1)",
        "bce(a, t, None, None, 0)",
        "bce(a, t, None, None, 1).backward()",
        "bce(a, t, None, None, 2).backward()",
        "bce(a, t, None, None, 0).sum().backward()",
        "bce(a, t, None, torch.ones(2), 2).backward()",
        "round(torch.autograd.grad(bce(a, t, None, None, 2), a, create_graph=True)[0].item(), 5)",
        "torch.autograd.grad(bce(a, t, None, torch.tensor([2.0, 3.0]), 1), a, create_graph=True)",
        "torch.autograd.grad(bce(a.detach(), tg, None, None, 2), tg)",
        "torch.autograd.grad(bce(a.detach(), tg, None, None, 0).sum(), tg)",
        "torch.autograd.grad(bce(a, tg, None, None, 2), tg)",
        "torch.autograd.grad(bce(torch.tensor([0.5], requires_grad=True), tg, torch.tensor([1.0, 2.0]), None, 1), tg)",
        "torch.autograd.grad(bce(c, torch.ones(2, 3), None, None, 1), c)",
        "torch.autograd.grad(bce(c.detach(), torch.ones(2, 3, requires_grad=True), None, None, 1), c)",
        "torch.autograd.grad(bce(c, torch.ones(2, 3), None, None, 0), c, torch.ones(2, 3))",
        "torch.autograd.grad(bce(torch.tensor([0.5, 0.2], requires_grad=True), t, None, None, 1), a)",
        "F.binary_cross_entropy_with_logits(a, t)",
    ]
    _par21_compare(setup, calls)
    with minitorch.no_grad():  # nothing recorded: the forward alone, as PyTorch's
        a = minitorch.tensor(0.5, requires_grad=True)
        v = minitorch.binary_cross_entropy_with_logits(a, minitorch.tensor([1.0, 0.0]), None, None, 1)
        assert abs(v.item() - 0.7240769841) < 1e-6


def test_par24_matrix_exp_of_half_precision_computes_in_float():
    """matrix_exp takes float16 and bfloat16 as PyTorch's CPU kernel does; computed in float32 and rounded
    (PyTorch 2.15's own half results are inf/NaN past 1 x 1 matrices, docs/reliability.md), against float64"""
    T = minitorch
    a = np.array([[0.1, 0.2, 0.3], [0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
    ref = T.linalg.matrix_exp(T.tensor(a, dtype=T.float64))
    for dt in (T.float16, T.bfloat16):
        r = T.matrix_exp(T.tensor(a, dtype=dt))
        assert r.dtype == dt
        rtol, atol = TOL[dt]
        np.testing.assert_allclose(r.double().numpy(), ref.numpy(), rtol=rtol, atol=atol)
    x = T.tensor([[3.0, 2.0], [0.5, -1.0]], dtype=T.float16, requires_grad=True)
    T.linalg.matrix_exp(x).sum().backward()
    assert x.grad.dtype == T.float16 and bool(T.isfinite(x.grad).all())
    assert T.matrix_exp(T.tensor([[10.0]], dtype=T.float16)).item() == 22032.0  # PyTorch's too
    with pytest.raises(NotImplementedError, match="\"pdist\" not implemented for 'Half'"):
        T.pdist(T.ones(3, 2, dtype=T.float16))


def test_par24_an_overloads_optional_int_refuses_for_the_next_row():
    """random_'s rows (no arguments, `from, int? to`, `to`): an `int?` (and a `Generator?`) of a generated
    overload refuses a wrong kind as the strict int does, so the call reaches arg_errors.cpp's "invalid
    combination of arguments" (every row listed, as PyTorch's) instead of one row's own TypeError; a row alone
    words a wrong generator as PyTorch's parser"""
    setup = (
        "x = torch.zeros(3)\n"
        "def msg(f):\n"
        "    try:\n"
        "        return list(f().shape)\n"
        "    except TypeError as e:\n"
        "        return str(e)\n"
    )
    calls = [
        f"msg(lambda: {c})"
        for c in (
            "x.random_(0, 5.0)",
            "x.random_(0, 'a')",
            "x.random_(0, True)",
            "x.random_(0, torch.tensor(5.0))",
            "x.random_(0, torch.tensor([5, 6]))",
            "x.random_(0, to=5.0)",
            "x.random_(to=3.0)",
            "x.random_(1.5)",
            "x.random_(0, None)",
            "x.random_(0, to=None)",
            "x.random_(0, torch.tensor(5))",
            "x.random_(to=3)",
            "x.random_(2, 4)",
            "x.random_(3, generator=1)",
            "x.random_(generator=1)",
            "x.random_(0, 3, generator='a')",
            "x.random_(3, generator=torch.Generator())",
            "x.random_(0, 3, generator=None)",
            "x.uniform_(generator=1)",
            "x.normal_(0, 1, generator=[])",
        )
    ]
    # bernoulli_'s rows are listed in our order (float p first, the cheap refusal), PyTorch's Tensor p first
    calls += [
        f"msg(lambda: {c}).splitlines()[0]"
        for c in ("x.bernoulli_(0.5, generator=1)", "x.bernoulli_(torch.ones(3), generator=1)")
    ]
    _par21_compare(setup, calls)


def test_fuzz_4481_range_needs_start_and_end():
    """Fuzz seed 4481: PyTorch's torch.range has two signatures, both with start and end required (torch.range()
    was a one-element tensor here); each of its Numbers is the parser's"""
    T = minitorch
    for args, kwargs, msg in [
        ((), {}, 'range() missing 2 required positional argument: "start", "end"'),
        ((1,), {}, 'range() missing 1 required positional arguments: "end"'),
        ((), {"end": 3}, 'range() missing 2 required positional argument: "start", "end"'),
        ((1, None), {}, "range(): argument 'end' (position 2) must be Number, not NoneType"),
        ((1, 3, "a"), {}, "range(): argument 'step' (position 3) must be Number, not str"),
    ]:
        with pytest.raises(TypeError, match=re.escape(msg)):
            T.range(*args, **kwargs)
    assert T.range(1, 3).tolist() == [1.0, 2.0, 3.0]
    assert T.range(start=0, end=2, step=0.5).tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]


def test_fuzz_4482_an_empty_index_has_no_dtype_check():
    """Fuzz seed 4482: PyTorch's gather/scatter family checks the index's dtype only when it has elements, so an
    empty float or bool index gathers nothing and scatters nothing (self's and src's dtypes still must agree)"""
    T = minitorch
    x = T.arange(4.0).reshape(2, 2)
    for idx in (T.empty(2, 0), T.empty(0), T.empty(2, 0, dtype=T.bool), T.empty(3, 0, dtype=T.float64)):
        assert x.gather(0, idx).shape == idx.shape
        assert T.equal(x.scatter(0, idx, 1.0), x)
        assert T.equal(x.scatter_add(0, idx, T.ones(idx.shape)), x)
        assert T.equal(x.scatter_reduce(0, idx, T.ones(idx.shape), "sum"), x)
    assert x.take_along_dim(T.empty(2, 0)).shape == (0,)
    with pytest.raises(RuntimeError, match=re.escape("gather(): Expected dtype int32/int64 for index")):
        x.gather(0, T.zeros(2, 2))
    with pytest.raises(RuntimeError, match=re.escape("scatter(): Expected dtype int32/int64 for index")):
        x.scatter_reduce(0, T.zeros(2, 2), x, "sum")
    with pytest.raises(
        RuntimeError, match=re.escape("scatter(): Expected self.dtype to be equal to src.dtype")
    ):
        x.scatter_reduce(0, T.empty(2, 0), T.ones(2, 0, dtype=T.float64), "sum")


def test_negative_sizes_in_pytorch_2_15s_words():
    """torch.zeros checks its size first in PyTorch 2.15 ("zeros: Dimension size must be non-negative."), the other
    factories keep empty's message; view/reshape name the bad entry's index and the whole shape"""
    T = minitorch
    for args in [(-2,), (0, -1), ((3, -1),)]:
        with pytest.raises(RuntimeError, match=re.escape("zeros: Dimension size must be non-negative.")):
            T.zeros(*args)
    with pytest.raises(RuntimeError, match=re.escape("zeros: Dimension size must be non-negative.")):
        T.zeros(-1, out=T.empty(0))
    for f in (T.ones, T.empty, T.rand):
        with pytest.raises(
            RuntimeError, match=re.escape("Trying to create tensor with negative dimension -1: [-1, 2]")
        ):
            f(-1, 2)
    with pytest.raises(
        RuntimeError, match=re.escape("Trying to create tensor with negative dimension -1: [-1]")
    ):
        T.ones(2).new_zeros(-1)
    with pytest.raises(RuntimeError, match=re.escape("invalid shape dimension -2 at index 0 of shape [-2]")):
        T.ones(2).view(-2)
    with pytest.raises(
        RuntimeError, match=re.escape("invalid shape dimension -2 at index 1 of shape [2, -2]")
    ):
        T.ones(2).reshape(2, -2)


def test_fuzz_4483_arange_step_must_be_finite_first():
    """Fuzz seed 4483: PyTorch 2.15's arange refuses a non-finite step before its other checks (an infinite step
    gave an empty tensor here, a NaN one the sign's message)"""
    T = minitorch
    for args, got in [((0, 0.07, math.inf), "inf"), ((0.5, 0.07, -math.inf), "-inf"), ((0, 1, math.nan), "nan"),
                      ((T.tensor(False), T.tensor(0.07), math.inf), "inf"), ((0, math.inf, math.nan), "nan")]:  # fmt: skip
        with pytest.raises(RuntimeError, match=re.escape(f"step must be finite but got {got}")):
            T.arange(*args)
    with pytest.raises(RuntimeError, match="unsupported range: 0 -> inf"):
        T.arange(0, math.inf)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        T.arange(0, 1, 0)
    assert T.arange(0, 1, 0.5).tolist() == [0.0, 0.5]


def test_fuzz_4485_dropout_checks_p_before_reading_inplace():
    """Fuzz seed 4485: F.dropout/alpha_dropout/feature_alpha_dropout check p's range before they read `inplace`'s
    truth value (an empty tensor there raised "Boolean value of Tensor with no values is ambiguous" first)"""
    T, F = minitorch, minitorch.nn.functional
    e = T.empty(0)
    for f in (F.dropout, F.alpha_dropout, F.feature_alpha_dropout):
        with pytest.raises(
            ValueError, match=re.escape("dropout probability has to be between 0 and 1, but got -3")
        ):
            f(e, -3, T.empty(0, dtype=T.int64), e)
        with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
            f(e, 0.3, True, e)
    x = T.ones(3)
    assert T.equal(F.alpha_dropout(x, 0.0, True, True), T.ones(3))


def test_fuzz_4486_pinv_parses_its_four_overloads_first():
    """Fuzz seed 4486: linalg.pinv is PyTorch's four C++ overloads; a dtype (or None) for rcond, rcond beside
    atol, or a non-bool hermitian is their invalid combination, before the input's dtype is read"""
    T = minitorch
    A = T.tensor([[4.0, 1.0], [2.0, 3.0]], dtype=T.float64)
    for args, kw, got in [((T.ones(2, 2, dtype=T.int64), T.int8), {}, "(Tensor, torch.dtype)"),
                          ((A, None), {}, "(Tensor, NoneType)"), ((A, None, True), {}, "(Tensor, NoneType, bool)"),
                          ((A,), {"rcond": 0.1, "atol": 0.2}, "(Tensor, atol=float, rcond=float)"),
                          ((A, 0.1, 1), {}, "(Tensor, float, int)")]:  # fmt: skip
        with pytest.raises(TypeError, match=re.escape(f"linalg_pinv() received an invalid combination of arguments - got {got}")):  # fmt: skip
            T.linalg.pinv(*args, **kw)
    want = np.linalg.pinv(A.numpy())
    for r in (
        T.linalg.pinv(A),
        T.linalg.pinv(input=A),
        T.linalg.pinv(A, 1e-3),
        T.linalg.pinv(A, T.tensor(1e-3)),
    ):
        np.testing.assert_allclose(r.numpy(), want, rtol=1e-12)


def test_fuzz_4487_normal_and_norm_in_pytorchs_order():
    """Fuzz seed 4487: normal(Tensor mean, Tensor std) multiplies in place into a tensor like mean, so an empty
    bool mean refuses an integer std by type promotion; torch.norm is Python in PyTorch and reads input.layout
    before anything else"""
    T = minitorch
    e = T.empty(0)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        T.normal(e.bool(), e.long())
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Bool"):
        T.normal(e.bool(), e)
    for mean, std in [(e.bool(), e.bool()), (e.int(), e.long()), (e.long(), e.int()), (e, e.long())]:
        r = T.normal(mean, std)
        assert r.dtype == mean.dtype and r.shape == (0,)
    for bad, name in [([T.tensor([3, 3])], "list"), (3, "int"), (None, "NoneType")]:
        with pytest.raises(AttributeError, match=f"'{name}' object has no attribute 'layout'"):
            T.norm(bad, 0)
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'layout'"):
        T.norm(input=None)
    assert T.norm(T.tensor([3.0, 4.0])).item() == 5.0


def test_fuzz_4490_class_losses_check_shapes_in_atens_order():
    """Fuzz seed 4490: nll_loss/cross_entropy of class indices check as ATen's nll_loss_nd: a 0-d target's batch
    size counts as 0 (a batched input of N > 0 is a mismatch; N = 0 meets its rank's next check), a 4-d input is
    nll_loss2d's (a 3-d target before the dtype, then the weight's count and the shapes in its own words)"""
    F = minitorch.nn.functional
    T = minitorch
    e = T.empty
    i64 = T.int64
    cases = [
        (F.nll_loss, e(0, 2, 1), T.tensor(1), {}, RuntimeError, "ArrayRef: invalid slice, N = 1; size = 0"),
        (F.cross_entropy, e(0, 2, 1), T.tensor(1.0), {}, RuntimeError, "ArrayRef: invalid slice, N = 1; size = 0"),
        (F.nll_loss, e(0, 2, 1, 3, 1), T.tensor(1.0), {}, RuntimeError, "ArrayRef: invalid slice"),
        (F.nll_loss, e(0, 2, 1, 3), T.tensor(1.0), {}, RuntimeError,
         "only batches of spatial targets supported (3D tensors) but got targets of dimension: 0"),
        (F.nll_loss, T.ones(2, 2, 1, 3), T.ones(2, 1), {}, RuntimeError,
         "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2"),
        (F.nll_loss, e(0, 2), T.tensor(1, dtype=T.uint8), {}, IndexError,
         "Dimension specified as 0 but tensor has no dimensions"),
        (F.cross_entropy, e(0, 2), T.tensor(1.0), {}, RuntimeError,
         "expected target dtype to be Long or Byte, but got Float"),
        (F.nll_loss, T.ones(2, 2, 1), T.tensor(1.0), {}, ValueError,
         "Expected input batch_size (2) to match target batch_size (0)."),
        (F.nll_loss, T.ones(2, 2, 1, 3), T.ones(2, 1, 2, dtype=i64), {"weight": T.ones(3)}, RuntimeError,
         "weight tensor should be defined either for all or no classes"),
        (F.nll_loss, T.ones(2, 2, 1, 3), T.ones(2, 1, 2, dtype=i64), {}, RuntimeError,
         "size mismatch (got input: [2, 2, 1, 3] , target: [2, 1, 2]"),
        (F.cross_entropy, T.ones(2, 2, 3, dtype=T.int32), T.ones(2, 3, dtype=i64), {}, NotImplementedError,
         "\"log_softmax_kernel_impl\" not implemented for 'Int'"),
        (F.cross_entropy, T.ones(2, 2, dtype=T.int32), T.tensor(1), {}, NotImplementedError,
         "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Int'"),
    ]  # fmt: skip
    for f, x, t, kw, exc, msg in cases:
        with pytest.raises(exc, match=re.escape(msg)):
            f(x, t, **kw)
    # the valid calls around them
    x = T.randn(2, 3, 1, 4, dtype=T.float64)
    t = T.tensor([[[0, 2, 1, 0]], [[1, 1, 2, 0]]])
    lp = np.log(np.exp(x.numpy()) / np.exp(x.numpy()).sum(1, keepdims=True))
    want = -np.take_along_axis(lp, t.numpy()[:, None], 1).mean()
    np.testing.assert_allclose(F.cross_entropy(x, t).item(), want, rtol=1e-12)
    assert F.nll_loss(T.ones(2), T.tensor(1)).item() == -1.0


def test_fuzz_4490_tensordot_of_one_element_is_a_dot():
    """Fuzz seed 4490: tensordot (and inner over it) checks the two dtypes agree after the dim lists, and where
    the product has one element it is PyTorch's dot of the flattened operands: bool refused, empty ones too"""
    T = minitorch
    b = T.ones(2, dtype=T.bool)
    for x, y, dims in [(T.empty(0, dtype=T.bool), T.empty(0, dtype=T.bool), 1), (b, b, 1),
                       (T.ones(2, 2, dtype=T.bool), T.ones(2, 2, dtype=T.bool), 2), (b, T.ones(2, 1, dtype=T.bool), 1)]:  # fmt: skip
        with pytest.raises(NotImplementedError, match="\"dot\" not implemented for 'Bool'"):
            T.tensordot(x, y, dims)
    with pytest.raises(NotImplementedError, match="\"dot\" not implemented for 'Bool'"):
        T.inner(T.empty(0, dtype=T.bool), T.empty(0, dtype=T.bool))
    with pytest.raises(RuntimeError, match="both inputs should have same dtype"):
        T.inner(T.ones(2), T.ones(2, dtype=T.float64))
    with pytest.raises(RuntimeError, match="both dimension lists should have same length"):
        T.tensordot(T.ones(2), T.ones(2, dtype=T.float64), ([0], []))
    # values and gradients through the dot path
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64, requires_grad=True)
    y = T.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=T.float64)
    r = T.tensordot(x, y, 2)
    assert r.shape == () and r.item() == np.tensordot(x.detach().numpy(), y.numpy(), 2)
    r.backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())
    assert T.tensordot(T.ones(2, 3, dtype=T.int8), T.ones(3, 2, dtype=T.int8), ([1, 0], [0, 1])).item() == 6
    assert T.inner(T.empty(0), T.empty(0)).item() == 0.0


def test_numpy_style_splits_take_their_overloads_keywords():
    """hsplit/vsplit/dsplit are PyTorch's two C++ overloads (int sections, int[] indices), by position or by those
    keyword names; indices_or_sections (the docs' name) is no parameter of either"""
    T = minitorch
    x = T.arange(16.0).reshape(4, 4)
    cases = [(T.hsplit(x, sections=2), 1, [2, 2]), (T.hsplit(x, indices=[1]), 1, [1, 3]),
             (x.hsplit(indices=(1, 3)), 1, [1, 2, 1]), (x.vsplit(sections=4), 0, [1, 1, 1, 1]),
             (T.hsplit(input=x, sections=2), 1, [2, 2]), (x.hsplit(1, 3), 1, [1, 2, 1])]  # fmt: skip
    for parts, dim, sizes in cases:
        assert [p.shape[dim] for p in parts] == sizes
        assert T.equal(T.cat(parts, dim), x)
    assert [p.shape for p in T.ones(2, 2, 4).dsplit(sections=4)] == [(2, 2, 1)] * 4
    for kw in (
        {"indices_or_sections": 2},
        {"indices": 2},
        {"sections": [1]},
        {"sections": 2, "indices": [1]},
    ):
        with pytest.raises(TypeError, match="hsplit\\(\\) received an invalid combination of arguments"):
            T.hsplit(x, **kw)


def test_legacy_new_names_itself_in_the_overflow_error():
    """x.new(2**70), Tensor(2**70): the parser's overflow under new()'s name, as PyTorch's constructor"""
    T = minitorch
    msg = "new(): argument 'size' failed to unpack the object at pos {} with error \"Overflow when unpacking long long"
    with pytest.raises(TypeError, match=re.escape(msg.format(1))):
        T.ones(2).new(2**70)
    with pytest.raises(TypeError, match=re.escape(msg.format(2))):
        T.ones(2).new(2, 2**70)
    with pytest.raises(TypeError, match=re.escape(msg.format(1))):
        T.FloatTensor(2**70)
    assert T.ones(2).new(2, 3).shape == (2, 3)


def test_fuzz_4491_sinh_cosh_are_finite_up_to_the_overflow_point():
    """Fuzz seed 4491 (a docs/reliability.md row): float64 sinh/cosh are finite for abs(x) up to ~710.475, in every
    position of a tensor (PyTorch 2.15's vector path overflows to inf from 709.78), as NumPy's"""
    T = minitorch
    xs = np.array([709.9, 710.1201971326645, -710.3, 710.47, 710.48, -710.48, 88.9, -89.4] * 3)
    for layout in ("contiguous", "strided"):
        x = T.tensor(np.repeat(xs, 2), dtype=T.float64)[::2] if layout == "strided" else T.tensor(xs)
        for f, ref in ((T.sinh, np.sinh), (T.cosh, np.cosh)):
            with np.errstate(over="ignore"):
                want = ref(xs)
            np.testing.assert_allclose(f(x).numpy(), want, rtol=4e-16)
            y = x.clone()
            getattr(y, f.__name__ + "_")()
            np.testing.assert_allclose(y.numpy(), want, rtol=4e-16)


def test_fuzz_4491_max_unpool_to_an_empty_output_skips_the_kernel():
    """Fuzz seed 4491: max_unpool with an empty output size (kernel 0) returns the empty output before the kernel,
    as ATen: no dtype check (integer, bool inputs) and no index bounds; the shape checks before it still hold"""
    T, F = minitorch, minitorch.nn.functional
    idx = T.tensor([[[3], [3], [-1]], [[3], [5], [2]], [[-4], [-1], [4]]])
    for dt in (T.int64, T.float32, T.bool):
        r = F.max_unpool2d(T.ones(3, 3, 1, dtype=dt), idx, 0)
        assert r.shape == (3, 0, 0) and r.dtype == dt
    assert F.max_unpool1d(T.ones(3, 3, dtype=T.bool), T.zeros(3, 3, dtype=T.int64), 0).shape == (3, 0)
    with pytest.raises(NotImplementedError, match="\"max_unpool2d\" not implemented for 'Long'"):
        F.max_unpool2d(T.ones(3, 3, 1, dtype=T.int64), T.zeros(3, 3, 1, dtype=T.int64), 1)
    with pytest.raises(RuntimeError, match="elements in indices should be type int64 but got: Int"):
        F.max_unpool2d(T.ones(3, 3, 1), T.zeros(3, 3, 1, dtype=T.int32), 0)


def test_fuzz_4492_bernoulli_p_bce_bool_target_and_csr_int32_size():
    """Fuzz seed 4492: bernoulli's p (when given) is a float, a 1-d tensor or None the overloads' invalid
    combination; binary_cross_entropy_with_logits of a bool target is PyTorch's 1 - target error (two bool
    tensors), after log_sigmoid's dtype and before the shapes; a CSR tensor's inferred column count adds 1 to an
    int32 index in int32 (the largest wraps, numel's overflow)"""
    T, F = minitorch, minitorch.nn.functional
    p = T.tensor([0.5, 0.2])
    for bad, got in [(T.tensor([True, False]), "(Tensor, Tensor)"), (None, "(Tensor, NoneType)"),
                     ("a", "(Tensor, str)"), (T.tensor(0.5, requires_grad=True), "(Tensor, Tensor)")]:  # fmt: skip
        with pytest.raises(TypeError, match=re.escape(f"bernoulli() received an invalid combination of arguments - got {got}")):  # fmt: skip
            T.bernoulli(p, bad)
    for ok in (0.3, 1, T.tensor(0.5), T.tensor(True)):
        assert T.bernoulli(p, ok).shape == (2,)
    b = T.tensor([False, False, True, False])
    two_bool = "Subtraction, the `-` operator, with two bool tensors is not supported"
    for call in (lambda: F.binary_cross_entropy_with_logits(T.zeros(4, dtype=T.float64), b),
                 lambda: T.binary_cross_entropy_with_logits(T.zeros(2, 4), b),
                 lambda: T.binary_cross_entropy_with_logits(T.zeros(2, 4), b, pos_weight=T.ones(4))):  # fmt: skip
        with pytest.raises(NotImplementedError, match=re.escape(two_bool)):
            call()
    with pytest.raises(NotImplementedError, match="\"log_sigmoid_cpu\" not implemented for 'Bool'"):
        T.binary_cross_entropy_with_logits(b, b)
    with pytest.raises(RuntimeError, match=re.escape("output with shape [4] doesn't match the broadcast shape [2, 4]")):  # fmt: skip
        T.binary_cross_entropy_with_logits(T.zeros(2, 4), T.zeros(4), pos_weight=T.ones(4))
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        T.sparse_csr_tensor(T.tensor([0, 2]), T.tensor([0, 2**31 - 1], dtype=T.int32), T.tensor([-2.0, 0.0]))
    s = T.sparse_csr_tensor(T.tensor([0, 2]), T.tensor([0, 2**31 - 2], dtype=T.int32), T.tensor([-2.0, 1.0]))
    assert s.shape == (1, 2**31 - 1)


def test_fuzz_4493_vecdot_parses_first_and_empty_dims_index_in_pytorchs_words():
    """Fuzz seed 4493: linalg.vecdot checks x and y are tensors (its parser's name, linalg_vecdot) before the
    dtype; advanced indexing into a dim of size 0 raises PyTorch's message for it (no index, no dim)"""
    T = minitorch
    with pytest.raises(TypeError, match=re.escape("linalg_vecdot(): argument 'y' (position 2) must be Tensor, not float")):  # fmt: skip
        T.linalg.vecdot(T.empty(4, 2, 0, dtype=T.bool), float("nan"))
    with pytest.raises(TypeError, match=re.escape("linalg_vecdot(): argument 'x' (position 1) must be Tensor, not float")):  # fmt: skip
        T.linalg.vecdot(1.0, T.ones(2))
    assert T.linalg.vecdot(T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])).item() == 11.0
    x = T.empty(0, 0)
    for f in (lambda: x[T.tensor([0, 0, 0])], lambda: x.index_put_((T.tensor([0]),), T.tensor(1.0)),
              lambda: x[T.tensor([0]), T.tensor([0])], lambda: T.empty(0, 2).__setitem__(T.tensor([1]), T.empty(1, 2))):  # fmt: skip
        with pytest.raises(IndexError, match=re.escape("index is out of bounds for dimension with size 0")):
            f()
    with pytest.raises(IndexError, match=re.escape("index 5 is out of bounds for dimension 0 with size 3")):
        T.zeros(3, 2)[T.tensor([5])]
    assert T.empty(0, 3)[T.tensor([], dtype=T.int64)].shape == (0, 3)


def test_par25_elu_coefficients_convert_to_float():
    """PyTorch's elu kernel converts alpha, scale and input_scale to float for float, half and bfloat16 inputs
    (refusing a finite value past float's range, so celu's 1 / alpha too, before looking at the size); float64
    computes, and celu's backward then refuses an alpha float cannot hold (its 1.0 / alpha.toFloat())"""
    setup = (
        "x = torch.tensor([-1.0, 0.5, -1e-3, 2.0]); xd = x.double().requires_grad_()\n"
        "g = lambda y: torch.autograd.grad(y.sum(), xd)"
    )
    calls = [
        "F.celu(x, 1e-39)",
        "F.celu(x, -1e-39)",
        "F.celu(x, 2e-38)",
        "F.celu(x, 1e39)",
        "F.celu(x, 5e-324)",
        "F.celu(x, float('inf'))",
        "F.celu(x.half(), 1e-39)",
        "F.celu(x.bfloat16(), 1e-300)",
        "F.celu(torch.ones(0), 1e-39)",
        "F.celu(torch.ones(1, dtype=torch.int64), 1e-39)",
        "F.celu(x, 1e-39, inplace=True)",
        "torch.celu_(x.clone(), 1e-39)",
        "torch.nn.CELU(1e-39)(x)",
        "F.elu(x, 1e39)",
        "F.elu(x.half(), 1e39)",
        "F.elu(x.double(), 1e39)",
        "F.celu(x.double(), 1e-300)",
        "F.celu(x.double(), 5e-324)",
        "F.celu(x.double(), -5e-324)",
        "F.celu(xd, 1e39)",
        "g(F.celu(xd, 1e39))",
        "g(F.celu(xd.clone(), 1e39, inplace=True))",
        "g(F.celu(xd, 1e-300))",
        "g(F.celu(xd, -1e-300))",
        "g(F.celu(xd.clone(), 1e-300, inplace=True))",
    ]
    _par21_compare(setup, calls)


def test_par25_local_response_norm_of_4d_and_5d_input_checks_as_avg_pool3d():
    """F.local_response_norm pools a 4-D or wider input as PyTorch's 5-D view through avg_pool3d: the kernel's
    sign in its words, then its dtypes (CPU float16/bfloat16 and bool refused); a 3-D input through avg_pool2d"""
    setup = "a = torch.arange(24.).reshape(1, 3, 2, 4) / 8; f = F.local_response_norm"
    calls = [
        f"f(a.to({dt}){sh}, {size})"
        for dt in ("torch.float16", "torch.bfloat16", "torch.bool", "torch.int64", "torch.float64")
        for sh in ("", ".reshape(1, 3, 2, 2, 2)", ".reshape(1, 3, 8)", ".reshape(1, 3, 2, 1, 2, 2)")
        for size in (2, 0)
        if size
        or sh != ".reshape(1, 3, 8)"  # a 3-D input meets avg_pool2d's zero-stride check, another matter
    ]
    calls += [
        "f(a, -1)",
        "f(a, 7)",
        "f(a.half(), 2.5)",
        "f(torch.ones(0, 3, 2, 2).half(), 2)",
    ]
    _par21_compare(setup, calls)
    x = minitorch.arange(24.0).reshape(1, 3, 2, 4).requires_grad_()
    assert minitorch.autograd.gradcheck(
        lambda t: minitorch.nn.functional.local_response_norm(t, 2), x.double()
    )


def test_par25_max_pool1d_argument_sizes_in_pytorchs_words():
    """max_pool1d without indices runs ATen's check_max_pool1d (each argument of size 1, then signs, padding,
    output size, in its words) before the dtype; max_pool1d_with_indices and avg_pool1d check the rank, then
    each argument's one int (check1d), then pool in 2-d over a unit height"""
    setup = "x = torch.arange(16.).reshape(1, 2, 8)"
    args = [
        "(2, 2)",
        "2, (2, 2)",
        "2, 2, (0, 0)",
        "2, 2, 0, (1, 1)",
        "(2, 2, 2)",
        "()",
        "2, ()",
        "[2], [3]",
        "(2, 3), (3, 3)",
    ]
    calls = [f"F.max_pool1d(x, {a})" for a in args]
    calls += [f"F.max_pool1d(x, {a}, return_indices=True)" for a in args]
    calls += [f"torch.max_pool1d_with_indices(x, {a})" for a in args]
    calls += [f"F.avg_pool1d(x, {a})" for a in args[:3]]
    calls += [
        "F.max_pool1d(x, 0)",
        "F.max_pool1d(x, 2, 0)",
        "F.max_pool1d(x, 2, 2, -1)",
        "F.max_pool1d(x, 2, 2, 2)",
        "F.max_pool1d(x, 2, 2, 0, 0)",
        "F.max_pool1d(x, 9)",
        "F.max_pool1d(x, 5, 1, 0, 2)",
        "F.max_pool1d(x.int(), 2)",
        "F.max_pool1d(x.int(), (2, 2))",
        "F.max_pool1d(x.int(), 0)",
        "F.max_pool1d(x[None], (2, 2))",
        "F.max_pool1d(x[0, 0], 2)",
        "F.max_pool1d(torch.ones(1, 0, 8), (2, 2))",
        "F.max_pool1d(torch.ones(0, 2, 8), (2, 2))",
        "F.max_pool1d(x.requires_grad_(), (2, 2))",
        "F.max_pool1d(x[None], (2, 2), return_indices=True)",
        "F.max_pool1d(x, 9, return_indices=True)",
        "F.max_pool1d(torch.ones(1, 0, 8), 2, return_indices=True)",
        "F.avg_pool1d(x[None], (2, 2))",
        "F.avg_pool1d(torch.ones(1, 0, 8), (2, 2))",
        "torch.nn.MaxPool1d((2, 2))(x)",
        "torch.nn.MaxPool1d((2, 2), return_indices=True)(x)",
        "torch.max_pool1d(x, 2, 2, (0, 0))",
        "F.max_pool1d(x, 3, 2, 1, return_indices=True)",
        "F.max_pool1d(x, 3, 1, 1, 2, True, return_indices=True)",
    ]
    _par21_compare(setup, calls)


def test_par25_adaptive_pools_backward_refuses_an_empty_grad_output():
    """An adaptive pool to an output size of 0 returns the empty result, and PyTorch's backward kernel then
    refuses the empty grad_output (any empty dim past dim 0, shown in the caller's rank: the 1-d forms with
    their unit height, named by the 2-d kernel); an empty batch passes (seeds 4431-4432)"""
    setup = (
        "x2 = torch.ones(1, 2, 4, requires_grad=True); x3 = torch.ones(1, 2, 4, 4, requires_grad=True)\n"
        "x4 = torch.ones(1, 2, 4, 4, 4, requires_grad=True)\n"
        "def bw(y, x):\n"
        "    y = y[0] if isinstance(y, tuple) else y\n"
        "    return torch.autograd.grad(y.sum(), x, allow_unused=True)\n"
        "u = lambda *s: torch.ones(*s, requires_grad=True)"
    )
    calls = []
    for kind in ("avg", "max"):
        calls += [
            f"bw(F.adaptive_{kind}_pool1d(x2, 0), x2)",
            f"bw(F.adaptive_{kind}_pool1d(x2[0], 0), x2)",
            f"bw(F.adaptive_{kind}_pool2d(x3, 0), x3)",
            f"bw(F.adaptive_{kind}_pool2d(x3, (0, 2)), x3)",
            f"bw(F.adaptive_{kind}_pool2d(x3[0], (2, 0)), x3)",
            f"bw(F.adaptive_{kind}_pool3d(x4, 0), x4)",
            f"bw(F.adaptive_{kind}_pool3d(x4[0], (0, 2, 2)), x4)",
            f"bw(F.adaptive_{kind}_pool3d(x4, (2, 2, 0)), x4)",
            f"F.adaptive_{kind}_pool2d(x3, 0)",
            f"F.adaptive_{kind}_pool3d(x4, 0)",
            f"bw(F.adaptive_{kind}_pool2d(u(0, 2, 4, 4), 2), x3)",
            f"bw(F.adaptive_{kind}_pool3d(u(0, 2, 4, 4, 4), 2), x4)",
            f"bw(F.adaptive_{kind}_pool1d(u(2, 0, 4), 2), x2)",
            f"bw(F.adaptive_{kind}_pool2d(x3, (2, 3)), x3)",
            f"bw(F.adaptive_{kind}_pool3d(x4, (2, 3, 1)), x4)",
        ]
    calls += [
        "bw(F.adaptive_max_pool2d(x3, 0, return_indices=True), x3)",
        "bw(torch.nn.AdaptiveAvgPool2d(0)(x3), x3)",
    ]
    _par21_compare(setup, calls)


def test_par25_median_cumprod_lobpcg_dtype_corners():
    """median/nanmedian of an empty input answer PyTorch's NaN in the input's dtype before the kernel's dtype
    dispatch (True for bool); along a dim the empty-dim check comes first, then "median_out"; in-place cumsum_/
    cumprod_ of a 0-d bool tensor fill it with itself (no kernel); lobpcg keeps a given X's dtype (an integer or
    bool X fails its first norm) and takes its tolerance from PyTorch's float32/float64 table"""
    setup = "b0 = torch.tensor(True); be = torch.empty(0, dtype=torch.bool); e = torch.eye(6)"
    calls = [
        "torch.nanmedian(be)",
        "torch.median(be)",
        "be.nanmedian()",
        "torch.nanmedian(torch.empty(2, 0, dtype=torch.bool))",
        "torch.median(torch.empty(0, dtype=torch.int8))",
        "torch.median(torch.empty(0, dtype=torch.int32))",
        "torch.nanmedian(torch.tensor([True, False, True]))",
        "torch.nanmedian(b0)",
        "torch.nanmedian(b0, 0)",
        "torch.median(b0, 0)",
        "torch.nanmedian(be, 0)",
        "torch.median(be, 0, True)",
        "torch.nanmedian(be, 5)",
        "torch.nanmedian(torch.empty(2, 0, dtype=torch.bool), 0)",
        "torch.median(torch.empty(2, 0, dtype=torch.bool), 0)",
        "torch.nanmedian(torch.tensor([True, False]), 0)",
        "torch.nanmedian(torch.empty(0, 3, dtype=torch.bool), 1)",
        "b0.clone().cumprod_(0)",
        "b0.clone().cumsum_(0)",
        "b0.clone().cumprod_(0, dtype=torch.bool)",
        "b0.clone().cumprod_(1)",
        "torch.tensor([True]).cumprod_(0)",
        "be.clone().cumsum_(0)",
        "b0.cumprod(0)",
        "torch.tensor(5, dtype=torch.int8).cumprod_(0)",
        "torch.lobpcg(torch.eye(4, dtype=torch.float16), 1)",
        "torch.lobpcg(torch.eye(4, dtype=torch.bfloat16), 1)",
        "torch.lobpcg(torch.eye(4, dtype=torch.bool), 1)",
        "torch.lobpcg(torch.ones(2, 6, 6, dtype=torch.bool), 1)",
        "torch.lobpcg(e[:5, :5], 1, X=torch.ones(5, 1, dtype=torch.bool))",
        "torch.lobpcg(e, 1, X=torch.ones(6, 1, dtype=torch.int64))",
        "torch.lobpcg(e[:5, :5], 1, X=torch.ones(5, 1, dtype=torch.float64))",
        "torch.lobpcg(e.double(), 1, X=torch.ones(6, 1))",
    ]
    _par21_compare(setup, calls)


def test_par25_embedding_bag_out_of_range_index_in_pytorchs_words():
    """F.embedding_bag checks weight's dtype, then the indices: PyTorch's CPU fast path (float/half/bfloat16
    rows contiguous along dim 1, sum or mean, no padding_idx) in FBGEMM's words for the positions its bags cover
    (a bad index in a later bag is reported by whichever thread's chunk fails first, so only the first bag is
    compared), every other path for every index in its own words"""
    setup = "w = torch.ones(2, 3); o = torch.tensor([0]); i = torch.tensor([0, 4]); eb = F.embedding_bag"
    calls = [
        "eb(i, w, o)",
        "eb(torch.tensor([[0, 4]]), w)",
        "eb(torch.tensor([-1, 0]), w, o)",
        "eb(torch.tensor([5, 4]), w, o)",
        "eb(i, w, o, mode='sum')",
        "eb(i, w, o, mode='max')",
        "eb(i, w, o, padding_idx=1)",
        "eb(i, w, o, padding_idx=-1)",
        "eb(i.int(), w, o.int())",
        "eb(i, w, o, per_sample_weights=torch.ones(2), mode='sum')",
        "eb(i, w.double(), o)",
        "eb(i, w.half(), o)",
        "eb(i, w.bfloat16(), o)",
        "eb(i, torch.ones(3, 2).t(), o)",
        "eb(torch.tensor([0, -3]), w.double(), o)",
        "eb(torch.tensor([0, 9, 1, 1]), w, torch.tensor([0, 2]))",
        "eb(torch.tensor([0, 1, 5, 7]), w, torch.tensor([0, 2]), mode='max')",
        "eb(torch.tensor([0, 1, 1, 9]), w, torch.tensor([0, 1, 2]), include_last_offset=True, mode='sum')",
        "eb(torch.tensor([0, 1, 1, 9]), w, torch.tensor([0, 2, 3]), include_last_offset=True, mode='max')",
        "eb(torch.tensor([0, 1, 1, 9]), w.double(), torch.tensor([0, 2, 3]), include_last_offset=True)",
        "eb(i, torch.ones(2, 3, dtype=torch.int64), o)",
        "eb(torch.tensor([0, 1]), torch.ones(2, 3, dtype=torch.int64), o)",
    ]
    _par21_compare(setup, calls)


def test_par25_python_methods_count_positions_as_pytorchs_methods():
    """nansum/nanmean/repeat_interleave, written in Python, refuse as PyTorch's parser: the method spellings
    count positions without self, repeat_interleave's output_size is keyword-only, and NumPy's names (axis=,
    x=, a=) are taken where PyTorch's parser takes them"""
    setup = "x = torch.tensor([[1.0, float('nan')], [3.0, 4.0]]); v = torch.tensor([1.0, -2.0, 3.0])"
    calls = [
        "x.nansum(0, 1)",
        "x.nansum(0, True)",
        "x.nansum(0, True, torch.float64)",
        "x.nansum(0, 1, 2)",
        "x.nanmean(0, 1)",
        "x.nanmean(0, True, torch.float64)",
        "x.nansum(None, True)",
        "x.nanmean(dim=(0,), keepdims=True)",
        "x.nansum(0, keepdims=True)",
        "x.nansum(axis=1)",
        "torch.nansum(x, 0, 1)",
        "torch.nanmean(x, 0, True, torch.float64)",
        "x.repeat_interleave(2, 0)",
        "x.repeat_interleave(2, 0, 4)",
        "x.repeat_interleave(2, 0, output_size=4)",
        "x.repeat_interleave(2, axis=0)",
        "x.repeat_interleave(torch.tensor([1, 2]), 1)",
        "x.repeat_interleave(2.5)",
        "torch.repeat_interleave(v, 2, axis=0)",
        "torch.repeat_interleave(x=v, repeats=2)",
        "torch.repeat_interleave(a=v, repeats=2)",
        "torch.repeat_interleave(v, 2, 0, 6)",
        "torch.repeat_interleave(torch.tensor([1, 2]))",
        "torch.repeat_interleave(v, 2, dim=0, output_size=5)",
        "torch.repeat_interleave(v, torch.tensor([1, 2, 3]), 0, output_size=5)",
        "torch.repeat_interleave(torch.tensor([1, 2]), output_size=2)",
        "torch.repeat_interleave(torch.tensor([1, 2]), output_size=3)",
    ]
    _par21_compare(setup, calls)


def test_par25_fft_functions_take_numpys_keyword_spellings():
    """PyTorch binds torch.fft's functions in C++, whose parser takes NumPy's spellings (axis= for dim,
    x=/a= for input); ours are Python, wrapped to take them (a call without keywords goes straight through)"""
    setup = "x = torch.tensor([1.0, -2.0, 3.0, 0.5]); m = x.reshape(2, 2)"
    calls = [
        "torch.fft.fft(x, axis=0)",
        "torch.fft.rfft(x, axis=0)",
        "torch.fft.fft(x=x)",
        "torch.fft.fft(a=x)",
        "torch.fft.fft(x, 3, axis=0, norm='ortho')",
        "torch.fft.fftn(m, axis=(0,))",
        "torch.fft.fft2(m, axis=(0, 1))",
        "torch.fft.rfft2(m, axis=(0, 1))",
        "torch.fft.fftshift(x, axis=0)",
        "torch.fft.ifftshift(x=x)",
        "torch.fft.fft(x, axis=5)",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4494_scatter_of_an_empty_index_converts_no_value():
    """Fuzz seed 4494: scatter/scatter_ with a number value and an empty index write nothing and, as PyTorch's kernel,
    never convert the value (a NaN or 1e20 into an integer tensor passes); a non-empty index still refuses it"""
    T = minitorch
    e = T.empty(0, 1, dtype=T.int64)
    assert T.scatter(T.empty(0, 1, dtype=T.int32), -2, e, float("nan")).shape == (0, 1)
    z = T.zeros(2, 1, dtype=T.int32)
    assert T.equal(T.scatter(z, 0, e, float("nan")), z)
    assert T.equal(z.clone().scatter_(0, e, 1e20), z)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int without overflow"):
        T.scatter(z, 0, T.zeros(1, 1, dtype=T.int64), float("nan"))
    assert T.scatter(z, 0, T.tensor([[1]]), 7).tolist() == [[0], [7]]


def test_fuzz_4496_fills_check_their_number():
    """Fuzz seed 4496: a number filled into float16/bfloat16/complex64 goes through the checked conversion
    (PyTorch's fill kernel; only a one-element CPU float16/bfloat16 fill stores it unchecked), scatter's value
    too; a 0-d tensor value is cast, unchecked, as PyTorch's fill_(Tensor)"""
    T = minitorch
    msg = "value cannot be converted to type {} without overflow"
    for call, name in (
        (lambda: T.zeros(3, dtype=T.float16).scatter_(0, T.tensor([0]), 1e30), "c10::Half"),
        (lambda: T.zeros(1, dtype=T.float16).scatter(0, T.tensor([0]), 65520.0), "c10::Half"),
        (
            lambda: T.zeros(3, dtype=T.bfloat16).scatter(0, T.tensor([0]), 1e300, reduce="add"),
            "c10::BFloat16",
        ),
        (lambda: T.zeros(4, dtype=T.float16)[::2].fill_(1e30), "c10::Half"),
        (lambda: T.empty(0, dtype=T.float16).fill_(1e30), "c10::Half"),
        (lambda: T.full((2, 3), 1e30, dtype=T.float16), "c10::Half"),
        (lambda: T.zeros(1, dtype=T.complex64).fill_(1e300), "c10::complex<float>"),
    ):
        with pytest.raises(RuntimeError, match=re.escape(msg.format(name))):
            call()
    assert T.zeros(3, dtype=T.float16).scatter(0, T.tensor([1]), 65504.0).tolist() == [0, 65504, 0]
    assert T.zeros(3, dtype=T.float16).scatter(0, T.empty(0, dtype=T.int64), 1e30).tolist() == [0, 0, 0]
    assert T.zeros(2, dtype=T.float16)[:1].fill_(1e30).tolist() == [math.inf]
    assert T.ones(2, dtype=T.complex64).fill_(math.inf).tolist() == [complex(math.inf, 0)] * 2
    assert T.ones(2, dtype=T.complex128).fill_(1e300).tolist() == [complex(1e300, 0)] * 2
    # a tensor value: cast as a copy would (PyTorch's fill_(Tensor)), no overflow check
    assert T.ones(2).fill_(T.tensor(1e300, dtype=T.float64)).tolist() == [math.inf, math.inf]
    assert T.ones(2, dtype=T.float16).fill_(T.tensor(70000.0)).tolist() == [math.inf, math.inf]
    assert T.ones(2, dtype=T.uint8).fill_(T.tensor(300)).tolist() == [44, 44]
    assert T.ones(2, dtype=T.int32).fill_(T.tensor(3000000000)).tolist() == [-1294967296] * 2
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        assert T.ones(2).fill_(T.tensor(1 + 2j)).tolist() == [1.0, 1.0]
    # F.gelu's approximate is keyword-only, as PyTorch's binding declares it
    with pytest.raises(TypeError, match=re.escape("gelu() takes 1 positional argument but 2 were given")):
        T.nn.functional.gelu(T.ones(2), "none")


def test_fuzz_4497_int_list_arguments_take_one_element_integer_tensors():
    """Fuzz seed 4497: an int-list argument whose Python default is a number (max_pool3d's padding=0) takes a
    one-element integer tensor of any rank, as PyTorch's parser does for int[N]; a float or longer tensor is
    still the parser's TypeError"""
    T = minitorch
    x = T.randn(1, 2, 6, 6, 6)
    assert T.max_pool3d(x, 2, 1, T.tensor([[1]])).shape == (1, 2, 7, 7, 7)
    assert T.max_pool3d(x, 2, T.tensor([1])).shape == (1, 2, 5, 5, 5)
    with pytest.raises(
        RuntimeError, match=re.escape("non-empty 4D or 5D (batch mode) tensor expected for input")
    ):
        T.max_pool3d(T.tensor([1]), -1, T.tensor([0]), T.tensor([3]))
    for bad in (T.tensor([1.0]), T.tensor([1, 1])):
        with pytest.raises(
            TypeError,
            match=re.escape(
                "max_pool3d(): argument 'padding' (position 4) must be tuple of ints, not Tensor"
            ),
        ):
            T.max_pool3d(x, 2, 1, bad)


def test_fuzz_4500_mean_into_half_cond_parse_sparse_size_none_hinge_margin():
    """Fuzz seeds 4500-4501: mean of a float32 input with dtype float16/bfloat16 reads float32 and rounds the
    result (PyTorch's mixed reduction; float64 is cast first, as sum's); linalg.cond parses p before the rank
    check; sparse_coo_tensor refuses an explicit size=None (no overload's size is optional); hinge's margin is
    a float, so a negative one does not fit uint8"""
    T = minitorch
    x = T.tensor([[1e30, -1e30], [1e30, -math.inf], [1.0, 2.0]])
    for dt in (T.float16, T.bfloat16):
        got = T.mean(x, 1, dtype=dt)
        assert got.dtype == dt and got.tolist() == [0.0, -math.inf, 1.5]
        assert T.mean(x[:1], dtype=dt).item() == 0.0 and x[:1].t().mean(0, dtype=dt).item() == 0.0
    assert math.isnan(T.mean(T.tensor([1e300, -1e300], dtype=T.float64), dtype=T.float32).item())
    assert math.isnan(T.sum(x[:1], 1, dtype=T.float16).item())  # sum casts first, as PyTorch's
    with pytest.raises(
        TypeError, match=re.escape("linalg_cond() received an invalid combination of arguments")
    ):
        T.linalg.cond(T.tensor([2.9]), T.float32)
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        T.linalg.cond(T.tensor([2.9]))
    with pytest.raises(
        TypeError,
        match=re.escape(
            "sparse_coo_tensor() received an invalid combination of arguments - got (Tensor, int, NoneType)"
        ),
    ):
        T.sparse_coo_tensor(T.ones(1, 2, 2), 3, None)
    s = T.sparse_coo_tensor(T.tensor([[0, 2]]), T.tensor([1.0, 2.0]))
    assert s.shape == (3,) and s.to_dense().tolist() == [1.0, 0.0, 2.0]
    u8, tgt = T.tensor([1, 2], dtype=T.uint8), T.tensor([False, True])
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        T.hinge_embedding_loss(u8, tgt, -1)
    assert T.hinge_embedding_loss(T.tensor([1, 2], dtype=T.int8), tgt, -1, 0).tolist() == [1, 2]


def test_par27_a_methods_lone_int_list_takes_its_ints_as_varargs():
    """PyTorch's parser takes a method's ints as one list where that list is the signature's only positional
    parameter (x.squeeze(0, 1) is x.squeeze((0, 1))); the function form and other methods do not"""
    x = minitorch.arange(6.0).reshape(1, 1, 6, 1)
    np.testing.assert_array_equal(x.squeeze(0, 3).numpy(), np.arange(6.0).reshape(1, 1, 6, 1).squeeze((0, 3)))
    assert x.clone().squeeze_(0, 1, 3).shape == (6,)
    with pytest.raises(TypeError, match=r"failed to unpack the object at pos 2 .*but got str"):
        x.squeeze(0, "a")
    setup = "x = torch.arange(6.).reshape(1, 1, 6, 1)"
    calls = [
        "x.squeeze(0, 1)",
        "x.squeeze(0, 3, 1)",
        "x.clone().squeeze_(0, 1)",
        "x.squeeze(0, 7)",
        "x.squeeze(0, 'a')",
        "x.squeeze(0, None)",
        "x.squeeze('a', 1)",
        "x.squeeze(True, 1)",
        "x.squeeze(0, 1, foo=2)",
        "torch.squeeze(x, 0, 1)",
        "x.sum(0, 1)",
    ]
    _par21_compare(setup, calls)


def test_par27_b_softplus_gradient_is_pytorchs_z_over_z_plus_one():
    """softplus's gradient below the threshold is PyTorch's exp(x b) / (exp(x b) + 1): NaN where that overflows
    (beta = inf, or threshold = inf with the forward inf), a subnormal where it underflows"""
    import minitorch.nn.functional as F

    xs = [-800.0, -100.0, 0.5, 50.0, 89.0, 800.0]
    for dt, npdt in [(minitorch.float32, np.float32), (minitorch.float64, np.float64)]:
        for beta, threshold in [(1.0, 20.0), (1.0, math.inf), (-1.0, math.inf), (math.inf, math.inf)]:
            x = minitorch.tensor(xs, dtype=dt, requires_grad=True)
            (g,) = minitorch.autograd.grad(F.softplus(x, beta, threshold).sum(), x)
            with np.errstate(all="ignore"):
                bx = np.array(xs, dtype=npdt) * npdt(beta)
                z = np.exp(bx)
                want = np.where(bx > threshold, npdt(1), z / (z + npdt(1)))
            np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=0)
            assert np.array_equal(np.isnan(g.numpy()), np.isnan(want))
    setup = "x = torch.tensor([-2.0, 0.0, 0.5, 3.0, 100.0], requires_grad=True)"
    calls = [
        f"torch.autograd.grad(F.softplus(x, {b}, {t}).sum(), x)[0]"
        for b, t in [
            ("float('inf')", "float('inf')"),
            ("1.0", "float('inf')"),
            ("float('-inf')", "float('inf')"),
        ]
    ] + ["F.softplus(x, float('inf'), float('inf'))"]
    _par21_compare(setup, calls)


def test_par27_c_sum_mean_prod_take_pytorchs_two_signatures():
    """sum/mean/prod are PyTorch's two signatures: every element (*, dtype) and (dim, keepdim=False, *, dtype), so
    keepdim needs a dim, a non-dtype dtype is a refused call, and prod's dim is never None; sum over every
    element takes no out= (mean's does)"""
    x = minitorch.arange(6.0).reshape(2, 3)
    assert x.sum(None, True).tolist() == [[15.0]]
    np.testing.assert_allclose(minitorch.mean(x, dim=None, keepdim=True).numpy(), [[2.5]])
    assert minitorch.sum(x, dtype=float).dtype == minitorch.float64
    with pytest.raises(
        TypeError, match=r"sum\(\) received an invalid combination of arguments - got \(keepdim=bool, \)"
    ):
        x.sum(keepdim=True)
    setup = "x = torch.arange(6.).reshape(2, 3); o = torch.empty(())"
    calls = [
        "torch.sum(x, keepdim=True)",
        "torch.mean(x, keepdim=True)",
        "x.mean(keepdim=False)",
        "torch.mean(x, dtype=torch.float64, keepdim=True)",
        "torch.sum(x, dtype=torch.float64, keepdim=True)",
        "torch.sum(x, dtype='float')",
        "torch.sum(x, 0, dtype='float')",
        "x.sum(dtype=1)",
        "torch.prod(x, dtype='a')",
        "torch.prod(x, 0, dtype='a')",
        "torch.prod(x, None, True)",
        "x.prod(None, True)",
        "torch.prod(x, None)",
        "torch.mean(x, 'a')",
        "torch.sum(x, 1.5)",
        "x.sum((0, 'a'))",
        "torch.sum(x, out=o)",
        "torch.mean(x, out=o)",
        "torch.sum(x, 0, out=torch.empty(3))",
        "torch.sum(x, None, True)",
        "torch.sum(x, dtype=float)",
        "x.sum(0, True, torch.float64)",
        "torch.sum(x, foo=1)",
        "torch.sum(x, axis=0, keepdims=True)",
        "torch.prod(x, 1, True)",
    ]
    _par21_compare(setup, calls)


def test_par27_d_index_select_out_of_another_dtype_is_pytorchs_message():
    """index_select's out= of another dtype than self's: PyTorch's 'self and result must have the same scalar
    type' (out.h's same_type rule); a right one is written with the selected rows"""
    x = minitorch.arange(12.0).reshape(4, 3)
    i = minitorch.tensor([0, 2])
    for dt in (minitorch.int64, minitorch.float64):
        with pytest.raises(
            RuntimeError, match=r"^index_select\(\): self and result must have the same scalar type$"
        ):
            minitorch.index_select(x, 0, i, out=minitorch.empty(2, 3, dtype=dt))
    o = minitorch.empty(2, 3)
    minitorch.index_select(x, 0, i, out=o)
    np.testing.assert_array_equal(o.numpy(), np.arange(12.0).reshape(4, 3)[[0, 2]])
    setup = "x = torch.arange(12.).reshape(4, 3); i = torch.tensor([0, 2])"
    calls = [
        "torch.index_select(x, 0, i, out=torch.empty(2, 3, dtype=torch.int64))",
        "torch.index_select(x, 0, i.float(), out=torch.empty(2, 3, dtype=torch.int64))",
        "torch.index_select(x, 0, i, out=torch.empty(2, 3))",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4503_broadcast_tensors_nansum_dims_embedding_bag_index_types():
    """Fuzz seed 4503: broadcast_tensors takes tensors, not one list of them (PyTorch's parser reads argument 0
    element by element); an integer nansum checks each dim's range and repeat in turn, as the float one; and
    embedding_bag checks the (promoted) index type before anything reads the indices"""
    T, F = minitorch, minitorch.nn.functional
    a = T.ones(2, 1)
    for bad, name in (([a, a], "list"), ((a, a), "tuple")):
        with pytest.raises(
            TypeError, match=re.escape(f"expected Tensor as element 0 in argument 0, but got {name}")
        ):
            T.broadcast_tensors(bad)
    with pytest.raises(
        TypeError, match=re.escape("expected Tensor as element 1 in argument 0, but got NoneType")
    ):
        T.broadcast_tensors(a, None)
    assert [t.shape for t in T.broadcast_tensors(a, T.ones(3))] == [(2, 3), (2, 3)]
    for dt in (T.int32, T.float32):
        with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
            T.ones(2, 2, dtype=dt).nansum([1, 1, 3])
    assert T.tensor([[3, 1], [5, 5]], dtype=T.int32).nansum(1).tolist() == [4, 10]
    msg = "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {}"
    for idx, off, got in (
        (T.empty(0, dtype=T.float64), T.empty(0, dtype=T.float64), "torch.DoubleTensor"),
        (T.tensor([1.0]), T.tensor([0]), "torch.FloatTensor"),
        (T.tensor([1]), T.tensor([0.0]), "torch.FloatTensor"),  # promoted with the offsets first
        (T.tensor([[1, 2]], dtype=T.int16), None, "torch.ShortTensor"),
    ):
        with pytest.raises(RuntimeError, match=re.escape(msg.format(got))):
            F.embedding_bag(idx, T.ones(3, 2, dtype=T.float64), off)
    got = F.embedding_bag(T.tensor([1, 2]), T.arange(6.0).reshape(3, 2), T.tensor([0], dtype=T.int32))
    assert got.tolist() == [[3.0, 4.0]]  # int64 indices beside int32 offsets: promoted, as PyTorch's


def test_fuzz_4505_empty_matrix_two_norm_quantile_int_dim_aminmax_parser():
    """Fuzz seed 4505: the 2-norm of a matrix with no singular values is PyTorch's new zero, outside the graph
    (the nuclear and 1-norms stay differentiable); quantile's `int? dim` takes a 0-d integer tensor only;
    aminmax parses its keyword-only arguments; one extra positional argument is "1 was given" """
    T, L = minitorch, minitorch.linalg
    for shape, kw in (((0, 2), {}), ((2, 0), {"keepdim": True}), ((2, 2, 0), {"dim": (1, 2)})):
        x = T.empty(shape, dtype=T.float64, requires_grad=True)
        for r in (L.matrix_norm(x, 2, **kw), L.norm(x, 2, **({"dim": (-2, -1)} | kw))):
            assert r.grad_fn is None and not r.requires_grad and (r == 0).all()
        assert L.matrix_norm(x, "nuc", **kw).requires_grad and L.matrix_norm(x, 1, **kw).requires_grad
    q, v = T.tensor([0.5]), T.tensor([1.0, 3.0])
    assert v.quantile(q, T.tensor(0)).tolist() == [2.0]
    for dim in (T.tensor(False), T.tensor([0]), T.tensor(0.0)):
        for fn in ("quantile", "nanquantile"):
            with pytest.raises(TypeError, match=rf"^{fn}\(\) received an invalid combination of arguments"):
                getattr(v, fn)(q, dim)
    x = T.tensor([[2.0, 1.0], [0.0, 3.0]])
    assert [t.tolist() for t in x.aminmax(dim=T.tensor(1))] == [[1.0, 0.0], [2.0, 3.0]]
    with pytest.raises(TypeError, match=r"^aminmax\(\): argument 'dim' must be int, not Tensor$"):
        x.aminmax(dim=T.tensor(True))
    with pytest.raises(TypeError, match=r"^aminmax\(\) takes 0 positional arguments but 1 was given$"):
        x.aminmax(1)
    with pytest.raises(TypeError, match=r"^aminmax\(\) takes 1 positional argument but 2 were given$"):
        T.aminmax(x, 1)


def test_methods_without_parameters_refuse_arguments_in_cpythons_words():
    """PyTorch's Tensor methods without parameters are METH_NOARGS C methods of TensorBase: CPython refuses any
    keyword first, then any argument, in its own words"""
    x = minitorch.ones(2, 2)
    for name in ("abs", "relu", "exp_", "detach", "item", "tolist", "neg"):
        with pytest.raises(TypeError, match=rf"^TensorBase\.{name}\(\) takes no arguments \(1 given\)$"):
            getattr(x.clone(), name)(1)
        with pytest.raises(TypeError, match=rf"^TensorBase\.{name}\(\) takes no arguments \(2 given\)$"):
            getattr(x.clone(), name)(1, 2)
        with pytest.raises(TypeError, match=rf"^TensorBase\.{name}\(\) takes no keyword arguments$"):
            getattr(x.clone(), name)(1, foo=2)
    with pytest.raises(TypeError, match=r"^TensorBase\.sign\(\) takes no keyword arguments$"):
        x.sign(out=x)


def test_fuzz_4516_instance_norm_repeats_and_adaptive_pool_tensor_sizes():
    """Fuzz seed 4516: ATen's instance_norm repeats weight, bias and the running stats over the batch before any
    check (repeat's refusal of a matrix comes first, and with use_input_stats=False it was accepted); the global
    average shortcut of adaptive_avg_pool2d must not take the truth value of tensors in output_size"""
    setup = "x = torch.arange(16.).reshape(4, 2, 2); m = torch.zeros(2, 2); v = torch.ones(2)"
    calls = [
        "F.instance_norm(x, m)",
        "F.instance_norm(x, m, v, use_input_stats=False)",
        "F.instance_norm(x, v, m, use_input_stats=False)",
        "F.instance_norm(x, weight=m)",
        "F.instance_norm(x, bias=m, use_input_stats=True)",
        "F.instance_norm(x, v, None)",
        "F.instance_norm(x, torch.zeros(3), None)",
        "F.instance_norm(x, torch.tensor(0.0), torch.tensor(1.0))",
        "F.instance_norm(x, v, v, use_input_stats=False)",
        "F.adaptive_avg_pool2d(x, torch.empty((2, 0, 2), dtype=torch.bool))",
        "F.adaptive_avg_pool2d(x, torch.tensor([[1, 1], [1, 1]]))",
        "F.adaptive_avg_pool2d(x, torch.tensor([1, 1]))",
        "F.adaptive_avg_pool2d(x, [torch.tensor(1), torch.tensor(1)])",
        "F.adaptive_avg_pool2d(x, torch.tensor(1))",
        "F.adaptive_avg_pool2d(x, (1, None))",
    ]
    _par21_compare(setup, calls)


def test_conv_symint_lists_and_first_element_overflow():
    """The convolutions' stride/padding/dilation are PyTorch's SymInt[N]: a bool tensor in the list is c10's
    RuntimeError (it was read as 1), a lone one stands for 1; F.conv2d is PyTorch's C++ op, so a refusal lists
    the arguments as given. An int list whose first element overflows int64 is the unpacking's TypeError (the
    overload check took it for a ValueError)"""
    setup = (
        "x = torch.ones(4, 4); im = torch.ones(1, 1, 6, 6); w = torch.ones(1, 1, 3, 3)\n"
        "v = torch.ones(1, 1, 4, 4, 4); w3 = torch.ones(1, 1, 2, 2, 2)"
    )
    calls = [
        "F.conv2d(im, w, stride=[torch.tensor(True), 1])",
        "F.conv2d(im, w, padding=[torch.tensor(True), 1])",
        "F.conv2d(im, w, None, [torch.tensor(1), True])",
        "F.conv2d(im, w, stride=torch.tensor(True))",
        "F.conv2d(im, w, dilation=[True, 1])",
        "F.conv2d(im, w, groups=torch.tensor(1))",
        "F.conv2d(im, w, foo=1)",
        "F.conv2d(im, w, None, 1, 0, 1, 1, 1)",
        "F.conv1d(im[0], w[0], stride=[torch.tensor(True)])",
        "F.conv_transpose2d(im, w, stride=[torch.tensor(True), 1])",
        "F.conv_transpose1d(im[0], w[0], output_padding=[torch.tensor(True)])",
        "F.conv3d(v, w3, stride=[torch.tensor(True), 1, 1])",
        "F.conv3d(v, w3, stride=torch.tensor(True))",
        "F.conv_transpose3d(v, w3, stride=[torch.tensor(True), 1, 1])",
        "torch.sum(x, 2**70)",
    ]
    _par21_compare(setup, calls)
    # PyTorch's first line ends inside the quote (c10's backtrace follows in its message); ours closes it
    x = minitorch.ones(4, 4)
    for call, fn, arg, pos in [
        (lambda: minitorch.tensor_split(x, [2**70]), "tensor_split", "indices", 1),
        (lambda: x.vsplit([2**70]), "vsplit", "indices", 1),
        (lambda: minitorch.hsplit(x, [1, 2**70]), "hsplit", "indices", 2),
        (lambda: minitorch.dsplit(x[None], [2**70]), "dsplit", "indices", 1),
        (lambda: x.tensor_split([1, 2**70]), "tensor_split", "indices", 2),
        (lambda: minitorch.sum(x, [2**70]), "sum", "dim", 1),
        (lambda: x.sum([2**70, 1]), "sum", "dim", 1),
        (lambda: x.view([2**70]), "view", "size", 1),
        (lambda: x.view((2**70,)), "view", "size", 1),
        (lambda: x.view(2**70), "view", "size", 1),
        (lambda: x.permute(2**70, 0), "permute", "dims", 1),
        (lambda: x.roll([2**70], [0]), "roll", "shifts", 1),
        (lambda: minitorch.zeros(2**70), "zeros", "size", 1),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == (
            f"{fn}(): argument '{arg}' failed to unpack the object at pos {pos} with error "
            '"Overflow when unpacking long long"'
        )


def test_fuzz_4517_loss_reduction_first_and_lrn_bool_size():
    """Fuzz seed 4517: binary_cross_entropy settles its reduction (get_enum's ValueError) before the shapes and
    the kernel's dtype, and get_enum takes the deprecated 'elementwise_mean' with its warning; LocalResponseNorm's
    size reaches avg_pool3d's parser, which refuses a bool"""
    setup = "a = torch.tensor([[0.5, 0.5]]); b = torch.tensor([[0.0, 1.0]]); i = torch.ones(2, 2, dtype=torch.int8)"
    calls = [
        "F.binary_cross_entropy(i, i, reduction='floor')",
        "F.binary_cross_entropy(a, b[0], reduction='floor')",
        "F.binary_cross_entropy(a, b, reduction=None)",
        "F.binary_cross_entropy(a, b, reduction='sum')",
        "F.binary_cross_entropy(a, b, reduction='floor', reduce=False)",
        "F.binary_cross_entropy(i, i)",
        "F.binary_cross_entropy(a, b, reduction='elementwise_mean')",
        "F.mse_loss(a, b, reduction='elementwise_mean')",
        "F.l1_loss(a, b, reduction='elementwise_mean')",
        "F.huber_loss(a, b, reduction='elementwise_mean')",
        "F.huber_loss(a, b, reduction=['sum'])",
        "torch.nn.LocalResponseNorm(False, 2.5)(torch.ones(1, 1, 3, 5))",
        "torch.nn.LocalResponseNorm(True)(torch.ones(1, 2, 3, 5))",
        "torch.nn.LocalResponseNorm(0)(torch.ones(1, 2, 3, 5))",
        "torch.nn.LocalResponseNorm(2)(torch.ones(1, 2, 3, 5, dtype=torch.float64))",
    ]
    _par21_compare(setup, calls)


def test_batched_gemm_dtype_checks_in_atens_order():
    """baddbmm refuses an input whose dtype is not batch1's (ATen's meta check; it promoted them) and names itself
    for bool; addbmm checks batch counts and inner sizes by its own words and, as ATen's loop of addmm_ into the
    result, the result's dtype against batch2's (an out of batch2's dtype takes any input)"""
    f, d = minitorch.float32, minitorch.float64
    with pytest.raises(
        RuntimeError, match=r"^Input dtypes must be the same, got: input double, batch1: float, "
    ):
        minitorch.baddbmm(minitorch.ones(2, 3, 4, dtype=d), minitorch.ones(2, 3, 5), minitorch.ones(2, 5, 4))
    with pytest.raises(NotImplementedError, match="\"baddbmm\" not implemented for 'Bool'"):
        b = minitorch.ones(2, 3, 4, dtype=minitorch.bool)
        b.baddbmm_(
            minitorch.ones(2, 3, 5, dtype=minitorch.bool), minitorch.ones(2, 5, 4, dtype=minitorch.bool)
        )
    with pytest.raises(
        RuntimeError, match="^batch1 and batch2 must have same number of batches, got 2 and 3$"
    ):
        minitorch.addbmm(minitorch.ones(3, 4), minitorch.ones(2, 3, 5), minitorch.ones(3, 5, 4))
    with pytest.raises(RuntimeError, match=r"^Incompatible matrix sizes for bmm \(3x5 and 6x4\)$"):
        minitorch.addbmm(minitorch.ones(3, 4), minitorch.ones(2, 3, 5), minitorch.ones(2, 6, 4))
    with pytest.raises(
        RuntimeError, match="^self and mat2 must have the same dtype, but got Double and Float$"
    ):
        minitorch.addbmm(minitorch.ones(3, 4, dtype=d), minitorch.ones(2, 3, 0), minitorch.ones(2, 0, 4))
    with pytest.raises(
        RuntimeError, match="^mat1 and mat2 must have the same dtype, but got Double and Float$"
    ):
        minitorch.addbmm(minitorch.ones(3, 4), minitorch.ones(2, 3, 5, dtype=d), minitorch.ones(2, 5, 4))
    # the input is copied into a float32 out first, then the float32 product added
    rng = np.random.default_rng(0)
    i, b1, b2 = rng.standard_normal((3, 4)), rng.standard_normal((2, 3, 5)), rng.standard_normal((2, 5, 4))
    out = minitorch.empty(3, 4, dtype=f)
    r = minitorch.addbmm(
        minitorch.tensor(i), minitorch.tensor(b1, dtype=f), minitorch.tensor(b2, dtype=f), beta=2, out=out
    )
    assert r is out and r.dtype == f
    ref = 2 * i.astype(np.float32) + np.einsum("bij,bjk->ik", b1.astype(np.float32), b2.astype(np.float32))
    np.testing.assert_allclose(r.numpy(), ref, rtol=1e-5, atol=1e-5)
    # no batches: no dtype check, the result is beta * input in out's dtype
    r = minitorch.addbmm(
        minitorch.full((3, 4), 2.5, dtype=d),
        minitorch.ones(0, 3, 5),
        minitorch.ones(0, 5, 4),
        beta=2,
        out=minitorch.empty(3, 4, dtype=minitorch.int64),
    )
    assert r.dtype == minitorch.int64 and r.tolist() == [[4] * 4] * 3
    setup = "D = torch.float64; B = torch.bool"
    calls = [
        "torch.baddbmm(torch.ones(2, 3, 4, dtype=D), torch.ones(2, 3, 5), torch.ones(2, 5, 4))",
        "torch.baddbmm(torch.ones(4), torch.ones(2, 3, 5, dtype=D), torch.ones(2, 5, 4, dtype=D))",
        "torch.baddbmm(torch.ones(2, 3, 4, dtype=D), torch.ones(3, 5), torch.ones(2, 5, 4))",
        "torch.baddbmm(torch.ones(2, 3, 4), torch.ones(2, 3, 5), torch.ones(2, 5, 4, dtype=B))",
        "torch.baddbmm(torch.ones(2, 3, 4, dtype=B), torch.ones(2, 3, 5, dtype=B), torch.ones(2, 5, 4))",
        "torch.baddbmm(torch.ones(2, 3, 4, dtype=D), torch.ones(2, 3, 5), torch.ones(2, 5, 4), out=torch.empty(2, 3, 4, dtype=D))",
        "torch.ones(2, 3, 4, dtype=D).baddbmm_(torch.ones(2, 3, 5), torch.ones(2, 5, 4))",
        "torch.baddbmm(torch.ones(2, 3, 4), torch.ones(2, 3, 0), torch.ones(2, 0, 4, dtype=D))",
        "torch.addbmm(torch.ones(3, 4, dtype=D), torch.ones(2, 3, 5), torch.ones(2, 5, 4))",
        "torch.addbmm(torch.ones(3, 4), torch.ones(2, 3, 5), torch.ones(2, 5, 4, dtype=D))",
        "torch.addbmm(torch.ones(3, 4), torch.ones(2, 3, 5, dtype=D), torch.ones(2, 5, 4))",
        "torch.addbmm(torch.ones(3, 4, dtype=B), torch.ones(2, 3, 5), torch.ones(2, 5, 4))",
        "torch.addbmm(torch.ones(3, 4, dtype=D), torch.ones(0, 3, 5), torch.ones(0, 5, 4))",
        "torch.addbmm(torch.ones(3, 4, dtype=D), torch.ones(2, 3, 0), torch.ones(2, 0, 4, dtype=D))",
        "torch.addbmm(torch.ones(3, 4), torch.ones(2, 3, 5), torch.ones(2, 5, 4), out=torch.empty(3, 4, dtype=D))",
        "torch.addbmm(torch.ones(3, 4, dtype=D), torch.ones(2, 3, 5), torch.ones(2, 5, 4), out=torch.empty(3, 4))",
        "torch.addbmm(torch.ones(3, 4, dtype=D), torch.ones(2, 3, 5), torch.ones(2, 5, 4), beta=0)",
        "torch.ones(3, 4, dtype=D).addbmm_(torch.ones(2, 3, 5), torch.ones(2, 5, 4))",
        "torch.ones(3, 4).addbmm_(torch.ones(2, 3, 5), torch.ones(3, 5, 4))",
        "torch.ones(3, 4).addbmm_(torch.ones(2, 3, 5), torch.ones(2, 6, 4))",
    ]
    _par21_compare(setup, calls)


def _round_to_bfloat16(v):
    """float32 values rounded to bfloat16 (nearest, ties to even) and widened back: the reference's rounding"""
    bits = np.asarray(v, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    out = bits.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(v), np.float32("nan"), out)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_float_mul_and_div_read_a_scalar_unnarrowed(dtype):
    """PyTorch's CPU mul and true division of a float16/bfloat16 tensor by a Python number or a 0-d tensor of
    another dtype compute with the scalar as a float (not narrowed to the tensor's dtype first) and round once:
    half * 1e5 is finite, 0 * 1e30 is 0, 1e5 / x is x.reciprocal() * 1e5 rounded that way"""
    T = minitorch
    dt = getattr(T, dtype)
    vals = np.array([0.0, -0.6367, 1e-4, 2.5, -0.0, 3.0, float("inf"), float("nan")], np.float32)
    x = T.tensor(vals, dtype=dt)
    xs = x.float().numpy()  # the tensor's own (narrowed) values
    rnd = (lambda v: v.astype(np.float16).astype(np.float32)) if dtype == "float16" else _round_to_bfloat16

    def same(got, want):
        assert got.dtype == dt
        np.testing.assert_array_equal(got.float().numpy(), rnd(np.asarray(want, np.float32)))

    with np.errstate(all="ignore"):
        for s in (1e5, 1e-5, 1e30, 70000, 0.1, 2.0, 0.5):
            f = np.float32(s)
            same(x * s, xs * f)
            same(s * x, xs * f)
            same(T.mul(x, s), xs * f)
            same(x.mul(T.tensor(s, dtype=T.float64)), xs * f)
            same(x / s, xs / f)
            same(T.div(x, s), xs / f)
            same(x.clone().mul_(s), xs * f)
            same(x.clone().div_(s), xs / f)
            out = T.empty(8, dtype=dt)
            T.mul(x, s, out=out)
            same(out, xs * f)
            recip = rnd(np.float32(1) / xs)
            same(s / x, recip * f)
        # beyond float's range the float scalar is inf itself: 0 * inf is NaN there too
        same(x * 1e39, xs * np.float32("inf"))
    # a one-element operand with dims still broadcasts (an int64 [[70000]] keeps the result [1, 8])
    with np.errstate(all="ignore"):
        r = x * T.tensor([[70000]])
        assert r.shape == (1, 8)
        same(r[0], xs * np.float32(70000))
    # a same-dtype one-element tensor operand is its own (narrowed) value
    one = T.tensor([0.1], dtype=dt)
    same(x * one, xs * one.float().numpy())
    # the gradient multiplies by the same scalar: 1e5 (float16's inf, bfloat16's 99840)
    g = T.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    (g * 1e5).float().sum().backward()
    same(g.grad, np.full(2, 1e5, np.float32))


def test_embedding_bag_2d_offsets_are_an_arange_in_the_input_dtype():
    """F.embedding_bag of a 2-D input makes its bags' offsets as PyTorch's does, arange(0, numel, width) in the
    input's dtype: a bool or complex input is arange's NotImplementedError and a zero width its step error,
    before the indices' dtype check (seed 4518)"""
    F = minitorch.nn.functional
    w = minitorch.ones(5, 3)
    with pytest.raises(NotImplementedError, match="\"arange_cpu\" not implemented for 'Bool'"):
        F.embedding_bag(
            minitorch.ones(3, 1, dtype=minitorch.bool), minitorch.ones(3, 1, dtype=minitorch.bool)
        )
    with pytest.raises(RuntimeError, match="^step must be nonzero$"):
        F.embedding_bag(minitorch.ones(3, 0, dtype=minitorch.int64), w)
    assert F.embedding_bag(minitorch.ones(0, 2, dtype=minitorch.int64), w).shape == (0, 3)
    setup = "w = torch.arange(15.).reshape(5, 3)"
    calls = [
        "F.embedding_bag(torch.ones(3, 1, dtype=torch.bool), torch.ones(3, 1, dtype=torch.bool))",
        "F.embedding_bag(torch.ones(3, 0, dtype=torch.long), w)",
        "F.embedding_bag(torch.ones(3, 2, dtype=torch.float16), w)",
        "F.embedding_bag(torch.ones(0, 2, dtype=torch.long), w)",
        "F.embedding_bag(torch.ones(3, 2, dtype=torch.uint8), w)",
        "F.embedding_bag(torch.ones(3, 2, dtype=torch.complex64), w)",
        "F.embedding_bag(torch.tensor([[0, 4], [2, 1]], dtype=torch.int32), w, mode='max')",
    ]
    _par21_compare(setup, calls)


def test_range_arange_linspace_refuse_bool_by_their_kernels_names():
    """torch.range refuses bool and complex by its kernel's name before its own checks (it computed them), arange
    names its kernel "arange_cpu", and linspace/logspace of at most one step never reach their kernels: a bool
    result there is start (base ** start) itself, as in PyTorch"""
    T = minitorch
    for call in (
        lambda: T.range(0, 3, dtype=T.bool),
        lambda: T.range(0, 3, 0, dtype=T.bool),
        lambda: T.range(3, 0, out=T.empty(0, dtype=T.bool)),
    ):
        with (
            pytest.warns(UserWarning, match="torch.range is deprecated"),
            pytest.raises(NotImplementedError, match="^\"range_cpu\" not implemented for 'Bool'$"),
        ):
            call()
    with pytest.warns(UserWarning), pytest.raises(NotImplementedError, match="'ComplexFloat'"):
        T.range(0, 3, dtype=T.complex64)
    with pytest.raises(NotImplementedError, match="^\"arange_cpu\" not implemented for 'Bool'$"):
        T.arange(3, dtype=T.bool)
    assert T.linspace(0, 3, 0, dtype=T.bool).tolist() == []
    assert T.linspace(2, 3, 1, dtype=T.bool).tolist() == [True]
    assert T.linspace(0, 3, 1, dtype=T.bool).tolist() == [False]
    assert T.logspace(0, 3, 1, base=0.0, dtype=T.bool).tolist() == [True]
    with pytest.raises(NotImplementedError, match="^\"linspace_cpu\" not implemented for 'Bool'$"):
        T.linspace(0, 3, 2, dtype=T.bool)
    setup = "import warnings; warnings.simplefilter('ignore')"
    calls = [
        "torch.range(0, 3, dtype=torch.complex64)",
        "torch.range(0, float('inf'), dtype=torch.bool)",
        "torch.range(0, 3, dtype=torch.int8)",
        "torch.arange(0., 3, 1, dtype=torch.complex64)",
        "torch.arange(0, 0, 1, dtype=torch.bool)",
        "torch.linspace(0, 3, 0, dtype=torch.bool)",
        "torch.linspace(2, 3, 1, dtype=torch.bool)",
        "torch.logspace(0, 3, 0, dtype=torch.bool)",
        "torch.logspace(0, 3, 1, dtype=torch.bool)",
        "torch.logspace(0, 3, 2, dtype=torch.bool)",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4520_4521_histc_of_one_huge_value_and_diag_embed_tensor_offset():
    """Seeds 4520-4521: histc of a single value widens its range as PyTorch's bins_edges_correction does (by at
    least one step of float/double: -1e30 - 1 is -1e30, which was "max must be larger than min"), on the C++
    path and the composite's; diag_embed takes a 0-d integer tensor offset as its number (uint8 255 + 2 wrapped)"""
    T = minitorch
    for dt in (T.float32, T.float64):
        for v in (-1e30, 3e38 if dt == T.float32 else 1e300, 5.0, 0.0):
            h = T.tensor([v], dtype=dt).histc(2)
            assert h.dtype == dt and h.tolist() == [0.0, 1.0]  # the value sits on the middle edge
    assert T.tensor([4.0, 4.0], dtype=T.float16).histc(4).tolist() == [0.0, 0.0, 2.0, 0.0]
    with pytest.raises(RuntimeError, match=r"^torch.histc: range of \[-inf, -3.40282e\+38\] is not finite$"):
        T.tensor([float("-inf")]).histc(2)  # (-inf's next float up is the lowest finite one)
    x = T.tensor([2, 7], dtype=T.uint8)
    for off in (T.tensor(255, dtype=T.uint8), T.tensor(-3, dtype=T.int8), 255):
        r = T.diag_embed(x, off)
        k = off.item() if isinstance(off, T.Tensor) else off
        ref = np.zeros((2 + abs(k),) * 2, np.uint8)
        np.fill_diagonal(ref[max(-k, 0) :, max(k, 0) :], [2, 7])
        np.testing.assert_array_equal(r.numpy(), ref)
    setup = ""
    calls = [
        "torch.tensor(-1e+30, dtype=torch.float32).histc(2)",
        "torch.tensor([-1e+30, -1e+30]).histc(3)",
        "torch.tensor(-1e+30, dtype=torch.float64).histc(2)",
        "torch.tensor([3e38], dtype=torch.float32).histc(2)",
        "torch.tensor([7.0], dtype=torch.bfloat16).histc(2)",
        "torch.histc(torch.tensor([1.0, 1.0]), 4, 1, 1)",
        "torch.diag_embed(torch.tensor([2, 7], dtype=torch.uint8), torch.tensor(255, dtype=torch.uint8))",
        "torch.diag_embed(torch.tensor([2, 7]), torch.tensor(-2), torch.tensor(0), torch.tensor(1))",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4522_flip_none_dims_and_searchsorted_of_no_values():
    """Seed 4522: flip's dims is an int list (None was read as no dims: PyTorch's parser refuses it), and
    searchsorted/bucketize of no values return the empty result before the kernel's dtype dispatch (a bool or
    complex input was refused)"""
    T = minitorch
    with pytest.raises(
        TypeError, match=r"^flip\(\): argument 'dims' \(position 2\) must be tuple of ints, not NoneType$"
    ):
        T.flip(T.ones(2, 2), None)
    with pytest.raises(TypeError, match=r"\(position 1\) must be tuple of ints, not NoneType$"):
        T.ones(2, 2).flip(None)
    r = T.bucketize(T.empty(0, 4, dtype=T.bool), T.tensor([False, True]))
    assert r.dtype == T.int64 and r.shape == (0, 4)
    r = T.searchsorted(T.tensor([1.0, 2.0]), T.empty(0, dtype=T.complex64), out_int32=True)
    assert r.dtype == T.int32 and r.shape == (0,)
    with pytest.raises(NotImplementedError, match="\"searchsorted_out_cpu\" not implemented for 'Bool'"):
        T.bucketize(T.ones(2, dtype=T.bool), T.tensor([False, True]))
    setup = "B = torch.bool"
    calls = [
        "torch.flip(torch.ones(2, 2), dims=None)",
        "torch.flip(torch.arange(4.).reshape(2, 2), [0])",
        "torch.bucketize(torch.empty(0, 4, dtype=B), torch.tensor([False, True]))",
        "torch.searchsorted(torch.tensor([False, True]), torch.empty(0, dtype=B))",
        "torch.searchsorted(torch.empty(0, dtype=B), torch.ones(2, dtype=B))",
        "torch.bucketize(torch.empty(0, 4, dtype=torch.complex64), torch.tensor([1., 2.]))",
        "torch.bucketize(torch.empty(0, dtype=B), torch.tensor([1., 2.]), out_int32=True)",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4523_to_4525_scatter_value_checks_and_int_tensors():
    """Seeds 4523-4525: scatter's value form checks the dim, the index and the reduce name before converting the
    value (a NaN into uint8 hid an out-of-range dim), the np-style splits read a 0-d integer tensor as their int
    (it was taken as a count of sections, so hsplit(x, tensor(5)) split unevenly), and norm_except_dim's pow and
    dim are PyTorch's int64 arguments (a bool or float tensor is refused)"""
    T = minitorch
    u = T.tensor([7, 3], dtype=T.uint8)
    with pytest.raises(
        IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got -2\)"
    ):
        T.scatter(u, -2, T.tensor([1, 0]), float("nan"))
    with pytest.raises(RuntimeError, match="not divisible by the split_size 5"):
        T.hsplit(T.arange(12).reshape(4, 3), T.tensor(5))
    assert [p.shape for p in T.hsplit(T.arange(12).reshape(4, 3), T.tensor(3))] == [(4, 1)] * 3
    with pytest.raises(TypeError, match=r"argument 'dim' \(position 3\) must be int, not Tensor"):
        T.norm_except_dim(T.ones(3, 2), 2, T.tensor(True))
    setup = "u = torch.tensor([7, 3], dtype=torch.uint8); x = torch.arange(12).reshape(4, 3)"
    calls = [
        "torch.scatter(u, -2, torch.tensor([1, 0]), float('nan'))",
        "torch.scatter(u, 0, torch.tensor([1., 0]), float('nan'))",
        "torch.scatter(u, 0, torch.tensor([[1, 0]]), float('nan'))",
        "torch.scatter(u, 0, torch.tensor([1, 7]), float('nan'))",
        "torch.scatter(u, 0, torch.tensor([1, 0]), 300, reduce='bad')",
        "torch.scatter(u, 0, torch.tensor([1, 0]), 9, reduce='add')",
        "u.clone().scatter_(5, torch.tensor([1, 0]), 1e10)",
        "u.clone().scatter_(0, torch.tensor([1, 0]), 1e10)",
        "torch.scatter(u, 0, torch.tensor([], dtype=torch.long), float('nan'))",
        "torch.scatter(u, 0, torch.tensor([1]), 4)",
        "torch.hsplit(x, torch.tensor(5))",
        "torch.hsplit(x, torch.tensor(3))",
        "torch.vsplit(x, torch.tensor(2))",
        "torch.dsplit(x.reshape(2, 2, 3), torch.tensor(3))",
        "torch.hsplit(x, torch.tensor(True))",
        "torch.hsplit(x, torch.tensor(1.0))",
        "torch.tensor_split(x, torch.tensor(2), 1)",
        "torch.norm_except_dim(torch.tensor(False), torch.tensor(False))",
        "torch.norm_except_dim(torch.ones(3, 2), torch.tensor(2))",
        "torch.norm_except_dim(torch.ones(3, 2), 2, torch.tensor(True))",
        "torch.norm_except_dim(torch.ones(3, 2), 2, torch.tensor(1))",
        "torch.norm_except_dim(torch.ones(3, 2), torch.tensor(2.0))",
        "torch.norm_except_dim(torch.ones(3, 2), 2, torch.tensor(1j))",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4526_linalg_cond_takes_a_0d_tensor_norm():
    """Seed 4526: linalg.cond's p is the parser's Number, which a 0-d tensor without grad stands for (it was
    refused before the rank check)"""
    T = minitorch
    A = T.tensor([[2.0, 1.0], [0.5, 3.0]], dtype=T.float64)
    for p in (1, 2, float("inf"), -2):
        assert T.linalg.cond(A, T.tensor(p)).item() == pytest.approx(T.linalg.cond(A, p).item(), rel=1e-12)
    setup = "A = torch.tensor([[2.0, 1.0], [0.5, 3.0]])"
    calls = [
        "torch.linalg.cond(torch.tensor(0.96, dtype=torch.float16), torch.tensor(True))",
        "torch.linalg.cond(A, torch.tensor(True))",
        "torch.linalg.cond(A, torch.tensor(2))",
        "torch.linalg.cond(A, torch.tensor(-1.0))",
        "torch.linalg.cond(A, torch.tensor(3.0))",
        "torch.linalg.cond(A, 1234567.0)",
        "torch.linalg.cond(A, 1 + 2j)",
        "torch.linalg.cond(A, torch.tensor(2.5))",
        "torch.linalg.cond(A, torch.tensor([2.0]))",
        "torch.linalg.cond(A, torch.tensor(2.0, requires_grad=True))",
        "torch.linalg.cond(A, 'fro')",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4530_4531_window_length_tensor_lerp_weight_and_legacy_reduction_order():
    """Seeds 4530-4531: the window functions take a 0-d integer tensor for window_length (the parser's int),
    Tensor.lerp_ refuses a weight that is neither a tensor nor a number in its parser's words (the fused path
    called float() on it), and the losses' legacy size_average/reduce are tested for truth in PyTorch's order
    (size_average first: a tensor of several elements there is the ambiguity error)"""
    T = minitorch
    w = T.kaiser_window(T.tensor(5), dtype=T.float64)
    np.testing.assert_allclose(w.numpy(), T.kaiser_window(5, dtype=T.float64).numpy(), rtol=0, atol=0)
    assert T.hann_window(T.tensor(4), False).shape == (4,)
    x = T.ones(3)
    with pytest.raises(
        TypeError, match=r"^lerp_\(\) received an invalid combination of arguments - got \(Tensor, str\)"
    ):
        x.lerp_(T.zeros(3), "bilinear")
    assert x.lerp_(T.zeros(3), 0.25).tolist() == [0.75] * 3
    setup = "x = torch.ones(2); y = torch.zeros(2); F = torch.nn.functional"
    calls = [
        "x.clone().lerp_(y, 'bilinear')",
        "x.clone().lerp_(y, None)",
        "x.clone().lerp_(y, [0.5])",
        "x.clone().lerp_(y, True)",
        "x.clone().lerp_(y, torch.tensor(0.5))",
        "torch.kaiser_window(torch.tensor(2), dtype=torch.int16)",
        "torch.kaiser_window(torch.tensor(4)).round(decimals=4)",
        "torch.hann_window(torch.tensor(4), False).round(decimals=4)",
        "torch.hann_window(torch.tensor(True))",
        "torch.hann_window(torch.tensor(4.))",
        "torch.hann_window(torch.tensor(-1))",
        "torch.bartlett_window(torch.tensor([3]))",
        "F.kl_div(torch.tensor([1.5]), 0, torch.tensor([0, 0]), 0)",
        "F.kl_div(torch.tensor([1.5]), torch.tensor([0.5]), torch.tensor([1]), 0)",
        "F.mse_loss(torch.tensor([1.5]), torch.tensor([0.5]), torch.tensor([1, 1]), 0)",
        "F.l1_loss(torch.tensor([1.5]), torch.tensor([0.5]), False, True)",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4535_special_logsumexp_parses_as_pytorch():
    """Seed 4535: special.logsumexp is PyTorch's special_logsumexp(Tensor input, int[1] dim, bool keepdim): a
    one-element integer tensor is its dim list (it was refused as "must be int"), and the refusals are in that
    name"""
    T = minitorch
    y = T.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(
        T.special.logsumexp(y, T.tensor([1])).numpy(), np.log(np.exp(np.arange(6.0).reshape(2, 3)).sum(1))
    )
    with pytest.raises(
        TypeError, match=r"^special_logsumexp\(\): argument 'dim' \(position 2\) must be tuple"
    ):
        T.special.logsumexp(y, "a")
    setup = "x = torch.tensor([5, -3, 5], dtype=torch.int8); y = torch.arange(6.).reshape(2, 3)"
    calls = [
        "torch.special.logsumexp(x, torch.tensor([-6]))",
        "torch.special.logsumexp(x, torch.tensor([0]))",
        "torch.special.logsumexp(y, 'a')",
        "torch.special.logsumexp(y, 1.5)",
        "torch.special.logsumexp(y, torch.tensor([[1]]))",
        "torch.special.logsumexp(y, torch.tensor([1, 0]))",
        "torch.special.logsumexp(y, (torch.tensor(1), 0))",
        "torch.special.logsumexp(y, 1, 'x')",
        "torch.special.logsumexp(y)",
        "torch.special.logsumexp(y, 1, True, 3)",
        "torch.special.logsumexp(y, dim=[], keepdim=True)",
        "torch.special.logsumexp(input=y, dim=1)",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4536_quantile_checks_its_arguments_first():
    """Seed 4536: quantile/nanquantile check PyTorch's signatures before running (a bool dim ran as dim 0 where
    PyTorch's parser refuses it: int? takes no bool), and an unknown interpolation is refused in PyTorch 2.15's
    words"""
    T = minitorch
    x = T.tensor([-0.22, 3.0, 1.0])
    with pytest.raises(TypeError, match=r"^quantile\(\) received an invalid combination of arguments"):
        T.quantile(x, 0, False)
    assert T.quantile(x, 0.5, 0, True).tolist() == [1.0]
    setup = "x = torch.tensor([-0.22, 3.0, 1.0])"
    calls = [
        "torch.quantile(x, 0, False)",
        "torch.quantile(x, 0.5, True)",
        "torch.nanquantile(x, 0.5, False)",
        "torch.quantile(x, 0.5, 0, 1)",
        "torch.quantile(x, torch.tensor([0.5, 1.0]), 0, True)",
        "x.quantile(0.5, False)",
        "x.quantile(q=0.5, dim=0, keepdim=True, interpolation='lower')",
        "torch.quantile(x, 0.5, None, False, interpolation='midpoint')",
        "torch.quantile(x, 2)",
        "torch.quantile(x, 0.5, dim=torch.tensor(0))",
        "torch.quantile(x, 0.5, out=torch.empty(()))",
        "torch.quantile(x, 0.5, interpolation='bad')",
        "torch.nanquantile(x, 0.5, interpolation='bad')",
        "torch.quantile(x, [0.5])",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4538_4539_normal_checks_broadcast_before_dtype_and_setitem_into_nothing():
    """Seeds 4538-4539: normal(mean, std) of two tensors checks that they broadcast (ATen's infer_size) before
    its kernel refuses a bool or integer dtype; a tensor index into an empty dim is refused as out of range (an
    IndexError; PyTorch fails inside its index_put with setStorage's RuntimeError: a Known row)"""
    T = minitorch
    with pytest.raises(
        RuntimeError, match=r"The size of tensor a \(0\) must match the size of tensor b \(2\)"
    ):
        T.normal(T.empty((4, 0), dtype=T.bool), T.tensor([False, True]))
    with pytest.raises(IndexError, match="out of bounds"):
        T.empty(0, 3)[T.tensor([0])] = 0
    setup = "B = torch.bool"
    calls = [
        "torch.normal(torch.empty((4, 0), dtype=B), torch.tensor([False, True]))",
        "torch.normal(torch.empty((0,), dtype=B), 1.0)",
        "torch.normal(0.0, torch.empty((0,), dtype=B))",
        "torch.normal(torch.ones(2, dtype=B), torch.ones(2, dtype=B))",
        "torch.normal(torch.empty((0,), dtype=torch.int64), torch.empty(0))",
        "torch.normal(torch.ones(3, dtype=torch.int64), torch.ones(2))",
        "torch.normal(torch.empty((0,), dtype=torch.float16), torch.empty(0))",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4540_dim_lists_of_tensors_nansum_order_and_norms_string_orders():
    """Seed 4540: std/var read a dim list's one-element integer or bool tensors as PyTorch's int lists do (a
    list of them was a TypeError); nansum checks each dim's range and repeat in turn on its integer-dtype path
    too; torch.norm sends a string order but 'fro' over at most two dims to linalg.matrix_norm (the nuclear norm
    was missing), and words a complex or non-number order as vector_norm does; pca_lowrank centres before it
    factorizes"""
    T = minitorch
    a = np.arange(12.0).reshape(4, 3) ** 1.5
    x = T.tensor(a)
    np.testing.assert_allclose(x.std([T.tensor(True)]).numpy(), a.std(axis=1, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(T.var(x, (T.tensor(0), 1)).numpy(), a.var(ddof=1), rtol=1e-12)
    np.testing.assert_allclose(float(T.norm(x, "nuc")), np.linalg.norm(a, "nuc"), rtol=1e-12)
    np.testing.assert_allclose(
        T.norm(T.tensor(np.stack([a, -a])), "nuc", dim=(1, 2)).numpy(),
        [np.linalg.norm(a, "nuc")] * 2,
        rtol=1e-12,
    )
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        T.ones(4, 1, dtype=T.bfloat16).nansum([0, 0, 3], dtype=T.int8)
    setup = (
        "x = torch.arange(12.0).reshape(4, 3); b = torch.tensor(True); i = torch.tensor(0); "
        "d = torch.diag(torch.tensor([3.0, -4.0, 5.0]))"
    )
    calls = [
        "x.std([b])",
        "x.var([i, b], keepdim=True)",
        "torch.std(x, [b], True)",
        "torch.var_mean(x, (b,))",
        "x.std([True, 0])",
        "x.std([0, True])",
        "x.std([torch.tensor(1.0)])",
        "x.std([torch.tensor([0, 1])])",
        "torch.tensor(True).std([b, b])",
        "x.nansum([0, 0, 3])",
        "x.to(torch.bfloat16).nansum([0, 0, 3], dtype=torch.int8)",
        "x.long().nansum([0, 0, 3])",
        "x.sum([0, 0, 3])",
        "d.norm('nuc')",
        "x.norm('x')",
        "x[0].norm('nuc')",
        "x.norm('fro', dim=(0, 1))",
        "x.norm('fro', dim=0)",
        "x.norm('nuc', dim=0)",
        "x.reshape(2, 2, 3).norm('nuc')",
        "x.reshape(2, 2, 3).norm('fro')",
        "x.reshape(2, 2, 3).norm('fro', dim=(0, 1, 2))",
        "torch.norm(x, 1j)",
        "torch.norm(x, [1])",
        "torch.norm(x, torch.float32)",
        "torch.norm(d, 'nuc', keepdim=True)",
        # pca_lowrank centres A before the factorization, as PyTorch's does (the mean was passed as M, whose
        # products took another matmul path)
        "torch.pca_lowrank(torch.ones(3, 4, 5, dtype=torch.bfloat16), 0)",
        "torch.pca_lowrank(torch.ones(3, 4, 5, dtype=torch.bfloat16), False)",
        "torch.pca_lowrank(torch.ones(3, 4, 5, dtype=torch.bfloat16), 1)",
        "torch.pca_lowrank(torch.ones(3, 5, 4, dtype=torch.bfloat16).mT, 0, center=False)",
        "torch.pca_lowrank(torch.ones(3, 4, 5, dtype=torch.int64), 0)",
    ]
    _par21_compare(setup, calls)


def test_fuzz_4541_batch_norm_refuses_running_stats_that_require_grad():
    """Seed 4541: batch_norm (F., torch., and instance_norm's running-stats path) refuses running statistics
    that require grad in grad mode, as PyTorch's native_batch_norm does (it has no derivative for them); under
    no_grad, or with the statistics detached, the op runs"""
    T = minitorch
    x = T.randn(4, 2, dtype=T.float64)
    rm = T.zeros(2, dtype=T.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'running_mean'"):
        T.nn.functional.batch_norm(x, rm, T.ones(2, dtype=T.float64))
    with T.no_grad():
        out = T.nn.functional.batch_norm(x, rm, T.ones(2, dtype=T.float64))
    np.testing.assert_allclose(out.numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-12)
    setup = (
        "F = torch.nn.functional; x = torch.randn(4, 2, dtype=torch.float64, requires_grad=True); "
        "rm = torch.zeros(2, dtype=torch.float64, requires_grad=True); "
        "rv = torch.ones(2, dtype=torch.float64, requires_grad=True)"
    )
    calls = [
        "F.batch_norm(x, rm, rv)",
        "F.batch_norm(x, rm, rv, training=True)",
        "F.batch_norm(x, rm.detach(), rv)",
        "F.batch_norm(x.detach(), rm, rv).requires_grad",
        "F.batch_norm(x, None, None, training=True).shape",
        "torch.batch_norm(x, None, None, rm, rv, False, 0.1, 1e-5, False)",
        "F.batch_norm(x.unsqueeze(-1).expand(4, 2, 3), rm, rv)",
        "F.instance_norm(x.unsqueeze(-1).expand(4, 2, 3), rm, rv, use_input_stats=False)",
        "F.instance_norm(x.unsqueeze(-1), rm, rv)",
        "F.instance_norm(torch.empty(0, 2, 3, dtype=torch.float64), rm, rv, use_input_stats=False).shape",
        "F.batch_norm(x, torch.zeros(2), torch.ones(2), weight=torch.ones(2, requires_grad=True))",
    ]
    _par21_compare(setup, calls)
