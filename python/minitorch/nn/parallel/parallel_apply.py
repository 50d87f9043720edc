"""parallel_apply (PyTorch's nn/parallel/parallel_apply.py): run each replica on its inputs in its own thread,
with the caller's grad mode, autocast state, current device and streams; a replica's exception is re-raised in
the caller with the replica's traceback."""

import threading

from minitorch import _C, cuda
from minitorch.nn.parallel._functions import _device
from minitorch.utils.data._utils import ExceptionWrapper

__all__ = ["get_a_var", "parallel_apply"]


def get_a_var(obj):
    """The first tensor found in obj (walking lists, tuples and dicts), or None."""
    if isinstance(obj, _C.Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for result in map(get_a_var, obj):
            if isinstance(result, _C.Tensor):
                return result
    if isinstance(obj, dict):
        for result in map(get_a_var, obj.items()):
            if isinstance(result, _C.Tensor):
                return result
    return None


def _autocast_state():
    return {
        dev: (_C._is_autocast_enabled(dev), _C._get_autocast_dtype(dev)) for dev in ("cpu", "cuda")
    }, _C._is_autocast_cache_enabled()


class _ThreadState:
    """Puts the caller's grad mode and autocast state into a worker thread: both are thread-local in C++, so a
    fresh thread would otherwise run with grad on and autocast off whatever the caller chose."""

    def __init__(self):
        self.grad_enabled = _C.is_grad_enabled()
        self.autocast, self.cache_enabled = _autocast_state()

    def __enter__(self):
        self.prev = (_C.is_grad_enabled(), *_autocast_state())
        _C._set_grad_enabled(self.grad_enabled)
        for dev, (enabled, dtype) in self.autocast.items():
            _C._set_autocast_enabled(dev, enabled)
            _C._set_autocast_dtype(dev, dtype)
        _C._set_autocast_cache_enabled(self.cache_enabled)
        self.nested = any(enabled for enabled, _ in self.autocast.values())
        if self.nested:
            _C._autocast_increment_nesting()

    def __exit__(self, *exc):
        # the worker's own region ends here: its cast cache goes (the cache is per thread)
        if self.nested and _C._autocast_decrement_nesting() == 0:
            _C._clear_autocast_cache()
        grad_enabled, autocast, cache_enabled = self.prev
        _C._set_grad_enabled(grad_enabled)
        for dev, (enabled, dtype) in autocast.items():
            _C._set_autocast_enabled(dev, enabled)
            _C._set_autocast_dtype(dev, dtype)
        _C._set_autocast_cache_enabled(cache_enabled)
        return False


class _CudaContext:
    """The replica's CUDA device and the caller's current stream on it, for the block (nothing for the CPU)."""

    def __init__(self, device, stream):
        self.device, self.stream = device, stream

    def __enter__(self):
        if self.device.type != "cuda":
            self.ctx = []
            return
        self.ctx = [cuda.device(self.device.index), cuda.stream(self.stream)]
        for c in self.ctx:
            c.__enter__()

    def __exit__(self, *exc):
        for c in reversed(self.ctx):
            c.__exit__(*exc)
        return False


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """Applies modules[i] to inputs[i] (and kwargs_tup[i]) in parallel, one thread per module; returns the
    outputs in order. An input that is not a list or tuple is passed as the single argument."""
    assert len(modules) == len(inputs), (
        f"The number of modules {len(modules)} is not equal to the number of inputs {len(inputs)}"
    )
    if kwargs_tup is not None:
        assert len(modules) == len(kwargs_tup)
    else:
        kwargs_tup = ({},) * len(modules)
    if devices is not None:
        assert len(modules) == len(devices)
        devices = [_device(d) for d in devices]
    else:
        devices = [None] * len(modules)
    # the caller's current stream on each device: a new thread's current stream would be the default one
    streams = [cuda.current_stream(d.index) if d is not None and d.type == "cuda" else None for d in devices]
    lock = threading.Lock()
    results = {}
    state = _ThreadState()

    def _worker(i, module, input, kwargs, device=None, stream=None):
        with state:
            if device is None:
                t = get_a_var(input)
                if t is None:
                    with lock:
                        err = RuntimeError("no device was provided and no tensor input was found")
                        results[i] = ExceptionWrapper(
                            exc_info=(RuntimeError, err, None),
                            where=f"in replica {i}, no device was provided and no tensor input was found; "
                            "device cannot be resolved",
                        )
                    return
                device = t.device
                if device.type == "cuda" and stream is None:
                    stream = cuda.current_stream(device.index)
            try:
                with _CudaContext(device, stream):
                    # this also avoids accidental slicing of `input` if it is a Tensor
                    if not isinstance(input, (list, tuple)):
                        input = (input,)
                    output = module(*input, **kwargs)
                with lock:
                    results[i] = output
            except Exception:  # noqa: BLE001 - every replica error is carried to the caller
                with lock:
                    results[i] = ExceptionWrapper(where=f"in replica {i} on device {device}")

    if len(modules) > 1:
        threads = [
            threading.Thread(target=_worker, args=(i, module, input, kwargs, device, stream))
            for i, (module, input, kwargs, device, stream) in enumerate(
                zip(modules, inputs, kwargs_tup, devices, streams)
            )
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    else:
        _worker(0, modules[0], inputs[0], kwargs_tup[0], devices[0], streams[0])

    outputs = []
    for i in range(len(inputs)):
        output = results[i]
        if isinstance(output, ExceptionWrapper):
            output.reraise()
        outputs.append(output)
    return outputs
