"""RelaxedOneHotCategorical (Concrete / Gumbel-softmax) and its log-space base ExpRelaxedCategorical."""

from typing import ClassVar

from minitorch import _C, _size
from minitorch.distributions import constraints
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import ExpTransform
from minitorch.distributions.utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical sample: ``log_softmax((logits + Gumbel noise) / temperature)``."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # the values lie on a submanifold of it
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(
            self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=validate_args
        )

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = _size.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self):
        """The shape of the parameter tensor (probs or logits)."""
        return self._categorical.param_shape

    @property
    def logits(self):
        """The log-odds (binary) or normalized log-probabilities, derived from ``probs`` on first use."""
        return self._categorical.logits

    @property
    def probs(self):
        """The probabilities, derived from ``logits`` on first use."""
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        shape = tuple(self._extended_shape(sample_shape))
        u = clamp_probs(_C.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = _C.full_like(self.temperature, float(k)).lgamma() - self.temperature.log().mul(-(k - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A continuous relaxation of OneHotCategorical on the simplex (Gumbel-softmax): ``exp`` of an
    ExpRelaxedCategorical; samples are reparameterized."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The log-odds (binary) or normalized log-probabilities, derived from ``probs`` on first use."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The probabilities, derived from ``logits`` on first use."""
        return self.base_dist.probs
