"""nn.functional's channel rearrangements: pixel_shuffle, pixel_unshuffle and channel_shuffle."""

from minitorch import _argcheck


@_argcheck.parses("Tensor input, int upscale_factor")
def pixel_shuffle(input, upscale_factor):
    # A composite of a reshape and a permute (PyTorch's CPU path is the same), so autograd comes for free.
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r) != 0:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


@_argcheck.parses("Tensor input, int downscale_factor")
def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, "
            f"but got input with {input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if h % r != 0:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} "
            f"is not divisible by {r}"
        )
    if w % r != 0:
        raise RuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} "
            f"is not divisible by {r}"
        )
    if input.numel() == 0:
        # PyTorch returns an empty input unchanged in shape once the checks pass ((N, 0, 3, 3) stays so)
        return input.clone()
    n = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


def _channel_shuffle(input, groups):
    """Splits dim 1 into `groups` groups and interleaves them (ShuffleNet): (N, g * k, ...) -> channels
    ordered by (k, g)."""
    groups = int(groups)  # (the parser's SymInt: a 0-dim integer tensor too)
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    n, rest = input.shape[0], tuple(input.shape[2:])
    x = input.reshape((n, groups, c // groups) + rest).transpose(1, 2)
    return x.reshape(input.shape)


# C++ ops in PyTorch, their parser's kinds checked before the call (a bool groups is no int)
channel_shuffle = _argcheck.parsing(_channel_shuffle, ["Tensor input, SymInt groups"], name="channel_shuffle")
native_channel_shuffle = _argcheck.parsing(
    _channel_shuffle, ["Tensor input, SymInt groups"], name="native_channel_shuffle"
)
channel_shuffle.__name__ = channel_shuffle.__qualname__ = "channel_shuffle"
native_channel_shuffle.__name__ = native_channel_shuffle.__qualname__ = "native_channel_shuffle"


# PyTorch's TypeError for an argument of the wrong kind, on the error path only (minitorch/_argcheck.py):
# these are C++ ops in PyTorch (its parser checks every kind)
_argcheck.translate_module(globals(), ["pixel_shuffle", "pixel_unshuffle"])
