"""nn.functional.ctc_loss: the connectionist temporal classification loss (Graves et al. 2006). On the CPU the
kernel behind _C._ctc_loss (one sample per task, PyTorch's _ctc_loss and its backward); elsewhere the forward
(alpha) and backward (beta) recursions in log space over all samples of the batch at once, in ops."""

import math

from minitorch import _C, _argcheck, _creation
from minitorch._dtype_names import scalar_name
from minitorch._ops import where
from minitorch.autograd import Function
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.functional._loss import _loss_reduction

_NEG_INF = -math.inf


def _lengths(value, name, batch):
    if isinstance(value, _C.Tensor):
        if value.is_floating_point() or value.is_complex() or value.dtype == _C.bool:
            raise RuntimeError(f"{name} must be integral")
        values = [int(v) for v in value.reshape(-1).tolist()]
    else:
        values = [int(v) for v in value]
    if len(values) != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return values


class _CTC(Function):
    """Per-sample negative log-likelihoods (N,) and, on backward, PyTorch's gradient: exp(log_probs) minus the
    posterior occupancy of each class at each frame (zero past a sample's input length)."""

    @staticmethod
    def forward(ctx, log_probs, ext, skip, input_lengths, target_lengths, zero_infinity):
        t_max, n, _ = log_probs.shape
        lp = log_probs.detach()
        width = ext.shape[1]
        idx = ext.unsqueeze(0).expand(t_max, n, width)
        emit = _C.gather(lp, 2, idx)  # (T, N, L): each frame's log-probability of each extended label
        pos = _C.arange(width, device=lp.device).unsqueeze(0)
        ends = _creation.tensor([2 * s for s in target_lengths], device=lp.device).unsqueeze(1)
        valid = pos <= ends  # extended positions inside each sample's own target
        emit = where(valid, emit, _NEG_INF)  # positions past a sample's target are never reached
        skip_pen = where(skip, 0.0, _NEG_INF)  # the two-back transition, allowed or not
        # alpha[t] in buf[t, :, 2:], behind two columns of -inf: the one- and two-back reads are views, and a
        # frame costs five ops (the fixed per-op cost dominates short sequences)
        buf = _C.full((t_max, n, width + 2), _NEG_INF, dtype=lp.dtype, device=lp.device)
        buf[0, :, 2:] = where(pos < 2, emit[0], _NEG_INF)
        for t in range(1, t_max):
            prev = buf[t - 1]
            three = _C.stack([prev[:, 2:], prev[:, 1:-1], prev[:, :-2] + skip_pen])
            buf[t, :, 2:] = _C.logsumexp(three, 0) + emit[t]
        alpha_all = buf[:, :, 2:]  # (T, N, L)
        last_t = _creation.tensor([max(t - 1, 0) for t in input_lengths], device=lp.device)
        final = alpha_all[last_t, _C.arange(n, device=lp.device)]  # (N, L) at each sample's last frame
        e = ends.squeeze(1)
        a_end = final.gather(1, e.unsqueeze(1)).squeeze(1)
        a_prev = final.gather(1, (e - 1).clamp(min=0).unsqueeze(1)).squeeze(1)
        a_prev = where(e > 0, a_prev, _NEG_INF)
        nll = -_C.logaddexp(a_end, a_prev)
        empty_input = _creation.tensor([t == 0 for t in input_lengths], device=lp.device)
        # an empty input explains only an empty target (probability 1)
        nll = where(empty_input, where(e == 0, 0.0, math.inf), nll)
        infinite = nll == math.inf  # no alignment: the target is too long for the input
        ctx.save_for_backward(lp, emit, alpha_all, nll, infinite)
        ctx.state = (idx, skip, pos, ends, input_lengths, zero_infinity)
        return where(infinite, 0.0, nll) if zero_infinity else nll

    @staticmethod
    def backward(ctx, grad_nll):
        lp, emit, alpha_all, nll, infinite = ctx.saved_tensors
        idx, skip, pos, ends, input_lengths, zero_infinity = ctx.state
        t_max, n, classes = lp.shape
        width = idx.shape[2]
        with no_grad():
            lengths = _creation.tensor(input_lengths, device=lp.device).unsqueeze(1)
            # a label may jump two positions forward (skip at s + 2 allows s -> s + 2)
            skip_next = _C.cat([skip[:, 2:], _C.zeros(n, 2, dtype=_C.bool, device=lp.device)], 1)
            skip_pen = where(skip_next, 0.0, _NEG_INF)
            # a sample's recursion starts at its own last frame, from its last two positions (emit is -inf
            # past a sample's target already)
            start = where(pos >= ends - 1, emit, _NEG_INF)
            # beta[t] in buf[t, :, :L], ahead of two columns of -inf (rows past a sample's length stay -inf)
            buf = _C.full((t_max, n, width + 2), _NEG_INF, dtype=lp.dtype, device=lp.device)
            for t in range(t_max - 1, -1, -1):
                last = lengths - 1 == t
                if t == t_max - 1:
                    buf[t, :, :width] = where(last, start[t], _NEG_INF)
                    continue
                nxt = buf[t + 1]
                three = _C.stack([nxt[:, :width], nxt[:, 1 : width + 1], nxt[:, 2:] + skip_pen])
                buf[t, :, :width] = where(last, start[t], _C.logsumexp(three, 0) + emit[t])
            beta_all = buf[:, :, :width]
            # posterior occupancy of extended position s at frame t, gathered onto its class
            occ = (alpha_all + beta_all - emit + nll.reshape(1, n, 1)).exp()
            occ = where(occ.isnan(), 0.0, occ)
            per_class = _C.zeros(t_max, n, classes, dtype=lp.dtype, device=lp.device)
            per_class = per_class.scatter_add(2, idx, occ)
            grad = lp.exp() - per_class
            # an impossible sample's gradient is NaN, or zero under zero_infinity (PyTorch's), up to its length
            grad = where(infinite.reshape(1, n, 1), 0.0 if zero_infinity else math.nan, grad)
            frames = _C.arange(t_max, device=lp.device).reshape(t_max, 1, 1)
            grad = where(frames < lengths.reshape(1, n, 1), grad, 0.0)
            grad = grad * grad_nll.reshape(1, n, 1)
        return grad, None, None, None, None, None


