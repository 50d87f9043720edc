"""nn.utils.parametrize, nn.utils.parametrizations (weight_norm, spectral_norm, orthogonal) and the legacy
nn.utils.weight_norm / spectral_norm hooks: values against NumPy float64, gradients by gradcheck, the module
layout and state_dict keys PyTorch has, round trips, and PyTorch's errors for bad input."""

import copy
import pickle
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.utils.parametrize as P
from minitorch import nn
from minitorch.autograd import gradcheck
from minitorch.nn.utils import parametrizations as PZ


def t64(a):
    return minitorch.tensor(np.asarray(a, dtype=np.float64))


def npy(t):
    # a copy: .numpy() of a float64 tensor shares its memory, and tests change tensors in place afterwards
    return t.detach().double().cpu().numpy().copy()


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A):
        return A.triu()


class Scale(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c

    def forward(self, X):
        return X * self.c

    def right_inverse(self, Y):
        return Y / self.c


class NoInverse(nn.Module):
    def forward(self, X):
        return X + 1


class RankOne(nn.Module):
    def forward(self, x, y):
        return x.unsqueeze(-1) @ y.unsqueeze(-2)

    def right_inverse(self, Z):
        return Z[:, 0].clone(), Z[0, :] / Z[0, 0]


class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, X):
        self.calls += 1
        return X * 2


# ---- register_parametrization
def test_register_layout_value_and_class(device):
    m = nn.Linear(5, 5).to(device)
    w0 = m.weight
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear"
    assert isinstance(m, nn.Linear)
    assert P.type_before_parametrizations(m) is nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert isinstance(m.parametrizations, nn.ModuleDict)
    assert isinstance(m.parametrizations.weight, P.ParametrizationList)
    # the original Parameter object moves, holding right_inverse(W) = triu(W)
    assert m.parametrizations.weight.original is w0
    np.testing.assert_allclose(npy(w0), np.triu(npy(w0)))
    W = npy(m.weight)
    np.testing.assert_allclose(W, W.T)
    np.testing.assert_allclose(W, np.triu(npy(w0)) + np.triu(npy(w0), 1).T)
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert "weight" not in m._parameters
    # only this module's class got the property
    assert not isinstance(nn.Linear.__dict__.get("weight"), property)
    assert isinstance(nn.Linear(2, 2).weight, nn.Parameter)


def test_forward_uses_parametrized_value_and_grad_reaches_original():
    minitorch.manual_seed(0)
    m = nn.Linear(4, 4).double()
    P.register_parametrization(m, "weight", Symmetric())
    x = minitorch.randn(3, 4, dtype=minitorch.float64)
    out = m(x)
    W = npy(m.weight)
    np.testing.assert_allclose(npy(out), npy(x) @ W.T + npy(m.bias), rtol=1e-12)
    out.sum().backward()
    orig = m.parametrizations.weight.original
    # d/dA sum(x (triu A + triu(A,1)^T)^T): column sums of x land on the upper triangle twice off the diagonal
    g = np.tile(npy(x).sum(0), (4, 1))  # dL/dW[i, j] = sum_n x[n, j]
    expect = np.triu(g) + np.triu(g.T, 1)
    np.testing.assert_allclose(npy(orig.grad), expect, rtol=1e-12)


def test_gradcheck_through_parametrization():
    m = nn.Linear(3, 3).double()
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", Scale(1.5))
    orig = m.parametrizations.weight.original
    x = minitorch.randn(2, 3, dtype=minitorch.float64, requires_grad=True)

    def f(a, inp):
        with minitorch.no_grad():
            orig.copy_(a)
        # the graph must start at `a`: run the chain on it directly
        w = m.parametrizations.weight[1](m.parametrizations.weight[0](a))
        return inp @ w.mT

    a = orig.detach().clone().requires_grad_(True)
    assert gradcheck(f, (a, x))


def test_assignment_calls_right_inverse_and_keeps_original_object():
    m = nn.Linear(5, 5)
    P.register_parametrization(m, "weight", Symmetric())
    orig = m.parametrizations.weight.original
    opt = minitorch.optim.SGD(m.parameters(), lr=0.1)
    A = minitorch.rand(5, 5)
    A = A + A.mT
    m.weight = A
    assert m.parametrizations.weight.original is orig
    np.testing.assert_allclose(npy(m.weight), npy(A), rtol=1e-6)
    assert any(p is orig for g in opt.param_groups for p in g["params"])


