"""Batching rules of vmap: how each op runs once on the batched values instead of once per batch entry.

Each rule receives (key, level, args, kwargs) where some arguments are BatchedTensors of `level` (batch dim at
position 0 of their `_value`) and returns the result batched at that level. Rules call ops through `call()`,
so a value that is itself batched at an outer level dispatches again. The families:

- pointwise: batch dims go first, and each batched operand is padded with size-1 dims after its batch dim up
  to the largest logical rank, so broadcasting lines the logical dims up as without vmap;
- dims: an op taking `dim` gets dim + 1 (after checking it against the logical rank); dim=None of a reduction
  reduces over the logical dims only;
- views and shapes: the batch size is prepended to the requested shape;
- matmul family, conv (a batched weight becomes a grouped convolution, one group per batch entry, as
  functorch does), pooling and normalization (the batch folds into the op's own batch dim N), losses (computed
  with reduction='none', then reduced per batch entry), cat/stack, indexing, random ops (randomness=);
- composites (addmm, linear with a batched weight, ...) decompose into ops that have rules, at the logical
  level.
"""

import re

from minitorch import _C, _composite_math
from minitorch._random import get_rng_state, set_rng_state
from minitorch.func._batched import (
    ITEM_REFUSAL,
    RULES,
    STATE,
    BatchedTensor,
    _original,
    _select_level,
    _wrap_dim,
    call,
    call_plain,
    dual_values,
    fallback,
    inplace_refusal,
    is_inplace,
    is_tensor_like,
    level_of,
    register_rule,
    stack_results,
    wrap,
)

# ----------------------------------------------------------------------------------------------- helpers


def _base(key):
    """The op's name without the method prefix (a method without its own rule uses the function's)."""
    return key.removeprefix("Tensor.")


def _bt(x, level):
    return type(x) is BatchedTensor and x._level == level


def _rank(x, level):
    """Logical rank at `level` (a plain tensor or an outer-level BatchedTensor is unbatched here)."""
    return x._value.dim() - 1 if _bt(x, level) else x.dim()


def _pad(v, k):
    """Inserts k size-1 dims after the batch dim of a value."""
    for _ in range(k):
        v = v.unsqueeze(1)
    return v


def _padded(x, level, rank):
    """The value of a batched x with its logical rank raised to `rank` (size-1 dims after the batch dim)."""
    v = x._value
    return _pad(v, rank - (v.dim() - 1))


def _size(level):
    return level_of(level).size


def _physical(x, level):
    """x's value with the batch dim at 0: the value if batched, else x expanded (a view) along a new dim 0."""
    if _bt(x, level):
        return x._value
    return x.unsqueeze(0).expand(_size(level), *x.shape)


def _shape_arg(args):
    """A shape given as varargs or as one sequence."""
    if (
        len(args) == 1
        and isinstance(args[0], (tuple, list))
        or (len(args) == 1 and hasattr(args[0], "__len__"))
    ):
        return tuple(args[0])
    return tuple(args)


def _get(args, kwargs, pos, name, default=None):
    if len(args) > pos:
        return args[pos]
    return kwargs.get(name, default)


def _set(args, kwargs, pos, name, value):
    """(args, kwargs) with the argument at (pos, name) replaced (or added as a keyword)."""
    if len(args) > pos:
        args = args[:pos] + (value,) + args[pos + 1 :]
    else:
        kwargs = dict(kwargs)
        kwargs[name] = value
    return args, kwargs


def _iter_tensors(args, kwargs):
    for a in args:
        if is_tensor_like(a):
            yield a
    for a in kwargs.values():
        if is_tensor_like(a):
            yield a


def _shift(d, rank):
    return _wrap_dim(d, rank) + 1


def _shift_dims(dims, rank):
    if isinstance(dims, (tuple, list)):
        return tuple(_shift(d, rank) for d in dims)
    return _shift(dims, rank)


# ----------------------------------------------------------------------------------------------- pointwise

POINTWISE = """
logit nan_to_num signbit float_power fmax fmin
hypot copysign nextafter ldexp
addcmul addcdiv heaviside mvlgamma isclose
F.relu F.relu6 F.elu F.selu F.celu F.gelu F.silu F.mish F.sigmoid F.tanh F.hardtanh
F.hardswish F.hardsigmoid F.leaky_relu F.softplus F.softsign F.softshrink F.hardshrink F.tanhshrink F.logsigmoid
F.threshold F.relu_ F.elu_ F.leaky_relu_ F.hardtanh_ F.threshold_ F.celu_ F.selu_ special.expit special.erf
special.erfc special.erfinv special.expm1 special.exp2 special.log1p special.sinc special.xlogy special.xlog1py
special.entr special.logit special.i0 special.i0e special.i1 special.i1e special.ndtr special.ndtri
special.log_ndtr special.digamma special.psi special.gammaln special.round special.polygamma special.multigammaln
Tensor.clone Tensor.contiguous Tensor.detach Tensor.to Tensor.type Tensor.type_as Tensor.float Tensor.double
Tensor.half Tensor.bfloat16 Tensor.int Tensor.long Tensor.short Tensor.bool Tensor.byte Tensor.char Tensor.cpu
Tensor.cuda Tensor.masked_fill Tensor.requires_grad_ Tensor.pin_memory
""".split()  # noqa: SIM905  (a word list reads better than a literal)

INPLACE_POINTWISE = """
add_ sub_ mul_ div_ pow_ clamp_min_ clamp_max_ neg_ abs_ exp_ log_ sqrt_ sigmoid_ tanh_ relu_ copy_
masked_fill_ lerp_ addcmul_ addcdiv_ floor_ ceil_ round_ trunc_ sign_ reciprocal_ rsqrt_ sin_ cos_
erf_ exp2_ expm1_ log1p_ log2_ log10_ fmod_ remainder_ maximum_ minimum_ nan_to_num_ true_divide_ floor_divide_
mul_ logical_not_ square_ atan2_ hypot_ detach_ requires_grad_ copysign_
""".split()  # noqa: SIM905  (a word list reads better than a literal)


@register_rule(*POINTWISE, *("Tensor." + n for n in INPLACE_POINTWISE))
def pointwise(key, level, args, kwargs):
    """Batching rule of elementwise ops: batched operands get size-1 dims after the batch dim up to the
    widest logical rank, so broadcasting lines up logical dims; in place on an unbatched self is refused."""
    if len(args) == 1 and not kwargs and type(args[0]) is BatchedTensor and not is_inplace(key):
        # one operand (sin(x), -x): nothing to line up, the op runs on the value (the most common call); a
        # plain value goes straight to the function (what call() would reach), an outer level's dispatches
        v = args[0]._value
        if type(v) is not BatchedTensor and key[:7] != "Tensor.":
            try:
                return wrap(_original(key)(v), level)
            except RuntimeError as e:
                return wrap(dual_values(e, key, (v,), {}), level)
        return wrap(call(key, v), level)
    rank = 0
    for a in _iter_tensors(args, kwargs):
        r = _rank(a, level)
        rank = max(rank, r)
    inplace = is_inplace(key)  # an unbatched self was refused by dispatch

    def conv(a):
        return _padded(a, level, rank) if _bt(a, level) else a

    args2 = tuple(conv(a) for a in args)
    kwargs2 = {k: conv(v) for k, v in kwargs.items()} if kwargs else kwargs
    res = call(key, *args2, **kwargs2)
    if inplace:
        return args[0]
    return wrap(res, level)


# operators go to the same rule (getitem and matmul have their own)
for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift", "rshift"):
    for _form in (f"__{_op}__", f"__r{_op}__", f"__i{_op}__"):
        register_rule("Tensor." + _form)(pointwise)
for _op in ("eq", "ne", "lt", "le", "gt", "ge", "neg", "pos", "abs", "invert"):
    register_rule(f"Tensor.__{_op}__")(pointwise)


# ----------------------------------------------------------------------------------------------- reductions


def _reduce_over(key, level, args, kwargs, dim_pos, dim_name, tuple_dims=True, empty_is_all=False):
    """A reduction taking `dim` (an int, a tuple, or None for all): shifted dims; None reduces the logical
    dims only. Ops that take one dim only reduce the flattened logical dims for None."""
    x = args[0]
    if not _bt(x, level):
        return fallback(key, level, args, kwargs)
    v = x._value
    r = v.dim() - 1
    dim = _get(args, kwargs, dim_pos, dim_name)
    rest_args, rest_kwargs = args, kwargs
    all_dims = dim is None or (empty_is_all and isinstance(dim, (tuple, list)) and len(dim) == 0)
    keepdim = _get(args, kwargs, dim_pos + 1, "keepdim", False) if dim_name == "dim" else False
    if all_dims:
        if r == 0:
            v = v.unsqueeze(1)
            new_dim = (1,) if tuple_dims else 1
        elif tuple_dims:
            new_dim = tuple(range(1, r + 1))
        else:
            v = v.flatten(1)
            new_dim = 1
    else:
        if r == 0:
            _shift_dims(dim, 0)  # checks the dim against a scalar's [-1, 0]
            v = v.unsqueeze(1)
            new_dim = (1,) * len(dim) if isinstance(dim, (tuple, list)) else 1
            keepdim = False
        else:
            new_dim = _shift_dims(dim, r)
    rest_args, rest_kwargs = _set(rest_args, rest_kwargs, dim_pos, dim_name, new_dim)
    if r == 0:
        rest_args, rest_kwargs = _drop_keepdim(rest_args, rest_kwargs, dim_pos)
    res = call(key, v, *rest_args[1:], **rest_kwargs)
    if all_dims and keepdim and r > 0 and not tuple_dims:
        res = res.reshape((_size(level),) + (1,) * r)
    return wrap(res, level)


def _drop_keepdim(args, kwargs, dim_pos):
    if len(args) > dim_pos + 1:
        args = args[: dim_pos + 1] + (False,) + args[dim_pos + 2 :]
    elif "keepdim" in kwargs:
        kwargs = dict(kwargs)
        kwargs["keepdim"] = False
    return args, kwargs


def _reduction(dim_pos=1, dim_name="dim", tuple_dims=True, empty_is_all=False):
    def rule(key, level, args, kwargs):
        return _reduce_over(key, level, args, kwargs, dim_pos, dim_name, tuple_dims, empty_is_all)

    return rule


# (sum, mean, std, var, all, any, prod, amax, amin, norm: ops.schema's `vmap: _reduction(...)`)
register_rule("nansum", "nanmean")(_reduction())
register_rule("special.logsumexp")(_reduction())
register_rule("linalg.vector_norm")(_reduction(dim_pos=2))


def max_min(key, level, args, kwargs):
    """Batching rule of max/min/median/nanmedian: with a tensor `other` it is elementwise; dim=None reduces
    each entry's flattened values (not across entries); a given dim is shifted past the batch dim."""
    other = _get(args, kwargs, 1, "other")
    if is_tensor_like(other):  # max(a, b): the elementwise maximum
        return pointwise(key, level, args, kwargs)
    dim = _get(args, kwargs, 1, "dim")
    x = args[0]
    if not _bt(x, level):
        return fallback(key, level, args, kwargs)
    if dim is None:
        v = x._value.reshape(_size(level), -1)
        return wrap(call(key, v, 1).values, level)
    return _dim_op(key, level, args, kwargs, ((1, "dim"),))


# ----------------------------------------------------------------------------------------------- ops taking dims


def _dim_op(key, level, args, kwargs, dim_args, rank_extra=0):
    """An op whose `dim`-like arguments (given as (position, name, default) triples) count logical dims: each is
    shifted past the batch dim. rank_extra widens the range checked (unsqueeze inserts a dim)."""
    x = args[0]
    if not _bt(x, level) or any(_bt(a, level) for a in list(args[1:]) + list(kwargs.values())):
        return fallback(key, level, args, kwargs)
    v = x._value
    r = v.dim() - 1
    if r + rank_extra == 0:
        return fallback(key, level, args, kwargs)
    for spec in dim_args:
        pos, name = spec[0], spec[1]
        d = _get(args, kwargs, pos, name, spec[2] if len(spec) > 2 else None)
        if d is None:
            continue
        args, kwargs = _set(args, kwargs, pos, name, _shift_dims(d, r + rank_extra))
    return wrap(call(key, v, *args[1:], **kwargs), level)


def _dims_rule(*dim_args, rank_extra=0):
    def rule(key, level, args, kwargs):
        return _dim_op(key, level, args, kwargs, dim_args, rank_extra)

    return rule


# (position, name, default): a dim that defaults to a non-negative value must be shifted even when omitted (the
# schema's ops, select, narrow, split, transpose, movedim, diagonal..., say theirs in ops.schema's `vmap:`)
for _names, _spec in (
    (
        "cummax cummin logcumsumexp Tensor.unfold",
        ((1, "dim"),),
    ),
    ("F.glu", ((1, "dim", -1),)),
    ("F.normalize", ((2, "dim", 1),)),
    ("Tensor.split split_with_sizes", ((2, "dim", 0),)),
    ("flip", ((1, "dims"),)),
    ("rot90", ((2, "dims", (0, 1)),)),
):
    register_rule(*_names.split())(_dims_rule(*_spec))


def _by_names(names, args, kwargs):
    """The call's arguments by parameter name (`names` in positional order; defaults left to the caller's
    .get), or None when it passes more positionals than names or an unknown keyword (the op's own TypeError
    then comes from the per-entry fallback)."""
    if len(args) > len(names) or kwargs.keys() - set(names):
        return None
    vals = dict(zip(names, args))
    vals.update(kwargs)
    return vals


@register_rule("diff")
def diff_rule(key, level, args, kwargs):
    """Batching rule of diff(input, n=1, dim=-1, prepend, append): prepend/append join the input by cat's rule
    at the logical level, then the dim is shifted past the batch dim."""
    names = ("input", "n", "dim", "prepend", "append")
    vals = _by_names(names, args, kwargs)
    if vals is None:
        return fallback(key, level, args, kwargs)
    x, n, dim = vals["input"], vals.get("n", 1), vals.get("dim", -1)
    ends = [vals.get("prepend"), vals.get("append")]
    if ends != [None, None]:
        parts = [t for t in (ends[0], x, ends[1]) if t is not None]
        if type(n) is not int or n < 1 or not all(is_tensor_like(t) and t.dim() == x.dim() for t in parts):
            return fallback(key, level, args, kwargs)  # the op's own errors and n = 0, per entry
        return call(key, call("cat", parts, dim), n, dim)
    return _dim_op(key, level, (x, n, dim), {}, ((2, "dim"),))


_REPEATS_NEED_SIZE = (
    "repeat_interleave: vmapping over the `repeats` tensor requires the `output_size` argument to be specified, "
    "because the size of the output equals the sum of `repeats`, which is data-dependent and may differ between "
    "batch elements. Please pass output_size, e.g. output_size=int(repeats.sum(-1).max())."
)


@register_rule("repeat_interleave")
def repeat_interleave_rule(key, level, args, kwargs):
    """Batching rule of repeat_interleave: dim=None flattens each entry first; shared repeats (an int or an
    unbatched tensor: every entry gets the same length) go to the op with the dim shifted; batched repeats need
    output_size (PyTorch's error otherwise) and gather by each entry's own index list (cumsum, searchsorted)."""
    names = ("input", "repeats", "dim", "output_size")
    vals = _by_names(names, args, kwargs)
    if vals is None:
        return fallback(key, level, args, kwargs)
    x, repeats, dim, output_size = (vals.get(n) for n in names)
    if repeats is None:  # repeat_interleave(repeats): the indices 0..n-1, each repeated
        if not is_tensor_like(x) or x.dim() > 1:
            return fallback(key, level, args, kwargs)
        x, repeats = call("arange", x.shape[0] if x.dim() else 1, device=x.device), x
    if not (_bt(x, level) or _bt(repeats, level)) or x.dim() == 0 and dim is not None:
        return fallback(key, level, args, kwargs)  # the op's own errors, per entry
    if dim is None:
        x, dim = call("Tensor.reshape", x, (-1,)), 0
    if not _bt(repeats, level):
        v = _physical(x, level)
        d = _shift(dim, v.dim() - 1)
        extra = {} if output_size is None else {"output_size": output_size}
        return wrap(call(key, v, repeats, dim=d, **extra), level)
    if output_size is None:
        raise RuntimeError(_REPEATS_NEED_SIZE)
    if repeats.dim() > 1 or repeats.is_floating_point():
        return fallback(key, level, args, kwargs)
    d = _wrap_dim(dim, x.dim())
    n = x.shape[d]
    reps = call("Tensor.expand", repeats, (n,)) if repeats.dim() == 0 or repeats.shape[0] == 1 else repeats
    ends = call("cumsum", reps, 0)
    # output position k reads the source index i with ends[i - 1] <= k < ends[i]
    pos = call("arange", output_size, device=x.device)
    idx = call("searchsorted", ends, pos, right=True)
    idx = call("clamp_max", idx, max(n - 1, 0))
    shape = (1,) * d + (output_size,) + (1,) * (x.dim() - d - 1)
    return call("take_along_dim", x, call("Tensor.reshape", idx, shape), d)


register_rule("F.cosine_similarity")(
    lambda key, level, args, kwargs: _broadcast_dim_op(key, level, args, kwargs, 2)
)
register_rule("F.pairwise_distance")(lambda key, level, args, kwargs: pointwise(key, level, args, kwargs))


def _broadcast_dim_op(key, level, args, kwargs, dim_pos):
    """Two operands broadcast against each other and a dim counting the broadcast logical shape."""
    a, b = args[0], args[1]
    rank = max(_rank(a, level), _rank(b, level))
    dim = _get(args, kwargs, dim_pos, "dim", 1)
    pa = _padded(a, level, rank) if _bt(a, level) else _physical(a, level)
    pb = _padded(b, level, rank) if _bt(b, level) else b
    args, kwargs = _set(args, kwargs, dim_pos, "dim", _shift(dim, rank))
    return wrap(call(key, pa, pb, *args[2:], **kwargs), level)


