"""torch.jit.freeze: the frozen module inlines its fields (no submodules, parameters, buffers or attributes left),
keeps forward and the preserved methods and attributes only, computes on detached constants; against PyTorch."""

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch import jit, nn

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.:FutureWarning")

AS_TORCH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration", "programs", "as_torch.py"
)
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))


class Sub(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.register_buffer("b", torch.ones(2))
        self.k = 3

    def forward(self, x):
        return self.lin(x) + self.b * self.k

    @jit.export
    def version(self):
        return 2.0

    @jit.export
    def scale(self, x):
        return x * self.k


def _frozen(preserved=None):
    torch.manual_seed(0)
    m = jit.script(Sub().eval())
    return m, jit.freeze(m, preserved) if preserved is not None else jit.freeze(m)


def test_frozen_module_has_no_fields_and_only_forward():
    m, f = _frozen()
    assert list(f.parameters()) == [] and list(f.buffers()) == [] and len(f.state_dict()) == 0
    assert [n for n, _ in f.named_modules()] == [""]
    for name in ("lin", "b", "k", "version", "scale", "nonexistent"):
        with pytest.raises(
            AttributeError, match=f"^'RecursiveScriptModule' object has no attribute '{name}'$"
        ):
            getattr(f, name)
    assert repr(f) == "RecursiveScriptModule(original_name=Sub)"
    x = torch.randn(4, 3)
    np.testing.assert_allclose(f(x).numpy(), m(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    # the parameters are constants: no graph to them, but gradients still reach the input
    assert not f(x).requires_grad
    assert not hasattr(f, "training")
    xr = x.clone().requires_grad_()
    f(xr).sum().backward()
    np.testing.assert_allclose(xr.grad.numpy(), m.lin.weight.detach().sum(0).expand(4, 3).numpy(), rtol=1e-6)
    # the original keeps its fields and methods
    assert m.version() == 2.0 and m.k == 3 and len(list(m.parameters())) == 2


def test_preserved_attrs_and_unknown_names():
    m, f = _frozen(["version", "k"])
    assert f.version() == 2.0 and f.k == 3
    assert not hasattr(f, "scale") and not hasattr(f, "lin")
    with pytest.raises(RuntimeError, match="^Unknown name: nope$"):
        jit.freeze(m, ["nope"])
    with pytest.raises(RuntimeError, match="Freezing expects a ScriptModule as input"):
        jit.freeze(Sub().eval())
    with pytest.raises(RuntimeError, match="Freezing is currently only implemented for modules in eval mode"):
        jit.freeze(jit.script(Sub()))
    # a frozen module has no training flag: freezing it again fails on that, as in PyTorch
    with pytest.raises(AttributeError, match="^'RecursiveScriptModule' object has no attribute 'training'$"):
        jit.freeze(f)
    assert jit.optimize_for_inference(f) is f


def test_constants_share_storage_but_not_bindings():
    m, f = _frozen()
    x = torch.randn(2, 3)
    before = f(x)
    with torch.no_grad():
        m.lin.bias.add_(1.0)  # in place: the frozen constant is the same storage
    np.testing.assert_allclose(f(x).numpy(), before.numpy() + 1.0, rtol=1e-6)
    m.lin = nn.Linear(3, 2)  # a rebinding: the frozen module keeps what it froze
    np.testing.assert_allclose(f(x).numpy(), before.numpy() + 1.0, rtol=1e-6)


def test_frozen_module_saves_and_loads(tmp_path):
    _, f = _frozen(["version"])
    path = tmp_path / "frozen.pt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jit.save(f, str(path))
        g = jit.load(str(path))
    x = torch.randn(2, 3)
    assert g.version() == 2.0 and torch.equal(g(x), f(x))
    assert not hasattr(g, "lin")


def test_optimize_for_inference_returns_a_frozen_module():
    torch.manual_seed(0)
    s = jit.script(Sub())
    o = jit.optimize_for_inference(s)
    assert o is not s and not s.training and not hasattr(o, "lin")
    x = torch.randn(2, 3)
    np.testing.assert_allclose(o(x).numpy(), s(x).detach().numpy(), rtol=1e-6)


ORACLE_SCRIPT = """
import json, warnings
import torch
warnings.filterwarnings("ignore")

class Sub(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.register_buffer("b", torch.ones(2))
        self.k = 3

    def forward(self, x):
        return self.lin(x) + self.b * self.k

    @torch.jit.export
    def version(self):
        return 2.0

def err(f):
    try:
        return f()
    except Exception as e:
        return [type(e).__name__, str(e)]

m = torch.jit.script(Sub().eval())
f = torch.jit.freeze(m)
f2 = torch.jit.freeze(m, ["version", "k"])
x = torch.ones(2, 3)
out = {
    "params": len(list(f.parameters())), "state": list(f.state_dict()), "repr": repr(f),
    "lin": err(lambda: repr(f.lin)), "version": err(lambda: f.version()), "k": err(lambda: f.k),
    "f2": [f2.version(), f2.k, hasattr(f2, "lin")], "unknown": err(lambda: torch.jit.freeze(m, ["nope"])),
    "requires_grad": f(x).requires_grad, "same": torch.allclose(f(x), m(x)),
}
print(json.dumps(out))
"""


def test_freeze_against_pytorch(tmp_path):
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    script = tmp_path / "freeze_case.py"
    script.write_text(textwrap.dedent(ORACLE_SCRIPT))
    env = dict(os.environ, PYTHONPATH=PKG_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("MT_REAL_TORCH", None)
    results = []
    for python, real in ((py, True), (sys.executable, False)):
        run_env = dict(env, MT_REAL_TORCH="1") if real else env
        res = subprocess.run(
            [python, AS_TORCH, str(script)],
            capture_output=True,
            text=True,
            env=run_env,
            timeout=300,
            check=False,
        )
        assert res.returncode == 0, res.stderr[-3000:]
        results.append(json.loads(res.stdout.strip().splitlines()[-1]))
    theirs, ours = results
    assert ours == theirs