def test_assignment_without_right_inverse_raises():
    m = nn.Linear(3, 4)
    P.register_parametrization(m, "weight", NoInverse())
    with pytest.raises(RuntimeError, match="^parametrization NoInverse does not implement right_inverse.$"):
        m.weight = minitorch.zeros(4, 3)


def test_no_right_inverse_means_identity_original():
    m = nn.Linear(3, 4)
    w = m.weight.detach().clone()
    P.register_parametrization(m, "weight", NoInverse())
    np.testing.assert_array_equal(npy(m.parametrizations.weight.original), npy(w))
    np.testing.assert_allclose(npy(m.weight), npy(w) + 1, rtol=1e-6)


def test_chained_parametrizations_apply_in_order():
    m = nn.Linear(3, 3).double()
    w = npy(m.weight)
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", Scale(3.0))
    assert len(m.parametrizations.weight) == 2
    sym = np.triu(w) + np.triu(w, 1).T
    np.testing.assert_allclose(npy(m.weight), 3 * sym, rtol=1e-12)
    # assignment inverts the whole chain, last first
    target = np.arange(9.0).reshape(3, 3)
    target = target + target.T
    m.weight = t64(target)
    np.testing.assert_allclose(npy(m.weight), target, rtol=1e-12)
    np.testing.assert_allclose(npy(m.parametrizations.weight.original), np.triu(target / 3), rtol=1e-12)


def test_tuple_right_inverse_registers_original0_original1():
    m = nn.Linear(4, 4).double()
    Z = np.outer([1.0, 2, 3, 4], [2.0, -1, 0.5, 3])
    with minitorch.no_grad():
        m.weight.copy_(t64(Z))
    P.register_parametrization(m, "weight", RankOne())
    plist = m.parametrizations.weight
    assert not plist.is_tensor and plist.ntensors == 2
    assert not hasattr(plist, "original")
    assert isinstance(plist.original0, nn.Parameter) and isinstance(plist.original1, nn.Parameter)
    assert list(m.state_dict()) == [
        "bias",
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]
    np.testing.assert_allclose(npy(m.weight), Z, rtol=1e-12)
    m(minitorch.randn(2, 4, dtype=minitorch.float64)).sum().backward()
    assert plist.original0.grad is not None and plist.original1.grad is not None
    # assignment goes through right_inverse into both originals
    Z2 = np.outer([1.0, 1, 2, 2], [1.0, 3, 3, 1])
    m.weight = t64(Z2)
    np.testing.assert_allclose(npy(m.weight), Z2, rtol=1e-12)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear
    np.testing.assert_allclose(npy(m.weight), Z2, rtol=1e-12)
    assert isinstance(m.weight, nn.Parameter)


def test_parametrize_buffer():
    m = nn.Module()
    m.register_buffer("buf", minitorch.tensor([1.0, -2.0, 3.0]))
    P.register_parametrization(m, "buf", Scale(2.0))
    # the value is kept: the original holds right_inverse(buf) = buf / 2
    np.testing.assert_allclose(npy(m.buf), [1, -2, 3])
    np.testing.assert_allclose(npy(m.parametrizations.buf.original), [0.5, -1, 1.5])
    assert [n for n, _ in m.named_buffers()] == ["parametrizations.buf.original"]
    assert list(m.named_parameters()) == []
    P.remove_parametrizations(m, "buf")
    assert "buf" in m._buffers
    np.testing.assert_allclose(npy(m.buf), [1, -2, 3])


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_both_ways(leave):
    m = nn.Linear(4, 4)
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "bias", Scale(2.0))
    orig = m.parametrizations.weight.original
    value = npy(m.weight)
    raw = npy(orig)
    P.remove_parametrizations(m, "weight", leave_parametrized=leave)
    # still parametrized on bias: class and ModuleDict stay
    assert type(m).__name__ == "ParametrizedLinear" and not P.is_parametrized(m, "weight")
    assert m.weight is orig and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(npy(m.weight), value if leave else raw, rtol=1e-6)
    P.remove_parametrizations(m, "bias", leave_parametrized=leave)
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert list(m.state_dict()) == ["weight", "bias"]
    assert isinstance(m.weight, nn.Parameter)


