"""GradScaler: loss scaling for float16 training. The inf/NaN check, the unscale and the scale update run as
multi-tensor kernels on the device. With our optimizers (fused steps that take grad_scale/found_inf, PyTorch's
contract for fused optimizers) nothing is read back; other optimizers get PyTorch's general path, whose step()
syncs once to decide whether to skip."""

import inspect
import warnings
import weakref
from collections import defaultdict
from enum import Enum

from minitorch import _C, cuda
from minitorch.autograd.grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


# step functions -> whether they take PyTorch's deprecated grad_scaler= keyword (inspect.signature costs more
# than the rest of a scaled step on a small model, so it is asked once per function)
_TAKES_GRAD_SCALER = weakref.WeakKeyDictionary()


def _takes_grad_scaler(step):
    fn = getattr(step, "__func__", step)
    try:
        return _TAKES_GRAD_SCALER[fn]
    except (KeyError, TypeError):
        pass
    takes = "grad_scaler" in inspect.signature(step).parameters
    try:
        _TAKES_GRAD_SCALER[fn] = takes
    except TypeError:  # not weak-referenceable: ask every time
        pass
    return takes


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(
        self,
        device="cuda",
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and not cuda.is_available():
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = _C.full((1,), float(self._init_scale), dtype=_C.float32, device=dev)
        self._growth_tracker = _C.full((1,), self._init_growth_tracker, dtype=_C.int32, device=dev)

    def scale(self, outputs):
        """Multiplies outputs (a tensor or nested lists/tuples of tensors) by the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, _C.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)
        cache = {}

        def apply_scale(val):
            if isinstance(val, _C.Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                if val.device not in cache:
                    cache[val.device] = self._scale.to(device=val.device, non_blocking=True)
                return val * cache[val.device]
            if isinstance(val, (list, tuple)):
                out = [apply_scale(v) for v in val]
                return type(val)(out)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        per_device_and_dtype = defaultdict(lambda: defaultdict(list))
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if (not allow_fp16) and param.grad.dtype == _C.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    per_device_and_dtype[param.grad.device][param.grad.dtype].append(param.grad)
            per_device_found_inf = {}
            for device, per_dtype in per_device_and_dtype.items():
                dev_inf = per_device_found_inf.setdefault(device, found_inf.to(device))
                dev_inv = inv_scale.to(device)
                for grads in per_dtype.values():
                    _C._amp_foreach_non_finite_check_and_unscale_(grads, dev_inf, dev_inv)
        return per_device_found_inf

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale (for clipping between backward and step)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _C.zeros((1,), dtype=_C.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscales (if not done yet) and runs optimizer.step() unless a gradient holds inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            return self._fused_step(optimizer, state, args, kwargs)
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def _fused_step(self, optimizer, state, args, kwargs):
        """PyTorch's path for optimizers that unscale and skip inside their own step: the inf check runs on the
        device, the scale and the flag are handed over as ``optimizer.grad_scale`` / ``optimizer.found_inf``,
        and nothing here reads a value back (no host sync per step)."""
        if _takes_grad_scaler(optimizer.step):
            warnings.warn(
                "GradScaler is going to stop passing itself as a keyword argument to the passed "
                "optimizer. In the near future GradScaler registers `grad_scale: Tensor` and "
                "`found_inf: Tensor` to the passed optimizer and let the optimizer use them directly.",
                FutureWarning,
                stacklevel=3,
            )
            retval = optimizer.step(*args, **dict(kwargs, grad_scaler=self))
            state["stage"] = OptState.STEPPED
            return retval
        if state["stage"] is OptState.READY:
            # fp16 gradients are refused as PyTorch's non-fused optimizers refuse them, unless fused=True was
            # asked for (PyTorch's fused kernels take them)
            self._check_inf_per_device(optimizer, any(g.get("fused") for g in optimizer.param_groups))
        scale = self._scale
        found_inf = sum(t.to(scale.device, non_blocking=True) for t in state["found_inf_per_device"].values())
        if not isinstance(found_inf, _C.Tensor):  # no gradients at all: nothing to skip
            found_inf = None
        # an unscale_() already divided the grads: only the flag remains to pass; a scale the caller set on the
        # optimizer multiplies ours (PyTorch's rule)
        own = getattr(optimizer, "grad_scale", None)
        optimizer.grad_scale = (
            own if state["stage"] is OptState.UNSCALED else scale if own is None else scale * own
        )
        optimizer.found_inf = found_inf
        try:
            retval = optimizer.step(*args, **kwargs)
        finally:
            del optimizer.grad_scale
            del optimizer.found_inf
        state["stage"] = OptState.STEPPED
        return retval

    def _check_inf_per_device(self, optimizer, allow_fp16=True):
        """The inf/nan check of every gradient without unscaling them (inv_scale 1), on their devices."""
        _scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        # (a fresh 1.0 each time: the kernel only reads it, but a shared one could be changed by a caller)
        dummy_inv_scale = _C.ones((), dtype=_C.float32, device=_scale.device)
        found_inf = _C.zeros((), dtype=_C.float32, device=_scale.device)
        state = self._per_optimizer_states[id(optimizer)]
        state["found_inf_per_device"] = self._unscale_grads_(
            optimizer, dummy_inv_scale, found_inf, allow_fp16
        )
        return state["found_inf_per_device"]

    def update(self, new_scale=None):
        """Backs the scale off after a skipped step, grows it after growth_interval clean steps."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                if not (
                    isinstance(new_scale, _C.Tensor)
                    and new_scale.numel() == 1
                    and new_scale.dtype == _C.float32
                ):
                    raise ValueError(
                        "new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
                        "with requires_grad=False."
                    )
                self._scale.copy_(new_scale)
        else:
            found_infs = [
                found_inf.to(device=_scale.device, non_blocking=True)
                for state in self._per_optimizer_states.values()
                for found_inf in state["found_inf_per_device"].values()
            ]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf_combined = found_infs[0]
            for fi in found_infs[1:]:
                found_inf_combined = found_inf_combined + fi
            _C._amp_update_scale_(
                _scale,
                _growth_tracker,
                found_inf_combined,
                self._growth_factor,
                self._backoff_factor,
                self._growth_interval,
            )
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        return self._scale, self._growth_tracker

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of "
                "GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
