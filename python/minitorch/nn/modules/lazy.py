"""LazyModuleMixin: modules whose parameter shapes are inferred from their first input (PyTorch's lazy
modules). Until then the parameters are UninitializedParameter placeholders; the first call materializes
them, initializes them, and turns the module into its cls_to_become (LazyLinear becomes Linear)."""

from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.parameter import UninitializedTensorMixin

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixin of the lazy modules: a forward pre-hook calls initialize_parameters(*inputs) once, then the
    module becomes cls_to_become; loading a state dict materializes the placeholders with the saved shapes."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        """Whether any parameter or buffer is still a placeholder."""
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(isinstance(t, UninitializedTensorMixin) for t in tensors)

    def initialize_parameters(self, *args, **kwargs):
        """Materializes and initializes the parameters from the first input (each lazy class's own)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        # a placeholder takes the checkpoint's shape, so the copy that follows fits
        for name, t in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if isinstance(t, UninitializedTensorMixin) and key in state_dict:
                with no_grad():
                    t.materialize(tuple(state_dict[key].shape))
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )
