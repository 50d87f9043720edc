"""Forward-mode (JVP) rules, one row per op. The ops of csrc/ops/ops.schema declare theirs there, beside their
`grad:` (keys `jvp:`, `jvp_<input>:`, `jvp_args:`; compiled into _C and read by `_schema_rules`); the rows of
_COMPOSITE_RULES below are for the Python composites and public names the schema does not hold.

Each row is a dict of strings (the schema's `jvp_args:` is a row's `args`):
  args:        the op's Python parameters (default `self` for unary rows, `self, other` for binary rows); a rule
               binds the call's arguments by them, so every parameter name is usable in the expressions.
  jvp:         the output tangent as one Python expression over the primals (the parameter names), `result`
               (the primal output), and `t_<name>`, the tangent of each tensor parameter (zeros when it has
               none). A tuple for ops with several outputs (None for an index output).
  jvp_<name>:  instead of `jvp`, one term per differentiable tensor parameter, summed over the parameters that
               carry a tangent (a linear op in two operands, such as matmul, then computes only what it needs).
The expressions are written in minitorch ops: bare names are torch functions (`exp`, `where`), `F.`,
`special.` and `linalg.` name those namespaces, `op` is the op itself (for linear ops: `op(t_self, *args,
**kwargs)`), `math` is Python's, and the `_helpers` below compute the longer ones. A row `jvp: None` marks an
op with no tangent (its outputs do not depend differentiably on the inputs); `jvp: GENERIC` asks for the
generic double-vjp JVP on purpose (random ops, which must reuse the draw of the primal run), without warning.
"""

import inspect
import math
import operator
import sys

from minitorch import _C

__all__ = ["GENERIC", "JVP_RULES", "get_rule"]

GENERIC = "GENERIC"  # a rule's value (or an expression's result) asking for the generic JVP


def _root():
    return sys.modules["minitorch"]


# ------------------------------------------------------------------------------------------------ helpers
# Called from the expressions with primals and tangents (either may be a dual of an outer level or batched).


def _relu_mask(t, result):
    return t * (result > 0)


def _softmax_dim(ndim):
    # PyTorch's implicit dim for softmax(dim=None)
    return 0 if ndim in (0, 1, 3) else 1


def _gelu_jvp(t, x, approximate="none"):
    torch = _root()
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        inner = k * (x + 0.044715 * x * x * x)
        th = torch.tanh(inner)
        d = 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * k * (1 + 3 * 0.044715 * x * x)
        return t * d
    cdf = 0.5 * (1 + torch.erf(x * (1 / math.sqrt(2.0))))
    pdf = torch.exp(-0.5 * x * x) * (1 / math.sqrt(2.0 * math.pi))
    return t * (cdf + x * pdf)


def _silu_jvp(t, x):
    s = _root().sigmoid(x)
    return t * (s * (1 + x * (1 - s)))


def _mish_jvp(t, x):
    torch = _root()
    tsp = torch.tanh(torch.nn.functional.softplus(x))
    return t * (tsp + x * (1 - tsp * tsp) * torch.sigmoid(x))


def _safe_div(a, b):
    torch = _root()
    return a / torch.where(b == 0, torch.ones_like(b), b)


def _i1_jvp(t, x, result):
    torch = _root()
    # I1'(x) = I0(x) - I1(x)/x, 1/2 at 0
    return t * torch.where(x == 0, torch.full_like(x, 0.5), torch.i0(x) - _safe_div(result, x))


def _i1e_jvp(t, x, result):
    torch = _root()
    d = torch.special.i0e(x) - result * (torch.sign(x) + _safe_div(torch.ones_like(x), x))
    return t * torch.where(x == 0, torch.full_like(x, 0.5), d)


def _pow_self(t, x, e):
    torch = _root()
    if isinstance(e, (int, float)):
        return t * (0.0 if e == 0 else e * torch.pow(x, e - 1))
    return t * torch.where(e == 0, torch.zeros_like(e), e * torch.pow(x, e - 1))


def _pow_exponent(t, x, e, result):
    torch = _root()
    if isinstance(x, (int, float)):
        return (
            t * (result * math.log(x))
            if x > 0
            else t
            * torch.where(
                e >= 0, torch.zeros_like(result), result * math.log(x) if x != 0 else result * float("-inf")
            )
        )
    # 0 ** e has derivative 0 in e for e >= 0 (PyTorch's convention, which also avoids 0 * -inf)
    return t * torch.where((x == 0) & (e >= 0), torch.zeros_like(result), result * torch.log(x))


def _maxmin(t_self, t_other, self, other, larger):
    torch = _root()
    pick = self > other if larger else self < other
    tie = self == other
    return torch.where(pick, t_self, torch.where(tie, (t_self + t_other) / 2, t_other))


def _take(t, indices, dim, keepdim):
    """The tangent entries an indexed reduction picked (sort/topk/kthvalue/mode/max(dim))."""
    if t.dim() == 0:
        return t.clone()
    if keepdim or indices.dim() == t.dim():
        return t.gather(dim, indices)
    return t.gather(dim, indices.unsqueeze(dim)).squeeze(dim)


