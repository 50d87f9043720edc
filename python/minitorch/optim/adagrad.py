"""Adagrad (lr decay, weight decay, initial accumulator): one fused multi-tensor kernel call per param group."""

from minitorch import _C
from minitorch.optim.optimizer import Optimizer, _amp_step_args, _real_lists, _scalar

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Implements Adagrad, PyTorch's algorithm:

    .. math::
        \tilde\gamma = \gamma / (1 + (t-1)\eta),\quad s_t = s_{t-1} + g_t^2,\quad
        \theta_t = \theta_{t-1} - \tilde\gamma\, g_t / (\sqrt{s_t} + \epsilon)
    """

    # Its step is one fused kernel that reads GradScaler's grad_scale/found_inf on the device (PyTorch's
    # contract for fused optimizers): GradScaler.step then never waits for the GPU.
    _step_supports_amp_scaling = True

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        self._check_supported(differentiable)
        super().__init__(params, defaults)

        # PyTorch creates Adagrad's state eagerly, for every parameter
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = self._new_step(p)
                state["sum"] = _C.full_like(p, float(group["initial_accumulator_value"]))

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)

    def share_memory(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                if hasattr(state["sum"], "share_memory_"):
                    state["sum"].share_memory_()

    def _update_group(self, group, params, grads):
        for p in params:  # parameters added by add_param_group after construction
            state = self.state[p]
            if "sum" not in state:
                state["step"] = self._new_step(p)
                state["sum"] = _C.full_like(p, float(group["initial_accumulator_value"]))
        state_sums = [self.state[p]["sum"] for p in params]
        state_steps = [self.state[p]["step"] for p in params]
        _C._fused_adagrad_(
            *_real_lists(params, grads, state_sums),
            state_steps,
            _scalar(group["lr"], "lr"),
            float(group["lr_decay"]),
            float(group["weight_decay"]),
            float(group["eps"]),
            bool(group["maximize"]),
            **_amp_step_args(self),
        )
