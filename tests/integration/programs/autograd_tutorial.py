# Follows PyTorch's beginner tutorial "Automatic differentiation with torch.autograd" (basics/autogradqs_tutorial)
# and the blitz autograd tutorial: leaves, grad_fn, backward, no_grad, detach, Jacobian-vector products.
import torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
assert z.grad_fn is not None and loss.grad_fn is not None

loss.backward()
# d loss / d z = sigmoid(z) / 3 for target 0; d z / d w[i, j] = x[i] = 1
expected_b = torch.sigmoid(z.detach()) / 3
assert torch.allclose(b.grad, expected_b, atol=1e-6)
assert torch.allclose(w.grad, expected_b.expand(5, 3), atol=1e-6)

z = torch.matmul(x, w) + b
assert z.requires_grad
with torch.no_grad():
    z = torch.matmul(x, w) + b
assert not z.requires_grad
z_det = (torch.matmul(x, w) + b).detach()
assert not z_det.requires_grad

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
first = inp.grad.clone()
out.backward(torch.ones_like(out), retain_graph=True)
assert torch.allclose(inp.grad, 2 * first)  # gradients accumulate
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
assert torch.allclose(inp.grad, first)
assert torch.allclose(first, 2 * (torch.eye(4, 5) + 1))

# blitz: Q = 3a^3 - b^2
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a**3 - b**2
Q.backward(gradient=torch.tensor([1.0, 1.0]))
assert torch.equal(9 * a**2, a.grad) and torch.equal(-2 * b, b.grad)

# a frozen backbone: only the new head gets gradients
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
for p in model[0].parameters():
    p.requires_grad = False
model(torch.randn(4, 8)).sum().backward()
assert model[0].weight.grad is None and model[2].weight.grad is not None
print("autograd tutorial: ok")
