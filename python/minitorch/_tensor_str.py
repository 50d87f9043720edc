"""How tensors print: PyTorch's repr (tensor([1.5000, 2.0000]), summarization, dtype/device suffixes)."""

import numpy as np

from minitorch import _C


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """Sets print options as torch.set_printoptions does (profile: 'default', 'short', 'full')."""
    if profile == "default":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = (
            4,
            1000,
            3,
            80,
        )
    elif profile == "short":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = (
            2,
            1000,
            2,
            80,
        )
    elif profile == "full":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = (
            4,
            float("inf"),
            3,
            80,
        )
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def tensor_repr(self):
    host = self.detach().cpu()
    if host.dtype == _C.bfloat16 or host.dtype == _C.float16:
        arr = host.float().numpy()
    else:
        arr = host.numpy()
    body = np.array2string(
        arr, separator=", ", precision=PRINT_OPTS.precision, prefix="tensor(", threshold=PRINT_OPTS.threshold
    )
    suffix = []
    if self.device.type != "cpu":
        suffix.append(f"device='{self.device}'")
    default_kinds = (_C.get_default_dtype(), _C.int64, _C.bool)
    if self.dtype not in default_kinds or self.numel() == 0:
        suffix.append(f"dtype={self.dtype}")
    if self.requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
