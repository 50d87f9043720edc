"""torch._inductor.config: the backend's settings as module attributes (``torch._inductor.config.debug =
True``); torch.compile(options=...) overrides them per compile. Acted on: debug / trace.enabled (print the
generated code), cpp.threads (threads per kernel; -1: torch.get_num_threads()), fusion (off: graphs run as
captured). The others are PyTorch's tuning switches scripts set; accepted and recorded, with no counterpart."""

import types

debug = False
fusion = True
max_autotune = False
max_autotune_gemm = False
max_autotune_pointwise = False
coordinate_descent_tuning = False
epilogue_fusion = True
shape_padding = False
fallback_random = False
freezing = False
aggressive_fusion = False
cpp_wrapper = False
benchmark_kernel = False
force_disable_caches = False
fx_graph_cache = True
triton = types.SimpleNamespace(cudagraphs=False, unique_kernel_names=False, cudagraph_trees=True)
cpp = types.SimpleNamespace(threads=-1)
trace = types.SimpleNamespace(enabled=False)


def get_config_copy():
    """{option name: value}, dotted names for the nested groups ("cpp.threads")."""
    out = {}
    for k, v in list(globals().items()):
        if k.startswith("_") or callable(v) or isinstance(v, types.ModuleType):
            continue
        if isinstance(v, types.SimpleNamespace):
            for sub, val in vars(v).items():
                out[f"{k}.{sub}"] = val
        else:
            out[k] = v
    return out
