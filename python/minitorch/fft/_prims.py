"""The three FFT primitives of _C (c2c, r2c, c2r) with their derivatives, as autograd.Functions."""

from minitorch import _C
from minitorch.autograd.function import Function


def _needs_grad(x):
    return _C.is_grad_enabled() and x.requires_grad


class _C2C(Function):
    @staticmethod
    def forward(ctx, x, dim, norm, forward):
        ctx.args = (dim, norm, forward)
        return _C._fft_c2c(x, dim, norm, forward)

    @staticmethod
    def backward(ctx, g):
        # the adjoint of a DFT is the DFT of the other direction with the same real scale
        dim, norm, forward = ctx.args
        return c2c(g, dim, norm, not forward), None, None, None


class _R2C(Function):
    @staticmethod
    def forward(ctx, x, dim, norm, onesided):
        ctx.args = (dim, norm, onesided, x.shape[dim[-1]])
        return _C._fft_r2c(x, dim, norm, onesided)

    @staticmethod
    def backward(ctx, g):
        dim, norm, onesided, n = ctx.args
        if onesided and g.shape[dim[-1]] != n:
            # the bins the forward dropped contributed nothing: extend the half spectrum with zeros
            pad = list(g.shape)
            pad[dim[-1]] = n - g.shape[dim[-1]]
            g = _C.cat([g, _C.zeros(pad, dtype=g.dtype, device=g.device)], dim[-1])
        return c2c(g, dim, norm, False).real, None, None, None


class _C2R(Function):
    @staticmethod
    def forward(ctx, x, dim, norm, last_dim_size):
        ctx.args = (dim, norm, last_dim_size)
        return _C._fft_c2r(x, dim, norm, last_dim_size)

    @staticmethod
    def backward(ctx, g):
        # each bin strictly between DC and Nyquist stands for itself and its conjugate twin in the real output
        dim, norm, n = ctx.args
        gi = r2c(g, dim, norm, True)
        twins = n - gi.shape[dim[-1]]
        if twins > 0:
            scale = _C.ones(gi.shape[dim[-1]], dtype=g.dtype, device=g.device)
            scale[1 : 1 + twins] = 2.0
            shape = [1] * gi.dim()
            shape[dim[-1]] = -1
            gi = gi * scale.reshape(shape)
        return gi, None, None, None


def c2c(x, dim, norm, forward):
    """The complex transform of x over dim (forward or inverse), norm a _C norm mode; differentiable."""
    dim = list(dim)
    return _C2C.apply(x, dim, norm, forward) if _needs_grad(x) else _C._fft_c2c(x, dim, norm, forward)


def r2c(x, dim, norm, onesided):
    """The transform of real x over dim; onesided keeps dim[-1]'s n // 2 + 1 frequencies; differentiable."""
    dim = list(dim)
    return _R2C.apply(x, dim, norm, onesided) if _needs_grad(x) else _C._fft_r2c(x, dim, norm, onesided)


def c2r(x, dim, norm, last_dim_size):
    """The real inverse of a half spectrum over dim, last_dim_size points along dim[-1]; differentiable."""
    dim = list(dim)
    if _needs_grad(x):
        return _C2R.apply(x, dim, norm, last_dim_size)
    return _C._fft_c2r(x, dim, norm, last_dim_size)
