"""torch.compile (minitorch.compiler.compile, minitorch._dynamo, minitorch._inductor): compiled results equal
eager ones (and float64 references for the generated math), the fused C++ kernels really run, guards and
recompiles, graph breaks (warning, fullgraph error), custom backends, explain, reset, the decorator forms,
OptimizedModule and Module.compile, training gradients, the no-compiler fallback and the on-disk cache."""

import copy
import json
import math
import operator
import os
import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import scipy.special

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import _dynamo, nn
from minitorch._inductor import codecache
from tests.utils import run_oracle

# torch.compile (minitorch.compile is to be wired to it by the package root)
compile = torch.compiler.compile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
HAS_CXX = codecache.compiler() is not None
needs_cxx = pytest.mark.skipif(not HAS_CXX, reason="no C++ compiler on PATH")


@pytest.fixture(autouse=True, scope="module")
def _cache_dir(tmp_path_factory):
    """Kernels of this test module go to a fresh cache directory (not ~/.cache)."""
    d = str(tmp_path_factory.mktemp("compile_cache"))
    old = os.environ.get("MINITORCH_COMPILE_CACHE_DIR")
    os.environ["MINITORCH_COMPILE_CACHE_DIR"] = d
    yield d
    if old is None:
        os.environ.pop("MINITORCH_COMPILE_CACHE_DIR", None)
    else:
        os.environ["MINITORCH_COMPILE_CACHE_DIR"] = old


@pytest.fixture(autouse=True)
def _fresh():
    _dynamo.reset()
    yield
    _dynamo.reset()


def new_gelu(x):
    """GPT-2's GELU written out with tanh (minGPT/nanoGPT's NewGELU)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class NewGELU(nn.Module):
    def forward(self, x):
        return new_gelu(x)


class MLP(nn.Module):
    def __init__(self, d=32, hidden=128):
        super().__init__()
        self.c_fc = nn.Linear(d, hidden)
        self.gelu = NewGELU()
        self.c_proj = nn.Linear(hidden, d)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    """LayerNorm + residual + dropout (GPT-2's block shape without attention)."""

    def __init__(self, d=32):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.mlp = MLP(d)
        self.drop = nn.Dropout(0.1)
        self.ln_2 = nn.LayerNorm(d)

    def forward(self, x):
        x = x + self.drop(self.mlp(self.ln_1(x)))
        return self.ln_2(x + 1.0) * 2.0


def run_twice(fn, *args):
    """Two calls: both run the compiled graph (the first right after its capture, as in PyTorch)."""
    first = fn(*args)
    return first, fn(*args)


def assert_close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------- values: functions


@needs_cxx
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_chain_with_scalars_equals_eager(dtype):
    def f(x, y):
        z = (x * 2.5 - y / 3) ** 2 + torch.exp(-x.abs()) - 1
        return torch.sigmoid(z).relu() * torch.tanh(y) + F.silu(x) - torch.clamp(y, min=-0.5, max=0.25)

    x = torch.randn(7, 33, dtype=dtype)
    y = torch.randn(7, 33, dtype=dtype)
    cf = compile(f)
    first, second = run_twice(cf, x, y)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float32 else {"rtol": 1e-12, "atol": 1e-12}
    assert_close(first, f(x, y), **tol)
    assert_close(second, f(x, y), **tol)
    (k,) = cf._mt_kernels
    assert k.calls == 2 and k.eager_calls == 0
    assert second.dtype == dtype


UNARY = {
    "exp": (lambda x: torch.exp(x), np.exp),
    "log": (lambda x: torch.log(x), np.log),
    "tanh": (lambda x: torch.tanh(x), np.tanh),
    "sigmoid": (lambda x: torch.sigmoid(x), scipy.special.expit),
    "relu": (lambda x: F.relu(x), lambda a: np.maximum(a, 0)),
    "gelu": (lambda x: F.gelu(x), lambda a: a * 0.5 * scipy.special.erfc(-a / np.sqrt(2))),
    "gelu_tanh": (
        lambda x: F.gelu(x, approximate="tanh"),
        lambda a: a / (1 + np.exp(-2 * np.sqrt(2 / np.pi) * (a + 0.044715 * a**3))),  # no cancellation
    ),
    "silu": (lambda x: F.silu(x), lambda a: a * scipy.special.expit(a)),
    "sqrt": (lambda x: torch.sqrt(x), np.sqrt),
    "rsqrt": (lambda x: torch.rsqrt(x), lambda a: 1 / np.sqrt(a)),
    "erf": (lambda x: torch.erf(x), scipy.special.erf),
    "reciprocal": (lambda x: x.reciprocal(), lambda a: 1 / a),
    "square": (lambda x: x.square(), np.square),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), lambda a: np.where(a > 0, a, 0.2 * a)),
    "pow_2_5": (lambda x: x.abs() ** 2.5, lambda a: np.abs(a) ** 2.5),
}


def _special_inputs(dtype):
    rng = np.random.default_rng(0)
    vals = np.concatenate(
        [
            rng.standard_normal(2000) * 4,
            rng.uniform(-90, 90, 500),
            np.ldexp(rng.uniform(0.5, 1, 300), rng.integers(-140, 100, 300)),
            [
                0.0,
                -0.0,
                np.inf,
                -np.inf,
                np.nan,
                1e-30,
                -1e-30,
                88.5,
                -104.0,
                0.625,
                -0.625,
                0.5,
                -0.5,
                4.0,
                -4.0,
            ],
        ]
    )
    return vals.astype(np.float32 if dtype == torch.float32 else np.float64)


# (rtol, atol) per dtype where the default (a few ulp) cannot hold: gelu's tail is ill-conditioned in its
# argument (a relative error e of x / sqrt 2 moves erfc by 2 z^2 e), and the tanh form cancels in 1 + tanh(v)
_TOL = {
    ("gelu", "float32"): (1e-5, 1e-36),
    ("gelu", "float64"): (1e-11, 1e-300),
    ("gelu_tanh", "float32"): (1e-6, 1e-5),
    ("gelu_tanh", "float64"): (1e-13, 1e-14),
}


