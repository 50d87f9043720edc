"""torch.fx.experimental.proxy_tensor.make_fx, GraphModule.to_folder and fx.passes.graph_drawer.FxGraphDrawer:
graphs checked against eager results, placeholder names, class names and errors against PyTorch 2.15 (whose graphs
hold ATen ops where ours hold minitorch's: the code itself is not compared)."""

import importlib
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from utils import cases_here_and_in_pytorch

import minitorch
import minitorch as torch
from minitorch import fx, nn
from minitorch.fx.experimental import proxy_tensor
from minitorch.fx.experimental.proxy_tensor import make_fx
from minitorch.fx.passes.shape_prop import ShapeProp


def _close(a, b, tol=1e-6):
    return np.allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


_CASES = r"""
def cases(torch, proxy_tensor):
    make_fx = proxy_tensor.make_fx
    run = runner(lambda v: v)
    x = torch.tensor([0.5, -1.0, 2.0])

    def names(gm):
        return [n.name for n in gm.graph.nodes if n.op == "placeholder"]

    def summary(gm, *args):
        out = gm(*args)
        flat = out if isinstance(out, (tuple, list)) else [out]
        vals = [v.tolist() if isinstance(v, torch.Tensor) else v for v in flat]
        return [names(gm), type(gm).__name__, vals]

    def f(a, n):
        return a.sin() * n + 1, a.shape[0]

    def named(a):
        return a.relu()

    def star(a, *rest):
        return a + rest[0]

    def kwonly(a, *, k=2):
        return a * k

    lin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]))
        lin.bias.copy_(torch.tensor([0.5, -0.5]))
    out = {}
    out["function"] = run(lambda: summary(make_fx(f)(x, 2), x * 2, 2))
    out["named"] = run(lambda: summary(make_fx(named)(x), -x))
    out["lambda_nested"] = run(lambda: summary(make_fx(lambda xs: xs[0] * xs[1])([x, x * 3]), [x, -x]))
    out["varargs"] = run(lambda: summary(make_fx(star)(x, x), x, x))
    out["builtin"] = run(lambda: summary(make_fx(torch.sin)(x), x))
    out["module"] = run(lambda: [names(make_fx(lin)(x.reshape(1, 3))), type(make_fx(lin)(x.reshape(1, 3))).__name__,
                                 [round(v, 5) for v in make_fx(lin)(x.reshape(1, 3))(x.reshape(1, 3)).reshape(-1).tolist()]])
    out["dict_output"] = run(lambda: sorted(make_fx(lambda a: {"p": a + 1, "q": [a * 2]})(x)(x).keys()))
    out["symbolic_new_size"] = run(
        lambda: summary(make_fx(lambda a: (a * 2).sum(0), tracing_mode="symbolic")(x), torch.ones(5))
    )
    out["fake"] = run(lambda: summary(make_fx(named, tracing_mode="fake")(x), x))
    out["bad_mode"] = run(lambda: make_fx(named, tracing_mode="bogus"))
    out["arg_count"] = run(lambda: make_fx(named)(x, x))
    out["kwonly_count"] = run(lambda: make_fx(kwonly)(x))
    out["item"] = run(lambda: make_fx(lambda a: a.sum().item())(x))
    out["branch"] = run(lambda: make_fx(lambda a: a if a.sum() > 0 else -a)(x))

    def from_list(a):
        v = a.tolist()
        return a * v[2] + v[0]

    # real mode bakes .tolist()'s values into the graph (so a new input still sees the example's), fake mode
    # records the read: the graph reads each input's values
    out["tolist_real"] = run(lambda: summary(make_fx(from_list)(x), x * 2))
    out["tolist_int_real"] = run(lambda: summary(make_fx(lambda a: a * a.int().tolist()[2])(x), x * 3))
    out["tolist_tensor_real"] = run(lambda: summary(make_fx(lambda a: a + torch.tensor(a.tolist()[0]))(x), -x))
    out["tolist_fake"] = run(lambda: summary(make_fx(from_list, tracing_mode="fake")(x), x * 2))
    out["tolist_symbolic"] = run(
        lambda: summary(make_fx(lambda a: a * a.int().tolist()[2], tracing_mode="symbolic")(x), x * 3)
    )
    out["item_fake"] = run(lambda: summary(make_fx(lambda a: a * a.sum().item(), tracing_mode="fake")(x), x * 2))
    out["item_symbolic"] = run(
        lambda: summary(make_fx(lambda a: a * a.sum().item(), tracing_mode="symbolic")(x), -x)
    )
    out["float_real"] = run(lambda: make_fx(lambda a: a * float(a.max()))(x))
    out["decomposition"] = run(
        lambda: summary(
            make_fx(lambda a: torch.nn.functional.gelu(a),
                    {torch.ops.aten.gelu.default: lambda a, approximate="none": a * 2})(x),
            x,
        )
    )
    return out
"""

_KEYS = [
    "function",
    "named",
    "lambda_nested",
    "varargs",
    "builtin",
    "module",
    "dict_output",
    "symbolic_new_size",
    "fake",
    "bad_mode",
    "arg_count",
    "kwonly_count",
    "item",
    "branch",
    "tolist_real",
    "tolist_int_real",
    "tolist_tensor_real",
    "tolist_fake",
    "tolist_symbolic",
    "item_fake",
    "item_symbolic",
    "float_real",
    "decomposition",
]


@pytest.fixture(scope="module")
def both():
    mods = [("torch", minitorch), ("torch.fx.experimental.proxy_tensor", proxy_tensor)]
    return cases_here_and_in_pytorch(_CASES, mods)


