# Follows jayroxis/PINNs "Burgers Identification (PyTorch)" (the PyTorch port of Raissi, Perdikaris and
# Karniadakis' physics-informed neural networks): a Tanh DNN built from an OrderedDict of Linear layers, u_t,
# u_x and u_xx by torch.autograd.grad(grad_outputs=ones_like, retain_graph=True, create_graph=True), the
# residual f = u_t + lambda_1 u u_x - exp(lambda_2) u_xx with the PDE's coefficients as extra Parameters
# registered on the network, Adam, then LBFGS(line_search_fn="strong_wolfe") driven by a closure; both
# coefficients are identified from data. Adapted: burgers_shock.mat is replaced by the exact travelling-wave
# solution of the viscous Burgers equation (nu = 0.05, smooth enough for a small network), fewer points, a
# narrower network and fewer iterations (300 Adam, 150 LBFGS). Added: the autograd derivatives checked against the exact ones of a
# known function, and the identified coefficients must land near the true ones.
from collections import OrderedDict

import numpy as np
import torch

np.random.seed(1234)
torch.manual_seed(1234)

if torch.cuda.is_available():
    device = torch.device("cuda")
else:
    device = torch.device("cpu")


class DNN(torch.nn.Module):
    def __init__(self, layers):
        super(DNN, self).__init__()
        self.depth = len(layers) - 1
        self.activation = torch.nn.Tanh

        layer_list = list()
        for i in range(self.depth - 1):
            layer_list.append(("layer_%d" % i, torch.nn.Linear(layers[i], layers[i + 1])))
            layer_list.append(("activation_%d" % i, self.activation()))

        layer_list.append(("layer_%d" % (self.depth - 1), torch.nn.Linear(layers[-2], layers[-1])))
        layerDict = OrderedDict(layer_list)
        self.layers = torch.nn.Sequential(layerDict)

    def forward(self, x):
        out = self.layers(x)
        return out


class PhysicsInformedNN:
    def __init__(self, X, u, layers, lb, ub, lbfgs_iters):
        self.lb = torch.tensor(lb).float().to(device)
        self.ub = torch.tensor(ub).float().to(device)

        self.x = torch.tensor(X[:, 0:1], requires_grad=True).float().to(device)
        self.t = torch.tensor(X[:, 1:2], requires_grad=True).float().to(device)
        self.u = torch.tensor(u).float().to(device)

        self.lambda_1 = torch.tensor([0.0], requires_grad=True).to(device)
        self.lambda_2 = torch.tensor([-6.0], requires_grad=True).to(device)

        self.lambda_1 = torch.nn.Parameter(self.lambda_1)
        self.lambda_2 = torch.nn.Parameter(self.lambda_2)

        self.dnn = DNN(layers).to(device)
        self.dnn.register_parameter("lambda_1", self.lambda_1)
        self.dnn.register_parameter("lambda_2", self.lambda_2)

        self.optimizer = torch.optim.LBFGS(
            self.dnn.parameters(),
            lr=1.0,
            max_iter=lbfgs_iters,
            max_eval=int(lbfgs_iters * 1.25),
            history_size=50,
            tolerance_grad=1e-5,
            tolerance_change=1.0 * np.finfo(float).eps,
            line_search_fn="strong_wolfe",
        )

        self.optimizer_Adam = torch.optim.Adam(self.dnn.parameters(), lr=3e-3)
        self.iter = 0
        self.history = []

    def net_u(self, x, t):
        u = self.dnn(torch.cat([x, t], dim=1))
        return u

    def net_f(self, x, t):
        """The pytorch autograd version of calculating residual"""
        lambda_1 = self.lambda_1
        lambda_2 = torch.exp(self.lambda_2)
        u = self.net_u(x, t)

        u_t = torch.autograd.grad(
            u, t, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True
        )[0]
        u_x = torch.autograd.grad(
            u, x, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True
        )[0]
        u_xx = torch.autograd.grad(
            u_x, x, grad_outputs=torch.ones_like(u_x), retain_graph=True, create_graph=True
        )[0]

        f = u_t + lambda_1 * u * u_x - lambda_2 * u_xx
        return f

    def loss_func(self):
        u_pred = self.net_u(self.x, self.t)
        f_pred = self.net_f(self.x, self.t)
        loss = torch.mean((self.u - u_pred) ** 2) + torch.mean(f_pred**2)
        self.optimizer.zero_grad()
        loss.backward()

        self.iter += 1
        self.history.append(loss.item())
        if self.iter % 50 == 0:
            print(
                "Loss: %e, l1: %.5f, l2: %.5f"
                % (loss.item(), self.lambda_1.item(), torch.exp(self.lambda_2.detach()).item())
            )
        return loss

    def train(self, nIter):
        self.dnn.train()
        for epoch in range(nIter):
            u_pred = self.net_u(self.x, self.t)
            f_pred = self.net_f(self.x, self.t)
            loss = torch.mean((self.u - u_pred) ** 2) + torch.mean(f_pred**2)

            self.optimizer_Adam.zero_grad()
            loss.backward()
            self.optimizer_Adam.step()
            self.history.append(loss.item())

            if epoch % 100 == 0:
                print(
                    "It: %d, Loss: %.3e, Lambda_1: %.3f, Lambda_2: %.6f"
                    % (epoch, loss.item(), self.lambda_1.item(), torch.exp(self.lambda_2).item())
                )

        self.optimizer.step(self.loss_func)

    def predict(self, X):
        x = torch.tensor(X[:, 0:1], requires_grad=True).float().to(device)
        t = torch.tensor(X[:, 1:2], requires_grad=True).float().to(device)

        self.dnn.eval()
        u = self.net_u(x, t)
        f = self.net_f(x, t)
        u = u.detach().cpu().numpy()
        f = f.detach().cpu().numpy()
        return u, f