@needs_cxx
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_generated_math_against_float64(name, dtype):
    """Each op inside a fused group (op(x) * 1.5, two ops) against NumPy/SciPy in float64: within a few ulp
    of the float64 value, overflow/NaN/inf/-0 handled as PyTorch's eager ops handle them."""
    op, ref = UNARY[name]
    a = _special_inputs(dtype)
    x = torch.from_numpy(a.copy())
    cf = compile(lambda t: op(t) * 1.5)
    cf(x)
    got = cf(x).numpy().astype(np.float64)
    assert cf._mt_kernels and cf._mt_kernels[0].calls == 2
    with np.errstate(all="ignore"):
        want = ref(a.astype(np.float64)) * 1.5
        rounded = want.astype(a.dtype).astype(np.float64)  # the true value in the dtype (overflow included)
    eager = (op(x) * 1.5).numpy().astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(eager))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(rounded))
    inf = np.isinf(rounded)
    np.testing.assert_array_equal(got[inf], rounded[inf])
    fin = np.isfinite(rounded)
    if dtype == torch.float32:
        # near 1e-37 floats lose digits (and exp(-x) overflows a step before x / (1 + exp(-x)) underflows)
        rtol, atol = _TOL.get((name, "float32"), (1e-6, 1e-36))
        np.testing.assert_allclose(got[fin], want[fin], rtol=rtol, atol=atol)
        # eager float32 gelu computes 1 + erf, which cancels in the negative tail: absolute agreement there
        np.testing.assert_allclose(got, eager, rtol=2 * rtol, atol=max(atol, 1e-6), equal_nan=True)
    else:
        rtol, atol = _TOL.get((name, "float64"), (1e-13, 1e-300))
        np.testing.assert_allclose(got[fin], want[fin], rtol=rtol, atol=atol)


@needs_cxx
def test_where_maximum_minimum_nan_rules():
    def f(c, x, y):
        return torch.where(c, x, y) * 2 + torch.maximum(x, y) - torch.minimum(x, y).neg()

    x = torch.tensor([1.0, float("nan"), -2.0, 3.0, float("inf"), 0.0])
    y = torch.tensor([0.5, 1.0, float("nan"), 4.0, 1.0, -0.0])
    c = x > y
    cf = compile(f)
    run_twice(cf, c, x, y)
    assert_close(cf(c, x, y), f(c, x, y), rtol=0, atol=0)
    assert cf._mt_kernels[0].calls == 3


@needs_cxx
def test_broadcast_bias_row_and_scalar_tensor():
    def f(x, b, s):
        return torch.tanh(x + b) * s - b

    x, b, s = torch.randn(4, 6, 10), torch.randn(10), torch.tensor(0.5)
    cf = compile(f)
    run_twice(cf, x, b, s)
    assert_close(cf(x, b, s), f(x, b, s))
    (k,) = cf._mt_kernels
    assert k.kinds == ["full", "row", "scalar"] and k.calls == 3
    # a bias over the last two dims
    b2 = torch.randn(6, 10)
    run_twice(cf, x, b2, s)
    assert_close(cf(x, b2, s), f(x, b2, s))


@needs_cxx
def test_non_contiguous_and_empty_inputs():
    def f(x):
        return torch.exp(x) * 2 + 1

    cf = compile(f)
    x = torch.randn(8, 5).t()  # a transposed view: the guard sends it to the eager path
    run_twice(cf, x)
    assert_close(cf(x), f(x))
    assert all(k.calls == 0 and k.eager_calls == 3 for k in cf._mt_kernels)
    e = torch.randn(0, 3)
    run_twice(cf, e)
    out = cf(e)
    assert out.shape == (0, 3)


# ---------------------------------------------------------------- values: modules


@needs_cxx
def test_gpt2_mlp_module_inference():
    torch.manual_seed(0)
    m = MLP().eval()
    cm = compile(m)
    x = torch.randn(4, 9, 32)
    with torch.no_grad():
        first, second = run_twice(cm, x)
        ref = m(x)
    assert_close(first, ref)
    assert_close(second, ref)
    (k,) = cm._mt_kernels  # the eight ops of the GELU in one loop
    assert k.ops == ["mul", "pow", "mul", "add", "mul", "tanh", "add", "mul"]
    assert k.calls == 2
    assert "mt::tanh" in k.source and "#pragma omp simd" in k.source
    # the rewritten graph calls the kernel between the two Linear layers
    code = cm._mt_compiled._entries[0].compiled.code
    assert "c_fc" in code and "mt_kernel_0" in code and "tanh" not in code


@needs_cxx
def test_layernorm_residual_block_inference():
    torch.manual_seed(1)
    m = Block().eval()
    cm = compile(m)
    x = torch.randn(3, 7, 32)
    with torch.no_grad():
        run_twice(cm, x)
        assert_close(cm(x), m(x), rtol=1e-5, atol=2e-6)
    kinds = [k.spec.kind for k in cm._mt_kernels]
    assert "layer_norm" in kinds  # ln_2 with the residual add before it and the * 2.0 after it
    ln = next(k for k in cm._mt_kernels if k.spec.kind == "layer_norm")
    assert "layer_norm" in ln.ops and "add" in ln.ops and ln.calls == 3
    # float64 too
    m64 = copy.deepcopy(m).double()
    cm64 = compile(m64)
    x64 = x.double()
    with torch.no_grad():
        run_twice(cm64, x64)
        assert_close(cm64(x64), m64(x64), rtol=1e-12, atol=1e-12)


@needs_cxx
def test_functional_layer_norm_fused():
    def f(x, w, b):
        return F.layer_norm(x * 0.5 + 1, (16,), w, b, 1e-6).relu()

    x, w, b = torch.randn(5, 16), torch.randn(16), torch.randn(16)
    cf = compile(f)
    run_twice(cf, x, w, b)
    assert_close(cf(x, w, b), f(x, w, b), atol=2e-6)
    (k,) = cf._mt_kernels
    assert k.spec.kind == "layer_norm" and k.calls == 3


