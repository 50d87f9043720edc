"""nn.utils.prune: masks against NumPy (smallest |w|, smallest channel norms, global thresholds), the
weight_orig/weight_mask layout and forward pre-hook, iterative pruning combining masks, remove, gradients
through the mask, state_dict round trips and PyTorch's errors for bad amounts, dims and arguments."""

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn.utils import prune


def npy(t):
    return t.detach().double().cpu().numpy().copy()


def set_weights(m, seed=0):
    rng = np.random.default_rng(seed)
    with minitorch.no_grad():
        for p in m.parameters():
            # distinct magnitudes: no ties in the rankings
            p.copy_(
                minitorch.tensor(rng.permutation(p.numel()).reshape(tuple(p.shape)) + 1.0)
                * minitorch.tensor(rng.choice([-1.0, 1.0], size=tuple(p.shape)))
                / 10
            )
    return m


def assert_pruned_layout(m, name="weight"):
    assert name not in m._parameters
    assert name + "_orig" in m._parameters and name + "_mask" in m._buffers
    assert any(isinstance(h, prune.BasePruningMethod) for h in m._forward_pre_hooks.values())
    np.testing.assert_array_equal(
        npy(getattr(m, name)), npy(getattr(m, name + "_orig")) * npy(getattr(m, name + "_mask"))
    )


# ---- the single methods
@pytest.mark.parametrize("amount, k", [(0.3, 4), (5, 5), (0, 0), (1.0, 12), (0.5, 6)])
def test_l1_unstructured_prunes_smallest_magnitudes(amount, k, device):
    m = set_weights(nn.Linear(3, 4)).to(device)
    w0 = m.weight
    W = npy(m.weight)
    prune.l1_unstructured(m, "weight", amount=amount)
    assert m.weight_orig is w0  # the Parameter object moves, optimizers keep it
    expect = np.ones(12)
    expect[np.argsort(np.abs(W).ravel())[:k]] = 0
    np.testing.assert_array_equal(npy(m.weight_mask).ravel(), expect)
    assert m.weight_mask.dtype == minitorch.float32 and not m.weight_mask.requires_grad
    assert_pruned_layout(m)
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert prune.is_pruned(m)


def test_amount_rounding_is_python_round():
    # 0.125 * 12 = 1.5 -> 2 (round half to even), 0.375 * 12 = 4.5 -> 4
    for amount, k in [(0.125, 2), (0.375, 4)]:
        m = set_weights(nn.Linear(3, 4))
        prune.l1_unstructured(m, "weight", amount=amount)
        assert int((npy(m.weight_mask) == 0).sum()) == k


def test_importance_scores():
    m = set_weights(nn.Linear(2, 2))
    scores = minitorch.tensor([[4.0, 1.0], [3.0, 2.0]])
    prune.l1_unstructured(m, "weight", amount=2, importance_scores=scores)
    np.testing.assert_array_equal(npy(m.weight_mask), [[1, 0], [1, 0]])
    with pytest.raises(
        AssertionError, match="importance_scores should have the same shape as parameter bias of "
    ):
        prune.l1_unstructured(m, "bias", amount=1, importance_scores=minitorch.ones(3))


def test_random_unstructured_count_and_seed():
    m = nn.Linear(10, 10)
    minitorch.manual_seed(3)
    prune.random_unstructured(m, "weight", amount=0.37)
    assert int((npy(m.weight_mask) == 0).sum()) == 37
    mask1 = npy(m.weight_mask)
    m2 = nn.Linear(10, 10)
    minitorch.manual_seed(3)
    prune.random_unstructured(m2, "weight", amount=0.37)
    np.testing.assert_array_equal(npy(m2.weight_mask), mask1)
    assert_pruned_layout(m)


def _np_norms(W, n, dim):
    axes = tuple(d for d in range(W.ndim) if d != dim % W.ndim)
    Wm = np.moveaxis(W, dim, 0).reshape(W.shape[dim], -1)
    if n == "fro" or n == 2:
        return np.sqrt((W * W).sum(axis=axes))
    if n == float("inf"):
        return np.abs(W).max(axis=axes)
    if n == float("-inf"):
        return np.abs(W).min(axis=axes)
    return (np.abs(Wm) ** n).sum(1) ** (1 / n)


