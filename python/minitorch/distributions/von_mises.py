"""VonMises: the circular normal distribution, sampled by Best and Fisher's rejection method."""

import math
from typing import ClassVar

from minitorch import _C, special
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _log_bessel_i0(x):
    # log I0(x) = log(i0e(x)) + x for x >= 0: exact through the scaled Bessel function (PyTorch 2.15 uses a
    # polynomial fit, ~1e-7 relative; this differs from it at that level)
    return special.i0e(x).log() + x


def _log_bessel_i1(x):
    return special.i1e(x).log() + x


def _best_fisher(loc, kappa, r, shape):
    """Von Mises draws (float64) for flat parameters by Best & Fisher (1979): a wrapped-Cauchy proposal with
    its squeeze and log tests, in rounds over the elements not yet accepted."""
    n = kappa.numel()
    out = _C.zeros((n,), dtype=kappa.dtype, device=kappa.device)
    pending = _C.arange(n, device=kappa.device)
    k, rr = kappa, r
    while pending.numel():
        u = _C.rand((3, pending.numel()), dtype=kappa.dtype, device=kappa.device)
        z = _C.cos(math.pi * u[0])
        f = (1 + rr * z) / (rr + z)
        c = k * (rr - f)
        accept = ((c * (2 - c) - u[1]) > 0) | ((c / u[1]).log() + 1 - c >= 0)
        took = accept.nonzero().reshape(-1)
        if took.numel():
            out[pending[took]] = ((u[2] - 0.5).sign() * f.clamp(-1.0, 1.0).acos())[took]
        rest = (~accept).nonzero().reshape(-1)
        pending, k, rr = pending[rest], k[rest], rr[rest]
    # back onto [-pi, pi) around loc
    return ((out.reshape(shape) + math.pi + loc) % (2 * math.pi)) - math.pi


class VonMises(Distribution):
    """The von Mises distribution on the circle: density ``exp(kappa cos(x - loc)) / (2 pi I0(kappa))``. ``loc``
    and values are angles in radians, any real (read modulo 2 pi)."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def log_prob(self, value):
        """Log of the probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return (
            self.concentration * _C.cos(value - self.loc)
            - math.log(2 * math.pi)
            - _log_bessel_i0(self.concentration)
        )

    @lazy_property
    def _loc(self):
        return self.loc.to(_C.float64)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(_C.float64)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        r = (1 + rho**2) / (2 * rho)
        # small kappa: the closed form cancels; its expansion
        return _C._where(kappa < 1e-5, 1 / kappa + kappa, r)

    def sample(self, sample_shape=()):
        """Angles in [-pi, pi), computed in float64 (float32 hangs the rejection loop near kappa = 1e-4, as in
        PyTorch) and returned in the parameters' dtype; no gradient."""
        shape = tuple(self._extended_shape(sample_shape))
        with grad_mode.no_grad():
            kappa = self._concentration.expand(shape).reshape(-1)
            r = self._proposal_r.expand(shape).reshape(-1)
            return _best_fisher(self._loc, kappa, r, shape).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        return self._expand_params(VonMises, ("loc", "concentration"), batch_shape, _instance)

    @property
    def mean(self):
        """The circular mean, ``loc``."""
        return self.loc

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance, ``1 - I1(kappa) / I0(kappa)``."""
        return 1 - (_log_bessel_i1(self.concentration) - _log_bessel_i0(self.concentration)).exp()
