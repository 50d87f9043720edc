"""minitorch.distributions: probability distributions with PyTorch's interface (sample/rsample, log_prob, cdf,
entropy, mean/variance, batch/event shapes), constraints, transforms, and the kl_divergence registry."""

from minitorch.distributions import constraints, transforms  # noqa: F401  (submodules of the public API)
from minitorch.distributions.bernoulli import Bernoulli
from minitorch.distributions.beta import Beta
from minitorch.distributions.binomial import Binomial
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.cauchy import Cauchy
from minitorch.distributions.chi2 import Chi2
from minitorch.distributions.constraint_registry import biject_to, transform_to
from minitorch.distributions.continuous_bernoulli import ContinuousBernoulli
from minitorch.distributions.dirichlet import Dirichlet
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.exponential import Exponential
from minitorch.distributions.fishersnedecor import FisherSnedecor
from minitorch.distributions.gamma import Gamma
from minitorch.distributions.generalized_pareto import GeneralizedPareto
from minitorch.distributions.geometric import Geometric
from minitorch.distributions.gumbel import Gumbel
from minitorch.distributions.half_cauchy import HalfCauchy
from minitorch.distributions.half_normal import HalfNormal
from minitorch.distributions.independent import Independent
from minitorch.distributions.inverse_gamma import InverseGamma
from minitorch.distributions.kl import kl_divergence, register_kl
from minitorch.distributions.kumaraswamy import Kumaraswamy
from minitorch.distributions.laplace import Laplace
from minitorch.distributions.lkj_cholesky import LKJCholesky
from minitorch.distributions.log_normal import LogNormal
from minitorch.distributions.logistic_normal import LogisticNormal
from minitorch.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from minitorch.distributions.mixture_same_family import MixtureSameFamily
from minitorch.distributions.multinomial import Multinomial
from minitorch.distributions.multivariate_normal import MultivariateNormal
from minitorch.distributions.negative_binomial import NegativeBinomial
from minitorch.distributions.normal import Normal
from minitorch.distributions.one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from minitorch.distributions.pareto import Pareto
from minitorch.distributions.poisson import Poisson
from minitorch.distributions.relaxed_bernoulli import RelaxedBernoulli
from minitorch.distributions.relaxed_categorical import RelaxedOneHotCategorical
from minitorch.distributions.studentT import StudentT
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import *
from minitorch.distributions.uniform import Uniform
from minitorch.distributions.von_mises import VonMises
from minitorch.distributions.weibull import Weibull
from minitorch.distributions.wishart import Wishart

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "kl_divergence",
    "register_kl",
    "transform_to",
]
__all__.extend(transforms.__all__)
