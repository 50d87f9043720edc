# Follows pytorch/examples dcgan/main.py and the DCGAN tutorial: Generator of ConvTranspose2d + BatchNorm2d +
# ReLU ending in Tanh, Discriminator of Conv2d + BatchNorm2d + LeakyReLU(0.2) ending in Sigmoid, weights_init
# via Module.apply, BCELoss, Adam(lr=2e-4, betas=(0.5, 0.999)), the alternating D/G updates.
# Scaled down to 16x16 single-channel images; the "real" data are noisy copies of one bright square.
import torch
from torch import nn, optim

torch.manual_seed(999)
nz, ngf, ndf, nc = 16, 16, 16, 1


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),  # 4x4
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),  # 8x8
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),  # 16x16
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),  # 8x8
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),  # 4x4
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


square = -torch.ones(1, nc, 16, 16)
square[..., 4:12, 4:12] = 1


def real_batch(n):
    return (square + 0.1 * torch.randn(n, nc, 16, 16)).clamp(-1, 1)


netG, netD = Generator(), Discriminator()
netG.apply(weights_init)
netD.apply(weights_init)
assert abs(netD.main[3].weight.mean().item() - 1) < 0.05
criterion = nn.BCELoss()
fixed_noise = torch.randn(64, nz, 1, 1)
real_label, fake_label = 1.0, 0.0
optimizerD = optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
# G's rate is 10x the example's so that 300 small steps reach the equilibrium (at 2e-4 D wins at this scale)
optimizerG = optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))


def distance_to_real():
    with torch.no_grad():
        netG.eval()
        fake = netG(fixed_noise)
        netG.train()
    return (fake.mean(0) - square[0]).abs().mean().item()


d0 = distance_to_real()
batch_size = 32
for i in range(300):
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    real_cpu = real_batch(batch_size)
    label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype)
    output = netD(real_cpu)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()
    noise = torch.randn(batch_size, nz, 1, 1)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()
    # (2) Update G network: maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    if i % 50 == 0:
        print(
            f"[{i}] Loss_D: {errD.item():.4f} Loss_G: {errG.item():.4f} D(x): {D_x:.4f} D(G(z)): {D_G_z1:.4f} / {D_G_z2:.4f}"
        )
d1 = distance_to_real()
print("mean |G(z) - square|:", d0, "->", d1)
assert netG(fixed_noise).shape == (64, 1, 16, 16)
assert d1 < 0.2 * d0, (d0, d1)  # G's samples are close to the square
print("dcgan: ok")
