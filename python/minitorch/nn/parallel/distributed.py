"""DistributedDataParallel: one replica per process; gradients averaged in buckets while backward runs."""

import contextlib

import minitorch
import minitorch.distributed as dist
from minitorch.nn.modules.module import Module

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs participate "
    "in calculating loss."
)


class _Bucket:
    def __init__(self, indices):
        self.indices = indices  # parameter indices, in the order their gradients are expected
        self.ready = 0
        self.work = None
        self.flat = None


class DistributedDataParallel(Module):
    """Wraps `module` so that backward leaves every rank with the gradient averaged over the group.

    At construction rank 0's parameters and buffers are broadcast; each forward re-broadcasts the buffers
    (broadcast_buffers). Parameters are grouped into buckets of about bucket_cap_mb in reverse registration
    order (roughly the order backward produces them); a tensor hook per parameter counts arrivals and a
    bucket's all-reduce starts (async, on the group's worker thread) as soon as its last gradient arrived,
    overlapping with the rest of backward. The last gradient's hook waits for every bucket and writes the
    averages into .grad. no_sync() skips the reduction (gradients accumulate locally; the next synchronized
    backward averages the accumulated totals)."""

    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        process_group=None,
        bucket_cap_mb=25,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
    ):
        super().__init__()
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.process_group = process_group
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self._params = [p for p in module.parameters() if p.requires_grad]
        if not self._params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
                "gradient."
            )
        self._src = dist.get_global_rank(self._group(), 0)
        self._world = dist.get_world_size(self._group())
        self._sync_module_states()
        self._build_buckets(int(bucket_cap_mb * 1024 * 1024))
        self._index = {id(p): i for i, p in enumerate(self._params)}
        self._handles = [p.register_hook(self._make_hook(i)) for i, p in enumerate(self._params)]
        self._armed = False  # a synchronized forward ran and its backward has not finished reducing

    def _group(self):
        return self.process_group if self.process_group is not None else dist.GroupMember.WORLD

    def _sync_module_states(self):
        with minitorch.no_grad():
            for p in self.module.parameters():
                dist.broadcast(p, self._src, group=self.process_group)
            for _, b in self.module.named_buffers():
                dist.broadcast(b, self._src, group=self.process_group)

    def _build_buckets(self, cap):
        self._buckets = []
        self._bucket_of = [None] * len(self._params)
        cur, size, key = [], 0, None
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            k = (p.dtype, str(p.device))
            nbytes = p.numel() * p.element_size()
            if cur and (k != key or size + nbytes > cap):
                self._buckets.append(_Bucket(cur))
                cur, size = [], 0
            cur.append(i)
            size += nbytes
            key = k
        if cur:
            self._buckets.append(_Bucket(cur))
        for b, bucket in enumerate(self._buckets):
            for i in bucket.indices:
                self._bucket_of[i] = b

    # ---- forward

    def forward(self, *inputs, **kwargs):
        if self._armed:
            raise RuntimeError(_UNFINISHED)
        if self.broadcast_buffers:
            with minitorch.no_grad():
                for _, b in self.module.named_buffers():
                    dist.broadcast(b, self._src, group=self.process_group)
        out = self.module(*inputs, **kwargs)
        if minitorch.is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare(out)
        return out

    def _prepare(self, out):
        self._values = [None] * len(self._params)
        self._arrived = 0
        self._next_bucket = 0
        self._locally_used = [True] * len(self._params)
        for b in self._buckets:
            b.ready, b.work, b.flat = 0, None, None
        self._armed = True
        if self.find_unused_parameters:
            used = self._reachable(out)
            unused = [i for i, p in enumerate(self._params) if id(p) not in used]
            if len(unused) == len(self._params):
                # output does not depend on any parameter (evaluation through a grad-enabled forward)
                self._armed = False
                return
            for i in unused:
                self._locally_used[i] = False
                self._mark_ready(i, minitorch.zeros_like(self._params[i]))

    @staticmethod
    def _reachable(out):
        """ids of the leaf tensors the autograd graph of `out` reaches."""
        roots = []

        def collect(o):
            if isinstance(o, minitorch.Tensor):
                if o.grad_fn is not None:
                    roots.append(o.grad_fn)
                elif o.requires_grad:
                    found.add(id(o))
            elif isinstance(o, (list, tuple)):
                for x in o:
                    collect(x)
            elif isinstance(o, dict):
                for x in o.values():
                    collect(x)

        found = set()
        collect(out)
        # node wrappers are made per access: hold each one, or a freed wrapper's id could match a later node's
        seen = {}
        stack = list(roots)
        while stack:
            n = stack.pop()
            if n is None or id(n) in seen:
                continue
            seen[id(n)] = n
            if n.name() == "AccumulateGrad":
                found.add(id(n.variable))
            for nxt, _ in n.next_functions:
                if nxt is not None:
                    stack.append(nxt)
        return found

    # ---- backward

    def _make_hook(self, i):
        def hook(grad):
            if not self._armed or self._values[i] is not None:
                return None
            p = self._params[i]
            # the total .grad this backward leaves behind (gradients accumulated under no_sync included)
            total = grad if p.grad is None else p.grad + grad
            self._mark_ready(i, total)
            if self._arrived == len(self._params):
                return self._finish(i)
            return None

        return hook

    def _mark_ready(self, i, value):
        self._values[i] = value
        self._arrived += 1
        bucket = self._buckets[self._bucket_of[i]]
        bucket.ready += 1
        # buckets start in index order on every rank, whatever order their gradients arrived in
        while self._next_bucket < len(self._buckets):
            b = self._buckets[self._next_bucket]
            if b.ready < len(b.indices):
                break
            b.flat = minitorch.cat([self._values[j].reshape(-1) for j in b.indices])
            b.work = dist.all_reduce(b.flat, group=self.process_group, async_op=True)
            self._next_bucket += 1

    def _finish(self, last):
        """Runs in the last gradient's hook: waits for every bucket, writes the averages into .grad."""
        self._armed = False
        with minitorch.no_grad():
            avg = {}
            for b in self._buckets:
                b.work.wait()
                b.flat.div_(self._world)
                off = 0
                for j in b.indices:
                    p = self._params[j]
                    n = p.numel()
                    avg[j] = b.flat[off : off + n].view(p.shape)
                    off += n
                b.flat = b.work = None
            for j, p in enumerate(self._params):
                if j != last:
                    p.grad = avg[j].clone()
            # the engine accumulates what this hook returns into .grad: clear it so the average lands as is
            self._params[last].grad = None
            self._values = [None] * len(self._params)
            return avg[last].clone()

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside accumulate gradients locally, without communication."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
