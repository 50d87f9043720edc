"""torch.utils.checkpoint: checkpoint (reentrant and not) and checkpoint_sequential give the gradients of the
plain model (dropout included, through the saved RNG state), really drop the function's graph after the
forward and rerun it in backward, and raise PyTorch's warnings and errors."""

import contextlib
import warnings
import weakref

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

BOTH = pytest.mark.parametrize("use_reentrant", [True, False], ids=["reentrant", "non_reentrant"])


def npy(t):
    return t.detach().double().cpu().numpy().copy()


def make_net(device="cpu", p=0.5):
    minitorch.manual_seed(0)
    return (
        nn.Sequential(
            nn.Linear(4, 16),
            nn.Tanh(),
            nn.Dropout(p),
            nn.Linear(16, 16),
            nn.ReLU(),
            nn.Dropout(p),
            nn.Linear(16, 3),
        )
        .double()
        .to(device)
    )


def run(net, fn, x, seed=1):
    """Loss, parameter gradients and input gradient of one step, and the next random number after it."""
    net.zero_grad()
    x = x.detach().clone().requires_grad_(True)
    minitorch.manual_seed(seed)
    out = fn(x)
    loss = (out * out).sum()
    loss.backward()
    after = minitorch.rand(1).item()
    return [npy(out)] + [npy(p.grad) for p in net.parameters()] + [npy(x.grad)], after


@BOTH
def test_gradients_match_plain_model_with_dropout(use_reentrant, device):
    net = make_net(device)
    x = minitorch.randn(6, 4, dtype=minitorch.float64, device=device)
    ref, ref_after = run(net, net, x)
    got, got_after = run(net, lambda t: checkpoint(net, t, use_reentrant=use_reentrant), x)
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)
    # the recomputation ran from the forward's RNG state and then gave the caller's state back
    assert got_after == ref_after


@BOTH
def test_checkpoint_sequential_matches(use_reentrant):
    net = make_net()
    x = minitorch.randn(5, 4, dtype=minitorch.float64)
    ref, _ = run(net, net, x)
    for segments in (1, 2, 3, 7):
        got, _ = run(
            net, lambda t, s=segments: checkpoint_sequential(net, s, t, use_reentrant=use_reentrant), x
        )
        for a, b in zip(ref, got):
            np.testing.assert_array_equal(a, b)
    # a list of modules works as well as a Sequential
    got, _ = run(net, lambda t: checkpoint_sequential(list(net), 2, t, use_reentrant=use_reentrant), x)
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)


@BOTH
def test_preserve_rng_state_false_draws_new_dropout_masks(use_reentrant):
    net = make_net(p=0.5)
    x = minitorch.randn(64, 4, dtype=minitorch.float64)
    ref, _ = run(net, net, x)
    got, _ = run(net, lambda t: checkpoint(net, t, use_reentrant=use_reentrant, preserve_rng_state=False), x)
    np.testing.assert_array_equal(ref[0], got[0])  # the forward is the same
    assert not np.array_equal(ref[1], got[1])  # backward went through other dropout masks


# ---- memory: the function's graph is not kept, the function runs again in backward
class _Sentinel:
    pass


_ALIVE = []  # weak references to the sentinels of the Probe nodes created so far


class Probe(minitorch.autograd.Function):
    """Saves its input for backward and hangs a sentinel on its ctx: the sentinel lives as long as the graph."""

    @staticmethod
    def forward(ctx, x):
        s = _Sentinel()
        ctx.sentinel = s
        _ALIVE.append(weakref.ref(s))
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        (_x,) = ctx.saved_tensors
        return g * 2


def _live():
    return sum(r() is not None for r in _ALIVE)


@BOTH
def test_graph_inside_is_not_kept(use_reentrant):
    _ALIVE.clear()
    x = minitorch.randn(8, dtype=minitorch.float64, requires_grad=True)
    calls = []

    def block(t):
        calls.append(1)
        for _ in range(5):
            t = Probe.apply(t.sin())
        return t

    plain = block(x)
    assert _live() == 5  # without checkpointing the 5 saved nodes stay until backward
    del plain
    _ALIVE.clear()
    calls.clear()
    out = checkpoint(block, x, use_reentrant=use_reentrant)
    assert _live() == 0 and len(calls) == 1
    expected = x.detach().clone()
    for _ in range(5):
        expected = expected.sin() * 2
    np.testing.assert_allclose(npy(out), npy(expected), rtol=1e-12)
    out.sum().backward()
    assert len(calls) == 2  # recomputed once in backward
    assert _live() == 0  # and that graph is released too
    # d/dx of the chain, by finite differences of the same chain in NumPy
    xn = npy(x)

    def chain(v):
        for _ in range(5):
            v = np.sin(v) * 2
        return v

    eps = 1e-6
    np.testing.assert_allclose(npy(x.grad), (chain(xn + eps) - chain(xn - eps)) / (2 * eps), rtol=1e-6)


