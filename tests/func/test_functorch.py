"""minitorch.functorch (PyTorch's `functorch` package): the deprecated top-level transforms and their warnings,
make_functional & co., functorch.experimental and functorch.compile (aot_function/aot_module and its compilers),
checked against torch.func, eager autograd and PyTorch 2.15's functorch."""

import warnings

import numpy as np
import pytest
from utils import cases_here_and_in_pytorch

import minitorch
import minitorch as torch
from minitorch import functorch, nn
from minitorch.functorch import compile as ftc
from minitorch.functorch import experimental as fte

MODULES = [
    ("torch", minitorch),
    ("functorch", functorch),
    ("functorch.compile", ftc),
    ("functorch.experimental", fte),
]


def _close(a, b, tol=1e-6):
    return np.allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


# the same source runs here and under PyTorch: each case gives JSON values (results, warnings, errors)
_CASES = r"""
import warnings


def cases(torch, ft, ftc, fte):
    run = runner(lambda v: v)
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    y = torch.tensor([1.5, 0.25, -0.75], dtype=torch.float64)

    def warned(f):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = f()
        # PyTorch's first jacfwd also warns from inside (torch.jit.script): only functorch's own count
        return [out, [(c.category.__name__, str(c.message)) for c in w if "functorch" in str(c.message)]]

    def r(t):
        return [round(v, 10) for v in t.reshape(-1).tolist()]

    def cube(a):
        return (a**3).sum()

    out = {}
    out["grad"] = run(lambda: warned(lambda: r(ft.grad(cube)(x))))
    out["grad_and_value"] = run(lambda: warned(lambda: [r(t) for t in ft.grad_and_value(cube)(x)]))
    out["vmap"] = run(lambda: warned(lambda: r(ft.vmap(torch.dot)(x.reshape(3, 1), y.reshape(3, 1)))))
    out["jacrev"] = run(lambda: warned(lambda: r(ft.jacrev(torch.sin)(x))))
    out["jacfwd"] = run(lambda: warned(lambda: r(ft.jacfwd(torch.sin)(x))))
    out["hessian"] = run(lambda: warned(lambda: r(ft.hessian(cube)(x))))
    out["vjp"] = run(lambda: warned(lambda: r(ft.vjp(torch.sin, x)[1](y)[0])))
    out["jvp"] = run(lambda: warned(lambda: [r(t) for t in ft.jvp(torch.sin, (x,), (y,))]))
    out["functionalize"] = run(lambda: warned(lambda: r(ft.functionalize(torch.cos)(x))))
    out["functionalize_bad"] = run(lambda: str(ft.functionalize(torch.cos, remove="x")))
    try:
        ft.functionalize(torch.cos, remove="x")
    except RuntimeError as e:
        out["functionalize_bad_full"] = str(e)

    def linear():
        lin = torch.nn.Linear(3, 2).double()
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]))
            lin.bias.copy_(torch.tensor([0.5, -0.5]))
        return lin

    def mf():
        fmodel, params = ft.make_functional(linear())
        return [type(fmodel).__name__, len(params), r(fmodel(params, x))]

    def mfb():
        model = torch.nn.Sequential(linear(), torch.nn.BatchNorm1d(2).double())
        fmodel, params, buffers = ft.make_functional_with_buffers(model)
        return [type(fmodel).__name__, len(params), len(buffers)]

    def ensemble():
        fmodel, params, buffers = ft.combine_state_for_ensemble([linear(), linear()])
        out = ft.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
        return [[list(p.shape) for p in params], r(out), params[0].requires_grad]

    out["make_functional"] = run(lambda: warned(mf))
    out["make_functional_with_buffers"] = run(lambda: warned(mfb))
    out["make_functional_buffers_error"] = run(
        lambda: ft.make_functional(torch.nn.BatchNorm1d(2))
    )
    out["combine_state_for_ensemble"] = run(lambda: warned(ensemble))
    out["combine_empty"] = run(lambda: ft.combine_state_for_ensemble([]))
    out["combine_mixed"] = run(lambda: ft.combine_state_for_ensemble([linear(), torch.nn.ReLU()]))

    # functorch.experimental: torch.func's, no warning
    m = torch.arange(12.0, dtype=torch.float64).reshape(6, 2)
    out["chunk_vmap"] = run(lambda: warned(lambda: r(fte.chunk_vmap(torch.sum, chunks=4)(m))))
    out["chunk_vmap_1"] = run(lambda: r(fte.chunk_vmap(torch.sum, chunks=1)(m)))
    out["chunk_vmap_out_dims"] = run(
        lambda: list(fte.chunk_vmap(lambda v: v * 2, out_dims=1, chunks=3)(m).shape)
    )
    out["chunk_vmap_bad_randomness"] = run(lambda: fte.chunk_vmap(torch.sum, randomness="bogus"))
    out["experimental_jvp"] = run(lambda: warned(lambda: [r(t) for t in fte.jvp(torch.sin, (x,), (y,))]))
    out["experimental_names"] = sorted(n for n in dir(fte) if not n.startswith("_"))

    # functorch.compile
    def aot():
        seen = []

        def compiler(kind):
            def c(gm, inputs):
                seen.append([kind, [n.name for n in gm.graph.nodes if n.op == "placeholder"][:2], len(inputs)])
                return gm

            return c

        f = ftc.aot_function(lambda a, b: (a * b).sin().sum(), compiler("fw"), compiler("bw"))
        a = x.clone().requires_grad_()
        res = f(a, y)
        name = res.grad_fn.name()
        res.backward()
        f(a, y)
        return [round(res.item(), 10), r(a.grad), name, seen[0], [s[0] for s in seen]]

    out["aot_function"] = run(aot)

    def boxed():
        g = ftc.make_boxed_func(lambda a, b: a + b)
        return [g._boxed_call, r(g([x, y]))]

    out["make_boxed_func"] = run(boxed)

    def nop():
        gm = torch.fx.symbolic_trace(lambda a: a * 2)
        c = ftc.nop(gm, [x])
        return [getattr(c, "_boxed_call", False), r(c([x])), ftc.nop.__name__]

    out["nop"] = run(nop)

    def aot_module_grads():
        model = linear()
        am = ftc.aot_module(model, ftc.nop)
        res = am(x.reshape(1, 3))
        res.sum().backward()
        return [type(am).__name__, r(res), r(model.weight.grad), r(model.bias.grad)]

    out["aot_module"] = run(aot_module_grads)

    def config_flags():
        cfg = ftc.config
        flags = {k: v for k, v in cfg.get_config_copy().items() if not k.startswith("_") and k != "TYPE_CHECKING"}
        with cfg.patch("cse", False), cfg.patch({"debug_assert": True}), cfg.patch(max_dist_from_bw=3):
            patched = [cfg.cse, cfg.debug_assert, cfg.max_dist_from_bw]
        return [sorted(flags.items()), patched, [cfg.cse, cfg.debug_assert, cfg.max_dist_from_bw]]

    def config_unknown(kind):
        cfg = ftc.config
        if kind == "get":
            return cfg.not_a_flag
        if kind == "set":
            cfg.not_a_flag = 1
        with cfg.patch(not_a_flag=1):
            pass

    def nnc_jit_grads():
        def f(a, b):
            return (a.sin() * b + a.exp()).sum(), a * 2

        jf = ftc.nnc_jit(f)
        a = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
        b = torch.tensor([1.5, 2.0, -0.5], dtype=torch.float64)
        s, d = jf(a, b)
        s.backward()
        return [round(s.item(), 10), d.tolist(), [round(v, 10) for v in a.grad.tolist()]]

    out["config"] = run(config_flags)
    out["config_get"] = run(lambda: config_unknown("get"))
    out["config_set"] = run(lambda: config_unknown("set"))
    out["config_patch"] = run(lambda: config_unknown("patch"))
    out["nnc_jit"] = run(nnc_jit_grads)
    out["names"] = sorted(
        n
        for n in ("aot_function", "aot_module", "aot_module_simplified", "compiled_function", "compiled_module",
                  "make_boxed_func", "make_boxed_compiler", "memory_efficient_fusion", "nop", "print_compile",
                  "ts_compile", "get_aot_graph_name", "get_graph_being_compiled", "get_aot_compilation_context",
                  "config", "nnc_jit")
        if hasattr(ftc, n)
    )
    out["top_names"] = sorted(n for n in ft.__all__) if hasattr(ft, "__all__") else None
    return out
"""


