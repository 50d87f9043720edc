"""torch.fx.passes: analyses and rewrites over GraphModules (shape_prop, split_module)."""

from minitorch.fx.passes import shape_prop, split_module  # noqa: F401
