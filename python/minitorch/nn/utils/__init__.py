"""nn.utils: gradient clipping, parameter/vector conversion, RNN packing, parametrizations, weight/spectral
norm, layer fusion, skip_init and functional_call (prune is imported on demand, as in PyTorch)."""

from minitorch.nn.utils import parametrizations, parametrize, rnn, stateless  # noqa: F401
from minitorch.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from minitorch.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from minitorch.nn.utils.fusion import (  # noqa: F401
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from minitorch.nn.utils.init import skip_init  # noqa: F401
from minitorch.nn.utils.memory_format import (  # noqa: F401
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
from minitorch.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from minitorch.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: F401
