"""gradcheck / gradgradcheck: analytical gradients against central finite differences (float64 inputs)."""

import numpy as np

from minitorch import _C
from minitorch.autograd.engine import grad as _grad


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(fn, inputs):
    return tuple(o for o in _as_tuple(fn(*inputs)) if _C._is_tensor(o) and o.requires_grad)


def _numerical_jacobian(fn, inputs, i, eps):
    """Columns d(out)/d(inputs[i][k]) by central differences, one per output (as flat float64 lists)."""
    x = inputs[i]
    xd = x.detach()  # writes through it keep x's layout (non-contiguous inputs stay non-contiguous)
    cols = []
    if True:  # not under no_grad: func may itself differentiate (gradgradcheck, gradient penalties)
        for k in range(x.numel()):
            idx = tuple(int(v) for v in np.unravel_index(k, tuple(x.shape))) if x.dim() else ()
            orig = xd[idx].item()
            xd[idx] = orig + eps
            plus = [
                o.detach().reshape(-1).double().clone() for o in _as_tuple(fn(*inputs)) if _C._is_tensor(o)
            ]
            xd[idx] = orig - eps
            minus = [
                o.detach().reshape(-1).double().clone() for o in _as_tuple(fn(*inputs)) if _C._is_tensor(o)
            ]
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
    **kwargs,
):
    """True when the autograd gradient of every output matches central differences for every input that
    requires grad; raises (or returns False) otherwise. Inputs should be float64 and contiguous-writable."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if _C._is_tensor(t) and t.requires_grad]
    for i in diff_idx:
        if inputs[i].dtype != _C.float64:
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point.", stacklevel=2
            )
    outputs = _differentiable_outputs(func, inputs)
    for oi in range(len(outputs)):
        # a fresh graph per output: the finite differences below write into the inputs (bumping versions)
        out = _differentiable_outputs(func, inputs)[oi]
        n_out = out.numel()
        # analytical: one backward per output element (rows of the Jacobian)
        analytical = {i: [] for i in diff_idx}
        for j in range(n_out):
            g = _C.zeros(out.shape, dtype=out.dtype, device=out.device)
            g.reshape(-1)[j] = 1.0
            grads = _grad(out, [inputs[i] for i in diff_idx], g, retain_graph=True, allow_unused=True)
            for i, gr in zip(diff_idx, grads):
                if gr is None:
                    gr = _C.zeros(inputs[i].shape, dtype=_C.float64, device=inputs[i].device)
                analytical[i].append(gr.detach().reshape(-1).double().cpu())
        for i in diff_idx:
            numeric = _numerical_jacobian(func, inputs, i, eps)
            for k in range(inputs[i].numel()):
                num_col = numeric[k][oi].cpu()
                for j in range(n_out):
                    a = analytical[i][j][k].item()
                    n = num_col[j].item()
                    if abs(a - n) > atol + rtol * abs(n):
                        msg = (
                            f"Jacobian mismatch for output {oi} with respect to input {i},\n"
                            f"numerical:{n!r}\nanalytical:{a!r} (at output element {j}, input element {k})"
                        )
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
    return True


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