@BOTH
def test_checkpoint_sequential_keeps_only_the_last_segment(use_reentrant):
    _ALIVE.clear()

    class P(nn.Module):
        def forward(self, t):
            return Probe.apply(t.tanh())

    layers = nn.Sequential(*[P() for _ in range(8)])
    x = minitorch.randn(4, dtype=minitorch.float64, requires_grad=True)
    out = checkpoint_sequential(layers, 4, x, use_reentrant=use_reentrant)
    assert _live() == 2  # only the last of 4 segments (2 layers) runs without checkpointing
    out.sum().backward()
    ref_x = x.detach().clone().requires_grad_(True)
    layers(ref_x).sum().backward()
    np.testing.assert_allclose(npy(x.grad), npy(ref_x.grad), rtol=1e-12)


# ---- gradcheck in float64
def test_gradcheck_non_reentrant():
    w = minitorch.randn(3, 3, dtype=minitorch.float64, requires_grad=True)

    def f(x, y):
        return checkpoint(lambda a, b: ((a @ w).tanh() * b).sin(), x, y, use_reentrant=False)

    x = minitorch.randn(2, 3, dtype=minitorch.float64, requires_grad=True)
    y = minitorch.randn(2, 3, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(f, (x, y))
    assert gradcheck(lambda w_: checkpoint(lambda a: (a @ w_).tanh(), x, use_reentrant=False), (w,))


def test_reentrant_gradients_by_finite_differences():
    # gradcheck runs autograd.grad, which the reentrant variant refuses (as in PyTorch): use .backward()
    rng = np.random.default_rng(0)
    W, X, Y, V = (rng.standard_normal(s) for s in [(3, 3), (2, 3), (2, 3), (2, 3)])

    def f_np(W, X, Y):
        return np.sin(np.tanh(X @ W) * Y)

    w = minitorch.tensor(W, requires_grad=True)
    x = minitorch.tensor(X, requires_grad=True)
    y = minitorch.tensor(Y, requires_grad=True)
    out = checkpoint(lambda a, b: ((a @ w).tanh() * b).sin(), x, y, use_reentrant=True)
    (out * minitorch.tensor(V)).sum().backward()
    args = [W, X, Y]
    for i, t in enumerate([w, x, y]):
        num = np.zeros_like(args[i])
        for idx in np.ndindex(*args[i].shape):
            hi = [a.copy() for a in args]
            lo = [a.copy() for a in args]
            hi[i][idx] += 1e-6
            lo[i][idx] -= 1e-6
            num[idx] = ((f_np(*hi) - f_np(*lo)) * V).sum() / 2e-6
        np.testing.assert_allclose(npy(t.grad), num, rtol=1e-6, atol=1e-8)


def test_gradgradcheck_non_reentrant():
    def f(x):
        return checkpoint(lambda a: (a.sin() * a).sum(), x, use_reentrant=False)

    x = minitorch.randn(4, dtype=minitorch.float64, requires_grad=True)
    assert gradgradcheck(f, (x,))


# ---- the non-reentrant variant's extras
def test_non_reentrant_parameters_get_grads_without_input_grad():
    net = make_net(p=0.0)
    x = minitorch.randn(3, 4, dtype=minitorch.float64)  # does not require grad
    out = checkpoint(net, x, use_reentrant=False)
    assert out.requires_grad
    out.sum().backward()
    net2 = make_net(p=0.0)
    net2(x).sum().backward()
    for p, q in zip(net.parameters(), net2.parameters()):
        np.testing.assert_allclose(npy(p.grad), npy(q.grad), rtol=1e-12)


def test_non_reentrant_works_with_autograd_grad():
    net = make_net(p=0.0)
    x = minitorch.randn(3, 4, dtype=minitorch.float64, requires_grad=True)
    params = list(net.parameters())
    got = minitorch.autograd.grad(checkpoint(net, x, use_reentrant=False).sum(), [x, *params])
    ref = minitorch.autograd.grad(net(x).sum(), [x, *params])
    for a, b in zip(got, ref):
        np.testing.assert_allclose(npy(a), npy(b), rtol=1e-12)
    assert all(p.grad is None for p in params)


def test_non_reentrant_kwargs_nested_and_non_tensor_outputs():
    w = minitorch.randn(3, dtype=minitorch.float64, requires_grad=True)

    def f(a, *, scale, extra):
        y = a * w * scale
        return {"y": y, "pair": (y.sum(), "tag"), "idx": y.argmax(), "other": extra[0] * 2}

    a = minitorch.randn(3, dtype=minitorch.float64, requires_grad=True)
    e = minitorch.randn(2, dtype=minitorch.float64, requires_grad=True)
    out = checkpoint(f, a, scale=3.0, extra=[e], use_reentrant=False)
    assert out["pair"][1] == "tag"
    assert not out["idx"].requires_grad and out["idx"].dtype == minitorch.int64
    (out["y"].sum() + out["pair"][0] + out["other"].sum()).backward()
    np.testing.assert_allclose(npy(a.grad), 2 * 3.0 * npy(w), rtol=1e-12)
    np.testing.assert_allclose(npy(w.grad), 2 * 3.0 * npy(a), rtol=1e-12)
    np.testing.assert_allclose(npy(e.grad), [2.0, 2.0])


def test_non_reentrant_captured_non_leaf_tensor():
    w = minitorch.randn(3, dtype=minitorch.float64, requires_grad=True)
    scale = w.exp()  # computed outside, used inside: its gradient flows on to w
    x = minitorch.randn(3, dtype=minitorch.float64, requires_grad=True)
    checkpoint(lambda t: (t * scale).sin().sum(), x, use_reentrant=False).backward()
    xn, wn = npy(x), npy(w)
    np.testing.assert_allclose(npy(x.grad), np.cos(xn * np.exp(wn)) * np.exp(wn), rtol=1e-12)
    np.testing.assert_allclose(npy(w.grad), np.cos(xn * np.exp(wn)) * xn * np.exp(wn), rtol=1e-12)


def test_non_reentrant_context_fn():
    entered = []

    @contextlib.contextmanager
    def tag(name):
        entered.append(name)
        yield

    x = minitorch.randn(2, requires_grad=True)
    out = checkpoint(
        lambda t: t.exp(), x, use_reentrant=False, context_fn=lambda: (tag("fwd"), tag("recompute"))
    )
    assert entered == ["fwd"]
    out.sum().backward()
    assert entered == ["fwd", "recompute"]


def test_non_reentrant_determinism_check():
    calls = []

    def changes_shape(t):
        calls.append(1)
        return t[: 3 if len(calls) == 1 else 2] * 2

    x = minitorch.randn(4, requires_grad=True)
    out = checkpoint(changes_shape, x, use_reentrant=False)
    with pytest.raises(
        CheckpointError, match="Recomputed values for the following tensors have different metadata"
    ):
        out.sum().backward()
    with pytest.raises(
        ValueError, match="^determinism_check should be one of \\['default', 'none'\\], but got foo$"
    ):
        checkpoint(lambda t: t, x, use_reentrant=False, determinism_check="foo")


def test_decorator_form():
    @checkpoint(use_reentrant=False)
    def f(t):
        return t.sin()

    x = minitorch.randn(3, dtype=minitorch.float64, requires_grad=True)
    f(x).sum().backward()
    np.testing.assert_allclose(npy(x.grad), np.cos(npy(x)), rtol=1e-12)
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: foo$"):
        checkpoint(foo=1)


@BOTH
def test_under_no_grad_is_a_plain_call(use_reentrant):
    x = minitorch.randn(3, requires_grad=True)
    with minitorch.no_grad():
        out = checkpoint(lambda t: t * 2, x, use_reentrant=use_reentrant)
    assert not out.requires_grad and out.grad_fn is None
    np.testing.assert_allclose(npy(out), 2 * npy(x))


# ---- warnings and errors, as PyTorch's
def test_warns_when_use_reentrant_not_passed():
    x = minitorch.randn(2, requires_grad=True)
    with pytest.warns(
        UserWarning,
        match="^torch.utils.checkpoint: the use_reentrant parameter should be passed "
        "explicitly. In a future release, calling checkpoint without use_reentrant will raise an "
        "exception. use_reentrant=False is recommended",
    ):
        out = checkpoint(lambda t: t * 3, x)
    assert out.grad_fn.name() == "CheckpointFunctionBackward"  # the default is still the reentrant variant
    with pytest.warns(
        UserWarning,
        match="^torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter "
        "should be passed explicitly.",
    ):
        checkpoint_sequential([nn.Identity(), nn.Identity()], 2, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda t: t * 3, x, use_reentrant=False)
        checkpoint(lambda t: t * 3, x, use_reentrant=True)


def test_reentrant_errors():
    x = minitorch.randn(3, requires_grad=True)
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: b$"):
        checkpoint(lambda a, b=1: a * b, x, use_reentrant=True, b=2)
    with pytest.raises(
        ValueError,
        match="^Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only "
        "supported when use_reentrant=False.$",
    ):
        checkpoint(lambda a: a, x, use_reentrant=True, debug=True)
    y = checkpoint(lambda a: a * 2, x, use_reentrant=True)
    with pytest.raises(
        RuntimeError,
        match="^When use_reentrant=True, torch.utils.checkpoint is incompatible with "
        ".grad\\(\\) or passing an `inputs` parameter to .backward\\(\\).",
    ):
        minitorch.autograd.grad(y.sum(), x)
    y = checkpoint(lambda a: a * 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="^When use_reentrant=True"):
        y.sum().backward(inputs=[x])
    y = checkpoint(lambda a: (a * 2).detach(), x, use_reentrant=True)
    with pytest.raises(
        RuntimeError, match="^none of output has requires_grad=True, this checkpoint\\(\\) is not necessary$"
    ):
        y.sum().backward()


def test_reentrant_warns_without_input_grad():
    lin = nn.Linear(2, 2)
    with pytest.warns(
        UserWarning, match="^None of the inputs have requires_grad=True. Gradients will be None$"
    ):
        out = checkpoint(lin, minitorch.randn(1, 2), use_reentrant=True)
    # PyTorch's known pitfall of the reentrant variant: nothing to differentiate
    assert not out.requires_grad


def test_checkpoint_sequential_errors():
    x = minitorch.randn(2, requires_grad=True)
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: foo$"):
        checkpoint_sequential([nn.Identity()] * 2, 2, x, use_reentrant=False, foo=1)
    with pytest.raises(ZeroDivisionError):
        checkpoint_sequential([nn.Identity()] * 2, 0, x, use_reentrant=False)


def test_selective_checkpoint_contexts_and_switches():
    import functools

    from minitorch.utils import checkpoint as ck

    lin = nn.Linear(4, 4)
    x = minitorch.randn(3, 4, requires_grad=True)

    def block(t):
        return lin(t).relu().sin()

    def policy(ctx, op, *args, **kwargs):
        return ck.CheckpointPolicy.MUST_SAVE

    ref = minitorch.autograd.grad(block(x).sum(), (x, lin.weight))
    # the policy is accepted (every op recomputed): the gradients are plain checkpointing's, i.e. eager's
    ctx_fn = functools.partial(ck.create_selective_checkpoint_contexts, policy)
    with ck.set_checkpoint_early_stop(False), ck.set_checkpoint_debug_enabled(True):
        assert not ck._enable_checkpoint_early_stop and ck._checkpoint_debug_enabled
        out = ck.checkpoint(block, x, use_reentrant=False, context_fn=ctx_fn)
    assert ck._enable_checkpoint_early_stop and ck._checkpoint_debug_enabled is None
    got = minitorch.autograd.grad(out.sum(), (x, lin.weight))
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    fwd, rec = ck.create_selective_checkpoint_contexts([minitorch.mm])
    with fwd, rec:
        pass
    with pytest.raises(TypeError, match="^policy_fn_or_list must be either a function or a list of ops.$"):
        ck.create_selective_checkpoint_contexts(3)
    with pytest.raises(ValueError, match="Expected op in `op_list` to be an OpOverload but got: 3"):
        ck.create_selective_checkpoint_contexts([3])
    assert [p.name for p in ck.CheckpointPolicy][:4] == [
        "MUST_SAVE",
        "PREFER_SAVE",
        "MUST_RECOMPUTE",
        "PREFER_RECOMPUTE",
    ]
    assert ck.SelectiveCheckpointContext(is_recompute=True).is_recompute
    prev = ck.DefaultDeviceType._default_device_type
    try:
        ck.DefaultDeviceType._default_device_type = None
        assert ck.DefaultDeviceType.get_device_type() == ("cuda" if minitorch.cuda.is_available() else "cpu")
        ck.DefaultDeviceType.set_device_type("cpu")
        assert ck.DefaultDeviceType.get_device_type() == "cpu"
        ck.DefaultDeviceType.set_device_type()
        assert ck.DefaultDeviceType.get_device_type() == "cuda"
    finally:
        ck.DefaultDeviceType._default_device_type = prev
