"""Pointwise, reduction and search functions that PyTorch writes as ATen ops and we compose in Python from our
primitive ops, so autograd and every device come for free; one that a benchmark shows slow gets a kernel of its
own in csrc/."""

import builtins
import inspect
import math
import numbers
import types
import warnings

import numpy as np

from minitorch import _C, _argcheck, _compare, _composite_shape
from minitorch import return_types as _rt
from minitorch._dtype_names import cpp_name, scalar_name
from minitorch._out import write_out
from minitorch.autograd import _jvp_rules
from minitorch.autograd.function import Function as _Function

__all__ = []
# Tensor methods installed by minitorch/__init__.py (name -> function taking the tensor first)
TENSOR_METHODS = {}
# the composites' batching rules (name -> expression over func/_batch_rules.py), declared by _export's vmap=
COMPOSITE_VMAP = {}

# (max, lowest finite) per float dtype: nan_to_num's defaults for +-inf
_FINFO = {
    _C.float32: (3.4028234663852886e38, -3.4028234663852886e38),
    _C.float64: (1.7976931348623157e308, -1.7976931348623157e308),
    _C.float16: (65504.0, -65504.0),
    _C.bfloat16: (3.3895313892515355e38, -3.3895313892515355e38),
}


def _export(fn, method=True, inplace=None, torch_fn=True, jvp=None, vmap=None):
    """Register fn as minitorch.<name> (torch_fn) and Tensor.<name> (method); inplace names an `_` variant.
    jvp and vmap are the composite's forward-mode and batching rules, declared here as csrc/ops/ops.schema
    declares a primitive's `jvp:`/`vmap:` (same language): jvp a row of autograd/_jvp_rules.py (an expression
    over `self`, `t_self`, `result`, or a dict with `args`), vmap an expression over func/_batch_rules.py's
    rules (`pointwise`), which that module reads from COMPOSITE_VMAP."""
    if jvp is not None:
        _jvp_rules.declare(fn.__name__, jvp)
    if vmap is not None:
        COMPOSITE_VMAP[fn.__name__] = vmap
    if torch_fn:
        __all__.append(fn.__name__)
    if method:
        TENSOR_METHODS[fn.__name__] = fn
    if inplace is not None:
        TENSOR_METHODS[inplace.__name__] = inplace
    return fn


def _is_float(t):
    return t.is_floating_point()


def _as_tensor(x, like):
    """A Python scalar as a 0-dim tensor on like's device (0-dim, so it promotes like a scalar would)."""
    if isinstance(x, _C.Tensor):
        return x
    if isinstance(x, builtins.bool):
        dt = _C.bool
    elif isinstance(x, builtins.int):
        dt = _C.int64
    else:
        dt = _C.get_default_dtype()
    return _C.full((), x, dtype=dt, device=like.device)


def _binary(a, b):
    """Both arguments as tensors (at most one of them a Python scalar)."""
    if not isinstance(a, _C.Tensor):
        a = _as_tensor(a, b)
    elif not isinstance(b, _C.Tensor):
        b = _as_tensor(b, a)
    return a, b


def _float_pair(a, b):
    """Both arguments as tensors of their promoted dtype, integers to the default float dtype: a Python number
    joins the tensor's dtype (bfloat16 and 4 compute in bfloat16), a wider tensor widens the other."""
    dt = _C.result_type(a, b)
    dt = dt if dt.is_floating_point else _C.get_default_dtype()
    # a Python number is made in dt itself: through the default float32 it lost its digits (xlogy(x64, 1e-05)
    # took the log of float32's 1e-05)
    if not isinstance(a, _C.Tensor):
        a = _C.full((), a, dtype=dt, device=b.device)
    elif not isinstance(b, _C.Tensor):
        b = _C.full((), b, dtype=dt, device=a.device)
    return a.to(dt), b.to(dt)


# PyTorch's wording of an out of another dtype, for the ops written here that have their own
_QUANTILE_OUT = "quantile() out tensor must be same dtype as the input tensor"
_FLOAT_POWER_OUT = (
    "the output given to float_power has dtype {got} but the operation's result requires dtype {expected}"
)
_NAN_TO_NUM_OUT = "nan_to_num: dtype of out: {got} should be same as input: {expected}"


def _searchsorted_out(out_int32):
    return (
        "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending "
        "on whether out_int32 flag is True, but we got output tensor's dtype {got} and out_int32 flag is "
        f"{bool(out_int32)}"
    )


def _to_float(t):
    """Integral/bool tensors go to the default float dtype, as PyTorch's unary float ops do."""
    return t if _is_float(t) else t.to(_C.get_default_dtype())


def _store(self, result):
    """Write result into self the way PyTorch's in-place ops do: same shape, castable dtype."""
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(result.shape)}"
        )
    if result.dtype != self.dtype and not _C.can_cast(result.dtype, self.dtype):
        raise RuntimeError(
            f"result type {scalar_name(result.dtype)} can't be cast to the desired output type "
            f"{scalar_name(self.dtype)}"
        )
    self.copy_(result)
    return self


def _unwritten(self):
    """self, or a copy of it when autograd records: an in-place op composed as `compute, then write into self`
    must not hand its backward the tensor it is about to overwrite (PyTorch's in-place formulas save the
    original self)."""
    return self.clone() if self.requires_grad and _C.is_grad_enabled() else self


def _not_implemented(op, t):
    """PyTorch's refusal by kernel `op` of t's dtype (t a tensor, or the dtype its kernel dispatched on)."""
    dtype = t if isinstance(t, _C.dtype) else t.dtype
    raise NotImplementedError(f"\"{op}\" not implemented for '{scalar_name(dtype)}'")


def _check_alpha(name, value, *tensors):
    if isinstance(value, builtins.float) and not builtins.any(_is_float(t) for t in tensors):
        raise RuntimeError(
            f"For integral input tensors, argument {name} must not be a floating point number."
        )


def _inplace_of(fn):
    """The `_` variant of an out-of-place fn: compute, then store into self with PyTorch's checks. Where fn
    checks its arguments against PyTorch's signatures (_argcheck.parses), the variant checks them itself, under
    its own name (and, installed as the method, with positions that skip self), and computes with fn's
    unchecked body."""
    parse = getattr(fn, "_parse", None)
    compute = fn.__wrapped__ if parse is not None else fn

    def inplace(self, *args, **kwargs):
        if not isinstance(
            self, _C.Tensor
        ):  # the torch.* spelling (torch.addmv_(2)): PyTorch's parser refuses it
            raise TypeError(
                f"{inplace.__name__}(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}"
            )
        # Under autograd the composite's nodes may save self, which the store then overwrites (backward would
        # refuse the modified version): they read a copy instead, as PyTorch's in-place kernels save the
        # original
        src = self.clone() if self.requires_grad and _C.is_grad_enabled() else self
        return _store(self, compute(src, *args, **kwargs))

    inplace.__name__ = fn.__name__ + "_"
    inplace.__doc__ = f"In-place version of {fn.__name__}."
    # fn's parameters, so _argcheck names a wrong argument as PyTorch's parser does for the in-place method too
    inplace.__signature__ = inspect.signature(fn)
    if parse is not None:
        sigs = [[p for p in params if p.name != "out"] for params in parse["sigs"]]  # in place: no out=
        return _argcheck.parsing(
            inplace, sigs, inplace.__name__, parse["method"], parse["upfront"], parse["positional"]
        )
    return inplace


def _export_with_inplace(fn, method=True, torch_inplace=False, jvp=None, vmap=None):
    ip = _inplace_of(fn)
    _export(fn, method=method, inplace=ip, jvp=jvp, vmap=vmap)
    if torch_inplace:
        __all__.append(ip.__name__)
        globals()[ip.__name__] = ip
    return fn


class _GivenGradient(_Function):
    """A value computed piecewise (its own derivative would be 0 or NaN at the seams) with the gradient
    derivative(grad, x) PyTorch's formula gives everywhere: frexp's mantissa, logit, special.entr."""

    @staticmethod
    def forward(ctx, x, value, derivative, reads_x):
        if reads_x:  # saved only when read: a saved x makes a later in-place write to it fail backward
            ctx.save_for_backward(x)
        ctx.derivative = derivative
        return value

    @staticmethod
    def backward(ctx, grad):
        x = ctx.saved_tensors[0] if ctx.saved_tensors else None
        return ctx.derivative(grad, x), None, None, None


def _with_gradient(x, value, derivative, reads_x=True):
    """value, recorded as a function of x whose backward is derivative(grad, x) (x None when not reads_x); as
    computed when x needs no gradient."""
    if x.requires_grad and _C.is_grad_enabled():
        return _GivenGradient.apply(x, value, derivative, reads_x)
    return value


# ---------------------------------------------------------------------------------------------- pointwise


def square(input):
    """input * input (bool stays an integer-valued result as in PyTorch: int64)."""
    if input.dtype == _C.bool:
        input = input.to(_C.int64)
    return _C.mul(input, input)


_export_with_inplace(square, torch_inplace=True, jvp="2 * t_self * self", vmap="pointwise")


_tensors_result_type = _composite_shape._tensors_result_type


def _common(input, tensor1, tensor2):
    """The three operands of addcmul/addcdiv in their common dtype, as PyTorch's kernel computes (tensor1 *
    tensor2 of an int32 and a float32 with a float64 input is a float64 product); as given when they agree."""
    if input.dtype == tensor1.dtype == tensor2.dtype:
        return input, tensor1, tensor2
    dt = _tensors_result_type(input, tensor1, tensor2)
    return input.to(dt), tensor1.to(dt), tensor2.to(dt)


def _fused_addc(input, tensor1, tensor2, value):
    """Whether addcmul/addcdiv of these (common-dtype) operands take the one-pass kernel (_C._addc): a floating
    dtype, one device, a real number value, no gradient recorded."""
    return (
        _is_float(input)
        and type(value) in (builtins.int, builtins.float)
        and tensor1.device == input.device == tensor2.device
        and not (
            _C.is_grad_enabled() and (input.requires_grad or tensor1.requires_grad or tensor2.requires_grad)
        )
    )


def _addc_written(r, out, div):
    """A fused addc result through write_out's checks into out; None: the kernel wrote out itself."""
    return out if r is None else write_out(r, out, "addcdiv" if div else "addcmul", "castable")


def _addc(input, tensor1, tensor2, value, div, out):
    """The fused kernel's result, through write_out's checks into out; a plain out that requires no grad, of
    the result's shape and dtype and sharing no memory with an input, is written by the kernel itself."""
    if out is not None and type(out) is _C.Tensor and not out.requires_grad:
        return _addc_written(_C._addc_out(out, input, tensor1, tensor2, value, div), out, div)
    return _addc_written(_C._addc(input, tensor1, tensor2, value, div), out, div)


def _addc_direct(input, tensor1, tensor2, value, div, out):
    """The fused kernel ahead of the front end's promotion and checks (_C._addc_direct: plain operands of one
    float dtype, a plain number value): the result (written into out where given), or None where the front
    end must run."""
    r = _C._addc_direct(out, input, tensor1, tensor2, value, div)
    if r is False:
        return None
    return r if out is None else _addc_written(r, out, div)


# addcmul/addcdiv's signatures as PyTorch's parser reads them; their deprecated (input, value, tensor1,
# tensor2) forms are _argcheck.DEPRECATED's
_ADDC = "Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor? out=None"
_ADDC_ = "Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1"


def _addc_value(value):
    """PyTorch's addcmul/addcdiv kernels read value as a number of the result's dtype: a bool is 0 or 1 there
    (add's alpha refuses a bool for a non-bool result)"""
    if type(value) is builtins.bool or (isinstance(value, _C.Tensor) and value.dtype == _C.bool):
        return builtins.int(value)
    return value


@_argcheck.parses(_ADDC, upfront=False)
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """input + value * tensor1 * tensor2."""
    if (r := _addc_direct(input, tensor1, tensor2, value, False, out)) is not None:
        return r
    value = _addc_value(value)
    if isinstance(value, builtins.float) and not builtins.any(
        _is_float(t) or t.is_complex() for t in (input, tensor1, tensor2)
    ):
        value = builtins.int(value)  # PyTorch converts the scalar to the integral result type
    input, tensor1, tensor2 = _common(input, tensor1, tensor2)
    dt = input.dtype
    if _fused_addc(input, tensor1, tensor2, value):
        return _addc(input, tensor1, tensor2, value, False, out)
    if dt == _C.bool:  # PyTorch's kernel has no bool case
        _not_implemented("addcmul_cuda" if input.is_cuda else "addcmul_cpu_out", input)
    if dt in (_C.float16, _C.bfloat16):  # in float, rounded once, as PyTorch's opmath kernel (a float16
        input, tensor1, tensor2 = input.float(), tensor1.float(), tensor2.float()  # product overflowed)
    r = _C.add(input, _C.mul(tensor1, tensor2), alpha=value).to(dt)
    return write_out(r, out, "addcmul", "castable")


def _foreach_fusable(self, tensor1, tensor2):
    """Whether the one-kernel _foreach_addc*_ update applies: same float dtype, shape and device, no autograd."""
    return (
        _is_float(self)
        and tensor1.dtype == self.dtype == tensor2.dtype
        and tuple(tensor1.shape) == tuple(self.shape) == tuple(tensor2.shape)
        and tensor1.device == self.device == tensor2.device
        and not (
            _C.is_grad_enabled() and (self.requires_grad or tensor1.requires_grad or tensor2.requires_grad)
        )
    )


@_argcheck.parses(_ADDC_, name="addcmul_", upfront=False)
def addcmul_(self, tensor1, tensor2, *, value=1):
    """In-place addcmul: self += value * tensor1 * tensor2 (one fused kernel when no autograd is involved)."""
    if _foreach_fusable(self, tensor1, tensor2):
        _C._foreach_addcmul_([self], [tensor1], [tensor2], value)
        return self
    return _store(self, addcmul(self, tensor1, tensor2, value=value))


_export(addcmul, inplace=addcmul_)

_ADDCDIV_INT = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
    "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value "
    "* torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
    "tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value "
    "* tensor1 / tensor2), for all dtypes."
)


@_argcheck.parses(_ADDC, upfront=False)
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """input + value * tensor1 / tensor2 (true division; integral tensor1 and tensor2 are refused)."""
    if (r := _addc_direct(input, tensor1, tensor2, value, True, out)) is not None:
        return r
    value = _addc_value(value)
    if not _is_float(tensor1) and not _is_float(tensor2):
        raise RuntimeError(_ADDCDIV_INT)
    input, tensor1, tensor2 = _common(input, tensor1, tensor2)
    dt = input.dtype
    if _fused_addc(input, tensor1, tensor2, value):
        return _addc(input, tensor1, tensor2, value, True, out)
    if dt in (_C.float16, _C.bfloat16):  # in float, rounded once, as addcmul
        input, tensor1, tensor2 = input.float(), tensor1.float(), tensor2.float()
    r = _C.add(input, _C.div(tensor1, tensor2), alpha=value).to(dt)
    return write_out(r, out, "addcdiv", "castable")


