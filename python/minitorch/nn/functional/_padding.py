"""nn.functional.pad: constant, reflect, replicate and circular padding."""

import functools
import operator

from minitorch import _C, _argcheck
from minitorch._creation import tensor as _tensor

_NON_CONSTANT_PAD_HELP = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


_MODES = ("constant", "reflect", "replicate", "circular")


@_argcheck.parses('Tensor input, SymInt[] pad, str mode="constant", float? value=None', upfront=False)
def pad(input, pad, mode="constant", value=None):
    # PyTorch's F.pad is C++ (torch._C._nn.pad): its parser's TypeErrors (raised here by the signature above
    # once the body has refused a kind), then its argument errors, the mode's first
    if (
        mode != "constant"
        and type(input) is _C.Tensor
        and type(pad) in (tuple, list)
        and len(pad) == 2
        and type(pad[0]) is int
        and type(pad[1]) is int
    ):
        r = _pad_last_small(input, pad[0], pad[1], mode)
        if r is not None:
            return r
    if not isinstance(pad, (tuple, list)) or not isinstance(mode, str):
        raise TypeError("pad(): unexpected argument kinds")
    if any(type(p) is not int for p in pad):
        # the parser's int list: NumPy ints and one-element integer tensors too, bools after the first
        if not all(_argcheck._list_int(p, i == 0) for i, p in enumerate(pad)):
            raise TypeError("pad(): unexpected element kinds")
        pad = [operator.index(p) for p in pad]
    for i, p in enumerate(pad):
        if not -(2**63) <= p < 2**63:  # the parser's int64 (its error text runs on into a C++ stack trace)
            raise TypeError(
                f"pad(): argument 'pad' failed to unpack the object at pos {i + 1} with error "
                '"Overflow when unpacking long long\n"'
            )
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pad)} and input of dimension {input.dim()}"
        )
    if mode == "constant":
        # as PyTorch's constant_pad_nd: crop by the negative pads, fill the result once and copy the input into
        # its interior (a full and a cat per padded dim wrote the growing result 1-3 times over: 0.2-0.5 of
        # PyTorch's speed on nn.ZeroPad3d/ConstantPad2d)
        src = input
        lows = []
        for i in range(len(pad) // 2):
            dim = input.dim() - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            if lo < 0:
                src = _crop(src, dim, -lo, src.shape[dim] + lo)
            if hi < 0:
                src = _crop(src, dim, 0, src.shape[dim] + hi)
            lows.append((dim, max(lo, 0), max(hi, 0)))
        if not any(lo or hi for _, lo, hi in lows):
            return src.clone()
        shape = list(src.shape)
        for dim, lo, hi in lows:
            shape[dim] += lo + hi
        out = _C.full(shape, 0.0 if value is None else value, dtype=src.dtype, device=src.device)
        inner = out
        for dim, lo, _ in lows:
            inner = inner.narrow(dim, lo, src.shape[dim])
        with _C._fresh_writes:  # the writes that build the result leave its version at 0, as PyTorch's
            inner.copy_(src)
        return out
    # each non-constant mode pads the last 1, 2 or 3 dims of a batched or unbatched input
    if not pad or input.dim() - len(pad) // 2 not in (1, 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n{_NON_CONSTANT_PAD_HELP}"
        )
    if mode != "circular":
        _check_nonempty(input, len(pad) // 2)
        _check_padded_size(input, pad)
    else:
        _check_circular(input, pad)
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = out.shape[dim]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input dimension, but "
                f"got: padding ({lo}, {hi}) at dimension {dim} of input {list(input.shape)}"
            )
        if mode == "circular" and (lo < 0 or hi < 0):
            # PyTorch crops first, then wraps within what is left
            keep = n - max(-lo, 0) - max(-hi, 0)
            if keep <= 0:
                # nothing left to wrap: an empty dim, or where the other side pads, elements PyTorch never
                # writes (uninitialized memory, docs/reliability.md), zeros here
                out = (
                    out.narrow(dim, 0, 0)
                    if n + lo + hi == 0
                    else _C.zeros(_with(out.shape, dim, n + lo + hi), dtype=out.dtype, device=out.device)
                )
                continue
            out = out.narrow(dim, max(-lo, 0), keep)
            lo, hi, n = max(lo, 0), max(hi, 0), out.shape[dim]
        # circular's wider pads of a cropped dim index below; a replicated edge repeats to any width (an
        # index list built in Python for a pad wider than the dim cost 4x PyTorch's time on small inputs)
        if 0 <= lo and 0 <= hi and n > 0 and (mode == "replicate" or (lo <= n and hi <= n)):
            out = _pad_edges(out, dim, n, lo, hi, mode)
            continue
        idx = []
        for j in range(-lo, n + hi):
            if mode == "replicate":
                idx.append(min(max(j, 0), n - 1))
            elif mode == "circular":
                idx.append(j % n)
            else:
                k = abs(j)
                idx.append(2 * (n - 1) - k if k > n - 1 else k)
        out = out.index_select(dim, _tensor(idx, dtype=_C.int64, device=out.device))
    if input.dtype == _C.bool and (mode == "replicate" or (mode == "reflect" and len(pad) == 2)):
        # PyTorch's kernels without a bool case (its 2-D/3-D reflection and circular padding have one); checked
        # where its kernel would be, after the shape checks above
        kind = "replication" if mode == "replicate" else "reflection"
        raise NotImplementedError(f"\"{kind}_pad{len(pad) // 2}d\" not implemented for 'Bool'")
    return out