@pytest.mark.parametrize("n", [1, 2, 3, float("inf"), float("-inf"), "fro"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured_prunes_smallest_channels(n, dim):
    m = set_weights(nn.Conv2d(3, 5, 2))
    W = npy(m.weight)
    prune.ln_structured(m, "weight", amount=0.4, n=n, dim=dim)
    size = W.shape[dim]
    k = round(0.4 * size)
    norms = _np_norms(W, n, dim)
    pruned = np.argsort(norms)[:k]
    keep = np.ones(size)
    keep[pruned] = 0
    shape = [1] * 4
    shape[dim] = -1
    np.testing.assert_array_equal(npy(m.weight_mask), np.broadcast_to(keep.reshape(shape), W.shape))
    assert_pruned_layout(m)


@pytest.mark.parametrize("n", ["nuc", "fro"])
def test_ln_structured_matrix_norms(n):
    # a 3-D weight: each channel along dim 0 is a matrix, ranked by its nuclear / Frobenius norm
    m = nn.Conv1d(3, 4, 5)
    W = npy(m.weight)
    try:
        prune.ln_structured(m, "weight", amount=1, n=n, dim=0)
    except NotImplementedError:
        pytest.skip("matrix_norm('nuc') needs an SVD (lead, issue 33)")
    norms = [np.linalg.norm(W[i], n) for i in range(4)]
    expect = np.ones(4)
    expect[int(np.argmin(norms))] = 0
    np.testing.assert_array_equal(npy(m.weight_mask).reshape(4, -1).max(1), expect)
    np.testing.assert_array_equal(npy(m.weight_mask).reshape(4, -1).min(1), expect)


def test_random_structured_prunes_whole_channels():
    m = nn.Conv2d(4, 6, 3)
    minitorch.manual_seed(0)
    prune.random_structured(m, "weight", amount=2, dim=0)
    per_channel = npy(m.weight_mask).reshape(6, -1)
    assert sorted(per_channel.min(1)) == [0, 0, 1, 1, 1, 1]
    assert (per_channel.min(1) == per_channel.max(1)).all()
    assert_pruned_layout(m)


def test_identity_and_custom_from_mask():
    m = nn.Linear(2, 3)
    prune.identity(m, "weight")
    np.testing.assert_array_equal(npy(m.weight_mask), np.ones((3, 2)))
    mask = minitorch.tensor([[1, 0], [0, 1], [1, 1]])
    prune.custom_from_mask(m, "bias", mask=minitorch.tensor([0, 1, 0]))
    np.testing.assert_array_equal(npy(m.bias), [0, npy(m.bias_orig)[1], 0])
    prune.custom_from_mask(m, "weight", mask=mask)
    np.testing.assert_array_equal(npy(m.weight_mask), npy(mask))
    assert isinstance(
        next(h for h in m._forward_pre_hooks.values() if h._tensor_name == "weight"), prune.PruningContainer
    )


# ---- iterative pruning
def test_iterative_unstructured_acts_on_what_is_left():
    m = set_weights(nn.Linear(4, 4))
    W = np.abs(npy(m.weight)).ravel()
    prune.l1_unstructured(m, "weight", amount=0.5)
    prune.l1_unstructured(m, "weight", amount=0.5)
    # 8 pruned, then half of the 8 left: the 12 smallest in all
    expect = np.ones(16)
    expect[np.argsort(W)[:12]] = 0
    np.testing.assert_array_equal(npy(m.weight_mask).ravel(), expect)
    hooks = [h for h in m._forward_pre_hooks.values()]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer) and len(hooks[0]) == 2
    assert [type(h).__name__ for h in hooks[0]] == ["L1Unstructured", "L1Unstructured"]
    prune.random_unstructured(m, "weight", amount=2)
    assert int(npy(m.weight_mask).sum()) == 2 and len(hooks[0]) == 3


def test_structured_after_unstructured_uses_live_channels():
    m = set_weights(nn.Linear(3, 4))
    # kill row 1 entirely, then prune 1 of the 3 rows still alive by L2 norm
    prune.custom_from_mask(m, "weight", mask=minitorch.tensor([[1, 1, 1], [0, 0, 0], [1, 1, 1], [1, 1, 1]]))
    W = npy(m.weight_orig)
    prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    live = [0, 2, 3]
    norms = np.linalg.norm(W[live], axis=1)
    dead = live[int(np.argmin(norms))]
    expect = np.ones((4, 3))
    expect[[1, dead]] = 0
    np.testing.assert_array_equal(npy(m.weight_mask), expect)


def test_forward_hook_recomputes_weight_and_gradient_is_masked():
    m = set_weights(nn.Linear(3, 2)).double()
    prune.l1_unstructured(m, "weight", amount=3)
    mask = npy(m.weight_mask)
    with minitorch.no_grad():
        m.weight_orig.add_(1.0)
    x = minitorch.randn(4, 3, dtype=minitorch.float64)
    out = m(x)
    np.testing.assert_allclose(npy(out), npy(x) @ (npy(m.weight_orig) * mask).T + npy(m.bias), rtol=1e-12)
    out.sum().backward()
    # dL/dW_orig = mask * x^T 1
    np.testing.assert_allclose(npy(m.weight_orig.grad), mask * npy(x).sum(0)[None, :], rtol=1e-12)


def test_training_keeps_pruned_entries_zero():
    minitorch.manual_seed(0)
    m = nn.Linear(5, 3)
    prune.l1_unstructured(m, "weight", amount=0.6)
    opt = minitorch.optim.SGD(m.parameters(), lr=0.5)
    for _ in range(3):
        opt.zero_grad()
        m(minitorch.randn(8, 5)).pow(2).sum().backward()
        opt.step()
    m(minitorch.randn(1, 5))
    assert (npy(m.weight)[npy(m.weight_mask) == 0] == 0).all()


# ---- global pruning
def test_global_unstructured_single_threshold():
    a, b = nn.Linear(4, 3), nn.Linear(3, 2)  # random init: no ties in |w| across the tensors
    all_w = np.concatenate(
        [np.abs(npy(a.weight)).ravel(), np.abs(npy(b.weight)).ravel(), np.abs(npy(a.bias))]
    )
    params = [(a, "weight"), (b, "weight"), (a, "bias")]
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.5)
    k = round(0.5 * all_w.size)
    threshold = np.sort(all_w)[k - 1]
    for mod, name in params:
        np.testing.assert_array_equal(
            npy(getattr(mod, name + "_mask")),
            (np.abs(npy(getattr(mod, name + "_orig"))) > threshold).astype(float),
        )
    total = sum(int((npy(getattr(mod, name)) == 0).sum()) for mod, name in params)
    assert total == k
    # the layers lose different fractions, which is the point of pruning globally
    fa = (npy(a.weight) == 0).mean()
    fb = (npy(b.weight) == 0).mean()
    assert fa != fb or fa == 0.5


