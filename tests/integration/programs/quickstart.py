# Follows PyTorch's beginner "Quickstart": FashionMNIST-shaped data through DataLoader, a Flatten + Linear/ReLU
# network, train/test loops with CrossEntropyLoss and SGD, save/load of the state_dict, prediction.
# Synthetic data of FashionMNIST's shape (1x28x28 images, 10 classes) instead of the download.
import os
import tempfile

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class FakeFashionMNIST(Dataset):
    protos = torch.rand(10, 1, 28, 28)

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, 10, (n,), generator=g)
        self.noise = torch.rand(n, 1, 28, 28, generator=g)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        label = int(self.labels[idx])
        return 0.6 * self.protos[label] + 0.4 * self.noise[idx], label


training_data = FakeFashionMNIST(3000, 1)
test_data = FakeFashionMNIST(1000, 2)
batch_size = 64
train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)
for X, y in test_dataloader:
    print(f"Shape of X [N, C, H, W]: {X.shape}")
    print(f"Shape of y: {y.shape} {y.dtype}")
    assert X.shape == (64, 1, 28, 28) and y.dtype == torch.int64
    break

device = "cpu"


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork().to(device)
print(model)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 20 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return test_loss, correct


loss0, acc0 = test(test_dataloader, model, loss_fn)
epochs = 3
for t in range(epochs):
    print(f"Epoch {t + 1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    loss1, acc1 = test(test_dataloader, model, loss_fn)
assert loss1 < loss0 and acc1 > 0.5, (loss0, loss1, acc1)

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "model.pth")
    torch.save(model.state_dict(), path)
    model2 = NeuralNetwork().to(device)
    model2.load_state_dict(torch.load(path, weights_only=True))

classes = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
]
model2.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    x = x.to(device)
    pred = model2(x)
    assert torch.equal(pred, model(x))
    predicted, actual = classes[pred[0].argmax(0)], classes[y]
    print(f'Predicted: "{predicted}", Actual: "{actual}"')
print("quickstart: ok")
