"""nn.DataParallel: one process, the batch split over several devices, one module replica per device run in
threads, outputs gathered on one device; gradients flow back to the original module's parameters.

minitorch extension (PyTorch refuses both): device_ids may name the CPU ('cpu' or device('cpu')) and may list
one device more than once, so the multi-replica path runs, and is tested, on a machine with one GPU or none.
Without a GPU and without an explicit CPU entry in device_ids the module runs as is, as in PyTorch."""

import operator
import warnings
from itertools import chain

from minitorch import _C, cuda
from minitorch.nn.modules.module import Module
from minitorch.nn.parallel.parallel_apply import parallel_apply
from minitorch.nn.parallel.replicate import replicate
from minitorch.nn.parallel.scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


def _is_cpu(d):
    return not isinstance(d, int) and _C.device(d).type == "cpu"


def _device_index(d):
    """A CUDA entry as its index (PyTorch's _get_device_index(d, True)); a CPU entry as device('cpu')."""
    if isinstance(d, int):
        return d
    d = _C.device(d)
    if d.type == "cpu":
        return d
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return d.index if d.index is not None else cuda.current_device()


def _device_obj(d):
    return d if isinstance(d, _C.device) else _C.device("cuda", d)


def _check_balance(device_ids):
    imbalance_warn = """
    There is an imbalance between your GPUs. You may want to exclude GPU {} which
    has less than 75% of the memory or cores of GPU {}. You can do so by setting
    the device_ids argument to DataParallel, or by setting the CUDA_VISIBLE_DEVICES
    environment variable."""
    device_ids = [d for d in device_ids if isinstance(d, int)]
    if len(set(device_ids)) < 2:
        return
    dev_props = [cuda.get_device_properties(i) for i in device_ids]

    def warn_imbalance(get_prop):
        values = [get_prop(props) for props in dev_props]
        min_pos, min_val = min(enumerate(values), key=operator.itemgetter(1))
        max_pos, max_val = max(enumerate(values), key=operator.itemgetter(1))
        if min_val / max_val < 0.75:
            warnings.warn(imbalance_warn.format(device_ids[min_pos], device_ids[max_pos]), stacklevel=3)
            return True
        return False

    if warn_imbalance(lambda props: props.total_memory):
        return
    if warn_imbalance(lambda props: props.multi_processor_count):
        return


def _resolve_devices(device_ids, output_device):
    """DataParallel's and data_parallel's defaults: every GPU, output on the first; as device indices."""
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    if not device_ids:
        raise RuntimeError("no available devices were found")
    if output_device is None:
        output_device = device_ids[0]
    return [_device_index(x) for x in device_ids], _device_index(output_device)


class DataParallel(Module):
    """Splits the inputs along `dim` over `device_ids`, runs a replica of `module` on each chunk in its own
    thread and concatenates the outputs on `output_device` (default device_ids[0]). The module's parameters and
    buffers must be on device_ids[0]. Replicas are rebuilt on every forward: changes a replica makes to itself
    are lost, except in-place updates of buffers by the first replica (which shares the module's buffers)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.dim = dim
        explicit_cpu = device_ids is not None and any(_is_cpu(d) for d in device_ids)
        if not cuda.is_available() and not explicit_cpu:
            self.module = module
            self.device_ids = []
            return
        self.module = module
        self.device_ids, self.output_device = _resolve_devices(device_ids, output_device)
        self.src_device_obj = _device_obj(self.device_ids[0])
        _check_balance(self.device_ids)
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    "module must have its parameters and buffers "
                    f"on device {self.src_device_obj} (device_ids[0]) but found one of "
                    f"them on device: {t.device}"
                )
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        # a forward without inputs still runs, on device_ids[0]
        if not inputs and not module_kwargs:
            inputs = ((),)
            module_kwargs = ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[: len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module, device_ids):
        return replicate(module, device_ids, not _C.is_grad_enabled())

    def scatter(self, inputs, kwargs, device_ids):
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[: len(replicas)])

    def gather(self, outputs, output_device):
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form of DataParallel: evaluates module(input) split over device_ids (the same
    minitorch extension: CPU entries and repeated devices are allowed)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    explicit_cpu = device_ids is not None and any(_is_cpu(d) for d in device_ids)
    if not cuda.is_available() and not explicit_cpu:
        return module(*inputs, **(module_kwargs or {}))
    device_ids, output_device = _resolve_devices(device_ids, output_device)
    src_device_obj = _device_obj(device_ids[0])
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src_device_obj:
            raise RuntimeError(
                "module must have its parameters and buffers "
                f"on device {src_device_obj} (device_ids[0]) but found one of "
                f"them on device: {t.device}"
            )
    inputs, module_kwargs = scatter_kwargs(inputs, module_kwargs, device_ids, dim)
    if not inputs and not module_kwargs:
        inputs = ((),)
        module_kwargs = ({},)
    used_device_ids = device_ids[: len(inputs)]
    if len(device_ids) == 1:
        return module(*inputs[0], **module_kwargs[0])
    replicas = replicate(module, used_device_ids, not _C.is_grad_enabled())
    outputs = parallel_apply(replicas, inputs, module_kwargs, used_device_ids)
    return gather(outputs, output_device, dim)
