"""Autograd: gradcheck (float64, central differences) of every derivative formula, engine semantics, errors."""

import gc
import weakref

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import Function, gradcheck, gradgradcheck
from tests.ops import op_schema, opdb
from tests.utils import cases_here, cases_here_and_in_pytorch


def rnd(*shape, device="cpu", low=None, high=None, requires_grad=True):
    x = torch.randn(shape, dtype=torch.float64, device=device)
    if low is not None:
        x = torch.rand(shape, dtype=torch.float64, device=device) * (high - low) + low
    return x.requires_grad_(requires_grad)


def away_from_zero(*shape, device="cpu"):
    x = torch.rand(shape, dtype=torch.float64, device=device) * 0.8 + 0.2
    s = torch.randint(0, 2, shape, device=device).double() * 2 - 1
    return (x * s).requires_grad_()


# ---- elementwise ----

# the gradcheck domain of every differentiable unary op lives in its op database entry (tests/ops/opdb.py) beside
# its value test case, so a new op's test cases are one entry
UNARY = opdb.UNARY_GRADCHECK
# table ops without a derivative: their results never require grad
UNARY_NOT_DIFFERENTIABLE = opdb.UNARY_NOT_DIFFERENTIABLE


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradcheck(name, device):
    kw = UNARY[name]
    if kw.get("nz"):
        x = away_from_zero(2, 3, device=device)
    elif "low" in kw:
        x = rnd(2, 3, device=device, low=kw["low"], high=kw["high"])
    else:
        x = rnd(2, 3, device=device)
    fn = op_schema.function(name)
    assert gradcheck(fn, (x,))
    # non-contiguous input
    xt = x.detach().t().requires_grad_()
    assert gradcheck(fn, (xt,))


def test_gelu_tanh_softplus_leaky_relu(device):
    x = away_from_zero(2, 3, device=device)
    assert gradcheck(torch.gelu_tanh, (x,))
    assert gradcheck(lambda t: torch.softplus(t, 2.0, 1.0), (x,))
    assert gradcheck(lambda t: torch.leaky_relu(t, 0.1), (x,))


# opdb's binary entries: gradcheck over broadcast shapes here, an own test (test_pow_gradcheck; trunc_divide is
# div(rounding_mode="trunc"); xlogy needs other > 0, test_composite_math.py), or no derivative
BINARY = opdb.BINARY_GRADCHECK
BINARY_ELSEWHERE = opdb.BINARY_GRAD_ELSEWHERE
BINARY_NOT_DIFFERENTIABLE = opdb.BINARY_NOT_DIFFERENTIABLE


def test_every_table_op_is_covered():
    assert sorted(op_schema.UNARY) == sorted(list(UNARY) + UNARY_NOT_DIFFERENTIABLE)
    assert sorted(op_schema.BINARY) == sorted(BINARY + BINARY_ELSEWHERE + BINARY_NOT_DIFFERENTIABLE)
    # the schema's `grad: none` are exactly the ones tested as not differentiable
    assert sorted(n for n in op_schema.UNARY if op_schema.BY_NAME[n].grad is None) == sorted(
        UNARY_NOT_DIFFERENTIABLE
    )


def test_non_differentiable_results_do_not_require_grad():
    x = torch.randn(3, requires_grad=True)
    for name in ["logical_not", "isnan", "isinf", "isfinite"]:
        assert not getattr(torch, name)(x).requires_grad
    for name in ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]:
        assert not getattr(torch, name)(x, x * 2).requires_grad
    assert not x.argmax().requires_grad and not (x > 0).any().requires_grad


def test_trunc_divide_gradcheck(device):
    a, b = away_from_zero(2, 3, device=device), away_from_zero(2, 3, device=device)
    assert gradcheck(lambda x, y: torch.div(x, y, rounding_mode="trunc"), (a, b))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3))])
def test_binary_gradcheck_broadcast(name, shapes, device):
    a = away_from_zero(*shapes[0], device=device)
    b = away_from_zero(*shapes[1], device=device) * 1.7
    b = b.detach().requires_grad_()
    assert gradcheck(op_schema.function(name), (a, b))


def test_pow_gradcheck(device):
    a = rnd(2, 3, device=device, low=0.5, high=2.0)
    b = rnd(2, 3, device=device)
    assert gradcheck(torch.pow, (a, b))
    assert gradcheck(lambda t: t**3, (a,))
    assert gradcheck(lambda t: 2.0**t, (b,))


def test_scalar_operands_and_alpha(device):
    a = rnd(3, device=device)
    assert gradcheck(lambda t: (2 * t - 1) / 3 + t * t, (a,))
    b = rnd(3, device=device)
    assert gradcheck(lambda x, y: torch.add(x, y, alpha=2.5), (a, b))
    assert gradcheck(lambda x, y: torch.sub(x, y, alpha=0.5), (a, b))


def test_where_clamp_masked_fill_lerp(device):
    a, b = rnd(2, 3, device=device), rnd(3, device=device)
    cond = torch.randn(2, 3, device=device) > 0
    assert gradcheck(lambda x, y: torch.where(cond, x, y), (a, b))
    x = away_from_zero(2, 3, device=device)
    assert gradcheck(lambda t: torch.clamp(t, -0.5, 0.5), (x,))
    assert gradcheck(lambda t: t.clamp(min=0.1), (x,))
    lo = (torch.zeros(3, dtype=torch.float64, device=device) - 0.5).requires_grad_()
    assert gradcheck(lambda t, m: torch.clamp(t, m), (x, lo))
    mask = torch.randn(2, 3, device=device) > 0
    assert gradcheck(lambda t: t.masked_fill(mask, 3.0), (x,))
    w = rnd(2, 3, device=device, low=0.0, high=1.0, requires_grad=False)
    assert gradcheck(lambda s, e: torch.lerp(s, e, w), (a, rnd(2, 3, device=device)))


# ---- reductions ----


