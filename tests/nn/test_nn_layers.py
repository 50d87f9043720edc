"""nn layers as modules: each layer's forward equals its functional op (or a NumPy reference), inputs that are
views (storage offsets, transposes) give the same result as their contiguous copies, and the layer options
reach the op. The ops themselves are tested in test_conv.py, test_nn_ops.py and test_loss.py."""

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn import functional as F


def _r(*shape):
    return minitorch.randn(shape)


# (name, fn, inputs builder): inputs are views into larger buffers (offset and/or transposed)
VIEW_CASES = [
    ("linear", lambda x, w, b: F.linear(x, w, b), lambda: (_r(10, 4)[5:8], _r(6, 4)[2:5], _r(5)[1:4])),
    ("linear_t", lambda x, w: F.linear(x, w), lambda: (_r(4, 10).t()[2:5], _r(3, 4).t().t())),
    ("conv2d", lambda x, w: F.conv2d(x, w, padding=1), lambda: (_r(6, 3, 8, 8)[2:4], _r(8, 3, 3, 3)[2:6])),
    (
        "conv2d_perm",
        lambda x, w: F.conv2d(x, w),
        lambda: (_r(6, 3, 8, 8).permute(0, 1, 3, 2)[1:3], _r(4, 3, 3, 3)),
    ),
    ("conv1d", lambda x, w: F.conv1d(x, w, stride=2), lambda: (_r(5, 2, 9)[1:3], _r(6, 2, 3)[3:6])),
    (
        "conv_t2d",
        lambda x, w: F.conv_transpose2d(x, w, stride=2),
        lambda: (_r(6, 3, 5, 5)[2:4], _r(5, 3, 2, 2)[1:4]),
    ),
    ("max_pool2d", lambda x: F.max_pool2d(x, 2), lambda: (_r(6, 3, 8, 8)[2:4],)),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1), lambda: (_r(6, 3, 8, 8)[2:4],)),
    ("adaptive_avg", lambda x: F.adaptive_avg_pool2d(x, 3), lambda: (_r(6, 3, 8, 8)[2:4],)),
    ("batch_norm", lambda x: F.batch_norm(x, None, None, training=True), lambda: (_r(6, 3, 4, 4)[2:5],)),
    ("layer_norm", lambda x: F.layer_norm(x, (8,)), lambda: (_r(6, 3, 8)[2:4],)),
    ("group_norm", lambda x: F.group_norm(x, 3), lambda: (_r(6, 6, 5)[2:4],)),
    (
        "embedding",
        lambda i, w: F.embedding(i, w),
        lambda: (minitorch.randint(0, 10, (8,))[2:6], _r(20, 5)[5:15]),
    ),
    ("cross_entropy", F.cross_entropy, lambda: (_r(10, 4)[3:7], minitorch.randint(0, 4, (10,))[3:7])),
    ("nll_loss", F.nll_loss, lambda: (_r(10, 4)[3:7], minitorch.randint(0, 4, (10,))[3:7])),
    ("mse_loss", F.mse_loss, lambda: (_r(10)[3:7], _r(10)[2:6])),
    ("bce_logits", F.binary_cross_entropy_with_logits, lambda: (_r(10)[3:7], minitorch.rand(10)[2:6])),
    ("softmax", lambda x: F.softmax(x, dim=0), lambda: (_r(5, 4).t()[1:3],)),
]


