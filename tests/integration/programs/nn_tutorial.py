# Follows PyTorch's "What is torch.nn really?" (Jeremy Howard): logistic regression on MNIST-shaped data written
# from scratch, then refactored step by step with nn.functional, nn.Module, nn.Linear, optim, TensorDataset,
# DataLoader and a CNN. Synthetic data: 784-pixel "digits" whose class is encoded in a few pixels plus noise.
import math

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
n_train, n_valid = 2000, 500
protos = torch.randn(10, 784)


def make(n):
    y = torch.randint(0, 10, (n,))
    x = (protos[y] + 1.5 * torch.randn(n, 784)) / 3
    return x, y


x_train, y_train = make(n_train)
x_valid, y_valid = make(n_valid)
n, c = x_train.shape
assert (n, c) == (n_train, 784) and y_train.min() >= 0 and y_train.max() <= 9

# from scratch
weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


loss_func = nll
bs = 64
xb, yb = x_train[0:bs], y_train[0:bs]
start_loss = loss_func(model(xb), yb).item()
lr, epochs = 0.5, 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        loss = loss_func(model(xb), yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
acc = accuracy(model(x_valid), y_valid).item()
print("from scratch:", start_loss, loss.item(), acc)
assert acc > 0.8, acc
# our hand-written pieces equal the library's
assert torch.allclose(F.cross_entropy(xb @ weights + bias, yb), nll(model(xb), yb), atol=1e-5)


# nn.Module + nn.Linear + optim + DataLoader
class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = sum(loss * num for loss, num in zip(losses, nums)) / sum(nums)
        print(epoch, val_loss)
    return val_loss


train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
model = Mnist_Logistic()
opt = optim.SGD(model.parameters(), lr=lr)
val_loss = fit(2, model, F.cross_entropy, opt, train_dl, valid_dl)
assert val_loss < 1.0, val_loss


# CNN with nn.Sequential and a Lambda layer
class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


model = nn.Sequential(
    Lambda(lambda x: x.view(-1, 1, 28, 28)),
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
with torch.no_grad():
    loss_before = F.cross_entropy(model(x_valid), y_valid).item()
val_loss = fit(2, model, F.cross_entropy, opt, train_dl, valid_dl)
with torch.no_grad():
    acc = accuracy(model(x_valid), y_valid).item()
print("cnn:", val_loss, acc)
assert val_loss < loss_before and acc > 0.2, (loss_before, val_loss, acc)  # chance is 0.1
print("nn tutorial: ok")
