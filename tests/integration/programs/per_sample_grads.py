# Follows PyTorch's "Per-sample-gradients" tutorial (intermediate, torch.func): the gradient of the loss for every
# sample of a batch, once by a loop over the samples with torch.autograd.grad, once by
# vmap(grad(...)) over functional_call. Adapted: the tutorial's device "cuda" is the CPU here, and its
# torch.utils.benchmark.Timer comparison is a time.perf_counter one.
import time

import torch
import torch.nn as nn  # noqa: PLR0402  (the tutorial's import)
import torch.nn.functional as F

torch.manual_seed(0)


# Here's a simple CNN and loss function:
class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


# Let's generate a batch of dummy data and pretend that we're working with an MNIST dataset.
device = "cpu"

num_models = 10
batch_size = 64
data = torch.randn(batch_size, 1, 28, 28, device=device)

targets = torch.randint(10, (64,), device=device)

# In regular model training, one would forward the minibatch through the model, and then call .backward()
# to compute gradients. This would generate an 'average' gradient of the entire mini-batch:
model = SimpleCNN().to(device=device)
predictions = model(data)  # move the entire mini-batch through the model

loss = loss_fn(predictions, targets)
loss.backward()  # back propagate the 'average' gradient of this mini-batch


# In contrast to the above approach, per-sample-gradient computation is equivalent to:
#   - for each individual sample of the data, perform a forward and a backward pass to get an individual
#     (per-sample) gradient.
def compute_grad(sample, target):
    sample = sample.unsqueeze(0)  # prepend batch dimension for processing
    target = target.unsqueeze(0)

    prediction = model(sample)
    loss = loss_fn(prediction, target)

    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    """manually process each sample with per sample gradient"""
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    sample_grads = [torch.stack(shards) for shards in sample_grads]
    return sample_grads


t0 = time.perf_counter()
per_sample_grads = compute_sample_grads(data, targets)
t_loop = time.perf_counter() - t0

# sample_grads[0] is the per-sample-grad for model.conv1.weight; model.conv1.weight.shape is [32, 1, 3, 3];
# notice how there is one gradient, per sample, in the batch for a total of 64.
print(per_sample_grads[0].shape)
assert per_sample_grads[0].shape == (64, 32, 1, 3, 3)

# Per-sample-grads, *the efficient way*, using function transforms.
from torch.func import functional_call, grad, vmap

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


# Next, let's define a function to compute the loss of the model given a single input rather than a batch
# of inputs. It is important that this function accepts the parameters, the input, and the target, because
# we will be transforming over them.
def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)

    predictions = functional_call(model, (params, buffers), (batch,))
    loss = loss_fn(predictions, targets)
    return loss


# Now, let's use the grad transform to create a new function that computes the gradient with respect to the
# first argument of compute_loss (i.e. the params).
ft_compute_grad = grad(compute_loss)

# The ft_compute_grad function computes the gradient for a single (sample, target) pair. We can use vmap to
# get it to compute the gradient over an entire batch of samples and targets.
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))

t0 = time.perf_counter()
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
t_vmap = time.perf_counter() - t0

# we can double check that the results using grad and vmap match the results of hand processing each one
# individually:
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)

# the mean over the batch of the per-sample gradients is the minibatch gradient of the first backward
for p, ft_per_sample_grad in zip(model.parameters(), ft_per_sample_grads.values()):
    assert torch.allclose(p.grad, ft_per_sample_grad.mean(0), atol=1e-5, rtol=1e-4)

print(f"Per-sample-grads without vmap {t_loop * 1000:.1f} ms")
print(f"Per-sample-grads with vmap {t_vmap * 1000:.1f} ms")
if t_vmap < t_loop:
    print(f"Performance delta: {(t_loop - t_vmap) / t_vmap * 100:.4f} percent improvement with vmap")
else:
    print(f"Performance delta: {(t_vmap - t_loop) / t_loop * 100:.4f} percent improvement with for loop")
print("per-sample gradients: ok")