@_argcheck.parses(_ADDC_, name="addcdiv_", upfront=False)
def addcdiv_(self, tensor1, tensor2, *, value=1):
    """In-place addcdiv: self += value * tensor1 / tensor2 (fused when no autograd is involved)."""
    if not _is_float(tensor1) and not _is_float(tensor2):
        raise RuntimeError(_ADDCDIV_INT)
    if _foreach_fusable(self, tensor1, tensor2):
        _C._foreach_addcdiv_([self], [tensor1], [tensor2], value)
        return self
    return _store(self, addcdiv(self, tensor1, tensor2, value=value))


_export(addcdiv, inplace=addcdiv_)


def _integral_scales(input, prod, beta, alpha, k, scales_self_first):
    """The scales PyTorch's integer and bool GEMM kernels read (baddbmm, addbmm): ops/linalg.h's
    integral_gemm_scales, the rule addmm and addmv follow in C++ (k: the contraction's length)."""
    if _is_float(input) or _is_float(prod) or (input.dtype == _C.bool) != (prod.dtype == _C.bool):
        return beta, alpha
    # a 0-d tensor given for a Scalar is its number (PyTorch's parser), not an operand that promotes
    beta, alpha = (v.item() if isinstance(v, _C.Tensor) else v for v in (beta, alpha))
    used = prod.numel() > 0
    return _C._gemm_scales(
        prod.dtype, beta, alpha, used, used and k > 0, used and k == 0 and scales_self_first
    )


def _beta_alpha(input, prod, beta, alpha, k=None, *, integral_checked=False):
    """beta * input + alpha * prod, with input ignored (NaNs included) when beta == 0, as BLAS does. Integer
    products take floating scales as their kernels do (_integral_scales; k the contraction's length, over
    which an empty one scales input first), except where PyTorch's kernel refuses them (integral_checked:
    addr's)."""
    if integral_checked:
        _check_alpha("alpha", alpha, input, prod)
        _check_alpha("beta", beta, input, prod)
    else:
        beta, alpha = _integral_scales(input, prod, beta, alpha, k, True)
    if input.dtype == _C.bool and prod.dtype == _C.bool:
        # PyTorch's bool kernel: an int scale is a bool
        alpha, beta = builtins.bool(alpha), builtins.bool(beta)
    if alpha == 0:  # BLAS reads neither factor then: inf or NaN in them does not reach the result
        prod = _C.zeros_like(prod)
    elif alpha != 1:
        prod = _C.mul(prod, alpha)
    if beta == 0:
        # zeros in input's dtype and shape keep PyTorch's promotion and broadcasting without reading input
        return _C.add(prod, _C.zeros_like(input))
    return _C.add(prod, input if beta == 1 else _C.mul(input, beta))


def _expand_for_bmm(input, batch1, batch2, batched):
    """PyTorch's order of checks before a batched product: every argument a tensor (`translating` turns the
    AttributeError into its parser's TypeError), the result's sizes read from batch1 and batch2 (IndexError for
    too few dims), input expanded to them; the 3-D checks come after."""
    input.dim, batch1.dim, batch2.dim  # noqa: B018
    shape = (batch1.size(0), batch1.size(1), batch2.size(2)) if batched else (batch1.size(1), batch2.size(2))
    if input.shape != shape:
        input.expand(shape)


# baddbmm/addbmm/addmv/addr's signature as PyTorch's parser reads it (their deprecated scalars-first forms are
# _argcheck.DEPRECATED's)
_SCALED = "Tensor input, Tensor {}, Tensor {}, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None"


@_argcheck.parses(_SCALED.format("batch1", "batch2"), upfront=False)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * (batch1 @ batch2), batched over dim 0."""
    # an out the product fits: the GEMM writes it (bind_out.cpp's _scaled_gemm_out), else the checks below
    same = input.dtype == batch1.dtype
    if out is not None and same and _C._scaled_gemm_out(out, input, batch1, batch2, beta, alpha):
        return out
    _expand_for_bmm(input, batch1, batch2, True)
    if not same:  # ATen's baddbmm meta check: self and batch1 only (a different batch2 is bmm's error)
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {cpp_name(input.dtype)}, batch1: "
            f"{cpp_name(batch1.dtype)}, batch2: {cpp_name(batch2.dtype)}"
        )
    try:
        prod = _C.bmm(batch1, batch2)
    except NotImplementedError as e:  # the kernel PyTorch dispatches to is baddbmm's own
        raise NotImplementedError(str(e).replace('"bmm"', '"baddbmm"', 1)) from None
    r = _beta_alpha(input, prod, beta, alpha, batch1.shape[-1])
    return write_out(r, out, "baddbmm")


@_argcheck.parses(_SCALED.format("batch1", "batch2"), upfront=False)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * sum_b(batch1[b] @ batch2[b]), as one matmul over the concatenated inner dim."""
    _expand_for_bmm(input, batch1, batch2, False)
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError(
            "batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor"
        )
    b, n, k = batch1.shape
    if batch2.shape[0] != b:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {b} and {batch2.shape[0]}"
        )
    if batch2.shape[1] != k:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({n}x{k} and {batch2.shape[1]}x{batch2.shape[2]})"
        )
    if b:  # ATen adds one batch at a time with addmm_ into the result: addmm's dtype checks, result first
        for x, y, names in (
            ((out if out is not None else input), batch2, "self and mat2"),
            (batch1, batch2, "mat1 and mat2"),
        ):
            if x.dtype != y.dtype:
                raise RuntimeError(
                    f"{names} must have the same dtype, but got {scalar_name(x.dtype)} and {scalar_name(y.dtype)}"
                )
    m1 = batch1.permute(1, 0, 2).reshape(n, b * k)
    m2 = batch2.reshape(b * k, batch2.shape[2])
    prod = _C.mm(m1, m2)
    if out is not None:  # ATen copies input into the result first: everything is in out's dtype
        input, prod = input.to(out.dtype), prod.to(out.dtype)
    r = _beta_alpha(input, prod, beta, alpha, b * k)
    return write_out(r, out, "addbmm", warn_resize=False)


@_argcheck.parses(_SCALED.format("mat", "vec"), name="addmv", upfront=False)
def _addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """addmv's body for its in-place forms (Tensor.addmv_, minitorch.addmv_; addmv itself is the ops.schema
    row): PyTorch's size check of self against the result after addmv's own checks."""
    r = _C.addmv(input, mat, vec, beta=beta, alpha=alpha)
    if r.shape != input.shape:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(input.shape)} and output tensor size {list(r.shape)} "
            "should match"
        )
    return r


@_argcheck.parses(_SCALED.format("vec1", "vec2"), upfront=False)
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2)."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    # PyTorch expands input to the product's shape: it never broadcasts the result past it
    input = input.expand(vec1.shape[0], vec2.shape[0])
    if _C.promote_types(input.dtype, _C.promote_types(vec1.dtype, vec2.dtype)) != _C.bool:
        for name, v in (("beta", beta), ("alpha", alpha)):  # addr's kernel's own check, beta first
            if isinstance(v, builtins.bool):
                raise RuntimeError(f"Boolean {name} only supported for Boolean results.")  # noqa: TRY004
    r = _beta_alpha(input, _C.outer(vec1, vec2), beta, alpha, integral_checked=True)
    return write_out(r, out, "addr", "castable")


for _f in (baddbmm, addbmm, addr):
    _export_with_inplace(_f)
_addmv.__name__ = "addmv"
addmv_ = _inplace_of(_addmv)
TENSOR_METHODS["addmv_"] = addmv_
__all__.append("addmv_")


def _bcast(a, b):
    shape = _composite_shape._broadcast_sizes(a.shape, b.shape)
    return a.expand(shape), b.expand(shape)


# xlogy is a schema op (csrc/ops/ops.schema); the distributions and special reach it here
xlogy = _C.xlogy


@_argcheck.parses("Tensor input, Tensor other, *, Tensor out=None")
def hypot(input, other, *, out=None):
    """sqrt(input**2 + other**2), elementwise, scaled by the larger magnitude so that it overflows only where
    the result does (float32 hypot(3e20, 4e20) = 5e20, as C's and PyTorch's); an infinite side gives inf even
    beside NaN."""
    # PyTorch's kernel dispatches on the common dtype (float16 with int64 runs)
    dt = _C.result_type(input, other)
    if not dt.is_floating_point:
        _not_implemented("hypot_cuda" if input.is_cuda else "hypot_cpu", dt)
    # one pass (kernels/functors.h Hypot); half precision computes in float32 and rounds once, as PyTorch's
    # kernel (its opmath type)
    return write_out(_C._hypot(input.to(dt), other.to(dt)), out, "hypot", "castable")


_export_with_inplace(hypot)


@_argcheck.parses("Tensor input, Tensor other, *, Tensor out=None")
def fmax(input, other, *, out=None):
    """Elementwise maximum that ignores a NaN when the other value is a number (one pass: functors.h Fmax)."""
    return write_out(_C._fmax(input, other), out, "fmax", "castable")


@_argcheck.parses("Tensor input, Tensor other, *, Tensor out=None")
def fmin(input, other, *, out=None):
    """Elementwise minimum that ignores a NaN when the other value is a number (one pass: functors.h Fmin)."""
    return write_out(_C._fmin(input, other), out, "fmin", "castable")


_fmax_parsed, _fmin_parsed = fmax, fmin


# The usual calls (tensors, no out=) go straight to the kernels, which promote and refuse complex in PyTorch's
# words: the parser's checks cost 1.5-2 us of a 3.3 us call at 8x8 (PyTorch's whole call: 1.4 us)
def fmax(input, other, *, out=None):
    """Elementwise maximum that ignores a NaN when the other value is a number."""
    if out is None and type(input) is _C.Tensor and type(other) is _C.Tensor:
        return _C._fmax(input, other)
    # (out= only when given: the parser's message lists the arguments as passed)
    return _fmax_parsed(input, other) if out is None else _fmax_parsed(input, other, out=out)


def fmin(input, other, *, out=None):
    """Elementwise minimum that ignores a NaN when the other value is a number."""
    if out is None and type(input) is _C.Tensor and type(other) is _C.Tensor:
        return _C._fmin(input, other)
    # (out= only when given: the parser's message lists the arguments as passed)
    return _fmin_parsed(input, other) if out is None else _fmin_parsed(input, other, out=out)


_export(fmax)
_export(fmin)


@_argcheck.parses("Tensor input, *, Tensor out=None")
def signbit(input, *, out=None):
    """True where the sign bit is set (negative numbers, -0.0 and a NaN with its sign bit set, as PyTorch's
    std::signbit; never for unsigned and bool): one pass (functors.h SignBit), which refuses complex."""
    r = _C._signbit(input)
    if out is not None and out.dtype != _C.bool:
        raise RuntimeError("signbit does not support non-boolean outputs.")
    return write_out(r, out, "signbit")


_signbit_parsed = signbit


def signbit(input, *, out=None):
    """True where the sign bit is set (negative numbers, -0.0 and a NaN with its sign bit set)."""
    if out is None and type(input) is _C.Tensor:  # the usual call: the kernel's own (its parser was 1 us)
        return _C._signbit(input)
    # (out= only when given: the parser's message lists the arguments as passed)
    return _signbit_parsed(input) if out is None else _signbit_parsed(input, out=out)


_export(signbit)


# checked before the call: a number for input would otherwise be computed
@_argcheck.parses(
    "Tensor input, Tensor other, *, Tensor out=None", "Tensor input, Scalar other, *, Tensor out=None"
)
def copysign(input, other, *, out=None):
    """|input| with the sign of other (float result)."""
    # PyTorch's result_type of (input, other), integers to the default float dtype: a 0-dim or bool other
    # does not widen a tensor's float dtype
    dt = _C.result_type(input, other)
    if dt.is_complex:
        _not_implemented("copysign_cuda" if input.is_cuda else "copysign_cpu", dt)
    dt = dt if dt.is_floating_point else _C.get_default_dtype()
    x, y = _binary(input, other)
    # one pass (kernels/functors.h Copysign)
    return write_out(_C._copysign(x.to(dt), y.to(dt)), out, "copysign", "castable")


_copysign_parsed = copysign


def copysign(input, other, *, out=None):
    """|input| with the sign of other (float result)."""
    # the usual calls are the kernel's own: two tensors of one floating dtype (the parser, result_type and the
    # casts were 2.2 of its 3.5 us at 8x8; PyTorch's whole call: 1.3 us), or a floating tensor and a float or
    # int, which keeps the tensor's dtype and reaches the binary row as the number itself (the parsed path's
    # 0-dim tensor and two casts cost 0.48 of PyTorch's call at 8x8)
    if (
        out is None
        and type(input) is _C.Tensor
        and input.is_floating_point()
        and ((type(other) is _C.Tensor and input.dtype is other.dtype) or type(other) in (float, int))
    ):
        return _C._copysign(input, other)
    # (out= only when given: the parser's message lists the arguments as passed)
    return _copysign_parsed(input, other) if out is None else _copysign_parsed(input, other, out=out)


_export(copysign, inplace=_inplace_of(_copysign_parsed))


def _sgn(input):
    return _C.sgn(input)


_sgn.__name__ = "sgn"
# torch.sgn / Tensor.sgn are the extension's (ops/complex.h); only the in-place form is composed here
TENSOR_METHODS["sgn_"] = _inplace_of(_sgn)


_COMPLEX_OUT = "Expected object of scalar type {expected} but got scalar type {got} for argument 'out'"


@_argcheck.parses("Tensor real, Tensor imag, *, Tensor out=None", upfront=False)
def complex(real, imag, *, out=None):
    """real + i imag, broadcast, from two float tensors of one dtype (float32 -> complex64, float64 -> complex128)."""
    return write_out(_C._complex(real, imag), out, "complex", dtype_error=_COMPLEX_OUT)


@_argcheck.parses("Tensor abs, Tensor angle, *, Tensor out=None", upfront=False)
def polar(abs, angle, *, out=None):
    """abs * (cos(angle) + i sin(angle)), broadcast, from two float tensors of one dtype."""
    return write_out(_C._polar(abs, angle), out, "polar", dtype_error=_COMPLEX_OUT)


_export(complex, method=False)
_export(polar, method=False)


