"""torch.export: the exported graph and its signature (kinds, names, order) against PyTorch's, module() values,
guards on sizes (static and Dim-bounded), nested inputs and outputs, errors, save/load."""

import io
import json
import os
import subprocess

import numpy as np
import pytest

import minitorch as torch
from minitorch.export import Dim, InputKind, OutputKind

# defined the same way for both libraries (exec'd with `torch` bound to each)
MODELS = """
class Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.register_buffer("b", torch.ones(2))
        self.register_buffer("nb", torch.zeros(2), persistent=False)
    def forward(self, x, y=None):
        return torch.relu(self.lin(x)) + self.b + self.nb

class Nested(torch.nn.Module):
    def forward(self, d, xs):
        return {"a": d["x"] + 1, "b": [d["y"] * xs[1]]}

class Const(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.ones(2)
        self.seq = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 2, bias=False))
    def forward(self, x, n: int = 3):
        return self.seq(x + self.c) * n, x.shape[0]

def make_inputs():
    return {
        "Lin": ((torch.arange(12.0).reshape(4, 3) / 10,), {}),
        "Nested": (({"x": torch.ones(1), "y": torch.full((2,), 2.0)}, [torch.ones(2), torch.full((2,), 3.0)]), {}),
        "Const": ((torch.arange(6.0).reshape(3, 2) / 7,), {"n": 5}),
    }
"""


REPORT = """
def _models(lib):
    ns = {"torch": lib}
    exec(MODELS, ns)
    return ns


def _signature_report(lib):
    ns = _models(lib)
    lib.manual_seed(0)
    out = {}
    for name, (args, kwargs) in ns["make_inputs"]().items():
        ep = lib.export.export(ns[name](), args, kwargs)
        sig = ep.graph_signature
        out[name] = {
            "inputs": [[s.kind.name, s.arg.name, s.target, s.persistent] for s in sig.input_specs],
            "outputs": [[s.kind.name, s.target] for s in sig.output_specs],
            "state_dict": sorted(ep.state_dict),
            "constants": sorted(ep.constants),
            "user_inputs": [str(u) for u in sig.user_inputs],
        }
    return out
"""
_defs = {"MODELS": MODELS}
exec(REPORT, _defs)  # noqa: S102  (our own source; the oracle runs the same text)
_models, _signature_report = _defs["_models"], _defs["_signature_report"]


def test_graph_signature_kinds_and_state():
    rep = _signature_report(torch)
    assert rep["Lin"]["inputs"] == [
        ["PARAMETER", "p_lin_weight", "lin.weight", None],
        ["PARAMETER", "p_lin_bias", "lin.bias", None],
        ["BUFFER", "b_b", "b", True],
        ["BUFFER", "b_nb", "nb", False],
        ["USER_INPUT", "x", None, None],
    ]
    assert rep["Lin"]["state_dict"] == ["b", "lin.bias", "lin.weight"] and rep["Lin"]["constants"] == ["nb"]
    assert rep["Nested"]["user_inputs"] == ["d_x", "d_y", "xs_0", "xs_1"]
    assert ["CONSTANT_TENSOR", "c_c", "c", None] in rep["Const"]["inputs"]


