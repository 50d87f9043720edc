"""Shared checks of the forward-mode and batching rules csrc/ops/ops.schema declares (tests/func/test_schema_*):
ops of a (3, 4) float64 input, each JVP against central finite differences and PyTorch's torch.func.jvp, each
vmap against a loop over the batch, strided and contiguous, with no generic-JVP or per-entry fallback warning."""

import warnings

import pytest

import minitorch as torch
from minitorch.func import jvp, vmap
from minitorch.testing import assert_close
from tests.utils import CASE_HELPERS, cases_in_pytorch

D = torch.float64

# appended to a test file's SOURCE (which defines fns(torch)): the JVP of each op on both layouts, on either side
JVP_CASES = r"""
def cases(torch, data):
    run = runner(lambda r: [r[0].tolist(), r[1].tolist()])
    base = torch.tensor(data["x"], dtype=torch.float64).t()  # (3, 4), strided
    tan = torch.tensor(data["t"], dtype=torch.float64).t()
    out = {}
    for layout, (x, t) in {"strided": (base, tan), "contiguous": (base.contiguous(), tan.contiguous())}.items():
        for name, f in fns(torch).items():
            out[name + "/" + layout] = run(lambda: torch.func.jvp(f, (x,), (t,)))
    return out
"""


def load(source):
    """The namespace of source (with the case helpers) run here, and its ops for minitorch."""
    ns = {}
    exec(CASE_HELPERS + source, ns)  # noqa: S102 - the source PyTorch runs too
    return ns, ns["fns"](torch)


def inputs(layout):
    torch.manual_seed(3)
    x, t = torch.randn(4, 3, dtype=D).t(), torch.randn(4, 3, dtype=D).t()
    return (x, t) if layout == "strided" else (x.contiguous(), t.contiguous())


def check_jvp_against_finite_differences(f, layout):
    x, t = inputs(layout)
    assert x.is_contiguous() == (layout == "contiguous")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the generic (double-vjp) JVP would warn: each op has its rule
        p, tangent = jvp(f, (x,), (t,))
    assert_close(p, f(x))
    eps = 1e-6
    fd = (f(x + eps * t) - f(x - eps * t)) / (2 * eps)
    assert_close(tangent, fd, rtol=1e-6, atol=1e-7)


def close(a, b, rel=1e-12):
    """Nested lists (and dicts) equal to rel (an error case's [type, message] exactly)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, rel) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], rel) for k in a)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a == pytest.approx(b, rel=rel, abs=rel)


def check_jvp_against_pytorch(source, ns, rel=lambda key: 1e-12):
    torch.manual_seed(4)
    data = {"x": torch.randn(4, 3, dtype=D).tolist(), "t": torch.randn(4, 3, dtype=D).tolist()}
    theirs = cases_in_pytorch(source, [("torch", torch)], data)
    ours = ns["cases"](torch, data)
    assert set(ours) == set(theirs)
    for key in ours:
        assert close(ours[key], theirs[key], rel(key)), (key, ours[key], theirs[key])


def check_vmap_against_a_loop(f, strided, fallback_ok=False):
    """vmap(f) equal to f over each entry; the batch dim inside a transposed buffer when strided. fallback_ok:
    the per-entry fallback's warning is allowed (an argument the op's rule does not batch)."""
    torch.manual_seed(5)
    if strided:  # the batch dim in the middle of a transposed buffer: the batched value is not contiguous
        xs = torch.randn(4, 5, 3, dtype=D).permute(2, 1, 0)
        got_fn, want = vmap(f, in_dims=1), torch.stack([f(x) for x in xs.unbind(1)])
    else:
        xs = torch.randn(5, 3, 4, dtype=D)
        got_fn, want = vmap(f), torch.stack([f(x) for x in xs.unbind(0)])
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore" if fallback_ok else "error"
        )  # the fallback warns: each op has its rule
        got = got_fn(xs)
    assert_close(got, want)


def check_hvp_against_finite_differences(loss):
    """Forward-over-reverse Hessian-vector product of loss against central differences of its gradient."""
    from minitorch.autograd import forward_ad as fwAD

    torch.manual_seed(6)
    x, v = torch.randn(3, 4, dtype=D), torch.randn(3, 4, dtype=D)
    xr = x.clone().requires_grad_()
    with fwAD.dual_level():
        (g,) = torch.autograd.grad(loss(fwAD.make_dual(xr, v)), xr)
        got = fwAD.unpack_dual(g).tangent
    eps = 1e-6
    fd = (torch.func.grad(loss)(x + eps * v) - torch.func.grad(loss)(x - eps * v)) / (2 * eps)
    assert_close(got, fd, rtol=1e-5, atol=1e-6)