@_argcheck.parses("Tensor input, Tensor values, *, Tensor out=None")
def heaviside(input, values, *, out=None):
    """0 where input < 0 (and at NaN), values where input == 0, 1 where input > 0: one pass (kernels/functors.h
    Heaviside), whose row refuses complex and mixed dtypes (out's included) as PyTorch does."""
    if out is None:
        return _C._heaviside(input, values)
    return _C._heaviside(input, values, out=out)


_export_with_inplace(heaviside)


# frac is a schema op (csrc/ops/ops.schema)


def fix(input):
    """Round toward zero (trunc)."""
    return _C.trunc(input)


def deg2rad(input):
    """Degrees to radians."""
    return _C.mul(_to_float(input), math.pi / 180.0)


def rad2deg(input):
    """Radians to degrees."""
    return _C.mul(_to_float(input), 180.0 / math.pi)


_export_with_inplace(fix, torch_inplace=True, jvp="zeros_like(result)", vmap="pointwise")
_export_with_inplace(deg2rad, torch_inplace=True, jvp="t_self * (math.pi / 180.0)", vmap="pointwise")
_export_with_inplace(rad2deg, jvp="t_self * (180.0 / math.pi)", vmap="pointwise")


def float_power(input, exponent, *, out=None):
    """input ** exponent computed in float64 (complex128 for a complex operand)."""
    cplx = builtins.any(
        v.is_complex() if isinstance(v, _C.Tensor) else isinstance(v, builtins.complex)
        for v in (input, exponent)
    )
    dt = _C.complex128 if cplx else _C.float64
    if isinstance(input, _C.Tensor):
        r = _C.pow(input.to(dt), exponent.to(dt) if isinstance(exponent, _C.Tensor) else exponent)
    else:
        r = _C.pow(builtins.complex(input) if cplx else builtins.float(input), exponent.to(dt))
    return write_out(r, out, "pow", dtype_error=_FLOAT_POWER_OUT)


_FLOAT_POWER_SIGS = ("Tensor exponent", "Scalar exponent")


def float_power_(self, exponent):
    """In-place float_power; self must already be float64."""
    if not isinstance(exponent, (_C.Tensor, numbers.Number)):  # the parser's two overloads, before the dtype
        _argcheck.check_call("float_power_", _FLOAT_POWER_SIGS, (exponent,), {})
    if self.dtype != _C.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {scalar_name(self.dtype)} but the operation's result "
            "requires dtype Double"
        )
    return _store(self, float_power(_unwritten(self), exponent))


_export(float_power, inplace=float_power_)


@_argcheck.parses(
    "Tensor input, float? nan=None, float? posinf=None, float? neginf=None, *, Tensor? out=None"
)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """NaN -> nan (None: 0), +inf -> posinf (default: dtype's max), -inf -> neginf (default: dtype's lowest); complex
    tensors have each part replaced on its own, with the limits of the part's dtype."""
    lim = _FINFO.get(input.dtype)
    if lim is not None and posinf is None and neginf is None and out is None and not input.requires_grad:
        # the usual call in one step (the checks below were 1.3 of a 9.4 us call on 256x256 float32)
        return _C._nan_to_num(input, 0.0 if nan is None else builtins.float(nan), lim[0], lim[1])
    if input.is_complex():
        r = _C._complex(
            nan_to_num(_C.real(input), nan, posinf, neginf), nan_to_num(_C.imag(input), nan, posinf, neginf)
        )
    elif not _is_float(input):
        r = input.clone()
    else:
        nan = 0.0 if nan is None else nan
        hi, lo = _FINFO[input.dtype]
        if not (input.requires_grad and _C.is_grad_enabled()):
            # one pass (PyTorch's kernel; the values converted to the dtype, out-of-range ones to +-inf)
            r = _C._nan_to_num(
                input, builtins.float(nan), hi if posinf is None else posinf, lo if neginf is None else neginf
            )
            return write_out(r, out, "nan_to_num", dtype_error=_NAN_TO_NUM_OUT)
        if posinf is None and neginf is None:
            # the usual call: the infinities clamp to the dtype's limits; finite values (the dtype's limits too)
            # keep their gradient, as PyTorch's grad * isfinite(x) (clamp by a number passes none at a bound)
            r = _C._where(_C.isnan(input), nan, _C.clamp(input, lo, hi))
            r = _C._where(_C.isfinite(input), input, r)
            return write_out(r, out, "nan_to_num", dtype_error=_NAN_TO_NUM_OUT)
        r = _C.masked_fill(input, _C.isnan(input), nan)
        r = _C.masked_fill(r, _C.eq(input, math.inf), hi if posinf is None else posinf)
        r = _C.masked_fill(r, _C.eq(input, -math.inf), lo if neginf is None else neginf)
    return write_out(r, out, "nan_to_num", dtype_error=_NAN_TO_NUM_OUT)


_export_with_inplace(nan_to_num, torch_inplace=True)


def logit(input, eps=None, *, out=None):
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given (a negative eps: none, as PyTorch)."""
    if (
        out is None
        and type(input) is _C.Tensor
        and (eps is None or type(eps) is builtins.float)
        and (input.dtype is _C.float32 or input.dtype is _C.float64)
        and not (input.requires_grad and _C.is_grad_enabled())
    ):
        # the usual call: one pass (functors.h Logit; the three-op composite and its checks were 4-9 us at 8x8
        # against PyTorch's 1.6)
        return _C._logit(input, -1.0 if eps is None else eps)
    if isinstance(eps, _C.Tensor) and eps.dim() == 0 and not eps.requires_grad:
        eps = eps.item()  # PyTorch's parser takes a 0-dim tensor for a float
    if isinstance(eps, (_C.Tensor, str, list, tuple)):
        raise TypeError(f"logit(): argument 'eps' (position 2) must be float, not {type(eps).__name__}")
    if input.is_complex():
        _not_implemented("logit_cuda" if input.is_cuda else "logit_cpu", input)
    x = _to_float(input)
    eps = None if eps is None else float(eps)
    p = x.detach()
    if p.dtype == _C.float32 or p.dtype == _C.float64:
        value = _C._logit(p, -1.0 if eps is None else eps)
    else:
        # float16/bfloat16: op by op, each rounding to the dtype as PyTorch's kernel does
        if eps is not None and eps >= 0:
            # PyTorch's order: below eps goes to eps, else above 1 - eps to 1 - eps (eps > 0.5 crosses the
            # bounds; a clamp would let the upper bound win); NaN passes through
            lo = _C.full((), eps, dtype=p.dtype, device=p.device)
            hi = _C.rsub(lo, 1.0)
            p = _C._where(_C.lt(p, lo), lo, _C._where(_C.gt(p, hi), hi, p))
        value = _C.log(_C.div(p, _C.rsub(p, 1.0)))
    # PyTorch's LogitBackward: grad / (x (1 - x)) of the unclamped input (inf at 0 and 1), NaN outside [0, 1]
    # without eps (or a negative one), else 0 unless eps <= x <= 1 - eps, as its vectorized loop tests (so a
    # NaN input or a NaN eps gives 0; its scalar tail, under 8 elements, passes a NaN eps's gradient
    # unmasked) (logit_ reaches here with a copy of self: _inplace_of)
    if eps is None or eps < 0:

        def derivative(grad, x):
            g = _C.div(grad, _C.mul(x, _C.rsub(x, 1.0)))
            return _C._where(_C.logical_or(_C.lt(x, 0.0), _C.gt(x, 1.0)), math.nan, g)

    else:
        lo, hi = eps, 1.0 - eps

        def derivative(grad, x):
            g = _C.div(grad, _C.mul(x, _C.rsub(x, 1.0)))
            return _C._where(_C.logical_and(_C.ge(x, lo), _C.le(x, hi)), g, 0.0)

    return write_out(_with_gradient(x, value, derivative), out, "logit", "castable")


_export_with_inplace(logit, torch_inplace=True)


def positive(input):
    """input itself (refused for bool, as PyTorch's unary +)."""
    if input.dtype == _C.bool:
        raise NotImplementedError("The `+` operator, on a bool tensor is not supported.")
    return input


def isposinf(input):
    """True where input is +inf."""
    if not _is_float(input):
        return _C.zeros_like(input, dtype=_C.bool)
    return _C.eq(input, math.inf)


def isneginf(input):
    """True where input is -inf."""
    if not _is_float(input):
        return _C.zeros_like(input, dtype=_C.bool)
    return _C.eq(input, -math.inf)


def isreal(input):
    """True where the imaginary part is 0 (everywhere for real tensors, NaN real parts included)."""
    if input.is_complex():
        return _C.eq(_C.imag(input), 0)
    return _C.ones_like(input, dtype=_C.bool)


def cfloat(self, memory_format=None):
    """self as complex64 (Tensor.cfloat)."""
    return (
        self.to(_C.complex64) if memory_format is None else self.to(_C.complex64, memory_format=memory_format)
    )


def cdouble(self, memory_format=None):
    """self as complex128 (Tensor.cdouble)."""
    return (
        self.to(_C.complex128)
        if memory_format is None
        else self.to(_C.complex128, memory_format=memory_format)
    )


TENSOR_METHODS["cfloat"] = cfloat
TENSOR_METHODS["cdouble"] = cdouble


_export(positive, jvp={"jvp": "t_self", "dual_term": "linear"}, vmap="pointwise")
for _f in (isposinf, isneginf, isreal):
    _export(_f, vmap="pointwise")


def ldexp(input, other):
    """input * 2**other, in result_type(input, other) (integers to the default float dtype)."""
    for name, pos, v in (("input", 1, input), ("other", 2, other)):
        if not isinstance(v, _C.Tensor):
            raise TypeError(
                f"ldexp(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}"
            )
    dt = _C.result_type(input, other)
    if not dt.is_floating_point:
        # integer operands: PyTorch's input * pow(2.0, other), in the default float dtype
        dt = _C.get_default_dtype()
        return _C.mul(input.to(dt), _C.pow(2.0, other.to(dt)))
    if _is_float(other):
        # PyTorch's input * pow(2.0, other), as measured on 2.15: the power rounds in other's dtype (a bfloat16
        # exponent of 2.25 gives 4.75, not 4.7568, even for a float32 input), except that a 0-dim exponent with
        # a float64 result has its power taken in float64
        if other.dim() == 0 and dt == _C.float64:
            return _C.mul(input.to(dt), _C.pow(2.0, other.to(dt)))
        return _C.mul(input, _C.pow(2.0, other))
    if other.dtype == _C.bool:
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    # a float times 2**k for an integer k is exact (C's ldexp): 2**k in three same-signed factors each inside
    # the compute type's range, so 0 * 2**2000 stays 0 and 1e-30 * 2**150 is finite
    ct = _C.float64 if dt == _C.float64 else _C.float32
    lim = 2200 if ct == _C.float64 else 330
    k = _C.clamp(other.to(_C.int64), -lim, lim)
    a = _C.div(k, 3, rounding_mode="trunc")
    b = _C.div(k - a, 2, rounding_mode="trunc")
    r = input.to(ct)
    for e in (a, b, k - a - b):
        r = _C.mul(r, _C.pow(2.0, e.to(ct)))
    return r.to(dt)


_export_with_inplace(ldexp, torch_inplace=True)


@_argcheck.parses("Tensor input, Tensor other, *, Tensor out=None", upfront=False)
def gcd(input, other):
    """Elementwise greatest common divisor of integer tensors (gcd(0, 0) == 0)."""
    # PyTorch's kernel dispatches on the common dtype: an int32 with a bool is int32 and computed
    common = _C.result_type(input, other)
    if common.is_floating_point or common.is_complex or common == _C.bool:
        _not_implemented("gcd_cuda" if input.is_cuda else "gcd_cpu", common)
    a, b = _bcast(_C.abs(input.to(common)), _C.abs(other.to(common)))
    # Euclid on the whole tensor; the loop runs O(log max) times, not once per element
    while b.numel() and _C.any(_C.ne(b, 0)).item():
        nz = _C.ne(b, 0)
        a, b = _C._where(nz, b, a), _C._where(nz, _C.remainder(a, _C._where(nz, b, 1)), 0)
    return a


@_argcheck.parses("Tensor input, Tensor other, *, Tensor out=None", upfront=False)
def lcm(input, other):
    """Elementwise least common multiple of integer tensors (0 if either is 0)."""
    g = gcd(input, other)
    # C's arithmetic, as PyTorch's abs(a / g * b): types narrower than int multiply and take abs in int, then
    # wrap once into the dtype (int8 lcm(127, -2) is abs(-254) = 254 -> -2); int32/int64 wrap in the multiply
    wide = _C.int32 if g.dtype in (_C.int8, _C.uint8, _C.int16) else g.dtype
    q = _C.floor_divide(_C.abs(input.to(wide)), _C._where(_C.eq(g, 0), 1, g).to(wide))
    return _C.abs(_C.mul(q, other.to(wide))).to(g.dtype)


_export_with_inplace(gcd, torch_inplace=True)
_export_with_inplace(lcm, torch_inplace=True)

TENSOR_METHODS["isclose"] = _compare._isclose_method
TENSOR_METHODS["allclose"] = _compare._allclose_method
TENSOR_METHODS["equal"] = _compare.equal

# ---------------------------------------------------------------------------------------------- reductions


@_argcheck.parses("Tensor input, *, int? dim=None, bool keepdim=False")
def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) of input, over everything or along dim, as return_types.aminmax."""
    # PyTorch's kernel refuses complex before it reads the dim or the sizes
    if input.is_complex():
        raise TypeError(f"aminmax not implemented for {scalar_name(input.dtype)}")
    if input.numel() == 0 and dim is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
        )
    if input.numel() == 0 and input.dim() > 0 and input.shape[dim] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dim % input.dim()} to have non-zero size.")
    if dim is None:
        return _rt.aminmax(_C.amin(input, None, keepdim), _C.amax(input, None, keepdim))
    return _rt.aminmax(_C.amin(input, dim, keepdim), _C.amax(input, dim, keepdim))


_export(aminmax)


def _shift(x, s, fill, dim=-1):
    """x moved s places toward the end of dim (the last by default), the vacated front filled with `fill`."""
    n = x.shape[dim]
    shape = list(x.shape)
    shape[dim] = s
    pad = _C.full(shape, fill, dtype=x.dtype, device=x.device)
    return _C.cat([pad, x.narrow(dim, 0, n - s)], dim)


def _cum_extreme(name, input, dim, is_max):
    if input.dim() == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    values, idx = _C._cum_extreme(input.detach(), dim, is_max)
    if input.requires_grad and _C.is_grad_enabled():
        # PyTorch's CummaxBackward: each gradient goes to the element its running value came from, which is
        # gather's backward at the indices
        flat = input.dim() == 0
        values = _C.gather(
            input.reshape(1) if flat else input, 0 if flat else dim, idx.reshape(1) if flat else idx
        )
        values = values.reshape(()) if flat else values
    return values, idx


class _NoGrad:
    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


@_argcheck.parses("Tensor input, int dim")
def cummax(input, dim):
    """Running maximum along dim and the index where it was reached, as return_types.cummax (a kernel: a later
    equal value takes the index, NaN beats every number)."""
    return _rt.cummax(*_cum_extreme("cummax", input, dim, True))


@_argcheck.parses("Tensor input, int dim")
def cummin(input, dim):
    """Running minimum along dim and the index where it was reached, as return_types.cummin."""
    return _rt.cummin(*_cum_extreme("cummin", input, dim, False))


_export(cummax)
_export(cummin)


@_argcheck.parses("Tensor input, int dim")
def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along dim: float32/float64 on the CPU in one pass of a C++ kernel (with its own
    gradient), other dtypes and devices by a log2(n)-round scan of logaddexp."""
    dim = _composite_shape._wrap(dim, input.dim())  # PyTorch checks the dim before the dtype
    if not (_is_float(input) or input.is_complex()):
        _not_implemented("logcumsumexp_out_cpu", input)
    if not input.is_cuda and input.dtype in (_C.float32, _C.float64):
        return _C._logcumsumexp(input, dim)
    if input.is_complex():
        x = input.movedim(dim, -1) if input.dim() else input.reshape(1)
        n = x.shape[-1]
        # PyTorch's complex scan runs left to right; the log's branch (the imaginary part, up to 2 pi) depends
        # on which operand of each step has the larger real part, so the doubling scan's pairs would differ
        if n > 1:
            cols = [x[..., 0]]
            for i in range(1, n):
                cols.append(_C.logaddexp(cols[-1], x[..., i]))
            x = _C.stack(cols, -1)
        return x.reshape(()) if input.dim() == 0 else x.movedim(-1, dim)
    # the scan runs along dim of a contiguous copy: every round's operands share one dense layout (a transposed
    # input mixed layouts in each round: 2.5x the time), and the result is contiguous, as PyTorch's
    x = input.contiguous() if input.dim() else input.reshape(1)
    d = dim if input.dim() else 0
    n, s = x.shape[d], 1
    if n <= 1:
        x = x.clone()  # a new tensor, never input itself
    while s < n:
        x = _C.logaddexp(x, _shift(x, s, -math.inf, d))
        s *= 2
    return x.reshape(()) if input.dim() == 0 else x


