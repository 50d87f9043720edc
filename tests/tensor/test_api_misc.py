"""Small pieces of PyTorch's API that real programs use: nn.PixelShuffle/PixelUnshuffle, optim.Adadelta,
torch.distributions (Categorical, Bernoulli, Normal), and the helper modules layer and library code imports
(torch.nn.modules.utils, nn.common_types, torch.types, torch.random, torch.utils.hooks, torch.utils._pytree).
Values against NumPy, gradients by gradcheck, messages in PyTorch's words."""

import collections
import math
import pickle

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.distributions import Bernoulli, Categorical, Normal


def _np_pixel_shuffle(x, r):
    *b, c, h, w = x.shape
    out = np.empty((*b, c // (r * r), h * r, w * r), dtype=x.dtype)
    for k in range(c // (r * r)):
        for i in range(r):
            for j in range(r):
                out[..., k, i::r, j::r] = x[..., k * r * r + i * r + j, :, :]
    return out


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64])
@pytest.mark.parametrize("shape", [(2, 8, 3, 5), (12, 2, 2), (1, 2, 4, 1, 1), (0, 4, 2, 2)])
def test_pixel_shuffle_against_numpy(dtype, shape):
    r = 2
    x = minitorch.arange(int(np.prod(shape))).reshape(shape).to(dtype)
    ref = _np_pixel_shuffle(x.numpy(), r)
    out = F.pixel_shuffle(x, r)
    np.testing.assert_array_equal(out.numpy(), ref)
    assert minitorch.equal(minitorch.nn.PixelShuffle(r)(x), out)
    # PyTorch's pixel_unshuffle returns an empty input as it is, so the round trip holds for non-empty ones
    back = x if x.numel() else out
    assert minitorch.equal(F.pixel_unshuffle(out, r), back)
    assert minitorch.equal(minitorch.nn.PixelUnshuffle(r)(out), back)


@pytest.mark.parametrize(
    "shape, r", [((5, 0, 2), 2), ((1, 0, 3, 3), 3), ((0, 1, 4, 4), 2), ((1, 2, 0, 4), 2)]
)
def test_pixel_unshuffle_of_an_empty_input_keeps_its_shape(shape, r):
    # PyTorch checks the shape, then returns an empty input's copy (issue 34: we gave (20, 0, 1) for (5, 0, 2))
    x = minitorch.zeros(shape, dtype=minitorch.float64, requires_grad=True)
    for fn in (F.pixel_unshuffle, minitorch.pixel_unshuffle, minitorch.nn.PixelUnshuffle(r)):
        y = fn(x) if isinstance(fn, minitorch.nn.Module) else fn(x, r)
        assert y.shape == shape and y.requires_grad
        (g,) = minitorch.autograd.grad(y.sum(), x)
        assert g.shape == shape
    with pytest.raises(
        RuntimeError, match=r"height to be divisible by downscale_factor, but input.size\(-2\)=3"
    ):
        F.pixel_unshuffle(minitorch.zeros(0, 1, 3, 4), 2)


def test_pixel_shuffle_non_contiguous_and_factor_3():
    x = minitorch.randn(2, 4, 5, 18).transpose(1, 3)  # (2, 18, 5, 4), strided
    assert not x.is_contiguous()
    np.testing.assert_array_equal(F.pixel_shuffle(x, 3).numpy(), _np_pixel_shuffle(x.numpy(), 3))


def test_pixel_shuffle_gradcheck():
    x = minitorch.randn(1, 4, 2, 3, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: F.pixel_shuffle(t, 2), (x,))
    y = minitorch.randn(1, 1, 4, 6, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: F.pixel_unshuffle(t, 2), (y,))


def test_pixel_shuffle_errors():
    with pytest.raises(RuntimeError, match="at least 3 dimensions, but got input with 2 dimension"):
        F.pixel_shuffle(minitorch.zeros(4, 4), 2)
    with pytest.raises(RuntimeError, match=r"input.size\(-3\)=5 is not divisible by 4"):
        F.pixel_shuffle(minitorch.zeros(5, 2, 2), 2)
    with pytest.raises(RuntimeError, match="positive upscale_factor, but got 0"):
        F.pixel_shuffle(minitorch.zeros(4, 2, 2), 0)
    with pytest.raises(
        RuntimeError, match=r"height to be divisible by downscale_factor, but input.size\(-2\)=3"
    ):
        F.pixel_unshuffle(minitorch.zeros(1, 3, 4), 2)
    with pytest.raises(
        RuntimeError, match=r"width to be divisible by downscale_factor, but input.size\(-1\)=5"
    ):
        F.pixel_unshuffle(minitorch.zeros(1, 4, 5), 2)
    assert repr(minitorch.nn.PixelShuffle(3)) == "PixelShuffle(upscale_factor=3)"


# ---- Adadelta


def _np_adadelta(p, grads, lr, rho, eps, wd, maximize):
    v = np.zeros_like(p)
    u = np.zeros_like(p)
    for g in grads:
        g = -g if maximize else g
        g = g + wd * p
        v = rho * v + (1 - rho) * g * g
        delta = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta
        p = p - lr * delta
    return p


@pytest.mark.parametrize(
    "opts", [{}, {"lr": 0.5, "rho": 0.8, "eps": 1e-4}, {"weight_decay": 0.1}, {"maximize": True}]
)
def test_adadelta_against_numpy(opts):
    rng = np.random.default_rng(0)
    p0 = rng.standard_normal((3, 4))
    grads = [rng.standard_normal((3, 4)) for _ in range(4)]
    p = minitorch.nn.Parameter(minitorch.tensor(p0))
    q = minitorch.nn.Parameter(minitorch.tensor(p0[0].copy()))  # a second, strided-free param in the group
    opt = minitorch.optim.Adadelta([p, q], **opts)
    for g in grads:
        p.grad = minitorch.tensor(g)
        q.grad = minitorch.tensor(g[0].copy())
        opt.step()
    full = {"lr": 1.0, "rho": 0.9, "eps": 1e-6, "wd": 0.0, "maximize": False}
    full.update({("wd" if k == "weight_decay" else k): v for k, v in opts.items()})
    ref = _np_adadelta(p0, grads, full["lr"], full["rho"], full["eps"], full["wd"], full["maximize"])
    np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(q.detach().numpy(), ref[0], rtol=1e-10, atol=1e-12)
    assert opt.state[p]["step"].item() == 4
    sd = opt.state_dict()
    assert set(sd["state"][0]) == {"step", "square_avg", "acc_delta"}


def test_adadelta_rejects_bad_options():
    p = [minitorch.nn.Parameter(minitorch.zeros(2))]
    with pytest.raises(ValueError, match="Invalid rho value: 1.5"):
        minitorch.optim.Adadelta(p, rho=1.5)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        minitorch.optim.Adadelta(p, lr=-1)
    with pytest.raises(ValueError, match="Invalid epsilon value"):
        minitorch.optim.Adadelta(p, eps=-1)


# ---- distributions


def test_categorical_probs_log_prob_entropy():
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    d = Categorical(probs=minitorch.tensor(probs * 4))  # unnormalized: normalized as PyTorch does
    np.testing.assert_allclose(d.probs.numpy(), probs)
    assert d.batch_shape == (2,) and d.event_shape == ()
    v = minitorch.tensor([2, 0])
    np.testing.assert_allclose(d.log_prob(v).numpy(), np.log([0.7, 0.5]))
    np.testing.assert_allclose(d.entropy().numpy(), -(probs * np.log(probs)).sum(-1))
    lg = Categorical(logits=minitorch.tensor(np.log(probs) + 3.0))
    np.testing.assert_allclose(lg.probs.numpy(), probs, rtol=1e-12)
    np.testing.assert_allclose(lg.log_prob(v).numpy(), np.log([0.7, 0.5]), rtol=1e-12)
    assert d.mode.tolist() == [2, 0]
    # broadcasting a batch of values against the batch of distributions
    assert d.log_prob(minitorch.tensor([[0], [1]])).shape == (2, 2)


def test_categorical_sample_frequencies():
    minitorch.manual_seed(0)
    probs = minitorch.tensor([0.1, 0.0, 0.6, 0.3])
    s = Categorical(probs).sample((20000,))
    assert s.shape == (20000,) and s.dtype == minitorch.int64
    freq = np.bincount(s.numpy(), minlength=4) / 20000
    assert freq[1] == 0  # a zero-probability class is never drawn
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.02)
    batched = Categorical(logits=minitorch.zeros(3, 5)).sample((7,))
    assert batched.shape == (7, 3) and batched.min() >= 0 and batched.max() <= 4


