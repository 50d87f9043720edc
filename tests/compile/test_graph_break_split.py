"""Graph breaks split a compiled function into graphs (minitorch._dynamo.resume): results and gradients equal eager
ones, explain()'s graph counts, break counts, reasons and ops per graph equal PyTorch 2.15's for the same
functions (tests/compile/_break_cases.py, run under both), custom backends receive each graph with its example
inputs, guards and recompiles hold per graph, fullgraph=True still raises, and what cannot be split (a break in a
loop, no source) runs eagerly as a whole with a warning saying why."""

import contextlib
import copy
import importlib.util
import io
import operator
import os
import warnings

import pytest

import minitorch as torch
from minitorch import _dynamo, nn
from tests.utils import run_oracle

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_FILE = os.path.join(HERE, "_break_cases.py")


def _load_cases():
    spec = importlib.util.spec_from_file_location("_break_cases_minitorch", CASES_FILE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.torch = torch
    mod.BLOCK_MODEL = mod.make_block_model()
    mod.SCALED_MODEL = mod.make_scaled_model()
    return mod


C = _load_cases()

# (case, ops_per_graph compared too): in a `with torch.no_grad():` PyTorch records _set_grad_enabled calls, we
# record each op under its grad mode: the graphs and their counts match, not the op lists
ORACLE_CASES = [
    ("print_mid", True),
    ("print_tensor", True),
    ("item_branch", True),
    ("data_branch", True),
    ("tolist_branch", True),
    ("str_call", True),
    ("clock", True),
    ("user_break", True),
    ("break_in_if_body", True),
    ("break_in_else", True),
    ("two_prints", True),
    ("print_first", True),
    ("print_last", True),
    ("loop_break", True),
    ("in_with", False),
    ("early_return", True),
    ("conditional_names", True),
    ("uses_globals", True),
    ("varargs", True),
    ("shapes_after_break", True),
    ("try_break", True),
    ("loop_in_branch", True),
    ("nested_return", True),
    ("nested_annotated", True),
    ("in_set_grad", False),
    ("mid_item", True),
    ("mid_float", True),
    ("mid_print", True),
    ("mid_item_before", True),
    ("two_breaks_one_stmt", True),
    ("mid_global", True),
    ("mid_kwargs", True),
    ("mid_print_tensor_arg", True),
    ("mid_multiline", True),
    ("calls_helper", True),
    ("calls_item_helper", True),
    ("nested_helpers", True),
    ("helper_of_helper", True),
    ("calls_module", True),
    ("mid_module_arg", True),
    ("aug_helper", True),
    ("kw_helper", True),
    ("helper_twice", True),
    ("loop_in_helper", True),
    ("closure_helper", True),
]
# what Dynamo runs wholly eagerly (it skips the frame) and so do we
WHOLE = ("loop_break", "try_break")
INPUT = [0.5, -1.0, 2.0]

_ORACLE = """
import contextlib, importlib.util, io, json, logging, sys, warnings
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)
import torch
req = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location("cases", req["file"])
C = importlib.util.module_from_spec(spec)
spec.loader.exec_module(C)
C.torch = torch
C.BLOCK_MODEL = C.make_block_model()
C.SCALED_MODEL = C.make_scaled_model()
out = {}
for name in req["names"]:
    torch._dynamo.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        ex = torch._dynamo.explain(getattr(C, name))(torch.tensor(req["input"]))
    out[name] = [ex.graph_count, ex.graph_break_count,
                 [[getattr(o, "__name__", str(o)) for o in ops] for ops in ex.ops_per_graph],
                 [r.reason.split("\\n")[:2] for r in ex.break_reasons],
                 [[f.name, f.lineno] for r in ex.break_reasons for f in r.user_stack[-1:]]]
print(json.dumps(out))
"""


@pytest.fixture(autouse=True)
def _fresh():
    _dynamo.reset()
    yield
    _dynamo.reset()


@pytest.fixture(scope="module")
def oracle():
    return run_oracle(_ORACLE, {"file": CASES_FILE, "names": [n for n, _ in ORACLE_CASES], "input": INPUT})


def _explain(fn, *args, **kwargs):
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _dynamo.explain(fn)(*args, **kwargs)


@pytest.mark.parametrize(("name", "with_ops"), ORACLE_CASES)
def test_explain_matches_pytorch(oracle, name, with_ops):
    count, breaks, ops, reasons, frames = oracle[name]
    ex = _explain(getattr(C, name), torch.tensor(INPUT))
    assert ex.graph_count == count
    assert ex.graph_break_count == breaks == count - 1
    if with_ops:
        assert [[getattr(o, "__name__", str(o)) for o in g] for g in ex.ops_per_graph] == ops
    else:
        assert len(ex.ops_per_graph) == len(ops)
    if name in WHOLE:
        # PyTorch skips the frame silently; we report the break that made the function run eagerly as a whole
        assert reasons == [] and len(ex.break_reasons) == 1
        assert ex.break_reasons[0].reason.startswith("Failed to trace builtin operator")
        return
    assert [r.reason.split("\n")[:1] for r in ex.break_reasons] == [r[:1] for r in reasons]
    assert [[f.name, f.lineno] for r in ex.break_reasons for f in r.user_stack[-1:]] == frames
    for r, theirs in zip(ex.break_reasons, reasons):
        if len(theirs) > 1 and "`print`" not in theirs[1]:
            assert r.reason.split("\n")[1] == theirs[1]  # the explanation too, word for word


def _run(fn, *args, **kwargs):
    """fn's result and what it printed."""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        res = fn(*args, **kwargs)
    return res, out.getvalue()


EAGER_CASES = [n for n, _ in ORACLE_CASES if n not in ("uses_globals",)]


@pytest.mark.parametrize("name", EAGER_CASES)
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_split_results_equal_eager(name, backend):
    fn = getattr(C, name)
    cf = torch.compile(fn, backend=backend)
    torch.manual_seed(0)
    inputs = [torch.randn(5), torch.randn(5), torch.randn(7), torch.tensor(INPUT)]
    inputs.append(-inputs[0])  # the other branch of the data-dependent ones
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # those run eagerly whole warn once
        for x in inputs * 2:
            got, printed = _run(cf, x)
            want, want_printed = _run(fn, x)
            torch.testing.assert_close(got, want)
            assert printed == want_printed  # the breaking print runs on every call, once
    if name not in WHOLE:
        assert cf._mt_graph_break is not None and cf._mt_graphs


def test_split_runs_each_piece_compiled_and_the_break_eagerly():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append((gm, [tuple(t.shape) for t in example_inputs]))
        return gm.forward

    cf = torch.compile(C.print_tensor, backend=backend)
    x = torch.randn(4)
    for _ in range(3):
        got, printed = _run(cf, x)
        torch.testing.assert_close(got, C.print_tensor(x))
        assert printed.startswith("tensor(")
    # two graphs, compiled once each: the one before the print gets x, the one after gets x and y
    assert [shapes for _, shapes in graphs] == [[(4,)], [(4,), (4,)]]
    assert [n.op for n in graphs[0][0].graph.nodes if n.op == "placeholder"] == ["placeholder"]
    assert [n.target for n in graphs[1][0].graph.nodes if n.op == "placeholder"] == ["L_x", "L_y"]
    assert len(cf._mt_graphs) == 2
    # a new shape recompiles both pieces, each under its own guards
    _run(cf, torch.randn(6))
    assert [shapes for _, shapes in graphs[2:]] == [[(6,)], [(6,), (6,)]]


def test_data_dependent_branch_takes_the_branch_of_each_call():
    cf = torch.compile(C.data_branch, backend="eager")
    x = torch.tensor([1.0, 2.0])
    for t in [x, -x, x, -x * 3]:
        torch.testing.assert_close(cf(t), C.data_branch(t))
    ex = _explain(C.data_branch, -x)
    assert ex.graph_count == 2 and ex.break_reasons[0].reason == "generic_jump TensorVariable()"


def test_gradients_through_a_split_function():
    def loss(x, w, scale=2.0):
        h = (x @ w).tanh()
        if h.sum() > 0:
            h = h * scale
        print("loss")
        return (h * h).mean() + w.pow(2).sum()

    cf = torch.compile(loss)
    torch.manual_seed(0)
    for _ in range(4):
        x = torch.randn(3, 4, requires_grad=True)
        w = torch.randn(4, 2, requires_grad=True)
        x2, w2 = (t.detach().clone().requires_grad_() for t in (x, w))
        _run(lambda a, b: cf(a, b).backward(), x, w)
        _run(lambda a, b: loss(a, b).backward(), x2, w2)
        torch.testing.assert_close(x.grad, x2.grad)
        torch.testing.assert_close(w.grad, w2.grad)
    assert len(cf._mt_graphs) >= 3  # prefix, and the continuations of both branches


@pytest.mark.parametrize("name", ["in_with", "in_set_grad"])
def test_grad_mode_block_resumes_inside_with_its_grad_mode(name):
    fn = getattr(C, name)
    cf = torch.compile(fn)
    for _ in range(3):
        x = torch.randn(4, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        got, printed = _run(cf, x)
        want, want_printed = _run(fn, x2)
        torch.testing.assert_close(got, want)
        assert printed == want_printed and got.requires_grad == want.requires_grad
        got.sum().backward()
        want.sum().backward()
        torch.testing.assert_close(x.grad, x2.grad)
    assert len(cf._mt_graphs) == 2
    # the block is split inside, not run eagerly whole: its ops before the break are in the first graph, under
    # the block's grad mode
    ex = _explain(fn, torch.randn(4, requires_grad=True))
    assert any(isinstance(op, _dynamo.capture._GradModeCall) for op in ex.ops_per_graph[0])


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 8)
        self.l2 = nn.Linear(8, 3)
        self.drop = nn.Dropout(0.5)
        self.bn = nn.BatchNorm1d(8)

    def forward(self, x):
        h = self.bn(self.l1(x)).relu()
        if h.sum().item() > 0:
            h = h * 2
        h = self.drop(h)
        if self.training:
            h = h + 1
        return self.l2(h)


def test_module_forward_splits_and_guards_its_training_flag():
    torch.manual_seed(0)
    m = _Net()
    ref = copy.deepcopy(m)
    cm = torch.compile(m)
    x = torch.randn(5, 4)
    for mode in ["train", "eval", "train", "eval"]:
        getattr(m, mode)()
        getattr(ref, mode)()
        for t in [x, -x]:
            torch.manual_seed(3)
            got = cm(t)
            torch.manual_seed(3)
            torch.testing.assert_close(got, ref(t))
    torch.testing.assert_close(m.bn.running_mean, ref.bn.running_mean)  # updated once a call, not twice
    assert cm._mt_compiled._mt_graph_break is not None
    ex = _explain(m, x)
    assert ex.graph_count == 2 and ex.graph_break_count == 1


def test_module_compile_in_place_splits_and_hooks_added_later_still_run():
    torch.manual_seed(0)
    m = _Net().eval()
    ref = copy.deepcopy(m)
    m.compile(backend="eager")
    x = torch.randn(5, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # split, not run eagerly whole
        for t in [x, -x]:
            torch.testing.assert_close(m(t), ref(t))
    assert len(m._compiled_call_impl._mt_graphs) >= 2
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append(out.shape))
    torch.testing.assert_close(m(x), ref(x))  # a hook registered after the split: the call runs whole, hooked
    assert calls == [(5, 3)]


def test_module_with_hooks_runs_eagerly_whole_with_a_warning():
    m = _Net().eval()
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append(out.shape))
    cm = torch.compile(m)
    x = torch.randn(2, 4)
    with pytest.warns(UserWarning, match="not split into graphs around the break: the module has hooks"):
        got = cm(x)
    torch.testing.assert_close(got, m(x))
    assert len(calls) == 2