def test_training_gradients_equal_eager():
    torch.manual_seed(2)
    m = Block()
    m_ref = copy.deepcopy(m)
    cm = compile(m)
    for step in range(3):
        x = torch.randn(2, 5, 32, requires_grad=True)
        x_ref = x.detach().clone().requires_grad_(True)
        torch.manual_seed(10 + step)
        out = cm(x)
        torch.manual_seed(10 + step)
        ref = m_ref(x_ref)
        assert_close(out, ref, atol=2e-6)
        out.square().sum().backward()
        ref.square().sum().backward()
        assert_close(x.grad, x_ref.grad, atol=1e-5)
        for (n, p), (_, q) in zip(m.named_parameters(), m_ref.named_parameters()):
            assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5), n
    # with grad required, fused groups ran their original ops (autograd's gradients)
    assert all(k.calls == 0 for k in cm._mt_kernels)


def test_gradcheck_through_compiled_function():
    def f(x, y):
        return (torch.tanh(x * y) + x.exp() * 0.5).sum(-1)

    cf = compile(f)
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    y = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    cf(x, y)
    assert torch.autograd.gradcheck(cf, (x, y))


def test_dropout_train_draws_as_eager():
    m = MLP()  # training mode: dropout draws random numbers in the graph
    cm = compile(m)
    x = torch.randn(4, 32)
    for _ in range(2):
        torch.manual_seed(5)
        a = cm(x)
        torch.manual_seed(5)
        b = m(x)
        assert_close(a, b)


def test_no_grad_inside_compiled_function():
    def f(x):
        with torch.no_grad():
            y = x * 2
        return y + x

    cf = compile(f)
    x = torch.randn(3, requires_grad=True)
    for _ in range(2):
        out = cf(x)
        assert out.requires_grad
        out.sum().backward()
        assert_close(x.grad, torch.ones(3))
        x.grad = None


# ---------------------------------------------------------------- capture: guards and recompiles


def _counting_backend():
    calls = []

    def backend(gm, example_inputs):
        calls.append((gm, list(example_inputs)))
        return gm.forward

    return backend, calls


_EARLY_TANH = torch.tanh  # bound at import: the C++ builtin itself, not the namespace's spelling


class _HeldActivation(nn.Module):
    def __init__(self, act=_EARLY_TANH):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = act

    def forward(self, x):
        return self.act(self.fc(x)) + 1


