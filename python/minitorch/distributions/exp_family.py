"""ExponentialFamily: distributions p(x) = exp(<t(x), theta> - F(theta) + k(x)), with a generic entropy from
the log normalizer F (a Bregman divergence computed by autograd)."""

from minitorch.autograd import engine, grad_mode
from minitorch.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base of the exponential-family distributions. Subclasses give the natural parameters, the log normalizer
    and the expected carrier measure; the entropy (and the KL between two members of one family) follow."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """``F(theta) - <theta, grad F(theta)> - E[k(x)]``: the entropy from the log normalizer's gradient."""
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with grad_mode.enable_grad():
            lg = self._log_normalizer(*nparams)
            grads = engine.grad(lg.sum(), nparams, create_graph=True)
        result = lg - self._mean_carrier_measure
        for p, g in zip(nparams, grads):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
