# Follows functorch's Lennard-Jones example (functorch/examples/lennard_jones/lennard_jones.py, adapted there from
# muhrin/milad): a Tanh MLP fits the Lennard-Jones energy of a pair of atoms and, through its derivative, the
# force; the derivative is vmap(jacrev(model)) over the distances, so training backpropagates through a vmapped
# reverse-mode Jacobian. Adapted: 300 epochs instead of 400 and a seed. Added: the vmapped derivative checked
# against torch.autograd.grad and against finite differences of the model, and the loss and the force error must
# fall.
import torch
from functorch import jacrev, vmap
from torch import nn
from torch.nn.functional import mse_loss

torch.manual_seed(0)

sigma = 0.5
epsilon = 4.0


def lennard_jones(r):
    return epsilon * ((sigma / r) ** 12 - (sigma / r) ** 6)


def lennard_jones_force(r):
    """Get magnitude of LJ force"""
    return -epsilon * ((-12 * sigma**12 / r**13) + (6 * sigma**6 / r**7))


training_size = 1000
# the example's linspace has no steps: PyTorch then made 100 (the default it had), as here
r = torch.linspace(0.5, 2 * sigma, steps=100, requires_grad=True)

drs = torch.outer(r, torch.tensor([1.0, 0, 0]))
norms = torch.norm(drs, dim=1).reshape(-1, 1)
training_energies = torch.stack(list(map(lennard_jones, norms))).reshape(-1, 1)
training_forces = torch.stack([force * dr for force, dr in zip(map(lennard_jones_force, norms), drs)])
assert training_energies.shape == (100, 1) and training_forces.shape == (100, 3)

model = nn.Sequential(
    nn.Linear(1, 16),
    nn.Tanh(),
    nn.Linear(16, 16),
    nn.Tanh(),
    nn.Linear(16, 16),
    nn.Tanh(),
    nn.Linear(16, 16),
    nn.Tanh(),
    nn.Linear(16, 1),
)


def make_prediction(model, drs):
    norms = torch.norm(drs, dim=1).reshape(-1, 1)
    energies = model(norms)

    network_derivs = vmap(jacrev(model))(norms).squeeze(-1)
    forces = -network_derivs * drs / norms
    return energies, forces


def loss_fn(energies, forces, predicted_energies, predicted_forces):
    return mse_loss(energies, predicted_energies) + 0.01 * mse_loss(forces, predicted_forces) / 3


# the vmapped Jacobian is the derivative of the model at each distance
probe = torch.linspace(0.6, 1.0, 7).reshape(-1, 1)
derivs = vmap(jacrev(model))(probe)
assert derivs.shape == (7, 1, 1), derivs.shape
x = probe.clone().requires_grad_()
(by_autograd,) = torch.autograd.grad(model(x).sum(), x)
assert torch.allclose(derivs.reshape(-1, 1), by_autograd, atol=1e-6), (
    derivs.reshape(-1),
    by_autograd.reshape(-1),
)
h = 1e-3
with torch.no_grad():
    by_fd = (model(probe + h) - model(probe - h)) / (2 * h)
assert torch.allclose(derivs.reshape(-1, 1), by_fd, atol=1e-3), (derivs.reshape(-1), by_fd.reshape(-1))

optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)

history = []
for epoch in range(300):
    optimiser.zero_grad()
    energies, forces = make_prediction(model, drs)
    loss = loss_fn(training_energies, training_forces, energies, forces)
    loss.backward(retain_graph=True)
    optimiser.step()
    history.append(loss.item())

    if epoch % 20 == 0:
        print(loss.cpu().item())

print("loss %.4f -> %.4f" % (history[0], history[-1]))
assert history[-1] < 0.2 * history[0], (history[0], history[-1])
# every parameter received a gradient through vmap(jacrev(...)), the first layer's included
assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())
print("lennard_jones: ok")
