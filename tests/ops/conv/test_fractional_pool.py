"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d: PyTorch's window sequence for given
_random_samples, the indices, gradients through the chosen maxima, and PyTorch's argument errors."""

import json
import os
import subprocess

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F


def _starts(u, n_in, n_out, k):
    """the reference window starts, in float32 as PyTorch's kernel computes them for a float32 sample"""
    u = np.float32(u)
    alpha = np.float32(n_in - k) / np.float32(n_out - 1) if n_out > 1 else np.float32(0)
    seq = [int(np.float32(np.float32(i) + u) * alpha) - int(u * alpha) for i in range(n_out)]
    seq[-1] = n_in - k
    return seq


def test_fractional_max_pool2d_matches_reference_loop():
    g = np.random.default_rng(0)
    a = g.normal(size=(2, 3, 11, 9)).astype(np.float32)
    s = g.uniform(size=(2, 3, 2)).astype(np.float32)
    out, idx = F.fractional_max_pool2d(
        torch.tensor(a), (3, 2), output_size=(5, 4), return_indices=True, _random_samples=torch.tensor(s)
    )
    assert out.shape == (2, 3, 5, 4) and idx.dtype == torch.int64
    for b in range(2):
        for c in range(3):
            hs, ws = _starts(s[b, c, 1], 11, 5, 3), _starts(s[b, c, 0], 9, 4, 2)
            for i, h0 in enumerate(hs):
                for j, w0 in enumerate(ws):
                    win = a[b, c, h0 : h0 + 3, w0 : w0 + 2]
                    r, q = np.unravel_index(np.argmax(win), win.shape)
                    assert out[b, c, i, j].item() == win.max()
                    assert idx[b, c, i, j].item() == (h0 + r) * 9 + w0 + q


def test_fractional_max_pool_gradient_and_module():
    g = np.random.default_rng(1)
    x = torch.tensor(g.normal(size=(1, 2, 6, 7, 5)), requires_grad=True)
    s = torch.tensor(g.uniform(size=(1, 2, 3)))
    out, idx = F.fractional_max_pool3d(x, 2, output_size=(3, 4, 3), return_indices=True, _random_samples=s)
    out.sum().backward()
    ref = np.zeros(2 * 6 * 7 * 5)
    flat = (idx + torch.arange(2).reshape(1, 2, 1, 1, 1) * (6 * 7 * 5)).reshape(-1).numpy()
    np.add.at(ref, flat, 1.0)
    np.testing.assert_array_equal(x.grad.numpy().reshape(-1), ref)
    assert torch.autograd.gradcheck(
        lambda t: F.fractional_max_pool2d(t, 2, output_ratio=(0.5, 0.5), _random_samples=s[:, :, :2]),
        (torch.tensor(g.normal(size=(1, 2, 6, 6)), requires_grad=True),),
    )
    m = torch.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), return_indices=True)
    o, i = m(torch.randn(3, 9, 8))  # unbatched
    assert o.shape == (3, 4, 4) and i.shape == (3, 4, 4)
    assert torch.nn.FractionalMaxPool3d(2, output_size=2)(torch.randn(1, 1, 4, 4, 4)).shape == (1, 1, 2, 2, 2)
    # non-contiguous and empty batches
    xt = torch.randn(2, 3, 9, 10).transpose(2, 3)
    s2 = torch.rand(2, 3, 2)
    np.testing.assert_array_equal(
        F.fractional_max_pool2d(xt, 2, output_size=4, _random_samples=s2).numpy(),
        F.fractional_max_pool2d(xt.contiguous(), 2, output_size=4, _random_samples=s2).numpy(),
    )
    assert F.fractional_max_pool2d(torch.randn(0, 3, 9, 9), 3, output_size=4).shape == (0, 3, 4, 4)


