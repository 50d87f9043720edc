"""MixtureSameFamily: a Categorical mixture over the rightmost batch dim of one component distribution."""

from typing import ClassVar

from minitorch import _size
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture whose components are the rightmost batch dim (size K) of ``component_distribution``, weighted by
    ``mixture_distribution`` (a Categorical over K): ``Normal(locs, scales)`` with batch (K,) and
    ``Categorical(weights)`` make a 1-D Gaussian mixture."""

    arg_constraints: ClassVar[dict] = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(  # noqa: TRY004
                " The Mixture distribution needs to be an  instance of torch.distributions.Categorical"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(  # noqa: TRY004
                "The Component distribution needs to be an instance of torch.distributions.Distribution"
            )
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for s1, s2 in zip(reversed(mdbs), reversed(cdbs)):
            if s1 != 1 and s2 != 1 and s1 != s2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                    f"`component_distribution.batch_shape`({cdbs})"
                )
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        batch_shape = _size.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            tuple(batch_shape) + (self._num_component,)
        )
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(
            batch_shape=batch_shape, event_shape=new._component_distribution.event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        """The constraint of the values the distribution takes."""
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The Categorical over the components."""
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The component distribution (its rightmost batch dim indexes the components)."""
        return self._component_distribution

    def _weights(self):
        # mixture probs (..., K) with a singleton per event dim, to broadcast against the components' values
        p = self.mixture_distribution.probs
        return p.reshape(tuple(p.shape) + (1,) * self._event_ndims)

    @property
    def mean(self):
        """The mean."""
        return (self._weights() * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        """The law of total variance: mean of the component variances plus variance of the component means."""
        w = self._weights()
        d = -1 - self._event_ndims
        mean_cond_var = (w * self.component_distribution.variance).sum(d)
        var_cond_mean = (w * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)).sum(d)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        """The cumulative distribution function at ``value``."""
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(x)
        lp = self.component_distribution.log_prob(self._pad(x))  # (S, B, K)
        log_mix = self.mixture_distribution.logits.log_softmax(-1)  # (B, K)
        return (lp + log_mix).logsumexp(-1)

    def sample(self, sample_shape=()):
        """Draws a component index per sample, then picks that component's draw (all components are drawn)."""
        with grad_mode.no_grad():
            n_sample, n_batch = len(sample_shape), len(self.batch_shape)
            gather_dim = n_sample + n_batch
            es = tuple(self.event_shape)
            mix = self.mixture_distribution.sample(sample_shape)
            comp = self.component_distribution.sample(sample_shape)
            idx = mix.reshape(tuple(mix.shape) + (1,) * (len(es) + 1))
            idx = idx.expand(tuple(mix.shape) + (1,) + es)
            return comp.gather(gather_dim, idx).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