def test_categorical_log_prob_gradient():
    logits = minitorch.randn(2, 4, dtype=minitorch.float64, requires_grad=True)
    v = minitorch.tensor([3, 1])
    assert minitorch.autograd.gradcheck(lambda lg: Categorical(logits=lg).log_prob(v), (logits,))
    probs = minitorch.rand(2, 4, dtype=minitorch.float64) + 0.1
    probs.requires_grad_(True)
    assert minitorch.autograd.gradcheck(lambda p: Categorical(probs=p).log_prob(v), (probs,))


def test_categorical_errors():
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both"):
        Categorical()
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        Categorical(probs=minitorch.ones(2), logits=minitorch.ones(2))
    with pytest.raises(ValueError, match="at least one-dimensional"):
        Categorical(probs=minitorch.tensor(1.0))
    with pytest.raises(ValueError, match="Simplex"):
        Categorical(probs=minitorch.tensor([0.5, -0.1]))
    with pytest.raises(ValueError, match="within the support"):
        Categorical(probs=minitorch.ones(3)).log_prob(minitorch.tensor([3]))


def test_bernoulli():
    minitorch.manual_seed(1)
    p = np.array([0.2, 0.9])
    d = Bernoulli(probs=minitorch.tensor(p))
    s = d.sample((10000,))
    assert s.shape == (10000, 2)
    np.testing.assert_allclose(s.numpy().mean(0), p, atol=0.02)
    np.testing.assert_allclose(
        d.log_prob(minitorch.tensor([1.0, 0.0])).numpy(), np.log([0.2, 0.1]), rtol=1e-6
    )
    np.testing.assert_allclose(d.entropy().numpy(), -(p * np.log(p) + (1 - p) * np.log(1 - p)), rtol=1e-6)
    lg = Bernoulli(logits=minitorch.tensor([0.0]))
    assert lg.probs.item() == 0.5 and d.variance.numpy() == pytest.approx(p * (1 - p))


