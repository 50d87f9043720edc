"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict (PyTorch's semantics)."""

import operator
from collections import OrderedDict, abc
from itertools import chain, islice

from minitorch.nn.modules.module import Module, _addindent
from minitorch.nn.parameter import Parameter

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _abs_index(idx, n, kind):
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


def _no_forward(self, *args, **kwargs):
    # Module.forward's error, also for keyword arguments (the containers take any call and refuse it)
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Sequential(Module):
    """Modules run in order, each on the previous one's output. Built from modules or one OrderedDict."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator, idx):
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(iter(self._modules.values()), idx)

    def __setitem__(self, idx, module):
        key = self._get_item_by_idx(iter(self._modules.keys()), idx)
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(iter(self._modules.keys()), idx))
        # keep the numbering dense, as PyTorch does
        items = list(self._modules.items())
        self._modules.clear()
        self._modules.update({str(i): m for i, (_, m) in enumerate(items)})

    def __len__(self):
        return len(self._modules)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(  # noqa: TRY004  (PyTorch's exception type)
                f"add operator supports only objects of Sequential class, but {type(other)} is given."
            )
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")  # noqa: TRY004  (PyTorch's exception type)
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered so that parameters() and to() see them."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx, module):
        self.add_module(str(_abs_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(idx, len(self), "ModuleList")))
        values = list(self._modules.values())
        self._modules.clear()
        self._modules.update({str(i): m for i, m in enumerate(values)})

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def __repr__(self):
        if not self._modules:
            return self._get_name() + "()"
        lines = [f"({k}): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        if not isinstance(modules, abc.Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got " + type(modules).__name__
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    forward = _no_forward


class ModuleDict(Module):
    """An ordered dict of modules, registered so that parameters() and to() see them."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if not isinstance(modules, abc.Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, but got "
                + type(modules).__name__
            )
        if isinstance(modules, (OrderedDict, ModuleDict, abc.Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(modules):
                if not isinstance(m, abc.Iterable):
                    raise TypeError(
                        f"ModuleDict update sequence element #{j} should be Iterable; is {type(m).__name__}"
                    )
                if not len(m) == 2:
                    raise ValueError(
                        f"ModuleDict update sequence element #{j} has length {len(m)}; 2 is required"
                    )
                self[m[0]] = m[1]

    forward = _no_forward


class ParameterList(Module):
    """A list of parameters, registered so that parameters() and to() see them. Tensors become Parameters."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_abs_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx, param):
        idx = _abs_index(idx, len(self), "ParameterList")
        if not isinstance(param, Parameter) and hasattr(param, "dim"):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        lines = []
        for k, p in enumerate(self):
            size = "x".join(str(s) for s in p.size())
            device = "" if p.device.type == "cpu" else f" ({p.device})"
            lines.append(f"  ({k}): Parameter containing: [{p.type()} of size {size}{device}]")
        return "\n".join(lines)

    forward = _no_forward


class ParameterDict(Module):
    """An ordered dict of parameters, registered so that parameters() and to() see them."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        if not isinstance(value, Parameter) and hasattr(value, "dim"):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        items = parameters.items() if isinstance(parameters, (abc.Mapping, ParameterDict)) else parameters
        for key, value in items:
            self[key] = value

    forward = _no_forward