def _reduce_dims(x, dim):
    if dim is None:
        return list(range(x.dim()))
    if isinstance(dim, int):
        return [dim % max(x.dim(), 1)]
    return [d % max(x.dim(), 1) for d in dim]


def _keep(r, x, dim, keepdim):
    """A reduction's result with the reduced dims kept (size 1), for broadcasting against the input."""
    if keepdim or x.dim() == 0:
        return r
    for d in sorted(_reduce_dims(x, dim)):
        r = r.unsqueeze(d)
    return r


def _logsumexp_jvp(t, x, dim, keepdim, result):
    torch = _root()
    w = torch.exp(x - _keep(result, x, dim, keepdim))
    return (t * w).sum(dim, keepdim=keepdim)


def _cumprod_jvp(t, x, dim, result):
    """d cumprod_k = sum_{j<=k} t_j prod_{i<j} x_i prod_{j<i<=k} x_i, exact also where x has zeros (O(n^2))."""
    torch = _root()
    if x.dim() == 0:
        return t.clone()
    if t.dtype != result.dtype:
        t = t.to(result.dtype)
        x = x.to(result.dtype)
    xd = x.movedim(dim, -1)
    td = t.movedim(dim, -1)
    rd = result.movedim(dim, -1)
    n = xd.shape[-1]
    if n == 0:
        return t.clone()
    ones = torch.ones_like(rd[..., :1])
    before = torch.cat([ones, rd[..., :-1]], -1)  # prod_{i<j} x_i
    idx = torch.arange(n, device=x.device)
    upper = idx.unsqueeze(1) >= idx.unsqueeze(0)  # [j, i]: i <= j
    e = torch.where(upper, torch.ones_like(xd).unsqueeze(-2), xd.unsqueeze(-2))  # [..., j, i]
    after = torch.cumprod(e, -1)  # [..., j, k] = prod_{j<i<=k} x_i
    lower = idx.unsqueeze(1) <= idx.unsqueeze(0)  # [j, k]: j <= k
    contrib = (td * before).unsqueeze(-1) * after * lower
    return contrib.sum(-2).movedim(-1, dim)


def _parse_var(x, args, kwargs):
    """(dims, correction, keepdim) of var/std/var_mean/std_mean's overloads: (dim, unbiased, keepdim) positional,
    or unbiased as the only positional bool, or correction=."""
    dim, unbiased, keepdim = None, None, kwargs.get("keepdim", False)
    args = list(args)
    if args and isinstance(args[0], bool):
        unbiased = args.pop(0)
    else:
        if args:
            dim = args.pop(0)
        if args:
            unbiased = args.pop(0)
        if args:
            keepdim = args.pop(0)
    dim = kwargs.get("dim", dim)
    unbiased = kwargs.get("unbiased", unbiased)
    correction = kwargs.get("correction")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction, keepdim


def _var_jvp(t, x, args, kwargs):
    dim, correction, keepdim = _parse_var(x, args, kwargs)
    dims = _reduce_dims(x, dim)
    n = 1
    for d in dims:
        n *= x.shape[d] if x.dim() else 1
    centered = x - x.mean(dims if x.dim() else None, keepdim=True)
    s = (centered * t).sum(dims if x.dim() else None, keepdim=keepdim)
    return s * (2.0 / max(n - correction, 0)) if n - correction > 0 else s * float("nan")


def _std_jvp(t, x, result, args, kwargs):
    return _var_jvp(t, x, args, kwargs) / (2 * result)


def _var_mean_jvp(t, x, result, args, kwargs):
    dim, _, keepdim = _parse_var(x, args, kwargs)
    mean_t = t.mean(_reduce_dims(x, dim) if x.dim() else None, keepdim=keepdim)
    return _var_jvp(t, x, args, kwargs), mean_t


def _std_mean_jvp(t, x, result, args, kwargs):
    dim, _, keepdim = _parse_var(x, args, kwargs)
    mean_t = t.mean(_reduce_dims(x, dim) if x.dim() else None, keepdim=keepdim)
    return _var_jvp(t, x, args, kwargs) / (2 * result[0]), mean_t


def _reduce_max_jvp(t, x, result, args, kwargs, larger):
    """max/min/amax/amin: full reductions spread the tangent evenly over ties (as the backward), dim
    reductions take the chosen entry; max(x, y) is maximum."""
    if args and _is_tensor(args[0]) and not isinstance(args[0], int):
        return GENERIC  # the binary overload: dispatched as maximum/minimum's rule would be; rare as a call
    if isinstance(result, tuple):  # (values, indices)
        dim = args[0] if args else kwargs.get("dim")
        keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
        return _take(t, result[1], dim, keepdim), None
    dim = args[0] if args else kwargs.get("dim")
    keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
    kept = _keep(result, x, dim, keepdim) if dim is not None else result
    mask = (x == kept).to(t.dtype)
    red = _reduce_dims(x, dim) if x.dim() else None
    if dim is None:
        return (t * mask).sum() / mask.sum()
    return (t * mask).sum(red, keepdim=keepdim) / mask.sum(red, keepdim=keepdim)


