"""torch.compile itself (re-exported by minitorch.compiler): argument checks, the backend wrappers carrying
mode/options, and the choice between a CompiledFunction and an OptimizedModule."""

from minitorch._dynamo.backends import lookup_backend
from minitorch._dynamo.eval_frame import CompiledFunction, OptimizedModule
from minitorch.nn.modules.module import Module

__all__ = ["compile", "get_default_backend", "set_default_backend"]

_default_backend = {"name": "inductor"}
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


class _InductorBackend:
    """backend="inductor" with torch.compile's mode/options (checked when compile() is called)."""

    compiler_name = "inductor"

    def __init__(self, mode, options, dynamic):
        from minitorch import _inductor

        self.mode = mode
        self.dynamic = dynamic
        self.config = {}
        if mode and mode != "default":
            self.config.update(_inductor.list_mode_options(mode, dynamic))
        self.config.update(_inductor.check_options(options))
        self.__name__ = "inductor"

    def __call__(self, gm, example_inputs):
        from minitorch import _inductor

        return _inductor.compile_fx(gm, example_inputs, config_patches=self.config)


class _Backend:
    """Another backend, called as PyTorch calls it: compiler_fn(gm, example_inputs, **{mode, options})."""

    def __init__(self, backend, mode, options):
        self.compiler_fn = lookup_backend(backend)
        self.compiler_name = (
            backend if isinstance(backend, str) else getattr(backend, "__name__", str(backend))
        )
        self.__name__ = self.compiler_name
        self.kwargs = {}
        if mode and mode != "default":
            self.kwargs["mode"] = mode
        if options:
            self.kwargs["options"] = options

    def __call__(self, gm, example_inputs):
        return self.compiler_fn(gm, example_inputs, **self.kwargs)


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend=None,
    mode=None,
    options=None,
    name=None,
    disable=False,
    recompile_limit=None,
    isolate_recompiles=False,
    dynamic_shapes=None,
):
    """Optimizes a function or nn.Module: captures it into graphs per input signature and runs the backend's
    compiled form of each (see the module docstring). Without model, returns a decorator."""
    if backend is None:
        backend = _default_backend["name"]
    if model is None:

        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(
                model,
                fullgraph=fullgraph,
                dynamic=dynamic,
                backend=backend,
                mode=mode,
                options=options,
                name=name,
                disable=disable,
                recompile_limit=recompile_limit,
                isolate_recompiles=isolate_recompiles,
                dynamic_shapes=dynamic_shapes,
            )

        return fn
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if dynamic is not None and not isinstance(dynamic, bool):
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")  # noqa: TRY004
    if backend == "inductor":
        compiler = _InductorBackend(mode, options, dynamic)
    else:
        compiler = _Backend(backend, mode, options)
    if disable:
        return model
    if isinstance(model, Module):
        compiled = CompiledFunction(
            model,
            compiler,
            fullgraph=fullgraph,
            dynamic=dynamic,
            module=model,
            recompile_limit=recompile_limit,
        )
        return OptimizedModule(model, compiled)
    if isinstance(model, CompiledFunction):
        model = model._torchdynamo_orig_callable
    return CompiledFunction(
        model, compiler, fullgraph=fullgraph, dynamic=dynamic, recompile_limit=recompile_limit
    )


def set_default_backend(backend):
    """The backend torch.compile uses when none is given."""
    lookup_backend(backend)
    _default_backend["name"] = backend


def get_default_backend():
    """The backend torch.compile uses when none is given ("inductor" unless set)."""
    return _default_backend["name"]
