"""The meta device: tensors with shape, dtype and strides but no data. Ops give the shapes, dtypes and strides
their CPU kernels would (compared with the same op on CPU tensors), skip the kernels, and refuse whatever needs
values with PyTorch's errors; modules are built and moved there and back with to_empty."""

import io
import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import nn


def meta(*shape, dtype=torch.float32):
    return torch.empty(shape, device="meta", dtype=dtype)


def meta_like(t):
    """a meta tensor with t's shape, strides and dtype"""
    return torch.empty_strided(tuple(t.shape), t.stride(), dtype=t.dtype, device="meta")


def assert_like(result, reference):
    """result (meta) has the shape, dtype and strides of reference (the same op on the CPU)"""
    assert result.device.type == "meta"
    assert result.is_meta and not reference.is_meta
    assert result.shape == reference.shape
    assert result.dtype == reference.dtype
    if reference.numel() > 1:
        assert result.stride() == reference.stride()


def test_device_parsing_and_printing():
    d = torch.device("meta")
    assert d.type == "meta" and d.index is None and str(d) == "meta"
    assert repr(torch.device("meta", 1)) == "device(type='meta', index=1)"
    assert torch.device("meta:0").index == 0
    with pytest.raises(
        RuntimeError,
        match="^Expected one of cpu, cuda, ipu, xpu, .*, meta, hpu, mtia, privateuseone device type at start of device string: metal$",
    ):
        torch.device("metal")


def test_factories_and_metadata():
    x = torch.empty(2, 3, device="meta")
    assert x.is_meta and not x.is_cpu and not x.is_cuda
    assert x.shape == (2, 3) and x.stride() == (3, 1) and x.dtype == torch.float32
    assert x.numel() == 6 and x.nbytes == 24 and x.element_size() == 4
    assert x.data_ptr() == 0  # as PyTorch's: no memory behind it
    assert x.get_device() == -1 and x.type() == "torch.meta.FloatTensor"
    for t in (
        torch.zeros(4, device="meta"),
        torch.ones(2, 2, device="meta", dtype=torch.float64),
        torch.full((3,), 2.0, device="meta"),
        torch.arange(5, device="meta"),
        torch.randn(2, 5, device="meta"),
        torch.tensor([1.0, 2.0], device="meta"),
        torch.empty_like(x),
        torch.rand_like(x),
        x.new_zeros(3),
    ):
        assert t.is_meta
    assert torch.arange(5, device="meta").dtype == torch.int64
    assert torch.empty_strided((2, 3), (1, 2), device="meta").stride() == (1, 2)
    assert torch.zeros_like(x, device="cpu").is_cpu
    # a size no machine could hold costs nothing on meta
    big = torch.empty(1 << 20, 1 << 20, device="meta")
    assert big.numel() == 1 << 40


def test_repr():
    assert repr(meta(2, 3)) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(meta(0)) == "tensor(..., device='meta', size=(0,))"
    assert repr(meta()) == "tensor(..., device='meta', size=())"
    assert repr(meta(2, dtype=torch.int64)) == "tensor(..., device='meta', size=(2,), dtype=torch.int64)"
    r = torch.empty(2, device="meta", requires_grad=True)
    assert repr(r) == "tensor(..., device='meta', size=(2,), requires_grad=True)"
    assert repr(r * 2) == "tensor(..., device='meta', size=(2,), grad_fn=<MulBackward0>)"


