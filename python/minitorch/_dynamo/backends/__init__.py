"""The torch.compile backend registry (torch._dynamo.list_backends / register_backend / lookup_backend) and
the built-in backends: "inductor" (minitorch._inductor, the default), "eager" and "aot_eager" (run the captured
GraphModule as it is: for debugging capture apart from code generation); `common` holds aot_autograd, to
build a backend on AOTAutograd."""

import difflib
import functools
import warnings

from minitorch._dynamo.exc import InvalidBackend

__all__ = ["list_backends", "lookup_backend", "register_backend"]

_COMPILER_FNS = {}


def register_backend(compiler_fn=None, name=None, tags=()):
    """Registers compiler_fn(gm, example_inputs) -> callable under name (its __name__ by default); usable as
    a decorator with or without arguments."""
    if compiler_fn is None:
        return functools.partial(register_backend, name=name, tags=tags)
    if not callable(compiler_fn):
        raise AssertionError(f"backend {compiler_fn!r} is not callable")  # noqa: TRY004  (PyTorch asserts)
    name = name or compiler_fn.__name__
    if name in _COMPILER_FNS:
        raise AssertionError(f"duplicate name: {name}")
    _COMPILER_FNS[name] = compiler_fn
    compiler_fn._tags = tuple(tags)
    return compiler_fn


def lookup_backend(compiler_fn):
    """The compiler function for a backend name (InvalidBackend if unknown) or the callable itself."""
    if isinstance(compiler_fn, str):
        fn = _COMPILER_FNS.get(compiler_fn)
        if fn is None:
            raise InvalidBackend(
                compiler_fn, difflib.get_close_matches(compiler_fn, list_backends(None), n=2)
            )
        return fn
    return compiler_fn


def list_backends(exclude_tags=("debug", "experimental")):
    """The registered backend names, without those tagged with any of exclude_tags."""
    exclude = set(exclude_tags or ())
    return sorted(n for n, fn in _COMPILER_FNS.items() if not exclude.intersection(getattr(fn, "_tags", ())))


@register_backend(name="eager", tags=("debug",))
def eager(gm, fake_tensor_inputs, **kwargs):
    """The captured graph run as it is (its generated Python forward)."""
    if kwargs:
        warnings.warn(f"eager backend ignoring extra kwargs {kwargs}", stacklevel=2)
    return gm.forward


@register_backend(name="aot_eager", tags=("debug",))
def aot_eager(gm, fake_tensor_inputs, **kwargs):
    """As "eager": we have no ahead-of-time autograd split, so the graph runs as captured."""
    return gm.forward


@register_backend(name="inductor")
def inductor(gm, example_inputs, **kwargs):
    """The default backend (minitorch._inductor.compile_fx) with mode/options as torch.compile passes them."""
    from minitorch import _inductor

    mode = kwargs.pop("mode", None)
    options = dict(_inductor.list_mode_options(mode)) if mode else {}
    options.update(_inductor.check_options(kwargs.pop("options", None)))
    return _inductor.compile_fx(gm, example_inputs, config_patches=options)
