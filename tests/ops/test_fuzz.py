"""Property-based fuzzing (hypothesis): random shapes, dtypes, layouts, devices and bad arguments over the
elementwise op table, shape ops, indexing, gather/scatter, reductions and factories. Each example must give
NumPy's value or raise a clean Python exception; never crash, hang or return something else.

The examples run in a child pytest process, so a segfault fails `test_fuzz_suite_in_a_subprocess` and names
the case that was running (each example writes itself to a file before it runs). Fixed seed, small budget in
the normal run; MINITORCH_FUZZ_EXAMPLES=N sets the examples per property for long runs, MINITORCH_FUZZ_SEED=S
replaces the fixed seed (so a long run can be split into chunks that draw different examples), and
MINITORCH_FUZZ_COUNT=path makes the child write how many calls it made (see docs/reliability.md)."""

import atexit
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pytest

import minitorch
from tests.ops import op_schema
from tests.utils import ALL_DTYPES, NP_OF, REPO, make_tensor

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CHILD = os.environ.get("MINITORCH_FUZZ_CHILD") == "1"
EXAMPLES = int(os.environ.get("MINITORCH_FUZZ_EXAMPLES", "60"))
LAST_CASE = os.environ.get("MINITORCH_FUZZ_LAST_CASE")
SEED = os.environ.get("MINITORCH_FUZZ_SEED")
COUNT_FILE = os.environ.get("MINITORCH_FUZZ_COUNT")
# clean failures: what PyTorch raises for bad input
CLEAN = (RuntimeError, IndexError, ValueError, TypeError, NotImplementedError, OverflowError)

_settings = settings(
    max_examples=EXAMPLES,
    derandomize=SEED is None,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def fuzz(f):
    f = _settings(f)
    return hypothesis.seed(int(SEED))(f) if SEED is not None else f


_calls = {}


def _write_count():
    if COUNT_FILE and _calls:
        with open(COUNT_FILE, "w") as f:
            f.write("".join(f"{k} {v}\n" for k, v in sorted(_calls.items())))


atexit.register(_write_count)
child_only = pytest.mark.skipif(not CHILD, reason="runs inside test_fuzz_suite_in_a_subprocess")


def note(*what):
    """Records the case about to run, so a crash can be reported by the parent."""
    _calls[what[0]] = _calls.get(what[0], 0) + 1
    if LAST_CASE:
        with open(LAST_CASE, "w") as f:
            f.write(repr(what))


def to_np(t):
    if t.dtype == minitorch.bfloat16:
        return t.float().cpu().numpy().astype(np.float64)
    return t.cpu().numpy()


def same(out, expect, dtype=None):
    """out (a minitorch tensor) equals the NumPy result (shape and values, NaNs equal)."""
    got = to_np(out)
    expect = np.asarray(expect)
    assert got.shape == expect.shape, (got.shape, expect.shape)
    if got.dtype.kind == "f" or expect.dtype.kind == "f":
        tol = {np.float16: 1e-2, np.float32: 1e-5}.get(got.dtype.type, 1e-9)
        if out.dtype == minitorch.bfloat16:
            tol = 4e-2
        np.testing.assert_allclose(
            got.astype(np.float64), expect.astype(np.float64), rtol=tol, atol=tol, equal_nan=True
        )
    else:
        np.testing.assert_array_equal(got, expect)


def outcome(f):
    """('ok', value) or ('err', exception); an exception outside CLEAN propagates (a test failure)."""
    try:
        return "ok", f()
    except CLEAN as e:
        assert str(e), f"{type(e).__name__} without a message"
        return "err", e


dtypes = st.sampled_from(ALL_DTYPES)
DEVICES = ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
devices = st.sampled_from(DEVICES)
shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)
layouts = st.sampled_from(["contiguous", "transposed", "strided", "expanded"])
# dims and sizes that are in range, just out of range, or absurd
ints = st.one_of(
    st.integers(-5, 5), st.sampled_from([2**31, 2**62, 2**63 - 1, -(2**63), -(2**62), 6148914691236517205])
)


