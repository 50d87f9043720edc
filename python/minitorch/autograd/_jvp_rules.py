"""Forward-mode (JVP) rules, one row per op. The ops of csrc/ops/ops.schema declare theirs there, beside their
`grad:` (keys `jvp:`, `jvp_<input>:`, `jvp_args:`, `jvp_absent:`; compiled into _C and read by `_schema_rules`); the rows of
_COMPOSITE_RULES below are for the Python composites and public names the schema does not hold.

Each row is a dict of strings (the schema's `jvp_args:` is a row's `args`):
  args:        the op's Python parameters (default `self` for unary rows, `self, other` for binary rows); a rule
               binds the call's arguments by them, so every parameter name is usable in the expressions.
  jvp:         the output tangent as one Python expression over the primals (the parameter names), `result`
               (the primal output), and `t_<name>`, the tangent of each tensor parameter (zeros when it has
               none). A tuple for ops with several outputs (None for an index output).
  jvp_<name>:  instead of `jvp`, one term per differentiable tensor parameter, summed over the parameters that
               carry a tangent (a linear op in two operands, such as matmul, then computes only what it needs).
  keep_none:   optional, "1": a tensor parameter without a tangent is `t_<name>` None in `jvp`, not zeros (the
               rule tells an absent tangent from a zero one: clamp's tensor bounds); the schema's `jvp_absent: none`.
  dual_term:   optional, the op's second-order term in forward-over-reverse (func/_forward_ad.py's _record), as
               ops.schema's `dual_term:` key says it for a schema op: `linear` (none, never recorded), `zero` (the
               rule masks or selects the tangent by the primal's value), `fallback` (the re-run; the default).
  primal:      optional, an expression computing (the primal output, aux) in place of the op's own call, where
               the rule needs something the op computes anyway (a max pool's argmax indices); `aux` is then in
               the rule's scope. When it raises, the op runs as usual (its own errors) and aux is None.
The expressions are written in minitorch ops: bare names are torch functions (`exp`, `where`), `F.`,
`special.` and `linalg.` name those namespaces, `op` is the op itself (for linear ops: `op(t_self, *args,
**kwargs)`), `math` is Python's, and the `_helpers` below compute the longer ones. A row `jvp: None` marks an
op with no tangent (its outputs do not depend differentiably on the inputs); `jvp: GENERIC` asks for the
generic double-vjp JVP on purpose (random ops, which must reuse the draw of the primal run), without warning;
`jvp: COMPOSITE` runs a Python composite whose every op has a rule on the dual tensors themselves (it must call
ops through their public names, not _C's builtins, which refuse duals).
"""

import cmath
import inspect
import math
import operator
import re
import sys

from minitorch import _C

__all__ = ["COMPOSITE", "GENERIC", "JVP_RULES", "declare", "get_rule"]

GENERIC = "GENERIC"  # a rule's value (or an expression's result) asking for the generic JVP
COMPOSITE = "COMPOSITE"  # a rule's value: run the Python composite itself on the duals, its ops dispatching one by one


def _root():
    return sys.modules["minitorch"]


# ------------------------------------------------------------------------------------------------ helpers
# Called from the expressions with primals and tangents (either may be a dual of an outer level or batched).


def _relu_mask(t, result):
    """PyTorch's threshold_backward(t, result, 0): 0 where result <= 0, so a NaN passes the tangent; a select,
    so an infinite tangent outside stays out"""
    return _root().where(result <= 0, _root().zeros_like(t), t)


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


def _no_forward_ad_formula(name):
    """PyTorch's error for an op derivatives.yaml does not list at all (its autograd NotImplemented node)."""
    raise NotImplementedError(f"Trying to use forward AD with {name} that does not support it.")


def _i1_jvp(t, x, result):
    torch = _root()
    # I1'(x) = I0(x) - I1(x)/x, 1/2 at 0
    return t * torch.where(x == 0, torch.full_like(x, 0.5), torch.i0(x) - _safe_div(result, x))


def _no_forward_ad(name):
    """PyTorch's error for an op whose forward-mode formula derivatives.yaml leaves unimplemented."""
    raise NotImplementedError(
        f"Trying to use forward AD with {name} that does not support it because it has not been implemented yet."
        "\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml "
        "so that we can prioritize its implementation or submit a PR adding the implementation to derivatives.yaml"
    )


def _i1e_jvp(t, x, result):
    torch = _root()
    d = torch.special.i0e(x) - result * (torch.sign(x) + _safe_div(torch.ones_like(x), x))
    return t * torch.where(x == 0, torch.full_like(x, 0.5), d)


def _pow_self(t, x, e):
    torch = _root()
    if isinstance(e, (int, float, complex)):
        return t * (0.0 if e == 0 else e * torch.pow(x, e - 1))
    return t * torch.where(e == 0, torch.zeros_like(e), e * torch.pow(x, e - 1))


def _pow_exponent(t, x, e, result):
    torch = _root()
    if isinstance(x, complex) or _is_tensor(x) and x.is_complex() or _is_tensor(e) and e.is_complex():
        return _pow_exponent_complex(t, x, e, result)
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


def _pow_exponent_complex(t, x, e, result):
    """t log(x) x^e with a complex base or exponent; 0 where x == 0 and real(e) >= 0 (PyTorch's convention)."""
    torch = _root()
    re = torch.real(e) if _is_tensor(e) and e.is_complex() else e
    if not _is_tensor(x):
        if x != 0:
            return t * (result * cmath.log(x))
        return t * torch.where(re >= 0, torch.zeros_like(result), result * float("-inf"))
    zero = (x == 0) & (re >= 0)
    return t * torch.where(zero, torch.zeros_like(result), result * torch.log(x))


def _threshold_primal(x, threshold, value, inplace):
    """F.threshold and the mask its tangent needs, taken before inplace=True overwrites x: PyTorch's
    threshold_backward(t, x, threshold) is 0 where x <= threshold, so a NaN x passes the tangent"""
    mask = x <= threshold
    return _root().nn.functional.threshold(x, threshold, value, inplace), mask


def _maxmin(t_self, t_other, self, other, larger, ignore_nan=False):
    """maximum/minimum: the larger (smaller) side's tangent, the mean at a tie, other's where a NaN fails the
    compare; fmax/fmin (ignore_nan) take self's where other is NaN (PyTorch 2.15's rules)"""
    torch = _root()
    pick = self > other if larger else self < other
    if ignore_nan:
        pick = pick | torch.isnan(other)
    tie = self == other
    return torch.where(tie, (t_self + t_other) / 2, torch.where(pick, t_self, t_other))


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
    # |x - mean|^2 of complex entries: d = 2 real(conj(x - mean) t) (the mean's own tangent sums to zero)
    prod = _root().real(centered.conj() * t) if x.is_complex() else centered * t
    s = prod.sum(dims if x.dim() else None, keepdim=keepdim)
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


def _reduce_max_jvp(t, x, result, args, kwargs, larger, t_args=()):
    """max/min/amax/amin: full reductions spread the tangent evenly over ties (as the backward), dim
    reductions take the chosen entry; max(x, y) is maximum."""
    if args and _is_tensor(args[0]) and not isinstance(args[0], int):
        # the binary overload is maximum/minimum (the generic JVP would add both sides' tangents at a NaN,
        # where the backward passes the gradient to both)
        t_o = t_args[0] if t_args and t_args[0] is not None else _root().zeros_like(args[0])
        return _maxmin(t, t_o, x, args[0], larger)
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


def _polygamma_jvp(n, x, t_n, t_x):
    """polygamma's tangent (the method x.polygamma(n) reaches it as polygamma(n, x): forward AD's self-second
    methods)."""
    return t_x * _root().polygamma(n + 1, x)


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
    """Vector p-norms ('fro' is 2, numeric p as linalg.vector_norm's rule); 'nuc' takes the generic JVP."""
    p = args[0] if args else kwargs.get("p", "fro")
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    if p is None or p == "fro":
        p = 2
    if isinstance(p, (str, bool)):
        return GENERIC
    return _vector_norm_jvp(x, t, p, dim, keepdim, result)


def _clamp_jvp(x, lo, hi, t_x, t_lo, t_hi):
    """PyTorch 2.15's clamp rules. Number bounds (and 0-dim tensors beside a number, which its parser reads as
    numbers): x's tangent strictly inside, 0 at a bound or NaN. One tensor bound: clamp_min/clamp_max's rule.
    Two tensor bounds (clamp_jvp): max's tangent where min > max, the mean of x's and a bound's at a tie when
    min < max, the bound's outside [min, max], x's elsewhere (a NaN x included)."""
    torch = _root()
    tensor = _is_tensor(lo) and lo.dim() > 0 or _is_tensor(hi) and hi.dim() > 0
    tensor = tensor or (lo is None or _is_tensor(lo)) and (hi is None or _is_tensor(hi))
    if not tensor:
        if t_x is None:
            return None
        keep = None
        if lo is not None:
            keep = x > lo
        if hi is not None:
            keep = x < hi if keep is None else keep & (x < hi)
        return torch.where(keep, t_x, torch.zeros_like(t_x))
    if lo is None or hi is None:
        lower = lo is not None
        return _clamp_bound_jvp(x, lo if lower else hi, t_x, t_lo if lower else t_hi, lower)
    t_x = torch.zeros_like(x) if t_x is None else t_x
    t_lo = torch.zeros_like(lo) if t_lo is None else t_lo
    t_hi = torch.zeros_like(hi) if t_hi is None else t_hi
    ordered = lo < hi
    out = torch.where(x < lo, t_lo, torch.where(x > hi, t_hi, t_x))
    out = torch.where((x == hi) & ordered, (t_x + t_hi) / 2, out)
    out = torch.where((x == lo) & ordered, (t_x + t_lo) / 2, out)
    return torch.where(lo > hi, t_hi, out)


def _scatter_jvp(dim, index, src, value, reduce, t_self, t_src):
    """scatter writes src (its tangent) or a number (zero tangent) at index; with reduce= it is not linear: the
    generic JVP."""
    if reduce is not None:
        return GENERIC
    return t_self.scatter(dim, index, t_src if _is_tensor(src) else 0.0)


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
    # PyTorch's (vectorized) backward: 0 up to -3, x/3 + 1/2 strictly between, 1 from 3 on (and at NaN)
    return t * torch.where(x <= -3, torch.zeros_like(x), torch.where(x < 3, x / 3 + 0.5, torch.ones_like(x)))


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
    if not (result.is_floating_point() or result.is_complex()):
        return None
    return t.to(dtype=result.dtype, device=result.device)


def _setitem_value(t):
    return t


# ---- pooling, normalization, attention


def _max_pool_jvp(t, idx, nd):
    """The tangent entries a max pool picked: `idx` holds flat positions within each plane of the last nd
    dims (PyTorch's index convention, which the *_with_indices pools return)."""
    flat = t.flatten(-nd) if nd > 1 else t
    return flat.gather(-1, idx.flatten(-nd) if nd > 1 else idx).reshape(tuple(idx.shape))


def _pool_stride(stride):
    """torch.max_poolNd's empty stride (the kernel size) as F's None."""
    return None if stride in ((), []) else stride


def _max_pool_primal(with_indices, return_indices, input, *args):
    """A max pool's primal output computed with its indices (the `aux` of its rule), whatever it returns."""
    values, idx = with_indices(input, *args)
    return ((values, idx) if return_indices else values), idx


def _max_pool_rule(with_indices, nd, input, t_input, result, aux, *args):
    """A max pool's (values[, indices]) tangent, from the indices its primal run computed (`aux`; without them,
    a second run computes them)."""
    if isinstance(result, tuple):
        return _max_pool_jvp(t_input, result[1], nd), None
    idx = aux if aux is not None else with_indices(input, *args)[1]
    return _max_pool_jvp(t_input, idx, nd)


def _normalized_jvp(t, xhat, rstd, dims):
    """The tangent of xhat = (x - mean) * rstd, mean and (biased) variance over dims."""
    return rstd * (t - t.mean(dims, keepdim=True) - xhat * (t * xhat).mean(dims, keepdim=True))


def _affine_jvp(out, xhat, shape, weight, t_weight, t_bias):
    """The tangent of xhat * weight + bias given xhat's tangent `out`; per-channel parameters broadcast by
    `shape` (they have none to broadcast when shape is None)."""
    if weight is not None:
        out = out * (weight if shape is None else weight.reshape(shape))
    if t_weight is not None:
        out = out + xhat * (t_weight if shape is None else t_weight.reshape(shape))
    if t_bias is not None:
        out = out + (t_bias if shape is None else t_bias.reshape(shape))
    return out