# ---- the derivatives net_f takes, on a function whose derivatives are known
xs = torch.linspace(-1, 1, 9).reshape(-1, 1).requires_grad_()
ts = torch.linspace(0, 1, 9).reshape(-1, 1).requires_grad_()
g = torch.sin(3 * xs) * torch.exp(-ts) + xs**2 * ts
g_t = torch.autograd.grad(g, ts, torch.ones_like(g), retain_graph=True, create_graph=True)[0]
g_x = torch.autograd.grad(g, xs, torch.ones_like(g), retain_graph=True, create_graph=True)[0]
g_xx = torch.autograd.grad(g_x, xs, torch.ones_like(g_x), retain_graph=True, create_graph=True)[0]
with torch.no_grad():
    assert torch.allclose(g_t, -torch.sin(3 * xs) * torch.exp(-ts) + xs**2, atol=1e-5)
    assert torch.allclose(g_x, 3 * torch.cos(3 * xs) * torch.exp(-ts) + 2 * xs * ts, atol=1e-5)
    assert torch.allclose(g_xx, -9 * torch.sin(3 * xs) * torch.exp(-ts) + 2 * ts, atol=1e-4)
(g_xxx_sum,) = torch.autograd.grad(g_xx.sum(), xs)  # a third derivative through the create_graph chain
with torch.no_grad():
    assert torch.allclose(g_xxx_sum, -27 * torch.cos(3 * xs) * torch.exp(-ts), atol=1e-4)

# ---- configurations: the travelling wave u = 1/2 (1 - tanh((x - t/2) / (4 nu))) solves u_t + u u_x = nu u_xx
nu = 0.05
N_u = 400
layers = [2, 20, 20, 20, 20, 1]

t = np.linspace(0, 1, 51)[:, None]
x = np.linspace(-1, 1, 101)[:, None]
X, T = np.meshgrid(x, t)
Exact = 0.5 * (1 - np.tanh((X - 0.5 * T) / (4 * nu)))

X_star = np.hstack((X.flatten()[:, None], T.flatten()[:, None]))
u_star = Exact.flatten()[:, None]

lb = X_star.min(0)
ub = X_star.max(0)

idx = np.random.choice(X_star.shape[0], N_u, replace=False)
X_u_train = X_star[idx, :]
u_train = u_star[idx, :]

model = PhysicsInformedNN(X_u_train, u_train, layers, lb, ub, lbfgs_iters=150)
model.train(300)

u_pred, f_pred = model.predict(X_star)
error_u = np.linalg.norm(u_star - u_pred, 2) / np.linalg.norm(u_star, 2)
# [0]: NumPy 2 no longer formats a one-element array with %f, as the notebook's NumPy did
lambda_1_value = model.lambda_1.detach().cpu().numpy()[0]
lambda_2_value = np.exp(model.lambda_2.detach().cpu().numpy())[0]
error_lambda_1 = np.abs(lambda_1_value - 1.0) * 100
error_lambda_2 = np.abs(lambda_2_value - nu) / nu * 100
print("Error u: %e" % (error_u))
print("Error l1: %.5f%%" % (error_lambda_1))
print("Error l2: %.5f%%" % (error_lambda_2))
print(
    "loss: first %.3e, after Adam %.3e, last %.3e (%d evaluations)"
    % (model.history[0], model.history[299], model.history[-1], len(model.history))
)
assert len(model.history) > 350  # LBFGS evaluated its closure many times
assert model.history[-1] < 0.1 * model.history[299] < 0.1 * model.history[0]
assert error_u < 0.05, error_u
assert error_lambda_1 < 15, error_lambda_1
assert error_lambda_2 < 40, error_lambda_2
assert np.abs(f_pred).mean() < 0.05, np.abs(f_pred).mean()
print("pinn_burgers: ok")