@pytest.mark.parametrize("dims", [None, 0, 1, (0, 2), (-1, 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_mean_tuple_dims(dims, keepdim, device):
    x = rnd(2, 3, 2, device=device)
    if dims is None:
        assert gradcheck(lambda t: t.sum(), (x,))
        assert gradcheck(lambda t: t.mean(), (x,))
        return
    assert gradcheck(lambda t: t.sum(dims, keepdim=keepdim), (x,))
    assert gradcheck(lambda t: t.mean(dims, keepdim=keepdim), (x,))
    assert gradcheck(lambda t: t.var(dims, keepdim=keepdim), (x,))
    assert gradcheck(lambda t: t.std(dims, keepdim=keepdim), (x,))
    assert gradcheck(lambda t: t.amax(dims, keepdim=keepdim), (x,))
    assert gradcheck(lambda t: t.amin(dims, keepdim=keepdim), (x,))
    assert gradcheck(lambda t: t.logsumexp(dims, keepdim=keepdim), (x,))
    assert gradcheck(lambda t: t.norm(2, dims, keepdim=keepdim), (x,))


def test_other_reductions(device):
    x = away_from_zero(2, 3, device=device)
    assert gradcheck(lambda t: t.prod(), (x,))
    assert gradcheck(lambda t: t.prod(1), (x,))
    assert gradcheck(lambda t: t.max(), (x,))
    assert gradcheck(lambda t: t.min(), (x,))
    assert gradcheck(lambda t: t.max(1)[0], (x,))
    assert gradcheck(lambda t: t.min(0, keepdim=True)[0], (x,))
    assert gradcheck(lambda t: t.norm(), (x,))
    assert gradcheck(lambda t: t.norm(1), (x,))
    assert gradcheck(lambda t: t.norm(3, 1), (x,))
    assert gradcheck(lambda t: t.var(correction=0) if False else t.var(), (x,))
    assert gradcheck(lambda t: t.cumsum(1), (x,))
    assert gradcheck(lambda t: t.cumsum(0), (x,))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_log_softmax(dim, device):
    x = rnd(3, 4, device=device)
    assert gradcheck(lambda t: torch.softmax(t, dim), (x,))
    assert gradcheck(lambda t: torch.log_softmax(t, dim), (x,))
    assert gradcheck(lambda t: torch.softmax(t.t(), dim), (x,))


# ---- linear algebra ----


def test_matmul_family(device):
    a, b = rnd(2, 3, device=device), rnd(3, 4, device=device)
    assert gradcheck(torch.mm, (a, b))
    assert gradcheck(torch.matmul, (a, b))
    assert gradcheck(lambda x, y: x @ y, (a.detach().t().contiguous().t().requires_grad_(), b))
    assert gradcheck(torch.mm, (rnd(3, 2, device=device).detach().t().requires_grad_(), b))
    assert gradcheck(torch.bmm, (rnd(2, 2, 3, device=device), rnd(2, 3, 2, device=device)))
    assert gradcheck(torch.mv, (a, rnd(3, device=device)))
    assert gradcheck(torch.dot, (rnd(3, device=device), rnd(3, device=device)))
    assert gradcheck(lambda s, x, y: torch.addmm(s, x, y, beta=0.5, alpha=2.0), (rnd(4, device=device), a, b))
    assert gradcheck(torch.outer, (rnd(2, device=device), rnd(3, device=device)))


@pytest.mark.parametrize(
    "sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 2, 3), (3, 2)), ((2, 1, 2, 3), (3, 3, 2))]
)
def test_matmul_batch_broadcast(sa, sb, device):
    assert gradcheck(torch.matmul, (rnd(*sa, device=device), rnd(*sb, device=device)))


def test_einsum(device):
    assert gradcheck(
        lambda x, y: torch.einsum("ij,jk->ik", x, y), (rnd(2, 3, device=device), rnd(3, 2, device=device))
    )


# ---- views, shape ops ----


def test_views_and_shape_ops(device):
    x = rnd(2, 3, 4, device=device)
    cases = [
        lambda t: t.view(6, 4),
        lambda t: t.reshape(4, 6),
        lambda t: t.permute(2, 0, 1),
        lambda t: t.transpose(0, 2),
        lambda t: t.t() if t.dim() == 2 else t[0].t(),
        lambda t: t.unsqueeze(1).squeeze(1),
        lambda t: t[:, :1].squeeze(),
        lambda t: t[:, :1].squeeze(1),
        lambda t: t[:1].expand(3, 3, 4),
        lambda t: t.narrow(2, 1, 2),
        lambda t: t.select(1, 2),
        lambda t: t[1, ::2, 1:3],
        lambda t: t[..., None, -1],
        lambda t: t.flatten(),
        lambda t: t.movedim(0, 2),
        lambda t: t.diagonal(0, 1, 2),
        lambda t: t.split(2, dim=2)[1],
        lambda t: t.chunk(3, 1)[2],
        lambda t: t.unbind(0)[1],
        lambda t: t.permute(2, 0, 1).reshape(4, 6),  # reshape of a non-viewable input copies
        lambda t: t.contiguous(),
        lambda t: t.clone(),
    ]
    for fn in cases:
        assert gradcheck(fn, (x,))


@pytest.mark.parametrize(
    "parts",
    [lambda t: t.chunk(3, 1), lambda t: t.split([1, 3, 2], 1), lambda t: t.unbind(0), lambda t: t.unbind(2)],
)
def test_split_and_unbind_are_one_node(device, parts):
    """split/chunk/unbind record one node for all their parts (SplitWithSizesBackward0 / UnbindBackward0, whose
    backward concatenates or stacks the parts' gradients, zeros for unused parts), not a zero-filled whole per
    part: gradients of a sum over some parts, a double backward, and PyTorch's refusal of an in-place write into
    one part."""
    x = rnd(3, 6, 2, device=device)
    ps = parts(x)
    fns = [p.grad_fn for p in ps]  # held: ids of freed temporaries may differ even for one node
    assert all(f is fns[0] for f in fns)
    assert ps[0].grad_fn.name() in ("SplitWithSizesBackward0", "UnbindBackward0")
    node = "Unbind" if ps[0].grad_fn.name() == "UnbindBackward0" else "SplitWithSizes"
    assert gradcheck(lambda t: sum((w * (k + 1)) ** 2 for k, w in enumerate(parts(t)) if k != 1).sum(), (x,))
    assert gradgradcheck(lambda t: (parts(t)[0] ** 3).sum() + (parts(t)[-1] ** 2).sum(), (x,))
    # an in-place write into one part is refused, as PyTorch's (the parts share one node); without
    # anything that requires grad it writes the whole
    y = x * 1
    with pytest.raises(
        RuntimeError, match=f"^Output 1 of {node} is a view and is being modified inplace. This view"
    ):
        parts(y)[1].mul_(3)
    g = torch.ones_like(x)
    parts(g)[0].mul_(3)
    assert g.sum().item() == x.numel() + 2 * ps[0].numel()


def test_cat_stack(device):
    a, b = rnd(2, 3, device=device), rnd(1, 3, device=device)
    assert gradcheck(lambda x, y: torch.cat([x, y], 0), (a, b))
    assert gradcheck(lambda x, y: torch.cat([x.t(), y.t()], 1), (a, b))
    c = rnd(2, 3, device=device)
    assert gradcheck(lambda x, y: torch.stack([x, y], 1), (a, c))
    # only one input requires grad
    assert gradcheck(lambda x: torch.cat([x, b.detach()], 0), (a,))


def test_indexing(device):
    x = rnd(4, 3, device=device)
    idx = torch.tensor([0, 2, 2], device=device)
    assert gradcheck(lambda t: t[idx], (x,))
    assert gradcheck(lambda t: t[:, idx], (x,))
    assert gradcheck(lambda t: t[t.detach() > 0], (x,))
    assert gradcheck(lambda t: t.index_select(0, idx), (x,))
    assert gradcheck(lambda t: t.index_select(1, idx), (x,))
    g = torch.tensor([[0, 1, 1], [2, 0, 0]], device=device)
    assert gradcheck(lambda t: t.gather(0, g), (x,))
    assert gradcheck(lambda t: t.gather(1, g), (x,))


def test_copy_to_dtype_and_device(device):
    x = rnd(2, 3, device=device)
    y = x.float()
    assert y.grad_fn is not None
    (y * 2).sum().backward()
    assert x.grad.dtype == torch.float64
    assert torch.allclose(x.grad, torch.full((2, 3), 2.0, dtype=torch.float64, device=device))
    x.grad = None
    z = x.to("cpu") * 3
    z.sum().backward()
    assert x.grad.device == x.device
    assert gradcheck(lambda t: t.to(torch.float64, copy=True) * t, (x,))
    buf = torch.zeros(2, 3, dtype=torch.float64, device=device)
    assert gradcheck(lambda t: buf.clone().copy_(t * 2), (x,))


# ---- engine ----


def test_accumulation_and_shared_inputs():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x + x  # two consumers of x
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 5.0, 7.0]
    (x * 2).sum().backward()  # accumulates into .grad
    assert x.grad.tolist() == [5.0, 7.0, 9.0]
    x.grad.zero_()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_grad_fn_is_leaf_names():
    x = torch.randn(3, requires_grad=True)
    y = x + 1
    assert x.is_leaf and not y.is_leaf
    assert x.grad_fn is None
    assert y.grad_fn.name() == "AddBackward0"
    assert "AddBackward0" in repr(y.grad_fn)
    fn, nr = y.grad_fn.next_functions[0]
    assert fn.name() == "torch::autograd::AccumulateGrad" and fn.variable is x and nr == 0
    assert "grad_fn=<MulBackward0>" in repr(x * 2)
    z = torch.randn(3)
    assert (z + 1).grad_fn is None and (z + 1).is_leaf
    assert (x > 0).grad_fn is None  # comparisons are not differentiable


def test_backward_errors():
    x = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(
        RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"
    ):
        torch.randn(3).sum().backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(torch.ones(2))
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        torch.tensor([1, 2]).requires_grad_()
    y = x.exp().sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph():
    x = torch.randn(3, requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    g1 = x.grad.clone()
    y.backward()
    assert torch.allclose(x.grad, 2 * g1)


def test_backward_with_gradient():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    y.backward(torch.tensor([1.0, 0.5, 0.0]))
    assert x.grad.tolist() == [2.0, 1.0, 0.0]


def test_version_counter_error():
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    z = y.sum() + (y * 1).sum()
    with torch.no_grad():
        y.add_(1)  # y is saved by ExpBackward0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3)
    c = (a * b).sum()
    b.mul_(2)
    with pytest.raises(RuntimeError, match="is at version .*; expected version .* instead"):
        c.backward()


def test_inplace_rules():
    w = torch.randn(3, requires_grad=True)
    with pytest.raises(
        RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."
    ):
        w.add_(1)
    (w * 2).sum().backward()
    with torch.no_grad():
        w -= 0.1 * w.grad  # the optimizer step of every tutorial
    assert w.is_leaf and w.requires_grad
    w.grad.zero_()
    # in-place on a non-leaf is recorded
    x = torch.randn(4, requires_grad=True)
    y = x * 2
    y.mul_(3)
    y.sum().backward()
    assert x.grad.tolist() == [6.0] * 4
    # x[mask] = 0 on a non-leaf
    x = torch.tensor([1.0, -2.0, 3.0, -4.0], requires_grad=True)
    h = x * 1
    h[h < 0] = 0
    h.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0, 0.0]
    # a tensor that does not require grad starts to through an in-place op
    x = torch.randn(3, requires_grad=True)
    buf = torch.zeros(3)
    buf.add_(x)
    assert buf.requires_grad and not buf.is_leaf
    (buf * 2).sum().backward()
    assert x.grad.tolist() == [2.0] * 3


def test_no_grad_and_modes():
    x = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    with torch.no_grad(), torch.enable_grad():
        assert (x * 2).requires_grad
    with torch.inference_mode():
        assert not (x * 2).requires_grad
        assert torch.is_inference_mode_enabled()
    assert torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()

    @torch.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad

    @torch.inference_mode()
    def g(t):
        return t * 2

    assert not g(x).requires_grad


def test_inference_tensors(device):
    w = torch.randn(3, device=device, requires_grad=True)
    normal = torch.ones(3, device=device)
    with torch.inference_mode():
        a = torch.ones(3, device=device)
        b = a * 2
        v = normal[:2]  # a view of a normal tensor stays normal
        a.add_(1)  # in-place inside inference mode is allowed
        assert not b.requires_grad
    assert a.is_inference() and b.is_inference() and torch.is_inference(a[1:])
    assert not v.is_inference() and not normal.is_inference()
    np.testing.assert_array_equal(a.cpu().numpy(), [2.0, 2.0, 2.0])
    # reading them outside is fine, also in ops with tensors that do not require grad
    assert (a + normal).tolist() == [3.0, 3.0, 3.0] and not (a + normal).is_inference()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        a * w
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        a.add_(1)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        a[0] = 5.0
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        a.copy_(normal)
    for write in (lambda t: t.exp_(), lambda t: t.clamp_(0, 1), lambda t: t.masked_fill_(t > 0, 1)):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
            write(a)
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside"):
        a.requires_grad_()
    np.testing.assert_array_equal(a.cpu().numpy(), [2.0, 2.0, 2.0])  # nothing was written
    # a clone is a normal tensor that autograd may use
    c = a.clone()
    (c * w).sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [2.0, 2.0, 2.0])
    with torch.inference_mode(False):
        assert not torch.ones(1).is_inference()


def test_grad_mode_is_thread_local():
    import threading

    x = torch.randn(3, requires_grad=True)
    seen = []
    with torch.no_grad():
        t = threading.Thread(target=lambda: seen.append((x * 2).requires_grad))
        t.start()
        t.join()
    assert seen == [True]


def test_detach_retain_grad_data():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d._is_view_of(y)
    y.retain_grad()
    z = (y * y).sum()
    z.backward()
    assert torch.allclose(y.grad, 2 * y.detach())
    assert torch.allclose(x.grad, 8 * x.detach())
    u = x * 3
    u.detach_()
    assert not u.requires_grad and u.is_leaf
    with pytest.raises(RuntimeError, match="leaf variables"):
        (x * 2).requires_grad_(False)
    assert not x.data.requires_grad


def test_autograd_grad():
    x = torch.randn(3, requires_grad=True)
    w = torch.randn(3, requires_grad=True)
    y = (x * w).sum()
    (gx,) = torch.autograd.grad(y, x, retain_graph=True)
    assert torch.allclose(gx, w.detach())
    assert x.grad is None and w.grad is None  # grad() leaves .grad alone
    gx, gw = torch.autograd.grad(y, [x, w])
    assert torch.allclose(gw, x.detach())
    u = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        torch.autograd.grad((x * 2).sum(), [x, u])
    gx, gu = torch.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
    assert gu is None
    # gradient with respect to an intermediate
    h = x * 2
    out = (h * h).sum()
    (gh,) = torch.autograd.grad(out, h)
    assert torch.allclose(gh, 2 * h.detach())
    # multiple outputs with grad_outputs
    a, b = x * 2, x * 3
    (g,) = torch.autograd.grad([a, b], x, [torch.ones(3), torch.ones(3)])
    assert g.tolist() == [5.0] * 3


def test_autograd_backward_function():
    x = torch.randn(3, requires_grad=True)
    torch.autograd.backward([(x * 2).sum(), (x * 3).sum()])
    assert x.grad.tolist() == [5.0] * 3


def test_hooks():
    x = torch.randn(3, requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.clone()))
    (x * 2).sum().backward()
    assert seen[0].tolist() == [2.0] * 3
    h.remove()
    (x * 2).sum().backward()
    assert len(seen) == 1
    # a hook that replaces the gradient, on a non-leaf
    x.grad = None
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert x.grad.tolist() == [20.0] * 3
    x.grad = None
    x.register_hook(lambda g: g + 1)
    (x * 1).sum().backward()
    assert x.grad.tolist() == [2.0] * 3
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        torch.randn(2).register_hook(lambda g: g)


