# Follows PyTorch's "How to use TensorBoard with PyTorch" recipe (recipes/recipes/tensorboard_with_pytorch.py):
# a linear regression whose training loss is logged with SummaryWriter().add_scalar, then flush and close. The
# recipe's default log directory (./runs/...) is made under a temporary directory. Added after it, as the
# "Visualizing Models, Data, and Training with TensorBoard" tutorial does on FashionMNIST (synthetic images
# here): a grid of images, the model graph, weight histograms and a PR curve. The event files are read back
# with TensorBoard's EventAccumulator: the logged loss must fall.
import glob
import os
import tempfile

import torch
from torch.utils.tensorboard import SummaryWriter

os.chdir(tempfile.mkdtemp())
torch.manual_seed(0)
writer = SummaryWriter()

x = torch.arange(-5, 5, 0.1).view(-1, 1)
y = -5 * x + 0.1 * torch.randn(x.size())

model = torch.nn.Linear(1, 1)
criterion = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_model(iter):
    for epoch in range(iter):
        y1 = model(x)
        loss = criterion(y1, y)
        writer.add_scalar("Loss/train", loss, epoch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


train_model(10)
writer.flush()

# ---- from the "Visualizing Models, Data, and Training" tutorial, on synthetic 28x28 images
images = torch.rand(8, 1, 28, 28)
writer.add_images("four_fashion_mnist_images", images)
net = torch.nn.Sequential(
    torch.nn.Conv2d(1, 6, 5),
    torch.nn.ReLU(),
    torch.nn.MaxPool2d(2),
    torch.nn.Flatten(),
    torch.nn.Linear(864, 10),
)
writer.add_graph(net, images)
for name, p in net.named_parameters():
    writer.add_histogram(name, p, 0)
probs = torch.softmax(net(images), dim=1)[:, 0]
writer.add_pr_curve("class_0", torch.tensor([1, 0, 1, 0, 1, 0, 1, 0]), probs.detach(), global_step=0)
writer.close()

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

(run,) = glob.glob("runs/*")
ea = EventAccumulator(run, size_guidance={"scalars": 0})
ea.Reload()
losses = [e.value for e in ea.Scalars("Loss/train")]
print("losses:", [round(v, 3) for v in losses])
assert len(losses) == 10 and [e.step for e in ea.Scalars("Loss/train")] == list(range(10))
assert losses[-1] < 0.1 * losses[0]
assert ea.Images("four_fashion_mnist_images")[0].width == 8 * 28
assert {"0.weight", "4.bias"} <= set(ea.Tags()["histograms"]) and "class_0" in ea.Tags()["tensors"]
nodes = ea.Graph().node
assert len(nodes) > 5 and any("Conv2d" in n.name for n in nodes) and any("Linear" in n.name for n in nodes)
print("tensorboard recipe: ok")
