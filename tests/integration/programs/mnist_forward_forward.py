# Follows pytorch/examples mnist_forward_forward (Hinton's Forward-Forward algorithm): each Layer (an nn.Linear
# subclass with its own Adam) is trained locally so that "goodness" (mean squared activation) is high for
# images with the right label overlaid on their first 10 pixels and low for wrong labels; prediction picks the
# label with the highest total goodness. Synthetic MNIST-shaped data (10 noisy prototypes in 784 dims), 500
# training images, 60 epochs per layer instead of 1000.
import numpy as np
import torch
from torch import nn
from torch.optim import Adam


class Args:
    lr = 0.03
    threshold = 2.0
    epochs = 60


args = Args()
device = torch.device("cpu")


def overlay_y_on_x(x, y):
    """Replace the first 10 pixels of data [x] with one-hot-encoded label [y]"""
    x_ = x.clone()
    x_[:, :10] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer", i, "...")
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            # The following loss pushes pos (neg) samples to values larger (smaller) than the self.threshold.
            loss = torch.log(
                1 + torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))
            ).mean()
            self.opt.zero_grad()
            # this backward just compute the derivative and hence is not considered backpropagation.
            loss.backward()
            self.opt.step()
            if i % 20 == 0:
                print("  epoch", i, "loss", loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


def make_data(n, rng, protos):
    y = rng.integers(0, 10, n)
    x = protos[y] + 0.5 * rng.standard_normal((n, 784))
    x = (x - 0.1307) / 0.3081  # the example's Normalize
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


torch.manual_seed(1234)
rng = np.random.default_rng(1234)
protos = rng.uniform(0, 1, (10, 784)) * (rng.uniform(0, 1, (10, 784)) > 0.7)
x, y = make_data(500, rng, protos)
x_te, y_te = make_data(200, rng, protos)

net = Net([784, 500, 500])
x_pos = overlay_y_on_x(x, y)
rnd = torch.randperm(x.size(0))
x_neg = overlay_y_on_x(x, y[rnd])
net.train(x_pos, x_neg)

train_error = 1.0 - net.predict(x).eq(y).float().mean().item()
test_error = 1.0 - net.predict(x_te).eq(y_te).float().mean().item()
print("train error:", train_error)
print("test error:", test_error)
assert test_error < 0.5, test_error  # chance is 0.9
print("mnist forward forward: ok")
