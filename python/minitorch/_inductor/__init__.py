"""torch._inductor for minitorch: the default torch.compile backend.

``compile_fx(gm, example_inputs)`` fuses the graph's chains of elementwise ops (and a LayerNorm with the
elementwise ops around it) into C++ loops generated for the group (``fusion``, ``codegen``), compiled at run
time by the system C++ compiler and cached on disk (``codecache``), and returns the graph with each group
replaced by a call of its kernel. Everything else in the graph (matmuls, convolutions, reductions...) runs as
the eager op it already is.

Not done (documented gaps): no backward code generation (a group whose inputs require grad runs its original
ops, so training is eager for fused groups); graphs on CUDA are not fused: they run eagerly, or, with
mode="reduce-overhead" (option ``triton.cudagraphs``), are replayed as CUDA graphs (``cudagraphs``); no fusion
into matmul epilogues.

Seeing the generated code: ``MINITORCH_COMPILE_DEBUG=1`` prints each generated source (with its cache path)
to stderr; ``debug_sources()`` lists the sources generated or loaded in this process; a compiled function or
module lists its kernels in ``_mt_kernels`` (each with ``.source``, ``.ops``, ``.calls``, ``.eager_calls``).
"""

import ctypes
import os
import sys
import warnings

from minitorch import _C
from minitorch._inductor import codecache, codegen, config, fusion
from minitorch._inductor.cudagraphs import CUDAGraphRunner
from minitorch._inductor.meta import TensorMeta, meta_of, record
from minitorch._inductor.utils import user_stacklevel

__all__ = ["compile", "compile_fx", "config", "debug_sources", "list_mode_options", "list_options"]

_MODE_OPTIONS = {
    "default": {},
    "lite": {},
    "reduce-overhead": {"triton.cudagraphs": True},
    "max-autotune-no-cudagraphs": {"max_autotune": True, "coordinate_descent_tuning": True},
    "max-autotune": {"max_autotune": True, "triton.cudagraphs": True, "coordinate_descent_tuning": True},
}

_sources = []  # (library path, source) of every kernel file this process generated or loaded


def list_mode_options(mode=None, dynamic=None):
    """The options each torch.compile mode sets ({mode: options}), or those of one mode."""
    if mode:
        try:
            return dict(_MODE_OPTIONS[mode])
        except KeyError:
            raise RuntimeError(
                f"Unrecognized mode={mode}, should be one of: {', '.join(_MODE_OPTIONS.keys())}"
            ) from None
    return {k: dict(v) for k, v in _MODE_OPTIONS.items()}


def list_options():
    """The option names torch.compile(options=...) accepts for this backend."""
    return list(config.get_config_copy())


def check_options(options):
    """Validated options (PyTorch's errors for an unknown name or a value of the wrong type)."""
    out = {}
    known = config.get_config_copy()
    for key, val in (options or {}).items():
        name = key.replace("-", "_") if key.replace("-", "_") in known else key
        if name not in known:
            raise RuntimeError(f"Unexpected optimization option {key}, known options are {list(known)}")
        default = known[name]
        if not isinstance(val, type(default)) or (
            isinstance(default, int) and isinstance(val, bool) and not isinstance(default, bool)
        ):
            raise RuntimeError(  # noqa: TRY004  (PyTorch's class)
                f"Unexpected type of attr {key}, got {type(val).__name__} should be {type(default).__name__}"
            )
        out[name] = val
    return out


def debug_sources():
    """[(library path, C++ source)] of the kernels generated or loaded by this process, oldest first."""
    return list(_sources)


def _debug_enabled(opts):
    return bool(opts.get("debug") or opts.get("trace.enabled")) or os.environ.get(
        "MINITORCH_COMPILE_DEBUG", ""
    ) not in ("", "0")


def _ensure_meta(gm, example_inputs):
    """Records a TensorMeta on every node (running the graph once on the example inputs) unless capture did."""
    if all(n.op == "output" or "val" in n.meta for n in gm.graph.nodes):
        return True
    if any(fusion.is_barrier(n, gm) for n in gm.graph.nodes):
        return False  # running it to learn shapes would repeat its writes
    from minitorch.fx import Interpreter

    class _Recorder(Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            record(n, out)
            return out

    try:
        _Recorder(gm).run(*example_inputs)
    except Exception:  # noqa: BLE001  (a graph we cannot run on these inputs is left unfused)
        return False
    return True


def _on_cuda(gm, example_inputs):
    if any(isinstance(t, _C.Tensor) and t.is_cuda for t in example_inputs):
        return True
    for n in gm.graph.nodes:
        m = meta_of(n)
        if isinstance(m, TensorMeta) and m.device.type == "cuda":
            return True
    return False


def compile_fx(gm, example_inputs, config_patches=None, **kwargs):
    """The inductor backend: gm with its elementwise groups replaced by generated C++ kernels (a callable
    GraphModule with ``_mt_kernels``). Graphs on CUDA come back as they are, or wrapped to replay as CUDA graphs
    under ``triton.cudagraphs`` (mode="reduce-overhead"); graphs with nothing to fuse, and all graphs when no
    C++ compiler works, come back as they are (run eagerly)."""
    opts = {**config.get_config_copy(), **(config_patches or {})}
    gm._mt_kernels = []
    if _on_cuda(gm, list(example_inputs)):
        if opts.get("triton.cudagraphs"):
            return CUDAGraphRunner(gm.forward, gm)
        return gm
    if not opts.get("fusion", True):
        return gm
    if not _ensure_meta(gm, list(example_inputs)):
        return gm
    new_gm, kernels = fusion.fuse(gm)
    if not kernels:
        return gm
    source = codegen.generate([k.spec for k in kernels])
    if codecache.compiler() is None:
        codecache.warn_no_compiler_once()
        return gm
    try:
        lib, path = codecache.load(source)
    except codecache.CompileFailed as e:
        warnings.warn(
            f"torch.compile: the generated kernels did not compile; running eagerly.\n{e}",
            stacklevel=user_stacklevel(),
        )
        return gm
    threads = opts.get("cpp.threads", -1)
    for k in kernels:
        fn = getattr(lib, k.name)
        n_ptr = len(k.kinds) + k.n_outputs
        fn.argtypes = [ctypes.c_void_p] * n_ptr + [ctypes.c_int64, ctypes.c_int64, ctypes.c_int]
        fn.restype = None
        k.cfn = fn
        k.source = source
        k.library = path
        k.nthreads = threads if threads and threads > 0 else None
    _sources.append((path, source))
    if _debug_enabled(opts):
        print(f"# minitorch inductor: {len(kernels)} kernel(s) in {path}", file=sys.stderr)
        print(source[len(codegen.prelude()) :].strip() + "\n", file=sys.stderr)
        print(new_gm.code, file=sys.stderr)
    new_gm._mt_kernels = kernels
    return new_gm


def compile(gm, example_inputs, options=None):
    """compile_fx with validated options."""
    return compile_fx(gm, example_inputs, config_patches=check_options(options))
