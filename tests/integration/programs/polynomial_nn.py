# Follows PyTorch's "Learning PyTorch with Examples": fitting sin(x) with a third-order polynomial, nn version
# (nn.Sequential of Linear(3, 1) and Flatten(0, 1), MSELoss(reduction="sum"), manual SGD, then optim.RMSprop).
import math

import torch

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
assert xx.shape == (2000, 3)

model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")
learning_rate = 1e-6
first = None
for t in range(2000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if first is None:
        first = loss.item()
    if t % 500 == 99:
        print(t, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
final = loss.item()
linear_layer = model[0]
print(
    f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
    f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3"
)
assert final < first / 10 and final < 50, (first, final)

# optim version
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(1000):
    loss = loss_fn(model(xx), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
assert loss.item() < 50, loss.item()
# the cubic term's coefficient of the Taylor fit is negative (sin x ~ x - x^3/6)
assert model[0].weight[0, 2].item() < 0
print("polynomial nn: ok")
