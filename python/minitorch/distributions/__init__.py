"""minitorch.distributions: the probability distributions programs use most (Categorical, Bernoulli, Normal),
with PyTorch's interface: sample/rsample, log_prob, entropy, mean/variance, batch/event shapes."""

from minitorch.distributions.bernoulli import Bernoulli
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.normal import Normal

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal"]
