"""minitorch.distributions constraints, transforms, TransformedDistribution, Independent and the constraint
registry: inverses, log|det J| against autograd Jacobians in float64, shapes, caching, and change-of-variables
densities against scipy."""

import math

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

import minitorch

D = minitorch.distributions
C = D.constraints
Tr = D.transforms
F64 = minitorch.float64


def T(x, grad=False):
    t = minitorch.tensor(np.asarray(x, dtype=np.float64), dtype=F64)
    return t.requires_grad_() if grad else t


def _np(t):
    return t.detach().numpy()


def _jacobian(fn, x):
    """The Jacobian of fn at the vector x (rows: outputs), by autograd one output at a time."""
    x = x.detach().requires_grad_()
    y = fn(x).reshape(-1)
    rows = [
        _np(minitorch.autograd.grad(y[i], [x], retain_graph=True)[0]).reshape(-1) for i in range(y.numel())
    ]
    return np.stack(rows)


# ---- constraints


def test_constraint_checks():
    v = T([-1.0, 0.0, 0.5, 1.0, 2.0, math.nan])
    cases = [
        (C.real, [1, 1, 1, 1, 1, 0]),
        (C.positive, [0, 0, 1, 1, 1, 0]),
        (C.nonnegative, [0, 1, 1, 1, 1, 0]),
        (C.unit_interval, [0, 1, 1, 1, 0, 0]),
        (C.interval(-1.0, 1.0), [1, 1, 1, 1, 0, 0]),
        (C.half_open_interval(-1.0, 1.0), [1, 1, 1, 0, 0, 0]),
        (C.greater_than(0.5), [0, 0, 0, 1, 1, 0]),
        (C.greater_than_eq(0.5), [0, 0, 1, 1, 1, 0]),
        (C.less_than(0.5), [1, 1, 0, 0, 0, 0]),
        (C.boolean, [0, 1, 0, 1, 0, 0]),
        (C.nonnegative_integer, [0, 1, 0, 1, 1, 0]),
        (C.positive_integer, [0, 0, 0, 1, 1, 0]),
        (C.integer_interval(0, 1), [0, 1, 0, 1, 0, 0]),
    ]
    for c, expected in cases:
        got = c.check(v)
        assert got.dtype == minitorch.bool and _np(got).astype(int).tolist() == expected, c
    # integer tensors are integral
    assert bool(C.nonnegative_integer.check(minitorch.tensor([0, 3])).all())
    # tensor bounds broadcast
    assert _np(C.interval(T([0.0, 1.0]), T([1.0, 2.0])).check(T([0.5, 0.5]))).tolist() == [True, False]


def test_event_constraints():
    assert _np(C.simplex.check(T([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]]))).tolist() == [True, False, False]
    assert C.simplex.event_dim == 1 and C.real_vector.event_dim == 1
    assert _np(C.one_hot.check(T([[0, 1, 0], [1, 1, 0], [0, 0, 0]]))).tolist() == [True, False, False]
    assert _np(C.multinomial(3).check(T([[1, 2], [2, 2], [-1, 1]]))).tolist() == [True, False, False]
    m = T([[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [2.0, 3.0]], [[-1.0, 0.0], [2.0, 3.0]]])
    assert _np(C.lower_triangular.check(m)).tolist() == [True, False, True]
    assert _np(C.lower_cholesky.check(m)).tolist() == [True, False, False]
    assert _np(C.square.check(minitorch.zeros(4, 2, 3))).tolist() == [False] * 4
    sym = T([[[2.0, 1.0], [1.0, 2.0]], [[2.0, 1.0], [0.0, 2.0]]])
    assert _np(C.symmetric.check(sym)).tolist() == [True, False]
    corr = T([[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.7]]])
    assert _np(C.corr_cholesky.check(corr)).tolist() == [True, False]
    ind = C.independent(C.positive, 2)
    assert ind.event_dim == 2 and _np(ind.check(T([[[1.0, 2.0]], [[1.0, -2.0]]]))).tolist() == [True, False]
    with pytest.raises(ValueError, match="Expected value.dim\\(\\) >= 2 but got 1"):
        ind.check(T([1.0]))
    cat = C.cat([C.positive, C.real], dim=0, lengths=[2, 1])
    assert _np(cat.check(T([1.0, 2.0, -3.0]))).tolist() == [True, True, True]
    stack = C.stack([C.positive, C.real], dim=-1)
    assert _np(stack.check(T([[1.0, -1.0], [-1.0, 1.0]]))).tolist() == [[True, True], [False, True]]
    assert C.cat([C.positive, C.nonnegative_integer]).is_discrete


