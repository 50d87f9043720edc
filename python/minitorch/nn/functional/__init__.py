"""nn.functional: PyTorch's functional API, one private module per family (_activation, _conv, _loss, ...);
this package assembles the public namespace. Layers with a kernel of their own call the native op in
minitorch._C._nn once (argument normalization only here); the rest are compositions of recorded ops.

PyTorch's TypeError for an argument of the wrong kind is raised only where PyTorch raises it
(minitorch/_argcheck.py); each family module ends with the list of its functions that get it. Most of
PyTorch's nn.functional is Python that fails on a bad argument as ours does (an AttributeError on
`target.size()`, "Boolean value of Tensor" on `p < 0`); the functions that are C++ ops in PyTorch (its parser
checks every kind), or Python handing their arguments straight to one, are wrapped where they are defined.
"""

# ruff: noqa: I001, F401  (families in the order they build on one another; the names beyond __all__ count)
import collections.abc  # F.collections, F.warnings, F.math, F.Optional, ...: names PyTorch's F holds too
import math
import sys as _sys
import types as _types
import warnings
from typing import TYPE_CHECKING, Callable, Optional

from minitorch._C import Tensor
from minitorch.overrides import (
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from minitorch.nn.functional._utils import assert_int_or_pair

from minitorch.nn.functional._linear import (
    bilinear,
    linear,
)
from minitorch.nn.functional._activation import (
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    gumbel_softmax,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    logsigmoid,
    mish,
    prelu,
    relu,
    relu6,
    relu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
    sigmoid,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
    threshold_,
)
from minitorch.nn.functional._dropout import (
    alpha_dropout,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from minitorch.nn.functional._embedding import (
    embedding,
    embedding_bag,
    _embedding_padding_idx,
    one_hot,
)
from minitorch.nn.functional._conv import (
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    conv_tbc,
)
from minitorch.nn.functional._pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    _adaptive_max_pool1d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
)
from minitorch.nn.functional._normalization import (
    batch_norm,
    group_norm,
    _group_norm_op,
    instance_norm,
    layer_norm,
    local_response_norm,
    normalize,
    rms_norm,
)
from minitorch.nn.functional._distance import (
    cosine_similarity,
    pairwise_distance,
    pdist,
)
from minitorch.nn.functional._padding import (
    pad,
)
from minitorch.nn.functional._linear_cross_entropy import linear_cross_entropy
from minitorch.nn.functional._loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    nll_loss,
    poisson_nll_loss,
    _reduction,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from minitorch.nn.functional._attention import (
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from minitorch.nn.functional._shuffle import (
    channel_shuffle,
    native_channel_shuffle,
    pixel_shuffle,
    pixel_unshuffle,
)
from minitorch.nn.functional._upsampling import (
    interpolate,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from minitorch.nn.functional._ctc import ctc_loss
from minitorch.nn.functional._sampling import (
    affine_grid,
    grid_sample,
)
from minitorch.nn.functional._fold import (
    fold,
    unfold,
)

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "affine_grid",
    "alpha_dropout",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "channel_shuffle",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "cross_entropy",
    "ctc_loss",
    "dropout",
    "dropout1d",
    "dropout2d",
    "elu",
    "elu_",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "fold",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "gaussian_nll_loss",
    "gelu",
    "glu",
    "grid_sample",
    "group_norm",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "hinge_embedding_loss",
    "huber_loss",
    "instance_norm",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "linear_cross_entropy",
    "local_response_norm",
    "log_softmax",
    "logsigmoid",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "mish",
    "mse_loss",
    "multi_head_attention_forward",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "native_channel_shuffle",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pdist",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "scaled_dot_product_attention",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

# The families' functions call each other's public ones through their module globals (upsample's interpolate,
# the losses' logsigmoid), as they did when nn.functional was one module: while the __torch_function__
# dispatch is on, overrides.py patches a public function in these modules as it does in this namespace, so
# such a nested call reaches a mode or a tensor-like argument as a call through F does.
# (_conv3d, the 3-D composition, was a module of its own before and stays unpatched, as it was.)
_FAMILY_MODULES = tuple(
    _sys.modules[f"{__name__}.{_m}"]
    for _m in (
        "_utils", "_linear", "_activation", "_dropout", "_embedding", "_conv", "_pooling", "_normalization",
        "_distance", "_padding", "_loss", "_attention", "_shuffle", "_upsampling", "_fold", "_sampling", "_ctc",
    )
)  # fmt: skip

# The family modules are private: a function answers with the namespace it is reached through, as PyTorch's
# torch.nn.functional.X does (pickling by reference, the targets fx prints)
for _f in list(globals().values()):
    if isinstance(_f, _types.FunctionType) and _f.__module__.startswith(__name__ + "."):
        _f.__module__ = __name__
del _f