def _is_tensor(x):
    from minitorch import _C

    return _C._is_tensor(x) or type(x).__name__ == "BatchedTensor"


def _prod_jvp(t, x, result, args, kwargs):
    torch = _root()
    if not args and "dim" not in kwargs:
        flat_r = _cumprod_jvp(t.reshape(-1), x.reshape(-1), 0, torch.cumprod(x.reshape(-1), 0))
        out = flat_r[-1] if x.numel() else torch.zeros_like(result)
        return out.to(result.dtype)
    dim = args[0] if args else kwargs["dim"]
    keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
    c = _cumprod_jvp(t, x, dim, torch.cumprod(x, dim))
    last = c.narrow(dim, x.shape[dim] - 1, 1) if x.dim() else c
    return last if keepdim or x.dim() == 0 else last.squeeze(dim)


def _norm_jvp(t, x, result, args, kwargs):
    """Vector p-norms (p = 2 default, 'fro'); other norms take the generic JVP."""
    p = args[0] if args else kwargs.get("p", "fro")
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    if p not in ("fro", 2, 2.0):
        return GENERIC
    red = _reduce_dims(x, dim) if x.dim() else None
    num = (x * t).sum(red, keepdim=keepdim)
    return _safe_div(num, result)


def _clamp_jvp(t, x, result, args, kwargs):
    torch = _root()
    lo = args[0] if args else kwargs.get("min")
    hi = args[1] if len(args) > 1 else kwargs.get("max")
    keep = torch.ones_like(x, dtype=torch.bool)
    if lo is not None:
        keep = keep & (x >= lo)
    if hi is not None:
        keep = keep & (x <= hi)
    return t * keep


def _layer_norm_jvp(x, normalized_shape, weight, bias, eps, t_x, t_w, t_b):
    torch = _root()
    dims = list(range(x.dim() - len(normalized_shape), x.dim()))
    mu = x.mean(dims, keepdim=True)
    var = ((x - mu) * (x - mu)).mean(dims, keepdim=True)
    rstd = torch.rsqrt(var + eps)
    xhat = (x - mu) * rstd
    out = None
    if t_x is not None:
        tm = t_x.mean(dims, keepdim=True)
        txh = rstd * (t_x - tm - xhat * (t_x * xhat).mean(dims, keepdim=True))
        out = txh * weight if weight is not None else txh
    if t_w is not None:
        term = xhat * t_w
        out = term if out is None else out + term
    if t_b is not None:
        out = t_b.expand(tuple(x.shape)) if out is None else out + t_b
    return out


def _bias_nd(t_bias, result):
    """A conv bias tangent [C] shaped to broadcast over [N, C, *spatial]."""
    return t_bias.reshape([-1] + [1] * (result.dim() - 2))


def _glu_jvp(x, t, dim):
    a, b = x.chunk(2, dim)
    ta, tb = t.chunk(2, dim)
    s = _root().sigmoid(b)
    return ta * s + a * s * (1 - s) * tb


def _hardswish_jvp(t, x):
    torch = _root()
    # PyTorch's backward: 0 below -3, x/3 + 1/2 on [-3, 3], 1 above
    return t * torch.where(x < -3, torch.zeros_like(x), torch.where(x <= 3, x / 3 + 0.5, torch.ones_like(x)))


def _reduce(x, reduction):
    if reduction == "mean":
        return x.mean()
    if reduction == "sum":
        return x.sum()
    return x


def _loss_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    sa = True if size_average is None else size_average
    rd = True if reduce is None else reduce
    return ("mean" if sa else "sum") if rd else "none"


def _mse_jvp(x, target, t_x, t_target, size_average, reduce, reduction, weight):
    torch = _root()
    if weight is not None:
        return GENERIC
    diff = x - target
    tan = 0
    if t_x is not None:
        tan = t_x
    if t_target is not None:
        tan = tan - t_target
    return _reduce(2 * diff * tan, _loss_reduction(size_average, reduce, reduction)) + 0 * torch.zeros(())


def _cross_entropy_jvp(x, target, t_x, t_target, weight, ignore_index, reduction, label_smoothing, sa, rd):
    torch = _root()
    F = torch.nn.functional
    if t_target is not None or label_smoothing != 0.0 or target.is_floating_point():
        return GENERIC
    cdim = 1 if x.dim() > 1 else 0
    p = torch.softmax(x, cdim)
    t_lp = t_x - (t_x * p).sum(cdim, keepdim=True)
    return F.nll_loss(
        t_lp, target, weight, ignore_index=ignore_index, reduction=_loss_reduction(sa, rd, reduction)
    )


def _where_jvp(condition, t_input, t_other, input, other, result):
    torch = _root()
    a = t_input if t_input is not None else 0.0
    b = t_other if t_other is not None else 0.0
    if not _is_tensor(a) and not _is_tensor(b):
        return torch.zeros_like(result)
    if not _is_tensor(a):
        a = torch.zeros_like(b)
    if not _is_tensor(b):
        b = torch.zeros_like(a)
    return torch.where(condition, a, b)


