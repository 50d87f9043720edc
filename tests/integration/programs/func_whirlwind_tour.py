# Follows PyTorch's "torch.func Whirlwind Tour" (docs: func.whirlwind_tour): grad (and grad of grad), vmap over a
# model and over per-example gradients, vjp, jvp, jacrev (batched, argnums), jacfwd, hessian. Added after it, from
# the torch.func API reference each transform links to: grad's argnums/has_aux and grad_and_value, vmap's
# in_dims/out_dims (nested structures, None), chunk_size and randomness, vjp's has_aux, linearize,
# functional_call with several dicts, strict and tied weights, stack_module_state, functionalize, and
# replace_all_batch_norm_modules_ under vmap; every result is checked against autograd or a closed form.
import copy
import math

import torch
import torch.nn.functional as F
from torch.func import grad

torch.manual_seed(0)

# grad (gradient computation)
x = torch.randn([])
cos_x = grad(lambda x: torch.sin(x))(x)
assert torch.allclose(cos_x, x.cos())

# Second-order gradients
neg_sin_x = grad(grad(lambda x: torch.sin(x)))(x)
assert torch.allclose(neg_sin_x, -x.sin())

# vmap (auto-vectorization); the tour imports each transform where it introduces it
from torch.func import vmap

batch_size, feature_size = 3, 5
weights = torch.randn(feature_size, requires_grad=True)


def model(feature_vec):
    # Very simple linear model with activation
    assert feature_vec.dim() == 1
    return feature_vec.dot(weights).relu()


examples = torch.randn(batch_size, feature_size)
result = vmap(model)(examples)
torch.testing.assert_close(result, (examples @ weights).relu())

# composed with grad: per-sample gradients
batch_size, feature_size = 3, 5


def model(weights, feature_vec):
    # Very simple linear model with activation
    assert feature_vec.dim() == 1
    return feature_vec.dot(weights).relu()


def compute_loss(weights, example, target):
    y = model(weights, example)
    return ((y - target) ** 2).mean()  # MSELoss


weights = torch.randn(feature_size, requires_grad=True)
examples = torch.randn(batch_size, feature_size)
targets = torch.randn(batch_size)
inputs = (weights, examples, targets)
grad_weight_per_example = vmap(grad(compute_loss), in_dims=(None, 0, 0))(*inputs)
for i in range(batch_size):
    (g,) = torch.autograd.grad(compute_loss(weights, examples[i], targets[i]), weights)
    torch.testing.assert_close(grad_weight_per_example[i], g)

# vjp (vector-Jacobian product)
from torch.func import vjp

inputs = torch.randn([5])
vjp_out, vjp_fn = vjp(torch.sin, inputs)
vector = torch.randn_like(vjp_out)
(vjps,) = vjp_fn(vector)
assert torch.allclose(vjps, vector * inputs.cos())

# jvp (Jacobian-vector product)
from torch.func import jvp

x = torch.randn(5)
y = torch.randn(5)
f = lambda x, y: x * y
_, out_tangent = jvp(f, (x, y), (torch.ones(5), torch.ones(5)))
assert torch.allclose(out_tangent, x + y)

# jacrev, jacfwd, and hessian
from torch.func import jacrev

x = torch.randn(5)
jacobian = jacrev(torch.sin)(x)
expected = torch.diag(torch.cos(x))
assert torch.allclose(jacobian, expected)

x = torch.randn(64, 5)
jacobian = vmap(jacrev(torch.sin))(x)
assert jacobian.shape == (64, 5, 5)


def f(x, y):
    return x + y


x, y = torch.randn(5), torch.randn(5)
jacobian = jacrev(f, argnums=1)(x, y)
expected = torch.eye(5)
assert torch.allclose(jacobian, expected)

jac_x, jac_y = jacrev(f, argnums=(0, 1))(x, y)
assert torch.allclose(jac_x, torch.eye(5)) and torch.allclose(jac_y, torch.eye(5))

from torch.func import jacfwd

