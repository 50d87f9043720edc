"""torch.export's dynamic shapes: Dim (a named size with bounds), the hints Dim.AUTO/STATIC/DYNAMIC, and the
checks an exported module makes on its inputs' sizes (PyTorch's guards)."""

import sys

__all__ = ["Dim", "DimHint", "dims"]


class DimHint:
    """Dim.AUTO, Dim.STATIC, Dim.DYNAMIC: let export decide, keep the example's size, or require a dynamic one."""

    def __init__(self, kind, min=None, max=None):
        self.type = kind
        self.min = min
        self.max = max

    def __call__(self, min=None, max=None):
        """The same hint with bounds (Dim.DYNAMIC(min=2))."""
        return DimHint(self.type, min, max)

    def __repr__(self):
        return f"DimHint({self.type})"

    def __eq__(self, other):
        return isinstance(other, DimHint) and (self.type, self.min, self.max) == (
            other.type,
            other.min,
            other.max,
        )

    def __hash__(self):
        return hash((self.type, self.min, self.max))


class Dim:
    """A named dynamic size: Dim("batch", min=2, max=64). Inputs whose dimension is given this Dim may have
    any size in [min, max] when the exported module runs."""

    AUTO = DimHint("AUTO")
    STATIC = DimHint("STATIC")
    DYNAMIC = DimHint("DYNAMIC")

    def __init__(self, name, *, min=None, max=None):
        lo = 0 if min is None else min
        hi = sys.maxsize if max is None else max
        if hi < lo:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        self.__name__ = name
        self._explicit = (min, max)
        self.min = lo
        self.max = hi

    def __repr__(self):
        lo, hi = self._explicit
        extra = "".join(f", {k}={v}" for k, v in (("min", lo), ("max", hi)) if v is not None)
        return f"Dim('{self.__name__}'{extra})"


def dims(*names, min=None, max=None):
    """One Dim per name, with the same bounds."""
    return tuple(Dim(n, min=min, max=max) for n in names)


class ValueRanges:
    """The [lower, upper] range of a dynamic size (printed as PyTorch's VR[lo, hi])."""

    def __init__(self, lower, upper):
        self.lower = lower
        self.upper = upper

    def __repr__(self):
        hi = "int_oo" if self.upper >= sys.maxsize else self.upper
        return f"VR[{self.lower}, {hi}]"

    def __eq__(self, other):
        return isinstance(other, ValueRanges) and (self.lower, self.upper) == (other.lower, other.upper)

    def __hash__(self):
        return hash((self.lower, self.upper))


def dim_bounds(spec):
    """(min, max) a dimension spec allows, or None for a static one."""
    if isinstance(spec, Dim):
        return spec.min, spec.max
    if isinstance(spec, DimHint) and spec.type != "STATIC":
        lo = 0 if spec.min is None else spec.min
        return lo, sys.maxsize if spec.max is None else spec.max
    return None


class GuardsFn:
    """The checks an exported module runs on its inputs (PyTorch's _guards_fn): each dimension not marked
    dynamic keeps the example's size, a dynamic one stays within its Dim's bounds and equals the dimension that
    first took the same Dim."""

    def __init__(self, checks):
        # [(input name, leaf index, example shape, {dim: (min, max, (input, dim) it equals or None)})]; a
        # non-tensor input's entry holds its example value and None
        self.checks = checks

    def __call__(self, leaves):
        sizes = {}  # input name -> shape, for the equalities of a shared Dim
        for name, index, shape, dynamic in self.checks:
            t = leaves[index]
            if dynamic is None:  # a non-tensor input: specialized to its example value
                if t != shape:
                    raise AssertionError(f"Guard failed: {name} == {shape!r}")
                continue
            if t.dim() != len(shape):
                raise AssertionError(f"Guard failed: {name}.dim() == {len(shape)}")
            sizes[name] = t.shape
            for d, size in enumerate(t.shape):
                bounds = dynamic.get(d)
                if bounds is None:
                    if size != shape[d]:
                        raise AssertionError(f"Guard failed: {name}.size()[{d}] == {shape[d]}")
                    continue
                lo, hi, same_as = bounds if len(bounds) == 3 else (*bounds, None)
                if same_as is not None:
                    other, od = same_as
                    if size != sizes[other][od]:
                        raise AssertionError(f"Guard failed: {name}.size()[{d}] == {other}.size()[{od}]")
                if size > hi:
                    raise AssertionError(f"Guard failed: {name}.size()[{d}] <= {hi}")
                # sizes 0 and 1 are specialized apart by PyTorch, which checks a lower bound only above them
                if size < lo and size > 1:
                    raise AssertionError(f"Guard failed: {name}.size()[{d}] >= {lo}")
