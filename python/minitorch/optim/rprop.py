"""Rprop (resilient backpropagation, Riedmiller & Braun 1993), PyTorch's algorithm."""

from minitorch import _C
from minitorch.optim.optimizer import (
    Optimizer,
    _as_real,
    _check_dense,
    _check_lr,
    _check_not_capturable,
    _step_tensor_setdefault,
)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Implements Rprop, PyTorch's algorithm: each element's step size grows by ``etas[1]`` while its gradient
    keeps its sign and shrinks by ``etas[0]`` when it flips (that step is then skipped), clamped to
    ``step_sizes``; the parameter moves by the step size against the gradient's sign.

    ``foreach`` is accepted for PyTorch's signature (one implementation serves both); ``capturable=True`` and
    ``differentiable=True`` raise NotImplementedError (the step reads its counters on the host).
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        _check_not_capturable("Rprop", capturable, differentiable)
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
        _check_dense(grads, "Rprop")
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            if len(state) == 0:
                state["step"] = self._host_counter()
                state["prev"] = _C.zeros_like(param)
                lr = float(group["lr"].item()) if isinstance(group["lr"], _C.Tensor) else group["lr"]
                fill = complex(lr, lr) if param.is_complex() else lr
                state["step_size"] = _C.full_like(grad, fill)
            if group["maximize"]:
                grad = -grad
            state["step"] += 1
            grad, prev, param, step_size = _as_real(grad, state["prev"], param, state["step_size"])
            sign = grad.mul(prev).sign()
            positive, negative = sign.gt(0), sign.lt(0)
            sign.masked_fill_(positive, etaplus)
            sign.masked_fill_(negative, etaminus)
            sign.masked_fill_(~(positive | negative), 1)
            step_size.mul_(sign).clamp_(step_size_min, step_size_max)
            # where the gradient changed sign the step is skipped, and the next step sees no sign change
            grad = grad.clone().masked_fill_(negative, 0)
            param.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