@st.composite
def tensors(draw, dtype=None, shape=None):
    dtype = dtype or draw(dtypes)
    shape = draw(shapes) if shape is None else shape
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if dtype == minitorch.bool:
        arr = rng.random(shape) > 0.5
    elif dtype.is_floating_point:
        arr = rng.uniform(-3, 3, size=shape)
        arr = minitorch.tensor(arr, dtype=minitorch.float64).to(dtype).double().numpy()
    else:
        lo = 0 if dtype == minitorch.uint8 else -5
        arr = rng.integers(lo, 6, size=shape).astype(NP_OF[dtype])
    layout = draw(layouts) if len(shape) >= 2 else "contiguous"
    if layout == "expanded":
        layout = "contiguous"
    t = make_tensor(arr, dtype, draw(devices), layout)
    return t, np.asarray(arr)


# ---- elementwise ops: the op database's entries (tests/ops/opdb.py)


def _elementwise_tables():
    from tests.ops import opdb

    return opdb.UNARY, opdb.BINARY


@child_only
@fuzz
@given(data=st.data())
def test_fuzz_unary(data):
    unary, _ = _elementwise_tables()
    name = data.draw(st.sampled_from(sorted(unary)))
    ref, ok_dtypes, domain, _rule = unary[name]
    t, arr = data.draw(tensors())
    note("unary", name, t.dtype, tuple(t.shape), t.stride(), t.device)
    fn = op_schema.function(name)
    kind, out = outcome(lambda: fn(t))
    if t.dtype not in ok_dtypes:  # PyTorch refuses the pair (tests/ops/elementwise_oracle.py): so must we
        assert kind == "err", f"{name} on {t.dtype} should raise, as in PyTorch"
        return
    assert kind == "ok", out
    if domain is not None:  # values outside the op's domain: only shape and no crash
        assert tuple(out.shape) == arr.shape
        return
    # integer and bool inputs of a floating op compute in floating point (NumPy refuses `-` on bools)
    with np.errstate(all="ignore"):
        expect = ref(arr.astype(np.float64) if out.dtype.is_floating_point else arr)
    same(out, expect)


@child_only
@fuzz
@given(data=st.data())
def test_fuzz_binary_broadcast(data):
    _, binary = _elementwise_tables()
    name = data.draw(st.sampled_from(sorted(binary)))
    ref, ok_dtypes, domain, rule = binary[name]
    dtype = data.draw(dtypes)
    a, na = data.draw(tensors(dtype=dtype))
    # b: broadcastable most of the time, sometimes not
    bshape = tuple(
        data.draw(st.sampled_from([s, 1])) for s in na.shape[data.draw(st.integers(0, len(na.shape))) :]
    )
    if data.draw(st.booleans()):
        bshape = data.draw(shapes)
    b, nb = data.draw(tensors(dtype=dtype, shape=bshape))
    note("binary", name, dtype, tuple(a.shape), tuple(b.shape), a.device, b.device)
    kind, out = outcome(lambda: op_schema.function(name)(a, b))
    try:
        np.broadcast_shapes(na.shape, nb.shape)
    except ValueError:
        assert kind == "err", f"{name}{na.shape, nb.shape} should not broadcast"
        return
    if a.device != b.device:
        # PyTorch lets a 0-dim CPU tensor join a CUDA one (as a scalar); any other mix raises
        cpu_scalar = (a.device.type == "cpu" and a.dim() == 0) or (b.device.type == "cpu" and b.dim() == 0)
        if not cpu_scalar:
            assert kind == "err", f"{name} across devices should raise"
            return
        if kind == "ok":
            assert out.device.type == "cuda", f"{name}: a CPU scalar with a CUDA tensor gives a CUDA result"
        return
    if dtype not in ok_dtypes:  # PyTorch refuses the pair (tests/ops/elementwise_oracle.py): so must we
        assert kind == "err", f"{name} on {dtype} should raise, as in PyTorch"
        return
    if kind == "err":  # e.g. integer division by zero: PyTorch's "ZeroDivisionError"
        return
    assert tuple(out.shape) == np.broadcast_shapes(na.shape, nb.shape)
    if domain is not None or rule in ("div",):
        return
    if dtype.is_floating_point:
        with np.errstate(all="ignore"):
            same(out, ref(na.astype(np.float64), nb.astype(np.float64)))
    elif name in ("add", "sub", "mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"):
        with np.errstate(all="ignore"):
            same(out, ref(na, nb).astype(to_np(out).dtype))