def test_constraint_reprs_and_dependent():
    assert repr(C.real) == "Real()" and repr(C.simplex) == "Simplex()"
    assert repr(C.interval(0.0, 2.0)) == "Interval(lower_bound=0.0, upper_bound=2.0)"
    assert repr(C.integer_interval(0, 3)) == "IntegerInterval(lower_bound=0, upper_bound=3)"
    assert repr(C.independent(C.real, 1)) == "IndependentConstraint(Real(), 1)"
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(T([1.0]))
    with pytest.raises(NotImplementedError, match=".event_dim cannot be determined statically"):
        C.dependent.event_dim  # noqa: B018
    d = C.dependent(is_discrete=True, event_dim=1)
    assert d.is_discrete and d.event_dim == 1
    with pytest.raises(AssertionError, match="base_constraint must be a Constraint"):
        C.independent(3, 1)


# ---- transforms


ELEMENTWISE = [
    (Tr.ExpTransform(), [-2.0, 0.3, 1.5]),
    (Tr.SigmoidTransform(), [-2.0, 0.3, 1.5]),
    (Tr.TanhTransform(), [-2.0, 0.3, 1.5]),
    (Tr.SoftplusTransform(), [-2.0, 0.3, 1.5]),
    (Tr.AffineTransform(T([0.5, -1.0, 2.0]), T([2.0, -0.5, 3.0])), [-2.0, 0.3, 1.5]),
    (Tr.AffineTransform(1.0, -3.0), [-2.0, 0.3, 1.5]),
    (Tr.PowerTransform(T([2.0, 0.5, -1.5])), [0.2, 0.3, 1.5]),
    (Tr.ExpTransform().inv, [0.2, 0.3, 1.5]),
    (
        Tr.ComposeTransform(
            [Tr.AffineTransform(0.5, 2.0), Tr.SigmoidTransform(), Tr.AffineTransform(-1.0, 2.0)]
        ),
        [-2.0, 0.3, 1.5],
    ),
    (Tr.CumulativeDistributionTransform(D.Normal(T(0.5), T(2.0))), [-2.0, 0.3, 1.5]),
]


@pytest.mark.parametrize("idx", range(len(ELEMENTWISE)))
def test_elementwise_transforms(idx):
    t, xs = ELEMENTWISE[idx]
    x = T(xs)
    y = t(x)
    assert bool(t.codomain.check(y).all()) and bool(t.domain.check(x).all())
    np.testing.assert_allclose(_np(t.inv(y)), xs, rtol=1e-10)
    jac = _jacobian(t, x)
    np.testing.assert_allclose(jac, np.diag(np.diag(jac)), atol=0)
    np.testing.assert_allclose(_np(t.log_abs_det_jacobian(x, y)), np.log(np.abs(np.diag(jac))), rtol=1e-10)
    # the inverse's log-det is the negative at swapped arguments
    np.testing.assert_allclose(
        _np(t.inv.log_abs_det_jacobian(y, x)), -np.log(np.abs(np.diag(jac))), rtol=1e-10
    )
    assert t.inv.inv is t
    assert t.bijective