def test_normal():
    minitorch.manual_seed(2)
    loc = minitorch.tensor([0.0, 3.0], dtype=minitorch.float64, requires_grad=True)
    scale = minitorch.tensor([1.0, 0.5], dtype=minitorch.float64, requires_grad=True)
    d = Normal(loc, scale)
    x = np.array([0.3, 2.0])
    ref = (
        -((x - np.array([0, 3.0])) ** 2) / (2 * np.array([1, 0.25]))
        - np.log([1, 0.5])
        - 0.5 * math.log(2 * math.pi)
    )
    np.testing.assert_allclose(d.log_prob(minitorch.tensor(x)).detach().numpy(), ref)
    np.testing.assert_allclose(
        d.entropy().detach().numpy(), 0.5 + 0.5 * math.log(2 * math.pi) + np.log([1, 0.5])
    )
    s = d.rsample((5000,))
    assert s.shape == (5000, 2)
    s.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [5000, 5000])  # reparameterized: d(loc + eps*scale)/dloc = 1
    assert not d.sample().requires_grad
    np.testing.assert_allclose(s.detach().numpy().mean(0), [0, 3], atol=0.05)
    assert minitorch.autograd.gradcheck(
        lambda m, sd: Normal(m, sd).log_prob(minitorch.tensor(x)),
        (loc.detach().requires_grad_(), scale.detach().requires_grad_()),
    )
    with pytest.raises(ValueError, match="GreaterThan"):
        Normal(0.0, -1.0)


# ---- in-place activations on tensors with history (DCGAN's BatchNorm2d -> LeakyReLU(inplace=True))


# PyTorch's CELU backward takes 1 / alpha with alpha rounded to float32, and the in-place form reads the result:
# the two gradients differ by ~1e-8 relative in PyTorch too (more after batch_norm's backward mixes them)
_CELU = lambda x, ip: F.celu(x, 0.7, inplace=ip)


