"""torch.fx.passes: analyses and rewrites over GraphModules (shape_prop, split_module) and graph_drawer."""

from minitorch.fx.passes import graph_drawer, shape_prop, split_module  # noqa: F401
