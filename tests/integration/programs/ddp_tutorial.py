# Follows PyTorch's intermediate tutorial "Getting Started with Distributed Data Parallel": setup() with
# MASTER_ADDR/MASTER_PORT and init_process_group("gloo"), a ToyModel wrapped in DistributedDataParallel,
# mp.spawn(demo_basic, args=(world_size,), nprocs=world_size, join=True), and the checkpoint demo (rank 0 saves,
# a barrier, every rank loads with map_location). Two processes on the CPU.
import os
import socket
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn, optim
from torch.nn.parallel import DistributedDataParallel as DDP


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def demo_basic(rank, world_size):
    print(f"Running basic DDP example on rank {rank}.")
    setup(rank, world_size)
    torch.manual_seed(rank)  # different initial weights: DDP must broadcast rank 0's
    model = ToyModel()
    ddp_model = DDP(model)
    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)
    optimizer.zero_grad()
    outputs = ddp_model(torch.randn(20, 10))
    labels = torch.randn(20, 5)
    loss_fn(outputs, labels).backward()
    optimizer.step()
    # every rank holds the same parameters after the step (gradients were averaged)
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    gathered = [torch.zeros_like(flat) for _ in range(world_size)]
    dist.all_gather(gathered, flat)
    for g in gathered:
        assert torch.equal(g, flat), "parameters diverged across ranks"
    cleanup()
    print(f"Finished running basic DDP example on rank {rank}.")


def demo_checkpoint(rank, world_size, path):
    setup(rank, world_size)
    model = ToyModel()
    ddp_model = DDP(model)
    if rank == 0:
        torch.save(ddp_model.state_dict(), path)
    dist.barrier()
    map_location = {"cuda:%d" % 0: "cpu"}
    ddp_model.load_state_dict(torch.load(path, map_location=map_location, weights_only=True))
    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)
    optimizer.zero_grad()
    outputs = ddp_model(torch.randn(20, 10))
    loss_fn(outputs, torch.randn(20, 5)).backward()
    optimizer.step()
    if rank == 0:
        os.remove(path)
    cleanup()


def run_demo(demo_fn, world_size, *args):
    mp.spawn(demo_fn, args=(world_size, *args), nprocs=world_size, join=True)


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    if not dist.is_gloo_available():
        print("gloo is not available in this build", file=sys.stderr)
        sys.exit(1)
    world_size = 2
    os.environ["MASTER_PORT"] = str(free_port())
    run_demo(demo_basic, world_size)
    os.environ["MASTER_PORT"] = str(free_port())
    with tempfile.TemporaryDirectory() as d:
        run_demo(demo_checkpoint, world_size, os.path.join(d, "model.checkpoint"))
    print("ddp tutorial: ok")
