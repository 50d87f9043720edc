# Follows pytorch/examples vae/main.py: the 784-400-20 VAE (fc1, fc21/fc22 for mu/logvar, reparameterize with
# randn_like, fc3/fc4 decoder), loss = BCE(sum) + KL divergence, Adam; then sampling from the prior.
# MNIST-shaped synthetic data in [0, 1]: blurred blobs of ten prototypes.
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F

torch.manual_seed(1)
protos = (torch.rand(10, 784) > 0.7).float()
labels = torch.randint(0, 10, (2048,))
data = (0.8 * protos[labels] + 0.2 * torch.rand(2048, 784)).clamp(0, 1)
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(data, labels), batch_size=128, shuffle=True
)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    avg = train_loss / len(train_loader.dataset)
    print(f"====> Epoch: {epoch} Average loss: {avg:.4f}")
    return avg


losses = [train(epoch) for epoch in range(1, 5)]
assert losses[-1] < 0.8 * losses[0], losses
with torch.no_grad():
    sample = torch.randn(64, 20)
    sample = model.decode(sample).cpu()
    assert sample.shape == (64, 784) and sample.min() >= 0 and sample.max() <= 1
    print(sample.view(64, 1, 28, 28).shape)
print("vae: ok")
