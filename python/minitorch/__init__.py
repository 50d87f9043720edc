"""minitorch: a tensor and deep-learning library with PyTorch's Python API and a C++17/CUDA core.

Write ``import minitorch as torch`` and PyTorch tutorial code runs on the CPU or an NVIDIA GPU.
"""

# ruff: noqa: I001  (order matters: OpenBLAS is preloaded before the extension, Size before _C uses it)
from minitorch import _preload  # noqa: F401
from minitorch._size import Size  # noqa: F401
from minitorch import _C  # minitorch._C is public API, as torch._C
from minitorch._C import (  # noqa: F401
    OutOfMemoryError,
    Tensor,
    bfloat16,
    bool,
    can_cast,
    channels_last,
    channels_last_3d,
    complex64,
    complex128,
    contiguous_format,
    device,
    dtype,
    float16,
    float32,
    float64,
    from_numpy,
    get_default_dtype,
    get_num_threads,
    initial_seed,
    int8,
    int16,
    int32,
    int64,
    memory_format,
    preserve_format,
    promote_types,
    result_type,
    seed,
    set_default_dtype,
    set_num_threads,
    uint8,
)
from minitorch._compare import allclose, equal, isclose  # noqa: F401
from minitorch._device import get_default_device, set_default_device  # noqa: F401
from minitorch._creation import as_tensor, is_floating_point, is_tensor, numel, tensor  # noqa: F401
from minitorch.functional import broadcast_shapes, nanmean, nansum, repeat_interleave  # noqa: F401
from minitorch._ops import *
from minitorch._ops import __all__ as _ops_all
from minitorch import _argcheck, _composite_math, _composite_shape
from minitorch import (
    _compile,
    _dtype_info,
    _factories,
    _method_spellings,
    _predicates,
    _random,
    _switches,
    _windows,
)
from minitorch.fft import _stft  # torch.stft/istft; also makes minitorch.fft an attribute, as torch.fft is

# the torch functions we write in Python (each module's __all__) raise PyTorch's TypeError for an argument of the
# wrong kind (_argcheck.py)
for _m in (
    _composite_shape,
    _composite_math,
    _dtype_info,
    _switches,
    _predicates,
    _random,
    _windows,
    _factories,
    _method_spellings,
    _compile,
    _stft,
):
    globals().update({_n: _argcheck.translating(getattr(_m, _n), _n) for _n in _m.__all__})
from minitorch._tensor import _install_tensor_methods
from minitorch._storage import TypedStorage, UntypedStorage  # noqa: F401
from minitorch._tensor_str import set_printoptions  # noqa: F401
from minitorch.serialization import load, save  # noqa: F401
from minitorch.utils.dlpack import from_dlpack, to_dlpack  # noqa: F401
from minitorch.version import __version__  # noqa: F401

# PyTorch's alternative dtype names
half = float16
float = float32
double = float64
long = int64
int = int32
short = int16
cfloat = complex64
cdouble = complex128

from minitorch import autograd, backends, cuda, testing, utils, version  # noqa: F401
from minitorch import amp, cpu, nn  # noqa: F401

# torch.conv2d, torch.dropout, ...: the torch-level spellings of F's ops, over nn
from minitorch import _nn_ops