def test_global_unstructured_importance_scores_and_already_pruned():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    prune.custom_from_mask(a, "weight", mask=minitorch.tensor([[0, 1], [1, 1]]))
    scores = {
        (a, "weight"): minitorch.tensor([[9.0, 1.0], [2.0, 8.0]]),
        (b, "weight"): minitorch.tensor([[3.0, 7.0], [6.0, 5.0]]),
    }
    prune.global_unstructured(
        [(a, "weight"), (b, "weight")], prune.L1Unstructured, importance_scores=scores, amount=3
    )
    # a[0,0] was already pruned; the 3 smallest live scores are 1, 2, 3
    np.testing.assert_array_equal(npy(a.weight_mask), [[0, 0], [0, 1]])
    np.testing.assert_array_equal(npy(b.weight_mask), [[0, 1], [1, 1]])


def test_global_unstructured_errors():
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="^global_unstructured\\(\\): parameters is not an Iterable$"):
        prune.global_unstructured(3, prune.L1Unstructured, amount=1)
    with pytest.raises(
        TypeError, match="^global_unstructured\\(\\): importance_scores must be of type dict$"
    ):
        prune.global_unstructured([(m, "weight")], prune.L1Unstructured, importance_scores=[1], amount=1)
    with pytest.raises(
        TypeError,
        match='^Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
        "Found method <class 'minitorch.nn.utils.prune.LnStructured'> of type structured$",
    ):
        prune.global_unstructured([(m, "weight")], prune.LnStructured, amount=1, n=1, dim=0)
    assert not prune.is_pruned(m)


