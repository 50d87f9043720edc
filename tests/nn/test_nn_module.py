"""nn.Module machinery: Parameter, registration, traversal order, state dicts, device/dtype moves, hooks,
containers, printing, and nn.init's formulas."""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn

# ---- Parameter


def test_parameter_is_a_leaf_tensor_sharing_storage():
    data = minitorch.randn(3)
    p = nn.Parameter(data)
    assert isinstance(p, minitorch.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert p.data_ptr() == data.data_ptr()
    with minitorch.no_grad():
        data.add_(1)
    np.testing.assert_array_equal(p.detach().numpy(), data.numpy())
    assert not nn.Parameter(minitorch.ones(2), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)


def test_parameter_identity_survives_inplace_ops_and_grad():
    p = nn.Parameter(minitorch.ones(3))
    with minitorch.no_grad():
        q = p.mul_(2)
    assert q is p and type(q) is nn.Parameter
    (p * p).sum().backward()
    assert p.grad is p.grad
    np.testing.assert_allclose(p.grad.numpy(), 4 * np.ones(3))


def test_parameter_repr_pickle_deepcopy():
    p = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    assert repr(p).startswith("Parameter containing:\ntensor([1., 2.]")
    assert str(p) == repr(p)
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is nn.Parameter and q.requires_grad
    np.testing.assert_array_equal(q.detach().numpy(), [1.0, 2.0])
    r = copy.deepcopy(p)
    assert type(r) is nn.Parameter and r is not p and r.data_ptr() != p.data_ptr()


def test_parameter_rejects_non_tensor():
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


def test_legacy_tensor_constructor():
    assert minitorch.Tensor(2, 3).shape == (2, 3)
    assert minitorch.Tensor(2, 3).dtype == minitorch.float32
    assert minitorch.Tensor().shape == (0,)
    np.testing.assert_array_equal(minitorch.Tensor([1, 2]).numpy(), np.array([1.0, 2.0], np.float32))
    assert minitorch.Tensor(minitorch.Size([4])).shape == (4,)


# ---- registration and traversal


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
        self.scale = nn.Parameter(minitorch.ones(2))
        self.register_buffer("steps", minitorch.zeros((), dtype=minitorch.int64))
        self.register_buffer("cache", minitorch.zeros(2), persistent=False)

    def forward(self, x):
        return self.block(self.act(self.fc1(x))) * self.scale


def test_named_parameters_follow_pytorch_order():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == [
        "scale",
        "fc1.weight",
        "fc1.bias",
        "block.0.weight",
        "block.0.bias",
        "block.2.weight",
        "block.2.bias",
    ]
    assert [n for n, _ in net.named_buffers()] == ["steps", "cache"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "block"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "block", "block.0", "block.1", "block.2"]
    assert len(list(net.parameters(recurse=False))) == 1
    assert sum(p.numel() for p in net.parameters()) == 3 * 4 + 4 + 4 * 4 + 4 + 4 * 2 + 2 + 2


def test_shared_parameters_are_listed_once():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, a)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_setattr_rules_and_messages():
    net = Net()
    with pytest.raises(
        TypeError, match=r"cannot assign '.*' as parameter 'scale' \(torch.nn.Parameter or None expected\)"
    ):
        net.scale = minitorch.ones(2)
    net.scale = None
    assert net.scale is None and "scale" in net._parameters
    with pytest.raises(TypeError, match="as child module 'fc1'"):
        net.fc1 = 3
    net.steps = minitorch.ones(())
    assert "steps" in net._buffers
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'missing'"):
        _ = net.missing
    with pytest.raises(KeyError, match="attribute 'fc1' already exists"):
        net.register_buffer("fc1", minitorch.zeros(1))
    with pytest.raises(KeyError, match="contain"):
        net.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="cannot assign 'int' object to buffer 'x'"):
        net.register_buffer("x", 3)
    nonleaf = nn.Parameter(minitorch.ones(2)) * 2
    with pytest.raises(TypeError):
        net.register_parameter("y", nonleaf)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(minitorch.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()
    del net.fc1
    assert "fc1" not in net._modules


def test_missing_forward_message():
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(1)


# ---- state dict


def test_state_dict_keys_values_and_detach():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == [
        "scale",
        "steps",
        "fc1.weight",
        "fc1.bias",
        "block.0.weight",
        "block.0.bias",
        "block.2.weight",
        "block.2.bias",
    ]
    assert all(not v.requires_grad for v in sd.values())
    assert sd["fc1.weight"].data_ptr() == net.fc1.weight.data_ptr()
    kv = net.state_dict(keep_vars=True)
    assert kv["fc1.weight"] is net.fc1.weight


def test_load_state_dict_roundtrip_and_errors():
    a, b = Net(), Net()
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert str(result) == "<All keys matched successfully>"
    for (n1, p1), (n2, p2) in zip(a.named_parameters(), b.named_parameters()):
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())
    w = b.fc1.weight
    assert b.fc1.weight is w  # copied in place

    sd = a.state_dict()
    del sd["fc1.bias"]
    sd["extra.weight"] = minitorch.zeros(1)
    with pytest.raises(RuntimeError) as exc:
        b.load_state_dict(sd)
    msg = str(exc.value)
    assert msg.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "fc1.bias".' in msg
    assert 'Unexpected key(s) in state_dict: "extra.weight".' in msg
    res = b.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["fc1.bias"] and res.unexpected_keys == ["extra.weight"]

    sd = a.state_dict()
    sd["fc1.weight"] = minitorch.zeros(5, 3)
    with pytest.raises(RuntimeError, match=r"size mismatch for fc1.weight: copying a param with shape"):
        b.load_state_dict(sd)


