"""SGD with momentum, dampening, Nesterov and weight decay: one fused multi-tensor kernel call per group."""

from minitorch import _C
from minitorch.optim.optimizer import Optimizer, _real_lists, _scalar, required

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Implements stochastic gradient descent (optionally with momentum), PyTorch's algorithm:

    .. math::
        g_t = \pm\nabla f(\theta_{t-1}) + \lambda\theta_{t-1};\quad
        b_t = \mu b_{t-1} + (1-\tau) g_t \ (b_1 = g_1);\quad
        \theta_t = \theta_{t-1} - \gamma\,(g_t + \mu b_t \text{ if nesterov else } b_t)
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        self._check_supported(differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _update_group(self, group, params, grads):
        args = (
            _scalar(group["lr"], "lr"),
            float(group["momentum"]),
            float(group["dampening"]),
            float(group["weight_decay"]),
            bool(group["nesterov"]),
            bool(group["maximize"]),
        )
        if group["momentum"] == 0:
            _C._fused_sgd_(*_real_lists(params, grads, []), *args, False)
            return
        # Parameters seen before continue their buffer; new ones start it from this step's d_p.
        old = ([], [], [])
        new = ([], [], [])
        for p, g in zip(params, grads):
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = _C.empty_like(p)
                state["momentum_buffer"] = buf
                target = new
            else:
                target = old
            target[0].append(p)
            target[1].append(g)
            target[2].append(buf)
        if old[0]:
            _C._fused_sgd_(*_real_lists(*old), *args, False)
        if new[0]:
            _C._fused_sgd_(*_real_lists(*new), *args, True)