_export(logcumsumexp)


def _trapz_bool(name, y, x):
    if y.dtype == _C.bool or (isinstance(x, _C.Tensor) and x.dtype == _C.bool):
        which = "`x` or `y`" if isinstance(x, _C.Tensor) else "`y`"
        raise NotImplementedError(f"{name}: received a bool input for {which}, but bool is not supported")


def _trapz_dim(name, y, x, dim):
    """dim wrapped against y, after PyTorch's checks of it: its range and a 0-dim y (cumulative_trapezoid
    refuses bool before either)"""
    if name == "cumulative_trapezoid":
        _trapz_bool(name, y, x)
    y.movedim(dim, -1)  # PyTorch's dim check and its IndexError
    # PyTorch's 0-dim errors: trapezoid asks for the dim's size (wrapped when x is a tensor), the other slices
    if y.dim() == 0:
        if name == "cumulative_trapezoid":
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"Dimension specified as {dim if x is None else 0} but tensor has no dimensions")
    return dim + y.dim() if dim < 0 else dim


def _trapz_setup(name, y, x, d):
    """(y's left and right samples along the wrapped dim d, x's differences or None). PyTorch's bool refusal and
    its view of x: a 1-d x lies along d, a lower-dim x gains leading ones, a higher-dim x is sliced along the
    same dim; the differences then broadcast with y's samples."""
    if name != "cumulative_trapezoid":  # which refused bool before its dims (_trapz_dim)
        _trapz_bool(name, y, x)
    head = (slice(None),) * d
    left, right = y[(*head, slice(None, -1))], y[(*head, slice(1, None))]
    if x is None:
        return left, right, None
    n = y.shape[d]
    if x.dim() == 1:
        if x.shape[0] != n:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[d] = n
        x = x.reshape(shape)
    elif x.dim() < y.dim():
        x = x.reshape([1] * (y.dim() - x.dim()) + list(x.shape))
    return left, right, _C.sub(x[(*head, slice(1, None))], x[(*head, slice(None, -1))])


# PyTorch's formulas (ATen's Integration.cpp), so that dtypes and rounding follow its: a constant spacing
# integrates as (sum - (first + last) / 2) * dx, sample points as sum((left + right) * dx) / 2


# trapezoid's and cumulative_trapezoid's (trapz's dx is a float, listed first)
_TRAPZ_SIGNATURES = ("Tensor y, Tensor x, *, int dim=-1", "Tensor y, *, Scalar dx=1, int dim=-1")


# x's default: an explicit None matches neither of PyTorch's signatures (its invalid-combination TypeError)
_NO_X = object()


def _no_x(fname, signatures, y, x, dx, dim):
    """x as the functions take it (None when not given); an explicit None raises PyTorch's parser error"""
    if x is _NO_X:
        return None
    if not isinstance(x, _C.Tensor):  # the parser's, before an empty dim returns without reading x
        kwargs = {"dim": dim} if dx is None else {"dx": dx, "dim": dim}
        _argcheck.check_call(fname, signatures, (y, x), kwargs)
    return x


def _trapezoid(y, x, dx, dim):
    d = _trapz_dim("trapezoid", y, x, dim)
    if y.shape[d] == 0:
        # nothing to integrate: PyTorch's zeros keep y's dtype (integers, bool), before it looks at x
        shape = list(y.shape)
        del shape[d]
        return _C.zeros(shape, dtype=y.dtype, device=y.device)
    left, right, xd = _trapz_setup("trapezoid", y, x, d)
    if xd is None:
        ends = _C.add(y.select(d, 0), y.select(d, -1))
        return _C.mul(_C.sub(_C.sum(y, d), _C.mul(ends, 0.5)), 1 if dx is None else dx)
    return _C.div(_C.sum(_C.mul(_C.add(left, right), xd), d), 2.0)


@_argcheck.parses(*_TRAPZ_SIGNATURES, upfront=False)
def trapezoid(y, x=_NO_X, *, dx=None, dim=-1):
    """Trapezoid-rule integral of y along dim, over sample points x or spacing dx (default 1)."""
    return _trapezoid(y, _no_x("trapezoid", _TRAPZ_SIGNATURES, y, x, dx, dim), dx, dim)


@_argcheck.parses("Tensor y, *, float dx=1, int dim=-1", "Tensor y, Tensor x, *, int dim=-1", upfront=False)
def trapz(y, x=_NO_X, *, dx=None, dim=-1):
    """Alias of trapezoid."""
    return _trapezoid(y, _no_x("trapz", _TRAPZ_SIGNATURES[::-1], y, x, dx, dim), dx, dim)


@_argcheck.parses(*_TRAPZ_SIGNATURES, upfront=False)
def cumulative_trapezoid(y, x=_NO_X, *, dx=None, dim=-1):
    """Running trapezoid-rule integral of y along dim (one element shorter than y there)."""
    x = _no_x("cumulative_trapezoid", _TRAPZ_SIGNATURES, y, x, dx, dim)
    d = _trapz_dim("cumulative_trapezoid", y, x, dim)
    left, right, xd = _trapz_setup("cumulative_trapezoid", y, x, d)
    if xd is None:
        return _C.cumsum(_C.mul(_C.add(left, right), (1 if dx is None else dx) / 2.0), d)
    # PyTorch's order: the running sum of dx * (left + right), then halved (integers wrap in the sum as there)
    return _C.div(_C.cumsum(_C.mul(xd, _C.add(left, right)), d), 2.0)


for _f in (trapezoid, trapz, cumulative_trapezoid):
    _export(_f, method=False)

# ---------------------------------------------------------------------------------------------- statistics


def _check_q(input, q, dim=None):
    # PyTorch's order: a number q's range (its scalar overload), then an empty input, then the dtypes
    if not isinstance(q, _C.Tensor) and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if input.dtype not in (_C.float32, _C.float64):  # half and bfloat16 too, as PyTorch's
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if isinstance(q, _C.Tensor):
        if q.dtype != input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q.dim() > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if dim is not None:  # PyTorch wraps the dim before it reads q's values
            _composite_shape._wrap(dim, input.dim())
        if q.numel() and not _C.all(_C.logical_and(_C.ge(q, 0), _C.le(q, 1))).item():
            raise RuntimeError("quantile() q values must be in the range [0, 1]")


def _quantile_ranks(qt, k, n, interpolation):
    """The fractional rank q (k - 1) of each quantile among k values (rounded half to even for 'nearest') and the
    order statistics below and above it, clamped to the n of a row."""
    rank = _C.mul(qt, _C.sub(k, 1))
    if interpolation == "nearest":
        rank = _C.round(rank)
    return rank, _C.clamp(_C.floor(rank), 0, n - 1), _C.clamp(_C.ceil(rank), 0, n - 1)


def _quantile_by_selection(x, qt, n, interpolation):
    """One quantile of each row of x (..., n) by selection, O(n) a row as PyTorch's (a sort is O(n log n)): the
    lower order statistic by kthvalue, the next one as the row's smallest value above it unless the lower one
    repeats; a row holding a NaN gives NaN. The rank arithmetic is the sort path's, so the values agree."""
    rank, lo_t, hi_t = _quantile_ranks(
        qt, _C.full((1,), builtins.float(n), dtype=x.dtype, device=x.device), n, interpolation
    )
    lo, hi = builtins.int(lo_t.item()), builtins.int(hi_t.item())
    v_lo = x.kthvalue(lo + 1, -1)[0]
    if hi == lo or interpolation in ("lower", "nearest"):
        v_hi = v_lo
    else:
        below = _C.sum(_C.le(x, v_lo.unsqueeze(-1)), -1)
        above = _C._where(_C.gt(x, v_lo.unsqueeze(-1)), x, math.inf).amin(-1)
        v_hi = _C._where(_C.ge(below, hi + 1), v_lo, above)
    if interpolation in ("lower", "nearest"):
        r = v_lo
    elif interpolation == "higher":
        r = v_hi
    else:
        w = 0.5 if interpolation == "midpoint" else _C.sub(rank, lo_t).reshape(())
        r = _C.lerp(v_lo, v_hi, w)
    return _C.masked_fill(r, _C.isnan(x).any(-1), math.nan)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    # (keepdim and dim are the callers' parser's: checked before they call)
    _check_q(input, q, dim)
    modes = ("linear", "lower", "higher", "midpoint", "nearest")
    if interpolation not in modes:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
            f"{interpolation}"
        )
    scalar_q = not isinstance(q, _C.Tensor) or q.dim() == 0
    qt = (
        q
        if isinstance(q, _C.Tensor)
        else _C.full((), builtins.float(q), dtype=input.dtype, device=input.device)
    )
    qt = qt.reshape(-1).to(input.device)
    if dim is None:
        x = input.reshape(-1)
        out_shape = [1] * input.dim() if keepdim else []
    else:
        d = _composite_shape._wrap(dim, input.dim())
        x = input.movedim(d, -1) if input.dim() else input.reshape(1)
        shp = list(input.shape)
        if input.dim():
            if keepdim:
                shp[d] = 1
            else:
                del shp[d]
        out_shape = shp
    n = x.shape[-1]
    if n == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    nq = qt.shape[0]
    plain = type(input) is _C.Tensor and not (input.requires_grad and _C.is_grad_enabled())
    # selection for one quantile of plain CPU values (a gradient or a tangent keeps the sort path's, which sends
    # it to one element where values tie)
    if plain and not ignore_nan and nq == 1 and n > 32 and x.device.type == "cpu":
        r = _quantile_by_selection(x, qt, n, interpolation).unsqueeze(-1)
        r = r.reshape((*out_shape, nq)) if out_shape or not scalar_q else r.reshape(nq)
        r = r.movedim(-1, 0)
        return r[0] if scalar_q else r
    s = _C.sort(x, -1)[0]
    if ignore_nan:
        k = _C.sum(_C.logical_not(_C.isnan(x)), -1, True).to(input.dtype)
    else:
        k = _C.full((1,), builtins.float(n), dtype=input.dtype, device=x.device)
    rank, lo, hi = _quantile_ranks(qt, k, n, interpolation)  # (..., nq)
    lead = tuple(s.shape[:-1])
    lo_i = lo.to(_C.int64).expand((*lead, nq))
    hi_i = hi.to(_C.int64).expand((*lead, nq))
    v_lo = _C.gather(s, -1, lo_i)
    v_hi = _C.gather(s, -1, hi_i)
    if interpolation in ("lower", "nearest"):
        r = v_lo
    elif interpolation == "higher":
        r = v_hi
    else:
        w = 0.5 if interpolation == "midpoint" else _C.sub(rank, lo).expand((*lead, nq))
        r = _C.lerp(v_lo, v_hi, w)
    if ignore_nan:
        r = _C.masked_fill(r, _C.eq(k, 0).expand(r.shape), math.nan)
    else:
        r = _C.masked_fill(r, _C.isnan(s.narrow(-1, n - 1, 1)).expand(r.shape), math.nan)
    r = r.reshape((*out_shape, nq)) if out_shape or not scalar_q else r.reshape(nq)
    r = r.movedim(-1, 0)
    return r[0] if scalar_q else r


_QUANTILE_SIGS = [
    f'Tensor input, {q} q, int? dim=None, bool keepdim=False, *, str interpolation="linear", Tensor? out=None'
    for q in ("Tensor", "float")
]