# ---- shape ops against NumPy, with in-range and absurd arguments


def _torch_split(arr, size, dim):
    n = arr.shape[dim]
    if n == 0:
        return [arr]
    return [np.take(arr, range(s, min(n, s + size)), axis=dim) for s in range(0, n, size)]


def _diagonal(x, off):
    if abs(off) < 2**31:
        return np.diagonal(x, off)
    return np.zeros(x.shape[2:] + (0,), x.dtype)  # NumPy overflows on such offsets; the diagonal is empty


def _wrap(d, n):
    m = max(n, 1)
    if not -m <= d < m:
        raise IndexError
    return d % m


SHAPE_OPS = {
    # name: (minitorch call, NumPy reference that raises where PyTorch raises)
    "reshape": (lambda t, a, b: t.reshape(a, b), lambda x, a, b: x.reshape(a, b)),
    "view_flat": (lambda t, a, b: t.contiguous().view(-1), lambda x, a, b: x.reshape(-1)),
    "transpose": (
        lambda t, a, b: t.transpose(a, b),
        lambda x, a, b: (
            np.swapaxes(x, _wrap(a, x.ndim), _wrap(b, x.ndim)) if x.ndim else (_wrap(a, 0), _wrap(b, 0), x)[2]
        ),
    ),
    "movedim": (
        lambda t, a, b: t.movedim(a, b),
        lambda x, a, b: (
            np.moveaxis(x, _wrap(a, x.ndim), _wrap(b, x.ndim)) if x.ndim else (_wrap(a, 0), _wrap(b, 0), x)[2]
        ),
    ),
    "unsqueeze": (lambda t, a, b: t.unsqueeze(a), lambda x, a, b: np.expand_dims(x, _wrap(a, x.ndim + 1))),
    "flatten": (lambda t, a, b: t.flatten(a, b), None),
    "narrow": (lambda t, a, b: t.narrow(0, a, b), None),
    "select": (lambda t, a, b: t.select(a, b), None),
    "split": (
        lambda t, a, b: t.split(a, b),
        lambda x, a, b: _torch_split(x, a, _wrap(b, x.ndim)) if x.ndim and a > 0 else None,
    ),
    "chunk": (lambda t, a, b: t.chunk(a, b), None),
    "expand": (
        lambda t, a, b: t.expand(a, *t.shape),
        lambda x, a, b: np.broadcast_to(x, (a,) + x.shape) if a >= 0 else None,
    ),
    "diagonal": (lambda t, a, b: t.diagonal(a), lambda x, a, b: _diagonal(x, a) if x.ndim >= 2 else None),
    "unbind": (
        lambda t, a, b: t.unbind(a),
        lambda x, a, b: (
            [np.take(x, i, axis=_wrap(a, x.ndim)) for i in range(x.shape[_wrap(a, x.ndim)])]
            if x.ndim
            else None
        ),
    ),
    "squeeze": (
        lambda t, a, b: t.squeeze(a),
        lambda x, a, b: (
            np.squeeze(x, _wrap(a, x.ndim))
            if x.ndim and x.shape[_wrap(a, x.ndim)] == 1
            else (_wrap(a, x.ndim), x)[1]
        ),
    ),
}


