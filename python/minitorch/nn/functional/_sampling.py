"""nn.functional's spatial sampling: affine_grid and grid_sample (spatial transformer networks, warps)."""

import warnings

from minitorch import _C, _argcheck
from minitorch._composite_shape import meshgrid
from minitorch._dtype_names import scalar_name
from minitorch._ops import where
from minitorch.autograd import grad as autograd_grad
from minitorch.autograd.grad_mode import enable_grad

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_KERNEL_DTYPES = (_C.float32, _C.float64)
_CUBIC_A = -0.75  # the cubic convolution constant PyTorch (and OpenCV) use

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def _linspace_from_neg_one(theta, steps, align_corners):
    # a single step sits at the centre (0), whatever align_corners says, as PyTorch's generator does
    if steps <= 1:
        return _C.zeros(1, dtype=theta.dtype, device=theta.device)
    r = _C.linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    return r if align_corners else r * ((steps - 1) / steps)


def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator: the (N, *spatial, k) grid of theta applied to the normalized base grid."""
    size = _C._int_list_value(size, "affine_grid_generator", "size", 2)  # its parser's SymInt[]: no tensor
    n, spatial = size[0], size[2:]
    axes = [_linspace_from_neg_one(theta, s, align_corners) for s in reversed(spatial)]  # x (width) first
    mesh = meshgrid(*reversed(axes), indexing="ij")  # each over (D,) H, W
    coords = [m for m in reversed(mesh)] + [_C.ones_like(mesh[0])]
    base = _C.stack(coords, dim=-1).reshape(1, -1, len(coords))
    count = base.shape[1]
    grid = _C.bmm(base.expand(n, count, len(coords)), theta.transpose(1, 2))
    return grid.reshape(n, *spatial, len(spatial))


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps (N x 2 x 3 for 4-D sizes, N x 3 x 4 for 5-D), as PyTorch's."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if align_corners and min(spatial_size) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
            "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)


def _sizes(input, grid):
    return f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"


def _check(input, grid, interpolation_mode, want=None):
    """ATen's check_grid_sampler_common, then the per-rank checks: want=4 or 5 for grid_sampler_2d/3d, None
    for the rank the input has"""
    # the messages are built only on failure, and the shapes read once: formatting and re-reading them on
    # every call cost a third of a small image's kernel time
    if input.device != grid.device:
        raise RuntimeError(
            "grid_sampler(): expected input and grid to be on same device, but input is on "
            f"{input.device} and grid is on {grid.device}"
        )
    ishape, gshape = input.shape, grid.shape
    idim = len(ishape)
    if idim < 1 or len(gshape) < 1:
        input.size(0), grid.size(0)  # PyTorch compares size(0)s: a 0-d one is its IndexError
    if ishape[0] != gshape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got {_sizes(input, grid)}"
        )
    if gshape[-1] != idim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {idim - 2} in last dimension, but got grid with "
            f"sizes {list(gshape)}"
        )
    if min(ishape[2:], default=1) <= 0:
        i = next(i for i in range(2, idim) if ishape[i] <= 0)
        raise RuntimeError(
            "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
            f"{list(ishape)} with dimension {i} being empty"
        )
    want = want or (4 if idim == 4 else 5)
    if idim != want or len(gshape) != want:
        raise RuntimeError(
            f"grid_sampler(): expected {want}D input and grid with same number of dimensions, but got "
            f"{_sizes(input, grid)}"
        )
    if want == 5 and interpolation_mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        kernel = "grid_sampler_2d_cpu_kernel_impl" if want == 4 else "grid_sampler_3d_cpu"
        if input.is_cuda:
            kernel = "grid_sampler_2d_cuda" if want == 4 else "grid_sampler_3d_cuda"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input.dtype)}'")
    if grid.dtype != input.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input.dtype)} but found {scalar_name(grid.dtype)}"
        )


def _reflect(coord, twice_low, twice_high):
    # folds a coordinate into [low, high] by mirroring at both ends (PyTorch's reflect_coordinates)
    if twice_low == twice_high:
        return _C.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = coord - low
    c = where(c < 0, -c, c)  # not abs: at the mirror point the gradient passes (+1), as PyTorch's
    extra = _C.fmod(c, span)
    flips = _C.floor(c / span)
    even = _C.fmod(flips, 2) == 0
    return where(even, extra + low, span - extra + low)


def _source_index(coord, size, padding_mode, align_corners, clip=True):
    # grid value in [-1, 1] -> pixel coordinate, then the padding mode's folding (bicubic folds each tap instead)
    if align_corners:
        coord = (coord + 1) / 2 * (size - 1)
    else:
        coord = ((coord + 1) * size - 1) / 2
    return _pad_coordinate(coord, size, padding_mode, align_corners) if clip else coord


def _clip(coord, size):
    # not clamp: a coordinate on the border gets no gradient (PyTorch's clip_coordinates_set_grad), and NaN
    # lands on 0 as in PyTorch's vector kernel
    return where(coord > 0, where(coord < size - 1, coord, float(size - 1)), 0.0)


def _pad_coordinate(coord, size, padding_mode, align_corners):
    if padding_mode == 1:
        coord = _clip(coord, size)
    elif padding_mode == 2:
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        coord = _clip(coord, size)
    return coord


class _Taps:
    """Gathers taps of the (N, C, prod(spatial)) input at integer coordinates of a (N, P) sampling set; a tap
    outside the image reads zero (a NaN weight still makes NaN, as PyTorch's). Reading through gather keeps the
    composite differentiable in the input."""

    def __init__(self, input, sizes):
        self.flat = input.reshape(input.shape[0], input.shape[1], -1)
        self.sizes = sizes  # spatial sizes, slowest first
        self.channels = input.shape[1]

    def axis(self, c, axis):
        """(inside, integer index) of integer-valued coordinates c (N, P) along a spatial axis, slowest first."""
        size = self.sizes[axis]
        ok = (c >= 0) & (c <= size - 1)
        return ok, where(ok, c, 0.0).long()  # NaN and huge coordinates never reach the integer conversion

    def read(self, points):
        # points: one axis() pair per spatial axis, slowest first
        inside, index = points[0]
        for (ok, ci), s in zip(points[1:], self.sizes[1:]):
            inside = inside & ok
            index = index * s + ci
        n, p = index.shape
        vals = _C.gather(self.flat, 2, index.unsqueeze(1).expand(n, self.channels, p))
        return where(inside.unsqueeze(1), vals, 0.0)


def _cubic_coefficients(t):
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: samples input (N, C, [D,] H, W) at the grid's normalized points (N, [Do,] Ho, Wo, k)."""
    _argcheck.check_tensor_like("grid_sampler", "input", 1, input)
    _argcheck.check_tensor_like("grid_sampler", "grid", 2, grid)
    interpolation_mode, padding_mode = int(interpolation_mode), int(padding_mode)
    _check(input, grid, interpolation_mode)
    if interpolation_mode not in (0, 1, 2):
        raise RuntimeError(f"grid_sampler(): unknown interpolation mode {interpolation_mode}")
    if padding_mode not in (0, 1, 2):
        raise RuntimeError(f"grid_sampler(): unknown padding mode {padding_mode}")
    if _kernel_applies(input, grid):
        return _C._nn._grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)
    return _composite(input, grid, interpolation_mode, padding_mode, align_corners)


