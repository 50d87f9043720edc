"""The layer classes of minitorch.nn, by family as in PyTorch's torch/nn/modules."""

from minitorch.nn.modules import _constants
from minitorch.nn.modules.activation import *
from minitorch.nn.modules.adaptive import *
from minitorch.nn.modules.batchnorm import *
from minitorch.nn.modules.channelshuffle import *
from minitorch.nn.modules.container import *
from minitorch.nn.modules.conv import *
from minitorch.nn.modules.distance import *
from minitorch.nn.modules.dropout import *
from minitorch.nn.modules.flatten import *
from minitorch.nn.modules.fold import *
from minitorch.nn.modules.lazy import LazyModuleMixin  # noqa: F401
from minitorch.nn.modules.linear import *
from minitorch.nn.modules.linear_cross_entropy_options import *
from minitorch.nn.modules.loss import *
from minitorch.nn.modules.module import Module  # noqa: F401
from minitorch.nn.modules.normalization import *
from minitorch.nn.modules.padding import *
from minitorch.nn.modules.pixelshuffle import *
from minitorch.nn.modules.pooling import *
from minitorch.nn.modules.rnn import *
from minitorch.nn.modules.sparse import *
from minitorch.nn.modules.transformer import *
from minitorch.nn.modules.upsampling import *

_constants.apply(globals())
del _constants
