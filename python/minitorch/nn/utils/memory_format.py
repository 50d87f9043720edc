"""convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format: a module's (transposed)
convolution weights re-laid out in a memory format (channels_last for the 4-D ones), its children's too."""

from minitorch.nn.modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        # the same values in the new layout; .data keeps the Parameter object (optimizers hold it)
        data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = data.resize_(data.size(), memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """module, with each Conv2d/ConvTranspose2d weight in it laid out in memory_format (in place)"""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """module, with each Conv3d/ConvTranspose3d weight in it laid out in memory_format (in place)"""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