def test_transform_values_and_signs():
    x = np.array([-30.0, -1.0, 0.0, 2.0, 30.0])
    np.testing.assert_allclose(_np(Tr.SigmoidTransform()(T(x))), np.clip(sp.expit(x), 0, 1 - 2**-52))
    np.testing.assert_allclose(_np(Tr.TanhTransform()(T(x))), np.tanh(x))
    np.testing.assert_allclose(_np(Tr.SoftplusTransform()(T(x))), np.logaddexp(0, x))
    # the tanh log-det stays finite where tanh rounds to 1
    # log(1 - tanh(x)^2) stays finite where tanh rounds to +-1 (there log1p(-tanh^2) would be -inf)
    ldj = _np(Tr.TanhTransform().log_abs_det_jacobian(T(x), None))
    np.testing.assert_allclose(
        ldj, np.log(4.0) - 2 * np.abs(x) - 2 * np.log1p(np.exp(-2 * np.abs(x))), rtol=1e-12
    )
    assert Tr.ExpTransform().sign == 1 and Tr.AffineTransform(0.0, -2.0).sign == -1
    assert _np(Tr.AffineTransform(0.0, T([-2.0, 3.0])).sign).tolist() == [-1.0, 1.0]
    assert Tr.ComposeTransform([Tr.AffineTransform(0.0, -1.0), Tr.ExpTransform()]).sign == -1
    assert not Tr.AbsTransform().bijective and not Tr.SoftmaxTransform().bijective
    np.testing.assert_allclose(_np(Tr.AbsTransform()(T([-2.0, 3.0]))), [2.0, 3.0])


def test_stick_breaking_transform():
    t = Tr.StickBreakingTransform()
    x = T([[0.3, -1.2, 2.0], [0.0, 0.0, 0.0]])
    y = t(x)
    assert y.shape == (2, 4)
    np.testing.assert_allclose(_np(y.sum(-1)), 1.0, rtol=1e-12)
    np.testing.assert_allclose(_np(y[1]), 0.25)  # zero maps to the center of the simplex
    np.testing.assert_allclose(_np(t.inv(y)), _np(x), rtol=1e-10, atol=1e-12)
    # log|det| of x -> y[:-1] (the free coordinates)
    for i in range(2):
        jac = _jacobian(lambda v: t(v)[:-1], x[i])
        np.testing.assert_allclose(_np(t.log_abs_det_jacobian(x[i], y[i])), np.log(abs(np.linalg.det(jac))),
                                   rtol=1e-10)  # fmt: skip
    assert t.forward_shape((5, 3)) == (5, 4) and t.inverse_shape((5, 4)) == (5, 3)
    assert D.biject_to(C.simplex) == t


def test_softmax_transform():
    t = Tr.SoftmaxTransform()
    x = T([[0.3, -1.2, 2.0]])
    y = t(x)
    np.testing.assert_allclose(_np(y), sp.softmax([[0.3, -1.2, 2.0]], -1), rtol=1e-12)
    np.testing.assert_allclose(_np(t(t.inv(y))), _np(y), rtol=1e-12)  # a pseudo-inverse
    assert D.transform_to(C.simplex) == t


def test_corr_cholesky_and_lower_cholesky_transforms():
    t = Tr.CorrCholeskyTransform()
    x = T([0.3, -1.2, 2.0])
    y = t(x)
    assert y.shape == (3, 3) and bool(C.corr_cholesky.check(y))
    np.testing.assert_allclose(_np((y * y).sum(-1)), 1.0, rtol=1e-12)
    np.testing.assert_allclose(_np(t.inv(y)), _np(x), rtol=1e-10)
    # against the strictly-lower entries of y (row-major positions 3, 6, 7 of the 3 x 3 matrix)
    jac = _jacobian(lambda v: t(v).reshape(-1)[minitorch.tensor([3, 6, 7])], x)
    np.testing.assert_allclose(_np(t.log_abs_det_jacobian(x, y)), np.log(abs(np.linalg.det(jac))), rtol=1e-10)
    assert t.forward_shape((6,)) == (4, 4) and t.inverse_shape((4, 4)) == (6,)
    with pytest.raises(ValueError, match="Input is not a flattened lower-diagonal number"):
        t.forward_shape((5,))
    lc = Tr.LowerCholeskyTransform()
    m = T([[0.5, 9.0], [-1.0, -0.3]])
    L = lc(m)
    np.testing.assert_allclose(_np(L), [[math.exp(0.5), 0.0], [-1.0, math.exp(-0.3)]])
    np.testing.assert_allclose(_np(lc.inv(L)), [[0.5, 0.0], [-1.0, -0.3]])