# torch.ctc_loss's two overloads (torch's spelling shares them: _nn_ops.ctc_loss)
CTC_SIGNATURES = [
    _argcheck._signature(
        f"Tensor log_probs, Tensor targets, {kind} input_lengths, {kind} target_lengths, int blank=0, "
        "int reduction=at::Reduction::Mean, bool zero_infinity=False"
    )
    for kind in ("int[]", "Tensor")
]


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False
):
    """The CTC loss of log-probabilities (T, N, C) or (T, C) against padded (N, S) or concatenated targets."""
    reduction = _loss_reduction(None, None, reduction)
    # PyTorch's F.ctc_loss hands every argument by position to torch.ctc_loss, whose parser takes both lengths
    # as int lists or both as tensors
    red = {"none": 0, "mean": 1, "sum": 2}[reduction]
    args = (log_probs, targets, input_lengths, target_lengths, blank, red, zero_infinity)
    _argcheck.check_call("ctc_loss", CTC_SIGNATURES, args, {})
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
        input_lengths = input_lengths.reshape(1) if isinstance(input_lengths, _C.Tensor) else input_lengths
        target_lengths = (
            target_lengths.reshape(1) if isinstance(target_lengths, _C.Tensor) else target_lengths
        )
    if log_probs.dim() != 3:
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional tensor for argument #1 "
            "'log_probs' (while checking arguments for ctc_loss_allocate_outputs)"
        )
    t_max, n, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    ins = _lengths(input_lengths, "input_lengths", n)
    outs = _lengths(target_lengths, "target_lengths", n)
    if log_probs.device.type == "cpu":  # the kernel, with PyTorch's checks of the lengths and targets
        if targets.dtype != _C.int64 and targets.dtype != _C.int32:
            targets = targets.long()
        nll = _C._ctc_loss(log_probs, targets, ins, outs, blank, zero_infinity)[0]
        if zero_infinity:  # the kernel keeps inf (its gradient is zero there); the loss reads 0, as PyTorch's
            nll = where(nll == math.inf, 0.0, nll)
        return _reduce(nll, outs, reduction, unbatched)
    for v in ins:
        if v > t_max:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {t_max}, but got value {v} (while checking "
                "arguments for ctc_loss_allocate_outputs)"
            )
    if log_probs.dtype != _C.float32 and log_probs.dtype != _C.float64:
        raise NotImplementedError(
            f"\"ctc_loss_{log_probs.device.type}\" not implemented for '{scalar_name(log_probs.dtype)}'"
        )
    if log_probs.is_meta or targets.is_meta:  # the alignment reads the targets: the loss's shape alone
        return _reduce(
            _C.empty((n,), dtype=log_probs.dtype, device=log_probs.device), outs, reduction, unbatched
        )
    targets = targets.long() if targets.dtype != _C.int64 else targets
    if targets.dim() == 1:  # concatenated targets
        if targets.numel() != sum(outs):
            raise RuntimeError(
                f"Expected tensor to have size {sum(outs)} at dimension 0, but got size {targets.numel()}"
                " for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)"
            )
        rows, offset = [], 0
        flat = targets.tolist()
        for length in outs:
            rows.append(flat[offset : offset + length])
            offset += length
    else:
        longest = max(outs, default=0)
        if targets.shape[1] < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size {targets.shape[1]}"
                " for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)"
            )
        table = targets.tolist()
        rows = [table[i][:length] for i, length in enumerate(outs)]
    width = 2 * max(outs, default=0) + 1
    ext_rows, skip_rows = [], []
    for row in rows:
        ext = [blank] * width
        skip = [False] * width
        for j, label in enumerate(row):
            if not 0 <= label < classes:
                raise IndexError(f"target label {label} is out of range for {classes} classes")
            ext[2 * j + 1] = label
            skip[2 * j + 1] = j > 0 and row[j - 1] != label
        ext_rows.append(ext)
        skip_rows.append(skip)
    ext = _creation.tensor(ext_rows, dtype=_C.int64, device=log_probs.device).reshape(n, width)
    skip = _creation.tensor(skip_rows, dtype=_C.bool, device=log_probs.device).reshape(n, width)
    nll = _CTC.apply(log_probs, ext, skip, ins, outs, zero_infinity)
    return _reduce(nll, outs, reduction, unbatched)


def _reduce(nll, outs, reduction, unbatched):
    if reduction == "mean":
        denom = _creation.tensor([max(v, 1) for v in outs], dtype=nll.dtype, device=nll.device)
        loss = (nll / denom).mean()
    elif reduction == "sum":
        loss = nll.sum()
    else:
        loss = nll
    return loss.squeeze(0) if unbatched and reduction == "none" else loss
