"""How tensors print, matching PyTorch's repr: one width-aligned format per tensor (integer-valued floats as
`1.`, fixed point with `precision` digits, or scientific when the range is large), summarization with `...`
above `threshold` elements, and dtype/device/requires_grad suffixes. Complex tensors format their real and
imaginary parts with one formatter each, as `1.+2.j`."""

import math

import numpy as np

from minitorch import _C


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """Sets print options as torch.set_printoptions does (profile: 'default', 'short', 'full')."""
    if profile is not None:
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth) = _PROFILES[
            profile
        ]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """Chooses one format for every element shown, so columns line up: the widest element sets the width."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.width = max(self.width, len(str(v)))
            return
        # only nonzero finite values decide the format; 0, inf and nan print the same in every mode
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        mags = np.abs(shown)
        lo, hi = float(mags.min()), float(mags.max())
        p = PRINT_OPTS.precision
        vals = shown.tolist()
        # a forced sci_mode replaces the range test before the width is measured, so forced fixed point of a
        # wide range is as wide as its longest number
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        if self.sci_mode:
            self.width = max(len(f"{v:.{p}e}") for v in vals)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in vals)  # +1 for the trailing "."
        else:
            self.width = max(len(f"{v:.{p}f}") for v in vals)

    def format(self, v):
        p = PRINT_OPTS.precision
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:.{p}e}"
        elif self.int_mode:
            s = f"{v:.0f}"
            if math.isfinite(v):
                s += "."
        else:
            s = f"{v:.{p}f}"
        return s.rjust(self.width)


class _ComplexFormatter:
    """Two formatters, one per part, as PyTorch: the real part right-aligned to its width, the imaginary part
    with its padding dropped and an explicit sign, so `-0.` imaginary parts keep their minus."""

    def __init__(self, values):
        self.re = _Formatter(values.real, True)
        self.im = _Formatter(values.imag, True)
        self.width = self.re.width + self.im.width + 1  # the trailing "j"

    def format(self, v):
        imag = (self.im.format(v.imag) + "j").lstrip()
        return self.re.format(v.real) + (imag if imag[0] in "+-" else "+" + imag)


def _summarized(a):
    """The elements a summarized print shows (edgeitems from each end of every dim), for the formatter."""
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate((a[:e], a[-e:])) if a.shape[0] > 2 * e else a
    if not e:
        return a[(slice(0, 0),) * a.ndim]
    rows = (
        list(range(e)) + list(range(a.shape[0] - e, a.shape[0])) if a.shape[0] > 2 * e else range(a.shape[0])
    )
    return np.stack([_summarized(a[i]) for i in rows])


def _vector_str(a, indent, summarize, fmt):
    per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.width + 2))  # ", " between elements
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = [fmt.format(v) for v in a[:e].tolist()] + [" ..."] + [fmt.format(v) for v in a[-e:].tolist()]
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _array_str(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    e = PRINT_OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * e:
        parts = [_array_str(a[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
        parts += [_array_str(a[i], indent + 1, summarize, fmt) for i in range(n - e, n)]
    else:
        parts = [_array_str(a[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _host_array(t):
    """The values as NumPy: float64 for floating dtypes (half and bfloat16 print through float), else as is."""
    host = t.detach().cpu()
    if host.is_complex():
        return host.numpy().astype(np.complex128)
    if host.is_floating_point():
        return host.double().numpy()
    return host.numpy()


def _add_suffixes(body, suffixes, indent):
    out = [body]
    last_line_len = len(body) - body.rfind("\n") + 1
    for s in suffixes:
        if last_line_len + len(s) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            last_line_len = indent + len(s)
        else:
            out.append(", " + s)
            last_line_len += len(s) + 2
    return "".join(out) + ")"


def tensor_repr(self):
    """repr(tensor): the values as PyTorch prints them, plus device/dtype/grad_fn when not the defaults."""
    # a subclass that takes part in __torch_function__ prints under its own name, as PyTorch's (a Parameter
    # or Buffer, opted out, as a tensor)
    t = type(self)
    plain = t is _C.Tensor or getattr(t, "__torch_function__", None) is _C._disabled_torch_function_impl
    prefix = "tensor(" if plain else f"{t.__name__}("
    indent = len(prefix)
    suffixes = []
    if self.device.type != "cpu":
        suffixes.append(f"device='{self.device}'")
    if self.is_meta:  # no values to show: the shape always, the dtype unless the default
        suffixes.append(f"size={tuple(self.shape)}")
        if self.dtype != _C.get_default_dtype():
            suffixes.append(f"dtype={self.dtype}")
        body = "..."
    elif self.numel() == 0:
        if self.dim() != 1:  # as NumPy, the shape is shown unless it is (0,)
            suffixes.append(f"size={tuple(self.shape)}")
        if self.dtype != _C.get_default_dtype():  # nothing to infer the dtype from
            suffixes.append(f"dtype={self.dtype}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:  # nothing of the data shows, so the shape does
            suffixes.append(f"size={tuple(self.shape)}")
        default = _C.get_default_dtype()
        default_complex = _C.complex128 if default == _C.float64 else _C.complex64
        if self.dtype not in (default, default_complex, _C.int64, _C.bool):
            suffixes.append(f"dtype={self.dtype}")
        arr = _host_array(self)
        summarize = arr.size > PRINT_OPTS.threshold
        shown = _summarized(arr) if summarize else arr
        if self.is_complex():
            fmt = _ComplexFormatter(shown)
        else:
            fmt = _Formatter(shown, self.is_floating_point())
        body = _array_str(arr, indent, summarize, fmt)
    if self.grad_fn is not None:
        suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