def _to_jvp(t, result):
    if not result.is_floating_point():
        return None
    return t.to(dtype=result.dtype, device=result.device)


def _setitem_value(t):
    return t


# ------------------------------------------------------------------------------------------------ the table

_LINEAR = {"args": "self, *args, **kwargs", "jvp": "op(t_self, *args, **kwargs)"}
_ZERO = {"jvp": "zeros_like(result)"}
_NONE = {"jvp": None}
# rules two spellings share (max/amax, min/amin, clamp/clip)
_MAX = {"args": "self, *args, **kwargs", "jvp": "_reduce_max_jvp(t_self, self, result, args, kwargs, True)"}
_MIN = {"args": "self, *args, **kwargs", "jvp": "_reduce_max_jvp(t_self, self, result, args, kwargs, False)"}
_CLAMP = {"args": "self, *args, **kwargs", "jvp": "_clamp_jvp(t_self, self, result, args, kwargs)"}

_COMPOSITE_RULES = {
    # ---- elementwise composites and public names of schema ops (the schema's own names are in ops.schema)
    "positive": {"jvp": "t_self"},
    "fix": _ZERO,
    "frac": {"jvp": "t_self"},
    "square": {"jvp": "2 * t_self * self"},
    "special.i0e": {"args": "self", "jvp": "t_self * (special.i1e(self) - sign(self) * result)"},
    "special.i1": {"args": "self", "jvp": "_i1_jvp(t_self, self, result)"},
    "special.i1e": {"args": "self", "jvp": "_i1e_jvp(t_self, self, result)"},
    # ---- binary composites
    "fmax": {"args": "self, other", "jvp": "_maxmin(t_self, t_other, self, other, True)"},
    "fmin": {"args": "self, other", "jvp": "_maxmin(t_self, t_other, self, other, False)"},
    "bitwise_left_shift": _NONE,
    "bitwise_right_shift": _NONE,
    # ---- composites: linear algebra
    "matmul": {
        "args": "self, other",
        "jvp_self": "matmul(t_self, other)",
        "jvp_other": "matmul(self, t_other)",
    },
    "mm": {"args": "self, mat2", "jvp_self": "mm(t_self, mat2)", "jvp_mat2": "mm(self, t_mat2)"},
    "bmm": {"args": "self, mat2", "jvp_self": "bmm(t_self, mat2)", "jvp_mat2": "bmm(self, t_mat2)"},
    "mv": {"args": "self, vec", "jvp_self": "mv(t_self, vec)", "jvp_vec": "mv(self, t_vec)"},
    "dot": {"args": "self, tensor", "jvp_self": "dot(t_self, tensor)", "jvp_tensor": "dot(self, t_tensor)"},
    "outer": {"args": "self, vec2", "jvp_self": "outer(t_self, vec2)", "jvp_vec2": "outer(self, t_vec2)"},
    "addmm": {
        "args": "self, mat1, mat2, *, beta=1, alpha=1",
        "jvp_self": "beta * t_self",
        "jvp_mat1": "alpha * mm(t_mat1, mat2)",
        "jvp_mat2": "alpha * mm(mat1, t_mat2)",
    },
    "baddbmm": {
        "args": "self, batch1, batch2, *, beta=1, alpha=1, out=None",
        "jvp_self": "beta * t_self",
        "jvp_batch1": "alpha * bmm(t_batch1, batch2)",
        "jvp_batch2": "alpha * bmm(batch1, t_batch2)",
    },
    "addcmul": {
        "args": "self, tensor1, tensor2, *, value=1, out=None",
        "jvp_self": "t_self",
        "jvp_tensor1": "value * t_tensor1 * tensor2",
        "jvp_tensor2": "value * tensor1 * t_tensor2",
    },
    "addcdiv": {
        "args": "self, tensor1, tensor2, *, value=1, out=None",
        "jvp_self": "t_self",
        "jvp_tensor1": "value * t_tensor1 / tensor2",
        "jvp_tensor2": "-value * tensor1 * t_tensor2 / (tensor2 * tensor2)",
    },
    "lerp": {
        "args": "self, end, weight",
        "jvp_self": "t_self * (1 - weight)",
        "jvp_end": "t_end * weight",
        "jvp_weight": "t_weight * (end - self)",
    },
    "einsum": {"args": "equation, *operands", "jvp": GENERIC},
    "F.linear": {
        "args": "input, weight, bias=None",
        "jvp_input": "F.linear(t_input, weight)",
        "jvp_weight": "F.linear(input, t_weight)",
        "jvp_bias": "t_bias",
    },
    "F.conv1d": {
        "args": "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1",
        "jvp_input": "F.conv1d(t_input, weight, None, stride, padding, dilation, groups)",
        "jvp_weight": "F.conv1d(input, t_weight, None, stride, padding, dilation, groups)",
        "jvp_bias": "_bias_nd(t_bias, result)",
    },
    "F.conv2d": {
        "args": "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1",
        "jvp_input": "F.conv2d(t_input, weight, None, stride, padding, dilation, groups)",
        "jvp_weight": "F.conv2d(input, t_weight, None, stride, padding, dilation, groups)",
        "jvp_bias": "_bias_nd(t_bias, result)",
    },
    "F.conv3d": {
        "args": "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1",
        "jvp_input": "F.conv3d(t_input, weight, None, stride, padding, dilation, groups)",
        "jvp_weight": "F.conv3d(input, t_weight, None, stride, padding, dilation, groups)",
        "jvp_bias": "_bias_nd(t_bias, result)",
    },
    # ---- composites: activations
    "F.relu": {"args": "input, inplace=False", "jvp": "_relu_mask(t_input, result)"},
    "F.gelu": {"args": "input, approximate='none'", "jvp": "_gelu_jvp(t_input, input, approximate)"},
    "F.silu": {"args": "input, inplace=False", "jvp": "_silu_jvp(t_input, input)"},
    "F.mish": {"args": "input, inplace=False", "jvp": "_mish_jvp(t_input, input)"},
    "F.tanh": {"args": "input", "jvp": "t_input * (1 - result * result)"},
    "F.sigmoid": {"args": "input", "jvp": "t_input * result * (1 - result)"},
    "F.leaky_relu": {
        "args": "input, negative_slope=0.01, inplace=False",
        "jvp": "where(input > 0, t_input, t_input * negative_slope)",
    },
    "F.relu6": {"args": "input, inplace=False", "jvp": "t_input * ((input > 0) & (input < 6))"},
    "F.hardsigmoid": {"args": "input, inplace=False", "jvp": "t_input * ((input > -3) & (input < 3)) / 6"},
    "F.hardswish": {"args": "input, inplace=False", "jvp": "_hardswish_jvp(t_input, input)"},
    "F.softsign": {"args": "input", "jvp": "t_input / ((1 + abs(input)) * (1 + abs(input)))"},
    "F.threshold": {"args": "input, threshold, value, inplace=False", "jvp": "t_input * (input > threshold)"},
    "F.hardshrink": {"args": "input, lambd=0.5", "jvp": "t_input * ((input < -lambd) | (input > lambd))"},
    "F.glu": {"args": "input, dim=-1", "jvp": "_glu_jvp(input, t_input, dim)"},
    "F.softmin": {
        "args": "input, dim=None, _stacklevel=3, dtype=None",
        "jvp": "-result * (t_input.to(result.dtype) - (t_input.to(result.dtype) * result).sum("
        "_softmax_dim(input.dim()) if dim is None else dim, keepdim=True))",
    },
    "F.elu": {
        "args": "input, alpha=1.0, inplace=False",
        "jvp": "where(input > 0, t_input, t_input * (result + alpha))",
    },
    "F.softplus": {
        "args": "input, beta=1.0, threshold=20.0",
        "jvp": "where(input * beta > threshold, t_input, t_input * sigmoid(input * beta))",
    },
    "F.logsigmoid": {"args": "input", "jvp": "t_input * sigmoid(-input)"},
    "F.hardtanh": {
        "args": "input, min_val=-1.0, max_val=1.0, inplace=False",
        "jvp": "t_input * ((input > min_val) & (input < max_val))",
    },
    "F.softmax": {
        "args": "input, dim=None, _stacklevel=3, dtype=None",
        "jvp": "result * (t_input.to(result.dtype) - (t_input.to(result.dtype) * result).sum("
        "_softmax_dim(input.dim()) if dim is None else dim, keepdim=True))",
    },
    "F.log_softmax": {
        "args": "input, dim=None, _stacklevel=3, dtype=None",
        "jvp": "t_input.to(result.dtype) - (t_input.to(result.dtype) * exp(result)).sum("
        "_softmax_dim(input.dim()) if dim is None else dim, keepdim=True)",
    },
    "F.dropout": {
        "args": "input, p=0.5, training=True, inplace=False",
        "jvp": "t_input * 1.0 if not training or p == 0 else GENERIC",
    },
    # ---- composites: normalization and losses
    "F.layer_norm": {
        "args": "input, normalized_shape, weight=None, bias=None, eps=1e-05",
        "jvp": "_layer_norm_jvp(input, normalized_shape, weight, bias, eps, t_input, t_weight, t_bias)",
        "keep_none": "1",
    },
    "F.mse_loss": {
        "args": "input, target, size_average=None, reduce=None, reduction='mean', weight=None",
        "jvp": "_mse_jvp(input, target, t_input, t_target, size_average, reduce, reduction, weight)",
        "keep_none": "1",
    },
    "F.cross_entropy": {
        "args": "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, "
        "reduction='mean', label_smoothing=0.0",
        "jvp": "_cross_entropy_jvp(input, target, t_input, t_target, weight, ignore_index, reduction, "
        "label_smoothing, size_average, reduce)",
        "keep_none": "1",
    },
    "F.nll_loss": {
        "args": "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'",
        "jvp_input": "F.nll_loss(t_input, target, weight, size_average, ignore_index, reduce, reduction)",
    },
    # ---- composites: reductions
    "sum": {"args": "self, *args, **kwargs", "jvp": "sum(t_self, *args, **kwargs)"},
    "mean": {"args": "self, *args, **kwargs", "jvp": "mean(t_self, *args, **kwargs)"},
    "nansum": {
        "args": "self, *args, **kwargs",
        "jvp": "sum(where(isnan(self), 0.0, t_self), *args, **kwargs)",
    },
    "var": {"args": "self, *args, **kwargs", "jvp": "_var_jvp(t_self, self, args, kwargs)"},
    "std": {"args": "self, *args, **kwargs", "jvp": "_std_jvp(t_self, self, result, args, kwargs)"},
    "var_mean": {"args": "self, *args, **kwargs", "jvp": "_var_mean_jvp(t_self, self, result, args, kwargs)"},
    "std_mean": {"args": "self, *args, **kwargs", "jvp": "_std_mean_jvp(t_self, self, result, args, kwargs)"},
    "prod": {"args": "self, *args, **kwargs", "jvp": "_prod_jvp(t_self, self, result, args, kwargs)"},
    "max": _MAX,
    "min": _MIN,
    "amax": _MAX,
    "amin": _MIN,
    "norm": {"args": "self, *args, **kwargs", "jvp": "_norm_jvp(t_self, self, result, args, kwargs)"},
    "clamp": _CLAMP,
    "clip": _CLAMP,
    "trace": _LINEAR,
    # ---- composites: shape and indexing (linear in self: the op applied to the tangent)
    "reshape": _LINEAR,
    "view": _LINEAR,
    "view_as": {"args": "self, other", "jvp_self": "t_self.view_as(other)"},
    "reshape_as": {"args": "self, other", "jvp_self": "t_self.reshape_as(other)"},
    "expand_as": {"args": "self, other", "jvp_self": "t_self.expand_as(other)"},
    "transpose": _LINEAR,
    "swapaxes": _LINEAR,
    "swapdims": _LINEAR,
    "permute": _LINEAR,
    "t": _LINEAR,
    "adjoint": _LINEAR,
    "expand": _LINEAR,
    "broadcast_to": _LINEAR,
    "squeeze": _LINEAR,
    "unsqueeze": _LINEAR,
    "flatten": _LINEAR,
    "unflatten": _LINEAR,
    "ravel": _LINEAR,
    "narrow": _LINEAR,
    "select": _LINEAR,
    "movedim": _LINEAR,
    "moveaxis": _LINEAR,
    "flip": _LINEAR,
    "fliplr": _LINEAR,
    "flipud": _LINEAR,
    "roll": _LINEAR,
    "rot90": _LINEAR,
    "repeat": _LINEAR,
    "tile": _LINEAR,
    "repeat_interleave": _LINEAR,
    "diagonal": _LINEAR,
    "diag": _LINEAR,
    "diag_embed": _LINEAR,
    "unfold": _LINEAR,
    "contiguous": _LINEAR,
    "clone": _LINEAR,
    "split": _LINEAR,
    "chunk": _LINEAR,
    "unbind": _LINEAR,
    "tensor_split": _LINEAR,
    "split_with_sizes": _LINEAR,
    "index_select": _LINEAR,
    "gather": _LINEAR,
    "take": _LINEAR,
    "take_along_dim": _LINEAR,
    "masked_select": _LINEAR,
    "Tensor.__getitem__": {"args": "self, index", "jvp": "t_self[index]"},
    "masked_fill": {
        "args": "self, mask, value",
        "jvp_self": "t_self.masked_fill(mask, 0)",
        "jvp_value": "where(mask, t_value, 0.0)",
    },
    "where": {
        "args": "condition, input=None, other=None, *, out=None",
        "jvp": "_where_jvp(condition, t_input, t_other, input, other, result)",
        "keep_none": "1",
    },
    "cat": {"args": "tensors, dim=0, *, out=None", "jvp": "cat(t_tensors, dim)"},
    "concat": {"args": "tensors, dim=0, *, out=None", "jvp": "cat(t_tensors, dim)"},
    "concatenate": {"args": "tensors, dim=0, *, out=None", "jvp": "cat(t_tensors, dim)"},
    "stack": {"args": "tensors, dim=0, *, out=None", "jvp": "stack(t_tensors, dim)"},
    "hstack": {"args": "tensors, *, out=None", "jvp": "hstack(t_tensors)"},
    "vstack": {"args": "tensors, *, out=None", "jvp": "vstack(t_tensors)"},
    "F.pad": {
        "args": "input, pad, mode='constant', value=None",
        "jvp": "F.pad(t_input, pad, mode, 0.0 if mode == 'constant' else value)",
    },
    "F.avg_pool1d": {"args": "input, *args, **kwargs", "jvp": "F.avg_pool1d(t_input, *args, **kwargs)"},
    "F.avg_pool2d": {"args": "input, *args, **kwargs", "jvp": "F.avg_pool2d(t_input, *args, **kwargs)"},
    "F.adaptive_avg_pool2d": {
        "args": "input, output_size",
        "jvp": "F.adaptive_avg_pool2d(t_input, output_size)",
    },
    "F.embedding": {
        "args": "input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, "
        "sparse=False",
        "jvp_weight": "F.embedding(input, t_weight, padding_idx)",
    },
    # ---- conversions and tensor methods without a torch function
    "Tensor.to": {"args": "self, *args, **kwargs", "jvp": "_to_jvp(t_self, result)"},
    "Tensor.type_as": {"args": "self, other", "jvp_self": "_to_jvp(t_self, result)"},
    "Tensor.float": {"args": "self, *args, **kwargs", "jvp": "t_self.float()"},
    "Tensor.double": {"args": "self, *args, **kwargs", "jvp": "t_self.double()"},
    "Tensor.half": {"args": "self, *args, **kwargs", "jvp": "t_self.half()"},
    "Tensor.bfloat16": {"args": "self, *args, **kwargs", "jvp": "t_self.bfloat16()"},
    "Tensor.cpu": {"args": "self, *args, **kwargs", "jvp": "t_self.cpu()"},
    "Tensor.cuda": {"args": "self, *args, **kwargs", "jvp": "t_self.cuda(*args, **kwargs)"},
    "Tensor.copy_": {"args": "self, src, non_blocking=False", "jvp": "zeros_like(result) + t_src"},
    "Tensor.zero_": {"jvp": "zeros_like(result)"},
    "Tensor.fill_": {"args": "self, value", "jvp": "zeros_like(result)"},
    "Tensor.__setitem__": {"args": "self, index, value", "jvp": None},  # handled by dispatch
    "zeros_like": _NONE,
    "ones_like": _NONE,
    "empty_like": _NONE,
    "full_like": _NONE,
    "rand_like": _NONE,
    "randn_like": _NONE,
    "randint_like": _NONE,
    "isclose": _NONE,
    "signbit": _NONE,
    "nan_to_num": {"args": "self, *args, **kwargs", "jvp": "where(isfinite(self), t_self, 0.0)"},
    "hypot": {"jvp_self": "t_self * self / result", "jvp_other": "t_other * other / result"},
    "logit": {"args": "self, eps=None", "jvp": "t_self / (self * (1 - self))"},
    "sinc": GENERIC,
    # selu(x) = scale * (x > 0 ? x : alpha * (exp(x) - 1)): below 0 the slope is result + scale * alpha
    "selu": {
        "args": "input, inplace=False",
        "jvp": "where(input > 0, t_input * 1.0507009873554805, t_input * (result + 1.7580993408473766))",
    },
    "celu": {
        "args": "input, alpha=1.0, inplace=False",
        "jvp": "where(input > 0, t_input, t_input * (result / alpha + 1))",
    },
    # torch.linalg: the classic first-order formulas (the others take the generic JVP through their backward)
    "linalg.inv": {"args": "A, *, out=None", "jvp": "-(result @ t_A @ result)"},
    "inverse": {"args": "self, *, out=None", "jvp": "-(result @ t_self @ result)"},
    "linalg.det": {
        "args": "A, *, out=None",
        "jvp": "result * linalg.solve(A, t_A).diagonal(0, -2, -1).sum(-1)",
    },
    "det": {"args": "self", "jvp": "result * linalg.solve(self, t_self).diagonal(0, -2, -1).sum(-1)"},
    "linalg.solve": {
        "args": "A, B, *, left=True, out=None",
        "jvp": GENERIC,
    },
}