# checked before the call (a sort costs far more than the check): a bool dim would otherwise run as 0
@_argcheck.parses(*_QUANTILE_SIGS)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The q-th quantiles of input (over everything or along dim); NaN where a slice holds a NaN."""
    r = _quantile(input, q, dim, keepdim, interpolation, False)
    return write_out(r, out, None, dtype_error=_QUANTILE_OUT)


@_argcheck.parses(*_QUANTILE_SIGS)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """quantile ignoring NaNs (NaN only where a slice is all NaN)."""
    r = _quantile(input, q, dim, keepdim, interpolation, True)
    return write_out(r, out, None, dtype_error=_QUANTILE_OUT)


_export(quantile)
_export(nanquantile)


def _nanmedian_dim(input, dim, keepdim):
    """torch.nanmedian(input, dim, keepdim)'s values and indices (csrc/python/bind_sort.cpp binds the
    signatures): the lower median of each row's non-NaN entries, a NaN row's first NaN."""
    d = _composite_shape._wrap(dim, input.dim())  # PyTorch wraps the dim before the kernel's dtype dispatch
    if input.dim() and input.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    if input.dtype == _C.bool:  # PyTorch's median kernels have no bool case (after the check above)
        _not_implemented("median_out", input)
    x = input.movedim(d, -1) if input.dim() else input.reshape(1)
    s, idx = _C.sort(x, -1)
    valid = _C.logical_not(_C.isnan(x)) if _is_float(x) else _C.ones_like(x, dtype=_C.bool)
    k = _C.sum(valid, -1, True)
    pos = _C.clamp(_C.floor_divide(_C.sub(k, 1), 2), 0, None)
    v, i = _C.gather(s, -1, pos), _C.gather(idx, -1, pos)
    if keepdim and input.dim():
        v, i = v.movedim(-1, d), i.movedim(-1, d)
    else:
        v, i = v.squeeze(-1), i.squeeze(-1)
    return v, i


def histc(input, bins=100, min=0, max=0):
    """Histogram of input in `bins` equal bins over [min, max] (the data's range when min == max)."""
    _argcheck.check_tensor_like("histc", "input", 1, input)
    _argcheck.check_number("histc", "min", 3, min)
    _argcheck.check_number("histc", "max", 4, max)
    if not _argcheck._int_like(bins, True):
        raise TypeError(
            f"histc(): argument 'bins' (position 2) must be int, not {_argcheck._kind_name(bins)}"
        )
    if bins <= 0:  # PyTorch's histc runs its histogram's check, before the kernel's dtype dispatch
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if not _is_float(input):
        _not_implemented("histogram_cpu", input)
    lo, hi = builtins.float(min), builtins.float(max)
    if input.device.type == "cpu" and not input.is_meta:
        # one C++ pass (kernels/cpu/sort.cpp); the composite below serves the other devices
        return _C._histc(input, builtins.int(bins), lo, hi)
    if input.is_meta:  # the range and the counts read values: the result's shape alone
        return _C.empty((bins,), dtype=input.dtype, device=input.device)
    if lo == hi and input.numel():
        lo, hi = _C.amin(input).item(), _C.amax(input).item()
    if lo == hi:  # (sort.cpp's histc_counts: float and double widen by at least one step of their own)
        step = {_C.float32: np.float32, _C.float64: np.float64}.get(input.dtype)
        if step is None:
            lo, hi = lo - 1, hi + 1
        else:
            with np.errstate(over="ignore"):
                below = builtins.float(np.nextafter(step(lo), np.finfo(step).min))
                above = builtins.float(np.nextafter(step(hi), np.finfo(step).max))
            lo, hi = builtins.min(below, lo - 1), builtins.max(above, hi + 1)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input.detach().reshape(-1)
    inside = _C.logical_and(_C.ge(x, lo), _C.le(x, hi))
    # PyTorch's linear interpolation, each step rounded in the input's dtype as its kernel's input_t arithmetic
    # is: (x - min) * bins / (max - min), truncated (half precision moves elements across bin edges there)
    lo_t = _C.full((), lo, dtype=input.dtype, device=input.device)
    width = _C.sub(_C.full((), hi, dtype=input.dtype, device=input.device), lo_t)
    b = _C.div(_C.mul(_C.sub(x, lo_t), bins), width).to(_C.int64)
    b = _C.clamp(_C.masked_fill(b, _C.logical_not(inside), 0), 0, bins - 1)
    # counted in float (a bfloat16 count stops at 256), rounded to the dtype once
    acc = _C.float64 if input.dtype == _C.float64 else _C.float32
    out = _C.zeros((bins,), dtype=acc, device=input.device)
    return _C.scatter_add(out, 0, b, inside.to(acc)).to(input.dtype)


_export(histc)


def _hist_check_dtype(t):
    # float16/bfloat16 too, except where the data's min and max are needed (_outer_edges), as PyTorch's
    if t.dtype not in (_C.float32, _C.float64, _C.float16, _C.bfloat16):
        _not_implemented("histogramdd", t)


def _outer_edges(x, nbins, range):
    """(leftmost, rightmost) per dim: the given range or the data's, widened by 0.5 each side when equal."""
    d = x.shape[-1]
    if range is not None:
        rng = [builtins.float(v) for v in range]
        if len(rng) != 2 * d:
            raise RuntimeError(
                f"torch.histogramdd: for a {d}-dimensional histogram range should have {2 * d} elements, "
                f"but got {len(rng)}"
            )
        pairs = [(rng[2 * i], rng[2 * i + 1]) for i in builtins.range(d)]
    elif x.shape[0]:
        if x.dtype in (_C.float16, _C.bfloat16):  # PyTorch's min/max kernel there lacks the half types
            _not_implemented("histogramdd", x)
        lo, hi = _C.amin(x, 0).tolist(), _C.amax(x, 0).tolist()
        pairs = list(zip(lo, hi))
    else:
        pairs = [(0.0, 1.0)] * d
    out = []
    for i, (lo, hi) in enumerate(pairs):
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {i}'s range [{lo:g}, {hi:g}] is not finite")
        if lo > hi:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for dimension {i}"
            )
        out.append((lo - 0.5, hi + 0.5) if lo == hi else (lo, hi))
    return out


def _histogramdd_impl(input, bins, range, weight, density, edges_first=False):
    """hist over input's last dim as coordinates, and the list of edge tensors. Each coordinate's bin is the
    last edge <= it (the last bin closed on the right), as PyTorch's search; values outside the edges (and
    NaN) are left out."""
    if input.dim() == 0:  # PyTorch reads the last dim's size first
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    _hist_check_dtype(input)
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    d = input.shape[-1]
    x = input.detach().reshape(math.prod(input.shape[:-1]), d)
    if isinstance(bins, _C.Tensor):
        bins = [bins]
    elif isinstance(bins, numbers.Integral):
        bins = [builtins.int(bins)] * d
    else:
        bins = list(bins)
    if len(bins) != d:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    if weight is not None:
        if list(weight.shape) != list(input.shape[:-1]):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
                f"excluding its innermost dimension, but got input with shape {list(input.shape)} and weight with "
                f"shape {list(weight.shape)}"
            )
        if weight.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
                f"same dtype, but got input({cpp_name(input.dtype)}), and weight({cpp_name(weight.dtype)})"
            )
    edges = []
    if builtins.all(isinstance(b, _C.Tensor) for b in bins):
        for i, b in enumerate(bins):
            if b.dim() != 1:
                raise RuntimeError(
                    "torch.histogramdd: bins tensor should have one dimension, but got "
                    f"{b.dim()} dimensions in the bins tensor for dimension {i}"
                )
            if b.numel() < 2:
                raise RuntimeError(
                    f"torch.histogram(): bins must be > 0, but got {b.numel() - 1} for dimension {i}"
                )
            if b.dtype != input.dtype:
                raise RuntimeError(
                    "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
                    f"dtype {cpp_name(input.dtype)} and bins for dimension {i} with dtype {cpp_name(b.dtype)}"
                )
            edges.append(b.detach().contiguous().clone())
    else:
        # torch.histogramdd finds the outer edges before it checks the counts, torch.histogram after
        outer = _outer_edges(x, bins, range) if edges_first else None
        for i, b in enumerate(bins):
            if b <= 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {i}")
        if outer is None:
            outer = _outer_edges(x, bins, range)
        for b, (lo, hi) in zip(bins, outer):
            edges.append(_C.linspace(lo, hi, b + 1, dtype=input.dtype, device=input.device))
    counts = [e.numel() - 1 for e in edges]
    acc = input.dtype
    if d == 0:
        # points with no coordinates fall in no bin: PyTorch's 0-d zero (its density 0 / 0)
        hist = _C.zeros((), dtype=acc, device=input.device)
        return (_C.div(hist, _C.sum(hist)) if density else hist), edges
    keep = _C.ones(x.shape[0], dtype=_C.bool, device=input.device)
    flat = _C.zeros(x.shape[0], dtype=_C.int64, device=input.device)
    for i, e in enumerate(edges):
        col = x[:, i].contiguous()
        keep = _C.logical_and(keep, _C.logical_and(_C.ge(col, e[0]), _C.le(col, e[-1])))
        pos = _C.sub(searchsorted(e, col, right=True), 1)
        pos = _C.clamp(pos, 0, counts[i] - 1)
        flat = _C.add(_C.mul(flat, counts[i]), pos)
    total = math.prod(counts)
    # no masked copies (flat[keep] was a third of histogram's time at 256x256): a value left out adds to a
    # spare last bin, or adds a zero weight
    if weight is None and x.shape[0] < 2**24:
        # counted in int64, exact in any float dtype below 2^24 (PyTorch adds ones in the input's dtype; the
        # same counts there), and int64's scatter_add is the faster
        idx = _C._where(keep, flat, total)
        hist = _C.scatter_add(
            _C.zeros(total + 1, dtype=_C.int64, device=input.device), 0, idx, _C.ones_like(idx)
        )
        hist = hist.narrow(0, 0, total).to(acc).reshape(counts)
    else:
        w = (
            weight.detach().reshape(-1)
            if weight is not None
            else _C.ones(x.shape[0], dtype=acc, device=input.device)
        )
        # adding 0 leaves every partial sum as it was (the order of the kept weights is unchanged)
        w = _C._where(keep, w, 0.0)
        hist = _C.scatter_add(_C.zeros(total, dtype=acc, device=input.device), 0, flat, w).reshape(counts)
    if density:
        hist = _C.div(hist, _C.sum(hist))
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = counts[i]
            hist = _C.div(hist, _C.sub(e[1:], e[:-1]).reshape(shape))
    return hist, edges


def _hist_kernel_args(input, bins, weight):
    """whether histogram's C++ kernel takes these arguments, else None; raises the composite's errors of bins
    and weight (the kernel's front end checks the range and the data)"""
    if weight is not None:
        if list(weight.shape) != [input.numel()]:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
                f"excluding its innermost dimension, but got input with shape {[input.numel(), 1]} and weight with "
                f"shape {list(weight.shape)}"
            )
        if weight.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
                f"same dtype, but got input({cpp_name(input.dtype)}), and weight({cpp_name(weight.dtype)})"
            )
        if weight.device.type != "cpu":
            return False
    if not isinstance(bins, _C.Tensor):
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        return True
    if bins.dim() != 1:
        raise RuntimeError(
            "torch.histogramdd: bins tensor should have one dimension, but got "
            f"{bins.dim()} dimensions in the bins tensor for dimension 0"
        )
    if bins.numel() < 2:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins.numel() - 1} for dimension 0")
    if bins.dtype != input.dtype:
        raise RuntimeError(
            "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
            f"dtype {cpp_name(input.dtype)} and bins for dimension 0 with dtype {cpp_name(bins.dtype)}"
        )
    return bins.device.type == "cpu"


@_argcheck.parses(
    "Tensor input, Tensor bins, *, Tensor? weight=None, bool density=False, TensorList? out=None",
    "Tensor input, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False, "
    "TensorList? out=None",
)
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """Histogram of input's values: bins equal bins over range (the data's min and max by default), or the
    bins given as a tensor of edges; returns (hist, bin_edges), hist holding counts (or sums of weight, or
    a density when density=True)."""
    if range is not None and len(range) != 2:
        raise RuntimeError(
            f"torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got {len(range)}"
        )
    _hist_check_dtype(input)
    w = weight.reshape(-1) if weight is not None and weight.shape == input.shape else weight
    if input.device.type == "cpu" and not input.is_meta and _hist_kernel_args(input, bins, w):
        # one C++ pass (kernels/cpu/sort.cpp), after the composite's checks of bins and weight
        if isinstance(bins, _C.Tensor):
            hist = _C._histogram_bin_edges(input, bins, w, density)
            edges = bins.detach().contiguous().clone()
        else:
            hist, edges = _C._histogram_bin_ct(input, bins, range, w, density)
    else:
        hist, (edges,) = _histogramdd_impl(input.reshape(-1, 1), bins, range, w, density)
    if out is not None:
        out[0].resize_(hist.shape).copy_(hist)
        out[1].resize_(edges.shape).copy_(edges)
        return _rt.histogram(out[0], out[1])
    return _rt.histogram(hist, edges)


_export(histogram)


# PyTorch 2.15's parser's three overloads (every argument may come by position, bins has no default)
_HISTOGRAMDD_SIGNATURES = [
    f"Tensor input, {kind} bins, float[]? range=None, Tensor? weight=None, bool density=False"
    for kind in ("int", "int[]", "Tensor[]")
]


def _histogramdd_check(args, kwargs):
    """the parser's refusal of a call no overload takes: its TensorList reading of a list `bins` that is no int
    list raises at the first element that is no tensor ("expected Tensor as element 0 in argument 1"), once
    the two overloads before it have failed and its own input is a tensor; else the usual TypeError"""
    bins = args[1] if len(args) > 1 else kwargs.get("bins")
    error = None
    try:
        _argcheck.check_call("histogramdd", _HISTOGRAMDD_SIGNATURES, args, kwargs)
    except TypeError as e:
        if "invalid combination" not in str(e):
            raise
        error = e
    # the tensor-list overload reads a list bins when the others refused the call, or took it as its own
    listed = isinstance(bins, (list, tuple))
    if error is None:
        listed = listed and bins and not _argcheck._list_int(bins[0], True)
    else:
        listed = listed and len(args) <= 5 and _argcheck._tensor_like(args[0])
    if listed:
        for i, b in enumerate(bins):  # (the overload taken checked only the first element)
            if not _argcheck._tensor_like(b):
                raise TypeError(
                    f"expected Tensor as element {i} in argument 1, but got {_argcheck._type_name(b)}"
                ) from None
    if error is not None:
        raise error from None


@_argcheck.checks_own_arguments
def histogramdd(input, *args, **kwargs):
    """D-dimensional histogram of the points in input's last dim: bins an int, D ints or D edge tensors;
    returns (hist, bin_edges), bin_edges a tuple of D tensors."""
    _histogramdd_check((input, *args), kwargs)
    names = ("bins", "range", "weight", "density")
    given = {**dict(zip(names, args)), **kwargs}
    bins = given["bins"]
    if isinstance(bins, _C.Tensor):  # the int overload's 0-d integer tensor
        bins = builtins.int(bins)
    elif isinstance(bins, (list, tuple)) and bins and not _argcheck._tensor_like(bins[0]):
        bins = _C._int_list_value(bins, "histogramdd", "bins", 2, False, False)
    hist, edges = _histogramdd_impl(
        input, bins, given.get("range"), given.get("weight"), given.get("density", False), edges_first=True
    )
    return _rt.histogramdd(hist, tuple(edges))