def test_graph_signature_matches_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    script = (
        f"import json, torch\nMODELS = {MODELS!r}\n{REPORT}\nprint(json.dumps(_signature_report(torch)))\n"
    )
    res = subprocess.run([py, "-c", script], check=False, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    expected = json.loads(res.stdout.strip().splitlines()[-1])
    ours = _signature_report(torch)
    for name in expected:
        for key in ("inputs", "state_dict", "constants", "user_inputs", "outputs"):
            assert ours[name][key] == expected[name][key], (name, key)


def _np(v):
    return v.detach().numpy() if torch.is_tensor(v) else np.asarray(v)


def test_module_runs_and_matches_eager():
    ns = _models(torch)
    for name, (args, kwargs) in ns["make_inputs"]().items():
        m = ns[name]()
        ep = torch.export.export(m, args, kwargs)
        got, want = ep.module()(*args, **kwargs), m(*args, **kwargs)
        flat_got, flat_want = torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(want)
        assert len(flat_got) == len(flat_want)
        for g, w in zip(flat_got, flat_want):
            np.testing.assert_allclose(_np(g), _np(w), rtol=1e-6)
        assert type(got) is type(want)


def test_flat_graph_lifted_state_and_call_error():
    ns = _models(torch)
    m = ns["Lin"]()
    ep = torch.export.export(m, (torch.randn(4, 3),))
    phs = [n.name for n in ep.graph.nodes if n.op == "placeholder"]
    assert phs == ["p_lin_weight", "p_lin_bias", "b_b", "b_nb", "x"]
    assert not [n for n in ep.graph.nodes if n.op in ("get_attr", "call_module")]
    assert ep.state_dict["lin.weight"] is m.lin.weight
    assert ep.graph_signature.parameters == ("lin.weight", "lin.bias")
    assert ep.graph_signature.buffers == ("b", "nb") and ep.graph_signature.non_persistent_buffers == ("nb",)
    assert ep.graph_signature.user_outputs == ("add_1",)
    assert ep.graph_signature.inputs_to_parameters == {"p_lin_weight": "lin.weight", "p_lin_bias": "lin.bias"}
    assert [s.kind for s in ep.graph_signature.output_specs] == [OutputKind.USER_OUTPUT]
    assert "# inputs\np_lin_weight: PARAMETER target='lin.weight'" in str(ep.graph_signature)
    assert "b_nb: BUFFER target='nb' persistent=False" in str(ep.graph_signature)
    x = torch.randn(4, 3)
    # the graph module takes the lifted state first
    flat = ep.graph_module(m.lin.weight, m.lin.bias, m.b, m.nb, x)
    np.testing.assert_allclose(flat[0].detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    with pytest.raises(
        RuntimeError,
        match=r"Unable to call ExportedProgram directly. You should use `exported_program.module\(\)` instead.",
    ):
        ep(x)
    mod = ep.module()
    assert isinstance(mod, torch.fx.GraphModule)
    assert sorted(mod.state_dict()) == ["b", "lin.bias", "lin.weight"]  # nb is not persistent
    rd = ep.run_decompositions()  # identity here: the graph holds our ops already
    assert [s.kind for s in rd.graph_signature.input_specs] == [
        s.kind for s in ep.graph_signature.input_specs
    ]


def test_guards_static_and_dynamic_dims():
    class M(torch.nn.Module):
        def forward(self, x, y):
            return x * 2 + y.sum(), x.shape[0]

    ep = torch.export.export(M(), (torch.randn(4, 3), torch.ones(2)))
    m = ep.module()
    with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[0\] == 4"):
        m(torch.randn(5, 3), torch.ones(2))
    b = Dim("batch", min=2, max=8)
    assert repr(b) == "Dim('batch', min=2, max=8)"
    ep = torch.export.export(M(), (torch.randn(4, 3), torch.ones(2)), dynamic_shapes={"x": {0: b}, "y": None})
    m = ep.module()
    out, n = m(torch.ones(7, 3), torch.ones(2))
    assert n == 7 and out.shape == (7, 3) and out.tolist()[0] == [4.0, 4.0, 4.0]
    with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[0\] <= 8"):
        m(torch.randn(9, 3), torch.ones(2))
    with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[1\] == 3"):
        m(torch.randn(4, 4), torch.ones(2))
    with pytest.raises(AssertionError, match=r"Guard failed: y.size\(\)\[0\] == 2"):
        m(torch.randn(4, 3), torch.ones(3))
    with pytest.raises(ValueError, match="Trying to flatten user inputs with exported input tree spec"):
        m(torch.randn(4, 3))
    assert [repr(v) for v in ep.range_constraints.values()] == ["VR[2, 8]"]
    # by position, and as hints
    ep = torch.export.export(
        M(), (torch.randn(4, 3), torch.ones(2)), dynamic_shapes=({0: Dim.DYNAMIC}, {0: Dim.AUTO})
    )
    assert ep.module()(torch.ones(6, 3), torch.ones(5))[1] == 6
    with pytest.raises(AssertionError, match="Cannot create Dim with inconsistent min=5, max=2"):
        Dim("x", min=5, max=2)
    with pytest.raises(Exception, match=r"its top-level keys must be the arg names \['x', 'y'\]") as e:
        torch.export.export(M(), (torch.randn(4, 3), torch.ones(2)), dynamic_shapes={"z": {0: b}})
    assert type(e.value).__name__ == "UserError"


def test_data_dependent_branch_raises():
    # PyTorch's export raises GuardOnDataDependentSymNode (a RuntimeError) on `if x.sum() > 0`; jit.trace warns
    from minitorch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    class Branch(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return torch.sin(x)
            return torch.cos(x)

    with pytest.raises(GuardOnDataDependentSymNode, match="Could not guard on data-dependent expression"):
        torch.export.export(Branch(), (torch.randn(3, 3),))
    assert issubclass(GuardOnDataDependentSymNode, RuntimeError)
    with pytest.warns(torch.jit.TracerWarning):
        torch.jit.trace(Branch(), (torch.ones(3, 3),))

    class Cond(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.sum() > 0, torch.sin, torch.cos, [x])

    m = torch.export.export(Cond(), (torch.randn(3, 3),)).module()
    assert torch.equal(m(torch.ones(3, 3)), torch.sin(torch.ones(3, 3)))
    assert torch.equal(m(-torch.ones(3, 3)), torch.cos(-torch.ones(3, 3)))


class _TwoBranch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(4, 3)
        self.b = torch.nn.Linear(6, 2)

    def forward(self, x1, x2):
        return self.a(x1), self.b(x2)


def test_shared_dim_is_one_symbol_and_guarded_equal():
    batch = Dim("batch")
    args = (torch.randn(5, 4), torch.randn(5, 6))
    ep = torch.export.export(_TwoBranch(), args, dynamic_shapes={"x1": {0: batch}, "x2": {0: batch}})
    assert len(ep.range_constraints) == 1  # PyTorch's: one symbol for the shared Dim
    o1, o2 = ep.module()(torch.randn(9, 4), torch.randn(9, 6))
    assert o1.shape == (9, 3) and o2.shape == (9, 2)
    with pytest.raises(AssertionError, match=r"Guard failed: x2.size\(\)\[0\] == x1.size\(\)\[0\]"):
        ep.module()(torch.randn(5, 4), torch.randn(9, 6))
    # two Dims of their own: two symbols, no equality
    ep = torch.export.export(_TwoBranch(), args, dynamic_shapes={"x1": {0: Dim("b1")}, "x2": {0: Dim("b2")}})
    assert len(ep.range_constraints) == 2
    assert ep.module()(torch.randn(5, 4), torch.randn(9, 6))[1].shape == (9, 2)


def test_dynamic_dim_the_code_specializes():
    # Linear fixes its input's last dim: marking it dynamic is PyTorch's constraint violation (these are its
    # messages); Dim.AUTO quietly keeps it static, so the guard reports another size
    args = (torch.randn(5, 4), torch.randn(5, 6))
    with pytest.raises(Exception, match=r"Constraints violated \(inner\)!") as e:
        torch.export.export(_TwoBranch(), args, dynamic_shapes={"x1": {1: Dim("inner")}, "x2": None})
    assert type(e.value).__name__ == "UserError"
    assert str(e.value).startswith(
        'Constraints violated (inner)! For more information, run with TORCH_LOGS="+dynamic".\n  - You marked inner '
        "as dynamic but your code specialized it to be a constant (4). If you're using mark_dynamic, either remove "
        "it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either Dim.STATIC or "
        "Dim.AUTO.\nSuggested fixes:\n  inner = 4\n\nThe error above occurred when calling torch.export.export."
    )
    with pytest.raises(Exception, match=r"(?s)Constraints violated \(L\['x2'\].size\(\)\[1\]\)! .* \(6\)\."):
        torch.export.export(_TwoBranch(), args, dynamic_shapes={"x1": None, "x2": {1: Dim.DYNAMIC}})
    ep = torch.export.export(_TwoBranch(), args, dynamic_shapes={"x1": (Dim.AUTO, Dim.AUTO), "x2": None})
    assert ep.module()(torch.randn(8, 4), args[1])[0].shape == (8, 3)
    with pytest.raises(AssertionError, match=r"Guard failed: x1.size\(\)\[1\] == 4"):
        ep.module()(torch.randn(5, 5), args[1])
    # the trial run leaves the module's state alone (batch norm's running statistics)
    bn = torch.nn.BatchNorm1d(4)
    torch.export.export(bn, (torch.randn(6, 4),), dynamic_shapes={"input": {0: Dim("n")}})
    assert int(bn.num_batches_tracked) <= 1


def test_exported_program_prints_as_pytorch():
    # PyTorch's layout (each part indented by its newlines) and its GraphModule, holding no module for lifted state
    class Two(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = torch.nn.Sequential(torch.nn.Linear(3, 2))

        def forward(self, x):
            return torch.relu(self.inner(x))

    ep = torch.export.export(Two(), (torch.randn(2, 3),))
    gm = ep.graph_module
    assert type(gm).__name__ == "GraphModule" and str(gm).startswith("GraphModule()\n")
    assert list(gm.named_modules()) == [("", gm)]
    s = str(ep)
    assert s.startswith(
        "ExportedProgram:\n    class GraphModule(torch.nn.Module):\n        def forward(self, "
    )
    assert s.endswith(
        "\n    \nGraph signature:\n    # inputs\n    p_inner_0_weight: PARAMETER target='inner.0.weight'\n"
        "    p_inner_0_bias: PARAMETER target='inner.0.bias'\n    x: USER_INPUT\n    \n    # outputs\n"
        "    relu: USER_OUTPUT\n    \nRange constraints: {}\n"
    ), s


def test_specialized_constant_input_is_guarded():
    ns = _models(torch)
    ep = torch.export.export(ns["Const"](), (torch.ones(3, 2),), {"n": 5})
    assert ep.graph_signature.user_inputs == ("x", 5)
    with pytest.raises(AssertionError, match="Guard failed: n == 5"):
        ep.module()(torch.ones(3, 2), n=6)


def test_export_errors():
    with pytest.raises(
        ValueError, match="Expected `mod` to be an instance of `torch.nn.Module`, got <class 'function'>."
    ):
        torch.export.export(lambda x: x, (torch.ones(1),))
    with pytest.raises(
        Exception, match="Expecting `args` to be a tuple of example positional inputs, got <class 'list'>"
    ):
        torch.export.export(torch.nn.ReLU(), [torch.ones(1)])


def test_custom_op_in_exported_graph():
    @torch.library.custom_op("texport::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    class M(torch.nn.Module):
        def forward(self, x):
            return twice(x) + 1

    ep = torch.export.export(M(), (torch.ones(2),))
    targets = [n.target for n in ep.graph.nodes if n.op == "call_function"]
    assert torch.ops.texport.twice.default in targets
    assert ep.module()(torch.full((2,), 3.0)).tolist() == [7.0, 7.0]


def test_save_load_roundtrip(tmp_path):
    ns = _models(torch)
    m = ns["Lin"]()
    x = torch.randn(4, 3)
    ep = torch.export.export(m, (x,), dynamic_shapes={"x": {0: Dim("b")}})
    path = tmp_path / "m.pt2"
    torch.export.save(ep, str(path), extra_files={"note": "hi"})
    extra = {"note": ""}
    ep2 = torch.export.load(str(path), extra_files=extra)
    assert extra == {"note": "hi"}
    assert str(ep2.graph_signature) == str(ep.graph_signature)
    np.testing.assert_allclose(ep2.module()(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    assert ep2.module()(torch.randn(9, 3)).shape == (9, 2)
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    buf.seek(0)
    assert isinstance(torch.export.load(buf), torch.export.ExportedProgram)
    torch.save({"a": 1}, str(tmp_path / "other.pt"))
    with pytest.raises(RuntimeError, match="not an ExportedProgram"):
        torch.export.load(str(tmp_path / "other.pt"))
    with pytest.raises(TypeError, match="must be an instance of 'ExportedProgram'"):
        torch.export.save(m, buf)
    assert InputKind.PARAMETER.name == "PARAMETER"


def test_python_control_flow_on_sizes_is_specialized():
    # shape unpacking and branches on dims run on the example's values (PyTorch's export specializes them too);
    # the sizes stay graph values, so the batch dimension marked dynamic follows the input
    class Attn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = torch.nn.Linear(8, 24)

        def forward(self, x):
            B, T, C = x.shape
            if x.dim() == 3 and T > 1:
                q, k, v = self.qkv(x).split(C, dim=2)
                q, k, v = (t.view(B, T, 2, C // 2).transpose(1, 2) for t in (q, k, v))
                y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
                return y.transpose(1, 2).contiguous().view(B, T, C)
            return x

    m = Attn()
    ep = torch.export.export(m, (torch.randn(2, 5, 8),), dynamic_shapes={"x": {0: Dim("b", max=16)}})
    y = torch.randn(7, 5, 8)
    np.testing.assert_allclose(ep.module()(y).detach().numpy(), m(y).detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[1\] == 5"):
        ep.module()(torch.randn(2, 1, 8))


def test_dataclass_inputs_and_draft_export():
    import dataclasses

    @dataclasses.dataclass
    class Pair:
        a: torch.Tensor
        b: torch.Tensor

    torch.export.register_dataclass(Pair)

    class M(torch.nn.Module):
        def forward(self, p):
            return Pair(p.a + p.b, p.a * p.b)

    ep = torch.export.draft_export(M(), (Pair(torch.ones(2), torch.full((2,), 3.0)),))
    assert ep.graph_signature.user_inputs == ("p_a", "p_b")
    out = ep.module()(Pair(torch.full((2,), 2.0), torch.full((2,), 5.0)))
    assert isinstance(out, Pair) and out.a.tolist() == [7.0, 7.0] and out.b.tolist() == [10.0, 10.0]
    assert torch.export.default_decompositions() == {}