def test_builtin_bound_before_capture_is_captured_without_a_break():
    backend, calls = _counting_backend()
    m = _HeldActivation()
    x = torch.randn(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break warns
        out = compile(m, backend=backend)(x)
    assert torch.allclose(out, m(x))
    assert len(calls) == 1
    assert [n.target for n in calls[0][0].graph.nodes if n.op == "call_function"].count(torch.tanh) == 1


def test_guards_recompile_on_shape_dtype_requires_grad():
    backend, calls = _counting_backend()
    cf = compile(lambda x: x.sin() + 1, backend=backend, dynamic=False)
    cf(torch.randn(3))
    cf(torch.randn(3))
    assert len(calls) == 1
    cf(torch.randn(4))
    assert len(calls) == 2
    cf(torch.randn(3, dtype=torch.float64))
    assert len(calls) == 3
    cf(torch.randn(3, requires_grad=True))
    assert len(calls) == 4
    cf(torch.randn(4))
    assert len(calls) == 4


def test_guards_on_python_arguments_and_training_flag():
    backend, calls = _counting_backend()

    def f(x, scale, mode):
        return x * scale if mode == "mul" else x + scale

    cf = compile(f, backend=backend)
    x = torch.randn(3)
    assert_close(cf(x, 2.0, "mul"), x * 2)
    assert_close(cf(x, 2.0, "add"), x + 2)
    assert_close(cf(x, 3.0, "mul"), x * 3)
    assert len(calls) == 3
    m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    backend2, calls2 = _counting_backend()
    cm = compile(m, backend=backend2)
    cm(x)
    cm.eval()
    assert not m.training
    with torch.no_grad():
        assert_close(cm(x), m(x))
    assert len(calls2) == 2


def test_guards_on_module_python_attributes():
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 2.0
            self.act = "relu"
            self.extra = None

        def forward(self, x):
            y = x.relu() if self.act == "relu" else x.tanh()
            if self.extra is not None:
                y = self.extra(y)
            return y * self.scale

    backend, calls = _counting_backend()
    m = Scaled()
    cm = compile(m, backend=backend)
    x = torch.randn(5)
    for _ in range(2):
        assert_close(cm(x), m(x))
    m.scale = 3.0
    assert_close(cm(x), x.relu() * 3)
    m.act = "tanh"
    assert_close(cm(x), x.tanh() * 3)
    m.extra = nn.Sigmoid()
    assert_close(cm(x), x.tanh().sigmoid() * 3)
    assert len(calls) == 4
    m.scale, m.act, m.extra = 2.0, "relu", None
    assert_close(cm(x), x.relu() * 2)
    assert len(calls) == 4  # the first graph again
    ex = _dynamo.explain(m)(x)
    assert any("CONSTANT_MATCH: Scaled.scale == 2.0" in g for g in ex.out_guards)


def test_recompile_limit_then_eager_with_warning():
    backend, calls = _counting_backend()
    cf = compile(lambda x: x * 2, backend=backend, dynamic=False)
    with _dynamo.config.patch(recompile_limit=2), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(1, 6):
            assert_close(cf(torch.ones(n)), torch.full((n,), 2.0))
    assert len(calls) == 2
    msgs = [str(x.message) for x in w if "recompile_limit" in str(x.message)]
    assert len(msgs) == 1 and "hit config.recompile_limit (2)" in msgs[0]
    assert _dynamo.config.cache_size_limit == _dynamo.config.recompile_limit == 8


def test_dynamic_shapes():
    backend, calls = _counting_backend()

    def f(x):
        return x.view(x.size(0), -1).relu() * 2  # a size read stays symbolic in the dynamic graph

    cf = compile(f, backend=backend, dynamic=True)
    for n in (2, 5, 9):
        x = torch.randn(n, 3, 4)
        assert_close(cf(x), f(x))
        assert_close(cf(x), f(x))
    assert len(calls) == 1
    # automatic dynamic: the second size makes a size-generic graph, then no more recompiles
    backend2, calls2 = _counting_backend()
    cf2 = compile(f, backend=backend2)
    for n in (2, 5, 9, 11):
        x = torch.randn(n, 3, 4)
        assert_close(cf2(x), f(x))
    assert len(calls2) == 2
    # branching on a size cannot be size-generic: it falls back to specialized graphs
    backend3, calls3 = _counting_backend()

    def g(x):
        return x * 2 if x.shape[0] > 3 else x - 1

    cf3 = compile(g, backend=backend3, dynamic=True)
    for n in (2, 5, 2):
        x = torch.randn(n)
        assert_close(cf3(x), g(x))
    assert len(calls3) == 2


def test_mark_dynamic():
    backend, calls = _counting_backend()
    cf = compile(lambda x: x.exp() + x.size(0), backend=backend)
    x = torch.randn(4, 2)
    _dynamo.mark_dynamic(x, 0)
    assert x._dynamo_dynamic_indices == {0}
    assert_close(cf(x), x.exp() + 4)
    y = torch.randn(7, 2)
    assert_close(cf(y), y.exp() + 7)
    assert len(calls) == 1
    with pytest.raises(AttributeError, match="'list' object has no attribute '_dynamo_dynamic_indices'"):
        _dynamo.mark_dynamic([1, 2], 0)


def test_shapes_are_python_values_in_capture():
    backend, calls = _counting_backend()

    def f(x):
        B, T, C = x.size()
        assert x.dim() == 3 and x.dtype == torch.float32
        y = x.view(B * T, C)
        if x.shape[-1] > 2:
            y = y * 2
        for i in range(T):  # a loop over a size is unrolled
            y = y + i
        return y.view(B, T, C)

    cf = compile(f, backend=backend, dynamic=False)
    x = torch.randn(2, 3, 4)
    assert_close(cf(x), f(x))
    assert_close(cf(x), f(x))
    assert len(calls) == 1
    gm = calls[0][0]
    assert sum(1 for n in gm.graph.nodes if n.op != "placeholder" and n.op != "output") == 6


def test_inplace_and_setitem_are_replayed():
    def f(x, buf):
        y = x.clone()
        y[0] = 5.0
        y += 1
        buf.add_(y)
        return y * 2

    x, buf, buf_ref = torch.randn(3), torch.zeros(3), torch.zeros(3)
    cf = compile(f)
    for _ in range(3):
        out = cf(x, buf)
        ref = f(x, buf_ref)
        assert_close(out, ref)
        assert_close(buf, buf_ref)


def test_factories_run_each_call():
    def f(x):
        return x + torch.randn(x.shape) * 0 + torch.ones(3) + torch.rand(3)

    cf = compile(f)
    x = torch.zeros(3)
    a, b = cf(x), cf(x)
    assert not torch.equal(a, b)  # fresh random numbers each call, not the capture's
    torch.manual_seed(3)
    c = cf(x)
    torch.manual_seed(3)
    assert_close(c, f(x))


def test_threads_share_one_graph():
    import threading

    backend, calls = _counting_backend()
    cf = compile(lambda x: (x * 2).sin() + x, backend=backend)
    xs = [torch.randn(64) for _ in range(8)]
    errors = []

    def work(x):
        try:
            for _ in range(20):
                assert_close(cf(x), (x * 2).sin() + x)
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(calls) == 1
    # a module's compiled graph keeps running on other threads while a capture patches nn.Module
    m = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
    cm = compile(m, backend="eager")
    x = torch.randn(2, 8)
    cm(x)
    stop = threading.Event()

    def busy():
        try:
            while not stop.is_set():
                assert_close(cm(x), m(x))
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    t = threading.Thread(target=busy)
    t.start()
    try:
        for n in range(3, 9):  # new captures of another module while the thread runs
            other = compile(nn.Sequential(nn.Linear(n, 4), nn.ReLU()), backend=backend)
            other(torch.randn(2, n))
    finally:
        stop.set()
        t.join()
    assert not errors


def test_is_compiling():
    seen = []

    def f(x):
        seen.append(torch.compiler.is_compiling())
        return x + 1

    assert not torch.compiler.is_compiling()
    cf = compile(f)
    cf(torch.randn(2))
    cf(torch.randn(2))
    # each call appends (a side effect is replayed); the list the code reads changed, so the second call
    # recompiles and sees True again, as in PyTorch
    assert seen == [True, True]
    assert not _dynamo.is_compiling()


# ---------------------------------------------------------------- graph breaks


def data_dependent(x):
    y = x.sin()
    if y.sum() > 0:
        return y * 2
    return y - 1


def test_graph_break_splits_the_function_silently():
    # as Dynamo: the graph before the break, the branch eagerly, the branch taken as the next graph; no warning
    # (tests/compile/test_graph_break_split.py has the rest; a function that cannot be split warns there)
    cf = compile(data_dependent)
    x = torch.randn(10)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(3):
            assert_close(cf(x), data_dependent(x))
            assert_close(cf(-x), data_dependent(-x))
    assert not [m for m in w if "graph break" in str(m.message)]
    assert cf._mt_graph_break.title == "Data-dependent branching"
    assert len(cf._mt_graphs) == 3  # before the branch, and each branch's continuation


def test_fullgraph_raises_unsupported_naming_the_cause():
    cf = compile(data_dependent, fullgraph=True)
    with pytest.raises(_dynamo.exc.Unsupported) as e:
        cf(torch.randn(4))
    msg = str(e.value)
    assert msg.startswith("Data-dependent branching")
    assert "if y.sum() > 0:" in msg and "in data_dependent" in msg
    assert isinstance(e.value, RuntimeError)

    def item(x):
        return x * float(x.max())

    with pytest.raises(_dynamo.exc.Unsupported, match="Tensor.item"):
        compile(item, fullgraph=True)(torch.randn(3))

    def nonzero(x):
        return torch.zeros(x.nonzero().shape[0])

    with pytest.raises(_dynamo.exc.Unsupported, match="Dynamic shape operator"):
        compile(nonzero, fullgraph=True)(torch.randn(3))


def test_print_is_a_graph_break_so_it_prints_on_every_call(capsys):
    # a graph would run print once, at capture time; Dynamo breaks the graph instead, and so do we
    def logs(x):
        y = x.sin()
        print("step", x.shape)
        return y.cos()

    cf = compile(logs)
    x = torch.randn(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(3):
            assert_close(cf(x), x.sin().cos())
    assert capsys.readouterr().out == "step torch.Size([3])\n" * 3
    assert cf._mt_graph_break is not None and len(cf._mt_graphs) == 2  # sin before the print, cos after
    with pytest.raises(_dynamo.exc.Unsupported) as e:
        compile(logs, fullgraph=True)(x)
    assert str(e.value).startswith("Failed to trace builtin operator")
    assert "builtin operator `print` with argument types ['str', 'Size'] (has_kwargs False)" in str(e.value)
    ex = _dynamo.explain(logs)(x)
    assert ex.graph_break_count == 1 and "`print`" in ex.break_reasons[0].reason
    # the hook is gone after the capture; print outside compiled code is the builtin
    import builtins

    assert builtins.print is _dynamo.capture._real_print


def test_print_in_a_disabled_helper_runs_each_call(capsys):
    @torch.compiler.disable
    def log(t):
        print("norm", round(float(t.norm()), 3))
        return t

    def f(x):
        return log(x * 2) + 1

    cf = compile(f)
    x = torch.ones(4)
    for _ in range(2):
        assert_close(cf(x), x * 2 + 1)
    assert capsys.readouterr().out.count("norm 4.0\n") == 2


def test_user_graph_break():
    def f(x):
        x = x + 1
        _dynamo.graph_break()
        return x * 2

    with pytest.raises(_dynamo.exc.Unsupported) as e:
        compile(f, fullgraph=True)(torch.ones(2))
    assert str(e.value).startswith("Call to `torch._dynamo.graph_break()`")
    assert "User-inserted graph break. Message: None" in str(e.value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(compile(f)(torch.ones(2)), torch.full((2,), 4.0))
    assert _dynamo.graph_break() is None  # outside a capture: nothing


def test_graph_break_restores_rng_and_buffers():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(3)
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            y = self.drop(self.bn(x))
            if y.sum() > 0:
                return y
            return -y

    torch.manual_seed(0)
    m = M()
    m_ref = copy.deepcopy(m)
    x = torch.randn(8, 3)
    cm = compile(m)
    torch.manual_seed(1)
    out = cm(x)  # the capture breaks, then the graphs around the break run
    torch.manual_seed(1)
    ref = m_ref(x)
    assert_close(out, ref)
    assert_close(m.bn.running_mean, m_ref.bn.running_mean)  # updated once, not twice


def test_user_errors_surface_unchanged():
    cf = compile(lambda a, b: a @ b + 1)
    with pytest.raises(RuntimeError) as e:
        cf(torch.randn(2, 3), torch.randn(4, 5))
    with pytest.raises(RuntimeError) as e_ref:
        torch.randn(2, 3) @ torch.randn(4, 5)
    assert str(e.value) == str(e_ref.value)


def test_disable_inside_compiled_code():
    calls = []

    @torch.compiler.disable
    def helper(y):
        calls.append(1)
        return y * 2 if y.sum() > 0 else y  # data-dependent, but not captured

    backend, graphs = _counting_backend()

    def f(x):
        return helper(x.cos()) + 1

    cf = compile(f, backend=backend, fullgraph=True)
    x = torch.randn(5)
    for _ in range(3):
        assert_close(cf(x), f(x))
    assert len(graphs) == 1 and len(calls) == 6  # helper runs on every call (compiled and eager reference)
    targets = [n.target for n in graphs[0][0].graph.nodes if n.op == "call_function"]
    assert any(getattr(t, "__name__", "") == "helper" for t in targets)
    # compile(disable=True) and the force_eager stance run the original
    assert compile(f, disable=True) is f
    cf2 = compile(f, backend=backend)
    with torch.compiler.set_stance("force_eager"):
        cf2(x)
    assert len(graphs) == 1
    with pytest.raises(RuntimeError, match="Unsupported stance"):
        torch.compiler.set_stance("bogus")


def test_nested_compiled_function_is_inlined():
    inner = compile(lambda x: x.exp() * 2)
    backend, graphs = _counting_backend()
    outer = compile(lambda x: inner(x) + 1, backend=backend)
    x = torch.randn(3)
    assert_close(outer(x), x.exp() * 2 + 1)
    ops = [
        getattr(n.target, "__name__", n.target) for n in graphs[0][0].graph.nodes if n.op.startswith("call")
    ]
    assert ops == ["exp", "mul", "add"]


# ---------------------------------------------------------------- backends, explain, reset, API


def test_custom_backend_contract():
    seen = []

    def my_backend(gm, example_inputs):
        seen.append((gm, example_inputs))
        assert isinstance(gm, torch.fx.GraphModule)

        def run(*args):
            seen.append("run")
            return gm(*args)

        return run

    def f(x, y):
        return torch.relu(x) @ y

    x, y = torch.randn(2, 3), torch.randn(3, 4)
    cf = compile(f, backend=my_backend)
    assert_close(cf(x, y), f(x, y))
    assert_close(cf(x, y), f(x, y))
    gm, inputs = seen[0]
    assert inputs[0] is x and inputs[1] is y
    assert [n.op for n in gm.graph.nodes] == [
        "placeholder",
        "placeholder",
        "call_function",
        "call_function",
        "output",
    ]
    assert [n.target for n in gm.graph.nodes if n.op == "placeholder"] == ["x", "y"]
    node = next(n for n in gm.graph.nodes if n.op == "call_function")
    assert tuple(node.meta["example_value"].shape) == (2, 3) and node.meta["val"].dtype == torch.float32
    assert seen[1:] == ["run", "run"]  # the first call too runs what the backend returned, as in PyTorch


def test_backend_options_and_errors():
    got = {}

    def be(gm, inputs, **kwargs):
        got.update(kwargs)
        return gm.forward

    compile(lambda x: x + 1, backend=be, mode="max-autotune")(torch.randn(2))
    assert got == {"mode": "max-autotune"}
    with pytest.raises(RuntimeError, match="Unrecognized mode=xx, should be one of: default"):
        compile(lambda x: x, mode="xx")
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        compile(lambda x: x, mode="default", options={})
    with pytest.raises(RuntimeError, match="Unexpected optimization option bogus"):
        compile(lambda x: x, options={"bogus": 1})
    with pytest.raises(RuntimeError, match="Unexpected type of attr debug, got int should be bool"):
        compile(lambda x: x, options={"debug": 1})
    with pytest.raises(_dynamo.exc.InvalidBackend, match="Invalid backend: 'nope'"):
        compile(lambda x: x, backend="nope")
    with pytest.raises(_dynamo.exc.InvalidBackend, match="did you mean: 'inductor'"):
        compile(lambda x: x, backend="inductr")
    with pytest.raises(AssertionError, match="A callable function is expected"):
        compile(3)
    with pytest.raises(AssertionError, match="Expected enable to be a bool"):
        compile(lambda x: x, dynamic="yes")
    with pytest.raises(AssertionError, match="fn must be callable"):
        torch.compiler.disable(3)
    with pytest.raises(RuntimeError, match="Model can't be None"):
        compile()(None)
    assert _dynamo.list_backends() == ["inductor"]
    assert {"eager", "aot_eager", "inductor"} <= set(_dynamo.list_backends(None))

    def failing(gm, inputs):
        raise ValueError("boom")

    with pytest.raises(
        _dynamo.exc.BackendCompilerFailed, match="backend='failing' raised:\nValueError: boom"
    ):
        compile(lambda x: x * 2, backend="eager" if False else failing)(torch.randn(2))
    with _dynamo.config.patch(suppress_errors=True), pytest.warns(UserWarning, match="boom"):
        assert_close(compile(lambda x: x * 2, backend=failing)(torch.ones(2)), torch.full((2,), 2.0))


def test_config_flags_programs_set_are_read():
    # error_on_recompile, assume_static_by_default, specialize_int: as PyTorch 2.15 reads them
    graphs = []

    def be(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    with _dynamo.config.patch(error_on_recompile=True):
        f = compile(lambda x: x + 1, backend="eager")
        f(torch.ones(2))
        with pytest.raises(_dynamo.exc.RecompileError, match="Recompiling function <lambda>"):
            f(torch.ones(2, dtype=torch.float64))
    with _dynamo.config.patch(assume_static_by_default=False):
        f = compile(lambda x: x + 1, backend=be)
        assert f(torch.ones(2)).tolist() == [2.0, 2.0] and f(torch.ones(3)).tolist() == [2.0] * 3
    assert len(graphs) == 1  # size-generic from the first capture
    graphs.clear()
    with _dynamo.config.patch(specialize_int=True):
        f = compile(lambda x, n: x + n, backend=be)
        assert [f(torch.ones(1), i).item() for i in range(4)] == [1.0, 2.0, 3.0, 4.0]
    assert len(graphs) == 4  # each int a constant of its own graph
    graphs.clear()
    f = compile(lambda x, n: x + n, backend=be)
    assert [f(torch.ones(1), i).item() for i in range(4)] == [1.0, 2.0, 3.0, 4.0]
    assert len(graphs) == 2  # by default the second value makes it a graph input


_MINIFIER_FLAGS = (
    "repro_after",
    "repro_level",
    "repro_forward_only",
    "repro_tolerance",
    "repro_ignore_non_fp",
    "same_two_models_use_fp64",
)


def test_minifier_settings_are_accepted_with_pytorchs_defaults():
    # programs set them before compiling (torch._dynamo.config.repro_after = "dynamo"): accepted, read back,
    # reset by patch, with PyTorch 2.15's defaults and environment variables
    script = (
        "import json, os, sys\n"
        "os.environ.update(json.load(sys.stdin))\n"
        "import torch._dynamo.config as c\n"
        f"print(json.dumps([getattr(c, k) for k in {list(_MINIFIER_FLAGS)!r}]))\n"
    )
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    child = f"import sys\nsys.path.insert(0, {package_root!r})\n" + script.replace("torch.", "minitorch.")
    for env in ({}, {"TORCHDYNAMO_REPRO_AFTER": "dynamo", "TORCHDYNAMO_REPRO_LEVEL": "4"}):
        theirs = run_oracle(script, env)
        here = subprocess.run(
            [sys.executable, "-c", child], input=json.dumps(env), capture_output=True, text=True, check=True
        )
        assert json.loads(here.stdout.strip().splitlines()[-1]) == theirs, env
    with _dynamo.config.patch(repro_after="dynamo", repro_level=3):
        assert _dynamo.config.repro_after == "dynamo" and _dynamo.config.repro_level == 3
        assert compile(lambda x: x * 2, backend="eager")(torch.ones(2)).tolist() == [2.0, 2.0]
    assert _dynamo.config.repro_after is None and _dynamo.config.repro_level == 2


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_string_backends(backend):
    m = Block().eval()
    cm = compile(m, backend=backend)
    x = torch.randn(2, 3, 32)
    with torch.no_grad():
        run_twice(cm, x)
        assert_close(cm(x), m(x), atol=2e-6)


def test_explain_counts():
    # PyTorch 2.15's counts: the graph before the branch (sin, sum, gt) and the branch taken (mul)
    ex = _dynamo.explain(data_dependent)(torch.ones(4))
    assert ex.graph_count == 2 and ex.graph_break_count == 1 and ex.op_count == 2
    assert ex.ops_per_graph == [[operator.gt], [operator.mul]]
    (br,) = ex.break_reasons
    assert br.reason == "generic_jump TensorVariable()"
    assert br.user_stack[-1].name == "data_dependent" and br.user_stack[-1].line == "if y.sum() > 0:"
    text = str(ex)
    assert text.startswith(
        "Graph Count: 2\nGraph Break Count: 1\nOp Count: 2\nBreak Reasons:\n  Break Reason 1:\n"
    )

    def clean(x, y):
        return torch.tanh(x) * y + 1

    ex = _dynamo.explain(clean)(torch.randn(3), torch.randn(3))
    assert ex.graph_count == 1 and ex.graph_break_count == 0 and ex.op_count == 3
    assert len(ex.ops_per_graph[0]) == 3 and ex.ops_per_graph[0][0] is torch.tanh
    assert isinstance(ex.graphs[0], torch.fx.GraphModule)
    assert "Graph Count: 1" in str(ex) and "Ops per Graph:" in str(ex) and "TENSOR_MATCH" in str(ex)
    ex = _dynamo.explain(Block().eval())(torch.randn(2, 32))
    assert ex.graph_count == 1 and any("NN_MODULE" in g for g in ex.out_guards)


def test_reset_forgets_graphs():
    backend, calls = _counting_backend()
    cf = compile(lambda x: x + 1, backend=backend)
    cf(torch.randn(2))
    cf(torch.randn(2))
    assert len(calls) == 1
    torch.compiler.reset()
    cf(torch.randn(2))
    assert len(calls) == 2
    _dynamo.reset()
    assert not _dynamo.utils.counters
    cf(torch.randn(2))
    assert _dynamo.utils.counters["stats"]["unique_graphs"] == 1


def test_decorator_forms():
    backend, calls = _counting_backend()

    @compile
    def a(x):
        return x * 2

    @compile()
    def b(x):
        return x * 3

    @compile(mode="reduce-overhead", fullgraph=True)
    def c(x):
        return x * 4

    @compile(backend=backend)
    def d(x):
        return x * 5

    x = torch.ones(2)
    for fn, k in ((a, 2), (b, 3), (c, 4), (d, 5)):
        assert_close(fn(x), x * k)
        assert_close(fn(x), x * k)
    assert a.__name__ == "a" and a._torchdynamo_orig_callable.__name__ == "a"
    assert len(calls) == 1

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

        @compile(backend=backend)
        def forward(self, x):
            return self.fc(x).relu()

    n = Net()
    assert_close(n(x), n.fc(x).relu())
    assert len(calls) == 2


def test_optimized_module_passes_through():
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    cm = compile(m)
    assert type(cm).__name__ == "OptimizedModule" and isinstance(cm, nn.Module)
    assert cm._orig_mod is m
    assert list(cm.state_dict()) == ["_orig_mod.0.weight", "_orig_mod.0.bias"]
    assert [p is q for p, q in zip(cm.parameters(), m.parameters())] == [True, True]
    assert cm._orig_mod[0] is m[0] and len(cm) == 2
    cm.eval()
    assert not m.training and not cm.training
    cm.new_attr = 3
    assert m.new_attr == 3
    assert "OptimizedModule(\n  (_orig_mod): Sequential(" in repr(cm)
    x = torch.randn(3, 4)
    assert_close(cm(x), m(x))
    cm2 = copy.deepcopy(cm)
    assert cm2._orig_mod is not m
    assert_close(cm2(x), m(x))
    cm3 = pickle.loads(pickle.dumps(cm))
    assert_close(cm3(x), m(x))


@needs_cxx
def test_module_compile_in_place():
    torch.manual_seed(4)
    m = MLP().eval()
    ref = copy.deepcopy(m)
    keys = list(m.state_dict())
    assert m.compile() is None
    assert type(m) is MLP and list(m.state_dict()) == keys
    x = torch.randn(3, 32)
    with torch.no_grad():
        run_twice(m, x)
        assert_close(m(x), ref(x))
    compiled = m._compiled_call_impl
    assert compiled._mt_kernels and compiled._mt_kernels[0].calls == 3
    m2 = copy.deepcopy(m)  # a copy runs eagerly, as PyTorch drops the compiled call
    assert m2._compiled_call_impl is None
    with torch.no_grad():
        assert_close(m2(x), ref(x))
    m3 = pickle.loads(pickle.dumps(m))
    assert m3._compiled_call_impl is None


# ---------------------------------------------------------------- the generated code and its cache


@needs_cxx
def test_generated_source_visible(capsys, monkeypatch):
    monkeypatch.setenv("MINITORCH_COMPILE_DEBUG", "1")
    cf = compile(lambda x: (x * 3).tanh() + 2)
    cf(torch.randn(5))
    err = capsys.readouterr().err
    assert 'extern "C" void mt_kernel_0' in err and "mt::tanh" in err
    src = cf._mt_kernels[0].source
    assert src in [s for _, s in _dynamo.utils.debug_sources()]
    path = cf._mt_kernels[0].library
    assert os.path.exists(path) and os.path.exists(path[:-3] + ".cpp")


@needs_cxx
def test_inductor_config_and_options(capsys, monkeypatch):
    cfg = torch._inductor.config
    monkeypatch.setattr(cfg, "debug", True)
    monkeypatch.setattr(cfg.triton, "unique_kernel_names", True)  # accepted, as scripts set it
    cf = compile(lambda x: (x - 1).exp() * 3)
    x = torch.randn(6)
    run_twice(cf, x)
    assert "mt::exp" in capsys.readouterr().err
    monkeypatch.setattr(cfg, "debug", False)
    one = compile(lambda x: (x - 1).exp() * 3, options={"cpp.threads": 1})
    run_twice(one, x)
    assert one._mt_kernels[0].nthreads == 1 and one._mt_kernels[0].calls == 2
    off = compile(lambda x: (x - 1).exp() * 3, options={"fusion": False})
    assert_close(run_twice(off, x)[1], (x - 1).exp() * 3)
    assert off._mt_kernels == []
    assert "cpp.threads" in torch._inductor.list_options()
    assert torch._inductor.list_mode_options("max-autotune")["max_autotune"] is True


_SCRIPT = textwrap.dedent(
    """
    import warnings, minitorch as torch
    from minitorch._inductor import codecache
    warnings.simplefilter("always")
    f = torch.compiler.compile(lambda x: torch.sigmoid(x * 1.25) - 0.5)
    x = torch.linspace(-3, 3, 50)
    f(x); y = f(x)
    assert torch.allclose(y, torch.sigmoid(x * 1.25) - 0.5, atol=1e-6)
    print("kernels", len(f._mt_kernels), "calls", sum(k.calls for k in f._mt_kernels))
    print("stats", codecache.stats["compiled"], codecache.stats["disk_hits"])
    """
)


def _run(script, env_extra, path=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG_PARENT + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra)
    if path is not None:
        env["PATH"] = path
    env.pop("CXX", None)
    return subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600, check=False
    )


@needs_cxx
def test_disk_cache_hit_in_second_process(tmp_path):
    env = {"MINITORCH_COMPILE_CACHE_DIR": str(tmp_path)}
    first = _run(_SCRIPT, env)
    assert first.returncode == 0, first.stderr
    assert "kernels 1 calls 2" in first.stdout and "stats 1 0" in first.stdout
    second = _run(_SCRIPT, env)
    assert second.returncode == 0, second.stderr
    assert "kernels 1 calls 2" in second.stdout and "stats 0 1" in second.stdout
    assert len([p for p in os.listdir(tmp_path) if p.endswith(".so")]) == 1
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]


@needs_cxx
def test_concurrent_compiles_of_one_kernel(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG_PARENT + os.pathsep + env.get("PYTHONPATH", "")
    env["MINITORCH_COMPILE_CACHE_DIR"] = str(tmp_path)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _SCRIPT],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        assert "kernels 1 calls 2" in out
    assert len([p for p in os.listdir(tmp_path) if p.endswith(".so")]) == 1


def test_no_compiler_falls_back_to_eager(tmp_path):
    script = _SCRIPT.replace(
        'print("kernels"', 'print("warned", [str(w.message) for w in ws]); print("kernels"'
    )
    script = script.replace(
        "f(x); y = f(x)", "with warnings.catch_warnings(record=True) as ws:\n    f(x); y = f(x)"
    )
    empty = tmp_path / "bin"
    empty.mkdir()
    res = _run(script, {"MINITORCH_COMPILE_CACHE_DIR": str(tmp_path / "c")}, path=str(empty))
    assert res.returncode == 0, res.stderr
    assert "no C++ compiler found" in res.stdout
    assert "kernels 0 calls 0" in res.stdout
    assert not os.path.exists(tmp_path / "c")


def test_cuda_graphs_run_eagerly(device):
    def f(x):
        return torch.tanh(x * 2) + 1

    cf = compile(f)
    x = torch.randn(6, device=device)
    run_twice(cf, x)
    assert_close(cf(x).cpu(), f(x).cpu())
    if device == "cuda":
        assert cf._mt_kernels == []  # replaying as a CUDA graph is future work: eager


def test_torch_cond_runs_the_branch_pred_chooses():
    x = torch.ones(2)
    assert_close(torch.cond(torch.tensor(True), lambda a: a + 1, lambda a: a - 1, (x,)), x + 1)
    assert_close(torch.cond(False, lambda a: a + 1, lambda a: a - 1, [x]), x - 1)
    assert_close(torch.cond(x.sum() > 0, lambda a, b: a + b, lambda a, b: a - b, (x, x)), x * 2)
    assert_close(torch.cond(True, lambda: x, lambda: -x), x)
    with pytest.raises(RuntimeError) as e:
        torch.cond(torch.tensor([True, False]), lambda a: a, lambda a: a, (x,))
    assert (
        str(e.value) == "Expected pred to be bool or single-element tensor, but got tensor([ True, False])."
    )

    def f(a):
        return torch.cond(a.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (a,))

    cf = compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tensor pred is data-dependent: a graph break
        assert_close(cf(x), x.sin())
        assert_close(cf(-x), (-x).cos())


def test_aot_autograd_backend_compiles_forward_and_backward():
    # torch._dynamo.backends.common.aot_autograd: the custom-backends page's AOTAutograd backend; minitorch runs
    # the backend's callable from the second call (the first returns the capture run), then each graph once
    from minitorch._dynamo.backends.common import aot_autograd, fake_tensor_unsupported
    from minitorch.functorch.compile import make_boxed_func

    seen = []

    def compiler(kind):
        def compile_graph(gm, example_inputs):
            seen.append((kind, len(example_inputs)))
            return make_boxed_func(gm.forward)

        return compile_graph

    decomps_called = []
    backend = aot_autograd(
        fw_compiler=compiler("fw"),
        bw_compiler=compiler("bw"),
        decompositions=lambda: decomps_called.append(1) or {},
    )
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
    opt = torch.compile(model, backend=fake_tensor_unsupported(backend))
    for _ in range(3):
        x = torch.randn(5, 4, requires_grad=True)
        model.zero_grad()
        opt(x).sum().backward()
        got = (x.grad.clone(), model[0].weight.grad.clone())
        x2 = x.detach().clone().requires_grad_()
        model.zero_grad()
        model(x2).sum().backward()
        np.testing.assert_allclose(got[0].numpy(), x2.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1].numpy(), model[0].weight.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert [k for k, _ in seen] == ["fw", "bw"], seen
    assert seen[0][1] == 3  # the Linear's weight and bias lifted to inputs, then x
    assert decomps_called == [1]
    with torch.no_grad():  # no input needs a gradient: the inference graph, by fw_compiler
        opt(torch.randn(5, 4))
        opt(torch.randn(5, 4))
    assert [k for k, _ in seen] == ["fw", "bw", "fw"], seen
