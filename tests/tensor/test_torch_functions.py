"""torch-namespace extras: finfo/iinfo against NumPy (minitorch/_dtype_info.py), process-wide switches
(_switches.py), random sampling checked statistically with fixed seeds (_random.py), window functions against
NumPy's (_windows.py), and the torch-level spellings of in-place methods and nn.functional ops against their
counterparts (_method_spellings.py, _nn_ops.py)."""

import math
import re
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F

# ---------------------------------------------------------------- finfo / iinfo


@pytest.mark.parametrize(
    "dt,np_dt",
    [(minitorch.float32, np.float32), (minitorch.float64, np.float64), (minitorch.float16, np.float16)],
)
def test_finfo_matches_numpy(dt, np_dt):
    f, n = minitorch.finfo(dt), np.finfo(np_dt)
    assert f.bits == n.bits
    assert f.eps == float(n.eps) and f.max == float(n.max) and f.min == float(n.min)
    assert f.tiny == float(n.tiny) and f.smallest_normal == float(n.smallest_normal)
    assert f.resolution == 10.0**-n.precision  # PyTorch: a Python float, not rounded to the dtype
    assert f.dtype == str(dt).split(".")[1]


def test_finfo_bfloat16_by_definition_and_default():
    f = minitorch.finfo(minitorch.bfloat16)
    assert (f.bits, f.eps, f.tiny, f.resolution) == (16, 2.0**-7, 2.0**-126, 0.01)
    assert f.max == (2 - 2.0**-7) * 2.0**127 == 3.3895313892515355e38
    # max is the largest bfloat16: converting it does not overflow, one ulp more would be inf
    assert minitorch.tensor([f.max]).to(minitorch.bfloat16).float().item() == f.max
    assert minitorch.finfo() == minitorch.finfo(minitorch.get_default_dtype())
    assert repr(minitorch.finfo(minitorch.float32)) == (
        "finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
        "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)"
    )


@pytest.mark.parametrize(
    "dt", [minitorch.int64, minitorch.int32, minitorch.int16, minitorch.int8, minitorch.uint8]
)
def test_iinfo_matches_numpy(dt):
    i, n = minitorch.iinfo(dt), np.iinfo(str(dt).split(".")[1])
    assert (i.bits, i.min, i.max) == (n.bits, int(n.min), int(n.max))


def test_info_reprs_and_errors():
    assert repr(minitorch.iinfo(minitorch.int8)) == "iinfo(min=-128, max=127, dtype=int8)"
    assert repr(minitorch.iinfo(minitorch.int64)) == "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"
    with pytest.raises(TypeError, match=r"torch.finfo\(\) requires a floating point input type"):
        minitorch.finfo(minitorch.int32)
    with pytest.raises(TypeError, match=r"torch.finfo\(\) requires a floating point"):
        minitorch.finfo(minitorch.bool)
    with pytest.raises(TypeError, match=r"torch.iinfo\(\) requires an integer input type"):
        minitorch.iinfo(minitorch.float32)
    with pytest.raises(TypeError, match="torch.bool is not supported by torch.iinfo"):
        minitorch.iinfo(minitorch.bool)
    with pytest.raises(TypeError, match=r"must be torch.dtype, not str"):
        minitorch.finfo("float32")


# ---------------------------------------------------------------- switches


@pytest.fixture
def restore_determinism():
    before = minitorch.get_deterministic_debug_mode()
    yield
    minitorch.set_deterministic_debug_mode(before)


