"""Training converges end to end: the tutorials' SimpleNN, a LeNet-style CNN on synthetic images and an MLP
regression, on every device present; plus one hand-checked SGD step through Linear and CrossEntropyLoss."""

import numpy as np
import pytest

import minitorch
from minitorch import nn, optim


class SimpleNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 10)
        self.fc2 = nn.Linear(10, 2)

    def forward(self, x):
        return self.fc2(minitorch.relu(self.fc1(x)))


def test_one_sgd_step_matches_numpy(device):
    minitorch.manual_seed(1)
    model = SimpleNN().to(device)
    x = minitorch.randn(8, 3)
    y = minitorch.tensor([0, 1, 1, 0, 1, 0, 0, 1])
    w1, b1, w2, b2 = (p.detach().cpu().numpy().astype(np.float64) for p in model.parameters())
    opt = optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    loss = nn.CrossEntropyLoss()(model(x.to(device)), y.to(device))
    loss.backward()
    opt.step()

    # the same step in float64 NumPy
    xn, yn = x.numpy().astype(np.float64), y.numpy()
    h = xn @ w1.T + b1
    a = np.maximum(h, 0)
    z = a @ w2.T + b2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ref_loss = -np.log(p[np.arange(8), yn]).mean()
    dz = p.copy()
    dz[np.arange(8), yn] -= 1
    dz /= 8
    dw2, db2 = dz.T @ a, dz.sum(0)
    da = dz @ w2
    dh = da * (h > 0)
    dw1, db1 = dh.T @ xn, dh.sum(0)
    assert loss.item() == pytest.approx(ref_loss, rel=1e-5)
    for got, w, g in zip(model.parameters(), (w1, b1, w2, b2), (dw1, db1, dw2, db2)):
        np.testing.assert_allclose(got.detach().cpu().numpy(), w - 0.1 * g, rtol=1e-5, atol=1e-6)


def test_simple_nn_learns(device):
    minitorch.manual_seed(0)
    model = SimpleNN().to(device)
    crit = nn.CrossEntropyLoss()
    x = minitorch.randn(100, 3).to(device)
    y = (x[:, 0] > 0).long()
    opt = optim.SGD(model.parameters(), lr=0.5)
    first = None
    for _ in range(300):
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    with minitorch.no_grad():
        acc = (model(x).argmax(dim=1) == y).float().mean().item()
    assert loss.item() < 0.5 * first and acc > 0.9


def _bars(n, gen):
    """12x12 images: class 0 has a horizontal bar, class 1 a vertical one, at random places, plus noise."""
    imgs = gen.normal(0, 0.3, size=(n, 1, 12, 12)).astype(np.float32)
    labels = gen.integers(0, 2, size=n)
    pos = gen.integers(2, 10, size=n)
    for i in range(n):
        if labels[i] == 0:
            imgs[i, 0, pos[i], 2:10] += 1.5
        else:
            imgs[i, 0, 2:10, pos[i]] += 1.5
    return minitorch.from_numpy(imgs), minitorch.from_numpy(labels.astype(np.int64))


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 3, padding=1),
            nn.BatchNorm2d(6),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(6, 12, 3),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.1), nn.Linear(48, 16), nn.ReLU(), nn.Linear(16, 2)
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def test_lenet_cnn_learns_synthetic_images(device):
    minitorch.manual_seed(0)
    gen = np.random.default_rng(0)
    x, y = _bars(256, gen)
    xt, yt = _bars(128, gen)
    x, y, xt, yt = x.to(device), y.to(device), xt.to(device), yt.to(device)
    model = LeNet().to(device)
    opt = optim.Adam(model.parameters(), lr=1e-2)
    crit = nn.CrossEntropyLoss()
    for epoch in range(8):
        for i in range(0, 256, 32):
            opt.zero_grad()
            loss = crit(model(x[i : i + 32]), y[i : i + 32])
            loss.backward()
            opt.step()
    model.eval()
    with minitorch.no_grad():
        acc = (model(xt).argmax(1) == yt).float().mean().item()
    assert acc > 0.9, acc
    bn = model.features[1]
    assert bn.num_batches_tracked.item() == 8 * 8
    assert float(bn.running_var.min()) > 0


def test_mlp_regression_converges(device):
    minitorch.manual_seed(0)
    gen = np.random.default_rng(1)
    xn = gen.uniform(-2, 2, size=(256, 2)).astype(np.float32)
    yn = (np.sin(xn[:, :1]) + 0.5 * xn[:, 1:] ** 2).astype(np.float32)
    x, y = minitorch.from_numpy(xn).to(device), minitorch.from_numpy(yn).to(device)
    model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)).to(
        device
    )
    opt = optim.Adam(model.parameters(), lr=1e-2)
    crit = nn.MSELoss()
    losses = []
    for _ in range(300):
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] / 20, (losses[0], losses[-1])


def test_clip_grad_norm_deprecated_spelling_and_clip_grads_with_norm():
    minitorch.manual_seed(0)
    m = nn.Linear(3, 2)
    m(minitorch.ones(4, 3)).sum().backward()
    grads = [p.grad.clone() for p in m.parameters()]
    total = float(np.sqrt(sum(float((g * g).sum()) for g in grads)))
    with pytest.warns(FutureWarning, match="`torch.nn.utils.clip_grad_norm` is now deprecated in favor of"):
        n = nn.utils.clip_grad_norm(m.parameters(), 0.5)
    assert abs(n.item() - total) < 1e-5
    scale = 0.5 / (total + 1e-6)
    for p, g in zip(m.parameters(), grads):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy() * scale, rtol=1e-5)
    # the second half of clip_grad_norm_, for a total norm computed elsewhere (reduced across ranks, say)
    nn.utils.clip_grads_with_norm_(
        m.parameters(), 0.25, nn.utils.get_total_norm([p.grad for p in m.parameters()])
    )
    assert abs(nn.utils.get_total_norm([p.grad for p in m.parameters()]).item() - 0.25) < 1e-5
    before = [p.grad.clone() for p in m.parameters()]
    nn.utils.clip_grads_with_norm_(m.parameters(), 10.0, minitorch.tensor(0.25))  # never scales up
    assert all(minitorch.equal(p.grad, g) for p, g in zip(m.parameters(), before))