def _channel_shape(x):
    return (1, -1) + (1,) * (x.dim() - 2)


def _stats_norm_jvp(x, t, dims, eps, weight, t_weight, t_bias):
    """Normalization by the statistics of x over dims (batch norm in training, instance norm)."""
    torch = _root()
    mu = x.mean(dims, keepdim=True)
    var = x.var(dims, keepdim=True, correction=0)
    rstd = torch.rsqrt(var + eps)
    xhat = (x - mu) * rstd
    shape = _channel_shape(x)
    return _affine_jvp(_normalized_jvp(t, xhat, rstd, dims), xhat, shape, weight, t_weight, t_bias)


def _running_norm_jvp(x, t, rm, rv, eps, weight, t_rm, t_rv, t_weight, t_bias):
    """Normalization by given (running) statistics: linear in x, (x - rm) * rsqrt(rv + eps). PyTorch refuses
    tangents on the statistics it reads."""
    torch = _root()
    if t_rm is not None or t_rv is not None:
        raise RuntimeError(
            "batch_norm is not differentiable wrt running_mean and running_var, they cannot have forward grad "
            "defined"
        )
    shape = _channel_shape(x)
    rstd = torch.rsqrt(rv.reshape(shape) + eps)
    xhat = (x - rm.reshape(shape)) * rstd
    return _affine_jvp(t * rstd, xhat, shape, weight, t_weight, t_bias)


def _batch_norm_jvp(x, t, rm, rv, weight, training, eps, t_rm, t_rv, t_weight, t_bias):
    if t is None:
        t = _root().zeros_like(x)
    if training or rm is None:  # batch statistics: over every dim but the channels
        return _stats_norm_jvp(x, t, [0, *range(2, x.dim())], eps, weight, t_weight, t_bias)
    return _running_norm_jvp(x, t, rm, rv, eps, weight, t_rm, t_rv, t_weight, t_bias)


def _instance_norm_jvp(x, t, rm, rv, weight, use_input_stats, eps, t_rm, t_rv, t_weight, t_bias):
    if t is None:
        t = _root().zeros_like(x)
    if use_input_stats:
        return _stats_norm_jvp(x, t, list(range(2, x.dim())), eps, weight, t_weight, t_bias)
    return _running_norm_jvp(x, t, rm, rv, eps, weight, t_rm, t_rv, t_weight, t_bias)


def _group_norm_jvp(x, t, num_groups, weight, eps, t_weight, t_bias):
    torch = _root()
    if t is None:
        t = torch.zeros_like(x)
    n = x.shape[0]
    xg = x.reshape(n, num_groups, -1)
    mu = xg.mean(2, keepdim=True)
    rstd = torch.rsqrt(xg.var(2, keepdim=True, correction=0) + eps)
    xhat = (xg - mu) * rstd
    out = _normalized_jvp(t.reshape(n, num_groups, -1), xhat, rstd, [2]).reshape(tuple(x.shape))
    return _affine_jvp(out, xhat.reshape(tuple(x.shape)), _channel_shape(x), weight, t_weight, t_bias)


def _sdpa_jvp(q, k, v, mask, dropout_p, is_causal, scale, enable_gqa, t_q, t_k, t_v, t_mask):
    """softmax(q k^T * scale + mask) v: the score tangent through softmax's JVP, then both matmuls."""
    torch = _root()
    if dropout_p:
        return GENERIC  # the dropout mask the primal run drew
    sc = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    if enable_gqa and k.dim() >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k, v = k.repeat_interleave(rep, -3), v.repeat_interleave(rep, -3)
        t_k = None if t_k is None else t_k.repeat_interleave(rep, -3)
        t_v = None if t_v is None else t_v.repeat_interleave(rep, -3)
    s = (q @ k.transpose(-2, -1)) * sc
    if is_causal:
        keep = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=q.device).tril()
        s = s.masked_fill(~keep, float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask
    p = torch.softmax(s, -1)
    ts = None
    if t_q is not None:
        ts = (t_q @ k.transpose(-2, -1)) * sc
    if t_k is not None:
        term = (q @ t_k.transpose(-2, -1)) * sc
        ts = term if ts is None else ts + term
    if t_mask is not None and mask.dtype != torch.bool:
        ts = t_mask if ts is None else ts + t_mask
    out = None
    if ts is not None:
        out = (p * (ts - (ts * p).sum(-1, keepdim=True))) @ v
    if t_v is not None:
        out = p @ t_v if out is None else out + p @ t_v
    return out


# ---- losses


def _loss_jvp(tan, reduction):
    """An elementwise loss tangent reduced as the loss was."""
    if tan is None:
        return None
    return _reduce(tan, reduction)


def _pointwise_loss_jvp(
    d_input,
    t_input,
    t_target,
    reduction,
    weight=None,
    t_weight=None,
    unweighted=None,
    result=None,
    mean_over_weights=False,
):
    """d(loss)/d(input) = d_input elementwise, d/d(target) = -d_input (losses of input - target), optionally
    weighted (PyTorch's weighted mse/l1 means divide by weight.sum(), huber's by the count)."""
    tan = None
    if t_input is not None:
        tan = d_input * t_input
    if t_target is not None:
        tan = -d_input * t_target if tan is None else tan - d_input * t_target
    if tan is None:
        tan = _root().zeros_like(d_input)
    if weight is None:
        return _reduce(tan, reduction)
    tan = tan * weight
    if t_weight is not None:
        tan = tan + unweighted * t_weight
    if reduction == "mean" and mean_over_weights:
        num = tan.sum()
        if t_weight is not None:
            num = num - result * t_weight.sum()
        return num / weight.sum()
    return _reduce(tan, reduction)


def _mse_jvp(x, target, t_x, t_target, size_average, reduce, reduction, weight, t_weight, result):
    red = _loss_reduction(size_average, reduce, reduction)
    d = x - target
    return _pointwise_loss_jvp(2 * d, t_x, t_target, red, weight, t_weight, d * d, result, True)


def _l1_jvp(x, target, t_x, t_target, size_average, reduce, reduction, weight, t_weight, result):
    red = _loss_reduction(size_average, reduce, reduction)
    d = x - target
    return _pointwise_loss_jvp(d.sign(), t_x, t_target, red, weight, t_weight, d.abs(), result, True)


def _smooth_l1_jvp(x, target, t_x, t_target, size_average, reduce, reduction, beta):
    d = x - target
    g = d.sign() if beta == 0 else (d / beta).clamp(-1.0, 1.0)
    return _pointwise_loss_jvp(g, t_x, t_target, _loss_reduction(size_average, reduce, reduction))


def _huber_jvp(x, target, t_x, t_target, reduction, delta, weight, t_weight):
    F = _root().nn.functional
    d = x - target
    unweighted = F.huber_loss(x, target, reduction="none", delta=delta) if t_weight is not None else None
    return _pointwise_loss_jvp(d.clamp(-delta, delta), t_x, t_target, reduction, weight, t_weight, unweighted)


def _bce_jvp(x, y, t_x, t_y, weight, size_average, reduce, reduction, t_weight):
    """binary_cross_entropy, -w (y log x + (1 - y) log(1 - x)) with PyTorch's clamps (logs at -100, the
    input derivative's denominator at 1e-12)."""
    torch = _root()
    F = torch.nn.functional
    tan = None
    if t_x is not None:
        tan = t_x * (x - y) / torch.clamp((1 - x) * x, min=1e-12)
    if t_y is not None:
        term = t_y * (torch.log1p(-x).clamp(min=-100) - torch.log(x).clamp(min=-100))
        tan = term if tan is None else tan + term
    if tan is None:
        tan = torch.zeros_like(x)
    if weight is not None:
        tan = tan * weight
    if t_weight is not None:
        tan = tan + F.binary_cross_entropy(x, y, reduction="none") * t_weight
    return _reduce(tan, _loss_reduction(size_average, reduce, reduction))


def _bce_logits_jvp(x, y, t_x, t_y, weight, size_average, reduce, reduction, pos_weight, t_weight, t_pw):
    """(1 - y) x + (1 + (pw - 1) y) softplus(-x), times weight."""
    torch = _root()
    F = torch.nn.functional
    lw = 1 if pos_weight is None else 1 + (pos_weight - 1) * y
    sp = F.softplus(-x)
    tan = None
    if t_x is not None:
        tan = t_x * ((1 - y) - lw * torch.sigmoid(-x))
    if t_y is not None:
        term = t_y * (-x if pos_weight is None else (pos_weight - 1) * sp - x)
        tan = term if tan is None else tan + term
    if t_pw is not None:
        term = t_pw * y * sp
        tan = term if tan is None else tan + term
    if tan is None:
        tan = torch.zeros_like(x)
    if weight is not None:
        tan = tan * weight
    if t_weight is not None:
        tan = tan + ((1 - y) * x + lw * sp) * t_weight
    return _reduce(tan, _loss_reduction(size_average, reduce, reduction))


def _kl_div_jvp(x, y, t_x, t_y, size_average, reduce, reduction, log_target):
    """target * (log target - input) (exp(target) * (target - input) for a log target)."""
    torch = _root()
    tan = None
    if t_x is not None:
        tan = -t_x * (torch.exp(y) if log_target else y)
    if t_y is not None:
        if log_target:
            term = t_y * torch.exp(y) * (y - x + 1)
        else:
            term = t_y * (torch.where(y > 0, torch.log(y) + 1, torch.zeros_like(y)) - x)
        tan = term if tan is None else tan + term
    if tan is None:
        tan = torch.zeros_like(x)
    red = _loss_reduction(size_average, reduce, reduction)
    if red == "batchmean":
        return tan.sum() / x.shape[0] if x.dim() else tan.sum()
    return _reduce(tan, red)


def _cross_entropy_jvp(
    x, target, t_x, t_target, weight, ignore_index, reduction, label_smoothing, sa, rd, t_weight=None
):
    """Class indices (with label smoothing too) and class probabilities, through log_softmax's JVP. The class
    weights' tangent counts for probabilities only: with class indices PyTorch holds them non-differentiable
    (its nll_loss has no weight derivative) and drops it."""
    torch = _root()
    F = torch.nn.functional
    red = _loss_reduction(sa, rd, reduction)
    cdim = 1 if x.dim() > 1 else 0
    c = x.shape[cdim]
    wshape = [1] * x.dim()
    wshape[cdim] = c
    w = None if weight is None else weight.reshape(wshape)
    if t_x is None:
        t_x = torch.zeros_like(x)
    lp = None
    if target.is_floating_point():  # class probabilities: -sum_c w_c y_c log p_c per sample
        lp = torch.log_softmax(x, cdim)
        p = torch.exp(lp)
        t_lp = t_x - (t_x * p).sum(cdim, keepdim=True)
        y = target if label_smoothing == 0 else target * (1 - label_smoothing) + label_smoothing / c
        per = t_lp * y
        if t_target is not None:
            per = per + lp * t_target * (1 - label_smoothing)
        if w is not None:
            per = per * w
        if t_weight is not None:
            per = per + lp * y * t_weight.reshape(wshape)
        per = -per.sum(cdim)
        if red == "mean":
            return per.sum() / (x.numel() // c if c else 0)
        return _reduce(per, red)
    p = torch.softmax(x, cdim)
    t_lp = t_x - (t_x * p).sum(cdim, keepdim=True)
    if label_smoothing == 0:
        return F.nll_loss(t_lp, target, weight, ignore_index=ignore_index, reduction=red)
    # (1 - eps) nll + eps / C * sum_c -w_c log p_c over the samples not ignored; a mean divides both by the
    # summed weights of the targets (PyTorch's)
    keep = target != ignore_index
    nll = F.nll_loss(t_lp, target, weight, ignore_index=ignore_index, reduction="none")
    smooth = -((t_lp * w) if w is not None else t_lp).sum(cdim) * keep
    per = (1 - label_smoothing) * nll + (label_smoothing / c) * smooth
    if red == "mean":
        safe = torch.where(keep, target, torch.zeros_like(target))
        denom = keep.sum() if weight is None else (weight[safe] * keep).sum()
        return per.sum() / denom
    return _reduce(per, red)


# ---- linear algebra


def _solve_jvp(A, B, t_A, t_B, left, result):
    """X = A^-1 B: dX = A^-1 (dB - dA X) (left), X = B A^-1: dX = (dB - X dA) A^-1; vectors as PyTorch's rule
    reads them (1-D, or A's batch and one dim less)."""
    linalg = _root().linalg
    vector = left and (B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1])))
    X = result.unsqueeze(-1) if vector else result
    rhs = None
    if t_B is not None:
        rhs = t_B.unsqueeze(-1) if vector else t_B
    if t_A is not None:
        term = -(t_A @ X) if left else -(X @ t_A)
        rhs = term if rhs is None else rhs + term
    dX = linalg.solve(A, rhs, left=left)
    return dX.squeeze(-1) if vector else dX