globals().update({_n: _argcheck.translating(getattr(_nn_ops, _n), _n) for _n in _nn_ops.__all__})
from minitorch.cuda import amp as _cuda_amp  # torch.cuda.amp, the shim over amp, sits above it
from minitorch.nn.functional import (  # noqa: F401  (the torch-level names of these F functions)
    channel_shuffle,
    conv_tbc,
    cosine_similarity,
    hardshrink,
    native_channel_shuffle,
    pairwise_distance,
    pdist,
    prelu,
    rms_norm,
)
from minitorch._legacy import (  # noqa: F401  (legacy tensor types; torch.cuda's live in minitorch.cuda)
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    set_default_tensor_type,
)
from minitorch._generator import manual_seed  # noqa: F401  (returns the default generator)
from minitorch._generator import thread_safe_generator  # noqa: F401
from minitorch.amp import autocast  # noqa: F401
from minitorch.nn.utils.parametrizations import _weight_norm, norm_except_dim  # noqa: F401
from minitorch.amp.autocast_mode import (  # noqa: F401
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from minitorch import optim  # noqa: F401
from minitorch._symbolic import sym_float, sym_int, sym_ite, sym_max, sym_min, sym_not, sym_sqrt, sym_sum  # noqa: F401
from minitorch._symbolic import sym_constrain_range, sym_constrain_range_for_size, sym_fresh_size  # noqa: F401

_constraint_signature = "Scalar size, *, int? min=None, int? max=None"
sym_constrain_range = _argcheck.parsing(sym_constrain_range, [_constraint_signature], "sym_constrain_range")
sym_constrain_range_for_size = _argcheck.parsing(
    sym_constrain_range_for_size, [_constraint_signature], "sym_constrain_range_for_size"
)
del _constraint_signature
from minitorch import distributions, linalg, multiprocessing, return_types, signal, special  # noqa: F401  (multiprocessing registers tensor reductions)
from minitorch.distributions._sampling import (  # noqa: F401  (the samplers PyTorch has as ops)
    binomial,
    poisson,
    sample_dirichlet as _sample_dirichlet,
    standard_gamma as _standard_gamma,
    standard_gamma_grad as _standard_gamma_grad,
)
from minitorch.distributions._sampling import igamma, igammac  # noqa: F401  (torch.igamma, torch.igammac)

# torch.special's regularized incomplete gamma functions live beside the Gamma sampler that needs them
# (distributions._sampling, a layer above special): the root, which assembles both, hands them to special.
from minitorch.distributions._sampling import gammainc as _gammainc, gammaincc as _gammaincc

special.gammainc, special.gammaincc = _gammainc, _gammaincc
special.__all__ += ["gammainc", "gammaincc"]
from minitorch.distributions import _sampling as _dist_sampling

# Tensor methods of functions defined above the tensor layer (nn.functional's hardshrink/prelu, igamma)
for _m in (_nn_ops, _dist_sampling):
    for _n, _f in _m.TENSOR_METHODS.items():
        setattr(Tensor, _n, _argcheck.translating(_f, _n, method=True))
from minitorch.linalg._decomp import TORCH as _linalg_torch  # torch.inverse, torch.svd, ... (decompositions)
from minitorch.linalg import _torch_frobenius_norm, _torch_nuclear_norm

_linalg_torch = dict(_linalg_torch, frobenius_norm=_torch_frobenius_norm, nuclear_norm=_torch_nuclear_norm)

# PyTorch's TypeError for an argument of the wrong kind; the removed functions (qr, cholesky, ...) raise as is
_removed = ("qr", "cholesky", "symeig", "eig", "matrix_rank", "solve", "lstsq")
globals().update(
    {_n: _f if _n in _removed else _argcheck.translating(_f, _n) for _n, _f in _linalg_torch.items()}
)
from minitorch.autograd.anomaly_mode import (  # noqa: F401
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from minitorch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

_install_tensor_methods(Tensor)
from minitorch import sparse  # torch.sparse: the sparse tensor types, their constructors and layouts

# sparse_coo_tensor, sparse_csr_tensor, the layouts, spmm/smm/hspmm and sparse-aware mm/matmul/addmm (which try
# the C++ function first and look for a sparse argument only after its TypeError)
globals().update(sparse.torch_namespace(globals()))
sparse._install_tensor_methods(
    Tensor
)  # Tensor.layout, is_sparse, to_sparse(_csr), to_dense, sparse_mask, ...
from minitorch._lobpcg import lobpcg  # noqa: F401  (over linalg and the sparse matmul)
from minitorch._segment_reduce import segment_reduce  # noqa: F401
from minitorch._foreach import _FUNCTIONS as _foreach_functions

globals().update(_foreach_functions)  # torch._foreach_add and its family (private names, as PyTorch's)
from minitorch import masked  # noqa: F401  (torch.masked: masked reductions and MaskedTensor)
from minitorch import nested  # torch.nested: NestedTensor, a batch of tensors of different sizes

nested._install_tensor_methods(Tensor)  # Tensor.is_nested
# x.trace(1), s.values(1): PyTorch's TypeError for a method that takes no arguments
for _cls in (Tensor, sparse.SparseCooTensor, sparse.SparseCompressedTensor):
    _argcheck.self_only_methods(_cls)
# the methods written in Python look for __torch_function__ arguments while a transform runs, as the C++ ones do
_C._guard_tensor_methods(Tensor)
# the small methods (ndimension, stride, contiguous, x.float() of a float tensor, new, ...) answer their common call
# in C and hand the rest to the methods installed above (csrc/python/bind_tensor.cpp)
_C._install_fast_methods(Tensor)
from minitorch._device import _install as _install_device_context

_install_device_context()
from minitorch._pickle_names import name_exported_functions

name_exported_functions()  # pickle.dumps(torch.cond) finds torch.cond (the checked wrapper, not what it wraps)
del (
    name_exported_functions,
    _cls,
    _install_tensor_methods,
    _ops_all,
    _dist_sampling,
    _n,
    _f,
    _install_device_context,
    _m,
    _cuda_amp,
    _linalg_torch,
    _removed,
    _torch_frobenius_norm,
    _torch_nuclear_norm,
)

# Subpackages loaded on first use (as PyTorch loads torch._dynamo and friends): the program transforms and other
# packages most scripts never touch, so `import minitorch` does not pay for them.
_LAZY_SUBMODULES = frozenset({
    "accelerator", "fx", "func", "jit", "compiler", "_dynamo", "_inductor", "overrides", "profiler", "random", "types",
    "library", "export", "hub",
})  # fmt: skip


def __getattr__(name):
    if name == "vmap":  # torch.vmap is torch.func.vmap
        from minitorch.func import vmap

        return vmap
    if name == "ops":  # torch.ops: the operator namespaces torch.library fills
        from minitorch._library.ops import ops

        return ops
    if name in _LAZY_SUBMODULES:
        import importlib

        try:
            return importlib.import_module(f"minitorch.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"minitorch.{name}":
                raise
    raise AttributeError(f"module 'minitorch' has no attribute '{name}'")


# the public functions written in Python hand a call a tensor-like made fail to its __torch_function__ as the
# outermost torch function of the call (_handover.py; last: every namespace holds its functions by now)
from minitorch import _handover

_handover.install()