def test_cached_computes_once_and_forgets_after():
    m = nn.Linear(3, 3)
    c = Counting()
    P.register_parametrization(m, "weight", c, unsafe=True)
    c.calls = 0
    with P.cached():
        a = m.weight
        b = m.weight
        with P.cached():  # nested blocks share the cache
            assert m.weight is a
    assert a is b and c.calls == 1
    m.weight  # noqa: B018
    m.weight  # noqa: B018
    assert c.calls == 3
    with P.cached():
        assert m.weight is not a


def test_parametrization_follows_training_mode():
    m = nn.Linear(3, 3)
    m.eval()
    s = Scale(2.0)
    P.register_parametrization(m, "weight", s)
    assert s.training is False
    m.train()
    assert s.training is True


def test_state_dict_round_trip_and_load_into_parametrized():
    src = nn.Linear(4, 4)
    P.register_parametrization(src, "weight", Symmetric())
    sd = src.state_dict()
    dst = nn.Linear(4, 4)
    P.register_parametrization(dst, "weight", Symmetric())
    dst.load_state_dict(sd)
    np.testing.assert_array_equal(npy(dst.weight), npy(src.weight))
    plain = nn.Linear(4, 4)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "weight"'):
        plain.load_state_dict(sd)


def test_pickle_refused_deepcopy_works():
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Symmetric())
    with pytest.raises(
        RuntimeError, match="^Serialization of parametrized modules is only supported through state_dict"
    ):
        pickle.dumps(m)
    m2 = copy.deepcopy(m)
    assert type(m2).__name__ == "ParametrizedLinear"
    assert m2.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_array_equal(npy(m2.weight), npy(m.weight))
    with minitorch.no_grad():
        m2.parametrizations.weight.original.zero_()
    assert npy(m.weight).any()


def test_to_double_converts_originals():
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Symmetric())
    m.double()
    assert m.parametrizations.weight.original.dtype == minitorch.float64
    assert m.weight.dtype == minitorch.float64


def test_transfer_parametrizations_and_params():
    a = nn.Linear(3, 3)
    P.register_parametrization(a, "weight", Symmetric())
    b = nn.Linear(3, 3)
    P.transfer_parametrizations_and_params(a, b)
    assert P.is_parametrized(b, "weight")
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    np.testing.assert_array_equal(npy(b.weight), npy(a.weight))


class ToDouble(nn.Module):
    def forward(self, X):
        return X.double()


class FirstRows(nn.Module):
    def forward(self, X):
        return X[:2]


class ReturnsTuple(nn.Module):
    def forward(self, X):
        return (X,)


class BadInverse(nn.Module):
    def forward(self, X):
        return X

    def right_inverse(self, X):
        return 3


class DtypeInverse(nn.Module):
    def forward(self, X):
        return X.float()

    def right_inverse(self, X):
        return X.double()


@pytest.mark.parametrize(
    "param, match",
    [
        (
            ToDouble(),
            (
                "^Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag is "
                "enabled.\nunparametrized dtype: torch.float32\nparametrized dtype: torch.float64$"
            ),
        ),
        (
            FirstRows(),
            (
                "^Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag is "
                "enabled.\nunparametrized shape: torch.Size\\(\\[4, 3\\]\\)\nparametrized shape: "
                "torch.Size\\(\\[2, 3\\]\\)$"
            ),
        ),
        (ReturnsTuple(), "^A parametrization must return a tensor. Got tuple.$"),
        (
            BadInverse(),
            "^'right_inverse' must return a Tensor or a Sequence of tensors \\(list, tuple...\\). Got int$",
        ),
        (DtypeInverse(), "^When `right_inverse` outputs one tensor, it may not change the dtype."),
    ],
)
def test_register_checks(param, match):
    m = nn.Linear(3, 4)
    with pytest.raises(ValueError, match=match):
        P.register_parametrization(m, "weight", param)
    # nothing registered
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)


def test_unsafe_allows_shape_and_dtype_change():
    m = nn.Linear(3, 4)
    P.register_parametrization(m, "weight", FirstRows(), unsafe=True)
    assert m.weight.shape == (2, 3)
    m2 = nn.Linear(3, 4)
    P.register_parametrization(m2, "weight", ToDouble(), unsafe=True)
    assert m2.weight.dtype == minitorch.float64


