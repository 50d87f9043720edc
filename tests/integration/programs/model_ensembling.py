# Follows PyTorch's "Model ensembling" tutorial (torch.func): the predictions of several MLPs at once, by
# stacking their parameters with stack_module_state and vmapping functional_call over them, checked against a
# loop over the models. Adapted: the tutorial's device "cuda" is the CPU here, and its
# torch.utils.benchmark.Timer comparison is a time.perf_counter one.
import copy
import time

import torch
import torch.nn as nn  # noqa: PLR0402  (the tutorial's import)
import torch.nn.functional as F

torch.manual_seed(0)


# Here's a simple MLP
class SimpleMLP(nn.Module):
    def __init__(self):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


# Let's generate a batch of dummy data and pretend that we're working with an MNIST dataset.
device = "cpu"
num_models = 10

data = torch.randn(100, 64, 1, 28, 28, device=device)
targets = torch.randint(10, (6400,), device=device)

models = [SimpleMLP().to(device) for _ in range(num_models)]

# Option 1: different minibatches for each model
minibatches = data[:num_models]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]

# Option 2: Same minibatch
minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

# Using vmap to vectorize the ensemble: first, stack the models' parameters and buffers.
from torch.func import stack_module_state

params, buffers = stack_module_state(models)

# Next, we need to define a function to vmap over.
from torch.func import functional_call

# Construct a "stateless" version of one of the models. It is "stateless" in the sense that the parameters
# are meta Tensors and do not have storage.
base_model = copy.deepcopy(models[0])
base_model = base_model.to("meta")


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


print([p.size(0) for p in params.values()])  # show the leading 'num_models' dimension

# verify minibatch has leading dimension of size 'num_models'
assert minibatches.shape == (num_models, 64, 1, 28, 28)

from torch import vmap

t0 = time.perf_counter()
predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
t_vmap = time.perf_counter() - t0

# verify the vmap predictions match the
assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)

# Option 2: Same minibatch for every model
predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)

assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)

t0 = time.perf_counter()
[model(minibatch) for model, minibatch in zip(models, minibatches)]
t_loop = time.perf_counter() - t0
print(f"Predictions without vmap {t_loop * 1000:.1f} ms, with vmap {t_vmap * 1000:.1f} ms")
print("model ensembling: ok")
