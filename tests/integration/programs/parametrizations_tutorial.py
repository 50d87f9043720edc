# Follows PyTorch's "Parametrizations Tutorial" (intermediate/parametrizations, by Mario Lezcano): a symmetric
# layer by hand, then torch.nn.utils.parametrize.register_parametrization (Symmetric on a Linear, Skew on a
# Conv2d), what a parametrized module looks like (parametrizations, original), caching with parametrize.cached(),
# chaining parametrizations (Skew then a Cayley map, Skew then matrix_exp; Symmetric then matrix_exp for SPD),
# initialization through right_inverse, and remove_parametrizations with and without leave_parametrized. Added
# after it: the built-in torch.nn.utils.parametrizations (orthogonal, weight_norm, spectral_norm) and a few
# optimizer steps that keep each constraint; the tutorial's printed values are asserted.
import torch
import torch.nn as nn  # noqa: PLR0402  (the tutorial's import)
import torch.nn.utils.parametrize as parametrize  # noqa: PLR0402  (the tutorial's import)
from torch.nn.utils import parametrizations

torch.manual_seed(0)


def symmetric(X):
    return X.triu() + X.triu(1).transpose(-1, -2)


X = torch.rand(3, 3)
A = symmetric(X)
assert torch.allclose(A, A.T)  # A is symmetric
print(A)  # Quick visual check


class LinearSymmetric(nn.Module):
    def __init__(self, n_features):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(n_features, n_features))

    def forward(self, x):
        A = symmetric(self.weight)
        return x @ A


layer = LinearSymmetric(3)
out = layer(torch.rand(8, 3))
assert out.shape == (8, 3)


# Implementing parametrizations by hand
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
assert torch.allclose(A, A.T)  # A is symmetric
print(A)  # Quick visual check


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3)
parametrize.register_parametrization(cnn, "weight", Skew())
# Print a few kernels
print(cnn.weight[0, 1])
print(cnn.weight[2, 2])
assert torch.allclose(cnn.weight, -cnn.weight.transpose(-1, -2))
assert cnn(torch.randn(2, 5, 7, 7)).shape == (2, 8, 5, 5)

# Inspecting a parametrized module
layer = nn.Linear(3, 3)
print(f"Unparametrized:\n{layer}")
parametrize.register_parametrization(layer, "weight", Symmetric())
print(f"\nParametrized:\n{layer}")
assert "ParametrizedLinear" in str(layer) and "(0): Symmetric()" in str(layer)
assert type(layer).__name__ == "ParametrizedLinear"
assert isinstance(layer, nn.Linear)
assert parametrize.is_parametrized(layer) and parametrize.is_parametrized(layer, "weight")
assert not parametrize.is_parametrized(layer, "bias")

print(layer.parametrizations)
print(layer.parametrizations.weight)
print(layer.parametrizations.weight[0])
print(dict(layer.named_parameters()))
assert sorted(dict(layer.named_parameters())) == ["bias", "parametrizations.weight.original"]
print(layer.parametrizations.weight.original)
assert isinstance(layer.parametrizations.weight.original, nn.Parameter)

symmetric = Symmetric()
weight_orig = layer.parametrizations.weight.original
print(torch.dist(layer.weight, symmetric(weight_orig)))
assert torch.dist(layer.weight, symmetric(weight_orig)) == 0
assert "weight" not in dict(layer.named_parameters())
assert sorted(layer.state_dict()) == ["bias", "parametrizations.weight.original"]


# Caching the value of a parametrization
class NoisyParametrization(nn.Module):
    calls = 0

    def forward(self, X):
        print("Computing the Parametrization")
        NoisyParametrization.calls += 1
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", NoisyParametrization())
NoisyParametrization.calls = 0
print("Here, layer.weight is recomputed every time we call it")
foo = layer.weight + layer.weight.T
bar = layer.weight.sum()
assert NoisyParametrization.calls == 3, NoisyParametrization.calls
with parametrize.cached():
    print("Here, it is computed just the first time layer.weight is called")
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()
assert NoisyParametrization.calls == 4, NoisyParametrization.calls


# Concatenating parametrizations
class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        # (I + X)(I - X)^{-1}
        return torch.linalg.solve(self.Id - X, self.Id + X)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
X = layer.weight
print(torch.dist(X.T @ X, torch.eye(3)))  # X is orthogonal
assert torch.dist(X.T @ X, torch.eye(3)) < 1e-5
assert len(layer.parametrizations.weight) == 2


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
X = layer_orthogonal.weight
print(torch.dist(X.T @ X, torch.eye(3)))  # X is orthogonal
assert torch.dist(X.T @ X, torch.eye(3)) < 1e-5