def _solve_triangular_jvp(A, B, t_A, t_B, upper, left, unitriangular, result):
    linalg = _root().linalg
    rhs = t_B
    if t_A is not None:
        tA = t_A.triu(1 if unitriangular else 0) if upper else t_A.tril(-1 if unitriangular else 0)
        term = -(tA @ result) if left else -(result @ tA)
        rhs = term if rhs is None else rhs + term
    return linalg.solve_triangular(A, rhs, upper=upper, left=left, unitriangular=unitriangular)


def _logabsdet_jvp(A, t_A):
    """d log|det A| = tr(A^-1 dA)."""
    return _root().linalg.solve(A, t_A).diagonal(0, -2, -1).sum(-1)


def _cholesky_jvp(L, t_A, upper):
    """dL = L phi(L^-1 dA L^-H), phi the lower triangle with the diagonal halved (PyTorch's cholesky_jvp);
    the upper factor is L^H."""
    torch = _root()
    if upper:
        L = L.mT
    eye = torch.eye(L.shape[-1], dtype=L.dtype, device=L.device)
    Linv = torch.linalg.solve_triangular(L, eye.expand(tuple(L.shape)), upper=False)
    phi = (Linv @ t_A @ Linv.mT).tril()
    phi = phi - 0.5 * torch.diag_embed(phi.diagonal(0, -2, -1))
    dL = L @ phi
    return dL.mT if upper else dL


def _qr_tall(Q, R, dA):
    """(dQ, dR) of a reduced QR with m >= n (PyTorch's linalg_qr_jvp): dX = dA R^-1, C = Q^H dX,
    dR' = syminv(sym(C)), dQ = dX - Q dR', dR = dR' R."""
    torch = _root()
    dX = torch.linalg.solve_triangular(R, dA, upper=True, left=False)
    C = Q.mT @ dX
    S = (C + C.mT).triu()
    S = S - 0.5 * torch.diag_embed(S.diagonal(0, -2, -1))
    return dX - Q @ S, S @ R


def _qr_jvp(A, t_A, mode, result):
    torch = _root()
    m, n = A.shape[-2], A.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
            "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
        )
    Q, R = result
    if m >= n:
        dQ, dR = _qr_tall(Q, R, t_A)
    else:  # A = [X | Y], X square: X = Q U, and R = [U | Q^H Y]
        U = R[..., :, :m]
        dQ, dU = _qr_tall(Q, U, t_A[..., :, :m])
        Y = A[..., :, m:]
        dV = dQ.mT @ Y + Q.mT @ t_A[..., :, m:]
        dR = torch.cat([dU, dV], -1)
    return dQ, dR


def _eigh_parts(V, L, t_A):
    """(dL, V^H dA V with the diagonal cleared and divided by the eigenvalue gaps) of a symmetric A."""
    dP = V.mT @ t_A @ V
    dL = dP.diagonal(0, -2, -1)
    E = L.unsqueeze(-2) - L.unsqueeze(-1)  # E_ij = L_j - L_i
    n = L.shape[-1]
    eye = _root().eye(n, dtype=L.dtype, device=L.device)
    return dL, dP / (E + eye) * (1 - eye)


def _eigh_jvp(t_A, result):
    L, V = result
    dL, F = _eigh_parts(V, L, t_A)
    return dL, V @ F


def _eigvalsh_jvp(A, t_A, UPLO):
    _, V = _root().linalg.eigh(A, UPLO)
    return (V.mT @ t_A @ V).diagonal(0, -2, -1)


def _svd_parts(U, S, Vh, dA):
    """(dU, dS, dVh) of a reduced SVD A = U diag(S) Vh, from dP = U^H dA V: dS = diag(dP); the skew parts
    U^H dU = (dP S + S dP^H) / E and V^H dV = (S dP + dP^H S) / E, E_ij = S_j^2 - S_i^2; plus the components
    outside U's (V's) span for a tall (wide) A."""
    torch = _root()
    V = Vh.mT
    m, n = U.shape[-2], Vh.shape[-1]
    k = S.shape[-1]
    dP = U.mT @ dA @ V
    dS = dP.diagonal(0, -2, -1)
    eye = torch.eye(k, dtype=S.dtype, device=S.device)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
    Sr, Sc = S.unsqueeze(-2), S.unsqueeze(-1)  # scale columns, rows
    om_u = (dP * Sr + Sc * dP.mT) / E * (1 - eye)
    om_v = (Sc * dP + dP.mT * Sr) / E * (1 - eye)
    dU = U @ om_u
    dV = V @ om_v
    if m > k:
        dU = dU + (dA @ V - U @ (U.mT @ dA @ V)) / Sr
    if n > k:
        dV = dV + (dA.mT @ U - V @ (V.mT @ dA.mT @ U)) / Sr
    return dU, dS, dV.mT


def _svd_jvp(A, t_A, full_matrices, result):
    """The reduced SVD's tangents; full_matrices' completing vectors are not functions of A and get zero
    tangents, as PyTorch's."""
    U, S, Vh = result
    k = S.shape[-1]
    dU, dS, dVh = _svd_parts(U[..., :k], S, Vh[..., :k, :], t_A)
    if U.shape[-1] > k:
        dU = _root().cat([dU, _root().zeros_like(U[..., k:])], -1)
    if Vh.shape[-2] > k:
        dVh = _root().cat([dVh, _root().zeros_like(Vh[..., k:, :])], -2)
    return dU, dS, dVh


def _torch_svd_jvp(A, t_A, some, compute_uv, result):
    U, S, V = result
    if not compute_uv:
        return None, _svdvals_jvp(A, t_A), None
    dU, dS, dVh = _svd_jvp(A, t_A, not some, (U, S, V.mT))
    return dU, dS, dVh.mT


def _svdvals_jvp(A, t_A):
    U, _, Vh = _root().linalg.svd(A, full_matrices=False)
    return (U.mT @ t_A @ Vh.mT).diagonal(0, -2, -1)


def _matrix_exp_jvp(A, t_A):
    """The Frechet derivative L(A, dA): the upper right block of exp([[A, dA], [0, A]])."""
    torch = _root()
    n = A.shape[-1]
    top = torch.cat([A, t_A], -1)
    bottom = torch.cat([torch.zeros_like(A), A], -1)
    return torch.linalg.matrix_exp(torch.cat([top, bottom], -2))[..., :n, n:]


# ---- norms and distances


def _vector_norm_jvp(x, t, ord, dim, keepdim, result):
    """d ||x||_p = sum(sign(x) |x|^(p-1) t) / ||x||^(p-1) over dim (0 where the norm is 0); the inf norms take
    the tangent of their extreme entries, shared evenly among ties; the 0 "norm" has none."""
    torch = _root()
    if x.is_complex():  # the norm of |x|, whose tangent is abs's
        t, x = _abs_jvp(t, x), x.abs()
    ord = float(ord)
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    red = _reduce_dims(x, dim) if x.dim() else None
    if ord == 0:
        return torch.zeros_like(result)
    r = _keep(result, x, dim, keepdim) if x.dim() else result
    if math.isinf(ord):
        mask = (x.abs() == r).to(t.dtype)
        return (torch.sign(x) * t * mask).sum(red, keepdim=keepdim) / mask.sum(red, keepdim=keepdim)
    if ord == 1:
        return (torch.sign(x) * t).sum(red, keepdim=keepdim)
    if ord == 2:
        return _safe_div((x * t).sum(red, keepdim=keepdim), result)
    ax = x.abs()
    w = torch.where(ax == 0, torch.zeros_like(ax), torch.sign(x) * ax.pow(ord - 1))
    return _safe_div((w * t).sum(red, keepdim=keepdim), result.pow(ord - 1))


def _matrix_norm_jvp(A, t, ord, dim, keepdim, result):
    """fro as the vector 2-norm; nuc, 2, -2 through the singular values' tangents diag(U^T dA V); 1, -1, inf,
    -inf as the extreme absolute column (row) sum's tangent, shared among ties."""
    torch = _root()
    if A.is_complex() and ord != "fro":
        return GENERIC
    d0, d1 = (d % A.dim() for d in dim)
    if ord == "fro":
        return _vector_norm_jvp(A, t, 2, (d0, d1), keepdim, result)
    M, T = A.movedim((d0, d1), (-2, -1)), t.movedim((d0, d1), (-2, -1))
    if ord == "nuc" or abs(ord) == 2:
        U, S, Vh = torch.linalg.svd(M, full_matrices=False)
        dS = (U.mT @ T @ Vh.mT).diagonal(0, -2, -1)
        if ord == "nuc":
            out = dS.sum(-1)
        else:
            pick = (S == (S.amax(-1, keepdim=True) if ord > 0 else S.amin(-1, keepdim=True))).to(dS.dtype)
            out = (dS * pick).sum(-1) / pick.sum(-1)
    else:
        rows = math.isinf(ord)  # inf: the absolute row sums (over columns); 1: the column sums
        sums = M.abs().sum(-1 if rows else -2)
        tsums = (torch.sign(M) * T).sum(-1 if rows else -2)
        ext = sums.amax(-1, keepdim=True) if ord > 0 else sums.amin(-1, keepdim=True)
        pick = (sums == ext).to(tsums.dtype)
        out = (tsums * pick).sum(-1) / pick.sum(-1)
    if keepdim:
        out = out.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    return out


def _linalg_norm_jvp(A, t, ord, dim, keepdim, result):
    """linalg.norm's choice (its docstring): a matrix norm for a string ord, or an ord with two dims (or a 2-D A
    and no dim); else the vector norm (ord None is 2 over every element)."""
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(ord, str) or (
        ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2))
    ):
        return _matrix_norm_jvp(A, t, ord, tuple(dim) if dim is not None else (0, 1), keepdim, result)
    return _vector_norm_jvp(A, t, 2 if ord is None else ord, dim, keepdim, result)


def _difference_t(t1, t2, like):
    """The tangent of x1 - x2 from the operands' tangents (either may be absent)."""
    if t1 is None and t2 is None:
        return _root().zeros_like(like)
    if t2 is None:
        return t1 + _root().zeros_like(like)
    if t1 is None:
        return -t2 + _root().zeros_like(like)
    return t1 - t2 + _root().zeros_like(like)


def _cdist_jvp(x1, x2, t1, t2, p, result):
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., P, R, M)
    dt = _difference_t(
        None if t1 is None else t1.unsqueeze(-2), None if t2 is None else t2.unsqueeze(-3), diff
    )
    return _vector_norm_jvp(diff, dt, p, -1, False, result)


def _pairwise_distance_jvp(x1, x2, t1, t2, p, eps, keepdim, result):
    diff = x1 - x2 + eps
    return _vector_norm_jvp(diff, _difference_t(t1, t2, diff), p, -1, keepdim, result)


def _pdist_jvp(x, t, p, result):
    torch = _root()
    n = x.shape[0]
    ij = torch.triu_indices(n, n, 1, device=x.device)
    return _vector_norm_jvp(x[ij[0]] - x[ij[1]], t[ij[0]] - t[ij[1]], p, -1, False, result)


def _unit_jvp(x, t, p, dim, eps):
    """(x / max(||x||, eps), its tangent), the norm over dim kept."""
    torch = _root()
    n = torch.linalg.vector_norm(x, p, dim, keepdim=True)
    d = n.clamp_min(eps)
    dn = _vector_norm_jvp(x, t, p, dim, True, n) * (n > eps)
    return x / d, t / d - x * dn / (d * d)


def _normalize_jvp(x, t, p, dim, eps):
    return _unit_jvp(x, t, p, dim, eps)[1]


def _cosine_similarity_jvp(x1, x2, t1, t2, dim, eps):
    torch = _root()
    x1, x2 = torch.broadcast_tensors(x1, x2)
    u1, du1 = _unit_jvp(x1, _difference_t(t1, None, x1), 2, dim, eps)
    u2, du2 = _unit_jvp(x2, _difference_t(t2, None, x2), 2, dim, eps)
    return (du1 * u2 + u1 * du2).sum(dim)


