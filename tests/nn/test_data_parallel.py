"""nn.DataParallel and nn.parallel's parts: the multi-replica path on the CPU (a minitorch extension) against the
plain module, and on CUDA where a GPU is present."""

import collections
import threading
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch import _C, nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn.parallel import DataParallel, data_parallel, gather, parallel_apply, replicate, scatter
from minitorch.nn.parallel.scatter_gather import scatter_kwargs

HAS_CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a GPU")
CPU = torch.device("cpu")


def make_model(seed=0, dtype=torch.float64, device="cpu"):
    torch.manual_seed(seed)
    m = nn.Sequential(
        nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 3, bias=True)
    ).to(device=device, dtype=dtype)
    # non-trivial running statistics, so eval mode really uses them
    with torch.no_grad():
        m[1].running_mean.copy_(torch.randn(8, dtype=dtype, device=device))
        m[1].running_var.copy_(torch.rand(8, dtype=dtype, device=device) + 0.5)
        m[1].weight.copy_(torch.randn(8, dtype=dtype, device=device))
        m[1].bias.copy_(torch.randn(8, dtype=dtype, device=device))
    return m


def grads(m):
    return [p.grad.clone() for p in m.parameters()]


def assert_close(a, b, tol=1e-6):
    np.testing.assert_allclose(
        a.detach().cpu().double().numpy(), b.detach().cpu().double().numpy(), rtol=tol, atol=tol
    )


def run_plain_and_dp(device_ids, batch, *, output_device=None, dim=0, device="cpu"):
    """The eval-mode model on the full batch, and through DataParallel: outputs, parameter and input gradients."""
    m = make_model(device=device).eval()
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((batch, 5))
    x = torch.tensor(x_np, dtype=torch.float64, device=device, requires_grad=True)
    w = torch.tensor(rng.standard_normal((batch, 3)), dtype=torch.float64, device=device)
    ref = m(x)
    (ref * w).sum().backward()
    ref_grads, ref_xgrad = grads(m), x.grad.clone()
    m.zero_grad()
    x.grad = None
    dp = DataParallel(m, device_ids=device_ids, output_device=output_device, dim=dim)
    out = dp(x)
    (out * w.to(out.device)).sum().backward()
    return ref, out, ref_grads, grads(m), ref_xgrad, x.grad


# ---- the multi-replica path matches the plain module


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("batch", [6, 7, 5, 2, 1])
def test_matches_module(n, batch):
    ref, out, ref_grads, dp_grads, ref_xgrad, xgrad = run_plain_and_dp([CPU] * n, batch)
    assert out.shape == ref.shape
    assert out.grad_fn is not None and out.grad_fn.name() == "GatherBackward"
    assert_close(out, ref)
    assert len(dp_grads) == len(ref_grads) == 6
    for g, r in zip(dp_grads, ref_grads):
        assert_close(g, r)
    assert_close(xgrad, ref_xgrad)


def test_cpu_string_and_device_object_both_accepted():
    for ids in (["cpu", "cpu"], [CPU, "cpu"]):
        ref, out, *_ = run_plain_and_dp(ids, 4)
        assert_close(out, ref)


def test_replicas_run_in_threads_with_their_chunks():
    seen = []
    lock = threading.Lock()

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            with lock:
                seen.append((threading.current_thread().name, x.shape[0], self.lin.weight.is_leaf))
            return self.lin(x)

    dp = DataParallel(Probe(), device_ids=["cpu"] * 3)
    dp(torch.randn(8, 2))
    assert sorted(s[1] for s in seen) == [2, 3, 3]  # chunk(3) of 8 rows: 3, 3, 2
    assert len({s[0] for s in seen}) == 3
    assert threading.current_thread().name not in {s[0] for s in seen}
    # replicas see recorded copies of the parameters, not the leaves themselves
    assert not any(s[2] for s in seen)


def test_gradients_accumulate_into_original_parameters():
    m = nn.Linear(3, 1, bias=False).double()
    with torch.no_grad():
        m.weight.copy_(torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64))
    dp = DataParallel(m, device_ids=["cpu", "cpu"])
    x = torch.tensor([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [1.0, 1.0, 1.0]], dtype=torch.float64)
    dp(x).sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), [[2.0, 2.0, 2.0]])
    dp(x).sum().backward()  # a second pass adds to .grad, as for the plain module
    np.testing.assert_allclose(m.weight.grad.numpy(), [[4.0, 4.0, 4.0]])
    assert m.weight.grad_fn is None and m.weight.is_leaf


def test_frozen_parameter_gets_no_gradient():
    m = make_model().eval()
    m[0].weight.requires_grad_(False)
    dp = DataParallel(m, device_ids=["cpu", "cpu"])
    dp(torch.randn(4, 5, dtype=torch.float64)).sum().backward()
    assert m[0].weight.grad is None
    assert m[0].bias.grad is not None


def test_dim_1():
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.tensor([2.0], dtype=torch.float64))

        def forward(self, x):
            return x * self.w + x.shape[1]

    m = Scale()
    x = torch.arange(10.0, dtype=torch.float64).reshape(2, 5).requires_grad_()
    out = DataParallel(m, device_ids=["cpu"] * 2, dim=1)(x)
    # columns split 3 + 2, each replica adds its own chunk width
    expect = x.detach().numpy() * 2 + np.array([3, 3, 3, 2, 2])
    np.testing.assert_allclose(out.detach().numpy(), expect)
    out.sum().backward()
    np.testing.assert_allclose(m.w.grad.numpy(), [x.detach().numpy().sum()])
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 5), 2.0))


def test_noncontiguous_input():
    m = make_model().eval()
    xt = torch.randn(5, 8, dtype=torch.float64).t()  # a transposed view
    x = xt.contiguous()
    assert not xt.is_contiguous()
    ref = m(x)
    out = DataParallel(m, device_ids=["cpu"] * 3)(xt)
    assert_close(out, ref)


def test_empty_batch():
    m = nn.Linear(4, 3).double()
    x = torch.zeros(0, 4, dtype=torch.float64, requires_grad=True)
    out = DataParallel(m, device_ids=["cpu"] * 2)(x)
    assert out.shape == (0, 3)
    out.sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), np.zeros((3, 4)))
    assert x.grad.shape == (0, 4)


def test_float32_matches_module():
    m = make_model(dtype=torch.float32).eval()
    x = torch.randn(9, 5)
    ref = m(x)
    out = DataParallel(m, device_ids=["cpu"] * 3)(x)
    rtol, atol = 1e-5, 1e-6
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=atol)
    assert out.dtype == torch.float32


# ---- training-mode semantics (as PyTorch): each replica uses its own chunk's batch statistics, only the first
# replica's buffer updates reach the module


def test_batchnorm_training_first_replica_updates_module_buffers():
    m = make_model().train()
    m[3].p = 0.0  # dropout off: the comparison must be deterministic
    x = torch.randn(7, 5, dtype=torch.float64)
    dp = DataParallel(m, device_ids=["cpu"] * 2)
    out = dp(x)
    chunks = [x[:4], x[4:]]
    for i, c in enumerate(chunks):
        fresh = make_model().train()
        fresh[3].p = 0.0
        assert_close(out[:4] if i == 0 else out[4:], fresh(c))
        if i == 0:
            first = fresh
    assert_close(m[1].running_mean, first[1].running_mean)
    assert_close(m[1].running_var, first[1].running_var)
    assert int(m[1].num_batches_tracked.item()) == 1


def test_dropout_training_runs_and_backprops():
    m = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)).double()
    out = DataParallel(m, device_ids=["cpu"] * 2)(torch.ones(6, 4, dtype=torch.float64))
    vals = out.detach().numpy()
    assert out.shape == (6, 4)
    out.sum().backward()
    assert m[0].weight.grad is not None
    # dropout zeroes some entries
    assert (vals == 0).any()


# ---- inputs and outputs of every shape


def test_kwargs_and_nested_inputs_are_scattered():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(1, dtype=torch.float64))

        def forward(self, pair, *, extra=None, scale=1.0, cfg=None):
            a, b = pair
            return (a + b["y"] + extra) * self.w * scale * cfg["k"]

    rng = np.random.default_rng(3)
    a, y, e = (torch.tensor(rng.standard_normal((5, 2))) for _ in range(3))
    m = M()
    ref = m((a, {"y": y}), extra=e, scale=3.0, cfg={"k": 2.0})
    out = DataParallel(m, device_ids=["cpu"] * 2)((a, {"y": y}), extra=e, scale=3.0, cfg={"k": 2.0})
    assert_close(out, ref)


def test_kwargs_only():
    m = nn.Linear(2, 2).double()
    x = torch.randn(4, 2, dtype=torch.float64)
    out = DataParallel(m, device_ids=["cpu"] * 2)(input=x)
    assert_close(out, m(x))


def test_no_inputs_runs_on_first_device():
    class Const(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(2, 3))

        def forward(self):
            return self.w * 2

    out = DataParallel(Const(), device_ids=["cpu"] * 2)()
    assert out.shape == (2, 3)  # one replica: no concatenation