def test_chained_checks():
    m = nn.Linear(3, 4)
    P.register_parametrization(m, "weight", NoInverse())
    with pytest.raises(
        ValueError, match="unless the `unsafe` flag is enabled.\nmodule.weight.dtype: torch.float32\n"
    ):
        P.register_parametrization(m, "weight", ToDouble())
    with pytest.raises(
        ValueError, match="\nparametrization\\(module.weight\\).shape: torch.Size\\(\\[2, 3\\]\\)$"
    ):
        P.register_parametrization(m, "weight", FirstRows())
    with pytest.raises(ValueError, match="^A parametrization must return a tensor. Got tuple.$"):
        P.register_parametrization(m, "weight", ReturnsTuple())
    assert len(m.parametrizations.weight) == 1
    P.register_parametrization(m, "weight", ToDouble(), unsafe=True)
    assert m.parametrizations.weight.unsafe and m.weight.dtype == minitorch.float64


def test_missing_name_and_remove_unparametrized():
    m = nn.Linear(3, 4)
    with pytest.raises(
        ValueError,
        match="^Module 'Linear\\(in_features=3, out_features=4, bias=True\\)' does not "
        "have a parameter, a buffer, or a parametrized element with name 'foo'$",
    ):
        P.register_parametrization(m, "foo", Scale(2.0))
    with pytest.raises(
        ValueError,
        match="^Module Linear\\(in_features=3, out_features=4, bias=True\\) does not have "
        "a parametrization on weight$",
    ):
        P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear


def test_repr_matches_pytorch():
    m = nn.Linear(2, 2)
    P.register_parametrization(m, "weight", Symmetric())
    assert repr(m) == (
        "ParametrizedLinear(\n  in_features=2, out_features=2, bias=True\n  (parametrizations): ModuleDict(\n"
        "    (weight): ParametrizationList(\n      (0): Symmetric()\n    )\n  )\n)"
    )


# ---- parametrizations.weight_norm
def _np_weight_norm(g, v, dim):
    if dim is None or dim == -1:
        return g * v / np.linalg.norm(v)
    axes = tuple(d for d in range(v.ndim) if d != dim % v.ndim)
    return g * v / np.sqrt((v * v).sum(axis=axes, keepdims=True))


@pytest.mark.parametrize("dim", [0, 1, -2, None])
def test_weight_norm_values(dim, device):
    m = nn.Conv2d(3, 4, 3).double().to(device)
    w = npy(m.weight)
    PZ.weight_norm(m, dim=dim)
    plist = m.parametrizations.weight
    g, v = npy(plist.original0), npy(plist.original1)
    np.testing.assert_allclose(v, w)
    if dim is None:
        assert plist.original0.shape == ()
        np.testing.assert_allclose(g, np.linalg.norm(w))
    else:
        shape = [1] * 4
        shape[dim % 4] = w.shape[dim % 4]
        assert list(plist.original0.shape) == shape
    # at registration the weight is unchanged
    np.testing.assert_allclose(npy(m.weight), w, rtol=1e-12)
    with minitorch.no_grad():
        plist.original0.mul_(2.0)
    np.testing.assert_allclose(npy(m.weight), _np_weight_norm(2 * g, v, dim), rtol=1e-12)
    assert list(m.state_dict()) == [
        "bias",
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]


def test_weight_norm_gradcheck():
    m = nn.Linear(3, 4).double()
    PZ.weight_norm(m)
    wn = m.parametrizations.weight[0]
    g = m.parametrizations.weight.original0.detach().clone().requires_grad_(True)
    v = m.parametrizations.weight.original1.detach().clone().requires_grad_(True)
    x = minitorch.randn(2, 3, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda g, v, x: x @ wn(g, v).mT, (g, v, x))