def _plain(x):
    # a Tensor, or a subclass opted out of __torch_function__ (Parameter): no handler sees its ops
    t = type(x)
    return t is _C.Tensor or getattr(t, "__torch_function__", None) is _C._disabled_torch_function_impl


def _kernel_applies(input, grid):
    # the CPU kernel (csrc/kernels/cpu/grid_sample.cpp) takes plain float/double tensors (Tensor, Parameter);
    # CUDA, half and the program transforms' tensors (duals, batched: they define __torch_function__) run the
    # composite of ops, whose every op they see
    return input.device.type == "cpu" and input.dtype in _KERNEL_DTYPES and _plain(input) and _plain(grid)


def _composite(input, grid, interpolation_mode, padding_mode, align_corners):
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])  # slowest first: (D,) H, W
    out_spatial = list(grid.shape[1:-1])
    if n == 0 or c == 0 or grid.numel() == 0:
        # an empty result still joins both inputs' graphs, so backward gives them (zero) gradients
        return _C.zeros(n, c, *out_spatial, dtype=input.dtype, device=input.device) + (
            grid.sum() * 0 + input.sum() * 0
        )
    g = grid.reshape(n, -1, grid.shape[-1])
    # grid's last axis is x (width) first; the spatial sizes run slowest first
    raw = [g[..., len(sizes) - 1 - i] for i in range(len(sizes))]
    taps = _Taps(input, sizes)
    if interpolation_mode == 2:
        out = _bicubic(taps, raw, sizes, padding_mode, align_corners)
    else:
        coords = [_source_index(r, s, padding_mode, align_corners) for r, s in zip(raw, sizes)]
        if interpolation_mode == 1:
            out = taps.read([taps.axis(_C.round(x), a) for a, x in enumerate(coords)])  # half to even
        else:
            out = _linear(taps, coords)
    return out.reshape(n, c, *out_spatial)


