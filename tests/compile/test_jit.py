"""torch.jit: trace and script capture (results against eager, generated code, what runs eagerly), TracerWarning
and TracingCheckError, save/load of our archives, the decorators, fork/wait, freeze, and PyTorch's errors."""

import io
import math
import random
import re
import typing
import warnings
import zipfile

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import jit, nn

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.:FutureWarning")


def _close(a, b, tol=1e-5):
    return np.allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 2)
        self.scale = nn.Parameter(torch.full((2,), 0.5))

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        y = y.mean(dim=(2, 3))
        return self.fc(y.view(x.size(0), -1)) * self.scale


# .code as PyTorch prints a trace's (attributes fetched first, inlined expressions split at 40 columns)
NET_TRACE_CODE = """def forward(self,
    x: Tensor) -> Tensor:
  scale = self.scale
  fc = self.fc
  bn = self.bn
  conv = self.conv
  _0 = torch.relu((bn).forward((conv).forward(x, ), ))
  _1 = torch.view(torch.mean(_0, [2, 3]), [torch.size(x, 0), -1])
  return torch.mul((fc).forward(_1, ), scale)
"""

# and a script's (modules fetched as Python evaluates them: self.bn before self.conv in self.bn(self.conv(x)))
NET_SCRIPT_CODE = """def forward(self,
    x: Tensor) -> Tensor:
  bn = self.bn
  conv = self.conv
  _0 = torch.relu((bn).forward((conv).forward(x, ), ))
  _1 = torch.mean(_0, [2, 3])
  fc = self.fc
  _2 = torch.view(_1, [torch.size(x, 0), -1])
  _3 = (fc).forward(_2, )
  scale = self.scale
  return torch.mul(_3, scale)
"""


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        if x.sum() > 0:
            return self.lin(x)
        return -x


# ---------------------------------------------------------------- trace


def test_trace_module_matches_eager_and_shares_state():
    torch.manual_seed(0)
    m = Net().eval()
    x = torch.randn(2, 3, 8, 8)
    t = jit.trace(m, x)
    assert isinstance(t, jit.ScriptModule) and isinstance(t, jit.TracedModule)
    assert type(t).__name__ == "TopLevelTracedModule" and t.original_name == "Net"
    assert t.code == NET_TRACE_CODE
    calls = [n.inputsAt(0).debugName() for n in t.graph.findAllNodes("prim::CallMethod")]
    assert calls == ["conv", "bn", "fc"]
    assert _close(t(x), m(x))
    # the batch size was recorded as x.size(0), not baked in
    x5 = torch.randn(5, 3, 8, 8)
    assert t(x5).shape == (5, 2) and _close(t(x5), m(x5))
    # parameters are the module's own
    assert list(t.state_dict()) == list(m.state_dict())
    assert t.fc.weight is m.fc.weight and t.scale is m.scale
    with torch.no_grad():
        m.scale.fill_(2.0)
    assert _close(t(x), m(x))
    # gradients flow as through the module
    t(x).sum().backward()
    g_traced = m.conv.weight.grad.clone()
    m.zero_grad()
    m(x).sum().backward()
    assert _close(g_traced, m.conv.weight.grad)