def test_weight_norm_loads_legacy_state_dict():
    legacy = nn.Linear(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        nn.utils.weight_norm(legacy)
    sd = legacy.state_dict()
    assert list(sd) == ["bias", "weight_g", "weight_v"]
    new = nn.Linear(3, 4)
    PZ.weight_norm(new)
    new.load_state_dict(sd)
    x = minitorch.randn(5, 3)
    np.testing.assert_allclose(npy(new(x)), npy(legacy(x)), rtol=1e-6)


def test_weight_norm_bad_dim():
    with pytest.raises(
        IndexError, match="^Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got 5\\)$"
    ):
        PZ.weight_norm(nn.Linear(3, 4), dim=5)


# ---- parametrizations.spectral_norm
def _with_singular_values(shape, s, seed=0):
    rng = np.random.default_rng(seed)
    h, w = shape[0], int(np.prod(shape[1:]))
    U, _ = np.linalg.qr(rng.standard_normal((h, h)))
    V, _ = np.linalg.qr(rng.standard_normal((w, w)))
    S = np.zeros((h, w))
    S[: len(s), : len(s)] = np.diag(s)
    return (U @ S @ V.T).reshape(shape)


def test_spectral_norm_sigma_matches_svd(device):
    m = nn.Linear(6, 5).double().to(device)
    W = _with_singular_values((5, 6), [5.0, 2.0, 1.0, 0.5, 0.1])
    with minitorch.no_grad():
        m.weight.copy_(t64(W))
    PZ.spectral_norm(m)
    Wn = npy(m.weight)
    np.testing.assert_allclose(np.linalg.norm(Wn, 2), 1.0, rtol=1e-8)
    np.testing.assert_allclose(Wn, W / 5.0, rtol=1e-8, atol=1e-12)
    sn = m.parametrizations.weight[0]
    u, v = npy(sn._u), npy(sn._v)
    # u, v are unit singular vectors for the largest singular value
    np.testing.assert_allclose(np.linalg.norm(u), 1.0, rtol=1e-12)
    np.testing.assert_allclose(abs(u @ W @ v), 5.0, rtol=1e-8)
    assert list(m.state_dict()) == [
        "bias",
        "parametrizations.weight.original",
        "parametrizations.weight.0._u",
        "parametrizations.weight.0._v",
    ]


def test_spectral_norm_power_iteration_only_in_training():
    minitorch.manual_seed(0)
    m = nn.Linear(4, 3).double()
    PZ.spectral_norm(m, n_power_iterations=3)
    sn = m.parametrizations.weight[0]
    # move u away from the fixed point, then check one access does exactly n_power_iterations steps
    with minitorch.no_grad():
        sn._u.copy_(t64([1.0, 0.0, 0.0]))
        sn._v.copy_(t64([0.5, 0.5, 0.5, 0.5]))
    W = npy(m.parametrizations.weight.original)
    u, v = np.array([1.0, 0, 0]), np.full(4, 0.5)
    for _ in range(3):
        u = W @ v
        u /= np.linalg.norm(u)
        v = W.T @ u
        v /= np.linalg.norm(v)
    Wn = npy(m.weight)
    np.testing.assert_allclose(npy(sn._u), u, rtol=1e-12)
    np.testing.assert_allclose(npy(sn._v), v, rtol=1e-12)
    np.testing.assert_allclose(Wn, W / (u @ W @ v), rtol=1e-12)
    m.eval()
    before = npy(sn._u)
    m.weight  # noqa: B018
    m.weight  # noqa: B018
    np.testing.assert_array_equal(npy(sn._u), before)


def test_spectral_norm_dim_and_vector():
    m = nn.ConvTranspose2d(3, 5, 2).double()
    W = npy(m.weight)  # (3, 5, 2, 2): outputs on dim 1
    PZ.spectral_norm(m)
    sn = m.parametrizations.weight[0]
    assert sn.dim == 1 and sn._u.shape == (5,) and sn._v.shape == (12,)
    mat = np.moveaxis(W, 1, 0).reshape(5, -1)
    sigma = np.linalg.norm(mat, 2)
    for _ in range(30):
        m.weight  # noqa: B018  (more power iterations: converge to the top singular value)
    np.testing.assert_allclose(npy(m.weight), W / sigma, rtol=1e-6)
    b = nn.Module()
    b.register_buffer("w", t64([3.0, 4.0]))
    PZ.spectral_norm(b, "w")
    np.testing.assert_allclose(npy(b.w), [0.6, 0.8])


def test_spectral_norm_gradcheck_eval():
    m = nn.Linear(3, 4).double()
    PZ.spectral_norm(m)
    m.eval()
    sn = m.parametrizations.weight[0]
    W = m.parametrizations.weight.original.detach().clone().requires_grad_(True)
    assert gradcheck(lambda w: sn(w), (W,))


def test_spectral_norm_errors():
    with pytest.raises(
        IndexError, match="^Dimension out of range \\(expected to be in range of \\[-2, 1\\] but got 2\\)$"
    ):
        PZ.spectral_norm(nn.Linear(3, 4), dim=2)
    with pytest.raises(
        ValueError, match="^Expected n_power_iterations to be positive, but got n_power_iterations=0$"
    ):
        PZ.spectral_norm(nn.Linear(3, 4), n_power_iterations=0)
    with pytest.raises(
        ValueError,
        match="^Module 'Linear\\(in_features=3, out_features=4, bias=True\\)' has no "
        "parameter or buffer with name 'foo'$",
    ):
        PZ.spectral_norm(nn.Linear(3, 4), name="foo")


def test_spectral_norm_state_dict_round_trip():
    a = nn.Linear(4, 3)
    PZ.spectral_norm(a)
    a.eval()
    b = nn.Linear(4, 3)
    PZ.spectral_norm(b)
    b.eval()
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(npy(b.weight), npy(a.weight))


# ---- parametrizations.orthogonal (needs minitorch.linalg's qr / matrix_exp / solve / householder_product)
def _linalg_works():
    # the functions exist and run (the decompositions are being added to minitorch.linalg in C++)
    from minitorch.nn.utils.parametrizations import _find_linalg

    a = minitorch.tensor([[2.0, 1.0], [0.5, 3.0]], dtype=minitorch.float64)
    try:
        _find_linalg("qr")(a)
        _find_linalg("matrix_exp")(a)
        _find_linalg("solve")(a, a)
        _find_linalg("householder_product")(a, minitorch.tensor([1.0, 0.5], dtype=minitorch.float64))
    except Exception:  # noqa: BLE001 - missing or not built yet: the orthogonal tests skip
        return False
    return True


needs_orth_linalg = pytest.mark.skipif(
    not _linalg_works(),
    reason="orthogonal needs minitorch.linalg.qr/matrix_exp/solve/householder_product (lead, issue 33)",
)


def _assert_orthogonal(Q, rtol=1e-10):
    Q = npy(Q)
    if Q.shape[-2] >= Q.shape[-1]:
        np.testing.assert_allclose(
            np.swapaxes(Q, -1, -2) @ Q,
            np.broadcast_to(np.eye(Q.shape[-1]), Q.shape[:-2] + (Q.shape[-1],) * 2),
            atol=rtol,
        )
    else:
        np.testing.assert_allclose(
            Q @ np.swapaxes(Q, -1, -2),
            np.broadcast_to(np.eye(Q.shape[-2]), Q.shape[:-2] + (Q.shape[-2],) * 2),
            atol=rtol,
        )


@needs_orth_linalg
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 3)])
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("triv", [True, False])
def test_orthogonal_is_orthogonal_and_trains(shape, omap, triv):
    minitorch.manual_seed(0)
    m = nn.Module()
    m.weight = nn.Parameter(minitorch.randn(shape, dtype=minitorch.float64))
    PZ.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
    _assert_orthogonal(m.weight)
    assert m.weight.shape == shape
    orig = m.parametrizations.weight.original
    opt = minitorch.optim.SGD([orig], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        (
            m.weight * minitorch.arange(float(np.prod(shape)), dtype=minitorch.float64).reshape(shape)
        ).sum().backward()
        opt.step()
    _assert_orthogonal(m.weight)


@needs_orth_linalg
def test_orthogonal_keeps_an_orthogonal_initial_value_and_assignment():
    m = nn.Linear(4, 4).double()
    Q, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((4, 4)))
    with minitorch.no_grad():
        m.weight.copy_(t64(Q))
    PZ.orthogonal(m)
    np.testing.assert_allclose(npy(m.weight), Q, atol=1e-10)
    Q2, _ = np.linalg.qr(np.random.default_rng(2).standard_normal((4, 4)))
    m.weight = t64(Q2)
    np.testing.assert_allclose(npy(m.weight), Q2, atol=1e-10)
    # a non-orthogonal value is orthogonalized: the Q of its QR with diag(R) >= 0
    A = np.random.default_rng(3).standard_normal((4, 4))
    m.weight = t64(A)
    q, r = np.linalg.qr(A)
    np.testing.assert_allclose(npy(m.weight), q * np.sign(np.diag(r)), atol=1e-10)


