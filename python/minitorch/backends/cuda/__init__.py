"""minitorch.backends.cuda: cuBLAS precision switches (TF32 off by default, as in PyTorch)."""


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()