def test_hook_registration_checks_requires_grad_first():
    # PyTorch looks at the tensor before the hook: any object registers on a tensor that requires grad, and
    # one that cannot be called fails when backward calls it
    msg = "cannot register a hook on a tensor that doesn't require gradient"
    for register in ("register_hook", "register_post_accumulate_grad_hook"):
        for hook in (lambda g: g, 1, None):
            with pytest.raises(RuntimeError) as e:
                getattr(torch.ones(2), register)(hook)
            assert str(e.value) == msg
    x = torch.ones(2, requires_grad=True)
    x.register_hook(1)
    with pytest.raises(TypeError, match="'int' object is not callable"):
        (x * 2).sum().backward()


def test_as_strided_gradient_accumulates_overlaps():
    x = torch.randn(6, requires_grad=True)
    torch.as_strided(x, (3, 2), (1, 1), 0).sum().backward()  # x1, x2 are read twice
    assert x.grad.tolist() == [1.0, 2.0, 2.0, 1.0, 0.0, 0.0]
    assert gradcheck(lambda t: torch.as_strided(t * 1, (2, 2), (1, 2), 1) ** 2, (rnd(6),))


def test_missing_formula_names_the_op():
    x = torch.randn(6, requires_grad=True)
    # as_strided counts from the storage: over a non-contiguous view the gradient has no layout to follow
    y = torch.as_strided(x.view(2, 3).t(), (2, 2), (1, 2), 0)
    with pytest.raises(NotImplementedError, match="as_strided"):
        y.sum().backward()


