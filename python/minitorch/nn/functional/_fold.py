"""nn.functional's sliding blocks: unfold (im2col) and fold (col2im)."""

import numpy as np

from minitorch import _C, _argcheck
from minitorch._creation import tensor as _tensor
from minitorch._dtype_names import scalar_name
from minitorch.nn.functional._padding import pad
from minitorch.nn.functional._utils import _ntuple


# ---- sliding blocks: unfold (im2col) and fold (col2im)
def _check_positive(name, h, w, what="greater than zero", key=None):
    key = key or name
    if (what == "non-negative" and (h < 0 or w < 0)) or (what != "non-negative" and (h <= 0 or w <= 0)):
        raise RuntimeError(f"{name} should be {what}, but got {key}_height: {h} {key}_width: {w}")


def _block_args(kernel_size, dilation, padding, stride, im2col=False):
    """the four pairs of unfold/fold, with ATen's length and sign checks in its order (im2col checks the
    dilation and padding before the stride, col2im the stride first)"""
    pairs = []
    for name, v in (
        ("kernel_size", kernel_size),
        ("dilation", dilation),
        ("padding", padding),
        ("stride", stride),
    ):
        v = tuple(int(e) if isinstance(e, _C.Tensor) else e for e in _ntuple(v, 2))  # 0-d tensors as ints
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        pairs.append(v)
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = pairs
    _check_positive("kernel size", kh, kw, key="kernel")
    if not im2col:
        _check_positive("stride", sh, sw)
    _check_positive("dilation", dh, dw)
    _check_positive("padding", ph, pw, "non-negative", key="pad")
    if im2col:
        _check_positive("stride", sh, sw)
    return kh, kw, dh, dw, ph, pw, sh, sw


_IM2COL = "Tensor input, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride"
_COL2IM = (
    "Tensor input, int[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride"
)


def _check_block_dtype(x, kernel):
    # im2col/col2im take floating, complex and bool tensors, not integers
    if not (x.is_floating_point() or x.is_complex() or x.dtype == _C.bool):
        raise NotImplementedError(f"\"{kernel}_out_cpu\" not implemented for '{scalar_name(x.dtype)}'")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kh * kw, L), each column one sliding block, L the block count."""
    # PyTorch's F.unfold is Python handing _pair()s of its arguments to the C++ im2col
    args = tuple(_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    _argcheck.check_call("im2col", [_IM2COL], (input,) + args, {})
    if input.requires_grad and _C.is_grad_enabled():
        input.size(-2), input.size(-1)  # PyTorch's autograd records these sizes before im2col runs
    kh, kw, dh, dw, ph, pw, sh, sw = _block_args(*args, im2col=True)
    # ATen reads dims 1 and then 2 (unless dim 1 is empty) before checking the rank, so low ranks fail as an
    # index error
    if input.size(1) != 0:
        input.size(2)
    if input.dim() not in (3, 4) or 0 in input.shape[1:] or (input.dim() == 3 and input.shape[0] == 0):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
            f"for input, but got: {list(input.shape)}"
        )
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
            f"padding=({ph}, {pw}), calculated shape of the array of sliding blocks as ({oh}, {ow}), but its "
            "components must be at least one."
        )
    _check_block_dtype(input, "im2col")
    if ph or pw:
        x = pad(x, (pw, pw, ph, ph))
    x = x.contiguous()
    hp, wp = x.shape[2], x.shape[3]
    # a strided view (n, c, kh, kw, oh, ow) of the padded image; the reshape is the one copy
    blocks = x.as_strided(
        (n, c, kh, kw, oh, ow), (c * hp * wp, hp * wp, dh * wp, dw, sh * wp, sw), x.storage_offset()
    )
    out = blocks.reshape(n, c * kh * kw, oh * ow)
    return out if input.dim() == 4 else out.squeeze(0)


_FOLD_INDEX = {}


def _fold_index(hp, wp, kh, kw, dh, dw, sh, sw, bh, bw, device):
    """Flat positions in the padded (hp, wp) image of every (kernel offset, block) pair, cached per shape."""
    key = (hp, wp, kh, kw, dh, dw, sh, sw, bh, bw, str(device))
    idx = _FOLD_INDEX.get(key)
    if idx is None:
        rows = (np.arange(kh) * dh)[:, None, None, None] + (np.arange(bh) * sh)[None, None, :, None]
        cols = (np.arange(kw) * dw)[None, :, None, None] + (np.arange(bw) * sw)[None, None, None, :]
        flat = (rows * wp + cols).reshape(-1).astype(np.int64)
        idx = _tensor(flat, device=device)
        if len(_FOLD_INDEX) > 64:
            _FOLD_INDEX.clear()
        _FOLD_INDEX[key] = idx
    return idx


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, unfold's adjoint: sums the (N, C * kh * kw, L) blocks back into an (N, C, H, W) image
    (overlapping blocks add up)."""
    # PyTorch's F.fold is Python handing _pair()s of its arguments to the C++ col2im
    args = tuple(_ntuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    _argcheck.check_call("col2im", [_COL2IM], (input,) + args, {})
    if len(args[0]) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(args[0])}")
    ho, wo = args[0]
    kh, kw, dh, dw, ph, pw, sh, sw = _block_args(*args[1:])
    if input.dim() not in (2, 3):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    x = input if input.dim() == 3 else input.unsqueeze(0)
    n, ck, nblocks = x.shape
    if ck % (kh * kw):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={ck} and kernel_size=({kh}, {kw})."
        )
    hp, wp = ho + 2 * ph, wo + 2 * pw
    bh = (hp - dh * (kh - 1) - 1) // sh + 1
    bw = (wp - dw * (kw - 1) - 1) // sw + 1
    if nblocks != bh * bw or bh < 1 or bw < 1:
        raise RuntimeError(
            f"Given output_size=({ho}, {wo}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
            f"padding=({ph}, {pw}), stride=({sh}, {sw}), expected size of input's dimension 2 to match the "
            f"calculated number of sliding blocks {bh} * {bw} = {bh * bw}, but got input.size(2)={nblocks}."
        )
    _check_block_dtype(input, "col2im")
    c = ck // (kh * kw)
    idx = _fold_index(hp, wp, kh, kw, dh, dw, sh, sw, bh, bw, x.device)
    src = x.reshape(n, c, kh * kw * nblocks)
    out = _C.zeros((n, c, hp * wp), dtype=x.dtype, device=x.device)
    out = out.scatter_add(2, idx.expand(n, c, idx.shape[0]), src).reshape(n, c, hp, wp)
    if ph or pw:
        out = out[:, :, ph : ph + ho, pw : pw + wo]
    return out if input.dim() == 3 else out.squeeze(0)