def _graph_grads(grad, input, grid, interpolation_mode, padding_mode, align_corners, need_input, need_grid):
    """The kernel's gradients under create_graph, from the composite's recorded ops, so they differentiate again
    (double backward); the kernel's backward node calls it (csrc/ops/grid_sample.h)."""
    wrt = [t for t, need in ((input, need_input), (grid, need_grid)) if need]
    with enable_grad():
        out = _composite(input, grid, interpolation_mode, padding_mode, align_corners)
        got = list(autograd_grad(out, wrt, grad, create_graph=True, allow_unused=True))
    return tuple(got.pop(0) if need else None for need in (need_input, need_grid))


_C._nn._set_grid_sampler_graph_grads(_graph_grads)


def _linear(taps, coords):
    lows = [_C.floor(x) for x in coords]
    ends = [(taps.axis(lo, a), taps.axis(lo + 1, a)) for a, lo in enumerate(lows)]
    out = None
    for corner in range(1 << len(coords)):
        points, weight = [], None
        for axis, (x, lo) in enumerate(zip(coords, lows)):
            high = (corner >> (len(coords) - 1 - axis)) & 1
            points.append(ends[axis][high])
            w = (x - lo) if high else (lo + 1 - x)
            weight = w if weight is None else weight * w
        term = taps.read(points) * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _bicubic(taps, raw, sizes, padding_mode, align_corners):
    (y, x), (h, w) = (
        [_source_index(r, s, padding_mode, align_corners, clip=False) for r, s in zip(raw, sizes)],
        sizes,
    )
    y0, x0 = _C.floor(y), _C.floor(x)
    wy, wx = _cubic_coefficients(y - y0), _cubic_coefficients(x - x0)
    ys = [
        taps.axis(_C.trunc(_pad_coordinate(y0 + (i - 1), h, padding_mode, align_corners)), 0)
        for i in range(4)
    ]
    xs = [
        taps.axis(_C.trunc(_pad_coordinate(x0 + (j - 1), w, padding_mode, align_corners)), 1)
        for j in range(4)
    ]
    rows = []
    for yi in ys:  # each row along x first, then the rows along y, in PyTorch's order
        row = None
        for j, xj in enumerate(xs):
            term = taps.read([yi, xj]) * wx[j].unsqueeze(1)
            row = term if row is None else row + term
        rows.append(row)
    return sum((r * wy[i].unsqueeze(1) for i, r in enumerate(rows[1:], 1)), rows[0] * wy[0].unsqueeze(1))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input at the grid's points in [-1, 1] (x, y[, z] last), with PyTorch's modes and padding rules."""
    if mode not in _MODES:
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _PADDINGS:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)