def test_inplace_through_views():
    x = torch.randn(3, 2, requires_grad=True)
    h = x * 1
    h[:, 0] = 0  # slice assignment on a non-leaf
    h.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0]] * 3
    x.grad = None
    h = x * 1
    h[1].mul_(3)  # in-place op through a view
    (h * h.detach()).sum().backward()
    expected = (x.detach() * 1).clone()
    expected[1] = expected[1] * 9
    assert torch.allclose(x.grad, expected)
    # assigning values that require grad
    y = torch.randn(2, requires_grad=True)
    x.grad = None
    h = x * 2
    h[0] = y
    (h * 3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]
    assert x.grad.tolist() == [[0.0, 0.0], [6.0, 6.0], [6.0, 6.0]]
    # the view itself has the new history
    h = x * 1
    v = h.t()[0]
    v.add_(1)
    assert v.grad_fn is not None and h.grad_fn.name() == "torch::autograd::CopySlices"
    w = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w[0].mul_(2)
    # an as_strided view is replayed from its strides and offset
    x.grad = None
    h = x * 1
    torch.as_strided(h, (2,), (2,), 1).mul_(5)  # elements (0, 1) and (1, 1)
    h.sum().backward()
    assert x.grad.tolist() == [[1.0, 5.0], [1.0, 5.0], [1.0, 1.0]]


