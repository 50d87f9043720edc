"""torch.jit results' .graph / .inlined_graph / .code as TorchScript IR (jit/_ir.py): the graphs of plain modules and
functions against PyTorch's (node kinds, order, types and text with value names renumbered), the torch._C.Graph /
Node / Value API against PyTorch's answers, bad inputs (unknown kinds, out-of-range indices, wrong attribute
kinds), the code text, and the fx graph that still runs underneath."""

import re
import warnings

import pytest
from utils import cases_here, cases_here_and_in_pytorch

import minitorch as torch
from minitorch import jit, nn

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.:FutureWarning")

# Models shared by both sides, compiled from this text under a module of their own (so PyTorch's script, which
# reads source, finds it through linecache): cases(torch) runs here with minitorch and in the oracle with PyTorch
MODEL_SRC = """
nn = torch.nn
F = torch.nn.functional


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class CBR(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.linear(x) + h)
        return new_h, new_h


def arith(x, y):
    z = x * 2 + y
    return z.sin() - y / 3
"""

MODELS = f"""
import linecache
import re
import sys
import types
import warnings

MODEL_SRC = {MODEL_SRC!r}
"""

MODELS += """

def _models(torch):
    name = "jit_ir_models"
    mod = sys.modules.get(name)
    if mod is None:
        mod = types.ModuleType(name)
        mod.__file__ = "<jit_ir_models>"
        mod.torch = torch
        linecache.cache[mod.__file__] = (len(MODEL_SRC), None, MODEL_SRC.splitlines(True), mod.__file__)
        exec(compile(MODEL_SRC, mod.__file__, "exec"), mod.__dict__)
        sys.modules[name] = mod
    torch.manual_seed(0)
    return mod.MLP(), mod.CBR().eval(), mod.Cell(), mod.arith


"""
MODELS += '''
def _canonical(text):
    """The graph text with values renumbered by first appearance, no source comments and no type mangling
    (PyTorch numbers and names values by its own passes; the structure is what must agree)."""
    names = {}

    def rename(m):
        return "%v" + str(names.setdefault(m.group(0), len(names)))

    text = re.sub(r" # .*", "", text)
    text = re.sub(r"___torch_mangle_[0-9]+[.]", "", text)
    return re.sub(r"%[A-Za-z0-9_.]+", rename, text)


def _traced(torch):
    mlp, cbr, cell, arith = _models(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (
            torch.jit.trace(mlp, torch.randn(2, 4)),
            torch.jit.trace(cbr, torch.randn(1, 3, 8, 8)),
            torch.jit.trace(cell, (torch.rand(3, 4), torch.rand(3, 4))),
            torch.jit.trace(arith, (torch.randn(3), torch.randn(3))),
        )


def _scripted(torch):
    mlp, _, cell, arith = _models(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.jit.script(mlp), torch.jit.script(cell), torch.jit.script(arith)
'''

GRAPHS = (
    MODELS
    + """

def _kinds(g, skip=()):
    return [n.kind() for n in g.nodes() if n.kind() not in skip]


def cases(torch):
    t_mlp, t_cbr, t_cell, t_arith = _traced(torch)
    s_mlp, s_cell, s_arith = _scripted(torch)
    out = {}
    for name, t in (("mlp", t_mlp), ("cbr", t_cbr), ("cell", t_cell), ("arith", t_arith)):
        out["trace_" + name] = _canonical(str(t.graph))
        out["trace_kinds_" + name] = _kinds(t.graph)
    out["trace_inlined_mlp"] = _canonical(str(t_mlp.inlined_graph))
    out["trace_code_cell"] = t_cell.code
    # a script pools its constants at the top (in an order of its own passes): the order of the rest must agree,
    # module fetches as Python evaluates them (self.fc2 before self.fc1 in self.fc2(relu(self.fc1(x))))
    skip = ("prim::Constant",)
    for name, s in (("mlp", s_mlp), ("cell", s_cell), ("arith", s_arith)):
        out["script_ops_" + name] = _kinds(s.graph, skip)
        out["script_inputs_" + name] = [[v.debugName(), str(v.type())] for v in s.graph.inputs()][1 if name != "arith" else 0 :]
        out["script_consts_" + name] = sorted(
            str(n.output().toIValue()) + ":" + str(n.output().type()) for n in s.graph.findAllNodes("prim::Constant")
        )
    out["script_code_arith_head"] = s_arith.code.splitlines()[:2]
    out["script_code_mlp"] = s_mlp.code
    return out
"""
)


def test_graphs_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(GRAPHS, [("torch", torch)])
    assert ours == theirs


