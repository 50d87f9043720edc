"""nn.functional's linear and bilinear layers."""

from minitorch import _C, _argcheck
from minitorch._dtype_names import cpp_name

_nn = _C._nn


def linear(input, weight, bias=None):
    try:
        return _nn.linear(input, weight, bias)
    except RuntimeError:
        # ATen's linear is matmul(input, weight.t()) (+ bias) beyond the 2-D weight the C++ op takes: a 1-D
        # weight gives a dot product over the last dim; only refused inputs pay for the check
        if (
            isinstance(input, _C.Tensor)
            and isinstance(weight, _C.Tensor)
            and input.dim() >= 1
            and weight.dim() != 2
        ):
            return _linear_of_other_rank(input, weight, bias)
        raise


def _linear_of_other_rank(input, weight, bias):
    if weight.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {weight.dim()}D")
    if weight.dim() == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.dim()}D and 0D"
        )
    if (
        bias is not None and input.dim() >= 2
    ):  # ATen folds the input to 2-D and takes addmm when it has a bias
        raise RuntimeError("addmm: mat2 must be a matrix, got 1-D tensor")
    out = _C.matmul(input, weight)
    return out if bias is None else out + bias


@_argcheck.parses("Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None")
def bilinear(input1, input2, weight, bias=None):
    # ATen's checks, in its order (each comparison reads the weight's size first: its IndexError when short)
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + (
        [("bias", bias)] if bias is not None else []
    )
    if any(t.dtype != input1.dtype for _, t in named):
        raise RuntimeError(
            "All tensors must have the same dtype, got "
            + ", ".join(f"{n}: {cpp_name(t.dtype)}" for n, t in named)
        )
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} and "
                f"{input2.shape[i]}"
            )
    for what, x, d in (("input1", input1, 1), ("input2", input2, 2)):
        want = weight.size(d)
        got = x.size(x.dim() - 1)
        if got != want:
            raise RuntimeError(
                f"bilinear(): {what} size does not match weight size: got {got} but expected {want}"
            )
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.size(0)} but expected {weight.size(0)}"
        )
    if weight.dim() != 3:
        raise RuntimeError("number of dimensions must match")
    if input1.dtype == _C.bool:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    out = _C.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


# PyTorch's TypeError for an argument of the wrong kind, on the error path only (minitorch/_argcheck.py):
# bilinear is a C++ op in PyTorch (its parser checks every kind)
_argcheck.translate_module(globals(), ["bilinear"])
