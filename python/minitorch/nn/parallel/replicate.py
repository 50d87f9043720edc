"""replicate (PyTorch's nn/parallel/replicate.py): shallow module copies, one per device, whose parameters are
differentiable copies of the original's (gradients flow back and add up in the original parameters)."""

from minitorch.nn.parallel._functions import Broadcast, _device, broadcast

__all__ = ["replicate"]


def _broadcast_coalesced_reshape(tensors, devices, detach=False, alias_same_device=True):
    """One list of copies of `tensors` per device; through Broadcast (recorded) unless detach."""
    if not tensors:
        return [[] for _ in devices]
    if not detach:
        flat = Broadcast.apply(devices, *tensors)
        if not isinstance(flat, tuple):
            flat = (flat,)
        n = len(tensors)
        return [list(flat[i : i + n]) for i in range(0, len(flat), n)]
    return [list(ts) for ts in broadcast(tensors, devices, alias_same_device)]


def _replicate_module(module):
    """A shallow copy sharing everything but the containers replicate fills (Module._replicate_for_data_parallel)."""
    if hasattr(module, "_replicate_for_data_parallel"):
        return module._replicate_for_data_parallel()
    replica = module.__new__(type(module))
    replica.__dict__ = module.__dict__.copy()
    # replicas own no parameters: theirs are copies recorded from the original's, set as plain attributes
    replica.__dict__["_parameters"] = {}
    replica.__dict__["_buffers"] = replica._buffers.copy()
    replica.__dict__["_modules"] = replica._modules.copy()
    replica.__dict__["_is_replica"] = True
    return replica


def replicate(network, devices, detach=False):
    """One copy of `network` per device. Parameters that require grad are recorded copies (detach=False), so
    backward through any replica accumulates into the original parameters. Buffers are broadcast without
    history; the first replica shares the original's buffers (its running statistics persist, as in PyTorch),
    and further replicas on an already used device get their own copies so threads never update one buffer."""
    if not devices:
        return []
    devices = [_device(d) for d in devices]
    num_replicas = len(devices)

    params = list(network.parameters())
    param_indices = {id(p): i for i, p in enumerate(params)}
    if detach:
        param_copies = _broadcast_coalesced_reshape(params, devices, detach=True)
    else:
        # a frozen parameter gets no history (Broadcast would make its copies require grad)
        rg = [p for p in params if p.requires_grad]
        rg_copies = _broadcast_coalesced_reshape(rg, devices, detach=False)
        nrg = [p for p in params if not p.requires_grad]
        nrg_copies = _broadcast_coalesced_reshape(nrg, devices, detach=True)
        it = [(iter(a), iter(b)) for a, b in zip(rg_copies, nrg_copies)]
        param_copies = [[next(a) if p.requires_grad else next(b) for p in params] for a, b in it]
    # replica parameters must not be the original Parameter objects (those would register as parameters again)
    param_copies = [[c.detach() if c is p else c for c, p in zip(copies, params)] for copies in param_copies]

    buffers = list(network.buffers())
    buffers_rg = [b for b in buffers if b.requires_grad and not detach]
    buffers_not_rg = [b for b in buffers if not (b.requires_grad and not detach)]
    buffer_indices_rg = {id(b): i for i, b in enumerate(buffers_rg)}
    buffer_indices_not_rg = {id(b): i for i, b in enumerate(buffers_not_rg)}
    buffer_copies_rg = _broadcast_coalesced_reshape(buffers_rg, devices, detach=detach)
    buffer_copies_not_rg = _broadcast_coalesced_reshape(
        buffers_not_rg, devices, detach=True, alias_same_device=False
    )

    modules = list(network.modules())
    module_copies = [[] for _ in devices]
    module_indices = {}
    for i, module in enumerate(modules):
        module_indices[id(module)] = i
        for j in range(num_replicas):
            replica = _replicate_module(module)
            # DDP reads a replica's parameters from here (replicas have no registered parameters)
            replica.__dict__["_former_parameters"] = {}
            module_copies[j].append(replica)

    for i, module in enumerate(modules):
        for key, child in module._modules.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                replica._modules[key] = None if child is None else module_copies[j][module_indices[id(child)]]
        for key, param in module._parameters.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                if param is None:
                    replica._parameters[key] = None
                else:
                    param_copy = param_copies[j][param_indices[id(param)]]
                    # parameters in replicas are no longer leaves: plain attributes, not Parameters
                    replica.__dict__[key] = param_copy
                    replica._former_parameters[key] = param_copy
        for key, buf in module._buffers.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                if buf is None:
                    replica._buffers[key] = None
                elif buf.requires_grad and not detach:
                    replica._buffers[key] = buffer_copies_rg[j][buffer_indices_rg[id(buf)]]
                else:
                    replica._buffers[key] = buffer_copies_not_rg[j][buffer_indices_not_rg[id(buf)]]

    return [module_copies[j][0] for j in range(num_replicas)]