@pytest.mark.parametrize("key", _KEYS)
def test_make_fx_same_as_pytorch(both, key):
    ours, theirs = both
    assert ours[key] == theirs[key]


def test_make_fx_inlines_modules_and_matches_eager():
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(12, 4))
    model.eval()
    x = torch.randn(2, 2, 4, 4)
    gm = make_fx(model)(x)
    assert not [n for n in gm.graph.nodes if n.op == "call_module"]
    assert _close(gm(x), model(x), 1e-5)
    y = torch.randn(2, 2, 4, 4)
    assert _close(gm(y), model(y), 1e-5)
    # the parameters are read from the module, so the graph sees later updates
    with torch.no_grad():
        model[4].bias.add_(1.0)
    assert _close(gm(y), model(y), 1e-5)


def test_make_fx_of_grad_and_vmap_transforms():
    # the functorch pattern make_fx(grad(f)) / make_fx(vmap(f)): the transformed function's ops, run again
    f = lambda w: (w.sin() * w).sum()
    w = torch.randn(4, dtype=torch.float64)
    gm = make_fx(torch.func.vmap(torch.outer, in_dims=(0, None)))(torch.ones(3, 2), w)
    assert _close(gm(torch.ones(3, 2), w), torch.vmap(torch.outer, in_dims=(0, None))(torch.ones(3, 2), w))
    out = make_fx(lambda v: f(v) * 2)(w)
    assert _close(out(w), f(w) * 2)


def test_make_fx_no_grad_region_stays_no_grad():
    def fn(a):
        with torch.no_grad():
            b = a * 2
        return a * b

    a = torch.randn(3, requires_grad=True)
    gm = make_fx(fn)(a)
    out = gm(a)
    out.sum().backward()
    assert _close(a.grad, (a * 2).detach())


# ---- GraphModule.to_folder


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.act = nn.Tanh()
        self.register_buffer("scale", torch.tensor([2.0]))
        self.extra = nn.Parameter(torch.randn(4))

    def forward(self, x):
        return self.act(self.fc(x)) * self.scale + self.extra


def test_to_folder_writes_an_importable_module(tmp_path):
    torch.manual_seed(0)
    gm = fx.symbolic_trace(_Net())
    folder = tmp_path / "dumped"
    with pytest.warns(UserWarning, match=r"saved as pickled files instead: \['act'\]"):
        gm.to_folder(folder, "MyModule")
    assert sorted(os.listdir(folder)) == ["__init__.py", "act.pt", "module.py", "state_dict.pt"]
    src = (folder / "module.py").read_text()
    assert "import minitorch as torch" in src and "Linear(in_features=3, out_features=4, bias=True)" in src
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module("dumped")
        loaded = mod.MyModule()
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "dumped" or m.startswith("dumped.")]:
            del sys.modules[name]
    x = torch.randn(5, 3)
    assert _close(loaded(x), gm(x))
    assert sorted(loaded.state_dict()) == sorted(gm.state_dict())


def test_to_folder_of_make_fx_graph(tmp_path):
    # make_fx's graphs hold the root's parameters under a submodule: written as a safe repr, weights restored
    lin = nn.Linear(2, 2)
    gm = make_fx(lin)(torch.randn(1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gm.to_folder(tmp_path / "lin_dump")
    sys.path.insert(0, str(tmp_path))
    try:
        loaded = importlib.import_module("lin_dump").FxModule()
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "lin_dump" or m.startswith("lin_dump.")]:
            del sys.modules[name]
    x = torch.randn(3, 2)
    assert _close(loaded(x), lin(x))


# ---- FxGraphDrawer

_NO_PYDOT = """
import sys
sys.modules["pydot"] = None  # as if it were not installed
import minitorch as torch
from minitorch.fx.passes import graph_drawer
assert graph_drawer.HAS_PYDOT is False
try:
    graph_drawer.FxGraphDrawer(torch.fx.symbolic_trace(torch.nn.Linear(2, 2)), "lin")
except RuntimeError as e:
    print(e)
"""


def test_graph_drawer_without_pydot_raises_as_pytorch():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(minitorch.__file__)))
    r = subprocess.run(
        [sys.executable, "-c", _NO_PYDOT], capture_output=True, text=True, env=env, check=False
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == (
        "FXGraphDrawer requires the pydot package to be installed. Please install pydot through your favorite "
        "Python package manager."
    )


def test_graph_drawer_with_pydot():
    pytest.importorskip("pydot")
    from minitorch.fx.passes.graph_drawer import FxGraphDrawer

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = fx.symbolic_trace(nn.Sequential(nn.Linear(3, 3), nn.ReLU()))
            self.fc = nn.Linear(3, 2)

        def forward(self, x):
            return self.fc(self.inner(x)) + 1

    gm = fx.symbolic_trace(
        M(),
    )
    gm = fx.GraphModule(gm, gm.graph)
    ShapeProp(gm).propagate(torch.ones(4, 3))
    drawer = FxGraphDrawer(gm, "m")
    dot = drawer.get_dot_graph().to_string()
    assert "shape=(4, 2)" in dot and "fc -> add;" in dot and '"fc.weight" -> fc;' in dot
    assert "|target=_operator.add\\n|args=(1,)" in dot
    assert set(drawer.get_all_dot_graphs()) >= {"m"}
    no_weights = FxGraphDrawer(gm, "m", ignore_parameters_and_buffers=True).get_main_dot_graph().to_string()
    assert "fc.weight" not in no_weights