def test_closures_nonlocal_globals_and_defaults():
    closure, ref = C.make_closure(), C.make_closure()
    cf = torch.compile(closure, backend="eager")
    x = torch.randn(3)
    for _ in range(4):
        # `calls` is written eagerly and read by the next graph: its value is part of that graph's guard
        torch.testing.assert_close(cf(x), ref(x))
    assert closure.__closure__[1].cell_contents == 4
    cf = torch.compile(C.early_return, backend="eager")
    for n in [0, 2, 1, 3, 0]:
        torch.testing.assert_close(_run(cf, x, n)[0], C.early_return(x, n))
    cf = torch.compile(C.nested_return, backend="eager")
    for n in [0, 2, 1, 3, 0, 2]:  # a return inside an if of a piece that is split again
        torch.testing.assert_close(_run(cf, x, n)[0], C.nested_return(x, n))
    cf = torch.compile(C.conditional_names, backend="eager")
    for n in [1, 0, -1, 1]:
        torch.testing.assert_close(_run(cf, x, n=n)[0], C.conditional_names(x, n=n))
    cf = torch.compile(C.varargs, backend="eager")
    for args in [(x,), (x, x), (x, x, x)]:
        torch.testing.assert_close(_run(cf, *args, scale=2.0, k=3)[0], C.varargs(*args, scale=2.0, k=3))
    cf = torch.compile(C.uses_globals, backend="eager")
    old = C.SCALE
    try:
        for scale in [2.0, 3.0]:
            C.SCALE = scale  # a declared global the graphs read is guarded: a new value recompiles
            torch.testing.assert_close(_run(cf, x)[0], x * scale + scale)
    finally:
        C.SCALE = old


