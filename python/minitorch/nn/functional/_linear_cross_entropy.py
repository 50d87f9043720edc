"""F.linear_cross_entropy: cross entropy of a linear layer's logits, and its chunked path
(LinearCrossEntropyOptions) that runs the batch in pieces with the gradients computed on the way, so the
(batch, num_classes) logits of a large vocabulary head are never held whole."""

from __future__ import annotations

import dataclasses
import warnings

from minitorch import _C
from minitorch.autograd import Function
from minitorch.nn.functional._activation import log_softmax
from minitorch.nn.functional._linear import linear
from minitorch.nn.functional._loss import cross_entropy

__all__ = ["LinearCrossEntropyOptions", "linear_cross_entropy"]

_ACC_POLICIES = ("auto", "accurate", "compact")


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """Options of the chunked linear_cross_entropy (PyTorch's fields and checks).

    batch_chunk_size: rows per chunk (None: by chunking_method, else one chunk). chunking_method: "auto" (=
    "aspect_ratio", capped so the chunked peak stays under the reference's), "aspect_ratio[:N]" (a chunk's
    logits as large as the input, divided by N) or None (batch_chunk_size as given). acc_policy / acc_dtype:
    the dtype the logits and gradients are accumulated in (float32 for half inputs by default).
    allow_retain_graph: keep the precomputed gradients so backward can run twice."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(
                f"invalid acc_policy: {self.acc_policy!r}; expected one of {', '.join(map(repr, _ACC_POLICIES))}"
            )
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (
            self.batch_chunk_size is None
            or (
                isinstance(self.batch_chunk_size, int)
                and not isinstance(self.batch_chunk_size, bool)
                and self.batch_chunk_size > 0
            )
        ):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (
            _C.float16,
            _C.bfloat16,
            _C.float32,
            _C.float64,
        ):
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, torch.float64}, "
                f"got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick automatically."
            )

    def _chunk_rows(self, num_batches, in_features, num_classes):
        """Rows per chunk for this call (PyTorch's resolution of "auto" for class-index targets)."""
        method = self.chunking_method
        was_auto = method == "auto"
        if was_auto and self.batch_chunk_size is not None:
            method = None  # an explicit size wins over the automatic one
        if method == "auto":
            method = "aspect_ratio"
        rows = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if method is not None:
            factor = int(method.split(":", 1)[1]) if ":" in method else 1
            # a chunk's (rows, num_classes) logits about as large as the (num_batches, in_features) input
            target = -(-num_batches // -(-num_classes // in_features))
            rows = min((1 << (target - 1).bit_length()) // factor, num_batches)
            if was_auto:
                # when in_features >= num_classes one chunk would exceed the reference's peak: cap it
                ref = num_batches * num_classes // (4 * in_features)
                ref = 1 << (ref.bit_length() - 1) if ref >= 1 else 1
                rows = max(1, min(rows, ref))
            if self.batch_chunk_size is not None and self.batch_chunk_size != rows:
                raise ValueError(
                    f"batch_chunk_size={self.batch_chunk_size} conflicts with chunking_method="
                    f"{self.chunking_method!r} (which gives {rows}); set one of them"
                )
        return max(rows, 1)

    def _acc_dtype(self, dtype):
        """The accumulation dtype for inputs of `dtype`."""
        if self.acc_dtype is not None:
            return self.acc_dtype
        return _C.float32 if dtype in (_C.float16, _C.bfloat16) else dtype


def linear_cross_entropy(
    input,
    linear_weight,
    target,
    *,
    linear_bias=None,
    weight=None,
    reduction="mean",
    ignore_index=None,
    label_smoothing=0.0,
    options=None,
):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...), linear_weight (C, [d_1..d_K,]
    in_features). options=None: that composition (every autograd feature works through it); options a
    LinearCrossEntropyOptions: the chunked path for class-index targets of a 2-D input with a (C,) bias or
    none, other calls fall back to the composition with a warning."""
    if options is not None and not isinstance(options, LinearCrossEntropyOptions):
        raise TypeError(f"options must be a LinearCrossEntropyOptions or None, got {type(options).__name__}")
    # PyTorch's checks, in its order, before the target is read
    if not 1 <= input.dim() <= 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}"
        )
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(
            f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}"
        )
    if out_features and input.dim() == 1:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires batched "
            f"input, (N, {input.shape[-1]}), got unbatched input with shape {tuple(input.shape)}"
        )
    if tuple(target.shape) == (*input.shape[:-1], classes, *out_features) and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    index_target = not target.is_floating_point()
    ignore = -100 if ignore_index is None else ignore_index
    if options is not None:
        why = None
        if not index_target:
            why = "probability targets"
        elif linear_weight.dim() != 2:
            why = "a multi-dimensional linear_weight (K-dimensional loss)"
        elif input.dim() != 2 or target.dim() != 1:
            why = "an input that is not (N, in_features) with a target (N)"
        elif linear_bias is not None and linear_bias.dim() != 1:
            why = "a multi-dimensional linear_bias"
        elif reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
        if why is None:
            return _chunked(
                input, linear_weight, linear_bias, target, weight, reduction, ignore, label_smoothing, options
            )
        warnings.warn(
            f"linear_cross_entropy: the chunked path does not take {why}; running the reference implementation",
            UserWarning,
            stacklevel=2,
        )
    C, *out_features, in_features = linear_weight.shape
    logits = linear(
        input,
        linear_weight.reshape(-1, in_features),
        None if linear_bias is None else linear_bias.reshape(-1),
    )
    logits = logits.reshape(*input.shape[:-1], C, *out_features)
    return cross_entropy(
        logits, target, weight, ignore_index=ignore, reduction=reduction, label_smoothing=label_smoothing
    )


def _chunk_terms(z, t, class_w, ignore, eps, acc):
    """One chunk's per-row losses and d(loss)/d(logits), both unnormalized (the reduction's divisor applies
    later): loss = (1 - eps) w_y (-log p_y) + eps / C * sum_c w_c (-log p_c), its gradient (1 - eps) w_y (p -
    onehot_y) + eps / C * (sum(w) p - w); ignored rows give zeros."""
    z = z.to(acc)
    C = z.shape[1]
    logp = log_softmax(z, 1)
    p = logp.exp()
    valid = t.ne(ignore)
    ts = t * valid  # ignored rows read class 0, then count for nothing
    wy = (
        _C.ones(t.shape, dtype=acc, device=z.device)
        if class_w is None
        else class_w.to(acc).index_select(0, ts)
    )
    wy = wy * valid.to(acc)
    loss = (1 - eps) * wy * -(logp.gather(1, ts.unsqueeze(1)).squeeze(1))
    onehot = _C.zeros_like(z).scatter_(1, ts.unsqueeze(1), 1.0)
    grad = (1 - eps) * wy.unsqueeze(1) * (p - onehot)
    if eps:
        w = _C.ones((C,), dtype=acc, device=z.device) if class_w is None else class_w.to(acc)
        v = valid.to(acc).unsqueeze(1)
        loss = loss + eps / C * -((logp * w).sum(1)) * valid.to(acc)
        grad = grad + eps / C * (w.sum() * p - w) * v
    return loss, grad


def _run_chunks(input, W, b, target, class_w, ignore, eps, acc, rows, scale):
    """The per-row losses, chunk by chunk, and with `scale` (None: no gradients; a 0-dim tensor; or one value
    per row) the gradients of sum_i scale_i * loss_i with respect to input, W and b, all in dtype acc (the
    chunk's logits are computed there too: PyTorch's "accurate" policy)."""
    Wa = W.to(acc)
    ba = None if b is None else b.to(acc)
    if scale is not None:
        g_in = _C.empty(input.shape, dtype=acc, device=input.device)
        g_w = _C.zeros(W.shape, dtype=acc, device=W.device)
        g_b = None if b is None else _C.zeros(b.shape, dtype=acc, device=W.device)
    losses = []
    for s in range(0, input.shape[0], rows):
        x = input[s : s + rows].to(acc)
        loss, g = _chunk_terms(linear(x, Wa, ba), target[s : s + rows], class_w, ignore, eps, acc)
        losses.append(loss)
        if scale is None:
            continue
        g = g * (scale if scale.dim() == 0 else scale[s : s + rows].unsqueeze(1))
        g_in[s : s + rows] = g.mm(Wa)
        g_w.addmm_(g.t(), x)
        if g_b is not None:
            g_b.add_(g.sum(0))
    loss = _C.cat(losses) if losses else _C.zeros((0,), dtype=acc, device=input.device)
    return loss, (None if scale is None else (g_in, g_w, g_b))


class _ChunkedLinearCrossEntropy(Function):
    @staticmethod
    def forward(ctx, input, W, b, target, class_w, reduction, ignore, eps, options):
        acc = options._acc_dtype(input.dtype)
        rows = options._chunk_rows(input.shape[0], input.shape[1], W.shape[0])
        scale = None  # reduction="none": backward recomputes with the incoming per-row gradient
        if reduction == "mean":
            valid = target.ne(ignore).to(acc)
            wy = (
                valid
                if class_w is None
                else class_w.to(acc).index_select(0, target * target.ne(ignore)) * valid
            )
            scale = 1.0 / wy.sum()
        elif reduction == "sum":
            scale = _C.ones((), dtype=acc, device=input.device)
        loss, grads = _run_chunks(input, W, b, target, class_w, ignore, eps, acc, rows, scale)
        ctx.dtypes = (input.dtype, W.dtype, None if b is None else b.dtype)
        ctx.grads = grads  # done already for a scalar loss: backward scales them by the incoming gradient
        ctx.recompute = grads is None
        if ctx.recompute:
            ctx.save_for_backward(input, W, b, target, class_w)
            ctx.args = (ignore, eps, acc, rows)
        else:
            ctx.keep = options.allow_retain_graph
            loss = loss.sum() * scale
        return loss.to(input.dtype)

    @staticmethod
    def backward(ctx, grad):
        if ctx.recompute:
            input, W, b, target, class_w = ctx.saved_tensors
            ignore, eps, acc, rows = ctx.args
            _, grads = _run_chunks(input, W, b, target, class_w, ignore, eps, acc, rows, grad.to(acc))
        else:
            if ctx.grads is None:
                raise RuntimeError(
                    "linear_cross_entropy's chunked backward consumed its precomputed gradients: backward through "
                    "it a second time needs LinearCrossEntropyOptions(allow_retain_graph=True)"
                )
            grads = [None if g is None else g * grad.to(g.dtype) for g in ctx.grads]
            if not ctx.keep:
                ctx.grads = None
        out = [None if g is None else g.to(dt) for g, dt in zip(grads, ctx.dtypes)]
        return (*out, None, None, None, None, None, None)


def _chunked(input, W, b, target, class_w, reduction, ignore, eps, options):
    if W.shape[1] != input.shape[1]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x{input.shape[1]} and "
            f"{W.shape[1]}x{W.shape[0]})"
        )
    if target.shape[0] != input.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]})."
        )
    if target.dtype != _C.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype}")
    bad = target.ne(ignore).logical_and(target.lt(0).logical_or(target.ge(W.shape[0])))
    if bool(bad.any()):
        raise IndexError(f"Target {int(target[bad][0])} is out of bounds.")
    if not 0.0 <= eps <= 1.0:  # NaN included
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {eps}")
    return _ChunkedLinearCrossEntropy.apply(
        input, W, b, target, class_w, reduction, ignore, float(eps), options
    )
