"""CUDA graphs (torch.cuda.CUDAGraph, torch.cuda.graph, graph_pool_handle, make_graphed_callables,
is_current_stream_capturing) and torch.compile(mode="reduce-overhead"): PyTorch's API and its errors without a
GPU (checked here), and on a GPU capture + replay against eager, the private memory pool, capture errors, graphed
training steps and compiled replays (run by scripts/gpu_check.sh on the GPU machine)."""

import copy
import inspect
import os

import numpy as np
import pytest
from utils import no_cuda_error, run_oracle

import minitorch
from minitorch._inductor.cudagraphs import CUDAGraphRunner, _writes_inputs

cuda = minitorch.cuda
HAS_GPU = cuda.is_available()
CACHING = os.environ.get("MINITORCH_NO_CUDA_MEMORY_CACHING", "0") in ("", "0")
# capture needs the caching allocator's private pools (compute-sanitizer runs the suite with caching off)
needs_gpu = [
    pytest.mark.cuda,
    pytest.mark.skipif(not HAS_GPU, reason="needs a GPU"),
    pytest.mark.skipif(not CACHING, reason="CUDA graphs need the caching allocator"),
]
no_gpu = pytest.mark.skipif(HAS_GPU, reason="the behaviour without a GPU")


def gpu(fn):
    for m in needs_gpu:
        fn = m(fn)
    return fn


# ---- without a GPU, and the API surface
@no_gpu
@pytest.mark.parametrize(
    "call",
    [
        lambda: cuda.CUDAGraph(),
        lambda: cuda.CUDAGraph(keep_graph=True),
        lambda: cuda.is_current_stream_capturing(),
        lambda: cuda.graph(None),
        lambda: cuda.make_graphed_callables(minitorch.nn.Linear(2, 2), (minitorch.randn(2, 2),)),
        lambda: cuda.make_graphed_callables(lambda x: x * 2, (minitorch.randn(2, requires_grad=True),)),
    ],
    ids=[
        "CUDAGraph",
        "CUDAGraph(keep_graph)",
        "is_current_stream_capturing",
        "graph",
        "mgc-module",
        "mgc-fn",
    ],
)
def test_what_needs_cuda_raises_without_a_gpu(call):
    with no_cuda_error():
        call()


def test_graph_pool_handle_needs_no_gpu():
    # as PyTorch's: a fresh user pool id (0, n) per call, made without touching CUDA
    a, b = cuda.graph_pool_handle(), cuda.graph_pool_handle()
    assert isinstance(a, tuple) and len(a) == 2 and a[0] == 0 and b[0] == 0 and b[1] > a[1] > 0


def test_make_graphed_callables_checks_before_cuda():
    # PyTorch's argument checks come before any CUDA work, so they raise the same with or without a GPU
    m = minitorch.nn.Linear(2, 2)
    m.register_forward_hook(lambda *a: None)
    with pytest.raises(AssertionError, match="Modules must not have hooks registered"):
        cuda.make_graphed_callables(m, (minitorch.randn(2, 2),))
    with pytest.raises(AssertionError, match="sample_args for each callable must contain only Tensors"):
        cuda.make_graphed_callables(minitorch.nn.Linear(2, 2), (minitorch.randn(2, 2), 3))


def test_namespace():
    for name in (
        "CUDAGraph",
        "graph",
        "graph_pool_handle",
        "make_graphed_callables",
        "is_current_stream_capturing",
    ):
        assert getattr(cuda, name) is getattr(cuda.graphs, name)
    assert cuda.Stream is cuda.streams.Stream and cuda.Event is cuda.streams.Event
    assert minitorch.compiler.cudagraph_mark_step_begin() is None


