"""Adamax (Adam over the infinity norm, Kingma & Ba 2014), PyTorch's algorithm."""

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

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Implements Adamax, PyTorch's algorithm:

    .. math::
        m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t,\quad u_t = \max(\beta_2 u_{t-1}, |g_t|+\epsilon),\quad
        \theta_t = \theta_{t-1} - \frac{\gamma}{1-\beta_1^t}\frac{m_t}{u_t}

    ``foreach`` is accepted for PyTorch's signature (one implementation serves both); ``capturable=True`` and
    ``differentiable=True`` raise NotImplementedError (the step reads its counters on the host).
    """

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_lr(lr)
        _check_betas_eps_wd(betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        _check_not_capturable("Adamax", capturable, differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        _step_tensor_setdefault(self)

    def _update_group(self, group, params, grads):
        _check_dense(grads, "Adamax")
        beta1, beta2 = group["betas"]
        lr, wd, eps = _scalar(group["lr"], "lr"), group["weight_decay"], group["eps"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            if len(state) == 0:
                state["step"] = self._host_counter()
                state["exp_avg"] = _C.zeros_like(param)
                state["exp_inf"] = _C.zeros_like(param)
            if group["maximize"]:
                grad = -grad
            state["step"] += 1
            if wd != 0:
                grad = grad.add(param, alpha=wd)
            param, grad, exp_avg, exp_inf = _as_real(param, grad, state["exp_avg"], state["exp_inf"])
            exp_avg.lerp_(grad, 1 - beta1)
            _C.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
            clr = lr / (1 - beta1 ** state["step"].item())
            param.addcdiv_(exp_avg, exp_inf, value=-clr)
