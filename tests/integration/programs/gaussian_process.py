# Follows GPyTorch's "Simple GP Regression" tutorial, written in plain PyTorch as the from-scratch GP scripts
# do: an exact GP with a scaled RBF kernel on y = sin(2 pi x) + noise, its hyperparameters (lengthscale,
# outputscale, noise; softplus-positive) fit by Adam on the negative log marginal likelihood through
# torch.linalg.cholesky / cholesky_solve / solve_triangular, then the predictive mean and variance on a test
# grid. Then a PCA of correlated data with torch.pca_lowrank against torch.linalg.svd and torch.linalg.eigh.
import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
train_x = torch.linspace(0, 1, 100, dtype=torch.float64)
train_y = torch.sin(train_x * (2 * math.pi)) + torch.randn(train_x.size(), dtype=torch.float64) * math.sqrt(
    0.04
)


class ExactGP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_lengthscale = torch.nn.Parameter(torch.tensor(0.0, dtype=torch.float64))
        self.raw_outputscale = torch.nn.Parameter(torch.tensor(0.0, dtype=torch.float64))
        self.raw_noise = torch.nn.Parameter(torch.tensor(0.0, dtype=torch.float64))
        self.mean = torch.nn.Parameter(torch.tensor(0.0, dtype=torch.float64))

    def kernel(self, a, b):
        ls, os_ = F.softplus(self.raw_lengthscale), F.softplus(self.raw_outputscale)
        d2 = (a.unsqueeze(-1) - b.unsqueeze(-2)).pow(2)
        return os_ * torch.exp(-0.5 * d2 / ls**2)

    def noise(self):
        return F.softplus(self.raw_noise) + 1e-4

    def neg_mll(self, x, y):
        n = x.shape[0]
        K = self.kernel(x, x) + self.noise() * torch.eye(n, dtype=x.dtype)
        L = torch.linalg.cholesky(K)
        r = (y - self.mean).unsqueeze(-1)
        alpha = torch.cholesky_solve(r, L)
        logdet = 2 * torch.log(torch.diagonal(L)).sum()
        return 0.5 * (r.T @ alpha).squeeze() + 0.5 * logdet + 0.5 * n * math.log(2 * math.pi)

    def predict(self, x, y, xs):
        n = x.shape[0]
        K = self.kernel(x, x) + self.noise() * torch.eye(n, dtype=x.dtype)
        L = torch.linalg.cholesky(K)
        Ks = self.kernel(x, xs)
        alpha = torch.cholesky_solve((y - self.mean).unsqueeze(-1), L)
        mu = self.mean + (Ks.T @ alpha).squeeze(-1)
        v = torch.linalg.solve_triangular(L, Ks, upper=False)
        var = self.kernel(xs, xs).diagonal() - (v * v).sum(0)
        return mu, var


model = ExactGP()
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
first = None
for i in range(60):
    optimizer.zero_grad()
    loss = model.neg_mll(train_x, train_y) / train_x.shape[0]
    loss.backward()
    optimizer.step()
    first = loss.item() if first is None else first
    if i % 20 == 0:
        print(
            f"Iter {i + 1}/60 - Loss: {loss.item():.3f}   lengthscale: {F.softplus(model.raw_lengthscale).item():.3f}"
            f"   noise: {model.noise().item():.3f}"
        )
print(f"marginal likelihood loss {first:.3f} -> {loss.item():.3f}")
assert loss.item() < first - 0.3, (first, loss.item())

model.eval()
with torch.no_grad():
    test_x = torch.linspace(0, 1, 51, dtype=torch.float64)
    mu, var = model.predict(train_x, train_y, test_x)
truth = torch.sin(test_x * (2 * math.pi))
rmse = (mu - truth).pow(2).mean().sqrt().item()
print(f"predictive RMSE {rmse:.4f}, mean predictive std {var.clamp(min=0).sqrt().mean().item():.4f}")
assert rmse < 0.1, rmse
assert (var > -1e-8).all() and var.max().item() < 0.1
inside = ((truth - mu).abs() <= 2 * var.clamp(min=1e-12).sqrt() + 0.05).float().mean().item()
assert inside > 0.9, inside

# ---- PCA: three correlated features of rank-2 structure plus small noise
mix = torch.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.5]], dtype=torch.float64)
data = torch.randn(500, 2, dtype=torch.float64) @ mix + 0.01 * torch.randn(500, 3, dtype=torch.float64)
U, S, V = torch.pca_lowrank(data, q=2)
centered = data - data.mean(0)
s_full = torch.linalg.svdvals(centered)
assert torch.allclose(S, s_full[:2], rtol=1e-6), (S, s_full)
evals, evecs = torch.linalg.eigh(centered.T @ centered)
assert torch.allclose(evals.flip(0)[:2], S**2, rtol=1e-6)
explained = (S**2).sum() / (s_full**2).sum()
print(f"PCA: two components explain {explained.item():.4%} of the variance")
assert explained > 0.999
projected = centered @ V
recon = projected @ V.T
assert (recon - centered).pow(2).mean().sqrt().item() < 0.02
print("gaussian_process: ok")