def test_reshape_and_independent_transforms():
    r = Tr.ReshapeTransform((2, 3), (6,))
    x = T(np.arange(12.0).reshape(2, 2, 3))
    assert r(x).shape == (2, 6) and r.inv(r(x)).shape == (2, 2, 3)
    assert _np(r.log_abs_det_jacobian(x, r(x))).tolist() == [0.0, 0.0]
    assert r.forward_shape((4, 2, 3)) == (4, 6)
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
        Tr.ReshapeTransform((2,), (3,))
    it = Tr.IndependentTransform(Tr.ExpTransform(), 1)
    x = T([[0.1, 0.2], [0.3, 0.4]])
    np.testing.assert_allclose(_np(it.log_abs_det_jacobian(x, it(x))), [0.3, 0.7])
    assert it.domain.event_dim == 1 and it.codomain.event_dim == 1


def test_cat_and_stack_transforms():
    t = Tr.CatTransform([Tr.ExpTransform(), Tr.identity_transform], dim=0, lengths=[2, 1])
    x = T([0.1, 0.2, -3.0])
    y = t(x)
    np.testing.assert_allclose(_np(y), [math.exp(0.1), math.exp(0.2), -3.0])
    np.testing.assert_allclose(_np(t.inv(y)), _np(x), rtol=1e-12)
    np.testing.assert_allclose(_np(t.log_abs_det_jacobian(x, y)), [0.1, 0.2, 0.0])
    s = Tr.StackTransform([Tr.ExpTransform(), Tr.AffineTransform(1.0, 2.0)], dim=1)
    x = T([[0.1, 0.2], [0.3, 0.4]])
    np.testing.assert_allclose(_np(s(x)), [[math.exp(0.1), 1.4], [math.exp(0.3), 1.8]])
    np.testing.assert_allclose(_np(s.log_abs_det_jacobian(x, s(x))), [[0.1, math.log(2)], [0.3, math.log(2)]])


def test_transform_cache_and_equality():
    calls = []

    class Counting(Tr.ExpTransform):
        def _call(self, x):
            calls.append(1)
            return x.exp()

    t = Counting(cache_size=1)
    x = T([1.0])
    y = t(x)
    assert t(x) is y and len(calls) == 1  # the cached output
    assert t.inv(y) is x  # the inverse of a cached output is the original input, exactly
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        Tr.ExpTransform(cache_size=2)
    assert Tr.ExpTransform().with_cache(1)._cache_size == 1
    assert Tr.ExpTransform() == Tr.ExpTransform() and Tr.ExpTransform() != Tr.SigmoidTransform()
    assert Tr.AffineTransform(1.0, 2.0) == Tr.AffineTransform(1.0, 2.0)
    assert Tr.AffineTransform(T([1.0]), 2.0) != Tr.AffineTransform(T([1.5]), 2.0)
    assert Tr.ExpTransform().inv == Tr.ExpTransform().inv
    c = Tr.ComposeTransform([Tr.ExpTransform(), Tr.AffineTransform(0.0, 2.0)])
    assert c.inv.inv is c and c.inv.parts[0] == Tr.AffineTransform(0.0, 2.0).inv
    assert repr(Tr.ExpTransform()) == "ExpTransform()"
    # tanh's exact inverse through the cache where atanh(1) would be inf
    tc = Tr.TanhTransform(cache_size=1)
    big = T([40.0])
    assert tc.inv(tc(big)) is big
    assert math.isinf(_np(Tr.TanhTransform().inv(Tr.TanhTransform()(big)))[0])