def _rms_norm_jvp(x, t, normalized_shape, weight, eps, t_weight):
    torch = _root()
    dims = list(range(x.dim() - len(normalized_shape), x.dim()))
    if t is None:
        t = torch.zeros_like(x)
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    r = torch.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    y = x * r
    out = t * r - y * r * r * (x * t).mean(dims, keepdim=True)
    return _affine_jvp(out, y, None, weight, t_weight, None)


# ---- elementwise composites and multilinear ops


def _prelu_jvp(x, w, t_x, t_w):
    torch = _root()
    wv = w.reshape([-1] + [1] * (x.dim() - 2)) if x.dim() >= 2 and w.numel() > 1 else w.reshape(())
    pos = x >= 0  # PyTorch's _prelu_kernel rule (its backward's test is x > 0: they differ at 0)
    out = None if t_x is None else torch.where(pos, t_x, wv * t_x)
    if t_w is not None:
        tw = t_w.reshape([-1] + [1] * (x.dim() - 2)) if x.dim() >= 2 and w.numel() > 1 else t_w.reshape(())
        term = torch.where(pos, torch.zeros_like(x), x * tw)
        out = term if out is None else out + term
    return out


def _einsum_jvp(equation, operands, t_operands):
    """The sum over operands with a tangent of the einsum with that operand replaced by its tangent (einsum is
    linear in each); the sublist form takes the generic JVP."""
    torch = _root()
    if not isinstance(equation, str):
        return GENERIC
    listed = len(operands) == 1 and isinstance(operands[0], (list, tuple))
    ops = list(operands[0]) if listed else list(operands)
    if listed:
        tans = list(t_operands[0]) if t_operands and t_operands[0] is not None else [None] * len(ops)
    else:
        tans = list(t_operands) + [None] * (len(ops) - len(t_operands))
    out = None
    for i, t in enumerate(tans):
        if t is None:
            continue
        term = torch.einsum(equation, *[t if j == i else o for j, o in enumerate(ops)])
        out = term if out is None else out + term
    return out


# ---- more linear algebra


def _pinv_jvp(A, P, dA):
    """PyTorch's pinv_jvp (A's rank constant nearby), arranged for the smaller of the two sizes."""
    m, n = A.shape[-2], A.shape[-1]
    dAh, Ph = dA.mT, P.mT
    if m <= n:
        K = Ph @ dAh
        return P @ (K - K.mT - K @ (A @ P)) + (dAh - P @ (A @ dAh)) @ (Ph @ P)
    K = P @ dA
    Kh = K.mT
    return (Kh - K - (P @ A) @ Kh) @ P + (P @ Ph) @ (dAh - (dAh @ A) @ P)


def _lstsq_jvp(A, B, t_A, t_B):
    """The solution's tangent, d(pinv(A)) B + pinv(A) dB (PyTorch's linalg_lstsq_jvp); the other outputs have
    none."""
    torch = _root()
    if A.is_complex():
        return GENERIC
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    P = torch.linalg.pinv(A)
    dX = None
    if t_A is not None:
        dX = _pinv_jvp(A, P, t_A) @ Bm
    if t_B is not None:
        term = P @ (t_B.unsqueeze(-1) if vector else t_B)
        dX = term if dX is None else dX + term
    return (dX.squeeze(-1) if vector else dX), None, None, None


def _cond_jvp(A, t_A, p, result):
    """The ratio of extreme singular values (p None, 2, -2) through their tangents; else norm(A) norm(A^-1)."""
    torch = _root()
    if A.is_complex():
        return GENERIC
    if p in (None, 2, -2):
        U, S, Vh = torch.linalg.svd(A, full_matrices=False)
        dS = (U.mT @ t_A @ Vh.mT).diagonal(0, -2, -1)
        big, small, dbig, dsmall = S[..., 0], S[..., -1], dS[..., 0], dS[..., -1]
        if p == -2:
            big, small, dbig, dsmall = small, big, dsmall, dbig
        return (dbig * small - big * dsmall) / (small * small)
    Ai = torch.linalg.inv(A)
    nA, nAi = torch.linalg.matrix_norm(A, p), torch.linalg.matrix_norm(Ai, p)
    dnA = _matrix_norm_jvp(A, t_A, p, (-2, -1), False, nA)
    dnAi = _matrix_norm_jvp(Ai, -(Ai @ t_A @ Ai), p, (-2, -1), False, nAi)
    return dnA * nAi + nA * dnAi


def _tensorinv_jvp(A, t, ind, result):
    """The matrix inverse's -A^-1 dA A^-1 in tensorinv's reshaped (prod(A.shape[:ind]), rest) matrix form."""
    m = 1
    for s in A.shape[:ind]:
        m *= s
    Ai = result.reshape(-1, m)
    return (-(Ai @ t.reshape(m, -1) @ Ai)).reshape(tuple(result.shape))


def _tensorsolve_jvp(A, B, t_A, t_B, dims, result):
    """tensorsolve as the solve of A reshaped to (B.numel(), X.numel()) against B flattened."""
    torch = _root()
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        ends = list(range(A.dim() - len(dims), A.dim()))
        A = A.movedim(dims, ends)
        t_A = None if t_A is None else t_A.movedim(dims, ends)
    Am = A.reshape(B.numel(), -1)
    x = result.reshape(-1)
    rhs = torch.zeros(B.numel(), dtype=result.dtype, device=result.device) if t_B is None else t_B.reshape(-1)
    if t_A is not None:
        rhs = rhs - t_A.reshape(B.numel(), -1) @ x
    return torch.linalg.solve(Am, rhs).reshape(tuple(result.shape))


def _lu_parts(P, L, U, t_A):
    """(dL, dU) of a square A = P L U: X = L^-1 P^T dA U^-1, dL = L tril(X, -1), dU = triu(X) U."""
    torch = _root()
    X = torch.linalg.solve_triangular(L, P.mT @ t_A, upper=False, unitriangular=True)
    X = torch.linalg.solve_triangular(U, X, upper=True, left=False)
    return L @ X.tril(-1), X.triu() @ U


def _lu_jvp(A, t_A, result):
    if A.is_complex() or A.shape[-1] != A.shape[-2]:
        return GENERIC
    P, L, U = result
    dL, dU = _lu_parts(P, L, U, t_A)
    return None, dL, dU


def _lu_factor_jvp(A, t_A, result):
    """The packed factor's tangent, tril(dL, -1) + dU (square A)."""
    torch = _root()
    if A.is_complex() or A.shape[-1] != A.shape[-2]:
        return GENERIC
    P, L, U = torch.lu_unpack(result[0], result[1])
    dL, dU = _lu_parts(P, L, U, t_A)
    return (dL.tril(-1) + dU,) + (None,) * (len(result) - 1)


def _householder_product_jvp(A, tau, t_A, t_tau):
    """The product rule through Q = H_1 ... H_k [I]_{:, :n}, H_j = I - tau_j v_j v_j^H (linalg's composed
    householder_product), carried alongside it: d(H_j Q) = H_j dQ + dH_j Q."""
    torch = _root()
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    eye = torch.eye(m, k, dtype=A.dtype, device=A.device)
    V = A[..., :, :k].tril(-1) + eye
    dV = t_A[..., :, :k].tril(-1)
    Q = torch.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    dQ = torch.zeros_like(Q)
    for j in reversed(range(k)):
        v, dv = V[..., :, j : j + 1], dV[..., :, j : j + 1]
        vh, dvh = v.mH, dv.mH
        t, dt = tau[..., j, None, None], t_tau[..., j, None, None]
        w, dw = vh @ Q, dvh @ Q + vh @ dQ
        dQ = dQ - (dt * v + t * dv) @ w - (t * v) @ dw
        Q = Q - (t * v) @ w
    return dQ


def _matrix_power_jvp(A, t, n):
    """d(A^n) = sum_k A^k dA A^(n-1-k); a negative power is the positive power of A^-1, dA^-1 = -A^-1 dA A^-1."""
    torch = _root()
    if n == 0:
        return torch.zeros_like(A)
    if n < 0:
        B = torch.linalg.inv(A)
        t, A, n = -(B @ t @ B), B, -n
    powers = [None] * n
    powers[0] = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(tuple(A.shape))
    for k in range(1, n):
        powers[k] = powers[k - 1] @ A
    out = None
    for k in range(n):
        term = powers[k] @ t @ powers[n - 1 - k]
        out = term if out is None else out + term
    return out


def _gram_t(L, t_L, upper):
    """The tangent of L L^T (lower) or U^T U (upper) from its factor's."""
    return t_L.mT @ L + L.mT @ t_L if upper else t_L @ L.mT + L @ t_L.mT


def _cholesky_solve_jvp(B, L, t_B, t_L, upper, result):
    """X = A^-1 B, A = L L^T: dX = A^-1 (dB - dA X)."""
    rhs = t_B
    if t_L is not None:
        term = -(_gram_t(L, t_L, upper) @ result)
        rhs = term if rhs is None else rhs + term
    return _root().cholesky_solve(rhs, L, upper)


def _cholesky_inverse_jvp(L, t_L, upper, result):
    return -(result @ _gram_t(L, t_L, upper) @ result)


# ---- more losses and pools


def _clamp_bound_jvp(x, bound, t_x, t_bound, lower):
    """clamp_min/clamp_max (PyTorch 2.15's): by a number, the input's tangent strictly past it (0 at the bound
    or NaN); by a tensor, maximum/minimum's rule (the mean at a tie, the bound's where x loses or is NaN)."""
    torch = _root()
    if not _is_tensor(bound):
        if t_x is None:
            return None
        return torch.where(x > bound if lower else x < bound, t_x, torch.zeros_like(t_x))
    t_x = torch.zeros_like(x) if t_x is None else t_x
    t_bound = torch.zeros_like(bound) if t_bound is None else t_bound
    return _maxmin(t_x, t_bound, x, bound, lower)


def _hinge_embedding_jvp(x, y, t, margin, reduction):
    """x where target != -1, plus max(0, margin - x) where target != 1 (PyTorch's composition)."""
    torch = _root()
    zero = torch.zeros_like(t)
    tan = torch.where(y != -1, t, zero) + torch.where((y != 1) & (margin - x >= 0), -t, zero)
    return _reduce(tan, reduction)


def _soft_margin_jvp(x, y, t, reduction):
    return _reduce(-t * y * _root().sigmoid(-y * x), reduction)


def _cosine_embedding_jvp(x1, x2, y, t1, t2, margin, reduction):
    """1 - cos where target == 1, max(0, cos - margin) where target == -1, cos with PyTorch's 1e-12 in each
    squared magnitude."""
    torch = _root()
    d = y.dim()
    t1 = torch.zeros_like(x1) if t1 is None else t1
    t2 = torch.zeros_like(x2) if t2 is None else t2
    dot = (x1 * x2).sum(d)
    m1 = (x1 * x1).sum(d) + 1e-12
    m2 = (x2 * x2).sum(d) + 1e-12
    den = (m1 * m2).sqrt()
    cos = dot / den
    ddot = (t1 * x2 + x1 * t2).sum(d)
    dm1, dm2 = 2 * (x1 * t1).sum(d), 2 * (x2 * t2).sum(d)
    dcos = ddot / den - cos * (dm1 * m2 + m1 * dm2) / (2 * den * den)
    zero = torch.zeros_like(dcos)
    tan = torch.where(y == 1, -dcos, zero) + torch.where((y == -1) & (cos - margin >= 0), dcos, zero)
    return _reduce(tan, reduction)


def _multi_margin_jvp(x, target, t, p, margin, weight, reduction):
    """sum_{j != y} max(0, margin - x[y] + x[j])^p (times weight[y]) / C per sample: each active term's tangent
    t[j] - t[y] (times p z^(p-1))."""
    nd = x.dim()
    c = x.shape[-1] if nd else 1
    xs, ts = x.reshape(-1, c), t.reshape(-1, c)
    idx = target.reshape(-1, 1)
    z = margin - xs.gather(1, idx) + xs
    dz = ts - ts.gather(1, idx)
    active = (z > 0).scatter(1, idx, False)  # the target's own term is left out
    per = dz * active * (2 * z if p == 2 else 1)
    if weight is not None:
        per = per * weight.index_select(0, idx.reshape(-1)).unsqueeze(1)
    per = per.sum(1) / c
    if nd <= 1:
        per = per.reshape(())
    return _reduce(per, reduction)


