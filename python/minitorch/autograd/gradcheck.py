"""gradcheck / gradgradcheck: analytical gradients against central finite differences (float64 or complex128
inputs, complex ones checked as pairs of reals)."""

import sys

import numpy as np

from minitorch import _C
from minitorch.autograd.engine import grad as _grad


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(fn, inputs):
    return tuple(o for o in _as_tuple(fn(*inputs)) if _C._is_tensor(o) and o.requires_grad)


def _real_parts(t):
    """A tensor's values as a flat float64 list of reals: a complex element gives (real, imag), as PyTorch's
    gradcheck sees a complex function as a real one of twice the size."""
    t = t.detach()
    if t.is_complex():
        t = _C.view_as_real(t)
    return t.reshape(-1).double().cpu().clone()


def _numerical_jacobian(fn, inputs, i, eps):
    """Columns d(out)/d(real part k of inputs[i]) by central differences, one per output (flat float64, complex
    outputs as (real, imag) pairs); a complex input's element is perturbed along 1 and along 1j."""
    x = inputs[i]
    xd = x.detach()  # writes through it keep x's layout (non-contiguous inputs stay non-contiguous)
    steps = (eps, eps * 1j) if x.is_complex() else (eps,)
    cols = []
    # not under no_grad: func may itself differentiate (gradgradcheck, gradient penalties)
    for k in range(x.numel()):
        idx = tuple(int(v) for v in np.unravel_index(k, tuple(x.shape))) if x.dim() else ()
        orig = xd[idx].item()
        for step in steps:
            xd[idx] = orig + step
            plus = [_real_parts(o) for o in _as_tuple(fn(*inputs)) if _C._is_tensor(o)]
            xd[idx] = orig - step
            minus = [_real_parts(o) for o in _as_tuple(fn(*inputs)) if _C._is_tensor(o)]
            xd[idx] = orig
            cols.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    return cols


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    check_undefined_grad=False,
    nondet_tol=0.0,
    fast_mode=False,
    check_forward_ad=False,
    check_backward_ad=True,
    **kwargs,
):
    """True when the autograd gradient of every output matches central differences for every input that
    requires grad; raises (or returns False) otherwise. Inputs should be float64 or complex128 and
    contiguous-writable. Complex inputs and outputs are checked as pairs of reals (PyTorch's convention: the
    gradient of a real loss L is dL/dx + i dL/dy), so a wrong imaginary part fails too. check_forward_ad also
    checks the forward-mode Jacobian (one JVP per input element) against the same differences;
    check_backward_ad=False skips the reverse-mode one."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if _C._is_tensor(t) and t.requires_grad]
    for i in diff_idx:
        if inputs[i].dtype not in (_C.float64, _C.complex128):
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. This "
                "check will likely fail if all the inputs are not of double precision floating point or complex. ",
                stacklevel=2,
            )
    if check_forward_ad and not _check_forward(func, inputs, diff_idx, eps, atol, rtol, raise_exception):
        return False
    if not check_backward_ad:
        return True
    outputs = _differentiable_outputs(func, inputs)
    for oi in range(len(outputs)):
        # a fresh graph per output: the finite differences below write into the inputs (bumping versions)
        out = _differentiable_outputs(func, inputs)[oi]
        # analytical: one backward per real output component (rows of the real Jacobian); the gradient of
        # Im(out[j]) is the backward of the grad_output 1j at j
        parts = (1.0, 1j) if out.is_complex() else (1.0,)
        analytical = {i: [] for i in diff_idx}
        for j in range(out.numel()):
            for unit in parts:
                g = _C.zeros(out.shape, dtype=out.dtype, device=out.device)
                g.reshape(-1)[j] = unit
                grads = _grad(out, [inputs[i] for i in diff_idx], g, retain_graph=True, allow_unused=True)
                for i, gr in zip(diff_idx, grads):
                    if gr is None:
                        gr = _C.zeros(inputs[i].shape, dtype=inputs[i].dtype, device=inputs[i].device)
                    analytical[i].append(_real_parts(gr))
        for i in diff_idx:
            numeric = _numerical_jacobian(func, inputs, i, eps)
            for k, column in enumerate(numeric):
                num_col = column[oi]
                for j in range(len(analytical[i])):
                    a = analytical[i][j][k].item()
                    n = num_col[j].item()
                    if abs(a - n) > atol + rtol * abs(n):
                        where = _where(inputs[i], k, out, j)
                        msg = (
                            f"Jacobian mismatch for output {oi} with respect to input {i},\n"
                            f"numerical:{n!r}\nanalytical:{a!r} ({where})"
                        )
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
    return True


def _check_forward(func, inputs, diff_idx, eps, atol, rtol, raise_exception):
    """Column k of each output's Jacobian by the JVP along input element k, against central differences."""
    # through the package's lazy attribute (autograd/__init__.py), as forward AD sits above this module
    fwAD = sys.modules["minitorch.autograd"].forward_ad

    for i in diff_idx:
        x = inputs[i]
        numeric = _numerical_jacobian(func, inputs, i, eps)
        units = (1.0, 1j) if x.is_complex() else (1.0,)
        for k, column in enumerate(numeric):
            t = _C.zeros(x.shape, dtype=x.dtype, device=x.device)
            t.reshape(-1)[k // len(units)] = units[k % len(units)]
            with fwAD.dual_level():
                args = list(inputs)
                args[i] = fwAD.make_dual(x.detach(), t)
                outs = [o for o in _as_tuple(func(*args)) if _C._is_tensor(o)]
                tans = [fwAD.unpack_dual(o).tangent for o in outs]
            for oi, (o, tan, num_col) in enumerate(zip(outs, tans, column)):
                a_col = (
                    _real_parts(tan)
                    if tan is not None
                    else _real_parts(_C.zeros_like(fwAD.unpack_dual(o).primal))
                )
                for j in range(num_col.numel()):
                    a, n = a_col[j].item(), num_col[j].item()
                    if abs(a - n) > atol + rtol * abs(n):
                        msg = (
                            f"Jacobian computed with forward mode mismatch for output {oi} with respect to input "
                            f"{i},\nnumerical:{n!r}\nanalytical:{a!r} ({_where(x, k, o, j)})"
                        )
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
    return True


def _where(x, k, out, j):
    """Names the failing entry of the real Jacobian: elements, and the part of complex ones."""
    part = ("real", "imaginary")
    inp = f"input element {k // 2}, {part[k % 2]} part" if x.is_complex() else f"input element {k}"
    o = f"output element {j // 2}, {part[j % 2]} part" if out.is_complex() else f"output element {j}"
    return f"at {o}, {inp}"


def gradgradcheck(
    func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **kw
):
    """gradcheck of the first derivative (computed with create_graph=True) as a function of the inputs."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if _C._is_tensor(t) and t.requires_grad]
    outs = _differentiable_outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(_C.randn(o.shape, dtype=o.dtype, device=o.device).requires_grad_() for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivative(*args):
        ins, gos = args[:n_in], args[n_in:]
        os = _differentiable_outputs(func, ins)
        return _grad(os, [ins[i] for i in diff_idx], gos, create_graph=True, allow_unused=True)

    return gradcheck(
        first_derivative,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when analytical and numerical gradients disagree."""
