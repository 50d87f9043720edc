"""The op database: one entry per op with what the tests know about it - its NumPy float64 reference, the dtypes
whose values are checked, its input domain, its result-dtype rule, its gradcheck case - beside the facts kept
elsewhere and looked up here by name: the schema (op_schema.py, from csrc/ops/ops.schema), PyTorch's dtype verdicts
(elementwise_oracle.py; stub_dtype_oracle.py, keyed by device) and the stub cases (stub_cases.py). A new
elementwise op is one entry below; the tests of every directory read the views at the bottom."""

import math
from dataclasses import dataclass

import numpy as np

import minitorch
from tests.ops import op_schema, stub_cases, stub_dtype_oracle
from tests.ops.elementwise_oracle import ORACLE as ELEMENTWISE_ORACLE
from tests.utils import FLOAT_DTYPES, INT_DTYPES

F = FLOAT_DTYPES
I = INT_DTYPES
B = [minitorch.bool]
NUM = F + I
ANY = F + I + B
# torch.special's long tail: PyTorch's kernels take float and double only (integers and bool compute in float32)
ANY_F = F[:2] + I + B

_erf = np.vectorize(math.erf, otypes=[float])  # otypes: size-0 inputs too
_erfc = np.vectorize(math.erfc, otypes=[float])
_lgamma = np.vectorize(
    lambda v: math.inf if v <= 0 and v == math.floor(v) else math.lgamma(v), otypes=[float]
)


def _shift(left):
    """NumPy's shift with PyTorch's rule outside [0, top): the amount read as signed (a uint8 of 128 or more is
    negative); a left shift there is 0, a right one the sign fill (NumPy leaves those amounts to the compiler)"""

    def ref(a, b):
        a, b = np.asarray(a), np.asarray(b)
        width = a.dtype.itemsize * 8
        amount = b.astype(np.int8) if b.dtype == np.uint8 else b.astype(np.int64)
        top = width if left or a.dtype.kind == "u" else width - 1
        ok = (amount >= 0) & (amount < top)
        k = np.where(ok, amount, 0).astype(a.dtype)
        if left:
            return np.where(ok, np.left_shift(a, k), 0).astype(a.dtype)
        fill = np.right_shift(a, a.dtype.type(top)) if a.dtype.kind != "u" else np.zeros_like(a)
        return np.where(ok, np.right_shift(a, k), fill).astype(a.dtype)

    return ref


