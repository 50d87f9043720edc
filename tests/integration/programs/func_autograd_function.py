# Follows PyTorch's "Extending torch.func with autograd.Function" notes (notes/extending.func): autograd.Functions
# in the setup_context style so that torch.func transforms see through them -- a sort and a gather computed in
# NumPy with backwards that are each other, a cube whose backward returns an extra output for double backward,
# the same functions under vmap by generate_vmap_rule=True and by hand-written vmap staticmethods, and a jvp
# staticmethod (with save_for_forward) for forward-mode transforms. Adapted: the notes' fragments are assembled
# into one program with inputs of our own; every transform's result is checked against plain PyTorch ops
# (torch.sort, torch.gather, x ** 3) run through the same transform, or against the closed-form derivative.
import numpy as np
import torch
from torch.func import grad, jacfwd, jacrev, jvp, vmap


def to_numpy(tensor):
    return tensor.cpu().numpy()


# ---- Example 1: functions that call into NumPy; each one's backward is the other one


class NumpySort(torch.autograd.Function):
    # forward takes no ctx: that is what lets the transforms call it
    @staticmethod
    def forward(x, dim):
        device = x.device
        x = to_numpy(x)
        ind = np.argsort(x, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x, ind, axis=dim)
        return (
            torch.tensor(result, device=device),
            torch.tensor(ind, device=device),
            torch.tensor(ind_inv, device=device),
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        _x, dim = inputs
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None


class NumpyTake(torch.autograd.Function):
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        device = x.device
        x = to_numpy(x)
        ind = to_numpy(ind)
        return torch.tensor(np.take_along_axis(x, ind, dim), device=device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        _x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None, None, None


def numpy_sort(x, dim=-1):
    result, _, _ = NumpySort.apply(x, dim)
    return result


torch.manual_seed(0)
x = torch.randn(2, 3, dtype=torch.float64)
weights = torch.randn(2, 3, dtype=torch.float64)


def weighted_sorted(x):
    return (numpy_sort(x) * weights).sum()


def weighted_sorted_ref(x):
    return (torch.sort(x, dim=-1).values * weights).sum()


assert torch.equal(numpy_sort(x), torch.sort(x, dim=-1).values)
grad_x = grad(weighted_sorted)(x)
assert torch.allclose(grad_x, grad(weighted_sorted_ref)(x))
# by hand: each input receives the weight of the place it was sorted to
ind = torch.sort(x, dim=-1).indices
by_hand = torch.zeros_like(x).scatter_(-1, ind, weights)
assert torch.allclose(grad_x, by_hand)
# and the eager autograd path agrees with the transform
x_req = x.clone().requires_grad_()
weighted_sorted(x_req).backward()
assert torch.allclose(x_req.grad, by_hand)
# a second derivative goes through NumpyTake's backward (sorting is piecewise linear: its Hessian is zero);
# grad of grad, since jacrev's vmap would need a vmap rule that NumpyTake does not have yet
probe = torch.randn(2, 3, dtype=torch.float64)
second = grad(lambda s: (grad(weighted_sorted)(s) * probe).sum())(x)
assert second.shape == (2, 3) and torch.count_nonzero(second) == 0
print("numpy sort: grad", grad_x.tolist())


# ---- Example 2: a cube whose backward saves an extra output so that double backward works


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        result = x**3
        # dx is returned so that setup_context can save it: setup_context sees only inputs and outputs
        dx = 3 * x**2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        _result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # written in PyTorch ops, so it is itself differentiable (the d(dx)/dx = 6x term included)
        return grad_output * dx + grad_dx * 6 * x


def my_cube(x):
    result, _ = MyCube.apply(x)
    return result


t = torch.tensor(1.5, dtype=torch.float64)
assert torch.allclose(grad(my_cube)(t), 3 * t**2)
assert torch.allclose(grad(grad(my_cube))(t), 6 * t)
assert torch.allclose(grad(grad(grad(my_cube)))(t), torch.tensor(6.0, dtype=torch.float64))
print("my_cube: d/dx", grad(my_cube)(t).item(), "d2/dx2", grad(grad(my_cube))(t).item())


# ---- vmap, the easy way: generate_vmap_rule=True (forward/backward/setup_context use PyTorch ops only)


class MyCubeVmap(MyCube):
    generate_vmap_rule = True


def my_cube_vmap(x):
    result, _ = MyCubeVmap.apply(x)
    return result


xs = torch.randn(5, 4, dtype=torch.float64)
assert torch.allclose(vmap(my_cube_vmap)(xs), xs**3)
assert torch.allclose(vmap(my_cube_vmap, in_dims=1, out_dims=1)(xs), xs**3)
# per-row gradients of the row sums, and the Jacobian of the elementwise cube (diagonal 3x^2)
assert torch.allclose(vmap(grad(lambda r: my_cube_vmap(r).sum()))(xs), 3 * xs**2)
row = xs[0]
assert torch.allclose(jacrev(my_cube_vmap)(row), torch.diag(3 * row**2))
# without a vmap rule, vmap refuses the Function (as the notes say)
try:
    vmap(my_cube)(xs)
    raise AssertionError("vmap of a Function without a vmap rule ran")
except RuntimeError as err:
    assert "vmap" in str(err), err
print("generate_vmap_rule: ok")


# ---- vmap, by hand: a vmap staticmethod for each NumPy function


class NumpySortV(NumpySort):
    @staticmethod
    def vmap(info, in_dims, x, dim):
        x_bdim, _ = in_dims
        # move the batch dim to the front and sort along dim shifted by one
        x = x.movedim(x_bdim, 0)
        dim = dim if dim >= 0 else dim + x.dim() - 1
        result = NumpySortV.apply(x, dim + 1)
        # every output has its batch dim at 0
        return result, (0, 0, 0)

    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTakeV.apply(grad_output, ind_inv, ind, ctx.dim), None


class NumpyTakeV(NumpyTake):
    @staticmethod
    def vmap(info, in_dims, x, ind, ind_inv, dim):
        x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims

        # every tensor gets its batch dim at 0 (expanded where it has none), dim shifts by one
        logical_dim = x.dim() if x_bdim is None else x_bdim - 1
        dim = dim if dim >= 0 else dim + logical_dim

        def front(t, bdim):
            if bdim is None:
                return t.expand(info.batch_size, *t.shape)
            return t.movedim(bdim, 0)

        x = front(x, x_bdim)
        ind = front(ind, ind_bdim)
        ind_inv = front(ind_inv, ind_inv_bdim)
        return NumpyTakeV.apply(x, ind, ind_inv, dim + 1), 0

    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTakeV.apply(grad_output, ind_inv, ind, ctx.dim), None, None, None


def numpy_sort_v(x, dim=-1):
    result, _, _ = NumpySortV.apply(x, dim)
    return result


batch = torch.randn(4, 2, 3, dtype=torch.float64)
assert torch.equal(vmap(numpy_sort_v)(batch), torch.sort(batch, dim=-1).values)
# the batch dim need not be first
assert torch.equal(
    vmap(numpy_sort_v, in_dims=2, out_dims=0)(batch), torch.sort(batch.movedim(2, 0), -1).values
)
# per-sample gradients through the sort: vmap of grad, whose backward is NumpyTakeV under vmap
per_sample = vmap(grad(lambda s: (numpy_sort_v(s) * weights).sum()))(batch)
per_sample_ref = vmap(grad(lambda s: (torch.sort(s, dim=-1).values * weights).sum()))(batch)
assert torch.allclose(per_sample, per_sample_ref)
# a take whose indices are unbatched while x is batched (the expand branch)
ind = torch.sort(x, dim=-1).indices
ind_inv = torch.argsort(ind, dim=-1)
taken = vmap(NumpyTakeV.apply, in_dims=(0, None, None, None))(batch, ind, ind_inv, -1)
assert torch.equal(taken, torch.gather(batch, -1, ind.expand(4, 2, 3)))
print("vmap staticmethod: ok")


# ---- forward mode: a jvp staticmethod (tangents in, tangents out) with save_for_forward


class MyExp(torch.autograd.Function):
    # jacfwd and jacrev vmap over their basis: all PyTorch ops, so the rule can be generated
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t * result


v = torch.randn(3, dtype=torch.float64)
tangent = torch.randn(3, dtype=torch.float64)
out, out_t = jvp(MyExp.apply, (v,), (tangent,))
assert torch.allclose(out, v.exp()) and torch.allclose(out_t, tangent * v.exp())
assert torch.allclose(jacfwd(MyExp.apply)(v), torch.diag(v.exp()))
assert torch.allclose(jacfwd(MyExp.apply)(v), jacrev(MyExp.apply)(v))
# forward-over-reverse: the Hessian of sum(exp(v)) is diag(exp(v))
assert torch.allclose(jacfwd(jacrev(lambda u: MyExp.apply(u).sum()))(v), torch.diag(v.exp()))
print("jvp staticmethod: ok")
print("extending torch.func with autograd.Function: ok")
