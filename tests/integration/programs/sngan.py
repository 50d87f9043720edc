# Follows the "Spectrally Normalized Generative Adversarial Networks (SN-GAN)" notebook of DeepLearning.AI's GAN
# course (Build Basic GANs, week 2's optional SN-GAN; Miyato et al. 2018): the course's DCGAN generator
# (ConvTranspose2d + BatchNorm2d + ReLU blocks ending in Tanh), a discriminator whose every Conv2d is wrapped in
# nn.utils.spectral_norm, weights_init via Module.apply (normal(0, 0.02) for convs and BatchNorm weights),
# BCEWithLogitsLoss and Adam(lr=2e-4, betas=(0.5, 0.999)), the alternating discriminator/generator updates with
# disc_loss.backward(retain_graph=True). Adapted: MNIST is replaced by synthetic 1x28x28 strokes normalized to
# [-1, 1], 6 short epochs, no image grids (matplotlib, torchvision), so no claim on sample quality. Added: what spectral_norm promises checked
# against torch.linalg (the normalized weight's largest singular value is 1 once the power iteration has run;
# weight_orig, weight_u, weight_v; eval mode freezes u), remove_spectral_norm, and the parametrization form
# (nn.utils.parametrizations.spectral_norm) the notebook's hook form is now documented beside.
import copy

import torch
from torch import nn

torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self, z_dim=10, im_chan=1, hidden_dim=64):
        super(Generator, self).__init__()
        self.z_dim = z_dim
        self.gen = nn.Sequential(
            self.make_gen_block(z_dim, hidden_dim * 4),
            self.make_gen_block(hidden_dim * 4, hidden_dim * 2, kernel_size=4, stride=1),
            self.make_gen_block(hidden_dim * 2, hidden_dim),
            self.make_gen_block(hidden_dim, im_chan, kernel_size=4, final_layer=True),
        )

    def make_gen_block(self, input_channels, output_channels, kernel_size=3, stride=2, final_layer=False):
        if not final_layer:
            return nn.Sequential(
                nn.ConvTranspose2d(input_channels, output_channels, kernel_size, stride),
                nn.BatchNorm2d(output_channels),
                nn.ReLU(inplace=True),
            )
        else:
            return nn.Sequential(
                nn.ConvTranspose2d(input_channels, output_channels, kernel_size, stride),
                nn.Tanh(),
            )

    def unsqueeze_noise(self, noise):
        return noise.view(len(noise), self.z_dim, 1, 1)

    def forward(self, noise):
        x = self.unsqueeze_noise(noise)
        return self.gen(x)


def get_noise(n_samples, z_dim, device="cpu"):
    return torch.randn(n_samples, z_dim, device=device)


class Discriminator(nn.Module):
    def __init__(self, im_chan=1, hidden_dim=16):
        super(Discriminator, self).__init__()
        self.disc = nn.Sequential(
            self.make_disc_block(im_chan, hidden_dim),
            self.make_disc_block(hidden_dim, hidden_dim * 2),
            self.make_disc_block(hidden_dim * 2, 1, final_layer=True),
        )

    def make_disc_block(self, input_channels, output_channels, kernel_size=4, stride=2, final_layer=False):
        if not final_layer:
            return nn.Sequential(
                nn.utils.spectral_norm(nn.Conv2d(input_channels, output_channels, kernel_size, stride)),
                nn.BatchNorm2d(output_channels),
                nn.LeakyReLU(0.2, inplace=True),
            )
        else:
            return nn.Sequential(
                nn.utils.spectral_norm(nn.Conv2d(input_channels, output_channels, kernel_size, stride)),
            )

    def forward(self, image):
        disc_pred = self.disc(image)
        return disc_pred.view(len(disc_pred), -1)


def sigma_max(w):
    return torch.linalg.matrix_norm(w.detach().reshape(w.shape[0], -1), ord=2).item()


# ---- what nn.utils.spectral_norm does to a layer
conv = nn.utils.spectral_norm(nn.Conv2d(3, 8, 4, 2))
assert sorted(n for n, _ in conv.named_parameters()) == ["bias", "weight_orig"]
assert sorted(n for n, _ in conv.named_buffers()) == ["weight_u", "weight_v"]
assert conv.weight_u.shape == (8,) and conv.weight_v.shape == (48,)
with torch.no_grad():
    conv.weight_orig.mul_(5.0)
for _ in range(30):  # each training-mode forward runs one power iteration
    conv(torch.randn(2, 3, 8, 8))
sigma = sigma_max(conv.weight_orig)
assert sigma > 1.5
assert abs(sigma_max(conv.weight) - 1.0) < 1e-3, sigma_max(conv.weight)
assert torch.allclose(conv.weight, conv.weight_orig / sigma, rtol=1e-3, atol=1e-5)
conv.eval()
u_before = conv.weight_u.clone()
conv(torch.randn(2, 3, 8, 8))
assert torch.equal(conv.weight_u, u_before)  # eval mode uses u, v as they are
conv.train()
nn.utils.remove_spectral_norm(conv)
assert sorted(n for n, _ in conv.named_parameters()) == ["bias", "weight"]
assert abs(sigma_max(conv.weight) - 1.0) < 1e-3

