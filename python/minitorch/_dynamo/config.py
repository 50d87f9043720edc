"""torch._dynamo.config: the settings torch.compile reads at each capture.

recompile_limit (alias cache_size_limit): graphs kept per compiled callable before new input signatures run
eagerly; suppress_errors: a failing backend warns and runs eagerly instead of raising BackendCompilerFailed;
automatic_dynamic_shapes: after a recompile caused only by sizes, capture a size-generic graph.
``config.patch(name=value, ...)`` sets some for a ``with`` block (or a decorated function)."""

import contextlib
import functools
import os
import sys
import types

recompile_limit = 8
accumulated_recompile_limit = 256
suppress_errors = bool(os.environ.get("TORCHDYNAMO_SUPPRESS_ERRORS", ""))
automatic_dynamic_shapes = True
assume_static_by_default = True
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
specialize_int = False
inline_inbuilt_nn_modules = True
error_on_recompile = False

_ALIASES = {
    "cache_size_limit": "recompile_limit",
    "accumulated_cache_size_limit": "accumulated_recompile_limit",
}


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name):
        if name in _ALIASES:
            return getattr(self, _ALIASES[name])
        raise AttributeError(f"module 'torch._dynamo.config' has no attribute '{name}'")

    def __setattr__(self, name, value):
        super().__setattr__(_ALIASES.get(name, name), value)

    def patch(self, arg=None, **changes):
        """A context manager (or decorator) setting config values for its extent."""
        if isinstance(arg, dict):
            changes = {**arg, **changes}
        elif isinstance(arg, str):
            raise TypeError("config.patch takes keyword arguments or a dict")
        module = self

        class _Patch(contextlib.ContextDecorator):
            def __enter__(self):
                self.saved = {}
                for k, v in changes.items():
                    real = _ALIASES.get(k, k)
                    if not hasattr(module, real):
                        raise AttributeError(f"module 'torch._dynamo.config' has no attribute '{k}'")
                    self.saved[real] = getattr(module, real)
                    setattr(module, real, v)
                return self

            def __exit__(self, *exc):
                for k, v in self.saved.items():
                    setattr(module, k, v)
                return False

        return _Patch()

    def get_config_copy(self):
        return {
            k: v
            for k, v in vars(self).items()
            if not k.startswith("_") and not callable(v) and not isinstance(v, types.ModuleType)
        }


sys.modules[__name__].__class__ = _ConfigModule
del functools