def test_fractional_max_pool_nan_takes_over():
    x = torch.tensor([[[[1.0, float("nan")], [float("nan"), 0.0]]]])
    o, i = F.fractional_max_pool2d(
        x, 2, output_size=1, return_indices=True, _random_samples=torch.zeros(1, 1, 2)
    )
    assert o.isnan().all() and i.item() == 2  # the last NaN of the window, as PyTorch's loop keeps it


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda x, x5: F.fractional_max_pool2d(x, 3),
            ValueError,
            "requires specifying either an output_size",
        ),
        (
            lambda x, x5: F.fractional_max_pool2d(x, 3, output_size=(20, 4)),
            RuntimeError,
            "pool height 3 too large",
        ),
        (
            lambda x, x5: F.fractional_max_pool2d(x, 0, output_size=4),
            RuntimeError,
            "kernel size should be greater",
        ),
        (
            lambda x, x5: F.fractional_max_pool2d(x, (3, 3, 3), output_size=4),
            RuntimeError,
            "single Int or tuple",
        ),
        (
            lambda x, x5: F.fractional_max_pool2d(x, 3, output_size=4, _random_samples=torch.rand(2, 3, 3)),
            RuntimeError,
            r"Expect _random_samples.size\(2\) equals to 2; got 3.",
        ),
        (
            lambda x, x5: F.fractional_max_pool2d(x, 3, output_size=4, _random_samples=torch.rand(1, 3, 2)),
            RuntimeError,
            "no less then input batch size",
        ),
        (
            lambda x, x5: F.fractional_max_pool2d(
                x, 3, output_size=4, _random_samples=torch.rand(2, 3, 2).double()
            ),
            RuntimeError,
            "Expect _random_samples to have the same dtype as input",
        ),
        (
            lambda x, x5: F.fractional_max_pool2d(x[0, 0], 3, output_size=4),
            IndexError,
            "Dimension out of range",
        ),
        (
            lambda x, x5: F.fractional_max_pool2d(x[:, :, :0], 3, output_size=4),
            RuntimeError,
            "Expected input to have non-zero size for non-batch dimensions",
        ),
        (lambda x, x5: F.fractional_max_pool3d(x5, 6, output_size=3), RuntimeError, "pool time 6 too large"),
        (
            lambda x, x5: torch.nn.FractionalMaxPool2d(3),
            ValueError,
            "requires specifying either an output size",
        ),
        (
            lambda x, x5: torch.nn.FractionalMaxPool2d(3, 4, 0.5),
            ValueError,
            "only one of output_size and output_ratio",
        ),
        (
            lambda x, x5: torch.nn.FractionalMaxPool2d(3, output_ratio=1.5),
            ValueError,
            r"between 0 and 1 \(got 1.5\)",
        ),
    ],
)
def test_fractional_max_pool_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(torch.randn(2, 3, 9, 9), torch.randn(1, 2, 5, 5, 5))


def test_fractional_max_pool_against_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    g = np.random.default_rng(2)
    data = {
        "x2": g.normal(size=(2, 3, 13, 10)).tolist(),
        "s2": g.uniform(size=(2, 3, 2)).tolist(),
        "x3": g.normal(size=(2, 2, 7, 8, 9)).tolist(),
        "s3": g.uniform(size=(2, 2, 3)).tolist(),
    }
    cases = {
        "f32": "F.fractional_max_pool2d(x2.float(), (2, 3), output_size=(6, 5), return_indices=True, "
        "_random_samples=s2.float())",
        "f64": "F.fractional_max_pool2d(x2, 3, output_ratio=(0.7, 0.4), return_indices=True, _random_samples=s2)",
        "f64_3d": "F.fractional_max_pool3d(x3, (2, 3, 2), output_size=(4, 5, 6), return_indices=True, "
        "_random_samples=s3)",
        "grad": "(torch.autograd.grad(F.fractional_max_pool2d(x2.requires_grad_(), 2, output_size=7, "
        "_random_samples=s2).pow(3).sum(), x2)[0], torch.zeros(1))",
    }
    script = (
        "import json, sys, torch\nimport torch.nn.functional as F\n"
        "d = json.loads(sys.stdin.read())\n"
        "env = {k: torch.tensor(v, dtype=torch.float64) for k, v in d['data'].items()}\n"
        "env.update(torch=torch, F=F)\n"
        "print(json.dumps({k: [t.tolist() for t in eval(v, env)] for k, v in d['cases'].items()}))\n"
    )
    res = subprocess.run(
        [py, "-c", script],
        input=json.dumps({"data": data, "cases": cases}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    for k, src in cases.items():
        env = {n: torch.tensor(v, dtype=torch.float64) for n, v in data.items()}
        env.update(torch=torch, F=F)
        mine = eval(src, env)
        np.testing.assert_allclose(mine[0].detach().numpy(), np.array(theirs[k][0]), rtol=1e-12, err_msg=k)
        np.testing.assert_array_equal(mine[1].numpy(), np.array(theirs[k][1]), err_msg=k)
