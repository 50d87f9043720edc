"""Adafactor (Shazeer & Stern 2018, PyTorch's variant: factored second moments, no first moment)."""

from minitorch import _C
from minitorch._dtype_info import finfo
from minitorch.optim.optimizer import Optimizer, _check_dense, _scalar, _step_tensor_setdefault

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    r"""Implements Adafactor, PyTorch's algorithm: the second moment of a matrix gradient is kept as its row
    and column means (``row_var``, ``col_var``, :math:`O(n+m)` memory), with
    :math:`\hat\beta_{2,t} = 1 - t^{\text{beta2\_decay}}`; the update :math:`g/\sqrt{\hat v}` is clipped to RMS
    ``d`` and scaled by :math:`\max(\epsilon_2, \mathrm{RMS}(\theta))\min(\gamma, 1/\sqrt t)`. ``eps[0]`` None
    means the parameters' dtype's machine epsilon; weight decay is decoupled. ``foreach`` is accepted for
    PyTorch's signature (one implementation serves both)."""

    def __init__(
        self,
        params,
        lr=1e-2,
        beta2_decay=-0.8,
        eps=(None, 1e-3),
        d=1.0,
        weight_decay=0.0,
        *,
        foreach=None,
        maximize=False,
    ):
        if isinstance(lr, _C.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
        _step_tensor_setdefault(self)

    def _update_group(self, group, params, grads):
        for p in params:
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
        _check_dense(grads, "Adafactor")
        if getattr(self, "grad_scale", None) is not None or getattr(self, "found_inf", None) is not None:
            raise AssertionError("Grad scaling should occur outside of optimizer.step()")
        lr, d, wd, beta2_decay = (
            _scalar(group["lr"], "lr"),
            group["d"],
            group["weight_decay"],
            group["beta2_decay"],
        )
        eps1, eps2 = group["eps"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            if len(state) == 0:
                state["step"] = self._host_counter()
                if grad.dim() > 1:
                    state["row_var"] = grad.new_zeros([*grad.shape[:-1], 1])
                    state["col_var"] = grad.new_zeros([*grad.shape[:-2], 1, grad.shape[-1]])
                else:
                    state["variance"] = _C.zeros_like(grad)
            if group["maximize"]:
                grad = -grad
            if eps1 is None:  # as PyTorch: the first parameter's dtype decides for the whole group
                eps1 = finfo(param.dtype).eps
            state["step"] += 1
            step = state["step"].item()
            one_minus_beta2_t = step**beta2_decay
            rho_t = min(lr, 1 / (step**0.5))
            alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t
            if wd != 0:
                param.mul_(1 - lr * wd)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_mean = grad.norm(2, dim=-1, keepdim=True).square_().div_(grad.size(-1))
                row_var.lerp_(row_mean, one_minus_beta2_t)
                col_mean = grad.norm(2, dim=-2, keepdim=True).square_().div_(grad.size(-2))
                col_var.lerp_(col_mean, one_minus_beta2_t)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = variance.clone()
            update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
            update.mul_(grad)
            denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
            param.add_(update, alpha=-alpha / denom)
