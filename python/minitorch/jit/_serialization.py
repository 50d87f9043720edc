"""torch.jit.save / torch.jit.load for what our script and trace produce, in our own archive format.

The archive is a zip holding ``mtjit/version``, ``mtjit/kind`` (module or function), ``mtjit/code.py`` (the
generated code, for reading), ``mtjit/state.pt`` (the state dict, written by minitorch.save), ``mtjit/program.pt``
(the captured graph and what it needs: the standard nn modules it calls, the tensors it reads; minitorch.save)
and ``extra/<name>`` for _extra_files. A captured module loads without its Python class: its user-defined
modules are not needed, only the graph, the leaf modules it calls (minitorch.nn classes) and the tensors.
A module or function that runs eagerly (script could not capture it) is stored by pickling it, so its class
or function must be importable when loading. A captured module's class, when importable, is also stored by
reference (``mtjit/class.pkl``, with its plain attributes: numbers, strings), so the loaded module keeps its
``@torch.jit.export`` methods and helpers, as TorchScript compiles and saves them; when the class cannot be
imported at load time, forward still runs and the other methods are missing. PyTorch's TorchScript archives
cannot be loaded.
"""

import importlib
import io
import os
import pickle
import warnings
import zipfile

from minitorch import serialization
from minitorch.fx.graph_module import GraphModule
from minitorch.jit._script import RecursiveScriptModule, ScriptFunction, ScriptModule
from minitorch.nn.modules.module import Module

__all__ = ["load", "save"]

_PREFIX = "mtjit/"
_VERSION = "1"


def _to_bytes(obj):
    buf = io.BytesIO()
    serialization.save(obj, buf)
    return buf.getvalue()


def _skeleton(mod):
    """{dotted path: value} rebuilding what the captured code reads: the modules it calls and every parameter
    and buffer (so the state dict loads strictly), in the module tree's order (so its keys keep their order)."""
    graph = mod._mt_fx_graph
    calls = {n.target for n in graph.nodes if n.op == "call_module"}
    out = {}

    def walk(m, prefix):
        if prefix in calls:
            out[prefix] = ("module", m)
            return
        dot = "." if prefix else ""
        for name, p in m._parameters.items():
            if p is not None:
                out[prefix + dot + name] = ("param", p)
        for name, b in m._buffers.items():
            if b is not None:
                kind = "buffer_np" if name in m._non_persistent_buffers_set else "buffer"
                out[prefix + dot + name] = (kind, b)
        for name, child in m._modules.items():
            if child is not None:
                walk(child, prefix + ("." if prefix else "") + name)

    walk(mod, "")
    covered = tuple(p + "." for p in calls)
    for n in graph.nodes:
        if n.op == "get_attr" and n.target not in out and not n.target.startswith(covered):
            if n.target in mod.__dict__.get("_mt_constants", {}):
                continue
            obj = mod
            for atom in n.target.split("."):
                obj = getattr(obj, atom)
            out[n.target] = ("plain", obj)
    return out


_PLAIN = (bool, int, float, complex, str, bytes, type(None))


def _class_reference(m):
    """Pickled (class, plain attributes) of a captured module, or None when its class cannot be pickled by
    reference (a class local to a function)."""
    attrs = {
        k: v
        for k, v in m.__dict__.items()
        if not k.startswith("_") and k not in ("training", "original_name") and isinstance(v, _PLAIN)
    }
    try:
        return pickle.dumps((m.__dict__["_mt_cls"], attrs))
    except (pickle.PicklingError, AttributeError, TypeError):
        return None