_SIGNATURES = """
import inspect, json, sys, torch
def params(f):
    return [(p.name, str(p.kind), repr(p.default) if p.default is not p.empty else None)
            for p in inspect.signature(f).parameters.values()]
G = torch.cuda.CUDAGraph
out = {
    "graph": params(torch.cuda.graph.__init__),
    "make_graphed_callables": params(torch.cuda.make_graphed_callables),
    "capture_begin": params(G.capture_begin),
    "debug_dump": params(G.debug_dump),
    "replay": params(G.replay), "reset": params(G.reset), "pool": params(G.pool),
    "capture_end": params(G.capture_end), "instantiate": params(G.instantiate),
    "graph_pool_handle": params(torch.cuda.graph_pool_handle),
    "is_current_stream_capturing": params(torch.cuda.is_current_stream_capturing),
    "cudagraph_mark_step_begin": params(torch.compiler.cudagraph_mark_step_begin),
    "all": sorted(torch.cuda.graphs.__all__),
}
print(json.dumps(out))
"""


def _params(f):
    return [
        [p.name, str(p.kind), repr(p.default) if p.default is not p.empty else None]
        for p in inspect.signature(f).parameters.values()
    ]


def test_signatures_match_pytorch():
    theirs = run_oracle(_SIGNATURES, {})
    G = cuda.CUDAGraph
    ours = {
        "graph": _params(cuda.graph.__init__),
        "make_graphed_callables": _params(cuda.make_graphed_callables),
        "capture_begin": _params(G.capture_begin),
        "debug_dump": _params(G.debug_dump),
        "replay": _params(G.replay),
        "reset": _params(G.reset),
        "pool": _params(G.pool),
        "capture_end": _params(G.capture_end),
        "instantiate": _params(G.instantiate),
        "graph_pool_handle": _params(cuda.graph_pool_handle),
        "is_current_stream_capturing": _params(cuda.is_current_stream_capturing),
        "cudagraph_mark_step_begin": _params(minitorch.compiler.cudagraph_mark_step_begin),
    }
    for k, v in ours.items():
        assert v == theirs[k], k
    # what we export is PyTorch's (its graph hooks and dumps to dot/JSON are not implemented)
    assert set(cuda.graphs.__all__) <= set(theirs["all"])


# ---- the compile side that runs without a GPU
def test_runner_runs_cpu_inputs_eagerly():
    calls = []

    def fn(x):
        calls.append(1)
        return x * 2

    class _GM:
        graph = minitorch.fx.Graph()

    r = CUDAGraphRunner(fn, _GM())
    x = minitorch.arange(4.0)
    for _ in range(3):
        np.testing.assert_array_equal(r(x).numpy(), [0, 2, 4, 6])
    assert len(calls) == 3 and not r._records


def test_live_outputs_are_preserved_unless_a_step_began():
    # what a replay does to the previous replay's outputs, without a GPU: those still referenced get their own
    # copy before the buffers are overwritten, unless cudagraph_mark_step_begin() declared them dead
    class _GM:
        graph = minitorch.fx.Graph()

    r = CUDAGraphRunner(lambda x: x, _GM())
    static = minitorch.arange(3.0)
    out = static.detach()
    r._remember((out,))
    r._preserve_live_outputs()
    assert out.data_ptr() != static.data_ptr() and out.tolist() == [0.0, 1.0, 2.0]
    out2 = static.detach()
    r._remember(out2)
    minitorch.compiler.cudagraph_mark_step_begin()
    r._preserve_live_outputs()
    assert out2.data_ptr() == static.data_ptr()
    dead = static.detach()
    r._remember([dead])
    del dead
    r._preserve_live_outputs()  # nothing left to copy
    assert r._live == []


def test_runner_refuses_graphs_writing_their_inputs():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def writes(a):
        a.add_(1)
        return a * 2

    def pure(a):
        return (a + 1) * 2

    for f in (writes, pure):
        minitorch.compile(f, backend=backend)(minitorch.randn(3))
    assert _writes_inputs(graphs[0]) and not _writes_inputs(graphs[1])


