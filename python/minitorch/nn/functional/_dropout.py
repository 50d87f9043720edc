"""nn.functional's dropout: element-wise, feature (channel) and alpha dropout."""

import warnings

from minitorch import _C, _argcheck, _dtype_names

_nn = _C._nn


def _check_p(p, name=None, input=None, training=True, nan=True, inplace=False):
    """PyTorch's order: F's Python range check, then (name given) ATen's parser (input a tensor, p a float: a
    number or a 0-d tensor, not a 1-d one, train a bool: not an int or a tensor), then (nan) its kernel's NaN
    check. `inplace` picks the ATen name only after the range check: F reads its truth value there (an empty
    tensor's raises only then)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if name is not None:
        name = name + "_" if inplace else name
        _argcheck.check_tensor_like(name, "input", 1, input)
        _argcheck.check_float(name, "p", 2, p)
        _argcheck.check_bool(name, "train", 3, training)
    if nan and not p == p:  # noqa: PLR0124
        raise RuntimeError("dropout probability has to be between 0 and 1, but got nan")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p, "dropout", input, training, inplace=inplace)
    out = _nn.dropout(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def _check_castable(input, p, training, name=None):
    """PyTorch's feature and alpha dropouts multiply by a floating mask whenever they drop at all: the result of
    an integer or bool input cannot be cast back (alpha dropout's bool input is promoted to Long first)."""
    if training and 0.0 < p < 1.0 and input.numel() and not (input.is_floating_point() or input.is_complex()):
        name = name or _dtype_names.scalar_name(input.dtype)
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")


def _feature_dropout(input, p, training, inplace, batched):
    """channel-wise dropout of a batched input (N, C, ...), or of an unbatched one (C, ...) as a batch of one"""
    _check_castable(input, p, training)
    x = input if batched else input.unsqueeze(0)
    out = _nn.feature_dropout(x, p, training)
    if not batched:
        out = out.squeeze(0)
    return input.copy_(out) if inplace and out is not input else out


def _warn_rank(name, spatial, ndim):
    if ndim not in (spatial + 1, spatial + 2):
        warnings.warn(
            f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error in a "
            f"future release. To retain the behavior and silence this warning, please use dropout instead. Note "
            f"that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
            f"channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
            stacklevel=3,
        )


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p, nan=False)  # PyTorch's F.dropout1d checks p's range before the rank, a NaN p after it
    if input.dim() not in (2, 3):  # unlike 2d/3d, PyTorch refuses other ranks
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists "
            "to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs)."
        )
    _check_p(p, "feature_dropout", input, training, inplace=inplace)
    return _feature_dropout(input, p, training, inplace, input.dim() == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p, nan=False)  # a NaN p reaches input.dim() first, then the kernel's check
    _warn_rank("dropout2d", 2, input.dim())
    _check_p(p, "feature_dropout", input, training, inplace=inplace)
    if input.dim() == 3:
        # PyTorch keeps its historical reading of a 3-D input: (N, C, L), one draw per (sample, channel)
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p, nan=False)
    _warn_rank("dropout3d", 3, input.dim())
    _check_p(p, "feature_dropout", input, training, inplace=inplace)
    # every rank but 5 is taken as unbatched (PyTorch's rule, the deprecated ranks included)
    return _feature_dropout(input, p, training, inplace, input.dim() == 5)


# dropout of self-normalizing networks (SELU): dropped values become the activation's negative saturation
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU activations' zero mean and unit variance (dropped units take SELU's negative
    saturation value, then an affine map restores the moments)."""
    _check_p(p, "alpha_dropout", input, training, inplace=inplace)
    _check_castable(input, p, training, "Long" if input.dtype == _C.bool else None)
    out = _nn.alpha_dropout(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dim 1), one draw per (sample, channel)."""
    _check_p(p, "feature_alpha_dropout", input, training, inplace=inplace)
    _check_castable(input, p, training, "Long" if input.dtype == _C.bool else None)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:  # ATen zeroes before it makes the per-channel noise, so any rank is taken
        out = input * _C.zeros((), dtype=input.dtype, device=input.device)
        return input.copy_(out) if inplace else out
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    alpha = 1.7580993408473766
    a = 1.0 / ((alpha * alpha * p + 1) * (1 - p)) ** 0.5
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = _C.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    b = (keep - 1) * (alpha * a) + alpha * a * p
    out = input * (keep * a) + b
    return input.copy_(out) if inplace else out
