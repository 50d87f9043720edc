"""torch._dynamo.config: the settings torch.compile reads at each capture.

recompile_limit (alias cache_size_limit): graphs kept per compiled callable before new input signatures run
eagerly; suppress_errors: a failing backend warns and runs eagerly instead of raising BackendCompilerFailed;
automatic_dynamic_shapes: after a recompile caused only by sizes, capture a size-generic graph (and
after one caused by a changed int/float argument, take that number as a graph input); assume_static_by_default
(False: the first capture is already size-generic, as dynamic=True); specialize_int (True: int arguments stay
constants, never graph inputs); capture_scalar_outputs (True: ``Tensor.item()`` stays in the graph instead of
breaking it); error_on_recompile (True: a recompile raises RecompileError).
Accepted and without effect here: accumulated_recompile_limit, verbose, inline_inbuilt_nn_modules (modules are
always inlined) and capture_dynamic_output_shape_ops (nonzero and its kind stay in the graph; reading their
shapes breaks it); the minifier's settings, with PyTorch's defaults and environment variables (there is no
minifier here: a failing backend raises BackendCompilerFailed whatever they say): repro_after (None, "dynamo"
or "aot"; TORCHDYNAMO_REPRO_AFTER), repro_level (2; TORCHDYNAMO_REPRO_LEVEL), repro_forward_only
(TORCHDYNAMO_REPRO_FORWARD_ONLY=1), repro_tolerance, repro_ignore_non_fp (TORCHDYNAMO_REPRO_IGNORE_NON_FP=1)
and same_two_models_use_fp64.
``config.patch(name=value, ...)`` sets some for a ``with`` block (or a decorated function)."""

import os

from minitorch.utils._config_module import install_config_module

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
repro_after = os.environ.get("TORCHDYNAMO_REPRO_AFTER", None)
repro_level = int(os.environ.get("TORCHDYNAMO_REPRO_LEVEL", "2"))
repro_forward_only = os.environ.get("TORCHDYNAMO_REPRO_FORWARD_ONLY") == "1"
repro_tolerance = 1e-3
repro_ignore_non_fp = os.environ.get("TORCHDYNAMO_REPRO_IGNORE_NON_FP") == "1"
same_two_models_use_fp64 = True

install_config_module(
    __name__,
    aliases={
        "cache_size_limit": "recompile_limit",
        "accumulated_cache_size_limit": "accumulated_recompile_limit",
    },
)