Pair = collections.namedtuple("Pair", ["first", "second"])


def test_tuple_dict_namedtuple_and_none_outputs_are_gathered():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2).double()

        def forward(self, x):
            y = self.lin(x)
            return (y, {"sq": y * y, "none": None}, Pair(x, [y + 1]))

    m = M()
    x = torch.randn(5, 3, dtype=torch.float64)
    y = m.lin(x)
    out = DataParallel(m, device_ids=["cpu"] * 3)(x)
    assert isinstance(out, tuple) and len(out) == 3
    assert_close(out[0], y)
    assert isinstance(out[1], dict) and out[1]["none"] is None
    assert_close(out[1]["sq"], y * y)
    assert isinstance(out[2], Pair)
    assert_close(out[2].first, x)
    assert isinstance(out[2].second, list)
    assert_close(out[2].second[0], y + 1)


def test_scalar_outputs_gathered_as_vector_with_warning():
    class Loss(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 1).double()

        def forward(self, x):
            return self.lin(x).sum()

    m = Loss()
    x = torch.randn(6, 3, dtype=torch.float64)
    with pytest.warns(UserWarning, match="all input tensors were scalars"):
        out = DataParallel(m, device_ids=["cpu"] * 2)(x)
    assert out.shape == (2,)
    np.testing.assert_allclose(out.detach().numpy(), [m(x[:3]).item(), m(x[3:]).item()], rtol=1e-10)
    out.sum().backward()
    ref = Loss()
    ref.load_state_dict(m.state_dict())
    ref(x).backward()
    assert_close(m.lin.weight.grad, ref.lin.weight.grad)


def test_gradcheck_through_data_parallel():
    m = make_model().eval()
    x = torch.randn(5, 5, dtype=torch.float64, requires_grad=True)
    dp = DataParallel(m, device_ids=["cpu"] * 2)
    assert gradcheck(lambda t: dp(t), (x,))
    w = m[0].weight
    assert gradcheck(lambda _w: DataParallel(m, device_ids=["cpu"] * 3)(x.detach()), (w,))


def test_double_backward_through_data_parallel():
    class Cube(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64))

        def forward(self, x):
            return (x * self.w) ** 3

    m = Cube()
    x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    assert gradgradcheck(lambda t: DataParallel(m, device_ids=["cpu"] * 2)(t), (x,))
    assert gradgradcheck(lambda w: DataParallel(m, device_ids=["cpu"] * 3)(x.detach()), (m.w,))


def test_tied_parameters_get_the_sum_of_both_uses():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 3, bias=False).double()
            self.b = nn.Linear(3, 3, bias=False).double()
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x).tanh())

    m = Tied()
    x = torch.randn(7, 3, dtype=torch.float64)
    m(x).sum().backward()
    ref = m.a.weight.grad.clone()
    m.zero_grad()
    dp = DataParallel(m, device_ids=["cpu"] * 3)
    dp(x).sum().backward()
    assert_close(m.a.weight.grad, ref)
    assert len(list(dp.parameters())) == 1


def test_gradcheck_scatter_gather():
    x = torch.randn(7, 3, dtype=torch.float64, requires_grad=True)

    def f(t):
        parts = scatter(t, ["cpu"] * 3, dim=0)
        return gather([p * (i + 1) for i, p in enumerate(parts)], "cpu", dim=0)

    assert gradcheck(f, (x,))
    y = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: gather([p.exp() for p in scatter(t, ["cpu"] * 2, dim=1)], "cpu", dim=1), (y,))


def test_scatter_kwargs_pads_shorter_side():
    x = torch.arange(6.0)
    inputs, kwargs = scatter_kwargs((), {"x": x}, ["cpu"] * 3)
    assert inputs == ((), (), ()) and len(kwargs) == 3
    inputs, kwargs = scatter_kwargs((x,), {}, ["cpu"] * 2)
    assert kwargs == ({}, {}) and len(inputs) == 2
    np.testing.assert_array_equal(inputs[1][0].numpy(), [3.0, 4.0, 5.0])


def test_gather_dicts_with_different_keys_raise():
    with pytest.raises(ValueError, match="All dicts must have the same number of keys"):
        gather([{"a": torch.ones(1)}, {"a": torch.ones(1), "b": torch.ones(1)}], "cpu")


# ---- errors