class ScaleInPlace(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.mark_dirty(x)
        ctx.k = k
        return x.mul_(k)

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


def test_function_mark_dirty():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    c = ScaleInPlace.apply(b, 3.0)
    assert c is b and b.grad_fn.name() == "ScaleInPlaceBackward"
    assert b.tolist() == [3.0, 6.0, 9.0]
    (c * c).sum().backward()  # d/da (3a)^2 = 18 a
    assert a.grad.tolist() == [18.0, 36.0, 54.0]
    # through a view: the base takes the history
    a.grad = None
    h = a * 1
    ScaleInPlace.apply(h[1:], 2.0)
    h.sum().backward()
    assert a.grad.tolist() == [1.0, 2.0, 2.0]
    assert gradcheck(lambda t: ScaleInPlace.apply(t * 1, 1.5), (rnd(4),))
    # a leaf that requires grad cannot be modified in place
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        ScaleInPlace.apply(a, 2.0)


def test_inplace_view_gradcheck():
    def f(t):
        h = t * 1
        h[1:, 0] = h[:2, 1] * 2
        h[0].exp_()
        return h

    assert gradcheck(f, (rnd(3, 2),))


# In-place writes through the complex parts of a complex tensor made from `w` (an rfft: 5 bins of 8 reals) or
# a complex view of a real one (`x`, [4, 2]); each returns a real result. `k.imag *= -1` is the setter with
# the very view the getter gave (k.imag.__imul__(-1) assigned back), the others assign other values, write
# through a part's slice or element, or write into a complex view of a real tensor.
COMPLEX_PART_WRITES = """
def _parts(torch, w, f):
    k = torch.fft.rfft(w)
    f(k)
    return torch.view_as_real(k) * torch.arange(1.0, 11.0, dtype=w.dtype).view(5, 2) + k.abs()[:, None]


def _of_real(torch, x, f):
    r = x * 1
    f(r, torch.view_as_complex(r))
    return r**3


def _imag_neg(k):
    k.imag *= -1


def _real_neg(k):
    k.real *= -1


def _both(k):
    k.imag *= -1
    k.real += k.imag * 2


def _imag_from_real(k):
    k.imag = k.real.clone().sin()  # a clone: sin saves its input, a view the write changes


def _real_from_imag(k):
    k.real = k.imag.clone() * k.real.clone()


def _imag_number(k):
    k.imag = 1.5


def _imag_row(k):
    k.imag[0] = 3


def _imag_slice(k):
    k.imag[1:4] *= k.real[1:4].clone()


def _real_add_(k):
    k.real.add_(1)


def _imag_mul_(k):
    k.imag.mul_(-1)


WRITES = {
    "k.imag *= -1": lambda torch, w: _parts(torch, w, _imag_neg),
    "k.real *= -1": lambda torch, w: _parts(torch, w, _real_neg),
    "both parts": lambda torch, w: _parts(torch, w, _both),
    "k.imag = k.real.clone().sin()": lambda torch, w: _parts(torch, w, _imag_from_real),
    "k.real = k.imag * k.real (clones)": lambda torch, w: _parts(torch, w, _real_from_imag),
    "k.imag = 1.5": lambda torch, w: _parts(torch, w, _imag_number),
    "k.imag[0] = 3": lambda torch, w: _parts(torch, w, _imag_row),
    "k.imag[1:4] *= k.real[1:4].clone()": lambda torch, w: _parts(torch, w, _imag_slice),
    "k.real.add_(1)": lambda torch, w: _parts(torch, w, _real_add_),
    "k.imag.mul_(-1)": lambda torch, w: _parts(torch, w, _imag_mul_),
    "view_as_complex(r).mul_(0.5+1j)": lambda torch, w: _of_real(torch, w.view(4, 2), lambda r, c: c.mul_(0.5 + 1j)),
    "view_as_complex(r)[1] = 2+3j": lambda torch, w: _of_real(torch, w.view(4, 2), lambda r, c: c.__setitem__(1, 2 + 3j)),
    "view_as_complex(r)[1:].imag *= 3": lambda torch, w: _of_real(
        torch, w.view(4, 2), lambda r, c: c[1:].imag.mul_(3)
    ),
}

W = [0.3, -1.2, 0.8, 2.1, -0.4, 0.9, -1.7, 0.5]


def cases(torch):
    run = runner(lambda v: [round(float(e), 9) for e in v.flatten().tolist()])
    out = {}
    for name, f in WRITES.items():
        w = torch.tensor(W, dtype=torch.float64, requires_grad=True)
        y = f(torch, w)
        out[name + ": value"] = run(lambda: y.detach())
        g = torch.autograd.grad((y * y.detach().cos()).sum(), w, create_graph=True)[0]
        out[name + ": grad"] = run(lambda: g.detach())
        out[name + ": grad of grad"] = run(lambda: torch.autograd.grad((g * g).sum(), w)[0])
    return out
"""


def test_inplace_writes_through_complex_parts_against_finite_differences():
    """The part setters (k.imag = v, k.imag *= -1: the getter's own view assigned back) and in-place writes
    through .real/.imag and view_as_complex: their gradients against central differences, twice."""
    ns = {}
    exec(COMPLEX_PART_WRITES, ns)  # noqa: S102 - the table the oracle test runs too
    for name, f in ns["WRITES"].items():
        w = torch.tensor(ns["W"], dtype=torch.float64, requires_grad=True)
        assert gradcheck(lambda t, f=f: f(torch, t), (w,)), name
        assert gradgradcheck(lambda t, f=f: f(torch, t), (w,)), name


def test_inplace_writes_through_complex_parts_as_pytorchs():
    ours, theirs = cases_here_and_in_pytorch(COMPLEX_PART_WRITES, [("torch", torch)])
    assert ours.keys() == theirs.keys()
    for key, want in theirs.items():
        assert np.allclose(ours[key], want, rtol=1e-9, atol=1e-9), (key, ours[key], want)


# ---- Function ----


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        r = x.exp()
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return g * r


class MulConst(Function):
    @staticmethod
    def forward(ctx, x, c):
        ctx.c = c
        return x * c, (x > 0)

    @staticmethod
    def backward(ctx, g, _):
        assert ctx.needs_input_grad == (True, False)
        return g * ctx.c, None


def test_function():
    x = rnd(3)
    assert gradcheck(Exp.apply, (x,))
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward"
    y.sum().backward()
    assert torch.allclose(x.grad, x.detach().exp())
    x.grad = None
    out, _mask = MulConst.apply(x, 2.5)
    out.sum().backward()
    assert torch.allclose(x.grad, torch.full((3,), 2.5, dtype=torch.float64))
    # saved tensors are freed after backward
    y = Exp.apply(x)
    s = y.sum()
    s.backward()
    with pytest.raises(RuntimeError, match="second time"):
        s.backward()
    # without grad the function just runs
    with torch.no_grad():
        assert Exp.apply(x).grad_fn is None


class NonDiff(Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.mark_non_differentiable(y)
        return y

    @staticmethod
    def backward(ctx, g):
        return g


def test_function_non_differentiable():
    x = rnd(3)
    assert not NonDiff.apply(x).requires_grad


# ---- double backward ----


def test_double_backward_elementwise_reductions_matmul(device):
    x = rnd(2, 3, device=device)
    assert gradgradcheck(lambda t: (t * t.sin()).sum(), (x,))
    assert gradgradcheck(lambda t: t.exp().mean(1), (x,))
    assert gradgradcheck(lambda t: torch.softmax(t, 1), (x,))
    assert gradgradcheck(lambda t: t.tanh().sigmoid(), (x,))
    w = rnd(3, 4, device=device)
    assert gradgradcheck(torch.mm, (x, w))
    assert gradgradcheck(lambda a, b: (a @ b).relu().sum(), (x, w))


def test_gradient_penalty():
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 1, dtype=torch.float64, requires_grad=True)
    out = (x @ w).tanh().sum()
    (gx,) = torch.autograd.grad(out, x, create_graph=True)
    penalty = (gx * gx).sum()
    penalty.backward()
    assert w.grad is not None and w.grad.shape == (3, 1)

    def pen(ww):
        o = (x.detach().requires_grad_() @ ww).tanh().sum()
        return o

    # compare d(penalty)/dw with finite differences
    def f(ww):
        xx = x.detach().requires_grad_()
        o = (xx @ ww).tanh().sum()
        (g,) = torch.autograd.grad(o, xx, create_graph=True)
        return (g * g).sum()

    assert gradcheck(f, (w.detach().requires_grad_(),))


# ---- memory ----


def _tracked(n=100):
    """A float64 tensor whose storage is a NumPy array we hold a weakref to: the weakref dies exactly when
    the C++ storage is freed (Python tensor objects are only wrappers and prove nothing about leaks)."""
    arr = np.random.rand(n)
    return torch.from_numpy(arr), weakref.ref(arr)


def test_freed_graph_does_not_leak():
    x = torch.randn(100, dtype=torch.float64, requires_grad=True)
    w, alive = _tracked()
    z = (x * w).exp().sum()  # MulBackward0 saves w; ExpBackward0 saves its own output
    del w
    gc.collect()
    assert alive() is not None  # saved by the graph
    z.backward()
    gc.collect()
    assert alive() is None  # released by backward even while z (and its graph) lives
    # without backward: dropping the outputs frees everything (no tensor <-> node cycle)
    w, alive = _tracked()
    y = (x * w).exp()
    s = (y * y).sum()
    del w, y, s
    gc.collect()
    assert alive() is None


class NumpyExp(Function):
    """Its output's storage is a NumPy array, and it saves that output: a cycle would keep the array."""

    alive = None

    @staticmethod
    def forward(ctx, x):
        arr = np.exp(x.detach().numpy())
        NumpyExp.alive = weakref.ref(arr)
        out = torch.from_numpy(arr)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return g * r


def test_saved_outputs_make_no_cycle():
    x = torch.randn(10, dtype=torch.float64, requires_grad=True)
    y = NumpyExp.apply(x)
    assert y.grad_fn is not None
    del y
    gc.collect()
    assert NumpyExp.alive() is None
    y = NumpyExp.apply(x)
    y.sum().backward(retain_graph=True)
    assert torch.allclose(x.grad, x.detach().exp())
    del y
    gc.collect()
    assert NumpyExp.alive() is None


def test_cumprod_scatter_einsum_masked_select(device):
    x = away_from_zero(2, 3, device=device)
    assert gradcheck(lambda t: t.cumprod(1), (x,))
    idx = torch.tensor([[0, 1, 2], [2, 0, 1]], device=device)
    src = rnd(2, 3, device=device)
    assert gradcheck(lambda s, v: (s * 1).scatter_(1, idx, v), (x, src))
    assert gradcheck(lambda s, v: (s * 1).scatter_add_(1, idx, v), (x, src))
    assert gradcheck(lambda t: torch.einsum("ij->i", t), (x,))
    assert gradcheck(lambda a, b: torch.einsum("ij,jk->i", a, b), (x, rnd(3, 2, device=device)))
    mask = torch.randn(2, 3, device=device) > 0
    assert gradcheck(lambda t: t.masked_select(mask), (x,))


def test_cumprod_gradient_with_zeros(device):
    """cumprod's gradient where the input holds zeros (one, two, leading, in a middle dim, complex): the
    product of the others, as PyTorch's cumprod_backward; the plain formula divided by the zero (NaN). Against
    central differences, and twice differentiable."""
    rows = [[1.5, 0.0, 2.0, 3.0], [1.5, 0.0, 2.0, 0.0], [0.0, 0.0, 2.0, -1.0], [2.0, -1.0, 0.5, 0.0]]
    x = torch.tensor(rows, dtype=torch.float64, device=device, requires_grad=True)
    for dim in (0, 1):
        assert gradcheck(lambda t, d=dim: t.cumprod(d), (x,))
        g = torch.autograd.grad(x.cumprod(dim).sum(), x)[0]
        assert torch.isfinite(g).all()
    assert gradgradcheck(lambda t: t.cumprod(1), (x,))
    g = torch.autograd.grad(torch.cumprod(x[0], 0).sum(), x)[0][0]
    assert g.tolist() == [1.0, 1.5 + 1.5 * 2 + 1.5 * 2 * 3, 0.0, 0.0]  # at the zero: the products without it
    c = torch.tensor([[1.5 + 1j, 0.0, 2.0 - 1j], [0.5j, 2.0, 0.0]], dtype=torch.complex128, device=device)
    assert gradcheck(lambda t: t.cumprod(1), (c.requires_grad_(),))


# Every in-place random fill, in each spelling, and the constant fills beside them, on `y`: the values written
# depend on none of y's, so y's old history gets a zero gradient (PyTorch's derivatives.yaml: `self:
# zeros_like(grad)`), through a view only that view's elements; a leaf that requires grad is refused unless
# under no_grad (nn.init's), a view of one too; forward AD's tangent and torch.func's gradients are zero.
RANDOM_FILLS = """
FILLS = {
    "uniform_": lambda y: y.uniform_(-1, 1),
    "normal_": lambda y: y.normal_(2.0, 0.5),
    "bernoulli_(p)": lambda y: y.bernoulli_(0.3),
    "bernoulli_()": lambda y: y.bernoulli_(),
    "bernoulli_(tensor p)": lambda y: y.bernoulli_(y.new_full(y.shape[-1:], 0.3)),
    "exponential_": lambda y: y.exponential_(),
    "log_normal_": lambda y: y.log_normal_(),
    "cauchy_": lambda y: y.cauchy_(),
    "geometric_": lambda y: y.geometric_(0.4),
    "random_()": lambda y: y.random_(),
    "random_(to)": lambda y: y.random_(5),
    "random_(from, to)": lambda y: y.random_(-3, 5),
    "random_(from, None)": lambda y: y.random_(2, None),
    "fill_": lambda y: y.fill_(3.0),
    "fill_(tensor)": lambda y: y.fill_(y.new_tensor(3.0)),
    "zero_": lambda y: y.zero_(),
    "copy_(constant)": lambda y: y.copy_(y.new_ones(y.shape[-1:])),
}


def cases(torch):
    fwAD = torch.autograd.forward_ad
    def enc(v):
        return [enc(e) for e in v] if isinstance(v, list) else v.tolist() if hasattr(v, "tolist") else v

    run = runner(enc)
    out = {}
    for name, fill in FILLS.items():
        def whole(fill=fill):
            x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
            y = x * 2
            assert fill(y) is y
            (y.sum() + (x * x).sum()).backward()
            return [y.requires_grad, x.grad]

        def view(fill=fill):
            x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
            y = x * 2
            fill(y[0])
            y.sum().backward()
            return x.grad

        def create_graph(fill=fill):
            x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
            y = x * x
            fill(y)
            (g,) = torch.autograd.grad((y + x.exp()).sum(), x, create_graph=True)
            return [g, g.requires_grad]

        def leaf(fill=fill):
            x = torch.ones(3, requires_grad=True)
            fill(x)

        def leaf_under_no_grad(fill=fill):
            x = torch.ones(3, requires_grad=True)
            with torch.no_grad():
                fill(x)
            return [x.requires_grad, x.grad_fn is None]

        def view_of_leaf(fill=fill):
            fill(torch.ones(2, 3, requires_grad=True)[1])

        def tangent(fill=fill):
            with fwAD.dual_level():
                y = fwAD.make_dual(torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]), torch.ones(2, 3)) * 2
                fill(y[1])
                return fwAD.unpack_dual(y).tangent

        def func_grad(fill=fill):
            return torch.func.grad(lambda x: fill(x * 2).sum() + (x * x).sum())(torch.tensor([1.0, -2.0, 3.0]))

        def vmap_grad(fill=fill):
            g = torch.func.grad(lambda x: fill(x * 2).sum() + x.sum())
            return torch.func.vmap(g, randomness="different")(torch.ones(2, 3))

        for case in (whole, view, create_graph, leaf, leaf_under_no_grad, view_of_leaf, tangent, func_grad,
                     vmap_grad):
            out[name + ": " + case.__name__] = run(case)
    # bernoulli_'s tensor of probabilities gets a zero gradient too, broadcast or not; self need not require grad
    for shape in ((3,), (2, 3)):
        p = torch.full((3,), 0.3, requires_grad=True)
        y = torch.zeros(shape)
        y.bernoulli_(p)
        y.sum().backward()
        out[f"bernoulli_(p requiring grad) of {shape}"] = [y.requires_grad, p.grad.tolist()]
    return out
"""

# The spellings' nodes (PyTorch's derivatives.yaml names them, one per overload)
RANDOM_FILL_NODES = {
    "uniform_": "UniformBackward0",
    "normal_": "NormalBackward0",
    "bernoulli_(p)": "BernoulliBackward2",
    "bernoulli_(tensor p)": "BernoulliBackward1",
    "exponential_": "ExponentialBackward0",
    "log_normal_": "LogNormalBackward0",
    "cauchy_": "CauchyBackward0",
    "geometric_": "GeometricBackward0",
    "random_()": "RandomBackward2",
    "random_(from, to)": "RandomBackward0",
}


def test_random_fills_give_old_history_a_zero_gradient():
    ns = {}
    exec(RANDOM_FILLS, ns)  # noqa: S102 - the table the oracle test runs too
    got = cases_here(RANDOM_FILLS, [("torch", torch)])
    leaf_msg = "a leaf Variable that requires grad is being used in an in-place operation."
    for name in ns["FILLS"]:
        assert got[name + ": whole"] == [True, [2.0, -4.0, 6.0]], name  # (x*x)'s 2x alone
        assert got[name + ": view"] == [[0.0] * 3, [2.0] * 3], name
        g, g_requires_grad = got[name + ": create_graph"]  # exp's gradient alone, differentiable again
        assert np.allclose(g, np.exp([1.0, -2.0, 3.0]), rtol=1e-6) and g_requires_grad, name
        assert got[name + ": leaf"] == ["RuntimeError", leaf_msg], name
        assert got[name + ": leaf_under_no_grad"] == [True, True], name
        assert got[name + ": view_of_leaf"] == ["RuntimeError", "a view of " + leaf_msg], name
        assert got[name + ": tangent"] == [[2.0] * 3, [0.0] * 3], name
        assert got[name + ": func_grad"] == [2.0, -4.0, 6.0], name
        assert got[name + ": vmap_grad"] == [[1.0] * 3] * 2, name
    assert got["bernoulli_(p requiring grad) of (3,)"] == [True, [0.0] * 3]
    assert got["bernoulli_(p requiring grad) of (2, 3)"] == [True, [0.0] * 3]
    for name, node in RANDOM_FILL_NODES.items():
        y = torch.ones(3, requires_grad=True) * 2
        assert ns["FILLS"][name](y).grad_fn.name() == node, name
    # a complex tensor's fills: a zero gradient is right for complex numbers too
    x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
    for fill in (lambda y: y.normal_(), lambda y: y.uniform_(), lambda y: y.fill_(1 + 2j)):
        y = x.to(torch.complex128) * 2
        fill(y)
        assert torch.autograd.grad(y.abs().sum() + x.sum(), x)[0].tolist() == [1.0, 1.0]


def test_random_fills_as_pytorchs():
    ours, theirs = cases_here_and_in_pytorch(RANDOM_FILLS, [("torch", torch)])
    assert ours == theirs


def test_deep_graph_backward_and_free_without_recursion():
    # a 100k-node chain: backward, autograd.grad and freeing the graph must not recurse per node
    import subprocess
    import sys

    code = (
        "import minitorch as torch\n"
        "x = torch.ones(1, requires_grad=True)\n"
        "y = x\n"
        "for _ in range(100000): y = (y * 1.0).exp().log()\n"
        "(g,) = torch.autograd.grad(y.sum(), x, retain_graph=True)\n"
        "y.sum().backward()\n"
        "assert abs(x.grad.item() - 1.0) < 1e-3, x.grad\n"
        "z = x\n"
        "for _ in range(100000): z = z * 1.0\n"
        "del z, y\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-2000:]


def test_inplace_into_view_of_tensor_without_grad():
    # out[i] = x: the view knows its base, so the base takes the history (CopySlices), as in PyTorch
    x = torch.randn(3, requires_grad=True)
    out = torch.zeros(2, 3)
    out[0] = x
    out[1].copy_(x * 3)
    assert out.requires_grad and out.grad_fn.name() == "torch::autograd::CopySlices"
    (out * torch.tensor([[1.0], [2.0]])).sum().backward()
    assert x.grad.tolist() == [7.0] * 3
    # a view made before the base gained history requires grad through it
    buf = torch.zeros(4)
    early = buf[1:3]
    buf[:2] = x[:2] * 2
    assert early.requires_grad
    x.grad = None
    (early * torch.tensor([1.0, 10.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 0.0]
    # a whole tensor takes the history itself
    x.grad = None
    whole = torch.zeros(3)
    whole.copy_(x * 2)
    whole.sum().backward()
    assert x.grad.tolist() == [2.0] * 3
    # a view made under no_grad cannot give its base the history: PyTorch's error
    out = torch.zeros(2, 3)
    with torch.no_grad():
        row = out[0]
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        row.copy_(x)


def test_copy_slices_twice_differentiable():
    def f(t):
        h = t * 2
        h[1:3] = t[:2] ** 2  # the gradient reaching CopySlices depends on t
        return (h * h).sum()

    x = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert g.tolist() == [12.0, 32.0, 0.0, 32.0] and gg.tolist() == [20.0, 48.0, 0.0, 8.0]  # from PyTorch
    assert gradgradcheck(f, (rnd(4),))


def test_view_history_follows_inplace_changes_of_its_base():
    x = torch.ones(4, requires_grad=True)
    b = x * 1
    v = b[:2]
    b.mul_(3)  # v's history is stale: it must see the multiplication
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 0.0, 0.0]
    # a write through a sibling view reaches a view taken before it
    x.grad = None
    b = x * 1
    a, c = b[:2], b[1:3]
    c.mul_(5)
    (a * torch.tensor([1.0, 10.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 50.0, 0.0, 0.0]

    # gradcheck through a chain of views and in-place writes
    def f(t):
        h = t * 1
        early = h[:, 1]
        h.t()[0].mul_(2)
        h[1:].add_(h[:1] * 3)
        return early * h[:, 0]

    assert gradcheck(f, (rnd(3, 2),))


def test_double_backward_views_and_indexing(device):
    x = rnd(3, 4, device=device)
    idx = torch.tensor([0, 2, 2], device=device)
    g = torch.tensor([[0, 1, 1, 2], [2, 0, 0, 1]], device=device)
    cases = [
        lambda t: (t[1:, ::2] ** 2).sum(),
        lambda t: (t.select(1, 2) ** 3).sum(),
        lambda t: (t.diagonal() ** 2).sum(),
        lambda t: (t[idx] ** 2).sum(),
        lambda t: (t.index_select(1, idx) ** 2).sum(),
        lambda t: (t.gather(0, g) ** 2).sum(),
        lambda t: (t.max(1)[0] ** 2).sum(),
        lambda t: (torch.cat([t, t * 2], 0) ** 2).sum(),
        lambda t: (t.t().reshape(-1) ** 2).sum(),
    ]
    for fn in cases:
        assert gradgradcheck(fn, (x,))


def test_prod_with_zeros(device):
    x = torch.tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]], dtype=torch.float64, device=device)
    x.requires_grad_()
    assert gradcheck(lambda t: t.prod(1), (x,))
    assert gradcheck(lambda t: t.prod(), (x,))
    y = x.detach().clone().requires_grad_()
    y.prod(1).sum().backward()
    assert y.grad.tolist() == [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]]


def test_grad_mode_decorators():
    x = torch.randn(2, requires_grad=True)

    @torch.set_grad_enabled(False)
    def f(t):
        return t * 2

    assert torch.is_grad_enabled()  # decorating does not switch the mode
    assert not f(x).requires_grad
    assert torch.is_grad_enabled()

    @torch.no_grad()
    def gen(t):
        yield t * 2
        yield t * 3

    assert [y.requires_grad for y in gen(x)] == [False, False]
    assert torch.is_grad_enabled()

    @torch.inference_mode
    def h(t):
        return t * 2

    assert not h(x).requires_grad


def test_leaf_hooks_apply_to_autograd_grad():
    x = torch.randn(3, requires_grad=True)
    x.register_hook(lambda g: g * 0 + 7)
    (g,) = torch.autograd.grad((x * 2).sum(), x)
    assert g.tolist() == [7.0] * 3


class SaveBoth(Function):
    @staticmethod
    def forward(ctx, x):
        y = x * x
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, _ = ctx.saved_tensors
        return 2 * g * x


def test_function_graph_is_freed():
    w, alive = _tracked(50)
    x = torch.randn(50, dtype=torch.float64, requires_grad=True)
    s = SaveBoth.apply(x * w).sum()  # MulBackward0 saves w; the Function saves x * w and its output
    del w
    gc.collect()
    assert alive() is not None  # MulBackward0 saved w
    s.backward()
    del s
    gc.collect()
    assert alive() is None


def test_setitem_whole_tensor_records_the_copy(device):
    # buf[:] = f(x) must give buf x's history (a fresh view would take it, and buf would silently lose it)
    x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    buf = torch.zeros(3, device=device)
    buf[:] = x * 2
    assert buf.requires_grad and buf.grad_fn is not None
    (buf * buf).sum().backward()
    assert x.grad.cpu().tolist() == [8.0, 16.0, 24.0]
    part = torch.zeros(4, device=device)
    part[1:] = x
    (part * part).sum().backward()
    assert x.grad.cpu().tolist() == [10.0, 20.0, 30.0]


def test_leaf_grads_never_alias_the_callers_or_each_other():
    """AccumulateGrad keeps an incoming gradient only when nothing else holds it (PyTorch's "steal")."""
    x = torch.ones(3, requires_grad=True)
    g = torch.full((3,), 2.0)
    x.backward(g)
    g.add_(1)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    (a + b).backward(torch.ones(3))
    assert a.grad.data_ptr() != b.grad.data_ptr()
    a.grad.add_(5)
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0, 1.0])
    # a stolen gradient is the leaf's own buffer: later steps accumulate into it
    w = torch.ones(2, 2, requires_grad=True)
    (w * 3).sum().backward()
    first = w.grad
    (w * 3).sum().backward()
    assert w.grad is first
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 2), 6.0))


