# Follows PyTorch's "Jacobians, Hessians, hvp, vhp, and more: composing function transforms" tutorial
# (torch.func): Jacobians by a loop of autograd.grad, by vmap over vjp and by jacrev/jacfwd, Hessians by the
# compositions of jacfwd/jacrev, batched Jacobians and Hessians with vmap, and Hessian-vector products.
# Adapted: the tutorial's torch.utils.benchmark.Timer comparisons are time.perf_counter ones with fewer
# repetitions, and the Hessian and tall-Jacobian sizes are smaller (the tutorial's are sized for a GPU).
import time
from functools import partial

import torch
import torch.nn.functional as F

_ = torch.manual_seed(0)


# Let's start with a function that we'd like to compute the jacobian of. This is a simple linear function
# with non-linear activation.
def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


# Let's add some dummy data: a weight, a bias, and a feature vector x.
D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)  # feature vector


# Let's think of predict as a function that maps the input x from R^D -> R^D. PyTorch Autograd computes
# vector-Jacobian products. In order to compute the full Jacobian of this R^D -> R^D function, we would have
# to compute it row-by-row by using a different unit vector each time.
def compute_jac(xp):
    jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0] for vec in unit_vectors]
    return torch.stack(jacobian_rows)


xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)

jacobian = compute_jac(xp)

print(jacobian.shape)
print(jacobian[0])  # show first row

# Instead of computing the jacobian row-by-row, we can use PyTorch's torch.vmap function transform to get rid
# of the for-loop and vectorize the computation.
from torch.func import vjp, vmap

_, vjp_fn = vjp(partial(predict, weight, bias), x)

(ft_jacobian,) = vmap(vjp_fn)(unit_vectors)

# let's confirm both methods compute the same result
assert torch.allclose(ft_jacobian, jacobian)

# jacrev does the same: its argnums says which argument we want the Jacobian with respect to.
from torch.func import jacrev

ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)

# Confirm by running the following:
assert torch.allclose(ft_jacobian, jacobian)


def timeit(fn, number):
    fn()
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


no_vmap_timer = timeit(lambda: compute_jac(xp), 20)
with_vmap_timer = timeit(lambda: jacrev(predict, argnums=2)(weight, bias, x), 20)
print(f"compute_jac (loop): {no_vmap_timer * 1e3:.2f} ms, jacrev: {with_vmap_timer * 1e3:.2f} ms")

# Furthermore, it's pretty easy to flip the problem around and say we want to compute Jacobians of the
# parameters to our model (weight, bias) instead of the input
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
assert ft_jac_weight.shape == (D, D, D) and ft_jac_bias.shape == (D, D)
# d tanh(Wx + b)_i / d b_j is diagonal: 1 - tanh^2 on the diagonal
y = predict(weight, bias, x)
assert torch.allclose(ft_jac_bias, torch.diag(1 - y**2), atol=1e-6)
assert torch.allclose(ft_jac_weight[3, 3], (1 - y[3] ** 2) * x, atol=1e-6)
assert torch.allclose(ft_jac_weight[3, 4], torch.zeros(D))

# reverse-mode Jacobian (jacrev) vs forward-mode Jacobian (jacfwd): the general rule is that the one that
# works better with the "wide" or "tall" shape of the Jacobian wins.
from torch.func import jacfwd, jacrev

Din = 32
Dout = 512
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)

# remember the general rule about taller vs wider... here we have a taller matrix:
print(weight.shape)

jacfwd_timing = timeit(lambda: jacfwd(predict, argnums=2)(weight, bias, x), 2)
jacrev_timing = timeit(lambda: jacrev(predict, argnums=2)(weight, bias, x), 2)
print(f"jacfwd time: {jacfwd_timing * 1e3:.1f} ms, jacrev time: {jacrev_timing * 1e3:.1f} ms")
assert torch.allclose(
    jacfwd(predict, argnums=2)(weight, bias, x), jacrev(predict, argnums=2)(weight, bias, x), atol=1e-6
)

# Hessian computation with torch.func.hessian: hessian(f) is jacfwd(jacrev(f)).
from torch.func import hessian

# lets reduce the size in order not to overwhelm the CPU. Hessians require significant memory resources,
# especially for large models.
Din = 24
Dout = 8
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)

hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
assert hess_api.shape == (Dout, Din, Din)
assert torch.allclose(hess_api, hess_fwdfwd, atol=1e-6)
assert torch.allclose(hess_api, hess_revrev, atol=1e-6)
# the closed form: y = tanh(Wx + b), d2 y_i / dx dx = -2 y_i (1 - y_i^2) w_i w_i^T
yy = predict(weight, bias, x)
closed = (-2 * yy * (1 - yy**2))[:, None, None] * weight[:, :, None] * weight[:, None, :]
assert torch.allclose(hess_api, closed, atol=1e-5)

# Batch Jacobian and Batch Hessian
batch_size = 64
Din = 31
Dout = 33

weight = torch.randn(Dout, Din)
print(f"weight shape = {weight.shape}")

bias = torch.randn(Dout)

x = torch.randn(batch_size, Din)

compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)


# If you have a function that goes from (B, N) -> (B, M) instead and are certain that each input produces
# an independent output, then it's also sometimes possible to do this without using vmap by summing the
# outputs and then computing the Jacobian of that function:
def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1)

# If you instead have a function that goes from R^N -> R^N but inputs that are batched, you compose vmap
# with jacrev to compute batched jacobians; in the same way, a batched Hessian:
Dout = 5  # smaller than the tutorial's 33: one backward pass per output element, per Hessian row
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))

batch_hess = compute_batch_hessian(weight, bias, x)
print(batch_hess.shape)
assert batch_hess.shape == (batch_size, Dout, Din, Din)
assert torch.allclose(batch_hess[7], hessian(predict, argnums=2)(weight, bias, x[7]), atol=1e-6)

# Computing Hessian-vector products: the naive way to compute a Hessian-vector product (hvp) is to
# materialize the full Hessian and perform a dot-product with a vector. We can do better: combine
# reverse-mode and forward-mode AD.
from torch.func import grad, jvp


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


# Here's some sample usage.
def f(x):
    return x.sin().sum()


x = torch.randn(2048)
tangent = torch.randn(2048)

result = hvp(f, (x,), (tangent,))


# If PyTorch forward-AD does not have coverage for your operations, then we can instead compose
# reverse-mode AD with reverse-mode AD:
def hvp_revrev(f, primals, tangents):
    _, vjp_fn = vjp(grad(f), *primals)
    return vjp_fn(*tangents)


result_hvp_revrev = hvp_revrev(f, (x,), (tangent,))
assert torch.allclose(result, result_hvp_revrev[0])
# the Hessian of sum(sin(x)) is diag(-sin(x))
assert torch.allclose(result, -x.sin() * tangent, atol=1e-6)
print("jacobians and hessians: ok")
