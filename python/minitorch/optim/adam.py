"""Adam (and, with decoupled weight decay, AdamW): one fused multi-tensor kernel call per param group."""

from minitorch import _C
from minitorch.optim.optimizer import Optimizer, _amp_step_args, _real_lists, _scalar

__all__ = ["Adam"]


class Adam(Optimizer):
    r"""Implements Adam, PyTorch's algorithm (``amsgrad``, ``maximize``, L2 or decoupled weight decay):

    .. math::
        m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t,\quad v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2,\quad
        \theta_t = \theta_{t-1} - \frac{\gamma}{1-\beta_1^t}\,\frac{m_t}{\sqrt{v_t}/\sqrt{1-\beta_2^t} + \epsilon}
    """

    # Its step is one fused kernel that reads GradScaler's grad_scale/found_inf on the device (PyTorch's
    # contract for fused optimizers): GradScaler.step then never waits for the GPU.
    _step_supports_amp_scaling = True

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        if isinstance(lr, _C.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        self._check_supported(differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
            group.setdefault("decoupled_weight_decay", False)

    def _init_group(self, group, params):
        exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = [], [], [], []
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = self._new_step(p)
                state["exp_avg"] = _C.zeros_like(p)
                state["exp_avg_sq"] = _C.zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = _C.zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                if "max_exp_avg_sq" not in state:  # amsgrad switched on after some steps
                    state["max_exp_avg_sq"] = _C.zeros_like(p)
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            state_steps.append(state["step"])
        return exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps

    def _update_group(self, group, params, grads):
        exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = self._init_group(group, params)
        beta1, beta2 = group["betas"]
        _C._fused_adam_(
            *_real_lists(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs),
            state_steps,
            _scalar(group["lr"], "lr"),
            float(beta1),
            float(beta2),
            float(group["weight_decay"]),
            float(group["eps"]),
            bool(group["amsgrad"]),
            bool(group["maximize"]),
            bool(group["decoupled_weight_decay"]),
            **_amp_step_args(self),
        )