def test_replica_exception_is_reraised_with_its_traceback():
    class Fails(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            if x.shape[0] == 1:
                raise_in_replica()
            return self.lin(x)

    def raise_in_replica():
        raise ValueError("bad chunk")

    dp = DataParallel(Fails(), device_ids=["cpu"] * 3)
    with pytest.raises(ValueError) as e:
        dp(torch.randn(5, 2))  # chunks 2, 2, 1: the third replica fails
    msg = str(e.value)
    assert "Caught ValueError in replica 2 on device cpu" in msg
    assert "raise_in_replica" in msg and "bad chunk" in msg
    dp(torch.randn(6, 2))  # the module is still usable


def test_replica_exception_without_single_arg_constructor_becomes_runtime_error():
    class OddError(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)

    class Fails(nn.Module):
        def forward(self, x):
            raise OddError(1, 2)

    with pytest.raises(RuntimeError, match="Caught OddError in replica 0"):
        DataParallel(Fails(), device_ids=["cpu"] * 2)(torch.randn(4, 2))


def test_parallel_apply_without_device_or_tensor_raises():
    class Id(nn.Module):
        def forward(self, x):
            return x

    with pytest.raises(
        RuntimeError, match="in replica 0, no device was provided and no tensor input was found"
    ):
        parallel_apply([Id(), Id()], [(1,), (2,)])


def test_parallel_apply_resolves_device_from_inputs():
    class Double(nn.Module):
        def forward(self, x):
            return x * 2

    outs = parallel_apply([Double(), Double()], [torch.ones(2), (torch.ones(3),)])
    assert [o.tolist() for o in outs] == [[2.0, 2.0], [2.0, 2.0, 2.0]]


def test_bad_device_entry():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, .* device type"):
        DataParallel(nn.Linear(2, 2), device_ids=["cpu", "tpu"])


def test_scatter_chunk_sizes_must_cover_input():
    from minitorch.nn.parallel._functions import Scatter

    with pytest.raises(RuntimeError, match="Expected chunk sizes to sum to 5"):
        Scatter.apply(["cpu", "cpu"], [2, 2], 0, torch.ones(5))


# ---- thread state: grad mode and autocast follow the caller


class Recorder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.seen = []
        self.lock = threading.Lock()

    def forward(self, x):
        with self.lock:
            self.seen.append(
                (torch.is_grad_enabled(), _C._is_autocast_enabled("cpu"), _C._get_autocast_dtype("cpu"))
            )
        return self.lin(x)


def test_grad_mode_follows_caller():
    m = Recorder()
    dp = DataParallel(m, device_ids=["cpu"] * 2)
    x = torch.randn(4, 4)
    with torch.no_grad():
        out = dp(x)
    assert not out.requires_grad
    assert [s[0] for s in m.seen] == [False, False]
    m.seen.clear()
    out = dp(x)
    assert out.requires_grad
    assert [s[0] for s in m.seen] == [True, True]
    m.seen.clear()
    # a thread starts with grad mode on: the caller's "off" must still reach the replicas
    torch.set_grad_enabled(False)
    try:
        dp(x)
    finally:
        torch.set_grad_enabled(True)
    assert [s[0] for s in m.seen] == [False, False]
    assert torch.is_grad_enabled()


def test_autocast_follows_caller():
    m = Recorder()
    dp = DataParallel(m, device_ids=["cpu"] * 2)
    x = torch.randn(6, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = dp(x)
        ref = m.lin(x)
    assert ref.dtype == torch.bfloat16
    assert out.dtype == torch.bfloat16
    assert [s[1:] for s in m.seen] == [(True, torch.bfloat16)] * 2
    m.seen.clear()
    assert dp(x).dtype == torch.float32
    assert [s[1] for s in m.seen] == [False, False]
    assert not _C._is_autocast_enabled("cpu")


# ---- module plumbing


def test_state_dict_keys_prefixed_with_module():
    m = make_model()
    dp = DataParallel(m, device_ids=["cpu"] * 2)
    keys = list(dp.state_dict().keys())
    assert keys == ["module." + k for k in m.state_dict()]
    assert "module.1.running_mean" in keys
    plain = make_model(seed=5)
    plain.load_state_dict({k[len("module.") :]: v for k, v in dp.state_dict().items()})
    assert_close(plain[0].weight, m[0].weight)
    assert [p is q for p, q in zip(dp.parameters(), m.parameters())] == [True] * 6


def test_replicas_leave_the_module_untouched():
    m = make_model().eval()
    params = {id(p) for p in m.parameters()}
    reps = replicate(m, ["cpu"] * 2)
    assert len(reps) == 2
    for r in reps:
        assert list(r.parameters()) == []  # replicas own no parameters (PyTorch's rule)
        assert r[0].weight.grad_fn is not None and not r[0].weight.is_leaf
        assert isinstance(r[0], nn.Linear) and r[0] is not m[0]
    assert {id(p) for p in m.parameters()} == params
    # the first replica shares the module's buffers, the second has its own copies
    assert reps[0][1].running_mean is m[1].running_mean
    assert reps[1][1].running_mean is not m[1].running_mean
    assert_close(reps[1][1].running_mean, m[1].running_mean)
    with torch.no_grad():
        detached = replicate(m, ["cpu"] * 2, detach=True)
    assert not detached[1][0].weight.requires_grad


def test_data_parallel_function():
    m = make_model().eval()
    x = torch.randn(7, 5, dtype=torch.float64)
    assert_close(data_parallel(m, x, device_ids=["cpu"] * 3), m(x))
    assert_close(data_parallel(m, (x,), device_ids=["cpu"]), m(x))
    lin = nn.Linear(5, 2).double()
    assert_close(data_parallel(lin, (), device_ids=["cpu"] * 2, module_kwargs={"input": x}), lin(x))


def test_one_cpu_device_runs_module_directly():
    m = make_model().eval()
    x = torch.randn(4, 5, dtype=torch.float64)
    dp = DataParallel(m, device_ids=["cpu"])
    out = dp(x)
    assert out.grad_fn.name() != "GatherBackward"
    assert_close(out, m(x))


@pytest.mark.skipif(HAS_CUDA, reason="the no-GPU path")
def test_without_gpu_the_module_runs_as_is():
    m = make_model().eval()
    x = torch.randn(4, 5, dtype=torch.float64)
    for kwargs in ({}, {"device_ids": [0, 1]}, {"device_ids": None, "output_device": 0}):
        dp = DataParallel(m, **kwargs)
        assert dp.device_ids == []
        out = dp(x)
        assert out.grad_fn.name() != "GatherBackward"
        assert_close(out, m(x))


# ---- CUDA (skips without a GPU)


@needs_cuda
def test_cuda_one_gpu_moves_module_and_inputs():
    m = make_model().eval()
    x = torch.randn(4, 5, dtype=torch.float64)
    ref = m(x)
    dp = DataParallel(m)
    assert dp.device_ids == list(range(torch.cuda.device_count()))
    dp1 = DataParallel(m, device_ids=[0])
    assert m[0].weight.is_cuda
    out = dp1(x)
    assert out.is_cuda
    assert_close(out, ref)


@needs_cuda
@pytest.mark.parametrize("ids", [[0, 0], [0, 0, 0], ["cuda:0", "cpu"]])
def test_cuda_multi_replica_matches_module(ids):
    ref, out, ref_grads, dp_grads, ref_xgrad, xgrad = run_plain_and_dp(ids, 7, device="cuda")
    assert out.is_cuda
    assert_close(out, ref)
    for g, r in zip(dp_grads, ref_grads):
        assert g.is_cuda
        assert_close(g, r)
    assert_close(xgrad, ref_xgrad)


@needs_cuda
def test_cuda_output_device_cpu_and_cpu_inputs():
    m = make_model(device="cuda").eval()
    x = torch.randn(6, 5, dtype=torch.float64)
    out = DataParallel(m, device_ids=[0, 0], output_device="cpu")(x)
    assert out.device == CPU
    assert_close(out, m(x.cuda()))


@needs_cuda
def test_cuda_module_must_be_on_first_device():
    m = make_model()
    dp = DataParallel(m, device_ids=[0, 0])
    with pytest.raises(
        RuntimeError,
        match=r"module must have its parameters and buffers on device cuda:0 \(device_ids\[0\]\)",
    ):
        dp(torch.randn(4, 5, dtype=torch.float64))


@needs_cuda
def test_cuda_autocast_follows_caller():
    m = Recorder().cuda()
    dp = DataParallel(m, device_ids=[0, 0])
    with torch.autocast("cuda", dtype=torch.float16):
        out = dp(torch.randn(4, 4, device="cuda"))
    assert out.dtype == torch.float16


def test_no_warnings_on_plain_run():
    m = make_model().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DataParallel(m, device_ids=["cpu"] * 2)(torch.randn(4, 5, dtype=torch.float64))


def test_modules_without_parameters_or_with_buffers_only():
    x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    y = DataParallel(nn.ReLU(), device_ids=["cpu"] * 2)(x)
    assert_close(y, x.relu())
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (x.detach().numpy() > 0).astype(np.float64))
    bn = nn.BatchNorm1d(3, affine=False).double().eval()
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    assert_close(DataParallel(bn, device_ids=["cpu"] * 3)(x), bn(x))
