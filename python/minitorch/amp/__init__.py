"""minitorch.amp: automatic mixed precision (autocast regions and loss scaling), as torch.amp."""

from minitorch.amp.autocast_mode import autocast, is_autocast_available  # noqa: F401
from minitorch.amp.grad_scaler import GradScaler  # noqa: F401
