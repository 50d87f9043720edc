"""RMSprop (centered, momentum, weight decay): one fused multi-tensor kernel call per param group."""

from minitorch import _C
from minitorch.optim.optimizer import Optimizer, _amp_step_args, _real_lists, _scalar

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""Implements RMSprop, PyTorch's algorithm:

    .. math::
        v_t = \alpha v_{t-1} + (1-\alpha) g_t^2,\quad
        \tilde v_t = v_t - \bar g_t^2 \text{ (centered, } \bar g_t = \alpha\bar g_{t-1} + (1-\alpha) g_t),\quad
        b_t = \mu b_{t-1} + g_t/(\sqrt{\tilde v_t}+\epsilon),\quad \theta_t = \theta_{t-1} - \gamma b_t
    """

    # Its step is one fused kernel that reads GradScaler's grad_scale/found_inf on the device (PyTorch's
    # contract for fused optimizers): GradScaler.step then never waits for the GPU.
    _step_supports_amp_scaling = True

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        self._check_supported(differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    def _update_group(self, group, params, grads):
        square_avgs, grad_avgs, momentum_buffers, state_steps = [], [], [], []
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = self._new_step(p)
                state["square_avg"] = _C.zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = _C.zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = _C.zeros_like(p)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffers.append(state.setdefault("momentum_buffer", _C.zeros_like(p)))
            if group["centered"]:
                grad_avgs.append(state.setdefault("grad_avg", _C.zeros_like(p)))
        _C._fused_rmsprop_(
            *_real_lists(params, grads, square_avgs, grad_avgs, momentum_buffers),
            state_steps,
            _scalar(group["lr"], "lr"),
            float(group["alpha"]),
            float(group["eps"]),
            float(group["weight_decay"]),
            float(group["momentum"]),
            bool(group["centered"]),
            bool(group["maximize"]),
            **_amp_step_args(self),
        )
