"""nn.DataParallel: run a module over the GPUs of one process. With no GPU the module runs as is; with one
GPU inputs move to it and the module runs there, as in PyTorch. Replicating over several GPUs is issue 7."""

from itertools import chain

from minitorch import _C, cuda
from minitorch.nn.modules.module import Module


def _device_index(d):
    if isinstance(d, int):
        return d
    d = _C.device(d)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return d.index if d.index is not None else cuda.current_device()


def _to_device(obj, device):
    if isinstance(obj, _C.Tensor):
        return obj.to(device, non_blocking=True)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_device(o, device) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    return obj


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim
        if not cuda.is_available():
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.device_ids = [_device_index(x) for x in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _C.device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    "module must have its parameters and buffers on device "
                    f"{self.src_device_obj} (device_ids[0]) but found one of them on device: {t.device}"
                )
        if len(self.device_ids) == 1:
            return self.module(
                *_to_device(inputs, self.src_device_obj), **_to_device(kwargs, self.src_device_obj)
            )
        raise NotImplementedError(
            "DataParallel over more than one GPU (replicas in threads) is not implemented yet; pass one device "
            "in device_ids or use DistributedDataParallel"
        )
