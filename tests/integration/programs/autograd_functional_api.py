# Follows the examples of PyTorch's "Functional higher level API" reference (torch.autograd.functional: jacobian,
# hessian, vjp, jvp, vhp, hvp), run with every computation strategy the reference documents -- vectorize=True,
# strategy="forward-mode", outer_jacobian_strategy="forward-mode", create_graph=True, strict=True -- and its
# documented errors; then used as a program would, for Newton's method on the Rosenbrock function (hessian and
# jacobian) and Gauss-Newton on a small exponential fit (the residuals' jacobian). Adapted: the reference's random
# inputs are seeded and in float64; added: every strategy's result equals the reverse-mode loop's, the Jacobians
# equal central finite differences and the closed forms, and both solvers reach the known minimum.
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

torch.manual_seed(0)
dt = torch.float64


def exp_reducer(x):
    return x.exp().sum(dim=1)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


def pow_reducer(x):
    return x.pow(3).sum()


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


def finite_difference_jacobian(func, x, eps=1e-6):
    # central differences, one input element at a time
    flat = x.reshape(-1)
    columns = []
    for i in range(flat.numel()):
        step = torch.zeros_like(flat)
        step[i] = eps
        hi = func((flat + step).reshape(x.shape))
        lo = func((flat - step).reshape(x.shape))
        columns.append(((hi - lo) / (2 * eps)).reshape(-1))
    out_shape = func(x).shape
    return torch.stack(columns, dim=-1).reshape(*out_shape, *x.shape)


# ---- jacobian: the reference's examples, every strategy
inputs = torch.rand(2, 2, dtype=dt)
jac = jacobian(exp_reducer, inputs)
assert jac.shape == (2, 2, 2)
# d(sum_j exp(x_ij))/dx_kl = [i == k] exp(x_kl)
by_hand = torch.zeros(2, 2, 2, dtype=dt)
for i in range(2):
    by_hand[i, i] = inputs[i].exp()
assert torch.allclose(jac, by_hand)
assert torch.allclose(jac, finite_difference_jacobian(exp_reducer, inputs), atol=1e-8)
assert torch.allclose(jacobian(exp_reducer, inputs, vectorize=True), jac)
assert torch.allclose(jacobian(exp_reducer, inputs, vectorize=True, strategy="forward-mode"), jac)

# create_graph=True: the Jacobian is differentiable (here d(sum jac)/dx = exp(x))
inputs_req = inputs.clone().requires_grad_()
jac_graph = jacobian(exp_reducer, inputs_req, create_graph=True)
assert jac_graph.grad_fn is not None
(d_sum,) = torch.autograd.grad(jac_graph.sum(), inputs_req)
assert torch.allclose(d_sum, inputs.exp())