def _gaussian_nll_jvp(x, target, var, t_x, t_target, t_var, eps, reduction):
    """0.5 (log v + (x - target)^2 / v), v = max(var, eps) with the clamp invisible to the tangent (PyTorch's);
    a var with one dim less than the input is broadcast along its last."""
    torch = _root()
    if not _is_tensor(var):
        var, t_var = torch.full_like(x, float(var)), None
    if tuple(var.shape) != tuple(x.shape) and tuple(x.shape[:-1]) == tuple(var.shape):
        var = var.unsqueeze(-1)
        t_var = None if t_var is None else t_var.unsqueeze(-1)
    v = var.clamp(min=eps)
    d = x - target
    tan = d * _difference_t(t_x, t_target, d) / v
    if t_var is not None:
        tan = tan + 0.5 * t_var * (1 / v - d * d / (v * v))
    return _reduce(tan, reduction)


def _poisson_nll_jvp(x, y, t_x, t_y, log_input, full, eps, reduction):
    """exp(x) - y x (log_input) or x - y log(x + eps), plus Stirling's y log y - y + log(2 pi y) / 2 where
    y > 1 when full."""
    torch = _root()
    tan = None
    if t_x is not None:
        tan = t_x * (torch.exp(x) - y if log_input else 1 - y / (x + eps))
    if t_y is not None:
        d = -x if log_input else -torch.log(x + eps)
        if full:
            safe = torch.where(y > 1, y, torch.ones_like(y))
            d = d + torch.where(y > 1, torch.log(safe) + 0.5 / safe, torch.zeros_like(y))
        term = t_y * d
        tan = term if tan is None else tan + term
    if tan is None:
        tan = torch.zeros_like(x)
    return _reduce(tan, reduction)


def _lp_pool_jvp(avg_pool, nd, x, t, norm_type, kernel_size, stride, ceil_mode, result):
    """out = (sum over the window of x^p)^(1/p): d out = sum(x^(p-1) t) * out^(1-p) (PyTorch's NaN where the
    window sums to 0); the inf norm (a max pool) takes the generic JVP."""
    if math.isinf(float(norm_type)):
        return GENERIC
    ks = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * nd
    k = 1
    for v in ks:
        k *= v
    s = avg_pool(
        x.pow(norm_type - 1) * t, kernel_size, stride if stride is not None else kernel_size, 0, ceil_mode
    )
    return s * k * result.pow(1 - norm_type)