def test_load_state_dict_assign():
    a = nn.Linear(2, 3)
    sd = {"weight": minitorch.ones(3, 2), "bias": minitorch.zeros(3)}
    a.load_state_dict(sd, assign=True)
    assert isinstance(a.weight, nn.Parameter) and a.weight.requires_grad
    assert a.weight.data_ptr() == sd["weight"].data_ptr()


def test_state_dict_save_load_file(tmp_path):
    net = Net()
    minitorch.save(net.state_dict(), tmp_path / "m.pt")
    other = Net()
    other.load_state_dict(minitorch.load(tmp_path / "m.pt"))
    x = minitorch.randn(5, 3)
    np.testing.assert_array_equal(net(x).detach().numpy(), other(x).detach().numpy())


# ---- moving and converting


def test_to_moves_in_place_so_optimizers_keep_their_tensors(device):
    net = Net()
    params = list(net.parameters())
    out = net.to(device)
    assert out is net
    assert all(p is q for p, q in zip(params, net.parameters()))
    assert all(p.device.type == device for p in net.parameters())
    assert all(b.device.type == device for b in net.buffers())
    net.double()
    assert all(p.dtype == minitorch.float64 for p in net.parameters())
    assert net.steps.dtype == minitorch.int64  # integer buffers keep their dtype
    net.half()
    assert net.fc1.weight.dtype == minitorch.float16
    net.to(minitorch.float32)
    assert all(p is q for p, q in zip(params, net.parameters()))
    net.cpu()
    assert net.fc1.weight.device.type == "cpu"
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        net.to(minitorch.int32)


def test_to_converts_gradients_too():
    lin = nn.Linear(2, 2)
    lin(minitorch.ones(1, 2)).sum().backward()
    lin.double()
    assert lin.weight.grad.dtype == minitorch.float64


# ---- modes, gradients, apply


