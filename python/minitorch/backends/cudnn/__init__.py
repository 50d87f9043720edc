"""minitorch.backends.cudnn: flags read by the cuDNN convolution path (no-ops until it is used)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    from minitorch import _C

    return _C._cuda_compiled()


def version():
    return None
