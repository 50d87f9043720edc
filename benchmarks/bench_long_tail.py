"""The eighth session's long-tail APIs beside NumPy/SciPy and PyTorch (when `import torch` works): masked
reductions (numpy.ma), a nested batch padded, LDL^T factorization (scipy's sytrf), LOBPCG's extreme eigenpairs
(numpy.linalg.eigh), and the cost of saved-tensor hooks on a small MLP training step. Most of these are Python
composites over our ops: the table says what that costs against PyTorch's C++ versions. Then the ninth session's
kernels for slow rows of the sweep (issue 32: flip, nansum, trace, real angle, max_pool1d) and the tenth session's
(nansum, hardshrink, threshold, floor_divide, fmod, the Bessel I functions, max_pool1d), and the thirteenth's
gradient, vander and *_copy. Markdown table; ratios
are other / minitorch (above 1: minitorch is faster). For one thread in both: OMP_NUM_THREADS=1.

  PYTHONPATH=python python benchmarks/bench_long_tail.py [--repeats 5 --min-time 0.05]
"""

import numpy as np
from _timing import ratio_table_main

import minitorch

try:
    import torch as real_torch
except ImportError:
    real_torch = None
try:
    import scipy.linalg as sla
except ImportError:
    sla = None


def _mlp_step(L, hooks):
    L.manual_seed(0)
    net = L.nn.Sequential(L.nn.Linear(64, 128), L.nn.ReLU(), L.nn.Linear(128, 10))
    x, y = L.randn(32, 64), L.randint(0, 10, (32,))

    def step():
        if hooks:
            with L.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                loss = L.nn.functional.cross_entropy(net(x), y)
        else:
            loss = L.nn.functional.cross_entropy(net(x), y)
        loss.backward()

    return step


def cases():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((256, 256))
    mask = rng.random((256, 256)) > 0.3
    lens = rng.integers(8, 64, 32)
    parts = [rng.standard_normal((int(n), 16)) for n in lens]
    a = rng.standard_normal((128, 128))
    sym = a + a.T
    spd = a @ a.T + 128 * np.eye(128)
    libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
    out = {}

    def add(title, make, numpy_fn=None):
        out[title] = {name: make(L) for name, L in libs}
        if numpy_fn is not None:
            out[title]["numpy"] = numpy_fn

    ma = np.ma.masked_array(data, ~mask)

    def on(arrays, fn):
        """a maker of each library's timed call: the arrays converted once, outside the timing"""

        def make(L):
            ts = [L.tensor(x) for x in arrays]
            return lambda: fn(L, *ts)

        return make

    add(
        "masked.sum dim=1 (256x256)",
        on([data, mask], lambda L, d, m: L.masked.sum(d, 1, mask=m)),
        lambda: ma.sum(1),
    )
    add("masked.softmax dim=1 (256x256)", on([data, mask], lambda L, d, m: L.masked.softmax(d, 1, mask=m)))
    add(
        "nested_tensor(32 parts) + to_padded_tensor",
        on(parts, lambda L, *ps: L.nested.to_padded_tensor(L.nested.nested_tensor(list(ps)), 0.0)),
    )
    add(
        "linalg.ldl_factor 128x128",
        on([sym], lambda L, s: L.linalg.ldl_factor(s)),
        (lambda: sla.ldl(sym, lower=True)) if sla is not None else None,
    )
    add(
        "lobpcg k=4 (128x128 SPD)",
        on([spd], lambda L, s: L.lobpcg(s, k=4, niter=50)),
        lambda: np.linalg.eigh(spd),
    )
    add("MLP step, no hooks", lambda L: _mlp_step(L, False))
    add("MLP step, identity saved_tensors_hooks", lambda L: _mlp_step(L, True))
    _issue32_cases(add, on, rng)
    _issue32_tenth_cases(add, on, rng)
    _thirteenth_cases(add, on, rng)
    return out


def _thirteenth_cases(add, on, rng):
    """The thirteenth session's compositions: torch.gradient (number and coordinate spacing), vander, a view's
    *_copy form."""
    g = rng.standard_normal((256, 256)).astype(np.float32)
    coords = np.cumsum(rng.uniform(0.5, 1.5, 256)).astype(np.float32)
    add(
        "gradient, edge_order=2 (256x256)",
        on([g], lambda L, x: L.gradient(x, edge_order=2)),
        lambda: np.gradient(g, edge_order=2),
    )
    add(
        "gradient, coordinates dim=1 (256x256)",
        on([g, coords], lambda L, x, c: L.gradient(x, spacing=[c], dim=1)),
        lambda: np.gradient(g, coords, axis=1),
    )
    v = rng.standard_normal(512)
    add("vander N=16 (512)", on([v], lambda L, x: L.vander(x, 16)), lambda: np.vander(v, 16))
    add("t_copy (256x256)", on([g], lambda L, x: L.t_copy(x)), lambda: np.ascontiguousarray(g.T))