@pytest.fixture(scope="module")
def both():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # the cases that do not record them
        return cases_here_and_in_pytorch(_CASES, MODULES)


_KEYS = [
    "grad",
    "grad_and_value",
    "vmap",
    "jacrev",
    "jacfwd",
    "hessian",
    "vjp",
    "jvp",
    "functionalize",
    "functionalize_bad",
    "functionalize_bad_full",
    "make_functional",
    "make_functional_with_buffers",
    "make_functional_buffers_error",
    "combine_state_for_ensemble",
    "combine_empty",
    "combine_mixed",
    "chunk_vmap",
    "chunk_vmap_1",
    "chunk_vmap_out_dims",
    "chunk_vmap_bad_randomness",
    "experimental_jvp",
    "experimental_names",
    "aot_function",
    "make_boxed_func",
    "nop",
    "aot_module",
    "config",
    "config_get",
    "config_set",
    "config_patch",
    "nnc_jit",
    "names",
]


@pytest.mark.parametrize("key", _KEYS)
def test_same_as_pytorch(both, key):
    ours, theirs = both
    assert ours[key] == theirs[key]


def test_top_level_names_are_pytorchs(both):
    # PyTorch's functorch has no __all__; its public names are those we export
    ours, theirs = both
    assert theirs["top_names"] is None
    assert set(ours["top_names"]) == {n for n in dir(functorch) if not n.startswith("_")} - {
        "compile",
        "experimental",
    }


