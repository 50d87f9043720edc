"""nn.utils: gradient clipping and parameter/vector conversion."""

from minitorch.nn.utils import rnn  # noqa: F401
from minitorch.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm  # noqa: F401
from minitorch.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
