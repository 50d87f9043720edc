"""F.interpolate(antialias=True) (bilinear, bicubic, lanczos) and uint8 bilinear/bicubic: values against a NumPy
reference of PyTorch's separable weight rows, gradients by gradcheck in float64, PyTorch's errors, and (with an
oracle Python) values, gradients and uint8 results bit for bit against PyTorch itself."""

import math

import numpy as np
import pytest
from utils import child_json, run_oracle

import minitorch
import minitorch.nn.functional as F


# ---- NumPy reference: PyTorch's _compute_indices_min_size_weights_aa, one (out, in) matrix per dim
def _linear(x):
    x = abs(x)
    return 1 - x if x < 1 else 0.0


def _cubic(x, a=-0.5):
    x = abs(x)
    if x < 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _sinc(x):
    return 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)


def _lanczos(x):
    return _sinc(x) * _sinc(x / 3) if -3 <= x < 3 else 0.0


FILTERS = {"bilinear": (_linear, 2), "bicubic": (_cubic, 4), "lanczos": (_lanczos, 6)}


def aa_matrix(mode, in_, out, align_corners=False, scale_factor=None):
    f, size = FILTERS[mode]
    if align_corners:
        scale = (in_ - 1) / (out - 1) if out > 1 else 0.0
    else:
        scale = 1 / scale_factor if scale_factor else in_ / out
    support = size * 0.5 * scale if scale >= 1 else size * 0.5
    inv = 1 / scale if scale >= 1 else 1.0
    W = np.zeros((out, in_))
    for i in range(out):
        c = scale * (i + 0.5)
        lo = max(int(c - support + 0.5), 0)
        n = min(int(c + support + 0.5), in_) - lo
        w = np.array([f((j + lo - c + 0.5) * inv) for j in range(n)])
        W[i, lo : lo + n] = w / w.sum() if w.sum() != 0 else w
    return W


def aa_reference(x, out_hw, mode, align_corners=False, scale_factor=None):
    # the pass over a dim that keeps its size is skipped (PyTorch's), whatever the scale factor says
    sf = scale_factor or (None, None)
    h, w = x.shape[-2:]
    if out_hw[1] != w:
        x = x @ aa_matrix(mode, w, out_hw[1], align_corners, sf[1]).T
    if out_hw[0] != h:
        x = np.swapaxes(
            np.swapaxes(x, -1, -2) @ aa_matrix(mode, h, out_hw[0], align_corners, sf[0]).T, -1, -2
        )
    return x


SIZES = [((9, 11), (5, 7)), ((9, 11), (20, 23)), ((32, 17), (7, 40)), ((5, 5), (1, 1)), ((1, 7), (3, 3))]
MODES = [("bilinear", False), ("bilinear", True), ("bicubic", False), ("bicubic", True), ("lanczos", False)]