# A padded output up to this many elements is one gather along the last dim with a cached index (1.2 us for
# a [2, 16, 4] replicate pad by 16, where the edge slabs' narrow, expand and cat cost 5.4 and PyTorch's whole
# call 2.7); above it the slabs' contiguous copies win (a [32, 16, 121] input: 13 us against the gather's 25)
_SMALL_PAD = 4096


def _pad_last_small(input, lo, hi, mode):
    """A non-constant 1-D pad (lo, hi >= 0) of a small 2-D or 3-D input with no empty dim, as one index_select
    along the last dim; None where the general path must decide (its checks and errors, larger inputs)."""
    nd = input.dim()
    if lo < 0 or hi < 0 or nd not in (2, 3) or input.dtype == _C.bool:
        return None
    shape = input.shape
    n = shape[-1]
    if 0 in shape or input.numel() // n * (n + lo + hi) > _SMALL_PAD:
        return None
    if mode == "reflect":
        if lo >= n or hi >= n:
            return None
    elif mode == "circular":
        if lo > n or hi > n:
            return None
    elif mode != "replicate":
        return None
    return input.index_select(nd - 1, _pad_index(n, lo, hi, mode, input.device))


@functools.lru_cache(maxsize=256)
def _pad_index(n, lo, hi, mode, device):
    """the source positions of a dim of n padded by lo and hi (the index is shared, never written)"""
    if mode == "replicate":
        idx = [min(max(j, 0), n - 1) for j in range(-lo, n + hi)]
    elif mode == "circular":
        idx = [j % n for j in range(-lo, n + hi)]
    else:
        idx = [2 * (n - 1) - abs(j) if abs(j) > n - 1 else abs(j) for j in range(-lo, n + hi)]
    return _tensor(idx, dtype=_C.int64, device=device)


def _check_circular(input, pad):
    """PyTorch's _pad_circular checks each padded dim, the outermost first: no side wraps more than once, then
    the result's size is not negative (zero is allowed)."""
    k = len(pad) // 2
    for i in range(k):
        n = input.shape[input.dim() - k + i]
        lo, hi = pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]
        if lo > n or hi > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if n + lo + hi < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")


def _check_nonempty(input, k):
    """PyTorch's reflection/replication kernels take an empty batch only: every other dim of the input (all of an
    unbatched one's) must have elements."""
    batched = input.dim() == k + 2
    if 0 in tuple(input.shape)[1 if batched else 0 :]:
        raise RuntimeError(
            f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )


def _check_padded_size(input, pad):
    """PyTorch's reflection/replication kernels refuse an output (after negative padding) with an empty dim."""
    k = len(pad) // 2
    names = "DHW"[3 - k :]
    sizes = [input.shape[input.dim() - k + j] for j in range(k)]
    outs = [n + pad[2 * (k - 1 - j)] + pad[2 * (k - 1 - j) + 1] for j, n in enumerate(sizes)]
    if min(outs) >= 1:
        return
    if k == 1:
        raise RuntimeError(f"input (W: {sizes[0]}) is too small. Calculated output W: {outs[0]}")
    got = " ".join(f"{c}: {o}" for c, o in zip(names, outs))
    had = ", ".join(f"{c}: {n}" for c, n in zip(names, sizes))
    raise RuntimeError(f"Calculated output {got} must be >= 1 in every dimension (input {had})")


def _crop(x, dim, start, length):
    if length < 0:  # PyTorch crops with narrow, whose check this is
        raise RuntimeError("narrow(): length must be non-negative.")
    return x.narrow(dim, start, length)


def _pad_edges(x, dim, n, lo, hi, mode):
    """x padded by lo and hi >= 0 entries along dim: the two edge slabs (the edge row expanded, the far end's
    rows, or the near rows mirrored) and x itself in one cat, a pass over the data per padded dim instead of a
    gather along it (a 2-D reflect pad of a [32, 16, 11, 11] batch: 10x PyTorch's time)."""
    if not lo and not hi:
        return x
    parts = []
    if lo:
        if mode == "replicate":
            parts.append(x.narrow(dim, 0, 1).expand(*_with(x.shape, dim, lo)))
        elif mode == "circular":
            parts.append(x.narrow(dim, n - lo, lo))
        else:
            parts.append(_mirror(x.narrow(dim, 1, lo), dim, lo))
    parts.append(x)
    if hi:
        if mode == "replicate":
            parts.append(x.narrow(dim, n - 1, 1).expand(*_with(x.shape, dim, hi)))
        elif mode == "circular":
            parts.append(x.narrow(dim, 0, hi))
        else:
            parts.append(_mirror(x.narrow(dim, n - 1 - hi, hi), dim, hi))
    return _C.cat(parts, dim)


def _with(shape, dim, size):
    s = list(shape)
    s[dim] = size
    return s


def _mirror(slab, dim, width):
    """slab reversed along dim; a one-wide slab is its own mirror image (no copy)"""
    return slab if width == 1 else slab.flip(dim)