x = torch.randn(5)
jacobian = jacfwd(torch.sin)(x)
expected = torch.diag(torch.cos(x))
assert torch.allclose(jacobian, expected)

from torch.func import hessian


def f(x):
    return x.sin().sum()


x = torch.randn(5)
hess = hessian(f)(x)  # equivalent to jacfwd(jacrev(f))(x)
assert torch.allclose(hess, torch.diag(-x.sin()))
torch.testing.assert_close(hess, jacfwd(jacrev(f))(x))
torch.testing.assert_close(hess, jacrev(jacrev(f))(x))
print("the tour: ok")

# ---- added: the API reference's forms of each transform
from torch.func import (
    functional_call,
    functionalize,
    grad_and_value,
    linearize,
    replace_all_batch_norm_modules_,
    stack_module_state,
)


# grad with argnums and has_aux; grad_and_value
def loss_aux(w, b, x, t):
    pred = x @ w + b
    loss = ((pred - t) ** 2).mean()
    return loss, {"pred": pred, "abs": pred.abs().mean()}


w, b = torch.randn(4), torch.randn(())
xb, tb = torch.randn(6, 4), torch.randn(6)
(gw, gb), aux = grad(loss_aux, argnums=(0, 1), has_aux=True)(w, b, xb, tb)
wr, br = w.clone().requires_grad_(), b.clone().requires_grad_()
loss_ref, aux_ref = loss_aux(wr, br, xb, tb)
rw, rb = torch.autograd.grad(loss_ref, (wr, br))
torch.testing.assert_close(gw, rw)
torch.testing.assert_close(gb, rb)
torch.testing.assert_close(aux["pred"], aux_ref["pred"].detach())
assert not aux["pred"].requires_grad
(g2, (val, aux2)) = grad_and_value(loss_aux, has_aux=True)(w, b, xb, tb)
torch.testing.assert_close(val, loss_ref.detach())
torch.testing.assert_close(g2, rw)


# vmap: in_dims on nested inputs, None, out_dims, chunk_size, randomness
def affine(params, x):
    return params["w"] @ x + params["b"], x.sum()


params = {"w": torch.randn(3, 4), "b": torch.randn(3)}
xs = torch.randn(4, 10)  # the batch on dim 1
ys, sums = vmap(affine, in_dims=(None, 1), out_dims=(1, 0))(params, xs)
assert ys.shape == (3, 10) and sums.shape == (10,)
torch.testing.assert_close(ys, params["w"] @ xs + params["b"][:, None])
torch.testing.assert_close(sums, xs.sum(0))
batched_params = {"w": torch.randn(10, 3, 4), "b": torch.randn(3)}
ys2, _ = vmap(affine, in_dims=({"w": 0, "b": None}, 1))(batched_params, xs)
torch.testing.assert_close(ys2, torch.einsum("nij,jn->ni", batched_params["w"], xs) + batched_params["b"])
big = torch.randn(100, 8)
torch.testing.assert_close(
    vmap(torch.outer, in_dims=(0, 0), chunk_size=7)(big, big), big[:, :, None] * big[:, None, :]
)
drop = vmap(lambda t: F.dropout(t, p=0.5, training=True), randomness="different")(torch.ones(64, 32))
rows = {tuple(r.tolist()) for r in drop}
assert len(rows) > 1 and set(drop.unique().tolist()) <= {0.0, 2.0}
same = vmap(lambda t: F.dropout(t, p=0.5, training=True), randomness="same")(torch.ones(8, 32))
assert all(torch.equal(same[0], r) for r in same)
try:
    vmap(lambda t: F.dropout(t, p=0.5, training=True))(torch.ones(4, 3))
except RuntimeError as e:
    print("vmap randomness='error':", str(e).splitlines()[0])
else:
    raise AssertionError("random op under vmap's default randomness='error' should raise")