def test_compose_event_dims():
    c = Tr.ComposeTransform([Tr.ExpTransform(), Tr.StickBreakingTransform()])
    assert c.domain.event_dim == 1 and c.codomain.event_dim == 1
    x = T([[0.1, 0.2], [0.3, -0.4]])
    y = c(x)
    # the elementwise part's log-det summed over the event, plus the stick-breaking one
    ex = Tr.ExpTransform()(x)
    expected = _np(x).sum(-1) + _np(Tr.StickBreakingTransform().log_abs_det_jacobian(ex, y))
    np.testing.assert_allclose(_np(c.log_abs_det_jacobian(x, y)), expected, rtol=1e-12)
    assert Tr.identity_transform(x) is x
    assert _np(Tr.identity_transform.log_abs_det_jacobian(x, x)).tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize(
    "constraint",
    [
        C.real,
        C.positive,
        C.nonnegative,
        C.greater_than(2.0),
        C.greater_than_eq(-1.0),
        C.less_than(3.0),
        C.unit_interval,
        C.interval(-2.0, 5.0),
        C.half_open_interval(0.0, 2.0),
        C.simplex,
        C.independent(C.positive, 1),
    ],
)
def test_biject_to_and_transform_to(constraint):
    x = T([[-1.5, 0.2, 2.0], [0.3, -0.7, 0.1]])
    for registry in (D.biject_to, D.transform_to):
        t = registry(constraint)
        y = t(x)
        assert bool(constraint.check(y).all()), (constraint, _np(y))
        if registry is D.biject_to:
            assert t.bijective
            np.testing.assert_allclose(_np(t(t.inv(y))), _np(y), rtol=1e-10)


def test_constraint_registry_errors_and_extension():
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        D.biject_to(C.boolean)
    reg = D.constraint_registry.ConstraintRegistry()
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        reg.register(3, lambda c: None)

    @reg.register(C.positive)
    def _to_pos(c):
        return Tr.SoftplusTransform()

    assert reg(C.greater_than(0.0)) == Tr.SoftplusTransform()  # any _GreaterThan


# ---- TransformedDistribution / Independent


def test_transformed_distribution_change_of_variables():
    base = D.Normal(T([0.3, -1.0]), T([0.5, 1.2]))
    # exp(2 * X + 1) is LogNormal(2 loc + 1, 2 scale)
    d = D.TransformedDistribution(base, [Tr.AffineTransform(1.0, 2.0), Tr.ExpTransform()])
    ref = st.lognorm(s=[1.0, 2.4], scale=np.exp([1.6, -1.0]))
    y = np.array([[0.5, 2.0], [3.0, 0.1]])
    np.testing.assert_allclose(_np(d.log_prob(T(y))), ref.logpdf(y), rtol=1e-12)
    np.testing.assert_allclose(_np(d.cdf(T(y))), ref.cdf(y), rtol=1e-12)
    np.testing.assert_allclose(_np(d.icdf(T([[0.1, 0.9]]))), ref.ppf([[0.1, 0.9]]), rtol=1e-12)
    assert d.batch_shape == (2,) and d.event_shape == () and d.has_rsample
    assert repr(d.support) == "GreaterThan(lower_bound=0.0)"
    minitorch.manual_seed(0)
    s = _np(d.sample((50_000,)))
    assert st.kstest(s[:, 0], lambda v: ref.cdf(np.stack([v, v], -1))[..., 0]).pvalue > 1e-4
    # a decreasing chain flips the cdf
    neg = D.TransformedDistribution(D.Normal(T(0.0), T(1.0)), Tr.AffineTransform(0.0, -1.0))
    np.testing.assert_allclose(_np(neg.cdf(T([0.5]))), st.norm.cdf(0.5), rtol=1e-12)
    with pytest.raises(ValueError, match="transforms must be a Transform or a list of Transforms"):
        D.TransformedDistribution(base, [3])