API = (
    MODELS
    + """

def _err(fn):
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, str(e).splitlines()[0]]
    return None


def cases(torch):
    t_mlp, t_cbr, _, t_arith = _traced(torch)
    g = t_arith.graph
    out = {}
    nodes = list(g.nodes())
    out["count"] = len(nodes)
    out["find_unknown"] = g.findNode("aten::conv2d") is None
    out["find_all_unknown"] = g.findAllNodes("aten::conv2d")
    out["find_all_const"] = len(g.findAllNodes("prim::Constant"))
    relu_free = g.findNode("aten::sin")
    out["sin"] = [relu_free.kind(), relu_free.inputsSize(), relu_free.outputsSize(), relu_free.scopeName()]
    out["sin_input_producer"] = relu_free.input().node().kind()
    out["sin_uses"] = [[u.user.kind(), u.offset] for u in relu_free.output().uses()]
    add = g.findNode("aten::add")
    out["add_inputs"] = [v.node().kind() for v in add.inputs()]
    out["add_input_err"] = _err(add.input)
    out["add_inputs_at_err"] = _err(lambda: add.inputsAt(3))
    out["add_outputs_at_err"] = _err(lambda: add.outputsAt(1))
    out["add_has_uses"] = add.hasUses()
    c = nodes[0]
    out["const"] = [c.kind(), c.attributeNames(), c.kindOf("value"), c.hasAttribute("value"), c.hasAttributes()]
    out["const_t"] = c.t("value").tolist()
    out["const_i_err"] = _err(lambda: c.i("value"))
    out["const_missing_err"] = _err(lambda: c.s("name"))
    alpha = nodes[2]
    out["alpha"] = [alpha.i("value"), alpha.output().toIValue(), str(alpha.output().type()), alpha.output().type().kind()]
    out["inputs"] = [[v.debugName(), str(v.type()), v.type().str(), v.node().kind()] for v in g.inputs()]
    out["outputs"] = [[v.node().kind(), v.type().str()] for v in g.outputs()]
    ty = next(g.inputs()).type()
    out["tensor_type"] = [ty.kind(), ty.sizes(), ty.strides(), ty.dim(), ty.scalarType(), str(ty.dtype()), ty.requires_grad(), str(ty.device()), ty.annotation_str]
    out["complete"] = [next(g.inputs()).isCompleteTensor(), nodes[-1].output().requires_grad()]
    out["return_param"] = [g.return_node().kind(), g.param_node().kind(), g.return_node().inputsSize()]
    out["node_str"] = _canonical(str(relu_free))
    out["no_source"] = g.str(False).count("#")
    m = t_mlp.graph
    getattr_node = m.findNode("prim::GetAttr")
    cls = getattr_node.output().type()
    out["getattr"] = [getattr_node.s("name"), getattr_node.kindOf("name"), cls.kind(), cls.name(), re.sub("___torch_mangle_[0-9]+[.]", "", cls.qualified_name())]
    self_type = next(m.inputs()).type()
    out["self_type"] = [self_type.kind(), self_type.name(), str(self_type)]
    call = m.findNode("prim::CallMethod")
    out["call"] = [call.s("name"), [v.debugName() for v in call.inputs()], str(call.output().type())]
    inl = t_mlp.inlined_graph
    out["scopes"] = [n.scopeName() for n in inl.findAllNodes("aten::linear")] + [inl.findNode("aten::relu").scopeName()]
    inl_cbr = t_cbr.inlined_graph
    sizes = inl_cbr.findNode("aten::batch_norm").output().type().sizes()
    out["bn_sizes"] = sizes
    return out
"""
)


def test_graph_api_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(API, [("torch", torch)])
    assert ours == theirs


def test_graphs_without_oracle():
    """The shapes test_graphs_match_pytorch compares, held here too (it skips without PyTorch)."""
    ours = cases_here(GRAPHS, [("torch", torch)])
    assert ours["trace_kinds_mlp"] == [
        "prim::GetAttr",
        "prim::GetAttr",
        "prim::CallMethod",
        "aten::relu",
        "prim::CallMethod",
    ]
    assert ours["trace_kinds_arith"] == [
        "prim::Constant",
        "aten::mul",
        "prim::Constant",
        "aten::add",
        "aten::sin",
        "prim::Constant",
        "aten::div",
        "prim::Constant",
        "aten::sub",
    ]
    assert ours["script_ops_arith"] == ["aten::mul", "aten::add", "aten::sin", "aten::div", "aten::sub"]
    assert ours["trace_code_cell"] == (
        "def forward(self,\n    x: Tensor,\n    h: Tensor) -> Tuple[Tensor, Tensor]:\n"
        "  linear = self.linear\n  _0 = torch.tanh(torch.add((linear).forward(x, ), h))\n  return (_0, _0)\n"
    )


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return torch.relu(self.fc(x)) * 2