@pytest.mark.parametrize(
    "act",
    [
        lambda x, ip: F.leaky_relu(x, 0.2, inplace=ip),
        lambda x, ip: F.silu(x, inplace=ip),
        lambda x, ip: F.mish(x, inplace=ip),
        lambda x, ip: F.hardsigmoid(x, inplace=ip),
        lambda x, ip: F.hardswish(x, inplace=ip),
        lambda x, ip: F.elu(x, 0.7, inplace=ip),
        _CELU,
        lambda x, ip: F.selu(x, inplace=ip),
    ],
)
def test_inplace_activation_after_an_op_with_history(act):
    x = minitorch.randn(3, 4, 5, 5, dtype=minitorch.float64, requires_grad=True)
    w = minitorch.ones(4, dtype=minitorch.float64, requires_grad=True)
    grads = []
    for inplace in (False, True):
        x.grad = w.grad = None
        h = F.batch_norm(x, None, None, w, None, training=True)
        y = act(h, inplace)
        if inplace:
            assert y is h
        (y * minitorch.arange(y.numel(), dtype=minitorch.float64).reshape(y.shape)).sum().backward()
        grads.append((x.grad.clone(), w.grad.clone()))
    tol = 1e-5 if act is _CELU else 1e-12
    np.testing.assert_allclose(grads[1][0].numpy(), grads[0][0].numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(grads[1][1].numpy(), grads[0][1].numpy(), rtol=tol, atol=tol)
    with minitorch.no_grad():  # without history nothing is copied, the result is written in place
        z = minitorch.randn(4)
        assert act(z, True) is z


# ---------------------------------------------------------------- helper modules code imports from PyTorch


def test_nn_modules_utils():
    from minitorch.nn.modules.utils import (
        _list_with_default,
        _ntuple,
        _pair,
        _quadruple,
        _reverse_repeat_tuple,
        _single,
        _triple,
        consume_prefix_in_state_dict_if_present,
    )

    assert (
        _pair(3) == (3, 3)
        and _pair([1, 2]) == (1, 2)
        and _single(1) == (1,)
        and _triple((1, 2, 3)) == (1, 2, 3)
    )
    assert _quadruple(0) == (0, 0, 0, 0) and _ntuple(5)(1) == (1,) * 5 and _pair.__name__ == "_pair"
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)
    assert _list_with_default([None, 3], [1, 2, 5, 6]) == [5, 3] and _list_with_default(4, [1]) == 4
    with pytest.raises(ValueError, match="Input dimension should be at least 3"):
        _list_with_default([None, 3], [5])
    # a DataParallel/DDP checkpoint loads into the bare model once "module." is stripped
    wrapped = minitorch.nn.Sequential(collections.OrderedDict(module=minitorch.nn.Linear(2, 2)))
    sd = wrapped.state_dict()
    assert list(sd) == ["module.weight", "module.bias"] and "module" in sd._metadata
    consume_prefix_in_state_dict_if_present(sd, "module.")
    assert list(sd) == ["weight", "bias"] and "module" not in sd._metadata
    minitorch.nn.Linear(2, 2).load_state_dict(sd)


def test_type_alias_modules():
    from minitorch.nn.common_types import _ratio_any_t, _size_2_t, _size_any_opt_t  # noqa: F401
    from minitorch.types import Device, Number, _size  # noqa: F401

    assert minitorch.types._dtype is minitorch.dtype and minitorch.types._device is minitorch.device
    assert isinstance(3, Number.__args__) and isinstance(minitorch.device("cpu"), Device.__args__)
    assert int in _size_2_t.__args__


def test_random_module_and_fork_rng():
    rnd = minitorch.random
    assert rnd.manual_seed(5) is rnd.default_generator is minitorch.default_generator
    assert rnd.initial_seed() == 5
    with rnd.fork_rng():
        a = minitorch.rand(3)
    assert minitorch.equal(minitorch.rand(3), a)  # the state was restored on exit
    rnd.manual_seed(5)
    with rnd.fork_rng(enabled=False):
        c = minitorch.rand(1)
    assert not minitorch.equal(minitorch.rand(1), c)  # not forked: the draws went on
    state = rnd.get_rng_state()
    x = minitorch.rand(2)
    rnd.set_rng_state(state)
    assert minitorch.equal(minitorch.rand(2), x)
    s = rnd.seed()
    assert isinstance(s, int) and rnd.initial_seed() == s
    with rnd.fork_rng(devices=[]), rnd.fork_rng(device_type="meta"):
        minitorch.rand(1)
    with pytest.raises(RuntimeError, match="torch has no module of `xpu`"), rnd.fork_rng(device_type="xpu"):
        pass


def test_utils_hooks_removable_handle():
    from minitorch.utils.hooks import RemovableHandle, unserializable_hook

    hooks, extra = collections.OrderedDict(), collections.OrderedDict()
    h = RemovableHandle(hooks, extra_dict=extra)
    hooks[h.id] = 1
    extra[h.id] = 2
    h.remove()
    assert not hooks and not extra
    with RemovableHandle(hooks) as h2:
        hooks[h2.id] = 3
    assert not hooks
    lin = minitorch.nn.Linear(2, 2)
    assert isinstance(lin.register_forward_hook(lambda *a: None), RemovableHandle)

    @unserializable_hook
    def hook(grad):
        return grad

    assert hook.__torch_unserializable__


