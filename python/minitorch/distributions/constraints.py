"""Constraints: the regions where distribution parameters and values are valid (``check`` answers per event)."""

from minitorch import _C, _dtype_info, linalg

__all__ = [
    "Constraint",
    "MixtureSameFamilyConstraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


def _flat_all(mask, ndrop):
    # all() over the ndrop rightmost dims; the flattened size is spelled out (not -1) so empty batches work
    if ndrop == 0:
        return mask
    keep = tuple(mask.shape[: mask.dim() - ndrop])
    inner = 1
    for d in mask.shape[mask.dim() - ndrop :]:
        inner *= d
    return mask.reshape(keep + (inner,)).all(-1)


class Constraint:
    """A region over which a variable is valid. ``event_dim`` rightmost dims form one event: ``check`` reduces
    them away and answers one bool per event."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A bool tensor of ``sample_shape + batch_shape``: whether each event of ``value`` satisfies it."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """The constraint of a variable whose support depends on other variables: nothing to check."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether the constrained space is discrete."""
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        """The number of rightmost dims that form one event."""
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """``dependent(is_discrete=..., event_dim=...)``: the same placeholder with static attributes set."""
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim,
        )

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent placeholder (one validation must skip)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property on instances (the support computed from the parameters) that reads as a dependent constraint
    on the class."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """A constraint whose ``reinterpreted_batch_ndims`` extra rightmost dims belong to the event: an event is
    valid when every entry is."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(  # noqa: TRY004
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}"
            )
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError(  # noqa: TRY004
                f"reinterpreted_batch_ndims must be an int, got {type(reinterpreted_batch_ndims).__name__}"
            )
        if reinterpreted_batch_ndims < 0:
            raise AssertionError(f"reinterpreted_batch_ndims must be >= 0, got {reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        """Whether the constrained space is discrete."""
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        """The number of rightmost dims that form one event."""
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            raise ValueError(
                f"Expected value.dim() >= {self.base_constraint.event_dim + n} but got {value.dim()}"
            )
        return _flat_all(result, n)

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """The support of a MixtureSameFamily: a value is valid when it is valid for the component distribution
    (checked against every component, then reduced)."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(  # noqa: TRY004
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}"
            )
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        """Whether the constrained space is discrete."""
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        """The number of rightmost dims that form one event."""
        return self.base_constraint.event_dim

    def check(self, value):
        """Whether ``value`` is a possible outcome of the mixture."""
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        return _flat_all(result, result.dim() - (value.dim() - self.event_dim))

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    """Values 0 and 1."""

    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors: 0/1 entries summing to 1 along the last dim."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & (value.sum(-1) == 1)


def _is_integral(value):
    # value % 1 == 0 for floats; integer tensors are integral already
    if value.dtype.is_floating_point:
        return value.remainder(1) == 0
    return _C.ones(tuple(value.shape), dtype=_C.bool, device=value.device)


class _IntegerInterval(Constraint):
    """Integers in ``[lower_bound, upper_bound]``."""

    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return _is_integral(value) & (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self):
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"
        )


class _IntegerLessThan(Constraint):
    """Integers in ``(-inf, upper_bound]``."""

    is_discrete = True

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return _is_integral(value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    """Integers in ``[lower_bound, inf)``."""

    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return _is_integral(value) & (value >= self.lower_bound)

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    """The extended real line (everything but NaN)."""

    def check(self, value):
        return value == value  # noqa: PLR0124


class _GreaterThan(Constraint):
    """``(lower_bound, inf]``."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return value > self.lower_bound

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(Constraint):
    """``[lower_bound, inf)``."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return value >= self.lower_bound

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    """``[-inf, upper_bound)``."""

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """``[lower_bound, upper_bound]``."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self):
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"
        )


class _HalfOpenInterval(Constraint):
    """``[lower_bound, upper_bound)``."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)

    def __repr__(self):
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"
        )


class _Simplex(Constraint):
    """Nonnegative vectors summing to 1 (to 1e-6) along the last dim."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative integer count vectors with total at most ``upper_bound`` (integrality is not checked, as
    PyTorch's)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def check(self, value):
        return _flat_all(value.tril() == value, 2)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        lower = _flat_all(value.tril() == value, 2)
        return lower & (value.diagonal(0, -2, -1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky with rows of unit norm."""

    event_dim = 2

    def check(self, value):
        tol = _dtype_info.finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = value.detach().pow(2).sum(-1).sqrt()
        unit = ((row_norm - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value):
        return _C.full(
            tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=_C.bool, device=value.device
        )


class _Symmetric(_Square):
    """Symmetric square matrices (to atol 1e-6)."""

    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        close = (value - value.transpose(-2, -1)).abs() <= 1e-6 + 1e-5 * value.transpose(-2, -1).abs()
        return _flat_all(close, 2)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with nonnegative eigenvalues."""

    def check(self, value):
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return (linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factorization."""

    def check(self, value):
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return linalg.cholesky_ex(value).info == 0


class _Cat(Constraint):
    """Applies the constraints ``cseq`` to consecutive slices (of ``lengths``) along ``dim``, as torch.cat."""

    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether the constrained space is discrete."""
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        """The number of rightmost dims that form one event."""
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        if not (-value.dim() <= self.dim < value.dim()):
            raise AssertionError(f"dim {self.dim} out of range for value with {value.dim()} dimensions")
        checks, start = [], 0
        for c, length in zip(self.cseq, self.lengths):
            checks.append(c.check(value.narrow(self.dim, start, length)))
            start += length
        return _C.cat(checks, self.dim)


class _Stack(Constraint):
    """Applies the constraints ``cseq`` to the slices of ``dim``, as torch.stack."""

    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether the constrained space is discrete."""
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        """The number of rightmost dims that form one event."""
        d = max(c.event_dim for c in self.cseq)
        return d + 1 if self.dim + d < 0 else d

    def check(self, value):
        if not (-value.dim() <= self.dim < value.dim()):
            raise AssertionError(f"dim {self.dim} out of range for value with {value.dim()} dimensions")
        parts = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return _C.stack([c.check(v) for v, c in zip(parts, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