_export(histogramdd, method=False)


@_argcheck.parses("Tensor input, Tensor? weights=None, SymInt minlength=0")
def bincount(input, weights=None, minlength=0):
    """Count of each value in a 1-D non-negative integer tensor (sum of weights, when given)."""
    if _is_float(input) or input.dtype == _C.bool:
        _not_implemented("bincount_cpu", input)
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    n = minlength
    if input.numel():
        lo, hi = _C.amin(input).item(), _C.amax(input).item()
        if lo < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        if hi == _INT_MAX:
            raise RuntimeError(f"maximum value of input overflowed, it should be < {_INT_MAX} but got {hi}")
        n = builtins.max(n, hi + 1)
    idx = input.to(_C.int64)
    if weights is None or not input.numel():  # PyTorch counts an empty input in int64, weights unchecked
        src, dt = _C.ones_like(idx), _C.int64
    else:
        if weights.shape != input.shape:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        dt = weights.dtype if weights.dtype in (_C.float32, _C.float64) else _C.float64
        src = weights.to(dt)
    return _C.scatter_add(_C.zeros((n,), dtype=dt, device=input.device), 0, idx, src)


_export(bincount)

# ---------------------------------------------------------------------------------------------- search, sets

_INT_MAX = (1 << 63) - 1
# above this many compare-and-sum elements a sort-based merge is cheaper
_SMALL_SEARCH = 1 << 16


def _searchsorted_impl(seq, values, right):
    """Insertion points of values (..., n) into rows of seq (..., m), both with the same leading dims."""
    m = seq.shape[-1]
    n = values.shape[-1]
    dt = _C.promote_types(seq.dtype, values.dtype)
    seq, values = seq.to(dt), values.to(dt)
    if seq.device.type == "cpu" and values.device.type == "cpu":
        return _C._searchsorted(seq, values, right)
    if m * values.numel() <= _SMALL_SEARCH or m <= 8:
        cmp = _C.le if right else _C.lt
        return _C.sum(cmp(seq.unsqueeze(-2), values.unsqueeze(-1)), -1)
    if seq.dim() == 1:
        # branchless binary search: log2(m) rounds of gather + compare over all values at once; the boundaries
        # are padded with +inf to twice a power of two so no probe needs a bounds check
        size = 1 << (m - 1).bit_length()
        if not _is_float(seq):
            seq, values, dt = seq.to(_C.int64), values.to(_C.int64), _C.int64
        pad = _C.full((2 * size - m,), math.inf if _is_float(seq) else _INT_MAX, dtype=dt, device=seq.device)
        padded = _C.cat([seq, pad])
        cmp = _C.le if right else _C.lt
        pos = _C.zeros(values.shape, dtype=_C.int64, device=values.device)
        step = size
        while step:
            probe = _C.index_select(padded, 0, _C.add(pos, step - 1).reshape(-1)).reshape(values.shape)
            pos = _C.add(pos, cmp(probe, values).to(_C.int64), alpha=step)
            step //= 2
        return _C.clamp(pos, None, m)
    # merge by one stable sort: values go after equal boundaries for right=True, before them otherwise, and
    # each value's answer is the number of boundaries ahead of it in the merged order
    merged = _C.cat([seq, values] if right else [values, seq], -1)
    order = _C.argsort(merged, -1, stable=True)
    is_b = _C.lt(order, m) if right else _C.ge(order, n)
    nb = _C.cumsum(is_b.to(_C.int64), -1)
    # invert the permutation: position p of the merged order answers for element order[p]
    res = _C.scatter(_C.empty_like(nb), -1, order, nb)
    return res.narrow(-1, m, n) if right else res.narrow(-1, 0, n)


_SEARCH_KW = (
    "*, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None, Tensor? out=None"
)


# an int for a bool flag would otherwise be taken as its truth value: checked upfront, as PyTorch's parser does
@_argcheck.parses(
    f"Tensor sorted_sequence, Tensor input, {_SEARCH_KW}",
    f"Tensor sorted_sequence, Scalar self, {_SEARCH_KW}",
)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """Indices at which input's values would be inserted into sorted_sequence (its last dim) to keep order."""
    seq = sorted_sequence
    if (
        type(input) is _C.Tensor
        and type(seq) is _C.Tensor
        and side is None
        and sorter is None
        and out is None
        and not out_int32
        and seq.is_cpu
        and input.is_cpu
        and seq.dtype == input.dtype
        and seq.dtype != _C.bool
    ):
        # the common call straight to the CPU kernel: the checks below all pass for it (the Python around
        # the kernel cost 4x its 1 us on [8, 8] rows)
        sd, vd = seq.dim(), input.dim()
        if vd >= 1 and (sd == 1 or (sd == vd and seq.shape[:-1] == input.shape[:-1])):
            return _C._searchsorted(seq, input, right)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of left while right "
                "was True"
            )
        right = side == "right"
    scalar = not isinstance(input, _C.Tensor)
    values = input
    if scalar:
        # a number joins the sequence's dtype as a wrapped scalar, cast unchecked (0.1 searched in float64 is
        # float64's 0.1, 300 in uint8 wraps as PyTorch's)
        wide = (
            _C.bool if isinstance(input, builtins.bool)
            else _C.int64 if isinstance(input, builtins.int)
            else _C.complex128 if isinstance(input, builtins.complex)
            else _C.float64
        )  # fmt: skip
        values = _C.full((), input, dtype=wide, device=seq.device).to(_C.result_type(seq, input))
    # PyTorch's checks in its order: a 0-d value needs a 1-d sequence, the sequence needs a dim, then the dtype
    if values.dim() == 0 and seq.dim() != 1:
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we "
            f"got boundaries tensor dim({seq.dim()}) and input value's dim({values.dim()}) numel({values.numel()})"
        )
    if seq.dim() == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if sorter is not None:
        seq = _C.gather(seq, -1, sorter)
    if seq.dim() > 1 and (values.dim() != seq.dim() or tuple(values.shape[:-1]) != tuple(seq.shape[:-1])):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(seq.shape)} and input value tensor {list(values.shape)}"
        )
    if (
        values.numel() == 0
    ):  # PyTorch's kernel returns before its dtype dispatch (a bool or complex input too)
        r = _C.empty(values.shape, dtype=_C.int32 if out_int32 else _C.int64, device=seq.device)
        return write_out(r, out, None, dtype_error=_searchsorted_out(out_int32))
    if _C.promote_types(seq.dtype, values.dtype) == _C.bool:  # the kernel runs in the common dtype
        _not_implemented("searchsorted_out_cuda" if seq.is_cuda else "searchsorted_out_cpu", seq)
    with _NoGrad():
        if seq.dim() <= 1:
            r = _searchsorted_impl(seq.reshape(-1), values.reshape(-1), right).reshape(values.shape)
        else:
            r = _searchsorted_impl(seq, values, right)
    r = r.to(_C.int32 if out_int32 else _C.int64)
    return write_out(r, out, None, dtype_error=_searchsorted_out(out_int32))


@_argcheck.parses(
    "Tensor input, Tensor boundaries, *, bool out_int32=False, bool right=False, Tensor? out=None",
    "Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False",
)
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """Index of the bucket of each input value given sorted 1-D boundaries (searchsorted with the args swapped)."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


_export(searchsorted, method=False)
_export(bucketize)


@_argcheck.parses(
    "Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False, Tensor? out=None",
    "Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False, Tensor? out=None",
    "Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False, Tensor? out=None",
)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of `elements` occurs in `test_elements` (negated with invert)."""
    for side in (elements, test_elements):  # PyTorch's isin has no bool or complex kernel
        if isinstance(side, _C.Tensor):
            dt = side.dtype
        else:
            dt = {builtins.bool: _C.bool, builtins.complex: _C.complex128}.get(type(side))
        if dt is not None and (dt == _C.bool or dt.is_complex):
            raise NotImplementedError(f"Unsupported input type encountered for isin(): {scalar_name(dt)}")
    scalar_e = not isinstance(elements, _C.Tensor)
    number = elements
    if scalar_e:
        elements = _as_tensor(elements, test_elements)
    if not isinstance(test_elements, _C.Tensor):
        # a number is compared in the elements' dtype, as PyTorch's elements == test_element (bfloat16 1e30)
        r = _C.eq(elements, test_elements)
        return _C.logical_not(r) if invert else r
    t = test_elements.reshape(-1)
    e = elements.reshape(-1)
    # The comparison dtype follows PyTorch's two algorithms: below its size heuristic (NumPy's) it compares
    # elements == test_elements with the usual promotion (a number or a 0-dim tensor does not widen a
    # dimensioned float32 test tensor); above it, it concatenates both sides' unique values, which promotes
    # the dtypes plainly (a Python float counts as float64 there), so 1e30 in float32 is not float64 1e30.
    if t.numel() < int(10.0 * float(1 if scalar_e else e.numel()) ** 0.145):
        dt = _C.result_type(number, test_elements)
    else:
        natural = _C.float64 if scalar_e and isinstance(number, builtins.float) else e.dtype
        dt = _C.promote_types(natural, t.dtype)
        if scalar_e:
            e = _C.full((1,), number, dtype=dt, device=t.device)
    e, t = e.to(dt), t.to(dt)
    if t.numel() == 0:
        r = _C.zeros_like(e, dtype=_C.bool)
    elif e.numel() * t.numel() <= _SMALL_SEARCH:
        r = _C.any(_C.eq(e.unsqueeze(-1), t), -1)
    else:
        st = _C.sort(t)[0]
        pos = _C.clamp(_searchsorted_impl(st, e, False), 0, t.numel() - 1)
        r = _C.eq(_C.gather(st, 0, pos), e)
    if invert:
        r = _C.logical_not(r)
    return r.reshape(elements.shape)


_export(isin, method=False)


_FIRST_OF_RUN = {}


def _run_starts(x, n):
    """True where a run of equal values starts in the flat x of n >= 1 elements. The first element starts one:
    a one-element True ahead of the comparisons, made once per device (cat only reads it, and making it was a
    fifth of a small call's time)."""
    first = _FIRST_OF_RUN.get(x.device)
    if first is None:
        first = _FIRST_OF_RUN[x.device] = _C.ones((1,), dtype=_C.bool, device=x.device)
    if n == 1:
        return first
    return _C.cat([first, _C.ne(x.narrow(0, 1, n - 1), x.narrow(0, 0, n - 1))])


def _unique_flat(x, sorted_input, return_inverse, return_counts, perm):
    """Runs of equal values in x (already sorted, or consecutive-only); perm maps x back to the input."""
    n = x.numel()
    if n == 0:
        empty = _C.zeros((0,), dtype=_C.int64, device=x.device)
        return x, empty, empty
    new = _run_starts(x, n)
    values = _C.masked_select(x, new)
    inverse = counts = None
    # the run numbers serve the inverse only (three int64 passes over x: half of unique_consecutive(x)'s time
    # at 65536 elements when they were always made)
    if return_inverse:
        group = _C.sub(_C.cumsum(new.to(_C.int64), 0), 1)
        inverse = group if perm is None else _C.scatter(_C.empty_like(group), 0, perm, group)
    if return_counts:
        # each run's length is the distance from its start to the next run's (a scatter_add of ones over every
        # element was 3x PyTorch's time)
        starts = _C.nonzero(new).reshape(-1)
        k = starts.shape[0]
        ends = _C.cat([starts.narrow(0, 1, k - 1), _C.full((1,), n, dtype=_C.int64, device=x.device)])
        counts = _C.sub(ends, starts)
    return values, inverse, counts


def _unique_dim(input, dim, sort, return_inverse, return_counts):
    """unique/unique_consecutive along dim: slices compared whole, sorted lexicographically."""
    d = dim % input.dim()
    if (
        input.numel() == 0
    ):  # PyTorch's unique_dim: only the selected dim may be empty, and the result is empty
        if builtins.sum(1 for n in input.shape if n == 0) != 1:
            raise RuntimeError(
                "Number of zero sized dimensions is more than one, so unique cannot be applied "
            )
        if input.shape[d] != 0:
            raise RuntimeError(
                "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
            )
        out = [_C.empty(input.shape, dtype=input.dtype, device=input.device)]
        for _ in range(builtins.int(return_inverse) + builtins.int(return_counts)):
            out.append(_C.empty((0,), dtype=_C.int64, device=input.device))
        return out[0] if len(out) == 1 else tuple(out)
    x = input.movedim(d, 0)
    n = x.shape[0]
    rows = x.reshape(n, -1)
    perm = _C.arange(n, device=x.device)
    if sort and n:
        # lexicographic order by stable sorts from the last column to the first (one sort per column)
        for c in range(rows.shape[1] - 1, -1, -1):
            col = _C.index_select(rows.narrow(1, c, 1).reshape(-1), 0, perm)
            perm = _C.index_select(perm, 0, _C.argsort(col, 0, stable=True))
        rows = _C.index_select(rows, 0, perm)
    if n:
        diff = (
            _C.any(_C.ne(rows.narrow(0, 1, n - 1), rows.narrow(0, 0, n - 1)), 1)
            if rows.shape[1]
            else (_C.zeros((n - 1,), dtype=_C.bool, device=x.device))
        )
        new = _C.cat([_C.ones((1,), dtype=_C.bool, device=x.device), diff])
    else:
        new = _C.ones((0,), dtype=_C.bool, device=x.device)
    group = _C.sub(_C.cumsum(new.to(_C.int64), 0), 1)
    keep = _C.nonzero(new).reshape(-1)
    values = _C.index_select(x if not sort else _C.index_select(x, 0, perm), 0, keep).movedim(0, d)
    out = [values]
    if return_inverse:
        out.append(_C.scatter(_C.empty_like(group), 0, perm, group) if sort else group)
    if return_counts:
        out.append(
            _C.scatter_add(
                _C.zeros((keep.shape[0],), dtype=_C.int64, device=x.device), 0, group, _C.ones_like(group)
            )
        )
    return out[0] if len(out) == 1 else tuple(out)


def _check_bool_flags(op, **flags):
    """PyTorch's parser takes only Python bools for these flags (numpy.bool included in what it refuses)"""
    for name, v in flags.items():
        if type(v) is not builtins.bool:
            raise TypeError(f"{op}(): argument '{name}' must be bool, not {_argcheck._type_name(v)}")


def _renamed(fn, name, qualname=None):
    """fn under another name, which Python's own argument errors (an unknown keyword, too many arguments) give"""
    code = fn.__code__.replace(co_name=name)
    if hasattr(code, "co_qualname"):  # Python 3.11+ words those errors from the code's qualified name
        code = code.replace(co_qualname=qualname or name)
    g = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    g.__qualname__ = qualname or name
    g.__doc__ = fn.__doc__
    return g


