"""nn.functional.pad: constant, reflect, replicate and circular padding."""

from minitorch import _C
from minitorch._creation import tensor as _tensor

_NON_CONSTANT_PAD_HELP = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input, pad, mode="constant", value=None):
    # PyTorch's F.pad is C++ (torch._C._nn.pad): its argument errors are RuntimeErrors, its parser's TypeErrors
    for i, p in enumerate(pad):
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(
                "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                f"{type(p).__name__} at pos {i}"
            )
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pad)} and input of dimension {input.dim()}"
        )
    if mode == "constant":
        out = input
        fill = 0.0 if value is None else value
        for i in range(len(pad) // 2):
            dim = input.dim() - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            if lo < 0:
                out = out.narrow(dim, -lo, out.shape[dim] + lo)
                lo = 0
            if hi < 0:
                out = out.narrow(dim, 0, out.shape[dim] + hi)
                hi = 0
            parts = []
            if lo:
                shape = list(out.shape)
                shape[dim] = lo
                parts.append(_C.full(shape, fill, dtype=out.dtype, device=out.device))
            parts.append(out)
            if hi:
                shape = list(out.shape)
                shape[dim] = hi
                parts.append(_C.full(shape, fill, dtype=out.dtype, device=out.device))
            if len(parts) > 1:
                out = _C.cat(parts, dim)
        return out
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unsupported padding mode: {mode}")
    # each non-constant mode pads the last 1, 2 or 3 dims of a batched or unbatched input
    if input.dim() - len(pad) // 2 not in (1, 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n{_NON_CONSTANT_PAD_HELP}"
        )
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = out.shape[dim]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({lo}, {hi}) at dimension {dim} of input {list(input.shape)}"
            )
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
    return out