@register_rule(
    "F.softmax",
    "F.log_softmax",
    "F.softmin",
    "special.softmax",
    "special.log_softmax",
)
def softmax_rule(key, level, args, kwargs):
    """Batching rule of softmax-like ops: the dim is shifted; an omitted dim is first chosen from the
    logical rank (PyTorch's legacy implicit dim), so the batch dim does not change which dim is normalized."""
    x = args[0]
    dim = _get(args, kwargs, 1, "dim")
    if dim is None:
        r = _rank(x, level)
        dim = 0 if r in (0, 1, 3) else 1
        args, kwargs = _set(args, kwargs, 1, "dim", dim)
    return _dim_op(key, level, args, kwargs, ((1, "dim"),))


# ops on the trailing dims that take any leading batch dims: the value goes in as it is, once the entries
# have the rank the op needs (lower ranks run per entry, which raises the op's own error)
_TRAILING = {
    "diag_embed": 1,
    "linalg.inv": 2,
    "linalg.inv_ex": 2,
    "inverse": 2,
    "linalg.cholesky_ex": 2,
    "linalg.lu_factor": 2,
    "linalg.lu_factor_ex": 2,
    "linalg.lu": 2,
    "linalg.eig": 2,
    "linalg.eigvals": 2,
    "linalg.det": 2,
    "det": 2,
    "logdet": 2,
    "linalg.slogdet": 2,
    "slogdet": 2,
    "linalg.cholesky": 2,
    "cholesky": 2,
    "linalg.qr": 2,
    "linalg.svd": 2,
    "linalg.svdvals": 2,
    "linalg.eigh": 2,
    "linalg.eigvalsh": 2,
    "linalg.pinv": 2,
    "pinverse": 2,
    "linalg.matrix_exp": 2,
    "matrix_exp": 2,
    "linalg.matrix_power": 2,
    "matrix_power": 2,
    "linalg.cond": 2,
    "linalg.matrix_rank": 2,
    "linalg.ldl_factor": 2,
    "linalg.ldl_factor_ex": 2,
    "linalg.vander": 1,
}


@register_rule(*_TRAILING, *("Tensor." + k for k in _TRAILING if "." not in k))
def trailing_dims_rule(key, level, args, kwargs):
    """Batching rule of linalg and tril/triu-style ops, which treat leading dims as batch dims: the value
    goes in as it is; entries below the op's rank or batched extra arguments run per entry."""
    return _trailing_dims(key, level, args, kwargs, _TRAILING[key.removeprefix("Tensor.")])


def _trailing(need):
    """trailing_dims_rule for an op working on its last `need` dims (the schema's `vmap: _trailing(2)`)."""

    def rule(key, level, args, kwargs):
        return _trailing_dims(key, level, args, kwargs, need)

    return rule


def _trailing_dims(key, level, args, kwargs, need):
    x = args[0]
    if (
        not _bt(x, level)
        or _rank(x, level) < need
        or any(_bt(a, level) for a in list(args[1:]) + list(kwargs.values()))
    ):
        return fallback(key, level, args, kwargs)
    return wrap(call(key, x._value, *args[1:], **kwargs), level)


@register_rule("diag", "Tensor.diag")
def diag_rule(key, level, args, kwargs):
    """Batching rule of diag: a vector entry becomes diag_embed, a matrix entry diagonal over logical dims
    (0, 1), since the physical value has one dim too many for diag; other ranks run per entry."""
    x = args[0]
    offset = _get(args, kwargs, 1, "diagonal", 0)
    r = _rank(x, level)
    if r == 1:
        return call("diag_embed", x, offset)
    if r == 2:
        return call("diagonal", x, offset, 0, 1)
    return fallback(key, level, args, kwargs)


@register_rule("trace", "Tensor.trace")
def trace_rule(key, level, args, kwargs):
    """Batching rule of trace: the sum of the diagonal over logical dims (0, 1), as trace itself takes only
    a 2-D tensor; non-matrix entries run per entry to raise trace's error."""
    if _rank(args[0], level) != 2:
        return fallback(key, level, args, kwargs)
    return call("sum", call("diagonal", args[0], 0, 0, 1), -1)


def roll_rule(key, level, args, kwargs):
    """Batching rule of roll: dims=None rolls each entry's flattened values, so elements never move between
    entries; explicit dims are shifted past the batch dim."""
    if _get(args, kwargs, 2, "dims") is None:
        x = args[0]
        shifts = _get(args, kwargs, 1, "shifts")
        flat = call("Tensor.reshape", x, (-1,))
        return call("Tensor.reshape", call("roll", flat, shifts, 0), tuple(x.shape))
    return _dim_op(key, level, args, kwargs, ((2, "dims"),))


@register_rule("cross", "linalg.cross")
def cross_rule(key, level, args, kwargs):
    """Batching rule of cross: both operands batched (an unbatched one expanded, a view), the dim shifted past the
    batch dim; torch.cross's dim=None is the first dim of size 3 of the broadcast logical shape, linalg.cross's
    default -1. Operands of different logical ranks, no dim of size 3 or a dim out of range run per entry, for
    the op's own error."""
    a, b = args[0], _get(args, kwargs, 1, "other")
    if not (is_tensor_like(a) and is_tensor_like(b)) or _rank(a, level) != _rank(b, level):
        return fallback(key, level, args, kwargs)
    rank = _rank(a, level)
    dim = kwargs.get("dim", -1) if key == "linalg.cross" else _get(args, kwargs, 2, "dim")
    if dim is None:
        try:
            sizes = list(_broadcast_shape([tuple(a.shape), tuple(b.shape)]))
        except RuntimeError:
            return fallback(key, level, args, kwargs)
        if 3 not in sizes:
            return fallback(key, level, args, kwargs)
        dim = sizes.index(3)
    try:
        dim = _shift(dim, rank)
    except IndexError:
        return fallback(key, level, args, kwargs)
    if key == "linalg.cross":
        kwargs = {**kwargs, "dim": dim}
    else:
        args, kwargs = _set(args, kwargs, 2, "dim", dim)
    kwargs.pop("other", None)
    return wrap(call(key, _physical(a, level), _physical(b, level), *args[2:], **kwargs), level)


# ----------------------------------------------------------------------------------------------- torch.fft