def _flag(args, kwargs, name, index):
    """torch._jit_internal.boolean_dispatch's reading of a flag: by keyword, else at index, else False"""
    if name in kwargs:
        return kwargs[name]
    return args[index] if index < len(args) else False


def _unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of input (sorted), optionally with the inverse indices and the counts."""
    op = "_unique2" if dim is None else "unique_dim"
    if not isinstance(input, _C.Tensor):
        raise TypeError(
            f"{op}(): argument 'input' (position 1) must be Tensor, not {_argcheck._type_name(input)}"
        )
    if dim is not None and (type(dim) is builtins.bool or not isinstance(dim, numbers.Integral)):
        raise TypeError(
            f"unique_dim(): argument 'dim' (position 2) must be int, not {_argcheck._type_name(dim)}"
        )
    _check_bool_flags(op, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts)
    if dim is not None:
        if input.dim() == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        _composite_shape._wrap(dim, input.dim())  # PyTorch's range check
        return _unique_dim(input, dim, True, return_inverse, return_counts)
    with _NoGrad():
        flat = input.reshape(-1)
        s, perm = _C.sort(flat, 0, stable=True)
        values, inverse, counts = _unique_flat(s, True, return_inverse, return_counts, perm)
    out = [values]
    if return_inverse:
        out.append(inverse.reshape(input.shape))
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


# torch.unique is PyTorch's boolean_dispatch over four Python functions, picked by the flags' truth (return_inverse
# read first) before any parser sees them: a tensor of several values fails there, and an unknown keyword or a
# sixth argument is Python's error in the picked function's name. Each of ours computes every output it is asked
# for; they differ only in that name.
_UNIQUE = {
    (False, False): _renamed(_unique, "_return_output"),
    (False, True): _renamed(_unique, "_return_counts"),
    (True, False): _renamed(_unique, "_return_inverse"),
    (True, True): _renamed(_unique, "_return_inverse_and_counts"),
}


@_argcheck.python_in_pytorch  # torch.functional.unique: its errors are those of the ops it calls
def unique(*args, **kwargs):
    """The distinct values of input (sorted), optionally with the inverse indices and the counts."""
    inverse = builtins.bool(_flag(args, kwargs, "return_inverse", 2))
    return _UNIQUE[inverse, builtins.bool(_flag(args, kwargs, "return_counts", 3))](*args, **kwargs)


@_argcheck.python_in_pytorch
def _unique_method(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of input (sorted), optionally with the inverse indices and the counts."""
    return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive values into one, optionally with inverse indices and counts."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(
            f"unique_consecutive(): argument 'input' (position 1) must be Tensor, not {_argcheck._type_name(input)}"
        )
    if return_inverse is False and return_counts is False and dim is None and not input.requires_grad:
        # the values alone: the CPU's one-call kernel (the six calls below were 4.7 us on [8, 8], where
        # PyTorch's whole call takes 3.9), else three ops and a cat
        if input.is_cpu:
            return _C._unique_consecutive_values(input)
        x = input if input.dim() == 1 else _C.reshape(input, (-1,))
        n = x.numel()
        if n:
            return _C.masked_select(x, _run_starts(x, n))
    if type(return_inverse) is not builtins.bool or type(return_counts) is not builtins.bool:
        _check_bool_flags("unique_consecutive", return_inverse=return_inverse, return_counts=return_counts)
    if dim is not None:
        if type(dim) is builtins.bool or not isinstance(dim, numbers.Integral):
            raise TypeError(
                f"unique_consecutive(): argument 'dim' must be int, not {_argcheck._type_name(dim)}"
            )
        if input.dim() == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        _composite_shape._wrap(dim, input.dim())  # PyTorch's range check
        return _unique_dim(input, dim, False, return_inverse, return_counts)
    flat = input if input.dim() == 1 else input.reshape(-1)
    if input.requires_grad:
        with _NoGrad():
            values, inverse, counts = _unique_flat(flat, False, return_inverse, return_counts, None)
    else:  # nothing to record (a context's enter and exit were a tenth of a small call)
        values, inverse, counts = _unique_flat(flat, False, return_inverse, return_counts, None)
    out = [values]
    if return_inverse:
        out.append(inverse.reshape(input.shape))
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


# as _UNIQUE; PyTorch's dispatch reads return_inverse at index 2 and return_counts at 1 (swapped: its inverse
# given by position comes back empty, docs/reliability.md), which picks the name here and nothing else
_UNIQUE_CONSECUTIVE = {
    (False, False): _renamed(_unique_consecutive, "_consecutive_return_output"),
    (False, True): _renamed(_unique_consecutive, "_consecutive_return_counts"),
    (True, False): _renamed(_unique_consecutive, "_consecutive_return_inverse"),
    (True, True): _renamed(_unique_consecutive, "_consecutive_return_inverse_and_counts"),
}


@_argcheck.python_in_pytorch  # torch.functional.unique_consecutive, as unique
def unique_consecutive(*args, **kwargs):
    """Collapse each run of equal consecutive values into one, optionally with inverse indices and counts."""
    inverse = builtins.bool(_flag(args, kwargs, "return_inverse", 2))
    fn = _UNIQUE_CONSECUTIVE[inverse, builtins.bool(_flag(args, kwargs, "return_counts", 1))]
    return fn(*args, **kwargs)


@_argcheck.python_in_pytorch
def _unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive values into one, optionally with inverse indices and counts."""
    return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


_export(unique, method=False)
_export(unique_consecutive, method=False)
# PyTorch's Tensor methods are their own Python functions calling torch.unique/unique_consecutive by keyword
TENSOR_METHODS["unique"] = _renamed(_unique_method, "unique", "Tensor.unique")
TENSOR_METHODS["unique"]._python_in_pytorch = True
TENSOR_METHODS["unique_consecutive"] = _renamed(
    _unique_consecutive_method, "unique_consecutive", "Tensor.unique_consecutive"
)
TENSOR_METHODS["unique_consecutive"]._python_in_pytorch = True

# ---------------------------------------------------------------------------------------------- distances


def _zero_norm(d):
    """the count of nonzero differences along the last dim, as PyTorch's cdist/pdist kernels count:
    min(ceil(|d|), 1) summed, so a NaN difference gives NaN and the result carries a zero gradient"""
    return _C.sum(_C.clamp_max(_C.ceil(_C.abs(d)), 1.0), -1)


@_argcheck.checks_own_arguments  # (its ValueError for compute_mode comes before the parser's TypeErrors)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M) -> (..., P, R)."""
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    if not isinstance(compute_mode, str) or compute_mode not in modes:  # PyTorch's Python checks it first
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    # torch.cdist's parser, after its Python's check (which hands every argument on by position)
    _argcheck.check_tensor_like("cdist", "x1", 1, x1)
    _argcheck.check_tensor_like("cdist", "x2", 2, x2)
    _argcheck.check_float("cdist", "p", 3, p)
    p = float(p)
    # ATen's cdist checks the ranks and the columns, its _cdist_forward then the dtypes and p
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    for name, t in (("X1", x1), ("X2", x2)):
        if not _is_float(t):
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {scalar_name(t.dtype)}"
            )
    if not p >= 0:  # NaN too
        raise RuntimeError("cdist only supports non-negative p values")
    P, R = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (compute_mode == "use_mm_for_euclid_dist_if_necessary" and (P > 25 or R > 25))
    )
    half = x1.dtype in (_C.float16, _C.bfloat16) and P and R and x1.shape[-1] and x1.numel() and x2.numel()
    if x1.dtype != x2.dtype:
        # PyTorch's kernel reads both in x1's dtype: refused once there is something to compute, x1's dtype
        # for an empty one (the direct kernel's dtype dispatch comes first)
        if half and not use_mm:
            raise NotImplementedError(f"\"cdist\" not implemented for '{scalar_name(x1.dtype)}'")
        if x1.numel() and x2.numel():
            if use_mm:  # the matmul's own check
                raise RuntimeError(
                    "expected m1 and m2 to have the same dtype, but got: "
                    f"{cpp_name(x1.dtype)} != {cpp_name(x2.dtype)}"
                )
            raise RuntimeError(
                f"expected scalar type {scalar_name(x1.dtype)} but found {scalar_name(x2.dtype)}"
            )
        x2 = x2.to(x1.dtype)
    if use_mm:
        # ||a||^2 - 2 a.b + ||b||^2 as one matmul of [-2a, ||a||^2, 1] by [b, 1, ||b||^2]
        n1 = _C.sum(_C.mul(x1, x1), -1, True)
        n2 = _C.sum(_C.mul(x2, x2), -1, True)
        a = _C.cat([_C.mul(x1, -2.0), n1, _C.ones_like(n1)], -1)
        b = _C.cat([x2, _C.ones_like(n2), n2], -1)
        return _C.sqrt(_C.clamp_min(_C.matmul(a, b.transpose(-1, -2)), 1e-30))
    if half:
        # PyTorch's direct kernel is float/double only (its matmul path above takes the half types)
        raise NotImplementedError(f"\"cdist\" not implemented for '{scalar_name(x1.dtype)}'")
    d = _C.sub(x1.unsqueeze(-2), x2.unsqueeze(-3))
    if p == 0:
        return _zero_norm(d)
    if p == math.inf:
        return _C.amax(_C.abs(d), -1)
    if p == 1:
        return _C.sum(_C.abs(d), -1)
    return _C.norm(d, p, -1)


_export(cdist, method=False)


# ---------------------------------------------------------------------------------------------- in-place arithmetic


@_argcheck.parses("Tensor end, Tensor weight", "Tensor end, Scalar weight", method=True, upfront=False)
def lerp_(self, end, weight):
    """In-place lerp: self += weight * (end - self) (one fused kernel for a scalar weight without autograd)."""
    if (
        isinstance(weight, (builtins.int, builtins.float))
        and isinstance(end, _C.Tensor)
        and _is_float(self)
        and end.dtype == self.dtype
        and tuple(end.shape) == tuple(self.shape)
        and end.device == self.device
        and not (_C.is_grad_enabled() and (self.requires_grad or end.requires_grad))
    ):
        _C._foreach_lerp_([self], [end], builtins.float(weight))
        return self
    return _store(self, _C.lerp(self, end, weight))


@_argcheck.parses(
    "Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1", name="addmm_", upfront=False
)
def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """In-place addmm: self = beta * self + alpha * (mat1 @ mat2)."""
    out_shape = [mat1.shape[0] if mat1.dim() else 0, mat2.shape[-1] if mat2.dim() else 0]
    if list(self.shape) != out_shape:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(self.shape)} and output tensor size {out_shape} should "
            "match"
        )
    return _store(self, _C.addmm(self, mat1, mat2, beta=beta, alpha=alpha))


def _one_bound(name, arg, bound):
    # PyTorch's (Tensor) and (Number) overloads both refuse None, where clamp_ would take it as "no bound"
    if bound is None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, NoneType), but expected one of:\n"
            f" * (Tensor input, Tensor {arg})\n * (Tensor input, Number {arg})\n"
        )


def clamp_min_(self, min):
    """In-place clamp_min."""
    _one_bound("clamp_min_", "min", min)
    return self.clamp_(min=min)


def clamp_max_(self, max):
    """In-place clamp_max."""
    _one_bound("clamp_max_", "max", max)
    return self.clamp_(max=max)


def _cum_inplace(self, fn, dim, dtype):
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        _composite_shape._wrap(dim, self.dim())  # PyTorch checks the dim before the dtype
    if dtype is not None and dtype != self.dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {cpp_name(self.dtype)} and output tensor dtype "
            f"{cpp_name(dtype)} should match"
        )
    if self.dtype == _C.bool:  # PyTorch's out= kernel in bool, which it does not have (none runs if empty,
        if not self.numel() or self.dim() == 0:  # and a 0-d result is filled with self)
            return self
        _not_implemented(f"{fn.__name__}_out_{'cuda' if self.is_cuda else 'cpu'}", self)
    return _store(self, fn(_unwritten(self), dim))


@_argcheck.parses("int dim, *, ScalarType? dtype=None", method=True, upfront=False)
def cumsum_(self, dim, *, dtype=None):
    """In-place cumsum along dim."""
    return _cum_inplace(self, _C.cumsum, dim, dtype)


@_argcheck.parses("int dim, *, ScalarType? dtype=None", method=True, upfront=False)
def cumprod_(self, dim, *, dtype=None):
    """In-place cumprod along dim."""
    return _cum_inplace(self, _C.cumprod, dim, dtype)


def conj_physical_(self):
    """self's values conjugated in place (a conjugate view keeps its flag: its values are conjugated too)."""
    if not self.is_complex() and not self.requires_grad:
        return self  # (PyTorch's real conj_physical_ writes nothing either)
    return _store(self, _C.conj_physical(_unwritten(self)))


for _fn in (lerp_, addmm_, clamp_min_, clamp_max_, cumsum_, cumprod_, conj_physical_):
    TENSOR_METHODS[_fn.__name__] = _fn


# ---------------------------------------------------------------------------------------------- norms, statistics


# checked before the call: a float tensor for dim would otherwise run
@_argcheck.parses("Tensor input, Scalar p, int dim, Scalar maxnorm")
def renorm(input, p, dim, maxnorm):
    """`input` with each slice along `dim` whose p-norm exceeds maxnorm scaled down to norm maxnorm."""
    # a 0-dim tensor passes the parser as a Scalar: its number from here on
    p, maxnorm = (v.item() if isinstance(v, _C.Tensor) else v for v in (p, maxnorm))
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _composite_shape._wrap(dim, input.dim())  # PyTorch checks the dim before the dtype
    if not _is_float(input) and not input.is_complex():
        raise NotImplementedError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {scalar_name(input.dtype)}"
        )
    from minitorch import linalg

    others = [k for k in range(input.dim()) if k != d]
    norms = linalg.vector_norm(input, p, dim=others, keepdim=True)
    # PyTorch's 1e-7 keeps the rescaled norm just under maxnorm
    factor = _C._where(
        _C.gt(norms, maxnorm), _C.div(_C.full((), maxnorm, dtype=norms.dtype), norms + 1e-7), 1.0
    )
    return _C.mul(input, factor)


_export_with_inplace(renorm)