def test_train_eval_zero_grad_requires_grad_apply():
    net = Net()
    assert net.training and net.block[0].training
    net.eval()
    assert not net.training and not net.block[0].training
    net.train()
    assert net.block[2].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")
    net(minitorch.randn(4, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and seen[0] == "Linear"


# ---- hooks


def test_full_backward_hooks():
    # checked against PyTorch 2.15: the order (pre-hook on the output gradients, then the hook with the input
    # gradients), one grad_input entry per tensor input, replacing gradients, the no-input-needs-grad warning
    minitorch.manual_seed(0)
    lin = nn.Linear(3, 2)
    calls = []

    def pre(mod, grad_output):
        calls.append(("pre", [tuple(g.shape) for g in grad_output]))

    def hook(mod, grad_input, grad_output):
        calls.append(("hook", [None if g is None else tuple(g.shape) for g in grad_input], len(grad_output)))

    h1 = lin.register_full_backward_hook(hook)
    h2 = lin.register_full_backward_pre_hook(pre)
    x = minitorch.rand(4, 3, requires_grad=True)
    lin(x).sum().backward()
    assert calls == [("pre", [(4, 2)]), ("hook", [(4, 3)], 1)]
    np.testing.assert_allclose(x.grad.numpy(), lin.weight.detach().sum(0).expand(4, 3).numpy(), rtol=1e-6)
    calls.clear()
    with pytest.warns(
        UserWarning,
        match="Full backward hook is firing when gradients are computed with respect to module outputs since no inputs require gradients",
    ):
        lin(minitorch.rand(4, 3)).sum().backward()
    assert calls == [("pre", [(4, 2)]), ("hook", [None], 1)]
    assert lin.weight.grad is not None
    h1.remove()
    h2.remove()

    # a hook's return replaces grad_input; a pre-hook's replaces grad_output (and so every gradient below it)
    lin.zero_grad()
    with lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,)):
        x.grad = None
        lin(x).sum().backward()
    assert x.grad.abs().sum().item() == 0
    with lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,)):
        x.grad = None
        lin(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * lin.weight.detach().sum(0).expand(4, 3).numpy(), rtol=1e-6)
    with (
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0])),
        pytest.raises(
            RuntimeError,
            match="Backward hook returned an invalid number of grad_input, got 2, but expected 1",
        ),
    ):
        lin(x).sum().backward()

    class Mul(nn.Module):
        def forward(self, a, b, scale):
            return a * b * scale

    seen = []
    mul = Mul()
    mul.register_full_backward_hook(
        lambda m, gi, go: seen.append([None if g is None else g.tolist() for g in gi])
    )
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    mul(a, minitorch.tensor([3.0, 4.0]), 2.0).sum().backward()
    # an entry per argument: zeros for the tensor that needs no gradient, None for the float
    assert seen == [[[6.0, 8.0], [0.0, 0.0], None]]
    # pickled modules keep working
    assert pickle.loads(pickle.dumps(nn.Linear(2, 2)))._backward_hooks == {}


def test_forward_hooks_modify_and_remove():
    lin = nn.Linear(2, 2)
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 0,)

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = lin.register_forward_pre_hook(pre)
    h2 = lin.register_forward_hook(post)
    out = lin(minitorch.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy(), lin.bias.detach().numpy()[None] + 1, rtol=1e-6)
    assert calls == ["pre", "post"]
    h1.remove()
    h2.remove()
    out2 = lin(minitorch.zeros(1, 2))
    np.testing.assert_allclose(out2.detach().numpy(), lin.bias.detach().numpy()[None], rtol=1e-6)

    def kw_pre(mod, args, kwargs):
        return (args[0] + 1,), kwargs

    with lin.register_forward_pre_hook(kw_pre, with_kwargs=True):
        out3 = lin(minitorch.zeros(1, 2) - 1)
    np.testing.assert_allclose(out3.detach().numpy(), lin.bias.detach().numpy()[None], rtol=1e-6)


# ---- containers