def test_utils_pytree_as_pytorch():
    import minitorch.utils._pytree as pytree

    Point = collections.namedtuple("Point", "x y")
    tree = {
        "a": minitorch.ones(2),
        "b": [1, (2.0, None)],
        "c": Point(3, 4),
        "d": collections.OrderedDict(z=5),
        "e": collections.deque([6], maxlen=3),
        "f": collections.defaultdict(int, k=7),
    }
    leaves, spec = pytree.tree_flatten(tree)
    assert leaves[1:] == [1, 2.0, None, 3, 4, 5, 6, 7]  # None is a leaf (PyTorch 2.15)
    assert (spec.num_leaves, spec.num_nodes, spec.num_children) == (9, 16, 6)
    assert str(spec).startswith(
        "TreeSpec(dict, ['a', 'b', 'c', 'd', 'e', 'f'], [*,\n  TreeSpec(list, None, [*,"
    )
    assert "TreeSpec(namedtuple, <class" in str(spec) and "TreeSpec(deque, 3, [*])" in str(spec)
    back = pytree.tree_unflatten(leaves, spec)
    assert type(back["c"]) is Point and back["e"].maxlen == 3 and back["f"].default_factory is int
    doubled = pytree.tree_map(lambda v: v if v is None else v * 2, {"a": 1, "b": [2, None], "c": Point(3, 4)})
    assert doubled == {"a": 2, "b": [4, None], "c": Point(6, 8)}
    assert pytree.tree_map(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    summed = pytree.tree_map_only(minitorch.Tensor, lambda v: v.sum(), {"a": minitorch.ones(3), "b": 2})
    assert summed["a"].item() == 3.0 and summed["b"] == 2
    assert pytree.tree_map_only((int, float), lambda v: -v, [1, 2.0, "s"]) == [-1, -2.0, "s"]
    assert pytree.tree_leaves([1, [2, [3]], None]) == [1, 2, 3, None]
    assert pytree.tree_all(lambda v: v > 0, [1, 2]) and pytree.tree_any(lambda v: v > 1, [1, 2])
    assert pytree.tree_leaves([1, [2, 3]], is_leaf=lambda x: isinstance(x, list) and len(x) == 2) == [
        [1, [2, 3]]
    ]
    seen = []
    assert pytree.tree_map_(seen.append, [1, (2,)]) == [1, (2,)] and seen == [1, 2]
    assert pytree.tree_structure([1, 2]) == pytree.tree_structure([3, 4])
    assert pytree.tree_structure([1]) != pytree.tree_structure((1,))
    assert repr(pickle.loads(pickle.dumps(pytree.tree_structure(1)))) == "*"
    with pytest.raises(
        ValueError, match=r"`leaves` has length 1 but the spec refers to a pytree that holds 2 items"
    ):
        pytree.tree_unflatten([1], pytree.tree_structure((1, 2)))
    with pytest.raises(ValueError, match="^Node arity mismatch; expected 2, but got 1.$"):
        pytree.tree_map(lambda a, b: a, [1, 2], [1])
    with pytest.raises(
        ValueError, match="^Node type mismatch; expected <class 'list'>, but got <class 'tuple'>.$"
    ):
        pytree.tree_map(lambda a, b: a, [1, 2], (1, 2))
    with pytest.raises(
        ValueError, match=r"^Node keys mismatch; missing key\(s\): \{'a'\}; extra key\(s\): \{'b'\}.$"
    ):
        pytree.tree_map(lambda a, b: a, {"a": 1}, {"b": 1})
    with pytest.raises(TypeError, match="Expected `treespec` to be an instance of PyTreeSpec"):
        pytree.tree_unflatten([1], 3)


class _Box:
    def __init__(self, v, tag):
        self.v, self.tag = v, tag


def test_utils_pytree_register_node():
    import minitorch.utils._pytree as pytree

    pytree.register_pytree_node(_Box, lambda b: ([b.v], b.tag), lambda vs, tag: _Box(vs[0], tag))
    try:
        b = pytree.tree_map(lambda v: v + 1, [_Box(1, "t")])[0]
        assert isinstance(b, _Box) and (b.v, b.tag) == (2, "t")
        assert repr(pytree.tree_structure(_Box(1, "t"))) == "TreeSpec(_Box, t, [*])"
        with pytest.raises(ValueError, match="is already registered as pytree node"):
            pytree.register_pytree_node(_Box, None, None)
        with pytest.raises(ValueError, match="Node context mismatch for custom node type"):
            pytree.tree_map(lambda a, b: a, _Box(1, "t"), _Box(1, "u"))
    finally:
        del pytree.SUPPORTED_NODES[_Box]
