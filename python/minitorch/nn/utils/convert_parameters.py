"""parameters_to_vector / vector_to_parameters: flatten parameters into one vector and back."""

from minitorch import _C


def _check_param_device(param, old_param_device):
    if old_param_device is None:
        return param.device
    if param.device != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device


def parameters_to_vector(parameters):
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.reshape(-1))
    return _C.cat(vec)


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer : pointer + num_param].view_as(param).data
        pointer += num_param