def _logcumsumexp_jvp(x, t, dim, result):
    """d y_k = sum_{j <= k} exp(x_j - y_k) t_j, accumulated against the max along dim for range."""
    torch = _root()
    if x.dim() == 0:
        return t.clone()
    m = x.amax(dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    return torch.cumsum(t * torch.exp(x - m), dim) * torch.exp(m - result)


def _block_diag_jvp(tensors, t_tensors):
    torch = _root()
    tans = list(t_tensors) + [None] * (len(tensors) - len(t_tensors))
    return torch.block_diag(*[torch.zeros_like(x) if t is None else t for x, t in zip(tensors, tans)])


def _multi_dot_jvp(tensors, t_tensors):
    """The chain is linear in each matrix: one chain per matrix with a (nonzero) tangent."""
    torch = _root()
    out = None
    for i, t in enumerate(t_tensors):
        if t is None:
            continue
        term = torch.linalg.multi_dot([t if j == i else m for j, m in enumerate(tensors)])
        out = term if out is None else out + term
    return out


def _nanmean_jvp(x, t, dim, keepdim):
    torch = _root()
    ok = ~torch.isnan(x)
    red = _reduce_dims(x, dim) if x.dim() else None
    return torch.where(ok, t, torch.zeros_like(t)).sum(red, keepdim=keepdim) / ok.sum(red, keepdim=keepdim)


def _median_jvp(x, t, result, args, kwargs):
    """A dim median takes the chosen entry's tangent; the full one spreads it evenly over the entries equal to
    the median (PyTorch's evenly_distribute_backward)."""
    if isinstance(result, tuple):
        dim = args[0] if args else kwargs.get("dim", -1)
        keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
        return _take(t, result[1], dim, keepdim), None
    mask = (x == result).to(t.dtype)
    return (t * mask).sum() / mask.sum()


# ---- complex inputs: PyTorch's tangent is the plain directional derivative, f'(z) t for a holomorphic f (the
# rules above, written in ops that are holomorphic themselves) and the real-linear map below for the others


def _abs_jvp(t, x):
    """|x|: real(conj(sgn x) t) for complex x (0 at x == 0, where sgn is 0); t sign(x) for real x."""
    torch = _root()
    if not x.is_complex():
        return t * torch.sign(x)
    return torch.real(torch.conj(torch.sgn(x)) * t)


def _angle_jvp(t, x, result):
    """angle(x) = atan2(imag, real): imag(conj(x) t) / |x|^2 for complex x (0 at x == 0); 0 for real x."""
    torch = _root()
    if not x.is_complex():
        return torch.zeros_like(result)
    return _safe_div(torch.imag(torch.conj(x) * t), torch.real(torch.conj(x) * x))


def _sgn_jvp(t, x, result):
    """sgn(x) = x / |x|: (t - sgn(x) real(conj(sgn x) t)) / |x| for complex x (0 at x == 0); 0 for real x."""
    torch = _root()
    if not x.is_complex():
        return torch.zeros_like(result)
    a = torch.abs(x)
    d = _safe_div(t - result * torch.real(torch.conj(result) * t), a)
    return torch.where(a == 0, torch.zeros_like(d), d)


def _as_complex_t(t):
    """view_as_complex's tangent: the tangent's pairs as complex numbers (a complex tangent of a real primal by
    its real and imaginary parts, the map being real-linear)."""
    torch = _root()
    if t.is_complex():
        return _as_complex_t(torch.real(t)) + 1j * _as_complex_t(torch.imag(t))
    return torch.view_as_complex(t.contiguous())


# ------------------------------------------------------------------------------------------------ the table

_LINEAR = {"args": "self, *args, **kwargs", "jvp": "op(t_self, *args, **kwargs)", "dual_term": "linear"}
_NONE = {"jvp": None}

_COMPOSITE_RULES = {
    # ---- elementwise composites and public names of schema ops (the schema's own names are in ops.schema)
    # (the composites of minitorch/_composite_math.py declare theirs beside their code: declare() below)
    "special.i0e": {"args": "self", "jvp": "t_self * (special.i1e(self) - sign(self) * result)"},
    "special.i1": {"args": "self", "jvp": "_i1_jvp(t_self, self, result)"},
    "special.i1e": {"args": "self", "jvp": "_i1e_jvp(t_self, self, result)"},
    # torch.special's long tail (csrc/ops/ops.schema's _special_* rows carry the same formulas)
    "special.bessel_j0": {"args": "self", "jvp": "-t_self * special.bessel_j1(self)"},
    "special.bessel_j1": {
        "args": "self",
        "jvp": "t_self * where(self == 0, 0.5, special.bessel_j0(self) - result / self)",
    },
    "special.bessel_y0": {"args": "self", "jvp": "-t_self * special.bessel_y1(self)"},
    "special.bessel_y1": {
        "args": "self",
        "jvp": "t_self * where(self == 0, -special.bessel_y0(self), special.bessel_y0(self) - result / self)",
    },
    "special.modified_bessel_i0": {"args": "self", "jvp": "t_self * special.i1(self)"},
    "special.modified_bessel_i1": {"args": "self", "jvp": "_i1_jvp(t_self, self, result)"},
    "special.modified_bessel_k0": {"args": "self", "jvp": "-t_self * special.modified_bessel_k1(self)"},
    "special.modified_bessel_k1": {
        "args": "self",
        "jvp": "-t_self * (special.modified_bessel_k0(self) + result / self)",
    },
    "special.zeta": {"args": "self, other", "jvp": '_no_forward_ad("special_zeta")'},
    # torch.igamma/igammac and special.gammainc/gammaincc (the schema's _igamma/_igammac rows): PyTorch has no
    # forward-mode formula for either argument
    "igamma": {"args": "self, other", "jvp": '_no_forward_ad("igamma")'},
    "igammac": {"args": "self, other", "jvp": '_no_forward_ad("igammac")'},
    "special.gammainc": {"args": "self, other", "jvp": '_no_forward_ad("igamma")'},
    "special.gammaincc": {"args": "self, other", "jvp": '_no_forward_ad("igammac")'},
    "special.scaled_modified_bessel_k0": _NONE,
    "special.scaled_modified_bessel_k1": _NONE,
    "special.spherical_bessel_j0": _NONE,
    "special.airy_ai": _NONE,
    "special.chebyshev_polynomial_t": _NONE,
    "special.chebyshev_polynomial_u": _NONE,
    "special.chebyshev_polynomial_v": _NONE,
    "special.chebyshev_polynomial_w": _NONE,
    "special.shifted_chebyshev_polynomial_t": _NONE,
    "special.shifted_chebyshev_polynomial_u": _NONE,
    "special.shifted_chebyshev_polynomial_v": _NONE,
    "special.shifted_chebyshev_polynomial_w": _NONE,
    "special.hermite_polynomial_h": _NONE,
    "special.hermite_polynomial_he": _NONE,
    "special.laguerre_polynomial_l": _NONE,
    "special.legendre_polynomial_p": _NONE,
    # ---- binary composites
    "fmax": {"args": "self, other", "jvp": "_maxmin(t_self, t_other, self, other, True, True)"},
    "fmin": {"args": "self, other", "jvp": "_maxmin(t_self, t_other, self, other, False, True)"},
    # ---- composites: linear algebra
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
    # real-bilinear (vdot conjugates its first operand): each term the product with one operand's tangent
    "vdot": {
        "args": "input, other, *, out=None",
        "jvp_input": "vdot(t_input, other)",
        "jvp_other": "vdot(input, t_other)",
    },
    "inner": {
        "args": "input, other, *, out=None",
        "jvp_input": "inner(t_input, other)",
        "jvp_other": "inner(input, t_other)",
    },
    "resolve_conj": {"jvp": "resolve_conj(t_self)"},
    "resolve_neg": {"jvp": "resolve_neg(t_self)"},
    # complex numbers from real parts: real-linear in each part
    "complex": {"args": "real, imag, *, out=None", "jvp_real": "t_real + 0j", "jvp_imag": "t_imag * 1j"},
    "polar": {
        "args": "abs, angle, *, out=None",
        "jvp_abs": "t_abs * polar(ones_like(abs), angle)",
        "jvp_angle": "t_angle * 1j * result",
    },
    "tensordot": {
        "args": "a, b, dims=2, out=None",
        "jvp_a": "tensordot(t_a, b, dims)",
        "jvp_b": "tensordot(a, t_b, dims)",
    },
    "block_diag": {"args": "*tensors", "jvp": "_block_diag_jvp(tensors, t_tensors)"},
    "linalg.multi_dot": {"args": "tensors, *, out=None", "jvp": "_multi_dot_jvp(tensors, t_tensors)"},
    "kron": {
        "args": "input, other, *, out=None",
        "jvp_input": "kron(t_input, other)",
        "jvp_other": "kron(input, t_other)",
    },
    "cross": {
        "args": "input, other, dim=None, *, out=None",
        "jvp_input": "cross(t_input, other, dim)",
        "jvp_other": "cross(input, t_other, dim)",
    },
    "linalg.cross": {
        "args": "input, other, *, dim=-1, out=None",
        "jvp_input": "linalg.cross(t_input, other, dim=dim)",
        "jvp_other": "linalg.cross(input, t_other, dim=dim)",
    },
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
    "F.gelu": {"args": "input, *, approximate='none'", "jvp": "_gelu_jvp(t_input, input, approximate)"},
    "F.silu": {"args": "input, inplace=False", "jvp": "_silu_jvp(t_input, input)"},
    "F.mish": {"args": "input, inplace=False", "jvp": "_mish_jvp(t_input, input)"},
    "F.tanh": {"args": "input", "jvp": "t_input * (1 - result * result)"},
    "F.sigmoid": {"args": "input", "jvp": "t_input * result * (1 - result)"},
    "F.relu6": {
        "args": "input, inplace=False",
        "jvp": "t_input * ((input > 0) & (input < 6))",
        "dual_term": "zero",
    },
    "F.hardsigmoid": {  # hardsigmoid_backward: 1/6 rounded to float (float64 too), 0 at +-3 and NaN
        "args": "input, inplace=False",
        "jvp": "where((input > -3) & (input < 3), t_input * 0.1666666716337204, zeros_like(t_input))",
    },
    "F.hardswish": {"args": "input, inplace=False", "jvp": "_hardswish_jvp(t_input, input)"},
    "F.softsign": {"args": "input", "jvp": "t_input / ((1 + abs(input)) * (1 + abs(input)))"},
    "F.threshold": {
        "args": "input, threshold, value, inplace=False",
        "primal": "_threshold_primal(input, threshold, value, inplace)",
        "jvp": "where(input <= threshold if aux is None else aux, zeros_like(t_input), t_input)",
    },
    "F.glu": {"args": "input, dim=-1", "jvp": "_glu_jvp(input, t_input, dim)"},
    "F.softshrink": {"args": "input, lambd=0.5", "jvp": "t_input * ((input > lambd) | (input < -lambd))"},
    "F.hardshrink": {"args": "input, lambd=0.5", "jvp": "t_input * ((input > lambd) | (input < -lambd))"},
    "F.tanhshrink": {"args": "input", "jvp": "t_input * tanh(input) * tanh(input)"},
    "F.prelu": {
        "args": "input, weight",
        "jvp": "_prelu_jvp(input, weight, t_input, t_weight)",
        "keep_none": "1",
    },
    "F.softmin": {
        "args": "input, dim=None, _stacklevel=3, dtype=None",
        "jvp": "-result * (t_input.to(result.dtype) - (t_input.to(result.dtype) * result).sum("
        "_softmax_dim(input.dim()) if dim is None else dim, keepdim=True))",
    },
    "F.elu": {
        "args": "input, alpha=1.0, inplace=False",
        # elu_backward: from the input alpha exp(x) (result + alpha cancels digits near -alpha); in place the
        # input is the result, read as PyTorch's is_result form
        "jvp": "where(input > 0, t_input, t_input * (result + alpha) if inplace else t_input * alpha * exp(input))",
    },
    "F.logsigmoid": {"args": "input", "jvp": "t_input * sigmoid(-input)"},
    "F.hardtanh": {
        "args": "input, min_val=-1.0, max_val=1.0, inplace=False",
        "jvp": "t_input * ((input > min_val) & (input < max_val))",
        "dual_term": "zero",
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
    "F.batch_norm": {
        "args": "input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05",
        "jvp": "_batch_norm_jvp(input, t_input, running_mean, running_var, weight, training, eps, t_running_mean, "
        "t_running_var, t_weight, t_bias)",
        "keep_none": "1",
    },
    "batch_norm": {
        "args": "input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled",
        "jvp": "_batch_norm_jvp(input, t_input, running_mean, running_var, weight, training, eps, t_running_mean, "
        "t_running_var, t_weight, t_bias)",
        "keep_none": "1",
    },
    "F.instance_norm": {
        "args": "input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, "
        "momentum=0.1, eps=1e-05",
        "jvp": "_instance_norm_jvp(input, t_input, running_mean, running_var, weight, use_input_stats, eps, "
        "t_running_mean, t_running_var, t_weight, t_bias)",
        "keep_none": "1",
    },
    "instance_norm": {
        "args": "input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled",
        "jvp": "_instance_norm_jvp(input, t_input, running_mean, running_var, weight, use_input_stats, eps, "
        "t_running_mean, t_running_var, t_weight, t_bias)",
        "keep_none": "1",
    },
    "F.group_norm": {
        "args": "input, num_groups, weight=None, bias=None, eps=1e-05",
        "jvp": "_group_norm_jvp(input, t_input, num_groups, weight, eps, t_weight, t_bias)",
        "keep_none": "1",
    },
    "group_norm": {
        "args": "input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True",
        "jvp": "_group_norm_jvp(input, t_input, num_groups, weight, eps, t_weight, t_bias)",
        "keep_none": "1",
    },
    "layer_norm": {
        "args": "input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True",
        "jvp": "_layer_norm_jvp(input, normalized_shape, weight, bias, eps, t_input, t_weight, t_bias)",
        "keep_none": "1",
    },
    "F.scaled_dot_product_attention": {
        "args": "query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False",
        "jvp": "_sdpa_jvp(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa, t_query, t_key, "
        "t_value, t_attn_mask)",
        "keep_none": "1",
    },
    "F.mse_loss": {
        "args": "input, target, size_average=None, reduce=None, reduction='mean', weight=None",
        "jvp": "_mse_jvp(input, target, t_input, t_target, size_average, reduce, reduction, weight, t_weight, "
        "result)",
        "keep_none": "1",
    },
    "F.l1_loss": {
        "args": "input, target, size_average=None, reduce=None, reduction='mean', weight=None",
        "jvp": "_l1_jvp(input, target, t_input, t_target, size_average, reduce, reduction, weight, t_weight, result)",
        "keep_none": "1",
    },
    "F.smooth_l1_loss": {
        "args": "input, target, size_average=None, reduce=None, reduction='mean', beta=1.0",
        "jvp": "_smooth_l1_jvp(input, target, t_input, t_target, size_average, reduce, reduction, beta)",
        "keep_none": "1",
    },
    "F.huber_loss": {
        "args": "input, target, reduction='mean', delta=1.0, weight=None",
        "jvp": "_huber_jvp(input, target, t_input, t_target, reduction, delta, weight, t_weight)",
        "keep_none": "1",
    },
    "F.binary_cross_entropy": {
        "args": "input, target, weight=None, size_average=None, reduce=None, reduction='mean'",
        "jvp": "_bce_jvp(input, target, t_input, t_target, weight, size_average, reduce, reduction, t_weight)",
        "keep_none": "1",
    },
    "F.binary_cross_entropy_with_logits": {
        "args": "input, target, weight=None, size_average=None, reduce=None, reduction='mean', pos_weight=None",
        "jvp": "_bce_logits_jvp(input, target, t_input, t_target, weight, size_average, reduce, reduction, "
        "pos_weight, t_weight, t_pos_weight)",
        "keep_none": "1",
    },
    "F.kl_div": {
        "args": "input, target, size_average=None, reduce=None, reduction='mean', log_target=False",
        "jvp": "_kl_div_jvp(input, target, t_input, t_target, size_average, reduce, reduction, log_target)",
        "keep_none": "1",
    },
    "F.cross_entropy": {
        "args": "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, "
        "reduction='mean', label_smoothing=0.0",
        "jvp": "_cross_entropy_jvp(input, target, t_input, t_target, weight, ignore_index, reduction, "
        "label_smoothing, size_average, reduce, t_weight)",
        "keep_none": "1",
    },
    "F.hinge_embedding_loss": {
        "args": "input, target, margin=1.0, size_average=None, reduce=None, reduction='mean'",
        "jvp": "_hinge_embedding_jvp(input, target, t_input, margin, _loss_reduction(size_average, reduce, "
        "reduction))",
    },
    "F.soft_margin_loss": {
        "args": "input, target, size_average=None, reduce=None, reduction='mean'",
        "jvp_input": "_soft_margin_jvp(input, target, t_input, _loss_reduction(size_average, reduce, reduction))",
    },
    "F.cosine_embedding_loss": {
        "args": "input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean'",
        "jvp": "_cosine_embedding_jvp(input1, input2, target, t_input1, t_input2, margin, "
        "_loss_reduction(size_average, reduce, reduction))",
        "keep_none": "1",
    },
    "F.multi_margin_loss": {
        "args": "input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction='mean'",
        "jvp_input": "_multi_margin_jvp(input, target, t_input, p, margin, weight, "
        "_loss_reduction(size_average, reduce, reduction))",
    },
    # composites of ops that have rules: run on the duals as written (a path through a _C builtin, such as
    # triplet_margin_loss's swap, falls back to the generic JVP with its warning)
    "F.poisson_nll_loss": {
        "args": "input, target, log_input=True, full=False, size_average=None, eps=1e-08, reduce=None, "
        "reduction='mean'",
        "jvp": "_poisson_nll_jvp(input, target, t_input, t_target, log_input, full, eps, "
        "_loss_reduction(size_average, reduce, reduction))",
        "keep_none": "1",
    },
    "F.gaussian_nll_loss": {
        "args": "input, target, var, full=False, eps=1e-06, reduction='mean'",
        "jvp": "_gaussian_nll_jvp(input, target, var, t_input, t_target, t_var, eps, reduction)",
        "keep_none": "1",
    },
    "F.margin_ranking_loss": COMPOSITE,
    "F.multilabel_soft_margin_loss": COMPOSITE,
    "F.triplet_margin_loss": COMPOSITE,
    "F.local_response_norm": COMPOSITE,
    "F.embedding_bag": COMPOSITE,
    # its products are Tensor methods (bmm), its projections F.linear, its attention softmax or F.sdpa: each has
    # a rule, so the tangent flows through them instead of the double-vjp trick
    "F.multi_head_attention_forward": COMPOSITE,
    # (no weight term: PyTorch's nll_loss is not differentiable in its class weights and drops their tangent)
    "F.nll_loss": {
        "args": "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'",
        "jvp_input": "F.nll_loss(t_input, target, weight, size_average, ignore_index, reduce, reduction)",
    },
    # ---- composites: reductions
    "nansum": {
        "args": "self, *args, **kwargs",
        "jvp": "sum(where(isnan(self), 0.0, t_self), *args, **kwargs)",
        "dual_term": "zero",
    },
    "logcumsumexp": {"args": "self, dim", "jvp": "_logcumsumexp_jvp(self, t_self, dim, result)"},
    "cummax": {"args": "self, dim", "jvp": "(_take(t_self, result[1], dim, True), None)"},
    "cummin": {"args": "self, dim", "jvp": "(_take(t_self, result[1], dim, True), None)"},
    "nanmean": {
        "args": "self, dim=None, keepdim=False, *, dtype=None, out=None",
        "jvp": "_nanmean_jvp(self, t_self, dim, keepdim)",
    },
    "dist": {
        "args": "self, other, p=2",
        "jvp": "_vector_norm_jvp(self - other, _difference_t(t_self, t_other, self - other), p, None, False, result)",
        "keep_none": "1",
    },
    "trace": _LINEAR,
    # ---- composites: shape and indexing (linear in self: the op applied to the tangent)
    "adjoint": _LINEAR,
    "broadcast_to": _LINEAR,
    "ravel": _LINEAR,
    "flip": _LINEAR,
    "fliplr": _LINEAR,
    "flipud": _LINEAR,
    "rot90": _LINEAR,
    "repeat_interleave": _LINEAR,
    "diag": _LINEAR,
    "diag_embed": _LINEAR,
    "unfold": _LINEAR,
    "contiguous": _LINEAR,
    "clone": _LINEAR,
    "gradient": _LINEAR,  # linear in the input (coordinate tensors of the spacing carry no tangent here)
    "split_with_sizes": _LINEAR,
    "Tensor.__getitem__": {"args": "self, index", "jvp": "t_self[index]", "dual_term": "linear"},
    # the indexed writes are linear in (self, source): the same write of the tangents (PyTorch's formulas)
    "index_add": {
        "args": "self, dim, index, source, *, alpha=1",
        "jvp": "t_self.index_add(dim, index, t_source, alpha=alpha)",
    },
    "concatenate": {
        "args": "tensors, dim=0, *, out=None, axis=None",
        "jvp": "cat(t_tensors, dim if axis is None else axis)",
        "dual_term": "linear",
    },
    "hstack": {"args": "tensors, *, out=None", "jvp": "hstack(t_tensors)", "dual_term": "linear"},
    "vstack": {"args": "tensors, *, out=None", "jvp": "vstack(t_tensors)", "dual_term": "linear"},
    "F.pad": {
        "args": "input, pad, mode='constant', value=None",
        "jvp": "F.pad(t_input, pad, mode, 0.0 if mode == 'constant' else value)",
    },
    # pools: the average ones are linear (the tangent pooled), the max ones pick the tangent at the argmax
    "F.avg_pool1d": {"args": "input, *args, **kwargs", "jvp": "F.avg_pool1d(t_input, *args, **kwargs)"},
    "F.avg_pool2d": {"args": "input, *args, **kwargs", "jvp": "F.avg_pool2d(t_input, *args, **kwargs)"},
    "F.avg_pool3d": {"args": "input, *args, **kwargs", "jvp": "F.avg_pool3d(t_input, *args, **kwargs)"},
    "F.adaptive_avg_pool1d": {
        "args": "input, *args, **kwargs",
        "jvp": "F.adaptive_avg_pool1d(t_input, *args, **kwargs)",
    },
    "F.adaptive_avg_pool2d": {
        "args": "input, *args, **kwargs",
        "jvp": "F.adaptive_avg_pool2d(t_input, *args, **kwargs)",
    },
    "F.adaptive_avg_pool3d": {
        "args": "input, *args, **kwargs",
        "jvp": "F.adaptive_avg_pool3d(t_input, *args, **kwargs)",
    },
    "F.max_pool1d": {
        "args": "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False",
        "primal": "_max_pool_primal(F.max_pool1d_with_indices, return_indices, input, kernel_size, stride, "
        "padding, dilation, ceil_mode)",
        "jvp": "_max_pool_rule(F.max_pool1d_with_indices, 1, input, t_input, result, aux, kernel_size, "
        "stride, padding, dilation, ceil_mode)",
    },
    "F.max_pool1d_with_indices": {
        "args": "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True",
        "jvp": "(_max_pool_jvp(t_input, result[1], 1), None)",
    },
    "F.adaptive_max_pool1d": {
        "args": "input, output_size, return_indices=False",
        "primal": "_max_pool_primal(F.adaptive_max_pool1d_with_indices, return_indices, input, output_size)",
        "jvp": "_max_pool_rule(F.adaptive_max_pool1d_with_indices, 1, input, t_input, result, aux, "
        "output_size)",
    },
    "F.adaptive_max_pool1d_with_indices": {
        "args": "input, output_size, return_indices=True",
        "jvp": "(_max_pool_jvp(t_input, result[1], 1), None)",
    },
    "F.max_pool2d": {
        "args": "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False",
        "primal": "_max_pool_primal(F.max_pool2d_with_indices, return_indices, input, kernel_size, stride, "
        "padding, dilation, ceil_mode)",
        "jvp": "_max_pool_rule(F.max_pool2d_with_indices, 2, input, t_input, result, aux, kernel_size, "
        "stride, padding, dilation, ceil_mode)",
    },
    "F.max_pool2d_with_indices": {
        "args": "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True",
        "jvp": "(_max_pool_jvp(t_input, result[1], 2), None)",
    },
    "F.adaptive_max_pool2d": {
        "args": "input, output_size, return_indices=False",
        "primal": "_max_pool_primal(F.adaptive_max_pool2d_with_indices, return_indices, input, output_size)",
        "jvp": "_max_pool_rule(F.adaptive_max_pool2d_with_indices, 2, input, t_input, result, aux, "
        "output_size)",
    },
    "F.adaptive_max_pool2d_with_indices": {
        "args": "input, output_size, return_indices=True",
        "jvp": "(_max_pool_jvp(t_input, result[1], 2), None)",
    },
    "F.max_pool3d": {
        "args": "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False",
        "primal": "_max_pool_primal(F.max_pool3d_with_indices, return_indices, input, kernel_size, stride, "
        "padding, dilation, ceil_mode)",
        "jvp": "_max_pool_rule(F.max_pool3d_with_indices, 3, input, t_input, result, aux, kernel_size, "
        "stride, padding, dilation, ceil_mode)",
        "dual_term": "zero",
    },
    "F.max_pool3d_with_indices": {
        "args": "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True",
        "jvp": "(_max_pool_jvp(t_input, result[1], 3), None)",
    },
    "F.adaptive_max_pool3d": {
        "args": "input, output_size, return_indices=False",
        "primal": "_max_pool_primal(F.adaptive_max_pool3d_with_indices, return_indices, input, output_size)",
        "jvp": "_max_pool_rule(F.adaptive_max_pool3d_with_indices, 3, input, t_input, result, aux, "
        "output_size)",
    },
    "F.adaptive_max_pool3d_with_indices": {
        "args": "input, output_size, return_indices=True",
        "jvp": "(_max_pool_jvp(t_input, result[1], 3), None)",
    },
    "F.lp_pool1d": {
        "args": "input, norm_type, kernel_size, stride=None, ceil_mode=False",
        "jvp": "_lp_pool_jvp(F.avg_pool1d, 1, input, t_input, norm_type, kernel_size, stride, ceil_mode, result)",
    },
    "F.lp_pool2d": {
        "args": "input, norm_type, kernel_size, stride=None, ceil_mode=False",
        "jvp": "_lp_pool_jvp(F.avg_pool2d, 2, input, t_input, norm_type, kernel_size, stride, ceil_mode, result)",
    },
    "F.lp_pool3d": {
        "args": "input, norm_type, kernel_size, stride=None, ceil_mode=False",
        "jvp": "_lp_pool_jvp(F.avg_pool3d, 3, input, t_input, norm_type, kernel_size, stride, ceil_mode, result)",
    },
    # the torch-level spellings (an empty stride is the kernel size; adaptive_max_pool1d returns its indices)
    "max_pool1d": {
        "args": "input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False",
        "primal": "_max_pool_primal(F.max_pool1d_with_indices, False, input, kernel_size, _pool_stride(stride), "
        "padding, dilation, ceil_mode)",
        "jvp": "_max_pool_rule(F.max_pool1d_with_indices, 1, input, t_input, result, aux, kernel_size, "
        "_pool_stride(stride), padding, dilation, ceil_mode)",
    },
    "max_pool2d": {
        "args": "input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False",
        "primal": "_max_pool_primal(F.max_pool2d_with_indices, False, input, kernel_size, _pool_stride(stride), "
        "padding, dilation, ceil_mode)",
        "jvp": "_max_pool_rule(F.max_pool2d_with_indices, 2, input, t_input, result, aux, kernel_size, "
        "_pool_stride(stride), padding, dilation, ceil_mode)",
    },
    "max_pool3d": {
        "args": "input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False",
        "primal": "_max_pool_primal(F.max_pool3d_with_indices, False, input, kernel_size, _pool_stride(stride), "
        "padding, dilation, ceil_mode)",
        "jvp": "_max_pool_rule(F.max_pool3d_with_indices, 3, input, t_input, result, aux, kernel_size, "
        "_pool_stride(stride), padding, dilation, ceil_mode)",
        "dual_term": "zero",
    },
    "adaptive_max_pool1d": {
        "args": "input, output_size",
        "jvp": "(_max_pool_jvp(t_input, result[1], 1), None)",
    },
    "avg_pool1d": {"args": "input, *args, **kwargs", "jvp": "avg_pool1d(t_input, *args, **kwargs)"},
    "adaptive_avg_pool1d": {
        "args": "input, *args, **kwargs",
        "jvp": "adaptive_avg_pool1d(t_input, *args, **kwargs)",
    },
    # rearrangements, linear in the input
    "F.pixel_shuffle": {"args": "input, *args, **kwargs", "jvp": "F.pixel_shuffle(t_input, *args, **kwargs)"},
    "F.pixel_unshuffle": {
        "args": "input, *args, **kwargs",
        "jvp": "F.pixel_unshuffle(t_input, *args, **kwargs)",
    },
    "F.channel_shuffle": {
        "args": "input, *args, **kwargs",
        "jvp": "F.channel_shuffle(t_input, *args, **kwargs)",
    },
    "F.unfold": {"args": "input, *args, **kwargs", "jvp": "F.unfold(t_input, *args, **kwargs)"},
    "F.fold": {"args": "input, *args, **kwargs", "jvp": "F.fold(t_input, *args, **kwargs)"},
    "pixel_shuffle": {"args": "input, *args, **kwargs", "jvp": "pixel_shuffle(t_input, *args, **kwargs)"},
    "pixel_unshuffle": {"args": "input, *args, **kwargs", "jvp": "pixel_unshuffle(t_input, *args, **kwargs)"},
    "channel_shuffle": {"args": "input, *args, **kwargs", "jvp": "channel_shuffle(t_input, *args, **kwargs)"},
    # every interpolation mode is linear in the input (nearest, (bi/tri)linear, bicubic, area)
    "F.interpolate": {"args": "input, *args, **kwargs", "jvp": "F.interpolate(t_input, *args, **kwargs)"},
    "F.upsample": {"args": "input, *args, **kwargs", "jvp": "F.upsample(t_input, *args, **kwargs)"},
    "F.upsample_nearest": {
        "args": "input, *args, **kwargs",
        "jvp": "F.upsample_nearest(t_input, *args, **kwargs)",
    },
    "F.upsample_bilinear": {
        "args": "input, *args, **kwargs",
        "jvp": "F.upsample_bilinear(t_input, *args, **kwargs)",
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
    "Tensor.__setitem__": {"args": "self, index, value", "jvp": None},  # handled by dispatch
    "isclose": _NONE,
    "signbit": _NONE,
    "nan_to_num": {"args": "self, *args, **kwargs", "jvp": "where(isfinite(self), t_self, 0.0)"},
    "hypot": {"jvp_self": "t_self * self / result", "jvp_other": "t_other * other / result"},
    "logit": {"args": "self, eps=None", "jvp": "t_self / (self * (1 - self))"},
    # selu(x) = scale * (x > 0 ? x : alpha * (exp(x) - 1)): below 0 the slope is scale * alpha * exp(x), from
    # the input as PyTorch's elu_backward (result + scale * alpha cancels digits), in place from the result
    "selu": {
        "args": "input, inplace=False",
        "jvp": "where(input > 0, t_input * 1.0507009873554805, t_input * (result + 1.7580993408473766) if inplace "
        "else t_input * 1.7580993408473766 * exp(input))",
    },
    "celu": {
        "args": "input, alpha=1.0, inplace=False",
        "jvp": "where(input > 0, t_input, t_input * (result / alpha + 1) if inplace else t_input * exp(input / alpha))",
    },
    # torch.linalg: the classic first-order formulas (the others take the generic JVP through their backward)
    "linalg.inv": {"args": "A, *, out=None", "jvp": "-(result @ t_A @ result)"},
    "linalg.householder_product": {
        "args": "A, tau, *, out=None",
        "jvp": "_householder_product_jvp(A, tau, t_A, t_tau)",
    },
    "orgqr": {"args": "input, input2", "jvp": "_householder_product_jvp(input, input2, t_input, t_input2)"},
    "Tensor.orgqr": {
        "args": "self, input2",
        "jvp": "_householder_product_jvp(self, input2, t_self, t_input2)",
    },
    "inverse": {"args": "self, *, out=None", "jvp": "-(result @ t_self @ result)"},
    "linalg.det": {
        "args": "A, *, out=None",
        "jvp": "result * linalg.solve(A, t_A).diagonal(0, -2, -1).sum(-1)",
    },
    "det": {"args": "self", "jvp": "result * linalg.solve(self, t_self).diagonal(0, -2, -1).sum(-1)"},
    "linalg.inv_ex": {
        "args": "A, *, check_errors=False, out=None",
        "jvp": "(-(result[0] @ t_A @ result[0]), None)",
    },
    "linalg.solve": {
        "args": "A, B, *, left=True, out=None",
        "jvp": "_solve_jvp(A, B, t_A, t_B, left, result)",
        "keep_none": "1",
    },
    "linalg.solve_ex": {
        "args": "A, B, *, left=True, check_errors=False, out=None",
        "jvp": "(_solve_jvp(A, B, t_A, t_B, left, result[0]), None)",
        "keep_none": "1",
    },
    "linalg.solve_triangular": {
        "args": "A, B, *, upper, left=True, unitriangular=False, out=None",
        "jvp": "_solve_triangular_jvp(A, B, t_A, t_B, upper, left, unitriangular, result)",
        "keep_none": "1",
    },
    # the decompositions of real matrices (complex ones take the generic JVP through their backward)
    "linalg.slogdet": {
        "args": "A, *, out=None",
        "jvp": "GENERIC if A.is_complex() else (zeros_like(result[0]), _logabsdet_jvp(A, t_A))",
    },
    "slogdet": {
        "args": "input",
        "jvp": "GENERIC if input.is_complex() else (zeros_like(result[0]), _logabsdet_jvp(input, t_input))",
    },
    "logdet": {"args": "input", "jvp": "GENERIC if input.is_complex() else _logabsdet_jvp(input, t_input)"},
    "linalg.cholesky": {
        "args": "A, *, upper=False, out=None",
        "jvp": "GENERIC if A.is_complex() else _cholesky_jvp(result, t_A, upper)",
    },
    "linalg.cholesky_ex": {
        "args": "A, *, upper=False, check_errors=False, out=None",
        "jvp": "GENERIC if A.is_complex() else (_cholesky_jvp(result[0], t_A, upper), None)",
    },
    "linalg.qr": {
        "args": "A, mode='reduced', *, out=None",
        "jvp": "GENERIC if A.is_complex() else _qr_jvp(A, t_A, mode, result)",
    },
    "linalg.eigh": {
        "args": "A, UPLO='L', *, out=None",
        "jvp": "GENERIC if A.is_complex() else _eigh_jvp(t_A, result)",
    },
    "linalg.eigvalsh": {
        "args": "A, UPLO='L', *, out=None",
        "jvp": "GENERIC if A.is_complex() else _eigvalsh_jvp(A, t_A, UPLO)",
    },
    "linalg.svd": {
        "args": "A, full_matrices=True, *, driver=None, out=None",
        "jvp": "GENERIC if A.is_complex() else _svd_jvp(A, t_A, full_matrices, result)",
    },
    "svd": {
        "args": "input, some=True, compute_uv=True, *, out=None",
        "jvp": "GENERIC if input.is_complex() else _torch_svd_jvp(input, t_input, some, compute_uv, result)",
    },
    "linalg.svdvals": {
        "args": "A, *, driver=None, out=None",
        "jvp": "GENERIC if A.is_complex() else _svdvals_jvp(A, t_A)",
    },
    "linalg.matrix_exp": {"args": "A", "jvp": "_matrix_exp_jvp(A, t_A)"},
    "linalg.matrix_power": {"args": "A, n, *, out=None", "jvp": "_matrix_power_jvp(A, t_A, n)"},
    "linalg.pinv": {
        "args": "A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None",
        "jvp": "GENERIC if A.is_complex() else _pinv_jvp(A, result, t_A)",
    },
    "pinverse": {"args": "input, rcond=1e-15", "jvp": "_pinv_jvp(input, result, t_input)"},
    "linalg.lstsq": {
        "args": "A, B, rcond=None, *, driver=None",
        "jvp": "_lstsq_jvp(A, B, t_A, t_B)",
        "keep_none": "1",
    },
    "linalg.cond": {"args": "A, p=None, *, out=None", "jvp": "_cond_jvp(A, t_A, p, result)"},
    "linalg.tensorinv": {"args": "A, ind=2, *, out=None", "jvp": "_tensorinv_jvp(A, t_A, ind, result)"},
    "linalg.tensorsolve": {
        "args": "A, B, dims=None, *, out=None",
        "jvp": "_tensorsolve_jvp(A, B, t_A, t_B, dims, result)",
        "keep_none": "1",
    },
    "linalg.lu": {"args": "A, *, pivot=True, out=None", "jvp": "_lu_jvp(A, t_A, result)"},
    "linalg.lu_factor": {"args": "A, *, pivot=True, out=None", "jvp": "_lu_factor_jvp(A, t_A, result)"},
    "linalg.lu_factor_ex": {
        "args": "A, *, pivot=True, check_errors=False, out=None",
        "jvp": "_lu_factor_jvp(A, t_A, result)",
    },
    "matrix_power": {"args": "input, n", "jvp": "_matrix_power_jvp(input, t_input, n)"},
    "cholesky_solve": {
        "args": "B, L, upper=False, *, out=None",
        "jvp": "_cholesky_solve_jvp(B, L, t_B, t_L, upper, result)",
        "keep_none": "1",
    },
    "cholesky_inverse": {
        "args": "L, upper=False, *, out=None",
        "jvp": "_cholesky_inverse_jvp(L, t_L, upper, result)",
    },
    # norms and distances (real inputs; complex ones take the generic JVP)
    "linalg.vector_norm": {
        "args": "x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None",
        "jvp": "_vector_norm_jvp(x, t_x, ord, dim, keepdim, result)",
    },
    "linalg.matrix_norm": {
        "args": "A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None",
        "jvp": "_matrix_norm_jvp(A, t_A, ord, dim, keepdim, result)",
    },
    "linalg.norm": {
        "args": "A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None",
        "jvp": "_linalg_norm_jvp(A, t_A, ord, dim, keepdim, result)",
    },
    "cdist": {
        "args": "x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'",
        "jvp": "_cdist_jvp(x1, x2, t_x1, t_x2, p, result)",
        "keep_none": "1",
    },
    "F.pairwise_distance": {
        "args": "x1, x2, p=2.0, eps=1e-06, keepdim=False",
        "jvp": "_pairwise_distance_jvp(x1, x2, t_x1, t_x2, p, eps, keepdim, result)",
        "keep_none": "1",
    },
    "F.pdist": {"args": "input, p=2.0", "jvp": "_pdist_jvp(input, t_input, p, result)"},
    "F.normalize": {
        "args": "input, p=2.0, dim=1, eps=1e-12, out=None",
        "jvp": "_normalize_jvp(input, t_input, p, dim, eps)",
    },
    "F.cosine_similarity": {
        "args": "x1, x2, dim=1, eps=1e-08",
        "jvp": "_cosine_similarity_jvp(x1, x2, t_x1, t_x2, dim, eps)",
        "keep_none": "1",
    },
    "F.rms_norm": {
        "args": "input, normalized_shape, weight=None, eps=None",
        "jvp": "_rms_norm_jvp(input, t_input, normalized_shape, weight, eps, t_weight)",
        "keep_none": "1",
    },
    "matrix_exp": {"args": "input", "jvp": "_matrix_exp_jvp(input, t_input)"},
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
        elif key == "jvp_absent":
            row["keep_none"] = value == "none"
        else:
            # `jvp: zero` (the in-place fills): forward AD writes their tangent (_forward_ad._FILLS); the rule
            # says what it is
            row[key] = {"none": None, "generic": GENERIC, "zero": "zeros_like(result)"}.get(value, value)
    return rows


# torch.fft's transforms are linear in the input (real-linear: rfft, irfft, hfft, ihfft and their n-d forms), so the
# tangent is the same transform of the input's tangent
for _name in (
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
    "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftshift", "ifftshift",
):  # fmt: skip
    _COMPOSITE_RULES["fft." + _name] = {
        "args": "input, *args, **kwargs",
        "jvp": f"fft.{_name}(t_input, *args, **kwargs)",
    }

# every rule by key; a schema op's rule lives only in the schema (tests/autograd/test_forward_ad.py checks)
JVP_RULES = {**_schema_rules(), **_COMPOSITE_RULES}

# the schema's aliases (absolute, arcsin, multiply, greater, ...) reach forward AD under their own names
for _row in _C._op_schema():
    if _row[1] in JVP_RULES:
        for _alias in re.findall(r"(\w+)(?:\[[^\]]*\])?", _row[5]):
            JVP_RULES.setdefault(_alias, JVP_RULES[_row[1]])

# F.selu and F.celu reach forward AD under either name (F.celu(x, alpha=...) as itself); F.softplus and
# F.leaky_relu take their kernels' rows (whose rules bind the public parameters)
for _name in ("selu", "celu", "softplus", "leaky_relu"):
    JVP_RULES["F." + _name] = JVP_RULES[_name]
# torch.copysign / nextafter cast and call their private rows (_copysign, _nextafter), torch.heaviside calls
# _heaviside: the rows' rules are theirs
for _name in ("copysign", "nextafter", "heaviside"):
    JVP_RULES.setdefault(_name, JVP_RULES["_" + _name])
# nn.functional names that are torch's own functions reach forward AD under the torch-level key (same signature)
for _name in ("hardshrink", "prelu", "pdist", "pairwise_distance", "cosine_similarity", "rms_norm"):
    JVP_RULES.setdefault(_name, JVP_RULES["F." + _name])

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


def declare(key, row):
    """A Python composite's rule, declared beside its code (minitorch/_composite_math.py's `_export(jvp=...)`):
    an expression (the row's `jvp`) or a row."""
    if key in JVP_RULES:
        raise ValueError(f"{key} has a JVP rule already")
    JVP_RULES[key] = row if isinstance(row, dict) else {"jvp": row}


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


class _Bound:
    """What inspect's BoundArguments gives the rules (the arguments, defaults already applied), made without
    inspect for the common call: positional arguments only, every parameter positional-or-keyword."""

    __slots__ = ("arguments",)

    def __init__(self, arguments):
        self.arguments = arguments

    def apply_defaults(self):
        pass


class Rule:
    """A compiled row: binds a call's arguments by `args` and evaluates its expressions."""

    __slots__ = (
        "composite",
        "defaults",
        "fast",
        "generic",
        "joint",
        "keep_none",
        "key",
        "kinds",
        "names",
        "none",
        "primal",
        "signature",
        "terms",
    )

    def __init__(self, key, row):
        self.key = key
        unary_like = not key.startswith(("F.", "linalg.", "special.")) or "args" in row
        default = "self, other" if any(k in row for k in ("jvp_self", "jvp_other")) else "self"
        params = row.get("args", default if unary_like else "input")
        self.signature = inspect.signature(eval(f"lambda {params}: None"))
        # inspect binds in ~1.5 us, twice per op a rule serves: the plain case (~0.5 us) is bound by zip
        self.names = tuple(self.signature.parameters)
        self.kinds = {n: p.kind for n, p in self.signature.parameters.items()}
        self.fast = all(k is inspect.Parameter.POSITIONAL_OR_KEYWORD for k in self.kinds.values())
        self.defaults = {
            n: p.default
            for n, p in self.signature.parameters.items()
            if p.default is not inspect.Parameter.empty
        }
        self.generic = row.get("jvp", "") == GENERIC and not any(k.startswith("jvp_") for k in row)
        self.composite = row.get("jvp", "") == COMPOSITE
        self.none = "jvp" in row and row["jvp"] is None
        self.keep_none = bool(row.get("keep_none"))
        self.joint = None
        self.primal = compile(row["primal"], f"<primal {key}>", "eval") if "primal" in row else None
        self.terms = {}
        if not self.generic and not self.none and not self.composite:
            if "jvp" in row:
                self.joint = compile(row["jvp"], f"<jvp {key}>", "eval")
            for k, v in row.items():
                if k.startswith("jvp_"):
                    self.terms[k[4:]] = compile(v, f"<jvp {key} {k}>", "eval")

    def _bind(self, args, kwargs):
        if not kwargs and self.fast and len(args) <= len(self.names):
            arguments = dict(zip(self.names, args))
            if len(args) < len(self.names):
                for n in self.names[len(args) :]:
                    if n not in self.defaults:
                        return self.signature.bind(*args), kwargs  # raises inspect's TypeError
                    arguments[n] = self.defaults[n]
            return _Bound(arguments), kwargs
        if kwargs and "input" in kwargs and "input" not in self.signature.parameters:
            kwargs = dict(kwargs)
            args = (kwargs.pop("input"), *args)
        return self.signature.bind(*args, **kwargs), kwargs

    def primal_result(self, args, kwargs):
        """(result, aux) by the row's `primal` expression; None when it fails (the op then runs itself, raising
        its own error for bad arguments)."""
        try:
            bound, _ = self._bind(args, kwargs)
            bound.apply_defaults()
            return eval(self.primal, {"__builtins__": __builtins__}, _Scope(bound.arguments))
        except Exception:  # noqa: BLE001  (the op's own call reports what was wrong)
            return None

    def apply(self, args, kwargs, tangents, result, call_key=None, aux=None):
        """The output tangent(s) for primals args/kwargs, tangents {position or keyword: tangent}."""
        if self.none:
            return _NO_TANGENT
        bound, kwargs = self._bind(args, kwargs)
        bound.apply_defaults()
        targs = [tangents.get(i) for i in range(len(args))]
        tkw = {k: tangents.get(k) for k in kwargs}
        if type(bound) is _Bound:
            tb = dict(zip(self.names, targs))
        else:
            tb = self.signature.bind_partial(*targs, **tkw).arguments
        scope = _Scope(bound.arguments)
        scope["result"] = result
        scope["aux"] = aux
        scope["op"] = _op_callable(call_key if call_key and call_key.startswith("Tensor.") else self.key)
        names = self.names
        if self.joint is not None:
            for n in names:
                t = tb.get(n)
                v = bound.arguments.get(n)
                kind = self.kinds[n]
                if kind is inspect.Parameter.VAR_POSITIONAL:
                    scope["t_" + n] = tuple(t) if t is not None else ()  # None for operands without one
                    continue
                if kind is inspect.Parameter.VAR_KEYWORD:
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
        if row in (GENERIC, COMPOSITE):
            row = {"jvp": row}
        r = _compiled[key] = Rule(key, row)
    return r