def _schema_rules():
    """The rows ops.schema declares beside its ops, as the build compiled them into _C (`jvp: none` is a row
    without a tangent, `jvp: generic` asks for the generic JVP)."""
    rows = {}
    for name, key, value in _C._op_schema_rules():
        if not key.startswith("jvp"):
            continue
        row = rows.setdefault(name, {})
        if key == "jvp_args":
            row["args"] = value
        else:
            row[key] = {"none": None, "generic": GENERIC}.get(value, value)
    return rows


# every rule by key; a schema op's rule lives only in the schema (tests/test_forward_ad.py checks)
JVP_RULES = {**_schema_rules(), **_COMPOSITE_RULES}

# F.selu and F.celu reach forward AD under either name (F.celu(x, alpha=...) as itself)
JVP_RULES["F.selu"] = JVP_RULES["selu"]
JVP_RULES["F.celu"] = JVP_RULES["celu"]

# torch.special's aliases of torch ops take their op's row (with its parameter names made explicit, since a
# special.* row without `args` reads as a function of `input`)
_SPECIAL_ALIASES = {
    "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "expit": "sigmoid", "expm1": "expm1", "exp2": "exp2",
    "log1p": "log1p", "logsumexp": "logsumexp", "xlogy": "xlogy", "digamma": "digamma", "psi": "digamma",
    "gammaln": "lgamma", "i0": "i0", "logit": "logit", "sinc": "sinc", "round": "round",
}  # fmt: skip
for _alias, _base in _SPECIAL_ALIASES.items():
    _row = JVP_RULES.get(_base)
    if _row is None or f"special.{_alias}" in JVP_RULES:
        continue
    if isinstance(_row, dict) and "args" not in _row:
        _row = {
            **_row,
            "args": "self, other" if any(k in _row for k in ("jvp_self", "jvp_other")) else "self",
        }
    JVP_RULES[f"special.{_alias}"] = _row