def save(m, f, _extra_files=None):
    """Writes a ScriptModule or ScriptFunction from torch.jit.script/trace to f (a path or a binary file)."""
    warnings.warn(
        "`torch.jit.save` is deprecated. Please switch to `torch.export`.", FutureWarning, stacklevel=2
    )
    if isinstance(m, ScriptFunction):
        kind = "function"
        if m.captured:
            gm = m._gm
            attrs = {k: ("plain", v) for k, v in gm.__dict__.items() if k.startswith("_tensor_constant")}
            attrs.update({k: ("buffer", v) for k, v in gm.named_buffers()})
            program = {"graph": gm.graph, "attrs": attrs, "name": m.name, "traced": m._traced}
        else:
            program = {"eager": _by_name(m._fn), "name": m.name}
        state = {}
    elif isinstance(m, RecursiveScriptModule):
        kind = "module"
        name = m.__dict__["original_name"]
        if m.captured:
            program = {
                "graph": m._mt_fx_graph,
                "attrs": _skeleton(m),
                "constants": dict(m.__dict__["_mt_constants"]),
                "name": name,
                "training": m.training,
                "traced": type(m).__name__,
            }
        else:
            program = {"eager": _eager_original(m), "name": name, "training": m.training}
        state = m.state_dict()
    elif isinstance(m, ScriptModule):
        kind = "module"
        # a frozen module has no training flag (jit._freeze)
        program = {"eager": m, "name": type(m).__name__, "training": getattr(m, "training", False)}
        state = m.state_dict()
    else:
        raise TypeError(
            f"torch.jit.save: expected a ScriptModule or ScriptFunction (from torch.jit.script or torch.jit.trace), "
            f"got {type(m).__name__}"
        )
    cls_ref = _class_reference(m) if isinstance(m, RecursiveScriptModule) and m.captured else None
    code = m.code or ""
    own = not isinstance(f, (str, os.PathLike))
    fh = f if own else open(f, "wb")  # noqa: SIM115  (closed below)
    try:
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as z:
            z.writestr(_PREFIX + "version", _VERSION)
            z.writestr(_PREFIX + "kind", kind)
            z.writestr(_PREFIX + "code.py", code)
            z.writestr(_PREFIX + "state.pt", _to_bytes(state))
            z.writestr(_PREFIX + "program.pt", _to_bytes(program))
            if cls_ref is not None:
                z.writestr(_PREFIX + "class.pkl", cls_ref)
            for k, v in (_extra_files or {}).items():
                z.writestr("extra/" + k, v if isinstance(v, (bytes, bytearray)) else str(v).encode())
    finally:
        if not own:
            fh.close()


def _function_by_name(module, qualname):
    """A function saved by name: its module's attribute, or the function a ScriptFunction there wraps."""
    obj = importlib.import_module(module)
    for atom in qualname.split("."):
        obj = getattr(obj, atom)
    return obj._fn if isinstance(obj, ScriptFunction) else obj


class _ByName:
    """Pickles a function by its module and name as pickle does, where the name is bound to its ScriptFunction
    (``@torch.jit.script`` over a def rebinds it, so pickle's own lookup finds another object and refuses)."""

    def __init__(self, fn):
        self.fn = fn

    def __reduce__(self):
        return (_function_by_name, (self.fn.__module__, self.fn.__qualname__))


def _by_name(fn):
    try:
        return _ByName(fn) if _function_by_name(fn.__module__, fn.__qualname__) is fn else fn
    except (AttributeError, ImportError, TypeError):  # not reachable by name: pickled as it would be
        return fn


def _eager_original(m):
    """A plain instance of the scripted module's class over the same state (what an eager module saves)."""
    cls = m.__dict__["_mt_cls"]
    obj = cls.__new__(cls)
    d = {k: v for k, v in m.__dict__.items() if not k.startswith("_mt_") and k != "original_name"}
    obj.__dict__.update(d)
    return obj


