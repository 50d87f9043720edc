"""RAdam (rectified Adam, Liu et al. 2019; optional decoupled weight decay), PyTorch's algorithm."""

import math

from minitorch import _C
from minitorch.optim.optimizer import (
    Optimizer,
    _as_real,
    _check_betas_eps_wd,
    _check_dense,
    _check_lr,
    _check_not_capturable,
    _scalar,
    _step_tensor_setdefault,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""Implements RAdam, PyTorch's algorithm: Adam whose adaptive term is used only once the variance of its
    estimate is tractable (:math:`\rho_t > 5`), scaled by the rectification
    :math:`r_t = \sqrt{\frac{(\rho_t-4)(\rho_t-2)\rho_\infty}{(\rho_\infty-4)(\rho_\infty-2)\rho_t}}`;
    before that the step is SGD with momentum on the bias-corrected :math:`m_t`.

    ``foreach`` is accepted for PyTorch's signature (one implementation serves both); ``capturable=True`` and
    ``differentiable=True`` raise NotImplementedError (the step reads its counters on the host).
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_lr(lr)
        _check_betas_eps_wd(betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        _check_not_capturable("RAdam", capturable, differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("capturable", False)
        _step_tensor_setdefault(self)

    def _update_group(self, group, params, grads):
        _check_dense(grads, "RAdam")
        beta1, beta2 = group["betas"]
        lr, wd, eps = _scalar(group["lr"], "lr"), group["weight_decay"], group["eps"]
        rho_inf = 2 / (1 - beta2) - 1
        for param, grad in zip(params, grads):
            state = self.state[param]
            if len(state) == 0:
                state["step"] = self._host_counter()
                state["exp_avg"] = _C.zeros_like(param)
                state["exp_avg_sq"] = _C.zeros_like(param)
            if group["maximize"]:
                grad = -grad
            param, grad, exp_avg, exp_avg_sq = _as_real(param, grad, state["exp_avg"], state["exp_avg_sq"])
            state["step"] += 1
            step = state["step"].item()
            if wd != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * wd)
                else:
                    grad = grad.add(param, alpha=wd)
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
            # PyTorch's bias_corrected_exp_avg * lr * adaptive_lr * rect, with the scalars folded into one
            # addcdiv (one pass instead of four temporaries; equal up to float rounding)
            if rho_t > 5.0:
                rect = math.sqrt(
                    (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                )
                denom = exp_avg_sq.sqrt().add_(eps)
                param.addcdiv_(exp_avg, denom, value=-lr * rect * bias_correction2**0.5 / bias_correction1)
            else:
                param.add_(exp_avg, alpha=-lr / bias_correction1)