@pytest.mark.parametrize(
    "name, fn",
    [
        ("add", lambda a, b, c: a + b),
        ("add_scalar", lambda a, b, c: a * 2.5 - 1),
        ("broadcast", lambda a, b, c: a + b[0]),
        ("where", lambda a, b, c: torch.where(a > 0, a, b)),
        ("to_half", lambda a, b, c: a.half()),
        ("sum_dim", lambda a, b, c: a.sum(1)),
        ("mean_all", lambda a, b, c: a.mean()),
        ("max_dim", lambda a, b, c: a.max(0)[1]),
        ("argmax", lambda a, b, c: a.argmax(1)),
        ("std", lambda a, b, c: a.std(0)),
        ("cumsum", lambda a, b, c: a.cumsum(1)),
        ("sort", lambda a, b, c: a.sort(1)[1]),
        ("topk", lambda a, b, c: a.topk(2, dim=1)[0]),
        ("matmul", lambda a, b, c: a @ c),
        ("transpose_contig", lambda a, b, c: a.t().contiguous()),
        ("transpose_view", lambda a, b, c: a.transpose(0, 1)),
        ("slice", lambda a, b, c: a[:, 1:]),
        ("cat", lambda a, b, c: torch.cat([a, b], 1)),
        ("stack", lambda a, b, c: torch.stack([a, b])),
        ("softmax", lambda a, b, c: F.softmax(a, -1)),
        ("layer_norm", lambda a, b, c: F.layer_norm(a, (3,))),
        ("gelu", lambda a, b, c: F.gelu(a)),
        ("pad", lambda a, b, c: F.pad(a, (1, 2))),
        ("einsum", lambda a, b, c: torch.einsum("ij,jk->ik", a, c)),
        ("mse", lambda a, b, c: F.mse_loss(a, b)),
        ("index_select", lambda a, b, c: a.index_select(1, torch.tensor([0, 2, 2]))),
        ("adv_index", lambda a, b, c: a[:, torch.tensor([[1, 0], [2, 2]])]),
        ("gather", lambda a, b, c: a.gather(1, torch.zeros(2, 2, dtype=torch.long))),
        ("index_add", lambda a, b, c: a.index_add(1, torch.tensor([0, 2]), b[:, :2])),
        ("scatter", lambda a, b, c: a.scatter(1, torch.zeros(2, 2, dtype=torch.long), b)),
        ("masked_fill", lambda a, b, c: a.masked_fill(a > 0, 1.0)),
    ],
)
def test_ops_follow_the_cpu_shapes(name, fn):
    rng = np.random.default_rng(0)
    cpu = [torch.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in ((4, 3), (4, 3), (3, 5))]
    cpu[0] = cpu[0][::2]  # a strided operand
    cpu[1] = cpu[1][1::2]
    ref = fn(*cpu)
    # the index tensors the lambdas build stay on the CPU: PyTorch's meta ops take CPU indices too
    res = fn(*[meta_like(t) for t in cpu])
    assert_like(res, ref)


L = torch.linalg


@pytest.mark.parametrize(
    "name, fn, shapes",
    [
        ("inv", L.inv, [(2, 3, 3)]),
        ("det", L.det, [(2, 3, 3)]),
        ("slogdet", lambda a: L.slogdet(a)[1], [(3, 3)]),
        ("solve", L.solve, [(3, 3), (3, 2)]),
        ("cholesky", L.cholesky, [(3, 3)]),
        ("qr", lambda a: L.qr(a)[0], [(4, 3)]),
        ("svd", lambda a: L.svd(a, full_matrices=False)[2], [(4, 3)]),
        ("svdvals", L.svdvals, [(2, 4, 3)]),
        ("eigh", lambda a: L.eigh(a)[1], [(3, 3)]),
        ("eig", lambda a: L.eig(a)[1], [(3, 3)]),
        ("eigvals", L.eigvals, [(3, 3)]),
        ("pinv", L.pinv, [(4, 3)]),
        ("lu_factor", lambda a: L.lu_factor(a)[1], [(3, 3)]),
        ("lu_solve", lambda a, b: L.lu_solve(*L.lu_factor(a), b), [(3, 3), (3, 2)]),
        ("ldl_factor", lambda a: L.ldl_factor(a)[0], [(3, 3)]),
        ("solve_triangular", lambda a, b: L.solve_triangular(a, b, upper=True), [(3, 3), (3, 2)]),
        ("matrix_exp", L.matrix_exp, [(3, 3)]),
        ("matrix_norm_2", lambda a: L.matrix_norm(a, 2), [(3, 4)]),
        ("multinomial", lambda p: torch.multinomial(p, 2), [(2, 5)]),
        ("multinomial_1d", lambda p: torch.multinomial(p, 3, replacement=True), [(5,)]),
        ("bernoulli", torch.bernoulli, [(3, 4)]),
        ("histc", lambda a: torch.histc(a, 7), [(10,)]),
        ("var_mean", lambda a: torch.var_mean(a, 1)[1], [(3, 4)]),
        ("std_mean", lambda a: torch.std_mean(a)[0], [(3, 4)]),
    ],
)
def test_value_reading_ops_give_their_shapes(name, fn, shapes):
    # LAPACK's decompositions, the draws and the ops whose CPU path checks or scales by values: on meta the checks
    # are skipped and the kernels are the no-op, as PyTorch's meta functions give the shapes
    rng = np.random.default_rng(0)
    cpu = []
    for s in shapes:
        a = rng.uniform(0.1, 1.0, s)
        if len(s) >= 2 and s[-1] == s[-2]:
            a = a @ np.swapaxes(a, -1, -2) + s[-1] * np.eye(s[-1])  # positive definite
        cpu.append(torch.from_numpy(a.astype(np.float32)))
    ref = fn(*cpu)
    res = fn(*[meta_like(t) for t in cpu])
    assert_like(res, ref)


