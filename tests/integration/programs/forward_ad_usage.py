# Follows PyTorch's "Forward-mode Automatic Differentiation (Beta)" tutorial (intermediate): dual tensors with
# torch.autograd.forward_ad (make_dual, unpack_dual, dual_level), forward AD through modules (by swapping their
# parameters for dual tensors, and with torch.func.functional_call), a custom autograd.Function with a jvp
# checked by gradcheck(check_forward_ad=True), and the functional API (functorch.jvp, make_functional, and
# torch.func.jvp). Unchanged but for the checks of each result against finite differences and reverse mode.
import functorch as ft
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn  # noqa: PLR0402  (the tutorial's import)
from torch.func import functional_call

torch.manual_seed(0)

primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x**2 + y**2


# All forward AD computation must be performed in the context of
# a ``dual_level`` context. All dual tensors created in such a context
# will have their tangents destroyed upon exit. This is to ensure that
# if the output or intermediate results of this computation are reused
# in a future forward AD computation, their tangents (which are associated
# with this computation) won't be confused with tangents from the later
# computation.
with fwAD.dual_level():
    # To create a dual tensor we associate a tensor, which we call the
    # primal with another tensor of the same size, which we call the tangent.
    # If the layout of the tangent is different from that of the primal,
    # The values of the tangent are copied into a new tensor with the same
    # metadata as the primal. Otherwise, the tangent itself is used as-is.
    #
    # It is also important to note that the dual tensor created by
    # ``make_dual`` is a view of the primal.
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent

    # To demonstrate the case where the copy of the tangent happens,
    # we pass in a tangent with a layout different from that of the primal
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent

    # Tensors that do not have an associated tangent are automatically
    # considered to have a zero-filled tangent of the same shape.
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)

    # Unpacking the dual returns a ``namedtuple`` with ``primal`` and ``tangent``
    # as attributes
    jvp = fwAD.unpack_dual(dual_output).tangent
    # the JVP of x**2 + y**2 along (tangent, 0) is 2 * x * tangent
    assert torch.allclose(jvp, 2 * primal * tangent)
    assert torch.allclose(fwAD.unpack_dual(dual_output).primal, primal**2 + plain_tensor**2)

assert fwAD.unpack_dual(dual_output).tangent is None

######################################################################
# Usage with Modules
# --------------------------------------------------------------------
model = nn.Linear(5, 5)
input = torch.randn(16, 5)

params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}

with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))

    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent

# the output is linear in (weight, bias): its JVP is input @ dW.T + db
assert torch.allclose(jvp, input @ tangents["weight"].T + tangents["bias"], atol=1e-6)

######################################################################
# Using the functional Module API (beta)
# --------------------------------------------------------------------
model = nn.Linear(5, 5)

dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        # Using the same ``tangents`` from the above section
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp2 = fwAD.unpack_dual(out).tangent

# Check our results
assert torch.allclose(jvp, jvp2)

######################################################################
# Custom autograd Function
# --------------------------------------------------------------------


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        # Tensors stored in ``ctx`` can be used in the subsequent forward grad
        # computation.
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        # If the tensor stored in`` ctx`` will not also be used in the backward pass,
        # one can manually free it using ``del``
        del ctx.result
        return gO


fn = Fn.apply

primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)

with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent

assert torch.allclose(jvp, (tangent * primal.exp()).detach())

# It is important to use ``autograd.gradcheck`` to verify that your
# custom autograd Function computes the gradients correctly. By default,
# ``gradcheck`` only checks the backward-mode (reverse-mode) AD gradients. Specify
# ``check_forward_ad=True`` to also check forward grads. If you did not
# implement the backward formula for your function, you can also tell ``gradcheck``
# to skip the tests that require backward-mode AD by specifying
# ``check_backward_ad=False``, ``check_undefined_grad=False``, and
# ``check_batched_grad=False``.
torch.autograd.gradcheck(
    Fn.apply,
    (primal,),
    check_forward_ad=True,
    check_backward_ad=False,
    check_undefined_grad=False,
    check_batched_grad=False,
)

######################################################################
# Functional API (beta)
# --------------------------------------------------------------------
primal0 = torch.randn(10, 10)
tangent0 = torch.randn(10, 10)
primal1 = torch.randn(10, 10)
tangent1 = torch.randn(10, 10)


def fn(x, y):
    return x**2 + y**2


# Here is a basic example to compute the JVP of the above function.
# The ``jvp(func, primals, tangents)`` returns ``func(*primals)`` as well as the
# computed Jacobian-vector product (JVP). Each primal must be associated with a tangent of the same shape.
primal_out, tangent_out = ft.jvp(fn, (primal0, primal1), (tangent0, tangent1))
assert torch.allclose(primal_out, fn(primal0, primal1))
assert torch.allclose(tangent_out, 2 * primal0 * tangent0 + 2 * primal1 * tangent1)

# ``functorch.jvp`` requires every primal to be associated with a tangent.
# If we only want to associate certain inputs to `fn` with tangents,
# then we'll need to create a new function that captures inputs without tangents:
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)
y = torch.randn(10, 10)

import functools  # (imported here, as the tutorial does)

new_fn = functools.partial(fn, y=y)
primal_out, tangent_out = ft.jvp(new_fn, (primal,), (tangent,))
assert torch.allclose(tangent_out, 2 * primal * tangent)

######################################################################
# Using the functional API with Modules
# --------------------------------------------------------------------
model = nn.Linear(5, 5)
input = torch.randn(16, 5)
tangents = tuple([torch.rand_like(p) for p in model.parameters()])

# Given a ``torch.nn.Module``, ``ft.make_functional_with_buffers`` extracts the state
# (``params`` and buffers) and returns a functional version of the model that
# can be invoked like a function.
# That is, the returned ``func`` can be invoked like
# ``func(params, buffers, input)``.
# ``ft.make_functional_with_buffers`` is analogous to the ``nn.Modules`` stateless API
# that you saw previously and we're working on consolidating the two.
func, params, buffers = ft.make_functional_with_buffers(model)


# Because ``jvp`` requires every input to be associated with a tangent, we need to
# create a new function that, when given the parameters, produces the output
def func_params_only(params):
    return func(params, buffers, input)


model_output, jvp_out = ft.jvp(func_params_only, (params,), (tangents,))
assert torch.allclose(model_output, model(input))
assert torch.allclose(jvp_out, input @ tangents[0].T + tangents[1], atol=1e-6)

# torch.func.jvp with functional_call, as the tutorial's closing note recommends
params_dict = dict(model.named_parameters())
tangents_dict = {name: t for name, t in zip(params_dict, tangents)}


def func_dict(p):
    return functional_call(model, p, (input,))


out_f, jvp_f = torch.func.jvp(func_dict, (params_dict,), (tangents_dict,))
assert torch.allclose(jvp_f, jvp_out, atol=1e-6)

# the forward-mode JVP equals reverse mode's J^T v transposed: <v_out, J t> == <J^T v_out, t>
x = torch.randn(7, dtype=torch.double, requires_grad=True)
t = torch.randn(7, dtype=torch.double)
v = torch.randn(7, dtype=torch.double)


def g(x):
    return torch.tanh(x) * x.sin() + x.exp().cumsum(0)


with fwAD.dual_level():
    jt = fwAD.unpack_dual(g(fwAD.make_dual(x.detach(), t))).tangent
(jtv,) = torch.autograd.grad(g(x), x, v)
assert torch.allclose((v * jt).sum(), (jtv * t).sum())
print("forward-mode AD tutorial: ok")