def _erfinv_scalar(y):
    """erf's inverse by bisection on math.erf (independent of the library's rational start + Halley steps)."""
    if abs(y) >= 1:
        return math.copysign(math.inf, y) if abs(y) == 1 else math.nan
    lo, hi = -6.0, 6.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.erf(mid) < y:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _digamma_scalar(x):
    """digamma by reflection, recurrence up to x >= 40 and the asymptotic series to x^-16."""
    if x == 0:
        return math.copysign(math.inf, -x)
    if x < 0 and x == math.floor(x):
        return math.nan
    if x < 0:
        return _digamma_scalar(1 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 40:
        acc -= 1 / x
        x += 1
    # B_2k / (2k) for k = 1..8
    coef = [1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12, -3617 / 8160]
    return acc + math.log(x) - 0.5 / x - sum(c / x ** (2 * k + 2) for k, c in enumerate(coef))


def _bessel_i_scalar(x, n, scaled):
    """I_n(x) (n = 0, 1) from its power series summed exactly (math.fsum; the terms share one sign), scaled by
    exp(-|x|) for i0e/i1e: independent of the kernel's split into a series and an asymptotic expansion."""
    q, term, terms = x * x / 4, (1.0 if n == 0 else x / 2), []
    for k in range(1, 400):
        terms.append(term)
        term *= q / (k * (k + n))
        if abs(term) < 1e-20 * abs(terms[0] or 1.0) and k > q:
            break
    value = math.fsum(terms)
    return value * math.exp(-abs(x)) if scaled else value


_erfinv = np.vectorize(_erfinv_scalar, otypes=[float])
_i0 = np.vectorize(lambda v: _bessel_i_scalar(v, 0, False), otypes=[float])
_i0e = np.vectorize(lambda v: _bessel_i_scalar(v, 0, True), otypes=[float])
_i1 = np.vectorize(lambda v: _bessel_i_scalar(v, 1, False), otypes=[float])
_i1e = np.vectorize(lambda v: _bessel_i_scalar(v, 1, True), otypes=[float])
_digamma = np.vectorize(_digamma_scalar, otypes=[float])


def _gelu(x):
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def _round(x):
    return np.round(x)


def _sp():
    """scipy.special, imported on first use (the other tables do not need it)."""
    import scipy.special

    return scipy.special


def _orders(n):
    """PyTorch's polynomial order: n truncated; negative orders give 0 (the mask), computed at order 0."""
    k = np.trunc(np.asarray(n, np.float64))
    return np.where(k < 0, 0, k).astype(np.int64), k < 0


def _poly(name):
    """x, n -> scipy.special.eval_<name>(n, x), 0 for negative n."""

    def ref(x, n):
        k, neg = _orders(n)
        return np.where(neg, 0.0, getattr(_sp(), "eval_" + name)(k, np.asarray(x, np.float64)))

    return ref


def _cheb_rec(kind, shifted=False):
    """Chebyshev T/U/V/W (kind 0..3) by the three-term recurrence in float64 (V and W have no scipy eval_)."""

    def ref(x, n):
        x, n = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(n, np.float64))
        y = 2 * x - 1 if shifted else x
        k, neg = _orders(n)
        p, q = np.ones_like(y), [y, 2 * y, 2 * y - 1, 2 * y + 1][kind]
        out = np.where(k == 0, p, q)
        for i in range(2, int(k.max(initial=0)) + 1):
            p, q = q, 2 * y * q - p
            out = np.where(k == i, q, out)
        return np.where(neg, 0.0, out)

    return ref


@dataclass(frozen=True)
class Op:
    """One elementwise op of the schema.

    ref: NumPy reference on float64/int64/bool values; dtypes: those whose values test_unary/test_binary check
    (PyTorch's verdict must be "ok" for exactly these); domain: the input interval (low, high) of a unary op or
    the kind of b of a binary op ("nonzero", "pow"), None for any values; rule: the result dtype ("same",
    "float", "bool", "arith", "div"); grad: a unary op's gradcheck domain ({} any values, "nz" away from zero,
    "low"/"high" an interval) or a binary op's gradcheck ("broadcast": test_binary_gradcheck_broadcast, "own
    test": one of its own), None where the op has no derivative. complex (a keyword, unary): the op computes
    complex64/complex128 with the input's dtype and tests/ops/complex checks it against NumPy - True where `ref`
    takes complex values as well, else the complex reference itself; None where complex inputs are not checked."""

    name: str
    ref: object
    dtypes: list
    domain: object
    rule: str
    grad: object
    complex: object = None

    @property
    def complex_ref(self):
        return self.ref if self.complex is True else self.complex

    @property
    def schema(self):
        return op_schema.BY_NAME[self.name]

    def grad_input(self, *shape, generator=None):
        """A float64 leaf in a unary op's gradcheck domain (`grad`): away from zero, in [low, high), or any."""
        f64 = minitorch.float64
        if self.grad.get("nz"):
            x = minitorch.rand(shape, generator=generator, dtype=f64) * 0.8 + 0.2
            x = x * (minitorch.randint(0, 2, shape, generator=generator).double() * 2 - 1)
        elif "low" in self.grad:
            low, high = self.grad["low"], self.grad["high"]
            x = minitorch.rand(shape, generator=generator, dtype=f64) * (high - low) + low
        else:
            x = minitorch.randn(shape, generator=generator, dtype=f64)
        return x.requires_grad_()

    def verdict(self, dtype):
        """PyTorch's CPU verdict for `dtype` (a name): ("ok", result dtype) or ("err", exception, message)."""
        verdict = ELEMENTWISE_ORACLE.get((self.name, dtype))
        assert verdict is not None, (
            f"tests/ops/elementwise_oracle.py has no verdict for ({self.name!r}, {dtype!r}): regenerate it with "
            "scripts/classify_elementwise_dtypes.py (run by a Python with PyTorch)"
        )
        return verdict