def test_functorch_is_not_a_top_level_package_of_the_wheel():
    # it lives inside minitorch, so a PyTorch installed beside us keeps its own `functorch`
    assert functorch.__name__ == "minitorch.functorch"
    assert functorch.__version__ == minitorch.__version__


def test_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        functorch.grad(torch.sin)
    assert w[0].filename == __file__


def test_chunk_vmap_equals_vmap_for_every_chunking():
    m = torch.randn(7, 3)
    want = torch.vmap(torch.outer, in_dims=(0, None))(m, m[0])
    for chunks in (1, 2, 3, 7, 10):
        got = fte.chunk_vmap(torch.outer, in_dims=(0, None), chunks=chunks)(m, m[0])
        assert _close(got, want)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        fte.chunk_vmap(torch.sum, chunks=0)(m)
    with pytest.raises(ValueError, match="got no inputs"):
        fte.chunk_vmap(torch.sum, chunks=2)()


def test_chunk_vmap_same_randomness_repeats_each_chunk():
    torch.manual_seed(0)
    out = fte.chunk_vmap(lambda v: v + torch.rand(()), randomness="same", chunks=2)(torch.zeros(4))
    assert out[0].item() == out[1].item() == out[2].item() == out[3].item()


# ---- aot_function on our side: graphs, caching, gradients against eager autograd


def _counting(store, kind):
    def compiler(gm, inputs):
        store.append((kind, gm, len(inputs)))
        return gm

    return compiler


def test_aot_function_compiles_once_and_matches_eager():
    seen = []
    fn = lambda a, b: (torch.tanh(a) * b + a.exp()).sum(dim=0)
    f = ftc.aot_function(fn, _counting(seen, "fw"), _counting(seen, "bw"))
    a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    g = torch.randn(3, dtype=torch.float64)
    out = f(a, b)
    assert [s[0] for s in seen] == ["fw"]  # the backward graph compiles on the first backward
    out.backward(g)
    ga, gb = a.grad.clone(), b.grad.clone()
    a.grad = b.grad = None
    fn(a, b).backward(g)
    assert _close(out, fn(a, b)) and _close(ga, a.grad) and _close(gb, b.grad)
    for _ in range(3):
        f(a, b).sum().backward()
    assert [s[0] for s in seen] == ["fw", "bw"]
    fw_gm, bw_gm = seen[0][1], seen[1][1]
    assert [n.name for n in fw_gm.graph.nodes if n.op == "placeholder"] == ["primals_1", "primals_2"]
    assert [n.name for n in bw_gm.graph.nodes if n.op == "placeholder"] == [
        "primals_1",
        "primals_2",
        "tangents_1",
    ]
    assert seen[1][2] == 3