_FFT_1D = frozenset(["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
_FFT_2D = frozenset(["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
_FFT_ND = frozenset(["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
_FFT_SHIFT = frozenset(("fftshift", "ifftshift"))


@register_rule(*("fft." + n for n in _FFT_1D | _FFT_2D | _FFT_ND | _FFT_SHIFT))
def fft_rule(key, level, args, kwargs):
    """Batching rule of torch.fft's transforms and shifts: the transformed dims, given or defaulted (-1, (-2, -1),
    or every logical dim / the last len(s) ones for the n-dim transforms), are named explicitly as logical dims
    shifted past the batch dim, so the batch dim is never transformed. Out-of-range dims and 0-dim entries run
    per entry, for the op's own error."""
    x = args[0]
    if not _bt(x, level) or any(_bt(a, level) for a in list(args[1:]) + list(kwargs.values())):
        return fallback(key, level, args, kwargs)
    name = key[4:]
    r = _rank(x, level)
    pos = 1 if name in _FFT_SHIFT else 2
    dim = _get(args, kwargs, pos, "dim", -1 if name in _FFT_1D else (-2, -1) if name in _FFT_2D else None)
    if dim is None:
        s = None if name in _FFT_SHIFT else _get(args, kwargs, 1, "s")
        if s is not None and not isinstance(s, (tuple, list)):
            return fallback(key, level, args, kwargs)
        if s is not None and len(s) > r:
            return fallback(key, level, args, kwargs)
        dim = tuple(range(r)) if s is None else tuple(range(r - len(s), r))
    if r == 0 or not isinstance(dim, (int, tuple, list)) or isinstance(dim, bool):
        return fallback(key, level, args, kwargs)
    try:
        new = _shift_dims(dim, r)
    except (IndexError, TypeError):
        return fallback(key, level, args, kwargs)
    args, kwargs = _set(args, kwargs, pos, "dim", new)
    return wrap(call(key, x._value, *args[1:], **kwargs), level)


# ----------------------------------------------------------------------------------------------- linalg solves


def _aligned(level, operands, cores):
    """The values of a linalg op's operands (batched or not), each with `core` trailing dims (2 for a matrix, 1
    for pivots), the batch dim in front and size-1 dims after it so that every operand has the same number of
    batch dims: the op's own batch broadcasting then lines the logical batch dims up as without vmap, and an
    operand's rank never reads differently from its logical one (solve's vector case)."""
    brank = max(_rank(a, level) - c for a, c in zip(operands, cores))
    out = []
    for a, c in zip(operands, cores):
        v = a._value if _bt(a, level) else a.unsqueeze(0)
        out.append(_pad(v, brank + c - _rank(a, level)))
    return out


def _linalg_operands(key, level, args, kwargs, spec):
    """(values, args, kwargs) for the operands named by spec [(position, name, core)], or None to run per
    entry (an operand missing, not a tensor, or below its core rank: the op's own error)."""
    ops = [_get(args, kwargs, pos, name) for pos, name, _ in spec]
    if not all(is_tensor_like(a) for a in ops) or any(_rank(a, level) < c for a, (_, _, c) in zip(ops, spec)):
        return None
    vals = _aligned(level, ops, [c for *_, c in spec])
    for (pos, name, _), v in zip(spec, vals):
        args, kwargs = _set(args, kwargs, pos, name, v)
    return args, kwargs


def _rhs_operands(key, level, args, kwargs, is_vector):
    """A and B of a solve-like op with aligned batch dims, a vector B (is_vector(A, B), read on the logical
    shapes) made a one-column matrix: ((args, kwargs), vector), or None to run per entry on the caller's args."""
    A, B = args[0], _get(args, kwargs, 1, "B")
    if not (is_tensor_like(A) and is_tensor_like(B)) or A.dim() < 2 or B.dim() < 1:
        return None
    vector = is_vector(A, B)
    if vector:
        args, kwargs = _set(args, kwargs, 1, "B", call("Tensor.unsqueeze", B, -1))
    got = _linalg_operands(key, level, args, kwargs, ((0, "A", 2), (1, "B", 2)))
    return None if got is None else (got, vector)


@register_rule("linalg.solve", "linalg.solve_ex")
def solve_rule(key, level, args, kwargs):
    """Batching rule of linalg.solve(_ex): a vector right-hand side (PyTorch's rule, read on the logical shapes)
    becomes a one-column matrix, then both operands go in with aligned batch dims."""
    left = kwargs.get("left", True)
    got = _rhs_operands(
        key,
        level,
        args,
        kwargs,
        lambda A, B: (
            left and (B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1])))
        ),
    )
    if got is None:
        return fallback(key, level, args, kwargs)
    (a, kw), vector = got
    res = call(key, *a, **kw)
    if vector:
        if key == "linalg.solve_ex":
            res = type(res)((res[0].squeeze(-1), res[1]))
        else:
            res = res.squeeze(-1)
    return wrap(res, level)


def _matrix_operands_rule(spec):
    """The rule of a linalg op whose operands are matrices (and pivots) with broadcast batch dims."""

    def rule(key, level, args, kwargs):
        got = _linalg_operands(key, level, args, kwargs, spec)
        if got is None:
            return fallback(key, level, args, kwargs)
        return wrap(call(key, *got[0], **got[1]), level)

    rule.__doc__ = "Batching rule of a linalg op over matrices: the operands go in with aligned batch dims."
    return rule


register_rule("linalg.solve_triangular")(_matrix_operands_rule(((0, "A", 2), (1, "B", 2))))
register_rule("polar")(pointwise)
register_rule("cholesky_solve")(_matrix_operands_rule(((0, "B", 2), (1, "L", 2))))
register_rule("triangular_solve")(_matrix_operands_rule(((0, "b", 2), (1, "A", 2))))
register_rule("linalg.lu_solve")(_matrix_operands_rule(((0, "LU", 2), (1, "pivots", 1), (2, "B", 2))))
register_rule("cdist")(_matrix_operands_rule(((0, "x1", 2), (1, "x2", 2))))


@register_rule("linalg.lstsq")
def lstsq_rule(key, level, args, kwargs):
    """Batching rule of linalg.lstsq: A and B (a vector B read on the logical shapes) with aligned batch dims;
    the outputs LAPACK leaves empty (residuals, gels's rank) stay empty per entry."""
    got = _rhs_operands(key, level, args, kwargs, lambda A, B: B.dim() == A.dim() - 1)
    if got is None:
        return fallback(key, level, args, kwargs)
    (a, kw), vector = got
    res = call(key, *a, **kw)
    size = _size(level)
    parts = [res[0].squeeze(-1) if vector else res[0]]
    for r in res[1:]:
        parts.append(r.new_empty((size, 0)) if r.numel() == 0 and r.dim() == 1 else r)
    return wrap(type(res)(tuple(parts)), level)


@register_rule("tensordot")
def tensordot_rule(key, level, args, kwargs):
    """Batching rule of tensordot with one batched operand: its contracted dims shifted past the batch dim, the
    batch dim moved to the front of the result (after a's free dims when b is the batched one). Both batched, it
    is the einsum contracting the paired dims (einsum's rule batches it); dims given as tensors run per entry."""
    a, b = args[0], _get(args, kwargs, 1, "b")
    dims = _get(args, kwargs, 2, "dims", 2)
    if not (is_tensor_like(a) and is_tensor_like(b)) or is_tensor_like(dims) or kwargs.get("out") is not None:
        return fallback(key, level, args, kwargs)
    ra, rb = _rank(a, level), _rank(b, level)
    if isinstance(dims, int):
        if dims < 0 or dims > min(ra, rb):
            return fallback(key, level, args, kwargs)
        da, db = list(range(ra - dims, ra)), list(range(dims))
    else:
        da, db = dims
        da, db = ([da] if isinstance(da, int) else list(da)), ([db] if isinstance(db, int) else list(db))
    try:
        da = [_wrap_dim(d, ra) for d in da]
        db = [_wrap_dim(d, rb) for d in db]
    except IndexError:
        return fallback(key, level, args, kwargs)
    if _bt(a, level) and _bt(b, level):
        return _tensordot_einsum(key, level, args, kwargs, a, b, da, db)
    if _bt(a, level):
        res = call(key, a._value, b, ([d + 1 for d in da], db))
        return wrap(res, level)
    res = call(key, a, b._value, (da, [d + 1 for d in db]))
    return wrap(call("Tensor.movedim", res, ra - len(da), 0), level)


def _tensordot_einsum(key, level, args, kwargs, a, b, da, db):
    """tensordot of two batched operands as an einsum at the logical level: one letter per contracted pair, the
    free dims of a then of b in the output. Mismatched pairs run per entry (the op's own error)."""
    ra, rb = a.dim(), b.dim()
    letters = iter("abcdefghijklmnopqrstuvwxy")
    if (
        len(da) != len(db)
        or len(set(da)) != len(da)
        or len(set(db)) != len(db)
        or ra + rb - len(da) > 25
        or any(a.shape[i] != b.shape[j] for i, j in zip(da, db))
    ):
        return fallback(key, level, args, kwargs)
    sa, sb = [None] * ra, [None] * rb
    for i, j in zip(da, db):
        sa[i] = sb[j] = next(letters)
    sa = [c or next(letters) for c in sa]
    sb = [c or next(letters) for c in sb]
    out = [c for i, c in enumerate(sa) if i not in da] + [c for j, c in enumerate(sb) if j not in db]
    return call("einsum", f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


@register_rule("trapezoid", "cumulative_trapezoid")
def trapezoid_rule(key, level, args, kwargs):
    """Batching rule of trapezoid/cumulative_trapezoid: y's dim (keyword-only, -1 by default) shifted past the
    batch dim; sample points x that are batched, or not 1-D, run per entry."""
    y, x = args[0], _get(args, kwargs, 1, "x")
    if not _bt(y, level) or _rank(y, level) == 0 or (is_tensor_like(x) and (_bt(x, level) or x.dim() != 1)):
        return fallback(key, level, args, kwargs)
    try:
        dim = _shift(kwargs.get("dim", -1), _rank(y, level))
    except IndexError:
        return fallback(key, level, args, kwargs)
    return wrap(call(key, y._value, *args[1:], **{**kwargs, "dim": dim}), level)


@register_rule("gradient")
def gradient_rule(key, level, args, kwargs):
    """Batching rule of gradient(input, *, spacing, dim, edge_order): the dims (all logical ones when None)
    shifted past the batch dim; batched coordinates, or a spacing list of the wrong length (whose error names
    the logical rank), run per entry."""
    x, spacing, dim = args[0], kwargs.get("spacing"), kwargs.get("dim")
    rank = _rank(x, level) if is_tensor_like(x) else 0
    listed = isinstance(spacing, (list, tuple))
    dims = list(range(rank)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if (
        len(args) != 1
        or not _bt(x, level)
        or (listed and (len(spacing) != len(dims) or any(_bt(h, level) for h in spacing)))
        or _bt(spacing, level)
    ):
        return fallback(key, level, args, kwargs)
    try:
        shifted = [_shift(d, rank) for d in dims]
    except IndexError:
        return fallback(key, level, args, kwargs)
    return wrap(call(key, x._value, **{**kwargs, "dim": shifted}), level)


@register_rule("bucketize")
def bucketize_rule(key, level, args, kwargs):
    """Batching rule of bucketize: elementwise in the input against unbatched boundaries; batched boundaries
    are searchsorted's batched form (bucketize(x, b, right) is searchsorted(b, x, right=right))."""
    x, boundaries = args[0], _get(args, kwargs, 1, "boundaries")
    if not _bt(boundaries, level):
        if not _bt(x, level):
            return fallback(key, level, args, kwargs)
        return wrap(call(key, x._value, *args[1:], **kwargs), level)
    right = _get(args, kwargs, 3, "right", False)
    out_int32 = _get(args, kwargs, 2, "out_int32", False)
    if (
        not is_tensor_like(x)
        or _rank(boundaries, level) != 1
        or len(args) > 4
        or kwargs.get("out") is not None
    ):
        return fallback(key, level, args, kwargs)
    return _searchsorted_rows(level, boundaries, x, None, {"right": right, "out_int32": out_int32})


def _searchsorted_rows(level, seq, values, sorter, kw):
    """searchsorted of a logical 1-D sequence (batched or not) and values of any shape: the batched sequences
    (B, M) against each entry's values flattened to a row (B, K), reshaped back."""
    vs, vv = _physical(seq, level), _physical(values, level)
    shape = tuple(vv.shape)
    if sorter is not None:
        kw = dict(kw, sorter=_physical(sorter, level))
    res = call("searchsorted", vs, call("Tensor.reshape", vv, (shape[0], -1)), **kw)
    return wrap(call("Tensor.reshape", res, shape), level)


@register_rule("searchsorted")
def searchsorted_rule(key, level, args, kwargs):
    """Batching rule of searchsorted: a 1-D sorted sequence (batched or shared) against values of any shape goes
    row by row (_searchsorted_rows); an N-D sequence with values of the same leading dims is searchsorted's own
    batched form, the batch dim leading both."""
    seq, values = args[0], _get(args, kwargs, 1, "input")
    if (
        len(args) > 2
        or not is_tensor_like(values)
        or not is_tensor_like(seq)
        or kwargs.get("out") is not None
    ):
        return fallback(key, level, args, kwargs)
    rest = {k: v for k, v in kwargs.items() if k not in ("input", "sorter")}
    sorter = kwargs.get("sorter")
    if sorter is not None and (not is_tensor_like(sorter) or tuple(sorter.shape) != tuple(seq.shape)):
        return fallback(key, level, args, kwargs)
    if not _bt(seq, level) and seq.dim() == 1 and (sorter is None or not _bt(sorter, level)):
        shared = {k: v for k, v in kwargs.items() if k != "input"}
        return wrap(call(key, seq, _physical(values, level), **shared), level)
    if seq.dim() == 1:
        return _searchsorted_rows(level, seq, values, sorter, rest)
    if seq.dim() == 0 or values.dim() != seq.dim() or tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
        return fallback(key, level, args, kwargs)  # the op's own shape errors, per entry
    if sorter is not None:
        rest["sorter"] = _physical(sorter, level)
    return wrap(call(key, _physical(seq, level), _physical(values, level), **rest), level)


@register_rule("stft")
def stft_rule(key, level, args, kwargs):
    """Batching rule of stft: a batched 1-D signal is stft's own (B, L) batch; other ranks and a batched window
    run per entry."""
    x = args[0]
    window = _get(args, kwargs, 4, "window")
    if not _bt(x, level) or _rank(x, level) != 1 or _bt(window, level):
        return fallback(key, level, args, kwargs)
    return wrap(call(key, x._value, *args[1:], **kwargs), level)


@register_rule("kron")
def kron_rule(key, level, args, kwargs):
    """Batching rule of kron: both operands at one logical rank (leading size-1 dims, as kron pads), then the
    product of a[..., i, 1, ...] and b[..., 1, j, ...] reshaped to the interleaved sizes, per batch entry."""
    a, b = args[0], _get(args, kwargs, 1, "other")
    if not (is_tensor_like(a) and is_tensor_like(b)) or kwargs.get("out") is not None:
        return fallback(key, level, args, kwargs)
    r = max(_rank(a, level), _rank(b, level))
    va = _pad(a._value if _bt(a, level) else a.unsqueeze(0), r - _rank(a, level))
    vb = _pad(b._value if _bt(b, level) else b.unsqueeze(0), r - _rank(b, level))
    sa, sb = tuple(va.shape[1:]), tuple(vb.shape[1:])
    ia = [va.shape[0]] + [n for d in sa for n in (d, 1)]
    ib = [vb.shape[0]] + [n for d in sb for n in (1, d)]
    prod = call("mul", call("Tensor.reshape", va, tuple(ia)), call("Tensor.reshape", vb, tuple(ib)))
    return wrap(call("Tensor.reshape", prod, (_size(level),) + tuple(x * y for x, y in zip(sa, sb))), level)


@register_rule("F.scaled_dot_product_attention")
def sdpa_rule(key, level, args, kwargs):
    """Batching rule of scaled_dot_product_attention, which treats leading dims as batch dims: q, k, v and
    the mask go in at one logical rank with the batch in front; dropout or entries below 2-D run per entry."""
    q, k, v = args[0], args[1], args[2]
    mask = _get(args, kwargs, 3, "attn_mask")
    tensors = [t for t in (q, k, v, mask) if is_tensor_like(t)]
    if _randomness_needed(args, kwargs) or any(_rank(t, level) < 2 for t in tensors):
        return fallback(key, level, args, kwargs)
    rank = max(_rank(t, level) for t in tensors)

    def phys(t):
        if t is None or not is_tensor_like(t):
            return t
        return _padded(t, level, rank) if _bt(t, level) else _pad(_physical(t, level), rank - t.dim())

    qv, kv, vv = phys(q), phys(k), phys(v)
    size = qv.shape[0]
    qv, kv, vv = (t.expand((size,) + tuple(t.shape[1:])) for t in (qv, kv, vv))
    args2 = (qv, kv, vv) + tuple(phys(a) for a in args[3:])
    kwargs2 = {n: phys(a) for n, a in kwargs.items()}
    return wrap(call(key, *args2, **kwargs2), level)


def _randomness_needed(args, kwargs):
    p = _get(args, kwargs, 4, "dropout_p", 0.0)
    return bool(p)


@register_rule("F.unfold", "F.fold")
def unfold_rule(key, level, args, kwargs):
    """Batching rule of F.unfold/F.fold: the batch dim is N for unbatched (no-N) entries, else it folds
    into N and is split off the result."""
    nd = 1 if key == "F.fold" else 2  # fold takes (N, C*k, L) or (C*k, L); unfold (N, C, H, W) or (C, H, W)
    return _fold_batch(key, level, args, kwargs, nd)


@register_rule("numel", "is_floating_point", "is_complex", "is_nonzero")
def metadata_rule(key, level, args, kwargs):
    """Batching rule of numel/is_floating_point/is_complex/is_nonzero: plain Python answers about the
    logical tensor; is_nonzero is data-dependent control flow, which raises vmap's error."""
    x = args[0]
    if key == "numel":
        return x.numel()
    if key == "is_nonzero":
        return x.__bool__()
    return getattr(x, key)()


def unsqueeze_rule(key, level, args, kwargs):
    """Batching rule of unsqueeze (unsqueeze_: on the value, in place): the dim is checked against the logical
    rank + 1 (a dim is inserted) and shifted past the batch dim."""
    x = args[0]
    if not _bt(x, level):
        return fallback(key, level, args, kwargs)
    r = x._value.dim() - 1
    d = _get(args, kwargs, 1, "dim")
    return wrap(call(key, x._value, _wrap_dim(d, r + 1) + 1), level)


def squeeze_rule(key, level, args, kwargs):
    """Batching rule of squeeze (squeeze_: on the value, in place): the logical dims shift by one past the batch
    dim at the front; squeeze() never removes the batch dim even when the batch has size 1."""
    x = args[0]
    v = x._value
    r = v.dim() - 1
    d = _get(args, kwargs, 1, "dim")
    if d is None:
        dims = tuple(i + 1 for i, s in enumerate(v.shape[1:]) if s == 1)
    elif isinstance(d, (tuple, list)):
        dims = tuple(_shift(i, r) for i in d)
    else:
        dims = (_shift(d, r),)
    if r == 0:
        return wrap(v, level)
    return wrap(call(key, v, dims) if dims else v, level)


def flatten_rule(key, level, args, kwargs):
    """Batching rule of flatten: start_dim/end_dim are shifted so the batch dim stays out of the flattened
    range; a 0-d entry becomes 1-d (size 1), as flatten of a scalar."""
    x = args[0]
    v = x._value
    r = v.dim() - 1
    start = _get(args, kwargs, 1, "start_dim", 0)
    end = _get(args, kwargs, 2, "end_dim", -1)
    if r == 0:
        return wrap(v.reshape(v.shape[0], 1), level)
    return wrap(v.flatten(_shift(start, r), _shift(end, r)), level)


def permute_rule(key, level, args, kwargs):
    """Batching rule of permute: the batch dim stays first and the logical dims are shifted; a wrong number
    of dims is refused by the physical permute."""
    x = args[0]
    dims = _shape_arg(args[1:]) if len(args) > 1 else tuple(kwargs["dims"])
    r = x._value.dim() - 1
    # checked against the logical rank here; a wrong count is refused by the physical permute
    return wrap(x._value.permute(0, *(_shift(d, r) for d in dims)), level)


def t_rule(key, level, args, kwargs):
    """Batching rule of t (t_: transpose_ of the value): 2-D entries swap physical dims 1 and 2, 0-d and 1-d
    entries are returned as they are; more than 2 logical dims raise t()'s error with the logical rank."""
    x = args[0]
    r = x._value.dim() - 1
    if r > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {r}D")
    if r < 2:
        return wrap(x._value, level)
    return wrap(call("Tensor.transpose_" if is_inplace(key) else "Tensor.transpose", x._value, 1, 2), level)


def view_rule(key, level, args, kwargs):
    """Batching rule of view/reshape: the batch size is prepended to the shape; view falls back to reshape
    where the batch dim's stride (moved to the front by vmap) forbids a view."""
    x = args[0]
    if len(args) == 2 and isinstance(args[1], _C.dtype):
        return fallback(key, level, args, kwargs)
    shape = _shape_arg(args[1:]) if len(args) > 1 else tuple(kwargs.get("shape", kwargs.get("size")))
    if not _bt(x, level):
        return fallback(key, level, args, kwargs)
    v = x._value
    new = (v.shape[0],) + tuple(shape)
    if key == "Tensor.view":
        try:
            return wrap(v.view(new), level)
        except RuntimeError:
            # the logical view may be valid where the batch dim's stride (moved there by vmap) is not
            return wrap(v.reshape(new), level)
    return wrap(v.reshape(new), level)


def view_as_rule(key, level, args, kwargs):
    """Batching rule of view_as/reshape_as: view/reshape to the other tensor's logical shape."""
    return view_rule(key.replace("_as", ""), level, (args[0], tuple(args[1].shape)), {})


@register_rule("broadcast_to")
def expand_rule(key, level, args, kwargs):
    """Batching rule of expand/broadcast_to: size-1 dims go after the batch dim up to the number of sizes,
    then the batch size is kept in front of them; fewer sizes than the logical rank raise expand's error."""
    x = args[0]
    sizes = _shape_arg(args[1:]) if len(args) > 1 else tuple(kwargs.get("size", kwargs.get("shape")))
    if not _bt(x, level):
        return fallback(key, level, args, kwargs)
    v = x._value
    r = v.dim() - 1
    if len(sizes) < r:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({r})"
        )
    v = _pad(v, len(sizes) - r)
    return wrap(v.expand(v.shape[0], *sizes), level)


def expand_as_rule(key, level, args, kwargs):
    """Batching rule of expand_as: expand to the other tensor's logical shape (through expand's rule)."""
    return call("Tensor.expand", args[0], tuple(args[1].shape))


def repeat_rule(key, level, args, kwargs):
    """Batching rule of repeat: the logical rank is padded to the number of repeats and the batch dim
    repeats once, so entries never repeat into each other."""
    x = args[0]
    sizes = _shape_arg(args[1:])
    v = x._value
    r = v.dim() - 1
    if len(sizes) < r:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    v = _pad(v, len(sizes) - r)
    return wrap(v.repeat(1, *sizes), level)


@register_rule("Tensor.tile")
def tile_rule(key, level, args, kwargs):
    """Batching rule of tile: the repeats are padded with leading 1s to the logical rank, as tile does,
    then repeat's rule applies."""
    x = args[0]
    sizes = _shape_arg(args[1:])
    r = x._value.dim() - 1
    sizes = (1,) * (r - len(sizes)) + tuple(sizes)
    return repeat_rule("Tensor.repeat", level, (x, sizes), {})


def new_factory_rule(key, level, args, kwargs):
    """Batching rule of new_zeros/new_ones/new_empty/new_full: a batched result, the batch size prepended
    to the size (one fresh tensor per batch entry, as functorch)."""
    x = args[0]
    kwargs = dict(kwargs)
    if key == "Tensor.new_full":
        size, rest = args[1] if len(args) > 1 else kwargs.pop("size"), args[2:]
    elif len(args) > 1:
        size, rest = _shape_arg(args[1:]), ()
    else:
        size, rest = kwargs.pop("size"), ()
    size = tuple(size) if hasattr(size, "__len__") else (size,)
    v = x._value
    return wrap(call(key, v, (v.shape[0],) + size, *rest, **kwargs), level)


@register_rule("Tensor.new_tensor")
def new_tensor_rule(key, level, args, kwargs):
    """Batching rule of new_tensor: only dtype and device come from self, so the data given is copied into
    an unbatched tensor."""
    return call(key, args[0]._value, *args[1:], **kwargs)


@register_rule("Tensor.__getitem__")
def getitem_rule(key, level, args, kwargs):
    """Batching rule of indexing: a full slice keeps the batch dim; batched index tensors add arange(B) as
    an advanced index so each entry reads its own slice, with advanced-index dims placed as PyTorch does."""
    x, index = args
    idx = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, bool) for i in idx):
        return fallback(key, level, args, kwargs)
    batched_index = any(_bt(i, level) for i in idx)
    v = _physical(x, level)
    if not batched_index:
        adv = [k for k, i in enumerate(idx) if is_tensor_like(i) or isinstance(i, list)]
        res = call("Tensor.__getitem__", v, (slice(None),) + idx)
        if len(adv) > 1 and not _contiguous_advanced(idx, adv):
            nd = _advanced_rank(idx)
            res = res.movedim(nd, 0)
        return wrap(res, level)
    if any(_bt(i, level) and i.dtype == _C.bool for i in idx):
        # each entry's mask selects its own count: PyTorch refuses it (the loop fallback would stack only when
        # the counts happen to agree)
        raise RuntimeError(
            "vmap: We do not support batching operators that can support dynamic shape. Attempting to batch "
            "over indexing with a boolean mask."
        )
    # batched index tensors: one more advanced index, arange(B), selects each entry's own slice
    adv = [k for k, i in enumerate(idx) if is_tensor_like(i) or isinstance(i, list)]
    ranks = [(_rank(i, level) if is_tensor_like(i) else _C.tensor(i).dim()) for i in (idx[k] for k in adv)]
    R = max(ranks)
    size = _size(level)
    new_idx = []
    for i in idx:
        if _bt(i, level):
            new_idx.append(_padded(i, level, R))
        else:
            new_idx.append(i)
    ar = _C.arange(size, device=v.device).reshape((size,) + (1,) * R)
    res = call("Tensor.__getitem__", v, (ar,) + tuple(new_idx))
    if _contiguous_advanced(idx, adv) and adv[0] > 0:
        # PyTorch keeps a contiguous block of advanced indices in place: move its R dims back after the
        # dims the entries before it produce
        pre = _dims_before(idx, adv[0], x, level)
        src = tuple(range(1, 1 + R))
        res = res.movedim(src, tuple(range(1 + pre, 1 + pre + R)))
    return wrap(res, level)


def _contiguous_advanced(idx, adv):
    """Whether the advanced indices form one block (integers between them select first, so they do not split
    it, as in PyTorch)."""
    for k in range(adv[0], adv[-1] + 1):
        i = idx[k]
        if not (is_tensor_like(i) or isinstance(i, (list, int))):
            return False
    return True


def _advanced_rank(idx):
    shapes = []
    for i in idx:
        if isinstance(i, list):
            i = _C.tensor(i)
        if is_tensor_like(i):
            shapes.append((1,) if i.dtype == _C.bool else tuple(i.shape))
    n = 0
    for s in shapes:
        n = max(n, len(s))
    return n


def _dims_before(idx, stop, x, level):
    """How many result dims the index entries before position `stop` produce."""
    n = 0
    consumed = sum(1 for i in idx if i is not None and i is not Ellipsis)
    for i in idx[:stop]:
        if i is None or isinstance(i, slice):
            n += 1
        elif i is Ellipsis:
            n += _rank(x, level) - consumed
    return n


@register_rule("Tensor.__setitem__")
def setitem_rule(key, level, args, kwargs):
    """Batching rule of index assignment: writes through a full slice over the batch dim (value padded to
    the target's rank); an unbatched target raises; tensor/list/bool indices run per entry."""
    x, index, value = args
    if not _bt(x, level):
        raise inplace_refusal(key, level, args, kwargs)
    idx = index if isinstance(index, tuple) else (index,)
    if any(is_tensor_like(i) or isinstance(i, (list, bool)) for i in idx):
        return fallback(key, level, args, kwargs)
    target = call("Tensor.__getitem__", x, index)
    v = value
    if _bt(value, level):
        v = _padded(value, level, target.dim())
    call("Tensor.__setitem__", x._value, (slice(None),) + idx, v)
    return None


# ----------------------------------------------------------------------------------------------- joining


@register_rule("concatenate")
def cat_rule(key, level, args, kwargs):
    """Batching rule of cat/stack: every tensor gets the batch dim (unbatched ones expanded) and the dim is
    shifted against the logical rank, skipping cat's legacy empty 1-D tensors."""
    tensors = list(_get(args, kwargs, 0, "tensors"))
    dim = _get(args, kwargs, 1, "dim", 0)
    rank = None
    for t in tensors:
        r = _rank(t, level)
        if not (key in ("cat", "concat", "concatenate") and r == 1 and t.shape[0] == 0):
            rank = r
            break
    if rank is None:
        rank = _rank(tensors[0], level)
    vals = [_physical(t, level) for t in tensors]
    new_dim = _wrap_dim(dim, rank + 1) + 1 if key == "stack" else _shift(dim, rank)
    return wrap(call(key, vals, new_dim), level)


@register_rule("broadcast_tensors")
def broadcast_tensors_rule(key, level, args, kwargs):
    """Batching rule of broadcast_tensors: the logical shapes broadcast and each operand is expanded to the
    result through expand's rule."""
    tensors = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    shape = (
        _C.broadcast_shapes(*[tuple(t.shape) for t in tensors]) if hasattr(_C, "broadcast_shapes") else None
    )
    if shape is None:
        shape = _broadcast_shape([tuple(t.shape) for t in tensors])
    return tuple(call("Tensor.expand", t, tuple(shape)) if is_tensor_like(t) else t for t in tensors)


def _broadcast_shape(shapes):
    n = max(len(s) for s in shapes)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s):
            j = n - len(s) + i
            if out[j] == 1:
                out[j] = d
            elif d not in (1, out[j]):
                raise RuntimeError(
                    f"Shape mismatch: objects cannot be broadcast to a single shape. Got {shapes}"
                )
    return tuple(out)


def gather_rule(key, level, args, kwargs):
    """Batching rule of gather/take_along_dim: input and index both get the batch dim and the dim is
    shifted against their larger logical rank; take_along_dim with dim=None (flattening) runs per entry."""
    x = args[0]
    if _base(key) == "gather":
        dim = _get(args, kwargs, 1, "dim")
        index = _get(args, kwargs, 2, "index")
    else:
        index = _get(args, kwargs, 1, "indices")
        dim = _get(args, kwargs, 2, "dim")
        if dim is None:
            return fallback(key, level, args, kwargs)
    r = max(_rank(x, level), _rank(index, level))
    vx = _physical(x, level)
    vi = _physical(index, level)
    if _base(key) == "gather":
        return wrap(call("gather", vx, _shift(dim, r), vi), level)
    return wrap(call("take_along_dim", vx, vi, _shift(dim, r)), level)


def index_select_rule(key, level, args, kwargs):
    """Batching rule of index_select: a shared index shifts the dim; a batched one (per-sample rows, as
    `w.index_select(0, i)` under vmap) is one gather of the input (expanded, a view, where it is shared) with each
    entry's index spread over the input's other dims, as PyTorch's rule (its gather errors for a bad index)."""
    x = args[0]
    dim = _get(args, kwargs, 1, "dim")
    index = _get(args, kwargs, 2, "index")
    if not _bt(index, level):
        return _dim_op(key, level, args, kwargs, ((1, "dim"),))
    vi = index._value
    r = _rank(x, level)
    if vi.dim() > 2:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if (
        type(dim) is not int
        or set(kwargs) - {"dim", "index"}
        or (r == 0 and vi.dim() == 2 and vi.shape[1] != 1)
    ):
        return fallback(key, level, args, kwargs)  # the op's own errors per entry
    if vi.dtype != _C.int64:
        if vi.dtype != _C.int32:
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        vi = call("Tensor.long", vi)  # our gather takes int64 only
    if vi.dim() == 1:
        vi = call("Tensor.unsqueeze", vi, 1)  # a 0-dim index selects one entry along dim, as index_select's
    if r == 0:  # a scalar's one entry, as a 1-element row
        _wrap_dim(dim, 0)
        res = call("gather", call("Tensor.reshape", _physical(x, level), (-1, 1)), 1, vi)
        return wrap(call("Tensor.reshape", res, (-1,)), level)
    d = _wrap_dim(dim, r)
    vx = _physical(x, level)
    shape = [1] * (r + 1)
    shape[0], shape[d + 1] = vi.shape[0], vi.shape[1]
    vi = call("Tensor.reshape", vi, shape)
    vi = call("Tensor.expand", vi, (*vx.shape[: d + 1], shape[d + 1], *vx.shape[d + 2 :]))
    return wrap(call("gather", vx, d + 1, vi), level)


def scatter_rule(key, level, args, kwargs):
    """Batching rule of scatter/scatter_add: self, index and src all get the batch dim and the dim is
    shifted; an in-place form writes the value (an unbatched self was refused by dispatch)."""
    x = args[0]
    dim = _get(args, kwargs, 1, "dim")
    index = _get(args, kwargs, 2, "index")
    src = _get(args, kwargs, 3, "src", kwargs.get("value"))
    r = _rank(x, level)
    vx = _physical(x, level)
    vi = _physical(index, level)
    vs = _physical(src, level) if is_tensor_like(src) else src
    res = call(key, vx, _shift(dim, r), vi, vs, **{k: v for k, v in kwargs.items() if k == "reduce"})
    return args[0] if is_inplace(key) else wrap(res, level)


def _subscripts(sublist):
    """A sublist's letters as einsum's C++ binding reads them (0-25 'A'-'Z', 26-51 'a'-'z', Ellipsis '...'),
    with its errors."""
    out = []
    for n in sublist:
        if n == Ellipsis:
            out.append("...")
        elif n >= 0 and n < 26:
            out.append(chr(ord("A") + n))
        elif n >= 26 and n < 52:
            out.append(chr(ord("a") + n - 26))
        else:
            raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
    return "".join(out)


def einsum_rule(key, level, args, kwargs):
    """Batching rule of einsum: an unused letter for the batch dim leads the subscripts of each batched
    operand and of the output (an implicit output, no '->', spelled out first)."""
    if not isinstance(args[0], str):  # the sublist spelling: op0, sublist0, ..., [output sublist]
        if len(args) < 2:
            return fallback(key, level, args, kwargs)
        eq = ",".join(_subscripts(s) for s in args[1::2])
        if len(args) % 2:
            eq += "->" + _subscripts(args[-1])
        args = (eq, *args[: len(args) - len(args) % 2 : 2])
    eq = args[0]
    ops = list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple)) else list(args[1:])
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    if not arrow:
        # the implicit output: the ellipsis' dims, then the letters used once, in ASCII order (PyTorch's)
        once = sorted(c for c in set(lhs) if c.isalpha() and lhs.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    letters = {c for c in eq if c.isalpha()}
    b = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in letters)
    terms = lhs.split(",")
    new_terms, vals = [], []
    for term, op in zip(terms, ops):
        if _bt(op, level):
            new_terms.append(b + term)
            vals.append(op._value)
        else:
            new_terms.append(term)
            vals.append(op)
    return wrap(call("einsum", ",".join(new_terms) + "->" + b + rhs, *vals), level)