@child_only
@fuzz
@given(data=st.data())
def test_fuzz_shape_ops(data):
    name = data.draw(st.sampled_from(sorted(SHAPE_OPS)))
    t, arr = data.draw(tensors())
    a, b = data.draw(ints), data.draw(ints)
    note("shape", name, tuple(t.shape), t.stride(), a, b)
    call, ref = SHAPE_OPS[name]
    kind, out = outcome(lambda: call(t, a, b))
    if kind == "err":
        return
    # any result must be a sound tensor: its elements readable, its numel the product of its sizes
    outs = out if isinstance(out, (list, tuple)) else [out]
    for o in outs:
        assert o.numel() == int(np.prod(o.shape, dtype=object))
        if o.numel() > 10**6:  # a legal huge view (expand): too big to compare
            return
        o.contiguous()
    if ref is None:
        return
    try:
        with np.errstate(all="ignore"):
            expect = ref(arr, a, b)
    except (ValueError, IndexError, TypeError, OverflowError, np.exceptions.AxisError) as e:
        if (
            "too big" in str(e) or "too large" in str(e)
        ) and arr.size == 0:  # PyTorch takes an empty tensor of any size; NumPy refuses
            return
        pytest.fail(f"{name}{tuple(t.shape), a, b} returned but NumPy raises")
    if expect is None:
        return
    if isinstance(expect, list):
        assert len(outs) == len(expect)
        for o, e in zip(outs, expect):
            same(o, e)
    else:
        same(out, expect)


# ---- indexing against NumPy


@st.composite
def index_items(draw, size):
    kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "bool", "list", "tensor", "huge"]))
    if kind == "int":
        return draw(st.integers(-size - 1, size))
    if kind == "slice":

        def bound():
            return draw(st.one_of(st.none(), st.integers(-size - 2, size + 2)))

        return slice(bound(), bound(), draw(st.one_of(st.none(), st.integers(1, 3), st.just(2**62))))
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    if kind == "bool":
        return draw(st.booleans())
    if kind == "huge":
        return draw(st.sampled_from([2**62, -(2**62), 2**63 - 1]))
    n = draw(st.integers(1, 3))
    vals = [draw(st.integers(-size - 1, max(size, 0))) for _ in range(n)]
    return vals if kind == "list" else ("tensor", vals)


@child_only
@fuzz
@given(data=st.data())
def test_fuzz_indexing(data):
    t, arr = data.draw(tensors())
    sizes = list(arr.shape) + [3]
    key = tuple(
        data.draw(index_items(sizes[min(i, len(sizes) - 1)])) for i in range(data.draw(st.integers(1, 3)))
    )
    tkey = tuple(minitorch.tensor(k[1]) if isinstance(k, tuple) else k for k in key)
    nkey = tuple(np.array(k[1]) if isinstance(k, tuple) else k for k in key)
    note("index", tuple(t.shape), t.stride(), key)
    kind, out = outcome(lambda: t[tkey])
    bools = [k for k in key if isinstance(k, bool)]
    advanced = any(isinstance(k, (list, tuple)) for k in key)
    ints = any(isinstance(k, int) and not isinstance(k, bool) for k in key)
    if bools == [True] and not advanced:
        # NumPy makes True an advanced index that also turns the ints into advanced ones (moving dims to the
        # front); PyTorch treats a lone True as a new axis of size 1 in place (as None), the ints as basic
        nkey = tuple(None if k is True else k for k in nkey)
    elif bools and (False in bools or advanced or ints):
        nkey = None  # no NumPy spelling of PyTorch's rule here: only a clean outcome is checked
    elif ints and advanced:
        # NumPy turns ints beside a list into advanced indices (moving dims to the front when they are apart);
        # PyTorch applies the ints as basic indexing first: spell that as two NumPy steps
        basic = tuple(slice(None) if isinstance(k, (list, np.ndarray)) else k for k in nkey)
        rest = tuple(
            slice(None) if k is None or isinstance(k, slice) else k
            for k in nkey
            if not (isinstance(k, int) and not isinstance(k, bool))
        )
        try:
            arr = arr[basic]
            nkey = rest
        except (IndexError, ValueError, TypeError):
            pass  # out of range: the one-step key raises too
    try:
        expect = arr[nkey] if nkey is not None else None
    except (IndexError, ValueError, TypeError):
        expect = None
    if kind == "err" or nkey is None:
        return  # PyTorch refuses some keys NumPy takes; a clean error is acceptable
    assert expect is not None, f"index {key} of {arr.shape} returned but NumPy raises"
    same(out, expect)


