"""minitorch.backends.cuda: cuBLAS precision switches (TF32 off by default, as in PyTorch)."""


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
