"""torch.fx.experimental: the graph optimizations PyTorch ships there (``optimization``: conv/linear-BN fusion,
dropout removal, subgraph extraction)."""