@pytest.mark.parametrize("mode,ac", MODES)
@pytest.mark.parametrize("sizes", SIZES)
def test_values_against_numpy(mode, ac, sizes):
    (h, w), out = sizes
    x = np.random.default_rng(0).standard_normal((2, 3, h, w))
    y = F.interpolate(minitorch.tensor(x), size=out, mode=mode, align_corners=ac, antialias=True)
    assert y.dtype == minitorch.float64 and tuple(y.shape) == (2, 3) + out
    np.testing.assert_allclose(y.numpy(), aa_reference(x, out, mode, ac), rtol=1e-12, atol=1e-12)
    y32 = F.interpolate(
        minitorch.tensor(x, dtype=minitorch.float32), size=out, mode=mode, align_corners=ac, antialias=True
    )
    assert y32.dtype == minitorch.float32
    np.testing.assert_allclose(y32.numpy(), aa_reference(x, out, mode, ac), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_scale_factor_and_layouts(mode):
    x = np.random.default_rng(1).standard_normal((1, 2, 12, 10))
    for sf in [(0.4, 0.7), (2.5, 1.3), (1.2, 0.5)]:
        y = F.interpolate(minitorch.tensor(x), scale_factor=sf, mode=mode, antialias=True)
        out = (int(12 * sf[0]), int(10 * sf[1]))
        np.testing.assert_allclose(y.numpy(), aa_reference(x, out, mode, False, sf), rtol=1e-12, atol=1e-12)
    # strided and channels-last inputs give the same values
    t = minitorch.tensor(x)
    ref = F.interpolate(t, size=(5, 17), mode=mode, antialias=True).numpy()
    cl = t.contiguous(memory_format=minitorch.channels_last)
    np.testing.assert_allclose(F.interpolate(cl, size=(5, 17), mode=mode, antialias=True).numpy(), ref)
    tr = minitorch.tensor(np.ascontiguousarray(np.swapaxes(x, -1, -2))).transpose(-1, -2)
    np.testing.assert_allclose(F.interpolate(tr, size=(5, 17), mode=mode, antialias=True).numpy(), ref)


@pytest.mark.parametrize("mode,ac", MODES)
@pytest.mark.parametrize(
    "shape,out", [((7, 9), (3, 4)), ((4, 5), (9, 7)), ((6, 6), (6, 3)), ((3, 8), (5, 8))]
)
def test_gradcheck(mode, ac, shape, out):
    x = minitorch.tensor(np.random.default_rng(2).standard_normal((2, 2) + shape), requires_grad=True)

    def fn(t):
        return F.interpolate(t, size=out, mode=mode, align_corners=ac, antialias=True)

    assert minitorch.autograd.gradcheck(fn, (x,))
    assert minitorch.autograd.gradgradcheck(fn, (x,))


def test_grad_fn_names():
    x = minitorch.ones(1, 1, 6, 6, requires_grad=True)
    for mode, name in [("bilinear", "Bilinear"), ("bicubic", "Bicubic"), ("lanczos", "Lanczos")]:
        y = F.interpolate(x, size=(3, 4), mode=mode, antialias=True)
        assert y.grad_fn.name() == f"Upsample{name}2DAaBackward0"


ERRORS = [
    (
        {"mode": "nearest", "antialias": True},
        (1, 3, 8, 8),
        ValueError,
        "Anti-alias option is restricted to bilinear",
    ),
    (
        {"mode": "bilinear", "antialias": True},
        (3, 8, 8),
        ValueError,
        "Anti-alias option is restricted to bilinear",
    ),
    (
        {"mode": "bicubic", "antialias": True},
        (1, 1, 3, 8, 8),
        ValueError,
        "and requires a 4-D tensor as input",
    ),
    (
        {"mode": "lanczos", "antialias": False},
        (1, 3, 8, 8),
        ValueError,
        "Lanczos mode requires antialias=True",
    ),
    (
        {"mode": "lanczos", "antialias": True, "align_corners": True},
        (1, 3, 8, 8),
        ValueError,
        "Lanczos mode does not support align_corners=True",
    ),
    (
        {"mode": "lanczos"},
        (3, 8, 8),
        NotImplementedError,
        "Input Error: Only 3D, 4D and 5D input Tensors supported",
    ),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    kw, shape, exc, msg = ERRORS[i]
    with pytest.raises(exc, match=msg):
        F.interpolate(minitorch.ones(*shape), size=(5,) * (len(shape) - 2), **kw)


@pytest.mark.parametrize(
    "dtype,name", [(minitorch.float16, "Half"), (minitorch.bfloat16, "BFloat16"), (minitorch.int32, "Int")]
)
def test_dtype_errors(dtype, name):
    x = minitorch.ones(1, 3, 8, 8, dtype=dtype)
    with pytest.raises(
        NotImplementedError, match=f"\"compute_index_ranges_weights\" not implemented for '{name}'"
    ):
        F.interpolate(x, size=(5, 5), mode="bilinear", antialias=True)


def test_bad_sizes():
    with pytest.raises(
        RuntimeError, match=r"Input and output sizes should be greater than 0, but got input \(H: 0, W: 8\)"
    ):
        F.interpolate(minitorch.ones(1, 3, 0, 8), size=(5, 5), mode="bilinear", antialias=True)
    assert tuple(
        F.interpolate(minitorch.ones(0, 3, 4, 8), size=(5, 5), mode="bicubic", antialias=True).shape
    ) == (0, 3, 5, 5)


# ---- PyTorch itself: float values and gradients, uint8 bit for bit
_FLOAT_ORACLE = r"""
import json, sys, numpy as np, torch, torch.nn.functional as F
out = []
for c in json.load(sys.stdin):
    x = torch.tensor(np.array(c["x"]), dtype=getattr(torch, c["dtype"]), requires_grad=True)
    y = F.interpolate(x, size=c["size"], scale_factor=c["sf"], mode=c["mode"], align_corners=c["ac"], antialias=True)
    y.backward(torch.tensor(np.array(c["g"]), dtype=x.dtype))
    out.append({"y": y.detach().double().tolist(), "gx": x.grad.double().tolist()})
print(json.dumps(out))
"""


def _out_size(hw, size, sf):
    return tuple(size) if size else (int(hw[0] * sf[0]), int(hw[1] * sf[1]))


def test_float_against_pytorch():
    rng = np.random.default_rng(3)
    cases = []
    for dtype in ["float64", "float32"]:
        for mode, ac in MODES:
            for hw, size, sf in [
                ((13, 17), [6, 30], None),
                ((24, 9), [7, 9], None),
                ((10, 12), None, [0.3, 2.2]),
                ((8, 8), None, [1.7, 0.45]),
                ((5, 21), [1, 4], None),
            ]:
                x = rng.standard_normal((2, 3) + hw)
                g = rng.standard_normal((2, 3) + _out_size(hw, size, sf))
                cases.append(
                    {
                        "x": x.tolist(),
                        "g": g.tolist(),
                        "dtype": dtype,
                        "mode": mode,
                        "ac": ac,
                        "size": size,
                        "sf": sf,
                    }
                )
    theirs = run_oracle(_FLOAT_ORACLE, cases)
    for c, r in zip(cases, theirs):
        dt = getattr(minitorch, c["dtype"])
        tol = 1e-6 if c["dtype"] == "float64" else 1e-5
        x = minitorch.tensor(np.array(c["x"]), dtype=dt, requires_grad=True)
        y = F.interpolate(
            x, size=c["size"], scale_factor=c["sf"], mode=c["mode"], align_corners=c["ac"], antialias=True
        )
        y.backward(minitorch.tensor(np.array(c["g"]), dtype=dt))
        what = (c["dtype"], c["mode"], c["ac"], c["size"], c["sf"])
        np.testing.assert_allclose(
            y.detach().double().numpy(), np.array(r["y"]), rtol=tol, atol=tol, err_msg=str(what)
        )
        np.testing.assert_allclose(
            x.grad.double().numpy(), np.array(r["gx"]), rtol=tol, atol=tol, err_msg=str(what)
        )


_UINT8_ORACLE = r"""
import json, sys, numpy as np, torch, torch.nn.functional as F
out = []
for c in json.load(sys.stdin):
    x = torch.tensor(np.array(c["x"], dtype=np.uint8))
    if c["cl"]:
        x = x.contiguous(memory_format=torch.channels_last)
    try:
        y = F.interpolate(x, size=c["size"], scale_factor=c["sf"], mode=c["mode"], align_corners=c["ac"],
                          antialias=c["aa"])
        out.append([y.tolist(), list(y.stride())])
    except RuntimeError as e:  # PyTorch's AVX2 kernel asserts on some 1x1 outputs: no value to compare
        out.append(None)
print(json.dumps(out))
"""


@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5])
def test_uint8_against_pytorch(channels):
    rng = np.random.default_rng(10 + channels)
    cases = []
    for mode, aa in [
        ("bilinear", True),
        ("bilinear", False),
        ("bicubic", True),
        ("bicubic", False),
        ("lanczos", True),
    ]:
        for ac in [False] if mode == "lanczos" else [False, True]:
            for hw, size, sf in [
                ((37, 29), [16, 16], None),
                ((15, 20), [41, 33], None),
                ((64, 48), [30, 100], None),
                ((19, 23), None, [0.37, 1.6]),
                ((6, 1), [3, 4], None),
                ((50, 50), [50, 13], None),
                ((224, 32), [128, 32], None),
                ((40, 160), [20, 45], None),
            ]:
                x = rng.integers(0, 256, (2, channels) + hw)
                # channels-last: 3 and 4 channels run the NHWC kernels, the others the NCHW ones between copies
                cl = bool(rng.integers(0, 2))
                cases.append(
                    {"x": x.tolist(), "mode": mode, "aa": aa, "ac": ac, "size": size, "sf": sf, "cl": cl}
                )
    theirs = run_oracle(_UINT8_ORACLE, cases)
    compared = 0
    for c, r in zip(cases, theirs):
        x = minitorch.tensor(np.array(c["x"], dtype=np.uint8))
        if c["cl"]:
            x = x.contiguous(memory_format=minitorch.channels_last)
        y = F.interpolate(
            x, size=c["size"], scale_factor=c["sf"], mode=c["mode"], align_corners=c["ac"], antialias=c["aa"]
        )
        assert y.dtype == minitorch.uint8
        if r is None:
            continue
        compared += 1
        what = (c["mode"], c["aa"], c["ac"], c["size"], c["sf"], c["cl"], np.array(c["x"]).shape)
        np.testing.assert_array_equal(y.numpy(), np.array(r[0], dtype=np.uint8), err_msg=str(what))
        assert list(y.stride()) == r[1], what
    assert compared > len(cases) // 2


