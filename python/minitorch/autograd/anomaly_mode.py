"""torch.autograd.anomaly_mode: detect_anomaly and set_detect_anomaly. While anomaly mode is on (with
check_nan), each backward pass checks every node's computed gradients and raises PyTorch's RuntimeError naming
the first node that returned NaN (``Function 'DivBackward0' returned nan values in its 1th output.``).

PyTorch's engine makes that check itself; ours runs it from Python hooks placed on the graph's nodes for the
pass (only in anomaly mode, a debugging aid). The traceback of the forward call that PyTorch also prints is
not recorded."""

import warnings

from minitorch import _C

__all__ = ["detect_anomaly", "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_detect_anomaly"]

# process-wide, as PyTorch's AnomalyMode
_enabled = False
_check_nan = True


def is_anomaly_enabled():
    """Whether anomaly mode is on (torch.is_anomaly_enabled)."""
    return _enabled


def is_anomaly_check_nan_enabled():
    """Whether anomaly mode checks gradients for NaN (torch.is_anomaly_check_nan_enabled)."""
    return _check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns anomaly mode on or off (torch.set_anomaly_enabled)."""
    global _enabled, _check_nan
    _enabled = bool(enabled)
    _check_nan = bool(check_nan)
    _C._set_anomaly_enabled(_enabled)  # the engine's version error words its hint by it


class detect_anomaly:
    """Context manager turning anomaly mode on for its extent: backward raises at the first node
    whose gradients contain NaN."""

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
            "for debugging.",
            stacklevel=2,
        )

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly mode on or off at once; as a context manager, restores the previous setting on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def _nan_check(node):
    def hook(grad_inputs, grad_outputs):
        for i, g in enumerate(grad_inputs):
            if g is not None and bool(_C.isnan(g).any()):
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")

    return hook


def nan_hooks(roots):
    """The hook handles placed on every node reachable from the roots' grad_fns (empty unless anomaly mode
    checks NaN); the caller removes them after the pass."""
    if not (_enabled and _check_nan):
        return []
    handles, seen = [], set()
    stack = [t.grad_fn for t in roots if _C._is_tensor(t) and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        handles.append(node.register_hook(_nan_check(node)))
        stack.extend(nxt for nxt, _ in node.next_functions)
    return handles
