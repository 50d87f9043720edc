"""nn.utils.stateless.functional_call: call a module with some parameters/buffers replaced by given tensors
(for the call only), as PyTorch's (deprecated there in favour of torch.func.functional_call)."""

import contextlib
import warnings

from minitorch import _C
from minitorch.nn.modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _swap_tensor(module, name, tensor):
    """Puts ``tensor`` at ``module.<name>`` (straight into _parameters/_buffers, so any tensor fits) and
    returns what was there (_MISSING when nothing was; passing _MISSING deletes the attribute)."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    # a tensor-like (one defining __torch_function__, as vmap's BatchedTensor) stands in for a tensor
    if (
        tensor is not _MISSING
        and tensor is not None
        and not isinstance(tensor, _C.Tensor)
        and not hasattr(type(tensor), "__torch_function__")
    ):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor
            return orig
    orig = getattr(module, name) if hasattr(module, name) else _MISSING
    if orig is not _MISSING and orig is not None and not isinstance(orig, _C.Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        # a parametrized tensor's property setter stores right_inverse(tensor), as in PyTorch
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def _swap_all(module, named_tensors):
    originals = {}
    try:
        for path, tensor in named_tensors.items():
            prefix, _, name = path.rpartition(".")
            originals[path] = _swap_tensor(module.get_submodule(prefix), name, tensor)
    except Exception:
        _swap_back(module, originals)
        raise
    return originals


def _swap_back(module, originals):
    for path, tensor in originals.items():
        prefix, _, name = path.rpartition(".")
        _swap_tensor(module.get_submodule(prefix), name, tensor)


def _untie(module, parameters_and_buffers):
    """Extends the given names to every name of the same (tied) tensor, so a value given for one applies to
    all; conflicting values for tied names are an error."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    groups = {}
    for name, t in named.items():
        groups.setdefault(id(t), set()).add(name)
    tied = {n: names for names in groups.values() if len(names) > 1 for n in names}
    given_tied = [n for n in parameters_and_buffers if n in tied]
    for name in given_tied:
        names = tied[name]
        given_here = names.intersection(given_tied)
        if len(given_here) > 1 and len({id(parameters_and_buffers[n]) for n in given_here}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are tied. Consider using "
                "tie_weights=False"
            )
    out = dict(parameters_and_buffers)
    for name in given_tied:
        for other in tied[name]:
            out[other] = parameters_and_buffers[name]
    return out


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    values = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(valid - set(values)), sorted(set(values) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError(
                "Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(), "\n\t".join(msgs))
            )
    originals = _swap_all(module, values)
    try:
        yield
    finally:
        _swap_back(module, originals)


def _functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    from minitorch.nn.parallel import DataParallel

    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")  # noqa: TRY004  (PyTorch's exception type)
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """``module(*args, **kwargs)`` with the parameters and buffers named in ``parameters_and_buffers``
    ("layer.weight": tensor) replaced for this call; the module is unchanged afterwards. Tied tensors take a
    value given for any of their names (``tie_weights``); ``strict`` requires exactly the module's names."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a future "
        "version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
