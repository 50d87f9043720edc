"""Autograd functions behind DataParallel (PyTorch's nn/parallel/_functions.py): Broadcast, Scatter, Gather."""

import warnings

from minitorch import _C
from minitorch.autograd.function import Function


def _device(d):
    """A device object for a DataParallel device entry: an int is a CUDA index, 'cpu' the CPU (minitorch)."""
    if isinstance(d, int):
        return _C.device("cuda", d)
    d = _C.device(d)
    if d.type == "cuda" and d.index is None:
        from minitorch import cuda

        return _C.device("cuda", cuda.current_device())
    return d


def _to(t, device):
    # non_blocking only toward a GPU (ordered on its stream): a non-blocking copy to the CPU returns before the
    # data has landed, and a CPU replica would read it at once
    return t.to(device, non_blocking=device.type == "cuda")


def _copy_to(t, device, alias):
    """t on device; when t is already there, t itself (alias) or a fresh copy (a replica that must not share
    it, such as a second replica on the same device that updates its buffers in place)."""
    if t.device == device:
        return t if alias else t.clone()
    return _to(t, device)


def broadcast(tensors, devices, alias_same_device=True):
    """One tuple of copies of `tensors` per device; devices[0]'s are the tensors themselves (as
    comm.broadcast_coalesced), later ones on the same device alias or copy as `alias_same_device` says."""
    return [
        tuple(t if j == 0 else _copy_to(t, d, alias_same_device) for t in tensors)
        for j, d in enumerate(devices)
    ]


class Broadcast(Function):
    """Copies tensors to every device; backward sums the copies' gradients onto the source (ReduceAddCoalesced),
    which is how gradients of every replica accumulate into the original parameters."""

    @staticmethod
    def forward(ctx, target_devices, *inputs):
        if not all(i.device == inputs[0].device for i in inputs):
            raise RuntimeError("Broadcast function not implemented for tensors on different devices")
        target_devices = [_device(d) for d in target_devices]
        ctx.target_devices = target_devices
        if len(inputs) == 0:
            return ()
        ctx.num_inputs = len(inputs)
        ctx.input_device = inputs[0].device
        outputs = broadcast(inputs, target_devices)
        return tuple(t for tensors in outputs for t in tensors)

    @staticmethod
    def backward(ctx, *grad_outputs):
        n = ctx.num_inputs
        grads = []
        for i in range(n):
            total = None
            for g in grad_outputs[i::n]:
                if g is None:
                    continue
                g = g.to(ctx.input_device)
                total = g if total is None else total + g
            grads.append(total)
        return (None, *grads)


class Gather(Function):
    """Concatenates the replicas' outputs on the target device along dim; backward scatters the gradient back."""

    @staticmethod
    def forward(ctx, target_device, dim, *inputs):
        target_device = _device(target_device)
        ctx.target_device = target_device
        ctx.dim = dim
        ctx.input_devices = tuple(i.device for i in inputs)
        if all(t.dim() == 0 for t in inputs) and dim == 0:
            inputs = tuple(t.view(1) for t in inputs)
            warnings.warn(
                "Was asked to gather along dimension 0, but all input tensors were scalars; will instead "
                "unsqueeze and return a vector.",
                stacklevel=2,
            )
            ctx.unsqueezed_scalar = True
        else:
            ctx.unsqueezed_scalar = False
        ctx.input_sizes = tuple(i.size(ctx.dim) for i in inputs)
        return _C.cat([t.to(target_device) for t in inputs], ctx.dim)

    @staticmethod
    def backward(ctx, grad_output):
        scattered_grads = Scatter.apply(ctx.input_devices, ctx.input_sizes, ctx.dim, grad_output)
        if not isinstance(scattered_grads, tuple):
            scattered_grads = tuple(scattered_grads)
        if ctx.unsqueezed_scalar:
            scattered_grads = tuple(g[0] for g in scattered_grads)
        return (None, None, *scattered_grads)


class Scatter(Function):
    """Splits a tensor along dim into one chunk per device (PyTorch's chunk rule, or the given chunk_sizes) and
    moves each to its device; backward gathers the gradients back onto the input's device."""

    @staticmethod
    def forward(ctx, target_devices, chunk_sizes, dim, input):
        target_devices = [_device(d) for d in target_devices]
        ctx.dim = dim
        ctx.input_device = input.device
        if chunk_sizes is None:
            chunks = input.chunk(len(target_devices), dim)
        else:
            chunk_sizes = list(chunk_sizes)
            if sum(chunk_sizes) != input.size(dim):
                raise RuntimeError(
                    f"Expected chunk sizes to sum to {input.size(dim)} (the size of dimension {dim}), "
                    f"but got {sum(chunk_sizes)}"
                )
            chunks = input.split(chunk_sizes, dim)
        outputs = tuple(_to(c, d) for c, d in zip(chunks, target_devices))
        ctx.output_shapes = tuple((o.shape, o.device, o.dtype) for o in outputs)
        return outputs

    @staticmethod
    def backward(ctx, *grad_output):
        # a replica whose output did not reach the loss sends no gradient: its slice of the input gets zeros
        grads = [
            g if g is not None else _C.zeros(shape, device=dev, dtype=dtype)
            for g, (shape, dev, dtype) in zip(grad_output, ctx.output_shapes)
        ]
        return None, None, None, Gather.apply(ctx.input_device, ctx.dim, *grads)
