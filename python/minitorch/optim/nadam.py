"""NAdam (Adam with Nesterov momentum, Dozat 2016; optional decoupled weight decay), PyTorch's algorithm."""

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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""Implements NAdam, PyTorch's algorithm: momentum schedule
    :math:`\mu_t = \beta_1(1 - \tfrac12 0.96^{t\psi})` (``momentum_decay`` :math:`\psi`),

    .. math::
        \theta_t = \theta_{t-1} - \gamma\Big(\frac{\mu_{t+1} m_t}{1-\prod_{i\le t+1}\mu_i}
        + \frac{(1-\mu_t) g_t}{1-\prod_{i\le t}\mu_i}\Big)\Big/\big(\sqrt{v_t/(1-\beta_2^t)}+\epsilon\big)

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
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_lr(lr)
        _check_betas_eps_wd(betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        _check_not_capturable("NAdam", capturable, differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
        _step_tensor_setdefault(self, keys=("step", "mu_product"))

    def _update_group(self, group, params, grads):
        _check_dense(grads, "NAdam")
        beta1, beta2 = group["betas"]
        lr, wd, eps = _scalar(group["lr"], "lr"), group["weight_decay"], group["eps"]
        momentum_decay = group["momentum_decay"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            if len(state) == 0:
                state["step"] = self._host_counter()
                # the running product of the momentum schedule, float32 as PyTorch keeps it
                state["mu_product"] = self._host_counter(1.0)
                state["exp_avg"] = _C.zeros_like(param)
                state["exp_avg_sq"] = _C.zeros_like(param)
            if group["maximize"]:
                grad = -grad
            param, grad, exp_avg, exp_avg_sq = _as_real(param, grad, state["exp_avg"], state["exp_avg_sq"])
            step_t, mu_product = state["step"], state["mu_product"]
            step_t += 1
            step = step_t.item()
            bias_correction2 = 1 - beta2**step
            if wd != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * wd)
                else:
                    grad = grad.add(param, alpha=wd)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product *= mu
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)
            mu_product_value = mu_product.item()
            mu_product_next = mu_product_value * mu_next
            param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_value))
            param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