# ---- gather / scatter / index_select with random (possibly invalid) indices


@child_only
@fuzz
@given(data=st.data())
def test_fuzz_gather_scatter(data):
    t, arr = data.draw(
        tensors(dtype=data.draw(st.sampled_from([minitorch.float32, minitorch.int64, minitorch.float64])))
    )
    if arr.ndim == 0:
        return
    dim = data.draw(st.integers(-arr.ndim, arr.ndim - 1))
    d = dim % arr.ndim
    ishape = tuple(data.draw(st.integers(0, s)) for s in arr.shape)
    vals = np.asarray(
        data.draw(
            st.lists(
                st.integers(-arr.shape[d] - 1, arr.shape[d]),
                min_size=int(np.prod(ishape)),
                max_size=int(np.prod(ishape)),
            )
        ),
        dtype=np.int64,
    ).reshape(ishape)
    idx = minitorch.tensor(vals, device=t.device)
    op = data.draw(st.sampled_from(["gather", "index_select", "scatter", "scatter_add"]))
    note(op, tuple(t.shape), t.stride(), dim, vals.tolist())
    valid = bool(np.all((vals >= 0) & (vals < arr.shape[d])))
    if op == "gather":
        kind, out = outcome(lambda: t.gather(dim, idx))
        assert (kind == "ok") == valid, out
        if valid:
            # PyTorch's gather reads only the index's extent in the other dims (NumPy would broadcast)
            sub = arr[tuple(slice(None) if i == d else slice(0, n) for i, n in enumerate(ishape))]
            same(out, np.take_along_axis(sub, vals, d) if vals.size else np.zeros(ishape, arr.dtype))
    elif op == "index_select":
        flat = vals.reshape(-1)
        kind, out = outcome(lambda: t.index_select(dim, minitorch.tensor(flat, device=t.device)))
        ok = bool(np.all((flat >= 0) & (flat < arr.shape[d])))
        assert (kind == "ok") == ok, out
        if ok:
            same(out, np.take(arr, flat, axis=d))
    else:
        src_np = np.arange(vals.size, dtype=arr.dtype).reshape(ishape) + 1
        src = minitorch.tensor(src_np, dtype=t.dtype, device=t.device)
        kind, out = outcome(lambda: getattr(t, op)(dim, idx, src))
        assert (kind == "ok") == valid, out
        if valid:
            expect = arr.copy()
            for pos in np.ndindex(*ishape):
                target = list(pos)
                target[d] = vals[pos]
                if op == "scatter_add":
                    expect[tuple(target)] += src_np[pos]
            if op == "scatter":
                # positions written more than once take an unspecified one of their values: check the rest
                hits = {}
                for pos in np.ndindex(*ishape):
                    target = list(pos)
                    target[d] = vals[pos]
                    hits.setdefault(tuple(target), []).append(src_np[pos])
                got = to_np(out)
                for p in np.ndindex(*arr.shape):
                    if p in hits:
                        assert got[p] in hits[p]
                    else:
                        assert got[p] == arr[p]
                return
            same(out, expect)


# ---- reductions


@child_only
@fuzz
@given(data=st.data())
def test_fuzz_reductions(data):
    t, arr = data.draw(
        tensors(
            dtype=data.draw(
                st.sampled_from([minitorch.float32, minitorch.float64, minitorch.int64, minitorch.int32])
            )
        )
    )
    op = data.draw(st.sampled_from(["sum", "amax", "amin", "prod", "mean"]))
    dim = data.draw(ints)
    keep = data.draw(st.booleans())
    note(op, tuple(t.shape), t.stride(), dim, keep)
    kind, out = outcome(lambda: getattr(t, op)(dim, keepdim=keep))
    if kind == "err":
        return
    axis = _wrap(dim, arr.ndim)
    ref = {"sum": np.sum, "amax": np.amax, "amin": np.amin, "prod": np.prod, "mean": np.mean}[op]
    src = arr.astype(np.float64) if op == "mean" else arr
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expect = ref(src, axis=axis if arr.ndim else None, keepdims=keep if arr.ndim else False)
    same(out, expect)