def test_post_accumulate_grad_hook_sees_the_updated_grad():
    w = torch.ones(3, requires_grad=True)
    seen = []
    h = w.register_post_accumulate_grad_hook(lambda t: seen.append((t is w, t.grad.clone())))
    (w * 2).sum().backward()
    (w * 3).sum().backward()
    assert [s[0] for s in seen] == [True, True]
    np.testing.assert_array_equal(seen[0][1].numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(seen[1][1].numpy(), [5.0, 5.0, 5.0])
    h.remove()
    (w * 1).sum().backward()
    assert len(seen) == 2
    with pytest.raises(
        RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"
    ):
        (w * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        torch.ones(2).register_post_accumulate_grad_hook(lambda t: None)


def test_grad_fn_hooks_see_and_replace_gradients():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    calls = []

    def post(grad_inputs, grad_outputs):
        calls.append(("post", grad_inputs[0].tolist(), grad_outputs[0].tolist()))
        return tuple(None if g is None else g * 10 for g in grad_inputs)

    def pre(grad_outputs):
        calls.append(("pre", grad_outputs[0].tolist()))
        return (grad_outputs[0] + 1,)

    h1 = y.grad_fn.register_hook(post)
    h2 = y.grad_fn.register_prehook(pre)
    y.sum().backward(retain_graph=True)
    assert calls == [("pre", [1.0, 1.0]), ("post", [6.0, 6.0], [2.0, 2.0])]
    np.testing.assert_array_equal(x.grad.numpy(), [60.0, 60.0])
    h1.remove()
    h2.remove()
    x.grad = None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    z = x * 2
    z.grad_fn.register_prehook(lambda g: (g[0], g[0]))
    with pytest.raises(RuntimeError, match="hook returned 2 gradients, expected 1"):  # one forward output
        z.sum().backward()


@pytest.mark.parametrize(
    "op, shapes",
    [
        ("mm", [(3, 4), (4, 2)]),
        ("bmm", [(2, 3, 4), (2, 4, 5)]),
        ("mv", [(3, 4), (4,)]),
        ("dot", [(4,), (4,)]),
        ("mul", [(3,), (3,)]),
    ],
)
def test_products_save_each_input_only_for_the_other_gradient(op, shapes):
    # As in PyTorch: an input is saved only when the other input's gradient needs it, so writing to the
    # input whose value no gradient reads is allowed, writing to the other one raises.
    fn = getattr(torch, op)
    a = torch.randn(shapes[0], dtype=torch.float64, requires_grad=True)
    b = torch.randn(shapes[1], dtype=torch.float64)
    out = fn(a, b).sum()
    with torch.no_grad():
        a.add_(1)  # not saved: only b's gradient would read a
    out.backward()
    np.testing.assert_allclose(a.grad.numpy(), torch.autograd.grad(fn(a, b).sum(), a)[0].numpy(), rtol=1e-12)
    a2 = torch.randn(shapes[0], dtype=torch.float64, requires_grad=True)
    out = fn(a2, b).sum()
    b.mul_(2)  # saved for a2's gradient
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_rounding_div_saves_inputs_as_pytorch(mode):
    # div with a rounding_mode has a zero gradient, yet PyTorch's DivBackward2 saves both inputs: an in-place
    # write to either after the call makes backward fail there, and so here
    for which in (0, 1):
        a = torch.tensor([1.5, -2.5, 3.0], requires_grad=True)
        b = torch.tensor([0.5, 0.7, 2.0], requires_grad=True)
        x, y = a * 1, b * 1
        out = torch.div(x, y, rounding_mode=mode)
        (x, y)[which].add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    a = torch.tensor([1.5, -2.5, 3.0], requires_grad=True)
    torch.div(a, 2.0, rounding_mode=mode).sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype, name", [(torch.float32, "Float"), (torch.float64, "Double")])
def test_version_error_names_the_legacy_tensor_type(device, dtype, name):
    # PyTorch's "[torch.FloatTensor [3]]" / "[torch.cuda.DoubleTensor [3]]" (core/TypeMeta.h legacy_type_name)
    x = torch.randn(3, dtype=dtype, device=device, requires_grad=True)
    y = x * 2
    z = y.sin()
    y.mul_(2)
    prefix = "torch.cuda." if torch.device(device).type == "cuda" else "torch."
    with pytest.raises(
        RuntimeError, match=rf"modified by an inplace operation: \[{prefix}{name}Tensor \[3\]\]"
    ):
        z.sum().backward()


def test_grad_with_no_inputs_raises():
    x = torch.ones(2, requires_grad=True)
    for empty in ([], ()):
        with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty."):
            torch.autograd.grad((x * 2).sum(), empty)


def test_function_set_materialize_grads():
    # PyTorch: with set_materialize_grads(False) an output without a gradient reaches backward as None; by
    # default it arrives as zeros
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None, None if g2 is None else g2.tolist()))
            return (g1 * 2 if g1 is not None else None), None

    for materialize in (False, True):
        x = torch.ones(2, requires_grad=True)
        a, _ = Two.apply(x, materialize)
        a.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
    assert seen == [(False, True, None), (False, False, [0.0, 0.0])]


