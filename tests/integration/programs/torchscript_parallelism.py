# Follows PyTorch's "Dynamic Parallelism in TorchScript" tutorial (advanced/torch-script-parallelism): the basic
# torch.jit.fork/torch.jit.wait example in a scripted function, then a bidirectional recurrent LSTM whose forward
# layer is forked while the backward layer runs on the time-flipped input, and an ensemble of them that forks one
# task per model and sums the stacked results, scripted with the tutorial's List[torch.jit.Future[torch.Tensor]]
# annotations and profiled. Adapted: a smaller input (T=20, B=8 instead of 50x50), no chrome trace file.
# Added: the scripted ensemble equals the eager one, the bidirectional output equals the two directions computed
# by hand, and the fork's result equals the direct call.
# ruff: noqa: UP035, UP006  (the tutorial's typing.List, kept)
import time
from typing import List

import torch


def foo(x):
    return torch.neg(x)


@torch.jit.script
def example(x):
    # Call `foo` using parallelism: first "fork" off a task that runs `foo` with argument `x`
    future = torch.jit.fork(foo, x)
    # Call `foo` normally
    x_normal = foo(x)
    # "wait" on the task: it may be running in parallel
    x_parallel = torch.jit.wait(future)
    return x_normal, x_parallel


print(example(torch.ones(1)))  # (-1., -1.)
a, b = example(torch.ones(3))
assert a.tolist() == b.tolist() == [-1.0, -1.0, -1.0]


class BidirectionalRecurrentLSTM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell_f = torch.nn.LSTM(input_size=4, hidden_size=5)
        self.cell_b = torch.nn.LSTM(input_size=4, hidden_size=5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Forward layer - fork() so this can run in parallel to the backward layer
        future_f = torch.jit.fork(self.cell_f, x)

        # Backward layer. Flip input in the time dimension (dim 0), apply the layer, then flip the outputs in the
        # time dimension
        x_rev = torch.flip(x, dims=[0])
        output_b, _ = self.cell_b(x_rev)
        output_b_rev = torch.flip(output_b, dims=[0])

        # Retrieve the output from the forward layer. Note this needs to happen *after* the stuff we want to
        # parallelize with
        output_f, _ = torch.jit.wait(future_f)

        # Concatenate the outputs from both directions
        return torch.cat((output_f, output_b_rev), dim=2)


class LSTMEnsemble(torch.nn.Module):
    def __init__(self, n_models):
        super().__init__()
        self.n_models = n_models
        self.models = torch.nn.ModuleList([BidirectionalRecurrentLSTM() for _ in range(self.n_models)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Launch tasks for each model
        futures: List[torch.jit.Future[torch.Tensor]] = []
        for model in self.models:
            futures.append(torch.jit.fork(model, x))

        # Collect the results from the launched tasks
        results: List[torch.Tensor] = []
        for future in futures:
            results.append(torch.jit.wait(future))

        return torch.sum(torch.stack(results))


torch.manual_seed(0)
T, B, C = 20, 8, 4
eager = LSTMEnsemble(n_models=4)
ens = torch.jit.script(eager)
x = torch.rand(T, B, C)

with torch.autograd.profiler.profile() as prof:
    s = time.time()
    out = ens(x)
    print("Inference took", time.time() - s, " seconds")

assert out.shape == ()
assert torch.allclose(out, eager(x), atol=1e-5), (out, eager(x))

# one bidirectional model against its two directions computed by hand
m = eager.models[0]
both = m(x)
assert both.shape == (T, B, 10)
fwd, _ = m.cell_f(x)
bwd, _ = m.cell_b(torch.flip(x, dims=[0]))
assert torch.allclose(both[..., :5], fwd) and torch.allclose(both[..., 5:], torch.flip(bwd, dims=[0]))
expected = torch.stack([mm(x) for mm in eager.models]).sum()
assert torch.allclose(out, expected, atol=1e-5)
assert len(prof.key_averages()) > 0  # the profiler recorded the ops the scripted ensemble ran
print("torchscript_parallelism: ok")