def _assign(root, path, entry):
    kind, value = entry
    *prefix, field = path.split(".")
    mod = root
    for atom in prefix:
        nxt = mod._modules.get(atom)
        if nxt is None:
            nxt = Module()
            mod.add_module(atom, nxt)
        mod = nxt
    if kind == "module":
        mod.add_module(field, value)
    elif kind == "param":
        mod.register_parameter(field, value)
    elif kind in ("buffer", "buffer_np"):
        mod.register_buffer(field, value, persistent=kind == "buffer")
    else:
        object.__setattr__(mod, field, value)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False, **kwargs):
    """Reads an archive written by torch.jit.save (ours). A TorchScript archive written by PyTorch raises
    RuntimeError: minitorch cannot run TorchScript."""
    warnings.warn(
        "`torch.jit.load` is deprecated. Please switch to `torch.export`.", FutureWarning, stacklevel=2
    )
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise RuntimeError(
            "PytorchStreamReader failed reading zip archive: failed finding central directory"
        ) from None
    with z:
        names = z.namelist()
        if _PREFIX + "version" not in names:
            if any("/code/" in n or n.endswith("constants.pkl") for n in names):
                raise RuntimeError(
                    "torch.jit.load: this is a TorchScript archive written by PyTorch; minitorch cannot load "
                    "TorchScript (it has no TorchScript interpreter). Save the model's state_dict with torch.save "
                    "in PyTorch and load it into the same nn.Module here."
                )
            # PyTorch's words for a zip that is no TorchScript archive (a torch.save checkpoint, say)
            raise RuntimeError("PytorchStreamReader failed locating file constants.pkl: file not found")
        kind = z.read(_PREFIX + "kind").decode()
        state = serialization.load(io.BytesIO(z.read(_PREFIX + "state.pt")), map_location=map_location)
        program = serialization.load(
            io.BytesIO(z.read(_PREFIX + "program.pt")), map_location=map_location, weights_only=False
        )
        cls_ref = z.read(_PREFIX + "class.pkl") if _PREFIX + "class.pkl" in names else None
        if _extra_files is not None:
            for k in list(_extra_files):
                key = "extra/" + k
                _extra_files[k] = z.read(key) if key in names else b""
    if kind == "function":
        if "eager" in program:
            return ScriptFunction(program["eager"])
        root = Module()
        for k, v in program["attrs"].items():
            _assign(root, k, v)
        gm = GraphModule(root, program["graph"], program["name"])
        return ScriptFunction(None, gm, name=program["name"], traced=program.get("traced", False))
    if "eager" in program:
        mod = program["eager"]
        if isinstance(mod, ScriptModule):
            return mod
        from minitorch.jit._script import _source_of

        out = RecursiveScriptModule(mod, code=_source_of(type(mod).forward), original_name=program["name"])
    else:
        root = Module()
        for k, v in program["attrs"].items():
            _assign(root, k, v)
        root.train(program["training"])
        from minitorch.jit import _trace

        cls = (
            _trace.TopLevelTracedModule
            if program.get("traced") == "TopLevelTracedModule"
            else RecursiveScriptModule
        )
        out = cls(root, program["graph"], program["constants"], original_name=program["name"])
        _attach_class(out, cls_ref)
    out.load_state_dict(state)
    out.train(program["training"])
    return out


def _attach_class(out, cls_ref):
    # a class that moved or was renamed since saving: forward still runs from the graph
    if cls_ref is None:
        return
    try:
        cls, attrs = pickle.loads(cls_ref)
    except Exception:  # noqa: BLE001
        return
    out.__dict__["_mt_cls"] = cls
    for k, v in attrs.items():
        out.__dict__.setdefault(k, v)


def _save_method(self, f, _extra_files=None):
    """torch.jit.save(self, f, _extra_files)."""
    return save(self, f, _extra_files=_extra_files)


def _save_to_buffer(self, _extra_files=None):
    """The archive torch.jit.save writes, as bytes."""
    buf = io.BytesIO()
    save(self, buf, _extra_files=_extra_files)
    return buf.getvalue()


ScriptModule.save = _save_method
ScriptFunction.save = _save_method
ScriptModule.save_to_buffer = _save_to_buffer
ScriptFunction.save_to_buffer = _save_to_buffer
