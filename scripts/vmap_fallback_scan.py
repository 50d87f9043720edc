"""Lists the torch functions that vmap still runs by the per-entry loop fallback (issue 31's sweep).

Each public function of the torch namespaces (torch, nn.functional, linalg, special, fft) is tried eagerly on a
few small argument patterns; the first that works is vmapped over a batch of two with the fallback's warning
turned into an error. A report, not a test: functions no pattern fits are counted as not probed.
Usage: PYTHONPATH=python python scripts/vmap_fallback_scan.py [--all]
"""

import argparse
import warnings

import minitorch as torch
from minitorch.func import vmap
from minitorch.overrides import get_overridable_functions, resolve_name

_SKIP = (
    "rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "poisson", "dropout",
    "rrelu", "empty", "empty_like", "empty_strided", "seed", "set_", "compile", "vmap", "cond", "while_loop",
)  # fmt: skip


def _patterns():
    g = torch.Generator().manual_seed(0)
    m = torch.randn(3, 4, dtype=torch.float64, generator=g)
    sq = torch.randn(3, 3, dtype=torch.float64, generator=g) + 3 * torch.eye(3, dtype=torch.float64)
    v = torch.randn(4, dtype=torch.float64, generator=g)
    i = torch.arange(4)
    img = torch.randn(2, 3, 6, dtype=torch.float64, generator=g)
    return [
        (m,),
        (m, m),
        (m, 1),
        (m, 0.5),
        (sq,),
        (sq, sq),
        (v,),
        (v, v),
        (m, v),
        (m, m, m),
        (m, 0.5, 1),
        (m, 2, 1, 1.0),
        (sq, sq[0]),
        (i,),
        (i, i),
        (img,),
        (img, 2),
        (m, [1, 2]),
        (m, (2, 2)),
        (m, 1, 0.5),
    ]


def _batched(a):
    return torch.stack([a, a * 1.25 + 0.5]) if torch.is_tensor(a) and a.is_floating_point() else None


def scan():
    results = {}
    pats = _patterns()
    for mod, fns in get_overridable_functions().items():
        for fn in fns:
            name = resolve_name(fn)
            short = name.rpartition(".")[2]
            if short.endswith("_") or short.startswith(_SKIP) or name in results:
                continue
            status = "not probed"
            for args in pats:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fn(*args)
                except Exception:  # noqa: BLE001, S112  (a pattern that does not fit)
                    continue
                batched = [(_batched(a) if torch.is_tensor(a) else None) for a in args]
                if batched[0] is None:
                    continue
                in_dims = tuple(0 if b is not None else None for b in batched)
                call_args = [b if b is not None else a for a, b in zip(args, batched)]
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        warnings.filterwarnings("error", message="There is a performance drop")
                        # looked up inside vmap: the namespace then holds the dispatching wrapper
                        vmap(lambda *a, mod=mod, short=short: getattr(mod, short)(*a), in_dims=in_dims)(
                            *call_args
                        )
                    status = "rule"
                except UserWarning:
                    status = "fallback"
                except Exception as e:  # noqa: BLE001
                    status = f"error: {type(e).__name__}: {str(e)[:80]}"
                break
            results[name] = status
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--all", action="store_true", help="print every function's status, not only fallbacks")
    args = ap.parse_args()
    results = scan()
    counts = {}
    for name, status in sorted(results.items()):
        kind = status.split(":")[0]
        counts[kind] = counts.get(kind, 0) + 1
        if args.all or kind != "rule" and kind != "not probed":
            print(f"{name}: {status}")
    print(counts)


if __name__ == "__main__":
    main()
