"""Gradient clipping over multi-tensor kernels: one norm launch per (device, dtype) group and no host sync
unless error_if_nonfinite asks for the check."""

import warnings

from minitorch import _C
from minitorch.autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _group(tensors):
    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _as_list(tensors):
    return [tensors] if isinstance(tensors, _C.Tensor) else list(tensors)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (as if they were concatenated into one vector)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _C.zeros(())
    first_device = tensors[0].device
    with no_grad():
        norms = []
        for ts in _group(tensors).values():
            norms.extend(n.to(first_device, _C.float32) for n in _C._foreach_norm(ts, norm_type))
        total = _C.stack(norms).norm(norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                "cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, "
                "set `error_if_nonfinite=False`"
            )
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients in place by max_norm / (total_norm + 1e-6), capped at 1 (the second half of
    clip_grad_norm_, for a total_norm computed elsewhere, e.g. reduced across processes)."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        clip_coef = (float(max_norm) / (total_norm + 1e-6)).clamp_max(1.0)
        for (device, dtype), gs in _group(grads).items():
            if dtype.is_complex:  # the fused multi-tensor kernels are real-only: scale the real views
                gs = [_C.view_as_real(g) for g in gs]
            _C._foreach_mul_(gs, clip_coef.to(device))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so their total norm is at most max_norm; returns the total norm."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The deprecated spelling of clip_grad_norm_ (a FutureWarning, then the same)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