def test_aot_function_inference_graph_and_structure():
    seen = []
    f = ftc.aot_function(
        lambda d: {"s": d["x"] + 1, "n": d["x"].shape[0], "l": [d["x"] * 2]}, _counting(seen, "fw")
    )
    x = torch.ones(2)
    out = f({"x": x})
    assert out["n"] == 2 and _close(out["s"], x + 1) and _close(out["l"][0], x * 2)
    assert out["s"].grad_fn is None
    assert [n.name for n in seen[0][1].graph.nodes if n.op == "placeholder"] == ["arg0_1"]
    # a call that needs a gradient compiles the training graph beside the inference one
    xr = torch.ones(2, requires_grad=True)
    out = f({"x": xr})
    assert out["s"].grad_fn.name() == "CompiledFunctionBackward"
    out["s"].sum().backward()
    assert xr.grad.tolist() == [1.0, 1.0]
    # inference, forward, then backward (bw_compiler defaults to fw_compiler): one primal, a tangent per tensor
    # output (not for the int)
    assert len(seen) == 3 and seen[2][2] == 3


def test_aot_function_integer_outputs_and_inputs_without_grad():
    f = ftc.aot_function(lambda a, i: (a * 2, i.argmax(), a.sum() * i.sum()), ftc.nop)
    a = torch.randn(3, requires_grad=True)
    i = torch.tensor([1, 5, 2])
    y, idx, s = f(a, i)
    assert idx.item() == 1 and not idx.requires_grad and y.requires_grad
    (y.sum() + s).backward()
    assert _close(a.grad, torch.full((3,), 2.0 + 8.0))


def test_aot_function_no_double_backward():
    f = ftc.aot_function(lambda a: (a**3).sum(), ftc.nop)
    a = torch.randn(3, requires_grad=True)
    (g,) = torch.autograd.grad(f(a), a, create_graph=True)
    with pytest.raises(RuntimeError, match="does not currently support double backward"):
        g.sum().backward()


def test_aot_function_boxed_compiler_and_graph_names(capsys):
    names = []

    def boxed(gm, inputs):
        names.append(ftc.get_aot_graph_name())
        kind = ftc.get_aot_compilation_context()[1]
        assert kind in ("forward", "backward")
        return ftc.make_boxed_func(gm)

    def model(a):
        return a.sin()

    f = ftc.aot_function(model, ftc.make_boxed_compiler(lambda gm, _: gm), boxed)
    a = torch.randn(2, requires_grad=True)
    f(a).sum().backward()
    assert _close(a.grad, a.cos())
    assert len(names) == 1 and names[0].startswith("model__") and names[0].endswith("_backward_1")
    g = ftc.aot_function(lambda a: a.cos(), ftc.print_compile)
    g(torch.ones(2))
    assert "cos = arg0_1.cos()" in capsys.readouterr().out


def test_memory_efficient_fusion_and_ts_compile():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # torch.jit.script's deprecation, as PyTorch's
        f = ftc.memory_efficient_fusion(lambda a, b: torch.nn.functional.gelu(a * b).sum())
        a = torch.randn(5, dtype=torch.float64, requires_grad=True)
        b = torch.randn(5, dtype=torch.float64)
        out = f(a, b)
        out.backward()
        ga = a.grad.clone()
        a.grad = None
        ref = torch.nn.functional.gelu(a * b).sum()
        ref.backward()
        assert _close(out, ref) and _close(ga, a.grad)
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
        fused = ftc.memory_efficient_fusion(model)
        x = torch.randn(6, 3)
        fused(x).sum().backward()
        grads = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        model(x).sum().backward()
        assert all(_close(g, p.grad, 1e-5) for g, p in zip(grads, model.parameters()))
        scripted = ftc.ts_compile(torch.fx.symbolic_trace(lambda t: t.relu() + 1), [x])
        assert _close(scripted(x), x.relu() + 1)


