"""minitorch.distributions throughput: sampling and log_prob of the common families beside NumPy's Generator /
scipy.stats (float64, their native type) and PyTorch when `import torch` works. Printed as a Markdown table;
ratios are other / minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_distributions.py
(PyTorch's column appears when run with a Python that has PyTorch, e.g. PYTHONPATH=python /tmp/tv/bin/python ...).
"""

import argparse
import platform

import numpy as np
from _timing import print_ratio_table

import minitorch

try:
    import torch as real_torch
except ImportError:
    real_torch = None
try:
    import scipy.stats as st
except ImportError:  # PyTorch's environment may lack SciPy: its log_prob columns are left out
    st = None


def cases(n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    xpos = (rng.random(n) * 5 + 0.01).astype(np.float32)
    d = 8
    a = rng.standard_normal((d, d))
    cov = a @ a.T + d * np.eye(d)
    mvx = rng.standard_normal((n // d, d)).astype(np.float32)
    out = {
        f"Normal.sample({n})": {"numpy": lambda: rng.normal(0.3, 1.5, n)},
        f"Normal.log_prob({n})": {"numpy": lambda: st.norm.logpdf(x, 0.3, 1.5)} if st else {},
        f"Gamma(0.5).sample({n})": {"numpy": lambda: rng.gamma(0.5, 1.0, n)},
        f"Gamma(5).sample({n})": {"numpy": lambda: rng.gamma(5.0, 1.0, n)},
        f"Gamma(5).rsample+backward({n})": {},
        f"Gamma.log_prob({n})": {"numpy": lambda: st.gamma.logpdf(xpos, 2.5, scale=1 / 1.5)} if st else {},
        f"Beta(2,3).sample({n})": {"numpy": lambda: rng.beta(2.0, 3.0, n)},
        f"Dirichlet(5).sample({n // 5})": {"numpy": lambda: rng.dirichlet(np.ones(5), n // 5)},
        f"Poisson(3).sample({n})": {"numpy": lambda: rng.poisson(3.0, n)},
        f"Poisson(50).sample({n})": {"numpy": lambda: rng.poisson(50.0, n)},
        f"Binomial(20,0.3).sample({n})": {"numpy": lambda: rng.binomial(20, 0.3, n)},
        f"Binomial(1000,0.4).sample({n})": {"numpy": lambda: rng.binomial(1000, 0.4, n)},
        f"Categorical(10).sample({n})": {"numpy": lambda: rng.choice(10, n, p=np.full(10, 0.1))},
        f"MVN(8).log_prob({n // d})": (
            {"numpy": lambda: st.multivariate_normal(np.zeros(d), cov).logpdf(mvx)} if st else {}
        ),
    }
    libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
    for name, lib in libs:
        D = lib.distributions
        f32 = lib.float32

        def t(v, lib=lib, f32=f32):
            return lib.tensor(v, dtype=f32)

        X, XP, MX = lib.from_numpy(x), lib.from_numpy(xpos), lib.from_numpy(mvx)
        normal = D.Normal(t(0.3), t(1.5))
        gamma_half, gamma5 = D.Gamma(t(0.5), t(1.0)), D.Gamma(t(5.0), t(1.0))
        gamma = D.Gamma(t(2.5), t(1.5))
        beta = D.Beta(t(2.0), t(3.0))
        dirichlet = D.Dirichlet(lib.ones(5))
        pois3, pois50 = D.Poisson(t(3.0)), D.Poisson(t(50.0))
        bin20, bin1000 = D.Binomial(20, t(0.3)), D.Binomial(1000, t(0.4))
        cat = D.Categorical(lib.full((10,), 0.1))
        mvn = D.MultivariateNormal(lib.zeros(d), lib.from_numpy(cov.astype(np.float32)))
        conc = t(5.0).requires_grad_()

        def rsample_backward(D=D, conc=conc, t=t):
            D.Gamma(conc, t(1.0)).rsample((n,)).sum().backward()

        out[f"Normal.sample({n})"][name] = lambda d=normal: d.sample((n,))
        out[f"Normal.log_prob({n})"][name] = lambda d=normal, X=X: d.log_prob(X)
        out[f"Gamma(0.5).sample({n})"][name] = lambda d=gamma_half: d.sample((n,))
        out[f"Gamma(5).sample({n})"][name] = lambda d=gamma5: d.sample((n,))
        out[f"Gamma(5).rsample+backward({n})"][name] = rsample_backward
        out[f"Gamma.log_prob({n})"][name] = lambda d=gamma, XP=XP: d.log_prob(XP)
        out[f"Beta(2,3).sample({n})"][name] = lambda d=beta: d.sample((n,))
        out[f"Dirichlet(5).sample({n // 5})"][name] = lambda d=dirichlet: d.sample((n // 5,))
        out[f"Poisson(3).sample({n})"][name] = lambda d=pois3: d.sample((n,))
        out[f"Poisson(50).sample({n})"][name] = lambda d=pois50: d.sample((n,))
        out[f"Binomial(20,0.3).sample({n})"][name] = lambda d=bin20: d.sample((n,))
        out[f"Binomial(1000,0.4).sample({n})"][name] = lambda d=bin1000: d.sample((n,))
        out[f"Categorical(10).sample({n})"][name] = lambda d=cat: d.sample((n,))
        out[f"MVN(8).log_prob({n // d})"][name] = lambda d=mvn, MX=MX: d.log_prob(MX)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--n", type=int, default=1 << 16, help="draws / values per call (float32 in the tensor libraries)"
    )
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    args = ap.parse_args()
    print(f"{platform.processor() or platform.machine()}, {minitorch.get_num_threads()} threads, n={args.n}")
    print_ratio_table(cases(args.n), args.repeats, args.min_time, first="case", numpy_name="NumPy/SciPy")


if __name__ == "__main__":
    main()
