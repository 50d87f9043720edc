"""DistributedDataParallel: one replica per process; gradients averaged in buckets while backward runs."""

import contextlib

import minitorch.distributed as dist
from minitorch import _C, _creation
from minitorch.autograd import grad_mode
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
        self.view_flat = None  # gradient_as_bucket_view: the bucket every .grad of it aliases


class DistributedDataParallel(Module):
    """Wraps `module` so that backward leaves every rank with the gradient averaged over the group.

    At construction rank 0's parameters and buffers are broadcast; each forward re-broadcasts the buffers
    (broadcast_buffers). Parameters are grouped into buckets of about bucket_cap_mb in reverse registration
    order (roughly the order backward produces them). A post-accumulate-grad hook per parameter marks it ready
    once backward has written its final .grad (a parameter used twice in forward fires once, after both
    contributions are summed; gradients accumulated under no_sync are in it too), as PyTorch's reducer waits
    for AccumulateGrad. A bucket's all-reduce starts (async, on the group's worker thread) as soon as all of
    its parameters are ready, in bucket order on every rank, overlapping with the rest of backward; the last
    hook waits for every bucket and leaves the averages in .grad. gradient_as_bucket_view=True makes each
    .grad a view into its bucket, so the all-reduce works on the gradients in place (no copy in or out)."""

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
        self.gradient_as_bucket_view = gradient_as_bucket_view
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
        self._handles = [
            p.register_post_accumulate_grad_hook(self._make_hook(i)) for i, p in enumerate(self._params)
        ]
        self._armed = False  # a synchronized forward ran and its backward has not finished reducing

    def _group(self):
        return self.process_group if self.process_group is not None else dist.GroupMember.WORLD

    def _sync_module_states(self):
        with grad_mode.no_grad():
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
        self._views = [None] * len(self._params)
        for b, bucket in enumerate(self._buckets):
            for i in bucket.indices:
                self._bucket_of[i] = b
            if self.gradient_as_bucket_view:
                first = self._params[bucket.indices[0]]
                n = sum(self._params[i].numel() for i in bucket.indices)
                bucket.view_flat = _C.zeros(n, dtype=first.dtype, device=first.device)
                off = 0
                for i in bucket.indices:
                    p = self._params[i]
                    self._views[i] = bucket.view_flat[off : off + p.numel()].view(p.shape)
                    off += p.numel()

    # ---- forward

    def forward(self, *inputs, **kwargs):
        if self._armed:
            raise RuntimeError(_UNFINISHED)
        if self.broadcast_buffers:
            with grad_mode.no_grad():
                for _, b in self.module.named_buffers():
                    dist.broadcast(b, self._src, group=self.process_group)
        out = self.module(*inputs, **kwargs)
        if grad_mode.is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare(out)
        return out

    def _prepare(self, out):
        self._ready = [False] * len(self._params)
        self._arrived = 0
        self._next_bucket = 0
        self._used_work = None
        self._saved = {}
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
            # how many ranks used each parameter: one that no rank used keeps its .grad untouched (PyTorch);
            # issued here, before any bucket, so every rank issues it in the same place
            unused_set = set(unused)
            self._used = _creation.tensor(
                [0 if i in unused_set else 1 for i in range(len(self._params))], dtype=_C.int32
            )
            self._used_work = dist.all_reduce(self._used, group=self.process_group, async_op=True)
            for i in unused:
                p, view = self._params[i], self._views[i]
                if view is not None and p.grad is not None and p.grad.data_ptr() == view.data_ptr():
                    # the bucket all-reduce rewrites this .grad in place: kept, in case no rank used it
                    self._saved[i] = p.grad.clone()
                self._mark_ready(i)

    @staticmethod
    def _reachable(out):
        """ids of the leaf tensors the autograd graph of `out` reaches."""
        roots = []

        def collect(o):
            if isinstance(o, _C.Tensor):
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
            if n.name() == "torch::autograd::AccumulateGrad":
                found.add(id(n.variable))
            for nxt, _ in n.next_functions:
                if nxt is not None:
                    stack.append(nxt)
        return found

    # ---- backward

    def _make_hook(self, i):
        def hook(param):
            if not self._armed or self._ready[i]:
                return
            self._mark_ready(i)
            if self._arrived == len(self._params):
                self._finish()

        return hook

    def _grad_in_bucket(self, i):
        """The parameter's gradient as the bucket holds it (zeros for a parameter this rank did not use)."""
        p = self._params[i]
        view = self._views[i]
        if view is None:
            return p.grad if p.grad is not None else _C.zeros_like(p)
        with grad_mode.no_grad():
            if p.grad is None:
                view.zero_()
            elif p.grad.data_ptr() != view.data_ptr():
                # a fresh .grad (first step, or zero_grad(set_to_none=True)): move it into the bucket
                view.copy_(p.grad)
        return view

    def _mark_ready(self, i):
        self._ready[i] = True
        self._arrived += 1
        if self._views[i] is not None:
            self._grad_in_bucket(i)
        bucket = self._buckets[self._bucket_of[i]]
        bucket.ready += 1
        # buckets start in index order on every rank, whatever order their gradients arrived in
        while self._next_bucket < len(self._buckets):
            b = self._buckets[self._next_bucket]
            if b.ready < len(b.indices):
                break
            if b.view_flat is not None:
                b.flat = b.view_flat
            else:
                b.flat = _C.cat([self._grad_in_bucket(j).reshape(-1) for j in b.indices])
            b.work = dist.all_reduce(b.flat, group=self.process_group, async_op=True)
            self._next_bucket += 1

    def _finish(self):
        """Runs in the last parameter's hook, when every .grad is final: waits for the buckets, writes the
        averages."""
        self._armed = False
        used = None
        if self._used_work is not None:
            self._used_work.wait()
            used = self._used.tolist()
        with grad_mode.no_grad():
            for b in self._buckets:
                b.work.wait()
                b.flat.div_(self._world)
                off = 0
                for j in b.indices:
                    p = self._params[j]
                    n = p.numel()
                    if used is not None and used[j] == 0:
                        if j in self._saved:
                            self._views[j].copy_(self._saved[j])
                        off += n  # no rank used it: .grad stays as it was
                        continue
                    if self._views[j] is not None:
                        p.grad = self._views[j]
                    elif p.grad is not None:
                        p.grad.copy_(b.flat[off : off + n].view(p.shape))
                    else:
                        p.grad = b.flat[off : off + n].view(p.shape).clone()
                    off += n
                b.work = None
                b.flat = None

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside accumulate gradients locally, without communication."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
