"""minitorch.nn: modules, parameters, functional API, initializers and utilities, as torch.nn."""

from minitorch.nn import attention, functional, init, parallel, utils  # noqa: F401
from minitorch.nn.modules import *
from minitorch.nn.parallel import DataParallel  # noqa: F401
from minitorch.nn.parameter import Buffer, Parameter  # noqa: F401