@_argcheck.parses("Tensor input, Tensor other, Scalar p=2")
def dist(input, other, p=2):
    """The p-norm of input - other (broadcast)."""
    # p is a Scalar to PyTorch's parser: a bool (False: the 0-norm) or a 0-d tensor, which vector_norm's ord is not
    if type(p) is bool:
        p = int(p)
    elif isinstance(p, _C.Tensor):
        p = p.item()
    diff = _C.sub(input, other)
    if (
        not _is_float(diff) and not diff.is_complex()
    ):  # PyTorch's norm refuses the promoted integer difference
        raise NotImplementedError(
            f"norm(): input dtype should be either floating point or complex. Got {scalar_name(diff.dtype)} instead."
        )
    if diff.numel() and not diff.is_complex() and type(p) in (int, float):
        # vector_norm's kernel without its wrapper's checks, which hold here (a real finite-or-inf order, every
        # dim of a non-empty difference): the wrapper was a third of dist's time on 8x8 inputs
        return _C.norm(diff, float(p), list(range(diff.dim())), False)
    from minitorch import linalg

    return linalg.vector_norm(diff, p)


_export(dist)


def _check_cov_weight(name, wt, n):
    """PyTorch's checks of one of cov's weights (its shape and dtype; the sign is checked on the values)."""
    if wt.dim() > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with {wt.dim()} dimensions"
        )
    if wt.numel() != n:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the input but got "
            f"{wt.numel()} != {n}"
        )
    if name == "fweights" and _is_float(wt):
        raise RuntimeError(
            f"cov(): expected fweights to have integral dtype but got fweights with {scalar_name(wt.dtype)} dtype"
        )
    if name == "aweights" and not _is_float(wt):
        raise RuntimeError(
            "cov(): expected aweights to have floating point dtype but got aweights with "
            f"{scalar_name(wt.dtype)} dtype"
        )


def _cov_of(x, w, aweights, correction):
    """The covariance matrices (..., V, V) of x's rows (..., V, N), weighted per observation by w (..., N) (the
    product of the weights, None without), aweights (..., N) as given. Written over leading dims with methods and
    operators, so vmap's rule runs it once on the whole batch (tensors batched at an outer level included)."""
    n = x.shape[-1]
    if w is None:
        avg = x.mean(-1, keepdim=True)
        norm = n - correction
    else:
        w = w.to(x.dtype)
        w_sum = w.sum(-1)
        avg = (x * w.unsqueeze(-2)).sum(-1, keepdim=True) / w_sum.unsqueeze(-1).unsqueeze(-1)
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - (w * aweights.to(x.dtype)).sum(-1) / w_sum * correction
    if not isinstance(norm, numbers.Number):
        norm = norm.clamp_min(0).unsqueeze(-1).unsqueeze(-1)
    else:
        if norm <= 0:
            warnings.warn(
                "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                "observations.",
                UserWarning,
                stacklevel=3,
            )
        norm = builtins.max(norm, 0)
    xm = x - avg
    xw = xm if w is None else xm * w.unsqueeze(-2)
    return (xw @ xm.mT) / norm


def _corr_of(c):
    """Pearson correlations from covariance matrices (..., V, V), clipped to [-1, 1] (batched as _cov_of)."""
    std = c.diagonal(0, -2, -1).sqrt()
    return (c / std.unsqueeze(-1) / std.unsqueeze(-2)).clamp(-1, 1)


@_argcheck.parses("Tensor input, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the variables in input's rows (observations in columns), with optional frequency and
    probability weights per observation."""
    if input.dim() > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    if input.dtype == _C.bool:
        raise NotImplementedError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    x = _to_float(x)
    n = x.shape[1]
    w = None
    for name, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        _check_cov_weight(name, wt, n)
        if wt.numel() and builtins.bool(_C.lt(wt, 0).any()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = wt.reshape(-1) if w is None else _C.mul(w, wt.reshape(-1))
    aw = None if aweights is None else aweights.reshape(-1)
    return _cov_of(x, w, aw, correction).squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the variables in input's rows, clipped to [-1, 1]."""
    if input.dim() > 2:
        raise RuntimeError(
            f"corrcoef(): expected input to have two or fewer dimensions but got an input with {input.dim()} "
            "dimensions"
        )
    c = cov(input)
    if c.dim() == 0:
        return _C.div(c, c)
    return _corr_of(c)


_export(cov)
_export(corrcoef)


# ---------------------------------------------------------------------------------------------- float bits

# The integer dtype of each half-precision float's width: nextafter of float16 and bfloat16 steps their bits
# here (a handful of integer passes; float32/float64 and frexp are kernels: kernels/functors.h Nextafter,
# frexp_bits).
_HALF_BITS = {_C.float16: _C.int16, _C.bfloat16: _C.int16}


_TINY = {_C.float16: 2.0**-24, _C.bfloat16: 2.0**-133}


def frexp(input, *, out=None):
    """(mantissa, exponent) with input = mantissa * 2**exponent, |mantissa| in [0.5, 1) (0, inf, nan: exponent 0)."""
    if not _is_float(input):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    x = input.detach()
    # one pass each on the bits (kernels/functors.h frexp_bits); the exponent comes as a float of the dtype (exact)
    mant, e = _C._frexp_mantissa(x), _C._frexp_exponent(x).to(_C.int32)
    if input.requires_grad and _C.is_grad_enabled():
        # PyTorch's FrexpBackward: grad / 2**exponent (inf for subnormal inputs, as theirs); the exponent has none
        inv_scale = _C.exp2(_C.neg(e.to(_C.float64))).to(x.dtype)
        mant = _with_gradient(input, mant, lambda grad, _x: _C.mul(grad, inv_scale), reads_x=False)
    r = _rt.frexp((mant, e))
    if out is not None:
        out[0].copy_(r[0])
        out[1].copy_(r[1])
        return _rt.frexp((out[0], out[1]))
    return r


_export(frexp)


def nextafter(input, other):
    """The next representable float after input in the direction of other (elementwise)."""
    for i, (what, t) in enumerate((("input", input), ("other", other))):
        if not isinstance(t, _C.Tensor):
            raise TypeError(
                f"nextafter(): argument '{what}' (position {i + 1}) must be Tensor, not {type(t).__name__}"
            )
    x, y = input, other
    dt = _C.result_type(x, y)  # PyTorch's kernel dispatches on the common dtype
    if not dt.is_floating_point:
        _not_implemented("nextafter_cpu", dt)
    x, y = x.to(dt), y.to(dt)
    if dt in (_C.float32, _C.float64):
        return _C._nextafter(x, y)  # one pass on the bits (kernels/functors.h Nextafter)
    # half and bfloat16: their opmath is float, so the bits are stepped here
    x, y = _composite_shape.broadcast_tensors(x, y)
    itype = _HALF_BITS[dt]
    # a float's bits read as a signed integer move one unit away from zero when the integer moves one unit
    # away from zero (sign and magnitude: the magnitude bits count up either side); from +-max it reaches
    # +-inf, from +-inf toward any finite y it reaches +-max
    bits = x.detach().view(itype)
    away = _C.eq(_C.gt(y, x), _C.gt(x, 0))
    r = _C.add(bits, _C.sub(_C.mul(away.to(itype), 2), 1)).view(dt)
    r = _C._where(_C.eq(x, 0), _C.mul(_C.sign(y), _TINY[dt]).to(dt), r)
    r = _C._where(_C.eq(x, y), y, r)
    r = _C._where(_C.logical_or(_C.isnan(x), _C.isnan(y)), _C.add(x, y), r)
    if _C.is_grad_enabled() and (x.requires_grad or y.requires_grad):
        return _NextafterGrad.apply(x, y, r.detach())
    return r


class _NextafterGrad(_Function):
    """PyTorch's NextafterBackward: the gradient passes to input where input != other (NaN included), other
    gets zeros."""

    @staticmethod
    def forward(ctx, x, y, value):
        ctx.moves = _C.ne(x, y)
        return value

    @staticmethod
    def backward(ctx, grad):
        return _C.mul(grad, ctx.moves), _C.zeros_like(grad), None


_export_with_inplace(nextafter)


@_argcheck.parses("Tensor input, int p")
def mvlgamma(input, p):
    """The log multivariate gamma function of dimension p: sum_i lgamma(a - i/2) + p(p-1)/4 log(pi)
    (minitorch.special.multigammaln)."""
    if input.dtype == _C.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    if p <= 8:
        # one lgamma pass per term, summed as they come: the p terms stacked on a trailing dim and summed over
        # it cost 3x a single lgamma at p = 1 (the broadcast add, then a reduction over a dim of one)
        acc = _C.lgamma(x)
        for i in range(1, p):
            acc = _C.add(acc, _C.lgamma(_C.sub(x, i / 2)))
        return acc if p == 1 else _C.add(acc, p * (p - 1) / 4.0 * math.log(math.pi))
    offs = _C.mul(_C.arange(p, device=x.device, dtype=x.dtype), -0.5)
    terms = _C.lgamma(_C.add(x.unsqueeze(-1), offs))
    return _C.add(_C.sum(terms, -1), p * (p - 1) / 4.0 * math.log(math.pi))


_export_with_inplace(mvlgamma)


# ---------------------------------------------------------------------------------------------- conj / neg bits


def resolve_conj(input):
    """input itself: conj() is eager here, so no tensor carries a conjugate bit to resolve."""
    if not isinstance(input, _C.Tensor):  # (inline: a call to the check was a third of this call's time)
        _argcheck.check_tensor("resolve_conj", "input", 1, input)
    return input


def resolve_neg(input):
    """input itself (no lazy negation on real tensors)."""
    if not isinstance(input, _C.Tensor):  # (inline: a call to the check was a third of this call's time)
        _argcheck.check_tensor("resolve_neg", "input", 1, input)
    return input


def is_conj(input):
    """False: conj() is eager here (it returns conjugated values), so no tensor carries the conjugate bit."""
    if not isinstance(input, _C.Tensor):  # (inline: a call to the check was a third of this call's time)
        _argcheck.check_tensor("is_conj", "input", 1, input)
    return False


def is_neg(input):
    """False: real tensors never carry the negative bit."""
    if not isinstance(input, _C.Tensor):  # (inline: a call to the check was a third of this call's time)
        _argcheck.check_tensor("is_neg", "input", 1, input)
    return False


for _fn in (resolve_conj, resolve_neg, is_conj, is_neg):
    _export(_fn)


# ---------------------------------------------------------------------------------------------- fake quantization


# PyTorch's words, its spacing included (a line continuation inside ATen's string)
_QUANT_RANGE = "`quant_min` should be less than or         equal to `quant_max`."
_ZERO_POINT_RANGE = "`zero_point` must be between `quant_min` and `quant_max`."


def _fake_quantize(input, scale, zero_point, quant_min, quant_max):
    """PyTorch's fake_quantize kernels: q = zero_point + nearbyint(x * (1.0f / scale)), the output
    (clamp(q) - zero_point) * scale. scale is a float32 (its kernels take float: a float64 input still sees the
    float32-rounded scale), x * (1 / scale) is in the input's precision for float64 and float32 for the rest (a
    half times a float is a float), the output's product in float32 for every dtype (as PyTorch's); the clamp is fmin/fmax's, so NaN goes to quant_min. The gradient passes where q was in
    range (the straight-through estimator: PyTorch's cached mask)."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f'"fake_quantize_tensor_cachemask_kernel_type_handling" not implemented for '
            f"'{scalar_name(input.dtype)}'"
        )
    cd = _C.float64 if input.dtype == _C.float64 else _C.float32
    x = input.detach().to(cd)
    scale = scale.to(_C.float32)
    inv = _C.div(1.0, scale).to(cd)
    if (
        isinstance(zero_point, _C.Tensor) and zero_point.is_floating_point()
    ):  # (QAT's learnable form) not rounded
        zero_point = zero_point.to(_C.float32)
        q = _C.round(_C.add(_C.mul(x, inv), zero_point.to(cd)))
    else:
        q = _C.add(_C.round(_C.mul(x, inv)), zero_point)
    in_range = _C.logical_and(_C.ge(q, quant_min), _C.le(q, quant_max))
    clamped = _C._where(_C.isnan(q), _as_tensor(float(quant_min), q), _C.clamp(q, quant_min, quant_max))
    if isinstance(zero_point, _C.Tensor) and zero_point.is_floating_point():
        value = _C.mul(_C.sub(clamped.double(), zero_point.double()), scale.double()).to(input.dtype)
    else:
        value = _C.mul(_C.sub(clamped, zero_point).to(_C.float32), scale).to(input.dtype)
    return _with_gradient(input, value, lambda grad, _x: _C.mul(grad, in_range), reads_x=False)


@_argcheck.parses(
    "Tensor input, float scale, int zero_point, int quant_min, int quant_max",
    "Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max",
)
def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """input quantized to the integers [quant_min, quant_max] with scale and zero_point and back, in floating
    point (quantization-aware training's fake quantization); the gradient passes where input fell in range."""
    if quant_min > quant_max:
        raise RuntimeError(_QUANT_RANGE)
    if isinstance(scale, _C.Tensor):  # the tensor_qparams overload: read as numbers, zero_point as an int
        if scale.requires_grad and _C.is_grad_enabled():
            raise RuntimeError(
                "The function '_fake_quantize_per_tensor_affine_cachemask_tensor_qparams' is not "
                "differentiable with respect to argument 'scale'. This input cannot have requires_grad True."
            )
        scale, zero_point = scale.item(), int(zero_point.item())
    elif not quant_min <= zero_point <= quant_max:
        raise RuntimeError(_ZERO_POINT_RANGE)
    return _fake_quantize(input, _C.scalar_tensor(scale, dtype=_C.float32, device=input.device), zero_point,
                          quant_min, quant_max)  # fmt: skip


_export(fake_quantize_per_tensor_affine, method=False)


@_argcheck.parses("Tensor input, Tensor scale, Tensor zero_point, int axis, int quant_min, int quant_max")
def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """fake_quantize_per_tensor_affine with a scale and zero_point per index of dimension axis."""
    if zero_point.dtype not in (_C.int32, _C.float32, _C.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {scalar_name(zero_point.dtype)}")
    if scale.dim() != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.dim() != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if scale.numel() != input.size(axis):
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
    if quant_min > quant_max:
        raise RuntimeError(_QUANT_RANGE)
    if not zero_point.is_floating_point() and (
        _C.lt(zero_point, quant_min).any().item() or _C.gt(zero_point, quant_max).any().item()
    ):
        raise RuntimeError(_ZERO_POINT_RANGE)
    if not 0 <= axis <= input.dim():
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    shape = [1] * input.dim()
    shape[axis] = -1
    zp = zero_point.detach().reshape(shape)
    if not zp.is_floating_point():
        zp = zp.to(_C.float64)
    return _fake_quantize(input, scale.detach().reshape(shape), zp, quant_min, quant_max)


_export(fake_quantize_per_channel_affine, method=False)