# ----------------------------------------------------------------------------------------------- matmul family


@register_rule("Tensor.__matmul__", "Tensor.__rmatmul__")
def matmul_rule(key, level, args, kwargs):
    """Batching rule of matmul/mm/bmm/mv: matrices are padded to one logical rank so matmul's broadcasting
    pairs the batch dims; 1-D operands move the batch dim; rank errors use logical ranks."""
    a, b = args[0], args[1]
    if key == "Tensor.__rmatmul__":
        a, b = b, a
    ra, rb = _rank(a, level), _rank(b, level)
    if _base(key) == "mm" and (ra != 2 or rb != 2):
        raise RuntimeError("self must be a matrix" if ra != 2 else "mat2 must be a matrix")
    if _base(key) == "bmm" and (ra != 3 or rb != 3):
        raise RuntimeError("batch1 must be a 3D tensor" if ra != 3 else "batch2 must be a 3D tensor")
    if ra == 0 or rb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {ra}D and {rb}D")
    ab, bb = _bt(a, level), _bt(b, level)
    mm = "matmul"
    if ab and bb:
        va, vb = a._value, b._value
        if ra == 1 and rb == 1:
            return wrap(call("sum", call("mul", va, vb), -1), level)
        if ra == 1:
            va = _pad(va.unsqueeze(-2), rb - 2)
            return wrap(call(mm, va, vb).squeeze(-2), level)
        if rb == 1:
            vb = _pad(vb.unsqueeze(-1), ra - 2)
            return wrap(call(mm, va, vb).squeeze(-1), level)
        r = max(ra, rb)
        return wrap(call(mm, _padded(a, level, r), _padded(b, level, r)), level)
    if ab:
        va = a._value
        if rb == 1:
            return wrap(call(mm, va, b), level)
        if ra == 1:
            res = call(mm, va, b)  # [B, k] @ [..., k, m] -> [..., B, m]
            return wrap(res.movedim(-2, 0) if rb > 2 else res, level)
        return wrap(call(mm, _padded(a, level, max(ra, rb)), b), level)
    vb = b._value
    if ra == 1:
        if rb == 1:
            return wrap(call("sum", call("mul", a, vb), -1), level)
        return wrap(call(mm, a, vb), level)
    if rb == 1:
        return wrap(call(mm, a, vb.transpose(0, 1)).movedim(-1, 0), level)
    return wrap(call(mm, a, _padded(b, level, max(ra, rb))), level)


@register_rule("vdot", "inner")
def dot_rule(key, level, args, kwargs):
    """Batching rule of dot/vdot/inner on 1-D entries: the sum of products over the last dim; inner of
    other ranks is a matmul of the flattened operands (_inner), dot/vdot of other ranks raise PyTorch's 1D
    error."""
    a, b = args[0], args[1]
    if _rank(a, level) != 1 or _rank(b, level) != 1:
        if _base(key) == "inner":
            return _inner(key, level, args, kwargs)
        raise RuntimeError(f"1D tensors expected, but got {_rank(a, level)}D and {_rank(b, level)}D tensors")
    return call("sum", call("mul", a, b), -1)


def _inner(key, level, args, kwargs):
    """inner of any ranks at the logical level: a 0-d operand multiplies; else (rows of a) @ (rows of b)^T,
    reshaped to a.shape[:-1] + b.shape[:-1]. Mismatched last dims run per entry (the op's own error)."""
    a, b = args[0], args[1]
    if kwargs or not (is_tensor_like(a) and is_tensor_like(b)):
        return fallback(key, level, args, kwargs)
    if a.dim() == 0 or b.dim() == 0:
        return call("mul", a, b)
    n = a.shape[-1]
    if b.shape[-1] != n:
        return fallback(key, level, args, kwargs)
    rows = call("matmul", call("Tensor.reshape", a, (-1, n)), call("Tensor.reshape", b, (-1, n)).mT)
    return call("Tensor.reshape", rows, tuple(a.shape[:-1]) + tuple(b.shape[:-1]))


def outer_rule(key, level, args, kwargs):
    """Batching rule of outer/ger: a broadcast product of the first vector as a column and the second;
    entries that are not 1-D run per entry."""
    a, b = args[0], args[1]
    if _rank(a, level) != 1 or _rank(b, level) != 1:
        return fallback(key, level, args, kwargs)
    return call("mul", call("unsqueeze", a, -1), b)


@register_rule("baddbmm", "addbmm", "addr")
def addmm_rule(key, level, args, kwargs):
    """Batching rule of addmm/addmv (their ops.schema rows' `vmap:`) and baddbmm/addbmm/addr: decomposed into
    matmul, mul and add at the logical level; beta=0 ignores the input (NaN included), as PyTorch."""
    inp, m1, m2 = args[0], args[1], args[2]
    beta = _get(args, kwargs, 3, "beta", 1)
    alpha = _get(args, kwargs, 4, "alpha", 1)
    if _base(key) == "addr":
        prod = call("mul", call("unsqueeze", m1, -1), call("unsqueeze", m2, 0))
    elif _base(key) == "addbmm":
        prod = call("sum", call("matmul", m1, m2), 0)
    else:
        prod = call("matmul", m1, m2)
    if alpha != 1:
        prod = call("mul", prod, alpha)
    if beta == 0:  # the input is ignored (NaN included), as PyTorch
        return call("add", prod, call("zeros_like", inp))
    return call("add", call("mul", inp, beta) if beta != 1 else inp, prod)


@register_rule("F.linear")
def linear_rule(key, level, args, kwargs):
    """Batching rule of F.linear: with unbatched parameters the batch dim is one more leading dim of the
    input; a batched 2-D weight becomes matmul with its transpose, a batched bias is added afterwards."""
    x = args[0]
    w = _get(args, kwargs, 1, "weight")
    bias = _get(args, kwargs, 2, "bias")
    if not _bt(w, level) and not _bt(bias, level):
        return wrap(call("F.linear", x._value, w, bias), level)
    if not _bt(w, level):
        return call("add", call("F.linear", x, w), bias)
    out = call("matmul", x, call("Tensor.transpose", w, -1, -2)) if w.dim() == 2 else None
    if out is None:
        return fallback(key, level, args, kwargs)
    if bias is not None:
        out = call("add", out, bias)
    return out


@register_rule("F.bilinear")
def bilinear_rule(key, level, args, kwargs):
    """Batching rule of F.bilinear: an einsum plus bias at the logical level, so any batched operand goes
    through einsum's rule."""
    x1, x2, w = args[0], args[1], args[2]
    bias = _get(args, kwargs, 3, "bias")
    out = call("einsum", "...i,oij,...j->...o", x1, w, x2)
    return call("add", out, bias) if bias is not None else out


# ----------------------------------------------------------------------------------------------- nn: conv, pool, norm

_CONV_ND = {"F.conv1d": 1, "F.conv2d": 2, "F.conv3d": 3, "conv1d": 1, "conv2d": 2, "conv3d": 3}


@register_rule(*_CONV_ND)
def conv_rule(key, level, args, kwargs):
    """Batching rule of convolution: unbatched parameters fold the batch into N; a batched weight becomes
    an im2col batched matmul (conv2d, groups=1) or a grouped conv, one group per entry."""
    nd = _CONV_ND[key]
    names = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
    vals = [_get(args, kwargs, i, n) for i, n in enumerate(names)]
    x, w, bias, stride, padding, dilation, groups = vals
    stride = 1 if stride is None else stride
    padding = 0 if padding is None else padding
    dilation = 1 if dilation is None else dilation
    groups = 1 if groups is None else groups
    size = _size(level)
    rx = _rank(x, level)
    if rx not in (nd + 1, nd + 2) or _rank(w, level) != nd + 2:
        return fallback(key, level, args, kwargs)
    unbatched_input = rx == nd + 1
    if not _bt(w, level) and not _bt(bias, level):
        v = x._value
        if unbatched_input:
            return wrap(call(key, v, w, bias, stride, padding, dilation, groups), level)
        flat = v.reshape((size * v.shape[1],) + tuple(v.shape[2:]))
        out = call(key, flat, w, bias, stride, padding, dilation, groups)
        return wrap(out.reshape((size, v.shape[1]) + tuple(out.shape[1:])), level)
    vw = _physical(w, level)  # [B, O, C/g, *k]
    vx = _physical(x, level)  # [B, N, C, *s] or [B, C, *s]
    if unbatched_input:
        vx = vx.unsqueeze(1)
    n = vx.shape[1]
    pads = (
        _symmetric_padding(padding, tuple(vw.shape[3:]), dilation, stride)
        if nd == 2 and groups == 1
        else None
    )
    if pads is not None:
        # a batched weight as a batched matrix product with the input's sliding blocks (im2col): per-sample
        # weight gradients then come from one batched GEMM instead of a B-group convolution's backward
        out_c, ckk = vw.shape[1], vw.shape[2] * vw.shape[3] * vw.shape[4]
        cols = call(
            "F.unfold",
            vx.reshape((size * n,) + tuple(vx.shape[2:])),
            tuple(vw.shape[3:]),
            dilation,
            pads,
            stride,
        )
        cols = cols.reshape((size, n, ckk, cols.shape[-1]))
        out = call("matmul", vw.reshape((size, 1, out_c, ckk)), cols)  # [B, N, O, L]
        if bias is not None:
            out = call("add", out, _physical(bias, level).reshape((size, 1, out_c, 1)))
        oh, ow = (
            _conv_out(vx.shape[3 + i], vw.shape[3 + i], pads[i], _pair(dilation)[i], _pair(stride)[i])
            for i in (0, 1)
        )
        out = out.reshape((size, n, out_c, oh, ow))
    else:
        # otherwise one group per batch entry, as functorch does
        xg = vx.movedim(0, 1).reshape((n, size * vx.shape[2]) + tuple(vx.shape[3:]))
        wg = vw.reshape((size * vw.shape[1],) + tuple(vw.shape[2:]))
        bg = _physical(bias, level).reshape(-1) if bias is not None else None
        out = call(key, xg, wg, bg, stride, padding, dilation, groups * size)  # [N, B*O, *s']
        out = out.reshape((n, size, vw.shape[1]) + tuple(out.shape[2:])).movedim(1, 0)
    out = _same_values_as_plain_conv(key, out, vx, vw, bias, level, stride, padding, dilation, groups)
    return wrap(out.squeeze(1) if unbatched_input else out, level)


