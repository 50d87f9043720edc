"""minitorch beside PyTorch (and NumPy) on the CPU cases of issue 15, each library in its own process.

A report, not a test. One worker process per library (NumPy and minitorch under this interpreter, PyTorch
under --torch-python, default /tmp/tv/bin/python or this interpreter when it imports torch); the parent asks
them in turn for one timed sample of a case, so repeats interleave (numpy, minitorch, torch, numpy, ...) and
machine load hits all alike. A library never shares a process with another one (thread pools, allocators
and OpenMP would interfere). Prints a Markdown table: median (--best: fastest) seconds per call and R = t_torch / t_minitorch
(> 1: minitorch is faster), with the geometric mean of R.

Usage: PYTHONPATH=python python benchmarks/bench_vs_torch_cpu.py [--repeats 5] [--min-time 0.1] [-k tanh]
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time
import timeit

import numpy as np
from _timing import (
    Worker,
    add_sampling_options,
    find_torch_python,
    fmt,
    interleaved_samples,
    loops_for,
    report,
)

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the cases: each takes the library (L.name in numpy/minitorch/torch, L.t the torch-like module or None)
# and returns a zero-argument callable, or None where the library has no such op. Inputs are made from one
# NumPy generator, so every library sees the same values.

CASES = {}


def case(name, group):
    def deco(f):
        CASES[name] = (group, f)
        return f

    return deco


def rand(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def tensor(L, a, requires_grad=False):
    t = L.t.from_numpy(np.ascontiguousarray(a)).clone()
    return t.requires_grad_() if requires_grad else t


@case("a + b, 100 el (per-op overhead)", "overhead")
def _(L):
    a, b = rand(100), rand(100, seed=1)
    if L.t is None:
        return lambda: a + b
    x, y = tensor(L, a), tensor(L, b)
    return lambda: x + y


@case("tensor([1., 2., 3.]) from a Python list", "overhead")
def _(L):
    if L.t is None:
        return lambda: np.array([1.0, 2.0, 3.0], dtype=np.float32)
    return lambda: L.t.tensor([1.0, 2.0, 3.0])


@case("stack of 64 tensors of 64 floats (a collate)", "overhead")
def _(L):
    parts = [rand(64, seed=k) for k in range(64)]
    if L.t is None:
        return lambda: np.stack(parts)
    ts = [tensor(L, p) for p in parts]
    return lambda: L.t.stack(ts)


def _binary_big(op):
    def make(L):
        a, b = rand(1 << 24), rand(1 << 24, seed=1)
        if L.t is None:
            return lambda: op(a, b)
        x, y = tensor(L, a), tensor(L, b)
        return lambda: op(x, y)

    return make


case("add 16M f32", "elementwise")(_binary_big(lambda a, b: a + b))


@case("x * y + x 4M f32 (a steady loop over cached big blocks)", "elementwise")
def _(L):
    a, b = rand(1 << 22), rand(1 << 22, seed=1)
    if L.t is None:
        return lambda: a * b + a
    x, y = tensor(L, a), tensor(L, b)
    return lambda: x * y + x


@case("exp 16M f32", "elementwise")
def _(L):
    a = rand(1 << 24)
    if L.t is None:
        return lambda: np.exp(a)
    x = tensor(L, a)
    return lambda: L.t.exp(x)


# float unary ops: NumPy's ufunc where it has one
_NP_UNARY = {
    "exp": np.exp,
    "tanh": np.tanh,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
    "log": lambda a: np.log(np.abs(a)),
    "sin": np.sin,
    "cos": np.cos,
    "expm1": np.expm1,
    "log1p": lambda a: np.log1p(np.abs(a)),
    "erf": None,
    "gelu": None,
    "silu": None,
    "softplus": lambda a: np.logaddexp(0, a),
}


def _torch_unary(L, name):
    t = L.t
    return {
        "exp": t.exp,
        "tanh": t.tanh,
        "sigmoid": t.sigmoid,
        "log": lambda x: t.log(t.abs(x)),
        "sin": t.sin,
        "cos": t.cos,
        "expm1": t.expm1,
        "log1p": lambda x: t.log1p(t.abs(x)),
        "erf": t.erf,
        "gelu": t.nn.functional.gelu,
        "silu": t.nn.functional.silu,
        "softplus": t.nn.functional.softplus,
    }[name]


def _unary(name, shape, dtype):
    def make(L):
        a = rand(*shape, dtype=dtype)
        if L.t is None:
            f = _NP_UNARY[name]
            return None if f is None else (lambda: f(a))
        x, f = tensor(L, a), _torch_unary(L, name)
        if name in ("log", "log1p"):  # time the op alone
            x = L.t.abs(x)
            f = {"log": L.t.log, "log1p": L.t.log1p}[name]
        return lambda: f(x)

    return make


for _n in ("exp", "tanh", "sigmoid", "log", "sin", "cos", "expm1", "log1p", "erf", "gelu", "silu"):
    case(f"{_n} 100x100 f32", "unary")(_unary(_n, (100, 100), np.float32))
for _n in ("tanh", "sigmoid", "gelu", "softplus"):
    case(f"{_n} 1M f32", "unary")(_unary(_n, (1 << 20,), np.float32))
case("softplus 1M f64", "unary")(_unary("softplus", (1 << 20,), np.float64))


# pow with a tensor exponent and with a Python number (PyTorch special-cases 2, 0.5, -1...; 2.5 is general)
def _pow(exponent, dtype):
    def make(L):
        a, e = np.abs(rand(1 << 20, dtype=dtype)), rand(1 << 20, dtype=dtype, seed=1)
        if exponent is not None:
            e = exponent
        if L.t is None:
            return lambda: np.power(a, e)
        x = tensor(L, a)
        y = e if exponent is not None else tensor(L, e)
        return lambda: L.t.pow(x, y)

    return make


case("pow 1M f32, tensor exponent", "unary")(_pow(None, np.float32))
case("pow 1M f32, x ** 2.5", "unary")(_pow(2.5, np.float32))
case("pow 1M f64, tensor exponent", "unary")(_pow(None, np.float64))
case("tanh 100x100 f64", "unary")(_unary("tanh", (100, 100), np.float64))
case("exp 100x100 f64", "unary")(_unary("exp", (100, 100), np.float64))
case("tanh 1M f64", "unary")(_unary("tanh", (1 << 20,), np.float64))
case("sigmoid 1M f64", "unary")(_unary("sigmoid", (1 << 20,), np.float64))


# a fresh 8 MB output per call (the allocator's reuse of freed blocks) against writing into one (out=)
def _add_1m_f64(out):
    def make(L):
        a, b = rand(1 << 20, dtype=np.float64), rand(1 << 20, dtype=np.float64, seed=1)
        if L.t is None:
            o = np.empty_like(a)
            return (lambda: np.add(a, b, out=o)) if out else (lambda: a + b)
        x, y = tensor(L, a), tensor(L, b)
        o = L.t.empty_like(x)
        return (lambda: L.t.add(x, y, out=o)) if out else (lambda: x + y)

    return make


case("add 1M f64, fresh output", "allocator")(_add_1m_f64(False))
case("add 1M f64, out=", "allocator")(_add_1m_f64(True))


# lerp: one kernel since 2026-12-03 (it was seven ops), with a number and with a tensor weight
def _lerp(weight_tensor):
    def make(L):
        a, b, w = rand(1 << 20), rand(1 << 20, seed=1), np.abs(rand(1 << 20, seed=2)) % 1
        if L.t is None:
            return lambda: (
                np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))
                if weight_tensor
                else (a + 0.3 * (b - a))
            )
        x, y = tensor(L, a), tensor(L, b)
        wt = tensor(L, w) if weight_tensor else 0.3
        return lambda: L.t.lerp(x, y, wt)

    return make


case("lerp 1M f32, number weight", "unary")(_lerp(False))
case("lerp 1M f32, tensor weight", "unary")(_lerp(True))


@case("exp 300k f64 (a 150 us op: pool wake-up)", "threads")
def _(L):
    a = rand(300000, dtype=np.float64)
    if L.t is None:
        return lambda: np.exp(a)
    x = tensor(L, a)
    return lambda: L.t.exp(x)


@case("softmax 256x1000 dim=1", "nn")
def _(L):
    a = rand(256, 1000)
    if L.t is None:

        def f():
            e = np.exp(a - a.max(1, keepdims=True))
            return e / e.sum(1, keepdims=True)

        return f
    x = tensor(L, a)
    return lambda: L.t.softmax(x, dim=1)


@case("softmax 1024x1024 dim=0", "nn")
def _(L):
    a = rand(1024, 1024)
    if L.t is None:

        def f():
            e = np.exp(a - a.max(0, keepdims=True))
            return e / e.sum(0, keepdims=True)

        return f
    x = tensor(L, a)
    return lambda: L.t.softmax(x, dim=0)


@case("log_softmax 1024x1024 dim=0", "nn")
def _(L):
    a = rand(1024, 1024)
    if L.t is None:

        def f():
            s = a - a.max(0, keepdims=True)
            return s - np.log(np.exp(s).sum(0, keepdims=True))

        return f
    x = tensor(L, a)
    return lambda: L.t.log_softmax(x, dim=0)


@case("sgemm 1024", "blas")
def _(L):
    a, b = rand(1024, 1024), rand(1024, 1024, seed=1)
    if L.t is None:
        return lambda: a @ b
    x, y = tensor(L, a), tensor(L, b)
    return lambda: x @ y


@case("autograd chain tanh/mul/add 100x100", "autograd")
def _(L):
    if L.t is None:
        return None
    x = tensor(L, rand(100, 100), requires_grad=True)
    w = tensor(L, rand(100, 100, seed=1))

    def f():
        y = x
        for _ in range(4):
            y = (y * w + 1.0).tanh()
        y.sum().backward()

    return f


# ---- indexing
@case("index_select 100k x 64, 10k rows", "index")
def _(L):
    a = rand(100_000, 64)
    idx = np.random.default_rng(2).integers(0, 100_000, 10_000)
    if L.t is None:
        return lambda: np.take(a, idx, axis=0)
    x, i = tensor(L, a), L.t.from_numpy(idx)
    return lambda: L.t.index_select(x, 0, i)


@case("x[idx] 100k x 64, 10k rows", "index")
def _(L):
    a = rand(100_000, 64)
    idx = np.random.default_rng(2).integers(0, 100_000, 10_000)
    if L.t is None:
        return lambda: a[idx]
    x, i = tensor(L, a), L.t.from_numpy(idx)
    return lambda: x[i]


@case("x[arange, labels] 256x1000", "index")
def _(L):
    a = rand(256, 1000)
    lab = np.random.default_rng(2).integers(0, 1000, 256)
    r = np.arange(256)
    if L.t is None:
        return lambda: a[r, lab]
    x, ii, jj = tensor(L, a), L.t.from_numpy(r), L.t.from_numpy(lab)
    return lambda: x[ii, jj]


@case("x[mask] 1M", "index")
def _(L):
    a = rand(1 << 20)
    if L.t is None:
        m = a > 0
        return lambda: a[m]
    x = tensor(L, a)
    m = x > 0
    return lambda: x[m]


@case("x[i] (select) 1000x100", "index")
def _(L):
    a = rand(1000, 100)
    if L.t is None:
        return lambda: a[7]
    x = tensor(L, a)
    return lambda: x[7]


@case("gather dim=1 4096x512, 64 cols", "index")
def _(L):
    a = rand(4096, 512)
    idx = np.random.default_rng(2).integers(0, 512, (4096, 64))
    if L.t is None:
        return lambda: np.take_along_axis(a, idx, 1)
    x, i = tensor(L, a), L.t.from_numpy(idx)
    return lambda: L.t.gather(x, 1, i)


@case("index_select last dim 1024x1024, reversed", "index")
def _(L):
    a = rand(1024, 1024)
    idx = np.arange(1023, -1, -1)
    if L.t is None:
        return lambda: a[:, idx]
    x, i = tensor(L, a), L.t.from_numpy(idx)
    return lambda: x.index_select(1, i)


# issue 32's rows of take_along_dim and sparse_coo_tensor: per call (8x8, a 3-element COO tensor) and per element
def _take_along(n, dim, transposed=False):
    def make(L):
        a = rand(n, n)
        idx = np.random.default_rng(3).integers(0, n, (n, n))
        if L.t is None:
            return lambda: np.take_along_axis(a.T if transposed else a, idx, dim)
        x, i = tensor(L, a), L.t.from_numpy(idx)
        x = x.t() if transposed else x
        return lambda: L.t.take_along_dim(x, i, dim)

    return make


case("take_along_dim 8x8 dim=1", "index")(_take_along(8, 1))
case("take_along_dim 256x256 dim=1", "index")(_take_along(256, 1))
case("take_along_dim 256x256 dim=0", "index")(_take_along(256, 0))
case("take_along_dim 256x256 dim=1, x.t()", "index")(_take_along(256, 1, True))


@case("take_along_dim 256x256 dim=1, indices (256, 8) broadcast over (1, 256)", "index")
def _(L):
    a = rand(1, 256)
    idx = np.random.default_rng(3).integers(0, 256, (256, 8))
    if L.t is None:
        return lambda: np.take_along_axis(np.broadcast_to(a, (256, 256)), idx, 1)
    x, i = tensor(L, a), L.t.from_numpy(idx)
    return lambda: L.t.take_along_dim(x, i, 1)


def _coo(nnz, shape):
    def make(L):
        rng = np.random.default_rng(4)
        idx = np.stack([rng.integers(0, s, nnz) for s in shape])
        vals = rand(nnz)
        if L.t is None:
            return None
        i, v = L.t.from_numpy(idx), tensor(L, vals)
        return lambda: L.t.sparse_coo_tensor(i, v, shape)

    return make


case("sparse_coo_tensor(indices 2x3, values 3, (3, 3))", "overhead")(_coo(3, (3, 3)))
case("sparse_coo_tensor(indices 2x65536, values, (256, 256))", "index")(_coo(1 << 16, (256, 256)))


@case("sparse_coo_tensor(256) (size only)", "overhead")
def _(L):
    if L.t is None:
        return None
    return lambda: L.t.sparse_coo_tensor(256)


# round(x, decimals=k) (PyTorch's round.decimals: x * 10^k rounded half to even, / 10^k), as np.round
def _round(n, decimals, dtype):
    def make(L):
        a = rand(n, dtype=dtype)
        if L.t is None:
            return lambda: np.round(a, decimals)
        x = tensor(L, a)
        return lambda: L.t.round(x, decimals=decimals)

    return make


case("round(x, decimals=2) 1M f32", "elementwise")(_round(1 << 20, 2, np.float32))
case("round(x, decimals=3) 1M f64", "elementwise")(_round(1 << 20, 3, np.float64))
case("round(x, decimals=-1) 64 f32 (per call)", "overhead")(_round(64, -1, np.float32))


# the gradients of linalg.householder_product (orgqr) and ormqr, in float64: one tall matrix and a batch of
# small ones, the reflectors from geqrf
def _householder(batch, m, n, op):
    def make(L):
        if L.t is None:
            return None
        a = np.random.default_rng(5).standard_normal((batch, m, n))
        A0, tau0 = L.t.geqrf(L.t.from_numpy(a))
        A, tau = A0.clone().requires_grad_(), tau0.clone().requires_grad_()
        C = L.t.from_numpy(np.random.default_rng(6).standard_normal((batch, m, 4)))
        if op == "householder_product":
            return lambda: L.t.linalg.householder_product(A, tau).sum().backward()
        if op == "orgqr":
            return lambda: L.t.orgqr(A, tau).sum().backward()
        return lambda: L.t.ormqr(A, tau, C).sum().backward()

    return make


for _b, _m, _n in ((1, 128, 64), (64, 8, 8)):
    for _op in ("householder_product", "orgqr", "ormqr"):
        case(f"{_op} fwd+bwd {_b}x{_m}x{_n} f64", "linalg")(_householder(_b, _m, _n, _op))


@case("t().contiguous() 1024x1024 f32", "copy")
def _(L):
    a = rand(1024, 1024)
    if L.t is None:
        return lambda: np.ascontiguousarray(a.T)
    x = tensor(L, a)
    return lambda: x.t().contiguous()


@case("tril 1024x1024 f32", "copy")
def _(L):
    a = rand(1024, 1024)
    if L.t is None:
        return lambda: np.tril(a)
    x = tensor(L, a)
    return lambda: x.tril()


@case("triu_(1) 64 x 64x64 f64, in place", "copy")
def _(L):
    a = rand(64, 64, 64, dtype=np.float64)
    if L.t is None:
        below = np.tril(np.ones((64, 64), dtype=bool))  # where triu(1) zeroes

        def f():
            a[:, below] = 0

        return f
    x = tensor(L, a)
    return lambda: x.triu_(1)


@case("randn 1M f32", "random")
def _(L):
    if L.t is None:
        g = np.random.default_rng(0)
        return lambda: g.standard_normal(1 << 20, dtype=np.float32)
    return lambda: L.t.randn(1 << 20)


@case("rand 1M f32", "random")
def _(L):
    if L.t is None:
        g = np.random.default_rng(0)
        return lambda: g.random(1 << 20, dtype=np.float32)
    return lambda: L.t.rand(1 << 20)


@case("scatter_add dim=0 1M -> 1000", "index")
def _(L):
    src = rand(1 << 20)
    idx = np.random.default_rng(2).integers(0, 1000, 1 << 20)
    if L.t is None:
        return lambda: np.bincount(idx, weights=src, minlength=1000)
    s, i = tensor(L, src), L.t.from_numpy(idx)
    z = L.t.zeros(1000)
    return lambda: z.clone().scatter_add_(0, i, s)


@case("x[idx] = v 100k x 64, 10k rows", "index")
def _(L):
    a, v = rand(100_000, 64), rand(10_000, 64, seed=1)
    idx = np.random.default_rng(2).integers(0, 100_000, 10_000)
    if L.t is None:

        def f():
            a[idx] = v

        return f
    x, i, w = tensor(L, a), L.t.from_numpy(idx), tensor(L, v)

    def g():
        x[i] = w

    return g


@case("index_put_ accumulate 1M -> 1000", "index")
def _(L):
    src = rand(1 << 20)
    idx = np.random.default_rng(2).integers(0, 1000, 1 << 20)
    if L.t is None:
        z = np.zeros(1000, np.float32)
        return lambda: np.add.at(z, idx, src)
    s, i = tensor(L, src), L.t.from_numpy(idx)
    z = L.t.zeros(1000)
    return lambda: z.index_put_((i,), s, accumulate=True)


@case("masked_fill 1M", "index")
def _(L):
    a = rand(1 << 20)
    if L.t is None:
        m = a > 0
        return lambda: np.where(m, np.float32(0), a)
    x = tensor(L, a)
    m = x > 0
    return lambda: x.masked_fill(m, 0.0)


# ---- nn layers and training steps
def _step(L, model, x, y, lr=0.01, adam=False):
    t = L.t
    opt = t.optim.Adam(model.parameters(), lr=1e-3) if adam else t.optim.SGD(model.parameters(), lr=lr)
    loss_fn = t.nn.CrossEntropyLoss()

    def f():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return f


def _images(L, n, c, h, classes=10):
    x = tensor(L, rand(n, c, h, h))
    y = L.t.from_numpy(np.random.default_rng(3).integers(0, classes, n))
    return x, y


@case("SimpleNN step 64x(784-128-10)", "train")
def _(L):
    if L.t is None:
        return None
    nn = L.t.nn
    L.t.manual_seed(0)
    m = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    x, y = _images(L, 64, 1, 28)
    return _step(L, m, x, y)


@case("MLP step 256x(1024-1024-1024-10) Adam", "train")
def _(L):
    if L.t is None:
        return None
    nn = L.t.nn
    L.t.manual_seed(0)
    m = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    x = tensor(L, rand(256, 1024))
    y = L.t.from_numpy(np.random.default_rng(3).integers(0, 10, 256))
    return _step(L, m, x, y, adam=True)


@case("LeNet step, batch 64", "conv")
def _(L):
    if L.t is None:
        return None
    nn = L.t.nn
    L.t.manual_seed(0)
    m = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
    )  # fmt: skip
    x, y = _images(L, 64, 1, 28)
    return _step(L, m, x, y)


@case("CIFAR CNN step (conv+BN+pool), batch 32", "conv")
def _(L):
    if L.t is None:
        return None
    nn = L.t.nn
    L.t.manual_seed(0)

    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2)]

    m = nn.Sequential(*block(3, 32), *block(32, 64), *block(64, 128), nn.Flatten(), nn.Linear(128 * 16, 10))
    x, y = _images(L, 32, 3, 32)
    return _step(L, m, x, y)


@case("ResNet-18 layer2 conv 128->128 3x3 28x28 fwd+bwd, batch 8", "conv")
def _(L):
    if L.t is None:
        return None
    L.t.manual_seed(0)
    conv = L.t.nn.Conv2d(128, 128, 3, padding=1, bias=False)
    x = tensor(L, rand(8, 128, 28, 28), requires_grad=True)

    def f():
        conv(x).sum().backward()

    return f


@case("max_pool2d 2x2, 32x64x32x32", "conv")
def _(L):
    if L.t is None:
        return None
    x = tensor(L, rand(32, 64, 32, 32))
    return lambda: L.t.nn.functional.max_pool2d(x, 2)


@case("BatchNorm2d train fwd+bwd 32x64x32x32", "nn")
def _(L):
    if L.t is None:
        return None
    bn = L.t.nn.BatchNorm2d(64)
    x = tensor(L, rand(32, 64, 32, 32), requires_grad=True)
    return lambda: bn(x).sum().backward()


@case("LayerNorm fwd+bwd 256x1024", "nn")
def _(L):
    if L.t is None:
        return None
    ln = L.t.nn.LayerNorm(1024)
    x = tensor(L, rand(256, 1024), requires_grad=True)
    return lambda: ln(x).sum().backward()


@case("cross_entropy fwd+bwd 256x1000", "nn")
def _(L):
    if L.t is None:
        return None
    x = tensor(L, rand(256, 1000), requires_grad=True)
    y = L.t.from_numpy(np.random.default_rng(3).integers(0, 1000, 256))
    return lambda: L.t.nn.functional.cross_entropy(x, y).backward()


@case("Adam step, 1M params in 8 tensors", "nn")
def _(L):
    if L.t is None:
        return None
    ps = [tensor(L, rand(1 << 17, seed=i), requires_grad=True) for i in range(8)]
    for i, p in enumerate(ps):
        p.grad = tensor(L, rand(1 << 17, seed=10 + i))
    opt = L.t.optim.Adam(ps, lr=1e-3)
    return opt.step


# ---- worker side


def worker(name):
    class Lib:
        pass

    L = Lib()
    L.name = name
    L.t = None
    if name == "minitorch":
        import minitorch as t

        L.t = t
    elif name == "torch":
        import torch as t

        L.t = t
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not break the protocol
    fns = {}
    for line in sys.stdin:
        cmd = json.loads(line)
        reply = None
        try:
            if cmd["op"] == "setup":
                fn = CASES[cmd["case"]][1](L)
                if fn is not None:
                    fns[cmd["case"]] = fn
                    reply = loops_for(fn, cmd["min_time"], warmup=3, cap=1 << 20)
            elif cmd["op"] == "time":
                fn = fns[cmd["case"]]
                # cpu: this thread's CPU time (one thread; on a loaded machine the wall clock counts the
                # time slices other processes took)
                timer = time.thread_time if cmd.get("cpu") else time.perf_counter
                reply = timeit.Timer(fn, timer=timer).timeit(cmd["loops"]) / cmd["loops"]
            elif cmd["op"] == "drop":
                fns.pop(cmd["case"], None)
            elif cmd["op"] == "threads":
                if L.t is not None:
                    L.t.set_num_threads(cmd["n"])
            elif cmd["op"] == "info":
                reply = {"version": getattr(L.t, "__version__", np.__version__), "threads": _threads(L)}
        except Exception as e:  # noqa: BLE001 (a missing op: report it, keep going)
            reply = {"error": f"{type(e).__name__}: {e}"[:200]}
        out.write(json.dumps(reply) + "\n")
        out.flush()


def _threads(L):
    try:
        return L.t.get_num_threads()
    except AttributeError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    add_sampling_options(ap)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("-k", default="", help="only cases whose name contains this (or one of a,b,...)")
    ap.add_argument("--torch-python", default=None)
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--best", action="store_true", help="each library's fastest sample, not the median")
    ap.add_argument(
        "--cpu-time", action="store_true", help="thread CPU time, not wall time (use with --threads 1)"
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="set_num_threads(N) in minitorch and torch (default: theirs)",
    )
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker)

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [os.path.join(HERE, "..", "python"), env.get("PYTHONPATH")] if p
    )
    workers = [
        Worker("numpy", sys.executable, env, __file__),
        Worker("minitorch", sys.executable, env, __file__),
    ]
    tpy = find_torch_python(args.torch_python)
    if tpy:
        workers.append(Worker("torch", tpy, env, __file__))
    if args.threads:
        for w in workers:
            w.ask(op="threads", n=args.threads)
    info = {w.name: w.ask(op="info") for w in workers}
    load = os.getloadavg()
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {load[0]:.1f} at start"
    )
    print("# " + ", ".join(f"{k} {v['version']} ({v['threads']} threads)" for k, v in info.items()))
    print()
    print("| case | numpy | minitorch | torch | R = torch/minitorch |")
    print("|---|---|---|---|---|")
    results, ratios = {}, []
    for name in CASES:
        if args.k and not any(k in name for k in args.k.split(",")):
            continue
        loops = {w.name: w.ask(op="setup", case=name, min_time=args.min_time) for w in workers}
        live = [w for w in workers if isinstance(loops[w.name], int)]
        samples = interleaved_samples(live, name, loops, args.repeats, args.gap, cpu=args.cpu_time)
        for w in workers:
            w.ask(op="drop", case=name)
        med = {k: (min(v) if args.best else statistics.median(v)) for k, v in samples.items()}
        r = med["torch"] / med["minitorch"] if "torch" in med and "minitorch" in med else None
        if r:
            ratios.append(r)
        results[name] = {
            "median_s": med,
            "R": r,
            "errors": {k: v for k, v in loops.items() if isinstance(v, dict)},
        }
        cols = [fmt(med.get(k)) for k in ("numpy", "minitorch", "torch")]
        flag = "" if r is None or r >= 1 else " **<1**"
        print(f"| {name} | {' | '.join(cols)} | {f'{r:.2f}' if r else '-'}{flag} |", flush=True)
    for w in workers:
        w.close()
    report(ratios, results, args.json)


if __name__ == "__main__":
    main()
