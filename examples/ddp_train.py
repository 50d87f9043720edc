"""DistributedDataParallel as the tutorials write it, one process per device, started by the launcher:

    python -m minitorch.distributed.run --standalone --nproc_per_node=2 examples/ddp_train.py [--steps 100]

Each rank trains on its own shard (DistributedSampler); DDP averages the gradients, so every rank ends with the
same weights. NCCL on GPUs (one GPU per rank), Gloo on the CPU.
"""

import argparse
import os

import minitorch as torch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.nn.parallel import DistributedDataParallel as DDP
from minitorch.utils.data import DataLoader, DistributedSampler, TensorDataset


class SimpleNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 10)
        self.fc2 = nn.Linear(10, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=20)
    args = ap.parse_args()

    use_cuda = torch.cuda.is_available() and torch.cuda.device_count() >= int(os.environ["WORLD_SIZE"])
    dist.init_process_group("nccl" if use_cuda else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(local_rank)

    torch.manual_seed(0)  # the same data on every rank; the sampler gives each rank its own part
    x = torch.randn(512, 3)
    y = (x[:, 0] > 0).long()
    sampler = DistributedSampler(TensorDataset(x, y), num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, sampler=sampler)

    torch.manual_seed(rank)  # different initial weights per rank: DDP broadcasts rank 0's at construction
    model = DDP(SimpleNN().to(device), device_ids=[local_rank] if use_cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()

    with torch.no_grad():
        acc = (model(x.to(device)).argmax(1) == y.to(device)).float().mean()
        # every rank holds the same weights: compare a checksum across ranks
        check = torch.stack([p.detach().double().sum() for p in model.parameters()]).sum().reshape(1)
        checks = [torch.zeros_like(check) for _ in range(world)]
        dist.all_gather(checks, check)
    same = all(float(c.item()) == float(check.item()) for c in checks)
    print(f"rank {rank}/{world} on {device}: accuracy {acc.item():.3f}, replicas identical: {same}")
    assert same and acc.item() > 0.9, "DDP training failed"
    dist.barrier()
    if rank == 0:
        print("ddp_train: ok")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