layer_spd = nn.Linear(3, 3)
parametrize.register_parametrization(layer_spd, "weight", Symmetric())
parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
X = layer_spd.weight
print(torch.dist(X, X.T))  # X is symmetric
print((torch.linalg.eigvalsh(X) > 0.0).all())  # X is positive definite
assert torch.dist(X, X.T) < 1e-5
assert (torch.linalg.eigvalsh(X) > 0.0).all()


# Initializing parametrizations
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
X = torch.rand(3, 3)
X = X + X.T  # X is now symmetric
layer.weight = X  # Initialize layer.weight to be X
print(torch.dist(layer.weight, X))  # layer.weight == X
assert torch.dist(layer.weight, X) < 1e-6
assert torch.equal(layer.parametrizations.weight.original, X.triu())


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        # We assume that A is skew-symmetric
        # We take the upper-triangular elements, as these are those used in the forward
        return A.triu(1)


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        # Assume X skew-symmetric
        # (I + X)(I - X)^{-1}
        return torch.linalg.solve(self.Id - X, self.Id + X)

    def right_inverse(self, A):
        # Assume A orthogonal
        # See https://en.wikipedia.org/wiki/Cayley_transform#Matrix_map
        # (X - I)(X + I)^{-1}
        return torch.linalg.solve(self.Id + A, A - self.Id)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
# Sample an orthogonal matrix with positive determinant
X = torch.empty(3, 3)
nn.init.orthogonal_(X)
if X.det() < 0.0:
    X[0].neg_()
layer.weight = X
print(torch.dist(layer.weight, X))  # layer.weight == X
assert torch.dist(layer.weight, X) < 1e-5

# Removing parametrizations
layer = nn.Linear(3, 3)
print("Before:")
print(layer)
print(layer.weight)
parametrize.register_parametrization(layer, "weight", Skew())
print("\nParametrized:")
print(layer)
print(layer.weight)
skew_values = layer.weight.detach().clone()
parametrize.remove_parametrizations(layer, "weight")
print("\nAfter. Weight has skew-symmetric values but it is unconstrained:")
print(layer)
print(layer.weight)
assert type(layer) is nn.Linear and isinstance(layer.weight, nn.Parameter)
assert torch.equal(layer.weight.detach(), skew_values)
assert not parametrize.is_parametrized(layer)

layer = nn.Linear(3, 3)
print("Before:")
print(layer)
print(layer.weight)
before = layer.weight.detach().clone()
parametrize.register_parametrization(layer, "weight", Skew())
print("\nParametrized:")
print(layer)
print(layer.weight)
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
print("\nAfter. Same as Before:")
print(layer)
print(layer.weight)
assert torch.equal(layer.weight.detach(), before.triu(1))  # the original, as right_inverse wrote it

# ---- added: the built-in parametrizations, trained a few steps; each keeps its constraint
lin = parametrizations.orthogonal(nn.Linear(4, 4))
W = lin.weight
print("orthogonal:", torch.dist(W.T @ W, torch.eye(4)))
assert torch.dist(W.T @ W, torch.eye(4)) < 1e-5
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randn(32, 4)
losses = []
for _ in range(20):
    opt.zero_grad()
    loss = ((lin(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    losses.append(loss.item())
W = lin.weight
assert losses[-1] < losses[0], losses
assert torch.dist(W.T @ W, torch.eye(4)) < 1e-4, torch.dist(W.T @ W, torch.eye(4))

wn = parametrizations.weight_norm(nn.Linear(5, 3))
print(wn)
g = wn.parametrizations.weight.original0
v = wn.parametrizations.weight.original1
assert g.shape == (3, 1) and v.shape == (3, 5)
torch.testing.assert_close(wn.weight, g * v / v.norm(dim=1, keepdim=True))
opt = torch.optim.Adam(wn.parameters(), lr=0.05)
x, y = torch.randn(64, 5), torch.randn(64, 3)
first = None
for _ in range(30):
    opt.zero_grad()
    loss = nn.functional.mse_loss(wn(x), y)
    loss.backward()
    opt.step()
    first = loss.item() if first is None else first
assert loss.item() < first
torch.testing.assert_close(wn.weight.norm(dim=1, keepdim=True), g.abs().detach(), rtol=1e-5, atol=1e-6)

sn = parametrizations.spectral_norm(nn.Linear(20, 40))
print(sn)
for _ in range(15):  # power iteration runs once per forward in training mode
    sn(torch.randn(4, 20))
sn.eval()
sigma = torch.linalg.matrix_norm(sn.weight.detach(), ord=2)
print("spectral norm:", sigma)
assert abs(sigma.item() - 1.0) < 1e-3, sigma
sd = sn.state_dict()
assert "parametrizations.weight.0._u" in sd and "parametrizations.weight.0._v" in sd
print("parametrizations_tutorial: ok")