# uint8's passes at each capability (read once per process): the scalar loops (default) and the AVX2 kernels
# (avx2; an AVX-512 CPU runs them there too) give the same bytes, NCHW and channels-last, at sizes where the
# vector loops run whole groups and blocks, their tails, and several chunks of taps; this process's own path
# is the one checked against PyTorch above
_UINT8_CAPS = r"""
import hashlib, json, numpy as np, minitorch, minitorch.nn.functional as F
rng = np.random.default_rng(5)
out = []
for hw, size in [((224, 224), (112, 112)), ((61, 300), (130, 41)), ((33, 70), (95, 161)), ((120, 31), (7, 64))]:
    for c in (1, 3, 4):
        x = minitorch.from_numpy(rng.integers(0, 256, (2, c) + hw).astype(np.uint8))
        for mode, aa in [("bilinear", True), ("bicubic", True), ("lanczos", True), ("bicubic", False)]:
            for t in (x, x.contiguous(memory_format=minitorch.channels_last)):
                y = F.interpolate(t, size=size, mode=mode, antialias=aa).numpy()
                out.append(hashlib.sha256(y.tobytes()).hexdigest())
print(json.dumps([minitorch.backends.cpu.get_cpu_capability(), out]))
"""


def test_uint8_same_bytes_at_each_capability():
    base = child_json(_UINT8_CAPS, MINITORCH_CPU_CAPABILITY="default")
    assert base[0] == "DEFAULT"
    for cap in ["avx2", "avx512"]:
        got = child_json(_UINT8_CAPS, MINITORCH_CPU_CAPABILITY=cap)
        assert got[1] == base[1], got[0]