@needs_orth_linalg
@pytest.mark.parametrize("omap, shape", [("matrix_exp", (3, 3)), ("cayley", (3, 3)), ("householder", (4, 2))])
def test_orthogonal_gradcheck(omap, shape):
    m = nn.Linear(shape[1], shape[0]).double()
    PZ.orthogonal(m, orthogonal_map=omap)
    orth = m.parametrizations.weight[0]
    X = minitorch.randn(shape, dtype=minitorch.float64)
    # householder reads the diagonal's sign through .int(): keep it away from the integers, where that jumps
    X.diagonal().copy_(minitorch.tensor([1.5, -1.5, 2.5][: min(shape)], dtype=minitorch.float64))
    assert gradcheck(lambda x: orth(x), (X.requires_grad_(True),))


@needs_orth_linalg
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley"])
def test_orthogonal_without_trivialization_values(omap):
    import scipy.linalg

    W = np.random.default_rng(4).standard_normal((5, 3))
    m = nn.Module()
    m.weight = nn.Parameter(t64(W))
    PZ.orthogonal(m, orthogonal_map=omap, use_trivialization=False)
    # the original stays W; Q is the map of the skew matrix from tril(W) padded to 5x5, first 3 columns
    np.testing.assert_array_equal(npy(m.parametrizations.weight.original), W)
    X = np.zeros((5, 5))
    X[:, :3] = np.tril(W)
    A = X - X.T
    if omap == "matrix_exp":
        Q = scipy.linalg.expm(A)
    else:
        Q = np.linalg.solve(np.eye(5) - A / 2, np.eye(5) + A / 2)
    np.testing.assert_allclose(npy(m.weight), Q[:, :3], atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3)])
