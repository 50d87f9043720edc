# Follows pytorch/examples mnist_hogwild: one model whose parameters live in shared memory
# (model.share_memory()), several processes training it at once without locks (Hogwild!), each with its own
# optimizer and DataLoader shard, then a test in the parent. MNIST-shaped synthetic data, small model.
import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def dataset(n, seed):
    protos = torch.rand(10, 1, 28, 28, generator=torch.Generator().manual_seed(0))
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    x = 0.6 * protos[y] + 0.4 * torch.rand(n, 1, 28, 28, generator=g)
    return TensorDataset((x - 0.5) / 0.2, y)  # normalized, as the example's transforms.Normalize


def train(rank, model, epochs=3):
    torch.manual_seed(1 + rank)
    loader = DataLoader(dataset(400, 10 + rank), batch_size=32, shuffle=True)
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    model.train()
    for epoch in range(epochs):
        for data, target in loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
    print(f"{rank}\tfinal train loss {loss.item():.4f}")


def test(model):
    model.eval()
    data, target = dataset(300, 99).tensors
    with torch.no_grad():
        out = model(data)
    acc = (out.argmax(1) == target).float().mean().item()
    return F.nll_loss(out, target).item(), acc


if __name__ == "__main__":
    torch.manual_seed(1)
    mp.set_start_method("spawn", force=True)
    model = Net()
    model.share_memory()  # gradients are allocated lazily, so they are not shared here
    assert all(p.is_shared() for p in model.parameters())
    before = [p.detach().clone() for p in model.parameters()]
    loss0, acc0 = test(model)
    processes = []
    for rank in range(2):
        p = mp.Process(target=train, args=(rank, model))
        p.start()
        processes.append(p)
    for p in processes:
        p.join(timeout=120)
        assert p.exitcode == 0, p.exitcode
    # the children's updates are visible in the parent: the parameters are the same memory
    assert any(not torch.equal(b, p) for b, p in zip(before, model.parameters()))
    loss1, acc1 = test(model)
    print(f"test loss {loss0:.4f} -> {loss1:.4f}, accuracy {acc0:.2f} -> {acc1:.2f}")
    assert loss1 < loss0 and acc1 > 0.5, (loss0, loss1, acc1)
    print("mnist hogwild: ok")
