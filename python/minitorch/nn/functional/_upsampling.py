"""nn.functional's resizing: interpolate and the legacy upsample spellings."""

import numbers
import warnings

from minitorch import _C
from minitorch.nn.functional._pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

_nn = _C._nn


# ---- upsampling: PyTorch's interpolate is Python too; it validates and normalizes, then one native op
_INTERP_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_integer(x):

    if isinstance(x, _C.Tensor):
        return not x.is_floating_point() and not x.is_complex()
    return isinstance(x, numbers.Integral)


_KERNELS = {
    "nearest": "upsample_nearest{}d",
    "nearest-exact": "_upsample_nearest_exact{}d",
    (3, "linear"): "upsample_linear1d",
    (4, "bilinear"): "upsample_bilinear2d",
    (4, "bicubic"): "upsample_bicubic2d",
    (5, "trilinear"): "upsample_trilinear3d",
}


def _refuse_size(nd, mode, sizes, align_corners):
    """The TypeError of the kernel F.interpolate would call, for a size that is not an int (PyTorch's parser)."""
    k = nd - 2
    if mode == "area" and nd in (3, 4, 5):
        raise TypeError(
            f"adaptive_avg_pool{k}d(): argument 'output_size' (position 2) must be tuple of ints, but found element "
            f"of type {type(sizes[0]).__name__} at pos 0"
        )
    name = _KERNELS.get(mode, _KERNELS.get((nd, mode)))
    if name is None or nd not in (3, 4, 5):
        return  # the wrong-mode errors below come first
    name = name.format(k)
    linear = "nearest" not in mode
    ac = "bool align_corners, " if linear else ""
    names = ["scales"] if k == 1 else [f"scales_{c}" for c in "dhw"[3 - k :]]
    scales = ", ".join(f"float {n} = None" for n in names)
    kinds = ", ".join(type(v).__name__ for v in sizes)
    got = "(Tensor, list, bool, NoneType)" if linear else "(Tensor, list, NoneType)"
    marks = f"(Tensor, !list of [{kinds}]!, {'bool, ' if linear else ''}!NoneType!)"
    raise TypeError(
        f"{name}() received an invalid combination of arguments - got {got}, but expected one of:\n"
        f" * (Tensor input, tuple of ints output_size, {ac}tuple of floats scale_factors)\n"
        f"      didn't match because some of the arguments have invalid types: {marks}\n"
        f" * (Tensor input, tuple of ints output_size, {ac}{scales}, *, Tensor out = None)\n"
    )


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False

    dim = input.dim() - 2  # spatial dims
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        # size and scale_factor get the same checks, each with PyTorch's own messages.
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            output_size = [int(x) for x in size]
        elif (
            _is_integer(size)
            and not isinstance(size, bool)
            and not (isinstance(size, _C.Tensor) and size.numel() != 1)
        ):
            output_size = [int(size) for _ in range(dim)]
        else:  # PyTorch hands [size] * dim to the kernel, whose parser refuses a float, a bool or a tensor of
            # more than one element as a size
            output_size = None
            refused = [size] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor) for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        # the sizes from the scales, then scales recomputed from the sizes (truncation, as PyTorch's int())
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None

    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
        )
    if input.dim() == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")

    nd = input.dim()
    if size is not None and output_size is None:
        _refuse_size(nd, mode, refused, align_corners)
    if mode == "area" and nd in (3, 4, 5):
        pool = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}[nd]
        return pool(input, output_size)
    wrong = {
        (3, "bilinear"): "Got 3D input, but bilinear mode needs 4D input",
        (3, "trilinear"): "Got 3D input, but trilinear mode needs 5D input",
        (4, "linear"): "Got 4D input, but linear mode needs 3D input",
        (4, "trilinear"): "Got 4D input, but trilinear mode needs 5D input",
        (5, "linear"): "Got 5D input, but linear mode needs 3D input",
        (5, "bilinear"): "Got 5D input, but bilinear mode needs 4D input",
    }
    if (nd, mode) in wrong:
        raise NotImplementedError(wrong[(nd, mode)])
    supported = mode in ("nearest", "nearest-exact") or (nd, mode) in (
        (3, "linear"),
        (4, "bilinear"),
        (5, "trilinear"),
        (4, "bicubic"),
    )
    if antialias or (nd, mode) == (4, "lanczos"):
        return _nn._upsample_aa(input, mode, output_size, bool(align_corners), scale_factors)
    if nd not in (3, 4, 5) or not supported:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: {_INTERP_MODES} (got {mode})"
        )
    return _nn._upsample(input, mode, output_size, bool(align_corners), scale_factors)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use nn.functional.interpolate instead.", stacklevel=2
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use nn.functional.interpolate instead.", stacklevel=2
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
