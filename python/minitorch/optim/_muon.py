"""Muon (momentum orthogonalized by Newton-Schulz, Jordan et al. 2024) for 2-D parameters, PyTorch's algorithm."""

import math

from minitorch import _C
from minitorch.optim.optimizer import Optimizer, _check_dense, _scalar

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """An approximate orthogonalization of ``grad`` (its U V^T) by ``ns_steps`` quintic Newton-Schulz
    iterations in bfloat16, as PyTorch."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    ortho_grad = grad.to(dtype=_C.bfloat16, copy=True)
    if grad.size(0) > grad.size(1):
        ortho_grad = ortho_grad.T
    ortho_grad.div_(ortho_grad.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram_matrix = ortho_grad @ ortho_grad.T
        gram_update = _C.addmm(gram_matrix, gram_matrix, gram_matrix, beta=b, alpha=c)
        ortho_grad = _C.addmm(ortho_grad, gram_update, ortho_grad, beta=a)
    if grad.size(0) > grad.size(1):
        ortho_grad = ortho_grad.T
    return ortho_grad


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    elif adjust_lr_fn == "spectral_unclamped":
        adjusted_ratio = math.sqrt(A / B)
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(Optimizer):
    r"""Implements Muon, PyTorch's algorithm, for 2-D parameters only: SGD momentum (Nesterov by default) whose
    update is orthogonalized by ``ns_steps`` Newton-Schulz iterations (in bfloat16, so results match PyTorch's
    to bfloat16 rounding), with decoupled weight decay and the learning rate scaled by ``adjust_lr_fn``
    (``"original"``: :math:`\sqrt{\max(1, A/B)}`, ``"match_rms_adamw"``: :math:`0.2\sqrt{\max(A, B)}`,
    ``"spectral_unclamped"``: :math:`\sqrt{A/B}`)."""

    def __init__(
        self,
        params,
        lr=1e-3,
        weight_decay=0.1,
        momentum=0.95,
        nesterov=True,
        ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps=EPS,
        ns_steps=DEFAULT_NS_STEPS,
        adjust_lr_fn=None,
    ):
        if isinstance(lr, _C.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in [
            "original",
            "match_rms_adamw",
            "spectral_unclamped",
        ]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}"
                    )

    def _update_group(self, group, params, grads):
        for p in params:
            if p.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
        _check_dense(grads, "Muon")
        lr, wd, momentum = _scalar(group["lr"], "lr"), group["weight_decay"], group["momentum"]
        for param, grad in zip(params, grads):
            if grad.ndim != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            state = self.state[param]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = _C.zeros_like(grad)
            buf = state["momentum_buffer"]
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = _zeropower_via_newtonschulz(
                update, group["ns_coefficients"], group["ns_steps"], group["eps"]
            )
            adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], param.shape)
            param.mul_(1 - lr * wd)
            param.add_(update, alpha=-adjusted_lr)