def test_detect_anomaly_names_the_node_that_returned_nan():
    import warnings

    x = torch.zeros(2, requires_grad=True)
    assert not torch.is_anomaly_enabled()
    with pytest.warns(
        UserWarning, match="Anomaly Detection has been enabled. This mode will increase the runtime"
    ):
        ctx = torch.autograd.detect_anomaly()
    with ctx:
        assert torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
        # d(x/x)/dx = 1/x is inf (0th output); d/d(other) = -x/x**2 is nan: PyTorch names the 1th
        with pytest.raises(
            RuntimeError, match=r"^Function 'DivBackward0' returned nan values in its 1th output\.$"
        ):
            (x / x).sum().backward()
        with pytest.raises(RuntimeError, match="Function 'DivBackward0' returned nan values"):
            torch.autograd.grad((x / x).sum(), x)
        z = torch.ones(3, requires_grad=True)
        assert torch.autograd.grad((z * 2).sum(), z)[0].tolist() == [2.0, 2.0, 2.0]
        # the checks are gone after each pass: a node of a retained graph runs unhooked outside the mode
        y = (z * z).sum()
        y.backward(retain_graph=True)
    assert not torch.is_anomaly_enabled()
    y.backward()
    assert z.grad.tolist() == [4.0, 4.0, 4.0]
    # check_nan=False: the mode is on but gradients pass unchecked, as in PyTorch
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # set_detect_anomaly does not warn
        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
            (x / x).sum().backward()
    assert bool(x.grad.isnan().all()) and not torch.is_anomaly_enabled()
    torch.autograd.set_detect_anomaly(True)  # sets at once, as a plain call
    try:
        assert torch.is_anomaly_enabled()
    finally:
        torch.set_anomaly_enabled(False)
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()


