# Follows PyTorch's "Spatial Transformer Networks Tutorial": a localization network regresses an affine map,
# F.affine_grid/F.grid_sample warp the input with it, and a small CNN classifies the warped digits.
# Adapted: MNIST is replaced by synthetic digits (ten random block patterns shifted and scaled at random, so the
# transformer has something to undo), torchvision's make_grid by a reshape, the plots by checks, and the
# tutorial's 20 epochs by 3.
import numpy as np
import torch
import torch.nn as nn  # noqa: PLR0402  (the tutorial's import)
import torch.nn.functional as F
import torch.optim as optim  # noqa: PLR0402
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def synthetic(n, gen):
    coarse = (torch.rand(10, 1, 4, 4, generator=torch.Generator().manual_seed(0)) > 0.5).float()
    protos = F.pad(F.interpolate(coarse, size=(20, 20), mode="nearest"), (4, 4, 4, 4))
    y = torch.randint(0, 10, (n,), generator=gen)
    theta = torch.zeros(n, 2, 3)
    scale = 0.8 + 0.4 * torch.rand(n, generator=gen)
    theta[:, 0, 0] = scale
    theta[:, 1, 1] = scale
    theta[:, :, 2] = 0.3 * (torch.rand(n, 2, generator=gen) - 0.5)
    grid = F.affine_grid(theta, (n, 1, 28, 28), align_corners=False)
    x = F.grid_sample(protos[y], grid, align_corners=False)
    return TensorDataset((x - 0.1307) / 0.3081, y)


g = torch.Generator().manual_seed(1)
train_loader = DataLoader(synthetic(2048, g), batch_size=64, shuffle=True, num_workers=0)
test_loader = DataLoader(synthetic(256, g), batch_size=64, shuffle=True, num_workers=0)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

        # Spatial transformer localization-network
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
        )

        # Regressor for the 3 * 2 affine matrix
        self.fc_loc = nn.Sequential(nn.Linear(10 * 3 * 3, 32), nn.ReLU(True), nn.Linear(32, 3 * 2))

        # Initialize the weights/bias with identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    # Spatial transformer network forward function
    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)

        grid = F.affine_grid(theta, x.size())
        x = F.grid_sample(x, grid)

        return x

    def forward(self, x):
        # transform the input
        x = self.stn(x)

        # Perform the usual forward pass
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


model = Net().to(device)
optimizer = optim.SGD(model.parameters(), lr=0.01)


def train(epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)

        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 500 == 0:
            print(
                "Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(  # noqa: UP032
                    epoch,
                    batch_idx * len(data),
                    len(train_loader.dataset),
                    100.0 * batch_idx / len(train_loader),
                    loss.item(),
                )
            )


def test():
    with torch.no_grad():
        model.eval()
        test_loss = 0
        correct = 0
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)

            # sum up batch loss
            test_loss += F.nll_loss(output, target, size_average=False).item()
            # get the index of the max log-probability
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()

        test_loss /= len(test_loader.dataset)
        print(
            "\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n".format(  # noqa: UP032
                test_loss, correct, len(test_loader.dataset), 100.0 * correct / len(test_loader.dataset)
            )
        )
        return test_loss, correct / len(test_loader.dataset)


def convert_image_np(inp):
    """Convert a Tensor to numpy image."""
    inp = inp.numpy().transpose((1, 2, 0))
    mean = np.array([0.485, 0.456, 0.406])
    std = np.array([0.229, 0.224, 0.225])
    inp = std * inp + mean
    inp = np.clip(inp, 0, 1)
    return inp


def visualize_stn():
    with torch.no_grad():
        # Get a batch of training data
        data = next(iter(test_loader))[0].to(device)

        input_tensor = data.cpu()
        transformed_input_tensor = model.stn(data).cpu()

        # make_grid's job for one channel: the batch side by side, repeated over three channels
        def make_grid(t):
            return t[:16].permute(1, 2, 0, 3).reshape(1, 28, -1).repeat(3, 1, 1)

        in_grid = convert_image_np(make_grid(input_tensor))
        out_grid = convert_image_np(make_grid(transformed_input_tensor))
        return in_grid, out_grid


# at the identity initialization the transformer returns its input (pixel centres map onto themselves)
with torch.no_grad():
    probe = next(iter(test_loader))[0][:8].to(device)
    assert (model.stn(probe) - probe).abs().max().item() < 1e-5

loss0, acc0 = test()
for epoch in range(1, 4):
    train(epoch)
    loss, acc = test()

in_grid, out_grid = visualize_stn()
assert in_grid.shape == out_grid.shape == (28, 28 * 16, 3)
assert loss < loss0 and acc > 0.5, (loss0, loss, acc)
# the localization network has learned something other than the identity
theta = model.fc_loc(model.localization(probe).view(-1, 90)).view(-1, 2, 3)
assert (theta - torch.tensor([[1.0, 0, 0], [0, 1.0, 0]], device=device)).abs().max().item() > 1e-3
print("spatial_transformer: ok")