# One entry per unary op of csrc/ops/ops.schema, in its order (test_table_is_complete checks)
UNARY_OPS = [
    Op("abs", np.abs, NUM, None, "same", {"nz": True}),
    Op("neg", np.negative, NUM, None, "same", {}, complex=True),
    Op("sign", lambda x: x.copy() if x.dtype == bool else np.sign(x), ANY, None, "same", {"nz": True}),
    Op("floor", np.floor, NUM, None, "same", {"low": 0.1, "high": 0.9}),
    Op("ceil", np.ceil, NUM, None, "same", {"low": 0.1, "high": 0.9}),
    Op("round", _round, NUM, None, "same", {"low": 0.1, "high": 0.4}),
    Op("trunc", np.trunc, NUM, None, "same", {"low": 0.1, "high": 0.9}),
    Op("frac", lambda x: x - np.trunc(x), F, None, "same", {"low": 0.1, "high": 0.9}),
    Op("relu", lambda x: np.maximum(x, 0), NUM, None, "same", {"nz": True}),
    Op("bitwise_not", lambda x: np.invert(x), I + B, None, "same", None),
    Op("exp", np.exp, ANY, None, "float", {}, complex=True),
    Op("exp2", np.exp2, ANY, None, "float", {}, complex=True),
    Op("expm1", np.expm1, ANY, None, "float", {}, complex=True),
    Op("log", np.log, ANY, (0.1, 5), "float", {"low": 0.5, "high": 2.0}, complex=True),
    Op("log2", np.log2, ANY, (0.1, 5), "float", {"low": 0.5, "high": 2.0}, complex=True),
    Op("log10", np.log10, ANY, (0.1, 5), "float", {"low": 0.5, "high": 2.0}, complex=True),
    Op("log1p", np.log1p, ANY, (0, 5), "float", {"low": 0.0, "high": 2.0}),
    Op("sqrt", np.sqrt, ANY, (0, 5), "float", {"low": 0.5, "high": 2.0}, complex=True),
    Op("rsqrt", lambda x: 1 / np.sqrt(x), ANY, (0.1, 5), "float", {"low": 0.5, "high": 2.0}, complex=True),
    Op("reciprocal", lambda x: 1 / x, ANY, (0.5, 5), "float", {"low": 0.5, "high": 2.0}, complex=True),
    Op("sin", np.sin, ANY, None, "float", {}, complex=True),
    Op("sinc", np.sinc, ANY, None, "float", {}, complex=True),
    Op("cos", np.cos, ANY, None, "float", {}, complex=True),
    Op("tan", np.tan, ANY, (-1.2, 1.2), "float", {"low": -1.0, "high": 1.0}, complex=True),
    Op("asin", np.arcsin, ANY, (-0.95, 0.95), "float", {"low": -0.8, "high": 0.8}, complex=True),
    Op("acos", np.arccos, ANY, (-0.95, 0.95), "float", {"low": -0.8, "high": 0.8}, complex=True),
    Op("atan", np.arctan, ANY, None, "float", {}, complex=True),
    Op("sinh", np.sinh, ANY, None, "float", {}, complex=True),
    Op("cosh", np.cosh, ANY, None, "float", {}, complex=True),
    Op("tanh", np.tanh, ANY, None, "float", {}, complex=True),
    Op("erf", _erf, ANY, None, "float", {}),
    Op("erfc", _erfc, ANY, None, "float", {}),
    Op("erfinv", _erfinv, ANY, (-0.95, 0.95), "float", {"low": -0.8, "high": 0.8}),
    Op("asinh", np.arcsinh, ANY, None, "float", {}, complex=True),
    Op("acosh", np.arccosh, ANY, (1.05, 5), "float", {"low": 1.2, "high": 3.0}, complex=True),
    Op("atanh", np.arctanh, ANY, (-0.95, 0.95), "float", {"low": -0.8, "high": 0.8}, complex=True),
    Op("lgamma", _lgamma, ANY, (0.1, 5), "float", {"low": 0.3, "high": 3.0}),
    Op("digamma", _digamma, ANY, (0.1, 5), "float", {"low": 0.3, "high": 3.0}),
    Op("i0", _i0, ANY, (-8, 8), "float", {"low": -4.0, "high": 4.0}),
    Op("_special_i0e", _i0e, ANY, (-8, 8), "float", {"nz": True}),
    Op("_special_i1", _i1, ANY, (-8, 8), "float", {}),
    Op("_special_i1e", _i1e, ANY, (-8, 8), "float", {"nz": True}),
    Op("_special_bessel_j0", lambda x: _sp().j0(x), ANY_F, (-20, 20), "float", {"low": -6.0, "high": 6.0}),
    Op("_special_bessel_j1", lambda x: _sp().j1(x), ANY_F, (-20, 20), "float", {"low": -6.0, "high": 6.0}),
    Op("_special_bessel_y0", lambda x: _sp().y0(x), ANY_F, (0.1, 20), "float", {"low": 0.5, "high": 6.0}),
    Op("_special_bessel_y1", lambda x: _sp().y1(x), ANY_F, (0.1, 20), "float", {"low": 0.5, "high": 6.0}),
    Op(
        "_special_modified_bessel_i0",
        lambda x: _sp().i0(x),
        ANY_F,
        (-8, 8),
        "float",
        {"low": -4.0, "high": 4.0},
    ),
    Op("_special_modified_bessel_i1", lambda x: _sp().i1(x), ANY_F, (-8, 8), "float", {}),
    Op(
        "_special_modified_bessel_k0",
        lambda x: _sp().k0(x),
        ANY_F,
        (0.1, 20),
        "float",
        {"low": 0.5, "high": 4.0},
    ),
    Op(
        "_special_modified_bessel_k1",
        lambda x: _sp().k1(x),
        ANY_F,
        (0.1, 20),
        "float",
        {"low": 0.5, "high": 4.0},
    ),
    Op("_special_scaled_modified_bessel_k0", lambda x: _sp().k0e(x), ANY_F, (0.1, 20), "float", None),
    Op("_special_scaled_modified_bessel_k1", lambda x: _sp().k1e(x), ANY_F, (0.1, 20), "float", None),
    Op("_special_spherical_bessel_j0", lambda x: _sp().spherical_jn(0, x), ANY_F, (-20, 20), "float", None),
    Op("_special_airy_ai", lambda x: _sp().airy(x)[0], ANY_F, (-10, 10), "float", None),
    Op("_angle_real", np.angle, ANY, None, "float", {"nz": True}),
    Op("sigmoid", lambda x: 1 / (1 + np.exp(-x)), ANY, None, "float", {}, complex=True),
    Op("gelu", _gelu, F, None, "float", {}),
    Op("gelu_tanh", _gelu_tanh, F, None, "float", {}),
    Op("silu", lambda x: x / (1 + np.exp(-x)), F, None, "float", {}),
    Op("mish", lambda x: x * np.tanh(np.log1p(np.exp(x))), F, None, "float", {}),
    Op("hardsigmoid", lambda x: np.clip(x + 3, 0, 6) / 6, F, (-5, 5), "float", {}),
    Op("hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, F, (-5, 5), "float", {}),
    # torch.frexp's halves (private: the wrapper casts the exponent to int32), one pass each on the bits
    Op("_frexp_mantissa", lambda x: np.frexp(x)[0], F, None, "same", None),
    Op("_frexp_exponent", lambda x: np.frexp(x)[1].astype(x.dtype), F, None, "same", None),
    Op("logical_not", np.logical_not, ANY, None, "bool", None),
    Op("isnan", np.isnan, ANY, None, "bool", None),
    Op("isinf", np.isinf, ANY, None, "bool", None),
    Op("isfinite", np.isfinite, ANY, None, "bool", None),
    # torch.signbit's kernel (the sign bit of floats, -0.0 included; integers below 0)
    Op("_signbit", lambda a: np.signbit(a.astype(np.float64)), ANY, None, "bool", None),
]


def _floor_div(a, b):
    return np.floor_divide(a, b)


def _xlogy(a, b):
    """x log y, 0 where x == 0 unless y is NaN"""
    with np.errstate(all="ignore"):
        return np.where(np.isnan(b), np.nan, np.where(a == 0, 0.0, a * np.log(b)))


def _heaviside(a, b):
    """b where a == 0, else 1 above zero and 0 below and at NaN"""
    return np.where(a == 0, b, a > 0).astype(np.result_type(a, b))


# One entry per binary op of the schema; the domain is b's
BINARY_OPS = [
    Op("add", np.add, ANY, None, "arith", "broadcast"),
    Op("sub", np.subtract, NUM, None, "arith", "broadcast"),
    Op("mul", np.multiply, ANY, None, "arith", "broadcast"),
    Op("div", np.true_divide, ANY, "nonzero", "div", "broadcast"),
    Op("floor_divide", _floor_div, NUM, "nonzero", "arith", "broadcast"),
    Op("trunc_divide", lambda a, b: np.trunc(a / b), NUM, "nonzero", "arith", "own test"),
    Op("remainder", np.remainder, NUM, "nonzero", "arith", "broadcast"),
    Op("fmod", np.fmod, NUM, "nonzero", "arith", "broadcast"),
    Op("pow", np.power, NUM, "pow", "arith", "own test"),
    Op("maximum", np.maximum, ANY, None, "arith", "broadcast"),
    Op("minimum", np.minimum, ANY, None, "arith", "broadcast"),
    # the one-pass kernels behind F.prelu, torch.copysign and torch.hypot (private: no method)
    Op("_prelu_kernel", lambda a, b: np.where(a > 0, a, b * a), F, None, "div", "broadcast"),
    # torch.fmax / fmin's kernels (C's fmax: the number where one side is NaN)
    Op("_fmax", np.fmax, ANY, None, "arith", "broadcast"),
    Op("_fmin", np.fmin, ANY, None, "arith", "broadcast"),
    Op("_copysign", np.copysign, ANY, None, "div", "broadcast"),
    # torch.heaviside (not np.heaviside: PyTorch's is 0 at NaN)
    Op("_heaviside", _heaviside, ANY, None, "arith", None),
    # torch.nextafter for float32/float64 (float16/bfloat16 step their own bits in the op)
    Op("_nextafter", np.nextafter, F, None, "div", "own test"),
    Op("_hypot", np.hypot, F, None, "div", "broadcast"),
    Op("atan2", np.arctan2, ANY, None, "div", "broadcast"),
    Op("xlogy", _xlogy, ANY, None, "div", "own test"),
    Op("_special_zeta", lambda x, q: _sp().zeta(x, q), ANY_F, None, "div", "own test"),
    # torch.igamma / igammac (tests/ops/elementwise/test_igamma.py: accuracy, special values, gradients)
    Op("_igamma", lambda a, x: _sp().gammainc(a, x), F, None, "arith", "own test"),
    Op("_igammac", lambda a, x: _sp().gammaincc(a, x), F, None, "arith", "own test"),
    Op("_special_chebyshev_polynomial_t", _poly("chebyt"), ANY_F, None, "div", None),
    Op("_special_chebyshev_polynomial_u", _poly("chebyu"), ANY_F, None, "div", None),
    Op("_special_chebyshev_polynomial_v", _cheb_rec(2), ANY_F, None, "div", None),
    Op("_special_chebyshev_polynomial_w", _cheb_rec(3), ANY_F, None, "div", None),
    Op("_special_shifted_chebyshev_polynomial_t", _poly("sh_chebyt"), ANY_F, None, "div", None),
    Op("_special_shifted_chebyshev_polynomial_u", _poly("sh_chebyu"), ANY_F, None, "div", None),
    Op("_special_shifted_chebyshev_polynomial_v", _cheb_rec(2, True), ANY_F, None, "div", None),
    Op("_special_shifted_chebyshev_polynomial_w", _cheb_rec(3, True), ANY_F, None, "div", None),
    Op("_special_hermite_polynomial_h", _poly("hermite"), ANY_F, None, "div", None),
    Op("_special_hermite_polynomial_he", _poly("hermitenorm"), ANY_F, None, "div", None),
    Op("_special_laguerre_polynomial_l", _poly("laguerre"), ANY_F, None, "div", None),
    Op("_special_legendre_polynomial_p", _poly("legendre"), ANY_F, None, "div", None),
    Op("logaddexp", np.logaddexp, F, None, "arith", "broadcast"),
    Op("logaddexp2", np.logaddexp2, F, None, "arith", "broadcast"),
    Op("eq", np.equal, ANY, None, "bool", None),
    Op("ne", np.not_equal, ANY, None, "bool", None),
    Op("lt", np.less, ANY, None, "bool", None),
    Op("le", np.less_equal, ANY, None, "bool", None),
    Op("gt", np.greater, ANY, None, "bool", None),
    Op("ge", np.greater_equal, ANY, None, "bool", None),
    Op("logical_and", np.logical_and, ANY, None, "bool", None),
    Op("logical_or", np.logical_or, ANY, None, "bool", None),
    Op("logical_xor", np.logical_xor, ANY, None, "bool", None),
    Op("bitwise_and", np.bitwise_and, I + B, None, "arith", None),
    Op("bitwise_or", np.bitwise_or, I + B, None, "arith", None),
    Op("bitwise_xor", np.bitwise_xor, I + B, None, "arith", None),
    Op("bitwise_left_shift", _shift(True), I, None, "arith", None),
    Op("bitwise_right_shift", _shift(False), I, None, "arith", None),
]

OPS = {op.name: op for op in UNARY_OPS + BINARY_OPS}

# The views the tests parametrize over (name -> (reference, dtypes, domain, result rule)), and the gradcheck cases
UNARY = {op.name: (op.ref, op.dtypes, op.domain, op.rule) for op in UNARY_OPS}
BINARY = {op.name: (op.ref, op.dtypes, op.domain, op.rule) for op in BINARY_OPS}
UNARY_GRADCHECK = {op.name: op.grad for op in UNARY_OPS if op.grad is not None}
UNARY_NOT_DIFFERENTIABLE = [op.name for op in UNARY_OPS if op.grad is None]
BINARY_GRADCHECK = [op.name for op in BINARY_OPS if op.grad == "broadcast"]
BINARY_GRAD_ELSEWHERE = [op.name for op in BINARY_OPS if op.grad == "own test"]
BINARY_NOT_DIFFERENTIABLE = [op.name for op in BINARY_OPS if op.grad is None]
# unary ops whose complex values tests/ops/complex checks (name -> complex reference)
COMPLEX_UNARY = {op.name: op.complex_ref for op in UNARY_OPS if op.complex is not None}


def spellings(ops, variant):
    """(spelling, op) for each public name - the op's own and its aliases' - that has `variant` ("out",
    "method", ...) in the schema, over the ops that compute float64 values: what tests/ops/test_out.py
    parametrizes over."""
    return [
        (name, op)
        for op in ops
        if minitorch.float64 in op.dtypes
        for name, variants in op.schema.spellings()
        if variant in variants and not name.startswith("_")
    ]


# The dispatch stubs (csrc/ops/op_table.h): one call each, and PyTorch's verdict per dtype and device
STUB_CASES = stub_cases.CASES
STUB_DTYPES = stub_cases.DTYPES
run_stub = stub_cases.run
STUB_ORACLE = stub_dtype_oracle.ORACLE
STUB_VERSIONS = stub_dtype_oracle.VERSIONS
stub_verdict = stub_dtype_oracle.verdict
