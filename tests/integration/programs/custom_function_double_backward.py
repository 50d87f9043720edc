# Follows PyTorch's "Double Backward with Custom Functions" tutorial (intermediate/
# custom_function_double_backward_tutorial): custom autograd Functions whose backward is itself differentiable --
# Square saving an input, Exp saving an output, Sinh returning its intermediates as extra outputs so they can be
# saved, the SinhBad counter-example that stashes them on ctx, and Cube whose backward is another custom Function
# with its own backward -- each checked with gradcheck and gradgradcheck. Adapted: torchviz's make_dot pictures
# are a walk over grad_fn.next_functions; added: the second derivatives against closed forms, and SinhBad's
# gradgradcheck shown to fail as the tutorial explains.
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # Because we are saving one of the inputs use `save_for_backward`
        # Save non-tensors and non-inputs/non-outputs directly on ctx
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        # A function support double backward automatically if autograd
        # is able to record the computations performed in backward
        (x,) = ctx.saved_tensors
        return grad_out * 2 * x


# Use double precision because finite differencing method magnifies errors
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
torch.autograd.gradcheck(Square.apply, x)
# Use gradcheck to verify second-order derivatives
torch.autograd.gradgradcheck(Square.apply, x)


def graph(t, depth=0, seen=None):
    # what torchviz.make_dot draws: the backward graph below t
    seen = set() if seen is None else seen
    lines = []
    fn = t.grad_fn if isinstance(t, torch.Tensor) else t
    if fn is None or fn in seen:
        return lines
    seen.add(fn)
    lines.append("  " * depth + type(fn).__name__)
    for nxt, _ in fn.next_functions:
        if nxt is not None:
            lines += graph(nxt, depth + 1, seen)
    return lines


x = torch.tensor(1.0, requires_grad=True).clone()
out = Square.apply(x)
(grad_x,) = torch.autograd.grad(out, x, create_graph=True)
print("\n".join(graph(grad_x)))
assert grad_x.requires_grad and grad_x.item() == 2.0
(grad_grad_x,) = torch.autograd.grad(grad_x, x)
assert grad_grad_x.item() == 2.0
assert "SquareBackward" in type(out.grad_fn).__name__


class Exp(torch.autograd.Function):
    # Simple case where everything goes well
    @staticmethod
    def forward(ctx, x):
        # This time we save the output
        result = torch.exp(x)
        # Note that we should use `save_for_backward` here when
        # the tensor saved is an ouptut (or an input).
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        (result,) = ctx.saved_tensors
        return result * grad_out


x = torch.tensor(1.0, requires_grad=True, dtype=torch.double).clone()
# Validate our gradients using gradcheck
torch.autograd.gradcheck(Exp.apply, x)
torch.autograd.gradgradcheck(Exp.apply, x)
out = Exp.apply(x)
(grad_x,) = torch.autograd.grad(out, x, create_graph=True)
print("\n".join(graph(grad_x)))
(gg,) = torch.autograd.grad(grad_x, x)
torch.testing.assert_close(gg, torch.exp(x.detach()))


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        # In order to be able to save the intermediate results, a trick is to
        # include them as our outputs, so that the backward graph is constructed
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        # We cannot skip accumulating these even though we won't use the outputs
        # directly. They will be used later in the second backward.
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    # Create a wrapper that only returns the first output
    return Sinh.apply(x)[0]


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
torch.autograd.gradcheck(sinh, x)
torch.autograd.gradgradcheck(sinh, x)

x = torch.tensor(0.7, requires_grad=True, dtype=torch.double).clone()
out = sinh(x)
(grad_x,) = torch.autograd.grad(out, x, create_graph=True)
print("\n".join(graph(grad_x)))
torch.testing.assert_close(grad_x, torch.cosh(x.detach()))
(gg,) = torch.autograd.grad(grad_x, x)
torch.testing.assert_close(gg, torch.sinh(x.detach()))


class SinhBad(torch.autograd.Function):
    # This is an example of what NOT to do!
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.expx = expx
        ctx.expnegx = expnegx
        return (expx - expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        expx = ctx.expx
        expnegx = ctx.expnegx
        grad_input = grad_out * (expx + expnegx) / 2
        return grad_input


x = torch.tensor(0.7, requires_grad=True, dtype=torch.double).clone()
out = SinhBad.apply(x)
(grad_x,) = torch.autograd.grad(out, x, create_graph=True)
print("\n".join(graph(grad_x)))
# the first derivative is right, but expx and expnegx are not connected to x in the graph: the second is lost
torch.testing.assert_close(grad_x, torch.cosh(x.detach()))
assert not grad_x.requires_grad
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
torch.autograd.gradcheck(SinhBad.apply, x)
try:
    torch.autograd.gradgradcheck(SinhBad.apply, x)
except RuntimeError as e:  # GradcheckError, or "element 0 of tensors does not require grad"
    print("SinhBad fails gradgradcheck:", str(e).splitlines()[0])
else:
    raise AssertionError("SinhBad's second derivative should be wrong")


# Case 3: the backward is not differentiable by autograd, so it is a custom Function too
def cube_forward(x):
    return x**3


def cube_backward(grad_out, x):
    return grad_out * 3 * x**2


def cube_backward_backward(grad_out, sav_grad_out, x):
    return grad_out * sav_grad_out * 6 * x


def cube_backward_backward_grad_out(grad_out, x):
    return grad_out * 3 * x**2


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return cube_forward(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return CubeBackward.apply(grad_out, x)


class CubeBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, grad_out, x):
        ctx.save_for_backward(x, grad_out)
        return cube_backward(grad_out, x)

    @staticmethod
    def backward(ctx, grad_out):
        x, sav_grad_out = ctx.saved_tensors
        dx = cube_backward_backward(grad_out, sav_grad_out, x)
        dgrad_out = cube_backward_backward_grad_out(grad_out, x)
        return dgrad_out, dx


x = torch.tensor(2.0, requires_grad=True, dtype=torch.double)

torch.autograd.gradcheck(Cube.apply, x)
torch.autograd.gradgradcheck(Cube.apply, x)

x = torch.tensor(2.0, requires_grad=True, dtype=torch.double).clone()
out = Cube.apply(x)
(grad_x,) = torch.autograd.grad(out, x, create_graph=True)
print("\n".join(graph(grad_x)))
assert "CubeBackwardBackward" in type(grad_x.grad_fn).__name__, type(grad_x.grad_fn).__name__
assert grad_x.item() == 12.0
(gg,) = torch.autograd.grad(grad_x, x, create_graph=True)
assert gg.item() == 12.0  # 6x
print("custom_function_double_backward: ok")