def _issue32_cases(add, on, rng):
    """The ninth session's kernels for slow rows of the sweep (issue 32): flip's strided copy, nansum's and
    trace's reductions, angle of a real tensor, max_pool1d's row windows (256x256 float32 unless said)."""
    x = rng.standard_normal((256, 256)).astype(np.float32)
    xn = x.copy()
    xn[rng.random(xn.shape) < 0.1] = np.nan
    p = rng.standard_normal((8, 32, 256)).astype(np.float32)
    for dims in [(0,), (1,), (0, 1)]:
        add(
            f"flip dims {dims} (256x256)",
            on([x], lambda L, t, d=dims: L.flip(t, d)),
            lambda d=dims: np.flip(x, d).copy(),
        )
    add("rot90 (256x256)", on([x], lambda L, t: L.rot90(t)), lambda: np.rot90(x).copy())
    add("nansum (256x256)", on([xn], lambda L, t: L.nansum(t)), lambda: np.nansum(xn))
    add("nansum dim=1 (256x256)", on([xn], lambda L, t: L.nansum(t, 1)), lambda: np.nansum(xn, 1))
    add("nansum dim=0 (256x256)", on([xn], lambda L, t: L.nansum(t, 0)), lambda: np.nansum(xn, 0))
    add("trace (256x256)", on([x], lambda L, t: L.trace(t)), lambda: np.trace(x))
    add("angle, real (256x256)", on([x], lambda L, t: L.angle(t)), lambda: np.angle(x))
    for k, st in [(2, 2), (3, 1), (4, 4)]:
        add(
            f"max_pool1d k={k} s={st} (8x32x256)",
            on([p], lambda L, t, k=k, st=st: L.nn.functional.max_pool1d(t, k, st)),
        )
    add(
        "max_pool1d k=2 + backward (8x32x256)",
        lambda L: _pool_step(L, p),
    )


def _issue32_tenth_cases(add, on, rng):
    """The tenth session's rows (issue 32): nansum's masked lanes, F.hardshrink / F.threshold as one kernel,
    float floor_divide (AVX2's rows, which AVX-512 now runs too), the Bessel functions and max_pool1d."""
    x = rng.uniform(0.1, 0.9, (256, 256)).astype(np.float32)
    y = rng.uniform(0.1, 0.9, (256, 256)).astype(np.float32)
    s = rng.standard_normal((256, 256)).astype(np.float32)
    xn = s.copy()
    xn[rng.random(xn.shape) < 0.1] = np.nan
    p = rng.standard_normal((8, 32, 256)).astype(np.float32)
    add("10: nansum (256x256)", on([xn], lambda L, t: L.nansum(t)), lambda: np.nansum(xn))
    add("10: nansum dim=1 (256x256)", on([xn], lambda L, t: L.nansum(t, 1)), lambda: np.nansum(xn, 1))
    add("10: nansum dim=0 (256x256)", on([xn], lambda L, t: L.nansum(t, 0)), lambda: np.nansum(xn, 0))
    add("10: F.hardshrink (256x256)", on([s], lambda L, t: L.nn.functional.hardshrink(t, 0.5)))
    add("10: F.threshold (256x256)", on([s], lambda L, t: L.nn.functional.threshold(t, 0.1, -1.0)))
    add("10: floor_divide (256x256)", on([x, y], lambda L, a, b: L.floor_divide(a, b)), lambda: x // y)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    add(
        "10: floor_divide f64 (256x256)", on([xd, yd], lambda L, a, b: L.floor_divide(a, b)), lambda: xd // yd
    )
    add("10: fmod (256x256)", on([x, y], lambda L, a, b: L.fmod(a, b)), lambda: np.fmod(x, y))
    for name in ("i0", "special.i0e", "special.i1", "special.i1e"):
        add(f"10: {name} (256x256)", on([s * 10], lambda L, t, n=name: _attr(L, n)(t)))
    for k, st in [(2, 2), (3, 1), (3, 2), (4, 4)]:
        add(
            f"10: max_pool1d k={k} s={st} (8x32x256)",
            on([p], lambda L, t, k=k, st=st: L.nn.functional.max_pool1d(t, k, st)),
        )


def _attr(L, dotted):
    for part in dotted.split("."):
        L = getattr(L, part)
    return L


def _pool_step(L, p):
    t = L.tensor(p, requires_grad=True)

    def step():
        L.nn.functional.max_pool1d(t, 2).sum().backward()

    return step


def main():
    ratio_table_main(__doc__.splitlines()[0], cases, minitorch.get_num_threads(), min_time=0.05)


if __name__ == "__main__":
    main()
