"""The modules of minitorch.utils.benchmark, at the paths PyTorch's (torch.utils.benchmark.utils.*) have."""