def test_fullgraph_still_raises_at_the_break():
    for name, title in [
        ("print_mid", "Failed to trace builtin operator"),
        ("item_branch", "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
        ("str_call", "repr() on tensor"),
        ("clock", "Call to a time function"),
    ]:
        with pytest.raises(_dynamo.exc.Unsupported) as e:
            torch.compile(getattr(C, name), fullgraph=True)(torch.randn(3))
        assert str(e.value).startswith(title)
        assert f"in {name}" in str(e.value)


def test_fullgraph_raises_at_a_break_mid_statement_or_in_a_helper():
    for name, title, frames in [
        ("mid_float", "Unsupported Tensor.item() call with capture_scalar_outputs=False", ["mid_float"]),
        ("mid_print", "Failed to trace builtin operator", ["mid_print"]),
        ("calls_helper", "Failed to trace builtin operator", ["calls_helper", "_helper_print"]),
        ("calls_module", "Failed to trace builtin operator", ["calls_module", "forward", "forward"]),
    ]:
        with pytest.raises(_dynamo.exc.Unsupported) as e:
            torch.compile(getattr(C, name), fullgraph=True)(torch.randn(3))
        msg = str(e.value)
        assert msg.startswith(title)
        assert [line.split(" in ")[-1] for line in msg.splitlines() if line.startswith("   File ")] == frames


def test_mid_statement_split_keeps_the_work_before_the_break_in_the_graph():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append([n.target for n in gm.graph.nodes if n.op.startswith("call_")])
        return gm.forward

    cf = torch.compile(C.mid_float, backend=backend)
    for x in [torch.randn(4), torch.randn(4), -torch.randn(4)]:
        torch.testing.assert_close(cf(x), C.mid_float(x))
    # relu and max in the first graph, float() eagerly, the add in the next; the max's value is a Python number:
    # the first change recompiles the second graph with it as an input (automatic dynamic), 3 graphs as PyTorch's
    assert graphs[0] == [torch.relu, "max"]
    assert all(g == [operator.add] for g in graphs[1:]) and len(graphs) == 3


def test_a_breaking_helper_is_compiled_as_its_own_frame_once():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append([n.target for n in gm.graph.nodes if n.op.startswith("call_")])
        return gm.forward

    cf = torch.compile(C.calls_helper, backend=backend)
    x = torch.randn(3)
    for _ in range(3):
        got, printed = _run(cf, x)
        torch.testing.assert_close(got, C.calls_helper(x))
        assert printed == "g\n"
    assert graphs == [[operator.add], ["sin"], ["cos", operator.mul], [operator.mul]]
    assert len(cf._mt_graphs) == 4  # the helper's graphs are this function's too
    # the same helper called from another compiled function is compiled for that one's backend separately
    graphs.clear()
    cf2 = torch.compile(C.nested_helpers, backend=backend)
    torch.testing.assert_close(cf2(x), C.nested_helpers(x))
    assert graphs[0] == [operator.add] and graphs[-1] == [operator.mul] and len(graphs) == 4


def test_a_split_module_call_inside_a_compiled_model():
    cf = torch.compile(C.calls_module)
    x = torch.randn(2, 3, requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    got, printed = _run(cf, x)
    want, want_printed = _run(C.calls_module, x2)
    torch.testing.assert_close(got, want)
    assert printed == want_printed == "b\n"
    got.sum().backward()
    want.sum().backward()
    torch.testing.assert_close(x.grad, x2.grad)


@pytest.mark.parametrize(
    "name", ["mid_item_before", "two_breaks_one_stmt", "calls_item_helper", "mid_kwargs"]
)
def test_gradients_through_a_mid_statement_split(name):
    fn = getattr(C, name)
    cf = torch.compile(fn)
    for _ in range(3):
        x = torch.randn(4, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        got, want = cf(x), fn(x2)
        torch.testing.assert_close(got, want)
        got.sum().backward()
        want.sum().backward()
        torch.testing.assert_close(x.grad, x2.grad)


@pytest.mark.parametrize("name", ["attr_before_break", "walrus_break", "ifexp_break"])
def test_what_cannot_be_split_mid_statement_runs_that_statement_eagerly(name):
    fn = getattr(C, name)
    cf = torch.compile(fn, backend="eager")
    args, ref_args = ((C.Box(),), (C.Box(),)) if name == "attr_before_break" else ((), ())
    for x in [torch.randn(3), torch.randn(3), torch.randn(5)]:
        got, printed = _run(cf, x, *args)
        want, want_printed = _run(fn, x, *ref_args)
        torch.testing.assert_close(got, want)
        assert printed == want_printed
    if args:
        assert args[0].scale == ref_args[0].scale == 4.0
    # the statements around it are compiled: one graph before, one after, the breaking statement eager whole
    ex = _explain(fn, torch.randn(3), *((C.Box(),) if args else ()))
    assert ex.graph_count == 2


def test_capture_scalar_outputs_keeps_item_in_the_graph():
    def f(x):
        s = x.sum()
        v = s.item()
        return x * v

    x = torch.randn(3)
    with _dynamo.config.patch(capture_scalar_outputs=True):
        ex = _explain(f, x)
        assert ex.graph_count == 1 and ex.graph_break_count == 0
        cf = torch.compile(f, fullgraph=True, backend="eager")
        torch.testing.assert_close(cf(x), f(x))
    # by default .item() breaks: sum in one graph, item() eagerly, mul in the next (as PyTorch 2.15)
    ex = _explain(f, x)
    assert ex.graph_count == 2 and ex.graph_break_count == 1
    assert [[getattr(o, "__name__", "") for o in g] for g in ex.ops_per_graph] == [[], ["mul"]]
    cf = torch.compile(f, backend="eager")
    for t in [x, x * 2, -x]:
        torch.testing.assert_close(cf(t), f(t))


def test_user_errors_after_the_break_surface_unchanged():
    cf = torch.compile(C.user_error_after_break, backend="eager")
    x = torch.randn(2, 3)
    with pytest.raises(RuntimeError) as ours:
        _run(cf, x, torch.randn(4, 2))
    with pytest.raises(RuntimeError) as eager:
        _run(C.user_error_after_break, x, torch.randn(4, 2))
    assert str(ours.value) == str(eager.value)
    # and the same function still works on good inputs afterwards
    w = torch.randn(3, 2)
    torch.testing.assert_close(_run(cf, x, w)[0], (x + 1) @ w)


def test_what_cannot_be_split_runs_eagerly_whole_saying_why():
    cf = torch.compile(C.loop_break)
    x = torch.randn(3)
    with pytest.warns(UserWarning, match="a graph break inside a loop cannot be resumed"):
        got, printed = _run(cf, x)
    torch.testing.assert_close(got, (x + 3) * 2)
    assert printed == "0\n1\n2\n" and cf._mt_graphs == []

    scope = {}
    exec("def no_source(x):\n    print('x')\n    return x + 1\n", scope)  # noqa: S102  (a function without a file)
    cf = torch.compile(scope["no_source"])
    with pytest.warns(UserWarning, match="its source is not available"):
        torch.testing.assert_close(_run(cf, x)[0], x + 1)
    assert cf._mt_graphs == []

    cf = torch.compile(lambda t: print("t") or t * 2)
    with pytest.warns(UserWarning, match="a lambda has no statements to split"):
        torch.testing.assert_close(_run(cf, x)[0], x * 2)

    class Base(nn.Module):
        def forward(self, t):
            return t * 2

    class Child(Base):
        def forward(self, t):
            print("child")
            return super().forward(t) + 1

    cm = torch.compile(Child())
    with pytest.warns(UserWarning, match="zero-argument super"):
        torch.testing.assert_close(_run(cm, x)[0], x * 2 + 1)


def test_a_source_file_changed_since_import_is_not_split(tmp_path):
    import linecache

    path = tmp_path / "changed_module.py"
    path.write_text("def f(x):\n    y = x + 1\n    print('a')\n    return y * 2\n")
    spec = importlib.util.spec_from_file_location("changed_module", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path.write_text("def f(x):\n    y = x - 1\n    print('a')\n    return y * 3\n")
    linecache.checkcache(str(path))
    cf = torch.compile(mod.f)
    x = torch.randn(3)
    with pytest.warns(UserWarning, match="no longer matches the function's code"):
        torch.testing.assert_close(_run(cf, x)[0], (x + 1) * 2)  # the loaded code, not the file's new text


def test_recompile_limit_applies_to_each_piece():
    def f(x, s):
        y = x * 2
        print("s")
        return y + len(s)

    cf = torch.compile(f, backend="eager", recompile_limit=2)
    x = torch.randn(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(5):  # a string is guarded by value: each new one is a recompile of the piece
            torch.testing.assert_close(_run(cf, x, "s" * n)[0], x * 2 + n)
    assert sum("recompile_limit" in str(m.message) for m in w) == 1


def test_split_stances_and_reset():
    cf = torch.compile(C.print_mid, backend="eager")
    x = torch.randn(3)
    _run(cf, x)
    assert len(cf._mt_graphs) == 2
    with torch.compiler.set_stance("force_eager"):
        torch.testing.assert_close(_run(cf, x)[0], C.print_mid(x))
    _dynamo.reset()
    assert cf._mt_graphs == [] and cf._mt_graph_break is None
    torch.testing.assert_close(_run(cf, x)[0], C.print_mid(x))
    assert len(cf._mt_graphs) == 2
