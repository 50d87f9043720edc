"""minitorch.distributed.elastic: what torchrun's agent shares with training scripts (the @record decorator,
ChildFailedError, the Std redirect flags), at PyTorch's module paths."""