# several inputs give a tuple of Jacobians, one per input
x, y = torch.rand(2, dtype=dt), torch.rand(2, dtype=dt)
jac_x, jac_y = jacobian(exp_adder, (x, y))
assert torch.allclose(jac_x, torch.diag(2 * x.exp())) and torch.allclose(jac_y, 3 * torch.eye(2, dtype=dt))
for kwargs in ({"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}):
    other_x, other_y = jacobian(exp_adder, (x, y), **kwargs)
    assert torch.allclose(other_x, jac_x) and torch.allclose(other_y, jac_y), kwargs

# several outputs give a nested tuple: [output][input]
nested = jacobian(lambda a, b: (a * b, a.sin()), (x, y), vectorize=True, strategy="forward-mode")
assert torch.allclose(nested[0][0], torch.diag(y)) and torch.allclose(nested[0][1], torch.diag(x))
assert torch.allclose(nested[1][0], torch.diag(x.cos())) and torch.allclose(
    nested[1][1], torch.zeros(2, 2, dtype=dt)
)
print("jacobian: ok")

# ---- hessian
hess = hessian(pow_reducer, inputs)
assert torch.allclose(hess, torch.diag((6 * inputs).reshape(-1)).reshape(2, 2, 2, 2))
assert torch.allclose(hessian(pow_reducer, inputs, vectorize=True), hess)
assert torch.allclose(
    hessian(pow_reducer, inputs, vectorize=True, outer_jacobian_strategy="forward-mode"), hess
)
assert hessian(pow_reducer, inputs_req, create_graph=True).grad_fn is not None
(hxx, hxy), (hyx, hyy) = hessian(pow_adder_reducer, (x, y))
assert torch.allclose(hxx, 4 * torch.eye(2, dtype=dt)) and torch.allclose(hyy, 6 * torch.eye(2, dtype=dt))
assert torch.count_nonzero(hxy) == 0 and torch.count_nonzero(hyx) == 0
print("hessian: ok")

# ---- vjp / jvp / vhp / hvp
v = torch.ones(2, dtype=dt)
out, vjp_out = vjp(exp_reducer, inputs, v)
assert torch.allclose(out, exp_reducer(inputs)) and torch.allclose(vjp_out, inputs.exp())
_, (vjp_x, vjp_y) = vjp(exp_adder, (x, y), v)
assert torch.allclose(vjp_x, 2 * x.exp()) and torch.allclose(vjp_y, 3 * v)
# v may be omitted for a one-element output
_, vjp_scalar = vjp(pow_reducer, inputs)
assert torch.allclose(vjp_scalar, 3 * inputs**2)

tangent = torch.rand(2, 2, dtype=dt)
out, jvp_out = jvp(exp_reducer, inputs, tangent)
assert torch.allclose(jvp_out, (inputs.exp() * tangent).sum(dim=1))
assert torch.allclose(jvp_out, torch.einsum("ikl,kl->i", jac, tangent))
_, jvp_pair = jvp(exp_adder, (x, y), (v, v))
assert torch.allclose(jvp_pair, 2 * x.exp() + 3)

probe = torch.rand(2, 2, dtype=dt)
_, vhp_out = vhp(pow_reducer, inputs, probe)
_, hvp_out = hvp(pow_reducer, inputs, probe)
# the Hessian is symmetric: both products are 6 x * probe
assert torch.allclose(vhp_out, 6 * inputs * probe) and torch.allclose(hvp_out, vhp_out)
_, (vhp_x, vhp_y) = vhp(pow_adder_reducer, (x, y), (v, v))
assert torch.allclose(vhp_x, 4 * v) and torch.allclose(vhp_y, 6 * v)
print("vjp, jvp, vhp, hvp: ok")


# ---- the documented errors
def expect(err_type, text, func):
    try:
        func()
    except err_type as err:
        assert text in str(err), (text, str(err))
        return
    raise AssertionError(f"no {err_type.__name__} ({text})")


expect(
    RuntimeError,
    "is independent of input 1. This is not allowed in strict mode",
    lambda: jacobian(lambda a, b: a * 2, (x, y), strict=True),
)
expect(
    NotImplementedError,
    "only implemented for `vectorize=True`",
    lambda: jacobian(exp_reducer, inputs, strategy="forward-mode"),
)
expect(
    AssertionError,
    'Expected strategy to be either "forward-mode" or "reverse-mode"',
    lambda: jacobian(exp_reducer, inputs, vectorize=True, strategy="sideways"),
)
expect(
    RuntimeError,
    '`strict=True` and `strategy="forward-mode"` are not supported together',
    lambda: jacobian(exp_reducer, inputs, strict=True, vectorize=True, strategy="forward-mode"),
)
expect(RuntimeError, "should contain a single element", lambda: hessian(exp_reducer, inputs))
expect(
    RuntimeError,
    "The vector v can only be None if the user-provided function returns a single Tensor with a single element",
    lambda: vjp(exp_reducer, inputs),
)
print("errors: ok")


# ---- Newton's method on the Rosenbrock function: x <- x - H^-1 g
def rosenbrock(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


point = torch.tensor([-1.2, 1.0], dtype=dt)
for step in range(50):
    g = jacobian(rosenbrock, point, vectorize=True)
    h = hessian(rosenbrock, point, vectorize=True, outer_jacobian_strategy="forward-mode")
    if step == 0:
        # closed forms at the start point
        a, b = point
        assert torch.allclose(g, torch.stack([-2 * (1 - a) - 400 * a * (b - a**2), 200 * (b - a**2)]))
        assert torch.allclose(
            h, torch.tensor([[1200 * a**2 - 400 * b + 2, -400 * a], [-400 * a, 200.0]], dtype=dt)
        )
    point = point - torch.linalg.solve(h, g)
    if g.norm() < 1e-10:
        break
assert torch.allclose(point, torch.ones(2, dtype=dt)), point
print(f"newton: rosenbrock minimum {point.tolist()} after {step + 1} steps")

# ---- Gauss-Newton: fit y = a * exp(b * t) with the residuals' Jacobian
t = torch.linspace(0, 1, 20, dtype=dt)
true_params = torch.tensor([2.0, -1.5], dtype=dt)
observed = true_params[0] * torch.exp(true_params[1] * t)


def residuals(params):
    return params[0] * torch.exp(params[1] * t) - observed


params = torch.tensor([1.0, 0.0], dtype=dt)
jac_start = jacobian(residuals, params, vectorize=True, strategy="forward-mode")
assert torch.allclose(jac_start, finite_difference_jacobian(residuals, params), atol=1e-7)
for _ in range(30):
    r = residuals(params)
    jr = jacobian(residuals, params, vectorize=True, strategy="forward-mode")
    params = params - torch.linalg.solve(jr.T @ jr, jr.T @ r)
assert torch.allclose(params, true_params), params
print(f"gauss-newton: fitted {params.tolist()}")
print("autograd.functional api: ok")
