"""vmap of Python composites (losses' torch.* spellings, pdist, histc, stacks, repeat_interleave, ...): batched by
rules, equal to a loop over the batch, with no loop-fallback warning."""

import warnings

import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.func import _batched, vmap
from minitorch.testing import assert_close

D = torch.float64


@pytest.fixture(autouse=True)
def _no_fallback(monkeypatch):
    torch.manual_seed(0)
    # the fallback warns once per op and process: forget earlier tests' warnings so that each test sees its own
    monkeypatch.setattr(_batched, "_warned", set())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the loop fallback's warning (or any other) fails the test
        yield


def rand(*shape):
    return torch.randn(shape, dtype=D)


def loop(f, in_dims):
    def run(*args):
        size = next(a.shape[d] for a, d in zip(args, in_dims) if d is not None)
        outs = [f(*[a if d is None else a.select(d, i) for a, d in zip(args, in_dims)]) for i in range(size)]
        if isinstance(outs[0], tuple):
            return tuple(torch.stack([o[j] for o in outs]) for j in range(len(outs[0])))
        return torch.stack(outs)

    return run


def check(f, args, in_dims):
    assert_close(vmap(f, in_dims=in_dims)(*args), loop(f, in_dims)(*args))


x34, y34, t34 = rand(3, 4), rand(3, 4), rand(3, 4)
VAR = rand(3, 4).abs() + 0.1  # gaussian_nll_loss's var, shared: PyTorch refuses a batched one
LOSSES = [
    ("kl_div", lambda a, b: torch.kl_div(a, b.abs(), 1), 2),
    ("kl_div_log_target", lambda a, b: torch.kl_div(a, b, 2, log_target=True), 2),
    ("hinge", lambda a, b: torch.hinge_embedding_loss(a, b.sign(), 0.5, 1), 2),
    ("triplet", lambda a, b, c: torch.triplet_margin_loss(a, b, c, 1.0, 2, 1e-6, True, 1), 3),
    ("bce_logits", lambda a, b: torch.binary_cross_entropy_with_logits(a, b.sigmoid(), None, None, 2), 2),
    ("margin_ranking", lambda a, b, c: torch.margin_ranking_loss(a, b, c.sign(), 0.1, 1), 3),
    ("margin_ranking_none", lambda a, b, c: torch.margin_ranking_loss(a, b, c.sign()), 3),
    ("gaussian_nll", lambda a, b: F.gaussian_nll_loss(a, b, VAR), 2),
    ("gaussian_nll_float", lambda a, b: F.gaussian_nll_loss(a, b, 0.5, full=True, reduction="sum"), 2),
    ("gaussian_nll_var_1d", lambda a, b: F.gaussian_nll_loss(a, b, VAR[:, 0], reduction="none"), 2),
    ("gaussian_nll_var_col", lambda a, b: F.gaussian_nll_loss(a, b, VAR[:, :1], reduction="sum"), 2),
    ("triplet_distance", lambda a, b, c: F.triplet_margin_with_distance_loss(a, b, c), 3),
    (
        "triplet_distance_swap_custom",
        lambda a, b, c: F.triplet_margin_with_distance_loss(
            a, b, c, distance_function=lambda u, v: (u - v).abs().sum(-1), swap=True, reduction="sum"
        ),
        3,
    ),
]


@pytest.mark.parametrize("name, f, n", LOSSES, ids=[c[0] for c in LOSSES])
@pytest.mark.parametrize("dims", ["all0", "dims012", "shared"])
def test_losses(name, f, n, dims):
    if dims == "all0":
        args, in_dims = (rand(5, 3, 4), rand(5, 3, 4), rand(5, 3, 4)), (0, 0, 0)
    elif dims == "dims012":
        args, in_dims = (rand(5, 3, 4), rand(3, 5, 4), rand(3, 4, 5)), (0, 1, 2)
    else:  # the other operands unbatched: the rule expands them, as shared arguments
        args, in_dims = (rand(5, 3, 4), x34, t34), (0, None, None)
    check(f, args[:n], in_dims[:n])


