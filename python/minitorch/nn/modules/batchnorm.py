"""BatchNorm1d/2d/3d: batch statistics in training, running statistics (momentum or cumulative) in eval."""

from minitorch import _C
from minitorch import distributed as dist
from minitorch.autograd import Function
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.modules.lazy import LazyModuleMixin
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "SyncBatchNorm",
]


class _NormBase(Module):
    """What BatchNorm and InstanceNorm share (as PyTorch's _NormBase): per-channel affine parameters and the
    running statistics, their initialization, printing and old-checkpoint loading."""

    _version = 2

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_C.empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(_C.empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", _C.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", _C.zeros((), dtype=_C.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        # checkpoints from before num_batches_tracked existed (version < 2) load with a zero counter
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else _C.zeros((), dtype=_C.int64)
                )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class _BatchNorm(_NormBase):
    def _check_input_dim(self, input):
        raise NotImplementedError

    def _batch_step(self):
        """Counts a training batch and returns what F.batch_norm takes besides the input and parameters: the
        running statistics' update factor (momentum, or 1/n for a cumulative average), whether the batch's own
        statistics normalize, and the running buffers it reads or updates (None where it does neither)."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        buffers = not self.training or self.track_running_stats
        return (
            factor,
            bn_training,
            self.running_mean if buffers else None,
            self.running_var if buffers else None,
        )

    def forward(self, input):
        self._check_input_dim(input)
        factor, bn_training, running_mean, running_var = self._batch_step()
        return F.batch_norm(
            input, running_mean, running_var, self.weight, self.bias, bn_training, factor, self.eps
        )


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(
        self,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(0, eps, momentum, False, False, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.register_buffer("running_mean", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("running_var", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", _C.zeros((), dtype=_C.int64, device=device))

    def reset_parameters(self):
        """BatchNorm's initialization, once num_features is known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Reads num_features from the input's dim 1 and materializes the parameters and running stats."""
        if self.has_uninitialized_params() or self.num_features == 0:
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    # .to()/.cuda() before the first call replaced the buffer placeholders by empty tensors
                    for name in ("running_mean", "running_var"):
                        old = self._buffers[name]
                        self._buffers[name] = _C.empty(self.num_features, device=old.device, dtype=old.dtype)
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose num_features is inferred from the first input; it then becomes a BatchNorm1d."""

    cls_to_become = BatchNorm1d

    def _check_input_dim(self, input):
        BatchNorm1d._check_input_dim(self, input)


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose num_features is inferred from the first input; it then becomes a BatchNorm2d."""

    cls_to_become = BatchNorm2d

    def _check_input_dim(self, input):
        BatchNorm2d._check_input_dim(self, input)


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose num_features is inferred from the first input; it then becomes a BatchNorm3d."""

    cls_to_become = BatchNorm3d

    def _check_input_dim(self, input):
        BatchNorm3d._check_input_dim(self, input)


class _SyncBatchNormFunction(Function):
    """Batch statistics over every rank of a process group: each rank's (mean, squared deviations, count) per
    channel are gathered and combined (the parallel form of Welford's update), and backward all-reduces the two
    per-channel sums the input gradient needs. Weight and bias gradients stay local, as PyTorch's (DDP averages
    them)."""

    @staticmethod
    def forward(
        ctx, input, weight, bias, running_mean, running_var, eps, momentum, process_group, world_size
    ):
        c = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        x = input.contiguous()
        stat_dtype = _C.float32 if x.dtype in (_C.float16, _C.bfloat16) else x.dtype
        xs = x.to(stat_dtype)
        count = x.numel() // c
        if count > 0:
            mean = xs.mean(dims)
            m2 = ((xs - mean.reshape(_channel_shape(x))) ** 2).sum(dims)
        else:
            mean = _C.zeros(c, dtype=stat_dtype, device=x.device)
            m2 = _C.zeros(c, dtype=stat_dtype, device=x.device)
        local = _C.cat([mean, m2, _C.full((1,), float(count), dtype=stat_dtype, device=x.device)])
        gathered = [_C.empty_like(local) for _ in range(world_size)]
        dist.all_gather(gathered, local, group=process_group)
        table = _C.stack(gathered)  # (world, 2C + 1)
        means, m2s, counts = table[:, :c], table[:, c : 2 * c], table[:, 2 * c :]
        total = counts.sum()
        n = float(total.item())
        if n == 0:
            raise ValueError("SyncBatchNorm: every rank's input is empty")
        gmean = (means * counts).sum(0) / total
        gm2 = (m2s + counts * (means - gmean) ** 2).sum(0)
        invstd = (gm2 / total + eps).rsqrt()
        if running_mean is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(gmean.to(running_mean.dtype), alpha=momentum)
                unbiased = gm2 / max(n - 1, 1)
                running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
        shape = _channel_shape(x)
        scale = invstd if weight is None else invstd * weight.to(stat_dtype)
        out = (xs - gmean.reshape(shape)) * scale.reshape(shape)
        if bias is not None:
            out = out + bias.to(stat_dtype).reshape(shape)
        ctx.save_for_backward(x, weight, gmean, invstd)
        ctx.group, ctx.world, ctx.count, ctx.has_bias = process_group, world_size, n, bias is not None
        return out.to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, mean, invstd = ctx.saved_tensors
        dims = [0] + list(range(2, x.dim()))
        shape = _channel_shape(x)
        stat_dtype = mean.dtype
        dy = grad_output.contiguous().to(stat_dtype)
        xmu = x.to(stat_dtype) - mean.reshape(shape)
        sum_dy = dy.sum(dims)
        sum_dy_xmu = (dy * xmu).sum(dims)
        grad_weight = (sum_dy_xmu * invstd).to(weight.dtype) if weight is not None else None
        grad_bias = sum_dy.to(weight.dtype if weight is not None else x.dtype) if ctx.has_bias else None
        grad_input = None
        if ctx.needs_input_grad[0]:
            both = _C.cat([sum_dy, sum_dy_xmu])
            dist.all_reduce(both, group=ctx.group)
            c = x.shape[1]
            mean_dy = (both[:c] / ctx.count).reshape(shape)
            mean_dy_xmu = (both[c:] / ctx.count).reshape(shape)
            scale = invstd if weight is None else invstd * weight.to(stat_dtype)
            grad_input = (
                dy - mean_dy - xmu * (invstd * invstd).reshape(shape) * mean_dy_xmu
            ) * scale.reshape(shape)
            grad_input = grad_input.to(x.dtype)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None


def _channel_shape(x):
    return [1, x.shape[1]] + [1] * (x.dim() - 2)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm whose training statistics cover the batch of every rank in a process group (one all_gather of
    per-channel statistics forward, one all_reduce backward). Outside a process group of more than one rank it
    is BatchNorm. PyTorch syncs only GPU inputs and raises ValueError for CPU ones; here a CPU input syncs over
    gloo as a CUDA one does over NCCL."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        process_group=None,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        if self.training and self.track_running_stats and self.num_batches_tracked is None:
            raise AssertionError("num_batches_tracked must not be None")
        factor, bn_training, running_mean, running_var = self._batch_step()
        need_sync = bn_training and self.training and dist.is_available() and dist.is_initialized()
        if need_sync:
            group = self.process_group or dist.group.WORLD
            world_size = dist.get_world_size(group)
            need_sync = world_size > 1
        if not need_sync:
            return F.batch_norm(
                input, running_mean, running_var, self.weight, self.bias, bn_training, factor, self.eps
            )
        return _SyncBatchNormFunction.apply(
            input, self.weight, self.bias, running_mean, running_var, self.eps, factor, group, world_size
        )

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """module with every BatchNorm*d layer replaced by a SyncBatchNorm sharing its parameters and buffers
        (a BatchNorm module itself comes back as a new SyncBatchNorm)."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
            )
            if module.affine:
                with no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
