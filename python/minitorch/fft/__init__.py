"""torch.fft: discrete Fourier transforms over the three FFT primitives of _C, with PyTorch's arguments, dtype
rules, errors and derivatives (the primitives' autograd lives in _prims.py)."""

import numpy as np

from minitorch import _C, _argcheck
from minitorch._creation import tensor as _tensor
from minitorch._dtype_names import scalar_name as _scalar_name
from minitorch._out import write_out
from minitorch.autograd.grad_mode import no_grad as _no_grad
from minitorch.fft._prims import c2c, c2r, r2c

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

# PyTorch's fft_norm_mode
_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2
_TO_COMPLEX = {_C.float32: _C.complex64, _C.float64: _C.complex128}


def _norm_mode(norm, forward):
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _check_input(fname, x):
    if not isinstance(x, _C.Tensor):
        raise TypeError(
            f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )


def _index(v, one_element, bools=False):
    """The int PyTorch's parser reads from v, None for the wrong kind: a Python int (not a bool), a NumPy
    integer, or an integer tensor that is 0-dim (an `int`) or of one element (one_element: a SymInt, an int
    list's); a bool tensor only where bools (an int list's element that is no SymInt)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, _C.Tensor) and (v.numel() == 1 if one_element else v.dim() == 0):
        if v.dtype == _C.bool:
            return int(v.item()) if bools else None
        if not (v.is_floating_point() or v.is_complex()):
            return int(v.item())
    return None


def _int_list(fname, name, v, symint):
    """An `int[1]?` (a `SymInt[1]?` where symint) as PyTorch's parser reads it: a list or tuple of ints, or one
    value standing for a list of one."""
    if not isinstance(v, (tuple, list)):
        i = _index(v, True, bools=True)
        if i is None:
            raise TypeError(f"fft_{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")
        return [i]
    out = []
    for e in v:
        i = _index(e, True, bools=True)
        if i is None:
            raise TypeError(f"fft_{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")
        if symint and isinstance(e, _C.Tensor) and e.dtype == _C.bool:
            # PyTorch's parser takes it, then its SymInt conversion asserts
            raise RuntimeError(
                "Expected scalar.isIntegral( false) to be true, but got false.  (Could this error message be "
                "improved?  If so, please report an enhancement request to PyTorch.)"
            )
        out.append(i)
    return out


def _check_args(fname, n=None, dim=None, s=None, dims=None, norm=None):
    """(n, dim, s, dims) as PyTorch's parser reads them (ints, lists of ints), or its TypeError for an argument
    of the wrong kind (its words: fft_<name>(): argument ...)."""
    out = []
    for name, v, one_element in (("n", n, True), ("dim", dim, False)):
        if v is not None:
            i = _index(v, one_element)
            if i is None:
                raise TypeError(f"fft_{fname}(): argument '{name}' must be int, not {type(v).__name__}")
            v = i
        out.append(v)
    for name, v, symint in (("s", s, True), ("dim", dims, False)):
        out.append(None if v is None else _int_list(fname, name, v, symint))
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"fft_{fname}(): argument 'norm' must be str, not {type(norm).__name__}")
    return out


def _promote(x, require_complex):
    """Integers and bool compute in the default dtype; half precision has no FFT here (PyTorch's CPU refuses
    it too; its CUDA path computes complex32, a dtype minitorch does not have)."""
    if x.dtype.is_complex:
        return x
    dt = x.dtype
    if not dt.is_floating_point:
        dt = _C.get_default_dtype()
    elif dt not in _TO_COMPLEX:
        raise NotImplementedError(f"Unsupported dtype {_scalar_name(dt)}")
    if require_complex:
        dt = _TO_COMPLEX[dt]
    return x if dt == x.dtype else x.to(dt)


def _wrap(d, ndim):
    if not isinstance(d, int) or isinstance(d, bool):
        raise TypeError(f"dim must be an int, not {type(d).__name__}")
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})"
        )
    return d % ndim


def _check_n(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x, dims, sizes):
    """Zero-pads or trims x at the end of each of dims to the given sizes."""
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if have > n:
            x = x.narrow(d, 0, n)
        elif have < n:
            pad = list(x.shape)
            pad[d] = n - have
            x = _C.cat([x, _C.zeros(pad, dtype=x.dtype, device=x.device)], d)
    return x


def _out(fname, result, out, want_complex, op=None):
    """out= of a transform: PyTorch's dtype kind checks, then resize and write; op is the primitive PyTorch names
    when it refuses out= with a gradient (None where its last step is a differentiable composite, as conj)."""
    if out is None:
        return result
    if want_complex and not out.dtype.is_complex:
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_scalar_name(out.dtype)}")
    if not want_complex and not out.dtype.is_floating_point:
        raise RuntimeError(
            f"{fname} expects a floating point output tensor, but got {_scalar_name(out.dtype)}"
        )
    return write_out(result, out, op, dtype=None)


# ---------------------------------------------------------------- one-dimensional transforms


def _c2c_1d(fname, x, n, dim, norm, forward, out):
    _check_input(fname, x)
    n, dim, _, _ = _check_args(fname, n=n, dim=dim, norm=norm)
    # PyTorch transforms a real input with r2c (a forward one) or r2c then conj (an inverse one, a composite)
    op = "_fft_c2c" if x.dtype.is_complex else ("_fft_r2c" if forward else None)
    x = _promote(x, True)
    d = _wrap(dim, x.dim())
    if n is not None:
        _check_n(n)
        x = _resize(x, [d], [n])
    else:
        _check_n(x.shape[d])
    return _out(fname, c2c(x, [d], _norm_mode(norm, forward), forward), out, True, op)


def _r2c_1d(fname, x, n, dim, norm, forward, out):
    _check_input(fname, x)
    n, dim, _, _ = _check_args(fname, n=n, dim=dim, norm=norm)
    if x.dtype.is_complex:
        raise TypeError(f"{fname} expects a real input tensor, but got {_scalar_name(x.dtype)}")
    x = _promote(x, False)
    d = _wrap(dim, x.dim())
    if n is not None:
        _check_n(n)
        x = _resize(x, [d], [n])
    else:
        _check_n(x.shape[d])
    y = r2c(x, [d], _norm_mode(norm, forward), True)
    return _out(fname, y if forward else y.conj(), out, True, "_fft_r2c" if forward else None)


def _c2r_1d(fname, x, n, dim, norm, forward, out):
    _check_input(fname, x)
    n, dim, _, _ = _check_args(fname, n=n, dim=dim, norm=norm)
    if out is not None and not out.dtype.is_floating_point:
        raise RuntimeError(
            f"{fname} expects a floating point output tensor, but got {_scalar_name(out.dtype)}"
        )
    x = _promote(x, True)
    d = _wrap(dim, x.dim())
    last = n if n is not None else 2 * (x.shape[d] - 1)
    _check_n(last)
    x = _resize(x, [d], [last // 2 + 1])
    if forward:
        x = x.conj()  # hfft is the inverse real transform of the conjugate, scaled as a forward transform
    return _out(fname, c2r(x, [d], _norm_mode(norm, forward), last), out, False, "_fft_c2r")


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional discrete Fourier transform of input along dim (zero-padded or trimmed to n)."""
    return _c2c_1d("fft", input, n, dim, norm, True, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional inverse discrete Fourier transform."""
    return _c2c_1d("ifft", input, n, dim, norm, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Fourier transform of a real signal: the n//2 + 1 non-negative frequencies."""
    return _r2c_1d("rfft", input, n, dim, norm, True, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of rfft: a real signal of length n (default 2*(m-1)) from its m non-negative frequencies."""
    return _c2r_1d("irfft", input, n, dim, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Fourier transform of a Hermitian-symmetric signal given by its first half: a real spectrum of length n."""
    return _c2r_1d("hfft", input, n, dim, norm, True, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of hfft: the first n//2 + 1 entries of the inverse transform of a real signal."""
    return _r2c_1d("ihfft", input, n, dim, norm, False, out)


# ---------------------------------------------------------------- n-dimensional transforms


def _shape_and_dims(x, s, dim):
    """PyTorch's canonical (sizes, dims) of an n-dimensional transform from its s and dim arguments."""
    ndim = x.dim()
    dims = None
    if dim is not None:
        if isinstance(dim, int):
            dim = [dim]
        dims = [_wrap(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if isinstance(s, int):
            s = [s]
        s = list(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dims is None:
        dims, sizes = list(range(ndim)), list(x.shape)
    else:
        sizes = [x.shape[d] for d in dims]
    for n in sizes:
        _check_n(n)
    return sizes, dims


def _c2c_nd(fname, x, s, dim, norm, forward, out):
    _check_input(fname, x)
    _, _, s, dim = _check_args(fname, s=s, dims=dim, norm=norm)
    x = _promote(x, True)
    sizes, dims = _shape_and_dims(x, s, dim)
    x = _resize(x, dims, sizes)
    return _out(fname, c2c(x, dims, _norm_mode(norm, forward), forward), out, True, "_fft_c2c")


def _c2r_shape_and_dims(fname, x, s, dim):
    sizes, dims = _shape_and_dims(x, s, dim)
    if not sizes:
        raise RuntimeError(f"{fname} must transform at least one axis")
    if s is None or list([s] if isinstance(s, int) else s)[-1] == -1:
        last = 2 * (x.shape[dims[-1]] - 1)
    else:
        last = sizes[-1]
    _check_n(last)
    sizes[-1] = last // 2 + 1
    return sizes, dims, last


def _rfftn(fname, x, s, dim, norm, out):
    _check_input(fname, x)
    _, _, s, dim = _check_args(fname, s=s, dims=dim, norm=norm)
    if x.dtype.is_complex:
        raise TypeError(f"rfftn expects a real-valued input tensor, but got {_scalar_name(x.dtype)}")
    sizes, dims = _shape_and_dims(x, s, dim)
    if not sizes:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(x, False), dims, sizes)
    return _out(fname, r2c(x, dims, _norm_mode(norm, True), True), out, True, "_fft_r2c")


def _irfftn(fname, x, s, dim, norm, out):
    _check_input(fname, x)
    _, _, s, dim = _check_args(fname, s=s, dims=dim, norm=norm)
    sizes, dims, last = _c2r_shape_and_dims("irfftn", x, s, dim)
    x = _resize(_promote(x, True), dims, sizes)
    return _out(fname, c2r(x, dims, _norm_mode(norm, False), last), out, False, "_fft_c2r")


def _hfftn(fname, x, s, dim, norm, out):
    _check_input(fname, x)
    _, _, s, dim = _check_args(fname, s=s, dims=dim, norm=norm)
    sizes, dims, last = _c2r_shape_and_dims("hfftn", x, s, dim)
    x = _resize(_promote(x, True), dims, sizes)
    mode = _norm_mode(norm, True)
    if len(dims) > 1:
        x = c2c(x, dims[:-1], mode, True)
    return _out(fname, c2r(x.conj(), dims[-1:], mode, last), out, False, "_fft_c2r")


def _ihfftn(fname, x, s, dim, norm, out):
    _check_input(fname, x)
    _, _, s, dim = _check_args(fname, s=s, dims=dim, norm=norm)
    sizes, dims = _shape_and_dims(x, s, dim)
    if not sizes:
        raise RuntimeError("ihfftn must transform at least one axis")
    if x.dtype.is_complex:  # PyTorch checks the shape arguments first, then the dtype
        raise TypeError(f"Only supports floating-point dtypes, but found: {_scalar_name(x.dtype)}")
    x = _resize(_promote(x, False), dims, sizes)
    mode = _norm_mode(norm, False)
    y = r2c(x, dims[-1:], mode, True).conj()
    if len(dims) > 1:
        y = c2c(y, dims[:-1], mode, False)
    return _out(fname, y, out, True, "_fft_c2c" if len(dims) > 1 else None)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional discrete Fourier transform over dim (default: all dims, or the last len(s))."""
    return _c2c_nd("fftn", input, s, dim, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional inverse discrete Fourier transform."""
    return _c2c_nd("ifftn", input, s, dim, norm, False, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional discrete Fourier transform (fftn over the last two dims by default)."""
    return _c2c_nd("fft2", input, s, dim, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional inverse discrete Fourier transform."""
    return _c2c_nd("ifft2", input, s, dim, norm, False, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional Fourier transform of a real signal; the last transformed dim keeps n//2 + 1 frequencies."""
    return _rfftn("rfftn", input, s, dim, norm, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Inverse of rfftn; the last transformed dim has size s[-1] (default 2*(m-1))."""
    return _irfftn("irfftn", input, s, dim, norm, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional rfftn."""
    return _rfftn("rfft2", input, s, dim, norm, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional irfftn."""
    return _irfftn("irfft2", input, s, dim, norm, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional Fourier transform of a Hermitian-symmetric signal given by its first half: a real result."""
    return _hfftn("hfftn", input, s, dim, norm, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Inverse of hfftn: the one-sided inverse transform of a real signal."""
    return _ihfftn("ihfftn", input, s, dim, norm, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional hfftn."""
    return _hfftn("hfft2", input, s, dim, norm, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ihfftn."""
    return _ihfftn("ihfft2", input, s, dim, norm, out)


# ---------------------------------------------------------------- frequencies and shifts


def _freq_args(fname, n, d, dtype):
    if _index(n, False) is None:
        raise TypeError(f"fft_{fname}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if not isinstance(d, (int, float)) or isinstance(d, bool):
        raise TypeError(f"fft_{fname}(): argument 'd' (position 2) must be float, not {type(d).__name__}")
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    return _index(n, False), dtype


def _freq_result(values, n, d, dtype, device, requires_grad, out):
    # integers in the target dtype scaled there, as PyTorch's arange-then-mul_ rounds
    if dtype.is_complex:  # PyTorch builds the frequencies with arange, which has no complex kernel
        kind = "cuda" if device is not None and "cuda" in str(device) else "cpu"
        raise NotImplementedError(f"\"arange_{kind}\" not implemented for '{_scalar_name(dtype)}'")
    result = _tensor(values, dtype=dtype, device=device) * (1.0 / (n * d) if n * d else float("inf"))
    if out is not None:
        with _no_grad():
            return write_out(result, out, dtype=None, warn_resize=False)
    return result.requires_grad_(requires_grad) if requires_grad else result


def fftfreq(
    n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """The sample frequencies of an n-point fft with sample spacing d: [0, 1, ..., -(n//2), ..., -1] / (d*n)."""
    n, dtype = _freq_args("fftfreq", n, d, dtype if out is None or dtype is not None else out.dtype)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    values = list(range((n - 1) // 2 + 1)) + list(range(-(n // 2), 0))
    return _freq_result(values, n, d, dtype, device, requires_grad, out)


def rfftfreq(
    n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """The sample frequencies of an n-point rfft with sample spacing d: [0, 1, ..., n//2] / (d*n)."""
    n, dtype = _freq_args("rfftfreq", n, d, dtype if out is None or dtype is not None else out.dtype)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n // 2 + 1}: [{n // 2 + 1}]")
    return _freq_result(list(range(n // 2 + 1)), n, d, dtype, device, requires_grad, out)


def _shift(fname, x, dim, inverse):
    _check_input(fname, x)
    dim = _check_args(fname, dims=dim)[3]
    if dim is None:
        dims = list(range(x.dim()))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
        dims = [_wrap(d, x.dim()) for d in dims]
    if not dims:
        return x
    shifts = [(x.shape[d] + 1) // 2 if inverse else x.shape[d] // 2 for d in dims]
    return x.roll(shifts, dims)


def fftshift(input, dim=None):
    """Moves the zero frequency to the centre of the spectrum (roll by n//2 along dim, default all dims)."""
    return _shift("fftshift", input, dim, False)


def ifftshift(input, dim=None):
    """Inverse of fftshift (roll by (n+1)//2)."""
    return _shift("ifftshift", input, dim, True)


# PyTorch binds these in C++ (fft_fft, ...): its parser names them so in its TypeErrors (an unknown keyword, too
# many arguments) and takes NumPy's keyword spellings (axis=, x=); checked only once a call has failed
_OUT = ", *, Tensor? out=None"
_SIGNATURES = {
    "one": "Tensor input, SymInt? n=None, int dim=-1, str? norm=None" + _OUT,
    "n": "Tensor input, SymInt[1]? s=None, int[1]? dim=None, str? norm=None" + _OUT,
    "two": "Tensor input, SymInt[1]? s=None, int[1] dim=[-2,-1], str? norm=None" + _OUT,
    "shift": "Tensor input, int[1]? dim=None",
}
for _name, _form in [
    ("fft", "one"), ("ifft", "one"), ("rfft", "one"), ("irfft", "one"), ("hfft", "one"), ("ihfft", "one"),
    ("fftn", "n"), ("ifftn", "n"), ("rfftn", "n"), ("irfftn", "n"), ("hfftn", "n"), ("ihfftn", "n"),
    ("fft2", "two"), ("ifft2", "two"), ("rfft2", "two"), ("irfft2", "two"), ("hfft2", "two"), ("ihfft2", "two"),
    ("fftshift", "shift"), ("ifftshift", "shift"),
]:  # fmt: skip
    globals()[_name] = _argcheck.parsing(
        globals()[_name], [_SIGNATURES[_form]], "fft_" + _name, upfront=False
    )
del _name, _form