def test_transformed_distribution_event_dims_and_expand():
    # an affine map with event_dim 1 turns a batch of 3 normals into one 3-vector event
    base = D.Normal(minitorch.zeros(3, dtype=F64), minitorch.ones(3, dtype=F64))
    d = D.TransformedDistribution(
        base, Tr.AffineTransform(T([1.0, 2.0, 3.0]), T([2.0, 2.0, 2.0]), event_dim=1)
    )
    assert d.batch_shape == () and d.event_shape == (3,)
    v = T([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    ref = st.norm([1.0, 2.0, 3.0], 2.0).logpdf(_np(v)).sum(-1)
    np.testing.assert_allclose(_np(d.log_prob(v)), ref, rtol=1e-12)
    e = d.expand((4,))
    assert e.batch_shape == (4,) and e.sample().shape == (4, 3)
    # stick-breaking of a 2-vector normal: a distribution on the 3-simplex
    sb = D.TransformedDistribution(D.Independent(D.Normal(minitorch.zeros(2, dtype=F64), 1.0), 1),
                                   Tr.StickBreakingTransform())  # fmt: skip
    assert sb.event_shape == (3,)
    x = sb.sample((5,))
    assert x.shape == (5, 3) and bool(C.simplex.check(x).all())
    assert sb.log_prob(x).shape == (5,)
    # a parameter of the transform with a batch shape widens the base
    w = D.TransformedDistribution(D.Normal(T(0.0), T(1.0)), Tr.AffineTransform(T([0.0, 1.0, 2.0]), 1.0))
    assert w.batch_shape == (3,) and w.sample().shape == (3,)


def test_independent():
    loc = minitorch.randn(4, 3, dtype=F64)
    scale = minitorch.rand(4, 3, dtype=F64) + 0.5
    base = D.Normal(loc, scale)
    d = D.Independent(base, 1)
    assert d.batch_shape == (4,) and d.event_shape == (3,)
    x = d.sample((2,))
    assert x.shape == (2, 4, 3)
    np.testing.assert_allclose(_np(d.log_prob(x)), _np(base.log_prob(x)).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(_np(d.entropy()), _np(base.entropy()).sum(-1), rtol=1e-12)
    assert d.has_rsample and not d.has_enumerate_support
    assert repr(d.support) == "IndependentConstraint(Real(), 1)"
    np.testing.assert_allclose(_np(d.mean), _np(loc))
    np.testing.assert_allclose(_np(d.variance), _np(scale) ** 2)
    d2 = D.Independent(base, 2)
    assert d2.batch_shape == () and d2.event_shape == (4, 3) and d2.log_prob(x).shape == (2,)
    e = d.expand((5, 4))
    assert e.batch_shape == (5, 4) and e.event_shape == (3,) and e.sample().shape == (5, 4, 3)
    with pytest.raises(NotImplementedError, match="Enumeration over cartesian product is not implemented"):
        D.Independent(D.Bernoulli(T([0.5, 0.5])), 1).enumerate_support()
    assert D.Independent(D.Bernoulli(T([0.5, 0.5])), 0).has_enumerate_support
    # validation reaches through: a value outside the base support
    with pytest.raises(ValueError, match="within the support"):
        D.Independent(D.Exponential(T([1.0, 1.0])), 1).log_prob(T([1.0, -1.0]))


def test_relaxed_and_lognormal_are_transformed():
    assert isinstance(D.LogNormal(0.0, 1.0), D.TransformedDistribution)
    assert isinstance(D.RelaxedBernoulli(T(0.5), T(0.3)), D.TransformedDistribution)

    # a subclass with its own __init__ must provide expand
    class Mine(D.TransformedDistribution):
        def __init__(self):
            super().__init__(D.Normal(T(0.0), T(1.0)), Tr.ExpTransform())

    with pytest.raises(NotImplementedError, match="must also define a custom .expand\\(\\) method"):
        Mine().expand((2,))
