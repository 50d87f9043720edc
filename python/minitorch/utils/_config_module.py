"""Config modules (torch.utils._config_module's install_config_module): a module of plain settings that also
offers ``patch(...)`` (a context manager or decorator setting some for its extent) and ``get_config_copy()``;
shared by torch._dynamo.config and torch._functorch.config."""

import contextlib
import sys
import types
from typing import ClassVar

__all__ = ["install_config_module"]


class _ConfigModule(types.ModuleType):
    """A config module: reading an unknown name raises AttributeError; so does setting one when the module
    is strict (a misspelt flag is an error, as PyTorch's). ``_aliases`` maps old names to current ones."""

    _aliases: ClassVar[dict] = {}
    _strict = False

    def _public(self):
        return self.__name__.replace("minitorch", "torch", 1)

    def _missing(self, name):
        if self._strict:
            return AttributeError(f"{self._public()}.{name} does not exist")
        return AttributeError(f"module '{self._public()}' has no attribute '{name}'")

    def __getattr__(self, name):
        if name in self._aliases:
            return getattr(self, self._aliases[name])
        raise self._missing(name)

    def __setattr__(self, name, value):
        name = self._aliases.get(name, name)
        if self._strict and not name.startswith("_") and name not in vars(self):
            raise self._missing(name)
        super().__setattr__(name, value)

    def patch(self, arg1=None, arg2=None, **changes):
        """patch(name=value, ...), patch({name: value}) or patch("name", value): a context manager (or
        decorator) setting those config values for its extent."""
        if isinstance(arg1, dict):
            changes = {**arg1, **changes}
        elif isinstance(arg1, str):
            changes = {arg1: arg2, **changes}
        elif arg1 is not None:
            raise TypeError("config.patch takes keyword arguments, a dict, or a name and a value")
        module = self

        class _Patch(contextlib.ContextDecorator):
            def __enter__(self):
                self.saved = {}
                try:
                    for k, v in changes.items():
                        real = module._aliases.get(k, k)
                        if real not in vars(module):
                            raise module._missing(k)
                        self.saved[real] = getattr(module, real)
                        setattr(module, real, v)
                except BaseException:
                    self.__exit__(None, None, None)
                    raise
                return self

            def __exit__(self, *exc):
                for k, v in self.saved.items():
                    setattr(module, k, v)
                return False

        return _Patch()

    def get_config_copy(self):
        """{name: value} of every setting."""
        return {
            k: v
            for k, v in vars(self).items()
            if not k.startswith("_") and not callable(v) and not isinstance(v, types.ModuleType)
        }


def install_config_module(name, aliases=None, strict=False):
    """Turns the module named name (call it at the end of the module) into a config module."""
    module = sys.modules[name]
    cls = type("ConfigModule", (_ConfigModule,), {"_aliases": dict(aliases or {}), "_strict": strict})
    module.__class__ = cls
