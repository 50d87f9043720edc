# Follows PyTorch's "Neural Tangent Kernels" tutorial (torch.func): the empirical NTK of a small CNN, by
# Jacobian contraction (vmap over jacrev, einsum per parameter; full, trace and diagonal) and by NTK-vector
# products (vjp, then jvp, vmapped over a basis and over pairs of inputs), the two checked equal.
# Adapted: the tutorial's device "cuda" is the CPU here, and the NTK-vector-product check uses 3 and 2 inputs
# instead of 5 and 20 (the nested vmaps are sized for a GPU); the contraction runs at the tutorial's sizes.
# The seed is fixed: the two float32 kernels differ by more than the tutorial's tolerance when a ReLU input lies
# within rounding of zero (1 in 25,000 was 3e-8 from it at one draw) and the batched and unbatched convolutions
# round it to opposite signs; that is float32, not either method.
import time

import torch
import torch.nn as nn  # noqa: PLR0402  (the tutorial's import)
from torch.func import functional_call, jacrev, jvp, vjp, vmap

device = "cpu"
torch.manual_seed(0)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, (3, 3))
        self.conv2 = nn.Conv2d(32, 32, (3, 3))
        self.conv3 = nn.Conv2d(32, 32, (3, 3))
        self.fc = nn.Linear(21632, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = x.relu()
        x = self.conv2(x)
        x = x.relu()
        x = self.conv3(x)
        x = x.flatten(1)
        x = self.fc(x)
        return x


x_train = torch.randn(20, 3, 32, 32, device=device)
x_test = torch.randn(5, 3, 32, 32, device=device)

net = CNN().to(device)

# Detaching the parameters because we won't be calling Tensor.backward().
params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2):
    # Compute J(x1)
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]

    # Compute J(x2)
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]

    # Compute J(x1) @ J(x2).T
    result = torch.stack([torch.einsum("Naf,Mbf->NMab", j1, j2) for j1, j2 in zip(jac1, jac2)])
    result = result.sum(0)
    return result


t0 = time.perf_counter()
result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
print(result.shape, "in %.1fs" % (time.perf_counter() - t0))
assert result.shape == (20, 5, 10, 10)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute="full"):
    # Compute J(x1)
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]

    # Compute J(x2)
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]

    # Compute J(x1) @ J(x2).T
    einsum_expr = None
    if compute == "full":
        einsum_expr = "Naf,Mbf->NMab"
    elif compute == "trace":
        einsum_expr = "Naf,Maf->NM"
    elif compute == "diagonal":
        einsum_expr = "Naf,Maf->NMa"
    else:
        assert False

    result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
    result = result.sum(0)
    return result


result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "trace")
print(result.shape)
assert result.shape == (20, 5)


def empirical_ntk_ntk_vps(func, params, x1, x2, compute="full"):
    def get_ntk(x1, x2):
        def func_x1(params):
            return func(params, x1)

        def func_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(func_x1, params)

        def get_ntk_slice(vec):
            # This computes ``vec @ J(x2).T``
            # `vec` is some unit vector (a single slice of the Identity matrix)
            vjps = vjp_fn(vec)
            # This computes ``J(X1) @ vjps``
            _, jvps = jvp(func_x2, (params,), vjps)
            return jvps

        # Here's our identity matrix
        basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
        return vmap(get_ntk_slice)(basis)

    # ``get_ntk(x1, x2)`` computes the NTK for a single data point x1, x2
    # Since the x1, x2 inputs to ``empirical_ntk_ntk_vps`` are batched,
    # we actually wish to compute the NTK between every pair of data points
    # between {x1} and {x2}. That's what the ``vmaps`` here do.
    result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)

    if compute == "full":
        return result
    if compute == "trace":
        return torch.einsum("NMKK->NM", result)
    if compute == "diagonal":
        return torch.einsum("NMKK->NMK", result)


# Disable TensorFloat-32 for convolutions on Ampere+ GPUs to sacrifice performance in favor of accuracy
with torch.backends.cudnn.flags(allow_tf32=False):
    x_a, x_b = x_test[:3], x_train[:2]
    result_from_jacobian_contraction = empirical_ntk_jacobian_contraction(fnet_single, params, x_a, x_b)
    t0 = time.perf_counter()
    result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_a, x_b)
    print("NTK-vector products in %.1fs" % (time.perf_counter() - t0))

assert torch.allclose(result_from_jacobian_contraction, result_from_ntk_vps, atol=1e-5)

# the trace and diagonal forms agree with the full kernel
full = empirical_ntk_jacobian_contraction(fnet_single, params, x_a, x_b, "full")
diag = empirical_ntk_jacobian_contraction(fnet_single, params, x_a, x_b, "diagonal")
assert torch.allclose(diag, torch.diagonal(full, dim1=2, dim2=3), atol=1e-5)
assert torch.allclose(
    diag.sum(-1), empirical_ntk_jacobian_contraction(fnet_single, params, x_a, x_b, "trace")
)

# one kernel entry against the plain autograd Jacobians of the two outputs
jac = []
for x in (x_a[0], x_b[1]):
    rows = []
    for k in range(10):
        net.zero_grad()
        net(x.unsqueeze(0))[0, k].backward()
        rows.append(torch.cat([p.grad.flatten() for p in net.parameters()]))
    jac.append(torch.stack(rows))
assert torch.allclose(full[0, 1], jac[0] @ jac[1].T, rtol=1e-4, atol=1e-4)
print("neural tangent kernels: ok")
