"""nn.functional's dropout: element-wise, feature (channel) and alpha dropout."""

import warnings

from minitorch import _C

_nn = _C._nn


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    out = _nn.dropout(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def _feature_dropout(input, p, training, inplace, batched_dim, name):
    _check_p(p)
    unbatched = input.dim() == batched_dim - 1
    if input.dim() not in (batched_dim - 1, batched_dim):
        warnings.warn(
            f"{name}: Received a {input.dim()}-D input to {name}, which is deprecated; expected "
            f"{batched_dim - 1}-D or {batched_dim}-D input.",
            stacklevel=3,
        )
    x = input.unsqueeze(0) if unbatched else input
    out = _nn.feature_dropout(x, p, training)
    if unbatched:
        out = out.squeeze(0)
    return input.copy_(out) if inplace and out is not input else out


def dropout1d(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:  # PyTorch's F.dropout1d checks p before the rank
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if isinstance(input, _C.Tensor) and input.dim() not in (
        2,
        3,
    ):  # unlike 2d/3d, PyTorch refuses other ranks
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists "
            "to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs)."
        )
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 5, "dropout3d")


# dropout of self-normalizing networks (SELU): dropped values become the activation's negative saturation
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU activations' zero mean and unit variance (dropped units take SELU's negative
    saturation value, then an affine map restores the moments)."""
    _check_p(p)
    out = _nn.alpha_dropout(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dim 1), one draw per (sample, channel)."""
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        out = input * _C.zeros((), dtype=input.dtype, device=input.device)
        return input.copy_(out) if inplace else out
    alpha = 1.7580993408473766
    a = 1.0 / ((alpha * alpha * p + 1) * (1 - p)) ** 0.5
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = _C.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    b = (keep - 1) * (alpha * a) + alpha * a * p
    out = input * (keep * a) + b
    return input.copy_(out) if inplace else out