def test_aot_module_simplified_lifts_parameters():
    model = nn.Linear(3, 2)
    fn = ftc.aot_module_simplified(model, [torch.randn(1, 3)], ftc.nop)
    x = torch.randn(4, 3)
    fn(x).sum().backward()
    assert _close(model.bias.grad, torch.full((2,), 4.0))
    assert _close(model.weight.grad, x.sum(0).expand(2, 3))


def _joint(primals_1, tangents_1):
    # a joint forward-backward graph of cos(cos(x)) in aot_autograd's layout: primals, tangents; outputs, grads
    cos = torch.cos(primals_1)
    cos_1 = torch.cos(cos)
    mul = tangents_1 * torch.neg(torch.sin(cos))
    mul_1 = mul * torch.neg(torch.sin(primals_1))
    return (cos_1, mul_1)


@pytest.mark.parametrize("partition", ["default_partition", "min_cut_rematerialization_partition"])
def test_partitions_split_a_joint_graph(partition):
    joint = torch.fx.symbolic_trace(_joint)
    fw, bw = getattr(ftc, partition)(joint, None, num_fwd_outputs=1)
    fw_in = [n.name for n in fw.graph.nodes if n.op == "placeholder"]
    bw_in = [n.name for n in bw.graph.nodes if n.op == "placeholder"]
    assert fw_in == ["primals_1"]
    # the tutorial's graphs: the default saves cos(x) beside x, the rematerializing one only x
    want = (
        ["primals_1", "cos", "tangents_1"]
        if partition == "default_partition"
        else ["primals_1", "tangents_1"]
    )
    assert bw_in == want
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    t = torch.randn(5, dtype=torch.float64)
    out, *saved = fw(x)
    (grad,) = bw(*saved, t)
    assert _close(out, x.cos().cos())
    assert _close(grad, torch.autograd.grad(x.cos().cos(), x, t)[0])


def test_draw_graph_needs_pydot_as_pytorchs(tmp_path):
    gm = torch.fx.symbolic_trace(lambda a: a.cos() + 1)
    try:
        import pydot  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(RuntimeError, match="FXGraphDrawer requires the pydot package"):
            ftc.draw_graph(gm, str(tmp_path / "g"))
        return
    ftc.draw_graph(gm, str(tmp_path / "g.dot"), figname="fig")
    text = (tmp_path / "g.dot").read_text()
    assert text.startswith("digraph fig {") and "cos -> add;" in text
    f = ftc.aot_function(lambda a: a.sin(), ftc.draw_graph_compile(str(tmp_path / "aot.dot")))
    a = torch.randn(3, requires_grad=True)
    f(a).sum().backward()
    assert _close(a.grad, a.cos())
    # one file name: the backward graph, drawn last, overwrote the forward's (as PyTorch's would)
    assert "tangents_1 -> recompute_vjp;" in (tmp_path / "aot.dot").read_text()


def test_aot_function_recompiles_for_what_its_graph_is_specialized_to():
    seen = []
    f = ftc.aot_function(lambda a, k: a.reshape(a.shape[0], -1).sum(1) * k, _counting(seen, "fw"))
    for shape, k in [((2, 3), 2), ((2, 3), 2), ((4, 3), 2), ((4, 3), 5), ((2, 3, 2), 2)]:
        a = torch.randn(*shape)
        assert _close(f(a, k), a.reshape(a.shape[0], -1).sum(1) * k)
    assert len(seen) == 4  # (2, 3) once; (4, 3) twice (k baked in); (2, 3, 2)
    g = ftc.aot_function(lambda a: a.sin().sum(0), _counting(seen, "dyn"), dynamic=True)
    for n in (2, 5, 7):
        a = torch.randn(n, 3)
        assert _close(g(a), a.sin().sum(0))
    assert [s[0] for s in seen].count("dyn") == 1  # one graph for every size of the same rank