# ---- factories and views with absurd sizes and strides (the crash-prone family)


@child_only
@fuzz
@given(data=st.data())
def test_fuzz_factories_and_strides(data):
    op = data.draw(
        st.sampled_from(["zeros", "full", "arange", "eye", "as_strided", "randint", "view", "linspace"])
    )
    a, b, c = data.draw(ints), data.draw(ints), data.draw(ints)
    dtype = data.draw(dtypes)
    # legal but huge results would really be allocated and filled: only sizes that are small or absurd
    count = {"zeros": a * b, "eye": a * (b if b >= 0 else a), "linspace": a}.get(op, 0)
    if op == "arange":
        count = -(-(b - a) // (c or 1))  # step 0 is called as step 1 below
    if 10**7 < count < 2**63:
        return
    note(op, a, b, c, dtype)
    calls = {
        "zeros": lambda: minitorch.zeros(a, b, dtype=dtype),
        "full": lambda: minitorch.full((abs(a) % 4,), b * 1.5, dtype=dtype),
        "arange": lambda: minitorch.arange(a, b, c if c else 1, dtype=dtype),
        "eye": lambda: minitorch.eye(a, b, dtype=dtype),
        "as_strided": lambda: minitorch.zeros(6).as_strided((abs(a) % 8, abs(b) % 8), (c, 1), abs(c) % 3),
        "randint": lambda: minitorch.randint(a, b, (2,), dtype=dtype),
        "view": lambda: minitorch.zeros(6, dtype=dtype).view(a, b),
        "linspace": lambda: minitorch.linspace(0, 1, a, dtype=dtype),
    }
    kind, out = outcome(calls[op])
    if kind == "err":
        return
    assert out.numel() == int(np.prod(out.shape, dtype=object))
    assert out.numel() < 10**7
    if out.numel():
        out.contiguous().reshape(-1)[-1].item()  # reads the last element: must be inside the storage
    if op == "zeros" and dtype != minitorch.bool:
        assert out.shape == (a, b) and (out.numel() == 0 or out.abs().max().item() == 0)
    if op == "randint" and out.numel():
        # a floating dtype rounds high - 1 to the nearest value it holds, which may be high (as in PyTorch)
        assert a <= out.min().item() and out.max().item() < b + (b * 2**-7 if dtype.is_floating_point else 0)


# ---- the parent test: the suite above in a child process


def test_fuzz_suite_in_a_subprocess():
    if CHILD:
        pytest.skip("the child runs the properties themselves")
    with tempfile.TemporaryDirectory() as d:
        last = os.path.join(d, "last_case")
        env = dict(os.environ, MINITORCH_FUZZ_CHILD="1", MINITORCH_FUZZ_LAST_CASE=last)
        r = subprocess.run(
            [
                sys.executable,
                "-X",
                "faulthandler",
                "-m",
                "pytest",
                "-q",
                "-x",
                "-p",
                "no:cacheprovider",
                __file__,
                "-k",
                "test_fuzz_ and not subprocess",
            ],
            check=False,
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            timeout=float(os.environ.get("MINITORCH_FUZZ_TIMEOUT", "900")),
        )
        tail = (r.stdout + r.stderr)[-6000:]
        case = "?"
        if os.path.exists(last):
            with open(last) as f:
                case = f.read()
        assert r.returncode >= 0, (
            f"the fuzz child died with signal {-r.returncode} while running {case}\n{tail}"
        )
        assert r.returncode == 0, f"fuzz failure (last case {case}):\n{tail}"