def test_trace_train_eval_and_dropout():
    class D(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.5)
            self.bn = nn.BatchNorm1d(4)

        def forward(self, x):
            return self.drop(self.bn(x))

    m = D()
    x = torch.randn(6, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", jit.TracerWarning)  # the check replays dropout with the same numbers
        t = jit.trace(m, x)
    t.eval()
    assert not m.drop.training  # the submodules are shared
    m.eval()
    assert _close(t(x), m(x))


def test_trace_function_dynamic_shapes_and_kwargs():
    def f(a, b):
        return torch.sigmoid(a) * b + a.shape[0]

    tf = jit.trace(f, (torch.ones(2), torch.ones(2)))
    assert isinstance(tf, jit.ScriptFunction) and tf.name == "f"
    assert "(torch.size(a))[0]" in tf.code and "torch.mul(torch.sigmoid(a), b)" in tf.code
    a, b = torch.randn(3), torch.randn(3)
    assert _close(tf(a, b), f(a, b))  # a.shape[0] is 3 now
    assert [v.debugName() for v in tf.graph.inputs()] == ["a", "b"]
    assert [n.kind() for n in tf.graph.nodes()][:2] == ["aten::sigmoid", "aten::mul"]

    def g(x, scale=None):
        return x * scale

    tg = jit.trace(g, example_kwarg_inputs={"x": torch.ones(2), "scale": torch.full((2,), 3.0)})
    assert _close(tg(x=torch.ones(2), scale=torch.full((2,), 2.0)), torch.full((2,), 2.0))


def test_trace_constants_and_nested_inputs():
    def f(pair, d):
        a, b = pair
        c = torch.tensor([1.0, 2.0])  # created inside: a constant of the trace
        return a + c, b * d["k"]

    args = ((torch.zeros(2), torch.ones(2)), {"k": torch.full((2,), 4.0)})
    tf = jit.trace(f, args)
    assert "torch.add(_0, CONSTANTS.c0)" in tf.code
    assert _close(tf.code_with_constants[1]["c0"], torch.tensor([1.0, 2.0]))
    out = tf((torch.ones(2), torch.full((2,), 2.0)), {"k": torch.full((2,), 0.5)})
    assert _close(out[0], torch.tensor([2.0, 3.0])) and _close(out[1], torch.ones(2))


def test_trace_warns_on_python_values_and_bakes_branch():
    m = Branchy()
    with pytest.warns(
        jit.TracerWarning, match="Converting a tensor to a Python boolean might cause the trace"
    ):
        t = jit.trace(m, torch.ones(2, 3))
    assert "(lin).forward(x, )" in t.code and "neg" not in t.code  # the branch taken is what was recorded
    neg = -torch.ones(2, 3)
    assert _close(t(neg), m.lin(neg))  # the trace does not generalize: documented PyTorch behaviour

    def h(x):
        return x * float(x.sum()) + len(x)

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        jit.trace(h, torch.ones(2))
    msgs = [str(x.message) for x in w if x.category is jit.TracerWarning]
    assert any(m.startswith("Converting a tensor to a Python float") for m in msgs)
    assert any(
        m.startswith("Using len to get tensor shape might cause the trace to be incorrect") for m in msgs
    )

    def it(x):
        return [r * 2 for r in x], x.sum().item()

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ti = jit.trace(it, torch.ones(2, 2), check_trace=False)
    msgs = [str(x.message) for x in w if x.category is jit.TracerWarning]
    assert any(m.startswith("Iterating over a tensor might cause the trace to be incorrect") for m in msgs)
    assert any(m.startswith("Converting a tensor to a Python number") for m in msgs)
    rows, s = ti(torch.full((2, 2), 3.0))
    assert _close(rows[1], torch.full((2,), 6.0)) and s == 4.0  # item() became a constant


def test_check_trace_errors():
    def g(x):
        if x.sum() > 0:
            return x * 2
        return x - 1

    with (
        pytest.warns(jit.TracerWarning),
        pytest.raises(
            jit.TracingCheckError,
            match="Tracing failed sanity checks!\nERROR: Graphs differed across invocations!",
        ),
    ):
        jit.trace(g, torch.ones(2), check_inputs=[(-torch.ones(2),)])

    def r(x):
        return x * random.random()

    with pytest.raises(jit.TracingCheckError, match="Tensor-valued Constant nodes differed|Graphs differed"):
        jit.trace(r, torch.ones(2))
    jit.trace(r, torch.ones(2), check_trace=False)  # without the check it records one value


def test_trace_bad_inputs():
    def f(x, n):
        return x * n

    with pytest.raises(
        RuntimeError,
        match=r"Type 'Tuple\[Tensor, int\]' cannot be traced. Only Tensors and \(possibly nested\) Lists, Dicts, and Tuples of Tensors can be traced",
    ):
        jit.trace(f, (torch.ones(2), 3))
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        jit.trace(f, 5)
    with pytest.raises(TypeError, match="'NoneType' object is not iterable"):
        jit.trace(lambda x: x)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        jit.trace(f, (torch.ones(2), torch.ones(2), torch.ones(2)))


class _KernelNet(nn.Module):
    """torch.jit.trace_module's reference example: a method besides forward."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3)

    def forward(self, x):
        return self.conv(x)

    def weighted_kernel_sum(self, weight):
        return weight * self.conv.weight + 2

    def branchy(self, w):
        return w * 2 if w.sum() > 0 else w * 3


def test_trace_module_traces_other_methods():
    torch.manual_seed(0)
    net = _KernelNet()
    w = torch.rand(1, 1, 3, 3)
    m = jit.trace_module(net, {"forward": torch.rand(1, 1, 5, 5), "weighted_kernel_sum": w})
    x, w2 = torch.rand(2, 1, 6, 6), torch.rand(1, 1, 3, 3)
    assert _close(m(x), net(x)) and _close(m.weighted_kernel_sum(w2), net.weighted_kernel_sum(w2))
    # its own recording, run on the module's parameters (PyTorch 2.15's code for this method)
    assert m.weighted_kernel_sum.code == (
        "def weighted_kernel_sum(self,\n    weight: Tensor) -> Tensor:\n  conv = self.conv\n"
        "  weight0 = conv.weight\n  _0 = torch.add(torch.mul(weight, weight0), CONSTANTS.c0)\n  return _0\n"
    )
    assert [n.kind() for n in m.weighted_kernel_sum.graph.nodes()][:2] == ["prim::GetAttr", "prim::GetAttr"]
    with torch.no_grad():
        net.conv.weight.mul_(2)
    assert _close(m.weighted_kernel_sum(w2), net.weighted_kernel_sum(w2))
    # a method alone; check_inputs per method catch a branch the example did not take
    only = jit.trace_module(net, {"weighted_kernel_sum": w})
    assert _close(only.weighted_kernel_sum(w2), net.weighted_kernel_sum(w2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(jit.TracingCheckError, match="Graphs differed across invocations"):
            jit.trace_module(net, {"branchy": torch.rand(3)}, check_inputs=[{"branchy": -torch.rand(3)}])
    with pytest.raises(AttributeError, match="'_KernelNet' object has no attribute 'nope'"):
        jit.trace_module(net, {"nope": w})


def test_trace_nested_submodules_fetch_chains_in_pytorch_order():
    # each attribute path is its own GetAttr chain from self, parents first, chains in reverse order of first
    # use (PyTorch 2.15's graph for this module); a chain never uses a module fetched further down
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))
            self.b = nn.Linear(4, 4)

        def forward(self, x):
            return x @ self.a[1].weight + x @ self.b.weight + x @ self.a[0].weight

    m = M()
    t = jit.trace(m, torch.rand(2, 4))
    chain = [
        (
            n.s("name"),
            n.inputsAt(0).node().s("name") if n.inputsAt(0).node().kind() == "prim::GetAttr" else "self",
        )
        for n in t.graph.findAllNodes("prim::GetAttr")
    ]
    assert chain == [
        ("a", "self"), ("0", "a"), ("weight", "0"), ("b", "self"), ("weight", "b"),
        ("a", "self"), ("1", "a"), ("weight", "1"),
    ]  # fmt: skip
    # a Sequential's numbered child prints as getattr(...), as PyTorch's code
    assert '_0 = getattr(a_1, "0")' in t.code and '_1 = getattr(a, "1")' in t.code
    # a traced model of blocks inside Sequentials saves and loads (save prints the code)
    model = nn.Sequential(nn.Sequential(Net(), nn.Flatten()), nn.Sequential(nn.Linear(2, 2)))
    x = torch.randn(3, 3, 8, 8)
    traced = jit.trace(model.eval(), x)
    buf = io.BytesIO()
    jit.save(traced, buf)
    buf.seek(0)
    assert _close(jit.load(buf)(x), model(x))


def test_is_tracing_and_is_scripting():
    seen = []

    def f(x):
        seen.append((jit.is_tracing(), jit.is_scripting()))
        return x + 1

    jit.trace(f, torch.ones(1), check_trace=False)
    assert seen == [(True, False)]
    assert not jit.is_tracing() and not jit.is_scripting()
    seen.clear()
    sf = jit.script(f)
    assert seen == [(False, True)] and sf.captured
    seen.clear()
    sf(torch.ones(1))  # the captured code runs without the Python body
    assert seen == []


# ---------------------------------------------------------------- script


def test_script_module_captured():
    torch.manual_seed(1)
    m = Net().eval()
    s = jit.script(m)
    assert isinstance(s, jit.RecursiveScriptModule) and s.captured and s.code == NET_SCRIPT_CODE
    x = torch.randn(3, 3, 8, 8)
    assert _close(s(x), m(x))
    assert jit.script(s) is s
    assert list(s.state_dict()) == list(m.state_dict())
    # train/eval reach the shared submodules
    s.train()
    assert m.bn.training and s.training


def test_script_module_with_control_flow_runs_eagerly():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.k = 2

        def helper(self, x):
            return x * self.k

        @jit.export
        def other(self, x):
            return self.lin(x).sum()

        def forward(self, x):
            for _ in range(self.k):
                if x.sum() > 0:
                    x = self.lin(x)
                else:
                    x = self.helper(x)
            return x if self.training else x + 1

    m = M()
    s = jit.script(m)
    assert not s.captured and s.graph is None
    assert s.code.startswith("def forward(self, x):\n    for _ in range(self.k):")
    pos, neg = torch.rand(2, 3), -torch.rand(2, 3)
    assert _close(s(pos), m(pos)) and _close(s(neg), m(neg))
    s.eval()  # self.training is the scripted module's own
    m.eval()
    assert _close(s(neg), m(neg))
    assert _close(s.other(pos), m.other(pos))  # exported methods stay callable
    assert s.helper(torch.ones(1)).item() == 2.0
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = s.nope


def test_script_function():
    def f(x, y):
        return torch.relu(x) @ y.t()

    sf = jit.script(f)
    assert isinstance(sf, jit.ScriptFunction) and sf.captured
    assert "torch.matmul(torch.relu(x), torch.t(y))" in sf.code
    x, y = torch.randn(2, 3), torch.randn(4, 3)
    assert _close(sf(x, y), f(x, y))

    def g(x):
        if bool(x.max() > 1):
            return x.clamp(max=1.0)
        return x

    sg = jit.script(g)
    assert not sg.captured and sg.graph is None and sg.code.startswith("def g(x):")
    big = torch.tensor([0.5, 3.0])
    assert _close(sg(big), torch.tensor([0.5, 1.0])) and _close(sg(torch.zeros(2)), torch.zeros(2))


def test_script_rejects_lambdas():
    fn = lambda x: x + 1
    with pytest.raises(jit.frontend.NotSupportedError, match="Expected a single top-level function"):
        jit.script(fn)
    with pytest.raises(RuntimeError):  # PyTorch raises RuntimeError here: both classes match
        jit.script(fn)


def _bad_set(x):
    return {1, 2}


def _bad_import(x):
    import os  # noqa: F401

    return x


def _bad_varargs(x, *rest):
    return x


def _bad_kwonly_default(x, *, k=2):
    return x * k


def _bad_try(x):
    try:
        return x + 1
    except RuntimeError:
        return x


def _bad_lambda(x):
    f = lambda t: t + 1
    return f(x)


def _bad_nested_def(x):
    def inner(t):
        return t

    return inner(x)


def _bad_undefined(x):
    y = x * 2
    return y + undefined_name  # noqa: F821


@pytest.mark.parametrize(
    ("fn", "cls", "words", "underlined"),
    [
        (
            _bad_set,
            jit.frontend.UnsupportedNodeError,
            "Set aren't supported",
            "    return {1, 2}\n           ~~~~~~ <--- HERE",
        ),
        (
            _bad_import,
            jit.frontend.UnsupportedNodeError,
            "import statements aren't supported",
            "    import os",
        ),
        (
            _bad_varargs,
            jit.frontend.NotSupportedError,
            "Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults",
            "def _bad_varargs(x, *rest):\n                    ~~~~~ <--- HERE",
        ),
        (
            _bad_kwonly_default,
            jit.frontend.NotSupportedError,
            "Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults",
            "k=2):\n                                ~ <--- HERE",
        ),
        (_bad_try, jit.frontend.UnsupportedNodeError, "try blocks aren't supported", "    try:"),
        (
            _bad_lambda,
            jit.frontend.UnsupportedNodeError,
            "Lambda aren't supported",
            "    f = lambda t: t + 1",
        ),
        (
            _bad_nested_def,
            jit.frontend.UnsupportedNodeError,
            "function definitions aren't supported",
            "    def inner(t):\n    ~~~ <--- HERE",
        ),
        (
            _bad_undefined,
            RuntimeError,
            "undefined value undefined_name",
            "    return y + undefined_name  # noqa: F821\n               ~~~~~~~~~~~~~~ <--- HERE",
        ),
    ],
)
def test_script_refuses_what_torchscript_cannot_compile(fn, cls, words, underlined):
    # PyTorch's frontend refuses these before compiling anything; we check the same syntax before capturing
    with pytest.raises(cls) as e:
        jit.script(fn)
    msg = str(e.value)
    assert msg.startswith(words + ":\n  File ") and underlined in msg
    if fn is _bad_varargs:  # the error is on the def line
        assert f'test_jit.py", line {fn.__code__.co_firstlineno}\n' in msg


def test_script_module_syntax_check_covers_forward_and_exports_only():
    class Ok(nn.Module):
        @jit.ignore
        def py_helper(self, x):
            import math  # ignored methods stay Python: not checked

            return x * math.pi

        @jit.unused
        def never(self, x):
            return {x}

        def forward(self, x):
            return self.py_helper(x)

    x = torch.ones(2)
    assert _close(jit.script(Ok())(x), x * 3.141592653589793)
    jit.script(nn.LSTM(2, 2))  # minitorch's own modules are not written for the TorchScript frontend

    class BadExport(nn.Module):
        def forward(self, x):
            return x

        @jit.export
        def extra(self, x):
            return {x}

    with pytest.raises(jit.frontend.UnsupportedNodeError, match="Set aren't supported"):
        jit.script(BadExport())


def _typed(x, n: int, f: float = 1.0, b: bool = True, o: typing.Optional[torch.Tensor] = None, s: str = "a"):  # noqa: FA100  (evaluated by script)
    return x * n * f


def test_script_function_schema_and_argument_checks():
    sf = jit.script(_typed)
    decl = (
        'Declaration: _typed(Tensor x, int n, float f=1., bool b=True, Tensor? o=None, str s="a") -> Tensor'
    )
    assert str(sf.schema) == decl[len("Declaration: ") :]
    x = torch.ones(2)
    # TorchScript converts bool to int and int to float, and takes None for a Tensor
    assert _close(sf(x, True, 2), torch.full((2,), 2.0))
    assert _close(sf(x, n=3, b=0), torch.full((2,), 3.0))
    with pytest.raises(RuntimeError) as e:
        sf(x, 2.5)
    assert str(e.value) == (
        "_typed() Expected a value of type 'int' for argument 'n' but instead found type 'float'.\n"
        f"Position: 1\nValue: 2.5\n{decl}"
    )
    with pytest.raises(RuntimeError) as e:
        sf(1, 2)
    assert str(e.value).startswith(
        "_typed() Expected a value of type 'Tensor (inferred)' for argument 'x' but instead found type 'int'.\n"
        "Inferred 'x' to be of type 'Tensor' because it was not annotated with an explicit type.\nPosition: 0\n"
    )
    with pytest.raises(RuntimeError, match=r"Expected a value of type 'Optional\[Tensor\]' for argument 'o'"):
        sf(x, 1, 1.0, True, 3)
    with pytest.raises(
        RuntimeError, match="Expected a value of type 'str' for argument 's' but instead found type 'int'"
    ):
        sf(x, 1, s=5)
    with pytest.raises(
        RuntimeError, match=f"^_typed\\(\\) is missing value for argument 'n'. {re.escape(decl)}$"
    ):
        sf(x)
    with pytest.raises(
        RuntimeError, match=r"^_typed\(\) expected at most 6 argument\(s\) but received 7 argument\(s\)"
    ):
        sf(x, 1, 1.0, True, None, "a", 7)
    with pytest.raises(
        RuntimeError, match="^Unknown keyword argument 'm' for operator '_typed'. Schema: _typed"
    ):
        sf(x, 1, m=3)
    with pytest.raises(RuntimeError, match="^Argument 'x' specified both as positional and keyword argument"):
        sf(x, 1, x=x)


def test_overload_helpers():
    @jit._overload
    def f(x: int) -> int: ...

    def f(x):  # noqa: F811  (the implementation follows its overloads, as torchvision writes them)
        return x

    assert f(3) == 3 and jit._overload_method(len) is len
    assert jit._script_if_tracing is jit.script_if_tracing
    t = torch.ones(1)
    assert jit._unwrap_optional(t) is t
    with pytest.raises(AssertionError, match="Unwrapping null optional"):
        jit._unwrap_optional(None)


def test_script_passthrough_and_warning():
    class C:
        pass

    assert jit.script(C) is C
    d = {"a": 1}
    assert jit.script(d) is d
    with pytest.warns(FutureWarning, match="`torch.jit.script` is deprecated"):
        jit.script(lambda_free_function)
    with pytest.warns(FutureWarning, match="`torch.jit.trace` is deprecated"):
        jit.trace(lambda_free_function, torch.ones(1))


def lambda_free_function(x):
    return x * 3


# ---------------------------------------------------------------- save / load


def _roundtrip(obj, **kw):
    buf = io.BytesIO()
    jit.save(obj, buf, **kw)
    buf.seek(0)
    return jit.load(buf)


def test_save_load_traced_and_scripted(tmp_path):
    torch.manual_seed(2)
    m = Net().eval()
    x = torch.randn(2, 3, 8, 8)
    for obj in (jit.trace(m, x), jit.script(m)):
        loaded = _roundtrip(obj)
        assert isinstance(loaded, jit.ScriptModule) and loaded.captured
        assert _close(loaded(x), m(x)) and loaded.code == obj.code
        assert list(loaded.state_dict()) == list(m.state_dict())
        assert not loaded.training
    # a path, and extra files
    path = tmp_path / "net.pt"
    t = jit.trace(m, x)
    t.save(str(path), _extra_files={"meta.txt": "hello"})
    extra = {"meta.txt": ""}
    loaded = jit.load(str(path), _extra_files=extra)
    assert extra["meta.txt"] == b"hello" and _close(loaded(x), m(x))


def test_captured_module_loads_without_its_class():
    def make():
        class Local(nn.Module):  # not importable: only the captured graph can bring it back
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(3, 4)
                self.b = nn.Sequential(nn.ReLU(), nn.Linear(4, 1))
                self.register_buffer("offset", torch.tensor([0.25]))

            def forward(self, x):
                return self.b(self.a(x)) + self.offset

        return Local()

    m = make()
    s = jit.script(m)
    loaded = _roundtrip(s)
    x = torch.randn(5, 3)
    assert _close(loaded(x), m(x))
    assert set(loaded.state_dict()) == {"a.weight", "a.bias", "b.1.weight", "b.1.bias", "offset"}


def _scripted_loop(x: torch.Tensor, n: int) -> torch.Tensor:
    # a loop over an int argument: runs eagerly
    for _ in range(n):
        x = x * 2
    return x


with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    _scripted_loop = jit.script(_scripted_loop)  # as `@torch.jit.script` binds the name


def test_script_resolves_names_bound_in_the_function():
    def f(x: torch.Tensor, n: int):
        ys = [i * 2 for i in range(n)]
        for j in ys:
            x = x + j
        return x + len(ys) + math.pi

    assert _close(jit.script(f)(torch.zeros(1), 3), torch.full((1,), 9 + math.pi))


def test_script_optional_arguments_are_not_specialized():
    # a symbolic trace passes a Proxy, never None: capturing would keep the `is None` branch it took for every
    # call, so a function or forward with a parameter that may be None runs its Python
    def f(a: typing.Optional[torch.Tensor]) -> torch.Tensor:  # noqa: FA100  (evaluated by script)
        if a is None:
            return torch.zeros(1)
        return a + 1

    sf = jit.script(f)
    assert not sf.captured
    assert _close(sf(None), torch.zeros(1)) and _close(sf(torch.ones(1)), torch.full((1,), 2.0))

    class Masked(nn.Module):
        def forward(self, x, mask=None):
            if mask is not None:
                x = x.masked_fill(mask, 0.0)
            return x * 2

    sm = jit.script(Masked())
    assert not sm.captured
    assert _close(sm(torch.ones(2)), torch.full((2,), 2.0))
    assert _close(sm(torch.ones(2), torch.tensor([True, False])), torch.tensor([0.0, 2.0]))
    assert jit.script(Net()).captured  # no such parameter: captured as before


def test_save_load_function_rebound_by_the_decorator():
    # `@torch.jit.script` over a def binds its name to the ScriptFunction: saved by its module and name
    lf = _roundtrip(_scripted_loop)
    assert isinstance(lf, jit.ScriptFunction) and _close(lf(torch.ones(2), 3), torch.full((2,), 8.0))


def test_save_load_functions_and_eager_modules():
    def f(a):
        return torch.tanh(a) * 2

    lf = _roundtrip(jit.script(f))
    assert isinstance(lf, jit.ScriptFunction) and _close(lf(torch.ones(2)), torch.tanh(torch.ones(2)) * 2)
    lt = _roundtrip(jit.trace(f, torch.ones(3)))
    assert _close(lt(torch.zeros(2)), torch.zeros(2))
    s = jit.script(Branchy())  # runs eagerly: saved by reference to its (importable) class
    assert not s.captured
    ls = _roundtrip(s)
    x = torch.randn(2, 3)
    assert _close(ls(x), s(x)) and _close(ls(-x.abs()), x.abs())  # the negative branch: -x


class WithExports(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.k = 3

    def forward(self, x):
        return self.lin(x) * 2

    @jit.export
    def scaled(self, x):
        return self.lin(x) * self.k

    @jit.ignore
    def helper(self):
        return self.k + 1


def test_save_load_keeps_exported_methods():
    # TorchScript compiles and saves @export methods: a loaded captured module keeps them (and its plain
    # attributes) when its class is importable
    m = WithExports()
    s = jit.script(m)
    assert s.captured
    x = torch.randn(4, 3)
    for loaded in (_roundtrip(s), jit.load(io.BytesIO(s.save_to_buffer()))):
        assert _close(loaded(x), m(x)) and _close(loaded.scaled(x), m.scaled(x))
        assert loaded.k == 3 and loaded.helper() == 4
    # a class that cannot be imported when loading: forward still runs from the graph
    buf = io.BytesIO()
    jit.save(s, buf)
    data = buf.getvalue()
    assert isinstance(s.save_to_buffer(), bytes)
    assert isinstance(jit.script(_typed).save_to_buffer(), bytes)
    import pickle as _pickle

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            blob = zin.read(name)
            if name == "mtjit/class.pkl":
                blob = blob.replace(b"WithExports", b"WithExportz")
                with pytest.raises(AttributeError):
                    _pickle.loads(blob)
            zout.writestr(name, blob)
    out.seek(0)
    moved = jit.load(out)
    assert _close(moved(x), m(x))
    with pytest.raises(AttributeError, match="has no attribute 'scaled'"):
        moved.scaled(x)


def test_load_errors(tmp_path):
    with pytest.raises(ValueError, match="The provided filename .* does not exist"):
        jit.load(str(tmp_path / "missing.pt"))
    with pytest.raises(ValueError, match="is a directory"):
        jit.load(str(tmp_path))
    # a TorchScript archive written by PyTorch (its layout)
    p = tmp_path / "ts.pt"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
        z.writestr("archive/code/__torch__/m.py", "class M(Module):\n  pass\n")
        z.writestr("archive/constants.pkl", b"\x80\x02).")
        z.writestr("archive/version", "3\n")
    with pytest.raises(RuntimeError, match="TorchScript archive written by PyTorch; minitorch cannot load"):
        jit.load(str(p))
    # a torch.save checkpoint is no TorchScript archive: PyTorch's words
    ck = tmp_path / "ck.pt"
    torch.save({"w": torch.ones(2)}, str(ck))
    with pytest.raises(
        RuntimeError, match="PytorchStreamReader failed locating file constants.pkl: file not found"
    ):
        jit.load(str(ck))
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a zip")
    with pytest.raises(RuntimeError, match="failed finding central directory"):
        jit.load(str(junk))
    with pytest.raises(TypeError, match="expected a ScriptModule or ScriptFunction"):
        jit.save(nn.Linear(2, 2), io.BytesIO())


# ---------------------------------------------------------------- decorators and helpers


def test_decorators_mark_and_keep_functions():
    @jit.ignore
    def a(x):
        return x

    @jit.ignore(drop=True)
    def b(x):
        return x

    @jit.unused
    def c(x):
        return x

    @jit.export
    def d(x):
        return x

    assert a(1) == 1 and b(2) == 2 and c(3) == 3 and d(4) == 4
    assert "ignore" in a._torchscript_modifier and "unused" in b._torchscript_modifier
    assert "unused" in c._torchscript_modifier and "export" in d._torchscript_modifier
    with pytest.raises(
        RuntimeError, match="Argument to @torch.jit.ignore must be a bool or a function but got 1"
    ):
        jit.ignore(1)
    assert jit.Final is typing.Final
    assert jit.annotate(typing.List[int], []) == []  # noqa: UP006
    assert jit.isinstance([1, 2], list[int]) and not jit.isinstance([1, "a"], list[int])
    assert jit.isinstance({"a": torch.ones(1)}, dict[str, torch.Tensor])
    assert jit.isinstance((1, None), tuple[int, typing.Optional[int]])
    assert not jit.isinstance(None, torch.Tensor)


def test_fork_wait():
    fut = jit.fork(lambda a, b=1: a + b, 2, b=3)
    assert isinstance(fut, jit.Future) and fut.done() and jit.wait(fut) == 5
    assert fut.then(lambda f: f.value() * 2).wait() == 10
    with pytest.raises(ZeroDivisionError):
        jit.fork(lambda: 1 / 0)  # eager fork runs at once, as PyTorch's
    with pytest.raises(TypeError, match="expected a torch.jit.Future"):
        jit.wait(5)
    futs = [jit.fork(torch.mul, torch.ones(2), i) for i in range(3)]
    assert [jit.wait(f).sum().item() for f in futs] == [0.0, 2.0, 4.0]


def test_freeze_and_optimize_for_inference():
    m = nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="Freezing expects a ScriptModule as input"):
        jit.freeze(m)
    s = jit.script(m)
    with pytest.raises(RuntimeError, match="Freezing is currently only implemented for modules in eval mode"):
        jit.freeze(s)
    with pytest.raises(RuntimeError, match="optimize_for_inference expects a ScriptModule as input"):
        jit.optimize_for_inference(m)
    frozen = jit.freeze(s.eval())
    assert frozen is not s and list(frozen.parameters()) == []
    s.train()
    o = jit.optimize_for_inference(s)
    assert o is not s and not s.training and list(o.parameters()) == []
    x = torch.randn(3, 2)
    assert _close(o(x), m(x))


def test_trace_and_script_on_device(device):
    torch.manual_seed(6)
    m = Net().eval().to(device)
    x = torch.randn(2, 3, 8, 8, device=device)
    t = jit.trace(m, x)
    s = jit.script(m)
    want = m(x)
    for got in (t(x), s(x), _roundtrip(t)(x)):
        assert got.device == want.device and _close(got.cpu(), want.cpu())


def test_script_modules_are_calls_in_a_trace_and_copy():
    import copy
    import pickle

    class Loop(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, xs):
            h = torch.zeros(2)
            for i in range(xs.size(0)):  # data-dependent length: script runs it eagerly
                h = torch.tanh(self.lin(xs[i]) + h)
            return h

    class Wrap(nn.Module):
        def __init__(self):
            super().__init__()
            self.loop = jit.script(Loop())

        def forward(self, xs):
            return torch.relu(self.loop(xs))

    w = Wrap()
    t = jit.trace(w, torch.rand(4, 2))
    assert "(loop).forward(xs, )" in t.code  # a call, not the loop unrolled 4 times
    xs = torch.rand(7, 2)
    assert _close(t(xs), w(xs))
    # captured and eager script modules survive deepcopy and pickling (the compiled forward is rebuilt)
    s = jit.script(Net().eval())
    x = torch.randn(1, 3, 8, 8)
    for clone in (copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert clone.captured and _close(clone(x), s(x))
    dc = copy.deepcopy(t)
    assert _close(dc(xs), w(xs)) and dc.loop.lin.weight is not w.loop.lin.weight


def test_submodules_become_script_modules():
    class Gate(nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    class Cell(nn.Module):
        def __init__(self):
            super().__init__()
            self.dg = Gate()
            self.linear = nn.Linear(4, 4)

        def forward(self, x):
            return torch.tanh(self.dg(self.linear(x)))

    c = Cell()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jit.TracerWarning)
        t = jit.trace(c, torch.rand(2, 4))
    s = jit.script(c)
    for mod, cls in ((t, jit.TracedModule), (s, jit.RecursiveScriptModule)):
        assert isinstance(mod.dg, cls) and mod.dg.code.startswith("def forward(self, x):")
        assert mod.linear is c.linear  # standard modules are shared as they are
    x = torch.rand(2, 4)
    assert _close(s(x), c(x)) and _close(s.dg(-x), x)
    seen = []

    class Probe(nn.Module):
        def forward(self, x):
            seen.append(jit.is_scripting())
            return x

    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = Probe()

        def forward(self, x):
            return self.p(x)

    jit.trace(Holder(), torch.ones(1), check_trace=False).p(torch.ones(1))
    jit.script(Holder()).p(torch.ones(1))
    # trace run, traced submodule called, script capture, scripted submodule called: only script counts
    assert seen == [False, False, True, True]
