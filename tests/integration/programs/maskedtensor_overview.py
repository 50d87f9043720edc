# Follows PyTorch's "(Prototype) MaskedTensor Overview" tutorial (prototype/maskedtensor_overview): masked_tensor and
# as_masked_tensor, indexing and slicing, torch.where whose gradient reaches only the selected elements, a
# masked-out division without NaN gradients, sum instead of nansum, a safe softmax over an all-masked column,
# mean and argmin ignoring masked zeros, and a fully masked mean. Adapted: the values a notebook cell displays
# (its last bare expression) are printed. Asserts added for what the tutorial's text says each result shows.
import warnings

import torch
from torch.masked import as_masked_tensor, masked_tensor

# Disable prototype warnings and such
warnings.filterwarnings(action="ignore", category=UserWarning)

torch.manual_seed(0)

data = torch.arange(24).reshape(2, 3, 4)
mask = data % 2 == 0

print("data:\n", data)
print("mask:\n", mask)

# float is used for cleaner visualization when being printed
mt = masked_tensor(data.float(), mask)

print("mt[0]:\n", mt[0])
print("mt[:, :, 2:4]:\n", mt[:, :, 2:4])
assert torch.equal(mt[0].get_data(), data[0].float()) and torch.equal(mt[0].get_mask(), mask[0])
assert torch.equal(mt[:, :, 2:4].get_mask(), mask[:, :, 2:4])

# ---- torch.where: current result
x = torch.tensor([-10.0, -5, 0, 5, 10, 50, 60, 70, 80, 90, 100], requires_grad=True, dtype=torch.float)
y = torch.where(x < 0, torch.exp(x), torch.ones_like(x))
y.sum().backward()
print(x.grad)
# exp overflows at 90 and 100: the unselected branch's zero gradient times inf is NaN (issue 10729)
assert torch.allclose(x.grad[:2], torch.exp(x[:2])) and torch.equal(x.grad[2:9], torch.zeros(7))
assert torch.isnan(x.grad[9:]).all()

# MaskedTensor result
x = torch.tensor([-10.0, -5, 0, 5, 10, 50, 60, 70, 80, 90, 100])
mask = x < 0
mx = masked_tensor(x, mask, requires_grad=True)
my = masked_tensor(torch.ones_like(x), ~mask, requires_grad=True)
y = torch.where(mask, torch.exp(mx), my)
y.sum().backward()
print(mx.grad)
# the gradient is only provided to the selected subset
assert torch.equal(mx.grad.get_mask(), mask)
assert torch.allclose(mx.grad.get_data()[mask], torch.exp(x[mask]))

# ---- another torch.where: current result
a = torch.randn((), requires_grad=True)
b = torch.tensor(False)
c = torch.ones(())
print("torch.where(b, a/0, c):\n", torch.where(b, a / 0, c))
print("torch.autograd.grad(torch.where(b, a/0, c), a):\n", torch.autograd.grad(torch.where(b, a / 0, c), a))
assert torch.isnan(torch.autograd.grad(torch.where(b, a / 0, c), a)[0])

# MaskedTensor result
a = masked_tensor(torch.randn(()), torch.tensor(True), requires_grad=True)
b = torch.tensor(False)
c = torch.ones(())
print("torch.where(b, a/0, c):\n", torch.where(b, a / 0, c))
print("torch.autograd.grad(torch.where(b, a/0, c), a):\n", torch.autograd.grad(torch.where(b, a / 0, c), a))
(g,) = torch.autograd.grad(torch.where(b, a / 0, c), a)
assert not g.get_mask().item()  # masked out, not NaN

# ---- when using mask, x/0 yields NaN grad: current result
x = torch.tensor([1.0, 1.0], requires_grad=True)
div = torch.tensor([0.0, 1.0])
y = x / div  # => y is [inf, 1]
mask = div != 0  # => mask is [0, 1]
y[mask].backward()
print(x.grad)
assert torch.isnan(x.grad[0]) and x.grad[1] == 1

# MaskedTensor result
x = torch.tensor([1.0, 1.0], requires_grad=True)
div = torch.tensor([0.0, 1.0])
y = x / div  # => y is [inf, 1]
mask = div != 0  # => mask is [0, 1]
loss = as_masked_tensor(y, mask)
loss.sum().backward()
print(x.grad)
# the gradient is a MaskedTensor too: the divided-by-zero element masked out instead of NaN
assert torch.equal(x.grad.get_mask(), mask) and x.grad.get_data()[1].item() == 1.0

# ---- torch.nansum and torch.nanmean: current result
a = torch.tensor([1.0, 2.0, float("nan")])
b = torch.tensor(1.0, requires_grad=True)
c = a * b
c1 = torch.nansum(c)
(bgrad1,) = torch.autograd.grad(c1, b, retain_graph=True)
print(bgrad1)
assert torch.isnan(bgrad1)

# MaskedTensor result
a = torch.tensor([1.0, 2.0, float("nan")])
b = torch.tensor(1.0, requires_grad=True)
mt = masked_tensor(a, ~torch.isnan(a))
c = mt * b
c1 = torch.sum(c)
(bgrad1,) = torch.autograd.grad(c1, b, retain_graph=True)
print(bgrad1)
assert bgrad1.item() == 3.0

# ---- safe softmax
data = torch.randn(3, 3)
mask = torch.tensor([[True, False, False], [True, False, True], [False, False, False]])
x = data.masked_fill(~mask, float("-inf"))
mt = masked_tensor(data, mask)
print("x:\n", x)
print("mt:\n", mt)

print(x.softmax(0))
assert torch.isnan(x.softmax(0)[:, 1]).all()

print(mt.softmax(0))
sm = mt.softmax(0)
assert torch.equal(sm.get_mask(), mask)
assert not torch.isnan(sm.get_data()[mask]).any()
torch.testing.assert_close(sm.get_data()[:2, 0], torch.softmax(data[:2, 0], 0))

# ---- implementing missing torch.nan* operators
x = torch.arange(16).float()
y = x * x.fmod(4)
z = y.masked_fill(y == 0, float("nan"))  # we want to get the mean of y when ignoring the zeros

print("y:\n", y)
# z is just y with the zeros replaced with nan's
print("z:\n", z)

print("y.mean():\n", y.mean())
print("z.nanmean():\n", z.nanmean())
# MaskedTensor successfully ignores the 0's
print("torch.mean(masked_tensor(y, y != 0)):\n", torch.mean(masked_tensor(y, y != 0)))
assert torch.mean(masked_tensor(y, y != 0)).get_data().item() == z.nanmean().item()

print(torch.argmin(masked_tensor(y, y != 0)))
# the index of the minimum argument when ignoring the 0's is the 1 in index 1
assert torch.argmin(masked_tensor(y, y != 0)).get_data().item() == 1

x = torch.empty(16).fill_(float("nan"))
print("x:\n", x)
print("torch.nanmean(x):\n", torch.nanmean(x))
print("torch.nanmean via maskedtensor:\n", torch.mean(masked_tensor(x, ~torch.isnan(x))))
assert torch.isnan(torch.nanmean(x))
assert not torch.mean(masked_tensor(x, ~torch.isnan(x))).get_mask().item()
print("maskedtensor overview: ok")