@pytest.mark.parametrize("name,fn,make", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_views_give_the_same_result_as_contiguous_copies(device, name, fn, make):
    minitorch.manual_seed(0)
    views = [v.to(device) for v in make()]
    copies = [v.clone().contiguous() for v in views]
    got = fn(*views)
    ref = fn(*copies)
    np.testing.assert_allclose(got.detach().cpu().numpy(), ref.detach().cpu().numpy(), rtol=1e-5, atol=1e-6)
    # and the gradient through the view lands in the right places of its base
    floats = [i for i, v in enumerate(views) if v.is_floating_point()]
    if not floats:
        return
    leaf_v = [v.detach().clone().requires_grad_(v.is_floating_point()) for v in copies]
    fn(*leaf_v).sum().backward()
    bases = [v.detach().clone() for v in views]
    leaf_b = [b.requires_grad_(b.is_floating_point()) for b in bases]
    fn(*leaf_b).sum().backward()
    for i in floats:
        np.testing.assert_allclose(
            leaf_b[i].grad.cpu().numpy(), leaf_v[i].grad.cpu().numpy(), rtol=1e-5, atol=1e-6
        )


def test_linear_module_matches_numpy(device):
    lin = nn.Linear(4, 3).to(device)
    x = minitorch.randn(2, 5, 4)
    w, b = lin.weight.detach().cpu().numpy(), lin.bias.detach().cpu().numpy()
    out = lin(x.to(device))
    assert out.shape == (2, 5, 3)
    np.testing.assert_allclose(out.detach().cpu().numpy(), x.numpy() @ w.T + b, rtol=1e-5, atol=1e-6)
    assert nn.Linear(4, 3, bias=False).bias is None
    with pytest.raises(
        RuntimeError, match=r"^addmm: mat1 and mat2 shapes cannot be multiplied \(2x5 and 4x3\)$"
    ):
        lin(minitorch.randn(2, 5).to(device))


def test_conv_modules_reach_their_options(device):
    conv = nn.Conv2d(4, 6, 3, stride=2, padding=1, dilation=1, groups=2, bias=False).to(device)
    x = minitorch.randn(2, 4, 9, 9).to(device)
    np.testing.assert_allclose(
        conv(x).detach().cpu().numpy(),
        F.conv2d(x, conv.weight, None, 2, 1, 1, 2).detach().cpu().numpy(),
        rtol=1e-6,
    )
    assert conv.weight.shape == (6, 2, 3, 3) and conv.bias is None
    same = nn.Conv2d(3, 5, (3, 4), padding="same").to(device)
    assert same(minitorch.randn(1, 3, 7, 8).to(device)).shape == (1, 5, 7, 8)
    refl = nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect").to(device)
    xr = minitorch.randn(1, 2, 5, 5).to(device)
    padded = F.pad(xr, (1, 1, 1, 1), mode="reflect")
    np.testing.assert_allclose(
        refl(xr).detach().cpu().numpy(),
        F.conv2d(padded, refl.weight, refl.bias).detach().cpu().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    t = nn.ConvTranspose2d(3, 2, 3, stride=2).to(device)
    y = minitorch.randn(1, 3, 4, 4).to(device)
    assert t(y).shape == (1, 2, 9, 9)
    assert t(y, output_size=(10, 10)).shape == (1, 2, 10, 10)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(3, 4, 3, stride=2, padding="same")
    assert (
        repr(conv) == "Conv2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=2, bias=False)"
    )


def test_pad_modes_match_numpy():
    x = minitorch.arange(12.0).reshape(1, 3, 4)
    xn = x.numpy()
    for mode, np_mode in [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]:
        got = F.pad(x, (2, 1), mode=mode).numpy()
        np.testing.assert_array_equal(got, np.pad(xn, ((0, 0), (0, 0), (2, 1)), mode=np_mode))
    got = F.pad(x, (1, 2, 0, 1), value=-1.0).numpy()
    np.testing.assert_array_equal(got, np.pad(xn, ((0, 0), (0, 1), (1, 2)), constant_values=-1.0))
    np.testing.assert_array_equal(F.pad(x, (-1, -1)).numpy(), xn[..., 1:-1])
    # F.pad is C++ in PyTorch: RuntimeError
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(RuntimeError, match="padding length 8 and input of dimension 3"):
        F.pad(x, (1,) * 8)


def test_batchnorm_module_running_stats_and_eval(device):
    bn = nn.BatchNorm1d(3, momentum=0.5).to(device)
    x = minitorch.randn(8, 3).to(device)
    bn(x)
    xn = x.cpu().numpy().astype(np.float64)
    np.testing.assert_allclose(bn.running_mean.cpu().numpy(), 0.5 * xn.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.cpu().numpy(), 0.5 + 0.5 * xn.var(0, ddof=1), rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    out = bn(x).detach().cpu().numpy()
    ref = (xn - bn.running_mean.cpu().numpy()) / np.sqrt(bn.running_var.cpu().numpy() + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    cma = nn.BatchNorm1d(3, momentum=None).to(device)
    cma(x)
    cma(x * 2)
    np.testing.assert_allclose(cma.running_mean.cpu().numpy(), 1.5 * xn.mean(0), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(minitorch.randn(2, 3))
    assert set(bn.state_dict()) == {"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}


def test_dropout_module_train_and_eval(device):
    drop = nn.Dropout(0.5).to(device)
    x = minitorch.ones(1000).to(device)
    y = drop(x).cpu().numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.4 < (y == 0).mean() < 0.6
    drop.eval()
    assert drop(x) is x or np.array_equal(drop(x).cpu().numpy(), x.cpu().numpy())
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    d2 = nn.Dropout2d(0.5)
    z = d2(minitorch.ones(4, 8, 3, 3)).numpy()
    per_channel = z.reshape(4, 8, 9)
    assert all(len(np.unique(c)) == 1 for c in per_channel.reshape(32, 9))


def test_embedding_module(device):
    emb = nn.Embedding(10, 3, padding_idx=0).to(device)
    assert float(emb.weight[0].abs().sum()) == 0
    idx = minitorch.tensor([[0, 2], [2, 9]]).to(device)
    out = emb(idx)
    np.testing.assert_array_equal(
        out.detach().cpu().numpy(), emb.weight.detach().cpu().numpy()[idx.cpu().numpy()]
    )
    out.sum().backward()
    g = emb.weight.grad.cpu().numpy()
    assert g[0].sum() == 0 and g[2].sum() == 2 * 3 and g[9].sum() == 3
    pre = nn.Embedding.from_pretrained(minitorch.eye(3))
    assert not pre.weight.requires_grad
    if device == "cpu":  # CUDA stops with a device-side assert (tests/nn/test_nn_ops.py checks it in a child)
        with pytest.raises(IndexError, match="index out of range in self"):
            emb(minitorch.tensor([10]).to(device))


def test_norm_and_activation_modules_match_functional(device):
    x = minitorch.randn(2, 4, 5).to(device)
    cases = [
        (nn.LayerNorm(5), lambda m: F.layer_norm(x, (5,), m.weight, m.bias)),
        (nn.GroupNorm(2, 4), lambda m: F.group_norm(x, 2, m.weight, m.bias)),
        (nn.ReLU(), lambda m: F.relu(x)),
        (nn.LeakyReLU(0.2), lambda m: F.leaky_relu(x, 0.2)),
        (nn.GELU(approximate="tanh"), lambda m: F.gelu(x, approximate="tanh")),
        (nn.SiLU(), lambda m: x * minitorch.sigmoid(x)),
        (nn.Sigmoid(), lambda m: minitorch.sigmoid(x)),
        (nn.Tanh(), lambda m: minitorch.tanh(x)),
        (nn.Softmax(dim=1), lambda m: x.softmax(1)),
        (nn.LogSoftmax(dim=-1), lambda m: x.log_softmax(-1)),
        (nn.Flatten(), lambda m: x.reshape(2, 20)),
        (nn.Unflatten(2, (5, 1)), lambda m: x.reshape(2, 4, 5, 1)),
        (nn.Identity(), lambda m: x),
    ]
    for mod, ref in cases:
        mod = mod.to(device)
        np.testing.assert_allclose(
            mod(x).detach().cpu().numpy(), ref(mod).detach().cpu().numpy(), rtol=1e-5, atol=1e-6
        )


def test_loss_modules_pass_their_options(device):
    x = minitorch.randn(6, 4).to(device)
    t = minitorch.tensor([0, 1, 2, 3, -100, 1]).to(device)
    w = minitorch.rand(4).to(device) + 0.5
    crit = nn.CrossEntropyLoss(weight=w, ignore_index=-100, label_smoothing=0.1, reduction="sum")
    ref = F.cross_entropy(x, t, weight=w, ignore_index=-100, label_smoothing=0.1, reduction="sum")
    assert crit(x, t).item() == pytest.approx(ref.item(), rel=1e-6)
    assert nn.CrossEntropyLoss(reduction="none")(x, t.clamp(0, 3)).shape == (6,)
    y = minitorch.rand(6, 4).to(device)
    assert nn.MSELoss()(x, y).item() == pytest.approx(float(((x - y) ** 2).mean()), rel=1e-5)
    assert nn.L1Loss(reduction="sum")(x, y).item() == pytest.approx(float((x - y).abs().sum()), rel=1e-5)
    assert nn.BCEWithLogitsLoss()(x, y).item() == pytest.approx(
        F.binary_cross_entropy_with_logits(x, y).item(), rel=1e-6
    )
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        legacy = nn.MSELoss(size_average=False)
    assert legacy.reduction == "sum"
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(x, y[:1])


# ---- the functional ops written as compositions in Python: gradients by finite differences, values by PyTorch


def _d(*shape, low=-2.0, high=2.0):
    return (minitorch.rand(shape, dtype=minitorch.float64) * (high - low) + low).requires_grad_(True)


COMPOSITES = [
    ("pad_constant", lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), (2, 3, 4)),
    ("pad_reflect", lambda x: F.pad(x, (2, 1), mode="reflect"), (2, 3, 4)),
    ("pad_replicate", lambda x: F.pad(x, (1, 1, 2, 0), mode="replicate"), (1, 2, 3, 4)),
    ("pad_circular", lambda x: F.pad(x, (1, 2), mode="circular"), (2, 2, 4)),
    ("instance_norm", lambda x: F.instance_norm(x), (2, 3, 5)),
    ("glu", lambda x: F.glu(x, -1), (3, 4)),
    ("elu", lambda x: F.elu(x, 0.7), (3, 4)),
    ("selu", F.selu, (3, 4)),
    ("celu", lambda x: F.celu(x, 1.3), (3, 4)),
    ("hardswish", F.hardswish, (3, 4)),
    ("hardsigmoid", F.hardsigmoid, (3, 4)),
    ("logsigmoid", F.logsigmoid, (3, 4)),
    ("softsign", F.softsign, (3, 4)),
    ("tanhshrink", F.tanhshrink, (3, 4)),
    ("softmin", lambda x: F.softmin(x, dim=1), (3, 4)),
    ("normalize", lambda x: F.normalize(x, dim=1), (3, 4)),
    ("cosine_similarity", lambda x: F.cosine_similarity(x[:, :2], x[:, 2:], dim=1), (3, 4)),
    ("pairwise_distance", lambda x: F.pairwise_distance(x[:, :2], x[:, 2:]), (3, 4)),
]


@pytest.mark.parametrize("name,fn,shape", COMPOSITES, ids=[c[0] for c in COMPOSITES])
def test_composite_functional_gradcheck(name, fn, shape):
    minitorch.manual_seed(3)
    x = _d(*shape)
    assert minitorch.autograd.gradcheck(fn, (x,))


def test_bilinear_gradcheck_and_shape():
    minitorch.manual_seed(4)
    x1, x2, w, b = _d(3, 2), _d(3, 4), _d(5, 2, 4), _d(5)
    assert F.bilinear(x1, x2, w, b).shape == (3, 5)
    assert minitorch.autograd.gradcheck(F.bilinear, (x1, x2, w, b))


def test_embedding_padding_idx_rules(device):
    # nn.Embedding and F.embedding share one padding_idx check (F._embedding_padding_idx), PyTorch's asserts
    assert nn.Embedding(5, 2, padding_idx=-1).padding_idx == 4
    assert nn.Embedding(5, 2, padding_idx=-5).padding_idx == 0
    empty = F.embedding(minitorch.tensor([], dtype=minitorch.int64), minitorch.randn(0, 2), padding_idx=0)
    assert empty.shape == (0, 2)
    for bad in (5, -6):
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            nn.Embedding(5, 2, padding_idx=bad)
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            F.embedding(minitorch.tensor([0]), minitorch.randn(5, 2), padding_idx=bad)
    w = minitorch.randn(4, 3, dtype=minitorch.float64).to(device).requires_grad_()
    F.embedding(minitorch.tensor([3, 1, 3]).to(device), w, padding_idx=-1).sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy().sum(1), [0.0, 3.0, 0.0, 0.0])


def test_conv_forward_hook_and_per_dim_classes(device):
    # _conv_forward (PyTorch's name) is what weight-transforming subclasses call; each class picks its op
    conv = nn.Conv1d(2, 3, 3, padding=1, padding_mode="circular").to(device)
    x = minitorch.randn(2, 2, 7).to(device)
    w2 = conv.weight * 2
    ref = F.conv1d(F.pad(x, (1, 1), mode="circular"), w2, conv.bias)
    np.testing.assert_allclose(
        conv._conv_forward(x, w2, conv.bias).detach().cpu().numpy(),
        ref.detach().cpu().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    t1 = nn.ConvTranspose1d(2, 3, 3, stride=2).to(device)
    np.testing.assert_allclose(
        t1(x, output_size=[16]).detach().cpu().numpy(),
        F.conv_transpose1d(x, t1.weight, t1.bias, 2, 0, 1).detach().cpu().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    p1 = nn.MaxPool1d(2, return_indices=True)
    vals, idx = p1(x)
    ref_vals, ref_idx = F.max_pool1d(x, 2, return_indices=True)
    np.testing.assert_array_equal(vals.cpu().numpy(), ref_vals.cpu().numpy())
    np.testing.assert_array_equal(idx.cpu().numpy(), ref_idx.cpu().numpy())
    assert nn.MaxPool2d(2)(minitorch.randn(1, 1, 4, 6).to(device)).shape == (1, 1, 2, 3)


def test_embedding_index_dtype_error_names_the_legacy_type(device):
    prefix = "torch.cuda." if minitorch.device(device).type == "cuda" else "torch."
    with pytest.raises(
        RuntimeError,
        match=rf"Long, Int; but got {prefix}FloatTensor instead \(while checking arguments for embedding\)",
    ):
        F.embedding(minitorch.tensor([0.0]).to(device), minitorch.randn(3, 2).to(device))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.bfloat16])
def test_max_pool1d_tap_path_matches_the_kernel(dtype):
    # the plain stride-1 case (no padding or dilation, no gradient) is the maximum of its taps, not the pooling
    # kernel: the same values, NaN kept, every stride, transposed and odd-length inputs, the 2-D form
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 5, 37))
    a[0, 1, 4] = a[2, 4, 36] = np.nan
    x = minitorch.tensor(a).to(dtype)
    xt = minitorch.tensor(np.ascontiguousarray(a.transpose(0, 2, 1))).to(dtype).transpose(1, 2)
    for k, s in [(1, None), (2, None), (3, 1), (3, 2), (2, 3), (5, 5), (8, 3), (9, 2)]:
        want = minitorch._C._nn.max_pool1d(x, k, [] if s is None else s)
        for inp in (x, xt, x[0]):
            got = F.max_pool1d(inp, k, s)
            ref = want if inp.dim() == 3 else want[0]
            assert got.shape == ref.shape and got.dtype == ref.dtype
            np.testing.assert_array_equal(got.float().numpy(), ref.float().numpy())
    one = F.max_pool1d(x, 1)  # a single tap: a copy, never a view of the input
    one[0, 0, 0] = 100.0
    assert x[0, 0, 0].item() != 100.0
    g = minitorch.tensor(a, requires_grad=True)  # with a gradient the kernel runs: the first maximum takes it
    F.max_pool1d(g, 2).sum().backward()
    assert g.grad.sum().item() == 3 * 5 * 18