def test_embedding_bag_and_ctc_loss_give_their_shapes():
    # both read index values on the host (the bags' offsets, the targets' alignment): on meta, the shapes alone
    idx = torch.zeros(4, dtype=torch.long, device="meta")
    w = meta(10, 3)
    for offsets, last, bags in ((meta(2, dtype=torch.long), False, 2), (meta(3, dtype=torch.long), True, 2)):
        r = F.embedding_bag(idx, w, offsets, include_last_offset=last)
        assert r.is_meta and r.shape == (bags, 3) and r.dtype == torch.float32
    assert nn.EmbeddingBag(10, 3, mode="max", device="meta")(meta(2, 4, dtype=torch.long)).shape == (2, 3)
    lp = meta(5, 2, 4)
    tg = torch.zeros(2, 3, dtype=torch.long, device="meta")
    for red, shape in (("none", (2,)), ("mean", ()), ("sum", ())):
        r = F.ctc_loss(lp, tg, (5, 5), (3, 2), reduction=red)
        assert r.is_meta and r.shape == shape and r.dtype == torch.float32
    assert F.ctc_loss(meta(5, 4), torch.zeros(3, dtype=torch.long, device="meta"), (5,), (3,)).shape == ()
    # the length checks that need no values still run, in PyTorch's words
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 5, but got value 6"):
        F.ctc_loss(lp, tg, (6, 5), (3, 2))


def test_index_tensors_on_meta():
    x = meta(2, 3)
    i = torch.tensor([0, 2], device="meta")
    assert x.index_select(1, i).shape == (2, 2)
    assert x[:, i].shape == (2, 2)
    assert x.gather(1, torch.zeros(2, 2, dtype=torch.long, device="meta")).shape == (2, 2)
    assert x.scatter_add(1, torch.zeros(2, 2, dtype=torch.long, device="meta"), meta(2, 2)).is_meta
    x[:, i] = 1.0  # nothing to write, the shapes still checked
    with pytest.raises(RuntimeError, match="shape mismatch|expand"):
        x[:, i] = meta(5)
    assert F.one_hot(torch.zeros(3, dtype=torch.long, device="meta"), 5).shape == (3, 5)


def test_layers_and_backward():
    conv = F.conv2d(meta(1, 3, 8, 8), meta(4, 3, 3, 3), meta(4), padding=1)
    assert conv.shape == (1, 4, 8, 8) and conv.is_meta
    assert F.max_pool2d(meta(1, 3, 8, 8), 2).shape == (1, 3, 4, 4)
    assert F.interpolate(meta(1, 3, 4, 4), scale_factor=2).shape == (1, 3, 8, 8)
    assert F.scaled_dot_product_attention(meta(2, 4, 5, 8), meta(2, 4, 5, 8), meta(2, 4, 5, 8)).shape == (
        2,
        4,
        5,
        8,
    )
    out, _ = nn.LSTM(8, 16, device="meta")(meta(5, 2, 8))
    assert out.shape == (5, 2, 16) and out.is_meta
    enc = nn.TransformerEncoderLayer(16, 2, device="meta")
    assert enc(meta(4, 3, 16)).shape == (4, 3, 16)
    loss = F.cross_entropy(meta(4, 10), torch.zeros(4, dtype=torch.long, device="meta"))
    assert loss.shape == () and loss.is_meta
    w = torch.empty(3, 4, device="meta", requires_grad=True)
    (w * 2).sum().backward()
    assert w.grad.is_meta and w.grad.shape == (3, 4)


