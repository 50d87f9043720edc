"""torch-level spellings of Tensor methods: torch.clamp_(t, ...) and the other in-place names PyTorch keeps at
torch level, torch.fill(t, v) (fill_'s out-of-place form) and torch.detach(t)."""

from minitorch import _C

# the in-place names PyTorch spells at torch level too (the elementwise table's come from csrc/ops/ops.schema,
# bound in C++); each is a Tensor method, bound in C++ or composed in _composite_math
_INPLACE = [
    "clamp_",
    "clip_",
    "detach_",
    "fill_",
    "index_put_",
    "rad2deg_",
    "zero_",
    "clamp_min_",
    "clamp_max_",
]
__all__ = ["detach", "fill"]


def _make_inplace(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input, ...) -> Tensor: torch's spelling of Tensor.{name}, in place on input."
    return fn


for _name in _INPLACE:
    globals()[_name] = _make_inplace(_name)
    __all__.append(_name)
del _name


def fill(input, value):
    """A new tensor shaped like input (its dtype and device) filled with value (a number or a 0-dim tensor).
    A value tensor that requires grad receives the sum of the result's gradient, as PyTorch's."""
    if (
        isinstance(value, _C.Tensor)
        and value.requires_grad
        and value.dim() == 0
        and input.is_floating_point()
    ):
        return value.to(dtype=input.dtype, device=input.device).expand(input.shape).contiguous()
    if input.requires_grad and _C.is_grad_enabled():
        return input.clone().fill_(value)  # the result's grad_fn leads back to input, as PyTorch's
    # one pass, not clone's copy and then the fill (empty_like keeps clone's layout)
    return _C.empty_like(input).fill_(value)


def detach(input):
    """input.detach(): the same data, cut from the autograd graph."""
    return input.detach()