# vjp with has_aux; linearize
x = torch.randn(5)
out, vjp_fn, aux = vjp(lambda t: (t.exp(), t.sum()), x, has_aux=True)
(vj,) = vjp_fn(torch.ones(5))
torch.testing.assert_close(vj, x.exp())
torch.testing.assert_close(aux, x.sum())
out, jvp_fn = linearize(lambda t: t.sin() * t, x)
tangent = torch.randn(5)
torch.testing.assert_close(jvp_fn(tangent), (x.cos() * x + x.sin()) * tangent)
torch.testing.assert_close(jvp_fn(2 * tangent), 2 * jvp_fn(tangent))


# functional_call: parameters and buffers from dicts, several dicts, strict, tied weights
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 6)
        self.lin = torch.nn.Linear(6, 10, bias=False)
        self.lin.weight = self.emb.weight  # tied
        self.norm = torch.nn.BatchNorm1d(6)

    def forward(self, idx):
        return self.lin(self.norm(self.emb(idx)))


net = Net()
idx = torch.randint(0, 10, (12,))
params = {k: v.detach().clone() for k, v in net.named_parameters()}
buffers = {k: v.detach().clone() for k, v in net.named_buffers()}
assert "lin.weight" not in params  # tied: named once
new_w = torch.randn(10, 6)
out = functional_call(net, ({"emb.weight": new_w}, buffers), (idx,), tie_weights=True)
ref = copy.deepcopy(net)
with torch.no_grad():
    ref.emb.weight.copy_(new_w)
torch.testing.assert_close(out, ref(idx))
assert torch.equal(net.emb.weight, params["emb.weight"])  # the module itself is unchanged
# the running statistics went to the buffers dict's tensors, as in the module called directly
torch.testing.assert_close(buffers["norm.running_mean"], ref.norm.running_mean)
try:
    functional_call(net, {"emb.weight": new_w, "nope": new_w}, (idx,), strict=True)
except RuntimeError as e:
    print("strict:", str(e).splitlines()[0])
    assert "Unexpected key(s): 'nope'" in str(e)
else:
    raise AssertionError("strict functional_call accepted an unknown key")
net.eval()  # under grad the module's buffers must not change (training-mode batch norm would update them)
g = grad(lambda p: functional_call(net, p, (idx,)).logsumexp(-1).mean())(params)
net.zero_grad()
net(idx).logsumexp(-1).mean().backward()
torch.testing.assert_close(g["emb.weight"], net.emb.weight.grad)

# stack_module_state + vmap over models, with batch norm made functional-friendly
models = [
    torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU()) for _ in range(4)
]
for m in models:
    replace_all_batch_norm_modules_(m)
    assert m[1].running_mean is None and not m[1].track_running_stats
stacked_params, stacked_buffers = stack_module_state(models)
base = copy.deepcopy(models[0]).to("meta")


def fmodel(params, buffers, x):
    return functional_call(base, (params, buffers), (x,))


data = torch.randn(16, 5)
outs = vmap(fmodel, in_dims=(0, 0, None))(stacked_params, stacked_buffers, data)
assert outs.shape == (4, 16, 8)
for i, m in enumerate(models):
    torch.testing.assert_close(outs[i], m(data))


# functionalize: in-place updates become out-of-place ones, with the same result
def mutating(x):
    y = x.clone()
    y.add_(1)
    y[0].mul_(2)
    return y.exp_()


x = torch.randn(3, 2)
torch.testing.assert_close(functionalize(mutating)(x), mutating(x))
torch.testing.assert_close(
    grad(lambda t: functionalize(mutating)(t).sum())(x), jacrev(lambda t: mutating(t).sum())(x)
)

# a closed form: the Hessian of the log-sum-exp is diag(p) - p p^T
v = torch.randn(6, dtype=torch.float64)
p = v.softmax(0)
torch.testing.assert_close(hessian(torch.logsumexp)(v, 0), torch.diag(p) - torch.outer(p, p))
assert math.isclose(grad(torch.logsumexp)(v, 0).sum().item(), 1.0, rel_tol=1e-12)
print("func_whirlwind_tour: ok")
