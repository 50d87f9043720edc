"""assert_close: compares tensors (or numbers, sequences) with dtype-aware default tolerances."""

import numpy as np

from minitorch import _C, _creation

# (rtol, atol) defaults, as torch.testing.assert_close documents them
_TOLS = {
    _C.float16: (1e-3, 1e-5),
    _C.bfloat16: (1.6e-2, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
    _C.complex64: (1.3e-6, 1e-5),
    _C.complex128: (1e-7, 1e-7),
}


def _host(t):
    """t as a float64 (complex128 for complex tensors) NumPy array; complex values compare by |a - b|."""
    t = t.detach().cpu()
    return t.to(_C.complex128).numpy() if t.is_complex() else t.double().numpy()


def _as_tensor(x):
    return x if isinstance(x, _C.Tensor) else _creation.tensor(x)


def assert_close(
    actual, expected, *, rtol=None, atol=None, equal_nan=False, check_device=True, check_dtype=True, msg=None
):
    """Raises AssertionError naming the mismatches when actual and expected differ beyond tolerance."""
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for a, e in zip(actual, expected):
            assert_close(
                a,
                e,
                rtol=rtol,
                atol=atol,
                equal_nan=equal_nan,
                check_device=check_device,
                check_dtype=check_dtype,
                msg=msg,
            )
        return
    a, e = _as_tensor(actual), _as_tensor(expected)
    if (rtol is None) != (atol is None):
        raise ValueError(
            "Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol."
            if rtol is None
            else "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."
        )
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    if check_device and a.device != e.device:
        raise AssertionError(
            msg or f"The values for attribute 'device' do not match: {a.device} != {e.device}."
        )
    if check_dtype and a.dtype != e.dtype:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {a.dtype} != {e.dtype}.")
    if rtol is None:
        rtol, atol = max(_TOLS.get(a.dtype, (0.0, 0.0)), _TOLS.get(e.dtype, (0.0, 0.0)))
    x, y = _host(a), _host(e)
    ok = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not ok.all():
        bad = int((~ok).sum())
        diff = np.abs(x - y)
        idx = np.unravel_index(np.nanargmax(np.where(ok, -np.inf, diff)), x.shape) if x.ndim else ()
        raise AssertionError(
            msg
            or (
                f"Tensor-likes are not close!\n\nMismatched elements: {bad} / {x.size} ({100.0 * bad / x.size:.1f}%)\n"
                f"Greatest absolute difference: {float(diff[idx])} at index {tuple(int(i) for i in idx)} "
                f"(up to {atol} allowed)\nGreatest relative difference: "
                f"{float(diff[idx] / max(abs(y[idx]), 1e-300))} (up to {rtol} allowed)"
            )
        )
