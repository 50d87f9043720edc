"""allclose, isclose and equal, with PyTorch's defaults (rtol=1e-5, atol=1e-8)."""

from minitorch import _C, _argcheck
from minitorch._dtype_names import scalar_name


def _expect_tensor(fn, name, pos, value):
    """PyTorch's TypeError for a non-tensor argument (else an AttributeError would leak from the body)."""
    if not isinstance(value, _C.Tensor):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(value).__name__}"
        )


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise |input - other| <= atol + rtol * |other|, as a bool tensor (NaNs equal only with equal_nan)."""
    return _close("isclose", input, other, rtol, atol, equal_nan)


def _close(fname, input, other, rtol, atol, equal_nan, shift=0):
    """shift: 1 for the method form, whose positions PyTorch counts without self."""
    _expect_tensor(fname, "input", 1, input)
    _expect_tensor(fname, "other", 2 - shift, other)
    for pos, name, tol in ((3 - shift, "rtol", rtol), (4 - shift, "atol", atol)):
        _argcheck.check_float(fname, name, pos, tol)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{scalar_name(input.dtype)} did not match {scalar_name(other.dtype)}")
    for pos, name, tol in ((3, "rtol", rtol), (4, "atol", atol)):
        if not tol >= 0:  # NaN too
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {float(tol):g}")
    a, b = input, other
    if a.is_complex():
        # PyTorch's rule for complex values: equal, or a finite |a - b| within atol + |rtol * b|
        close = _C.eq(a, b)
        if equal_nan:
            close = _C.logical_or(close, _C.logical_and(_C.isnan(a), _C.isnan(b)))
        if rtol == 0 and atol == 0:
            return close
        err = _C.abs(_C.sub(a, b))
        allowed = _C.add(_C.abs(_C.mul(b, rtol)), atol)
        return _C.logical_or(close, _C.logical_and(_C.isfinite(err), _C.le(err, allowed)))
    if not a.is_floating_point():
        # PyTorch's integer rule: equal, or |a - b| within atol + |rtol * b| computed in the default float dtype
        # (no wrap-around: uint8 3 vs 9 differ by 6, int64 max vs -1 by 2**63); zero tolerances are equality
        close = _C.eq(a, b)
        if rtol == 0 and atol == 0:
            return close
        a, b = a.to(_C.get_default_dtype()), b.to(_C.get_default_dtype())
        allowed = _C.add(_C.abs(_C.mul(b, rtol)), atol)
        return _C.logical_or(close, _C.le(_C.abs(_C.sub(a, b)), allowed))
    # infinities are close only to themselves; everything finite within atol + rtol * |other|
    diff = _C.abs(_C.sub(a, b))
    finite = _C.logical_and(_C.isfinite(a), _C.isfinite(b))
    close = _C.logical_and(finite, _C.le(diff, _C.add(_C.mul(_C.abs(b), rtol), atol)))
    close = _C.logical_or(close, _C.eq(a, b))
    if equal_nan:
        close = _C.logical_or(close, _C.logical_and(_C.isnan(a), _C.isnan(b)))
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of input is close to other (broadcasting), as torch.allclose."""
    return _all_close(input, other, rtol, atol, equal_nan, 0)


def _all_close(input, other, rtol, atol, equal_nan, shift):
    close = _close("allclose", input, other, rtol, atol, equal_nan, shift)
    return close.numel() == 0 or bool(_C.all(close).item())


def _isclose_method(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Tensor.isclose: isclose with self as input."""
    return _close("isclose", self, other, rtol, atol, equal_nan, shift=1)


def _allclose_method(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Tensor.allclose: allclose with self as input."""
    return _all_close(self, other, rtol, atol, equal_nan, 1)


def equal(input, other):
    """True when both tensors have the same size and elements."""
    _expect_tensor("equal", "input", 1, input)
    _expect_tensor("equal", "other", 2, other)
    return _C._equal(input, other)
