"""minitorch.utils.tensorboard: SummaryWriter, which logs scalars, histograms, images, text, hyperparameters and
model graphs to TensorBoard's event files. Needs the `tensorboard` package (the optional extra
`pip install minitorch[tensorboard]`, or `pip install tensorboard`)."""

try:
    import tensorboard as _tensorboard
except ModuleNotFoundError as e:
    if e.name != "tensorboard":
        raise
    raise ModuleNotFoundError(
        "TensorBoard logging requires TensorBoard version 1.15 or above, which is not installed: "
        "pip install tensorboard (or pip install minitorch[tensorboard])",
        name="tensorboard",
    ) from None


def _version_tuple(v):
    out = []
    for part in v.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


if _version_tuple(getattr(_tensorboard, "__version__", "0")) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")
del _tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter

from minitorch.utils.tensorboard.writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
