"""ASGD (averaged stochastic gradient descent, Polyak & Juditsky 1992), PyTorch's algorithm."""

from minitorch import _C, _creation
from minitorch.optim.optimizer import (
    Optimizer,
    _as_real,
    _check_dense,
    _check_lr,
    _check_not_capturable,
    _scalar,
    _step_tensor_setdefault,
)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Implements averaged SGD, PyTorch's algorithm: SGD with a decaying step
    :math:`\eta_t = \gamma/(1+\lambda\gamma t)^\alpha` and decay :math:`\theta \leftarrow \theta(1-\lambda\eta)`,
    keeping in ``state["ax"]`` the average of the iterates from step ``t0`` on.

    ``foreach`` is accepted for PyTorch's signature (one implementation serves both); ``capturable=True`` and
    ``differentiable=True`` raise NotImplementedError (the step reads its counters on the host).
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_lr(lr)
        if not 0.0 <= lambd:
            raise ValueError(f"Invalid lambd value: {lambd}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        _check_not_capturable("ASGD", capturable, differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        _step_tensor_setdefault(self, keys=("step", "eta", "mu"))

    def _update_group(self, group, params, grads):
        _check_dense(grads, "ASGD")
        lr, lambd, alpha, t0 = _scalar(group["lr"], "lr"), group["lambd"], group["alpha"], group["t0"]
        wd = group["weight_decay"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            if len(state) == 0:
                state["step"] = self._new_step(param)
                state["eta"] = _creation.tensor(lr, dtype=_C.float32, device=param.device)
                state["mu"] = _C.ones((), dtype=_C.float32, device=param.device)
                state["ax"] = _C.zeros_like(param)
            if group["maximize"]:
                grad = -grad
            param, grad, ax = _as_real(param, grad, state["ax"])
            state["step"] += 1
            if wd != 0:
                grad = grad.add(param, alpha=wd)
            eta_value = state["eta"].item()
            param.mul_(1 - lambd * eta_value)
            param.add_(grad, alpha=-eta_value)
            if state["mu"].item() != 1:
                ax.add_(param.sub(ax).mul_(state["mu"]))
            else:
                ax.copy_(param)
            step = state["step"].item()
            state["eta"].fill_(lr / ((1 + lambd * lr * step) ** alpha))
            state["mu"].fill_(1 / max(1, step - t0))
