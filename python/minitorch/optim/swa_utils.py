"""torch.optim.swa_utils: weight averaging (AveragedModel for SWA and EMA), SWALR and update_bn, as PyTorch's."""

import itertools
import math
import warnings
from copy import deepcopy

from minitorch import _C, _creation
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.modules.batchnorm import _BatchNorm
from minitorch.nn.modules.module import Module
from minitorch.optim.lr_scheduler import LRScheduler, _format_param

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """The exponential moving average over lists of tensors, ``ema = decay * ema + (1 - decay) * param``, in
    place (one multi-tensor lerp for floating tensors), for ``AveragedModel(multi_avg_fn=...)``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
            _C._foreach_lerp_(list(ema_param_list), list(current_param_list), 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The running equal-weight average over lists of tensors, ``avg += (param - avg) / (n_averaged + 1)``, in
    place, for ``AveragedModel(multi_avg_fn=...)``."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
            weight = 1 / (num_averaged + 1)
            if isinstance(weight, _C.Tensor):
                weight = float(weight.item())
            _C._foreach_lerp_(list(averaged_param_list), list(current_param_list), weight)
        else:
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.add_((p_model - p_avg) / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The exponential moving average of one tensor, ``decay * ema + (1 - decay) * param`` (returned), for
    ``AveragedModel(avg_fn=...)``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running equal-weight average of one tensor, ``avg + (param - avg) / (n_averaged + 1)`` (returned),
    for ``AveragedModel(avg_fn=...)``."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    r"""A copy of ``model`` whose parameters (and buffers, with ``use_buffers=True``) are an average of the
    model's over the calls of :meth:`update_parameters`: the equal-weight average of stochastic weight averaging
    by default, or ``avg_fn``/``multi_avg_fn`` (e.g. :func:`get_ema_multi_avg_fn` for an EMA). Without
    ``use_buffers`` the buffers are copied from the model at each update (run :func:`update_bn` after training
    to recompute batch-norm statistics)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _creation.tensor(0, dtype=_C.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Runs the averaged copy of the model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Folds ``model``'s current parameters into the average (the first call copies them)."""
        self_param = (
            itertools.chain(self.module.parameters(), self.module.buffers())
            if self.use_buffers
            else self.parameters()
        )
        model_param = (
            itertools.chain(model.parameters(), model.buffers()) if self.use_buffers else model.parameters()
        )
        self_param_detached = []
        model_param_detached = []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach().to(p_averaged.device)
            self_param_detached.append(p_averaged.detach())
            model_param_detached.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)

        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                # PyTorch's grouping: one multi-tensor call per (device, dtype)
                groups = {}
                for p_avg, p_model in zip(self_param_detached, model_param_detached):
                    key = (str(p_avg.device), p_avg.dtype)
                    groups.setdefault(key, ([], [], p_avg.device))
                    groups[key][0].append(p_avg)
                    groups[key][1].append(p_model)
                fn = self.multi_avg_fn if self.multi_avg_fn else get_swa_multi_avg_fn()
                for self_params, model_params, device in groups.values():
                    fn(self_params, model_params, self.n_averaged.to(device))
            else:
                for p_averaged, p_model in zip(self_param_detached, model_param_detached):
                    n_averaged = self.n_averaged.to(p_averaged.device)
                    p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, n_averaged))

        if not self.use_buffers:
            # the buffers (batch-norm statistics...) follow the model's
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    r"""Recomputes the running statistics of ``model``'s batch-norm layers with one pass over ``loader`` (a
    cumulative average: momentum None), the step after SWA; each batch is the loader's item, or its first element
    when that is a list or tuple."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum

    if not momenta:
        return

    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None

    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)

    for bn_module, momentum in momenta.items():
        bn_module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    r"""Anneals each group's learning rate to a fixed ``swa_lr`` over ``anneal_epochs`` (cosine or linear), then
    keeps it there: the schedule of stochastic weight averaging."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The learning rates of the next step: the previous ones moved toward ``swa_lr``."""
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, prev_lrs)
        ]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        """The scheduler's state: every attribute except the optimizer and the anneal function."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        """Loads the scheduler's state."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
