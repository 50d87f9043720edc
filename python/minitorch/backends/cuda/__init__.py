"""minitorch.backends.cuda: cuBLAS precision switches (TF32 off by default, as in PyTorch) and the SDPA backend
flags."""


class _MatmulFlags:
    """``matmul.allow_tf32`` reads and writes the float32 matmul precision the CUDA GEMM uses (True is
    ``set_float32_matmul_precision("high")``, False ``"highest"``), so both spellings stay in step."""

    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        from minitorch import _C

        return _C._get_cublas_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        from minitorch import _C

        _C._set_cublas_allow_tf32(bool(value))


matmul = _MatmulFlags()


# The SDPA backend flags (torch.nn.attention.sdpa_kernel sets the same ones); read at call time from
# nn.functional's attention module, imported late because backends sit below nn.
def _sdp(flag, value=None):
    from minitorch.nn.functional import _attention

    if value is None:
        return _attention.SDP_ENABLED[flag]
    _attention.SDP_ENABLED[flag] = bool(value)
    return None


def flash_sdp_enabled():
    """Whether scaled_dot_product_attention may use the FLASH_ATTENTION backend."""
    return _sdp("flash")


def enable_flash_sdp(enabled):
    """Allows or forbids the FLASH_ATTENTION backend of scaled_dot_product_attention (all compute the same math here)."""
    _sdp("flash", enabled)


def mem_efficient_sdp_enabled():
    """Whether scaled_dot_product_attention may use the EFFICIENT_ATTENTION backend."""
    return _sdp("mem_efficient")


def enable_mem_efficient_sdp(enabled):
    """Allows or forbids the EFFICIENT_ATTENTION backend of scaled_dot_product_attention (all compute the same math here)."""
    _sdp("mem_efficient", enabled)


def math_sdp_enabled():
    """Whether scaled_dot_product_attention may use the MATH backend."""
    return _sdp("math")


def enable_math_sdp(enabled):
    """Allows or forbids the MATH backend of scaled_dot_product_attention (all compute the same math here)."""
    _sdp("math", enabled)


def cudnn_sdp_enabled():
    """Whether scaled_dot_product_attention may use the CUDNN_ATTENTION backend."""
    return _sdp("cudnn")


def enable_cudnn_sdp(enabled):
    """Allows or forbids the CUDNN_ATTENTION backend of scaled_dot_product_attention (all compute the same math here)."""
    _sdp("cudnn", enabled)
