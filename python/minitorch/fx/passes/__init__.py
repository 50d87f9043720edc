"""torch.fx.passes: analyses and rewrites over GraphModules (shape_prop)."""

from minitorch.fx.passes import shape_prop  # noqa: F401
