"""nn.utils.skip_init: build a module without running its parameter initialisation (on the meta device)."""

import inspect


def skip_init(module_cls, *args, **kwargs):
    """An instance of module_cls(*args, **kwargs) whose parameters and buffers are allocated but left
    uninitialised: the module is made on the meta device (no memory, no init kernels), then given empty storage
    on kwargs' device (the CPU by default)."""
    from minitorch.nn.modules.module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")  # noqa: TRY004 - PyTorch raises RuntimeError
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
