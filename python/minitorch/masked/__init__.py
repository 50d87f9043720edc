"""torch.masked: reductions and normalizations that skip masked-out elements, and the MaskedTensor prototype."""

from minitorch.masked import _ops, maskedtensor
from minitorch.masked._ops import (
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logaddexp,
    logsumexp,
    mean,
    median,
    norm,
    normalize,
    prod,
    softmax,
    softmin,
    std,
    sum,
    var,
)
from minitorch.masked.maskedtensor import MaskedTensor, as_masked_tensor, is_masked_tensor, masked_tensor

__all__ = sorted(_ops.__all__ + maskedtensor.__all__)