def _same_values_as_plain_conv(key, out, vx, vw, bias, level, stride, padding, dilation, groups):
    """For a weight that is one tensor expanded over the batch (grad inside vmap, per-sample gradients), the
    values of the ordinary convolution, with the gradients of `out`: plain + (out - out.detach()). The
    batched form rounds differently in float32, and a last-bit difference can flip a ReLU or a max-pool
    choice downstream, so per-sample gradients would no longer match a loop over the samples; this way the
    forward values are the loop's exactly (a convolution of a batch equals that of each image)."""
    vb = _physical(bias, level) if bias is not None else None
    if not (_C._is_tensor(vw) and _C._is_tensor(vx) and vw.stride(0) == 0) or (
        vb is not None and vb.stride(0) != 0
    ):
        return out
    size, n = vx.shape[0], vx.shape[1]
    plain = call(
        key,
        vx.reshape((size * n,) + tuple(vx.shape[2:])).detach(),
        vw[0].detach(),
        None if vb is None else vb[0].detach(),
        stride,
        padding,
        dilation,
        groups,
    )
    return plain.reshape(out.shape) + (out - out.detach())


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _symmetric_padding(padding, kernel, dilation, stride):
    """conv2d's padding as the (ph, pw) unfold takes, or None where it is not symmetric ('same' with an even
    extent)."""
    if padding == "valid":
        return (0, 0)
    if padding == "same":
        total = [d * (k - 1) for d, k in zip(_pair(dilation), kernel)]
        if any(t % 2 for t in total):
            return None
        return tuple(t // 2 for t in total)
    return _pair(padding)


def _conv_out(size, k, p, d, s):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _fold_batch(key, level, args, kwargs, nd, first_pos=0):
    """Ops over (N, C, *spatial) or (C, *spatial) input with unbatched parameters: the batch dim folds into N."""
    x = args[first_pos]
    others = [a for i, a in enumerate(args) if i != first_pos] + list(kwargs.values())
    if not _bt(x, level) or any(_bt(a, level) for a in others):
        return fallback(key, level, args, kwargs)
    v = x._value
    r = v.dim() - 1
    nd_here = nd if nd is not None else r - 2
    if r == nd_here + 1:
        return wrap(call(key, *args[:first_pos], v, *args[first_pos + 1 :], **kwargs), level)
    if r != nd_here + 2:
        return fallback(key, level, args, kwargs)
    size, n = v.shape[0], v.shape[1]
    flat = v.reshape((size * n,) + tuple(v.shape[2:]))
    res = call(key, *args[:first_pos], flat, *args[first_pos + 1 :], **kwargs)

    def unfold(t):
        if _C._is_tensor(t) or type(t) is BatchedTensor:
            return t.reshape((size, n) + tuple(t.shape[1:]))
        if isinstance(t, tuple):
            return type(t)(unfold(u) for u in t)
        return t

    return wrap(unfold(res), level)


def _fold_rule(nd):
    def rule(key, level, args, kwargs):
        return _fold_batch(key, level, args, kwargs, nd)

    return rule


for _nd in (1, 2, 3):
    register_rule(
        f"F.max_pool{_nd}d",
        f"F.avg_pool{_nd}d",
        f"F.adaptive_avg_pool{_nd}d",
        f"F.adaptive_max_pool{_nd}d",
        f"F.lp_pool{_nd}d",
        f"F.max_pool{_nd}d_with_indices",
        f"F.adaptive_max_pool{_nd}d_with_indices",
        f"max_pool{_nd}d",
        f"avg_pool{_nd}d",
        f"adaptive_avg_pool{_nd}d",
        f"adaptive_max_pool{_nd}d",
    )(_fold_rule(_nd))


def conv_transpose_rule(key, level, args, kwargs):
    """Batching rule of conv_transpose1d/2d/3d: unbatched parameters fold the batch into N; a batched weight
    (or bias) is a grouped transposed convolution, the entries' channels side by side, one group (or `groups`)
    per entry, as functorch does."""
    nd = int(key[-2])
    names = ("input", "weight", "bias", "stride", "padding", "output_padding", "groups", "dilation")
    x, w, bias, stride, padding, output_padding, groups, dilation = (
        _get(args, kwargs, i, n, d) for i, (n, d) in enumerate(zip(names, (None, None, None, 1, 0, 0, 1, 1)))
    )
    if not (_bt(w, level) or _bt(bias, level)):
        return _fold_batch(key, level, args, kwargs, nd)
    rx = _rank(x, level)
    if (
        len(args) + len(kwargs) > len(names)
        or kwargs.keys() - set(names)
        or rx not in (nd + 1, nd + 2)
        or _rank(w, level) != nd + 2
        or not isinstance(groups, int)
    ):
        return fallback(key, level, args, kwargs)
    size = _size(level)
    vx, vw = _physical(x, level), _physical(w, level)  # [B, N, C, *s] or [B, C, *s]; [B, C, O/g, *k]
    if rx == nd + 1:
        vx = vx.unsqueeze(1)
    n = vx.shape[1]
    xg = vx.movedim(0, 1).reshape((n, size * vx.shape[2]) + tuple(vx.shape[3:]))
    wg = vw.reshape((size * vw.shape[1],) + tuple(vw.shape[2:]))
    bg = _physical(bias, level).reshape(-1) if bias is not None else None
    out = call(key, xg, wg, bg, stride, padding, output_padding, groups * size, dilation)
    out = out.reshape((n, size, out.shape[1] // size) + tuple(out.shape[2:])).movedim(1, 0)
    return wrap(out.squeeze(1) if rx == nd + 1 else out, level)


for _nd in (1, 2, 3):
    register_rule(f"F.conv_transpose{_nd}d", f"conv_transpose{_nd}d")(conv_transpose_rule)


@register_rule("F.adaptive_avg_pool2d", "adaptive_avg_pool2d")
def adaptive_avg_pool2d_rule(key, level, args, kwargs):
    """adaptive_avg_pool2d: the batch folds into N; a 2-D entry pooled to 1x1 (the one 2-D case the op takes,
    its mean over the last two dims) is that mean at the logical level."""
    x, size = args[0], _get(args, kwargs, 1, "output_size")
    if _bt(x, level) and x.dim() == 2 and size in (1, (1, 1), [1, 1]) and len(args) + len(kwargs) == 2:
        return call("mean", x, (-1, -2), keepdim=True)
    return _fold_batch(key, level, args, kwargs, 2)


register_rule("F.interpolate", "F.upsample", "F.upsample_nearest", "F.upsample_bilinear", "F.instance_norm")(
    _fold_rule(None)
)
register_rule("F.local_response_norm")(_fold_rule(None))


@register_rule("F.group_norm", "group_norm")
def group_norm_rule(key, level, args, kwargs):
    """Batching rule of group_norm: the batch folds into N; a batched weight or bias is applied after the
    unweighted normalization, per channel at the logical level (PyTorch's affine step)."""
    names = ("input", "num_groups", "weight", "bias", "eps")
    x, groups, w, b, eps = (
        _get(args, kwargs, i, n, d) for i, (n, d) in enumerate(zip(names, (None,) * 4 + (1e-5,)))
    )
    if not (_bt(w, level) or _bt(b, level)):
        return _fold_batch(key, level, args, kwargs, None)
    if (
        len(args) + len(kwargs) > len(names)
        or kwargs.keys() - set(names)
        or not is_tensor_like(x)
        or x.dim() < 2
    ):
        return fallback(key, level, args, kwargs)
    out = call(key, x, groups, None, None, eps)
    shape = (x.shape[1],) + (1,) * (x.dim() - 2)
    if w is not None:
        out = call("mul", out, call("Tensor.reshape", w, shape))
    if b is not None:
        out = call("add", out, call("Tensor.reshape", b, shape))
    return out


@register_rule(
    "F.pixel_shuffle", "F.pixel_unshuffle", "pixel_shuffle", "pixel_unshuffle", "F.channel_shuffle"
)
def pixel_shuffle_rule(key, level, args, kwargs):
    """Batching rule of pixel_shuffle/pixel_unshuffle/channel_shuffle: the batch folds into N (or is N for
    entries without one)."""
    return _fold_batch(key, level, args, kwargs, 2)


@register_rule("F.pad")
def pad_rule(key, level, args, kwargs):
    """Batching rule of F.pad: constant padding touches trailing dims only, so the value goes in as it is;
    reflect/replicate/circular need the (N, C, *spatial) layout, so the batch folds into N."""
    x = args[0]
    pad = _get(args, kwargs, 1, "pad")
    mode = _get(args, kwargs, 2, "mode", "constant")
    if mode == "constant" or mode is None:
        if len(pad) // 2 > _rank(x, level):
            return fallback(key, level, args, kwargs)
        return wrap(call(key, x._value, *args[1:], **kwargs), level)
    return _fold_batch(key, level, args, kwargs, len(pad) // 2)


@register_rule("F.layer_norm")
def layer_norm_rule(key, level, args, kwargs):
    """Batching rule of layer_norm: it normalizes the trailing dims, so a batched input goes in as it is; a
    batched weight or bias (or an unbatched input) is applied afterwards by mul and add."""
    x = args[0]
    shape = _get(args, kwargs, 1, "normalized_shape")
    w = _get(args, kwargs, 2, "weight")
    b = _get(args, kwargs, 3, "bias")
    eps = _get(args, kwargs, 4, "eps", 1e-5)
    if not _bt(x, level):
        out = call(key, _physical(x, level), shape, None, None, eps)
    elif _bt(w, level) or _bt(b, level):
        out = call(key, x._value, shape, None, None, eps)
    else:
        return wrap(call(key, x._value, shape, w, b, eps), level)
    out = BatchedTensor(out, level)
    if w is not None:
        out = call("mul", out, w)
    if b is not None:
        out = call("add", out, b)
    return out


@register_rule("F.batch_norm")
def batch_norm_rule(key, level, args, kwargs):
    """Batching rule of batch_norm: per-entry statistics (batch stats or batched running buffers, updated
    in place) become channel groups of one call; shared running statistics fold the batch into N."""
    names = ("input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps")
    x, rm, rv, w, b, training, momentum, eps = [_get(args, kwargs, i, n) for i, n in enumerate(names)]
    training = bool(training)
    momentum = 0.1 if momentum is None else momentum
    eps = 1e-5 if eps is None else eps
    stats_batched = _bt(rm, level) and _bt(rv, level)
    if (_bt(rm, level) or _bt(rv, level)) and not stats_batched or _rank(x, level) < 2:
        return fallback(key, level, args, kwargs)
    if training and rm is not None and not stats_batched and _bt(x, level):
        raise RuntimeError(
            "Batch norm got a batched tensor as input while the running_mean or running_var, which will be "
            "updated in place, were not batched.\nIf you are using a module and do not need eval mode, please "
            "set `track_running_stats` to be False.If you are using a prebuilt module and do not need eval mode, "
            "please see the functorch website for resources on how to patch your module to work with vmap"
        )
    v = _physical(x, level)
    size = v.shape[0]
    if stats_batched or (training and rm is None):
        # statistics of each batch entry (its own running buffers, or the batch's): the entries become channel
        # groups of one batch_norm, whose running buffers are views of the batched ones (updated in place)
        n, c = v.shape[1], v.shape[2]
        xg = v.movedim(0, 1).reshape((n, size * c) + tuple(v.shape[3:]))
        flat = [None, None]
        if stats_batched:
            if not (rm._value.is_contiguous() and rv._value.is_contiguous()):
                return fallback(key, level, args, kwargs)
            flat = [rm._value.view(-1), rv._value.view(-1)]
        out = call(key, xg, flat[0], flat[1], None, None, training, momentum, eps)
        out = BatchedTensor(out.reshape((n, size, c) + tuple(v.shape[3:])).movedim(1, 0), level)
    else:
        # fixed statistics shared by the entries: per element, so the batch folds into N
        flat_x = v.reshape((size * v.shape[1],) + tuple(v.shape[2:]))
        out = call(key, flat_x, rm, rv, None, None, training, momentum, eps)
        out = BatchedTensor(out.reshape(v.shape), level)
    shape = (-1,) + (1,) * (_rank(x, level) - 2)
    if w is not None:
        out = call("mul", out, call("Tensor.reshape", w, shape))
    if b is not None:
        out = call("add", out, call("Tensor.reshape", b, shape))
    return out


@register_rule("F.embedding")
def embedding_rule(key, level, args, kwargs):
    """Batching rule of F.embedding: an unbatched table takes the batched indices as they are; a batched
    one is indexed with (arange(B), indices), each entry its own; max_norm runs per entry."""
    idx, w = args[0], _get(args, kwargs, 1, "weight")
    if not _bt(w, level):
        return wrap(call(key, idx._value, w, *args[2:], **kwargs), level)
    if any(_get(args, kwargs, i, n) not in (None, False, 2.0) for i, n in ((3, "max_norm"),)):
        return fallback(key, level, args, kwargs)
    vw = w._value  # [B, V, D]
    vi = _physical(idx, level)
    size = vw.shape[0]
    ar = _C.arange(size, device=vw.device).reshape((size,) + (1,) * (vi.dim() - 1))
    return wrap(call("Tensor.__getitem__", vw, (ar, vi)), level)


@register_rule("F.one_hot")
def one_hot_rule(key, level, args, kwargs):
    """Batching rule of one_hot: appends the class dim to the batched value; num_classes=-1 (inferred from
    the data, which would pool the entries) runs per entry."""
    num = _get(args, kwargs, 1, "num_classes", -1)
    if num == -1:
        return fallback(key, level, args, kwargs)
    return wrap(call(key, args[0]._value, num), level)


# ----------------------------------------------------------------------------------------------- losses


def _per_entry_reduce(loss_none, reduction, level):
    """Reduces a batched per-element loss per batch entry."""
    if reduction == "none":
        return loss_none
    if reduction == "sum":
        return call("sum", loss_none)
    return call("mean", loss_none)


@register_rule(
    "F.mse_loss",
    "F.l1_loss",
    "F.smooth_l1_loss",
    "F.huber_loss",
    "F.binary_cross_entropy",
    "F.binary_cross_entropy_with_logits",
    "F.soft_margin_loss",
    "F.kl_div",
    "F.poisson_nll_loss",
    "F.hinge_embedding_loss",
)
def elementwise_loss_rule(key, level, args, kwargs):
    """Batching rule of elementwise losses: every tensor argument gets the batch dim at one logical rank;
    the loss runs with reduction='none', then reduces per entry (batchmean by its first dim)."""
    kwargs = dict(kwargs)
    reduction = kwargs.pop("reduction", "mean")
    if kwargs.pop("size_average", None) is not None or kwargs.pop("reduce", None) is not None:
        return fallback(key, level, args, dict(kwargs, reduction=reduction))
    # every tensor argument carries the batch dim (an unbatched one expanded, a view), so the loss sees equal
    # shapes where the entries' shapes are equal, as without vmap (no broadcasting warning, no rank mismatch)
    rank = max(_rank(a, level) for a in list(args) + list(kwargs.values()) if is_tensor_like(a))

    def phys(a):
        if not is_tensor_like(a):
            return a
        return _padded(a, level, rank) if _bt(a, level) else _pad(_physical(a, level), rank - a.dim())

    args = tuple(phys(a) for a in args)
    kwargs = {k: phys(v) for k, v in kwargs.items()}
    loss = BatchedTensor(call(key, *args, reduction="none", **kwargs), level)
    if key == "F.kl_div" and reduction == "batchmean":
        n = loss.shape[0] if loss.dim() > 0 else 1
        return call("div", call("sum", loss), n)
    return _per_entry_reduce(loss, reduction, level)


@register_rule("F.nll_loss", "F.cross_entropy")
def nll_rule(key, level, args, kwargs):
    """Batching rule of nll_loss/cross_entropy: the batch folds into N (or is N for (C,) entries); 'mean'
    divides per entry by its own non-ignored, class-weighted target count."""
    names = ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction")
    if key == "F.cross_entropy":
        names = names + ("label_smoothing",)
    vals = dict(zip(names, args))
    vals.update(kwargs)
    x, target = vals["input"], vals["target"]
    weight = vals.get("weight")
    ignore_index = vals.get("ignore_index", -100)
    reduction = vals.get("reduction", "mean")
    smoothing = vals.get("label_smoothing", 0.0)
    if vals.get("size_average") is not None or vals.get("reduce") is not None or _bt(weight, level):
        return fallback(key, level, args, kwargs)
    rx = _rank(x, level)
    vx = _physical(x, level)
    vt = _physical(target, level)
    size = vx.shape[0]
    prob_target = target.is_floating_point()
    if rx == 1:  # (C,) input: one sample per batch entry
        flat_x, flat_t = vx, vt
        out_shape = (size,)
    else:
        flat_x = vx.reshape((size * vx.shape[1],) + tuple(vx.shape[2:]))
        flat_t = vt.reshape((size * vt.shape[1],) + tuple(vt.shape[2:]))
        out_shape = (size, vx.shape[1]) + tuple(vx.shape[3:])
    extra = {"label_smoothing": smoothing} if key == "F.cross_entropy" else {}
    loss = call(key, flat_x, flat_t, weight, None, ignore_index, None, "none", **extra)
    if reduction == "none":
        return wrap(loss.reshape(out_shape), level)
    loss = loss.reshape((size, -1))
    total = loss.sum(1)
    if reduction == "sum":
        return wrap(total, level)
    if prob_target:
        return wrap(total / (loss.shape[1] // (1 if rx == 1 else _spatial_numel(vx))), level)
    t2 = flat_t.reshape((size, -1))
    valid = (t2 != ignore_index).to(loss.dtype)
    if weight is not None:
        safe = t2.clamp(0, weight.shape[0] - 1)
        valid = valid * weight[safe]
    return wrap(total / valid.sum(1), level)


def _spatial_numel(vx):
    n = 1
    for s in vx.shape[3:]:
        n *= s
    return n


# ----------------------------------------------------------------------------------------------- randomness

_RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or 'different' "
    "randomness flags on vmap or perform the randomness operation out of vmap"
)


def _randomness(level):
    mode = level_of(level).randomness
    if mode == "error":
        raise RuntimeError(_RANDOM_ERROR)
    return mode


@register_rule("F.dropout", "dropout", "F.alpha_dropout", "alpha_dropout", "F.feature_alpha_dropout")
def dropout_rule(key, level, args, kwargs):
    """Batching rule of dropout: 'different' randomness drops elements of the whole batched value at once;
    'same' multiplies by one mask of the logical shape (other dropouts replay the RNG state per entry)."""
    p = _get(args, kwargs, 1, "p", 0.5)
    # F.alpha_dropout and F.feature_alpha_dropout default to training=False: the input unchanged, nothing drawn
    default = key not in ("F.alpha_dropout", "F.feature_alpha_dropout")
    training = _get(args, kwargs, 2, "training" if key.startswith("F.") else "train", default)
    inplace = _get(args, kwargs, 3, "inplace", False)
    if not training or p == 0:  # draws nothing (PyTorch's short cut): no randomness to ask for
        return pointwise(key, level, args, kwargs)
    mode = _randomness(level)
    x = args[0]
    if mode == "different":
        if key == "F.feature_alpha_dropout":
            return _fold_batch(key, level, args, kwargs, None)
        return pointwise(key, level, args, kwargs)
    if key in ("F.dropout", "dropout"):
        ones = _C.ones(tuple(x.shape), dtype=x.dtype, device=x.device)
        mask = call(key, ones, p, True)
        if inplace:
            return call("Tensor.mul_", x, mask)
        return call("mul", x, mask)
    return _same_by_replay(key, level, args, kwargs)


@register_rule("F.dropout1d", "F.dropout2d", "F.dropout3d", "feature_dropout")
def feature_dropout_rule(key, level, args, kwargs):
    """Batching rule of dropout1d/2d/3d: 'different' randomness folds the batch into N so each entry draws
    its own channel mask; 'same' multiplies by one mask of the logical shape."""
    training = _get(args, kwargs, 2, "training" if key.startswith("F.") else "train", True)
    if not training or _get(args, kwargs, 1, "p", 0.5) == 0:  # draws nothing: no randomness to ask for
        return pointwise(key, level, args, kwargs)
    mode = _randomness(level)
    if mode == "different":
        nd = {"F.dropout1d": 1, "F.dropout2d": 2, "F.dropout3d": 3}.get(key)
        return _fold_batch(key, level, args, kwargs, nd)
    x = args[0]
    ones = _C.ones(tuple(x.shape), dtype=x.dtype, device=x.device)
    mask = call(key, ones, *args[1:], **kwargs)
    return call("mul", x, mask)


def _same_by_replay(key, level, args, kwargs):
    """randomness='same' for any random op: every batch entry runs it from the same generator state."""
    state = get_rng_state()
    outs = []
    for i in range(_size(level)):
        set_rng_state(state)
        a = tuple(_select_level(x, level, i) for x in args)
        k = {n: _select_level(v, level, i) for n, v in kwargs.items()}
        outs.append(call(key, *a, **k))
    return stack_results(outs, level, key)


@register_rule(
    "bernoulli",
    "poisson",
    "normal",
    "binomial",
    "Tensor.bernoulli",
    "F.rrelu",
    "F.gumbel_softmax",
)
def random_rule(key, level, args, kwargs):
    """Batching rule of random ops on tensors: 'different' randomness draws once over the batched value
    (fresh per entry); 'same' draws *_like once at the logical shape, else replays the RNG per entry."""
    mode = _randomness(level)
    if _base(key) in ("F.rrelu", "rrelu") and not _get(args, kwargs, 3, "training", False):
        return pointwise(key, level, args, kwargs)
    if mode == "different":
        if _base(key) == "multinomial":
            return (
                _fold_batch(key, level, args, kwargs, None)
                if _rank(args[0], level) == 2
                else wrap(call(key, args[0]._value, *args[1:], **kwargs), level)
            )
        if key == "F.gumbel_softmax":
            return _dim_op(key, level, args, kwargs, ((4, "dim"),))
        return pointwise(key, level, args, kwargs)
    if key in ("rand_like", "randn_like", "randint_like"):
        x = args[0]
        proto = _C.empty(tuple(x.shape), dtype=x.dtype, device=x.device)
        return call(key, proto, *args[1:], **kwargs)
    return _same_by_replay(key, level, args, kwargs)


# the schema's in-place samplers (uniform_, normal_, random_, bernoulli_, exponential_, ...) name the rule
def inplace_random_rule(key, level, args, kwargs):
    """Batching rule of in-place random fills: 'different' fills the whole batched value, 'same' copies one
    draw of the logical shape into every entry; an unbatched self raises functorch's error."""
    mode = _randomness(level)
    x = args[0]
    if not _bt(x, level):
        raise RuntimeError(
            "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear like "
            "same randomness. If this is necessary for your usage, please file an issue with functorch."
        )
    if mode == "different":
        rest = tuple(_physical(a, level) if _bt(a, level) else a for a in args[1:])
        call(key, x._value, *rest, **kwargs)
        return x
    fresh = _C.empty(tuple(x.shape), dtype=x.dtype, device=x.device)
    call(key, fresh, *args[1:], **kwargs)
    call("Tensor.copy_", x, fresh)
    return x


@register_rule("Tensor.backward")
def backward_rule(key, level, args, kwargs):
    """backward() of a batched value: PyTorch's refusal inside a functorch transform, without the loop."""
    raise RuntimeError(
        "backward() called inside a functorch transform. This is not supported, please use functorch.grad or "
        "functorch.vjp instead or call backward() outside of functorch transforms."
    )


# The random factories _vmap's randomness mode draws per batch entry: the schema's `vmap: random_factory` rows
# (added by _register_schema_rules), and normal's factory form, a Python op (torch.normal(mean, std, size))
RANDOM_FACTORIES = {"normal"}

# The random ops on tensors (the rules above), by the function's __name__ for a cheap first test
_RANDOM_OPS = frozenset((
    "F.dropout", "dropout", "F.alpha_dropout", "alpha_dropout", "F.feature_alpha_dropout", "F.dropout1d",
    "F.dropout2d", "F.dropout3d", "feature_dropout", "rand_like", "randn_like", "randint_like", "bernoulli",
    "poisson", "normal", "multinomial", "binomial", "F.rrelu", "F.gumbel_softmax",
))  # fmt: skip
RANDOM_NAMES = frozenset(k.rpartition(".")[2] for k in _RANDOM_OPS)


def _draws(key, args, kwargs):
    """Whether the random op draws (dropout in eval mode or with p=0, rrelu in eval mode do not)."""
    if "dropout" in key:
        default = key not in ("F.alpha_dropout", "F.feature_alpha_dropout")
        training = _get(args, kwargs, 2, "training" if key.startswith("F.") else "train", default)
        return bool(training) and _get(args, kwargs, 1, "p", 0.5) != 0
    if key == "F.rrelu":
        return bool(_get(args, kwargs, 3, "training", False))
    return True


def check_random_op(key, args, kwargs):
    """A random op inside vmap whose operands no level batches reaches no rule (jacfwd's duals, whose primals
    are plain, and a draw from an unbatched tensor): as PyTorch's, it raises where a level's randomness is
    'error'."""
    if key in _RANDOM_OPS and _error_mode() and _draws(key, args, kwargs):
        raise RuntimeError(_RANDOM_ERROR)


def _error_mode():
    """Whether a vmap level around the call, or one set aside by forward AD's reverse transforms (hessian is
    jacfwd of jacrev), has randomness 'error'."""
    return any(lv.randomness == "error" for lv in STATE.levels) or any(
        lv.randomness == "error" for lv in STATE.suspended
    )


def no_tensor(key, level, args, kwargs):
    """A factory that takes no tensor (the schema's `vmap: no_tensor` and `vmap: random_factory` rows) meets a
    batched value only as a number argument (arange(n), full(size, v)), which it reads by .item(): PyTorch's
    refusal, as one Python number cannot stand for a batch. A tensor its binding refuses outright (a float one
    for an int: zeros(x)) is PyTorch's TypeError first, so the op runs once with a 0-dim zero of the batched
    value's dtype in its place (zero: the smallest call, arange(0)), the generator's state kept."""

    def zero(a):
        if type(a) is BatchedTensor:
            return _C.zeros((), dtype=a.dtype)
        if type(a) in (list, tuple):
            return type(a)(zero(b) for b in a)
        return a

    state = get_rng_state()
    try:
        call_plain(key, tuple(zero(a) for a in args), {k: zero(v) for k, v in kwargs.items()})
    except TypeError:
        raise
    except Exception:  # noqa: BLE001, S110  (the binding took the tensor: the refusal below is PyTorch's)
        pass
    finally:
        set_rng_state(state)
    raise RuntimeError(ITEM_REFUSAL)


def random_factory(key, original, args, kwargs):
    """A random factory called inside vmap (no batched argument): one draw per entry of each vmap level whose
    randomness is 'different', a single draw for 'same', an error for 'error'."""
    levels = list(STATE.levels)
    if _error_mode():
        raise RuntimeError(_RANDOM_ERROR)
    different = [lv for lv in levels if lv.randomness == "different"]
    if not different:
        return original(*args, **kwargs)
    count = 1
    for lv in different:
        count *= lv.size
    draws = [original(*args, **kwargs) for _ in range(count)]
    res = _C.stack(draws, 0).reshape(tuple(lv.size for lv in different) + tuple(draws[0].shape))
    for lv in different:
        res = BatchedTensor(res, lv.id)
    return res


# ----------------------------------------------------------------------------------------------- aliases


def _alias(target, *keys):
    """Registers the rule of `target` under other keys (same signature)."""
    rule = RULES[target]
    register_rule(*keys)(rule)


# the composites of minitorch/_composite_math.py declare their rules beside their code (its _export's vmap=)
for _name, _expr in _composite_math.COMPOSITE_VMAP.items():
    register_rule(_name)(eval(_expr, globals()))  # our own source's text, as the schema's rules below
POINTWISE += [n for n, e in _composite_math.COMPOSITE_VMAP.items() if e == "pointwise"]
# in-place forms of the pointwise ops, as torch functions (torch.relu_(x)) and methods
for _name in [n for n in POINTWISE if "." not in n]:
    register_rule(_name + "_", "Tensor." + _name + "_")(pointwise)
# torch.clamp_min_/clamp_max_: _composite_math's in-place forms of the schema's clamp_min/clamp_max (whose rows
# have no in-place variant for the schema to register)
register_rule("clamp_min_", "clamp_max_")(pointwise)
# torch-level spellings of nn.functional ops and other elementwise functions
register_rule(
    "celu",
    "selu",
    "threshold",
    "hardshrink",
    "clone",
    "fill",
    "gcd",
    "lcm",
    "frexp",
    "special.erfcx",
    "pairwise_distance",
    "celu_",
    "selu_",
    "threshold_",
    "detach_",
    "ldexp_",
    "gcd_",
    "lcm_",
)(pointwise)
_alias("F.cosine_similarity", "cosine_similarity")
_alias("F.rrelu", "rrelu")
_alias("F.layer_norm", "layer_norm")
register_rule("F.rms_norm", "rms_norm")(
    lambda key, level, args, kwargs: (
        wrap(call(key, args[0]._value, *args[1:], **kwargs), level)
        if _bt(args[0], level) and not any(_bt(a, level) for a in list(args[1:]) + list(kwargs.values()))
        else fallback(key, level, args, kwargs)
    )
)
register_rule("instance_norm")(_fold_rule(None))  # torch.instance_norm: F.instance_norm's fold
_alias("F.bilinear", "bilinear")
_alias("F.pixel_shuffle", "channel_shuffle", "native_channel_shuffle")
register_rule("linalg.matmul")(matmul_rule)
register_rule("ravel", "Tensor.ravel")(flatten_rule)  # flatten() (ops.schema declares flatten's rule)
# (torch.kl_div, torch.binary_cross_entropy_with_logits and friends take an integer reduction: no alias)
register_rule("F.margin_ranking_loss", "F.triplet_margin_loss", "F.multilabel_soft_margin_loss")(
    elementwise_loss_rule
)
register_rule("linalg.norm")(_reduction(dim_pos=2))
register_rule("linalg.matrix_norm")(_dims_rule((2, "dim", (-2, -1))))
register_rule("linalg.diagonal")(_dims_rule((2, "dim1", -2), (3, "dim2", -1)))


@register_rule("index_add", "Tensor.index_add_")
def index_add_rule(key, level, args, kwargs):
    """Batching rule of index_add/index_copy: the dim is shifted and the source gets the batch dim; a
    batched index (one per entry) or an unbatched self runs per entry."""
    x, dim, index = args[0], _get(args, kwargs, 1, "dim"), _get(args, kwargs, 2, "index")
    source = _get(args, kwargs, 3, "source")
    if not _bt(x, level) or _bt(index, level):
        return fallback(key, level, args, kwargs)
    rest = {k: v for k, v in kwargs.items() if k not in ("dim", "index", "source")}
    res = call(key, x._value, _shift(dim, _rank(x, level)), index, _physical(source, level), **rest)
    return x if is_inplace(key) else wrap(res, level)


@register_rule("F.cosine_embedding_loss")
def cosine_embedding_loss_rule(key, level, args, kwargs):
    """Batching rule of F.cosine_embedding_loss: (N, D) inputs with an (N,) target fold the batch into N;
    (D,) inputs with a 0-d target take the batch as N. The loss is reduced per entry."""
    kwargs = dict(kwargs)
    reduction = kwargs.pop("reduction", "mean")
    margin = _get(args, kwargs, 3, "margin", 0)
    if len(args) > 4 or kwargs.keys() - {"margin"} or _rank(args[0], level) not in (1, 2):
        return fallback(key, level, args, dict(kwargs, reduction=reduction))
    x1, x2, y = (_physical(a, level) for a in args[:3])
    size = x1.shape[0]
    if x1.dim() == 3:
        n = x1.shape[1]
        x1, x2, y = x1.reshape(size * n, -1), x2.reshape(size * n, -1), y.reshape(size * n)
        loss = BatchedTensor(call(key, x1, x2, y, margin, reduction="none").reshape(size, n), level)
    else:
        loss = BatchedTensor(call(key, x1, x2, y, margin, reduction="none"), level)
    return _per_entry_reduce(loss, reduction, level)


@register_rule("linalg.vecdot")
def vecdot_rule(key, level, args, kwargs):
    """Batching rule of linalg.vecdot: the operands broadcast to one logical rank and the dim (keyword or
    positional, default -1) is shifted."""
    return (
        _broadcast_dim_op(key, level, args, kwargs, 2)
        if "dim" not in kwargs
        else _broadcast_dim_op(
            key, level, args[:2] + (kwargs["dim"],), {k: v for k, v in kwargs.items() if k != "dim"}, 2
        )
    )


@register_rule("linalg.multi_dot")
def multi_dot_rule(key, level, args, kwargs):
    """Batching rule of linalg.multi_dot: a left-to-right chain of matmul calls, each batched by matmul's
    rule (1-D ends included)."""
    tensors = list(args[0])
    out = tensors[0]
    for t in tensors[1:]:
        out = call("matmul", out, t)
    return out


@register_rule("fliplr", "flipud")
def flip_lr_ud_rule(key, level, args, kwargs):
    """Batching rule of fliplr/flipud: flip of logical dim 1 or 0, shifted by flip's rule."""
    return call("flip", args[0], (1,) if key == "fliplr" else (0,))


@register_rule("msort")
def msort_rule(key, level, args, kwargs):
    """Batching rule of msort: the values of sort along logical dim 0, through sort's rule."""
    return call("sort", args[0], 0).values


@register_rule("quantile", "nanquantile")
def quantile_rule(key, level, args, kwargs):
    """Batching rule of quantile/nanquantile: dim=None takes the quantile of each entry's flattened values
    (not the whole batch); a given dim is shifted."""
    if _get(args, kwargs, 2, "dim") is None:
        x = args[0]
        return call(key, call("Tensor.reshape", x, (-1,)), *args[1:2], 0, *args[3:], **kwargs)
    return _dim_op(key, level, args, kwargs, ((2, "dim"),))


@register_rule("renorm", "Tensor.renorm")
def renorm_rule(key, level, args, kwargs):
    """Batching rule of renorm: its norms span every dim but `dim`, so the batch dim is moved next to `dim` and
    merged with it; renorm of the merged dim then rescales each entry's slices by their own norms."""
    x, p = args[0], _get(args, kwargs, 1, "p")
    dim, maxnorm = _get(args, kwargs, 2, "dim"), _get(args, kwargs, 3, "maxnorm")
    r = _rank(x, level)
    if not _bt(x, level) or r < 2 or not isinstance(dim, int) or _bt(p, level) or _bt(maxnorm, level):
        return fallback(key, level, args, kwargs)  # the op's own errors, per entry
    d = _wrap_dim(dim, r)
    v = x._value.movedim(0, d)
    shape = tuple(v.shape)
    merged = call("Tensor.reshape", v, shape[:d] + (shape[d] * shape[d + 1],) + shape[d + 2 :])
    out = call("renorm", merged, p, d, maxnorm)
    return wrap(call("Tensor.reshape", out, shape).movedim(d, 0), level)


@register_rule("linalg.householder_product", "orgqr", "Tensor.orgqr")
def householder_product_rule(key, level, args, kwargs):
    """Batching rule of householder_product/orgqr: A (*, m, n) and tau (*, k) with the batch dim in front of
    both (an unbatched one expanded: the op takes equal, not broadcast, batch dims)."""
    A, tau = args[0], _get(args, kwargs, 1, "tau", _get(args, kwargs, 1, "input2"))
    if (
        len(args) != 2
        or kwargs
        or not (is_tensor_like(A) and is_tensor_like(tau))
        or A.dim() < 2
        or tau.dim() < 1
        or tuple(A.shape[:-2]) != tuple(tau.shape[:-1])
    ):
        return fallback(key, level, args, kwargs)  # out=, or the op's own shape errors, per entry
    return wrap(call("linalg.householder_product", _physical(A, level), _physical(tau, level)), level)


def _plain_values(level, *xs):
    """The values of xs with the batch dim in front, or None when one is batched at an outer level too (a check
    on the values would then ask a BatchedTensor for a Python bool)."""
    vals = [None if x is None else _physical(x, level) for x in xs]
    return None if any(type(v) is BatchedTensor for v in vals) else vals


@register_rule("cov", "corrcoef", "Tensor.cov", "Tensor.corrcoef")
def cov_rule(key, level, args, kwargs):
    """Batching rule of cov/corrcoef: the covariance of every entry's rows at once (_composite_math's batched
    _cov_of, over a leading batch dim), weights batched or shared; the per-entry squeeze of a single variable's
    1x1 result drops the two matrix dims."""
    from minitorch import _composite_math as cm

    x = args[0]
    kw = dict(kwargs)
    correction = kw.pop("correction", 1)
    fw, aw = kw.pop("fweights", None), kw.pop("aweights", None)
    if len(args) != 1 or kw or x.dim() > 2 or type(correction) is not int:
        return fallback(key, level, args, kwargs)  # the op's own errors, per entry
    n = x.shape[-1] if x.dim() else 1
    weights = [(name, w) for name, w in (("fweights", fw), ("aweights", aw)) if w is not None]
    for name, w in weights:
        if not is_tensor_like(w):
            return fallback(key, level, args, kwargs)
        cm._check_cov_weight(name, w, n)
    vals = _plain_values(level, x, fw, aw)
    if vals is None:
        return fallback(key, level, args, kwargs)
    size = _size(level)
    vx, vfw, vaw = vals
    vx = cm._to_float(vx.reshape(size, -1, n))
    w = None
    for name, v in (("fweights", vfw), ("aweights", vaw)):
        if v is None:
            continue
        if v.numel() and bool(v.lt(0).any()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        v = v.reshape(size, n)
        w = v if w is None else w * v
    c = cm._cov_of(vx, w, None if vaw is None else vaw.reshape(size, n), correction)
    if c.shape[-1] == 1:  # one variable: each entry's 1x1 squeezes to a scalar
        c = c.reshape(size)
        return wrap(c / c if _base(key) == "corrcoef" else c, level)
    return wrap(cm._corr_of(c) if _base(key) == "corrcoef" else c, level)


@register_rule("block_diag")
def block_diag_rule(key, level, args, kwargs):
    """Batching rule of block_diag: each entry's blocks (unbatched ones expanded) laid out by
    _composite_shape's batched _block_diag_of, zeros and blocks catenated along the matrix dims."""
    from minitorch import _composite_shape as cs

    if kwargs or not args or not all(is_tensor_like(t) for t in args) or any(t.dim() > 2 for t in args):
        return fallback(key, level, args, kwargs)  # the op's own errors, per entry
    size = _size(level)
    dtype = cs._tensors_result_type(*args)
    mats = []
    for t in args:
        v = _physical(t, level)
        if t.dim() < 2:
            v = call("Tensor.reshape", v, (size, 1, -1))
        mats.append(call("Tensor.to", v, dtype))
    return wrap(cs._block_diag_of(mats, cat=lambda ts, d: call("cat", ts, d)), level)


_ATLEAST = {"atleast_1d": 1, "atleast_2d": 2, "atleast_3d": 3}
_STACKS = {
    "hstack": (1, None),
    "vstack": (2, 0),
    "row_stack": (2, 0),
    "dstack": (3, 2),
    "column_stack": (0, 1),
}


@register_rule(*_ATLEAST)
def atleast_rule(key, level, args, kwargs):
    """Batching rule of atleast_1d/2d/3d: _composite_shape's reshapes, which are methods, at the logical level."""
    from minitorch import _composite_shape as cs

    if kwargs:
        return fallback(key, level, args, kwargs)
    return cs._atleast_api(args, _ATLEAST[key])


@register_rule(*_STACKS)
def stacks_rule(key, level, args, kwargs):
    """Batching rule of hstack/vstack/row_stack/dstack/column_stack: the at-least reshapes (column_stack's
    columns) at the logical level, then cat's rule (hstack joins 1-D entries along dim 0)."""
    from minitorch import _composite_shape as cs

    tensors = _get(args, kwargs, 0, "tensors")
    if _C._is_tensor(tensors) or type(tensors).__name__ == "BatchedTensor":
        cs._nonempty(tensors, key)  # PyTorch's TypeError: a tensor is not a sequence of tensors
    if len(args) != 1 or kwargs or not isinstance(tensors, (list, tuple)) or not tensors:
        return fallback(key, level, args, kwargs)  # out= or the op's own errors, per entry
    n, dim = _STACKS[key]
    if n == 0:
        ts = [call("Tensor.reshape", t, (-1, 1)) if t.dim() <= 1 else t for t in tensors]
    else:
        ts = cs._atleast(list(tensors), n)
    if dim is None:
        dim = 0 if ts[0].dim() == 1 else 1
    return call("cat", ts, dim)


@register_rule("adjoint", "Tensor.adjoint")
def adjoint_rule(key, level, args, kwargs):
    """Batching rule of adjoint: the conjugate of the last two logical dims swapped (the op's own errors and
    0-d warning per entry)."""
    x = args[0]
    if len(args) != 1 or kwargs or _rank(x, level) < 2:
        return fallback(key, level, args, kwargs)
    return call("conj", call("Tensor.transpose", x, -2, -1))


@register_rule("diagflat", "Tensor.diagflat")
def diagflat_rule(key, level, args, kwargs):
    """Batching rule of diagflat: each entry flattened, then diag_embed's rule."""
    offset = _get(args, kwargs, 1, "offset", 0)
    if len(args) > 2 or kwargs.keys() - {"offset"}:
        return fallback(key, level, args, kwargs)
    return call("diag_embed", call("Tensor.reshape", args[0], (-1,)), offset)


@register_rule("dist", "Tensor.dist")
def dist_rule(key, level, args, kwargs):
    """Batching rule of dist: each entry's p-norm of the broadcast difference, by vector_norm over the logical
    dims (an integer difference, or a tensor p, runs per entry: the op's own error or its .item())."""
    a, b = args[0], _get(args, kwargs, 1, "other")
    p = _get(args, kwargs, 2, "p", 2)
    if len(args) + len(kwargs) > 3 or not isinstance(p, (int, float)):
        return fallback(key, level, args, kwargs)
    diff = call("sub", a, b)
    if not (diff.is_floating_point() or diff.dtype.is_complex):
        return fallback(key, level, args, kwargs)
    return call("linalg.vector_norm", diff, int(p) if type(p) is bool else p)


@register_rule("aminmax", "Tensor.aminmax")
def aminmax_rule(key, level, args, kwargs):
    """Batching rule of aminmax: amin and amax through their reduction rules (dim=None over each entry)."""
    from minitorch import return_types

    x = args[0]
    dim, keepdim = kwargs.get("dim"), kwargs.get("keepdim", False)
    if len(args) != 1 or kwargs.keys() - {"dim", "keepdim"} or x.numel() == 0:
        return fallback(key, level, args, kwargs)  # the op's empty-input errors, per entry
    dims = tuple(range(x.dim())) if dim is None else dim
    if dim is None and x.dim() == 0:
        return return_types.aminmax(call("amin", x), call("amax", x))
    return return_types.aminmax(call("amin", x, dims, keepdim), call("amax", x, dims, keepdim))


register_rule("igamma", "igammac", "special.gammainc", "special.gammaincc", "complex")(pointwise)
for _key, _spec in (
    ("svd", ((0, "input", 2),)),
    ("geqrf", ((0, "input", 2),)),
    ("cholesky_inverse", ((0, "L", 2),)),
    ("lu", ((0, "A", 2),)),
):
    register_rule(_key, "Tensor." + _key)(_matrix_operands_rule(_spec))


@register_rule("isin")
def isin_rule(key, level, args, kwargs):
    """Batching rule of isin: with shared test elements the op runs on the value (it is elementwise in the
    elements); batched test elements are one broadcast comparison of each entry's elements with its tests."""
    x, test = args[0], _get(args, kwargs, 1, "test_elements")
    kw = {k: v for k, v in kwargs.items() if k != "test_elements"}
    if len(args) > 2 or kw.keys() - {"assume_unique", "invert"} or not is_tensor_like(x):
        return fallback(key, level, args, kwargs)
    if not _bt(test, level):
        return wrap(call(key, x._value, test, **kw), level)
    if not is_tensor_like(test) or x.dtype != test.dtype:
        return fallback(key, level, args, kwargs)  # mixed dtypes promote: the op's own comparison, per entry
    # each entry's elements against its own test elements: one broadcast comparison, any over the tests
    hits = call("any", call("eq", call("Tensor.unsqueeze", x, -1), call("Tensor.reshape", test, (-1,))), -1)
    return call("logical_not", hits) if kw.get("invert", False) else hits


_SPLITS = {"vsplit": (2, 0), "hsplit": (1, None), "dsplit": (3, 2)}


@register_rule(*_SPLITS, *("Tensor." + k for k in _SPLITS))
def hvdsplit_rule(key, level, args, kwargs):
    """Batching rule of vsplit/hsplit/dsplit: tensor_split's rule along logical dim 0/1/2 (hsplit of 1-D entries
    along 0); ranks too low or sections that do not divide run per entry (the ops' own errors)."""
    x, sections = args[0], _get(args, kwargs, 1, "indices_or_sections")
    need, dim = _SPLITS[_base(key)]
    r = _rank(x, level)
    if len(args) + len(kwargs) != 2 or r < need:
        return fallback(key, level, args, kwargs)
    if dim is None:
        dim = 1 if r > 1 else 0
    if isinstance(sections, int) and (sections == 0 or x.shape[dim] % sections):
        return fallback(key, level, args, kwargs)
    return call("tensor_split", x, sections, dim)


def slice_scatter_rule(key, level, args, kwargs):
    """Batching rule of slice_scatter: input and src with the batch dim in front (an unbatched one expanded; the
    op writes into a copy), the dim shifted."""
    x, src = args[0], _get(args, kwargs, 1, "src")
    dim = _get(args, kwargs, 2, "dim", 0)
    if not (is_tensor_like(x) and is_tensor_like(src)) or _rank(x, level) == 0 or not isinstance(dim, int):
        return fallback(key, level, args, kwargs)
    rest = [_get(args, kwargs, i, n, d) for i, n, d in ((3, "start", None), (4, "end", None), (5, "step", 1))]
    vx = _physical(x, level)
    return wrap(call(key, vx, _physical(src, level), _shift(dim, _rank(x, level)), *rest), level)


@register_rule("select_scatter", "Tensor.select_scatter")
def select_scatter_rule(key, level, args, kwargs):
    """Batching rule of select_scatter: as slice_scatter's, the index unchanged."""
    x, src = args[0], _get(args, kwargs, 1, "src")
    dim, index = _get(args, kwargs, 2, "dim"), _get(args, kwargs, 3, "index")
    if not (is_tensor_like(x) and is_tensor_like(src)) or _rank(x, level) == 0 or not isinstance(dim, int):
        return fallback(key, level, args, kwargs)
    vx = _physical(x, level)
    return wrap(call(key, vx, _physical(src, level), _shift(dim, _rank(x, level)), index), level)


@register_rule("diagonal_scatter", "Tensor.diagonal_scatter")
def diagonal_scatter_rule(key, level, args, kwargs):
    """Batching rule of diagonal_scatter: as slice_scatter's, both dims shifted."""
    x, src = args[0], _get(args, kwargs, 1, "src")
    offset = _get(args, kwargs, 2, "offset", 0)
    d1, d2 = _get(args, kwargs, 3, "dim1", 0), _get(args, kwargs, 4, "dim2", 1)
    r = _rank(x, level)
    if not (is_tensor_like(x) and is_tensor_like(src)) or r < 2:
        return fallback(key, level, args, kwargs)
    vx = _physical(x, level)
    return wrap(call(key, vx, _physical(src, level), offset, _shift(d1, r), _shift(d2, r)), level)


register_rule("resolve_conj", "resolve_neg")(pointwise)
_alias("trapezoid", "trapz")


@register_rule("is_conj", "is_neg", "is_signed", "Tensor.is_conj", "Tensor.is_neg", "Tensor.is_signed")
def tensor_flag_rule(key, level, args, kwargs):
    """is_conj/is_neg/is_signed: a property of the dtype or the whole value, the same for every entry."""
    return call(key, args[0]._value if _bt(args[0], level) else args[0])


@register_rule("constant_pad_nd")
def constant_pad_nd_rule(key, level, args, kwargs):
    """constant_pad_nd is F.pad's constant mode: its rule, at the logical level."""
    x, pad = args[0], _get(args, kwargs, 1, "pad")
    value = _get(args, kwargs, 2, "value", 0)
    if len(args) + len(kwargs) > 3:
        return fallback(key, level, args, kwargs)
    return call("F.pad", x, tuple(pad), "constant", value)


@register_rule("meshgrid", "cartesian_prod")
def meshgrid_rule(key, level, args, kwargs):
    """meshgrid/cartesian_prod of batched 0-d/1-d tensors: _composite_shape's views and expands at the logical
    level (cartesian_prod flattens the 'ij' grids and stacks them as columns); the ops' checks run first, on the
    logical tensors, and anything they refuse runs per entry."""
    from minitorch import _composite_shape as cs

    tensors = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    indexing = kwargs.get("indexing")
    cart = key == "cartesian_prod"
    if (
        not tensors
        or kwargs.keys() - ({"indexing"} if not cart else set())
        or not all(is_tensor_like(t) for t in tensors)
        or any(t.dim() > 1 or (cart and t.dim() != 1) for t in tensors)
        or any(t.dtype != tensors[0].dtype or t.device != tensors[0].device for t in tensors)
        or indexing not in (None, "ij", "xy")
    ):
        return fallback(key, level, args, kwargs)
    if cart:
        if len(tensors) == 1:
            return tensors[0]
        grids = cs._meshgrid(tensors, "ij")
        return call("stack", [call("Tensor.reshape", g, (-1,)) for g in grids], 1)
    return cs._meshgrid(tensors, indexing or "ij")


@register_rule("F.multi_head_attention_forward")
def composite_rule(key, level, args, kwargs):
    """A Python composite whose every step is a method or a torch function with a rule (nn.MultiheadAttention's
    forward: F.linear, Tensor.bmm, softmax or sdpa, views): it runs on the BatchedTensors themselves, each step
    batching by its own rule."""
    return _original(key)(*args, **kwargs)


@register_rule("prelu", "F.prelu")
def prelu_rule(key, level, args, kwargs):
    """Batching rule of prelu: where(x > 0, x, w * x) at the logical level, the weight (one slope, or one per
    channel of logical dim 1) shaped to broadcast against each entry; PyTorch's checks' cases run per entry."""
    x, w = args[0], _get(args, kwargs, 1, "weight")
    if len(args) + len(kwargs) != 2 or not (is_tensor_like(x) and is_tensor_like(w)) or x.dtype != w.dtype:
        return fallback(key, level, args, kwargs)
    if not x.is_floating_point() or w.dim() > 1:
        return fallback(key, level, args, kwargs)
    n = w.numel()
    if n != 1:
        if x.dim() < 2 or x.shape[1] != n:
            return fallback(key, level, args, kwargs)
        w = call("Tensor.reshape", w, (n,) + (1,) * (x.dim() - 2))
    elif w.dim() == 1 and x.dim() == 0:
        w = call("Tensor.reshape", w, ())
    # x > 0 picks x: at 0 the gradient is the slope, as PyTorch's prelu backward
    return call("where", call("gt", x, 0), x, call("mul", w, x))


# ----------------------------------------------------------------------------------------------- composites
# Python composites of PyTorch's surface, batched by the rules of the public ops they are made of (so a C++
# kernel replacing one of them later does not change what these rules compute).

_INT_REDUCTION = {0: "none", 1: "mean", 2: "sum"}


def _bound(key, args, kwargs):
    """The call's arguments by name, defaults filled in, from the eager function's signature; None when they
    do not bind (the op's own TypeError comes from the per-entry fallback)."""
    import inspect

    try:
        b = inspect.signature(_original(key)).bind(*args, **kwargs)
    except (
        TypeError,
        ValueError,
    ):  # ValueError: a builtin without a signature (a C++ op replacing the composite)
        return None
    b.apply_defaults()
    return dict(b.arguments)


def _int_reduction(vals):
    red = vals.pop("reduction")
    return _INT_REDUCTION.get(red) if type(red) is int else None


@register_rule("kl_div", "hinge_embedding_loss", "triplet_margin_loss", "binary_cross_entropy_with_logits")
def torch_loss_rule(key, level, args, kwargs):
    """The torch.* spellings of losses (reduction an int): their F.* rule under the reduction's name."""
    vals = _bound(key, args, kwargs)
    red = None if vals is None else _int_reduction(vals)
    if red is None:
        return fallback(key, level, args, kwargs)
    first = next(iter(vals))
    return call("F." + key, vals.pop(first), **vals, reduction=red)


@register_rule("margin_ranking_loss")
def margin_ranking_loss_rule(key, level, args, kwargs):
    """torch.margin_ranking_loss: max(0, -target * (input1 - input2) + margin), its operands broadcast at the
    logical level, reduced per entry."""
    vals = _bound(key, args, kwargs)
    red = None if vals is None else _int_reduction(vals)
    x1, x2, target = (None, None, None) if vals is None else (vals["input1"], vals["input2"], vals["target"])
    if red is None or not all(is_tensor_like(t) for t in (x1, x2, target)):
        return fallback(key, level, args, kwargs)  # the op's own TypeError, per entry
    loss = call("add", call("mul", call("neg", target), call("sub", x1, x2)), vals["margin"])
    return _per_entry_reduce(call("clamp_min", loss, 0), red, level)


@register_rule("F.multi_margin_loss")
def multi_margin_loss_rule(key, level, args, kwargs):
    """F.multi_margin_loss: the batch folds into the samples (N), the loss runs with reduction='none' on the
    (B * N, C) rows, then reduces per entry."""
    vals = _bound(key, args, kwargs)
    if vals is None or vals["size_average"] is not None or vals["reduce"] is not None:
        return fallback(key, level, args, kwargs)
    x, target, weight, red = vals["input"], vals["target"], vals["weight"], vals["reduction"]
    if (
        red not in ("none", "mean", "sum")
        or not (is_tensor_like(x) and is_tensor_like(target))
        or _bt(weight, level)
    ):
        return fallback(key, level, args, kwargs)
    if x.dim() not in (1, 2) or target.dim() > 1 or target.numel() != (x.shape[0] if x.dim() == 2 else 1):
        return fallback(key, level, args, kwargs)  # the op's own errors, per entry
    size, c = _size(level), x.shape[-1]
    rows = call("Tensor.reshape", _physical(x, level), (-1, c))
    flat_t = call("Tensor.reshape", _physical(target, level), (-1,))
    loss = call(key, rows, flat_t, vals["p"], vals["margin"], weight, reduction="none")
    loss = BatchedTensor(
        call("Tensor.reshape", loss, (size,) + tuple(target.shape[:1]) * (x.dim() == 2 or target.dim())),
        level,
    )
    return _per_entry_reduce(loss, red, level)


def index_put_rule(key, level, args, kwargs):
    """Batching rule of index_put(_): the batch's own arange joins the (integer) indices as the first advanced
    index of the value, the indices and values padded to their logical ranks after the batch dim; bool masks
    (a count per entry) run per entry."""
    names = ("input", "indices", "values", "accumulate")
    vals = _by_names(names, args, kwargs)
    if vals is None:
        return fallback(key, level, args, kwargs)
    x, indices, values, acc = (
        vals["input"],
        vals.get("indices"),
        vals.get("values"),
        vals.get("accumulate", False),
    )
    inplace = key.endswith("_")
    if (
        not isinstance(indices, (tuple, list))
        or not indices
        or not all(is_tensor_like(i) and not i.is_floating_point() and i.dtype != _C.bool for i in indices)
        or not is_tensor_like(values)
        or inplace
        and not _bt(x, level)
    ):
        return fallback(
            key, level, args, kwargs
        )  # the op's errors (an in-place write into unbatched x), per entry
    rank = max(i.dim() for i in indices)
    size = _size(level)
    vx = x._value if _bt(x, level) else _physical(x, level)
    dev = x.device
    bidx = call("Tensor.reshape", call("arange", size, device=dev), (size,) + (1,) * rank)
    idx = (bidx,) + tuple(_padded(i, level, rank) if _bt(i, level) else i for i in indices)
    target_rank = rank + x.dim() - len(indices)
    v = _padded(values, level, target_rank) if _bt(values, level) else values
    if inplace:
        call("Tensor.index_put_", vx, idx, v, acc)
        return x
    return wrap(call("Tensor.index_put", vx, idx, v, acc), level)


@register_rule("F.gaussian_nll_loss")
def gaussian_nll_loss_rule(key, level, args, kwargs):
    """F.gaussian_nll_loss: a var of one dim fewer gets its trailing 1 at the logical level, then the
    elementwise losses' rule (the batch dim on every operand, reduction='none', reduced per entry). A batched
    var is refused as PyTorch refuses it (its negative-entries check is data-dependent control flow)."""
    vals = _bound(key, args, kwargs)
    if vals is None or vals["reduction"] not in ("none", "mean", "sum"):
        return fallback(key, level, args, kwargs)
    x, target, var = vals["input"], vals["target"], vals["var"]
    if not is_tensor_like(x) or not (is_tensor_like(var) or type(var) is float):
        return fallback(key, level, args, kwargs)
    if _bt(var, level):
        # PyTorch's `if torch.any(var < 0)`: data-dependent control flow on a batched var, refused in its words
        bool(call("any", call("lt", var, 0)))
    if is_tensor_like(var) and tuple(var.shape) != tuple(x.shape) and tuple(var.shape) == tuple(x.shape[:-1]):
        var = call("Tensor.unsqueeze", var, -1)
    return elementwise_loss_rule(
        key,
        level,
        (x, target, var),
        {"full": vals["full"], "eps": vals["eps"], "reduction": vals["reduction"]},
    )


@register_rule("F.triplet_margin_with_distance_loss")
def triplet_with_distance_rule(key, level, args, kwargs):
    """F.triplet_margin_with_distance_loss at the logical level: the distance function (a user's too) runs on
    the BatchedTensors, each of its ops by its own rule, then max(0, margin + d_pos - d_neg) reduced per entry."""
    vals = _bound(key, args, kwargs)
    if vals is None or vals["reduction"] not in ("none", "mean", "sum") or not vals["margin"] > 0:
        return fallback(key, level, args, kwargs)  # the op's ValueErrors, per entry
    a, pos, neg = vals["anchor"], vals["positive"], vals["negative"]
    if not all(is_tensor_like(t) for t in (a, pos, neg)) or not a.dim() == pos.dim() == neg.dim():
        return fallback(key, level, args, kwargs)
    dist = vals["distance_function"]
    if dist is None:
        dist = lambda x1, x2: call("F.pairwise_distance", x1, x2)
    d_pos, d_neg = dist(a, pos), dist(a, neg)
    if vals["swap"]:
        d_neg = call("minimum", d_neg, dist(pos, neg))
    loss = call("clamp_min", call("sub", call("add", d_pos, vals["margin"]), d_neg), 0)
    return _per_entry_reduce(loss, vals["reduction"], level)


@register_rule("norm_except_dim")
def composite_self_rule(key, level, args, kwargs):
    """Composites whose every step is a method, an operator or a public torch function with a rule: they run on
    the BatchedTensors themselves, each step by its own rule."""
    return _original(key)(*args, **kwargs)


@register_rule("pdist", "F.pdist")
def pdist_rule(key, level, args, kwargs):
    """pdist of each entry's (N, M) rows: the row pairs i < j picked by index_select (one shared index list),
    differences normed over the last dim (p = 0 counts min(ceil(|d|), 1), as PyTorch's kernel)."""
    x, p = args[0], _get(args, kwargs, 1, "p", 2.0)
    if (
        len(args) + len(kwargs) > 2
        or kwargs.keys() - {"input", "p"}
        or not _bt(x, level)
        or x.dim() != 2
        or not x.is_floating_point()
        or type(p) not in (int, float)
        or p < 0
    ):
        return fallback(key, level, args, kwargs)  # the op's own errors, per entry
    n = x.shape[0]
    if n < 2:  # no pairs: an empty result that still hangs off the input
        return call("Tensor.__getitem__", call("sum", x, 1), slice(0, 0))
    ij = _C.triu_indices(n, n, 1, device=x.device)
    d = call("sub", call("index_select", x, 0, ij[0]), call("index_select", x, 0, ij[1]))
    if p == 0:
        return call("sum", call("clamp_max", call("ceil", call("abs", d)), 1.0), -1)
    return call("Tensor.norm", d, p, 1)


@register_rule("histc", "Tensor.histc")
def histc_rule(key, level, args, kwargs):
    """histc of every entry at once: each entry's own range (its min and max when min == max), bins by
    PyTorch's linear interpolation in the input's dtype, counts by one scatter_add over the (B, bins) result."""
    x = args[0]
    vals = _bound("histc", args, kwargs)
    if vals is None or not _bt(x, level) or x.dtype not in (_C.float32, _C.float64, _C.float16, _C.bfloat16):
        return fallback(key, level, args, kwargs)
    bins, lo, hi = vals["bins"], vals["min"], vals["max"]
    if type(bins) is not int or bins <= 0 or type(lo) not in (int, float) or type(hi) not in (int, float):
        return fallback(key, level, args, kwargs)
    lo, hi = float(lo), float(hi)
    if lo > hi:
        return fallback(key, level, args, kwargs)  # the op's error, per entry
    v = call("Tensor.reshape", call("Tensor.detach", x._value), (_size(level), -1))
    dt, dev = x.dtype, x.device
    if lo == hi and v.shape[1]:
        lo_t, hi_t = call("amin", v, 1, True), call("amax", v, 1, True)
        same = call("eq", lo_t, hi_t)
        lo_t = call("where", same, call("sub", lo_t, 1), lo_t)
        hi_t = call("where", same, call("add", hi_t, 1), hi_t)
    else:
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        lo_t, hi_t = _C.full((), lo, dtype=dt, device=dev), _C.full((), hi, dtype=dt, device=dev)
    if isinstance(lo_t, _C.Tensor) and lo_t.dim() == 0:
        inside = call("logical_and", call("ge", v, lo), call("le", v, hi))  # Python bounds, as eager compares
    else:
        inside = call("logical_and", call("ge", v, lo_t), call("le", v, hi_t))
    b = call(
        "Tensor.to", call("div", call("mul", call("sub", v, lo_t), bins), call("sub", hi_t, lo_t)), _C.int64
    )
    b = call("clamp", call("masked_fill", b, call("logical_not", inside), 0), 0, bins - 1)
    acc = _C.float64 if dt == _C.float64 else _C.float32
    out = call("zeros", (_size(level), bins), dtype=acc, device=dev)
    return wrap(call("Tensor.to", call("scatter_add", out, 1, b, call("Tensor.to", inside, acc)), dt), level)


@register_rule("combinations")
def combinations_rule(key, level, args, kwargs):
    """combinations of each entry's elements: the index tuples are those of arange(n) (shared by the entries),
    gathered from each entry by one index_select."""
    vals = _bound(key, args, kwargs)
    x = args[0]
    if vals is None or not _bt(x, level) or x.dim() != 1 or type(vals["r"]) is not int or vals["r"] <= 0:
        return fallback(key, level, args, kwargs)  # r = 0's empty result and the op's errors, per entry
    r = vals["r"]
    idx = _original(key)(_C.arange(x.shape[0], device=x.device), r, vals["with_replacement"])
    picked = call("index_select", x, 0, idx.reshape(-1))
    return call("Tensor.reshape", picked, tuple(idx.shape))


@register_rule("linalg.tensorinv")
def tensorinv_rule(key, level, args, kwargs):
    """tensorinv at the logical level: each entry's square matrix view inverted by linalg.inv's rule."""
    vals = _bound(key, args, kwargs)
    if vals is None or vals["out"] is not None or type(vals["ind"]) is not int or vals["ind"] <= 0:
        return fallback(key, level, args, kwargs)
    A, ind = vals["A"], vals["ind"]
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    r = c = 1
    for s in rows:
        r *= s
    for s in cols:
        c *= s
    if r != c:
        return fallback(key, level, args, kwargs)  # the op's error, per entry
    inv = call("linalg.inv", call("Tensor.reshape", A, (r, c)))
    return call("Tensor.reshape", inv, cols + rows)


@register_rule("linalg.tensorsolve")
def tensorsolve_rule(key, level, args, kwargs):
    """tensorsolve at the logical level: A's dims permuted, both operands viewed as a system, linalg.solve's
    rule, the solution's view."""
    vals = _bound(key, args, kwargs)
    if vals is None or vals["out"] is not None or not all(is_tensor_like(vals[n]) for n in ("A", "B")):
        return fallback(key, level, args, kwargs)
    A, B, dims = vals["A"], vals["B"], vals["dims"]
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        A = call("Tensor.permute", A, [d for d in range(nd) if d not in dims] + dims)
    xshape = tuple(A.shape[B.dim() :])
    n = 1
    for s in xshape:
        n *= s
    sol = call("linalg.solve", call("Tensor.reshape", A, (-1, n)), call("Tensor.reshape", B, (-1,)))
    return call("Tensor.reshape", sol, xshape)


@register_rule("spmm")
def spmm_rule(key, level, args, kwargs):
    """spmm of strided operands is mm (its rule); a sparse operand runs per entry."""
    a, b = args[0], _get(args, kwargs, 1, "mat2")
    if len(args) + len(kwargs) != 2 or not (is_tensor_like(a) and is_tensor_like(b)):
        return fallback(key, level, args, kwargs)
    if any(t.is_sparse or t.is_sparse_csr for t in (a, b)):
        return fallback(key, level, args, kwargs)
    return call("mm", a, b)


@register_rule("tensor", "as_tensor", "asarray")
def tensor_factory_rule(key, level, args, kwargs):
    """torch.tensor/as_tensor/asarray of a batched tensor: the factory on the value (a copy or the same data,
    dtype and device as asked), batched at the same level; nested data holding batched tensors runs per entry."""
    data = args[0] if args else kwargs.get("data", kwargs.get("obj"))
    rest = [a for a in args[1:]] + [v for k, v in kwargs.items() if k not in ("data", "obj")]
    if not _bt(data, level) or any(_bt(a, level) for a in rest):
        return fallback(key, level, args, kwargs)
    kw = {k: v for k, v in kwargs.items() if k not in ("data", "obj")}
    return wrap(call(key, data._value, *args[1:], **kw), level)


@register_rule("is_same_size", "Tensor.is_same_size")
def is_same_size_rule(key, level, args, kwargs):
    """is_same_size compares the logical shapes: a Python bool, the same for every entry."""
    a, b = args[0], _get(args, kwargs, 1, "other")
    if not (is_tensor_like(a) and is_tensor_like(b)):
        return fallback(key, level, args, kwargs)
    return tuple(a.shape) == tuple(b.shape)


def _dtype_stand_in(x, level):
    """A tensor result_type sees as it sees x's entries: the dtype, and whether 0-d."""
    if not _bt(x, level):
        return x
    return _C.empty((0,) if x.dim() else (), dtype=x.dtype, device=x.device)


def result_type_rule(key, level, args, kwargs):
    """result_type depends on each operand's dtype and whether it is 0-d: an unbatched stand-in of the logical
    tensor answers the same (a dtype, the same for every entry)."""
    args = tuple(_dtype_stand_in(a, level) for a in args)
    kwargs = {k: _dtype_stand_in(v, level) for k, v in kwargs.items()}
    return call(key, *args, **kwargs)


@register_rule("svd_lowrank", "pca_lowrank")
def lowrank_rule(key, level, args, kwargs):
    """svd_lowrank/pca_lowrank draw a random basis: refused under randomness='error' (as PyTorch); with
    'different' the op's own batched form on the values draws one basis per entry; 'same' replays the
    generator state per entry."""
    mode = _randomness(level)
    if mode == "same":
        return _same_by_replay(key, level, args, kwargs)
    vals = _bound(key, args, kwargs)
    if vals is None:
        return fallback(key, level, args, kwargs)
    first = next(iter(vals))
    for n, v in vals.items():
        if is_tensor_like(v) and v.dim() < 2:
            return fallback(key, level, args, kwargs)  # the op's errors, per entry
        if is_tensor_like(v):
            vals[n] = _physical(v, level)
    return wrap(call(key, vals.pop(first), **vals), level)


@register_rule("lobpcg")
def lobpcg_rule(key, level, args, kwargs):
    """lobpcg with no initial X draws one at random: refused under randomness='error' (as PyTorch); with an X,
    or another randomness, it runs per entry (its iterations branch on each entry's values)."""
    vals = _bound(key, args, kwargs)
    if vals is not None and vals["X"] is None:
        _randomness(level)
    return fallback(key, level, args, kwargs)


# ----------------------------------------------------------------------------------------------- the schema's


_SPELLINGS = re.compile(r"([a-z_0-9]+)(?:\[([a-z_ ]*)\])?")


def _returning_self(rule):
    """An in-place form of a rule that calls the op on the value: the write lands in self's value, and the
    result is self itself, as the in-place method's."""

    def inplace(key, level, args, kwargs):
        rule(key, level, args, kwargs)
        return args[0]

    return inplace


def _register_schema_rules():
    """The batching rules csrc/ops/ops.schema declares with each op (`vmap:`, a Python expression over this
    module's rules; elementwise kinds default to pointwise, which also covers their in-place forms), under every
    spelling of the op."""
    declared = {name: value for name, key, value in _C._op_schema_rules() if key == "vmap"}
    for kind, name, _functor, _rule, variants, aliases, *_ in _C._op_schema():
        expr = declared.get(name, "pointwise" if kind in ("unary", "binary") else None)
        if expr == "private" or expr is None:  # None: a `rules: python` func, whose rule is registered here
            continue
        rule = eval(expr, globals())  # the schema's own text, compiled into _C
        if rule is random_factory:  # drawn by _vmap's randomness mode; a batched number argument is refused
            RANDOM_FACTORIES.add(name)
            rule = no_tensor
        spellings = [(name, variants.split())]
        spellings += [(a, v.split() if v else variants.split()) for a, v in _SPELLINGS.findall(aliases)]
        for spelling, forms in spellings:
            register_rule(spelling)(rule)
            if rule is pointwise and ("inplace" in forms or "torch_inplace" in forms):
                register_rule(spelling + "_", "Tensor." + spelling + "_")(pointwise)
            elif "inplace" in forms and "Tensor." + spelling + "_" not in RULES:
                # the rule runs the method on the value (tril_/triu_ write each entry's trailing dims)
                register_rule("Tensor." + spelling + "_")(_returning_self(rule))


# ----------------------------------------------------------------------------------------------- dynamic shapes
# Ops whose result's shape depends on the values: each batch entry would have its own, so vmap refuses them with
# PyTorch's words (a loop over entries would stack them only when the shapes happen to agree, and where(cond)
# was taken for a pointwise where)

_DYNAMIC_ATEN = {
    "nonzero": "aten::nonzero",
    "unique": "aten::_unique2",
    "unique_consecutive": "aten::unique_consecutive",
}


def _dynamic_shape(aten):
    return RuntimeError(
        "vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap over "
        f"{aten}. Please file an issue at https://github.com/pytorch/pytorch/issues if you need this feature."
    )


# (nonzero's rule is declared in ops.schema: `vmap: dynamic_shape_rule`)
@register_rule(
    *(n for n in _DYNAMIC_ATEN if n != "nonzero"), *("Tensor." + n for n in _DYNAMIC_ATEN if n != "nonzero")
)
def dynamic_shape_rule(key, level, args, kwargs):
    """nonzero, unique, unique_consecutive: refused (their output shape differs per entry)."""
    base = _base(key)
    if base == "nonzero" and _get(args, kwargs, 1, "as_tuple", False):
        raise RuntimeError(
            "Batching rule not implemented for aten::nonzero_numpy. We could not generate a fallback."
        )
    raise _dynamic_shape(_DYNAMIC_ATEN[base])


@register_rule("equal", "Tensor.equal", "allclose", "Tensor.allclose")
def bool_reduction_rule(key, level, args, kwargs):
    """equal and allclose answer one Python bool for the whole call, which a batch cannot: refused in
    PyTorch's words (its aten::equal has no rule, its allclose a message of its own)."""
    if _base(key) == "equal":
        raise RuntimeError("Batching rule not implemented for aten::equal. We could not generate a fallback.")
    raise RuntimeError(
        "vmap over torch.allclose isn't supported yet. Please file an issue at "
        "https://github.com/pytorch/pytorch/issues if you need this feature."
    )


def where_rule(key, level, args, kwargs):
    """where(cond, x, y) is pointwise; where(cond) alone (nonzero as a tuple) is refused."""
    if len(args) + len(kwargs) == 1:
        raise _dynamic_shape("aten::where")
    return pointwise(key, level, args, kwargs)


@register_rule("Tensor.type_as", "Tensor.to")
def conversion_rule(key, level, args, kwargs):
    """A conversion reads only the dtype and device of a tensor argument: an unbatched self converts to a result
    that is unbatched too (w.type_as(x) in vmap); a batched self is pointwise."""
    if _bt(args[0], level):
        return pointwise(key, level, args, kwargs)
    args = tuple(a._value if _bt(a, level) else a for a in args)
    kwargs = {k: v._value if _bt(v, level) else v for k, v in kwargs.items()}
    return call(key, *args, **kwargs)


def masked_select_rule(key, level, args, kwargs):
    """A batched mask is refused (each entry would select its own count); a batched input with a shared mask
    selects the same count from every entry."""
    mask = _get(args, kwargs, 1, "mask")
    if _bt(mask, level):
        raise RuntimeError(
            "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support this because "
            "for each batch this would return a differently shaped Tensor. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues if you need this feature."
        )
    from minitorch.functional import broadcast_shapes

    vx = _physical(args[0], level)
    shape = tuple(broadcast_shapes(tuple(vx.shape[1:]), tuple(mask.shape)))
    vx = _pad(
        vx, len(shape) - (vx.dim() - 1)
    )  # the logical dims line up from the right, as broadcasting does
    return wrap(vx.expand(vx.shape[0], *shape)[:, mask.expand(*shape)], level)


# ----------------------------------------------------------------------------------------------- registration
# last, so that a schema row may name any rule of this module (a rule defined below the registration was a
# NameError at import: masked_select_rule, dynamic_shape_rule)

# the rules registered by the code above, which must not name an op of the schema (tests/func/test_vmap.py)
PYTHON_KEYS = frozenset(RULES)
_register_schema_rules()
