# Follows pytorch/examples mnist/main.py: the two-conv Net with Dropout, max_pool2d, log_softmax and nll_loss,
# trained with Adadelta(lr=1.0) and StepLR(step_size=1, gamma=0.7), test loss and accuracy per epoch.
# MNIST-shaped synthetic data (1x28x28, normalized as the example does), kept small for the CPU.
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 5 == 0:
            print(
                f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}]\tLoss: {loss.item():.6f}"
            )


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    n = len(test_loader.dataset)
    print(
        f"\nTest set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{n} ({100.0 * correct / n:.0f}%)\n"
    )
    return test_loss, correct / n


def synthetic(n, gen):
    protos = torch.rand(10, 1, 28, 28, generator=torch.Generator().manual_seed(0))
    y = torch.randint(0, 10, (n,), generator=gen)
    x = (0.5 * protos[y] + 0.5 * torch.rand(n, 1, 28, 28, generator=gen) - 0.1307) / 0.3081
    return TensorDataset(x, y)


def main():
    torch.manual_seed(1)
    device = torch.device("cpu")
    g = torch.Generator().manual_seed(2)
    train_loader = DataLoader(synthetic(640, g), batch_size=64, shuffle=True)
    test_loader = DataLoader(synthetic(256, g), batch_size=128)
    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    loss0, acc0 = test(model, device, test_loader)
    for epoch in range(1, 3):
        train(model, device, train_loader, optimizer, epoch)
        loss, acc = test(model, device, test_loader)
        scheduler.step()
    assert abs(optimizer.param_groups[0]["lr"] - 0.49) < 1e-9
    assert loss < loss0 and acc > 0.5, (loss0, loss, acc)
    print("mnist: ok")


if __name__ == "__main__":
    main()
