# Follows PyTorch's "Learning PyTorch with Examples": defining new autograd functions (LegendrePolynomial3),
# then fitting sin(x) on [-pi, pi] with y = a + b * P3(c + d * x) by manual gradient descent.
import math

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
first = None
for t in range(2000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if first is None:
        first = loss.item()
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f"Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)  loss {loss.item()}")
assert loss.item() < first / 5 and loss.item() < 30, (first, loss.item())

# the custom backward against finite differences, in float64
inp = torch.randn(6, dtype=torch.double, requires_grad=True)
assert torch.autograd.gradcheck(LegendrePolynomial3.apply, (inp,))
print("polynomial custom function: ok")
