"""torch.utils.hooks: RemovableHandle, the handle the register_*_hook methods return (the same class as
nn.Module's), and unserializable_hook."""

from minitorch.nn.modules.module import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook"]


def unserializable_hook(f):
    """Marks a hook that should not be serialized with its tensor."""
    f.__torch_unserializable__ = True
    return f