def test_gaussian_nll_loss_batched_var_refused_as_pytorch():
    x = rand(2, 3, 4)
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        vmap(F.gaussian_nll_loss)(x, x, x.abs())


def test_loss_nested_vmap():
    a, b = rand(2, 3, 4, 5), rand(2, 3, 4, 5)
    f = lambda u, v: torch.kl_div(u, v.abs(), 1)
    got = vmap(vmap(f))(a, b)
    assert_close(got, torch.stack([torch.stack([f(u, v) for u, v in zip(ua, va)]) for ua, va in zip(a, b)]))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.5, float("inf")])
def test_pdist(p):
    x = rand(4, 5, 3)
    x[1, 2] = x[1, 3]  # a zero distance
    check(lambda a: F.pdist(a, p), (x,), (0,))
    check(lambda a: torch.pdist(a, p), (x.movedim(0, 2),), (2,))


def test_pdist_nested_and_grad():
    x = rand(2, 3, 4, 2)
    assert_close(vmap(vmap(F.pdist))(x), torch.stack([torch.stack([F.pdist(e) for e in r]) for r in x]))
    xr = x[0].clone().requires_grad_()
    vmap(F.pdist)(xr).sum().backward()
    xl = x[0].clone().requires_grad_()
    torch.stack([F.pdist(e) for e in xl]).sum().backward()
    assert_close(xr.grad, xl.grad)
    assert vmap(F.pdist)(rand(3, 1, 4)).shape == (3, 0)


@pytest.mark.parametrize(
    "kw", [{}, {"bins": 7}, {"bins": 5, "min": -1, "max": 1}, {"bins": 3, "min": 0.25, "max": 0.25}]
)
def test_histc(kw):
    x = rand(4, 3, 5)
    x[2] = 1.5  # an entry whose min equals its max: its range widens by 1 each side
    check(lambda a: torch.histc(a, **kw), (x,), (0,))
    check(lambda a: a.histc(**kw), (x.movedim(0, 1),), (1,))
    check(lambda a: torch.histc(a, **kw), (x.float(),), (0,))


def test_histc_nested():
    x = rand(2, 3, 10)
    got = vmap(vmap(lambda a: torch.histc(a, 4)))(x)
    assert_close(got, torch.stack([torch.stack([torch.histc(e, 4) for e in r]) for r in x]))


@pytest.mark.parametrize("fn", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
def test_stacks(fn):
    def f(ts):
        return getattr(torch, fn)(
            ts
        )  # looked up inside vmap: the namespace then holds the dispatching wrapper

    a, b = rand(3, 2, 4), rand(2, 4, 3)
    check(lambda u, v: f([u, v]), (a, b), (0, 2))
    check(lambda u, v: f((u, v)), (a, b[:, :, 0]), (0, None))
    # a tensor is not a sequence of tensors to PyTorch, in eager mode or under vmap
    with pytest.raises(
        TypeError,
        match=f"{fn}\\(\\): argument 'tensors' \\(position 1\\) must be tuple of Tensors, not Tensor",
    ):
        vmap(f)(a)
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        f(a)
    c = rand(3, 4)
    check(lambda u, v: f([u, v]), (c, c[0]), (0, None))


@pytest.mark.parametrize(
    "f, shape",
    [
        (lambda a: torch.repeat_interleave(a, 2), (5, 3, 4)),
        (lambda a: torch.repeat_interleave(a, 3, dim=1), (5, 3, 4)),
        (lambda a: a.repeat_interleave(torch.tensor([1, 0, 2, 1]), dim=-1), (5, 3, 4)),
        (lambda a: torch.repeat_interleave(a, torch.tensor(2), dim=0), (5, 3, 4)),
        (lambda a: torch.repeat_interleave(a, torch.tensor([2, 1, 0])), (5, 3)),
    ],
)
def test_repeat_interleave(f, shape):
    x = rand(*shape)
    check(f, (x,), (0,))
    check(f, (x.movedim(0, 1),), (1,))


def test_repeat_interleave_batched_repeats():
    x = torch.arange(6.0, dtype=D).reshape(2, 3)
    reps = torch.tensor([[1, 2, 0], [1, 0, 2]])
    got = vmap(lambda a, r: torch.repeat_interleave(a, r, dim=0, output_size=3))(x, reps)
    assert_close(got, torch.tensor([[0.0, 1, 1], [3, 5, 5]], dtype=D))
    assert vmap(lambda r: torch.repeat_interleave(r, output_size=3))(reps).tolist() == [[0, 1, 1], [0, 2, 2]]
    shared = vmap(lambda r: torch.repeat_interleave(x[0], r, dim=0, output_size=3), in_dims=0)(reps)
    assert_close(shared, torch.tensor([[0.0, 1, 1], [0, 2, 2]], dtype=D))
    with pytest.raises(RuntimeError, match="requires the `output_size` argument to be specified"):
        vmap(lambda a, r: torch.repeat_interleave(a, r, dim=0))(x, reps)


def test_combinations():
    x = rand(4, 5)
    for r, rep in ((2, False), (3, True), (1, False)):
        check(lambda a, r=r, rep=rep: torch.combinations(a, r, rep), (x,), (0,))
    check(lambda a: torch.combinations(a), (x.T,), (1,))


def test_tensorinv_tensorsolve():
    a = rand(3, 4, 6, 8, 3)  # entries (4, 6, 8, 3): ind=2 makes 24 x 24
    a = a + 6 * torch.eye(24, dtype=D).reshape(1, 4, 6, 8, 3)
    check(lambda u: torch.linalg.tensorinv(u, ind=2), (a,), (0,))
    A = rand(3, 2, 3, 6) + 4 * torch.eye(6, dtype=D).reshape(1, 2, 3, 6)
    B = rand(3, 2, 3)
    check(lambda u, v: torch.linalg.tensorsolve(u, v), (A, B), (0, 0))
    check(lambda u, v: torch.linalg.tensorsolve(u, v), (A, B[0]), (0, None))
    A2 = A.movedim(3, 1)  # each entry's system dims first: dims=(0,) moves them back
    check(lambda u, v: torch.linalg.tensorsolve(u, v, dims=(0,)), (A2, B), (0, 0))
    assert_close(
        vmap(lambda u, v: torch.linalg.tensorsolve(u, v, dims=(0,)))(A2, B),
        vmap(torch.linalg.tensorsolve)(A, B),
    )


def test_small_composites():
    x, y = rand(3, 4, 5), rand(3, 5, 2)
    check(lambda a, b: torch.spmm(a, b), (x, y), (0, 0))
    check(lambda a, b: torch.spmm(a, b), (x, y[0]), (0, None))
    check(lambda a: torch.norm_except_dim(a, 2, 1), (x,), (0,))
    check(lambda a: torch.norm_except_dim(a, 3, -1), (x,), (0,))
    check(lambda a: F.adaptive_avg_pool2d(a, 1), (x,), (0,))
    check(lambda a: F.adaptive_avg_pool2d(a, (2, 3)), (rand(2, 3, 4, 6),), (0,))
    check(lambda a: torch.tensor(a, dtype=torch.float32), (x,), (0,))
    check(lambda a: torch.as_tensor(a) * 2, (x,), (0,))
    check(lambda a: torch.asarray(a, dtype=torch.float32), (x,), (0,))


def test_python_answers_and_refusals():
    x = rand(3, 4)
    assert vmap(lambda a, b: a * torch.is_same_size(a, b), out_dims=0)(x, x).tolist() == x.tolist()
    dtype_seen = []
    vmap(lambda a: dtype_seen.append(torch.result_type(a.sum(), 1.5)) or a)(x.float())
    assert dtype_seen == [torch.float32]
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'bool'>"):
        vmap(lambda a: torch.is_same_size(a, a))(x)
    for name in ("svd_lowrank", "pca_lowrank", "lobpcg"):
        with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
            vmap(lambda a, name=name: getattr(torch, name)(a @ a.T))(rand(2, 8, 8))


def test_lowrank_different_randomness():
    a = rand(3, 6, 2) @ rand(3, 2, 5)  # rank 2: a q=2 basis reconstructs each entry exactly
    u, s, v = vmap(lambda m: torch.svd_lowrank(m, q=2), randomness="different")(a)
    assert_close(u @ torch.diag_embed(s) @ v.mT, a)


def test_alpha_dropout_eval_is_identity():
    x = rand(3, 4)
    assert_close(vmap(F.alpha_dropout)(x), x)
    y = rand(2, 3, 4)
    assert_close(vmap(F.feature_alpha_dropout)(y), y)


def test_diff():
    x = rand(3, 4, 5)
    check(lambda a: torch.diff(a, 2), (x,), (0,))  # n=2 (diff's second argument is n, not dim)
    check(lambda a: a.diff(1, 0), (x,), (2,))
    check(lambda a: torch.diff(a, dim=0, prepend=a[:1]), (x,), (0,))
    check(lambda a, b: torch.diff(a, 2, dim=1, append=b), (x, x[0, :, :2]), (0, None))


def test_tril_triu_in_place_return_self():
    x = rand(3, 4, 5)

    def f(a):
        b = a.clone()
        assert b.triu_(1) is b
        return b.tril_(2)

    check(f, (x,), (0,))
    check(f, (x,), (1,))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multi_margin_loss(reduction):
    x, t = rand(3, 4, 5), torch.randint(0, 5, (3, 4))
    w = torch.rand(5, dtype=D)
    check(lambda a, b: F.multi_margin_loss(a, b, reduction=reduction), (x, t), (0, 0))
    check(
        lambda a, b: F.multi_margin_loss(a, b, p=2, weight=w, reduction=reduction),
        (x.movedim(0, 1), t[0]),
        (1, None),
    )
    check(lambda a, b: F.multi_margin_loss(a[0], b[0], margin=0.5, reduction=reduction), (x, t), (0, 0))


def test_index_put():
    x = rand(3, 4, 5)
    i, j = torch.tensor([0, 2, 0]), torch.tensor([1, 1, 3])
    check(lambda a: a.index_put((i,), a[0]), (x,), (0,))
    check(lambda a: a.index_put((i, j), torch.tensor(1.0, dtype=D), True), (x,), (1,))
    check(lambda a: torch.index_put(a, (i,), a[1:4], accumulate=True), (x,), (0,))
    check(lambda a: a.clone().index_put_((i, j), a[0, 0], accumulate=True), (x,), (2,))
    ks = torch.randint(0, 4, (3, 2))
    check(lambda a, k: a.index_put((k,), torch.zeros(5, dtype=D), True), (x, ks), (0, 0))
    check(lambda k: torch.index_put(x[0], (k,), x[0, 0]), (ks,), (0,))
    f = lambda a: a.index_put((i,), a[0])
    nested = vmap(vmap(f))(x.reshape(3, 1, 4, 5).expand(3, 2, 4, 5))
    assert_close(nested, torch.stack([f(a) for a in x]).unsqueeze(1).expand(3, 2, 4, 5))


@pytest.mark.parametrize(
    "name", ["kl_div", "margin_ranking", "triplet", "gaussian_nll", "triplet_distance", "hinge"]
)
def test_loss_gradients_through_the_rules(name):
    f, n = next((c[1], c[2]) for c in LOSSES if c[0] == name)
    args = [rand(4, 3, 4).requires_grad_() for _ in range(n)]
    vmap(f)(*args).sum().backward()
    got = [a.grad for a in args]
    plain = [a.detach().clone().requires_grad_() for a in args]
    loop(f, (0,) * n)(*plain).sum().backward()
    for g, p in zip(got, plain):
        if p.grad is None:  # an operand reached through sign(): no gradient either way
            assert g is None
        else:
            assert_close(g, p.grad)