def test_deterministic_flags(restore_determinism):
    minitorch.use_deterministic_algorithms(True, warn_only=True)
    assert minitorch.are_deterministic_algorithms_enabled()
    assert minitorch.is_deterministic_algorithms_warn_only_enabled()
    assert minitorch.get_deterministic_debug_mode() == 1
    minitorch.set_deterministic_debug_mode("error")
    assert minitorch.get_deterministic_debug_mode() == 2
    assert not minitorch.is_deterministic_algorithms_warn_only_enabled()
    minitorch.set_deterministic_debug_mode(0)
    assert not minitorch.are_deterministic_algorithms_enabled()
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`, but got bad"):
        minitorch.set_deterministic_debug_mode("bad")
    with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 3"):
        minitorch.set_deterministic_debug_mode(3)
    with pytest.raises(TypeError, match="debug_mode must be str or int"):
        minitorch.set_deterministic_debug_mode(1.5)
    with pytest.raises(TypeError, match="argument 'mode' \\(position 1\\) must be bool, not int"):
        minitorch.use_deterministic_algorithms(1)


def test_misc_switches():
    before = minitorch.is_warn_always_enabled()
    minitorch.set_warn_always(True)
    assert minitorch.is_warn_always_enabled()
    minitorch.set_warn_always(before)
    assert minitorch.get_num_interop_threads() >= 1
    with pytest.raises(RuntimeError, match="set_num_interop_threads expects a positive integer"):
        minitorch.set_num_interop_threads(0)
    assert minitorch.set_flush_denormal(False) is False


def test_typename_and_predicates(device):
    t = minitorch.zeros(2, device=device)
    prefix = "torch.cuda." if device == "cuda" else "torch."
    assert minitorch.typename(t) == prefix + "FloatTensor"
    assert minitorch.typename(t.long()) == prefix + "LongTensor"
    assert minitorch.typename(3) == "int"
    assert minitorch.typename(minitorch.nn.Linear(2, 2)) == "torch.nn.modules.linear.Linear"
    assert minitorch.is_complex(t) is False
    assert minitorch.is_signed(t) and t.is_signed() and minitorch.is_signed(t.long())
    assert not minitorch.is_signed(t.to(minitorch.uint8)) and not minitorch.is_signed(t.bool())
    assert minitorch.is_same_size(t, minitorch.ones(2)) and not t.is_same_size(minitorch.ones(2, 1))
    assert minitorch.is_nonzero(minitorch.tensor([2.0], device=device)) is True
    assert minitorch.tensor(0.0, device=device).is_nonzero() is False
    assert minitorch.is_nonzero(minitorch.tensor(float("nan"))) is True
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        minitorch.is_nonzero(minitorch.tensor([]))
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        minitorch.is_nonzero(minitorch.tensor([1, 2]))
    with pytest.raises(
        TypeError, match=r"is_signed\(\): argument 'input' \(position 1\) must be Tensor, not int"
    ):
        minitorch.is_signed(3)
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not int"):
        minitorch.is_same_size(t, 3)


def test_predicates_take_subclasses_and_refuse_other_kinds():
    # the predicates check their arguments inline (no translating wrapper): Parameters and other subclasses
    # are tensors, everything else PyTorch's TypeError
    p = minitorch.nn.Parameter(minitorch.zeros(2, 3, dtype=minitorch.complex64))
    assert minitorch.is_complex(p) is True and minitorch.is_signed(p) is True
    assert minitorch.is_same_size(p, minitorch.ones(2, 3)) is True
    assert minitorch.is_same_size(minitorch.ones(3, 2).t(), p) is True
    assert minitorch.is_same_size(minitorch.ones(0), minitorch.ones(0, 1)) is False
    for f, args, word in [
        (minitorch.is_complex, ([1.0],), "argument 'input' \\(position 1\\) must be Tensor, not list"),
        (minitorch.is_signed, (None,), "argument 'input' \\(position 1\\) must be Tensor, not NoneType"),
        (minitorch.is_same_size, (2, p), "argument 'input' \\(position 1\\) must be Tensor, not int"),
    ]:
        with pytest.raises(TypeError, match=word):
            f(*args)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        minitorch.is_complex()


def test_is_storage_names_the_storage_types_exactly():
    """torch.is_storage: True for the storages under a tensor (untyped and typed), False for a tensor or any other
    object, a subclass included (PyTorch compares the exact type); obj is positional-only"""
    T = minitorch
    x = T.arange(3.0)
    assert T.is_storage(x.untyped_storage()) is True and T.is_storage(T.UntypedStorage(4)) is True
    with warnings.catch_warnings():  # (TypedStorage's deprecation warns once per process)
        warnings.simplefilter("ignore")
        typed = x.storage()
    assert T.is_storage(typed) is True

    class Sub(T.UntypedStorage):
        pass

    for other in (x, [1, 2], None, 1.0, Sub(2)):
        assert T.is_storage(other) is False
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'obj'"):
        T.is_storage()
    with pytest.raises(TypeError, match="positional-only arguments passed as keyword arguments: 'obj'"):
        T.is_storage(obj=x)


def test_trace_and_ravel_check_their_argument_inline():
    a = np.arange(20.0).reshape(4, 5)
    x = minitorch.tensor(a)
    assert minitorch.trace(x).item() == np.trace(a) and x.trace().item() == np.trace(a)
    assert minitorch.trace(minitorch.tensor(a.T.copy()).t()).item() == np.trace(a)  # non-contiguous
    assert minitorch.trace(minitorch.ones(0, 3)).item() == 0.0
    np.testing.assert_array_equal(minitorch.ravel(x.t()).numpy(), a.T.ravel())
    assert minitorch.ravel(minitorch.ones(0, 3)).shape == (0,)
    p = minitorch.nn.Parameter(minitorch.ones(2, 2))
    assert minitorch.trace(p).item() == 2.0 and minitorch.ravel(p).shape == (4,)
    # PyTorch's words, with the public name (the trace kernel's own binding is _trace)
    for f, name in ((minitorch.trace, "trace"), (minitorch.ravel, "ravel")):
        with pytest.raises(
            TypeError, match=rf"^{name}\(\): argument 'input' \(position 1\) must be Tensor, not list$"
        ):
            f([[1.0]])
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 3"):
        minitorch.trace(minitorch.ones(2, 2, 2))


# ---------------------------------------------------------------- random sampling


def _mean_var_ok(x, mean, var, k=6):
    """Sample mean within k standard errors, sample variance within k of its standard error (normal approx)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    se_mean = math.sqrt(var / n)
    assert abs(x.mean() - mean) < k * se_mean, (x.mean(), mean)
    # the variance's standard error, for data with finite fourth moment, is ~ var * sqrt(2 / n) (x2 for
    # heavier tails)
    assert abs(x.var() - var) < k * 2 * var * math.sqrt(2 / n), (x.var(), var)


def test_normal_overloads(device):
    minitorch.manual_seed(0)
    x = minitorch.normal(2.0, 3.0, (40000,), device=device)
    assert x.shape == (40000,) and x.dtype == minitorch.float32 and x.device.type == device
    _mean_var_ok(x.cpu().numpy(), 2.0, 9.0)
    mean = minitorch.tensor([-5.0, 0.0, 5.0], device=device).repeat(10000)
    y = minitorch.normal(mean, 0.5).cpu().numpy().reshape(10000, 3)
    for j, m in enumerate([-5.0, 0.0, 5.0]):
        _mean_var_ok(y[:, j], m, 0.25)
    std = minitorch.tensor([0.0, 1.0, 4.0], device=device).repeat(10000)
    z = minitorch.normal(1.0, std).cpu().numpy().reshape(10000, 3)
    assert (z[:, 0] == 1.0).all()
    _mean_var_ok(z[:, 2], 1.0, 16.0)
    w = minitorch.normal(minitorch.zeros(2, 1, device=device), minitorch.ones(3, device=device))
    assert w.shape == (2, 3)
    d = minitorch.normal(0.0, 1.0, (2, 3), dtype=minitorch.float64, device=device)
    assert d.dtype == minitorch.float64 and d.shape == (2, 3)
    out = minitorch.empty(5, device=device)
    assert minitorch.normal(0.0, 1.0, (5,), out=out) is out


def test_normal_gradients_and_generator():
    mean = minitorch.zeros(4, requires_grad=True)
    std = minitorch.ones(4, requires_grad=True)
    minitorch.normal(mean, std).sum().backward()
    assert mean.grad.tolist() == [1.0] * 4 and std.grad is not None
    g1, g2 = minitorch.Generator().manual_seed(7), minitorch.Generator().manual_seed(7)
    a = minitorch.normal(0.0, 1.0, (6,), generator=g1)
    b = minitorch.normal(0.0, 1.0, (6,), generator=g2)
    assert minitorch.equal(a, b)
    minitorch.manual_seed(3)
    c = minitorch.normal(minitorch.zeros(6), 1.0)
    minitorch.manual_seed(3)
    assert minitorch.equal(c, minitorch.normal(minitorch.zeros(6), 1.0))


def test_normal_errors():
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        minitorch.normal(0.0, -1.0, (3,))
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        minitorch.normal(minitorch.zeros(3), -1.0)
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        minitorch.normal(minitorch.zeros(3), minitorch.tensor([1.0, -1.0, 1.0]))
    with pytest.raises(TypeError, match=r"normal\(\) received an invalid combination of arguments"):
        minitorch.normal(0.0, 1.0)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        minitorch.normal(minitorch.zeros(2, dtype=minitorch.int64), 1.0)


def test_bernoulli(device):
    minitorch.manual_seed(1)
    p = minitorch.tensor([0.0, 0.2, 0.9, 1.0], device=device).repeat(20000)
    x = minitorch.bernoulli(p)
    assert x.dtype == p.dtype and x.device.type == device
    a = x.cpu().numpy().reshape(20000, 4)
    assert (a[:, 0] == 0).all() and (a[:, 3] == 1).all()
    for j, q in [(1, 0.2), (2, 0.9)]:
        _mean_var_ok(a[:, j], q, q * (1 - q))
    y = minitorch.zeros(50000, device=device, dtype=minitorch.float64).bernoulli(0.3)
    assert y.dtype == minitorch.float64
    _mean_var_ok(y.cpu().numpy(), 0.3, 0.21)
    _mean_var_ok(minitorch.bernoulli(minitorch.zeros(50000, device=device), 0.7).cpu().numpy(), 0.7, 0.21)
    h = minitorch.bernoulli(minitorch.full((1000,), 0.5, dtype=minitorch.float16, device=device))
    assert h.dtype == minitorch.float16 and set(h.cpu().float().numpy().tolist()) <= {0.0, 1.0}


def test_bernoulli_errors():
    with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1 to be true"):
        minitorch.bernoulli(minitorch.tensor([0.5, 1.5]))
    with pytest.raises(NotImplementedError, match="bernoulli_tensor_cpu_p_\" not implemented for 'Long'"):
        minitorch.bernoulli(minitorch.tensor([0, 1]))
    with pytest.raises(TypeError, match=r"bernoulli\(\) received an invalid combination of arguments"):
        minitorch.zeros(3).bernoulli(minitorch.ones(3))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.float16])
def test_continuous_samplers(device, dtype):
    minitorch.manual_seed(2)
    n = 40000
    e = minitorch.empty(n, device=device, dtype=dtype).exponential_(2.0)
    ea = e.cpu().double().numpy()
    assert np.isfinite(ea).all() and (ea >= 0).all()
    _mean_var_ok(ea, 0.5, 0.25, k=8)
    ln = minitorch.empty(n, device=device, dtype=dtype).log_normal_(0.0, 0.5)
    # log of log-normal samples are Normal(0, 0.5)
    _mean_var_ok(np.log(ln.cpu().double().numpy()), 0.0, 0.25, k=8)
    c = minitorch.empty(n, device=device, dtype=dtype).cauchy_(1.0, 2.0).cpu().double().numpy()
    # Cauchy has no mean: check its median and quartiles (median +- sigma)
    q = np.quantile(c, [0.25, 0.5, 0.75])
    assert abs(q[1] - 1.0) < 0.1 and abs(q[0] + 1.0) < 0.15 and abs(q[2] - 3.0) < 0.15


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.int64])
def test_geometric(device, dtype):
    minitorch.manual_seed(4)
    p = 0.25
    g = minitorch.empty(40000, device=device, dtype=dtype).geometric_(p)
    assert g.dtype == dtype
    a = g.cpu().double().numpy()
    assert (a >= 1).all() and (a == np.round(a)).all()
    _mean_var_ok(a, 1 / p, (1 - p) / p**2, k=8)
    # P(X = 1) = p
    assert abs((a == 1).mean() - p) < 6 * math.sqrt(p * (1 - p) / a.size)


def test_sampler_errors_and_generator():
    t = minitorch.zeros(3)
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0, but found lambda=0"):
        t.exponential_(0)
    with pytest.raises(RuntimeError, match="dtype must be a floating point but you specified Long"):
        minitorch.zeros(3, dtype=minitorch.int64).exponential_()
    with pytest.raises(RuntimeError, match="log_normal_ expects std > 0.0, but found std=-1"):
        t.log_normal_(1, -1)
    with pytest.raises(NotImplementedError, match="\"log_normal_cpu\" not implemented for 'Long'"):
        minitorch.zeros(3, dtype=minitorch.int64).log_normal_()
    with pytest.raises(RuntimeError, match="cauchy_ expects sigma > 0.0, but found sigma=0"):
        t.cauchy_(0, 0)
    with pytest.raises(RuntimeError, match="you specified long int"):
        minitorch.zeros(3, dtype=minitorch.int64).cauchy_()
    for bad in (0, 1, 1.5):
        with pytest.raises(
            RuntimeError, match=f"geometric_ expects p to be in \\(0, 1\\), but got p={bad:g}"
        ):
            t.geometric_(bad)
    for name, args in [("exponential_", ()), ("log_normal_", ()), ("cauchy_", ()), ("geometric_", (0.5,))]:
        a = getattr(minitorch.zeros(8), name)(*args, generator=minitorch.Generator().manual_seed(5))
        b = getattr(minitorch.zeros(8), name)(*args, generator=minitorch.Generator().manual_seed(5))
        assert minitorch.equal(a, b), name


def test_samplers_in_place_rules():
    """PyTorch's in-place op rules for the samplers (C++ ops since session 29): one version bump, a leaf that
    requires grad refused; geometric_ refuses bool and complex tensors as PyTorch's kernel, exponential_ a
    complex one"""
    calls = [("exponential_", ()), ("log_normal_", ()), ("cauchy_", ()), ("geometric_", (0.5,))]
    for name, args in calls:
        for shape in [(3, 4), (0,)]:
            t = minitorch.zeros(shape)
            v = t._version
            getattr(t, name)(*args)
            assert t._version == v + 1, name
        leaf = minitorch.zeros(3, requires_grad=True)
        with pytest.raises(
            RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"
        ):
            getattr(leaf, name)(*args)
    for dt, kind in ((minitorch.bool, "Bool"), (minitorch.complex64, "ComplexFloat")):
        with pytest.raises(NotImplementedError, match=f"\"geometric_cpu\" not implemented for '{kind}'"):
            minitorch.zeros(2, dtype=dt).geometric_(0.5)
    with pytest.raises(RuntimeError, match="but you specified ComplexFloat"):
        minitorch.zeros(2, dtype=minitorch.complex64).exponential_()
    with pytest.raises(RuntimeError, match="but you specified long int"):
        minitorch.zeros(0, dtype=minitorch.int64).cauchy_()  # cauchy_ checks an empty tensor's dtype too
    minitorch.manual_seed(0)
    g = minitorch.zeros(4, dtype=minitorch.int16).geometric_(0.999)
    assert g.dtype == minitorch.int16 and g.tolist() == [1, 1, 1, 1]


# ---------------------------------------------------------------- windows, logspace, empty_strided, asarray

NP_WINDOWS = {
    "hann_window": np.hanning,
    "hamming_window": np.hamming,
    "blackman_window": np.blackman,
    "bartlett_window": np.bartlett,
    "kaiser_window": lambda n: np.kaiser(n, 12.0),
}


@pytest.mark.parametrize("name", sorted(NP_WINDOWS))
@pytest.mark.parametrize("n", [0, 1, 2, 7, 64])
def test_windows_match_numpy(device, name, n):
    fn, ref = getattr(minitorch, name), NP_WINDOWS[name]
    sym = fn(n, periodic=False, dtype=minitorch.float64, device=device)
    per = fn(n, dtype=minitorch.float64, device=device)
    assert sym.device.type == device and sym.dtype == minitorch.float64
    np.testing.assert_allclose(sym.cpu().numpy(), ref(n) if n > 1 else np.ones(n), rtol=1e-12, atol=1e-13)
    # periodic: the symmetric window one longer, its last point dropped
    np.testing.assert_allclose(
        per.cpu().numpy(), ref(n + 1)[:-1] if n > 1 else np.ones(n), rtol=1e-12, atol=1e-13
    )
    assert fn(n).dtype == minitorch.get_default_dtype()


def test_window_options_and_errors():
    np.testing.assert_allclose(
        minitorch.hamming_window(9, False, alpha=0.5, beta=0.5).numpy(), np.hanning(9), atol=1e-6
    )
    np.testing.assert_allclose(
        minitorch.kaiser_window(11, False, beta=40.0, dtype=minitorch.float64).numpy(),
        np.kaiser(11, 40.0),
        rtol=1e-12,
    )
    assert minitorch.hann_window(4, requires_grad=True).requires_grad
    with pytest.raises(
        RuntimeError, match="hann_window requires non-negative window_length, got window_length=-1"
    ):
        minitorch.hann_window(-1)
    with pytest.raises(RuntimeError, match="kaiser_window expects floating point dtypes, got: TensorOptions"):
        minitorch.kaiser_window(3, dtype=minitorch.int32)
    with pytest.raises(TypeError, match="argument 'window_length' \\(position 1\\) must be int, not float"):
        minitorch.hann_window(2.5)


def test_logspace(device):
    r = minitorch.logspace(-2, 3, 11, device=device, dtype=minitorch.float64)
    np.testing.assert_allclose(r.cpu().numpy(), np.logspace(-2, 3, 11), rtol=1e-12)
    np.testing.assert_allclose(minitorch.logspace(0, 3, 4, base=2).numpy(), [1, 2, 4, 8])
    assert minitorch.logspace(0, 2, 3, dtype=minitorch.int64).tolist() == [1, 10, 100]
    assert minitorch.logspace(0, 1, 5).dtype == minitorch.get_default_dtype()
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        minitorch.logspace(0, 2, -1)


def test_empty_strided(device):
    t = minitorch.empty_strided((2, 3), (1, 2), device=device, dtype=minitorch.float64)
    assert t.shape == (2, 3) and t.stride() == (1, 2) and t.dtype == minitorch.float64
    t.copy_(minitorch.arange(6.0).reshape(2, 3))
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert minitorch.empty_strided((0, 4), (4, 1)).shape == (0, 4)
    with pytest.raises(
        RuntimeError, match=r"dimensionality of sizes \(2\) must match dimensionality of strides \(1\)"
    ):
        minitorch.empty_strided((2, 3), (1,))


def test_asarray(device):
    a = np.arange(3.0)
    t = minitorch.asarray(a)
    a[0] = 5  # shares the array's memory, as PyTorch's
    assert t.tolist() == [5.0, 1.0, 2.0] and t.dtype == minitorch.float64
    assert minitorch.asarray(a, copy=True).tolist() == [5.0, 1.0, 2.0]
    c = minitorch.asarray(a, copy=True)
    a[1] = 9
    assert c[1].item() == 1.0
    assert minitorch.asarray([1, 2.0]).dtype == minitorch.get_default_dtype()
    assert minitorch.asarray(3).dtype == minitorch.int64
    assert minitorch.asarray([[1, 2]], dtype=minitorch.float64, device=device).device.type == device
    x = minitorch.ones(2, device=device)
    assert minitorch.asarray(x) is x and minitorch.asarray(x, copy=True) is not x
    assert minitorch.asarray(x, dtype=minitorch.float64).dtype == minitorch.float64
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Long' into dtype 'Float'."):
        minitorch.asarray(np.arange(3), copy=False, dtype=minitorch.float32)


def test_asarray_requires_grad_follows_pytorch_2_15(device):
    """An unspecified requires_grad follows obj's (PyTorch 2.15, with its one-time warning); a given one is set
    on the result itself: an unconverted leaf changes in place, a graph's tensor is detached."""
    leaf = minitorch.ones(3, dtype=minitorch.float64, device=device, requires_grad=True)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        r = minitorch.asarray(leaf, dtype=minitorch.float32)
    assert r.requires_grad and type(r.grad_fn).__name__ == "ToCopyBackward0"
    r.sum().backward()
    np.testing.assert_array_equal(leaf.grad.cpu().numpy(), np.ones(3))
    with pytest.raises(
        RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"
    ):
        minitorch.asarray(leaf, dtype=minitorch.int32)
    assert not minitorch.asarray(leaf, dtype=minitorch.int32, requires_grad=False).requires_grad
    r = minitorch.asarray(leaf, dtype=minitorch.float32, requires_grad=False)
    assert not r.requires_grad and r.grad_fn is None
    nonleaf = leaf * 2
    r = minitorch.asarray(nonleaf, requires_grad=False)
    assert r is not nonleaf and not r.requires_grad and r.data_ptr() == nonleaf.data_ptr()
    assert minitorch.asarray(nonleaf) is nonleaf
    c = minitorch.asarray(leaf, copy=True)
    assert type(c.grad_fn).__name__ == "CloneBackward0"
    # the leaf itself: its flag is set in place, as PyTorch's
    assert minitorch.asarray(leaf, requires_grad=False) is leaf and not leaf.requires_grad
    plain = minitorch.zeros(2, device=device)
    assert minitorch.asarray(plain, requires_grad=True) is plain and plain.requires_grad
    assert not minitorch.asarray(np.zeros(2)).requires_grad
    assert minitorch.asarray([1.0, 2.0], requires_grad=True).requires_grad
    with pytest.raises(TypeError, match="argument 'requires_grad' must be bool, not int"):
        minitorch.asarray(plain, requires_grad=1)


# ---------------------------------------------------------------- torch-level spellings


def test_inplace_spellings(device):
    names = [n for n in dir(minitorch) if n.endswith("_") and hasattr(minitorch.Tensor, n)]
    assert {"abs_", "exp_", "sigmoid_", "zero_", "clamp_"} <= set(names)
    x = minitorch.tensor([0.25, 0.5, 0.75], device=device)
    for name in [
        "abs_",
        "acos_",
        "asin_",
        "atanh_",
        "ceil_",
        "cos_",
        "erf_",
        "exp_",
        "expm1_",
        "floor_",
        "log_",
        "log1p_",
        "neg_",
        "reciprocal_",
        "relu_",
        "round_",
        "rsqrt_",
        "sigmoid_",
        "sin_",
        "sqrt_",
        "tanh_",
        "trunc_",
        "zero_",
        "detach_",
    ]:
        a, b = x.clone(), x.clone()
        r = getattr(minitorch, name)(a)
        getattr(b, name)()
        assert r is a and minitorch.equal(a, b), name
        assert getattr(minitorch, name).__doc__
    a = x.clone()
    assert minitorch.clamp_(a, 0.375, 0.625) is a and a.tolist() == [0.375, 0.5, 0.625]
    assert minitorch.clamp_min_(x.clone(), 0.625).tolist() == [0.625, 0.625, 0.75]
    assert x.clone().clamp_max_(0.375).tolist() == [0.25, 0.375, 0.375]
    assert minitorch.fill_(x.clone(), 2.0).tolist() == [2.0] * 3
    f = minitorch.fill(x, minitorch.tensor(3.0))
    assert f is not x and f.tolist() == [3.0] * 3 and x.tolist() == [0.25, 0.5, 0.75]
    y = x.clone().requires_grad_()
    assert not minitorch.detach(y * 2).requires_grad


def test_nn_spellings(device):
    minitorch.manual_seed(0)
    r = lambda *s: minitorch.randn(s, device=device)
    x, x4 = r(2, 4, 8), r(2, 4, 6, 6)
    w1, w2, b = r(3, 4, 3), r(3, 4, 3, 3), r(3)
    eq = lambda a, b: minitorch.allclose(a, b, rtol=1e-5, atol=1e-6)
    assert eq(minitorch.conv1d(x, w1, b, padding=1), F.conv1d(x, w1, b, padding=1))
    assert eq(minitorch.conv2d(x4, w2, b, 2), F.conv2d(x4, w2, b, 2))
    assert eq(
        minitorch.conv_transpose1d(x, w1.transpose(0, 1).contiguous()),
        F.conv_transpose1d(x, w1.transpose(0, 1).contiguous()),
    )
    g, bb = r(8), r(8)
    assert eq(minitorch.layer_norm(x, (8,), g, bb, 1e-5, True), F.layer_norm(x, (8,), g, bb))
    assert eq(minitorch.group_norm(x, 2), F.group_norm(x, 2))
    rm, rv = minitorch.zeros(4, device=device), minitorch.ones(4, device=device)
    w, bias = r(4), r(4)
    assert eq(
        minitorch.batch_norm(x, w, bias, rm, rv, False, 0.1, 1e-5, True), F.batch_norm(x, rm, rv, w, bias)
    )
    assert eq(
        minitorch.instance_norm(x, w, bias, None, None, True, 0.1, 1e-5, True),
        F.instance_norm(x, weight=w, bias=bias),
    )
    emb, idx = r(5, 3), minitorch.tensor([[0, 4], [2, 2]], device=device)
    assert eq(minitorch.embedding(emb, idx), F.embedding(idx, emb))
    assert eq(minitorch.max_pool1d(x, 2), F.max_pool1d(x, 2))
    assert eq(minitorch.max_pool2d(x4, 3, 1, 1), F.max_pool2d(x4, 3, 1, 1))
    assert eq(minitorch.avg_pool1d(x, 2), F.avg_pool1d(x, 2))
    assert eq(minitorch.adaptive_avg_pool1d(x, 3), F.adaptive_avg_pool1d(x, 3))
    v, i = minitorch.adaptive_max_pool1d(x, 4)
    v2, i2 = F.adaptive_max_pool1d(x, 4, return_indices=True)
    assert eq(v, v2) and minitorch.equal(i, i2)
    assert eq(minitorch.pixel_shuffle(x4, 2), F.pixel_shuffle(x4, 2))
    assert eq(minitorch.pixel_unshuffle(x4, 2), F.pixel_unshuffle(x4, 2))
    assert eq(minitorch.constant_pad_nd(x, (1, 2), 3.0), F.pad(x, (1, 2), value=3.0))
    t = minitorch.rand(2, 4, 8, device=device)
    # torch.*'s spellings leave the loss unreduced when reduction is omitted (PyTorch 2.15, measured)
    none = {"reduction": "none"}
    assert eq(
        minitorch.binary_cross_entropy_with_logits(x, t), F.binary_cross_entropy_with_logits(x, t, **none)
    )
    assert eq(
        minitorch.binary_cross_entropy_with_logits(x, t, None, None, 1),
        F.binary_cross_entropy_with_logits(x, t),
    )
    assert eq(
        minitorch.binary_cross_entropy_with_logits(x, t, None, None, 2),
        F.binary_cross_entropy_with_logits(x, t, reduction="sum"),
    )
    lp, tp = x.log_softmax(-1), t.softmax(-1)
    assert eq(minitorch.kl_div(lp, tp, 0), F.kl_div(lp, tp, reduction="none"))
    a1, a2, y = r(4, 5), r(4, 5), minitorch.tensor([1.0, -1.0, 1.0, -1.0], device=device)
    assert eq(
        minitorch.cosine_embedding_loss(a1, a2, y, 0.1, 2),
        F.cosine_embedding_loss(a1, a2, y, 0.1, reduction="sum"),
    )
    assert eq(minitorch.hinge_embedding_loss(a1[:, 0], y), F.hinge_embedding_loss(a1[:, 0], y, **none))
    assert eq(minitorch.hinge_embedding_loss(a1[:, 0], y, 1.0, 1), F.hinge_embedding_loss(a1[:, 0], y))
    assert eq(
        minitorch.margin_ranking_loss(a1[:, 0], a2[:, 0], y),
        F.margin_ranking_loss(a1[:, 0], a2[:, 0], y, **none),
    )
    assert eq(minitorch.cosine_embedding_loss(a1, a2, y), F.cosine_embedding_loss(a1, a2, y, **none))
    assert eq(minitorch.kl_div(lp, tp), F.kl_div(lp, tp, reduction="none"))
    assert eq(
        minitorch.poisson_nll_loss(a1, a2.abs(), True, False, 1e-8, 1), F.poisson_nll_loss(a1, a2.abs())
    )
    a3 = r(4, 5)
    assert eq(minitorch.triplet_margin_loss(a1, a2, a3), F.triplet_margin_loss(a1, a2, a3, **none))
    assert eq(
        minitorch.triplet_margin_loss(a1, a2, a3, 1.0, 2, 1e-6, False, 1), F.triplet_margin_loss(a1, a2, a3)
    )
    bw = r(6, 5, 5)
    assert eq(minitorch.bilinear(a1, a2, bw), F.bilinear(a1, a2, bw))
    with pytest.raises(
        TypeError, match=r"kl_div\(\): argument 'reduction' \(position 3\) must be int, not str"
    ):
        minitorch.kl_div(lp, tp, "mean")


def test_dropout_spellings(device):
    x = minitorch.ones(4, 16, 3, device=device)
    assert minitorch.dropout(x, 0.5, False) is x
    minitorch.manual_seed(0)
    d = minitorch.dropout(x, 0.5, True)
    assert set(d.cpu().numpy().ravel().tolist()) <= {0.0, 2.0}
    f = minitorch.feature_dropout(x, 0.5, True).cpu().numpy()
    # whole channels: each (n, c) row is all 0 or all 2
    assert set(f.ravel().tolist()) <= {0.0, 2.0} and (f.min(-1) == f.max(-1)).all()
    assert 0 < (f == 0).mean() < 1
    y = x.clone()
    assert minitorch.dropout_(y, 0.5, True) is y and set(y.cpu().numpy().ravel().tolist()) <= {0.0, 2.0}
    y = x.clone()
    assert minitorch.feature_dropout_(y, 1.0, True) is y and (y.cpu().numpy() == 0).all()
    assert minitorch.alpha_dropout_(x.clone(), 0.5, False).tolist() == x.tolist()


def test_compile_is_torch_compile():
    """minitorch.compile is minitorch.compiler.compile (tests/compile/test_compile.py covers what it does)."""
    m = minitorch.nn.Linear(2, 2)
    cm = minitorch.compile(m, mode="max-autotune", fullgraph=True)
    assert type(cm).__name__ == "OptimizedModule" and cm._orig_mod is m

    @minitorch.compile
    def f(x):
        return x + 1

    @minitorch.compile(dynamic=True, backend="eager")
    def g(x):
        return x * 2

    assert f(minitorch.ones(1)).item() == 2.0 and g(minitorch.ones(1)).item() == 2.0
    assert isinstance(f, minitorch._dynamo.CompiledFunction) and len(g._mt_graphs) == 1
    with pytest.raises(AssertionError, match="A callable function is expected"):
        minitorch.compile(3)


# ---------------------------------------------------------------- RNG state of the default generator


def test_rng_state_round_trip_and_default_generator():
    minitorch.manual_seed(11)
    state = minitorch.get_rng_state()
    assert state.dtype == minitorch.uint8 and state.shape == (16,)
    a = minitorch.randn(5)
    minitorch.rand(3)  # moves the stream on
    minitorch.set_rng_state(state)
    assert minitorch.equal(minitorch.randn(5), a)
    # default_generator is that same stream, also as generator=
    minitorch.set_rng_state(state)
    assert minitorch.equal(minitorch.randn(5, generator=minitorch.default_generator), a)
    assert minitorch.default_generator.initial_seed() == 11
    with pytest.raises(TypeError, match="expected a torch.ByteTensor"):
        minitorch.set_rng_state([1, 2])
    with pytest.raises(RuntimeError, match="of size 16 but found the input RNG state size to be 3"):
        minitorch.set_rng_state(minitorch.zeros(3, dtype=minitorch.uint8))


def test_assert_is_a_callable_assert():
    minitorch._assert(True, "never shown")
    minitorch._assert(minitorch.tensor(1), "never shown")
    with pytest.raises(AssertionError, match="^shape mismatch$"):
        minitorch._assert(minitorch.tensor(False), "shape mismatch")


def test_logspace_adaptive_max_pool1d_poisson_parse_as_pytorch():
    """PyTorch's parser for these C++ ops of its (issue 34): logspace's four overloads, output_size's int list
    (a one-element integer tensor stands for it, a bool does not), poisson's Generator"""
    cases = [
        (lambda: minitorch.logspace(minitorch.ones(2, 1), minitorch.ones(2, 1), 0.001, 0.001),
         "logspace() received an invalid combination of arguments - got (Tensor, Tensor, float, float), but expected one of:"),
        (lambda: minitorch.logspace(0, 1, minitorch.ones(2)), "got (int, int, Tensor)"),
        (lambda: minitorch.adaptive_max_pool1d(minitorch.ones(1, 3, 4), True),
         "adaptive_max_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not bool"),
        (lambda: F.adaptive_max_pool1d(minitorch.ones(1, 3, 4), 2.5),
         "adaptive_max_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not float"),
        (lambda: minitorch.poisson(minitorch.ones(3), [1]),
         "poisson(): argument 'generator' (position 2) must be torch.Generator, not list"),
        (lambda: minitorch.poisson([]), "poisson(): argument 'input' (position 1) must be Tensor, not list"),
    ]  # fmt: skip
    for call, msg in cases:
        with pytest.raises(TypeError, match=re.escape(msg)):
            call()
    np.testing.assert_allclose(
        minitorch.logspace(minitorch.tensor(0.0), 2, 3).numpy(), [1.0, 10.0, 100.0], rtol=1e-6
    )
    x = minitorch.tensor([[[1.0, 5.0, 2.0, 3.0]]])
    v, i = minitorch.adaptive_max_pool1d(x, minitorch.tensor([2]))
    assert v.tolist() == [[[5.0, 3.0]]] and i.tolist() == [[[1, 3]]]
    g = minitorch.Generator().manual_seed(0)
    assert minitorch.poisson(minitorch.zeros(3), g).tolist() == [0.0, 0.0, 0.0]
