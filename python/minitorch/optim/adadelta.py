"""Adadelta (Zeiler 2012, PyTorch's variant with lr, weight decay and maximize) over the multi-tensor ops."""

from minitorch import _C
from minitorch.optim.optimizer import Optimizer, _real_lists

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Implements Adadelta, PyTorch's algorithm:

    .. math::
        v_t = \rho v_{t-1} + (1-\rho) g_t^2,\quad
        \Delta x_t = \frac{\sqrt{u_{t-1}+\epsilon}}{\sqrt{v_t+\epsilon}} g_t,\quad
        u_t = \rho u_{t-1} + (1-\rho)\Delta x_t^2,\quad \theta_t = \theta_{t-1} - \gamma \Delta x_t
    """

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        self._check_supported(differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group, params, grads):
        # Few programs use Adadelta (pytorch/examples mnist does): it is composed of the multi-tensor primitives
        # rather than given a fused kernel of its own; each line below is one C++ call over the whole group.
        square_avgs, acc_deltas = [], []
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = self._new_step(p)
                state["square_avg"] = _C.zeros_like(p)
                state["acc_delta"] = _C.zeros_like(p)
            state["step"] += 1
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
        rho, eps, lr, wd = float(group["rho"]), float(group["eps"]), float(group["lr"]), group["weight_decay"]
        if group["maximize"]:
            grads = [-g for g in grads]
        if wd != 0:
            grads = [g.add(p, alpha=wd) for g, p in zip(grads, params)]
        # complex parameters are updated as their real views, as PyTorch
        params, grads, square_avgs, acc_deltas = _real_lists(params, grads, square_avgs, acc_deltas)
        _C._foreach_mul_(square_avgs, rho)
        _C._foreach_addcmul_(square_avgs, grads, grads, 1 - rho)
        std = _C._foreach_sqrt([s.add(eps) for s in square_avgs])
        deltas = _C._foreach_sqrt([a.add(eps) for a in acc_deltas])
        deltas = [d.div_(s).mul_(g) for d, s, g in zip(deltas, std, grads)]
        _C._foreach_mul_(acc_deltas, rho)
        _C._foreach_addcmul_(acc_deltas, deltas, deltas, 1 - rho)
        _C._foreach_add_(params, deltas, alpha=-lr)
