"""The functorch-era API that torch.func replaced: make_functional, make_functional_with_buffers,
combine_state_for_ensemble and the FunctionalModule classes (the `functorch` package still ships them)."""

import copy

from minitorch import _C
from minitorch.nn.modules.module import Module

__all__ = [
    "FunctionalModule",
    "FunctionalModuleWithBuffers",
    "combine_state_for_ensemble",
    "make_functional",
    "make_functional_with_buffers",
]


def _names_map(named, all_named):
    """{first name of each distinct tensor: [every name it goes by]} (tied tensors have several)."""
    by_id = {}
    for name, t in named:
        by_id[id(t)] = (name, [])
    for name, t in all_named:
        by_id[id(t)][1].append(name)
    return dict(by_id.values())


def _extract(module, named_members):
    unique = tuple(named_members(remove_duplicate=True))
    names_map = _names_map(unique, tuple(named_members(remove_duplicate=False)))
    names = tuple(n for n, _ in unique)
    tensors = tuple(t for _, t in unique)
    return tensors, names, names_map


def _set(module, path, value):
    prefix, _, name = path.rpartition(".")
    mod = module.get_submodule(prefix)
    for store in (mod._parameters, mod._buffers):
        if name in store:
            old = store[name]
            store[name] = value
            return old
    old = getattr(mod, name)
    setattr(mod, name, value)
    return old


def _swap_state(module, names_map, values):
    """Puts each value under every name of its tensor; returns what the first names held."""
    old = []
    for (_, names), v in zip(names_map.items(), values):
        for i, name in enumerate(names):
            prev = _set(module, name, v)
            if i == 0:
                old.append(prev)
    return old


class FunctionalModule(Module):
    """fmodel(params, *args): the copied module run with the given parameters (make_functional's result)."""

    def __init__(self, stateless_model, param_names, names_map):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.names_map = names_map

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model_copy = copy.deepcopy(model)
        params, names, names_map = _extract(model_copy, model_copy.named_parameters)
        if disable_autograd_tracking:
            for p in params:
                p.requires_grad_(False)
        return FunctionalModule(model_copy, names, names_map), params

    def forward(self, params, *args, **kwargs):
        """The copied module's output on args with `params` (in param_names order) swapped in and back."""
        old = _swap_state(self.stateless_model, self.names_map, tuple(params))
        try:
            return self.stateless_model(*args, **kwargs)
        finally:
            _swap_state(self.stateless_model, self.names_map, old)


class FunctionalModuleWithBuffers(Module):
    """fmodel(params, buffers, *args): the copied module run with the given parameters and buffers."""

    def __init__(self, stateless_model, param_names, buffer_names, param_names_map, buffer_names_map):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.all_names_map = dict(param_names_map)
        self.all_names_map.update(buffer_names_map)

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model_copy = copy.deepcopy(model)
        params, param_names, param_map = _extract(model_copy, model_copy.named_parameters)
        buffers, buffer_names, buffer_map = _extract(model_copy, model_copy.named_buffers)
        if disable_autograd_tracking:
            for p in params:
                p.requires_grad_(False)
        fmodel = FunctionalModuleWithBuffers(model_copy, param_names, buffer_names, param_map, buffer_map)
        return fmodel, params, buffers

    def forward(self, params, buffers, *args, **kwargs):
        """The copied module's output on args with `params` and `buffers` swapped in, then swapped back."""
        old = _swap_state(self.stateless_model, self.all_names_map, tuple(params) + tuple(buffers))
        try:
            return self.stateless_model(*args, **kwargs)
        finally:
            _swap_state(self.stateless_model, self.all_names_map, old)


def make_functional(model, disable_autograd_tracking=False):
    """(fmodel, params): a stateless copy of a module without buffers and its parameters, fmodel(params, *x)."""
    if len(list(model.buffers())) > 0:
        raise RuntimeError(
            "make_functional(model): `model` has buffers. Please use make_functional_with_buffers(model) instead."
        )
    return FunctionalModule._create_from(model, disable_autograd_tracking=disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """(fmodel, params, buffers): a stateless copy of a module, fmodel(params, buffers, *x)."""
    return FunctionalModuleWithBuffers._create_from(
        model, disable_autograd_tracking=disable_autograd_tracking
    )


def combine_state_for_ensemble(models):
    """(fmodel, params, buffers) with each parameter and buffer stacked over the models (detached), for
    vmap(fmodel)(params, buffers, x)."""
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "combine_state_for_ensemble: Expected all models to have the same training/eval mode."
        )
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    funcs, params, buffers = zip(*[make_functional_with_buffers(m) for m in models])
    params = tuple(_C.stack(list(s)).detach() for s in zip(*params))
    buffers = tuple(_C.stack(list(s)).detach() for s in zip(*buffers))
    return funcs[0], params, buffers