# the parametrization form
lin = nn.Linear(20, 40)
with torch.no_grad():
    lin.weight.mul_(3.0)
orig_sigma = sigma_max(lin.weight)
snl = nn.utils.parametrizations.spectral_norm(lin, n_power_iterations=5)
assert nn.utils.parametrize.is_parametrized(snl, "weight")
for _ in range(10):
    snl(torch.randn(4, 20))
assert abs(sigma_max(snl.weight) - 1.0) < 1e-3, sigma_max(snl.weight)
assert abs(sigma_max(snl.parametrizations.weight.original) - orig_sigma) < 1e-5
nn.utils.parametrize.remove_parametrizations(snl, "weight")
assert not nn.utils.parametrize.is_parametrized(snl) and abs(sigma_max(snl.weight) - 1.0) < 1e-3

# ---- training SN-DCGAN
criterion = nn.BCEWithLogitsLoss()
n_epochs = 6
z_dim = 64
display_step = 20
batch_size = 64
lr = 0.0002
beta_1 = 0.5
beta_2 = 0.999
device = "cuda" if torch.cuda.is_available() else "cpu"

# synthetic MNIST-shaped data: a bright bar at a random angle through the centre, normalized as (x - 0.5) / 0.5
n_images = 640
angles = torch.rand(n_images) * 3.14159
yy, xx = torch.meshgrid(torch.arange(28.0) - 13.5, torch.arange(28.0) - 13.5, indexing="ij")
dist = (xx[None] * torch.sin(angles)[:, None, None] - yy[None] * torch.cos(angles)[:, None, None]).abs()
images = ((dist < 2.0) & (xx[None] ** 2 + yy[None] ** 2 < 120)).float().unsqueeze(1)
images = (images - 0.5) / 0.5
dataloader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(images, torch.zeros(n_images)), batch_size=batch_size, shuffle=True
)

gen = Generator(z_dim).to(device)
gen_opt = torch.optim.Adam(gen.parameters(), lr=lr, betas=(beta_1, beta_2))
disc = Discriminator().to(device)
disc_opt = torch.optim.Adam(disc.parameters(), lr=lr, betas=(beta_1, beta_2))


def weights_init(m):
    if isinstance(m, nn.Conv2d) or isinstance(m, nn.ConvTranspose2d):  # noqa: SIM101  (the notebook's test)
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    if isinstance(m, nn.BatchNorm2d):
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
        torch.nn.init.constant_(m.bias, 0)


gen = gen.apply(weights_init)
disc = disc.apply(weights_init)
gen_start, disc_start = copy.deepcopy(gen), copy.deepcopy(disc)
# (weights_init sets m.weight, which spectral_norm recomputes from weight_orig on the next forward: as in the
# notebook, the discriminator's convs keep their default initialization)

cur_step = 0
mean_generator_loss = 0
mean_discriminator_loss = 0
history = []
for epoch in range(n_epochs):
    for real, _ in dataloader:
        cur_batch_size = len(real)
        real = real.to(device)

        disc_opt.zero_grad()
        fake_noise = get_noise(cur_batch_size, z_dim, device=device)
        fake = gen(fake_noise)
        disc_fake_pred = disc(fake.detach())
        disc_fake_loss = criterion(disc_fake_pred, torch.zeros_like(disc_fake_pred))
        disc_real_pred = disc(real)
        disc_real_loss = criterion(disc_real_pred, torch.ones_like(disc_real_pred))
        disc_loss = (disc_fake_loss + disc_real_loss) / 2

        mean_discriminator_loss += disc_loss.item() / display_step
        disc_loss.backward(retain_graph=True)
        disc_opt.step()

        gen_opt.zero_grad()
        fake_noise_2 = get_noise(cur_batch_size, z_dim, device=device)
        fake_2 = gen(fake_noise_2)
        disc_fake_pred = disc(fake_2)
        gen_loss = criterion(disc_fake_pred, torch.ones_like(disc_fake_pred))
        gen_loss.backward()
        gen_opt.step()

        mean_generator_loss += gen_loss.item() / display_step
        history.append((disc_loss.item(), gen_loss.item()))

        if cur_step % display_step == 0 and cur_step > 0:
            print(
                f"Step {cur_step}: Generator loss: {mean_generator_loss}, discriminator loss: {mean_discriminator_loss}"
            )
            mean_generator_loss = 0
            mean_discriminator_loss = 0
        cur_step += 1

assert cur_step == n_epochs * 10
assert all(torch.isfinite(torch.tensor(h)).all() for h in history)
# every discriminator conv stays spectrally normalized through training (one power iteration per forward)
for m in disc.modules():
    if isinstance(m, nn.Conv2d):
        s = sigma_max(m.weight)
        assert 0.9 < s < 1.1, s
# both networks learned: parameters moved, the discriminator's through weight_orig behind the normalization
assert all(not torch.equal(p, q) for p, q in zip(gen.parameters(), gen_start.parameters()) if p.dim() > 1)
first_conv = disc.disc[0][0]
assert not torch.equal(first_conv.weight_orig, disc_start.disc[0][0].weight_orig)
with torch.no_grad():
    gen.eval()
    samples = gen(get_noise(128, z_dim))
assert samples.shape == (128, 1, 28, 28) and samples.min() >= -1 and samples.max() <= 1
print("sngan: ok")