def test_graph_text_format():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = jit.trace(_Net(), torch.ones(1, 3))
        s = jit.script(_Net())
    text = str(t.graph)
    assert text.startswith(
        "graph(%self.1 : __torch__.test_jit_ir._Net,\n      %x : Float(1, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
    )
    assert text.endswith("  return (%" + next(t.graph.outputs()).debugName() + ")\n")
    relu = t.graph.findNode("aten::relu")
    # a trace records the line and column 0 of the statement; a script the column of the call too
    assert str(relu).endswith(
        f"= aten::relu(%{relu.input().debugName()}) # {__file__}:{_Net.forward.__code__.co_firstlineno + 1}:0\n"
    )
    assert re.search(r"= aten::relu\(%\d+\) # .*test_jit_ir.py:\d+:15\n", str(s.graph.findNode("aten::relu")))
    assert "Long(requires_grad=0, device=cpu) = prim::Constant[value={2}]()" in text  # a trace wraps the 2
    assert "int = prim::Constant[value=2]()" in str(s.graph)
    assert repr(t.graph) == text and t.graph.str() == text and "#" not in t.graph.str(False)
    assert repr(relu.output()) == f"{relu.output().debugName()} defined in ({relu})"
    assert s.code == (
        "def forward(self,\n    x: Tensor) -> Tensor:\n  fc = self.fc\n  _0 = torch.mul(torch.relu((fc).forward(x, )), 2)\n"
        "  return _0\n"
    )


def test_constants_text():
    from minitorch.jit._ir import _fmt_float

    # PyTorch prints floats with 17 digits unless shorter reads back the same: 2. 0.5 1.0000000000000001e-05
    assert [_fmt_float(v) for v in (2.0, 0.5, 1e-05, 0.1, float("inf"), -1.5)] == [
        "2.",
        "0.5",
        "1.0000000000000001e-05",
        "0.10000000000000001",
        "inf",
        "-1.5",
    ]

    def f(x):
        return torch.softmax(x, -1).sum() + x.new_zeros(2).view(1, 2), x.clamp(min=0.5)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tf = jit.trace(f, torch.ones(2))
    text = str(tf.graph)
    assert "float = prim::Constant[value=0.5]()" in text and "NoneType = prim::Constant()" in text
    softmax = tf.graph.findNode("aten::softmax")
    assert [v.node().kind() for v in softmax.inputs()][1:] == ["prim::Constant", "prim::Constant"]
    assert softmax.inputsAt(2).node().mustBeNone() and not softmax.inputsAt(1).node().mustBeNone()
    assert next(tf.graph.findNode("aten::view").inputs()).node().kind() == "aten::new_zeros"
    assert tf.graph.findNode("aten::view").inputsAt(1).type().str() == "int[]"
    assert "torch.softmax(x, -1)" in tf.code  # the dtype default is left out of the code


def test_eager_and_function_results():
    class Loop(nn.Module):
        def forward(self, x):
            for _ in range(2):
                if x.sum() > 0:
                    x = x - 1
            return x

    s = jit.script(Loop())
    assert s.graph is None and s.inlined_graph is None and s.code.startswith("def forward(self, x):")

    @jit.script
    def g(x, y):
        return x @ y

    assert [n.kind() for n in g.graph.nodes()] == ["aten::matmul"]
    assert g.inlined_graph is g.graph
    assert g.code == "def g(x: Tensor,\n    y: Tensor) -> Tensor:\n  return torch.matmul(x, y)\n"
    assert [v.debugName() for v in g.graph.inputs()] == ["x.1", "y.1"]


def test_fx_graph_still_runs_and_saves(tmp_path):
    """The fx graph stays reachable privately (jit.save, check_trace read it) and the IR is rebuilt from it after
    a load or a pickle round trip."""
    import pickle

    m = _Net()
    x = torch.randn(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = jit.trace(m, x)
        path = str(tmp_path / "m.pt")
        jit.save(t, path)
        loaded = jit.load(path)
    assert next(iter(t._mt_fx_graph.nodes)).op == "placeholder"
    assert str(loaded.graph) == str(t.graph) and loaded.code == t.code
    clone = pickle.loads(pickle.dumps(t))
    assert str(clone.graph) == str(t.graph)
    assert torch.equal(loaded(x), m(x))