def test_geqrf_fallback_matches_lapack(shape):
    import scipy.linalg

    from minitorch.nn.utils.parametrizations import _geqrf_py

    A = np.random.default_rng(5).standard_normal(shape)
    a, tau = _geqrf_py(t64(A))
    for i, Ai in enumerate(A.reshape(-1, *shape[-2:])):
        (raw, tau_ref), _ = scipy.linalg.qr(Ai, mode="raw")
        np.testing.assert_allclose(npy(a).reshape(-1, *shape[-2:])[i], raw, atol=1e-13)
        np.testing.assert_allclose(npy(tau).reshape(-1, tau.shape[-1])[i], tau_ref, atol=1e-13)


def test_orthogonal_errors():
    with pytest.raises(
        ValueError, match="^Expected a matrix or batch of matrices. Got a tensor of 1 dimensions.$"
    ):
        PZ.orthogonal(nn.Linear(3, 4), "bias")
    with pytest.raises(
        ValueError, match='^orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: foo$'
    ):
        PZ.orthogonal(nn.Linear(3, 4), orthogonal_map="foo")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        PZ.orthogonal(nn.Linear(3, 4), "nope")


# ---- the legacy hooks
def _legacy_weight_norm(m, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return nn.utils.weight_norm(m, **kw)


def test_legacy_weight_norm_layout_hook_and_remove():
    m = nn.Linear(3, 4).double()
    w = npy(m.weight)
    with pytest.warns(
        FutureWarning,
        match="`torch.nn.utils.weight_norm` is deprecated in favor of "
        "`torch.nn.utils.parametrizations.weight_norm`.",
    ):
        nn.utils.weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(npy(m.weight_g), np.linalg.norm(w, axis=1, keepdims=True), rtol=1e-12)
    with minitorch.no_grad():
        m.weight_g.mul_(3.0)
    x = minitorch.randn(2, 3, dtype=minitorch.float64)
    out = m(x)  # the pre-hook recomputes the weight
    np.testing.assert_allclose(npy(m.weight), 3 * w, rtol=1e-12)
    np.testing.assert_allclose(npy(out), npy(x) @ (3 * w).T + npy(m.bias), rtol=1e-12)
    out.sum().backward()
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    with pytest.raises(
        RuntimeError, match="^Cannot register two weight_norm hooks on the same parameter weight$"
    ):
        _legacy_weight_norm(m)
    with pytest.raises(ValueError, match="^weight_norm of 'bias' not found in Linear"):
        nn.utils.remove_weight_norm(m, "bias")
    nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(npy(m.weight), 3 * w, rtol=1e-12)
    assert not m._forward_pre_hooks


def test_legacy_weight_norm_dim_none_gradcheck():
    m = _legacy_weight_norm(nn.Linear(3, 2).double(), dim=None)
    assert m.weight_g.shape == ()
    g = m.weight_g.detach().clone().requires_grad_(True)
    v = m.weight_v.detach().clone().requires_grad_(True)
    fn = next(iter(m._forward_pre_hooks.values()))

    def f(g, v):
        m._parameters["weight_g"], m._parameters["weight_v"] = g, v
        return fn.compute_weight(m)

    assert gradcheck(f, (g, v))


def test_legacy_spectral_norm_layout_and_values():
    minitorch.manual_seed(0)
    m = nn.utils.spectral_norm(nn.Linear(5, 4).double())
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_u", "weight_v"]
    sd = m.state_dict()
    assert list(sd) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert sd._metadata[""]["spectral_norm"] == {"weight.version": 1}
    W = npy(m.weight_orig)
    u, v = npy(m.weight_u), npy(m.weight_v)
    x = minitorch.randn(2, 5, dtype=minitorch.float64)
    m(x)
    # one training-mode step: v = normalize(W^T u), u = normalize(W v), weight = W / (u . W v)
    v = W.T @ u
    v /= np.linalg.norm(v)
    u = W @ v
    u /= np.linalg.norm(u)
    np.testing.assert_allclose(npy(m.weight_u), u, rtol=1e-12)
    np.testing.assert_allclose(npy(m.weight_v), v, rtol=1e-12)
    np.testing.assert_allclose(npy(m.weight), W / (u @ W @ v), rtol=1e-12)
    m.eval()
    m(x)
    np.testing.assert_allclose(npy(m.weight_u), u, rtol=1e-12)
    # state_dict round trip into a fresh spectral-normed module
    m2 = nn.utils.spectral_norm(nn.Linear(5, 4).double())
    m2.load_state_dict(m.state_dict())
    m2.eval()
    np.testing.assert_allclose(npy(m2(x)), npy(m(x)), rtol=1e-12)
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    assert not m._forward_pre_hooks and not m._state_dict_hooks and not m._load_state_dict_pre_hooks


def _pinv_works():
    try:
        minitorch.linalg.pinv(minitorch.eye(2, dtype=minitorch.float64))
    except Exception:  # noqa: BLE001 - missing or not built yet
        return False
    return True


@pytest.mark.skipif(not _pinv_works(), reason="needs minitorch.linalg.pinv (lead, issue 33)")
def test_legacy_spectral_norm_loads_version0_state_dict():
    # version 0 saved the normalized weight and no weight_v: v is solved for on load
    src = nn.utils.spectral_norm(nn.Linear(4, 3).double())
    src(minitorch.randn(1, 4, dtype=minitorch.float64))
    src.eval()
    sd = src.state_dict()
    sd["weight"] = src.weight.detach().clone()
    del sd["weight_v"]
    del sd._metadata[""]["spectral_norm"]
    dst = nn.utils.spectral_norm(nn.Linear(4, 3).double())
    dst.load_state_dict(sd)
    dst.eval()
    x = minitorch.randn(2, 4, dtype=minitorch.float64)
    np.testing.assert_allclose(npy(dst(x)), npy(src(x)), rtol=1e-8)


def test_legacy_spectral_norm_gradient_flows_to_weight_orig():
    m = nn.utils.spectral_norm(nn.Linear(3, 3).double())
    m(minitorch.randn(2, 3, dtype=minitorch.float64)).sum().backward()
    assert m.weight_orig.grad is not None and m.weight_orig.grad.abs().sum().item() > 0


def test_legacy_spectral_norm_errors():
    m = nn.utils.spectral_norm(nn.Linear(3, 4))
    with pytest.raises(
        RuntimeError, match="^Cannot register two spectral_norm hooks on the same parameter weight$"
    ):
        nn.utils.spectral_norm(m)
    with pytest.raises(ValueError, match="^spectral_norm of 'bias' not found in Linear"):
        nn.utils.remove_spectral_norm(m, "bias")
    with pytest.raises(ValueError, match="^`SpectralNorm` cannot be applied as parameter `bias` is None$"):
        nn.utils.spectral_norm(nn.Linear(3, 4, bias=False), name="bias")
    with pytest.raises(ValueError, match="^Expected n_power_iterations to be positive"):
        nn.utils.spectral_norm(nn.Linear(3, 4), n_power_iterations=-1)
    with pytest.raises(KeyError):
        nn.utils.spectral_norm(nn.Linear(3, 4), name="foo")


def test_load_state_dict_pre_hook_can_rename_keys():
    # the Module hook that weight_norm's legacy-key conversion relies on
    m = nn.Sequential(nn.Linear(2, 2))
    seen = []

    def hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        seen.append((type(module).__name__, prefix))
        if prefix + "w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")

    handle = m[0].register_load_state_dict_pre_hook(hook)
    sd = {"0.w": minitorch.ones(2, 2), "0.bias": minitorch.zeros(2)}
    m.load_state_dict(sd)
    assert seen == [("Linear", "0.")]
    np.testing.assert_array_equal(npy(m[0].weight), np.ones((2, 2)))
    handle.remove()
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0.weight"'):
        m.load_state_dict({"0.w": minitorch.ones(2, 2), "0.bias": minitorch.zeros(2)})
