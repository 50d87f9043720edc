"""SGD with momentum, dampening, Nesterov and weight decay: one fused multi-tensor kernel call per group."""

from minitorch import _C
from minitorch.optim.optimizer import Optimizer, _amp_step_args, _real_lists, _scalar, required

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Implements stochastic gradient descent (optionally with momentum), PyTorch's algorithm:

    .. math::
        g_t = \pm\nabla f(\theta_{t-1}) + \lambda\theta_{t-1};\quad
        b_t = \mu b_{t-1} + (1-\tau) g_t \ (b_1 = g_1);\quad
        \theta_t = \theta_{t-1} - \gamma\,(g_t + \mu b_t \text{ if nesterov else } b_t)
    """

    # Its step is one fused kernel that reads GradScaler's grad_scale/found_inf on the device (PyTorch's
    # contract for fused optimizers): GradScaler.step then never waits for the GPU.
    _step_supports_amp_scaling = True

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
        amp = _amp_step_args(self)
        if group["momentum"] == 0:
            _C._fused_sgd_(*_real_lists(params, grads, []), *args, False, **amp)
            return
        # Parameters seen before continue their buffer; new ones start it from this step's d_p. Under
        # GradScaler the step may be skipped on the device: a new buffer then starts at zero, which with no
        # dampening continues exactly as a first step (buf = 0 * momentum + d_p), so no host sync is needed.
        may_skip = amp["found_inf"] is not None
        zero_start = may_skip and float(group["dampening"]) == 0
        # (with dampening, a skipped first step must leave no buffer: only that case reads the flag back)
        new_buffers = any(self.state[p].get("momentum_buffer") is None for p in params)
        if may_skip and not zero_start and new_buffers and amp["found_inf"].item():
            return
        old = ([], [], [])
        new = ([], [], [])
        for p, g in zip(params, grads):
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = _C.zeros_like(p) if zero_start else _C.empty_like(p)
                state["momentum_buffer"] = buf
                target = old if zero_start else new
            else:
                target = old
            target[0].append(p)
            target[1].append(g)
            target[2].append(buf)
        if old[0]:
            _C._fused_sgd_(*_real_lists(*old), *args, False, **amp)
        if new[0]:
            _C._fused_sgd_(*_real_lists(*new), *args, True, **amp)
