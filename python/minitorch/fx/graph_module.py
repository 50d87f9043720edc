"""torch.fx.GraphModule: an nn.Module whose forward is Python generated from a Graph."""

import copy
import itertools
import linecache
import os
import warnings

from minitorch import _C
from minitorch.fx.graph import Graph
from minitorch.nn.modules import batchnorm as _bn
from minitorch.nn.modules import conv as _conv
from minitorch.nn.modules import linear as _linear
from minitorch.nn.modules.module import Module, _addindent
from minitorch.nn.parameter import Parameter

__all__ = ["GraphModule"]

_eval_counter = itertools.count()


def _exec_forward(src, globals_):
    """Compiles the generated source under a unique file name registered with linecache, so tracebacks
    through the generated forward show its lines."""
    key = f"<eval_with_key>.{next(_eval_counter)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    scope = dict(globals_)
    exec(compile(src, key, "exec"), scope)  # noqa: S102  (the source is our own generated code)
    return scope["forward"]


def _copy_attr(from_module, to_module, target):
    """Installs from_module's attribute at the dotted target into to_module at the same path, creating
    empty Modules on the way; a plain tensor becomes a buffer, as PyTorch's GraphModule does."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return  # the whole parent is already installed
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if isinstance(orig, _C.Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(value, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(value, _C.Tensor) and not isinstance(value, Parameter):
        to_module.register_buffer(field, value)
    else:
        setattr(to_module, field, value)


def _rebuild_graph_module(body, graph, class_name):
    root = Module()
    root.__dict__.update(body)
    gm = GraphModule(root, graph, class_name)
    for k, v in body.items():
        if k not in gm.__dict__:
            gm.__dict__[k] = v
    return gm


class GraphModule(Module):
    """An nn.Module built from root (a Module or a dict of attribute path -> value) and a Graph: the
    submodules, parameters and buffers the graph reads are copied over, and ``forward`` is the code generated
    from the graph (``code``). Edit ``graph`` and call ``recompile()`` to regenerate it."""

    def __new__(cls, *args, **kwargs):
        # each instance gets its own class, so forward (a class attribute) can differ per instance
        class GraphModuleImpl(cls):
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        self.__class__.__qualname__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if not isinstance(node.target, str):
                        raise TypeError(f"Node {node} target must be a str, got {type(node.target).__name__}")
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(
                            f"Node {node} referenced target {node.target} but that target was not provided in "
                            "``root``!"
                        )
                    targets.append(node.target)
            # parents before children, so a submodule is not overwritten by an empty Module
            # (in graph order otherwise, as PyTorch installs them, so named_children() follows the graph)
            for t in sorted(dict.fromkeys(targets), key=lambda t: t.count(".")):
                _assign_attr(root[t], self, t)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")  # noqa: TRY004  (PyTorch's class)
        self.meta = {}
        self.graph = graph

    @property
    def graph(self):
        """The Graph this module's forward is generated from; assigning one recompiles."""
        return self.__dict__["_graph"]

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise TypeError(f"Expected a Graph, got {type(g).__name__}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of forward, generated from the graph."""
        if "_code" not in self.__dict__:
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self.__dict__["_code"]

    def recompile(self):
        """Regenerates forward from the (edited) graph; returns the PythonCode."""
        python_code = self._graph_ref().python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        type(self).forward = _exec_forward(python_code.src, python_code.globals)
        return python_code

    def _graph_ref(self):
        return self.__dict__["_graph"]

    def __setattr__(self, name, value):
        if name == "graph":
            object.__setattr__(self, name, value)  # the property
            return
        super().__setattr__(name, value)

    # ---- submodules
    def add_submodule(self, target, m):
        """Installs m at the dotted path target, creating empty parents; False when a parent on the way is
        not a Module."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = Module()
                mod.add_module(item, sub)
            if not isinstance(sub, Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Removes the submodule at target; False when there is none."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, field) or not isinstance(getattr(mod, field), Module):
            return False
        delattr(mod, field)
        return True

    def delete_all_unused_submodules(self):
        """Removes the submodules no call_module or get_attr node reaches."""
        used = set()
        for node in self._graph_ref().nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                for i in range(1, len(atoms) + 1):
                    used.add(".".join(atoms[:i]))
                if node.op == "call_module":
                    sub = self.get_submodule(node.target)
                    for name, _ in sub.named_modules():
                        if name:
                            used.add(f"{node.target}.{name}")
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    # ---- writing out
    def to_folder(self, folder, module_name="FxModule"):
        """Writes this module to folder as a package: ``from <folder> import <module_name>`` gives a class whose
        instances compute what this one computes (state_dict.pt holds the weights; submodules other than Linear,
        ConvNd and BatchNormNd, which are written as their constructor calls, are pickled beside it).

        The written module imports ``minitorch as torch`` (PyTorch's writes ``import torch``), so it loads the
        library that wrote it, whether or not PyTorch is installed too."""
        from minitorch import serialization

        folder = os.fspath(folder)
        os.makedirs(folder, exist_ok=True)
        serialization.save(self.state_dict(), os.path.join(folder, "state_dict.pt"))
        tab = " " * 4
        model_str = f"""
import minitorch as torch
from math import inf, nan
from minitorch import device
NoneType = type(None)

from minitorch.nn import *
class {module_name}(torch.nn.Module):
    def __init__(self):
        super().__init__()
"""
        safe_reprs = (
            _linear.Linear,
            _conv.Conv1d,
            _conv.Conv2d,
            _conv.Conv3d,
            _bn.BatchNorm1d,
            _bn.BatchNorm2d,
            _bn.BatchNorm3d,
        )
        blobified = []
        for name, module in self.named_children():
            if type(module) in safe_reprs:
                model_str += f"{tab * 2}setattr(self, '{name}', {module!r})\n"
                continue
            module_file = os.path.join(folder, f"{name}.pt")
            serialization.save(module, module_file)
            blobified.append(name)
            module_repr = repr(module).replace("\r", " ").replace("\n", " ")
            load = f"torch.load(r'{module_file}', weights_only=False)"
            model_str += f"{tab * 2}setattr(self, '{name}', {load}) # {module_repr}\n"
        for name, buf in self._buffers.items():
            if buf is not None:
                model_str += f"{tab * 2}self.register_buffer('{name}', torch.empty({list(buf.shape)}, dtype={buf.dtype}))\n"
        for name, param in self._parameters.items():
            if param is not None:
                model_str += (
                    f"{tab * 2}setattr(self, '{name}', torch.nn.Parameter(torch.empty({list(param.shape)}, "
                    f"dtype={param.dtype})))\n"
                )
        model_str += f"{tab * 2}self.load_state_dict(torch.load(r'{folder}/state_dict.pt'))\n"
        model_str += f"{_addindent(self.code, 4)}\n"
        with open(os.path.join(folder, "module.py"), "w", encoding="utf-8") as f:
            f.write(model_str)
        with open(os.path.join(folder, "__init__.py"), "w", encoding="utf-8") as f:
            f.write("from .module import *")
        if blobified:
            warnings.warn(
                "Was not able to save the following children modules as reprs -"
                f"saved as pickled files instead: {blobified}",
                stacklevel=2,
            )

    # ---- printing
    def print_readable(self, print_output=True, include_stride=False, include_device=False, colored=False):
        """The module as a class definition whose forward is the generated code (printed and returned)."""
        lines = [f"class {type(self).__name__}(torch.nn.Module):"]
        body = self.code.strip("\n").rstrip()
        lines += ["    " + line if line.strip() else line for line in body.splitlines()]
        out = "\n".join(lines) + "\n"
        if print_output:
            print(out)
        return out

    def __str__(self):
        orig = super().__repr__()
        return "\n".join(  # noqa: FLY002
            [orig, self.code, "# To see more debug info, please use `graph_module.print_readable()`"]
        )

    # ---- copying and pickling
    def __reduce__(self):
        body = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        return (_rebuild_graph_module, (body, self._graph_ref(), type(self).__name__))

    def __deepcopy__(self, memo):
        body = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        body = copy.deepcopy(body, memo)
        graph = copy.deepcopy(self._graph_ref(), memo)
        res = _rebuild_graph_module(body, graph, type(self).__name__)
        memo[id(self)] = res
        return res

    def __copy__(self):
        res = GraphModule(self, self._graph_ref(), type(self).__name__)
        res.meta = getattr(self, "meta", {})
        return res
