"""torch.conv_tbc / F.conv_tbc, the time-major 1-D convolution: values against NumPy's sum over the kernel and
against PyTorch (padding both ways, float32, an empty sequence, non-contiguous input), gradients by finite
differences, and PyTorch's refusals in its words."""

import numpy as np

import minitorch
from minitorch.autograd import gradcheck
from tests.utils import cases_here_and_in_pytorch


def _ref(x, w, b, pad):
    # out[t] = bias + sum_k x[t + k - pad] @ w[k], x zero outside [0, T)
    T, K = x.shape[0], w.shape[0]
    steps = T + 2 * pad - K + 1
    out = np.tile(b, (steps, x.shape[1], 1))
    for t in range(steps):
        for k in range(K):
            s = t + k - pad
            if 0 <= s < T:
                out[t] += x[s] @ w[k]
    return out


def test_values_against_numpy():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((6, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)
    for pad in (0, 1, 2, -1):
        got = minitorch.conv_tbc(minitorch.tensor(x), minitorch.tensor(w), minitorch.tensor(b), pad)
        assert got.is_contiguous()
        np.testing.assert_allclose(got.numpy(), _ref(x, w, b, pad), rtol=1e-12, atol=1e-12)
    got = minitorch.nn.functional.conv_tbc(
        minitorch.tensor(x).transpose(0, 1).transpose(0, 1), minitorch.tensor(w), minitorch.tensor(b), pad=1
    )
    np.testing.assert_allclose(got.numpy(), _ref(x, w, b, 1), rtol=1e-12, atol=1e-12)


def test_gradients():
    rng = np.random.default_rng(1)
    args = [
        minitorch.tensor(rng.standard_normal(s), requires_grad=True) for s in ((4, 2, 3), (2, 3, 2), (2,))
    ]
    assert gradcheck(lambda x, w, b: minitorch.conv_tbc(x, w, b, 1), args)
    assert gradcheck(lambda x, w, b: minitorch.conv_tbc(x, w, b, -1), args)


SOURCE = r"""
def cases(torch, data):
    x, w, b = (torch.tensor(a, dtype=torch.float64) for a in data)
    def run(f):
        try:
            r = f()
            return [list(r.shape), str(r.dtype), r.tolist(), r.is_contiguous()]
        except Exception as e:
            return [type(e).__name__, str(e)]
    return [run(f) for f in (
        lambda: torch.conv_tbc(x, w, b), lambda: torch.conv_tbc(x, w, b, 1), lambda: torch.conv_tbc(x, w, b, -1),
        lambda: torch.nn.functional.conv_tbc(x, w, b, pad=2),
        lambda: torch.conv_tbc(x[:0], w, b, 2), lambda: torch.conv_tbc(x[0], w, b),
        lambda: torch.conv_tbc(x, w[0], b), lambda: torch.conv_tbc(x, w, b[:2]), lambda: torch.conv_tbc(x, w, b, -1.5),
        lambda: torch.conv_tbc(x, w[:, :2], b), lambda: torch.conv_tbc(x, w, None),
        lambda: torch.conv_tbc(x, torch.cat([w, w, w]), b),
    )]
"""


def test_as_pytorch():
    rng = np.random.default_rng(2)
    data = [rng.standard_normal(s).tolist() for s in ((5, 2, 3), (3, 3, 4), (4,))]
    ours, theirs = cases_here_and_in_pytorch(SOURCE, [("torch", minitorch)], data)
    for a, b in zip(ours, theirs):
        if isinstance(b[0], str):
            assert a == b
        else:
            assert a[0] == b[0] and a[1] == b[1] and a[3] == b[3]
            np.testing.assert_allclose(np.array(a[2]), np.array(b[2]), rtol=1e-12, atol=1e-12)