# ---- remove
def test_remove_makes_pruning_permanent():
    m = set_weights(nn.Linear(3, 4))
    orig = m.weight
    prune.l1_unstructured(m, "weight", amount=0.5)
    prune.ln_structured(m, "weight", amount=1, n=1, dim=1)
    pruned = npy(m.weight)
    prune.remove(m, "weight")
    assert m.weight is orig and isinstance(m.weight, nn.Parameter)
    np.testing.assert_array_equal(npy(m.weight), pruned)
    assert list(m.state_dict()) == ["bias", "weight"]
    assert not m._forward_pre_hooks and not prune.is_pruned(m)
    with pytest.raises(
        ValueError,
        match="^Parameter 'weight' of module Linear\\(in_features=3, out_features=4, "
        "bias=True\\) has to be pruned before pruning can be removed$",
    ):
        prune.remove(m, "weight")


def test_is_pruned_looks_at_submodules():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2)))
    assert not prune.is_pruned(net)
    prune.random_unstructured(net[1][0], "bias", amount=1)
    assert prune.is_pruned(net)


def test_state_dict_round_trip():
    a = set_weights(nn.Linear(3, 3))
    prune.l1_unstructured(a, "weight", amount=4)
    b = nn.Linear(3, 3)
    prune.identity(b, "weight")
    b.load_state_dict(a.state_dict())
    x = minitorch.randn(2, 3)
    np.testing.assert_array_equal(npy(b(x)), npy(a(x)))
    np.testing.assert_array_equal(npy(b.weight_mask), npy(a.weight_mask))