def test_grad_is_grads_batched_gives_one_vector_jacobian_product_per_row():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    z = torch.ones(3, dtype=torch.float64, requires_grad=True)
    eye = torch.eye(3, dtype=torch.float64)
    (jac,) = torch.autograd.grad(x**3, x, eye, is_grads_batched=True, create_graph=True)
    np.testing.assert_allclose(jac.detach().numpy(), np.diag([3.0, 12.0, 27.0]))
    assert jac.requires_grad  # create_graph: the rows keep their graph
    # several outputs: the rows of each grad_output go together; unused inputs as without batching
    g = torch.autograd.grad(
        [x**2, x.sum()], [x, z], [eye, torch.ones(3)], is_grads_batched=True, allow_unused=True
    )
    np.testing.assert_allclose(g[0].numpy(), np.diag([2.0, 4.0, 6.0]) + 1)
    assert g[1] is None
    g = torch.autograd.grad(x**2, [x, z], eye, is_grads_batched=True, materialize_grads=True)
    assert g[1].shape == (3,)  # materialized after the batch, as PyTorch's


@pytest.mark.parametrize(
    "outputs, grad_outputs, exc, words",
    [
        ("sq", torch.ones(3, 2), RuntimeError,
         (r"If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch dimension\. "
         r"The sizes of the remaining dimensions are expected to match the shape of corresponding output, but a "
         r"mismatch was detected: grad_output\[0\] has a shape of torch\.Size\(\[\]\) and output\[0\] has a shape of "
         r"torch\.Size\(\[3\]\)\. If you only want some tensors in `grad_output` to be considered batched, consider "
         r"using vmap\.")),
        ("both", [torch.eye(3), torch.ones(2)], ValueError,
         (r"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes \[3, 2\] for the "
         r"mapped dimension")),
        ("sum", None, ValueError, "Got in_dim=0 for some input, but that input is a Tensor of dimensionality 0"),
    ],
)  # fmt: skip
def test_grad_is_grads_batched_errors_are_pytorchs(outputs, grad_outputs, exc, words):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    outs = {"sq": x**2, "both": [x**2, x.sum()], "sum": x.sum()}[outputs]
    with pytest.raises(exc, match=words):
        torch.autograd.grad(outs, x, grad_outputs, is_grads_batched=True)


def test_unused_input_error_names_its_index():
    # PyTorch 2.15's wording: the index of the first differentiated tensor the graph never reached
    a, b, c = (torch.ones(2, requires_grad=True) for _ in range(3))
    with pytest.raises(
        RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used"
    ):
        torch.autograd.grad((a * 2).sum(), [a, b, c])
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 0 appears"):
        torch.autograd.grad((a * 2).sum(), [b])
    ga, gb = torch.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)
    assert ga.tolist() == [2.0, 2.0] and gb is None