def test_sequential_indexing_slicing_len_and_forward():
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    assert len(seq) == 3
    assert isinstance(seq[0], nn.Linear) and isinstance(seq[-1], nn.Linear)
    sub = seq[:2]
    assert isinstance(sub, nn.Sequential) and len(sub) == 2 and sub[0] is seq[0]
    with pytest.raises(IndexError):
        seq[3]
    x = minitorch.randn(5, 3)
    ref = seq[2](seq[1](seq[0](x)))
    np.testing.assert_array_equal(seq(x).detach().numpy(), ref.detach().numpy())
    seq.append(nn.Tanh())
    assert len(seq) == 4
    del seq[1]
    assert [type(m).__name__ for m in seq] == ["Linear", "Linear", "Tanh"]
    assert list(seq._modules) == ["0", "1", "2"]
    from collections import OrderedDict

    named = nn.Sequential(OrderedDict([("first", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in named.named_children()] == ["first", "act"]


def test_module_list_and_dict_register_their_members():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(ml) == 3 and len(list(ml.parameters())) == 6
    ml.append(nn.Linear(2, 1))
    assert len(list(ml.parameters())) == 8
    assert ml[-1].out_features == 1
    md = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
    assert list(md.keys()) == ["a", "b"] and "a" in md
    assert [n for n, _ in md.named_parameters()] == ["a.weight", "a.bias"]
    pl = nn.ParameterList([minitorch.ones(2), nn.Parameter(minitorch.zeros(1))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(list(pl.parameters())) == 2
    pd = nn.ParameterDict({"x": minitorch.ones(1)})
    assert isinstance(pd["x"], nn.Parameter) and [n for n, _ in pd.named_parameters()] == ["x"]


def test_repr_matches_pytorch_layout():
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2, bias=False))
    assert repr(seq) == (
        "Sequential(\n"
        "  (0): Linear(in_features=3, out_features=4, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Linear(in_features=4, out_features=2, bias=False)\n"
        ")"
    )


# ---- init


def test_init_formulas():
    minitorch.manual_seed(0)
    w = minitorch.empty(400, 300)
    nn.init.xavier_uniform_(w)
    bound = math.sqrt(6.0 / 700)
    a = w.numpy()
    assert a.min() >= -bound and a.max() <= bound and a.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    nn.init.kaiming_normal_(w, mode="fan_in", nonlinearity="relu")
    assert w.numpy().std() == pytest.approx(math.sqrt(2.0 / 300), rel=0.02)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5))
    assert np.abs(w.numpy()).max() <= 1 / math.sqrt(300) + 1e-7
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert np.abs(w.numpy()).max() <= 0.5
    nn.init.constant_(w, 0.25)
    assert (w.numpy() == 0.25).all()
    nn.init.eye_(w)
    np.testing.assert_array_equal(w.numpy(), np.eye(400, 300, dtype=np.float32))
    q = nn.init.orthogonal_(minitorch.empty(5, 8)).numpy().astype(np.float64)
    np.testing.assert_allclose(q @ q.T, np.eye(5), atol=1e-5)
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.xavier_uniform_(minitorch.empty(3))
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        nn.init.calculate_gain("foo")


def test_init_does_not_record_autograd():
    p = nn.Parameter(minitorch.empty(3, 3))
    nn.init.normal_(p)
    assert p.is_leaf and p.grad_fn is None


def test_linear_default_init_bounds():
    lin = nn.Linear(50, 20)
    bound = 1 / math.sqrt(50)
    assert np.abs(lin.weight.detach().numpy()).max() <= bound + 1e-7
    assert np.abs(lin.bias.detach().numpy()).max() <= bound + 1e-7


# ---- DataParallel without several GPUs


def test_data_parallel_is_a_pass_through_without_gpus():
    net = Net()
    dp = nn.DataParallel(net)
    x = minitorch.randn(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = dp(x)
    if not minitorch.cuda.is_available():
        np.testing.assert_array_equal(out.detach().numpy(), net(x).detach().numpy())
    assert next(n for n, _ in dp.named_parameters()) == "module.scale"


# ---- nn.utils


def test_clip_grad_norm_and_value(device):
    ps = [nn.Parameter(minitorch.zeros(3).to(device)), nn.Parameter(minitorch.zeros(2, 2).to(device))]
    grads = [np.array([3.0, 0.0, 4.0]), np.array([[1.0, 2.0], [2.0, 4.0]])]
    for p, g in zip(ps, grads):
        p.grad = minitorch.from_numpy(g.astype(np.float32)).to(device)
    total = math.sqrt(25 + 25)
    norm = nn.utils.clip_grad_norm_(ps, max_norm=1.0)
    assert norm.item() == pytest.approx(total, rel=1e-6)
    for p, g in zip(ps, grads):
        np.testing.assert_allclose(p.grad.cpu().numpy(), g / (total + 1e-6), rtol=1e-5)
    # under the limit nothing changes; inf norm is the largest magnitude
    before = [p.grad.clone() for p in ps]
    assert nn.utils.clip_grad_norm_(ps, 10.0).item() == pytest.approx(1.0, rel=1e-5)
    for p, b in zip(ps, before):
        np.testing.assert_array_equal(p.grad.cpu().numpy(), b.cpu().numpy())
    assert nn.utils.clip_grad_norm_(ps, 10.0, norm_type="inf").item() == pytest.approx(
        4 / (total + 1e-6), rel=1e-5
    )
    ps[0].grad[0] = float("nan")
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    nn.utils.clip_grad_value_(ps[1:], 0.05)
    np.testing.assert_array_equal(ps[1].grad.cpu().numpy(), np.float32(0.05))


def test_parameters_to_vector_and_back():
    lin = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(lin.parameters())
    assert vec.shape == (8,)
    np.testing.assert_array_equal(vec[:6].detach().numpy(), lin.weight.detach().numpy().ravel())
    nn.utils.vector_to_parameters(minitorch.arange(8.0), lin.parameters())
    np.testing.assert_array_equal(lin.bias.detach().numpy(), [6.0, 7.0])
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        nn.utils.vector_to_parameters([1.0], lin.parameters())


def test_whole_module_checkpoint_keeps_parameters(tmp_path):
    net = Net()
    minitorch.save(net, tmp_path / "net.pt")
    with pytest.raises(Exception, match="Weights only load failed"):
        minitorch.load(tmp_path / "net.pt")
    back = minitorch.load(tmp_path / "net.pt", weights_only=False)
    assert all(type(p) is nn.Parameter and p.requires_grad for p in back.parameters())
    assert [n for n, _ in back.named_parameters()] == [n for n, _ in net.named_parameters()]
    x = minitorch.randn(2, 3)
    np.testing.assert_array_equal(back(x).detach().numpy(), net(x).detach().numpy())
    # a bare Parameter is allowed by the weights_only loader
    minitorch.save({"p": net.scale}, tmp_path / "p.pt")
    p = minitorch.load(tmp_path / "p.pt")["p"]
    assert type(p) is nn.Parameter


def test_containers_refuse_a_call_with_pytorchs_message():
    for c in (nn.ModuleList(), nn.ModuleDict(), nn.ParameterList(), nn.ParameterDict()):
        name = type(c).__name__
        with pytest.raises(
            NotImplementedError, match=rf'Module \[{name}\] is missing the required "forward"'
        ):
            c(minitorch.ones(1), scale=2)


def test_module_classes_carry_pytorchs_constants_lists():
    """Every nn module class with PyTorch's __constants__ (a list, most from a base: Conv2d's from _ConvNd) has
    the same list here, a subclass inheriting it; a class PyTorch gives none has none"""
    from utils import run_oracle

    script = (
        "import inspect, json, torch.nn as nn\n"
        "print(json.dumps({n: getattr(c, '__constants__', None) for n in dir(nn)"
        " for c in [getattr(nn, n)] if inspect.isclass(c) and issubclass(c, nn.Module)}))"
    )
    theirs = run_oracle(script, {})
    ours = {n: getattr(getattr(nn, n), "__constants__", None) for n in theirs if hasattr(nn, n)}
    assert len(ours) > 130
    diffs = {n: (ours[n], theirs[n]) for n in ours if ours[n] != theirs[n]}
    assert not diffs, diffs
    assert isinstance(nn.Linear.__constants__, list) and nn.Conv2d.__constants__[-1] == "kernel_size"

    class MyLinear(nn.Linear):
        pass

    assert MyLinear.__constants__ == ["in_features", "out_features"]
    assert not hasattr(nn.Module, "__constants__") and not hasattr(nn.Sequential, "__constants__")