# ---- the method objects
class EveryOther(prune.BasePruningMethod):
    """The tutorial's custom method: zeros every other entry still alive."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def test_custom_method_subclass():
    m = nn.Linear(3, 2)
    EveryOther.apply(m, "bias")
    np.testing.assert_array_equal(npy(m.bias_mask), [0, 1])
    EveryOther.apply(m, "weight")
    np.testing.assert_array_equal(npy(m.weight_mask).ravel(), [0, 1, 0, 1, 0, 1])
    # again: acts on the 3 live entries only
    EveryOther.apply(m, "weight")
    np.testing.assert_array_equal(npy(m.weight_mask).ravel(), [0, 0, 0, 1, 0, 0])


def test_prune_method_on_a_tensor():
    t = minitorch.tensor([[0.5, -3.0], [2.0, 0.1]])
    out = prune.L1Unstructured(amount=2).prune(t)
    np.testing.assert_array_equal(npy(out), [[0, -3], [2, 0]])
    out = prune.L1Unstructured(amount=1).prune(
        t, importance_scores=minitorch.tensor([[9.0, 0.0], [5.0, 5.0]])
    )
    np.testing.assert_array_equal(npy(out), np.float32([[0.5, 0], [2, 0.1]]))
    with pytest.raises(AssertionError, match="importance_scores should have the same shape as tensor t"):
        prune.L1Unstructured(amount=1).prune(t, importance_scores=minitorch.ones(3))


def test_pruning_container_checks():
    a = prune.L1Unstructured(0.2)
    a._tensor_name = "weight"
    c = prune.PruningContainer(a)
    assert c._tensor_name == "weight" and len(c) == 1 and c[0] is a
    b = prune.L1Unstructured(0.2)
    b._tensor_name = "bias"
    with pytest.raises(
        ValueError,
        match="^Can only add pruning methods acting on the parameter named 'weight' to "
        "PruningContainer .*Found 'bias'$",
    ):
        c.add_pruning_method(b)
    with pytest.raises(TypeError, match="^<class 'int'> is not a BasePruningMethod subclass$"):
        c.add_pruning_method(3)
    with pytest.raises(AttributeError):
        prune.PruningContainer(3)


# ---- bad input
@pytest.mark.parametrize(
    "amount, exc, match",
    [
        (
            -1,
            ValueError,
            "^amount=-1 should either be a float in the range \\[0, 1\\] or a non-negative integer$",
        ),
        (
            1.5,
            ValueError,
            "^amount=1.5 should either be a float in the range \\[0, 1\\] or a non-negative integer$",
        ),
        (-0.1, ValueError, "^amount=-0.1 should either be a float"),
        ("x", TypeError, "^Invalid type for amount: x. Must be int or float.$"),
        (None, TypeError, "^Invalid type for amount: None. Must be int or float.$"),
    ],
)
def test_amount_validation(amount, exc, match):
    for cls in (prune.RandomUnstructured, prune.L1Unstructured):
        with pytest.raises(exc, match=match):
            cls(amount)
    with pytest.raises(exc, match=match):
        prune.RandomStructured(amount, dim=0)
    with pytest.raises(exc, match=match):
        prune.LnStructured(amount, n=2, dim=0)


def test_too_large_amount_leaves_module_unchanged():
    m = nn.Linear(3, 4)
    w = m.weight
    with pytest.raises(
        ValueError, match="^amount=13 should be smaller than the number of parameters to prune=12$"
    ):
        prune.l1_unstructured(m, "weight", amount=13)
    assert m.weight is w and "weight" in m._parameters and "weight_orig" not in m._parameters
    assert not prune.is_pruned(m)
    with pytest.raises(
        ValueError, match="^amount=5 should be smaller than the number of parameters to prune=4$"
    ):
        prune.ln_structured(m, "weight", amount=5, n=2, dim=0)


def test_structured_errors():
    m = nn.Linear(3, 4)
    with pytest.raises(
        ValueError,
        match="^Structured pruning can only be applied to multidimensional tensors. Found "
        "tensor of shape torch.Size\\(\\[4\\]\\) with 1 dims$",
    ):
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    with pytest.raises(IndexError, match="^Invalid index 2 for tensor of size torch.Size\\(\\[4, 3\\]\\)$"):
        prune.ln_structured(m, "weight", amount=1, n=2, dim=2)
    with pytest.raises(IndexError, match="^Invalid index 2 for tensor of size"):
        prune.random_structured(m, "weight", amount=1, dim=2)
    assert not prune.is_pruned(m) and isinstance(m.bias, nn.Parameter)
    with pytest.raises(AttributeError):
        prune.l1_unstructured(m, "nope", amount=1)


def test_non_contiguous_and_empty_parameters():
    # a transposed weight: PyTorch 2.15's unstructured methods fail there on a .view(-1); here the mask follows
    # the logical order of the entries
    W = np.random.default_rng(7).standard_normal((3, 4))
    m = nn.Linear(3, 4)
    m.weight = nn.Parameter(minitorch.tensor(W).float().t())
    assert not m.weight.is_contiguous()
    prune.l1_unstructured(m, "weight", amount=5)
    expect = np.ones(12)
    expect[np.argsort(np.abs(W.T).ravel())[:5]] = 0
    np.testing.assert_array_equal(npy(m.weight_mask).ravel(), expect)
    np.testing.assert_array_equal(npy(m.weight), np.float32(W.T) * expect.reshape(4, 3))
    prune.ln_structured(m, "weight", amount=1, n=2, dim=1)
    assert (npy(m.weight_mask).sum(0) == 0).sum() == 1
    r = nn.Linear(3, 4)
    r.weight = nn.Parameter(minitorch.tensor(W).float().t())
    prune.random_unstructured(
        r, "weight", amount=5
    )  # ops keep the transposed layout: the mask is flat anyway
    assert npy(r.weight_mask).sum() == 7 and r.weight_mask.shape == (4, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        e = nn.Linear(0, 3)
    prune.l1_unstructured(e, "weight", amount=0.5)
    assert e.weight_mask.shape == (3, 0) and e(minitorch.zeros(2, 0)).shape == (2, 3)
