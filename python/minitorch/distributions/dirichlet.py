"""Dirichlet over the simplex; rsample normalizes reparameterized Gamma draws."""

from typing import ClassVar

from minitorch import _C, _dtype_info, _size
from minitorch import _composite_math as _cm
from minitorch.autograd import grad_mode
from minitorch.distributions import _sampling, constraints
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.nn import functional as F

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution with ``concentration`` (the last dim indexes the categories).

    ``rsample`` draws ``g_i ~ Gamma(alpha_i, 1)`` with implicit gradients and returns ``g / sum(g)``, so the
    gradient to alpha is the pathwise one of that construction."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = _size.Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        shape = tuple(self._extended_shape(sample_shape))
        g = _sampling._standard_gamma(self.concentration.expand(shape))
        y = g / g.sum(-1, True)
        fi = _dtype_info.finfo(y.dtype)
        # inside the open simplex (log_prob finite), the clamp kept out of the graph as PyTorch's sampler does
        with grad_mode.no_grad():
            y.clamp_(min=fi.tiny, max=1 - fi.eps / 2)
        return y

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return (
            _cm.xlogy(self.concentration - 1.0, value).sum(-1)
            + _C.lgamma(self.concentration.sum(-1))
            - _C.lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self):
        """The mean, ``concentration / concentration.sum(-1, True)``."""
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """The mode; where every concentration is below 1 the density peaks at a vertex: the one-hot of the
        largest coordinate of the interior formula, as PyTorch."""
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        corner = (self.concentration < 1).all(-1, keepdim=True)
        vertex = F.one_hot(mode.argmax(-1), cm1.shape[-1]).to(mode.dtype)
        return _C._where(corner, vertex, mode)

    @property
    def variance(self):
        """The variance."""
        a0 = self.concentration.sum(-1, True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def entropy(self):
        """The entropy of each distribution of the batch."""
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            _C.lgamma(self.concentration).sum(-1)
            - _C.lgamma(a0)
            - (k - a0) * _C.digamma(a0)
            - ((self.concentration - 1.0) * _C.digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - _C.lgamma(x.sum(-1))