def test_values_are_refused_with_pytorchs_errors():
    x = meta(2, 3)
    with pytest.raises(NotImplementedError, match="^Cannot copy out of meta tensor; no data!$"):
        x.cpu()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        x.to("cpu")
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        torch.zeros(2, 3).copy_(x)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        x.tolist()
    with pytest.raises(RuntimeError, match="^Tensor.item\\(\\) cannot be called on meta tensors$"):
        meta(1).item()
    with pytest.raises(RuntimeError, match="a Tensor with 6 elements cannot be converted to Scalar"):
        x.item()
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        bool(meta(1))
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        x.numpy()
    # data-dependent shapes have no meta answer
    with pytest.raises(NotImplementedError):
        x.nonzero()
    with pytest.raises(NotImplementedError):
        x[x > 0]
    with pytest.raises(NotImplementedError):
        x.unique()
    # meta and CPU tensors do not mix, but a 0-dim CPU tensor is a scalar, as on CUDA
    with pytest.raises(RuntimeError, match="same device"):
        x + torch.ones(2, 3)
    assert (x + torch.tensor(2.0)).is_meta
    # copies into meta are free; the source's shape must still broadcast
    assert x.copy_(torch.ones(3)) is x
    with pytest.raises(RuntimeError):
        x.copy_(torch.ones(4))


def test_module_to_meta_and_to_empty():
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 10)
    )
    ref = net(torch.randn(2, 3, 8, 8))
    net.to("meta")
    assert all(p.is_meta for p in net.parameters()) and all(b.is_meta for b in net.buffers())
    out = net(meta(2, 3, 8, 8))
    assert_like(out, ref)
    net.to_empty(device="cpu")
    assert all(p.is_cpu for p in net.parameters())
    # real values again once a state dict is loaded
    torch.manual_seed(1)
    src = nn.Linear(4, 2)
    dst = nn.Linear(4, 2, device="meta")
    dst.load_state_dict(src.state_dict(), assign=True)
    x = torch.randn(3, 4)
    np.testing.assert_array_equal(dst(x).detach().numpy(), src(x).detach().numpy())
    # a model far larger than memory is built without allocating
    with torch.device("meta"):
        huge = nn.Linear(100_000, 100_000)
    assert huge.weight.is_meta and huge.weight.numel() == 10**10


def test_load_state_dict_into_meta_warns_unless_assigned():
    src = nn.Linear(2, 3).state_dict()
    m = nn.Linear(2, 3, device="meta")
    with pytest.warns(UserWarning) as rec:
        m.load_state_dict(src)
    msgs = [str(w.message) for w in rec]
    assert msgs == [
        f"for {k}: copying from a non-meta parameter in the checkpoint to a meta parameter in the current model, "
        "which is a no-op. (Did you mean to pass `assign=True` to assign items in the state dictionary to their "
        "corresponding key in the module instead of copying them in place?)"
        for k in ("weight", "bias")
    ]
    assert m.weight.is_meta
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.load_state_dict(src, assign=True)
    assert not m.weight.is_meta and torch.equal(m.weight, src["weight"])


def test_skip_init():
    m = nn.utils.skip_init(nn.Linear, 5, 3)
    assert m.weight.is_cpu and m.weight.shape == (3, 5)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)
    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        nn.utils.skip_init(nn.Dropout)


def test_save_and_load():
    buf = io.BytesIO()
    torch.save({"m": meta(2, 3), "c": torch.arange(3.0)}, buf)
    buf.seek(0)
    back = torch.load(buf)
    assert back["m"].is_meta and back["m"].shape == (2, 3)
    np.testing.assert_array_equal(back["c"].numpy(), [0.0, 1.0, 2.0])


def test_optimizer_step_on_meta():
    p = nn.Parameter(torch.zeros(3, device="meta"))
    p.grad = torch.ones(3, device="meta")
    torch.optim.Adam([p]).step()
    assert p.is_meta