# ------------------------------------------------------------------------------------------------ compiling


class _Scope(dict):
    """An expression's names: its bound arguments, then the helpers here, then the torch namespaces (read at
    call time, so that they are the dispatching wrappers while forward AD runs)."""

    def __missing__(self, name):
        g = _HELPERS.get(name)
        if g is not None:
            return g
        torch = _root()
        if name == "torch":
            return torch
        if name == "F":
            return torch.nn.functional
        if name == "special":
            return torch.special
        if name == "linalg":
            return torch.linalg
        try:
            return getattr(torch, name)
        except AttributeError:
            raise NameError(f"name '{name}' is not defined in a JVP rule") from None


_HELPERS = {k: v for k, v in globals().items() if k.startswith("_") and callable(v)}
_HELPERS.update(math=math, GENERIC=GENERIC)


class Rule:
    """A compiled row: binds a call's arguments by `args` and evaluates its expressions."""

    __slots__ = ("generic", "joint", "keep_none", "key", "none", "signature", "terms")

    def __init__(self, key, row):
        self.key = key
        unary_like = not key.startswith(("F.", "linalg.", "special.")) or "args" in row
        default = "self, other" if any(k in row for k in ("jvp_self", "jvp_other")) else "self"
        params = row.get("args", default if unary_like else "input")
        self.signature = inspect.signature(eval(f"lambda {params}: None"))
        self.generic = row.get("jvp", "") == GENERIC and not any(k.startswith("jvp_") for k in row)
        self.none = "jvp" in row and row["jvp"] is None
        self.keep_none = bool(row.get("keep_none"))
        self.joint = None
        self.terms = {}
        if not self.generic and not self.none:
            if "jvp" in row:
                self.joint = compile(row["jvp"], f"<jvp {key}>", "eval")
            for k, v in row.items():
                if k.startswith("jvp_"):
                    self.terms[k[4:]] = compile(v, f"<jvp {key} {k}>", "eval")

    def _bind(self, args, kwargs):
        if kwargs and "input" in kwargs and "input" not in self.signature.parameters:
            kwargs = dict(kwargs)
            args = (kwargs.pop("input"), *args)
        return self.signature.bind(*args, **kwargs), kwargs

    def apply(self, args, kwargs, tangents, result, call_key=None):
        """The output tangent(s) for primals args/kwargs, tangents {position or keyword: tangent}."""
        if self.none:
            return _NO_TANGENT
        bound, kwargs = self._bind(args, kwargs)
        bound.apply_defaults()
        targs = [tangents.get(i) for i in range(len(args))]
        tkw = {k: tangents.get(k) for k in kwargs}
        tb = self.signature.bind_partial(*targs, **tkw).arguments
        scope = _Scope(bound.arguments)
        scope["result"] = result
        scope["op"] = _op_callable(call_key if call_key and call_key.startswith("Tensor.") else self.key)
        names = list(self.signature.parameters)
        if self.joint is not None:
            for n in names:
                t = tb.get(n)
                v = bound.arguments.get(n)
                kind = self.signature.parameters[n].kind
                if kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                    continue
                if isinstance(v, (list, tuple)) and any(_is_tensor(x) for x in v):
                    t = list(t) if isinstance(t, (list, tuple)) else [None] * len(v)
                    t = [
                        ti if ti is not None else (_zeros(x) if _is_tensor(x) else None)
                        for ti, x in zip(t, v)
                    ]
                elif t is None and _is_tensor(v) and not self.keep_none:
                    t = _zeros(v)
                scope["t_" + n] = t
            return eval(self.joint, {"__builtins__": __builtins__}, scope)
        total = None
        for n, code in self.terms.items():
            t = tb.get(n)
            if t is None:
                continue
            scope["t_" + n] = t
            term = eval(code, {"__builtins__": __builtins__}, scope)
            if term is GENERIC:
                return GENERIC
            total = term if total is None else total + term
        return total


_NO_TANGENT = None


def _zeros(x):
    return _root().zeros_like(x)


def _op_callable(key):
    if key.startswith("Tensor."):
        name = key[7:]
        if name == "__getitem__":
            return operator.getitem
        return lambda s, *a, **k: getattr(s, name)(*a, **k)
    ns, _, name = key.rpartition(".")
    mod = {"": None, "F": "nn.functional", "linalg": "linalg", "special": "special"}.get(ns)
    torch = _root()
    owner = torch
    if mod:
        for part in mod.split("."):
            owner = getattr(owner, part)
    fn = getattr(owner, name, None)
    if fn is None:
        return lambda s, *a, **k: getattr(s, name)(*a, **k)
    return fn


_compiled = {}


def get_rule(key):
    """The compiled Rule of a rule key (None when the table has no row: the generic JVP applies)."""
    r = _compiled.get(key)
    if r is None:
        row = JVP_RULES.get(key)
        if row is None:
            return None
        if row == GENERIC:
            row = {"jvp": GENERIC}
        r = _compiled[key] = Rule(key, row)
    return r