def test_reduce_overhead_on_cpu_matches_eager():
    m = minitorch.nn.Sequential(minitorch.nn.Linear(4, 8), minitorch.nn.GELU(), minitorch.nn.Linear(8, 3))
    c = minitorch.compile(m, mode="reduce-overhead")
    for _ in range(4):
        x = minitorch.randn(5, 4)
        np.testing.assert_allclose(c(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-5, atol=1e-6)


# ---- on a GPU
def _mlp(seed=0):
    minitorch.manual_seed(seed)
    return minitorch.nn.Sequential(
        minitorch.nn.Linear(16, 32), minitorch.nn.ReLU(), minitorch.nn.Linear(32, 4)
    ).cuda()


@gpu
def test_capture_and_replay_match_eager():
    w = minitorch.randn(8, 8, device="cuda")
    x = minitorch.zeros(4, 8, device="cuda")
    (x @ w).relu()  # warm-up outside the capture (cuBLAS set-up), as PyTorch recommends
    g = cuda.CUDAGraph()
    assert not cuda.is_current_stream_capturing()
    with cuda.graph(g):
        assert cuda.is_current_stream_capturing()
        y = (x @ w).relu() + 1
    assert not cuda.is_current_stream_capturing()
    wn = w.cpu().numpy().astype(np.float64)
    for seed in range(4):
        xn = np.random.default_rng(seed).standard_normal((4, 8)).astype(np.float32)
        x.copy_(minitorch.from_numpy(xn))
        g.replay()
        expect = np.maximum(xn.astype(np.float64) @ wn, 0) + 1
        np.testing.assert_allclose(y.cpu().numpy(), expect, rtol=1e-4, atol=1e-4)


@gpu
def test_replay_on_the_default_stream_and_another():
    x = minitorch.ones(1000, device="cuda")
    g = cuda.CUDAGraph()
    with cuda.graph(g):
        x.mul_(2)
    g.replay()  # the default stream
    s = cuda.Stream()
    s.wait_stream(cuda.current_stream())
    with cuda.stream(s):
        g.replay()
    cuda.current_stream().wait_stream(s)
    assert float(x[0]) == 4.0 and float(x[-1]) == 4.0


@gpu
def test_capture_errors():
    g = cuda.CUDAGraph()
    with pytest.raises(
        RuntimeError, match=r"Called CUDAGraph::replay without a preceding successful capture\."
    ):
        g.replay()
    with pytest.raises(
        RuntimeError, match=r"Called CUDAGraph::pool\(\) without a preceding successful capture\."
    ):
        g.pool()
    with pytest.raises(RuntimeError, match="CUDA graphs must be captured on a non-default stream"):
        g.capture_begin()  # the current stream is the default one here
    with (
        pytest.raises(RuntimeError, match="Unknown capture error mode. Expected `global`, `thread_local`"),
        cuda.graph(g, capture_error_mode="loose"),
    ):
        pass
    x = minitorch.ones(4, device="cuda")
    with cuda.graph(g):
        x.add_(1)
    with (
        pytest.raises(RuntimeError, match="This CUDAGraph instance already owns a captured graph"),
        cuda.graph(g),
    ):
        x.add_(1)
    assert isinstance(g.pool(), tuple) and g.pool()[0] > 0 and g.pool()[1] == 0
    g.reset()
    with cuda.graph(g):  # reset: the instance may capture again
        x.add_(2)
    g.replay()
    assert float(x[0]) == 3.0


def _works_after():
    # the process is fine afterwards: a new capture and eager work both succeed
    a = minitorch.ones(3, device="cuda")
    g = cuda.CUDAGraph()
    with cuda.graph(g):
        a.mul_(3)
    g.replay()
    assert a.sum().item() == 9.0
    assert not cuda.is_current_stream_capturing()


@gpu
@pytest.mark.parametrize("op", ["item", "cpu", "tolist"])
def test_host_sync_inside_capture_raises(op):
    x = minitorch.ones(3, device="cuda")
    g = cuda.CUDAGraph()
    with (
        pytest.raises(
            RuntimeError, match="Cannot copy between CPU and CUDA tensors during CUDA graph capture"
        ),
        cuda.graph(g),
    ):
        y = x * 2
        getattr(y.sum() if op == "item" else y, op)()
    _works_after()


@gpu
def test_synchronize_inside_capture_raises():
    x = minitorch.ones(3, device="cuda")
    with (
        pytest.raises(RuntimeError, match="operation not permitted when stream is capturing"),
        cuda.graph(cuda.CUDAGraph()),
    ):
        x.add_(1)
        cuda.synchronize()
    _works_after()


@gpu
def test_cpu_tensors_inside_capture():
    x = minitorch.zeros(4, device="cuda")
    host = minitorch.arange(4.0)
    with pytest.raises(RuntimeError, match="unless the CPU tensor is pinned"), cuda.graph(cuda.CUDAGraph()):
        x.copy_(host)
    with (
        pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"),
        cuda.graph(cuda.CUDAGraph()),
    ):
        x + host.reshape(4)
    # a pinned host tensor is read by the replay itself
    pinned = host.pin_memory()
    g = cuda.CUDAGraph()
    with cuda.graph(g):
        x.copy_(pinned, non_blocking=True)
    pinned.fill_(7.0)
    g.replay()
    cuda.synchronize()
    assert x.tolist() == [7.0] * 4
    _works_after()


@gpu
def test_random_ops_inside_capture_draw_as_eager_calls_would():
    # each replay takes the generator's next offsets, so it draws what the same eager calls would draw
    x = minitorch.ones(4096, device="cuda")
    g = cuda.CUDAGraph()
    with cuda.graph(g):
        y = minitorch.nn.functional.dropout(x, 0.5)
        z = minitorch.rand(1000, device="cuda")
        w = minitorch.randn(7, device="cuda", dtype=minitorch.float64)
    cuda.manual_seed(123)
    got = []
    for _ in range(2):
        g.replay()
        got.append([t.cpu().numpy() for t in (y, z, w)])
    cuda.manual_seed(123)
    for replay in got:
        eager = [
            minitorch.nn.functional.dropout(x, 0.5),
            minitorch.rand(1000, device="cuda"),
            minitorch.randn(7, device="cuda", dtype=minitorch.float64),
        ]
        for a, b in zip(replay, eager):
            np.testing.assert_array_equal(a, b.cpu().numpy())
    assert not np.array_equal(got[0][1], got[1][1])  # fresh numbers per replay
    assert 1500 < np.count_nonzero(got[0][0]) < 2600  # about half kept


@gpu
def test_random_op_with_a_generator_inside_capture_raises():
    gen = minitorch.Generator(device="cuda")
    msg = "generator= argument to a random op inside a CUDA graph capture"
    with pytest.raises(RuntimeError, match=msg), cuda.graph(cuda.CUDAGraph()):
        minitorch.rand(8, device="cuda", generator=gen)
    _works_after()


@gpu
def test_private_pool_is_not_handed_to_other_code():
    n = 1 << 18
    x = minitorch.ones(n, device="cuda")
    g = cuda.CUDAGraph()
    with cuda.graph(g):
        tmp = x * 2  # an intermediate freed inside the capture
        tmp_ptr = tmp.data_ptr()
        del tmp
        y = x + 1
    out_ptr = y.data_ptr()
    del y  # the graph still writes there on replay
    ptrs = set()
    keep = []
    for _ in range(32):
        t = minitorch.empty(n, device="cuda")
        ptrs.add(t.data_ptr())
        keep.append(t)
    assert tmp_ptr not in ptrs and out_ptr not in ptrs
    g.replay()
    # a second graph sharing the pool may reuse it (captured after the first, replayed in that order)
    g2 = cuda.CUDAGraph()
    with cuda.graph(g2, pool=g.pool()):
        z = x * 3
    g2.replay()
    assert float(z[0]) == 3.0
    # once every graph using the pool is gone, its memory goes back
    reserved = cuda.memory_reserved()
    del z, keep
    g.reset()
    g2.reset()
    cuda.empty_cache()
    assert cuda.memory_reserved() < reserved


@gpu
def test_frees_during_capture_are_deferred():
    n = 1 << 16
    a = minitorch.ones(n, device="cuda")
    a_ptr = a.data_ptr()
    x = minitorch.ones(n, device="cuda")
    g = cuda.CUDAGraph()
    with cuda.graph(g):
        y = x * 2
        del a  # an ordinary block freed during capture: not given to the capture's allocations
        z = [y + i for i in range(4)]
        assert a_ptr not in {t.data_ptr() for t in z}
    g.replay()
    assert float(z[3][0]) == 5.0


@gpu
def test_debug_dump_and_keep_graph(tmp_path):
    x = minitorch.ones(4, device="cuda")
    g = cuda.CUDAGraph(keep_graph=True)
    with cuda.graph(g):
        x.mul_(2)
    assert g.raw_cuda_graph() != 0
    path = tmp_path / "g.dot"
    g.debug_dump(str(path))
    assert "digraph" in path.read_text()
    g.replay()  # instantiated here
    assert g.raw_cuda_graph_exec() != 0
    assert float(x[0]) == 2.0


def _train(model, opt, step_fn, data):
    for x, t in data:
        step_fn(model, opt, x, t)
    return [p.detach().cpu().numpy() for p in model.parameters()]


def _data(n=6):
    g = np.random.default_rng(0)
    return [
        (
            minitorch.from_numpy(g.standard_normal((8, 16)).astype(np.float32)).cuda(),
            minitorch.from_numpy(g.standard_normal((8, 4)).astype(np.float32)).cuda(),
        )
        for _ in range(n)
    ]


def _eager_step(model, opt, x, t):
    opt.zero_grad(set_to_none=True)
    minitorch.nn.functional.mse_loss(model(x), t).backward()
    opt.step()


@gpu
def test_make_graphed_callables_training_matches_eager():
    eager = _mlp()
    graphed = copy.deepcopy(eager)
    data = _data()
    ref = _train(eager, minitorch.optim.SGD(eager.parameters(), lr=0.1, momentum=0.9), _eager_step, data)
    graphed = cuda.make_graphed_callables(graphed, (minitorch.randn(8, 16, device="cuda"),))
    got = _train(graphed, minitorch.optim.SGD(graphed.parameters(), lr=0.1, momentum=0.9), _eager_step, data)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    graphed.eval()  # the other training state runs the original forward
    x = data[0][0]
    np.testing.assert_allclose(
        graphed(x).detach().cpu().numpy(), eager.eval()(x).detach().cpu().numpy(), atol=1e-4
    )


@gpu
def test_make_graphed_callables_functions_and_tuples():
    w = minitorch.randn(16, 4, device="cuda", requires_grad=True)

    def f(x, w):
        return (x @ w).tanh()

    def h(y):
        return y * y

    gf, gh = cuda.make_graphed_callables(
        (f, h),
        (
            (minitorch.randn(8, 16, device="cuda"), w),
            (minitorch.randn(8, 4, device="cuda", requires_grad=True),),
        ),
    )
    for x, _ in _data(3):
        w.grad = None
        gh(gf(x, w)).sum().backward()
        got = w.grad.cpu().numpy()
        w.grad = None
        h(f(x, w)).sum().backward()
        np.testing.assert_allclose(got, w.grad.cpu().numpy(), rtol=1e-4, atol=1e-5)


@gpu
def test_whole_training_step_captured_matches_eager():
    # PyTorch's whole-network capture recipe: warm up on a side stream, capture forward, backward and step
    eager = _mlp()
    captured = copy.deepcopy(eager)
    data = _data()
    ref = _train(eager, minitorch.optim.SGD(eager.parameters(), lr=0.05, momentum=0.9), _eager_step, data)
    opt = minitorch.optim.SGD(captured.parameters(), lr=0.05, momentum=0.9)
    sx, st = minitorch.zeros(8, 16, device="cuda"), minitorch.zeros(8, 4, device="cuda")
    # the warm-up steps change the parameters: their values are restored before the steps that count
    state = copy.deepcopy(captured.state_dict())
    s = cuda.Stream()
    s.wait_stream(cuda.current_stream())
    with cuda.stream(s):
        for _ in range(3):
            _eager_step(captured, opt, sx, st)
    cuda.current_stream().wait_stream(s)
    captured.load_state_dict(state)
    opt = minitorch.optim.SGD(captured.parameters(), lr=0.05, momentum=0.9)
    # the first step creates the momentum buffers (a branch on their absence): outside the graph
    x0, t0 = data[0]
    _eager_step(captured, opt, x0, t0)
    g = cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with cuda.graph(g):
        loss = minitorch.nn.functional.mse_loss(captured(sx), st)
        loss.backward()
        opt.step()
    for x, t in data[1:]:
        sx.copy_(x)
        st.copy_(t)
        g.replay()
    got = [p.detach().cpu().numpy() for p in captured.parameters()]
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@gpu
def test_compile_reduce_overhead_inference_matches_eager():
    m = _mlp().eval()
    c = minitorch.compile(m, mode="reduce-overhead")
    data = _data()
    with minitorch.no_grad():
        outs = [(x, c(x)) for x, _ in data]  # later replays must not change earlier outputs
        for x, y in outs:
            np.testing.assert_allclose(y.cpu().numpy(), m(x).cpu().numpy(), rtol=1e-5, atol=1e-6)
        runners = [e.fn for e in c._mt_compiled._entries if isinstance(e.fn, CUDAGraphRunner)]
        assert runners and any(r._records for r in runners)
        # after cudagraph_mark_step_begin the previous outputs are dead: no copy, the replay reuses the buffer
        y1 = c(data[0][0])
        minitorch.compiler.cudagraph_mark_step_begin()
        y2 = c(data[1][0])
        assert y1.data_ptr() == y2.data_ptr()
        np.testing.assert_allclose(y2.cpu().numpy(), m(data[1][0]).cpu().numpy(), rtol=1e-5, atol=1e-6)


@gpu
def test_compile_reduce_overhead_training_matches_eager():
    eager = _mlp()
    model = copy.deepcopy(eager)
    c = minitorch.compile(model, mode="reduce-overhead")
    data = _data()
    ref = _train(eager, minitorch.optim.SGD(eager.parameters(), lr=0.1), _eager_step, data)

    def step(_, opt, x, t):
        opt.zero_grad(set_to_none=True)
        minitorch.nn.functional.mse_loss(c(x), t).backward()
        opt.step()

    got = _train(model, minitorch.optim.SGD(model.parameters(), lr=0.1), step, data)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@gpu
def test_compile_reduce_overhead_falls_back_when_capture_fails():
    def f(x):
        return minitorch.nonzero(x).float().sum() + x  # nonzero reads its count back: no capture

    c = minitorch.compile(f, mode="reduce-overhead")
    x = minitorch.ones(16, device="cuda")
    expect = [121.0] * 16  # 0 + 1 + ... + 15, plus one
    assert c(x).tolist() == expect  # the capture of the Python function (eager)
    assert c(x).tolist() == expect  # the warm-up call (eager)
    with pytest.warns(UserWarning, match="skipping CUDA graphs"):
        y = c(x)  # the CUDA-graph capture fails: this call and later ones run eagerly
    assert y.tolist() == expect and c(x).tolist() == expect
